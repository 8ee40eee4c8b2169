"""``dvlad.compile``: record a function once, replay it as straight-line code (notes/compile.md)."""
import builtins
import collections
import functools
import os
from operator import countOf
import threading

import numpy as np

from ...core import pool
from ...core.base import MPF
from ...core.number import ADNumber
from ...core.tags import DvladError
from ...numbers.tape import gc_paused
from . import captures, places
from .checks import _FIRST_IMPORT, _LONG, _Eager, _aliases, _check, _rebuild, _too_long
from .codegen import Miss, define, generate
from .entry import _entry_kinds, _label, _params, code_of
from .results import _STATIC, _concrete, _containers, _loose, _unchanged
from .traced import Trace, TraceLeakError, Traced, Untraceable
from .watch import Watch

_FLOATS = (float, np.float64, np.float32, np.float16, np.longdouble)
_DEBUG = bool(os.environ.get("DVLAD_COMPILE_DEBUG"))     # print why a trace failed


class NotCompiledError(DvladError, RuntimeError):
    """``source()`` of a compiled function that has no trace (not called yet, or run eagerly)."""


def _kind(x, leaves, objects, arrays):
    """The part of the cache key for argument x; its float leaves go to ``leaves`` (they become
    traced inputs), its arrays to ``arrays`` too, and the other objects a trace would read to
    ``objects``."""
    t = type(x)
    if t in _FLOATS:
        leaves.append(x)
        return t
    if t is MPF:
        import mpmath
        leaves.append(x)
        return (MPF, mpmath.mp.prec)
    if t in _STATIC:
        return (t, repr(x)) if t is complex else (t, x)       # (−0.0 in a complex is not 0.0)
    if t is tuple or t is list:
        if len(x) > 8 and countOf(map(type, x), float) == len(x):    # a vector: in one step
            leaves.extend(x)
            return (t, float, len(x))
        return (t, tuple(_kind(v, leaves, objects, arrays) for v in x))
    if t is dict:
        return (t, tuple((k, _kind(v, leaves, objects, arrays)) for k, v in x.items()))
    if isinstance(x, (ADNumber, Traced)):
        raise _Eager("called with dvlad numbers (inside an outer derivative, or inside another "
                     "compiled function's trace): F runs eagerly, as part of the outer call")
    if t is np.ndarray:
        if x.dtype.kind not in "fiub" or x.dtype.byteorder == ">":
            raise _Eager(f"called with an array of dtype {x.dtype} (arrays of real numbers, "
                         f"integers and booleans are traced)")
        leaves.append(x)
        arrays.append(x)
        return (t, x.shape, x.dtype.str, x.strides, x.flags.writeable)
    if isinstance(x, np.ndarray):
        raise _Eager(f"called with a {t.__name__} (an ndarray subclass: plain numpy arrays "
                     f"are traced)")
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return (t, tuple(_kind(v, leaves, objects, arrays) for v in x))
    try:
        hash(x)
    except TypeError:
        raise _Eager(f"called with a {t.__name__} (neither a number, a container of numbers nor "
                     f"a hashable object a trace could be kept for): F runs eagerly") from None
    objects.append(x)
    # the same object, not an equal one (equality may leave out what F reads: a name-only
    # __eq__, dataclass fields with compare=False); the key holds x, so its id is not reused
    return ("object", t, id(x), x)


class Replay:
    """One trace: its function (``run(values)`` returns F's result or raises :class:`Miss`),
    its code, and the user's lines its guards stand for."""

    __slots__ = ("run", "code", "wheres", "used", "made")

    def __init__(self, run, code, wheres):
        self.run, self.code, self.wheres = run, code, wheres
        self.used, self.made = False, 1


class _Unwatched:
    """F's code reaches only plain code, data and pure libraries: its calls need no watch."""
    effect = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Compiled:
    """The traces of a compiled function, and the function itself (``entry``: what
    :func:`compile` returns; its code is replaced by the newest trace of float arguments)."""

    def __init__(self, f, max_traces=8, max_kinds=32):
        self.f = f
        self.max_traces, self.max_kinds = max_traces, max_kinds
        self._kinds = collections.OrderedDict()  # key -> [Replay, ...] (most recent first)
        self._eager = collections.OrderedDict()  # key -> why
        self.label = _label(f)
        self.params = _params(f)
        self.ns = {"_call": self._call, "_eager": self._eager_call, "__builtins__": builtins}
        self.entry = define("def entry(*args, **kwargs):\n    return _call(args, kwargs)\n",
                            "entry", self.ns, self.label)
        self._last = None
        self._inlined = None                     # the key of the trace the entry inlines
        self._log = collections.deque(maxlen=20)
        self.counts = collections.Counter()      # "traced", "eager": calls not replayed
        self._lock = threading.RLock()
        functools.update_wrapper(self.entry, f)
        self.entry.source, self.entry.explain, self.entry.compiled = \
            self.source, self.explain, self

    # ---- calling --------------------------------------------------------------------------
    def _eager_call(self, args, kwargs):
        """F itself: an exception a replay raised is F's to raise, or not."""
        return self.f(*args, **kwargs)

    def _call(self, args, kwargs):
        """The general path: the kind of the arguments, its traces, a new trace if none
        answers.  (The entry function inlines the newest trace of float arguments.)"""
        leaves, objects, arrays = [], [], []
        try:
            key = (tuple(_kind(a, leaves, objects, arrays) for a in args),
                   tuple((k, _kind(v, leaves, objects, arrays)) for k, v in kwargs.items()))
            if len(leaves) > 1 and arrays:
                key += (_aliases(leaves),)
        except _Eager as e:
            self._note(f"eager: {e}")
            return self.f(*args, **kwargs)
        if key in self._eager:
            return self.f(*args, **kwargs)
        for replay in self._kinds.get(key, ()):
            try:
                r = replay.run(leaves)
            except Miss as miss:
                self._miss(replay, miss)
                continue
            except Exception:           # eager F raises, or answers: that is the answer
                return self.f(*args, **kwargs)
            replay.used = True
            self._touch(key, replay)
            return r
        return self._trace(key, args, kwargs, leaves, objects)

    def _touch(self, key, replay):
        """The replay that answered, and its kind, become the most recently used (the least
        recently used are the ones dropped)."""
        with self._lock:
            traces = self._kinds.get(key)
            if traces is None:          # (dropped meanwhile by another thread)
                return
            if traces[0] is not replay and replay in traces:
                traces.remove(replay)
                traces.insert(0, replay)
            self._kinds.move_to_end(key)

    def _miss(self, replay, miss):
        where = "a captured value changed" if miss.index < 0 else \
            f"the guard at {replay.wheres.get(miss.index, '?')}"
        self._note(f"retrace: {where}")

    def _trace(self, key, args, kwargs, leaves, objects):
        with gc_paused():       # a trace holds every value it made: a collection would scan them
            return self._trace_paused(key, args, kwargs, leaves, objects)

    def _trace_paused(self, key, args, kwargs, leaves, objects):
        try:
            walk = captures.find(self.f, objects)
        except captures.Refused as e:
            return self._give_up(key, str(e), args, kwargs)
        except Exception as e:      # state the walk cannot read is state it cannot check
            return self._give_up(key, f"reading what F captures raised {type(e).__name__}: "
                                      f"{e}", args, kwargs)
        if walk.draws:
            return self._give_up(key, f"F uses {walk.draws}", args, kwargs)
        entries = walk.entries
        trace = Trace()
        trace.checked = {id(e.value): e.value for e in entries if type(e.value) is np.ndarray}
        inputs = []
        for x in leaves:
            same = trace.known(x) if type(x) is np.ndarray else None
            inputs.append(same if same is not None else trace.wrap(x))
        before = [(x, x.copy()) for x in leaves if type(x) is np.ndarray]
        values = iter(inputs)
        targs = _rebuild(args, values)
        tkwargs = _rebuild(kwargs, values)
        rng = captures.global_rng_state()
        given = _containers((targs, tkwargs), [])
        failed = None
        with (Watch() if walk.unknown else _Unwatched()) as watch, pool.making(trace.empty):
            try:
                out = self.f(*targs, **tkwargs)
            except TraceLeakError:
                trace.done = True
                raise
            except Exception as e:          # F raises here, or the tracer cannot follow it
                failed = e
            finally:
                trace.done = True
        if failed is not None:
            if _DEBUG:
                __import__("traceback").print_exception(failed)
            why = str(failed) if isinstance(failed, Untraceable) else \
                f"tracing raised {type(failed).__name__}: {failed}"
            result = self.f(*args, **kwargs)   # F's own answer (or its exception)
            self._remember_eager(key, why)
            return result
        why = trace.abandoned
        if any(not _unchanged(c, was) for c, was in given):
            why = "F writes into a list or dict it was given (a replay would not)"
            result = self.f(*args, **kwargs)          # so that the caller's own ones are written
            self._remember_eager(key, why)
            return result
        if why is not None:
            places.settle(entries)      # F ran once, on numbers from where the trace stopped
            self._remember_eager(key, why)
            return _loose(out)
        if watch.effect:
            why = watch.effect
        elif captures.global_rng_state() != rng:
            why = "F draws from numpy's or Python's global random generator"
        else:
            changed = [e.label for e in entries if not e.holds()]
            if changed:
                why = f"F changes {changed[0]} (a replay would not)"
            if changed and all(c.startswith("import ") for c in changed):
                why = _FIRST_IMPORT     # not kept, nor eager: the next call traces again
        if why is None:
            try:
                code = generate(trace, inputs, out, entries, self.label, self.ns)
                why = _too_long(code)
            except Untraceable as e:
                why = str(e)
        if why is not None:
            places.settle(entries)      # (traced values F stored in its state: their numbers)
            if why is _FIRST_IMPORT:
                self._note(why)
            else:
                self._remember_eager(key, why)
            if why is _FIRST_IMPORT or why.startswith(_LONG):   # (F, unchecked, may have
                return self.f(*args, **kwargs)                  # asked what its arguments are)
            try:
                return _concrete(out)
            except Untraceable:
                return self.f(*args, **kwargs)
        wheres = {k: op[-1] for k, op in enumerate(trace.ops) if op[0] != "op"}
        replay = Replay(define(code.source(), "replay", self.ns, self.label), code, wheres)
        result = _concrete(out)
        if trace.array_ops() and any(not np.array_equal(x, was, equal_nan=True)
                                     for x, was in before):
            self._remember_eager(key, "F writes into its array arguments (a replay would "
                                      "write them again when it is checked)")
            return result
        why, result = _check(replay, self.f, args, kwargs, leaves, result)
        if why is not None:
            self._remember_eager(key, why)
            return result
        self._store(key, replay)
        trace.ops.clear()       # (its values refer to it: free them now, not at a collection)
        return result

    def _give_up(self, key, why, args, kwargs):
        self._remember_eager(key, why)
        return self.f(*args, **kwargs)

    def _remember_eager(self, key, why):
        with self._lock:
            self._eager[key] = why
            while len(self._eager) > self.max_kinds:
                self._eager.popitem(last=False)
        self._note(f"eager: {why}")

    def _store(self, key, replay):
        with self._lock:
            traces = list(self._kinds.pop(key, []))
            made = 1 if any(r.used for r in traces) else 1 + max(
                (r.made for r in traces), default=0)
            replay.made = made
            traces.insert(0, replay)
            del traces[self.max_traces:]
            self._kinds[key] = traces
            if self._inlined in self._kinds:    # (its calls skip _call: count them recent)
                self._kinds.move_to_end(self._inlined)
                self._kinds.move_to_end(key)
            while len(self._kinds) > self.max_kinds:
                self._kinds.popitem(last=False)
            self._last = replay
            kinds = _entry_kinds(key)
            if kinds is not False:
                self._inlined = key
                new = define(code_of(replay, self.ns, self.params, kinds), "entry", self.ns,
                             self.label)
                self.entry.__code__ = new.__code__
                self.entry.__defaults__, self.entry.__kwdefaults__ = \
                    new.__defaults__, new.__kwdefaults__
        if made > 4 * self.max_traces:
            self._remember_eager(key, f"traced {made} times without a replay answering: a guard "
                                      f"fails on nearly every call")
        self._note(f"traced: {replay.code.ops} operations")

    def _note(self, s):
        self._log.append(s)
        self.counts[s.split(":")[0]] += 1

    # ---- looking inside ---------------------------------------------------------------------
    def source(self):
        """The generated source of the most recent trace."""
        if self._last is None:
            raise NotCompiledError(
                "no trace yet: " + (self.explain() if self._log else "call the function first"))
        return self._last.code.source()

    def explain(self):
        """What happened on recent calls: traces made, replays given up (and which guard
        failed), and why a kind of arguments runs eagerly."""
        lines = [f"dvlad.compile({self.label}): "
                 f"{sum(len(v) for v in self._kinds.values())} trace(s) kept"]
        for why in self._eager.values():
            lines.append(f"- runs eagerly: {why}")
        lines += [f"- {s}" for s in self._log]
        return "\n".join(lines)


def compile(f, *, max_traces=8):
    """F, recorded on its first call and replayed as straight-line code afterwards.

    The first call with a new kind of arguments (their structure, the types of their numbers,
    the shapes, dtypes and memory layouts of their arrays, the values of their ints, strings
    and other static parts) runs F on traced numbers and arrays, which
    record every operation dvlad performs on plain numbers (the forward arithmetic, the reverse
    sweep, the iterations of a fixed point), and turns the record into Python source
    (``c.source()``).  Later calls of that kind run the source while its guards hold: a
    comparison, ``bool``, ``float``/``int`` conversion or exception that went one way while
    tracing must go the same way again, and every number, array, function and container F
    reads through closures, globals, default arguments and attributes must still be what it
    was (a rebound or changed one makes a new trace).  A function keeps ``max_traces`` traces
    per kind of arguments (and 32 kinds), the least recently used dropped first.

    F runs eagerly (correctly, and ``c.explain()`` says why) where a replay could not be
    trusted: a call with dvlad numbers (inside an outer derivative), a side effect
    (printing, random numbers, a write into captured state), a value the tracer cannot follow.
    An F that raises raises the same exception compiled.

    >>> import dvlad
    >>> c = dvlad.compile(dvlad.derivative(lambda x: x * dvlad.derivative(lambda y: x + y)(1.0)))
    >>> c(1.0), c(2.0)
    (1.0, 1.0)
    >>> g = dvlad.compile(dvlad.gradient_r(lambda x, y: x * x * y))
    >>> g(3.0, 2.0), g(1.0, 5.0)
    (12.0, 10.0)
    """
    return Compiled(f, max_traces=max_traces).entry
