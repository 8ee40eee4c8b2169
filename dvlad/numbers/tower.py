"""Taylor towers: the third kind of AD number, for derivatives of every order at once.

A tower for tag τ is the truncated series c₀ + c₁τ + c₂τ² + … + cₙτⁿ with τⁿ⁺¹ = 0: c₀ is the
primal and cₖ = x⁽ᵏ⁾/k! are Taylor coefficients (not derivatives: the recurrences are simpler).
Like a bundle's primal and tangent, the coefficients carry only tags older than τ, so towers nest
with bundles, tape cells and each other under the one rule "newest tag outermost", and dispatch
through the same primitives (the generated ones send a lone tower here, :mod:`dvlad.core.lift`
does for mixed arguments).

Each primitive of the rule table has a recurrence that gives all n coefficients in O(n²)
operations (:mod:`dvlad.series`; the hot ones also as generated float code, :mod:`dvlad.kernels`):
products by convolution, quotients and square roots by solving a convolution for its last term,
and exp, log, sin/cos, tan, atan... through the ODE each satisfies (exp: z′ = z·x′).  These
recurrences are a speed table only: the rule table stays the one statement of each primitive.
Every primitive without a recurrence (user primitives, array primitives other than products,
linear maps, solve, inv and det), and every recurrence at a point where it would divide by zero
(sqrt at 0, log at 0, x**c at x = 0...) or meet an infinite coefficient, uses the derivation from
the rule's own partials, :func:`_from_partials`:

    z = f(x(t)),  z′ = Σᵢ ∂ᵢf(x(t))·xᵢ′(t),  so  zₘ = (Σᵢ ∂ᵢf(x(t))·xᵢ′(t))ₘ₋₁ / m,

with the partials evaluated, by dvlad's own operations, on the towers truncated to order n−1.
That is the definition the recurrences must agree with (tests/test_taylor.py checks each one
against it), and it follows the rule table's conventions at kinks exactly, as nested
``derivative`` does.

A coefficient that is :data:`~dvlad.series.ZERO` is a *structural zero*, "no term of this order" (the seed
x₀ + 1·τ has them from order 2, a constant from order 1): terms with it are skipped, which makes
the seed cheap and, as for a direction of exactly 0 in forward mode (or a constant, which nested
forward mode does not perturb), keeps an infinite partial from turning 0·inf into nan.  A
*computed* zero (a float 0.0 some arithmetic produced) is a number like any other: 0·inf is nan,
as it is in every other mode and for every base type.
"""
import numpy as np

from ..core.base import MPF, concrete, promote
from ..core.number import ARRAY_OPS, ADNumber, strip, strip_dead
from ..core.series import (
    ZERO,
    _degree,
    _derivative,
    _is_array,
    _keep_degree,
    _zero,
)
from ..core.recurrences import zero_product
from ..core.switch import REFERENCE
from ..core.tags import TAYLOR, alive


class Tower(ADNumber):
    """c₀ + c₁τ + … + cₙτⁿ for the Taylor perturbation ``tag``; ``primal`` is c₀."""

    __slots__ = ("tag", "primal", "coeffs")

    def __repr__(self):
        return f"Tower({self.tag!r}, {self.coeffs!r})"

    @property
    def order(self):
        """n: the highest power of τ kept."""
        return len(self.coeffs) - 1


def make_tower(tag, coeffs):
    """Tower(tag, [c₀, …, cₙ])."""
    t = Tower()
    t.tag, t.primal, t.coeffs = tag, coeffs[0], coeffs
    return t


# ---- the lifts ---------------------------------------------------------------------------------

def _finite(cs, tower=True):
    """A constant, or a tower whose coefficients of order ≥ 1 have finite base values.  Where
    one is not, each recurrence's arithmetic (1 + a², b·a′ − a·b′ ...) would place its infs and
    nans its own way: the derivation from the rule's partials, which defines the result,
    computes it instead."""
    if not tower:
        return True
    acc = 0.0
    for c in cs[1:]:
        if c is not ZERO:
            while isinstance(c, ADNumber):
                c = c.primal
            acc = acc + c
    d = acc - acc
    return bool((d == 0).all()) if type(d) is np.ndarray else d == 0


def _coeffs(v, tag, n):
    """v's coefficients 0..n at tag: a tower's own, or a constant's [v, ZERO, ...]."""
    if type(v) is Tower and v.tag is tag:
        c = v.coeffs
        if len(c) == n + 1:
            return c
        return c[:n + 1] if len(c) > n else c + [ZERO] * (n + 1 - len(c))
    return [v] + [ZERO] * n


def tower1(rule, x):
    """A unary primitive of the rule table at a tower."""
    tag = x.tag
    a = x.coeffs
    n = len(a) - 1
    if tag.live and type(a[0]) is float:
        s = sum(a)
        if type(s) is float and s - s == 0.0:
            kernel = rule.kernel(n) if rule.kernel is not None and not REFERENCE else None
            if kernel is not None:
                z = kernel(a)
                s = sum(z)
                if s - s == 0.0:           # else an overflow: the loops (structural zeros
                    if a[1] is ZERO and not _degree(a):        # skipped) say what it is
                        z = _keep_degree(z, 0)                 # a constant in, a constant out
                    t = Tower()
                    t.tag, t.primal, t.coeffs = tag, z[0], z
                    return t
    if not tag.live and not alive(tag):
        return rule.op(x.primal)
    z0 = rule.op(x.primal)
    if not n:
        return make_tower(tag, [z0])
    rec = rule.taylor
    z = rec(a, n, z0) if rec is not None and (not rule.divides or _finite(a)) else None
    if z is None:
        z = _from_partials(rule, tag, (x,), (True,), n, z0)
    return make_tower(tag, z)


def tower2(rule, tag, x, y, xin, yin):
    """A binary primitive of the rule table whose newest live tag, ``tag``, is a tower's."""
    if xin and yin:
        a, b = x.coeffs, y.coeffs
        if len(a) == len(b) and type(a[0]) is float and type(b[0]) is float:
            s = sum(a) + sum(b)
            if type(s) is float and s - s == 0.0:
                kernel = (rule.kernel(len(a) - 1) if rule.kernel is not None and not REFERENCE
                          else None)
                if kernel is not None:
                    z = kernel(a, b)
                    s = sum(z)
                    if s - s == 0.0:
                        if b[-1] is ZERO and (a[-1] is ZERO or b[1] is ZERO):
                            # polynomials (mul), or a quotient by a constant (div): the degree
                            da, db = _degree(a), _degree(b)
                            z = _keep_degree(z, da + db if rule.zero is zero_product else
                                             (da if db == 0 else len(a)))
                        t = Tower()
                        t.tag, t.primal, t.coeffs = tag, z[0], z
                        return t
    if xin:
        n = len(x.coeffs) - 1
        if yin:
            n = min(n, len(y.coeffs) - 1)
    else:
        n = len(y.coeffs) - 1
    px = x.primal if xin else x
    py = y.primal if yin else y
    if xin is not yin:
        c = py if xin else px
        if (type(c) is float or type(c) is int) and type(concrete(strip(px if xin else py))) is MPF:
            # a float constant against mpf coefficients: mpf first, so that the recurrences'
            # arithmetic with it (c·j in x**c, b₀² in atan2) is at mpf precision too
            px, py = promote(px, py, strip)
            if not xin:
                x = px
            if not yin:
                y = py
    if px is ZERO or py is ZERO:
        z0 = rule.zero(px, py) if rule.zero is not None else rule.op(px, py)
    else:
        z0 = rule.op(px, py)
    if n == 0:
        return make_tower(tag, [z0])
    a = _coeffs(x, tag, n) if xin else [x] + [ZERO] * n
    b = a if (y is x) else (_coeffs(y, tag, n) if yin else [y] + [ZERO] * n)
    rec = rule.taylor
    z = (rec(a, b, n, z0, xin, yin) if rec is not None and (
        not rule.divides or _finite(a, xin) and _finite(b, yin)) else None)
    if z is None:
        z = _from_partials(rule, tag, (x, y), (xin, yin), n, z0)
    return make_tower(tag, _fit(z))


def _truncate(v, tag, n):
    """Tower v cut to order n − 1."""
    return make_tower(tag, v.coeffs[:n])


def _series_of(v, tag, m):
    """The coefficients 0..m of v at tag (v a tower of that tag, or a constant)."""
    v = strip_dead(v)
    return _coeffs(v, tag, m)


def _from_partials(rule, tag, args, ins, n, z0):
    """The coefficients of f(args) from the rule's own partials: zₘ = (Σ ∂ᵢf·xᵢ′)ₘ₋₁/m."""
    low = [_truncate(a, tag, n) if i else a for a, i in zip(args, ins)]
    partials = rule.array_partials if any(_is_array(a) for a in args) else rule.partials
    uses_r = any(u[-1] for u, i in zip(rule.uses, ins) if i)
    r_low = rule.op(*low) if uses_r else None
    p = None
    for a, i, d in zip(args, ins, partials):
        if i:
            da = _derivative(a.coeffs, n)
            if _is_array(z0):
                with np.errstate(invalid="ignore"):        # inf·0: see _unreached
                    term = _dot_partial(d(*low, r_low), da, a.primal) * make_tower(tag, da)
                term = _unreached(term, da, tag)
            else:
                term = d(*low, r_low) * make_tower(tag, da)
            p = term if p is None else p + term
    q = _series_of(p, tag, n - 1)
    return _fit([z0] + [c if _zero(c) else c / m for m, c in enumerate(q, 1)])


def _dot_partial(d, da, like):
    """An array partial made of Python constants (np.where(c, 1.0, 0.5)) is float64: it takes
    the argument's floating type, so that it does not widen float32 (as lift._times does)."""
    b = like
    while isinstance(b, ADNumber):
        b = b.primal
    if type(d) is np.ndarray and type(b) is np.ndarray and d.dtype != b.dtype \
            and b.dtype.kind == "f" and d.dtype.itemsize > b.dtype.itemsize:
        return d.astype(b.dtype)
    return d


def _unreached(term, da, tag):
    """An element whose every coefficient of x′ is 0 contributes nothing, even where the partial
    is infinite (sqrt at 0 along a direction with a 0 there), as in forward mode."""
    cs = _series_of(term, tag, len(da) - 1)
    base = cs[0]
    while isinstance(base, ADNumber):
        base = base.primal
    if type(base) is not np.ndarray or np.isfinite(base).all():
        return term
    still = None                                   # the elements some coefficient of x′ moves
    for c in da:
        if not _zero(c):
            while isinstance(c, ADNumber):
                c = c.primal
            moved = c != 0
            still = moved if still is None else still | moved
    if still is None or still.all():
        return term
    where = ARRAY_OPS["where"]
    return make_tower(tag, [c if _zero(c) else where(still, c, 0.0) for c in cs])




def _fit(z):
    """Coefficients broadcast to the shape of the value: a constant array operand (t + A) gives
    z₀ its shape, while z₁… came from the tower alone."""
    b = z[0]
    while isinstance(b, ADNumber):
        b = b.primal
    if type(b) is not np.ndarray:
        return z
    shape = b.shape
    out = [z[0]]
    for c in z[1:]:
        if not _zero(c):
            cb = c
            while isinstance(cb, ADNumber):
                cb = cb.primal
            if np.shape(cb) != shape:
                c = ARRAY_OPS["broadcast_to"](c, shape)
        out.append(c)
    return out


def tower_jvp(tag, leaves, ins, outs, jvp):
    """Towers of a vector primitive's outputs ``outs`` (its values at the primals) from its
    Jacobian-vector product, as :func:`_from_partials` does: zₘ = (J(x)·x′)ₘ₋₁/m.
    ``jvp(points, tangents)`` takes and returns flat lists."""
    n = min(len(a.coeffs) for a, i in zip(leaves, ins) if i) - 1
    if n == 0:
        return [make_tower(tag, [z0]) for z0 in outs]
    low = [make_tower(tag, a.coeffs[:n]) if i else a for a, i in zip(leaves, ins)]
    dx = [make_tower(tag, _dense(_derivative(a.coeffs, n))) if i else 0 * a
          for a, i in zip(leaves, ins)]
    return [make_tower(tag, _fit([z0] + [c if _zero(c) else c / m
                                         for m, c in enumerate(_series_of(t, tag, n - 1), 1)]))
            for z0, t in zip(outs, jvp(low, dx))]


def tower_n(op, partials, args, ins, tag, with_result):
    """An array or user-defined primitive (:func:`dvlad.core.lift.lift`) at towers: from its
    partials, as :func:`_from_partials` (each is a number or a LinearMap; J·t is ``d * t``).
    Such a primitive indexes and reshapes its arguments: their structural zeros are made into
    arrays of zeros first."""
    n = min(len(a.coeffs) for a, i in zip(args, ins) if i) - 1
    primals = [a.primal if i else a for a, i in zip(args, ins)]
    z0 = op(*primals)
    if n == 0:
        return make_tower(tag, [z0])
    if getattr(op, "multilinear", False):
        return make_tower(tag, [z0] + _multilinear(op, args, ins, n))
    series = getattr(op, "taylor", None)        # a primitive's own recurrence (solve, inv, det)
    if series is not None:
        z = series(n, z0, *[_coeffs(a, tag, n) if i else [a] + [ZERO] * n
                            for a, i in zip(args, ins)])
        if z is not None:
            return make_tower(tag, z)
    coeffs = [_dense(a.coeffs[:n + 1]) if i else None for a, i in zip(args, ins)]
    low = [make_tower(tag, c[:n]) if i else a for a, i, c in zip(args, ins, coeffs)]
    ds = partials(*low, r=op(*low)) if with_result else partials(*low)
    p = None
    for i, c, d in zip(ins, coeffs, ds):
        if i and d is not None:                # None: no dependence (a structural zero)
            t = make_tower(tag, [(j + 1) * cj for j, cj in enumerate(c[1:])])
            term = d * t                       # J·t for a LinearMap, as in forward mode
            p = term if p is None else p + term
    if p is None:                              # the value depends on no argument here
        return z0
    q = _series_of(p, tag, n - 1)
    return make_tower(tag, [z0] + [c if _zero(c) else c / m for m, c in enumerate(q, 1)])


def _multilinear(op, args, ins, n):
    """Coefficients 1..n of op, linear in each tower argument: zₖ = Σ_{j₁+…+jₘ=k} op(…, aᵢⱼᵢ, …)
    (a product's convolution; one argument: op on each coefficient).  Terms with a structural
    zero are skipped, so a seed costs one call per order."""
    where = [p for p, i in enumerate(ins) if i]
    cs = [args[p].coeffs for p in where]
    out = []
    for k in range(1, n + 1):
        acc = None
        for js in _compositions(k, len(where)):
            if any(_zero(c[j]) for c, j in zip(cs, js)):
                continue
            call = list(args)
            for p, c, j in zip(where, cs, js):
                call[p] = c[j]
            t = op(*call)
            acc = t if acc is None else acc + t
        out.append(ZERO if acc is None else acc)
    return out


def _compositions(k, m):
    """Every (j₁, …, jₘ) of non-negative ints with sum k."""
    if m == 1:
        yield (k,)
        return
    for j in range(k + 1):
        for rest in _compositions(k - j, m - 1):
            yield (j,) + rest


def _dense(cs):
    """cs with its structural zeros as zeros of c₀'s shape and type, if c₀ is an array."""
    b = cs[0]
    while isinstance(b, ADNumber):
        b = b.primal
    if type(b) is not np.ndarray:
        return cs
    return [np.zeros(b.shape, b.dtype) if _zero(c) else c for c in cs]


# ---- the Taylor lift (the interface of dvlad.core.lift, implemented once for towers) -------------

def lift(prim, tag, args, ins):
    """A row: its recurrence (or the derivation from its partials); any other primitive: the
    derivation from its partials (:func:`tower_n`)."""
    rule = prim.rule
    if rule is not None:
        if rule.arity == 1:
            return tower1(rule, args[0])
        return tower2(rule, tag, args[0], args[1], ins[0], ins[1])
    return tower_n(prim.op, prim.partials, args, ins, tag, prim.with_result)


def lift_many(prim, tag, leaves, ins):
    """The outputs of a vector primitive, from its Jacobian-vector product (:func:`tower_jvp`)."""
    outs = prim.value([a.primal if i else a for a, i in zip(leaves, ins)])[0]
    return tower_jvp(tag, leaves, ins, outs, prim.jvp)


TAYLOR.lift, TAYLOR.lift_many = lift, lift_many
