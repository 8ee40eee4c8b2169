"""numpy's arrays of AD numbers: object arrays, ``np.asarray(x)``, and assignment.

numpy never hands ``np.array``/``np.asarray`` to another library, so ``np.array([x[0] * x[1],
x[0]])`` or ``np.asarray(x)`` of an array-valued AD number ``x`` makes an *object* ndarray whose
elements are AD numbers.  numpy computes on such an array element by element (each element's
own ``+``, ``.sin()``), which is right but slow; dvlad turns it back into one array-valued number
wherever it can:

- :func:`pack` makes one array-valued number of many numbers: per tag one bundle, cell or
  tower for the whole array (a vector primitive: the tangent is the array of the elements'
  tangents, the pullback hands each element its entry of the sensitivity), nested layers
  packed level by level;
- :func:`repack` does that to an object array of numbers; the protocol repacks object arrays
  when they meet an AD number's numpy operation (ufunc, numpy function, ``@``);
- ``np.asarray(x)`` and ``np.asanyarray(x)`` (numpy's ``__array__``) give a :class:`Tracked`: the
  object array of x's elements numpy made before (code that walks it element by element keeps
  working), an ndarray subclass that remembers x.  ``np.asanyarray`` keeps the subclass (scipy
  converts its arguments with it), and numpy functions, ufuncs, indexing and the common methods
  on a Tracked compute with x itself, at array speed.  A Tracked is read-only (its elements and
  x must not part ways).
- assignment (``h[idx] = v``, ``h += y``): :mod:`dvlad.arrays.assignment`.
"""
import numpy as np

from . import primitives as A
from . import views
from .elements import pending_elements, unpack, whole
from ..core.lift import lift_many
from ..core.number import ARRAY_OPS, ADNumber, strip, strip_dead
from ..core.tags import AssignmentError, PerturbedConversionError
from ..numbers.tape import MultiLink

__all__ = ["pack", "repack", "unpack", "Tracked", "numpy_array_of", "numbers_in"]


# ---- pack: many numbers -> one array-valued number --------------------------------------------

class _Pack:
    """``pack`` as the kinds' ``lift_many`` see a vector primitive (one output)."""

    __slots__ = ("shape",)
    name = "pack"
    rule = None

    def __init__(self, shape):
        self.shape = shape

    def value(self, points):
        return [pack(points, self.shape)], None

    def jvp(self, points, tangents):
        return [pack(tangents, self.shape)]

    def pullback(self, points, cells, positions):
        return _Unpacked(cells, positions)


class _Unpacked(MultiLink):
    """pack's pullback: the sensitivity s of the packed array gives element k its entry s.flat[k]."""

    __slots__ = ("cells", "positions")

    def __init__(self, cells, positions):
        self.cells, self.positions = cells, positions

    def pull(self, s):
        if isinstance(s, ADNumber):
            flat = A.reshape(s, (-1,))
            return [(c, A.getitem(flat, k)) for c, k in zip(self.cells, self.positions)]
        flat = np.ravel(s)
        return [(c, flat[k]) for c, k in zip(self.cells, self.positions)]

    def inputs(self):
        return self.cells


def pack(elements, shape):
    """The numbers ``elements`` (C order) as one array of ``shape``: an AD number if any of them
    carries a live perturbation, else a plain ndarray.

    >>> import numpy as np, dvlad
    >>> dvlad.gradient_r(lambda x: np.sum(pack([x[0] * x[1], x[0]], (2,)) ** 2))(np.array([1., 2.]))
    array([10.,  4.])
    """
    elements = [strip_dead(e) for e in elements]
    try:
        out = lift_many(_Pack(tuple(shape)), elements)
    except TypeError:           # a kind without vector primitives (Taylor towers): stack them
        out = None
        if not any(isinstance(e, ADNumber) for e in elements):
            raise
        return A.reshape(A.stack(elements), tuple(shape))
    if out is None:
        return np.array(elements).reshape(shape)
    return out[0]


def numbers_in(a):
    """True if the object array ``a`` holds only numbers (plain real or AD) and at least one AD."""
    found = False
    for e in a.flat:
        if isinstance(e, ADNumber):
            found = True
        elif not isinstance(e, (int, float, np.integer, np.floating, np.bool_)):
            return False
    return found


def repack(a):
    """An object ndarray of numbers as one array-valued number (a Tracked: the number it
    remembers); anything else unchanged."""
    if isinstance(a, Tracked):
        if a.number is None:
            a.number = _packed(a)
        return a.number
    if type(a) is np.ndarray and a.dtype == object:
        if numbers_in(a):
            return _packed(a)
        if a.size and all(type(e) in _PLAIN for e in a.flat):   # plain numbers: numpy's array
            return np.array(a.tolist())
    return a


def _packed(a):
    x = whole(a)            # np.asarray(x)'s elements, none read yet: x itself, at no cost
    return pack(list(a.flat), a.shape) if x is None else x


_PLAIN = (int, float, bool, np.float64, np.float32, np.int64, np.int32, np.bool_)


# ---- np.asarray(x) ------------------------------------------------------------------------------

class Tracked(np.ndarray):
    """``np.asarray(x)``/``np.asanyarray(x)`` of an AD number x: the object array of x's
    elements, which remembers x (``.number``) and computes with it.  Read-only."""

    def __array_finalize__(self, obj):
        self.number = None      # numpy's views and copies: their elements say what they hold

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if any(isinstance(o, Tracked) for o in kwargs.get("out", ()) or ()):
            raise AssignmentError(_READ_ONLY)
        return getattr(ufunc, method)(*(_unwrapped(i) for i in inputs), **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in _TYPE_QUERIES:       # a Tracked is an object array to numpy's type machinery
            return func(*(a.view(np.ndarray) if isinstance(a, Tracked) else a for a in args),
                        **kwargs)
        return func(*(_unwrapped(a) for a in args), **{k: _unwrapped(v) for k, v in kwargs.items()})

    def __getitem__(self, idx):
        return repack(self)[idx]

    def __setitem__(self, idx, value):
        raise AssignmentError(_READ_ONLY)

    def __iter__(self):
        return iter(repack(self))

    def __repr__(self):
        return f"Tracked({np.asarray(self)!r})" if self.number is None else \
            f"Tracked(of {self.number!r})"

    @property
    def T(self):
        return repack(self).T


def _delegate(name):
    def method(self, *args, **kwargs):
        return getattr(repack(self), name)(*args, **kwargs)
    method.__name__ = name
    return method


for _name in ("reshape", "ravel", "flatten", "transpose", "squeeze", "swapaxes", "dot", "sum",
              "mean", "prod", "max", "min", "clip", "trace", "conjugate", "conj"):
    setattr(Tracked, _name, _delegate(_name))

# scipy asks np.result_type before np.asanyarray(x, dtype=...): object keeps the Tracked
_TYPE_QUERIES = {np.result_type, np.can_cast, np.min_scalar_type, np.common_type}

_READ_ONLY = ("np.asarray(x) of a dvlad number is read-only: writing into it would part it from x "
              "and lose its derivative. Compute a new array instead (np.where(mask, v, a), "
              "np.concatenate, np.stack), or assign into x itself (x[i] = v updates x).")


def _unwrapped(v):
    if isinstance(v, np.ndarray):
        return repack(v)
    if type(v) is list or type(v) is tuple:
        return type(v)(_unwrapped(u) for u in v)
    return v


def numpy_array_of(x, dtype=None, copy=None):
    """``x.__array__``: what numpy makes of the AD number x (np.asarray, np.array([...]))."""
    if dtype is not None and np.dtype(dtype) != object:
        if isinstance(strip_dead(x), ADNumber):
            raise PerturbedConversionError(
                f"numpy converted a number carrying perturbation {strip_dead(x).tag!r} (made by "
                f"{strip_dead(x).tag.made_by}, still running) to a "
                f"{np.dtype(dtype)} array (np.asarray(x, dtype=...), or an assignment r[i] = x "
                f"into a float array), which would drop its derivative. Build arrays of dvlad "
                f"numbers with np.array([...]), np.stack or np.concatenate, assign into an array "
                f"that is a dvlad number (h[i] = x), or use dvlad.primal(x) to drop the "
                f"derivative on purpose. (scipy.integrate.odeint converts what it is given so: "
                f"use dvlad.odeint, its differentiable drop-in.)")
        return np.asarray(strip(x), dtype=dtype)
    shp = A.shape(x)
    elements = pending_elements(x, shp) or unpack(x)       # (pending: see dvlad.arrays.elements)
    buf = np.fromiter(elements, dtype=object, count=len(elements))
    if copy:                # asked for a copy, to write into: the elements alone, writeable
        return buf.reshape(shp)
    t = buf.reshape(shp).view(Tracked)
    t.number = x
    t.flags.writeable = False
    views.noted_array(x, buf)   # (np.asarray keeps a plain view of buf, not t)
    return t


ARRAY_OPS.update(repack=repack)
