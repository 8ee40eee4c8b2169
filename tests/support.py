"""Helpers shared by the test modules: the scalar operators of each mode, nesting, and checks."""
import itertools

import mpmath
import numpy as np

import dvlad
from dvlad import Bundle, TapeCell


def R(f):
    """The scalar reverse derivative: gradient_r of a function R -> R."""
    return lambda x: dvlad.gradient_r(f)(x)


OPS = {"F": dvlad.derivative, "R": R}
MODES1 = ["F", "R"]
MODES2 = ["".join(m) for m in itertools.product("FR", repeat=2)]
MODES3 = ["".join(m) for m in itertools.product("FR", repeat=3)]


def nest(f, modes):
    """modes[0](modes[1](...(f))): the operator of each level, outermost first."""
    for m in reversed(modes):
        f = OPS[m](f)
    return f


def assert_plain(value):
    """No Bundle or TapeCell anywhere inside value (containers are walked)."""
    if isinstance(value, (Bundle, TapeCell)):
        raise AssertionError(f"an AD number escaped into a result: {value!r}")
    if isinstance(value, dict):
        for v in value.values():
            assert_plain(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            assert_plain(v)


def exactly(got, expected):
    """Integer-valued answers are exact, and the result is a plain number."""
    assert_plain(got)
    assert got == expected, f"got {got!r}, expected {expected!r}"


def close(got, want, rel=1e-15, abs_=0.0):
    """A plain number within rel (relative) + abs_ of want."""
    assert isinstance(got, (float, int, mpmath.mpf)), f"not a plain number: {got!r}"
    assert abs(got - want) <= abs_ + rel * abs(want), (
        f"got {got!r}, expected {want!r} (error {float(abs(got - want)):.3g})")


# ---- Rosenbrock on arrays (workload (c)), with its gradient and HVP by hand -----------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_gradient(x):
    g = np.zeros_like(x)
    t = x[1:] - x[:-1] ** 2
    g[:-1] = -400.0 * x[:-1] * t - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * t
    return g


def rosenbrock_hvp(x, v):
    """H·v by hand: H is tridiagonal, H_ii = 1200x_i² − 400x_{i+1} + 2 (i < n−1) + 200 (i > 0),
    H_{i,i+1} = H_{i+1,i} = −400x_i."""
    diag = np.zeros_like(x)
    diag[:-1] = 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    diag[1:] += 200.0
    off = -400.0 * x[:-1]
    hv = diag * v
    hv[:-1] += off * v[1:]
    hv[1:] += off * v[:-1]
    return hv
