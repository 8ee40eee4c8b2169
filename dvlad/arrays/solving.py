"""The value of ``np.linalg.solve(a, b)`` as dvlad computes it: numpy's, except that a square
``a`` that is triangular (a Cholesky factor and its transpose, as in ``solve(L.T, solve(L, y))``)
is solved by substitution, O(n²) per right-hand side, instead of by an LU factorization, O(n³).

Research code often writes ``np.linalg.solve`` where it holds a triangle; so does a reverse
sweep (``solve(aᵀ, x̄)`` for a triangular ``a``).  Finding the triangle costs one pass over
``a``'s other half (often one element: ``a[0, -1]`` of a full matrix).  The result is the
substitution's, which is backward stable like LU's; it may differ from numpy's LU in the
last bits.  Without scipy, or for stacks, small matrices, a zero on the diagonal (numpy's
LinAlgError then) and non-float dtypes, numpy's ``solve`` as it is; so on the reference path
(``DVLAD_REFERENCE=1``), which every test then checks against LU.
"""
import numpy as np

from ..core.switch import REFERENCE

__all__ = ["solve_value"]

_SMALLEST = 24          # below this LU costs about as much as looking for the triangle


def _triangle(a):
    """True if a (square, 2-d) is lower triangular, False if upper, None if neither."""
    if not np.any(np.triu(a, 1)):
        return True
    if not np.any(np.tril(a, -1)):
        return False
    return None


def solve_value(a, b):
    """np.linalg.solve(a, b), by substitution when a is triangular (see the module docstring)."""
    n = a.shape[-1]
    if not REFERENCE and type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 \
            and n >= _SMALLEST \
            and b.ndim in (1, 2) and a.shape[0] == n and b.shape[0] == n \
            and a.dtype.kind == "f" and b.dtype.kind in "fiub" \
            and (a[0, n - 1] == 0 or a[n - 1, 0] == 0):
        lower = _triangle(a)
        if lower is not None and np.all(np.diagonal(a)):
            try:
                from scipy.linalg import solve_triangular
            except ImportError:
                return np.linalg.solve(a, b)
            dtype = np.result_type(a, b)
            return solve_triangular(a, b, lower=lower, check_finite=False).astype(dtype,
                                                                                copy=False)
    return np.linalg.solve(a, b)
