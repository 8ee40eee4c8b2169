"""A ufunc's methods on dvlad numbers, from its rule: ``np.subtract.outer(x, y)`` (pairwise
differences), ``np.logaddexp.reduce(x)``, ``np.multiply.accumulate(x)``, ``np.add.at(h, i, v)``.

- ``outer(a, b)``: the ufunc of a with trailing axes added and b: a[i…, None…] ∘ b[j…];
- ``reduce(a, axis, keepdims)``: numpy's reductions where there is one (a sum, a product, a
  maximum, a minimum), else the ufunc folded along the axis, left to right as numpy does;
- ``accumulate(a, axis)``: the partial folds, stacked (a sum's and a product's are cumsum's and
  cumprod's);
- ``reduceat(a, indices, axis)`` of add, multiply, maximum and minimum: each segment's
  reduction (a[i] alone where the next index is not greater), concatenated, as numpy's;
- ``at(h, idx, v)``: for ``add`` and ``subtract`` into an array-valued dvlad number h, h ± v
  scattered to idx, repeated indices adding up as numpy's unbuffered ``at`` does (h takes the
  result in place, :func:`dvlad.arrays.assignment.update`).

Other keywords (``initial``, ``where``, ``dtype`` other than the value's, ``out``) change the
value: they raise ``NotDifferentiableError`` naming them, never silently ignored.
"""
import numpy as np

from . import primitives as A
from .assignment import update
from .composite import _moveaxis
from ..core.number import ADNumber, strip
from ..core.tags import AssignmentError, NotDifferentiableError

__all__ = ["ufunc_method"]

_REDUCTIONS = {np.add: A.sum, np.multiply: A.prod, np.maximum: A.amax, np.minimum: A.amin}
_CUMULATIVE = {np.add: np.cumsum, np.multiply: np.cumprod}


def ufunc_method(ufunc, op, method, inputs, kwargs, name):
    """``ufunc.method(*inputs, **kwargs)`` with dvlad numbers among the inputs (op: the
    ufunc's row, on dvlad numbers)."""
    if method == "outer":
        _only(kwargs, (), name)
        a, b = inputs
        return op(A.reshape(a, A.shape(a) + (1,) * len(A.shape(b))), b)
    if method == "reduce":
        _only(kwargs, ("axis", "keepdims", "dtype"), name, inputs[0])
        return _reduce(ufunc, op, inputs[0], kwargs.get("axis", 0), kwargs.get("keepdims", False))
    if method == "accumulate":
        _only(kwargs, ("axis", "dtype"), name, inputs[0])
        return _accumulate(ufunc, op, inputs[0], kwargs.get("axis", 0))
    if method == "reduceat" and ufunc in _REDUCTIONS and isinstance(inputs[0], ADNumber):
        _only(kwargs, ("axis", "dtype"), name, inputs[0])
        return _reduceat(ufunc, inputs[0], np.asarray(inputs[1]), kwargs.get("axis", 0))
    if method == "at" and ufunc in (np.add, np.subtract):
        _only(kwargs, (), name)
        h, idx, v = inputs
        if not isinstance(h, ADNumber):
            raise AssignmentError(f"{name} into a plain array would drop the derivative of what "
                                  f"is added: sum into a new array instead (1-d: h = h + "
                                  f"np.bincount(idx, weights=v, minlength=h.size)), or apply "
                                  f"it to an array that is a dvlad number")
        shp = A.shape(h)
        pos = np.arange(int(np.prod(shp))).reshape(shp)[idx]
        spread = A.scatter(A.broadcast_to(v, np.shape(pos)), idx, shp) \
            if isinstance(v, ADNumber) else _plain_scatter(v, idx, shp, pos)
        update(h, op(h, spread), name)
        return None
    raise NotDifferentiableError(f"{name}: dvlad differentiates the outer, reduce and "
                                 f"accumulate methods of a ufunc with a rule, reduceat of add, "
                                 f"multiply, maximum and minimum, and add.at and subtract.at")


def _only(kwargs, allowed, name, a=None):
    bad = sorted(k for k, v in kwargs.items() if k not in allowed and not (
        k == "out" and (v is None or type(v) is tuple and all(o is None for o in v))))
    dtype = kwargs.get("dtype")
    if dtype is not None and a is not None and np.dtype(dtype) not in (
            np.dtype(object), np.asarray(strip(a)).dtype):
        bad.append("dtype")
    if bad:
        raise NotDifferentiableError(f"{name} with {bad}: dvlad differentiates axis= and "
                                     f"keepdims= only; write the rest out")


def _plain_scatter(v, idx, shp, pos):
    out = np.zeros(shp, np.result_type(v, np.float64))
    np.add.at(out, idx, np.broadcast_to(v, np.shape(pos)))
    return out


def _moved(a, axis):
    """a with ``axis`` first (None: a flattened), and that axis normalised."""
    if axis is None:
        return A.reshape(a, (-1,)), 0
    nd = len(A.shape(a))
    axis = axis % nd
    return (a if axis == 0 else _moveaxis(a, axis, 0)), axis


def _reduce(ufunc, op, a, axis, keepdims):
    if isinstance(axis, tuple):
        if ufunc in _REDUCTIONS:
            return _REDUCTIONS[ufunc](a, axis, keepdims)
        for ax in sorted((x % len(A.shape(a)) for x in axis), reverse=True):
            a = _reduce(ufunc, op, a, ax, True)
        return a if keepdims else A.reshape(a, tuple(
            n for k, n in enumerate(A.shape(a)) if k not in {x % len(A.shape(a)) for x in axis}))
    if ufunc in _REDUCTIONS:
        return _REDUCTIONS[ufunc](a, axis, keepdims)
    moved, ax = _moved(a, axis)
    n = A.shape(moved)[0]
    if n == 0:          # numpy's identity, or its error: no derivative to carry
        return ufunc.reduce(np.asarray(strip(a)), axis=axis, keepdims=keepdims)
    acc = A.getitem(moved, 0)
    for k in range(1, n):
        acc = op(acc, A.getitem(moved, k))
    if keepdims:
        shp = list(A.shape(a))
        if axis is None:
            shp = [1] * len(shp)
        else:
            shp[ax] = 1
        acc = A.reshape(acc, tuple(shp))
    return acc


def _reduceat(ufunc, a, idx, axis):
    """numpy's reduceat: the reduction of a[i_k:i_(k+1)] along axis for each k (to the end for
    the last), or a[i_k] alone where i_k ≥ i_(k+1)."""
    moved, ax = _moved(a, axis)
    n = A.shape(moved)[0]
    if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= n)):
        ufunc.reduceat(np.asarray(strip(a)), idx, axis=axis)      # numpy's own error
    parts = []
    for k, i in enumerate(idx.tolist()):
        j = idx[k + 1] if k + 1 < idx.size else n
        parts.append(_REDUCTIONS[ufunc](A.getitem(moved, slice(i, j)), 0, True) if i < j
                     else A.getitem(moved, slice(i, i + 1)))
    out = A.concatenate(parts, 0) if parts else ufunc.reduceat(np.asarray(strip(moved)), idx)
    return out if ax == 0 else _moveaxis(out, 0, ax)


def _accumulate(ufunc, op, a, axis):
    if ufunc in _CUMULATIVE:
        return _CUMULATIVE[ufunc](a, axis=axis)
    moved, ax = _moved(a, axis)
    acc = A.getitem(moved, 0)
    out = [acc]
    for k in range(1, A.shape(moved)[0]):
        acc = op(acc, A.getitem(moved, k))
        out.append(acc)
    stacked = A.stack(out, 0)
    return stacked if ax == 0 else _moveaxis(stacked, 0, ax)
