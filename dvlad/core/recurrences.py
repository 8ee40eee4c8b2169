"""The Taylor recurrences that the rows of the rule table name (``taylor=`` in
:mod:`dvlad.core.rules`), built from the coefficient arithmetic of :mod:`dvlad.core.series`.

Each takes the coefficients [a₀, …, aₙ] of its arguments (a constant is [c, ZERO, …, ZERO]) and
the value z₀, computed by the primitive itself one level down, and returns [z₀, …, zₙ], or None
where it would divide by zero (a kink or a domain edge): the rule's partials, with their
conventions, take over there.  A recurrence that needs another primitive (sin's needs cos) is
given it by its row.
"""
import numpy as np

from .base import MPF, concrete
from .number import ADNumber
from .series import (
    ZERO,
    _add,
    _all,
    _derivative,
    _div,
    _exp,
    _integrate_quotient,
    _is_array,
    _log,
    _mul,
    _pow_const,
    _scale,
    _sin_cos,
    _sqrt,
    _square,
    _tan,
    _times0,
    _zero,
)


def sin_cos(first, hyperbolic, other):
    """sin, cos, sinh or cosh (``first``: sin/sinh): the pair's recurrence, returning this
    member; ``other`` is the pair's other primitive."""
    def rec(a, n, z0):
        w0 = other(a[0])
        s0, c0 = (z0, w0) if first else (w0, z0)
        s, c = _sin_cos(a, n, s0, c0, hyperbolic)
        return s if first else c
    return rec


def absolute(signum):
    """|a| = signum(a₀)·a: 0 at 0, as the rule says."""
    def rec(a, n, z0):
        sg = signum(a[0])
        return [z0] + [p if _zero(p) else sg * p for p in a[1:]]
    return rec


def arctangent(a, n, z0):                 # z′ = a′/(1 + a²)
    u = _square(a, n - 1, a[0] * a[0])
    u[0] = 1.0 + u[0]
    return _integrate_quotient(_derivative(a, n), u, n, z0)


def arcsine(sgn, root):
    """asin (sgn 1) or acos (−1): z′ = ±a′/√(1 − a²); ``root`` is the square root primitive."""
    def rec(a, n, z0):
        a0 = a[0]
        if not _all(a0 * a0 != 1):
            return None
        u = _square(a, n - 1, a0 * a0)
        u = [1.0 - u[0]] + [c if _zero(c) else -c for c in u[1:]]
        u = _sqrt(u, n - 1, root(u[0]))
        p = _derivative(a, n)
        if sgn < 0:
            p = [c if _zero(c) else -c for c in p]
        return _integrate_quotient(p, u, n, z0)
    return rec


def logarithm(shift):
    """log a (shift False), or log(1 + a) (True)."""
    def rec(a, n, z0):
        u0 = a[0] + 1.0 if shift else a[0]
        return _log(a, n, z0, u0) if _all(u0 != 0) else None
    return rec


def negation(a, n, z0):
    return [z0] + [p if _zero(p) else -p for p in a[1:]]


def squared(a, n, z0):
    return _square(a, n, z0)


def inverse(a, n, z0):
    return _div([1.0] + [ZERO] * n, a, n, z0) if _all(a[0] != 0) else None


def root(a, n, z0):
    return _sqrt(a, n, z0) if _all(z0 != 0) else None


def exponential(shift):
    """exp a (shift False), or exp(a) − 1 (True)."""
    if not shift:
        return _exp
    return lambda a, n, z0: [z0] + _exp(a, n, z0 + 1.0)[1:]


def tangent(sgn):
    """tan (sgn 1) or tanh (−1)."""
    return lambda a, n, z0: _tan(a, n, z0, sgn)


def product(a, b, n, z0, ain, bin_):
    if not bin_:
        return _scale(a, b[0], n, z0)
    if not ain:
        return _scale(b, a[0], n, z0)
    if a is b:
        return _square(a, n, z0)
    return _mul(a, b, n, z0)


def quotient(a, b, n, z0, ain, bin_):
    if not bin_:
        b0 = b[0]
        return [z0] + [p if _zero(p) else p / b0 for p in a[1:n + 1]]
    if not _all(b[0] != 0):
        return None
    return _div(a, b, n, z0)


def power(logarithm_op):
    """a**b; ``logarithm_op`` is the natural logarithm primitive (a**b = exp(b·log a))."""
    def rec(a, b, n, z0, ain, bin_):
        a0, b0 = a[0], b[0]
        if not bin_:
            if not _all(a0 != 0):
                return None                        # x**c at x = 0: the rule's conventions
            if not isinstance(b0, ADNumber) and not _is_array(b0) and b0 == int(b0) \
                    and 0 < b0 <= 64:
                return _int_power(a, int(b0), n, z0)
            if not _normal(z0):
                return None                        # a₀ᶜ under- or overflows: the recurrence,
            return _pow_const(a, b0, n, z0, a0)    # which divides by it, would lose every order
        if not _all(a0 > 0):
            return None                            # a**y needs log a
        la0 = logarithm_op(a0)
        log_a = _log(a, n, la0, a0) if ain else [la0] + [ZERO] * n
        e = _mul(b, log_a, n, b0 * log_a[0]) if ain else _scale(b, log_a[0], n, b0 * log_a[0])
        return _exp(e, n, z0)
    return rec


def _int_power(a, c, n, z0):
    """a**c for an int c ≥ 1 by squaring and multiplying: no division by a₀ (whose power may
    underflow), and exact as nested derivatives are."""
    out = None
    while c:
        if c & 1:
            out = a if out is None else _mul(out, a, n, out[0] * a[0])
        c >>= 1
        if c:
            a = _square(a, n, a[0] * a[0])
    return [z0] + out[1:]


def _normal(z):
    """z's base value (every element) is a float far from under- and overflow (mpf: always)."""
    while isinstance(z, ADNumber):
        z = z.primal
    if type(concrete(z)) is MPF:
        return True
    m = np.abs(z)
    info = np.finfo(m.dtype if isinstance(m, (np.ndarray, np.generic)) and m.dtype.kind == "f"
                    else np.float64)
    # far from both ends: a₀ᶜ's neighbours in the recurrence (a₀ᶜ⁻ᵏ) stay representable
    return bool(np.all((m > info.tiny / info.eps) & (m < info.max * info.eps)))


def arctangent2(a, b, n, z0, ain, bin_):        # z′ = (b·a′ − a·b′)/(a² + b²)
    a0, b0 = a[0], b[0]
    if not _all((a0 != 0) | (b0 != 0) if _is_array(a0) or _is_array(b0) else (a0 or b0)):
        return None
    u = _add(_square(a, n - 1, a0 * a0), _square(b, n - 1, b0 * b0), n - 1, 1)
    if not _all((u[0] != 0) & (u[0] - u[0] == 0) if _is_array(u[0]) else u[0] and u[0] - u[0] == 0):
        return None                     # a0² + b0² under- or overflowed: the partials scale
    da, db = _derivative(a, n), _derivative(b, n)
    p = _add(_mul(b, da, n - 1, _times0(b0, da[0])), _mul(a, db, n - 1, _times0(a0, db[0])),
             n - 1, -1)
    return _integrate_quotient(p, u, n, z0)


def hypotenuse(a, b, n, z0, ain, bin_):         # √(a² + b²)
    if not _all(z0 != 0):
        return None
    u = _add(_square(a, n, a[0] * a[0]), _square(b, n, b[0] * b[0]), n, 1)
    return _sqrt(u, n, z0)


def sum_or_difference(sgn):
    """a + b (sgn 1) or a − b (−1)."""
    def rec(a, b, n, z0, ain, bin_):
        if not bin_:
            return [z0] + a[1:n + 1]
        if not ain:
            return [z0] + (b[1:n + 1] if sgn > 0 else [q if _zero(q) else -q for q in b[1:n + 1]])
        z = _add(a, b, n, sgn)
        z[0] = z0
        return z
    return rec


# ---- structural zeros: the value of a primitive when an argument is ZERO (a derivative series x′
# may start with one).  No term times anything is no term; no term added changes nothing.

def zero_product(px, py):
    return ZERO


def zero_sum(px, py):
    return py if px is ZERO else px


def zero_difference(px, py):
    return px if py is ZERO else (ZERO if px is ZERO and py is ZERO else -py)
