"""dvlad.compile: long straight stretches that roll into no loop (a loop whose iterations branch
on their data) replay from a table of blocks (dvlad/operators/compile/tables.py)."""
import random

import pytest
from hypothesis import given, settings, strategies as st

import dvlad as ad
from dvlad.operators.compile import tables
from test_compile import replayed, same


def branchy(x):
    s = 0.0
    for i in range(len(x) - 1):
        a = x[i] * x[i + 1]
        s = s + (a * a if a > 0.1 else ad.sin(a))
    return s


def test_a_loop_that_branches_on_its_data_replays_from_a_table():
    rng = random.Random(0)
    x = [rng.uniform(-1, 1) for _ in range(3000)]
    g = ad.gradient_r(branchy)
    c = ad.compile(g)
    same(c, g, x)
    src = c.source()
    assert len(src) < 2_200, len(src)             # 27 000 operations; straight: 650 kB
    assert "for r_ in rows" in src and "raise _miss(" in src
    near = [v * (1 + 1e-12) for v in x]           # every test answered alike: replayed
    same(c, g, near)
    assert replayed(c, 2), c.explain()
    other = [rng.uniform(-1, 1) for _ in range(3000)]   # other answers: traced again
    same(c, g, other)
    same(c, g, x)
    assert c.compiled.counts["traced"] == 2, c.explain()


def test_a_table_keeps_every_value_read_after_it():
    """The forward values the sweep reads, and F's result read after the table: from V_."""
    rng = random.Random(1)
    x = [rng.uniform(-1, 1) for _ in range(1500)]

    def f(v):
        y = ad.gradient_r(branchy)(v)
        return branchy(v), y[0] * y[-1], y[len(y) // 2:len(y) // 2 + 20]
    c = ad.compile(f)
    same(c, f, x)
    same(c, f, [v * (1 + 1e-12) for v in x])
    assert replayed(c, 2) and "V_[" in c.source(), c.explain()


STEPS = [lambda s, a: s + a * a, lambda s, a: s * 0.5 + ad.sin(a), lambda s, a: s - a,
         lambda s, a: ad.exp(-a * a) + s * a, lambda s, a: s + 0.25]


@st.composite
def branchy_programs(draw):
    """A loop over a list whose iterations choose their step by one or two tests of the data."""
    then, other, third = (draw(st.integers(0, len(STEPS) - 1)) for _ in range(3))
    limit, second = draw(st.floats(-0.5, 0.5)), draw(st.booleans())

    def f(x):
        s = x[0]
        for i in range(len(x) - 1):
            a = x[i] * x[i + 1] + 0.1 * s
            if a > limit:
                s = STEPS[then](s, a)
            elif second and a < -0.3:
                s = STEPS[third](s, a)
            else:
                s = STEPS[other](s, a)
        return s * x[-1]
    return f


@settings(max_examples=30, deadline=None)
@given(branchy_programs(), st.integers(10, 40), st.integers(0, 10 ** 6),
       st.sampled_from(["r", "f", "fr"]))
def test_random_branching_loops_agree_compiled_and_eager(f, n, seed, how):
    rng = random.Random(seed)
    x = [rng.uniform(-1, 1) for _ in range(n)]
    v = [rng.uniform(-1, 1) for _ in range(n)]
    F = {"r": ad.gradient_r(f),
         "f": lambda x: ad.derivative(lambda t: f([a + t * b for a, b in zip(x, v)]))(0.0),
         "fr": lambda x: ad.derivative(lambda t: ad.gradient_r(f)(
             [a + t * b for a, b in zip(x, v)]))(0.0)}[how]
    was = tables.TABLE_MIN, tables.SMALLER
    tables.TABLE_MIN, tables.SMALLER = 16, 1         # a table wherever one can be made
    try:
        c = ad.compile(F)
        same(c, F, x)
        same(c, F, x)
        assert replayed(c, 2), c.explain()
        same(c, F, [rng.uniform(-1, 1) for _ in range(n)])
    finally:
        tables.TABLE_MIN, tables.SMALLER = was


@pytest.mark.parametrize("n", [400, 2000])
def test_short_loops_of_one_branch_open_into_the_table_around_them(n):
    """Runs of iterations down one branch roll into short loops that cut the stretch; opened,
    the table covers it all (the shorter source is kept)."""
    rng = random.Random(n)
    x = [rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1) for _ in range(n)]
    for k in range(0, n, 97):           # runs of one sign
        x[k:k + 12] = [abs(t) for t in x[k:k + 12]]
    g = ad.gradient_r(branchy)
    c = ad.compile(g)
    same(c, g, x)
    assert len(c.source()) < 3_000, len(c.source())


def test_values_a_rolled_loop_made_reach_the_table_as_slices_of_its_lists():
    def f(x):
        y = [ad.sin(t) * t + 0.5 for t in x]          # rolled: s0_0, s0_1, s0_3 and l0_…
        s = 0.0
        for i in range(len(y) - 1):
            a = y[i] * y[i + 1]
            s = s + (a * a if a > 0.3 else ad.cos(a))
        return s
    rng = random.Random(2)
    x = [rng.uniform(-1, 1) for _ in range(2000)]
    g = ad.gradient_r(f)
    c = ad.compile(g)
    same(c, g, x)
    same(c, g, [v * (1 + 1e-12) for v in x])
    src = c.source()
    assert replayed(c, 2) and len(src) < 3_000, (c.explain(), len(src))
    assert "V_[2000:9993:4] = s0_0[0:1999]" in src and "V_[9996] = l0_0" in src


def test_a_value_the_next_block_reads_first_is_kept():
    def h(x):
        s = 1.0
        for v in x:
            t = s * v
            s = t + 1.0 if t > 0 else t * t - 1.0
        return s
    rng = random.Random(3)
    x = [rng.uniform(-1.2, 1.2) for _ in range(3000)]
    for F in (h, ad.gradient_r(h)):
        c = ad.compile(F)
        same(c, F, x)
        same(c, F, x)
        assert replayed(c, 2) and "for r_ in" in c.source(), c.explain()


def test_a_result_woven_from_several_lists_is_one_starred_weave():
    """A loop of a fixed period of branches (i % 3): its gradient's elements come from three
    rolled loops' lists in turn, spelled as one weave of three slices, not item by item."""
    def period(x):
        t = 0.0
        for i, v in enumerate(x):
            t = t + (v * v if i % 3 == 0 else ad.sin(v))
        return t
    rng = random.Random(4)
    x = [rng.uniform(0.5, 1.5) for _ in range(3000)]
    g = ad.gradient_r(period)
    c = ad.compile(g)
    same(c, g, x)
    same(c, g, [v * 1.01 for v in x])
    src = c.source()
    assert replayed(c, 2) and len(src) < 1_500 and "*woven(" in src, (c.explain(), len(src))


def test_the_weave_takes_its_lists_in_turn():
    from dvlad.operators.compile.codegen import Names
    from dvlad.operators.compile.outputs import _joined
    names = Names({})
    texts = ["v1"] + [f"s{j}_0[{t if j < 2 else 20 - t}]" for t in range(9) for j in range(3)]
    assert _joined(texts, names) == "v1, *woven(s0_0[0:9], s1_0[0:9], s2_0[20:11:-1])"
    woven = names.ns["woven"]
    assert list(woven([1, 2], "ab", [None, 0])) == [1, "a", None, 2, "b", 0]
    assert _joined(texts[:10], names) == ", ".join(texts[:10])     # 3 in turn: too short


def test_pythons_max_in_a_loop_replays_from_a_table_and_its_zeros_are_picked():
    """max(a, 0.0) is F's own comparison: a guard per element, a table; the gradient holds
    arguments, table values and exact zeros, one starred pick."""
    def f(x):
        s = 0.0
        for i in range(len(x) - 1):
            s = s + max(x[i] * x[i + 1], 0.0)
        return s
    rng = random.Random(5)
    x = [rng.uniform(-1, 1) for _ in range(3000)]
    g = ad.gradient_r(f)
    c = ad.compile(g)
    same(c, g, x)
    same(c, g, [v * (1 + 1e-12) for v in x])
    src = c.source()
    assert replayed(c, 2) and len(src) < 2_000 and "*picked(V_, at" in src, len(src)


def test_a_result_of_table_values_and_zeros_is_one_pick():
    from dvlad.operators.compile.codegen import Names
    from dvlad.operators.compile.outputs import _joined
    names = Names({})
    texts = ["V_[3]", "0.0", "V_[7]", "-0.0", "V_[1]", "V_[9]", "1.5", "V_[2]", "0.0"]
    assert _joined(texts, names) == "*picked(V_, at), 0.0"
    at, picked = names.ns["at"], names.ns["picked"]
    got = picked([10.0 * i for i in range(10)], at)
    assert got == [30.0, 0.0, 70.0, -0.0, 10.0, 90.0, 1.5, 20.0] and str(got[3]) == "-0.0"


def test_negative_constants_among_table_values_are_in_the_pick():
    """A gradient of −v[i] on one branch: −1.0 elements, spelled (-1.0), join the pick (the
    return line spelled each of 10⁵ items: 0.98 MB)."""
    from dvlad.operators.compile.codegen import Names
    from dvlad.operators.compile.outputs import _joined
    names = Names({})
    texts = ["(-1.0)", "V_[3]", "(-1.0)", "V_[7]", "V_[1]", "(-2.5e-3)", "V_[9]", "V_[2]"]
    assert _joined(texts, names) == "*picked(V_, at)"
    assert names.ns["picked"]([10.0 * i for i in range(10)], names.ns["at"]) == [
        -1.0, 30.0, -1.0, 70.0, 10.0, -2.5e-3, 90.0, 20.0]

    def f(v):
        s = 0.0
        for i in range(len(v)):
            s = s + (v[i] * v[i] if v[i] > 0 else -v[i])
        return s
    rng = random.Random(7)
    x = [rng.uniform(-1, 1) for _ in range(3000)]
    g = ad.gradient_r(f)
    c = ad.compile(g)
    same(c, g, x)
    same(c, g, [v * (1 + 1e-12) for v in x])
    assert replayed(c, 2) and len(c.source()) < 2_000, len(c.source())


def test_a_trace_the_roller_cannot_fold_runs_eagerly_rather_than_take_megabytes(monkeypatch):
    """math.sin(x * i) converts each traced value to a float: a guard with its own constant in
    every iteration, nothing to roll.  A trace of more than a byte of source per operation
    (and more than checks.SOURCE_MOST bytes, here made small) is not kept."""
    import math
    from dvlad.operators.compile import checks
    monkeypatch.setattr(checks, "SOURCE_MOST", 1_000)

    def f(x):
        s = 0.0
        for i in range(2000):
            s = s + math.sin(x * i)
        return s
    c = ad.compile(f)
    for x in (0.1, 0.2, 0.1):
        assert c(x) == f(x)
    assert "MB for" in c.explain() and c.compiled.counts["traced"] == 0, c.explain()
