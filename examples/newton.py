"""Newton's method with `derivative`, and gradient descent with `gradient_r`.

1. Newton's own example (1669): the real root of x³ − 2x − 5, by x ← x − f(x)/f′(x), with f′
   from dvlad.derivative.  The same code runs on mpmath numbers for 50 digits.
2. The Rosenbrock function (1 − x)² + 100 (y − x²)², minimised by gradient descent from
   (−1.2, 1) with a backtracking (Armijo) step, the gradient from dvlad.gradient_r.

Run:  python examples/newton.py
"""
import math

import mpmath

import dvlad


def newton(f, x, tol, max_steps=100):
    """A root of f near x, by Newton's method; f′ by forward mode."""
    df = dvlad.derivative(f)
    for step in range(1, max_steps + 1):
        dx = f(x) / df(x)
        x = x - dx
        if abs(dx) <= tol * abs(x):
            return x, step
    raise RuntimeError(f"Newton did not converge in {max_steps} steps")


def cubic(x):
    return x ** 3 - 2 * x - 5


def rosenbrock(p):
    x, y = p
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


def gradient_descent(f, p, tol=1e-8, max_steps=20_000):
    """A local minimum of f from p: steepest descent with Armijo backtracking."""
    grad = dvlad.gradient_r(f)
    for step in range(max_steps):
        g = grad(p)
        gg = sum(gi * gi for gi in g)
        if math.sqrt(gg) < tol:
            return p, step
        t, fp = 1.0, f(p)
        while f(tuple(pi - t * gi for pi, gi in zip(p, g))) > fp - 0.5 * t * gg:
            t /= 2
        p = tuple(pi - t * gi for pi, gi in zip(p, g))
    raise RuntimeError(f"gradient descent did not converge in {max_steps} steps")


def main():
    root, steps = newton(cubic, 2.0, tol=1e-15)
    print(f"root of x³ − 2x − 5: {root!r} after {steps} Newton steps")
    assert abs(root - 2.0945514815423265) < 1e-15 and abs(cubic(root)) < 1e-13

    with mpmath.workdps(50):
        root50, steps50 = newton(cubic, mpmath.mpf(2), tol=mpmath.mpf("1e-48"))
        reference = mpmath.findroot(cubic, mpmath.mpf(2))
        print(f"at 50 digits: {mpmath.nstr(root50, 50)} after {steps50} steps")
        assert type(root50) is mpmath.mpf and abs(root50 - reference) < mpmath.mpf("1e-45")

    (x, y), steps = gradient_descent(rosenbrock, (-1.2, 1.0))
    print(f"Rosenbrock minimum from (-1.2, 1): ({x:.10f}, {y:.10f}) after {steps} steps, "
          f"f = {rosenbrock((x, y)):.3e}")
    assert abs(x - 1) < 1e-6 and abs(y - 1) < 1e-6
    assert dvlad.gradient_r(rosenbrock)((1.0, 1.0)) == (0.0, 0.0)


if __name__ == "__main__":
    main()
