"""Every differentiable primitive against an independent oracle, in every mode and base type.

One table of primitives and sample points; one parametrized test runs it over
{forward, reverse} at order 1, {FF, FR, RF, RR} nestings at order 2, and base types
{mpf at 50 digits, float, numpy float64, numpy float32}.  Binary primitives are differentiated
with respect to each argument separately, along a diagonal that perturbs both arguments at once,
and (order 2) in their mixed partial.

Oracle: ``mpmath.diff`` on the corresponding mpmath function, at 70 digits, evaluated at the very
same input point (the float/float32 inputs converted exactly to mpf).  The piecewise-constant
primitives (floor, ceil, trunc, round, int, sign, floordiv) have their own test below.
"""
import functools
import math

import mpmath
import numpy as np
import pytest
from mpmath import mp

import dvlad as ad
from dvlad.core.rules import TABLE
from support import close, owens_t_series

MPF = type(mpmath.mpf(1))
ORACLE_DPS = 70
WORK_DPS = 50

# Base types: how to make a number from its decimal string, the type a result must have, and the
# relative tolerance against the 70-digit oracle.
KINDS = {
    "mpf": (mpmath.mpf, MPF, mpmath.mpf("1e-45")),
    "float": (float, float, 1e-13),
    "float64": (np.float64, np.float64, 1e-13),
    "float32": (np.float32, np.float32, 1e-6),
}

# support.close's settings for each kind: a result of exactly the kind's type, within the
# tolerance of the oracle.  An exactly-zero derivative (add'', mul's pure second partials, ...)
# must come out as (essentially) zero: the oracle's own value there is ~1e-70, hence the floor.
CHECK = {kind: dict(rel=rtol, floor=1e-20, of=typ) for kind, (_, typ, rtol) in KINDS.items()}

# Unary rows: (id, dvlad function, mpmath function, point).  Constant exponents of pow are
# written as plain Python numbers on purpose: they mix with every base type.
UNARY = [
    ("neg", ad.neg, lambda x: -x, "0.7"),
    ("square", ad.square, lambda x: x * x, "-0.7"),
    ("reciprocal", ad.reciprocal, lambda x: 1 / x, "1.3"),
    ("abs_pos", ad.abs, abs, "0.8"),
    ("abs_neg", ad.abs, abs, "-1.3"),
    ("sqrt", ad.sqrt, mpmath.sqrt, "2.5"),
    ("exp", ad.exp, mpmath.exp, "0.7"),
    ("expm1", ad.expm1, mpmath.expm1, "0.3"),
    ("expm1_neg", ad.expm1, mpmath.expm1, "-0.8"),
    ("log", ad.log, mpmath.log, "2.5"),
    ("log_small", ad.log, mpmath.log, "0.4"),
    ("log1p", ad.log1p, mpmath.log1p, "0.4"),
    ("log1p_neg", ad.log1p, mpmath.log1p, "-0.6"),
    ("sin", ad.sin, mpmath.sin, "0.7"),
    ("sin_neg", ad.sin, mpmath.sin, "-2.1"),
    ("cos", ad.cos, mpmath.cos, "0.7"),
    ("cos_neg", ad.cos, mpmath.cos, "-2.1"),
    ("tan", ad.tan, mpmath.tan, "0.6"),
    ("tan_neg", ad.tan, mpmath.tan, "-1.1"),
    ("asin", ad.asin, mpmath.asin, "0.3"),
    ("asin_neg", ad.asin, mpmath.asin, "-0.7"),
    ("acos", ad.acos, mpmath.acos, "0.3"),
    ("acos_neg", ad.acos, mpmath.acos, "-0.7"),
    ("atan", ad.atan, mpmath.atan, "1.7"),
    ("atan_neg", ad.atan, mpmath.atan, "-0.4"),
    ("sinh", ad.sinh, mpmath.sinh, "0.9"),
    ("cosh", ad.cosh, mpmath.cosh, "0.9"),
    ("cosh_neg", ad.cosh, mpmath.cosh, "-1.2"),
    ("tanh", ad.tanh, mpmath.tanh, "0.8"),
    ("pow_const_int", lambda x: ad.pow(x, 3), lambda x: x ** 3, "1.3"),
    ("pow_const_int_neg", lambda x: ad.pow(x, -2), lambda x: x ** -2, "1.3"),
    ("pow_const_float", lambda x: ad.pow(x, 2.5), lambda x: x ** mpmath.mpf(2.5), "1.3"),
    ("pow_const_float_small", lambda x: ad.pow(x, 0.5), lambda x: x ** mpmath.mpf(0.5), "1.3"),
    ("pow_operator", lambda x: x ** 3, lambda x: x ** 3, "0.9"),
    ("rpow_operator", lambda x: 2.5 ** x, lambda x: mpmath.mpf(2.5) ** x, "0.9"),
    ("pow_neg_base_int", lambda x: ad.pow(x, 3), lambda x: x ** 3, "-1.5"),
    ("pow_neg_base_int_neg", lambda x: ad.pow(x, -2), lambda x: x ** -2, "-1.5"),
    ("pow_neg_base_int_4", lambda x: ad.pow(x, 4), lambda x: x ** 4, "-0.7"),
]


def _mp_mod(x, y):
    return x - y * mpmath.floor(x / y)       # Python's floored modulo


# Binary rows: (id, dvlad function, mpmath function, a, b).
BINARY = [
    ("add", ad.add, lambda x, y: x + y, "1.3", "0.7"),
    ("sub", ad.sub, lambda x, y: x - y, "1.3", "0.7"),
    ("mul", ad.mul, lambda x, y: x * y, "1.3", "-0.7"),
    ("div", ad.div, lambda x, y: x / y, "1.3", "0.7"),
    ("div_neg", ad.div, lambda x, y: x / y, "-0.9", "-1.6"),
    ("pow", ad.pow, lambda x, y: x ** y, "1.7", "2.3"),
    ("pow_small_base", ad.pow, lambda x, y: x ** y, "0.4", "-1.3"),
    ("pow_y0", ad.pow, lambda x, y: x ** y, "2.5", "0"),
    ("mod", ad.mod, _mp_mod, "5.3", "1.7"),
    ("mod_neg_x", ad.mod, _mp_mod, "-5.3", "1.7"),
    ("mod_neg_y", ad.mod, _mp_mod, "5.3", "-1.7"),
    ("atan2_q1", ad.atan2, mpmath.atan2, "0.6", "0.8"),
    ("atan2_q2", ad.atan2, mpmath.atan2, "0.6", "-0.8"),
    ("atan2_q3", ad.atan2, mpmath.atan2, "-0.6", "-0.8"),
    ("atan2_q4", ad.atan2, mpmath.atan2, "-0.6", "0.8"),
    ("hypot", ad.hypot, mpmath.hypot, "1.2", "0.5"),
    ("maximum", ad.maximum, max, "1.2", "0.5"),
    ("maximum_y", ad.maximum, max, "-1.2", "0.5"),
    ("minimum", ad.minimum, min, "1.2", "0.5"),
    ("minimum_y", ad.minimum, min, "-1.2", "0.5"),
    ("hypot_neg", ad.hypot, mpmath.hypot, "-0.8", "-0.6"),
]

def _chi2_series(v, x):
    a, u = v / 2, x / 2
    return u ** a * mpmath.exp(-u) * mpmath.hyp1f1(1, a + 1, u) / mpmath.gamma(a + 1)


def _quantile(name, cdf):
    """The inverse of ``cdf`` in its last argument: its root by mpmath.findroot (the oracle's
    own cdf, not dvlad's), started at dvlad's float value."""
    def f(*args):
        *shapes, q = args
        x0 = float(getattr(ad, name)(*(float(s) for s in shapes), float(q)))
        return mpmath.findroot(lambda x: cdf(*shapes, x) - q, mpmath.mpf(x0))
    return f


def _stdtr_series(v, t):
    """Student's t cdf by its hypergeometric series (not the incomplete beta function dvlad
    uses)."""
    return 0.5 + t * mpmath.gamma((v + 1) / 2) * mpmath.hyp2f1(
        0.5, (v + 1) / 2, 1.5, -t * t / v) / (mpmath.sqrt(mpmath.pi * v) * mpmath.gamma(v / 2))


# Independent oracles: every differentiable row of the rule table, written in mpmath's own terms
# (never with dvlad's partials).  Each row is also checked at each of the points its row names.
ORACLES = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y, "pow": lambda x, y: x ** y, "mod": _mp_mod,
    "atan2": mpmath.atan2, "hypot": mpmath.hypot, "maximum": max, "minimum": min,
    "logaddexp": lambda x, y: mpmath.log(mpmath.exp(x) + mpmath.exp(y)),
    "logaddexp2": lambda x, y: mpmath.log(mpmath.power(2, x) + mpmath.power(2, y)) / mpmath.log(2),
    "neg": lambda x: -x, "square": lambda x: x * x, "reciprocal": lambda x: 1 / x, "abs": abs,
    "sqrt": mpmath.sqrt, "exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log,
    "log1p": mpmath.log1p, "log2": lambda x: mpmath.log(x) / mpmath.log(2),
    "log10": lambda x: mpmath.log(x) / mpmath.log(10),
    "exp2": lambda x: mpmath.exp(x * mpmath.log(2)), "sin": mpmath.sin, "cos": mpmath.cos,
    "tan": mpmath.tan, "asin": mpmath.asin, "acos": mpmath.acos, "atan": mpmath.atan,
    "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh,
    "arcsinh": lambda x: mpmath.log(x + mpmath.sqrt(x * x + 1)),
    "arccosh": lambda x: mpmath.log(x + mpmath.sqrt(x * x - 1)),
    "arctanh": lambda x: mpmath.log((1 + x) / (1 - x)) / 2,
    "deg2rad": lambda x: x * mpmath.pi / 180, "rad2deg": lambda x: x * 180 / mpmath.pi,
    "cbrt": lambda x: mpmath.sign(x) * mpmath.cbrt(abs(x)),
    "sinc": lambda x: mpmath.sin(mpmath.pi * x) / (mpmath.pi * x),
    "copysign": lambda x, y: abs(x) * mpmath.sign(y), "fmax": max, "fmin": min,
    # scipy.special's rows
    "erf": mpmath.erf, "erfc": mpmath.erfc, "erfinv": mpmath.erfinv,
    "erfcinv": lambda x: mpmath.erfinv(1 - x),
    "gammaln": lambda x: mpmath.log(abs(mpmath.gamma(x))), "digamma": mpmath.digamma,
    "polygamma": lambda n, x: mpmath.polygamma(int(n), x),
    "expit": lambda x: 1 / (1 + mpmath.exp(-x)), "logit": lambda x: mpmath.log(x / (1 - x)),
    "xlogy": lambda x, y: x * mpmath.log(y), "xlog1py": lambda x, y: x * mpmath.log1p(y),
    "ndtr": lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2,
    "log_ndtr": lambda x: mpmath.log(mpmath.erfc(-x / mpmath.sqrt(2)) / 2),
    "ndtri": lambda p: mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1),
    "i0": lambda x: mpmath.besseli(0, x), "i1": lambda x: mpmath.besseli(1, x),
    "iv": lambda v, x: mpmath.besseli(int(v), abs(x)) * mpmath.sign(x) ** int(v), "betaln": lambda a, b: mpmath.log(mpmath.beta(a, b)),
    "gamma": mpmath.gamma, "rgamma": mpmath.rgamma, "beta": mpmath.beta,
    "j0": lambda x: mpmath.besselj(0, x), "j1": lambda x: mpmath.besselj(1, x),
    "y0": lambda x: mpmath.bessely(0, x), "y1": lambda x: mpmath.bessely(1, x),
    "jn": lambda n, x: mpmath.besselj(int(n), x), "yn": lambda n, x: mpmath.bessely(int(n), x),
    "ive": lambda v, x: mpmath.besseli(v, x) * mpmath.exp(-abs(x)),
    "kv": mpmath.besselk, "kve": lambda v, x: mpmath.besselk(v, x) * mpmath.exp(x),
    "gammainc": lambda a, x: mpmath.gammainc(a, 0, x, regularized=True),
    "gammaincc": lambda a, x: mpmath.gammainc(a, x, mpmath.inf, regularized=True),
    # Student's t cdf by its hypergeometric series (not the incomplete beta function dvlad uses)
    "stdtr": _stdtr_series,
    # the Poisson cdf as its sum
    "pdtr": lambda k, m: mpmath.fsum(mpmath.exp(-m) * m ** j / mpmath.factorial(j)
                                     for j in range(int(mpmath.floor(k)) + 1)),
    "betainc": lambda a, b, x: mpmath.betainc(a, b, 0, x, regularized=True),
    # the Pochhammer symbol as Γ(z + m)·(1/Γ)(z), not mpmath's rf (dvlad's base function): mpmath's
    # rgamma is 0 at the poles z = −n of Γ, where the test point (−2, 1.5) sits
    "poch": lambda z, m: mpmath.gamma(z + m) * mpmath.rgamma(z),
    "pdtrc": lambda k, m: 1 - mpmath.fsum(mpmath.exp(-m) * m ** j / mpmath.factorial(j)
                                          for j in range(int(mpmath.floor(k)) + 1)),
    "betaincc": lambda a, b, x: mpmath.betainc(a, b, x, 1, regularized=True),
    # the chi-square cdf by Kummer's series, P(a, u) = u^a e^(−u) ₁F₁(1; a + 1; u)/Γ(a + 1) at
    # a = v/2, u = x/2 (not the incomplete gamma function)
    "chdtr": lambda v, x: _chi2_series(v, x), "chdtrc": lambda v, x: 1 - _chi2_series(v, x),
    "i0e": lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x)),
    "i1e": lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x)),
    "erfcx": lambda x: mpmath.exp(x * x) * mpmath.erfc(x),
    "log_expit": lambda x: -mpmath.log(1 + mpmath.exp(-x)),
    "cosm1": lambda x: mpmath.cos(x) - 1,
    "entr": lambda x: -x * mpmath.log(x), "rel_entr": lambda x, y: x * mpmath.log(x / y),
    "kl_div": lambda x, y: x * mpmath.log(x / y) - x + y,
    "exp1": lambda x: -mpmath.ei(-x), "expi": mpmath.ei,      # E₁(x) = −Ei(−x) for x > 0
    "spence": lambda z: mpmath.polylog(2, 1 - z), "zeta": mpmath.zeta,
    # the rows jax.scipy.special differentiates: Box-Cox by expm1 (log at λ = 0), Dawson by erfi,
    # Owen's T by its series in a (dvlad's mpf family integrates)
    "boxcox": lambda x, lm: mpmath.log(x) if lm == 0 else mpmath.expm1(lm * mpmath.log(x)) / lm,
    "boxcox1p": lambda x, lm: (mpmath.log1p(x) if lm == 0 else
                               mpmath.expm1(lm * mpmath.log1p(x)) / lm),
    "owens_t": owens_t_series,
    "expn": lambda n, x: mpmath.expint(int(n), x),
    "dawsn": lambda x: mpmath.sqrt(mpmath.pi) / 2 * mpmath.exp(-x * x) * mpmath.erfi(x),
    "loggamma": mpmath.loggamma, "fresnel_s": mpmath.fresnels, "fresnel_c": mpmath.fresnelc,
    "sici_si": mpmath.si, "sici_ci": lambda x: mpmath.re(mpmath.ci(x)),
    "hyp1f1": mpmath.hyp1f1, "hyp2f1": mpmath.hyp2f1,
    # the quantile functions: roots of the cdfs above (chdtri inverts the survival function)
    "gammaincinv": _quantile("gammaincinv",
                             lambda a, x: mpmath.gammainc(a, 0, x, regularized=True)),
    "gammainccinv": _quantile("gammainccinv",
                              lambda a, x: mpmath.gammainc(a, x, mpmath.inf, regularized=True)),
    "chdtri": _quantile("chdtri", lambda v, x: 1 - _chi2_series(v, x)),
    "stdtrit": _quantile("stdtrit", _stdtr_series),
    "betaincinv": _quantile("betaincinv",
                            lambda a, b, x: mpmath.betainc(a, b, 0, x, regularized=True)),
    "betainccinv": _quantile("betainccinv",
                             lambda a, b, x: mpmath.betainc(a, b, x, 1, regularized=True)),
    "k0": lambda x: mpmath.besselk(0, x), "k1": lambda x: mpmath.besselk(1, x),
    "k0e": lambda x: mpmath.besselk(0, x) * mpmath.exp(x),
    "k1e": lambda x: mpmath.besselk(1, x) * mpmath.exp(x),
    "kn": lambda n, x: mpmath.besselk(int(n), x), "yv": mpmath.bessely, "yve": mpmath.bessely,
    "jve": lambda v, x: mpmath.besselj(int(v) if v == int(v) else v, x),
    "exp10": lambda x: mpmath.power(10, x), "exprel": lambda x: mpmath.expm1(x) / x,
    "powm1": lambda x, y: mpmath.power(x, y) - 1,
    "huber": lambda d, r: r * r / 2 if abs(r) <= d else d * (abs(r) - d / 2),
    "pseudo_huber": lambda d, r: d * d * (mpmath.sqrt(1 + (r / d) ** 2) - 1),
    "erfi": mpmath.erfi, "ellipk": mpmath.ellipk, "ellipe": mpmath.ellipe,
    "ellipkm1": lambda p: mpmath.ellipk(1 - p),
    # the inverse of log Φ: the root of mpmath's log ncdf
    "ndtri_exp": _quantile("ndtri_exp", lambda r: mpmath.log(mpmath.ncdf(r))),
    "inv_boxcox": lambda y, lm: mpmath.exp(y) if lm == 0 else (1 + lm * y) ** (1 / lm),
    "inv_boxcox1p": lambda y, lm: mpmath.expm1(y) if lm == 0 else (1 + lm * y) ** (1 / lm) - 1,
    # the orthogonal polynomials by mpmath's hypergeometric forms, the shifted and scaled ones
    # written out
    "eval_legendre": mpmath.legendre, "eval_chebyt": mpmath.chebyt, "eval_chebyu": mpmath.chebyu,
    "eval_chebyc": lambda n, x: 2 * mpmath.chebyt(n, x / 2),
    "eval_chebys": lambda n, x: mpmath.chebyu(n, x / 2),
    "eval_sh_legendre": lambda n, x: mpmath.legendre(n, 2 * x - 1),
    "eval_sh_chebyt": lambda n, x: mpmath.chebyt(n, 2 * x - 1),
    "eval_sh_chebyu": lambda n, x: mpmath.chebyu(n, 2 * x - 1),
    "eval_laguerre": lambda n, x: mpmath.laguerre(n, 0, x), "eval_genlaguerre": mpmath.laguerre,
    "eval_gegenbauer": mpmath.gegenbauer, "eval_jacobi": mpmath.jacobi,
    "eval_sh_jacobi": lambda n, p, q, x: (mpmath.jacobi(n, p - q, q - 1, 2 * x - 1)
                                          / mpmath.binomial(2 * n + p - 1, n)),
}
# Rows whose first argument is an integer order (polygamma's n) or a shape argument without a
# closed-form derivative (gammainc's a): differentiated in y only
ORDER_ROWS = {rule.name for rule in TABLE if rule.fixed and rule.arity == 2}
DIFFERENTIABLE = [rule for rule in TABLE if rule.partial_texts]
UNARY += [(f"{rule.name}@{point[0]}", getattr(ad, rule.name), ORACLES[rule.name], point[0])
          for rule in DIFFERENTIABLE if rule.arity == 1 for point in rule.points]


def _in_last(rule, point):
    """A row of three or four arguments (betainc's shapes a, b fixed, hyp2f1's a, b, c) as a
    function of its last, the others Python floats (exact in every base type, and in mpmath's
    oracle)."""
    f, mf = getattr(ad, rule.name), ORACLES[rule.name]
    fixed = [float(c) for c in point[:-1]]
    return (f"{rule.name}@{','.join(point)}", lambda t: f(*fixed, t),
            lambda t: mf(*(mpmath.mpf(c) for c in fixed), t), point[-1])


UNARY += [_in_last(rule, point) for rule in DIFFERENTIABLE if rule.arity >= 3
          for point in rule.points]
BINARY += [(f"{rule.name}@{point[0]},{point[1]}", getattr(ad, rule.name), ORACLES[rule.name],
            *point) for rule in DIFFERENTIABLE if rule.arity == 2 for point in rule.points]


def test_every_row_of_the_rule_table_has_an_oracle_and_points():
    assert {rule.name for rule in DIFFERENTIABLE} == set(ORACLES)
    assert all(rule.points for rule in DIFFERENTIABLE)


UNARY_BY_ID = {row[0]: row for row in UNARY}
BINARY_BY_ID = {row[0]: row for row in BINARY}

# Which slice of a binary primitive a one-variable test differentiates:
#   x: t ↦ f(t, b) at a;  y: t ↦ f(a, t) at b;  diag: t ↦ f(a + t, b + 2t) at 0.
WHICH = ("x", "y", "diag")

OPERATORS = {"F": ad.derivative, "R": ad.gradient_r}
ORDER1 = ("F", "R")
ORDER2 = ("FF", "FR", "RF", "RR")


@pytest.fixture(autouse=True)
def _fifty_digits():
    with mp.workdps(WORK_DPS):
        yield


def _point(kind, text):
    """The base number of ``kind`` for decimal ``text`` (mpf rounded at 50 digits)."""
    with mp.workdps(WORK_DPS):
        return KINDS[kind][0](text)


def _as_mpf(x):
    """x exactly as an mpf (floats and float32 convert without rounding)."""
    return x if type(x) is MPF else mpmath.mpf(float(x))


def _one_variable(case, which, kind):
    """(dvlad g, mpmath g, point) of the one-variable function a test differentiates."""
    if case in UNARY_BY_ID:
        _, f, mf, a = UNARY_BY_ID[case]
        return f, mf, _point(kind, a)
    _, f, mf, a, b = BINARY_BY_ID[case]
    a, b = _point(kind, a), _point(kind, b)
    ma, mb = _as_mpf(a), _as_mpf(b)
    if which == "x":
        return (lambda t: f(t, b)), (lambda t: mf(t, mb)), a
    if which == "y":
        return (lambda t: f(a, t)), (lambda t: mf(ma, t)), b
    zero = _point(kind, "0")
    return (lambda t: f(a + t, b + 2 * t)), (lambda t: mf(ma + t, mb + 2 * t)), zero


@functools.lru_cache(maxsize=None)
def _oracle(case, which, order, kind):
    _, mg, x0 = _one_variable(case, which, kind)
    x0 = _as_mpf(x0)
    with mp.workdps(ORACLE_DPS):
        return mpmath.diff(mg, x0, order)


@functools.lru_cache(maxsize=None)
def _mixed_oracle(case, kind):
    _, _, mf, a, b = BINARY_BY_ID[case]
    a, b = _as_mpf(_point(kind, a)), _as_mpf(_point(kind, b))
    with mp.workdps(ORACLE_DPS):
        return mpmath.diff(mf, (a, b), (1, 1))


def _order_row(case):
    return case.split("@")[0] in ORDER_ROWS


def _cases():
    for row in UNARY:
        yield row[0], "-"
    for row in BINARY:
        for which in (("y",) if _order_row(row[0]) else WHICH):
            yield row[0], which


CASES = list(_cases())
CASE_IDS = [f"{c}-{w}" if w != "-" else c for c, w in CASES]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("modes", ORDER1 + ORDER2)
@pytest.mark.parametrize("case,which", CASES, ids=CASE_IDS)
def test_rule_against_mpmath(case, which, modes, kind):
    g, _, x0 = _one_variable(case, which, kind)
    d = g
    for m in reversed(modes):            # "FR" = forward (outer) over reverse (inner)
        d = OPERATORS[m](d)
    got = d(x0)
    close(got, _oracle(case, which, len(modes), kind), **CHECK[kind])


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("outer_arg", ["x", "y"])
@pytest.mark.parametrize("modes", ORDER2)
@pytest.mark.parametrize("case", [row[0] for row in BINARY if not _order_row(row[0])])
def test_mixed_partial_against_mpmath(case, modes, outer_arg, kind):
    """∂²f/∂x∂y by differentiating over one argument outside and the other inside."""
    _, f, _, a, b = BINARY_BY_ID[case]
    a, b = _point(kind, a), _point(kind, b)
    outer, inner = OPERATORS[modes[0]], OPERATORS[modes[1]]
    if outer_arg == "x":
        got = outer(lambda u: inner(lambda v: f(u, v))(b))(a)
    else:
        got = outer(lambda v: inner(lambda u: f(u, v))(a))(b)
    close(got, _mixed_oracle(case, kind), **CHECK[kind])


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("case", [row[0] for row in BINARY if not _order_row(row[0])])
def test_binary_gradient_both_modes_against_mpmath(case, kind):
    """gradient_f and gradient_r of (x, y) ↦ f(x, y): both partials in one call."""
    _, f, mf, a, b = BINARY_BY_ID[case]
    a, b = _point(kind, a), _point(kind, b)
    want = (_oracle(case, "x", 1, kind), _oracle(case, "y", 1, kind))
    for grad in (ad.gradient_f, ad.gradient_r):
        got = grad(lambda p: f(p[0], p[1]))((a, b))
        assert type(got) is tuple and len(got) == 2
        close(got[0], want[0], **CHECK[kind])
        close(got[1], want[1], **CHECK[kind])


# ---- piecewise-constant primitives: derivative exactly 0, value a plain base number -------------

def _sign_ref(x):
    return (x > 0) - (x < 0)


# (id, dvlad function of (variable, constant c), reference on Python floats, c, points)
PIECEWISE = [
    ("floor", lambda t, c: ad.floor(t), lambda t, c: math.floor(t), None, ("-2.7", "3.2")),
    ("ceil", lambda t, c: ad.ceil(t), lambda t, c: math.ceil(t), None, ("-2.7", "3.2")),
    ("trunc", lambda t, c: ad.trunc(t), lambda t, c: math.trunc(t), None, ("-2.7", "3.2")),
    ("round", lambda t, c: ad.round(t), lambda t, c: round(t), None, ("-2.7", "3.2")),
    ("int", lambda t, c: ad.int(t), lambda t, c: int(t), None, ("-2.7", "3.2")),
    ("sign", lambda t, c: ad.sign(t), lambda t, c: _sign_ref(t), None, ("-2.7", "3.2")),
    ("gammasgn", lambda t, c: ad.gammasgn(t), lambda t, c: math.copysign(1.0, math.gamma(t)),
     None, ("-2.7", "-1.5", "3.2")),
    ("floordiv_x", ad.floordiv, lambda t, c: t // c, "1.7", ("-5.3", "5.3")),
    ("floordiv_y", lambda t, c: ad.floordiv(c, t), lambda t, c: c // t, "5.3", ("-1.7", "1.7")),
    ("floordiv_operator", lambda t, c: t // c, lambda t, c: t // c, "1.7", ("-5.3", "5.3")),
]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("modes", ORDER1 + ORDER2)
@pytest.mark.parametrize("case,fn,ref,const,points", PIECEWISE, ids=[p[0] for p in PIECEWISE])
def test_piecewise_derivative_is_exact_zero(case, fn, ref, const, points, modes, kind):
    c = None if const is None else _point(kind, const)
    for text in points:
        x0 = _point(kind, text)
        seen = []

        def g(t):
            r = fn(t, c)
            seen.append(r)
            return r

        d = g
        for m in reversed(modes):
            d = OPERATORS[m](d)
        got = d(x0)
        assert got == 0 and type(got) is KINDS[kind][1], repr(got)
        assert seen, "the function was never called"
        want = ref(float(x0), None if c is None else float(c))
        for r in seen:
            assert not isinstance(r, (ad.Bundle, ad.TapeCell)), repr(r)
            assert r == want, (r, want)


# ---- values keep their type; mpf stays exact when mixed with float constants -------------------

@functools.lru_cache(maxsize=None)
def _value_oracle(case, which, kind):
    _, mg, x0 = _one_variable(case, which, kind)
    with mp.workdps(ORACLE_DPS):
        return mg(_as_mpf(x0))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("case,which", CASES, ids=CASE_IDS)
def test_value_keeps_the_input_type(case, which, kind):
    """f(x) as a base call, and as the primal of jvp and vjp: right type, right value."""
    g, _, x0 = _one_variable(case, which, kind)
    want = _value_oracle(case, which, kind)
    one = _point(kind, "1")
    close(g(x0), want, **CHECK[kind])
    close(ad.jvp(g, x0, one)[0], want, **CHECK[kind])
    close(ad.vjp(g, x0)[0], want, **CHECK[kind])


@pytest.mark.parametrize("modes", ORDER1 + ORDER2)
@pytest.mark.parametrize("case, which", [(row[0], which) for row in BINARY for which in "xy"
                                         # (an order or a shape argument is not a variable:
                                         # test_an_order_argument_is_refused)
                                         if not (which == "x" and _order_row(row[0]))])
def test_mpf_variable_with_float_constant_stays_exact(case, which, modes):
    """An mpf variable against a plain-float constant: the result is an mpf exact to 50 digits
    (the constant converts exactly, so its partials must not be computed in float)."""
    _, f, mf, a, b = BINARY_BY_ID[case]
    if which == "x":
        x0, c = _point("mpf", a), float(b)
        g, mg = (lambda t: f(t, c)), (lambda t: mf(t, mpmath.mpf(c)))
    else:
        x0, c = _point("mpf", b), float(a)
        g, mg = (lambda t: f(c, t)), (lambda t: mf(mpmath.mpf(c), t))
    d = g
    for m in reversed(modes):
        d = OPERATORS[m](d)
    got = d(x0)
    with mp.workdps(ORACLE_DPS):
        want = mpmath.diff(mg, x0, len(modes))
    close(got, want, **CHECK["mpf"])


def test_pow_mixed_second_derivative_at_exponent_two():
    """∂²(x**y)/∂x∂y = x**(y-1)·(1 + y·log x): 3·(1 + 2 log 3) at (3, 2), in every nesting; the
    cheap partial 2x for a constant exponent 2 must not apply to a perturbed one."""
    want = 3 * (1 + 2 * mpmath.log(3))
    for outer in (ad.derivative, lambda f: lambda v: ad.gradient_r(f)(v)):
        for inner in (ad.derivative, lambda f: lambda v: ad.gradient_r(f)(v)):
            got = outer(lambda y: inner(lambda x: x ** y)(3.0))(2.0)
            assert abs(got - float(want)) < 1e-13
    d2 = 2 ** 2 * (1 + mpmath.log(2)) ** 2 + 2 ** 2 / 2        # (t**t)'' at 2
    assert abs(ad.derivative(ad.derivative(lambda t: t ** t))(2.0) - float(d2)) < 1e-12
    h = ad.hessian(lambda p: p[0] ** p[1])((3.0, 2.0))
    assert h[0][1] == h[1][0] and abs(h[0][1] - float(want)) < 1e-13


FIXED = [(rule.name, i) for rule in TABLE for i in rule.fixed]


@pytest.mark.parametrize("name, i", FIXED, ids=[f"{n}-{i}" for n, i in FIXED])
@pytest.mark.parametrize("op", ["F", "R"])
def test_an_order_argument_is_refused(name, i, op):
    """polygamma's n and iv's v are integer orders, gammainc's a and betainc's a and b shape
    arguments: differentiating in them raises, by name."""
    rule = next(r for r in TABLE if r.name == name)
    f = getattr(ad, name)
    point = [1.0, 0.5, 0.4, 0.3][:rule.arity]
    match = "integer order" if i in rule.orders else f"scipy.special.{name}.*shape argument"

    def g(t):
        return f(*point[:i], t, *point[i + 1:])
    with pytest.raises(ad.NotDifferentiableError, match=match):
        OPERATORS[op](g)(1.0)
