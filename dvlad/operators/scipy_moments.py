"""scipy.stats' moments and entropies on dvlad numbers: ``dist.stats`` (so ``mean``, ``var``,
``std``) and ``dist.entropy`` of every distribution, and scipy's ``_lazyselect`` that their
formulas use, installed in scipy by :mod:`dvlad.operators.scipy_stats` (called with a dvlad
number in their arguments they run the versions here; with plain numbers, scipy's own code).

scipy computes them into float arrays it writes with ``np.place`` after ``argsreduce``, which a
dvlad number cannot enter (a TypeError inside scipy).  dvlad's versions take the standardized
distribution's values (loc 0, scale 1) and apply loc and scale with dvlad's arithmetic::

    mean = μ·scale + loc,   var = μ₂·scale²,   skew, kurtosis as they are,
    entropy = h(shapes) + log scale.

μ, μ₂, ... and h are scipy's own numbers when the shape parameters are plain.  When a shape
carries a derivative they are the distribution's formulas (``_stats``, ``_munp``, ``_entropy``;
``_entropy`` element by element, as scipy's ``np.vectorize`` calls it) run on dvlad numbers, on
the lanes of valid parameters only; a distribution whose formula scipy does not have in closed
form (the generic ``_munp`` or ``_entropy``, numerical integration) raises
NotDifferentiableError naming it, and so do a formula that does not run on dvlad numbers and a
shape scipy takes in integers only (binom's n, erlang's a).
Where the parameters are invalid the value is nan, as scipy's; a moment that is not finite
(cauchy's mean, t's variance for ν ≤ 2) is a constant, derivative 0 (it is so nearby too).

>>> import dvlad, scipy.stats
>>> dvlad.derivative(lambda s: scipy.stats.norm.entropy(0.0, s))(2.0)       # 1/s
0.5
"""
import numpy as np

from ..core.number import ADNumber, strip
from ..core.tags import DvladError, NotDifferentiableError
from .scipy_functions import _array, _carries_ad, _patch

__all__ = ["install"]


def _valid(dist, shapes, loc, scale):
    """Where the parameters are valid (scipy's ``_argcheck``, scale > 0, loc not nan), on the
    primals, in the shape of all of them broadcast."""
    plain = [np.asarray(strip(s)) for s in shapes]
    lo, sc = np.asarray(strip(loc)), np.asarray(strip(scale))
    ok = np.asarray(dist._argcheck(*plain)) & (sc > 0) & (lo == lo)
    return np.broadcast_to(ok, np.broadcast_shapes(ok.shape, lo.shape, sc.shape,
                                                   *(p.shape for p in plain)))


def _back(r, ok, fill=np.nan):
    """Values r of the lanes where ok (one each, in order) laid out in ok's shape, ``fill``
    elsewhere: gathered, so that nothing is written into a plain array."""
    n = int(np.count_nonzero(ok))
    if not isinstance(r, ADNumber):
        out = np.full(ok.shape, fill, dtype=float)
        out[ok] = np.broadcast_to(np.asarray(r, dtype=float), (n,))
        return out
    r = np.broadcast_to(r, (n,)) if np.shape(strip(r)) != (n,) else r
    if ok.all():
        return np.reshape(r, ok.shape)
    pos = np.maximum(np.cumsum(ok.ravel()) - 1, 0).reshape(ok.shape)
    return np.where(ok, r[pos], fill)


def _lanes(shapes, ok):
    """The shape parameters on the lanes where ok, as 1-d arrays (scipy's ``argsreduce``)."""
    return [np.reshape(np.broadcast_to(s, ok.shape), (-1,))[ok.ravel()] for s in shapes]


def _generic(dist, name, infra):
    """Whether dist's ``name`` is scipy's numerical fallback rather than a formula."""
    mine = getattr(type(dist), name)
    return any(getattr(c, name, None) is mine for c in (infra.rv_continuous, infra.rv_discrete))


def _formula(dist, what, run):
    """run() on dvlad numbers, a failure inside scipy's formula named as dvlad's error."""
    try:
        with np.errstate(all="ignore"):
            return run()
    except DvladError:
        raise
    except (TypeError, ValueError) as e:
        raise NotDifferentiableError(
            f"scipy.stats.{dist.name}.{what} in its shape parameters: scipy's formula does not "
            f"run on dvlad numbers ({type(e).__name__}: {e}). Pass the shapes as plain numbers "
            f"(dvlad.primal) to differentiate in loc and scale alone") from e


def _refuse(dist, what, name):
    raise NotDifferentiableError(
        f"scipy.stats.{dist.name}.{what} in its shape parameters: scipy has no formula for it "
        f"({type(dist).__name__}.{name} integrates numerically), so dvlad has no derivative. "
        f"Pass the shapes as plain numbers (dvlad.primal) to differentiate in loc and scale")


def _integers(dist, shapes, what):
    """A shape scipy takes in integers only (binom's n, erlang's a) has no derivative."""
    for s, info in zip(shapes, dist._shape_info()):
        if info.integrality and _carries_ad(s):
            raise NotDifferentiableError(
                f"scipy.stats.{dist.name}.{what}: its shape {info.name} takes integers, so it has "
                f"no derivative; pass it as a plain number (dvlad.primal)")


def _tracked_moments(dist, lanes, moments, infra):
    """scipy's ``stats`` moment by moment (μ, μ₂, g₁, g₂ of the standardized distribution),
    its ``_stats`` and ``_munp`` run on dvlad numbers."""
    kw = {"moments": moments} if dist._stats_has_moments else {}
    mu, mu2, g1, g2 = (None if v is None else _array(v) for v in
                       _formula(dist, "stats", lambda: dist._stats(*lanes, **kw)))

    def munp(n):
        if _generic(dist, "_munp", infra):
            _refuse(dist, "stats", "_munp")
        return _array(_formula(dist, "stats", lambda: dist._munp(n, *lanes)))
    if "m" in moments and mu is None:
        mu = munp(1)
    if "v" in moments and mu2 is None:
        mu = munp(1) if mu is None else mu
        mu2 = np.where(np.isinf(strip(mu)), np.inf, munp(2) - mu ** 2)   # (an infinite mean)
    if ("s" in moments and g1 is None) or ("k" in moments and g2 is None):
        mu = munp(1) if mu is None else mu
        mu2 = munp(2) - mu * mu if mu2 is None else mu2
    if "s" in moments and g1 is None:
        g1 = ((-mu * mu - 3 * mu2) * mu + munp(3)) / mu2 ** 1.5
    if "k" in moments and g2 is None:
        mu3 = (-mu * mu - 3 * mu2) * mu + munp(3) if g1 is None else g1 * mu2 ** 1.5
        g2 = (((-mu ** 2 - 6 * mu2) * mu - 4 * mu3) * mu + munp(4)) / mu2 ** 2.0 - 3.0
    return [{"m": mu, "v": mu2, "s": g1, "k": g2}[m] for m in moments]


def _placed(v, const, ok, params):
    """v where its value (``const``, on the primals) is finite; an infinite moment a constant
    (derivative 0: it is infinite nearby too); nan, where undefined or the parameters invalid,
    with derivative nan in every tracked parameter (never a number that looks like one)."""
    shape = ok.shape
    if np.shape(strip(v)) != shape:
        v = np.broadcast_to(v, shape)
    const = np.where(ok, np.broadcast_to(const, shape), np.nan)
    fin = np.isfinite(const)
    if fin.all():
        return v
    out = np.where(fin, v, const)
    nan = np.isnan(const)
    if nan.any():
        anchor = v
        for p in params:
            if isinstance(p, ADNumber):
                anchor = anchor + (p - strip(p))        # 0, with p's derivative
        out = np.where(nan, np.nan * anchor, out)
    return out


def _finite(m):
    """m with its non-finite entries 0, so that scaling them makes no inf·0 in a derivative."""
    p = strip(m)
    with np.errstate(all="ignore"):
        fin = np.isfinite(p)
    return m if np.all(fin) else np.where(fin, m, 0.0)


def _stats(original, infra):
    def stats(self, *args, **kwds):
        shapes, loc, scale, moments = self._parse_args_stats(*args, **kwds)
        ok = _valid(self, shapes, loc, scale)
        if not _carries_ad(*shapes):
            std = original(self, *(strip(s) for s in shapes), moments=moments)
            std = list(std) if len(moments) > 1 else [std]
        elif ok.any():
            _integers(self, shapes, "stats")
            std = [None if s is None else _back(s, ok) for s in
                   _tracked_moments(self, _lanes(shapes, ok), moments, infra)]
        else:
            std = [np.full(ok.shape, np.nan) for _ in moments]
        out = []
        for m, s in zip(moments, std):
            p, sc, lo = np.asarray(strip(s), float), strip(scale), strip(loc)
            with np.errstate(all="ignore"):
                if m == "m":
                    v, const = _finite(s) * scale + loc, p * sc + lo
                elif m == "v":
                    v, const = _finite(s) * scale * scale, p * sc * sc
                else:
                    v, const = _finite(s), p
                out.append(_placed(v, const, ok, (*shapes, loc, scale)))
        out = [o[()] if isinstance(o, np.ndarray) else o for o in out]
        return out[0] if len(out) == 1 else tuple(out)
    return stats


def _entropy(original, infra):
    def entropy(self, *args, **kwds):
        shapes, loc, scale = self._parse_args(*args, **kwds)
        ok = _valid(self, shapes, loc, scale)
        if not _carries_ad(*shapes):
            h = np.asarray(original(self, *(strip(s) for s in shapes)), dtype=float)
        elif ok.any():
            _integers(self, shapes, "entropy")
            if _generic(self, "_entropy", infra):
                _refuse(self, "entropy", "_entropy")
            lanes = _lanes(shapes, ok)
            each = [_formula(self, "entropy", lambda k=k: self._entropy(*(s[k] for s in lanes)))
                    for k in range(int(np.count_nonzero(ok)))]
            each = [_array(e) for e in each]       # (an object array of dvlad numbers: one)
            h = _back(np.stack(each) if _carries_ad(*each) else np.asarray(each, float), ok)
        else:
            h = np.full(ok.shape, np.nan)
        with np.errstate(all="ignore"):
            const = np.asarray(strip(h), float) + np.log(strip(scale))
            safe = scale if ok.all() else np.where(ok, scale, 1.0)     # (log of a bad scale)
            out = _placed(_finite(h) + np.log(safe), const, ok, (*shapes, loc, scale))
        return out[()] if isinstance(out, np.ndarray) else out
    return entropy


def _lazyselect(condlist, choicelist, arrays, default=0):
    """scipy's ``_lazyselect`` (each function on the lanes of its condition, a later condition
    overriding an earlier one, as scipy's ``np.place`` does) on dvlad numbers: the lanes picked
    by indexing, the values put back by gathering."""
    arrays = np.broadcast_arrays(*arrays)
    shape = np.shape(strip(arrays[0]))
    code = np.mintypecode([np.asarray(strip(a)).dtype.char for a in arrays])
    out = np.full(shape, default, dtype=code)
    for func, cond in zip(choicelist, condlist):
        if np.all(cond is False):
            continue
        cond = np.broadcast_to(np.asarray(strip(cond), dtype=bool), shape)
        if cond.any():
            lanes = (np.reshape(a, (-1,))[cond.ravel()] for a in arrays)
            out = np.where(cond, _back(func(*lanes), cond, 0.0), out)
    return out


def install(infra):
    """Install the versions above in scipy (``infra``: scipy.stats._distn_infrastructure)."""
    import scipy._lib._util as util
    from scipy.stats import _continuous_distns as continuous
    for owner in (util, continuous):
        _patch(owner, "_lazyselect", _lazyselect)
    for name, make in (("stats", _stats), ("entropy", _entropy)):
        original = getattr(infra.rv_generic, name)
        _patch(infra.rv_generic, name,
               make(getattr(original, "__wrapped__", original), infra), bound=True)
