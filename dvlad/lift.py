"""The one dispatch point: each primitive lifts on the newest live tag among its arguments.

For a primitive f with partials ∂f/∂xᵢ (from :mod:`dvlad.rules`) and newest tag ε:
- arguments whose top layer is ε contribute their primal and their tangent (bundle) or their cell
  (tape); every other argument, including base numbers and values with older tags, is a constant
  at this level and costs nothing;
- the result's primal is f at the primals, computed by the same primitive one level down, so older
  perturbations flow through it; the partials are computed there too, with dvlad's operations;
- forward (bundle):  Bundle(ε, f(p), Σ ∂ᵢf(p)·tᵢ);  reverse (tape): TapeCell(ε, f(p), links).
A layer whose tag has died (its call returned) is stripped first: an escaped value is a constant.
"""
import builtins
import math
import types

from . import base
from .bundle import Bundle, make_bundle
from .number import strip
from .rules import TABLE
from .tags import FORWARD
from .tape import TapeCell, make_cell


def _lift1(rule, x):
    """The general unary lift: any primal, dead tags, every mode."""
    tag = x.tag
    if not tag.live:
        return rule.op(x.primal)
    p = x.primal
    r = rule.op(p)
    d = rule.partials[0](p, r)
    if type(x) is Bundle:
        return make_bundle(tag, r, d * x.tangent)
    return make_cell(tag, r, (x, d))


def _lift2(rule, x, y):
    """The general binary lift: picks the newest live tag of x and y."""
    tx, ty = type(x), type(y)
    gx = x.tag if (tx is Bundle or tx is TapeCell) else None
    gy = y.tag if (ty is Bundle or ty is TapeCell) else None
    if gx is not None and not gx.live:
        return rule.op(x.primal, y)
    if gy is not None and not gy.live:
        return rule.op(x, y.primal)
    tag = gx if (gy is None or (gx is not None and gx.n >= gy.n)) else gy
    xin, yin = gx is tag, gy is tag
    px = x.primal if xin else x
    py = y.primal if yin else y
    if type(px) is not type(py):
        px, py = base.promote(px, py, strip)
    r = rule.op(px, py)
    dfx, dfy = rule.partials
    if tag.kind is FORWARD:
        if xin:
            t = dfx(px, py, r) * x.tangent
            if yin:
                t = t + dfy(px, py, r) * y.tangent
        else:
            t = dfy(px, py, r) * y.tangent
        return make_bundle(tag, r, t)
    if xin:
        links = (x, dfx(px, py, r), y, dfy(px, py, r)) if yin else (x, dfx(px, py, r))
    else:
        links = (y, dfy(px, py, r))
    return make_cell(tag, r, links)


# Hot path.  Each primitive first tries the common case, written out in full: plain floats, or a
# live layer over float primals with the other operand a float/int constant or a layer of the
# same tag.  Objects are built as Bundle() plus slot stores (~56 ns against ~120 ns through an
# __init__, timeit on CPython 3.11) and the float partials are closure locals.  Everything else
# goes to the general _lift1/_lift2, which compute the same rule through dvlad's operations.

def _unary(rule):
    fbase, bbase = rule.float_base, rule.base
    fd, = rule.float_partials

    def op(x):
        t = type(x)
        if t is float:
            return fbase(x)
        if t is Bundle:
            tag, p = x.tag, x.primal
            if type(p) is float and tag.live:
                r = fbase(p)
                b = Bundle()
                b.tag, b.primal, b.tangent = tag, r, fd(p, r) * x.tangent
                return b
        elif t is TapeCell:
            tag, p = x.tag, x.primal
            if type(p) is float and tag.live:
                r = fbase(p)
                c = TapeCell()
                tape = tag.tape
                c.tag, c.primal, c.links, c.index = tag, r, (x, fd(p, r)), len(tape)
                tape.append(c)
                return c
        else:
            return bbase(x)
        return _lift1(rule, x)
    return op


def _binary(rule):
    fbase, bbase = rule.float_base, rule.base
    fdx, fdy = rule.float_partials

    def op(x, y):
        tx, ty = type(x), type(y)
        if tx is float and ty is float:
            return fbase(x, y)
        if tx is Bundle or tx is TapeCell:
            tag, px = x.tag, x.primal
            if type(px) is float and tag.live:
                if ty is float or ty is int:                       # y is a constant
                    r = fbase(px, y)
                    if tx is Bundle:
                        b = Bundle()
                        b.tag, b.primal, b.tangent = tag, r, fdx(px, y, r) * x.tangent
                        return b
                    c = TapeCell()
                    tape = tag.tape
                    c.tag, c.primal, c.links, c.index = tag, r, (x, fdx(px, y, r)), len(tape)
                    tape.append(c)
                    return c
                if ty is tx and y.tag is tag and type(y.primal) is float:
                    py = y.primal
                    r = fbase(px, py)
                    if tx is Bundle:
                        b = Bundle()
                        b.tag, b.primal = tag, r
                        b.tangent = fdx(px, py, r) * x.tangent + fdy(px, py, r) * y.tangent
                        return b
                    c = TapeCell()
                    tape = tag.tape
                    c.tag, c.primal, c.index = tag, r, len(tape)
                    c.links = (x, fdx(px, py, r), y, fdy(px, py, r))
                    tape.append(c)
                    return c
        elif ty is Bundle or ty is TapeCell:
            tag, py = y.tag, y.primal
            if (tx is float or tx is int) and type(py) is float and tag.live:   # x constant
                r = fbase(x, py)
                if ty is Bundle:
                    b = Bundle()
                    b.tag, b.primal, b.tangent = tag, r, fdy(x, py, r) * y.tangent
                    return b
                c = TapeCell()
                tape = tag.tape
                c.tag, c.primal, c.links, c.index = tag, r, (y, fdy(x, py, r)), len(tape)
                tape.append(c)
                return c
        else:
            return bbase(x, y)
        return _lift2(rule, x, y)
    return op


def _piecewise(rule):
    bbase = rule.base
    if rule.arity == 2:
        def op(x, y):
            return bbase(strip(x), strip(y))
    else:
        def op(x):
            return bbase(strip(x))
    return op


def _bind(fn, namespace):
    return types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def _make(rule):
    if not rule.partials:
        op = _piecewise(rule)
    else:
        op = _binary(rule) if rule.arity == 2 else _unary(rule)
    op.__name__ = op.__qualname__ = rule.name
    op.__doc__ = f"dvlad.{rule.name}: the {rule.name} primitive, differentiable in every mode."
    rule.op = op
    return op


# The partials' free names: dvlad's primitives (so partials nest), and plain math for floats.
# _AD_NAMES is filled with the primitives once they exist; the partials look names up at call time.
_AD_NAMES = dict(INF=math.inf, NAN=math.nan, __builtins__=builtins)
_FLOAT_NAMES = dict(base.FLOAT, INF=math.inf, NAN=math.nan, __builtins__=builtins)
for _rule in TABLE:
    _rule.float_partials = tuple(_bind(f, _FLOAT_NAMES) for f in _rule.partials)
    _rule.partials = tuple(_bind(f, _AD_NAMES) for f in _rule.partials)

OPS = {rule.name: _make(rule) for rule in TABLE}
_AD_NAMES.update(OPS)

(add, sub, mul, div, pow, mod, floordiv, atan2, hypot, neg, abs, sqrt, exp, expm1, log, log1p,
 sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, sign, floor, ceil, trunc, round, int) = (
    OPS[name] for name in (
        "add", "sub", "mul", "div", "pow", "mod", "floordiv", "atan2", "hypot", "neg", "abs",
        "sqrt", "exp", "expm1", "log", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "tanh", "sign", "floor", "ceil", "trunc", "round", "int"))


def _pow3(x, y, modulo=None):
    if modulo is not None:
        raise TypeError("pow(x, y, modulo) is not differentiable; use (x ** y) % modulo")
    return pow(x, y)


def _install_operators(cls):
    """Python's arithmetic operators on AD numbers: one-line delegations to the primitives."""
    cls.__add__ = cls.__radd__ = add
    cls.__mul__ = cls.__rmul__ = mul
    cls.__sub__ = sub
    cls.__rsub__ = lambda self, other: sub(other, self)
    cls.__truediv__ = div
    cls.__rtruediv__ = lambda self, other: div(other, self)
    cls.__floordiv__ = floordiv
    cls.__rfloordiv__ = lambda self, other: floordiv(other, self)
    cls.__mod__ = mod
    cls.__rmod__ = lambda self, other: mod(other, self)
    cls.__divmod__ = lambda self, other: (floordiv(self, other), mod(self, other))
    cls.__rdivmod__ = lambda self, other: (floordiv(other, self), mod(other, self))
    cls.__pow__ = _pow3
    cls.__rpow__ = lambda self, other: pow(other, self)
    cls.__neg__ = neg
    cls.__pos__ = lambda self: self
    cls.__abs__ = abs


for _cls in (Bundle, TapeCell):
    _install_operators(_cls)
