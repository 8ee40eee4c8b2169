"""hvp(scipy.optimize.rosen) against the same function without np.asanyarray, n = 1000 (issue #17):
15 alternating pairs in one process, the median of the ratios (benchmarks/RESULTS.md)."""
import statistics
import time

import numpy as np
import scipy.optimize as so

import dvlad as ad


def rosen_plain(x):
    """scipy's expression without xp_promote and dtype=."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0, axis=0)


def main():
    x, v = np.linspace(0.1, 1.2, 1000), np.cos(np.arange(1000))
    ad.hvp(so.rosen, x, v)
    ad.hvp(rosen_plain, x, v)
    r = []
    for _ in range(15):
        t = time.perf_counter()
        ad.hvp(so.rosen, x, v)
        a = time.perf_counter() - t
        t = time.perf_counter()
        ad.hvp(rosen_plain, x, v)
        r.append(a / (time.perf_counter() - t))
    print(f"hvp(scipy.optimize.rosen) / hvp(rosen_plain), n = 1000: "
          f"median {statistics.median(r):.2f}, min {min(r):.2f}")


if __name__ == "__main__":
    main()
