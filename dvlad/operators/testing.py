"""check_grads: the public derivative checker, as JAX and autograd ship one.

For f from a structure of numbers to a structure of numbers, at x, along a seeded random
direction u (and a random output weight w):

- "fwd": J·u by :func:`dvlad.jvp` against central differences (f(x + h·u) − f(x − h·u)) / 2h;
- "rev": the dot-product test ⟨w, J·u⟩ = ⟨Jᵀ·w, u⟩ with Jᵀ·w by :func:`dvlad.vjp` (J·u from
  "fwd" if checked, else from differences);
- order > 1: the same checks, recursively, on x ↦ J(x)·u and x ↦ J(x)ᵀ·w.
"""
import random

import mpmath
import numpy as np

from ..modes.api import jvp, vjp
from ..core.base import MPF
from .matrices import _dot
from ..core.number import strip
from ..core.structures import flatten, flatten_like, unflatten

__all__ = ["check_grads"]


def check_grads(f, x, order=2, modes=("fwd", "rev"), *, eps=None, rtol=None, atol=None,
                seed=0):
    """Check dvlad's derivatives of f at x to ``order`` against differences and each other.

    Raises AssertionError naming the check, the order and the mismatching numbers.

    >>> import dvlad
    >>> check_grads(lambda p: dvlad.sin(p[0]) * p[1], (0.3, 2.0), order=2)
    >>> bad = dvlad.primitive(lambda x: x ** 3, lambda x: (2 * x * x,))    # wrong partial
    >>> check_grads(bad, 1.5, order=1)                     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: check_grads: forward-mode J·u (order 1) does not match central differences...
    """
    unknown = set(modes) - {"fwd", "rev"}
    if unknown or not modes:
        raise ValueError(f"check_grads: modes are 'fwd' and 'rev', got {modes!r}")
    leaves, _ = flatten(x, "check_grads' input")
    precise = any(type(strip(a)) is MPF for a in leaves)
    if eps is None:
        eps = mpmath.mpf(10) ** (-mpmath.mp.dps // 3) if precise else 1e-5
    if rtol is None:
        rtol = mpmath.mpf(10) ** (-mpmath.mp.dps // 3 + 3) if precise else 1e-6
    if atol is None:
        atol = rtol
    _check(f, x, order, tuple(modes), eps, rtol, atol, random.Random(seed), 1)


def _random_like(structure, rng, who):
    """A seeded random direction with the structure, shapes and types of ``structure``."""
    leaves, tree = flatten(structure, who)
    out = []
    for a in leaves:
        b = strip(a)
        if isinstance(b, np.ndarray):
            gen = np.random.default_rng(rng.randrange(2 ** 32))
            out.append(gen.standard_normal(b.shape).astype(np.result_type(b, np.float32)))
        elif type(b) is MPF:
            out.append(MPF(rng.gauss(0, 1)))
        else:
            out.append(rng.gauss(0, 1))
    return unflatten(tree, out)


def _axpy(a, u, x):
    xs, tree = flatten(x, "check_grads' input")
    us = flatten_like(u, tree, "check_grads' direction")
    return unflatten(tree, [xi + a * ui for xi, ui in zip(xs, us)])


def _close(got, want, rtol, atol, what, order, extra=""):
    ws, tree = flatten(want, "check_grads")
    gs = flatten_like(got, tree, "check_grads")
    bad = []
    for g, w in zip(gs, ws):
        g, w = strip(g), strip(w)
        if isinstance(g, np.ndarray) or isinstance(w, np.ndarray):
            g, w = np.asarray(g, dtype=float), np.asarray(w, dtype=float)
            if g.shape != w.shape or not np.all(
                    np.abs(g - w) <= atol + rtol * np.maximum(np.abs(g), np.abs(w))):
                bad.append((g, w))
        elif not abs(g - w) <= atol + rtol * max(abs(g), abs(w)):
            bad.append((g, w))
    if len(gs) != len(ws) or bad:
        raise AssertionError(
            f"check_grads: {what} (order {order}) does not match{extra}: got "
            f"{[strip(g) for g in gs]}, expected {[strip(w) for w in ws]}")


def _check(f, x, order, modes, eps, rtol, atol, rng, level):
    u = _random_like(x, rng, "check_grads' input")
    y, ju = jvp(f, x, u)
    fd = _axpy(-1, f(_axpy(-eps, u, x)), f(_axpy(eps, u, x)))
    fd = unflatten(flatten(fd, "check_grads")[1],
                   [v / (2 * eps) for v in flatten(fd, "check_grads")[0]])
    if "fwd" in modes:
        _close(ju, fd, rtol, atol, "forward-mode J·u", level, " central differences")
    if "rev" in modes:
        w = _random_like(y, rng, "check_grads' output")
        _, pullback = vjp(f, x)
        jtw = pullback(w)
        lhs = _dot(w, ju if "fwd" in modes else fd)
        _close(_dot(jtw, u), lhs, rtol, atol, "reverse-mode ⟨Jᵀ·w, u⟩", level,
               " ⟨w, J·u⟩ (the dot-product test)")
    if order > 1:
        if "fwd" in modes:
            _check(lambda z: jvp(f, z, u)[1], x, order - 1, modes, eps, rtol, atol, rng,
                   level + 1)
        if "rev" in modes:
            _check(lambda z: vjp(f, z)[1](w), x, order - 1, modes, eps, rtol, atol, rng,
                   level + 1)
