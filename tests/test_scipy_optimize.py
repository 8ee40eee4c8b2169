"""scipy.optimize's root finders and minimize on functions that return dvlad numbers
(dvlad/operators/scipy_optimize.py): the primal root or minimizer by scipy, derivatives by the
implicit function theorem (dvlad.root), in every mode and nested."""
import numpy as np
import pytest

import dvlad as ad

so = pytest.importorskip("scipy.optimize")

RNG = np.random.default_rng(3)
X = RNG.standard_normal((20, 3))
Y = RNG.standard_normal(20)


@pytest.mark.parametrize("name", ["brentq", "brenth", "ridder", "bisect", "toms748"])
def test_bracketing_root_finders_give_the_cube_roots_derivatives(name):
    find = getattr(so, name)
    cbrt = lambda a: find(lambda x: x ** 3 - a, 0.0, 3.0, xtol=1e-14)      # a^(1/3)
    assert ad.derivative(cbrt)(8.0) == pytest.approx(1.0 / 12.0, rel=1e-12)
    assert ad.gradient_r(cbrt)(8.0) == pytest.approx(1.0 / 12.0, rel=1e-12)
    assert ad.derivative(ad.derivative(cbrt))(8.0) == pytest.approx(-2.0 / 9.0 / 32.0, rel=1e-10)
    assert ad.gradient_r(ad.derivative(cbrt))(8.0) == pytest.approx(-2.0 / 9.0 / 32.0, rel=1e-10)


def test_args_full_output_and_root_scalar():
    f = lambda x, b: x ** 3 - b
    assert ad.derivative(lambda a: so.brentq(f, 0.0, 3.0, args=(a,)))(8.0) == \
        pytest.approx(1.0 / 12.0, rel=1e-12)
    r, info = ad.derivative(lambda a: so.brentq(f, 0.0, 3.0, args=(a,), full_output=True)[0],
                            )(8.0), so.brentq(f, 0.0, 3.0, args=(8.0,), full_output=True)[1]
    assert r == pytest.approx(1.0 / 12.0, rel=1e-12) and info.converged
    # root_scalar answers with the result's root: it carries the derivative too (not 0)
    g = ad.derivative(lambda a: so.root_scalar(f, args=(a,), bracket=(0.0, 3.0),
                                               method="brentq").root)(8.0)
    assert g == pytest.approx(1.0 / 12.0, rel=1e-12)
    ad.check_grads(lambda a: so.brentq(lambda x: x ** 3 + x - a, -5.0, 5.0, xtol=1e-15), 2.0,
                   order=2)


def test_plain_calls_are_scipys_own():
    assert so.brentq(lambda x: x * x - 2.0, 0.0, 2.0) == \
        so.brentq.__wrapped__(lambda x: x * x - 2.0, 0.0, 2.0)
    np.testing.assert_array_equal(so.fsolve(lambda x: x ** 2 - 2.0, 1.0),
                                  so.fsolve.__wrapped__(lambda x: x ** 2 - 2.0, 1.0))
    assert so.minimize(lambda x: (x[0] - 2.0) ** 2, [0.0]).x[0] == \
        so.minimize.__wrapped__(lambda x: (x[0] - 2.0) ** 2, [0.0]).x[0]


def system(x, a):            # x₀² + x₁ = a, x₀ = x₁: at a = 2, x = (1, 1), dx/da = 1/(2x₀ + 1)
    return np.array([x[0] ** 2 + x[1] - a, x[0] - x[1]])


def test_fsolve_and_root_of_a_system():
    want = np.array([1.0, 1.0]) / 3.0
    np.testing.assert_allclose(
        ad.derivative(lambda a: so.fsolve(system, np.ones(2), args=(a,)))(2.0), want,
        rtol=1e-12)
    np.testing.assert_allclose(
        ad.derivative(lambda a: so.root(system, np.ones(2), args=(a,)).x)(2.0), want,
        rtol=1e-12)
    as_list = lambda a: so.fsolve(lambda x: [x[0] ** 2 + x[1] - a, x[0] - x[1]], [1.0, 1.0])
    assert ad.gradient_r(lambda a: np.sum(as_list(a)))(2.0) == pytest.approx(2.0 / 3.0)
    # second order: x₀(a) = (−1 + √(1 + 4a))/2, x₀″ = −2/(1 + 4a)^(3/2)
    assert ad.derivative(ad.derivative(lambda a: so.fsolve(system, np.ones(2), args=(a,))[0])
                         )(2.0) == pytest.approx(-2.0 / 27.0, rel=1e-10)


def ridge(lam):
    return so.minimize(lambda w: np.sum((X @ w - Y) ** 2) + lam * (w @ w), np.zeros(3),
                       method="BFGS").x


def test_minimize_differentiates_its_minimizer_and_its_value():
    exact = lambda lam: np.linalg.solve(X.T @ X + lam * np.eye(3), X.T @ Y)
    np.testing.assert_allclose(ad.derivative(ridge)(0.5), ad.derivative(exact)(0.5),
                               rtol=1e-10)
    np.testing.assert_allclose(ad.jacobian_r(ridge)(0.5), ad.derivative(exact)(0.5),
                               rtol=1e-10)
    np.testing.assert_allclose(ad.derivative(ad.derivative(ridge))(0.5),
                               ad.derivative(ad.derivative(exact))(0.5), rtol=1e-8)
    # the optimal value's derivative is ∂f/∂λ at the minimizer, |w*|² (the envelope theorem)
    value = lambda lam: so.minimize(lambda w: np.sum((X @ w - Y) ** 2) + lam * (w @ w),
                                    np.zeros(3), method="L-BFGS-B", bounds=[(-9, 9)] * 3).fun
    assert ad.derivative(value)(0.5) == pytest.approx(np.sum(exact(0.5) ** 2), rel=1e-9)


def test_minimizers_on_a_bound_or_under_constraints_raise():
    f = lambda lam: so.minimize(lambda w: np.sum((X @ w - Y) ** 2) + lam * (w @ w),
                                np.zeros(3), bounds=[(0.0, 5.0)] * 3).x
    with pytest.raises(ad.NotDifferentiableError, match="bound"):
        ad.derivative(f)(0.5)
    g = lambda lam: so.minimize(lambda w: np.sum((w - lam) ** 2), np.zeros(2),
                                constraints=[{"type": "eq", "fun": lambda w: w[0] - w[1]}]).x
    with pytest.raises(ad.NotDifferentiableError, match="constraints"):
        ad.derivative(g)(0.5)


def test_starts_holding_dvlad_numbers_hessp_a_scalar_start_and_a_near_bound():
    want = np.array([1.0, 1.0]) / 3.0
    np.testing.assert_allclose(
        ad.derivative(lambda a: so.fsolve(system, np.array([a, 1.0]), args=(a,)))(2.0), want,
        rtol=1e-12)
    np.testing.assert_allclose(
        ad.derivative(lambda a: so.root(system, np.array([a, 1.0]), args=(a,)).x)(2.0), want,
        rtol=1e-12)
    # x* of (x − a)² + x⁴: 2(x − a) + 4x³ = 0, dx*/da = 2/(2 + 12x²)
    x = so.brentq(lambda x: 2 * (x - 1.0) + 4 * x ** 3, 0.0, 1.0, xtol=1e-15)
    slope = 2.0 / (2.0 + 12.0 * x * x)
    quartic = lambda x, a: np.sum((x - a) ** 2 + x ** 4)
    assert ad.derivative(lambda a: so.minimize(quartic, 0.0, args=(a,)).x[0])(1.0) == \
        pytest.approx(slope, rel=1e-10)
    hessp = lambda x, p, a: (2.0 + 12.0 * x ** 2) * p
    jac = lambda x, a: 2.0 * (x - a) + 4.0 * x ** 3
    got = ad.derivative(lambda a: so.minimize(quartic, np.zeros(2), args=(a,), jac=jac,
                                              hessp=hessp, method="trust-ncg").x)(1.0)
    np.testing.assert_allclose(got, [slope, slope], rtol=1e-10)
    # a minimizer near a bound but not on it is interior
    near = lambda a: so.minimize(lambda x: a * (x[0] - 1000.0) ** 2, np.array([0.0]),
                                 bounds=[(0.0, 1000.005)]).x
    assert ad.derivative(near)(1.0).tolist() == [0.0]
