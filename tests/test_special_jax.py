"""scipy.special's boxcox boxcox1p dawsn expn fresnel hyp1f1 hyp2f1 loggamma owens_t sici: the
functions jax.scipy.special differentiates (issue #17), rows of the rule table (fresnel and sici a
row per output, hyp2f1 the table's row of four arguments).  Their first and second derivatives on
float64 and float32 arrays, through scipy's ufuncs and dvlad's functions, in forward and reverse
mode and the four nestings; third derivatives in four nestings; mpf in, mpf out at 50 digits;
all against mpmath's own functions (mpmath.diff at 40 digits, 70 for mpf; Owen's T by its series
in a, not dvlad's quadrature).  The edges: Box-Cox through λ = 0 (its λ-slope's series),
sici/fresnel/dawsn at 0, Dawson's slope past the switch to its asymptotic series, the values at
the domain edges as scipy's, and the order and shape arguments refused by name."""
import math

import mpmath
import numpy as np
import pytest

import dvlad as ad
from support import close, owens_t_series

sc = pytest.importorskip("scipy.special")

MPF = type(mpmath.mpf(1))
ORACLE_DPS = 40
FIFTY = mpmath.mpf(10) ** -45


def _mp(value):
    return mpmath.mpf(float(value))          # a float or float32 exactly


def _boxcox(x, lm):
    return mpmath.log(x) if lm == 0 else mpmath.expm1(lm * mpmath.log(x)) / lm


def _boxcox1p(x, lm):
    return mpmath.log1p(x) if lm == 0 else mpmath.expm1(lm * mpmath.log1p(x)) / lm


def _dawsn(x):
    return mpmath.sqrt(mpmath.pi) / 2 * mpmath.exp(-x * x) * mpmath.erfi(x)


# (id, the function of t given the namespace S = scipy.special or dvlad, mpmath's function of t,
#  points exact in float32).  fresnel and sici through their pairs: dvlad.fresnel(t)[0] is the
#  row fresnel_s, scipy.special.fresnel(t)[0] reaches it through numpy's protocol
CASES = [
    ("boxcox-x", lambda S, t: S.boxcox(t, 0.5), lambda t: _boxcox(t, 0.5), (0.25, 1.5, 6.0)),
    ("boxcox-lambda", lambda S, t: S.boxcox(2.5, t), lambda t: _boxcox(2.5, t),
     (-1.25, 0.0, 2.0 ** -27, 0.75)),
    ("boxcox1p-x", lambda S, t: S.boxcox1p(t, -0.5), lambda t: _boxcox1p(t, -0.5),
     (-0.5, 0.0, 3.0)),
    ("boxcox1p-lambda", lambda S, t: S.boxcox1p(0.5, t), lambda t: _boxcox1p(0.5, t),
     (-1.25, 0.0, -2.0 ** -27, 0.75)),
    ("dawsn", lambda S, t: S.dawsn(t), _dawsn, (-1.5, 0.0, 0.625, 12.5)),
    ("expn", lambda S, t: S.expn(2, t), lambda t: mpmath.expint(2, t), (0.25, 1.25, 5.0)),
    ("expn-0", lambda S, t: S.expn(0, t), lambda t: mpmath.expint(0, t), (0.25, 1.25, 5.0)),
    ("fresnel-s", lambda S, t: S.fresnel(t)[0], mpmath.fresnels, (-1.5, 0.0, 0.75)),
    ("fresnel-c", lambda S, t: S.fresnel(t)[1], mpmath.fresnelc, (-1.5, 0.0, 0.75)),
    ("sici-si", lambda S, t: S.sici(t)[0], mpmath.si, (-2.5, 0.0, 0.75, 3.0)),
    ("sici-ci", lambda S, t: S.sici(t)[1], lambda t: mpmath.re(mpmath.ci(t)), (-1.5, 0.75, 3.0)),
    ("loggamma", lambda S, t: S.loggamma(t), mpmath.loggamma, (0.375, 2.75, 10.0)),
    ("hyp1f1", lambda S, t: S.hyp1f1(0.75, 1.625, t),
     lambda t: mpmath.hyp1f1(0.75, 1.625, t), (-2.5, 0.0, 1.5)),
    ("hyp2f1", lambda S, t: S.hyp2f1(0.75, 1.625, 2.25, t),
     lambda t: mpmath.hyp2f1(0.75, 1.625, 2.25, t), (-0.75, 0.0, 0.625)),
    ("owens_t-h", lambda S, t: S.owens_t(t, 0.75), lambda t: owens_t_series(t, 0.75),
     (-1.25, 0.0, 0.5)),
    ("owens_t-a", lambda S, t: S.owens_t(-1.25, t), lambda t: owens_t_series(-1.25, t),
     (-0.5, 0.0, 2.5)),
]
IDS = [c[0] for c in CASES]
VIAS = {"dvlad": ad, "scipy": sc}


def _function(case, via):
    return lambda t: case[1](VIAS[via], t)


def _summed(f):
    return lambda t: np.sum(f(t))


def _oracle(mf, x, order):
    with mpmath.workdps(ORACLE_DPS):
        return np.array([float(mpmath.diff(mf, _mp(v), order)) for v in x])


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("via", list(VIAS))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_and_second_derivatives_against_mpmath(case, via, dtype):
    f, s = _function(case, via), _summed(_function(case, via))
    x = np.array(case[3], dtype=dtype)
    rel = 1e-13 if dtype is np.float64 else 2e-6
    first = [ad.derivative(f)(x), ad.gradient_r(s)(x)]
    second = [ad.derivative(ad.derivative(f))(x), ad.derivative(ad.gradient_r(s))(x),
              ad.gradient_r(_summed(ad.derivative(f)))(x),
              ad.gradient_r(_summed(ad.gradient_r(s)))(x)]
    for got, order in [(g, 1) for g in first] + [(g, 2) for g in second]:
        assert type(got) is np.ndarray and got.dtype == dtype, (order, got)
        close(got, _oracle(case[2], x, order), rel=rel, floor=1)


THIRD = {"FFF": (ad.derivative,) * 3, "RRR": (ad.gradient_r,) * 3,
         "FRF": (ad.derivative, ad.gradient_r, ad.derivative),
         "RFR": (ad.gradient_r, ad.derivative, ad.gradient_r)}


@pytest.mark.parametrize("modes", list(THIRD))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_third_derivatives_against_mpmath(case, modes):
    f = _function(case, "dvlad")
    for op in reversed(THIRD[modes]):
        f = op(f)
    for p in case[3]:
        with mpmath.workdps(ORACLE_DPS):
            want = mpmath.diff(case[2], _mp(p), 3)
        close(f(p), want, rel=1e-12, floor=1, what=f"{case[0]} at {p}")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_mpf_in_mpf_out(case):
    """f, f′, f″, f‴ of an mpf at 50 digits are mpf, exact to 1e-45 (Taylor towers, and reverse
    over forward)."""
    f = _function(case, "dvlad")
    with mpmath.workdps(50):
        for p in case[3]:
            x = mpmath.mpf(p)
            got = ad.derivatives(f, 3)(x)
            assert all(type(g) is MPF for g in got), got
            with mpmath.workdps(70):
                want = list(mpmath.diffs(case[2], x, 3))
            close(got, want, rel=FIFTY, floor=1, what=f"{case[0]} at {p}")
            close(ad.gradient_r(ad.derivative(f))(x), want[2], rel=FIFTY, floor=1)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_scipy_ufuncs_on_dvlad_numbers(case):
    """scipy.special.<name>(a bundle or tape cell) is dvlad's row: the same derivatives."""
    for op in (ad.derivative, ad.gradient_r):
        for p in case[3]:
            close(op(_function(case, "scipy"))(p), op(_function(case, "dvlad"))(p), rel=1e-15,
                  floor=1e-300)


# ---- Box-Cox through λ = 0 ----------------------------------------------------------------------

@pytest.mark.parametrize("lm", [0.0, 1e-8, -1e-8, 1e-19, 1e-300])
def test_boxcox_derivatives_in_lambda_near_zero(lm):
    """∂ᵏ/∂λᵏ boxcox(x, λ) = (log x)^(k+1)/(k + 1) at λ = 0: the quotient's terms cancel there
    at every order; its series does not (to order 6 in floats, 8 at 50 digits)."""
    for name, x, log in (("boxcox", 2.5, mpmath.log), ("boxcox1p", 0.5, mpmath.log1p),
                         ("boxcox1p", 1e-10, mpmath.log1p)):
        f = getattr(ad, name)
        with mpmath.workdps(60):
            want = [float(d) for d in mpmath.diffs(lambda t: mpmath.expm1(t * log(x)) / t
                                                   if t else log(x), mpmath.mpf(lm), 6)]
        close(ad.derivatives(lambda t: f(x, t), 6)(lm), want, rel=1e-14, floor=1e-300)
        for op in (ad.derivative, ad.gradient_r):
            close(op(op(lambda t: f(x, t)))(lm), want[2], rel=1e-14, floor=1e-300)
        with mpmath.workdps(50):
            got = ad.derivatives(lambda t: f(mpmath.mpf(x), t), 8)(mpmath.mpf(lm))
            with mpmath.workdps(80):
                exact = mpmath.diffs(lambda t: mpmath.expm1(t * log(x)) / t if t else log(x),
                                     mpmath.mpf(lm), 8)
                exact = list(exact)
            assert all(type(g) is MPF for g in got)
            close(got, exact, rel=FIFTY, floor=mpmath.mpf(10) ** -300)


def test_boxcox_mixed_partial_at_lambda_zero():
    """∂²/∂x∂λ boxcox = x^(λ−1)·log x: log(2.5)/2.5 at λ = 0, in every nesting, both orders."""
    want = math.log(2.5) / 2.5
    for outer in (ad.derivative, ad.gradient_r):
        for inner in (ad.derivative, ad.gradient_r):
            close(outer(lambda lm: inner(lambda x: ad.boxcox(x, lm))(2.5))(0.0), want, rel=1e-15)
            close(outer(lambda x: inner(lambda lm: ad.boxcox(x, lm))(0.0))(2.5), want, rel=1e-15)


@pytest.mark.parametrize("name", ["boxcox", "boxcox1p", "owens_t"])
def test_check_grads_in_both_arguments(name):
    g = getattr(sc, name)
    p = (np.array([0.3, 1.2, 4.0]), np.array([-0.7, 1e-9, 1.5]))
    ad.check_grads(lambda p: np.sum(g(p[0], p[1]) * np.array([0.7, -1.1, 0.4])), p, order=2)


# ---- the singular points: the limits there, at every order --------------------------------------

def test_slopes_at_zero():
    """Si′(0) = 1, Si‴(0) = −1/3 (sin x/x by sinc near 0); S′(0) = 0, S‴(0) = π; C′(0) = 1;
    F′(0) = 1, F‴(0) = −4 (Dawson); Ci′(0) = +inf."""
    cases = [(ad.sici_si, [0.0, 1.0, 0.0, -1 / 3, 0.0]),
             (ad.fresnel_s, [0.0, 0.0, 0.0, math.pi, 0.0]),
             (ad.fresnel_c, [0.0, 1.0, 0.0, 0.0, 0.0]), (ad.dawsn, [0.0, 1.0, 0.0, -4.0, 0.0])]
    for f, want in cases:
        close(ad.derivatives(f, 4)(0.0), want, rel=1e-15, abs_=1e-15)
        for op in (ad.derivative, ad.gradient_r):
            close(op(f)(0.0), want[1], rel=1e-15)
            close(op(op(op(f)))(0.0), want[3], rel=1e-15, abs_=1e-15)
    for op in (ad.derivative, ad.gradient_r):
        assert op(ad.sici_ci)(0.0) == math.inf
    with mpmath.workdps(50):
        got = ad.derivatives(ad.sici_si, 3)(mpmath.mpf(0))
        close(got, [0, 1, 0, -mpmath.mpf(1) / 3], rel=FIFTY, abs_=FIFTY)


@pytest.mark.parametrize("x, rel", [(5.0, (3e-14, 1e-12, 2e-11)), (7.0, (3e-14, 1e-12, 5e-11)),
                                    (7.5, (1e-15,) * 3), (30.0, (1e-15,) * 3),
                                    (1e4, (1e-15,) * 3), (-1e8, (1e-15,) * 3)])
def test_dawsn_slope_for_a_large_x(x, rel):
    """F′ = 1 − 2xF ~ −1/(2x²): from |x| = 7.3 the asymptotic series, exact at every order (the
    formula's terms agree to 1/(2x²): it lost 1e-8 of F′ at 1e4, and its nesting cancels again at
    each order).  Below 7.3 the formula: up to log₁₀(2x²) digits lost per order (as 1 − 2xF
    loses in JAX too), pinned here at 5 and 7."""
    with mpmath.workdps(80):
        want = [float(d) for d in mpmath.diffs(_dawsn, mpmath.mpf(x), 3)][1:]
    for op in (ad.derivative, ad.gradient_r):
        close(op(ad.dawsn)(x), want[0], rel=rel[0])
        close(op(op(ad.dawsn))(x), want[1], rel=rel[1])
    close(ad.derivatives(ad.dawsn, 3)(x)[1:], want, rel=max(rel))
    g = ad.derivative(sc.dawsn)(np.array([x], np.float32))
    assert g.dtype == np.float32 and abs(g[0] / want[0] - 1) < 1e-6


def test_expn_slope_at_zero_and_below():
    """E₁′(0) = −E₀(0) = −inf, E₀′(0) = −inf, E₃′(0) = −E₂(0) = −1; nan for x < 0."""
    for op in (ad.derivative, ad.gradient_r):
        assert op(lambda t: ad.expn(1, t))(0.0) == -math.inf
        assert op(lambda t: ad.expn(0, t))(0.0) == -math.inf
        assert op(lambda t: ad.expn(3, t))(0.0) == -1.0
        assert math.isnan(op(lambda t: ad.expn(2, t))(-1.0))


# ---- values as scipy's, at the domain edges -----------------------------------------------------

INF, NAN = math.inf, math.nan
EDGES = {
    "boxcox": [(0.0, 0.0), (0.0, 1.0), (0.0, -1.0), (-1.0, 1.0), (2.0, 0.0), (2.0, 1e-20),
               (INF, 1.0), (INF, -1.0), (1.0, 5.0), (NAN, 1.0), (2.0, NAN)],
    "boxcox1p": [(-1.0, 0.0), (-1.0, 1.0), (-1.0, -1.0), (-2.0, 1.0), (0.0, 3.0), (1e-10, 0.0)],
    "dawsn": [(0.0,), (INF,), (-INF,), (NAN,), (1e10,), (-3.0,)],
    "expn": [(0, 0.0), (1, 0.0), (2, 0.0), (3, 0.0), (-1, 1.0), (0, 1.0), (2, -1.0), (2, INF),
             (2.5, 1.0), (1, 1e-300)],
    "loggamma": [(0.0,), (-1.0,), (-0.5,), (0.5,), (INF,), (-INF,), (NAN,), (1e-300,)],
    "owens_t": [(0.0, 1.0), (1.0, INF), (1.0, -INF), (INF, 1.0), (0.0, INF), (1.0, 0.0),
                (NAN, 1.0), (3.0, 50.0)],
    "hyp1f1": [(1.0, 0.0, 1.0), (1.0, -1.0, 1.0), (-1.0, -1.0, 1.0), (-1.0, -2.0, 1.0),
               (-2.0, -1.0, 1.0), (0.0, -1.0, 1.0), (1.0, 2.0, 0.0)],
    "hyp2f1": [(1.0, 1.0, 2.0, 1.0), (1.0, 1.0, 3.0, 1.0), (1.0, 1.0, 2.0, 1.5),
               (1.0, 2.0, 3.0, 3.0), (-1.0, 1.0, 2.0, 3.0), (1.0, 1.0, -2.0, 0.5),
               (-1.0, 1.0, -2.0, 0.5), (-3.0, 1.0, -2.0, 0.5), (0.3, 0.2, 0.6, 1.0)],
    "fresnel": [(0.0,), (INF,), (-INF,), (NAN,), (-1.0,)],
    "sici": [(0.0,), (INF,), (-INF,), (NAN,), (-1.0,)],
}


def _same(got, want, rel=0.0):
    want, got = float(want), float(got)
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want
    return abs(got - want) <= rel * abs(want)


@pytest.mark.filterwarnings("ignore:floating point number truncated")      # expn(2.5, 1.0)
@pytest.mark.parametrize("name", sorted(EDGES))
def test_values_as_scipy(name):
    """Python floats as scipy's (to rounding where dvlad's math function computes them), mpf to
    1e-14 of them, float32 arrays as scipy's float32 loop: the same nans and infinities."""
    f, s = getattr(ad, name), getattr(sc, name)
    with np.errstate(all="ignore"):
        for args in EDGES[name]:
            want = s(*args)
            pairs = list(zip(f(*args), want)) if isinstance(want, tuple) else [(f(*args), want)]
            assert all(_same(g, w, 1e-15) for g, w in pairs), (args, f(*args), want)
            got = f(*(mpmath.mpf(a) for a in args))
            pairs = list(zip(got, want)) if isinstance(want, tuple) else [(got, want)]
            assert all(type(g) is MPF and _same(g, w, 1e-14) for g, w in pairs), (args, got)
        x = [np.array([a[i] for a in EDGES[name]], np.float32) for i in range(len(EDGES[name][0]))]
        got, want = f(*x), s(*x)
        for g, w in zip(*((got, want) if isinstance(want, tuple) else ((got,), (want,)))):
            assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True), (got, want)


# ---- orders and shapes: not variables ----------------------------------------------------------

@pytest.mark.parametrize("name, args, i, what", [
    ("expn", (2.0, 1.3), 0, "integer order"), ("hyp1f1", (0.7, 1.6, 0.9), 0, "shape argument a"),
    ("hyp1f1", (0.7, 1.6, 0.9), 1, "shape argument b"),
    ("hyp2f1", (0.7, 1.6, 2.3, 0.4), 0, "shape argument a"),
    ("hyp2f1", (0.7, 1.6, 2.3, 0.4), 2, "shape argument c")])
def test_orders_and_shapes_are_refused_by_name(name, args, i, what):
    f = getattr(ad, name)
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(ad.NotDifferentiableError, match=what):
            op(lambda t: f(*args[:i], t, *args[i + 1:]))(args[i])


def test_hyp2f1_broadcasts_its_shapes():
    """A row of four arguments on arrays: an array of a against an array of x, the x-gradient
    (ab/c)·₂F₁(a + 1, b + 1; c + 1; x), summed over the broadcast axis."""
    a = np.array([[0.5], [1.5]])
    x = np.array([-0.4, 0.1, 0.6])
    g = ad.gradient_r(lambda t: np.sum(sc.hyp2f1(a, 1.25, 2.5, t)))(x)
    close(g, np.sum(a * 1.25 / 2.5 * sc.hyp2f1(a + 1, 2.25, 3.5, x), axis=0), rel=1e-14)
    h = ad.hvp(lambda t: np.sum(ad.hyp2f1(a, 1.25, 2.5, t)), x, np.ones(3))
    close(h, np.sum(a * (a + 1) * 1.25 * 2.25 / (2.5 * 3.5) * sc.hyp2f1(a + 2, 3.25, 4.5, x),
                    axis=0), rel=1e-13)


def test_fresnel_and_sici_return_their_pairs():
    """dvlad.fresnel(x) is (fresnel_s(x), fresnel_c(x)); through scipy on a tracked array each
    output carries its own derivative (the Jacobian of the pair)."""
    assert ad.fresnel(0.7) == (ad.fresnel_s(0.7), ad.fresnel_c(0.7)) == tuple(sc.fresnel(0.7))
    assert ad.sici(0.7) == (ad.sici_si(0.7), ad.sici_ci(0.7)) == tuple(sc.sici(0.7))
    x = np.array([0.5, 1.5])
    for f, slopes in ((sc.fresnel, (np.sin(np.pi * x * x / 2), np.cos(np.pi * x * x / 2))),
                      (sc.sici, (np.sin(x) / x, np.cos(x) / x))):
        jac = ad.jacobian_r(lambda t: f(t))(x)
        assert len(jac) == 2
        for j, slope in zip(jac, slopes):
            close(j, np.diag(slope), rel=1e-15, floor=1e-300)


def test_hypergeometric_mpf_where_the_series_sums_to_zero():
    """₁F₁(½; −½; z) = (1 − 2z)eᶻ is 0 at z = ½: mpmath's series never converges in relative
    terms there and raised (ValueError in mpmath 1.3, NoConvergence, no ValueError, in 1.4)."""
    with mpmath.workdps(30):
        half = mpmath.mpf("0.5")
        assert ad.hyp1f1(half, -half, half) == 0
        z = mpmath.mpf("0.7")
        assert abs(ad.hyp1f1(half, -half, z) - (1 - 2 * z) * mpmath.exp(z)) < 1e-28
