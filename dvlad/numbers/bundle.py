"""Forward mode: the bundle (tag, primal, tangent), and taking tangents and primals out of values.

A bundle for tag ε is primal + tangent·ε with ε² = 0.  Its primal and tangent carry only tags
older than ε, so a value's layers are ordered newest outermost.
"""
import numpy as np

from ..core.lift import one_level_down
from ..core.number import ADNumber, strip
from ..core import pool
from ..core.tags import FORWARD, TagOrderError, alive, newer
from .tape import LinearMap, Negated
from .tower import Tower, make_tower


class Bundle(ADNumber):
    """primal + tangent·ε for the forward perturbation ``tag``."""

    # No __init__: Bundle() then three slot stores is the cheapest way CPython 3.11 builds one
    # (measured ~56 ns against ~120 ns through __init__); see make_bundle.
    __slots__ = ("tag", "primal", "tangent")

    def __repr__(self):
        return f"Bundle({self.tag!r}, {self.primal!r}, {self.tangent!r})"


def make_bundle(tag, primal, tangent):
    """Bundle(tag, primal, tangent): primal + tangent·ε."""
    b = Bundle()
    b.tag, b.primal, b.tangent = tag, primal, tangent
    return b


def tangent_of(v, tag, zero):
    """The coefficient of ε=tag in number v (``zero`` if v does not depend on it).

    Extraction descends: a newer live layer t is kept, tangent(Bundle(t, p, q)) =
    Bundle(t, tangent(p), tangent(q)), rather than read as 'no ε here'.
    """
    while isinstance(v, ADNumber):
        vt = v.tag
        if vt is tag:
            return v.tangent
        if not vt.live and not alive(vt):
            v = v.primal
            continue
        if newer(vt, tag) is tag:
            return zero
        if type(v) is not Bundle:
            return _through_tower(v, vt, tag, lambda c: tangent_of(c, tag, zero))
        p, q = tangent_of(v.primal, tag, zero), tangent_of(v.tangent, tag, zero)
        return p if q is zero else make_bundle(vt, p, q)
    return zero


def _through_tower(v, vt, tag, inner):
    """Extraction for ``tag`` through a newer live layer that is not a bundle: a Taylor tower
    (made of ``inner`` of each coefficient), else a TagOrderError."""
    if type(v) is not Tower:
        raise TagOrderError(f"a live tape cell of the newer {vt!r} reached the result of "
                            f"{tag!r}, where the tag order (newest tag outside, so an inner call "
                            f"has returned before its caller reads a result) says none can be; "
                            f"please report this as a dvlad bug")
    return make_tower(vt, [inner(c) for c in v.coeffs])


def primal_of(v, tag):
    """Number v with the perturbation ``tag`` (and dead layers) removed."""
    while isinstance(v, ADNumber):
        vt = v.tag
        if vt is tag or (not vt.live and not alive(vt)):
            v = v.primal
            continue
        if newer(vt, tag) is tag:
            return v
        if type(v) is not Bundle:
            return _through_tower(v, vt, tag, lambda c: primal_of(c, tag))
        return make_bundle(vt, primal_of(v.primal, tag), primal_of(v.tangent, tag))
    return v


def plain_bundle(v):
    """A bundle one layer deep over plain arrays (the sensitivities of an HVP)."""
    return (type(v) is Bundle and type(v.primal) is np.ndarray
            and type(v.tangent) is np.ndarray)


# ---- the forward lift (the interface of dvlad.core.lift, implemented once for bundles) ----------

def _scaled(d, t):
    """d·t for a scalar partial d and tangent t: no multiplication when either is ±1 (the seed
    of a derivative is 1.0; add and sub have partials ±1)."""
    if type(d) is float and type(t) is not int:         # 1.0·int would be a float
        if d == 1.0:
            return t
        if d == -1.0:
            return -t
    if type(t) is float and t == 1.0 and (type(d) is float or type(d) is not int and
                                          not isinstance(d, _EXACT)):
        return d                # (a bool or integer partial, x·(c > 0), widens: d·1.0)
    return d * t


_EXACT = (bool, np.bool_, np.integer)


def lift(prim, tag, args, ins):
    """Bundle(ε, f(p), Σᵢ ∂ᵢf·tᵢ) over the in-arguments' tangents tᵢ.  A partial of ±1 passes the
    tangent on (multiplying a deep bundle by 1.0 would copy it: nested derivatives have 2ᵏ
    components at depth k), and one of −1 after the first term is a subtraction.  Hot path:
    one and two arguments (every row of the rule table) are spelled out."""
    n = len(args)
    if n == 1:
        x = args[0]
        r, (d,) = prim.at((x.primal,), ins, FORWARD)
        if prim.closure_check:
            one_level_down(prim, tag, r, (d,))
        return make_bundle(tag, r, _plus_term(None, d, x.tangent))
    if n == 2:
        x, y = args
        xin, yin = ins
        r, (dx, dy) = prim.at((x.primal if xin else x, y.primal if yin else y), ins, FORWARD)
        if prim.closure_check:
            one_level_down(prim, tag, r, (dx, dy))
        if dx is None and dy is None:           # structurally constant (0·x): partials.py
            return r
        if not yin:
            return make_bundle(tag, r, _plus_term(None, dx, x.tangent)
                               if isinstance(dx, LinearMap) else _scaled(dx, x.tangent))
        t = _plus_term(None, dx, x.tangent) if xin else None
        return make_bundle(tag, r, _plus_term(t, dy, y.tangent))
    r, ds = prim.at([a.primal if i else a for a, i in zip(args, ins)], ins, FORWARD)
    if prim.closure_check:
        one_level_down(prim, tag, r, ds)
    t = None
    for a, i, d in zip(args, ins, ds):
        if i and d is not None:       # None: r does not depend on a (a structural zero)
            t = _plus_term(t, d, a.tangent)
    return r if t is None else make_bundle(tag, r, t)


def _plus_term(t, d, u):
    """t + d·u (t None: no terms yet), for a partial d that is a number or a LinearMap."""
    if isinstance(d, LinearMap):
        term = d.term(u)
        if type(term) is Negated:
            return pool.negative(term.s) if t is None else pool.minus(t, term.s)
    elif t is not None and type(d) is float and d == -1.0:
        return t - u
    else:
        term = _scaled(d, u)
    if t is None:
        return term
    return pool.plus(t, term) if type(term) is np.ndarray else t + term


def lift_many(prim, tag, leaves, ins):
    """The outputs of a vector primitive as bundles: their tangents are its J·t."""
    points = [a.primal if i else a for a, i in zip(leaves, ins)]
    outs = prim.value(points)[0]
    zero = 0 * strip(outs[0]) if outs else 0
    tangents = prim.jvp(points, [a.tangent if i else 0 * strip(a) for a, i in zip(leaves, ins)])
    return [make_bundle(tag, a, b if b is not None else zero) for a, b in zip(outs, tangents)]


FORWARD.lift, FORWARD.lift_many = lift, lift_many
