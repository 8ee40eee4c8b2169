"""Base functions of the rule table's later scipy.special rows (scipy's names): the entropies,
the log of the logistic function, the exponentially scaled functions, the exponential integrals,
Spence's function, the Hurwitz zeta function and the modified Bessel function of the second
kind.  Their mpf family is mpmath at the working precision; for floats where math has what they
need, a math function; else scipy's function (:func:`dvlad.core.special.lib`, which also gives
the numpy family).

Values at the edges are scipy's: ``entr(0) = 0`` and −inf for x < 0; ``rel_entr`` and
``kl_div`` 0 and y at x = 0 (y ≥ 0), inf outside x, y > 0; ``exp1(0) = inf``, nan for x < 0;
``expi(0) = −inf``; Spence's function nan for z < 0 and at inf; ``zeta(x, q)`` inf at x = 1 and
at the poles q = 0, −1, ..., nan for x < 1 and for a negative q with a fractional x; ``kv``
and ``kve`` inf at x = 0, nan for x < 0, ``kv`` 0 and ``kve`` nan at x = inf.
"""
import math

import mpmath

from .base import INF, MPF
from .special_jax import _base, _bits

_MINF = -INF


# ---- floats: math's functions, scipy's formulas ------------------------------------------------

def math_entr(x):
    if x > 0:
        return -x * math.log(x)
    return 0.0 if x == 0 else (x if x != x else _MINF)


def math_log_expit(x):
    """log σ(x) as scipy computes it: x − log1p(eˣ) for x < 0, −log1p(e⁻ˣ) else (no overflow)."""
    if x < 0:
        return x - math.log1p(math.exp(x))
    return -math.log1p(math.exp(-x))


# ---- the mpf family ----------------------------------------------------------------------------

def mp_entr(x):
    if x > 0:
        return -x * mpmath.log(x)
    return mpmath.mpf(0) if x == 0 else (x if x != x else -mpmath.inf)


def mp_rel_entr(x, y):
    if x > 0 and y > 0:
        return x * mpmath.log(x / y)
    if x == 0 and y >= 0:
        return mpmath.mpf(0)
    return mpmath.nan if x != x or y != y else mpmath.inf


def mp_kl_div(x, y):
    if x > 0 and y > 0:
        return x * mpmath.log(x / y) - x + y
    if x == 0 and y >= 0:
        return mpmath.mpf(y)
    return mpmath.nan if x != x or y != y else mpmath.inf


def mp_cosm1(x):
    """cos x − 1 without the cancellation near 0: −2 sin²(x/2)."""
    return -2 * mpmath.sin(x / 2) ** 2


def mp_log_expit(x):
    if x < 0:
        return x - mpmath.log1p(mpmath.exp(x))
    return -mpmath.log1p(mpmath.exp(-x))


def _scaled_bessel(n, x):
    """I_n(x)·e^(−|x|), n = 0 or 1; 0 with x's sign at ±inf, as scipy (mpmath: inf·0)."""
    if abs(x) == mpmath.inf:
        return mpmath.mpf(0) if n == 0 else mpmath.mpf(0) * mpmath.sign(x)
    return mpmath.besseli(n, x) * mpmath.exp(-abs(x))


def mp_i0e(x):
    return _scaled_bessel(0, x)


def mp_i1e(x):
    return _scaled_bessel(1, x)


def mp_erfcx(x):
    """e^(x²)·erfc x (mpmath's exponents do not overflow); above x = 1e8, where mpmath's erfc
    gives up (OverflowError at 1e300), its asymptotic series 1/(x√π)·Σₖ (−1)ᵏ(2k − 1)!!/(2x²)ᵏ,
    each term 1e-16 of the one before."""
    if x <= 1e8:
        return mpmath.exp(x * x) * mpmath.erfc(x)
    if x == mpmath.inf:
        return mpmath.mpf(0)
    total = term = 1 / (x * mpmath.sqrt(mpmath.pi))
    k, eps = 1, mpmath.eps * abs(total)
    while abs(term) > eps:
        term *= -(2 * k - 1) / (2 * x * x)
        total += term
        k += 1
    return total


def mp_exp1(x):
    """E₁(x) = ∫ₓ^∞ e⁻ᵗ/t dt for x > 0 (mpmath's is complex for x < 0: scipy's nan)."""
    if x > 0:
        return mpmath.e1(x)
    return mpmath.inf if x == 0 else mpmath.nan


def mp_expi(x):
    """Ei(x), the principal value; −inf at 0 as scipy."""
    return -mpmath.inf if x == 0 else mpmath.ei(x)


def mp_spence(z):
    """scipy's spence(z) = ∫₁^z log t/(1 − t) dt = Li₂(1 − z) for z ≥ 0 (nan below and at inf,
    as scipy)."""
    if not 0 <= z < mpmath.inf:
        return mpmath.nan
    return mpmath.polylog(2, 1 - mpmath.mpf(z))


def mp_zeta(x, q):
    """The Hurwitz zeta function Σₙ (n + q)^(−x), with scipy's values: nan for x < 1, inf at
    x = 1 and at the poles q = 0, −1, −2, ..., nan for q < 0 with a fractional x (complex), 0
    at q = inf."""
    if x != x or q != q or x < 1:
        return mpmath.nan
    if x == 1 or (q <= 0 and q == mpmath.floor(q)):
        return mpmath.inf
    if x == mpmath.inf:                  # scipy's: 1 at q = 1, inf below, nan above (mpmath: 1)
        return mpmath.inf if q < 1 else (mpmath.mpf(1) if q == 1 else mpmath.nan)
    if q == mpmath.inf:
        return mpmath.mpf(0)             # (mpmath's series would never end)
    if q < 0 and x != mpmath.floor(x):
        return mpmath.nan
    return mpmath.zeta(x, q)


def mp_kv(v, x):
    """K_v(x), real for x > 0, with scipy's values at the edges: inf at x = 0 (any order), nan
    for x < 0 (mpmath's is complex), 0 at x = inf (nan for an infinite or nan order)."""
    if x != x or x < 0:
        return mpmath.nan
    if x == 0:
        return mpmath.inf
    if v != v or abs(v) == mpmath.inf:
        return mpmath.nan
    if x == mpmath.inf:
        return mpmath.mpf(0)             # (mpmath's asymptotic series would not converge)
    return mpmath.besselk(v, x)


def mp_kve(v, x):
    """K_v(x)·eˣ (mpmath's exponents do not overflow); nan at x = inf, as scipy (0·inf)."""
    if x == mpmath.inf:
        return mpmath.nan
    return mp_kv(v, x) * mpmath.exp(x)


# ---- the exponentially scaled Bessel functions' slopes far out ---------------------------------

def bessel_far(x):
    """Where i0e's and i1e's slopes take Hankel's series: |x| ≥ T = 0.36·p + 2 at a precision of
    p bits (21 for floats, 11 for float32, 63 for an mpf at 50 digits), where its smallest term,
    ~e^(−2|x|), is below the precision.  Nearer 0 the formulas i1e − sign(x)·i0e and
    (i0e + ive(2, ·))/2 − sign(x)·i1e lose log₁₀(2|x|) digits at each order (0.24 of the 3rd
    derivative at 1e5)."""
    return 0.36 * _bits(x) + 2.0


def bessel_slope_series(n, x):
    """(I_n(x)e^(−|x|))′, n = 0 or 1, for |x| ≥ bessel_far(x): Hankel's expansion I_n(t)e^(−t) ~
    (2πt)^(−1/2) Σₖ cₖ t^(−k), cₖ = −cₖ₋₁(4n² − (2k − 1)²)/(8k), differentiated term by term:
    −(2π)^(−1/2) Σₖ (k + ½) cₖ t^(−k−3/2), t = |x|, to ⌊2T⌋ terms (odd in x for n = 0, even
    for n = 1).  Its own derivatives are the derivatives of the slope, without the formulas'
    cancellation.  Exact rationals in an mpf's precision; written in arithmetic, so it nests."""
    one = mpmath.mpf(1) if type(_base(x)) is MPF else 1.0
    t = abs(x)
    u = one / t
    coefficients, c = [], one
    for k in range(int(2 * bessel_far(x)) + 1):
        if k:
            c = -c * (4 * n * n - (2 * k - 1) ** 2) / (8 * k)
        coefficients.append(-(k + 0.5) * c)
    s = 0.0 * u
    for d in reversed(coefficients):
        s = s * u + d
    root = mpmath.sqrt(2 * mpmath.pi) if type(one) is MPF else math.sqrt(2 * math.pi)
    slope = s * u * u ** 0.5 / root
    return slope if n else slope * (x / t)
