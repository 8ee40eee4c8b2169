"""dvlad's side of the benchmark suite (see workloads.py for what each name computes)."""
import dvlad as ad
from workloads import rosen_np, rosen_start, rosenbrock
from nested_optimization import DVLAD as SYSTEM  # noqa: F401,E402  (examples/: workloads puts it on the path)

VERSION = ad.__version__


def f(x):
    return ad.exp(ad.sin(x)) * x


def derivative_a():
    df = ad.derivative(f)
    return lambda: df(0.7)


def derivative6_a():
    """(a'): one Taylor-tower pass of order 6."""
    d6 = ad.nth_derivative(f, 6)
    return lambda: d6(0.7)


def derivative6_nested_a():
    """(a') by nesting forward mode: derivative(derivative(...(f))), 6 levels, 2⁶ terms."""
    d6 = f
    for _ in range(6):
        d6 = ad.derivative(d6)
    return lambda: d6(0.7)


def gradient_b(n):
    g, x = ad.gradient_r(rosenbrock), rosen_start(n)
    return lambda: g(x)


def hvp_c(x, v):
    return lambda: ad.hvp(rosen_np, x, v)


def gradient_c(x):
    g = ad.gradient_r(rosen_np)
    return lambda: g(x)
