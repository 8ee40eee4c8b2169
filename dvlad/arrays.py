"""Array primals: the primitives whose Jacobian is not diagonal, each with its linear map.

Elementwise operations on arrays come from the rule table (see :mod:`dvlad.vectorize`); this
module holds the rest.  Each primitive is a base function on plain arrays plus, per argument, a
:class:`~dvlad.tape.LinearMap` — never a dense Jacobian — whose ``forward`` (J·t) and
``backward`` (Jᵀ·s) are written with dvlad's own array operations, so that they nest.  All of
them lift through :func:`dvlad.lift.lift_n`, the same dispatch as user-defined primitives.
"""
import builtins

import numpy as np

from .lift import ARRAY_OPS, _shape, lift_n
from .ops import mul
from .number import strip
from .tags import NotDifferentiableError
from .sweep import Placed, plain_bundle
from .tape import LinearMap

__all__ = ["where", "sum", "mean", "prod", "amax", "amin", "reshape", "transpose", "swapaxes",
           "squeeze", "expand_dims", "broadcast_to", "sum_to", "getitem", "concatenate", "stack",
           "clip", "matmul", "dot", "inner", "outer", "tensordot", "einsum", "trace", "solve",
           "inv", "det", "slogdet", "shape"]


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
        out = lift_n(op, some_partials, args, with_result)
        return value(*(strip(a) for a in args)) if out is None else out
    op.__name__ = op.__qualname__ = name
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
        s = broadcast_to(reshape(s, _kept_shape(self.shape, self.axis)), self.shape)
        return s if self.w is None else s * self.w


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
        return sum_to(where(self.c, s, 0.0), self.shape)


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
    lambda x, shp: (_Apply(lambda t: broadcast_to(t, shp), lambda s: sum_to(s, shape(x))), None))


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
    lambda x, shp: (_Apply(lambda t: reshape(t, shape_r(x, shp)),
                           lambda s: reshape(s, shape(x))), None))


def shape_r(x, shp):
    return np.empty(shape(x), dtype=bool).reshape(shp).shape


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


def swapaxes(x, a, b):
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


def _scatter_value(s, idx, out_shape):
    z = np.zeros(out_shape, dtype=np.result_type(np.asarray(s).dtype, np.float32))
    if _is_basic(idx):              # no index repeats: assignment, much faster than np.add.at
        z[idx] = s
    else:
        np.add.at(z, idx, s)
    return z


scatter = _primitive(
    "scatter", _scatter_value,
    lambda s, idx, out_shape: (_Apply(lambda t: scatter(t, idx, out_shape),
                                      lambda u: getitem(u, idx)), None, None))

def _place(s, idx, shp):
    """The transpose of indexing: plain sensitivities, and bundles one layer deep over plain
    arrays (HVPs), stay lazy (Placed) for the sweep to add in place; others scatter."""
    if isinstance(s, (np.ndarray, np.generic, float)) or plain_bundle(s):
        return Placed(s, idx, shp, _is_basic(idx))
    return scatter(s, idx, shp)


getitem = _primitive(
    "getitem", lambda x, idx: x[idx],
    lambda x, idx: (_Apply(lambda t: getitem(t, idx), lambda s: _place(s, idx, shape(x))), None))


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
    lambda c, a, b: (None, _Select(c, shape(a)), _Select(np.logical_not(c), shape(b))))


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
            np.result_type(strip(x), np.float32))
        return (_Weighted(w, shape(x), axis, keepdims), None, None)
    return _primitive(name, lambda x, axis=None, keepdims=False: npf(x, axis=axis,
                                                                      keepdims=keepdims),
                      partials)


amax = _extreme("amax", np.max)
amin = _extreme("amin", np.min)


def _prod_partials(x, axis=None, keepdims=False):
    # ∂/∂x_k of Π x is the product of the others.  Away from zeros that is r / x_k, which nests
    # (r carries every derivative).  At a zero x_k it is the product with x_k replaced by 1,
    # computed for each zero position (zeros are rare), so that its own derivatives (another
    # zero in the slice) are right too.  All in dvlad's operations, so it nests.
    base_x = strip(x)
    zero = base_x == 0
    r = prod(x, axis, True)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = where(zero, 0.0, r / where(zero, 1.0, x))
    for p in zip(*np.nonzero(zero)):
        at = np.zeros(zero.shape, dtype=bool)
        at[p] = True
        d = where(at, prod(where(at, 1.0, x), axis, True), d)
    return (_Weighted(d, shape(x), axis, keepdims), None, None)


prod = _primitive("prod", lambda x, axis=None, keepdims=False: np.prod(x, axis=axis,
                                                                         keepdims=keepdims),
                  _prod_partials)


# ---- products -------------------------------------------------------------------------------------

def _matmul_grad_a(s, b, a_shape):
    """Jᵀ·s for a in a @ b, with numpy's 1-d promotions and batch broadcasting."""
    nb, na = len(shape(b)), len(a_shape)
    if na == 1 and nb == 1:
        return s * b
    if nb == 1:
        g = expand_dims(s, -1) * b                   # (..., n, 1) * (k,) -> (..., n, k)
    elif na == 1:
        g = reshape(matmul(expand_dims(s, -2), swapaxes(b, -1, -2)), shape(s)[:-1] + (shape(b)[-2],))
    else:
        g = matmul(s, swapaxes(b, -1, -2))
    return sum_to(g, a_shape)


def _matmul_grad_b(s, a, b_shape):
    na, nb = len(shape(a)), len(b_shape)
    if na == 1 and nb == 1:
        return s * a
    if na == 1:
        g = expand_dims(a, -1) * expand_dims(s, -2)   # (k, 1) * (..., 1, m) -> (..., k, m)
    elif nb == 1:
        g = reshape(matmul(swapaxes(a, -1, -2), expand_dims(s, -1)), shape(s)[:-1] + (shape(a)[-1],))
    else:
        g = matmul(swapaxes(a, -1, -2), s)
    return sum_to(g, b_shape)


matmul = _primitive(
    "matmul", lambda a, b: np.matmul(a, b),
    lambda a, b: (_Apply(lambda t: matmul(t, b), lambda s: _matmul_grad_a(s, b, shape(a))),
                  _Apply(lambda t: matmul(a, t), lambda s: _matmul_grad_b(s, a, shape(b)))))


def _parse(spec, n):
    if "->" not in spec or "." in spec:
        raise NotDifferentiableError(
            f"einsum: dvlad differentiates specs with an explicit '->' and no '...'; got {spec!r}")
    ins, out = spec.replace(" ", "").split("->")
    ins = ins.split(",")
    if len(ins) != n or builtins.any(len(set(s)) != len(s) for s in ins):
        raise NotDifferentiableError(
            f"einsum: {spec!r} repeats an index within one operand (a diagonal); use dvlad.trace"
            f" or indexing instead")
    return ins, out


def _einsum_partials(spec, *xs):
    ins, out = _parse(spec, len(xs))
    maps = [None]
    for k, x in enumerate(xs):
        others = [i for i in range(len(xs)) if i != k]

        def fwd(t, k=k):
            ops = list(xs)
            ops[k] = t
            return einsum(spec, *ops)

        def bwd(s, k=k, others=others):
            have = set(out).union(*(ins[i] for i in others))
            kept = "".join(c for c in ins[k] if c in have)
            sub = ",".join([out] + [ins[i] for i in others]) + "->" + kept
            g = einsum(sub, s, *(xs[i] for i in others))
            full = tuple(shape(xs[k])[ins[k].index(c)] if c in kept else 1 for c in ins[k])
            return broadcast_to(reshape(g, full), shape(xs[k]))
        maps.append(_Apply(fwd, bwd))
    return tuple(maps)


_einsum = _primitive("einsum", lambda spec, *xs: np.einsum(spec, *xs), _einsum_partials)


def einsum(spec, *xs):
    """np.einsum for specs with '->' and no repeated index in one operand, differentiable."""
    return _einsum(spec, *xs)


def tensordot(a, b, axes=2):
    na, nb = len(shape(a)), len(shape(b))
    if isinstance(axes, builtins.int):
        axes = (list(range(na - axes, na)), list(range(axes)))
    aa = [i % na for i in np.atleast_1d(axes[0])]
    bb = [i % nb for i in np.atleast_1d(axes[1])]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(aa, bb):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in aa] + [c for j, c in enumerate(sb) if j not in bb]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def dot(a, b):
    na, nb = len(shape(a)), len(shape(b))
    if na == 0 or nb == 0:
        return mul(a, b)
    if nb == 1 or (na <= 2 and nb <= 2):
        return matmul(a, b)
    return tensordot(a, b, ([-1], [-2]))


def inner(a, b):
    if len(shape(a)) == 0 or len(shape(b)) == 0:
        return mul(a, b)
    return tensordot(a, b, ([-1], [-1]))


def outer(a, b):
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


def trace(x, offset=0, axis1=0, axis2=1):
    nd = len(shape(x))
    rest = [i for i in range(nd) if i not in (axis1 % nd, axis2 % nd)]
    y = transpose(x, (axis1 % nd, axis2 % nd) + tuple(rest))
    n0, n1 = shape(y)[:2]
    i = np.arange(max(0, min(n0, n1 - offset) if offset >= 0 else min(n0 + offset, n1)))
    idx = (i, i + offset) if offset >= 0 else (i - offset, i)
    return sum(getitem(y, idx), 0)


# ---- linear algebra (2-d matrices) ----------------------------------------------------------------

def _square(a, who):
    if len(shape(a)) != 2:
        raise NotDifferentiableError(f"{who}: dvlad differentiates 2-d matrices; got shape "
                                     f"{shape(a)}")


def _solve_partials(x, a, b):
    _square(a, "linalg.solve")
    at = transpose(a)
    vec = len(shape(b)) == 1
    return (_Apply(lambda t: -solve(a, matmul(t, x)),
                   lambda s: -(outer(solve(at, s), x) if vec
                               else matmul(solve(at, s), transpose(x)))),
            _Apply(lambda t: solve(a, t), lambda s: solve(at, s)))


solve = _primitive("solve", lambda a, b: np.linalg.solve(a, b), _solve_partials, True)


def _inv_partials(x, a):
    _square(a, "linalg.inv")
    xt = transpose(x)
    return (_Apply(lambda t: -matmul(matmul(x, t), x), lambda s: -matmul(matmul(xt, s), xt)),)


inv = _primitive("inv", np.linalg.inv, _inv_partials, True)


def _det_partials(d, a):
    _square(a, "linalg.det")
    return (_Apply(lambda t: d * trace(solve(a, t)), lambda s: (s * d) * transpose(inv(a))),)


det = _primitive("det", np.linalg.det, _det_partials, True)


def _logdet_partials(a):
    _square(a, "linalg.slogdet")
    return (_Apply(lambda t: trace(solve(a, t)), lambda s: s * transpose(inv(a))),)


_logabsdet = _primitive("logabsdet", lambda a: np.linalg.slogdet(a)[1], _logdet_partials)


def slogdet(a):
    """(sign, log|det a|): the sign is piecewise constant, the log differentiable."""
    return np.linalg.slogdet(strip(a))[0], _logabsdet(a)


ARRAY_OPS.update(broadcast_to=broadcast_to, sum_to=sum_to, where=where)
