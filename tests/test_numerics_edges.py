"""Digits and dtypes at the edges: expm1's derivative far to the left, expm's reverse rule under
a large sensitivity, np.diff's prepend/append, float32 quantiles."""
import mpmath
import numpy as np
import pytest

import dvlad as ad


@pytest.mark.parametrize("x", [-0.8, -30.0, -37.0, -40.0, -700.0])
def test_expm1s_derivative_keeps_its_digits_far_left(x):
    want = float(mpmath.exp(mpmath.mpf(x)))                  # (expm1)' = exp, not expm1 + 1
    assert ad.derivative(np.expm1)(x) == pytest.approx(want, rel=1e-15, abs=0.0)
    assert ad.gradient_r(lambda v: np.sum(np.expm1(v)))(np.array([x]))[0] == \
        pytest.approx(want, rel=1e-15, abs=0.0)
    # the stable log(1 − e⁻ᵗ) of survival models: d/dt = e⁻ᵗ / (1 − e⁻ᵗ)
    t = -x
    assert ad.derivative(lambda t: np.log(-np.expm1(-t)))(t) == pytest.approx(
        float(mpmath.exp(-t) / (1 - mpmath.exp(-t))), rel=1e-14)


def test_expms_reverse_rule_keeps_its_digits_under_a_large_sensitivity():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a = np.array([[27.0, 20, 5, -18], [0, 10, -19, 6], [6, 10, -18, -10], [-7, -18, 26, -7]])

    def f(m):
        return 1e6 * np.sum(scipy_linalg.expm(m) ** 2)

    mpmath.mp.dps = 60
    try:
        def f_mp(m):
            e = mpmath.expm(mpmath.matrix(m.tolist()))
            return 1e6 * sum(e[i, j] ** 2 for i in range(4) for j in range(4))
        h = mpmath.mpf("1e-25")
        up, down = (mpmath.matrix(a.tolist()) for _ in range(2))
        up[0, 3] += h
        down[0, 3] -= h
        want = float((f_mp(up) - f_mp(down)) / (2 * h))
    finally:
        mpmath.mp.dps = 15
    assert ad.gradient_r(f)(a)[0, 3] == pytest.approx(want, rel=1e-10)
    assert ad.gradient_f(f)(a)[0, 3] == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("extra", [{"prepend": 0.0}, {"append": 2.5}, {"prepend": [1.0, -1.0]},
                                   {"prepend": 0.5, "append": 3.0, "n": 2}])
def test_diffs_prepend_and_append(extra):
    x = np.array([1.0, 3.0, 2.0, 7.0, -1.0])
    extra = {k: np.asarray(v) if isinstance(v, list) else v for k, v in extra.items()}

    def f(v):
        return np.sum(np.diff(v, **extra) ** 2 * np.arange(1.0, 8.0)[:np.size(np.diff(x, **extra))])
    assert ad.value_and_gradient_r(f)(x)[0] == f(x)
    ad.check_grads(f, x, order=2)

    def g(v):               # the extra values carry the derivative too
        return np.sum(np.diff(v[1:], prepend=v[0]) ** 3)
    ad.check_grads(g, x, order=2)


@pytest.mark.parametrize("name", ["median", "percentile", "quantile"])
def test_float32_quantiles_keep_float32_derivatives(name):
    fn = {"median": np.median, "percentile": lambda a: np.percentile(a, 30.0),
          "quantile": lambda a: np.quantile(a, 0.7)}[name]
    x = np.array([1.0, 3.0, 2.0, 7.0, 4.5], np.float32)

    def f(a):
        return fn(a) * np.float32(2.0)
    assert ad.gradient_r(f)(x).dtype == np.float32
    assert ad.gradient_f(f)(x).dtype == np.float32
    assert np.allclose(ad.gradient_r(f)(x), ad.gradient_r(f)(x.astype(np.float64)), rtol=1e-6,
                       atol=0.0)


def test_dets_derivative_at_a_singular_matrix_is_the_adjugates_transpose():
    two = np.array([[1.0, 2.0], [2.0, 4.0]])                # det 0: no inverse
    assert np.linalg.det(two) == 0.0
    for grad in (ad.gradient_r, ad.gradient_f):
        assert np.array_equal(grad(np.linalg.det)(two), [[4.0, -2.0], [-2.0, 1.0]])
    # det = a00 a11 − a01 a10: its Hessian pairs a00 with a11 (+1) and a01 with a10 (−1)
    want = np.zeros((2, 2, 2, 2))
    want[0, 0, 1, 1] = want[1, 1, 0, 0] = 1.0
    want[0, 1, 1, 0] = want[1, 0, 0, 1] = -1.0
    assert np.array_equal(ad.hessian(np.linalg.det)(two), want)
    rank_one = np.outer([1.0, 2.0, -1.0], [3.0, 0.5, 2.0])   # rank 1: every cofactor is 0
    assert np.array_equal(ad.gradient_r(np.linalg.det)(rank_one), np.zeros((3, 3)))
    rank_two = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    assert np.linalg.det(rank_two) == 0.0
    cof = [[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(rank_two, i, 0), j, 1))
            for j in range(3)] for i in range(3)]
    assert np.allclose(ad.gradient_r(np.linalg.det)(rank_two), cof, rtol=1e-14, atol=1e-14)
    ad.check_grads(np.linalg.det, rank_two, order=2)
    stack = np.stack([two, np.array([[2.0, 1.0], [1.0, 3.0]])])     # one singular, one not
    assert np.allclose(ad.gradient_r(lambda a: np.sum(np.linalg.det(a)))(stack),
                       [[[4.0, -2.0], [-2.0, 1.0]], [[3.0, -1.0], [-1.0, 2.0]]], rtol=1e-15)


@pytest.mark.parametrize("name", ["reshape F", "method reshape F", "take wrap", "take clip"])
def test_reshape_in_column_order_and_take_with_wrapping_or_clipping(name):
    x = np.arange(1.0, 7.0) * 0.3
    w = np.arange(6.0).reshape(2, 3)
    f = {"reshape F": lambda v: np.sum(np.reshape(v, (2, 3), order="F") * w),
         "method reshape F": lambda v: np.sum(v.reshape((3, -1), order="F") ** 2 * w.T),
         "take wrap": lambda v: np.sum(np.take(v, [0, 7, -9, 5], mode="wrap") ** 2
                                       * np.arange(4.0)),
         "take clip": lambda v: np.sum(np.take(v.reshape(2, 3), [5, -1], axis=1,
                                               mode="clip") ** 3)}[name]
    assert ad.value_and_gradient_r(f)(x)[0] == pytest.approx(f(x.copy()), rel=1e-15)
    ad.check_grads(f, x, order=2)
