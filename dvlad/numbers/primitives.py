"""The primitives: each row of the rule table compiled into a Python function, and the operators.

Each primitive is generated from its row of :mod:`dvlad.rules` by the templates below, which first
try, with the row's expressions inlined, the common case: plain floats, or one live layer over
float primals whose other operand is a float/int constant or a layer of the same tag.  A lone
Taylor tower goes to its recurrences (:mod:`dvlad.tower`); anything else goes to the one general
dispatch in :mod:`dvlad.lift`.  Why generate: per operation it saves
the frames of a base function and of each partial (timeit, CPython 3.11: x*y on two tape cells
288 -> ~190 ns), and a reflected operator (``1.0 - x``) gets its own function instead of a lambda
frame.  The rows' partials are also compiled in dvlad's own operations (so they nest) and, with
their conditionals made elementwise, for array primals (:mod:`dvlad.vectorize`).
"""
import ast
import builtins
import math

import numpy as np

from ..core import base
from ..core import pool
from .bundle import Bundle
from ..core.number import ARRAY_OPS
from .lift import _lift1, _lift2
from ..core.number import strip
from ..core.rules import TABLE
from .tape import TapeCell
from .tower import Tower, tower1, tower2
from ..core.vectorize import make_helpers, vectorize

# Templates.  X, Y are the arguments; x, y their primals; r the result; {base}, {dx}, {dy} the
# row's expressions.  "ARGS" is "X, Y", or "Y, X" for the reflected operator (__rsub__ ...).
_UNARY = '''
def _generated_op(X):
    t = type(X)
    if t is float:
        x = X
        return {base}
    if t is Bundle:
        tag = X.tag; x = X.primal
        if type(x) is float and tag.live:
            r = {base}
            b = Bundle(); b.tag = tag; b.primal = r; b.tangent = ({dx}) * X.tangent
            return b
    elif t is TapeCell:
        tag = X.tag; x = X.primal
        if type(x) is float and tag.live:
            r = {base}
            c = TapeCell(); tape = tag.tape
            c.tag = tag; c.primal = r; c.links = (X, {dx}); c.index = len(tape)
            tape.append(c)
            return c
    elif t is Tower:
        return tower1(RULE, X)
    else:
        return base_op(X)
    return lift1(RULE, X)
'''

_BINARY = '''
def _generated_op(ARGS):
    tX = type(X); tY = type(Y)
    if tX is float and tY is float:
        x = X; y = Y
        return {base}
    if tX is Bundle or tX is TapeCell:
        tag = X.tag; x = X.primal
        if type(x) is float and tag.live:
            if tY is float or tY is int:
                y = Y
                r = {base}
                if tX is Bundle:
                    b = Bundle(); b.tag = tag; b.primal = r; b.tangent = ({dx}) * X.tangent
                    return b
                c = TapeCell(); tape = tag.tape
                c.tag = tag; c.primal = r; c.links = (X, {dx}); c.index = len(tape)
                tape.append(c)
                return c
            if tY is tX and Y.tag is tag:
                y = Y.primal
                if type(y) is float:
                    r = {base}
                    if tX is Bundle:
                        b = Bundle(); b.tag = tag; b.primal = r
                        b.tangent = ({dx}) * X.tangent + ({dy}) * Y.tangent
                        return b
                    c = TapeCell(); tape = tag.tape
                    c.tag = tag; c.primal = r; c.links = (X, {dx}, Y, {dy}); c.index = len(tape)
                    tape.append(c)
                    return c
    elif tY is Bundle or tY is TapeCell:
        tag = Y.tag; y = Y.primal
        if (tX is float or tX is int) and type(y) is float and tag.live:
            x = X
            r = {base}
            if tY is Bundle:
                b = Bundle(); b.tag = tag; b.primal = r; b.tangent = ({dy}) * Y.tangent
                return b
            c = TapeCell(); tape = tag.tape
            c.tag = tag; c.primal = r; c.links = (Y, {dy}); c.index = len(tape)
            tape.append(c)
            return c
    elif tX is Tower:
        if (tY is float or tY is int or tY is Tower and Y.tag is X.tag) and X.tag.live:
            return tower2(RULE, X.tag, X, Y, True, tY is Tower)
    elif tY is Tower:
        if (tX is float or tX is int) and Y.tag.live:
            return tower2(RULE, Y.tag, X, Y, False, True)
    else:
        return base_op(X, Y)
    return lift2(RULE, X, Y)
'''

# The three namespaces the rows' text is compiled in.  FLOAT: math, with dvlad's conventions.
# BASE: the base-number functions (by family: math, numpy, mpmath).  AD: dvlad's primitives, so
# that partials nest; it is filled in once the primitives exist (names are looked up at call time).
_CONSTANTS = dict(INF=math.inf, NAN=math.nan, __builtins__=builtins,
                  constant=lambda v: not hasattr(v, "tag"))   # no perturbation on v
_FLOAT = dict(base.FLOAT, **_CONSTANTS)
_BASE = dict(base.BASE, **_CONSTANTS)
_AD = dict(_CONSTANTS)
# Array primals: the same rows with their conditionals made elementwise (dvlad.vectorize), and
# dvlad's where to join the branches (bound when dvlad.arrays is imported).
_ARRAY_AD = dict(_CONSTANTS, **make_helpers(ARRAY_OPS))


def _compile(text, namespace, params):
    return eval(f"lambda {params}: {text}", namespace)


def _generate(template, rule, args=None):
    """The primitive's function: the template with the row's expressions, over float math."""
    dx, dy = (rule.partial_texts + ("", ""))[:2]
    source = template.format(name=rule.name, base=rule.base_text, dx=dx, dy=dy)
    if args:
        source = source.replace("ARGS", args)
    namespace = dict(_FLOAT, Bundle=Bundle, TapeCell=TapeCell, Tower=Tower, tower1=tower1,
                     tower2=tower2, lift1=_lift1, lift2=_lift2,
                     RULE=rule, base_op=rule.base)
    exec(compile(source, f"<dvlad rule {rule.name}>", "exec"), namespace)
    return namespace["_generated_op"]


class _Calls(ast.NodeTransformer):
    """Arithmetic operators as calls of the primitives: ``2.0 * x`` -> ``mul(2.0, x)``."""

    _BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}

    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = self._BINOPS.get(type(node.op))
        if name is None:
            return node
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right],
                        keywords=[])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.USub) or isinstance(node.operand, ast.Constant):
            return node
        return ast.Call(func=ast.Name(id="neg", ctx=ast.Load()), args=[node.operand], keywords=[])


def _as_calls(text):
    """A partial's text for array primals with its arithmetic as calls of the primitives: on a
    plain array the primitive's base function puts the result in pooled memory (dvlad.pool),
    where numpy's operator would take fresh pages; on an AD number it is what the operator
    calls anyway."""
    tree = _Calls().visit(ast.parse(text, mode="eval"))
    return ast.unparse(ast.fix_missing_locations(tree))


def _uses(text, params):
    """Which of ``params`` the partial's text reads: (True, False, True) for "x * r" of x, y, r.
    Reverse mode keeps only those until the sweep, so an unused result is freed at once."""
    names = {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    return tuple(p in names for p in params)


# Rows whose base function on float arrays is exactly this ufunc: their results go into pooled
# arrays (dvlad.pool), which spares the kernel zeroing fresh pages for each.
_UFUNCS = dict(add=np.add, sub=np.subtract, mul=np.multiply, div=np.true_divide, neg=np.negative,
               square=np.square, sqrt=np.sqrt, exp=np.exp, expm1=np.expm1, log=np.log,
               log1p=np.log1p, sin=np.sin, cos=np.cos, tan=np.tan, atan=np.arctan, sinh=np.sinh,
               cosh=np.cosh, tanh=np.tanh)


def _pooled(rule, bop):
    """The row's base function, with float-array results in pooled memory where it can."""
    uf = _UFUNCS.get(rule.name)
    out1, out2 = pool.out1, pool.out2
    if rule.name == "pow":
        square, int_, float_ = np.square, builtins.int, builtins.float   # (int is dvlad's here)

        def base_pow(x, y):
            if (type(y) is int_ or type(y) is float_) and y == 2:
                out = out1(x)
                if out is not None:
                    return square(x, out=out)
            return bop(x, y)
        return base_pow
    if uf is None:
        return bop
    if rule.arity == 1:
        def base1(x):
            out = out1(x)
            return bop(x) if out is None else uf(x, out=out)
        return base1

    def base2(x, y):
        out = out2(x, y)
        return bop(x, y) if out is None else uf(x, y, out=out)
    return base2


def _make(rule):
    params = "x, y" if rule.arity == 2 else "x"
    rule.base = bop = _pooled(rule, _compile(rule.base_text, _BASE, params))
    if not rule.partial_texts:                       # piecewise constant: strip, then base
        rule.op = ((lambda x, y: bop(strip(x), strip(y))) if rule.arity == 2
                   else (lambda x: bop(strip(x))))
    else:
        rule.partials = tuple(_compile(d, _AD, params + ", r") for d in rule.partial_texts)
        rule.array_partials = tuple(_compile(vectorize(_as_calls(d), (params + ", r").split(", ")),
                                             _ARRAY_AD, params + ", r")
                                    for d in rule.partial_texts)
        rule.uses = tuple(_uses(d, (params + ", r").split(", ")) for d in rule.partial_texts)
        rule.op = (_generate(_BINARY, rule, "X, Y") if rule.arity == 2
                   else _generate(_UNARY, rule))
    rule.op.__name__ = rule.op.__qualname__ = rule.name
    rule.op.__doc__ = (f"dvlad.{rule.name}: {rule.base_text}; partials "
                       f"{', '.join(rule.partial_texts) or '0 (piecewise constant)'}.")
    return rule.op


OPS = {rule.name: _make(rule) for rule in TABLE}
_AD.update(OPS)
_ARRAY_AD.update(OPS)
# other - self: the same row, arguments in the other order
_REFLECTED = {rule.name: _generate(_BINARY, rule, "Y, X")
              for rule in TABLE if rule.arity == 2 and rule.partial_texts}

(add, sub, mul, div, pow, mod, floordiv, atan2, hypot, maximum, minimum, neg, square, reciprocal,
 abs, sqrt, exp, expm1, log, log1p, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, sign, floor,
 ceil, trunc, round, int) = (
    OPS[name] for name in (
        "add", "sub", "mul", "div", "pow", "mod", "floordiv", "atan2", "hypot", "maximum",
        "minimum", "neg", "square", "reciprocal", "abs", "sqrt", "exp", "expm1", "log", "log1p",
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sign", "floor",
        "ceil", "trunc", "round", "int"))


def _pow3(x, y, modulo=None):
    if modulo is not None:
        raise TypeError("pow(x, y, modulo) is not differentiable; use (x ** y) % modulo")
    return pow(x, y)


def _install_operators(cls):
    """Python's arithmetic operators on AD numbers: each is a primitive of the table."""
    cls.__add__, cls.__radd__ = add, _REFLECTED["add"]
    cls.__sub__, cls.__rsub__ = sub, _REFLECTED["sub"]
    cls.__mul__, cls.__rmul__ = mul, _REFLECTED["mul"]
    cls.__truediv__, cls.__rtruediv__ = div, _REFLECTED["div"]
    cls.__mod__, cls.__rmod__ = mod, _REFLECTED["mod"]
    cls.__pow__, cls.__rpow__ = _pow3, _REFLECTED["pow"]
    cls.__floordiv__ = floordiv
    cls.__rfloordiv__ = lambda self, other: floordiv(other, self)
    cls.__divmod__ = lambda self, other: (floordiv(self, other), mod(self, other))
    cls.__rdivmod__ = lambda self, other: (floordiv(other, self), mod(other, self))
    cls.__neg__ = neg
    cls.__pos__ = lambda self: self
    cls.__abs__ = abs


for _cls in (Bundle, TapeCell, Tower):
    _install_operators(_cls)
