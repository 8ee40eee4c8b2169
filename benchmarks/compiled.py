"""dvlad.compile (issue #18): replay against the plain function, eager dvlad, jax.jit and
torch.compile.

    python benchmarks/compiled.py            # every workload (a few minutes: saddle and particle
                                             # trace about a million operations each)
    python benchmarks/compiled.py --quick    # (a) and (b) at n = 100 only
    python benchmarks/compiled.py --arrays   # the numpy rows (c) and the research rows (r)
    python benchmarks/compiled.py --record   # ... and append the table to benchmarks/RESULTS.md

For each workload: the baseline (the plain function, or derivatives coded by hand, or numpy by
hand), eager dvlad, the first call of the compiled function (trace + code generation), its
replay (median of repeats after the first call), and jax.jit and torch.compile of the same
derivative (after one warm-up call, which compiles; the compile time is reported too) where jax
and torch are installed (torch.compile only on the --arrays rows: on the scalar loops it would
unroll n iterations into one graph).  Ratios are to the
baseline timed in the same process, interleaved, medians; "pays back" is the first-call cost
over what each replay saves against eager dvlad, in calls.  The (r) rows are #17's research
workloads (benchmarks/research.py), compiled, against their hand-written numpy derivatives;
their data are arguments of the compiled function, as of jax.jit's (one row captures X
instead).  The process is pinned to one CPU (``--all-cores``: not): numpy's BLAS runs one
thread, and so, pinned, do XLA and inductor.
"""
import argparse
import math
import os
import statistics
import sys
import time

# one BLAS thread, as in research.py (a second one on a busy 2-core machine slows every product)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))     # (this checkout's dvlad, installed or not)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import numpy as np  # noqa: E402

import dvlad as ad  # noqa: E402
import nested_optimization as N  # noqa: E402
from workloads import (f_math, rosen_np, rosen_np_grad, rosen_np_hvp, rosen_np_point,  # noqa
                       rosen_start, rosenbrock)


def _once(thunk):
    t = time.perf_counter()
    thunk()
    return time.perf_counter() - t


def _median_time(thunk, budget):
    """Median seconds of thunk over repeats (batched when it is fast), within ~budget s."""
    once = max(_once(thunk), 1e-7)
    batch = max(1, int(1e-3 / once))
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget and len(times) < 25):
        t = time.perf_counter()
        for _ in range(batch):
            thunk()
        times.append((time.perf_counter() - t) / batch)
    return statistics.median(times)


def ratio(thunk, base, budget=1.0):
    """Median of ratios thunk/base, interleaved in rounds."""
    rs = [_median_time(thunk, budget / 3) / _median_time(base, budget / 3) for _ in range(3)]
    return statistics.median(rs)


def jax_jit(kind, n=None):
    """(jitted derivative thunk, compile seconds) or None without jax."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    if kind == "a":
        g = jax.jit(jax.grad(lambda x: jnp.exp(jnp.sin(x)) * x))
        x = 0.7
    else:
        g = jax.jit(jax.grad(rosenbrock))
        x = jnp.asarray(rosen_start(n))
    t = time.perf_counter()
    g(x).block_until_ready()
    return (lambda: g(x).block_until_ready()), time.perf_counter() - t


def row(name, base, eager, compiled, check, peers=(), source=None):
    """One workload: the compiled function's first call, then ratios; ``source``: the compiled
    function (the size of its replay's source is reported)."""
    first = _once(compiled)
    ok = check()
    size = len(source.source()) if source is not None else float("nan")
    r_replay = ratio(compiled, base)
    r_eager = ratio(eager, base, budget=2.0) if eager else float("nan")
    t_base = _median_time(base, 0.3)
    saved = (r_eager - r_replay) * t_base
    pays = first / saved if saved > 0 else float("inf")
    out = {"workload": name, "replay": r_replay, "eager": r_eager, "first call s": first,
           "pays back in": pays, "ok": ok, "source bytes": size}
    for peer, thunk, compile_s in peers:
        out[peer] = ratio(thunk, base)
        out[f"{peer} compile s"] = compile_s
    return out


def workloads(quick):
    rows = []
    f = lambda x: ad.exp(ad.sin(x)) * x                              # noqa: E731
    df = ad.derivative(f)
    c = ad.compile(df)
    peers = [("jax.jit",) + j for j in [jax_jit("a")] if j]
    rows.append(row("(a) derivative of exp(sin x)·x", lambda: f_math(0.7), lambda: df(0.7),
                    lambda: c(0.7), lambda: c(0.7) == df(0.7), peers, c))
    for n in ((100,) if quick else (100, 1000, 10_000)):
        x = rosen_start(n)
        g = ad.gradient_r(rosenbrock)
        cg = ad.compile(g)
        peers = [("jax.jit",) + j for j in [jax_jit("b", n)] if j] if n <= 1000 else []
        rows.append(row(f"(b) gradient_r of the Rosenbrock loop, n={n}", lambda x=x: rosenbrock(x),
                        lambda g=g, x=x: g(x), lambda cg=cg, x=x: cg(x),
                        lambda cg=cg, g=g, x=x: cg(x) == g(x), peers, cg))
    if quick:
        return rows
    for program, modes in (("saddle", ("FR", "RR")), ("particle", N.MODES)):
        for mode in modes:           # each in a process of its own: a trace of ~10⁶ operations
            rows.append(_in_subprocess(program, mode))
    _numpy_rows(rows)
    return rows


def nested_row(program, mode):
    """(d): the whole nested program compiled, a function of its starting point."""
    if program == "saddle":
        cs = ad.compile(lambda a, b: N.saddle(N.DVLAD, mode, (a, b)))
        return row(f"(d) saddle {mode}", N.saddle_hand, lambda: N.saddle(N.DVLAD, mode),
                   lambda: cs(1.0, 1.0), lambda: N.saddle_ok(cs(1.0, 1.0)), source=cs)
    cp = ad.compile(lambda w0: N.particle(N.DVLAD, mode, w0))
    return row(f"(d) particle {mode}", N.particle_hand, lambda: N.particle(N.DVLAD, mode),
               lambda: cp(0.0), lambda: N.particle_ok(cp(0.0)), source=cp)


def _in_subprocess(program, mode):
    import json
    import subprocess
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--nested", program, mode],
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _numpy_rows(rows):
    x, v = rosen_np_point(1000)
    g, h = ad.gradient_r(rosen_np), (lambda x, v: ad.hvp(rosen_np, x, v))
    cg, ch = ad.compile(g), ad.compile(h)
    rows.append(row("(c) numpy Rosenbrock gradient, n=1000", lambda: rosen_np_grad(x),
                    lambda: g(x), lambda: cg(x), lambda: np.allclose(cg(x), rosen_np_grad(x)),
                    source=cg))
    later = [(rows[-1], lambda: rosen_np_grad(x), ("rosen", "grad"), x, v)]
    rows.append(row("(c) numpy Rosenbrock HVP, n=1000", lambda: rosen_np_hvp(x, v),
                    lambda: h(x, v), lambda: ch(x, v),
                    lambda: np.allclose(ch(x, v), rosen_np_hvp(x, v)), source=ch))
    later.append((rows[-1], lambda: rosen_np_hvp(x, v), ("rosen", "hvp"), x, v))
    _research_rows(rows, later)


def _research_rows(rows, torch_later=()):
    """#17's research workloads (benchmarks/research.py), each a function of its parameters,
    compiled; the baseline is the hand-written numpy derivative, as there.  jax.jit and
    torch.compile are timed after every dvlad row: their compilers leave threads spinning for a
    while, which would slow whatever is timed next."""
    import research as R
    later = []                  # (row, base, jax maker arguments)
    # The data are arguments of the compiled function, as of jax.jit's (a replay reads them as
    # they are); one row captures X instead: a replay checks a captured array against the one
    # traced, bit for bit, on every call (never stale), which the row prices.
    theta, D2, y = R.gp_data(200)
    for how, f in (("cholesky", R.gp_nlml_cholesky), ("slogdet", R.gp_nlml_slogdet)):
        g = ad.gradient_r(f)
        c = ad.compile(g)
        base = (lambda how=how: R.gp_grad(theta, D2, y, "cholesky" if how == "cholesky"
                                          else "inv"))
        rows.append(row(f"(r1) GP gradient, {how}, n=200", base, lambda g=g: g(theta, D2, y),
                        lambda c=c: c(theta, D2, y),
                        lambda c=c, base=base: np.allclose(c(theta, D2, y), base()), source=c))
        later.append((rows[-1], base, (("gp", f.__name__), theta, D2, y)))
    w, X, yl, v = R.lr_data(10_000, 100)
    for mode, captured in (("fr", False), ("rr", False), ("fr", True)):
        if captured:
            h = (lambda u, mode=mode: ad.hvp(lambda q: R.lr_logaddexp(q, X, yl), u, v, mode))
            c = ad.compile(h)
            args = (w,)
        else:
            h = (lambda u, X, yl, v, mode=mode: ad.hvp(lambda q: R.lr_logaddexp(q, X, yl), u,
                                                       v, mode))
            c = ad.compile(h)
            args = (w, X, yl, v)
        base = (lambda: R.lr_hvp(w, X, yl, v))
        rows.append(row(f"(r2) logistic HVP {mode}, 10000×100" + ", X captured" * captured,
                        base, lambda h=h, a=args: h(*a), lambda c=c, a=args: c(*a),
                        lambda c=c, a=args: np.allclose(c(*a), R.lr_hvp(w, X, yl, v)),
                        source=c))
        later.append((rows[-1], base, (("lr", "lr_logaddexp", mode), w, X, yl, v)))
    params, Xb, Y = R.mlp_data(256)
    for act in ("tanh", "relu"):
        g = ad.gradient_r(lambda p, Xb, Y, act=act: R.mlp_loss(p, Xb, Y, act))
        c = ad.compile(g)
        base = (lambda act=act: R.mlp_grad(params, Xb, Y, act))
        rows.append(row(f"(r3) MLP gradient, {act}, batch 256", base,
                        lambda g=g: g(params, Xb, Y), lambda c=c: c(params, Xb, Y),
                        lambda c=c, base=base: all(np.allclose(c(params, Xb, Y)[k], want)
                                                   for k, want in base().items()), source=c))
        later.append((rows[-1], base, (("mlp", act), params, Xb, Y)))
    try:
        jit = R._peer_jax(True)
    except ImportError:
        jit = None
    for r, base, args in later if jit else ():
        thunk, seconds = _timed(jit, *args)
        r["jax.jit"], r["jax.jit compile s"] = ratio(thunk, base), seconds
    tc = torch_compiled()
    if tc is None:
        return
    for r, base, *args in list(torch_later) + [(r, b, *a) for r, b, a in later]:
        try:
            thunk, seconds = _timed(tc, *args)
        except Exception as e:          # (inductor may refuse an op: say so in the table)
            print(f"torch.compile of {r['workload']}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        r["torch.compile"], r["torch.compile compile s"] = ratio(thunk, base), seconds


def torch_compiled():
    """A maker of torch.compile'd derivatives of the same workloads (torch.func's grad and jvp,
    compiled by inductor on the CPU, one thread), or None without torch.  The first call, which
    compiles, is part of making it: the compile seconds reported."""
    try:
        import torch
    except ImportError:
        return None
    import research as R
    torch.set_num_threads(1)
    f64 = torch.float64

    def T(a):
        return torch.as_tensor(np.asarray(a), dtype=f64)

    def rosen(x):
        return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def gp(name, theta, D2, y):
        n = y.shape[0]
        K = torch.exp(theta[1]) * torch.exp(-0.5 * D2 * torch.exp(-2.0 * theta[0])) + \
            torch.exp(theta[2]) * torch.eye(n, dtype=f64)
        if name == "gp_nlml_cholesky":
            L = torch.linalg.cholesky(K)
            alpha = torch.linalg.solve(L.T, torch.linalg.solve(L, y))
            return 0.5 * (y @ alpha) + torch.sum(torch.log(torch.diagonal(L))) + 0.5 * n * \
                R.LOG_2PI
        return 0.5 * (y @ torch.linalg.solve(K, y)) + 0.5 * torch.linalg.slogdet(K)[1] + \
            0.5 * n * R.LOG_2PI

    def mlp(p, X, Y, act):
        a = torch.tanh if act == "tanh" else torch.relu
        h = a(a(X @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"])
        z = h @ p["W3"] + p["b3"]
        return -torch.sum(Y * (z - torch.logsumexp(z, dim=1, keepdim=True))) / X.shape[0]

    def make(kind, *data):
        grad, jvp = torch.func.grad, torch.func.jvp
        if kind[0] == "rosen":
            x, v = T(data[0]), T(data[1])
            fn = torch.compile(grad(rosen) if kind[1] == "grad" else
                               (lambda u: jvp(grad(rosen), (u,), (v,))[1]))
            call = (lambda: fn(x))
        elif kind[0] == "gp":
            theta, D2, y = (T(a) for a in data)
            fn = torch.compile(grad(lambda t: gp(kind[1], t, D2, y)))
            call = (lambda: fn(theta))
        elif kind[0] == "lr":
            w, X, y, v = (T(a) for a in data)

            def loss(u):
                t = -y * (X @ u)
                return torch.sum(torch.logaddexp(torch.zeros_like(t), t))
            fn = torch.compile((lambda u: jvp(grad(loss), (u,), (v,))[1]) if kind[2] == "fr"
                               else grad(lambda u: grad(loss)(u) @ v))
            call = (lambda: fn(w))
        else:
            params, X, Y = {k: T(a) for k, a in data[0].items()}, T(data[1]), T(data[2])
            fn = torch.compile(grad(lambda p: mlp(p, X, Y, kind[1])))
            call = (lambda: fn(params))
        call()
        return call
    return make


def _timed(make, *args):
    """(thunk, compile seconds) of a jax.jit peer from research.py's maker."""
    t = time.perf_counter()
    thunk = make(*args)
    return thunk, time.perf_counter() - t


def table(rows):
    peers = sorted({k for r in rows for k in r if k in ("jax.jit", "torch.compile")})
    head = ["workload", "replay ×", "eager ×", "first call", "pays back (calls)", "source"] + \
        [f"{p} ×" for p in peers] + [f"{p} compile" for p in peers] + ["value"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["workload"], f"{r['replay']:.2f}",
                 "—" if math.isnan(r["eager"]) else f"{r['eager']:.1f}",
                 f"{r['first call s']:.3g} s",
                 "—" if math.isnan(r["eager"]) else f"{r['pays back in']:.1f}",
                 "" if math.isnan(r.get("source bytes", math.nan))
                 else f"{r['source bytes'] / 1000:.1f} kB"]
        for p in peers:
            cells.append(f"{r[p]:.1f}" if p in r else "n/a")
        for p in peers:
            cells.append(f"{r[f'{p} compile s']:.3g} s" if p in r else "")
        cells.append("ok" if r["ok"] else "WRONG")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--arrays", action="store_true",
                        help="only the numpy and research rows (c), (r)")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--machine", default="")
    parser.add_argument("--nested", nargs=2, metavar=("PROGRAM", "MODE"),
                        help="one (d) row, as JSON (what the full run starts for each)")
    parser.add_argument("--all-cores", action="store_true",
                        help="do not pin the process to one CPU (jax.jit then uses them all)")
    args = parser.parse_args(argv)
    if not args.all_cores:
        from run import one_core
        pinned = one_core() is not None
    else:
        pinned = False
    if args.nested:
        import json
        r = nested_row(*args.nested)
        print(json.dumps({k: (bool(v) if k == "ok" else v) for k, v in r.items()}))
        return 0
    if args.arrays:
        rows = []
        _numpy_rows(rows)
    else:
        rows = workloads(args.quick)
    text = table(rows)
    print(text)
    if args.record:
        import subprocess
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=HERE).stdout.strip()
        with open(os.path.join(HERE, "RESULTS.md"), "a") as fh:
            fh.write(f"\n## dvlad.compile at {commit} ({time.strftime('%Y-%m-%d')}"
                     f"{', ' + args.machine if args.machine else ''})\n\n"
                     f"`python benchmarks/compiled.py{' --arrays' * args.arrays}"
                     f"{' --quick' * args.quick} --record`: "
                     f"ratios to the baseline in the "
                     f"same process (medians of interleaved repeats)"
                     f"{'; pinned to one CPU, jax.jit and torch.compile included' * pinned}"
                     f".\n\n{text}\n")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
