"""dvlad's odeint (dvlad/operators/odeint.py): scipy's signature, derivatives with respect to y0,
args and t in both modes and nested, against closed forms, finite differences and check_grads."""
import sys

import numpy as np
import pytest

import dvlad as ad
from dvlad.core.tags import ArgumentError, DvladError, PerturbedConversionError, TagOrderError
from dvlad.operators.odeint import IntegrationError, odeint

TIGHT = dict(rtol=1e-12, atol=1e-12)
LOOSE = dict(rtol=1e-11, atol=1e-11)        # for check_grads: differences need a smooth solver
CHECK = dict(eps=1e-4, rtol=1e-6, atol=1e-7)
CHECK2 = dict(eps=1e-4, rtol=1e-5, atol=1e-6)


def decay(y, t, k):
    return -k * y


def oscillator(y, t, w):
    return np.stack([y[1], -w ** 2 * y[0]])


def lotka_volterra(y, t, a, b, c, d):
    return np.array([a * y[0] - b * y[0] * y[1], -c * y[1] + d * y[0] * y[1]])   # object array


LV_Y0, LV_P, LV_T = np.array([1.0, 0.5]), [1.1, 0.4, 0.4, 0.1], np.array([0.0, 0.7, 1.5])


def lv(p):
    return odeint(lotka_volterra, p[0], LV_T, args=tuple(p[1]), **LOOSE)


def test_values_are_scipys():
    si = pytest.importorskip("scipy.integrate")
    for f, y0, args in [(decay, 2.0, (0.7,)), (lotka_volterra, LV_Y0, tuple(LV_P))]:
        want = si.odeint(f, y0, LV_T, args=args)
        got = odeint(f, y0, LV_T, args=args)
        assert got.shape == want.shape and np.array_equal(got, want)
    assert odeint(decay, 2.0, LV_T, args=(0.7,)).shape == (3, 1)      # scalar y0, as scipy
    assert odeint(decay, 2.0, [0.0], args=(0.7,)).tolist() == [[2.0]]


def test_exponential_decay_closed_form():
    """y = y0·e^(−kt): ∂y/∂y0 = e^(−kt), ∂y/∂k = −t·y0·e^(−kt), ∂²y/∂k² = t²·y0·e^(−kt)."""
    t = np.array([0.0, 0.5, 2.0])

    def y(p):
        return odeint(decay, p[0], t, args=(p[1],), **TIGHT)[:, 0]
    y0, k = 2.0, 0.7
    e = np.exp(-k * t)
    np.testing.assert_allclose(y((y0, k)), y0 * e, rtol=1e-10)
    for jac in (ad.jacobian_f, ad.jacobian_r):
        J = np.array(jac(y)((y0, k))[0], dtype=float)       # one output leaf, two inputs
        np.testing.assert_allclose(J, [e, -t * y0 * e], rtol=1e-8, atol=1e-12)
    last = lambda p: y(p)[-1]
    H = np.array(ad.hessian(last)((y0, k)), dtype=float)
    np.testing.assert_allclose(H, [[0.0, -2 * e[-1]], [-2 * e[-1], 4 * y0 * e[-1]]],
                               rtol=1e-7, atol=1e-12)
    # every order at once by a Taylor tower: dⁿy/dkⁿ = (−t)ⁿ·y0·e^(−kt)
    ds = ad.derivatives(lambda k: odeint(decay, y0, [0.0, 2.0], args=(k,), **TIGHT)[-1, 0], 3)(k)
    np.testing.assert_allclose(ds, [(-2.0) ** n * y0 * e[-1] for n in range(4)], rtol=1e-7)


def test_harmonic_oscillator_closed_form():
    """y″ = −w²y, y(0) = 1, y′(0) = 0: y = cos wt, ∂y/∂w = −t·sin wt, ∂²y/∂w² = −t²·cos wt."""
    t = np.array([0.0, 1.0, 2.5])
    x = lambda w: odeint(oscillator, [1.0, 0.0], t, args=(w,), **TIGHT)[:, 0]
    w = 1.3
    np.testing.assert_allclose(x(w), np.cos(w * t), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ad.derivative(x)(w), -t * np.sin(w * t), rtol=1e-8, atol=1e-11)
    np.testing.assert_allclose(ad.gradient_r(lambda w: x(w)[-1])(w), -2.5 * np.sin(2.5 * w),
                               rtol=1e-8)
    np.testing.assert_allclose(ad.derivative(ad.gradient_r(lambda w: x(w)[-1]))(w),
                               -2.5 ** 2 * np.cos(2.5 * w), rtol=1e-7)


def test_lotka_volterra_check_grads():
    ad.check_grads(lv, (LV_Y0, LV_P), order=1, **CHECK)
    ad.check_grads(lv, (LV_Y0, LV_P), order=2, **CHECK2)


def test_hessian_and_every_hvp_mode_match_differences_of_gradients():
    def loss(p):
        return np.sum(odeint(lotka_volterra, LV_Y0, [0.0, 1.5], args=tuple(p), **LOOSE)[-1] ** 2)
    p, v, h = np.array(LV_P), np.array([0.3, -1.0, 0.5, 2.0]), 1e-4
    g = ad.gradient_r(loss)
    fd = (g(p + h * v) - g(p - h * v)) / (2 * h)
    np.testing.assert_allclose(np.array(ad.hessian(loss)(p), dtype=float) @ v, fd, rtol=1e-5)
    for mode in ("fr", "rf", "rr", "ff"):
        np.testing.assert_allclose(ad.hvp(loss, p, v, mode=mode), fd, rtol=1e-5, err_msg=mode)


def test_with_respect_to_the_times():
    """∂Y[k]/∂t_k = f(Y[k], t_k); ∂Y[k]/∂t₀ = −Φ(t_k, t₀)·f(y0, t₀); decreasing t too."""
    y0, k = 2.0, 0.7
    J = ad.jacobian_r(lambda t: odeint(decay, y0, t, args=(k,), **TIGHT)[:, 0])(LV_T)
    e = np.exp(-k * (LV_T - LV_T[0]))
    want = np.diag(-k * y0 * e)
    want[1:, 0] = k * y0 * e[1:]               # −Φ·f(y0) = −e^(−kΔt)·(−k·y0)
    want[0, 0] = 0.0                           # Y[0] = y0 whatever t₀ is
    np.testing.assert_allclose(J, want, rtol=1e-8, atol=1e-12)

    def forced(y, t, a):                       # f depends on t explicitly
        return np.stack([-a * y[0] + np.sin(3 * t), y[0] - y[1]])
    G = lambda t: odeint(forced, [1.0, 0.5], t, args=(0.5,), **LOOSE)
    ad.check_grads(G, LV_T, order=2, **CHECK2)
    ad.check_grads(G, LV_T[::-1].copy(), order=1, **CHECK)


def test_jacobian_f_and_jacobian_r_agree():
    f = lambda y0: odeint(lotka_volterra, y0, LV_T, args=tuple(LV_P), **LOOSE)
    Jf, Jr = ad.jacobian_f(f)(LV_Y0), ad.jacobian_r(f)(LV_Y0)
    assert Jf.shape == Jr.shape == (3, 2, 2)
    np.testing.assert_allclose(Jf, Jr, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(Jf[0], np.eye(2))


def test_args_structures_and_constants():
    """args: a tuple of arrays, a dict, ints and strings (held constant), tfirst=True."""
    A = np.array([[-1.0, 0.5], [0.2, -0.7]])

    def linear(y, t, A, b, n, label):
        assert n == 3 and label == "held"
        return A @ y + b
    F = lambda p: odeint(linear, p[0], [0.0, 1.0], args=(p[1], p[2], 3, "held"), **LOOSE)
    ad.check_grads(F, (np.array([1.0, -1.0]), A, np.array([0.1, 0.2])), order=1, **CHECK)
    g = ad.gradient_r(lambda d: odeint(lambda t, y, d: -d["k"] * y, 1.0, [0.0, 1.0],
                                       args=(d,), tfirst=True, **TIGHT)[-1, 0])({"k": 0.5})
    assert list(g) == ["k"] and abs(g["k"] + np.exp(-0.5)) < 1e-9


def test_float32_inputs_compute_in_float64():
    """As scipy: the value is float64 whatever y0's dtype, and so are its derivatives."""
    y0 = np.array([1.0, 2.0], dtype=np.float32)
    assert odeint(decay, y0, [0.0, 1.0], args=(1.0,)).dtype == np.float64
    f = lambda y0: np.sum(odeint(decay, y0, [0.0, 1.0], args=(np.float32(1.0),), **TIGHT)[-1])
    for grad in (ad.gradient_r, ad.gradient_f):
        g = grad(f)(y0)
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, np.exp(-1.0), rtol=1e-9)


def test_full_output_and_dfun_serve_the_value():
    y, info = odeint(decay, 1.0, [0.0, 1.0], args=(2.0,), full_output=1,
                     Dfun=lambda y, t, k: [[-k]])
    assert "message" in info and abs(y[-1, 0] - np.exp(-2.0)) < 1e-7
    d = ad.derivative(lambda k: odeint(decay, 1.0, [0.0, 1.0], args=(k,), full_output=1,
                                       Dfun=lambda y, t, k: [[-k]], **TIGHT)[0][-1, 0])(2.0)
    assert abs(d + np.exp(-2.0)) < 1e-9


def test_a_perturbation_closed_over_raises_naming_args():
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(TagOrderError, match=r"args=\(\.\.\.\)"):
            op(lambda k: odeint(lambda y, t: -k * y, 1.0, [0.0, 1.0])[-1, 0])(1.0)


def test_scipy_odeint_on_dvlad_numbers_is_loud():
    """scipy's compiled odeint converts its inputs to floats: a TypeError, never a wrong 0."""
    si = pytest.importorskip("scipy.integrate")
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(PerturbedConversionError):
            op(lambda k: si.odeint(decay, 1.0, [0.0, 1.0], args=(k,))[-1, 0])(1.0)
        assert issubclass(PerturbedConversionError, TypeError)


def test_bad_arguments_and_failed_derivative_solves_raise_named_errors():
    with pytest.raises(ArgumentError, match="y0"):
        odeint(decay, "one", [0.0, 1.0], args=(1.0,))
    with pytest.raises(ArgumentError, match="func"):
        odeint(None, 1.0, [0.0, 1.0])
    si = pytest.importorskip("scipy.integrate")
    with pytest.warns(si.ODEintWarning), \
            pytest.raises(IntegrationError, match="mxstep") as info:   # 5 steps cannot do it
        ad.gradient_r(lambda k: odeint(decay, 1.0, [0.0, 50.0], args=(k,), mxstep=5,
                                       **TIGHT)[-1, 0])(1.0)
    assert isinstance(info.value, DvladError)


def test_without_scipy_dormand_prince(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.integrate", None)       # import fails: no scipy
    y, info = odeint(decay, 2.0, [0.0, 1.0, 2.0], args=(0.7,), full_output=1, **TIGHT)
    assert "Dormand" in info["message"]
    np.testing.assert_allclose(y[:, 0], 2.0 * np.exp(-0.7 * np.arange(3)), rtol=1e-10)
    d = ad.derivative(lambda k: odeint(decay, 2.0, [0.0, 2.0], args=(k,), **TIGHT)[-1, 0])(0.7)
    assert abs(d + 4 * np.exp(-1.4)) < 1e-8
    ad.check_grads(lv, (LV_Y0, LV_P), order=1, **CHECK)


def test_scipys_solvers_on_dvlad_numbers_raise_and_name_dvlads_odeint():
    import scipy.integrate as si
    with pytest.raises(ad.PerturbedConversionError, match="dvlad.odeint"):
        ad.derivative(lambda k: si.odeint(lambda y, t: -k * y, [1.0], [0.0, 1.0])[-1, 0])(0.5)
    # solve_ivp takes dvlad numbers through args (tests/test_scipy_integrate.py); a closure
    # over a perturbed variable raises by name
    with pytest.raises(ad.TagOrderError, match="args="):
        ad.derivative(lambda k: si.solve_ivp(lambda t, y: -k * y, (0.0, 1.0), [1.0]).y[0, -1])(
            0.5)
