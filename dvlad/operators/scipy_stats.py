"""scipy.stats on dvlad numbers: the densities and distribution functions of its distributions,
``multivariate_normal``, ``dirichlet`` and ``multinomial``, installed in scipy as scipy's own
methods by :mod:`dvlad.operators.scipy_functions` (called with a dvlad number anywhere in their
arguments they run the versions here; with plain numbers, scipy's own code, unchanged).

``dist.logpdf(x, *shapes, loc, scale)`` is ``dist._logpdf((x − loc)/scale, *shapes) −
log(scale)``, the distribution's own formula (most are written with ufuncs dvlad has rows for:
``norm t gamma beta chi2 expon lognorm logistic ...``; t's ``poch(ν/2, 1/2)`` differentiates in
ν); where x is outside the support it is −inf, and nan where the parameters are invalid (decided
on the primals, as scipy does).  ``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf`` (0 or 1 below
and above the support, their logarithms), ``ppf``, ``isf`` (``norm.ppf`` through ``ndtri``,
``t`` ``stdtrit``, ``gamma`` ``gammaincinv``/``gammainccinv``, ``chi2`` ``gammaincinv``/``chdtri``,
``beta`` ``betaincinv``/``betainccinv``, differentiable in q, loc and scale; the support's ends at
q = 0 and 1) and the discrete ``logpmf``, ``pmf``, ``cdf``, ``logcdf``, ``sf``,
``logsf`` likewise (``t.cdf`` through ``stdtr``, ``gamma.cdf``/``sf`` ``gammainc``/``gammaincc``,
``beta.cdf``/``sf`` ``betainc``/``betaincc``, ``chi2.cdf``/``sf`` ``chdtr``/``chdtrc``,
``poisson.cdf``/``sf`` ``pdtr``/``pdtrc``, differentiable in x and loc, scale, μ; a shape
argument without a closed-form derivative, gamma's a, t's and chi2's df in their cdfs, raises
naming it).  A formula that needs a scipy function without a dvlad rule (``beta.pdf`` needs
``scipy.special._ufuncs._beta_pdf``, ``f.ppf`` ``fdtri``) raises
:class:`~dvlad.NotDifferentiableError` naming it.

``multivariate_normal.logpdf``/``pdf`` use ``−½(d log 2π + log det Σ + (x − μ)ᵀ Σ⁻¹ (x − μ))``
with dvlad's cholesky, its ``entropy`` (also frozen) ``½(d(1 + log 2π) + log det Σ)``;
``dirichlet.logpdf(x, α)`` is ``Σᵢ (αᵢ − 1) log xᵢ − (Σᵢ log Γ(αᵢ) − log Γ(Σᵢ αᵢ))`` with the
components along x's *first* axis, as scipy computes it (x of shape (k,) or (k, n), or one
component fewer: the last is 1 − the others' sum); ``multinomial.logpmf(x, n, p)`` is ``log Γ(n + 1) − Σᵢ log Γ(xᵢ + 1) + Σᵢ xᵢ log pᵢ`` (x and n are counts, not
variables).  Their arguments are checked on the primals by scipy's own checks, which raise
scipy's errors.

>>> import numpy as np, dvlad, scipy.stats
>>> a = np.array([1.5, 2.0, 3.0])
>>> g = dvlad.gradient_r(lambda a: scipy.stats.dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), a))(a)
>>> bool(np.allclose(g, np.log([0.2, 0.3, 0.5]) + scipy.special.psi(6.5) - scipy.special.psi(a)))
True
"""
import math

import numpy as np

from ..arrays.objects import repack
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError
from . import scipy_moments
from .scipy_functions import _array, _carries_ad, _patch

__all__ = ["install"]


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


def _beta_ppf(q, a, b):
    """beta's _ppf is scipy's private ufunc ``_ufuncs._beta_ppf(q, a, b)``, Boost's ibeta_inv,
    which scipy.special's betaincinv(a, b, q) computes too (the same values): through it, which
    has a row."""
    import scipy.special as sc
    return sc.betaincinv(a, b, q)


# (class name, method): the version a distribution's own method is computed by here
_INNER = {("beta_gen", "_ppf"): _beta_ppf}


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
        own = _INNER.get((type(self).__name__, inner), getattr(self, inner))
        with np.errstate(all="ignore"):                  # (lanes outside 0 < q < 1 are not taken)
            val = own(q, *shapes) * scale + loc
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


def _mvn_entropy(gen, mean=None, cov=1, allow_singular=True):
    """½(d(1 + log 2π) + log det Σ), log det by slogdet (its derivative in Σ is Σ⁻ᵀ); scipy's
    checks and errors on the primals, and scipy's own value where Σ carries no dvlad number.  A
    singular Σ, whose log pseudo-determinant (scipy's) jumps where the rank changes, raises."""
    plain = cov if not _carries_ad(cov) else _primals(_one(cov))
    dim, _, psd = gen._process_parameters(None if mean is None else _primals(_one(mean)), plain,
                                          allow_singular)
    if plain is cov:
        return 0.5 * (psd.rank * (math.log(2 * math.pi) + 1.0) + psd.log_pdet)
    if psd.rank < dim:
        raise NotDifferentiableError(
            f"scipy.stats.multivariate_normal.entropy: cov is singular (rank {psd.rank} < "
            f"{dim}); scipy's entropy then takes the log pseudo-determinant, which has no "
            f"derivative where the rank can change. Pass a positive definite cov, or its plain "
            f"value (dvlad.primal) for scipy's own entropy")
    cov = _one(cov)
    if np.ndim(strip(cov)) < 2:
        cov = cov * np.eye(dim)         # a number, or the diagonal, as scipy reads them
    return 0.5 * (dim * (math.log(2 * math.pi) + 1.0) + np.linalg.slogdet(cov)[1])


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


# ---- dirichlet and multinomial --------------------------------------------------------------------

def _one(v):
    """An argument as one number: an AD number (a list or an object array of numbers, such as
    ``np.asarray`` of an AD number makes, packed into one), else a plain array."""
    if isinstance(v, ADNumber):
        return v
    a = v if isinstance(v, np.ndarray) else np.asarray(v)
    return repack(a) if a.dtype == object else a


def _primals(v):
    return np.asarray(strip(v), dtype=float)


def _dirichlet_logpdf(x, alpha):
    """Σᵢ xlogy(αᵢ − 1, xᵢ) − (Σᵢ log Γ(αᵢ) − log Γ(Σᵢ αᵢ)), the components along x's first
    axis (scipy's ``dirichlet_gen._logpdf``); scipy's checks on the primals."""
    from scipy.stats import _multivariate as mv
    import scipy.special as sc
    alpha, x = _one(alpha), _one(x)
    a0 = mv._dirichlet_check_parameters(_primals(alpha))
    mv._dirichlet_check_input(a0, _primals(x))
    if np.shape(strip(x))[0] != a0.shape[0]:         # the last component left out: 1 − the rest
        x = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)], axis=0)
    column = np.reshape(alpha, a0.shape + (1,) * (np.ndim(strip(x)) - 1))
    out = np.sum(sc.xlogy(column - 1.0, x), axis=0) - (np.sum(sc.gammaln(alpha))
                                                       - sc.gammaln(np.sum(alpha)))
    return np.squeeze(out)


def _counts(*counts):
    """multinomial's x and n must not carry a perturbation (counts are not variables)."""
    if _carries_ad(*counts):
        raise NotDifferentiableError(
            "scipy.stats.multinomial: x and n are counts (integers), not variables; pass them as "
            "plain numbers (the derivative is taken in p)")


def _multinomial_parameters(gen, n, p):
    """(n, p, bad n or p) as scipy's ``_process_parameters`` (its checks and its FutureWarning,
    on the primals), with p an AD number whose last component scipy replaces by 1 − the others'
    sum where a row does not sum to 1."""
    from scipy.stats import _multivariate as mv
    _counts(n)
    p = _one(p)
    p0 = _primals(p)
    n, adjusted, bad = mv.multinomial_gen._process_parameters(gen, n, p0)
    changed = adjusted[..., -1] != p0[..., -1]
    if np.any(changed):
        rest = p[..., :-1]
        last = np.where(changed, 1.0 - np.sum(rest, axis=-1), p[..., -1])
        p = np.concatenate([rest, np.expand_dims(last, -1)], axis=-1)
    return n, p, bad


def _multinomial_logpmf(gen, x, n, p):
    """log Γ(n + 1) − Σᵢ log Γ(xᵢ + 1) + Σᵢ xlogy(xᵢ, pᵢ) (scipy's ``_logpmf``): −inf where x
    is not a count of n, nan where n or p is invalid, as scipy's ``logpmf``."""
    from scipy.stats import _multivariate as mv
    import scipy.special as sc
    _counts(x, n)
    n, p, bad = _multinomial_parameters(gen, n, p)
    x, outside = mv.multinomial_gen._process_quantiles(gen, x, n, _primals(p))
    out = sc.gammaln(n + 1) + np.sum(sc.xlogy(x, p) - sc.gammaln(x + 1), axis=-1)
    if np.any(outside):
        out = np.where(outside, -np.inf, out)
    if np.any(bad):
        out = np.where(bad, np.nan, out)
    return out


def _multinomial_frozen_init(self, n, p, seed=None):
    """scipy's frozen multinomial with p an AD number (its n, p, checks as the generic one's)."""
    from scipy.stats import _multivariate as mv
    self._dist = mv.multinomial_gen(seed)
    self.n, self.p, self.npcond = _multinomial_parameters(self._dist, n, p)
    self._dist._process_parameters = lambda n, p: (self.n, self.p, self.npcond)


def _mvn_frozen_init(self, mean=None, cov=1, allow_singular=False, seed=None, **kwargs):
    """scipy's frozen multivariate normal with a dvlad number in mean or cov: kept as given
    (scipy would convert them to floats), its logpdf and pdf dvlad's."""
    from scipy.stats import _multivariate as mv
    self._dist = mv.multivariate_normal_gen(seed)
    self.mean, self._dvlad_cov, self.allow_singular = mean, cov, allow_singular
    self._dvlad_parameters = True


def _mvn_of(self):
    """A frozen multivariate normal's (mean, cov): as given to dvlad's, scipy's otherwise."""
    return self.mean, self._dvlad_cov if hasattr(self, "_dvlad_cov") else self.cov


def _frozen(owner, name, ours):
    """A frozen distribution's method: dvlad's when its parameters or x carry a dvlad number."""
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_dvlad", False):
        return

    def method(self, *args, **kwargs):
        if getattr(self, "_dvlad_parameters", False) or _carries_ad(*args, *kwargs.values()):
            return ours(self, *args, **kwargs)
        return original(self, *args, **kwargs)
    method.__name__, method.__qualname__ = original.__name__, original.__qualname__
    method.__doc__, method.__wrapped__, method._dvlad = original.__doc__, original, True
    setattr(owner, name, method)


def install(stats):
    """Install the versions above in scipy.stats (its distributions' classes)."""
    from scipy.stats import _distn_infrastructure as infra, _multivariate as mv
    from scipy._lib import array_api_extra as xpx
    _patch(xpx, "apply_where", _apply_where)
    scipy_moments.install(infra)            # stats (mean, var, std), entropy, _lazyselect
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
    _patch(mv.multivariate_normal_frozen, "__init__", _mvn_frozen_init, bound=True)
    _frozen(mv.multivariate_normal_frozen, "logpdf", lambda self, x: _mvn_logpdf(x, *_mvn_of(self)))
    _frozen(mv.multivariate_normal_frozen, "pdf",
            lambda self, x: np.exp(_mvn_logpdf(x, *_mvn_of(self))))
    _patch(mv.multivariate_normal_gen, "entropy",
           lambda self, mean=None, cov=1: _mvn_entropy(self, mean, cov), bound=True)
    _frozen(mv.multivariate_normal_frozen, "entropy",
            lambda self: _mvn_entropy(self._dist, *_mvn_of(self), self.allow_singular))
    _patch(mv.dirichlet_gen, "logpdf", lambda self, x, alpha: _dirichlet_logpdf(x, alpha),
           bound=True)
    _patch(mv.dirichlet_gen, "pdf", lambda self, x, alpha: np.exp(_dirichlet_logpdf(x, alpha)),
           bound=True)
    _patch(mv.multinomial_gen, "logpmf", _multinomial_logpmf, bound=True)
    _patch(mv.multinomial_gen, "pmf",
           lambda self, x, n, p: np.exp(_multinomial_logpmf(self, x, n, p)), bound=True)
    _patch(mv.multinomial_frozen, "__init__", _multinomial_frozen_init, bound=True)
