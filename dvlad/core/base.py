"""Base numbers: which math library computes each primitive for each kind of plain number.

Base numbers are the numbers that carry no perturbation: ``int``, ``float``, numpy scalars and
arrays (real dtypes) and mpmath ``mpf``.  Each primitive has one base function per
family (``math`` for int/float, ``numpy`` for numpy scalars, ``mpmath`` for mpf), stated in its
row of :mod:`dvlad.core.rules`; :func:`dispatch` picks the family of its arguments, so an mpf in
gives an mpf out and a float32 stays a float32.

Conventions (the same for every family; notes/conventions.md explains each):
- log(0) = -inf and log1p(-1) = -inf (math would raise; numpy and mpmath agree on -inf).
- Outside the real domain (log or sqrt of a negative, asin(2), a negative base to a non-integer
  power) int, float and mpf raise ``ValueError`` as ``math`` does (mpmath would go complex); numpy
  scalars follow numpy (nan, with numpy's warning).
"""
import math
import numbers

import mpmath
import numpy as np

MPF = type(mpmath.mpf(1))
MPC = type(mpmath.mpc(1))
INF = math.inf
NAN = math.nan

MATH, NUMPY, MPMATH = "math", "numpy", "mpmath"
# A fourth family: numbers that record what is done to them (dvlad.compiler's traced values).
# Such a type names the family in ``_dvlad_family`` and computes a row with ``_dvlad_apply``.
TRACED = "traced"


def family(x):
    """Which library computes on base number ``x``: MATH, NUMPY or MPMATH (None: not a real).

    Complex numpy values are not real; object arrays are containers, not base numbers.
    """
    t = type(x)
    if t is float or t is int:
        return MATH
    if t is MPF:
        return MPMATH
    if isinstance(x, (np.generic, np.ndarray)):
        return NUMPY if x.dtype.kind in "fiub" else None
    if isinstance(x, numbers.Real):
        return MATH
    return getattr(t, "_dvlad_family", None)


def promote(x, y, innermost):
    """Constants x, y lifted to mpf when the other operand is mpf-based, else unchanged.

    mpmath would promote a float at the operation anyway; doing it first keeps the *partials*
    (log 2 in d/dy 2**y, say) at mpf precision.  ``innermost`` strips AD layers.
    """
    fx, fy = family(concrete(innermost(x))), family(concrete(innermost(y)))
    if fx is fy:
        return x, y
    if fy is MPMATH and fx is MATH and family(x) is MATH:
        return mpmath.mpf(x), y
    if fx is MPMATH and fy is MATH and family(y) is MATH:
        return x, mpmath.mpf(y)
    return x, y


def real_only(f, what):
    """An mpmath function that raises ValueError where it would go complex (as math does)."""
    def g(x):
        r = f(x)
        if type(r) is not MPF:
            raise ValueError(f"math domain error: {what}({x!r}) is not real")
        return r
    g.__name__ = what
    return g


def _never_complex(f, name):
    """mpmath's f, with math's ValueError where mpmath would go complex (log1p(−2) is an mpc;
    math raises 'math domain error'): every row's mpf family, whatever its function."""
    def g(*args):
        r = f(*args)
        if type(r) is MPC:
            raise ValueError(f"math domain error: {name}{tuple(args)!r} is not real")
        return r
    g.__name__ = name
    return g


def dispatch(name, arity, f_math, f_np, f_mp):
    """The base function of a row of the rule table: picks the family of its arguments (mpf
    first, then numpy, then math), so that an mpf in gives an mpf out (never an mpc: outside a
    real domain, math's ValueError) and a float32 stays a float32.  A value that is not a real
    number is a TypeError naming the primitive."""
    f_mp = _never_complex(f_mp, name)
    fams = {MATH: f_math, NUMPY: f_np, MPMATH: f_mp}
    if arity == 1:
        def base(x):
            fam = family(x)
            if fam is MATH:
                return f_math(x)
            if fam is MPMATH:
                return f_mp(x)
            if fam is NUMPY:
                return f_np(x)
            if fam is TRACED:
                return x._dvlad_apply(name, fams, (x,))
            raise TypeError(f"dvlad.{name} takes a real number, got {type(x).__name__}: {x!r}")
    elif arity == 2:
        def base(x, y):
            fx, fy = family(x), family(y)
            if fx is MATH and fy is MATH:
                return f_math(x, y)
            if fx is TRACED or fy is TRACED:
                return (x if fx is TRACED else y)._dvlad_apply(name, fams, (x, y))
            if fx is None or fy is None:
                bad = x if fx is None else y
                raise TypeError(f"dvlad.{name} takes real numbers, got {type(bad).__name__}: "
                                f"{bad!r}")
            if fx is MPMATH or fy is MPMATH:
                return f_mp(x, y)
            if fx is NUMPY or fy is NUMPY:
                return f_np(x, y)
            return f_math(x, y)
    else:
        def base(*args):
            families = [family(a) for a in args]
            if TRACED in families:
                return args[families.index(TRACED)]._dvlad_apply(name, fams, args)
            if None in families:
                bad = args[families.index(None)]
                raise TypeError(f"dvlad.{name} takes real numbers, got {type(bad).__name__}: "
                                f"{bad!r}")
            if MPMATH in families:
                return f_mp(*args)
            return f_np(*args) if NUMPY in families else f_math(*args)
    base.__name__ = base.__qualname__ = name
    return base


def dtype_of(x):
    """numpy's dtype for number or array x, without asking numpy to convert an array (a
    traced one, dvlad.compile's, cannot be)."""
    d = getattr(x, "dtype", None)
    return d if isinstance(d, np.dtype) else np.asarray(concrete(x)).dtype


def all_finite(b):
    """Whether every element of array b is finite (one pass: their sum is).  A traced sum
    (dvlad.compile) is asked through numpy, so the trace keeps the answer, not the sum."""
    total = np.add.reduce(b, axis=None)
    return math.isfinite(total) if type(total) in (float, np.float64, np.float32) \
        else bool(np.isfinite(total))


def as_array(x):
    """np.asarray(x); a traced number (dvlad.compile's) records its conversion itself."""
    make = getattr(type(x), "_dvlad_array", None)
    return np.asarray(x) if make is None else make(x)


def concrete(x):
    """The number a traced value stands for (dvlad.compile's first call), else x: for reading
    a base number's type or precision, never for computing with it."""
    return x.value if getattr(type(x), "_dvlad_family", None) is TRACED else x


def one_like(x):
    """1 in the type of base number x (1.0 for float, mpf(1) for mpf, int 1 for int)."""
    return _constant_like(x, 1)


def zero_like(x):
    """0 in the type of base number x."""
    return _constant_like(x, 0)


def _constant_like(x, c):
    t = type(x)
    if t is float:
        return float(c)
    if t is int or t is bool:
        return c
    if t is MPF:
        return mpmath.mpf(c)
    if isinstance(x, np.generic):
        return x.dtype.type(c)
    if isinstance(x, np.ndarray):
        return np.full_like(x, c)
    if getattr(t, "_dvlad_family", None) is TRACED:
        return _constant_like(x.value, c)       # a constant of the traced number's own type
    return float(c)
