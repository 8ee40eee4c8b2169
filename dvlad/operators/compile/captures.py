"""The state F reads besides its arguments, found once and checked at every replay.

A trace bakes in every number F reads from closures, globals, default arguments, captured
lists, dicts, arrays and object attributes.  :func:`find` walks what F can reach: closure
cells, defaults, the globals its code names, the attributes its code names on objects it
reaches, and the functions among them, recursively.  Each number, array, function and container
found is an :class:`Entry` (where it lives, what it was).  A replay first checks every entry
(identity first, then value: a rebound variable with an equal value still matches) and traces
again when one differs, so a rebinding or an in-place write is never answered with the old
value.  Library code (dvlad's, numpy's, the standard library's) is reached only through the
closures of functions dvlad built (``derivative(f)`` holds ``f``), never through its globals.

Found and refused (F then runs eagerly, and ``explain()`` says why): a dvlad number or a traced
value (a live perturbation of an outer derivative), or more state than ``LIMIT`` entries.
"""
import builtins
import random
import sys
import types

import numpy as np

from ...core.base import MPF
from ...core.number import ADNumber
from .traced import Traced

LIMIT = 5000
_ATOMS = (int, float, complex, str, bytes, bool, type(None), MPF, np.generic)
_LIBRARY_ROOTS = ("dvlad", "numpy", "scipy", "mpmath", "builtins", "math", "functools",
                  "operator", "itertools", "collections", "typing", "abc", "random")
_STDLIB = sys.prefix
_RNGS = (np.random.Generator, np.random.RandomState, random.Random)


class Refused(Exception):
    """The walk found something a trace cannot hold; the message says what and where."""


def _library(obj):
    module = (obj.__name__ if isinstance(obj, types.ModuleType)
              else getattr(obj, "__module__", None) or "")
    if module.split(".")[0] in _LIBRARY_ROOTS:
        return True
    if isinstance(obj, types.ModuleType):
        path = getattr(obj, "__file__", None)
        return path is None or "site-packages" in path or path.startswith(_STDLIB + "/lib/")
    code = getattr(obj, "__code__", None)
    return code is not None and ("site-packages" in code.co_filename
                                 or code.co_filename.startswith(_STDLIB + "/lib/"))


def _names(code, out):
    """Every name a code object and the code objects inside it look up (globals, attributes),
    and the strings it holds that could be one (``getattr(config, "scale")``)."""
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _names(c, out)
        elif isinstance(c, str) and c.isidentifier():
            out.add(c)
    return out


class Entry:
    """One place F reads: ``place`` says where (("cell", cell), ("key", mapping, key),
    ("item", sequence, index), ("default", function, index) or ("kwdefault", function, name)),
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
            return where.__kwdefaults__[key]
        except (ValueError, IndexError, KeyError, TypeError):
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
    if isinstance(v, list):
        return list(v)
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, _RNGS):
        return _rng_state(v)
    return None


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
    """Equal as a trace would see it (nan equals nan; arrays element by element)."""
    if isinstance(now, _RNGS):
        return _rng_state(now) == was
    if type(now) is np.ndarray:
        if type(was) is not np.ndarray or now.shape != was.shape or now.dtype != was.dtype:
            return False
        bits = _BITS.get(now.dtype.itemsize) if now.dtype.kind in "fc" else None
        if bits is not None:        # bit for bit: nan is nan, and no isnan passes (−0.0 is not
            return bool(np.array_equal(now.view(bits), was.view(bits)))   # 0.0: a new trace)
        return bool(np.array_equal(now, was, equal_nan=now.dtype.kind in "fc"))
    if isinstance(now, (list, dict)):
        if len(now) != len(was):
            return False
        pairs = zip(now, was) if isinstance(now, list) else (
            (now.get(k, _MISSING), v) for k, v in was.items())
        return all(a is b or (isinstance(a, _ATOMS) and type(a) is type(b) and _same(a, b))
                   for a, b in pairs)
    if isinstance(now, _ATOMS):
        try:
            return now == was or (now != now and was != was)
        except (TypeError, ValueError):
            return False
    return now is was


_MISSING = object()


# What F's code may call without a watch (see :func:`find`): modules and builtins that only
# compute; and the names that make F run eagerly (draws that could not be replayed).
PURE_MODULES = {"math", "cmath", "operator", "functools", "itertools", "numpy", "numpy.linalg",
                "dvlad", "scipy.special", "mpmath", "builtins"}
UNKNOWN_BUILTINS = {"print", "input", "open", "exec", "eval", "compile", "setattr", "delattr",
                    "globals", "locals", "vars", "__import__", "breakpoint", "getattr", "exit",
                    "quit", "help", "repr", "ascii", "id"}
EFFECT_NAMES = {"tape_graph"}


def _module_name(obj):
    return getattr(obj, "__name__", "") if isinstance(obj, types.ModuleType) else \
        getattr(obj, "__module__", None) or ""


class _Walk:
    def __init__(self):
        self.entries = []
        self.seen = {}
        self.names = set()
        self.unknown = None         # why calls must be watched (None: F's code is plain)
        self.draws = None           # why F runs eagerly: it names numpy.random

    def unsure(self, why):
        if self.unknown is None:
            self.unknown = why

    def place(self, place, value, label):
        if len(self.entries) >= LIMIT:
            raise Refused(f"F reaches more than {LIMIT} captured values (the last: {label}); "
                          f"pass large data as arguments")
        if isinstance(value, (ADNumber, Traced)):
            raise Refused(f"{label} holds a dvlad number (a perturbation of a derivative being "
                          f"taken around this call): F runs eagerly inside it")
        if not isinstance(value, types.ModuleType):
            self.entries.append(Entry(place, value, label))
        self.visit(value, label)

    def element(self, place, value, label):
        """An element of a captured container: its container's entry covers a plain number,
        and a tuple's elements stay what they are (only their contents can change)."""
        if isinstance(value, _ATOMS):
            return
        if type(place[1]) is tuple and _copy(value) is None:
            self.visit(value, label)
            return
        self.place(place, value, label)

    def visit(self, v, label):
        if isinstance(v, _ATOMS) or id(v) in self.seen:
            return
        self.seen[id(v)] = v
        if isinstance(v, types.BuiltinFunctionType):
            owner = getattr(v, "__self__", None)
            module = _module_name(owner) if isinstance(owner, types.ModuleType) else \
                _module_name(v)
            if module not in PURE_MODULES or v.__name__ in UNKNOWN_BUILTINS or \
                    isinstance(owner, _RNGS):
                self.unsure(f"{label} is {module}.{v.__name__}")
        elif isinstance(v, types.FunctionType):
            if _library(v) and (_module_name(v).split(".")[0] not in
                                {m.split(".")[0] for m in PURE_MODULES} or
                                v.__name__ in EFFECT_NAMES):
                self.unsure(f"{label} is {_module_name(v)}.{v.__name__}")
            self.function(v, label)
        elif isinstance(v, types.MethodType):
            self.visit(v.__func__, f"{label}.__func__")
            self.visit(v.__self__, f"{label}.__self__")
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                self.element(("item", v, i), x, f"{label}[{i}]")
        elif isinstance(v, dict):
            for k, x in list(v.items()):
                self.element(("key", v, k), x, f"{label}[{k!r}]")
        elif hasattr(v, "func") and hasattr(v, "args") and hasattr(v, "keywords"):
            self.visit(v.func, f"{label}.func")                 # functools.partial
            self.visit(v.args, f"{label}.args")
            self.visit(v.keywords, f"{label}.keywords")
        elif isinstance(v, types.ModuleType):
            if v.__name__ not in PURE_MODULES and _library(v):
                self.unsure(f"{label} is the module {v.__name__}")
            elif v.__name__ == "numpy" and "random" in self.names:
                self.draws = f"{label}.random (numpy's random numbers cannot be replayed)"
            self.attributes(v, label)
        elif isinstance(v, type):
            self.attributes(v, label)
        elif isinstance(v, _RNGS + (np.ndarray,)):
            pass                                        # their contents are compared
        elif hasattr(type(v), "__next__"):
            self.draws = f"{label}, an iterator (each call advances it; a replay would not)"
        elif _module_name(type(v)).split(".")[0] == "dvlad":
            for k, x in _fields(v):                    # an operator dvlad built: what it holds
                self.visit(x, f"{label}.{k}")
        elif _library(v):
            self.unsure(f"{label} is a {type(v).__module__}.{type(v).__name__}")
            self.attributes(v, label)
        elif hasattr(v, "__dict__"):
            self.attributes(v, label)
            self.visit(type(v), f"type({label})")
        else:
            self.unsure(f"{label} is a {type(v).__name__}")

    def function(self, fn, label):
        code = fn.__code__
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:                 # an empty cell (assigned later)
                value = _MISSING
            self.place(("cell", cell, None), value, f"{label}'s {name}")
        library = _library(fn)
        if fn.__defaults__ and not library:
            for i, d in enumerate(fn.__defaults__):
                self.place(("default", fn, i), d, f"{label}'s default {i}")
        for k, d in ((fn.__kwdefaults__ or {}) if not library else {}).items():
            self.place(("kwdefault", fn, k), d, f"{label}'s default {k}")
        if library:
            return
        names = _names(code, set())
        self.names |= names
        g = fn.__globals__
        b = g.get("__builtins__", builtins)
        b = b.__dict__ if isinstance(b, types.ModuleType) else b
        for name in sorted(names):
            if name in g:
                self.place(("key", g, name), g[name], name)
            elif name in b:
                self.visit(b[name], name)

    def attributes(self, obj, label):
        """The attributes of obj that some walked code names (a module's, a class's, an
        instance's), walked in turn; a library module's only if they are plain data."""
        d = getattr(obj, "__dict__", None)
        if not isinstance(d, (dict, types.MappingProxyType)):
            return
        library = _library(obj)
        for name in sorted(self.names & set(d)):
            value = d[name]
            if library and not isinstance(value, (_ATOMS, np.ndarray)):
                continue
            self.place(("key", d, name), value, f"{label}.{name}")


def _fields(obj):
    """(name, value) of every attribute an object stores (its __dict__ and its slots)."""
    out = list(getattr(obj, "__dict__", {}).items())
    for cls in type(obj).__mro__:
        for k in getattr(cls, "__slots__", ()):
            if hasattr(obj, k):
                out.append((k, getattr(obj, k)))
    return out


def find(f, extra=()):
    """The walk of everything f (and the objects among its arguments, ``extra``) can reach:
    its ``entries``; ``unknown``, why F's calls must be watched while it is traced (something
    reached is not plain code, data or a pure library); ``draws``, why F must run eagerly.
    Raises :class:`Refused`."""
    w = _Walk()
    w.visit(f, getattr(f, "__qualname__", "F"))
    for i, x in enumerate(extra):
        w.visit(x, f"argument {i}")
    # names found later can reach attributes of objects visited earlier: walk until no new name
    before = None
    while before != len(w.names):
        before = len(w.names)
        w.seen.clear()
        w.entries.clear()
        w.visit(f, getattr(f, "__qualname__", "F"))
        for i, x in enumerate(extra):
            w.visit(x, f"argument {i}")
    return w


def global_rng_state():
    """The state of numpy's and Python's global random generators (a draw changes it)."""
    return _frozen(np.random.get_state(legacy=False)), random.getstate()
