"""Issue #5: numpy arrays as primals, written as plain numpy on AD values.

Users write ``np.sin(x)``, ``x @ A``, ``np.sum(x, axis=0)``, ``x[1:]``, ``x.T``,
``np.where(c, a, b)``, ``np.linalg.solve(...)`` on bundles and tape cells whose primals are
arrays; numpy's protocols send each call to dvlad's rule for it (dvlad/protocol.py).

Every derivative is checked by :func:`check`, an array-aware copy of ``dvlad.check_grads`` kept in
this file (the shipped one is tested on arrays on its own, below): along a seeded random
direction u, J·u by ``jvp`` against central differences, ⟨Jᵀw, u⟩ by ``vjp`` against ⟨w, J·u⟩
(the dot-product test), and at order 2 the same on x ↦ J(x)·u and x ↦ J(x)ᵀ·w: forward over
forward, reverse over forward, forward over reverse and reverse over reverse.  Values are also
compared with numpy on plain arrays, and with independent oracles: closed forms written by hand
(Rosenbrock's Hessian, backprop of an MLP, d det = det·tr(A⁻¹dA), the product of the others),
dvlad's scalar primitives applied element by element over object arrays, and mpmath at 50 digits.

Conventions pinned here (dvlad/rules.py, dvlad/arrays.py): maximum/minimum at a tie split the
derivative ½/½; amax/amin ties share it evenly; clip at a bound follows x; comparisons return
plain bool arrays; a numpy function without a rule raises NotDifferentiableError naming it;
complex values raise NotDifferentiableError (a TypeError).
"""
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mpmath import mp

import dvlad as ad
from dvlad import NotDifferentiableError
from support import close, rosenbrock, rosenbrock_gradient, rosenbrock_hvp

MPF = type(mpmath.mpf(1))


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- the checker ----------------------------------------------------------------------------------

def _flat(x):
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in _flat(v)]
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _flat(v)]
    return [x]


def _build(x, leaves):
    """x's structure with ``leaves`` (consumed in flatten order)."""
    it = iter(leaves)

    def go(x):
        if isinstance(x, dict):
            return {k: go(v) for k, v in x.items()}
        if isinstance(x, (tuple, list)):
            return type(x)(go(v) for v in x)
        return next(it)
    return go(x)


def _shape(v):
    return np.shape(ad.primal(v))


def _random_like(x, r):
    return _build(x, [np.asarray(r.standard_normal(_shape(a))) if isinstance(ad.primal(a), np.ndarray)
                      else float(r.standard_normal()) for a in _flat(x)])


def _axpy(a, u, x):
    return _build(x, [xi + a * ui for xi, ui in zip(_flat(x), _flat(u))])


def _vdot(a, b):
    total = 0.0
    for p, q in zip(_flat(a), _flat(b)):
        total = total + np.sum(p * q)
    return total


def _zero_tangents_shaped(y, ju):
    # A result that does not depend on x has tangent 0; dvlad currently returns that 0 in the
    # *input's* shape (test_constant_result_has_zero_tangent_of_its_own_shape pins the bug).
    # Reshaping an all-zero tangent here keeps that one bug from failing every order-2 check.
    return _build(y, [t if _shape(t) == _shape(p) or np.any(ad.primal(t)) else np.zeros(_shape(p))
                      for p, t in zip(_flat(y), _flat(ju))])


def check(f, x, order=2, eps=1e-5, rtol=1e-6, seed=0, _r=None, _level=1):
    """check_grads for structures of arrays: J·u against central differences, the dot-product
    test for Jᵀ·w, and (order 2) both again on x ↦ J(x)·u and x ↦ J(x)ᵀ·w.  Each array is
    compared as a whole: within rtol·max(1, max|want|) of want."""
    r = _r or rng(seed)
    u = _random_like(x, r)
    y, ju = ad.jvp(f, x, u)
    ju = _zero_tangents_shaped(y, ju)
    fp, fm = f(_axpy(eps, u, x)), f(_axpy(-eps, u, x))
    fd = _build(fp, [(p - m) / (2 * eps) for p, m in zip(_flat(fp), _flat(fm))])
    close(ju, fd, rtol, floor=1, normwise=True,
          what=f"forward-mode J·u (order {_level}) against central differences")
    w = _random_like(y, r)
    y2, back = ad.vjp(f, x)
    close(y2, y, 1e-15, floor=1, normwise=True, what=f"vjp's value (order {_level}) against jvp's")
    close(_vdot(back(w), u), _vdot(w, ju), rtol, floor=1, normwise=True,
          what=f"reverse-mode ⟨Jᵀw, u⟩ (order {_level}) against ⟨w, J·u⟩")
    if order > 1:
        check(lambda z: ad.jvp(f, z, u)[1], x, order - 1, eps, rtol, _r=r, _level=_level + 1)
        check(lambda z: ad.vjp(f, z)[1](w), x, order - 1, eps, rtol, _r=r, _level=_level + 1)


def same_value(f, x, rtol=1e-15):
    """f on AD arrays (inside gradient_r and jvp) has the value f has on plain arrays."""
    want = f(x)
    close(ad.vjp(f, x)[0], want, rtol, floor=1, normwise=True, what="value under vjp")
    close(ad.jvp(f, x, _random_like(x, rng(1)))[0], want, rtol, floor=1, normwise=True,
          what="value under jvp")


def test_the_checker_catches_a_wrong_array_rule():
    bad = ad.primitive(lambda x: x ** 3, lambda x: (2 * x * x,), name="bad_cube")
    with pytest.raises(AssertionError, match="forward-mode"):
        check(lambda x: bad(x), np.array([0.5, 1.5]), order=1)
    # the dot-product test alone, fed the *correct* J·u: the wrong rule's Jᵀw must fail it
    x, u, w = np.array([0.5, 1.5]), np.array([0.3, -0.7]), np.array([1.1, 0.4])
    with pytest.raises(AssertionError, match="reverse-mode"):
        close(_vdot(ad.vjp(bad, x)[1](w), u), _vdot(w, 3 * x * x * u), 1e-6, floor=1,
              normwise=True, what="reverse-mode ⟨Jᵀw, u⟩")


def test_shipped_check_grads_accepts_arrays():
    """dvlad.check_grads is the public checker (STYLE.md): it must work on array inputs, at
    order 2, on correct rules, and still catch a wrong one."""
    x = rng(3).uniform(0.5, 1.5, (3, 2))
    ad.check_grads(lambda p: np.sin(p) * p, x, order=2)
    ad.check_grads(lambda p: np.sum(p @ p.T), x, order=2)
    ad.check_grads(lambda p: (p[0] * p[1], np.exp(p[1])), (x, x[0]), order=2)
    bad = ad.primitive(lambda z: z ** 3, lambda z: (2 * z * z,), name="bad_cube")
    with pytest.raises(AssertionError):
        ad.check_grads(lambda p: bad(p), x, order=1)


# ---- ufuncs: numpy's own functions on AD arrays -----------------------------------------------------

def _u(lo, hi):
    return lambda r, shape: r.uniform(lo, hi, shape)


def _away(lo, hi):
    """|values| in [lo, hi], random signs: away from a kink or pole at 0."""
    return lambda r, shape: r.uniform(lo, hi, shape) * r.choice([-1.0, 1.0], shape)


# name -> (numpy ufunc, dvlad scalar primitive, domain of the argument)
UNARY = {
    "negative": (np.negative, ad.neg, _u(-2, 2)),
    "positive": (np.positive, lambda x: x, _u(-2, 2)),
    "absolute": (np.absolute, ad.abs, _away(0.2, 2)),
    "sqrt": (np.sqrt, ad.sqrt, _u(0.3, 2)),
    "square": (np.square, ad.square, _u(-2, 2)),
    "reciprocal": (np.reciprocal, ad.reciprocal, _away(0.4, 2)),
    "exp": (np.exp, ad.exp, _u(-1.5, 1.5)),
    "expm1": (np.expm1, ad.expm1, _u(-1.5, 1.5)),
    "log": (np.log, ad.log, _u(0.3, 2)),
    "log1p": (np.log1p, ad.log1p, _u(-0.5, 2)),
    "sin": (np.sin, ad.sin, _u(-2, 2)),
    "cos": (np.cos, ad.cos, _u(-2, 2)),
    "tan": (np.tan, ad.tan, _u(-1.2, 1.2)),
    "arcsin": (np.arcsin, ad.asin, _u(-0.8, 0.8)),
    "arccos": (np.arccos, ad.acos, _u(-0.8, 0.8)),
    "arctan": (np.arctan, ad.atan, _u(-2, 2)),
    "sinh": (np.sinh, ad.sinh, _u(-1.5, 1.5)),
    "cosh": (np.cosh, ad.cosh, _u(-1.5, 1.5)),
    "tanh": (np.tanh, ad.tanh, _u(-1.5, 1.5)),
    "log2": (np.log2, ad.log2, _u(0.3, 2)),
    "log10": (np.log10, ad.log10, _u(0.3, 2)),
    "exp2": (np.exp2, ad.exp2, _u(-1.5, 1.5)),
    "arcsinh": (np.arcsinh, ad.arcsinh, _u(-2, 2)),
    "arccosh": (np.arccosh, ad.arccosh, _u(1.2, 3)),
    "arctanh": (np.arctanh, ad.arctanh, _u(-0.8, 0.8)),
    "deg2rad": (np.deg2rad, ad.deg2rad, _u(-200, 200)),
    "radians": (np.radians, ad.deg2rad, _u(-200, 200)),
    "rad2deg": (np.rad2deg, ad.rad2deg, _u(-2, 2)),
    "degrees": (np.degrees, ad.rad2deg, _u(-2, 2)),
}

# name -> (numpy ufunc, dvlad scalar primitive, domain of x, domain of y)
BINARY = {
    "add": (np.add, ad.add, _u(-2, 2), _u(-2, 2)),
    "subtract": (np.subtract, ad.sub, _u(-2, 2), _u(-2, 2)),
    "multiply": (np.multiply, ad.mul, _u(-2, 2), _u(-2, 2)),
    "true_divide": (np.true_divide, ad.div, _u(-2, 2), _away(0.5, 2)),
    "power": (np.power, ad.pow, _u(0.5, 2), _u(-2, 2)),
    "arctan2": (np.arctan2, ad.atan2, _away(0.3, 2), _away(0.3, 2)),
    "hypot": (np.hypot, ad.hypot, _away(0.3, 2), _away(0.3, 2)),
    "maximum": (np.maximum, ad.maximum, _u(-2, 2), _u(-2, 2)),
    "minimum": (np.minimum, ad.minimum, _u(-2, 2), _u(-2, 2)),
    "logaddexp": (np.logaddexp, ad.logaddexp, _u(-2, 2), _u(-2, 2)),
    "logaddexp2": (np.logaddexp2, ad.logaddexp2, _u(-2, 2), _u(-2, 2)),
}

UNARY_SHAPES = [(), (1,), (5,), (3, 1), (2, 3, 4)]


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_ufunc(name, shape):
    uf, _, dom = UNARY[name]
    x = np.asarray(dom(rng(len(name)), shape))
    same_value(uf, x)
    check(uf, x)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_dvlad_function_on_arrays_equals_numpy(name):
    """dvlad.sin etc. take arrays too, with numpy's values and the same derivatives."""
    uf, op, dom = UNARY[name]
    x = dom(rng(7), (2, 3))
    w = rng(8).standard_normal((2, 3))
    np.testing.assert_allclose(ad.primal(op(x)), uf(x), rtol=1e-15)
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_allclose(grad(lambda p: np.sum(w * op(p)))(x),
                                   grad(lambda p: np.sum(w * uf(p)))(x), rtol=1e-15)
    check(op, x)


# (x, y) operand kinds: arrays of two shapes, or a Python scalar / scalar AD number on one side
BINARY_CASES = {
    "same_shape": ((2, 3), (2, 3)),
    "trailing_broadcast": ((2, 3, 4), (4,)),
    "both_broadcast": ((3, 1), (1, 4)),
    "rank_and_size1": ((2, 1, 4), (3, 1)),
    "zero_d_and_array": ((), (3,)),
    "array_and_zero_d": ((2, 2), ()),
    "size1_dims": ((1, 1), (1, 3)),
    "array_and_python_float": ((2, 3), "float"),
    "python_float_and_array": ("float", (2, 3)),
    "array_and_python_int": ((2, 3), "int"),
    "python_int_and_array": ("int", (2, 3)),
    "array_and_ad_scalar": ((2, 3), "ad"),
    "ad_scalar_and_array": ("ad", (2, 3)),
}


def _operand(kind, dom, r):
    if kind == "float":
        return float(dom(r, ()))
    if kind == "int":
        return 2
    if kind == "ad":
        return float(dom(r, ()))
    return np.asarray(dom(r, kind))


def _binary_setup(name, case):
    uf, op, dx, dy = BINARY[name]
    kx, ky = BINARY_CASES[case]
    r = rng(len(name) + 17 * len(case))
    x, y = _operand(kx, dx, r), _operand(ky, dy, r)
    # differentiate in every array and AD-scalar operand; Python numbers stay constants
    live = [k not in ("float", "int") for k in (kx, ky)]
    return uf, op, x, y, live


def _binary_function(uf, x, y, live):
    if live[0] and live[1]:
        return (lambda p: uf(p[0], p[1])), (x, y)
    if live[0]:
        return (lambda p: uf(p, y)), x
    return (lambda p: uf(x, p)), y


@pytest.mark.parametrize("case", list(BINARY_CASES))
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_ufunc(name, case):
    uf, _, x, y, live = _binary_setup(name, case)
    f, point = _binary_function(uf, x, y, live)
    same_value(f, point)
    check(f, point)


def _random_broadcast_pair(r):
    """Two shapes that broadcast: a random result shape, each operand dropping leading axes and
    setting some axes to 1."""
    out = tuple(int(n) for n in r.integers(1, 4, size=r.integers(0, 4)))
    pair = []
    for _ in range(2):
        shape = out[r.integers(0, len(out) + 1):]
        pair.append(tuple(1 if r.random() < 0.3 else n for n in shape))
    return tuple(pair)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_ufunc_random_broadcast_shapes(name):
    uf, _, dx, dy = BINARY[name]
    r = rng(1000 + len(name))
    for _ in range(4):
        sx, sy = _random_broadcast_pair(r)
        x, y = np.asarray(dx(r, sx)), np.asarray(dy(r, sy))
        f = lambda p: uf(p[0], p[1])
        same_value(f, (x, y))
        check(f, (x, y))


@pytest.mark.parametrize("case", ["same_shape", "both_broadcast", "rank_and_size1",
                                  "zero_d_and_array", "array_and_ad_scalar"])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_ufunc_against_dvlad_scalars_on_object_arrays(name, case):
    """Independent oracle: the same function over object arrays of floats, with dvlad's scalar
    primitive applied element by element (tested against mpmath in test_rules.py)."""
    uf, op, x, y, live = _binary_setup(name, case)
    elementwise = np.frompyfunc(op, 2, 1)
    w = rng(2).standard_normal(np.broadcast_shapes(np.shape(x), np.shape(y)))

    def loss(fn):
        return lambda p: np.sum(w * fn(p[0], p[1]))
    obj = (np.array(x, dtype=object), np.array(y, dtype=object))
    for grad in (ad.gradient_r, ad.gradient_f):
        got = grad(loss(uf))((x, y))
        want = grad(loss(elementwise))(obj)
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(v, dtype=float), rtol=1e-14, atol=1e-15)
    v = tuple(rng(4).standard_normal(np.shape(a)) for a in (x, y))
    got = ad.hvp(loss(uf), (x, y), v)
    want = ad.hvp(loss(elementwise), obj, tuple(np.array(a, dtype=object) for a in v))
    for g, h in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(h, dtype=float), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_ufunc_against_dvlad_scalars_on_object_arrays(name):
    uf, op, dom = UNARY[name]
    x = dom(rng(11), (2, 3))
    w = rng(12).standard_normal((2, 3))
    elementwise = np.frompyfunc(op, 1, 1)
    obj = np.array(x, dtype=object)
    got = ad.gradient_r(lambda p: np.sum(w * uf(p)))(x)
    want = ad.gradient_r(lambda p: np.sum(w * elementwise(p)))(obj)
    assert want.dtype == object
    np.testing.assert_allclose(got, want.astype(float), rtol=1e-14, atol=1e-15)
    v = rng(13).standard_normal((2, 3))
    got = ad.hvp(lambda p: np.sum(w * uf(p)), x, v, mode="rr")
    want = ad.hvp(lambda p: np.sum(w * elementwise(p)), obj, np.array(v, dtype=object), mode="rr")
    np.testing.assert_allclose(got, want.astype(float), rtol=1e-13, atol=1e-14)


def test_ufunc_values_and_derivatives_in_closed_form():
    x = np.array([0.3, 1.1, 2.0])
    y = np.array([[1.5], [0.5]])
    for grad in (ad.gradient_r, ad.gradient_f):
        gx, gy = grad(lambda p: np.sum(p[0] ** p[1]))((x, y))
        np.testing.assert_allclose(gx, np.sum(y * x ** (y - 1), axis=0), rtol=1e-15)
        np.testing.assert_allclose(gy, np.sum(x ** y * np.log(x), axis=1, keepdims=True),
                                   rtol=1e-15)
        gx, gy = grad(lambda p: np.sum(np.arctan2(p[0], p[1])))((x, y))
        np.testing.assert_allclose(gx, np.sum(y / (x * x + y * y), axis=0), rtol=1e-15)
        np.testing.assert_allclose(gy, np.sum(-x / (x * x + y * y), axis=1, keepdims=True),
                                   rtol=1e-15)


# ---- reductions ---------------------------------------------------------------------------------

REDUCTIONS = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min}
AXES = [None, 0, -1, (0, 2), (1,)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction(name, axis, keepdims):
    fn = REDUCTIONS[name]
    x = rng(5).uniform(0.5, 1.5, (3, 4, 2))

    def f(p):
        return fn(p * p, axis=axis, keepdims=keepdims)
    same_value(f, x, rtol=1e-14)
    assert np.shape(ad.vjp(f, x)[0]) == np.shape(f(x))
    check(f, x)


def test_reductions_as_methods_and_add_reduce():
    x = rng(6).uniform(0.5, 1.5, (3, 4))
    for f in (lambda p: (p * p).sum(axis=1), lambda p: (p * p).mean(0), lambda p: (p * p).prod(),
              lambda p: (p * p).max(axis=0, keepdims=True), lambda p: (p * p).min(1),
              lambda p: np.add.reduce(p * p, axis=1)):
        same_value(f, x, rtol=1e-14)
        check(f, x)


def test_sum_mean_max_gradients_in_closed_form():
    x = np.array([[1.0, 5.0, 2.0], [4.0, 3.0, 0.5]])
    for grad in (ad.gradient_r, ad.gradient_f):
        assert (grad(np.sum)(x) == np.ones_like(x)).all()
        np.testing.assert_array_equal(grad(np.mean)(x), np.full_like(x, 1 / 6))
        np.testing.assert_array_equal(grad(np.max)(x), [[0, 1, 0], [0, 0, 0]])
        np.testing.assert_array_equal(grad(np.min)(x), [[0, 0, 0], [0, 0, 1]])
        np.testing.assert_array_equal(grad(lambda p: np.sum(np.max(p, axis=0)))(x),
                                      [[0, 1, 1], [1, 0, 0]])
        np.testing.assert_allclose(grad(lambda p: np.sum(np.mean(p, axis=1) ** 2))(x),
                                   2 * np.mean(x, axis=1, keepdims=True) / 3 * np.ones_like(x),
                                   rtol=1e-15)


def _product_of_others(a, axis):
    """∂/∂a_k of prod(a, axis), exactly: the product of the slice with a_k left out."""
    out = np.zeros_like(a)
    a_moved = np.moveaxis(a, axis, -1)
    out_moved = np.moveaxis(out, axis, -1)
    for idx in np.ndindex(a_moved.shape[:-1]):
        row = a_moved[idx]
        for k in range(len(row)):
            out_moved[idx + (k,)] = np.prod(np.delete(row, k))
    return out


# rows: no zero, one zero, two zeros, all zeros (small integers: every product is exact)
PROD_ROWS = np.array([[2.0, -3.0, 5.0, 0.5],
                      [2.0, 0.0, 5.0, -3.0],
                      [0.0, 4.0, 0.0, 3.0],
                      [0.0, 0.0, 0.0, 0.0]])


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f], ids=["rev", "fwd"])
def test_prod_with_zeros_is_the_product_of_the_others(grad):
    a = PROD_ROWS
    w = np.array([1.0, 2.0, -1.0, 3.0])
    got = grad(lambda p: np.sum(w[:, None] * np.prod(p, axis=1, keepdims=True)))(a)
    np.testing.assert_array_equal(got, w[:, None] * _product_of_others(a, 1))
    got = grad(lambda p: np.sum(w * np.prod(p, axis=0)))(a.T)
    np.testing.assert_array_equal(got, w * _product_of_others(a.T, 0))
    for row in a:
        np.testing.assert_array_equal(grad(np.prod)(row), _product_of_others(row, 0))
    # the whole array holds several zeros: every partial is 0
    np.testing.assert_array_equal(grad(np.prod)(a), np.zeros_like(a))
    np.testing.assert_array_equal(grad(np.prod)(a[1:3]), np.zeros_like(a[1:3]))
    # one zero in the whole array: the product of the other 7 at it, 0 elsewhere
    b = np.array([[2.0, -3.0, 5.0, 0.5], [1.0, 0.0, 2.0, 4.0]])
    want = np.zeros_like(b)
    want[1, 1] = 2.0 * -3.0 * 5.0 * 0.5 * 1.0 * 2.0 * 4.0
    np.testing.assert_array_equal(grad(np.prod)(b), want)


def _prod_hessian(v):
    n = len(v)
    return np.array([[0.0 if i == j else np.prod(np.delete(v, [i, j])) for j in range(n)]
                     for i in range(n)])


@pytest.mark.parametrize("v", [[2.0, 3.0, 5.0, 0.5], [0.0, 3.0, 5.0, 0.5],
                               [0.0, 0.0, 5.0, 0.5], [0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0]],
                         ids=["no_zero", "one_zero", "two_zeros", "three_zeros", "all_zeros"])
def test_prod_second_derivatives_with_zeros(v):
    """∂²Π/∂x_i∂x_j is the product of the others but x_i and x_j: with two zeros it is nonzero
    exactly at the pair of zeros (a second derivative of the 'two zeros -> 0' branch)."""
    v = np.array(v)
    want = _prod_hessian(v)
    # (the diagonal, exactly 0, may come out as a rounding error of r/x_k's derivative)
    np.testing.assert_allclose(ad.hessian(np.prod)(v), want, rtol=1e-15, atol=1e-14)
    d = np.array([1.0, -2.0, 3.0, 0.5])
    for mode in ("fr", "rf", "rr", "ff"):
        np.testing.assert_allclose(ad.hvp(np.prod, v, d, mode=mode), want @ d, rtol=1e-15,
                                   atol=1e-14, err_msg=mode)


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f], ids=["rev", "fwd"])
def test_extreme_ties_share_the_derivative_evenly(grad):
    x = np.array([1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(grad(np.max)(x), [0, 0.5, 0.5, 0])
    np.testing.assert_array_equal(grad(np.min)(np.array([1.0, 1.0, 1.0, 2.0])),
                                  [1 / 3, 1 / 3, 1 / 3, 0])
    m = np.array([[1.0, 3.0, 2.0], [1.0, 0.0, 2.0]])
    np.testing.assert_array_equal(grad(lambda p: np.sum(np.max(p, axis=0)))(m),
                                  [[0.5, 1, 0.5], [0.5, 0, 0.5]])
    np.testing.assert_array_equal(grad(lambda p: np.sum(np.min(p, axis=1, keepdims=True)))(m),
                                  [[1, 0, 0], [0, 1, 0]])


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f], ids=["rev", "fwd"])
def test_maximum_minimum_ties_split_half_half(grad):
    x = np.array([1.0, 3.0, 0.0])
    y = np.array([1.0, 2.0, 4.0])
    gx, gy = grad(lambda p: np.sum(np.maximum(p[0], p[1])))((x, y))
    np.testing.assert_array_equal(gx, [0.5, 1, 0])
    np.testing.assert_array_equal(gy, [0.5, 0, 1])
    gx, gy = grad(lambda p: np.sum(np.minimum(p[0], p[1])))((x, y))
    np.testing.assert_array_equal(gx, [0.5, 0, 1])
    np.testing.assert_array_equal(gy, [0.5, 1, 0])
    np.testing.assert_array_equal(grad(lambda p: np.sum(np.maximum(p, 1.0)))(x), [0.5, 1, 0])


@pytest.mark.parametrize("mode", ["F", "R", "FR", "RF", "RR", "FF"])
def test_a_branch_is_never_read_on_the_lanes_it_is_not_taken(mode):
    """A conditional partial over mixed lanes runs its branch of most lanes on every lane
    (plain arrays and bundles keep lanes apart): logaddexp(x, 0)'s partial e^x/(1 + e^x), taken
    below 0, is inf/inf = nan at x = 800, whose lane takes 1/(1 + e^(−x)); nothing of it may
    reach a derivative, nor warn."""
    x = np.array([800.0, -1.0, -2.0, -3.0, -900.0, 0.5])
    f = lambda x: np.sum(np.logaddexp(x, 0.0))
    with mp.workdps(30):
        s = [mpmath.mpf(1) / (1 + mpmath.exp(-mpmath.mpf(v))) for v in x]
        first = np.array([float(v) for v in s])                     # σ(x)
        second = np.array([float(v * (1 - v)) for v in s])          # σ(x)σ(−x)
    v = np.ones_like(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if len(mode) == 1:
            got, want = (ad.gradient_f if mode == "F" else ad.gradient_r)(f)(x), first
        else:
            got, want = ad.hvp(f, x, v, mode.lower()), second
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


# ---- products and linear algebra --------------------------------------------------------------

def _unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1),
                 keepdims=True).reshape(shape)


MATMUL_SHAPES = {
    "2d_2d": ((3, 4), (4, 2)),
    "1d_2d": ((4,), (4, 2)),
    "2d_1d": ((3, 4), (4,)),
    "1d_1d": ((4,), (4,)),
    "batched_2d": ((5, 3, 4), (4, 2)),
    "batched_broadcast": ((2, 1, 3, 4), (5, 4, 2)),
    "batched_1d": ((5, 3, 4), (4,)),
    "1d_batched": ((4,), (5, 4, 3)),
}


@pytest.mark.parametrize("shapes", list(MATMUL_SHAPES))
def test_matmul(shapes):
    sa, sb = MATMUL_SHAPES[shapes]
    r = rng(21)
    a, b = r.standard_normal(sa), r.standard_normal(sb)
    f = lambda p: p[0] @ p[1]
    same_value(f, (a, b))
    same_value(lambda p: np.matmul(p[0], p[1]), (a, b))
    check(f, (a, b))
    check(lambda p: a @ p, b)      # a constant on the left: numpy's __matmul__ hands over
    check(lambda p: p @ b, a)
    # closed form: ∂⟨W, a@b⟩/∂a = W bᵀ, ∂/∂b = aᵀ W (1-d operands promoted, batches summed)
    w = r.standard_normal(np.shape(a @ b))
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    w2 = np.reshape(w, np.shape(a2 @ b2))
    want_a = _unbroadcast(w2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
    want_b = _unbroadcast(np.swapaxes(a2, -1, -2) @ w2, b2.shape).reshape(b.shape)
    for grad in (ad.gradient_r, ad.gradient_f):
        ga, gb = grad(lambda p: np.sum(w * (p[0] @ p[1])))((a, b))
        np.testing.assert_allclose(ga, want_a, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(gb, want_b, rtol=1e-13, atol=1e-14)


PRODUCTS = {
    "dot_2d": (lambda p: np.dot(p[0], p[1]), ((3, 4), (4, 2))),
    "dot_1d": (lambda p: np.dot(p[0], p[1]), ((4,), (4,))),
    "dot_3d_2d": (lambda p: np.dot(p[0], p[1]), ((2, 3, 4), (5, 4, 2))),
    "dot_scalar": (lambda p: np.dot(p[0], p[1]), ((), (3, 2))),
    "dot_method": (lambda p: p[0].dot(p[1]), ((3, 4), (4,))),
    "inner_1d": (lambda p: np.inner(p[0], p[1]), ((4,), (4,))),
    "inner_2d": (lambda p: np.inner(p[0], p[1]), ((3, 4), (2, 4))),
    "outer": (lambda p: np.outer(p[0], p[1]), ((4,), (3,))),
    "outer_flattens": (lambda p: np.outer(p[0], p[1]), ((2, 2), (3,))),
    "tensordot_default": (lambda p: np.tensordot(p[0], p[1]), ((5, 3, 4), (3, 4, 2))),
    "tensordot_1": (lambda p: np.tensordot(p[0], p[1], 1), ((5, 3, 4), (4, 2))),
    "tensordot_0": (lambda p: np.tensordot(p[0], p[1], 0), ((3,), (2, 2))),
    "tensordot_pairs": (lambda p: np.tensordot(p[0], p[1], axes=([0, 2], [1, 0])),
                        ((5, 3, 4), (4, 5, 2))),
    "tensordot_ints": (lambda p: np.tensordot(p[0], p[1], axes=(1, 0)), ((5, 3, 4), (3, 2))),
    "tensordot_negative": (lambda p: np.tensordot(p[0], p[1], axes=([-1], [-2])),
                           ((5, 3, 4), (4, 2))),
    "einsum_matmul": (lambda p: np.einsum("ij,jk->ik", p[0], p[1]), ((3, 4), (4, 2))),
    "einsum_batched": (lambda p: np.einsum("bij,bjk->bik", p[0], p[1]), ((2, 3, 4), (2, 4, 2))),
    "einsum_dot": (lambda p: np.einsum("i,i->", p[0], p[1]), ((4,), (4,))),
    "einsum_rowdot": (lambda p: np.einsum("ij,ij->i", p[0], p[1]), ((3, 4), (3, 4))),
    "einsum_transpose": (lambda p: np.einsum("ij->ji", p[0] * p[1]), ((3, 4), (3, 4))),
    "einsum_sum_out": (lambda p: np.einsum("ijk,k->j", p[0], p[1]), ((2, 3, 4), (4,))),
    "einsum_outer": (lambda p: np.einsum("i,j->ij", p[0], p[1]), ((3,), (2,))),
    "einsum_three": (lambda p: np.einsum("ij,jk,kl->il", p[0], p[1], p[0].T),
                     ((3, 4), (4, 4))),
    "trace": (lambda p: np.trace(p[0] @ p[1]), ((3, 4), (4, 3))),
    "trace_offset": (lambda p: np.trace(p[0] * p[1], 1), ((3, 5), (3, 5))),
    "trace_negative_offset": (lambda p: np.trace(p[0] * p[1], -1), ((3, 5), (3, 5))),
    "trace_axes": (lambda p: np.trace(p[0] * p[1], 0, 1, 2), ((2, 3, 3), (2, 3, 3))),
    "trace_method": (lambda p: (p[0] @ p[1]).trace(), ((3, 4), (4, 3))),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_product(name):
    f, shapes = PRODUCTS[name]
    r = rng(len(name))
    point = tuple(np.asarray(r.standard_normal(s)) for s in shapes)
    same_value(f, point, rtol=1e-14)
    check(f, point)


@pytest.mark.parametrize("spec", ["ij,jk", "ii->", "ii->i", "...ij,...jk->...ik"])
def test_einsum_in_numpys_other_forms(spec):
    """Implicit output, a repeated index (a diagonal) and '...' (issue #17: each was a named
    error before)."""
    r = rng(31)
    a, b = r.standard_normal((3, 3)), r.standard_normal((3, 3))
    ops = (a,) if spec.startswith("ii") else (a, b)
    f = lambda p: np.einsum(spec, *p)
    same_value(f, ops)
    check(f, ops)


def test_trace_gradient_is_the_identity():
    x = rng(32).standard_normal((3, 3))
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_array_equal(grad(np.trace)(x), np.eye(3))
        np.testing.assert_array_equal(grad(lambda p: np.trace(p, 1))(x), np.eye(3, k=1))


def _matrix(seed, n=4):
    return rng(seed).standard_normal((n, n)) + 4 * np.eye(n)


@pytest.mark.parametrize("b_shape", [(4,), (4, 2)], ids=["vector_b", "matrix_b"])
def test_solve(b_shape):
    a = _matrix(40)
    b = rng(41).standard_normal(b_shape)
    f = lambda p: np.linalg.solve(p[0], p[1])
    same_value(f, (a, b))
    check(f, (a, b))
    # closed form: x = A⁻¹b, ∂⟨W, x⟩/∂b = A⁻ᵀW, ∂/∂A = -(A⁻ᵀW) xᵀ
    x = np.linalg.solve(a, b)
    w = rng(42).standard_normal(b_shape)
    lam = np.linalg.solve(a.T, w)
    want_a = -np.outer(lam, x) if len(b_shape) == 1 else -lam @ x.T
    for grad in (ad.gradient_r, ad.gradient_f):
        ga, gb = grad(lambda p: np.sum(w * np.linalg.solve(p[0], p[1])))((a, b))
        np.testing.assert_allclose(ga, want_a, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gb, lam, rtol=1e-12, atol=1e-14)


def test_solve_with_both_inputs_tracked_in_every_sweep_of_a_jacobian():
    """x = (A + v uᵀ)⁻¹ v: dx = (1 − u·x) A_v⁻¹ dv.  jacobian_r sweeps one tape once per row,
    each pulling its seed back to both of solve's inputs (which share one solve with A_vᵀ)."""
    a, u = _matrix(44, 5), rng(45).standard_normal(5)
    for v in (rng(46).standard_normal(5), np.arange(1.0, 6.0)):
        av = a + np.outer(v, u)
        x = np.linalg.solve(av, v)
        want = (1.0 - u @ x) * np.linalg.inv(av)
        f = lambda v: np.linalg.solve(a + np.outer(v, u), v)
        for jac in (ad.jacobian_r, ad.jacobian_f):
            np.testing.assert_allclose(jac(f)(v), want, rtol=1e-11, atol=1e-13)
        w = np.arange(5.0)
        np.testing.assert_allclose(ad.gradient_r(lambda v: w @ f(v))(v), want.T @ w, rtol=1e-11,
                                   atol=1e-13)


def test_inv():
    a = _matrix(43)
    same_value(np.linalg.inv, a)
    check(np.linalg.inv, a)
    ai = np.linalg.inv(a)
    da = rng(44).standard_normal((4, 4))
    np.testing.assert_allclose(ad.jvp(np.linalg.inv, a, da)[1], -ai @ da @ ai, rtol=1e-12,
                               atol=1e-14)
    w = rng(45).standard_normal((4, 4))
    np.testing.assert_allclose(ad.vjp(np.linalg.inv, a)[1](w), -ai.T @ w @ ai.T, rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["positive_det", "negative_det"])
def test_det_and_slogdet(sign):
    a = _matrix(46) * np.array([[sign], [1.0], [1.0], [1.0]])
    det, ai = np.linalg.det(a), np.linalg.inv(a)
    assert np.sign(det) == sign
    da = rng(47).standard_normal((4, 4))
    # d det = det·tr(A⁻¹dA); ∇det = det·A⁻ᵀ; d log|det| = tr(A⁻¹dA); ∇ log|det| = A⁻ᵀ
    value, tangent = ad.jvp(np.linalg.det, a, da)
    np.testing.assert_allclose(value, det, rtol=1e-15)
    np.testing.assert_allclose(tangent, det * np.trace(ai @ da), rtol=1e-12)
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_allclose(grad(np.linalg.det)(a), det * ai.T, rtol=1e-12)
        np.testing.assert_allclose(grad(lambda p: np.linalg.slogdet(p)[1])(a), ai.T, rtol=1e-12,
                                   atol=1e-15)
    value, tangent = ad.jvp(lambda p: np.linalg.slogdet(p)[1], a, da)
    np.testing.assert_allclose(value, np.log(abs(det)), rtol=1e-15)
    np.testing.assert_allclose(tangent, np.trace(ai @ da), rtol=1e-12)

    def sign_and_log(p):
        s, l = np.linalg.slogdet(p)
        assert s == sign                  # the sign is a plain number: piecewise constant
        return s * l
    check(np.linalg.det, a)
    check(lambda p: np.linalg.slogdet(p)[1], a)
    check(sign_and_log, a)
    # numpy's named result, as numpy gives it
    np.testing.assert_allclose(ad.gradient_r(lambda p: np.linalg.slogdet(p).logabsdet)(a),
                               ai.T, rtol=1e-12, atol=1e-15)
    assert ad.gradient_r(lambda p: np.linalg.slogdet(p).sign * p[0, 0])(a)[0, 0] == sign


def test_linalg_nested_closed_form():
    """d/ds of ∇_A det(A + sB) at s = 0 = d/ds det(A+sB)·(A+sB)⁻ᵀ
    = det·tr(A⁻¹B)·A⁻ᵀ − det·A⁻ᵀBᵀA⁻ᵀ."""
    a, b = _matrix(48), rng(49).standard_normal((4, 4))
    det, ai = np.linalg.det(a), np.linalg.inv(a)
    want = det * np.trace(ai @ b) * ai.T - det * ai.T @ b.T @ ai.T
    got = ad.derivative(lambda s: ad.gradient_r(np.linalg.det)(a + s * b))(0.0)
    np.testing.assert_allclose(got, want, rtol=1e-11)
    got = ad.hvp(np.linalg.det, a, b, mode="rr")
    np.testing.assert_allclose(got, want, rtol=1e-11)


# ---- shapes and indexing -----------------------------------------------------------------------

def _sq(p):
    return p * p       # makes a linear shape operation nonlinear, so order 2 checks something


SHAPE_OPS = {
    "reshape": (lambda p: np.reshape(_sq(p), (4, 6)), (2, 3, 4)),
    "reshape_minus_one": (lambda p: np.reshape(_sq(p), (-1, 2)), (2, 3, 4)),
    "reshape_method": (lambda p: _sq(p).reshape(2, -1), (2, 3, 4)),
    "reshape_method_tuple": (lambda p: _sq(p).reshape((6, 4)), (2, 3, 4)),
    "transpose": (lambda p: np.transpose(_sq(p)), (2, 3, 4)),
    "transpose_axes": (lambda p: np.transpose(_sq(p), (1, 2, 0)), (2, 3, 4)),
    "transpose_method": (lambda p: _sq(p).transpose(2, 0, 1), (2, 3, 4)),
    "T": (lambda p: _sq(p).T, (3, 4)),
    "swapaxes": (lambda p: np.swapaxes(_sq(p), 0, 2), (2, 3, 4)),
    "swapaxes_method": (lambda p: _sq(p).swapaxes(-1, 0), (2, 3, 4)),
    "squeeze": (lambda p: np.squeeze(_sq(p)), (1, 3, 1)),
    "squeeze_axis": (lambda p: np.squeeze(_sq(p), axis=2), (1, 3, 1)),
    "expand_dims": (lambda p: np.expand_dims(_sq(p), 1), (3, 4)),
    "expand_dims_negative": (lambda p: np.expand_dims(_sq(p), -1), (3, 4)),
    "broadcast_to": (lambda p: np.broadcast_to(_sq(p), (2, 3, 4)), (3, 4)),
    "broadcast_to_size1": (lambda p: np.broadcast_to(_sq(p), (2, 3, 4)), (3, 1)),
    "ravel": (lambda p: np.ravel(_sq(p)), (2, 3, 4)),
    "ravel_method": (lambda p: _sq(p).ravel(), (2, 3, 4)),
    "flatten_method": (lambda p: _sq(p).flatten(), (2, 3, 4)),
    "slice": (lambda p: _sq(p)[1:], (6,)),
    "slice_step": (lambda p: _sq(p)[::2], (6,)),
    "slice_negative": (lambda p: _sq(p)[-3:-1], (6,)),
    "slice_negative_step": (lambda p: _sq(p)[::-2], (6,)),
    "slice_2d": (lambda p: _sq(p)[1:, ::-1], (3, 4)),
    "integer": (lambda p: _sq(p)[2], (6,)),
    "integer_negative": (lambda p: _sq(p)[-1], (6,)),
    "integer_row": (lambda p: _sq(p)[1], (3, 4)),
    "integer_pair": (lambda p: _sq(p)[1, 2], (3, 4)),
    "integer_and_slice": (lambda p: _sq(p)[1, ::2], (3, 4)),
    "ellipsis": (lambda p: _sq(p)[..., 1], (2, 3, 4)),
    "none": (lambda p: _sq(p)[None, :, None], (6,)),
    "ellipsis_none": (lambda p: _sq(p)[..., None, 0], (2, 3, 4)),
    "mask": (lambda p: _sq(p)[np.array([True, False, True, True, False, True])], (6,)),
    "mask_2d": (lambda p: _sq(p)[np.arange(12).reshape(3, 4) % 3 == 0], (3, 4)),
    "mask_rows": (lambda p: _sq(p)[np.array([True, False, True])], (3, 4)),
    "mask_from_values": (lambda p: _sq(p)[p > 0], (3, 4)),
    "int_array_repeated": (lambda p: _sq(p)[np.array([0, 2, 2, 5, 0, 0])], (6,)),
    "int_array_2d_repeated": (lambda p: _sq(p)[np.array([[0, 1], [1, 1]])], (3, 4)),
    "int_list_repeated": (lambda p: _sq(p)[[0, 0, 1]], (6,)),
    "pairs_repeated": (lambda p: _sq(p)[np.array([0, 2, 0]), np.array([1, 3, 1])], (3, 4)),
    "slice_and_int_array": (lambda p: _sq(p)[1:, np.array([0, 0, 3])], (3, 4)),
    "concatenate_0": (lambda p: np.concatenate([_sq(p[0]), p[1], p[0]]), ((3, 4), (2, 4))),
    "concatenate_1": (lambda p: np.concatenate((_sq(p[0]), p[1], p[0]), axis=1),
                      ((3, 4), (3, 2))),
    "concatenate_negative": (lambda p: np.concatenate((p[1], _sq(p[0])), axis=-1),
                             ((3, 4), (3, 2))),
    "concatenate_none": (lambda p: np.concatenate((_sq(p[0]), p[1]), axis=None),
                         ((3, 4), (3, 2))),
    "concatenate_constant": (lambda p: np.concatenate((_sq(p), np.ones((3, 2))), axis=1),
                             (3, 4)),
    "stack": (lambda p: np.stack([_sq(p[0]), p[1]]), ((3, 4), (3, 4))),
    "stack_1": (lambda p: np.stack([_sq(p[0]), p[1], p[0]], axis=1), ((3, 4), (3, 4))),
    "stack_negative": (lambda p: np.stack([_sq(p[0]), p[1]], axis=-1), ((3, 4), (3, 4))),
    "where": (lambda p: np.where(p[0] > 0, _sq(p[0]), p[1]), ((3, 4), (3, 4))),
    "where_broadcast": (lambda p: np.where(p[0] > 0, _sq(p[0]), p[1]), ((3, 4), (4,))),
    "where_scalar_branch": (lambda p: np.where(p > 0, _sq(p), 0.0), (3, 4)),
    "where_ad_scalar": (lambda p: np.where(p[0] > 0, _sq(p[0]), p[1]), ((3, 4), ())),
    "clip": (lambda p: np.clip(_sq(p), 0.2, 1.0), (3, 4)),
    "clip_method": (lambda p: _sq(p).clip(0.2, 1.0), (3, 4)),
    "clip_one_sided": (lambda p: np.clip(_sq(p), None, 1.0), (3, 4)),
    "clip_ad_bounds": (lambda p: np.clip(_sq(p[0]), p[1], p[2]), ((3, 4), (), ())),
    "diff": (lambda p: np.diff(_sq(p)), (6,)),
    "diff_n2": (lambda p: np.diff(_sq(p), n=2), (6,)),
    "diff_axis0": (lambda p: np.diff(_sq(p), axis=0), (3, 4)),
    "norm": (lambda p: np.linalg.norm(p), (3, 4)),
    "norm_vector_2": (lambda p: np.linalg.norm(p, 2), (5,)),
    "norm_fro": (lambda p: np.linalg.norm(p, "fro"), (3, 4)),
    "norm_axis": (lambda p: np.linalg.norm(p, axis=1), (3, 4)),
    "norm_axis_keepdims": (lambda p: np.linalg.norm(p, axis=0, keepdims=True), (3, 4)),
    "iterate_rows": (lambda p: [_sq(row) for row in p], (3, 4)),
    "iterate_elements": (lambda p: sum(_sq(e) for e in p), (5,)),
}


@pytest.mark.parametrize("name", list(SHAPE_OPS))
def test_shape_operation(name):
    f, shapes = SHAPE_OPS[name]
    r = rng(len(name))
    if isinstance(shapes[0], tuple):
        point = tuple(np.asarray(r.standard_normal(s)) if s else float(r.standard_normal())
                      for s in shapes)
    else:
        point = r.standard_normal(shapes)
    if name == "clip_ad_bounds":
        point = (point[0], 0.2, 1.0)
    same_value(f, point)
    check(f, point)


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f], ids=["rev", "fwd"])
def test_repeated_indices_add_up(grad):
    x = np.arange(6.0)
    idx = np.array([0, 2, 2, 5, 0, 0])
    np.testing.assert_array_equal(grad(lambda p: np.sum(p[idx]))(x), np.bincount(idx, minlength=6))
    np.testing.assert_array_equal(grad(lambda p: np.sum(p[idx] ** 2))(x),
                                  2 * x * np.bincount(idx, minlength=6))
    m = np.arange(12.0).reshape(3, 4)
    i, j = np.array([0, 2, 0, 1]), np.array([1, 3, 1, 1])
    want = np.zeros((3, 4))
    np.add.at(want, (i, j), 1.0)
    np.testing.assert_array_equal(grad(lambda p: np.sum(p[i, j]))(m), want)
    np.testing.assert_array_equal(grad(lambda p: np.sum(p[i, j] ** 2))(m), 2 * m * want)
    np.testing.assert_array_equal(grad(lambda p: np.sum(p[[1, 1, 1]]))(x), [0, 3, 0, 0, 0, 0])


def test_repeated_indices_second_derivative():
    x = np.array([0.5, -1.0, 2.0, 1.5])
    idx = np.array([0, 2, 2, 2, 3, 0])
    count = np.bincount(idx, minlength=4)
    want = np.diag(6 * x * count)                      # ∂² Σ x[idx]³ = diag(6 x·count)
    np.testing.assert_allclose(ad.hessian(lambda p: np.sum(p[idx] ** 3))(x), want, rtol=1e-15)
    v = np.array([1.0, 2.0, -1.0, 0.5])
    for mode in ("fr", "rf", "rr", "ff"):
        np.testing.assert_allclose(ad.hvp(lambda p: np.sum(p[idx] ** 3), x, v, mode=mode),
                                   want @ v, rtol=1e-15, err_msg=mode)


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f], ids=["rev", "fwd"])
def test_integer_indexing_and_iteration_gradients(grad):
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(grad(lambda p: p[1])(x), [0, 1, 0])
    np.testing.assert_array_equal(grad(lambda p: p[-1] * p[0])(x), [3, 0, 1])
    np.testing.assert_array_equal(grad(lambda p: sum(e * e for e in p))(x), 2 * x)
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(grad(lambda p: p[1, 2] ** 2)(m), [[0, 0, 0], [0, 0, 10]])
    np.testing.assert_array_equal(grad(lambda p: np.sum(p[1]))(m), [[0, 0, 0], [1, 1, 1]])


@pytest.mark.parametrize("grad", [ad.gradient_r, ad.gradient_f], ids=["rev", "fwd"])
def test_where_clip_norm_diff_in_closed_form(grad):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    # where sends the derivative to the branch it picked
    gx, gy = grad(lambda p: np.sum(np.where(p[0] > 0.25, p[0] ** 2, p[1])))((x, 3 * x))
    np.testing.assert_array_equal(gx, [0, 0, 1, 2, 4])
    np.testing.assert_array_equal(gy, [1, 1, 0, 0, 0])
    # clip at a bound follows x: derivative 1 at x == lo and x == hi
    np.testing.assert_array_equal(grad(lambda p: np.sum(np.clip(p, 0.0, 1.0)))(x),
                                  [0, 1, 1, 1, 0])
    gx, lo, hi = grad(lambda p: np.sum(np.clip(p[0], p[1], p[2])))((x, 0.0, 1.0))
    np.testing.assert_array_equal(gx, [0, 1, 1, 1, 0])
    assert (lo, hi) == (1.0, 1.0)
    y = np.array([3.0, -4.0, 12.0])
    np.testing.assert_allclose(grad(np.linalg.norm)(y), y / 13.0, rtol=1e-15)
    np.testing.assert_array_equal(grad(lambda p: np.sum(np.diff(p) * np.arange(4.0)))(x),
                                  [0, -1, -1, -1, 3])


# ---- comparisons, attributes ----------------------------------------------------------------------

def _inside_both_modes(f, x):
    """f(AD x) inside a reverse pass and inside a forward pass."""
    seen = []

    def g(p):
        seen.append(f(p))
        return np.sum(p)
    ad.gradient_r(g)(x)
    ad.jvp(g, x, np.ones_like(x))
    assert len(seen) == 2
    return seen


def test_comparisons_return_plain_bool_arrays():
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, 4.0]])
    other = np.array([0.0, 1.0, 3.0])
    cases = [(lambda p: p < 1.0, x < 1.0), (lambda p: p <= other, x <= other),
             (lambda p: p > p[::-1], x > x[::-1]), (lambda p: 1.0 >= p, 1.0 >= x),
             (lambda p: p == p.T.T, x == x), (lambda p: p != 3.0, x != 3.0),
             (lambda p: np.less(p, 0.5), np.less(x, 0.5)),
             (lambda p: np.greater_equal(other, p), np.greater_equal(other, x)),
             (lambda p: np.isfinite(p), np.isfinite(x)), (lambda p: np.isnan(p), np.isnan(x)),
             (lambda p: np.logical_and(p > 0, p < 3), (x > 0) & (x < 3))]
    for f, want in cases:
        for got in _inside_both_modes(f, x):
            assert type(got) is np.ndarray and got.dtype == bool
            np.testing.assert_array_equal(got, want)


def test_array_attributes_on_ad_arrays():
    def attributes(p):
        assert isinstance(p, (ad.Bundle, ad.TapeCell))
        rows = list(p)
        assert all(isinstance(r, (ad.Bundle, ad.TapeCell)) for r in rows)
        return (p.shape, np.shape(p), p.ndim, np.ndim(p), p.size, np.size(p), p.dtype, len(p),
                len(rows), [ad.primal(r).tolist() for r in rows], type(np.zeros_like(p)))
    x = np.arange(6.0).reshape(2, 3)
    for got in _inside_both_modes(attributes, x):
        assert got == ((2, 3), (2, 3), 2, 2, 6, 6, np.float64, 2, 2,
                       [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], np.ndarray)
    for got in _inside_both_modes(lambda p: p.dtype, x.astype(np.float32)):
        assert got == np.float32


def test_zero_d_ad_arrays_have_no_len_or_index():
    with pytest.raises(TypeError):
        ad.gradient_r(lambda p: len(p))(np.array(1.0))
    with pytest.raises(IndexError):
        ad.gradient_r(lambda p: p[0])(np.array(1.0))


# ---- forward == reverse, Jacobians, Hessians ------------------------------------------------------

ARRAY_FUNCTIONS = {
    "sin_times": lambda p: np.sum(np.sin(p) * p),
    "quadratic_form": lambda p: p @ np.arange(9.0).reshape(3, 3) @ p,
    "softplus_mean": lambda p: np.mean(np.log1p(np.exp(p))),
    "norm_cubed": lambda p: np.linalg.norm(p) ** 3,
    "prod_max": lambda p: np.prod(p) + np.max(p ** 2),
    "slices": lambda p: np.sum(p[1:] * p[:-1]) + p[0] ** 3,
}


@pytest.mark.parametrize("name", list(ARRAY_FUNCTIONS))
def test_forward_gradient_equals_reverse_gradient(name):
    f = ARRAY_FUNCTIONS[name]
    x = rng(60).uniform(0.3, 1.5, 3)
    gr, gf = ad.gradient_r(f)(x), ad.gradient_f(f)(x)
    assert type(gr) is np.ndarray and gr.shape == x.shape
    np.testing.assert_allclose(gf, gr, rtol=1e-13, atol=1e-15)
    h = ad.hessian(f)(x)
    assert np.shape(h) == (3, 3)
    np.testing.assert_allclose(h, np.transpose(h), rtol=1e-13, atol=1e-14)
    check(f, x)


@settings(max_examples=30)
@given(data=st.data())
def test_property_forward_equals_reverse_and_hvp_modes_agree(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3), label="shape")
    x = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2)), label="x")
    v = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2)), label="v")
    c = np.arange(x.size, dtype=float).reshape(shape) / x.size

    def f(p):
        q = np.sin(p) * np.cos(c * p) + p ** 2 * c
        return np.sum(np.tanh(q)) + np.sum(np.exp(np.ravel(q)[::-1] * 0.5) * np.ravel(p))

    gr, gf = ad.gradient_r(f)(x), ad.gradient_f(f)(x)
    np.testing.assert_allclose(gf, gr, rtol=1e-12, atol=1e-13)
    hvps = [ad.hvp(f, x, v, mode=m) for m in ("fr", "rf", "rr", "ff")]
    for h in hvps[1:]:
        np.testing.assert_allclose(h, hvps[0], rtol=1e-11, atol=1e-12)


def test_jacobians_have_shape_out_by_in():
    r = rng(61)
    a = r.standard_normal((2, 3))
    x = r.standard_normal(3)
    f = lambda p: a @ np.sin(p)
    for jac in (ad.jacobian_f, ad.jacobian_r):
        j = jac(f)(x)
        assert type(j) is np.ndarray and j.shape == (2, 3)
        np.testing.assert_allclose(j, a * np.cos(x), rtol=1e-15)
    m = r.standard_normal((2, 3))
    g = lambda p: np.tanh(p) @ p.T                        # (2, 3) -> (2, 2)
    jf, jr = ad.jacobian_f(g)(m), ad.jacobian_r(g)(m)
    assert jf.shape == jr.shape == (2, 2, 2, 3)
    np.testing.assert_allclose(jf, jr, rtol=1e-14, atol=1e-15)
    # column (i, j) is the derivative along the unit direction E_ij
    e = np.zeros((2, 3))
    e[1, 2] = 1.0
    np.testing.assert_allclose(jf[..., 1, 2], ad.jvp(g, m, e)[1], rtol=1e-15)
    # a scalar-valued function: shape () + in.shape
    for jac in (ad.jacobian_f, ad.jacobian_r):
        assert np.shape(jac(lambda p: np.sum(p ** 3))(m)) == (2, 3)


def test_jacobian_of_a_constant_array_function_has_shape_out_by_in():
    for jac in (ad.jacobian_f, ad.jacobian_r):
        j = jac(lambda p: np.ones(3))(np.zeros(2))
        assert np.shape(j) == (3, 2), jac.__name__
        assert not np.any(j)


def test_constant_result_has_zero_tangent_of_its_own_shape():
    """A result that does not depend on the input has tangent 0 in the *result's* shape."""
    y, t = ad.jvp(lambda p: np.ones(3), np.zeros(2), np.ones(2))
    assert np.shape(t) == (3,) and not np.any(t)
    (_, t2), _ = ad.jvp(lambda p: (p, np.ones(3)), np.zeros(2), np.ones(2))
    assert np.shape(t2) == (3,)
    t = ad.derivative(lambda s: np.ones(3))(1.0)
    assert np.shape(t) == (3,) and not np.any(t)
    t = ad.directional_derivative(lambda p: np.sum(p, axis=1) * 0.0 + np.ones(3),
                                  np.zeros((3, 2)), np.ones((3, 2)))
    assert np.shape(t) == (3,)
    # a zero direction: the scalar's tangent is the scalar 0, so hvp "ff" keeps x's shape
    f = lambda p: np.sum(p ** 3)
    x3 = np.array([1.0, 2.0, 3.0])
    assert np.shape(ad.jvp(f, x3, np.zeros(3))[1]) == ()
    for mode in ("fr", "rf", "rr", "ff"):
        assert np.shape(ad.hvp(f, x3, np.zeros(3), mode=mode)) == (3,), mode
    # so also a Hessian-vector product whose gradient is constant in one leaf
    x, y = np.ones((3, 1)), np.ones((1, 4))
    for mode in ("fr", "ff"):
        hx, hy = ad.hvp(lambda p: np.sum(p[0] * 2.0 + p[1]), (x, y), (x, y), mode=mode)
        assert (np.shape(hx), np.shape(hy)) == ((3, 1), (1, 4)), mode


def test_hessian_is_square_and_symmetric():
    x = rng(62).uniform(-1, 1, 6)
    f = lambda p: np.sum(np.exp(p[:-1] * p[1:])) * np.linalg.norm(p)
    h = ad.hessian(f)(x)
    assert type(h) is np.ndarray and h.shape == (6, 6)
    np.testing.assert_allclose(h, h.T, rtol=1e-13, atol=1e-14)
    for mode in ("fr", "rf", "rr", "ff"):
        np.testing.assert_allclose(ad.hvp(f, x, np.eye(6)[2], mode=mode), h[:, 2], rtol=1e-13,
                                   atol=1e-14, err_msg=mode)


# ---- Rosenbrock: the four HVP modes against the analytic Hessian ----------------------------------

@pytest.mark.parametrize("n,mode", [(10, "fr"), (10, "rf"), (10, "rr"), (10, "ff"),
                                    (1000, "fr"), (1000, "rf"), (1000, "rr")])
def test_rosenbrock_hvp(n, mode):
    r = rng(n)
    x, v = r.uniform(-1.0, 1.5, n), r.standard_normal(n)
    want = rosenbrock_hvp(x, v)
    got = ad.hvp(rosenbrock, x, v, mode=mode)
    assert type(got) is np.ndarray and got.shape == (n,)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.max(np.abs(want)))


def test_rosenbrock_value_gradient_and_hessian():
    x = rng(70).uniform(-1.0, 1.5, 10)
    for grad in (ad.gradient_r, ad.gradient_f):
        g = grad(rosenbrock)(x)
        np.testing.assert_allclose(g, rosenbrock_gradient(x), rtol=1e-13,
                                   atol=1e-13 * np.max(np.abs(g)))
    h = ad.hessian(rosenbrock)(x)
    assert h.shape == (10, 10)
    np.testing.assert_array_equal(h, h.T)
    want = np.column_stack([rosenbrock_hvp(x, e) for e in np.eye(10)])
    np.testing.assert_allclose(h, want, rtol=1e-13, atol=1e-13 * np.max(np.abs(want)))
    np.testing.assert_allclose(rosenbrock(np.ones(10)), 0.0)
    np.testing.assert_array_equal(ad.gradient_r(rosenbrock)(np.ones(10)), np.zeros(10))


# ---- a small MLP: gradient over a dict of weight arrays against backprop by hand -------------------

def _mlp_data():
    r = rng(80)
    weights = {"W1": r.standard_normal((3, 5)), "b1": r.standard_normal(5),
               "W2": r.standard_normal((5, 2)), "b2": r.standard_normal(2)}
    return weights, r.standard_normal((7, 3)), r.standard_normal((7, 2))


def test_mlp_gradient_equals_backprop_by_hand():
    weights, xs, ys = _mlp_data()

    def loss(w):
        hidden = np.tanh(xs @ w["W1"] + w["b1"])
        return np.mean((hidden @ w["W2"] + w["b2"] - ys) ** 2)

    def backprop(w):
        hidden = np.tanh(xs @ w["W1"] + w["b1"])
        out = hidden @ w["W2"] + w["b2"]
        d_out = 2.0 * (out - ys) / out.size
        d_pre = (d_out @ w["W2"].T) * (1.0 - hidden ** 2)
        return {"W1": xs.T @ d_pre, "b1": d_pre.sum(axis=0),
                "W2": hidden.T @ d_out, "b2": d_out.sum(axis=0)}

    want = backprop(weights)
    for grad in (ad.gradient_r, ad.gradient_f):
        got = grad(loss)(weights)
        assert type(got) is dict and list(got) == ["W1", "b1", "W2", "b2"]
        for k in want:
            assert got[k].shape == weights[k].shape
            np.testing.assert_allclose(got[k], want[k], rtol=1e-13, atol=1e-15, err_msg=k)
    check(loss, weights)


# ---- nesting ------------------------------------------------------------------------------------

def test_derivative_of_an_array_gradient():
    """d/ds ∇_x Σ sin(s·x)·x = d/ds [s·x·cos(sx) + sin(sx)] = 2x·cos(sx) − s·x²·sin(sx)."""
    x = rng(90).uniform(-1, 1, 4)
    s = 0.7
    want = 2 * x * np.cos(s * x) - s * x ** 2 * np.sin(s * x)
    f = lambda s_: ad.gradient_r(lambda p: np.sum(np.sin(s_ * p) * p))(x)
    got = ad.derivative(f)(s)
    assert type(got) is np.ndarray and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-14)
    h = 1e-6
    np.testing.assert_allclose(got, (f(s + h) - f(s - h)) / (2 * h), rtol=1e-7)
    np.testing.assert_allclose(ad.gradient_r(lambda s_: np.sum(f(s_)))(s), np.sum(want),
                               rtol=1e-14)
    block = ad.jacobian_f(f)(s)               # one output leaf, one number in: the block
    np.testing.assert_allclose(block, want, rtol=1e-14)


# inner operator -> (function of s and p, its value at (s, x), the derivative in s of that value)
INNER_OPERATORS = {
    "gradient_f": (lambda s, x: ad.gradient_f(lambda p: np.sum(np.sin(s * p) * p))(x),
                   lambda s, x: s * x * np.cos(s * x) + np.sin(s * x),
                   lambda s, x: 2 * x * np.cos(s * x) - s * x ** 2 * np.sin(s * x)),
    "jacobian_f": (lambda s, x: ad.jacobian_f(lambda p: np.sin(s * p))(x),
                   lambda s, x: np.diag(s * np.cos(s * x)),
                   lambda s, x: np.diag(np.cos(s * x) - s * x * np.sin(s * x))),
    "jacobian_r": (lambda s, x: ad.jacobian_r(lambda p: np.sin(s * p))(x),
                   lambda s, x: np.diag(s * np.cos(s * x)),
                   lambda s, x: np.diag(np.cos(s * x) - s * x * np.sin(s * x))),
    "hessian": (lambda s, x: ad.hessian(lambda p: np.sum(np.sin(s * p)))(x),
                lambda s, x: np.diag(-s * s * np.sin(s * x)),
                lambda s, x: np.diag(-2 * s * np.sin(s * x) - s * s * x * np.cos(s * x))),
}


@pytest.mark.parametrize("outer", ["derivative", "gradient_r"])
@pytest.mark.parametrize("inner", list(INNER_OPERATORS))
def test_array_jacobians_inside_a_scalar_derivative(inner, outer):
    """An array Jacobian/gradient computed while an outer perturbation of s is live: its value,
    and its derivative in s (a float array, as outside any derivative)."""
    f, value, slope = INNER_OPERATORS[inner]
    x, s = np.array([0.5, -0.3, 0.8]), 0.7
    seen = []

    def g(s_):
        out = f(s_, x)
        seen.append(ad.primal(out) if not isinstance(out, np.ndarray) or out.dtype != object
                    else np.vectorize(ad.primal, otypes=[float])(out))
        return out
    np.testing.assert_allclose(f(s, x), value(s, x), rtol=1e-14, atol=1e-15)
    w = np.arange(1.0, 1.0 + value(s, x).size).reshape(value(s, x).shape)
    if outer == "derivative":
        got = ad.derivative(g)(s)
    else:
        got = ad.gradient_r(lambda s_: np.sum(w * g(s_)))(s)
    np.testing.assert_allclose(seen[0], value(s, x), rtol=1e-14, atol=1e-15,
                               err_msg="the inner value, computed under the outer perturbation")
    if outer == "derivative":
        assert type(got) is np.ndarray and got.dtype == np.float64, (type(got), got.dtype)
        np.testing.assert_allclose(got, slope(s, x), rtol=1e-14, atol=1e-15)
    else:
        np.testing.assert_allclose(got, np.sum(w * slope(s, x)), rtol=1e-14)


def test_reverse_gradient_of_a_jvp_of_an_array_function():
    """∇_s ⟨w, J_x sin(s·x) v⟩ = Σ w·v·(cos(sx) − s·x·sin(sx)), for scalar and array s."""
    r = rng(91)
    x, v, w = r.uniform(-1, 1, 4), r.standard_normal(4), r.standard_normal(4)
    s = 0.7
    want = np.sum(w * v * (np.cos(s * x) - s * x * np.sin(s * x)))
    g = lambda s_: np.sum(w * ad.jvp(lambda p: np.sin(s_ * p), x, v)[1])
    np.testing.assert_allclose(ad.gradient_r(g)(s), want, rtol=1e-14)
    np.testing.assert_allclose(ad.derivative(g)(s), want, rtol=1e-14)
    sv = np.array([0.3, 0.4, 0.5, 0.6])
    want_v = w * v * (np.cos(sv * x) - sv * x * np.sin(sv * x))
    np.testing.assert_allclose(ad.gradient_r(g)(sv), want_v, rtol=1e-14)
    np.testing.assert_allclose(ad.gradient_f(g)(sv), want_v, rtol=1e-14)


def test_no_perturbation_confusion_with_arrays():
    """The 2005 example with arrays: D(s ↦ Σ s·∇_y Σ(s·x + y))(1) = n, not n + Σ... ."""
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5, 0.5])
    inner = lambda s: ad.gradient_r(lambda q: np.sum(s * x + q))(y)
    assert ad.derivative(lambda s: np.sum(s * inner(s)))(1.0) == 3.0
    assert ad.gradient_r(lambda s: np.sum(s * inner(s)))(1.0) == 3.0
    # D(s ↦ Σ s·∇_y Σ(s·x·y))(1) = Σ 2·s·x = 12
    inner2 = lambda s: ad.gradient_r(lambda q: np.sum(s * x * q))(y)
    assert ad.derivative(lambda s: np.sum(s * inner2(s)))(1.0) == 12.0
    assert ad.gradient_r(lambda s: np.sum(s * inner2(s)))(1.0) == 12.0
    # the R-over-D and D-over-R rows of CASES.md §1 with an array x: ∂/∂x_i of Σ x·x·x = 3x²
    xs = np.array([1.0, 3.0])
    np.testing.assert_array_equal(
        ad.gradient_r(lambda p: np.sum(ad.directional_derivative(lambda q: p * q * q, p,
                                                                 np.ones(2))))(xs), 2 * 2 * xs)
    np.testing.assert_array_equal(
        ad.gradient_f(lambda p: np.sum(ad.gradient_r(lambda q: np.sum(p * q * q))(p)))(xs),
        2 * 2 * xs)


def test_array_derivative_operator_made_once_and_reentered():
    """Tags are made when an operator is applied: one gradient_r object reused inside itself."""
    grad = ad.gradient_r(lambda p: np.sum(p ** 3))
    x = np.array([1.0, 2.0])
    # ∇ Σ (∇ Σ p³)(p)·p = ∇ Σ 3p³ = 9p²
    np.testing.assert_array_equal(ad.gradient_r(lambda p: np.sum(grad(p) * p))(x), 9 * x ** 2)


# ---- float32, complex, no rule, object arrays, mpmath -----------------------------------------------

FLOAT32_FUNCTIONS = {
    "sin": lambda p: np.sum(np.sin(p) * p),
    "int_power": lambda p: np.sum(p ** 3 + 2 * p + 1),
    "python_floats": lambda p: np.sum(2.5 * p / 3.0 - 1.5),
    "rpow": lambda p: np.sum(2.0 ** p),
    "max": lambda p: np.max(p * p),
    "min_axis": lambda p: np.sum(np.min(p * p, axis=0)),
    "maximum": lambda p: np.sum(np.maximum(p * p, 1.0)),
    "mean": lambda p: np.mean(p * p),
    "prod": lambda p: np.prod(p),
    "matmul": lambda p: np.sum(p @ p),
    "einsum": lambda p: np.einsum("ij,jk->", p, p),
    "solve": lambda p: np.sum(np.linalg.solve(p, np.ones(3, np.float32))),
    "det": lambda p: np.linalg.det(p),
    "norm": lambda p: np.linalg.norm(p),
    "indexing": lambda p: np.sum(p[1:] ** 2) + np.sum(p[np.array([0, 0, 2])] ** 2),
    "concatenate": lambda p: np.sum(np.concatenate([p, p * 2]) ** 2),
    "where_clip": lambda p: np.sum(np.where(p > 1, p, 0.0) ** 2 + np.clip(p, 0.8, 1.2) ** 2),
    "rosenbrock": lambda p: rosenbrock(np.ravel(p)),
}


@pytest.mark.parametrize("name", list(FLOAT32_FUNCTIONS))
def test_float32_stays_float32(name):
    f = FLOAT32_FUNCTIONS[name]
    x = (rng(100).uniform(0.5, 1.5, (3, 3)) + 2 * np.eye(3)).astype(np.float32)
    v = np.ones_like(x)
    assert np.asarray(f(x)).dtype == np.float32
    x64 = x.astype(np.float64)
    results = {
        "value under vjp": (ad.vjp(f, x)[0], f(x64)),
        "gradient_r": (ad.gradient_r(f)(x), ad.gradient_r(f)(x64)),
        "gradient_f": (ad.gradient_f(f)(x), ad.gradient_r(f)(x64)),
        "jvp": (ad.jvp(f, x, v)[1], ad.jvp(f, x64, v.astype(np.float64))[1]),
        "hvp fr": (ad.hvp(f, x, v), ad.hvp(f, x64, v.astype(np.float64))),
        "hvp rr": (ad.hvp(f, x, v, mode="rr"), ad.hvp(f, x64, v.astype(np.float64))),
    }
    for what, (got, want) in results.items():
        assert np.asarray(got).dtype == np.float32, f"{what}: {np.asarray(got).dtype}"
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.max(np.abs(want)),
                                   err_msg=what)


@pytest.mark.parametrize("op", ["gradient_r", "gradient_f", "jvp", "vjp", "hvp"])
def test_complex_input_arrays_raise(op):
    z = np.array([1.0 + 2.0j, 0.5 - 1.0j])
    f = lambda p: np.sum(p * p)
    calls = {"gradient_r": lambda: ad.gradient_r(f)(z), "gradient_f": lambda: ad.gradient_f(f)(z),
             "jvp": lambda: ad.jvp(f, z, z), "vjp": lambda: ad.vjp(f, z),
             "hvp": lambda: ad.hvp(f, z, z)}
    with pytest.raises(NotDifferentiableError) as info:
        calls[op]()
    assert isinstance(info.value, TypeError)


COMPLEX_CONSTANT = np.array([1.0j, 2.0, -1.0j])
COMPLEX_USES = {
    "multiply": lambda p: np.sum(p * COMPLEX_CONSTANT),
    "add_scalar": lambda p: np.sum(p + 1j),
    "matmul": lambda p: p @ COMPLEX_CONSTANT,
    "dot": lambda p: np.dot(p, COMPLEX_CONSTANT),
    "einsum": lambda p: np.einsum("i,i->", p, COMPLEX_CONSTANT),
    "outer": lambda p: np.sum(np.outer(p, COMPLEX_CONSTANT)),
    "where": lambda p: np.sum(np.where(p > 0, p, COMPLEX_CONSTANT)),
    "concatenate": lambda p: np.sum(np.concatenate([p, COMPLEX_CONSTANT])),
    "solve": lambda p: np.sum(np.linalg.solve(np.eye(3) * (1 + 1j), p)),
}


@pytest.mark.parametrize("mode", ["rev", "fwd"])
@pytest.mark.parametrize("use", list(COMPLEX_USES))
def test_complex_constants_raise_rather_than_give_complex_derivatives(use, mode):
    f = COMPLEX_USES[use]
    x = np.array([1.0, -2.0, 3.0])
    with pytest.raises(NotDifferentiableError):
        if mode == "rev":
            ad.gradient_r(f)(x)
        else:
            ad.jvp(f, x, np.ones(3))


@pytest.mark.parametrize("fn,name", [(np.fft.rfft, "numpy.fft.rfft"), (np.fft.fft, "numpy.fft.fft"),
                                     (np.fft.ihfft, "numpy.fft.ihfft")])
def test_numpy_functions_without_a_rule_raise_naming_them(fn, name):
    x = np.array([1.0, 3.0, 2.0])
    calls = [lambda: ad.gradient_r(lambda p: np.sum(fn(p)))(x),
             lambda: ad.jvp(lambda p: fn(p), x, x),
             lambda: ad.gradient_f(lambda p: np.sum(fn(p)))(x)]
    for call in calls:
        with pytest.raises(NotDifferentiableError, match=name.replace(".", r"\.")):
            call()
    np.asarray(fn(x))            # on plain arrays numpy itself still runs


def test_object_arrays_of_scalar_ad_numbers_keep_working():
    x = np.array([0.5, 1.0, 2.0])
    obj = np.array(x, dtype=object)
    f = lambda p: np.sum(np.sin(p) * p) + np.dot(p, p) * np.max(p) + np.prod(p)
    want = ad.gradient_r(f)(x)
    got = ad.gradient_r(f)(obj)
    assert type(got) is np.ndarray and got.dtype == object
    assert all(type(g) is float for g in got)
    np.testing.assert_allclose(got.astype(float), want, rtol=1e-14)
    # an object array built of scalar AD numbers inside a derivative
    g = lambda s: np.sum(np.array([s, s * s, 3.0], dtype=object) ** 2)      # s² + s⁴ + 9
    assert ad.derivative(g)(1.5) == 2 * 1.5 + 4 * 1.5 ** 3
    assert ad.gradient_r(g)(1.5) == 2 * 1.5 + 4 * 1.5 ** 3


def test_object_array_forward_gradient_equals_reverse():
    """gradient_f over an object array: the same numbers as gradient_r (forward mode runs f on an
    object array whose unperturbed elements are plain numbers)."""
    obj = np.array([0.5, 1.0, 2.0], dtype=object)
    f = lambda p: np.sum(np.sin(p) * np.exp(p))
    np.testing.assert_allclose(ad.gradient_f(f)(obj).astype(float),
                               ad.gradient_r(f)(obj).astype(float), rtol=1e-15)


@pytest.fixture
def dps50():
    old = mp.dps
    mp.dps = 50
    yield
    mp.dps = old


def test_object_array_of_mpf_against_mpmath_diff(dps50):
    """gradient_r over an object array of mpf at 50 digits: mpf out, each partial within 1e-45
    of mpmath.diff on the same function written with mpmath."""
    x = np.array([mpmath.mpf("0.3"), mpmath.mpf("1.7"), mpmath.mpf("0.9")], dtype=object)

    def f(p):
        return np.sum(np.sin(p) * np.exp(p)) + np.dot(p, p) * p[0] + np.sum(np.log(p) * np.sqrt(p))

    def f_mp(a, b, c):
        xs = (a, b, c)
        return (sum(mpmath.sin(t) * mpmath.exp(t) for t in xs) + (a * a + b * b + c * c) * a
                + sum(mpmath.log(t) * mpmath.sqrt(t) for t in xs))

    got = ad.gradient_r(f)(x)
    assert type(got) is np.ndarray and got.dtype == object and got.shape == (3,)
    for k in range(3):
        assert type(got[k]) is MPF
        order = tuple(1 if i == k else 0 for i in range(3))
        want = mpmath.diff(f_mp, tuple(x), order)
        assert abs(got[k] - want) < mpmath.mpf("1e-45") * max(1, abs(want)), k
    # a Hessian-vector product, against mixed partials
    v = np.array([mpmath.mpf(1), mpmath.mpf(-2), mpmath.mpf("0.5")], dtype=object)
    hv = ad.hvp(f, x, v)
    for i in range(3):
        want = sum(mpmath.diff(f_mp, tuple(x), tuple((i == k) + (j == k) for k in range(3))) * v[j]
                   for j in range(3))
        assert type(hv[i]) is MPF
        assert abs(hv[i] - want) < mpmath.mpf("1e-40") * max(1, abs(want)), i


# ---- errors -------------------------------------------------------------------------------------

def test_derivative_of_an_array_input_is_loud():
    """derivative at an array is f′ at each point of a grid (issue #17), for an f whose value
    has the grid's shape; a sum is refused (J·1 would be silently returned: for Σx² at [1, 2]
    that is 6, neither a gradient nor a derivative)."""
    x = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match="derivative"):
        ad.derivative(lambda s: np.sum(s * s))(x)
    with pytest.raises(TypeError, match="derivative"):
        ad.gradient_r(lambda p: ad.derivative(lambda q: np.sum(q * q))(p))(x)
    # elementwise: f′ = 2q at each point, inside a gradient too
    assert ad.gradient_r(lambda p: np.sum(ad.derivative(lambda q: q * q)(p)))(x).tolist() == \
        [2.0, 2.0]


@pytest.mark.parametrize("who", ["gradient_r", "gradient_f"])
def test_gradient_of_an_array_valued_function_names_it(who):
    grad = getattr(ad, who)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError, match=who) as info:
        grad(lambda p: np.sin(p))(x)
    assert "ndarray" in str(info.value) or "array" in str(info.value)
    with pytest.raises(TypeError, match=who):
        grad(lambda p: p * 2.0)(np.array([1.0, 2.0]))
    # a scalar-valued function of an array is fine, and so is numpy's scalar sum
    assert ad.gradient_r(np.sum)(x).shape == (2, 2)


def test_gradients_are_fresh_writable_arrays():
    """A returned gradient is the caller's to modify: writable, sharing memory with neither the
    inputs, nor the cotangent passed to a pullback, nor another returned leaf."""
    x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    g = ad.gradient_r(np.sum)(x)
    assert g.flags.writeable
    gx, gy = ad.gradient_r(lambda p: np.sum(p[0] + p[1]))((x, y))
    assert gx.flags.writeable and not np.shares_memory(gx, gy)
    w = np.array([1.0, -1.0, 2.0])
    bx, by = ad.vjp(lambda p: p[0] + 2.0 * p[1], (x, y))[1](w)
    assert not np.shares_memory(bx, w) and not np.shares_memory(by, w)
    bx[0] = 100.0
    np.testing.assert_array_equal(w, [1.0, -1.0, 2.0])


def test_pullbacks_leave_cotangents_alone_and_repeat():
    x = np.array([1.0, 2.0, 3.0])
    w1, w2 = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0])
    _, back = ad.vjp(lambda p: (p + p[::-1] + p, p[1:] * 2.0, p), x)
    first = back((w1, w2, w1))
    second = back((w1, w2, w1))
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, w1 + w1[::-1] + w1 + [0, 1.0, -2.0] + w1)
    np.testing.assert_array_equal(w1, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(w2, [0.5, -1.0])
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])


# ---- singular elements: arrays follow the scalar rule exactly, in every mode --------------------

SINGULAR = {
    # √″(0) = −∞ one-sided: no number is right, so nan (tests/test_nonfinite.py); the lane
    # at 4 keeps its value
    "sqrt": (lambda x: np.sum(np.sqrt(x)), np.array([0.0, 4.0]), [np.inf, 0.25],
             [np.nan, -1 / 32]),
    "where_masked_sqrt": (lambda x: np.sum(np.where(x > 0, np.sqrt(x), 0.0)),
                          np.array([0.0, 4.0]), [0.0, 0.25], [0.0, -1 / 32]),
    "asin_edge": (lambda x: np.sum(np.arcsin(x)), np.array([1.0, 0.5]),
                  [np.inf, 1 / np.sqrt(0.75)], None),
}


@pytest.mark.parametrize("name", ["sqrt", "where_masked_sqrt", "asin_edge"])
def test_singular_element_gradients_agree_with_scalars(name):
    """At a convention's singular point inside an array, each element gets the scalar answer:
    no 0·inf from the other elements' zero tangents or sensitivities."""
    f, x, grad, _ = SINGULAR[name]
    assert ad.gradient_r(f)(x).tolist() == pytest.approx(grad)
    assert ad.gradient_f(f)(x).tolist() == pytest.approx(grad)


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
@pytest.mark.parametrize("name", ["sqrt", "where_masked_sqrt"])
def test_singular_element_hvp_modes_agree(name, mode):
    f, x, _, hv = SINGULAR[name]
    assert ad.hvp(f, x, np.ones(2), mode).tolist() == pytest.approx(hv, nan_ok=True)


def test_reused_buffer_gives_the_gradient_of_what_was_computed():
    """A work buffer overwritten after use: reverse mode must use the values that were used."""
    def f(x):
        buf = np.empty(2)
        y = 0.0
        for k in range(3):
            buf[:] = k + 1.0
            y = y + np.sum(x * buf)
        return y
    assert ad.gradient_r(f)(np.ones(2)).tolist() == [6.0, 6.0]
    assert ad.gradient_f(f)(np.ones(2)).tolist() == [6.0, 6.0]


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
def test_reused_matrix_buffer_in_every_hvp_mode(mode):
    """The buffer's copies are the tape's own: a nested tape meets them (and their transposes)
    as constants again, and must neither copy them again nor see the buffer's later values."""
    a = np.array([[1.0, 2.0], [0.0, 1.0]])

    def f(x):
        buf = np.empty((2, 2))
        y = 0.0
        for k in range(3):
            buf[:] = (k + 1.0) * a
            y = y + np.sum((buf @ x) ** 2)
        return y
    # H = 2 Σₖ (k + 1)² AᵀA = 28 [[1, 2], [2, 5]]
    assert ad.hvp(f, np.array([0.5, -1.0]), np.array([1.0, -1.0]), mode).tolist() == [-28.0, -84.0]


def test_vjp_pullback_after_the_input_changed():
    x0 = np.array([1.0, 2.0])
    _, back = ad.vjp(np.sin, x0)
    x0[:] = 0.0
    assert np.allclose(back(np.ones(2)), np.cos([1.0, 2.0]), rtol=1e-15)


@pytest.mark.parametrize("f, want", [
    (lambda x: np.sum(np.array([x, 2 * x]) * x), 6.0),
    (lambda x: np.sum(x * np.array([x, 2 * x], dtype=object)), 6.0),
    (lambda x: np.sum(np.arctan2(np.array([x, 2 * x]), 1.0)), 0.9),
], ids=["objarr*x", "x*objarr", "arctan2"])
def test_object_arrays_mix_with_bare_ad_numbers(f, want):
    assert ad.derivative(f)(1.0) == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("f", [lambda x: x ** np.arange(1.0, 5.0), lambda x: x ** np.arange(4),
                               lambda x: x ** np.array([[1.0], [2.0]]),
                               lambda x: np.arange(4.0) ** x,
                               lambda x: np.float_power(x, np.arange(4)),
                               lambda x: np.array([[0.0], [2.0]]) ** x])
def test_power_with_a_constant_that_broadcasts_up(f):
    # the test for p == 0 (or a base of 0) had the constant's shape, not the result's: a crash
    x = np.full((2, 4), 0.5) + np.arange(8.0).reshape(2, 4) / 10
    ad.check_grads(lambda x: np.sum(f(x)), x, order=2)
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.sum(f(x)))(x),
                               ad.gradient_f(lambda x: np.sum(f(x)))(x), rtol=1e-14)


def test_one_pullback_of_a_solve_called_from_threads_at_once():
    """vjp's pullback of a solve with both inputs tracked, called from eight threads at once
    with their own cotangents: each gets Jᵀȳ for its own ȳ (solve's two partials share one
    solve with Aᵀ per cotangent; no thread may take another's)."""
    from support import run_threads
    a, u = _matrix(47, 6), rng(48).standard_normal(6)
    v = rng(49).standard_normal(6)
    y, back = ad.vjp(lambda v: np.linalg.solve(a + np.outer(v, u), v), v)
    av = a + np.outer(v, u)
    jac = (1.0 - u @ y) * np.linalg.inv(av)          # dx = (1 − u·x) A_v⁻¹ dv
    bars = [rng(50 + k).standard_normal(6) for k in range(8)]
    got, errors = [None] * 8, []

    def work(k):
        try:
            for _ in range(200):
                g = back(bars[k])
                if not np.allclose(g, jac.T @ bars[k], rtol=1e-10, atol=1e-12):
                    got[k] = g
                    return
            got[k] = "ok"
        except Exception as e:          # (reported below, with the thread's number)
            errors.append((k, e))

    run_threads(work, 8, interval=1e-6)
    assert not errors and got == ["ok"] * 8
