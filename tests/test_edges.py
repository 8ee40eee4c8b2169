"""Edges that gave a wrong number or a crash (issue #16), each now the right value or a named
DvladError: dicts paired by key, integer dtypes, numpy's rounding functions, formatting, argument
ranges, tanh′ far from 0.  Values are exact or from mpmath at 50 digits."""
import math

import mpmath
import numpy as np
import pytest

import dvlad as ad
from dvlad import ArgumentError, DvladError, StructureMismatchError
from support import close, nest

# ---- dicts are paired by key, never by insertion order -------------------------------------------

POINT = {"a": 1.0, "b": 2.0}
SHUFFLED = {"b": 10.0, "a": 1.0}          # a = 1, b = 10, written in the other order


def lin(p):
    return 2 * p["a"] + 3 * p["b"]


def cubic(p):
    return p["a"] ** 2 * p["b"]           # H = [[2b, 2a], [2a, 0]] = [[4, 2], [2, 0]] at (1, 2)


def test_jvp_pairs_a_dict_direction_by_key():
    assert ad.jvp(lin, POINT, SHUFFLED) == (8.0, 32.0)          # 2·1 + 3·10, not 2·10 + 3·1
    assert ad.directional_derivative(lin, POINT, SHUFFLED) == 32.0


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
def test_hvp_pairs_a_dict_direction_by_key(mode):
    assert ad.hvp(cubic, POINT, SHUFFLED, mode=mode) == {"a": 24.0, "b": 2.0}   # H·(1, 10)


def test_taylor_pairs_a_dict_direction_by_key():
    assert ad.taylor(lin, POINT, 2, SHUFFLED) == [8.0, 32.0, 0.0]
    # (1 + t)²(2 + 10t) = 2 + 14t + 22t² + 10t³: derivatives 2, 14, 44 (by position: 2, 5, 8)
    assert ad.directional_derivatives(cubic, POINT, SHUFFLED, 2) == [2.0, 14.0, 44.0]


def test_vjp_pairs_a_dict_cotangent_by_key():
    y, back = ad.vjp(lambda x: {"u": 2 * x, "v": 3 * x}, 1.0)
    assert y == {"u": 2.0, "v": 3.0}
    assert back({"v": 1.0, "u": 0.0}) == 3.0
    assert back({"v": 0.0, "u": 1.0}) == 2.0


def test_vector_primitive_results_are_paired_by_key():
    """A user's jvp and vjp may build their dicts in any order."""
    f = ad.vector_primitive(
        lambda p: {"s": p["a"] + p["b"], "d": p["a"] - p["b"]},
        lambda p, t: {"d": t["a"] - t["b"], "s": t["a"] + t["b"]},
        lambda p, s: {"b": s["s"] - s["d"], "a": s["s"] + s["d"]})
    assert ad.jvp(f, POINT, SHUFFLED)[1] == {"s": 11.0, "d": -9.0}
    assert ad.jacobian_r(lambda p: f(p)["d"])(POINT) == {"a": 1.0, "b": -1.0}
    assert ad.gradient_r(lambda p: f(p)["d"] * 2 + f(p)["s"])(POINT) == {"a": 3.0, "b": -1.0}


@pytest.mark.parametrize("call, named", [
    (lambda: ad.jvp(lin, POINT, {"a": 1.0}), "missing ['b']"),
    (lambda: ad.jvp(lin, POINT, {"a": 1.0, "b": 1.0, "c": 1.0}), "extra ['c']"),
    (lambda: ad.hvp(cubic, POINT, {"a": 1.0, "c": 1.0}), "missing ['b'], extra ['c']"),
    (lambda: ad.taylor(lin, POINT, 2, {"b": 1.0}), "missing ['a']"),
    (lambda: ad.vjp(lambda x: {"u": x}, 1.0)[1]({"w": 1.0}), "missing ['u']"),
], ids=["jvp-missing", "jvp-extra", "hvp-both", "taylor-missing", "pullback-missing"])
def test_a_missing_or_extra_key_is_named(call, named):
    with pytest.raises(StructureMismatchError, match=re_escape(named)):
        call()


def re_escape(text):
    import re
    return re.escape(text)


def test_structure_mismatch_is_a_named_value_error():
    assert issubclass(StructureMismatchError, DvladError)
    assert issubclass(StructureMismatchError, ValueError)
    with pytest.raises(StructureMismatchError, match="hvp's direction"):    # what was called
        ad.hvp(lambda p: p[0] * p[1], (1.0, 2.0), (1.0,))


# ---- integer and bool inputs are differentiated as real numbers ---------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64, np.bool_])
def test_integer_arrays_give_float_derivatives(dtype):
    x = np.array([1, 0, 1], dtype=dtype) if dtype is np.bool_ else np.array([1, 2, 3], dtype=dtype)
    want = 2.0 * x.astype(np.float64)
    for grad in (ad.gradient_r, ad.gradient_f):
        g = grad(lambda v: np.sum(v * v))(x)
        assert g.dtype == np.float64 and g.tolist() == want.tolist()
    value, slope = ad.jvp(lambda v: v * v, x, np.ones(3, dtype=dtype))
    assert slope.dtype == np.float64 and slope.tolist() == want.tolist()


def test_unsigned_arithmetic_does_not_wrap():
    """x·x at 200 is 40 000 (uint8 would wrap to 64); its derivative is 400."""
    x = np.array([200], dtype=np.uint8)
    assert ad.gradient_r(lambda v: np.sum(v * v))(x).tolist() == [400.0]


def test_numpy_integer_scalars_and_python_ints():
    got = ad.derivative(lambda x: x * x)(np.int64(3))
    assert type(got) is np.float64 and got == 6.0
    assert ad.derivative(lambda x: x * x)(3) == 6 and type(ad.derivative(lambda x: x * x)(3)) is int


# ---- numpy's rounding functions of a perturbed number: numpy's values, derivative 0 ----------------

@pytest.mark.parametrize("fn, x, want", [
    (np.ceil, -0.3, -0.0), (np.floor, 0.3, 0.0), (np.trunc, -0.7, -0.0), (np.rint, 2.5, 2.0),
    (np.floor, -2.5, -3.0), (np.ceil, math.inf, math.inf), (np.floor, -math.inf, -math.inf),
])
@pytest.mark.parametrize("op", [ad.derivative, ad.gradient_r])
def test_rounding_keeps_numpy_values(fn, x, want, op):
    seen = []

    def f(t):
        r = fn(t * 1.0)
        seen.append(r)
        return r + t

    assert op(f)(x) == 1.0                              # the rounding contributes 0
    assert type(seen[0]) is float and seen[0] == want
    assert math.copysign(1.0, seen[0]) == math.copysign(1.0, want)       # −0.0 kept


def test_rounding_of_nan_is_nan():
    seen = []
    ad.derivative(lambda t: seen.append(np.floor(t * math.nan)) or t)(1.0)
    assert type(seen[0]) is float and math.isnan(seen[0])


# ---- formatting, argument ranges ------------------------------------------------------------------

def test_format_shows_the_primal():
    shown = []
    ad.derivative(lambda x: shown.append(f"{x:.3f} {x:>8.2e}") or x)(1.0 / 3.0)
    ad.gradient_r(lambda x: shown.append(f"{x:.3f}") or x)(2.0)
    assert shown == ["0.333 3.33e-01", "2.000"]


@pytest.mark.parametrize("call", [
    lambda: ad.fixed_point(lambda y: 0.5 * y + 1.0, 0.0, max_iter=0),
    lambda: ad.fixed_point(lambda y: 0.5 * y + 1.0, 0.0, max_iter=-3),
    lambda: ad.fixed_point(lambda y: 0.5 * y + 1.0, 0.0, max_iter=2.5),
    lambda: ad.root(lambda y: y * y - 2.0, 1.0, max_iter=0),
], ids=["zero", "negative", "float", "root"])
def test_max_iter_must_be_a_positive_whole_number(call):
    with pytest.raises(ArgumentError, match="max_iter"):
        call()


def test_fixed_point_with_one_iteration_allowed_still_works_or_says_why():
    assert ad.fixed_point(lambda y: 2.0, 0.0, max_iter=2) == 2.0
    with pytest.raises(ad.FixedPointError):
        ad.fixed_point(lambda y: 0.5 * y + 1.0, 0.0, max_iter=1)


def test_hvp_mode_is_checked():
    with pytest.raises(ArgumentError, match="mode"):
        ad.hvp(lambda p: p[0] * p[1], (1.0, 2.0), (1.0, 0.0), mode="xy")


# ---- tanh′ where tanh rounds to ±1 ----------------------------------------------------------------

@pytest.mark.parametrize("x", [20.0, -20.0, 25.0, 0.8])
def test_tanh_derivatives_far_from_zero(x):
    mpmath.mp.dps = 50
    d1 = mpmath.diff(mpmath.tanh, mpmath.mpf(x), 1)
    d2 = mpmath.diff(mpmath.tanh, mpmath.mpf(x), 2)
    close(ad.derivative(ad.tanh)(x), d1, rel=1e-14)
    close(ad.gradient_r(ad.tanh)(x), d1, rel=1e-14)
    close(ad.derivative(ad.gradient_r(ad.tanh))(x), d2, rel=1e-13)
    ds = ad.derivatives(ad.tanh, 2)(x)
    close(ds[1], d1, rel=1e-14)
    close(ds[2], d2, rel=1e-13)
    g = ad.gradient_r(lambda v: np.sum(np.tanh(v)))(np.array([x, x]))
    close(g, np.array([float(d1)] * 2), rel=1e-14)


def _tanh_truth(x, k):
    mpmath.mp.dps = 50
    return mpmath.diff(mpmath.tanh, mpmath.mpf(x), k)


@pytest.mark.parametrize("x", [0.0, 0.3, -0.49, 0.5, 0.51, -3.0, 30.0, 400.0, -400.0, 800.0])
@pytest.mark.parametrize("modes", ["FF", "FR", "RF", "RR", "FFF", "RFR"])
def test_tanh_higher_derivatives_everywhere(x, modes):
    """tanh′ written so that nothing overflows inside it (1/cosh² x overflowed at |x| > 355:
    nan second derivatives where the truth underflows); both branches of the partial, in every
    nesting, agree with mpmath."""
    k = len(modes)
    want = _tanh_truth(x, k)
    got = nest(ad.tanh, modes)(x)
    close(got, want, rel=1e-13, abs_=1e-300)


@pytest.mark.parametrize("x", [0.0, 0.45, 0.7, 20.0, 400.0, -800.0])
def test_tanh_taylor_coefficients_everywhere(x):
    ds = ad.derivatives(ad.tanh, 4)(x)
    for k in range(1, 5):
        close(ds[k], _tanh_truth(x, k), rel=1e-12, abs_=1e-300, what=f"order {k}")


def test_tanh_second_derivative_of_arrays_and_float32():
    xs = np.array([0.2, -0.7, 50.0, 400.0, -400.0])
    want = np.array([float(_tanh_truth(x, 2)) for x in xs])
    D = ad.derivative
    first = ad.gradient_r(lambda w: np.sum(np.tanh(w)))
    got = ad.gradient_r(lambda v: np.sum(first(v)))(xs)
    close(got, want, rel=1e-13, abs_=1e-300)
    close(ad.hvp(lambda v: np.sum(np.tanh(v)), xs, np.ones(5)), want, rel=1e-13, abs_=1e-300)
    g = D(D(ad.tanh))(np.float32(45.0))
    assert np.isfinite(g) and abs(g) < 1e-37


# ---- partials that under- or overflow inside while the derivative is a fine number ---------------

@pytest.mark.parametrize("s", [1e-170, 1e170, 1.0])
def test_atan2_partials_at_every_scale(s):
    """∂ atan2(x, y) = (y, −x)/(x² + y²); x² + y² under- or overflows at 1e∓170 (ZeroDivisionError,
    inf) where the quotient is 1/(2s)."""
    want = 0.5 / s
    f = lambda x: ad.atan2(x, s)                                          # noqa: E731
    for got in (ad.derivative(f)(s), ad.gradient_r(f)(s), ad.derivatives(f, 1)(s)[1]):
        close(got, want, rel=1e-15)
    g = ad.gradient_r(lambda v: np.sum(np.arctan2(v, s)))(np.array([s, -s]))
    close(g, np.array([want, want]), rel=1e-15)
    # the second derivative, −2xy/(x² + y²)² = −1/(2s²): finite at s = 1 only
    if s == 1.0:
        close(ad.derivative(ad.derivative(f))(s), -0.5, rel=1e-15)
        close(ad.derivatives(f, 2)(s)[2], -0.5, rel=1e-15)
    x = ad.derivative(lambda y: ad.atan2(s, y))(s)
    close(x, -want, rel=1e-15)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "expit"])
def test_array_values_of_logaddexp_and_expit_are_numpys_and_scipys(name, dtype):
    """Their numpy family is numpy's (scipy's) formula by vectorized ufuncs, not numpy's scalar
    loop: the values of np.logaddexp, np.logaddexp2 and scipy.special.expit to two ulps, the
    dtype kept, ±inf, nan and equal arguments as numpy has them, no warning; as the base
    function of plain arrays and as the primal of a derivative alike."""
    import warnings
    sc = pytest.importorskip("scipy.special")
    r = np.random.default_rng(7)
    x = (r.standard_normal(2000) * 30).astype(dtype)
    y = (r.standard_normal(2000) * 30).astype(dtype)
    special = [np.inf, -np.inf, np.nan, 1.0, np.inf, -np.inf, 0.0, -0.0, 2.5, -900.0, 900.0]
    other = [np.inf, -np.inf, 1.0, np.nan, -np.inf, np.inf, 0.0, 0.0, 2.5, 900.0, -900.0]
    x = np.concatenate([x, np.array(special, dtype), x[:5]])
    y = np.concatenate([y, np.array(other, dtype), x[:5]])
    if name == "expit":
        fn, ours = sc.expit, ad.expit
    else:
        fn = lambda v: getattr(np, name)(v, y)                                  # noqa: E731
        ours = lambda v: getattr(ad, name)(v, y)                                # noqa: E731
    want = fn(x)
    eps = np.finfo(dtype).eps
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # (numpy's logaddexp warns at inf, inf)
        results = [ours(x)]
    with np.errstate(invalid="ignore"):         # (the partials are nan there)
        results.append(ad.jvp(fn, x, np.ones_like(x))[0])
    for got in results:
        assert got.dtype == dtype and got.shape == want.shape
        assert np.array_equal(np.isnan(got), np.isnan(want))
        inf = np.isinf(want)
        assert np.array_equal(got[inf], want[inf])
        ok = ~np.isnan(want) & ~inf
        diff = np.abs(got[ok] - want[ok])
        # (logaddexp's max + log1p cancels where the result is near 0: absolute there)
        assert np.all((diff <= 2 * eps * np.abs(want[ok])) | (diff <= 4 * eps)), np.max(diff)
    if name != "expit":
        s = getattr(ad, name)(np.float64(1.0), np.float64(1.0))
        assert type(s) is np.float64 and s == getattr(np, name)(1.0, 1.0)
        with pytest.raises(TypeError):      # as numpy's ufunc (the formula would take them)
            getattr(ad, name)(np.array([1.0 + 1.0j, 2.0]), 0.0)
    else:
        with pytest.raises(TypeError):
            ad.expit(np.array([1.0 + 1.0j]))


@pytest.mark.parametrize("x", [-800.0, -40.0, 0.0, 3.0, 40.0, 800.0])
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_derivatives_far_apart(name, x):
    """∂/∂x logaddexp(x, 0) is the logistic function of x, written so that no exponential of a
    large argument is taken (math.exp raised OverflowError for |x − y| > 709)."""
    mpmath.mp.dps = 50
    c = mpmath.log(2) if name == "logaddexp2" else mpmath.mpf(1)

    def truth(t, k):      # the k-th derivative: σ(ct), then σ′ = σ(1 − σ), σ″ = σ(1 − σ)(1 − 2σ)
        s, q = 1 / (1 + mpmath.exp(-c * t)), 1 / (1 + mpmath.exp(c * t))       # q = 1 − s
        return [s, c * s * q, c * c * s * q * (q - s)][k - 1]

    f = lambda t: getattr(ad, name)(t, 0.0)                                      # noqa: E731
    D = ad.derivative
    for k, op in ((1, D(f)), (1, ad.gradient_r(f)), (2, D(D(f))), (2, ad.gradient_r(D(f)))):
        close(op(x), truth(x, k), rel=1e-13, abs_=1e-300, what=f"order {k}")
    close(D(lambda t: getattr(ad, name)(0.0, t))(x), truth(x, 1), rel=1e-13, abs_=1e-300)
    ds = ad.derivatives(f, 3)(x)
    for k in (1, 2, 3):
        close(ds[k], truth(x, k), rel=1e-12, abs_=1e-300, what=f"Taylor, order {k}")
    g = ad.gradient_r(lambda v: np.sum(getattr(np, name)(v, 0.0)))(np.array([x, -x]))
    close(g, np.array([float(truth(t, 1)) for t in (x, -x)]), rel=1e-13, abs_=1e-300)


# ---- numpy functions: every keyword is honoured or refused, never ignored --------------------------

W = np.arange(6.0)


@pytest.mark.parametrize("order, want", [
    ("C", [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]),
    ("F", [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]),          # column by column
])
def test_ravel_order(order, want):
    for op in (ad.gradient_r, ad.gradient_f):
        assert op(lambda x: np.sum(np.ravel(x, order=order) * W))(np.ones((2, 3))).tolist() == want
        assert op(lambda x: np.sum(x.flatten(order=order) * W))(np.ones((2, 3))).tolist() == want


def test_ravel_order_k_follows_the_memory_layout():
    fortran = np.asfortranarray(np.ones((2, 3)))
    g = ad.gradient_r(lambda x: np.sum(np.ravel(x, order="K") * W))(fortran)
    assert g.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_matrix_two_norm_is_the_largest_singular_value_not_frobenius():
    # (refused until issue #17 gave norm every ord; never the Frobenius norm)
    a = np.array([[3.0, 0.0], [0.0, 4.0]])               # 2-norm 4, Frobenius 5
    assert ad.derivative(lambda s: np.linalg.norm(s * a, ord=2, axis=(0, 1)))(1.0) == 4.0
    assert ad.derivative(lambda s: np.linalg.norm(s * a, ord=2))(1.0) == 4.0
    assert ad.derivative(lambda s: np.linalg.norm(s * a, ord="fro"))(1.0) == 5.0
    assert ad.derivative(lambda s: np.linalg.norm(s * np.array([3.0, 4.0]), ord=2))(1.0) == 5.0


@pytest.mark.parametrize("kw", [dict(initial=5.0), dict(where=np.array([True, False, True])),
                                dict(dtype=np.float32)], ids=["initial", "where", "dtype"])
def test_add_reduce_keywords_are_refused(kw):
    with pytest.raises(ad.NotDifferentiableError, match=next(iter(kw))):
        ad.gradient_r(lambda x: np.add.reduce(x, **kw))(np.ones(3))


def test_swapaxes_takes_numpys_keywords():
    w = np.arange(6.0).reshape(3, 2)
    g = ad.gradient_r(lambda x: np.sum(np.swapaxes(x, axis1=0, axis2=1) * w))(np.ones((2, 3)))
    assert g.tolist() == w.T.tolist()


# ---- 0-d and other number types ---------------------------------------------------------------------

def test_prod_of_a_scalar():
    assert ad.gradient_r(np.prod)(3.5) == 1.0
    assert ad.derivative(ad.derivative(lambda x: np.prod(x * x)))(0.0) == 2.0
    assert ad.gradient_r(np.prod)(np.array([2.0, 0.0, 3.0])).tolist() == [0.0, 6.0, 0.0]


def test_taylor_towers_of_other_real_types():
    from fractions import Fraction
    assert ad.derivatives(lambda x: x * x, 2)(Fraction(1, 2)) == [Fraction(1, 4), 1.0, 2.0]
    ds = ad.derivatives(ad.sin, 3)(np.longdouble(0.5))
    assert all(type(d) is np.longdouble for d in ds)
    mpmath.mp.dps = 30
    eps = mpmath.mpf(str(np.finfo(np.longdouble).eps))
    for k, d in enumerate(ds):                           # to long double's own precision
        assert abs(mpmath.mpf(str(d)) - mpmath.diff(mpmath.sin, mpmath.mpf(0.5), k)) < 8 * eps


def test_a_float32_direction_does_not_narrow_a_float64_point():
    t = ad.jvp(lambda x: x * x, np.ones(2), np.ones(2, dtype=np.float32))[1]
    assert t.dtype == np.float64
    assert type(ad.jvp(lambda x: x * x, 1.0, np.float32(1.0))[1]) is np.float64
    t32 = ad.jvp(lambda x: x * x, np.ones(2, dtype=np.float32), np.ones(2, dtype=np.float32))[1]
    assert t32.dtype == np.float32                       # float32 throughout stays float32
    assert ad.taylor(lambda x: x * x, np.ones(2), 1, np.ones(2, dtype=np.float32))[1].dtype \
        == np.float64


# ---- threads inside one derivative ------------------------------------------------------------------

def test_threads_each_running_a_fixed_point_inside_one_derivative():
    """Four threads suspend the same live tag at once (each fixed point computes its primal with
    the derivative's tag off, for that thread only): every answer is dx*/da for x = a·cos x,
    0.7394815923329188 at a = 0.5, never a Bundle.  (One shared 'suspended by' slot gave a
    Bundle in 6 of 200 runs with a short switch interval.)"""
    import sys
    import threading

    def f(a):
        out = [None] * 4

        def work(k):
            out[k] = ad.fixed_point(lambda y: a * ad.cos(y), 0.0)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return sum(out) / 4

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        got = [ad.derivative(f)(0.5) for _ in range(150)]
    finally:
        sys.setswitchinterval(old)
    wrong = [g for g in got if type(g) is not float or abs(g - 0.7394815923329188) > 1e-12]
    assert wrong == []


# ---- the collector's pause survives interrupts and forks ---------------------------------------------

def test_an_interrupt_while_taping_leaves_the_collector_as_it_was():
    import gc
    before = gc.isenabled()

    def f(x):
        raise KeyboardInterrupt          # as Ctrl-C at an unlucky moment

    for _ in range(3):
        with pytest.raises(KeyboardInterrupt):
            ad.gradient_r(f)(1.0)
        assert gc.isenabled() == before
    assert ad.gradient_r(lambda x: x * x)(3.0) == 6.0   # the next call does not hang


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_child_forked_while_taping_has_the_collector_on():
    import gc
    import os
    if not gc.isenabled():
        pytest.skip("the collector is off in this process")
    status = []

    def f(x):
        pid = os.fork()
        if pid == 0:                     # the child: GC back on, and a gradient works
            ok = gc.isenabled() and ad.gradient_r(lambda y: y * y)(3.0) == 6.0
            os._exit(0 if ok else 1)
        status.append(os.waitpid(pid, 0)[1])
        return x * x

    assert ad.gradient_r(f)(2.0) == 4.0
    assert status == [0]


# ---- zero-size and one-element arrays ---------------------------------------------------------------

def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@pytest.mark.parametrize("n", [0, 1])
def test_the_readme_rosenbrock_at_n_0_and_1(n):
    """rosen has no terms at n ≤ 1: its gradient and Hessian are zero, of the right shapes."""
    x, v = np.full(n, 0.5), np.ones(n)
    for got in (ad.gradient_r(rosen)(x), ad.gradient_f(rosen)(x), ad.hvp(rosen, x, v),
                ad.hvp(rosen, x, v, mode="rr")):
        assert got.shape == (n,) and not got.any()
    h = ad.hessian(rosen)(x)
    assert h.shape == (n, n) and not h.any()


def test_rosenbrock_at_n_2_by_hand():
    """∇ at (0.5, 0.5): (−400·x₀·t − 2(1 − x₀), 200·t) with t = x₁ − x₀² = 0.25."""
    assert ad.gradient_r(rosen)(np.full(2, 0.5)).tolist() == [-51.0, 50.0]


def test_jacobians_of_empty_outputs_and_inputs():
    for jac in (ad.jacobian_r, ad.jacobian_f):
        assert jac(lambda x: x[:0])(np.ones(3)).shape == (0, 3)
        assert jac(lambda x: 2 * x)(np.ones(0)).shape == (0, 0)


# ---- copies of perturbed numbers ----------------------------------------------------------------------

@pytest.mark.parametrize("copier", ["copy", "deepcopy"])
def test_a_copy_is_the_same_number(copier):
    import copy
    cp = getattr(copy, copier)
    assert ad.gradient_r(lambda x: cp(x) * x)(3.0) == 6.0            # was 0.0 for deepcopy
    assert ad.derivative(lambda x: cp(x) * x)(3.0) == 6.0
    assert ad.gradient_r(lambda p: cp(p)["a"] * p["a"])({"a": 3.0}) == {"a": 6.0}
    assert ad.gradient_r(lambda x: np.sum(cp(x) * x))(np.ones(2)).tolist() == [2.0, 2.0]
    assert ad.vjp(lambda x: cp(x) * x, 3.0)[1](1.0) == 6.0
    assert ad.hvp(lambda p: cp(p[0]) * p[0] * p[1], (1.0, 2.0), (1.0, 0.0)) == (4.0, 2.0)


def test_a_deep_copy_of_a_long_tape_does_not_recurse():
    import copy
    import sys

    def f(x):
        y = x
        for _ in range(5000):
            y = y * 1.0001
        return copy.deepcopy(y) + 0.0 * x

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        close(ad.gradient_r(f)(1.0), 1.0001 ** 5000, rel=1e-11)
    finally:
        sys.setrecursionlimit(old)


def test_pickling_a_live_perturbation_is_refused_and_a_dead_one_is_its_value():
    import pickle
    with pytest.raises(ad.PerturbedConversionError, match="pickl"):
        ad.gradient_r(lambda x: pickle.loads(pickle.dumps(x)) * x)(3.0)    # was a wrong 0.0
    kept = []
    ad.derivative(lambda x: kept.append(x) or x)(2.0)
    back = pickle.loads(pickle.dumps(kept[0]))
    assert type(back) is float and back == 2.0


# ---- operators' results pickle when f does (process pools) ------------------------------------------

def _square_sum(x):
    return np.sum(x * x)


def test_operator_results_pickle_and_run_in_another_process():
    import functools
    import pickle
    from concurrent.futures import ProcessPoolExecutor
    x = np.array([1.0, 2.0])
    made = [ad.derivative(ad.sin), ad.gradient_r(_square_sum), ad.gradient_f(_square_sum),
            ad.jacobian_r(np.sin), ad.jacobian_f(np.sin), ad.hessian(_square_sum),
            ad.derivatives(ad.sin, 4), ad.nth_derivative(ad.exp, 5)]
    for op in made:
        back = pickle.loads(pickle.dumps(op))
        arg = 0.5 if getattr(op, "origin", "derivative") in ("derivative", "derivatives",
                                                             "nth_derivative") else x
        assert np.array_equal(back(arg), op(arg)), op
    hv = functools.partial(ad.hvp, _square_sum)
    with ProcessPoolExecutor(max_workers=2) as pool:
        got = list(pool.map(hv, [x, 2 * x], [np.ones(2), np.array([1.0, 0.0])]))
        grads = list(pool.map(ad.gradient_r(_square_sum), [x, 3 * x]))
    assert [g.tolist() for g in got] == [[2.0, 2.0], [2.0, 0.0]]           # H = 2I
    assert [g.tolist() for g in grads] == [[2.0, 4.0], [6.0, 12.0]]


def test_where_with_every_lane_masked_has_gradient_zero():
    """np.where(x > 1, √x, 0) at x = 0 everywhere: no lane reaches √x, so the gradient is 0 in
    every mode (reverse gave nan: √′(0) = inf times a sensitivity of 0)."""
    f = lambda x: np.sum(np.where(x > 1, np.sqrt(x), 0.0))        # noqa: E731
    x = np.zeros(2)
    with np.errstate(all="ignore"):
        for got in (ad.gradient_r(f)(x), ad.gradient_f(f)(x), ad.hvp(f, x, np.ones(2)),
                    ad.hvp(f, x, np.ones(2), mode="rr")):
            assert got.tolist() == [0.0, 0.0]
        assert ad.gradient_r(lambda v: np.sum(np.sqrt(v)))(x).tolist() == [math.inf, math.inf]


# ---- 0·∞ in the chain rule -----------------------------------------------------------------------
# A zero times an infinite factor is nan (IEEE), unless the zero is structural: the partial of a
# linear dependence on a constant (0·√x, x/inf), a cotangent of 0 (an output left out of a
# vjp/jacobian_r row), a where-branch that no lane takes.  A zero computed at the point is not
# structural: -sin(√t)·√′(t) at t = 0 is 0·∞ with limit -1/2, so 0 there would be a wrong number.

def finite_or_nan(got, want):
    """got is want, or nan: never another finite number (or an infinity)."""
    return got != got or got == want


@pytest.mark.parametrize("op", [ad.gradient_f, ad.gradient_r])
def test_a_computed_zero_times_infinity_is_never_a_wrong_number(op):
    x = np.array([0.0, 1.0])
    with np.errstate(all="ignore"):
        g = op(lambda x: np.sum(np.cos(np.sqrt(x))))(x)          # d/dx cos√x → -1/2 at 0
        assert finite_or_nan(g[0], -0.5), g
        close(g[1], -math.sin(1.0) / 2)
        g = op(lambda x: np.sum(np.power(x ** 3, 1.0 / 3.0)))(x)  # (x³)^(1/3) = x: 1 at 0⁺
        assert finite_or_nan(g[0], 1.0), g
        close(g[1], 1.0)


@pytest.mark.parametrize("op", [ad.derivative, ad.gradient_r])
def test_a_computed_zero_times_infinity_in_scalars_and_towers(op):
    with np.errstate(all="ignore"):
        assert finite_or_nan(op(lambda t: ad.cos(ad.sqrt(t)))(0.0), -0.5)
        second = op(ad.derivative(lambda t: ad.sin(ad.sqrt(t))))(0.0)    # -∞ at 0⁺
        assert second != second or second == -math.inf, second


ZERO_TIMES_INF = [                         # f, x: f is constant near x, f′(x) = 0
    (lambda x: 0.0 * ad.sqrt(x), 0.0),
    (lambda x: ad.sqrt(x) * 0.0, 0.0),
    (lambda x: ad.sqrt(x) / math.inf, 0.0),
    (lambda x: ad.asin(x * 0.0 + 1.0), 3.0),
    (lambda x: ad.sqrt(0.0 * x), 1.0),
]


@pytest.mark.parametrize("k", range(len(ZERO_TIMES_INF)))
@pytest.mark.parametrize("kind", [float, np.float64, np.float32, mpmath.mpf])
def test_a_structural_zero_times_infinity_contributes_zero(k, kind):
    f, x = ZERO_TIMES_INF[k]
    with np.errstate(all="ignore"):
        got = [ad.derivative(f)(kind(x)), ad.gradient_r(f)(kind(x))]
    assert got == [0, 0], got


def test_a_structural_zero_times_infinity_in_arrays():
    x = np.array([0.0, 1.0, 4.0])
    with np.errstate(all="ignore"):
        for f in (lambda x: np.sum(0.0 * np.sqrt(x)), lambda x: np.sum(np.sqrt(x) * 0.0),
                  lambda x: np.sum(np.sqrt(x * 0.0))):
            for op in (ad.gradient_f, ad.gradient_r):
                assert op(f)(x).tolist() == [0.0, 0.0, 0.0], (op, f)


def test_jacobian_r_rows_do_not_take_nan_from_other_rows():
    h = lambda x: [ad.sqrt(x[0]), x[1] * 2.0]          # row 1 does not depend on x0
    with np.errstate(all="ignore"):
        rev, fwd = ad.jacobian_r(h)([0.0, 1.0]), ad.jacobian_f(h)([0.0, 1.0])
        assert rev == fwd == [[math.inf, 0.0], [0.0, 2.0]]
        _, back = ad.vjp(h, [0.0, 1.0])
        assert back([0.0, 1.0]) == [0.0, 2.0]               # output 0 is left out: Jᵀ·(0, 1)
        assert back([1.0, 0.0]) == [math.inf, 0.0]
    g = lambda x: np.stack([np.sqrt(x[0]), 2.0 * x[1]])    # an array output: one-hot cotangents
    for op in (ad.jacobian_r, ad.jacobian_f):
        with np.errstate(all="ignore"):
            assert op(g)(np.array([0.0, 1.0])).tolist() == [[math.inf, 0.0], [0.0, 2.0]]


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
def test_a_structural_zero_times_infinity_in_second_derivatives(mode):
    # f(x, y) = y² + 0·√x: H = [[0, 0], [0, 2]] at x = 0 (f does not depend on x)
    f = lambda p: p[1] * p[1] + 0.0 * ad.sqrt(p[0])
    with np.errstate(all="ignore"):
        assert ad.hvp(f, [0.0, 1.0], [0.0, 1.0], mode=mode) == [0.0, 2.0]


# ---- user primitives that close over the variable being differentiated ---------------------------

@pytest.mark.parametrize("op", [ad.derivative, ad.gradient_r])
def test_a_primitive_closing_over_the_perturbed_variable_is_refused(op):
    def value_closes(a):                  # p(x) = x·a with a captured: f = a², f′(3) = 6
        return ad.primitive(lambda x: x * a, lambda x: (a,))(a)

    def partial_closes(a):
        return ad.primitive(lambda x: x * x, lambda x: (2 * x * a / a,))(a)
    for f in (value_closes, partial_closes):
        with pytest.raises(ad.TagOrderError, match="closes over.*pass that variable as an argument"):
            op(f)(3.0)


@pytest.mark.parametrize("outer", [ad.derivative, ad.gradient_r])
@pytest.mark.parametrize("inner", [ad.derivative, ad.gradient_r])
def test_a_primitive_closing_over_an_outer_variable_nests(outer, inner):
    # d/da [d/dx (a·x²) at x = 2] = 2x = 4: a is the outer derivative's, x the primitive's argument
    def h(a):
        p = ad.primitive(lambda y: y * a, lambda y: (a,))
        return inner(lambda x: p(x * x))(2.0)
    assert outer(h)(3.0) == 4.0
    # passed as an argument, it is differentiated through both: d/da (a·a) = 2a
    q = ad.primitive(lambda x, a: x * a, lambda x, a: (a, x))
    assert outer(lambda a: q(a, a))(3.0) == 6.0


# ---- rules and functions that build object arrays of AD numbers ----------------------------------

def scaled_sum(c):
    """c·Σx as a vector primitive whose vjp builds its result with np.full (an object array when
    the cotangent is perturbed)."""
    return ad.vector_primitive(lambda x: c * np.sum(x), lambda x, t: c * np.sum(t),
                               lambda x, g: np.full(np.shape(x), g * c))


X3 = np.array([0.2, 1.4, -0.6])


def test_a_vjp_rule_returning_an_object_array_is_read_whole():
    # ∇ of S(y)·Q(y), S = Σy by the primitive, Q = Σy²: its Jacobian is the Hessian of S·Q,
    # H = 2(1xᵀ + x1ᵀ) + 2S·I, exactly what the same function without the primitive gives
    p = scaled_sum(1.0)
    h = lambda x: ad.gradient_r(lambda y: p(y) * np.sum(y * y))(x)
    want = 2 * (np.add.outer(X3, X3)) + 2 * np.sum(X3) * np.eye(3)
    for op in (ad.jacobian_f, ad.jacobian_r):
        close(op(h)(X3), want, 1e-15, floor=1)
    pull = lambda s: ad.vjp(p, X3)[1](s * s)                  # Jᵀ·s² = (s², s², s²)
    assert ad.derivative(pull)(2.0).tolist() == [4.0, 4.0, 4.0]
    # the pullback's derivative along the point: x ↦ Jᵀ(x)·(Σx) = (Σx)·1, slope 1 per entry
    pull_x = lambda x: ad.vjp(p, x)[1](np.sum(x) * 1.0)
    assert ad.jacobian_f(pull_x)(X3).tolist() == np.ones((3, 3)).tolist()


@pytest.mark.parametrize("build", [lambda x: np.array([x[0] * x[1], x[0]]),
                                   lambda x: np.asarray([x[0] * x[1], x[0]]),
                                   lambda x: np.stack([x[0] * x[1], x[0]])],
                         ids=["array", "asarray", "stack"])
def test_arrays_built_from_perturbed_numbers_in_every_mode(build):
    f = lambda x: np.sum(build(x) ** 2)                 # (x0·x1)² + x0²
    x = np.array([2.0, 3.0])
    grad = [2 * 2.0 * 3.0 ** 2 + 2 * 2.0, 2 * 2.0 ** 2 * 3.0]      # [40, 24]
    hess = [[2 * 3.0 ** 2 + 2, 4 * 2.0 * 3.0], [4 * 2.0 * 3.0, 2 * 2.0 ** 2]]
    assert ad.gradient_r(f)(x).tolist() == grad
    assert ad.gradient_f(f)(x).tolist() == grad
    for mode in ("fr", "rf", "rr", "ff"):
        assert np.asarray(ad.hvp(f, x, np.array([1.0, 0.0]), mode=mode)).tolist() == \
            [hess[0][0], hess[1][0]]
    assert np.asarray(ad.hessian(f)(x)).tolist() == hess
    g = lambda t: f(np.array([t, 3.0]))                 # Taylor: 9t² + t² = 10t², f″ = 20
    assert ad.derivatives(g, 3)(2.0) == [40.0, 40.0, 20.0, 0.0]


# ---- mpmath's functions on a perturbed number -------------------------------------------------------

@pytest.mark.parametrize("op", [ad.derivative, ad.gradient_r])
def test_mpmath_functions_refuse_a_perturbed_number_and_name_dvlads(op):
    for fn in (mpmath.sin, mpmath.exp, mpmath.sqrt):
        with pytest.raises(ad.PerturbedConversionError, match=r"Use dvlad\.sin.*mpmath\.\*"):
            op(fn)(mpmath.mpf(1))
    # mpf arithmetic and comparisons with dvlad numbers still work (reflected operators)
    with mpmath.workdps(30):
        f = lambda x: mpmath.mpf(2) * x + x * mpmath.mpf(3) - mpmath.mpf(1) / x \
            + (x * x if mpmath.mpf(2) < x else 2 * x)         # 2 + 3 + 1 + 2 at x = 1
        assert op(f)(mpmath.mpf(1)) == 8
        assert op(lambda x: mpmath.mpf(2) ** x)(mpmath.mpf(1)) == 2 * mpmath.log(2)
    # a value whose derivative call has returned is a constant: mpmath takes it
    escaped = ad.derivative(lambda x: (lambda: x))(1.0)()
    assert mpmath.sin(escaped) == mpmath.sin(1.0)


@pytest.mark.parametrize("method, kw", [("sum", dict(dtype=np.float32)),
                                        ("mean", dict(dtype=np.float32)),
                                        ("reshape", dict(order="A"))])
def test_ndarray_methods_refuse_keywords_by_name(method, kw):
    """x.sum(dtype=...) etc. on a tracked array: numpy's keyword is honoured or refused with a
    named error, as for np.sum(x, dtype=...), never a TypeError from inside dvlad."""
    args = ((2,),) if method == "reshape" else ()
    f = lambda x: np.sum(getattr(x, method)(*args, **kw))
    with pytest.raises(ad.NotDifferentiableError, match=next(iter(kw))):
        ad.gradient_r(f)(np.array([1.0, 2.0]))


@pytest.mark.parametrize("method, kw, want", [
    ("sum", dict(where=np.array([True, False])), [1.0, 0.0]),
    ("max", dict(initial=10.0), [0.0, 0.0]),                # the initial is the max
    ("max", dict(initial=1.5), [0.0, 1.0]),
    ("min", dict(where=np.array([True, False]), initial=0.0), [0.0, 0.0]),
    ("prod", dict(initial=2.0), [4.0, 2.0])])
def test_ndarray_methods_take_where_and_initial(method, kw, want):
    """x.sum(where=...), x.max(initial=...) on a tracked array: numpy's value, and the
    derivative of a lane left out (or below the initial) is 0."""
    x = np.array([1.0, 2.0])
    assert getattr(x, method)(**kw) == ad.primal(ad.value_and_gradient_r(
        lambda u: getattr(u, method)(**kw))(x)[0])
    np.testing.assert_array_equal(ad.gradient_r(lambda u: getattr(u, method)(**kw))(x), want)


def test_ndarray_reduction_methods_take_axis_and_keepdims():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    f = lambda x: np.sum(x.sum(axis=0) * np.arange(2.0)) + np.sum(x.max(1, keepdims=True)) \
        + x.mean() + np.sum(x.prod(0))       # ∂: [0,1;0,1] + [0,1;0,1] + 1/4 + [3,4;1,2]
    want = [[3.25, 6.25], [1.25, 4.25]]
    assert ad.gradient_r(f)(x).tolist() == want and ad.gradient_f(f)(x).tolist() == want


def test_linear_rows_partials_vanish_only_at_zero_or_infinite_constants():
    """structural_zero lets a finite nonzero constant through without evaluating the partial:
    sound only if each linear row's partial (a function of the constant c) is nonzero there."""
    from dvlad.core.rules import TABLE
    rows = [(rule, i) for rule in TABLE for i, lin in enumerate(rule.linear) if lin]
    assert {(rule.name, i) for rule, i in rows} == {("mul", 0), ("mul", 1), ("div", 0)}
    for rule, i in rows:
        for c in (1e-300, -2.5, 1.0, 3e300, -1.7e308, 5e-324):     # 1/c never underflows to 0
            d = rule.partials[i](None, c, None) if i == 0 else rule.partials[i](c, None, None)
            assert d != 0, (rule.name, i, c)


# ---- found by the differential fuzzer (tests/test_fuzz.py) ------------------------------------------

def test_a_root_whose_tangent_converges_at_once_and_stalls_in_rounding():
    """The tangent iteration of a root (Newton-fast) was within 64 tol from its first step and
    then bounced at 2 tol (4 ulps) without a contraction rate to judge it by: FixedPointError
    in forward over forward over reverse (the long fuzzer run).  Such stalled noise is
    accepted now; the values against mpmath's implicit function."""
    def f(x):
        a = ad.log_ndtr(x)
        return ad.rad2deg(ad.root(lambda y: y ** 3 + 2.0 * y - a, 0.0))
    mpmath.mp.dps = 40

    def truth(x):
        a = mpmath.log(mpmath.ncdf(x))
        return mpmath.degrees(mpmath.findroot(lambda y: y ** 3 + 2 * y - a, 0))
    want = [mpmath.diff(truth, -1, k) for k in (1, 2, 3)]
    D, R = ad.derivative, ad.gradient_r
    for x in (-1, -1.0):
        close(D(D(R(f)))(x), want[2], rel=1e-12)
        close(D(R(f))(x), want[1], rel=1e-12)
        close(ad.derivatives(f, 3)(x)[1:], want, rel=1e-12)


def test_fixed_point_pairs_fs_dict_with_x0_by_key():
    # v = u/2 + a, u = v/4 + 1 (f writes its dict in the other order): v* = (1/2 + a)/(7/8)
    f = lambda a: (lambda p: {"v": 0.5 * p["u"] + a, "u": 0.25 * p["v"] + 1.0})
    x0 = {"u": 0.0, "v": 0.0}
    close(ad.fixed_point(f(1.0), x0), {"u": 0.25 * 1.5 / 0.875 + 1.0, "v": 1.5 / 0.875}, 4e-16)
    for op in (ad.derivative, ad.gradient_r):
        close(op(lambda a: ad.fixed_point(f(a), x0)["v"])(1.0), 1 / 0.875, 4e-16)
    with pytest.raises(StructureMismatchError, match="missing"):
        ad.fixed_point(lambda p: {"v": p["u"]}, x0)


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
def test_prod_next_to_a_tiny_element(mode):
    """∂Π/∂x_k is the product of the others, computed without dividing by x_k: H·e₀ of Π x is
    (0, x₂x₃, x₁x₃, x₁x₂) even when x₀ = -2.2e-16 (dividing, it was 0.0 or 0.5 for 0.304)."""
    x = np.array([-2.2e-16, 0.7, 1.3, 0.4])
    got = ad.hvp(np.prod, x, np.array([1.0, 0.0, 0.0, 0.0]), mode=mode)
    close(got, [0.0, 1.3 * 0.4, 0.7 * 0.4, 0.7 * 1.3], 1e-15)


def test_prod_gradient_where_the_product_underflows():
    x = np.array([1e-200, 1e-200, 1e-200, 3.0])           # Π underflows to 0; ∂/∂x₃ = 1e-600 → 0
    g = ad.gradient_r(np.prod)(x)
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0] and ad.gradient_f(np.prod)(x).tolist() == g.tolist()
    y = np.array([1e-200, 1e200, 2.0, 3.0])                 # Π = 6: ∂/∂y₀ = 6e200, not r/y₀
    close(ad.gradient_r(np.prod)(y), [6e200, 6e-200, 3.0, 2.0], 1e-15)
    z = np.array([[0.0, 2.0, 0.0], [1.0, 2.0, 3.0]])       # zeros: products of the others
    close(ad.gradient_r(lambda z: np.sum(np.prod(z, axis=1)))(z), [[0.0, 0.0, 0.0], [6, 3, 2]])


def test_an_array_divided_by_a_python_zero_follows_numpy():
    # numpy: x / 0.0 is inf, so is its partial 1 / 0.0 (it raised ZeroDivisionError in reverse)
    with np.errstate(divide="ignore"):
        for op in (ad.gradient_r, ad.gradient_f):
            assert op(lambda x: np.sum(x / 0.0))(np.array([1.0, 2.0])).tolist() == [math.inf] * 2
            assert op(lambda x: np.sum(x / 0.0))(np.zeros(0)).tolist() == []


@pytest.mark.parametrize("op", [ad.derivative, ad.gradient_r])
def test_fixed_point_of_an_f_computing_in_float32_from_a_python_float(op):
    """The tolerance follows the type f computes in (float32 here), not x0's (a Python float):
    the iteration stalled 1 float32 ulp above float64's tolerance and raised FixedPointError."""
    g = lambda a: ad.fixed_point(lambda x: np.float32(0.5) * ad.cos(x) + a, 0.0)
    a = np.float32(0.3)
    x = g(a)
    assert type(x) is np.float32 and abs(x - (0.5 * math.cos(x) + 0.3)) < 2e-7
    d = op(g)(a)                                            # dx/da = 1 / (1 + sin(x)/2)
    assert type(d) is np.float32 and abs(d - 1 / (1 + 0.5 * math.sin(x))) < 1e-6


def test_taylor_through_a_where_whose_branch_no_lane_takes():
    """Issue #16's where with a structural-zero branch (None partial) in Taylor mode: it raised
    NotDifferentiableError from inside the tower derivation (found by the fuzzer)."""
    s, c = math.sin(0.5), math.cos(0.5)
    f = lambda t: np.sum(np.where(np.array([True, True]), np.sin(t * np.ones(2)), 0.0)[1:])
    close(ad.derivatives(f, 3)(0.5), [s, c, -s, -c], 1e-15)
    h = lambda t: np.sum(np.where(np.array([False, False]), np.sin(t * np.ones(2)), t * t))
    assert ad.derivatives(h, 2)(0.5) == [0.5, 2.0, 4.0]
    g = lambda t: np.sum(np.clip(t * np.array([1.0, 2.0]), -10.0, 10.0))
    assert ad.derivatives(g, 2)(0.5) == [1.5, 3.0, 0.0]


def test_taylor_towers_through_a_fixed_point_whose_coefficients_stall_in_noise():
    """The coefficients' iteration stalled at 8 tol (rounding in c₁² terms) and raised
    FixedPointError; nested derivatives (and mpmath) give f″(1) = -8.778404991031124."""
    f = lambda x: ad.fixed_point(lambda y: 0.5 * ad.cos(y) + 6.4 * x, 0.0)
    nested = [ad.derivative(f)(1.0), ad.derivative(ad.derivative(f))(1.0),
              ad.derivative(ad.derivative(ad.derivative(f)))(1.0)]
    close(nested[1], -8.778404991031124, 1e-15)
    close(ad.derivatives(f, 3)(1.0)[1:], nested, 1e-14)


# ---- one type per derivative, whatever the mode (found by the fuzzer) -------------------------------

def test_a_float32_point_through_float64_arithmetic_has_one_precision():
    """The derivative has the computation's precision in every mode: a float64 partial (a float64
    constant array) no longer narrows a float32 tangent to float32 in forward mode."""
    f = lambda x: np.sum(np.sin(x) * np.array([0.3, 0.2]))
    x, u = np.array([1.0, 2.0], dtype=np.float32), np.ones(2, dtype=np.float32)
    kinds = {ad.gradient_r(f)(x).dtype, ad.gradient_f(f)(x).dtype, ad.jacobian_f(f)(x).dtype,
             ad.jacobian_r(f)(x).dtype, np.asarray(ad.jvp(f, x, u)[1]).dtype}
    kinds |= {ad.hvp(f, x, u, m).dtype for m in ("fr", "rf", "rr", "ff")}
    assert kinds == {np.dtype(np.float64)}
    g = lambda x: np.sum(np.maximum(x, 1.5) * x)        # float32 throughout: stays float32
    assert ad.gradient_r(g)(x).dtype == ad.gradient_f(g)(x).dtype == np.float32


@pytest.mark.parametrize("f, want", [
    (lambda x: np.sum(x * np.array([0.3])), np.float64),     # linear: its Hessian is 0
    (lambda x: np.sum(x * x) + np.sum(x[0] * np.array([0.3])), np.float64),
    (lambda x: np.sum(x * x), np.float32),
    (lambda x: 3.0, np.float32),                             # no dependence: the point's
    (lambda x: np.float64(3.0), np.float64),
    (lambda x: np.sum(0.0 * x) + 1.0, np.float32)])
def test_every_order_and_mode_has_one_dtype(f, want):
    """Every derivative is in numpy's result type of the point's and f's value, whichever mode
    computes it and also where it does not depend on x (the fuzzer's bug 4: hvp fr, rf, rr of a
    linear float64 computation at a float32 point were float32, hvp ff float64)."""
    x, u = np.array([1.0, 2.0], dtype=np.float32), np.ones(2, dtype=np.float32)
    got = {"gradient_r": ad.gradient_r(f)(x), "gradient_f": ad.gradient_f(f)(x),
           "vjp": ad.vjp(f, x)[1](1.0), "hessian": ad.hessian(f)(x),
           "jacobian_f": ad.jacobian_f(f)(x), "jacobian_r": ad.jacobian_r(f)(x)}
    got.update({f"hvp {m}": ad.hvp(f, x, u, m) for m in ("fr", "rf", "rr", "ff")})
    assert {k: v.dtype for k, v in got.items()} == {k: np.dtype(want) for k in got}
    close(got["hvp ff"], got["hessian"] @ u.astype(want), rel=1e-6)


def test_float_power_computes_in_float64_as_numpy_does():
    """np.float_power of float32 is float64 (found by the fuzzer once it compared dtypes: the
    power row computed it in float32, a less precise value and derivative)."""
    x = np.array([0.5, 1.5, 2.25], dtype=np.float32)
    f = lambda x: np.float_power(x, x)                                       # noqa: E731
    y, back = ad.vjp(f, x)
    want = np.float_power(x, x)
    assert y.dtype == np.float64 and np.array_equal(y, want)
    mpmath.mp.dps = 50
    truth = [float(mpmath.diff(lambda t: t ** t, mpmath.mpf(float(t)))) for t in x]
    for g in (back(np.ones(3)), ad.gradient_f(lambda x: np.sum(f(x)))(x),
              ad.jvp(f, x, np.ones(3, np.float32))[1]):
        assert g.dtype == np.float64
        close(g, np.array(truth), rel=1e-14)
    d = ad.derivative(lambda t: np.float_power(t, 3.0))(np.float32(1.5))
    assert type(d) is np.float64 and d == 3 * 1.5 ** 2


def test_a_tangent_passed_on_by_a_unit_partial_takes_the_results_dtype():
    """x (float32) + a float64 0-d array is float64 (numpy: a 0-d array is not weak); add's
    partial 1 passed the float32 tangent on unchanged, so jvp, hvp rf and ff were float32 where
    gradient_r, hvp fr and rr were float64 (the long fuzzer run, 10⁵ programs, found it)."""
    x = np.zeros(3, dtype=np.float32)
    v = np.array([0.0, 0.0, 1.0], dtype=np.float32)
    f = lambda x: np.sum(ad.add(x, np.array(0.0)))                        # noqa: E731
    assert f(x).dtype == np.float64
    assert {ad.hvp(f, x, v, m).dtype for m in ("fr", "rf", "rr", "ff")} == {np.dtype("float64")}
    assert ad.jvp(f, x, v)[1].dtype == ad.gradient_r(f)(x).dtype == np.float64
    d = ad.derivative(lambda t: t + np.float64(0.5))(np.float32(1.0))
    assert type(d) is np.float64 and d == 1.0


def test_hvp_at_a_0d_point_is_a_0d_array_in_every_mode():
    x0 = np.array(0.5)
    for m in ("fr", "rf", "rr", "ff"):
        got = ad.hvp(lambda x: x * x * x, x0, np.array(1.0), m)
        assert type(got) is np.ndarray and got.shape == () and got == 3.0, (m, got)
    got = ad.hvp(lambda p: p[0] * p[0] * p[1], (x0, 2.0), (np.array(1.0), 0.0))
    assert type(got[0]) is np.ndarray and got[0] == 4.0 and got[1] == 1.0


def test_jacobian_f_at_empty_integer_and_bool_arrays_sees_float64():
    for x in (np.array([], dtype=bool), np.array([], dtype=np.int32)):
        f = lambda x: np.sum(x - x)                                      # noqa: E731
        for jac in (ad.jacobian_f, ad.jacobian_r, ad.gradient_f, ad.gradient_r):
            got = jac(f)(x)
            assert got.shape == (0,) and got.dtype == np.float64


def test_derivatives_at_a_0d_array_point_are_0d_arrays():
    x = np.array(0.5)
    for f, want in ((lambda x: x * x, 1.0), (lambda x: x + 0.0, 1.0), (lambda x: 3, 0.0)):
        for got in (ad.gradient_r(f)(x), ad.gradient_f(f)(x), ad.vjp(f, x)[1](1.0)):
            assert type(got) is np.ndarray and got.shape == () and got == want


def test_derivatives_of_a_constant_are_float():
    x = np.array([1.0, 2.0])
    for op in (ad.gradient_r, ad.gradient_f):
        g = op(lambda x: 3)(x)
        assert g.dtype == np.float64 and g.tolist() == [0.0, 0.0]
    assert ad.jvp(lambda x: 3, x, x) == (3, 0.0) and type(ad.jvp(lambda x: 3, x, x)[1]) is float


def test_hvp_dtype_of_logaddexp_with_a_python_float():
    # found by the long fuzzer run: a conditional partial broadcast the Python float to a
    # float64 array and widened the second derivatives (hvp rr along v = 0, every mode along 1)
    x = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, -1.0]], dtype=np.float32)
    inner = ad.derivative(lambda y: -2 * ad.abs(0.01 * y) + 0.01 * y)         # −0.01

    def f(x):
        return np.sum(ad.logaddexp(x, inner(0.01)))
    assert f(x).dtype == ad.gradient_r(f)(x).dtype == np.float32
    for v in (np.zeros_like(x), np.ones_like(x)):
        assert {ad.hvp(f, x, v, m).dtype for m in ("fr", "rf", "rr", "ff")} == \
            {np.dtype(np.float32)}


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2", "fmax", "fmin", "power", "arctan2"])
def test_second_derivatives_of_conditional_partials_keep_float32(fn):
    # a conditional partial's lanes at float32 with a Python number beside them: the number is
    # weak (NEP 50), as in numpy, in every branch and in a constant branch
    x = np.array([0.25, 1.0, 2.0, 0.5], dtype=np.float32)

    def f(x):
        return np.sum(getattr(np, fn)(x, 0.75))
    assert f(x).dtype == np.float32
    h = ad.hessian(f)(x)
    assert h.dtype == np.float32
    for m in ("fr", "rf", "rr", "ff"):
        got = ad.hvp(f, x, np.ones_like(x), m)
        assert got.dtype == np.float32, m
        np.testing.assert_allclose(got, h.sum(axis=1), rtol=1e-5)
