"""Fast paths of the rows of the rule table in front of the one lift, for scalar AD numbers.

The generated primitives (:mod:`dvlad.numbers.primitives`) inline one live layer over float
primals; what they do not take comes here, and what this does not take goes on to the one lift
(:func:`dvlad.core.lift.lift`), which computes the same row the same way through the kinds'
interface.  This spares the common scalar cases the interface's calls (measured: 6 nested
derivatives of exp(sin x)·x ~940 µs through the lift, ~400 µs with :func:`fast1`; the
nested-optimization programs of BENCHMARKS.md (d) 20–40 % faster).  Handled here:

- nested forward mode over floats (derivatives of derivatives ...);
- bundles and tape cells over scalar primals of one family, one or two of them live, the other
  operand a float or int constant: the newest tag's kind, as the lift would choose;
- bundles over arrays (forward mode), without building the ElementwiseMaps.

Off on the reference path (:mod:`dvlad.core.switch`), where the primitives call the lift directly;
tests/test_reference.py compares the two.
"""
from numpy import float64, ndarray

from ..core.base import MPF
from ..core.lift import lift
from ..core.number import ARRAY_OPS, ADNumber
from ..core.tags import FORWARD, REVERSE, newer
from .bundle import Bundle, _scaled, make_bundle
from .partials import _PYTHON, _add, _shape, _sub, _times, numpy_constants, structural_zero
from .tape import TapeCell, make_cell


def fast1(rule, prim, x):
    """A unary row at a live bundle or tape cell over a float; else the lift."""
    tx = type(x)
    if tx is Bundle or tx is TapeCell:
        tag = x.tag
        if tag.live:
            p = x.primal
            b = p
            while isinstance(b, ADNumber):
                b = b.primal
            if type(b) is float or type(b) is int:
                r = rule.op(p)
                if tx is Bundle:
                    return make_bundle(tag, r, _scaled(rule.partials[0](p, r), x.tangent))
                return make_cell(tag, r, (x, rule.partials[0](p, r)))
            if tx is Bundle and type(b) is ndarray:       # forward at an array: no map
                r = rule.op(p)
                return make_bundle(tag, r, _times(rule.array_partials[0](p, r), x.tangent, (p, r)))
            return tag.kind.lift(prim, tag, (x,), (True,))
    return lift(prim, (x,))


def fast2(rule, prim, x, y):
    """A binary row at live bundles or tape cells over float scalars (their newest tag), or one of
    them and a float or int constant; else the lift."""
    tx, ty = type(x), type(y)
    if tx is Bundle or tx is TapeCell:
        gx = x.tag
        if not gx.live:
            return lift(prim, (x, y))
        if ty is Bundle or ty is TapeCell:
            gy = y.tag
            if not gy.live:
                return lift(prim, (x, y))
            tag = gx if gx is gy else newer(gx, gy)
        elif ty is float or ty is int:
            tag = gx
        else:
            return lift(prim, (x, y))
    elif (tx is float or tx is int) and (ty is Bundle or ty is TapeCell) and y.tag.live:
        tag = y.tag
    else:
        return lift(prim, (x, y))
    xin = (tx is Bundle or tx is TapeCell) and x.tag is tag
    yin = (ty is Bundle or ty is TapeCell) and y.tag is tag
    px = x.primal if xin else x
    py = y.primal if yin else y
    if xin != yin and rule.linear[not xin]:     # a constant 0 or ∞ may make it one (0·x:
        c = py if xin else px                   # structural_zero, in partials.py)
        tc = type(c)
        if (c == 0 or c - c != 0 if tc is float or tc is int or tc is float64 else
                tc is not Bundle and tc is not TapeCell and tc is not ndarray
                and not isinstance(c, ADNumber)) and structural_zero(rule, xin, px, py):
            return rule.op(px, py)
    bx, by = px, py
    while isinstance(bx, ADNumber):
        bx = bx.primal
    while isinstance(by, ADNumber):
        by = by.primal
    tbx, tby = type(bx), type(by)
    if not (tbx is float or tbx is int) or not (tby is float or tby is int):
        if (tbx is ndarray or tby is ndarray) and not (tbx is MPF or tby is MPF):
            if tag.kind is FORWARD:
                return _forward_arrays(rule, tag, x, y, xin, yin, px, py)
            assert tag.kind is REVERSE              # (a bundle's or a tape cell's tag)
            # reverse: what the tape's lift does with RowPrimitive.at's partials, without
            # finding the arrays again (a row is no user primitive: no closure check)
            r, (dx, dy) = prim._at_arrays(px, py, (xin, yin), REVERSE)
            if dx is None and dy is None:           # structurally constant (0·x)
                return r
            return make_cell(tag, r, ((x, dx, y, dy) if yin else (x, dx)) if xin else (y, dy))
        # reverse at arrays, mpf (promotion): the kind's lift, with the tag and ins found here
        return tag.kind.lift(prim, tag, (x, y), (xin, yin))
    r = rule.op(px, py)
    dfx, dfy = rule.partials
    if tag.kind is FORWARD:
        # a partial of ±1 (add, sub) passes the tangent on: multiplying a deep bundle by 1.0
        # would copy it (nested derivatives: 2ᵏ components at depth k)
        if xin:
            t = _scaled(dfx(px, py, r), x.tangent)
            if yin:
                d = dfy(px, py, r)
                t = t - y.tangent if type(d) is float and d == -1.0 else t + _scaled(d, y.tangent)
        else:
            t = _scaled(dfy(px, py, r), y.tangent)
        return make_bundle(tag, r, t)
    if xin:
        return make_cell(tag, r, (x, dfx(px, py, r), y, dfy(px, py, r)) if yin
                         else (x, dfx(px, py, r)))
    return make_cell(tag, r, (y, dfy(px, py, r)))


def _forward_arrays(rule, tag, x, y, xin, yin, px, py):
    """Forward mode at array primals, as RowPrimitive.at's ElementwiseMaps and the forward lift
    compute it, without the maps: each partial times its tangent (:func:`_times`), a partial of
    −1 a subtraction, the sum broadcast to the result's shape."""
    r = rule.op(px, py)
    if type(px) in _PYTHON and (px == 0 or px - px != 0) \
            or type(py) in _PYTHON and (py == 0 or py - py != 0):
        px, py = numpy_constants(px, py, r)
    dfx, dfy = rule.array_partials
    args = (px, py, r)
    if xin:
        t = _times(dfx(px, py, r), x.tangent, args)
        if yin:
            dy = dfy(px, py, r)
            t = (_sub(t, y.tangent) if type(dy) is float and dy == -1.0
                 else _add(t, _times(dy, y.tangent, args)))
    else:
        t = _times(dfy(px, py, r), y.tangent, args)
    rshape = r.shape if type(r) is ndarray else _shape(r)
    if _shape(t) != rshape:
        t = ARRAY_OPS["broadcast_to"](t, rshape)
    return make_bundle(tag, r, t)
