"""autograd's side of the benchmark suite (see workloads.py for what each name computes).

Peer operators, all eager (autograd traces every call):
  (a) autograd.deriv: forward mode (autograd's JVP tracer), one pass.
  (a') autograd.grad nested 6 times (reverse over reverse ...); autograd has no Taylor mode.
      autograd.deriv nested 6 times is ~10–15% cheaper here, elementwise_grad about the same.
  (b) autograd.grad of workloads.rosenbrock itself on a numpy float64 array (x[i] is an ArrayBox).
  (c) HVP forward-over-reverse: autograd.make_jvp(autograd.grad(rosen)) at x along v;
      gradient: autograd.grad.  rosen is workloads.rosen_np written with autograd.numpy.
  (d) gradient_F: autograd.deriv once per input (forward mode);
      gradient_R: one autograd.grad over the tuple of inputs (reverse mode).
      autograd's boxes carry trace ids, so nesting is free of perturbation confusion.
"""
from importlib.metadata import version

import autograd.numpy as anp
import numpy as np
from autograd import deriv, grad, make_jvp
from workloads import rosen_start, rosenbrock
from nested_optimization import System  # examples/, put on the path by workloads (import it first)

VERSION = version("autograd")  # autograd has no __version__


def f(x):
    return anp.exp(anp.sin(x)) * x


def derivative_a():
    df = deriv(f)
    return lambda: float(df(0.7))


def derivative6_a():
    d6 = f
    for _ in range(6):
        d6 = grad(d6)
    return lambda: float(d6(0.7))


def gradient_b(n):
    g, x = grad(rosenbrock), np.array(rosen_start(n))
    return lambda: g(x)


def rosen(x):
    return anp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def hvp_c(x, v):
    hvp = make_jvp(grad(rosen))
    return lambda: hvp(x)(v)[1]


def gradient_c(x):
    g = grad(rosen)
    return lambda: g(x)


def along(f, x, i):
    """f as a function of x[i] alone."""
    return lambda xi: f(x[:i] + [xi] + x[i + 1:])


def gradient_F(f):
    def gradient(x):
        x = list(x)
        return [deriv(along(f, x, i))(xi) for i, xi in enumerate(x)]
    return gradient


def gradient_R(f):
    def gradient(x):
        n = len(x)
        return list(grad(lambda *xs: f(list(xs)), argnum=tuple(range(n)))(*x))
    return gradient


SYSTEM = System("autograd", gradient_F, gradient_R, anp.sqrt, anp.exp)
