"""dvlad's benchmarks: ratios against a baseline timed in the same process (medians of repeats).

    python benchmarks/run.py            # print the table
    python benchmarks/run.py --record   # ... and append it to benchmarks/RESULTS.md

Workloads (shared/BENCHMARKS.md):
  (a)  derivative(f)(0.7) for f(x) = exp(sin x)·x, against f on plain floats with math.
  (b)  gradient_r of chained Rosenbrock written as a Python loop over n scalars, against the
       same f on plain floats, n = 10², 10³, 10⁴.
  (c)  Rosenbrock on float64 arrays written with numpy slices: hvp (forward over reverse)
       against the analytic HVP in numpy, and gradient_r against the analytic gradient,
       n = 10³, 10⁵, 10⁶.
"""
import argparse
import math
import os
import statistics
import sys
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import dvlad as ad  # noqa: E402
from results import append  # noqa: E402


def best_per_call(fn, repeats, min_time=0.2):
    """Median over ``repeats`` of the per-call time, each repeat running >= min_time seconds."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * min_time / 0.2))
    return statistics.median(t / number for t in timer.repeat(repeats, number))


def ratio(fn, baseline, repeats):
    """Median over repeats of (time of fn / time of baseline), interleaved to share the noise."""
    ratios = []
    for _ in range(repeats):
        tb = best_per_call(baseline, 3, 0.05)
        tf = best_per_call(fn, 3, 0.05)
        ratios.append(tf / tb)
    return statistics.median(ratios), tb, tf


def f_math(x):
    return math.exp(math.sin(x)) * x


def f_ad(x):
    return ad.exp(ad.sin(x)) * x


def rosenbrock(x):
    total = 0.0
    for i in range(len(x) - 1):
        a = x[i + 1] - x[i] * x[i]
        b = 1.0 - x[i]
        total = total + 100.0 * a * a + b * b
    return total


def rosen_start(n):
    return [-1.2 if i % 2 == 0 else 1.0 for i in range(n)]


def workload_a(repeats):
    df = ad.derivative(f_ad)
    assert abs(df(0.7) - (math.exp(math.sin(0.7)) * (math.cos(0.7) * 0.7 + 1))) < 1e-14
    r, tb, tf = ratio(lambda: df(0.7), lambda: f_math(0.7), repeats)
    yield ("(a) derivative, f = exp(sin x)·x", "f on floats with math", r, tb, tf, "≤ 15×")
    r2, tb2, _ = ratio(lambda: df(0.7), lambda: f_ad(0.7), repeats)
    yield ("(a) derivative, same", "f on floats with dvlad.sin/exp", r2, tb2, tf, "")


def workload_b(repeats, sizes):
    g = ad.gradient_r(rosenbrock)
    for n in sizes:
        x = rosen_start(n)
        r, tb, tf = ratio(lambda: g(x), lambda: rosenbrock(x), max(3, repeats // (n // 100 or 1)))
        yield (f"(b) gradient_r, Rosenbrock loop n={n}", "f on floats", r, tb, tf, "≤ 60×, flat")


def rosen_np(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosen_np_grad(x):
    g = np.zeros_like(x)
    a = x[1:] - x[:-1] ** 2
    g[:-1] += -400.0 * x[:-1] * a - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * a
    return g


def rosen_np_hvp(x, v):
    h = np.zeros_like(x)
    a = x[1:] - x[:-1] ** 2
    h[:-1] += (-400.0 * a + 800.0 * x[:-1] ** 2 + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    h[1:] += -400.0 * x[:-1] * v[:-1] + 200.0 * v[1:]
    return h


def workload_c(repeats, sizes):
    for n in sizes:
        i = np.arange(n)
        x, v = 0.5 + 0.4 * np.sin(i), np.cos(i)
        assert np.allclose(ad.hvp(rosen_np, x, v), rosen_np_hvp(x, v), rtol=1e-12, atol=1e-9)
        assert np.allclose(ad.gradient_r(rosen_np)(x), rosen_np_grad(x), rtol=1e-12, atol=1e-9)
        reps = max(3, repeats // 2) if n >= 10 ** 6 else repeats
        r, tb, tf = ratio(lambda: ad.hvp(rosen_np, x, v), lambda: rosen_np_hvp(x, v), reps)
        yield (f"(c) hvp (fr), numpy Rosenbrock n={n}", "analytic HVP in numpy", r, tb, tf,
               "≤ 3× at n ≥ 10⁵")
        r, tb, tf = ratio(lambda: ad.gradient_r(rosen_np)(x), lambda: rosen_np_grad(x), reps)
        yield (f"(c) gradient_r, numpy Rosenbrock n={n}", "analytic gradient in numpy", r, tb,
               tf, "≤ 2×")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--record", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    rows = []
    for gen in (workload_a(args.repeats), workload_b(args.repeats, (100, 1000, 10000)),
                workload_c(args.repeats, (1000, 100000, 1000000))):
        for row in gen:
            print(f"  {row[0]:<42} {row[2]:8.1f}×   (f {row[3] * 1e6:9.2f} µs, "
                  f"dvlad {row[4] * 1e6:10.2f} µs)", flush=True)
            rows.append(row)
    if args.record:
        record(rows, args)


def record(rows, args):
    append(f"python benchmarks/run.py --record --repeats {args.repeats}",
           "Ratio = median over repeats of dvlad time / baseline time, both timed in this process.",
           ["workload", "baseline", "ratio", "baseline per call", "dvlad per call", "target"],
           [(name, basename, f"{r:.1f}×", f"{tb * 1e6:.2f} µs", f"{tf * 1e6:.2f} µs", target)
            for name, basename, r, tb, tf, target in rows])


if __name__ == "__main__":
    main()
