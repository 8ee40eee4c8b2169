"""Array primals: the primitives whose Jacobian is not diagonal, each with its linear map.

Elementwise operations on arrays come from the rule table (see :mod:`dvlad.vectorize`); this
module holds the rest.  Each primitive is a base function on plain arrays plus, per argument, a
:class:`~dvlad.tape.LinearMap` — never a dense Jacobian — whose ``forward`` (J·t) and
``backward`` (Jᵀ·s) are written with dvlad's own array operations, so that they nest.  All of
them lift through :func:`dvlad.core.lift.lift`, the one dispatch of every primitive.
"""
import builtins
import operator

import numpy as np

from ..core import pool
from ..core.pool import TRACING
from ..core.base import dtype_of
from ..core.number import ARRAY_OPS
from ..core.lift import lift
from ..numbers.partials import GivenPrimitive, _shape
from ..core.number import ADNumber, strip
from ..modes.sweep import Placed
from ..numbers.bundle import plain_bundle
from ..numbers.tape import LinearMap, Masked

__all__ = ["where", "sum", "mean", "prod", "amax", "amin", "reshape", "transpose", "swapaxes",
           "squeeze", "expand_dims", "broadcast_to", "sum_to", "getitem", "concatenate", "stack",
           "clip", "shape", "scatter"]


def shape(v):
    """The shape of a value's primal: () for scalars."""
    return _shape(v)


def _primitive(name, value, partials, with_result=False):
    """An array primitive: ``value`` on plain numbers, ``partials(*primals)`` → maps per argument
    (None for parameters such as an axis; extra entries for defaulted parameters are dropped).
    ``with_result``: partials take the value first, ``partials(r, *primals)`` (solve, inv...)."""
    def some_partials(*primals, r=None):
        return (partials(r, *primals) if with_result else partials(*primals))[:len(primals)]

    def op(*args):
        for a in args:
            if isinstance(a, ADNumber):
                break
        else:                          # plain numbers (every primitive, one level down)
            if TRACING[0] and pool.tracing():   # dvlad.compile: one recorded call
                for a in args:
                    if hasattr(type(a), "_dvlad_call"):
                        return a._dvlad_call(name, value, args)
            return value(*args)
        return lift(prim, args)
    op.__name__ = op.__qualname__ = name
    prim = GivenPrimitive(op, some_partials, with_result)
    return op


# ---- maps ---------------------------------------------------------------------------------------

class _Weighted(LinearMap):
    """t ↦ sum(w·t, axis) (sum, mean, prod, max, min); its transpose broadcasts back, times w."""

    __slots__ = ("w", "shape", "axis", "keepdims")

    def __init__(self, w, in_shape, axis, keepdims):
        self.w, self.shape, self.axis, self.keepdims = w, in_shape, axis, keepdims

    def forward(self, t):
        return sum(t if self.w is None else self.w * t, self.axis, self.keepdims)

    def backward(self, s):
        if self.w is None and self.axis is None and (type(s) is float or type(s) is np.float64
                                                     or type(s) is np.float32):
            return _filled(s, self.shape)           # the common seed of a gradient: at once
        s = broadcast_to(reshape(s, _kept_shape(self.shape, self.axis)), self.shape)
        return s if self.w is None else s * self.w


def _filled(s, shape):
    """A read-only array of ``shape`` whose every element is the number s: a broadcast view,
    as np.broadcast_to(s, shape) makes (without its Python-level argument handling)."""
    a = np.asarray(s)
    r = np.ndarray(shape, a.dtype, buffer=a, strides=(0,) * len(shape))
    r.flags.writeable = False
    return r


class _Apply(LinearMap):
    """A linear primitive's own map: J·t = f(t), Jᵀ·s = g(s) (reshape, transpose, indexing...)."""

    __slots__ = ("f", "g")

    def __init__(self, f, g):
        self.f, self.g = f, g

    def forward(self, t):
        return self.f(t)

    def backward(self, s):
        return self.g(s)


class _Select(LinearMap):
    """where(c, t, 0): the partial of where(c, a, b) in a (and, with ~c, in b)."""

    __slots__ = ("c", "shape")

    def __init__(self, c, in_shape):
        self.c, self.shape = c, in_shape

    def forward(self, t):
        return where(self.c, t, 0.0)

    def backward(self, s):
        c = where(self.c, s, 0.0)
        if _shape(c) == self.shape and np.shape(self.c) == self.shape:
            return Masked(c, self.c)        # the lanes not taken are 0 structurally
        return sum_to(c, self.shape)


# ---- shapes ---------------------------------------------------------------------------------------

def _norm_axis(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(a % ndim if ndim else a for a in axes)


def _kept_shape(in_shape, axis):
    axes = _norm_axis(axis, len(in_shape))
    return tuple(1 if i in axes else n for i, n in enumerate(in_shape))


broadcast_to = _primitive(
    "broadcast_to", lambda x, shp: np.broadcast_to(x, shp),
    lambda x, shp: _broadcast_partials(shape(x), shp))


# The maps of linear primitives capture shapes, never the primal array itself: reverse mode keeps
# maps until the sweep, and an intermediate array should be freed when f drops it.
def _broadcast_partials(in_shape, shp):
    return (_Apply(lambda t: broadcast_to(t, shp), lambda s: sum_to(s, in_shape)), None)


def sum_to(s, shp):
    """s summed over the axes that broadcasting added, to shape shp (the transpose of
    broadcast_to)."""
    have = shape(s)
    shp = tuple(shp)
    if have == shp:
        return s
    if not shp:
        return sum(s)              # a scalar, not a 0-d array
    lead = len(have) - len(shp)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shp)
                                      if n == 1 and have[lead + i] != 1)
    return reshape(sum(s, axes, True), shp)


reshape = _primitive(
    "reshape", lambda x, shp: np.reshape(x, shp),
    lambda x, shp: _reshape_partials(shape(x), shp))


def _reshape_partials(in_shape, shp):
    out_shape = np.empty(in_shape, dtype=bool).reshape(shp).shape
    return (_Apply(lambda t: reshape(t, out_shape), lambda s: reshape(s, in_shape)), None)


def _inverse(axes):
    return tuple(int(i) for i in np.argsort(axes))


def _transpose_value(x, axes):
    return np.transpose(x, axes)


def _transpose_partials(x, axes):
    axes = tuple(reversed(range(len(shape(x))))) if axes is None else tuple(axes)
    return (_Apply(lambda t: transpose(t, axes), lambda s: transpose(s, _inverse(axes))), None)


_transpose = _primitive("transpose", _transpose_value, _transpose_partials)


def transpose(x, axes=None):
    """np.transpose, differentiable: its transpose is the inverse permutation."""
    return _transpose(x, axes)


def swapaxes(x, axis1, axis2):
    """np.swapaxes, differentiable (a transpose); numpy's keyword names."""
    a, b = axis1, axis2
    axes = list(range(len(shape(x))))
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(x, tuple(axes))


def squeeze(x, axis=None):
    return reshape(x, np.squeeze(np.empty(shape(x), dtype=bool), axis).shape)


def expand_dims(x, axis):
    return reshape(x, np.expand_dims(np.empty(shape(x), dtype=bool), axis).shape)


# ---- indexing -------------------------------------------------------------------------------------

def _is_basic(idx):
    """"view" for slices and integers (x[idx] is a view), True for boolean masks (no position
    repeats), False for integer arrays (positions may repeat: np.add.at)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    if all(isinstance(p, (slice, builtins.int, np.integer)) or p is None or p is Ellipsis
           for p in parts):
        return "view"
    return all(isinstance(p, (slice, builtins.int, np.integer)) or p is None or p is Ellipsis
               or (isinstance(p, np.ndarray) and p.dtype == bool) for p in parts)


def _scatter_constant_aware(s, idx, out_shape):
    """scatter, also for a plain constant branch of a rule (INF, 0.5): broadcast into place."""
    if not hasattr(s, "tag") and np.ndim(s) == 0:
        z = pool.zeros(out_shape, np.result_type(dtype_of(s), np.float32))
        z[idx] = s
        return z
    return scatter(s, idx, out_shape)


def _scatter_value(s, idx, out_shape):
    z = pool.zeros(out_shape, np.result_type(dtype_of(s), np.float32))
    if _is_basic(idx):              # no index repeats: assignment, much faster than np.add.at
        z[idx] = s
        return z
    np.add.at(z, idx, s)
    return z



_scatter_value.traced = _scatter_value     # dvlad.compile: its zeros, [idx] = s, recorded
scatter = _primitive(
    "scatter", _scatter_value,
    lambda s, idx, out_shape: (_Apply(lambda t: scatter(t, idx, out_shape),
                                      lambda u: getitem(u, idx)), None, None))

def place(s, idx, shp):
    """The transpose of indexing: plain sensitivities, and bundles one layer deep over plain
    arrays (HVPs), stay lazy (Placed) for the sweep to add in place; others scatter."""
    if isinstance(s, (np.ndarray, np.generic, float)) or plain_bundle(s):
        return Placed(s, idx, shp, _is_basic(idx))
    return scatter(s, idx, shp)


def _index(x, idx):
    """x[idx]; a plain x indexed by a traced array (dvlad.compile's) asks the index to record it."""
    if type(x) is np.ndarray and hasattr(type(idx), "_dvlad_index"):
        return idx._dvlad_index(x)
    return x[idx]


_index.traced = operator.getitem     # dvlad.compile: on a traced x, x[idx] recorded itself
getitem = _primitive(
    "getitem", _index,
    lambda x, idx: _getitem_partials(shape(x), idx))


def _getitem_partials(in_shape, idx):
    return (_Apply(lambda t: getitem(t, idx), lambda s: place(s, idx, in_shape)), None)


def _concat_value(axis, *xs):
    return np.concatenate(xs, axis=axis)


def _concat_partials(axis, *xs):
    out = _concat_value(axis, *(np.empty(shape(x), dtype=bool) for x in xs)).shape
    ax = axis % len(out)
    maps, start = [None], 0
    for x in xs:
        n = shape(x)[ax]
        idx = (slice(None),) * ax + (slice(start, start + n),)
        maps.append(_Apply(lambda t, idx=idx: scatter(t, idx, out),
                           lambda s, idx=idx: getitem(s, idx)))
        start += n
    return tuple(maps)


_concatenate = _primitive("concatenate", _concat_value, _concat_partials)


def concatenate(xs, axis=0):
    """np.concatenate, differentiable in every piece."""
    if axis is None:
        return _concatenate(0, *(reshape(x, (-1,)) for x in xs))
    return _concatenate(axis, *xs)


def stack(xs, axis=0):
    xs = list(xs)
    return concatenate([expand_dims(x, axis) for x in xs], axis)


# ---- where and reductions -------------------------------------------------------------------------

where = _primitive(
    "where", lambda c, a, b: np.where(c, a, b),
    lambda c, a, b: (None, _select(c, shape(a)), _select(np.logical_not(c), shape(b))))


def _select(c, in_shape):
    """where's partial in a branch taken where c: None where no lane takes it (the result does
    not depend on that branch at all: a structural zero, so √′(0) = ∞ there is never met)."""
    return _Select(c, in_shape) if np.any(c) else None


def clip(x, lo, hi):
    """np.clip as where(x < lo, lo, where(x > hi, hi, x)): at a bound the derivative follows x."""
    if lo is not None:
        x = where(x < lo, lo, x)
    if hi is not None:
        x = where(x > hi, hi, x)
    return x


sum = _primitive(
    "sum", lambda x, axis=None, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
    lambda x, axis=None, keepdims=False: (_Weighted(None, shape(x), axis, keepdims), None, None))


def mean(x, axis=None, keepdims=False):
    shp = shape(x)
    n = builtins.int(np.prod([shp[a] for a in _norm_axis(axis, len(shp))]))
    return sum(x, axis, keepdims) / n


def _extreme(name, npf):
    def partials(x, axis=None, keepdims=False):
        r = npf(strip(x), axis=axis, keepdims=True)
        hit = strip(x) == r
        w = (hit / np.sum(hit, axis=axis, keepdims=True)).astype(  # ties share it evenly
            np.result_type(np.float64 if type(strip(x)) is float else strip(x), np.float32))
        return (_Weighted(w, shape(x), axis, keepdims), None, None)
    return _primitive(name, lambda x, axis=None, keepdims=False: npf(x, axis=axis,
                                                                      keepdims=keepdims),
                      partials)


amax = _extreme("amax", np.max)
amin = _extreme("amin", np.min)


def _prod_partials(x, axis=None, keepdims=False):
    # ∂/∂x_k of Π x is the product of the others: no division (r / x_k cancels next to a tiny
    # element in its own derivatives, and is 0/0 at a zero), in dvlad's operations, so it nests.
    return (_Weighted(_others(x, axis), shape(x), axis, keepdims), None, None)


def _others(x, axis):
    """Π_{j≠k} x_j along ``axis`` (a tuple, or None for all), for each k: the exclusive prefix
    product times the exclusive suffix product, each a log-depth scan of multiplications."""
    shp = shape(x)
    axes = _norm_axis(axis, len(shp))
    rest = [a for a in range(len(shp)) if a not in axes]
    order = rest + sorted(axes)
    moved = transpose(x, order) if order != list(range(len(shp))) else x
    m = builtins.int(np.prod([shp[a] for a in axes]))
    if m == 0:
        return x
    flat = reshape(moved, tuple(shp[a] for a in rest) + (m,))
    dtype = dtype_of(strip(x))
    ones = np.ones(tuple(shp[a] for a in rest) + (1,), dtype if dtype.kind == "f" else float)
    before = concatenate([ones, _scan(flat, m)[..., :m - 1]], -1)
    after = concatenate([_scan(flat[..., ::-1], m)[..., m - 2::-1] if m > 1 else ones[..., :0],
                         ones], -1)
    e = reshape(before * after, tuple(shp[a] for a in order))
    return transpose(e, list(np.argsort(order))) if order != list(range(len(shp))) else e


def _scan(x, m):
    """Inclusive prefix products along the last axis (length m), in ⌈log₂ m⌉ steps."""
    k = 1
    while k < m:
        x = concatenate([x[..., :k], x[..., k:] * x[..., :m - k]], -1)
        k *= 2
    return x


prod = _primitive("prod", lambda x, axis=None, keepdims=False: np.prod(x, axis=axis,
                                                                         keepdims=keepdims),
                  _prod_partials)


# Linear in their one array argument (the others are parameters): Taylor towers apply them to
# each coefficient (dvlad.tower.tower_n) instead of deriving them from their partials.
for _op in (broadcast_to, reshape, _transpose, getitem, sum):
    _op.multilinear = True

ARRAY_OPS.update(broadcast_to=broadcast_to, sum_to=sum_to, where=where, getitem=getitem,
                 scatter=_scatter_constant_aware, stack=stack, reshape=reshape)
