"""Helpers shared by the test modules: the scalar operators of each mode, nesting, and checks."""
import itertools

import mpmath

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
