"""Forward mode: derivative, jvp, directional_derivative, and the forward pass the other
operators share (``_forward``: a structure of bundles in, (value, tangent) out, functions in the
result eta-expanded).  Each call makes a fresh tag (notes/functions-as-results.md for why a
function in a result gets one per application).
"""
import functools

import numpy as np

from ..core.base import one_like, zero_like
from ..core.number import strip, strip_dead
from ..core.structures import (as_real, direction_like, flatten, flatten_like, in_object_array,
                               in_precision, is_number, leaf, like_leaf, precision, unflatten)
from ..core.switch import REFERENCE
from ..core.tags import FORWARD, NotDifferentiableError, new_tag
from ..numbers.bundle import Bundle, make_bundle, primal_of, tangent_of
from ..numbers.partials import SEEDS
from .common import Bound, _is_zero, _real, _same_shapes, _scalar

__all__ = ["derivative", "jvp", "directional_derivative"]


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
    # (an array with no zero element is not 0 either: one pass over it, not two)
    full = [isinstance(b, np.ndarray) and b.dtype != object and b.size > 0 and bool(b.all())
            for b in vleaves]
    seeds = [id(b) for b, whole in zip(vleaves, full) if isinstance(b, np.ndarray)
             and b.dtype != object and id(b) not in SEEDS and not whole and b.size > 0]
    SEEDS.update(seeds)
    try:
        # a leaf whose direction is exactly 0 is a constant (its 0·∞ would be nan): no bundle
        in_objects = in_object_array(tree)
        y = f(unflatten(tree, [a if not whole and _is_zero(b) and not obj else
                               make_bundle(tag, a, b) for a, b, whole, obj in
                               zip(leaves, vleaves, full, in_objects)]))
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
    outs, out_tree = flatten(y, who, functions=True, result=True)
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


def derivative(f, argnums=0, has_aux=False):
    """f′ by forward mode: x ↦ d/dx f(x), for f from a real number to numbers or structures.

    If f(x) is a function (or contains functions), so is f′(x): f′(x)(y...) is the partial
    derivative of the uncurried f with respect to its first argument.

    At an array of points (a grid), f′ is taken along the all-ones direction, jvp(f, x, 1): for
    an elementwise f that is f′ at each point, so ``plt.plot(grid, derivative(f)(grid))`` works.
    f's value must have the grid's shape (a sum of the grid raises: J·1 is not a derivative);
    for an f that mixes elements it is the directional derivative along ones, not a Jacobian.
    ``argnums``: for f of several arguments, which one (or a tuple: a tuple of derivatives);
    the others are held constant.  ``has_aux``: f returns ``(value, aux)``; the result is
    ``(f′(x), aux)``, aux without this derivative's perturbation.

    >>> derivative(lambda x: x * x)(3.0)
    6.0
    >>> derivative(lambda x: x * x)(np.array([1.0, 2.0]))
    array([2., 4.])
    """
    # a partial of a module function, not a closure: it pickles whenever f does (process pools,
    # Dask), and calling it is C code (a closure or an object's __call__ costs ~0.1 µs more of
    # the ~1.5 µs derivative of benchmark (a))
    if argnums != 0 or has_aux:
        return Bound(derivative, f, argnums, has_aux, per_argument=True)
    d = functools.partial(_derivative_at, f)
    d.__wrapped__ = f               # (inspect: f's signature and source)
    return d


def jvp(f, x, v):
    """(f(x), J(f)(x)·v) by one forward pass; x and v of the same structure.

    >>> jvp(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 0.0))
    (6.0, 3.0)
    """
    return _forward(f, x, v, "jvp")


def _derivative_at(f, x, *rest, **keywords):
    """derivative(f)(x): f′(x) by one forward pass (see :func:`derivative`)."""
    if rest or keywords:                             # f(x, *rest): in x, the rest constant
        return Bound(derivative, f)(x, *rest, **keywords)
    fast = type(x) is float and not REFERENCE
    if fast:                                         # the common case
        one, zero = 1.0, 0.0
    else:
        x = as_real(strip_dead(_real(x, "derivative's input")))
        if np.ndim(strip(x)):                        # a grid: along the all-ones direction
            return _on_grid(f, x)
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




def _on_grid(f, x):
    """derivative(f) at an array of points: jvp along all ones, for an f whose value has the
    grid's shape (elementwise, as plotted).  Any other f (a sum: J·1 of Σx² at [1, 2] is 6,
    neither a gradient nor a derivative) is refused."""
    y, t = _forward(f, x, np.ones_like(strip(x)), "derivative")
    leaves = flatten(y, "derivative's result", result=True)[0]
    if len(leaves) != 1 or np.shape(strip(leaves[0])) != np.shape(strip(x)):
        raise NotDifferentiableError(
            f"derivative at an array of shape {np.shape(strip(x))} takes f′ at each point, for "
            f"an elementwise f; this f's value has another shape. For all partials use "
            f"gradient_r or jacobian_f; for a direction jvp or directional_derivative")
    return t


def directional_derivative(f, x, v):
    """J(f)(x)·v, the derivative of f at x along v, by one forward pass.

    >>> directional_derivative(lambda p: p[0] * p[1], (2.0, 3.0), (1.0, 1.0))
    5.0
    """
    return _forward(f, x, v, "directional_derivative")[1]
