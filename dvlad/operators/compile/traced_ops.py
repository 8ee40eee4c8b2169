"""Python's operators on traced numbers (:class:`.traced.Traced`): each recorded as the operator
module's function, two-operand ones unrolled (most of a trace is these)."""
import math
import operator
import sys

import numpy as np

from ...core import base as B

_PLAIN = (int, float, np.generic, B.MPF)
_DVLAD = __file__.rsplit("/operators/", 1)[0]


def where():
    """file:line of the innermost frame outside dvlad (the user's line that decided a guard)."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith((_DVLAD, "<dvlad")):
        f = f.f_back
    return f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else "?"


def _binary(fn, reflected, traced):
    """Traced's operator ``fn`` (reflected: the traced value on the right): _record, unrolled
    for two operands (most of a trace is these)."""
    name = fn.__name__

    def method(self, other):
        trace = self.trace
        to = type(other)
        if to is traced:
            if other.trace is not trace or trace.done or trace.abandoned is not None:
                return self._record(name, fn, (other, self) if reflected else (self, other))
            ov = other.value
        elif to is float or to is int or isinstance(other, _PLAIN):
            ov = other
        else:
            return NotImplemented
        if trace.done or trace.abandoned is not None:
            self._check()
            return fn(ov, self.value) if reflected else fn(self.value, ov)
        try:
            r = fn(ov, self.value) if reflected else fn(self.value, ov)
        except Exception as e:
            trace.ops.append(("raises", name, fn, (other, self) if reflected else (self, other),
                              type(e), where()))
            raise
        tr = type(r)
        if tr is not float and tr is not int and not isinstance(r, _PLAIN):
            trace.abandon(f"{name} gave a {tr.__name__}, not a number")
            return r
        if tr is B.MPF:
            return self._record(name, fn, (other, self) if reflected else (self, other))
        out = traced(r, trace, trace.count)
        trace.count += 1
        trace.ops.append(("op", out.ref, name, fn, (other, self) if reflected else (self, other)))
        return out
    method.__name__ = f"__r{name}__" if reflected else f"__{name}__"
    return method


def install(traced):
    """Python's operators on traced values: each recorded as the operator module's function
    (the replay spells it as the operator again); ``traced`` is :class:`.traced.Traced`."""
    for fn in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
               operator.mod, operator.pow):
        name = fn.__name__
        setattr(traced, f"__{name}__", _binary(fn, False, traced))
        setattr(traced, f"__r{name}__", _binary(fn, True, traced))
    for fn in (operator.neg, operator.pos, operator.abs):
        name = fn.__name__
        setattr(traced, f"__{name}__", lambda s, fn=fn, name=name: s._record(name, fn, (s,)))
    for fn in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        name = fn.__name__
        setattr(traced, f"__{name}__", lambda s, o, fn=fn, name=name: s._decide(name, fn, (s, o)))
    for fn in (bool, float, int, operator.index, hash, math.trunc, math.floor, math.ceil,
               complex):
        name = fn.__name__
        setattr(traced, f"__{name}__", lambda s, fn=fn, name=name: s._decide(name, fn, (s,)))
    traced.__divmod__ = lambda s, o: (s // o, s % o)
    traced.__rdivmod__ = lambda s, o: (o // s, o % s)
