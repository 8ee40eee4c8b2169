"""Where workload (c)'s time goes besides numpy's arithmetic: memory.

    python benchmarks/memory.py [n ...]        # default n = 10**5 10**6

For gradient_r and hvp of the numpy Rosenbrock and the hand-written versions (benchmarks/run.py):
peak traced memory (tracemalloc) in arrays of n float64, and minor page faults per call
(resource.getrusage), i.e. fresh pages the kernel had to zero because glibc had returned them.
"""
import resource
import sys
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dvlad as ad  # noqa: E402
from workloads import rosen_np, rosen_np_grad, rosen_np_hvp  # noqa: E402


def faults_per_call(fn, calls=10):
    fn()
    fn()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def peak_arrays(fn, n):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / (8 * n)


def main():
    for n in [int(float(a)) for a in sys.argv[1:]] or [10 ** 5, 10 ** 6]:
        i = np.arange(n)
        x, v = 0.5 + 0.4 * np.sin(i), np.cos(i)
        for name, fn in (("f", lambda: rosen_np(x)),
                         ("gradient_r", lambda: ad.gradient_r(rosen_np)(x)),
                         ("hand gradient", lambda: rosen_np_grad(x)),
                         ("hvp", lambda: ad.hvp(rosen_np, x, v)),
                         ("hand HVP", lambda: rosen_np_hvp(x, v))):
            print(f"n={n:<8} {name:<14} peak {peak_arrays(fn, n):5.1f} arrays of n   "
                  f"{faults_per_call(fn):8.0f} minor faults per call", flush=True)


if __name__ == "__main__":
    main()
