"""numpy's products and selections beyond linalg's (kron, cross, vdot, cumprod, select, choose,
interp, trapezoid, convolve...), written with dvlad's array primitives.

Each takes numpy's signature.  A keyword that changes the value and that dvlad does not
differentiate (``out=``, ``dtype=``, ``where=``) raises NotDifferentiableError naming it.  An
argument that only picks (the indices of ``choose``, the conditions of ``select``) answers for
its primal.  Everything is made of indexing, reshape, concatenate, where, sums, matmul and the
rule table's rows, so forward and reverse mode and every nesting come from those; the one
primitive of its own here is a dtype cast (linear: its transpose casts back).
"""
import warnings

import numpy as np

from . import linalg as LA
from . import primitives as A
from .composite import _as_array, _axis_slices, _moveaxis, _ndim, _plain
from .primitives import _Apply, _primitive
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS"]


def _same_dtype(fn, a, dtype):
    """Refuse a dtype= that would change the value (one equal to a's own changes nothing)."""
    if dtype is not None and np.dtype(dtype) != np.asarray(strip(a)).dtype:
        raise NotDifferentiableError(f"numpy.{fn} with dtype={dtype!r}: dvlad does not "
                                     f"differentiate through the cast; leave dtype= out (or "
                                     f"give the input's own dtype)")


def _float_dtype(a):
    return np.result_type(np.asarray(strip(a)).dtype, np.float32)


def _cast_partials(x, dt):
    """d(cast x) = cast(dx); the transpose casts a sensitivity back to x's dtype."""
    back = np.asarray(strip(x)).dtype
    return (_Apply(lambda t: _cast(t, dt), lambda s: _cast(s, back)), None)


_cast = _primitive("cast", lambda x, dt: np.asarray(x).astype(dt)[()], _cast_partials)


def _f64(v):
    """v in float64 at least, as numpy's interp computes (a float32 AD number times a float64
    one: exact)."""
    v = _as_array(v)
    if isinstance(v, ADNumber):
        return v if _float_dtype(v) == np.float64 else v * np.ones((), np.float64)
    return np.asarray(v, dtype=np.result_type(v, np.float64))


# ---- products ------------------------------------------------------------------------------------

def _kron(a, b):
    """kron(a, b)[i·n + k, ...] = a[i, ...]·b[k, ...]: a and b reshaped so that their axes
    interleave, one product, one reshape."""
    a, b = _as_array(a), _as_array(b)
    sa, sb = A.shape(a), A.shape(b)
    nd = max(len(sa), len(sb))
    if nd == 0:
        return a * b
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    pa = A.reshape(a, sum(((n, 1) for n in sa), ()))
    pb = A.reshape(b, sum(((1, n) for n in sb), ()))
    return A.reshape(pa * pb, tuple(m * n for m, n in zip(sa, sb)))


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """a × b along the vector axes: c = (a₁b₂ − a₂b₁, a₂b₀ − a₀b₂, a₀b₁ − a₁b₀), a missing third
    component 0 (numpy's 2-vectors; two 2-vectors give the z component only)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _moveaxis(_as_array(a), axisa, -1), _moveaxis(_as_array(b), axisb, -1)
    na, nb = A.shape(a)[-1], A.shape(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=3)
    x = [A.getitem(a, (Ellipsis, k)) for k in range(na)]
    y = [A.getitem(b, (Ellipsis, k)) for k in range(nb)]
    z = x[0] * y[1] - x[1] * y[0]              # numpy's order of operations, for equal values
    if na == nb == 2:
        return z
    if na == 2:
        comps = [x[1] * y[2], -(x[0] * y[2]), z]
    elif nb == 2:
        comps = [-(x[2] * y[1]), x[2] * y[0], z]
    else:
        comps = [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], z]
    return _moveaxis(A.stack(comps, -1), -1, axisc)


def _vdot(a, b):
    """Σₖ a.flat[k]·b.flat[k] (real numbers: no conjugate)."""
    return LA.dot(A.reshape(_as_array(a), (-1,)), A.reshape(_as_array(b), (-1,)))


def _prefix_products(x):
    """Inclusive products along the last axis, y_k = Π_{j≤k} x_j, by ⌈log₂ n⌉ doubling steps of
    multiplications only: no division, so every derivative is right at a zero too
    (∂y_k/∂x_i = Π_{j≤k, j≠i} x_j, the product of the others)."""
    m, k = A.shape(x)[-1], 1
    while k < m:
        x = A.concatenate([A.getitem(x, (Ellipsis, slice(None, k))),
                           A.getitem(x, (Ellipsis, slice(k, None)))
                           * A.getitem(x, (Ellipsis, slice(None, m - k)))], -1)
        k *= 2
    return x


def _cumprod(a, axis=None, dtype=None, out=None):
    """y_k = Π_{j≤k} a_j along ``axis`` (the flattened array for None), exact at zeros."""
    _plain("cumprod", out=out)
    _same_dtype("cumprod", a, dtype)
    a = _as_array(a)
    if axis is None:
        return _prefix_products(A.reshape(a, (-1,)))
    if _ndim(a) == 0:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension 0")
    return _moveaxis(_prefix_products(_moveaxis(a, axis, -1)), -1, axis)


# ---- the nan- family: nan lanes replaced first, so no derivative ever passes through a nan --------

def _nan_as(a, value):
    a = _as_array(a)
    return A.where(np.isnan(strip(a)), value, a), np.isnan(strip(a))


def _nancumsum(a, axis=None, dtype=None, out=None):
    _plain("nancumsum", out=out)
    _same_dtype("nancumsum", a, dtype)
    return np.cumsum(_nan_as(a, 0.0)[0], axis=axis)


def _nancumprod(a, axis=None, dtype=None, out=None):
    _plain("nancumprod", out=out)
    _same_dtype("nancumprod", a, dtype)
    return _cumprod(_nan_as(a, 1.0)[0], axis)


def _nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
             where=np._NoValue):
    _plain("nanprod", out=out, initial=initial, where=where)
    _same_dtype("nanprod", a, dtype)
    return A.prod(_nan_as(a, 1.0)[0], axis, bool(keepdims))


def _nanextreme(name, fill, reduce):
    def nanextreme(a, axis=None, out=None, keepdims=False, initial=np._NoValue,
                   where=np._NoValue):
        """The extreme of the numbers that are not nan (nan where all are); ties share the
        derivative evenly, as amax's and amin's do."""
        _plain(name, out=out, initial=initial, where=where)
        filled, nan = _nan_as(a, fill)
        r = reduce(filled, axis, bool(keepdims))
        empty = np.all(nan, axis=axis, keepdims=bool(keepdims))
        if np.any(empty):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
            r = A.where(empty, np.nan, r)
        return r
    return nanextreme


def _nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=np._NoValue,
            mean=np._NoValue, correction=np._NoValue):
    """Σ (a − ā)² / (n − ddof) over the numbers that are not nan, n their count."""
    _plain("nanvar", out=out, where=where, mean=mean)
    _same_dtype("nanvar", a, dtype)
    if correction is not np._NoValue:
        ddof = correction
    zeroed, nan = _nan_as(a, 0.0)
    dt = _float_dtype(a)
    count = np.sum(~nan, axis=axis, keepdims=True).astype(dt)
    d = A.where(nan, 0.0, zeroed - A.sum(zeroed, axis, True) / count)
    n = np.sum(~nan, axis=axis, keepdims=bool(keepdims)).astype(dt)
    return A.sum(d * d, axis, bool(keepdims)) / (n - ddof)[()]


def _nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=np._NoValue,
            mean=np._NoValue, correction=np._NoValue):
    _plain("nanstd", out=out, where=where, mean=mean)
    return np.sqrt(_nanvar(a, axis, dtype, None, ddof, keepdims, correction=correction))


# ---- selections: conditions and indices answer for their primals -------------------------------

def _select(condlist, choicelist, default=0):
    """where(c₀, v₀, where(c₁, v₁, ... default)): the first true condition picks."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [np.asarray(strip(c)) for c in condlist]
    if any(c.dtype != bool for c in conds):
        raise TypeError("invalid entry in condlist: should be boolean ndarray")
    out = default if np.ndim(default) == 0 else _as_array(default)   # a scalar stays weak
    for c, v in zip(reversed(conds), reversed(list(choicelist))):
        out = A.where(c, _as_array(v), out)
    return out


def _choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i], with the choices broadcast against a; a answers for its primal."""
    _plain("choose", out=out)
    idx = np.asarray(strip(a))
    if idx.dtype.kind not in "biu":
        raise TypeError(f"Cannot cast array data from dtype({idx.dtype.name!r}) to "
                        f"dtype('int64') according to the rule 'safe'")
    choices = [_as_array(c) for c in choices]
    n = len(choices)
    if mode in ("wrap", "w"):
        idx = idx % n
    elif mode in ("clip", "c"):
        idx = np.clip(idx, 0, n - 1)
    elif mode not in ("raise", "r", None):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    elif np.any((idx < 0) | (idx >= n)):
        raise ValueError("invalid entry in choice array")
    shp = np.broadcast_shapes(idx.shape, *(A.shape(c) for c in choices))
    r = choices[-1]
    for k in range(n - 2, -1, -1):
        r = A.where(idx == k, choices[k], r)
    return A.broadcast_to(r, shp) if A.shape(r) != shp else r


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """fill_value broadcast to a's shape (or ``shape``), cast to a's dtype (or ``dtype``): a
    contributes its shape and dtype only; an integer result is piecewise constant in
    fill_value, so it answers for the primals."""
    template = np.empty_like(strip(a), dtype=dtype, order=order, subok=subok, shape=shape,
                             device=device)
    if not isinstance(fill_value, ADNumber) or template.dtype.kind != "f":
        return np.full_like(template, strip(fill_value))
    if np.asarray(strip(fill_value)).dtype != template.dtype:
        fill_value = _cast(fill_value, template.dtype)
    return A.broadcast_to(fill_value, template.shape)


# ---- integrals and interpolation -------------------------------------------------------------

def _trapezoid(y, x=None, dx=1.0, axis=-1):
    """Σ_k d_k (y_{k+1} + y_k) / 2 along ``axis``, d = diff(x), or dx (numpy's formula)."""
    y = _as_array(y)
    nd = _ndim(y)
    if x is None:
        d = dx
    else:
        x = _as_array(x)
        d = A.getitem(x, _axis_slices(_ndim(x), axis if _ndim(x) > 1 else 0, slice(1, None))) \
            - A.getitem(x, _axis_slices(_ndim(x), axis if _ndim(x) > 1 else 0, slice(None, -1)))
        if _ndim(x) == 1:
            shp = [1] * nd
            shp[axis] = A.shape(d)[0]
            d = A.reshape(d, tuple(shp))
    hi = A.getitem(y, _axis_slices(nd, axis, slice(1, None)))
    lo = A.getitem(y, _axis_slices(nd, axis, slice(None, -1)))
    return A.sum(d * (hi + lo) / 2.0, axis % nd)


def _interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through (xp, fp) at x, as numpy computes it:
    fp[j] + s_j·(x − xp[j]) with s_j = (fp[j+1] − fp[j]) / (xp[j+1] − xp[j]) on
    xp[j] ≤ x < xp[j+1], fp[-1] at x = xp[-1], left / right outside.  Its derivative in x is the
    slope s_j (the right-hand one at a knot, 0 outside); in fp, xp and left/right what the
    formula says."""
    x, xp, fp = (_f64(v) for v in (x, xp, fp))
    if _ndim(xp) != 1 or _ndim(fp) != 1 or A.shape(xp) != A.shape(fp) or not A.shape(xp)[0]:
        raise ValueError("fp and xp are not of the same length, or are empty")
    if period is not None:
        if isinstance(period, ADNumber):
            raise NotDifferentiableError("numpy.interp: dvlad does not differentiate in "
                                         "period; pass a plain number")
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period, left, right = abs(period), None, None
        x, xp = x % period, xp % period
        order = np.argsort(strip(xp), kind="stable")
        xp, fp = A.getitem(xp, order), A.getitem(fp, order)
        xp = A.concatenate([A.getitem(xp, slice(-1, None)) - period, xp,
                            A.getitem(xp, slice(0, 1)) + period])
        fp = A.concatenate([A.getitem(fp, slice(-1, None)), fp, A.getitem(fp, slice(0, 1))])
    xv, xpv = np.asarray(strip(x)), np.asarray(strip(xp))
    n = xpv.shape[0]
    first, last = A.getitem(fp, 0), A.getitem(fp, n - 1)
    if n == 1:
        r = A.broadcast_to(first, xv.shape)
    else:
        j = np.clip(np.searchsorted(xpv, xv, side="right") - 1, 0, n - 2)
        x0, f0 = A.getitem(xp, j), A.getitem(fp, j)
        slope = (A.getitem(fp, j + 1) - f0) / (A.getitem(xp, j + 1) - x0)
        r = A.where(xv == xpv[-1], last + slope * (x - A.getitem(xp, n - 1)),
                    slope * (x - x0) + f0)
    r = A.where(xv > xpv[-1], last if right is None else right, r)
    return A.where(xv < xpv[0], first if left is None else left, r)


# ---- convolution ---------------------------------------------------------------------------------

def _full_convolution(a, v, rows):
    """Rows ``rows`` of the full convolution, (a ∗ v)_k = Σ_j a_{k−j}·v_j: the longer operand,
    zero-padded, gathered into a window matrix W[k, j] = a_{k−j}, then W @ v (bilinear: both
    operands differentiate)."""
    if A.shape(a)[0] < A.shape(v)[0]:
        a, v = v, a
    m = A.shape(v)[0]
    zeros = np.zeros(m - 1, np.asarray(strip(a)).dtype)
    padded = A.concatenate([zeros, a, zeros]) if m > 1 else a
    idx = rows[:, None] + (m - 1) - np.arange(m)[None, :]
    return LA.matmul(A.getitem(padded, idx), v)


def _convolution(name, flip):
    def convolution(a, v, mode="full" if not flip else "valid"):
        """numpy.convolve (full, same, valid); numpy.correlate is a convolution with v
        reversed, its 'same' window placed as numpy places it."""
        a, v = (_as_array(u) for u in (a, v))
        a, v = (A.reshape(u, (-1,)) if _ndim(u) == 0 else u for u in (a, v))
        if _ndim(a) != 1 or _ndim(v) != 1:
            raise ValueError("object too deep for desired array")
        n, m = A.shape(a)[0], A.shape(v)[0]
        if not n or not m:
            raise ValueError(f"{'v' if not m else 'a'} cannot be empty")
        lo, hi = min(n, m), max(n, m)
        mode = {0: "valid", 1: "same", 2: "full"}.get(mode, mode)
        if mode == "full":
            start, length = 0, n + m - 1
        elif mode == "same":
            start, length = ((lo - 1) // 2 if not flip or n >= m else lo // 2), hi
        elif mode == "valid":
            start, length = lo - 1, hi - lo + 1
        else:
            raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
        if flip:
            v = A.getitem(v, slice(None, None, -1))
        return _full_convolution(a, v, np.arange(start, start + length))
    convolution.__name__ = name
    return convolution


FUNCTIONS = {
    np.kron: _kron, np.cross: _cross, np.vdot: _vdot, np.cumprod: _cumprod,
    np.nancumsum: _nancumsum, np.nancumprod: _nancumprod, np.nanprod: _nanprod,
    np.nanmax: _nanextreme("nanmax", -np.inf, A.amax),
    np.nanmin: _nanextreme("nanmin", np.inf, A.amin),
    np.nanvar: _nanvar, np.nanstd: _nanstd, np.select: _select, np.choose: _choose,
    np.full_like: _full_like, np.interp: _interp,
    np.convolve: _convolution("convolve", False), np.correlate: _convolution("correlate", True),
}
# trapezoid is numpy 2's name; trapz the old one (removed in numpy 2.4)
FUNCTIONS.update({getattr(np, name): _trapezoid for name in ("trapezoid", "trapz")
                  if hasattr(np, name)})
