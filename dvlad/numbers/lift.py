"""The one dispatch point: each primitive lifts on the newest live tag among its arguments.

For a primitive f with partials ∂f/∂xᵢ (from :mod:`dvlad.rules`) and newest tag ε:
- arguments whose top layer is ε contribute their primal and their tangent (bundle) or their cell
  (tape); every other argument, including base numbers and values with older tags, is a constant
  at this level and costs nothing;
- the result's primal is f at the primals, computed by the same primitive one level down, so older
  perturbations flow through it; the partials are computed there too, with dvlad's operations;
- forward (bundle):  Bundle(ε, f(p), Σ ∂ᵢf(p)·tᵢ);  reverse (tape): TapeCell(ε, f(p), links).
A layer whose tag has died (its call returned) is stripped first: an escaped value is a constant.

This module is the general lift: :func:`_lift1`/:func:`_lift2` for rows of the rule table (their
array case in :func:`_lift2_array`, with :class:`LazyPartial`), and :func:`lift_n` for array and
user-defined primitives.  The primitives themselves (:mod:`dvlad.ops`) inline the common float
case and call in here for everything else.
"""

import builtins
import math

import numpy as np

from ..core import base
from ..core import pool
from .bundle import Bundle, make_bundle, plain_bundle
from ..core.number import ARRAY_OPS, ADNumber, strip, strip_dead
from ..core.structures import elementwise
from ..core.tags import FORWARD, TAYLOR, NotDifferentiableError, alive, newer
from .tape import LinearMap, Negated, TapeCell, make_cell
from .tower import Tower, tower1, tower2, tower_n


def _lift1(rule, x):
    """The general unary lift: any primal, dead tags, every mode."""
    tag = x.tag
    if not tag.live and not alive(tag):
        return rule.op(x.primal)
    if type(x) is Tower:
        return tower1(rule, x)
    p = x.primal
    if type(x) is Bundle and type(p) is Bundle:       # nested forward mode over floats
        b = p.primal
        while type(b) is Bundle:
            b = b.primal
        if type(b) is float:
            r = rule.op(p)
            return make_bundle(tag, r, _scaled(rule.partials[0](p, r), x.tangent))
    r = rule.op(p)
    if _is_array(p):
        if type(x) is Bundle:
            return make_bundle(tag, r, _times(rule.array_partials[0](p, r), x.tangent, (p, r)))
        ux, ur = rule.uses[0]
        return make_cell(tag, r, (x, LazyPartial(rule.array_partials[0], (p if ux else None,
                                                                          r if ur else None),
                                                  _shape(p), _shape(r))))
    d = rule.partials[0](p, r)
    if type(x) is Bundle:
        return make_bundle(tag, r, _scaled(d, x.tangent))
    return make_cell(tag, r, (x, d))


def _lift2(rule, x, y):
    """The general binary lift: picks the newest live tag of x and y."""
    tx, ty = type(x), type(y)
    if (tx is Bundle or tx is float) and (ty is Bundle or ty is float):
        # nested forward mode over floats (a derivative of a derivative ...): the common case,
        # with no dead tag, array, other family or other kind to look for
        tag = x.tag if tx is Bundle else y.tag
        if tag.live and (tx is float or ty is float or y.tag is tag):
            px = x.primal if tx is Bundle else x
            py = y.primal if ty is Bundle else y
            bx, by = px, py
            while type(bx) is Bundle:
                bx = bx.primal
            while type(by) is Bundle:
                by = by.primal
            if type(bx) is float and type(by) is float:
                r = rule.op(px, py)
                dfx, dfy = rule.partials
                if tx is Bundle:
                    t = _scaled(dfx(px, py, r), x.tangent)
                    if ty is Bundle:
                        d = dfy(px, py, r)
                        t = (t - y.tangent if type(d) is float and d == -1.0
                             else t + _scaled(d, y.tangent))
                else:
                    t = _scaled(dfy(px, py, r), y.tangent)
                return make_bundle(tag, r, t)
    gx = x.tag if (tx is Bundle or tx is TapeCell or tx is Tower) else None
    gy = y.tag if (ty is Bundle or ty is TapeCell or ty is Tower) else None
    if gx is not None and not gx.live and not alive(gx):
        return rule.op(x.primal, y)
    if gy is not None and not gy.live and not alive(gy):
        return rule.op(x, y.primal)
    if gx is None and tx is not float and base.family(x) is None \
            or gy is None and ty is not float and base.family(y) is None:
        bad = y if gx is not None else x
        if type(bad) is np.ndarray and bad.dtype == object:     # an object array of numbers
            return elementwise(rule.op, x, y)
        raise NotDifferentiableError(f"dvlad.{rule.name} differentiates real numbers; got "
                                     f"{type(bad).__name__} {bad!r}")
    tag = newer(gx, gy)
    xin, yin = gx is tag, gy is tag
    if tag.kind is TAYLOR:
        return tower2(rule, tag, x, y, xin, yin)
    px = x.primal if xin else x
    py = y.primal if yin else y
    bx, by = px, py                       # the base numbers under px and py
    while type(bx) is Bundle or type(bx) is TapeCell or type(bx) is Tower:
        bx = bx.primal
    while type(by) is Bundle or type(by) is TapeCell or type(by) is Tower:
        by = by.primal
    if type(bx) is np.ndarray or type(by) is np.ndarray:
        return _lift2_array(rule, tag, x, y, xin, yin, px, py, rule.op(px, py))
    if type(bx) is not type(by):
        px, py = base.promote(px, py, strip)
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
        links = (x, dfx(px, py, r), y, dfy(px, py, r)) if yin else (x, dfx(px, py, r))
    else:
        links = (y, dfy(px, py, r))
    return make_cell(tag, r, links)


def _scaled(d, t):
    """d·t for a scalar partial d and tangent t: no multiplication when either is ±1 (the seed
    of a derivative is 1.0; add and sub have partials ±1)."""
    if type(d) is float and type(t) is not int:         # 1.0·int would be a float
        if d == 1.0:
            return t
        if d == -1.0:
            return -t
    if type(t) is float and t == 1.0 and type(d) is not int:
        return d
    return d * t


def _times(d, t, args=None):
    """d·t, the partial times a tangent (or sensitivity), with as few numpy passes as it can.

    - A partial of ±1 (add, sub, neg) costs no pass (or a negation).
    - A t that is one number broadcast (the transpose of a sum: every element's sensitivity is
      the same) is multiplied as that number; its shape is restored by a broadcast view.
    - ``args``: d was just computed from these by a rule's partial.  If its arrays are new (see
      :func:`_fresh`), nothing else holds them, so the product is written into them.
    - A partial built from Python constants (np.where(c, 1.0, 0.5)) is float64; it must not
      widen a float32 tangent or sensitivity, so it takes their type.
    - An element whose tangent (or sensitivity) is exactly 0 contributes 0 even where the partial
      is infinite (sqrt′(0)): as for a scalar, which would not be perturbed (or reached) at all.
    """
    if type(d) is float:
        if d == 1.0:
            return t
        if d == -1.0:
            return _neg(t)
        if type(t) is np.ndarray and t.ndim and not any(t.strides):   # one number, broadcast
            t0 = t.reshape(-1)[0]
            return t if t0 == 0 else np.broadcast_to(d * t0, t.shape)
        return _mul(d, t)
    base_d = d
    while type(base_d) is Bundle or type(base_d) is TapeCell or type(base_d) is Tower:
        base_d = base_d.primal
    if type(base_d) is not np.ndarray or base_d.dtype.kind != "f":
        return _mul(d, t)
    tt = type(t)
    if type(d) is np.ndarray and tt is np.ndarray and d.dtype != t.dtype \
            and t.dtype.kind == "f" and d.dtype.itemsize > t.dtype.itemsize:
        d = d.astype(t.dtype)
    fresh = args is not None and _fresh(d, args)
    if tt is np.ndarray and t.ndim and not any(t.strides):    # t is one number, broadcast
        t0 = t.reshape(-1)[0]
        if t0 == 0:                       # no element reached: 0, whatever the partial
            return np.zeros(np.broadcast_shapes(_shape(d), t.shape), np.result_type(base_d, t))
        if t0 == 1 and fresh:
            c = d
        elif fresh and type(d) is np.ndarray:
            c = np.multiply(d, t0, out=d)
        elif fresh:
            np.multiply(d.primal, t0, out=d.primal)
            np.multiply(d.tangent, t0, out=d.tangent)
            c = d
        else:
            c = _mul(d, t0)
        shp = _shape(c)
        return c if shp == t.shape else ARRAY_OPS["broadcast_to"](c, np.broadcast_shapes(shp, t.shape))
    # one reduction, no temporary: non-finite iff some element is (or the sum overflows,
    # which only costs the slower, still right, path below)
    if not math.isfinite(np.add.reduce(base_d, axis=None)):
        with np.errstate(invalid="ignore"):
            c = d * t
        return ARRAY_OPS["where"](_base_of(t) == 0, 0.0, c)
    if fresh:
        if type(d) is np.ndarray:
            if tt is np.ndarray and d.shape == t.shape and d.dtype == t.dtype:
                return np.multiply(d, t, out=d)
        elif _same_layout(d, t):
            # (p, ṗ)·(q, q̇) = (p·q, ṗ·q + p·q̇), as the forward lift of mul computes it, with the
            # same check on each partial (q for ṗ, p for q̇), written into d's new arrays
            if tt is np.ndarray:
                if math.isfinite(np.add.reduce(t, axis=None)):
                    np.multiply(d.primal, t, out=d.primal)
                    np.multiply(d.tangent, t, out=d.tangent)
                    return d
            elif type(t) is Bundle and t.tag is d.tag \
                    and math.isfinite(np.add.reduce(t.primal, axis=None)):
                np.multiply(d.tangent, t.primal, out=d.tangent)
                np.add(d.tangent, _mul(d.primal, t.tangent), out=d.tangent)
                np.multiply(d.primal, t.primal, out=d.primal)
                return d
    return _mul(d, t)


_mul, _neg, _add, _sub = pool.times, pool.negative, pool.plus, pool.minus


def _fresh(d, args):
    """Whether d, just computed by a partial from ``args``, owns its arrays: an array or a bundle
    one layer over arrays, none of them a view or an array of an argument.  (A partial's text
    makes new arrays by numpy operations or passes an argument's own through: ``y``, or the
    tangent of ``r + 1.0``.)"""
    if type(d) is np.ndarray:
        return d.base is None and not builtins.any(d is a for a in args)
    if type(d) is not Bundle:
        return False
    p, t = d.primal, d.tangent
    if type(p) is not np.ndarray or type(t) is not np.ndarray or p.base is not None \
            or t.base is not None or p is t or not d.tag.live:
        return False
    for a in args:
        if a is d or a is p or a is t or (type(a) is Bundle and (a.primal is p or a.primal is t
                                                                 or a.tangent is p
                                                                 or a.tangent is t)):
            return False
    return True


def _same_layout(d, t):
    """t's arrays (t a plain array or a bundle over plain arrays) have d's shape and dtype."""
    q = t.primal if type(t) is Bundle else t
    if type(q) is not np.ndarray or (type(t) is Bundle and type(t.tangent) is not np.ndarray):
        return False
    p = d.primal
    if type(t) is Bundle and (t.tangent.shape != p.shape or t.tangent.dtype != p.dtype):
        return False
    return q.shape == p.shape and q.dtype == p.dtype and d.tangent.dtype == p.dtype \
        and d.tangent.shape == p.shape


def _base_of(v):
    while type(v) is Bundle or type(v) is TapeCell or type(v) is Tower:
        v = v.primal
    return v


def _is_array(v):
    while type(v) is Bundle or type(v) is TapeCell or type(v) is Tower:
        v = v.primal
    return type(v) is np.ndarray


def _shape(v):
    """The shape of v's primal (() for scalars), without numpy's slower np.shape."""
    while type(v) is Bundle or type(v) is TapeCell or type(v) is Tower:
        v = v.primal
    return v.shape if type(v) is np.ndarray else np.shape(v)


def _lift2_array(rule, tag, x, y, xin, yin, px, py, r):
    """The binary lift when a primal is an array: broadcasting in both directions.

    Forward: a tangent that broadcasting made smaller than the result is broadcast up to it.
    Reverse: each partial is a LazyPartial, whose transpose also sums the sensitivity back down
    to the shape of an argument that was broadcast.
    """
    dfx, dfy = rule.array_partials
    rshape = _shape(r)
    if tag.kind is FORWARD:
        if xin:
            t = _times(dfx(px, py, r), x.tangent, (px, py, r))
            if yin:
                dy = dfy(px, py, r)
                t = (_sub(t, y.tangent) if type(dy) is float and dy == -1.0
                     else _add(t, _times(dy, y.tangent, (px, py, r))))
        else:
            t = _times(dfy(px, py, r), y.tangent, (px, py, r))
        if _shape(t) != rshape:
            t = ARRAY_OPS["broadcast_to"](t, rshape)
        return make_bundle(tag, r, t)
    # The partials run at sweep time: a plain array constant (a work buffer the caller may
    # overwrite before then) is copied now, so that the sweep sees the value that was used.
    # Only what a partial reads is kept (mul's partials need no r; add's need nothing).
    links = ()
    for arg, inside, p, df, (ux, uy, ur) in ((x, xin, px, dfx, rule.uses[0]),
                                             (y, yin, py, dfy, rule.uses[1])):
        if inside:
            args = (None if not ux else px if xin else _snapshot(px),
                    None if not uy else py if yin else _snapshot(py), r if ur else None)
            links += (arg, LazyPartial(df, args, _shape(p), rshape))
    return make_cell(tag, r, links)


def _snapshot(v):
    """A copy of a plain array constant (reverse mode reads it later); anything else as is."""
    return v.copy() if type(v) is np.ndarray else v


class LazyPartial(LinearMap):
    """An array partial kept as its rule and arguments, evaluated when the sweep needs it.

    The arguments are cell primals the tape holds anyway, so a lazy partial costs no array
    memory between the passes; evaluated in the sweep, its temporary is freed and reused at
    once.  (At n = 10⁶ holding every partial made fresh pages, which the kernel must zero, the
    dominant cost of the Rosenbrock gradient.)  The transpose also sums a broadcast argument
    back to its shape.
    """

    __slots__ = ("df", "args", "shape", "out_shape")

    def __init__(self, df, args, in_shape, out_shape):
        self.df, self.args, self.shape, self.out_shape = df, args, in_shape, out_shape

    def forward(self, t):
        t = _times(self.df(*self.args), t, self.args)
        return t if _shape(t) == self.out_shape else ARRAY_OPS["broadcast_to"](t, self.out_shape)

    def backward(self, s):
        d = self.df(*self.args)
        if type(d) is float and d == -1.0 and _shape(s) == self.shape and (
                type(s) is np.ndarray or plain_bundle(s)):
            return Negated(s)                                   # for the sweep: see Negated
        c = _times(d, s, self.args)
        return c if _shape(c) == self.shape else ARRAY_OPS["sum_to"](c, self.shape)




def lift_n(op, partials, args, with_result=False):
    """The general n-ary lift, for array and user-defined primitives.

    ``op(*primals)`` recomputes the value one level down; ``partials(*primals)`` gives every
    partial at once (``partials(*primals, r=value)`` with ``with_result``, for partials that
    reuse the value, as solve's does).  Returns None when no argument carries a live
    perturbation.
    """
    args = list(args)
    tag = None
    for k, a in enumerate(args):
        if isinstance(a, ADNumber):
            if not a.tag.live:
                args[k] = a = strip_dead(a)
                if not isinstance(a, ADNumber):
                    continue
            tag = newer(tag, a.tag)
        elif type(a) is complex or (isinstance(a, (np.ndarray, np.generic))
                                    and a.dtype.kind == "c"):
            raise NotDifferentiableError(f"{op.__name__}: dvlad differentiates real numbers; got "
                                         f"a complex {type(a).__name__}")
    if tag is None:
        return None
    ins = [isinstance(a, ADNumber) and a.tag is tag for a in args]
    if tag.kind is TAYLOR:
        return tower_n(op, partials, args, ins, tag, with_result)
    if tag.kind is FORWARD:
        primals = [a.primal if i else a for a, i in zip(args, ins)]
    else:                             # the maps run at sweep time: see _lift2_array
        primals = [a.primal if i else _snapshot(a) for a, i in zip(args, ins)]
    r = op(*primals)
    ds = partials(*primals, r=r) if with_result else partials(*primals)
    if len(ds) != len(args):
        raise ValueError(f"{op.__name__}: partials returned {len(ds)} values for {len(args)} "
                         f"arguments")
    if tag.kind is FORWARD:
        t = None
        for a, i, d in zip(args, ins, ds):
            if i:
                t = d * a.tangent if t is None else t + d * a.tangent
        return make_bundle(tag, r, t)
    links = []
    for a, i, d in zip(args, ins, ds):
        if i:
            links += (a, d)
    return make_cell(tag, r, tuple(links))
