"""Truncated power series: the recurrences of Taylor towers, lists of coefficients in and out.

Each function takes the coefficients [a₀, …, aₙ] of its arguments (a constant is
[c, ZERO, …, ZERO]) and the value z₀, computed by the primitive itself one level down, and returns
[z₀, …, zₙ]; the coefficients may be floats, mpf, arrays or AD numbers of older tags, so the
arithmetic is Python's (overloaded) arithmetic.  :data:`UNARY` and :data:`BINARY` say which
recurrence serves which primitive of the rule table; :mod:`dvlad.tower` lifts them onto towers,
and :mod:`dvlad.kernels` generates straight-line float versions of the hot ones.  The formulas are
those of Griewank & Walther, *Evaluating Derivatives*, ch. 13; notes/higher-order.md has the table.
"""
import numpy as np

from .number import ADNumber


class _NoTerm(float):
    """The type of :data:`ZERO`."""

    __slots__ = ()

    def __repr__(self):
        return "ZERO"


#: The structural zero: "no term of this order", as in a seed x₀ + 1·τ or a constant.  Terms
#: with it are skipped; arithmetic on it gives a plain 0.0 (a computed zero, never skipped).
ZERO = _NoTerm(0.0)


def _nz(a):
    """The indices j ≥ 1 of a's coefficients that are not structural zeros."""
    return [j for j in range(1, len(a)) if a[j] is not ZERO]


def _zero(c):
    return c is ZERO


def _sum0(p, q, sgn):
    """p ± q, ZERO-aware (ZERO is a float to numpy, which would widen float32)."""
    if q is ZERO:
        return p
    if p is ZERO:
        return q if sgn > 0 else -q
    return p + q if sgn > 0 else p - q


def _times0(p, q):
    """p·q, ZERO if either is: ZERO is a float to numpy, which would widen float32."""
    return ZERO if p is ZERO or q is ZERO else p * q


def _support(a):
    """The indices of a's coefficients that are not structural zeros, 0 included (a derivative
    series, x′, may have none at order 0)."""
    return [j for j in range(len(a)) if a[j] is not ZERO]


def _degree(a):
    """The highest index of a coefficient of a that is not a structural zero (0 if none)."""
    k = len(a) - 1
    while k and a[k] is ZERO:
        k -= 1
    return k


def _keep_degree(z, d):
    """z (a kernel's result, every coefficient computed) with the structural zeros the loops
    would leave above degree d: ZERO·c = 0 as a number, but ZERO·inf must stay 'no term'."""
    n = len(z) - 1
    return z if d >= n else z[:d + 1] + [ZERO] * (n - d)


# ---- the recurrences: lists of coefficients in, lists out -------------------------------------
# a, b are the arguments' coefficients (a constant is [c, ZERO, ..., ZERO]); z0 is the value,
# computed by the primitive itself one level down; n is the order.

def _add(a, b, n, sgn):
    z = [_sum0(a[0], b[0], sgn)]
    for k in range(1, n + 1):
        p, q = a[k], b[k]
        if _zero(q):
            z.append(p)
        elif _zero(p):
            z.append(q if sgn > 0 else -q)
        else:
            z.append(p + q if sgn > 0 else p - q)
    return z


def _mul(a, b, n, z0):
    """zₖ = Σⱼ aⱼ·bₖ₋ⱼ."""
    ia, ib = _support(a), _support(b)
    z = [None] * (n + 1)
    for i in ia:
        ai = a[i]
        for j in ib:
            k = i + j
            if k > n:
                break
            if k:
                t = ai * b[j]
                z[k] = t if z[k] is None else z[k] + t
    z[0] = z0
    return [ZERO if c is None else c for c in z]


def _scale(a, c, n, z0):
    """z = a·c for a constant c."""
    return [z0] + [p if _zero(p) else p * c for p in a[1:n + 1]]


def _square(a, n, z0):
    """zₖ = Σⱼ aⱼ·aₖ₋ⱼ, each off-diagonal pair once."""
    ia = _support(a)
    z = [None] * (n + 1)
    for x, i in enumerate(ia):
        ai = a[i]
        for j in ia[x:]:
            k = i + j
            if k > n:
                break
            if k:
                t = ai * a[j]
                if i != j:
                    t = t + t
                z[k] = t if z[k] is None else z[k] + t
    z[0] = z0
    return [ZERO if c is None else c for c in z]


def _div(a, b, n, z0):
    """z = a/b: b·z = a, so zₖ = (aₖ − Σ_{j≥1} bⱼ·zₖ₋ⱼ)/b₀."""
    ib, b0 = _nz(b), b[0]
    z = [z0]
    for k in range(1, n + 1):
        s = None if _zero(a[k]) else a[k]
        for j in ib:
            if j > k:
                break
            if not _zero(z[k - j]):
                t = b[j] * z[k - j]
                s = -t if s is None else s - t
        z.append(ZERO if s is None else s / b0)
    return z


def _weighted(a):
    """[(j, j·aⱼ)] over the terms of a (j ≥ 1): the coefficients of a′, for the ODE recurrences."""
    return [(j, j * a[j]) for j in _nz(a)]


def _dot(ja, z, k):
    """Σ_{j ≤ k} wⱼ·zₖ₋ⱼ over (j, wⱼ) in ja, or None if there is no term."""
    s = None
    for j, w in ja:
        if j > k:
            break
        if not _zero(z[k - j]):
            t = w * z[k - j]
            s = t if s is None else s + t
    return s


def _exp(a, n, z0):
    """z = exp a: z′ = z·a′, so zₖ = (1/k)·Σⱼ j·aⱼ·zₖ₋ⱼ."""
    ja = _weighted(a)
    z = [z0]
    for k in range(1, n + 1):
        s = _dot(ja, z, k)
        z.append(ZERO if s is None else s / k)
    return z


def _sin_cos(a, n, s0, c0, hyperbolic):
    """s = sin a, c = cos a (sinh, cosh): s′ = c·a′, c′ = ∓s·a′."""
    ja = _weighted(a)
    s, c = [s0], [c0]
    for k in range(1, n + 1):
        ss, cs = _dot(ja, c, k), _dot(ja, s, k)
        s.append(ZERO if ss is None else ss / k)
        c.append(ZERO if cs is None else (cs / k if hyperbolic else -cs / k))
    return s, c


def _log(a, n, z0, a0):
    """z = log a: a·z′ = a′, so zₖ = (aₖ − (1/k)·Σ_{1≤j<k} j·zⱼ·aₖ₋ⱼ)/a₀ (log1p: a₀ is 1 + a₀)."""
    ia = _nz(a)
    z = [z0]
    for k in range(1, n + 1):
        s = None
        for i in ia:
            if i >= k:
                break
            if not _zero(z[k - i]):
                t = (k - i) * z[k - i] * a[i]
                s = t if s is None else s + t
        if s is None:
            z.append(ZERO if _zero(a[k]) else a[k] / a0)
        else:
            s = s / k
            z.append((-s if _zero(a[k]) else a[k] - s) / a0)
    return z


def _square_term(z, k, first):
    """Σ_{first ≤ j ≤ k − first} zⱼ·zₖ₋ⱼ, each off-diagonal pair once (doubled), or None if
    there is no term: the k-th coefficient of z² (first = 0), or its part without z₀ (first = 1)."""
    s = None
    for j in range(first, (k + 1) // 2):
        if not (_zero(z[j]) or _zero(z[k - j])):
            t = z[j] * z[k - j]
            s = t if s is None else s + t
    if s is not None:
        s = s + s
    if k % 2 == 0 and k // 2 >= first and not _zero(z[k // 2]):
        t = z[k // 2] * z[k // 2]
        s = t if s is None else s + t
    return s


def _sqrt(a, n, z0):
    """z = √a: z·z = a, so zₖ = (aₖ − Σ_{1≤j<k} zⱼ·zₖ₋ⱼ)/(2z₀)."""
    z = [z0]
    two_z0 = z0 + z0
    for k in range(1, n + 1):
        s = _square_term(z, k, 1)
        if s is None:
            z.append(ZERO if _zero(a[k]) else a[k] / two_z0)
        else:
            z.append((-s if _zero(a[k]) else a[k] - s) / two_z0)
    return z


def _pow_const(a, c, n, z0, a0):
    """z = a**c for a constant c: a·z′ = c·z·a′, so
    k·a₀·zₖ = Σ_{j≥1} (c·j − (k − j))·aⱼ·zₖ₋ⱼ."""
    ia = _nz(a)
    z = [z0]
    for k in range(1, n + 1):
        s = None
        for j in ia:
            if j > k:
                break
            if not _zero(z[k - j]):
                t = (c * j - (k - j)) * a[j] * z[k - j]
                s = t if s is None else s + t
        z.append(ZERO if s is None else s / (k * a0))
    return z


def _tan(a, n, z0, sgn):
    """z = tan a (tanh, sgn −1): z′ = (1 ± z²)·a′, the square built alongside."""
    ja = _weighted(a)
    z = [z0]
    w = [1.0 + z0 * z0 if sgn > 0 else 1.0 - z0 * z0]
    for k in range(1, n + 1):
        s = _dot(ja, w, k)
        z.append(ZERO if s is None else s / k)
        q = _square_term(z, k, 0)                 # (z²)ₖ
        w.append(ZERO if q is None else (q if sgn > 0 else -q))
    return z


def _integrate_quotient(p, u, n, z0):
    """z with u·z′ = p, given z₀: m·u₀·zₘ = pₘ₋₁ − Σ_{1≤j<m} (m − j)·uⱼ·zₘ₋ⱼ."""
    iu = _nz(u)
    u0 = u[0]
    z = [z0]
    for m in range(1, n + 1):
        s = None if _zero(p[m - 1]) else p[m - 1]
        for j in iu:
            if j >= m:
                break
            if not _zero(z[m - j]):
                t = (m - j) * u[j] * z[m - j]
                s = -t if s is None else s - t
        z.append(ZERO if s is None else s / (m * u0))
    return z


def _derivative(a, n):
    """The coefficients of a′ up to order n − 1: (j + 1)·aⱼ₊₁."""
    return [p if _zero(p) else (j + 1) * p for j, p in enumerate(a[1:n + 1])]


def _is_array(v):
    while isinstance(v, ADNumber):
        v = v.primal
    return type(v) is np.ndarray


def _all(cond):
    """cond, a comparison of (possibly array) primals, holds everywhere."""
    return bool(np.all(cond)) if type(cond) is np.ndarray else bool(cond)
