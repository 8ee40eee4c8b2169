"""CASES.md section 4, "Loud, never silently wrong": each error path raises its specific type, and
the protocols that must keep working (comparisons, int/round/floor, numpy and mpmath scalars) do."""
import functools
import math

import mpmath
import numpy as np
import pytest

import dvlad
from dvlad import Bundle, TapeCell
from support import OPS  # noqa: E402


AD_TYPE = {"F": Bundle, "R": TapeCell}
MODES = ["F", "R"]


def contains_ad(value):
    """True if a Bundle or a TapeCell is anywhere inside value (containers are walked)."""
    if isinstance(value, (Bundle, TapeCell)):
        return True
    if isinstance(value, dict):
        return any(contains_ad(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_ad(v) for v in value)
    return False


def test_error_types_are_type_errors():
    assert issubclass(dvlad.PerturbedConversionError, TypeError)
    assert issubclass(dvlad.NotDifferentiableError, TypeError)
    assert issubclass(dvlad.PerturbedConversionError, dvlad.DvladError)
    assert issubclass(dvlad.NotDifferentiableError, dvlad.DvladError)


# ---- float(), complex(), math.* on a perturbed number --------------------------------------

CONVERSIONS = {
    "float": float,
    "complex": complex,
    "math.sin": math.sin,
    "math.exp": math.exp,
    "math.sqrt": math.sqrt,
    "math.log": math.log,
}


@pytest.mark.parametrize("name", list(CONVERSIONS))
@pytest.mark.parametrize("m", MODES)
def test_conversion_of_perturbed_number_raises(m, name):
    convert = CONVERSIONS[name]
    seen = []

    def f(x):
        seen.append(type(x))
        return convert(x) * x
    with pytest.raises(dvlad.PerturbedConversionError) as info:
        OPS[m](f)(1.5)
    assert seen == [AD_TYPE[m]]
    message = str(info.value)
    assert "dvlad.primal" in message
    assert "dvlad.sin" in message


@pytest.mark.parametrize("m", MODES)
def test_conversion_raises_under_nesting(m):
    """The outer perturbation is live inside the inner call: float() of it must still raise."""
    with pytest.raises(dvlad.PerturbedConversionError, match="dvlad.primal"):
        OPS[m](lambda x: dvlad.derivative(lambda y: float(x) * y)(2.0))(1.5)
    with pytest.raises(dvlad.PerturbedConversionError, match="dvlad.primal"):
        OPS[m](lambda x: dvlad.gradient_r(lambda y: math.sin(x) * y)(2.0))(1.5)


@pytest.mark.parametrize("m", MODES)
def test_primal_is_the_way_out(m):
    """dvlad.primal strips the perturbation on purpose: the derivative of primal(x)·x is primal(x)."""
    def f(x):
        p = dvlad.primal(x)
        assert type(p) is float
        return math.sin(p) + p * x
    assert OPS[m](f)(3.0) == 3.0


# ---- unhashable -----------------------------------------------------------------------------

@pytest.mark.parametrize("m", MODES)
def test_hash_raises_type_error(m):
    with pytest.raises(TypeError, match="unhashable"):
        OPS[m](lambda x: hash(x) * x)(2.0)


@pytest.mark.parametrize("m", MODES)
def test_set_raises_type_error(m):
    with pytest.raises(TypeError, match="unhashable"):
        OPS[m](lambda x: len({x, x * 1.0}) * x)(2.0)
    with pytest.raises(TypeError, match="unhashable"):
        OPS[m](lambda x: {x: 1}[x] * x)(2.0)


@pytest.mark.parametrize("m", MODES)
def test_lru_cache_raises_type_error(m):
    @functools.lru_cache(maxsize=None)
    def square(x):
        return x * x
    with pytest.raises(TypeError, match="unhashable"):
        OPS[m](square)(2.0)
    # the two-tangents merge it would cause: sibling calls share one cache entry
    with pytest.raises(TypeError, match="unhashable"):
        dvlad.derivative(lambda x: square(x) + dvlad.derivative(square)(x))(2.0)
    assert square.cache_info().currsize == 0


# ---- comparisons and bool look at primals ----------------------------------------------------

def _piecewise(x):
    if x < 1:
        return x * x * x        # 3x², 6x
    elif x == 1:
        return x                # 1, 0
    else:
        return 5 * x - 4        # 5, 0


@pytest.mark.parametrize("mm", ["FF", "FR", "RF", "RR"])
def test_if_takes_the_branch_of_the_primal(mm):
    D1 = OPS[mm[1]]
    D2 = lambda f: OPS[mm[0]](OPS[mm[1]](f))   # noqa: E731
    assert D1(_piecewise)(0.5) == 0.75
    assert D1(_piecewise)(2.0) == 5.0
    assert D1(_piecewise)(1.0) == 1.0
    assert D2(_piecewise)(0.5) == 3.0
    assert D2(_piecewise)(2.0) == 0.0


@pytest.mark.parametrize("m", MODES)
def test_comparisons_and_bool_use_primals(m):
    record = {}

    def f(x):
        y = x * 0.0           # primal 0, still perturbed
        record.update(lt=x < 3, le=x <= 2, gt=x > 1, ge=x >= 2, eq=x == 2, ne=x != 2,
                      rlt=1 < x, req=2.0 == x, both=(x * 1.0 == x), zero=bool(y),
                      nonzero=bool(x), not_=not y, mx=max(x, 1.5) is x, mn=min(x, 1.5) == 1.5)
        return x * x
    assert OPS[m](f)(2.0) == 4.0
    assert record == dict(lt=True, le=True, gt=True, ge=True, eq=True, ne=False, rlt=True,
                          req=True, both=True, zero=False, nonzero=True, not_=True, mx=True,
                          mn=True)
    assert all(type(v) is bool for v in record.values())


@pytest.mark.parametrize("m", MODES)
def test_while_loop_on_a_perturbed_number(m):
    """Halve until ≤ 1: at 5 three halvings, f = x/8 and f' = 1/8; at 0.5 none, f' = 1."""
    def f(x):
        while x > 1:
            x = x / 2
        return x
    assert OPS[m](f)(5.0) == 0.125
    assert OPS[m](f)(0.5) == 1.0


# ---- piecewise-constant conversions: plain numbers, derivative 0 ------------------------------

@pytest.mark.parametrize("m", MODES)
def test_int_round_floor_ceil_return_plain_numbers(m):
    kinds = {}

    def f(x):
        parts = {"int": int(x), "round": round(x), "round1": round(x, 1),
                 "floor": math.floor(x), "ceil": math.ceil(x), "trunc": math.trunc(x)}
        kinds.update({k: (type(v), v) for k, v in parts.items()})
        return sum(parts.values()) + 0 * x
    assert OPS[m](f)(2.75) == 0.0
    assert kinds == {"int": (int, 2), "round": (int, 3), "round1": (float, 2.8),
                     "floor": (int, 2), "ceil": (int, 3), "trunc": (int, 2)}


@pytest.mark.parametrize("m", MODES)
def test_piecewise_constant_times_x(m):
    """d/dx [x·floor(x)] = floor(x) away from integers (the floor contributes 0)."""
    assert OPS[m](lambda x: x * math.floor(x))(2.5) == 2.0
    assert OPS[m](lambda x: x * math.ceil(x))(2.5) == 3.0
    assert OPS[m](lambda x: x * int(x))(-2.5) == -2.0
    assert OPS[m](lambda x: x * round(x))(2.4) == 2.0
    assert OPS[m](lambda x: x * dvlad.floor(x))(2.5) == 2.0
    assert OPS[m](lambda x: int(x))(2.5) == 0
    assert OPS[m](lambda x: dvlad.round(x))(2.5) == 0


# ---- gradient_r of something that is not a real-valued function of reals ---------------------

BAD_VALUES = [
    ((1.0, 2.0), "tuple"),
    ([1.0], "list"),
    ({"a": 1.0}, "dict"),
    ("abc", "str"),
    (None, "None"),
    (math.sin, "function"),
    (lambda y: y, "function"),
    (1j, "complex"),
]


@pytest.mark.parametrize("value,word", BAD_VALUES, ids=[w + str(i) for i, (_, w) in
                                                          enumerate(BAD_VALUES)])
def test_gradient_r_of_non_real_value_names_it(value, word):
    with pytest.raises(dvlad.NotDifferentiableError) as info:
        dvlad.gradient_r(lambda x: value)(2.0)
    assert isinstance(info.value, TypeError)
    assert word in str(info.value)


def test_gradient_r_of_perturbed_tuple_names_it():
    """Even when the tuple's entries are tape cells, the value is not one real number."""
    with pytest.raises(dvlad.NotDifferentiableError, match="tuple"):
        dvlad.gradient_r(lambda x: (x, x * x))(2.0)
    with pytest.raises(dvlad.NotDifferentiableError, match="list"):
        dvlad.gradient_r(lambda x: [x * x])(2.0)


COMPLEX_EXPRS = {
    "x*1j": lambda x: x * 1j,
    "1j*x": lambda x: 1j * x,
    "x+1j": lambda x: x + 1j,
    "1j-x": lambda x: 1j - x,
    "x/1j": lambda x: x / 1j,
    "x**1j": lambda x: x ** 1j,
    "1j**x": lambda x: 1j ** x,
}


@pytest.mark.parametrize("expr", list(COMPLEX_EXPRS))
@pytest.mark.parametrize("m", MODES)
def test_complex_values_are_refused_naming_complex(m, expr):
    """A complex-valued function is not differentiable here: a TypeError that says 'complex',
    whether the arithmetic refuses the complex operand or the operator refuses the value --
    never a silent answer such as 1j or 1.0."""
    with pytest.raises(TypeError, match="complex"):
        OPS[m](COMPLEX_EXPRS[expr])(2.0)


@pytest.mark.parametrize("bad,word", [((1.0, math.sin), "function"),
                                      ([1.0, lambda y: y], "function"),
                                      ({"a": 1.0, "f": print}, "function"),
                                      ((1.0, "s"), "str"),
                                      ((1.0, None), "None"),
                                      ((1.0, 2j), "complex")])
def test_gradient_r_of_input_containing_non_number(bad, word):
    calls = []
    with pytest.raises(dvlad.NotDifferentiableError) as info:
        dvlad.gradient_r(lambda p: calls.append(p) or p[0])(bad)
    assert isinstance(info.value, TypeError)
    assert word in str(info.value)
    assert calls == []                   # refused before f runs


def test_derivative_of_function_input_names_it():
    with pytest.raises(dvlad.NotDifferentiableError, match="function"):
        dvlad.derivative(lambda x: x)(math.sin)


# ---- escaped perturbations are constants afterwards -------------------------------------------

@pytest.mark.parametrize("m_leak", MODES)
@pytest.mark.parametrize("m_use", MODES)
def test_escaped_value_is_a_constant_in_a_sibling_call(m_leak, m_use):
    """autograd's bug: a value leaked from one call is 'live' again in a sibling call.

    leak = x·x from a finished call at x = 3 is the constant 9: d/dy (y·9) = 9 at y = 2.
    """
    leak = []
    assert OPS[m_leak](lambda x: (leak.append(x * x), x * x)[1])(3.0) == 6.0
    assert isinstance(leak[0], AD_TYPE[m_leak])           # it did escape, as an AD number
    use = OPS[m_use]
    for got, expected in [(use(lambda y: y * leak[0])(2.0), 9.0),
                          (use(lambda y: leak[0] * y + leak[0])(2.0), 9.0),
                          (use(lambda y: dvlad.sin(leak[0]) + y * y)(2.0), 4.0),
                          (use(lambda y: leak[0])(2.0), 0.0),
                          (use(lambda y: y * y)(leak[0]), 18.0)]:
        assert not contains_ad(got)
        assert got == expected


@pytest.mark.parametrize("m_leak", MODES)
def test_escaped_value_inside_structured_results(m_leak):
    leak = []
    OPS[m_leak](lambda x: (leak.append(x * x), x * x)[1])(3.0)
    c = leak[0]
    results = [
        dvlad.gradient_r(lambda p: p[0] * c + p[1])([2.0, 1.0]),
        dvlad.gradient_f(lambda p: p[0] * c + p[1])([2.0, 1.0]),
        dvlad.jvp(lambda y: (y * c, c), 2.0, 1.0),
        dvlad.vjp(lambda y: (y * c, c), 2.0)[1]((1.0, 1.0)),
        dvlad.jacobian_r(lambda y: [y * c, c])(1.0),
        dvlad.jacobian_f(lambda y: [y * c, c])(1.0),
        dvlad.hessian(lambda p: p[0] * p[1] * c)((1.0, 2.0)),
        dvlad.derivative(lambda y: {"a": c, "b": [y * c]})(2.0),
        dvlad.gradient_r(lambda p: p[0] * p[1])([c, 2.0]),
    ]
    assert not contains_ad(results)
    assert results == [[9.0, 1.0], [9.0, 1.0], ((18.0, 9.0), (9.0, 0.0)), 9.0,
                       [9.0, 0.0], [9.0, 0.0], [[0.0, 9.0], [9.0, 0.0]],
                       {"a": 0.0, "b": [9.0]}, [2.0, 9.0]]
    # and a dead perturbation converts without complaint: it is a constant now
    assert float(c) == 9.0
    assert dvlad.primal(c) == 9.0


@pytest.mark.parametrize("mm", ["FF", "FR", "RF", "RR"])
def test_escaped_from_inner_call_while_outer_is_live(mm):
    """The inner call's value escapes but still carries the live outer perturbation.

    inner(y ↦ y·x)(1) leaks y·x at y = 1, i.e. x (outer-perturbed); outer(x ↦ leak·x)(3) = 6.
    """
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    leak = []

    def f(x):
        inner(lambda y: (leak.append(y * x), y * x)[1])(1.0)
        return leak[-1] * x
    got = outer(f)(3.0)
    assert not contains_ad(got)
    assert got == 6.0


# ---- numpy scalars ----------------------------------------------------------------------------

@pytest.mark.parametrize("m", MODES)
def test_numpy_float64_times_ad_number(m):
    inside = []

    def f(x):
        y = np.float64(2.0) * x
        inside.append(type(y))
        return y * x                      # 2x²: 4x
    got = OPS[m](f)(3.0)
    assert inside == [AD_TYPE[m]]        # numpy handed the product back to dvlad
    assert not isinstance(got, np.ndarray)
    assert got == 12.0


@pytest.mark.parametrize("m", MODES)
def test_ad_number_times_numpy_float32(m):
    inside = []

    def f(x):
        y = x * np.float32(2.0)
        inside.append(type(y))
        return y
    got = OPS[m](f)(np.float32(3.0))
    assert inside == [AD_TYPE[m]]
    assert not isinstance(got, np.ndarray)
    assert got == 2.0
    assert type(got) is np.float32       # a float32 stays a float32


@pytest.mark.parametrize("m", MODES)
def test_numpy_scalars_on_the_left_of_every_operator(m):
    two = np.float64(2.0)

    def f(x):
        parts = [two + x, two - x, two * x, two / x, two ** x]
        assert all(isinstance(p, (Bundle, TapeCell)) for p in parts)
        return parts[0] + parts[1] + parts[2] + parts[3] + parts[4]
    # d/dx [2 + x + 2 − x + 2x + 2/x + 2^x] at x = 2: 2 − 2/4 + 4·ln 2
    got = OPS[m](f)(2.0)
    assert not isinstance(got, np.ndarray)
    assert got == pytest.approx(2.0 - 0.5 + 4 * math.log(2.0), rel=1e-15)
    # and comparisons with a numpy scalar on the left look at the primal
    assert OPS[m](lambda x: x * x if np.float64(1.0) < x else -x)(3.0) == 6.0


@pytest.mark.parametrize("m", MODES)
def test_numpy_functions_on_a_perturbed_number_are_right_or_loud(m):
    """np.sin has a rule (dvlad.sin); a numpy function without one raises, naming it;
    np.float64(x) is a float() conversion and refuses."""
    assert OPS[m](lambda x: np.sin(x))(2.0) == math.cos(2.0)
    assert OPS[m](lambda x: np.exp(x) * x)(2.0) == math.exp(2.0) * 3.0
    with pytest.raises(dvlad.NotDifferentiableError, match="numpy.fft.fft"):
        OPS[m](lambda x: np.fft.fft(np.stack([x, x])).real[0])(2.0)
    assert OPS[m](lambda x: np.ldexp(x, 2))(2.0) == 4.0            # a rule since issue #17
    with pytest.raises(dvlad.NotDifferentiableError, match="numpy.fft.rfft"):
        OPS[m](lambda x: np.fft.rfft(x * np.ones(2)).real[0])(2.0)
    assert OPS[m](lambda x: np.cbrt(x))(8.0) == 1 / 12            # a rule since issue #17
    # numpy tries float(x) first (our named error), then, because AD numbers support indexing
    # (array primals), reports its own "setting an array element with a sequence" on top: the
    # named error is that ValueError's cause, so its advice shows in the traceback.
    for convert in (np.float64, np.float32):
        with pytest.raises((ValueError, dvlad.PerturbedConversionError)) as info:
            OPS[m](lambda x: convert(x) * x)(2.0)
        err = info.value
        named = err if isinstance(err, dvlad.PerturbedConversionError) else err.__cause__
        assert isinstance(named, dvlad.PerturbedConversionError)
        assert "dvlad.primal" in str(named)


@pytest.mark.parametrize("m", MODES)
def test_mpmath_functions_on_a_perturbed_number_are_loud(m):
    """mpmath.sin does not accept AD numbers (users call dvlad.sin): a TypeError, not a value."""
    with pytest.raises(TypeError):
        OPS[m](lambda x: mpmath.sin(x))(mpmath.mpf(2))
    with pytest.raises(TypeError):
        OPS[m](lambda x: mpmath.mpf(x) * x)(2.0)


@pytest.mark.parametrize("m", MODES)
def test_numpy_float64_input(m):
    got = OPS[m](lambda x: dvlad.sin(x) * x)(np.float64(0.5))
    assert not isinstance(got, np.ndarray)
    assert type(got) is np.float64
    assert got == pytest.approx(math.cos(0.5) * 0.5 + math.sin(0.5), rel=1e-15)


# ---- mpmath ---------------------------------------------------------------------------------

MPF = type(mpmath.mpf(1))


def _mp_f(x):
    return dvlad.exp(dvlad.sin(x)) * x + dvlad.sqrt(x) / (mpmath.mpf(3) + x * x)


def _mp_oracle(x):
    return mpmath.exp(mpmath.sin(x)) * x + mpmath.sqrt(x) / (3 + x * x)


@pytest.mark.parametrize("m", MODES)
def test_mpmath_mpf_in_mpf_out(m):
    with mpmath.workdps(50):
        x = mpmath.mpf("0.7")
        got = OPS[m](_mp_f)(x)
        assert type(got) is MPF
        assert abs(got - mpmath.diff(_mp_oracle, x)) < mpmath.mpf("1e-45")
        grad = dvlad.gradient_r(lambda p: p[0] * dvlad.cos(p[1]))((x, mpmath.mpf(2)))
        assert all(type(g) is MPF for g in grad)
        assert abs(grad[0] - mpmath.cos(2)) < mpmath.mpf("1e-45")
        assert abs(grad[1] + x * mpmath.sin(2)) < mpmath.mpf("1e-45")


@pytest.mark.parametrize("mm", ["FF", "FR", "RF", "RR"])
def test_mpmath_second_derivative_to_working_precision(mm):
    with mpmath.workdps(50):
        x = mpmath.mpf("0.7")
        got = OPS[mm[0]](OPS[mm[1]](_mp_f))(x)
        assert type(got) is MPF
        assert abs(got - mpmath.diff(_mp_oracle, x, 2)) < mpmath.mpf("1e-45")


@pytest.mark.parametrize("m", MODES)
def test_mpmath_constant_on_the_left(m):
    with mpmath.workdps(50):
        x = mpmath.mpf(2)
        got = OPS[m](lambda y: mpmath.mpf(3) * y + mpmath.mpf(1) / y)(x)
        assert type(got) is MPF
        assert got == mpmath.mpf(3) - mpmath.mpf(1) / 4


@pytest.mark.parametrize("call", [
    lambda: dvlad.hvp(lambda p: p[0] * p[1] * p[2], (1.0, 2.0, 3.0), (1.0, 1.0), mode="rr"),
    lambda: dvlad.jvp(lambda x: np.sum(x ** 3), np.ones(3), np.array([2.0])),
    lambda: dvlad.hvp(lambda x: np.sum(x ** 3), np.ones(3), 1.0),
    lambda: dvlad.vjp(lambda x: x * 2, np.ones(3))[1](np.ones((2, 3))),
], ids=["hvp-rr-short", "jvp-shape", "hvp-scalar-direction", "pullback-shape"])
def test_directions_and_cotangents_must_match_the_point(call):
    """numpy would broadcast a wrong shape into a wrong answer: dvlad refuses instead."""
    with pytest.raises(ValueError, match="same"):
        call()


def test_a_boolean_function_value_is_refused():
    with pytest.raises(dvlad.NotDifferentiableError, match="bool"):
        dvlad.gradient_r(lambda p: p > 0)(1.0)
