"""A replay's large arrays in reused memory.

A replay makes the arrays eager dvlad made, but eager dvlad takes its large intermediate
arrays from :mod:`dvlad.core.pool` (memory whose pages stay mapped), and numpy's own
allocations may not: once glibc gives a freed block of that size back to the kernel, every
fresh array costs a page fault per 4 KB, zeroed by the kernel, which can double the time of
elementwise code (measured: a GP gradient's replay at n = 200 took 1.9× its hand-written
gradient with ~1000 faults a call, 1.08× without).  So an elementwise ufunc whose recorded
result is a large float array is spelled with ``out=`` a pooled array of that shape and dtype
(the pool hands out only arrays nothing else holds, by reference counts; the caller keeps what
the replay returns).  With ``out`` of the dtype numpy would choose, the ufunc runs the same
inner loop: the same bits.  Only straight code is spelled so: a rolled loop's body stands for
iterations whose shapes may differ.
"""
import math
import operator

import numpy as np

from ...core import pool
from .traced import Traced

__all__ = ["pooled_call"]

_UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
           operator.truediv: np.true_divide, operator.neg: np.negative}


def pooled_call(fn, args, names, ref):
    """The source of ``fn(*args)`` into a pooled ``out=``, or None where it does not apply.
    The result's dtype is the loop numpy resolves for the recorded operands' dtypes (a Python
    int or float weak, as numpy takes it), its shape their broadcast."""
    u = _UFUNCS.get(fn, fn)
    if type(u) is not np.ufunc or u.signature is not None or u.nout != 1 \
            or len(args) != u.nin:          # (a gufunc's core dimensions do not broadcast)
        return None
    dtypes, shapes = [], []
    for a in args:
        x = a.value if isinstance(a, Traced) else a
        if type(x) is np.ndarray:
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
