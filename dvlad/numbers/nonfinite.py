"""A row's partial that is the constant ∞ or nan, at a point where an argument carries an older
perturbation.

log′(x) = 1/x is written ``1.0 / x if x else INF`` (Python's 1.0/0.0 raises).  At x = 0 the
constant INF has no tangent, so log″(0) came out 0: a wrong number.  No finite number is right
there (where f′ is infinite or undefined at a point, f″ is not a finite number at it), so the
constant carries a nan tangent on every perturbation its row's arguments carry, and nan again at
every order above (the partial of this primitive is itself such a constant).

The rule table is not touched: the text the AD namespaces compile (dvlad.numbers.primitives)
reads ``nonfinite(INF, x, y)`` wherever a row's partial names INF or NAN as a value
(:func:`marked`); inside a comparison (``x < INF``) the name stays a number.
"""
import ast

import numpy as np

from ..core.lift import lift
from ..core.number import ARRAY_OPS, ADNumber
from .partials import ElementwiseMap, GivenPrimitive, _base_of, _shape


def nonfinite(c, *args):
    """c, a constant ∞ or nan of a row's partial: as it is when no argument carries a
    perturbation; else a number of value c (in the shape of the arguments) whose derivative in
    each perturbed argument is nan.

    >>> import dvlad, numpy as np
    >>> dvlad.derivative(dvlad.derivative(np.log))(0.0)      # log″(0): −1/x² has no value at 0
    nan
    """
    out = c
    for a in args:
        if isinstance(a, ADNumber):
            out = lift(_PRIMITIVE, (out, a))
    return out


def _value(c, a):
    """c broadcast to a's shape (c may itself be an array of an earlier argument's shape), one
    level down: where a carries older perturbations, the value carries them too."""
    if isinstance(a, ADNumber) or isinstance(c, ADNumber):
        return lift(_PRIMITIVE, (c, a))
    b, bc = _base_of(a), _base_of(c)
    if not isinstance(b, np.ndarray) and not isinstance(bc, np.ndarray):
        return c
    shape = np.broadcast_shapes(np.shape(bc), np.shape(b))
    if isinstance(c, np.ndarray) and c.shape == shape:
        return c
    dtype = b.dtype if isinstance(b, np.ndarray) and b.dtype.kind == "f" else np.float64
    return np.full(shape, c, dtype)


def _partials(c, a):
    shape = np.broadcast_shapes(_shape(c), _shape(a))
    if not shape:
        return 1.0, nonfinite(np.nan, a)
    return (ElementwiseMap(lambda: 1.0, (), _shape(c), shape),
            _Undefined(lambda p: nonfinite(np.nan, p), (a,), _shape(a), shape))


class _Undefined(ElementwiseMap):
    """The nan partial, lane by lane, except in the lanes where the tangent or sensitivity is
    exactly 0: there it contributes 0, as a zero lane of a direction or cotangent, or a lane
    np.where does not take, does everywhere in dvlad (notes/conventions.md).  Without this, the
    Hessian of ``sum(where(x > 0, sqrt(x), 0))`` by reverse over reverse would be nan at a lane
    the where leaves out."""

    __slots__ = ()

    def term(self, t):
        return self._zero_lanes(t, super().term(t))

    def forward(self, t):
        return self._zero_lanes(t, super().forward(t))

    def backward(self, s):
        return self._zero_lanes(s, super().backward(s))

    def _zero_lanes(self, t, out):
        b = _base_of(t)
        if not isinstance(b, np.ndarray) or b.shape != _shape(out):
            return out
        zero = b == 0
        return ARRAY_OPS["where"](zero, 0.0, out) if zero.any() else out


_value.__name__ = "nonfinite"
_PRIMITIVE = GivenPrimitive(_value, _partials)


class _Marked(ast.NodeTransformer):
    """INF and NAN read as values become ``nonfinite(INF, <the row's arguments>)``."""

    def __init__(self, params):
        self.params = params

    def visit_Compare(self, node):
        return node

    def visit_Name(self, node):
        if node.id not in ("INF", "NAN") or not isinstance(node.ctx, ast.Load):
            return node
        args = [node] + [ast.Name(id=p, ctx=ast.Load()) for p in self.params]
        return ast.copy_location(ast.Call(func=ast.Name(id="nonfinite", ctx=ast.Load()),
                                          args=args, keywords=[]), node)


def marked(text, params):
    """A row's partial text with its ∞ and nan constants marked (see the module's note)."""
    if "INF" not in text and "NAN" not in text:
        return text
    tree = _Marked(params).visit(ast.parse(text, mode="eval"))
    return ast.unparse(ast.fix_missing_locations(tree))
