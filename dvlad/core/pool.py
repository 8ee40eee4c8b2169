"""Reused memory for the large arrays dvlad computes: fresh pages are most of the cost.

An array of n = 10⁵ float64 is 800 KB.  glibc gives memory of that size back to the kernel when
it is freed (past its trim threshold), and the kernel must zero every page again when it is next
touched: on a virtual machine one such fault costs ~0.8 µs a page, so making a fresh array costs
about twice what computing it does (``a*b`` with 12 arrays alive: 227 µs against 65).  A
derivative holds more arrays at once than the plain function does, so it pays this more often.

The pool keeps the arrays dvlad itself allocates for intermediate values, tangents and
sensitivities, and hands one out again once nothing but the pool refers to it: reference counts
say so exactly (CPython), and views and buffers hold a reference to their array.  Only
arrays of at least ``threshold`` bytes are pooled (smaller ones come from malloc's free lists,
which do not fault).  The pool holds at most ``limit`` bytes; ``dvlad.pool.clear()`` gives the
memory back and ``dvlad.pool.configure(limit=0)`` turns it off.

>>> import numpy as np
>>> a = empty((100_000,), np.float64)
>>> b = empty((100_000,), np.float64)      # a is still held: another array
>>> a is not b
True
>>> del a
>>> empty((100_000,), np.float64) is not None
True
"""
import itertools
import sys
import threading
import weakref

import numpy as np

from .switch import REFERENCE

__all__ = ["empty", "untraced", "large", "zeros", "making", "tracing", "times", "plus", "minus",
           "negative", "copy", "private_copy", "out1", "out2", "handle", "value_of", "released",
           "clear", "configure", "stats"]

_lock = threading.Lock()
_arrays = {}            # (shape, dtype) -> [array, ...]
_epochs = {}            # id(array) -> the stamp of its latest handing out (never one twice)
_stamps = itertools.count()
_held = [0]             # bytes the pool refers to
_settings = {"limit": 1 << 28, "threshold": 1 << 17}
_FLOATS = (np.dtype(np.float64), np.dtype(np.float32))
_weakrefs = weakref.getweakrefcount


def _free_count():
    """The reference count of a pooled array nobody else holds, as :func:`_take` sees it: the
    pool's list, ``_take``'s variable, getrefcount's argument.  Measured with the array bound to
    no variable (a debugger reading this frame's locals would add a reference to a measured
    variable, and a count too high would hand out arrays still in use), plus the variable."""
    probe = [np.empty(1)]
    return sys.getrefcount(probe[0]) + 1


_FREE = _free_count()
# Reference counts tell exactly who holds an array only on CPython with its global lock, where
# the count above is 3 (a lower count only makes the pool reuse nothing).
# Off on the reference path (dvlad.core.switch).
_ENABLED = (sys.implementation.name == "cpython" and _FREE <= 3
            and getattr(sys, "_is_gil_enabled", lambda: True)() and not REFERENCE)


def released(ref):
    """Whether the array behind weak reference ``ref`` is dead: freed, or back in the pool with
    nothing but the pool holding it (its memory is about to be handed out again)."""
    a = ref()
    if a is None:
        return True
    with _lock:
        lst = _arrays.get((a.shape, a.dtype)) if type(a) is np.ndarray else None
        if not lst:
            return False
        for b in lst:
            if b is a:
                break
        else:
            return False
        del b
        return sys.getrefcount(a) == _FREE        # the pool's list, a, getrefcount's argument


def handle(a):
    """How a picture of the tape refers to array ``a`` without keeping it: (id, epoch) for a
    pooled array (see :func:`value_of`), else a weak reference."""
    if a.nbytes >= _settings["threshold"] and _ENABLED:
        with _lock:
            for b in _arrays.get((a.shape, a.dtype), ()):
                if b is a:
                    return (id(a), _epochs[id(a)])
    return weakref.ref(a)


def value_of(h):
    """The array behind ``h`` (from :func:`handle`), or None if it was freed, or is pooled and
    unused, or has been handed out again since (its memory now holds another value)."""
    if type(h) is not tuple:
        a = h()
        return None if a is None or released(h) else a
    key, epoch = h
    with _lock:
        if _epochs.get(key) != epoch:
            return None
        for lst in _arrays.values():
            for a in lst:
                if id(a) == key:
                    return None if sys.getrefcount(a) == _FREE else a
    return None


def configure(limit=None, threshold=None):
    """Set the pool's ``limit`` (bytes it may hold; 0 turns it off) and ``threshold`` (the size
    in bytes from which arrays are pooled).  Returns the settings in force, and ``on``: whether
    the pool works at all (not on the reference path, nor without CPython's reference counts)."""
    with _lock:
        if limit is not None:
            _settings["limit"] = int(limit)
        if threshold is not None:
            _settings["threshold"] = int(threshold)
    if limit is not None:
        _trim(_settings["limit"])
    return dict(_settings, on=_ENABLED)


def clear():
    """Let go of every unused array the pool holds (to malloc, and from there to the system)."""
    _trim(0)


def stats():
    """{'arrays': how many the pool refers to, 'bytes': their size, 'free': how many are unused}."""
    with _lock:
        free = sum(1 for lst in _arrays.values() for a in lst if sys.getrefcount(a) == _FREE)
        return {"arrays": sum(len(lst) for lst in _arrays.values()), "bytes": _held[0],
                "free": free}


def _trim(limit):
    """Drop unused arrays until the pool holds at most ``limit`` bytes."""
    with _lock:
        _evict(_held[0] - limit, None)


# While dvlad.compile traces on a thread, its arrays are made by the trace (so that what dvlad
# writes into them is recorded): how many threads are tracing, and each one's maker.
_tracing = TRACING = [0]     # (TRACING[0] first: the cheap test, before tracing())
_makers = threading.local()


class making:
    """``with making(fn):`` :func:`empty` arrays come from ``fn(shape, dtype)`` on this thread."""

    def __init__(self, fn):
        self.fn = fn

    def __enter__(self):
        self.before = getattr(_makers, "fn", None)
        _makers.fn = self.fn
        with _lock:
            _tracing[0] += 1

    def __exit__(self, *exc):
        _makers.fn = self.before
        with _lock:
            _tracing[0] -= 1
        return False


def stop_making():
    """:func:`empty` arrays come from numpy on this thread until the ``making`` ends (a trace
    given up: F goes on eagerly)."""
    _makers.fn = None


def empty(shape, dtype):
    """An uninitialized array of ``shape`` and ``dtype`` (C order), from the pool if it is large.
    The caller must write every element before reading it, as with ``np.empty``."""
    if _tracing[0]:
        fn = getattr(_makers, "fn", None)
        if fn is not None:
            return fn(tuple(shape), np.dtype(dtype))
    return untraced(shape, dtype)


def untraced(shape, dtype):
    """:func:`empty`, never a traced array: a replay's out= (one may run inside a trace)."""
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for s in shape:
        nbytes *= s
    a = _take(shape, dtype, nbytes) if large(nbytes) else None
    return np.empty(shape, dtype) if a is None else a


def large(nbytes):
    return _ENABLED and nbytes >= _settings["threshold"]      # (from the pool, at this size)


def tracing():
    """Whether dvlad.compile is tracing on this thread (its arrays record what is done)."""
    return bool(_tracing[0]) and getattr(_makers, "fn", None) is not None


def zeros(shape, dtype):
    """np.zeros(shape, dtype), or, while dvlad.compile traces, an array of the trace's."""
    if _tracing[0] and tracing():
        z = empty(shape, dtype)
        z.fill(0)
        return z
    return np.zeros(shape, dtype)


def _take(shape, dtype, nbytes):
    """A pooled array of ``shape``, ``dtype`` nothing else holds, or None (the pool is full)."""
    key = (shape, dtype)
    with _lock:
        lst = _arrays.get(key)
        if lst is not None:
            # the most recently handed out first: likelier still in cache
            for k in range(len(lst) - 1, -1, -1):
                a = lst[k]
                if sys.getrefcount(a) == _FREE and not _weakrefs(a):
                    if a.shape != shape or a.dtype != dtype or not a.flags.writeable \
                            or not a.flags.c_contiguous:
                        # changed by whoever had it (a.shape = ..., read-only): let it go
                        del lst[k], _epochs[id(a)]
                        _held[0] -= a.nbytes
                        continue
                    if k != len(lst) - 1:
                        del lst[k]
                        lst.append(a)
                    _epochs[id(a)] = next(_stamps)
                    return a
        limit = _settings["limit"]
        if _held[0] + nbytes > limit:
            _evict(_held[0] + nbytes - limit, key)
            if _held[0] + nbytes > limit:
                return None
        a = np.empty(shape, dtype)
        if lst is None:
            lst = _arrays[key] = []
        lst.append(a)
        _epochs[id(a)] = next(_stamps)
        _held[0] += nbytes
        return a


def _evict(need, keep):
    """Drop unused arrays of other shapes (oldest kinds first) until ``need`` bytes are freed."""
    for key in list(_arrays):
        if key == keep:
            continue
        lst = _arrays[key]
        k = 0
        while k < len(lst) and need > 0:
            a = lst[k]
            if sys.getrefcount(a) == _FREE:
                need -= a.nbytes
                _held[0] -= a.nbytes
                del _epochs[id(a)]
                del lst[k]
            else:
                k += 1
            del a
        if not lst:
            del _arrays[key]
        if need <= 0:
            return


def out2(x, y):
    """A pooled array for the result of an elementwise ufunc of x and y, or None (not pooled).

    Pooled: x and y float arrays of one shape and dtype, or one of them such an array and the
    other a Python float or int (which leaves the array's dtype as it is).
    """
    tx, ty = type(x), type(y)
    if tx is np.ndarray:
        if ty is np.ndarray:
            if x.shape != y.shape or x.dtype != y.dtype or not _c_order(y):
                return None
        elif ty is not float and ty is not int:
            return None
        a = x
    elif ty is np.ndarray and (tx is float or tx is int):
        a = y
    else:
        return None
    if a.dtype not in _FLOATS or a.nbytes < _settings["threshold"] or not _ENABLED \
            or not _c_order(a):
        return None
    return _take(a.shape, a.dtype, a.nbytes)


def out1(x):
    """A pooled array for the result of an elementwise ufunc of x, or None (not pooled)."""
    if type(x) is not np.ndarray or x.dtype not in _FLOATS or x.nbytes < _settings["threshold"] \
            or not _ENABLED or not _c_order(x):
        return None
    return _take(x.shape, x.dtype, x.nbytes)


def _c_order(a):
    """numpy would give an elementwise result of a in C order, as pooled arrays are (a 0-d
    array is not pooled: numpy's result would be a scalar)."""
    return a.ndim == 1 or (a.ndim > 1 and a.flags.c_contiguous)


def times(a, b):
    """a·b; its result in a pooled array where :func:`out2` gives one (else the operator, so
    AD numbers and other kinds multiply as they always do)."""
    out = out2(a, b)
    return a * b if out is None else np.multiply(a, b, out=out)


def plus(a, b):
    """a + b, as :func:`times`."""
    out = out2(a, b)
    return a + b if out is None else np.add(a, b, out=out)


def minus(a, b):
    """a − b, as :func:`times`."""
    out = out2(a, b)
    return a - b if out is None else np.subtract(a, b, out=out)


def negative(a):
    """−a; in a pooled array where :func:`out1` gives one."""
    out = out1(a)
    return -a if out is None else np.negative(a, out=out)


def copy(x):
    """A copy of array x (in a pooled array if it is large)."""
    out = out1(x)
    if out is None:
        return np.copy(x)
    np.copyto(out, x)
    return out


# The copies reverse mode makes of plain array constants (a caller may overwrite its own array
# before the sweep reads it).  Only dvlad holds these, and nothing writes into them, so a
# constant that is one of them, or a view of one, needs no second copy (a reverse-over-reverse
# HVP met X's copy as a constant of the outer tape, then its transpose).  A large copy is
# pooled (its pages stay mapped from call to call).
_private = {}           # id -> weak reference (copies numpy made)
_private_pooled = {}    # id -> the stamp of the handing out that made it a copy (pooled ones)


def _read_only(a):
    """Whether no one can write into ``a``'s memory: a and every array it views read-only, down
    to an owner of its data or an immutable buffer (bytes).  (numpy lets the owner of its data
    be made writeable again; code that does so while a derivative is being taken has said
    otherwise first.)"""
    while type(a) is np.ndarray:
        if a.flags.writeable:
            return False
        if a.base is None:
            return a.flags.owndata
        a = a.base
    return isinstance(a, bytes)


def _is_private(b):
    """Whether the array b (alive: the caller holds it) is one of the copies made below."""
    r, stamp = _private.get(id(b)), _private_pooled.get(id(b))
    return (r is not None and r() is b) or (stamp is not None and _epochs.get(id(b)) == stamp)


def private_copy(a):
    """A copy of the plain array ``a`` that only dvlad holds, or ``a`` itself if it already is
    one or a view of one, or if nothing can write into it (:func:`_read_only`: mark large
    constant data read-only, ``X.flags.writeable = False``, and reverse mode reads it where it
    is); the reference path always copies."""
    b = None if REFERENCE else a
    while type(b) is np.ndarray:
        if _is_private(b):
            return a
        b = b.base
    if isinstance(b, np.ndarray) and _tracing[0] and tracing():
        return a            # a traced array or a view of one: dvlad.compile records it
    if not REFERENCE and _read_only(a):
        return a            # nothing can write into it while dvlad holds it: no copy
    if _ENABLED and a.dtype in _FLOATS and a.nbytes >= _settings["threshold"]:
        c = _take(a.shape, a.dtype, a.nbytes)
        if c is not None:
            np.copyto(c, a)
            with _lock:
                if len(_private_pooled) >= 64:      # forget copies handed out again since
                    for key in [k for k, s in _private_pooled.items() if _epochs.get(k) != s]:
                        del _private_pooled[key]
                _private_pooled[id(c)] = _epochs[id(c)]
            return c
    c = a.copy()
    key = id(c)
    _private[key] = weakref.ref(c, lambda _, key=key: _private.pop(key, None))
    return c
