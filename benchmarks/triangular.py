"""The n×n triangular solve behind cholesky's reverse rule: scipy's solve_triangular, dvlad's
trsm where each operand lies (dvlad/arrays/blas_paths.py, trsm) and torch's
linalg.solve_triangular (MKL, when torch is installed), one BLAS thread each, interleaved in
one process; medians in milliseconds (benchmarks/RESULTS.md, thirteenth session).

    python benchmarks/triangular.py [n ...]          # default n = 50 200 1000
"""
import os
import statistics
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import scipy.linalg as sl  # noqa: E402

from dvlad.arrays.blas_paths import trsm as _trsm  # noqa: E402


def main(sizes):
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print("| n | scipy solve_triangular ms | dvlad trsm ms | torch ms |")
    print("|---|---|---|---|")
    for n in sizes:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n))
        lower = np.linalg.cholesky(a @ a.T + n * np.eye(n))
        b = rng.standard_normal((n, n))
        calls = {"scipy": lambda: sl.solve_triangular(lower, b, lower=True, check_finite=False),
                 "dvlad": lambda: _trsm(lower, b, True)}
        if torch is not None:
            tl, tb = torch.tensor(lower), torch.tensor(b)
            calls["torch"] = lambda: torch.linalg.solve_triangular(tl, tb, upper=False)
        assert np.allclose(calls["dvlad"](), calls["scipy"](), rtol=1e-12, atol=1e-12)
        times = {k: [] for k in calls}
        for _ in range(60 if n <= 200 else 8):
            for k, call in calls.items():
                t0 = time.perf_counter()
                call()
                times[k].append(time.perf_counter() - t0)
        ms = {k: f"{statistics.median(v) * 1e3:.3f}" for k, v in times.items()}
        print(f"| {n} | {ms['scipy']} | {ms['dvlad']} | {ms.get('torch', 'n/a')} |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [50, 200, 1000])
