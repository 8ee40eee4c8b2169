"""Base functions of the special-function rows of the rule table (scipy.special's names), one per
family of base number: Python floats (math), numpy arrays and scalars, mpmath's mpf.

scipy is optional.  Where it is installed, its ufuncs compute the numpy family (float32 stays
float32, as scipy's loops keep it) and the floats that math has no function for; it is imported
on the first call, not with dvlad.  Without it the floats come from mpmath at double precision
and arrays from the float function element by element: slower, the same values to rounding.
The mpf family is mpmath's own, at the working precision.  Values at poles and domain edges
follow scipy (gammaln at a pole is +inf, logit(0) is -inf, erfinv(1) is +inf).  The mpf family
of the distribution functions (incomplete gamma and beta, the t, Poisson and chi-square cdfs and
survival functions) is in :mod:`dvlad.core.distributions`.
"""
import math

import mpmath
import numpy as np

from .base import INF

_SCIPY = []


def scipy_special():
    """scipy.special, or None without scipy (imported once, on first use)."""
    if not _SCIPY:
        try:
            import scipy.special as sc
        except ImportError:
            sc = None
        _SCIPY.append(sc)
    return _SCIPY[0]


def _from_mpmath(f):
    """A float function computed by mpmath at double precision (no scipy)."""
    def g(*args):
        with mpmath.workdps(20):
            return float(f(*(mpmath.mpf(a) for a in args)))
    return g


def _scipy(name, output):
    """scipy.special's function ``name``, or its output ``output`` (fresnel's S is 0)."""
    function = getattr(scipy_special(), name)
    return function if output is None else lambda *args: function(*args)[output]


def floats(name, mp_function, output=None):
    """The math-family function of row ``name``: scipy's on a float, returned as a float."""
    fallback = _from_mpmath(mp_function)

    def f(*args):
        sc = scipy_special()
        return float(_scipy(name, output)(*args)) if sc is not None else fallback(*args)
    f.__name__ = name
    return f


def arrays(name, float_function, output=None):
    """The numpy-family function of row ``name``: scipy's ufunc, or the float function element
    by element in the arguments' float type."""
    def f(*args):
        sc = scipy_special()
        if sc is not None:
            return _scipy(name, output)(*args)
        kind = np.result_type(*args, np.float16)
        out = np.vectorize(float_function, otypes=[float])(*args).astype(kind)
        return out if out.ndim or any(isinstance(a, np.ndarray) for a in args) else out[()]
    f.__name__ = name
    return f


# ---- the mpf family: mpmath's functions, with scipy's values at poles and edges ---------------

def mp_gammaln(x):
    if x <= 0 and x == mpmath.floor(x):
        return mpmath.inf
    return mpmath.log(abs(mpmath.gamma(x)))


def mp_erfinv(x):
    if abs(x) == 1:
        return mpmath.inf * x
    return mpmath.erfinv(x)


def mp_erfcinv(x):
    if x == 0 or x == 2:
        return mpmath.inf * (1 - x)
    # erfc⁻¹(x) = erf⁻¹(1 − x), with 1 − x formed at twice the precision (x near 0)
    with mpmath.extradps(mpmath.mp.dps):
        return +mpmath.erfinv(1 - x)


def mp_expit(x):
    return 1 / (1 + mpmath.exp(-x))


def mp_logit(x):
    if x == 0:
        return -mpmath.inf
    if x == 1:
        return mpmath.inf
    return mpmath.log(x) - mpmath.log1p(-x)


def mp_xlogy(x, y):
    return mpmath.mpf(0) if x == 0 else x * (mpmath.log(y) if y else -mpmath.inf)


def mp_xlog1py(x, y):
    return mpmath.mpf(0) if x == 0 else x * (mpmath.log1p(y) if y != -1 else -mpmath.inf)


def mp_ndtr(x):
    return mpmath.ncdf(x)


def mp_log_ndtr(x):
    """log Φ(x); for x > 0 as log1p(−Φ(−x)) (log of a Φ near 1 lost its digits: 0 at x = 30)."""
    if x > 0:
        return mpmath.log1p(-mpmath.ncdf(-x))
    return mpmath.log(mpmath.ncdf(x))


def mp_ndtri(p):
    if p == 0 or p == 1:
        return mpmath.inf * (2 * p - 1)
    return mpmath.sqrt(2) * mp_erfinv(2 * p - 1)


def mp_iv(v, x):
    # an integer order as an int: mpmath goes complex for a negative x and an mpf order, even
    # an integer-valued one (I_v(−x) is real for integer v only)
    if v == int(v):            # I₋ₙ = Iₙ and Iₙ(−x) = (−1)ⁿ Iₙ(x) for an integer n
        n = abs(int(v))
        r = mpmath.besseli(n, abs(x))
        return -r if x < 0 and n % 2 else r
    r = mpmath.besseli(v, x)
    if type(r) is not type(mpmath.mpf(0)):
        raise ValueError(f"math domain error: iv({v!r}, {x!r}) is not real")
    return r


def mp_i0(x):
    return mpmath.besseli(0, x)


def mp_i1(x):
    return mpmath.besseli(1, x)


def mp_betaln(a, b):
    return mp_gammaln(a) + mp_gammaln(b) - mp_gammaln(a + b)


def mp_polygamma(n, x):
    return mpmath.polygamma(n, x)


def mp_gamma(x):
    if x <= 0 and x == mpmath.floor(x):
        return mpmath.inf if x == 0 else mpmath.nan      # scipy: Γ(0) = inf, Γ(−n) = nan
    return mpmath.gamma(x)


def mp_poch(z, m):
    """The Pochhammer symbol Γ(z + m)/Γ(z) (mpmath's rising factorial), scipy's values: 1 for
    m = 0 (z nan too), at z = ±inf the limits scipy gives (0, inf; −inf, −0 for m = ±1 at −inf;
    else nan)."""
    if m == 0:
        return mpmath.mpf(1)
    if z == mpmath.inf:
        return mpmath.nan if m != m or abs(m) == mpmath.inf else mpmath.mpf(0) if m < 0 \
            else mpmath.inf
    if z == -mpmath.inf:
        return -mpmath.inf if m == 1 else mpmath.mpf(0) if m == -1 else mpmath.nan
    return mpmath.rf(z, m)


def mp_gammasgn(x):
    """The sign of Γ(x): 1 for x ≥ 0, (−1)^⌈−x⌉ between the poles; nan at the poles x = −n
    and at −inf (an mpf has no −0, whose sign scipy gives as −1)."""
    if x != x or x == -mpmath.inf or (x < 0 and x == mpmath.floor(x)):
        return mpmath.nan
    return mpmath.mpf(-1) if x < 0 and int(mpmath.floor(x)) % 2 else mpmath.mpf(1)


def _order(v):
    """An integer-valued order as an int: mpmath goes complex at a negative x for an mpf order,
    even an integer-valued one (J_n(−x), Y_n are real for integer n only)."""
    return int(v) if v == int(v) else v


def _real(r, what):
    if type(r) is not type(mpmath.mpf(0)):
        raise ValueError(f"math domain error: {what} is not real")
    return r


def mp_jn(v, x):
    return _real(mpmath.besselj(_order(v), x), f"J_{v!r}({x!r})")


def mp_yn(n, x):
    n = int(n)                           # scipy's yn truncates a fractional order
    if x == 0:                           # Y_n(0) = −inf, Y_−n = (−1)ⁿ Y_n
        return mpmath.inf if n < 0 and n % 2 else -mpmath.inf
    return _real(mpmath.bessely(n, x), f"Y_{n!r}({x!r})")


def mp_j0(x):
    return mpmath.besselj(0, x)


def mp_j1(x):
    return mpmath.besselj(1, x)


def mp_y0(x):
    return mp_yn(0, x)


def mp_y1(x):
    return mp_yn(1, x)


def mp_ive(v, x):
    return mp_iv(v, x) * mpmath.exp(-abs(x))


# ---- floats where math has the function (and dvlad's values at its domain edges) --------------

def math_gammaln(x):
    if x <= 0 and x == math.floor(x):
        return INF
    return math.lgamma(x)


def math_expit(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def expit_arrays(scipy_function):
    """expit's numpy family: scipy's formula 1/(1 + e^−x) by numpy's vectorized ufuncs (on 10⁴
    float64s a quarter of the time of scipy's loop; the same values to an ulp); ints, bools and
    float16 through scipy's ufunc where scipy is installed.  (logaddexp's partials are expit.)"""
    def logistic(x):
        dt = getattr(x, "dtype", _NO_FLOAT)
        if dt.kind != "f" or dt.itemsize < 4:     # (scipy's float16 is float64)
            if scipy_special() is not None:
                return scipy_function(x)
            x = np.asarray(x, np.float64)
        with np.errstate(over="ignore"):        # (e^−x = inf: 1/inf is 0, as scipy's)
            return 1.0 / (1.0 + np.exp(-x))
    return logistic


_NO_FLOAT = np.dtype(object)


def math_logit(x):
    if x == 0:
        return -INF
    if x == 1:
        return INF
    return math.log(x) - math.log1p(-x)


def math_xlogy(x, y):
    return 0.0 if x == 0 and y == y else x * (math.log(y) if y else -INF)


def math_xlog1py(x, y):
    return 0.0 if x == 0 and y == y else x * (math.log1p(y) if y != -1 else -INF)


def math_ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def math_gammasgn(x):
    if x != x or x == -INF or (x < 0 and x == math.floor(x)):
        return math.nan
    if x == 0:
        return math.copysign(1.0, x)                   # scipy: −1 at −0.0
    return -1.0 if x < 0 and math.floor(x) % 2 else 1.0


def polygamma_arrays(function):
    """scipy's polygamma is a Python function that answers in float64 and 0-d arrays: here in
    x's float type (the order n is an integer), and a scalar for scalars."""
    def f(n, x):
        r = np.asarray(function(n, x))
        kind = x.dtype if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind == "f" \
            else np.float64
        r = r.astype(kind, copy=False)
        return r if np.ndim(n) or np.ndim(x) else r[()]
    f.__name__ = function.__name__
    return f


def weak_scalars(function):
    """scipy ufuncs whose float64 loop comes first (gammainc, beta, yn) give float64 for a float32
    array and a Python number: here the result takes numpy's type of the arguments, Python
    numbers weak (NEP 50), as the other ufuncs give it."""
    def f(*args):
        r = function(*args)
        kind = np.result_type(*args)
        return r.astype(kind) if kind.kind == "f" and r.dtype != kind else r
    f.__name__ = function.__name__
    return f


_SERIES_BELOW = 1e-150         # below it the series' next term is < 1e-300 of the first


def _first_term(v, x, alternate):
    """I_v(x) and J_v(x) ≈ (x/2)^v / Γ(v + 1) for 0 < |x| < 1e-150, in numpy's IEEE
    arithmetic (inf, not OverflowError, for a negative v); an integer v = −n as n, times (−1)ⁿ
    if ``alternate`` (I₋ₙ = Iₙ, J₋ₙ = (−1)ⁿ Jₙ)."""
    v = np.asarray(v, dtype=float)
    flip = (v < 0) & (v == np.round(v))
    signs = np.where(flip & (np.abs(v) % 2 == 1), -1.0, 1.0) if alternate else 1.0
    v = np.where(flip, -v, v)
    with np.errstate(all="ignore"):
        # (x^v · 2^−v, not (x/2)^v: x/2 of the least subnormal is 0)
        return signs * np.power(np.asarray(x, dtype=float), v) * np.power(2.0, -v) / \
            np.vectorize(math.gamma, otypes=[float])(v + 1.0)


def _tiny_arrays(alternate):
    def wrapper(function):
        def f(v, x):
            r = function(v, x)
            ax = np.abs(np.asarray(x, dtype=float))
            tiny = (ax < _SERIES_BELOW) & (ax > 0)
            if np.any(tiny):
                r = np.where(tiny, _first_term(v, x, alternate), r)
                r = r.astype(np.result_type(x, np.float16)) if isinstance(x, np.ndarray) else r
                r = r if np.ndim(r) else r[()]
            return r
        f.__name__ = function.__name__
        return f
    return wrapper


def _tiny_floats(alternate):
    def wrapper(function):
        def f(v, x):
            if 0 < abs(x) < _SERIES_BELOW:
                return float(_first_term(v, x, alternate))
            return function(v, x)
        f.__name__ = function.__name__
        return f
    return wrapper


# scipy's iv and ive are nan or 0 at a tiny x (scipy 1.17: iv(1, 2e-313) is nan, iv(1, 1e-300)
# is 0, not 5e-301; ive(1, 2e-313) and jv(1, 2e-313) are 0): there each is its series' first
# term (x/2)^v / Γ(v + 1) (e^−|x| = 1), exact to the last bit (the next is ~x² smaller)
iv_arrays, iv_floats = _tiny_arrays(False), _tiny_floats(False)
jv_arrays, jv_floats = _tiny_arrays(True), _tiny_floats(True)


def lib(scipy_name, mp_function, math_function=None, numpy_wrapper=None, float_wrapper=None,
        output=None):
    """(math, numpy, mpmath) base functions of a special row, for the rule table: scipy.special's
    function ``scipy_name`` (imported on first use), mpmath's ``mp_function``, and
    ``math_function`` for floats where math has one (else scipy's, else mpmath's); ``output``:
    which output of a ufunc of several the row is (fresnel's S is 0, C is 1)."""
    math_function = math_function or floats(scipy_name, mp_function, output)
    if float_wrapper is not None:
        math_function = float_wrapper(math_function)
    np_function = arrays(scipy_name, math_function, output)
    if numpy_wrapper is not None:
        np_function = numpy_wrapper(np_function)
    return math_function, np_function, mp_function
