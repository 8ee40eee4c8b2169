"""THE rule table: each primitive's base function and its partials, stated once.

Each row is Python expression text, as in DiffRules.jl: the base value in terms of the
arguments' primals ``x`` (and ``y``), and one partial per argument in terms of ``x``, ``y`` and the
result ``r``.  :mod:`dvlad.ops` compiles every row three ways from that one text:

- the partials in dvlad's own overloaded operations, so a partial can itself be differentiated at
  the next (older) tag: this is what makes forward-over-reverse and friends work;
- the base value with the base-number functions of :mod:`dvlad.base` (mpf in, mpf out);
- a fast path for float primals with the expressions inlined and ``math`` underneath.

Forward mode multiplies each partial by its argument's tangent; reverse mode stores it on the
tape.  Piecewise-constant rows have no partials: their derivative, 0, is exact at every order, so
they return a base number.

Conventions at kinks and domain edges (identical in both modes and every base type; pinned by
tests/test_conventions.py; notes/conventions.md gives the reasons):

    sqrt'(0) = +inf           abs'(0) = sign(0) = 0          0**0 = 1, d/dx x**0 = 0
    d/dx x**c at x = 0: 0 for c > 1 or c = 0, 1 for c = 1, +inf for 0 < c < 1
    d/dy x**y: r·log x for x > 0, 0 at x = 0, nan for x < 0 (no real derivative)
    log(0) = -inf, log'(0) = +inf (likewise log1p at -1)
    asin'(±1) = +inf, acos'(±1) = -inf
    atan2 and hypot at (0, 0): value 0, partials (0, 0)
    maximum, minimum at a tie x == y: partials (1/2, 1/2)
"""
# ∂(x**y)/∂x: away from x = 0 the formula holds for every y (y = 0 included: its y-derivative
# x**-1 must survive nesting); at x = 0 it would divide by zero for y < 1 (int, float and mpf have
# already raised at 0**y for y < 0).  The cheap test comes first: arrays skip the rest when y ≥ 1.
# ``constant(y) and y == 2``: the cheap square's partial 2x only for a constant exponent (a
# perturbed y must keep y·x**(y-1), whose y-derivative is not that of 2x).
POW_DX = ("2.0 * x if constant(y) and y == 2 else (y * x ** (y - 1) if not (y < 1 and x == 0) "
          "else (0.0 if y == 0 else (INF if y > 0 else y * x ** (y - 1))))")
# ∂(x**y)/∂y = x**y·log x; 0 at x = 0; nan for x < 0, where no real derivative exists.
POW_DY = "r * log(x) if x > 0 else (0.0 if x == 0 else NAN)"

BINARY = [
    # name        base            ∂/∂x                                  ∂/∂y
    ("add",      "x + y",        "1.0",                                 "1.0"),
    ("sub",      "x - y",        "1.0",                                 "-1.0"),
    ("mul",      "x * y",        "y",                                   "x"),
    ("div",      "x / y",        "1.0 / y",                             "-r / y"),
    ("pow",      "pow(x, y)",    POW_DX,                                POW_DY),
    ("mod",      "x % y",        "1.0",                                 "-floor(x / y)"),
    ("atan2",    "atan2(x, y)",  "y / (x*x + y*y) if x or y else 0.0",  "-x / (x*x + y*y) if x or y else 0.0"),
    ("hypot",    "hypot(x, y)",  "x / r if r else 0.0",                 "y / r if r else 0.0"),
    ("maximum",  "maximum(x, y)", "1.0 if x > y else (0.5 if x == y else 0.0)",
                                  "1.0 if y > x else (0.5 if x == y else 0.0)"),
    ("minimum",  "minimum(x, y)", "1.0 if x < y else (0.5 if x == y else 0.0)",
                                  "1.0 if y < x else (0.5 if x == y else 0.0)"),
]

UNARY = [
    # name        base            ∂/∂x
    ("neg",      "-x",           "-1.0"),
    ("square",   "x * x",        "2.0 * x"),
    ("reciprocal", "1.0 / x",    "-r * r"),
    ("abs",      "abs(x)",       "sign(x)"),
    ("sqrt",     "sqrt(x)",      "0.5 / r if r else INF"),
    ("exp",      "exp(x)",       "r"),
    ("expm1",    "expm1(x)",     "r + 1.0"),
    ("log",      "log(x)",       "1.0 / x if x else INF"),
    ("log1p",    "log1p(x)",     "1.0 / (1.0 + x) if x != -1 else INF"),
    ("sin",      "sin(x)",       "cos(x)"),
    ("cos",      "cos(x)",       "-sin(x)"),
    ("tan",      "tan(x)",       "1.0 + r * r"),
    ("asin",     "asin(x)",      "1.0 / sqrt(1.0 - x * x) if x * x != 1 else INF"),
    ("acos",     "acos(x)",      "-1.0 / sqrt(1.0 - x * x) if x * x != 1 else -INF"),
    ("atan",     "atan(x)",      "1.0 / (1.0 + x * x)"),
    ("sinh",     "sinh(x)",      "cosh(x)"),
    ("cosh",     "cosh(x)",      "sinh(x)"),
    ("tanh",     "tanh(x)",      "1.0 - r * r"),
]

PIECEWISE = [
    # name        arity  base: derivative 0 at every order, the result is a base number
    ("floordiv",  2,     "floordiv(x, y)"),
    ("sign",      1,     "sign(x)"),
    ("floor",     1,     "floor(x)"),
    ("ceil",      1,     "ceil(x)"),
    ("trunc",     1,     "trunc(x)"),
    ("round",     1,     "round(x)"),
    ("int",       1,     "int(x)"),
]


class Rule:
    """One row of the table, compiled by dvlad.ops: ``op`` is the public primitive."""

    __slots__ = ("name", "arity", "base_text", "partial_texts", "base", "partials",
                 "array_partials", "uses", "op")

    def __init__(self, name, arity, base_text, partial_texts):
        self.name, self.arity = name, arity
        self.base_text, self.partial_texts = base_text, partial_texts
        # set by dvlad.ops
        self.base = self.partials = self.array_partials = self.uses = self.op = None

    def __repr__(self):
        parts = ", ".join(self.partial_texts)
        return f"Rule({self.name}: {self.base_text}; partials {parts or 'none (piecewise constant)'})"


TABLE = ([Rule(name, 2, b, (dx, dy)) for name, b, dx, dy in BINARY]
         + [Rule(name, 1, b, (dx,)) for name, b, dx in UNARY]
         + [Rule(name, arity, b, ()) for name, arity, b in PIECEWISE])
RULES = {rule.name: rule for rule in TABLE}
