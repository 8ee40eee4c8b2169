"""What a traced call gives back and what it was given: F's result with its traced values
replaced by their numbers, and the lists and dicts among F's arguments (a trace that changes
one is not replayed)."""
import numpy as np

from ...core.base import MPF

from .arrays import TracedArray
from .traced import Traced, Untraceable

_FLOATS = (float, np.float64, np.float32, np.float16, np.longdouble)
_STATIC = (int, bool, str, bytes, complex, type(None))


def _containers(x, out):
    """(container, shallow copy) of every list and dict in x, recursively."""
    if type(x) is list or type(x) is dict:
        out.append((x, list(x.items()) if type(x) is dict else list(x)))
    if type(x) in (list, tuple):
        for v in x:
            _containers(v, out)
    elif type(x) is dict:
        for v in x.values():
            _containers(v, out)
    return out


def _unchanged(c, was):
    now = list(c.items()) if type(c) is dict else c
    return len(now) == len(was) and all(
        a is b or (type(a) is tuple and type(b) is tuple and a[0] == b[0] and a[1] is b[1])
        for a, b in zip(now, was))


def _concrete(out):
    """The traced run's result with every traced value replaced by its number; raises
    Untraceable where a traced value sits inside something else."""
    t = type(out)
    if t is Traced or t is TracedArray:
        return out.value
    if t is tuple or t is list:
        return t(_concrete(v) for v in out)
    if t is dict:
        if any(type(k) is Traced for k in out):
            raise Untraceable("F returned a dict keyed by a number it computed")
        return {k: _concrete(v) for k, v in out.items()}
    if isinstance(out, tuple) and hasattr(t, "_fields"):
        return t(*(_concrete(v) for v in out))
    if t in _STATIC or t in _FLOATS or t is MPF or isinstance(out, np.generic) or \
            t is np.ndarray:
        return out
    raise Untraceable(f"F returned a {t.__name__}")


def _loose(out):
    """F's result after its trace was abandoned: each traced value where F's containers hold
    one replaced by its number; anything else as F made it."""
    t = type(out)
    if isinstance(out, Traced):
        return out.value
    if t is tuple or t is list:
        return t(_loose(v) for v in out)
    if t is dict:
        return {_loose(k): _loose(v) for k, v in out.items()}
    if isinstance(out, tuple) and hasattr(t, "_fields"):
        return t(*(_loose(v) for v in out))
    return out
