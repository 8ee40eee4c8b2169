"""numpy's arrays of AD numbers (issue #17): np.array([...]) of AD numbers, np.asarray(x),
lists reaching reductions, object arrays meeting AD operations, Jacobians of object-array
results, and assignment into array-valued AD numbers."""
import numpy as np
import pytest
import scipy.optimize as so

import dvlad as ad
from dvlad.arrays.objects import Tracked

X = np.array([1.0, 2.0])
MODES = ("fr", "rf", "rr", "ff")


def built(x):
    return np.sum(np.array([x[0] * x[1], x[0]]) ** 2)


def test_an_array_built_from_elements_in_every_mode():
    # f = (x0 x1)² + x0²: ∇f = (2 x0 x1² + 2 x0, 2 x0² x1); H = [[2x1² + 2, 4x0x1], [4x0x1, 2x0²]]
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_array_equal(grad(built)(X), [10.0, 4.0])
    np.testing.assert_array_equal(ad.hessian(built)(X), [[10.0, 8.0], [8.0, 2.0]])
    for m in MODES:
        np.testing.assert_array_equal(ad.hvp(built, X, np.array([1.0, 0.0]), m), [10.0, 8.0])
    ad.check_grads(built, X, order=2)


def test_an_array_built_from_elements_is_one_array_number_at_its_next_operation():
    seen = []

    def f(x):
        a = np.array([x[0] * x[1], x[0]])
        assert a.dtype == object                # numpy's own: an object array
        b = a * x                               # meets an AD operation: repacked
        seen.append(type(b))
        return np.sum(b)
    # x0² x1 + x0 x1: ∇ = (2 x0 x1 + x1, x0² + x0)
    np.testing.assert_array_equal(ad.gradient_r(f)(X), [6.0, 2.0])
    assert seen[0] is not np.ndarray


@pytest.mark.parametrize("convert", [np.asarray, np.asanyarray])
def test_np_asarray_of_a_tracked_array(convert):
    def f(x):
        a = convert(x)
        assert a.dtype == object
        # asanyarray keeps the subclass, which remembers x; asarray makes it a plain ndarray
        # (of x's elements)
        assert isinstance(a, Tracked) == (convert is np.asanyarray)
        assert convert is np.asarray or a.number is x
        assert a.shape == (2,) and len(a) == 2
        return np.sum(a * a) + a[0] * a[1]
    # ∇(x0² + x1² + x0 x1) = (2x0 + x1, 2x1 + x0)
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_array_equal(grad(f)(X), [4.0, 5.0])
    np.testing.assert_array_equal(ad.hessian(f)(X), [[2.0, 1.0], [1.0, 2.0]])


def test_a_tracked_array_walked_element_by_element():
    def f(x):
        a = np.asarray(x)
        return sum(e * e for e in np.ndarray.__iter__(a)) + a.view(np.ndarray)[1]
    np.testing.assert_array_equal(ad.gradient_r(f)(X), [2.0, 5.0])


@pytest.mark.parametrize("m", MODES)
def test_elements_of_a_matrix_walked_one_by_one_in_every_mode(m):
    # np.asarray(x) builds one element per entry and layer (bundle, tape cell, bundle of a cell)
    # without a lift per element: each must be x[i, j] in every mode
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]])
    c = np.arange(1.0, 7.0).reshape(2, 3)
    v = np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 1.0]])

    def f(x):
        a = np.asarray(x).view(np.ndarray)      # the elements themselves, no Tracked
        return sum(ck * e ** 3 for ck, e in zip(c.flat, a.flat))
    # ∇f = 3 c x², H = diag(6 c x)
    np.testing.assert_array_equal(ad.hvp(f, x, v, m), 6 * c * x * v)
    np.testing.assert_array_equal(ad.gradient_r(f)(x), 3 * c * x ** 2)
    np.testing.assert_array_equal(ad.gradient_f(f)(x), 3 * c * x ** 2)
    assert ad.jvp(f, x, v)[1] == np.sum(3 * c * x ** 2 * v)


def test_lists_reach_reductions():
    x = np.array([0.5, 1.5, 4.0])
    # mean over six entries, each x_i twice: 2/6 each
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.mean([x, x + 2]))(x), [1 / 3] * 3,
                               rtol=1e-15)
    # std of two numbers |x0 − x1|/2; var of three (population)
    np.testing.assert_array_equal(ad.gradient_r(lambda x: np.std([x[0], x[1]]))(x),
                                  [-0.5, 0.5, 0.0])
    m = np.mean(x)
    np.testing.assert_allclose(ad.gradient_f(lambda x: np.var([x[0], x[1], x[2]]))(x),
                               2 * (x - m) / 3, rtol=1e-14)
    assert ad.derivative(lambda t: np.mean([t, 3 * t]))(1.0) == 2.0


@pytest.mark.parametrize("m", MODES)
def test_scipy_rosen_converts_its_argument_and_differentiates(m):
    # rosen calls np.asanyarray and np.sum(..., dtype=x.dtype); scipy's hand derivatives are the oracle
    x = np.linspace(-0.7, 1.3, 7)
    v = np.cos(np.arange(7.0))
    np.testing.assert_allclose(ad.gradient_r(so.rosen)(x), so.rosen_der(x), rtol=1e-13)
    np.testing.assert_allclose(ad.hvp(so.rosen, x, v, m), so.rosen_hess_prod(x, v), rtol=1e-12)


def test_jacobians_of_an_object_array_result_are_ndarrays():
    f = lambda x: np.array([x[0] * x[1], x[1]])         # noqa: E731
    for jac in (ad.jacobian_f, ad.jacobian_r):
        J = jac(f)(X)
        assert type(J) is np.ndarray and J.shape == (2, 2)
        np.testing.assert_array_equal(J, [[2.0, 1.0], [0.0, 1.0]])


def test_no_confusion_between_elements_of_two_tags():
    # inner derivative d(x·y)/dy = x; the array [x·x, x] sums to x² + x: 2x + 1 at 2
    def f(x):
        return np.sum(np.array([x * ad.derivative(lambda y: x * y)(1.0), x]))
    assert ad.derivative(f)(2.0) == 5.0
    assert ad.gradient_r(f)(2.0) == 5.0


def test_float32_elements_keep_float32():
    x = X.astype(np.float32)
    g = ad.gradient_r(built)(x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, [10.0, 4.0])


# ---- assignment ---------------------------------------------------------------------------------

W = np.array([0.5, -1.0, 2.0])
A3 = np.array([[1.0, 0.5, -0.3], [-2.0, 0.1, 0.4], [0.3, -0.2, 1.0], [0.7, 0.7, -0.9]])


def relu_assigned(w):
    h = A3 @ w
    h[h < 0] = 0.0
    return np.sum(h * h)


def relu_functional(w):
    h = A3 @ w
    return np.sum(np.where(h < 0, 0.0, h) ** 2)


def slices_assigned(w):
    h = A3 @ w
    h[0] = w[1] * w[2]
    h[1:3] += w[:2]
    return np.sum(np.sin(h))


def slices_functional(w):
    h = A3 @ w
    h = np.concatenate([(w[1] * w[2])[None], h[1:3] + w[:2], h[3:]])
    return np.sum(np.sin(h))


@pytest.mark.parametrize("assigned, functional", [(relu_assigned, relu_functional),
                                                  (slices_assigned, slices_functional)],
                         ids=["mask", "slices"])
def test_assignment_into_a_tracked_array(assigned, functional):
    assert assigned(W) == functional(W)
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_allclose(grad(assigned)(W), grad(functional)(W), rtol=1e-15)
    np.testing.assert_allclose(ad.hessian(assigned)(W), ad.hessian(functional)(W), rtol=1e-14)
    for m in MODES:
        np.testing.assert_allclose(ad.hvp(assigned, W, W, m), ad.hvp(functional, W, W, m),
                                   rtol=1e-14)
    ad.check_grads(assigned, W, order=2)


def test_earlier_uses_keep_the_old_value():
    def f(w):
        h = w * 2.0
        before = h * 1.0
        h[0] = w[2] ** 2
        return np.sum(before) + 10 * h[0] + 100 * h[1]
    # Σ 2w + 10 w2² + 200 w1
    np.testing.assert_array_equal(ad.gradient_r(f)(W), [2.0, 202.0, 2.0 + 20 * W[2]])
    np.testing.assert_array_equal(ad.gradient_f(f)(W), [2.0, 202.0, 2.0 + 20 * W[2]])


def test_repeated_indices_take_the_last_value_as_numpy_does():
    def f(w):
        h = w * 1.0
        h[[0, 0]] = np.stack([w[1], w[2]])
        return h[0]
    assert f(W) == W[2]
    np.testing.assert_array_equal(ad.gradient_r(f)(W), [0.0, 0.0, 1.0])


def test_assignment_errors_are_named():
    def into_tracked(w):
        a = np.asanyarray(w)
        a[0] = 1.0
        return np.sum(a)
    with pytest.raises(ad.AssignmentError, match="read-only"):
        ad.gradient_r(into_tracked)(W)

    def into_asarray(w):            # numpy's own check (a plain ndarray view of a Tracked)
        a = np.asarray(w)
        a[0] = 1.0
        return np.sum(a)
    with pytest.raises(ValueError, match="read-only"):
        ad.gradient_r(into_asarray)(W)

    def into_a_copy(w):             # np.array(w) copies: a writeable array of w's elements
        a = np.array(w)
        a[0] = 1.0
        return np.sum(a * w)
    np.testing.assert_array_equal(ad.gradient_r(into_a_copy)(W), [1.0, 2 * W[1], 2 * W[2]])

    def into_a_view(w):
        h = w * 2.0
        v = h[1:]
        v[0] = 0.0
        return np.sum(h)
    with pytest.raises(ad.AssignmentError, match="shares its memory"):
        ad.gradient_r(into_a_view)(W)

    def newer_into_older(w):
        h = w * 2.0
        return ad.derivative(lambda t: (h.__setitem__(0, t), h[0])[1])(1.0)
    with pytest.raises(ad.AssignmentError, match="newer perturbation"):
        ad.gradient_r(newer_into_older)(W)

    with pytest.raises(ad.AssignmentError, match="np.full"):
        ad.gradient_r(lambda w: np.sum(np.full_like(np.zeros(3), w[0])))(W)


def test_a_dvlad_number_into_a_float_array_is_loud_and_says_how():
    def into_floats(w):
        r = np.zeros(2)
        r[0] = w[0] * w[1]
        return np.sum(r)
    with pytest.raises((ValueError, ad.PerturbedConversionError)) as info:
        ad.gradient_r(into_floats)(W)
    named = info.value if isinstance(info.value, ad.PerturbedConversionError) else \
        info.value.__cause__ or info.value.__context__
    assert isinstance(named, ad.PerturbedConversionError) and "np.array([...])" in str(named)

    def as_floats(w):
        return np.sum(np.asarray(w, dtype=float))
    with pytest.raises(ad.PerturbedConversionError, match="np.stack"):
        ad.gradient_r(as_floats)(W)


X2 = np.array([1.0, 10.0])


@pytest.mark.parametrize("form", ["x*O", "x+O", "O*x", "x-O", "x/O", "x**O"])
def test_a_tracked_array_with_an_object_array_operand_by_an_operator(form):
    # numpy's object array of the elements, on the right of an operator: one array number
    # (it was broadcast as one object, element by element: value and derivative wrong)
    def f(x):
        o = np.array([x[0], x[1]])
        return np.sum(eval(form, {"x": x, "O": o}))
    v = X2
    want = {"x*O": (101.0, [2.0, 20.0]), "x+O": (22.0, [2.0, 2.0]), "O*x": (101.0, [2.0, 20.0]),
            "x-O": (0.0, [0.0, 0.0]), "x/O": (2.0, [0.0, 0.0]),
            "x**O": (1.0 + 1e10, [1.0, 1e10 * (np.log(10.0) + 1.0)])}[form]
    for grad in (ad.value_and_gradient_r, lambda f: lambda x: (f(x), ad.gradient_f(f)(x))):
        value, g = grad(f)(v)
        np.testing.assert_allclose(value, want[0], rtol=1e-14)
        np.testing.assert_allclose(g, want[1], rtol=1e-14, atol=0)


def test_object_arrays_of_plain_numbers_are_numpys_arrays():
    value, g = ad.value_and_gradient_r(
        lambda x: np.sum(x * np.array([2.0, 3.0], dtype=object)))(X2)
    assert value == 32.0 and g.tolist() == [2.0, 3.0]


@pytest.mark.parametrize("fn", [
    lambda o, x: np.inner(o, x), lambda o, x: np.einsum("i,i", o, x),
    lambda o, x: np.tensordot(x, o, axes=1), lambda o, x: np.vdot(o, x),
    lambda o, x: np.dot(o, x), lambda o, x: np.sum(np.convolve(o, x)) - 2.0 * x[0] * x[1]])
def test_numpy_functions_take_the_derivative_through_an_object_operand(fn):
    # ∇ of x·x built as inner(np.array([x0, x1]), x) is 2x: the object operand's derivative
    # was dropped ([1, 10])
    for grad in (ad.gradient_r, ad.gradient_f):
        assert grad(lambda x: fn(np.array([x[0], x[1]]), x))(X2).tolist() == [2.0, 20.0]


def test_keywords_that_are_object_arrays_and_a_boxed_result():
    value, g = ad.value_and_gradient_r(
        lambda x: np.average(x, weights=np.array([x[0], x[1]])))(X2)
    assert value == 101.0 / 11.0            # Σx²/Σx
    np.testing.assert_allclose(g, (2 * X2 * 11.0 - 101.0) / 121.0, rtol=1e-15)
    assert ad.gradient_r(lambda x: np.array(np.sum(x ** 2)))(X2).tolist() == [2.0, 20.0]


def test_ndarray_methods_of_array_numbers():
    x = X2
    assert ad.gradient_r(lambda x: np.sum(x.copy() * x))(x).tolist() == [2.0, 20.0]
    assert ad.gradient_r(lambda x: x.var(ddof=1))(x).tolist() == [-9.0, 9.0]
    assert ad.gradient_r(lambda x: np.sum(x.cumsum()))(x).tolist() == [2.0, 1.0]
    assert ad.gradient_r(lambda x: x.item(1) * x.tolist()[0])(x).tolist() == [10.0, 1.0]
    assert ad.gradient_r(lambda x: x[x.argmax()] + x.std())(x).tolist() == [-0.5, 1.5]
    assert ad.gradient_r(lambda x: np.sum(x.astype(np.float64) * x.astype(int)))(x).tolist() \
        == [1.0, 10.0]

    def filled(x):
        y = x * 1.0
        y.fill(2.0)                 # every element a constant now
        return np.sum(y * x)

    def sorted_first(x):
        y = x[::-1] * 3.0
        y.sort()
        return y[0]
    for grad in (ad.gradient_r, ad.gradient_f):
        assert grad(filled)(x).tolist() == [2.0, 2.0]
        assert grad(sorted_first)(x).tolist() == [3.0, 0.0]
    with pytest.raises(ad.NotDifferentiableError, match="narrows"):
        ad.gradient_r(lambda x: np.sum(x.astype(np.float32)))(x)


def test_views_taken_before_an_assignment_show_it_as_numpys_do():
    # v = h[0:2] is numpy's view: after h[0] = 5·w₃ it holds [5w₃, w₁]; Σv² = 25w₃² + w₁²
    def f(w):
        h = w * 1.0
        v = h[0:2]
        t = h.reshape(2, 2).T           # a view of a view
        h[0] = 5.0 * w[3]
        return np.sum(v ** 2) + t[0, 0] * t[1, 0]
    w = np.array([1.0, 2.0, 3.0, 4.0])
    want_value = 25.0 * 16.0 + 4.0 + 20.0 * 2.0        # t[0, 0] = h[0], t[1, 0] = h[1]
    want = np.array([0.0, 4.0 + 20.0, 0.0, 200.0 + 10.0])
    value, g = ad.value_and_gradient_r(f)(w)
    assert value == want_value and g.tolist() == want.tolist()
    assert ad.gradient_f(f)(w).tolist() == want.tolist()
    np.testing.assert_allclose(ad.hessian(f)(w), np.diag([0.0, 2.0, 0.0, 50.0]) +
                               5.0 * (np.eye(4)[[1]].T @ np.eye(4)[[3]] +
                                       np.eye(4)[[3]].T @ np.eye(4)[[1]]), atol=0)

    def recursive(w):               # the temporary views of h[i - 1]: still linear, and right
        h = np.zeros_like(w) + w
        for i in range(1, len(w)):
            h[i] = h[i - 1] * 0.5 + w[i]
        return h[-1]
    g = ad.gradient_r(recursive)(np.ones(6))
    assert g.tolist() == [0.5 ** k for k in range(5, -1, -1)]


def test_assignment_into_the_input_itself_in_every_mode():
    # x[0] = 5 inside f: f(x) = 25 + x₁² + x₂², so ∇ = [0, 2x₁, 2x₂]; reverse mode read the
    # leaf's sensitivity through the assigned cell ([0, 0, 0])
    def leaf(x):
        x[0] = 5.0
        return np.sum(x ** 2)
    x = np.array([2.0, 3.0, 1.0])
    for grad in (ad.gradient_r, ad.gradient_f, ad.jacobian_r):
        assert grad(leaf)(x).tolist() == [0.0, 6.0, 2.0]
    for mode in ("fr", "rr", "rf", "ff"):
        assert ad.hvp(leaf, x, np.ones(3), mode).tolist() == [0.0, 2.0, 2.0]
    assert x.tolist() == [2.0, 3.0, 1.0]                # the caller's array is not written


def test_methods_that_write_in_place_or_take_operands_as_numpy_does():
    x = np.array([2.0, 3.0, 1.0])

    def part(x):
        y = x * 1.0
        y.partition(1)              # in place, as numpy's method: y = [1, 2, 3]
        return y[0]
    assert ad.gradient_r(part)(x).tolist() == [0.0, 0.0, 1.0]
    assert ad.gradient_r(lambda x: np.sum(x.compress([True, False, True])))(x).tolist() == \
        [1.0, 0.0, 1.0]
    # x[:2]·[x₀x₁, x₀] = x₀²x₁ + x₁x₀: ∇ = [2x₀x₁ + x₁, x₀² + x₀, 0]
    f = lambda x: x[:2].dot(np.array([x[0] * x[1], x[0]]))          # noqa: E731
    for grad in (ad.gradient_r, ad.gradient_f):
        assert grad(f)(x).tolist() == [15.0, 6.0, 0.0]
        assert grad(lambda x: x.dot([1.0, 2.0, 3.0]))(x).tolist() == [1.0, 2.0, 3.0]
        assert grad(lambda x: np.sum(x * [1.0, 2.0, 3.0] + [1.0, 1.0, 1.0] * x))(x).tolist() \
            == [2.0, 3.0, 4.0]
    lower = lambda x: x.clip(np.array([0.0, 0.0, x[0] * 0.75]), 9.0)  # noqa: E731
    want = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.75, 0.0, 0.0]])   # x₂ < 0.75x₀
    assert np.array_equal(ad.jacobian_f(lower)(x), want)
    assert np.array_equal(ad.jacobian_r(lower)(x), want)
    assert ad.derivative(lambda t: (t * t).astype(np.float64))(3.0) == 6.0
    assert ad.gradient_r(lambda x: x.item((1,)) * x.reshape(3, 1).item((2, 0)))(x).tolist() == \
        [0.0, 1.0, 3.0]
    # np.round/around/fix and x.round(): numpy's values, derivative 0
    v, g = ad.value_and_gradient_r(lambda x: np.sum(np.round(x * 1.0371, 2) * x))(x)
    assert v == np.sum(np.round(x * 1.0371, 2) * x) and g.tolist() == \
        np.round(x * 1.0371, 2).tolist()
    assert ad.gradient_r(lambda x: np.sum(x.round() + np.fix(x)))(x).tolist() == [0.0] * 3


def test_assigned_plain_values_take_the_arrays_dtype_and_aux_is_a_float_array():
    def f(x):
        h = x * 2.0
        h[0] = 0.1
        return np.sum(h ** 2)
    x32 = np.array([2.0, 3.0, 1.0], np.float32)
    for grad in (ad.gradient_r, ad.gradient_f):
        assert grad(f)(x32).dtype == np.float32
    g, aux = ad.gradient_r(lambda a: (np.sum(a ** 2), np.array([a[0] * 2, a[1]])),
                           has_aux=True)(np.array([1.0, 2.0]))
    assert aux.dtype == np.float64 and aux.tolist() == [2.0, 2.0]
