"""Rows of the rule table with three or four arguments (``betainc(a, b, x)``,
``hyp2f1(a, b, c, x)``), as the lift sees them.

The rows of one and two arguments have fast paths, recurrences and a primitive object of their
own (:class:`~dvlad.numbers.partials.RowPrimitive`); a row of more takes the general path alone:
its generated function hands every AD argument to the one lift (:func:`dvlad.core.lift.lift`),
forward and reverse mode ask :meth:`TernaryRow.at` for the in-arguments' partials (numbers at
scalars, :class:`~dvlad.numbers.partials.ElementwiseMap` at arrays, broadcasting both ways), and
Taylor towers derive the coefficients from the partials as for any primitive without a
recurrence (:func:`dvlad.numbers.tower.tower_n`).  The partials are the row's own text, compiled
in dvlad's operations by :mod:`dvlad.numbers.primitives`, so they nest.  An argument with no
perturbation at the tag being lifted has no partial computed: a shape argument's partial raises
(``no_derivative``), and is reached only when that argument is perturbed.
"""
from ..core.number import ADNumber
from ..core.tags import FORWARD
from .partials import ElementwiseMap, _is_array, _shape, _snapshot

__all__ = ["TernaryRow"]


class TernaryRow:
    """A row of three or four arguments: the primitive interface of :mod:`dvlad.core.lift`
    (``value``, ``at``) and the one towers use for primitives without a recurrence (``op``,
    ``partials``, ``with_result``)."""

    __slots__ = ("row", "name")
    rule = None            # (towers: the derivation from the partials, not a row's recurrence)
    closure_check = False
    with_result = True

    def __init__(self, rule):
        self.row, self.name = rule, rule.name

    @property
    def op(self):
        return self.row.op

    def value(self, *primals):
        return self.row.op(*primals)

    def partials(self, *args, r):
        """Each partial at ``args`` (towers truncated one order lower, or constants): None for an
        argument that carries no perturbation."""
        rule = self.row
        fs = rule.array_partials if any(_is_array(a) for a in args) else rule.partials
        return tuple(f(*args, r) if isinstance(a, ADNumber) else None for a, f in zip(args, fs))

    def at(self, primals, ins, kind):
        """(r, partials) at the primals: the in-arguments' partials, None for the others."""
        rule = self.row
        r = rule.op(*primals)
        if not any(_is_array(p) for p in primals):
            return r, tuple(f(*primals, r) if i else None for f, i in zip(rule.partials, ins))
        if kind is not FORWARD:          # the maps run at sweep time: see RowPrimitive
            primals = [p if i else _snapshot(p) for p, i in zip(primals, ins)]
        args, out = (*primals, r), _shape(r)
        return r, tuple(ElementwiseMap(f, args, None if kind is FORWARD else _shape(p), out)
                        if i else None for f, p, i in zip(rule.array_partials, primals, ins))
