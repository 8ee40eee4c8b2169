"""In-place updates of array-valued dvlad numbers behave as numpy's arrays do: ``h += y`` changes
h itself (every name for it, every view taken of it), views made by numpy's functions follow
assignments into their array, and an empty mask assigns nothing."""
import numpy as np
import pytest

import dvlad as ad
from dvlad import AssignmentError, NotDifferentiableError, PerturbedConversionError

W = np.array([1.0, 2.0])


def add_bias_(h, b):
    h += b                              # an in-place helper that returns nothing


def biased(w):
    h = w * 2.0
    add_bias_(h, w[0])                  # h = [3 w0, 2 w1 + w0]
    return np.sum(h ** 2)


def test_an_in_place_operator_changes_the_array_every_name_refers_to():
    assert biased(W) == 34.0
    value, grad = ad.value_and_gradient_r(biased)(W)
    assert value == 34.0
    assert np.array_equal(grad, [28.0, 20.0])           # 18 w0 + 2(2 w1 + w0), 4(2 w1 + w0)
    assert np.array_equal(ad.gradient_f(biased)(W), [28.0, 20.0])
    ad.check_grads(biased, W, order=2)


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "**="])
def test_each_in_place_operator_agrees_with_numpy(op):
    def f(w):
        h = w * np.array([1.5, 0.5]) + 1.0
        alias = h
        exec(f"h {op} w", {}, {"h": h, "w": w})         # the alias sees the update
        return np.sum(alias * np.array([2.0, 3.0]))
    plain = f(W.copy())
    assert ad.value_and_gradient_r(f)(W)[0] == plain
    ad.check_grads(f, W, order=2)


def test_a_view_made_by_indexing_updates_its_array_in_place():
    def rows(w):
        H = np.outer(w, w)
        row = H[1]
        row *= 3.0                      # H = [[w0², w0 w1], [3 w1 w0, 3 w1²]]
        return np.sum(H)
    assert rows(W) == 21.0
    value, grad = ad.value_and_gradient_r(rows)(W)
    assert value == 21.0 and np.array_equal(grad, [10.0, 16.0])
    assert np.array_equal(ad.gradient_f(rows)(W), [10.0, 16.0])

    def sliced(w):
        h = np.concatenate([w, w * w])
        h[1:3] += w                     # Python: t = h[1:3]; t += w; h[1:3] = t
        return np.sum(h * h)
    ad.check_grads(sliced, W, order=2)


def test_an_in_place_update_keeps_its_arrays_shape_and_dtype():
    def grows(w):
        h = np.ones((1, 2)) * w
        h += np.ones((3, 1)) * w[0]
        return np.sum(h)
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        grows(W)
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        ad.gradient_r(grows)(W)

    def narrows(w):
        h = w * np.ones(2, np.float32)
        h += w.astype(np.float64)
        return np.sum(h)
    with pytest.raises(NotDifferentiableError, match="narrow"):
        ad.gradient_r(narrows)(W.astype(np.float32))

    def stays(w):
        h = w * np.ones(2, np.float32)
        h *= 3.0
        assert h.dtype == np.float32
        return np.sum(h)
    assert ad.gradient_r(stays)(W.astype(np.float32)).dtype == np.float32


def test_a_view_of_another_kind_refuses_an_in_place_update_by_name():
    def f(w):
        H = np.outer(w, w)
        v = H.T
        v += 1.0
        return np.sum(H)
    with pytest.raises(AssignmentError, match="shares its memory"):
        ad.gradient_r(f)(W)


def test_a_scalar_in_place_operator_makes_a_new_number_as_a_float_does():
    def f(t):
        y = t
        y += 1.0
        return y * t                    # (t + 1) t
    assert ad.derivative(f)(2.0) == 5.0


VIEWS = {
    "np.transpose": lambda H: np.transpose(H),
    "np.swapaxes": lambda H: np.swapaxes(H, 0, 1),
    "np.moveaxis": lambda H: np.moveaxis(H, 0, 1),
    "np.matrix_transpose": lambda H: np.matrix_transpose(H),
    "np.reshape": lambda H: np.reshape(H, (4,)),
    "np.ravel": lambda H: np.ravel(H),
    "np.squeeze": lambda H: np.squeeze(H[None]),
    "np.expand_dims": lambda H: np.expand_dims(H, 0),
    "np.flip": lambda H: np.flip(H),
    "np.rot90": lambda H: np.rot90(H),
    "np.split": lambda H: np.split(H, 2)[1],
    "np.diagonal": lambda H: np.diagonal(H),
    "np.atleast_3d": lambda H: np.atleast_3d(H),
    ".swapaxes": lambda H: H.swapaxes(0, 1),
    ".squeeze": lambda H: H[None].squeeze(),
    ".diagonal": lambda H: H.diagonal(),
    "np.asarray": lambda H: np.asarray(H),
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_made_by_numpys_functions_follow_assignments(name):
    def f(w):
        H = np.outer(w, w)
        V = VIEWS[name](H)
        H[0, 1] = 5.0 * w[0]
        H[1, 0] = 7.0 * w[1] * w[1]
        V = np.asarray(V)
        return np.sum(V * np.arange(1.0, V.size + 1).reshape(V.shape))
    value = ad.value_and_gradient_r(f)(W)[0]
    assert value == f(W.copy())
    ad.check_grads(f, W, order=2)


def test_an_empty_mask_assigns_nothing():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])

    def relu(w):
        h = X @ w
        h[h < 0] = 0.0                  # no element is negative here
        h[np.array([], dtype=int)] = w[0]
        return np.sum(h ** 2)
    w = np.array([0.5, 0.25])
    h = X @ w
    assert np.array_equal(ad.gradient_r(relu)(w), 2 * X.T @ h)      # [17, 24]
    assert np.array_equal(ad.gradient_f(relu)(w), 2 * X.T @ h)


def test_copyto_into_an_array_number_is_an_assignment():
    weights = np.array([[1.0, 2.0], [3.0, 4.0]])

    def masked(w):
        h = np.outer(w, w)                      # [[w0², w0 w1], [w1 w0, w1²]]
        np.copyto(h, 0.5 * w[0], where=h > 3.0)  # w1² = 4 > 3: replaced by w0 / 2
        return np.sum(h * weights)
    value, grad = ad.value_and_gradient_r(masked)(W)
    assert value == masked(W.copy()) == 1.0 + 4.0 + 6.0 + 2.0
    assert np.array_equal(grad, [2.0 + 2.0 * 2 + 3.0 * 2 + 4.0 * 0.5, 2.0 * 1 + 3.0 * 1])
    assert np.array_equal(ad.gradient_f(masked)(W), grad)


def test_mT_is_the_transpose_of_the_last_two_axes_and_a_view():
    def f(w):
        H = np.outer(w, w * np.array([1.0, 3.0]))
        T = H.mT
        H[0, 1] = w[1] ** 3
        return np.sum(T * np.arange(4.0).reshape(2, 2))
    assert ad.value_and_gradient_r(f)(W)[0] == f(W.copy())
    ad.check_grads(f, W, order=2)


X4 = np.array([0.3, -1.2, 2.0, 0.7])


def fill(v):
    H = np.outer(v, v)
    np.fill_diagonal(H, v ** 2 * 3.0)
    return np.sum(H * np.arange(16.0).reshape(4, 4))


def put(v):
    h = v * 2.0
    np.put(h, [0, 2], v[1:3] ** 2)
    return np.sum(h ** 3)


def putmask(v):
    h = v * 2.0
    np.putmask(h, h > 0, v[:2] * 5.0)           # values cycled over a's flat positions
    return np.sum(h ** 3)


def place(v):
    h = v * 2.0
    np.place(h, h > 0, v[:2] * 5.0)             # values in order over the True places
    return np.sum(h ** 3)


@pytest.mark.parametrize("f", [fill, put, putmask, place], ids=lambda f: f.__name__)
def test_numpys_writing_functions_update_an_array_number(f):
    assert ad.value_and_gradient_r(f)(X4)[0] == pytest.approx(f(X4.copy()), rel=1e-15)
    ad.check_grads(f, X4, order=2)


def test_numpys_writing_functions_refuse_to_drop_a_derivative():
    for write in (lambda a, v: np.fill_diagonal(a, v), lambda a, v: np.put(a, [0], v),
                  lambda a, v: np.putmask(a, a > 0, v), lambda a, v: np.place(a, a > 0, v)):
        with pytest.raises((AssignmentError, PerturbedConversionError)):   # (numpy's put
            ad.gradient_r(lambda v: write(np.ones((4, 4)), v[0]))(X4)      # converts itself)


def test_ldexp_and_matrix_rank():
    f = lambda v: np.sum(np.ldexp(v * v, np.array([1, -2, 3, 0])))      # noqa: E731
    assert np.array_equal(ad.gradient_r(f)(X4), 2 * X4 * 2.0 ** np.array([1, -2, 3, 0]))
    ad.check_grads(f, X4, order=2)
    g = ad.gradient_r(lambda v: v[0] * np.linalg.matrix_rank(np.outer(v, v)))(X4)
    assert np.array_equal(g, [1.0, 0.0, 0.0, 0.0])      # the rank answers for the primal: 1


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f])
def test_in_place_into_a_plain_array_names_the_way_out(grad):
    # h += v cannot put v's derivative into a float array: the error shows h = h + v
    def f(b):
        h = np.arange(3.0)
        h += b
        return np.sum(h)

    with pytest.raises(AssignmentError, match=r"h \+= v .*h = h \+ v"):
        grad(f)(np.array([0.5, 1.0, 2.0]))
    A = np.arange(6.0).reshape(3, 2)

    def mlp(p):             # in a forward pass over b alone, A @ W stays a plain array
        h = A @ p["W"]
        h *= p["b"]
        return np.sum(h)

    p = {"W": np.ones(2), "b": 0.5}
    assert ad.gradient_r(mlp)(p)["b"] == np.sum(A @ np.ones(2))
    with pytest.raises(AssignmentError, match=r"h \*= v"):
        ad.gradient_f(mlp)(p)
