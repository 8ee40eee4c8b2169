"""What F calls while it is traced: a call whose effect a replay would skip makes F run eagerly.

So does a call of a library function given one of the user's objects (a dataclass, a model):
``dataclasses.astuple(cfg)`` and ``copy.copy(cfg)`` read attributes by names that F's code
never spells, places the walk of :mod:`.captures` could not find and a replay could not check.

A replay runs only the recorded arithmetic.  A call that does something else (prints, draws a
random number, reads the clock, writes a file, sets an attribute through ``setattr``) would be
skipped, or its result frozen, so a trace that makes one is not kept.  Python's profile hook
sees every call of a C function; the ones made from dvlad's and numpy's own code are theirs to
answer for, the ones made from anywhere else must be on the list below.  (Writes into captured
lists, dicts, arrays and attributes are found by :mod:`.captures` instead: it compares them
before and after the trace.)
"""
import builtins
import math
import os
import sys
import sysconfig

import numpy as np

# modules whose own calls are theirs to answer for (the language's plumbing, dvlad, numpy)
_TRUSTED = {"dvlad", "numpy", "abc", "_collections_abc", "functools", "collections",
            "contextlib", "weakref", "_weakrefset", "threading", "typing", "numbers", "enum",
            "copyreg", "operator"}
_BUILTIN_EFFECTS = {"print", "input", "open", "exec", "eval", "compile", "setattr", "delattr",
                    "__import__", "breakpoint", "exit", "quit", "help", "repr", "ascii"}
_NUMPY_EFFECTS = {"save", "savez", "savez_compressed", "savetxt", "load", "loadtxt",
                  "genfromtxt", "fromfile", "tofile", "dump", "memmap", "seterr", "setbufsize",
                  "set_printoptions", "printoptions"}
_PURE_MODULES = {"math", "cmath", "operator", "_operator", "functools", "_functools",
                 "itertools"}
_PURE_TYPES = (list, tuple, dict, set, frozenset, str, bytes, int, float, complex, bool, range,
               type(None), type({}.keys()), type({}.values()), type({}.items()), slice)


_STDLIB = tuple({sysconfig.get_paths()[k] + os.sep for k in ("stdlib", "platstdlib")})
_LIBRARY_ROOTS = ("dvlad", "numpy", "scipy", "mpmath", "builtins", "math", "functools",
                  "operator", "itertools", "collections", "typing", "abc", "random")


def library_file(path):
    """Whether a source file is an installed package's or the standard library's (in a
    virtual environment too: the standard library stays under the base prefix)."""
    return "site-packages" in path or "dist-packages" in path or path.startswith(_STDLIB) \
        or path.startswith("<frozen ")


def user_object(v):
    """Whether v is an instance of a class defined outside every library (a model, a config):
    what a library function given it may read by names the walk never saw."""
    t = type(v)
    try:
        if isinstance(v, (type, type(math), type(allowed), tuple)) or \
                t.__module__.split(".")[0] in _LIBRARY_ROOTS or \
                not (hasattr(v, "__dict__") or hasattr(t, "__slots__")):     # (tuples: walked)
            return False
    except Exception:               # a __getattr__ that raises something else
        return True
    module = sys.modules.get(t.__module__)
    path = getattr(module, "__file__", None)
    return path is None or not library_file(path)


def allowed(fn):
    """Whether C function ``fn``, called from F's code, only computes a value from its
    arguments (see the module docstring)."""
    name = getattr(fn, "__name__", "")
    owner = getattr(fn, "__self__", None)
    if owner is builtins:
        return name not in _BUILTIN_EFFECTS
    if owner is math:
        return True
    module = getattr(fn, "__module__", None) or getattr(owner, "__name__", None) or ""
    if type(owner) is type(math):           # a function of a module written in C
        module = owner.__name__
    if module in _PURE_MODULES:
        return True
    if isinstance(owner, _PURE_TYPES) or (type(owner) is type and owner in _PURE_TYPES):
        return True
    if isinstance(owner, (np.ndarray, np.generic)):
        return name not in _NUMPY_EFFECTS
    if module.startswith("numpy") and not module.startswith("numpy.random"):
        return name not in _NUMPY_EFFECTS
    return False


def describe(fn):
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    if owner is not None and type(owner) is not type(math):
        return f"{type(owner).__name__}.{getattr(fn, '__name__', name)}"
    module = getattr(fn, "__module__", None) or getattr(owner, "__name__", "")
    return f"{module}.{name}" if module else name


class Watch:
    """A context: while it is open, ``self.effect`` becomes why the trace cannot be kept ("F
    calls print at file:line; ...") at the first call F makes that a replay would skip, or
    that reads places a replay could not check (None if there was none)."""

    def __init__(self):
        self.effect = None
        self._old = None

    def _hook(self, frame, event, arg):
        if event == "c_call" and self.effect is None:
            module = frame.f_globals.get("__name__", "")
            if module.split(".")[0] not in _TRUSTED and not allowed(arg):
                self.effect = (f"F calls {describe(arg)} at {frame.f_code.co_filename}:"
                               f"{frame.f_lineno}; a replay would skip it")
        elif event == "call" and self.effect is None:
            self._given(frame)
        if self._old is not None:
            self._old(frame, event, arg)

    def _given(self, frame):
        """A library function (not dvlad's or numpy's) given one of the user's objects may read
        any attribute of it by a computed name (``dataclasses.astuple(cfg)``, ``copy.copy``):
        a place the walk never saw."""
        code = frame.f_code
        module = frame.f_globals.get("__name__", "") or ""
        if module.split(".")[0] in _TRUSTED or not library_file(code.co_filename):
            return
        n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4)
        local = frame.f_locals
        for name in code.co_varnames[:n]:
            v = local.get(name)
            for x in (v if type(v) is tuple and name == code.co_varnames[n - 1] else (v,)):
                if user_object(x):
                    self.effect = (f"F gives a {type(x).__name__} object to {module}."
                                   f"{code.co_name}, which may read any of its attributes "
                                   f"by name (places a replay could not check)")
                    return

    def __enter__(self):
        old = sys.getprofile()
        if old is not None and not callable(old):
            self.effect = "F calls could not be watched: a profiler was running"
            return self
        self._old = old
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        if sys.getprofile() == self._hook:
            sys.setprofile(self._old)
        return False
