"""Source sizes of compiled gradients of scalar loops that branch on their data (issue #18):
a test in F itself (not rolled), Python's max (F's comparison: not rolled), dvlad's maximum
(its partial is computed, not tested: rolled).

    python benchmarks/branchy_loops.py [n]          # n = 10 000 by default
"""
import os
import random
import sys

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


def main(n=10_000):
    rng = random.Random(0)
    x = [rng.uniform(-1, 1) for _ in range(n)]
    for label, step in KINDS.items():
        g = ad.gradient_r(looped(step))
        c = ad.compile(g)
        assert c(x) == g(x)
        ops = c.explain().splitlines()[-1].split()[-2]
        print(f"{label:34s} n = {n}: {ops} operations, source {len(c.source()) / 1e3:.1f} kB")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
