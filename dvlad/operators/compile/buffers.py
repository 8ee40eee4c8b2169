"""A replay's large arrays in reused memory.

A replay makes the arrays eager dvlad made, but eager dvlad takes its large intermediate
arrays from :mod:`dvlad.core.pool` (memory whose pages stay mapped), and numpy's own
allocations may not: once glibc gives a freed block of that size back to the kernel, every
fresh array costs a page fault per 4 KB, zeroed by the kernel, which can double the time of
elementwise code (benchmarks/replay_choices.py: a GP gradient's replay at n = 200 took 1.81×
its hand-written gradient with ~900 faults a call, 1.14× with pooled arrays).  So an elementwise ufunc whose recorded
result is a large float array is spelled with ``out=`` a pooled array of that shape and dtype
(the pool hands out only arrays nothing else holds, by reference counts; the caller keeps what
the replay returns); so is a product of two 2-d float matrices (numpy's, or dvlad's matmul).
With ``out`` of the dtype numpy would choose, a ufunc runs the same inner loop: the same bits
(a product, the same BLAS call).  Only straight code is spelled so: a rolled loop's body stands
for iterations whose shapes may differ.
"""
import math
import operator

import numpy as np

from ...core import pool
from .traced import Traced

__all__ = ["pooled_call"]

_UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
           operator.truediv: np.true_divide, operator.neg: np.negative, operator.matmul: np.matmul}


def pooled_call(fn, name, args, names, ref):
    """The source of ``fn(*args)`` into a pooled ``out=``, or None where it does not apply.
    The result's dtype is the loop numpy resolves for the recorded operands' dtypes (a Python
    int or float weak, as numpy takes it), its shape their broadcast."""
    u = _UFUNCS.get(fn, fn)
    if u is np.matmul or name == "matmul":       # (dvlad's array primitive, one level down)
        return _product(args, names, ref)
    if type(u) is not np.ufunc or u.signature is not None or u.nout != 1 \
            or len(args) != u.nin:          # (a gufunc's core dimensions do not broadcast)
        return None
    dtypes, shapes = [], []
    for a in args:
        x = a.value if isinstance(a, Traced) else a
        if type(x) is np.ndarray:
            if x.ndim > 1 and not _row_major(x):
                return None             # (numpy's result may then be column-major: its layout)
            dtypes.append(x.dtype)
            shapes.append(x.shape)
        elif type(x) is float or type(x) is int:
            dtypes.append(type(x))
        elif isinstance(x, (np.floating, np.integer)):
            dtypes.append(x.dtype)
        else:
            return None
    try:
        dtype = getattr(u, "resolve_dtypes")(tuple(dtypes) + (None,))[-1]
        shape = np.broadcast_shapes(*shapes)
    except Exception:           # (numpy without resolve_dtypes, or operands it refuses)
        return None
    if not shapes or dtype.kind != "f" or not pool.large(dtype.itemsize * math.prod(shape)):
        return None
    spelled = ", ".join(ref(a, names) for a in args)
    return (f"{names.bind(u, u.__name__)}({spelled}, out={names.bind(pool.untraced, '_out')}"
            f"({shape!r}, {names.bind(dtype, str(dtype))}))")


def _product(args, names, ref):
    """a @ b of two 2-d float arrays of one dtype into a pooled (m, n) array, or None."""
    if len(args) != 2:
        return None
    a, b = (x.value if isinstance(x, Traced) else x for x in args)
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != 2 or b.ndim != 2 \
            or a.dtype != b.dtype or a.dtype.kind != "f" or a.shape[1] != b.shape[0] \
            or not pool.large(a.dtype.itemsize * a.shape[0] * b.shape[1]):
        return None
    return (f"{names.bind(np.matmul, 'matmul')}({ref(args[0], names)}, {ref(args[1], names)}, "
            f"out={names.bind(pool.untraced, '_out')}(({a.shape[0]}, {b.shape[1]}), "
            f"{names.bind(a.dtype, str(a.dtype))}))")


def _row_major(x):
    """Whether x's strides run in row-major order (broadcast axes, stride 0, and axes of one
    element aside), so that numpy lays an elementwise result of it out row-major."""
    st = [s for s, n in zip(x.strides, x.shape) if n > 1 and s != 0]
    return all(s > 0 for s in st) and all(a >= b for a, b in zip(st, st[1:]))
