"""scipy's plain-Python functions on dvlad numbers: ``scipy.special.logsumexp``, ``softmax``,
``log_softmax``, the densities and distribution functions of ``scipy.stats``, and
``scipy.linalg``'s ``solve_triangular cho_factor cho_solve expm cholesky solve inv det``.

scipy.special's ufuncs reach dvlad through numpy's protocol (their rows are in the rule table),
but these are Python functions that convert their arguments, write into float arrays
(``np.place``, ``putmask``) and check them with compiled code: on AD numbers they fail inside
scipy.  dvlad gives each a version written with numpy operations on AD numbers, and installs it
in scipy as scipy's own function: called with a dvlad number anywhere in its arguments, scipy's
function runs dvlad's version; called with plain numbers, scipy's own code, unchanged.  The
versions are installed when dvlad meets scipy: at ``import dvlad`` if scipy.special or
scipy.stats is already imported, else when it is (an import hook).  A module that bound
``from scipy.special import logsumexp`` before dvlad was imported keeps scipy's function.

scipy.stats' versions are in :mod:`dvlad.operators.scipy_stats`, installed by the same
machinery (``install({"scipy.stats": scipy_stats.install})``, as ``import dvlad`` calls it).

>>> import numpy as np, dvlad, scipy.special
>>> g = dvlad.gradient_r(lambda x: scipy.special.logsumexp(x))(np.log(np.array([1., 3.])))
>>> g                                                       # the softmax: [1, 3]/4
array([0.25, 0.75])
"""
import importlib.abc
import sys

import numpy as np

from ..arrays.objects import repack
from ..core.number import ADNumber, strip
from ..core.structures import flatten
from ..core.tags import NotDifferentiableError

__all__ = ["logsumexp", "softmax", "log_softmax", "install"]


def _carries_ad(*values):
    for v in values:
        if isinstance(v, ADNumber):
            return True
        if isinstance(v, np.ndarray):
            if v.dtype == object and any(isinstance(e, ADNumber) for e in v.flat):
                return True
        elif isinstance(v, (tuple, list, dict)):
            try:
                leaves = flatten(v, "an argument")[0]
            except Exception:           # not numbers (functions, say): the others decide
                continue
            if any(isinstance(e, ADNumber) for e in leaves):
                return True
    return False


def _array(v):
    """An argument as numpy would see it (a list or object array of AD numbers: one array
    number)."""
    if isinstance(v, ADNumber):
        return v
    v = v if isinstance(v, np.ndarray) else np.asanyarray(v)
    return repack(v) if v.dtype == object else v


# ---- scipy.special ------------------------------------------------------------------------------

def _shift(a, axis):
    """The maximum of a along axis (kept dims), a constant: logsumexp's shift (its value cancels,
    so it carries no derivative); 0 where it is not finite."""
    m = np.amax(strip(a), axis=axis, keepdims=True)
    return np.where(np.isfinite(m), m, 0.0)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log Σ b·exp(a) along axis, as scipy.special.logsumexp: m + log Σ b·exp(a − m) with m the
    (constant) maximum; ``return_sign`` gives (log|s|, sign s)."""
    a = _array(a)
    m = _shift(a, axis)
    e = np.exp(a - m)
    if b is not None:
        e = _array(b) * e
    s = np.sum(e, axis=axis, keepdims=True)
    if return_sign:
        signs = np.sign(strip(s))
        out = np.log(np.abs(s)) + m
    else:
        out = np.log(s) + m
    if not keepdims:
        out = np.squeeze(out, axis=axis) if axis is not None else np.reshape(out, ())
        if return_sign:
            signs = np.squeeze(signs, axis=axis) if axis is not None else np.reshape(signs, ())
    return (out, signs) if return_sign else out


def softmax(x, axis=None):
    """exp(x) / Σ exp(x) along axis (shifted by the constant maximum), as scipy.special.softmax."""
    x = _array(x)
    e = np.exp(x - _shift(x, axis))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=None):
    """x − logsumexp(x) along axis, as scipy.special.log_softmax."""
    x = _array(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


# ---- installing them in scipy -----------------------------------------------------------------

def _dispatching(original, ours, bound=False):
    """scipy's function, which runs dvlad's version when an argument carries a dvlad number."""
    def function(*args, **kwargs):
        if _carries_ad(*(args[1:] if bound else args), *kwargs.values()):
            return ours(*args, **kwargs)
        return original(*args, **kwargs)
    function.__name__, function.__qualname__ = original.__name__, original.__qualname__
    function.__doc__, function.__wrapped__ = original.__doc__, original
    function.__module__ = original.__module__
    function._dvlad = True
    return function


def _patch(owner, name, ours, bound=False):
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_dvlad", False):
        return
    setattr(owner, name, _dispatching(original, ours, bound))


def _order_row(fn):
    """scipy's f(n, x) with n an order (polygamma): dvlad's row of that name."""
    from ..numbers.primitives import OPS
    row = OPS[fn.__name__]
    return lambda n, x: row(n, _array(x))


def _multivariate_log_gamma(log_gamma):
    """scipy.special.multigammaln(a, d) = d(d−1)/4·log π + Σⱼ log Γ(a + (1 − j)/2), j = 1..d
    (``log_gamma``: scipy's ufunc, which reaches dvlad's row through numpy's protocol)."""
    def function(a, d):
        a = _array(a)
        if np.any(strip(a) <= 0.5 * (d - 1)):         # scipy's own check, on the primal
            raise ValueError(f"condition a ({strip(a)}) > 0.5 * (d-1) ({0.5 * (d - 1)}) not met")
        return d * (d - 1) / 4.0 * np.log(np.pi) + sum(log_gamma(a + (1.0 - j) / 2.0)
                                                      for j in range(1, int(d) + 1))
    return function


def _install_special(special):
    order, many = special.polygamma, special.multigammaln
    for name, ours in (("logsumexp", logsumexp), ("softmax", softmax),
                       ("log_softmax", log_softmax), (order.__name__, _order_row(order)),
                       (many.__name__, _multivariate_log_gamma(special.gammaln))):
        _patch(special, name, ours)


def _linalg_cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy's cholesky: the upper factor of a's upper triangle unless lower (as scipy reads)."""
    return np.linalg.cholesky(_array(a), upper=not lower)


def _install_linalg(linalg):
    """scipy.linalg's functions on dvlad numbers: dvlad's (dvlad.arrays), with scipy's
    signatures; scipy's own code for plain numbers."""
    from ..arrays import matrix_functions as F, scipy_linalg as S, scipy_solvers as L
    for name in ("lu", "solve_sylvester", "sqrtm", "logm", "sinm", "cosm", "tanm", "sinhm",
                 "coshm", "tanhm", "fractional_matrix_power"):
        _patch(linalg, name, lambda *args, _f=getattr(L if name == "lu" else F, name), **kw:
               _f(*[_array(a) for a in args], **kw))
    for name, ours in (("lu_factor", lambda a, *args, **kw: L.lu_factor(_array(a), *args, **kw)),
                       ("lu_solve", lambda lp, b, *args, **kw: L.lu_solve(
                           (_array(lp[0]), lp[1]), _array(b), *args, **kw)),
                       ("solve_banded", lambda lu, ab, b, *args, **kw: L.solve_banded(
                           lu, _array(ab), _array(b), *args, **kw)),
                       ("qr", _linalg_qr), ("lstsq", _linalg_lstsq),
                       ("solve_triangular", S.solve_triangular), ("cho_factor", S.cho_factor),
                       ("cho_solve", S.cho_solve), ("expm", S.expm),
                       ("cholesky", _linalg_cholesky), ("solve", _linalg_solve),
                       ("inv", lambda a, *args, **kw: np.linalg.inv(a)),
                       ("det", lambda a, *args, **kw: np.linalg.det(a)),
                       ("eigh", _linalg_eigh), ("eigvalsh", _linalg_eigvalsh),
                       ("svd", _linalg_svd), ("svdvals", lambda a, **kw: np.linalg.svd(
                           _array(a), compute_uv=False)), ("pinv", _linalg_pinv)):
        _patch(linalg, name, ours)
    for name in _LINALG_WITHOUT_RULES:
        _patch(linalg, name, _no_rule_for(f"scipy.linalg.{name}"))
    for name in ("bandwidth", "issymmetric", "ishermitian"):      # questions: the primal's answer
        original = getattr(linalg, name, None)
        if original is not None:
            _patch(linalg, name, lambda a, *args, _f=original, **kw: _f(strip(_array(a)), *args,
                                                                       **kw))


_LINALG_WITHOUT_RULES = ("funm", "signm", "schur", "rsf2csf", "rq", "eig",
                         "eigvals", "eig_banded", "eigh_tridiagonal", "null_space", "orth",
                         "polar", "ldl", "hessenberg", "qz", "ordqz",
                         "solveh_banded", "solve_continuous_lyapunov",
                         "solve_discrete_lyapunov", "solve_continuous_are", "solve_discrete_are",
                         "khatri_rao", "cholesky_banded", "cho_solve_banded", "qr_multiply", "pinvh",
                         "subspace_angles", "matrix_balance", "solve_toeplitz",
                         "matmul_toeplitz", "expm_cond", "expm_frechet", "solve_circulant",
                         "circulant", "cdf2rdf", "clarkson_woodruff_transform", "companion",
                         "cho_solve_banded")


def _no_rule_for(name):
    def refuse(*args, **kwargs):
        raise NotDifferentiableError(
            f"{name} has no dvlad rule (it converts a dvlad number to floats, which would drop "
            f"its derivative): use numpy.linalg's function where there is one (np.linalg.qr, "
            f"eig, lstsq), or dvlad.primal(x) to differentiate nothing through it")
    return refuse


def _ignored(fn, **given):
    """Refuse scipy keywords that would change the answer dvlad's version computes."""
    bad = {k: v for k, v in given.items() if v is not None and v is not False}
    if bad:
        raise NotDifferentiableError(f"scipy.linalg.{fn} with {sorted(bad)}: dvlad "
                                     f"differentiates the plain call")


def _triangle(a, lower):
    """The symmetric matrix scipy reads from a's lower (or upper) triangle."""
    a = _array(a)
    t = np.tril(a) if lower else np.triu(a)
    return t + np.swapaxes(np.tril(a, -1) if lower else np.triu(a, 1), -1, -2)


def _linalg_solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
                  assume_a=None, transposed=False):
    """scipy.linalg.solve: a symmetric assume_a reads one triangle, as scipy does."""
    kind = (assume_a or "gen").lower()
    if kind in ("sym", "her", "pos", "symmetric", "hermitian", "positive definite"):
        a = _triangle(a, lower)
    elif kind in ("diagonal",):
        a = np.diag(np.diagonal(_array(a)))
    elif kind not in ("gen", "general"):
        _ignored("solve", assume_a=assume_a)
    a = _array(a)
    return np.linalg.solve(np.swapaxes(a, -1, -2) if transposed else a, _array(b))


def _linalg_eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,
                 overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
                 subset_by_value=None, driver=None):
    _ignored("eigh", b=b, subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    w, v = np.linalg.eigh(_array(a), UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


def _linalg_eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
                     check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    _ignored("eigvalsh", b=b, subset_by_index=subset_by_index, subset_by_value=subset_by_value)
    return np.linalg.eigvalsh(_array(a), UPLO="L" if lower else "U")


def _linalg_svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
                lapack_driver="gesdd"):
    r = np.linalg.svd(_array(a), full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(r) if compute_uv else r


def _linalg_pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    _ignored("pinv", atol=atol, rtol=rtol, return_rank=return_rank)
    return np.linalg.pinv(_array(a))


def _linalg_qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False,
               check_finite=True):
    """scipy.linalg.qr by numpy's reduced qr: 'economic'; 'full' where it is the same (a not
    tall); 'r' (R padded with zero rows, as scipy); pivoting from a's primal: a[:, p] = q·r."""
    a = _array(a)
    if check_finite and not np.isfinite(strip(a)).all():
        raise ValueError("array must not contain infs or NaNs")
    perm = None
    if pivoting:
        import scipy.linalg
        perm = scipy.linalg.qr(strip(a), mode="r", pivoting=True)[1]
        a = np.take_along_axis(a, np.broadcast_to(perm[..., None, :], np.shape(a)), axis=-1)
    m, n = np.shape(a)[-2:]
    if mode == "r":
        r = np.linalg.qr(a, mode="r")
        r = np.concatenate([r, np.zeros(np.shape(r)[:-2] + (m - n, n))], -2) if m > n else r
        out = (r,) if np.ndim(r) == 2 else r        # (scipy's batched qr: the array itself)
    elif mode == "economic" or mode == "full" and m <= n:
        out = tuple(np.linalg.qr(a, mode="reduced"))
    else:
        raise NotDifferentiableError(
            f"scipy.linalg.qr(mode={mode!r}) of a dvlad number: " + (
                "Q's last m − n columns of a tall matrix are not a function of it: use "
                "mode='economic' (or 'r')" if mode == "full" else "use mode 'economic' or 'r'"))
    return (out if isinstance(out, tuple) else (out,)) + (perm,) if pivoting else out


def _linalg_lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True,
                  lapack_driver=None):
    """scipy.linalg.lstsq by numpy's (rcond = cond): (x, residues, rank, s), the residues a
    number for a vector b, as scipy's."""
    x, res, rank, s = np.linalg.lstsq(_array(a), _array(b), rcond=cond)
    return x, (res[0] if np.ndim(b) == 1 and np.shape(res) == (1,) else res), int(rank), s


_INSTALLERS = {"scipy.special": _install_special, "scipy.linalg": _install_linalg}


class _Watcher(importlib.abc.MetaPathFinder):
    """Installs dvlad's versions right after scipy.special, scipy.stats or scipy.linalg is
    imported."""

    def find_spec(self, name, path, target=None):
        if name not in _INSTALLERS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                loader, install = spec.loader, _INSTALLERS[name]
                run = loader.exec_module

                def exec_module(module, run=run, install=install):
                    run(module)
                    install(module)
                loader.exec_module = exec_module
                return spec
        return None


def install(others=None):
    """Install dvlad's versions in scipy now (those modules already imported) and when the
    others are imported; ``others``: more installers by module name (scipy.stats': they live in
    :mod:`dvlad.operators.scipy_stats`, which imports this module).  Called once by ``import
    dvlad``."""
    _INSTALLERS.update(others or {})
    for name, installer in _INSTALLERS.items():
        if name in sys.modules:
            installer(sys.modules[name])
    if not any(isinstance(f, _Watcher) for f in sys.meta_path):
        sys.meta_path.insert(0, _Watcher())
