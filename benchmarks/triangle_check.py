"""How much the triangle check of np.linalg.solve costs the GP gradient by Cholesky, n = 200:
the kept-mask gather (dvlad/arrays/solving.py) against np.triu/np.tril, interleaved in one
process, 15 pairs, the median of the ratios (benchmarks/RESULTS.md, ninth session).

    python benchmarks/triangle_check.py
"""
import statistics
import timeit

import numpy as np

import dvlad as ad
import dvlad.arrays.solving as S
from research import gp_data, gp_nlml_cholesky


def _by_triu(a):
    if not np.any(np.triu(a, 1)):
        return True
    if not np.any(np.tril(a, -1)):
        return False
    return None


def main():
    theta, D2, y = gp_data(200)
    g = ad.gradient_r(lambda t: gp_nlml_cholesky(t, D2, y))
    kept = S._triangle
    ratios = []
    try:
        for _ in range(15):
            S._triangle = _by_triu
            before = min(timeit.repeat(lambda: g(theta), number=5, repeat=3))
            S._triangle = kept
            ratios.append(min(timeit.repeat(lambda: g(theta), number=5, repeat=3)) / before)
    finally:
        S._triangle = kept
    print(f"GP Cholesky gradient, n = 200, kept mask / np.triu: median "
          f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
