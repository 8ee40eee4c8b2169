"""Compiled gradients of scalar loops that branch on their data (issue #18): a test in F itself
and Python's max (F's comparison) replay from a table of blocks (dvlad/operators/compile/
tables.py), dvlad's maximum (its partial is computed, not tested) from a rolled loop.  Source
size, first call, replay and eager time at arguments that take the same branches.

    python benchmarks/branchy_loops.py [n]          # n = 10 000 by default
"""
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dvlad as ad  # noqa: E402


def looped(step):
    def f(x):
        s = 0.0
        for i in range(len(x) - 1):
            s = s + step(x[i] * x[i + 1])
        return s
    return f


KINDS = {
    "if a > 0.1: a * a, else sin(a)": lambda a: a * a if a > 0.1 else ad.sin(a),
    "max(a, 0.0) (Python's)": lambda a: max(a, 0.0),
    "ad.maximum(a, 0.0)": lambda a: ad.maximum(a, 0.0),
}


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(n=10_000, repeats=7):
    rng = random.Random(0)
    x = [rng.uniform(-1, 1) for _ in range(n)]
    near = [v * (1 + 1e-12) for v in x]             # the same branches: replayed
    for label, step in KINDS.items():
        g = ad.gradient_r(looped(step))
        c = ad.compile(g)
        t = time.perf_counter()
        first = c(x)
        first_call = time.perf_counter() - t
        assert first == g(x) and c(near) == g(near)
        replay = _median_time(lambda: c(near), repeats)
        eager = _median_time(lambda: g(near), repeats)
        ops = c.explain().splitlines()[1].split()[-2]
        print(f"{label:34s} n = {n}: {ops} operations, source {len(c.source()) / 1e3:.1f} kB, "
              f"first call {first_call:.2f} s, replay {replay * 1e3:.2f} ms, "
              f"eager {eager * 1e3:.1f} ms (medians of {repeats})")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
