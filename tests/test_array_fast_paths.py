"""The array fast paths of issue #5's speed work must never change a value or touch an array
they do not own.

- Partials multiply into their own new arrays (dvlad.numbers.partials._times, _fresh): never into an argument,
  a primal the tape keeps, or an array the caller gave.
- A sensitivity that is one number broadcast (the transpose of a sum) is multiplied as that
  number.
- The sweep keeps the sign of a sensitivity through partials of −1 pending (dvlad.numbers.tape.Negated);
  one that reaches a result is computed at the end.
- The tape holds Nodes for array cells, so intermediate arrays are freed while f runs.
Every value is checked against its closed form.
"""
import gc
import weakref

import numpy as np
import pytest

import dvlad
from dvlad import pool
from support import rosenbrock as rosen
from support import rosenbrock_gradient as rosen_grad
from support import rosenbrock_hvp as rosen_hvp

R = dvlad.gradient_r


@pytest.fixture
def xv():
    i = np.arange(7)
    return 0.5 + 0.4 * np.sin(i), np.cos(i)


def test_inputs_and_directions_are_not_written(xv):
    x, v = xv
    x0, v0 = x.copy(), v.copy()
    g = R(rosen)(x)
    h = dvlad.hvp(rosen, x, v)
    assert np.array_equal(x, x0) and np.array_equal(v, v0)
    assert np.allclose(g, rosen_grad(x), rtol=1e-13) and np.allclose(h, rosen_hvp(x, v), rtol=1e-13)


def test_a_partial_that_is_an_argument_is_not_overwritten():
    """∂(x·y)/∂x = y: the partial *is* y's array; the sensitivity 3 (from 3·Σ) must not be
    multiplied into it, and the gradient must not be the caller's array."""
    x, y = np.array([1.0, 2.0]), np.array([5.0, 7.0])
    gx, gy = R(lambda p: 3.0 * np.sum(p[0] * p[1]))((x, y))
    assert np.array_equal(gx, 3.0 * y) and np.array_equal(gy, 3.0 * x)
    assert np.array_equal(y, [5.0, 7.0]) and np.array_equal(x, [1.0, 2.0])
    assert gx is not y and gy is not x and not np.shares_memory(gx, y)


def test_a_constant_partial_is_copied_not_returned():
    c = np.array([2.0, -3.0])
    g = R(lambda x: np.sum(c * x))(np.array([1.0, 1.0]))
    assert np.array_equal(g, c) and not np.shares_memory(g, c)
    g[0] = 99.0
    assert c[0] == 2.0


def test_broadcast_sensitivity_times_partials():
    """Σ 5·sin(x): the sensitivity 5 reaches sin as a broadcast number; ∂ = 5 cos x.
    Σ x²·0: a zero broadcast sensitivity gives zeros even where the partial is infinite."""
    x = np.array([0.3, 1.1, 2.0])
    assert np.allclose(R(lambda u: np.sum(5.0 * np.sin(u)))(x), 5.0 * np.cos(x), rtol=1e-15)
    z = np.array([0.0, 4.0])
    g = R(lambda u: 0.0 * np.sum(np.sqrt(u)))(z)            # sqrt'(0) = inf, times 0
    assert np.array_equal(g, [0.0, 0.0])
    g32 = R(lambda u: np.sum(2.0 * u ** 2))(np.array([1.0, 3.0], dtype=np.float32))
    assert g32.dtype == np.float32 and np.array_equal(g32, np.array([4.0, 12.0], np.float32))


@pytest.mark.parametrize("f, df", [
    (lambda x: np.sum(1.0 - x), lambda x: -np.ones_like(x)),
    (lambda x: np.sum(-x * x), lambda x: -2.0 * x),
    (lambda x: np.sum(x - 3.0 * x), lambda x: -2.0 * np.ones_like(x)),
    (lambda x: np.sum((x[1:] - x[:-1]) ** 2),
     lambda x: np.concatenate([[0.0], 2.0 * (x[1:] - x[:-1])])
     - np.concatenate([2.0 * (x[1:] - x[:-1]), [0.0]])),
    (lambda x: np.sum(-(-(-x))) + np.sum(-x[::2]),
     lambda x: -np.ones_like(x) - np.where(np.arange(len(x)) % 2 == 0, 1.0, 0.0)),
])
def test_pending_signs_give_the_right_gradient(f, df):
    x = np.array([0.5, -1.5, 2.0, 3.25, -0.75])
    assert np.allclose(R(f)(x), df(x), rtol=1e-14, atol=0)
    g = R(f)(x)
    assert type(g) is np.ndarray and g.flags.writeable


def test_pending_sign_reaches_a_kept_tape():
    """vjp keeps its tape (no consuming sweep): a negated sensitivity that reaches the input is
    computed when the sweep ends, and each pullback starts afresh."""
    x = np.array([1.0, 2.0, 3.0])
    y, back = dvlad.vjp(lambda u: -u, x)
    assert np.array_equal(y, -x)
    for ybar in (np.array([1.0, 0.0, 2.0]), np.array([-4.0, 5.0, 0.5])):
        g = back(ybar)
        assert type(g) is np.ndarray and np.array_equal(g, -ybar)
    assert np.array_equal(dvlad.jacobian_r(lambda u: 2.0 - u)(x), -np.eye(3))


def test_pending_signs_under_the_four_hvp_modes(xv):
    """f(x) = Σ (1 − x)² − Σ (x[1:] − x[:-1]²)²: negations on every path; H·v against the
    closed form, in all four nestings."""
    x, v = xv

    def f(u):
        return np.sum((1.0 - u) ** 2) - np.sum((u[1:] - u[:-1] ** 2) ** 2)

    # H of Σ (x[1:] − x[:-1]²)² is (rosen's H − that of Σ (1 − x[:-1])², 2 on [:-1]) / 100
    ones_term = np.concatenate([2.0 * v[:-1], [0.0]])
    expect = 2.0 * v - (rosen_hvp(x, v) - ones_term) / 100.0
    for mode in ("fr", "rf", "ff", "rr"):
        assert np.allclose(dvlad.hvp(f, x, v, mode=mode), expect, rtol=1e-12, atol=1e-12), mode


def test_intermediate_arrays_are_freed_while_f_runs():
    """The tape keeps a Node, not the cell: an array no partial reads dies with f's reference.
    sin(x) is the product's partial (kept); sin(x)·x is read by nothing (freed)."""
    seen = {}

    def f(u):
        s = np.sin(u)
        p = s * u
        seen["s"], seen["p"] = weakref.ref(s.primal), weakref.ref(p.primal)
        return np.sum(p)

    x = np.array([0.5, 1.0])
    y, back = dvlad.vjp(f, x)
    gc.collect()
    assert pool.released(seen["p"]) and not pool.released(seen["s"])     # (freed or reusable)
    assert np.allclose(back(1.0), np.cos(x) * x + np.sin(x), rtol=1e-15)


@pytest.mark.parametrize("idx", [slice(1, None), slice(None, -1), slice(2, 5), slice(0, 0),
                                 slice(None), slice(-3, None), (slice(1, 4),), slice(0, 7, 2),
                                 (slice(None), slice(1, None)), 3],
                         ids=repr)
@pytest.mark.parametrize("neg", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_placed_dense_writes_the_block_and_zeros_the_rest(idx, neg, dtype):
    """The transpose of x[idx] made dense (one pass for a block of leading rows) equals zeros
    with ±s added at idx, for slices of every kind, the sign flag and float32."""
    from dvlad.modes.sweep import Placed
    shape = (7, 3)
    s = np.arange(1.0, 1.0 + np.zeros(shape)[idx].size).reshape(np.zeros(shape)[idx].shape)
    s = s.astype(dtype)
    want = np.zeros(shape, dtype)
    want[idx] = -s if neg else s
    got = Placed(s, idx, shape, "view", neg).dense()
    assert got.dtype == dtype and got.shape == shape
    np.testing.assert_array_equal(got, want)


def test_read_only_constants_are_read_where_they_are_writeable_ones_copied():
    ad = dvlad
    rng = np.random.default_rng(31)
    X, w = rng.standard_normal((40, 5)), rng.standard_normal(5)

    def f(u):
        return np.sum(np.log1p(np.exp(X @ u)))
    g, hv = ad.gradient_r(f)(w), ad.hvp(f, w, w, "rr")
    X.flags.writeable = False
    try:
        from dvlad.core.switch import REFERENCE         # (which always copies)
        assert (pool.private_copy(X) is X) is not REFERENCE
        assert np.array_equal(ad.gradient_r(f)(w), g)
        assert np.array_equal(ad.hvp(f, w, w, "rr"), hv)
        view = np.ones(3)[1:]                       # read-only view of a writeable array
        view.flags.writeable = False
        assert pool.private_copy(view) is not view     # its base can still be written
    finally:
        X.flags.writeable = True
    # a writeable constant changed after its use, before the sweep: the derivative is the
    # one of the X that was used (reverse mode copied it)
    Y = X.copy()

    def changes(u):
        r = np.sum((Y @ u) ** 2)
        Y[:] = 0.0
        return r
    np.testing.assert_allclose(ad.gradient_r(changes)(w), 2.0 * X.T @ (X @ w), rtol=1e-12)


def test_pick_equals_the_general_select_on_mixed_lanes_ties_and_nans():
    """A conditional partial whose branches are numbers (maximum's 1.0 / 0.5 / 0.0) takes
    `pick` (one where); the general `select` gathers and scatters the lanes.  Same values,
    same dtype, every lane: ties, nans, infinities, float32."""
    from dvlad.core.number import ARRAY_OPS
    from dvlad.core.rules import TABLE
    from dvlad.core.vectorize import make_helpers, vectorize
    helpers = make_helpers(ARRAY_OPS)
    fast = dict(helpers)
    general = dict(helpers, pick=helpers["select"])
    rows = [r for r in TABLE if r.arity == 2 and r.partial_texts and
            any("pick(" in vectorize(t) for t in r.partial_texts)]
    assert {"maximum", "minimum", "fmax", "fmin"} <= {r.name for r in rows}
    x = np.array([1.0, 2.0, np.nan, -np.inf, 0.0, -0.0, 3.0, 5.0])
    y = np.array([1.0, 3.0, 1.0, 0.0, -0.0, 0.0, np.nan, 4.0])
    for dtype in (np.float64, np.float32):
        a, b = x.astype(dtype), y.astype(dtype)
        r = np.maximum(a, b)
        for row in rows:
            for text in row.partial_texts:
                src = vectorize(text)
                if "pick(" not in src:
                    continue
                env = dict(np.__dict__, x=a, y=b, r=r)
                got = eval(src, dict(env, **fast))
                want = eval(src, dict(env, **general))
                assert np.asarray(got).dtype == np.asarray(want).dtype, (row.name, text)
                assert np.array_equal(got, want, equal_nan=True), (row.name, text, got, want)


def test_patched_selects_on_matrices_equal_each_lanes_own_derivative():
    """A conditional partial (tanh's: 1 − r² where |x| < 2, else from exp(−|x|)) on a matrix
    whose lanes alternate at random between branches: the minor lanes are gathered and written
    back by flat position.  Each lane equals the scalar derivative, in reverse and forward mode,
    float64 and float32, C and Fortran order, and broadcast against a row (x ** p)."""
    rng = np.random.default_rng(41)
    for dtype in (np.float64, np.float32):
        X = (3.0 * rng.standard_normal((37, 23))).astype(dtype)
        for A in (X, np.asfortranarray(X), X[:, ::2]):
            want = np.array([dvlad.derivative(dvlad.tanh)(x) for x in A.flat],
                            dtype).reshape(A.shape)
            g = dvlad.gradient_r(lambda u: np.sum(np.tanh(u)))(A)
            assert g.dtype == dtype and np.array_equal(g, want)
            y, t = dvlad.jvp(np.tanh, A, np.ones_like(A))
            assert np.array_equal(t, want)
    P = np.array([0.0, 2.0, 0.5, 3.0, 0.0])               # x ** p: p == 0 lanes are a branch
    Y = np.abs(rng.standard_normal((6, 5))) + 0.1
    g = dvlad.gradient_r(lambda u: np.sum(u ** P))(Y)
    want = np.array([[dvlad.derivative(lambda t: t ** p)(y) for y, p in zip(row, P)]
                     for row in Y])
    np.testing.assert_allclose(g, want, rtol=1e-15)


def test_blend_is_numpys_where_bit_for_bit():
    """pick's where of two numbers by their bits: every value (nan, ±0.0, ±inf), float64 and
    float32, conditions of any layout; anything else is numpy's where itself."""
    from dvlad.core.vectorize import _blend
    rng = np.random.default_rng(43)
    c = rng.standard_normal((33, 17)) > 0
    values = [1.0, 0.0, -0.0, 0.5, np.inf, -np.inf, np.nan, -2.5e-308]
    for cond in (c, np.asfortranarray(c), c[:, ::3], c[0]):
        for dtype in (np.float64, np.float32):
            for yes in values:
                for no in values[::-1]:
                    y, n = dtype(yes), dtype(no)
                    got, want = _blend(cond, y, n), np.where(cond, y, n)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    bits = [np.ascontiguousarray(v).view(np.uint8) for v in (got, want)]
                    assert np.array_equal(*bits), (yes, no)
    got = _blend(c, 1, 0.0)                              # an int: numpy's where
    assert np.array_equal(got, np.where(c, 1, 0.0)) and got.dtype == np.float64
