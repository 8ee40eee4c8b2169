"""Issue #17's gaps: np.pad in every mode numpy has (dvlad/arrays/padding.py), and scipy.stats'
moments and entropies with tracked parameters (dvlad/operators/scipy_moments.py).

pad: values equal numpy's; the Jacobian of each mode that is linear in the array equals the map
numpy itself applies (np.pad of the unit arrays), in forward and reverse mode; the piecewise
modes (maximum, minimum, median) send the derivative to the elements they pick; every mode
passes check_grads to order 2, and its Hessian equals Jᵀ·diag(f″)·J exactly in all four
nestings.  scipy.stats: closed forms and mpmath at 30 digits as oracles, check_grads to order 2,
and a named DvladError wherever there is no derivative (never a TypeError from inside scipy)."""
import warnings

import mpmath
import numpy as np
import pytest
import scipy.stats as st

import dvlad as ad
from support import MODES2, close, nest

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4))
V = RNG.normal(size=5)

LINEAR = {          # modes linear in the array (constant's values and ramp's ends are offsets)
    "constant": {}, "constant_pairs": {"constant_values": ((1.0, 2.0), (3.0, 4.0))},
    "edge": {}, "wrap": {}, "reflect": {}, "symmetric": {},
    "reflect_odd": {"reflect_type": "odd"}, "symmetric_odd": {"reflect_type": "odd"},
    "mean": {}, "mean_stat_length": {"stat_length": ((1, 2), (3, 1))},
    "linear_ramp": {}, "linear_ramp_ends": {"end_values": ((1.0, -3.0), (2.0, 0.5))},
}
PIECEWISE = {"maximum": {}, "minimum": {}, "median": {}, "maximum_stat_length": {"stat_length": 2},
             "minimum_stat_length": {"stat_length": (1, 3)},
             "median_stat_length": {"stat_length": (3, 1)}}
WIDTHS = [3, ((2, 5), (1, 6)), ((0, 9), (4, 0))]


def _mode(name):
    return name.split("_")[0] if name.split("_")[0] != "linear" else "linear_ramp"


def _padder(name, width):
    kw = {**LINEAR, **PIECEWISE}[name]
    return lambda a: np.pad(a, width, mode=_mode(name), **kw)


def _linear_map(name, width, shape):
    """numpy's own Jacobian of a linear mode: np.pad of each unit array, less np.pad of 0."""
    f = _padder(name, width)
    zero = f(np.zeros(shape))
    cols = [f(np.eye(int(np.prod(shape)))[j].reshape(shape)) - zero
            for j in range(int(np.prod(shape)))]
    return np.stack(cols, axis=-1).reshape(zero.shape + shape)


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("name", sorted({**LINEAR, **PIECEWISE}))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pad_values_are_numpys(name, width, dtype):
    x = X.astype(dtype)
    f = _padder(name, width)
    got = ad.vjp(f, x)[0]
    assert got.dtype == dtype
    # (a median is a + ½(b − a), numpy's ½(a + b): a rounding apart)
    close(got, f(x), rel=4 * np.finfo(dtype).eps, floor=1.0)


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("name", sorted(LINEAR))
def test_pad_jacobian_is_numpys_linear_map(name, width):
    want = _linear_map(name, width, X.shape)
    f = _padder(name, width)
    close(ad.jacobian_f(f)(X), want, rel=1e-15, floor=1.0)
    close(ad.jacobian_r(f)(X), want, rel=1e-15, floor=1.0)


@pytest.mark.parametrize("width", WIDTHS, ids=str)
@pytest.mark.parametrize("name", sorted(n for n in PIECEWISE if "median" not in n)
                         + ["median_stat_length"])
def test_pad_piecewise_modes_send_the_derivative_to_the_picked_element(name, width):
    """maximum, minimum (and a median of an odd count) pick one element of distinct ones: each
    padded value's derivative is 1 at the element it equals."""
    f = _padder(name, width)
    y = f(X)
    want = (y[..., None, None] == X).astype(float)
    assert np.all(want.sum(axis=(-2, -1)) == 1)
    close(ad.jacobian_f(f)(X), want, rel=0.0)
    close(ad.jacobian_r(f)(X), want, rel=0.0)


def test_pad_ties_and_even_medians_share_the_derivative():
    x = np.array([1.0, 3.0, 3.0, 2.0])
    g = ad.gradient_r(lambda a: np.sum(np.pad(a, (1, 2), mode="maximum")))(x)
    close(g, np.array([1.0, 2.5, 2.5, 1.0]), rel=0.0)             # 3 pads, the two 3s halve
    g = ad.derivative(lambda t: np.pad(x + t * np.array([0.0, 0.0, 0.0, 1.0]), 1,
                                       mode="median"))(0.0)
    close(g, np.array([0.5, 0.0, 0.0, 0.0, 1.0, 0.5]), rel=0.0)   # median ½(2 + 3)


@pytest.mark.parametrize("width", [((2, 5), (1, 6)), 3], ids=str)
@pytest.mark.parametrize("name", sorted({**LINEAR, **PIECEWISE}))
def test_pad_check_grads_to_order_2(name, width):
    f = _padder(name, width)
    w = np.cos(np.arange(f(X).size)).reshape(f(X).shape)
    ad.check_grads(lambda a: np.sum(np.sin(f(a)) * w), X, order=2)


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
@pytest.mark.parametrize("name", ["reflect_odd", "mean_stat_length", "linear_ramp_ends",
                                  "wrap", "symmetric_odd"])
def test_pad_hessian_in_every_nesting(name, mode):
    """f(x) = Σ w·sin(pad(x)) has Hessian Jᵀ·diag(−w·sin(pad(x)))·J, J numpy's linear map."""
    width = ((2, 5), (1, 6))
    pad = _padder(name, width)
    y = pad(X)
    w = np.cos(np.arange(y.size)).reshape(y.shape)
    J = _linear_map(name, width, X.shape).reshape(y.size, X.size)
    H = J.T @ np.diag((-w * np.sin(y)).ravel()) @ J
    u = np.sin(np.arange(X.size) + 1.0).reshape(X.shape)
    got = ad.hvp(lambda a: np.sum(np.sin(pad(a)) * w), X, u, mode)
    close(got, (H @ u.ravel()).reshape(X.shape), rel=1e-13, floor=1.0)


@pytest.mark.parametrize("name", ["maximum", "median", "reflect_odd", "linear_ramp_ends", "wrap"])
def test_pad_float32_gradients_stay_float32(name):
    f = _padder(name, ((2, 5), (1, 6)))
    g32 = ad.gradient_r(lambda a: np.sum(f(a) ** 2))(X.astype(np.float32))
    g64 = ad.gradient_r(lambda a: np.sum(f(a) ** 2))(X.astype(np.float32).astype(np.float64))
    assert g32.dtype == np.float32
    close(g32, g64, rel=1e-5, floor=1.0)


def test_pad_constant_values_and_end_values_carry_derivatives():
    """They do when the array is a dvlad number too (numpy asks only the array whose np.pad
    to call: a plain one runs numpy's, which refuses to drop c's derivative, by name)."""
    width = ((2, 1), (0, 3))
    count = np.pad(np.zeros((3, 4)), width, constant_values=1.0).sum()     # the pad's size
    assert count == 6 * 7 - 12
    with pytest.raises(ad.DvladError):
        ad.derivative(lambda c: np.sum(np.pad(X, width, constant_values=c)))(2.0)
    close(ad.derivative(lambda c: np.sum(np.pad(X + (c - c), width, constant_values=c)))(2.0),
          count)
    g = ad.gradient_r(lambda c: np.sum(np.pad(X + (c[0, 0] - c[0, 0]), width,
                                              constant_values=c)))(np.array([[1., 2.], [3., 4.]]))
    close(g, np.array([[2.0 * 4, 1.0 * 4], [0.0, 3.0 * 6]]), rel=0.0)   # corners: the later axis
    ramp = np.pad(np.zeros((3, 4)), width, mode="linear_ramp", end_values=1.0).sum()
    got = ad.gradient_r(lambda e: np.sum(np.pad(X + (e - e), width, mode="linear_ramp",
                                                end_values=e)))(0.5)
    close(got, ramp, rel=1e-15)
    for modes in MODES2:
        # d/dc d/dt Σ c·pad(t·v, c) = Σ v;  d²/dc² Σ pad(c·v, c)² = 2(Σ v² + 4): 4 pad elements
        inner = lambda c: ad.derivative(lambda t: np.sum(np.pad(t * V, 2, constant_values=c)
                                                         * c))(1.0)
        close(nest(inner, modes[0])(3.0), np.sum(V), rel=1e-15, floor=1.0)
        close(nest(lambda c: np.sum(np.pad(c * V, 2, constant_values=c) ** 2), modes)(3.0),
              2.0 * (np.sum(V ** 2) + 4), rel=1e-15)


@pytest.mark.parametrize("modes", MODES2)
def test_pad_nested_second_derivative(modes):
    """d²/dt² Σ pad(t·v)², mode 'reflect' odd: 2·Σ (P·v)², P numpy's linear map."""
    P = _linear_map("reflect_odd", (3, 7), V.shape)
    got = nest(lambda t: np.sum(np.pad(t * V, (3, 7), mode="reflect", reflect_type="odd") ** 2),
               modes)(0.7)
    close(got, 2.0 * np.sum((P @ V) ** 2), rel=1e-14)


@pytest.mark.parametrize("call, error, named", [
    (lambda a: np.pad(a, 1, mode="empty"), ad.NotDifferentiableError, "empty"),
    (lambda a: np.pad(a, 1, mode=lambda v, w, i, k: None), ad.NotDifferentiableError, "lambda"),
    (lambda a: np.pad(a, 1, mode="spiral"), ValueError, "spiral"),
    (lambda a: np.pad(a, 1, mode="edge", stat_length=2), ValueError, "unsupported"),
    (lambda a: np.pad(a, 1, mode="maximum", stat_length=0), ValueError, "stat_length"),
    (lambda a: np.pad(a[:0], 1, mode="wrap"), ValueError, "empty axis"),
    (lambda a: np.pad(a, 1.5), TypeError, "integral"),
])
def test_pad_refusals(call, error, named):
    with pytest.raises(error, match=named):
        ad.gradient_r(lambda a: np.sum(call(a)))(V)
    if error is ValueError or error is TypeError:
        with pytest.raises(error):
            call(V)                                    # numpy's own error for plain numbers


# ---- scipy.stats: entropy, mean, var, std with tracked parameters ----------------------------

def test_norm_entropy_in_its_scale_is_one_over_scale():
    """The issue's example: it raised a TypeError from inside scipy's np.place."""
    f = lambda s: st.norm.entropy(0.0, s)
    close(ad.derivative(f)(2.0), 0.5)
    close(ad.gradient_r(f)(2.0), 0.5)
    for modes in MODES2:
        close(nest(f, modes)(2.0), -0.25)
    close(f(2.0), st.norm.entropy(0.0, 2.0), rel=0.0)
    close(st.norm(0.0, 2.0).entropy(), 0.5 * np.log(2 * np.pi * np.e * 4.0), rel=1e-15)


_M = mpmath


@pytest.fixture(autouse=True, scope="module")
def _thirty_digits():
    """The oracles below at 30 digits, for this module's tests only."""
    with mpmath.workdps(30):
        yield

# (distribution, method, shapes, the function of (shapes..., loc, scale) in mpmath)
ORACLES = [
    ("t", "entropy", (4.5,), lambda v, l, s: (v + 1) / 2 * (_M.digamma((v + 1) / 2)
                                                            - _M.digamma(v / 2))
     + _M.log(_M.sqrt(v) * _M.beta(v / 2, _M.mpf(1) / 2)) + _M.log(s)),
    ("t", "var", (4.5,), lambda v, l, s: v / (v - 2) * s ** 2),
    ("t", "std", (4.5,), lambda v, l, s: _M.sqrt(v / (v - 2)) * s),
    ("gamma", "entropy", (2.5,), lambda a, l, s: _M.digamma(a) * (1 - a) + a + _M.loggamma(a)
     + _M.log(s)),
    ("gamma", "mean", (2.5,), lambda a, l, s: a * s + l),
    ("gamma", "std", (2.5,), lambda a, l, s: _M.sqrt(a) * s),
    ("beta", "entropy", (2.5, 3.5), lambda a, b, l, s: _M.log(_M.beta(a, b))
     - (a - 1) * _M.digamma(a) - (b - 1) * _M.digamma(b) + (a + b - 2) * _M.digamma(a + b)
     + _M.log(s)),
    ("beta", "mean", (2.5, 3.5), lambda a, b, l, s: a / (a + b) * s + l),
    ("beta", "var", (2.5, 3.5), lambda a, b, l, s: a * b / ((a + b) ** 2 * (a + b + 1)) * s ** 2),
    ("lognorm", "entropy", (0.7,), lambda q, l, s: (1 + _M.log(2 * _M.pi) + 2 * _M.log(q)) / 2
     + _M.log(s)),
    ("lognorm", "mean", (0.7,), lambda q, l, s: _M.exp(q ** 2 / 2) * s + l),
    ("lognorm", "var", (0.7,), lambda q, l, s: _M.exp(q ** 2) * (_M.exp(q ** 2) - 1) * s ** 2),
    ("norm", "entropy", (), lambda l, s: _M.log(2 * _M.pi * _M.e) / 2 + _M.log(s)),
    ("expon", "var", (), lambda l, s: s ** 2),
    ("laplace", "std", (), lambda l, s: _M.sqrt(2) * s),
    ("logistic", "entropy", (), lambda l, s: 2 + _M.log(s)),
    ("logistic", "var", (), lambda l, s: _M.pi ** 2 / 3 * s ** 2),
    ("cauchy", "entropy", (), lambda l, s: _M.log(4 * _M.pi * s)),
]


@pytest.mark.parametrize("dist, method, shapes, oracle", ORACLES,
                         ids=[f"{d}.{m}" for d, m, _, _ in ORACLES])
def test_moments_and_entropies_against_mpmath(dist, method, shapes, oracle):
    """The gradient in every parameter (shapes, loc 0.2, scale 1.3), both modes, to mpmath's."""
    p = np.array([*shapes, 0.2, 1.3])
    f = lambda p: getattr(getattr(st, dist), method)(*p[:-2], loc=p[-2], scale=p[-1])
    want = np.array([float(_M.diff(lambda *q: oracle(*q), [_M.mpf(v) for v in p],
                                   tuple(int(i == k) for i in range(len(p)))))
                     for k in range(len(p))])
    close(f(p), float(oracle(*[_M.mpf(v) for v in p])), rel=1e-13)
    close(ad.gradient_r(f)(p), want, rel=1e-12, floor=1.0)
    close(ad.gradient_f(f)(p), want, rel=1e-12, floor=1.0)


DISTS = {"norm": (), "t": (4.5,), "gamma": (2.5,), "beta": (2.5, 3.5), "expon": (),
         "lognorm": (0.7,), "laplace": (), "logistic": (), "cauchy": ()}
POINTS = {"norm": 0.3, "t": 0.3, "gamma": 1.7, "beta": 0.55, "expon": 0.8, "lognorm": 1.3,
          "laplace": 0.3, "logistic": 0.3, "cauchy": 0.3}


@pytest.mark.parametrize("method", ["entropy", "mean", "var", "std"])
@pytest.mark.parametrize("dist", sorted(DISTS))
def test_moments_check_grads_in_every_parameter(dist, method):
    p = np.array([*DISTS[dist], 0.2, 1.3])
    f = lambda p: getattr(getattr(st, dist), method)(*p[:-2], loc=p[-2], scale=p[-1])
    if dist == "cauchy" and method != "entropy":
        return          # undefined: below
    ad.check_grads(f, p, order=2)


@pytest.mark.parametrize("method", ["cdf", "logcdf", "sf", "logsf", "ppf", "isf"])
@pytest.mark.parametrize("dist", sorted(DISTS))
def test_distribution_functions_in_x_loc_and_scale(dist, method):
    if method in ("ppf", "isf") and dist == "cauchy":
        return          # below
    q = np.array([POINTS[dist] if method not in ("ppf", "isf") else 0.37, 0.2, 1.3])
    f = lambda q: getattr(getattr(st, dist), method)(q[0], *DISTS[dist], loc=q[1], scale=q[2])
    ad.check_grads(f, q, order=2)


@pytest.mark.parametrize("dist, method, call", [
    ("t", "cdf", lambda v: st.t.cdf(0.3, v)), ("t", "ppf", lambda v: st.t.ppf(0.3, v)),
    ("gamma", "sf", lambda a: st.gamma.sf(1.7, a)),
    ("gamma", "ppf", lambda a: st.gamma.ppf(0.3, a)),
    ("beta", "logcdf", lambda a: st.beta.logcdf(0.5, a, 3.5)),
    ("beta", "pdf", lambda a: st.beta.pdf(0.5, a, 3.5)),
    ("betaprime", "entropy", lambda a: st.betaprime.entropy(a, 6.0)),     # scipy integrates it
    ("irwinhall", "mean", lambda n: st.irwinhall.mean(2 * n)),          # integer shapes
    ("binom", "var", lambda n: st.binom.var(2 * n, 0.3)),
    # ppf in q (t's, gamma's and beta's differentiate: tests/test_inverse_cdfs.py)
    ("cauchy", "ppf in q", lambda q: st.cauchy.ppf(q / 5)),
])
def test_what_has_no_derivative_raises_a_named_error(dist, method, call):
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(ad.DvladError):
            op(call)(2.5)


def test_undefined_moments_are_nan_with_nan_derivatives_and_infinite_ones_constant():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in (ad.derivative, ad.gradient_r):
            assert np.isnan(op(lambda s: st.cauchy.mean(0.0, s))(1.3))
            assert np.isnan(op(lambda l: st.cauchy.var(l, 1.3))(0.2))
            assert np.isnan(op(lambda s: st.norm.entropy(0.0, s))(-1.0))     # invalid: nan
            close(op(lambda v: st.t.var(v, scale=2.0))(1.5), 0.0)           # ∞ for ν ≤ 2
        g = ad.gradient_r(lambda s: np.sum(st.norm.entropy(0.0, s)))(np.array([-2.0, 2.0]))
        assert np.isnan(g[0]) and g[1] == 0.5


def test_array_parameters_through_scipys_lazyselect():
    """t's variance picks its formula lane by lane (scipy's _lazyselect): ∞ for 1 < ν ≤ 2,
    ν/(ν − 2) above; d/dν = −2/(ν − 2)²."""
    nu = np.array([1.5, 3.0, 5.0, 9.0, np.inf])
    close(st.t.var(nu), np.array([np.inf, 3.0, 5 / 3, 9 / 7, 1.0]), rel=1e-15, nonfinite=True)
    want = np.diag([0.0, -2.0, -2 / 9, -2 / 49, 0.0])
    close(ad.jacobian_f(st.t.var)(nu), want, rel=1e-15)
    close(ad.jacobian_r(st.t.var)(nu), want, rel=1e-15)
    k = np.array([3.0, 5.0, 7.0])                    # kurtosis 6/(ν − 4) for ν > 4
    close(ad.jacobian_r(lambda v: st.t.stats(v, moments="k"))(k),
          np.diag([0.0, -6.0, -6 / 9]), rel=1e-15)


def test_frozen_distributions_and_discrete_ones():
    f = lambda p: st.gamma(p[0], loc=p[1], scale=p[2]).std()
    close(ad.gradient_r(f)(np.array([4.0, 0.2, 1.5])), np.array([1.5 / 4, 0.0, 2.0]), rel=1e-15)
    close(ad.derivative(lambda m: st.poisson.mean(m, loc=2))(3.0), 1.0)
    close(ad.gradient_r(lambda m: st.poisson.var(m))(3.0), 1.0)
    ad.check_grads(lambda p: st.beta(p[0], p[1]).entropy(), np.array([2.5, 3.5]), order=2)


def test_bincount_with_weights_is_linear_in_them():
    x = np.array([0.3, 1.2, -0.5, 2.0, 0.7])
    bins = np.array([0, 2, 2, 1, 4])
    f = lambda w: np.sum(np.bincount(bins, weights=w, minlength=6) ** 2)
    counts = np.bincount(bins, weights=x, minlength=6)
    np.testing.assert_allclose(ad.gradient_r(f)(x), 2 * counts[bins], rtol=1e-15)
    np.testing.assert_allclose(ad.gradient_f(f)(x), 2 * counts[bins], rtol=1e-15)
    np.testing.assert_allclose(ad.hessian(f)(x), 2.0 * (bins[:, None] == bins[None, :]))
    ad.check_grads(lambda w: np.bincount(bins, weights=w * w), x, order=2)

    def added_at(w):                    # np.add.at into a plain array names the bincount way
        h = np.zeros(6)
        with pytest.raises(ad.AssignmentError, match="np.bincount"):
            np.add.at(h, bins, w)
        return np.sum((h + np.bincount(bins, weights=w, minlength=h.size)) ** 2)
    np.testing.assert_allclose(ad.gradient_r(added_at)(x), 2 * counts[bins], rtol=1e-15)


@pytest.mark.parametrize("window, axis", [(3, None), ((2, 2), None), (2, 1)])
def test_sliding_window_view_gathers_windows(window, axis):
    from numpy.lib.stride_tricks import sliding_window_view as windows
    m = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
    x = m[0] if window == 3 else m
    f = lambda a: np.sum(np.sin(windows(a, window, axis)) * np.cos(windows(a, window, axis)))
    ad_value = ad.gradient_r(f)(x)
    # each element's derivative: cos(2a) times the number of windows it is in
    count = windows(np.ones_like(x), window, axis)
    inside = np.zeros(x.size)
    np.add.at(inside, windows(np.arange(x.size).reshape(x.shape), window, axis).ravel(),
              count.ravel())
    np.testing.assert_allclose(ad_value, np.cos(2 * x) * inside.reshape(x.shape), rtol=1e-14)
    ad.check_grads(f, x, order=2)


def test_digitize_answers_for_the_primal():
    x = np.array([0.3, 1.2, -0.5, 2.0, 0.7])
    f = lambda x: np.sum(x[np.digitize(x, [0.0, 1.0])])       # x[[1, 2, 0, 2, 1]]
    np.testing.assert_array_equal(ad.gradient_r(f)(x), [1.0, 2.0, 2.0, 0.0, 0.0])
    np.testing.assert_array_equal(ad.gradient_f(f)(x), [1.0, 2.0, 2.0, 0.0, 0.0])


def test_quantile_and_percentile_differentiate_in_q():
    # a silent 0 before: the linear quantile's slope in q is (n − 1)·(x₍ₖ₊₁₎ − x₍ₖ₎)
    data = np.array([1.0, 4.0, 2.0, 8.0, 5.0])          # sorted 1 2 4 5 8
    assert ad.derivative(lambda q: np.quantile(data, q))(0.3) == 8.0      # between 2 and 4
    assert ad.gradient_r(lambda q: np.quantile(data, q))(0.3) == 8.0
    assert abs(ad.derivative(lambda q: np.percentile(data, q))(30.0) - 0.08) < 1e-15
    qs = np.array([0.1, 0.6])
    for jac in (ad.jacobian_f, ad.jacobian_r):
        np.testing.assert_array_equal(jac(lambda q: np.quantile(data, q))(qs), np.diag([4.0, 4.0]))
    both = lambda z: np.quantile(z[:5], z[5])
    np.testing.assert_allclose(ad.gradient_r(both)(np.append(data, 0.3)),
                               [0.0, 0.2, 0.8, 0.0, 0.0, 8.0], rtol=1e-14)
    ad.check_grads(both, np.append(data, 0.3), order=2)
    with pytest.raises(ad.NotDifferentiableError, match="nanquantile in q"):
        ad.derivative(lambda q: np.nanquantile(data, q))(0.3)


@pytest.mark.parametrize("axis", [(0, 2), (-1, -3), (1,)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median_and_percentile_over_several_axes(axis, keepdims):
    x = np.arange(24.0).reshape(2, 3, 4) ** 1.3
    for f in (lambda x: np.median(x, axis=axis, keepdims=keepdims),
              lambda x: np.percentile(x, [40, 70], axis=axis, keepdims=keepdims)):
        np.testing.assert_allclose(ad.primal(f(x)), f(x), rtol=1e-15)
        assert np.shape(ad.primal(ad.derivative(lambda t: f(x * t))(1.0))) == np.shape(f(x))
        ad.check_grads(f, x, order=1)
