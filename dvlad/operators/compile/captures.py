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
import array
import builtins
import collections
import ctypes
import dis
import functools
import operator
import os
import random
import sys
import types
import weakref

import numpy as np

from ...core.number import ADNumber
from .names import computed_read
from .places import _ATOMS, _MISSING, _RNGS, _SEQUENCES, Entry, _copy, _frozen
from .traced import Traced
from .watch import _LIBRARY_ROOTS, library_file

LIMIT = 5000
_ESCAPES = (collections.ChainMap, types.MappingProxyType)
# methods Python calls without naming them: a class's are walked wherever the class is
_IMPLICIT = {"__call__", "__get__", "__getattr__", "__getattribute__", "__set__",
             "__getitem__", "__iter__", "__len__", "__float__", "__index__", "__int__",
             "__bool__", "__contains__", "__next__", "__reversed__", "__enter__", "__exit__",
             "__array__", "__array_ufunc__", "__array_function__", "__round__", "__trunc__",
             "__floor__", "__ceil__", "__abs__", "__neg__", "__pos__", "__invert__",
             "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__hash__",
             "__str__", "__repr__", "__format__"} | {
    f"__{p}{op[2:-2]}__" for p in ("", "r", "i") for op in (
        "__add__", "__sub__", "__mul__", "__matmul__", "__truediv__", "__floordiv__", "__mod__",
        "__divmod__", "__pow__", "__lshift__", "__rshift__", "__and__", "__xor__", "__or__")}
# builtins that read by a name given at run time: reached under another name (ga = getattr, a
# functools.partial of one), F runs eagerly (names.py finds them where F's code calls them)
_BY_NAME = (getattr, hasattr, vars, globals, operator.attrgetter, operator.methodcaller)


# memory that changes without Python code running where a walk could see it, and mappings
# whose entries come and go with other objects' lives
_UNSEEN = (ctypes.Array, ctypes.Structure, ctypes.Union, ctypes._SimpleCData, ctypes._Pointer,
           weakref.WeakValueDictionary, weakref.WeakKeyDictionary, weakref.WeakSet)


class Refused(Exception):
    """The walk found something a trace cannot hold; the message says what and where."""


def _library(obj):
    try:
        return _from_a_library(obj)
    except Exception:               # a __getattr__ that raises KeyError: user code
        return False


def _from_a_library(obj):
    module = (obj.__name__ if isinstance(obj, types.ModuleType)
              else getattr(obj, "__module__", None) or "")
    if module.split(".")[0] in _LIBRARY_ROOTS:
        return True
    if isinstance(obj, types.ModuleType):
        path = getattr(obj, "__file__", None)
        if path is None:            # a module written in C, or one made at run time
            return obj.__name__ in sys.builtin_module_names or obj.__spec__ is not None
        return library_file(path)
    code = getattr(obj, "__code__", None)
    return code is not None and library_file(code.co_filename)


# names through which code reads its globals by a string (a dict key "a" is not global a)
_NAMESPACES = {"globals", "vars", "locals", "eval", "exec", "compile", "getattr", "__import__",
               "__globals__", "f_globals", "__builtins__", "__dict__", "modules", "import_module"}


def _names(code, out, strings, stores, imports):
    """Every name a code object and the code objects inside it look up (globals, attributes);
    ``strings``: the strings it holds that could name an attribute (``getattr(config,
    "scale")``), or a global where the code names a namespace (:data:`_NAMESPACES`);
    ``stores``: the attributes it sets or deletes; ``imports``: the modules it imports."""
    out.update(code.co_names)
    for i in dis.get_instructions(code):
        if i.opname in ("STORE_ATTR", "DELETE_ATTR"):
            stores.add(i.argval)
        elif i.opname == "IMPORT_NAME":
            imports.add(i.argval)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _names(c, out, strings, stores, imports)
        elif isinstance(c, str) and c.isidentifier():
            strings.add(c)
    return out


def _has(v, name):
    """hasattr that a __getattr__ raising something else than AttributeError answers False."""
    try:
        return hasattr(v, name)
    except Exception:
        return False




# What F's code may call without a watch (see :func:`find`): modules and builtins that only
# compute; and the names that make F run eagerly (draws that could not be replayed).
PURE_MODULES = {"math", "cmath", "operator", "functools", "itertools", "numpy", "numpy.linalg",
                "dvlad", "scipy.special", "mpmath", "builtins"}
UNKNOWN_BUILTINS = {"print", "input", "open", "exec", "eval", "compile", "setattr", "delattr",
                    "globals", "locals", "vars", "__import__", "breakpoint", "getattr", "exit",
                    "quit", "help", "repr", "ascii", "id"}
EFFECT_NAMES = {"tape_graph"}


def _module_name(obj):
    try:
        return getattr(obj, "__name__", "") if isinstance(obj, types.ModuleType) else \
            getattr(obj, "__module__", None) or ""
    except Exception:
        return ""


class _Walk:
    def __init__(self):
        self.entries = []
        self.seen = {}
        self.names = set(_IMPLICIT)
        self.stores = set()
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
        self.entries.append(Entry(place, value, label))     # (a module: by identity)
        if value is not _MISSING:
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
        if isinstance(v, _ATOMS):
            return
        if any(v is b for b in _BY_NAME[:4]) and label not in (
                v.__name__, f"builtins.{v.__name__}") or isinstance(v, _BY_NAME[4:]):
            self.draws = (f"{label}, {v!r}: it reads attributes by a name given while F runs, "
                          f"which a replay could not check")       # (every label: no seen)
        if id(v) in self.seen:
            return
        self.seen[id(v)] = v
        if v is os.environ or v is getattr(os, "environb", None) or isinstance(v, _UNSEEN):
            self.draws = (f"{label}, a {type(v).__name__}: values that change where a trace "
                          f"cannot check them")
        elif isinstance(v, weakref.ReferenceType):  # its object, as if F held it (not kept)
            self.entries.append(Entry(("alive", v, None), v() is not None, f"{label}()"))
            if v() is not None:
                self.visit(v(), f"{label}()")
        elif isinstance(v, types.BuiltinFunctionType):
            owner = getattr(v, "__self__", None)
            module = _module_name(owner) if isinstance(owner, types.ModuleType) else \
                _module_name(v)
            if module not in PURE_MODULES or v.__name__ in UNKNOWN_BUILTINS or \
                    isinstance(owner, _RNGS):
                self.unsure(f"{label} is {module}.{v.__name__}")
            if owner is not None and _copy(owner) is not None:
                # a bound method (LOG.append, rng.standard_normal): what it is bound to is
                # state F reads and may change
                self.place(("self", v, "__self__"), owner, f"{label}.__self__")
        elif isinstance(v, types.FunctionType):
            if _library(v) and (_module_name(v).split(".")[0] not in
                                {m.split(".")[0] for m in PURE_MODULES} or
                                v.__name__ in EFFECT_NAMES):
                self.unsure(f"{label} is {_module_name(v)}.{v.__name__}")
            self.function(v, label)
        elif isinstance(v, types.MethodType):
            self.visit(v.__func__, f"{label}.__func__")
            owner = v.__self__
            if _copy(owner) is None:                # (a bound method's owner stays itself)
                self.visit(owner, f"{label}.__self__")
            else:                                   # a random generator: its state; a list
                self.place(("self", v, "__self__"), owner, f"{label}.__self__")
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                self.element(("item", v, i), x, f"{label}[{i}]")
        elif isinstance(v, dict):
            for k, x in list(v.items()):
                self.element(("key", v, k), x, f"{label}[{k!r}]")
        elif _has(v, "cache_info") and _has(v, "__wrapped__"):
            self.draws = (f"{label}, a cached function (functools.lru_cache or cache): its "
                          f"cache would keep traced values, and a replay would not fill it")
        elif isinstance(v, (operator.attrgetter, operator.methodcaller)):
            for a in v.__reduce__()[1]:         # the attribute names it reads
                if isinstance(a, str):
                    self.names.update(a.split("."))
        elif isinstance(v, (classmethod, staticmethod)):
            self.visit(v.__func__, f"{label}.__func__")
        elif isinstance(v, memoryview):
            pass                                        # its bytes are compared
        elif isinstance(v, property):
            for k, x in (("fget", v.fget), ("fset", v.fset), ("fdel", v.fdel)):
                self.visit(x, f"{label}.{k}")
        elif isinstance(v, functools.partial) and _module_name(v.func).split(".")[0] != "dvlad":
            self.visit(v.func, f"{label}.func")
            self.visit(v.args, f"{label}.args")                 # its keywords can change
            self.place(("self", v, "keywords"), v.keywords, f"{label}.keywords")
        elif _has(v, "func") and _has(v, "args") and _has(v, "keywords"):
            self.visit(v.func, f"{label}.func")                 # partial-like (dvlad's own)
            self.visit(v.args, f"{label}.args")
            self.visit(v.keywords, f"{label}.keywords")
        elif isinstance(v, _ESCAPES):
            self.draws = f"{label}, a {type(v).__name__} (F's state a trace cannot check)"
        elif isinstance(v, types.ModuleType):
            if v.__name__ in ("os", "posix", "nt") and self.names & {
                    "environ", "environb", "getenv", "getenvb"}:
                self.draws = f"{label}.environ (the environment can change between calls)"
            elif v is sys and "argv" in self.names:
                self.place(("key", vars(sys), "argv"), sys.argv, "sys.argv")
            elif v.__name__ not in PURE_MODULES and _library(v):
                self.unsure(f"{label} is the module {v.__name__}")
            elif v.__name__ == "numpy" and "random" in self.names:
                self.draws = f"{label}.random (numpy's random numbers cannot be replayed)"
            elif v.__name__ == "numpy" and "errstate" in self.names:
                self.draws = (f"{label}.errstate (a replay runs under the caller's error "
                              f"state, not the one F sets)")
            self.attributes(v, label)
        elif isinstance(v, type):
            mro = [c for c in v.__mro__ if c is not object]
            for c in mro:
                self.attributes(c, f"{label}" if c is v else f"{label}'s base {c.__name__}")
            for name in sorted(self.names):          # a class before the one holding a name
                held = [i for i, c in enumerate(mro) if name in c.__dict__]   # could come
                for c in mro[:held[0]] if held and not _library(v) else ():  # to hold it
                    self.place(("key", c.__dict__, name), _MISSING, f"{c.__name__}.{name}")
        elif isinstance(v, _RNGS + (np.ndarray,)):
            pass                                        # their contents are compared
        elif isinstance(v, (set, bytearray, array.array) + _SEQUENCES):
            for i, x in enumerate(list(v)):
                if not isinstance(x, _ATOMS):
                    self.visit(x, f"{label}[{i}]")
        elif hasattr(type(v), "__next__"):
            self.draws = f"{label}, an iterator (each call advances it; a replay would not)"
        elif _module_name(type(v)).split(".")[0] == "dvlad":
            for k, x in _fields(v):                    # an operator dvlad built: what it holds
                self.visit(x, f"{label}.{k}")
        elif _library(v):
            self.unsure(f"{label} is a {type(v).__module__}.{type(v).__name__}")
            self.attributes(v, label)
        elif _has(v, "__dict__") or hasattr(type(v), "__slots__"):
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
        if not library:
            self.attributes(fn, label)              # fn.calls, a counter F keeps on itself
            self.entries.append(Entry(("attr", fn, "__code__"), code, f"{label}.__code__"))
        if fn.__defaults__ and not library:
            for i, d in enumerate(fn.__defaults__):
                self.place(("default", fn, i), d, f"{label}'s default {i}")
        for k, d in ((fn.__kwdefaults__ or {}) if not library else {}).items():
            self.place(("kwdefault", fn, k), d, f"{label}'s default {k}")
        if library:
            return
        why = computed_read(code)
        if why and self.draws is None:      # a place the walk cannot find (names.py)
            self.draws = (f"{why} in {label} (what it reads is not found before the trace, "
                          f"so a replay could not check it: pass the value as an argument)")
        imports, strings = set(), set()
        names = _names(code, set(), strings, self.stores, imports)
        self.names |= names | strings
        if names & _NAMESPACES:             # globals()["scale"]: a string names a global
            names |= strings
        g = fn.__globals__
        b = g.get("__builtins__", builtins)
        b = b.__dict__ if isinstance(b, types.ModuleType) else b
        for name in sorted(names):
            if name in g:
                self.place(("key", g, name), g[name], name)
            elif name in b:         # a builtin: until a global takes its name, or it is replaced
                self.place(("key", g, name), _MISSING, name)
                self.place(("key", b, name), b[name], f"builtins.{name}")
        for name in sorted(imports):        # a module F imports itself (import cfg; cfg.scale)
            parts = name.split(".")
            for k in range(1, len(parts) + 1):
                module = ".".join(parts[:k])
                self.place(("key", sys.modules, module), sys.modules.get(module, _MISSING),
                           f"import {module}")

    def attributes(self, obj, label):
        """The attributes of obj that some walked code names (a module's, a class's, an
        instance's), walked in turn; a library module's only if they are plain data."""
        try:
            d = getattr(obj, "__dict__", None)
        except Exception:
            d = None
        library = _library(obj)
        if isinstance(d, (dict, types.MappingProxyType)):
            for name in sorted(self.names & set(d)):
                value = d[name]
                if library and not isinstance(value, (_ATOMS, np.ndarray)):
                    continue
                self.place(("key", d, name), value, f"{label}.{name}")
        if library or isinstance(obj, (type, types.ModuleType)):
            return
        mro = [c for c in type(obj).__mro__ if c is not object]
        if isinstance(d, dict):
            # a name its class answers, or F's code sets, that obj could come to hold itself
            later = {n for n in self.names if n[:2] != "__" and any(
                n in c.__dict__ for c in mro)} | self.stores
            for name in sorted(later - set(d)):
                self.place(("key", d, name), _MISSING, f"{label}.{name}")
        slots = {n for c in mro for n in ([c.__dict__["__slots__"]] if isinstance(
            c.__dict__.get("__slots__"), str) else c.__dict__.get("__slots__", ()))}
        for name in sorted(self.names & slots):
            self.place(("attr", obj, name), getattr(obj, name, _MISSING), f"{label}.{name}")


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
