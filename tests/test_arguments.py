"""The API research code expects (issue #17): argnums, has_aux, value_and_gradient_r,
stop_gradient, several arguments with the others held constant.  Exact values."""
import pickle

import numpy as np
import pytest

import dvlad as ad


def f(x, y, z):
    return x * x * y + 3.0 * z


@pytest.mark.parametrize("op", [ad.derivative, ad.gradient_r, ad.gradient_f])
def test_argnums_picks_the_argument_and_holds_the_others(op):
    assert op(f)(2.0, 5.0, 7.0) == 20.0                 # ∂x = 2xy
    assert op(f, argnums=1)(2.0, 5.0, 7.0) == 4.0       # ∂y = x²
    assert op(f, argnums=-1)(2.0, 5.0, 7.0) == 3.0
    assert op(f, argnums=(0, 2))(2.0, 5.0, 7.0) == (20.0, 3.0)


def test_other_arguments_reach_f_unchanged():
    seen = []

    def g(x, n, name, a):
        seen.append((type(n), name, a))
        return x ** n * a[0]
    a = np.array([2.0, 9.0])
    assert ad.gradient_r(g)(3.0, 2, "label", a) == 12.0
    assert ad.derivative(g)(3.0, 2, "label", a) == 12.0
    assert all(t is int and name == "label" and arr is a for t, name, arr in seen)


def test_jacobians_and_hessian_with_argnums():
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    h = lambda x, A: A @ x                                            # noqa: E731
    x = np.array([1.0, -1.0])
    for jac in (ad.jacobian_f, ad.jacobian_r):
        assert np.array_equal(jac(h)(x, A), A)
        assert np.array_equal(jac(h, argnums=1)(x, A), np.einsum("ij,k->ijk", np.eye(2), x))
    q = lambda x, c: c * np.sum(x ** 3)                               # noqa: E731
    assert np.array_equal(ad.hessian(q)(x, 2.0), np.diag([12.0, -12.0]))
    # a tuple of argnums: a tuple of results (JAX's), by argument, and by pair for a Hessian
    assert ad.hessian(lambda x, y: x * x * y * y, argnums=(0, 1))(2.0, 3.0) == \
        ((18.0, 24.0), (24.0, 8.0))
    f = lambda a, b, c: a * b * c * c                                 # noqa: E731
    for jac in (ad.jacobian_f, ad.jacobian_r):
        assert jac(f, argnums=(0, 2))(1.0, 2.0, 3.0) == (18.0, 12.0)
        assert jac(lambda a, b: (a * b, a + b), argnums=(0, 1))(2.0, 3.0) == \
            ((3.0, 2.0), (1.0, 1.0))
    assert ad.hessian(f, argnums=(0,))(1.0, 2.0, 3.0) == ((0.0,),)


def test_has_aux_returns_the_aux_plain():
    def loss(w, data):
        pred = w * data
        return np.sum(pred ** 2), {"pred": pred, "note": "ok"}
    data = np.array([1.0, 2.0])
    for op in (ad.gradient_r, ad.gradient_f):
        g, aux = op(loss, has_aux=True)(3.0, data)
        assert g == 2 * 3.0 * np.sum(data ** 2) and aux["note"] == "ok"
        assert type(aux["pred"]) is np.ndarray and aux["pred"].tolist() == [3.0, 6.0]
    with pytest.raises(ValueError, match="pair"):
        ad.gradient_r(lambda x: x * x, has_aux=True)(1.0)


def test_derivative_takes_has_aux_too():
    d, aux = ad.derivative(lambda x: (x ** 3, {"x": x * 2.0}), has_aux=True)(2.0)
    assert d == 12.0 and aux == {"x": 4.0} and type(aux["x"]) is float
    ds, aux = ad.derivative(lambda x, y: (x * x * y, y - x), argnums=(0, 1), has_aux=True)(
        2.0, 5.0)
    assert ds == (20.0, 4.0) and aux == 3.0           # ((d₀, d₁), aux), JAX's convention
    with pytest.raises(ValueError, match="pair"):
        ad.derivative(lambda x: x * x, has_aux=True)(1.0)


def test_value_and_gradient_r():
    assert ad.value_and_gradient_r(lambda x: x * x)(3.0) == (9.0, 6.0)
    v, g = ad.value_and_gradient_r(lambda x, y: np.sum(x * y), argnums=1)(np.ones(2), np.ones(2))
    assert v == 2.0 and g.tolist() == [1.0, 1.0]
    (v, aux), g = ad.value_and_gradient_r(lambda x: (x ** 3, x + 1), has_aux=True)(2.0)
    assert (v, aux, g) == (8.0, 3.0, 12.0)
    assert type(v) is float and type(aux) is float


def test_has_aux_keeps_an_outer_derivatives_perturbation():
    """Inside an outer derivative, aux is still a function of the outer variable."""
    def outer(a):
        g, aux = ad.gradient_r(lambda x: (a * x * x, a * a), has_aux=True)(1.0)
        return g + aux                     # 2a + a²: d/da = 2 + 2a
    assert ad.derivative(outer)(3.0) == 8.0


def test_stop_gradient_is_a_straight_through_estimator_in_a_nested_derivative():
    """round(x) with the identity's derivative: x + stop_gradient(round(x) − x)."""
    st = lambda x: x + ad.stop_gradient(ad.round(x) - x)              # noqa: E731
    assert st(2.7) == 3.0
    assert ad.derivative(lambda x: st(x) ** 2)(2.7) == 6.0            # 2·round(x)·1
    # (x·st²)″ = 4·st·st′ + 2x·st′² with st′ = 1, st″ = 0: 4·3 + 2·2.7
    assert ad.derivative(ad.derivative(lambda x: x * st(x) ** 2))(2.7) == \
        pytest.approx(17.4, rel=1e-15)
    assert ad.stop_gradient is not ad.primal and ad.stop_gradient((1.0, 2.0)) == (1.0, 2.0)


def test_bound_operators_pickle_and_check_argnums():
    g = pickle.loads(pickle.dumps(ad.gradient_r(f, argnums=1)))
    assert g(2.0, 5.0, 7.0) == 4.0
    with pytest.raises(ValueError, match="argnums"):
        ad.gradient_r(f, argnums=3)(2.0, 5.0, 7.0)
    with pytest.raises(TypeError, match="argnums"):
        ad.gradient_r(f, argnums=1.0)


def test_derivative_on_a_grid_is_elementwise():
    grid = np.linspace(-1.0, 2.0, 7)
    assert np.array_equal(ad.derivative(np.sin)(grid), np.cos(grid))
    assert np.allclose(ad.derivative(ad.derivative(lambda x: x ** 3))(grid), 6 * grid,
                       rtol=1e-15, atol=0)
    assert ad.derivative(lambda x: x * x)(np.array([[1.0, 2.0]])).tolist() == [[2.0, 4.0]]
    assert ad.derivative(lambda x: x * x)(np.arange(3)).tolist() == [0.0, 2.0, 4.0]


def test_lists_of_plain_numbers_as_operands():
    w = np.array([1.0, 2.0, 3.0])
    for f in (lambda w: np.dot([1.0, 2.0, 3.0], w), lambda w: [1.0, 2.0, 3.0] @ w,
              lambda w: np.matmul((1.0, 2.0, 3.0), w), lambda w: np.sum(w @ [[1.0], [2.0], [3.0]])):
        for grad in (ad.gradient_r, ad.gradient_f):
            assert grad(f)(w).tolist() == [1.0, 2.0, 3.0]


def test_jacobians_and_hessians_keep_dict_structures():
    # JAX's convention: the output's structure outside, the input's inside, each block of shape
    # out.shape + in.shape.  loss = b·Σw² + b³: H_ww = 2b·I, H_wb = 2w, H_bb = 6b
    p = {"w": np.array([1.0, 2.0]), "b": 0.5}

    def loss(p):
        return np.sum(p["w"] ** 2) * p["b"] + p["b"] ** 3
    H = ad.hessian(loss)(p)
    assert set(H) == {"w", "b"} and set(H["w"]) == {"w", "b"}
    np.testing.assert_array_equal(H["w"]["w"], [[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal(H["w"]["b"], [2.0, 4.0])
    np.testing.assert_array_equal(H["b"]["w"], [2.0, 4.0])
    assert H["b"]["b"] == 3.0

    def f(p):
        return {"u": p["w"] * p["b"], "v": p["b"] ** 2}
    for jac in (ad.jacobian_r, ad.jacobian_f):
        J = jac(f)(p)
        np.testing.assert_array_equal(J["u"]["w"], [[0.5, 0.0], [0.0, 0.5]])
        np.testing.assert_array_equal(J["u"]["b"], [1.0, 2.0])
        np.testing.assert_array_equal(J["v"]["w"], [0.0, 0.0])
        assert J["v"]["b"] == 1.0
    # a dict-valued f of one array: a dict of blocks
    J = ad.jacobian_r(lambda x: {"s": np.sin(x), "t": np.sum(x)})(np.array([0.0, 1.0]))
    np.testing.assert_array_equal(J["s"], np.diag(np.cos([0.0, 1.0])))
    np.testing.assert_array_equal(J["t"], [1.0, 1.0])


def test_keyword_arguments_reach_f_unchanged_and_constant():
    f = lambda a, scale=1.0, shift=0.0: scale * np.sum(a ** 2) + shift
    a = np.array([1.0, 2.0])
    for op in (ad.gradient_r, ad.gradient_f, ad.jacobian_f, ad.jacobian_r):
        np.testing.assert_array_equal(op(f)(a, scale=3.0, shift=1.0), [6.0, 12.0])
    np.testing.assert_array_equal(ad.hessian(f)(a, scale=3.0), 6.0 * np.eye(2))
    assert ad.derivative(lambda x, k=1: k * x ** 2)(3.0, k=5) == 30.0
    value, grad = ad.value_and_gradient_r(f)(a, scale=2.0)
    assert value == 10.0 and list(grad) == [4.0, 8.0]
    g = lambda a, b, scale=1.0: scale * np.sum(a * b)
    ga, gb = ad.gradient_r(g, argnums=(0, 1))(a, a + 1, scale=10.0)
    assert list(ga) == [20.0, 30.0] and list(gb) == [10.0, 20.0]
    grad, aux = ad.gradient_r(lambda a, s=1.0: (s * np.sum(a), {"s": s}), has_aux=True)(a, s=4.0)
    assert list(grad) == [4.0, 4.0] and aux == {"s": 4.0} and type(aux["s"]) is float
