"""CASES.md section 3: iteration and fixed points (:func:`dvlad.fixed_point`, :func:`dvlad.root`).

``F`` is :func:`dvlad.derivative` and ``R`` the scalar reverse derivative (``gradient_r`` of a
function R -> R); a mix such as ``"RF"`` names the operator at each nesting level, outermost first.
Oracles are independent of dvlad: closed forms, the implicit function theorem worked by hand,
numpy.linalg.solve, or mpmath (findroot + diff) at 50 digits.  Floats are compared to ~1e-15
relative unless a comment says why a case needs more room.
"""
import math

import mpmath
import numpy as np
import pytest

import dvlad
from dvlad import FixedPointError, TapeCell, fixed_point, root
from support import MODES1, MODES2, OPS, R, close, nest  # noqa: E402


def heron(x):
    """CASES §3: the fixed point of y -> (y + x/y)/2 from 1."""
    return fixed_point(lambda y: (y + x / y) / 2, 1.0)


def acos_fix(a):
    """CASES §3: x = a·cos x from 0."""
    return fixed_point(lambda x: a * dvlad.cos(x), 0.0)


# ---- heron ------------------------------------------------------------------------------------

@pytest.mark.parametrize("x, want", [(4.0, 2.0), (9.0, 3.0), (16.0, 4.0)])
def test_heron_value(x, want):
    got = heron(x)
    assert type(got) is float and got == want


@pytest.mark.parametrize("m", MODES1)
@pytest.mark.parametrize("x, want", [(4.0, 0.25), (9.0, 1 / 6), (16.0, 0.125)])
def test_heron_first_derivative(m, x, want):
    close(nest(heron, m)(x), want)


@pytest.mark.parametrize("m", MODES2)
@pytest.mark.parametrize("x, want", [(4.0, -0.03125), (9.0, -0.25 * 9.0 ** -1.5),
                                     (2.0, -0.25 * 2.0 ** -1.5)])
def test_heron_second_derivative(m, x, want):
    close(nest(heron, m)(x), want)


@pytest.mark.parametrize("m", ["FFF", "RFR", "RRR"])
def test_heron_third_derivative(m):
    close(nest(heron, m)(4.0), 0.01171875)


# ---- x = a·cos x ------------------------------------------------------------------------------

X_STAR = 0.45018361129487355
DX_STAR = 0.7394815923329188


def test_acos_value():
    close(acos_fix(0.5), X_STAR)


@pytest.mark.parametrize("m", MODES1)
def test_acos_first_derivative(m):
    close(nest(acos_fix, m)(0.5), DX_STAR)
    # and against the implicit function theorem at the computed x*
    x = X_STAR
    close(nest(acos_fix, m)(0.5), math.cos(x) / (1 + 0.5 * math.sin(x)), rel=2e-15)


def _mp_acos_root(a):
    return mpmath.findroot(lambda x: x - a * mpmath.cos(x), mpmath.mpf("0.45"))


def _mp_acos_derivs(a):
    """x*(a), x*'(a), x*''(a): the IFT worked by hand, checked against mpmath.diff."""
    x = _mp_acos_root(a)
    s, c = mpmath.sin(x), mpmath.cos(x)
    d1 = c / (1 + a * s)
    # differentiate x' (1 + a sin x) = cos x:  x''(1 + a s) + x'(s + a c x') = -s x'
    d2 = -(d1 * s + d1 * (s + a * c * d1)) / (1 + a * s)
    return x, d1, d2


def test_acos_mp_oracle_agrees_with_mpmath_diff():
    with mpmath.workdps(50):
        a = mpmath.mpf("0.5")
        x, d1, d2 = _mp_acos_derivs(a)
        assert abs(mpmath.diff(_mp_acos_root, a, 1) - d1) < mpmath.mpf(10) ** -40
        assert abs(mpmath.diff(_mp_acos_root, a, 2) - d2) < mpmath.mpf(10) ** -40
        assert abs(x - X_STAR) < 1e-16 and abs(d1 - DX_STAR) < 1e-16


@pytest.mark.parametrize("m", MODES2)
@pytest.mark.parametrize("a", [0.5, 0.9, -0.3])
def test_acos_second_derivative(m, a):
    with mpmath.workdps(50):
        want = float(_mp_acos_derivs(mpmath.mpf(a))[2])
    close(nest(acos_fix, m)(a), want, rel=4e-15)


# ---- mpf at 50 digits -------------------------------------------------------------------------

@pytest.mark.parametrize("m", ["", "F", "R", "FF", "FR", "RF", "RR"])
def test_heron_mpf(m):
    with mpmath.workdps(50):
        f = nest(lambda x: fixed_point(lambda y: (y + x / y) / 2, mpmath.mpf(1)), m)
        for x in (mpmath.mpf(4), mpmath.mpf(2), mpmath.mpf(9)):
            want = [mpmath.sqrt(x), 1 / (2 * mpmath.sqrt(x)), -x ** mpmath.mpf(-1.5) / 4][len(m)]
            got = f(x)
            assert type(got) is mpmath.mpf
            assert abs(got - want) < mpmath.mpf(10) ** -45, (m, x, got - want)


@pytest.mark.parametrize("m", ["", "F", "R", "FF", "FR", "RF", "RR"])
def test_acos_mpf(m):
    with mpmath.workdps(50):
        a = mpmath.mpf("0.5")
        f = nest(lambda a: fixed_point(lambda x: a * dvlad.cos(x), mpmath.mpf(0)), m)
        want = _mp_acos_derivs(a)[len(m)]
        got = f(a)
        assert type(got) is mpmath.mpf
        assert abs(got - want) < mpmath.mpf(10) ** -45, (m, got - want)


@pytest.mark.parametrize("m", ["R", "FR", "RF", "RR"])
def test_mpf_on_the_left_of_a_reverse_fixed_point(m):
    """mpf ⊘ (a fixed point's reverse cell): mpmath's conversion fallback prints the cell, so the
    cell's repr must work for mpmath to hand over to dvlad.  d/da 1/x*(a), x = 0.5·cos x + a."""
    with mpmath.workdps(50):
        one = mpmath.mpf(1)
        fn = lambda a: one / fixed_point(lambda x: 0.5 * dvlad.cos(x) + a, mpmath.mpf(0))
        a = mpmath.mpf("0.3")

        def xs(a):
            return mpmath.findroot(lambda x: x - mpmath.cos(x) / 2 - a, mpmath.mpf("0.7"))
        want = mpmath.diff(lambda a: 1 / xs(a), a, len(m))
        got = nest(fn, m)(a)
        assert type(got) is mpmath.mpf and abs(got - want) < mpmath.mpf(10) ** -40, got - want


def test_reverse_fixed_point_cell_prints():
    seen = []

    def fn(a):
        x = fixed_point(lambda x: 0.5 * dvlad.cos(x) + a, 0.0)
        seen.append(repr(x))
        return x
    dvlad.gradient_r(fn)(0.3)
    assert seen and seen[0].startswith("TapeCell(")


# ---- nr_sqrt: a hand-written Newton loop, stopped on the primal -------------------------------

def nr_sqrt(x):
    """CASES §3: Newton from y = (x+1)-x, stop when |y - y'| <= 1e-5, return y (not y').

    Returning y' gives 0.25000000000001177; returning y reproduces CASES' 0.2500002594080783 —
    exactly with the Newton step written y - (y² - x)/2y (forward mode; the reverse sweep sums
    in another order and lands 1 ulp away), to 1 ulp with (y + x/y)/2.
    """
    y = (x + 1) - x
    while True:
        y_next = y - (y * y - x) / (2 * y)
        if abs(y - y_next) <= 1e-5:
            return y
        y = y_next


def nr_sqrt_heron_step(x):
    y = (x + 1) - x
    while True:
        y_next = (y + x / y) / 2
        if abs(y - y_next) <= 1e-5:
            return y
        y = y_next


def test_nr_sqrt_forward_exact():
    assert dvlad.derivative(nr_sqrt)(4.0) == 0.2500002594080783


@pytest.mark.parametrize("m", MODES1)
@pytest.mark.parametrize("fn", [nr_sqrt, nr_sqrt_heron_step])
def test_nr_sqrt_is_inaccurate(m, fn):
    got = nest(fn, m)(4.0)
    close(got, 0.2500002594080783)
    assert abs(got - 0.25) > 1e-7        # stopping on the primal leaves the tangent behind
    primal_rel = abs(fn(4.0) - 2.0) / 2.0
    assert abs(got - 0.25) / 0.25 > 10 * primal_rel
    close(nest(heron, m)(4.0), 0.25)     # fixed_point converges the tangent too


def slow_step(a):
    """Rate ∂f/∂x = 1 - 0.1·sqrt(a) = 0.9 at a = 1; x* = sqrt(a), dx*/da = 1/(2 sqrt a)."""
    return lambda x: x - 0.05 * (x * x - a)


def _hand_loop(a, tol):
    x = 0.0
    while True:
        y = slow_step(a)(x)
        if abs(y - x) <= tol:
            return y
        x = y


@pytest.mark.parametrize("m", MODES1)
def test_tangent_converged_on_its_own(m):
    fp = lambda a: fixed_point(slow_step(a), 0.0)
    close(nest(fp, m)(1.0), 0.5, rel=0, abs_=1e-14)
    for tol in (1e-8, 1e-10, 1e-12):
        hand = lambda a: _hand_loop(a, tol)
        primal_err = abs(hand(1.0) - 1.0)
        tangent_err = abs(nest(hand, m)(1.0) - 0.5) / 0.5
        assert tangent_err > 10 * primal_err, (tol, primal_err, tangent_err)
        assert abs(nest(fp, m)(1.0) - 0.5) < tangent_err / 1000


@pytest.mark.parametrize("m", MODES2)
def test_slow_contraction_second_derivative(m):
    fp = lambda a: fixed_point(slow_step(a), 0.0)
    close(nest(fp, m)(1.0), -0.25, rel=0, abs_=1e-13)


# ---- vector fixed points: x = A x + b(t) ------------------------------------------------------

A2 = [[0.5, 0.2], [-0.1, 0.3]]
A3 = [[0.3, 0.1, -0.2], [0.05, 0.4, 0.1], [0.2, -0.1, 0.25]]


def b_of(t, n):
    return [dvlad.sin(t), t * t, dvlad.exp(-t)][:n]


def b_prime(t, n):
    return np.array([math.cos(t), 2 * t, -math.exp(-t)][:n])


def matvec_plus(A, x, b):
    return [sum((A[i][j] * x[j] for j in range(len(x))), 0.0) + b[i] for i in range(len(x))]


def oracle_x(A, t):
    n = len(A)
    b = np.array([math.sin(t), t * t, math.exp(-t)][:n])
    return np.linalg.solve(np.eye(n) - np.array(A), b)


def oracle_dx(A, t):
    n = len(A)
    return np.linalg.solve(np.eye(n) - np.array(A), b_prime(t, n))


KEYS = ["u", "v", "w"]


def pack(kind, values):
    if kind is dict:
        return {k: v for k, v in zip(KEYS, values)}
    return kind(values)


def unpack(kind, s):
    if kind is dict:
        assert list(s) == KEYS[:len(s)]
        return [s[k] for k in KEYS[:len(s)]]
    return list(s)


def vector_fp(A, kind):
    n = len(A)

    def xstar(t):
        def f(x):
            return pack(kind, matvec_plus(A, unpack(kind, x), b_of(t, n)))
        return fixed_point(f, pack(kind, [0.0] * n))
    return xstar


@pytest.mark.parametrize("kind", [tuple, list, dict])
@pytest.mark.parametrize("A", [A2, A3], ids=["2x2", "3x3"])
def test_vector_value_and_structure(A, kind):
    got = vector_fp(A, kind)(0.7)
    assert type(got) is kind
    close(unpack(kind, got), oracle_x(A, 0.7), 1e-14, floor=1, normwise=True)


@pytest.mark.parametrize("kind", [tuple, list, dict])
@pytest.mark.parametrize("A", [A2, A3], ids=["2x2", "3x3"])
def test_vector_derivative(A, kind):
    got = dvlad.derivative(vector_fp(A, kind))(0.7)
    assert type(got) is kind
    close(unpack(kind, got), oracle_dx(A, 0.7), 1e-14, floor=1, normwise=True)


@pytest.mark.parametrize("jac", [dvlad.jacobian_f, dvlad.jacobian_r], ids=["jacobian_f", "jacobian_r"])
@pytest.mark.parametrize("kind", [tuple, list, dict])
@pytest.mark.parametrize("A", [A2, A3], ids=["2x2", "3x3"])
def test_vector_jacobian_in_t(A, kind, jac):
    J = jac(vector_fp(A, kind))(0.7)
    if kind is dict:            # (JAX's convention with a dict: keyed by the output, one t)
        assert list(J) == KEYS[:len(A)]
        J = [J[k] for k in J]
    assert type(J) is list and len(J) == len(A)     # one number in: the output's structure
    close(J, oracle_dx(A, 0.7), 1e-14, floor=1, normwise=True)


@pytest.mark.parametrize("jac", [dvlad.jacobian_f, dvlad.jacobian_r], ids=["jacobian_f", "jacobian_r"])
@pytest.mark.parametrize("kind", [tuple, list, dict])
@pytest.mark.parametrize("A", [A2, A3], ids=["2x2", "3x3"])
def test_vector_jacobian_in_b(A, kind, jac):
    """x*(p) = (I - A)⁻¹ p: the Jacobian is (I - A)⁻¹ (A is not symmetric: a transposed adjoint
    would show)."""
    n = len(A)

    def xstar(p):
        ps = unpack(kind, p)
        return fixed_point(lambda x: pack(kind, matvec_plus(A, unpack(kind, x), ps)),
                           pack(kind, [0.0] * n))
    p = pack(kind, [0.3, -1.2, 2.0][:n])
    J = jac(xstar)(p)
    if kind is dict:            # a dict of dicts: J[out key][in key]
        J = [[J[a][b] for b in KEYS[:n]] for a in KEYS[:n]]
    J = np.array(J, dtype=float)
    want = np.linalg.inv(np.eye(n) - np.array(A))
    assert np.max(np.abs(J - want)) < 1e-14, (J, want)


@pytest.mark.parametrize("kind", [tuple, list, dict])
@pytest.mark.parametrize("A", [A2, A3], ids=["2x2", "3x3"])
def test_vector_gradient_of_scalar_function(A, kind):
    """φ(p) = c·x*(p) + |x*(p)|²/2: ∇φ = (I - A)⁻ᵀ (c + x*)."""
    n = len(A)
    c = [1.0, -2.0, 0.5][:n]

    def phi(p):
        ps = unpack(kind, p)
        x = unpack(kind, fixed_point(lambda x: pack(kind, matvec_plus(A, unpack(kind, x), ps)),
                                     pack(kind, [0.0] * n)))
        return sum((ci * xi + xi * xi / 2 for ci, xi in zip(c, x)), 0.0)
    pv = [0.3, -1.2, 2.0][:n]
    g = dvlad.gradient_r(phi)(pack(kind, pv))
    assert type(g) is kind
    M = np.eye(n) - np.array(A)
    xs = np.linalg.solve(M, np.array(pv))
    want = np.linalg.solve(M.T, np.array(c) + xs)
    close(unpack(kind, g), want, 1e-14, floor=1, normwise=True)
    # and the scalar-of-t version, gradient_r of t -> c·x*(t)
    tphi = lambda t: sum((ci * xi for ci, xi in zip(c, unpack(kind, vector_fp(A, kind)(t)))), 0.0)
    close(R(tphi)(0.7), float(np.dot(c, oracle_dx(A, 0.7))), rel=1e-14)
    close(dvlad.derivative(tphi)(0.7), float(np.dot(c, oracle_dx(A, 0.7))), rel=1e-14)


@pytest.mark.parametrize("m", MODES2)
def test_vector_second_derivative(m):
    """d²x*/dt² = (I - A)⁻¹ b''(t), b'' = (-sin t, 2, exp(-t)); one component, every mix."""
    n = 3
    b2 = np.array([-math.sin(0.7), 2.0, math.exp(-0.7)])
    want = np.linalg.solve(np.eye(n) - np.array(A3), b2)
    for i in range(n):
        got = nest(lambda t: vector_fp(A3, tuple)(t)[i], m)(0.7)
        close(got, float(want[i]), rel=1e-14)


# ---- fixed points inside fixed points ---------------------------------------------------------

def inner(x, a):
    """y*(x, a): y = 0.5·cos y + 0.25·a·x."""
    return fixed_point(lambda y: 0.5 * dvlad.cos(y) + 0.25 * a * x, 0.0)


def nested_fp(a):
    """x*(a): x = 0.4·sin(y*(x, a)) + 0.5·a — the inner fixed point depends on the outer iterate."""
    return fixed_point(lambda x: 0.4 * dvlad.sin(inner(x, a)) + 0.5 * a, 0.0)


def _mp_nested(a):
    x, y = mpmath.findroot(lambda x, y: (x - 0.4 * mpmath.sin(y) - a / 2,
                                         y - mpmath.cos(y) / 2 - a * x / 4),
                           (mpmath.mpf("0.5"), mpmath.mpf("0.5")))
    return x


@pytest.mark.parametrize("order, m", [(0, "")] + [(1, m) for m in MODES1]
                         + [(2, m) for m in MODES2])
def test_nested_fixed_points(order, m):
    with mpmath.workdps(50):
        a = mpmath.mpf("0.8")
        want = float(mpmath.diff(_mp_nested, a, order))
    close(nest(nested_fp, m)(0.8), want, rel=1e-14)


@pytest.mark.parametrize("m", MODES1)
def test_inner_fixed_point_sees_outer_perturbation(m):
    """∂y*/∂x = 0.25 a / (1 + 0.5 sin y*): derivative of the inner fixed point w.r.t. x alone."""
    a = 0.8
    y = inner(1.3, a)
    close(nest(lambda x: inner(x, a), m)(1.3), 0.25 * a / (1 + 0.5 * math.sin(y)))


# ---- several parameters -----------------------------------------------------------------------

def multi_param(p):
    """x = p0·cos x + p1·sin x + p2."""
    return fixed_point(lambda x: p[0] * dvlad.cos(x) + p[1] * dvlad.sin(x) + p[2], 0.0)


@pytest.mark.parametrize("grad", [dvlad.gradient_r, dvlad.gradient_f], ids=["gradient_r", "gradient_f"])
@pytest.mark.parametrize("kind", [tuple, list])
def test_several_parameters(grad, kind):
    p = kind([0.5, 0.3, 0.2])
    g = grad(multi_param)(p)
    assert type(g) is kind
    x = multi_param(p)
    assert abs(x - (p[0] * math.cos(x) + p[1] * math.sin(x) + p[2])) < 1e-15
    denom = 1 - (-p[0] * math.sin(x) + p[1] * math.cos(x))
    want = [math.cos(x) / denom, math.sin(x) / denom, 1 / denom]
    for gi, wi in zip(g, want):
        close(gi, wi, rel=2e-15)


def test_several_parameters_hessian():
    with mpmath.workdps(40):
        def xs(p0, p1, p2):
            return mpmath.findroot(lambda x: x - p0 * mpmath.cos(x) - p1 * mpmath.sin(x) - p2,
                                   mpmath.mpf("0.7"))
        p = [mpmath.mpf("0.5"), mpmath.mpf("0.3"), mpmath.mpf("0.2")]
        want = [[float(mpmath.diff(xs, p, tuple(int(k == i) + int(k == j) for k in range(3))))
                 for j in range(3)] for i in range(3)]
    for H in (dvlad.hessian(multi_param)((0.5, 0.3, 0.2)),
              dvlad.jacobian_r(dvlad.gradient_r(multi_param))((0.5, 0.3, 0.2)),
              dvlad.jacobian_f(dvlad.gradient_f(multi_param))((0.5, 0.3, 0.2))):
        for i in range(3):
            for j in range(3):
                close(H[i][j], want[i][j], rel=1e-13)


# ---- check_grads ------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, x", [
    (heron, 4.0),
    (heron, 2.5),
    (acos_fix, 0.5),
    (multi_param, (0.5, 0.3, 0.2)),
    (lambda t: vector_fp(A3, tuple)(t), 0.7),
    (lambda p: fixed_point(lambda x: (0.5 * x[0] + 0.1 * dvlad.sin(x[1]) + p["a"],
                                      0.2 * dvlad.cos(x[0]) * p["b"] + 0.3 * x[1]), (0.0, 0.0)),
     {"a": 0.4, "b": 1.5}),
    (nested_fp, 0.8),
    (lambda a: root(lambda x: x ** 3 - a, 1.0), 5.0),
], ids=["heron4", "heron2.5", "acos", "multi", "vector", "dict-in-tuple-out", "nested", "cbrt"])
def test_check_grads_order2(fn, x):
    dvlad.check_grads(fn, x, order=2)


# ---- perturbations of x0 are ignored ----------------------------------------------------------

@pytest.mark.parametrize("m", MODES1 + MODES2)
def test_x0_perturbation_ignored(m):
    assert nest(lambda a: fixed_point(lambda x: 0.5 * dvlad.cos(x), a), m)(1.0) == 0.0


@pytest.mark.parametrize("m", MODES1)
def test_x0_perturbation_ignored_but_f_perturbation_kept(m):
    """Start from a, iterate x = 0.5·cos x + 0.1·a: only the f-dependence counts."""
    got = nest(lambda a: fixed_point(lambda x: 0.5 * dvlad.cos(x) + 0.1 * a, a), m)(1.0)
    x = fixed_point(lambda x: 0.5 * math.cos(x) + 0.1, 1.0)
    close(got, 0.1 / (1 + 0.5 * math.sin(x)))


# ---- FixedPointError --------------------------------------------------------------------------

def test_error_primal_oscillates():
    with pytest.raises(FixedPointError) as info:
        fixed_point(lambda x: -x, 1.0, max_iter=7)
    e = info.value
    assert e.iterations == 7 and e.step == 2.0
    assert "7 iterations" in str(e) and "last step 2" in str(e)


@pytest.mark.parametrize("max_iter", [3, 10, 25])
def test_error_primal_too_few_iterations(max_iter):
    with pytest.raises(FixedPointError) as info:
        fixed_point(dvlad.cos, 1.0, max_iter=max_iter)
    e = info.value
    assert e.iterations == max_iter
    assert f"{max_iter} iterations" in str(e)
    assert f"{e.step:.3g}" in str(e) and e.step > 1e-6
    assert isinstance(e, dvlad.DvladError) and isinstance(e, ArithmeticError)


def test_error_primal_converges_with_enough_iterations():
    close(fixed_point(dvlad.cos, 1.0, max_iter=1000), 0.7390851332151607)


@pytest.mark.parametrize("f", [lambda x: 2 * x + 1, lambda x: -2 * x, lambda x: x * x,
                               lambda x: 1e300 * x],
                         ids=["2x+1", "-2x", "x*x", "1e300x"])
def test_error_primal_diverges_to_infinity(f):
    """A divergent iteration must not be 'converged' once it overflows: x* = inf is not an
    answer, and CASES §3 wants a named error."""
    with pytest.raises(FixedPointError):
        fixed_point(f, 2.0, max_iter=5000)


def test_error_primal_nan():
    with pytest.raises(FixedPointError) as info:
        fixed_point(lambda x: x + math.nan, 1.0)
    e = info.value
    assert math.isnan(e.step) and e.iterations < 1000
    assert "nan" in str(e)


def every_x_fixed(a, max_iter=50):
    """f(x) = x + (a - primal(a)): the primal map is the identity (every x is fixed, the primal
    stops at once), but the tangent/adjoint iteration is τ ← τ + 1, which never contracts."""
    return fixed_point(lambda x: x + (a - dvlad.primal(a)), 1.0, max_iter=max_iter)


def test_every_x_fixed_primal_is_fine():
    assert every_x_fixed(2.0) == 1.0


@pytest.mark.parametrize("m, what", [("F", "tangent"), ("R", "adjoint")])
def test_error_derivative_does_not_contract(m, what):
    with pytest.raises(FixedPointError) as info:
        nest(lambda a: every_x_fixed(a, max_iter=40), m)(2.0)
    e = info.value
    assert e.iterations == 40 and e.step == 1.0
    assert what in str(e) and "40 iterations" in str(e) and "last step 1" in str(e)


@pytest.mark.parametrize("m", MODES1)
def test_error_derivative_diverges_to_infinity(m):
    """Primal map x ↦ x (x = 2x - primal(x)); tangent τ ← 2τ + 1 overflows: must raise, not
    return inf."""
    g = lambda a: fixed_point(lambda x: 2 * x - dvlad.primal(x) + (a - dvlad.primal(a)), 0.0,
                              max_iter=5000)
    with pytest.raises(FixedPointError):
        nest(g, m)(1.0)


def test_error_derivative_nan():
    """The primal converges (x* = 4, the 1e-300 term is below its last bit); ∂f/∂x is
    0.5 + 1e-300·nan = nan (d/dy (-2)**y has no real value): the tangent and the adjoint
    iteration both meet nan and raise the named error.  (With 0.0 for 1e-300 the term does not
    depend on x at all and contributes 0: notes/conventions.md, "0·∞".)"""
    def g(a):
        return fixed_point(lambda x: 0.5 * x + 2 + 0.1 * (a - dvlad.primal(a))
                           + 1e-300 * dvlad.pow(-2.0, x - dvlad.primal(x)), 1.0)
    close(g(1.0), 4.0, rel=1e-14)
    for m, what in (("F", "tangent"), ("R", "adjoint")):
        with pytest.raises(FixedPointError) as info:
            nest(g, m)(1.0)
        assert math.isnan(info.value.step) and what in str(info.value) and "nan" in str(info.value)


# ---- the reverse tape holds one step, not the iterations ---------------------------------------

def test_reverse_tape_does_not_grow_with_iterations():
    """x = ρx + (1-ρ)(a + 0.01 sin x): x* and dx*/da = 1/(1 - 0.01 cos x*) do not depend on ρ,
    the number of iterations does (≈ 15 at ρ = 0.1, ≈ 3500 at ρ = 0.99)."""
    counts, grads = {}, {}
    for rho in (0.1, 0.5, 0.9, 0.99):
        seen = {}

        def outer(a):
            assert type(a) is TapeCell
            tape = a.tag.tape
            before = len(tape)

            def f(x):
                if type(x) is TapeCell:
                    seen["tape"] = x.tag.tape
                return rho * x + (1 - rho) * (a + 0.01 * dvlad.sin(x))
            x = fixed_point(f, 0.0, max_iter=100000)
            assert seen["tape"] is tape
            counts[rho] = len(tape) - before
            return x
        grads[rho] = dvlad.gradient_r(outer)(0.5)
    assert len(set(counts.values())) == 1, counts
    assert list(counts.values())[0] < 30
    x = fixed_point(lambda x: 0.5 + 0.01 * math.sin(x), 0.0)
    for rho, g in grads.items():
        close(g, 1 / (1 - 0.01 * math.cos(x)), rel=1e-13)


def test_hand_loop_tape_grows_fixed_point_does_not():
    """Contrast: differentiating the hand loop records every iteration."""
    def count(fn):
        out = {}

        def outer(a):
            before = len(a.tag.tape)
            y = fn(a)
            out["n"] = len(a.tag.tape) - before
            return y
        dvlad.gradient_r(outer)(1.0)
        return out["n"]
    assert count(lambda a: _hand_loop(a, 1e-12)) > 20 * count(lambda a: fixed_point(slow_step(a), 0.0))


# ---- root ------------------------------------------------------------------------------------

def cbrt(a):
    return root(lambda x: x ** 3 - a, 1.0)


@pytest.mark.parametrize("a", [8.0, 2.0, 0.5, 27.0])
def test_root_cube_value(a):
    close(cbrt(a), a ** (1 / 3), rel=2e-16)


@pytest.mark.parametrize("m", MODES1)
@pytest.mark.parametrize("a", [8.0, 2.0, 0.5, 27.0])
def test_root_cube_first(m, a):
    close(nest(cbrt, m)(a), a ** (-2 / 3) / 3, rel=1e-15)


@pytest.mark.parametrize("m", MODES2)
@pytest.mark.parametrize("a", [8.0, 2.0, 0.5, 27.0])
def test_root_cube_second(m, a):
    close(nest(cbrt, m)(a), -2 / 9 * a ** (-5 / 3), rel=2e-15)


def test_root_cube_mpf():
    with mpmath.workdps(50):
        a = mpmath.mpf(2)
        f = lambda a: root(lambda x: x ** 3 - a, mpmath.mpf(1))
        third = mpmath.mpf(1) / 3
        for m, want in [("", a ** third), ("F", a ** (-2 * third) / 3), ("R", a ** (-2 * third) / 3),
                        ("FR", -2 * a ** (-5 * third) / 9)]:
            got = nest(f, m)(a)
            assert type(got) is mpmath.mpf and abs(got - want) < mpmath.mpf(10) ** -45, (m, got - want)


def system_root(a, kind=tuple):
    """x² + y² = a, x = a·y:  y = sqrt(a / (1 + a²)), x = a·y."""
    return root(lambda v: kind((v[0] ** 2 + v[1] ** 2 - a, v[0] - a * v[1])), kind((1.0, 1.0)))


def ift_system(a):
    """dz/da = -J⁻¹ ∂g/∂a, by hand: J = [[2x, 2y], [1, -a]], ∂g/∂a = (-1, -y)."""
    y = math.sqrt(a / (1 + a * a))
    x = a * y
    det = 2 * x * (-a) - 2 * y
    inv = [[-a / det, -2 * y / det], [-1 / det, 2 * x / det]]
    ga = (-1.0, -y)
    return (x, y), [-(inv[i][0] * ga[0] + inv[i][1] * ga[1]) for i in range(2)]


@pytest.mark.parametrize("kind", [tuple, list])
@pytest.mark.parametrize("a", [2.0, 0.7])
def test_root_system(a, kind):
    (x, y), d = ift_system(a)
    z = system_root(a, kind)
    assert type(z) is kind
    close(z[0], x, rel=2e-16)
    close(z[1], y, rel=2e-16)
    fn = lambda a: system_root(a, kind)
    dz = dvlad.derivative(fn)(a)
    assert type(dz) is kind
    for J in (dvlad.jacobian_f(fn)(a), dvlad.jacobian_r(fn)(a)):
        assert type(J) is list          # one number in: the output's structure, as a list
        for i in range(2):
            close(J[i], d[i], rel=1e-15)
    for i in range(2):
        close(dz[i], d[i], rel=1e-15)
        close(R(lambda a: system_root(a, kind)[i])(a), d[i], rel=1e-15)


@pytest.mark.parametrize("m", MODES2)
def test_root_system_second(m):
    """x(a) = a·sqrt(a/(1+a²)) = sqrt(a³/(1+a²)): second derivative by mpmath at 50 digits."""
    with mpmath.workdps(50):
        want = float(mpmath.diff(lambda a: mpmath.sqrt(a ** 3 / (1 + a * a)), mpmath.mpf(2), 2))
    close(nest(lambda a: system_root(a)[0], m)(2.0), want, rel=1e-14)


def test_root_does_not_converge():
    with pytest.raises(FixedPointError) as info:
        root(lambda x: x * x + 1, 0.5)          # no real root: Newton wanders
    assert info.value.iterations == 100 and "100 iterations" in str(info.value)
    with pytest.raises(FixedPointError) as info:
        root(lambda x: x * x + 1, 0.5, max_iter=17)
    assert info.value.iterations == 17


@pytest.mark.parametrize("m", MODES1)
def test_root_does_not_converge_under_derivative(m):
    with pytest.raises(FixedPointError):
        nest(lambda a: root(lambda x: x * x + a, 0.5), m)(1.0)


@pytest.mark.parametrize("mm", MODES2)
def test_perturbation_that_appears_after_the_first_step(mm):
    """f(x0) shows only a; b enters once x > 0.5.  x* = a / (0.5 − 0.1 b), so ∂²x*/∂a∂b at
    (1, 1) = 0.1 / 0.4² = 0.625, whichever order the perturbations show up in."""
    def branchy(a, b):
        return fixed_point(lambda x: 0.5 * x + a + (b * x * 0.1 if x > 0.5 else 0.0), 0.0)
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    close(outer(lambda a: inner(lambda b: branchy(a, b))(1.0))(1.0), 0.625, rel=1e-14)


def test_fixed_point_of_an_array():
    """x = 0.5 cos x + a elementwise: x* and dx*/da = 1 / (1 + 0.5 sin x*), both modes."""
    a = np.array([0.1, 0.2, 0.3])
    xs = lambda a: fixed_point(lambda x: 0.5 * np.cos(x) + a, np.zeros(3))
    x = xs(a)
    assert np.allclose(x, 0.5 * np.cos(x) + a, rtol=0, atol=1e-15)
    want = 1 / (1 + 0.5 * np.sin(x))
    assert np.allclose(dvlad.gradient_r(lambda a: np.sum(xs(a)))(a), want, rtol=1e-14)
    assert np.allclose(np.diag(dvlad.jacobian_f(xs)(a)), want, rtol=1e-14)


# ---- derivatives far smaller than 1 converge relative to their own size ---------------------

def test_small_higher_derivatives_are_converged_relative_to_their_size():
    """At a = 10⁶ the derivatives of √a are 5e-4, -2.5e-10, 3.75e-16, ...: the tangent
    iterations of nested derivative used to stop at an absolute step of 2 ulps of 1, which left
    the third one 60% wrong (a contraction of 0.6 here: it needs ~70 steps, not 1)."""
    g = lambda a: fixed_point(lambda y: y - 0.4 / a ** 0.5 * (y * y - a) / 2, a ** 0.5 * 1.1)  # noqa: E731
    a = 1e6
    with mpmath.workdps(30):
        exact = [mpmath.diff(mpmath.sqrt, mpmath.mpf(a), k) for k in range(5)]
    for k in range(5):
        close(nest(g, "F" * k)(a) if k else g(a), float(exact[k]), rel=1e-12)
        close(dvlad.derivatives(g, 4)(a)[k], float(exact[k]), rel=1e-12)
    # reverse over reverse: the adjoints of the second derivative, as small
    close(R(R(g))(a), float(exact[2]), rel=1e-10)


def test_root_of_a_system_from_an_array_start():
    # w* solves A w + 0.1 w³ = c: dw*/dc = (A + diag(0.3 w*²))⁻¹ (implicit function theorem)
    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    solve = lambda c: dvlad.root(lambda w: A @ w + 0.1 * w ** 3 - c, np.zeros(2))
    c = np.array([1.0, 2.0])
    w = solve(c)
    np.testing.assert_allclose(A @ w + 0.1 * w ** 3, c, rtol=1e-14)
    inverse = np.linalg.inv(A + np.diag(0.3 * w ** 2))
    np.testing.assert_allclose(dvlad.jacobian_f(solve)(c), inverse, rtol=1e-12)
    np.testing.assert_allclose(dvlad.jacobian_r(solve)(c), inverse, rtol=1e-12)
    dvlad.check_grads(solve, c, order=2)
    np.testing.assert_allclose(dvlad.root(lambda w: A @ w - 1.0, np.zeros(2)), [0.2, 0.4],
                               rtol=1e-14)


def test_root_of_a_system_names_a_singular_jacobian_and_a_wrong_shape():
    with pytest.raises(dvlad.FixedPointError, match="singular Jacobian"):
        dvlad.root(lambda w: np.array([w[0] ** 2 - 1.0, w[0] ** 2 - 1.0]), np.ones(2) * 2)
    with pytest.raises(dvlad.ArgumentError, match="of x's shape"):
        dvlad.root(lambda w: np.sum(w), np.ones(2))
