"""Where gradient_r's time goes on workload (b): taping vs the reverse sweep, as ratios to f.

    python benchmarks/tape_split.py [n ...]        (default n = 1000 10000 100000)
"""
import gc
import os
import sys
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dvlad as ad  # noqa: E402
from dvlad.core.tags import REVERSE, new_tag  # noqa: E402
from dvlad.modes.sweep import sweep  # noqa: E402
from dvlad.numbers.tape import make_cell  # noqa: E402
from workloads import rosen_start, rosenbrock  # noqa: E402


def main(sizes):
    for n in sizes:
        x = rosen_start(n)

        def tape_only():
            tag = new_tag(REVERSE, "split")
            tape = tag.tape = []
            y = rosenbrock([make_cell(tag, a, ()) for a in x])
            tag.tape, tag.live = None, False
            return tape, y

        k = max(1, 20000 // n)
        best = lambda fn: min(timeit.repeat(fn, number=k, repeat=5)) / k  # noqa: E731
        gc.disable()
        try:
            tape, y = tape_only()
            tb, tt = best(lambda: rosenbrock(x)), best(tape_only)
            ts = best(lambda: sweep(tape, [(y, 1.0)]))
        finally:
            gc.enable()
        tg = best(lambda: ad.gradient_r(rosenbrock)(x))
        print(f"n={n:<7} taping {tt / tb:5.1f}×  sweep {ts / tb:5.1f}×  gradient_r {tg / tb:5.1f}×"
              f"  ({len(tape)} cells)")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000, 100000])
