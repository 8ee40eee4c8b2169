"""numpy functions added in dvlad/arrays/shaping.py, numerics.py, polynomials.py, linalg_api.py
and ufuncs.py: values equal numpy's, derivatives checked by check_grads to order 2 in forward and
reverse mode, a few by hand, float32 kept, keywords that would change the value refused."""
import warnings

import numpy as np
import pytest

import dvlad as ad
from dvlad.arrays import numerics, protocol

RNG = np.random.default_rng(0)
M = RNG.normal(size=(3, 4))


def _nans(a):
    return np.where(M > 1, np.nan, a)               # a fixed pattern of nans


CASES = {
 "copy": lambda a: np.copy(a), "astype_same": lambda a: np.astype(a, np.float64),
 "linspace": lambda a: np.linspace(a[0,0], a[1,1], 7),
 "linspace_arr": lambda a: np.linspace(a[0], a[1], 5, axis=1),
 "linspace_noend": lambda a: np.linspace(a[0,0], a[1,1], 6, endpoint=False),
 "logspace": lambda a: np.logspace(a[0,0], a[1,1], 5),
 "logspace_base": lambda a: np.logspace(a[0,:2], a[1,:2], 4, base=np.exp(a[2,:2])),
 "geomspace": lambda a: np.geomspace(np.exp(a[0,0]), np.exp(a[1,1]), 5),
 "geomspace_neg": lambda a: np.geomspace(-np.exp(a[0]), -np.exp(a[1]), 5, axis=1),
 "meshgrid": lambda a: np.stack(np.meshgrid(a[0], a[1,:3])),
 "meshgrid_ij": lambda a: np.meshgrid(a[0], a[1,:3], a[2,:2], indexing="ij")[2],
 "rollaxis": lambda a: np.rollaxis(a.reshape(3,2,2), 2),
 "dsplit": lambda a: np.dsplit(a.reshape(1,3,4), 2)[1],
 "matrix_transpose": lambda a: np.matrix_transpose(a),
 "block": lambda a: np.block([[a, a[:, :2]], [a[:1], a[1:2, :2]]]),
 "insert": lambda a: np.insert(a, 2, a[0, :3] * 2, axis=1),
 "insert_flat": lambda a: np.insert(a, [1, 5], 7.0),
 "insert_values": lambda a: np.insert(M, 1, a[0], axis=0),
 "delete": lambda a: np.delete(a, [0, 2], axis=1),
 "resize": lambda a: np.resize(a, (5, 4)),
 "unstack": lambda a: np.unstack(a, axis=1)[2],
 "vander": lambda a: np.vander(a[0]), "vander_inc": lambda a: np.vander(a[0], 3, increasing=True),
 "polyval": lambda a: np.polyval(a[0], a[1]),
 "polyfit": lambda a: np.polyfit(np.arange(4.0), a[1], 2),
 "polyfit_2d": lambda a: np.polyfit(np.arange(4.0), a.T, 2),
 "polyfit_x": lambda a: np.polyfit(a[0], a[1], 1),
 "polyadd": lambda a: np.polyadd(a[0], a[1,:2]), "polymul": lambda a: np.polymul(a[0], a[1,:2]),
 "polyder": lambda a: np.polyder(a[0], 2), "polyint": lambda a: np.polyint(a[0], 2, k=[a[1,0], 2.0]),
 "polydiv": lambda a: np.concatenate(np.polydiv(a[0], a[1, :2])), "poly": lambda a: np.poly(a[0]),
 "partition": lambda a: np.partition(a, 2, axis=1),
 "compress": lambda a: np.compress([True, False, True], a, axis=0),
 "extract": lambda a: np.extract(M > 0, a),
 "ediff1d": lambda a: np.ediff1d(a, to_begin=a[0, 0], to_end=[1.0, 2.0]),
 "trim_zeros": lambda a: np.trim_zeros(np.concatenate([np.zeros(2), a[0], np.zeros(1)])),
 "gradient": lambda a: np.gradient(a, axis=1), "gradient_all": lambda a: np.stack(np.gradient(a, 0.5, 2.0)),
 "gradient_coords": lambda a: np.gradient(a[0], np.array([0., 1., 3., 3.5])),
 "gradient_eo2": lambda a: np.gradient(a[0], np.array([0., 1., 3., 3.5]), edge_order=2),
 "gradient_eo2u": lambda a: np.gradient(a, axis=0, edge_order=2),
 "gradient_tracked": lambda a: np.gradient(a[0], np.cumsum(np.exp(a[1]))),
 "cov": lambda a: np.cov(a), "cov_T": lambda a: np.cov(a, rowvar=False, bias=True),
 "cov_y": lambda a: np.cov(a[0], a[1]), "cov_aw": lambda a: np.cov(a, aweights=np.exp(a[0])),
 "cov_fw": lambda a: np.cov(a, fweights=[1, 2, 1, 3], ddof=2),
 "corrcoef": lambda a: np.corrcoef(a),
 "cumulative_sum": lambda a: np.cumulative_sum(a, axis=1, include_initial=True),
 "cumulative_prod": lambda a: np.cumulative_prod(a[0], include_initial=True),
 "nan_to_num": lambda a: np.nan_to_num(_nans(a), nan=a[0,0]),
 "nanmedian": lambda a: np.nanmedian(_nans(a), axis=1),
 "nanmedian_all": lambda a: np.nanmedian(_nans(a)),
 "nanquantile": lambda a: np.nanquantile(_nans(a), [0.3, 0.8], axis=0),
 "nanpercentile": lambda a: np.nanpercentile(_nans(a), 40, axis=1, keepdims=True),
 "i0": lambda a: np.i0(a), "unwrap": lambda a: np.unwrap(a * 4, axis=1),
 "piecewise": lambda a: np.piecewise(a, [M < 0, M > 1], [lambda v: v ** 2, lambda v: np.sin(v), 3.0]),
 "real_if_close": lambda a: np.real_if_close(a), "angle": lambda a: np.angle(a) + a,
 "lcross": lambda a: np.linalg.cross(a[:, :3], a[:, 1:]), "louter": lambda a: np.linalg.outer(a[0], a[1]),
 "ltrace": lambda a: np.linalg.trace(a.reshape(3, 2, 2)), "lmatmul": lambda a: np.linalg.matmul(a, a.T),
 "ltensordot": lambda a: np.linalg.tensordot(a, a, axes=2), "lvecdot": lambda a: np.linalg.vecdot(a, a[0]),
 "ldiagonal": lambda a: np.linalg.diagonal(a, offset=1), "lsvdvals": lambda a: np.linalg.svdvals(a),
 "lmatrix_norm": lambda a: np.linalg.matrix_norm(a), "lmatrix_norm_nuc": lambda a: np.linalg.matrix_norm(a, ord="nuc"),
 "lvector_norm": lambda a: np.linalg.vector_norm(a), "lvector_norm_ax": lambda a: np.linalg.vector_norm(a, axis=1, ord=3, keepdims=True),
 "lvector_norm_axes": lambda a: np.linalg.vector_norm(a.reshape(3,2,2), axis=(0, 2)),
 "lmatrix_transpose": lambda a: np.linalg.matrix_transpose(a),
 "lcond": lambda a: np.linalg.cond(a[:, :3]), "lcond1": lambda a: np.linalg.cond(a[:, :3], 1),
 "ltensorinv": lambda a: np.linalg.tensorinv(a[:, :3].reshape(3, 3) @ a[:, :3].T.reshape(3,3) + np.eye(3), 1),
 "ltensorsolve": lambda a: np.linalg.tensorsolve(a[:, :3] + 3 * np.eye(3), a[0, :3]),
 "apply_along_axis": lambda a: np.apply_along_axis(lambda v: v * v.sum(), 1, a),
 "apply_along_axis_s": lambda a: np.apply_along_axis(lambda v: np.sum(v ** 2), 0, a),
 "apply_over_axes": lambda a: np.apply_over_axes(np.sum, a.reshape(3, 2, 2), [0, 2]),
 "ix_": lambda a: np.ix_(a[0], a[1])[1],
}


# values numpy computes by other steps (pairwise sums, BLAS): equal to rounding, not bit for bit;
# dvlad's I₀ is scipy.special's (mpmath's without scipy), and np.i0's own series sums np.exp
# terms, whose last bit depends on the CPU's vector code (one element 1 ulp apart on one machine)
NOT_BITWISE = {"cumulative_prod", "ltensordot", "i0"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_derivatives(name):
    f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)         # no nan handling by accident
        want = f(M)
        got = ad.vjp(f, M)[0]
        assert np.shape(got) == np.shape(want)
        if name in NOT_BITWISE:
            assert np.allclose(got, want, rtol=1e-14, atol=1e-15)
        else:
            assert np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True)
        w = np.cos(np.arange(np.size(want))).reshape(np.shape(want))   # a fixed cotangent
        ad.check_grads(lambda a: np.sum(np.sin(f(a)) * w), M, order=2, modes=("fwd", "rev"))


FLOAT32 = ["copy", "linspace", "linspace_arr", "logspace", "meshgrid", "rollaxis",
           "block", "insert", "delete", "resize", "unstack", "polyval", "polymul", "polydiv", "partition", "compress", "extract", "ediff1d",
           "gradient", "gradient_eo2u", "cumulative_sum", "cumulative_prod",
           "nan_to_num", "nanmedian", "nanpercentile", "unwrap", "piecewise", "lcross",
           "louter", "ltrace", "lvecdot", "lmatrix_norm", "lvector_norm_ax", "apply_along_axis"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_stays_float32(name):
    f = CASES[name]
    a = M.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(a)
        assert ad.vjp(f, a)[0].dtype == np.asarray(want).dtype == np.float32
        g32 = ad.gradient_r(lambda x: np.sum(f(x) ** 2))(a)
        g64 = ad.gradient_r(lambda x: np.sum(f(x) ** 2))(M)
        assert g32.dtype == np.float32 and np.allclose(g32, g64, rtol=2e-3, atol=2e-3)
        assert ad.gradient_f(lambda x: np.sum(f(x) ** 2))(a).dtype == np.float32


def test_geomspace_is_float64_as_numpy():
    a = M.astype(np.float32)
    f = CASES["geomspace"]
    assert ad.vjp(f, a)[0].dtype == f(a).dtype == np.float64
    assert np.allclose(ad.gradient_r(lambda x: np.sum(f(x)))(a),
                       ad.gradient_r(lambda x: np.sum(f(x)))(M), rtol=1e-6)


@pytest.mark.parametrize("name", ["vander", "polyfit", "polyint", "nanquantile"])
def test_float32_promoted_as_numpy(name):
    """numpy promotes these (vander's integer powers, an array of quantiles): float64 out."""
    a = M.astype(np.float32)
    f = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert ad.vjp(f, a)[0].dtype == np.asarray(f(a)).dtype == np.float64
        assert np.allclose(ad.gradient_r(lambda x: np.sum(f(x) ** 2))(a),
                           ad.gradient_r(lambda x: np.sum(f(x) ** 2))(M), rtol=1e-4, atol=1e-5)


def test_cov_of_float32_is_float64_as_numpy():
    a = M.astype(np.float32)
    assert ad.vjp(np.cov, a)[0].dtype == np.cov(a).dtype == np.float64
    g = ad.gradient_r(lambda x: np.sum(np.cov(x) ** 2))(a)
    assert np.allclose(g, ad.gradient_r(lambda x: np.sum(np.cov(x) ** 2))(M), rtol=1e-5)


# ---- by hand ---------------------------------------------------------------------------------

def test_linspace_by_hand():
    """y_k = s + k(e − s)/(n − 1): ∂y_k/∂s = 1 − k/(n − 1), ∂y_k/∂e = k/(n − 1)."""
    k = np.arange(5) / 4
    jac = ad.jacobian_r(lambda p: np.linspace(p[0], p[1], 5))(np.array([1.0, 3.0]))
    assert np.allclose(jac, np.stack([1 - k, k], 1), rtol=0, atol=1e-15)
    y, step = ad.vjp(lambda p: np.linspace(p[0], p[1], 5, retstep=True)[1], np.array([1.0, 3.0]))
    assert y == 0.5
    r = ad.vjp(lambda p: np.linspace(p[0], p[1], 4, dtype=int), np.array([1.0, 3.0]))[0]
    assert type(r) is np.ndarray and r.tolist() == [1, 1, 2, 3]


def test_gradient_of_a_quadratic_is_exact():
    """Central differences are exact on x², one-sided ones of second order too."""
    x = np.linspace(0, 1, 6)
    g = ad.vjp(lambda c: np.gradient(c * x ** 2, x, edge_order=2), 3.0)[0]
    assert np.allclose(g, 6 * x, atol=1e-12)
    d = ad.derivative(lambda c: np.sum(np.gradient(c * x ** 2, x[1] - x[0], edge_order=2)))(3.0)
    assert np.isclose(d, np.sum(2 * x), atol=1e-12)


def test_cov_and_corrcoef_by_hand():
    """∂ var(x)/∂x = 2(x − x̄)/(n − 1); a correlation matrix has a unit diagonal (derivative
    0 there)."""
    x = M[0]
    assert np.allclose(ad.gradient_r(lambda x: np.cov(x))(x), 2 * (x - x.mean()) / 3)
    g = ad.gradient_r(lambda a: np.trace(np.corrcoef(a)))(M)
    assert np.allclose(g, 0, atol=1e-12)


def test_nanmedian_picks_the_middle():
    x = np.array([3.0, np.nan, 1.0, 2.0, np.nan, 5.0])
    assert ad.gradient_r(np.nanmedian)(x).tolist() == [0.5, 0, 0, 0.5, 0, 0]
    assert ad.gradient_r(np.nanmedian)(x[:5]).tolist() == [0, 0, 0, 1, 0]
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        r = ad.vjp(lambda a: np.nanmedian(a, axis=0), np.array([[np.nan, 1.0], [np.nan, 2.0]]))
    assert np.isnan(r[0][0]) and r[0][1] == 1.5


def test_polyfit_is_linear_in_y():
    x = np.linspace(-1, 1, 7)
    y = 2 * x ** 2 - x + 0.5
    jac = ad.jacobian_r(lambda y: np.polyfit(x, y, 2))(y)
    assert np.allclose(jac, np.linalg.pinv(np.vander(x, 3)), atol=1e-12)
    assert np.allclose(ad.vjp(lambda y: np.polyfit(x, y, 2), y)[0], [2.0, -1.0, 0.5])


def test_polyval_by_hand():
    """d/dx (p₀x² + p₁x + p₂) = 2p₀x + p₁; d/dp = (x², x, 1)."""
    p = np.array([2.0, -3.0, 0.5])
    assert ad.derivative(lambda x: np.polyval(p, x))(1.5) == 2 * 2 * 1.5 - 3
    assert ad.gradient_r(lambda p: np.polyval(p, 1.5))(p).tolist() == [2.25, 1.5, 1.0]


def test_i0_derivative_is_i1():
    pytest.importorskip("scipy")
    from scipy.special import i1
    assert np.allclose(ad.vjp(np.i0, M)[0], np.i0(M), rtol=1e-14)
    assert np.allclose(ad.gradient_r(lambda x: np.sum(np.i0(x)))(M), i1(M), rtol=1e-13)


def test_copy_is_a_new_array():
    """Assigning into the copy leaves the original as it was (and its derivative flows)."""
    def f(a):
        b = np.copy(a)
        b[0] = 0.0
        return np.sum(a * b)
    g = ad.gradient_r(f)(M)
    want = 2 * M
    want[0] = 0.0
    assert np.allclose(g, want)


def test_astype():
    g = ad.gradient_r(lambda a: np.sum(np.astype(a, np.float32) ** 2))(M)
    assert g.dtype == np.float64 and np.allclose(g, 2 * M, rtol=1e-6)
    g = ad.gradient_r(lambda a: np.sum(np.astype(a, np.float32) ** 2))(M.astype(np.float32))
    assert g.dtype == np.float32 and np.allclose(g, 2 * M, rtol=1e-6)
    r = ad.vjp(lambda a: np.astype(a * 3, int), M)[0]        # piecewise constant: the primal
    assert type(r) is np.ndarray and r.tolist() == np.astype(M * 3, int).tolist()
    ad.check_grads(lambda a: np.sum(np.astype(a, np.float64) ** 3), M, order=2)


def test_angle_and_real_if_close_of_reals():
    assert ad.vjp(np.angle, M)[0].tolist() == np.angle(M).tolist()
    assert np.all(ad.gradient_r(lambda a: np.sum(np.angle(a) + 0 * a))(M) == 0)
    assert ad.gradient_r(lambda a: np.sum(np.real_if_close(a)))(M).tolist() == \
        np.ones_like(M).tolist()


def test_piecewise_of_a_scalar():
    f = lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])
    assert ad.derivative(f)(-2.0) == -1.0 and ad.derivative(f)(3.0) == 6.0


def test_partition_kth_is_sorted_there():
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    r, g = ad.vjp(lambda x: np.partition(x, 2)[2], x)[0], ad.gradient_r(
        lambda x: np.partition(x, 2)[2])(x)
    assert r == 3.0 and g.tolist() == [0, 0, 0, 0, 1]


# ---- ufuncs without a row: their handlers (protocol.UFUNCS may not list them yet) -----------

UFUNC_CASES = {
    "heaviside": (np.heaviside, lambda a: (a, np.where(M > 0.5, 0.0, 0.3) * a[0])),
    "heaviside_zeros": (np.heaviside, lambda a: (np.where(M > 0, 0.0, a), a)),
    "fmod": (np.fmod, lambda a: (5 * a, 0.7 + a[0] ** 2)),
    "modf": (lambda x: np.modf(x)[0], lambda a: (3 * a,)),
    "divmod": (lambda x, y: np.divmod(x, y)[1], lambda a: (5 * a, 0.7 + a[0] ** 2)),
    "frexp": (lambda x: np.frexp(x)[0], lambda a: (7 * a,)),
    "nextafter": (np.nextafter, lambda a: (a, a[0])),
    "vecdot": (np.vecdot, lambda a: (a, a[0])),
    "matvec": (np.matvec, lambda a: (a, a[1])),
    "vecmat": (np.vecmat, lambda a: (a[:, 0], a)),
}


def _handler(ufunc):
    """The handler of a ufunc (or of the ufunc a lambda calls), through numpy when the
    protocol has it, directly otherwise."""
    def call(*args):
        if isinstance(ufunc, np.ufunc) and ufunc not in protocol.UFUNCS:
            return numerics.UFUNCS[ufunc](*args)
        return ufunc(*args)
    return call


@pytest.mark.parametrize("name", sorted(UFUNC_CASES))
def test_ufunc_handlers(name):
    ufunc, args = UFUNC_CASES[name]
    if not isinstance(ufunc, np.ufunc):
        base = {"modf": np.modf, "divmod": np.divmod, "frexp": np.frexp}[name]
        if base not in protocol.UFUNCS:
            ufunc = (lambda b: lambda *xs: {"modf": lambda r: r[0], "divmod": lambda r: r[1],
                                            "frexp": lambda r: r[0]}[name](
                numerics.UFUNCS[b](*xs)))(base)
    f = lambda a: _handler(ufunc)(*args(a))
    want = np.asarray(ufunc(*args(M)) if isinstance(ufunc, np.ufunc) else
                      {"modf": lambda: np.modf(3 * M)[0],
                       "divmod": lambda: np.divmod(5 * M, 0.7 + M[0] ** 2)[1],
                       "frexp": lambda: np.frexp(7 * M)[0]}[name]())
    got = ad.vjp(f, M)[0]
    assert np.array_equal(got, want) or np.allclose(got, want, rtol=1e-14, atol=1e-15)
    ad.check_grads(lambda a: np.sum(np.sin(f(a))), M, order=2, modes=("fwd", "rev"))


def test_ufunc_derivatives_by_hand():
    h = numerics.UFUNCS
    assert ad.gradient_r(lambda p: h[np.heaviside](p[0], p[1]))(np.array([0.0, 0.3])).tolist() \
        == [0.0, 1.0]
    assert ad.gradient_r(lambda p: h[np.heaviside](p[0], p[1]))(np.array([2.0, 0.3])).tolist() \
        == [0.0, 0.0]
    g = ad.gradient_r(lambda p: h[np.fmod](p[0], p[1]))(np.array([-7.5, 2.0]))
    assert g.tolist() == [1.0, 3.0]                       # fmod(−7.5, 2) = −7.5 − 2·(−3)
    assert h[np.modf](ad.jvp(lambda x: x, -2.25, 1.0)[0])[1] == -2.0
    assert np.spacing(1.0) == h[np.spacing](ad.jvp(lambda x: x, 1.0, 1.0)[0])


# ---- refused ------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, named", [
    (lambda a: np.astype(a, np.complex128), "complex"),
    (lambda a: np.astype(a, np.float32, device="gpu"), "device"),
    (lambda a: np.linspace(a[0, 0], 1.0, 5, device="gpu"), "device"),
    (lambda a: np.cumulative_sum(a[0], out=np.empty(4)), "out"),
    (lambda a: np.cumulative_prod(a[0], dtype=np.float32), "dtype"),
    (lambda a: np.compress([True], a, out=np.empty((1, 4))), "out"),
    (lambda a: np.partition(a[0], 1, order="x"), "order"),
    (lambda a: np.nanquantile(a, 0.3, method="nearest"), "method"),
    (lambda a: np.nanpercentile(a, 30, weights=np.ones_like(M)), "weights"),
    (lambda a: np.nanmedian(a, out=np.empty(())), "out"),
    (lambda a: np.polyfit(np.arange(4.0), a[0], 1, cov=True), "cov"),
    (lambda a: np.unwrap(a, period=a[0, 0]), "period"),
    (lambda a: np.cov(a, dtype=int), "dtype"),
    (lambda a: np.linalg.trace(a[:, :3], dtype=np.float32), "dtype"),
    (lambda a: np.poly(a[:, :3]), "eigenvalues"),
    (lambda a: np.geomspace(a[0, 0] + 0j + 3, 2.0, 3), "complex"),
])
def test_keywords_that_change_the_value_are_refused(call, named):
    with pytest.raises(ad.NotDifferentiableError, match=named):
        ad.gradient_r(lambda a: np.sum(call(a)))(M)


@pytest.mark.parametrize("fn", [np.unique, np.unique_values, np.union1d, np.setdiff1d,
                                np.intersect1d, np.setxor1d])
def test_set_operations_raise(fn):
    """Membership jumps where values meet: by design, with the name in the message."""
    args = (lambda a: (a,)) if fn in (np.unique, np.unique_values) else (lambda a: (a, a[0]))
    with pytest.raises(ad.NotDifferentiableError, match=fn.__name__):
        ad.gradient_r(lambda a: np.sum(fn(*args(a))))(M)


def test_errors_as_numpy():
    with pytest.raises(ValueError, match="3-dimensional"):
        ad.gradient_r(lambda a: np.sum(np.linalg.cross(a[:, :2], a[:, 1:3])))(M)
    with pytest.raises(ValueError, match="one-dimensional"):
        ad.gradient_r(lambda a: np.sum(np.linalg.outer(a, a)))(M)
    with pytest.raises(ValueError, match="dsplit"):
        ad.gradient_r(lambda a: np.sum(np.dsplit(a, 2)[0]))(M)
    with pytest.raises(ValueError, match="too small"):
        ad.gradient_r(lambda a: np.sum(np.gradient(a[:, :2], axis=1, edge_order=2)))(M)
    with pytest.raises(ValueError, match="zero"):
        ad.gradient_r(lambda a: np.sum(np.geomspace(0.0, a[0, 0], 3)))(M)
    with pytest.raises(ValueError, match="axis"):
        ad.gradient_r(lambda a: np.sum(np.cumulative_sum(a)))(M)
    with pytest.raises(ValueError, match="depths"):
        ad.gradient_r(lambda a: np.sum(np.block([a, [a]])))(M)


def test_roots_by_implicit_differentiation():
    c = np.array([1.0, -6.0, 11.0, -6.0])                    # (x − 1)(x − 2)(x − 3)
    r = np.roots(c)
    slope = np.polyval(np.polyder(c), r)
    want = np.array([[-(ri ** (3 - k)) / s for k in range(4)] for ri, s in zip(r, slope)])
    np.testing.assert_allclose(ad.jacobian_f(np.roots)(c), want, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(ad.jacobian_r(np.roots)(c), want, rtol=1e-13, atol=1e-14)
    ad.check_grads(lambda c: np.sum(np.roots(c) ** 2), c, order=2)
    ad.check_grads(lambda c: np.sum(np.roots(c) ** 3), np.array([2.0, -6.0, 0.0]), order=2)
    with pytest.raises(ad.NotDifferentiableError, match="complex roots"):
        ad.gradient_r(lambda c: np.sum(np.roots(c)))(np.array([1.0, 0.0, 1.0]))
    with pytest.raises(ad.NotDifferentiableError, match="leading coefficient"):
        ad.gradient_r(lambda c: np.sum(np.roots(c)))(np.array([0.0, 1.0, -2.0]))


@pytest.mark.parametrize("kw", [{}, {"bins": 4}, {"bins": 4, "range": (-1.0, 1.0)},
                                {"bins": [-2.0, -0.5, 0.0, 3.0]}])
@pytest.mark.parametrize("density", [False, True])
def test_histogram_weights_and_edges(kw, density):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(20), rng.random(20)
    in_w = lambda v: np.histogram(x, weights=v, density=density, **kw)[0]
    assert np.array_equal(ad.jvp(in_w, w, w)[0], np.histogram(x, weights=w, density=density,
                                                                  **kw)[0])
    ad.check_grads(lambda v: np.sum(np.sin(in_w(v))), w, order=2)
    in_x = lambda v: np.histogram(v, weights=w, density=density, **kw)
    (h, e), _ = ad.jvp(in_x, x, x)
    want = np.histogram(x, weights=w, density=density, **kw)
    assert np.array_equal(h, want[0]) and np.array_equal(e, want[1])
    ad.check_grads(lambda v: np.sum(np.sin(in_x(v)[1])) + np.sum(in_x(v)[0]), x, order=2)


def test_histogram_exact_derivatives():
    # a bin's weight sum: 1 for the weights it holds; the edges: min, max and between
    g = ad.gradient_r(lambda v: np.histogram(np.array([0.1, 0.5, 0.9]), bins=2, range=(0, 1),
                                             weights=v)[0][0])(np.array([1.0, 2.0, 3.0]))
    assert g.tolist() == [1.0, 0.0, 0.0]
    J = ad.jacobian_r(lambda v: np.histogram_bin_edges(v, 3))(np.array([0.0, 1.0, 4.0]))
    np.testing.assert_allclose(J, [[1, 0, 0], [2 / 3, 0, 1 / 3], [1 / 3, 0, 2 / 3], [0, 0, 1]])
    counts, tangent = ad.jvp(lambda v: np.histogram(v, bins=3)[0], np.array([1.0, 1.0]),
                             np.ones(2))
    assert counts.tolist() == [0, 2, 0] and not np.any(tangent)
