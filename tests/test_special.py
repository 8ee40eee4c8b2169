"""scipy.special's functions (issue #17): rows of the rule table, reached as dvlad.<name> and
through scipy's own ufuncs on tracked arrays, in every mode to order 2, float64 and float32,
with scipy or without it (then mpmath computes the base values).  Each row's derivatives are
checked against mpmath at 50 digits in tests/test_rules.py and tests/test_taylor.py; here the
scipy side: dispatch, dtypes, broadcasting, errors, the fallback; for the functions added last
(gamma rgamma gammasgn beta j0 j1 y0 y1 jn yn ive gammainc gammaincc betainc stdtr pdtr, then
poch pdtrc betaincc chdtr chdtrc kv kve, then k0 k1 k0e k1e kn yv yve jve exp10 exprel powm1 huber
pseudo_huber erfi ellipk ellipe ellipkm1 ndtri_exp inv_boxcox inv_boxcox1p and the orthogonal
polynomials eval_*) also their derivatives on arrays against mpmath, their poles and edges, the
shape and order arguments refused by name, and scipy.stats' distribution functions computed
through them."""
import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest

import dvlad as ad
from dvlad.core import special
from dvlad.core.rules import TABLE
from support import close

sc = pytest.importorskip("scipy.special")

# the differentiable rows (gammasgn, piecewise constant, has its own test)
SPECIAL_ROWS = [rule for rule in TABLE if rule.special and rule.partial_texts]
UFUNC_NAMES = [(rule.name, name) for rule in SPECIAL_ROWS for name in rule.special]
SCALES = ((1.0, 0.9, 1.1), (1.0, 1.1, 0.95), (1.0, 0.95, 1.05), (1.0, 1.05, 0.9))


def _scipy(rule, name):
    """scipy.special.<name> as the row computes it: its output ``rule.output`` if it has
    several (fresnel's S is the row fresnel_s)."""
    ufunc = getattr(sc, name, None) or getattr(sc._ufuncs, name)     # (zeta's is _ufuncs._zeta)
    return ufunc if rule.output is None else lambda *args: ufunc(*args)[rule.output]


def _inside(rule, dtype=np.float64):
    """Three points of the row's domain near its test points, an array for each variable (an
    order or a shape argument fixed: a plain number)."""
    p = [float(c) for c in rule.points[0]]
    return tuple(p[i] if i in rule.fixed else np.array([p[i] * c for c in SCALES[i]], dtype=dtype)
                 for i in range(rule.arity))


def _in_variables(ufunc, rule, args):
    """(f, point): the ufunc as a function of the row's variables (one: an array; more: a
    tuple of arrays), the fixed arguments as in ``args``."""
    where = [i for i in range(rule.arity) if i not in rule.fixed]

    def f(p):
        full = list(args)
        for i, v in zip(where, p if len(where) > 1 else (p,)):
            full[i] = v
        return ufunc(*full)
    point = tuple(args[i] for i in where)
    return f, point if len(where) > 1 else point[0]


@pytest.mark.parametrize("row, name", UFUNC_NAMES, ids=[f"{r}-{n}" for r, n in UFUNC_NAMES])
def test_scipy_ufunc_reaches_the_row(row, name):
    """scipy.special.<name> on a tracked array is the row: same values as scipy, derivatives
    checked by check_grads to order 2 in forward and reverse mode."""
    rule = next(r for r in SPECIAL_ROWS if r.name == row)
    ufunc = _scipy(rule, name)
    args = _inside(rule)
    w = np.array([0.7, -1.1, 0.4])
    g, point = _in_variables(ufunc, rule, args)
    f = lambda p: np.sum(g(p) * w)                                          # noqa: E731
    close(ad.vjp(f, point)[0], np.sum(ufunc(*args) * w), rel=1e-15)
    ad.check_grads(f, point, order=2)


@pytest.mark.parametrize("rule", SPECIAL_ROWS, ids=[r.name for r in SPECIAL_ROWS])
def test_float32_arrays_stay_float32(rule):
    """In the last argument, with the others float32 arrays or Python numbers (fixed ones)."""
    args = _inside(rule, np.float32)
    ufunc = _scipy(rule, rule.special[0])

    def f(x):
        return np.sum(ufunc(*args[:-1], x))
    g = ad.gradient_r(f)(args[-1])
    h = ad.hvp(f, args[-1], np.ones(3, np.float32))
    assert g.dtype == np.float32 and h.dtype == np.float32
    want = ad.gradient_r(f)(args[-1].astype(np.float64))
    close(g, want.astype(np.float32), rel=2e-6, floor=1e-6)


def test_broadcasting_and_a_constant_argument():
    x = np.array([[0.5], [1.5]])
    y = np.array([0.3, 0.8, 2.0])
    g = ad.gradient_r(lambda a: np.sum(sc.xlogy(a, y)))(x)        # ∂/∂a Σ a log y = Σ log y
    close(g, np.full((2, 1), np.sum(np.log(y))), rel=1e-15)
    g = ad.gradient_r(lambda b: np.sum(sc.betaln(x, b)))(y)       # ψ(b) − ψ(a + b), summed on a
    close(g, np.sum(sc.psi(y) - sc.psi(x + y), axis=0), rel=1e-14)


def test_polygamma_and_iv_orders():
    x = np.array([0.7, 2.3])
    # (scipy.special.polygamma is a Python function that converts its arguments with asarray:
    # on tracked arrays it is dvlad.polygamma that differentiates)
    close(ad.gradient_r(lambda t: np.sum(ad.polygamma(1, t)))(x), sc.polygamma(2, x), rel=1e-14)
    close(ad.derivative(lambda t: ad.polygamma(3, t))(2.3), float(sc.polygamma(4, 2.3)),
          rel=1e-14)
    close(ad.gradient_r(lambda t: np.sum(sc.iv(2, t)))(x), sc.ivp(2, x), rel=1e-14)
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(ad.NotDifferentiableError, match="integer order"):
            op(lambda n: ad.iv(n, 1.5))(1.0)


def test_values_at_poles_and_edges_follow_scipy():
    for f, x in ((ad.gammaln, 0.0), (ad.gammaln, -2.0), (ad.logit, 0.0), (ad.logit, 1.0),
                 (ad.erfinv, 1.0), (ad.erfinv, -1.0), (ad.ndtri, 0.0), (ad.xlogy, (0.0, 0.0)),
                 (ad.xlog1py, (0.0, -1.0))):
        args = x if isinstance(x, tuple) else (x,)
        want = float(getattr(sc, f.__name__ if f.__name__ != "digamma" else "psi")(*args))
        assert f(*args) == want, (f.__name__, args)
    # the derivative of x·log y in y at x = 0 is 0, also at y = 0
    assert ad.derivative(lambda y: ad.xlogy(0.0, y))(0.0) == 0.0


def test_a_special_function_without_a_rule_is_named_with_its_module():
    with pytest.raises(ad.NotDifferentiableError, match="scipy.special.zetac has no dvlad rule"):
        ad.gradient_r(lambda x: np.sum(sc.zetac(x)))(np.array([0.5, 1.5]))


def test_dvlad_does_not_import_scipy():
    code = "import sys, dvlad; dvlad.erf(0.5); assert 'scipy' not in sys.modules, 'imported'"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("rule", SPECIAL_ROWS, ids=[r.name for r in SPECIAL_ROWS])
def test_without_scipy_the_values_come_from_mpmath(rule, monkeypatch):
    """No scipy: floats from mpmath at double precision, arrays element by element in their
    own float type; the same values as scipy's to a few ulps, and derivatives still run."""
    args = [float(c) for c in rule.points[0]]
    with_scipy = rule.op(*args)
    array_args = [a if i in rule.fixed else np.array([a, a], np.float32)
                  for i, a in enumerate(args)]
    with_scipy_array = rule.op(*array_args)
    monkeypatch.setattr(special, "_SCIPY", [None])
    close(rule.op(*args), with_scipy, rel=4e-15, floor=1e-300)
    got = rule.op(*array_args)
    assert got.dtype == np.float32
    close(got, with_scipy_array, rel=2e-7)
    d = ad.derivative(lambda t: rule.op(*args[:-1], t))(args[-1])
    mpmath.mp.dps = 30
    truth = mpmath.diff(lambda t: rule.lib[2](*[mpmath.mpf(a) for a in args[:-1]], t),
                        mpmath.mpf(args[-1]))
    close(d, truth, rel=1e-13)


def test_logaddexp_partials_without_scipy(monkeypatch):
    """logaddexp's partials are expit(x − y), expit(y − x); without scipy expit's numpy family
    is numpy's own (no per-element loop), exact at both tails, in the arrays' own float type."""
    x = np.array([-800.0, -30.0, -1.0, 0.0, 2.5, 30.0, 800.0])
    y = np.array([0.0, 1.0, 2.0, 0.0, 2.5, -4.0, 0.0])
    def first_and_second(x):
        d = ad.derivative(lambda b: ad.logaddexp(b, y))
        return d(x), ad.derivative(d)(x)
    with_scipy = first_and_second(x)
    monkeypatch.setattr(special, "_SCIPY", [None])
    without = first_and_second(x)
    with np.errstate(over="ignore"):
        s, t = 1.0 / (1.0 + np.exp(y - x)), 1.0 / (1.0 + np.exp(x - y))
    close(without[0], s, rel=1e-15, floor=1e-300)
    close(without[1], s * t, rel=1e-13, floor=1e-300)
    close(without[1], with_scipy[1], rel=1e-15, floor=1e-300)
    assert ad.derivative(lambda b: ad.logaddexp(b, np.float32(0.5)))(
        np.ones(3, np.float32)).dtype == np.float32
    assert special.expit_arrays(None)(x.astype(np.float32)).dtype == np.float32


def test_log_ndtr_far_in_its_left_tail_to_order_three():
    """(log Φ)′ = e^(−x²/2 − r)/√(2π) cancels for x ≪ 0 (−x²/2 against r ≈ −x²/2 − log(−x√(2π))):
    its 2nd derivative was 3e-5 off at x = −1000.  Below 0 the row takes √(2/π)/erfcx(−x/√2).
    Against mpmath (φ/Φ differentiated at 100 digits: log Φ's own differences lose its 5e5), in
    both modes, for floats, arrays and an mpf."""
    def slopes(x, orders=(0, 1, 2)):
        with mpmath.workdps(100):
            slope = lambda t: mpmath.npdf(t) / mpmath.ncdf(t)
            return [+mpmath.diff(slope, mpmath.mpf(x), k) for k in orders]
    mpmath.mp.dps = 40
    D, R = ad.derivative, ad.gradient_r
    for x in (-1000.0, -40.0, -6.5, -0.3):
        want = slopes(x)
        close(D(ad.log_ndtr)(x), want[0], rel=1e-14)
        close(R(D(ad.log_ndtr))(x), want[1], rel=1e-13)
        close(D(R(D(ad.log_ndtr)))(x), want[2], rel=1e-12)
    grid = np.array([-1000.0, -40.0, -6.5, -0.3])
    close(D(D(ad.log_ndtr))(grid), [float(slopes(x, (1,))[0]) for x in grid], rel=1e-13)
    with mpmath.workdps(40):
        x = mpmath.mpf(-1000)
        got = D(D(ad.log_ndtr))(x)
        assert type(got) is mpmath.mpf
        assert abs(got / slopes(x, (1,))[0] - 1) < mpmath.mpf(10) ** -35


def test_erfcx_slope_of_an_mpf_far_out_keeps_the_working_precision():
    """erfcx′ = 2x·erfcx − 2/√π lost log₁₀(2x²) digits of an mpf (6 at x = 707: the 2nd
    derivative of log_ndtr at −1000 was 2e-30 off at 40 digits); the continued fraction now takes
    as many terms as the precision needs, to every order."""
    mpmath.mp.dps = 40
    with mpmath.workdps(100):
        erfcx = lambda t: mpmath.exp(t * t) * mpmath.erfc(t)
        want = [+mpmath.diff(erfcx, mpmath.mpf(x), k) for x in (707, 4.5) for k in (1, 2)]
    D = ad.derivative
    got = [f(mpmath.mpf(x)) for x in (707, 4.5) for f in (D(ad.erfcx), D(D(ad.erfcx)))]
    assert all(type(g) is mpmath.mpf for g in got)
    assert max(abs(g / w - 1) for g, w in zip(got, want)) < mpmath.mpf(10) ** -38


# ---- numpy's elementwise functions added with them (issue #17): cbrt, copysign, fmax, fmin ----

def test_fmax_fmin_ignore_a_nan_argument_and_its_partial():
    x = np.array([1.0, 2.0, np.nan, -1.0])
    y = np.array([np.nan, 3.0, 0.5, -1.0])          # a nan each side, y larger, a tie
    for fn, want in ((np.fmax, [1.0, 0.0, 0.0, 0.5]), (np.fmin, [1.0, 1.0, 0.0, 0.5])):
        assert np.array_equal(ad.vjp(lambda t: fn(t, y), x)[0], fn(x, y), equal_nan=True)
        for grad in (ad.gradient_r, ad.gradient_f):
            assert grad(lambda t: np.sum(fn(t, y)))(x).tolist() == want
    assert ad.derivative(lambda t: ad.fmax(t, float("nan")))(2.0) == 1.0


def test_cbrt_is_the_real_cube_root():
    x = np.array([-8.0, 0.001, 27.0])
    close(ad.gradient_r(lambda t: np.sum(np.cbrt(t)))(x), 1 / (3 * np.cbrt(x) ** 2), rel=1e-15)
    assert ad.cbrt(-8.0) == -2.0 and ad.cbrt(1e-300) == np.cbrt(1e-300)
    assert ad.derivative(ad.cbrt)(0.0) == np.inf
    d2 = ad.derivative(ad.derivative(ad.cbrt))(-8.0)     # −(2/9) x^(−5/3) at −8: 2/288
    close(d2, 2 / 9 / 32, rel=1e-15)


def test_copysign_takes_its_sign_from_y():
    x = np.array([1.5, -0.5, 2.0])
    y = np.array([-1.0, 3.0, 0.0])
    g = ad.gradient_r(lambda t: np.sum(np.copysign(t, y) * np.array([1.0, 2.0, 3.0])))(x)
    assert g.tolist() == [-1.0, -2.0, 3.0]              # sign(x)·sign(y), +0.0 counts as +
    assert ad.gradient_r(lambda t: np.sum(np.copysign(x, t)))(y).tolist() == [0.0, 0.0, 0.0]


def test_indices_and_orderings_answer_for_the_primals():
    x = np.array([3.0, 1.0, 2.0])

    def f(x):
        top = x[np.argmax(x)] + x[np.argmin(x)] * np.count_nonzero(x > 1.5)
        ranked = np.sum(x[np.argsort(x)] * np.arange(3.0))
        return top + ranked + np.sum(x[np.nonzero(x > 1.5)]) * np.all(x > 0)
    # 3 + 1·2 + (1·0 + 2·1 + 3·2) + (3 + 2): ∂ = [1 + 2 + 1, 2 + 0, 1 + 1]
    for grad in (ad.gradient_r, ad.gradient_f):
        assert grad(f)(x).tolist() == [4.0, 2.0, 2.0]
    assert ad.derivative(lambda t: t * np.searchsorted([0.5, 1.5, 2.5], t))(2.0) == 2.0


def test_xlogy_y_partial_carries_a_perturbed_x_at_zero():
    """The y-partial x/y is 0 at a constant x = 0, but where x is perturbed its derivative 1/y
    stays (the long fuzzer run: (x·log(1 + x))″ at 0 came out 1, it is 2)."""
    D = ad.derivative
    mpmath.mp.dps = 30
    for f, mf in ((lambda x: ad.xlog1py(x, x), lambda x: x * mpmath.log1p(x)),
                  (lambda x: ad.xlogy(x, x + 1.0), lambda x: x * mpmath.log(x + 1))):
        want = [mpmath.diff(mf, 0, k) for k in (1, 2, 3)]
        close(D(f)(0.0), want[0], rel=1e-15, floor=1e-15)
        for got in (D(D(f))(0.0), ad.gradient_r(D(f))(0.0), D(ad.gradient_r(f))(0.0)):
            close(got, want[1], rel=1e-15)
        close(ad.derivatives(f, 3)(0.0)[3], want[2], rel=1e-14)
    assert D(lambda y: ad.xlogy(0.0, y))(0.0) == 0.0      # a constant 0: the convention
    assert D(lambda y: ad.xlog1py(0.0, y))(-1.0) == 0.0


def test_bessel_derivatives_at_subnormal_points():
    """scipy's iv is nan at a subnormal x, so I₀′ = I₁ = iv(1, x) was nan there (the final long
    fuzzer run); dvlad takes the series' first term (x/2)^v/Γ(v + 1) where scipy gives nan."""
    for x in (2.2e-313, 2.225073858507203e-309, -1e-310):
        for d in (ad.derivative(ad.i0)(x), ad.gradient_r(ad.i0)(x), ad.iv(1, x)):
            assert d == x / 2, (x, d)
        assert ad.derivative(ad.i1)(x) == 0.5
        assert ad.iv(2, x) == (x / 2) ** 2 / 2
    g = ad.gradient_r(lambda t: np.sum(sc.i0(t)))(np.array([2.2e-313, 0.5]))
    assert g[0] == 1.1e-313 and g[1] == sc.i1(0.5)


def _iv_series(v, x, terms=4):
    """I_v(x) = Σ_k (x/2)^(2k+v) / (k! Γ(k + v + 1)), I₋ₙ = Iₙ: mpmath's oracle at a tiny x
    (mpmath.besseli gives up there)."""
    v = -v if v < 0 and v == int(v) else v
    h = mpmath.mpf(x) / 2
    return sum(h ** (2 * k + v) / (mpmath.factorial(k) * mpmath.gamma(k + v + 1))
               for k in range(terms))


@pytest.mark.parametrize("x", [5e-324, 1.1125369292536007e-308, 2.2250738585072014e-308, 1e-300,
                               1e-160])
def test_iv_at_a_tiny_x_is_its_series_first_term(x):
    # found by the long fuzzer run: scipy's iv is nan at the smallest normal and below, 0 where
    # the truth is ~x/2 (1e-300), and the first-term fallback raised OverflowError or
    # ZeroDivisionError at a negative integer order (I₋₁ = I₁) — met by i1″, i0‴
    with mpmath.workdps(30):
        for v in (-1, 0, 1, 2, 3, -0.5):
            want = float(_iv_series(v, x))
            got = ad.iv(v, x)
            assert got == pytest.approx(want, rel=1e-15, abs=0), (v, got, want)
            assert ad.iv(v, np.array([x]))[0] == got
        assert ad.derivative(ad.i0)(x) == pytest.approx(float(_iv_series(1, x)), rel=1e-15)
        assert ad.gradient_r(ad.i0)(x) == ad.derivative(ad.i0)(x)
        # I₁″ = (I₋₁ + 2 I₁ + I₃)/4 = 3x/8 + O(x³)
        assert ad.nth_derivative(ad.i1, 2)(x) == pytest.approx(3 * x / 8, rel=1e-14, abs=1e-323)


# ---- autograd's other scipy.special functions (issue #17): gamma rgamma gammasgn beta, Bessel
# functions of the first and second kind, ive, the incomplete gamma and beta functions, stdtr
# and pdtr ---------------------------------------------------------------------------------------

def _mp_pdtr(k, m):
    return mpmath.fsum(mpmath.exp(-m) * m ** j / mpmath.factorial(j)
                       for j in range(int(mpmath.floor(k)) + 1))


# (scipy ufunc, its fixed leading arguments, points of the variable, mpmath's function of them all)
NEW = {
    "gamma": (sc.gamma, (), [2.7, 0.4, -1.5, -2.5], mpmath.gamma),
    "rgamma": (sc.rgamma, (), [2.7, 0.2, -1.5, -3.0], mpmath.rgamma),
    "beta x": (lambda x: sc.beta(x, 2.4), (), [1.7, 0.6, 3.1], lambda x: mpmath.beta(x, 2.4)),
    "beta y": (lambda y: sc.beta(0.6, y), (), [1.7, 2.4, 0.3], lambda y: mpmath.beta(0.6, y)),
    "j0": (sc.j0, (), [0.8, -2.2, 5.3, 12.5], lambda x: mpmath.besselj(0, x)),
    "j1": (sc.j1, (), [0.8, -2.2, 5.3, 12.5], lambda x: mpmath.besselj(1, x)),
    "y0": (sc.y0, (), [0.8, 2.2, 12.5], lambda x: mpmath.bessely(0, x)),
    "y1": (sc.y1, (), [0.8, 2.2, 12.5], lambda x: mpmath.bessely(1, x)),
    "jn": (sc.jn, (3,), [0.8, -2.2, 5.3], lambda x: mpmath.besselj(3, x)),
    "jn -2": (sc.jn, (-2,), [0.8, -2.2, 5.3], lambda x: mpmath.besselj(-2, x)),
    "jv": (sc.jv, (1.5,), [0.8, 2.2, 5.3], lambda x: mpmath.besselj(1.5, x)),
    "yn": (sc.yn, (3,), [0.8, 2.2, 5.3], lambda x: mpmath.bessely(3, x)),
    "ive": (sc.ive, (1.5,), [0.8, 2.2, 25.0], lambda x: mpmath.besseli(1.5, x) * mpmath.exp(-x)),
    "ive -x": (sc.ive, (2,), [-0.8, -2.2, -25.0], lambda x: mpmath.besseli(2, x) * mpmath.exp(x)),
    "kv": (sc.kv, (1.5,), [0.3, 1.3, 7.0], lambda x: mpmath.besselk(1.5, x)),
    "kv 0": (sc.kv, (0,), [0.3, 1.3, 7.0], lambda x: mpmath.besselk(0, x)),
    "kve": (sc.kve, (2.5,), [0.3, 1.3, 25.0], lambda x: mpmath.besselk(2.5, x) * mpmath.exp(x)),
    "gammainc": (sc.gammainc, (2.5,), [0.3, 1.3, 7.0],
                 lambda x: mpmath.gammainc(2.5, 0, x, regularized=True)),
    "gammaincc": (sc.gammaincc, (0.6,), [0.3, 1.3, 7.0],
                  lambda x: mpmath.gammainc(0.6, x, mpmath.inf, regularized=True)),
    "betainc": (sc.betainc, (2.5, 1.5), [0.05, 0.3, 0.9],
                lambda x: mpmath.betainc(2.5, 1.5, 0, x, regularized=True)),
    "stdtr": (sc.stdtr, (3.0,), [-2.5, 0.7, 4.0],
              lambda t: mpmath.quad(lambda u: (1 + u * u / 3) ** -2, [-mpmath.inf, t])
              * mpmath.gamma(2) / (mpmath.sqrt(3 * mpmath.pi) * mpmath.gamma(1.5))),
    "pdtr": (sc.pdtr, (3,), [0.4, 1.3, 6.0], lambda m: _mp_pdtr(3, m)),
    # the Pochhammer symbol in z (through the poles z = −n of Γ: r = 0 there, the derivative
    # Γ(z + m)(−1)ⁿ n!) and in m
    "poch z": (lambda z: sc.poch(z, 1.5), (), [2.5, 0.3, -2.0, -1.3, -3.0],
               lambda z: mpmath.gamma(z + 1.5) * mpmath.rgamma(z)),
    "poch m": (lambda m: sc.poch(0.7, m), (), [0.5, 1.6, -0.3, 4.2],
               lambda m: mpmath.gamma(0.7 + m) * mpmath.rgamma(0.7)),
    "poch -z": (lambda m: sc.poch(-1.5, m), (), [0.8, 2.2, -0.7],
                lambda m: mpmath.gamma(-1.5 + m) * mpmath.rgamma(-1.5)),
    "pdtrc": (sc.pdtrc, (3,), [0.4, 1.3, 6.0], lambda m: 1 - _mp_pdtr(3, m)),
    "pdtrc 0": (sc.pdtrc, (0.5,), [0.4, 1.3, 6.0], lambda m: 1 - _mp_pdtr(0, m)),
    "betaincc": (sc.betaincc, (2.5, 1.5), [0.05, 0.3, 0.9],
                 lambda x: mpmath.betainc(2.5, 1.5, x, 1, regularized=True)),
    "chdtr": (sc.chdtr, (3.0,), [0.3, 1.3, 7.0],
              lambda x: mpmath.quad(lambda u: mpmath.sqrt(u) * mpmath.exp(-u / 2), [0, x])
              / (2 ** 1.5 * mpmath.gamma(1.5))),
    "chdtrc": (sc.chdtrc, (1.2,), [0.3, 1.3, 7.0],
               lambda x: mpmath.gammainc(0.6, x / 2, mpmath.inf, regularized=True)),
    # the rows added after autograd's: Bessel K₀, K₁, K_n, Y_v and the scaled ones
    "k0": (sc.k0, (), [0.3, 1.3, 7.0], lambda x: mpmath.besselk(0, x)),
    "k1": (sc.k1, (), [0.3, 1.3, 7.0], lambda x: mpmath.besselk(1, x)),
    "k0e": (sc.k0e, (), [0.3, 1.3, 25.0], lambda x: mpmath.besselk(0, x) * mpmath.exp(x)),
    "k1e": (sc.k1e, (), [0.3, 1.3, 25.0], lambda x: mpmath.besselk(1, x) * mpmath.exp(x)),
    "kn": (sc.kn, (3,), [0.3, 1.3, 7.0], lambda x: mpmath.besselk(3, x)),
    "kn -2": (sc.kn, (-2,), [0.3, 1.3, 7.0], lambda x: mpmath.besselk(2, x)),
    "yv": (sc.yv, (1.5,), [0.8, 2.2, 12.5], lambda x: mpmath.bessely(1.5, x)),
    "yv -0.7": (sc.yv, (-0.7,), [0.8, 2.2, 12.5], lambda x: mpmath.bessely(-0.7, x)),
    "yve": (sc.yve, (2.5,), [0.8, 2.2, 12.5], lambda x: mpmath.bessely(2.5, x)),
    "jve": (sc.jve, (1.5,), [0.8, 2.2, 5.3], lambda x: mpmath.besselj(1.5, x)),
    "jve -x": (sc.jve, (2,), [-0.8, -2.2, 5.3], lambda x: mpmath.besselj(2, x)),
    # elementary ones: exprel near 0 (its series: no cancellation), powm1 near x^y = 1
    "exp10": (sc.exp10, (), [-1.3, 0.2, 2.5], lambda x: mpmath.power(10, x)),
    "exprel": (sc.exprel, (), [-30.0, -3.0, -1e-9, 1e-5, 0.7, 2.5, 40.0],
               lambda x: mpmath.expm1(x) / x),
    "powm1 x": (lambda x: sc.powm1(x, 2.5), (), [0.3, 1.3, 4.0],
                lambda x: mpmath.power(x, 2.5) - 1),
    "powm1 y": (lambda y: sc.powm1(0.7, y), (), [-1.3, 1e-8, 2.5],
                lambda y: mpmath.power(mpmath.mpf(0.7), y) - 1),
    "erfi": (sc.erfi, (), [-1.4, 0.3, 3.5], mpmath.erfi),
    # the Huber losses in δ and in r, inside and outside |r| ≤ δ
    "huber δ": (lambda d: sc.huber(d, 1.2), (), [0.5, 0.9, 2.0],
                lambda d: 0.72 if 1.2 <= d else d * (1.2 - d / 2)),
    "huber r": (lambda r: sc.huber(0.8, r), (), [-1.5, 0.3, 2.2],
                lambda r: r * r / 2 if abs(r) <= 0.8 else 0.8 * (abs(r) - 0.4)),
    "pseudo_huber δ": (lambda d: sc.pseudo_huber(d, 1.2), (), [0.05, 0.9, 20.0],
                       lambda d: d * d * (mpmath.sqrt(1 + (1.2 / d) ** 2) - 1)),
    "pseudo_huber r": (lambda r: sc.pseudo_huber(0.8, r), (), [-1.5, 1e-3, 30.0],
                       lambda r: mpmath.mpf(0.8) ** 2 * (mpmath.sqrt(1 + (r / 0.8) ** 2) - 1)),
    # the complete elliptic integrals, near m = 0 (their hypergeometric slopes) and m = 1
    "ellipk": (sc.ellipk, (), [-4.0, -0.3, 1e-9, 0.45, 0.55, 0.97], mpmath.ellipk),
    "ellipe": (sc.ellipe, (), [-4.0, -0.3, 1e-9, 0.45, 0.55, 0.97], mpmath.ellipe),
    "ellipkm1": (sc.ellipkm1, (), [0.1, 0.3, 0.7, 1.0 - 1e-9, 3.0],
                 lambda p: mpmath.ellipk(1 - p)),
    "ndtri_exp": (sc.ndtri_exp, (), [-40.0, -3.0, -0.7, -0.05],
                  lambda y: mpmath.findroot(lambda r: mpmath.log(mpmath.ncdf(r)) - y,
                                            float(sc.ndtri_exp(float(y))))),
    # the inverse Box-Cox transforms in y and in λ (at and near λ = 0)
    "inv_boxcox y": (lambda y: sc.inv_boxcox(y, 0.6), (), [-1.5, 0.4, 3.0],
                     lambda y: (1 + 0.6 * y) ** (1 / mpmath.mpf(0.6))),
    "inv_boxcox λ": (lambda lm: sc.inv_boxcox(1.7, lm), (), [-0.5, 0.0, 1e-9, 0.6, 5.0],
                     lambda lm: mpmath.exp(1.7) if lm == 0 else (1 + lm * 1.7) ** (1 / lm)),
    "inv_boxcox1p y": (lambda y: sc.inv_boxcox1p(y, -1.3), (), [-0.5, 1e-7, 0.6],
                       lambda y: (1 - 1.3 * y) ** (1 / mpmath.mpf(-1.3)) - 1),
    "inv_boxcox1p λ": (lambda lm: sc.inv_boxcox1p(0.7, lm), (), [-0.5, 0.0, 1e-9, 0.6, 5.0],
                       lambda lm: mpmath.expm1(0.7) if lm == 0 else
                       (1 + lm * 0.7) ** (1 / lm) - 1),
    # the orthogonal polynomials (an int degree: scipy's recurrences; a fractional one:
    # its hypergeometric functions)
    "eval_legendre": (sc.eval_legendre, (4,), [-0.9, 0.3, 1.7], lambda x: mpmath.legendre(4, x)),
    "eval_legendre 2.5": (sc.eval_legendre, (2.5,), [-0.6, 0.3, 0.9],
                          lambda x: mpmath.legendre(2.5, x)),
    "eval_sh_legendre": (sc.eval_sh_legendre, (4,), [0.1, 0.6, 1.3],
                         lambda x: mpmath.legendre(4, 2 * x - 1)),
    "eval_chebyt": (sc.eval_chebyt, (5,), [-0.9, 0.3, 1.7], lambda x: mpmath.chebyt(5, x)),
    "eval_chebyu": (sc.eval_chebyu, (5,), [-0.9, 0.3, 1.7], lambda x: mpmath.chebyu(5, x)),
    "eval_chebyc": (sc.eval_chebyc, (4,), [-1.9, 0.3, 2.5], lambda x: 2 * mpmath.chebyt(4, x / 2)),
    "eval_chebys": (sc.eval_chebys, (4,), [-1.9, 0.3, 2.5], lambda x: mpmath.chebyu(4, x / 2)),
    "eval_sh_chebyt": (sc.eval_sh_chebyt, (5,), [0.1, 0.6, 1.3],
                       lambda x: mpmath.chebyt(5, 2 * x - 1)),
    "eval_sh_chebyu": (sc.eval_sh_chebyu, (5,), [0.1, 0.6, 1.3],
                       lambda x: mpmath.chebyu(5, 2 * x - 1)),
    "eval_laguerre": (sc.eval_laguerre, (4,), [0.3, 2.5, 7.0], lambda x: mpmath.laguerre(4, 0, x)),
    "eval_genlaguerre": (sc.eval_genlaguerre, (4, 0.7), [0.3, 2.5, 7.0],
                         lambda x: mpmath.laguerre(4, 0.7, x)),
    "eval_gegenbauer": (sc.eval_gegenbauer, (4, 0.7), [-0.9, 0.3, 1.5],
                        lambda x: mpmath.gegenbauer(4, 0.7, x)),
    "eval_jacobi": (sc.eval_jacobi, (4, 0.5, 1.5), [-0.9, 0.3, 1.5],
                    lambda x: mpmath.jacobi(4, 0.5, 1.5, x)),
    "eval_sh_jacobi": (sc.eval_sh_jacobi, (4, 2.5, 0.75), [0.1, 0.6, 1.2],
                       lambda x: mpmath.jacobi(4, 1.75, -0.25, 2 * x - 1) / mpmath.binomial(9.5, 4)),
}


@pytest.mark.parametrize("name", list(NEW))
def test_new_functions_against_mpmath(name):
    """f′ (forward: jvp along ones, reverse: the gradient of Σf) and f″ (hvp, forward over
    reverse and reverse over reverse) of the scipy ufunc on a tracked array, against mpmath's
    derivatives at 30 digits of mpmath's own function."""
    ufunc, fixed, points, mf = NEW[name]
    x = np.array(points)
    f = lambda t: ufunc(*fixed, t)                                          # noqa: E731
    with mpmath.workdps(30):
        d1 = [float(mpmath.diff(mf, mpmath.mpf(p))) for p in points]
        d2 = [float(mpmath.diff(mf, mpmath.mpf(p), 2)) for p in points]
    value, slope = ad.jvp(f, x, np.ones_like(x))
    close(value, ufunc(*fixed, x), rel=1e-15)
    close(slope, d1, rel=1e-12, floor=1e-14)
    close(ad.gradient_r(lambda t: np.sum(f(t)))(x), d1, rel=1e-12, floor=1e-14)
    for mode in ("fr", "rr"):
        close(ad.hvp(lambda t: np.sum(f(t)), x, np.ones_like(x), mode=mode), d2, rel=1e-11,
              floor=1e-13)


@pytest.mark.parametrize("name", ["gamma", "rgamma", "j0", "y1", "jn", "ive", "gammainc",
                                  "betainc", "stdtr", "pdtr", "poch z", "poch m", "pdtrc",
                                  "betaincc", "chdtr", "chdtrc", "kv", "kve", "k0", "k1",
                                  "k0e", "k1e", "kn", "yv", "yve", "jve -x", "exp10", "exprel",
                                  "powm1 x", "powm1 y", "erfi", "huber δ", "huber r",
                                  "pseudo_huber δ", "pseudo_huber r", "ellipk", "ellipe",
                                  "ellipkm1", "ndtri_exp", "inv_boxcox y", "inv_boxcox λ",
                                  "inv_boxcox1p y", "inv_boxcox1p λ", "eval_legendre 2.5",
                                  "eval_sh_legendre", "eval_chebyt", "eval_chebyu",
                                  "eval_chebyc", "eval_chebys", "eval_sh_chebyt",
                                  "eval_sh_chebyu", "eval_laguerre", "eval_genlaguerre",
                                  "eval_gegenbauer", "eval_jacobi", "eval_sh_jacobi"])
def test_new_functions_nested_to_order_two(name):
    ufunc, fixed, points, _ = NEW[name]
    x = np.array(points)
    ad.check_grads(lambda t: np.sum(ufunc(*fixed, t) * np.cos(t)), x, order=2,
                   modes=("fwd", "rev"))


def test_rgamma_at_the_poles_of_gamma():
    """1/Γ(x) ≈ (−1)ⁿ n! (x + n) near x = −n: its derivative there is (−1)ⁿ n!, not 0·inf,
    in every mode, and its higher derivatives are mpmath's (nested, Taylor)."""
    D, R = ad.derivative, ad.gradient_r
    for n in range(7):
        x = float(-n)
        want = (-1) ** n * math.factorial(n)
        for op in (D, R):
            close(op(ad.rgamma)(x), want, rel=1e-14)
        close(ad.gradient_r(lambda t: np.sum(sc.rgamma(t)))(np.array([x, x])), [want, want],
              rel=1e-14)
        with mpmath.workdps(30):
            d2, d3 = (float(mpmath.diff(mpmath.rgamma, -n, k)) for k in (2, 3))
        for got in (D(D(ad.rgamma))(x), R(D(ad.rgamma))(x), D(R(ad.rgamma))(x)):
            close(got, d2, rel=1e-12)
        close(ad.derivatives(ad.rgamma, 3)(x), [0.0, want, d2, d3], rel=1e-12, floor=1e-13)


def test_poch_at_the_poles_of_gamma():
    """poch(z, m) = Γ(z + m)/Γ(z) through the poles of Γ, where scipy gives it a value: 0 at
    z = −n (z + m not a pole; ∂z = Γ(z + m)(−1)ⁿ n!, ∂m = 0), the finite product z(z + 1)···
    where both are poles (m an integer; ∂z = r·Σ 1/(z + j): poch(−3, 2) = z(z + 1), ∂z = 2z + 1
    = −5, ∂²z = 2), and a product with a zero factor (poch(−1, 3) = z(z + 1)(z + 2): ∂z = −1);
    in every mode, nested and as Taylor coefficients."""
    D, R = ad.derivative, ad.gradient_r
    for z, m, value, dz, dzz in ((-3.0, 2.0, 6.0, -5.0, 2.0), (-1.0, 3.0, 0.0, -1.0, 0.0),
                                 (0.0, 1.0, 0.0, 1.0, 0.0), (-4.0, 3.0, -24.0, 26.0, -18.0)):
        assert ad.poch(z, m) == sc.poch(z, m) == value
        for op in (D, R):
            close(op(lambda t: ad.poch(t, m))(z), dz, rel=1e-14)
        close(R(lambda t: np.sum(sc.poch(t, m)))(np.array([z, z])), [dz, dz], rel=1e-14)
        for got in (D(D(lambda t: ad.poch(t, m)))(z), R(D(lambda t: ad.poch(t, m)))(z),
                    D(R(lambda t: ad.poch(t, m)))(z)):
            close(got, dzz, rel=1e-13, floor=1.0)
        close(ad.derivatives(lambda t: ad.poch(t, m), 3)(z)[:3], [value, dz, dzz], rel=1e-13,
              floor=1.0)
    # at z = −n with z + m not a pole: r = 0, ∂m = 0, ∂z and its Taylor coefficients mpmath's
    with mpmath.workdps(30):
        mf = lambda t: mpmath.gamma(t + 0.6) * mpmath.rgamma(t)                 # noqa: E731
        want = [float(w) for w in mpmath.diffs(mf, -2, 4)]
    close(ad.derivatives(lambda t: ad.poch(t, 0.6), 4)(-2.0), want, rel=1e-12, floor=1e-14)
    assert D(lambda m: ad.poch(-2.0, m))(0.6) == 0.0 == R(lambda m: ad.poch(-2.0, m))(0.6)
    # where z + m is a pole and z is not, poch is infinite (scipy's value) and so is ∂z
    assert ad.poch(-1.5, 0.5) == np.inf and abs(D(lambda t: ad.poch(t, 0.5))(-1.5)) == np.inf
    with mpmath.workdps(40):
        z = mpmath.mpf("-2")
        got = ad.derivatives(lambda t: ad.poch(t, mpmath.mpf("0.6")), 2)(z)
        assert all(type(g) is type(z) for g in got)
        close(got, list(mpmath.diffs(lambda t: mpmath.gamma(t + mpmath.mpf("0.6"))
                                     * mpmath.rgamma(t), z, 2)), rel=mpmath.mpf(10) ** -35)


def test_incomplete_gamma_and_poisson_at_zero():
    """∂ₓP(a, x) at x = 0: 1 for a = 1 (e^−x; no 0·log 0), 0 for a > 1, inf for a < 1."""
    for a, want in ((1.0, 1.0), (2.0, 0.0), (3.5, 0.0), (0.5, math.inf)):
        for op in (ad.derivative, ad.gradient_r):
            assert op(lambda x: ad.gammainc(a, x))(0.0) == want
            assert op(lambda x: ad.gammaincc(a, x))(0.0) == -want
    g = ad.gradient_r(lambda x: np.sum(sc.gammainc(np.array([1.0, 2.0, 1.0]), x)))(
        np.array([0.0, 0.0, 0.7]))
    close(g, [1.0, 0.0, math.exp(-0.7)], rel=1e-15)
    assert ad.derivative(lambda x: ad.derivative(lambda y: ad.gammainc(1.0, y))(x))(0.0) == -1.0
    # the Poisson cdf of k = 0 is e^−m: ∂m = −1 at 0; for k ≥ 1, 0
    assert ad.derivative(lambda m: ad.pdtr(0, m))(0.0) == -1.0
    assert ad.gradient_r(lambda m: ad.pdtr(2, m))(0.0) == 0.0


def test_incomplete_beta_at_the_ends():
    """∂ₓI_x(a, b) = x^(a−1)(1 − x)^(b−1)/B(a, b): b at x = 0 for a = 1, a at x = 1 for
    b = 1."""
    for op in (ad.derivative, ad.gradient_r):
        close(op(lambda x: ad.betainc(1.0, 2.5, x))(0.0), 2.5, rel=1e-15)
        close(op(lambda x: ad.betainc(3.0, 1.0, x))(1.0), 3.0, rel=1e-15)
        assert op(lambda x: ad.betainc(0.5, 2.0, x))(0.0) == math.inf
        assert op(lambda x: ad.betainc(2.0, 2.0, x))(0.0) == 0.0
    # I_x(1, 1) = x: its derivatives are 1, 0, 0 (Taylor and nested)
    assert ad.derivatives(lambda x: ad.betainc(1.0, 1.0, x), 3)(0.4) == [0.4, 1.0, 0.0, 0.0]


FIXED_ARGUMENTS = [
    ("chdtr", lambda v: sc.chdtr(v, 1.3), "v"),
    ("chdtrc", lambda v: sc.chdtrc(v, 1.3), "v"),
    ("betaincc", lambda a: sc.betaincc(a, 1.5, 0.3), "a"),
    ("betaincc", lambda b: sc.betaincc(2.5, b, 0.3), "b"),
    ("gammainc", lambda a: sc.gammainc(a, 1.3), "a"),
    ("gammaincc", lambda a: sc.gammaincc(a, 1.3), "a"),
    ("stdtr", lambda df: sc.stdtr(df, 0.7), "df"),
    ("betainc", lambda a: sc.betainc(a, 1.5, 0.3), "a"),
    ("betainc", lambda b: sc.betainc(2.5, b, 0.3), "b"),
    ("eval_gegenbauer", lambda a: sc.eval_gegenbauer(3, a, 0.4), "alpha"),
    ("eval_genlaguerre", lambda a: sc.eval_genlaguerre(3, a, 0.4), "alpha"),
    ("eval_jacobi", lambda a: sc.eval_jacobi(3, a, 0.7, 0.4), "alpha"),
    ("eval_jacobi", lambda b: sc.eval_jacobi(3, 0.5, b, 0.4), "beta"),
    ("eval_sh_jacobi", lambda p: sc.eval_sh_jacobi(3, p, 0.7, 0.4), "p"),
    ("eval_sh_jacobi", lambda q: sc.eval_sh_jacobi(3, 2.5, q, 0.4), "q"),
]


@pytest.mark.parametrize("op", [ad.gradient_r, ad.gradient_f, ad.derivative],
                         ids=["gradient_r", "gradient_f", "derivative"])
@pytest.mark.parametrize("name, f, argument", FIXED_ARGUMENTS,
                         ids=[f"{n}-{a}" for n, _, a in FIXED_ARGUMENTS])
def test_a_shape_argument_is_refused_by_name(name, f, argument, op):
    """The shape arguments have no closed-form derivative (autograd differentiates the last
    argument only): differentiating in one raises NotDifferentiableError naming the scipy
    function and the argument, on arrays and on numbers, also when the other is perturbed."""
    x = np.array([2.5, 3.0]) if op is not ad.derivative else 2.5
    g = (lambda t: np.sum(f(t))) if op is not ad.derivative else f
    with pytest.raises(ad.NotDifferentiableError,
                       match=f"scipy.special.{name} .*shape argument {argument} "):
        op(g)(x)
    both = {"gammainc": lambda t: ad.gammainc(t, t), "stdtr": lambda t: ad.stdtr(t + 2.0, t),
            "betainc": lambda t: ad.betainc(t, 1.5, t / 4.0)}.get(name)
    if both is not None:
        with pytest.raises(ad.NotDifferentiableError, match=f"scipy.special.{name}"):
            ad.derivatives(both, 2)(1.1)         # Taylor towers too


@pytest.mark.parametrize("name, f", [("jn", lambda n: sc.jn(n, 1.3)),
                                     ("yn", lambda n: sc.yn(n, 1.3)),
                                     ("ive", lambda v: sc.ive(v, 1.3)),
                                     ("kv", lambda v: sc.kv(v, 1.3)),
                                     ("kve", lambda v: sc.kve(v, 1.3)),
                                     ("pdtr", lambda k: sc.pdtr(k, 1.3)),
                                     ("pdtrc", lambda k: sc.pdtrc(k, 1.3)),
                                     ("kn", lambda n: sc.kn(n, 1.3)),
                                     ("yv", lambda v: sc.yv(v, 1.3)),
                                     ("yve", lambda v: sc.yve(v, 1.3)),
                                     ("jve", lambda v: sc.jve(v, 1.3)),
                                     ("eval_legendre", lambda n: sc.eval_legendre(n, 0.4)),
                                     ("eval_sh_legendre", lambda n: sc.eval_sh_legendre(n, 0.4)),
                                     ("eval_chebyt", lambda n: sc.eval_chebyt(n, 0.4)),
                                     ("eval_chebyu", lambda n: sc.eval_chebyu(n, 0.4)),
                                     ("eval_chebyc", lambda n: sc.eval_chebyc(n, 0.4)),
                                     ("eval_chebys", lambda n: sc.eval_chebys(n, 0.4)),
                                     ("eval_sh_chebyt", lambda n: sc.eval_sh_chebyt(n, 0.4)),
                                     ("eval_sh_chebyu", lambda n: sc.eval_sh_chebyu(n, 0.4)),
                                     ("eval_laguerre", lambda n: sc.eval_laguerre(n, 0.4)),
                                     ("eval_genlaguerre",
                                      lambda n: sc.eval_genlaguerre(n, 0.5, 0.4)),
                                     ("eval_gegenbauer",
                                      lambda n: sc.eval_gegenbauer(n, 0.5, 0.4)),
                                     ("eval_jacobi", lambda n: sc.eval_jacobi(n, 0.5, 0.7, 0.4)),
                                     ("eval_sh_jacobi",
                                      lambda n: sc.eval_sh_jacobi(n, 2.5, 0.7, 0.4))])
def test_an_order_is_refused_by_name(name, f):
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(ad.NotDifferentiableError, match=f"dvlad.{name}: .*integer order"):
            op(f)(2.0)


def test_stacked_and_broadcast_arrays():
    """Each argument broadcasts as numpy's: a fixed (3, 1) column against a tracked (4,) row
    gives (3, 4), whose gradient sums back to (4,)."""
    a = np.array([[0.5], [1.0], [2.5]])
    x = np.array([0.2, 0.9, 1.7, 4.0])
    W = np.arange(1.0, 13.0).reshape(3, 4)
    g = ad.gradient_r(lambda t: np.sum(sc.gammainc(a, t) * W))(x)
    close(g, np.sum(W * np.exp((a - 1) * np.log(x) - x - sc.gammaln(a)), axis=0), rel=1e-14)
    t = np.array([[0.8, 2.2, 5.3, 7.1], [1.1, 3.3, 0.4, 9.0]])          # a stack of rows
    n = np.array([[[0]], [[1]], [[4]]])
    g = ad.gradient_r(lambda t: np.sum(sc.jn(n, t)))(t)
    close(g, np.sum(0.5 * (sc.jv(n - 1, t) - sc.jv(n + 1, t)), axis=0), rel=1e-13, floor=1e-15)
    ad.check_grads(lambda t: np.sum(sc.yn(n, t + 1.0) * np.sin(t)), t, order=2)
    A, B = np.array([2.5, 0.7])[:, None, None], np.array([1.5, 2.2, 3.0])[None, :, None]
    z = np.array([0.1, 0.3, 0.6, 0.95])
    g = ad.gradient_f(lambda z: np.sum(sc.betainc(A, B, z)))(z)
    close(g, np.sum(np.exp((A - 1) * np.log(z) + (B - 1) * np.log1p(-z) - sc.betaln(A, B)),
                    axis=(0, 1)), rel=1e-13)
    ad.check_grads(lambda z: np.sum(sc.betainc(A, B, z) ** 2), z, order=2)
    # both arguments of beta tracked, broadcast against each other
    p, q = np.array([[0.6], [1.7], [2.4]]), np.array([0.3, 1.1, 2.0, 3.1])
    gp, gq = ad.gradient_r(lambda u: np.sum(sc.beta(u[0], u[1])))((p, q))
    r = sc.beta(p, q)
    close(gp, np.sum(r * (sc.psi(p) - sc.psi(p + q)), axis=1, keepdims=True), rel=1e-13)
    close(gq, np.sum(r * (sc.psi(q) - sc.psi(p + q)), axis=0), rel=1e-13)
    ad.check_grads(lambda u: np.sum(sc.rgamma(u) * sc.j1(u) + sc.ive(1, u)), t - 3.0, order=2)


def test_mpf_in_mpf_out():
    with mpmath.workdps(50):
        x = mpmath.mpf("0.3")
        for f, mf in ((ad.gamma, mpmath.gamma), (ad.rgamma, mpmath.rgamma),
                      (ad.j1, lambda t: mpmath.besselj(1, t)),
                      (lambda t: ad.yn(2, t), lambda t: mpmath.bessely(2, t)),
                      (lambda t: ad.gammaincc(2.5, t),
                       lambda t: mpmath.gammainc(2.5, t, mpmath.inf, regularized=True)),
                      (lambda t: ad.betainc(2.5, 1.5, t),
                       lambda t: mpmath.betainc(2.5, 1.5, 0, t, regularized=True)),
                      (lambda t: ad.stdtr(3.5, t), lambda t: mpmath.mpf(1) / 2 + t * mpmath.gamma(
                          2.25) * mpmath.hyp2f1(0.5, 2.25, 1.5, -t * t / 3.5) / (
                          mpmath.sqrt(3.5 * mpmath.pi) * mpmath.gamma(1.75)))):
            got = ad.derivatives(f, 2)(x)
            assert all(type(g) is type(x) for g in got)
            close(got, list(mpmath.diffs(mf, x, 2)), rel=mpmath.mpf(10) ** -45)
            close(ad.gradient_r(ad.derivative(f))(x), mpmath.diff(mf, x, 2),
                  rel=mpmath.mpf(10) ** -45)


MP_GRID = ("-2.5", "-1.01", "-0.5", "0", "0.5", "1.5", "3")


@pytest.mark.parametrize("rule", [r for r in TABLE if r.lib is not None], ids=lambda r: r.name)
def test_an_mpf_row_never_goes_complex(rule):
    """mpf in, mpf out, or math's ValueError: mpmath goes complex outside a real domain
    (xlog1py(0.01, −1.01) was an mpc, where the float gives 'math domain error'; the fuzzer)."""
    import itertools
    for args in itertools.product(MP_GRID, repeat=rule.arity):
        try:
            r = rule.base(*(mpmath.mpf(a) for a in args))
        except (ValueError, ArithmeticError):
            continue
        assert not isinstance(r, mpmath.mpc), (rule.name, args, r)


def test_xlogy_outside_its_real_domain_raises_as_log_does():
    for y in (-1.01, mpmath.mpf("-1.01")):
        with pytest.raises(ValueError, match="domain"):
            ad.xlog1py(0.01, y)
        with pytest.raises(ValueError, match="domain"):
            ad.xlogy(0.5, y)
    assert np.isnan(ad.xlog1py(0.01, np.float64(-1.01)))          # numpy's: nan, as scipy's


def test_taylor_towers_through_scipy_ufuncs():
    """A scipy ufunc applied to a Taylor tower (a scalar) is the row's tower."""
    f = lambda t: sc.j1(t) * sc.gammainc(2.5, t) + sc.betainc(2.5, 1.5, t / 4.0)   # noqa: E731
    mf = lambda t: (mpmath.besselj(1, t) * mpmath.gammainc(2.5, 0, t, regularized=True)   # noqa
                    + mpmath.betainc(2.5, 1.5, 0, t / 4, regularized=True))
    with mpmath.workdps(30):
        want = [float(w) for w in mpmath.diffs(mf, mpmath.mpf(1.3), 5)]
    close(ad.derivatives(f, 5)(1.3), want, rel=1e-12, floor=1e-14)


def test_gammasgn_is_piecewise_constant():
    x = np.array([2.5, 0.0, -0.0, -0.5, -1.5, -2.0, -2.5, np.inf, -np.inf, np.nan])
    for v in x:
        assert np.array_equal(ad.gammasgn(float(v)), sc.gammasgn(v), equal_nan=True), v
        mp = ad.gammasgn(mpmath.mpf(float(v)))
        assert type(mp) is mpmath.mpf
        if v != 0:                          # (an mpf has no −0.0)
            assert (mp == sc.gammasgn(v)) or (mpmath.isnan(mp) and np.isnan(sc.gammasgn(v))), v
    assert np.array_equal(ad.gammasgn(x), sc.gammasgn(x), equal_nan=True)
    y = np.array([2.5, -0.5, -1.5])
    for grad in (ad.gradient_r, ad.gradient_f):
        assert grad(lambda t: np.sum(sc.gammasgn(t) * t))(y).tolist() == [1.0, -1.0, 1.0]
    assert ad.derivatives(ad.gammasgn, 3)(-0.5) == [-1.0, 0.0, 0.0, 0.0]


def test_new_values_at_poles_and_edges_follow_scipy():
    """The float and numpy families are scipy's; the mpf family gives scipy's values at the
    poles and domain edges too (inf, nan, the limits)."""
    cases = [(ad.gamma, (0.0,)), (ad.gamma, (-2.0,)), (ad.rgamma, (-3.0,)), (ad.y0, (0.0,)),
             (ad.yn, (3, 0.0)), (ad.yn, (-1, 0.0)), (ad.gammainc, (2.0, 0.0)),
             (ad.gammainc, (0.0, 1.0)), (ad.gammainc, (1.0, np.inf)), (ad.gammaincc, (2.0, 0.0)),
             (ad.gammainc, (2.0, -1.0)), (ad.betainc, (2.0, 3.0, 0.0)),
             (ad.betainc, (2.0, 3.0, 1.0)), (ad.betainc, (0.0, 3.0, 0.5)),
             (ad.betainc, (2.0, 3.0, 1.5)), (ad.stdtr, (3.0, np.inf)), (ad.stdtr, (np.inf, 0.7)),
             (ad.stdtr, (-1.0, 0.7)), (ad.pdtr, (2.0, 0.0)), (ad.pdtr, (-1.0, 0.5)),
             (ad.pdtr, (2.5, np.inf)), (ad.beta, (0.0, 1.0)),
             (ad.poch, (-2.0, 1.0)), (ad.poch, (-2.0, 0.5)), (ad.poch, (-3.0, 2.0)),
             (ad.poch, (-1.0, 3.0)), (ad.poch, (1.0, -1.0)), (ad.poch, (-2.5, 0.5)),
             (ad.poch, (np.inf, 1.0)), (ad.poch, (np.inf, -0.5)), (ad.poch, (-np.inf, 1.0)),
             (ad.poch, (-np.inf, 2.0)), (ad.poch, (np.nan, 0.0)), (ad.poch, (2.0, np.inf)),
             (ad.pdtrc, (2.0, 0.0)), (ad.pdtrc, (-1.0, 0.5)), (ad.pdtrc, (2.5, np.inf)),
             (ad.pdtrc, (np.inf, 1.0)), (ad.betaincc, (2.0, 3.0, 0.0)),
             (ad.betaincc, (2.0, 3.0, 1.0)), (ad.betaincc, (0.0, 3.0, 0.5)),
             (ad.betaincc, (2.0, 0.0, 0.5)), (ad.betaincc, (2.0, 3.0, 1.5)),
             (ad.betaincc, (np.inf, 1.0, 0.5)), (ad.betaincc, (1.0, np.inf, 0.5)),
             (ad.betainc, (np.inf, 1.0, 0.5)), (ad.betainc, (1.0, np.inf, 0.5)),
             (ad.chdtr, (3.0, 0.0)), (ad.chdtr, (3.0, -1.0)), (ad.chdtr, (0.0, 1.0)),
             (ad.chdtr, (3.0, np.inf)), (ad.chdtr, (np.inf, 1.0)), (ad.chdtr, (0.0, 0.0)),
             (ad.chdtrc, (3.0, 0.0)), (ad.chdtrc, (0.0, 1.0)), (ad.chdtrc, (3.0, np.inf))]
    for f, args in cases:
        want = getattr(sc, f.__name__)(*args)
        with np.errstate(all="ignore"):
            assert np.array_equal(f(*args), want, equal_nan=True), (f.__name__, args)
        with mpmath.workdps(20):
            got = float(f(*(a if type(a) is int else mpmath.mpf(a) for a in args)))
        assert got == pytest.approx(float(want), rel=1e-15, nan_ok=True), (f.__name__, args)


def test_jn_and_ive_at_a_tiny_x_are_their_series_first_term():
    """scipy's jv and ive are 0 at a subnormal x (jv(1, 2e-313)): there each is (x/2)^v/Γ(v + 1)
    (J₋ₙ = (−1)ⁿ Jₙ), as iv is."""
    x = 2e-313
    assert ad.jn(1, x) == x / 2 and ad.jn(-1, x) == -x / 2 and ad.ive(1, x) == x / 2
    assert ad.jn(1, np.array([x, -x])).tolist() == [x / 2, -x / 2]
    assert ad.derivative(ad.j0)(x) == -ad.j1(x)
    assert ad.derivative(lambda t: ad.jn(2, t))(x) == x / 4      # (J₁ − J₃)/2 = x/4 + O(x³)


# ---- scipy.stats' distribution functions through them ------------------------------------------

st = pytest.importorskip("scipy.stats")
CDFS = {
    "t.cdf": (lambda x: st.t.cdf(x, 3.0), lambda x: st.t.pdf(x, 3.0)),
    "t.cdf loc scale": (lambda x: st.t.cdf(x, 2.5, loc=0.2, scale=1.5),
                        lambda x: st.t.pdf(x, 2.5, loc=0.2, scale=1.5)),
    "t.sf": (lambda x: st.t.sf(x, 3.0), lambda x: -st.t.pdf(x, 3.0)),
    "gamma.cdf": (lambda x: st.gamma.cdf(x, 2.5), lambda x: st.gamma.pdf(x, 2.5)),
    "gamma.cdf scale": (lambda x: st.gamma.cdf(x, 0.8, scale=2.0),
                        lambda x: st.gamma.pdf(x, 0.8, scale=2.0)),
    "gamma.logsf": (lambda x: st.gamma.logsf(x, 2.5), lambda x: -st.gamma.pdf(x, 2.5) /
                    st.gamma.sf(x, 2.5)),
    "beta.cdf": (lambda x: st.beta.cdf(x / 2, 2.5, 1.5),
                 lambda x: st.beta.pdf(x / 2, 2.5, 1.5) / 2),
    "poisson.cdf": (lambda m: st.poisson.cdf([0, 1, 3], m),
                    lambda m: -st.poisson.pmf([0, 1, 3], m)),
    "poisson.logcdf": (lambda m: st.poisson.logcdf([0, 2], m),
                       lambda m: -st.poisson.pmf([0, 2], m) / st.poisson.cdf([0, 2], m)),
    # the survival functions (pdtrc, betaincc, gammaincc) and chi-square (chdtr, chdtrc)
    "poisson.sf": (lambda m: st.poisson.sf([0, 1, 3], m),
                   lambda m: st.poisson.pmf([0, 1, 3], m)),
    "poisson.logsf": (lambda m: st.poisson.logsf([0, 2], m),
                      lambda m: st.poisson.pmf([0, 2], m) / st.poisson.sf([0, 2], m)),
    "beta.sf": (lambda x: st.beta.sf(x / 2, 2.5, 1.5),
                lambda x: -st.beta.pdf(x / 2, 2.5, 1.5) / 2),
    "beta.logsf": (lambda x: st.beta.logsf(x / 2, 2.5, 1.5),
                   lambda x: -st.beta.pdf(x / 2, 2.5, 1.5) / 2 / st.beta.sf(x / 2, 2.5, 1.5)),
    "chi2.cdf": (lambda x: st.chi2.cdf(x, 3.0), lambda x: st.chi2.pdf(x, 3.0)),
    "chi2.sf loc scale": (lambda x: st.chi2.sf(x, 1.2, loc=-0.2, scale=0.7),
                          lambda x: -st.chi2.pdf(x, 1.2, loc=-0.2, scale=0.7)),
    "chi2.logcdf": (lambda x: st.chi2.logcdf(3 * x, 2.5),
                    lambda x: 3 * st.chi2.pdf(3 * x, 2.5) / st.chi2.cdf(3 * x, 2.5)),
    "chi2.logsf": (lambda x: st.chi2.logsf(3 * x, 2.5),
                   lambda x: -3 * st.chi2.pdf(3 * x, 2.5) / st.chi2.sf(3 * x, 2.5)),
}


@pytest.mark.parametrize("name", list(CDFS))
def test_scipy_stats_distribution_functions(name):
    """t, gamma, beta, chi2 and poisson cdfs (and sf, logcdf, logsf) in x (poisson: in μ) against
    their densities, forward and reverse, nested to order 2; values are scipy's own."""
    f, density = CDFS[name]
    x = np.array([0.3, 0.9, 1.7])
    if name.startswith("poisson"):
        for m in x:
            for op in (ad.derivative, lambda g: lambda t: ad.gradient_r(g)(t)):
                close(op(lambda t: np.sum(f(t)))(m), np.sum(density(m)), rel=1e-13)
        ad.check_grads(lambda t: np.sum(f(t)), 1.3, order=2)
        return
    value, slope = ad.jvp(f, x, np.ones(3))
    close(value, f(x), rel=1e-14)
    close(slope, density(x), rel=1e-12)
    close(ad.gradient_r(lambda t: np.sum(f(t)))(x), density(x), rel=1e-12)
    ad.check_grads(lambda t: np.sum(f(t)), x, order=2)


def test_scipy_stats_cdfs_outside_the_support_and_their_errors():
    x = np.array([-1.0, 0.0, 0.5, 1.0, 1.5])
    for f, out in ((lambda t: st.beta.cdf(t, 2.5, 1.5), [0, 1, 3, 4]),
                   (lambda t: st.gamma.cdf(t, 2.5), [0, 1]),
                   (lambda t: st.gamma.sf(t, 2.5), [0, 1]),
                   (lambda t: st.gamma.logcdf(t, 2.5), [0, 1]),
                   (lambda t: st.beta.sf(t, 2.5, 1.5), [0, 1, 3, 4]),
                   (lambda t: st.chi2.cdf(t, 2.5), [0, 1]),
                   (lambda t: st.chi2.sf(t, 2.5), [0, 1])):
        for jacobian in (ad.jacobian_r, ad.jacobian_f):
            seen = []
            with np.errstate(divide="ignore", invalid="ignore"):   # (log 0 in lanes not taken)
                J = jacobian(lambda t: (seen.append(ad.primal(f(t))), f(t))[1])(x)
                assert np.array_equal(seen[0], f(x))
            assert np.all(J[~np.eye(5, dtype=bool)] == 0) and np.all(np.diag(J)[out] == 0)
            assert np.all(np.diag(J)[2] != 0)
    for method in (st.poisson.cdf, st.poisson.sf, st.poisson.logsf):
        seen = []
        ad.gradient_r(lambda m: (seen.append(ad.primal(method([-1, 0, 2.5], m))),
                                 np.sum(method([-1, 0, 2.5], m)))[1])(1.3)
        assert np.array_equal(seen[0], method([-1, 0, 2.5], 1.3))
    for f, name in ((lambda a: st.gamma.cdf(1.3, a), "scipy.special.gammainc .*shape argument a"),
                    (lambda df: st.t.cdf(0.7, df), "scipy.special.stdtr .*shape argument df"),
                    (lambda b: st.beta.cdf(0.3, 2.5, b),
                     "scipy.special.betainc .*shape argument b"),
                    (lambda b: st.beta.sf(0.3, 2.5, b),
                     "scipy.special.betaincc .*shape argument b"),
                    (lambda df: st.chi2.cdf(1.3, df), "scipy.special.chdtr .*shape argument v"),
                    (lambda df: st.chi2.sf(1.3, df), "scipy.special.chdtrc .*shape argument v")):
        for op in (ad.derivative, ad.gradient_r):
            with pytest.raises(ad.NotDifferentiableError, match=name):
                op(f)(0.4)


def test_scipy_stats_ppf_and_isf():
    """ppf and isf through the distribution's own _ppf/_isf (norm's is ndtri): their derivative
    is 1/density at the quantile; the support's ends at q = 0 and 1, nan outside, as scipy's."""
    q = np.array([0.1, 0.3, 0.85])
    for f, slope in ((lambda q: st.norm.ppf(q, 1.0, 2.0),
                      lambda q: 2.0 / st.norm.pdf(st.norm.ppf(q))),
                     (lambda q: st.norm.isf(q), lambda q: -1 / st.norm.pdf(st.norm.isf(q))),
                     (lambda q: st.expon.ppf(q, scale=2.0), lambda q: 2.0 / (1 - q))):
        close(ad.jvp(f, q, np.ones(3)), (f(q), slope(q)), rel=1e-13)
        close(ad.gradient_r(lambda t: np.sum(f(t)))(q), slope(q), rel=1e-13)
        ad.check_grads(lambda t: np.sum(f(t)), q, order=2)
    edges = np.array([-0.1, 0.0, 0.3, 1.0, 1.2])
    for f in (lambda q: st.norm.ppf(q), lambda q: st.expon.isf(q, loc=1.0)):
        seen = []
        with np.errstate(invalid="ignore"):
            J = ad.jacobian_f(lambda t: (seen.append(ad.primal(f(t))), f(t))[1])(edges)
        assert np.array_equal(seen[0], f(edges), equal_nan=True)
        assert np.diag(J)[2] != 0 and np.all(np.diag(J)[[0, 1, 3, 4]] == 0)


def test_scipy_stats_functions_without_a_rule_name_it():
    """scipy.stats computes some densities with private scipy ufuncs (beta.pdf: _beta_pdf,
    binom.pmf: _binom_pmf) and inverses with scipy.special's (f.ppf: fdtri, ncx2.ppf:
    chndtrix): the error names the ufunc and its module.  (t, chi2, gamma and beta's ppf and
    isf have rows: tests/test_inverse_cdfs.py.)"""
    for f, name in ((lambda x: st.beta.pdf(x, 2.5, 1.5), "scipy.special._ufuncs._beta_pdf"),
                    (lambda p: st.binom.pmf(2, 5, p), "scipy.special._ufuncs._binom_pmf"),
                    (lambda x: st.f.ppf(x, 3.0, 4.0), "scipy.special.fdtri"),
                    (lambda x: st.ncx2.ppf(x, 3.0, 1.0), "scipy.special.chndtrix")):
        for op in (ad.gradient_r, ad.gradient_f):
            with pytest.raises(ad.NotDifferentiableError, match=f"{name} has no dvlad rule"):
                op(lambda t: np.sum(f(t)))(np.array([0.3, 0.6]))


def test_cosm1_and_the_von_mises_log_density_in_loc():
    # scipy.stats.vonmises.logpdf is κ·cosm1(x − loc) − log(2π i0e(κ)): a row for cosm1
    assert ad.cosm1(1e-3) == sc.cosm1(1e-3)
    for x in (0.3, -1.4, 1e-4):
        assert abs(ad.derivative(sc.cosm1)(x) + math.sin(x)) < 1e-16
        assert abs(ad.derivative(ad.derivative(sc.cosm1))(x) + math.cos(x)) < 1e-16
    xs = np.array([0.1, 0.5, 2.0])
    f = lambda m: np.sum(st.vonmises.logpdf(xs, 2.0, loc=m))
    assert abs(ad.gradient_r(f)(0.1) - 2.0 * np.sum(np.sin(xs - 0.1))) < 1e-14
    assert abs(ad.derivative(ad.derivative(f))(0.1) + 2.0 * np.sum(np.cos(xs - 0.1))) < 1e-14
    ad.check_grads(lambda x: sc.cosm1(x * x), xs, order=2)


def test_kv_and_kve_at_their_edges_follow_scipy():
    """K_v(x) is real for x > 0: scipy's inf at x = 0, nan below, kv 0 and kve nan at inf, in
    every family; the slope at 0 is the limit −inf in kv and kve (kve's formula would be
    inf − inf there), kve″(0) the limit +inf."""
    for name in ("kv", "kve"):
        f, mf = getattr(ad, name), getattr(sc, name)
        for v in (0.0, 1.5, -2.0):
            for x in (0.0, -1.3, np.inf, np.nan):
                want = float(mf(v, x))
                for got in (f(v, x), f(v, np.array([x]))[0], f(mpmath.mpf(v), mpmath.mpf(x))):
                    assert got == want or (got != got and want != want), (name, v, x, got)
            g = lambda t: f(v, t)                                           # noqa: E731
            for op in (ad.derivative, ad.gradient_r):
                assert op(g)(0.0) == -np.inf
                assert math.isnan(op(g)(-1.3))
            assert ad.derivative(ad.derivative(g))(0.0) == np.inf


# ---- the rows added after autograd's: values and slopes at their edges --------------------------

@pytest.mark.filterwarnings("ignore:floating point number truncated")     # (kn(2.7, x), scipy's)
def test_more_values_at_poles_and_edges_follow_scipy():
    """scipy's values at the domain edges (inf, nan, the limits) in every family: floats, arrays
    and mpf numbers."""
    inf, nan = np.inf, np.nan
    cases = [(ad.k0, (0.0,)), (ad.k0, (-1.0,)), (ad.k0, (inf,)), (ad.k1, (0.0,)),
             (ad.k0e, (0.0,)), (ad.k0e, (inf,)), (ad.k1e, (inf,)), (ad.k1e, (-1.0,)),
             (ad.kn, (2, 0.0)), (ad.kn, (2, -1.0)), (ad.kn, (2, inf)), (ad.kn, (2.7, 1.3)),
             (ad.kn, (-2.7, 1.3)), (ad.kn, (nan, 1.0)),
             (ad.yv, (1.5, 0.0)), (ad.yv, (0.0, 0.0)), (ad.yv, (-1.5, 0.0)), (ad.yv, (-2.5, 0.0)),
             (ad.yv, (-1.0, 0.0)), (ad.yv, (-2.0, 0.0)), (ad.yv, (2.0, -1.0)), (ad.yv, (2.0, inf)),
             (ad.yve, (1.5, 0.0)), (ad.yve, (2.0, -1.0)), (ad.jve, (-1.5, 0.0)),
             (ad.jve, (-1.0, 0.0)), (ad.jve, (1.5, -1.0)), (ad.jve, (2, -1.0)),
             (ad.jve, (0.0, inf)), (ad.jve, (0.5, 0.0)),
             (ad.exp10, (400.0,)), (ad.exp10, (-400.0,)), (ad.exprel, (0.0,)),
             (ad.exprel, (-inf,)), (ad.exprel, (inf,)),
             (ad.powm1, (0.0, 2.0)), (ad.powm1, (0.0, -1.0)), (ad.powm1, (0.0, 0.0)),
             (ad.powm1, (-2.0, 3.0)), (ad.powm1, (-2.0, 0.5)), (ad.powm1, (nan, 0.0)),
             (ad.powm1, (1.0, nan)), (ad.powm1, (2.0, inf)), (ad.powm1, (0.5, inf)),
             (ad.powm1, (inf, -1.0)), (ad.powm1, (-inf, 3.0)),
             (ad.huber, (-1.0, 0.5)), (ad.huber, (0.0, 0.5)), (ad.huber, (1.0, inf)),
             (ad.huber, (inf, 2.0)), (ad.huber, (0.0, inf)), (ad.huber, (nan, 1.0)),
             (ad.pseudo_huber, (-1.0, 0.5)), (ad.pseudo_huber, (0.0, 0.5)),
             (ad.pseudo_huber, (0.0, nan)), (ad.pseudo_huber, (1.0, inf)),
             (ad.pseudo_huber, (inf, 2.0)), (ad.pseudo_huber, (nan, 0.0)),
             (ad.erfi, (-inf,)), (ad.erfi, (27.0,)),
             (ad.ellipk, (1.0,)), (ad.ellipk, (1.5,)), (ad.ellipk, (-inf,)),
             (ad.ellipe, (1.0,)), (ad.ellipe, (1.5,)), (ad.ellipe, (-inf,)),
             (ad.ellipkm1, (0.0,)), (ad.ellipkm1, (-1.0,)), (ad.ellipkm1, (inf,)),
             (ad.ellipkm1, (1e-300,)),
             (ad.ndtri_exp, (0.0,)), (ad.ndtri_exp, (1.0,)), (ad.ndtri_exp, (-inf,)),
             (ad.ndtri_exp, (-1e-300,)), (ad.ndtri_exp, (-745.0,)),
             (ad.inv_boxcox, (2.0, -0.5)), (ad.inv_boxcox, (-2.0, 0.5)),
             (ad.inv_boxcox, (-3.0, 0.5)), (ad.inv_boxcox, (inf, 0.5)),
             (ad.inv_boxcox1p, (2.0, -0.5)), (ad.inv_boxcox1p, (-2.0, 0.5)),
             (ad.inv_boxcox1p, (-3.0, 0.5)), (ad.inv_boxcox1p, (1e-200, 0.5)),
             (ad.eval_legendre, (-3, 0.3)), (ad.eval_legendre, (0, 0.3)),
             (ad.eval_chebyt, (-3, 0.3)), (ad.eval_chebyu, (-3, 0.3)), (ad.eval_chebyu, (-1, 0.3)),
             (ad.eval_chebys, (-4, 0.3)), (ad.eval_chebyc, (-2, 0.3)),
             (ad.eval_laguerre, (-2, 0.3)), (ad.eval_genlaguerre, (2, -1.5, 0.3)),
             (ad.eval_genlaguerre, (-2, 0.5, 0.3)), (ad.eval_gegenbauer, (0, 0.0, 0.3)),
             (ad.eval_gegenbauer, (3, 0.0, 0.3)), (ad.eval_gegenbauer, (-1, 0.5, 0.3)),
             (ad.eval_jacobi, (-2, 0.5, 0.7, 0.3)), (ad.eval_sh_jacobi, (-1, 2.5, 0.7, 0.3)),
             (ad.eval_legendre, (2.5, -2.5)), (ad.eval_jacobi, (2.5, 0.5, 0.7, -2.5)),
             (ad.eval_legendre, (3, nan))]
    for f, args in cases:
        with np.errstate(all="ignore"):
            want = getattr(sc, f.__name__)(*args)
            assert np.array_equal(f(*args), want, equal_nan=True), (f.__name__, args)
            got = f(*(np.array([a]) if type(a) is float else a for a in args))
            assert np.array_equal(got, [want], equal_nan=True), (f.__name__, args)
        with mpmath.workdps(20):
            got = float(f(*(a if type(a) is int else mpmath.mpf(a) for a in args)))
        assert got == pytest.approx(float(want), rel=1e-15, nan_ok=True), (f.__name__, args)


def test_inv_boxcox1p_where_scipy_returns_y():
    """scipy's inv_boxcox1p is y itself where |λy| < 1e-154 (λ ≠ 0): the limit is expm1(y)."""
    for y, lm in ((0.5, 1e-200), (3.0, -1e-300)):
        assert sc.inv_boxcox1p(y, lm) == y
        assert ad.inv_boxcox1p(y, lm) == math.expm1(y) == ad.inv_boxcox(y, lm) - 1
        assert ad.inv_boxcox1p(np.array([y, 1e-160]), lm).tolist() == [math.expm1(y), 1e-160]
        close(ad.derivative(lambda t: ad.inv_boxcox(y, t))(lm), -0.5 * y * y * math.exp(y),
              rel=1e-15)
    assert ad.inv_boxcox1p(1e-200, 0.5) == 1e-200


def test_more_slopes_at_their_edges():
    """The slopes' limits at the edges, in forward and reverse mode: −inf at x = 0 for K (k0e's
    formula is inf − inf there; its 2nd derivative +inf), +inf for Y_v; the 0/0 limits 1/(k + 1)
    of exprel at 0 (every order), π/8 and −π/8 of K′ and E′ at m = 0; inf and 0 of ndtri_exp at
    0 and −inf; powm1, huber, pseudo_huber and the inverse Box-Cox transforms at theirs."""
    D, R = ad.derivative, ad.gradient_r
    inf = np.inf
    for op in (D, R):
        for f in (ad.k0, ad.k1, ad.k0e, ad.k1e, lambda t: ad.kn(2, t), lambda t: -ad.yv(1.5, t),
                  lambda t: -ad.yv(0, t)):
            assert op(f)(0.0) == -inf
        assert math.isnan(op(ad.k0e)(-1.0)) and math.isnan(op(lambda t: ad.yve(1.5, t))(0.0))
        assert op(ad.exprel)(0.0) == 0.5 and op(ad.exprel)(-inf) == 0.0
        close(op(ad.ellipk)(0.0), math.pi / 8, rel=1e-15)
        close(op(ad.ellipe)(0.0), -math.pi / 8, rel=1e-15)
        close(op(ad.ellipkm1)(1.0), -math.pi / 8, rel=1e-15)
        assert op(ad.ellipk)(1.0) == inf and op(ad.ellipe)(1.0) == -inf
        assert op(ad.ellipkm1)(0.0) == -inf and math.isnan(op(ad.ellipk)(1.5))
        assert op(ad.ndtri_exp)(0.0) == inf and op(ad.ndtri_exp)(-inf) == 0.0
        assert math.isnan(op(ad.ndtri_exp)(0.5))
    assert D(D(ad.k0e))(0.0) == inf
    # where math's exp would overflow (OverflowError) the slopes overflow to inf, or stay finite
    for f, x in ((ad.erfi, 27.0), (ad.erfi, -40.0), (ad.exprel, 1500.0), (ad.ndtri_exp, -5e-324)):
        assert D(f)(x) == inf and R(f)(x) == inf, (f, x)
    close(D(ad.exprel)(710.0), mpmath.diff(lambda t: mpmath.expm1(t) / t, 710), rel=1e-13)
    # powm1's x^y from r + 1 keeps its digits only above 1/2: below, x**y (0.01¹⁰ = 1e-20)
    close(D(lambda t: ad.powm1(0.01, t))(10.0), 1e-20 * math.log(0.01), rel=1e-14)
    close(D(lambda t: ad.powm1(t, 10.0))(0.01), 1e-17, rel=1e-14)
    assert D(lambda t: ad.powm1(t, 2.0))(1e200) == inf == D(lambda t: ad.powm1(1e200, t))(2.0)
    close(ad.derivatives(ad.exprel, 4)(0.0), [1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5], rel=1e-15)
    with mpmath.workdps(30):
        want = [mpmath.diff(lambda t: mpmath.expm1(t) / t, mpmath.mpf("1e-6"), k) for k in (1, 2)]
        close(ad.derivatives(ad.exprel, 2)(1e-6)[1:], want, rel=1e-15)
        for f, mf in ((ad.ellipk, mpmath.ellipk), (ad.ellipe, mpmath.ellipe),
                      (ad.ellipkm1, lambda p: mpmath.ellipk(1 - p))):
            x = 1e-7 if f is not ad.ellipkm1 else 1.0 - 1e-7
            want = [mpmath.diff(mf, mpmath.mpf(x), k) for k in (1, 2)]
            close(ad.derivatives(f, 2)(x)[1:], want, rel=1e-14)
        # far out (r = −141: r²/2 + y cancels to 1e-4 of itself) Φ(r)/φ(r) at the float value r
        # (scipy's, 2e-14 from the truth there)
        for y, rel in ((-1e4, 2e-15), (-30.0, 2e-15), (-1e-6, 2e-15), (-1e-200, 1e-13)):
            r = mpmath.mpf(ad.ndtri_exp(y))          # (the last: e^(r²/2 + y) of ~e^457)
            close(D(ad.ndtri_exp)(y), mpmath.ncdf(r) / mpmath.npdf(r), rel=rel)
        close(D(ad.ellipkm1)(1e-12), mpmath.diff(lambda p: mpmath.ellipk(1 - p), 1e-12),
              rel=1e-14)
    # powm1 at x = 0: the limits from the right (0, 1, inf, −inf for y > 1, = 1, in (0, 1), < 0);
    # 0 in y; for x < 0 an integer y's slope y·x^(y−1), nan in y and at a fractional y
    for y, want in ((2.5, 0.0), (1.0, 1.0), (0.5, inf), (-1.0, -inf), (0.0, 0.0)):
        for op in (D, R):
            assert op(lambda t: ad.powm1(t, y))(0.0) == want, y
    assert D(lambda t: ad.powm1(0.0, t))(2.0) == 0.0
    assert D(lambda t: ad.powm1(t, 3.0))(-2.0) == 12.0
    assert math.isnan(D(lambda t: ad.powm1(-2.0, t))(3.0))
    assert math.isnan(D(lambda t: ad.powm1(t, 0.5))(-2.0))
    # huber: nan for δ < 0 (an inf value); at δ = 0 (value 0) ∂δ = |r| from the right, ∂r = 0;
    # continuous at the kink |r| = δ; pseudo_huber at δ = 0 likewise, its ∂δ∂r = sign r
    for f in (ad.huber, ad.pseudo_huber):
        for op in (D, R):
            assert math.isnan(op(lambda d: f(d, 0.5))(-1.0))
            assert op(lambda d: f(d, -0.5))(0.0) == 0.5 and op(lambda r: f(0.0, r))(-0.5) == 0.0
        assert D(lambda d: D(lambda r: f(d, r))(-0.5))(0.0) == -1.0
    for op in (D, R):
        assert op(lambda r: ad.huber(0.8, r))(-0.8) == -0.8
        assert op(lambda d: ad.huber(d, 0.8))(0.8) == 0.0
    # the inverse Box-Cox transforms at 1 + λy = 0: ∂y = X^(1−λ) is 0, 1, inf (λ <, =, > 1), inf
    # for λ < 0; ∂λ = −∂y/λ²
    for y, lm, dy in ((-2.0, 0.5, 0.0), (-1.0, 1.0, 1.0), (-0.5, 2.0, inf), (2.0, -0.5, inf)):
        for f in (ad.inv_boxcox, ad.inv_boxcox1p):
            for op in (D, R):
                assert op(lambda t: f(t, lm))(y) == dy, (f, y, lm)
                assert op(lambda t: f(y, t))(lm) == -dy / lm ** 2, (f, y, lm)


POLYNOMIALS = [("eval_legendre", ()), ("eval_sh_legendre", ()), ("eval_chebyt", ()),
               ("eval_chebyu", ()), ("eval_chebyc", ()), ("eval_chebys", ()),
               ("eval_sh_chebyt", ()), ("eval_sh_chebyu", ()), ("eval_laguerre", ()),
               ("eval_genlaguerre", (0.7,)), ("eval_gegenbauer", (0.7,)),
               ("eval_jacobi", (0.5, 1.5)), ("eval_sh_jacobi", (2.5, 0.75))]


@pytest.mark.parametrize("name, shapes", POLYNOMIALS, ids=[p[0] for p in POLYNOMIALS])
def test_polynomial_slopes_at_every_integer_degree(name, shapes):
    """The slope in x for n = −5 ... 6 (an int: scipy's recurrences; degree 0: 0, not the
    formula's degree −1) against central differences of scipy's own values, the degrees an array
    too; the second derivative of degree 1 is 0, in float32 arrays with a Python int degree."""
    f, uf = getattr(ad, name), getattr(sc, name)
    x = np.array([0.15, 0.35, 0.8])
    h = 1e-6
    for n in range(-5, 7):
        with np.errstate(all="ignore"):
            want = (uf(n, *shapes, x + h) - uf(n, *shapes, x - h)) / (2 * h)
            got = ad.gradient_r(lambda t: np.sum(f(n, *shapes, t)))(x)
        assert np.allclose(got, want, rtol=1e-7, atol=1e-7, equal_nan=True), (n, got, want)
        assert np.array_equal(ad.derivative(lambda t: f(n, *shapes, t))(0.35), got[1],
                              equal_nan=True)
        if n == 0:
            assert got.tolist() == [0.0, 0.0, 0.0]
    n = np.array([[0], [1], [4]])
    g = ad.gradient_f(lambda t: np.sum(f(n, *shapes, t)))(x)
    assert np.allclose(g, sum(ad.gradient_r(lambda t: np.sum(f(k, *shapes, t)))(x)
                              for k in (0, 1, 4)), rtol=1e-14)
    assert ad.derivative(ad.derivative(lambda t: f(1, *shapes, t)))(0.35) == 0.0
    x32 = x.astype(np.float32)
    g32 = ad.gradient_r(lambda t: np.sum(uf(3, *shapes, t)))(x32)
    assert g32.dtype == np.float32 and f(3, *shapes, x32).dtype == np.float32
    close(g32, ad.gradient_r(lambda t: np.sum(uf(3, *shapes, t)))(x).astype(np.float32),
          rel=2e-6, floor=1e-5)


def test_gegenbauer_and_genlaguerre_shapes_at_their_edges():
    """scipy's C_n^(0) is 0 for n ≥ 1: its slope is 0 (2α·C_(n−1)^(α+1) at α = 0); L_n^(α) is nan
    for α ≤ −1, and so is its slope."""
    for op in (ad.derivative, ad.gradient_r):
        assert op(lambda t: ad.eval_gegenbauer(3, 0.0, t))(0.4) == 0.0
        assert math.isnan(op(lambda t: ad.eval_genlaguerre(3, -1.0, t))(0.4))
        assert math.isnan(op(lambda t: ad.eval_genlaguerre(3, -1.5, t))(0.4))


def test_kn_and_the_polynomials_keep_float32_with_an_int_order():
    """scipy's kn and eval_* take an int order in a float64 loop: a float32 array in, float32 out
    (as the other ufuncs give it), also their derivatives."""
    x = np.array([0.3, 0.7], np.float32)
    for f in (lambda t: sc.kn(2, t), lambda t: sc.eval_legendre(3, t),
              lambda t: sc.eval_jacobi(3, 0.5, 0.7, t)):
        assert ad.vjp(f, x)[0].dtype == np.float32
        assert ad.gradient_r(lambda t: np.sum(f(t)))(x).dtype == np.float32
        assert ad.hvp(lambda t: np.sum(f(t)), x, np.ones(2, np.float32)).dtype == np.float32
