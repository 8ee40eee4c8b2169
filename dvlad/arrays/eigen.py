"""numpy's eig and eigvals of a nonsymmetric matrix with real eigenvalues, as array primitives.

A = V·diag(w)·V⁻¹, the columns vᵢ of V of unit 2-norm (numpy's normalization).  Differentiating
A·V = V·diag(w) with P = V⁻¹·dA·V gives, at distinct eigenvalues,

- dw = diag(P), and Ā = V⁻ᵀ·diag(w̄)·Vᵀ;
- dV = N(V·(F ∘ P)) with F_ij = 1/(w_j − w_i) off the diagonal, 0 on it, and
  N(X) = X − V·diag(vᵢᵀxᵢ) removing each column's component along its own vᵢ (so that
  ‖vᵢ‖ = 1 is kept); N is its own transpose, so Ā = V⁻ᵀ·(F ∘ Vᵀ·N(V̄))·Vᵀ.

Each output is one primitive whose maps are written with the other output and V⁻¹, computed one
level down with dvlad's operations, so the maps nest like eigh's (factorizations.py).  At a
repeated eigenvalue F is infinite and the eigenvectors have no derivative.  The order of the
eigenvalues and the signs of the eigenvectors are LAPACK's (numpy's), locally constant: the
derivative is that of the w and V numpy returns.

dvlad's numbers are real.  numpy returns complex arrays when an eigenvalue has a nonzero
imaginary part; then these raise ``NotDifferentiableError`` rather than drop the imaginary part.
"""
import numpy as np

from . import linalg as LA
from . import primitives as A
from .factorizations import _gaps, _row, factored, mT
from .primitives import _Apply, _primitive
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS", "eig", "eigvals", "eig_w", "eig_v"]

_results = getattr(np.linalg, "_linalg", None) or np.linalg.linalg
EigResult = _results.EigResult


def _complex_error(fn):
    return NotDifferentiableError(
        f"numpy.linalg.{fn}: the matrix has complex eigenvalues (numpy returns a complex "
        f"array), and dvlad's numbers are real, so their derivative cannot be carried. For a "
        f"symmetric matrix use np.linalg.eigh (or eigvalsh), whose eigenvalues are real; "
        f"otherwise differentiate a real quantity that does not need the eigenvalues "
        f"(np.linalg.det, np.trace of a power, a solve)")


def _eig_value(a):
    w, v = factored(np.linalg.eig, a)
    if np.iscomplexobj(w):
        raise _complex_error("eig")
    return w, v


def _eigvals_value(a):
    w = np.linalg.eigvals(a)
    if np.iscomplexobj(w):
        raise _complex_error("eigvals")
    return w


# ---- the maps -----------------------------------------------------------------------------------

def _normalized(v, x):
    """N(X) = X − V·diag(vᵢᵀxᵢ): the tangent of unit columns; symmetric, N = Nᵀ."""
    return x - v * _row(A.sum(v * x, -2))


def _value_map(v, vinv):
    """dw = diag(V⁻¹·dA·V), and Ā = V⁻ᵀ·diag(w̄)·Vᵀ."""
    return _Apply(lambda t: LA.einsum("...ij,...jk,...ki->...i", vinv, t, v),
                  lambda s: LA.matmul(mT(vinv) * _row(s), mT(v)))


def _eig_w_partials(w, a):
    v = eig_v(a)
    return (_value_map(v, LA.inv(v)),)


def _eig_v_partials(v, a):
    """dV = N(V·(F ∘ V⁻¹·dA·V)), and Ā = V⁻ᵀ·(F ∘ Vᵀ·N(V̄))·Vᵀ."""
    f, vinv = _gaps(eig_w(a)), LA.inv(v)
    mm = LA.matmul
    return (_Apply(lambda t: _normalized(v, mm(v, f * mm(vinv, mm(t, v)))),
                   lambda s: mm(mT(vinv), mm(f * mm(mT(v), _normalized(v, s)), mT(v)))),)


def _eigvals_partials(w, a):
    """eig's map of the eigenvalues, with V's columns in eigvals' order (the same order as
    eig's in every case seen; matched to the nearest eigenvalue, should LAPACK differ)."""
    v, w_eig = eig_v(a), strip(eig_w(a))
    order = np.argmin(np.abs(strip(w)[..., :, None] - w_eig[..., None, :]), -1)
    if np.any(order != np.arange(A.shape(w)[-1])):
        v = np.take_along_axis(v, np.broadcast_to(order[..., None, :], A.shape(v)), -1)
    return (_value_map(v, LA.inv(v)),)


eig_w = _primitive("eig_w", lambda a: _eig_value(a)[0], _eig_w_partials, True)
eig_v = _primitive("eig_v", lambda a: _eig_value(a)[1], _eig_v_partials, True)
_eigvals = _primitive("eigvals", _eigvals_value, _eigvals_partials, True)


# ---- numpy's signatures -------------------------------------------------------------------------

def eig(a):
    """EigResult(w, V) with A·V = V·diag(w), ‖vᵢ‖ = 1, of a matrix (or stack) whose eigenvalues
    are real: dw = diag(V⁻¹·dA·V), dV = N(V·(F ∘ V⁻¹·dA·V)), F_ij = 1/(w_j − w_i).  Defined at
    distinct eigenvalues; complex eigenvalues raise NotDifferentiableError (use eigh for a
    symmetric matrix).  A plain array gets numpy's own result.  ∂wᵢ/∂A = uᵢvᵢᵀ/(uᵢᵀvᵢ), uᵢ a left
    eigenvector (the row i of V⁻¹): for w = 3 below, u = (0, 1), v = (1, 1)/√2.

    >>> import dvlad
    >>> dvlad.gradient_r(lambda a: np.linalg.eig(a)[0][1])(np.array([[1.0, 2.0], [0.0, 3.0]]))
    array([[0., 0.],
           [1., 1.]])
    """
    if not isinstance(a, ADNumber):
        return np.linalg.eig(a)
    LA._square(a, "linalg.eig")
    return EigResult(eig_w(a), eig_v(a))


def eigvals(a):
    """numpy's eigvals of a matrix (or stack) with real eigenvalues: dwᵢ = (V⁻¹·dA·V)ᵢᵢ.
    Complex eigenvalues raise NotDifferentiableError; a plain array gets numpy's result."""
    if not isinstance(a, ADNumber):
        return np.linalg.eigvals(a)
    LA._square(a, "linalg.eigvals")
    return _eigvals(a)


FUNCTIONS = {np.linalg.eig: eig, np.linalg.eigvals: eigvals}
