"""scipy.special's functions (issue #17): rows of the rule table, reached as dvlad.<name> and
through scipy's own ufuncs on tracked arrays, in every mode to order 2, float64 and float32,
with scipy or without it (then mpmath computes the base values).  Each row's derivatives are
checked against mpmath at 50 digits in tests/test_rules.py and tests/test_taylor.py; here the
scipy side: dispatch, dtypes, broadcasting, errors, the fallback."""
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

SPECIAL_ROWS = [rule for rule in TABLE if rule.special]
UFUNC_NAMES = [(rule.name, name) for rule in SPECIAL_ROWS for name in rule.special]


def _inside(rule, dtype=np.float64):
    """Three points of the row's domain near its test points (the order argument fixed)."""
    p = [float(c) for c in rule.points[0]]
    if rule.arity == 1:
        return (np.array([p[0], 0.9 * p[0], 1.1 * p[0]], dtype=dtype),)
    y = np.array([p[1], 0.9 * p[1], 1.1 * p[1]], dtype=dtype)
    return (p[0] if rule.orders else np.array([p[0], 1.1 * p[0], 0.95 * p[0]], dtype=dtype)), y


@pytest.mark.parametrize("row, name", UFUNC_NAMES, ids=[f"{r}-{n}" for r, n in UFUNC_NAMES])
def test_scipy_ufunc_reaches_the_row(row, name):
    """scipy.special.<name> on a tracked array is the row: same values as scipy, derivatives
    checked by check_grads to order 2 in forward and reverse mode."""
    rule = next(r for r in SPECIAL_ROWS if r.name == row)
    ufunc = getattr(sc, name)
    args = _inside(rule)
    w = np.array([0.7, -1.1, 0.4])
    if rule.arity == 1:
        f = lambda x: np.sum(ufunc(x) * w)                                  # noqa: E731
        point = args[0]
        value = np.sum(ufunc(point) * w)
    elif rule.orders:
        f = lambda y: np.sum(ufunc(args[0], y) * w)                         # noqa: E731
        point = args[1]
        value = np.sum(ufunc(*args) * w)
    else:
        f = lambda p: np.sum(ufunc(p[0], p[1]) * w)                         # noqa: E731
        point = args
        value = np.sum(ufunc(*args) * w)
    close(ad.vjp(f, point)[0], value, rel=1e-15)
    ad.check_grads(f, point, order=2)


@pytest.mark.parametrize("rule", SPECIAL_ROWS, ids=[r.name for r in SPECIAL_ROWS])
def test_float32_arrays_stay_float32(rule):
    args = _inside(rule, np.float32)
    ufunc = getattr(sc, rule.special[0])
    if rule.arity == 1:
        g = ad.gradient_r(lambda x: np.sum(ufunc(x)))(args[0])
        h = ad.hvp(lambda x: np.sum(ufunc(x)), args[0], np.ones(3, np.float32))
    else:
        g = ad.gradient_r(lambda y: np.sum(ufunc(args[0], y)))(args[1])
        h = ad.hvp(lambda y: np.sum(ufunc(args[0], y)), args[1], np.ones(3, np.float32))
    assert g.dtype == np.float32 and h.dtype == np.float32
    want = ad.gradient_r(lambda x: np.sum(ufunc(*args[:-1], x)))(args[-1].astype(np.float64))
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
    with pytest.raises(ad.NotDifferentiableError, match="scipy.special.gamma has no dvlad rule"):
        ad.gradient_r(lambda x: np.sum(sc.gamma(x)))(np.array([0.5, 1.5]))


def test_dvlad_does_not_import_scipy():
    code = "import sys, dvlad; dvlad.erf(0.5); assert 'scipy' not in sys.modules, 'imported'"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("rule", SPECIAL_ROWS, ids=[r.name for r in SPECIAL_ROWS])
def test_without_scipy_the_values_come_from_mpmath(rule, monkeypatch):
    """No scipy: floats from mpmath at double precision, arrays element by element in their
    own float type; the same values as scipy's to a few ulps, and derivatives still run."""
    args = [np.float64(a) for a in _inside(rule)[-1][:1]]
    if rule.arity == 2:
        args = [float(rule.points[0][0])] + [float(a) for a in args]
    else:
        args = [float(a) for a in args]
    with_scipy = rule.op(*args)
    array_args = [np.array([a, a], np.float32) if i or not rule.orders else a
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
