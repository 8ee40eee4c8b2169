"""The places a trace reads (:class:`Entry`) and how a replay tells whether they still hold
what the trace saw: bit for bit for arrays and floats (−0.0 is not 0.0, nan is nan), element by
element and in order for containers, by state for random generators."""
import array
import collections
import math
import random

import numpy as np

from ...core.base import MPF

_ATOMS = (int, float, complex, str, bytes, bool, type(None), MPF, np.generic)
_RNGS = (np.random.Generator, np.random.RandomState, random.Random)
_SEQUENCES = (collections.deque,)


class Entry:
    """One place F reads: ``place`` says where (("cell", cell), ("key", mapping, key),
    ("item", sequence, index), ("default", function, index), ("kwdefault", function, name),
    ("attr", object, slot) or ("self", object, name): an attribute a walk cannot replace,
    ("alive", weak reference, None): whether its object lives),
    ``value`` what the trace saw there (``copy``: its elements, for an array, list, dict or
    random generator, whose contents can change in place)."""

    __slots__ = ("place", "value", "copy", "label")

    def __init__(self, place, value, label):
        self.place, self.value, self.label = place, value, label
        self.copy = _copy(value)

    def read(self):
        kind, where, key = self.place
        try:
            if kind == "cell":
                return where.cell_contents
            if kind == "key":
                return where.get(key, _MISSING)
            if kind == "item":
                return where[key] if key < len(where) else _MISSING
            if kind == "default":
                return where.__defaults__[key]
            if kind == "attr":
                return getattr(where, key, _MISSING)
            if kind == "self":
                return getattr(where, key)
            if kind == "alive":                 # whether a weak reference's object lives
                return where() is not None
            return where.__kwdefaults__[key]
        except (ValueError, IndexError, KeyError, TypeError, AttributeError):
            return _MISSING

    def holds(self):
        """Whether the place still holds what the trace saw."""
        now = self.read()
        if now is self.value:
            return self.copy is None or _same(now, self.copy)
        return type(now) is type(self.value) and _same(now, self.value if self.copy is None
                                                       else self.copy)


def _copy(v):
    if type(v) is np.ndarray:
        return v.copy()
    if isinstance(v, np.ndarray):           # a subclass (matrix, memmap, masked): its data
        return _Sub(v)                      # and, for a masked array, its mask
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, _RNGS):
        return _rng_state(v)
    if isinstance(v, _SEQUENCES):
        return list(v)
    if isinstance(v, array.array):
        return array.array(v.typecode, v)
    if isinstance(v, memoryview):
        return bytes(v)
    if isinstance(v, (set, bytearray)):
        return type(v)(v)
    return None


class _Sub:
    """What an ndarray subclass held: its data (bit for bit) and mask."""

    __slots__ = ("data", "mask", "kind")

    def __init__(self, v):
        self.kind = type(v)
        self.data = np.array(np.asarray(v), copy=True)
        self.mask = np.array(np.ma.getmaskarray(v), copy=True) if isinstance(
            v, np.ma.MaskedArray) else None

    def same(self, now):
        if type(now) is not self.kind or not _same(np.asarray(now), self.data):
            return False
        return self.mask is None or np.array_equal(np.ma.getmaskarray(now), self.mask)


def _frozen(state):
    """A random generator's state as something == compares (arrays as their bytes)."""
    if isinstance(state, dict):
        return tuple((k, _frozen(v)) for k, v in state.items())
    if isinstance(state, (tuple, list)):
        return tuple(_frozen(v) for v in state)
    if isinstance(state, np.ndarray):
        return state.tobytes()
    return state


def _rng_state(g):
    if isinstance(g, random.Random):
        return g.getstate()
    if isinstance(g, np.random.RandomState):
        return _frozen(g.get_state(legacy=False))
    return _frozen(g.bit_generator.state)


_BITS = {8: np.int64, 4: np.int32, 2: np.int16}


def _same(now, was):
    """Equal as a trace would see it (nan equals nan, −0.0 is not 0.0; arrays element by
    element, bit for bit; dicts in their order)."""
    if isinstance(now, _RNGS):
        return _rng_state(now) == was
    if type(was) is _Sub:
        return was.same(now)
    if type(now) is np.ndarray:
        if type(was) is not np.ndarray or now.shape != was.shape or now.dtype != was.dtype:
            return False
        if now.dtype.kind == "c":           # (a complex array as its real and imaginary parts)
            now, was = _parts(now), _parts(was)
        bits = _BITS.get(now.dtype.itemsize) if now.dtype.kind == "f" else None
        if bits is not None:        # bit for bit: nan is nan, and no isnan passes (−0.0 is not
            return bool(np.array_equal(now.view(bits), was.view(bits)))   # 0.0: a new trace)
        if now.dtype.kind == "f":   # (long double: its padding is not part of the number)
            return bool(np.array_equal(now, was, equal_nan=True) and np.array_equal(
                np.signbit(now), np.signbit(was)))
        return bool(np.array_equal(now, was))
    if isinstance(now, _SEQUENCES) and type(was) is list:
        now = list(now)
    if isinstance(now, (list, dict)):
        if len(now) != len(was) or (isinstance(now, dict) and list(now) != list(was)):
            return False
        pairs = zip(now, was) if isinstance(now, list) else (
            (now.get(k, _MISSING), v) for k, v in was.items())
        return all(a is b or (isinstance(a, _ATOMS) and type(a) is type(b) and _same(a, b))
                   for a, b in pairs)
    if isinstance(now, (set, bytearray, array.array)):
        return type(now) is type(was) and now == was and (    # (−0.0 in a set is 0.0 to ==)
            not isinstance(now, set) or sorted(map(repr, now)) == sorted(map(repr, was)))
    if isinstance(now, memoryview):
        return bytes(now) == was
    if isinstance(now, _ATOMS):
        try:
            if now == was:
                return not isinstance(now, (float, complex, np.inexact)) or _signs(now) == \
                    _signs(was)
            return now != now and was != was
        except (TypeError, ValueError):
            return False
    return now is was


def _parts(a):
    """A complex array as a float array of its parts (a copy where a view cannot be made)."""
    try:
        return a.view(a.real.dtype)
    except ValueError:
        return np.stack([a.real, a.imag], axis=-1)


def _signs(x):
    """The signs of x's parts (−0.0 and 0.0 are equal numbers a trace tells apart)."""
    z = complex(x)
    return math.copysign(1.0, z.real), math.copysign(1.0, z.imag)


_MISSING = object()


def settle(entries):
    """The traced values F stored into the state it changed (``memo[k] = x * 2.0``), replaced
    by their numbers: after a trace that is not kept, F's state holds what eager F would."""
    from .traced import Traced
    for e in entries:
        now = e.read()
        kind, where, key = e.place
        if isinstance(now, Traced):
            try:
                if kind == "cell":
                    where.cell_contents = now.value
                elif kind in ("key", "item") and not isinstance(where, tuple):
                    where[key] = now.value
                elif kind == "attr":
                    setattr(where, key, now.value)
            except (TypeError, AttributeError):
                pass
        elif isinstance(now, (list, dict)):
            _settle_in(now, Traced, set())


def _settle_in(c, traced, seen):
    if id(c) in seen:
        return
    seen.add(id(c))
    items = enumerate(c) if isinstance(c, list) else list(c.items())
    for k, v in items:
        if isinstance(v, traced):
            c[k] = v.value
        elif isinstance(v, (list, dict)):
            _settle_in(v, traced, seen)
