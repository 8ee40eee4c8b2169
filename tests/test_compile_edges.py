"""dvlad.compile at the edges a probe found: a nan against a recorded test, an exception inside
a conversion F catches, mpmath's working precision, signed zeros of other float types, argument
objects that are equal but not the same, a dict keyed by a computed number."""
import math

import mpmath
import numpy as np
import pytest

import dvlad as ad
from test_compile import same

NAN = float("nan")


@pytest.mark.parametrize("name", ["branch", "derivative", "max", "array"])
def test_a_nan_fails_a_recorded_comparison_either_way(name):
    F = {"branch": lambda x: 1.0 if x < 2.0 else 5.0,
         "derivative": ad.derivative(lambda x: x * x if x < 2.0 else 3.0 * x),
         "max": lambda x: max(x, 2.0) + 0.0,
         "array": lambda x: float(np.sum(x * 2.0)) if x[0] < 2.0 else 7.0}[name]

    def arg(v):
        return np.array([v, 2.0]) if name == "array" else v
    c = ad.compile(F)
    for v in (1.0, NAN, 1.5, NAN, 3.0, 1.0):    # (a nan answers no to x < 2 and to x >= 2)
        same(c, F, arg(v))


def test_a_nan_made_inside_f_fails_a_recorded_comparison():
    def F(x):
        y = x * 1e300 * 1e300 - x * 1e300 * 1e300       # 0.0 at 1e-300, inf − inf = nan at 1
        return 1.0 if y < 1.0 else 2.0
    c = ad.compile(F)
    for v in (1e-300, 1.0, 1e-300, 1.0):
        same(c, F, v)


@pytest.mark.parametrize("convert", [math.floor, int, round, math.trunc, math.ceil])
def test_an_exception_f_catches_inside_a_conversion_is_required_again(convert):
    def F(x):
        try:
            n = convert(x)
        except (OverflowError, ValueError):
            n = 7
        return x + n
    c = ad.compile(F)
    for v in (math.inf, 2.5, NAN, 3.5, -math.inf, 2.5):
        same(c, F, v)


def test_f_computing_at_its_own_mpmath_precision_runs_eagerly():
    def F(x):
        with mpmath.workdps(40):
            return (x + mpmath.mpf("1e-30")) - x
    c = ad.compile(F)
    for v in ("0.125", "0.3"):
        assert c(mpmath.mpf(v)) == F(mpmath.mpf(v)) != 0
    assert "precision of its own" in c.explain()
    g = ad.compile(lambda x: x * x + mpmath.mpf(1) / 3)     # at the caller's: replayed
    same(g, lambda x: x * x + mpmath.mpf(1) / 3, mpmath.mpf(2))
    same(g, lambda x: x * x + mpmath.mpf(1) / 3, mpmath.mpf(3))
    assert g.compiled.counts["traced"] == 1


@pytest.mark.parametrize("kind", [np.float32, np.float16, np.longdouble, np.float64, complex])
def test_signed_zero_constants_of_every_float_type_stay_apart(kind):
    if kind is complex:
        def F(x):
            return ad.atan2(x * 0.0, -1.0) + (x * complex(0.0, 0.0)).imag - \
                (x * complex(0.0, -0.0)).imag
    else:
        def F(x):
            return ad.atan2(x * kind(0.0), -1.0) - ad.atan2(x * kind(-0.0), -1.0)
    c = ad.compile(F)
    for v in (1.0, 2.0, -1.0):
        same(c, F, v)


class Named:
    """Equal by name alone: a trace for one must not answer for another."""

    def __init__(self, name, w):
        self.name, self.w = name, w

    def __eq__(self, other):
        return isinstance(other, Named) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


def test_argument_objects_that_are_equal_but_not_the_same_are_traced_apart():
    def F(x, m):
        return x * m.w
    c = ad.compile(F)
    one = Named("a", 2.0)
    same(c, F, 1.0, one)
    same(c, F, 1.0, Named("a", 3.0))
    same(c, F, 2.0, one)

    def G(x, z):
        return x + math.atan2(z.imag, -1.0)
    g = ad.compile(G)
    for z in (0j, complex(0, -0.0), 0j):
        same(g, G, 1.0, z)


def test_a_dict_keyed_by_a_computed_number_runs_eagerly():
    for F in (lambda x: {x: 1.0}, lambda x: {x * 2.0: x}):
        c = ad.compile(F)
        for v in (2.0, 3.0):
            assert c(v) == F(v)
        assert "dict keyed by a number" in c.explain()


def test_an_unread_numpy_operation_still_runs_so_errstate_sees_it():
    def F(x):
        unused = x * 1e308          # noqa: F841  (overflows for x > 1.8)
        return x + 1.0
    c = ad.compile(F)
    with np.errstate(over="ignore"):
        assert c(np.float64(2.0)) == 3.0
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            F(np.float64(2.0))
        with pytest.raises(FloatingPointError):
            c(np.float64(2.0))
