"""numpy.linalg's array-API functions (cross, outer, trace, matmul, tensordot, vecdot, diagonal,
svdvals, matrix_norm, vector_norm) and cond, tensorinv, tensorsolve, each delegating to
dvlad's handler of the older numpy function it restates, so that every mode and nesting comes
from those.

Each takes numpy's signature; numpy's checks (3-vectors for cross, 1-d operands for outer)
raise numpy's errors; a keyword that would change the value raises NotDifferentiableError.
"""
import numpy as np

from . import decompositions as D
from . import linalg as LA
from . import primitives as A
from .composite import _as_array, _diagonal, _ndim
from .products import _cross, _same_dtype
from .ufuncs import vecdot

__all__ = ["FUNCTIONS"]


def cross(x1, x2, /, *, axis=-1):
    """x1 × x2 along ``axis``, 3-vectors only."""
    x1, x2 = _as_array(x1), _as_array(x2)
    n1, n2 = A.shape(x1)[axis], A.shape(x2)[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {n1} and {n2} dimensional instead.")
    return _cross(x1, x2, axis=axis)


def outer(x1, x2, /):
    """x1 x2ᵀ of two vectors."""
    x1, x2 = _as_array(x1), _as_array(x2)
    if _ndim(x1) != 1 or _ndim(x2) != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={_ndim(x1)} and x2.ndim={_ndim(x2)}.")
    return LA.outer(x1, x2)


def trace(x, /, *, offset=0, dtype=None):
    """Σᵢ x[..., i, i + offset] over the last two axes."""
    _same_dtype("linalg.trace", x, dtype)
    return LA.trace(_as_array(x), offset, -2, -1)


def diagonal(x, /, *, offset=0):
    """x[..., i, i + offset] over the last two axes."""
    return _diagonal(_as_array(x), offset, -2, -1)


def svdvals(x, /):
    """The singular values, descending (svd's, compute_uv=False)."""
    return D.svd(_as_array(x), compute_uv=False)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """norm(x, ord) over the last two axes."""
    return D.norm(_as_array(x), ord, (-2, -1), keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """‖x‖_ord over ``axis`` (all of them for None; several are flattened into one first)."""
    x = _as_array(x)
    shp, nd = A.shape(x), _ndim(x)
    axes = tuple(range(nd)) if axis is None else tuple(
        a % nd for a in (axis if isinstance(axis, tuple) else (axis,)))
    rest = [k for k in range(nd) if k not in axes]
    if axis is None:
        r = D.norm(A.reshape(x, (-1,)), ord, 0)
    elif len(axes) > 1:
        r = D.norm(A.reshape(A.transpose(x, axes + tuple(rest)), (int(np.prod(
            [shp[k] for k in axes])),) + tuple(shp[k] for k in rest)), ord, 0)
    else:
        r = D.norm(x, ord, axes[0])
    if keepdims:
        r = A.reshape(r, tuple(1 if k in axes else shp[k] for k in range(nd)))
    return r


def cond(x, p=None):
    """σ_max/σ_min (p None or 2), σ_min/σ_max (p = −2), else ‖x‖_p·‖x⁻¹‖_p."""
    x = _as_array(x)
    if p is None or p == 2 or p == -2:
        s = D.svd(x, compute_uv=False)
        big, small = A.getitem(s, (Ellipsis, 0)), A.getitem(s, (Ellipsis, -1))
        return small / big if p == -2 else big / small
    return D.norm(x, p, (-2, -1)) * D.norm(LA.inv(x), p, (-2, -1))


def tensorinv(a, ind=2):
    """The inverse of a read as a matrix (its first ``ind`` axes the rows)."""
    a = _as_array(a)
    shp = A.shape(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows = int(np.prod(shp[:ind]))
    inv = LA.inv(A.reshape(a, (rows, -1)))
    return A.reshape(inv, shp[ind:] + shp[:ind])


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) = b: a read as a square matrix, one solve."""
    a, b = _as_array(a), _as_array(b)
    an = _ndim(a)
    if axes is not None:
        order = [k for k in range(an) if k not in [ax % an for ax in axes]] + \
            [ax % an for ax in axes]
        a = A.transpose(a, tuple(order))
    oldshape = A.shape(a)[-(an - _ndim(b)):]
    n = int(np.prod(oldshape))
    if int(np.prod(A.shape(a))) != n * n:
        raise np.linalg.LinAlgError("Input arrays must satisfy the requirement "
                                    "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = LA.solve(A.reshape(a, (n, n)), A.reshape(b, (-1,)))
    return A.reshape(x, oldshape)


FUNCTIONS = {
    np.linalg.cross: cross, np.linalg.outer: outer, np.linalg.trace: trace,
    np.linalg.matmul: lambda x1, x2, /: LA.matmul(x1, x2),
    np.linalg.tensordot: lambda x1, x2, /, *, axes=2: LA.tensordot(x1, x2, axes),
    np.linalg.vecdot: vecdot, np.linalg.diagonal: diagonal, np.linalg.svdvals: svdvals,
    np.linalg.matrix_norm: matrix_norm, np.linalg.vector_norm: vector_norm,
    np.linalg.cond: cond, np.linalg.tensorinv: tensorinv, np.linalg.tensorsolve: tensorsolve,
}
