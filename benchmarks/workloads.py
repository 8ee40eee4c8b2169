"""The workloads of shared/BENCHMARKS.md, their baselines, and what every system provides.

Each system (dvlad and each peer) is a module ``benchmarks/with_<name>.py`` that imports its
library at the top (an ImportError there means: not installed, skipped) and defines

    VERSION            the library's version string
    derivative_a()     a callable: f'(0.7) for f(x) = exp(sin x)·x, as a float        (a)
    derivative6_a()    a callable: f⁽⁶⁾(0.7) for the same f, as a float                 (a')
    derivative6_nested_a()  optional: f⁽⁶⁾(0.7) by nesting a first-derivative operator
                       6 times, for a system whose derivative6_a does something else (dvlad's
                       is a Taylor tower); absent for the peers, whose derivative6_a already
                       nests their gradient operator (the table says n/a)               (a')
    gradient_b(n)      a callable: ∇ of the loop Rosenbrock at rosen_start(n), n floats  (b)
    hvp_c(x, v)        a callable: the Rosenbrock HVP at numpy arrays x, v (fwd over rev) (c)
    gradient_c(x)      a callable: the Rosenbrock gradient at x, a numpy array           (c)
    SYSTEM             an examples/nested_optimization.System, for saddle and particle    (d)

A callable may be None where the library cannot express the workload (the table says n/a).
The baselines below are plain Python/numpy, timed in the same process as the system ((a') is
timed against (a)'s baseline, f on floats); (a')'s reference is f_derivative(6), exact.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))


def f_math(x):
    """(a)'s f on floats: exp(sin x)·x."""
    return math.exp(math.sin(x)) * x


def df_math(x):
    """(a)'s f′, by hand: exp(sin x)·(x cos x + 1)."""
    return math.exp(math.sin(x)) * (x * math.cos(x) + 1.0)


def f_derivative(n, x=0.7):
    """(a′)'s reference: f⁽ⁿ⁾(x) for f(x) = exp(sin x)·x, computed by hand at 30 digits, as a
    float.  With g = exp(sin x), g′ = cos x·g = sin′(x)·g, so by Leibniz
    g⁽ᵐ⁾ = Σ_{k<m} C(m−1, k)·sin⁽ᵏ⁺¹⁾(x)·g⁽ᵐ⁻¹⁻ᵏ⁾
    with sin⁽ʲ⁾(x) = sin(x + jπ/2), and
    f⁽ⁿ⁾ = x·g⁽ⁿ⁾ + n·g⁽ⁿ⁻¹⁾.  x is taken exactly (the float 0.7, not 7/10).
    f_derivative(6) = 103.48304143441074 (103.483041434410729781… at 30 digits)."""
    import mpmath
    with mpmath.workdps(30):
        x = mpmath.mpf(x)
        s = [mpmath.sin(x + j * mpmath.pi / 2) for j in range(n + 1)]
        g = [mpmath.exp(s[0])]
        for m in range(1, n + 1):
            g.append(sum(math.comb(m - 1, k) * s[k + 1] * g[m - 1 - k] for k in range(m)))
        return float(x * g[n] + (n * g[n - 1] if n else 0))


def rosenbrock(x):
    """(b): chained Rosenbrock as a Python loop over scalars, x·x as a product."""
    total = 0.0
    for i in range(len(x) - 1):
        a = x[i + 1] - x[i] * x[i]
        b = 1.0 - x[i]
        total = total + 100.0 * a * a + b * b
    return total


def rosen_start(n):
    return [-1.2 if i % 2 == 0 else 1.0 for i in range(n)]


def rosenbrock_gradient(x):
    """(b)'s gradient by hand (to check every system's answer)."""
    g = [0.0] * len(x)
    for i in range(len(x) - 1):
        a = x[i + 1] - x[i] * x[i]
        g[i] += -400.0 * x[i] * a - 2.0 * (1.0 - x[i])
        g[i + 1] += 200.0 * a
    return g


def rosen_np(x):
    """(c): the same function on a numpy array, with slices."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosen_np_grad(x):
    """(c)'s baseline: the analytic gradient in numpy."""
    g = np.zeros_like(x)
    a = x[1:] - x[:-1] ** 2
    g[:-1] += -400.0 * x[:-1] * a - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * a
    return g


def rosen_np_hvp(x, v):
    """(c)'s baseline: the analytic Hessian-vector product in numpy."""
    h = np.zeros_like(x)
    a = x[1:] - x[:-1] ** 2
    h[:-1] += (-400.0 * a + 800.0 * x[:-1] ** 2 + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    h[1:] += -400.0 * x[:-1] * v[:-1] + 200.0 * v[1:]
    return h


def rosen_np_point(n):
    """(c)'s x and v: x_i = 0.5 + 0.4 sin i, v_i = cos i."""
    i = np.arange(n)
    return 0.5 + 0.4 * np.sin(i), np.cos(i)
