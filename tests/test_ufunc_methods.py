"""A ufunc's outer, reduce, accumulate and at on dvlad numbers (dvlad/arrays/ufunc_methods.py):
values as numpy's, derivatives checked by check_grads to order 2."""
import numpy as np
import pytest

import dvlad as ad
from dvlad import AssignmentError, NotDifferentiableError

X = np.array([0.3, -1.2, 2.0, 0.7])
Y = np.array([1.0, 2.0, -0.5])
W12, W16 = np.arange(12.0).reshape(4, 3), np.arange(16.0).reshape(4, 4)

CASES = {
    "subtract.outer": lambda v: np.sum(np.subtract.outer(v, Y) ** 2 * W12),
    "multiply.outer": lambda v: np.sum(np.multiply.outer(v, v) * W16),
    "logaddexp.reduce": lambda v: np.logaddexp.reduce(v),
    "maximum.reduce": lambda v: np.maximum.reduce(v * np.array([1.0, 2.0, 0.1, 1.0])),
    "multiply.reduce": lambda v: np.multiply.reduce(v),
    "add.reduce axis=1": lambda v: np.sum(np.add.reduce(np.outer(v, v), axis=1) ** 2),
    "hypot.reduce keepdims": lambda v: np.sum(np.hypot.reduce(np.outer(v, Y), axis=0,
                                                              keepdims=True) * Y),
    "logaddexp.reduce axes": lambda v: np.logaddexp.reduce(np.outer(v, Y), axis=(0, 1)),
    "logaddexp.reduce None": lambda v: np.logaddexp.reduce(np.outer(v, Y), axis=None),
    "multiply.accumulate": lambda v: np.sum(np.multiply.accumulate(v) * np.arange(4.0)),
    "add.accumulate": lambda v: np.sum(np.add.accumulate(v) ** 2),
    "maximum.accumulate": lambda v: np.sum(np.maximum.accumulate(v) * np.arange(1.0, 5.0)),
    "logaddexp.accumulate axis=1": lambda v: np.sum(
        np.logaddexp.accumulate(np.outer(v, Y), axis=1) * W12),
}


@pytest.mark.parametrize("name", CASES)
def test_ufunc_methods_agree_with_numpy_and_differentiate(name):
    f = CASES[name]
    assert ad.value_and_gradient_r(f)(X)[0] == pytest.approx(f(X.copy()), rel=1e-15)
    ad.check_grads(f, X, order=2)


def test_logaddexp_reduce_is_a_logsumexp():
    g = ad.gradient_r(np.logaddexp.reduce)(X)
    assert np.allclose(g, np.exp(X) / np.sum(np.exp(X)), rtol=1e-14, atol=0.0)


def test_add_at_adds_at_repeated_indices_in_place():
    def f(v):
        h = v * 2.0
        alias = h
        np.add.at(h, np.array([0, 0, 2]), v[:3] ** 2)     # h[0] gets v0² and v1²
        np.subtract.at(h, [1], 0.5)
        return np.sum(alias ** 2)
    h = X * 2.0
    h[0] += X[0] ** 2 + X[1] ** 2
    h[2] += X[2] ** 2
    h[1] -= 0.5
    assert ad.value_and_gradient_r(f)(X)[0] == pytest.approx(np.sum(h ** 2), rel=1e-15)
    ad.check_grads(f, X, order=2)


def test_what_would_change_the_value_or_drop_a_derivative_raises_by_name():
    with pytest.raises(NotDifferentiableError, match="initial"):
        ad.gradient_r(lambda v: np.logaddexp.reduce(v, initial=0.0))(X)
    with pytest.raises(NotDifferentiableError, match="where"):
        ad.gradient_r(lambda v: np.multiply.reduce(v, where=v > 0))(X)
    with pytest.raises(AssignmentError, match="plain array"):
        ad.gradient_r(lambda v: np.add.at(np.zeros(4), [0], v[0]))(X)
    with pytest.raises(NotDifferentiableError, match="multiply.at"):
        ad.gradient_r(lambda v: np.multiply.at(v * 1.0, [0], 2.0))(X)


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
@pytest.mark.parametrize("idx", [[0, 2], [0, 3, 1], [1], [0, 1, 2, 3, 4], [4, 0]])
def test_reduceat_segments_as_numpy(ufunc, idx):
    x = np.array([0.3, -1.2, 2.0, 0.7, 1.1])
    got = ad.jvp(lambda v: ufunc.reduceat(v, idx), x, x)[0]          # dvlad's version
    np.testing.assert_allclose(got, ufunc.reduceat(x, idx), rtol=1e-15)
    ad.check_grads(lambda v: np.sum(np.sin(ufunc.reduceat(v, idx))), x, order=2)


def test_reduceat_along_an_axis_its_gradient_and_numpys_errors():
    X = np.array([[0.3, -1.2, 2.0], [0.7, 1.1, -0.4]])
    np.testing.assert_allclose(ad.jvp(lambda v: np.add.reduceat(v, [0, 2], axis=1), X, X)[0],
                                  np.add.reduceat(X, [0, 2], axis=1))
    # segment sums: each element's gradient is its segment's weight
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(
        ad.gradient_r(lambda v: np.sum(w * np.add.reduceat(v, [0, 2], axis=1)))(X),
        [[1.0, 1.0, 2.0], [3.0, 3.0, 4.0]])
    with pytest.raises(IndexError):
        ad.gradient_r(lambda v: np.sum(np.add.reduceat(v, [0, 7], axis=1)))(X)
    with pytest.raises(NotDifferentiableError, match="reduceat"):
        ad.gradient_r(lambda v: np.sum(np.logaddexp.reduceat(v, [0, 2], axis=1)))(X)


def test_the_clip_method_takes_numpys_keywords():
    x = np.array([0.3, -1.2, 2.0, 0.7])
    f = lambda v: np.sum(v.clip(min=0.0) ** 2 + v.clip(-1.0, 1.0) + v.clip(max=0.5))
    np.testing.assert_allclose(ad.gradient_r(f)(x), [2.6, 1.0, 4.0, 2.4])
    assert np.sum(x.clip(min=0.0) ** 2 + x.clip(-1.0, 1.0) + x.clip(max=0.5)) == \
        pytest.approx(ad.jvp(f, x, x)[0])


def test_out_of_reduceat_is_refused_by_name_and_a_plain_clip_takes_tracked_bounds():
    x = np.array([0.3, -1.2, 2.0])
    with pytest.raises(NotDifferentiableError, match="out"):
        ad.gradient_r(lambda v: np.sum(np.add.reduceat(v, [0, 2], out=np.zeros(2))))(x)
    assert ad.derivative(lambda a: np.sum(x.clip(min=a)))(0.5) == 2.0      # two lanes below
    assert ad.gradient_r(lambda a: np.sum(x.clip(-1.0, a)))(0.5) == 1.0    # one lane above
