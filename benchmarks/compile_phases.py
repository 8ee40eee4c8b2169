"""Where a compiled function's time goes, for (b) (gradient_r of the Rosenbrock loop): the first
call phase by phase (tracing, simplify, live, the roll), and a replay against the call around it.

    python benchmarks/compile_phases.py [n]        # n = 10 000 by default

Each phase is timed by a wrapper around its function, in one process (benchmarks/RESULTS.md).
"""
import functools
import os
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import dvlad as ad  # noqa: E402
from dvlad.operators.compile import codegen, loops, reroll  # noqa: E402
from workloads import rosen_start, rosenbrock  # noqa: E402

SPENT = {}


def _timed(owner, name):
    f = getattr(owner, name)

    @functools.wraps(f)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            SPENT[name] = SPENT.get(name, 0.0) + time.perf_counter() - start
    setattr(owner, name, timed)


def main(n=10_000):
    for name in ("simplify", "live", "roll"):
        _timed(codegen, name)
    _timed(reroll, "_dense")
    _timed(loops, "_runs")
    for name in ("_index", "_plan", "_emit"):
        _timed(reroll._Roller, name)
    x = rosen_start(n)
    g = ad.gradient_r(rosenbrock)
    c = ad.compile(g)
    start = time.perf_counter()
    c(x)
    first = time.perf_counter() - start
    print(f"n = {n}: first call {first:.2f} s, of which")
    for name, s in sorted(SPENT.items(), key=lambda kv: -kv[1]):
        print(f"  {name:10s} {s:6.3f} s")
    print("  (roll holds _runs, _dense, _index, _plan, _emit; the rest of the first call is "
          "recording F, compiling the source and checking the replay)")
    replay, values = c.compiled._last.run, list(x)

    def best(fn):
        return min(timeit.repeat(fn, number=5, repeat=9)) / 5 * 1e3
    print(f"c(x) {best(lambda: c(x)):.2f} ms, the replay function alone "
          f"{best(lambda: replay(values)):.2f} ms, f {best(lambda: rosenbrock(x)):.2f} ms, "
          f"eager gradient {best(lambda: g(x)):.1f} ms")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
