"""scipy.linalg's matrix functions as dvlad functions: sqrtm, logm, sinm, cosm, tanm, sinhm,
coshm, tanhm, fractional_matrix_power, and the Sylvester solve they lean on.

The derivative of a primary matrix function f at a, in direction e, is its Fréchet derivative
L_f(a, e), read off the block-triangular identity f([[a, e], [0, a]]) = [[f(a), L_f(a, e)],
[0, f(a)]] (Higham, *Functions of Matrices*, 2008, Theorem 3.6); the reverse map is
L_f(aᵀ, ·) (Theorem 3.9, f real on the reals).  The block is computed by the same dvlad
function, so every order nests.  sqrtm's derivative is a Sylvester equation instead,
x·dx + dx·x = da (more accurate than the 2n-block), solved by solve_sylvester, itself
differentiable: for a·x + x·b = q, dx solves a·dx + dx·b = dq − da·x − x·db, and the
transpose of q ↦ x is the solve with aᵀ and bᵀ.

Values are scipy's.  A function whose value is complex (logm or sqrtm of a matrix with a
negative eigenvalue) raises NotDifferentiableError: dvlad differentiates real matrices.  Where
f is not differentiable (sqrtm at a singular matrix, logm where a has a zero eigenvalue) the
derivative is undefined, and the values are those of the formulas above.
"""
import numpy as np

from . import primitives as A
from .factorizations import mT
from .linalg import matmul
from .primitives import _Apply, _primitive
from .scipy_linalg import block_frechet
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["solve_sylvester", "sqrtm", "logm", "sinm", "cosm", "tanm", "sinhm", "coshm",
           "tanhm", "fractional_matrix_power"]


def _scipy():
    import scipy.linalg
    return scipy.linalg


def _real(r, name):
    """scipy's value, real: a complex result whose imaginary part is more than rounding (scipy
    works in the complex Schur form) raises."""
    r = np.asarray(r)
    if np.iscomplexobj(r):
        size = np.max(np.abs(r), initial=0.0)
        if np.max(np.abs(r.imag), initial=0.0) > 1e3 * np.finfo(r.real.dtype).eps * size:
            raise NotDifferentiableError(
                f"scipy.linalg.{name}: the value is complex (the matrix has eigenvalues on the "
                f"negative real axis); dvlad differentiates real matrix functions only")
        r = r.real
    return r


def _square(a, name):
    shape = A.shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{name}: expected a square matrix, got shape {shape}")


# ---- solve_sylvester ----------------------------------------------------------------------------

def _sylvester_partials(x, a, b, q):
    at, bt = mT(a), mT(b)
    return (_Apply(lambda t: -_sylvester(a, b, matmul(t, x)),
                   lambda s: -matmul(_sylvester(at, bt, s), mT(x))),
            _Apply(lambda t: -_sylvester(a, b, matmul(x, t)),
                   lambda s: -matmul(mT(x), _sylvester(at, bt, s))),
            _Apply(lambda t: _sylvester(a, b, t), lambda s: _sylvester(at, bt, s)))


_sylvester = _primitive("sylvester", lambda a, b, q: _scipy().solve_sylvester(a, b, q),
                        _sylvester_partials, True)


def solve_sylvester(a, b, q):
    """scipy.linalg.solve_sylvester: x with a·x + x·b = q.  dx solves the same equation with
    right side dq − da·x − x·db; ā = −y·xᵀ, b̄ = −xᵀ·y, q̄ = y for y solving aᵀ·y + y·bᵀ = x̄."""
    a, b, q = (v if isinstance(v, ADNumber) else np.asarray(v) for v in (a, b, q))
    _square(a, "solve_sylvester")
    _square(b, "solve_sylvester")
    return _sylvester(a, b, q)


# ---- sqrtm --------------------------------------------------------------------------------------

def _sqrtm_partials(x, a):
    return (_Apply(lambda t: _sylvester(x, x, t), lambda s: _sylvester(mT(x), mT(x), s)),)


_sqrtm = _primitive("sqrtm", lambda a: _real(_scipy().sqrtm(a), "sqrtm"), _sqrtm_partials, True)


def sqrtm(a, disp=True, blocksize=64):
    """scipy.linalg.sqrtm: x with x·x = a (the principal root).  dx solves x·dx + dx·x = da;
    x̄ ↦ ā solves xᵀ·ā + ā·xᵀ = x̄.  With disp=False, (x, the residual's relative norm) as
    scipy's."""
    a = a if isinstance(a, ADNumber) else np.asarray(a)
    _square(a, "sqrtm")
    x = _sqrtm(a)
    if disp:
        return x
    r = strip(x)
    a0 = np.asarray(strip(a), dtype=float)
    return x, float(np.linalg.norm(r @ r - a0, "fro") ** 2 / np.linalg.norm(a0, "fro"))


# ---- primary matrix functions by the block identity ---------------------------------------------

def _matrix_function(name):
    def value(a, *params):
        return _real(getattr(_scipy(), name)(a, *params), name)

    def partials(a, *params):
        return (_Apply(lambda t: block_frechet(prim, a, t, *params),
                       lambda s: block_frechet(prim, mT(a), s, *params)),) + (None,) * len(params)
    prim = _primitive(name, value, partials)

    def function(a, *params):
        a = a if isinstance(a, ADNumber) else np.asarray(a)
        _square(a, name)
        return prim(a, *params)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"scipy.linalg.{name}: its value, with the Fréchet derivative "
                        f"L(a, da) = the upper right block of {name}([[a, da], [0, a]]), and "
                        f"ā = L(aᵀ, x̄).")
    return function


def logm(a, disp=True):
    """scipy.linalg.logm: the principal logarithm; d log a = L(a, da), the upper right block
    of logm([[a, da], [0, a]]); ā = L(aᵀ, x̄).  disp=False: (log a, scipy's error estimate)."""
    x = _logm(a)
    if disp:
        return x
    r, a0 = strip(x), np.asarray(strip(a), dtype=float)
    return x, float(np.linalg.norm(_scipy().expm(r) - a0, 1) / np.linalg.norm(a0, 1))


_logm = _matrix_function("logm")
sinm, cosm, tanm = (_matrix_function(n) for n in ("sinm", "cosm", "tanm"))
sinhm, coshm, tanhm = (_matrix_function(n) for n in ("sinhm", "coshm", "tanhm"))


_power = _matrix_function("fractional_matrix_power")


def fractional_matrix_power(a, t):
    """scipy.linalg.fractional_matrix_power: a^t for a real power t (a constant: not
    differentiated); d(a^t) = L(a, da) by the block identity."""
    if isinstance(t, ADNumber):
        raise NotDifferentiableError("scipy.linalg.fractional_matrix_power: the power t is not "
                                     "differentiated; use expm(t·logm(a)) for a derivative in t")
    return _power(a, t)
