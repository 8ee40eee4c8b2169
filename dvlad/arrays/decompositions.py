"""Matrix decompositions and the linear algebra built on them (cholesky, qr, eigh, svd, ...).

numpy's ``linalg`` functions with numpy's signatures, stacks (..., m, n) wherever numpy takes
them, and numpy's result types (``w, v = np.linalg.eigh(a)`` and ``res.eigenvalues`` both
work).  The primitives and their formulas are in :mod:`dvlad.arrays.factorizations`; this module
reads numpy's arguments, refuses what has no derivative, and composes:

- ``cholesky(a, upper=False)``: dL = L·Φ(L⁻¹·dA·L⁻ᵀ) (Murray 2016), dA taken on the triangle
  numpy reads;
- ``qr(a, mode)``: 'reduced', 'r', and 'complete' when m ≤ n; a wide a (m < n) is
  [X Y] = Q[R₁ R₂] with Q, R₁ = qr(X) and R₂ = QᵀY; 'complete' with m > n and 'raw' raise;
- ``eigh(a, UPLO)``, ``eigvalsh``: dw = diag(VᵀdAV), dV = V(F ∘ VᵀdAV), F_ij = 1/(w_j − w_i),
  dA the symmetric matrix of the triangle UPLO names (numpy reads no other element).  At a
  repeated eigenvalue the eigenvectors have no derivative (F is infinite);
- ``eig``, ``eigvals`` of a matrix with real eigenvalues, in :mod:`dvlad.arrays.eigen`;
- ``svd(a, full_matrices, compute_uv, hermitian)``: ds = diag(UᵀdAV); dU, dVᵀ by Giles (2008)
  and Townsend (2016).  Distinct, nonzero singular values; full_matrices=True only for square
  a (the extra columns of U or V are not unique);
- ``pinv``, ``lstsq``: at full rank (Golub & Pereyra 1973); a rank-deficient matrix raises;
- ``norm`` for every ``ord`` and ``axis`` numpy takes (2, −2 and 'nuc' through the singular
  values: ∂‖A‖₂ = u₁v₁ᵀ, ∂‖A‖_* = UVᵀ); ``matrix_power`` (any integer n), ``multi_dot``.

scipy.linalg does not dispatch on numpy's protocol, so its functions are dvlad's own:
``expm``, ``solve_triangular``, ``cho_factor``, ``cho_solve`` (scipy's values when it is
installed, numpy's otherwise).
"""
import operator

import numpy as np

from . import linalg as LA
from . import primitives as A
from .primitives import _Apply, _primitive
from .factorizations import (cholesky_factor, dtype_of, eig_values, eig_vectors, from_triangle,
                             mT, pinv_matrix, qr_q, qr_r, rank_deficient, singular_values, svd_u,
                             svd_vt)
from .eigen import FUNCTIONS as EIG_FUNCTIONS, eig, eigvals
from .scipy_linalg import cho_factor, cho_solve, expm, solve_triangular
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS", "cholesky", "qr", "eigh", "eigvalsh", "eig", "eigvals", "svd", "pinv",
           "lstsq", "norm", "matrix_power", "multi_dot", "expm", "solve_triangular", "cho_factor",
           "cho_solve"]

_results = getattr(np.linalg, "_linalg", None) or np.linalg.linalg
EighResult, QRResult, SVDResult = _results.EighResult, _results.QRResult, _results.SVDResult


def _as_array(a):
    """An argument as an array: AD numbers as they are, anything else through np.asarray."""
    return a if isinstance(a, ADNumber) else np.asarray(a)


def _ndim(a):
    return len(A.shape(a))


def _plain(fn, **given):
    for k, v in given.items():
        if v is not None and v is not np._NoValue and v is not False:
            raise NotDifferentiableError(f"numpy.linalg.{fn} with {k}={v!r}: dvlad does not "
                                         f"differentiate it; leave it out")


# ---- factorizations -----------------------------------------------------------------------------

def cholesky(a, /, *, upper=False):
    """L with a = LLᵀ (upper: U = Lᵀ, a = UᵀU), read from a's lower (upper) triangle, as
    numpy does: dL = L·Φ(L⁻¹·dS·L⁻ᵀ), S the symmetric matrix of that triangle."""
    a = _as_array(a)
    LA._square(a, "linalg.cholesky")
    l = cholesky_factor(from_triangle(a, not upper))
    return mT(l) if upper else l


def qr(a, mode="reduced"):
    """numpy's qr, differentiable for modes 'reduced' (Q, R), 'r' (R) and 'complete' (Q, R);
    dQ, dR as in factorizations._qr_tangents, and Q's last m − n columns of 'complete' as
    svd's extra columns (:func:`_complement`).  R's sign convention is LAPACK's
    (numpy's): locally constant, so the derivative is that of the Q and R numpy returns."""
    a = _as_array(a)
    if mode in ("f", "full"):
        mode = "reduced"
    if mode not in ("reduced", "complete", "r"):
        if mode in ("raw", "e", "economic"):
            raise NotDifferentiableError(
                f"numpy.linalg.qr with mode={mode!r}: Householder reflectors have no dvlad "
                f"derivative; use mode='reduced' (Q, R) or mode='r'")
        return np.linalg.qr(strip(a), mode)          # numpy's own error for a mode it lacks
    if _ndim(a) < 2:
        return np.linalg.qr(strip(a), mode)
    m, n = A.shape(a)[-2:]
    if mode == "complete" and m > n:        # Q's last m − n columns: as svd's (_complement)
        q, r = qr_q(a), qr_r(a)
        full = np.linalg.qr(strip(a), "complete")
        q = A.concatenate([q, _complement(q, full.Q[..., :, n:])], -1)
        zeros = np.zeros(A.shape(r)[:-2] + (m - n, n), dtype_of(r))
        return QRResult(q, A.concatenate([r, zeros], -2))
    if m >= n:
        r = qr_r(a)
        return r if mode == "r" else QRResult(qr_q(a), r)
    left, right = A.getitem(a, (Ellipsis, slice(0, m))), A.getitem(a, (Ellipsis, slice(m, None)))
    q = qr_q(left)
    r = A.concatenate([qr_r(left), LA.matmul(mT(q), right)], -1)
    return r if mode == "r" else QRResult(q, r)


def _uplo(UPLO):
    uplo = str(UPLO).upper()
    if uplo not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return uplo


def eigh(a, UPLO="L"):
    """EighResult(w, V) of the symmetric matrix in a's UPLO triangle: dw = diag(VᵀdSV),
    dV = V(F ∘ VᵀdSV) with F_ij = 1/(w_j − w_i), dS the symmetric matrix of that triangle of
    dA.  Defined at distinct eigenvalues (the eigenvectors' derivative is infinite at a
    repeated one).  Eigenvector signs are LAPACK's, locally constant."""
    a, uplo = _as_array(a), _uplo(UPLO)
    LA._square(a, "linalg.eigh")
    s = from_triangle(a, uplo == "L")
    return EighResult(eig_values(s, True, uplo), eig_vectors(s, uplo))


def eigvalsh(a, UPLO="L"):
    """The eigenvalues of eigh(a, UPLO), ascending: dwᵢ = vᵢᵀ·dS·vᵢ."""
    a, uplo = _as_array(a), _uplo(UPLO)
    LA._square(a, "linalg.eigvalsh")
    return eig_values(from_triangle(a, uplo == "L"), False, uplo)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy's svd: (U, s, Vᵀ), or s with compute_uv=False.  ds = diag(UᵀdAV); dU and dVᵀ in
    factorizations, defined at distinct nonzero singular values.  full_matrices=True (numpy's
    default) of a non-square a: the extra columns of U (or rows of Vᵀ) are numpy's basis of the
    complement, differentiated as a basis that turns with it but not within it
    (:func:`_complement`); hermitian=True as numpy computes it, from eigh."""
    a = _as_array(a)
    if hermitian:
        return _svd_hermitian(a, compute_uv)
    if _ndim(a) < 2:
        return np.linalg.svd(strip(a))                  # numpy's own error
    if not compute_uv:
        return singular_values(a, False)
    m, n = A.shape(a)[-2:]
    u, vt = svd_u(a), svd_vt(a)
    if full_matrices and m != n:
        full = np.linalg.svd(strip(a), full_matrices=True)
        k = min(m, n)
        if m > n:
            u = A.concatenate([u, _complement(u, full.U[..., :, k:])], -1)
        else:
            vt = A.concatenate([vt, mT(_complement(mT(vt), mT(full.Vh[..., k:, :])))], -2)
    return SVDResult(u, singular_values(a, True), vt)


def _complement(u1, q2):
    """An orthonormal basis of the complement of u1's columns that follows u1: numpy's q2 at
    the point, and around it E = B·L⁻ᵀ, B = (I − u1u1ᵀ)q2 and LLᵀ = BᵀB (Gram–Schmidt of the
    projected q2), smooth in u1 to every order.  At the point dE = −u1·du1ᵀ·q2: no rotation
    within the complement (which no derivative can fix: any basis of it is numpy's answer)."""
    b = q2 - LA.matmul(u1, LA.matmul(mT(u1), q2))
    e = mT(LA.solve(cholesky_factor(LA.matmul(mT(b), b)), mT(b)))
    return q2 + (e - strip(e))          # numpy's columns, e's derivatives


def _svd_hermitian(a, compute_uv):
    """numpy's hermitian svd: the eigenvalues' absolute values in decreasing order, the signs
    moved into Vᵀ (the signs and the order are piecewise constant)."""
    if not compute_uv:
        s = np.abs(eigvalsh(a))
        return A.getitem(np.sort(s, axis=-1), (Ellipsis, slice(None, None, -1)))
    w, v = eigh(a)
    order = np.argsort(np.abs(strip(w)), axis=-1)[..., ::-1]
    signs = np.take_along_axis(np.sign(strip(w)), order, axis=-1)
    s = np.take_along_axis(np.abs(w), order, axis=-1)
    u = np.take_along_axis(v, np.broadcast_to(order[..., None, :], A.shape(v)), axis=-1)
    return SVDResult(u, s, mT(u * A.expand_dims(signs.astype(dtype_of(a)), -2)))


def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """A⁺ at full rank (dX = −X·dA·X + XXᵀ·dAᵀ·(I − AX) + (I − XA)·dAᵀ·XᵀX); a matrix with a
    singular value under the cutoff raises.  hermitian=True reads a's lower triangle, as
    numpy does."""
    a = _as_array(a)
    if rcond is not None and rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if hermitian:
        a = from_triangle(a, True)
    return pinv_matrix(a, rcond, bool(hermitian), rtol)


# ---- least squares -----------------------------------------------------------------------------

def _lstsq_rcond(a, rcond):
    m, n = A.shape(a)[-2:]
    eps = np.finfo(dtype_of(a)).eps
    return eps * max(m, n) if rcond is None else (eps if rcond < 0 else rcond)


def _outer(u, v):
    """u·vᵀ for vectors, or the product of matrices u·vᵀ."""
    if _ndim(u) == 1:
        return A.expand_dims(u, -1) * A.expand_dims(v, -2)
    return LA.matmul(u, mT(v))


def _lstsq_partials(x, a, b, rcond):
    """x = A⁺b at full rank: dx = −X·dA·x + XXᵀ·dAᵀ·r + (I − XA)·dAᵀ·y with X = A⁺,
    r = b − Ax, y = Xᵀx; ā = −Xᵀx̄xᵀ + r(XXᵀx̄)ᵀ + y((I − XA)x̄)ᵀ, b̄ = Xᵀx̄."""
    rc = _lstsq_rcond(a, rcond)
    mm = LA.matmul
    p = pinv_matrix(a, rc, False, np._NoValue)
    pt = mT(p)
    in_b = _Apply(lambda t: mm(p, t), lambda s: mm(pt, s))
    if rank_deficient(a, rc):                   # still linear in b: only a's map refuses

        def refuse(t):
            raise NotDifferentiableError(
                "linalg.lstsq: the matrix is rank-deficient (a singular value under "
                "rcond·s_max), where the solution jumps with the rank; regularize it (ridge: "
                "solve (AᵀA + λI)x = Aᵀb) to differentiate in it")
        return (_Apply(refuse, refuse), in_b, None)
    r, y = b - mm(a, x), mm(pt, x)

    def fwd(t):
        tt = mT(t)
        ty = mm(tt, y)
        return -mm(p, mm(t, x)) + mm(p, mm(pt, mm(tt, r))) + ty - mm(p, mm(a, ty))

    def bwd(s):
        return (-_outer(mm(pt, s), x) + _outer(r, mm(p, mm(pt, s)))
                + _outer(y, s - mm(p, mm(a, s))))
    return (_Apply(fwd, bwd), in_b, None)


_lstsq_x = _primitive("lstsq_solution", lambda a, b, rcond: np.linalg.lstsq(a, b, rcond)[0],
                      _lstsq_partials, True)


def lstsq(a, b, rcond=None):
    """numpy's (x, residuals, rank, s): x = A⁺b, differentiable in b always and in a at full
    rank (in a rank-deficient a it raises), the residuals ‖b − Ax‖² and the singular values s
    derived from it, rank plain."""
    a, b = _as_array(a), _as_array(b)
    x0, res0, rank, _ = np.linalg.lstsq(strip(a), strip(b), rcond)   # numpy's checks, its rank
    x = _lstsq_x(a, b, rcond)
    res = res0
    if np.size(res0):
        r = b - LA.matmul(a, x)
        res = A.reshape(A.sum(r * r, 0), np.shape(res0))
    return x, res, rank, singular_values(a, False)


# ---- norm ---------------------------------------------------------------------------------------

def norm(x, ord=None, axis=None, keepdims=False):
    """numpy's norm, every ord and axis: vectors ‖x‖_p = (Σ|xᵢ|ᵖ)^(1/p), max or min |xᵢ| for ±inf,
    the count of nonzeros for 0 (no derivative); matrices 'fro', ±1 and ±inf (column and row
    sums of |A|), and 2, −2, 'nuc' (the largest, the smallest and the sum of the singular
    values: ∂‖A‖₂ = u₁v₁ᵀ, ∂‖A‖_* = UVᵀ, at distinct nonzero singular values).  At a tie of the
    max or min, the derivative is shared as amax shares it."""
    x = _as_array(x)
    nd = _ndim(x)
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            r = np.sqrt(A.sum(x * x))
            return A.reshape(r, (1,) * nd) if keepdims else r
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        return _vector_norm(x, ord, axis[0], keepdims)
    if len(axis) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = (_axis_index(i, nd) for i in axis)
    if row == col:
        raise ValueError("Duplicate axes given.")
    r = _matrix_norm(x, ord, row, col)
    if keepdims:
        shp = list(A.shape(x))
        shp[row] = shp[col] = 1
        r = A.reshape(r, tuple(shp))
    return r


def _axis_index(i, nd):
    if not -nd <= i < nd:
        raise np.exceptions.AxisError(i, nd)
    return i % nd


def _vector_norm(x, ord, ax, keepdims):
    if ord == np.inf:
        return A.amax(np.abs(x), ax, keepdims)
    if ord == -np.inf:
        return A.amin(np.abs(x), ax, keepdims)
    if ord == 0:                                   # a count: piecewise constant
        return np.linalg.norm(strip(x), 0, ax, keepdims)
    if ord == 1:
        return A.sum(np.abs(x), ax, keepdims)
    if ord is None or ord == 2:
        return np.sqrt(A.sum(x * x, ax, keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    p = float(ord)
    return A.sum(np.abs(x) ** p, ax, keepdims) ** (1.0 / p)


def _matrix_norm(x, ord, row, col):
    if ord in (2, -2, "nuc"):
        rest = [i for i in range(_ndim(x)) if i not in (row, col)]
        s = singular_values(A.transpose(x, tuple(rest) + (row, col)), False)
        return A.amax(s, -1) if ord == 2 else (A.amin(s, -1) if ord == -2 else A.sum(s, -1))
    if ord in (1, -1):
        sums = A.sum(np.abs(x), row)
        c = col - (col > row)
        return A.amax(sums, c) if ord == 1 else A.amin(sums, c)
    if ord in (np.inf, -np.inf):
        sums = A.sum(np.abs(x), col)
        r = row - (row > col)
        return A.amax(sums, r) if ord == np.inf else A.amin(sums, r)
    if ord in (None, "fro", "f"):
        return np.sqrt(A.sum(x * x, (row, col)))
    raise ValueError("Invalid norm order for matrices.")


# ---- powers and chains --------------------------------------------------------------------------

def matrix_power(a, n):
    """aⁿ by repeated squaring with dvlad's matmul (n < 0: of inv(a)); a⁰ = I, a constant."""
    a = _as_array(a)
    LA._square(a, "linalg.matrix_power")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        return np.broadcast_to(np.eye(A.shape(a)[-1], dtype=dtype_of(a)), A.shape(a)).copy()
    if n < 0:
        a, n = LA.inv(a), -n
    if n <= 3:
        r = a
        for _ in range(n - 1):
            r = LA.matmul(r, a)
        return r
    z = result = None
    while n > 0:
        z = a if z is None else LA.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else LA.matmul(result, z)
    return result


def multi_dot(arrays, *, out=None):
    """A₁·A₂·…·Aₖ in the cheapest order (the matrix-chain recurrence), as numpy's: a 1-d first
    (last) array is a row (column) vector."""
    _plain("multi_dot", out=out)
    xs = [_as_array(x) for x in arrays]
    if len(xs) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(xs) == 2:
        return LA.dot(xs[0], xs[1])
    first, last = _ndim(xs[0]), _ndim(xs[-1])
    if first == 1:
        xs[0] = A.reshape(xs[0], (1, -1))
    if last == 1:
        xs[-1] = A.reshape(xs[-1], (-1, 1))
    if any(_ndim(x) != 2 for x in xs):
        raise ValueError("multi_dot: the arrays between the first and last must be 2-d")
    dims = [A.shape(x)[0] for x in xs] + [A.shape(xs[-1])[1]]
    cost, split = {(i, i): 0 for i in range(len(xs))}, {}
    for length in range(1, len(xs)):
        for i in range(len(xs) - length):
            j = i + length
            cost[i, j], split[i, j] = min((cost[i, k] + cost[k + 1, j]
                                           + dims[i] * dims[k + 1] * dims[j + 1], k)
                                          for k in range(i, j))

    def chain(i, j):
        return xs[i] if i == j else LA.matmul(chain(i, split[i, j]), chain(split[i, j] + 1, j))
    r = chain(0, len(xs) - 1)
    if first == 1 and last == 1:
        return A.getitem(r, (0, 0))
    return A.reshape(r, (-1,)) if first == 1 or last == 1 else r


FUNCTIONS = {
    np.linalg.cholesky: cholesky, np.linalg.qr: qr, np.linalg.eigh: eigh,
    np.linalg.eigvalsh: eigvalsh, np.linalg.svd: svd, np.linalg.pinv: pinv,
    np.linalg.lstsq: lstsq, np.linalg.norm: norm, np.linalg.matrix_power: matrix_power,
    np.linalg.multi_dot: multi_dot, **EIG_FUNCTIONS,
}
