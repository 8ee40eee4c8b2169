"""ndarray's methods on array-valued AD numbers: ``x.copy()``, ``x.astype(float)``,
``x.std(ddof=1)``, ``x.cumsum()``, ``x.item()``, ``x.tolist()``, ``x.fill(v)``, ``x.sort()``: each
numpy's function of the array, or an assignment (:func:`dvlad.arrays.assignment.assign`) where
numpy's method writes in place; and numpy's rounding functions that are not ufuncs (np.round with
its decimals, np.around, np.fix)."""
import numpy as np

from . import assignment
from . import primitives as A
from ..core.base import dtype_of
from ..core.number import strip
from ..core.tags import NotDifferentiableError


# ndarray's methods that are numpy's functions of the array (x.std(ddof=1) is np.std(x, ddof=1))
_NUMPY_METHODS = (np.std, np.var, np.cumsum, np.cumprod, np.argmax, np.argmin, np.argsort,
                  np.round, np.repeat, np.take, np.diagonal, np.any, np.all, np.nonzero, np.ptp,
                  np.searchsorted, np.choose, np.argpartition)


def _numpy_method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = f"np.{fn.__name__}(x, ...), as ndarray's method."
    return method


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """x.astype(dtype): the same dtype a copy, a wider float an exact product with 1; an
    integer or bool dtype the primal's values (integer-valued: no derivative); a narrower float
    raises (cast the input instead)."""
    want, have = np.dtype(dtype), dtype_of(strip(self))     # (a 0-d number's: its primal's)
    if want == have or want == object:
        return np.copy(self) if copy else self
    if want.kind in "biu":
        return np.asarray(strip(self)).astype(want)[()]
    if want.kind != "f":
        raise NotDifferentiableError(f"x.astype({want}): dvlad differentiates real floats")
    if np.result_type(have, want) == want:
        return self * np.ones((), want)
    raise NotDifferentiableError(
        f"x.astype({want}) narrows the {have} a derivative is taken in: compute in {want} from "
        f"the start (cast the input before differentiating)")


def _item(self, *args):
    """x.item(): the one element as a 0-d dvlad number (a Python float would drop the
    derivative); x.item(i) the i-th element in C order."""
    flat = A.reshape(self, (-1,))
    if len(args) == 1 and isinstance(args[0], tuple):          # x.item((i, j))
        args = args[0]
    if not args:
        if A.shape(flat)[0] != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return A.getitem(flat, 0)
    idx = args[0] if len(args) == 1 else np.ravel_multi_index(args, A.shape(self))
    return A.getitem(flat, idx)


def _tolist(x):
    """x.tolist(): nested lists of x's elements as 0-d dvlad numbers."""
    shp = A.shape(x)
    if not shp:
        return x
    return [_tolist(A.getitem(x, i)) for i in range(shp[0])]


def _dtype(x):
    p = strip(x)
    return dtype_of(p) if np.ndim(p) else np.dtype(object)


def _round(a, decimals=0, out=None):
    """np.round(a, decimals) as numpy computes it for floats: rint(a·10ᵈ)/10ᵈ (a/10⁻ᵈ, then ·10⁻ᵈ
    for d < 0); piecewise constant, its derivative 0."""
    if out is not None:
        raise NotDifferentiableError("np.round with out=: dvlad differentiates the plain call")
    if decimals == 0:
        return np.rint(a)
    if decimals > 0:
        s = 10.0 ** decimals
        return np.rint(a * s) / s
    s = 10.0 ** -decimals
    return np.rint(a / s) * s


# numpy's rounding functions that are not ufuncs (np.round takes decimals)
FUNCTIONS = {np.round: _round, np.around: _round, np.fix: lambda a, out=None: np.trunc(a)}


def install(cls):
    """The methods on ``cls`` (dvlad.core.number.ADNumber), where it has none of that name."""
    for fn in _NUMPY_METHODS:                        # x.std(), x.cumsum(), x.argmax(), ...
        if not hasattr(cls, fn.__name__):
            setattr(cls, fn.__name__, _numpy_method(fn))
    cls.copy = lambda self, order="K": np.copy(self)
    cls.astype = _astype
    cls.item = _item
    cls.tolist = lambda self: _tolist(self)
    cls.fill = lambda self, value: assignment.assign(self, Ellipsis, value)
    cls.sort = lambda self, axis=-1, **kw: assignment.assign(self, Ellipsis,
                                                          np.sort(self, axis, **kw))
    cls.partition = lambda self, kth, axis=-1, **kw: assignment.assign(
        self, Ellipsis, np.partition(self, kth, axis, **kw))
    cls.compress = lambda self, condition, axis=None: np.compress(condition, self, axis)
