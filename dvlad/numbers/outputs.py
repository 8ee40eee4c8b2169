"""scipy.special's ufuncs as dvlad functions, including the ufuncs of several outputs.

A row of the rule table has one value.  scipy's ``fresnel`` gives two, (S, C), and ``sici``
(Si, Ci): each output is a row of its own (``output=k`` in the table, grouped by
:data:`dvlad.core.rules.OUTPUTS`), so each has its own partials and nests like any row, and
``dvlad.fresnel(x)`` (generated here, like the rows' primitives) returns the tuple of the rows'
values.  :data:`SPECIAL` maps each scipy.special name the table answers to onto the function
that computes it: the row's primitive, or the tuple function; numpy's protocol
(:mod:`dvlad.arrays.protocol`) maps scipy's ufuncs through it.

>>> import dvlad
>>> s, c = dvlad.derivative(dvlad.fresnel)(0.0)       # (sin 0, cos 0)
>>> (s, c)
(0.0, 1.0)
"""
from ..core.rules import OUTPUTS, RULES, TABLE
from .primitives import OPS, _register

__all__ = ["SPECIAL", "MULTI"]


def _tuple_of(name, rows):
    """dvlad.<name>: the tuple of the values of ``rows`` (one row per output, in order)."""
    params = ", ".join("xyzw"[:RULES[rows[0]].arity])
    source = (f"def {name}({params}):\n    return ("
              + ", ".join(f"{row}({params})" for row in rows) + ")\n")
    namespace = dict(OPS)
    exec(_register(source, f"<dvlad outputs {name}>"), namespace)
    f = namespace[name]
    f.__module__ = "dvlad"
    f.__doc__ = (f"dvlad.{name}: scipy.special.{name}'s outputs, the rows "
                 f"{', '.join(rows)} ({name}(x)[k] is the k-th).")
    return f


# the ufuncs of several outputs, dvlad.fresnel and dvlad.sici
MULTI = {name: _tuple_of(name, rows) for name, rows in OUTPUTS.items()}
# scipy.special's name -> the dvlad function that computes it
SPECIAL = {name: OPS[rule.name] for rule in TABLE for name in rule.special
           if rule.output is None}
SPECIAL.update(MULTI)
globals().update(MULTI)           # dvlad.numbers.outputs.<name>: the export list is dvlad's
