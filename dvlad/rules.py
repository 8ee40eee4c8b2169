"""THE rule table: each primitive's base function and its partials, stated once.

Forward mode multiplies each partial by its argument's tangent; reverse mode stores it on the
tape.  A row gives one partial per argument, as a function of the arguments' primals and the
result ``r``, written in dvlad's own operations so that it can itself be differentiated at the next
(older) tag.  The names the partials use (``cos``, ``sqrt``, ``sign``, ``INF``...) are bound by
:mod:`dvlad.lift` twice: to dvlad's overloaded primitives, and to plain ``math`` for the fast path
taken when every primal is a float.  Piecewise-constant rows (``floor``...) have no partials: the
derivative 0 is exact at every order, so they return a base number.

Conventions at kinks and domain edges (identical in both modes and every base type; pinned by
tests/test_conventions.py; notes/conventions.md gives the reasons):

    sqrt'(0) = +inf           abs'(0) = sign(0) = 0          0**0 = 1, d/dx x**0 = 0
    d/dx x**c at x = 0: 0 for c > 1 or c = 0, 1 for c = 1, +inf for 0 < c < 1
    d/dy x**y: r·log x for x > 0, 0 at x = 0, nan for x < 0 (no real derivative)
    log(0) = -inf, log'(0) = +inf (likewise log1p at -1)
    asin'(±1) = +inf, acos'(±1) = -inf
    atan2 and hypot at (0, 0): value 0, partials (0, 0)
"""
# flake8: noqa: F821  -- the partials' free names are bound by dvlad.lift (see above)
from . import base


class Rule:
    """One primitive: its name, base function(s) and one partial per argument."""

    __slots__ = ("name", "arity", "base", "float_base", "partials", "float_partials", "op")

    def __init__(self, name, *partials):
        self.name = name
        self.arity = base.ARITY[name]
        self.base = base.BASE[name]
        self.float_base = base.FLOAT[name]
        self.partials = partials        # rebound to dvlad's operations by dvlad.lift
        self.float_partials = partials  # rebound to math by dvlad.lift
        self.op = None                  # the public dvlad function, set by dvlad.lift
        if partials and len(partials) != self.arity:
            raise ValueError(f"rule {name}: {self.arity} arguments but {len(partials)} partials")

    def __repr__(self):
        return f"Rule({self.name})"


def _pow_dx(x, y, r):
    # Away from x = 0 the formula holds for every y (y = 0 included: its y-derivative x**-1 must
    # survive nesting).  At x = 0 it would divide by zero for y < 1: the conventions above.
    if x == 0 and y < 1:
        if y == 0:
            return 0.0
        return INF if y > 0 else y * x ** (y - 1)   # y < 0: 0**y has already raised
    return y * x ** (y - 1)


def _pow_dy(x, y, r):
    if x > 0:
        return r * log(x)
    return 0 if x == 0 else NAN


TABLE = [
    #    name        partial wrt each argument, at primals (x[, y]) with result r
    Rule("add",      lambda x, y, r: 1.0,
                     lambda x, y, r: 1.0),
    Rule("sub",      lambda x, y, r: 1.0,
                     lambda x, y, r: -1.0),
    Rule("mul",      lambda x, y, r: y,
                     lambda x, y, r: x),
    Rule("div",      lambda x, y, r: 1 / y,
                     lambda x, y, r: -r / y),
    Rule("pow",      _pow_dx,
                     _pow_dy),
    Rule("mod",      lambda x, y, r: 1.0,
                     lambda x, y, r: -floor(x / y)),
    Rule("atan2",    lambda y, x, r: x / (x * x + y * y) if x != 0 or y != 0 else 0,
                     lambda y, x, r: -y / (x * x + y * y) if x != 0 or y != 0 else 0),
    Rule("hypot",    lambda x, y, r: x / r if r != 0 else 0,
                     lambda x, y, r: y / r if r != 0 else 0),
    Rule("neg",      lambda x, r: -1.0),
    Rule("abs",      lambda x, r: sign(x)),
    Rule("sqrt",     lambda x, r: 0.5 / r if r != 0 else INF),
    Rule("exp",      lambda x, r: r),
    Rule("expm1",    lambda x, r: r + 1),
    Rule("log",      lambda x, r: 1 / x if x != 0 else INF),
    Rule("log1p",    lambda x, r: 1 / (1 + x) if x != -1 else INF),
    Rule("sin",      lambda x, r: cos(x)),
    Rule("cos",      lambda x, r: -sin(x)),
    Rule("tan",      lambda x, r: 1 + r * r),
    Rule("asin",     lambda x, r: 1 / sqrt(1 - x * x) if x * x != 1 else INF),
    Rule("acos",     lambda x, r: -1 / sqrt(1 - x * x) if x * x != 1 else -INF),
    Rule("atan",     lambda x, r: 1 / (1 + x * x)),
    Rule("sinh",     lambda x, r: cosh(x)),
    Rule("cosh",     lambda x, r: sinh(x)),
    Rule("tanh",     lambda x, r: 1 - r * r),
    # piecewise constant: derivative 0 at every order, the result is a base number
    Rule("floordiv"),
    Rule("sign"),
    Rule("floor"),
    Rule("ceil"),
    Rule("trunc"),
    Rule("round"),
    Rule("int"),
]

RULES = {rule.name: rule for rule in TABLE}
