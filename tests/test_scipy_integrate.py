"""scipy.integrate.quad of integrands and limits carrying dvlad numbers
(dvlad/operators/scipy_integrate.py): scipy's value, derivatives by the Gauss–Legendre rule on
scipy's partition, checked against closed forms and check_grads."""
import numpy as np
import pytest

import dvlad as ad

integrate = pytest.importorskip("scipy.integrate")
quad = integrate.quad


def decay(k):
    return quad(lambda x: np.exp(-k * x), 0.0, 1.0)[0]


def closed(k):                              # ∫₀¹ e^(−kx) dx = (1 − e^(−k))/k
    return (1.0 - np.exp(-k)) / k


def test_a_parameter_in_the_integrand_in_every_mode():
    assert decay(0.7) == quad.__wrapped__(lambda x: np.exp(-0.7 * x), 0.0, 1.0)[0]
    for d in (ad.derivative, ad.gradient_r):
        assert d(decay)(0.7) == pytest.approx(ad.derivative(closed)(0.7), rel=1e-13)
    assert ad.derivative(ad.derivative(decay))(0.7) == \
        pytest.approx(ad.derivative(ad.derivative(closed))(0.7), rel=1e-12)
    assert ad.gradient_r(ad.derivative(decay))(0.7) == \
        pytest.approx(ad.derivative(ad.derivative(closed))(0.7), rel=1e-12)


def test_moving_limits_args_and_a_reversed_interval():
    assert ad.derivative(lambda b: quad(lambda x: x * x, 0.5, b)[0])(2.0) == pytest.approx(4.0)
    assert ad.derivative(lambda a: quad(np.sin, a, 3.0)[0])(0.5) == \
        pytest.approx(-np.sin(0.5), rel=1e-13)
    assert ad.derivative(lambda a: quad(np.sin, 3.0, a)[0])(0.5) == \
        pytest.approx(np.sin(0.5), rel=1e-13)
    # ∫₋₁¹ e^(−x²/2s²) dx in s: ∫ x²/s³ e^(−x²/2s²) dx
    gauss = lambda s: quad(lambda x, s: np.exp(-x * x / (2 * s * s)), -1.0, 1.0, args=(s,))[0]
    want = quad.__wrapped__(lambda x: x * x / 0.8 ** 3 * np.exp(-x * x / 1.28), -1.0, 1.0)[0]
    assert ad.derivative(gauss)(0.8) == pytest.approx(want, rel=1e-12)
    ad.check_grads(lambda p: quad(lambda x: np.exp(-p[0] * x) * np.cos(p[1] * x), p[2], 2.0)[0],
                   (0.7, 1.3, 0.2), order=2)
    r, err, info = quad(lambda x: x * x, 0.0, 1.0, full_output=1)
    assert r == pytest.approx(1.0 / 3.0) and "neval" in info


def test_what_it_cannot_differentiate_raises_by_name():
    with pytest.raises(ad.NotDifferentiableError, match="infinite"):
        ad.derivative(lambda k: quad(lambda x: np.exp(-k * x), 0.0, np.inf)[0])(0.7)
    with pytest.raises(ad.NotDifferentiableError, match="weight"):
        ad.derivative(lambda k: quad(lambda x: k * x, 0.0, 1.0, weight="cos", wvar=2.0)[0])(0.7)
    assert quad(lambda x: np.exp(-x), 0.0, np.inf)[0] == pytest.approx(1.0)


solve_ivp = integrate.solve_ivp
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def decayed(k, **kw):            # y′ = −k·y, y(0) = 1: y(t) = e^(−kt)
    return solve_ivp(lambda t, z, k: -k * z, (0.0, 1.0), np.array([1.0]), args=(k,), **TIGHT,
                     **kw).y[0]


def test_solve_ivp_in_its_parameters_and_initial_value():
    assert ad.derivative(lambda k: decayed(k)[-1])(0.7) == pytest.approx(-np.exp(-0.7), rel=1e-8)
    assert ad.gradient_r(lambda k: decayed(k)[-1])(0.7) == pytest.approx(-np.exp(-0.7), rel=1e-8)
    assert ad.derivative(ad.derivative(lambda k: decayed(k)[-1]))(0.7) == \
        pytest.approx(np.exp(-0.7), rel=1e-7)
    start = lambda y0: solve_ivp(lambda t, z: -0.7 * z, (0.0, 1.0), np.array([y0]),
                                 **TIGHT).y[0, -1]
    assert ad.derivative(start)(1.0) == pytest.approx(np.exp(-0.7), rel=1e-8)
    # times asked for that do not begin at the start: each one's own derivative, −t·e^(−kt)
    want = [-0.5 * np.exp(-0.35), -np.exp(-0.7)]
    np.testing.assert_allclose(ad.jacobian_r(lambda k: decayed(k, t_eval=[0.5, 1.0]))(0.7),
                               want, rtol=1e-8)
    np.testing.assert_allclose(ad.jacobian_f(lambda k: decayed(k, t_eval=[0.5, 1.0]))(0.7),
                               want, rtol=1e-8)
    # the value is scipy's own solution
    assert ad.jvp(lambda k: decayed(k)[-1], 0.7, 1.0)[0] == decayed(0.7)[-1]


def test_solve_ivp_of_a_system_against_differences():
    def lv(t, z, a, b):
        return np.array([a * z[0] - b * z[0] * z[1], -z[1] + b * z[0] * z[1]])
    end = lambda p: solve_ivp(lv, (0.0, 2.0), np.array([1.0, 0.5]), args=(p[0], p[1]),
                              **TIGHT).y[:, -1]
    p, h = np.array([1.0, 0.5]), 1e-6
    fd = np.array([(end(p + h * e) - end(p - h * e)) / (2 * h) for e in np.eye(2)]).T
    np.testing.assert_allclose(ad.jacobian_r(end)(p), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ad.jacobian_f(end)(p), fd, rtol=1e-6, atol=1e-8)


def test_solve_ivp_what_it_cannot_follow_raises_by_name():
    with pytest.raises(ad.TagOrderError, match="args="):
        ad.derivative(lambda k: solve_ivp(lambda t, z: -k * z, (0.0, 1.0), [1.0]).y[0, -1])(0.7)
    with pytest.raises(ad.NotDifferentiableError, match="events"):
        ad.derivative(lambda k: solve_ivp(lambda t, z, k: -k * z, (0.0, 1.0), [1.0], args=(k,),
                                          events=lambda t, z, k: z[0] - 0.5).y[0, -1])(0.7)
    plain = solve_ivp(lambda t, z: -z, (0.0, 1.0), [1.0])
    assert plain.y[0, -1] == solve_ivp.__wrapped__(lambda t, z: -z, (0.0, 1.0), [1.0]).y[0, -1]


def test_equal_limits_still_move_and_breakpoints_carry_no_derivative():
    # ∫_1^b cos at b = 1: the value 0, the derivative cos 1 (the ends move though they meet)
    assert ad.derivative(lambda b: quad(np.cos, 1.0, b)[0])(1.0) == pytest.approx(np.cos(1.0))
    assert ad.derivative(lambda t: quad(np.cos, t, 2 * t)[0])(0.0) == pytest.approx(1.0)
    assert ad.gradient_r(lambda t: quad(np.cos, t, 2 * t)[0])(0.0) == pytest.approx(1.0)
    assert ad.derivative(lambda c: quad(lambda x: abs(x - 0.5), 0.0, 1.0, points=[c])[0]
                         )(0.5) == 0.0


def test_solve_ivp_with_a_jacobian_taking_args_and_a_tolerance_per_component():
    end = lambda k: solve_ivp(lambda t, y, k: -k * y, (0.0, 1.0), [1.0, 2.0], method="BDF",
                              jac=lambda t, y, k: -k * np.eye(2), args=(k,), rtol=1e-10,
                              atol=[1e-12, 1e-12]).y[:, -1]
    np.testing.assert_allclose(ad.derivative(end)(0.7), -np.exp(-0.7) * np.array([1.0, 2.0]),
                               rtol=1e-7)
