"""The derivative operators.  Naming: ``_f`` = forward mode, ``_r`` = reverse mode; ``jvp`` pushes a
tangent forward, ``vjp`` pulls a sensitivity back.  Each call of an operator makes a fresh tag, so
every operator nests inside every other, to any depth.

Structures: inputs are real numbers, arrays, or nested tuples/lists/dicts of them; gradients come
back in the same structure.  Jacobians, Hessians and HVPs are in :mod:`dvlad.matrices`.
"""
import functools

import numpy as np

from ..core.base import one_like, zero_like
from ..numbers.bundle import Bundle, make_bundle, primal_of, tangent_of
from ..numbers.partials import SEEDS
from ..core.number import ADNumber, strip, strip_dead
from ..core.structures import (as_real, direction_like, flatten, flatten_like,
                               in_precision, precision,
                               in_object_array, is_number, leaf, like_leaf, map_leaves, unflatten)
from .sweep import left_out, structural, sweep
from ..core.switch import REFERENCE
from ..core.tags import FORWARD, REVERSE, NotDifferentiableError, new_tag
from ..numbers.tape import TapeCell, gc_paused, make_cell
from .common import Applied, _is_zero, _real, _same_shapes, _scalar

__all__ = ["derivative", "gradient_r", "jvp", "directional_derivative", "vjp", "primal"]


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


def scalar_tangent(y, tag, who):
    """The tangent for tag of f's value y, which must be one real number (float fast path)."""
    if type(y) is Bundle and y.tag is tag and type(strip(y)) is float:
        return y.tangent
    return _tangent(_scalar(y, who), tag, 0.0)


def _forward(f, x, v, origin):
    """(f(x), J·v) for structures x, v of one shape, by one forward pass.

    A function in f's result comes back as a function (see notes/functions-as-results.md):
    its eta-expansion, whose every full application runs a fresh forward pass, so that it makes
    the newest tag there and cannot confuse its perturbation with its caller's.
    """
    if type(x) is np.ndarray and type(v) is np.ndarray and x.dtype.kind == "f" and \
            v.dtype is x.dtype and x.shape == v.shape:
        leaves, tree, vleaves = [x], None, [v]         # (one float array, as flatten gives it)
    else:
        leaves, tree = flatten(x, f"{origin}'s input")
        vleaves = flatten_like(v, tree, f"{origin}'s direction")
        leaves = [as_real(strip_dead(a)) for a in leaves]
        vleaves = [direction_like(as_real(strip_dead(b)), a) for a, b in zip(leaves, vleaves)]
        _same_shapes(leaves, vleaves, f"{origin}: the direction", "the point")
    zero = zero_like(strip(leaves[0])) if leaves else 0.0
    tag = new_tag(FORWARD, origin)
    # their zero lanes are structural (numbers/partials.py); a direction without one needs nothing
    seeds = [id(b) for b in vleaves if type(b) is np.ndarray and b.dtype != object
             and id(b) not in SEEDS and not b.all()]
    SEEDS.update(seeds)
    try:
        # a leaf whose direction is exactly 0 is a constant (its 0·∞ would be nan): no bundle
        in_objects = in_object_array(tree)
        y = f(unflatten(tree, [a if _is_zero(b) and not obj else make_bundle(tag, a, b)
                               for a, b, obj in zip(leaves, vleaves, in_objects)]))
        return _split(f, x, v, y, tag, zero, origin)
    finally:
        tag.live = False
        SEEDS.difference_update(seeds)


def _tangent(u, tag, zero):
    """u's tangent for tag; a constant array's is zeros of its own shape."""
    t = tangent_of(u, tag, zero)
    if t is zero:
        b = strip(u)
        want = precision(zero, [b])                    # (the point's and u's: one dtype per
        if np.shape(b) != np.shape(zero):              # derivative, also where it is 0)
            return in_precision(like_leaf(zero_like(b), None), want)
        return in_precision(zero, want)
    b = strip(u)
    bt = strip(t)
    if type(bt) is not type(b) or getattr(bt, "dtype", None) is not getattr(b, "dtype", None):
        t = in_precision(t, precision(t, [b]))    # (a ±1 partial passed a narrower tangent on)
    return t


def _split(f, x, v, y, tag, zero, origin):
    """(primal, tangent) of f's result y for tag, functions in it eta-expanded (tag still live)."""
    who = f"{origin}'s result"
    outs, out_tree = flatten(y, who, functions=True)
    primals, tangents = [], []
    for k, u in enumerate(outs):
        if is_number(u):
            primals.append(primal_of(u, tag))
            tangents.append(_tangent(u, tag, zero))
        else:
            primals.append(_eta_primal(f, x, k, who))
            tangents.append(_eta_tangent(f, x, v, k, who, origin))
    return unflatten(out_tree, primals), unflatten(out_tree, tangents)


def _eta_tangent(f, x, v, k, who, origin):
    """The tangent of the function at leaf k of f(x): a fresh forward pass per application."""
    def tangent_function(*args, **kwargs):
        return _forward(lambda x2: leaf(f(x2), k, who)(*args, **kwargs), x, v, origin)[1]
    tangent_function.__qualname__ = f"{origin} of a function-valued function"
    return tangent_function


def _eta_primal(f, x, k, who):
    """The function at leaf k of f(x), with the perturbation removed (f runs again at x)."""
    def primal_function(*args, **kwargs):
        return leaf(f(x), k, who)(*args, **kwargs)
    return primal_function


def derivative(f):
    """f′ by forward mode: x ↦ d/dx f(x), for f from a real number to numbers or structures.

    If f(x) is a function (or contains functions), so is f′(x): f′(x)(y...) is the partial
    derivative of the uncurried f with respect to its first argument.

    >>> derivative(lambda x: x * x)(3.0)
    6.0
    """
    # a partial of a module function, not a closure: it pickles whenever f does (process pools,
    # Dask), and calling it is C code (a closure or an object's __call__ costs ~0.1 µs more of
    # the ~1.5 µs derivative of benchmark (a))
    return functools.partial(_derivative_at, f)


def jvp(f, x, v):
    """(f(x), J(f)(x)·v) by one forward pass; x and v of the same structure.

    >>> jvp(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 0.0))
    (6.0, 3.0)
    """
    return _forward(f, x, v, "jvp")


def _derivative_at(f, x):
    """derivative(f)(x): f′(x) by one forward pass (see :func:`derivative`)."""
    fast = type(x) is float and not REFERENCE
    if fast:                                         # the common case
        one, zero = 1.0, 0.0
    else:
        x = as_real(strip_dead(_real(x, "derivative's input")))
        if np.ndim(strip(x)):
            raise NotDifferentiableError(
                f"derivative takes a real number; got an array of shape {np.shape(strip(x))}."
                f" For a direction use jvp or directional_derivative; for all partials, "
                f"gradient_r or jacobian_f")
        one, zero = one_like(strip(x)), zero_like(strip(x))
    tag = new_tag(FORWARD, "derivative")
    try:
        b = Bundle()
        b.tag, b.primal, b.tangent = tag, x, one
        y = f(b)
        if type(y) is Bundle and y.tag is tag and (fast or type(y.tangent) is type(y.primal)):
            return y.tangent            # (else a narrower tangent than y: see _tangent)
        if is_number(y):
            return _tangent(y, tag, zero)
        return _split(f, x, one, y, tag, zero, "derivative")[1]    # structures, functions
    finally:
        tag.live = False




def directional_derivative(f, x, v):
    """J(f)(x)·v, the derivative of f at x along v, by one forward pass.

    >>> directional_derivative(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 1.0))
    5.0
    """
    return _forward(f, x, v, "directional_derivative")[1]


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
                rec.outs, rec.out_tree = flatten(y, f"{origin}'s result")
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
    for c, a in zip(rec.cells, rec.leaves):
        g = sens[c.index]
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
        return _gradient_of(rec, [strip_dead(b) for b in bars])
    return y_primal, pullback


def gradient_r(f):
    """∇f by one reverse pass: x ↦ (∂f/∂x_j)_j in x's structure, for real-valued f.

    >>> gradient_r(lambda p: p[0] * p[1])((2.0, 3.0))
    (3.0, 2.0)
    """
    return _GradientR(f)


def _gradient_of_scalars(f, leaves, kind):
    """gradient_r at a list or tuple of scalars: record and gradient without structure walks."""
    tag = new_tag(REVERSE, "gradient_r")
    tape = tag.tape = []
    with gc_paused():                   # once for taping and sweep: entering it costs ~1 µs
        try:
            cells = [make_cell(tag, a, ()) for a in leaves]
            y = f(kind(cells))
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

    def __call__(self, x):
        f = self.f
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
