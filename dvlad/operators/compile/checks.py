"""A trace of numpy code, checked before it is kept (dvlad.compile's arrays: notes/compile.md).

Arrays make more ways for a trace to go wrong than numbers do (a value read past the tracer, a
write it did not see), so a trace that holds arrays is run three times before it is kept: its
result must be F's own, and so must the replay's, at the traced arguments and at arguments
moved a little (to 10⁻⁹ of the result's scale: a BLAS product rounds by memory alignment, and a
value kept stale is off by far more).  A trace that fails any of them is dropped and F runs
eagerly.  A trace of numbers alone is checked so too (F may test what its arguments are:
``isinstance(x, float)`` is False for a traced number).
"""
import numpy as np

from ...core.base import MPF

from .codegen import Miss

_FLOATS = (float, np.float64, np.float32, np.float16, np.longdouble)


class _Eager(Exception):
    """This call's arguments are run eagerly (the message says why)."""


def _aliases(leaves):
    """Which array arguments are one array (a trace of f(x, x) is not one of f(x, y)); arrays
    that overlap without being one make F run eagerly."""
    arrays = [(k, v) for k, v in enumerate(leaves) if type(v) is np.ndarray]
    same = []
    for i, (k, a) in enumerate(arrays):
        for m, b in arrays[:i]:
            if a is b:
                same.append((k, m))
                break
            if np.may_share_memory(a, b):
                raise _Eager("called with arrays that share memory (views of one array): a "
                             "trace cannot know how writes into one show in the other")
    return tuple(same)


def _rebuild(x, values):
    """x with its float leaves replaced, in order, by ``values`` (an iterator)."""
    t = type(x)
    if t in _FLOATS or t is MPF or t is np.ndarray:
        return next(values)
    if t is tuple or t is list:
        return t(_rebuild(v, values) for v in x)
    if t is dict:
        return {k: _rebuild(v, values) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return t(*(_rebuild(v, values) for v in x))
    return x


def _same(a, b):
    """Whether two results are the same numbers in the same structure (nan equal to nan)."""
    if type(a) is not type(b):
        return False
    if type(a) is np.ndarray:
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind not in "fc" or np.array_equal(a, b, equal_nan=True):
            return a.dtype.kind in "fc" or bool(np.array_equal(a, b))
        # BLAS may round a product differently in the last place (another memory alignment):
        # within 10⁻⁹ of the array's scale is the same; a value kept stale is 10⁻³ off or more
        scale = np.max(np.abs(b), initial=0.0, where=np.isfinite(b))
        return bool(np.all(np.isclose(a, b, rtol=1e-9, atol=1e-9 * scale, equal_nan=True)))
    if type(a) in (tuple, list) or isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (float, np.floating)) and a != b and a == a and b == b:
        return abs(a - b) <= 1e-9 * abs(b)
    return a == b or (a != a and b != b)


def _nudged(x, k):
    """Argument leaf x moved a little (the k-th leaf): floats by a relative 10⁻³·(1 + k/7), and
    exact zeros to 10⁻³ of the array's scale (a trace made at zeros, a common starting point,
    is checked where its values matter)."""
    if type(x) is np.ndarray:
        if x.dtype.kind != "f":
            return x
        y = np.array(x, copy=True)         # (an array still at 0-d: x * ... would be a scalar)
        np.multiply(y, 1 + 1e-3 * (1 + np.arange(x.size).reshape(x.shape) % 7 / 7), out=y,
                    casting="unsafe")
        if y.ndim and np.count_nonzero(y) < y.size:
            scale = np.max(np.abs(y))
            if np.isfinite(scale):
                zero = y == 0
                y[zero] = 1e-3 * (scale or 1.0) * (1 + np.flatnonzero(zero) % 7 / 7)
        return y
    if type(x) in _FLOATS:
        return type(x)(x * (1 + 1e-3 * (1 + k % 7 / 7)) if x else 1e-3 * (1 + k % 7 / 7))
    return x


_FIRST_IMPORT = ("not kept: F imported a module for the first time (the next call traces "
                 "again, with the module's values among its checks)")


SOURCE_MOST = 1 << 19       # bytes of source a trace may take, or one per operation if more


def _too_long(code):
    """Why a trace is not kept for its size (None: it is kept).  Loops are rolled and long
    results spelled as slices (notes/compile.md), so a trace takes well under a byte of source
    per operation; what the reroller could not fold (a float() guard in every iteration: a
    trace that fits one x) would take megabytes, and F runs eagerly instead."""
    n = len(code.source())
    if n <= max(SOURCE_MOST, code.ops):
        return None
    return (f"{_LONG} {n / 1e6:.1f} MB for {code.ops} operations (more than a byte each: "
            f"what the loop roller could not fold)")


_LONG = "its source would be"


def _check(replay, f, args, kwargs, leaves, traced):
    """A trace with arrays, checked before it is kept: the traced result and the replay's, at
    these arguments and at arguments moved a little, must be F's own (to 10⁻⁹ of its scale:
    BLAS rounds by memory alignment; a value the tracer did not see would differ by far more).
    (why not, F's result) or (None, the result)."""
    eager = f(*args, **kwargs)
    if not _same(traced, eager):
        return ("the traced call's result differs from F's: F may test what its arguments are "
                "(isinstance, hasattr), or read a value the tracer did not follow"), eager
    try:
        again = replay.run(leaves)
    except (Miss, Exception) as e:
        return f"the replay failed where it was traced ({type(e).__name__})", eager
    if not _same(again, eager):
        return "the replay's result differs from F's at the traced arguments", eager
    moved = [_nudged(x, k) for k, x in enumerate(leaves)]
    try:
        other = replay.run(moved)
    except Miss:
        return None, eager              # another path: nothing to compare with
    except Exception as e:
        return f"the replay raised {type(e).__name__} where it was checked", eager
    values = iter(moved)
    try:
        want = f(*_rebuild(args, values), **_rebuild(kwargs, values))
    except Exception:                   # F has no value there: nothing to compare with
        return None, eager
    if not _same(other, want):
        return "the replay's result differs from F's at other arguments (it kept a value " \
               "the tracer did not see change)", eager
    return None, eager
