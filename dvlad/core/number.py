"""What bundles, tape cells and Taylor towers share: Python's number protocols, made loud where
they would lie.

The members the three kinds share are installed once, on :class:`ADNumber`, by the modules that
own them: the arithmetic operators (``+``, ``*``, ``**``...) by :mod:`dvlad.numbers.primitives`,
each the primitive of the row that names its method; numpy's protocols and array methods
(``__array_ufunc__``, ``.shape``, ``.T``, ``.sum()``...) by :mod:`dvlad.arrays.protocol`.  Each
kind's own class (bundle, tape cell, tower) holds only what is its own.  This module holds the
rest of the protocol:

- comparisons and ``bool`` look at primals, so ``if``/``while`` work;
- ``int``, ``round``, ``math.floor``/``ceil``/``trunc`` are piecewise constant: they return the
  base number, whose derivative (0) is exact;
- ``float``, ``complex`` and therefore ``math.sin`` etc. raise :class:`PerturbedConversionError`
  on a number with a live perturbation: they would silently drop its derivative;
- AD numbers are unhashable (``set``, ``lru_cache`` would merge two tangents).
"""
import sys

from .tags import PerturbedConversionError, alive


class ADNumber:
    """A number carrying a perturbation: a :class:`Bundle`, a :class:`TapeCell` or a
    :class:`~dvlad.tower.Tower`."""

    __slots__ = ()
    __hash__ = None
    # numpy must hand `np.float64(2.0) * bundle` back to us instead of building an object array.
    __array_ufunc__ = None

    def __bool__(self):
        return bool(strip(self))

    def __eq__(self, other):
        return strip(self) == strip(other)

    def __ne__(self, other):
        return strip(self) != strip(other)

    def __lt__(self, other):
        return strip(self) < strip(other)

    def __le__(self, other):
        return strip(self) <= strip(other)

    def __gt__(self, other):
        return strip(self) > strip(other)

    def __ge__(self, other):
        return strip(self) >= strip(other)

    def __float__(self):
        return float(_constant_or_raise(self, "float()"))

    @property
    def _mpmath_(self):
        """mpmath's conversion hook: mpmath.sin(x) and the like convert their argument with it,
        and a live perturbation is refused there, with a message saying to use dvlad.sin (which
        takes mpf and keeps its precision).  The error is a TypeError, which mpf arithmetic
        (``mpf * x``) catches to try x's reflected operator instead; mpf comparisons probe the
        hook from ``mpf_convert_rhs``, where it is absent, for the same reason."""
        if sys._getframe(1).f_code.co_name == "mpf_convert_rhs":
            raise AttributeError("_mpmath_")
        x = _constant_or_raise(self, "an mpmath function (mpmath.sin, mpmath.exp, ...)")
        return lambda prec, rounding: x

    def __complex__(self):
        return complex(_constant_or_raise(self, "complex()"))

    def __int__(self):
        return int(strip(self))

    def __trunc__(self):
        import math
        return math.trunc(strip(self))

    def __floor__(self):
        import math
        return math.floor(strip(self))

    def __ceil__(self):
        import math
        return math.ceil(strip(self))

    def __round__(self, ndigits=None):
        return round(strip(self), ndigits)

    def __format__(self, spec):
        """f"{x:.3f}" formats the primal, as for a float (a display, not a conversion)."""
        return format(strip(self), spec)

    # AD numbers are values that never change: a copy is the number itself, same tag, and its
    # derivative flows (a copy with a fresh identity would leave the tape: gradient 0).
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol):
        """Pickling keeps a value, not a perturbation: a live one raises (its tape and tag
        cannot travel), a dead one is its primal (a constant, as everywhere)."""
        v = strip_dead(self)
        if isinstance(v, ADNumber):
            raise PerturbedConversionError(
                f"pickling a number carrying perturbation {v.tag!r} (made by "
                f"{v.tag.made_by}, still running) would lose its derivative: its tape and tag "
                f"do not travel. Pickle the inputs and differentiate where they arrive, or pickle "
                f"dvlad.primal(x) on purpose.")
        return _the_value, (v,)


def _the_value(v):
    """What an unpickled AD number whose perturbation had died is: its primal."""
    return v


#: dvlad's array primitives that the layers below dvlad.arrays need (broadcast_to, sum_to, where,
#: getitem, scatter): filled in when dvlad.arrays is imported, so that no module imports upward.
ARRAY_OPS = {}


def strip(x):
    """x with every perturbation removed: its innermost primal (a base number)."""
    while isinstance(x, ADNumber):
        x = x.primal
    return x


def strip_dead(x):
    """x with the layers whose derivative call has returned removed (they are constants now)."""
    while isinstance(x, ADNumber) and not x.tag.live and not alive(x.tag):
        x = x.primal
    return x


def _constant_or_raise(x, what):
    x = strip_dead(x)
    if isinstance(x, ADNumber):
        raise PerturbedConversionError(
            f"{what} of a number carrying perturbation {x.tag!r} would silently drop its "
            f"derivative. {x.tag!r} was made by {x.tag.made_by}, which is still running and "
            f"needs this number's derivative. Use dvlad.sin, dvlad.exp, ... instead of math.* "
            f"or mpmath.* (they take floats, numpy numbers and mpf, and keep mpf's precision), "
            f"or dvlad.primal(x) to strip the perturbation on purpose. (numpy calls float() "
            f"when a dvlad number is stored into a float array, r[i] = x: build arrays of dvlad "
            f"numbers with np.array([...]) or np.stack instead.)")
    return x


def newest_tag(values):
    """The newest live perturbation among values (dead layers stripped), or None."""
    from .tags import newer
    tag = None
    for v in values:
        v = strip_dead(v)
        if isinstance(v, ADNumber):
            tag = newer(tag, v.tag)
    return tag
