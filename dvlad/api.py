"""The derivative operators.  Naming: ``_f`` = forward mode, ``_r`` = reverse mode; ``jvp`` pushes a
tangent forward, ``vjp`` pulls a sensitivity back.  Each call of an operator makes a fresh tag, so
every operator nests inside every other, to any depth.

Structures: inputs are real numbers or nested tuples/lists/dicts of them; gradients come back in
the same structure.  Jacobians and Hessians are lists of rows over the *flattened* leaves
(positions, then dict insertion order): ``J[i][j] = ∂out_i/∂in_j``.
"""
import numpy as np

from .base import one_like, zero_like
from .bundle import Bundle, make_bundle, primal_of, tangent_of
from .number import ADNumber, strip, strip_dead
from .structures import (describe, flatten, in_object_array, is_number, leaf, map_leaves,
                         unflatten)
from .tags import FORWARD, REVERSE, NotDifferentiableError, new_tag
from .sweep import sweep
from .tape import TapeCell, gc_paused, make_cell

__all__ = ["derivative", "gradient_r", "gradient_f", "jvp", "directional_derivative", "vjp",
           "jacobian_f", "jacobian_r", "hessian", "hvp", "primal"]


def _real(x, who):
    if not is_number(x):
        what = "a function" if callable(x) else describe(x)
        raise NotDifferentiableError(f"{who} must be a real number; got {what}")
    return x


def _scalar(y, who):
    """y, if it is one real number (a 0-d array counts); else a named TypeError."""
    _real(y, who)
    if np.ndim(strip(y)):
        raise NotDifferentiableError(
            f"{who} must be one real number; got an array of shape {np.shape(strip(y))}. "
            f"For array-valued functions use jacobian_r, jacobian_f or vjp")
    return y


def _forward(f, x, v, origin):
    """(f(x), J·v) for structures x, v of one shape, by one forward pass.

    A function in f's result comes back as a function (see notes/functions-as-results.md):
    its eta-expansion, whose every full application runs a fresh forward pass, so that it makes
    the newest tag there and cannot confuse its perturbation with its caller's.
    """
    leaves, tree = flatten(x, f"{origin}'s input")
    vleaves, _ = flatten(v, f"{origin}'s direction")
    leaves, vleaves = [strip_dead(a) for a in leaves], [strip_dead(b) for b in vleaves]
    if len(vleaves) != len(leaves):
        raise ValueError(f"{origin}: the direction has {len(vleaves)} numbers, the point "
                         f"{len(leaves)}; give them the same structure")
    zero = zero_like(strip(leaves[0])) if leaves else 0.0
    tag = new_tag(FORWARD, origin)
    try:
        # A leaf whose direction is exactly 0 is a constant, not a bundle with tangent 0: this
        # costs nothing and keeps an infinite partial elsewhere from making 0·inf = nan here.
        in_objects = in_object_array(tree)
        y = f(unflatten(tree, [a if _is_zero(b) and not obj else make_bundle(tag, a, b)
                               for a, b, obj in zip(leaves, vleaves, in_objects)]))
        return _split(f, x, v, y, tag, zero, origin)
    finally:
        tag.live = False


def _tangent(u, tag, zero):
    """u's tangent for tag; a constant array's is zeros of its own shape."""
    t = tangent_of(u, tag, zero)
    if t is zero and np.shape(strip(u)) != np.shape(zero):
        return zero_like(strip(u))
    return t


def _is_zero(b):
    """A direction that is exactly 0 (every element of it), with no perturbation of its own."""
    if isinstance(b, ADNumber):
        return False
    if isinstance(b, np.ndarray):
        return not b.any()
    return b == 0


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
    def f_prime(x):
        if type(x) is float:                              # the common case, fast
            one, zero = 1.0, 0.0
        else:
            x = strip_dead(_real(x, "derivative's input"))
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
            if type(y) is Bundle and y.tag is tag:
                return y.tangent
            if is_number(y):
                return _tangent(y, tag, zero)
            return _split(f, x, one, y, tag, zero, "derivative")[1]    # structures, functions
        finally:
            tag.live = False
    return f_prime


def jvp(f, x, v):
    """(f(x), J(f)(x)·v) by one forward pass; x and v of the same structure.

    >>> jvp(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 0.0))
    (6.0, 3.0)
    """
    return _forward(f, x, v, "jvp")


def directional_derivative(f, x, v):
    """J(f)(x)·v, the derivative of f at x along v, by one forward pass.

    >>> directional_derivative(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 1.0))
    5.0
    """
    return _forward(f, x, v, "directional_derivative")[1]


def gradient_f(f):
    """∇f by forward mode, one pass per input number: x ↦ (∂f/∂x_j)_j in x's structure.

    >>> gradient_f(lambda p: p[0] * p[1])((2.0, 3.0))
    (3.0, 2.0)
    """
    def grad(x):
        leaves, tree = flatten(x, "gradient_f's input")
        parts = [[] for _ in leaves]
        for j, k, e in _unit_directions(leaves, tree):
            value, slope = _forward(f, x, e, "gradient_f")
            _scalar(value, "gradient_f's function value")
            parts[j].append(slope)
        return unflatten(tree, [_assemble(p, (), np.shape(strip(a)), -1)
                                for p, a in zip(parts, leaves)])
    return grad


def _unit_directions(leaves, tree):
    """(leaf j, element k or None, the direction e_jk) for every input number, in C order."""
    zeros = [zero_like(strip(a)) for a in leaves]
    for j, a in enumerate(leaves):
        base_a = strip(a)
        if isinstance(base_a, np.ndarray):
            for k in np.ndindex(base_a.shape):
                e = np.zeros_like(base_a)
                e[k] = 1
                yield j, k, unflatten(tree, zeros[:j] + [e] + zeros[j + 1:])
        else:
            yield j, None, unflatten(tree, zeros[:j] + [one_like(base_a)] + zeros[j + 1:])


def _assemble(values, out_shape, in_shape, axis):
    """One Jacobian block, shape out_shape + in_shape, from its slices in C order over the
    input (axis=-1: each value has out_shape) or over the output (axis=0: each has in_shape).
    A scalar input and output is the number itself.  AD numbers stay AD arrays (stacked with
    dvlad's operations), so a Jacobian taken inside another derivative still carries it."""
    if not in_shape and not out_shape:
        return values[0]
    from . import arrays
    if any(isinstance(v, ADNumber) for v in values):
        stacked = arrays.stack(values, axis)
        return arrays.reshape(stacked, tuple(out_shape) + tuple(in_shape))
    stacked = np.stack([np.asarray(v) for v in values], axis)
    return stacked.reshape(tuple(out_shape) + tuple(in_shape))


class Recording:
    """One reverse pass of f at x: its (now dead) tag, tape, input cells and output leaves."""

    __slots__ = ("tag", "tape", "tree", "leaves", "cells", "outs", "out_tree")


def record(f, x, origin, scalar=False):
    """Run f on fresh cells of a new reverse tag; the tag dies when f returns.

    ``scalar``: f must return one real number (gradients); else any structure of numbers.
    The tape stays readable: sweeps need only its links, never the tag's liveness.
    """
    rec = Recording()
    leaves, rec.tree = flatten(x, f"{origin}'s input")
    rec.leaves = [strip_dead(a) for a in leaves]
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
    seeds = [(u, b) for u, b in zip(rec.outs, bars) if type(u) is TapeCell and u.tag is rec.tag]
    with gc_paused():
        return sweep(rec.tape, seeds, consume) if seeds else [None] * len(rec.tape)


def _pull(rec, bars, consume=False):
    sens = sensitivities(rec, bars, consume)
    out = [zero_like(strip(a)) if sens[c.index] is None else sens[c.index]
           for c, a in zip(rec.cells, rec.leaves)]
    return unflatten(rec.tree, _own(out, bars))


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
    rec = record(f, x, origin)
    y_primal = unflatten(rec.out_tree, [primal_of(u, rec.tag) for u in rec.outs])

    def pullback(ybar):
        bars, _ = flatten(ybar, "the pullback's input")
        if len(bars) != len(rec.outs):
            raise ValueError(f"pullback: got {len(bars)} numbers for a result of "
                             f"{len(rec.outs)}")
        return _pull(rec, [strip_dead(b) for b in bars])
    return y_primal, pullback


def gradient_r(f):
    """∇f by one reverse pass: x ↦ (∂f/∂x_j)_j in x's structure, for real-valued f.

    >>> gradient_r(lambda p: p[0] * p[1])((2.0, 3.0))
    (3.0, 2.0)
    """
    def grad(x):
        rec = record(f, x, "gradient_r", scalar=True)
        return _pull(rec, [one_like(strip(rec.outs[0]))], consume=True)
    return grad


def jacobian_f(f):
    """J(f)(x) by forward mode, one pass per input number: J[i][j] = ∂out_i/∂in_j.

    Rows are f's output leaves and columns x's leaves, flattened; for array leaves the entry is
    a block of shape out.shape + in.shape, and for an array x with one output leaf J is that
    block itself.

    >>> jacobian_f(lambda p: (p[0] * p[1], p[0] + p[1]))((2.0, 3.0))
    [[3.0, 2.0], [1.0, 1.0]]
    """
    def jac(x):
        leaves, tree = flatten(x, "jacobian_f's input")
        columns = None                      # columns[i][j]: the slices of block (i, j)
        outs = None
        for j, k, e in _unit_directions(leaves, tree):
            value, slope = _forward(f, x, e, "jacobian_f")
            column = flatten(slope, "jacobian_f's result")[0]
            if columns is None:
                outs = flatten(value, "jacobian_f's result")[0]
                columns = [[[] for _ in leaves] for _ in column]
            for i, c in enumerate(column):
                columns[i][j].append(c)
        if columns is None:
            return _shape_jacobian([[] for _ in flatten(f(x), "jacobian_f's result")[0]], x)
        rows = [[_assemble(columns[i][j], np.shape(strip(outs[i])), np.shape(strip(a)), -1)
                 for j, a in enumerate(leaves)] for i in range(len(columns))]
        return _shape_jacobian(rows, x)
    return jac


def _shape_jacobian(rows, x):
    if isinstance(strip(x), np.ndarray) and len(rows) == 1:
        return rows[0][0]
    return rows


def jacobian_r(f):
    """J(f)(x) by one reverse pass and one sweep per output number: J[i][j] = ∂out_i/∂in_j.

    Shaped as :func:`jacobian_f`.

    >>> jacobian_r(lambda p: (p[0] * p[1], p[0] + p[1]))((2.0, 3.0))
    [[3.0, 2.0], [1.0, 1.0]]
    """
    def jac(x):
        y, back = _vjp(f, x, "jacobian_r")
        outs, out_tree = flatten(y, "jacobian_r's result")
        leaves, _ = flatten(x, "jacobian_r's input")
        zeros = [zero_like(strip(v)) for v in outs]
        rows = []
        for i, u in enumerate(outs):
            base_u = strip(u)
            slices = [[] for _ in leaves]       # slices[j]: row k of block (i, j), k in C order
            for k in (np.ndindex(base_u.shape) if isinstance(base_u, np.ndarray) else [None]):
                if k is None:
                    e = one_like(base_u)
                else:
                    e = np.zeros_like(base_u)
                    e[k] = 1
                sens = flatten(back(unflatten(out_tree, zeros[:i] + [e] + zeros[i + 1:])),
                               "jacobian_r's input")[0]
                for j, g in enumerate(sens):
                    slices[j].append(g)
            rows.append([_assemble(slices[j], np.shape(base_u), np.shape(strip(a)), 0)
                         for j, a in enumerate(leaves)])
        return _shape_jacobian(rows, x)
    return jac


def hessian(f):
    """H(f)(x) by forward over reverse: H[i][j] = ∂²f/∂x_i∂x_j over the flattened input.

    >>> hessian(lambda p: p[0] * p[0] * p[1])((2.0, 3.0))
    [[6.0, 4.0], [4.0, 0.0]]
    """
    return jacobian_f(gradient_r(f))


def _dot(a, b):
    """⟨a, b⟩ over every number of two structures of numbers and arrays."""
    from .arrays import sum as array_sum
    xs, _ = flatten(a, "hvp")
    ys, _ = flatten(b, "hvp")
    total = 0
    for u, w in zip(xs, ys):
        uw = u * w
        total = total + (array_sum(uw) if np.ndim(strip(uw)) else uw)
    return total


def hvp(f, x, v, mode="fr"):
    """H(f)(x)·v, in x's structure.  mode: outer then inner mode of the two derivatives.

    "fr" forward over reverse (default, one pass of each), "rf" reverse over forward,
    "rr" reverse over reverse, "ff" forward over forward (one pass per input number).

    >>> hvp(lambda p: p[0] * p[0] * p[1], (2.0, 3.0), (1.0, 0.0))
    (6.0, 4.0)
    """
    if mode == "fr":
        return directional_derivative(gradient_r(f), x, v)
    if mode == "rf":
        return gradient_r(lambda y: directional_derivative(f, y, v))(x)
    if mode == "rr":
        return gradient_r(lambda y: _dot(gradient_r(f)(y), v))(x)
    if mode == "ff":
        return gradient_f(lambda y: directional_derivative(f, y, v))(x)
    raise ValueError(f"hvp: mode must be 'fr', 'rf', 'rr' or 'ff', got {mode!r}")


def primal(x):
    """x with every perturbation stripped: the plain numbers, in x's structure.

    >>> primal(3.0)
    3.0
    """
    if isinstance(x, ADNumber) or not isinstance(x, (tuple, list, dict)):
        return strip(x)
    return map_leaves(strip, x, "primal's input")
