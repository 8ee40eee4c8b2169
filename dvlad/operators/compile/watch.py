"""What F calls while it is traced: a call whose effect a replay would skip makes F run eagerly.

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
import sys

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
    """A context: while it is open, ``self.effect`` becomes "name at file:line" for the first
    call F makes that a replay would skip (None if there was none)."""

    def __init__(self):
        self.effect = None
        self._old = None

    def _hook(self, frame, event, arg):
        if event == "c_call" and self.effect is None:
            module = frame.f_globals.get("__name__", "")
            if module.split(".")[0] not in _TRUSTED and not allowed(arg):
                self.effect = (f"{describe(arg)} at {frame.f_code.co_filename}:"
                               f"{frame.f_lineno}")
        if self._old is not None:
            self._old(frame, event, arg)

    def __enter__(self):
        old = sys.getprofile()
        if old is not None and not callable(old):
            self.effect = "a profiler was running (calls could not be watched)"
            return self
        self._old = old
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        if sys.getprofile() == self._hook:
            sys.setprofile(self._old)
        return False
