"""First-order value paths of triangular linear algebra by BLAS and LAPACK routines called
where the arrays lie (no column-major copies): the triangular solve of cholesky's, qr's and
tri_solve's derivatives (trsm), and cholesky's whole reverse rule L⁻ᵀ·sym(Φ(Lᵀ·L̄))·L⁻¹ (trmm,
then sygst).  Each applies to plain float64/float32 arrays only and answers None otherwise —
dvlad numbers, where the rules' own overloaded operations run (and nest), other types, scipy
absent, the reference path (``DVLAD_REFERENCE=1``, which checks these against those).  Inside
dvlad.compile's trace cholesky's rule is recorded as one call, so a replay takes this path too.
"""
import functools

import numpy as np

from ..core import pool
from ..core.pool import TRACING
from ..core.switch import REFERENCE

__all__ = ["trsm", "congruence"]

_FLOATS = (np.float64, np.float32)


def _scipy():
    try:
        from scipy.linalg import blas, lapack
    except ImportError:
        return None, None
    return blas, lapack


def trsm(a, b, lower):
    """T⁻¹b for 2-d float64 (float32) arrays by BLAS's trsm, reading each operand where it lies:
    a row-major array is its transpose in column-major order, so a row-major b is solved as
    Xᵀ = bᵀ·T⁻ᵀ (a right-hand solve), a column-major one as T·X = b, and a row-major a is
    passed as aᵀ with the transpose flag (cholesky's derivatives solve with Lᵀ, a view).  Only
    b is copied (scipy copies both: 20–35 % slower at n = 50…1000).  None for other types or
    layouts, scipy absent, a zero on T's diagonal (scipy raises), the reference path."""
    if REFERENCE or type(a) is not np.ndarray or type(b) is not np.ndarray \
            or a.dtype != b.dtype or a.dtype not in _FLOATS \
            or 0 in b.shape or not (a.flags.c_contiguous or a.flags.f_contiguous) \
            or not (b.flags.c_contiguous or b.flags.f_contiguous):
        return None
    blas = _scipy()[0]
    if blas is None or not np.all(np.diagonal(a)):
        return None
    trsm = blas.dtrsm if a.dtype == np.float64 else blas.strsm
    column = a.flags.f_contiguous           # A, column-major: a itself, or aᵀ (then T is op(A)ᵀ)
    m, tri_lower = (a, lower) if column else (a.T, not lower)
    if b.flags.c_contiguous:                # Xᵀ·Tᵀ = bᵀ: op(A) = Tᵀ
        return trsm(1.0, m, b.T, side=1, lower=int(tri_lower), trans_a=int(column)).T
    return trsm(1.0, m, b, side=0, lower=int(tri_lower), trans_a=int(not column))


def congruence(l, s, phi):
    """Ā = L⁻ᵀ·sym(M)·L⁻¹, M = Φ(Lᵀ·L̄): cholesky's reverse rule for a plain (or traced) lower
    triangle l, n ≥ 64, cotangent s of its shape and dtype; else None."""
    if REFERENCE or not isinstance(l, np.ndarray) or not isinstance(s, np.ndarray) \
            or l.ndim != 2 or l.shape[0] < 64 or s.shape != l.shape or l.dtype != s.dtype \
            or l.dtype not in _FLOATS or _scipy()[1] is None:
        return None
    if type(l) is np.ndarray and type(s) is np.ndarray:
        return _congruence(l, s, phi)
    if TRACING[0] and pool.tracing():               # dvlad.compile: one recorded call
        for a in (l, s):
            if hasattr(type(a), "_dvlad_call"):
                return a._dvlad_call("chol_congruence", _congruence, (l, s, phi))
    return None


def _congruence(l, s, phi):
    """LᵀL̄ by trmm (L triangular: half a product's flops), Φ, then LAPACK's sygst, which forms
    inv(L′)·S·inv(L′ᵀ) for a symmetric S in the flops of one triangular solve; J reversing rows
    and columns, L⁻ᵀSL⁻¹ = J·inv(L′)·(JSJ)·inv(L′ᵀ)·J with L′ = JLᵀJ lower.  25–40 % faster than
    two triangular solves at n = 200…1000."""
    blas, lapack = _scipy()
    f64 = l.dtype == np.float64
    ltl = (blas.dtrmm if f64 else blas.strmm)(1.0, l.T, s.T, side=1, lower=0, trans_a=1)
    m = ltl.T * phi                                 # (L̄ᵀL)ᵀ = LᵀL̄, its Φ
    a = m[::-1, ::-1] + m.T[::-1, ::-1]            # J·sym(M)·J, symmetric: row- = column-major
    a *= 0.5
    lj = l[::-1, ::-1].copy()                       # J·L·J row-major: L′ column-major
    c, info = (lapack.dsygst if f64 else lapack.ssygst)(a.T, lj.T, itype=1, lower=1,
                                                          overwrite_a=1)
    if info:                                        # (an argument LAPACK refused: not met)
        raise np.linalg.LinAlgError(f"sygst failed (info {info})")
    w = c[::-1, ::-1]                               # J·(its lower triangle)·J: W's upper one
    return np.where(_upper(l.shape[0]), w, w.T)


@functools.lru_cache(maxsize=8)
def _upper(n):
    """(n, n) booleans, the upper triangle with its diagonal (read-only, kept per n)."""
    m = ~np.tri(n, n, -1, dtype=bool)
    m.flags.writeable = False
    return m
