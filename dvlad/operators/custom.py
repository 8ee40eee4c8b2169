"""User-defined primitives: new rows for the rule table, made at run time.

``primitive`` takes a base function and its partials, exactly like a row of
:mod:`dvlad.core.rules`, and lifts through the one dispatch (:func:`dvlad.core.lift.lift`).
``vector_primitive`` takes a function of a structure with a JVP and a VJP instead, for
primitives whose Jacobian is better applied than formed; it lifts through
:func:`dvlad.core.lift.lift_many`.  Both nest like built-in primitives as long as the partials,
JVP and VJP are written with dvlad's operations.
"""
from ..core.lift import lift, lift_many
from ..core.number import ADNumber, strip
from ..core.structures import flatten, flatten_like, unflatten
from ..numbers.partials import GivenPrimitive
from ..numbers.tape import Cotangent, MultiLink

__all__ = ["primitive", "vector_primitive"]


def primitive(f, partials, name=None):
    """A new primitive: ``f(*base_numbers)`` for the value, ``partials(*args)`` → (∂f/∂arg_i)_i.

    The partials receive the arguments' primals (which may carry older perturbations) and must
    be written with dvlad's operations, so that the primitive nests like a built-in one.

    >>> import dvlad
    >>> cube = primitive(lambda x: x ** 3, lambda x: (3 * x * x,), name="cube")
    >>> dvlad.derivative(dvlad.derivative(cube))(2.0), dvlad.gradient_r(cube)(2.0)
    (12.0, 12.0)
    """
    def op(*args):
        for a in args:
            if isinstance(a, ADNumber):
                return lift(prim, args)
        return f(*args)
    op.__name__ = op.__qualname__ = name or getattr(f, "__name__", "primitive")
    op.__doc__ = f"user-defined primitive {op.__name__}, differentiable in every mode"
    prim = GivenPrimitive(op, partials, closure_check=True)
    return op


def vector_primitive(f, jvp, vjp, name=None):
    """A primitive of a structure x: ``f(x)`` → y, ``jvp(x, t)`` = J·t, ``vjp(x, ȳ)`` = Jᵀ·ȳ.

    x and y are numbers or tuples/lists/dicts of them; jvp returns y's structure and vjp x's.
    Written with dvlad's operations, jvp and vjp nest (x may carry older perturbations).

    >>> import dvlad
    >>> norm2 = vector_primitive(lambda x: x[0] ** 2 + x[1] ** 2,
    ...                          lambda x, t: 2 * (x[0] * t[0] + x[1] * t[1]),
    ...                          lambda x, s: (2 * x[0] * s, 2 * x[1] * s))
    >>> dvlad.gradient_r(norm2)((3.0, 4.0)), dvlad.hessian(norm2)((3.0, 4.0))
    ((6.0, 8.0), [[2.0, 0.0], [0.0, 2.0]])
    """
    who = name or getattr(f, "__name__", "vector_primitive")

    def op(x):
        leaves, tree = flatten(x, f"{who}'s input")
        call = _Call(op, jvp, vjp, tree, who)
        outs = lift_many(call, leaves)
        if outs is None:
            return f(unflatten(tree, [strip(a) for a in leaves]))
        return unflatten(call.out_tree, outs)
    op.__name__ = op.__qualname__ = who
    return op


class _Call:
    """One call of a vector primitive, as the kinds' ``lift_many`` see it (flat lists in and
    out; the structures are this call's)."""

    __slots__ = ("op", "jvp_", "vjp", "tree", "who", "out_tree")

    def __init__(self, op, jvp, vjp, tree, who):
        self.op, self.jvp_, self.vjp, self.tree, self.who = op, jvp, vjp, tree, who
        self.out_tree = None

    def value(self, points):
        """The outputs at ``points`` (computed by the primitive one level down) and their
        structure."""
        y = self.op(unflatten(self.tree, points))
        outs, self.out_tree = flatten(y, f"{self.who}'s result", result=True)
        return outs, self.out_tree

    def jvp(self, points, tangents):
        t = self.jvp_(unflatten(self.tree, points), unflatten(self.tree, tangents))
        return flatten_like(t, self.out_tree, f"{self.who}'s jvp", "its result")

    def pullback(self, points, cells, positions):
        return _VJP(self.vjp, unflatten(self.tree, points), self.out_tree, positions, cells,
                    self.who, self.tree)


class _VJP(MultiLink):
    """Pull back all outputs of a vector primitive with one call of the user's vjp."""

    __slots__ = ("vjp", "px", "out_tree", "positions", "cells", "who", "tree")

    def __init__(self, vjp, px, out_tree, positions, cells, who, tree):
        self.vjp, self.px, self.out_tree = vjp, px, out_tree
        self.positions, self.cells, self.who, self.tree = positions, cells, who, tree

    def pull(self, s):
        ybar = unflatten(self.out_tree, list(s) if isinstance(s, Cotangent) else [s])
        xbar = flatten_like(self.vjp(self.px, ybar), self.tree, f"{self.who}'s vjp", "its input")
        return [(c, xbar[k]) for c, k in zip(self.cells, self.positions)]

    def inputs(self):
        return list(self.cells)
