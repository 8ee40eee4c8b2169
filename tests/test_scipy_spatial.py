"""scipy.spatial.distance's cdist, pdist, squareform, cosine and correlation on dvlad numbers
(dvlad/operators/scipy_spatial.py): scipy's values, derivatives to order 2 in both modes."""
import numpy as np
import pytest

import dvlad as ad

ssd = pytest.importorskip("scipy.spatial.distance")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3))
B = RNG.standard_normal((5, 3))
M = RNG.standard_normal((3, 3))
W = RNG.random(3) + 0.1
METRICS = [("euclidean", {}), ("sqeuclidean", {}), ("cityblock", {}), ("minkowski", {"p": 3}),
           ("chebyshev", {}), ("seuclidean", {"V": RNG.random(3) + 0.5}),
           ("mahalanobis", {"VI": M @ M.T + np.eye(3)}), ("cosine", {}), ("correlation", {}),
           ("braycurtis", {}), ("canberra", {}), ("euclidean", {"w": W}),
           ("minkowski", {"p": 1.5, "w": W})]


@pytest.mark.parametrize("metric, kw", METRICS, ids=[f"{m}{sorted(k)}" for m, k in METRICS])
def test_cdist_and_pdist_values_and_derivatives(metric, kw):
    got = ad.jvp(lambda a: ssd.cdist(a, B, metric, **kw), A, A)[0]        # dvlad's version
    np.testing.assert_allclose(got, ssd.cdist(A, B, metric, **kw), rtol=1e-13, atol=1e-15)
    got = ad.jvp(lambda a: ssd.pdist(a, metric, **kw), A, A)[0]
    np.testing.assert_allclose(got, ssd.pdist(A, metric, **kw), rtol=1e-13, atol=1e-15)
    ad.check_grads(lambda a: np.sum(np.sin(ssd.cdist(a, B, metric, **kw))), A, order=2)
    ad.check_grads(lambda a: np.sum(np.sin(ssd.pdist(a, metric, **kw))), A, order=2)


def test_exact_gradient_of_a_kernel_sum():
    # Σ_ij exp(−|a_i − b_j|²): ∂/∂a_i = Σ_j −2(a_i − b_j) k_ij
    k = np.exp(-ssd.cdist(A, B, "sqeuclidean"))
    want = -2.0 * (A * k.sum(1)[:, None] - k @ B)
    np.testing.assert_allclose(
        ad.gradient_r(lambda a: np.sum(np.exp(-ssd.cdist(a, B, "sqeuclidean"))))(A), want,
        rtol=1e-13)
    # pdist never meets a point's zero distance to itself: the gradient is finite
    g = ad.gradient_r(lambda a: np.sum(ssd.pdist(a)))(A)
    assert np.all(np.isfinite(g))


def test_squareform_a_callable_metric_and_single_pairs():
    got = ad.jvp(lambda a: ssd.squareform(ssd.pdist(a)), A, A)[0]
    np.testing.assert_allclose(got, ssd.squareform(ssd.pdist(A)), rtol=1e-14)
    ad.check_grads(lambda a: np.sum(np.exp(-ssd.squareform(ssd.pdist(a, "sqeuclidean")))), A,
                   order=2)
    ad.check_grads(lambda a: np.sum(ssd.squareform(ssd.squareform(ssd.pdist(a))) ** 2), A,
                   order=2)
    norm = lambda u, v: np.sqrt(np.sum((u - v) ** 2))
    np.testing.assert_allclose(ad.gradient_r(lambda a: np.sum(ssd.cdist(a, B, norm)))(A),
                               ad.gradient_r(lambda a: np.sum(ssd.cdist(a, B)))(A), rtol=1e-13)
    for name in ("cosine", "correlation", "euclidean", "cityblock"):
        fn = getattr(ssd, name)
        assert ad.jvp(lambda u: fn(u, B[0]), A[0], A[0])[0] == pytest.approx(fn(A[0], B[0]))
        ad.check_grads(lambda u: fn(u, B[0]), A[0], order=2)


def test_metrics_without_a_derivative_raise_by_name():
    with pytest.raises(ad.NotDifferentiableError, match="hamming"):
        ad.gradient_r(lambda a: np.sum(ssd.cdist(a, B, "hamming")))(A)
    with pytest.raises(ValueError, match="same number of columns"):
        ad.gradient_r(lambda a: np.sum(ssd.cdist(a, B[:, :2])))(A)


WEIGHTED = [(m, {"w": np.array([1.0, 0.0, 2.0])}) for m in (
    "cosine", "correlation", "braycurtis", "canberra", "chebyshev", "euclidean", "cityblock")] + [
    ("minkowski", {"p": np.inf}), ("minkowski", {"p": np.inf, "w": np.array([1.0, 0.0, 2.0])})]


@pytest.mark.parametrize("metric, kw", WEIGHTED, ids=[f"{m}{sorted(k)}{k.get('p', '')}"
                                                      for m, k in WEIGHTED])
def test_weights_and_an_infinite_p_as_scipy(metric, kw):
    got = ad.jvp(lambda a: ssd.cdist(a, B, metric, **kw), A, A)[0]
    np.testing.assert_allclose(got, ssd.cdist(A, B, metric, **kw), rtol=1e-13, atol=1e-15)
    got = ad.jvp(lambda a: ssd.pdist(a, metric, **kw), A, A)[0]
    np.testing.assert_allclose(got, ssd.pdist(A, metric, **kw), rtol=1e-13, atol=1e-15)
    ad.check_grads(lambda a: np.sum(np.sin(ssd.cdist(a, B, metric, **kw))), A, order=2)


def test_out_is_refused_and_squareform_takes_an_array_of_dvlad_numbers():
    with pytest.raises(ad.NotDifferentiableError, match="out="):
        ad.gradient_r(lambda a: np.sum(ssd.cdist(a, B, out=np.zeros((4, 5)))))(A)
    assert ad.derivative(lambda t: np.sum(ssd.squareform(np.array([[0.0, t], [t, 0.0]]))))(
        0.7) == 1.0
    w = np.array([1.0, 0.0, 2.0])
    for fn in (ssd.cosine, ssd.correlation):
        assert ad.jvp(lambda u: fn(u, B[0], w=w), A[0], A[0])[0] == \
            pytest.approx(fn(A[0], B[0], w=w), rel=1e-13)
