"""The derivative operators (forward mode's in :mod:`.forward`, imported here).  Naming: ``_f`` =
forward mode, ``_r`` = reverse mode; ``jvp`` pushes a tangent forward, ``vjp`` pulls a
sensitivity back.  Each call of an operator makes a fresh tag, so
every operator nests inside every other, to any depth.

Structures: inputs are real numbers, arrays, or nested tuples/lists/dicts of them; gradients come
back in the same structure.  Jacobians, Hessians and HVPs are in :mod:`dvlad.matrices`.
"""
import numpy as np

from ..core.base import one_like, zero_like
from ..core.number import ADNumber, strip, strip_dead
from ..core.structures import as_real, direction_like, flatten, flatten_like, in_precision, \
    like_leaf, map_leaves, precision, unflatten
from ..core.switch import REFERENCE
from ..core.tags import REVERSE, new_tag
from ..numbers.bundle import Bundle, primal_of
from ..numbers.tape import TapeCell, gc_paused, make_cell
from .common import Applied, Bound, _same_shapes, _scalar, unboxed
# forward mode's operators live in .forward; they are dvlad.modes.api's too
from .forward import derivative, directional_derivative, jvp  # noqa: F401
from .sweep import left_out, structural, sweep

__all__ = ["derivative", "gradient_r", "value_and_gradient_r", "jvp", "directional_derivative",
           "vjp", "primal", "stop_gradient"]


def flat_scalars(x):
    """x's elements (dead layers stripped) if x is a plain list or tuple of real scalars: floats,
    or AD numbers over floats; else None.  The common case of the gradient operators, which
    then skip the generic structure walk (the nested-optimization programs of BENCHMARKS.md
    call them on 2-vectors thousands of times: flatten/unflatten was half their time)."""
    t = type(x)
    if t is not list and t is not tuple or REFERENCE:
        return None
    out = []
    for a in x:
        ta = type(a)
        if ta is not float:
            if ta is not Bundle and ta is not TapeCell:
                return None
            if not a.tag.live:
                a = strip_dead(a)
            if type(strip(a)) is not float:
                return None
        out.append(a)
    return out


class Recording:
    """One reverse pass of f at x: its (now dead) tag, tape, input cells and output leaves."""

    __slots__ = ("tag", "tape", "tree", "leaves", "cells", "outs", "out_tree")


def record(f, x, origin, scalar=False, keep=False):
    """Run f on fresh cells of a new reverse tag; the tag dies when f returns.

    ``scalar``: f must return one real number (gradients); else any structure of numbers.
    ``keep``: the tape will be swept after f returns, maybe much later (vjp's pullback): input
    arrays are copied, so that changing them afterwards cannot change the derivatives.
    The tape stays readable: sweeps need only its links, never the tag's liveness.
    """
    rec = Recording()
    leaves, rec.tree = flatten(x, f"{origin}'s input")
    rec.leaves = [as_real(strip_dead(a)) for a in leaves]
    if keep:
        rec.leaves = [a.copy() if type(a) is np.ndarray else a for a in rec.leaves]
    rec.tag = tag = new_tag(REVERSE, origin)
    rec.tape = tag.tape = []
    try:
        with gc_paused():
            rec.cells = [make_cell(tag, a, ()) for a in rec.leaves]
            y = f(unflatten(rec.tree, rec.cells))
            if scalar:
                rec.outs, rec.out_tree = [_scalar(y, f"{origin}'s function value")], None
            else:
                rec.outs, rec.out_tree = flatten(y, f"{origin}'s result", result=True)
            rec.outs = [strip_dead(u) for u in rec.outs]
    finally:
        tag.tape = None
        tag.live = False
    return rec


def sensitivities(rec, bars, consume=False):
    """The sweep of ``rec``'s tape from its outputs with sensitivities ``bars``: a list by index.

    ``consume``: no other sweep of this tape will follow, so it may be released as it goes.
    """
    seeds = [(u, structural(b)) for u, b in zip(rec.outs, bars)
             if type(u) is TapeCell and u.tag is rec.tag and not left_out(b)]
    with gc_paused():
        return sweep(rec.tape, seeds, consume) if seeds else [None] * len(rec.tape)


def _gradient_of(rec, bars, consume=False):
    sens = sensitivities(rec, bars, consume)
    values = rec.outs + list(bars)
    # the common case, float64 values and cotangents (or Python floats): a float64 array's
    # gradient that came out float64 is in its precision already
    f64 = True
    for v in values:
        b = strip(v)
        if type(b) is not float and getattr(b, "dtype", None) is not _FLOAT64:
            f64 = False
            break
    out = []
    for i, a in enumerate(rec.leaves):     # (leaf i is cell i of the fresh tape: by index, for
        g = sens[i]                         # f may have assigned into it, x[0] = v, since)
        if g is None:
            g = zero_like(strip(a))
        elif f64:
            b, ba = strip(g), strip(a)
            if type(b) is np.ndarray and type(ba) is np.ndarray and b.dtype is _FLOAT64 \
                    and ba.dtype is _FLOAT64 and b.shape == ba.shape:
                out.append(g)
                continue
        out.append(in_precision(like_leaf(g, a), precision(a, values)))
    return unflatten(rec.tree, _own(out, bars))


_FLOAT64 = np.dtype(np.float64)


def _own(values, given):
    """Result arrays the caller may keep and write: a read-only view (the broadcast seed of a
    sum), an array returned twice, or one the caller passed in is copied."""
    seen = {id(b) for b in given}
    out = []
    for v in values:
        if type(v) is np.ndarray and (not v.flags.writeable or id(v) in seen):
            v = v.copy()
        seen.add(id(v))
        out.append(v)
    return out


def vjp(f, x):
    """(f(x), pullback) by one reverse pass: pullback(ȳ) = J(f)(x)ᵀ·ȳ, in x's structure.

    The pullback may be called many times; ȳ has the structure of f(x).

    >>> y, back = vjp(lambda p: (p[0] * p[1], p[0]), (2.0, 3.0))
    >>> y, back((1.0, 0.0)), back((0.0, 1.0))
    ((6.0, 2.0), (3.0, 2.0), (1.0, 0.0))
    """
    return _vjp(f, x, "vjp")


def _vjp(f, x, origin):
    rec = record(f, x, origin, keep=True)
    y_primal = unflatten(rec.out_tree, [primal_of(u, rec.tag) for u in rec.outs])

    def pullback(ybar):
        bars = flatten_like(ybar, rec.out_tree, "the pullback's input", "the result")
        _same_shapes(rec.outs, bars, "pullback: the cotangent", "the result")
        return _gradient_of(rec, [direction_like(strip_dead(b), u)
                                  for b, u in zip(bars, rec.outs)])
    return y_primal, pullback


def gradient_r(f, argnums=0, has_aux=False):
    """∇f by one reverse pass: x ↦ (∂f/∂x_j)_j in x's structure, for real-valued f.

    ``argnums``: for f of several arguments, which to differentiate in (an int, or a tuple:
    a tuple of gradients); the others are held constant.  ``has_aux``: f returns
    ``(value, aux)`` and the result is ``(gradient, aux)``.

    >>> gradient_r(lambda p: p[0] * p[1])((2.0, 3.0))
    (3.0, 2.0)
    >>> gradient_r(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0)
    (3.0, 2.0)
    """
    if argnums != 0 or has_aux:
        return Bound(gradient_r, f, argnums, has_aux)
    return _GradientR(f)


def value_and_gradient_r(f, argnums=0, has_aux=False):
    """(f(x), ∇f(x)) from one reverse pass; with ``has_aux``, ((value, aux), gradient).

    >>> value_and_gradient_r(lambda x: x * x)(3.0)
    (9.0, 6.0)
    """
    bound = Bound(_ValueAndGradient, f, argnums, has_aux)
    return _AuxFirst(bound) if has_aux else bound


class _ValueAndGradient(Applied):
    """value_and_gradient_r(f), applied at one point."""
    __slots__ = ()
    origin = "value_and_gradient_r"

    def __call__(self, x):
        rec = record(self.f, x, "value_and_gradient_r", scalar=True)
        value = primal_of(rec.outs[0], rec.tag)
        return strip_dead(value), _gradient_of(rec, [one_like(strip(rec.outs[0]))], consume=True)


class _AuxFirst(Applied):
    """((value, gradient), aux) as ((value, aux), gradient): JAX's order for value_and_grad."""
    __slots__ = ()
    origin = "value_and_gradient_r"

    def __call__(self, *args):
        (value, grad), aux = self.f(*args)
        return (value, aux), grad


def _gradient_of_scalars(f, leaves, kind):
    """gradient_r at a list or tuple of scalars: record and gradient without structure walks."""
    tag = new_tag(REVERSE, "gradient_r")
    tape = tag.tape = []
    with gc_paused():                   # once for taping and sweep: entering it costs ~1 µs
        try:
            cells = [make_cell(tag, a, ()) for a in leaves]
            y = unboxed(f(kind(cells)))
            if isinstance(y, ADNumber) and not y.tag.live:
                y = strip_dead(y)               # an escaped layer over the result: a constant
        finally:
            tag.tape = None
            tag.live = False
        if type(y) is not TapeCell or y.tag is not tag:
            _scalar(y, "gradient_r's function value")      # a constant: every partial is 0
            return kind([0.0] * len(leaves))
        p = strip(y)
        if type(p) is not float:
            _scalar(y, "gradient_r's function value")
        sens = sweep(tape, [(y, one_like(p))], True)
    return kind([0.0 if sens[c.index] is None else sens[c.index] for c in cells])


class _GradientR(Applied):
    """gradient_r(f), applied: callable, and picklable when f is (for process pools, Dask)."""

    __slots__ = ()
    origin = "gradient_r"

    def __call__(self, x, *rest, **keywords):
        f = self.f
        if rest or keywords:                         # f(x, *rest): in x, the rest constant
            return Bound(gradient_r, f)(x, *rest, **keywords)
        leaves = flat_scalars(x)
        if leaves is not None:
            return _gradient_of_scalars(f, leaves, type(x))
        rec = record(f, x, "gradient_r", scalar=True)
        return _gradient_of(rec, [one_like(strip(rec.outs[0]))], consume=True)



def primal(x):
    """x with every perturbation stripped: the plain numbers, in x's structure.

    >>> primal(3.0)
    3.0
    """
    if isinstance(x, ADNumber) or not isinstance(x, (tuple, list, dict)):
        return strip(x)
    return map_leaves(strip, x, "primal's input")


def stop_gradient(x):
    """x with every perturbation stripped, JAX's name for :func:`primal`: the value, in x's
    structure, as a constant of every derivative being taken.

    >>> derivative(lambda x: x * stop_gradient(x))(3.0)
    3.0
    """
    return primal(x)
