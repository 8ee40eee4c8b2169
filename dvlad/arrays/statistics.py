"""numpy's statistics written with dvlad's array primitives: var, std, average, ptp, nansum,
nanmean, cumsum, sort, median, quantile, percentile, bincount (weights), sliding_window_view.

Each takes numpy's signature; a keyword that changes the value and that dvlad does not
differentiate raises NotDifferentiableError naming it.  ``cumsum`` is a linear primitive of its
own (its transpose is the reversed cumulative sum); the rest are made of indexing, sums and the
rule table's rows, so every mode and nesting comes from those.
"""
import numpy as np

from . import primitives as A
from .composite import _as_array, _axis_slices, _moveaxis, _ndim, _plain, _take, \
    _take_along_axis
from .primitives import _Apply, _primitive
from ..core.base import dtype_of
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS", "masked"]


# ---- statistics ---------------------------------------------------------------------------------

def masked(fn, a, axis=None, keepdims=False, initial=np._NoValue, where=np._NoValue):
    """fn (A.sum, A.prod, A.amax, A.amin, A.mean) with numpy's ``where=`` and ``initial=``: a
    lane where ``where`` is False counts as fn's identity (0, 1, −∞, ∞; mean leaves it out of
    the count), and ``initial`` joins as one more lane (sum: r + initial; max: one more lane,
    so a tie with it shares the derivative evenly), so the derivative in a masked-out lane is
    0.  numpy checks the arguments first, on the primal (a max with where= and no initial=
    raises numpy's error).

    >>> import numpy as np, dvlad
    >>> dvlad.gradient_r(lambda x: np.sum(x ** 2, where=[True, False, True]))(np.ones(3))
    array([2., 0., 2.])
    """
    numpy_fn, fill = _MASKED[fn]
    initial = np._NoValue if initial is None else initial
    given = {} if initial is np._NoValue else {"initial": strip(initial)}
    if where is not np._NoValue:
        given["where"] = np.asarray(strip(where), bool)
    r0 = numpy_fn(_primal(a), axis=axis, keepdims=keepdims, **given)   # numpy's errors
    m = given.get("where")
    if m is not None:
        m = np.broadcast_to(m, A.shape(a))
        if fn in (A.amax, A.amin) and not m.all() and np.any(r0 == fill):
            raise NotDifferentiableError(
                f"numpy.{numpy_fn.__name__} with where=: a result of {fill} among lanes left out "
                f"(filled with {fill}): dvlad does not split its derivative; leave the "
                f"{fill} lanes out first")
        a = A.where(m, a, fill)
    if fn is A.mean:
        count = np.sum(np.ones(A.shape(a), bool) if m is None else m, axis=axis,
                       keepdims=keepdims)
        return A.sum(a, axis, keepdims) / count.astype(_float_dtype(a))
    if initial is np._NoValue:
        return fn(a, axis, keepdims)
    if fn is A.sum or fn is A.prod:
        r = fn(a, axis, keepdims)
        return r + initial if fn is A.sum else r * initial
    return _one_more_lane(fn, a, axis, keepdims, initial)


def _primal(a):
    """a's primal as an array for numpy's own checks (a traced array as it is: dvlad.compile
    records the check instead of abandoning its trace)."""
    p = strip(a)
    return p if isinstance(p, np.ndarray) else np.asarray(p)


def _float_dtype(a):
    """The float dtype a mean of a is in (numpy's: float32 stays, integers give float64)."""
    return np.result_type(_dtype(a), np.float32)


def _dtype(a):
    p = strip(a)
    return p.dtype if isinstance(p, (np.ndarray, np.generic)) else np.asarray(p).dtype


def _one_more_lane(fn, a, axis, keepdims, initial):
    """fn (amax, amin) over ``axis`` of a with ``initial`` as one more lane of each reduction:
    the reduced axes moved last and made one, initial appended to it."""
    shp = A.shape(a)
    nd = len(shp)
    axes = tuple(range(nd)) if axis is None else tuple(sorted(
        {int(k) % nd for k in np.atleast_1d(axis)}))
    kept = [k for k in range(nd) if k not in axes]
    x = A.transpose(a, tuple(kept) + axes) if kept + list(axes) != list(range(nd)) else a
    x = A.reshape(x, tuple(shp[k] for k in kept) + (-1,))
    lane = tuple(shp[k] for k in kept) + (1,)
    init = A.broadcast_to(initial, lane) if isinstance(initial, ADNumber) else np.full(
        lane, initial, np.result_type(_dtype(a), initial))
    r = fn(A.concatenate([x, init], -1), -1, False)
    return A.reshape(r, tuple(1 if k in axes else shp[k] for k in range(nd))) if keepdims else r


_MASKED = {A.sum: (np.sum, 0.0), A.prod: (np.prod, 1.0), A.amax: (np.max, -np.inf),
           A.amin: (np.min, np.inf), A.mean: (np.mean, 0.0)}


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=np._NoValue,
         mean=np._NoValue, correction=np._NoValue):
    """np.var: Σ(a − ā)²/(n − ddof) over the axis; with where=, over the lanes it selects."""
    _plain("var", dtype=dtype, out=out, mean=mean)
    if correction is not np._NoValue:
        ddof = correction
    shp = A.shape(a)
    if where is not np._NoValue:
        m = np.asarray(strip(where), bool)
        np.var(_primal(a), axis=axis, ddof=ddof, where=m)               # numpy's errors
        m = np.broadcast_to(m, shp)
        d = A.where(m, a - masked(A.mean, a, axis, True, where=m), 0.0)
        n = np.maximum(np.sum(m, axis=axis, keepdims=bool(keepdims)) - ddof, 0)
        return A.sum(d * d, axis, bool(keepdims)) / n.astype(_float_dtype(a))
    n = int(np.prod(shp)) if axis is None else int(np.prod([shp[i] for i in np.atleast_1d(axis)]))
    d = a - A.mean(a, axis, True)
    n = _float_dtype(a).type(max(n - ddof, 0))     # (numpy's: 0 at most, and inf or nan)
    return A.sum(d * d, axis, bool(keepdims)) / n


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=np._NoValue,
         mean=np._NoValue, correction=np._NoValue):
    _plain("std", dtype=dtype, out=out, mean=mean)
    return np.sqrt(_var(a, axis, None, None, ddof, keepdims, where=where, correction=correction))


def _average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    a = _as_array(a)
    if weights is None:
        avg = A.mean(a, axis, bool(keepdims))
        total = np.prod(A.shape(a)) / np.prod(A.shape(avg)) + 0.0
    else:
        w = _as_array(weights)
        if A.shape(w) != A.shape(a):            # numpy: 1-d weights along the axis
            if axis is None or _ndim(w) != 1:
                raise ValueError("average: weights differ in shape from a; give an axis and "
                                 "1-d weights, as numpy asks")
            shp = [1] * _ndim(a)
            shp[axis % _ndim(a)] = A.shape(w)[0]
            w = A.reshape(w, tuple(shp)) if isinstance(w, ADNumber) else w.reshape(shp)
        total = A.sum(w * np.ones(A.shape(a)), axis, bool(keepdims))
        avg = A.sum(a * w, axis, bool(keepdims)) / total
    return (avg, total) if returned else avg


def _ptp(a, axis=None, out=None, keepdims=False):
    _plain("ptp", out=out)
    return A.amax(a, axis, bool(keepdims)) - A.amin(a, axis, bool(keepdims))


def _nan_zeroed(a):
    return A.where(np.isnan(strip(a)), 0.0, a)


def _nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
            where=np._NoValue):
    _plain("nansum", dtype=dtype, out=out, initial=initial, where=where)
    return A.sum(_nan_zeroed(a), axis, bool(keepdims))


def _nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=np._NoValue):
    _plain("nanmean", dtype=dtype, out=out, where=where)
    count = np.sum(~np.isnan(strip(a)), axis=axis, keepdims=bool(keepdims))
    return A.sum(_nan_zeroed(a), axis, bool(keepdims)) / count


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _plain("sort", order=order)
    if axis is None:
        a, axis = A.reshape(a, (-1,)), 0
    return _take_along_axis(a, np.argsort(strip(a), axis=axis, kind="stable"), axis)


def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
              keepdims=False, *, weights=None, interpolation=None):
    """numpy's 'linear' quantile: the sorted values at (n − 1)·q, interpolated linearly.  Its
    derivative picks the elements at those ranks (at a tie, stable sorting's choice); in q it is
    (n − 1)·(x₍ₖ₊₁₎ − x₍ₖ₎), the slope between them (at a rank itself, the one above)."""
    _plain("quantile", out=out, weights=weights, interpolation=interpolation)
    if method != "linear":
        raise NotDifferentiableError(f"numpy.quantile with method={method!r}: dvlad "
                                     f"differentiates method='linear'")
    if isinstance(axis, (tuple, list)):         # several axes: moved last, as one
        return _over_axes(a, q, tuple(axis), keepdims)
    tracked_q = q if isinstance(q, ADNumber) else None
    q = np.asarray(strip(q), dtype=float)
    nd = _ndim(a)
    if axis is None:
        srt, ax = _sort(A.reshape(a, (-1,)), 0), 0
    else:
        ax = axis % nd
        srt = _sort(a, ax)
    n = A.shape(srt)[ax]
    pos = (n - 1) * q
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    frac = pos - lo
    # the q axis first, as numpy puts it
    low = _moveaxis(_take(srt, lo.reshape(-1), axis=ax), ax, 0)
    high = _moveaxis(_take(srt, hi.reshape(-1), axis=ax), ax, 0)
    fr = frac.reshape((-1,) + (1,) * (_ndim(low) - 1))
    if tracked_q is not None:                 # the weight as a number of q: (n − 1)·q − k
        fr = A.reshape(tracked_q * float(n - 1) - lo, fr.shape)
    elif np.dtype(dtype_of(strip(a))).kind == "f":        # (float32 stays float32)
        fr = fr.astype(dtype_of(strip(a)))
    out = low + (high - low) * fr
    out = A.reshape(out, q.shape + A.shape(out)[1:])
    if keepdims:
        kept = [1] * nd
        if axis is not None:
            kept = list(A.shape(a))
            kept[ax] = 1
        out = A.reshape(out, q.shape + tuple(kept))
    return out


def _over_axes(a, q, axes, keepdims):
    """The quantile over several axes: those moved last and joined into one."""
    nd = _ndim(a)
    axes = tuple(sorted(k % nd for k in axes))
    rest = [k for k in range(nd) if k not in axes]
    shp = A.shape(a)
    joined = A.reshape(A.transpose(a, rest + list(axes)),
                       tuple(shp[k] for k in rest) + (-1,))
    out = _quantile(joined, q, -1)
    if keepdims:
        kept = tuple(1 if k in axes else shp[k] for k in range(nd))
        out = A.reshape(out, np.shape(strip(q)) + kept)
    return out


def _percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    q = q / 100.0 if isinstance(q, ADNumber) else np.asarray(q, dtype=float) / 100
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights,
                     interpolation=interpolation)


def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _quantile(a, 0.5, axis, out, overwrite_input, "linear", keepdims)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """np.diff, prepend and append as numpy takes them (broadcast along axis, then joined)."""
    nd = len(A.shape(a))
    axis = axis % max(nd, 1)
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            parts.append(a)
        elif extra is not np._NoValue:
            shp = list(A.shape(a))
            shp[axis] = 1
            parts.append(A.broadcast_to(extra, tuple(shp)) if not len(A.shape(extra))
                         else extra)
    if len(parts) > 1:
        a = A.concatenate(parts, axis)
    for _ in range(n):
        nd = len(A.shape(a))
        hi = [slice(None)] * nd
        lo = [slice(None)] * nd
        hi[axis], lo[axis] = slice(1, None), slice(None, -1)
        a = A.getitem(a, tuple(hi)) - A.getitem(a, tuple(lo))
    return a


# ---- cumulative sums: a linear primitive whose transpose is the reversed cumulative sum --------

def _reversed_cumsum(s, axis):
    flip = _axis_slices(_ndim(s), axis, slice(None, None, -1))
    return A.getitem(cumsum_axis(A.getitem(s, flip), axis), flip)


cumsum_axis = _primitive(
    "cumsum", lambda x, axis: np.cumsum(x, axis=axis),
    lambda x, axis: (_Apply(lambda t: cumsum_axis(t, axis),
                            lambda s: _reversed_cumsum(s, axis)), None))


def _cumsum(a, axis=None, dtype=None, out=None):
    _plain("cumsum", dtype=dtype, out=out)
    if axis is None:
        return cumsum_axis(A.reshape(a, (-1,)), 0)
    return cumsum_axis(a, axis % _ndim(a))


# ---- counts with weights, sliding windows ------------------------------------------------------

def _bincount(x, weights=None, minlength=0):
    """np.bincount(x, weights=w): out[k] = Σ over i with xᵢ = k of wᵢ, linear in w (the
    transpose of w's gather by x); x, the bins, is integer-valued and answers for its primal."""
    x = np.asarray(strip(x))
    if weights is None or not isinstance(weights, ADNumber):
        return np.bincount(x, None if weights is None else strip(weights), minlength)
    if A.shape(weights) != x.shape or x.ndim != 1:
        return np.bincount(x, strip(weights), minlength)    # numpy's own error
    n = max(int(x.max()) + 1 if x.size else 0, minlength)
    return A.scatter(weights, (np.asarray(x, np.intp),), (n,))


def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """np.lib.stride_tricks.sliding_window_view: numpy's windows of the positions of x's
    elements, gathered from x (a read-only view in numpy; a gather, whose transpose adds each
    window's sensitivity back, here)."""
    if writeable:
        raise NotDifferentiableError("sliding_window_view(writeable=True): dvlad's windows are "
                                     "values, not views to write into; build the result anew")
    shp = A.shape(x)
    positions = np.arange(int(np.prod(shp))).reshape(shp)
    idx = np.lib.stride_tricks.sliding_window_view(positions, window_shape, axis)
    return A.getitem(A.reshape(x, (-1,)), np.ascontiguousarray(idx))


def _histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram: numpy's bins and counts from the primal (counts are piecewise constant in
    a: derivative 0); with weights, each bin's sum of them, linear in the weights; the edges
    (no range, a number of bins or a rule) move with a's min and max; density = n/Δedge/Σn."""
    edges = _histogram_bin_edges(a, bins, range, weights)
    w0 = None if weights is None else np.asarray(strip(weights))
    hist, _ = np.histogram(_primal(a), bins, range, False, w0)     # numpy's own sums
    if isinstance(weights, ADNumber):
        e0, x = np.asarray(strip(edges)), np.ravel(_primal(a))
        keep = (x >= e0[0]) & (x <= e0[-1])
        k = np.minimum(np.searchsorted(e0, x[keep], "right") - 1, e0.size - 2)
        sums = _bincount(k, A.getitem(A.reshape(weights, (-1,)), (np.flatnonzero(keep),)),
                         e0.size - 1)
        hist = hist + (sums - strip(sums))          # numpy's sums, the weights' derivatives
    if density:
        hist = hist / np.diff(edges) / np.sum(hist)
    return hist, edges


def _histogram_bin_edges(a, bins=10, range=None, weights=None):
    """np.histogram_bin_edges: numpy's edges; those spread from a's min to its max (bins a
    number or a rule, no range) move with them: lo + (hi − lo)·t, t numpy's positions."""
    e0 = np.histogram_bin_edges(_primal(a), bins, range,
                                None if weights is None else np.asarray(strip(weights)))
    if not isinstance(a, ADNumber) or range is not None or np.ndim(bins) != 0:
        return e0
    lo, hi = A.amin(a, None, False), A.amax(a, None, False)
    if strip(lo) == strip(hi):                      # numpy's ±0.5 around a single value
        lo, hi = lo - 0.5, hi + 0.5
    moving = lo + (hi - lo) * ((e0 - e0[0]) / (e0[-1] - e0[0]))
    return e0 + (moving - strip(moving))            # numpy's values, the ends' derivatives


FUNCTIONS = {
    np.histogram: _histogram, np.histogram_bin_edges: _histogram_bin_edges,
    np.bincount: _bincount,
    np.lib.stride_tricks.sliding_window_view: _sliding_window_view,
    np.var: _var, np.std: _std, np.average: _average, np.ptp: _ptp, np.nansum: _nansum,
    np.nanmean: _nanmean, np.cumsum: _cumsum, np.sort: _sort, np.quantile: _quantile,
    np.percentile: _percentile, np.median: _median,
}
