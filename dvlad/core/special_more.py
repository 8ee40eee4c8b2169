"""Base functions of the rule table's later scipy.special rows (scipy's names): the entropies,
the log of the logistic function, the exponentially scaled functions, the exponential integrals,
Spence's function, the Hurwitz zeta function, the Bessel functions K and Y and their scaled
forms, the Huber losses, exp10, exprel, powm1, ndtri_exp and the inverse Box-Cox transforms.
Their mpf family is mpmath at the working precision; for floats where math has what they need,
a math function; else scipy's function (:func:`dvlad.core.special.lib`, which also gives the
numpy family).

Values at the edges are scipy's: ``entr(0) = 0`` and −inf for x < 0; ``rel_entr`` and
``kl_div`` 0 and y at x = 0 (y ≥ 0), inf outside x, y > 0; ``exp1(0) = inf``, nan for x < 0;
``expi(0) = −inf``; Spence's function nan for z < 0 and at inf; ``zeta(x, q)`` inf at x = 1 and
at the poles q = 0, −1, ..., nan for x < 1 and for a negative q with a fractional x; ``kv``
and ``kve`` inf at x = 0, nan for x < 0, ``kv`` 0 and ``kve`` nan at x = inf (``k0e``, ``k1e``:
0); ``yv(v, 0)`` −inf, for v < 0 times the sign of cos πv as scipy computes it in floats,
``yve`` nan at 0, ``jve`` at 0 for a fractional v < 0, and the Bessel functions of the first and
second kind nan at ±inf; ``powm1(x, 0)`` and ``powm1(1, y)`` 0 (a nan in the other too), inf at
x = 0 for y < 0; ``huber`` and ``pseudo_huber`` inf for δ < 0, ``pseudo_huber`` 0 at δ = 0 or
r = 0 and nan at δ = inf (scipy's δ²·expm1(0)); ``ndtri_exp`` inf at y = 0, nan above.
"""
import functools
import math

import mpmath
import numpy as np

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
    return _remembered(mpmath.besselk, v, x, mpmath.mp.prec)


@functools.lru_cache(maxsize=1024)
def _remembered(f, v, x, prec):
    """mpmath's Bessel function f(v, x) at precision prec, kept: of an integer order (a limit) it
    takes ~4 ms at 50 digits, and a Taylor tower of k1e to order 8 asks ~6500 times at a few
    (v, x) (each order's partials call rows at the order below): derivatives(k1e, 8) at mpf 0.8
    took 24 s, now 0.6 s."""
    with mpmath.workprec(prec):
        return f(v, x)


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


# ---- Bessel functions: K of orders 0, 1 and n, Y_v, and the scaled yve and jve -------------------

def mp_k0(x):
    return mp_kv(0, x)


def mp_k1(x):
    return mp_kv(1, x)


def mp_k0e(x):
    return mpmath.mpf(0) if x == mpmath.inf else mp_kve(0, x)     # (kve's is nan there)


def mp_k1e(x):
    return mpmath.mpf(0) if x == mpmath.inf else mp_kve(1, x)


def mp_kn(n, x):
    """K_n(x) for an integer n: scipy truncates a fractional one."""
    return mpmath.nan if n != n else mp_kv(int(n), x)


def _bessel_order(v):
    return int(v) if v == int(v) else v        # (mpmath's integer-order branch: real at x < 0)


def mp_yv(v, x):
    """Y_v(x), real for x > 0; scipy's values: nan for x < 0 and at inf, −inf at x = 0, for v < 0
    times the sign of cos πv as scipy computes it (float rounding: inf at v = −1.5)."""
    if v != v or x != x or x < 0 or abs(v) == mpmath.inf or x == mpmath.inf:
        return mpmath.nan
    if x == 0:
        return -mpmath.inf if v >= 0 or math.cos(math.pi * float(v)) > 0 else mpmath.inf
    return _remembered(mpmath.bessely, _bessel_order(v), x, mpmath.mp.prec)


def mp_yve(v, x):
    """Y_v(x)·e^(−|Im x|), Y_v itself for real x; nan at x = 0, as scipy."""
    return mpmath.nan if x == 0 else mp_yv(v, x)


def mp_jve(v, x):
    """J_v(x)·e^(−|Im x|), J_v itself for real x: nan for a fractional v at x < 0 (complex), at a
    fractional v < 0 at x = 0 and at x = ±inf, as scipy."""
    if v != v or x != x or abs(x) == mpmath.inf or abs(v) == mpmath.inf:
        return mpmath.nan
    if v != int(v) and (x < 0 or (x == 0 and v < 0)):
        return mpmath.nan
    return mpmath.besselj(_bessel_order(v), x)


# ---- exp10, exprel, powm1 ------------------------------------------------------------------------

def mp_exp10(x):
    return mpmath.mpf(10) ** x


def mp_exprel(x):
    """(eˣ − 1)/x, 1 at 0 (0 at −inf, inf at inf)."""
    if x == 0:
        return mpmath.mpf(1)
    if abs(x) == mpmath.inf:
        return mpmath.inf if x > 0 else mpmath.mpf(0)
    return mpmath.expm1(x) / x


def mp_powm1(x, y):
    """x^y − 1 (near x^y = 1 without cancellation), with scipy's values: 0 for y = 0 or x = 1
    (nan in the other too), nan for x < 0 and a fractional y, −1 or inf at x = 0."""
    if y == 0 or x == 1:
        return mpmath.mpf(0)
    if x != x or y != y or (x < 0 and y != mpmath.floor(y)):
        return mpmath.nan
    if x == 0:
        return mpmath.mpf(-1) if y > 0 else mpmath.inf
    if abs(x) == mpmath.inf or abs(y) == mpmath.inf:
        return mpmath.mpf(x) ** y - 1
    return mpmath.powm1(x, y)


# ---- the Huber losses --------------------------------------------------------------------------

def mp_huber(delta, r):
    """r²/2 for |r| ≤ δ, δ(|r| − δ/2) beyond; inf for δ < 0."""
    if delta < 0:
        return mpmath.inf
    delta, r = mpmath.mpf(delta), mpmath.mpf(r)          # (a float one in mpf arithmetic)
    if abs(r) <= delta:
        return r * r / 2
    return delta * (abs(r) - delta / 2)


def mp_pseudo_huber(delta, r):
    """δ²(√(1 + (r/δ)²) − 1) = r²/(√(1 + (r/δ)²) + 1); scipy's values: inf for δ < 0, 0 at δ = 0
    or r = 0, nan at δ = inf."""
    if delta < 0:
        return mpmath.inf
    if delta == 0 or r == 0:
        return mpmath.mpf(0)
    delta, r = mpmath.mpf(delta), mpmath.mpf(r)
    if delta != delta or r != r or delta == mpmath.inf:
        return mpmath.nan
    return mpmath.inf if abs(r) == mpmath.inf else r * r / (mpmath.sqrt(1 + (r / delta) ** 2) + 1)


# ---- ndtri_exp and the inverse Box-Cox transforms --------------------------------------------

def _log_ndtr(r):
    return mpmath.log1p(-mpmath.ncdf(-r)) if r > 0 else mpmath.log(mpmath.ncdf(r))


def _ndtri_exp_start(y):
    """Newton's start: in the tails, where Φ(r) ≈ φ(r)/|r|, r² ≈ L − log(2πL); else 0."""
    if y < -2:
        return -mpmath.sqrt(-2 * y - mpmath.log(-4 * mpmath.pi * y))
    q = -mpmath.expm1(y)
    L = -2 * mpmath.log(q)
    return mpmath.sqrt(max(L - mpmath.log(2 * mpmath.pi * L), 0)) if q < 0.1 else mpmath.mpf(0)


def mp_ndtri_exp(y):
    """Φ⁻¹(eʸ) for y ≤ 0: Newton's method on log Φ(r) = y (log Φ is increasing and concave, so
    its iterates close in from below after the first), at 20 bits beyond the working precision;
    inf at 0, −inf at −inf, nan for y > 0."""
    if y != y or y > 0:
        return mpmath.nan
    if y == 0:
        return mpmath.inf
    if y == -mpmath.inf:
        return -mpmath.inf
    with mpmath.extraprec(20):
        r = _ndtri_exp_start(y)
        for _ in range(200):
            step = (_log_ndtr(r) - y) * mpmath.ncdf(r) / mpmath.npdf(r)
            r -= step
            if abs(step) <= mpmath.eps * max(1, abs(r)):
                break
    return +r


def _inv_box(y, lmbda, f, edge):
    """f(log1p(λy)/λ) (f: mpmath's exp or expm1), f(y) at λ = 0 (the limit); nan where
    1 + λy < 0, at 1 + λy = 0 ``edge`` (λ > 0) or inf (λ < 0)."""
    if y != y or lmbda != lmbda:
        return mpmath.nan
    if lmbda == 0:
        return f(y)
    u = lmbda * mpmath.mpf(y)
    if u <= -1:
        return mpmath.nan if u < -1 else (mpmath.mpf(edge) if lmbda > 0 else mpmath.inf)
    return f(mpmath.log1p(u) / lmbda)


def mp_inv_boxcox(y, lmbda):
    """x with boxcox(x, λ) = y: (1 + λy)^(1/λ), eʸ at λ = 0."""
    return _inv_box(y, lmbda, mpmath.exp, 0)


def mp_inv_boxcox1p(y, lmbda):
    """x with boxcox1p(x, λ) = y: expm1(log1p(λy)/λ), expm1(y) at λ = 0 (scipy's y: see below)."""
    return _inv_box(y, lmbda, mpmath.expm1, -1)


def inv_boxcox1p_tiny_floats(function):
    """scipy's inv_boxcox1p is y itself where 0 < |λy| < 1e-154 (λ ≠ 0), not expm1(y), the
    limit there (expm1(log1p(λy)/λ), λy to 1e-154 of itself): here expm1(y), as the mpf family."""
    def f(y, lmbda):
        return math.expm1(y) if lmbda and abs(lmbda * y) < 1e-154 else function(y, lmbda)
    f.__name__ = function.__name__
    return f


def inv_boxcox1p_tiny_arrays(function):
    def f(y, lmbda):
        r = function(y, lmbda)
        with np.errstate(all="ignore"):
            tiny = (np.abs(np.multiply(lmbda, y, dtype=np.float64)) < 1e-154) & (lmbda != 0)
            if np.any(tiny):
                r = np.where(tiny, np.expm1(y), r).astype(r.dtype)
                r = r if r.ndim else r[()]
        return r
    f.__name__ = function.__name__
    return f
