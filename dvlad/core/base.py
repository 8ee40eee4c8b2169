"""Base numbers: which math library computes each primitive for each kind of plain number.

Base numbers are the numbers that carry no perturbation: ``int``, ``float``, numpy scalars and
arrays (real dtypes) and mpmath ``mpf``.  Each primitive has one base function per
family (``math`` for int/float, ``numpy`` for numpy scalars, ``mpmath`` for mpf); the dispatching
function picks the family of its arguments, so an mpf in gives an mpf out and a float32 stays a
float32.  Only this module calls math, numpy or mpmath.

Conventions (the same for every family; notes/conventions.md explains each):
- log(0) = -inf and log1p(-1) = -inf (math would raise; numpy and mpmath agree on -inf).
- Outside the real domain (log or sqrt of a negative, asin(2), a negative base to a non-integer
  power) int, float and mpf raise ``ValueError`` as ``math`` does (mpmath would go complex); numpy
  scalars follow numpy (nan, with numpy's warning).
"""
import math
import numbers
import operator

import mpmath
import numpy as np

MPF = type(mpmath.mpf(1))
INF = math.inf
NAN = math.nan

MATH, NUMPY, MPMATH = "math", "numpy", "mpmath"


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
    return None


def promote(x, y, innermost):
    """Constants x, y lifted to mpf when the other operand is mpf-based, else unchanged.

    mpmath would promote a float at the operation anyway; doing it first keeps the *partials*
    (log 2 in d/dy 2**y, say) at mpf precision.  ``innermost`` strips AD layers.
    """
    fx, fy = family(innermost(x)), family(innermost(y))
    if fx is fy:
        return x, y
    if fy is MPMATH and fx is MATH and family(x) is MATH:
        return mpmath.mpf(x), y
    if fx is MPMATH and fy is MATH and family(y) is MATH:
        return x, mpmath.mpf(y)
    return x, y


# ---- the float (math) family, with dvlad's conventions ------------------------------------

def _log(x):
    return -INF if x == 0 else math.log(x)


def _log1p(x):
    return -INF if x == -1 else math.log1p(x)


def _pow(x, y):
    r = x ** y
    if type(r) is complex:   # Python goes complex for a negative base and a fractional power
        raise ValueError(f"math domain error: {x!r} ** {y!r} is not real")
    return r


def _sign(x):
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0 * x)


# ---- the mpmath family: stay real, raise where math raises ----------------------------------

def _mp_real(f, name):
    def g(x):
        r = f(x)
        if type(r) is not MPF:
            raise ValueError(f"math domain error: {name}({x!r}) is not real")
        return r
    g.__name__ = name
    return g


def _mp_pow(x, y):
    r = mpmath.mpf(x) ** y if type(x) is not MPF else x ** y
    if type(r) is not MPF:
        raise ValueError(f"math domain error: {x!r} ** {y!r} is not real")
    return r


def _max(x, y):
    return x if x >= y or x != x else y       # nan propagates, as in numpy


def _min(x, y):
    return x if x <= y or x != x else y


# The named base functions the rule table's expressions call (arithmetic operators are written
# inline there): name -> (math, numpy, mpmath).
_TABLE = {
    "pow":      (_pow, operator.pow, _mp_pow),      # ndarray ** 2 takes numpy's fast square
    "floordiv": (operator.floordiv, operator.floordiv, lambda x, y: mpmath.floor(mpmath.mpf(x) / y)),
    "atan2":    (math.atan2, np.arctan2, mpmath.atan2),
    "maximum":  (_max, np.maximum, _max),
    "minimum":  (_min, np.minimum, _min),
    "hypot":    (math.hypot, np.hypot, mpmath.hypot),
    "abs":      (abs, np.abs, abs),
    "sqrt":     (math.sqrt, np.sqrt, _mp_real(mpmath.sqrt, "sqrt")),
    "exp":      (math.exp, np.exp, mpmath.exp),
    "expm1":    (math.expm1, np.expm1, mpmath.expm1),
    "log":      (_log, np.log, _mp_real(mpmath.log, "log")),
    "log1p":    (_log1p, np.log1p, _mp_real(mpmath.log1p, "log1p")),
    "sin":      (math.sin, np.sin, mpmath.sin),
    "cos":      (math.cos, np.cos, mpmath.cos),
    "tan":      (math.tan, np.tan, mpmath.tan),
    "asin":     (math.asin, np.arcsin, _mp_real(mpmath.asin, "asin")),
    "acos":     (math.acos, np.arccos, _mp_real(mpmath.acos, "acos")),
    "atan":     (math.atan, np.arctan, mpmath.atan),
    "sinh":     (math.sinh, np.sinh, mpmath.sinh),
    "cosh":     (math.cosh, np.cosh, mpmath.cosh),
    "tanh":     (math.tanh, np.tanh, mpmath.tanh),
    "sign":     (_sign, np.sign, mpmath.sign),
    "floor":    (math.floor, np.floor, mpmath.floor),
    "ceil":     (math.ceil, np.ceil, mpmath.ceil),
    "trunc":    (math.trunc, np.trunc, lambda x: mpmath.mpf(int(x))),
    "round":    (round, np.round, lambda x: mpmath.mpf(round(x))),
    "int":      (int, int, int),
}

ARITY = {name: (2 if name in ("pow", "floordiv", "atan2", "hypot", "maximum", "minimum") else 1)
         for name in _TABLE}


def _dispatch1(name):
    f_math, f_np, f_mp = _TABLE[name]

    def base(x):
        fam = family(x)
        if fam is MATH:
            return f_math(x)
        if fam is MPMATH:
            return f_mp(x)
        if fam is NUMPY:
            return f_np(x)
        raise TypeError(f"dvlad.{name} takes a real number, got {type(x).__name__}: {x!r}")
    base.__name__ = name
    return base


def _dispatch2(name):
    f_math, f_np, f_mp = _TABLE[name]

    def base(x, y):
        fx, fy = family(x), family(y)
        if fx is None or fy is None:
            bad = x if fx is None else y
            raise TypeError(f"dvlad.{name} takes real numbers, got {type(bad).__name__}: {bad!r}")
        if fx is MPMATH or fy is MPMATH:
            return f_mp(x, y)
        if fx is NUMPY or fy is NUMPY:
            return f_np(x, y)
        return f_math(x, y)
    base.__name__ = name
    return base


#: name -> base function dispatching on the family of its arguments
BASE = {name: (_dispatch2(name) if ARITY[name] == 2 else _dispatch1(name)) for name in _TABLE}
#: name -> the math-family function, for the all-float fast path
FLOAT = {name: fs[0] for name, fs in _TABLE.items()}


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
    return float(c)
