"""Operators built from one-direction passes: forward gradients, Jacobians, Hessians, HVPs.

``gradient_f`` and ``jacobian_f`` run one forward pass per input number, ``jacobian_r`` one
sweep per output number; ``hessian`` is forward over reverse and ``hvp`` composes the two modes
in any order.  Structures: rows over f's flattened output leaves, columns over x's; an array
leaf gives a block of shape out.shape + in.shape, and an array x with one output leaf gives that
block itself.
"""
import numpy as np

from ..modes.api import Applied, Bound, _same_shapes, _scalar, _vjp, flat_scalars, gradient_r
from ..modes.forward import _forward, scalar_tangent
from ..core.base import as_array, one_like, zero_like
from ..core.number import ARRAY_OPS, ADNumber, strip
from ..numbers.bundle import make_bundle
from ..core.structures import (as_real, flatten, flatten_like, in_precision, like_leaf,
                               precision, unflatten)
from ..core.tags import FORWARD, ArgumentError, new_tag


def gradient_f(f, argnums=0, has_aux=False):
    """∇f by forward mode, one pass per input number: x ↦ (∂f/∂x_j)_j in x's structure.

    >>> gradient_f(lambda p: p[0] * p[1])((2.0, 3.0))
    (3.0, 2.0)
    """
    if argnums != 0 or has_aux:
        return Bound(gradient_f, f, argnums, has_aux)
    return _GradientF(f)


def _slope(f, leaves, j, kind):
    """∂f/∂x_j at a list or tuple of scalars, by one forward pass (no structure walks)."""
    tag = new_tag(FORWARD, "gradient_f")
    try:
        args = leaves.copy()
        args[j] = make_bundle(tag, leaves[j], 1.0)
        return scalar_tangent(f(kind(args)), tag, "gradient_f's function value")
    finally:
        tag.live = False


class _GradientF(Applied):
    """gradient_f(f), applied: callable, and picklable when f is (for process pools, Dask)."""

    __slots__ = ()
    origin = "gradient_f"

    def __call__(self, x, *rest, **keywords):
        f = self.f
        if rest or keywords:                         # f(x, *rest): in x, the rest constant
            return Bound(gradient_f, f)(x, *rest, **keywords)
        scalars = flat_scalars(x)
        if scalars is not None:
            return type(x)(_slope(f, scalars, j, type(x)) for j in range(len(scalars)))
        leaves, tree = flatten(x, "gradient_f's input")
        parts = [[] for _ in leaves]
        value = None
        for j, k, e in _unit_directions(leaves, tree):
            value, slope = _forward(f, x, e, "gradient_f")
            _scalar(value, "gradient_f's function value")
            parts[j].append(slope)
        if value is None:                   # no number in x: f's value for the precision only
            value = f(unflatten(tree, [as_real(a) for a in leaves]))
        return _or_other_mode(unflatten(tree, [
            in_precision(like_leaf(_assemble(p, (), np.shape(strip(a)), -1), a),
                         precision(as_real(a), [value])) for p, a in zip(parts, leaves)]),
            lambda: gradient_r(f)(x))


def _or_other_mode(result, other):
    """result, with each nan entry taken from ``other()`` (the other mode's result) where that is
    a number.  An array seed's zero lanes are structural (an input the direction leaves alone,
    an output the cotangent leaves out), but once in a tangent they look like computed zeros, so
    0·∞ there is nan (√′(0) in another lane).  Each mode meets its own such nans; a number from
    either is right, because a finite pass met no 0·∞.  ``other`` runs only if result has a nan
    (notes/conventions.md, "0·∞")."""
    leaves, tree = flatten(result, "a result")
    if not any(_nan_in(v) for v in leaves):
        return result
    others = flatten_like(other(), tree, "the other mode's result")
    return unflatten(tree, [_where_nan(v, w) for v, w in zip(leaves, others)])


def _nan_in(v):
    b = strip(v)
    return bool(np.isnan(b).any()) if isinstance(b, np.ndarray) else b != b


def _where_nan(v, w):
    b = strip(v)
    if isinstance(b, np.ndarray):
        return ARRAY_OPS["where"](np.isnan(b), w, v) if np.isnan(b).any() else v
    return w if b != b else v



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


def _block(values, out, leaf, axis):
    """Jacobian block (out, leaf) from its slices, in the precision of the two (precision)."""
    d = _assemble(values, np.shape(strip(out)), np.shape(strip(leaf)), axis)
    return in_precision(like_leaf(d, None), precision(as_real(strip(leaf)), [out]))


def _assemble(values, out_shape, in_shape, axis):
    """One Jacobian block, shape out_shape + in_shape, from its slices in C order over the
    input (axis=-1: each value has out_shape) or over the output (axis=0: each has in_shape).
    A scalar input and output is the number itself.  AD numbers stay AD arrays (stacked with
    dvlad's operations), so a Jacobian taken inside another derivative still carries it."""
    if not in_shape and not out_shape:
        return values[0]
    if not values:                       # a block with no element (an empty output or input)
        return np.zeros(tuple(out_shape) + tuple(in_shape))
    from ..arrays import primitives as arrays
    if any(isinstance(v, ADNumber) for v in values):
        stacked = arrays.stack(values, axis)
        return arrays.reshape(stacked, tuple(out_shape) + tuple(in_shape))
    stacked = np.stack([as_array(v) for v in values], axis)
    return stacked.reshape(tuple(out_shape) + tuple(in_shape))


def jacobian_f(f, argnums=0, has_aux=False):
    """J(f)(x) by forward mode, one pass per input number: J[i][j] = ∂out_i/∂in_j.

    Rows are f's output leaves and columns x's leaves, flattened; for array leaves the entry is
    a block of shape out.shape + in.shape, and for an array x with one output leaf J is that
    block itself.

    >>> jacobian_f(lambda p: (p[0] * p[1], p[0] + p[1]))((2.0, 3.0))
    [[3.0, 2.0], [1.0, 1.0]]
    """
    if argnums != 0 or has_aux:
        return Bound(jacobian_f, f, argnums, has_aux)
    return _JacobianF(f)


def _shape_jacobian(rows, out_tree, in_tree, x):
    """The blocks J[i][j] = ∂out_i/∂in_j, each of shape out_i.shape + in_j.shape.

    With a dict on either side, JAX's convention: the result's structure outside, the input's
    inside (H['w']['b'] for a dict of parameters), tuples and lists as lists.  Else the matrix of
    blocks as lists, rows by output, columns by input ([[∂²f/∂x², ∂²f/∂x∂y], [...]] for a tuple
    point); for one input leaf (a number, or one array) the output's structure of its blocks,
    JAX's (one block for one leaf out: jacobian_f(lambda t: np.array([t, t**2]))(2.0) is
    array([1., 4.]))."""
    if _has_dict(out_tree) or _has_dict(in_tree):
        inner = _as_lists(in_tree)
        return unflatten(_as_lists(out_tree), [unflatten(inner, row) for row in rows])
    if isinstance(strip(x), np.ndarray) and len(rows) == 1:
        return rows[0][0]
    if type(in_tree) is not tuple and len(rows[0]) == 1:     # one leaf in: JAX's, the
        return unflatten(_as_lists(out_tree), [r[0] for r in rows])     # output's structure
    return rows


def _has_dict(tree):
    if type(tree) is not tuple:
        return False
    return (len(tree) == 3 and issubclass(tree[0], dict)) or \
        any(_has_dict(c) for c in tree[-1])


def _as_lists(tree):
    """A structure's tree (dvlad.core.structures.flatten) with its tuples and lists as lists."""
    if type(tree) is not tuple:                     # a leaf
        return tree
    if len(tree) == 2:
        return (list, [_as_lists(c) for c in tree[1]])
    return (tree[0], tree[1], [_as_lists(c) for c in tree[2]])     # a dict or object array


class _JacobianF(Applied):
    """jacobian_f(f), applied: callable, and picklable when f is (for process pools, Dask)."""

    __slots__ = ()
    origin = "jacobian_f"

    def __call__(self, x, *rest, repair=True, **keywords):
        f = self.f
        if rest or keywords:                         # f(x, *rest): in x, the rest constant
            return Bound(jacobian_f, f)(x, *rest, **keywords)
        leaves, tree = flatten(x, "jacobian_f's input")
        columns = None                      # columns[i][j]: the slices of block (i, j)
        outs = None
        for j, k, e in _unit_directions(leaves, tree):
            value, slope = _forward(f, x, e, "jacobian_f")
            column = flatten(slope, "jacobian_f's result")[0]
            if columns is None:
                outs, out_tree = flatten(value, "jacobian_f's result", result=True)
                columns = [[[] for _ in leaves] for _ in column]
            for i, c in enumerate(column):
                columns[i][j].append(c)
        if columns is None:                 # x has no numbers in it: every block is empty
            # (f sees integer and bool leaves as float64, as every other pass shows them)
            outs, out_tree = flatten(f(unflatten(tree, [as_real(a) for a in leaves])),
                                     "jacobian_f's result", result=True)
            return _shape_jacobian([[_block([], u, a, -1) for a in leaves] for u in outs],
                                   out_tree, tree, x)
        rows = [[_block(columns[i][j], outs[i], a, -1) for j, a in enumerate(leaves)]
                for i in range(len(columns))]
        result = _shape_jacobian(rows, out_tree, tree, x)
        return _or_other_mode(result, lambda: _JacobianR(f)(x, repair=False)) if repair else result



def jacobian_r(f, argnums=0, has_aux=False):
    """J(f)(x) by one reverse pass and one sweep per output number: J[i][j] = ∂out_i/∂in_j.

    Shaped as :func:`jacobian_f`.

    >>> jacobian_r(lambda p: (p[0] * p[1], p[0] + p[1]))((2.0, 3.0))
    [[3.0, 2.0], [1.0, 1.0]]
    """
    if argnums != 0 or has_aux:
        return Bound(jacobian_r, f, argnums, has_aux)
    return _JacobianR(f)


def hessian(f, argnums=0, has_aux=False):
    """H(f)(x) by reverse over reverse: H[i][j] = ∂²f/∂x_i∂x_j over the flattened input.

    The gradient is recorded once, on an outer tape, and each row of H is one sweep of that
    tape (jacobian_r of gradient_r): forward over reverse would run f again for every row,
    2-4× slower for n = 10..10³.

    >>> hessian(lambda p: p[0] * p[0] * p[1])((2.0, 3.0))
    [[6.0, 4.0], [4.0, 0.0]]
    """
    if argnums != 0 or has_aux:
        return Bound(hessian, f, argnums, has_aux)
    return jacobian_r(gradient_r(f))


class _JacobianR(Applied):
    """jacobian_r(f), applied: callable, and picklable when f is (for process pools, Dask)."""

    __slots__ = ()
    origin = "jacobian_r"

    def __call__(self, x, *rest, repair=True, **keywords):
        f = self.f
        if rest or keywords:                         # f(x, *rest): in x, the rest constant
            return Bound(jacobian_r, f)(x, *rest, **keywords)
        y, back = _vjp(f, x, "jacobian_r")
        outs, out_tree = flatten(y, "jacobian_r's result", result=True)
        leaves, in_tree = flatten(x, "jacobian_r's input")
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
            rows.append([_block(slices[j], u, a, 0) for j, a in enumerate(leaves)])
        result = _shape_jacobian(rows, out_tree, in_tree, x)
        return _or_other_mode(result, lambda: _JacobianF(f)(x, repair=False)) if repair else result



def _dot(a, b):
    """⟨a, b⟩ over every number of two structures of numbers and arrays."""
    from ..arrays.primitives import sum as array_sum
    xs, tree = flatten(a, "hvp")
    ys = flatten_like(b, tree, "hvp's direction")
    _same_shapes(xs, ys, "hvp: the direction", "the point")
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
        if type(x) is np.ndarray and x.ndim:
            return _forward(gradient_r(f), x, v, "hvp")[1]
        # in x's form: a 0-d array's tangent comes out a numpy scalar
        leaves, tree = flatten(x, "hvp's input")
        hv = flatten_like(_forward(gradient_r(f), x, v, "hvp")[1], tree, "hvp")
        return unflatten(tree, [like_leaf(d, as_real(a)) for d, a in zip(hv, leaves)])
    if mode == "rf":
        return gradient_r(lambda y: _forward(f, y, v, "hvp")[1])(x)
    if mode == "rr":
        return gradient_r(lambda y: _dot(gradient_r(f)(y), v))(x)
    if mode == "ff":
        return gradient_f(lambda y: _forward(f, y, v, "hvp")[1])(x)
    raise ArgumentError(f"hvp: mode must be 'fr', 'rf', 'rr' or 'ff', got {mode!r}")
