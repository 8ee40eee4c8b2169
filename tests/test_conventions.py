"""The documented conventions at kinks and domain edges, pinned in both modes and every base type.

The conventions are those of the docstrings of dvlad/rules.py (kinks, domain edges) and
dvlad/base.py (log(0), domain errors, numpy scalars).  Each test runs forward (``derivative``,
``gradient_f``) and reverse (``gradient_r``) mode, for float, mpf (50 digits) and numpy float64
inputs, and checks the value *and* that the result keeps the input's type.  The expected values
here are the exact convention values (0, 1, ±inf, nan); everything else is computed by the base
library (math / mpmath / numpy) at the same point.
"""
import math

import mpmath
import numpy as np
import pytest
from mpmath import mp

import dvlad as ad
from support import close

MPF = type(mpmath.mpf(1))

# kind -> (constructor from a decimal string, result type, relative tolerance)
KINDS = {
    "float": (float, float, 1e-15),
    "mpf": (mpmath.mpf, MPF, mpmath.mpf("1e-45")),
    "float64": (np.float64, np.float64, 1e-15),
}
KIND_NAMES = list(KINDS)
MODES = {"forward": ad.derivative, "reverse": ad.gradient_r}
GRADIENTS = {"forward": ad.gradient_f, "reverse": ad.gradient_r}
INF = math.inf

# The base library of each kind, for the non-convention values.
LIB = {
    "float": {"pow": lambda x, y: x ** y, "log": math.log, "asin": math.asin, "acos": math.acos},
    "mpf": {"pow": lambda x, y: x ** y, "log": mpmath.log, "asin": mpmath.asin,
            "acos": mpmath.acos},
    "float64": {"pow": np.power, "log": np.log, "asin": np.arcsin, "acos": np.arccos},
}


@pytest.fixture(autouse=True)
def _fifty_digits():
    with mp.workdps(50):
        yield


@pytest.fixture(autouse=True)
def _quiet_numpy_edges():
    # numpy warns "divide by zero" at log(0); that edge is a documented value, not an error.
    with np.errstate(divide="ignore"):
        yield


def num(kind, text):
    return KINDS[kind][0](text)


def typed(kind, value):
    """Assert ``value`` has the result type of ``kind``; return it."""
    typ = KINDS[kind][1]
    assert type(value) is typ, f"expected {typ.__name__}, got {type(value).__name__}: {value!r}"
    return value


def is_nan(x):
    return x != x


kinds = pytest.mark.parametrize("kind", KIND_NAMES)
modes = pytest.mark.parametrize("mode", list(MODES))


# ---- sqrt, abs ---------------------------------------------------------------------------------

@kinds
@modes
def test_sqrt_prime_at_zero_is_plus_inf(kind, mode):
    zero = num(kind, "0")
    assert typed(kind, ad.sqrt(zero)) == 0
    assert typed(kind, MODES[mode](ad.sqrt)(zero)) == INF


@kinds
@modes
def test_abs_prime_at_zero_is_zero(kind, mode):
    zero = num(kind, "0")
    assert typed(kind, MODES[mode](ad.abs)(zero)) == 0
    assert typed(kind, MODES[mode](lambda x: abs(x))(zero)) == 0   # the builtin, via __abs__
    # and it is sign(x) on either side, so the convention is the only special case
    assert typed(kind, MODES[mode](ad.abs)(num(kind, "-0.5"))) == -1
    assert typed(kind, MODES[mode](ad.abs)(num(kind, "0.5"))) == 1


# ---- pow ---------------------------------------------------------------------------------------

@kinds
@modes
@pytest.mark.parametrize("int_exponent", [False, True], ids=["same-type-0", "int-0"])
def test_zero_to_the_zero_is_one_and_x_to_the_zero_has_derivative_zero(kind, mode,
                                                                       int_exponent):
    zero = num(kind, "0")
    c = 0 if int_exponent else zero
    assert typed(kind, ad.pow(zero, c)) == 1
    assert typed(kind, zero ** c) == 1
    for x in ("0", "1.5", "-2"):
        assert typed(kind, MODES[mode](lambda t: ad.pow(t, c))(num(kind, x))) == 0
        assert typed(kind, MODES[mode](lambda t: t ** c)(num(kind, x))) == 0
    # the value under differentiation is 1 too
    y, _ = ad.jvp(lambda t: t ** c, zero, num(kind, "1"))
    assert typed(kind, y) == 1
    y, _ = ad.vjp(lambda t: t ** c, zero)
    assert typed(kind, y) == 1


@kinds
@modes
@pytest.mark.parametrize("c,want", [
    ("2", 0), ("3", 0), ("1.5", 0), ("1", 1), ("0.5", INF), ("0.25", INF),
    (2, 0), (1, 1),
], ids=["2", "3", "1.5", "1", "0.5", "0.25", "int-2", "int-1"])
def test_d_dx_x_to_the_c_at_zero(kind, mode, c, want):
    zero = num(kind, "0")
    c = c if isinstance(c, int) else num(kind, c)
    assert typed(kind, MODES[mode](lambda x: ad.pow(x, c))(zero)) == want
    assert typed(kind, MODES[mode](lambda x: x ** c)(zero)) == want


@kinds
@modes
@pytest.mark.parametrize("y", ["2", "0.5", "3"])
def test_d_dy_x_to_the_y_at_x_zero_is_zero(kind, mode, y):
    zero, y = num(kind, "0"), num(kind, y)
    assert typed(kind, ad.pow(zero, y)) == 0
    assert typed(kind, MODES[mode](lambda t: ad.pow(zero, t))(y)) == 0
    assert typed(kind, MODES[mode](lambda t: zero ** t)(y)) == 0


@kinds
@modes
@pytest.mark.parametrize("x,y", [("-2", "2"), ("-2", "3"), ("-0.5", "-1")])
def test_d_dy_x_to_the_y_at_negative_x_is_nan(kind, mode, x, y):
    x, y = num(kind, x), num(kind, y)
    want = LIB[kind]["pow"](x, y)
    assert typed(kind, ad.pow(x, y)) == want        # an integer power is real
    assert is_nan(typed(kind, MODES[mode](lambda t: ad.pow(x, t))(y)))
    assert is_nan(typed(kind, MODES[mode](lambda t: x ** t)(y)))
    # both arguments perturbed: ∂/∂x is the ordinary y·x**(y-1), ∂/∂y is nan
    gx, gy = GRADIENTS[mode](lambda p: p[0] ** p[1])((x, y))
    close(typed(kind, gx), y * LIB[kind]["pow"](x, y - 1), rel=KINDS[kind][2])
    assert is_nan(typed(kind, gy))


@kinds
@modes
@pytest.mark.parametrize("x,y", [("2.5", "1.5"), ("0.3", "-0.7"), ("4", "0.5")])
def test_d_dy_x_to_the_y_at_positive_x_is_r_log_x(kind, mode, x, y):
    x, y = num(kind, x), num(kind, y)
    lib = LIB[kind]
    want = lib["pow"](x, y) * lib["log"](x)
    close(typed(kind, MODES[mode](lambda t: ad.pow(x, t))(y)), want, rel=KINDS[kind][2])
    close(typed(kind, GRADIENTS[mode](lambda p: p[0] ** p[1])((x, y))[1]), want,
          rel=KINDS[kind][2])


# ---- an infinite or nan partial stays with its own argument -----------------------------------

EDGE_SUMS = [
    # (id, f over (p0, p1), point, exact gradient by the conventions)
    ("sqrt(p0)+p1", lambda p: ad.sqrt(p[0]) + p[1], ("0", "1"), (INF, 1)),
    ("log(p0)+2p1", lambda p: ad.log(p[0]) + 2 * p[1], ("0", "1"), (INF, 2)),
    ("asin(p0)-p1", lambda p: ad.asin(p[0]) - p[1], ("1", "0.5"), (INF, -1)),
    ("p1+acos(p0)", lambda p: p[1] + ad.acos(p[0]), ("-1", "0.5"), (-INF, 1)),
]


@kinds
@modes
@pytest.mark.parametrize("name,f,point,want", EDGE_SUMS, ids=[e[0] for e in EDGE_SUMS])
def test_infinite_partial_does_not_spill_into_other_inputs(kind, mode, name, f, point, want):
    # ∂/∂p1 of g(p0) + c·p1 is c whatever g'(p0) is; forward mode must not compute it as
    # g'(p0)·0 = inf·0 = nan.
    point = tuple(num(kind, t) for t in point)
    got = GRADIENTS[mode](f)(point)
    assert typed(kind, got[0]) == want[0] and typed(kind, got[1]) == want[1], got


# ---- log, log1p --------------------------------------------------------------------------------

@kinds
@modes
def test_log_at_zero(kind, mode):
    zero = num(kind, "0")
    assert typed(kind, ad.log(zero)) == -INF
    assert typed(kind, MODES[mode](ad.log)(zero)) == INF
    y, _ = ad.jvp(ad.log, zero, num(kind, "1"))
    assert typed(kind, y) == -INF


@kinds
@modes
def test_log1p_at_minus_one(kind, mode):
    m1 = num(kind, "-1")
    assert typed(kind, ad.log1p(m1)) == -INF
    assert typed(kind, MODES[mode](ad.log1p)(m1)) == INF
    y, _ = ad.vjp(ad.log1p, m1)
    assert typed(kind, y) == -INF


# ---- asin, acos at ±1 --------------------------------------------------------------------------

@kinds
@modes
@pytest.mark.parametrize("x", ["1", "-1"])
def test_asin_prime_at_plus_minus_one_is_plus_inf(kind, mode, x):
    x = num(kind, x)
    assert typed(kind, ad.asin(x)) == LIB[kind]["asin"](x)
    assert typed(kind, MODES[mode](ad.asin)(x)) == INF


@kinds
@modes
@pytest.mark.parametrize("x", ["1", "-1"])
def test_acos_prime_at_plus_minus_one_is_minus_inf(kind, mode, x):
    x = num(kind, x)
    assert typed(kind, ad.acos(x)) == LIB[kind]["acos"](x)
    assert typed(kind, MODES[mode](ad.acos)(x)) == -INF


# ---- atan2, hypot at the origin ----------------------------------------------------------------

@kinds
@modes
@pytest.mark.parametrize("op", [ad.atan2, ad.hypot], ids=["atan2", "hypot"])
def test_at_origin_value_zero_and_partials_zero(kind, mode, op):
    zero = num(kind, "0")
    assert typed(kind, op(zero, zero)) == 0
    gx, gy = GRADIENTS[mode](lambda p: op(p[0], p[1]))((zero, zero))
    assert typed(kind, gx) == 0 and typed(kind, gy) == 0
    # one argument at a time, the other a constant
    assert typed(kind, MODES[mode](lambda t: op(t, zero))(zero)) == 0
    assert typed(kind, MODES[mode](lambda t: op(zero, t))(zero)) == 0


# ---- outside the real domain -------------------------------------------------------------------

DOMAIN_ERRORS = [
    ("log(-1)", lambda x: ad.log(x), "-1"),
    ("log(-0.5)", lambda x: ad.log(x), "-0.5"),
    ("log1p(-2)", lambda x: ad.log1p(x), "-2"),
    ("sqrt(-1)", lambda x: ad.sqrt(x), "-1"),
    ("asin(2)", lambda x: ad.asin(x), "2"),
    ("asin(-2)", lambda x: ad.asin(x), "-2"),
    ("acos(2)", lambda x: ad.acos(x), "2"),
    ("pow(-8, 1/3) both vary", lambda x: ad.pow(x, x / x / 3), "-8"),
    ("pow(-8, 1/3) base varies", lambda x: ad.pow(x, 1 / 3), "-8"),
    ("pow(-8, y) exponent varies", lambda y: ad.pow(y - y - 8, y), "0.3333"),
]
DOMAIN_IDS = [d[0] for d in DOMAIN_ERRORS]


@pytest.mark.parametrize("kind", ["float", "mpf"])
@pytest.mark.parametrize("name,f,x", DOMAIN_ERRORS, ids=DOMAIN_IDS)
def test_domain_error_raises_value_error_for_float_and_mpf(kind, name, f, x):
    x = num(kind, x)
    with pytest.raises(ValueError):
        f(x)
    for op in (ad.derivative, ad.gradient_r, ad.gradient_f):
        with pytest.raises(ValueError):
            op(f)(x)


@pytest.mark.parametrize("kind", ["float", "mpf"])
def test_negative_base_fractional_power_raises_value_error(kind):
    x, y = num(kind, "-8"), num(kind, "1") / 3
    with pytest.raises(ValueError):
        ad.pow(x, y)
    with pytest.raises(ValueError):
        ad.gradient_r(lambda p: p[0] ** p[1])((x, y))
    with pytest.raises(ValueError):
        ad.gradient_f(lambda p: p[0] ** p[1])((x, y))


def test_numpy_float64_is_a_float_subclass_but_follows_numpy():
    # numpy float64 passes isinstance(x, float), yet dvlad gives it numpy's semantics (base.py):
    # outside the domain, nan with numpy's RuntimeWarning instead of math's ValueError.
    x = np.float64(-1.0)
    assert isinstance(x, float)
    with pytest.warns(RuntimeWarning):
        r = ad.log(x)
    assert type(r) is np.float64 and is_nan(r)


@pytest.mark.parametrize("name,f,x", DOMAIN_ERRORS, ids=DOMAIN_IDS)
def test_domain_edge_numpy_float64_gives_nan_with_warning(name, f, x):
    x = np.float64(x)
    with pytest.warns(RuntimeWarning):
        r = f(x)
    assert type(r) is np.float64 and is_nan(r)
    with pytest.warns(RuntimeWarning):
        y, _ = ad.jvp(f, x, np.float64(1))
    assert type(y) is np.float64 and is_nan(y)
    with pytest.warns(RuntimeWarning):
        y, _ = ad.vjp(f, x)
    assert type(y) is np.float64 and is_nan(y)


# ---- max / min at a tie ------------------------------------------------------------------------

@kinds
@modes
@pytest.mark.parametrize("pick", [max, min], ids=["max", "min"])
def test_max_min_tie_follows_the_first_argument(kind, mode, pick):
    # At x = 1, x·x and 3x − 2 are both 1, with slopes 2 and 3: Python's max and min return the
    # first of equal arguments, so the derivative is the first argument's.
    d = MODES[mode]
    one = num(kind, "1")

    def a(x):
        return x * x

    def b(x):
        return 3 * x - 2

    da, db = d(a)(one), d(b)(one)
    assert a(one) == b(one) and da != db
    assert typed(kind, d(lambda x: pick(a(x), b(x)))(one)) == da
    assert typed(kind, d(lambda x: pick(b(x), a(x)))(one)) == db
    # against a constant: the variable first gives slope 1, the constant first gives 0
    assert typed(kind, d(lambda x: pick(x, one))(one)) == 1
    assert typed(kind, d(lambda x: pick(one, x))(one)) == 0


# ---- ad.maximum / ad.minimum at a tie: the derivative splits evenly ------------------------

@pytest.mark.parametrize("op", [ad.maximum, ad.minimum], ids=["maximum", "minimum"])
def test_max_min_tie_splits_the_derivative_evenly(op):
    """At x == y each argument gets ½: maximum(x, x) then has derivative 1, like x itself."""
    for grad in (ad.gradient_f, ad.gradient_r):
        assert grad(lambda p: op(p[0], p[1]))((2.0, 2.0)) == (0.5, 0.5)
        assert grad(lambda p: op(p[0], p[1]))((3.0, 2.0)) == ((1.0, 0.0) if op is ad.maximum
                                                               else (0.0, 1.0))
    assert ad.derivative(lambda x: op(x, x))(2.0) == 1.0
    assert ad.gradient_r(lambda x: op(x, x))(2.0) == 1.0
