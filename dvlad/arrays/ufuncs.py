"""Handlers of numpy ufuncs that are not rows of the rule table: heaviside, fmod, modf,
divmod, frexp, spacing, nextafter, and numpy 2's vecdot, matvec, vecmat (real numbers: no
conjugate).  ``UFUNCS`` maps each ufunc to its handler, for the protocol's ufunc table.

A piecewise-constant part (a quotient, an exponent, a step) is computed by numpy on the primals
and a linear part carries the derivative (x − primal(x) is 0 in value, dx in derivative), so
the values are numpy's exactly and every mode and nesting comes from subtraction and products.
"""
import numpy as np

from . import linalg as LA
from . import primitives as A
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["UFUNCS", "vecdot", "matvec", "vecmat"]


def _p(a):
    return np.asarray(strip(a))


def vecdot(x1, x2, /, *, axis=-1):
    """Σₖ x1[..., k]·x2[..., k] along ``axis``, the other axes broadcast."""
    return A.sum(x1 * x2, axis)


def matvec(x1, x2, /):
    """(A·v)ᵢ = Σₖ Aᵢₖvₖ over the last axes, the others broadcast."""
    return A.getitem(LA.matmul(x1, A.expand_dims(x2, -1)), (Ellipsis, 0))


def vecmat(x1, x2, /):
    """(vᵀ·A)ⱼ = Σₖ vₖAₖⱼ over the last axes, the others broadcast."""
    return A.getitem(LA.matmul(A.expand_dims(x1, -2), x2), (Ellipsis, 0, slice(None)))


# ---- ufuncs: numpy's values, a linear part for the derivative ------------------------------------

def _moved(x):
    """x − primal(x): 0 in value, dx in derivative (0 for a plain x)."""
    return x - strip(x) if isinstance(x, ADNumber) else 0.0


def _heaviside(x1, x2):
    """0 for x1 < 0, x2 at x1 = 0, 1 for x1 > 0: a step in x1 (derivative 0 off 0), x2 where
    x1 is 0."""
    p1 = _p(x1)
    return A.where(p1 == 0, x2, np.heaviside(p1, _p(x2)))


def _fmod(x1, x2):
    """x1 − x2·trunc(x1/x2) (C's fmod): ∂/∂x1 = 1, ∂/∂x2 = −trunc(x1/x2)."""
    p1, p2 = _p(x1), _p(x2)
    r = np.fmod(p1, p2)
    quotient = np.round((p1 - r) / p2)
    return r + _moved(x1) - _moved(x2) * quotient


def _modf(x):
    """(x − trunc(x), trunc(x)): the fractional part moves with x, the integral part is
    piecewise constant."""
    frac, whole = np.modf(_p(x))
    return frac + _moved(x), whole


def _divmod(x1, x2):
    return np.floor_divide(_p(x1), _p(x2)), np.remainder(x1, x2)


def _frexp(x):
    """(m, e) with x = m·2ᵉ: dm = dx·2⁻ᵉ, e piecewise constant."""
    m, e = np.frexp(_p(x))
    return m + _moved(x) * np.ldexp(np.ones_like(m), -e), e


def _nextafter(x1, x2):
    """The next float after x1 towards x2: x1 moved by one ulp, so dx1 passes (x2 only picks
    the direction)."""
    return np.nextafter(_p(x1), _p(x2)) + _moved(x1)


def _ldexp(x1, x2):
    """x1·2^x2 for integer x2 (exact): d = dx1·2^x2."""
    if isinstance(x2, ADNumber):
        raise NotDifferentiableError("np.ldexp(x1, x2): x2 is an integer exponent; dvlad "
                                     "differentiates in x1")
    return x1 * np.ldexp(np.ones_like(_p(x1), dtype=np.result_type(_p(x1), np.float16)), x2)


UFUNCS = {
    np.ldexp: _ldexp, np.heaviside: _heaviside, np.fmod: _fmod, np.modf: _modf, np.divmod: _divmod,
    np.frexp: _frexp, np.spacing: lambda x: np.spacing(_p(x)), np.nextafter: _nextafter,
    np.vecdot: vecdot, np.matvec: matvec, np.vecmat: vecmat,
    np._core.umath.clip: lambda x, lo, hi: A.clip(x, lo, hi),     # (plain x.clip(min=tracked))
}

