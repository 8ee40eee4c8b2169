"""How a primitive offers itself to the lift (:mod:`dvlad.core.lift`): its value and partials at
the primals, for rows of the rule table (scalar partials, or an :class:`ElementwiseMap` at array
primals) and for primitives whose partials are given as a function (array and user primitives).

The array helpers below multiply a partial by a tangent or a sensitivity with as few numpy passes
as they can (:func:`_times`); the forward lift, the elementwise maps and the sweep share them.
"""
import builtins
import math

import numpy as np

from ..core import base, pool
from ..core.number import ARRAY_OPS, ADNumber, strip
from ..core.switch import REFERENCE
from ..core.tags import FORWARD
from .bundle import Bundle, plain_bundle
from .tape import LinearMap, Negated, TapeCell
from .tower import Tower


def _times(d, t, args=None, seed=True):
    """d·t, the partial times a tangent (or sensitivity), with as few numpy passes as it can.

    - A partial of ±1 (add, sub, neg) costs no pass (or a negation).
    - A t that is one number broadcast (the transpose of a sum: every element's sensitivity is
      the same) is multiplied as that number; its shape is restored by a broadcast view.
    - ``args``: d was just computed from these by a rule's partial.  If its arrays are new (see
      :func:`_fresh`), nothing else holds them, so the product is written into them.
    - A partial built from Python constants (np.where(c, 1.0, 0.5)) is float64; it must not
      widen a float32 tangent or sensitivity, so it takes their type.
    - 0·∞ is nan, as IEEE has it: a zero tangent or sensitivity may be computed (-sin(√x) at
      x = 0), and then the product's limit is not 0.  Structural zeros are kept out before this
      (:func:`structural_zero`, where's branches, zero cotangents): notes/conventions.md.
    """
    if SEEDS and seed and isinstance(t, np.ndarray) and id(t) in SEEDS:
        b = _base_of(d)
        if type(b) is float and b - b == 0 or isinstance(b, np.ndarray) and base.all_finite(b):
            return _times(d, t, args, False)        # a finite d: no 0·∞ in any lane
        with np.errstate(invalid="ignore"):
            return _from_seed(_times(d, t, args, False), t)
    if type(d) is float:
        if d == 1.0:
            return t
        if d == -1.0:
            return _neg(t)
        if type(t) is np.ndarray and t.ndim and t.size and not any(t.strides):   # one number
            t0 = t.reshape(-1)[0]                                               # broadcast
            return np.broadcast_to(d * t0, t.shape)
        return _mul(d, t)
    base_d = d
    while type(base_d) is Bundle or type(base_d) is TapeCell or type(base_d) is Tower:
        base_d = base_d.primal
    if type(base_d) is not np.ndarray or base_d.dtype.kind != "f":
        return _mul(d, t)
    tt = type(t)
    if type(d) is np.ndarray and tt is np.ndarray and d.dtype != t.dtype \
            and t.dtype.kind == "f" and d.dtype.itemsize > t.dtype.itemsize \
            and (args is None or _widest(args) <= t.dtype.itemsize):
        d = d.astype(t.dtype)       # (with an argument as wide as d, d is genuinely so: kept)
    fresh = args is not None and _fresh(d, args)
    if tt is np.ndarray and t.ndim and t.size and not any(t.strides):    # t is one number, broadcast
        t0 = t.reshape(-1)[0]
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


def _widest(args):
    """The widest float itemsize among the numpy arguments a partial was computed from."""
    size = 0
    for a in args:
        b = _base_of(a)
        if isinstance(b, (np.ndarray, np.generic)) and b.dtype.kind == "f":
            size = max(size, b.dtype.itemsize)
    return size

# The ids of the array directions a forward operator is seeding with right now (modes/api.py):
# their zero lanes are structural (an input the direction leaves alone), so a partial's ∞ there
# gives 0, not 0·∞ = nan.  Once multiplied, a zero lane may be computed, and gets no such pass.
SEEDS = set()


def _from_seed(c, t):
    """c = d·t for a seed t, with the lanes where t is 0 made 0 whatever d is there (SEEDS)."""
    b = _base_of(c)
    if not isinstance(b, np.ndarray) or base.all_finite(b):
        return c
    return ARRAY_OPS["where"](t == 0, 0.0, c)


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


if REFERENCE:                     # the reference path never writes into a partial's arrays
    def _fresh(d, args):  # noqa: F811
        return False


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
    return isinstance(v, np.ndarray)


def _shape(v):
    """The shape of v's primal (() for scalars), without numpy's slower np.shape."""
    while type(v) is Bundle or type(v) is TapeCell or type(v) is Tower:
        v = v.primal
    return v.shape if isinstance(v, np.ndarray) else np.shape(v)


def _snapshot(v):
    """A copy of a plain array constant (reverse mode reads it later); anything else as is."""
    return pool.private_copy(v) if isinstance(v, np.ndarray) else v


class ElementwiseMap(LinearMap):
    """The partial of an elementwise row at array primals: J = diag(df(args)), broadcast.

    Reverse mode keeps it as its rule and arguments and evaluates it when the sweep needs it.

    The arguments are cell primals the tape holds anyway, so a lazy partial costs no array
    memory between the passes; evaluated in the sweep, its temporary is freed and reused at
    once.  (At n = 10⁶ holding every partial made fresh pages, which the kernel must zero, the
    dominant cost of the Rosenbrock gradient.)  The transpose also sums a broadcast argument
    back to its shape.
    """

    __slots__ = ("df", "args", "shape", "out_shape")

    def __init__(self, df, args, in_shape, out_shape):
        self.df, self.args, self.shape, self.out_shape = df, args, in_shape, out_shape

    def term(self, t):
        """J·t for the forward lift: a partial of exactly −1 gives Negated(t) (the lift
        subtracts it, one pass fewer)."""
        d = self.df(*self.args)
        if type(d) is float and d == -1.0:
            return Negated(t if _shape(t) == self.out_shape
                           else ARRAY_OPS["broadcast_to"](t, self.out_shape))
        t = _times(d, t, self.args)
        shp = t.shape if type(t) is np.ndarray else _shape(t)
        return t if shp == self.out_shape else ARRAY_OPS["broadcast_to"](t, self.out_shape)

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


_PYTHON = {float, int}


def numpy_constants(px, py, r):
    """The operands as an array row's partials see them: a Python float or int constant becomes
    a numpy scalar of the result's float type, so the partials follow numpy's IEEE arithmetic as
    the value did (x / 0.0 at an array is inf, and so is its partial 1 / 0.0; in Python floats
    that partial would raise ZeroDivisionError)."""
    tx, ty = type(px), type(py)
    # (only a 0 or ∞ constant can raise in Python arithmetic where numpy would not; others keep
    # their Python type, which the pooled paths and the ±1 shortcuts test for)
    if (tx is float or tx is int) and not (px - px == 0 and px != 0) \
            or (ty is float or ty is int) and not (py - py == 0 and py != 0):
        b = r
        while isinstance(b, ADNumber):
            b = b.primal
        kind = b.dtype.type if isinstance(b, (np.ndarray, np.generic)) \
            and b.dtype.kind == "f" else np.float64
        if (tx is float or tx is int) and not (px - px == 0 and px != 0):
            px = kind(px)
        if (ty is float or ty is int) and not (py - py == 0 and py != 0):
            py = kind(py)
    return px, py


def _finite_nonzero(c):
    """A constant that cannot make a linear row's partial 0 (structural_zero's quick answer)."""
    tc = type(c)
    return (tc is float or tc is int or tc is np.float64) and c - c == 0 and c != 0


def structural_zero(rule, xin, px, py):
    """Whether a binary row, with only x in (``xin``; else only y), does not depend on it at all:
    the row is linear in that argument (``rule.linear``: mul, div's numerator) and the constant
    other operand makes its partial exactly 0 (0·x, x/inf), for every value of the argument.
    The result is then a constant for the tag: a zero that is *structural*, not computed, so
    that 0·√x at x = 0 has derivative 0 where IEEE arithmetic would give 0·∞ = nan.  (A zero
    computed at the point, -sin(√t) at t = 0, is not structural: its 0·∞ is a limit, left nan;
    notes/conventions.md.)

    The partial of a row linear in an argument is a function of the other operand c alone; for
    the rows of the table (mul: c, div: 1/c) it vanishes only where c is 0 or infinite
    (tests/test_edges.py checks this of every linear row), so a finite nonzero scalar c, the
    common case, costs two comparisons.  An array c is not scanned (an all-zero constant array
    is rare): its lanes meet 0·∞ as nan."""
    i = 0 if xin else 1
    if not rule.linear[i]:
        return False
    v = _base_of(px if xin else py)
    if not isinstance(v, np.ndarray) and v - v != 0:    # 0·∞: nan, whose tangent is nan too
        return False
    c = py if xin else px
    tc = type(c)
    if tc is float or tc is int:
        if c - c == 0 and c != 0:
            return False
        c = np.float64(c)              # numpy's 1 / 0.0 = inf, not ZeroDivisionError
    elif isinstance(c, np.ndarray):
        return False
    elif tc is np.float64 or tc is np.float32:
        if c - c == 0 and c != 0:
            return False
    with np.errstate(divide="ignore", invalid="ignore"):
        d = rule.partials[i](None, c, None) if xin else rule.partials[i](c, None, None)
    if isinstance(d, ADNumber):            # an older tag's perturbation: not a constant
        return False
    return type(d) is not np.ndarray and d == 0


class RowPrimitive:
    """A row of the rule table, as the lift sees it (the primitive interface of
    :mod:`dvlad.core.lift`)."""

    __slots__ = ("rule", "name")
    closure_check = False

    def __init__(self, rule):
        self.rule, self.name = rule, rule.name

    def value(self, *primals):
        return self.rule.op(*primals)

    def at(self, primals, ins, kind):
        """(r, partials): the row's value at the primals, and each in-argument's partial — a
        number at scalars (computed with dvlad's operations, so it nests), an ElementwiseMap at
        arrays (lazy in reverse mode, keeping only what the partial reads)."""
        rule = self.rule
        if rule.arity == 1:
            p = primals[0]
            r = rule.op(p)
            if not _is_array(p):
                return r, (rule.partials[0](p, r),)
            if kind is FORWARD:
                return r, (ElementwiseMap(rule.array_partials[0], (p, r), None, _shape(r)),)
            ux, ur = rule.uses[0]
            return r, (ElementwiseMap(rule.array_partials[0], (p if ux else None, r if ur else None),
                                      _shape(p), _shape(r)),)
        px, py = primals
        bx, by = px, py                       # the base numbers under px and py
        while isinstance(bx, ADNumber):
            bx = bx.primal
        while isinstance(by, ADNumber):
            by = by.primal
        if isinstance(bx, np.ndarray) or isinstance(by, np.ndarray):
            return self._at_arrays(px, py, ins, kind)
        if type(bx) is not type(by):
            px, py = base.promote(px, py, strip)
        r = rule.op(px, py)
        dfx, dfy = rule.partials
        if ins[0] != ins[1] and rule.linear[not ins[0]] and \
                not _finite_nonzero(py if ins[0] else px) and structural_zero(rule, ins[0], px, py):
            return r, (None, None)                  # a constant: see structural_zero
        return r, (dfx(px, py, r) if ins[0] else None, dfy(px, py, r) if ins[1] else None)

    def _at_arrays(self, px, py, ins, kind):
        """Broadcasting in both directions: each partial is an ElementwiseMap, which broadcasts
        a tangent up to the result's shape and sums a sensitivity back down to its argument's.
        Reverse: the partials run at sweep time, so a plain array constant (a work buffer the
        caller may overwrite before then) is copied now, and only what a partial reads is kept
        (mul's partials need no r; add's need nothing)."""
        rule = self.rule
        r = rule.op(px, py)
        tx, ty = type(px), type(py)
        if (tx is float or tx is int) and (px == 0 or px - px != 0) \
                or (ty is float or ty is int) and (py == 0 or py - py != 0):
            px, py = numpy_constants(px, py, r)
        rshape = r.shape if type(r) is np.ndarray else _shape(r)
        dfx, dfy = rule.array_partials
        xin, yin = ins
        if xin != yin and rule.linear[not xin] and not _finite_nonzero(py if xin else px) \
                and structural_zero(rule, xin, px, py):
            return r, (None, None)                  # a constant: see structural_zero
        if kind is FORWARD:               # (forward maps never need the arguments' shapes)
            args = (px, py, r)
            return r, (ElementwiseMap(dfx, args, None, rshape) if xin else None,
                       ElementwiseMap(dfy, args, None, rshape) if yin else None)
        out = []
        for inside, p, df, (ux, uy, ur) in ((xin, px, dfx, rule.uses[0]),
                                            (yin, py, dfy, rule.uses[1])):
            if not inside:
                out.append(None)
                continue
            args = (None if not ux else px if xin else _snapshot(px),
                    None if not uy else py if yin else _snapshot(py), r if ur else None)
            out.append(ElementwiseMap(df, args, _shape(p), rshape))
        return r, tuple(out)


class GivenPrimitive:
    """An array or user-defined primitive: ``op(*primals)`` recomputes the value one level down;
    ``partials(*primals)`` gives every partial at once (a number or a LinearMap per argument;
    ``partials(*primals, r=value)`` with ``with_result``, for partials that reuse the value, as
    solve's do).  (The primitive interface of :mod:`dvlad.core.lift`.)"""

    __slots__ = ("op", "partials", "with_result", "name", "closure_check")
    rule = None

    def __init__(self, op, partials, with_result=False, closure_check=False):
        self.op, self.partials, self.with_result = op, partials, with_result
        self.name = op.__name__
        self.closure_check = closure_check      # a user's primitive: see core.lift.one_level_down

    def value(self, *primals):
        return self.op(*primals)

    def at(self, primals, ins, kind):
        if kind is not FORWARD:           # the maps run at sweep time: see RowPrimitive
            primals = [p if i else _snapshot(p) for p, i in zip(primals, ins)]
        r = self.op(*primals)
        ds = self.partials(*primals, r=r) if self.with_result else self.partials(*primals)
        if len(ds) != len(primals):
            raise ValueError(f"{self.name}: partials returned {len(ds)} values for "
                             f"{len(primals)} arguments")
        return r, ds
