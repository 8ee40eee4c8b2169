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
