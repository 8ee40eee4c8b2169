"""fixed_point in reverse mode: the tape does not grow with the number of iterations.

    python benchmarks/fixed_point.py [--record]

For x* = fixed point of x ↦ ρ·x + a·sin(x)/10 + a (more iterations as ρ → 1), gradient_r of x*
w.r.t. a: tape cells, peak traced memory, and time, against the same iteration written as a
plain Python loop differentiated through every step ("unrolled"), and against the primal
fixed point alone.  Medians of repeats, all timed in this process.
"""
import argparse
import os
import statistics
import sys
import timeit
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dvlad as ad  # noqa: E402
from results import append  # noqa: E402


def step(rho, a):
    return lambda x: rho * x + a * ad.sin(x) / 10 + a


def unrolled(rho, a, tol=4.4e-16):
    x, y = 0.0, step(rho, a)(0.0)
    while abs(ad.primal(y) - ad.primal(x)) > tol * max(1.0, abs(ad.primal(y))):
        x, y = y, step(rho, a)(y)
    return y


def measure(rho, repeats):
    cells, iters = [], []

    def through_fixed_point(a):
        y = ad.fixed_point(step(rho, a), 0.0, max_iter=10 ** 6)
        cells.append(len(a.tag.tape))
        return y

    def through_loop(a):
        y = unrolled(rho, a)
        cells.append(len(a.tag.tape))
        return y

    def count(a):
        x, n = 0.0, 0
        while True:
            n += 1
            y = step(rho, a)(x)
            if abs(y - x) <= 4.4e-16 * max(1.0, abs(y)):
                return n
            x = y
    iters = count(0.3)
    row = {"rho": rho, "iterations": iters}
    for name, fn in (("fixed_point", through_fixed_point), ("unrolled", through_loop)):
        cells.clear()
        g = ad.gradient_r(fn)
        tracemalloc.start()
        g(0.3)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        t = statistics.median(timeit.repeat(lambda: g(0.3), number=1, repeat=repeats))
        row[name] = (cells[0], peak, t)
    row["primal"] = statistics.median(timeit.repeat(
        lambda: ad.fixed_point(step(rho, 0.3), 0.0, max_iter=10 ** 6), number=1, repeat=repeats))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for rho in (0.1, 0.5, 0.9, 0.99, 0.999):
        r = measure(rho, args.repeats)
        rows.append(r)
        fp, un = r["fixed_point"], r["unrolled"]
        print(f"  ρ={rho:<6} {r['iterations']:>6} iterations | fixed_point: {fp[0]:>3} cells, "
              f"{fp[1] / 1024:8.1f} KiB, {fp[2] / r['primal']:5.1f}× primal | unrolled: "
              f"{un[0]:>6} cells, {un[1] / 1024:8.1f} KiB", flush=True)
    if args.record:
        append(f"python benchmarks/fixed_point.py --record --repeats {args.repeats}",
               "gradient_r of the fixed point x* of x ↦ ρx + a·sin(x)/10 + a w.r.t. a, at a = 0.3: "
               "tape cells, peak traced memory (tracemalloc), time as a ratio to the primal "
               "fixed_point alone (medians); 'unrolled' differentiates the same loop step by step.",
               ["ρ", "iterations", "fixed_point cells", "fixed_point peak memory",
                "fixed_point time / primal", "unrolled cells", "unrolled peak memory"],
               [(r["rho"], r["iterations"], r["fixed_point"][0],
                 f"{r['fixed_point'][1] / 1024:.1f} KiB",
                 f"{r['fixed_point'][2] / r['primal']:.1f}×", r["unrolled"][0],
                 f"{r['unrolled'][1] / 1024:.1f} KiB") for r in rows])


if __name__ == "__main__":
    main()
