"""dvlad.pool: reused memory for large arrays, handed out again only when nothing else holds it.

The array tests of test_arrays.py and test_array_fast_paths.py also run with every array pooled
(threshold 0), so that the pooled paths see every primitive: the last test here runs them in a
pytest of their own with DVLAD_POOL_THRESHOLD=0 (tests/conftest.py reads it).
"""
import gc
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import numpy as np
import pytest

import dvlad
from dvlad import pool
from dvlad.modes.api import record
from dvlad.numbers.tape import FREED, entry_primal
from support import rosenbrock as rosen, rosenbrock_gradient as rosen_grad, rosenbrock_hvp as rosen_hvp

N = 40_000                   # 320 KB of float64: above the default threshold


@pytest.fixture(autouse=True)
def every_array_pooled():
    before = pool.configure()
    pool.configure(threshold=0)
    yield
    pool.configure(limit=before["limit"], threshold=before["threshold"])


OFF = "the pool is off (DVLAD_REFERENCE=1: fast paths off): it hands nothing out again"


def _point(n=N):
    i = np.arange(n)
    return 0.5 + 0.4 * np.sin(i), np.cos(i)


@pytest.mark.skipif(not pool.configure()["on"], reason=OFF)
def test_an_array_is_handed_out_again_only_once_nothing_holds_it():
    shape, dtype = (1234,), np.float64            # a shape no other test uses
    a = pool.empty(shape, dtype)
    b = pool.empty(shape, dtype)
    assert a is not b and a.shape == shape and a.dtype == dtype
    address, count = a.ctypes.data, pool.stats()["arrays"]
    del a
    c = pool.empty(shape, dtype)        # the only one not in use: a's memory again
    assert c.ctypes.data == address and pool.stats()["arrays"] == count
    d = pool.empty(shape, dtype)        # b and c held: a new one
    assert d.ctypes.data not in (b.ctypes.data, c.ctypes.data)
    assert pool.stats()["arrays"] == count + 1
    assert pool.empty((1000,), np.float32).dtype == np.float32


@pytest.mark.skipif(pool.configure()["on"], reason="the pool is on")
def test_an_off_pool_holds_nothing_and_every_array_is_new():
    x, v = _point()
    a = pool.empty((1234,), np.float64)
    assert np.allclose(dvlad.hvp(rosen, x, v), rosen_hvp(x, v), rtol=1e-13, atol=1e-10)
    assert pool.stats() == {"arrays": 0, "bytes": 0, "free": 0}
    assert a.base is None and a.flags.owndata


def test_an_array_someone_observes_by_weak_reference_is_not_reused():
    """A WeakValueDictionary of results must never see another result in their place."""
    x, _ = _point()
    cache = weakref.WeakValueDictionary()
    g = dvlad.gradient_r(rosen)(x)
    cache["x"] = g
    want = g.copy()
    del g
    for k in range(3):
        dvlad.gradient_r(rosen)(x + k + 1.0)
    kept = cache.get("x")
    assert kept is None or np.array_equal(kept, want)


def test_an_array_changed_by_its_holder_is_let_go():
    x, _ = _point()
    s = dvlad.sin(x)
    s.shape = (1, N)                      # changes the pooled array itself
    del s
    c = dvlad.cos(x)
    assert c.shape == (N,) and np.array_equal(c, np.cos(x))
    g = dvlad.gradient_r(rosen)(x)
    g.flags.writeable = False
    del g
    assert np.allclose(dvlad.gradient_r(rosen)(x), rosen_grad(x), rtol=1e-13, atol=1e-10)


def test_private_copies_come_from_the_pool_and_hold_the_value_f_used():
    """Reverse mode copies a writeable captured constant into a pooled array, reused from call
    to call; a write into the constant after its use, between calls, or before a kept pullback
    runs reaches no derivative."""
    rng = np.random.default_rng(5)
    X0, w = rng.standard_normal((N // 10, 10)), rng.standard_normal(10)    # 320 KB
    X = X0.copy()

    def f(u):
        r = np.sum((X @ u) ** 2)
        X[:] = 0.0                          # after its use, before the sweep
        return r
    want = 2.0 * X0.T @ (X0 @ w)
    for k in range(3):                      # the second and third copies reuse the first's memory
        X[:] = X0
        np.testing.assert_allclose(dvlad.gradient_r(f)(w), want, rtol=1e-12)
    X[:] = X0
    y, back = dvlad.vjp(lambda u: np.sum((X @ u) ** 2), w)
    X[:] = 3.0 * X0                         # before the pullback runs, with other calls between
    for k in range(3):
        np.testing.assert_allclose(dvlad.gradient_r(lambda u: np.sum((X @ u) ** 2))(w),
                                   9.0 * want, rtol=1e-12)
    np.testing.assert_allclose(back(1.0), want, rtol=1e-12)


def test_a_pooled_copy_handed_out_again_is_no_longer_private():
    X = np.random.default_rng(6).standard_normal((N // 10, 10))
    c = pool.private_copy(X)
    assert c is not X and np.array_equal(c, X)
    assert (type(pool.handle(c)) is tuple) is pool.configure()["on"]        # a pooled array
    from dvlad.core.switch import REFERENCE             # (which always copies)
    assert (pool.private_copy(c) is c) is not REFERENCE                     # no second copy
    assert (pool.private_copy(c[1:]).base is c) is not REFERENCE
    address = c.ctypes.data
    del c
    d = pool.empty(X.shape, X.dtype)        # the copy's memory again, for another use
    if pool.configure()["on"]:
        assert d.ctypes.data == address
    assert pool.private_copy(d) is not d    # anyone may write d now: copied


def test_results_keep_numpy_s_types_and_layouts():
    z = dvlad.mul(np.array(2.0), 3.0)     # 0-d: numpy gives a scalar
    assert type(z) is np.float64 and z == 6.0
    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    r = dvlad.mul(f, 2.0)
    assert r.flags.f_contiguous and np.array_equal(r.ravel("K"), (f * 2.0).ravel("K"))
    pool.configure(limit=0)
    try:
        assert type(dvlad.mul(np.array(2.0), 3.0)) is np.float64
    finally:
        pool.configure(limit=1 << 28)


def test_a_view_keeps_its_array():
    a = pool.empty((1000,), np.float64)
    view = a[10:]
    ref = weakref.ref(a)
    del a
    released = pool.released(ref)
    assert not released
    others = [pool.empty((1000,), np.float64) for _ in range(3)]
    assert all(b.base is None and not np.shares_memory(b, view) for b in others)
    del view
    released = pool.released(ref)
    assert released


def test_results_the_caller_keeps_are_never_overwritten():
    x, v = _point()
    g = dvlad.gradient_r(rosen)
    g1, h1 = g(x), dvlad.hvp(rosen, x, v)
    tail = g1[1:]                               # only a view kept of this one
    want_tail, want_h1 = tail.copy(), h1.copy()
    g2 = g(x + 0.25)
    h2 = dvlad.hvp(rosen, x - 0.25, 2 * v)
    del g1
    dvlad.hvp(rosen, x + 1.0, v)
    assert np.array_equal(tail, want_tail) and np.array_equal(h1, want_h1)
    assert np.allclose(tail, rosen_grad(x)[1:], rtol=1e-13, atol=1e-10)
    assert np.allclose(h1, rosen_hvp(x, v), rtol=1e-13, atol=1e-10)
    assert np.allclose(g2, rosen_grad(x + 0.25), rtol=1e-13, atol=1e-10)
    assert np.allclose(h2, rosen_hvp(x - 0.25, 2 * v), rtol=1e-13, atol=1e-10)


def test_values_inside_f_stay_valid_while_f_holds_them():
    x, _ = _point()
    kept = {}

    def f(u):
        s = np.sin(u)
        kept["s"] = s.primal                        # a plain array the user holds
        t = np.cos(u) * 3.0                         # more work: would reuse a released array
        return np.sum(s * t)

    dvlad.gradient_r(f)(x)
    dvlad.gradient_r(f)(x + 1.0)
    assert np.array_equal(kept["s"], np.sin(x + 1.0))


def test_the_tape_shows_a_released_array_as_freed():
    x, _ = _point(2_000)
    seen = {}

    def f(u):
        p = u * u                                   # read by no partial: released while f runs
        q = np.sin(u)                               # read by the product's partial: kept
        seen["p"], seen["q"] = weakref.ref(p.primal), weakref.ref(q.primal)
        return np.sum(p * 2.0 + q * u)

    rec = record(f, x, "test", scalar=True)
    released = pool.released(seen["p"]), pool.released(seen["q"])
    assert released == (True, False)
    shown = [entry_primal(e) for e in rec.tape]
    assert shown[1] is FREED and np.array_equal(shown[2], np.sin(x))      # u·u, sin(u)


def test_a_tape_picture_never_shows_memory_handed_out_again():
    x = np.linspace(0.1, 1.0, 20_000)

    def f(u):
        p = u * u
        return np.sum(np.sin(p) * 2.0)

    pooled = dvlad.tape_text(f, x)
    pool.configure(limit=0)
    try:
        plain = dvlad.tape_text(f, x)
    finally:
        pool.configure(limit=1 << 28)
    body = [t.split("\n", 1)[1] for t in (pooled, plain)]         # (the tags' numbers differ)
    assert body[0] == body[1] and "freed" in body[1]


def test_the_free_count_is_measured_right_under_a_debugger():
    """A tracer that reads frame locals (pdb, IDE debuggers) adds references to them; the count
    the pool trusts must not grow with it (a count too high hands out arrays in use)."""
    def tracer(frame, event, arg):
        frame.f_locals
        return tracer

    before = sys.gettrace()             # a coverage tracer or a debugger's: given back after
    sys.settrace(tracer)
    try:
        measured = pool._free_count()
    finally:
        sys.settrace(before)
    assert measured == pool._FREE == 3


@pytest.mark.skipif(not pool.configure()["on"], reason=OFF)
def test_limit_zero_turns_the_pool_off_and_clear_gives_memory_back():
    x, v = _point()
    gc.collect()                        # arrays left in reference cycles: let go now, not mid-test
    pool.clear()
    held = pool.stats()["bytes"]        # arrays still in use somewhere stay counted
    pool.configure(limit=0)
    try:
        assert np.allclose(dvlad.hvp(rosen, x, v), rosen_hvp(x, v), rtol=1e-13, atol=1e-10)
        assert pool.stats()["bytes"] <= held
    finally:
        pool.configure(limit=1 << 28)
    kept = dvlad.gradient_r(rosen)(x)
    pooled = pool.stats()
    assert pooled["bytes"] >= held + kept.nbytes and pooled["free"] >= 1
    pool.clear()
    assert pool.stats()["free"] == 0 and pool.stats()["bytes"] == held + kept.nbytes
    del kept
    pool.clear()
    assert pool.stats()["bytes"] == held


def test_the_limit_bounds_what_the_pool_holds():
    x, v = _point()
    gc.collect()                        # arrays left in reference cycles would count as held
    pool.clear()
    pool.configure(limit=3 * x.nbytes)
    try:
        assert np.allclose(dvlad.hvp(rosen, x, v), rosen_hvp(x, v), rtol=1e-13, atol=1e-10)
        assert pool.stats()["bytes"] <= 3 * x.nbytes
    finally:
        pool.configure(limit=1 << 28)


def test_small_arrays_are_not_pooled_at_the_default_threshold():
    pool.configure(threshold=1 << 17)
    before = pool.stats()["arrays"]
    x, v = _point(1000)
    dvlad.hvp(rosen, x, v)
    assert pool.stats()["arrays"] == before


def test_float32_stays_float32():
    x, v = _point()
    x32, v32 = x.astype(np.float32), v.astype(np.float32)
    g = dvlad.gradient_r(rosen)(x32)
    h = dvlad.hvp(rosen, x32, v32)
    assert g.dtype == np.float32 and h.dtype == np.float32
    assert np.allclose(g, rosen_grad(x32.astype(np.float64)), rtol=1e-4, atol=1e-2)


def test_threads_share_the_pool_safely():
    points = [_point(20_000 + 1000 * k) for k in range(4)]
    want = [rosen_hvp(x, v) for x, v in points]
    got = [[None] * 6 for _ in points]

    def work(k):
        x, v = points[k]
        for r in range(6):
            got[k][r] = dvlad.hvp(rosen, x, v)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        for r in range(6):
            assert np.allclose(got[k][r], want[k], rtol=1e-13, atol=1e-10)


# pytest in a process of its own, then a check that tests/conftest.py did pool every array
POOLED_PYTEST = """import sys, pytest
from dvlad import pool
status = pytest.main(sys.argv[1:])
assert pool.configure()["threshold"] == 0, "DVLAD_POOL_THRESHOLD=0 was not applied"
sys.exit(status)
"""


def test_the_array_tests_pass_with_every_array_pooled(request):
    """test_arrays.py and test_array_fast_paths.py run again (~6 s), every array pooled from the
    start: with DVLAD_POOL_THRESHOLD=0 tests/conftest.py sets the pool's threshold to 0.  (On the
    fast path even when this suite runs with DVLAD_REFERENCE=1, which turns the pool off.)"""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, DVLAD_POOL_THRESHOLD="0")
    env.pop("DVLAD_REFERENCE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    args = ["tests/test_arrays.py", "tests/test_array_fast_paths.py", "-q", "-n", "0",
            "-p", "no:cacheprovider"]
    if request.config.getoption("--runslow"):
        args.append("--runslow")
    run = subprocess.run([sys.executable, "-c", POOLED_PYTEST, *args], cwd=root, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (
        f"--- stdout\n{run.stdout[-6000:]}\n--- stderr\n{run.stderr[-2000:]}")
    assert " passed" in run.stdout.splitlines()[-1], run.stdout[-2000:]
