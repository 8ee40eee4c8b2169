"""Issue #3, section 2: escaped perturbations.

A perturbed value (a Bundle or a TapeCell) can escape the derivative call that made it: stored in
a list, a closure's state or a global, then used after the call has returned.  Its tag is dead
then, and dvlad's choice is that the value is a CONSTANT equal to its primal (its older layers,
if their calls are still running, still carry their perturbations).  So:

- it never surfaces as a Bundle or TapeCell inside a later result (results are walked
  recursively by :func:`assert_plain`);
- it is never confused with a live tag: it is not linked on a later tape, and a later forward
  tangent does not see its tangent;
- it converts with ``float()`` once nothing live is left in it.

D = ``derivative``, R = ``gradient_r`` of a function R -> R; "outer"/"inner" name the nesting.
Every expected value is worked out by hand in the comment next to it.
"""
import math
import threading

import pytest

import dvlad
from dvlad import Bundle, TapeCell

D = dvlad.derivative
R = dvlad.gradient_r
OPS = {"D": D, "R": R}
AD_TYPE = {"D": Bundle, "R": TapeCell}
MODES = list(OPS)
PAIRS = [a + b for a in MODES for b in MODES]


def assert_plain(value, path="result"):
    """No Bundle or TapeCell anywhere inside value (tuples, lists, dicts, sets are walked)."""
    assert not isinstance(value, (Bundle, TapeCell)), f"{path} is an AD number: {value!r}"
    if isinstance(value, dict):
        for k, v in value.items():
            assert_plain(v, f"{path}[{k!r}]")
    elif isinstance(value, (list, tuple, set, frozenset)):
        for k, v in enumerate(value):
            assert_plain(v, f"{path}[{k}]")


def leak_square(op, x0=3.0):
    """x·x made inside op's call at x0 and kept after the call returned: the constant x0²."""
    kept = []
    assert op(lambda x: (kept.append(x * x), x * x)[1])(x0) == 2 * x0
    return kept[0]


# ---- 1. a closure that updates captured state across two inner calls ---------------------------

@pytest.mark.parametrize("mm", PAIRS)
@pytest.mark.parametrize("x0", [1.0, 2.0, -0.5])
def test_closure_state_updated_by_two_inner_calls(mm, x0):
    """state[0] = state[0]·y inside g; g differentiated at 2, then at 3, inside an outer call on x.

    By hand, with x = x0 + ε₁ (outer):
      state = x.
      1st inner call, y = 2 + ε₂:  state = x·y = 2x + x·ε₂;  g' = a = x.
        ε₂ dies with the call: state is the constant 2x (it still carries ε₁).
      2nd inner call, y = 3 + ε₃:  state = 2x·y = 6x + 2x·ε₃;  g' = b = 2x.
        ε₃ dies: state is 6x.
      f(x) = a·b + state = 2x² + 6x, so f'(x) = 4x + 6   (10 at x = 1).
    Returning only the state: f(x) = 6x, f'(x) = 6.  Only a·b: 2x², f'(x) = 4x.
    """
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    seen = []

    def make(ret):
        def f(x):
            state = [x]

            def g(y):
                state[0] = state[0] * y
                return state[0]

            a = inner(g)(2.0)
            after_first = state[0]
            b = inner(g)(3.0)
            seen.append((after_first, state[0], x.tag))
            return {"all": lambda: a * b + state[0], "state": lambda: state[0],
                    "ab": lambda: a * b}[ret]()
        return f

    for ret, expected in [("all", 4 * x0 + 6), ("state", 6.0), ("ab", 4 * x0)]:
        got = outer(make(ret))(x0)
        assert_plain(got)
        assert got == expected, (ret, got, expected)

    # What the state held: each time a layer of a dead inner tag over 2x (then 6x), and 2x, 6x
    # are still perturbed by the (then live) outer tag.
    first, last, outer_tag = seen[0]
    assert isinstance(first, AD_TYPE[mm[1]]) and not first.tag.live
    assert first.primal.tag is outer_tag
    assert dvlad.primal(first) == 2 * x0 and dvlad.primal(last) == 6 * x0
    assert last.tag.n > first.tag.n > outer_tag.n


# ---- 2. leaked by one call, reused in a sibling call ----------------------------------------------

@pytest.mark.parametrize("mm", PAIRS)
def test_leaked_value_reused_in_sibling_call(mm):
    """leak = x·x from a finished call at x = 3: the constant 9 (its tangent 6 is gone).

    d/dy (y·9 + 9·9·y·y) at y = 2 is 9 + 162·2 = 333;  d/dy sin(9)·y = sin 9;  d/dy 9 = 0.
    A confused sibling that took the leak's tag for its own would add the leak's tangent 6.
    """
    leak = leak_square(OPS[mm[0]])
    use = OPS[mm[1]]
    assert isinstance(leak, AD_TYPE[mm[0]]) and not leak.tag.live
    for fn, expected in [(lambda y: y * leak + leak * leak * y * y, 333.0),
                         (lambda y: dvlad.sin(leak) * y, math.sin(9.0)),
                         (lambda y: leak, 0.0),
                         (lambda y: leak / y + dvlad.exp(y - leak), -9.0 / 4 + math.exp(-7.0))]:
        got = use(fn)(2.0)
        assert_plain(got)
        assert got == pytest.approx(expected, rel=1e-15)


def test_leaked_cell_is_not_linked_on_a_sibling_tape():
    """Not confused with a live tag: the sibling's tape never links to the leaked cell.

    R(y ↦ y·leak)(2): the product's only link is to y, with partial 9.0 (a float).
    """
    leak = leak_square(R)
    seen = []

    def f(y):
        z = y * leak
        seen.append((z, y.tag, list(y.tag.tape)))
        return z

    assert R(f)(2.0) == 9.0
    z, tag, tape = seen[0]
    assert z.tag is tag and tag is not leak.tag and tag.n > leak.tag.n
    assert len(z.links) == 2 and z.links[0] is tape[0] and z.links[1] == 9.0
    assert type(z.links[1]) is float
    assert all(c.tag is tag and c is not leak for c in tape)


def test_leaked_bundle_tangent_is_not_read_by_a_sibling():
    """D(y ↦ y·leak)(2) with leak = Bundle(dead, 9, 6): the product's tangent is 9, not 9 + 2·6."""
    leak = leak_square(D)
    seen = []
    assert D(lambda y: seen.append(y * leak) or y * leak)(2.0) == 9.0
    (z,) = seen
    assert z.tag is not leak.tag and (z.primal, z.tangent) == (18.0, 9.0)
    assert type(z.tangent) is float


# ---- 3. the same under an outer call: the outer perturbation flows through the leak ---------------

@pytest.mark.parametrize("outer_name", MODES)
@pytest.mark.parametrize("mm", PAIRS)
def test_leak_between_siblings_under_an_outer_call(outer_name, mm):
    """Inside an outer call on x, a first inner call leaks u·x·u at u = 1, i.e. x.

    The leak's own tag is dead, but its primal x = x0 + ε_outer is live and must flow:
      g = d/dy (y·y·leak) at y = 2 = 2·2·x = 4x      (the leak is a constant at the sibling's tag)
      h = d/dy (leak)     at y = 2 = 0
      f(x) = g·x + h + leak = 4x² + x,  f'(x) = 8x + 1   (25 at x0 = 3).
    """
    outer, leak_op, use = OPS[outer_name], OPS[mm[0]], OPS[mm[1]]
    checks = []

    def f(x):
        kept = []
        assert leak_op(lambda u: (kept.append(u * x * u), u)[1])(1.0) == 1.0
        leak = kept[0]
        g = use(lambda y: y * y * leak)(2.0)
        h = use(lambda y: leak)(2.0)
        z = x * leak                              # lifts on the outer tag, not on the dead one
        checks.append((leak.tag.live, leak.tag.n > x.tag.n, z.tag is x.tag,
                       type(g) is AD_TYPE[outer_name] and g.tag is x.tag, h))
        return g * x + h + leak

    got = outer(f)(3.0)
    assert_plain(got)
    assert got == 25.0
    ((live, newer, z_outer, g_outer, h),) = checks
    assert not live and newer and z_outer and g_outer
    assert h == 0.0


@pytest.mark.parametrize("outer_name", MODES)
@pytest.mark.parametrize("mm", PAIRS)
def test_leak_from_a_previous_nested_computation(outer_name, mm):
    """A leak from a whole earlier nested computation, reused inside a later one.

    First computation: outer(x ↦ inner(y ↦ x·y)(1))(3), leaking x·y at y = 1 = 3 (all dead now).
    Second: outer(x ↦ x·inner(y ↦ y·leak)(2))(5) = d/dx (x·3) = 3.
    """
    outer, inner = OPS[outer_name], OPS[mm[1]]
    first_inner = OPS[mm[0]]
    kept = []
    assert outer(lambda x: first_inner(lambda y: (kept.append(x * y), x * y)[1])(1.0))(3.0) == 1.0
    leak = kept[0]
    got = outer(lambda x: x * inner(lambda y: y * leak)(2.0))(5.0)
    assert_plain(got)
    assert got == 3.0


# ---- 4. a leaked value as the input of a later operator ------------------------------------------

LEAK_AS_POINT = [
    # (name, thunk(c) with c the constant 9, expected)
    ("derivative", lambda c: D(lambda y: y * y)(c), 18.0),                 # 2·9
    ("derivative id", lambda c: D(lambda y: y)(c), 1.0),
    ("gradient_r", lambda c: R(lambda y: y * y * y)(c), 243.0),           # 3·81
    ("gradient_r id", lambda c: R(lambda y: y)(c), 1.0),
    ("gradient_r list", lambda c: R(lambda p: p[0] * p[1])([c, 2.0]), [2.0, 9.0]),
    ("gradient_r dict", lambda c: R(lambda d: d["a"] * d["a"])({"a": c}), {"a": 18.0}),
    ("gradient_f", lambda c: dvlad.gradient_f(lambda p: p[0] * p[1])((c, 2.0)), (2.0, 9.0)),
    ("jvp", lambda c: dvlad.jvp(lambda y: y * y, c, 1.0), (81.0, 18.0)),
    ("jvp id", lambda c: dvlad.jvp(lambda y: [y, 2.0 * y], c, 1.0), ([9.0, 18.0], [1.0, 2.0])),
    ("vjp", lambda c: (lambda yb: (yb[0], yb[1](1.0)))(dvlad.vjp(lambda y: y * y, c)),
     (81.0, 18.0)),
    ("vjp id", lambda c: (lambda yb: (yb[0], yb[1](1.0)))(dvlad.vjp(lambda y: y, c)), (9.0, 1.0)),
    ("hessian", lambda c: dvlad.hessian(lambda p: p[0] * p[0] * p[1])([c, 2.0]),
     [[4.0, 18.0], [18.0, 0.0]]),                  # [[2·p1, 2·p0], [2·p0, 0]] at (9, 2)
    ("hvp", lambda c: dvlad.hvp(lambda p: p[0] * p[0] * p[1], (c, 2.0), (1.0, 0.0)), (4.0, 18.0)),
    ("jacobian_f", lambda c: dvlad.jacobian_f(lambda p: [p[0] * p[1], p[0]])([c, 2.0]),
     [[2.0, 9.0], [1.0, 0.0]]),
    ("jacobian_r", lambda c: dvlad.jacobian_r(lambda p: [p[0] * p[1], p[0]])([c, 2.0]),
     [[2.0, 9.0], [1.0, 0.0]]),
    ("function result", lambda c: D(lambda x: lambda y: x * y * c)(c)(c), 81.0),   # ∂x(x·y·9)
]


@pytest.mark.parametrize("leak_mode", MODES)
@pytest.mark.parametrize("name, thunk, expected", LEAK_AS_POINT,
                         ids=[row[0] for row in LEAK_AS_POINT])
def test_leaked_value_as_the_point(leak_mode, name, thunk, expected):
    c = leak_square(OPS[leak_mode])
    got = thunk(c)
    assert_plain(got)
    assert got == expected


LEAK_AS_DIRECTION = [
    # The direction of a jvp and the cotangent of a pullback are inputs too: the constant 9.
    ("jvp direction", lambda c: dvlad.jvp(lambda y: y, 2.0, c), (2.0, 9.0)),
    ("jvp direction, square", lambda c: dvlad.jvp(lambda y: y * y, 2.0, c), (4.0, 36.0)),
    ("directional_derivative", lambda c: dvlad.directional_derivative(lambda y: y, 2.0, c), 9.0),
    ("jvp direction in a structure",
     lambda c: dvlad.jvp(lambda p: (p[0], p[0] * p[1]), (2.0, 3.0), (c, 0.0)),
     ((2.0, 6.0), (9.0, 27.0))),
    ("vjp cotangent", lambda c: dvlad.vjp(lambda y: y, 2.0)[1](c), 9.0),
    ("vjp cotangent, square", lambda c: dvlad.vjp(lambda y: y * y, 2.0)[1](c), 36.0),
    ("vjp cotangent in a structure",
     lambda c: dvlad.vjp(lambda p: (p[0], p[1]), (2.0, 3.0))[1]((c, 1.0)), (9.0, 1.0)),
    ("hvp direction", lambda c: dvlad.hvp(lambda p: p[0] * p[0] * p[1], (1.0, 2.0), (c, 1.0)),
     (38.0, 18.0)),                                # [[4, 2], [2, 0]]·(9, 1)
]


@pytest.mark.parametrize("leak_mode", MODES)
@pytest.mark.parametrize("name, thunk, expected", LEAK_AS_DIRECTION,
                         ids=[row[0] for row in LEAK_AS_DIRECTION])
def test_leaked_value_as_direction_or_cotangent(leak_mode, name, thunk, expected):
    c = leak_square(OPS[leak_mode])
    got = thunk(c)
    assert_plain(got)
    assert got == expected


@pytest.mark.parametrize("outer_name", MODES)
@pytest.mark.parametrize("leak_mode", MODES)
def test_leaked_value_as_input_under_an_outer_call(outer_name, leak_mode):
    """Inside an outer call on x, leak = u·x·x at u = 1 (= x², dead inner tag, live outer one).

    Each later operator takes the leak as its input; what it returns is a function of x:
      D(y ↦ y·y)(leak)            = 2x²     → d/dx = 4x   = 12 at 3
      R(y ↦ y·y·y)(leak)          = 3x⁴     → 12x³        = 324
      jvp(y ↦ y·y, leak, 1)[1]    = 2x²     → 12
      vjp(y ↦ y·y, leak)[1](1)    = 2x²     → 12
      hessian(p ↦ p₀³)([leak])    = [[6x²]] → 12x        = 36
    """
    outer, leak_op = OPS[outer_name], OPS[leak_mode]
    users = [
        (lambda c: D(lambda y: y * y)(c), 12.0),
        (lambda c: R(lambda y: y * y * y)(c), 324.0),
        (lambda c: dvlad.jvp(lambda y: y * y, c, 1.0)[1], 12.0),
        (lambda c: dvlad.vjp(lambda y: y * y, c)[1](1.0), 12.0),
        (lambda c: dvlad.hessian(lambda p: p[0] * p[0] * p[0])([c])[0][0], 36.0),
    ]
    for use, expected in users:
        def f(x):
            kept = []
            leak_op(lambda u: (kept.append(u * x * x), u)[1])(1.0)
            return use(kept[0])
        got = outer(f)(3.0)
        assert_plain(got)
        assert got == expected


# ---- 5. the output of an operator is itself an escaped value --------------------------------------

@pytest.mark.parametrize("mm", PAIRS)
def test_result_is_a_leak_over_the_outer_perturbation(mm):
    """f returns a value escaped from an inner call: x·y at y = 1 under a dead inner tag, i.e. x.

    f(x) = x, so f'(x) = 1, whichever mode is outside.  The outer call must strip the dead top
    layer of f's result and find its own tag under it (returning 0 there is the bug).
    """
    outer, inner = OPS[mm[0]], OPS[mm[1]]

    def f(x):
        kept = []
        inner(lambda y: (kept.append(x * y), y)[1])(1.0)
        return kept[0]

    got = outer(f)(3.0)
    assert_plain(got)
    assert got == 1.0


@pytest.mark.parametrize("inner_name", MODES)
def test_reverse_operators_seed_through_a_dead_top_layer(inner_name):
    """The same escaped output, through vjp, jacobian_r and hessian: f(x) = x and g(p) = p₀²."""
    inner = OPS[inner_name]

    def escaped(v):
        kept = []
        inner(lambda y: (kept.append(v * y), y)[1])(1.0)
        return kept[0]

    y, back = dvlad.vjp(escaped, 3.0)
    assert (y, back(1.0)) == (3.0, 1.0)
    assert dvlad.jacobian_r(lambda p: [escaped(p[0])])([3.0]) == [[1.0]]
    assert dvlad.hessian(lambda p: escaped(p[0] * p[0]))([3.0]) == [[2.0]]


@pytest.mark.parametrize("inner_name", MODES)
def test_tape_pictures_seed_through_a_dead_top_layer(inner_name):
    """tape_text/tape_graph of the escaped output f(x) = x·1: the product cell is the output,
    with sensitivity 1, and x gets 1 too (not 'does not depend on the input')."""
    inner = OPS[inner_name]

    def escaped(v):
        kept = []
        inner(lambda y: (kept.append(v * y), y)[1])(1.0)
        return kept[0]

    text = dvlad.tape_text(escaped, 3.0)
    assert "does not depend" not in text
    lines = text.splitlines()
    assert lines[1].startswith("  #0  x ") and lines[1].endswith("sensitivity 1.0")
    assert sum(line.endswith("sensitivity 1.0  <- output") for line in lines) == 1
    assert "peripheries=2" in dvlad.tape_graph(escaped, 3.0)


# ---- 6. float(): a dead value converts, a live one raises -----------------------------------------

@pytest.mark.parametrize("m", MODES)
def test_float_of_dead_value_works_and_of_live_value_raises(m):
    live_errors = []

    def f(x):
        for convert in (float, complex, math.sin):
            try:
                convert(x * x)
            except dvlad.PerturbedConversionError as e:
                live_errors.append(e)
        return x * x

    kept = []
    OPS[m](lambda x: (kept.append(x * x), f(x))[1])(3.0)
    assert len(live_errors) == 3 and all(isinstance(e, TypeError) for e in live_errors)
    leak = kept[0]
    assert not leak.tag.live
    assert float(leak) == 9.0 and type(float(leak)) is float
    assert complex(leak) == 9.0 + 0j
    assert math.sin(leak) == math.sin(9.0)
    assert math.sqrt(leak) == 3.0


@pytest.mark.parametrize("mm", PAIRS)
def test_float_of_leak_that_still_carries_a_live_outer_tag(mm):
    """Dead on top but x under it: float() raises while the outer call runs, works after."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    kept, raised = [], []

    def f(x):
        inner(lambda u: (kept.append(u * x), u)[1])(1.0)
        try:
            float(kept[0])
        except dvlad.PerturbedConversionError as e:
            raised.append(e)
        return kept[0] * x                         # x²

    assert outer(f)(3.0) == 6.0
    assert len(raised) == 1
    assert float(kept[0]) == 3.0                   # both tags dead now


# ---- 7. threads: a value leaked in one thread, used in another -----------------------------------

@pytest.mark.parametrize("mm", PAIRS)
def test_value_leaked_in_one_thread_used_in_another(mm):
    """Thread A's call returns, then thread B uses what A leaked: the constant 9.

    B computes d/dy (y·9) at 2 = 9, the derivative taking the leak as input (2·9 = 18), and
    float() of it (9.0).  B also keeps computing after A ran further calls of its own.
    """
    leak_op, use = OPS[mm[0]], OPS[mm[1]]
    box, results, errors = [], [], []
    leaked, a_more = threading.Event(), threading.Event()

    def thread_a():
        try:
            box.append(leak_square(leak_op))
            leaked.set()
            for k in range(50):                     # more calls, more (newer) tags in A
                leak_op(lambda x: x * x)(float(k))
        except Exception as e:                      # pragma: no cover - reported below
            errors.append(e)
        finally:
            leaked.set()
            a_more.set()

    def thread_b():
        try:
            leaked.wait(5)
            c = box[0]
            results.append(use(lambda y: y * c)(2.0))
            results.append(use(lambda y: y * y)(c))
            a_more.wait(5)
            results.append(float(c))
            results.append(use(lambda y: D(lambda z: z * c * y)(1.0))(2.0))  # d/dy (9y) = 9
        except Exception as e:                      # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == []
    assert_plain(results)
    assert results == [9.0, 18.0, 9.0, 9.0]


def test_threads_use_each_others_leaks_concurrently():
    """8 threads each leak k² (k = 1..8), then all of them, at once, use every thread's leak in
    nested calls: d/dx [x · d/dy (y · leak_j)] at 1 = leak_j, and R(y ↦ y · leak_j)(2) = leak_j."""
    n = 8
    leaks = [None] * n
    barrier = threading.Barrier(n)
    wrong, errors = [], []
    lock = threading.Lock()

    def worker(k):
        try:
            leaks[k] = leak_square(OPS[MODES[k % 2]], float(k + 1))
            barrier.wait(10)
            bad = []
            for rep in range(20):
                for j in range(n):
                    c = leaks[(j + k + rep) % n]
                    expected = dvlad.primal(c)
                    for got in (D(lambda x: x * R(lambda y: y * c)(1.0))(1.0),
                                R(lambda x: x * D(lambda y: y * c)(1.0))(1.0),
                                R(lambda y: y * c)(2.0)):
                        if isinstance(got, (Bundle, TapeCell)) or got != expected:
                            bad.append((k, j, got, expected))
            with lock:
                wrong.extend(bad)
        except Exception as e:                      # pragma: no cover - reported below
            with lock:
                errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert wrong == []
    assert [dvlad.primal(c) for c in leaks] == [float((k + 1) ** 2) for k in range(n)]
