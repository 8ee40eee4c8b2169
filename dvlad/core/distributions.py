"""The mpf family of the distribution-function rows of the rule table (scipy.special's names):
the regularized incomplete gamma and beta functions and the cdfs and survival functions built on
them (Student's t, Poisson, chi-square), and their inverses in the probability (the quantile
functions ``gammaincinv`` ... ``betainccinv``, scipy's names), in mpmath at the working precision.

Their float and numpy families are scipy's own (:func:`dvlad.core.special.lib`).  Here the values
at the edges are scipy's too: nan outside the domain, the limits at 0, 1 and inf.  A survival
function is computed as its own tail (``betainc(a, b, x, 1)``), not as 1 − cdf, which would lose
the digits of a small tail.  An inverse is solved for the smaller of the two tails it is given
(q or 1 − q, exact for q ≥ 1/2), by Newton's method on the logarithm of that tail in a variable in
which it is nearly linear far out (log x where the tail is a power of x, x where it is an
exponential), so that a probability of 1e-300 costs a few more steps, not digits.
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


# ---- the inverses in the probability: quantile functions ------------------------------------

def _root(g, dg, u):
    """The root of the increasing g (slope dg) on the real line, to the working precision:
    Newton's steps from u inside a bracket that each step narrows; where a step would leave it,
    or would not halve the step before it (Numerical Recipes' rtsafe; the first, 8 at most), the
    bracket's midpoint, or, while one side is still open, a step outward twice as long as the
    last such step."""
    lo, hi, reach, last = -_INF, _INF, mpmath.mpf(1), 16
    tol = mpmath.ldexp(1, -mpmath.mp.prec - 16)
    with mpmath.extraprec(32):
        for _ in range(2000):
            v = g(u)
            if v == 0 or v != v:
                return u if v == 0 else _NAN
            if v > 0:
                hi = u
            else:
                lo = u
            d = dg(u)
            new = u - v / d if 0 < d < _INF else _NAN
            if not (lo < new < hi and abs(new - u) <= abs(last) / 2):
                if hi == _INF or lo == -_INF:
                    new = u + reach if hi == _INF else u - reach
                    reach *= 2
                else:
                    new = (lo + hi) / 2
            last = new - u
            if abs(last) <= tol * max(1, abs(u)) or hi - lo <= tol * max(1, abs(u)):
                return new
            u = new
    return u


def _betacf(a, b, x):
    """I_x(a, b) by its continued fraction (Numerical Recipes' betacf, modified Lentz), for
    x < (a + 1)/(a + b + 2): where mpmath's hypergeometric series gives up (a = 5e5, b = 1/2
    at x = 0.95: mpmath.NoConvergence)."""
    tiny, eps = mpmath.ldexp(1, -2 * mpmath.mp.prec - 100), mpmath.eps
    c, d = mpmath.mpf(1), 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        for aa in (m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))):
            d, c = 1 + aa * d, 1 + aa / c
            d, c = 1 / (d if abs(d) > tiny else tiny), (c if abs(c) > tiny else tiny)
            h *= d * c
        if abs(d * c - 1) < eps:
            break
    return mpmath.exp(a * mpmath.log(x) + b * mpmath.log1p(-x) - mpmath.log(mpmath.beta(a, b))
                      ) * h / a


def _ibeta(a, b, x):
    """I_x(a, b), by mpmath, else (where its series does not converge) the continued fraction
    of I_x(a, b) or of 1 − I_(1−x)(b, a), whichever converges."""
    try:
        if max(a, b) > 1e5:      # (mpmath's series would raise its precision to 4851 bits first)
            raise ValueError
        return mpmath.betainc(a, b, 0, x, regularized=True)
    except (mpmath.libmp.NoConvergence, ValueError):     # (ValueError: hypercomb gave up)
        if x < (a + 1) / (a + b + 2):
            return _betacf(a, b, x)
        return 1 - _betacf(b, a, 1 - x)


def _gamma_quantile(a, p, upper):
    """x with P(a, x) = p (Q(a, x) = p if ``upper``), solved in u = log x: log P ≈ au −
    log Γ(a + 1) far left; the upper tail, log Q ≈ −x + (a − 1) log x, from x = a − log q, near
    its root already when q is tiny."""
    a, p = mpmath.mpf(a), mpmath.mpf(p)
    if not (0 < a < _INF and 0 <= p <= 1):
        return _NAN
    if p == 0 or p == 1:
        return mpmath.mpf(0) if (p == 0) != upper else _INF
    half = p <= 0.5
    target = mpmath.log(p if half else 1 - p)
    lgam = mpmath.loggamma(a)

    def slope(u):      # dP/du = x·density(x), x = e^u
        return mpmath.exp(a * u - mpmath.exp(u) - lgam)

    def lower(u):
        return mpmath.gammainc(a, 0, mpmath.exp(u), regularized=True)

    def upper_tail(u):
        return mpmath.gammainc(a, mpmath.exp(u), _INF, regularized=True)

    if half != upper:
        u = _root(lambda u: mpmath.log(lower(u)) - target, lambda u: slope(u) / lower(u),
                  mpmath.log(a))
    else:
        u = _root(lambda u: target - mpmath.log(upper_tail(u)),
                  lambda u: slope(u) / upper_tail(u), mpmath.log(a - target))
    return mpmath.exp(u)


def mp_gammaincinv(a, p):
    """x with P(a, x) = p: the gamma distribution's quantile."""
    return _gamma_quantile(a, p, False)


def mp_gammainccinv(a, p):
    """x with Q(a, x) = p."""
    return _gamma_quantile(a, p, True)


def mp_chdtri(v, p):
    """x with chdtrc(v, x) = Q(v/2, x/2) = p (scipy's chdtri inverts the survival function)."""
    return 2 * _gamma_quantile(mpmath.mpf(v) / 2, p, True)


def _beta_quantile(a, b, p, upper):
    """x with I_x(a, b) = p (1 − I_x(a, b) = p if ``upper``), solved in u = log(x/(1 − x)),
    where the lower tail is ≈ e^(au) and the upper, I_(1−x)(b, a), ≈ e^(−bu) far out."""
    a, b, p = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(p)
    if not (0 < a < _INF and 0 < b < _INF and 0 <= p <= 1):
        return _NAN
    if p == 0 or p == 1:
        return mpmath.mpf((p == 0) == upper)
    half = p <= 0.5
    target = mpmath.log(p if half else 1 - p)
    lbeta = mpmath.log(mpmath.beta(a, b))

    def xs(u):       # (x, 1 − x), each to its own relative precision
        return 1 / (1 + mpmath.exp(-u)), 1 / (1 + mpmath.exp(u))

    def slope(u):    # dI/du = x^a (1 − x)^b / B(a, b)
        x, y = xs(u)
        return mpmath.exp(a * mpmath.log(x) + b * mpmath.log(y) - lbeta)

    def lower(u):
        return _ibeta(a, b, xs(u)[0])

    def upper_tail(u):
        return _ibeta(b, a, xs(u)[1])

    u0 = mpmath.log(a / b)
    if half != upper:
        u = _root(lambda u: mpmath.log(lower(u)) - target, lambda u: slope(u) / lower(u), u0)
    else:
        u = _root(lambda u: target - mpmath.log(upper_tail(u)),
                  lambda u: slope(u) / upper_tail(u), u0)
    return +xs(u)[0]


def mp_betaincinv(a, b, p):
    """x with I_x(a, b) = p: the beta distribution's quantile."""
    return _beta_quantile(a, b, p, False)


def mp_betainccinv(a, b, p):
    """x with 1 − I_x(a, b) = p."""
    return _beta_quantile(a, b, p, True)


def mp_stdtrit(df, p):
    """t with stdtr(df, t) = p: for p < 1/2, t = −s with ½ I_(df/(df + s²))(df/2, 1/2) = p
    (Φ(−s) = p for df = inf) solved in log s, where the tail is ≈ s^(−df) far out."""
    df, p = mpmath.mpf(df), mpmath.mpf(p)
    if not (df > 0 and 0 <= p <= 1):
        return _NAN
    if p == 0 or p == 1:
        return _INF if p == 1 else -_INF
    if p == 0.5:
        return mpmath.mpf(0)
    target = mpmath.log(p if p < 0.5 else 1 - p)
    half = mpmath.mpf(1) / 2
    lbeta = mpmath.log(mpmath.beta(df / 2, half)) if df < _INF else mpmath.log(2 * mpmath.pi) / 2

    def tail(u):       # P(T < −e^u)
        if df == _INF:
            return mpmath.ncdf(-mpmath.exp(u))
        return _ibeta(df / 2, half, 1 / (1 + mpmath.exp(2 * u) / df)) / 2

    def slope(u):      # −d tail/du = s·density(s), s = e^u
        if df == _INF:
            return mpmath.exp(u - mpmath.exp(2 * u) / 2 - lbeta)
        return mpmath.exp(u - (df + 1) / 2 * mpmath.log1p(mpmath.exp(2 * u) / df) - lbeta) \
            / mpmath.sqrt(df)

    s = mpmath.exp(_root(lambda u: target - mpmath.log(tail(u)), lambda u: slope(u) / tail(u),
                         mpmath.mpf(0)))
    return -s if p < 0.5 else s
