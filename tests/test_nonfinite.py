"""A partial that is the constant ∞ or nan (log′(0) = 1/0, exp1′(0), entr′(nan)) at a point an
outer derivative perturbs: the next order is nan, never 0 (dvlad/numbers/nonfinite.py).  Where
f′ is infinite or undefined at a point, f″ there is not a finite number, so any finite answer
would be a wrong number.  Lanes and points away from it keep their exact values."""
import math

import mpmath
import numpy as np
import pytest

import dvlad

D, R = dvlad.derivative, dvlad.gradient_r
NESTINGS = {"FF": lambda f: D(D(f)), "FR": lambda f: D(R(f)), "RF": lambda f: R(D(f)),
            "RR": lambda f: R(R(f))}

scipy_special = pytest.importorskip("scipy.special")


def nan(v):
    return isinstance(v, (float, np.floating)) and math.isnan(v)


POINTS = [("log", np.log, 0.0, lambda x: -1 / x ** 2),
          ("log2", np.log2, 0.0, lambda x: -1 / (x ** 2 * mpmath.log(2))),
          ("sqrt", np.sqrt, 0.0, lambda x: -1 / (4 * x ** 1.5)),
          ("cbrt", np.cbrt, 0.0, lambda x: -2 / (9 * mpmath.cbrt(x) ** 5)),
          ("arcsin", np.arcsin, 1.0, lambda x: x / (1 - x * x) ** 1.5),
          ("arctanh", np.arctanh, -1.0, lambda x: 2 * x / (1 - x * x) ** 2),
          ("log1p", np.log1p, -1.0, lambda x: -1 / (1 + x) ** 2),
          ("exp1", scipy_special.exp1, 0.0, lambda x: mpmath.e ** -x * (x + 1) / x ** 2),
          ("entr", scipy_special.entr, math.nan, lambda x: -1 / x),
          ("sqrt_abs", lambda x: np.sqrt(abs(x)), 0.0, lambda x: -1 / (4 * x ** 1.5))]
IDS = [p[0] for p in POINTS]


@pytest.mark.parametrize("nesting", NESTINGS)
@pytest.mark.parametrize("name, f, at, second", POINTS, ids=IDS)
def test_second_derivative_at_an_infinite_slope_is_nan(nesting, name, f, at, second):
    with np.errstate(all="ignore"):
        got = NESTINGS[nesting](f)(at)
        assert nan(got), f"{name}″({at}) by {nesting}: {got!r}, not nan"
        away = 0.5 if name not in ("arcsin", "arctanh", "log1p") else -0.5 + (name != "log1p")
        assert NESTINGS[nesting](f)(away) == pytest.approx(float(second(mpmath.mpf(away))),
                                                           rel=1e-13)


@pytest.mark.parametrize("name, f, at, second", POINTS, ids=IDS)
def test_taylor_coefficients_above_an_infinite_slope_are_nan(name, f, at, second):
    with np.errstate(all="ignore"):
        d = dvlad.derivatives(f, 3)(at)
        assert all(nan(v) for v in d[2:]), (name, d)
        outer = D(dvlad.derivatives(f, 2))(at)       # a tower inside a forward derivative
        assert all(nan(v) for v in outer[1:]), (name, outer)


def test_third_order_and_mixed_nestings_stay_nan():
    with np.errstate(all="ignore"):
        assert nan(D(D(D(np.log)))(0.0))
        assert nan(R(D(R(np.log)))(0.0))
        assert nan(D(R(D(np.sqrt)))(0.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_arrays_nan_only_in_the_lane_at_the_point(dtype):
    x = np.array([0.0, 1.0, 4.0], dtype)
    f = lambda v: np.sum(np.log(v) + np.sqrt(v))
    want = [None, -1.25, -1 / 16 - 1 / 32]
    with np.errstate(all="ignore"):
        for H in (dvlad.hessian(f)(x), dvlad.jacobian_r(R(f))(x), dvlad.jacobian_f(R(f))(x),
                  dvlad.jacobian_f(dvlad.gradient_f(f))(x)):
            assert H.dtype == dtype
            assert np.isnan(H[0, 0])
            np.testing.assert_allclose(np.diag(H)[1:], want[1:], rtol=1e-6)
            off = H[~np.eye(3, dtype=bool)]
            assert np.all(off == 0), H                   # lane 0's nan reaches no other lane
        h = dvlad.hvp(f, x, np.ones(3, dtype))
        assert h.dtype == dtype and np.isnan(h[0]) and np.all(np.isfinite(h[1:]))
        # a zero lane of the direction leaves lane 0 out, as everywhere (notes/conventions.md)
        h = dvlad.hvp(f, x, np.array([0.0, 1.0, 1.0], dtype))
        assert h[0] == 0 and np.all(np.isfinite(h[1:]))


@pytest.mark.parametrize("nesting", NESTINGS)
def test_a_where_lane_not_taken_stays_zero_at_second_order(nesting):
    f = lambda v: np.sum(np.where(v > 0, np.sqrt(v) + np.log(v), 0.0))
    x = np.array([0.0, 4.0])
    inner = dvlad.gradient_f if nesting[1] == "F" else R
    outer = dvlad.jacobian_f if nesting[0] == "F" else dvlad.jacobian_r
    with np.errstate(all="ignore"):
        H = outer(inner(f))(x)
    assert H.tolist() == [[0.0, 0.0], [0.0, -1 / 32 - 1 / 16]]


def test_mpf_point():
    with np.errstate(all="ignore"), mpmath.workdps(30):
        got = D(D(dvlad.log))(mpmath.mpf(0))
        assert mpmath.isnan(got)
        assert mpmath.almosteq(D(D(dvlad.log))(mpmath.mpf(3)), -1 / mpmath.mpf(9), 1e-28)


def test_a_product_with_a_constant_zero_stays_a_constant_where_finite():
    # 0·√x at 0 does not depend on x (notes/conventions.md); 0·∞ is nan with a nan slope
    with np.errstate(all="ignore"):
        assert D(D(lambda x: 0.0 * dvlad.sqrt(x)))(0.0) == 0.0
        assert nan(D(D(lambda x: 0.0 * D(dvlad.sqrt)(x)))(0.0))
        assert nan(R(R(lambda x: 0.0 * D(dvlad.log)(x)))(0.0))


def test_compiled_hessian_agrees():
    f = lambda v: np.sum(np.log(v))
    c = dvlad.compile(dvlad.hessian(f))
    with np.errstate(all="ignore"):
        for x in (np.array([0.0, 2.0]), np.array([1.0, 0.0]), np.array([0.0, 2.0])):
            got, want = c(x), dvlad.hessian(f)(x)
            np.testing.assert_array_equal(got, want)
            assert np.isnan(got).sum() == 1
