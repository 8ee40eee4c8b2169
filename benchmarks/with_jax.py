"""jax's side of the benchmark suite (see workloads.py for what each name computes).

Eager (no jit), float64, CPU.  Peer operators:
  (a) jax.jvp (forward mode) on a Python float.
  (a') jax.grad nested 6 times, on a Python float (each level re-traces the ones inside it).
      jax's Taylor mode, jax.experimental.jet, is not used here (experimental API).
  (b) jax.grad of workloads.rosenbrock itself on a tuple of Python floats (a pytree of scalars).
      On a jnp array instead, every x[i] with a new i compiles a new indexing kernel on the first
      call (minutes at n = 10³) and costs ~2.5× more per call afterwards.
  (c) HVP forward over reverse: jax.jvp(jax.grad(rosen), (x,), (v,)); gradient: jax.grad.
      rosen is workloads.rosen_np written with jax.numpy.
  (d) gradient_F: jax.jvp once per input (forward mode); gradient_R: one jax.grad over the tuple of
      inputs (reverse mode).  jax's tracers are tagged by level, so nesting is confusion-free.
"""
import jax
import jax.numpy as jnp
import numpy as np
from workloads import rosen_start, rosenbrock
from nested_optimization import System  # examples/, put on the path by workloads (import it first)

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
VERSION = jax.__version__


def f(x):
    return jnp.exp(jnp.sin(x)) * x


def derivative_a():
    return lambda: float(jax.jvp(f, (0.7,), (1.0,))[1])


def derivative6_a():
    d6 = f
    for _ in range(6):
        d6 = jax.grad(d6)
    return lambda: float(d6(0.7))


def gradient_b(n):
    g, x = jax.grad(rosenbrock), tuple(rosen_start(n))
    return lambda: g(x)


def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def hvp_c(x, v):
    g = jax.grad(rosen)
    return lambda: np.asarray(jax.jvp(g, (x,), (v,))[1])


def gradient_c(x):
    g = jax.grad(rosen)
    return lambda: np.asarray(g(x))


def along(f, x, i):
    """f as a function of x[i] alone."""
    return lambda xi: f(x[:i] + [xi] + x[i + 1:])


def gradient_F(f):
    def gradient(x):
        x = list(x)
        return [jax.jvp(along(f, x, i), (xi,), (jnp.ones_like(xi),))[1] for i, xi in enumerate(x)]
    return gradient


def gradient_R(f):
    def gradient(x):
        return list(jax.grad(lambda xs: f(list(xs)))(tuple(x)))
    return gradient


SYSTEM = System("jax", gradient_F, gradient_R, jnp.sqrt, jnp.exp)
