"""numpy's polynomials (coefficients highest power first) written with dvlad's array
primitives: vander, polyval, polyfit, polyadd, polysub, polymul, polyder, polyint, polydiv,
poly; and roots, a primitive of its own.

Each takes numpy's signature and follows numpy's order of operations (Horner's rule, the
sequential powers of vander, polyfit's column scaling before least squares), so the values are
numpy's; derivatives come from products, sums, concatenation, convolution and lstsq.  poly1d
objects are numpy's own class: pass coefficient arrays.
"""
import warnings

import numpy as np

from . import primitives as A
from .composite import _as_array, _ndim
from .decompositions import lstsq
from .linalg import matmul
from .primitives import _Apply, _primitive
from .products import _cast
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS"]


def _1d(a):
    a = _as_array(a)
    return A.reshape(a, (1,)) if _ndim(a) == 0 else a


def _float(a):
    """a + 0.0 as numpy writes it: integers become float64, floats stay."""
    a = _as_array(a)
    return a if np.asarray(strip(a)).dtype.kind == "f" else a + 0.0


def _zeros(n, like):
    return np.zeros(n, np.asarray(strip(like)).dtype)


def vander(x, N=None, increasing=False):
    """Columns x⁰, x¹, ... x^(N−1) (reversed unless increasing), each power the previous one
    times x, as numpy's accumulate computes them."""
    x = _as_array(x)
    if _ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    N = A.shape(x)[0] if N is None else N
    dt = np.promote_types(np.asarray(strip(x)).dtype, int)
    if np.asarray(strip(x)).dtype != dt:
        x = _cast(x, dt)
    cols = [np.ones(A.shape(x), dt)][:N]
    for _ in range(1, N):
        cols.append(x if len(cols) == 1 else cols[-1] * x)
    if not cols:
        return np.empty(A.shape(x) + (0,), dt)
    return A.stack(cols if increasing else cols[::-1], 1)


def polyval(p, x):
    """p₀xⁿ + ... + pₙ by Horner's rule, y ← y·x + pₖ from y = 0."""
    p, x = _as_array(p), _as_array(x)
    y = np.zeros_like(np.asarray(strip(x)))
    for k in range(A.shape(p)[0]):
        y = y * x + A.getitem(p, k)
    return y


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares coefficients: vander(x) with its columns scaled to unit norm, lstsq, the
    scale divided back out (numpy's steps).  Differentiable in y (linear), x and w."""
    if cov:
        raise NotDifferentiableError("numpy.polyfit with cov=True: dvlad does not "
                                     "differentiate the covariance estimate; leave cov= out")
    order = int(deg) + 1
    x, y = _float(x), _float(y)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if _ndim(x) != 1:
        raise TypeError("expected 1D vector for x")
    if A.shape(x)[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if _ndim(y) < 1 or _ndim(y) > 2:
        raise TypeError("expected 1D or 2D array for y")
    if A.shape(x)[0] != A.shape(y)[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = A.shape(x)[0] * np.finfo(np.asarray(strip(x)).dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _float(w)
        if _ndim(w) != 1:
            raise TypeError("expected a 1-d array for weights")
        if A.shape(w)[0] != A.shape(y)[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * A.reshape(w, (-1, 1))
        rhs = rhs * (A.reshape(w, (-1, 1)) if _ndim(rhs) == 2 else w)
    scale = np.sqrt(A.sum(lhs * lhs, 0))
    c, resids, rank, s = lstsq(lhs / scale, rhs, rcond)
    c = c / (A.reshape(scale, (-1, 1)) if _ndim(c) == 2 else scale)
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=3)
    return (c, resids, rank, s, rcond) if full else c


def _padded_pair(a1, a2):
    a1, a2 = _1d(a1), _1d(a2)
    gap = A.shape(a2)[0] - A.shape(a1)[0]
    if gap > 0:
        a1 = A.concatenate([_zeros(gap, a1), a1])
    elif gap < 0:
        a2 = A.concatenate([_zeros(-gap, a2), a2])
    return a1, a2


def polyadd(a1, a2):
    """The coefficient-wise sum, the shorter padded with leading zeros."""
    a1, a2 = _padded_pair(a1, a2)
    return a1 + a2


def polysub(a1, a2):
    a1, a2 = _padded_pair(a1, a2)
    return a1 - a2


def polymul(a1, a2):
    """The product's coefficients: the full convolution."""
    return np.convolve(_1d(a1), _1d(a2))


def polyder(p, m=1):
    """The m-th derivative: pₖ·(n − k) for each k, m times."""
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _as_array(p)
    for _ in range(m):
        n = A.shape(p)[0] - 1
        p = A.getitem(p, slice(None, -1)) * np.arange(n, 0, -1)
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative: pₖ/(n + 1 − k), then the constant k (numpy's order)."""
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = np.zeros(m, float) if k is None else k
    k = _1d(k)
    if A.shape(k)[0] == 1 and m > 1:
        k = A.broadcast_to(A.getitem(k, 0), (m,))
    if A.shape(k)[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _as_array(p)
    for j in range(m):
        n = A.shape(p)[0]
        p = A.concatenate([p / np.arange(n, 0, -1), A.reshape(A.getitem(k, j), (1,))])
    return p


def polydiv(u, v):
    """Quotient and remainder of long division: dₖ = rₖ/v₀, r ← r − dₖ·v shifted; leading
    remainder terms that are 0 (to 1e-14) dropped, as numpy drops them."""
    u, v = _float(_1d(u)), _float(_1d(v))
    m, n = A.shape(u)[0] - 1, A.shape(v)[0] - 1
    scale = 1.0 / A.getitem(v, 0)
    r, q = u, []
    for k in range(0, m - n + 1):
        d = scale * A.getitem(r, k)
        q.append(d)
        r = A.concatenate([A.getitem(r, slice(None, k)),
                           A.getitem(r, slice(k, k + n + 1)) - d * v,
                           A.getitem(r, slice(k + n + 1, None))])
    while np.allclose(np.asarray(strip(r))[0], 0, rtol=1e-14) and A.shape(r)[0] > 1:
        r = A.getitem(r, slice(1, None))
    dt = np.result_type(np.asarray(strip(u)).dtype, np.asarray(strip(v)).dtype)
    return (A.stack(q) if q else np.zeros(1, dt)), r


def poly(seq_of_zeros):
    """The monic polynomial with these (real) roots: Π (x − rₖ), one convolution per root."""
    z = _as_array(seq_of_zeros)
    if _ndim(z) == 2:
        raise NotDifferentiableError("numpy.poly of a matrix goes through its eigenvalues "
                                     "(complex in general): pass the roots")
    if _ndim(z) > 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    z = _1d(z)
    dt = np.asarray(strip(z)).dtype
    a = np.ones((1,), dt)
    for j in range(A.shape(z)[0]):
        a = np.convolve(a, A.stack([np.ones((), dt), -A.getitem(z, j)]))
    return a


def _roots_value(p):
    r = np.roots(p)
    if np.iscomplexobj(r):
        raise NotDifferentiableError("numpy.roots: the polynomial has complex roots; dvlad "
                                     "differentiates real roots only")
    return r


def _roots_partials(r, p):
    """dr_i = −Σ_k dp_k·r_i^(n−k) / p′(r_i): implicit differentiation of p(r_i) = 0."""
    powers = vander(r, A.shape(p)[0])
    slope = polyval(polyder(p), r)
    return (_Apply(lambda t: -matmul(powers, t) / slope,
                   lambda s: -matmul(A.swapaxes(powers, 0, 1), s / slope)),)


_roots = _primitive("roots", _roots_value, _roots_partials, True)


def roots(p):
    """numpy.roots: the roots of p₀xⁿ + ... + pₙ (real ones; complex roots raise), with
    dr_i/dp_k = −r_i^(n−k)/p′(r_i).  A repeated root (p′(r) = 0) has no derivative (inf or nan
    there).  Leading zeros of p are dropped as numpy's, where they are zero in the primal only
    when no dvlad number would move them (a tracked leading zero raises: the degree changes)."""
    p = _1d(_float(p))
    lead = np.flatnonzero(np.asarray(strip(p)))
    if lead.size == 0:
        return np.array([], np.asarray(strip(p)).dtype)
    if lead[0]:
        if isinstance(p, ADNumber):
            raise NotDifferentiableError("numpy.roots: the leading coefficient is zero, and "
                                         "moving it changes the degree; drop it first")
    return _roots(p)


FUNCTIONS = {
    np.roots: roots, np.vander: vander, np.polyval: polyval, np.polyfit: polyfit, np.polyadd: polyadd,
    np.polysub: polysub, np.polymul: polymul, np.polyder: polyder, np.polyint: polyint,
    np.polydiv: polydiv, np.poly: poly,
}
