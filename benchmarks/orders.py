"""Workload (a′) per order: how dvlad's cost grows with the order n of the derivative.

    python benchmarks/orders.py [--max-order 8] [--max-nested 6] [--repeats 7] [--record]

f⁽ⁿ⁾(0.7) for f(x) = exp(sin x)·x (benchmarks/with_dvlad.py's f), n = 1..max-order, by a
Taylor tower, ``nth_derivative(f, n)``, and for n ≤ max-nested by nesting ``derivative`` n
times.  Each is a ratio to f on floats (workloads.f_math, the suite's (a)/(a′) baseline) timed
in this same process: the median over alternating samples (benchmarks/run.py's ``measure``).
Every result is checked against workloads.f_derivative(n) (exact) to 1e-10 relative before it
is timed.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import dvlad as ad  # noqa: E402
import workloads as w  # noqa: E402
from run import _close, measure  # noqa: E402
from with_dvlad import f  # noqa: E402


def tower(n):
    fn = ad.nth_derivative(f, n)
    return lambda: fn(0.7)


def nested(n):
    fn = f
    for _ in range(n):
        fn = ad.derivative(fn)
    return lambda: fn(0.7)


def timed(call, n, repeats, budget):
    """(ratio, cell, per-call cell) of call against f on floats; ratio None if its result is off."""
    got = call()
    if not _close(got, w.f_derivative(n), 1e-10):
        return None, f"wrong ({got!r})", "–"
    ratio, _, tf, _ = measure(call, lambda: w.f_math(0.7), repeats, budget)
    return ratio, (f"{ratio:.1f}×" if ratio < 100 else f"{ratio:,.0f}×"), f"{tf * 1e6:,.2f} µs"


def _step(r, prev):
    return "–" if r is None or prev is None else f"{r / prev:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-order", type=int, default=8, help="tower orders 1..this")
    parser.add_argument("--max-nested", type=int, default=6, help="nesting depths 1..this")
    parser.add_argument("--repeats", type=int, default=7, help="samples per figure (median)")
    parser.add_argument("--budget", type=float, default=2.0,
                        help="seconds per figure after which sampling stops (≥ 3 samples)")
    parser.add_argument("--record", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args()
    start = time.perf_counter()
    columns = ["order n", "tower ×", "tower: ÷ order n−1", "tower per call", "nested ×",
               "nested: ÷ order n−1", "nested per call", "nested ÷ tower"]
    rows, prev_t, prev_n = [], None, None
    none = (None, "–", "–")
    for n in range(1, max(args.max_order, args.max_nested) + 1):
        rt, ct, pt = timed(tower(n), n, args.repeats, args.budget) \
            if n <= args.max_order else none
        rn, cn, pn = timed(nested(n), n, args.repeats, args.budget) \
            if n <= args.max_nested else none
        rows.append([n, ct, _step(rt, prev_t), pt, cn, _step(rn, prev_n), pn,
                     "–" if rt is None or rn is None else f"{rn / rt:.1f}"])
        print(f"  n={n}: tower {ct} ({rows[-1][2]}), nested {cn} ({rows[-1][5]})",
              file=sys.stderr, flush=True)
        prev_t, prev_n = rt, rn
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    print("\n".join(lines))
    if args.record:
        from results import append
        command = "python benchmarks/orders.py" + "".join(
            f" {a}" for a in sys.argv[1:] if a != "--record") + " --record"
        append(command,
               "Workload (a′) per order n: dvlad's f⁽ⁿ⁾(0.7) for f(x) = exp(sin x)·x by a Taylor "
               "tower (`nth_derivative(f, n)`) and by nesting `derivative` n times, each a median "
               "over alternating samples of its time ÷ f on floats (math) in this process; "
               "'÷ order n−1' = the ratio of consecutive orders (the growth per order). "
               f"Wall time {time.perf_counter() - start:.0f} s.", None, lines)


if __name__ == "__main__":
    main()
