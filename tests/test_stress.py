"""CASES.md section 4, the stress rows: long tapes without recursion, memory released, a DAG with
2²⁰⁰ paths in linear time, threads running nested derivatives, and the garbage collector restored.

The 10⁶-operation runs are marked slow (opt in with --runslow); the same checks at 10⁵ operations
run by default.
"""
import gc
import math
import sys
import threading
import tracemalloc
from contextlib import contextmanager

import pytest

import dvlad
from dvlad import Bundle, TapeCell
from support import OPS, R, run_threads  # noqa: E402


@contextmanager
def recursion_limit(n):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(n)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def sum_chain(n):
    """y = x; y = y + x, n times: n operations, one chain n cells deep; f′ = n + 1 exactly."""
    def f(x):
        y = x
        for _ in range(n):
            y = y + x
        return y
    return f


def sin_chain(n):
    """y ← sin(y)·0.5 + x, n/3 times (n operations): a nonlinear chain n cells deep."""
    def f(x):
        y = x
        for _ in range(n // 3):
            y = dvlad.sin(y) * 0.5 + x
        return y
    return f


def live_tape_cells():
    return sum(1 for o in gc.get_objects() if type(o) is TapeCell)


def _check_long_tape(n):
    assert dvlad.gradient_r(sum_chain(n))(1.0) == float(n + 1)
    f = sin_chain(n)
    reverse = dvlad.gradient_r(f)(1.0)
    forward = dvlad.derivative(f)(1.0)           # forward mode has no tape to walk
    assert type(reverse) is float
    assert reverse == pytest.approx(forward, rel=1e-12)
    # the chain has converged to the fixed point y = sin(y)/2 + 1: dy/dx = 1 / (1 − cos(y)/2)
    y = 1.0
    for _ in range(200):
        y = math.sin(y) * 0.5 + 1.0
    assert reverse == pytest.approx(1.0 / (1.0 - math.cos(y) * 0.5), rel=1e-12)


# ---- long tapes ------------------------------------------------------------------------------

def test_tape_1e5_operations_under_recursion_limit_400():
    with recursion_limit(400):
        _check_long_tape(10 ** 5)
    assert sys.getrecursionlimit() != 400


@pytest.mark.slow
def test_tape_1e6_operations():
    _check_long_tape(10 ** 6)


@pytest.mark.slow
def test_tape_1e6_operations_under_recursion_limit_400():
    with recursion_limit(400):
        _check_long_tape(10 ** 6)
        # and the tape, one chain 10⁶ cells deep, is freed without recursing either
        y, back = dvlad.vjp(sum_chain(10 ** 6), 1.0)
        assert y == 1000001.0
        assert back(2.0) == 2000002.0
        del back


def test_tape_1e5_forward_over_reverse_under_recursion_limit_400():
    """A nested sweep over a long tape: d/dx of ∇(x·Σ) where Σ = (n+1)x, so f = (n+1)x², f″ = 2(n+1)."""
    n = 10 ** 5
    chain = sum_chain(n)
    with recursion_limit(400):
        assert dvlad.derivative(R(lambda x: x * chain(x)))(1.0) == 2.0 * (n + 1)


# ---- memory released -----------------------------------------------------------------------

def _check_cells_freed(n):
    f = sum_chain(n)
    gc.collect()                           # earlier tests' exception tracebacks hold cells in cycles
    before = live_tape_cells()
    y, back = dvlad.vjp(f, 1.0)
    held = live_tape_cells()
    assert held - before >= n              # the count does see a held tape
    assert back(1.0) == float(n + 1)
    del back
    assert live_tape_cells() == before     # dropping the pullback frees the tape
    assert dvlad.gradient_r(f)(1.0) == float(n + 1)
    assert live_tape_cells() == before     # gradient_r keeps nothing


def test_memory_released_tape_cells_1e5():
    _check_cells_freed(10 ** 5)


@pytest.mark.slow
def test_memory_released_tape_cells_1e6():
    _check_cells_freed(10 ** 6)


def _check_tracemalloc(n):
    f = sum_chain(n)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = dvlad.gradient_r(f)(1.0)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result == float(n + 1)
    assert peak - base > 100 * n            # the tape really was built (≈ 300 bytes a cell)
    assert current - base < (peak - base) / 20, (current - base, peak - base)


def test_memory_released_tracemalloc_1e5():
    _check_tracemalloc(10 ** 5)


@pytest.mark.slow
def test_memory_released_tracemalloc_1e6():
    _check_tracemalloc(10 ** 6)


# ---- sharing: a DAG with 2²⁰⁰ paths ---------------------------------------------------------

def doubling(x):
    for _ in range(200):
        x = x + x
    return x


def test_sharing_2_pow_200_paths_reverse():
    g = dvlad.gradient_r(doubling)(1.0)
    assert type(g) is float
    assert g == 2.0 ** 200
    y, back = dvlad.vjp(doubling, 3.0)
    assert y == 3.0 * 2.0 ** 200
    assert back(1.0) == 2.0 ** 200
    assert back(0.5) == 2.0 ** 199


def test_sharing_2_pow_200_paths_int_exact():
    assert dvlad.gradient_r(doubling)(1) == 2 ** 200
    assert dvlad.derivative(doubling)(1) == 2 ** 200


@pytest.mark.parametrize("mm", ["FF", "FR", "RF", "RR"])
def test_sharing_2_pow_200_paths_nested(mm):
    """f(x) = 2²⁰⁰·x², built from the shared DAG: f′(3) = 3·2²⁰¹, f″ = 2²⁰¹, in every mix."""
    def f(x):
        return doubling(x) * x
    assert OPS[mm[1]](f)(3.0) == 3.0 * 2.0 ** 201
    assert OPS[mm[0]](OPS[mm[1]](f))(3.0) == 2.0 ** 201
    assert OPS[mm[0]](OPS[mm[1]](doubling))(3.0) == 0.0


def test_sharing_wide_fan_out():
    """One cell used 100 times, each use a 200-deep doubling: 100·2²⁰⁰ paths, exact gradient."""
    def f(x):
        s = 0.0
        base = x * 1.0
        for k in range(100):
            s = s + doubling(base) * float(k)
        return s
    assert dvlad.gradient_r(f)(1.0) == 2.0 ** 200 * sum(range(100))


# ---- threads -------------------------------------------------------------------------------

def _thread_cases(D, E):
    """(thunk, expected) for rows of CASES.md section 1 with outer operator D, inner E."""
    def one(x):
        return E(lambda y: x + y)(3.0)

    def ident(x):
        return E(lambda y: x * y)(3.0)

    leak = []
    E(lambda x: (leak.append(x * x), x * x)[1])(3.0)

    return [
        (lambda: D(one)(7.0), 0.0),
        (lambda: D(lambda x: x * one(x))(7.0), 1.0),
        (lambda: D(lambda x: x * one(2 * x))(7.0), 1.0),
        (lambda: D(lambda y: E(lambda x: x * (x * y))(3 * y))(5.0), 60.0),
        (lambda: D(lambda x: x * E(lambda y: x + y)(1.0))(1.0), 1.0),
        (lambda: D(lambda x: x * E(lambda y: x * y)(2.0))(1.0), 2.0),
        (lambda: D(lambda x: x * ident(x))(7.0), 14.0),
        (lambda: D(lambda y: E(lambda x: x * (x * y))(2 * y))(2.0), 16.0),
        (lambda: D(lambda x: E(lambda y: x * y * y)(x))(3.0), 12.0),
        (lambda: D(E(dvlad.sqrt))(4.0), -0.03125),
        (lambda: D(lambda y: y * leak[0])(2.0), 9.0),
        (lambda: dvlad.hvp(lambda p: 2 * p[0] ** 2 + 3 * p[0] * p[1] + 4 * p[1] ** 2,
                           (3.0, 4.0), (9.0, 10.0)), (66.0, 107.0)),
        # x* = √a by Newton's map, a fixed point: d/da (a·√a) = √a + a/(2√a) = 3 at a = 4
        (lambda: D(lambda a: a * dvlad.fixed_point(lambda x: 0.5 * (x + a / x), 1.0))(4.0), 3.0),
    ]


def test_threads_nested_derivatives_zero_wrong_answers():
    threads_stress(8, 500)


@pytest.mark.slow
def test_threads_nested_derivatives_zero_wrong_answers_at_scale():
    """Issue #16's figure: 8 threads × 10⁵ nested derivative calls each (8·10⁵ in all), 0 wrong
    (about 70 s: opt in with --runslow)."""
    threads_stress(8, 100_000)


def threads_stress(n_threads, per_thread):
    """n_threads threads, each running per_thread nested derivative calls of every mix of modes
    (fixed points inside derivatives among them), switching every 10 µs: none is wrong."""
    wrong = []
    done = []
    lock = threading.Lock()
    start = threading.Barrier(n_threads)
    mixes = ["FF", "FR", "RF", "RR"]

    def worker(k):
        start.wait()
        bad, count = [], 0
        for i in range(per_thread):
            mm = mixes[(i + k) % 4]
            cases = _thread_cases(OPS[mm[0]], OPS[mm[1]])
            thunk, expected = cases[(i // 4 + k) % len(cases)]
            try:
                got = thunk()
            except Exception as e:      # an exception is a wrong answer too
                got = e
            count += 1
            if type(got) is not type(expected) or got != expected:
                bad.append((k, i, mm, got, expected))
        with lock:
            wrong.extend(bad)
            done.append(count)

    run_threads(worker, n_threads)
    assert sum(done) == n_threads * per_thread
    assert len(wrong) == 0, wrong[:5]
    assert gc.isenabled()


def test_threads_escaped_values_stay_constants():
    """Each thread leaks a value from one gradient_r and reuses it in a sibling, many times over."""
    n_threads, per_thread = 8, 100
    wrong = []
    lock = threading.Lock()

    def worker(k):
        bad = []
        for i in range(per_thread):
            leak = []
            x0 = float(k + i % 5 + 1)
            dvlad.gradient_r(lambda x: (leak.append(x * x), x * x)[1])(x0)
            got = dvlad.gradient_r(lambda y: y * leak[0])(2.0)
            if isinstance(got, (Bundle, TapeCell)) or got != x0 * x0:
                bad.append((k, i, got))
        with lock:
            wrong.extend(bad)

    run_threads(worker, n_threads)
    assert wrong == []


# ---- the garbage collector is restored -----------------------------------------------------

class Boom(Exception):
    pass


def _raise_inside(x):
    y = x * x
    raise Boom(y)


@pytest.mark.parametrize("enabled", [True, False], ids=["gc-on", "gc-off"])
def test_gc_state_restored(enabled):
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        assert dvlad.gradient_r(lambda x: x * x)(3.0) == 6.0
        assert gc.isenabled() is enabled
        with pytest.raises(Boom):
            dvlad.gradient_r(_raise_inside)(3.0)
        assert gc.isenabled() is enabled
        with pytest.raises(Boom):
            dvlad.vjp(_raise_inside, 3.0)
        assert gc.isenabled() is enabled
        with pytest.raises(dvlad.NotDifferentiableError):
            dvlad.gradient_r(lambda x: (x, x))(3.0)
        assert gc.isenabled() is enabled
        # raised from an inner gradient_r inside an outer one and inside a derivative
        with pytest.raises(Boom):
            dvlad.gradient_r(lambda x: dvlad.gradient_r(_raise_inside)(x))(3.0)
        assert gc.isenabled() is enabled
        with pytest.raises(Boom):
            dvlad.derivative(lambda x: dvlad.gradient_r(_raise_inside)(x))(3.0)
        assert gc.isenabled() is enabled
        # a pullback called later, and a Hessian, leave it alone too
        y, back = dvlad.vjp(lambda x: x * x, 3.0)
        assert back(1.0) == 6.0
        assert dvlad.hessian(lambda p: p[0] * p[1])((1.0, 2.0)) == [[0.0, 1.0], [1.0, 0.0]]
        assert gc.isenabled() is enabled
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def test_gc_restored_after_exception_in_f_with_caught_inner_error():
    """f catches an inner gradient_r's exception and goes on: the outer call still restores."""
    assert gc.isenabled()

    def f(x):
        try:
            dvlad.gradient_r(_raise_inside)(x)
        except Boom:
            pass
        return x * x * x
    assert dvlad.gradient_r(f)(2.0) == 12.0
    assert gc.isenabled()
