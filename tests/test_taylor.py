"""Issue #7: Taylor towers (``taylor``, ``derivatives``, ``nth_derivative``,
``directional_derivatives``) and the recurrences of dvlad/tower.py.

Oracles, never hard-coded derivative values:

- mpmath at 50 digits: ``mpmath.diffs`` of the same function written with mpmath's functions
  (the ``MP`` namespace below mirrors dvlad's primitive names), for every differentiable row of
  the rule table, to order 8, with the tower in x only, in y only, in both, and in x = y;
- nested ``dvlad.derivative`` (n levels of forward mode), and repeated
  ``dvlad.directional_derivative`` for arrays;
- the derivation from the rule's own partials, ``dvlad.numbers.tower._from_partials``, which the
  recurrences (and the generated float kernels) must agree with;
- exact closed forms (dyadic derivatives of sqrt at 4, polynomials, piecewise-constant rows).

Values are compared by ``support.close`` (relative, floor 1); at kinks and domain edges, with
nested ``derivative``, by ``close(..., nonfinite=True)``, for which nan equals nan and an infinity
equals only itself.  The mpf tests run at ``mp.dps = 50`` through ``mp.workdps`` (restored
afterwards).
"""
import contextlib
import math
import sys
from collections import namedtuple
from pathlib import Path
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mpmath import mp

import dvlad as ad
from dvlad.core import kernels as K
from dvlad.numbers import tower as T
from dvlad.core.rules import RULES, TABLE
from dvlad.core.tags import TAYLOR, new_tag
from support import close, owens_t_series

MPF = type(mpmath.mpf(1))
D = ad.derivative
TIGHT = mpmath.mpf(10) ** -40           # 50-digit comparisons (relative, floor 1)


# ---- helpers ------------------------------------------------------------------------------------

def nested_derivatives(f, n):
    """x ↦ [f(x), D f(x), D(D f)(x), …]: n levels of nested forward mode."""
    fs = [f]
    for _ in range(n):
        fs.append(D(fs[-1]))
    return lambda x: [g(x) for g in fs]


def mp_diffs(f, x, n):
    """[f(x), f′(x), …, f⁽ⁿ⁾(x)] by mpmath.diffs at 50 digits (x converted exactly)."""
    with mp.workdps(50):
        return list(mpmath.diffs(f, mpmath.mpf(x), n))


_ORACLES = {}


def case_diffs(case):
    """mp_diffs of a case at its point as a float (exact in mpf too), to order 8: computed once
    for the four tests of section 1 that ask for it (mpmath's diffs of Bessel Y or incomplete
    gamma take seconds)."""
    if case.id not in _ORACLES:
        _ORACLES[case.id] = mp_diffs(case.build(MP), float(case.point), 8)
    return _ORACLES[case.id]


def series_floor(want):
    """close's floor for [f, f′, …, f⁽ⁿ⁾]: order k relative to max(|want_k|, k!·s), where
    s = maxⱼ |want_j|/j! is the size of the Taylor series: a float tower carries absolute errors
    of that size in its coefficients, which k! scales (hypot(t, t) = √2·t has f⁽⁸⁾ = 0, and
    rounding of ~1e-16 in c₈ is ~1e-11 in f⁽⁸⁾).  Never below 1e-290: a series of subnormal
    size has a few digits only (cube∘cube∘cube at 1e-14: f⁽⁴⁾ = 421200·x²³ = 4.2e-317, known to
    five digits by any order of operations)."""
    s = max(abs(float(w)) / math.factorial(j) for j, w in enumerate(want))
    return [max(math.factorial(k) * s, 1e-290) for k in range(len(want))]


@contextlib.contextmanager
def taylor_tag():
    """A live Taylor tag for building towers by hand; dead afterwards."""
    tag = new_tag(TAYLOR, "test")
    try:
        yield tag
    finally:
        tag.live = False


@pytest.fixture(autouse=True)
def _quiet_numpy_edges():
    # numpy warns on 0·inf and log(0) at the kinks; those are documented values, not errors.
    with np.errstate(all="ignore"):
        yield


def _quantile(name, cdf):
    """The inverse of ``cdf`` in its last argument by mpmath.findroot, from dvlad's float value."""
    def f(*args):
        *shapes, q = args
        x0 = float(getattr(ad, name)(*(float(s) for s in shapes), float(q)))
        return mpmath.findroot(lambda x: cdf(*shapes, x) - q, mpmath.mpf(x0))
    return f


def _besselk_n(n, x):
    """K_n(x) of an integer n as the mean of K_(n ± ε), ε = 10⁻⁴⁰ (exact to ε²): mpmath's own
    integer-order K is a limit, which in mpmath.diffs to order 8 took 18 s (k1e), this 0.4 s."""
    eps = mpmath.mpf(10) ** -40
    return (mpmath.besselk(n + eps, x) + mpmath.besselk(n - eps, x)) / 2


# mpmath's functions under dvlad's names, so one builder gives the dvlad and the oracle function.
MP = SimpleNamespace(
    neg=lambda x: -x, square=lambda x: x * x, reciprocal=lambda x: 1 / x, abs=mpmath.fabs,
    sqrt=mpmath.sqrt, exp=mpmath.exp, expm1=mpmath.expm1, log=mpmath.log, log1p=mpmath.log1p,
    sin=mpmath.sin, cos=mpmath.cos, tan=mpmath.tan, asin=mpmath.asin, acos=mpmath.acos,
    atan=mpmath.atan, sinh=mpmath.sinh, cosh=mpmath.cosh, tanh=mpmath.tanh,
    add=lambda x, y: x + y, sub=lambda x, y: x - y, mul=lambda x, y: x * y,
    div=lambda x, y: x / y, pow=mpmath.power, mod=lambda x, y: x - y * mpmath.floor(x / y),
    atan2=mpmath.atan2, hypot=mpmath.hypot,
    maximum=lambda x, y: mpmath.mpf(max(x, y)), minimum=lambda x, y: mpmath.mpf(min(x, y)),
    log2=lambda x: mpmath.log(x) / mpmath.log(2), log10=lambda x: mpmath.log(x) / mpmath.log(10),
    exp2=lambda x: mpmath.exp(x * mpmath.log(2)),
    arcsinh=lambda x: mpmath.log(x + mpmath.sqrt(x * x + 1)),
    arccosh=lambda x: mpmath.log(x + mpmath.sqrt(x * x - 1)),
    arctanh=lambda x: mpmath.log((1 + x) / (1 - x)) / 2,
    deg2rad=lambda x: x * mpmath.pi / 180, rad2deg=lambda x: x * 180 / mpmath.pi,
    logaddexp=lambda x, y: mpmath.log(mpmath.exp(x) + mpmath.exp(y)),
    logaddexp2=lambda x, y: mpmath.log(mpmath.power(2, x) + mpmath.power(2, y)) / mpmath.log(2),
    cbrt=lambda x: mpmath.sign(x) * mpmath.cbrt(abs(x)),
    sinc=lambda x: mpmath.sin(mpmath.pi * x) / (mpmath.pi * x),
    copysign=lambda x, y: abs(x) * mpmath.sign(y),
    fmax=lambda x, y: mpmath.mpf(max(x, y)), fmin=lambda x, y: mpmath.mpf(min(x, y)),
    erf=mpmath.erf, erfc=mpmath.erfc, erfinv=mpmath.erfinv,
    erfcinv=lambda x: mpmath.erfinv(1 - x), gammaln=lambda x: mpmath.log(abs(mpmath.gamma(x))),
    digamma=mpmath.digamma, polygamma=lambda n, x: mpmath.polygamma(int(n), x),
    expit=lambda x: 1 / (1 + mpmath.exp(-x)), logit=lambda x: mpmath.log(x / (1 - x)),
    xlogy=lambda x, y: x * mpmath.log(y), xlog1py=lambda x, y: x * mpmath.log1p(y),
    ndtr=lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2,
    log_ndtr=lambda x: mpmath.log(mpmath.erfc(-x / mpmath.sqrt(2)) / 2),
    ndtri=lambda p: mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1),
    i0=lambda x: mpmath.besseli(0, x), i1=lambda x: mpmath.besseli(1, x),
    iv=lambda v, x: mpmath.besseli(int(v), x),
    betaln=lambda a, b: mpmath.log(mpmath.beta(a, b)),
    gamma=mpmath.gamma, rgamma=mpmath.rgamma, beta=mpmath.beta,
    j0=lambda x: mpmath.besselj(0, x), j1=lambda x: mpmath.besselj(1, x),
    y0=lambda x: mpmath.bessely(0, x), y1=lambda x: mpmath.bessely(1, x),
    jn=lambda n, x: mpmath.besselj(int(n), x), yn=lambda n, x: mpmath.bessely(int(n), x),
    ive=lambda v, x: mpmath.besseli(v, x) * mpmath.exp(-abs(x)),
    kv=mpmath.besselk, kve=lambda v, x: mpmath.besselk(v, x) * mpmath.exp(x),
    gammainc=lambda a, x: mpmath.gammainc(a, 0, x, regularized=True),
    gammaincc=lambda a, x: mpmath.gammainc(a, x, mpmath.inf, regularized=True),
    stdtr=lambda v, t: 0.5 + t * mpmath.gamma((v + 1) / 2) * mpmath.hyp2f1(
        0.5, (v + 1) / 2, 1.5, -t * t / v) / (mpmath.sqrt(mpmath.pi * v) * mpmath.gamma(v / 2)),
    pdtr=lambda k, m: mpmath.gammainc(mpmath.floor(k) + 1, m, mpmath.inf, regularized=True),
    betainc=lambda a, b, x: mpmath.betainc(a, b, 0, x, regularized=True),
    poch=lambda z, m: mpmath.gamma(z + m) * mpmath.rgamma(z),
    pdtrc=lambda k, m: mpmath.gammainc(mpmath.floor(k) + 1, 0, m, regularized=True),
    betaincc=lambda a, b, x: mpmath.betainc(a, b, x, 1, regularized=True),
    chdtr=lambda v, x: mpmath.gammainc(v / 2, 0, x / 2, regularized=True),
    chdtrc=lambda v, x: mpmath.gammainc(v / 2, x / 2, mpmath.inf, regularized=True),
    i0e=lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x)),
    i1e=lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x)),
    erfcx=lambda x: mpmath.exp(x * x) * mpmath.erfc(x),
    log_expit=lambda x: -mpmath.log(1 + mpmath.exp(-x)), cosm1=lambda x: mpmath.cos(x) - 1,
    entr=lambda x: -x * mpmath.log(x), rel_entr=lambda x, y: x * mpmath.log(x / y),
    kl_div=lambda x, y: x * mpmath.log(x / y) - x + y,
    exp1=lambda x: -mpmath.ei(-x), expi=mpmath.ei,
    spence=lambda z: mpmath.polylog(2, 1 - z), zeta=mpmath.zeta,
    boxcox=lambda x, lm: mpmath.log(x) if lm == 0 else mpmath.expm1(lm * mpmath.log(x)) / lm,
    boxcox1p=lambda x, lm: (mpmath.log1p(x) if lm == 0 else
                            mpmath.expm1(lm * mpmath.log1p(x)) / lm),
    owens_t=owens_t_series,
    expn=lambda n, x: mpmath.expint(int(n), x),
    dawsn=lambda x: mpmath.sqrt(mpmath.pi) / 2 * mpmath.exp(-x * x) * mpmath.erfi(x),
    loggamma=mpmath.loggamma, fresnel_s=mpmath.fresnels, fresnel_c=mpmath.fresnelc,
    sici_si=mpmath.si, sici_ci=lambda x: mpmath.re(mpmath.ci(x)),
    hyp1f1=mpmath.hyp1f1, hyp2f1=mpmath.hyp2f1,
    gammaincinv=_quantile("gammaincinv", lambda a, x: mpmath.gammainc(a, 0, x, regularized=True)),
    # (1 − the lower tail: 4× faster in mpmath than the upper one, and exact enough at these q)
    gammainccinv=_quantile("gammainccinv",
                           lambda a, x: 1 - mpmath.gammainc(a, 0, x, regularized=True)),
    chdtri=_quantile("chdtri",
                     lambda v, x: 1 - mpmath.gammainc(v / 2, 0, x / 2, regularized=True)),
    stdtrit=_quantile("stdtrit", lambda v, t: 0.5 + t * mpmath.gamma((v + 1) / 2) * mpmath.hyp2f1(
        0.5, (v + 1) / 2, 1.5, -t * t / v) / (mpmath.sqrt(mpmath.pi * v) * mpmath.gamma(v / 2))),
    betaincinv=_quantile("betaincinv",
                         lambda a, b, x: mpmath.betainc(a, b, 0, x, regularized=True)),
    betainccinv=_quantile("betainccinv",
                          lambda a, b, x: 1 - mpmath.betainc(a, b, 0, x, regularized=True)),
    k0=lambda x: _besselk_n(0, x), k1=lambda x: _besselk_n(1, x),
    k0e=lambda x: _besselk_n(0, x) * mpmath.exp(x), k1e=lambda x: _besselk_n(1, x) * mpmath.exp(x),
    kn=lambda n, x: _besselk_n(int(n), x), yv=mpmath.bessely, yve=mpmath.bessely,
    jve=lambda v, x: mpmath.besselj(int(v) if v == int(v) else v, x),
    exp10=lambda x: mpmath.power(10, x), exprel=lambda x: mpmath.expm1(x) / x,
    powm1=lambda x, y: mpmath.power(x, y) - 1,
    huber=lambda d, r: (mpmath.mpf(r) ** 2 / 2 if abs(r) <= d else
                        mpmath.mpf(d) * (abs(r) - mpmath.mpf(d) / 2)),
    pseudo_huber=lambda d, r: mpmath.mpf(d) ** 2 * (mpmath.sqrt(1 + (r / mpmath.mpf(d)) ** 2) - 1),
    erfi=mpmath.erfi, ellipk=mpmath.ellipk, ellipe=mpmath.ellipe,
    ellipkm1=lambda p: mpmath.ellipk(1 - p),
    ndtri_exp=_quantile("ndtri_exp", lambda r: mpmath.log(mpmath.ncdf(r))),
    inv_boxcox=lambda y, lm: (mpmath.exp(y) if lm == 0 else
                              (1 + mpmath.mpf(lm) * y) ** (1 / mpmath.mpf(lm))),
    inv_boxcox1p=lambda y, lm: (mpmath.expm1(y) if lm == 0 else
                                (1 + mpmath.mpf(lm) * y) ** (1 / mpmath.mpf(lm)) - 1),
    eval_legendre=mpmath.legendre, eval_chebyt=mpmath.chebyt, eval_chebyu=mpmath.chebyu,
    eval_chebyc=lambda n, x: 2 * mpmath.chebyt(n, x / 2),
    eval_chebys=lambda n, x: mpmath.chebyu(n, x / 2),
    eval_sh_legendre=lambda n, x: mpmath.legendre(n, 2 * x - 1),
    eval_sh_chebyt=lambda n, x: mpmath.chebyt(n, 2 * x - 1),
    eval_sh_chebyu=lambda n, x: mpmath.chebyu(n, 2 * x - 1),
    eval_laguerre=lambda n, x: mpmath.laguerre(n, 0, x), eval_genlaguerre=mpmath.laguerre,
    eval_gegenbauer=mpmath.gegenbauer, eval_jacobi=mpmath.jacobi,
    eval_sh_jacobi=lambda n, p, q, x: (mpmath.jacobi(n, mpmath.mpf(p) - q, mpmath.mpf(q) - 1,
                                                     2 * x - 1)
                                       / mpmath.binomial(2 * mpmath.mpf(n) + p - 1, n)),
)


# ---- the cases: every differentiable row of the rule table --------------------------------------

UNARY_POINTS = {"neg": "0.7", "abs": "-0.7", "sqrt": "2.0", "exp": "0.3", "expm1": "0.3",
                "log": "2.0", "log1p": "0.5", "sin": "0.7", "cos": "0.7", "tan": "0.4",
                "asin": "0.3", "acos": "-0.3", "atan": "0.7", "sinh": "0.7", "cosh": "0.7",
                "tanh": "0.7", "square": "-0.7", "reciprocal": "1.3", "log2": "2.5",
                "log10": "0.4", "exp2": "0.7", "arcsinh": "-0.9", "arccosh": "1.7",
                "arctanh": "0.3", "deg2rad": "37.5", "rad2deg": "0.7",
                "erf": "0.6", "erfc": "0.6", "erfinv": "0.3", "erfcinv": "0.4", "gammaln": "2.7",
                "digamma": "2.7", "expit": "0.7", "logit": "0.3", "ndtr": "0.6",
                "log_ndtr": "-1.8", "ndtri": "0.3", "i0": "0.8", "i1": "0.8", "cbrt": "2.5",
                "sinc": "0.1", "gamma": "-1.5", "rgamma": "-2.0", "j0": "0.8", "j1": "-2.2",
                "y0": "0.8", "y1": "2.2", "i0e": "0.8", "i1e": "-2.2", "erfcx": "0.6",
                "log_expit": "0.7", "cosm1": "0.6", "entr": "0.6", "exp1": "0.7", "expi": "-1.6",
                "spence": "1", "dawsn": "0.6", "loggamma": "2.7", "fresnel_s": "0.7", "fresnel_c": "-1.6",
                "sici_si": "0.3", "sici_ci": "0.8", "k0": "0.8", "k1": "0.8", "k0e": "0.8",
                "k1e": "0.8", "exp10": "0.7", "exprel": "0.6", "erfi": "0.6", "ellipk": "0.8",
                "ellipe": "0.3", "ellipkm1": "0.3", "ndtri_exp": "-2.5"}
BINARY_POINTS = {"add": ("0.7", "-1.3"), "sub": ("0.7", "-1.3"), "mul": ("0.7", "-1.3"),
                 "div": ("0.7", "-1.3"), "pow": ("1.7", "-1.3"), "mod": ("5.3", "2.1"),
                 "atan2": ("0.7", "-1.3"), "hypot": ("0.7", "-1.3"),
                 "maximum": ("0.7", "-1.3"), "minimum": ("0.7", "-1.3"),
                 "logaddexp": ("0.7", "-1.3"), "logaddexp2": ("0.7", "-1.3"),
                 "xlogy": ("0.7", "1.9"), "xlog1py": ("0.7", "0.9"), "betaln": ("1.7", "2.4"),
                 "polygamma": ("1", "2.3"), "iv": ("2", "1.3"), "fmax": ("0.7", "-1.3"),
                 "fmin": ("0.7", "-1.3"), "copysign": ("1.3", "-0.7"), "beta": ("1.7", "2.4"),
                 "jn": ("2", "1.3"), "yn": ("2", "1.3"), "ive": ("2", "-1.3"),
                 "kv": ("1.5", "1.3"), "kve": ("0.5", "2.1"),
                 "gammainc": ("2.5", "1.3"), "gammaincc": ("1", "0.8"), "stdtr": ("3", "0.7"),
                 "pdtr": ("2", "1.3"), "poch": ("-1.5", "0.8"), "pdtrc": ("3", "2.2"),
                 "chdtr": ("3", "1.3"), "chdtrc": ("1.2", "0.4"), "rel_entr": ("0.7", "1.9"),
                 "kl_div": ("1.6", "0.4"), "zeta": ("2", "1.3"), "boxcox": ("2.5", "0"),
                 "boxcox1p": ("1.5", "0"), "owens_t": ("0.6", "0.8"), "expn": ("2", "1.3"),
                 "gammaincinv": ("2.5", "0.6"), "gammainccinv": ("0.6", "0.8"),
                 "chdtri": ("3", "0.3"), "stdtrit": ("2.5", "0.85"), "kn": ("2", "1.3"),
                 "yv": ("1.5", "1.3"), "yve": ("2.5", "0.7"), "jve": ("1.5", "1.3"),
                 "powm1": ("1.3", "2.5"), "huber": ("1.3", "0.7"), "pseudo_huber": ("1.3", "0.7"),
                 "inv_boxcox": ("1.7", "0.6"), "inv_boxcox1p": ("0.7", "0.6"),
                 "eval_legendre": ("3", "0.4"), "eval_sh_legendre": ("3", "0.4"),
                 "eval_chebyt": ("3", "0.4"), "eval_chebyu": ("3", "0.4"),
                 "eval_chebyc": ("3", "0.8"), "eval_chebys": ("3", "0.8"),
                 "eval_sh_chebyt": ("3", "0.4"), "eval_sh_chebyu": ("3", "0.4"),
                 "eval_laguerre": ("3", "0.8")}
# t ↦ op(t, t): points where that is smooth (maximum/minimum: a tie, partials ½ + ½)
SAME_POINTS = {"add": "0.7", "sub": "0.7", "mul": "0.7", "div": "0.7", "pow": "1.7",
               "mod": "2.1", "atan2": "0.7", "hypot": "0.7", "maximum": "0.7",
               "minimum": "0.7", "logaddexp": "0.7", "logaddexp2": "0.7", "xlogy": "1.9",
               "xlog1py": "0.9", "betaln": "1.7", "polygamma": None, "iv": None, "fmax": "0.7",
               "fmin": "0.7", "copysign": "1.3", "beta": "1.7", "jn": None, "yn": None,
               "ive": None, "kv": None, "kve": None, "gammainc": None, "gammaincc": None,
               "stdtr": None, "pdtr": None,
               "poch": "1.7", "pdtrc": None, "chdtr": None, "chdtrc": None, "rel_entr": "0.7",
               "kl_div": "1.6", "zeta": None, "boxcox": "0.7", "boxcox1p": "0.6",
               "owens_t": "0.7", "expn": None, "gammaincinv": None, "gammainccinv": None,
               "chdtri": None, "stdtrit": None, "kn": None, "yv": None, "yve": None,
               "jve": None, "powm1": "1.3", "huber": "0.7", "pseudo_huber": "0.7",
               "inv_boxcox": "0.7", "inv_boxcox1p": "0.6", "eval_legendre": None,
               "eval_sh_legendre": None, "eval_chebyt": None, "eval_chebyu": None,
               "eval_chebyc": None, "eval_chebys": None, "eval_sh_chebyt": None,
               "eval_sh_chebyu": None, "eval_laguerre": None}
# rows whose first argument is an integer order (polygamma's n) or a shape argument
# (gammainc's a): a series in the other only
ORDER_ROWS = {r.name for r in TABLE if r.fixed}
# rows of three or four arguments (betainc(a, b, x), hyp2f1(a, b, c, x): the shapes fixed): a
# series in the last
TERNARY_POINTS = {"betainc": ("2.5", "1.5", "0.3"), "betaincc": ("0.7", "2.2", "0.6"),
                  "hyp1f1": ("0.7", "1.6", "0.9"), "hyp2f1": ("0.7", "1.6", "2.3", "0.4"),
                  "betaincinv": ("2.5", "1.5", "0.3"), "betainccinv": ("0.7", "2.2", "0.6"),
                  "eval_gegenbauer": ("3", "0.7", "0.4"), "eval_genlaguerre": ("3", "0.5", "0.8"),
                  "eval_jacobi": ("3", "0.5", "0.7", "0.4"),
                  "eval_sh_jacobi": ("3", "2.5", "0.7", "0.4")}


Case = namedtuple("Case", "id point build")


def _unary(name):
    return Case(name, UNARY_POINTS[name], lambda L: getattr(L, name))


def _binary(name, variant):
    xs, ys = BINARY_POINTS[name]
    x0, y0 = float(xs), float(ys)           # constants: floats, exact in both families
    if variant == "x":
        return Case(f"{name}-x", xs, lambda L: lambda t: getattr(L, name)(t, y0))
    if variant == "y":
        return Case(f"{name}-y", ys, lambda L: lambda t: getattr(L, name)(x0, t))
    if variant == "xy":                     # both towers, y a nonlinear function of t
        return Case(f"{name}-xy", xs,
                    lambda L: lambda t: getattr(L, name)(t, y0 + L.sin(t - x0) / 2))
    return Case(f"{name}-same", SAME_POINTS[name], lambda L: lambda t: getattr(L, name)(t, t))


UNARY_NAMES = [r.name for r in TABLE if r.arity == 1 and r.partial_texts]
# The rows' own recurrences (the others are derived from the partials)
REC1 = {r.name: r.taylor for r in TABLE if r.arity == 1 and r.taylor is not None}
REC2 = {r.name: r.taylor for r in TABLE if r.arity == 2 and r.taylor is not None}
BINARY_NAMES = [r.name for r in TABLE if r.arity == 2 and r.partial_texts]
TERNARY_NAMES = [r.name for r in TABLE if r.arity >= 3 and r.partial_texts]


def _ternary(name):
    *fixed, z = TERNARY_POINTS[name]
    fixed = [float(c) for c in fixed]
    return Case(f"{name}-z", z, lambda L: lambda t: getattr(L, name)(*fixed, t))
EXTRA = [   # the branches of x ** y: constant 2 (square), integer exponents, negative bases
    Case("pow-x-2.0", "1.7", lambda L: lambda t: L.pow(t, 2.0)),
    Case("pow-x-int3", "-1.7", lambda L: lambda t: L.pow(t, 3)),
    Case("pow-x-3.0-negative-base", "-1.7", lambda L: lambda t: L.pow(t, 3.0)),
    Case("pow-x-0.5", "1.7", lambda L: lambda t: L.pow(t, 0.5)),
    Case("pow-x--2.5", "0.6", lambda L: lambda t: L.pow(t, -2.5)),
    Case("pow-y-base-0.4", "-1.3", lambda L: lambda t: L.pow(0.4, t)),
    Case("exp-of-sin-times-x", "0.7", lambda L: lambda t: L.exp(L.sin(t)) * t),
    Case("div-by-composite", "0.7", lambda L: lambda t: L.div(L.cos(t), 2.0 + L.sin(t * t))),
]
CASES = ([_unary(name) for name in UNARY_NAMES]
         + [_binary(name, v) for name in BINARY_NAMES
            for v in (("y",) if name in ORDER_ROWS else ("x", "y", "xy", "same"))]
         + [_ternary(name) for name in TERNARY_NAMES]
         + EXTRA)
CASE_IDS = [c.id for c in CASES]


def test_cases_cover_the_rule_table():
    assert set(UNARY_POINTS) == set(UNARY_NAMES)
    assert set(BINARY_POINTS) == set(BINARY_NAMES) == set(SAME_POINTS)
    assert set(TERNARY_POINTS) == set(TERNARY_NAMES)
    assert set(REC1) <= set(UNARY_NAMES) and set(REC2) <= set(BINARY_NAMES)
    for name in UNARY_NAMES + BINARY_NAMES + TERNARY_NAMES:
        assert callable(getattr(MP, name)), name


# ---- 1. every primitive against mpmath at 50 digits, to order 8 ---------------------------------

@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_mpf_derivatives_equal_mpmath_diffs_to_order_8(case):
    with mp.workdps(50):
        x = mpmath.mpf(float(case.point))
        got = ad.derivatives(case.build(ad), 8)(x)
        want = case_diffs(case)
        assert len(got) == 9
        close(got, want, TIGHT, floor=1, of=MPF, what=case.id)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_mpf_taylor_coefficients_equal_mpmath_taylor(case):
    """(mpmath.taylor is diffs divided by k!: the same oracle.)"""
    with mp.workdps(50):
        x = mpmath.mpf(float(case.point))
        got = ad.taylor(case.build(ad), x, 8)
        want = [d / mpmath.factorial(k) for k, d in enumerate(case_diffs(case))]
        close(got, want, TIGHT, floor=1, of=MPF, what=case.id)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_float_derivatives_equal_mpmath_diffs_to_order_8(case):
    x = float(case.point)
    got = ad.derivatives(case.build(ad), 8)(x)
    assert all(type(c) is float for c in got), [type(c) for c in got]
    want = [float(w) for w in case_diffs(case)]
    close(got, want, 1e-12, floor=series_floor(want), what=case.id)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_float_nth_derivative_equals_mpmath_diff(case):
    x = float(case.point)
    want = [float(w) for w in case_diffs(case)]
    for n in (1, 4, 8):
        got = ad.nth_derivative(case.build(ad), n)(x)
        assert type(got) is float
        close(want[:n] + [got], want[:n + 1], 1e-12, floor=series_floor(want[:n + 1]),
              what=f"{case.id}, n = {n}")


# ---- 2. against nested derivative ---------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_float_derivatives_equal_eight_nested_derivatives(case):
    x = float(case.point)
    f = case.build(ad)
    want = nested_derivatives(f, 8)(x)
    close(ad.derivatives(f, 8)(x), want, 1e-10, floor=series_floor(want), what=case.id)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_mpf_derivatives_equal_nested_derivatives(case):
    with mp.workdps(50):
        x = mpmath.mpf(case.point)
        f = case.build(ad)
        close(ad.derivatives(f, 5)(x), nested_derivatives(f, 5)(x), TIGHT, floor=1, of=MPF,
              what=case.id)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round", "sign", "int", "gammasgn"])
def test_piecewise_constant_rows_have_zero_derivatives_at_every_order(name):
    op = getattr(ad, name)
    for x in (2.7, -1.2):
        got = ad.derivatives(op, 5)(x)
        assert got[0] == op(x)
        assert got[1:] == [0.0] * 5 == nested_derivatives(op, 5)(x)[1:]


def test_floordiv_has_zero_derivatives_in_each_argument():
    for f, x, value in ((lambda t: ad.floordiv(t, 2.0), 5.3, 5.3 // 2.0),
                        (lambda t: ad.floordiv(5.3, t), 2.1, 5.3 // 2.1)):
        assert ad.derivatives(f, 4)(x) == [value] + [0.0] * 4 == nested_derivatives(f, 4)(x)


# ---- the catalog cases of CASES.md, by towers ---------------------------------------------------

def test_all_derivatives_of_exp_at_4():
    for k, c in enumerate(ad.derivatives(ad.exp, 7)(4.0)):
        assert abs(c - math.exp(4.0)) <= 1e-15 * math.exp(4.0), (k, c)


def test_all_derivatives_of_sin_at_0():
    got = ad.derivatives(ad.sin, 7)(0.0)
    for c, want in zip(got, [0, 1, 0, -1, 0, 1, 0, -1]):
        assert abs(c - want) <= 1e-15, got


def test_derivatives_of_sqrt_at_4_are_exact():
    """Dyadic values: √4 = 2, then 1/4, −1/32, 3/256, −15/2048."""
    assert ad.derivatives(ad.sqrt, 4)(4.0) == [2.0, 0.25, -0.03125, 0.01171875, -0.00732421875]
    assert ad.nth_derivative(ad.sqrt, 3)(4.0) == 0.01171875


def test_polynomial_derivatives_are_exact():
    assert ad.derivatives(lambda x: x ** 3, 4)(2.0) == [8.0, 12.0, 12.0, 6.0, 0.0]
    assert ad.taylor(lambda x: x ** 3 - 2.0 * x, 1.0, 4) == [-1.0, 1.0, 3.0, 1.0, 0.0]
    assert ad.nth_derivative(lambda x: x ** 6, 6)(1.5) == 720.0
    assert ad.taylor(lambda x: 1.0 / (1.0 - x), 0.0, 6) == [1.0] * 7


def test_order_zero_is_the_value():
    assert ad.derivatives(ad.sin, 0)(0.5) == [math.sin(0.5)]
    assert ad.taylor(ad.sin, 0.5, 0) == [math.sin(0.5)]
    assert ad.nth_derivative(ad.sin, 0)(0.5) == math.sin(0.5)
    assert ad.directional_derivatives(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 1.0), 0) == [6.0]


def test_nth_derivative_is_the_last_of_derivatives():
    f = lambda x: ad.exp(ad.sin(x)) * x                                           # noqa: E731
    all_ = ad.derivatives(f, 6)(0.7)
    for n in range(7):
        assert ad.nth_derivative(f, n)(0.7) == all_[n]


def test_high_order_beyond_the_generated_kernels():
    """Past the unrolled kernels (order > _UNROLL: the loops), against closed forms:
    (sin·exp)⁽ᵏ⁾ = 2^(k/2)·eˣ·sin(x + kπ/4) and (1/(2 − t))⁽ᵏ⁾ = k!/(2 − t)^(k+1)."""
    n = K._UNROLL + 4
    x = 0.3
    got = ad.taylor(lambda t: ad.sin(t) * ad.exp(t), x, n)
    for k, c in enumerate(got):
        want = 2.0 ** (k / 2) * math.exp(x) * math.sin(x + k * math.pi / 4) / math.factorial(k)
        # the Cauchy product adds terms of size 2ᵏ/k! to make one of size 2^(k/2)/k!
        assert abs(c - want) <= 1e-14 * 2.0 ** k / math.factorial(k), (k, c, want)
    got = ad.taylor(lambda t: 1.0 / (2.0 - t), x, n)
    for k, c in enumerate(got):
        assert abs(c - 1.7 ** -(k + 1)) <= 1e-13 * 1.7 ** -(k + 1), (k, c)
    with mp.workdps(50):
        x = mpmath.mpf("0.3")
        got = ad.derivatives(lambda t: ad.exp(ad.sin(t)), 16)(x)
        want = mp_diffs(lambda t: mpmath.exp(mpmath.sin(t)), x, 16)
        close(got, want, TIGHT, floor=1, of=MPF, what="exp∘sin to order 16")
    got = ad.nth_derivative(lambda x: x ** 20, 20)(0.9)
    assert abs(got - math.factorial(20)) <= 1e-13 * math.factorial(20)


# ---- 3. each recurrence against the derivation from the rule's partials -------------------------

N = 8
PATTERNS = {
    # coefficients 1..8 (0.0 is a structural zero); c0 is the primitive's point
    "dense": ["0.6", "-0.35", "0.2", "0.15", "-0.1", "0.05", "0.03", "-0.02"],
    "affine": ["0.7"] + [None] * 7,
    "sparse": [None, "0.5", None, "-0.25", None, None, "0.1", None],
}


def _coeffs(c0, pattern, kind):
    """[c0, c1, …, c8] as floats or mpf, with None as a structural float 0.0."""
    num = float if kind == "float" else mpmath.mpf
    return [num(c0)] + [0.0 if c is None else num(c) for c in PATTERNS[pattern]]


def _check_coefficients(got, want, kind, what):
    assert len(got) == len(want) == N + 1, (what, got, want)
    close(got, want, mpmath.mpf(10) ** -45 if kind == "mpf" else 1e-13, floor=1, what=what)


@pytest.mark.parametrize("kind", ["float", "mpf"])
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("name", sorted(REC1))
def test_unary_recurrence_equals_derivation_from_partials(name, pattern, kind):
    rule = RULES[name]
    with mp.workdps(50), taylor_tag() as tag:
        a = _coeffs(UNARY_POINTS[name], pattern, kind)
        x = T.make_tower(tag, a)
        z0 = rule.op(a[0])
        want = T._from_partials(rule, tag, (x,), (True,), N, z0)
        rec = REC1[name](a, N, z0)
        assert rec is not None, f"{name} declined a point inside its domain"
        _check_coefficients(rec, want, kind, f"{name} recurrence")
        via_op = getattr(ad, name)(x)          # the dispatch: a float kernel where there is one
        assert type(via_op) is T.Tower and via_op.tag is tag
        _check_coefficients(via_op.coeffs, want, kind, f"dvlad.{name} of a tower")


BINARY_ARGS = {"tower-tower": (True, True), "tower-const": (True, False),
               "const-tower": (False, True), "same-tower": None}


@pytest.mark.parametrize("kind", ["float", "mpf"])
@pytest.mark.parametrize("args", sorted(BINARY_ARGS))
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("name", sorted(REC2))
def test_binary_recurrence_equals_derivation_from_partials(name, pattern, args, kind):
    rule = RULES[name]
    num = float if kind == "float" else mpmath.mpf
    xs, ys = BINARY_POINTS[name]
    with mp.workdps(50), taylor_tag() as tag:
        if args == "same-tower":
            a = _coeffs(SAME_POINTS[name], pattern, kind)
            x = y = T.make_tower(tag, a)
            b, ins = a, (True, True)
        else:
            ins = BINARY_ARGS[args]
            a = _coeffs(xs, pattern, kind)
            b = _coeffs(ys, "dense" if pattern != "dense" else "sparse", kind)
            x = T.make_tower(tag, a) if ins[0] else num(xs)
            y = T.make_tower(tag, b) if ins[1] else num(ys)
            a = a if ins[0] else [x] + [0.0] * N
            b = b if ins[1] else [y] + [0.0] * N
        z0 = rule.op(a[0], b[0])
        want = T._from_partials(rule, tag, (x, y), ins, N, z0)
        rec = REC2[name](a, b, N, z0, *ins)
        assert rec is not None, f"{name} declined a point inside its domain"
        _check_coefficients(rec, want, kind, f"{name} recurrence")
        via_op = getattr(ad, name)(x, y)
        assert type(via_op) is T.Tower and via_op.tag is tag
        _check_coefficients(via_op.coeffs, want, kind, f"dvlad.{name} of towers")


@pytest.mark.parametrize("exponent", ["2.0", "3", "0.5", "-1.3"])
@pytest.mark.parametrize("kind", ["float", "mpf"])
def test_pow_constant_exponent_recurrence_equals_derivation(exponent, kind):
    rule = RULES["pow"]
    with mp.workdps(50), taylor_tag() as tag:
        a = _coeffs("1.7", "dense", kind)
        c = int(exponent) if exponent == "3" else (float if kind == "float" else mpmath.mpf)(
            exponent)
        x = T.make_tower(tag, a)
        z0 = rule.op(a[0], c)
        want = T._from_partials(rule, tag, (x, c), (True, False), N, z0)
        rec = REC2["pow"](a, [c] + [0.0] * N, N, z0, True, False)
        _check_coefficients(rec, want, kind, f"x ** {exponent}")
        _check_coefficients(ad.pow(x, c).coeffs, want, kind, f"dvlad.pow(x, {exponent})")


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, K._UNROLL])
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("name", sorted(r.name for r in TABLE if r.kernel is not None))
def test_generated_float_kernel_equals_the_loop_recurrence(name, pattern, n):
    kernel = RULES[name].kernel(n)
    assert kernel is not None
    cs = _coeffs(UNARY_POINTS.get(name, "0.7"), pattern, "float")
    a = (cs + [0.0] * n)[:n + 1]
    if name in REC1:
        z0 = RULES[name].op(a[0])
        got, want = kernel(a), REC1[name](a, n, z0)
    else:
        b = (_coeffs("-1.3", "dense", "float") + [0.31] * n)[:n + 1]
        z0 = RULES[name].op(a[0], b[0])
        got, want = kernel(a, b), REC2[name](a, b, n, z0, True, True)
        close(kernel(b, a), REC2[name](b, a, n, RULES[name].op(b[0], a[0]), True, True), 1e-14,
              floor=1, what=f"{name} swapped")
    assert type(got) is list and len(got) == n + 1
    close(got, want, 1e-14, floor=1, what=f"{name} kernel, order {n}")


# ---- 4. kinks and domain edges: the rule table's conventions ------------------------------------

KINKS = [
    ("sqrt@0", ad.sqrt, 0),
    ("abs@0", ad.abs, 0),
    ("abs(sin)@0", lambda t: ad.abs(ad.sin(t)), 0),
    ("sqrt(abs)@0", lambda t: ad.sqrt(ad.abs(t)), 0),
    ("sqrt(t*t)@0", lambda t: ad.sqrt(t * t), 0),
    ("exp(sqrt)@0", lambda t: ad.exp(ad.sqrt(t)), 0),
    ("log@0", ad.log, 0),
    ("log(t*t)@0", lambda t: ad.log(t * t), 0),
    ("log1p@-1", ad.log1p, -1),
    ("asin@1", ad.asin, 1),
    ("asin@-1", ad.asin, -1),
    ("acos@1", ad.acos, 1),
    ("acos@-1", ad.acos, -1),
    ("x**0.0@0", lambda t: t ** 0.0, 0),
    ("x**0@0", lambda t: t ** 0, 0),
    ("x**0.5@0", lambda t: t ** 0.5, 0),
    ("x**1.0@0", lambda t: t ** 1.0, 0),
    ("x**1@0", lambda t: t ** 1, 0),
    ("x**1.5@0", lambda t: t ** 1.5, 0),
    ("x**2.0@0", lambda t: t ** 2.0, 0),
    ("x**2.5@0", lambda t: t ** 2.5, 0),
    ("x**3.0@0", lambda t: t ** 3.0, 0),
    ("x**3@0", lambda t: t ** 3, 0),
    ("x**x@0", lambda t: ad.pow(t, t), 0),
    ("0**y@0", lambda t: ad.pow(0.0, t), 0),
    ("0**y@1.5", lambda t: ad.pow(0.0, t), 1.5),
    ("(-2)**y@1", lambda t: ad.pow(-2.0, t), 1),
    ("maximum(t,0)@0", lambda t: ad.maximum(t, 0.0), 0),
    ("maximum(0,t)@0", lambda t: ad.maximum(0.0, t), 0),
    ("minimum(t,0)@0", lambda t: ad.minimum(t, 0.0), 0),
    ("maximum(t,t)@0.3", lambda t: ad.maximum(t, t), 0.3),
    ("maximum(t,2t)@0", lambda t: ad.maximum(t, 2 * t), 0),
    ("minimum(t,-t)@0", lambda t: ad.minimum(t, -t), 0),
    ("maximum(sin,t)@0", lambda t: ad.maximum(ad.sin(t), t), 0),
    ("atan2(t,t)@0", lambda t: ad.atan2(t, t), 0),
    ("atan2(t,0)@0", lambda t: ad.atan2(t, 0.0), 0),
    ("atan2(0,t)@0", lambda t: ad.atan2(0.0, t), 0),
    ("atan2(t*t,t)@0", lambda t: ad.atan2(t * t, t), 0),
    ("hypot(t,t)@0", lambda t: ad.hypot(t, t), 0),
    ("hypot(t,0)@0", lambda t: ad.hypot(t, 0.0), 0),
    ("hypot(0,t)@0", lambda t: ad.hypot(0.0, t), 0),
    ("hypot(t,2t)@0", lambda t: ad.hypot(t, 2 * t), 0),
    ("mod(t,1)@2", lambda t: ad.mod(t, 1.0), 2),
    ("mod(5,t)@2.5", lambda t: ad.mod(5.0, t), 2.5),
    ("mod(t*t,t)@2.1", lambda t: ad.mod(t * t, t), 2.1),
]
KINK_IDS = [k[0] for k in KINKS]


@pytest.mark.parametrize("label, f, x", KINKS, ids=KINK_IDS)
def test_kink_float_tower_equals_nested_derivative(label, f, x):
    x = float(x)
    close(ad.derivatives(f, 6)(x), nested_derivatives(f, 6)(x), 1e-12, floor=1, nonfinite=True,
          what=label)


@pytest.mark.parametrize("label, f, x", KINKS, ids=KINK_IDS)
def test_kink_mpf_tower_equals_nested_derivative(label, f, x):
    with mp.workdps(50):
        x = mpmath.mpf(x)
        got = ad.derivatives(f, 6)(x)
        assert all(type(c) is MPF for c in got), [type(c) for c in got]
        close(got, nested_derivatives(f, 6)(x), TIGHT, floor=1, nonfinite=True, what=label)


@pytest.mark.parametrize("label, f, x", KINKS, ids=KINK_IDS)
def test_kink_same_convention_for_float_mpf_and_float64(label, f, x):
    at_float = ad.derivatives(f, 6)(float(x))
    at_f64 = ad.derivatives(f, 6)(np.float64(x))
    assert all(type(c) is np.float64 for c in at_f64), [type(c) for c in at_f64]
    with mp.workdps(50):
        at_mpf = [float(c) for c in ad.derivatives(f, 6)(mpmath.mpf(x))]
    close(at_float, at_mpf, 1e-12, floor=1, nonfinite=True, what=f"{label}: float vs mpf")
    close(at_float, [float(c) for c in at_f64], 1e-12, floor=1, nonfinite=True,
          what=f"{label}: float vs float64")


def test_kink_conventions_stated_in_rules():
    """The first-order values the rules.py docstring lists, read off towers."""
    inf = math.inf
    assert ad.derivatives(ad.sqrt, 1)(0.0) == [0.0, inf]
    assert ad.derivatives(ad.abs, 3)(0.0) == [0.0, 0.0, 0.0, 0.0]
    assert ad.derivatives(lambda x: x ** 0.0, 2)(0.0) == [1.0, 0.0, 0.0]
    assert ad.derivatives(lambda x: x ** 3.0, 1)(0.0) == [0.0, 0.0]
    assert ad.derivatives(lambda x: x ** 1.0, 1)(0.0) == [0.0, 1.0]
    assert ad.derivatives(lambda x: x ** 0.5, 1)(0.0) == [0.0, inf]
    assert ad.derivatives(ad.log, 1)(0.0) == [-inf, inf]
    assert ad.derivatives(ad.asin, 1)(1.0)[1] == inf and ad.derivatives(ad.acos, 1)(1.0)[1] == -inf
    assert ad.derivatives(lambda t: ad.atan2(t, t), 1)(0.0) == [0.0, 0.0]
    assert ad.derivatives(lambda t: ad.hypot(t, t), 1)(0.0) == [0.0, 0.0]
    assert ad.derivatives(lambda t: ad.maximum(t, 0.0), 1)(0.0) == [0.0, 0.5]
    assert ad.derivatives(lambda t: ad.minimum(0.0, t), 1)(0.0) == [0.0, 0.5]
    d = ad.derivatives(lambda t: ad.pow(-2.0, t), 1)(1.0)
    assert d[0] == -2.0 and d[1] != d[1]


def test_reciprocal_at_zero_raises_as_nested_derivative_does():
    for x in (0.0, mpmath.mpf(0)):
        with pytest.raises(ZeroDivisionError):
            D(ad.reciprocal)(x)
        with pytest.raises(ZeroDivisionError):
            ad.derivatives(ad.reciprocal, 3)(x)
        with pytest.raises(ZeroDivisionError):
            ad.derivatives(lambda t: 1.0 / t, 3)(x)


# An infinite coefficient (from sqrt at 0) flowing on into other primitives.  The float path
# (the generated kernels only take finite coefficients, so these run the loops) must give what
# the mpf path and nested derivative give.
INF_FLOWS = [
    ("exp(0.7+sqrt)", lambda t: ad.exp(0.7 + ad.sqrt(t))),
    ("sin(sqrt)", lambda t: ad.sin(ad.sqrt(t))),
    ("cos(sqrt)", lambda t: ad.cos(ad.sqrt(t))),
    ("cosh(sqrt)", lambda t: ad.cosh(ad.sqrt(t))),
    ("sqrt*exp", lambda t: ad.sqrt(t) * ad.exp(t)),
    ("sqrt*sqrt", lambda t: ad.sqrt(t) * ad.sqrt(t)),
    ("sqrt(2+sqrt)", lambda t: ad.sqrt(2.0 + ad.sqrt(t))),
    ("log(2+sqrt)", lambda t: ad.log(2.0 + ad.sqrt(t))),
    ("tan(0.4+sqrt)", lambda t: ad.tan(0.4 + ad.sqrt(t))),
    ("atan(0.7+sqrt)", lambda t: ad.atan(0.7 + ad.sqrt(t))),
    ("asin(0.3+sqrt)", lambda t: ad.asin(0.3 + ad.sqrt(t))),
    ("1/(1+sqrt)", lambda t: 1.0 / (1.0 + ad.sqrt(t))),
    ("(1+sqrt)*(1+t)", lambda t: (1.0 + ad.sqrt(t)) * (1.0 + t)),
    ("(1+sqrt)**2.5", lambda t: (1.0 + ad.sqrt(t)) ** 2.5),
    ("2**sqrt", lambda t: ad.pow(2.0, ad.sqrt(t))),
    ("hypot(1+sqrt,1+t)", lambda t: ad.hypot(1.0 + ad.sqrt(t), 1.0 + t)),
    ("maximum(sqrt,t)", lambda t: ad.maximum(ad.sqrt(t), t)),
    # a computed float 0.0 coefficient meeting an infinite one
    ("sqrt*cos", lambda t: ad.sqrt(t) * ad.cos(t)),
    ("sin(0.7+sqrt)*cos", lambda t: ad.sin(0.7 + ad.sqrt(t)) * ad.cos(t)),
    ("sqrt(t**3)", lambda t: ad.sqrt(t ** 3)),
    ("sqrt(sin**2)", lambda t: ad.sqrt(ad.sin(t) ** 2)),
    # an infinite coefficient through the quotient, x**y and atan2 recurrences
    ("(2+t)/(1+sqrt)", lambda t: (2.0 + t) / (1.0 + ad.sqrt(t))),
    ("(1.7+t)**(-1.3+sqrt)", lambda t: ad.pow(1.7 + t, -1.3 + ad.sqrt(t))),
    ("atan2(0.7+sqrt,-1.3)", lambda t: ad.atan2(0.7 + ad.sqrt(t), -1.3)),
    ("atan2(0.7,-1.3+sqrt)", lambda t: ad.atan2(0.7, -1.3 + ad.sqrt(t))),
]
INF_IDS = [k[0] for k in INF_FLOWS]


@pytest.mark.parametrize("label, f", INF_FLOWS, ids=INF_IDS)
def test_infinite_coefficient_float_path_equals_mpf_path(label, f):
    at_float = ad.derivatives(f, 4)(0.0)
    assert mpmath.isinf(at_float[1]) or at_float[1] != at_float[1], at_float
    with mp.workdps(50):
        at_mpf = [float(c) for c in ad.derivatives(f, 4)(mpmath.mpf(0))]
    close(at_float, at_mpf, 1e-12, floor=1, nonfinite=True, what=label)


def assert_never_finite_where_nested_is_not(got, want, what):
    """Above an infinite coefficient the derivatives are not real numbers: a tower and nested
    derivative may place inf and nan differently there (each follows its own products), but a
    tower is never finite where nested derivative is not, and equal where it is finite."""
    for k, (a, b) in enumerate(zip(got, want)):
        if mpmath.isfinite(b):
            close(a, b, 1e-12, floor=1, what=f"{what}: order {k}: got {got}, want {want}")
        else:
            assert not mpmath.isfinite(a), f"{what}: order {k} is finite: got {got}, want {want}"


@pytest.mark.parametrize("label, f", INF_FLOWS, ids=INF_IDS)
def test_infinite_coefficient_tower_equals_nested_derivative(label, f):
    assert_never_finite_where_nested_is_not(ad.derivatives(f, 4)(0.0),
                                            nested_derivatives(f, 4)(0.0), label)


INF_PATTERNS = {
    "inf-first": [math.inf, 0.0, 0.0, 0.0],
    "inf-second": [1.0, math.inf, 0.0, 0.0],
    "inf-mixed": [math.inf, -math.inf, 0.5, 0.0],
}


@pytest.mark.parametrize("pattern", sorted(INF_PATTERNS))
@pytest.mark.parametrize("name", sorted(REC1))
def test_unary_at_infinite_coefficients_equals_derivation(name, pattern):
    """The primitive at a tower with an infinite coefficient gives what the derivation from its
    partials gives (the recurrences that divide hand over to it there)."""
    rule = RULES[name]
    with taylor_tag() as tag:
        a = [float(UNARY_POINTS[name])] + [T.ZERO if c == 0 else c for c in INF_PATTERNS[pattern]]
        z0 = rule.op(a[0])
        want = T._from_partials(rule, tag, (T.make_tower(tag, a),), (True,), 4, z0)
        got = rule.op(T.make_tower(tag, a)).coeffs
        close(got, want, 1e-12, floor=1, nonfinite=True, what=f"{name} at {a}")
        if not RULES[name].divides:            # the recurrence itself is the derivation
            close(REC1[name](a, 4, z0), want, 1e-12, floor=1, nonfinite=True,
                  what=f"{name} recurrence at {a}")


@pytest.mark.parametrize("ins", [(True, True), (True, False), (False, True)],
                         ids=["tower-tower", "tower-const", "const-tower"])
@pytest.mark.parametrize("name", sorted(REC2))
def test_binary_at_infinite_coefficients_equals_derivation(name, ins):
    rule = RULES[name]
    x0, y0 = (float(s) for s in BINARY_POINTS[name])
    Z = T.ZERO
    with taylor_tag() as tag:
        for a, b in (([x0, 1.0, Z, Z, Z], [y0, math.inf, Z, Z, Z]),
                     ([x0, math.inf, Z, Z, Z], [y0, 1.0, Z, Z, Z])):
            x = T.make_tower(tag, a) if ins[0] else x0
            y = T.make_tower(tag, b) if ins[1] else y0
            z0 = rule.op(x0, y0)
            want = T._from_partials(rule, tag, (x, y), ins, 4, z0)
            close(rule.op(x, y).coeffs, want, 1e-12, floor=1, nonfinite=True,
                  what=f"{name}{ins} at {a}, {b}")
            if not RULES[name].divides:
                a = a if ins[0] else [x0] + [Z] * 4
                b = b if ins[1] else [y0] + [Z] * 4
                close(REC2[name](a, b, 4, z0, *ins), want, 1e-12, floor=1, nonfinite=True,
                      what=f"{name}{ins} recurrence at {a}, {b}")


ORDER_FREE = [
    ("exp∘sin·x", lambda t: ad.exp(ad.sin(t)) * t, 0.7),
    ("cosh/(2+sin)", lambda t: ad.cosh(t) / (2.0 + ad.sin(t)), -0.4),
    ("sinh(t²)", lambda t: ad.sinh(t * t), 0.0),
    # finite coefficients whose series overflows inside the generated kernel
    ("exp(1e200·t²)", lambda t: ad.exp(1e200 * t * t), 0.0),
    ("sin(1e200·t²)", lambda t: ad.sin(1e200 * t * t), 0.0),
]


@pytest.mark.parametrize("label, f, x", ORDER_FREE, ids=[k[0] for k in ORDER_FREE])
def test_a_derivative_does_not_depend_on_the_order_asked_for(label, f, x):
    """f⁽ᵏ⁾ from derivatives(f, 6) (the generated float kernels) and from
    derivatives(f, _UNROLL + 2) (the loops) are the same numbers."""
    short = ad.derivatives(f, 6)(x)
    long = ad.derivatives(f, K._UNROLL + 2)(x)[:7]
    close(short, long, 1e-12, floor=1, nonfinite=True, what=label)


# ---- 5. nesting with every other operator -------------------------------------------------------

def test_perturbation_confusion_with_towers():
    """The 2005 and 2008 examples (CASES.md §1), every D replaced by a tower operator."""
    assert ad.derivatives(lambda x: x * ad.nth_derivative(lambda y: x + y, 1)(1.0), 2)(1.0) \
        == [1.0, 1.0, 0.0]
    assert ad.derivatives(lambda x: x * ad.nth_derivative(lambda y: x * y, 1)(2.0), 2)(1.0) \
        == [1.0, 2.0, 2.0]
    assert ad.nth_derivative(lambda y: ad.nth_derivative(lambda x: x * (x * y), 1)(3 * y),
                             1)(5.0) == 60.0
    assert ad.nth_derivative(lambda y: ad.derivatives(lambda x: x * (x * y), 2)(2 * y)[1],
                             1)(2.0) == 16.0
    one = lambda x: ad.nth_derivative(lambda y: x + y, 1)(3.0)                    # noqa: E731
    assert ad.derivatives(one, 2)(7.0) == [1.0, 0.0, 0.0]
    assert ad.derivatives(lambda x: x * one(2 * x), 2)(7.0) == [7.0, 1.0, 0.0]
    # mixed with derivative and gradient_r, both ways round
    assert ad.derivatives(lambda x: x * D(lambda y: x * y)(2.0), 2)(1.0) == [1.0, 2.0, 2.0]
    assert D(lambda x: x * ad.nth_derivative(lambda y: x + y, 1)(1.0))(1.0) == 1.0
    assert ad.gradient_r(lambda p: p[0] * ad.nth_derivative(lambda y: p[0] * y, 1)(2.0))(
        (1.0,)) == (2.0,)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_operator_built_once_and_reentered(n):
    """Tags are made when the operator is applied: d, made once, is applied again inside its
    own application, d(2) = (y ↦ y·(z ↦ z³)⁽ⁿ⁾(y))⁽ⁿ⁾ at 2."""
    depth = []

    def h(y):
        if depth:
            return y ** 3
        depth.append(y)
        try:
            return y * d(y)
        finally:
            depth.pop()

    d = ad.nth_derivative(h, n)
    cube_n = lambda z: nested_derivatives(lambda w: w ** 3, n)(z)[n]              # noqa: E731
    want = nested_derivatives(lambda y: y * cube_n(y), n)(2.0)[n]
    assert d(2.0) == want
    both = ad.derivatives(lambda x: d(x) * d(2.0 * x), 2)(1.0)
    assert both == nested_derivatives(lambda x: d(x) * d(2.0 * x), 2)(1.0)


def test_three_derivatives_of_sqrt_at_4_in_every_mix():
    """CASES.md §1: every composition of three derivatives of sqrt at 4 is 0.01171875."""
    R = lambda f: lambda x: ad.gradient_r(f)(x)                                   # noqa: E731
    T1 = lambda f: ad.nth_derivative(f, 1)                                        # noqa: E731
    T2 = lambda f: ad.nth_derivative(f, 2)                                        # noqa: E731
    sq = ad.sqrt
    for op in (ad.nth_derivative(sq, 3), T1(T2(sq)), T2(T1(sq)), T1(T1(T1(sq))), D(T2(sq)),
               T2(D(sq)), R(T2(sq)), T2(R(sq)), D(T1(R(sq))), R(D(T1(sq))), T1(R(D(sq)))):
        assert op(4.0) == 0.01171875


def test_gradient_of_nth_derivative_equals_gradient_of_nested_derivatives():
    def g(p):
        return ad.sin(p[0] * p[2]) * ad.exp(p[1] * p[2]) / (1.0 + p[2] * p[2])

    p0 = (1.2, -0.4)
    for n in (1, 3, 5):
        def tower(p, n=n):
            return ad.nth_derivative(lambda t: g((p[0], p[1], t)), n)(0.6)

        def nested(p, n=n):
            return nested_derivatives(lambda t: g((p[0], p[1], t)), n)(0.6)[n]

        close(ad.gradient_r(tower)(p0), ad.gradient_r(nested)(p0), 1e-12, floor=1, what=f"n={n}")
        close(ad.gradient_f(tower)(p0), ad.gradient_r(nested)(p0), 1e-12, floor=1, what=f"n={n}")
    check_p = (0.9, 0.3)
    ad.check_grads(lambda p: ad.nth_derivative(lambda t: g((p[0], p[1], t)), 3)(0.6), check_p,
                   order=2)


def test_hessian_of_taylor_coefficient_equals_nested():
    def f(p):
        return ad.taylor(lambda t: ad.exp(p[0] * t) * ad.cos(p[1] * t), 0.3, 4)[4]

    def f_nested(p):
        return nested_derivatives(lambda t: ad.exp(p[0] * t) * ad.cos(p[1] * t), 4)(0.3)[4] / 24

    p = [0.8, -1.1]
    for a, b in zip(ad.hessian(f)(p), ad.hessian(f_nested)(p)):
        close(a, b, 1e-11, floor=1, what="hessian")


def test_gradient_inside_a_tower_equals_nested_derivatives():
    def f(t):
        return ad.gradient_r(lambda p: ad.sin(p[0] * t) * p[1] * ad.exp(p[1] * t))((1.2, 0.7))[0]

    close(ad.derivatives(f, 5)(0.5), nested_derivatives(f, 5)(0.5), 1e-12, floor=1, what="R in T")

    def g(t):       # the whole gradient: a tuple per order
        return ad.gradient_r(lambda p: p[0] * p[0] * ad.cos(p[1] * t))([t, 0.3])

    got = ad.derivatives(g, 4)(0.8)
    want = nested_derivatives(g, 4)(0.8)
    assert all(type(c) is list and len(c) == 2 for c in got)
    for k in range(5):
        close(got[k], want[k], 1e-12, floor=1, what=f"order {k}")


def test_derivative_of_taylor_and_taylor_of_derivative():
    def c3(a):
        return ad.taylor(lambda t: ad.exp(a * t) * ad.sin(t), 0.3, 4)[3]

    want = D(lambda a: nested_derivatives(lambda t: ad.exp(a * t) * ad.sin(t), 3)(0.3)[3] / 6)
    assert abs(D(c3)(0.7) - want(0.7)) <= 1e-13 * abs(want(0.7))
    assert abs(ad.gradient_r(c3)(0.7) - want(0.7)) <= 1e-13 * abs(want(0.7))
    # taylor of derivative: D f's derivatives are f's, shifted by one
    f = lambda x: ad.tan(x) * ad.exp(-x * x)                                      # noqa: E731
    close(ad.derivatives(D(f), 5)(0.4), ad.derivatives(f, 6)(0.4)[1:], 1e-12, floor=1, what="T∘D")
    r = lambda x: ad.gradient_r(f)(x)                                             # noqa: E731
    close(ad.derivatives(r, 5)(0.4), ad.derivatives(f, 6)(0.4)[1:], 1e-12, floor=1, what="T∘R")


def test_tower_inside_tower():
    f = lambda x: ad.sin(x) * ad.exp(x / 3.0)                                     # noqa: E731
    inner = ad.derivatives(f, 3)
    got = ad.derivatives(inner, 2)(0.6)          # got[k][j] = f^(j+k)(0.6)
    flat = ad.derivatives(f, 5)(0.6)
    assert type(got) is list and all(type(row) is list and len(row) == 4 for row in got)
    for k in range(3):
        close(got[k], flat[k:k + 4], 1e-12, floor=1, what=f"row {k}")
    # an inner tower whose function depends on the outer variable
    g = lambda x: ad.nth_derivative(lambda y: ad.sin(x * y) * y, 2)(x)           # noqa: E731
    close(ad.derivatives(g, 4)(0.6), nested_derivatives(g, 4)(0.6), 1e-11, floor=1, what="T∘T")
    with mp.workdps(50):
        x = mpmath.mpf("0.6")
        close(ad.derivatives(g, 3)(x), nested_derivatives(g, 3)(x), TIGHT, floor=1, of=MPF,
              what="T∘T mpf")


def test_towers_with_hvp_jvp_vjp():
    def ft(p):
        return ad.nth_derivative(lambda t: ad.sin(p[0] * t) * ad.exp(p[1] * t), 3)(0.4)

    def fn(p):
        return nested_derivatives(lambda t: ad.sin(p[0] * t) * ad.exp(p[1] * t), 3)(0.4)[3]

    p, v = (0.3, 0.8), (1.0, -0.5)
    want = ad.hvp(fn, p, v, mode="fr")
    for mode in ("fr", "rf", "rr", "ff"):
        close(ad.hvp(ft, p, v, mode=mode), want, 1e-12, floor=1, what=f"hvp {mode}")
    close(ad.jvp(ft, p, v), ad.jvp(fn, p, v), 1e-12, floor=1, what="jvp")
    y, back = ad.vjp(lambda q: (ft(q), q[0] * ft(q)), p)
    y2, back2 = ad.vjp(lambda q: (fn(q), q[0] * fn(q)), p)
    close(y, y2, 1e-12, floor=1, what="vjp value")
    close(back((1.0, 2.0)), back2((1.0, 2.0)), 1e-12, floor=1, what="vjp pullback")


def test_hvp_jvp_vjp_inside_towers():
    def h(a):
        return ad.hvp(lambda p: ad.sin(a * p[0]) * p[1] * p[1], (0.3, 0.8), (1.0, -0.5))

    def j(a):
        return ad.jvp(lambda p: ad.sin(a * p[0]) * p[1], (0.3, 0.8), (1.0, 2.0))

    def v(a):
        return ad.vjp(lambda p: ad.sin(a * p[0]) * ad.exp(p[1]), (0.3, 0.8))[1](1.0)

    for f in (h, j, v):
        got, want = ad.derivatives(f, 4)(1.1), nested_derivatives(f, 4)(1.1)
        assert all(type(c) is tuple for c in got)
        for k in range(5):
            close(got[k], want[k], 1e-12, floor=1, what=f"{f.__name__} order {k}")


def heron(a):
    return ad.fixed_point(lambda y: (y + a / y) / 2, 1.0)


def test_fixed_point_inside_tower_heron():
    for x in (4.0, 9.0, 2.0):
        close(ad.derivatives(heron, 6)(x), ad.derivatives(ad.sqrt, 6)(x), 1e-13, floor=1,
              what=f"heron at {x}")
    assert ad.derivatives(heron, 3)(4.0) == [2.0, 0.25, -0.03125, 0.01171875]
    with mp.workdps(50):
        x = mpmath.mpf(4)
        close(ad.derivatives(heron, 6)(x), ad.derivatives(ad.sqrt, 6)(x), TIGHT, floor=1, of=MPF,
              what="mpf heron")


def test_root_inside_tower():
    def r(a):
        return ad.root(lambda y: y * y - a, 1.0)

    close(ad.derivatives(r, 6)(4.0), ad.derivatives(ad.sqrt, 6)(4.0), 1e-13, floor=1, what="root")

    def kepler(m):              # E with E − 0.3 sin E = m, against nested derivative
        return ad.root(lambda e: e - 0.3 * ad.sin(e) - m, m)

    close(ad.derivatives(kepler, 4)(0.8), nested_derivatives(kepler, 4)(0.8), 1e-10, floor=1,
          what="kepler")
    # x = a·cos x from 0 (CASES.md §3): dx*/da at a = 0.5 is 0.7394815923329188
    fp = lambda a: ad.fixed_point(lambda x: a * ad.cos(x), 0.0)                  # noqa: E731
    close(ad.derivatives(fp, 4)(0.5), nested_derivatives(fp, 4)(0.5), 1e-10, floor=1, what="a cos")
    assert abs(ad.derivatives(fp, 1)(0.5)[1] - 0.7394815923329188) <= 1e-14


def test_towers_of_fixed_points_inside_gradients():
    def f(p):
        return ad.nth_derivative(lambda a: ad.fixed_point(lambda y: (y + a * p[0] / y) / 2, 1.0),
                                 3)(4.0)

    def g(p):
        return ad.nth_derivative(lambda a: ad.sqrt(a * p[0]), 3)(4.0)

    for p in ((1.5,), (0.7,)):
        close(ad.gradient_r(f)(p), ad.gradient_r(g)(p), 1e-12, floor=1, what=f"at {p}")
        close(ad.gradient_f(f)(p), ad.gradient_r(g)(p), 1e-12, floor=1, what=f"at {p}")


def test_leaked_tower_is_a_constant_afterwards():
    leak = []
    assert ad.derivatives(lambda x: leak.append(x) or x * x, 2)(3.0) == [9.0, 6.0, 2.0]
    assert type(leak[0]) is T.Tower and not leak[0].tag.live
    assert ad.derivatives(lambda y: y * leak[0], 2)(2.0) == [6.0, 3.0, 0.0]
    assert ad.taylor(lambda y: ad.sin(leak[0] * y), 0.5, 2)[1] == 3.0 * math.cos(1.5)
    assert D(lambda y: y * leak[0])(2.0) == 3.0
    assert ad.gradient_r(lambda p: p[0] * leak[0])((2.0,)) == (3.0,)
    plain = leak[0] * 2.0
    assert plain == 6.0 and type(plain) is float
    # leaked into a tower of the same operator object, applied again
    d = ad.derivatives(lambda x: x * x * x, 2)
    kept = []
    d(1.0)
    ad.derivatives(lambda x: kept.append(x) or x, 1)(2.0)
    assert d(kept[0]) == [8.0, 12.0, 12.0]


# ---- 6. arrays ----------------------------------------------------------------------------------

XA = np.array([0.3, -0.5, 1.2])
VA = np.array([1.0, 2.0, -0.5])
MA = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.1]])


def repeated_directional(f, x, v, n):
    """[f(x), ∂_v f(x), ∂_v ∂_v f(x), …] by nesting directional_derivative."""
    def along(g):
        return lambda y: ad.directional_derivative(g, y, v)

    fs = [f]
    for _ in range(n):
        fs.append(along(fs[-1]))
    return [g(x) for g in fs]


ARRAY_FUNCTIONS = {
    "sin": np.sin,
    "exp": np.exp,
    "tanh-sqrt": lambda x: np.tanh(np.sqrt(x * x + 1.0)),
    "slicing": lambda x: x[1:] * x[:-1] ** 2,
    "sum": lambda x: np.sum(np.sin(x) * x),
    "matmul": lambda x: MA @ np.sin(x),
    "dot": lambda x: np.dot(x, np.exp(x)),
    "prod": np.prod,
    "det": lambda x: np.linalg.det(np.outer(x, x) + MA),
    "inv": lambda x: np.linalg.inv(MA + np.outer(x, np.sin(x))),
    "solve": lambda x: np.linalg.solve(MA + np.outer(x, x), np.sin(x)),
    "einsum": lambda x: np.einsum("ij,j->i", MA, x * x),
    "reshape-transpose": lambda x: np.reshape(np.outer(x, np.sin(x)).T, (9,)) * x[0],
    "broadcast": lambda x: np.broadcast_to(x, (2, 3)) * np.exp(x),
    "rosenbrock": lambda x: np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2),
    "linear": lambda x: 2.0 * x + 1.0,
}


@pytest.mark.parametrize("name", sorted(ARRAY_FUNCTIONS))
def test_directional_derivatives_equal_repeated_directional_derivative(name):
    f = ARRAY_FUNCTIONS[name]
    got = ad.directional_derivatives(f, XA, VA, 5)
    want = repeated_directional(f, XA, VA, 5)
    # det(M + x xᵀ) is quadratic along a line: orders 3-5 are rounding noise of size ~1e-12;
    # the linear-algebra series carry errors of the size of the matrices' condition number
    close(got, want, 1e-10 if name in ("det", "inv", "solve") else 1e-12, floor=1, what=name)
    for k, (g, w) in enumerate(zip(got, want)):
        assert np.shape(g) == np.shape(w) == np.shape(f(XA)), (name, k)
    coeffs = ad.taylor(f, XA, 5, VA)
    close([c * math.factorial(k) for k, c in enumerate(coeffs)], got, 1e-14, floor=1, what=name)


def test_elementwise_taylor_equals_scalar_taylor_per_element():
    def f(x):
        return np.exp(np.sin(x)) * x / (1.0 + x * x)

    def fs(x):
        return ad.exp(ad.sin(x)) * x / (1.0 + x * x)

    got = ad.taylor(f, XA, 7)                   # direction 1 in every element
    for i, xi in enumerate(XA):
        want = ad.taylor(fs, float(xi), 7)
        close([c[i] for c in got], want, 1e-14, floor=1, what=f"element {i}")
    scaled = ad.taylor(f, XA, 5, VA)             # element i along VA[i]
    for i, (xi, vi) in enumerate(zip(XA, VA)):
        want = ad.taylor(lambda t, xi=float(xi), vi=float(vi): fs(xi + vi * t), 0.0, 5)
        close([c[i] for c in scaled], want, 1e-14, floor=1, what=f"element {i} along v")


def test_float32_stays_float32():
    x32, v32 = XA.astype(np.float32), VA.astype(np.float32)
    for f in (np.sin, lambda x: np.exp(x) * x, lambda x: 2.0 * x + 1.0, lambda x: x[1:] - x[:-1]):
        for coeffs in (ad.taylor(f, x32, 4, v32), ad.directional_derivatives(f, x32, v32, 4)):
            assert all(type(c) is np.ndarray and c.dtype == np.float32 for c in coeffs), \
                [(type(c), getattr(c, "dtype", None)) for c in coeffs]
        want = ad.taylor(f, XA, 4, VA)
        close(ad.taylor(f, x32, 4, v32), want, 1e-5, floor=1, what="float32 values")
    d = ad.derivatives(ad.sin, 3)(np.float32(0.5))
    assert all(type(c) is np.float32 for c in d)


def test_zero_coefficients_have_the_result_shape():
    coeffs = ad.taylor(lambda x: 2.0 * x + 1.0, XA, 3)
    close(coeffs, [2.0 * XA + 1.0, np.full(3, 2.0), np.zeros(3), np.zeros(3)], 0.0, floor=1)
    assert all(type(c) is np.ndarray and c.shape == (3,) for c in coeffs)
    M, V = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    coeffs = ad.taylor(lambda m: 3.0 * m.T, M, 2, V)
    assert [c.shape for c in coeffs] == [(3, 2)] * 3
    assert np.array_equal(coeffs[2], np.zeros((3, 2)))
    const = ad.taylor(lambda x: np.ones(4), XA, 2)
    assert all(type(c) is np.ndarray and c.shape == (4,) for c in const)
    assert np.array_equal(const[1], np.zeros(4)) and np.array_equal(const[2], np.zeros(4))
    d = ad.derivatives(lambda t: np.array([1.0, 2.0]) * t, 3)(1.5)
    assert [np.shape(c) for c in d] == [(2,)] * 4 and not d[2].any() and not d[3].any()


def test_array_constant_leaf_with_zero_direction():
    """A leaf whose direction is exactly 0 is a constant: only the other leaf moves."""
    b = np.array([0.1, 0.2, 0.3])

    def f(p):
        return np.sum(p["a"] * np.exp(p["b"]))

    got = ad.directional_derivatives(f, {"a": XA, "b": b}, {"a": np.zeros(3), "b": VA}, 4)
    want = ad.derivatives(lambda t: np.sum(XA * np.exp(b + t * VA)), 4)(0.0)
    close(got, want, 1e-13, floor=1, what="zero-direction leaf")
    close(got, repeated_directional(f, {"a": XA, "b": b}, {"a": np.zeros(3), "b": VA}, 4), 1e-12,
          floor=1, what="nested")


# ---- 7. structures, functions, errors -----------------------------------------------------------

Pair = namedtuple("Pair", "a b")


def test_structured_results_one_structure_per_order():
    def f(t):
        return {"sq": t * t, "rest": (ad.sin(t), [ad.exp(t), 2.0]), "p": Pair(t, t * t * t)}

    got = ad.derivatives(f, 3)(0.5)
    assert len(got) == 4
    for k, c in enumerate(got):
        assert type(c) is dict and set(c) == {"sq", "rest", "p"}
        assert type(c["rest"]) is tuple and type(c["rest"][1]) is list
        assert type(c["p"]) is Pair
        for leaf, g in ((c["sq"], lambda t: t * t), (c["rest"][0], ad.sin),
                        (c["rest"][1][0], ad.exp), (c["rest"][1][1], lambda t: 2.0),
                        (c["p"].a, lambda t: t), (c["p"].b, lambda t: t * t * t)):
            assert leaf == ad.derivatives(g, 3)(0.5)[k], (k, leaf)


def test_structured_inputs_with_direction_of_the_same_structure():
    def poly(t):
        return (1.0 + t) ** 2 * (2.0 + 0.5 * t)

    for x, v, f in (
            ({"x": 1.0, "y": 2.0}, {"x": 1.0, "y": 0.5}, lambda d: d["x"] ** 2 * d["y"]),
            (Pair(1.0, 2.0), Pair(1.0, 0.5), lambda p: p.a ** 2 * p.b),
            ([1.0, 2.0], [1.0, 0.5], lambda p: p[0] ** 2 * p[1]),
            ((1.0, (2.0,)), (1.0, (0.5,)), lambda p: p[0] ** 2 * p[1][0])):
        assert ad.directional_derivatives(f, x, v, 4) == ad.derivatives(poly, 4)(0.0)
        assert ad.taylor(f, x, 4, v) == ad.taylor(poly, 0.0, 4)


def test_mixed_array_and_scalar_input():
    def f(p):
        return np.sum(np.sin(p[0]) * p[1])

    got = ad.directional_derivatives(f, (XA, 0.7), (VA, -1.0), 4)
    want = repeated_directional(f, (XA, 0.7), (VA, -1.0), 4)
    close(got, want, 1e-12, floor=1, what="array and scalar leaves")


def test_function_valued_results():
    def f(a):
        return lambda b: a * a * b + ad.sin(a * b)

    fs = ad.derivatives(f, 3)(0.7)
    assert len(fs) == 4 and all(callable(g) for g in fs)
    for b in (2.0, -0.4):
        want = nested_derivatives(lambda a, b=b: f(a)(b), 3)(0.7)
        close([g(b) for g in fs], want, 1e-13, floor=1, what=f"b={b}")
    cs = ad.taylor(f, 0.7, 3)
    close([c(2.0) * math.factorial(k) for k, c in enumerate(cs)], [g(2.0) for g in fs], 1e-13,
          floor=1, what="taylor of a function")
    # several arguments, and functions inside a tuple
    g = ad.nth_derivative(lambda a: (lambda y, z: a ** 3 * y * z, a * a), 2)(2.0)
    assert g[0](1.5, 2.0) == 6 * 2.0 * 1.5 * 2.0 and g[1] == 2.0


def test_amazing_bug_with_towers():
    """CASES.md §2 with nth_derivative in place of D: e and e⁷."""
    s = lambda u: lambda f: lambda x: f(x + u)                                    # noqa: E731
    s_hat = ad.nth_derivative(s, 1)(0.0)
    assert abs(s_hat(s_hat(ad.exp))(1.0) - math.e) <= 1e-15 * math.e
    f = lambda x: lambda g: lambda y: g(x + y)                                    # noqa: E731
    f_hat = ad.nth_derivative(f, 1)(3.0)
    assert abs(f_hat(f_hat(ad.exp))(1.0) - math.exp(7.0)) <= 1e-15 * math.exp(7.0)
    s2 = ad.nth_derivative(s, 2)(0.0)            # g ↦ g″
    assert abs(s2(s2(ad.sin))(0.4) - math.sin(0.4)) <= 1e-15
    adder = lambda n: lambda x: x + n                                             # noqa: E731
    assert [g(4.0) for g in ad.derivatives(adder, 2)(3.0)] == [7.0, 1.0, 0.0]


def test_returned_function_called_inside_a_newer_gradient():
    g = ad.nth_derivative(lambda x: lambda y: x * x * y * y, 1)(2.0)
    assert ad.gradient_r(g)(3.0) == 24.0
    assert ad.derivatives(g, 2)(3.0) == [36.0, 24.0, 8.0]


@pytest.mark.parametrize("call", [
    lambda n: ad.derivatives(ad.sin, n)(1.0),
    lambda n: ad.nth_derivative(ad.sin, n)(1.0),
    lambda n: ad.taylor(ad.sin, 1.0, n),
    lambda n: ad.directional_derivatives(ad.sin, 1.0, 1.0, n),
], ids=["derivatives", "nth_derivative", "taylor", "directional_derivatives"])
def test_order_must_be_a_non_negative_int(call):
    with pytest.raises(ValueError, match="≥ 0"):
        call(-1)
    for bad in (2.0, True, False, "2", None, 2.5):
        with pytest.raises(TypeError, match="order n"):
            call(bad)
    assert call(np.int64(2)) == call(2)          # a numpy integer is an int


def test_array_input_to_scalar_operators_is_not_differentiable():
    for op in (ad.derivatives(ad.sin, 2), ad.nth_derivative(ad.sin, 2)):
        with pytest.raises(ad.NotDifferentiableError, match="directional_derivatives"):
            op(XA)
    with pytest.raises(ad.NotDifferentiableError):
        ad.derivatives(ad.sin, 2)("a")
    with pytest.raises(ad.NotDifferentiableError):
        ad.taylor(ad.sin, (1.0, 2.0), 2)          # a structure needs a direction


def test_direction_of_the_wrong_shape_or_structure():
    with pytest.raises(ValueError, match="shape"):
        ad.taylor(np.sin, XA, 2, VA[:2])
    with pytest.raises(ValueError, match="shape"):
        ad.directional_derivatives(np.sin, XA, np.ones((3, 1)), 2)
    with pytest.raises(ValueError, match="leaves"):
        ad.directional_derivatives(lambda p: p[0] * p[1], (1.0, 2.0), (1.0,), 2)
    with pytest.raises(ValueError):
        ad.taylor(lambda d: d["x"], {"x": 1.0, "y": 2.0}, 2, {"x": 1.0})


def test_loud_conversions_inside_towers():
    with pytest.raises(ad.PerturbedConversionError):
        ad.derivatives(lambda t: float(t) * t, 2)(1.0)
    with pytest.raises(ad.PerturbedConversionError):
        ad.derivatives(lambda t: math.sin(t), 2)(1.0)
    with pytest.raises(ad.PerturbedConversionError):
        ad.taylor(lambda t: complex(t), 1.0, 2)
    with pytest.raises(TypeError, match="unhashable"):
        ad.derivatives(lambda t: hash(t), 2)(1.0)
    with pytest.raises(TypeError, match="unhashable"):
        ad.derivatives(lambda t: {t}, 2)(1.0)


def test_comparisons_look_at_the_primal():
    f = lambda t: t * t if t > 0 else -t                                          # noqa: E731
    assert ad.derivatives(f, 2)(1.0) == [1.0, 2.0, 2.0]
    assert ad.derivatives(f, 2)(-1.0) == [1.0, -1.0, 0.0]
    assert ad.derivatives(lambda t: ad.sin(2.0 * t) if bool(t) else t, 1)(0.0) == [0.0, 1.0]
    assert ad.derivatives(lambda t: ad.sin(2.0 * t) if t == 0.0 else t, 1)(0.0) == [0.0, 2.0]


def test_results_are_plain_numbers():
    def plain(v):
        return not isinstance(v, (ad.Bundle, ad.TapeCell, ad.Tower))

    for got in (ad.derivatives(lambda t: ad.exp(t) * t, 4)(0.3), ad.taylor(ad.sin, 0.3, 4),
                ad.directional_derivatives(np.sin, XA, VA, 3)):
        assert all(plain(c) for c in got)
    inner = ad.derivatives(lambda x: ad.derivatives(lambda y: x * y * y, 2)(x), 2)(1.5)
    assert all(plain(c) for row in inner for c in row)


# ---- 8. properties ------------------------------------------------------------------------------

STEPS = {     # e is the value so far, u the other variable (t itself, or a second input)
    "sin": lambda e, u: ad.sin(e),
    "cos": lambda e, u: ad.cos(e),
    "atan": lambda e, u: ad.atan(e),
    "tanh": lambda e, u: ad.tanh(e),
    "exp_sin": lambda e, u: ad.exp(ad.sin(e)),
    "sqrt_1p_sq": lambda e, u: ad.sqrt(1.0 + e * e),
    "log_1p_sq": lambda e, u: ad.log(1.0 + e * e),
    "log1p_sq": lambda e, u: ad.log1p(e * e),
    "square": lambda e, u: ad.square(e),
    "cube": lambda e, u: e ** 3,
    "pow_1.5": lambda e, u: (1.0 + e * e) ** 1.5,
    "recip": lambda e, u: ad.reciprocal(2.0 + ad.sin(e)),
    "sinh_tanh": lambda e, u: ad.sinh(ad.tanh(e)),
    "cosh_sin": lambda e, u: ad.cosh(ad.sin(e)),
    "expm1_cos": lambda e, u: ad.expm1(ad.cos(e)),
    "asin": lambda e, u: ad.asin(ad.tanh(e) / 2.0),
    "acos": lambda e, u: ad.acos(ad.tanh(e) / 2.0),
    "tan": lambda e, u: ad.tan(ad.atan(e) / 2.0),
    "mul_u": lambda e, u: e * u,
    "add_u": lambda e, u: e + u,
    "sub_sin_u": lambda e, u: e - ad.sin(u),
    "div_u": lambda e, u: e / (1.0 + u * u),
    "pow_u": lambda e, u: ad.pow(1.5 + ad.sin(e), ad.cos(u)),
    "atan2_u": lambda e, u: ad.atan2(e, 2.0 + ad.sin(u)),
    "hypot_u": lambda e, u: ad.hypot(e, 1.0 + u * u),
}
chains = st.lists(st.sampled_from(sorted(STEPS)), min_size=2, max_size=4)
coords = st.floats(min_value=-2.0, max_value=2.0, allow_nan=False, allow_infinity=False)


def chain(names, e, u):
    for name in names:
        e = STEPS[name](e, u)
    return e


@example(["cube", "cube", "cube"], 1e-14)             # subnormal derivatives: series_floor
@given(chains, coords)
def test_property_derivatives_equal_nested_derivative(names, x):
    f = lambda t: chain(names, t, t)                                              # noqa: E731
    got, want = ad.derivatives(f, 4)(x), nested_derivatives(f, 4)(x)
    close(got, want, 1e-9, floor=series_floor(want), what=str(names))


@given(chains, coords)
def test_property_derivatives_are_taylor_coefficients_times_factorial(names, x):
    f = lambda t: chain(names, t, t)                                              # noqa: E731
    d, c = ad.derivatives(f, 5)(x), ad.taylor(f, x, 5)
    close(d, [ck * math.factorial(k) for k, ck in enumerate(c)], 1e-14, floor=1, what=str(names))
    assert ad.nth_derivative(f, 5)(x) == d[5]


@given(chains, coords, coords)
def test_property_directional_along_an_axis_is_a_one_variable_tower(names, x0, x1):
    f = lambda p: chain(names, p[0], p[1])                                        # noqa: E731
    got = ad.directional_derivatives(f, (x0, x1), (1.0, 0.0), 4)
    want = ad.derivatives(lambda t: f((t, x1)), 4)(x0)
    close(got, want, 1e-14, floor=1, what=str(names))


@given(chains, coords, coords, coords, coords)
def test_property_directional_derivatives_along_any_direction(names, x0, x1, v0, v1):
    f = lambda p: chain(names, p[0], p[1])                                        # noqa: E731
    got = ad.directional_derivatives(f, (x0, x1), (v0, v1), 3)
    line = ad.derivatives(lambda t: f((x0 + v0 * t, x1 + v1 * t)), 3)(0.0)
    close(got, line, 1e-12, floor=1, what=f"{names} vs the line")
    close(got, repeated_directional(f, (x0, x1), (v0, v1), 3), 1e-9, floor=1,
          what=f"{names} vs nested directional_derivative")


# ---- 9. the naming convention -------------------------------------------------------------------

def test_naming_convention_is_stated_in_the_docs():
    doc = sys.modules["dvlad.modes.taylor"].__doc__
    for name in ("``taylor``", "``derivatives``", "``nth_derivative``",
                 "``directional_derivatives``"):
        assert name in doc, name
    assert "coefficients" in doc and "f⁽ᵏ⁾/k!" in doc and "f⁽ⁿ⁾" in doc
    text = (Path(__file__).resolve().parent.parent / "notes" / "higher-order.md").read_text(
        encoding="utf-8")
    for call in ("`taylor(f, x, n)`", "`derivatives(f, n)(x)`", "`nth_derivative(f, n)(x)`",
                 "`directional_derivatives(f, x, v, n)`"):
        assert call in text, call


@pytest.mark.parametrize("x", [0.3, -1.1, 2.0])
def test_naming_convention_holds(x):
    f = lambda t: ad.exp(ad.sin(t)) * t                                           # noqa: E731
    c, d = ad.taylor(f, x, 7), ad.derivatives(f, 7)(x)
    for k in range(8):
        assert abs(c[k] * math.factorial(k) - d[k]) <= 1e-14 * max(1.0, abs(d[k])), k
        assert ad.nth_derivative(f, k)(x) == d[k]
    assert ad.directional_derivatives(f, x, 1.0, 7) == d
    # along v the k-th entry is v^k f^(k)
    dd = ad.directional_derivatives(f, x, 2.0, 5)
    close(dd, [d[k] * 2.0 ** k for k in range(6)], 1e-14, floor=1, what="v = 2")


# ---- found in review: each a value that was silently wrong, or an error -----------------------

def test_constant_array_operand_broadcasts_every_coefficient():
    """t + A: c₀ takes A's shape, and so must c₁…, or a sum counts the derivative once."""
    A = np.array([1.0, 2.0])
    assert ad.derivatives(lambda t: np.sum(t + A), 2)(0.5) == [4.0, 2.0, 0.0]
    assert ad.derivatives(lambda t: np.sum(ad.maximum(t, A / 10)), 1)(0.5) == [1.0, 2.0]
    got = ad.derivatives(lambda t: (t + A) @ A, 2)(0.5)
    want = [ad.jvp(lambda t: (t + A) @ A, 0.5, 1.0)[0], 3.0, 0.0]
    assert got == want
    c = ad.taylor(lambda x: np.sum(x + np.ones((3, 2))), np.zeros(2), 2, np.ones(2))
    assert c[1] == ad.jvp(lambda x: np.sum(x + np.ones((3, 2))), np.zeros(2), np.ones(2))[1] == 6.0


def test_fixed_point_whose_tower_appears_after_the_first_step():
    g = lambda a: ad.fixed_point(lambda y: (y + a / y) / 2 if y > 1.5 else 2.5, 1.0)  # noqa: E731
    close(ad.derivatives(g, 3)(4.0), ad.derivatives(ad.sqrt, 3)(4.0), 1e-12, floor=1,
          nonfinite=True)


def test_float32_power_near_underflow_keeps_its_precision():
    x = np.float32(1e-18)
    got = ad.derivatives(lambda t: t ** 2.45, 1)(x)[1]
    want = 2.45 * mpmath.mpf(float(x)) ** 1.45
    assert type(got) is np.float32 and abs(got - want) <= 1e-5 * want     # was 8% off
    assert got == ad.derivative(lambda t: t ** 2.45)(x)


@pytest.mark.parametrize("f", [lambda x: ad.atan2(x, 2.0), lambda x: ad.atan2(2.0, x),
                               lambda x: ad.maximum(x, 0.7), lambda x: ad.hypot(x, 1.0),
                               lambda x: ad.tan(x), lambda x: ad.asin(x / 2.0)],
                         ids=["atan2-x", "atan2-y", "maximum", "hypot", "tan", "asin"])
def test_float32_stays_float32_in_every_coefficient(f):
    x, v = np.array([0.5, 1.0], np.float32), np.ones(2, np.float32)
    cs = ad.taylor(f, x, 3, v)
    assert [np.asarray(c).dtype for c in cs] == [np.float32] * 4
    close(cs, ad.taylor(f, x.astype(np.float64), 3, v.astype(np.float64)), 1e-5, floor=1)


def test_vector_primitive_in_a_tower():
    norm2 = ad.vector_primitive(lambda x: x[0] ** 2 + x[1] ** 2,
                                lambda x, t: 2 * (x[0] * t[0] + x[1] * t[1]),
                                lambda x, s: (2 * x[0] * s, 2 * x[1] * s))
    assert ad.derivatives(lambda t: norm2((t, 2.0 * t)), 3)(1.0) == [5.0, 10.0, 10.0, 0.0]
    f = lambda t: ad.sin(norm2((t, 2.0 * ad.exp(t))))  # noqa: E731
    close(ad.derivatives(f, 3)(0.3), nested_derivatives(f, 3)(0.3), 1e-10, floor=1, nonfinite=True)


def test_high_orders_neither_underflow_nor_overflow():
    """cₖ = f⁽ᵏ⁾/k! leaves the float range long before f⁽ᵏ⁾ does: k! overflows at 171."""
    for n in (120, 155, 160, 200):
        got = ad.nth_derivative(lambda x: ad.exp(0.5 * x), n)(0.0)
        assert abs(got - 0.5 ** n) <= 1e-12 * 0.5 ** n, (n, got)
    assert ad.nth_derivative(lambda x: x * x, 171)(1.0) == 0.0
    assert ad.derivatives(lambda x: x * x, 200)(1.0)[:2] == [1.0, 2.0]
    got = ad.nth_derivative(lambda x: ad.exp(0.5 * x), 32)(np.float32(0.0))
    assert abs(got - 0.5 ** 32) <= 1e-5 * 0.5 ** 32
    d = ad.directional_derivatives(lambda p: ad.exp(0.5 * p[0]), (0.0,), (1.0,), 160)
    assert abs(d[-1] - 0.5 ** 160) <= 1e-12 * 0.5 ** 160
    with mp.workdps(30):
        d = ad.nth_derivative(ad.sin, 200)(mpmath.mpf("0.3"))
        assert abs(d - mpmath.sin(mpmath.mpf("0.3"))) < mpmath.mpf(10) ** -25   # 200 ≡ 0 mod 4


def test_a_zero_direction_element_at_a_kink_contributes_nothing():
    x, v = np.array([0.0, 1.0]), np.array([0.0, 1.0])
    got = ad.directional_derivatives(ad.sqrt, x, v, 2)
    want = [ad.sqrt(x), ad.jvp(ad.sqrt, x, v)[1]]
    close(got[:2], want, 1e-15, floor=1)
    assert got[2][0] == 0.0 and got[2][1] == -0.25


def test_extraction_descends_through_newer_live_layers():
    """Taking tag e's part out of a value whose top layer is a newer live one keeps that layer:
    tangent_e(Tower(t, [c₀, c₁])) = Tower(t, [tangent_e(c₀), tangent_e(c₁)]), and likewise for
    coefficients through a bundle or a tower.  (No public path reaches a live newer layer at
    extraction today; the rule is the one DESIGN-NOTES gives for bundles.)"""
    from dvlad.numbers.bundle import make_bundle, primal_of, tangent_of
    from dvlad.core.tags import FORWARD
    from dvlad.modes.taylor import series_of
    older_f = new_tag(FORWARD, "test")
    older_t = new_tag(TAYLOR, "test")
    newer_t = new_tag(TAYLOR, "test")
    newer_f = new_tag(FORWARD, "test")
    try:
        v = T.make_tower(newer_t, [make_bundle(older_f, 1.0, 2.0), make_bundle(older_f, 3.0, 4.0)])
        got = tangent_of(v, older_f, 0.0)
        assert type(got) is T.Tower and got.tag is newer_t and got.coeffs == [2.0, 4.0]
        got = primal_of(v, older_f)
        assert type(got) is T.Tower and got.tag is newer_t and got.coeffs == [1.0, 3.0]
        w = make_bundle(newer_f, T.make_tower(older_t, [1.0, 2.0]), T.make_tower(older_t, [3.0, 4.0]))
        cs = series_of(w, older_t, 1)
        assert [(c.tag, c.primal, c.tangent) for c in cs] == [(newer_f, 1.0, 3.0), (newer_f, 2.0, 4.0)]
        u = T.make_tower(newer_t, [T.make_tower(older_t, [1.0, 2.0]), T.make_tower(older_t, [3.0, 4.0])])
        cs = series_of(u, older_t, 1)
        assert [(c.tag, c.coeffs) for c in cs] == [(newer_t, [1.0, 3.0]), (newer_t, [2.0, 4.0])]
        c = series_of(5.0, older_t, 2)
        assert c[0] == 5.0 and c[1] is T.ZERO and c[2] is T.ZERO
    finally:
        for tag in (older_f, older_t, newer_t, newer_f):
            tag.live = False
