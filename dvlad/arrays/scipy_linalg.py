"""scipy.linalg's expm, solve_triangular, cho_factor and cho_solve as dvlad functions.

scipy.linalg does not dispatch on numpy's protocol, so these take AD numbers themselves (and
plain arrays, giving scipy's values).  scipy is optional and imported only when a value is
computed: without it, expm is numpy's [13/13] Padé with scaling and squaring and the triangular
solves are numpy's solve on the triangle.  Re-exported by :mod:`dvlad.arrays.decompositions`.
"""
import numpy as np

from . import primitives as A
from .factorizations import cholesky_factor, dtype_of, from_triangle, mT, tri_mask, tri_solve
from .linalg import _square
from .primitives import _Apply, _primitive
from ..core.number import ADNumber, strip

__all__ = ["expm", "solve_triangular", "cho_factor", "cho_solve", "pade_expm", "frechet",
           "block_frechet"]


def _as_array(a):
    return a if isinstance(a, ADNumber) else np.asarray(a)


# ---- expm ---------------------------------------------------------------------------------------

_B13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
        129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
        40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def pade_expm(a):
    """e^a by scaling and squaring with the [13/13] Padé approximant (Higham 2005), numpy only:
    expm's value when scipy is not installed."""
    a = np.asarray(a)
    b, eye = _B13, np.eye(a.shape[-1], dtype=a.dtype)
    norm1 = float(np.max(np.sum(np.abs(a), axis=-2), initial=0.0))
    k = max(0, int(np.ceil(np.log2(norm1 / 5.371920351148152)))) if norm1 > 0 else 0
    a = a / a.dtype.type(2.0 ** k)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(k):
        r = r @ r
    return r


def _expm_value(a):
    try:
        from scipy.linalg import expm as scipy_expm
    except ImportError:
        return pade_expm(a)
    return scipy_expm(a)


def block_frechet(f, a, e, *params):
    """L_f(a, e), the Fréchet derivative of the matrix function f at a in direction e: the upper
    right block of f([[a, e], [0, a]]) (Higham 2008, Theorem 3.6; Mathias 1996 for expm), with e
    scaled to a's size first (L is linear in e: L(a, e) = s·L(a, e/s)), else a large e (a
    reverse sweep's sensitivity) makes the block matrix large (expm squares it more often) and
    loses L's digits."""
    n = A.shape(a)[-1]
    size_a = np.max(np.abs(strip(a)), axis=(-2, -1), keepdims=True)
    size_e = np.max(np.abs(strip(e)), axis=(-2, -1), keepdims=True)
    s = np.where(size_e == 0, 1.0, size_e / np.where(size_a == 0, 1.0, size_a))
    zero = np.zeros(A.shape(a), dtype_of(a))
    big = A.concatenate([A.concatenate([a, e / s], -1), A.concatenate([zero, a], -1)], -2)
    return A.getitem(f(big, *params), (Ellipsis, slice(0, n), slice(n, None))) * s


def frechet(a, e):
    """L(a, e), the Fréchet derivative of expm at a in direction e (:func:`block_frechet`)."""
    return block_frechet(expm, a, e)


expm = _primitive("expm", _expm_value, lambda r, a: (
    _Apply(lambda t: frechet(a, t), lambda s: frechet(mT(a), s)),), True)
expm.__doc__ = """e^a, a square matrix or a stack: scipy.linalg.expm's value (numpy's Padé
when scipy is missing).  d e^a = L(a, da), and ā = L(aᵀ, ē): the Fréchet derivative, by the
block-triangular identity expm([[a, e], [0, a]]) = [[e^a, L(a, e)], [0, e^a]]."""


# ---- scipy.linalg's, as dvlad functions ---------------------------------------------------------

def _finite(check, *arrays):
    """scipy's check_finite=True: ValueError for an inf or nan (in the primals), as scipy's."""
    if check and not all(np.isfinite(strip(x)).all() for x in arrays):
        raise ValueError("array must not contain infs or NaNs")


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """scipy.linalg.solve_triangular: x with T·x = b (trans 1 or 'T': Tᵀ·x = b), T a's lower
    or upper triangle (unit_diagonal: with ones on the diagonal); a may be a stack (..., n, n),
    b a vector (n,) or matrices (..., n, k).  dx = −T⁻¹·dT·x + T⁻¹·db, dT on the triangle."""
    a, b = _as_array(a), _as_array(b)
    _square(a, "solve_triangular")
    _finite(check_finite, a, b)
    if unit_diagonal:
        a = A.where(np.eye(A.shape(a)[-1], dtype=bool), 1.0, a)
    if trans in (1, "T", 2, "C"):
        a, lower = mT(a), not lower
    elif trans not in (0, "N"):
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C'; got "
                         f"{trans!r}")
    if len(A.shape(b)) == 1:
        x = tri_solve(a, A.expand_dims(b, -1), bool(lower))
        return A.reshape(x, A.shape(x)[:-1])
    return tri_solve(a, b, bool(lower))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy.linalg.cho_factor: (c, lower), c holding the factor in a's lower (upper) triangle,
    which is the one read, and a's own elements in the other, as scipy leaves them."""
    a = _as_array(a)
    _square(a, "cho_factor")
    _finite(check_finite, a)
    l = cholesky_factor(from_triangle(a, bool(lower)))
    return A.where(tri_mask(A.shape(a)[-1], bool(lower)), l if lower else mT(l), a), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """scipy.linalg.cho_solve: x with a·x = b, from cho_factor(a): two triangular solves,
    (LLᵀ)⁻¹b or (UᵀU)⁻¹b, reading c's factor triangle only."""
    c, lower = c_and_lower
    _finite(check_finite, _as_array(c), _as_array(b))
    if lower:
        return solve_triangular(c, solve_triangular(c, b, lower=True), trans=1, lower=True)
    return solve_triangular(c, solve_triangular(c, b, trans=1, lower=False), lower=False)


