"""Base functions of the rule table's scipy.special rows that jax.scipy.special differentiates
(issue #17): the Box-Cox transforms, Dawson's integral, the exponential integrals E_n, the Fresnel
and sine/cosine integrals (one row per output of scipy's fresnel and sici), the confluent and
Gauss hypergeometric functions, the real log-gamma function and Owen's T function; and the series
some of their partials take where the closed form cancels.

Their mpf family is mpmath at the working precision (Owen's T by quadrature); for floats, math
where it has what scipy's formula needs (boxcox, boxcox1p, loggamma), else scipy's ufunc
(:func:`dvlad.core.special.lib`).  Values at the edges are scipy's: ``boxcox(0, λ)`` is −1/λ for
λ > 0 and −inf for λ ≤ 0, nan for x < 0 (boxcox1p likewise at x = −1); ``expn(n, x)`` truncates
n, nan for n < 0 or x < 0, ``expn(n, 0)`` = 1/(n − 1), inf for n ≤ 1; ``sici``'s Ci is Ci(|x|)
(the real part), −inf at 0 and nan at −inf; ``loggamma`` is inf at 0 and nan for x < 0;
``hyp1f1(a, b, x)`` and ``hyp2f1(a, b, c, x)`` are inf at a pole b or c = −m unless the series
ends first (a = −n, −m ≤ −n < 0), and ``hyp2f1`` is inf past x = 1 where it is not real.
"""
import math

import mpmath
import numpy as np

from .base import INF, MPF, NAN, concrete
from .number import ADNumber


def _base(x):
    """x's base number, under every AD layer."""
    while isinstance(x, ADNumber):
        x = x.primal
    return concrete(x)


def _mpf_based(x):
    return type(_base(x)) is MPF


def _bits(x):
    """The precision x computes in, in bits: mpmath's working precision for an mpf, numpy's
    for a float32 (24) or float16 array, else 53."""
    b = _base(x)
    if type(b) is MPF:
        return mpmath.mp.prec
    kind = getattr(b, "dtype", None)
    return np.finfo(kind).nmant + 1 if kind is not None and kind.kind == "f" else 53


# ---- floats: scipy's formulas in math's functions ---------------------------------------------

def _box(log_x, lmbda):
    """scipy's Box-Cox step from log x (or log1p x): log x itself for |λ| < 1e-19, else
    expm1(λ log x)/λ (±inf where math's expm1 overflows)."""
    if abs(lmbda) < 1e-19:
        return log_x
    try:
        return math.expm1(lmbda * log_x) / lmbda
    except OverflowError:
        return math.copysign(INF, lmbda)


def math_boxcox(x, lmbda):
    if not x >= 0:
        return NAN
    return _box(math.log(x) if x else -INF, lmbda)


def math_boxcox1p(x, lmbda):
    if not x >= -1:
        return NAN
    lg = math.log1p(x) if x != -1 else -INF
    if abs(lg) < 1e-289 and abs(lmbda) < 1e273:       # (scipy's test: log1p x is the value)
        return lg
    return _box(lg, lmbda)


def math_loggamma(x):
    """log Γ(x) for real x ≥ 0: inf at 0, nan for x < 0 (scipy's real loggamma)."""
    if not x >= 0:
        return NAN
    return INF if x == 0 else math.lgamma(x)


# ---- the mpf family ----------------------------------------------------------------------------

def mp_boxcox(x, lmbda):
    if not x >= 0 or lmbda != lmbda:
        return mpmath.nan
    return _mp_box(mpmath.log(x) if x else -mpmath.inf, lmbda)


def mp_boxcox1p(x, lmbda):
    if not x >= -1 or lmbda != lmbda:
        return mpmath.nan
    return _mp_box(mpmath.log1p(x) if x != -1 else -mpmath.inf, lmbda)


def _mp_box(log_x, lmbda):
    if lmbda == 0:
        return mpmath.mpf(log_x)
    return mpmath.expm1(lmbda * log_x) / lmbda


def mp_dawsn(x):
    """Dawson's integral F(x) = e^(−x²)∫₀ˣ e^(t²) dt = (√π/2)·e^(−x²)·erfi(x); 0 at ±inf."""
    if not abs(x) < mpmath.inf:
        return mpmath.mpf(0) * mpmath.sign(x) if x == x else mpmath.nan
    return mpmath.sqrt(mpmath.pi) / 2 * mpmath.exp(-x * x) * mpmath.erfi(x)


def mp_expn(n, x):
    """E_n(x) = ∫₁^∞ e^(−xt)/tⁿ dt, n truncated to an integer as scipy's (nan past its C int)."""
    if not abs(n) < 2 ** 31 or x != x:
        return mpmath.nan
    n = int(n)
    if n < 0 or x < 0:
        return mpmath.nan
    if x == 0:
        return mpmath.inf if n <= 1 else mpmath.mpf(1) / (n - 1)
    return mpmath.mpf(0) if x == mpmath.inf else mpmath.expint(n, x)


def _nan_kept(f):
    """mpmath's f, with nan for nan (mpmath's fresnels and si raise a TypeError)."""
    def g(x):
        return mpmath.nan if x != x else f(x)
    g.__name__ = "mp_" + f.__name__
    return g


mp_fresnel_s, mp_fresnel_c, mp_si = (_nan_kept(f) for f in (mpmath.fresnels, mpmath.fresnelc,
                                                           mpmath.si))


def mp_ci(x):
    """Ci(|x|), the real part of Ci(x), as scipy's sici: −inf at 0, nan at −inf."""
    if x == 0:
        return -mpmath.inf
    return mpmath.nan if not x > -mpmath.inf else mpmath.ci(abs(x))


def mp_loggamma(x):
    if not x >= 0:
        return mpmath.nan
    return mpmath.inf if x == 0 else mpmath.loggamma(x)


def _owens_quad(h, a):
    """(1/2π)∫₀^a e^(−h²(1+t²)/2)/(1 + t²) dt for 0 ≤ a ≤ 1, by quadrature (extra digits)."""
    with mpmath.extradps(10):
        f = lambda t: mpmath.exp(-h * h * (1 + t * t) / 2) / (1 + t * t)       # noqa: E731
        return mpmath.quad(f, [0, a]) / (2 * mpmath.pi)


def mp_owens_t(h, a):
    """Owen's T(h, a), even in h and odd in a: by quadrature for |a| ≤ 1; beyond, Owen's (1956)
    T(h, a) = (Q(h) + Q(ah))/2 − Q(h)Q(ah) − T(ah, 1/a) with Q = 1 − Φ (h ≥ 0, a > 1), whose
    terms do not cancel (T(h, a) → Q(h)/2 as a → ∞)."""
    if h != h or a != a:
        return mpmath.nan
    odd, h, a = (-1 if a < 0 else 1), abs(mpmath.mpf(h)), abs(mpmath.mpf(a))
    if a == 0 or h == mpmath.inf:
        return mpmath.mpf(0)
    if a <= 1:
        return odd * _owens_quad(h, a)
    with mpmath.extradps(10):
        q, qa = mpmath.erfc(h / mpmath.sqrt(2)) / 2, mpmath.erfc(a * h / mpmath.sqrt(2)) / 2
        r = q / 2 if a == mpmath.inf else (q + qa) / 2 - q * qa - _owens_quad(a * h, 1 / a)
    return odd * r                       # (rounded to the working precision)


def _ends(p, pole):
    """Whether a hypergeometric series with the numerator parameter p ends before the pole
    (a denominator parameter −m): p = −n, −m ≤ −n < 0."""
    return p < 0 and p == mpmath.floor(p) and p >= pole


def _at_pole(c):
    return c <= 0 and c == mpmath.floor(c)


# a series that sums to 0 exactly (₁F₁(½; −½; ½) = (1 − 2z)eᶻ at z = ½) never converges in
# relative terms: mpmath raised (ValueError in 1.3, NoConvergence in 1.4); below 2^(−8·prec) 0
_ZEROPREC = 8


def mp_hyp1f1(a, b, x):
    """Kummer's ₁F₁(a; b; x) (mpmath's), scipy's inf at a pole b = −m the series does not end
    before."""
    if _at_pole(b) and not _ends(a, b):
        return mpmath.inf
    return mpmath.hyp1f1(a, b, x, zeroprec=_ZEROPREC * mpmath.mp.prec)


def mp_hyp2f1(a, b, c, x):
    """Gauss's ₂F₁(a, b; c; x) (mpmath's), scipy's inf at a pole c = −m the series does not end
    before, and past x = 1 where the value is not real."""
    if _at_pole(c) and not (_ends(a, c) or _ends(b, c)):
        return mpmath.inf
    r = mpmath.hyp2f1(a, b, c, x, zeroprec=_ZEROPREC * mpmath.mp.prec)
    return r if type(r) is MPF else mpmath.inf


# ---- series for the partials -----------------------------------------------------------------

def _series_terms(u):
    """Terms of g′'s series (below) that keep its derivatives to order 8 exact for |u| < 2:
    8 + m, with m!/2^m > 2^(p + 16) at a precision of p bits (36 terms for floats, 63 for an mpf
    at 50 digits): the remainder of the 8th derivative is below 2^−(p+16) of it."""
    m, bits = 1, _bits(u) + 16
    while math.lgamma(m + 1) / math.log(2) - m <= bits:
        m += 1
    return 8 + m


def expm1_ratio_slope(u):
    """g′(u) of g(u) = (eᵘ − 1)/u, Σₖ (k + 1)uᵏ/(k + 2)! = 1/2 + u/3 + u²/8 + ..., for |u| < 2,
    where (u eᵘ − expm1 u)/u² cancels (to 1e-10 of the 8th derivative near |u| = 1): the
    Box-Cox λ-partial is (log x)²·g′(λ log x).  Horner form with exact integer coefficients (an
    mpf keeps its precision); written in arithmetic, so it nests like a partial."""
    one = mpmath.mpf(1) if _mpf_based(u) else 1.0
    n = _series_terms(u)
    s = one * (n + 1) / math.factorial(n + 2)
    for k in range(n - 1, -1, -1):
        s = one * (k + 1) / math.factorial(k + 2) + u * s
    return s


def dawsn_far(x):
    """Where Dawson's slope takes its asymptotic series: |x| ≥ T, T² = (p + 16)·log 2 + 6 at a
    precision of p bits (T = 7.3 for floats, 5.8 for float32, 11.6 for an mpf at 50 digits).
    Below T the formula 1 − 2xF loses log₁₀(2x²) digits (2 at T), more at each order."""
    return math.sqrt((_bits(x) + 16) * math.log(2) + 6)


def dawsn_slope_series(x):
    """F′(x) = 1 − 2xF(x) for |x| ≥ dawsn_far(x), where its terms cancel (F ~ 1/(2x)):
    −Σₖ (2k − 1)!!/(2x²)ᵏ, k ≥ 1, asymptotic, to K = ⌊T²⌋ − 1 terms, each smaller than the one
    before for |x| ≥ T; the rest ~2x²e^(−x²) of the sum, below the precision.  Its own
    derivatives are the derivatives of F′ (the formula's, nested, would cancel again: by 2x² at
    each order).  Exact integers multiply; written in arithmetic, so it nests."""
    v = 0.5 / (x * x)
    s = 1.0
    for k in range(int(dawsn_far(x) ** 2) - 2, 0, -1):
        s = 1.0 + (2 * k + 1) * v * s
    return -v * s
