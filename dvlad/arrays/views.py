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
import weakref

import numpy as np

from ..core.number import ADNumber

__all__ = ["noted", "follow"]

_VIEWS = {}         # id(h's array) -> (weakref to that array, [[view, source, make], ...])
_KEYS = 8           # arrays with noted views kept before the unheld ones are forgotten


def _held(entry):
    """Whether someone besides this entry holds the view (getrefcount: the entry and the
    argument are 2)."""
    return sys.getrefcount(entry[0]) > 2


def _array_of(x):
    while isinstance(x, ADNumber):
        x = x.primal
    return x if type(x) is np.ndarray else None


def noted(source, view, make):
    """``view`` = make(source); noted when its array is a numpy view of the array that owns
    source's memory (so that an assignment into the owner updates it).  Returns view."""
    a, b = _array_of(view), _array_of(source)
    if a is None or b is None or type(view) is not type(source):
        return view
    owner = b if b.base is None else b.base
    if a.base is not owner:
        return view
    kept = _VIEWS.get(id(owner))
    if kept is None or kept[0]() is not owner:
        if len(_VIEWS) >= _KEYS:
            _forget_the_unheld()
        kept = _VIEWS[id(owner)] = (weakref.ref(owner), [])
    kept[1].append([view, source, make])
    return view


def follow(old_array, h):
    """After an assignment gave h a new array in place of ``old_array``: each view noted of the
    old array made again from h (its slots replaced), and noted as a view of h's new array."""
    kept = _VIEWS.pop(id(old_array), None)
    if kept is None or kept[0]() is not old_array:
        return
    entries = [e for e in kept[1] if _held(e)]
    for view, source, make in entries:
        fresh = make(source)
        if type(fresh) is type(view):
            for slot in type(view).__slots__:
                setattr(view, slot, getattr(fresh, slot))
    new_array = _array_of(h)
    if entries and new_array is not None and new_array.base is None:
        _VIEWS[id(new_array)] = (weakref.ref(new_array), entries)


def _forget_the_unheld():
    for key, (ref, entries) in list(_VIEWS.items()):
        entries[:] = [e for e in entries if _held(e)]
        if ref() is None or not entries:
            del _VIEWS[key]
