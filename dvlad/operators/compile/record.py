"""Recording one numpy call on traced arrays (see :mod:`.arrays`): its arguments flattened
around the traced values, the call made on the concrete arrays, its result made traced."""
import operator

import numpy as np

from ...core import pool
from ...core.number import ADNumber
from .traced import Ran, Traced, Untraceable, _value, concrete, where


def _is_array(v):
    return type(v) is not Traced and isinstance(v, Traced)


# results whose shape depends on the values, not only on the arguments' shapes
_SHAPED_BY_VALUES = {"nonzero", "flatnonzero", "argwhere", "unique", "compress", "extract",
                     "trim_zeros", "delete", "setdiff1d", "intersect1d", "union1d", "setxor1d",
                     "unique_values", "unique_counts", "unique_inverse", "unique_all"}
# functions that write into their first argument
_WRITES_FIRST = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis",
                 "setitem", "fill", "sort", "partition", "itemset", "resize", "at",
                 "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul",
                 "iand", "ior", "ixor", "ilshift", "irshift"}
# answers that depend on shapes and dtypes only (the same on every call of a trace)
_STATIC = {"ndim", "shape", "size", "result_type", "iscomplexobj", "isrealobj", "isscalar",
           "common_type", "isfortran", "broadcast_shapes"}     # (not min_scalar_type: by value)
_PURE_UFUNC_METHODS = ("__call__", "reduce", "accumulate", "outer", "reduceat")


class _Slot:
    """Where the k-th traced value goes when a recorded call's arguments are rebuilt."""
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def _flatten(obj, leaves, trace):
    """obj with each traced value replaced by a :class:`_Slot` (the values go to ``leaves``)
    and each plain array by the trace's copy of it (a replay must see the array as it was
    when the trace read it, not as F left it)."""
    t = type(obj)
    if isinstance(obj, Traced):
        if obj.trace is not trace:
            _value(obj, trace)              # raises TraceLeakError
        leaves.append(obj)
        return _Slot(len(leaves) - 1)
    if t is tuple or t is list:
        return t([_flatten(v, leaves, trace) for v in obj])
    if t is dict:
        return {k: _flatten(v, leaves, trace) for k, v in obj.items()}
    if t is slice:
        return slice(_flatten(obj.start, leaves, trace), _flatten(obj.stop, leaves, trace),
                     _flatten(obj.step, leaves, trace))
    if t is np.ndarray:
        if obj.dtype.hasobject:
            raise Untraceable("an object array met a traced array (arrays of numbers are "
                              "traced; objects inside them are not)")
        return trace.constant(obj)
    if isinstance(obj, Traced):
        raise Untraceable(f"a traced value inside a {t.__name__}")
    if isinstance(obj, ADNumber):
        raise _Defer
    return obj


class _Defer(Exception):
    """A dvlad number is among an operation's arguments: its own overloading is what runs."""


def _fill(template, vals):
    t = type(template)
    if t is _Slot:
        return vals[template.k]
    if t is tuple or t is list:
        return t([_fill(v, vals) for v in template])
    if t is dict:
        return {k: _fill(v, vals) for k, v in template.items()}
    if t is slice:
        return slice(_fill(template.start, vals), _fill(template.stop, vals),
                     _fill(template.step, vals))
    return template


def _has_slot(template):
    t = type(template)
    if t is _Slot:
        return True
    if t is tuple or t is list:
        return any(_has_slot(v) for v in template)
    if t is dict:
        return any(_has_slot(v) for v in template.values())
    if t is slice:
        return any(_has_slot(v) for v in (template.start, template.stop, template.step))
    return False


def _caller(fn, args, kwargs, name):
    """A function of the traced values alone that calls fn with the rest of its arguments
    rebuilt around them; (callee, positional template) when no rebuilding is needed."""
    flat = all(type(a) is _Slot or not _has_slot(a) for a in args) and not kwargs
    if flat:
        return fn, None
    consts = {"fn": fn}
    spelled = ", ".join([_spell(a, consts) for a in args] +
                        [f"{k}={_spell(v, consts)}" for k, v in kwargs.items()])
    slots = ", ".join(f"v{k}" for k in range(_count(args) + _count(kwargs)))
    # one caller for one call shape (np.add(_, _, out=_) in every iteration of a loop: a
    # rolled loop needs the same function in each); it holds its constants, so their ids
    # stay theirs while it is kept
    key = (slots, spelled, name) + tuple((k, _same_key(v)) for k, v in consts.items())
    call = _CALLERS.get(key)
    if call is None:
        exec(f"def call({slots}):\n    return fn({spelled})\n", consts)
        call = consts["call"]
        call.__name__ = call.__qualname__ = name
        if len(_CALLERS) >= 4096:
            _CALLERS.clear()
        _CALLERS[key] = call
    return call, True


_CALLERS = {}


def _same_key(v):
    """A key for a caller's constant: its value where that is exact, else its identity."""
    t = type(v)
    if t in (int, str, bool, type(None)) or (t is float and v == v and v != 0.0):
        return (t, v)
    return (t, id(v))


def _spell(template, consts):
    """Source for an argument template: its traced values by slot (v0, v1, ...), containers
    as displays, other constants by a name bound in ``consts``."""
    t = type(template)
    if t is _Slot:
        return f"v{template.k}"
    if t is tuple:
        inner = ", ".join(_spell(v, consts) for v in template)
        return f"({inner},)" if len(template) == 1 else f"({inner})"
    if t is list:
        return "[" + ", ".join(_spell(v, consts) for v in template) + "]"
    if t is dict and all(type(k) is str for k in template):
        return "{" + ", ".join(f"{k!r}: {_spell(v, consts)}" for k, v in template.items()) + "}"
    if t is slice:
        parts = (template.start, template.stop, template.step)
        return f"slice({', '.join(_spell(v, consts) for v in parts)})"
    if not _has_slot(template):
        name = f"c{len(consts)}"
        consts[name] = template
        return name
    raise Untraceable(f"a traced value inside a {t.__name__}")


def _count(template):
    t = type(template)
    if t is _Slot:
        return 1
    if t in (tuple, list):
        return sum(_count(v) for v in template)
    if t is dict:
        return sum(_count(v) for v in template.values())
    if t is slice:
        return sum(_count(v) for v in (template.start, template.stop, template.step))
    return 0


def _shape_of(a):
    return np.shape(a)


def apply(name, fn, args, kwargs, trace, pure, defer=False):
    """fn(*args, **kwargs) on the concrete values, recorded in ``trace``; its result with each
    array made traced (a container of them rebuilt, a number a :class:`Traced`).  ``pure``: the
    operation neither writes nor raises on arguments of the kind it was traced with, so a
    replay may leave it out when nothing reads its result.  With a dvlad number among the
    arguments, NotImplemented if ``defer`` (an operator, numpy's protocols: the dvlad number's
    own method runs next, with this traced array as a constant).  What the tracer cannot
    follow abandons the trace (:meth:`.traced.Trace.abandon`): fn on the concrete values."""
    if trace.abandoned is None:
        try:
            return _record(name, fn, args, kwargs, trace, pure, defer)
        except Ran as e:            # it ran: its result, with the arrays F gave it
            trace.abandon(e)
            return _given(e.result, trace)
        except Untraceable as e:    # before it ran
            trace.abandon(e)
    if defer and any(isinstance(a, ADNumber) for a in args):
        return NotImplemented
    return fn(*concrete(args), **concrete(kwargs))


def _given(r, trace):
    """r with each of the trace's copies of a plain array (what fn was given) replaced by
    that array."""
    t = type(r)
    if t is np.ndarray:
        for a, c in trace._consts.values():
            if c is r:
                return a
        return r
    if t is tuple or t is list:
        return t([_given(v, trace) for v in r])
    return r


def _record(name, fn, args, kwargs, trace, pure, defer):
    if name in _STATIC:
        return fn(*_unwrapped(args), **dict(zip(kwargs, _unwrapped(kwargs.values()))))
    leaves = []
    try:
        targs = _flatten(tuple(args), leaves, trace)
        tkwargs = _flatten(dict(kwargs), leaves, trace)
    except _Defer:
        if defer:
            return NotImplemented
        raise Untraceable(f"{name} of a dvlad number and a traced value") from None
    for v in leaves:
        v._check()
    concrete = [v.value for v in leaves]
    target = _written(name, targs, tkwargs)
    if target is not None and type(target) is not _Slot:
        raise Untraceable(f"{name} writes traced values into a plain array (write into an "
                          f"array F computed from its arguments, or build the result with "
                          f"np.stack / np.concatenate)")
    callee, template = _caller(fn, targs, tkwargs, name)
    op_args = _op_args(targs, leaves, template)
    try:
        with pool.making(None):     # (arrays fn makes are its own, not the trace's)
            r = fn(*_fill(targs, concrete), **_fill(tkwargs, concrete))
    except Exception as e:
        trace.ops.append(("raises", name, callee, op_args, type(e), where()))
        raise
    try:
        return _result(name, fn, r, targs, tkwargs, leaves, target, callee, op_args, trace,
                       pure)
    except Ran:
        raise
    except Untraceable as e:
        raise Ran(e, r) from None


def _result(name, fn, r, targs, tkwargs, leaves, target, callee, op_args, trace, pure):
    made = trace.known(r)
    if made is not None and target is None:
        return made                 # it returned one of its traced arguments, unchanged
    if _is_constant_result(r, (targs, tkwargs)):
        raise Untraceable(f"{name} returned one of its plain arguments")
    out = _wrap_result(r, trace, name) if made is None else None
    holder = out if out is not None else trace.hidden(r)
    trace.ops.append(("op", holder.ref, name, callee, op_args))
    if target is not None:
        trace.writes[holder.ref] = leaves[target.k].ref
    elif _may_view(name, fn):
        trace.parents[holder.ref] = [v.ref for v in leaves if type(v.value) is not float]
    shaped = name in _SHAPED_BY_VALUES or _values_shape(name, leaves)
    if pure and target is None and not shaped:
        trace.pure.add(holder.ref)
    if made is not None:
        return made                 # it wrote into its traced argument and returned it
    if out is None:
        out = _unpack(r, holder, trace)
    if shaped:
        for v in (out if isinstance(out, (tuple, list)) else (out,)):
            if _is_array(v):
                trace.ops.append(("guard", "shape", _shape_of, (v,), v.value.shape, where()))
    return out


# operations whose result is a new array, never a view of an argument (the rest may be views:
# a write into one may change the other)
_FRESH = {f.__name__ for f in (
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow, operator.matmul, operator.neg, operator.pos, operator.abs, operator.invert,
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.and_,
    operator.or_, operator.xor, np.linalg.solve, np.linalg.inv, np.linalg.cholesky,
    np.linalg.det, np.linalg.slogdet, np.dot, np.vdot, np.inner, np.outer, np.kron, np.einsum,
    np.tensordot, np.where, np.concatenate, np.stack, np.copy, np.sum, np.mean, np.prod, np.std,
    np.var, np.max, np.min, np.amax, np.amin, np.clip, np.cumsum, np.cumprod, np.diff, np.sort,
    np.argsort, np.argmax, np.argmin, np.nonzero, np.empty, np.zeros_like, np.ones_like,
    np.full_like, np.empty_like)} | {"cholesky_factor", "tri_solve", "scatter", "solve_value",
                                     "inverse_value", "slogdet_value", "chol_congruence"}


def _may_view(name, fn):
    """Whether an operation's result may share memory with an argument."""
    if isinstance(fn, np.ufunc) or isinstance(getattr(fn, "__self__", None), np.ufunc):
        return False
    return name not in _FRESH


def _unwrapped(args):
    return [a.value if isinstance(a, Traced) else a for a in args]


def _op_args(targs, leaves, template):
    """The recorded arguments: the call's own (traced values and constants) when it needs no
    rebuilding, else the traced values alone."""
    if template is None:
        return tuple([leaves[a.k] if type(a) is _Slot else a for a in targs])
    return tuple(leaves)


def _written(name, targs, tkwargs):
    """The argument an operation writes into (its ``out``, or its first for an in-place one),
    or None."""
    out = tkwargs.get("out")
    if type(out) is tuple:
        out = next((o for o in out if o is not None), None)
    if out is not None:
        return out
    if name.rsplit(".", 1)[-1] in _WRITES_FIRST and targs:
        return targs[0]
    return None


def _values_shape(name, leaves):
    """Indexing with traced indices: the result's shape may depend on their values."""
    return name in ("getitem", "setitem") and any(
        _is_array(v) and v.value.dtype.kind in "biu" or type(v) is Traced
        for v in leaves[1:])


def _is_constant_result(r, template):
    t = type(template)
    if t is np.ndarray:
        return template is r
    if t is tuple or t is list:
        return any(_is_constant_result(r, v) for v in template)
    if t is dict:
        return any(_is_constant_result(r, v) for v in template.values())
    return False


def _wrap_result(r, trace, name):
    """A traced value for result r, or None when r is a container (unpacked by the caller)."""
    if type(r) is np.ndarray:
        if r.dtype.hasobject:
            raise Untraceable(f"{name} made an object array")
        return trace.array(r)
    if isinstance(r, (int, float, np.generic)) and not isinstance(r, np.str_):
        return trace.value(r)
    if r is None:
        return trace.value(None)
    if type(r) in (tuple, list) or (isinstance(r, tuple) and hasattr(type(r), "_fields")):
        return None
    raise Untraceable(f"{name} gave a {type(r).__name__}, not an array or a number")


def _unpack(r, holder, trace):
    """Container result r (held by traced value ``holder``) as the same container of traced
    values, each read from the holder by a recorded ``getitem``."""
    items = []
    for k, v in enumerate(r):
        made = trace.known(v)
        if made is not None:
            items.append(made)
            continue
        out = _wrap_result(v, trace, "getitem")
        if out is None:
            out = trace.hidden(v)
            trace.ops.append(("op", out.ref, "getitem", operator.getitem, (holder, k)))
            trace.parents[out.ref] = [holder.ref]
            out = _unpack(v, out, trace)
        else:
            trace.ops.append(("op", out.ref, "getitem", operator.getitem, (holder, k)))
            trace.pure.add(out.ref)
            trace.parents[out.ref] = [holder.ref]
        items.append(out)
    t = type(r)
    return t(*items) if hasattr(t, "_fields") else t(items)
