"""Assignment into array-valued AD numbers, as numpy's arrays take it: ``h[idx] = v``,
``h += y`` (in place: every name for h, and the views of it, see the update), ``np.copyto``;
and the error for a write into a plain float array, which would drop a derivative.

dvlad's update is functional underneath (h becomes ``where(mask, v, h)``, a new array whose
tag, primal and tangent or tape entry h takes over, slot by slot), so uses of h made before
the assignment keep the old value, as their derivatives do.
"""
import operator

import numpy as np

from . import primitives as A
from . import views
from .objects import repack, unpack
from ..core.base import dtype_of
from ..core.number import ADNumber, strip, strip_dead
from ..core.tags import AssignmentError, NotDifferentiableError
from ..numbers.bundle import Bundle, make_bundle
from ..numbers.tape import TapeCell, make_cell

__all__ = ["assign", "update", "copyto", "in_place", "IN_PLACE"]


def assign(h, idx, value):
    """``h[idx] = value``: h becomes the updated array (its tag, primal and tangent or tape
    entry replaced by those of the functional update); earlier uses of h keep the old value."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        value = repack(value)
    base = strip(h)
    if not isinstance(base, np.ndarray) or base.ndim == 0:
        raise AssignmentError("item assignment needs an array-valued dvlad number; a 0-d one is "
                              "a scalar: compute the new value instead")
    if base.base is not None:
        raise AssignmentError(
            "this array-valued dvlad number shares its memory with another (a slice, reshape or "
            "transpose of it): numpy would change both, dvlad would change this one alone. Assign "
            "into the array it came from, or copy it first (v = v.copy()).")
    shp = base.shape
    # where each assigned element lands (numpy's order: the last of repeated indices wins)
    pos = np.arange(base.size).reshape(shp)[idx]
    if not np.size(pos):        # (h[h < 0] = 0.0 where no element is negative)
        np.broadcast_to(np.empty(np.shape(A.shape(value) if isinstance(value, ADNumber)
                                              else np.shape(value))), np.shape(pos))
        return
    src = np.full(base.size, -1)
    src[np.ravel(pos)] = np.arange(np.size(pos))
    mask = (src >= 0).reshape(shp)
    values = A.broadcast_to(_fitted(value, np.shape(pos)), np.shape(pos)) \
        if isinstance(value, ADNumber) else np.broadcast_to(       # (numpy casts a plain value
            np.asarray(value).astype(base.dtype, copy=False), np.shape(pos))   # to h's dtype)
    gathered = A.getitem(A.reshape(values, (-1,)), np.maximum(src, 0).reshape(shp)) \
        if isinstance(values, ADNumber) else np.ravel(values)[np.maximum(src, 0)].reshape(shp)
    _become(h, A.where(mask, gathered, h), base)


def update(h, new, how):
    """``h += y`` (``how``: ``+=``, ``*=``, ...) for an array-valued AD number h, whose update
    ``new`` (h + y) was computed: h becomes it, in place, as numpy's array does (a second name
    for h, and the views taken of it, see the update), in h's shape and dtype."""
    base = strip(h)
    shp = A.shape(new)
    if shp != base.shape:
        raise ValueError(f"non-broadcastable output operand with shape {base.shape} doesn't "
                         f"match the broadcast shape {shp} (h {how} y keeps h's shape)")
    have = dtype_of(strip(new))
    if have != base.dtype:
        if not np.can_cast(have, base.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc output from {have} to {base.dtype} with "
                            f"casting rule 'same_kind' (h {how} y)")
        if isinstance(new, ADNumber):
            raise NotDifferentiableError(
                f"h {how} y would narrow the {have} update to h's {base.dtype}, in which dvlad "
                f"takes no derivative: give y h's dtype (y.astype({base.dtype}) before it "
                f"carries a derivative), or h the wider one")
        new = np.asarray(new).astype(base.dtype)
    if base.base is not None:
        made = views.made_by_indexing(h)
        if made is not None:            # h = H[idx]: H[idx] = new, and h, a view of H, follows
            assign(made[0], made[1], new)
            return
        raise AssignmentError(
            f"h {how} y into an array-valued dvlad number that shares its memory with another "
            f"(a slice, reshape or transpose of it): numpy would change both, dvlad would "
            f"change this one alone. Update the array it came from (H[1] {how} y, not "
            f"row = H[1]; row {how} y), or copy it first (v = v.copy()).")
    _become(h, new, base)


def _become(h, new, base):
    """h takes the value ``new`` in place (its slots), and the views noted of it follow."""
    new = strip_dead(new)
    if not isinstance(new, ADNumber) and type(h) in (Bundle, TapeCell):
        # every element replaced by plain numbers (h.fill(0.0)): h is a constant of its tag
        new = make_bundle(h.tag, new, np.zeros_like(new)) if type(h) is Bundle else \
            make_cell(h.tag, new, ())
    if not isinstance(new, ADNumber) or new.tag is not h.tag or type(new) is not type(h):
        raise AssignmentError(
            "the assigned value carries a newer perturbation than the array it goes into: "
            "assignment cannot change what the array is a number of. Build a new array instead: "
            "h = np.where(mask, v, h), np.concatenate or np.stack.")
    for slot in type(h).__slots__:
        setattr(h, slot, getattr(new, slot))
    views.follow(base, h)       # views of h taken before (v = h[0:1]) show the update, as numpy's
    views.follow_arrays(base, h, _rewrite)


def _fitted(value, target):
    """value without the leading length-1 axes numpy's assignment drops (v of shape (1, n) into
    h[0] of shape (n,))."""
    shp = A.shape(value)
    while len(shp) > len(target) and shp[0] == 1:
        shp = shp[1:]
    return A.reshape(value, shp) if shp != A.shape(value) else value


def copyto(dst, src, casting="same_kind", where=True):
    """np.copyto(dst, src) with a dvlad number in src: into an object array the numbers are
    stored (np.full(shape, x) makes one); into a float array they would lose their derivative;
    into an array-valued dvlad number it is ``dst[...] = np.where(where, src, dst)``."""
    if isinstance(dst, ADNumber):
        update(dst, A.where(np.asarray(strip(where), bool), src, dst), "= (np.copyto)")
        return
    if type(dst) is not np.ndarray or dst.dtype != object:
        raise AssignmentError(
            f"numpy.copyto (np.full_like(a, x) with a plain a, np.place, np.putmask) would write "
            f"a dvlad number into a {getattr(dst, 'dtype', type(dst).__name__)} array and drop "
            f"its derivative. Build the array from the number instead: np.full(shape, x), "
            f"np.broadcast_to(x, shape), np.where(mask, x, a).")
    if where is not True:
        raise AssignmentError("numpy.copyto with where= into an object array: use np.where")
    values = unpack(A.broadcast_to(src, dst.shape)) if isinstance(src, ADNumber) else \
        list(np.broadcast_to(np.asarray(src, dtype=object), dst.shape).flat)
    flat = dst.reshape(-1)          # (a view: dst is contiguous, as np.full and full_like make it)
    if not np.shares_memory(flat, dst):
        raise AssignmentError("numpy.copyto into a non-contiguous object array: use np.where")
    for k, v in enumerate(values):
        flat[k] = v


def _rewrite(buf, h):
    """The elements in ``buf``, the memory of ``np.asarray(h)``, made again after an
    assignment into h."""
    if buf.size == int(np.prod(A.shape(h))):
        for k, e in enumerate(unpack(h)):
            buf[k] = e


def in_place(op, how):
    """``h += y`` (``op``: operator.add, ``how``: "+=") for an array-valued AD number h: h
    itself becomes h + y, as a numpy array does (:func:`update`); a scalar one makes a new
    number, as a float does."""
    def method(self, other):
        base = strip(self)
        if not isinstance(base, np.ndarray) or not base.ndim:
            return NotImplemented
        update(self, op(self, other), how)
        return self
    method.__name__ = f"__i{op.__name__.strip('_')}__"
    return method


IN_PLACE = {operator.add: "+=", operator.sub: "-=", operator.mul: "*=", operator.truediv: "/=",
            operator.pow: "**=", operator.floordiv: "//=", operator.mod: "%=",
            operator.matmul: "@="}


_UFUNC_IN_PLACE = {np.add: "+=", np.subtract: "-=", np.multiply: "*=", np.true_divide: "/=",
                   np.power: "**=", np.floor_divide: "//=", np.remainder: "%="}


def refuse_into_plain(ufunc, out, inputs):
    """A named error for ``h += v`` (ufunc(h, v, out=(h,))) with h a plain float array and v an
    AD number, where numpy would only say that dvlad takes no ``out=``."""
    if type(out) is tuple and len(out) == 1 and type(out[0]) is np.ndarray and \
            out[0].dtype.kind == "f" and any(i is out[0] for i in inputs):
        how = _UFUNC_IN_PLACE.get(ufunc, f"= numpy.{ufunc.__name__}(h, v, out=h):")
        raise AssignmentError(
            f"h {how} v with h a plain numpy array and v a dvlad number: h cannot hold v's "
            f"derivative, so it cannot be updated in place. Write h = h + v (a new array, here a "
            f"dvlad number), or build h from dvlad numbers in the first place (then h += v "
            f"updates it, as numpy's does). (In a forward pass, gradient_f or jvp, an input the "
            f"direction leaves at 0 stays a plain array: h = X @ W; h += b meets this there "
            f"even where gradient_r does not.)")


# ---- numpy's functions that write into their first argument --------------------------------------

def _into(a, what):
    if not isinstance(a, ADNumber):
        raise AssignmentError(
            f"numpy.{what} would write a dvlad number into a plain "
            f"{getattr(a, 'dtype', type(a).__name__)} array and drop its derivative: make the "
            f"array from the number (np.where(mask, x, a), np.stack), or start from a dvlad "
            f"number (a = a + 0 * x)")


def _cycled(values, n):
    """The first n of ``values`` repeated (numpy's put, putmask and place reuse a short one)."""
    size = int(np.prod(A.shape(values))) if isinstance(values, ADNumber) else np.size(values)
    if size == n:
        return A.reshape(values, (n,)) if isinstance(values, ADNumber) else np.ravel(values)
    flat = A.reshape(values, (-1,)) if isinstance(values, ADNumber) else np.ravel(values)
    return A.getitem(flat, np.arange(n) % size) if isinstance(values, ADNumber) else \
        flat[np.arange(n) % size]


def fill_diagonal(a, val, wrap=False):
    """np.fill_diagonal into an array-valued dvlad number: a[i, i, ...] = val (cycled)."""
    _into(a, "fill_diagonal")
    shp = A.shape(a)
    if len(shp) > 2 and len(set(shp)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    if wrap and len(shp) == 2 and shp[0] > shp[1] + 1:
        raise NotDifferentiableError("np.fill_diagonal(..., wrap=True) of a tall matrix: write "
                                     "the diagonals as assignments")
    k = np.arange(min(shp))
    assign(a, (k,) * len(shp), _cycled(val, len(k)))


def put(a, ind, v, mode="raise"):
    """np.put into an array-valued dvlad number: a.flat[ind] = v (cycled)."""
    _into(a, "put")
    shp = A.shape(a)
    flat = np.ravel(ind)
    flat = np.ravel_multi_index(np.unravel_index(flat % int(np.prod(shp)), shp), shp) \
        if mode == "wrap" else np.clip(flat, 0, int(np.prod(shp)) - 1) if mode == "clip" else flat
    assign(a, np.unravel_index(flat, shp), _cycled(v, len(flat)))


def putmask(a, mask, values):
    """np.putmask into an array-valued dvlad number: a.flat[n] = values.flat[n] (cycled) where
    mask.flat[n]."""
    _into(a, "putmask")
    shp = A.shape(a)
    full = _cycled(values, int(np.prod(shp)))
    full = A.reshape(full, shp) if isinstance(full, ADNumber) else np.reshape(full, shp)
    update(a, A.where(np.asarray(strip(mask), bool), full, a), "= (np.putmask)")


def place(arr, mask, vals):
    """np.place into an array-valued dvlad number: the True places of mask take vals in order
    (cycled)."""
    _into(arr, "place")
    mask = np.asarray(strip(mask), bool)
    assign(arr, mask, _cycled(vals, int(np.count_nonzero(mask))))


FUNCTIONS = {np.fill_diagonal: fill_diagonal, np.put: put, np.putmask: putmask, np.place: place}
