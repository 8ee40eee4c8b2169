"""Issue #18: dvlad.compile on numpy code — arrays traced, replayed, never stale.

Every compiled value is compared with eager dvlad's on calls with new arguments after the first
(the replays), bit for bit but for a BLAS product's last place (a replay reads a captured array
where eager dvlad reads its copy, aligned otherwise), and the tests say which calls traced and
which replayed.
"""
import re

import numpy as np
from hypothesis import given, settings, strategies as st

import dvlad as ad
from support import gp_nlml_by_cholesky


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f" or np.array_equal(a, b, equal_nan=True):
        return a.dtype.kind == "f" or np.array_equal(a, b)
    # A replay computes with a captured array itself where eager dvlad copies it first: a BLAS
    # product may then round in another order by memory alignment (an ulp or two).
    return np.allclose(a, b, rtol=4 * np.finfo(a.dtype).eps, equal_nan=True,
                       atol=4 * np.finfo(a.dtype).eps * np.max(np.abs(b), initial=0.0))


def points(n, k, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.5, 1.5, n) for _ in range(k)]


def replays(c):
    return c.compiled.counts


def test_numpy_gradient_and_hvp_replay_equal_eager():
    g, h = ad.gradient_r(rosen), (lambda x, v: ad.hvp(rosen, x, v))
    cg, ch = ad.compile(g), ad.compile(h)
    xs = points(50, 5)
    for x in xs[1:]:
        assert same(cg(x), g(x))
        assert same(ch(x, xs[0]), h(x, xs[0]))
    assert replays(cg)["traced"] == 1 and replays(ch)["traced"] == 1
    assert "eager" not in replays(cg)
    src = cg.source()
    assert "Traced" not in src and "tag" not in src
    assert "empty(" in src or "zeros" in src       # the reverse sweep's arrays, as numpy calls


def test_shapes_and_dtypes_are_kinds_of_their_own():
    g = ad.gradient_r(rosen)
    c = ad.compile(g)
    for x in (np.linspace(0, 1, 5), np.linspace(0, 1, 7), np.linspace(0, 1, 7, dtype=np.float32),
              np.linspace(-1, 1, 5), np.linspace(0, 2, 7, dtype=np.float32)):
        r = c(x)
        assert same(r, g(x))
        assert r.dtype == x.dtype
    assert replays(c)["traced"] == 3


def test_captured_array_mutated_in_place_and_rebound():
    w = np.array([1.0, 2.0, 3.0])
    f = ad.gradient_r(lambda x: np.sum(np.sin(x * w) ** 2))
    c = ad.compile(f)
    x = np.array([0.3, -0.2, 0.5])
    assert same(c(x), f(x))
    w[1] = -4.0                     # in place: the next call must see it
    assert same(c(x), f(x))
    w = np.array([0.5, 0.5, 0.5])   # rebinding the captured name
    assert same(c(x), f(x))
    assert replays(c)["traced"] == 3


def test_data_dependent_masks_and_lengths():
    """Boolean masks make shapes that depend on values; assignment into a tracked array
    (h[h < 0] = 0) as in #17; both traced and replayed with other numbers of positives."""
    def f(x):
        h = np.outer(x, x) - 0.25
        h[h < 0] = 0.0
        return np.sum(h ** 2) + np.sum(x[x > 0] ** 3)
    g = ad.gradient_r(f)
    c = ad.compile(g)
    for k, x in enumerate(points(9, 6, seed=3)):
        assert same(c(x), g(x)), k
    x = np.abs(points(9, 1, seed=4)[0])            # every lane positive: another shape
    assert same(c(x), g(x))


def test_in_place_writes_inside_f():
    def f(x):
        y = x * 2.0
        y[0] = 5.0
        y += x
        z = y[1:]
        z *= 3.0                    # through a view
        return np.sum(y * x)
    g = ad.gradient_r(f)
    c = ad.compile(g)
    for x in points(6, 3, seed=5):
        assert same(c(x), g(x))       # (traced, or eager when the check finds a difference)
    plain = ad.compile(f)              # on plain numbers the writes are numpy's own: replayed
    for x in points(6, 3, seed=5):
        assert same(plain(x), f(x.copy()))
    assert replays(plain)["traced"] == 1, plain.explain()


def test_writes_into_an_argument_run_eagerly_once():
    def f(x):
        x *= 2.0                    # the caller's array
        return x.sum()
    c = ad.compile(f)
    x = np.ones(3)
    assert c(x) == 6.0
    assert np.array_equal(x, [2.0, 2.0, 2.0])      # written once, as F writes it
    assert "writes into its array arguments" in c.explain()
    assert c(x) == 12.0


def test_what_the_tracer_cannot_follow_runs_eagerly():
    f = lambda x: np.sum(x ** 2) * float(np.asarray(x).tolist()[0] > 0)   # noqa: E731
    c = ad.compile(f)
    for x in points(4, 3, seed=6):
        assert same(c(x), f(x))
    assert "runs eagerly" in c.explain()


def test_one_array_twice_and_overlapping_views():
    c = ad.compile(lambda x, y: np.sum(np.sin(x) * y))
    x = np.linspace(0, 1, 6)
    assert c(x, x) == np.sum(np.sin(x) * x)
    assert c(x, x + 1) == np.sum(np.sin(x) * (x + 1))      # another kind: traced again
    assert c(x[1:], x[:-1]) == np.sum(np.sin(x[1:]) * x[:-1])
    assert "share memory" in c.explain()


def test_a_constant_result_is_a_fresh_array_each_call():
    c = ad.compile(lambda x: (np.sum(x), np.zeros(3)))
    a = c(np.ones(2))[1]
    a[0] = 7.0
    b = c(np.ones(2))[1]
    assert np.array_equal(b, np.zeros(3)) and b is not a


def test_results_that_are_two_arrays_eagerly_are_two_arrays_compiled():
    # made once (x * 2.0 twice), or standing for an argument, a replay's array is copied where
    # it would come back twice: writing into one result must not change another, or x
    def f(x):
        y = x * 2.0
        return y, x * 2.0, x, {"y": y, "z": x * 2.0}
    c = ad.compile(f)
    x = np.arange(3.0)
    for _ in range(3):
        a, b, same_x, d = c(x)
        a += 1.0
        assert np.array_equal(b, x * 2.0) and np.array_equal(d["z"], x * 2.0)
        assert same_x is x and d["y"] is a          # F's own sharing is kept
    assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0


def test_logistic_hvp_with_captured_data():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, 5))
    y = np.where(rng.standard_normal(40) > 0, 1.0, -1.0)
    v = rng.standard_normal(5)

    def loss(w):
        return np.sum(np.logaddexp(0.0, -y * (X @ w)))
    for mode in ("fr", "rr"):
        h = (lambda w, mode=mode: ad.hvp(loss, w, v, mode=mode))
        c = ad.compile(h)
        for w in points(5, 3, seed=8):
            assert same(c(w), h(w))
        assert replays(c)["traced"] == 1, c.explain()


def test_mlp_gradient_in_a_dict_of_arrays():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((8, 6))

    def loss(p):
        h = np.tanh(X @ p["W1"] + p["b1"])
        z = h @ p["W2"]
        return np.sum(z - np.log(np.sum(np.exp(z), axis=1, keepdims=True)))
    g = ad.gradient_r(loss)
    c = ad.compile(g)
    for k in range(3):
        p = {"W1": rng.standard_normal((6, 4)), "b1": rng.standard_normal(4),
             "W2": rng.standard_normal((4, 3))}
        assert same(c(p), g(p))
    assert replays(c)["traced"] == 1, c.explain()


PROGRAMS = [
    lambda x: np.sum(np.sin(x) * np.cos(x[::-1])),
    lambda x: np.sum(np.where(x > 0, x ** 2, -x)),
    lambda x: np.prod(1.0 + 0.1 * x),
    lambda x: np.sum(np.maximum(x, 0.0) * x),
    lambda x: np.sum(np.cumsum(x) ** 2),
    lambda x: np.max(x) * np.min(x) + np.mean(x),
    lambda x: np.sum(np.exp(-x[x < 0.5])) + np.linalg.norm(x),
    lambda x: np.sum(np.tanh(np.outer(x, x)) @ x),
    lambda x: np.std(x) + np.sum(np.abs(x)),
    lambda x: np.sum(np.sort(x)[:2]) + x @ x,
]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(range(len(PROGRAMS))), st.sampled_from(["gradient_r", "hvp"]),
       st.lists(st.lists(st.floats(-2, 2), min_size=4, max_size=4), min_size=2, max_size=4))
def test_random_array_programs_compiled_equal_eager(which, op, calls):
    f = PROGRAMS[which]
    v = np.array([0.5, -1.0, 0.25, 2.0])
    F = ad.gradient_r(f) if op == "gradient_r" else (lambda x: ad.hvp(f, x, v))
    c = ad.compile(F)
    for x in calls:
        x = np.array(x)
        assert same(c(x), F(x))


def test_one_array_op_made_once_unless_a_write_comes_between():
    def twice(x):
        return np.sum(np.sin(x) * np.sin(x))

    def written(x):
        a, b = np.sin(x), np.sin(x)
        a += 1.0                    # a is written: b must stay sin(x)
        c = np.cos(x)
        d = c[1:]
        d *= 2.0                    # c is written through a view of it
        return np.sum(a * b) + np.sum(c * np.cos(x))
    for f in (twice, written):
        c = ad.compile(f)
        for x in points(5, 3, seed=11):
            assert same(c(x), f(x))
        assert replays(c)["traced"] == 1, c.explain()
    one, two = ad.compile(twice), ad.compile(written)
    one(np.ones(3)), two(np.ones(3))
    assert one.source().count("sin(") == 1
    assert two.source().count("sin(") == 2 and two.source().count("cos(") == 2


def test_data_dependent_loop_lengths_alternately():
    def f(x):
        while np.max(np.abs(x)) > 1.0:          # a trip count the values decide: guards
            x = x / 2.0
        return np.sum(x ** 3)
    g = ad.gradient_r(f)
    c = ad.compile(g)
    xs = [np.array([0.5, -0.2]), np.array([3.0, 1.0]), np.array([0.4, 0.1]),
          np.array([9.0, -5.0]), np.array([2.5, 0.5])]
    for x in xs + xs:
        assert same(c(x), g(x))
    assert replays(c)["traced"] == 3, c.explain()      # 0, 2 and 4 halvings


def test_fixed_point_of_arrays_inside_a_compiled_gradient():
    def root(a):                        # √a by Heron's iteration, elementwise
        return ad.fixed_point(lambda y: 0.5 * (y + a / y), np.ones_like(a))
    g = ad.gradient_r(lambda a: np.sum(root(a) * a))
    c = ad.compile(g)
    for a in (np.array([4.0, 9.0, 2.0]), np.array([1.5, 16.0, 3.0])):
        r = c(a)
        assert same(r, g(a))
        assert np.allclose(r, 1.5 * np.sqrt(a), rtol=1e-12)      # d/da a^{3/2}


@settings(max_examples=int(__import__("os").environ.get("DVLAD_COMPILE_FUZZ", 40)),
          deadline=None)
@given(st.data())
def test_the_fuzzers_array_programs_agree_compiled_and_eager(data):
    """tests/fuzz_programs.py's array programs (ufuncs, reductions, indexing, linear algebra,
    branches by np.where, float32 and float64): gradients, Jacobians and HVPs compiled, at the
    program's point, at a moved one and back, as eager (and raising where eager raises)."""
    import fuzz_programs as fp
    program = data.draw(fp.array_programs(errors=data.draw(st.booleans())))
    f, x, u = program.function(), program.point, program.direction
    if program.output == "number":
        ops = [ad.gradient_r(f), ad.gradient_f(f)]
        ops += [lambda q, m=m: ad.hvp(f, q, u, m) for m in program.modes or ["fr"]]
    else:
        ops = [ad.jacobian_r(f), ad.jacobian_f(f)]
    moved = np.array(x, copy=True)
    moved[...] = 0.75 * x + 0.125       # (an array still, also at 0-d)
    for F in ops:
        c = ad.compile(F)
        for q in (x, x, moved, x):
            with np.errstate(all="ignore"):
                try:
                    want = F(q.copy())
                except Exception as e:          # noqa: BLE001  (compiled must raise it too)
                    try:
                        c(q.copy())
                    except type(e):
                        continue
                    raise AssertionError(f"eager raised {type(e).__name__}, compiled did not")
                got = c(q.copy())
                assert same(got, want), (got, want, c.explain())


def test_writes_into_arrays_nothing_reads_are_left_out_and_the_others_kept():
    def f(x):
        z = np.zeros_like(x)
        z[0] = 5.0
        w = np.zeros_like(x)
        w[1:] = x[1:] * 2.0         # w is never read: its write is left out
        v = z[1:]
        z[1] = x[0]                 # a write into z after its view v was made: v sees it
        return np.sum(v * x[1:])
    c = ad.compile(f)
    for x in points(4, 3, seed=12):
        assert same(c(x), f(x))
    assert replays(c)["traced"] == 1, c.explain()
    assert c.source().count("setitem") == 2, c.source()


def test_a_write_elsewhere_does_not_stop_one_op_being_made_once():
    def f(x):
        a = x * 3.0
        s1 = np.sin(a)
        b = np.zeros_like(x)
        b[0] = 1.0                  # a write into another array: sin(a) is still sin(a)
        s2 = np.sin(a)
        a[0] = 2.0                  # a write into a: sin(a) is not what it was
        s3 = np.sin(a)
        return np.sum(s1 * s2 + s3 + b)
    c = ad.compile(f)
    for x in points(3, 3, seed=13):
        assert same(c(x), f(x))
    assert replays(c)["traced"] == 1, c.explain()
    assert c.source().count("sin(") == 2, c.source()


def test_structural_zero_lanes_of_seeds_and_cotangents_as_eagerly():
    """A Jacobian's seeds and cotangents are unit arrays: their zero lanes are structural, so
    √′(0) = ∞ there gives 0, not 0·∞ = nan (notes/conventions.md).  Traced seeds are arrays
    too: the trace asks whether a product is finite (a guard), not what it is."""
    def f(x):
        return np.sqrt(x) * x[::-1]
    for op in (ad.jacobian_f, ad.jacobian_r):
        J = op(f)
        c = ad.compile(J)
        for x in (np.array([1.0, 4.0, 9.0]), np.array([0.0, 1.0, 2.0]), np.array([2.0, 3.0, 5.0]),
                  np.array([0.0, 1.0, 2.0])):
            got, want = c(x), J(x)
            assert same(got, want), (op.__name__, x, got, want)
        assert not np.isnan(c(np.array([0.0, 1.0, 2.0]))[1:, 0]).any()


def test_an_answer_that_depends_on_a_value_is_not_a_constant_of_the_trace():
    def f(x):                       # the smallest dtype that holds x[0]: float16, 32 or 64
        return x * np.min_scalar_type(x[0]).itemsize
    c = ad.compile(f)
    for x in (np.array([1.5, 2.0]), np.array([1e10, 2.0]), np.array([1e300, 1.0])):
        assert same(c(x), f(x))


def identical(a, b):
    """Bit for bit, but for the sign of a NaN (which a rewrite may change: dvlad.compile's
    peephole module)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        np.isnan(a), np.isnan(b)) and np.array_equal(
        np.where(np.isnan(a), 0.0, a).view(np.int64), np.where(np.isnan(b), 0.0, b).view(np.int64))


def test_exact_rewrites_give_eagers_bits_with_fewer_numpy_calls():
    # the numpy Rosenbrock HVP: the sweep's multiply by a sum's broadcast ones, -(c·(-y)), a
    # negated product by a constant, and empty + fill(0) are rewritten to fewer calls
    c = ad.compile(lambda x, v: ad.hvp(rosen, x, v))
    special = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1e308, -1e-310, 2.5])
    unzero = np.array([-1.0, np.inf, -np.inf, np.nan, 1e308, -1e-310, 2.5, -3.0])
    for x, v in [points(8, 2, seed=20), (special, unzero), (special, np.ones(8)),
                 (points(8, 1, seed=21)[0], unzero), (-special, unzero[::-1].copy())]:
        want = ad.hvp(rosen, x, v)
        with np.errstate(all="ignore"):
            got = c(x, v)
        assert identical(got, want), (got, want)
    src = c.source()
    assert "empty(" not in src and "fill(" not in src and "zeros(" in src, src
    calls = len(re.findall(r"^ +v\d+ = ", src, re.M))
    assert calls <= 29, src         # 36 before the rewrites (and the forward seed's one pass)


def test_a_product_by_ones_stands_for_its_factor_only_while_neither_is_written():
    ones = np.broadcast_to(1.0, (4,))
    def f(x):
        y = x * 2.0
        z = y * ones                # z is y (bit for bit) ...
        z[0] = 7.0                  # ... but z is written: it must be an array of its own
        w = x * 3.0
        u = w * ones
        w[1] = -1.0                 # w written after u was made from it
        return y, z, u, w * ones
    c = ad.compile(f)
    for x in points(4, 3, seed=22):
        assert same(c(x), f(x))
    assert replays(c)["traced"] == 1, c.explain()


def test_an_elementwise_loop_over_an_array_is_rolled_and_right_to_its_last_iteration():
    # a[i] and the sweep's a[i] = s step with the iteration: they roll into loops, the sweep's
    # constants (0.9**k) read from a list; the sweep's last iterations read a[1] and a[0],
    # made before the loop: they stay straight (read as s[-1] they were silently wrong)
    def f(a):
        s = 0.0
        for i in range(1, len(a)):
            s = s * 0.9 + a[i] * a[i - 1]
        return s
    g = ad.gradient_r(f)
    c = ad.compile(g)
    for n in (60, 600):
        for k, a in enumerate([np.linspace(0.1, 1.0, n), np.cos(np.arange(n)), np.ones(n)]):
            assert np.array_equal(c(a), g(a)), (n, k)
        assert len(c.source()) < 4000, len(c.source())
    weights = [0.5 + 0.01 * i for i in range(80)]

    def h(x):
        s = x
        for w in weights:
            s = s * w + x * x
        return s
    c = ad.compile(ad.derivative(h))
    for x in (0.3, 0.7, -1.1):
        assert c(x) == ad.derivative(h)(x)
    assert "each" in c.source() and len(c.source()) < 4000, c.source()
    weights[40] = 2.0
    assert c(0.7) == ad.derivative(h)(0.7)


def test_a_gradient_through_an_assignment_compiles_and_a_trace_at_zeros_is_checked():
    # under a trace an array cell was its own tape entry, so the assignment's new cell linked
    # to itself and the sweep lost every contribution through it: [0, 0, 0] for every call
    # after a first call where that part was zero (the check moved zeros by a relative amount)
    def f(a):
        b = a * 1.0
        b[1] = a[2] * 3.0
        s = np.sum(b * b)
        b[0] = 2.0
        return s + np.sum(b)
    g = ad.gradient_r(f)
    c = ad.compile(g)
    for x in ([0.0, 0.4, 0.0], [3.0, 1.0, 2.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]):
        assert same(c(np.array(x)), g(np.array(x)))
    assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()


def test_exact_rewrites_never_hand_back_an_argument_or_round_a_long_double():
    ones = np.broadcast_to(1.0, (5,))
    c = ad.compile(lambda x: x[1:] * ones)
    x = np.arange(6.0)
    c(x)
    r = c(x)
    r[0] = 99.0
    assert x.tolist() == list(np.arange(6.0)) and r.flags.c_contiguous
    third = np.broadcast_to(np.longdouble(1) / 3, (2,))
    c = ad.compile(lambda y: third * y)
    for y in (np.array([3.0, 6.0], np.longdouble), np.array([3.0, 9.0], np.longdouble)):
        assert np.array_equal(c(y), third * y)


def test_a_negated_product_is_not_rewritten_past_a_write_into_its_factor():
    # -((-a)·q) is a·q only with the q the product read: q[0] = 5 comes between
    def f(x):
        a = x * 1.5
        q = x * 2.0
        w = (-a) * q
        q[0] = 5.0
        return -w, q
    c = ad.compile(f)
    for x in points(3, 3, seed=23):
        assert same(c(x), f(x))
    assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()


def test_gaussian_process_gradient_by_cholesky_replays_its_reverse_rule_in_one_call():
    """A GP's negative log marginal likelihood through cholesky and solve, n = 80: the replays
    equal eager dvlad, and cholesky's reverse rule (trmm and sygst at n ≥ 64) is one recorded
    call of the replay, as eager dvlad computes it (the reference path: the two solves)."""
    from dvlad.core.switch import REFERENCE
    rng = np.random.default_rng(0)
    n = 80
    x = rng.uniform(0.0, 5.0, (n, 1))
    D2, y = (x - x.T) ** 2, rng.standard_normal(n)
    nlml = gp_nlml_by_cholesky(D2, y)
    g = ad.gradient_r(nlml)
    c = ad.compile(g)
    for theta in ([0.1, 0.2, -1.0], [0.3, -0.1, -0.5], [0.0, 0.0, 0.0], [-0.2, 0.4, -2.0]):
        theta = np.array(theta)
        assert same(c(theta), g(theta))
    assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()
    assert ("chol_congruence(" in c.source()) != REFERENCE


def test_large_elementwise_results_of_a_replay_come_from_the_pool_and_stay_the_callers():
    """A replay spells a ufunc whose result is a large float array with out= a pooled array
    (compile/buffers.py): the same values as eager dvlad, in the dtype numpy chooses (a Python
    float stays weak beside float32), and an array a replay returned — or a view of one —
    keeps its values when the next replays reuse the pool's memory."""
    from dvlad.core import pool

    def f(x):
        y = np.exp(2.0 * x) * x + np.sin(x)
        return y[::2], np.sum(y * y)

    n = 40_000                                   # 320 kB in float64: pooled (threshold 128 kB)
    assert pool.configure()["threshold"] <= 8 * n // 2
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        g = ad.gradient_r(lambda x: f(x)[1])
        cf, cg = ad.compile(f), ad.compile(g)
        xs = [rng.uniform(-1.0, 1.0, n).astype(dtype) for _ in range(4)]
        kept = []
        for x in xs:
            kept.append((cf(x), cg(x)))
            assert same(kept[-1][0], f(x)) and same(kept[-1][1], g(x))
            assert kept[-1][0][0].dtype == dtype and kept[-1][1].dtype == dtype
        for x, (fx, gx) in zip(xs, kept):        # earlier results, after later replays
            assert same(fx, f(x)) and same(gx, g(x))
        assert replays(cf)["traced"] == 1 and replays(cg)["traced"] == 1
        if pool.configure()["on"]:
            assert "out=_out(" in cf.source() and "out=_out(" in cg.source()


def test_matrix_products_in_a_replay_keep_numpys_shapes():
    """matmul is a generalized ufunc (core dimensions): its result's shape is not the operands'
    broadcast, so a replay leaves it to numpy — a row vector times a large square matrix."""
    n = 300
    M = np.random.default_rng(4).standard_normal((n, n))

    def f(x):
        return np.sum(np.tanh(np.matmul(x[None, :], M)) * x)

    g = ad.gradient_r(f)
    for F in (f, g):
        c = ad.compile(F)
        for x in points(n, 3, seed=5):
            assert same(c(x), F(x))
        assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()


def test_large_matrix_products_of_a_replay_come_from_the_pool_and_stay_the_callers():
    """A product of two large 2-d float matrices (numpy's @, or dvlad's matmul in a gradient)
    is spelled with out= a pooled (m, n) array: eager dvlad's values, and a returned product
    keeps its values after later replays."""
    from dvlad.core import pool
    rng = np.random.default_rng(6)
    M = rng.standard_normal((300, 200))

    def f(A):
        return A @ M

    g = ad.gradient_r(lambda A: np.sum(np.tanh(A @ M)))
    for dtype in (np.float64, np.float32):
        cf, cg = ad.compile(f), ad.compile(g)
        As = [rng.standard_normal((250, 300)).astype(dtype) for _ in range(3)]
        if dtype == np.float32:
            M = M.astype(np.float32)
        got = [(cf(A), cg(A)) for A in As]
        for A, (fa, ga) in zip(As, got):
            assert same(fa, f(A)) and same(ga, g(A)) and fa.dtype == ga.dtype == dtype
        assert replays(cf)["traced"] == 1 and replays(cg)["traced"] == 1
        if pool.configure()["on"]:
            assert "out=_out((250, 200)" in cf.source() and "out=_out(" in cg.source()


def test_a_partial_that_branches_per_lane_is_one_recorded_call_taking_eager_lanes():
    """tanh′ is 1 − tanh² for |x| < 2 and sech² beyond (two branches, per element): a replay
    calls the branches as eager dvlad does (that of most lanes on every lane, the other on its
    own), so it equals eager bit for bit on arguments whose lanes split otherwise — mostly
    inside, mostly outside, all inside, all outside — and in float32."""
    def f(x):
        return np.sum(np.tanh(x) * x)

    g, rng = ad.gradient_r(f), np.random.default_rng(8)
    for dtype in (np.float64, np.float32):
        c = ad.compile(g)
        for scale in (1.0, 5.0, 0.5, 30.0, 2.5):
            x = (scale * rng.standard_normal(2000)).astype(dtype)
            got, want = c(x), g(x)
            assert got.dtype == want.dtype == dtype and np.array_equal(got, want)
        assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()
        from dvlad.core.switch import REFERENCE        # (which records both, and a where)
        assert ("select(" in c.source()) != REFERENCE


def test_a_partial_of_numbers_per_lane_is_one_recorded_call_taking_eager_lanes():
    """maximum's partial is 1.0, 0.5 at a tie, else 0.0 per lane (numbers whatever the lanes
    hold): a replay picks them as eager dvlad does (one branch where every lane agrees, else a
    blend by bits), equal to eager bit for bit on lanes split otherwise, all positive, all
    negative, and with exact ties."""
    def f(x):
        return np.sum(np.maximum(0.0, x) * x + np.maximum(x, 0.5 * x))

    g, rng = ad.gradient_r(f), np.random.default_rng(9)
    for dtype in (np.float64, np.float32):
        c = ad.compile(g)
        for x in (rng.standard_normal(3000), np.abs(rng.standard_normal(3000)) + 0.1,
                  -np.abs(rng.standard_normal(3000)) - 0.1,
                  np.where(rng.random(3000) < 0.3, 0.0, rng.standard_normal(3000))):
            x = x.astype(dtype)
            got, want = c(x), g(x)
            assert got.dtype == want.dtype == dtype and np.array_equal(got, want)
        assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()
        from dvlad.core.switch import REFERENCE
        assert ("pick(" in c.source()) != REFERENCE


def test_a_replays_pooled_results_keep_numpys_memory_order():
    """numpy gives an elementwise result of column-major operands in column-major order; a
    replay leaves such operations to numpy, so its results have eager's layout and values."""
    M = np.asfortranarray(np.random.default_rng(10).standard_normal((300, 400)))

    def f(x):
        return np.exp(M * x) + M

    def g(x):                        # (a new axis of one element: a column-major layout still)
        y = x[:, :, None] * 3.0
        return y, np.sum(y * 1.1)

    c, cg = ad.compile(f), ad.compile(g)
    for x in (0.5, 0.25, -0.125):
        got, want = c(x), f(x)
        assert same(got, want) and got.flags.f_contiguous == want.flags.f_contiguous
        (y, s), (y0, s0) = cg(x * M[:200, :200]), g(x * M[:200, :200])
        assert y.strides == y0.strides and np.array_equal(y, y0) and s == s0
    assert replays(c)["traced"] == 1 and replays(cg)["traced"] == 1, c.explain()


def test_a_recorded_pick_replays_lanes_that_all_agree_and_lanes_that_do_not():
    """maximum′ through a broadcast reduction and an index, replayed on lanes that all agree
    (eager dvlad's pick answers one number there; the recorded one, an array of it, the type
    the trace saw) and on mixed ones: eager's values, bit for bit, every call a replay."""
    def f(x):
        d = np.maximum(x, 0.0)
        return np.sum(d[:, ::2] * np.sum(d, axis=1, keepdims=True)) + d[1, 2]

    g = ad.gradient_r(f)
    c, rng = ad.compile(g), np.random.default_rng(11)
    for x in (rng.standard_normal((40, 30)), np.abs(rng.standard_normal((40, 30))) + 0.1,
              -np.abs(rng.standard_normal((40, 30))) - 0.1, rng.standard_normal((40, 30))):
        assert np.array_equal(c(x), g(x))
    assert replays(c)["traced"] == 1 and replays(c)["eager"] == 0, c.explain()
