"""Reductions with numpy's ``where=`` and ``initial=`` (sum, prod, max, min, mean, var, std,
and the array methods): values are numpy's, a masked-out lane has derivative 0, and the
derivatives check against differences to order 2 in both modes; numpy's own errors stay
numpy's."""
import numpy as np
import pytest

import dvlad

X = np.array([[0.3, -1.2, 2.0, 0.7], [1.5, 0.4, -0.6, 1.1], [-0.8, 2.2, 0.9, -0.3]])
M = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
ROW = np.array([True, False, True, True])          # broadcast against X's rows

CASES = [
    ("sum where", lambda u: np.sum(u ** 2, where=M)),
    ("sum where axis", lambda u: np.sum(np.sin(u), axis=1, where=M)),
    ("sum where row, keepdims", lambda u: np.sum(u * u, axis=0, keepdims=True, where=ROW)),
    ("sum initial", lambda u: np.sum(u ** 3, axis=0, initial=2.5)),
    ("prod where", lambda u: np.prod(u, axis=1, where=M)),
    ("prod initial where", lambda u: np.prod(u, axis=0, where=M, initial=-2.0)),
    ("max where initial", lambda u: np.max(u ** 2, axis=1, where=M, initial=-1.0)),
    ("max initial above some", lambda u: np.max(u, axis=0, initial=1.0)),
    ("min where initial", lambda u: np.min(np.exp(u), axis=0, where=ROW, initial=9.0)),
    ("mean where", lambda u: np.mean(u ** 2, axis=1, where=M)),
    ("mean where all", lambda u: np.mean(np.cos(u), where=M)),
    ("var where", lambda u: np.var(u, axis=1, where=M)),
    ("var where ddof", lambda u: np.var(u * u, axis=0, ddof=1, where=M)),
    ("std where", lambda u: np.std(u, where=M)),
    ("method sum where", lambda u: (u * 2.0).sum(axis=0, where=M)),
    ("method max initial", lambda u: u.max(axis=1, initial=0.5)),
]


@pytest.mark.parametrize("name, f", CASES, ids=[c[0] for c in CASES])
def test_values_are_numpys_and_derivatives_check(name, f):
    want = f(X)                                     # numpy itself, on the plain array
    for mode in ("fwd", "rev"):                     # f's value through dvlad's numbers
        got = dvlad.primal(dvlad.value_and_gradient_r(lambda u: np.sum(f(u)))(X)[0]) \
            if mode == "rev" else dvlad.jvp(f, X, np.ones_like(X))[0]
        np.testing.assert_allclose(got, np.sum(want) if mode == "rev" else want, rtol=1e-14)
    dvlad.check_grads(f, X, order=2, modes=("fwd", "rev"))


def test_a_masked_out_lane_has_derivative_zero_and_values_match_numpy_through_dvlad():
    g = dvlad.gradient_r(lambda u: np.sum(u ** 2, where=M))(X)
    np.testing.assert_array_equal(g, np.where(M, 2.0 * X, 0.0))
    g = dvlad.gradient_f(lambda u: np.sum(np.mean(u, axis=1, where=M)))(X)
    np.testing.assert_allclose(g, M / M.sum(axis=1, keepdims=True), rtol=1e-15)
    # the initial above every lane: the max is initial, constant
    assert np.array_equal(dvlad.gradient_r(lambda u: np.max(u, initial=10.0))(X), 0 * X)
    y, back = dvlad.vjp(lambda u: np.var(u, axis=1, where=M), X)
    np.testing.assert_allclose(y, np.var(X, axis=1, where=M), rtol=1e-15)


def test_float32_stays_float32():
    x = X.astype(np.float32)
    g = dvlad.gradient_r(lambda u: np.sum(u * u, where=M, initial=1.0))(x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, np.where(M, 2 * x, 0).astype(np.float32))


def test_numpys_errors_stay_numpys():
    with pytest.raises(ValueError, match="initial"):
        dvlad.gradient_r(lambda u: np.max(u, where=M))(X)          # max needs initial=
    with pytest.raises(ValueError):
        dvlad.gradient_r(lambda u: np.sum(u, where=np.ones(5, bool)))(X)   # does not broadcast


def test_a_lane_with_nothing_selected_gives_numpys_nan():
    empty = M.copy()
    empty[1] = False
    with pytest.warns(RuntimeWarning):
        want = np.mean(X, axis=1, where=empty)
    with pytest.warns(RuntimeWarning):
        got = dvlad.gradient_r(lambda u: np.mean(u, axis=1, where=empty)[0])(X)
    assert np.isnan(want[1])
    np.testing.assert_allclose(got[0], empty[0] / empty[0].sum(), rtol=1e-15)
    assert np.all(got[1:] == 0)


def test_initial_is_one_more_lane_in_a_tie():
    x = np.array([3.0, 1.0, 3.0])
    np.testing.assert_allclose(dvlad.gradient_r(lambda u: np.max(u, initial=3.0))(x),
                               [1 / 3, 0, 1 / 3], rtol=1e-15)
    p = np.array([3.0, 1.0, 3.0, 3.0])                  # initial a variable: a third each of
    np.testing.assert_allclose(                         # the three that tie
        dvlad.gradient_r(lambda u: np.max(u[:3], initial=u[3]))(p), [1 / 3, 0, 1 / 3, 1 / 3],
        rtol=1e-15)
    X2 = np.array([[1.0, 5.0], [2.0, 2.0]])
    g = dvlad.gradient_r(lambda u: np.sum(np.min(u, axis=(0, 1), keepdims=True, initial=1.0)))
    np.testing.assert_allclose(g(X2), [[0.5, 0], [0, 0]], rtol=1e-15)
    with pytest.raises(dvlad.NotDifferentiableError, match="-inf"):
        dvlad.gradient_r(lambda u: np.max(u, where=[True, False, True], initial=-np.inf))(
            np.array([-np.inf, 1.0, -np.inf]))


def test_ddof_past_the_count_and_float32_are_numpys():
    x = np.array([1.0, 2.0, 4.0])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        for f in (lambda u: np.var(u, ddof=3), lambda u: np.var(u, ddof=4),
                  lambda u: np.var(u, ddof=3, where=[True, True, False]),
                  lambda u: np.std(u, ddof=2, where=[True, False, False])):
            want = f(x)
            got = dvlad.vjp(f, x)[0]
            assert np.isnan(want) and np.isnan(got) or got == want, (got, want)
    x32 = x.astype(np.float32)
    for f in (lambda u: np.mean(u, where=[True, False, True]),
              lambda u: np.var(u, where=[True, False, True]), lambda u: np.std(u, ddof=1),
              lambda u: np.max(u, initial=2.5)):
        y = dvlad.vjp(f, x32)[0]
        assert y.dtype == f(x32).dtype == np.float32 and y == f(x32)
        assert dvlad.gradient_r(f)(x32).dtype == np.float32


def test_max_and_min_take_numpys_positional_order_and_initial_none():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(
        dvlad.gradient_r(lambda u: np.sum(np.max(u, 0, None, True)))(x), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(
        dvlad.gradient_r(lambda u: np.sum(u.min(1, None, True, 1.5)))(x), [[1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(dvlad.gradient_r(lambda u: np.sum(u, initial=None))(x),
                                  np.ones((2, 3)))


def test_the_max_of_a_python_float_stays_float64():
    d = dvlad.derivative(lambda s: np.max(s * s))(0.1)
    assert d == 0.2 and np.asarray(d).dtype == np.float64
    assert dvlad.gradient_f(lambda s: np.min(s * s, initial=1.0))(0.1) == 0.2


def test_masked_reductions_are_traced_by_compile_and_replay_right():
    mask = np.array([True, False, True])
    fs = [lambda x: np.min(x * 2, where=mask, initial=9.0), lambda x: np.std(x, where=mask, ddof=1),
          lambda x: np.max(x, where=mask, initial=-np.inf) + np.mean(x, where=mask)]
    x = np.array([1.0, 2.0, 3.0])
    for f in fs:
        c = dvlad.compile(dvlad.gradient_r(f))
        for v in (x, x + 1, x[::-1].copy(), x - 10):
            np.testing.assert_allclose(c(v), dvlad.gradient_r(f)(v), rtol=1e-15)
        assert "1 trace(s) kept" in c.explain(), c.explain()
    c = dvlad.compile(dvlad.gradient_r(fs[2]))
    c(x)
    with pytest.raises(dvlad.NotDifferentiableError, match="among lanes left out"):
        c(np.array([-np.inf, 2.0, -np.inf]))
