"""np.vectorize(f)(x) with dvlad numbers (dvlad/arrays/vectorized.py): f runs element by
element on scalar dvlad numbers and the outputs are array-valued numbers, in every mode."""
import math

import numpy as np
import pytest

import dvlad as ad

X = np.array([0.5, 1.5, 2.0])


def branchy(a):
    return a * a if a > 1.0 else ad.sin(a)


def test_a_scalar_function_with_a_branch_differentiates_element_by_element():
    v = np.vectorize(branchy)
    want = np.array([math.cos(0.5), 3.0, 4.0])
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.sum(v(x)))(X), want, rtol=1e-15)
    np.testing.assert_allclose(ad.gradient_f(lambda x: np.sum(v(x)))(X), want, rtol=1e-15)
    np.testing.assert_allclose(ad.jacobian_f(v)(X), np.diag(want), rtol=1e-15)
    np.testing.assert_allclose(ad.jacobian_r(v)(X), np.diag(want), rtol=1e-15)
    np.testing.assert_array_equal(v(X), [math.sin(0.5), 2.25, 4.0])     # numpy's own call


def test_order_two_otypes_broadcasting_and_several_outputs():
    ad.check_grads(lambda x: np.sum(np.vectorize(lambda a: ad.exp(a) * a)(x) ** 2), X,
                   order=2)
    scaled = np.vectorize(lambda a, b: a * b + 1.0, otypes=[float])   # a float otype
    np.testing.assert_allclose(ad.jacobian_f(lambda x: scaled(x, 2.0))(X), 2.0 * np.eye(3))
    grid = np.vectorize(lambda a, b: a * b)
    assert ad.derivative(lambda t: np.sum(grid(np.array([[1.0], [2.0]]), X * t)))(1.0) == \
        pytest.approx(3.0 * np.sum(X))
    pair = np.vectorize(lambda a: (2.0 * a, a * a))
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.sum(pair(x)[0] + pair(x)[1]))(X),
                               2.0 + 2.0 * X)
    assert ad.derivative(lambda t: np.vectorize(lambda a: a ** 3)(t))(2.0) == 12.0
    # the hessian of Σ x³ element by element: diag(6x), forward over reverse
    np.testing.assert_allclose(ad.hessian(lambda x: np.sum(np.vectorize(lambda a: a ** 3)(x)))(X),
                               np.diag(6.0 * X))


def test_constant_outputs_and_excluded_arguments():
    one = np.vectorize(lambda a: 1.0)
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.sum(one(x) * x))(X), np.ones(3))
    power = np.vectorize(lambda a, n: a ** n, excluded={1})
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.sum(power(x, 2)))(X), 2.0 * X)


def test_a_signature_with_dvlad_numbers_raises_by_name():
    inner = np.vectorize(lambda a, b: np.dot(a, b), signature="(n),(n)->()")
    with pytest.raises(ad.NotDifferentiableError, match="signature"):
        ad.gradient_r(lambda x: inner(x, X))(X)
    assert inner(X, X) == pytest.approx(np.dot(X, X))


def test_a_dvlad_number_reaching_f_through_a_closure_or_an_excluded_argument():
    # f returns plain 0.0 for the first element, then dvlad numbers; and with otypes=[float]
    grid = np.arange(3.0)
    assert ad.derivative(lambda a: np.vectorize(lambda t: a * t if t > 0 else 0.0)(grid))(
        2.0).tolist() == [0.0, 1.0, 2.0]
    assert ad.gradient_r(lambda a: np.sum(np.vectorize(lambda t: a * t, otypes=[float])(grid))
                         )(2.0) == 3.0
    scaled = np.vectorize(lambda t, s: s * t, excluded={1})
    assert ad.derivative(lambda a: np.sum(scaled(grid, a)))(2.0) == 3.0


def test_an_integer_otype_truncates_as_numpy_with_derivative_zero():
    f = np.vectorize(lambda t: 2.5 * t, otypes=[int])
    value, tangent = ad.jvp(f, np.arange(3.0), np.ones(3))
    assert value.tolist() == f(np.arange(3.0)).tolist() == [0, 2, 5]
    assert not np.any(tangent)
