"""Derivatives of every order at once, by Taylor towers (:mod:`dvlad.tower`).

Naming: ``taylor`` gives Taylor *coefficients* cₖ = f⁽ᵏ⁾/k!; ``derivatives`` gives the
*derivatives* f, f′, …, f⁽ⁿ⁾ (plural: every order up to n); ``nth_derivative`` gives f⁽ⁿ⁾ alone;
``directional_derivatives`` gives dᵏ/dtᵏ f(x + t·v) at t = 0 for k = 0..n.  Each call makes a
fresh Taylor tag, so these nest with ``derivative``, ``gradient_r``, ``fixed_point`` and each
other, in any order, as every other operator does.

Results have f's structure, one per order: ``derivatives(f, 2)(x)`` is ``[f(x), f′(x), f″(x)]``,
and if f returns a tuple each entry is such a tuple.  Functions in f's result come back as
functions (eta-expanded, as for ``derivative``: see notes/functions-as-results.md).
"""
import math
import operator

import numpy as np

from .common import Applied, _is_zero, _real, _same_shapes
from ..core.base import MPF, concrete, one_like, zero_like
from ..numbers.bundle import Bundle, make_bundle
from ..core.number import ADNumber, strip, strip_dead
from ..core.structures import as_real, direction_like, flatten, flatten_like, in_object_array, leaf, map_leaves, unflatten
from ..core.switch import REFERENCE
from ..core.tags import TAYLOR, NotDifferentiableError, TagOrderError, alive, new_tag, newer
from ..numbers.tower import ZERO, Tower, make_tower

__all__ = ["taylor", "derivatives", "nth_derivative", "directional_derivatives"]


def taylor(f, x, n, v=None):
    """Taylor coefficients of t ↦ f(x + t·v) at t = 0, to order n, by one Taylor-tower pass:

        f(x + t·v) = c₀ + c₁t + … + cₙtⁿ + O(tⁿ⁺¹),   cₖ = (dᵏ/dtᵏ f(x + t·v))|₀ / k!

    Returns [c₀, c₁, …, cₙ], each in the structure of f(x).  ``v`` (default 1) has x's
    structure: x may be a number, an array, or a structure of them.

    >>> taylor(lambda x: 1.0 / (1.0 - x), 0.0, 4)
    [1.0, 1.0, 1.0, 1.0, 1.0]
    >>> taylor(lambda p: p[0] * p[1], (1.0, 2.0), 2, (1.0, 1.0))
    [2.0, 3.0, 1.0]
    """
    _order(n, "taylor")
    if v is None:
        _real(x, "taylor's input (with no direction v)")
        v = one_like(strip(x))
    return _run(f, x, v, n, "taylor")


def derivatives(f, n):
    """x ↦ [f(x), f′(x), f″(x), …, f⁽ⁿ⁾(x)] for f of one real number, by one Taylor-tower pass
    (O(n²) operations per primitive of the rule table, where nesting ``derivative`` n times
    costs O(2ⁿ)):

        f⁽ᵏ⁾(x) = k!·cₖ,   the Taylor coefficients cₖ of :func:`taylor`.

    >>> import dvlad
    >>> derivatives(lambda x: x ** 3, 4)(2.0)
    [8.0, 12.0, 12.0, 6.0, 0.0]
    >>> derivatives(dvlad.exp, 3)(0.0)
    [1.0, 1.0, 1.0, 1.0]
    """
    _order(n, "derivatives")
    return _Derivatives(f, n)


class _Derivatives(Applied):
    """derivatives(f, n), applied: callable, and picklable when f is."""

    __slots__ = ("n",)
    origin = "derivatives"

    def __init__(self, f, n):
        self.f, self.n = f, n

    def __reduce__(self):
        return type(self), (self.f, self.n)

    def __call__(self, x):
        f, n = self.f, self.n
        if type(x) is float and not REFERENCE:
            sc = _seed_scale(n, x)
            cs = _run(f, x, sc, n, "derivatives", raw=True)
            if type(cs[0]) is float and type(sum(cs)) is float:     # ZERO·k! is a plain 0.0
                return list(map(operator.mul, cs, _factors(n, sc)))
            return _to_derivatives(_typed(cs), sc)
        x = _scalar_input(x, "derivatives")
        sc = _seed_scale(n, x)
        return _to_derivatives(_run(f, x, _seed(x, sc), n, "derivatives"), sc)


def nth_derivative(f, n):
    """x ↦ f⁽ⁿ⁾(x), the n-th derivative of f at x, by one Taylor-tower pass: n!·cₙ.

    >>> import dvlad
    >>> nth_derivative(dvlad.exp, 5)(0.0)
    1.0
    >>> nth_derivative(lambda x: x ** 6, 6)(1.5)
    720.0
    """
    _order(n, "nth_derivative")
    return _NthDerivative(f, n)


class _NthDerivative(Applied):
    """nth_derivative(f, n), applied: callable, and picklable when f is."""

    __slots__ = ("n", "sc", "tail", "nf")
    origin = "nth_derivative"

    def __init__(self, f, n):
        self.f, self.n = f, n
        self.sc = sc = _seed_scale(n, 0.0)
        self.tail = [sc] + [ZERO] * (n - 1) if n else []
        self.nf = _factors(n, sc)[n]

    def __reduce__(self):
        return type(self), (self.f, self.n)

    def __call__(self, x):
        f, n = self.f, self.n
        if type(x) is float and not REFERENCE:  # the common case: a float, a float tower out
            tag = new_tag(TAYLOR, "nth_derivative")
            try:
                t = Tower()
                t.tag, t.primal, t.coeffs = tag, x, [x] + self.tail
                y = f(t)
                if type(y) is Tower and y.tag is tag and len(y.coeffs) == n + 1:
                    c = y.coeffs[n]
                    if type(c) is float:
                        return c * self.nf
                cs = _coefficients(f, x, self.sc, n, y, tag, "nth_derivative")
            finally:
                tag.live = False
            return _to_derivatives(cs, self.sc)[n]       # typed: structural zeros are zeros now
        x = _scalar_input(x, "nth_derivative")
        s = _seed_scale(n, x)
        return _to_derivatives(_run(f, x, _seed(x, s), n, "nth_derivative"), s)[n]


def directional_derivatives(f, x, v, n):
    """[f(x), D_v f(x), D_v² f(x), …, D_vⁿ f(x)]: the derivatives dᵏ/dtᵏ f(x + t·v) at t = 0
    (D_vᵏ f(x) is the k-th derivative tensor of f at x applied to v, k times), by one pass.

    >>> directional_derivatives(lambda p: p[0] ** 2 * p[1], (1.0, 2.0), (1.0, 0.0), 3)
    [2.0, 4.0, 4.0, 0.0]
    """
    _order(n, "directional_derivatives")
    sc = _seed_scale(n, x)
    if sc != 1.0:
        v = map_leaves(lambda c: c * sc, v, "directional_derivatives' direction")
    return _to_derivatives(_run(f, x, v, n, "directional_derivatives"), sc)


def _order(n, who):
    if type(n) is bool or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{who}: the order n must be a non-negative int; got {n!r}")
    if n < 0:
        raise ValueError(f"{who}: the order n must be ≥ 0; got {n}")


def _scalar_input(x, who):
    if type(x) is float:
        return x
    x = as_real(strip_dead(_real(x, f"{who}'s input")))
    if np.ndim(strip(x)):
        raise NotDifferentiableError(
            f"{who} takes a real number; got an array of shape {np.shape(strip(x))}. Along a "
            f"direction use directional_derivatives(f, x, v, n) or taylor(f, x, n, v)")
    return x


_FACTORIALS = {}


def _factorials(n):
    """[0!, 1!, …, n!] as ints: exact, and an int coefficient (x**3 at an int) stays an int."""
    out = _FACTORIALS.get(n)
    if out is None:
        out = _FACTORIALS[n] = [math.factorial(k) for k in range(n + 1)]
    return out


def _to_derivatives(coeffs, sc=1.0):
    """Taylor coefficients to derivatives: cₖ·k! (cₖ·k!/scᵏ for a seed scaled by sc)."""
    out = coeffs[:1]
    for kf, c in zip(_factors(len(coeffs) - 1, sc)[1:], coeffs[1:]):
        out.append(c * kf if type(c) is float else _map(lambda c, kf=kf: c * kf, c))
    return out


def _seed(x, sc):
    """The direction of the seed x + sc·τ: 1 in x's type (sc·1 if the seed is scaled)."""
    one = one_like(strip(x))
    return one if sc == 1.0 else one * sc


def _seed_scale(n, x):
    """The scale s of the seed x + s·τ for order n: 1 while every k! (k ≤ n) is far inside the
    range of x's floating type, else n/e.  cₖ = f⁽ᵏ⁾/k! leaves the range long before f⁽ᵏ⁾
    does (float64: 171! overflows, and exp(x/2)'s c₁₆₀ ≈ 1e-333 underflows to 0); with the seed
    scaled, cₖ·sᵏ ≈ f⁽ᵏ⁾·(s·e/k)ᵏ stays near f⁽ᵏ⁾ at k ≈ n, and f⁽ᵏ⁾ = cₖ·(k!/sᵏ)."""
    b = x
    while not isinstance(b, (float, int)) and type(b) is not MPF:
        if isinstance(b, ADNumber):
            b = b.primal
        elif isinstance(b, (np.ndarray, np.generic)) or not isinstance(b, (tuple, list, dict)):
            break                               # (a Fraction, a Decimal: another real number)
        else:                                   # a structure: its first leaf
            leaves = flatten(b, "the point")[0]
            if not leaves:
                return 1.0
            b = leaves[0]
    if type(concrete(b)) is MPF:
        return 1.0
    dtype = b.dtype if isinstance(b, (np.ndarray, np.generic)) and b.dtype.kind == "f" \
        else np.dtype(np.float64)
    return 1.0 if n <= _safe_order(dtype) else n / math.e


_SAFE = {}


def _safe_order(dtype):
    """The largest k with k! < √(1/tiny) of a floating type: 98 for float64, 20 for float32."""
    k = _SAFE.get(dtype)
    if k is None:
        tiny = np.finfo(dtype).tiny             # (in its own type: long double's underflows a float)
        bound, k, f = 1 / np.sqrt(tiny), 0, 1
        while f * (k + 1) < bound:
            k += 1
            f *= k
        k = _SAFE[dtype] = k
    return k


def _factors(n, sc=1.0):
    """[k!/scᵏ for k = 0..n]: the exact ints k! when sc is 1."""
    if sc == 1.0:
        return _factorials(n)
    out = [1.0]
    for k in range(1, n + 1):
        out.append(out[-1] * k / sc)
    return out


def _map(fn, y):
    """fn on every number of structure y; functions are wrapped to apply fn to their result."""
    leaves, tree = flatten(y, "a Taylor coefficient", functions=True)
    return unflatten(tree, [(lambda g: lambda *a, **k: _map(fn, g(*a, **k)))(u) if callable(u)
                            and not isinstance(u, ADNumber) else fn(u) for u in leaves])


def _run(f, x, v, n, origin, raw=False):
    """[c₀, …, cₙ] of f(x + t·v), each in f(x)'s structure: f on fresh towers of a new tag."""
    if type(x) is float and type(v) is float and v:     # the common case, without structures
        tag = new_tag(TAYLOR, origin)
        try:
            y = f(make_tower(tag, [x, v] + [ZERO] * (n - 1) if n else [x]))
            if type(y) is Tower and y.tag is tag and len(y.coeffs) == n + 1 \
                    and type(y.primal) is float:
                return y.coeffs if raw else _typed(y.coeffs)     # raw: may hold ZERO
            return _coefficients(f, x, v, n, y, tag, origin)
        finally:
            tag.live = False
    leaves, tree = flatten(x, f"{origin}'s input")
    vleaves = flatten_like(v, tree, f"{origin}'s direction")
    leaves = [as_real(strip_dead(a)) for a in leaves]
    vleaves = [direction_like(as_real(strip_dead(b)), a) for a, b in zip(leaves, vleaves)]
    _same_shapes(leaves, vleaves, f"{origin}: the direction", "the point")
    tag = new_tag(TAYLOR, origin)
    try:
        # A leaf whose direction is exactly 0 is a constant (as in forward mode).
        zeros = [ZERO] * (n - 1)
        seeds = [a if _is_zero(b) and not obj else
                 make_tower(tag, [a, b] + zeros if n else [a])
                 for a, b, obj in zip(leaves, vleaves, in_object_array(tree))]
        y = f(unflatten(tree, seeds))
        return _coefficients(f, x, v, n, y, tag, origin)
    finally:
        tag.live = False


def _coefficients(f, x, v, n, y, tag, origin):
    """The coefficients of f's result y at tag, one structure per order (tag still live)."""
    who = f"{origin}'s result"
    outs, out_tree = flatten(y, who, functions=True, result=True)
    columns = []
    for k, u in enumerate(outs):
        if callable(u) and not isinstance(u, ADNumber):
            columns.append([_eta(f, x, v, n, k, j, who) for j in range(n + 1)])
        else:
            columns.append(_typed(series_of(u, tag, n)))
    return [unflatten(out_tree, [c[j] for c in columns]) for j in range(n + 1)]


def _eta(f, x, v, n, k, j, who):
    """The j-th coefficient of the function at leaf k of f(x): a fresh pass per application."""
    def coefficient_function(*args, **kwargs):
        return taylor(lambda x2: leaf(f(x2), k, who)(*args, **kwargs), x, n, v)[j]
    return coefficient_function


def _typed(cs):
    """Structural zeros (dvlad.tower.ZERO: 'no term') as zeros of the type of c₀."""
    z = None
    out = [cs[0]]
    for c in cs[1:]:
        if c is ZERO:
            if z is None:
                b = strip(cs[0])
                z = 0.0 if type(b) is float else zero_like(b)
            c = z
        out.append(c)
    return out


def series_of(v, tag, n):
    """[c₀, …, cₙ]: the coefficients of number v at the Taylor ``tag``, that tag removed.

    Extraction descends, as for tangents: a newer live bundle or tower around the tower is kept,
    coefficient by coefficient.  A value without ``tag`` is the constant [v, 0, …, 0].
    """
    while isinstance(v, ADNumber):
        vt = v.tag
        if vt is tag:
            c = v.coeffs
            return c[:n + 1] if len(c) > n else c + [ZERO] * (n + 1 - len(c))
        if not vt.live and not alive(vt):
            v = v.primal
            continue
        if newer(vt, tag) is tag:
            break
        if type(v) is Bundle:
            ps, qs = series_of(v.primal, tag, n), series_of(v.tangent, tag, n)
            return [p if q is ZERO else make_bundle(vt, p, q)
                    for p, q in zip(ps, qs)]
        if type(v) is Tower:
            cs = [series_of(c, tag, n) for c in v.coeffs]
            return [make_tower(vt, [c[k] for c in cs]) for k in range(n + 1)]
        raise TagOrderError(f"a live tape cell of the newer {vt!r} reached the result of "
                            f"{tag!r}, where the tag order (newest tag outside, so an inner call "
                            f"has returned before its caller reads a result) says none can be; "
                            f"please report this as a dvlad bug")
    return [v] + [ZERO] * n


def tower_order(values, tag):
    """The order of the towers of ``tag`` among values (the longest), or 0."""
    n = 0
    for v in values:
        v = strip_dead(v)
        if type(v) is Tower and v.tag is tag:
            n = max(n, len(v.coeffs) - 1)
    return n
