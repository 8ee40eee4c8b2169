"""scipy.linalg's LU factorization and banded solve as dvlad functions: lu_factor, lu_solve, lu,
solve_banded.

LU with partial pivoting, PA... written A = P·L·U (L unit lower, U upper, P a permutation): the
pivots are a piecewise-constant function of A, taken from A's primal, so the factorization is
differentiated as that of the row-permuted matrix Pᵀ·A = L·U, without pivoting: with
F = L⁻¹·d(PᵀA)·U⁻¹, dL = L·stril(F) and dU = triu(F)·U; scipy's packed result lu = L + U − I
(L's unit diagonal not stored) has d(lu) = L·stril(F) + triu(F)·U, and the transpose
(PᵀA)‾ = L⁻ᵀ·(stril(Lᵀ·S) + triu(S·Uᵀ))·U⁻ᵀ.  Defined where A is nonsingular (U's diagonal
nonzero).  lu_solve is two triangular solves on the packed factors, so it differentiates in
the factors and the right side alike.

solve_banded(l_and_u, ab, b) solves A·x = b with A given by its diagonals (scipy's layout
ab[u + i − j, j] = A[i, j]): dx = A⁻¹(db − dA·x), and āb holds −(A⁻ᵀx̄)·xᵀ on the band, in
the same layout; both use banded products and solves, never a dense A.
"""
import numpy as np

from . import primitives as A
from .factorizations import dtype_of, mT, tri, tri_solve
from .linalg import matmul
from .primitives import _Apply, _primitive
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["lu_factor", "lu_solve", "lu", "solve_banded"]


def _scipy():
    import scipy.linalg
    return scipy.linalg


def _finite(check, *arrays):
    if check and not all(np.isfinite(strip(x)).all() for x in arrays):
        raise ValueError("array must not contain infs or NaNs")


def _as_array(a):
    return a if isinstance(a, ADNumber) else np.asarray(a)


def _permutation(piv):
    """The row order of LAPACK's interchanges piv (row i swapped with row piv[i], in turn):
    a[perm] = L·U; for a stack, one order per matrix."""
    piv = np.asarray(piv)
    perm = np.broadcast_to(np.arange(piv.shape[-1]), piv.shape).copy()
    flat, steps = perm.reshape(-1, piv.shape[-1]), piv.reshape(-1, piv.shape[-1])
    for row, step in zip(flat, steps):
        for i, p in enumerate(step):
            row[i], row[p] = row[p], row[i]
    return flat.reshape(piv.shape)


def _rows(x, perm):
    """x[..., perm, :] (or x[perm] for a vector), perm one order per matrix of a stack."""
    if perm.ndim == 1:
        return A.getitem(x, (perm,) if len(A.shape(x)) == 1 else (Ellipsis, perm, slice(None)))
    grids = np.indices(perm.shape, sparse=True)[:-1]
    return A.getitem(x, (*grids, perm))


def _unit_lower(r):
    return tri(r, True, -1) + np.eye(A.shape(r)[-1], dtype=dtype_of(r))


def _lu_partials(r, m, packed):
    """r = the packed LU of m (no pivoting); the maps above, with triangular solves."""
    low, up = _unit_lower(r), tri(r, False)

    def tangent(t):
        f = mT(tri_solve(mT(up), mT(tri_solve(low, t, True)), True))      # L⁻¹·t·U⁻¹
        return matmul(low, tri(f, True, -1)) + matmul(tri(f, False), up)

    def cotangent(s):
        g = tri(matmul(mT(low), s), True, -1) + tri(matmul(s, mT(up)), False)
        return mT(tri_solve(up, mT(tri_solve(mT(low), g, False)), False))  # L⁻ᵀ·g·U⁻ᵀ
    return _Apply(tangent, cotangent), None


# m = Pᵀ·A; its packed LU is A's own (``packed``, from scipy on A's primal: no second
# factorization, and no pivot that rounding could move)
_packed_lu = _primitive("packed_lu", lambda m, packed: np.array(packed, copy=True),
                        _lu_partials, True)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """scipy.linalg.lu_factor: (lu, piv), A = P·L·U with lu = L + U − I packed and piv LAPACK's
    row interchanges (from A's primal).  d(lu) = L·stril(F) + triu(F)·U, F = L⁻¹·Pᵀ·dA·U⁻¹."""
    a = _as_array(a)
    _finite(check_finite, a)
    if len(A.shape(a)) < 2 or A.shape(a)[-1] != A.shape(a)[-2]:
        raise NotDifferentiableError(f"scipy.linalg.lu_factor of a dvlad number takes square "
                                     f"matrices; got shape {A.shape(a)}")
    packed, piv = _scipy().lu_factor(strip(a), check_finite=False)
    return _packed_lu(_rows(a, _permutation(piv)), packed), piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """scipy.linalg.lu_solve: x with A·x = b (trans 1 or 2: Aᵀ·x = b) from lu_factor(A); two
    triangular solves on the packed factors, differentiable in them and in b."""
    from .scipy_linalg import solve_triangular
    packed, piv = lu_and_piv
    packed, b = _as_array(packed), _as_array(b)
    _finite(check_finite, packed, b)
    perm = _permutation(piv)
    if perm.ndim != 1:
        raise NotDifferentiableError("scipy.linalg.lu_solve of dvlad numbers takes one "
                                     "factorization (lu of shape (n, n)), not a stack")
    if trans in (0, "N"):
        y = solve_triangular(packed, _rows(b, perm), lower=True, unit_diagonal=True,
                             check_finite=False)
        return solve_triangular(packed, y, check_finite=False)
    if trans not in (1, 2, "T", "C"):
        raise ValueError(f"lu_solve: trans must be 0, 1 or 2; got {trans!r}")
    z = solve_triangular(packed, b, trans=1, check_finite=False)
    w = solve_triangular(packed, z, trans=1, lower=True, unit_diagonal=True, check_finite=False)
    return _rows(w, np.argsort(perm))


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """scipy.linalg.lu: (p, l, u) with A = p·l·u ((p·l, u) for permute_l; p as row indices,
    A = l[p]·u, for p_indices), from lu_factor's packed factors."""
    packed, piv = lu_factor(a, check_finite=check_finite)
    perm = _permutation(piv)
    low, up = _unit_lower(packed), tri(packed, False)
    inverse = np.argsort(perm, axis=-1)
    if permute_l:
        return _rows(low, inverse), up
    if p_indices:
        return inverse, low, up
    p = (np.arange(perm.shape[-1]) == perm[..., :, None]).swapaxes(-1, -2)
    return p.astype(dtype_of(packed)), low, up


# ---- solve_banded -------------------------------------------------------------------------------

def _shift(v, s):
    """w with w[j] = v[j + s] along the first axis (zero past either end)."""
    n = A.shape(v)[0]
    if s == 0:
        return v
    k = min(abs(s), n)
    zero = np.zeros((k,) + A.shape(v)[1:], dtype_of(v))
    if s > 0:
        return A.concatenate([A.getitem(v, (slice(k, None),)), zero], 0)
    return A.concatenate([zero, A.getitem(v, (slice(0, n - k),))], 0)


def _column(row, x):
    """A diagonal row of ab, shaped to scale x's rows."""
    return row if len(A.shape(x)) == 1 else A.expand_dims(row, -1)


def band_matvec(ab, x, l, u):
    """A·x for the banded A of ab (scipy's layout), x of shape (n,) or (n, k)."""
    out = None
    for k in range(l + u + 1):
        term = _shift(_column(A.getitem(ab, (k,)), x) * x, u - k)
        out = term if out is None else out + term
    return out


def band_transpose(ab, l, u):
    """The layout of Aᵀ (its l and u swapped): row k of it is row l + u − k of ab, shifted."""
    return A.stack([_shift(A.getitem(ab, (l + u - k,)), k - l) for k in range(l + u + 1)], 0)


def _band_of_outer(y, x, l, u):
    """ab̄[k, j] = Σ_m y[j + k − u, m]·x[j, m]: the band of y·xᵀ, in ab's layout."""
    rows = []
    for k in range(l + u + 1):
        p = _shift(y, k - u) * x
        rows.append(p if len(A.shape(x)) == 1 else A.sum(p, 1))
    return A.stack(rows, 0)


def _banded_value(ab, b, l, u):
    return _scipy().solve_banded((l, u), ab, b, check_finite=False)


def _banded_partials(x, ab, b, l, u):
    abt = band_transpose(ab, l, u)
    return (_Apply(lambda t: -_banded(ab, band_matvec(t, x, l, u), l, u),
                   lambda s: -_band_of_outer(_banded(abt, s, u, l), x, l, u)),
            _Apply(lambda t: _banded(ab, t, l, u), lambda s: _banded(abt, s, u, l)),
            None, None)


_banded = _primitive("banded_solve", _banded_value, _banded_partials, True)


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """scipy.linalg.solve_banded: x with A·x = b, A banded (l below, u above the diagonal) as
    ab[u + i − j, j] = A[i, j]; b of shape (n,) or (n, k).  dx = A⁻¹·(db − dA·x), āb the
    band of −(A⁻ᵀ·x̄)·xᵀ, each by banded solves and products."""
    (l, u), ab, b = l_and_u, _as_array(ab), _as_array(b)
    _finite(check_finite, ab, b)
    if A.shape(ab)[0] != l + u + 1:
        raise ValueError(f"invalid values for the number of lower and upper diagonals: l+u+1 "
                         f"({l + u + 1}) does not equal ab.shape[0] ({A.shape(ab)[0]})")
    return _banded(ab, b, int(l), int(u))
