"""torch's side of the benchmark suite (see workloads.py for what each name computes).

CPU, one thread, float64, eager.  Peer operators:
  (a) forward-mode dual numbers, torch.autograd.forward_ad (the cheapest of forward_ad,
      torch.func.jvp and a backward pass here) on a 0-d tensor.
  (a') torch.autograd.grad with create_graph=True, 6 times in a row on a 0-d tensor (the
      eager recipe for higher derivatives; torch.func.grad nested 6 times costs ~2× more, and
      forward_ad dual levels do not nest).  torch has no Taylor mode.
  (b) torch.autograd.grad of workloads.rosenbrock itself on a 1-D tensor requiring grad.
  (c) HVP by double backward (reverse over reverse: torch.autograd.grad with create_graph=True,
      then a vector-Jacobian product with v), the recipe of torch.autograd.functional.hvp and
      faster here than forward over reverse, torch.func.jvp(torch.func.grad(f));
      gradient: torch.autograd.grad.  rosen is workloads.rosen_np with torch ops on slices.
  (d) torch.func throughout, the composable transforms that nest (torch.autograd.grad inside
      torch.func.jvp is refused, and forward_ad dual levels do not nest):
      gradient_F: torch.func.jvp once per input; gradient_R: one torch.func.grad over the tuple of
      inputs.  Scalars are 0-d tensors; functorch's levels keep nested perturbations apart.
"""
import math

import torch
import torch.autograd.forward_ad as fwAD
from workloads import rosen_start, rosenbrock
from nested_optimization import System  # examples/, put on the path by workloads (import it first)

torch.set_num_threads(1)
VERSION = torch.__version__
f64 = torch.float64


def f(x):
    return torch.exp(torch.sin(x)) * x


def derivative_a():
    def derivative():
        with fwAD.dual_level():
            x = fwAD.make_dual(torch.tensor(0.7, dtype=f64), torch.tensor(1.0, dtype=f64))
            return fwAD.unpack_dual(f(x)).tangent.item()
    return derivative


def derivative6_a():
    def derivative6():
        x = torch.tensor(0.7, dtype=f64, requires_grad=True)
        y = f(x)
        for k in range(6):
            y, = torch.autograd.grad(y, x, create_graph=k < 5)
        return y.item()
    return derivative6


def gradient_b(n):
    x0 = rosen_start(n)

    def gradient():
        x = torch.tensor(x0, dtype=f64, requires_grad=True)
        return torch.autograd.grad(rosenbrock(x), x)[0].numpy()
    return gradient


def rosen(x):
    return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def hvp_c(x, v):
    def hvp():
        xt = torch.from_numpy(x).requires_grad_()
        g, = torch.autograd.grad(rosen(xt), xt, create_graph=True)
        return torch.autograd.grad(g, xt, torch.from_numpy(v))[0].numpy()
    return hvp


def gradient_c(x):
    def gradient():
        xt = torch.from_numpy(x).requires_grad_()
        return torch.autograd.grad(rosen(xt), xt)[0].numpy()
    return gradient


def scalar(v):
    """A float or an outer level's 0-d tensor, as a 0-d float64 tensor."""
    return v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=f64)


def along(f, x, i):
    """f as a function of x[i] alone."""
    return lambda xi: f(x[:i] + [xi] + x[i + 1:])


def gradient_F(f):
    def gradient(x):
        x = [scalar(v) for v in x]
        return [torch.func.jvp(along(f, x, i), (xi,), (torch.ones_like(xi),))[1]
                for i, xi in enumerate(x)]
    return gradient


def gradient_R(f):
    def gradient(x):
        return list(torch.func.grad(lambda xs: f(list(xs)))(tuple(scalar(v) for v in x)))
    return gradient


def sqrt(v):
    return torch.sqrt(v) if isinstance(v, torch.Tensor) else math.sqrt(v)


def exp(v):
    return torch.exp(v) if isinstance(v, torch.Tensor) else math.exp(v)


SYSTEM = System("torch", gradient_F, gradient_R, sqrt, exp)
