"""Which recorded operations a replay runs: those whose values are read, and no others.

An operation nothing reads is left out when it cannot change what F does: it writes nowhere
F looks and raises nothing.  Python's arithmetic on Python numbers raises nothing it did not
raise while tracing (a guard, then).  numpy's may warn or raise where np.errstate says so
(``over="raise"``: FloatingPointError), or where warnings are errors (``-W error``), on
numbers the trace never saw: so a replay that leaves out numpy's work first asks
:func:`loud` whether numpy's floating-point errors would be heard, and if they would, F runs
eagerly (``Loud``).  With numpy's defaults (warn, or ignore) the replay runs; what it leaves out
is a value nobody reads, and numpy's warning about it is not repeated.  (An rr
Hessian-vector product computes the inner gradient ∇f(x) as the value of its outer tape, which
nothing reads afterwards: a matrix product over X, left out.)
"""
import operator
import warnings

import numpy as np

from .traced import Traced

# cannot raise on Python numbers, so an unread result is left out
PURE = {operator.add, operator.sub, operator.mul, operator.neg, operator.pos, operator.abs}
_NUMPY_SCALARS = (np.float64, np.float32, np.float16, np.int64, np.int32, np.bool_)


class Loud(Exception):
    """A replay that left out numpy's work, asked to run where numpy's floating-point errors
    raise or call (np.errstate) or warnings are errors: F runs eagerly instead."""


try:        # numpy's error state, one object per np.errstate/np.seterr (numpy ≥ 2)
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE
except ImportError:
    _ERRSTATE = None
_QUIET = [None]         # an error state found quiet (np.geterr builds a dict: 1.5 µs a call)


def loud():
    """Whether numpy's floating-point errors would raise, call a handler or log (np.errstate),
    or its RuntimeWarnings be errors (a warnings filter; any "error" filter that could match
    one counts)."""
    state = None if _ERRSTATE is None else _ERRSTATE.get()
    if state is None or state is not _QUIET[0]:
        for mode in np.geterr().values():
            if mode != "ignore" and mode != "warn" and mode != "print":
                return True
        _QUIET[0] = state
    for f in warnings.filters:
        if f[0] == "error" and issubclass(RuntimeWarning, f[2]):
            return True
    return False


def live(ops, outputs, pure=(), family=None):
    """(the ops a replay must run, whether numpy's work was left out): every guard and recorded
    exception, and every op whose value is read or that writes into an array something reads
    later (``family``, a record.Family); ``pure``: ops known not to write; the arithmetic of
    Python's and numpy's numbers (:data:`PURE`) is left out too when unread."""
    needed = set(outputs)
    seen = set().union(*(family.roots(r) for r in needed)) if family else set()
    kept, numpy_out = [], False
    for index, op in reversed(ops):
        if op[0] == "op" and op[1] not in needed:
            python = op[3] in PURE and _python(op[4])
            if python or op[1] in pure or op[3] in PURE and _scalars(op[4]) or (
                    family is not None and family.unread(op[1], seen)):
                numpy_out = numpy_out or not python
                continue
        kept.append((index, op))
        for a in op[4] if op[0] == "op" else op[3]:
            if isinstance(a, Traced):
                needed.add(a.ref)
                if family is not None:
                    seen |= family.roots(a.ref)
    kept.reverse()
    return kept, numpy_out


def _python(args):
    """Whether an op's arguments are Python numbers (numpy's may raise under np.errstate)."""
    return all(type(a.value if isinstance(a, Traced) else a) in (float, int, bool) for a in args)


def _scalars(args):
    """Whether an op's arguments are Python's and numpy's numbers (no arrays, no objects)."""
    return all(type(a.value if isinstance(a, Traced) else a) in (float, int, bool) or
               type(a.value if isinstance(a, Traced) else a) in _NUMPY_SCALARS for a in args)
