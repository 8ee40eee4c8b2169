"""THE rule table: the one place a primitive is named.  Each row states, once:

- its name (``dvlad.<name>``) and arity (1, 2, 3 or 4: ``betainc(a, b, x)``,
  ``hyp2f1(a, b, c, x)``, whose lift takes the general path alone, :mod:`dvlad.numbers.ternary`);
- ``base``: its value as Python expression text in the arguments' primals ``x`` (and ``y``,
  ``z``, ``w``), as in DiffRules.jl;
- ``partials``: one expression per argument, in ``x``, ``y``, ``z``, ``w`` and the result ``r``,
  evaluated with dvlad's own overloaded functions, so that a partial can itself be
  differentiated at the next (older) tag: this is what makes forward-over-reverse and friends
  work;
- ``lib``: the base function the text calls by the row's own name, per family of base number
  (math for int/float, numpy, mpmath), looked up by that name where the libraries agree
  (``SAME``) and stated where they differ or where dvlad's conventions need a wrapper;
- ``ufuncs``: the numpy ufuncs it answers to (``np.sin(bundle)`` calls it; an object array of AD
  numbers calls the method of that name); ``dunders``: the Python operator methods it is
  (``__add__``; a binary row gives the reflected ``__radd__`` too); ``special``: scipy.special's
  ufuncs, with ``output=k`` for output k of a ufunc of several (fresnel's S and C are a row each:
  :data:`OUTPUTS`, and ``dvlad.fresnel`` returns the tuple);
- ``taylor``: its Taylor-series recurrence (:mod:`dvlad.core.recurrences`), with ``divides`` if that
  recurrence divides where the derivation from the partials does not; None = derived from the
  partials; ``kernel``: generated float code for the hot recurrences (:mod:`dvlad.core.kernels`);
  ``zero``: its value at a structural zero of a series (products, sums);
- ``points``: where the tests check it (against mpmath at 50 digits), inside its domain.

Everything else is derived from the rows: the public functions and the operators
(:mod:`dvlad.numbers.primitives`), the base-number dispatch (:func:`dvlad.core.base.dispatch`),
numpy's protocol map (:mod:`dvlad.arrays.protocol`), the array form of the partials
(:mod:`dvlad.core.vectorize`), the Taylor towers (:mod:`dvlad.numbers.tower`) and every fast path.
Forward mode multiplies each partial by its argument's tangent; reverse mode stores it on the
tape.  Piecewise-constant rows have no partials: their derivative, 0, is exact at every order, so
they return a base number.

Conventions at kinks and domain edges (identical in both modes and every base type; pinned by
tests/test_conventions.py; notes/conventions.md gives the reasons):

    sqrt'(0) = +inf           abs'(0) = sign(0) = 0          0**0 = 1, d/dx x**0 = 0
    d/dx x**c at x = 0: 0 for c > 1 or c = 0, 1 for c = 1, +inf for 0 < c < 1
    d/dy x**y: r·log x for x > 0, 0 at x = 0, nan for x < 0 (no real derivative)
    log(0) = -inf, log'(0) = +inf (likewise log1p at -1, log2 and log10 at 0)
    asin'(±1) = +inf, acos'(±1) = -inf, arccosh'(1) = +inf
    arctanh(±1) = ±inf, arctanh'(±1) = +inf
    atan2 and hypot at (0, 0): value 0, partials (0, 0)
    maximum, minimum at a tie x == y: partials (1/2, 1/2)
"""
import math
import operator

import mpmath
import numpy as np

from . import kernels as K
from . import recurrences as S
from .base import INF, MPF, concrete, real_only
from .number import ADNumber
from . import distributions as D
from . import special as X
from . import special_more as M
from . import special_jax as J
from . import special_poly as P

SAME = "same"     # lib: math.<name>, numpy.<name>, mpmath.<name>
SP = X.lib        # lib of a special row: scipy.special's function (when installed) and mpmath's


class Rule:
    """One row of the table.  The fields after ``points`` are filled in by
    :mod:`dvlad.numbers.primitives`: ``op`` is the public primitive, ``base`` its base function,
    ``float`` its math-family function, ``partials``/``array_partials`` the compiled partials
    (scalar and elementwise-array forms), ``uses`` which of x, y, r each partial reads, and
    ``linear`` whether the row is linear in each argument (its partial reads neither that argument
    nor r, and is not a literal: mul in x and y, div in x)."""

    __slots__ = ("name", "arity", "base_text", "partial_texts", "lib", "ufuncs", "dunders", "taylor",
                 "divides", "kernel", "zero", "points", "special", "orders", "shapes", "fixed",
                 "functions", "output", "op", "base", "float", "partials", "array_partials",
                 "uses", "linear")

    def __init__(self, name, base, partials=(), *, arity=None, lib=None, ufuncs=(), dunders=(),
                 taylor=None, divides=False, kernel=None, zero=None, points=(), special=(),
                 orders=(), shapes=(), functions=(), output=None):
        self.name, self.base_text, self.partial_texts = name, base, tuple(partials)
        self.arity = arity if arity is not None else len(self.partial_texts)
        if lib is SAME:
            lib = (getattr(math, name), getattr(np, name), getattr(mpmath, name))
        # special: the scipy.special ufuncs it answers to (when scipy is installed); functions:
        # the numpy functions that are not ufuncs (np.sinc); orders: the arguments that are an
        # integer order (polygamma's n), never differentiated; shapes: the shape arguments of a
        # distribution function whose derivative has no closed form (gammainc's a), never
        # differentiated either; fixed: both (a test's point passes them as plain numbers)
        self.special, self.orders, self.functions = tuple(special), tuple(orders), tuple(functions)
        self.shapes, self.output = tuple(shapes), output
        self.fixed = tuple(sorted(self.orders + self.shapes))
        self.lib, self.ufuncs, self.dunders = lib, tuple(ufuncs), tuple(dunders)
        self.taylor, self.divides = taylor, divides
        self.kernel, self.zero, self.points = kernel, zero, tuple(points)
        if kernel is not None:
            kernel.label = name
        self.op = self.base = self.float = self.partials = self.array_partials = self.uses = None
        self.linear = (False,) * self.arity

    def __repr__(self):
        parts = ", ".join(self.partial_texts)
        return f"Rule({self.name}: {self.base_text}; partials {parts or 'none (piecewise constant)'})"


def op(name):
    """Row ``name``'s primitive, looked up when called (the rows refer to each other)."""
    return lambda *args: RULES[name].op(*args)


def fl(name):
    """A thunk giving row ``name``'s float function (for the kernels)."""
    return lambda: RULES[name].float


# ---- base functions where the libraries differ from each other or from dvlad's conventions ---

def _log_math(f):
    """math's logarithm f with log(0) = -inf (math would raise; numpy and mpmath give -inf)."""
    return lambda x: -INF if x == 0 else f(x)


def _log1p_math(x):
    return -INF if x == -1 else math.log1p(x)


def _pow_math(x, y):
    r = x ** y
    if type(r) is complex:   # Python goes complex for a negative base and a fractional power
        raise ValueError(f"math domain error: {x!r} ** {y!r} is not real")
    return r


def _pow_mp(x, y):
    r = mpmath.mpf(x) ** y if type(x) is not MPF else x ** y
    if type(r) is not MPF:
        raise ValueError(f"math domain error: {x!r} ** {y!r} is not real")
    return r


def _in_float64(function):
    """A scipy ufunc whose float32 loop is less accurate than its float64 one computed in
    float64 and rounded back: scipy's stdtrit(3, 0.3) in float32 is −0.5843899, two ulps from
    −0.5843897 (the float64 value rounded)."""
    def f(*args):
        kind = np.result_type(*args)
        if kind.kind != "f" or kind.itemsize >= 8:
            return function(*args)
        return function(*(np.asarray(a, dtype=np.float64) for a in args)).astype(kind)
    f.__name__ = function.__name__
    return f


def _sign_math(x):
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0 * x)


def _larger(x, y):
    return x if x >= y or x != x else y       # nan propagates, as in numpy


def _smaller(x, y):
    return x if x <= y or x != x else y


def _rounding(np_function):
    """floor, ceil, trunc, rint of a float as numpy computes them: a float, with −0.0, inf and
    nan kept (math's would give an int, or raise); an int stays an int."""
    def f(x):
        return x if type(x) is int else float(np_function(x))
    f.__name__ = np_function.__name__
    return f


def _sinc_math(x):
    """numpy's normalized sinc, sin(πx)/(πx), as numpy computes it; 1 at 0."""
    if x == 0:
        return 1.0
    y = math.pi * x
    return math.sin(y) / y


def sinc_slope_series(x):
    """sinc′(x) near 0, where (cos πx − sinc x)/x cancels: π²x·Σₖ₌₁ (−1)ᵏ 2k uᵏ⁻¹/(2k + 1)!,
    u = (πx)², as −(π²x/3)(1 + r₂(1 + r₃(1 + ...))), rₖ = −u/(2(k − 1)(2k + 1)): only exact
    integers divide (an mpf keeps its precision).  Written in arithmetic, so it nests like a
    partial's text; 30 terms: the next is below 1e-80 for |x| < 1/4 (u < 0.62), so derivatives
    of it to order 8 at 50 digits are exact too."""
    b = x
    while isinstance(b, ADNumber):
        b = b.primal
    p = +mpmath.pi if type(concrete(b)) is MPF else math.pi
    u = (p * x) * (p * x)
    s = 1.0
    for k in range(30, 1, -1):
        s = 1.0 - u / (2 * (k - 1) * (2 * k + 1)) * s
    return -(p * p) * x * s / 3


def _mpf_based(x):
    """Whether x's base number (under every AD layer) is an mpf."""
    while isinstance(x, ADNumber):
        x = x.primal
    return type(concrete(x)) is MPF


def spence_slope_series(z):
    """spence′(z) = log z/(1 − z) near z = 1, where it is 0/0 (its limit −1 at z = 1) and its
    derivatives cancel (1/(z(1 − z)) against log z/(1 − z)²): −log1p(u)/u = −Σₖ (−u)ᵏ/(k + 1),
    u = z − 1, in Horner form.  60 terms: for |u| < 1/32 the rest is below 1e-90, and its
    derivatives to order 8 below 1e-60 (an mpf takes prec/5 + 20 if that is more); only exact integers
    divide (an mpf keeps its precision).  Written in arithmetic, so it nests like a partial."""
    one = mpmath.mpf(1) if _mpf_based(z) else 1.0
    u = z - 1.0
    terms = max(60, mpmath.mp.prec // 5 + 20) if _mpf_based(z) else 60   # (|u| < 2⁻⁵)
    s = one / (terms + 1)
    for k in range(terms, 0, -1):
        s = one / k - u * s
    return -s


def _erfcx_tail(x, n):
    """t = (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))) to n terms (√π·erfcx(x) = 1/(x + t))."""
    t = 0.0
    for k in range(n, 0, -1):
        t = (0.5 * k) / (x + t)
    return t


def _mills_tail(t, n):
    """c = 1/(t + 2/(t + 3/(t + ...))) to n terms (the Mills ratio Φ(−t)/φ(t) = 1/(t + c))."""
    c = 0.0
    for k in range(n, 1, -1):
        c = k / (t + c)
    return 1.0 / (t + c)


def _terms(x, tail):
    """How many terms a continued fraction takes at x: 40 for floats (exact to 1e-21 where the
    rows use them); for an mpf, doubled from 40 until two counts agree at the working precision
    (on x's base number; the fraction then runs on x itself, so it nests)."""
    if not _mpf_based(x):
        return 40
    while isinstance(x, ADNumber):
        x = x.primal
    n, before = 40, tail(x, 40)
    while n < 1 << 14:
        n, now = 2 * n, tail(x, 2 * n)
        if abs(now - before) <= mpmath.eps * abs(now):
            break
        before = now
    return n


def _root_pi(x):
    return mpmath.sqrt(+mpmath.pi) if _mpf_based(x) else math.sqrt(math.pi)


def erfcx_slope_fraction(x):
    """erfcx′(x) = 2x·erfcx(x) − 2/√π for x ≥ 4, without the formula's cancellation (its terms
    agree to 1/(2x²): in floats it lost 3e-11 of the value at x = 1e3, 2e-6 at 1e5, all of it
    at 1e8; an mpf lost log₁₀(2x²) of its digits).  Laplace's continued fraction √π·erfcx(x) =
    1/(x + t), t = (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))), gives erfcx′(x) = −(2/√π)·t/(x +
    t), a ratio of positive terms.  40 terms for floats: exact to 1e-23 at x = 4 (5e-40 at
    x = 8); an mpf takes as many as its precision needs.  Written in arithmetic, so it nests."""
    t = _erfcx_tail(x, _terms(x, _erfcx_tail))
    return -2.0 / _root_pi(x) * t / (x + t)


def mills_fraction(t):
    """φ(t)/Φ(−t), the slope of log Φ at −t, for t > 5 by Laplace's continued fraction of the Mills
    ratio: t + 1/(t + 2/(t + 3/(t + ...))).  Its tail c = h − t ≈ 1/t is computed apart from t, so
    the higher derivatives h′ = −h(h − t) do not cancel (as √(2/π)/erfcx(t/√2) does, by t² at the
    3rd order: 4e-10 at t = 1000).  40 terms for floats (c exact to 2e-21 at t = 5); an mpf
    takes as many as its precision needs."""
    return t + _mills_tail(t, _terms(t, _mills_tail))


# functions the rows' partial texts call besides the rows themselves
HELPERS = {"sinc_slope_series": sinc_slope_series, "spence_slope_series": spence_slope_series,
           "erfcx_slope_fraction": erfcx_slope_fraction, "mills_fraction": mills_fraction,
           "mpf_based": _mpf_based, "bessel_far": M.bessel_far,
           "bessel_slope_series": M.bessel_slope_series,
           "expm1_ratio_slope": J.expm1_ratio_slope, "dawsn_far": J.dawsn_far,
           "dawsn_slope_series": J.dawsn_slope_series}


def _cbrt_math(x):
    """The real cube root (math.cbrt is Python 3.11's): x^(1/3) with x's sign, and one Newton
    step, which takes the power's rounding error away."""
    if x == 0 or x != x or x - x != 0:
        return x
    r = math.copysign(abs(x) ** (1.0 / 3.0), x)
    return r - (r * r * r - x) / (3.0 * r * r)


def _cbrt_mp(x):
    return mpmath.cbrt(x) if x >= 0 else -mpmath.cbrt(-x)       # mpmath's is complex for x < 0


def _copysign_mp(x, y):
    return abs(x) if mpmath.sign(y) > 0 or (y == 0 and math.copysign(1.0, float(y)) > 0) \
        else -abs(x)


def _fmax(x, y):
    return y if x != x or y > x else x          # nan is ignored, as in numpy's fmax


def _fmin(x, y):
    return y if x != x or y < x else x


def _atanh_math(x):
    return math.copysign(INF, x) if abs(x) == 1 else math.atanh(x)


def _logaddexp_with(exp, log1p, ln2):
    """log(eˣ + eʸ) = max + log1p(e^−|x−y|), with x == y (±inf included) as x + log 2."""
    def f(x, y):
        if x == y:
            return x + ln2(x)
        return (x if x > y else y) + log1p(exp(-abs(x - y)))
    return f


def _logaddexp_arrays(ufunc, exp, scale):
    """np.logaddexp (exp = np.exp, scale 1) and np.logaddexp2 (np.exp2, 1/log 2), numpy's own
    formula max(x, y) + scale·log1p(exp(−|x − y|)) by its vectorized ufuncs (numpy's loop is
    scalar: on 10⁴ float64s a sixth of its time; the same values to rounding).  x − y is nan
    where x = y = ±inf (the result x + y) or at a nan.  Anything but real arrays and numbers
    (complex, objects, lists) goes to numpy's ``ufunc``, which refuses what it refuses."""
    def f(x, y):
        if not (_real(x) and _real(y)):
            return ufunc(x, y)
        with np.errstate(invalid="ignore"):
            d = np.subtract(x, y)
            r = np.log1p(exp(-np.abs(d)))
            if scale != 1:
                r = r * scale
            r = r + np.maximum(x, y)
            bad = np.isnan(d)
            if bad.any():
                return np.where(bad, np.add(x, y), r)[()]
        return r
    return f


def _real(v):
    """Whether v is a real numpy array or scalar (bool, int, float) or a Python float or int."""
    dt = getattr(v, "dtype", None)
    return dt.kind in "biuf" if dt is not None else type(v) in (float, int, bool)


def _logaddexp2_with(log1p, ln2):
    """log₂(2ˣ + 2ʸ) = max + log1p(2^−|x−y|)/log 2, with x == y as x + 1."""
    def f(x, y):
        if x == y:
            return x + 1
        return (x if x > y else y) + log1p(2.0 ** -abs(x - y)) / ln2(x)
    return f


def _ln2(x):
    return math.log(2.0)


def _ln2_mp(x):
    return mpmath.log(2)


_MUL = K.kernel(K.product_source)
_DIV = K.kernel(K.quotient_source)
# y/(x² + y²) as y/h/h with h = hypot(x, y): x² + y² underflows to 0 at 1e-170 (and overflows at
# 1e170) where the quotient is a fine number
_ATAN2 = ("y / hypot(x, y) / hypot(x, y) if x or y else 0.0",
          "-x / hypot(x, y) / hypot(x, y) if x or y else 0.0")
_TIE = "0.5 if x == y else 0.0"
# the logistic function of a − b, 1/(1 + e^(b−a)), with the exponential never above 1: exp of a
# large argument overflows (OverflowError for Python floats) where the value is 0 or 1
_LOGISTIC = "1.0 / (1.0 + {exp}({b} - {a})) if {a} >= {b} else {exp}({a} - {b}) / (1.0 + {exp}({a} - {b}))"

# ∂(x**y)/∂x: away from x = 0 the formula holds for every y (y = 0 included: its y-derivative
# x**-1 must survive nesting); at x = 0 it would divide by zero for y < 1 (int, float and mpf have
# already raised at 0**y for y < 0).  The cheap test comes first: arrays skip the rest when y ≥ 1.
# ``constant(y) and y == 2``: the cheap square's partial 2x only for a constant exponent (a
# perturbed y must keep y·x**(y-1), whose y-derivative is not that of 2x).
POW_DX = ("2.0 * x if constant(y) and y == 2 else (y * x ** (y - 1) if not (y < 1 and x == 0) "
          "else (0.0 if y == 0 else (INF if y > 0 else y * x ** (y - 1))))")
# ∂(x**y)/∂y = x**y·log x; 0 at x = 0; nan for x < 0, where no real derivative exists.
POW_DY = "r * log(x) if x > 0 else (0.0 if x == 0 else NAN)"

P1, P2 = (("0.7",), ("-1.3",)), (("1.3", "0.7"), ("-0.9", "1.6"))
# the entropies' partials in x and in y: the formula inside their domain x, y > 0, the limit
# at its edges x = 0 (y > 0) and y = 0 (x = 0), nan where the value is ±inf
_ENTROPY_X = "{} if x > 0 and y > 0 else (-INF if x == 0 and y > 0 else NAN)"
# log(x/y): by log1p where x and y are close (log(x/y) lost 8e-11 at (1, 1 + 1e-7)), as a
# difference where x/y or y/x overflows (inf; a Hessian's 1/(x/y) overflowed at a subnormal x/y)
_LOG_RATIO = ("(log1p((x - y) / y) if 0.5 < x / y < 2.0 else (log(x / y) if 0.0 < x / y < INF "
              "and 0.0 < y / x < INF else log(x) - log(y)))")
_ENTROPY_Y = "{} if y > 0 and x >= 0 else ({} if x == 0 and y == 0 else NAN)"

# Box-Cox, (x^λ − 1)/λ = L·g(λL) with L = log x (log1p x for boxcox1p) and g(u) = expm1(u)/u:
# ∂x = x^(λ−1); ∂λ = x^λ L/λ − (x^λ − 1)/λ² = L²·g′(λL), whose terms cancel near λL = 0 (their
# limit (log x)²/2 at λ = 0, at every order): for |λL| < 2 g′'s series (expm1_ratio_slope);
# ``not ... >=`` lets a nan reach it.  At the edge x = 0 (x = −1) the value is −1/λ for λ > 0: ∂x = 0, 1, inf
# for λ >, =, < 1 and ∂λ = 1/λ²; below it nan
_BOX_DX = ("{power} if x > {e} else ((0.0 if y > 1 else (1.0 if y == 1 else INF)) if x == {e} "
           "else NAN)")
_BOX_DY = ("(square({L}) * expm1_ratio_slope(y * {L}) if not abs(y * {L}) >= 2.0 else "
           "(exp(y * {L}) * (y * {L} - 1.0) + 1.0) / (y * y)) if x > {e} else "
           "(1.0 / (y * y) if x == {e} and y > 0 else NAN)")

# The inverse Box-Cox transforms X = (1 + λy)^(1/λ) (minus 1: inv_boxcox1p), by the inverse
# function theorem from Box-Cox's partials at X: ∂y = X^(1−λ) = X/(1 + λy), ∂λ = −X/(1 + λy)·
# L²·g′(λL) with L = log X, λL = log1p(λy), g′ as above (its series for |λL| < 2).  {X} is X from
# the result r; {L} is log1p of inv_boxcox1p's value (log X of an X rounded near 1 lost the
# digits of a small L).  At the edge 1 + λy = 0, X = 0 (λ > 0) or inf (λ < 0): ∂y = X^(1−λ) is
# 0, 1, inf for λ <, =, > 1, inf for λ < 0, and ∂λ is −∂y/λ²; below it nan
_INV_BOX_EDGE = "(0.0 if y < 1 else (1.0 if y == 1 else INF)) if y > 0 else INF"
_INV_BOX_DX = "{X} / (1.0 + x * y) if 1.0 + x * y else (" + _INV_BOX_EDGE + ")"
_INV_BOX_DY = ("-{X} / (1.0 + x * y) * (square({L}) * expm1_ratio_slope(log1p(x * y)) if not "
               "abs(log1p(x * y)) >= 2.0 else ((1.0 + x * y) * (log1p(x * y) - 1.0) + 1.0) / "
               "(y * y)) if 1.0 + x * y > 0 else (-(" + _INV_BOX_EDGE + ") / (y * y) if "
               "1.0 + x * y == 0 else NAN)")
# x^y − 1 in x: y·x^(y−1), real for x < 0 at an integer y only (else nan, as the value); at x = 0
# the limit from the right: 0 for y > 1 or y = 0, 1 for y = 1, +inf for 0 < y < 1, −inf for y < 0.
# x^y is r + 1 where that keeps its digits (x^y > 1/2; x**y would raise OverflowError where r is
# scipy's inf), else x**y (r + 1 of an x^y below 1e-16 is 0)
_POWM1_DX = ("y * ((r + 1.0) / x if r > -0.5 else x ** (y - 1.0)) if x > 0 or (x < 0 and y == "
             "floor(y)) else ((0.0 if y > 1 or y == 0 else (1.0 if y == 1 else (INF if y > 0 else "
             "(-INF if y < 0 else NAN)))) if x == 0 else NAN)")
# an orthogonal polynomial's degree n is an order: the derivative of degree 0 is 0, never the
# formula's degree −1 (scipy's P₋₁ is P₀ = 1, its U₋₁ 0, C₋₁^(α) 0, but the multipliers differ).
# A negative integer degree of Legendre's and Chebyshev's U and S goes by their symmetries
# P₋ₙ₋₁ = Pₙ and U₋ₙ = −Uₙ₋₂ (scipy's too), so no degree below −1 is ever evaluated; Chebyshev's T
# and C need none (T₋ₙ = Tₙ: n·U_(n−1) is odd in n as U's symmetry makes it)
_LEGENDRE_DX = ("0.0 if x == 0 or x == -1 else ({c}(like(y, x) + 1.0) * eval_jacobi(x - 1, 1.0, "
                "1.0, {t}) if x > -1 else -{c}like(y, x) * eval_jacobi(-x - 2, 1.0, 1.0, {t}))")
_CHEBYU_DX = ("0.0 if x == 0 or x == -1 or x == -2 else ({c} * eval_gegenbauer(x - 1, 2.0, {t}) "
              "if x > -1 else -{c} * eval_gegenbauer(-x - 3, 2.0, {t}))")

TABLE = [
    # ---- binary --------------------------------------------------------------------------------
    Rule("add", "x + y", ("1.0", "1.0"), ufuncs=("add",), dunders=("__add__",), taylor=S.sum_or_difference(1),
         zero=S.zero_sum, points=P2),
    Rule("sub", "x - y", ("1.0", "-1.0"), ufuncs=("subtract",), dunders=("__sub__",), taylor=S.sum_or_difference(-1),
         zero=S.zero_difference, points=P2),
    Rule("mul", "x * y", ("y", "x"), ufuncs=("multiply",), dunders=("__mul__",), taylor=S.product, kernel=_MUL,
         zero=S.zero_product, points=P2),
    Rule("div", "x / y", ("1.0 / y", "-r / y"), ufuncs=("true_divide",), dunders=("__truediv__",), taylor=S.quotient,
         kernel=_DIV, points=P2),
    Rule("pow", "pow(x, y)", (POW_DX, POW_DY), lib=(_pow_math, operator.pow, _pow_mp),
         ufuncs=("power", "float_power"), dunders=("__pow__",), taylor=S.power(op("log")), divides=True,
         points=(("1.3", "2.5"), ("0.8", "-1.7"))),
    Rule("mod", "x % y", ("1.0", "-floor(x / y)"), ufuncs=("remainder",), dunders=("__mod__",),
         points=(("5.3", "1.7"), ("-5.3", "1.7"))),
    Rule("atan2", "atan2(x, y)", _ATAN2, lib=(math.atan2, np.arctan2, mpmath.atan2),
         ufuncs=("arctan2",), taylor=S.arctangent2, divides=True, points=P2),
    Rule("hypot", "hypot(x, y)", ("x / r if r else 0.0", "y / r if r else 0.0"), lib=SAME,
         ufuncs=("hypot",), taylor=S.hypotenuse, divides=True, points=P2),
    Rule("maximum", "maximum(x, y)", ("1.0 if x > y else (" + _TIE + ")",
                                      "1.0 if y > x else (" + _TIE + ")"),
         lib=(_larger, np.maximum, _larger), ufuncs=("maximum",), points=P2),
    Rule("minimum", "minimum(x, y)", ("1.0 if x < y else (" + _TIE + ")",
                                      "1.0 if y < x else (" + _TIE + ")"),
         lib=(_smaller, np.minimum, _smaller), ufuncs=("minimum",), points=P2),
    # fmax, fmin: maximum, minimum with a nan argument ignored (the other one is the value)
    Rule("fmax", "fmax(x, y)", ("1.0 if x > y or y != y else (" + _TIE + ")",
                                "1.0 if y > x or x != x else (" + _TIE + ")"),
         lib=(_fmax, np.fmax, _fmax), ufuncs=("fmax",), points=P2),
    Rule("fmin", "fmin(x, y)", ("1.0 if x < y or y != y else (" + _TIE + ")",
                                "1.0 if y < x or x != x else (" + _TIE + ")"),
         lib=(_fmin, np.fmin, _fmin), ufuncs=("fmin",), points=P2),
    # |x| with y's sign: ∂x = sign(x)·(±1), kinked at x = 0 as abs is; piecewise constant in y
    Rule("copysign", "copysign(x, y)", ("sign(x) * copysign(1.0, y)", "0.0"),
         lib=(math.copysign, np.copysign, _copysign_mp), ufuncs=("copysign",),
         points=(("1.3", "-0.7"), ("-0.6", "2.1"))),
    # ∂/∂x log(eˣ + eʸ) = eˣ⁻ʳ, written as the logistic function of x − y: exp(x − r) cancels in
    # x − r (float32 second derivatives were 1e-6 off), this does not; one ufunc without a branch
    # (a branch on x ≥ y splits the lanes of an array, which costs a gather and a scatter)
    Rule("logaddexp", "logaddexp(x, y)", ("expit(x - y)", "expit(y - x)"),
         lib=(_logaddexp_with(math.exp, math.log1p, _ln2), _logaddexp_arrays(np.logaddexp, np.exp, 1),
              _logaddexp_with(mpmath.exp, mpmath.log1p, _ln2_mp)),
         ufuncs=("logaddexp",), points=P2 + (("2.5", "2.5"),)),
    Rule("logaddexp2", "logaddexp2(x, y)", (_LOGISTIC.format(a="x", b="y", exp="exp2"),
                                            _LOGISTIC.format(a="y", b="x", exp="exp2")),
         lib=(_logaddexp2_with(math.log1p, _ln2), _logaddexp_arrays(np.logaddexp2, np.exp2, 1 / math.log(2.0)),
              _logaddexp2_with(mpmath.log1p, _ln2_mp)),
         ufuncs=("logaddexp2",), points=P2 + (("2.5", "2.5"),)),
    # ---- unary ---------------------------------------------------------------------------------
    Rule("neg", "-x", ("-1.0",), ufuncs=("negative",), dunders=("__neg__",), taylor=S.negation, points=P1),
    Rule("square", "x * x", ("2.0 * x",), ufuncs=("square",), taylor=S.squared, points=P1),
    Rule("reciprocal", "1.0 / x", ("-r * r",), ufuncs=("reciprocal",), taylor=S.inverse,
         divides=True, points=(("1.3",),)),
    Rule("abs", "abs(x)", ("sign(x)",), lib=(abs, np.abs, abs), ufuncs=("absolute", "fabs"), dunders=("__abs__",),
         taylor=S.absolute(op("sign")), points=(("0.8",), ("-1.3",))),
    Rule("sqrt", "sqrt(x)", ("0.5 / r if r else INF",),
         lib=(math.sqrt, np.sqrt, real_only(mpmath.sqrt, "sqrt")), ufuncs=("sqrt",),
         taylor=S.root, divides=True, points=(("2.5",),)),
    Rule("exp", "exp(x)", ("r",), lib=SAME, ufuncs=("exp",), taylor=S.exponential(False),
         kernel=K.kernel(K.exp_source, F=fl("exp")), points=P1),
    Rule("expm1", "expm1(x)", ("exp(x)",), lib=SAME, ufuncs=("expm1",), special=("expm1",),
         taylor=S.exponential(True), points=(("0.3",), ("-0.8",))),
    Rule("log", "log(x)", ("1.0 / x if x else INF",),
         lib=(_log_math(math.log), np.log, real_only(mpmath.log, "log")), ufuncs=("log",),
         taylor=S.logarithm(False), divides=True, points=(("2.5",), ("0.4",))),
    Rule("log1p", "log1p(x)", ("1.0 / (1.0 + x) if x != -1 else INF",),
         lib=(_log1p_math, np.log1p, real_only(mpmath.log1p, "log1p")), ufuncs=("log1p",), special=("log1p",),
         taylor=S.logarithm(True), divides=True, points=(("0.4",), ("-0.6",))),
    Rule("log2", "log2(x)", ("1.0 / (x * log(like(x, 2))) if x else INF",),
         lib=(_log_math(math.log2), np.log2, real_only(lambda x: mpmath.log(x, 2), "log2")),
         ufuncs=("log2",), points=(("2.5",), ("0.4",))),
    Rule("log10", "log10(x)", ("1.0 / (x * log(like(x, 10))) if x else INF",),
         lib=(_log_math(math.log10), np.log10, real_only(mpmath.log10, "log10")),
         ufuncs=("log10",), points=(("2.5",), ("0.4",))),
    Rule("exp2", "exp2(x)", ("r * log(like(x, 2))",),
         lib=(lambda x: 2.0 ** x, np.exp2, lambda x: mpmath.mpf(2) ** x), ufuncs=("exp2",), special=("exp2",),
         points=(("0.7",), ("-1.3",))),
    Rule("sin", "sin(x)", ("cos(x)",), lib=SAME, ufuncs=("sin",),
         taylor=S.sin_cos(True, False, op("cos")),
         kernel=K.kernel(K.sin_cos_source(True, False), S=fl("sin"), C=fl("cos")),
         points=(("0.7",), ("-2.1",))),
    Rule("cos", "cos(x)", ("-sin(x)",), lib=SAME, ufuncs=("cos",),
         taylor=S.sin_cos(False, False, op("sin")),
         kernel=K.kernel(K.sin_cos_source(False, False), S=fl("sin"), C=fl("cos")),
         points=(("0.7",), ("-2.1",))),
    Rule("tan", "tan(x)", ("1.0 + r * r",), lib=SAME, ufuncs=("tan",), taylor=S.tangent(1),
         points=(("0.6",), ("-1.1",))),
    Rule("asin", "asin(x)", ("1.0 / sqrt(1.0 - x * x) if x * x != 1 else INF",),
         lib=(math.asin, np.arcsin, real_only(mpmath.asin, "asin")), ufuncs=("arcsin",),
         taylor=S.arcsine(1, op("sqrt")), divides=True, points=(("0.3",), ("-0.7",))),
    Rule("acos", "acos(x)", ("-1.0 / sqrt(1.0 - x * x) if x * x != 1 else -INF",),
         lib=(math.acos, np.arccos, real_only(mpmath.acos, "acos")), ufuncs=("arccos",),
         taylor=S.arcsine(-1, op("sqrt")), divides=True, points=(("0.3",), ("-0.7",))),
    Rule("atan", "atan(x)", ("1.0 / (1.0 + x * x)",), lib=(math.atan, np.arctan, mpmath.atan),
         ufuncs=("arctan",), taylor=S.arctangent, divides=True, points=(("1.7",), ("-0.4",))),
    Rule("sinh", "sinh(x)", ("cosh(x)",), lib=SAME, ufuncs=("sinh",),
         taylor=S.sin_cos(True, True, op("cosh")),
         kernel=K.kernel(K.sin_cos_source(True, True), S=fl("sinh"), C=fl("cosh")),
         points=(("0.9",),)),
    Rule("cosh", "cosh(x)", ("sinh(x)",), lib=SAME, ufuncs=("cosh",),
         taylor=S.sin_cos(False, True, op("sinh")),
         kernel=K.kernel(K.sin_cos_source(False, True), S=fl("sinh"), C=fl("cosh")),
         points=(("0.9",), ("-1.2",))),
    # tanh′ = 1/cosh² x, not 1 − tanh² x, which is 0 once tanh rounds to ±1 (x ≥ 19.1; the true
    # value at 20 is 1.7e-17); the towers derive from it (the recurrence z′ = (1 − z²)·a′ cancels
    # the same way)
    # tanh′ = 1 − tanh² for |x| < 2, where its cancellation costs at most cosh² 2 ≈ 14 ulps (and
    # an array of activations, mostly there, takes the cheap branch on every lane: see
    # dvlad.core.vectorize); beyond, sech² x = (2e/(1 + e²))², e = exp(−|x|), which underflows
    # gently (1/cosh² x overflowed inside for |x| > 355: nan second derivatives)
    Rule("tanh", "tanh(x)", ("1.0 - r * r if abs(x) < 2.0 else "
                             "square(2.0 * exp(-abs(x)) / (1.0 + square(exp(-abs(x)))))",),
         lib=SAME, ufuncs=("tanh",),
         points=(("0.8",), ("-2.4",))),
    Rule("arcsinh", "arcsinh(x)", ("1.0 / hypot(x, 1.0)",),
         lib=(math.asinh, np.arcsinh, mpmath.asinh), ufuncs=("arcsinh",),
         points=(("0.9",), ("-2.3",))),
    Rule("arccosh", "arccosh(x)", ("1.0 / sqrt((x - 1.0) * (x + 1.0)) if x != 1 else INF",),
         lib=(math.acosh, np.arccosh, real_only(mpmath.acosh, "arccosh")),
         ufuncs=("arccosh",), points=(("1.7",), ("3.5",))),
    Rule("arctanh", "arctanh(x)", ("1.0 / ((1.0 - x) * (1.0 + x)) if x * x != 1 else INF",),
         lib=(_atanh_math, np.arctanh, real_only(mpmath.atanh, "arctanh")),
         ufuncs=("arctanh",), points=(("0.3",), ("-0.7",))),
    # numpy's normalized sinc x = sin(πx)/(πx): sinc′ = (cos πx − sinc x)/x, near 0 its series
    Rule("sinc", "sinc(x)", ("sinc_slope_series(x) if abs(x) < 0.25 else "
                             "(cos(pi(x) * x) - r) / x",),
         lib=(_sinc_math, np.sinc, mpmath.sincpi), functions=("sinc",),
         points=(("0.1",), ("0.8",), ("-2.3",))),
    # the real cube root: (∛x)′ = 1/(3r²), +∞ at 0
    Rule("cbrt", "cbrt(x)", ("1.0 / (3.0 * (r * r)) if r else INF",),
         lib=(_cbrt_math, np.cbrt, _cbrt_mp), ufuncs=("cbrt",), special=("cbrt",), divides=True,
         points=(("2.5",), ("-0.4",))),
    Rule("deg2rad", "deg2rad(x)", ("deg2rad(like(x, 1))",),
         lib=(math.radians, np.deg2rad, mpmath.radians), ufuncs=("deg2rad", "radians"),
         points=(("37.5",), ("-210.0",))),
    Rule("rad2deg", "rad2deg(x)", ("rad2deg(like(x, 1))",),
         lib=(math.degrees, np.rad2deg, mpmath.degrees), ufuncs=("rad2deg", "degrees"),
         points=(("0.7",), ("-2.1",))),
    # ---- scipy.special's functions (their base functions: dvlad.core.special) ------------------
    # 2/√π e^(−x²) for erf; √π/2 e^(r²) for its inverse (π in x's precision: pi(x))
    Rule("erf", "erf(x)", ("2.0 / sqrt(pi(x)) * exp(-(x * x))",),
         lib=SP("erf", mpmath.erf, math.erf), special=("erf",), points=(("0.6",), ("-1.4",))),
    Rule("erfc", "erfc(x)", ("-2.0 / sqrt(pi(x)) * exp(-(x * x))",),
         lib=SP("erfc", mpmath.erfc, math.erfc), special=("erfc",), points=(("0.6",), ("2.5",))),
    Rule("erfinv", "erfinv(x)", ("0.5 * sqrt(pi(x)) * exp(r * r)",),
         lib=SP("erfinv", X.mp_erfinv), special=("erfinv",), points=(("0.3",), ("-0.8",))),
    Rule("erfcinv", "erfcinv(x)", ("-0.5 * sqrt(pi(x)) * exp(r * r)",),
         lib=SP("erfcinv", X.mp_erfcinv), special=("erfcinv",), points=(("0.4",), ("1.7",))),
    Rule("gammaln", "gammaln(x)", ("digamma(x)",),
         lib=SP("gammaln", X.mp_gammaln, X.math_gammaln), special=("gammaln",),
         points=(("2.7",), ("0.4",), ("-1.5",))),
    Rule("digamma", "digamma(x)", ("polygamma(1, x)",), lib=SP("psi", mpmath.digamma),
         special=("psi", "digamma"), points=(("2.7",), ("0.4",))),
    # polygamma(n, x): n is an order, not a variable (its partial raises)
    Rule("polygamma", "polygamma(x, y)", ("no_derivative('polygamma', 'n')",
                                          "polygamma(x + 1, y)"),
         lib=SP("polygamma", X.mp_polygamma, numpy_wrapper=X.polygamma_arrays), orders=(0,),
         points=(("1", "2.3"), ("2", "0.7"))),
    # the logistic function: σ′ = σ(x)·σ(−x) (not r(1 − r), which cancels for large x)
    Rule("expit", "expit(x)", ("r * expit(-x)",), lib=SP("expit", X.mp_expit, X.math_expit, numpy_wrapper=X.expit_arrays),
         special=("expit",), points=(("0.7",), ("-3.1",))),
    Rule("logit", "logit(x)", ("1.0 / (x * (1.0 - x)) if x * (1.0 - x) else INF",),
         lib=SP("logit", X.mp_logit, X.math_logit), special=("logit",),
         points=(("0.3",), ("0.85",))),
    # x·log y and x·log(1 + y) are 0 at a constant x = 0 whatever y is, and so is their
    # y-partial (where x is perturbed, x/y carries x's derivative even at x = 0)
    Rule("xlogy", "xlogy(x, y)", ("log(y)", "x / y if y else (0.0 if constant(x) and not x "
                                            "else x * INF)"),
         lib=SP("xlogy", X.mp_xlogy, X.math_xlogy, numpy_wrapper=X.weak_scalars),
         special=("xlogy",),
         points=(("0.7", "1.9"), ("-1.3", "0.4"))),
    Rule("xlog1py", "xlog1py(x, y)", ("log1p(y)", "x / (1.0 + y) if 1.0 + y else "
                                                  "(0.0 if constant(x) and not x else x * INF)"),
         lib=SP("xlog1py", X.mp_xlog1py, X.math_xlog1py, numpy_wrapper=X.weak_scalars),
         special=("xlog1py",),
         points=(("0.7", "0.9"), ("-1.3", "-0.4"))),
    # the normal distribution: Φ′ = φ = e^(−x²/2)/√(2π); (log Φ)′ = φ/Φ = e^(−x²/2 − r)/√(2π)
    # (no underflowing Φ in a denominator); for x < 0, where −x²/2 − r cancels (the 2nd derivative
    # was 3e-5 off at x = −1000), √(2/π)/erfcx(−x/√2) (Φ = erfcx·φ·√(π/2)), below −5 the Mills
    # ratio's continued fraction (mills_fraction); (Φ⁻¹)′ = √(2π) e^(r²/2)
    Rule("ndtr", "ndtr(x)", ("exp(-0.5 * (x * x)) / sqrt(2.0 * pi(x))",),
         lib=SP("ndtr", X.mp_ndtr, X.math_ndtr), special=("ndtr",),
         points=(("0.6",), ("-1.9",))),
    Rule("log_ndtr", "log_ndtr(x)", ("exp(-0.5 * (x * x) - r) / sqrt(2.0 * pi(x)) if x >= 0 else "
                                     "(mills_fraction(-x) if x < -5.0 else "
                                     "sqrt(2.0 / pi(x)) / erfcx(-x / sqrt(like(x, 2))))",),
         lib=SP("log_ndtr", X.mp_log_ndtr), special=("log_ndtr",),
         points=(("0.6",), ("-1.8",))),
    Rule("ndtri", "ndtri(x)", ("sqrt(2.0 * pi(x)) * exp(0.5 * (r * r))",),
         lib=SP("ndtri", X.mp_ndtri), special=("ndtri",), points=(("0.3",), ("0.9",))),
    # modified Bessel functions: I₀′ = I₁, I_v′ = (I_(v−1) + I_(v+1))/2 (no division by x)
    Rule("i0", "i0(x)", ("iv(1, x)",), lib=SP("i0", X.mp_i0), special=("i0",),
         points=(("0.8",), ("-2.2",))),
    Rule("i1", "i1(x)", ("0.5 * (iv(0, x) + iv(2, x))",), lib=SP("i1", X.mp_i1),
         special=("i1",), points=(("0.8",), ("-2.2",))),
    Rule("iv", "iv(x, y)", ("no_derivative('iv', 'v')", "0.5 * (iv(x - 1, y) + iv(x + 1, y))"),
         lib=SP("iv", X.mp_iv, numpy_wrapper=X.iv_arrays, float_wrapper=X.iv_floats),
         special=("iv",), orders=(0,),
         points=(("2", "1.3"), ("0", "-0.7"))),
    # log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a + b)
    Rule("betaln", "betaln(x, y)", ("digamma(x) - digamma(x + y)", "digamma(y) - digamma(x + y)"),
         lib=SP("betaln", X.mp_betaln, numpy_wrapper=X.weak_scalars), special=("betaln",),
         points=(("1.7", "2.4"), ("0.6", "3.1"))),
    # Γ′ = Γ·ψ; (1/Γ)′ = −ψ/Γ, and by the reflection 1/Γ(x) = sin(πx) Γ(1 − x)/π left of 1/2:
    # Γ(1 − x)(cos πx − sin πx · ψ(1 − x)/π), smooth through the zeros x = −n of 1/Γ, where it
    # is (−1)ⁿ n! (−ψ·r would be 0·inf there), at every order
    Rule("gamma", "gamma(x)", ("r * digamma(x)",), lib=SP("gamma", X.mp_gamma), special=("gamma",),
         points=(("2.7",), ("0.4",), ("-1.5",))),
    Rule("rgamma", "rgamma(x)", ("-digamma(x) * r if x > 0.5 else gamma(1.0 - x) * (cos(pi(x) * x) "
                                 "- sin(pi(x) * x) * digamma(1.0 - x) / pi(x))",),
         lib=SP("rgamma", mpmath.rgamma), special=("rgamma",),
         points=(("2.7",), ("-1.5",), ("-2.0",), ("0.2",))),
    # B(a, b) = Γ(a)Γ(b)/Γ(a + b): ∂a = B·(ψ(a) − ψ(a + b))
    Rule("beta", "beta(x, y)", ("r * (digamma(x) - digamma(x + y))", "r * (digamma(y) - digamma(x + y))"),
         lib=SP("beta", mpmath.beta, numpy_wrapper=X.weak_scalars), special=("beta",),
         points=(("1.7", "2.4"), ("0.6", "3.1"))),
    # the Pochhammer symbol Γ(z + m)/Γ(z): ∂z = r·(ψ(z + m) − ψ(z)), ∂m = r·ψ(z + m).  Left of
    # 1/2, ∂z is Γ(z + m)·(1/Γ)′(z) + r·ψ(z + m) with (1/Γ)′ by reflection as in rgamma's row:
    # smooth through the poles z = −n of Γ, where r = 0 and ∂z = Γ(z + m)(−1)ⁿ n! (r·ψ(z) would
    # be 0·inf).  Where z + m is a pole too (m an integer, r the finite product z(z + 1)...),
    # ψ(z + m) − ψ(z) = ψ(1 − z − m) − ψ(1 − z) by reflection (the cotangents cancel).  The
    # difference of ψ's loses ~log z / m of the digits at a large z (1e-11 relative at z = 5e3,
    # m = 1/2: t.logpdf's poch(ν/2, 1/2) at ν = 1e4)
    Rule("poch", "poch(x, y)", ("r * (digamma(x + y) - digamma(x)) if x > 0.5 else "
                                "r * (digamma(1.0 - x - y) - digamma(1.0 - x)) "
                                "if x + y <= 0.0 and x + y == floor(x + y) else "
                                "r * digamma(x + y) + gamma(x + y) * gamma(1.0 - x) * "
                                "(cos(pi(x) * x) - sin(pi(x) * x) * digamma(1.0 - x) / pi(x))",
                                "r * digamma(x + y)"),
         lib=SP("poch", X.mp_poch), special=("poch",),
         points=(("2.5", "0.5"), ("0.7", "1.6"), ("-1.5", "0.8"), ("-2", "1.5"))),
    # Bessel functions of the first and second kind: J₀′ = −J₁, J_n′ = (J_(n−1) − J_(n+1))/2
    # (no division by x), the same for Y; scipy's jn is its jv, so a real order reaches jn too
    Rule("j0", "j0(x)", ("-j1(x)",), lib=SP("j0", X.mp_j0), special=("j0",),
         points=(("0.8",), ("-2.2",), ("5.3",))),
    Rule("j1", "j1(x)", ("0.5 * (j0(x) - jn(2, x))",), lib=SP("j1", X.mp_j1), special=("j1",),
         points=(("0.8",), ("-2.2",), ("5.3",))),
    Rule("y0", "y0(x)", ("-y1(x)",), lib=SP("y0", X.mp_y0), special=("y0",),
         points=(("0.8",), ("2.2",))),
    Rule("y1", "y1(x)", ("0.5 * (y0(x) - yn(2, x))",), lib=SP("y1", X.mp_y1), special=("y1",),
         points=(("0.8",), ("2.2",))),
    Rule("jn", "jn(x, y)", ("no_derivative('jn', 'n')", "0.5 * (jn(x - 1, y) - jn(x + 1, y))"),
         lib=SP("jv", X.mp_jn, numpy_wrapper=X.jv_arrays, float_wrapper=X.jv_floats),
         special=("jn",), orders=(0,), points=(("2", "1.3"), ("0", "-0.7"), ("-1", "2.1"))),
    Rule("yn", "yn(x, y)", ("no_derivative('yn', 'n')", "0.5 * (yn(x - 1, y) - yn(x + 1, y))"),
         lib=SP("yn", X.mp_yn, numpy_wrapper=X.weak_scalars), special=("yn",), orders=(0,),
         points=(("2", "1.3"), ("0", "0.7"), ("-1", "2.1"))),
    # ive(v, x) = I_v(x)·e^(−|x|): ∂x = (ive(v − 1, x) + ive(v + 1, x))/2 − sign(x)·ive(v, x)
    Rule("ive", "ive(x, y)", ("no_derivative('ive', 'v')",
                              "0.5 * (ive(x - 1, y) + ive(x + 1, y)) - sign(y) * r"),
         lib=SP("ive", X.mp_ive, numpy_wrapper=X.iv_arrays, float_wrapper=X.iv_floats),
         special=("ive",), orders=(0,),
         points=(("2", "1.3"), ("0", "-0.7"), ("1.5", "2.1"))),
    # the modified Bessel function of the second kind (Matérn kernels), real for x > 0 (scipy's
    # inf at x = 0, nan below): K_v′ = −(K_(v−1) + K_(v+1))/2, −inf at x = 0; kve(v, x) =
    # K_v(x)·eˣ: ∂x = −(kve(v − 1, x) + kve(v + 1, x))/2 + kve(v, x), at x = 0 (inf − inf)
    # its limit −inf as −kve(v + 1, 0), whose own derivative is the next limit, +inf.  Like
    # ive's, the terms cancel to ~1/(2x) of themselves for a large x
    Rule("kv", "kv(x, y)", ("no_derivative('kv', 'v')", "-0.5 * (kv(x - 1, y) + kv(x + 1, y))"),
         lib=SP("kv", M.mp_kv), special=("kv",), orders=(0,),
         points=(("1.5", "1.3"), ("0", "0.7"), ("2", "2.1"), ("-0.5", "3.4"))),
    Rule("kve", "kve(x, y)", ("no_derivative('kve', 'v')",
                              "-0.5 * (kve(x - 1, y) + kve(x + 1, y)) + r if y else "
                              "-kve(x + 1, y)"),
         lib=SP("kve", M.mp_kve), special=("kve",), orders=(0,),
         points=(("1.5", "1.3"), ("0", "0.7"), ("2", "4.5"))),
    # exponentially scaled I₀ and I₁, I_n(x)·e^(−|x|): ∂x = I_n′·e^(−|x|) − sign(x)·r with I₀′ = I₁
    # and I₁′ = (I₀ + I₂)/2 (= I₀ − I₁/x, without the division: ½ at x = 0); these cancel for a
    # large |x| (to 1/(2|x|), again at each order): from bessel_far(x), Hankel's series
    Rule("i0e", "i0e(x)", ("bessel_slope_series(0, x) if abs(x) >= bessel_far(x) else "
                           "i1e(x) - sign(x) * r",), lib=SP("i0e", M.mp_i0e), special=("i0e",),
         points=(("0.8",), ("-2.2",))),
    Rule("i1e", "i1e(x)", ("bessel_slope_series(1, x) if abs(x) >= bessel_far(x) else "
                           "0.5 * (i0e(x) + ive(2, x)) - sign(x) * r",),
         lib=SP("i1e", M.mp_i1e), special=("i1e",), points=(("0.8",), ("-2.2",))),
    # e^(x²)·erfc x: erfcx′ = 2x·erfcx − 2/√π, whose terms cancel for a large x; from x = 4 by
    # a continued fraction (erfcx_slope_fraction)
    Rule("erfcx", "erfcx(x)", ("2.0 * x * r - 2.0 / sqrt(pi(x)) if x < 4.0 else "
                               "erfcx_slope_fraction(x)",),
         lib=SP("erfcx", M.mp_erfcx), special=("erfcx",),
         points=(("0.6",), ("-1.4",), ("5.5",))),
    # scipy's cos x − 1, accurate near 0 (von Mises' log-density): −sin x
    Rule("cosm1", "cosm1(x)", ("-sin(x)",), lib=SP("cosm1", M.mp_cosm1), special=("cosm1",),
         points=(("0.6",), ("-1.4",), ("0.001",))),
    # log σ(x) = −log1p(e^−x): (log σ)′ = σ(−x) = 1 − σ(x), σ computed stably (expit's row)
    Rule("log_expit", "log_expit(x)", ("expit(-x)",),
         lib=SP("log_expit", M.mp_log_expit, M.math_log_expit), special=("log_expit",),
         points=(("0.7",), ("-3.1",))),
    # the entropies −x log x, x log(x/y), x log(x/y) − x + y.  At x = 0 (y ≥ 0) scipy's value
    # is the limit (0, 0, y): the x-partial is its limit (+inf, −inf, −inf), the y-partial −x/y
    # exact (0; 1 − x/y = 1), also at y = 0 (one-sided); where scipy's value is ±inf (x < 0, or
    # y ≤ 0 < x, or y < 0) a partial is nan (so is the x-partial at (0, 0))
    Rule("entr", "entr(x)", ("-log(x) - 1.0 if x >= 0 else NAN",),
         lib=SP("entr", M.mp_entr, M.math_entr), special=("entr",),
         points=(("0.6",), ("2.5",))),
    Rule("rel_entr", "rel_entr(x, y)", (_ENTROPY_X.format(_LOG_RATIO + " + 1.0"),
                                        _ENTROPY_Y.format("-x / y", "0.0")),
         lib=SP("rel_entr", M.mp_rel_entr), special=("rel_entr",),
         points=(("0.3", "1.7"), ("1.6", "0.4"))),
    Rule("kl_div", "kl_div(x, y)", (_ENTROPY_X.format(_LOG_RATIO),
                                    _ENTROPY_Y.format("1.0 - x / y", "1.0")),
         lib=SP("kl_div", M.mp_kl_div), special=("kl_div",),
         points=(("0.7", "1.9"), ("1.6", "0.4"))),
    # the exponential integrals E₁(x) = ∫ₓ^∞ e⁻ᵗ/t dt (x > 0; nan below, as scipy) and Ei:
    # E₁′ = −e⁻ˣ/x, Ei′ = eˣ/x; at x = 0 their limits from the right, −inf and +inf (as log′(0))
    Rule("exp1", "exp1(x)", ("-exp(-x) / x if x > 0 else (-INF if x == 0 else NAN)",),
         lib=SP("exp1", M.mp_exp1), special=("exp1",), points=(("0.7",), ("2.5",))),
    Rule("expi", "expi(x)", ("(exp(x) / x if x else INF) if x < 709.0 or mpf_based(x) else "
                             "(exp(0.5 * x) / x * exp(0.5 * x) if x < 1419.0 else INF)",), lib=SP("expi", M.mp_expi),
         special=("expi",), points=(("0.7",), ("-1.6",), ("2.5",))),
    # scipy's spence(z) = ∫₁^z log t/(1 − t) dt = Li₂(1 − z), z ≥ 0: spence′ = log z/(1 − z), 0/0
    # at z = 1 (its limit −1) and cancelling near it at higher orders: there its series
    Rule("spence", "spence(x)", ("spence_slope_series(x) if abs(x - 1.0) < 0.03125 else "
                                 "(log(x) / (1.0 - x) if x >= 0 else NAN)",),
         lib=SP("spence", M.mp_spence), special=("spence",),
         points=(("0.4",), ("1",), ("2.5",))),
    # the Hurwitz zeta function ζ(x, q) = Σₙ (n + q)^(−x): ∂q = −x·ζ(x + 1, q); the exponent x
    # (the zeta distribution's shape) is not differentiated: scipy has no derivative in it.
    # scipy.special.zeta(x, q) is a Python function that calls the ufunc _ufuncs._zeta: that is
    # the name the row answers to
    Rule("zeta", "zeta(x, y)", ("no_derivative('zeta', 'x', 'shape')",
                                "-like(y, x) * zeta(like(y, x) + 1.0, y)"),
         lib=SP("zeta", M.mp_zeta), special=("_zeta",), shapes=(0,),
         points=(("2", "1.3"), ("3.5", "0.6"), ("1.5", "2.2"))),
    # ---- the rows jax.scipy.special differentiates (base functions: core/special_jax.py) ------
    Rule("boxcox", "boxcox(x, y)", (_BOX_DX.format(power="x ** (y - 1.0)", e="0"),
                                    _BOX_DY.format(L="log(x)", e="0")),
         lib=SP("boxcox", J.mp_boxcox, J.math_boxcox), special=("boxcox",),
         points=(("1.7", "0.6"), ("0.4", "-1.3"), ("2.5", "0"))),
    Rule("boxcox1p", "boxcox1p(x, y)", (_BOX_DX.format(power="exp((y - 1.0) * log1p(x))", e="-1"),
                                        _BOX_DY.format(L="log1p(x)", e="-1")),
         lib=SP("boxcox1p", J.mp_boxcox1p, J.math_boxcox1p), special=("boxcox1p",),
         points=(("0.7", "0.6"), ("-0.4", "-1.3"), ("1.5", "0"))),
    # Owen's T(h, a) = (1/2π)∫₀^a e^(−h²(1+t²)/2)/(1 + t²) dt: ∂h = −(h/2π)∫₀^a e^(−h²(1+t²)/2) dt
    # = −φ(h)·erf(ah/√2)/2; ∂a is the integrand at a, with (ha)² apart from h² (no 0·inf at h = 0
    # for a huge a), 0 at a = ±inf
    Rule("owens_t", "owens_t(x, y)", (
        "-0.5 * exp(-0.5 * (x * x)) / sqrt(2.0 * pi(x)) * erf(x * y / sqrt(like(x, 2)))",
        "exp(-0.5 * (x * x) - 0.5 * square(x * y)) / (2.0 * pi(x) * (1.0 + y * y)) "
        "if abs(y) < INF else (0.0 if y == y else NAN)"),
         lib=SP("owens_t", J.mp_owens_t), special=("owens_t",),
         points=(("0.6", "0.8"), ("-1.3", "2.5"), ("0.4", "-0.7"))),
    # E_n(x) = ∫₁^∞ e^(−xt)/tⁿ dt: ∂x = −E_(n−1)(x), with E₀(x) = e^(−x)/x, whose own slope
    # −e^(−x)(x + 1)/x² is written out for n < 1 (scipy's E₋₁ is nan); n an integer order
    Rule("expn", "expn(x, y)", ("no_derivative('expn', 'n')",
                                "-expn(x - 1, y) if x >= 1 else (-exp(-y) * (y + 1.0) / (y * y) "
                                "if x >= 0 and y > 0 else (-INF if x >= 0 and y == 0 else NAN))"),
         lib=SP("expn", J.mp_expn, numpy_wrapper=X.weak_scalars), special=("expn",),
         orders=(0,), points=(("2", "1.3"), ("1", "0.4"), ("0", "0.7"), ("3", "2.5"))),
    # the regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 − P: ∂x = ±x^(a−1)e^(−x)
    # /Γ(a), as exp((a − 1)·log x − x − log Γ(a)), with xlogy's 0·log 0 = 0 for a = 1 at x = 0
    # (like(y, x): the constant a in x's precision, an mpf for an mpf x); the a-partial has no
    # closed form: a is a shape argument, not differentiated (nor by autograd)
    Rule("gammainc", "gammainc(x, y)", ("no_derivative('gammainc', 'a', 'shape')",
                                        "exp(xlogy(like(y, x) - 1.0, y) - y - gammaln(like(y, x)))"),
         lib=SP("gammainc", D.mp_gammainc, numpy_wrapper=X.weak_scalars), special=("gammainc",),
         shapes=(0,), points=(("2.5", "1.3"), ("0.6", "0.4"), ("1", "0.8"))),
    Rule("gammaincc", "gammaincc(x, y)", ("no_derivative('gammaincc', 'a', 'shape')",
                                          "-exp(xlogy(like(y, x) - 1.0, y) - y - gammaln(like(y, x)))"),
         lib=SP("gammaincc", D.mp_gammaincc, numpy_wrapper=X.weak_scalars), special=("gammaincc",),
         shapes=(0,), points=(("2.5", "1.3"), ("0.6", "0.4"), ("1", "0.8"))),
    # the chi-square cdf and survival function P(v/2, x/2) and Q(v/2, x/2): ∂x = ± the density
    # x^(v/2−1)e^(−x/2)/(2^(v/2) Γ(v/2)), as ½·exp((a − 1)·log(x/2) − x/2 − log Γ(a)), a = v/2;
    # v (degrees of freedom) is a shape argument, as gammainc's a
    Rule("chdtr", "chdtr(x, y)", ("no_derivative('chdtr', 'v', 'shape')",
                                  "0.5 * exp(xlogy(0.5 * like(y, x) - 1.0, 0.5 * y) - 0.5 * y "
                                  "- gammaln(0.5 * like(y, x)))"),
         lib=SP("chdtr", D.mp_chdtr), special=("chdtr",), shapes=(0,),
         points=(("3", "1.3"), ("1.2", "0.4"), ("2", "0.8"))),
    Rule("chdtrc", "chdtrc(x, y)", ("no_derivative('chdtrc', 'v', 'shape')",
                                    "-0.5 * exp(xlogy(0.5 * like(y, x) - 1.0, 0.5 * y) - 0.5 * y "
                                    "- gammaln(0.5 * like(y, x)))"),
         lib=SP("chdtrc", D.mp_chdtrc), special=("chdtrc",), shapes=(0,),
         points=(("3", "1.3"), ("1.2", "0.4"), ("2", "0.8"))),
    # Student's t cdf in t: the density Γ((ν + 1)/2)/(Γ(ν/2)√(νπ))·(1 + t²/ν)^(−(ν+1)/2) =
    # (1 + t²/ν)^(−(ν+1)/2)/(√ν B(ν/2, 1/2)) (betaln: no difference of large log Γ's, which lost
    # 1e-5 of the density at ν = 1e10), the normal density for ν = inf; the ν-partial has no
    # closed form
    Rule("stdtr", "stdtr(x, y)", ("no_derivative('stdtr', 'df', 'shape')",
                                  "exp(-betaln(0.5 * like(y, x), 0.5) - (0.5 * like(y, x) + 0.5) "
                                  "* log1p(y * y / like(y, x))) / sqrt(like(y, x)) if x != INF "
                                  "else exp(-0.5 * (y * y)) / sqrt(2.0 * pi(y))"),
         lib=SP("stdtr", D.mp_stdtr), special=("stdtr",), shapes=(0,),
         points=(("3", "0.7"), ("2.5", "-1.4"))),
    # their inverses in the probability q (the quantile functions): ∂q = ±1/density at the
    # result r (the sign: − where they invert a survival function), written in r, so that the
    # second derivative is the partial's own (through r); a shape argument is not differentiated.
    # At q = 0 or 1 r is the support's end, where the slope is 1/0 = inf or 1/inf = 0: xlogy and
    # xlog1py give it, but for r = inf (exp(inf − inf)), where it is ±INF
    Rule("gammaincinv", "gammaincinv(x, y)", ("no_derivative('gammaincinv', 'a', 'shape')",
                                              "exp(r - xlogy(like(y, x) - 1.0, r) + gammaln("
                                              "like(y, x))) if r != INF else INF"),
         lib=SP("gammaincinv", D.mp_gammaincinv, numpy_wrapper=X.weak_scalars),
         special=("gammaincinv",), shapes=(0,),
         points=(("2.5", "0.6"), ("0.6", "0.8"), ("1", "0.45"))),
    Rule("gammainccinv", "gammainccinv(x, y)", ("no_derivative('gammainccinv', 'a', 'shape')",
                                                "-exp(r - xlogy(like(y, x) - 1.0, r) + gammaln("
                                                "like(y, x))) if r != INF else -INF"),
         lib=SP("gammainccinv", D.mp_gammainccinv, numpy_wrapper=X.weak_scalars),
         special=("gammainccinv",), shapes=(0,),
         points=(("2.5", "0.6"), ("0.6", "0.8"), ("1", "0.45"))),
    # scipy's chdtri(v, p) inverts the survival function chdtrc: x = 2·gammainccinv(v/2, p)
    Rule("chdtri", "chdtri(x, y)", ("no_derivative('chdtri', 'v', 'shape')",
                                    "-2.0 * exp(0.5 * r - xlogy(0.5 * like(y, x) - 1.0, 0.5 * r) "
                                    "+ gammaln(0.5 * like(y, x))) if r != INF else -INF"),
         lib=SP("chdtri", D.mp_chdtri), special=("chdtri",), shapes=(0,),
         points=(("3", "0.3"), ("1.2", "0.8"), ("2", "0.45"))),
    # stdtrit(df, p) inverts stdtr: √ν B(ν/2, 1/2)(1 + r²/ν)^((ν+1)/2), the normal's for ν = inf
    Rule("stdtrit", "stdtrit(x, y)", ("no_derivative('stdtrit', 'df', 'shape')",
                                      "sqrt(like(y, x)) * exp(betaln(0.5 * like(y, x), 0.5) + "
                                      "(0.5 * like(y, x) + 0.5) * log1p(r * r / like(y, x))) "
                                      "if x != INF else sqrt(2.0 * pi(y)) * exp(0.5 * (r * r))"),
         lib=SP("stdtrit", D.mp_stdtrit, numpy_wrapper=_in_float64), special=("stdtrit",),
         shapes=(0,),
         points=(("3", "0.3"), ("2.5", "0.85"))),
    # the Poisson cdf Q(⌊k⌋ + 1, m): ∂m = −m^⌊k⌋ e^(−m)/⌊k⌋!; k is a count (an order)
    Rule("pdtr", "pdtr(x, y)", ("no_derivative('pdtr', 'k')",
                                "-exp(xlogy(floor(like(y, x)), y) - y - gammaln(floor(like(y, x)) + 1.0))"),
         lib=SP("pdtr", D.mp_pdtr), special=("pdtr",), orders=(0,),
         points=(("2", "1.3"), ("0", "0.6"), ("3.5", "2.2"))),
    # the Poisson survival function P(⌊k⌋ + 1, m): ∂m = +m^⌊k⌋ e^(−m)/⌊k⌋!
    Rule("pdtrc", "pdtrc(x, y)", ("no_derivative('pdtrc', 'k')",
                                  "exp(xlogy(floor(like(y, x)), y) - y - gammaln(floor(like(y, x)) + 1.0))"),
         lib=SP("pdtrc", D.mp_pdtrc), special=("pdtrc",), orders=(0,),
         points=(("2", "1.3"), ("0", "0.6"), ("3.5", "2.2"))),
    # Dawson's integral F(x) = e^(−x²)∫₀ˣ e^(t²) dt: F′ = 1 − 2xF, whose terms cancel for a large
    # x (F ~ 1/(2x)): from dawsn_far(x) (7.3 for floats, 5.8 for float32) its asymptotic series
    Rule("dawsn", "dawsn(x)", ("dawsn_slope_series(x) if abs(x) >= dawsn_far(x) else "
                               "1.0 - 2.0 * x * r",),
         lib=SP("dawsn", J.mp_dawsn), special=("dawsn",),
         points=(("0.6",), ("-1.4",), ("12.5",))),
    # scipy's real log Γ (nan for x < 0): ψ
    Rule("loggamma", "loggamma(x)", ("digamma(x) if x >= 0 else NAN",),
         lib=SP("loggamma", J.mp_loggamma, J.math_loggamma), special=("loggamma",),
         points=(("2.7",), ("0.4",))),
    # the Fresnel integrals S(x) = ∫₀ˣ sin(πt²/2) dt and C(x) = ∫₀ˣ cos(πt²/2) dt, and the sine
    # and cosine integrals Si, Ci: scipy's fresnel and sici give two outputs, a row each
    # (output=k).  Si′ = sin x/x, by sinc(x/π) near 0 (1 there, at every order); Ci′ = cos x/x
    # (scipy's Ci(x) is Ci(|x|), the real part)
    Rule("fresnel_s", "fresnel_s(x)", ("sin(0.5 * pi(x) * (x * x))",),
         lib=SP("fresnel", J.mp_fresnel_s, output=0), special=("fresnel",), output=0,
         points=(("0.7",), ("-1.6",))),
    Rule("fresnel_c", "fresnel_c(x)", ("cos(0.5 * pi(x) * (x * x))",),
         lib=SP("fresnel", J.mp_fresnel_c, output=1), special=("fresnel",), output=1,
         points=(("0.7",), ("-1.6",))),
    Rule("sici_si", "sici_si(x)", ("sin(x) / x if abs(x) > 1.0 else sinc(x / pi(x))",),
         lib=SP("sici", J.mp_si, output=0), special=("sici",), output=0,
         points=(("0.8",), ("-2.3",), ("0.3",))),
    Rule("sici_ci", "sici_ci(x)", ("cos(x) / x if x else INF",),
         lib=SP("sici", J.mp_ci, output=1), special=("sici",), output=1,
         points=(("0.8",), ("2.3",), ("-1.4",))),
    # ---- scipy.special's Bessel functions K₀, K₁, K_n, Y_v and the scaled ones -------------------
    # K₀′ = −K₁, K₁′ = −(K₀ + K₂)/2; k0e = K₀·eˣ: k0e′ = k0e − k1e, k1e′ = k1e − (k0e + kve(2, x))/2,
    # at x = 0 (inf − inf) the limit −inf as −k1e(0), −kve(2, 0) (kve's row; as there, the terms
    # cancel to ~1/(2x) of themselves for a large x); kn(n, x) = K_n(x), scipy truncating a
    # fractional n (n ± 1 truncates alike)
    Rule("k0", "k0(x)", ("-k1(x)",), lib=SP("k0", M.mp_k0), special=("k0",),
         points=(("0.8",), ("2.2",))),
    Rule("k1", "k1(x)", ("-0.5 * (k0(x) + kv(2, x))",), lib=SP("k1", M.mp_k1), special=("k1",),
         points=(("0.8",), ("2.2",))),
    Rule("k0e", "k0e(x)", ("r - k1e(x) if x else -k1e(x)",), lib=SP("k0e", M.mp_k0e),
         special=("k0e",), points=(("0.8",), ("1.6",))),
    Rule("k1e", "k1e(x)", ("r - 0.5 * (k0e(x) + kve(2, x)) if x else -kve(2, x)",),
         lib=SP("k1e", M.mp_k1e), special=("k1e",), points=(("0.8",), ("1.6",))),
    Rule("kn", "kn(x, y)", ("no_derivative('kn', 'n')", "-0.5 * (kn(x - 1, y) + kn(x + 1, y))"),
         lib=SP("kn", M.mp_kn, numpy_wrapper=X.weak_scalars), special=("kn",), orders=(0,),
         points=(("2", "1.3"), ("0", "0.7"), ("-1", "2.1"))),
    # Y_v′ = (Y_(v−1) − Y_(v+1))/2, at x = 0 the limit +inf as −Y_(v+1)(0) (scipy's Y_v(0) = −inf,
    # v ≥ 0); yve and jve are Y_v and J_v for a real x (scaled by e^(−|Im x|)): the same recurrence
    # (scipy's yve is nan at 0: so is its slope); jve at a tiny x as jn's row
    Rule("yv", "yv(x, y)", ("no_derivative('yv', 'v')",
                            "0.5 * (yv(x - 1, y) - yv(x + 1, y)) if y else -yv(x + 1, y)"),
         lib=SP("yv", M.mp_yv), special=("yv",), orders=(0,),
         points=(("1.5", "1.3"), ("0", "0.7"), ("-0.5", "2.1"))),
    Rule("yve", "yve(x, y)", ("no_derivative('yve', 'v')", "0.5 * (yve(x - 1, y) - yve(x + 1, y))"),
         lib=SP("yve", M.mp_yve), special=("yve",), orders=(0,),
         points=(("1.5", "1.3"), ("2", "0.7"))),
    Rule("jve", "jve(x, y)", ("no_derivative('jve', 'v')", "0.5 * (jve(x - 1, y) - jve(x + 1, y))"),
         lib=SP("jve", M.mp_jve, numpy_wrapper=X.jv_arrays, float_wrapper=X.jv_floats),
         special=("jve",), orders=(0,), points=(("1.5", "1.3"), ("0", "-0.7"), ("-2", "2.1"))),
    # ---- more of scipy.special's elementary and special functions --------------------------------
    Rule("exp10", "exp10(x)", ("r * log(like(x, 10))",), lib=SP("exp10", M.mp_exp10),
         special=("exp10",), points=(("0.7",), ("-1.3",))),
    # exprel = (eˣ − 1)/x = g(x) of Box-Cox: g′ = ((x − 1)eˣ + 1)/x², by its series for |x| < 2
    # (the closed form cancels near 0; ½ at 0), beyond as (eˣ(1 − 1/x) + 1/x)/x: no overflow of
    # x·eˣ, 0 at −inf; from x = 709, where math's exp overflows (OverflowError), as expi's
    Rule("exprel", "exprel(x)", ("expm1_ratio_slope(x) if not abs(x) >= 2.0 else ((exp(x) * (1.0 "
                                 "- 1.0 / x) + 1.0 / x) / x if x < 709.0 or mpf_based(x) else "
                                 "(exp(0.5 * x) * ((1.0 - 1.0 / x) / x * exp(0.5 * x)) if x < "
                                 "1419.0 else INF))",),
         lib=SP("exprel", M.mp_exprel), special=("exprel",),
         points=(("0.6",), ("-1.4",), ("3.5",), ("-4.2",))),
    # x^y − 1: ∂x as x**y's, ∂y = x^y·log x (0 at x = 0, nan for x < 0); x^y as in _POWM1_DX
    Rule("powm1", "powm1(x, y)", (_POWM1_DX, "(r + 1.0 if r > -0.5 else x ** y) * log(x) if x > 0 "
                                             "else (0.0 if x == 0 else NAN)"),
         lib=SP("powm1", M.mp_powm1), special=("powm1",),
         points=(("1.3", "2.5"), ("0.8", "-1.7"), ("1.01", "0.3"))),
    # the Huber loss of r at δ: r²/2 for |r| ≤ δ, δ(|r| − δ/2) beyond: ∂δ = 0, |r| − δ; ∂r = r,
    # δ·sign r (both continuous at |r| = δ; ∂δ inside as 0·r, nan for a nan r); scipy's value inf
    # for δ < 0, where the partials are nan; at δ = 0 the value is 0, ∂δ = |r| from the right
    Rule("huber", "huber(x, y)", ("(abs(y) - x if abs(y) > x else 0.0 * y) if x >= 0 else NAN",
                                  "(x * sign(y) if abs(y) > x else y) if x >= 0 else NAN"),
         lib=SP("huber", M.mp_huber), special=("huber",),
         points=(("1.3", "0.7"), ("0.6", "-1.9"), ("0.8", "1.5"))),
    # δ²(√(1 + (r/δ)²) − 1) = δh − δ², h = hypot(δ, r): ∂r = δr/h, ∂δ = (h − δ)²/h with h − δ =
    # r²/(h + δ) (no cancellation for a small r/δ); at δ = 0 (scipy's value 0) the limits from
    # the right, |r| and 0 (as δ·sign r: its δ-derivative sign r), nan for δ < 0
    Rule("pseudo_huber", "pseudo_huber(x, y)", (
        "square(y * y / (hypot(x, y) + x)) / hypot(x, y) if x > 0 else (abs(y) if x == 0 else NAN)",
        "x * y / hypot(x, y) if x > 0 else (x * sign(y) if x == 0 else NAN)"),
         lib=SP("pseudo_huber", M.mp_pseudo_huber), special=("pseudo_huber",),
         points=(("1.3", "0.7"), ("0.6", "-1.9"))),
    # erfi x = −i erf(ix): 2/√π·e^(x²), from x² = 709 (math's exp would raise) as expi's
    Rule("erfi", "erfi(x)", ("2.0 / sqrt(pi(x)) * exp(x * x) if not x * x >= 709.0 or mpf_based(x) "
                             "else (2.0 / sqrt(pi(x)) * exp(0.5 * (x * x)) * exp(0.5 * (x * x)) "
                             "if x * x < 1419.0 else INF)",), lib=SP("erfi", mpmath.erfi),
         special=("erfi",), points=(("0.6",), ("-1.4",))),
    # the complete elliptic integrals K(m), E(m): K′ = (E − (1 − m)K)/(2m(1 − m)), E′ = (E − K)/(2m),
    # 0/0 at m = 0 and cancelling near it (log₁₀(1/m) digits): for |m| < 1/2 their hypergeometric
    # forms K′ = (π/8)·₂F₁(3/2, 3/2; 2; m), E′ = −(π/8)·₂F₁(1/2, 3/2; 2; m) (π/8 and −π/8 at 0);
    # K′(1) = inf, nan beyond.  ellipkm1(p) = K(1 − p): −K′(1 − p), with p·K(1 − p) its own value
    # (exact for a tiny p, where 1 − p rounds), −inf at p = 0
    Rule("ellipk", "ellipk(x)", ("pi(x) / 8.0 * hyp2f1(1.5, 1.5, 2.0, x) if abs(x) < 0.5 else "
                                 "((ellipe(x) - (1.0 - x) * r) / (2.0 * x * (1.0 - x)) if x < 1 "
                                 "else (INF if x == 1 else NAN))",),
         lib=SP("ellipk", P.mp_ellipk), special=("ellipk",),
         points=(("0.3",), ("0.8",), ("-1.7",))),
    Rule("ellipe", "ellipe(x)", ("-pi(x) / 8.0 * hyp2f1(0.5, 1.5, 2.0, x) if abs(x) < 0.5 else "
                                 "(r - ellipk(x)) / (2.0 * x)",),
         lib=SP("ellipe", P.mp_ellipe), special=("ellipe",),
         points=(("0.3",), ("0.8",), ("-1.7",))),
    Rule("ellipkm1", "ellipkm1(x)", ("-pi(x) / 8.0 * hyp2f1(1.5, 1.5, 2.0, 1.0 - x) if abs(1.0 - x) "
                                     "< 0.5 else ((x * r - ellipe(1.0 - x)) / (2.0 * x * (1.0 - x)) "
                                     "if x > 0 else (-INF if x == 0 else NAN))",),
         lib=SP("ellipkm1", P.mp_ellipkm1), special=("ellipkm1",),
         points=(("0.3",), ("0.8",), ("2.5",))),
    # ndtri_exp(y) = Φ⁻¹(eʸ), the inverse of log_ndtr: ∂y = Φ(r)/φ(r) = √(2π)·e^(r²/2 + y) for
    # r ≥ 0; below, where r²/2 + y cancels, 1/log_ndtr′(r) as log_ndtr's row computes it (erfcx,
    # then the Mills ratio's continued fraction below −5): 0 at y = −inf, inf at 0 (and where
    # the exponent passes 709: it overflows, and math's exp would raise)
    Rule("ndtri_exp", "ndtri_exp(x)", ("(sqrt(2.0 * pi(x)) * exp(0.5 * (r * r) + x) if 0.5 * (r * r) "
                                       "+ x < 709.0 or mpf_based(x) else INF) if r >= 0 else "
                                       "(1.0 / mills_fraction(-r) if r < -5.0 else sqrt(0.5 * "
                                       "pi(x)) * erfcx(-r / sqrt(like(x, 2))))",),
         lib=SP("ndtri_exp", M.mp_ndtri_exp), special=("ndtri_exp",),
         points=(("-0.3",), ("-2.5",), ("-20",))),
    Rule("inv_boxcox", "inv_boxcox(x, y)", (_INV_BOX_DX.format(X="r"), _INV_BOX_DY.format(
        X="r", L="log1p(inv_boxcox1p(x, y))")),
         lib=SP("inv_boxcox", M.mp_inv_boxcox), special=("inv_boxcox",),
         points=(("1.7", "0.6"), ("0.4", "-1.3"), ("2.5", "0"), ("3.5", "2.5"))),
    Rule("inv_boxcox1p", "inv_boxcox1p(x, y)", (_INV_BOX_DX.format(X="(r + 1.0)"), _INV_BOX_DY.format(
        X="(r + 1.0)", L="log1p(r)")),
         lib=SP("inv_boxcox1p", M.mp_inv_boxcox1p, numpy_wrapper=M.inv_boxcox1p_tiny_arrays,
                float_wrapper=M.inv_boxcox1p_tiny_floats), special=("inv_boxcox1p",),
         points=(("0.7", "0.6"), ("-0.4", "-1.3"), ("1.5", "0"), ("3.5", "2.5"))),
    # ---- orthogonal polynomials of degree n (an order): scipy's eval_* (base functions:
    # core/special_poly.py); the degree's int loop in scipy is float64 (weak_scalars)
    # P_n′ = (n + 1)/2·P_(n−1)^(1,1); the shifted P_n(2x − 1) twice that at 2x − 1
    Rule("eval_legendre", "eval_legendre(x, y)", ("no_derivative('eval_legendre', 'n')",
                                                  _LEGENDRE_DX.format(c="0.5 * ", t="y")),
         lib=SP("eval_legendre", P.mp_eval_legendre, numpy_wrapper=X.weak_scalars),
         special=("eval_legendre",), orders=(0,),
         points=(("3", "0.4"), ("2.5", "0.6"), ("-3", "-0.7"))),
    Rule("eval_sh_legendre", "eval_sh_legendre(x, y)", (
        "no_derivative('eval_sh_legendre', 'n')", _LEGENDRE_DX.format(c="", t="2.0 * y - 1.0")),
         lib=SP("eval_sh_legendre", P.mp_eval_sh_legendre, numpy_wrapper=X.weak_scalars),
         special=("eval_sh_legendre",), orders=(0,), points=(("3", "0.4"), ("2.5", "0.8"))),
    # T_n′ = n·U_(n−1); U_n′ = 2·C_(n−1)^(2); C_n(x) = 2T_n(x/2): n·S_(n−1); S_n(x) = U_n(x/2):
    # C_(n−1)^(2)(x/2); the shifted T_n(2x − 1), U_n(2x − 1): 2n·U_(n−1)(2x − 1), 4·C_(n−1)^(2)(2x − 1)
    Rule("eval_chebyt", "eval_chebyt(x, y)", ("no_derivative('eval_chebyt', 'n')",
                                              "0.0 if x == 0 else like(y, x) * eval_chebyu(x - 1, y)"),
         lib=SP("eval_chebyt", P.mp_eval_chebyt, numpy_wrapper=X.weak_scalars),
         special=("eval_chebyt",), orders=(0,),
         points=(("3", "0.4"), ("2.5", "-0.6"), ("-2", "0.7"))),
    Rule("eval_chebyu", "eval_chebyu(x, y)", ("no_derivative('eval_chebyu', 'n')",
                                              _CHEBYU_DX.format(c="2.0", t="y")),
         lib=SP("eval_chebyu", P.mp_eval_chebyu, numpy_wrapper=X.weak_scalars),
         special=("eval_chebyu",), orders=(0,),
         points=(("3", "0.4"), ("2.5", "-0.6"), ("-4", "0.7"))),
    Rule("eval_chebyc", "eval_chebyc(x, y)", ("no_derivative('eval_chebyc', 'n')",
                                              "0.0 if x == 0 else like(y, x) * eval_chebys(x - 1, y)"),
         lib=SP("eval_chebyc", P.mp_eval_chebyc, numpy_wrapper=X.weak_scalars),
         special=("eval_chebyc",), orders=(0,), points=(("3", "0.8"), ("2.5", "1.3"))),
    Rule("eval_chebys", "eval_chebys(x, y)", ("no_derivative('eval_chebys', 'n')",
                                              _CHEBYU_DX.format(c="1.0", t="0.5 * y")),
         lib=SP("eval_chebys", P.mp_eval_chebys, numpy_wrapper=X.weak_scalars),
         special=("eval_chebys",), orders=(0,), points=(("3", "0.8"), ("-4", "1.3"))),
    Rule("eval_sh_chebyt", "eval_sh_chebyt(x, y)", (
        "no_derivative('eval_sh_chebyt', 'n')",
        "0.0 if x == 0 else 2.0 * like(y, x) * eval_sh_chebyu(x - 1, y)"),
         lib=SP("eval_sh_chebyt", P.mp_eval_sh_chebyt, numpy_wrapper=X.weak_scalars),
         special=("eval_sh_chebyt",), orders=(0,), points=(("3", "0.4"), ("2.5", "0.8"))),
    Rule("eval_sh_chebyu", "eval_sh_chebyu(x, y)", ("no_derivative('eval_sh_chebyu', 'n')",
                                                    _CHEBYU_DX.format(c="4.0", t="2.0 * y - 1.0")),
         lib=SP("eval_sh_chebyu", P.mp_eval_sh_chebyu, numpy_wrapper=X.weak_scalars),
         special=("eval_sh_chebyu",), orders=(0,), points=(("3", "0.4"), ("2.5", "0.8"))),
    # L_n′ = −L_(n−1)^(1)
    Rule("eval_laguerre", "eval_laguerre(x, y)", ("no_derivative('eval_laguerre', 'n')",
                                                  "0.0 if x == 0 else -eval_genlaguerre(x - 1, 1.0, y)"),
         lib=SP("eval_laguerre", P.mp_eval_laguerre, numpy_wrapper=X.weak_scalars),
         special=("eval_laguerre",), orders=(0,), points=(("3", "0.8"), ("2.5", "1.7"))),
    # ---- three arguments -----------------------------------------------------------------------
    # the regularized incomplete beta function I_x(a, b): ∂x = x^(a−1)(1 − x)^(b−1)/B(a, b), as
    # exp((a − 1)·log x + (b − 1)·log(1 − x) − log B(a, b)) (0·log 0 = 0 at the ends for a or b
    # = 1); a and b are shape arguments, not differentiated (nor by autograd)
    Rule("betainc", "betainc(x, y, z)", ("no_derivative('betainc', 'a', 'shape')",
                                         "no_derivative('betainc', 'b', 'shape')",
                                         "exp(xlogy(like(z, x) - 1.0, z) + xlog1py(like(z, y) - 1.0, -z) "
                                         "- betaln(like(z, x), like(z, y)))"),
         lib=SP("betainc", D.mp_betainc), special=("betainc",), shapes=(0, 1),
         points=(("2.5", "1.5", "0.3"), ("0.7", "2.2", "0.6"), ("1", "1", "0.4"))),
    # its complement 1 − I_x(a, b) (scipy's betaincc, computed as the upper tail): −∂x of betainc
    Rule("betaincc", "betaincc(x, y, z)", ("no_derivative('betaincc', 'a', 'shape')",
                                           "no_derivative('betaincc', 'b', 'shape')",
                                           "-exp(xlogy(like(z, x) - 1.0, z) + xlog1py(like(z, y) - 1.0, -z) "
                                           "- betaln(like(z, x), like(z, y)))"),
         lib=SP("betaincc", D.mp_betaincc), special=("betaincc",), shapes=(0, 1),
         points=(("2.5", "1.5", "0.3"), ("0.7", "2.2", "0.6"), ("1", "1", "0.4"))),
    # their inverses in y: ∂y = ±B(a, b)/(r^(a−1)(1 − r)^(b−1)), as exp(log B(a, b) − (a − 1)·log r
    # − (b − 1)·log(1 − r)): inf or 0 at the ends r = 0, 1 (y = 0, 1), from xlogy and xlog1py
    Rule("betaincinv", "betaincinv(x, y, z)", ("no_derivative('betaincinv', 'a', 'shape')",
                                               "no_derivative('betaincinv', 'b', 'shape')",
                                               "exp(betaln(like(z, x), like(z, y)) - xlogy("
                                               "like(z, x) - 1.0, r) - xlog1py(like(z, y) - 1.0, "
                                               "-r))"),
         lib=SP("betaincinv", D.mp_betaincinv), special=("betaincinv",), shapes=(0, 1),
         points=(("2.5", "1.5", "0.3"), ("0.7", "2.2", "0.6"), ("1", "1", "0.4"))),
    Rule("betainccinv", "betainccinv(x, y, z)", ("no_derivative('betainccinv', 'a', 'shape')",
                                                 "no_derivative('betainccinv', 'b', 'shape')",
                                                 "-exp(betaln(like(z, x), like(z, y)) - xlogy("
                                                 "like(z, x) - 1.0, r) - xlog1py(like(z, y) - 1.0, "
                                                 "-r))"),
         lib=SP("betainccinv", D.mp_betainccinv), special=("betainccinv",), shapes=(0, 1),
         points=(("2.5", "1.5", "0.3"), ("0.7", "2.2", "0.6"), ("1", "1", "0.4"))),
    # Kummer's ₁F₁(a; b; x): ∂x = (a/b)·₁F₁(a + 1; b + 1; x); a and b are shape arguments, not
    # differentiated (the derivatives in them are no hypergeometric function of this kind)
    Rule("hyp1f1", "hyp1f1(x, y, z)", ("no_derivative('hyp1f1', 'a', 'shape')",
                                       "no_derivative('hyp1f1', 'b', 'shape')",
                                       "like(z, x) / like(z, y) * hyp1f1(like(z, x) + 1.0, "
                                       "like(z, y) + 1.0, z)"),
         lib=SP("hyp1f1", J.mp_hyp1f1), special=("hyp1f1",), shapes=(0, 1),
         points=(("0.7", "1.6", "0.9"), ("-1.3", "2.5", "-1.1"), ("2", "3", "0.4"))),
    # Gegenbauer's C_n^(α)′ = 2α·C_(n−1)^(α+1) (scipy's C_n^(0) is 0 for n ≥ 1: so is this), the
    # generalized Laguerre L_n^(α)′ = −L_(n−1)^(α+1) (nan for α ≤ −1, as scipy's value); α a shape
    # argument, n an order
    Rule("eval_gegenbauer", "eval_gegenbauer(x, y, z)", (
        "no_derivative('eval_gegenbauer', 'n')",
        "no_derivative('eval_gegenbauer', 'alpha', 'shape')",
        "0.0 if x == 0 else 2.0 * like(z, y) * eval_gegenbauer(x - 1, like(z, y) + 1.0, z)"),
         lib=SP("eval_gegenbauer", P.mp_eval_gegenbauer, numpy_wrapper=X.weak_scalars),
         special=("eval_gegenbauer",), orders=(0,), shapes=(1,),
         points=(("3", "0.7", "0.4"), ("2.5", "1.5", "0.3"), ("2", "0", "0.6"))),
    Rule("eval_genlaguerre", "eval_genlaguerre(x, y, z)", (
        "no_derivative('eval_genlaguerre', 'n')",
        "no_derivative('eval_genlaguerre', 'alpha', 'shape')",
        "(0.0 if x == 0 else -eval_genlaguerre(x - 1, like(z, y) + 1.0, z)) if y > -1 else NAN"),
         lib=SP("eval_genlaguerre", P.mp_eval_genlaguerre, numpy_wrapper=X.weak_scalars),
         special=("eval_genlaguerre",), orders=(0,), shapes=(1,),
         points=(("3", "0.5", "0.8"), ("2.5", "1.5", "1.7"), ("2", "-0.5", "0.3"))),
    # ---- four arguments ------------------------------------------------------------------------
    # Gauss's ₂F₁(a, b; c; x): ∂x = (ab/c)·₂F₁(a + 1, b + 1; c + 1; x); a, b, c shape arguments
    Rule("hyp2f1", "hyp2f1(x, y, z, w)", ("no_derivative('hyp2f1', 'a', 'shape')",
                                          "no_derivative('hyp2f1', 'b', 'shape')",
                                          "no_derivative('hyp2f1', 'c', 'shape')",
                                          "like(w, x) * like(w, y) / like(w, z) * hyp2f1("
                                          "like(w, x) + 1.0, like(w, y) + 1.0, like(w, z) + 1.0, "
                                          "w)"),
         lib=SP("hyp2f1", J.mp_hyp2f1, numpy_wrapper=X.weak_scalars), special=("hyp2f1",),
         shapes=(0, 1, 2), points=(("0.7", "1.6", "2.3", "0.4"), ("-1.3", "0.5", "1.5", "-0.6"),
                                   ("1", "1", "2", "0.7"))),
    # Jacobi's P_n^(α,β)′ = (n + α + β + 1)/2·P_(n−1)^(α+1,β+1); scipy's shifted Jacobi G_n^(p,q)(x) =
    # P_n^(p−q,q−1)(2x − 1)/binom(2n + p − 1, n), whose slope is n·G_(n−1)^(p+2,q+1)(x)
    Rule("eval_jacobi", "eval_jacobi(x, y, z, w)", (
        "no_derivative('eval_jacobi', 'n')", "no_derivative('eval_jacobi', 'alpha', 'shape')",
        "no_derivative('eval_jacobi', 'beta', 'shape')",
        "0.0 if x == 0 else 0.5 * (like(w, x) + like(w, y) + like(w, z) + 1.0) * eval_jacobi("
        "x - 1, like(w, y) + 1.0, like(w, z) + 1.0, w)"),
         lib=SP("eval_jacobi", P.mp_eval_jacobi, numpy_wrapper=X.weak_scalars),
         special=("eval_jacobi",), orders=(0,), shapes=(1, 2),
         points=(("3", "0.5", "0.7", "0.4"), ("2.5", "1.5", "0.3", "-0.3"))),
    Rule("eval_sh_jacobi", "eval_sh_jacobi(x, y, z, w)", (
        "no_derivative('eval_sh_jacobi', 'n')", "no_derivative('eval_sh_jacobi', 'p', 'shape')",
        "no_derivative('eval_sh_jacobi', 'q', 'shape')",
        "0.0 if x == 0 else like(w, x) * eval_sh_jacobi(x - 1, like(w, y) + 2.0, like(w, z) + 1.0, "
        "w)"),
         lib=SP("eval_sh_jacobi", P.mp_eval_sh_jacobi, numpy_wrapper=X.weak_scalars),
         special=("eval_sh_jacobi",), orders=(0,), shapes=(1, 2),
         points=(("3", "2.5", "0.7", "0.4"), ("2.5", "1.5", "0.8", "0.7"))),
    # ---- piecewise constant: derivative 0 at every order, the result is a base number ----------
    Rule("floordiv", "floordiv(x, y)", arity=2, ufuncs=("floor_divide",), dunders=("__floordiv__",),
         lib=(operator.floordiv, operator.floordiv,
              lambda x, y: mpmath.floor(mpmath.mpf(x) / y))),
    Rule("sign", "sign(x)", arity=1, lib=(_sign_math, np.sign, mpmath.sign), ufuncs=("sign",)),
    Rule("floor", "floor(x)", arity=1, lib=(_rounding(np.floor), np.floor, mpmath.floor),
         ufuncs=("floor",)),
    Rule("ceil", "ceil(x)", arity=1, lib=(_rounding(np.ceil), np.ceil, mpmath.ceil),
         ufuncs=("ceil",)),
    Rule("trunc", "trunc(x)", arity=1, lib=(_rounding(np.trunc), np.trunc,
                                            lambda x: mpmath.mpf(int(x))), ufuncs=("trunc",)),
    Rule("round", "round(x)", arity=1, lib=(_rounding(np.rint), np.round,
                                            lambda x: mpmath.mpf(round(x))), ufuncs=("rint",)),
    Rule("int", "int(x)", arity=1, lib=(int, int, int)),
    # the sign of Γ(x), scipy's values: 1 for x ≥ +0, −1 at −0.0, nan at the poles
    Rule("gammasgn", "gammasgn(x)", arity=1, lib=SP("gammasgn", X.mp_gammasgn, X.math_gammasgn),
         special=("gammasgn",)),
]
RULES = {rule.name: rule for rule in TABLE}


def _outputs():
    found = {}
    for rule in TABLE:
        if rule.output is not None:
            for name in rule.special:
                found.setdefault(name, {})[rule.output] = rule.name
    return {name: tuple(rows[k] for k in sorted(rows)) for name, rows in found.items()}


# scipy's ufuncs of several outputs: {its name: its rows' names, in output order}.  dvlad.<name>
# returns the tuple of the rows' values, and scipy's ufunc on an AD number calls it
# (dvlad.numbers.outputs)
OUTPUTS = _outputs()
