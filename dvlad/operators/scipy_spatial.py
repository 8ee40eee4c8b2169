"""scipy.spatial.distance's cdist, pdist and squareform on dvlad numbers.

scipy computes distances in C on float arrays; a dvlad number reached it as an object array
("Unsupported dtype object").  Installed over scipy.spatial.distance: with dvlad numbers among
the points, the distances are written with numpy's operations on the pairs' differences (so
they differentiate in every mode and nest), for the metrics with a derivative — euclidean,
sqeuclidean, cityblock, minkowski (p, w), chebyshev, seuclidean (V), mahalanobis (VI),
cosine, correlation, braycurtis, canberra — and a callable metric, called on each pair.  The
boolean and integer metrics (hamming, jaccard, ...) raise NotDifferentiableError.  pdist works
on the pairs i < j only, so no zero distance of a point to itself enters its derivative
(√ at 0 has none: two equal points in cdist give nan derivatives, as the norm has no
derivative there).  Calls without dvlad numbers are scipy's own.
"""
import numpy as np

from ..arrays.objects import repack
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError


def _sum(x, w):
    return np.sum(x if w is None else x * w, axis=-1)


def _cosine(a, b, centered, w=None):
    """scipy's correlation (centered) or cosine distance, w normalised to sum 1 as scipy's."""
    if w is not None:
        w = w / np.sum(w)
    if centered:
        a = a - (np.mean(a, axis=-1, keepdims=True) if w is None
                 else np.sum(a * w, axis=-1, keepdims=True))
        b = b - (np.mean(b, axis=-1, keepdims=True) if w is None
                 else np.sum(b * w, axis=-1, keepdims=True))
    return 1.0 - _sum(a * b, w) / np.sqrt(_sum(a * a, w) * _sum(b * b, w))


def _chebyshev(d, w):
    """max |d| over the lanes, those of a zero (or negative) weight left out, as scipy's."""
    return np.max(np.abs(d) if w is None else np.abs(d) * (strip(w) > 0), axis=-1)


def _metric(name, a, b, kwargs):
    """The distances between the rows a[k] and b[k] (arrays of the same shape (..., d))."""
    w = kwargs.get("w")
    d = a - b
    if name == "euclidean":
        return np.sqrt(_sum(d * d, w))
    if name == "sqeuclidean":
        return _sum(d * d, w)
    if name == "cityblock":
        return _sum(np.abs(d), w)
    if name == "minkowski":
        p = kwargs.get("p", 2.0)
        if strip(p) == np.inf:
            return _chebyshev(d, w)
        return _sum(np.abs(d) ** p, w) ** (1.0 / p)
    if name == "chebyshev":
        return _chebyshev(d, w)
    if name == "seuclidean":
        v = kwargs.get("V")
        if v is None:
            raise NotDifferentiableError("seuclidean of dvlad numbers: pass V (the variances)")
        return np.sqrt(np.sum(d * d / v, axis=-1))
    if name == "mahalanobis":
        vi = kwargs.get("VI")
        if vi is None:
            raise NotDifferentiableError("mahalanobis of dvlad numbers: pass VI (the inverse "
                                         "covariance)")
        return np.sqrt(np.sum((d @ vi) * d, axis=-1))
    if name in ("cosine", "correlation"):
        return _cosine(a, b, name == "correlation", w)
    if name == "braycurtis":
        return _sum(np.abs(d), w) / _sum(np.abs(a + b), w)
    if name == "canberra":
        den = np.abs(a) + np.abs(b)
        zero = strip(den) == 0
        return _sum(np.where(zero, 0.0, np.abs(d) / np.where(zero, 1.0, den)), w)
    raise NotDifferentiableError(
        f"scipy.spatial.distance: the metric {name!r} has no dvlad derivative (differentiable: "
        f"euclidean, sqeuclidean, cityblock, minkowski, chebyshev, seuclidean, mahalanobis, "
        f"cosine, correlation, braycurtis, canberra, or a callable)")


def _pairs(metric, a, b, kwargs):
    if callable(metric):
        return np.stack([metric(a[k], b[k], **kwargs) for k in range(np.shape(a)[0])]) \
            if np.shape(a)[0] else np.zeros(0)
    return _metric(str(metric).lower(), a, b, kwargs)


def _points(x, name):
    if not isinstance(x, ADNumber):
        x = np.asarray(x)
        if x.dtype == object:               # np.array([...]) of dvlad numbers: one array number
            x = repack(x)
    if np.ndim(x) != 2:
        raise ValueError(f"{name} must be a 2-dimensional array")
    return x


def _no_out(out, name):
    if out is not None:
        raise NotDifferentiableError(f"scipy.spatial.distance.{name} with out= of dvlad "
                                     f"numbers: use the returned array")


def cdist(XA, XB, metric="euclidean", *, out=None, **kwargs):
    """scipy's cdist: the (mA, mB) distances between the rows of XA and XB."""
    _no_out(out, "cdist")
    XA, XB = _points(XA, "XA"), _points(XB, "XB")
    if np.shape(XA)[1] != np.shape(XB)[1]:
        raise ValueError("XA and XB must have the same number of columns (i.e. feature "
                         "dimension.)")
    ma, mb = np.shape(XA)[0], np.shape(XB)[0]
    i, j = np.repeat(np.arange(ma), mb), np.tile(np.arange(mb), ma)
    return np.reshape(_pairs(metric, XA[i], XB[j], kwargs), (ma, mb))


def pdist(X, metric="euclidean", *, out=None, **kwargs):
    """scipy's pdist: the condensed distances of the pairs i < j of X's rows, in scipy's order."""
    _no_out(out, "pdist")
    X = _points(X, "X")
    i, j = np.triu_indices(np.shape(X)[0], 1)
    return _pairs(metric, X[i], X[j], kwargs)


def squareform(X, force="no", checks=True):
    """scipy's squareform: condensed distances to the symmetric matrix with a zero diagonal,
    or back (the matrix's entries i < j)."""
    X = X if isinstance(X, ADNumber) else repack(np.asarray(X))
    if np.ndim(X) == 1:
        m = len(strip(X))
        n = int(np.ceil(np.sqrt(2 * m)))
        if n * (n - 1) // 2 != m:
            raise ValueError("Incompatible vector size. It must be a binomial coefficient n "
                             "choose 2 for some integer n >= 2.")
        k = np.zeros((n, n), int)
        k[np.triu_indices(n, 1)] = np.arange(m)
        k = k + k.T
        return np.where(np.eye(n, dtype=bool), 0.0, np.take(X, k)) if m else np.zeros((n, n))
    if np.ndim(X) == 2:
        n = np.shape(X)[0]
        if checks and not np.allclose(strip(X), np.transpose(strip(X))):
            raise ValueError("Distance matrix 'X' must be symmetric.")
        return X[np.triu_indices(n, 1)]
    raise ValueError("The first argument must be one or two dimensional array. A "
                     f"{np.ndim(X)}-dimensional array is not permitted")


def _pair(centered):
    def distance(u, v, w=None, centered=centered):
        """scipy's cosine or correlation distance of two vectors, clipped to [0, 2] as
        scipy's."""
        return np.clip(_cosine(_points([u], "u")[0], _points([v], "v")[0], centered,
                               None if w is None else _points([w], "w")[0]), 0.0, 2.0)
    return distance


def install(distance):
    from .scipy_functions import _patch
    for name, ours in (("cdist", cdist), ("pdist", pdist), ("squareform", squareform),
                       ("cosine", _pair(False)), ("correlation", _pair(True))):
        _patch(distance, name, ours)
