"""np.asarray(x)'s elements start pending (dvlad.arrays.elements): read or not, early or late,
they give what elements built at once give, in every mode and nesting."""
import copy
import pickle

import numpy as np
import pytest
import scipy.optimize as so

import dvlad as ad
from dvlad.arrays import objects
from dvlad.arrays.elements import PendingBundle, PendingCell

X = np.array([0.3, -0.7, 1.1, 0.5])
V = np.array([1.0, 0.5, -2.0, 0.25])


def _by_elements(x):
    a = np.asarray(x)           # numpy's plain view: indexing hands out the elements themselves
    return a[0] * a[1] + np.sin(a[2]) + ad.exp(a[3]) * a[0] + sum(a[1:3]) ** 2


def _by_hand(x):
    return x[0] * x[1] + np.sin(x[2]) + np.exp(x[3]) * x[0] + (x[1] + x[2]) ** 2


def _hessian_by_hand(x):
    H = np.zeros((4, 4))
    H[0, 1] = H[1, 0] = 1.0
    H[0, 3] = H[3, 0] = np.exp(x[3])
    H[3, 3] = np.exp(x[3]) * x[0]
    H[2, 2] = -np.sin(x[2]) + 2.0
    H[1, 1] = 2.0
    H[1, 2] = H[2, 1] = 2.0
    return H


def _gradient_by_hand(x):
    s = 2 * (x[1] + x[2])
    return np.array([x[1] + np.exp(x[3]), x[0] + s, np.cos(x[2]) + s, np.exp(x[3]) * x[0]])


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f])
def test_elements_read_one_by_one_give_the_gradient(grad):
    np.testing.assert_allclose(grad(_by_elements)(X), _gradient_by_hand(X), rtol=1e-13)


@pytest.mark.parametrize("outer, inner", [(ad.jacobian_f, ad.gradient_r),
                                          (ad.jacobian_r, ad.gradient_r),
                                          (ad.jacobian_f, ad.gradient_f),
                                          (ad.jacobian_r, ad.gradient_f)])
def test_elements_in_the_four_nestings(outer, inner):
    np.testing.assert_allclose(outer(inner(_by_elements))(X), _hessian_by_hand(X), rtol=1e-13,
                               atol=1e-15)


def test_hvp_and_hessian_through_elements():
    np.testing.assert_allclose(ad.hvp(_by_elements, X, V), _hessian_by_hand(X) @ V, rtol=1e-13)
    np.testing.assert_allclose(ad.hessian(_by_elements)(X), _hessian_by_hand(X), rtol=1e-13)
    ad.check_grads(_by_elements, X, order=2)


def test_an_element_is_the_functions_value():
    f = lambda x: np.asarray(x)[2]                  # returned unread
    e2 = np.eye(4)[2]
    np.testing.assert_array_equal(ad.gradient_r(f)(X), e2)
    np.testing.assert_array_equal(ad.gradient_f(f)(X), e2)
    assert ad.jvp(f, X, V)[1] == V[2]
    np.testing.assert_array_equal(ad.hessian(lambda x: f(x) * f(x))(X), 2 * np.outer(e2, e2))


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_hvp_of_scipy_rosen_matches_scipy(scale):
    x = np.linspace(-0.5, 1.3, 9) * scale
    v = np.cos(np.arange(9.0))
    np.testing.assert_allclose(ad.hvp(so.rosen, x, v), so.rosen_hess_prod(x, v), rtol=1e-12)
    np.testing.assert_allclose(ad.gradient_r(so.rosen)(x), so.rosen_der(x), rtol=1e-12)
    np.testing.assert_allclose(ad.hessian(so.rosen)(x), so.rosen_hess(x), rtol=1e-12)


def test_unread_elements_are_pending_and_repack_to_x_as_it_was():
    seen = {}

    def f(x):
        a = np.asarray(x)
        seen["kinds"] = {type(e) for e in a.tolist()}
        r = objects.repack(a)           # unread: x's frozen copy, one cell at x's tape entry
        seen["whole"] = type(r) is type(x) and r.tag is x.tag and \
            getattr(r, "index", None) == getattr(x, "index", None) and \
            np.array_equal(r.primal, x.primal) and r.primal is not x.primal
        seen["still"] = {type(e) for e in a.tolist()}
        return np.sum(r * a)

    np.testing.assert_allclose(ad.gradient_r(f)(X), 2 * X)
    if ad.REFERENCE:            # the reference path builds every element at once
        assert seen["kinds"] == {ad.TapeCell} and not seen["whole"]
    else:
        assert seen["kinds"] == seen["still"] == {PendingCell} and seen["whole"]
    ad.derivative(lambda t: f(X + t * V))(0.0)
    assert seen["kinds"] == ({ad.Bundle} if ad.REFERENCE else {PendingBundle})


def test_a_read_element_is_the_same_object_of_the_settled_class():
    out = {}

    def f(x):
        e = np.asarray(x)[1]
        out["before"] = type(e)
        out["tag"] = e.tag is x.tag
        out["after"] = type(e)
        return e * 3.0

    np.testing.assert_array_equal(ad.gradient_r(f)(X), [0.0, 3.0, 0.0, 0.0])
    assert out["tag"] and out["after"] is ad.TapeCell
    assert out["before"] is (ad.TapeCell if ad.REFERENCE else PendingCell)


def test_elements_taken_before_an_assignment_keep_the_old_value():
    w = np.array([1.0, 2.0, 3.0])

    def f(w):
        h = w * w
        e = np.asarray(h)[0]            # h[0] as it is now: w0²
        h[0] = 10.0 * w[1]
        return e + h[0] + np.asarray(h)[0]      # w0² + 20 w1

    np.testing.assert_allclose(ad.gradient_r(f)(w), [2.0, 20.0, 0.0])
    np.testing.assert_allclose(ad.gradient_f(f)(w), [2.0, 20.0, 0.0])
    np.testing.assert_allclose(f(w), 1.0 + 40.0)


def test_an_element_read_after_its_call_returned_is_a_constant():
    kept = []

    def f(x):
        kept.append(np.asarray(x)[3])           # leaks, unread
        return np.sum(x)

    np.testing.assert_array_equal(ad.gradient_r(f)(X), np.ones(4))
    assert kept[0] * 2.0 == 2.0 * X[3]
    assert ad.primal(kept[0]) == X[3]
    kept.clear()
    ad.derivative(lambda t: f(X * t))(1.0)
    assert kept[0] + 1.0 == X[3] + 1.0


def test_elements_first_read_inside_a_fixed_point():
    # the iteration suspends the outer tags; an element first read there must still carry them
    def f(x):
        a = np.asarray(x)
        z = ad.fixed_point(lambda z: 0.5 * z + a[0] * a[1], 0.0)     # z* = 2 a0 a1
        return z + a[2]

    expected = [2 * X[1], 2 * X[0], 1.0, 0.0]
    np.testing.assert_allclose(ad.gradient_r(f)(X), expected, rtol=1e-12)
    np.testing.assert_allclose(ad.gradient_f(f)(X), expected, rtol=1e-12)
    H = ad.hessian(f)(X)
    assert abs(H[0, 1] - 2.0) < 1e-10 and abs(H[1, 0] - 2.0) < 1e-10


def test_elements_into_a_new_array_and_lists():
    def f(x):
        a = np.asarray(x)
        b = np.array([a[0] * a[1], a[2], a[3] ** 2])        # an object array of mixed elements
        return np.sum(b ** 2) + sum(a.tolist())

    x = X
    g = [2 * x[0] * x[1] ** 2 + 1, 2 * x[1] * x[0] ** 2 + 1, 2 * x[2] + 1, 4 * x[3] ** 3 + 1]
    np.testing.assert_allclose(ad.gradient_r(f)(x), g, rtol=1e-13)
    np.testing.assert_allclose(ad.gradient_f(f)(x), g, rtol=1e-13)


def test_a_part_of_the_elements_repacks_by_its_elements():
    def f(x):
        a = np.asarray(x)
        return np.sum(a[::2] * np.arange(1.0, 3.0)) + np.sum(a.reshape(2, 2)[1])

    np.testing.assert_array_equal(ad.gradient_r(f)(X), [1.0, 0.0, 3.0, 1.0])
    np.testing.assert_array_equal(ad.gradient_f(f)(X), [1.0, 0.0, 3.0, 1.0])


def test_copies_pickles_and_reprs_of_an_element_settle_it():
    out = {}

    def f(x):
        a = np.asarray(x)
        out["repr"] = repr(a[0])
        out["copy"] = copy.copy(a[1]) is a[1]      # (a number is immutable: itself)
        with pytest.raises(Exception) as caught:       # what pickling a live number does
            pickle.dumps(np.asarray(x)[2])
        out["pickle"] = type(caught.value)
        return np.sum(x)

    def eager(x):
        with pytest.raises(Exception) as caught:
            pickle.dumps(x[2])
        out["eager pickle"] = type(caught.value)
        return np.sum(x)

    ad.gradient_r(f)(X)
    ad.gradient_r(eager)(X)
    assert out["repr"].startswith("TapeCell(")
    assert out["copy"]
    assert out["pickle"] is out["eager pickle"]


def test_two_dimensional_elements_and_a_matrix_product():
    A = np.array([[1.0, 2.0], [3.0, 4.0]])

    def f(m):
        a = np.asarray(m)
        return a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]           # det
    np.testing.assert_allclose(ad.gradient_r(f)(A), [[4.0, -3.0], [-2.0, 1.0]])
    np.testing.assert_allclose(ad.hessian(f)(A).reshape(4, 4),
                               [[0, 0, 0, 1], [0, 0, -1, 0], [0, -1, 0, 0], [1, 0, 0, 0]])


def test_elements_keep_the_values_of_when_np_asarray_was_called():
    # a caller's input array updated in place later must not reach elements taken before
    history = []

    def f(x):
        a = np.asarray(x)
        history.append((a[0], a))          # an element and the whole array, both unread
        return np.sum(x ** 2)

    x = np.array([1.0, 2.0, 3.0])
    for _ in range(3):
        g = ad.gradient_r(f)(x)
        x -= 0.25 * g                       # in place: x is the primal of the next call's cell
    assert [float(ad.primal(e)) for e, _ in history] == [1.0, 0.5, 0.25]
    np.testing.assert_array_equal(ad.primal(objects.repack(history[0][1])), [1.0, 2.0, 3.0])

    X = np.array([1.0, 2.0, 3.0])

    def g(x):
        e = np.asarray(x)[0]
        X[0] = 100.0                        # f writes into its own input array
        return e * 1.0

    value, grad = ad.value_and_gradient_r(g)(X)
    assert value == 1.0 and list(grad) == [1.0, 0.0, 0.0]


def test_an_element_taken_before_an_assignment_into_an_outer_array():
    X4 = np.array([0.3, -0.7, 1.1, 0.5])

    def f(x):
        h = x * 1.0

        def g(u):                           # u: a bundle whose primal is h itself
            e = np.asarray(u)[0]            # h[0] = x0 now
            h[0] = 10.0 * x[1]              # changes h's slots in place
            return e
        return ad.jvp(g, h, np.ones(4))[0]

    np.testing.assert_array_equal(ad.gradient_r(f)(X4), [1.0, 0.0, 0.0, 0.0])
    assert f(X4) == X4[0]


def test_threads_reading_one_array_of_elements():
    import sys
    import threading
    x = np.linspace(0.1, 1.0, 64)

    def f(x):
        a = np.asarray(x)
        out = [None, None]

        def part(i):
            out[i] = sum(a[k] * a[k] for k in range(64))
        ts = [threading.Thread(target=part, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return out[0] + out[1]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(10):
            np.testing.assert_allclose(ad.gradient_r(f)(x), 4 * x, rtol=1e-14)
            np.testing.assert_allclose(ad.gradient_f(f)(x), 4 * x, rtol=1e-14)
    finally:
        sys.setswitchinterval(interval)
