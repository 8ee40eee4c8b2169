"""Edges of the core a probe found: bool and small-integer constants in forward mode and in a
pullback's cotangent, an argument named twice in argnums, views noted from several threads,
Newton at a zero derivative, odeint inside odeint."""
import threading

import numpy as np
import pytest

import dvlad as ad

D = ad.derivative
C = np.float64(2.0)


@pytest.mark.parametrize("f, want", [
    (lambda x: x * (C > 0) + x * (C > 0), 2.0),              # ReLU-style masks: numpy bools
    (lambda x: np.uint8(200) * x + np.uint8(100) * x, 300.0),  # (uint8 tangents wrapped: 44)
    (lambda x: np.uint8(2) * x - np.uint8(3) * x, -1.0),
    (lambda x: -(np.True_ * x), -1.0),                         # (numpy's TypeError)
    (lambda x: True * x + True * x, 2.0),
])
def test_bool_and_integer_constants_make_float_tangents(f, want):
    for got in (D(f)(3.0), ad.gradient_r(f)(3.0), ad.jvp(f, 3.0, 1.0)[1]):
        assert got == want and isinstance(got, float)
    assert ad.hvp(lambda p: f(p[0]) * p[0], (3.0,), (1.0,), mode="fr")[0] == 2 * want


def test_a_pullback_widens_bool_and_integer_cotangents():
    _, back = ad.vjp(lambda p: (p[0], p[0]), (3.0,))
    assert back((np.uint8(200), np.uint8(100))) == (300.0,)
    assert back((np.True_, np.True_)) == (2.0,)
    _, back = ad.vjp(lambda p: p * 2.0, np.array([1.0, 2.0], np.float32))
    got = back(np.array([200, 100], np.uint8))
    assert got.dtype == np.float32 and got.tolist() == [400.0, 200.0]


@pytest.mark.parametrize("op", [ad.gradient_r, ad.gradient_f, D, ad.hessian, ad.jacobian_f,
                                ad.jacobian_r, ad.value_and_gradient_r])
def test_an_argument_named_twice_in_argnums_raises(op):
    def f(x, y):
        return x * y * y
    with pytest.raises(ad.ArgumentError, match="twice"):
        op(f, argnums=(1, -1))(2.0, 3.0)
    with pytest.raises(ad.ArgumentError, match="names argument 5"):
        op(f, argnums=5)(2.0, 3.0)


def test_views_are_noted_safely_from_several_threads():
    def f(x):
        for k in range(3):
            (x * float(k)).reshape(-1)                  # views noted, then let go
        return np.sum(x.T * x[0:4])
    errors, results = [], []

    def work(s):
        x = np.arange(1.0, 5.0) + s
        for _ in range(300):
            try:
                results.append((s, ad.gradient_r(f)(x).tolist()))
            except Exception as e:      # noqa: BLE001  (each counted below)
                errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(g == (2 * (np.arange(1.0, 5.0) + s)).tolist() for s, g in results)


@pytest.mark.parametrize("g, x0", [(lambda x: x * x + 1, 1.0), (lambda x: x ** 3, 0.0),
                                   (lambda v: (v[0] + v[1] - 2, 2 * v[0] + 2 * v[1] - 4),
                                    (0.0, 0.0))])
def test_root_at_a_zero_derivative_raises_a_fixed_point_error(g, x0):
    with pytest.raises(ad.FixedPointError, match="zero derivative"):
        ad.root(g, x0)


def test_odeint_inside_odeints_func_raises():
    pytest.importorskip("scipy.integrate")

    def inner(b):
        return ad.odeint(lambda z, s, b: b * z, 1.0, [0.0, 1.0], args=(b,))[-1, 0]

    def outer(b):
        return ad.odeint(lambda y, t, b: -y * inner(b), 1.0, [0.0, 1.0], args=(b,))[-1, 0]
    with pytest.raises(ad.ArgumentError, match="inside the func of another odeint"):
        outer(0.2)
    assert inner(0.5) == pytest.approx(np.exp(0.5), rel=1e-6)       # and afterwards, as ever
