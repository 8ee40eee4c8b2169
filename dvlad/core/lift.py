"""The one lift: every primitive — a row of the rule table, an array primitive, a user primitive —
lifts here, on the newest live tag among its arguments.

For a primitive f with partials ∂f/∂xᵢ and newest live tag ε (layers whose tag has died are
stripped first: an escaped value is a constant):

- the arguments whose top layer is ε are *in*: they contribute their primal and their tangent
  (bundle), cell (tape) or series (tower); every other argument, base numbers and values with
  older tags, is a constant at this level and costs nothing;
- the result's primal is f at the primals, computed by the same primitive one level down, so
  older perturbations flow through it; the partials are computed there too, with dvlad's own
  operations, so that they nest.

The kind of ε (:class:`~dvlad.core.tags.Kind`) does the rest, through the interface each kind
implements once, in its own module (as in Kmett's ``ad``, each mode implements only its lift)::

    kind.lift(prim, tag, args, ins)         forward: Bundle(ε, f(p), Σᵢ ∂ᵢf·tᵢ)
                                            reverse: TapeCell(ε, f(p), links (cellᵢ, ∂ᵢf))
                                            Taylor:  Tower(ε, its row's recurrence, or
                                                     derived from the partials)
    kind.lift_many(prim, tag, leaves, ins)  the outputs of a vector primitive (a flat list)

What the kinds ask of a primitive (``prim``)::

    prim.name                               for messages
    prim.rule                               its row of the rule table, or None
    prim.value(*primals)                    f one level down
    prim.at(primals, ins, kind)             (r, partials): f and each in-argument's partial, a
                                            number or a LinearMap (Jacobians that are not
                                            diagonal); reverse mode may keep them lazy

A vector primitive offers ``value(points)`` → (outputs, their structure), ``jvp(points,
tangents)`` and ``pullback(points, cells, positions)`` (a MultiLink) instead of ``at``.
"""
import numpy as np

from .base import family
from .number import ARRAY_OPS, ADNumber, strip_dead
from .structures import elementwise
from .tags import NotDifferentiableError, TagOrderError, alive, newer


def lift(prim, args):
    """prim at ``args``: lifted on the newest live tag among them, else its base value.

    Hot path (every primitive on an AD number that no fast path took): one pass over the
    arguments finds the tag and checks the constants; two AD arguments of one live tag (most
    binary operations) go straight to their kind."""
    if len(args) == 2:                # the common cases of two arguments, without loops
        x, y = args
        if isinstance(x, ADNumber):
            tx = x.tag
            if tx.live:
                if isinstance(y, ADNumber):
                    ty = y.tag
                    if tx is ty:
                        return tx.kind.lift(prim, tx, args, (True, True))
                    if ty.live:
                        tag = newer(tx, ty)
                        return tag.kind.lift(prim, tag, args, (tag is tx, tag is ty))
                elif type(y) is float:
                    return tx.kind.lift(prim, tx, args, (True, False))
        elif type(x) is float and isinstance(y, ADNumber) and y.tag.live:
            return y.tag.kind.lift(prim, y.tag, args, (False, True))
    tag = None
    row = prim.rule is not None
    for a in args:
        if isinstance(a, ADNumber):
            t = a.tag
            if not t.live and not alive(t):
                return lift(prim, [strip_dead(b) for b in args])
            tag = t if tag is None else newer(tag, t)
        elif type(a) is float:
            continue
        elif row:
            if family(a) is None:
                if type(a) is list or type(a) is tuple:     # x * [1.0, 2.0]: numpy's array of it
                    return lift(prim, [ARRAY_OPS["repack"](np.asarray(b)) if type(b) in
                                       (list, tuple) else b for b in args])
                if type(a) is np.ndarray and a.dtype == object:     # an object array of numbers
                    packed = [ARRAY_OPS["repack"](b) if type(b) is np.ndarray and
                              b.dtype == object else b for b in args]   # one array number
                    if not any(type(b) is np.ndarray and b.dtype == object for b in packed):
                        return lift(prim, packed)
                    return elementwise(prim.value, *args)
                raise NotDifferentiableError(f"dvlad.{prim.name} differentiates real numbers; "
                                             f"got {type(a).__name__} {a!r}")
        elif type(a) is complex or (isinstance(a, (np.ndarray, np.generic))
                                    and a.dtype.kind == "c"):
            raise NotDifferentiableError(f"{prim.name}: dvlad differentiates real numbers; got "
                                         f"a complex {type(a).__name__}")
    if tag is None:
        return prim.value(*args)
    return tag.kind.lift(prim, tag, args, [isinstance(a, ADNumber) and a.tag is tag
                                           for a in args])


def lift_many(prim, leaves):
    """A vector primitive at the flat list ``leaves``: its outputs (a flat list) lifted on the
    newest live tag, or None when no leaf carries one."""
    leaves = [strip_dead(a) for a in leaves]
    tag = None
    for a in leaves:
        if isinstance(a, ADNumber):
            tag = newer(tag, a.tag)
    if tag is None:
        return None
    ins = [isinstance(a, ADNumber) and a.tag is tag for a in leaves]
    return tag.kind.lift_many(prim, tag, leaves, ins)


def one_level_down(prim, tag, r, partials):
    """(Called for user primitives: ``prim.closure_check``.)  Check that a user primitive's value and partials, computed at its arguments'
    primals, carry no layer of the tag being lifted.  One that does closed over a variable that
    this derivative is perturbing (``primitive(lambda x: x * a, ...)`` inside a derivative over
    a): its part through the closure would be lost or confused with the argument's."""
    for v in (r, *partials):
        if isinstance(v, ADNumber) and v.tag is tag:
            raise TagOrderError(
                f"the primitive {prim.name!r} uses the perturbation {tag!r} (made by "
                f"{tag.made_by}) through a variable it closes over, not through its arguments. "
                f"The rule: a primitive is lifted on the newest tag among its arguments, and its "
                f"value and partials are computed at their primals, one level down, where "
                f"{tag!r} is gone; a closure brings {tag!r} back in, and its part of the "
                f"derivative would be lost: pass that variable as an argument (with its "
                f"partial), so its derivative is counted")
