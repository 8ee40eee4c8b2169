"""numpy's numerical functions written with dvlad's array primitives: gradient, cov, corrcoef,
cumulative_sum, cumulative_prod, nan_to_num, ediff1d, piecewise, unwrap, i0, the nan-quantiles
(nanmedian, nanquantile, nanpercentile), angle and real_if_close of real numbers; the
polynomials (:mod:`dvlad.arrays.polynomials`) and numpy.linalg's array-API functions
(:mod:`dvlad.arrays.linalg_api`) are merged in here.

Each takes numpy's signature.  A keyword that changes the value and that dvlad does not
differentiate raises NotDifferentiableError naming it.  ``UFUNCS`` re-exports
:mod:`dvlad.arrays.ufuncs`' handlers of numpy ufuncs (heaviside, fmod, modf...) for the
protocol's ufunc table.
"""
import warnings

import numpy as np

from . import linalg_api, polynomials, ufuncs
from . import primitives as A
from .composite import _as_array, _axis_slices, _ndim, _plain, _take_along_axis
from .products import _cast, _same_dtype
from .statistics import _average
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError
from ..numbers.primitives import OPS

__all__ = ["FUNCTIONS", "UFUNCS"]

UFUNCS = ufuncs.UFUNCS       # numpy ufuncs -> handlers, for the protocol's ufunc table


def _p(a):
    return np.asarray(strip(a))


def _along(v, nd, axis):
    """A 1-d v shaped to broadcast along ``axis`` of an nd-dimensional array."""
    shp = [1] * nd
    shp[axis] = -1
    return A.reshape(v, tuple(shp)) if isinstance(v, ADNumber) else np.reshape(v, shp)


# ---- finite differences -------------------------------------------------------------------------

def _gradient(f, *varargs, axis=None, edge_order=1):
    """numpy.gradient: second-order central differences inside, (f₁ − f₀)/h at the ends
    (edge_order=2: one-sided second-order ones); on coordinates x with steps h₁, h₂ the
    interior is −h₂/(h₁(h₁+h₂))·f₋ + (h₂−h₁)/(h₁h₂)·f₀ + h₁/(h₂(h₁+h₂))·f₊.  Linear in f;
    spacings and coordinates may be tracked too."""
    f = _as_array(f)
    if _dtype_of_kind(f) in "biu":
        f = f.astype(np.float64)
    nd = _ndim(f)
    axes = list(range(nd)) if axis is None else [ax % nd for ax in np.atleast_1d(axis)]
    if len(varargs) == 0:
        dx = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(strip(varargs[0])) == 0:
        dx = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dx = []
        for ax, d in zip(axes, varargs):
            if np.ndim(strip(d)) == 0:
                dx.append(d)
                continue
            if _ndim(d) != 1 or A.shape(d)[0] != A.shape(f)[ax]:
                raise ValueError("when 1d, distances must match the length of the "
                                 "corresponding dimension")
            d = _as_array(d)
            diffx = A.getitem(d, slice(1, None)) - A.getitem(d, slice(None, -1))
            p = _p(diffx)
            dx.append(A.getitem(diffx, 0) if not isinstance(diffx, ADNumber)
                      and np.all(p == p[0]) else diffx)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    out = [_gradient_axis(f, ax, h, edge_order) for ax, h in zip(axes, dx)]
    return out[0] if len(out) == 1 else tuple(out)


def _dtype_of_kind(f):
    return _p(f).dtype.kind


def _gradient_axis(f, ax, h, edge_order):
    nd = _ndim(f)
    if A.shape(f)[ax] < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")
    part = lambda lo, hi: A.getitem(f, _axis_slices(nd, ax, slice(lo, hi)))
    uniform = _ndim(h) == 0
    if uniform:
        inner = (part(2, None) - part(None, -2)) / (2.0 * h)
    else:
        h1, h2 = A.getitem(h, slice(None, -1)), A.getitem(h, slice(1, None))
        a = _along(-h2 / (h1 * (h1 + h2)), nd, ax)
        b = _along((h2 - h1) / (h1 * h2), nd, ax)
        c = _along(h1 / (h2 * (h1 + h2)), nd, ax)
        inner = a * part(None, -2) + b * part(1, -1) + c * part(2, None)
    first, last = (h, h) if uniform else (A.getitem(h, 0), A.getitem(h, -1))
    if edge_order == 1:
        lo = (part(1, 2) - part(0, 1)) / first
        hi = (part(-1, None) - part(-2, -1)) / last
    elif uniform:
        lo = -1.5 / h * part(0, 1) + 2.0 / h * part(1, 2) + -0.5 / h * part(2, 3)
        hi = 0.5 / h * part(-3, -2) + -2.0 / h * part(-2, -1) + 1.5 / h * part(-1, None)
    else:
        h1, h2 = A.getitem(h, 0), A.getitem(h, 1)
        lo = (-(2.0 * h1 + h2) / (h1 * (h1 + h2)) * part(0, 1) + (h1 + h2) / (h1 * h2)
              * part(1, 2) + -h1 / (h2 * (h1 + h2)) * part(2, 3))
        h1, h2 = A.getitem(h, -2), A.getitem(h, -1)
        hi = (h2 / (h1 * (h1 + h2)) * part(-3, -2) + -(h2 + h1) / (h1 * h2) * part(-2, -1)
              + (2.0 * h2 + h1) / (h2 * (h1 + h2)) * part(-1, None))
    return A.concatenate([lo, inner, hi], ax)


def _ediff1d(ary, to_end=None, to_begin=None):
    """a.flat[1:] − a.flat[:-1], with to_begin before and to_end after (cast to a's dtype)."""
    flat = A.reshape(_as_array(ary), (-1,))
    dt = _p(flat).dtype
    parts = [A.getitem(flat, slice(1, None)) - A.getitem(flat, slice(None, -1))]
    for k, extra in ((0, to_begin), (2, to_end)):
        if extra is None:
            continue
        extra = A.reshape(_as_array(extra), (-1,))
        if not np.can_cast(_p(extra).dtype, dt, casting="same_kind"):
            raise TypeError("dtype of `to_begin` or `to_end` must be compatible with input "
                            "`ary` under the `same_kind` rule.")
        if _p(extra).dtype != dt:
            extra = _cast(extra, dt) if isinstance(extra, ADNumber) else extra.astype(dt)
        parts.insert(k, extra)
    return A.concatenate(parts)


def _unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """p plus the multiples of the period that numpy's unwrap adds (piecewise constant, from
    the primals): dp passes as it is."""
    if isinstance(discont, ADNumber) or isinstance(period, ADNumber):
        raise NotDifferentiableError("numpy.unwrap: dvlad does not differentiate in discont or "
                                     "period (the result jumps with them); pass plain numbers")
    p = _as_array(p)
    pp = _p(p)
    dd = np.diff(pp, axis=axis)
    if np.issubdtype(np.result_type(dd, period), np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    ddmod = np.mod(dd + high, period) - high              # numpy's steps, on the primals
    if ambiguous:
        ddmod = np.where((ddmod == -high) & (dd > 0), high, ddmod)
    fix = np.where(np.abs(dd) < (period / 2 if discont is None else discont), 0, ddmod - dd)
    first = np.zeros_like(np.take(pp, [0], axis), dtype=fix.dtype)
    added = np.concatenate([first, np.cumsum(fix, axis=axis)], axis)
    return p + added


# ---- statistics -------------------------------------------------------------------------------------

def _cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
         dtype=None):
    """(X − x̄)(X − x̄)ᵀ / (n − ddof), the rows of X the variables (numpy's weighted forms
    too: fweights counts, aweights tracked or not)."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    dt = np.dtype(dtype) if dtype is not None else np.result_type(
        _p(m), np.float64, *(() if y is None else (_p(y),)))
    if dt.kind != "f":
        raise NotDifferentiableError(f"numpy.cov with dtype={dt}: dvlad differentiates real "
                                     f"floats; leave dtype= out")

    def rows(v):
        v = _as_array(v)
        if _ndim(v) > 2:
            raise ValueError("m has more than 2 dimensions")
        if _p(v).dtype != dt:
            v = _cast(v, dt) if isinstance(v, ADNumber) else v.astype(dt)
        v = A.reshape(v, (1,) * (2 - _ndim(v)) + A.shape(v))
        return A.transpose(v) if not rowvar and A.shape(v)[0] != 1 else v

    X = rows(m)
    if A.shape(X)[0] == 0:
        return np.array([]).reshape(0, 0)
    if y is not None:
        X = A.concatenate([X, rows(y)], 0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None
    if fweights is not None:
        w = np.asarray(strip(fweights), dtype=float)
    if aweights is not None:
        aw = _as_array(aweights)
        w = aw if w is None else w * aw
    avg, w_sum = _average(X, 1, w, True)
    if w is None:
        fact = A.shape(X)[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * A.sum(w * aw) / w_sum
    fact = A.getitem(fact, 0) if _ndim(fact) else fact
    if np.any(_p(fact) <= 0):
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
        fact = 0.0
    X = X - A.reshape(avg, (-1, 1))
    XT = A.transpose(X if w is None else X * w)
    c = np.matmul(X, XT) * np.true_divide(1, fact)
    return A.squeeze(c)


def _corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """cov(x, y) / (σᵢσⱼ), clipped to [−1, 1] as numpy clips it."""
    c = _cov(x, y, rowvar, dtype=dtype)
    if _ndim(c) == 0:
        return c / c
    stddev = np.sqrt(np.diagonal(c))
    c = c / A.reshape(stddev, (-1, 1))
    c = c / A.reshape(stddev, (1, -1))
    return A.clip(c, -1, 1)


def _cumulative(name, numpy_f, initial):
    def cumulative(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        """numpy's array-API cumulative sum or product: cumsum or cumprod along ``axis``, with
        include_initial its identity first."""
        _plain(name, out=out)
        _same_dtype(name, x, dtype)
        x = _as_array(x)
        if axis is None:
            if _ndim(x) > 1:
                raise ValueError("For arrays which have more than one dimension ``axis`` "
                                 "argument is required.")
            axis = 0
        x = A.reshape(x, (1,)) if _ndim(x) == 0 else x
        r = numpy_f(x, axis=axis)
        if include_initial:
            shp = list(A.shape(r))
            shp[axis] = 1
            r = A.concatenate([np.full(shp, initial, _p(r).dtype), r], axis)
        return r
    cumulative.__name__ = name
    return cumulative


def _nan_ranked(name, a, axis, keepdims, pick):
    """pick(sorted rows, counts) on the numbers that are not nan along ``axis`` (nans sort
    last); all-nan rows give nan with numpy's warning.  The result q-shape first."""
    a = _as_array(a)
    nd = _ndim(a)
    axes = list(range(nd)) if axis is None else sorted({ax % nd for ax in np.atleast_1d(axis)})
    rest = [k for k in range(nd) if k not in axes]
    shp = A.shape(a)
    rows = int(np.prod([shp[k] for k in rest]))
    flat = A.reshape(A.transpose(a, tuple(rest + axes)) if nd else a,
                     (rows, int(np.prod([shp[k] for k in axes]))))
    srt = _take_along_axis(flat, np.argsort(_p(flat), axis=-1, kind="stable"), -1)
    count = np.sum(~np.isnan(_p(flat)), axis=-1)
    r = pick(srt, count)                             # q-shape + (rows,)
    empty = count == 0
    if np.any(empty):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
        r = A.where(empty, np.nan, r)
    qshape = A.shape(r)[:-1]
    if keepdims is True:
        kept = tuple(1 if k in axes else shp[k] for k in range(nd))
    else:
        kept = tuple(shp[k] for k in rest)
    return A.reshape(r, qshape + kept)


def _nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                 keepdims=np._NoValue, *, weights=None, interpolation=None):
    """numpy's 'linear' quantile of the numbers that are not nan: the sorted values at
    (n − 1)·q, interpolated as numpy does (b − (b − a)(1 − t) from t = ½ on)."""
    return _nan_quantile("nanquantile", a, q, 1, axis, out, method, keepdims, weights,
                         interpolation)


def _nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                   keepdims=np._NoValue, *, weights=None, interpolation=None):
    """nanquantile at q/100."""
    return _nan_quantile("nanpercentile", a, q, 100, axis, out, method, keepdims, weights,
                         interpolation)


def _nan_quantile(name, a, q, per, axis, out, method, keepdims, weights, interpolation):
    _plain(name, out=out, weights=weights, interpolation=interpolation)
    if method != "linear":
        raise NotDifferentiableError(f"numpy.{name} with method={method!r}: dvlad "
                                     f"differentiates method='linear'")
    if isinstance(q, ADNumber):
        raise NotDifferentiableError(f"numpy.{name} in q: dvlad differentiates it in the data; "
                                     f"np.quantile/np.percentile (no nan) differentiate in q")
    # numpy's result dtype: a Python number q keeps float32, an array of q's promotes
    dt = np.result_type(_p(a).dtype, q if isinstance(q, (int, float)) else _p(q).dtype)
    q = np.asarray(strip(q), dtype=float) / per
    if np.any((q < 0) | (q > 1)):
        raise ValueError(f"{'Quantiles' if per == 1 else 'Percentiles'} must be in the range "
                         f"[0, {per}]")
    a = _as_array(a)
    if _p(a).dtype != dt:
        a = _cast(a, dt) if isinstance(a, ADNumber) else a.astype(dt)

    def pick(srt, count):
        pos = (np.maximum(count, 1) - 1) * q[..., None]        # q-shape + (rows,)
        lo = np.floor(pos).astype(np.intp)
        hi = np.minimum(lo + 1, np.maximum(count, 1) - 1)
        t = (pos - lo).astype(dt)
        rows = np.arange(count.shape[0])
        low, high = A.getitem(srt, (rows, lo)), A.getitem(srt, (rows, hi))
        d = high - low
        return A.where(t >= 0.5, high - d * (1 - t), low + d * t)
    return _nan_ranked(name, a, axis, keepdims, pick)


def _nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=np._NoValue):
    """The middle of the sorted numbers that are not nan, (x₍ₖ₎ + x₍ₙ₋₁₋ₖ₎)/2."""
    _plain("nanmedian", out=out)

    def pick(srt, count):
        rows = np.arange(count.shape[0])
        n = np.maximum(count, 1)
        low, high = A.getitem(srt, (rows, (n - 1) // 2)), A.getitem(srt, (rows, n // 2))
        return (low + high) / 2
    return _nan_ranked("nanmedian", a, axis, keepdims, pick)


# ---- values elementwise -------------------------------------------------------------------------

def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """x with nan, +inf and −inf replaced (by numbers that may be tracked); elsewhere dx."""
    x = _as_array(x)
    p = _p(x)
    if p.dtype.kind != "f":
        return x
    big = np.finfo(p.dtype).max
    r = A.where(np.isnan(p), nan, x)
    r = A.where(np.isposinf(p), big if posinf is None else posinf, r)
    return A.where(np.isneginf(p), -big if neginf is None else neginf, r)


def _angle(z, deg=False):
    """The argument of a real number: 0 for x ≥ 0, π for x < 0, piecewise constant: the
    primal's, no derivative."""
    return np.angle(strip(z), deg)


def _real_if_close(a, tol=100):
    """A real array is its own real part: a itself."""
    return a


def _i0(x):
    """I₀(x), the modified Bessel function, by the rule table's row (I₀′ = I₁)."""
    return OPS[np.i0.__name__](x)


def _piecewise(x, condlist, funclist, *args, **kw):
    """funclist[k](x[cond_k]) (or the constant funclist[k]) where cond_k holds, the later
    conditions winning, 0 elsewhere; an extra function is the 'otherwise'.  The conditions
    answer for their primals; each function's derivative is its own."""
    x = _as_array(x)
    scalar = _ndim(x) == 0
    if scalar:
        x = A.reshape(x, (1,))
    n2 = len(funclist)
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray, ADNumber))
                                 and not scalar):
        condlist = [condlist]
    conds = [np.asarray(strip(c), dtype=bool).reshape(A.shape(x)) for c in condlist]
    if len(conds) == n2 - 1:
        conds.append(~np.any(conds, axis=0))
    elif len(conds) != n2:
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    y = np.zeros(A.shape(x), _p(x).dtype)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y = A.where(cond, func, y)
        elif cond.any():
            vals = func(A.getitem(x, cond), *args, **kw)
            vals = A.broadcast_to(vals, (int(cond.sum()),)) if _ndim(vals) == 0 else vals
            y = A.where(cond, A.scatter(vals, cond, A.shape(x)), y)
    return A.reshape(y, ()) if scalar else y


FUNCTIONS = {
    np.gradient: _gradient, np.ediff1d: _ediff1d, np.unwrap: _unwrap, np.cov: _cov,
    np.corrcoef: _corrcoef,
    np.cumulative_sum: _cumulative("cumulative_sum", np.cumsum, 0),
    np.cumulative_prod: _cumulative("cumulative_prod", np.cumprod, 1),
    np.nanquantile: _nanquantile, np.nanpercentile: _nanpercentile, np.nanmedian: _nanmedian,
    np.nan_to_num: _nan_to_num, np.angle: _angle, np.real_if_close: _real_if_close, np.i0: _i0,
    np.piecewise: _piecewise,
}
FUNCTIONS.update(polynomials.FUNCTIONS)
FUNCTIONS.update(linalg_api.FUNCTIONS)
