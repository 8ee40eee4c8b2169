"""Base functions (the mpf family) of the rule table's orthogonal-polynomial rows, scipy.special's
``eval_*`` ufuncs: Jacobi, Gegenbauer, Legendre, Chebyshev (T, U, C, S), Laguerre and their
shifted forms; and of the complete elliptic integrals K(m), E(m), K(1 − p).  The float and numpy
families are scipy's (:func:`dvlad.core.special.lib`).

The degree n comes first.  Each polynomial is the hypergeometric function scipy evaluates for a
fractional n (Jacobi's ``binom(n + α, n)·₂F₁(−n, n + α + β + 1; α + 1; (1 − x)/2)``), for an
integer n a terminating series.  Values at the edges are scipy's, for an integer n those of its
integer loop: Legendre's and Chebyshev's functions of a negative n by their symmetries (P₋ₙ₋₁ =
Pₙ, T₋ₙ = Tₙ, U₋ₙ = −Uₙ₋₂, U₋₁ = 0: the series have them), Gegenbauer's and Laguerre's 0 for
n < 0, ``eval_gegenbauer(n, 0, x)`` 1 for n = 0 and 0 above, ``eval_genlaguerre`` nan for α ≤ −1,
``eval_sh_jacobi`` nan for n < 0; inf where a fractional degree's function is not real (x < −1)
and at a pole.  ``ellipk`` is inf at m = 1 and 0 at −inf, ``ellipe`` 1 at m = 1 and inf at −inf,
both nan for m > 1; ``ellipkm1`` nan for p < 0.
"""
import mpmath

from .special_jax import mp_hyp1f1, mp_hyp2f1


def _degree(n):
    """An integer-valued degree as an int (a terminating series, exact), else as it is."""
    return int(n) if n == int(n) else n


def _real(f):
    """Polynomial f of degree n, nan for a nan argument or an infinite degree (scipy's)."""
    def g(n, *args):
        if n != n or any(a != a for a in args) or abs(n) == mpmath.inf:
            return mpmath.nan
        return f(_degree(n), *[mpmath.mpf(a) for a in args])   # (a float one in mpf arithmetic)
    g.__name__ = f.__name__
    return g


def _f21(n, a, b, c, t):
    """₂F₁(a, b; c; (1 − t)/2) as scipy's eval_* take it (mp_hyp2f1: scipy's inf at a pole of
    c, and where a fractional degree's function is past its branch point 1, t < −1: not real;
    asked first there, where mpmath's analytic continuation took seconds)."""
    if t < -1 and n != int(n):
        return mpmath.inf
    return mp_hyp2f1(a, b, c, (1 - t) / 2)


@_real
def mp_eval_jacobi(n, a, b, x):
    return mpmath.binomial(n + a, n) * _f21(n, -n, n + a + b + 1, a + 1, x)


@_real
def mp_eval_sh_jacobi(n, p, q, x):
    """Gₙ^(p,q)(x) = P_n^(p−q, q−1)(2x − 1)/binom(2n + p − 1, n) (scipy's definition)."""
    if n < 0 and n == int(n):
        return mpmath.nan
    return mp_eval_jacobi(n, p - q, q - 1, 2 * x - 1) / mpmath.binomial(2 * n + p - 1, n)


@_real
def mp_eval_gegenbauer(n, alpha, x):
    """binom(n + 2α − 1, n)·₂F₁(−n, n + 2α; α + ½; (1 − x)/2); an integer n as scipy's loop: 1
    at n = 0, 0 below and for α = 0 above."""
    if n == int(n) and (n <= 0 or alpha == 0):
        return mpmath.mpf(1 if n == 0 else 0)
    return mpmath.binomial(n + 2 * alpha - 1, n) * _f21(n, -n, n + 2 * alpha, alpha + 0.5, x)


@_real
def mp_eval_genlaguerre(n, alpha, x):
    """binom(n + α, n)·₁F₁(−n; α + 1; x); nan for α ≤ −1, 0 for an integer n < 0 (scipy's)."""
    if alpha <= -1:
        return mpmath.nan
    if n < 0 and n == int(n):
        return mpmath.mpf(0)
    return mpmath.binomial(n + alpha, n) * mp_hyp1f1(-n, alpha + 1, x)


def mp_eval_laguerre(n, x):
    return mp_eval_genlaguerre(n, 0, x)


@_real
def mp_eval_legendre(n, x):
    return _f21(n, -n, n + 1, 1, x)


@_real
def mp_eval_chebyt(n, x):
    return _f21(n, -n, n, 0.5, x)


@_real
def mp_eval_chebyu(n, x):
    return (n + 1) * _f21(n, -n, n + 2, 1.5, x)


def mp_eval_chebyc(n, x):
    """Cₙ(x) = 2Tₙ(x/2)."""
    return 2 * mp_eval_chebyt(n, mpmath.mpf(x) / 2)


def mp_eval_chebys(n, x):
    """Sₙ(x) = Uₙ(x/2)."""
    return mp_eval_chebyu(n, mpmath.mpf(x) / 2)


def mp_eval_sh_legendre(n, x):
    return mp_eval_legendre(n, 2 * mpmath.mpf(x) - 1)


def mp_eval_sh_chebyt(n, x):
    return mp_eval_chebyt(n, 2 * mpmath.mpf(x) - 1)


def mp_eval_sh_chebyu(n, x):
    return mp_eval_chebyu(n, 2 * mpmath.mpf(x) - 1)


# ---- the complete elliptic integrals K(m), E(m) and K(1 − p) -----------------------------------

def mp_ellipk(m):
    if m != m or m > 1:
        return mpmath.nan
    return mpmath.inf if m == 1 else (mpmath.mpf(0) if m == -mpmath.inf else mpmath.ellipk(m))


def mp_ellipe(m):
    if m != m or m > 1:
        return mpmath.nan
    return mpmath.inf if m == -mpmath.inf else mpmath.ellipe(m)


def mp_ellipkm1(p):
    """K(1 − p) = π/(2·agm(1, √p)), exact for a tiny p (1 − p would round to 1)."""
    if p != p or p < 0:
        return mpmath.nan
    if p == 0:
        return mpmath.inf
    return mpmath.mpf(0) if p == mpmath.inf else mpmath.pi / (2 * mpmath.agm(1, mpmath.sqrt(p)))
