"""Newton–CG on numpy code: gradients by reverse mode, Hessian-vector products by forward over
reverse, and never a Hessian.

Each outer step solves H·p = −g approximately by conjugate gradients and stops early (truncated
Newton; Nocedal & Wright, Numerical Optimization, Algorithm 7.1).  CG needs only products H·v.
`dvlad.hvp(f, x, v)` computes one as the forward derivative of `dvlad.gradient_r(f)` along v,
for the cost of a few gradients, and never forms the n × n Hessian.  A backtracking (Armijo)
line search along p keeps every step downhill.  The functions are ordinary numpy code: slices,
`**`, `np.sum`.  n = 1000, start x_i = 0.5 + 0.4·sin i.

1. The chained Rosenbrock function of shared/BENCHMARKS.md, workload (c):
       f(x) = Σ_{i<n−1} 100·(x_{i+1} − x_i²)² + (1 − x_i)²
   One H·v from dvlad is checked against H·v worked out by hand.
2. Newton–CG minimizes the extended Rosenbrock function, which pairs the coordinates:
       f(x) = Σ_k 100·(x_{2k+1} − x_{2k}²)² + (1 − x_{2k})²,    minimizer (1, ..., 1).
   It converges in 22 outer steps.  Why not the chained function: from this start the
   iterates fall into its curved valley x_{i+1} ≈ x_i², and following it to (1, ..., 1) takes
   a number of Newton steps that grows with n.  scipy.optimize.minimize(method="trust-ncg")
   with the exact H·v (scipy 1.17.1) needed 47, 425 and 4055 iterations at n = 10, 100 and
   1000, and `newton_cg` below takes f from 1.1e4 to 965 in 50 steps and stalls there.

Run:  python examples/newton_cg.py
"""
import time

import numpy as np

import dvlad


def rosenbrock(x):
    """The chained Rosenbrock function."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hvp(x, v):
    """H(x)·v for the chained Rosenbrock function, worked out by hand: H is tridiagonal."""
    hv = np.zeros_like(x)
    hv[:-1] = (1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    hv[1:] += 200.0 * v[1:] - 400.0 * x[:-1] * v[:-1]
    return hv


def extended_rosenbrock(x):
    """The extended Rosenbrock function: n/2 independent pairs (x_{2k}, x_{2k+1})."""
    return np.sum(100.0 * (x[1::2] - x[::2] ** 2) ** 2 + (1.0 - x[::2]) ** 2)


def cg_direction(hvp, g, tol, max_iter):
    """An approximate solution p of H·p = −g by conjugate gradients, from p = 0.

    Stops when ‖H·p + g‖ ≤ tol, or at a direction of non-positive curvature dᵀHd ≤ 0, where the
    current p (or −g on the first iteration) is still a descent direction.  Returns (p, products).
    """
    p = np.zeros_like(g)
    r = g.copy()                     # the residual H·p + g
    d = -r
    rr = r @ r
    for k in range(max_iter):
        hd = hvp(d)
        curvature = d @ hd
        if curvature <= 0:
            return (-g if k == 0 else p), k + 1
        alpha = rr / curvature
        p = p + alpha * d
        r = r + alpha * hd
        rr_new = r @ r
        if np.sqrt(rr_new) <= tol:
            return p, k + 1
        d = -r + (rr_new / rr) * d
        rr = rr_new
    return p, max_iter


def newton_cg(f, x, gtol=1e-8, max_steps=50):
    """A local minimizer of f from x by line-search Newton–CG; f′ and f″·v from dvlad."""
    grad = dvlad.gradient_r(f)
    for step in range(max_steps):
        g = grad(x)
        gnorm = np.linalg.norm(g)
        fx = f(x)
        if gnorm <= gtol:
            print(f"  step {step:2d}  f = {fx:.6e}  |grad f| = {gnorm:.3e}")
            return x, step
        # Forcing term min(½, √‖g‖)·‖g‖: loose far away, tight near the minimum (superlinear).
        tol = min(0.5, np.sqrt(gnorm)) * gnorm
        p, products = cg_direction(lambda v: dvlad.hvp(f, x, v), g, tol, max_iter=len(x))
        print(f"  step {step:2d}  f = {fx:.6e}  |grad f| = {gnorm:.3e}  ({products} H·v)")
        t, slope = 1.0, g @ p
        while f(x + t * p) > fx + 1e-4 * t * slope:
            t *= 0.5
        x = x + t * p
    raise RuntimeError(f"Newton–CG did not converge in {max_steps} steps")


def main():
    n = 1000
    i = np.arange(n)
    x0 = 0.5 + 0.4 * np.sin(i)

    # 1. One Hessian-vector product against the hand-derived one (BENCHMARKS.md, (c)).
    v = np.cos(i)
    got, want = dvlad.hvp(rosenbrock, x0, v), rosenbrock_hvp(x0, v)
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    print(f"chained Rosenbrock, n = {n}: dvlad.hvp along v_i = cos i differs from the "
          f"analytic H·v by {err:.1e} (relative)")
    assert got.shape == (n,) and err < 1e-13

    # 2. Newton–CG.
    print(f"Newton–CG on the extended Rosenbrock function, n = {n}, from x_i = 0.5 + 0.4·sin i:")
    start = time.perf_counter()
    x, steps = newton_cg(extended_rosenbrock, x0)
    seconds = time.perf_counter() - start
    print(f"converged in {steps} outer steps ({seconds:.2f} s); "
          f"max |x_i − 1| = {np.max(np.abs(x - 1)):.1e}")
    assert steps <= 30
    assert np.max(np.abs(x - 1.0)) < 1e-8 and extended_rosenbrock(x) < 1e-16


if __name__ == "__main__":
    main()
