"""scipy.special's i0e i1e erfcx log_expit entr rel_entr kl_div exp1 expi spence and zeta (in q),
rows of the rule table: their first and second derivatives on float64 and float32 arrays, through
scipy's ufuncs and dvlad's functions, in forward and reverse mode and the four nestings, against
mpmath at 40 digits; check_grads to order 2; mpf in, mpf out at 50 digits; the limits the rows
give at their edges (i1e′(0) = ½, spence′(1) = −1, the entropies at x = 0), erfcx′ for a large x,
the values at the domain edges as scipy's, and zeta's exponent refused by name."""
import math
import sys

import mpmath
import numpy as np
import pytest

import dvlad as ad
from support import close

sc = pytest.importorskip("scipy.special")

MPF = type(mpmath.mpf(1))
FLOAT_MAX, FLOAT_MIN = sys.float_info.max, sys.float_info.min
ORACLE_DPS = 40
# the constant argument of a binary row: exact in float32 too (a float32 array meets it there)
C = 1.75


def _mp(value):
    return mpmath.mpf(float(value))          # a float or float32 exactly


# (id, row name, which argument varies ("-" one-argument row; "x" or "y": the other is C),
#  mpmath function of that argument, three points)
CASES = [
    ("i0e", "i0e", "-", lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x)), (-2.2, 0.3, 1.5)),
    ("i1e", "i1e", "-", lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x)), (-2.2, 0.3, 1.0)),
    ("erfcx", "erfcx", "-", lambda x: mpmath.exp(x * x) * mpmath.erfc(x), (-1.4, 0.6, 12.0)),
    ("log_expit", "log_expit", "-", lambda x: -mpmath.log1p(mpmath.exp(-x)), (-30.0, 0.7, 25.0)),
    ("entr", "entr", "-", lambda x: -x * mpmath.log(x), (0.2, 0.6, 2.5)),
    ("rel_entr-x", "rel_entr", "x", lambda x: x * mpmath.log(x / C), (0.3, 1.2, 4.0)),
    ("rel_entr-y", "rel_entr", "y", lambda y: C * mpmath.log(C / y), (0.4, 1.3, 3.0)),
    ("kl_div-x", "kl_div", "x", lambda x: x * mpmath.log(x / C) - x + C, (0.3, 0.9, 4.0)),
    ("kl_div-y", "kl_div", "y", lambda y: C * mpmath.log(C / y) - C + y, (0.3, 3.0, 5.0)),
    ("exp1", "exp1", "-", lambda x: mpmath.expint(1, x), (0.1, 0.7, 5.0)),
    ("expi", "expi", "-", mpmath.ei, (-1.6, 0.7, 5.0)),
    ("spence", "spence", "-", lambda z: mpmath.polylog(2, 1 - z), (0.4, 1.02, 2.5)),
    # zeta(x, q) in q (x, the exponent, is not differentiated): scipy's zeta is no ufunc
    ("zeta-y", "zeta", "y", lambda q: mpmath.zeta(C, q), (0.6, 1.3, 4.0)),
]
IDS = [c[0] for c in CASES]
VIAS = ("dvlad", "scipy")


def _function(name, which, via):
    """The row as a function of its one varying argument, through dvlad's function or scipy's
    ufunc (numpy's protocol brings a tracked array to the row)."""
    g = getattr(sc if via == "scipy" else ad, name)
    if which == "x":
        return lambda t: g(t, C)
    if which == "y":
        return lambda t: g(C, t)
    return g


def _summed(f):
    return lambda t: np.sum(f(t))


def _oracle(mf, x, order):
    with mpmath.workdps(ORACLE_DPS):
        return np.array([float(mpmath.diff(mf, _mp(v), order)) for v in x])


def _derivatives(f, x):
    """{mode: f′ elementwise} and {nesting: f″ elementwise} (outer mode first)."""
    s = _summed
    first = {"F": ad.derivative(f)(x), "R": ad.gradient_r(s(f))(x)}
    second = {"FF": ad.derivative(ad.derivative(f))(x),
              "FR": ad.derivative(ad.gradient_r(s(f)))(x),
              "RF": ad.gradient_r(s(ad.derivative(f)))(x),
              "RR": ad.gradient_r(s(ad.gradient_r(s(f))))(x)}
    return first, second


# (scipy.special.zeta is a Python function calling the ufunc _ufuncs._zeta, the zeta row's)
CASE_VIAS = [(c, via) for c in CASES for via in VIAS]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case, via", CASE_VIAS, ids=[f"{c[0]}-{v}" for c, v in CASE_VIAS])
def test_first_and_second_derivatives_against_mpmath(case, via, dtype):
    _, name, which, mf, points = case
    x = np.array(points, dtype=dtype)
    rel = 1e-13 if dtype is np.float64 else 2e-6
    first, second = _derivatives(_function(name, which, via), x)
    for got, order in [(g, 1) for g in first.values()] + [(g, 2) for g in second.values()]:
        assert type(got) is np.ndarray and got.dtype == dtype, (order, got)
        close(got, _oracle(mf, x, order), rel=rel)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_check_grads_to_order_2(case):
    _, name, which, _, points = case
    f = _function(name, which, "dvlad")
    w = np.array([0.7, -1.1, 0.4])
    ad.check_grads(lambda t: np.sum(f(t) * w), np.array(points), order=2)


@pytest.mark.parametrize("name", ["rel_entr", "kl_div"])
def test_check_grads_in_both_arguments(name):
    g = getattr(sc, name)
    p = (np.array([0.3, 1.2, 4.0]), np.array([1.7, 0.4, 2.5]))
    ad.check_grads(lambda p: np.sum(g(p[0], p[1]) * np.array([0.7, -1.1, 0.4])), p, order=2)


@pytest.mark.parametrize("name, mixed", [("rel_entr", lambda x, y: -1 / y),
                                         ("kl_div", lambda x, y: -1 / y)])
def test_gradient_and_mixed_partial_both_modes(name, mixed):
    """Both partials in one call (log(x/y) + 1, −x/y; log(x/y), 1 − x/y) and ∂²/∂x∂y = −1/y."""
    f = getattr(ad, name)
    x, y = 0.3, 1.7
    want = {"rel_entr": (math.log(x / y) + 1, -x / y), "kl_div": (math.log(x / y), 1 - x / y)}
    for grad in (ad.gradient_f, ad.gradient_r):
        close(grad(lambda p: f(p[0], p[1]))((x, y)), want[name], rel=1e-15)
    for outer in (ad.derivative, ad.gradient_r):
        for inner in (ad.derivative, ad.gradient_r):
            got = outer(lambda v: inner(lambda u: f(u, v))(x))(y)
            close(got, mixed(x, y), rel=1e-15)


UNARY_MPF = [c for c in CASES if c[2] == "-"]


@pytest.mark.parametrize("case", UNARY_MPF + [c for c in CASES if c[2] != "-"],
                         ids=[c[0] for c in UNARY_MPF] + [c[0] for c in CASES if c[2] != "-"])
def test_mpf_in_mpf_out(case):
    """f, f′, f″ of an mpf at 50 digits are mpf, exact to 1e-45 (erfcx at 12 too: an mpf keeps
    the formula 2x·erfcx − 2/√π, whose cancellation costs 2.5 of the 50 digits there)."""
    _, name, which, mf, points = case
    f = _function(name, which, "dvlad")
    with mpmath.workdps(50):
        for p in points[1:]:
            x = mpmath.mpf(str(p))
            got = ad.derivatives(f, 2)(x)
            assert all(type(g) is MPF for g in got), got
            with mpmath.workdps(70):
                want = list(mpmath.diffs(mf, x, 2))
            close(got, want, rel=mpmath.mpf(10) ** -45)
            close(ad.gradient_r(ad.derivative(f))(x), want[2], rel=mpmath.mpf(10) ** -45)


# ---- the limits at the rows' singular points ----------------------------------------------------

def test_i1e_slope_at_zero_is_one_half():
    """i1e′ = (i0e + ive(2, ·))/2 − sign·i1e: ½ at 0 (i0e − i1e/x would divide by zero), in
    every mode; i1e″(0) and i0e′(0) are 0 (sign(0) = 0: e^(−|x|) has a kink there)."""
    for op in (ad.derivative, ad.gradient_r):
        assert op(ad.i1e)(0.0) == 0.5
        assert op(ad.i0e)(0.0) == 0.0
        assert op(op(ad.i1e))(0.0) == 0.0
    g = ad.gradient_r(lambda t: np.sum(sc.i1e(t)))(np.zeros(2, np.float32))
    assert g.dtype == np.float32 and g.tolist() == [0.5, 0.5]


def test_spence_at_one():
    """spence′(z) = log z/(1 − z): −1 at z = 1; near it the series of −log1p(u)/u, u = z − 1,
    whose derivatives are ½, −2/3, 3/2 (the quotient's cancel: 1/(z(1 − z)) + log z/(1 − z)²)."""
    close(ad.derivatives(ad.spence, 4)(1.0), [0.0, -1.0, 0.5, -2 / 3, 1.5], rel=1e-15)
    for op in (ad.derivative, ad.gradient_r):
        assert op(ad.spence)(1.0) == -1.0
        assert op(op(ad.spence))(1.0) == 0.5
    with mpmath.workdps(50):
        got = ad.derivatives(ad.spence, 3)(mpmath.mpf(1))
        assert all(type(g) is MPF for g in got)
        close(got, [0, -1, mpmath.mpf(1) / 2, -mpmath.mpf(2) / 3], rel=mpmath.mpf(10) ** -48)
    z = np.array([1.0, 1 + 2.0 ** -20, 1.03125, 1.04])     # the series and the quotient's sides
    with mpmath.workdps(40):
        want = [float(mpmath.diff(lambda t: mpmath.polylog(2, 1 - t), _mp(v), 2)) for v in z]
    close(ad.derivative(ad.derivative(sc.spence))(z), want, rel=1e-14)


@pytest.mark.parametrize("x", [1e3, 1e5, 1e8])
def test_erfcx_slope_for_a_large_x(x):
    """erfcx′ = 2x·erfcx − 2/√π, ~ −1/(√π x²): the formula's terms agree to 1/(2x²) (it lost
    1e-11 of the value at 1e3 and all of it at 1e8); erfcx″ = (2 + 4x²)·erfcx − 4x/√π."""
    with mpmath.workdps(60):
        v = mpmath.exp(mpmath.mpf(x) ** 2) * mpmath.erfc(x)
        d1 = float(2 * x * v - 2 / mpmath.sqrt(mpmath.pi))
        d2 = float((2 + 4 * mpmath.mpf(x) ** 2) * v - 4 * x / mpmath.sqrt(mpmath.pi))
    for op in (ad.derivative, ad.gradient_r):
        close(op(ad.erfcx)(x), d1, rel=1e-14)
        close(op(op(ad.erfcx))(x), d2, rel=1e-13)
    g = ad.derivative(sc.erfcx)(np.array([x], np.float32))
    assert g.dtype == np.float32
    close(g, np.array([d1]), rel=1e-6)


def test_the_entropies_at_their_edges():
    """At x = 0 (y > 0) scipy's values are the limits 0, 0, y: the x-partials are their limits
    (+inf, −inf, −inf), the y-partials exact (0 and 1); where the value is ±inf, nan."""
    for grad in (ad.gradient_f, ad.gradient_r):
        assert grad(lambda p: ad.rel_entr(p[0], p[1]))((0.0, 1.5)) == (-math.inf, 0.0)
        assert grad(lambda p: ad.kl_div(p[0], p[1]))((0.0, 1.5)) == (-math.inf, 1.0)
        gx, gy = grad(lambda p: ad.rel_entr(p[0], p[1]))((0.0, 0.0))
        assert math.isnan(gx) and gy == 0.0
        assert all(math.isnan(g) for g in grad(lambda p: ad.kl_div(p[0], p[1]))((0.5, -1.0)))
    for op in (ad.derivative, ad.gradient_r):
        assert op(ad.entr)(0.0) == math.inf
        assert math.isnan(op(ad.entr)(-1.0))
    # an array with a lane on each side: each lane its own rule
    x = np.array([0.0, 0.5, -1.0])
    want = [-math.inf, math.log(0.5 / 1.5) + 1, math.nan]
    for got in (ad.derivative(lambda t: sc.rel_entr(t, 1.5))(x),
                ad.gradient_r(lambda t: np.sum(sc.rel_entr(t, 1.5)))(x)):
        assert np.array_equal(got, want, equal_nan=True), got
    # with x perturbed at 0, −x/y keeps x's derivative: ∂²/∂x∂y rel_entr = −1/y
    assert ad.derivative(lambda u: ad.derivative(lambda v: ad.rel_entr(u, v))(2.0))(0.0) == -0.5


def test_the_exponential_integrals_at_zero_and_below():
    """E₁′(0) = −inf, Ei′(0) = +inf (the limits from the right, as log′(0)); E₁ is nan for
    x < 0 (scipy's value), its partial too."""
    for op in (ad.derivative, ad.gradient_r):
        assert op(ad.exp1)(0.0) == -math.inf
        assert op(ad.expi)(0.0) == math.inf
        assert math.isnan(op(ad.exp1)(-1.0))
        close(op(ad.expi)(-1.0), -math.exp(-1.0), rel=1e-15)


# ---- values as scipy's, at the domain edges -----------------------------------------------------

EDGES = {
    "i0e": [-math.inf, -3.0, 0.0, 3.0, math.inf],
    "i1e": [-math.inf, -3.0, 0.0, 3.0, math.inf],
    "erfcx": [-30.0, -1.0, 0.0, 30.0, 1e300],
    "log_expit": [-800.0, -30.0, 0.0, 30.0, 800.0, math.nan],
    "entr": [-1.0, 0.0, 0.5, math.inf, math.nan],
    "exp1": [-1.0, 0.0, 1e-300, 0.5, 800.0],
    "expi": [-800.0, -1.0, 0.0, 1.0, 800.0],
    "spence": [-1.0, 0.0, 0.5, 1.0, 2.0, math.inf],
}
PAIR_GRID = [-1.0, 0.0, 0.5, 2.0, math.inf, math.nan]


def _same(got, want, rel=0.0):
    """got is scipy's value want: equal, or within rel of it; an mpf (no overflow, no underflow)
    also where it is beyond the float range in which scipy's is ±inf or 0."""
    want = float(want)
    if math.isnan(want):
        return got != got
    if type(got) is MPF and (math.isinf(want) or want == 0) and got != want:
        return (got * want > 0 and abs(got) > FLOAT_MAX) if want else abs(got) < FLOAT_MIN
    got = float(got)
    if math.isinf(want) or want == 0:
        return got == want
    return abs(got - want) <= rel * abs(want)


@pytest.mark.parametrize("name", sorted(EDGES))
def test_values_as_scipy_unary(name):
    """Python floats as scipy's (bit for bit), float32 arrays as scipy's float32 loop, mpf to
    4e-15 of them (and the same nans; ±inf and 0 where they are beyond the float range)."""
    f, s = getattr(ad, name), getattr(sc, name)
    with np.errstate(all="ignore"):
        for v in EDGES[name]:
            assert _same(f(v), s(v)), (v, f(v), s(v))
            assert _same(f(mpmath.mpf(v)), s(v), 4e-15), (v, f(mpmath.mpf(v)), s(v))
        x = np.array(EDGES[name], np.float32)
        got = f(x)
        assert got.dtype == np.float32 and np.array_equal(got, s(x), equal_nan=True)


@pytest.mark.parametrize("name", ["rel_entr", "kl_div"])
def test_values_as_scipy_binary(name):
    f, s = getattr(ad, name), getattr(sc, name)
    with np.errstate(all="ignore"):
        for x in PAIR_GRID:
            for y in PAIR_GRID:
                assert _same(f(x, y), s(x, y)), (x, y, f(x, y), s(x, y))
                got = f(mpmath.mpf(x), mpmath.mpf(y))
                assert type(got) is MPF and _same(got, s(x, y), 4e-15), (x, y, got)


def test_zeta_values_as_scipy():
    with np.errstate(all="ignore"):
        for x, q in [(2.0, 1.3), (1.0, 0.5), (0.5, 2.0), (2.0, -1.0), (2.0, 0.0), (3.0, -2.5),
                     (2.5, -1.5), (1.5, math.inf)]:
            want = sc.zeta(x, q)
            assert _same(ad.zeta(x, q), want), (x, q)
            assert _same(ad.zeta(mpmath.mpf(x), mpmath.mpf(q)), want, 1e-14), (x, q)


# ---- zeta: differentiable in q only ------------------------------------------------------------

def test_zeta_exponent_is_refused_by_name():
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(ad.NotDifferentiableError,
                           match=r"scipy.special.zeta \(dvlad.zeta\): its shape argument x"):
            op(lambda a: ad.zeta(a, 1.3))(2.5)
    # an integer exponent and an mpf q: ∂q = −2·ζ(3, q) at 50 digits
    with mpmath.workdps(50):
        q = mpmath.mpf("1.3")
        got = ad.derivative(lambda t: ad.zeta(2, t))(q)
        assert type(got) is MPF
        close(got, -2 * mpmath.zeta(3, q), rel=mpmath.mpf(10) ** -48)


# ---- a probe's finds (helper-21) ------------------------------------------------------------------

def test_scipy_zeta_on_dvlad_numbers_is_the_zeta_row():
    """scipy.special.zeta(x, q) calls the ufunc _ufuncs._zeta, which had no row: it raised
    NotDifferentiableError naming it."""
    mpmath.mp.dps = 30
    want = -3.0 * mpmath.zeta(4.0, 1.3)
    close(ad.derivative(lambda q: sc.zeta(3.0, q))(1.3), want, rel=1e-14)
    q = np.array([0.6, 1.3])
    close(ad.gradient_r(lambda t: np.sum(sc.zeta(2.5, t)))(q), -2.5 * sc.zeta(3.5, q), rel=1e-14)


def test_entropies_log_ratio_far_apart_close_together_and_subnormal():
    """rel_entr's and kl_div's x-partials log(x/y) overflowed where x/y does (inf at (1e200,
    1e-200)), lost 8e-11 at x ≈ y, and made an asymmetric Hessian at a subnormal x/y."""
    mpmath.mp.dps = 40
    g = ad.gradient_r(lambda p: ad.rel_entr(p[0], p[1]))((1e200, 1e-200))
    close(g[0], mpmath.log(mpmath.mpf(10) ** 400) + 1, rel=1e-15)
    x, y = 1.0, 1.0000001
    want = mpmath.log(mpmath.mpf(x) / mpmath.mpf(y))
    close(ad.derivative(lambda t: ad.kl_div(t, y))(x), want, rel=1e-14)
    close(ad.derivative(lambda t: ad.rel_entr(t, y))(x), want + 1, rel=1e-14)
    H = ad.hessian(lambda p: ad.rel_entr(p[0], p[1]))(np.array([1e-320, 1.0]))
    assert H[0, 1] == H[1, 0] == -1.0


def test_expi_slope_past_exps_overflow():
    """expi′ = eˣ/x raised OverflowError from exp(x) past x = 709.78 (scipy's expi(710) is
    inf); it is finite to 709.78 + log x, inf beyond."""
    close(ad.derivative(ad.expi)(710.0), mpmath.exp(710) / 710, rel=1e-13)
    assert ad.derivative(ad.expi)(2000.0) == math.inf
    with mpmath.workdps(30):
        x = mpmath.mpf(2000)
        got = ad.derivative(ad.expi)(x)
        assert type(got) is mpmath.mpf and abs(got / (mpmath.exp(x) / x) - 1) < 1e-28


def test_spence_series_near_one_at_high_precision():
    """spence's series near z = 1 had 60 terms: 2e-95 off at 100 digits."""
    with mpmath.workdps(100):
        z = mpmath.mpf("1.03")
        got = ad.derivative(ad.spence)(z)
        assert abs(got / (mpmath.log(z) / (1 - z)) - 1) < mpmath.mpf(10) ** -98


def test_log_ndtr_of_an_mpf_near_phi_one():
    """log Φ(x) = log(Φ(x)) lost its digits as Φ → 1: 0 at x = 30 (−4.9e-198)."""
    with mpmath.workdps(50):
        for x in (mpmath.mpf(10), mpmath.mpf(30)):
            with mpmath.workdps(400):
                want = mpmath.log(mpmath.ncdf(x))
            assert abs(ad.log_ndtr(x) / want - 1) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize("name", ["i0e", "i1e"])
def test_scaled_bessel_slopes_far_out_to_order_three(name):
    """i0e′ = i1e − sign(x)·i0e and i1e′ = (i0e + ive(2, ·))/2 − sign(x)·i1e cancel to
    1/(2|x|), again at each order: the 3rd derivative was 0.24 off at 1e5, the 2nd 1.3 at
    1e8.  From bessel_far(x) on, Hankel's series; against mpmath, both modes, floats, arrays
    (lanes either side of the switch) and an mpf at 50 digits."""
    n = {"i0e": 0, "i1e": 1}[name]
    f = getattr(ad, name)
    D, R = ad.derivative, ad.gradient_r

    def want(x, k, dps=60):
        with mpmath.workdps(dps):
            g = lambda t: mpmath.besseli(n, t) * mpmath.exp(-abs(t))      # noqa: E731
            return mpmath.diff(g, mpmath.mpf(x), k)
    for x in (25.0, -40.0, 1e3, 1e5, 1e8):
        close(D(f)(x), want(x, 1), rel=1e-14)
        close(R(D(f))(x), want(x, 2), rel=1e-13)
        close(D(R(D(f)))(x), want(x, 3), rel=1e-12)
    grid = np.array([5.0, 20.5, 21.5, -300.0])
    close(D(D(f))(grid), [float(want(x, 2)) for x in grid], rel=1e-12)   # (20.5: the formula)
    with mpmath.workdps(50):
        for x in (mpmath.mpf(70), mpmath.mpf(10) ** 5):
            got = D(D(f))(x)
            assert type(got) is mpmath.mpf
            assert abs(got / want(x, 2, 120) - 1) < mpmath.mpf(10) ** -40
