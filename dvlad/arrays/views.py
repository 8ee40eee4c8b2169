"""Views of an array-valued AD number follow assignments into it, as numpy's views do.

``v = h[0:1]`` is a numpy view of h's array: after ``h[0] = y`` numpy's v shows y.  dvlad's
assignment is a functional update (h becomes ``where(mask, y, h)``, a new array), so a view
taken before it would keep the old value, and the old derivative: silently wrong.  So each view
the user takes of an array number (basic indexing, ``.T``, ``transpose``, ``reshape``, ``ravel``
where numpy would give a view) is noted with how it was made from its source, and an assignment
into h makes each noted view again from the updated h, in the order they were taken (a view of a
view from its updated source): value and derivative are then those of numpy's view.  A view no
one else holds any more (a temporary, as in ``h[i] = f(h[i - 1])``) is forgotten at the next
assignment, so a loop of them costs nothing extra.  Uses of a view made before the assignment
keep the old value, as uses of h do.
"""
import sys
import threading
import weakref

import numpy as np

from ..core.number import ADNumber

__all__ = ["noted", "follow", "noted_array", "follow_arrays"]

_VIEWS = {}         # id(h's array) -> (weakref to that array, [[view, source, make], ...])
_ARRAYS = {}        # id(h's array) -> (weakref to that array, [weakrefs to np.asarray(h)'s])
_KEYS = 8           # arrays with noted views kept before the unheld ones are forgotten
_LOCK = threading.RLock()       # (threads take derivatives of array code at once)


def _held(entry):
    """Whether someone besides this entry holds the view (getrefcount: the entry and the
    argument are 2)."""
    return sys.getrefcount(entry[0]) > 2


def _array_of(x):
    while isinstance(x, ADNumber):
        x = x.primal
    return x if type(x) is np.ndarray else None


def noted(source, view, make, index=None):
    """``view`` = make(source) (``source[index]``, when ``index`` is given); noted when its
    array is a numpy view of the array that owns source's memory (so that an assignment into
    the owner updates it).  Returns view."""
    a, b = _array_of(view), _array_of(source)
    if a is None or b is None or type(view) is not type(source):
        return view
    owner = b if b.base is None else b.base
    if a.base is not owner:
        return view
    with _LOCK:
        kept = _VIEWS.get(id(owner))
        if kept is None or kept[0]() is not owner:
            if len(_VIEWS) >= _KEYS:
                _forget_the_unheld()
            kept = _VIEWS[id(owner)] = (weakref.ref(owner), [])
        kept[1].append([view, source, make, index])
    return view


def made_by_indexing(view):
    """(source, index) when ``view`` was noted as ``source[index]``, source owning its memory
    (``row = H[1]``: ``row *= 3`` is ``H[1] = row * 3``); else None."""
    a = _array_of(view)
    with _LOCK:
        kept = _VIEWS.get(id(a.base)) if a is not None and a.base is not None else None
        if kept is None or kept[0]() is not a.base:
            return None
        entries = list(kept[1])
    for v, source, _, index in entries:
        if v is view and index is not None and _array_of(source) is a.base:
            return source, index
    return None


# numpy functions whose result is a view of their first argument's memory (numpy's own
# arrays): noted, so that an assignment into that array shows in them
VIEWING = {getattr(np, name) for name in (
    "transpose", "swapaxes", "moveaxis", "rollaxis", "matrix_transpose", "permute_dims",
    "reshape", "ravel", "squeeze", "expand_dims", "flip", "fliplr", "flipud", "rot90",
    "diagonal", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "split",
    "array_split", "hsplit", "vsplit", "dsplit", "unstack") if hasattr(np, name)}


def noted_all(source, out, make):
    """:func:`noted` for a numpy function's result: a view, or a list of views (np.split)."""
    if isinstance(out, ADNumber):
        noted(source, out, make)
    elif type(out) in (list, tuple):
        for k, piece in enumerate(out):
            if isinstance(piece, ADNumber):
                noted(source, piece, lambda s, k=k: make(s)[k])


def follow(old_array, h):
    """After an assignment gave h a new array in place of ``old_array``: each view noted of the
    old array made again from h (its slots replaced), and noted as a view of h's new array."""
    with _LOCK:
        kept = _VIEWS.pop(id(old_array), None)
        if kept is None or kept[0]() is not old_array:
            return
        entries = [e for e in kept[1] if _held(e)]
    for view, source, make, _ in entries:
        fresh = make(source)
        if type(fresh) is type(view):
            for slot in type(view).__slots__:
                setattr(view, slot, getattr(fresh, slot))
    new_array = _array_of(h)
    if entries and new_array is not None and new_array.base is None:
        with _LOCK:
            _VIEWS[id(new_array)] = (weakref.ref(new_array), entries)


def noted_array(x, t):
    """``t``: the memory of ``np.asarray(x)``, the object array of x's elements, noted when x's
    array owns its memory, so that an assignment into x writes the new elements into t, as
    numpy's asarray of an array shows what is assigned into it."""
    b = _array_of(x)
    if b is None or b.base is not None:
        return t
    with _LOCK:
        kept = _ARRAYS.get(id(b))
        if kept is None or kept[0]() is not b:
            if len(_ARRAYS) >= _KEYS:
                for key, (ref, ts) in list(_ARRAYS.items()):
                    if ref() is None or not any(r() is not None for r in ts):
                        del _ARRAYS[key]
            kept = _ARRAYS[id(b)] = (weakref.ref(b), [])
        kept[1].append(weakref.ref(t))


def follow_arrays(old_array, h, rewrite):
    """After an assignment into h: ``rewrite(t, h)`` for each asarray t noted of its old
    array, then noted as one of h's new array."""
    with _LOCK:
        kept = _ARRAYS.pop(id(old_array), None)
        if kept is None or kept[0]() is not old_array:
            return
        alive = [r for r in kept[1] if r() is not None]
    for r in alive:
        rewrite(r(), h)
    new_array = _array_of(h)
    if alive and new_array is not None and new_array.base is None:
        with _LOCK:
            _ARRAYS[id(new_array)] = (weakref.ref(new_array), alive)


def _forget_the_unheld():
    for key, (ref, entries) in list(_VIEWS.items()):
        entries[:] = [e for e in entries if _held(e)]
        if ref() is None or not entries:
            del _VIEWS[key]
