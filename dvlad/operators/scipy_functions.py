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

scipy.stats: ``dist.logpdf(x, *shapes, loc, scale)`` is ``dist._logpdf((x − loc)/scale, *shapes)
− log(scale)``, the distribution's own formula (most are written with ufuncs dvlad has rows for:
``norm t gamma beta expon lognorm logistic ...``); where x is outside the support it is −inf,
and nan where the parameters are invalid (decided on the primals, as scipy does).  ``pdf``,
``cdf``, ``logcdf``, ``sf``, ``logsf`` (0 or 1 below and above the support, their logarithms),
``ppf``, ``isf`` (``norm.ppf`` through ``ndtri``; the support's ends at q = 0 and 1) and the discrete ``logpmf``, ``pmf``, ``cdf``, ``logcdf``, ``sf``, ``logsf`` likewise (``t.cdf``
through ``stdtr``, ``gamma.cdf`` ``gammainc``, ``beta.cdf`` ``betainc``, ``poisson.cdf``
``pdtr``, differentiable in x and loc, scale, μ; a shape argument without a closed-form
derivative, gamma's a, t's df, raises naming it).  A formula that needs a scipy function
without a dvlad rule (``beta.sf`` needs ``betaincc``) raises
:class:`~dvlad.NotDifferentiableError` naming it.  ``multivariate_normal.logpdf``/``pdf`` use
``−½(d log 2π + log det Σ + (x − μ)ᵀ Σ⁻¹ (x − μ))`` with dvlad's cholesky.

>>> import numpy as np, dvlad, scipy.special
>>> g = dvlad.gradient_r(lambda x: scipy.special.logsumexp(x))(np.log(np.array([1., 3.])))
>>> g                                                       # the softmax: [1, 3]/4
array([0.25, 0.75])
"""
import importlib.abc
import math
import sys

import numpy as np

from ..core.number import ADNumber, strip
from ..core.structures import flatten

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
            except Exception:           # not numbers: scipy's own function decides
                return False
            if any(isinstance(e, ADNumber) for e in leaves):
                return True
    return False


def _array(v):
    """An argument as numpy would see it (a list of AD numbers: one array number)."""
    return v if isinstance(v, ADNumber) else np.asanyarray(v) if not isinstance(v, np.ndarray) \
        else v


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


# ---- scipy.stats ----------------------------------------------------------------------------------

def _placed(dist, val, z, shapes, scale, outside, closed=False):
    """val where the parameters are valid and z in the support, ``outside`` (−inf, 0...)
    outside the support, nan where the parameters are invalid: decided on the primals.  A
    distribution function's ``outside`` is a pair, its values below and above the support, and
    its support is open (``closed``: closed below, a discrete one's), as in scipy's cdf."""
    plain = [np.asarray(strip(s)) for s in shapes]
    ok = np.asarray(dist._argcheck(*plain)) & (np.asarray(strip(scale)) > 0)
    zz = np.asarray(strip(z))
    if isinstance(outside, tuple):
        lo, hi = dist._get_support(*plain)
        inside = ok & ((zz >= lo) if closed else (zz > lo)) & (zz < hi)
        outside = np.where(np.isnan(zz), np.nan, np.where(zz >= hi, outside[1], outside[0]))
    else:
        inside = ok & np.asarray(dist._support_mask(zz, *plain))
    shape = np.broadcast_shapes(np.shape(strip(val)), np.shape(inside))
    if inside.all():
        return val if np.shape(strip(val)) == shape else val * np.ones(shape)
    return np.where(inside, val, np.where(ok, outside, np.nan))


def _continuous(method, inner, by_scale, outside):
    def ours(self, x, *args, **kwds):
        shapes, loc, scale = self._parse_args(*args, **kwds)
        z = (_array(x) - loc) / scale
        val = getattr(self, inner)(z, *shapes)
        if by_scale == "minus its logarithm":
            val = val - np.log(scale)
        elif by_scale == "divided":
            val = val / scale
        return _placed(self, val, z, shapes, scale, outside)
    ours.__name__ = method
    return ours


def _inverse(method, inner):
    """ppf and isf: ``dist._ppf(q, *shapes)·scale + loc`` for 0 < q < 1, the support's ends at
    q = 0 and 1 (lower, upper for ppf; upper, lower for isf), nan elsewhere, as scipy's."""
    def ours(self, q, *args, **kwds):
        shapes, loc, scale = self._parse_args(*args, **kwds)
        q = _array(q)
        plain = [np.asarray(strip(s)) for s in shapes]
        ok = np.asarray(self._argcheck(*plain)) & (np.asarray(strip(scale)) > 0)
        qq = np.asarray(strip(q))
        lo, hi = self._get_support(*plain)
        at0, at1 = (lo, hi) if method == "ppf" else (hi, lo)
        with np.errstate(all="ignore"):                  # (lanes outside 0 < q < 1 are not taken)
            val = getattr(self, inner)(q, *shapes) * scale + loc
        inside = ok & (qq > 0) & (qq < 1)
        shape = np.broadcast_shapes(np.shape(strip(val)), np.shape(inside))
        if inside.all():
            return val if np.shape(strip(val)) == shape else val * np.ones(shape)
        ends = np.where(ok & (qq == 0), at0 * scale + loc, np.where(ok & (qq == 1), at1 * scale
                                                                  + loc, np.nan))
        return np.where(inside, val, ends)
    ours.__name__ = method
    return ours


def _discrete(method, inner, outside):
    def ours(self, k, *args, **kwds):
        shapes, loc = self._parse_args(*args, **kwds)[:2]
        z = _array(k) - loc
        return _placed(self, getattr(self, inner)(z, *shapes), z, shapes, 1.0, outside, True)
    ours.__name__ = method
    return ours


CONTINUOUS = {"logpdf": _continuous("logpdf", "_logpdf", "minus its logarithm", -np.inf),
              "pdf": _continuous("pdf", "_pdf", "divided", 0.0),
              "cdf": _continuous("cdf", "_cdf", None, (0.0, 1.0)),
              "logcdf": _continuous("logcdf", "_logcdf", None, (-np.inf, 0.0)),
              "sf": _continuous("sf", "_sf", None, (1.0, 0.0)),
              "logsf": _continuous("logsf", "_logsf", None, (0.0, -np.inf)),
              "ppf": _inverse("ppf", "_ppf"), "isf": _inverse("isf", "_isf")}
DISCRETE = {"logpmf": _discrete("logpmf", "_logpmf", -np.inf),
            "pmf": _discrete("pmf", "_pmf", 0.0),
            "cdf": _discrete("cdf", "_cdf", (0.0, 1.0)),
            "logcdf": _discrete("logcdf", "_logcdf", (-np.inf, 0.0)),
            "sf": _discrete("sf", "_sf", (1.0, 0.0)),
            "logsf": _discrete("logsf", "_logsf", (0.0, -np.inf))}


def _mvn_logpdf(x, mean=None, cov=1, allow_singular=False):
    x = _array(x)
    dim = np.shape(strip(x))[-1] if np.ndim(strip(x)) else 1
    mean = np.zeros(dim) if mean is None else _array(mean)
    cov = _array(cov)
    if np.ndim(strip(cov)) == 0:
        cov = cov * np.eye(dim)
    elif np.ndim(strip(cov)) == 1:
        cov = cov * np.eye(dim)         # the diagonal, as scipy reads a 1-d cov
    dev = x - mean
    chol = np.linalg.cholesky(cov)
    logdet = 2.0 * np.sum(np.log(np.diagonal(chol)))
    sol = np.linalg.solve(cov, np.reshape(dev, (-1, dim)).T).T
    maha = np.sum(np.reshape(dev, (-1, dim)) * sol, axis=-1)
    out = -0.5 * (dim * math.log(2 * math.pi) + logdet + maha)
    return np.reshape(out, np.shape(strip(x))[:-1]) if np.ndim(strip(x)) > 1 else out[0]


def _apply_where(cond, args, f1, f2=None, /, *, fill_value=None, xp=None):
    """scipy's ``xpx.apply_where`` (f1 where cond, else f2 or fill_value, each evaluated on its
    lanes only) on AD numbers: the lanes picked out by indexing, put back by scatter."""
    args = args if isinstance(args, tuple) else (args,)
    cond = np.asarray(strip(cond), dtype=bool)
    shape = np.broadcast_shapes(cond.shape, *(np.shape(strip(a)) for a in args))
    cond = np.broadcast_to(cond, shape)
    full = [np.broadcast_to(a, shape) if np.shape(strip(a)) != shape else a for a in args]
    if cond.all():
        return f1(*full)
    if not cond.any() and f2 is not None:
        return f2(*full)
    from ..arrays.primitives import scatter         # (a lane-wise put-back, not a numpy function)
    out = scatter(f1(*(a[cond] for a in full)), cond, shape) if cond.any() else 0.0
    if f2 is not None:
        return out + scatter(f2(*(a[~cond] for a in full)), ~cond, shape)
    return np.where(cond, out, fill_value)


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


def _install_special(special):
    for name, ours in (("logsumexp", logsumexp), ("softmax", softmax),
                       ("log_softmax", log_softmax)):
        _patch(special, name, ours)


def _install_stats(stats):
    from scipy.stats import _distn_infrastructure as infra, _multivariate as mv
    from scipy._lib import array_api_extra as xpx
    _patch(xpx, "apply_where", _apply_where)
    for name, ours in CONTINUOUS.items():
        _patch(infra.rv_continuous, name, ours, bound=True)
    for name, ours in DISCRETE.items():
        _patch(infra.rv_discrete, name, ours, bound=True)
    _patch(mv.multivariate_normal_gen, "logpdf",
           lambda self, x, mean=None, cov=1, allow_singular=False:
           _mvn_logpdf(x, mean, cov, allow_singular), bound=True)
    _patch(mv.multivariate_normal_gen, "pdf",
           lambda self, x, mean=None, cov=1, allow_singular=False:
           np.exp(_mvn_logpdf(x, mean, cov, allow_singular)), bound=True)
    _patch(mv.multivariate_normal_frozen, "logpdf",
           lambda self, x: _mvn_logpdf(x, self.mean, self.cov), bound=True)
    _patch(mv.multivariate_normal_frozen, "pdf",
           lambda self, x: np.exp(_mvn_logpdf(x, self.mean, self.cov)), bound=True)


def _linalg_cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy's cholesky: the upper factor of a's upper triangle unless lower (as scipy reads)."""
    return np.linalg.cholesky(_array(a), upper=not lower)


def _install_linalg(linalg):
    """scipy.linalg's functions on dvlad numbers: dvlad's (dvlad.arrays), with scipy's
    signatures; scipy's own code for plain numbers."""
    from ..arrays import scipy_linalg as S
    for name, ours in (("solve_triangular", S.solve_triangular), ("cho_factor", S.cho_factor),
                       ("cho_solve", S.cho_solve), ("expm", S.expm),
                       ("cholesky", _linalg_cholesky),
                       ("solve", lambda a, b, *args, **kw: np.linalg.solve(a, b)),
                       ("inv", lambda a, *args, **kw: np.linalg.inv(a)),
                       ("det", lambda a, *args, **kw: np.linalg.det(a))):
        _patch(linalg, name, ours)


_INSTALLERS = {"scipy.special": _install_special, "scipy.stats": _install_stats,
               "scipy.linalg": _install_linalg}


class _Watcher(importlib.abc.MetaPathFinder):
    """Installs dvlad's versions right after scipy.special or scipy.stats is imported."""

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


def install():
    """Install dvlad's versions in scipy now (those modules already imported) and when the
    others are imported.  Called once by ``import dvlad``."""
    for name, installer in _INSTALLERS.items():
        if name in sys.modules:
            installer(sys.modules[name])
    if not any(isinstance(f, _Watcher) for f in sys.meta_path):
        sys.meta_path.insert(0, _Watcher())
