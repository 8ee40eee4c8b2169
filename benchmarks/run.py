"""The benchmark suite: workloads (a), (a'), (b)–(d) of shared/BENCHMARKS.md, dvlad and peers.

    pip install -e ".[bench]"                  # autograd, jax, torch (optional: absent = skipped)
    python benchmarks/run.py                   # every installed system, every workload: a table
    python benchmarks/run.py --record          # ... and append it to benchmarks/RESULTS.md
    python benchmarks/run.py --systems dvlad --workloads c   # a part of it
    python benchmarks/orders.py [--record]     # (a') per order n = 1..8: dvlad's growth

Each system runs in a process of its own (``--worker``), which times every workload against its
baseline in that same process: the ratio is the median over repeats of (system time ÷ baseline
time), the two timed alternately so they share the machine's noise.  Each result is checked
against the reference before it is timed; a wrong one is reported, not timed.

Workloads (the baseline in brackets):
  (a)  derivative of f(x) = exp(sin x)·x at 0.7                    [f on floats with math]
  (a') 6th derivative of the same f at 0.7 (key a6; group a6)         [the same baseline]
       and, for dvlad, by nesting derivative 6 times (key a6-nested; n/a for the peers,
       whose a6 row already nests their gradient operator)
  (b)  gradient of chained Rosenbrock as a Python loop over n scalars   [the same f on floats]
  (c)  Rosenbrock on numpy arrays: HVP (forward over reverse)  [the analytic HVP in numpy]
       and gradient                                        [the analytic gradient in numpy]
  (d)  saddle and particle, modes FF/FR/RF/RR        [hand-coded derivatives, same control flow]
"""
import argparse
import contextlib
import importlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import workloads as w  # noqa: E402

SYSTEMS = ("dvlad", "autograd", "jax", "torch")
MODES = ("FF", "FR", "RF", "RR")


def rows():
    """(key, group, label, baseline label, target) of every workload, in table order."""
    yield "a", "a", "(a) derivative of exp(sin x)·x", "f on floats (math)", "≤ 15×"
    yield "a6", "a6", "(a') 6th derivative of exp(sin x)·x", "f on floats (math)", \
        "≤ 60× (Taylor tower)"
    yield "a6-nested", "a6", "(a') 6th derivative, derivative nested 6×", "f on floats (math)", \
        "≤ 3000×"
    for n in (100, 1000, 10000):
        yield f"b{n}", "b", f"(b) gradient, Rosenbrock loop n={n}", "f on floats", "≤ 60×, flat"
    for n in (1000, 100000, 1000000):
        yield f"c-hvp{n}", "c", f"(c) hvp, numpy Rosenbrock n={n}", "analytic HVP", \
            "≤ 3× (n ≥ 10⁵)"
    for n in (1000, 100000, 1000000):
        yield f"c-grad{n}", "c", f"(c) gradient, numpy Rosenbrock n={n}", "analytic gradient", \
            "≤ 2× (n ≥ 10⁵)"
    for m in MODES:
        yield f"d-saddle-{m}", "d", f"(d) saddle {m}", "hand-coded", "≤ 12×"
    for m in MODES:
        yield f"d-particle-{m}", "d", f"(d) particle {m}", "hand-coded", "≤ 120×"


# ---------------------------------------------------------------- one system, in its own process

def _close(got, want, rel, atol=0.0):
    import numpy as np
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=rel, atol=atol))


def problem(key, mod):
    """(call, baseline, check) for workload ``key`` on system module ``mod``; call None = n/a."""
    if key == "a":
        return mod.derivative_a(), lambda: w.f_math(0.7), lambda r: _close(r, w.df_math(0.7), 1e-12)
    if key in ("a6", "a6-nested"):
        make = mod.derivative6_a if key == "a6" else getattr(mod, "derivative6_nested_a", None)
        if make is None:
            return None, None, None
        want = w.f_derivative(6)
        return make(), lambda: w.f_math(0.7), lambda r: _close(r, want, 1e-10)
    if key.startswith("b"):
        x = w.rosen_start(int(key[1:]))
        want = w.rosenbrock_gradient(x)
        return mod.gradient_b(len(x)), lambda: w.rosenbrock(x), lambda r: _close(r, want, 1e-9)
    if key.startswith("c-"):
        n = int(key[5:] if key.startswith("c-hvp") else key[6:])
        x, v = w.rosen_np_point(n)
        if key.startswith("c-hvp"):
            want = w.rosen_np_hvp(x, v)
            return mod.hvp_c(x, v), lambda: w.rosen_np_hvp(x, v), \
                lambda r: _close(r, want, 1e-9, 1e-9)
        want = w.rosen_np_grad(x)
        return mod.gradient_c(x), lambda: w.rosen_np_grad(x), lambda r: _close(r, want, 1e-9, 1e-9)
    import nested_optimization as no
    _, program, mode = key.split("-")
    system = mod.SYSTEM
    needs = {"F": system.gradient_F, "R": system.gradient_R}
    if needs[mode[0]] is None or needs[mode[1]] is None:
        return None, None, None
    if program == "saddle":
        return (lambda: no.saddle(system, mode)), no.saddle_hand, \
            lambda r: _close(r, ((no.SADDLE_EXPECTED,) * 2,) * 2, 1e-9)
    return (lambda: no.particle(system, mode)), no.particle_hand, \
        lambda r: _close(r, no.PARTICLE_EXPECTED, 0, 1e-9)


def _per_call(fn, number):
    t = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t) / number


def _calls_for(fn, t_once, sample):
    return max(1, int(sample / max(t_once, 1e-9)))


def one_core():
    """Pin this process, and every thread and process it starts, to one CPU; return it (None
    where the system cannot pin).  numpy's BLAS and torch run one thread in these benchmarks,
    but jax.jit's XLA spreads a call over every core it may use: unpinned on this 2-core
    machine its MLP gradient took 1.4–1.6× its wall time in CPU time.  One core for everyone."""
    try:
        cpu = max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError):
        return None
    return cpu


def measure(call, baseline, repeats, budget, sample=0.05):
    """Median ratio call/baseline over up to ``repeats`` alternating samples of ≥ ``sample`` s,
    stopping early (after 3 samples) once ``budget`` seconds are spent.  Returns
    (ratio, baseline time, call time, samples)."""
    tb1, tf1 = _per_call(baseline, 1), _per_call(call, 1)
    nb, nf = _calls_for(baseline, tb1, sample), _calls_for(call, tf1, sample)
    start = time.perf_counter()
    ratios, tbs, tfs = [], [], []
    for k in range(repeats):
        tb, tf = _per_call(baseline, nb), _per_call(call, nf)
        ratios.append(tf / tb)
        tbs.append(tb)
        tfs.append(tf)
        if k >= 2 and time.perf_counter() - start > budget:
            break
    return statistics.median(ratios), statistics.median(tbs), statistics.median(tfs), len(ratios)


class _TimeUp(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise _TimeUp in this (main) thread after ``seconds`` of wall time."""
    def alarm(signum, frame):
        raise _TimeUp
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def worker(name, keys, repeats, budget, cap):
    """Run in a fresh process: print one JSON line per workload (and one for the version)."""
    def say(**kw):
        print(json.dumps(kw), flush=True)
    try:
        mod = importlib.import_module(f"with_{name}")
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in (name, name + "lib"):
            raise                               # not the library: a bug, shown as a crash
        say(kind="missing", why=f"{e}; pip install -e \".[bench]\"")
        return
    say(kind="version", version=mod.VERSION)
    for key in keys:
        try:
            call, baseline, check = problem(key, mod)
            if call is None:
                say(kind="row", key=key, status="n/a")
                continue
            t = time.perf_counter()
            try:
                with _time_limit(cap):
                    result = call()
            except _TimeUp:                     # a lower bound on the ratio is still a figure
                tb = _per_call(baseline, _calls_for(baseline, _per_call(baseline, 1), 0.05))
                say(kind="row", key=key, status="timeout", ratio=cap / tb, tb=tb, tf=cap,
                    samples=0)
                continue
            first = time.perf_counter() - t
            if not check(result):
                say(kind="row", key=key, status="wrong", detail=repr(result)[:200])
                continue
            if first > budget:                  # one call is all the budget allows
                tb = _per_call(baseline, _calls_for(baseline, _per_call(baseline, 1), 0.05))
                say(kind="row", key=key, status="ok", ratio=first / tb, tb=tb, tf=first, samples=1)
                continue
            r, tb, tf, k = measure(call, baseline, repeats, budget)
            say(kind="row", key=key, status="ok", ratio=r, tb=tb, tf=tf, samples=k)
        except Exception as e:                  # a peer's failure is a row, not a crash
            say(kind="row", key=key, status="error", detail=f"{type(e).__name__}: {e}"[:200])


# ---------------------------------------------------------------- the parent: table and record

def run_system(name, keys, args, progress):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--repeats",
           str(args.repeats), "--budget", str(args.budget), "--cap", str(args.cap),
           "--workloads", ",".join(keys)]
    out = {"rows": {}}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
        for line in proc.stdout:
            msg = json.loads(line)
            if msg["kind"] == "missing":
                out["missing"] = msg["why"]
                progress(f"{name}: not installed ({msg['why']}); skipped", done=len(keys))
            elif msg["kind"] == "version":
                out["version"] = msg["version"]
            else:
                out["rows"][msg["key"]] = msg
                progress(f"{name:8} {msg['key']:<16} {_cell(msg)}", done=1)
    if proc.returncode and "missing" not in out:
        out["crashed"] = proc.returncode
    return out


def _cell(row):
    if row is None:
        return "–"
    if row["status"] == "timeout":
        return f"> {row['ratio']:,.0f}× (one call > {row['tf']:.0f} s)"
    if row["status"] != "ok":
        return row["status"]
    r = row["ratio"]
    text = f"{r:.1f}×" if r < 100 else f"{r:,.0f}×"
    return text + (f" ({row['samples']})" if row["samples"] < 3 else "")


def table(results, selected):
    names = [n for n in results if "missing" not in results[n]]
    head = ["workload", "baseline", "baseline per call"] + names + ["target"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, _, label, base, target in selected:
        tb = next((results[n]["rows"][key]["tb"] for n in names
                   if results[n]["rows"].get(key, {}).get("status") in ("ok", "timeout")), None)
        per = "" if tb is None else f"{tb * 1e6:,.2f} µs"
        cells = [_cell(results[n]["rows"].get(key)) for n in names]
        lines.append("| " + " | ".join([label, base, per] + cells + [target]) + " |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help="comma-separated, from " + ", ".join(SYSTEMS))
    parser.add_argument("--workloads", default="a,a6,b,c,d",
                        help="groups (a,a6,b,c,d) or workload keys (a6-nested, b1000, "
                             "d-particle-RF, ...)")
    parser.add_argument("--repeats", type=int, default=7, help="samples per workload (median)")
    parser.add_argument("--budget", type=float, default=4.0,
                        help="seconds per workload after which sampling stops (≥ 3 samples)")
    parser.add_argument("--cap", type=float, default=10.0,
                        help="seconds one call may take; a slower one is reported as a bound")
    parser.add_argument("--record", action="store_true", help="append to benchmarks/RESULTS.md")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    wanted = set(args.workloads.split(","))
    selected = [r for r in rows() if r[0] in wanted or r[1] in wanted]
    keys = [r[0] for r in selected]
    if args.worker:
        worker(args.worker, keys, args.repeats, args.budget, args.cap)
        return
    systems = [s for s in args.systems.split(",") if s]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not selected:
        parser.error(f"unknown system {unknown[0]!r}" if unknown else
                     f"no workload matches {args.workloads!r}")
    total, count, start = len(keys) * len(systems), [0], time.perf_counter()

    def progress(text, done):
        count[0] += done
        print(f"[{count[0]:3}/{total}] {time.perf_counter() - start:6.0f} s  {text}",
              file=sys.stderr, flush=True)

    results = {name: run_system(name, keys, args, progress) for name in systems}
    lines = table(results, selected)
    print("\n".join(lines))
    notes = [f"{n}: not installed ({r['missing']})" for n, r in results.items() if "missing" in r]
    notes += [f"{n}: worker exited {r['crashed']}" for n, r in results.items() if "crashed" in r]
    for note in notes:
        print(note)
    if args.record:
        from results import append
        versions = ", ".join(f"{n} {r['version']}" for n, r in results.items() if "version" in r)
        command = "python benchmarks/run.py" + "".join(
            f" {a}" for a in sys.argv[1:] if a != "--record") + " --record"
        append(command,
               f"Systems: {versions}. Each cell: median over samples of system time ÷ baseline "
               f"time, in the system's own process ((k) = only k samples: one call is slow); "
               f"'n/a' = the library cannot express it. Wall time "
               f"{time.perf_counter() - start:.0f} s." + "".join(f" {x}." for x in notes),
               None, lines)


if __name__ == "__main__":
    main()
