"""User-defined primitives: new rows for the rule table, made at run time.

``primitive`` takes a base function and its partials, exactly like a row of
:mod:`dvlad.rules`, and lifts through the same general dispatch (:func:`dvlad.lift.lift_n`).
``vector_primitive`` takes a function of a structure with a JVP and a VJP instead, for
primitives whose Jacobian is better applied than formed.  Both nest like built-in primitives as
long as the partials, JVP and VJP are written with dvlad's operations.
"""
from ..numbers.bundle import make_bundle
from ..numbers.lift import lift_n
from ..core.number import ADNumber, newest_tag, strip, strip_dead
from ..core.structures import flatten, unflatten
from ..core.tags import FORWARD, TAYLOR
from ..numbers.tape import Cotangent, MultiLink, joint_cells
from ..numbers.tower import tower_jvp

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
        out = lift_n(op, partials, args)
        return f(*(strip(a) for a in args)) if out is None else out
    op.__name__ = op.__qualname__ = name or getattr(f, "__name__", "primitive")
    op.__doc__ = f"user-defined primitive {op.__name__}, differentiable in every mode"
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
        leaves = [strip_dead(a) for a in leaves]
        tag = newest_tag(leaves)
        if tag is None:
            return f(unflatten(tree, [strip(a) for a in leaves]))
        ins = [isinstance(a, ADNumber) and a.tag is tag for a in leaves]
        px = unflatten(tree, [a.primal if i else a for a, i in zip(leaves, ins)])
        y = op(px)
        outs, out_tree = flatten(y, f"{who}'s result")
        if tag.kind is TAYLOR:
            def flat_jvp(points, tangents):
                t = jvp(unflatten(tree, points), unflatten(tree, tangents))
                return flatten(t, f"{who}'s jvp")[0]
            return unflatten(out_tree, tower_jvp(tag, leaves, ins, outs, flat_jvp))
        if tag.kind is FORWARD:
            zero = 0 * strip(outs[0]) if outs else 0
            t = unflatten(tree, [a.tangent if i else 0 * strip(a) for a, i in zip(leaves, ins)])
            ty, _ = flatten(jvp(px, t), f"{who}'s jvp")
            return unflatten(out_tree, [make_bundle(tag, a, b if b is not None else zero)
                                        for a, b in zip(outs, ty)])
        cells = [a for a, i in zip(leaves, ins) if i]
        link = _VJP(vjp, px, out_tree, [k for k, i in enumerate(ins) if i], cells, who)
        return unflatten(out_tree, joint_cells(tag, outs, link))
    op.__name__ = op.__qualname__ = who
    return op


class _VJP(MultiLink):
    """Pull back all outputs of a vector primitive with one call of the user's vjp."""

    __slots__ = ("vjp", "px", "out_tree", "positions", "cells", "who")

    def __init__(self, vjp, px, out_tree, positions, cells, who):
        self.vjp, self.px, self.out_tree = vjp, px, out_tree
        self.positions, self.cells, self.who = positions, cells, who

    def pull(self, s):
        ybar = unflatten(self.out_tree, list(s) if isinstance(s, Cotangent) else [s])
        xbar, _ = flatten(self.vjp(self.px, ybar), f"{self.who}'s vjp")
        return [(c, xbar[k]) for c, k in zip(self.cells, self.positions)]

    def inputs(self):
        return list(self.cells)
