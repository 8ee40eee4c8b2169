"""GP slogdet gradient at n = 200: dvlad.compile's replay, eager dvlad and the hand-written
gradient, best of 5 × 20 calls each, in one process (benchmarks/RESULTS.md, ninth session).

    python benchmarks/gp_replay.py
"""
import timeit

import numpy as np

import dvlad as ad
from research import gp_data, gp_grad, gp_nlml_slogdet


def main():
    theta, D2, y = gp_data(200)
    g = ad.gradient_r(lambda t: gp_nlml_slogdet(t, D2, y))
    c = ad.compile(g)
    c(theta)
    assert np.allclose(c(theta), gp_grad(theta, D2, y, "inv"))
    best = {}
    for name, f in (("replay", lambda: c(theta)), ("eager", lambda: g(theta)),
                    ("by hand", lambda: gp_grad(theta, D2, y, "inv"))):
        best[name] = min(timeit.repeat(f, number=20, repeat=5)) / 20 * 1e3
    print(", ".join(f"{k} {v:.2f} ms" for k, v in best.items()),
          f"(replay {best['replay'] / best['by hand']:.2f}×, eager "
          f"{best['eager'] / best['by hand']:.2f}× the hand-written gradient)")


if __name__ == "__main__":
    main()
