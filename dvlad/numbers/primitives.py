"""The primitives: each row of the rule table compiled into a Python function, and the operators.

Each primitive is generated from its row of :mod:`dvlad.core.rules` by the templates below, which first
try, with the row's expressions inlined, the common case: plain floats, or one live layer over
float primals whose other operand is a float/int constant or a layer of the same tag.  A lone
Taylor tower goes to its recurrences (:mod:`dvlad.tower`); anything else goes to the one general
dispatch in :mod:`dvlad.core.lift`.  Why generate: per operation it saves
the frames of a base function and of each partial (timeit, CPython 3.11: x*y on two tape cells
288 -> ~190 ns), and a reflected operator (``1.0 - x``) gets its own function instead of a lambda
frame.  The rows' partials are also compiled in dvlad's own operations (so they nest) and, with
their conditionals made elementwise, for array primals (:mod:`dvlad.vectorize`).
"""
import ast
import builtins
import linecache
import math

import numpy as np

from ..core import base, pool
from ..core.base import MPF, dispatch
from ..core.number import ARRAY_OPS, ADNumber, strip
from ..core.rules import HELPERS, TABLE
from ..core.switch import REFERENCE
from ..core.tags import NotDifferentiableError
from ..core.vectorize import make_helpers, numbers_only, on_bases, vectorize
from .bundle import Bundle
from .fast import fast1, fast2
from ..core.lift import lift
from .nonfinite import marked, nonfinite
from .partials import RowPrimitive
from .ternary import TernaryRow
from .tape import TapeCell
from .tower import Tower, tower1, tower2

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
    elif not isinstance(X, ADNumber):     # (an AD number of another class: np.asarray's
        return base_op(X)                  # pending elements, dvlad.arrays.elements)
    return fast1(RULE, PRIM, X)
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
                r = {base}{zx}
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
            r = {base}{zy}
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
    elif not (isinstance(X, ADNumber) or isinstance(Y, ADNumber)):
        return base_op(X, Y)
    return fast2(RULE, PRIM, X, Y)
'''

# The reference path (dvlad.core.switch): the general lift alone, for every argument that is an AD
# number; base numbers go to the row's base function.
_REFERENCE_UNARY = '''
def _generated_op(X):
    if isinstance(X, ADNumber):
        return lift(PRIM, (X,))
    return base_op(X)
'''

_REFERENCE_BINARY = '''
def _generated_op(ARGS):
    if isinstance(X, ADNumber) or isinstance(Y, ADNumber):
        return lift(PRIM, (X, Y))
    return base_op(X, Y)
'''

# A row of three or four arguments (betainc, hyp2f1) has this path alone, fast or not
# (dvlad.numbers.ternary).  ARGS: "X, Y, Z" or "X, Y, Z, W"; AD: is any an AD number.
_TERNARY = '''
def _generated_op(ARGS):
    if AD:
        return lift(PRIM, (ARGS,))
    return base_op(ARGS)
'''


def _like(v, c):
    """The constant c as a number of v's precision: an mpf if v's base number is one, else a
    float (a partial such as log(2) must be as precise as the argument it multiplies); a c that
    is not a Python number (an array, an AD number) as it is."""
    if type(c) is not builtins.int and type(c) is not builtins.float:
        return c
    while isinstance(v, ADNumber):
        v = v.primal
    return mpmath_mpf(c) if type(base.concrete(v)) is MPF else builtins.float(c)


# The namespaces the rows' text is compiled in, derived from the table.  FLOAT: each row's math
# function by its name, with dvlad's conventions.  BASE (per row): the row's own base function,
# dispatching on the family of its arguments.  AD: dvlad's primitives, so that partials nest;
# it is filled in once the primitives exist (names are looked up at call time).
mpmath_mpf = base.mpmath.mpf
def _no_derivative(name, argument, kind="order"):
    """The partial of an argument that is an integer order (polygamma's n), or a shape argument
    whose derivative has no closed form (gammainc's a): not a variable."""
    if kind == "shape":
        raise NotDifferentiableError(
            f"scipy.special.{name} (dvlad.{name}): its shape argument {argument} is not "
            f"differentiated (the derivative in it has no closed form; autograd does not "
            f"differentiate it either). Pass {argument} as a plain number, or give the "
            f"derivative you need with dvlad.primitive")
    raise NotDifferentiableError(
        f"dvlad.{name}: its argument {argument} is an integer order, not a variable; it has no "
        f"derivative. Pass it as a plain number (the derivative is taken in the other argument)")


def _pi(v):
    """π in the precision of v's base number (an mpf at the working precision, else a float)."""
    while isinstance(v, ADNumber):
        v = v.primal
    return +base.mpmath.pi if type(base.concrete(v)) is MPF else math.pi


_CONSTANTS = dict(INF=math.inf, NAN=math.nan, __builtins__=builtins, pi=_pi,
                  constant=lambda v: not hasattr(v, "tag"),   # no perturbation on v
                  no_derivative=_no_derivative, nonfinite=nonfinite, **HELPERS)
_FLOAT = dict({"math_" + rule.name: rule.lib[0] for rule in TABLE if rule.lib},
              like=lambda v, c: float(c), **_CONSTANTS)


class _MathNames(ast.NodeTransformer):
    """A row's text for the float twin: each function it calls by a row's name becomes that row's
    math function, ``math_<name>`` (the twin itself is called by the name)."""

    def visit_Name(self, node):
        if "math_" + node.id in _FLOAT:
            return ast.copy_location(ast.Name(id="math_" + node.id, ctx=node.ctx), node)
        return node


def _float_text(text):
    if not text:
        return text
    tree = _MathNames().visit(ast.parse(text, mode="eval"))
    return ast.unparse(ast.fix_missing_locations(tree))
_AD = dict(_CONSTANTS, like=_like)
# Array primals: the same rows with their conditionals made elementwise (dvlad.core.vectorize),
# and dvlad's where to join the branches (bound when dvlad.arrays is imported).
_ARRAY_AD = dict(_CONSTANTS, like=_like, **make_helpers(ARRAY_OPS))


def _compile(text, namespace, params):
    return eval(f"lambda {params}: {text}", namespace)


def _register(source, filename):
    """Generated source, registered with linecache: tracebacks and inspect.getsource show it."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return compile(source, filename, "exec")


def _generate(template, rule, args=None):
    """The primitive's function: the template with the row's expressions, over float math."""
    dx, dy = (tuple(_float_text(d) for d in rule.partial_texts) + ("", ""))[:2]
    # a row linear in an argument whose partial the constant operand makes 0 returns a constant
    # (0·x: structural_zero in partials.py; not 0·∞, whose nan carries a nan tangent)
    zx, zy = (f"\n{' ' * n}if ({d}) == 0 and r == r:\n{' ' * (n + 4)}return r" if lin else ""
              for d, lin, n in zip((dx, dy), rule.linear + (False,), (16, 12)))
    source = template.format(name=rule.name, base=_float_text(rule.base_text), dx=dx, dy=dy,
                             zx=zx, zy=zy)
    if args:
        source = source.replace("ARGS", args)
    filename = f"<dvlad rule {rule.name}{' reflected' if args == 'Y, X' else ''}>"
    source = source.replace("def _generated_op(", f"def {rule.name}(", 1).lstrip("\n")
    namespace = dict(_FLOAT, Bundle=Bundle, TapeCell=TapeCell, Tower=Tower, tower1=tower1,
                     tower2=tower2, lift=lift, ADNumber=ADNumber, fast1=fast1,
                     fast2=fast2, RULE=rule,
                     PRIM=(TernaryRow if rule.arity >= 3 else RowPrimitive)(rule),
                     base_op=rule.base)
    exec(_register(source, filename), namespace)
    return namespace[rule.name]
class _Calls(ast.NodeTransformer):
    """Arithmetic operators as calls of the primitives whose rows name the operator's method:
    ``2.0 * x`` -> ``<the row of __mul__>(2.0, x)``."""

    _DUNDERS = {ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__",
                ast.Div: "__truediv__", ast.Pow: "__pow__", ast.USub: "__neg__"}
    _ROWS = {d: rule.name for rule in TABLE for d in rule.dunders}

    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = self._ROWS.get(self._DUNDERS.get(type(node.op)))
        if name is None:
            return node
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right],
                        keywords=[])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.USub) or isinstance(node.operand, ast.Constant):
            return node
        return ast.Call(func=ast.Name(id=self._ROWS["__neg__"], ctx=ast.Load()),
                        args=[node.operand], keywords=[])


def _as_calls(text):
    """A partial's text for array primals with its arithmetic as calls of the primitives: on a
    plain array the primitive's base function puts the result in pooled memory (dvlad.pool),
    where numpy's operator would take fresh pages; on an AD number it is what the operator
    calls anyway."""
    tree = _Calls().visit(ast.parse(text, mode="eval"))
    return ast.unparse(ast.fix_missing_locations(tree))


def _calls(text):
    """Whether a partial's text calls a function (not only arithmetic)."""
    return any(isinstance(n, ast.Call) for n in ast.walk(ast.parse(text, mode="eval")))


def _uses(text, params):
    """Which of ``params`` the partial's text reads: (True, False, True) for "x * r" of x, y, r.
    Reverse mode keeps only those until the sweep, so an unused result is freed at once."""
    names = {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    return tuple(p in names for p in params)


def _pooled(rule, bop):
    """The row's base function, with float-array results in pooled memory where it can: for a
    row whose first numpy ufunc computes exactly its base function on float arrays."""
    uf = getattr(np, rule.ufuncs[0]) if rule.ufuncs and rule.partial_texts else None
    if uf is None or rule.lib is not None and rule.lib[1] is not uf and uf is not np.power:
        return bop
    out1, out2 = pool.out1, pool.out2
    if uf is np.power:
        squared, int_, float_ = np.square, builtins.int, builtins.float

        def base_power(x, y):
            if (type(y) is int_ or type(y) is float_) and y == 2:
                out = out1(x)
                if out is not None:
                    return squared(x, out=out)
            return bop(x, y)
        return base_power
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
    params = ", ".join("xyzw"[:rule.arity])
    names = dict(_CONSTANTS)
    if rule.lib is not None:
        names[rule.name] = dispatch(rule.name, rule.arity, *rule.lib)
        rule.float = rule.lib[0]
    plain = _compile(rule.base_text, names, params)
    rule.base = bop = _pooled(rule, plain)
    if rule.lib is None:               # a row written with operators (x * x): its text over floats
        rule.float = _FLOAT["math_" + rule.name] = plain
    if not rule.partial_texts:                       # piecewise constant: strip, then base
        source = (f"def {rule.name}(x, y):\n    return base_op(strip(x), strip(y))\n"
                  if rule.arity == 2 else f"def {rule.name}(x):\n    return base_op(strip(x))\n")
        namespace = dict(base_op=bop, strip=strip)
        exec(_register(source, f"<dvlad rule {rule.name}>"), namespace)
        rule.op = namespace[rule.name]
    else:
        rule.partials = tuple(on_bases(_compile(_float_text(d), _FLOAT, params + ", r"),
                                       f"{rule.name}_partial_{k}") if numbers_only(d)
                              else _compile(marked(d, params.split(", ")), _AD, params + ", r")
                              for k, d in enumerate(rule.partial_texts))
        texts = [marked(d, params.split(", ")) for d in rule.partial_texts]   # (∞: nonfinite.py)
        rule.array_partials = tuple(_compile(vectorize(_as_calls(d), (params + ", r").split(", ")),
                                             _ARRAY_AD, params + ", r") for d in texts)
        rule.uses = tuple(_uses(d, (params + ", r").split(", ")) for d in texts)
        # (arithmetic partials only: mul, div's numerator; xlogy's log(y) vanishes at y = 1)
        rule.linear = tuple(any(u) and not u[i] and not u[-1] and not _calls(d)
                            for i, (u, d) in enumerate(zip(rule.uses, rule.partial_texts)))
        if rule.arity >= 3:
            rule.op = _generate(_TERNARY.replace("AD:", " or ".join(
                f"isinstance({a}, ADNumber)" for a in "XYZW"[:rule.arity]) + ":"), rule,
                ", ".join("XYZW"[:rule.arity]))
        elif REFERENCE:
            rule.op = (_generate(_REFERENCE_BINARY, rule, "X, Y") if rule.arity == 2
                       else _generate(_REFERENCE_UNARY, rule))
        else:
            rule.op = (_generate(_BINARY, rule, "X, Y") if rule.arity == 2
                       else _generate(_UNARY, rule))
    rule.op.__qualname__ = rule.name
    rule.op.__module__ = "dvlad"
    rule.op.__doc__ = (f"dvlad.{rule.name}: {rule.base_text}; partials "
                       f"{', '.join(rule.partial_texts) or '0 (piecewise constant)'}.")
    return rule.op


OPS = {rule.name: _make(rule) for rule in TABLE}
_AD.update(OPS)
_ARRAY_AD.update(OPS)
# other - self: the same row, arguments in the other order
_REFLECTED = {rule.name: _generate(_REFERENCE_BINARY if REFERENCE else _BINARY, rule, "Y, X")
              for rule in TABLE if rule.arity == 2 and rule.partial_texts}
globals().update(OPS)             # dvlad.numbers.primitives.<name>: the export list is dvlad's


def _install_operators(cls):
    """Python's arithmetic operators on AD numbers: each is the primitive of the row that names
    the operator's method (``dunder`` in the table); a binary row also gives the reflected one."""
    for rule in TABLE:
        for dunder in rule.dunders:
            fn = rule.op
            if rule.arity == 2:
                if rule.partial_texts:
                    reflected = _REFLECTED[rule.name]
                else:
                    reflected = (lambda f: lambda self, other: f(other, self))(rule.op)
                setattr(cls, "__r" + dunder[2:], reflected)
                if dunder == "__pow__":
                    fn = _power_operator(rule.op)
            setattr(cls, dunder, fn)
    cls.__pos__ = lambda self: self
    quotient, remainder = cls.__floordiv__, cls.__mod__
    cls.__divmod__ = lambda self, other: (quotient(self, other), remainder(self, other))
    cls.__rdivmod__ = lambda self, other: (quotient(other, self), remainder(other, self))


def _power_operator(power):
    def __pow__(x, y, modulo=None):
        if modulo is not None:
            raise TypeError("pow(x, y, modulo) is not differentiable; use (x ** y) % modulo")
        return power(x, y)
    return __pow__


# once, on the class every kind of AD number shares (dvlad.core.number)
_install_operators(ADNumber)
