"""Two choices of dvlad.compile's code generation, each timed on and off in one process
(benchmarks/RESULTS.md, fourteenth session):

  pooled   a replay's large elementwise results and matrix products computed into pooled
           arrays (dvlad/operators/compile/buffers.py), against numpy's fresh arrays: the GP
           gradient by slogdet at n = 200 (#17's r1), replayed after a GP-by-Cholesky function
           was compiled and called in the same process, as benchmarks/compiled.py does — the
           allocator's history that made fresh arrays fault there.  Reports the replay's time
           over the hand-written gradient's and the minor page faults per replay.
  lanes    a partial that branches per lane (tanh′, maximum′) recorded as one select/pick call
           that takes eager dvlad's lanes (dvlad/core/vectorize.py), against both branches and
           np.where: the MLP gradients (#17's r3), replay time over the hand-written gradient.

Each "off" variant is made by switching the choice off while its function is traced (a
benchmark-only patch of the module; nothing else differs).  Blocks of calls of each variant and
of the baseline alternate; cells are medians of per-round ratios.

    python benchmarks/replay_choices.py [pooled|lanes ...]      # default: both
"""
import os
import resource
import statistics
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import dvlad as ad  # noqa: E402
import dvlad.core.vectorize as vectorize  # noqa: E402
import dvlad.operators.compile.codegen as codegen  # noqa: E402
import research as R  # noqa: E402

ROUNDS = 7


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _block(fn, k):
    f0, t = _faults(), time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t) / k, (_faults() - f0) / k


def _compare(name, base, variants, k):
    """variants: {label: thunk}; prints ratio to base and faults per call of each."""
    ratios = {v: [] for v in variants}
    faults = {v: [] for v in variants}
    for _ in range(ROUNDS):
        tb, _fb = _block(base, k)
        for v, thunk in variants.items():
            t, f = _block(thunk, k)
            ratios[v].append(t / tb)
            faults[v].append(f)
    for v in variants:
        print(f"| {name} | {v} | {statistics.median(ratios[v]):.2f}× | "
              f"{statistics.median(faults[v]):.0f} |")


def _traced_without(patch, fn, *args):
    """ad.compile(fn), traced (two calls) with ``patch`` = (module, attribute, value) set."""
    module, attr, value = patch
    before = getattr(module, attr)
    setattr(module, attr, value)
    try:
        c = ad.compile(fn)
        c(*args)
        c(*args)
    finally:
        setattr(module, attr, before)
    return c


def pooled():
    theta, D2, y = R.gp_data(200)
    chol = ad.compile(ad.gradient_r(lambda t: R.gp_nlml_cholesky(t, D2, y)))
    chol(theta)
    chol(theta)                                  # (the allocator's history of compiled.py)
    g = ad.gradient_r(lambda t: R.gp_nlml_slogdet(t, D2, y))
    on = ad.compile(g)
    on(theta)
    on(theta)
    off = _traced_without((codegen, "pooled_call", lambda *a: None), g, theta)
    assert "out=" in on.source() and "out=" not in off.source()
    assert np.array_equal(on(theta), off(theta))
    _compare("GP gradient by slogdet, n = 200, replay", lambda: R.gp_grad(theta, D2, y, "inv"),
             {"pooled out= (on)": lambda: on(theta), "numpy's arrays (off)": lambda: off(theta)},
             20)


def lanes():
    params, X, Y = R.mlp_data(256)
    for act in ("tanh", "relu"):
        g = ad.gradient_r(lambda p, act=act: R.mlp_loss(p, X, Y, act))
        on = ad.compile(g)
        on(params)
        on(params)
        off = _traced_without((vectorize, "REFERENCE", True), g, params)   # (both + where)
        call = "select(" if act == "tanh" else "pick("
        assert call in on.source() and call not in off.source()
        _compare(f"MLP gradient, {act}, batch 256, replay",
                 lambda act=act: R.mlp_grad(params, X, Y, act),
                 {f"one {call[:-1]} call (on)": lambda: on(params),
                  "both branches, where (off)": lambda: off(params)}, 10)


def main(which):
    print("| workload | variant | time ÷ hand-written | minor faults per call |")
    print("|---|---|---|---|")
    for w in which:
        {"pooled": pooled, "lanes": lanes}[w]()


if __name__ == "__main__":
    main(sys.argv[1:] or ["pooled", "lanes"])
