"""numpy's protocols on AD numbers, so that plain numpy code differentiates.

``np.sin(x)``, ``x @ a``, ``np.sum(x, axis=0)``, ``x[1:]``, ``x.T`` on a bundle or tape cell call
dvlad's primitive for that function, through numpy's ``__array_ufunc__`` and
``__array_function__`` protocols.  A numpy function with no rule raises
:class:`~dvlad.NotDifferentiableError` naming it — never a silently dropped derivative.
Comparisons and predicates (``<``, ``np.isnan``...) look at primals and return plain booleans.
On an object array of AD numbers numpy calls each element's method (``x.sin()``), as here too.
"""
import sys

import numpy as np

from . import assignment, composite, decompositions, methods, numerics, objects, padding, \
    products, shaping, statistics, views
from . import linalg as LA
from .ufunc_methods import ufunc_method
from . import primitives as A
from ..core.base import concrete, dtype_of
from ..core.rules import TABLE
from ..numbers.outputs import SPECIAL
from ..numbers.primitives import OPS
from ..core.number import ADNumber, strip
from ..core.structures import elementwise
from ..core.tags import NotDifferentiableError

# numpy's ufunc -> dvlad's primitive: from the rule table's rows (each names the ufuncs it
# answers to), plus matmul (an array primitive) and the identity.
UFUNCS = {getattr(np, name): OPS[rule.name] for rule in TABLE for name in rule.ufuncs}
UFUNCS.update({np.matmul: lambda a, b: LA.matmul(_operand(a), _operand(b)),
               np.positive: lambda x: x, np.conjugate: lambda x: x})
# Functions of primals only: their results carry no derivative (booleans, predicates).
PREDICATES = {np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
              np.isnan, np.isinf, np.isfinite, np.signbit, np.logical_and, np.logical_or,
              np.logical_not, np.logical_xor}


_SCIPY_ADDED = []


def _add_scipy_ufuncs():
    """Map scipy.special's ufuncs to their rows, once, when scipy.special has been imported (a
    scipy ufunc met here means it has: dvlad itself never imports scipy for this)."""
    sc = sys.modules.get("scipy.special")
    if sc is None or _SCIPY_ADDED:
        return False
    _SCIPY_ADDED.append(True)
    private = getattr(sc, "_ufuncs", None)          # (zeta's ufunc is _ufuncs._zeta)
    for name, f in SPECIAL.items():
        u = getattr(sc, name, None) or getattr(private, name, None)
        if u is not None:
            UFUNCS[u] = f
    return True


def _ufunc_name(ufunc):
    """The ufunc as its user wrote it: numpy.sin, scipy.special.erf."""
    name = ufunc.__name__
    if getattr(np, name, None) is ufunc:
        return f"numpy.{name}"
    for module in ("scipy.special", "scipy.special._ufuncs"):    # (the private ones: scipy.stats'
        owner = sys.modules.get(module)                        # beta.pdf is _ufuncs._beta_pdf)
        if owner is not None and getattr(owner, name, None) is ufunc:
            return f"{module}.{name}"
    return name


def _no_rule(what):
    return NotDifferentiableError(
        f"{what} has no dvlad rule, so its derivative would be silently lost. Use a dvlad or "
        f"numpy function that has one (see notes/arrays.md), or define one with "
        f"dvlad.primitive / dvlad.vector_primitive.")


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if ufunc in PREDICATES:
        return getattr(ufunc, method)(*(strip(i) for i in inputs), **kwargs)
    if method == "reduce" and ufunc is np.add:
        unsupported = sorted(k for k, v in kwargs.items() if k not in ("axis", "keepdims")
                             and not (k == "out" and v is None))
        if unsupported:                 # never ignored: each would change the value
            raise NotDifferentiableError(f"numpy.add.reduce with {unsupported}: dvlad "
                                         f"differentiates axis= and keepdims= only; write the "
                                         f"rest out (np.sum(x) + initial, np.where(mask, x, 0))")
        return A.sum(inputs[0], kwargs.get("axis", 0), kwargs.get("keepdims", False))
    op = UFUNCS.get(ufunc)
    if op is None and _add_scipy_ufuncs():
        op = UFUNCS.get(ufunc)
    if method != "__call__" and op is not None:
        return ufunc_method(ufunc, op, method, tuple(objects.repack(i) if _objects(i) else i
                                                     for i in inputs), kwargs,
                            f"{_ufunc_name(ufunc)}.{method}")
    if op is None:
        raise _no_rule(_ufunc_name(ufunc) + ("" if method == "__call__" else f".{method}"))
    extra = {k: v for k, v in kwargs.items() if not (k == "out" and v is None)}
    if extra.keys() == {"out"}:
        assignment.refuse_into_plain(ufunc, extra["out"], inputs)     # (h += v, h plain)
    if extra:
        raise NotDifferentiableError(f"{_ufunc_name(ufunc)} with {sorted(extra)}: dvlad "
                                     f"differentiates the plain call only")
    if ufunc is np.float_power:          # numpy's computes in float64 at least (float32 in:
        inputs = tuple(_widened(i) for i in inputs)       # float64 out); the power row does not
    if any(isinstance(i, np.ndarray) and i.dtype == object for i in inputs):
        inputs = tuple(objects.repack(i) if isinstance(i, np.ndarray) else i for i in inputs)
        if any(isinstance(i, np.ndarray) and i.dtype == object for i in inputs):
            return elementwise(op, *inputs)     # (not all numbers: numpy's way, element by element)
    return op(*inputs)


def _operand(v):
    """A list or tuple of plain numbers as the array numpy would make of it (np.dot([1, 2], w),
    [1.0, 2.0] @ w); anything else as it is."""
    if type(v) is list or type(v) is tuple:
        return objects.repack(np.asarray(v))
    if isinstance(v, np.ndarray):
        return objects.repack(v)
    return v


def _widened(v):
    """An AD number over float16/float32 as float64 (an exact product with a float64 1)."""
    b = concrete(strip(v))          # (a traced number's own type: dvlad.compile)
    if isinstance(v, ADNumber) and isinstance(b, (np.ndarray, np.generic)) and \
            b.dtype.kind == "f" and b.dtype.itemsize < 8:
        return v * np.ones((), np.float64)
    return v


def _plain(**bad):
    for k, v in bad.items():
        if v is not None and v is not np._NoValue:
            raise NotDifferentiableError(f"dvlad does not differentiate with {k}={v!r}")


def _reduction(fn):
    def handler(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
                where=np._NoValue):
        _plain(out=out)
        plain = (initial is np._NoValue or initial is None) and (where is np._NoValue or
                                                                 where is True)
        return _as_dtype(fn(a, axis, bool(keepdims)) if plain else statistics.masked(
            fn, a, axis, bool(keepdims), initial, where), dtype)
    return handler if fn not in (A.amax, A.amin) else lambda a, axis=None, out=None, \
        keepdims=False, initial=np._NoValue, where=np._NoValue: handler(a, axis, None, out,
                                                                        keepdims, initial, where)


def _as_dtype(r, dtype):
    """A reduction's result in the ``dtype=`` asked for: object (np.asarray(x).dtype, so
    ``np.sum(..., dtype=x.dtype)`` as scipy writes it) and the result's own dtype change nothing,
    a wider float widens; anything else would change the value and raises."""
    if dtype is None or np.dtype(dtype) == object:
        return r
    have, want = np.asarray(strip(r)).dtype, np.dtype(dtype)
    if want == have:
        return r
    if want.kind == "f" and np.can_cast(have, want, "safe"):
        return r * np.ones((), want)
    raise NotDifferentiableError(f"dvlad does not differentiate with dtype={want} (the value is "
                                 f"{have}): leave dtype= out, or give a wider float")


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    _plain(copy=copy)
    if order == "F":            # column by column: the reversed axes' rows, reversed back
        shp = np.empty(A.shape(a), bool).reshape(shape if shape is not None else newshape,
                                                 order="F").shape
        return A.transpose(A.reshape(A.transpose(a), shp[::-1]))
    if order != "C":
        raise NotDifferentiableError(f"reshape: dvlad supports order 'C' and 'F'; got {order!r}")
    return A.reshape(a, shape if shape is not None else newshape)


def _where(condition, x=None, y=None):
    return np.where(strip(condition)) if x is None and y is None else A.where(
        strip(condition), x, y)


def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
          max=np._NoValue, **kw):
    _plain(out=out, **kw)
    lo = a_min if a_min is not np._NoValue else (min if min is not np._NoValue else None)
    hi = a_max if a_max is not np._NoValue else (max if max is not np._NoValue else None)
    return A.clip(a, lo, hi)


def _norm(x, ord=None, axis=None, keepdims=False):
    two_d = (len(A.shape(x)) > 1 and axis is None) or (isinstance(axis, tuple) and len(axis) == 2)
    if ord not in (None, 2, "fro") or (ord == 2 and two_d) or (ord == "fro" and not two_d):
        # ord=2 of a matrix is its largest singular value, not the Frobenius norm
        raise _no_rule(f"numpy.linalg.norm with ord={ord!r}")
    return np.sqrt(A.sum(x * x, axis, keepdims))


def _ravel(a, order="C"):
    """np.ravel: order 'C' row by row, 'F' column by column (the transpose's rows); 'A' and 'K'
    follow the array's memory layout, as numpy's do."""
    if order in ("A", "K"):
        base = strip(a)
        order = "F" if base.ndim > 1 and base.flags.f_contiguous and not \
            base.flags.c_contiguous else "C"
    if order == "F":
        return A.reshape(A.transpose(a), (-1,))
    if order != "C":
        raise NotDifferentiableError(f"numpy.ravel: order must be 'C', 'F', 'A' or 'K'; got "
                                     f"{order!r}")
    return A.reshape(a, (-1,))


FUNCTIONS = {
    np.sum: _reduction(A.sum), np.mean: _reduction(A.mean), np.prod: _reduction(A.prod),
    np.max: _reduction(A.amax), np.amax: _reduction(A.amax), np.min: _reduction(A.amin),
    np.amin: _reduction(A.amin),
    np.dot: lambda a, b, out=None: (_plain(out=out), LA.dot(_operand(a), _operand(b)))[1],
    np.inner: LA.inner, np.outer: lambda a, b, out=None: (_plain(out=out), LA.outer(a, b))[1],
    np.tensordot: LA.tensordot,
    # (optimize= changes the order of the work, not the value)
    np.einsum: lambda *ops, out=None, optimize=False, **kw: (_plain(out=out, **kw),
                                                             LA.einsum(*ops))[1],
    np.trace: lambda a, offset=0, axis1=0, axis2=1, dtype=None, out=None: (
        _plain(dtype=dtype, out=out), LA.trace(a, offset, axis1, axis2))[1],
    np.linalg.solve: LA.solve, np.linalg.inv: LA.inv, np.linalg.det: LA.det,
    np.linalg.slogdet: LA.slogdet, np.linalg.norm: _norm,
    np.reshape: _reshape, np.transpose: A.transpose, np.swapaxes: A.swapaxes,
    np.squeeze: A.squeeze, np.expand_dims: A.expand_dims, np.ravel: _ravel,
    np.concatenate: lambda arrays, axis=0, out=None, **kw: (_plain(out=out, **kw),
                                                             A.concatenate(arrays, axis))[1],
    np.stack: lambda arrays, axis=0, out=None, **kw: (_plain(out=out, **kw),
                                                       A.stack(arrays, axis))[1],
    np.broadcast_to: lambda array, shape, subok=False: A.broadcast_to(array, tuple(
        np.atleast_1d(shape)) if not isinstance(shape, tuple) else shape),
    np.where: _where, np.clip: _clip, np.diff: statistics.diff,
    np.shape: A.shape, np.ndim: lambda a: len(A.shape(a)),
    np.size: lambda a, axis=None: np.size(strip(a), axis),
    # a real number's real part is itself, its imaginary part a plain 0 (numpy's np.std,
    # np.var of a list of AD numbers take x.conjugate() and x.real)
    np.real: lambda val: val, np.imag: lambda val: np.zeros_like(strip(val)),
    np.zeros_like: lambda a, *args, **kw: np.zeros_like(strip(a), *args, **kw),
    np.ones_like: lambda a, *args, **kw: np.ones_like(strip(a), *args, **kw),
    np.isclose: lambda a, b, *args, **kw: np.isclose(strip(a), strip(b), *args, **kw),
    np.allclose: lambda a, b, *args, **kw: np.allclose(strip(a), strip(b), *args, **kw),
    np.array_equal: lambda a, b, *args, **kw: np.array_equal(strip(a), strip(b), *args, **kw),
}
# Integer-valued functions (indices, counts, orderings) and tests: they answer for the primals,
# and their results carry no derivative (the values they pick out do, through indexing).
FUNCTIONS.update({f: (lambda f: lambda *args, **kw: f(*(strip(a) for a in args),
                                                      **{k: strip(v) for k, v in kw.items()}))(f)
                  for f in (np.argmax, np.argmin, np.argsort, np.argpartition, np.searchsorted,
                            np.digitize, np.nonzero, np.flatnonzero, np.argwhere, np.count_nonzero,
                            np.any, np.all, np.iscomplexobj, np.isrealobj, np.isreal,
                            np.iscomplex, np.isposinf, np.isneginf, np.result_type, np.can_cast,
                            np.min_scalar_type, np.common_type, np.linalg.matrix_rank)})
# statistics, cumulative sums, and functions that move, pick or assemble elements
FUNCTIONS.update(composite.FUNCTIONS)
FUNCTIONS.update(statistics.FUNCTIONS)
FUNCTIONS.update(padding.FUNCTIONS)       # np.pad, every mode but 'empty'
FUNCTIONS[np.copyto] = assignment.copyto
FUNCTIONS.update(assignment.FUNCTIONS)  # fill_diagonal, put, putmask, place
FUNCTIONS.update(decompositions.FUNCTIONS)
FUNCTIONS.update(products.FUNCTIONS)
FUNCTIONS.update(shaping.FUNCTIONS)
FUNCTIONS.update(numerics.FUNCTIONS)
FUNCTIONS.update(methods.FUNCTIONS)     # np.round, np.around, np.fix
UFUNCS.update(numerics.UFUNCS)          # heaviside, fmod, modf, ... (dvlad/arrays/ufuncs.py)
# numpy functions that are rows of the rule table without being ufuncs (np.sinc)
FUNCTIONS.update({getattr(np, name): OPS[rule.name] for rule in TABLE for name in rule.functions})


def array_function(self, func, types, args, kwargs):
    handler = FUNCTIONS.get(func)
    if handler is None:
        raise _no_rule(f"{func.__module__}.{func.__name__}")
    if any(type(t) is not type and issubclass(t, np.ndarray) for t in types) or \
            any(type(a) is list or type(a) is tuple or _objects(a) for a in args):
        args = tuple(_objects_repacked(a) for a in args)      # object arrays of numbers
    if any(map(_objects, kwargs.values())):                   # (np.average(x, weights=O))
        kwargs = {k: _objects_repacked(v) for k, v in kwargs.items()}
    out = handler(*args, **kwargs)
    if func in views.VIEWING and args and isinstance(args[0], ADNumber):
        views.noted_all(args[0], out, lambda s: handler(s, *args[1:], **kwargs))
    return out


def _objects(v):
    return isinstance(v, np.ndarray) and v.dtype == object


def _objects_repacked(v):
    if isinstance(v, np.ndarray) and v.dtype == object:
        return objects.repack(v)
    if type(v) is list or type(v) is tuple:
        return type(v)(_objects_repacked(u) for u in v)
    return v


def _iter(self):
    n = len(self)
    return (A.getitem(self, i) for i in range(n))


def _len(self):
    shp = A.shape(self)
    if not shp:
        raise TypeError("len() of a 0-d AD number")
    return shp[0]


def _getitem(self, idx):
    if not A.shape(self):
        parts = idx if isinstance(idx, tuple) else (idx,)
        if all(p is None or p is Ellipsis for p in parts):       # x[None], x[...], x[()]
            return A.reshape(self, (1,) * sum(p is None for p in parts))
        raise IndexError("invalid index to a 0-d AD number")
    return views.noted(self, A.getitem(self, idx), lambda s: A.getitem(s, idx), idx)


def _method(reduction, np_function):
    """ndarray's method of a reduction: axis and keepdims directly, any other argument (dtype,
    out, initial, where) through numpy's function, which honours it or refuses it by name."""
    def method(self, *args, **kwargs):
        if len(args) <= 1 and kwargs.keys() <= {"axis", "keepdims"} \
                and not (args and "axis" in kwargs):
            return reduction(self, args[0] if args else kwargs.get("axis"),
                             kwargs.get("keepdims", False))
        return np_function(self, *args, **kwargs)
    method.__name__ = np_function.__name__
    return method


def _reshape(self, *shape, order="C"):
    shape = shape[0] if len(shape) == 1 else shape
    if order != "C":
        return np.reshape(self, shape, order=order)
    return views.noted(self, A.reshape(self, shape), lambda s: A.reshape(s, shape))


def _dtype(self):
    """An array-valued AD number's dtype is its primal's.  A 0-d one reports object, as an
    element of an object array does: numpy's mean and var of a list of AD numbers (np.mean([a,
    b])) finish with ``result.dtype.type(result / n)``, which must keep the AD number, and
    np.object_(x) is x (np.float64(x) would drop the derivative, and raises)."""
    p = strip(self)
    return dtype_of(p) if np.ndim(p) else np.dtype(object)


def _transpose(self, *axes):
    axes = (axes[0] if len(axes) == 1 else axes) or None
    return views.noted(self, A.transpose(self, axes), lambda s: A.transpose(s, axes))


def _install(cls):
    cls.__array_ufunc__ = array_ufunc
    cls.__array_function__ = array_function
    cls.shape = property(A.shape)
    cls.ndim = property(lambda self: len(A.shape(self)))
    cls.size = property(lambda self: int(np.prod(A.shape(self))))
    cls.dtype = property(_dtype)
    cls.T = property(lambda self: views.noted(self, A.transpose(self), A.transpose))
    cls.__array__ = objects.numpy_array_of
    cls.__setitem__ = assignment.assign
    for method in (assignment.in_place(op, how) for op, how in assignment.IN_PLACE.items()):
        setattr(cls, method.__name__, method)
    cls.__len__ = _len
    cls.__iter__ = _iter
    cls.__getitem__ = _getitem
    cls.__matmul__ = lambda self, other: LA.matmul(self, _operand(other))
    cls.__rmatmul__ = lambda self, other: LA.matmul(_operand(other), self)
    cls.sum = _method(A.sum, np.sum)
    cls.mean = _method(A.mean, np.mean)
    cls.prod = _method(A.prod, np.prod)
    cls.max = _method(A.amax, np.max)
    cls.min = _method(A.amin, np.min)
    cls.reshape = _reshape
    cls.transpose = _transpose
    cls.mT = property(lambda self: views.noted(self, A.swapaxes(self, -1, -2),
                                               lambda s: A.swapaxes(s, -1, -2)))
    cls.swapaxes = lambda self, axis1, axis2: views.noted(
        self, A.swapaxes(self, axis1, axis2), lambda s: A.swapaxes(s, axis1, axis2))
    cls.squeeze = lambda self, axis=None: views.noted(self, A.squeeze(self, axis),
                                                      lambda s: A.squeeze(s, axis))
    cls.ravel = lambda self, order="C": views.noted(self, _ravel(self, order),
                                                    lambda s: _ravel(s, order))
    cls.flatten = lambda self, order="C": _ravel(self, order)          # (a copy in numpy)
    cls.dot = lambda self, other: LA.dot(self, _operand(other))
    cls.clip = lambda self, min=None, max=None, out=None, **kw: _clip(self, _operand(min),
                                                                        _operand(max), out, **kw)
    cls.trace = LA.trace
    methods.install(cls)                             # copy, astype, std, cumsum, ...
    cls.real = property(lambda self: self)           # real numbers: the real part is the number
    cls.imag = property(lambda self: np.zeros_like(strip(self))[()])
    cls.conjugate = cls.conj = lambda self: self
    # numpy applies a ufunc to an object array by calling each element's method of that name
    for rule in TABLE:
        for name in rule.ufuncs:
            if not hasattr(cls, name):
                setattr(cls, name, OPS[rule.name])


# once, on the class every kind of AD number shares (dvlad.core.number)
_install(ADNumber)
