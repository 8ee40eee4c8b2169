"""numpy's products and selections written with dvlad's array primitives
(dvlad/arrays/products.py): kron, cross, vdot, cumprod, the nan- family, select, choose, full_like,
trapezoid, interp, convolve, correlate.  Values equal numpy's, derivatives checked by check_grads
to order 2 in forward and reverse mode, a few derivatives by hand, float32 kept, keywords that
change the value refused."""
import warnings

import numpy as np
import pytest

import dvlad as ad

RNG = np.random.default_rng(0)
M = RNG.normal(size=(3, 4))
NAN = np.where(M > 1, np.nan, 1.0)                  # a fixed pattern of nans


def _nans(a):
    return np.where(M > 1, np.nan, a)               # (a Python nan keeps float32 float32)
XP = np.array([-2.0, -0.5, 0.0, 0.7, 1.5, 3.0])     # knots (M's entries stay away from them)
ZERO = M.copy()
ZERO[1, 2] = ZERO[2, 0] = 0.0                      # cumulative products through zeros


def _cross2(f):
    """numpy deprecates 2-vectors in cross (and so does dvlad, with numpy's warning)."""
    def g(a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return f(a)
    return g


CASES = {
    "kron": lambda a: np.kron(a, a[:2, :3]), "kron_vectors": lambda a: np.kron(a[0], a[1, :2]),
    "kron_ndims": lambda a: np.kron(np.arange(1.0, 3.0), a),
    "kron_constant": lambda a: np.kron(np.eye(2), a[:, :2]),
    "cross": lambda a: np.cross(a[:, :3], a[:, 1:]),
    "cross_broadcast": lambda a: np.cross(a[:, 1:], np.array([1.0, -2.0, 0.5])),
    "cross_axes": lambda a: np.cross(a[:, :3].T, a[:, 1:], axisa=0, axisc=0),
    "cross_axis": lambda a: np.cross(a[:, :3], a[:, 1:], axis=1),
    "cross_2_2": _cross2(lambda a: np.cross(a[:, :2], a[:, 2:])),
    "cross_2_3": _cross2(lambda a: np.cross(a[:, :2], a[:, 1:])),
    "cross_3_2": _cross2(lambda a: np.cross(a[:, 1:], a[:, :2])),
    "vdot": lambda a: np.vdot(a, a ** 2), "vdot_constant": lambda a: np.vdot(M.T, a.T),
    "cumprod": lambda a: np.cumprod(a, axis=1), "cumprod_axis0": lambda a: np.cumprod(a, axis=0),
    "cumprod_flat": np.cumprod, "cumprod_negative_axis": lambda a: np.cumprod(a, axis=-2),
    "cumprod_long": lambda a: np.cumprod(np.concatenate([a.ravel(), a.ravel()]) * 0.8),
    "nancumsum": lambda a: np.nancumsum(_nans(a), axis=1),
    "nancumprod": lambda a: np.nancumprod(_nans(a)),
    "nanprod": lambda a: np.nanprod(_nans(a), axis=0),
    "nanprod_keepdims": lambda a: np.nanprod(_nans(a), axis=1, keepdims=True),
    "nanmax": lambda a: np.nanmax(_nans(a), axis=1), "nanmin": lambda a: np.nanmin(_nans(a)),
    "nanmax_keepdims": lambda a: np.nanmax(_nans(a), axis=0, keepdims=True),
    "nanvar": lambda a: np.nanvar(_nans(a), axis=1, ddof=1),
    "nanvar_all": lambda a: np.nanvar(_nans(a)),
    "nanstd": lambda a: np.nanstd(_nans(a), axis=0, keepdims=True),
    "select": lambda a: np.select([M > 0.5, M < -0.5], [a, a ** 2], default=a[0]),
    "select_default": lambda a: np.select([M[0] > 0], [a]),
    "choose": lambda a: np.choose(np.arange(4) % 3, a),
    "choose_broadcast": lambda a: np.choose([[0, 1, 2, 1]] * 2, [a[0], a[1], 2 * a[2]]),
    "choose_wrap": lambda a: np.choose(np.arange(4) + np.arange(3)[:, None], list(a), mode="wrap"),
    "choose_clip": lambda a: np.choose(np.arange(4) - 1, a, mode="clip"),
    "choose_by_argmax": lambda a: np.choose(np.argmax(a, axis=0), a),     # = max along axis 0
    "full_like": lambda a: np.full_like(a, a[0, 0]),
    "full_like_row": lambda a: np.full_like(a[:2], a[1]),
    "full_like_shape": lambda a: np.full_like(a, a[2, 1], shape=(2, 5)),
    "trapezoid": lambda a: np.trapezoid(a, axis=0), "trapezoid_dx": lambda a: np.trapezoid(a, dx=0.3),
    "trapezoid_x": lambda a: np.trapezoid(a, np.cumsum(a[0] ** 2)),
    "trapezoid_x_nd": lambda a: np.trapezoid(a, np.cumsum(a, axis=0) ** 2 + 1, axis=0),
    "trapezoid_tracked_dx": lambda a: np.trapezoid(a, dx=a[0, 0]),
    "interp": lambda a: np.interp(a, XP, np.sin(XP)),
    "interp_fp": lambda a: np.interp(np.linspace(-3, 4, 15), XP, np.concatenate([a[0], a[1, :2]])),
    "interp_xp": lambda a: np.interp(np.linspace(-1.5, 2.5, 7), np.cumsum(np.exp(a[0])), XP[:4]),
    "interp_left_right": lambda a: np.interp(a, XP, XP ** 2, left=a[0, 0], right=-1.0),
    "interp_scalar": lambda a: np.interp(a[0, 0], XP, np.cos(a[1, 0] * XP)),
    "interp_period": lambda a: np.interp(a, XP[:4], np.cos(XP[:4] * a[0, 0]), period=2.5),
    "convolve": lambda a: np.convolve(a[0], a[1, :3]),
    "convolve_same": lambda a: np.convolve(a[0, :2], a[1], "same"),
    "convolve_valid": lambda a: np.convolve(a[0], np.array([1.0, -2.0, 0.5]), "valid"),
    "correlate": lambda a: np.correlate(a[0], a[1, :3]),
    "correlate_same": lambda a: np.correlate(a[0, :2], a[1], "same"),
    "correlate_full": lambda a: np.correlate(a[0, :3], a[1], "full"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_derivatives(name):
    f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)         # no nan handling by accident
        want = f(M)
        got = ad.vjp(f, M)[0]
        assert np.shape(got) == np.shape(want) and np.allclose(got, want, rtol=1e-14, atol=1e-15)
        w = np.cos(np.arange(np.size(want))).reshape(np.shape(want))   # a fixed cotangent
        # (a smooth scalar of the result, so that order 2 sees each function's own structure)
        ad.check_grads(lambda a: np.sum(np.sin(f(a)) * w), M, order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", ["cumprod", "cumprod_axis0", "cumprod_flat", "nancumprod",
                                  "nanprod", "kron"])
def test_through_zeros(name):
    """Products at points with zeros in them: no division anywhere, so every order is right."""
    f = CASES[name]
    assert np.allclose(ad.vjp(f, ZERO)[0], f(ZERO), rtol=1e-14, atol=0)
    ad.check_grads(lambda a: np.sum(f(a) * np.cos(np.arange(np.size(f(M)))).reshape(
        np.shape(f(M)))), ZERO, order=2)


def test_cumprod_by_hand():
    """sum(cumprod(x)) = x₀ + x₀x₁ + x₀x₁x₂: ∇ = (1 + x₁ + x₁x₂, x₀ + x₀x₂, x₀x₁) and
    H = [[0, 1 + x₂, x₁], [1 + x₂, 0, x₀], [x₁, x₀, 0]]; at (2, 0, 3) the zero does not zero
    the derivative in x₁."""
    x = np.array([2.0, 0.0, 3.0])
    f = lambda x: np.sum(np.cumprod(x))
    assert ad.gradient_r(f)(x).tolist() == [1.0, 8.0, 0.0]
    assert ad.gradient_f(f)(x).tolist() == [1.0, 8.0, 0.0]
    assert ad.hessian(f)(x).tolist() == [[0.0, 4.0, 0.0], [4.0, 0.0, 2.0], [0.0, 2.0, 0.0]]
    assert ad.gradient_r(f)(np.array([0.0, 0.0, 5.0])).tolist() == [1.0, 0.0, 0.0]
    assert ad.gradient_r(lambda x: np.cumprod(x)[-1])(x).tolist() == [0.0, 6.0, 0.0]


def test_derivatives_by_hand():
    a, b, w = M[0, :3], M[1, 1:], M[2, :3]
    assert np.allclose(ad.gradient_r(lambda a: np.cross(a, b) @ w)(a), np.cross(b, w))
    assert np.allclose(ad.gradient_r(lambda b: np.vdot(M, b))(M), M)
    assert np.allclose(ad.gradient_r(lambda a: np.sum(np.kron(a, M)))(a), M.sum())
    assert np.allclose(ad.gradient_r(lambda y: np.trapezoid(y, dx=0.5))(np.ones(4)),
                       [0.25, 0.5, 0.5, 0.25])
    picked = ad.gradient_r(lambda a: np.sum(np.select([M > 0.5, M > 0], [a, 2 * a], 7.0)))(M)
    assert picked.tolist() == np.where(M > 0.5, 1.0, np.where(M > 0, 2.0, 0.0)).tolist()
    g = ad.gradient_r(lambda a: np.sum(np.nanmax(_nans(a), axis=1)))(M)
    assert g.tolist() == (np.nan_to_num(M * NAN, nan=-np.inf) == np.nanmax(M * NAN, axis=1,
                                                                          keepdims=True)).tolist()
    g = ad.gradient_r(lambda a: np.sum(np.full_like(a, a[0, 0] * 2)))(M)
    assert g[0, 0] == 24.0 and not g.ravel()[1:].any()           # a gives its shape only


def test_interp_slopes():
    """The derivative in x is the slope of the segment x lies on: the right-hand segment at an
    interior knot, the last segment at the last knot, 0 outside."""
    xp, fp = np.array([0.0, 1.0, 3.0, 4.0]), np.array([1.0, 3.0, 2.0, 6.0])
    x = np.array([-1.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0])
    slope = ad.gradient_r(lambda x: np.sum(np.interp(x, xp, fp)))(x)
    assert slope.tolist() == [0.0, 2.0, -0.5, -0.5, 4.0, 4.0, 0.0]
    assert ad.gradient_f(lambda x: np.sum(np.interp(x, xp, fp)))(x).tolist() == slope.tolist()
    weights = ad.gradient_r(lambda fp: np.interp(2.5, xp, fp))(fp)      # linear in fp
    assert weights.tolist() == [0.0, 0.25, 0.75, 0.0]
    assert np.interp(ad.jvp(lambda x: x, 2.5, 1.0)[0], xp, fp) == np.interp(2.5, xp, fp)


@pytest.mark.parametrize("n, m", [(n, m) for n in range(1, 6) for m in range(1, 6)])
def test_convolution_windows(n, m):
    """Every mode, both orders of lengths, odd and even: numpy's values and placement."""
    a, v = M.ravel()[:n], M.ravel()[5:5 + m]
    for name in ("convolve", "correlate"):
        for mode in ("full", "same", "valid"):
            fn = getattr(np, name)
            got = ad.vjp(lambda p: fn(p[0], p[1], mode), (a, v))[0]
            assert np.allclose(got, fn(a, v, mode), rtol=1e-14, atol=1e-15), (name, mode)
            w = np.cos(np.arange(got.size))
            ad.check_grads(lambda p: np.sum(fn(p[0], p[1], mode) * w), (a, v), order=1)


FLOAT32 = ["kron", "cross", "vdot", "cumprod", "cumprod_flat", "nancumsum", "nancumprod",
           "nanprod", "nanmax", "nanvar", "nanstd", "select", "choose", "full_like",
           "trapezoid_x", "convolve_same", "correlate"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_stays_float32(name):
    f = CASES[name]
    a = M.astype(np.float32)
    assert ad.vjp(f, a)[0].dtype == np.asarray(f(a)).dtype == np.float32
    g32 = ad.gradient_r(lambda x: np.sum(f(x) ** 2))(a)
    g64 = ad.gradient_r(lambda x: np.sum(f(x) ** 2))(M)
    assert g32.dtype == np.float32 and np.allclose(g32, g64, rtol=1e-4, atol=1e-5)
    assert ad.gradient_f(lambda x: np.sum(f(x) ** 2))(a).dtype == np.float32


def test_float32_interp_is_float64_as_numpy():
    """numpy's interp computes in float64 whatever it is given; so does dvlad."""
    a = M.astype(np.float32)
    f = CASES["interp"]
    assert ad.vjp(f, a)[0].dtype == f(a).dtype == np.float64
    assert np.allclose(ad.gradient_r(lambda x: np.sum(f(x)))(a),
                       ad.gradient_r(lambda x: np.sum(f(x)))(M), rtol=1e-6)


def test_full_like_dtype():
    """The fill value is cast to the result's dtype (a differentiable cast: the sensitivity is
    cast back); an integer result is piecewise constant: plain, for the primals."""
    f32 = lambda a: np.full_like(a, a[0, 0] * 3, dtype=np.float32)
    assert ad.vjp(f32, M)[0].dtype == np.float32
    g = ad.gradient_r(lambda a: np.sum(f32(a)))(M)
    assert g.dtype == np.float64 and g[0, 0] == 36.0
    into32 = lambda s: np.full_like(M.astype(np.float32) * s, s)       # a tracked a too
    assert ad.vjp(into32, 2.5)[0].dtype == np.float32
    assert ad.gradient_r(lambda s: np.sum(into32(s)))(2.5) == 12.0
    r = ad.vjp(lambda a: np.full_like(a, a[0, 0], dtype=int), M)[0]
    assert type(r) is np.ndarray and r.dtype.kind == "i"


def test_cross_warns_as_numpy():
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        ad.gradient_r(lambda a: np.sum(np.cross(a[:, :2], a[:, 1:])))(M)


@pytest.mark.skipif(not hasattr(np, "row_stack"), reason="numpy without row_stack")
def test_row_stack_is_vstack():
    """np.row_stack calls np.vstack (it does not dispatch itself)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ad.check_grads(lambda a: np.sum(np.sin(np.row_stack([a, a[0]]))), M, order=2)


def test_trapz_where_numpy_has_it():
    from dvlad.arrays.products import FUNCTIONS
    assert (getattr(np, "trapz", None) in FUNCTIONS) == hasattr(np, "trapz")
    assert np.trapezoid in FUNCTIONS


@pytest.mark.parametrize("call, named", [
    (lambda a: np.cumprod(a, out=np.empty(12)), "out"),
    (lambda a: np.cumprod(a, dtype=np.float32), "dtype"),
    (lambda a: np.nancumsum(a, dtype=np.float32), "dtype"),
    (lambda a: np.nanprod(a, where=M > 0), "where"),
    (lambda a: np.nanmax(a, initial=1.0), "initial"),
    (lambda a: np.nanmin(a, out=np.empty(())), "out"),
    (lambda a: np.nanvar(a, mean=np.zeros(())), "mean"),
    (lambda a: np.nanstd(a, where=M > 0), "where"),
    (lambda a: np.choose([0, 1, 0, 1], a[:2], out=np.empty(4)), "out"),
    (lambda a: np.interp(a, XP, XP, period=a[0, 0]), "period"),
])
def test_keywords_that_change_the_value_are_refused(call, named):
    with pytest.raises(ad.NotDifferentiableError, match=named):
        ad.gradient_r(lambda a: np.sum(call(a)))(M)


def test_a_dtype_that_changes_nothing_is_accepted():
    g = ad.gradient_r(lambda a: np.sum(np.cumprod(a, dtype=np.float64)))(M)
    assert np.allclose(g, ad.gradient_r(lambda a: np.sum(np.cumprod(a)))(M))


def test_errors_as_numpy():
    with pytest.raises(ValueError, match="invalid entry"):
        ad.gradient_r(lambda a: np.sum(np.choose([0, 3, 1, 0], a)))(M)
    with pytest.raises(TypeError):
        ad.gradient_r(lambda a: np.sum(np.choose(a[0], a)))(M)
    with pytest.raises(ValueError, match="same length"):
        ad.gradient_r(lambda a: np.sum(np.select([M > 0], [a, a])))(M)
    with pytest.raises(ValueError, match="dimension must be 2 or 3"):
        ad.gradient_r(lambda a: np.sum(np.cross(a, a)))(M)
    with pytest.raises(ValueError, match="mode"):
        ad.gradient_r(lambda a: np.sum(np.convolve(a[0], a[1], "middle")))(M)
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        r = ad.vjp(lambda a: np.nanmax(a * np.array([np.nan, 1.0, 1.0, 1.0]), axis=0), M)[0]
    assert np.isnan(r[0]) and not np.isnan(r[1:]).any()


@pytest.mark.parametrize("spec", ["...ij,...jk->...ik", "...ij,...jk"])
def test_einsum_broadcasting_in_the_ellipsis_sums_back(spec):
    # a length-1 batch axis of x meets S's 2: reverse mode summed nothing and crashed
    S = np.random.default_rng(0).normal(size=(2, 3, 3))
    x = np.eye(3)[None] + 0.1
    f = lambda x: np.sum(np.einsum(spec, x, S) ** 2)
    expected = ad.gradient_r(lambda x: np.sum((x @ S) ** 2))(x)
    np.testing.assert_allclose(ad.gradient_r(f)(x), expected, rtol=1e-13)
    np.testing.assert_allclose(ad.gradient_f(f)(x), expected, rtol=1e-13)
    ad.check_grads(f, x, order=2)
