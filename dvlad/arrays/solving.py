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

A general float64 matrix (n ≥ 64, scipy installed) is factored once, by LU, and the factors are
kept for the next solves with it or its transpose: ``slogdet(K)`` then ``solve(K, y)`` (a
Gaussian process's likelihood), the tangents ``solve(K, t)`` of forward mode and the reverse
sweep's ``solve(Kᵀ, x̄)`` each cost O(n²) instead of a factorization, and ``inv(K)`` (slogdet's
reverse rule) two triangular solves.  The factors are used only
for a matrix equal, element for element, to a private copy taken when it was factored (so an
array written into since is factored afresh, never solved with stale factors), and only for
that array, its views and its transpose.  The last two factorizations are kept, and dropped
with their array.
"""
import warnings
import weakref

import numpy as np

from ..core.base import TRACED
from ..core.switch import REFERENCE

__all__ = ["solve_value", "inverse_value", "slogdet_value"]

_SMALLEST = 24          # below this LU costs about as much as looking for the triangle


def _triangle(a):
    """True if a (square, 2-d) is lower triangular, False if upper, None if neither."""
    n = a.shape[0]
    upper = _strictly_upper(n)              # (a gather by a kept mask: a third of np.triu's time;
    if a[0, n - 1] == 0 and not np.any(a[upper]):           # a corner rules out a triangle)
        return True
    if a[n - 1, 0] == 0 and not np.any(a[upper.T]):
        return False
    return None


_MASKS = {}             # n -> the boolean mask of the strictly upper triangle, for the last few n


def _strictly_upper(n):
    mask = _MASKS.get(n)
    if mask is None:
        if len(_MASKS) >= 4:
            _MASKS.clear()
        mask = _MASKS[n] = np.triu(np.ones((n, n), bool), 1)
    return mask


def _recorded(fn, args):
    """fn(*args) as one operation of dvlad.compile's trace where an argument is a traced array
    (so that a replay, too, substitutes and keeps factors), else None."""
    for a in args:
        t = type(a)
        if t is not np.ndarray and isinstance(a, np.ndarray) and any(
                k.__dict__.get("_dvlad_family") is TRACED for k in t.__mro__):
            return t.__array_function__(a, fn, (t,), args, {})
    return None


def solve_value(a, b):
    """np.linalg.solve(a, b), by substitution when a is triangular (see the module docstring)."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        r = _recorded(solve_value, (a, b))
        if r is not None:
            return r
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
            x = solve_triangular(a, b, lower=lower, check_finite=False)
            if np.isfinite(x).all():    # (else numpy's LU, whose nan and inf go elsewhere)
                return x.astype(dtype, copy=False)
    if _factorable(a) and type(b) is np.ndarray and b.ndim in (1, 2) and b.shape[0] == n \
            and b.dtype == np.float64:
        lu, trans = _factors(a)
        if lu is not None:
            from scipy.linalg import lu_solve
            return lu_solve(lu, b, trans=trans, check_finite=False)
    return np.linalg.solve(a, b)


# ---- LU factors kept for the next solve with the same matrix ----------------------------------

_FACTORABLE = 64        # below this a factorization costs less than keeping it
_KEPT = []              # [(weakref to the array, its copy, (lu, piv))], newest first, at most 2


def _factorable(a):
    if REFERENCE or type(a) is not np.ndarray or a.ndim != 2 or a.dtype != np.float64:
        return False
    n = a.shape[0]
    if n < _FACTORABLE or a.shape[1] != n:
        return False
    if not _SCIPY:                      # (looked for once, when first needed)
        try:
            from scipy.linalg import lu_factor
            _SCIPY.append(callable(lu_factor))
        except ImportError:
            _SCIPY.append(False)
    return _SCIPY[0]


_SCIPY = []


def _root(a):
    return a if a.base is None else a.base


def _factors(a):
    """((lu, piv), trans) for the square float64 matrix a: kept factors of a (trans 0) or of aᵀ
    (trans 1), else a's new ones (kept); (None, 0) where LU does not apply (a singular or
    non-finite a: numpy's solve then raises or propagates as it does)."""
    root = _root(a)
    for ref, copy, lu in _KEPT:
        kept = ref()
        if kept is None or _root(kept) is not root or copy.shape != a.shape:
            continue
        if np.array_equal(a, copy):
            return lu, 0
        if np.array_equal(a.T, copy) and _clear_of_zero(lu[0]):
            return lu, 1        # (near a zero pivot, aᵀ's own LU may find it exactly: numpy's)
    if not np.isfinite(a).all():
        return None, 0
    from scipy.linalg import LinAlgWarning, lu_factor
    with warnings.catch_warnings():             # (singular: numpy's error or sign 0, below)
        warnings.simplefilter("ignore", LinAlgWarning)
        lu = lu_factor(a, check_finite=False)
    if not np.all(np.diagonal(lu[0])):
        return None, 0                  # singular: numpy's LinAlgError, or its sign 0
    _KEPT[:] = [(weakref.ref(a, _forget), a.copy(), lu)] + [
        e for e in _KEPT if e[0]() is not None and _root(e[0]()) is not root][:1]
    return lu, 0


def _clear_of_zero(lu):
    """Whether every pivot of an LU is well away from zero (n·ε of the largest): the factors of
    a then serve aᵀ as numpy's own factorization of aᵀ would, singular or not."""
    d = np.abs(np.diagonal(lu))
    return bool(d.min() > lu.shape[0] * np.finfo(lu.dtype).eps * d.max())


def _forget(ref):
    _KEPT[:] = [e for e in _KEPT if e[0] is not ref]


def inverse_value(a):
    """np.linalg.inv(a), from a's kept LU factors where they apply (slogdet's reverse rule takes
    K⁻¹ of the K it factored: two triangular solves, not a new factorization)."""
    if type(a) is not np.ndarray:
        r = _recorded(inverse_value, (a,))
        if r is not None:
            return r
    if _factorable(a):
        lu, trans = _factors(a)
        if lu is not None:
            inv = _inverse_of_factors(lu, a.shape[0])
            if inv is not None:                 # C order, as numpy's inv gives it
                return inv.T if trans else np.ascontiguousarray(inv)
    return np.linalg.inv(a)


def _inverse_of_factors(lu, n):
    """(PLU)⁻¹ by LAPACK's getri with its best workspace (half the time of solving for the n
    columns of I, at n = 200 and 1000), in Fortran order; None if getri reports a zero pivot."""
    from scipy.linalg.lapack import dgetri, dgetri_lwork
    lwork = _LWORK.get(n)
    if lwork is None:
        lwork = _LWORK[n] = max(1, int(dgetri_lwork(n)[0]))
    inv, info = dgetri(lu[0], lu[1], lwork=lwork)
    return inv if info == 0 else None


_LWORK = {}


def slogdet_value(a):
    """np.linalg.slogdet(a) as a pair, from a's LU factors where they apply (kept for the
    solves that follow)."""
    if type(a) is not np.ndarray:
        r = _recorded(slogdet_value, (a,))
        if r is not None:
            return r
    kept = _factored_slogdet(a)
    return tuple(np.linalg.slogdet(a)) if kept is None else kept


def _factored_slogdet(a):
    if not _factorable(a):
        return None
    factors, _ = _factors(a)
    if factors is None:
        return None
    lu, piv = factors
    d = np.diagonal(lu)
    flips = np.count_nonzero(piv != np.arange(len(piv))) + np.count_nonzero(d < 0)
    return np.float64(-1.0 if flips % 2 else 1.0), np.sum(np.log(np.abs(d)))


# dvlad.compile records each as one operation of numpy's linear algebra: one that may raise
# (a singular matrix), which a replay runs even where nothing reads its result
for _f in (solve_value, inverse_value, slogdet_value):
    _f.__module__ = "dvlad.arrays.linalg"
