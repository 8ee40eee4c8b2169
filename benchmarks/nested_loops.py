"""dvlad.compile on a loop inside a loop: the replay's source and time, rolled at one level
against rolled at every level (issue #18: long loops re-rolled, source not megabytes).

    python benchmarks/nested_loops.py [inner outer]     # default 200 300: 240 000 operations

Both compiled functions are timed in this process, interleaved, medians of 11 calls; the
function is the shape of tests/test_compile.py's ``_loops_in_loops``.
"""
import statistics
import sys
import time

import dvlad as ad
from dvlad.operators.compile import reroll


def f(x, inner, outer):
    s = x
    for i in range(outer):
        for j in range(inner):
            s = ad.sin(s * x + 0.1 * j)
        s = s * 0.5 + x
    return s


def main(inner=200, outer=300):
    compiled, was = {}, (reroll.FLAT_MOST, reroll.ALIKE)
    for name, most in (("one level", 10 ** 9), ("every level", 0)):
        reroll.FLAT_MOST, reroll.ALIKE = most, (was[1] if most else 0)
        try:
            c = ad.compile(ad.gradient_r(lambda x: f(x, inner, outer)))
            t = time.perf_counter()
            c(0.3)
            compiled[name] = (c, time.perf_counter() - t)
        finally:
            reroll.FLAT_MOST, reroll.ALIKE = was
    times = {name: [] for name in compiled}
    for k in range(11):
        for name, (c, _) in compiled.items():
            t = time.perf_counter()
            c(0.3 + 0.01 * k)
            times[name].append(time.perf_counter() - t)
    for name, (c, first) in compiled.items():
        print(f"{name}: source {len(c.source()) / 1000:.1f} kB, first call {first:.1f} s, "
              f"replay {statistics.median(times[name]) * 1e3:.1f} ms")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
