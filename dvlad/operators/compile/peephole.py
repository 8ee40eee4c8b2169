"""Exact rewrites of a trace's operations: cheaper code with the same bits.

A replay runs the numpy calls dvlad's derivative made; a few of them are there only because
eager dvlad is general (a reverse sweep multiplies by the broadcast ones of a sum's pullback,
negates a negation, makes its zeros with ``empty`` and ``fill``).  Each rewrite here gives the
same value, bit for bit, in IEEE arithmetic with round-to-nearest, and the same dtype, shape
and memory layout:

- ``k * y`` with ``k`` a constant array of one repeated value (every stride 0): with that
  value as a Python float (weak: the product keeps y's dtype, as it did); when it is 1.0, y
  itself (y·1 = y, signed zeros, infinities and NaNs included), if neither is ever written;
- ``-(p * q)`` with ``p = -a`` (or ``q = -a``): ``a * q``; with p a float constant c:
  ``(-c) * q`` (rounding is symmetric, so -((-a)·q) = a·q and -(c·q) = (-c)·q; a NaN may
  change the sign bit nobody reads);
- ``empty(shape, dtype)`` followed at once by ``fill(0)``: ``zeros(shape, dtype)``.
"""
import operator

import numpy as np

from .traced import Traced

__all__ = ["rewrite", "zeros_of"]

_TIMES = (operator.mul, np.multiply)
_MINUS = (operator.neg, np.negative)


def _float_array(v):
    return isinstance(v, np.ndarray) and v.dtype.kind == "f" and (
        v.ndim <= 1 or v.flags.c_contiguous)


def _uniform(k):
    """The one value of constant array k when every element is the same memory, else None."""
    if type(k) is np.ndarray and k.size and k.dtype.kind == "f" and k.dtype.itemsize <= 8 \
            and not any(k.strides):         # (a long double is not a Python float)
        return float(k.reshape(-1)[0])
    return None


def rewrite(out, fn, args, defs, dirty):
    """A cheaper exact form of ``out = fn(*args)``: a Traced value it equals, or (fn, args),
    or None.  ``defs``: value -> (fn, args) of the ops kept so far; ``dirty``: values some
    write may change after they are made, and F's arguments (never stood for: F's caller
    holds them)."""
    if len(args) == 2 and fn in _TIMES:
        return _times_uniform(out, fn, args, dirty)
    if len(args) == 1 and fn in _MINUS and isinstance(args[0], Traced):
        return _minus_product(args[0], defs, dirty)
    return None


def _times_uniform(out, fn, args, dirty):
    for i in (0, 1):
        k, y = args[i], args[1 - i]
        u = _uniform(k)
        if u is None or not isinstance(y, Traced) or not _float_array(y.value):
            continue
        v = y.value
        if np.broadcast_shapes(k.shape, v.shape) != v.shape or \
                np.result_type(k.dtype, v.dtype) != v.dtype:
            continue
        if u == 1.0 and out not in dirty and y.ref not in dirty and v.base is None and \
                v.flags.c_contiguous:        # (a fresh array, as the product would be)
            return y
        return (fn, (u, y) if i == 0 else (y, u))
    return None


def _minus_product(w, defs, dirty):
    made = defs.get(w.ref)
    if made is None or made[0] not in _TIMES or len(made[1]) != 2 or w.ref in dirty:
        return None
    fn, (p, q) = made
    if any(isinstance(f, Traced) and f.ref in dirty for f in (p, q)):
        return None                 # (a factor written since: the product must be read as made)
    for i, a in ((0, p), (1, q)):
        inner = defs.get(a.ref) if isinstance(a, Traced) else None
        if inner is None or inner[0] not in _MINUS or a.ref in dirty:
            continue
        x = inner[1][0]
        if not isinstance(x, Traced) or x.ref in dirty or not (
                _float_array(x.value) or type(x.value) is float):
            continue
        return (fn, (x, q) if i == 0 else (p, x))
    for i, (c, y) in enumerate(((p, q), (q, p))):
        if type(c) is float and isinstance(y, Traced) and y.ref not in dirty and (
                _float_array(y.value) or type(y.value) is float):
            return (fn, (-c, y) if i == 0 else (y, -c))
    return None


def zeros_of(op, last):
    """``op`` = fill(a, 0) right after ``last`` = a = empty(shape, dtype): the op that makes
    ``a`` with zeros instead of both, else None."""
    _, out, _name, fn, args = op
    if fn is not np.ndarray.fill or len(args) != 2 or not isinstance(args[0], Traced) or \
            type(args[1]) not in (int, float) or args[1] != 0 or np.signbit(args[1]) or \
            last is None:
        return None
    index, (kind, made, _n, make, shape_dtype) = last
    if kind != "op" or made != args[0].ref or make is not np.empty:
        return None
    return index, ("op", made, "zeros", np.zeros, shape_dtype)
