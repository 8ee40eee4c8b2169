"""Traced numbers: base numbers that write down what is done to them.

During the first call of a compiled function its float arguments are :class:`Traced` values.
dvlad treats them as base numbers, like floats: tags, bundles, tape cells and the reverse sweep
all run as usual, and every operation that reaches the numbers themselves (Python's operators,
each rule-table row through :func:`dvlad.core.base.dispatch`'s fourth family) is computed on the
concrete value *and* appended to the :class:`Trace`.  What the trace holds is therefore plain
arithmetic on plain numbers, with no tags left in it: a replay cannot confuse perturbations.

Every point where a traced value decides something (a comparison, ``bool``, ``float``/``int``
/``index``, ``hash``, formatting) answers with the concrete value and records a **guard**: the
replay checks it and gives up (the compiled function traces again) when it does not hold.  An
operation that raised records that it must raise again.  Whatever the tracer cannot see (numpy
asked to convert a traced value, an unknown operand) **abandons** the trace: the operation is
computed on the concrete values, and so is everything F does after it (every traced value then
stands for its number), so F runs once, to its end, with the numbers eager F would have had; the
trace is not kept, and the call's kind runs eagerly from then on.
"""
import mpmath
import numpy as np

from ...core import base as B
from ...core import pool
from ...core.tags import DvladError
from .traced_ops import _PLAIN, install, where


# what .arrays defines (it imports this module): the traced array type, and its recorder
ARRAYS = {}


# dvlad's array primitives whose value cannot raise on arguments of the kind it was traced with
# (no factorization, no solve: those may raise on some values), so that a replay may leave one
# out when nothing reads it
_CANNOT_RAISE = {"broadcast_to", "cast", "concatenate", "cumsum", "einsum", "getitem", "matmul",
                 "prod", "reshape", "scatter", "sum", "transpose", "where", "mean", "amax",
                 "amin", "swapaxes", "squeeze", "expand_dims", "sum_to", "stack", "clip"}


class TraceLeakError(DvladError, RuntimeError):
    """A traced value was used after the trace that made it had ended (it escaped F)."""


class Untraceable(Exception):
    """Raised inside a trace when F does something the tracer cannot record: the trace is
    abandoned (:meth:`Trace.abandon`) and ``explain()`` gives this message."""


class Ran(Untraceable):
    """An operation ran on the concrete values, and its result cannot be traced: ``result``
    is F's (the operation must not run again: it may have written)."""

    def __init__(self, why, result):
        super().__init__(str(why))
        self.result = result


def concrete(obj):
    """obj with every traced value replaced by its number, in the containers an operation's
    arguments come in (tuples, lists, dicts, slices, object arrays)."""
    t = type(obj)
    if isinstance(obj, Traced):
        return obj.value
    if t is tuple or t is list:
        return t([concrete(v) for v in obj])
    if t is dict:
        return {k: concrete(v) for k, v in obj.items()}
    if t is slice:
        return slice(concrete(obj.start), concrete(obj.stop), concrete(obj.step))
    if t is np.ndarray and obj.dtype.hasobject:
        out = obj.copy()
        for i, v in np.ndenumerate(obj):
            if isinstance(v, Traced):
                out[i] = v.value
        return out
    return obj


class Trace:
    """The operations of one traced call, in order.

    ``ops`` holds tuples (the replay's code is generated from them, :mod:`.codegen`):
    ``("op", out, name, fn, args)``: value ``out`` = fn(*args);
    ``("guard", name, fn, args, expected, where)``: fn(*args) == expected must hold again;
    ``("raises", name, fn, args, exc_type, where)``: fn(*args) raised exc_type, and must again.
    ``args`` hold :class:`Traced` values (of this trace) and constants.
    """

    def __init__(self):
        self.ops = []
        self.count = 0
        self.done = False
        self.pure = set()       # ops a replay may leave out when nothing reads them
        self._arrays = {}       # id(concrete array) -> its TracedArray
        self._consts = {}       # id(plain array) -> (it, the trace's copy of it)
        self.array_refs = set()
        self.writes = {}        # op -> the array it writes into
        self.parents = {}       # op -> the values its result may be a view of
        self.checked = {}       # id -> the captured arrays each replay compares (F's state)
        self.mp_prec = mpmath.mp.prec   # (a replay computes mpf at the caller's precision)
        self.abandoned = None   # why, once F did what the tracer cannot follow

    def abandon(self, why):
        """From here on F runs on the concrete values (see the module docstring): dvlad's own
        arrays are plain again, and so is everything it does (pool.tracing() is false)."""
        if self.abandoned is None:
            self.abandoned = str(why)
            pool.stop_making()

    def value(self, v):
        if type(v) is B.MPF and mpmath.mp.prec != self.mp_prec:
            raise Untraceable("F computes with mpmath at a precision of its own (workdps): a "
                              "replay would compute at its caller's")
        t = Traced(v, self, self.count)
        self.count += 1
        return t

    def wrap(self, v):
        """The traced value of an argument: a number, or an array."""
        return self.array(v) if type(v) is np.ndarray else self.value(v)

    def array(self, v):
        t = ARRAYS["TracedArray"](v, self, self.count)
        self.count += 1
        self._arrays[id(v)] = t
        self.array_refs.add(t.ref)
        return t

    def empty(self, shape, dtype):
        """A fresh array for dvlad to write into (dvlad.core.pool's arrays, while tracing)."""
        if self.abandoned is not None:
            return np.empty(shape, dtype)
        t = self.array(np.empty(shape, dtype))
        self.ops.append(("op", t.ref, "empty", np.empty, (shape, dtype)))
        self.pure.add(t.ref)
        return t

    def known(self, r):
        """The TracedArray whose concrete array is r, if there is one."""
        t = self._arrays.get(id(r)) if type(r) is np.ndarray else None
        return t if t is not None and t.value is r else None

    def hidden(self, r):
        """A value for a container an operation returned (F sees its elements, not it)."""
        return self.value(r)

    def constant(self, a):
        """The trace's copy of plain array ``a`` (read-only): a replay reads the array as it
        was when the trace read it, whatever F or dvlad writes into ``a`` afterwards.  A
        captured array (or a view of one) is itself: each replay checks that it is unchanged."""
        b = a
        while type(b) is np.ndarray:
            if id(b) in self.checked:
                return a            # a captured array, or a view of one: every replay checks it
            b = b.base
        kept = self._consts.get(id(a))
        if kept is not None and kept[0] is a and kept[1].shape == a.shape and \
                kept[1].dtype == a.dtype and np.array_equal(kept[1], a, equal_nan=True):
            return kept[1]
        if a.size and 0 in a.strides:       # a broadcast (np.broadcast_to): one of it, and
            one = a[tuple(slice(0, 1) if s == 0 else slice(None) for s in a.strides)]
            c = np.broadcast_to(np.array(one, order="K", copy=True), a.shape)    # its strides:
        else:                                                     # BLAS sums by the layout
            c = np.array(a, order="K", copy=True)
            c.flags.writeable = False
        self._consts[id(a)] = (a, c)
        return c

    def array_ops(self):
        return bool(self._arrays) or bool(self._consts)


def _value(a, trace):
    if type(a) is Traced:
        if a.trace is not trace:
            raise TraceLeakError(
                f"a traced value (v{a.ref}) from another compiled call met this one: a value "
                f"that escaped from F (stored in a global, an attribute, a list) was used later. "
                f"Return values from F instead of storing them.")
        return a.value
    return a


class Traced:
    """A base number that records (see the module docstring).  ``value`` is the concrete
    number of the call being traced, ``ref`` its name in the trace."""

    __slots__ = ("value", "trace", "ref")
    _dvlad_family = B.TRACED
    ndim, shape, size = 0, (), 1

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """A ufunc met a traced number (beside an array, a numpy scalar): recorded."""
        return ARRAYS["TracedArray"].__array_ufunc__(self, ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return ARRAYS["apply"](func.__name__, func, args, kwargs, self.trace,
                               "linalg" not in (func.__module__ or ""), True)

    def __init__(self, value, trace, ref):
        self.value, self.trace, self.ref = value, trace, ref

    def _check(self):
        if self.trace.done:
            raise TraceLeakError(
                f"a traced value (v{self.ref}) was used after its compiled call ended: it "
                f"escaped from F (stored in a global, an attribute, a list).  Return values "
                f"from F instead of storing them.")

    def _record(self, name, fn, args):
        """out = fn(*args), recorded; NotImplemented for an operand that is not a base number
        (a dvlad number: its own operator runs instead, with this value as a constant)."""
        self._check()
        for a in args:
            if type(a) is not Traced and not isinstance(a, _PLAIN):
                return NotImplemented
        trace = self.trace
        if trace.abandoned is not None:
            return fn(*concrete(args))
        try:
            r = fn(*[_value(a, trace) for a in args])
        except TraceLeakError:
            raise
        except Exception as e:
            trace.ops.append(("raises", name, fn, args, type(e), where()))
            raise
        if not isinstance(r, _PLAIN):
            trace.abandon(f"{name} gave a {type(r).__name__}, not a number")
            return r
        try:
            out = trace.value(r)
        except Untraceable as e:
            trace.abandon(e)
            return r
        trace.ops.append(("op", out.ref, name, fn, args))
        return out

    def _decide(self, name, fn, args):
        """fn(*args) on the concrete values, recorded as a guard."""
        self._check()
        for a in args:
            if type(a) is not Traced and a is not None and not isinstance(a, _PLAIN):
                return NotImplemented
        trace = self.trace
        if trace.abandoned is not None:
            return fn(*concrete(args))
        try:
            r = fn(*[_value(a, trace) for a in args])
        except TraceLeakError:
            raise
        except Exception as e:          # (int(inf), caught by F: the replay must raise again)
            trace.ops.append(("raises", name, fn, args, type(e), where()))
            raise
        trace.ops.append(("guard", name, fn, args, r, where()))
        return r

    def _dvlad_apply(self, name, fams, args):
        """A rule-table row on traced arguments (core.base.dispatch's fourth family): the base
        function of the concrete values' family, recorded."""
        self._check()
        if self.trace.abandoned is not None:
            return _apply_concrete(fams, concrete(list(args)))
        if any(isinstance(a, np.ndarray) for a in args):
            # beside a traced array: numpy's function
            return ARRAYS["apply"](name, fams[B.NUMPY], args, {}, self.trace, True)
        return self._record(name, _family_fn(fams, [_value(a, self.trace) for a in args]), args)

    # ---- what numpy and Python ask of a number ---------------------------------------------
    def __array__(self, dtype=None, copy=None):
        self._check()
        self.trace.abandon("numpy was asked to make an array of a traced number (np.array of a "
                           "list of numbers, an assignment into a plain array): the tracer "
                           "cannot follow its value from there")
        return np.array(self.value, dtype=dtype)

    def __repr__(self):
        """The number's own repr while its trace runs (kept as a guard, as str and format are:
        F may compute with the text), a description after."""
        if self.trace is None or self.trace.done:
            return f"Traced(v{self.ref}, after its trace)"
        return repr(self._decide("float", _same_type, (self,)))

    def __format__(self, spec):
        return format(self._decide("float", _same_type, (self,)), spec)

    def __str__(self):
        return str(self._decide("float", _same_type, (self,)))

    def __round__(self, n=None):
        return self._decide(round.__name__, round, (self, n))

    @property
    def dtype(self):
        """A numpy scalar's dtype (a Python float has none: AttributeError, as for the float)."""
        return self.value.dtype

    def __copy__(self):
        return self             # a number: its copy is the same number (and the same value)

    def __deepcopy__(self, memo):
        return self

    def __reduce_ex__(self, protocol):
        self._check()
        self.trace.abandon("a traced value was pickled (F runs eagerly)")
        return type(self.value), (self.value,)        # (pickled as the number it is)

    def _dvlad_call(self, name, fn, args):
        """fn(*args), a function of dvlad's own on plain numbers (an array primitive's value),
        recorded as one call: what it does inside (a scipy routine, a loop) is not followed.
        A function that names an equivalent for traced arguments (``fn.traced``) runs that."""
        direct = getattr(fn, "traced", None)
        if direct is not None and isinstance(args[0], Traced):
            return direct(*args)    # its own operations, recorded one by one (leaner code)
        return ARRAYS["apply"](name, fn, args, {}, self.trace, name in _CANNOT_RAISE)

    def _dvlad_array(self):
        """np.asarray of this number (a 0-d array), recorded."""
        return ARRAYS["apply"](np.asarray.__name__, np.asarray, (self,), {}, self.trace, True)

    def _dvlad_cast(self, kind):
        """This number in numpy type ``kind`` (float64 from float32, say), recorded."""
        return self._record(kind.__name__, kind, (self,))

    def conjugate(self):
        return self

    @property
    def real(self):
        return self

    @property
    def imag(self):
        return 0.0

    def is_integer(self):
        return self._decide("is_integer", _is_integer, (self,))


def _same_type(x):
    return x


def _family_fn(fams, values):
    """A rule-table row's base function for the family of the concrete values."""
    families = [B.family(v) for v in values]
    return fams[B.MPMATH if B.MPMATH in families else B.NUMPY if B.NUMPY in families
                else B.MATH]


def _apply_concrete(fams, values):
    """A rule-table row's base function on plain values (a trace abandoned)."""
    return _family_fn(fams, values)(*values)


def _is_integer(x):
    return float(x).is_integer()


install(Traced)
