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


def test_unread_numpy_work_is_left_out_where_its_errors_would_not_be_heard():
    # an array op nothing reads (it overflows for these x): left out of the replay, which then
    # runs only where numpy would neither raise nor make its warning an error; elsewhere F
    # runs eagerly, and raises as F does (a replay once returned a value where F raised)
    import warnings

    def F(x):
        unused = np.exp(x * 1000.0)         # noqa: F841
        return np.sum(x * x)
    c = ad.compile(F)
    x = np.array([1.0, 2.0])
    with np.errstate(over="ignore"):
        assert c(x) == c(x) == 5.0
    assert "exp(" not in c.source() and "loud()" in c.source()
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            F(x)
        with pytest.raises(FloatingPointError):
            c(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            c(x)
    assert c.compiled.counts["traced"] == 1


def test_an_rr_hessian_vector_product_replay_leaves_out_the_inner_gradient():
    # ⟨∇f(w), v⟩ is the outer tape's value, which the HVP never reads: its product Xᵀs (a pass
    # over X) is not in the replay: three products with X, as in the HVP written by hand
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 5)), np.where(rng.standard_normal(40) > 0, 1.0, -1.0)
    w, v = rng.standard_normal(5), rng.standard_normal(5)

    def H(w, X, y, v):
        return ad.hvp(lambda q: np.sum(np.logaddexp(0.0, -y * (X @ q))), w, v, "rr")
    c = ad.compile(H)
    got, want = c(w, X, y, v), H(w, X, y, v)
    assert np.array_equal(got, want) and np.array_equal(c(w, X, y, v), want)
    assert c.source().count("matmul(") == 3, c.source()


# ---- a trace F leaves partway: F runs once, on numbers from there -------------------------------

def test_f_that_leaves_its_trace_partway_runs_once_with_eagers_numbers():
    """Where F does what the tracer cannot follow (numpy asked for a plain array of a traced
    one, its text, its memory), the trace is abandoned and F goes on with the concrete values:
    each of its effects happens once (before, F ran again from the start: twice)."""
    log = []

    def F(x):
        log.append("in")
        y = np.sin(x) * 2.0
        z = np.frombuffer(np.asarray(y).tobytes(), dtype=y.dtype)   # numpy reads y's memory
        log.append(len(repr(x)) > 0)
        return float(np.sum(z * x)) + 1.0

    c = ad.compile(F)
    for x in (np.linspace(0.0, 1.0, 5), np.linspace(-1.0, 2.0, 5)):
        log.clear()
        want = F(x)
        assert log == ["in", True]
        log.clear()
        assert c(x) == want
        assert log == ["in", True]
    assert "plain array of a traced array" in c.explain() or "memory" in c.explain()


def test_a_gradient_left_partway_keeps_eagers_copy_of_an_array_f_writes_later():
    """After the trace is abandoned dvlad's arrays are plain again and reverse mode copies what
    it keeps, as eagerly: X written after X @ w must not reach the gradient."""
    X0 = np.arange(1.0, 10.0).reshape(3, 3)
    X = X0.copy()
    log = []

    def loss(w):
        log.append(1)
        np.asarray(ad.primal(w)).sum()      # numpy reads a traced array: the trace ends here
        z = X @ w
        X[:] = 0.0
        return np.sum(z * z)

    F = ad.gradient_r(loss)
    c = ad.compile(F)
    w = np.array([0.5, -1.0, 2.0])
    for v in (w, 2.0 * w):
        X[:] = X0
        log.clear()
        got = c(v)
        assert len(log) == 1
        np.testing.assert_array_equal(got, 2.0 * X0.T @ (X0 @ v))
        X[:] = X0
        np.testing.assert_array_equal(got, F(v))


def test_pickling_or_flag_setting_inside_f_gives_eagers_answer_once():
    import pickle
    log = []

    def P(x):
        log.append(1)
        return pickle.loads(pickle.dumps(x * 2.0)) + 1.0

    def W(a):
        log.append(1)
        b = a * 3.0
        b.flags.writeable = False
        with pytest.raises(ValueError):
            b[0] = 1.0                      # read-only, as eagerly
        return b + 1.0

    for F, x in ((P, 1.5), (W, np.array([1.0, 2.0]))):
        c = ad.compile(F)
        log.clear()
        np.testing.assert_array_equal(c(x), F(x))
        assert len(log) == 2                # once compiled, once eager


def test_the_watch_asks_about_a_method_of_an_array_without_comparing_the_array():
    """The effect watch asked ``owner in (list, tuple, ...)`` of a method's owner: for an array
    of several elements that comparison raised inside F (a trace lost, F run twice)."""
    from dvlad.operators.compile.watch import allowed
    a = np.arange(4.0)
    assert allowed(a.tobytes) and allowed(a.sum) and not allowed(a.tofile)
