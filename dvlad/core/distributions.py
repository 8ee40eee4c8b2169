"""The mpf family of the distribution-function rows of the rule table (scipy.special's names):
the regularized incomplete gamma and beta functions and the cdfs and survival functions built on
them (Student's t, Poisson, chi-square), in mpmath at the working precision.

Their float and numpy families are scipy's own (:func:`dvlad.core.special.lib`).  Here the values
at the edges are scipy's too: nan outside the domain, the limits at 0, 1 and inf.  A survival
function is computed as its own tail (``betainc(a, b, x, 1)``), not as 1 − cdf, which would lose
the digits of a small tail.
"""
import mpmath

_NAN, _INF = mpmath.nan, mpmath.inf


def _gammainc_edge(a, x):
    """P(a, x) where it is a limit (0 or 1) or undefined (nan); None elsewhere."""
    if a != a or x != x or a < 0 or x < 0 or (a == 0 and x == 0):
        return _NAN
    if x == 0 or a == _INF:
        return mpmath.mpf(0)
    if a == 0:
        return mpmath.mpf(1)
    return None


def mp_gammainc(a, x):
    edge = _gammainc_edge(a, x)
    return edge if edge is not None else mpmath.gammainc(a, 0, x, regularized=True)


def mp_gammaincc(a, x):
    edge = _gammainc_edge(a, x)
    return 1 - edge if edge is not None else mpmath.gammainc(a, x, _INF, regularized=True)


def _betainc_edge(a, b, x):
    """I_x(a, b) where it is a limit (0 or 1) or undefined (nan); None elsewhere."""
    if not (0 <= x <= 1 and a >= 0 and b >= 0) or a == b == 0 or a == b == _INF:
        return _NAN
    if a == 0 or x == 1:
        return mpmath.mpf(1)
    if b == 0 or x == 0 or a == _INF:
        return mpmath.mpf(0)
    if b == _INF:
        return mpmath.mpf(1)
    return None


def mp_betainc(a, b, x):
    edge = _betainc_edge(a, b, x)
    return edge if edge is not None else mpmath.betainc(a, b, 0, x, regularized=True)


def mp_betaincc(a, b, x):
    """1 − I_x(a, b), as the integral from x to 1."""
    edge = _betainc_edge(a, b, x)
    return 1 - edge if edge is not None else mpmath.betainc(a, b, x, 1, regularized=True)


def mp_stdtr(df, t):
    """Student's t cdf: ½ I_(df/(df + t²))(df/2, ½) below 0, one minus that above."""
    if not df > 0 or t != t:
        return _NAN
    if df == _INF:
        return mpmath.ncdf(t)
    if abs(t) == _INF:
        return mpmath.mpf(t > 0)
    tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
    return 1 - tail if t > 0 else tail


def mp_pdtr(k, m):
    """The Poisson cdf Σ_(j ≤ k) e^−m mʲ/j! = Q(⌊k⌋ + 1, m)."""
    if not (k >= 0 and m >= 0):
        return _NAN
    return mp_gammaincc(mpmath.floor(k) + 1, m)


def mp_pdtrc(k, m):
    """The Poisson survival function Σ_(j > k) e^−m mʲ/j! = P(⌊k⌋ + 1, m)."""
    if not (k >= 0 and m >= 0):
        return _NAN
    return mp_gammainc(mpmath.floor(k) + 1, m)


def mp_chdtr(v, x):
    """The chi-square cdf with v degrees of freedom: P(v/2, x/2)."""
    return mp_gammainc(v / 2, x / 2)


def mp_chdtrc(v, x):
    """The chi-square survival function: Q(v/2, x/2)."""
    return mp_gammaincc(v / 2, x / 2)
