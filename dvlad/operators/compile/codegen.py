"""Straight-line Python from a trace: the replay of a compiled function.

Each recorded operation becomes one line (``v7 = v3 * v5``, ``v8 = sin(v7)``), each guard an
``if`` that gives up (``return _miss(k)``), each recorded exception a ``try`` that requires it
again, each captured place a check at the top.  Operations whose value nothing reads, and that
cannot raise, are left out.  Long runs of one repeated block (a loop of F, and its reverse
sweep) are rolled back into a Python ``for`` over a list of values (:mod:`.reroll`), so source
grows with the loop's body, not its trip count.  Registered with :mod:`linecache`."""
import itertools
import re
import linecache
import math
import operator

import numpy as np

from .buffers import pooled_call
from .kinds import apart, kind_tests
from .peephole import rewrite, zeros_of
from .outputs import _own_constants, check_source, output_source
from .family import Family, written
from .liveness import Loud, live, loud
from .reroll import roll
from .traced import Traced, _same_type, _is_integer

INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
         operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.lt: "<",
         operator.le: "<=", operator.gt: ">", operator.ge: ">=", operator.eq: "==",
         operator.ne: "!=", operator.matmul: "@"}
PREFIX = {operator.neg: "-", operator.pos: "+"}
NEGATED = {"==": "!=", "!=": "=="}
_serial = itertools.count(1)
INLINE = 400            # lines of a trace the compiled function inlines
_VALUES = re.compile(r"\bvalues\b")


class Miss(BaseException):
    """What a replay raises when guard ``index`` fails (-1: a captured value changed).  Not an
    Exception: an exception F raises is F's answer, this one only sends the call on."""

    def __init__(self, index):
        self.index = index


class Names:
    """The namespace of a compiled function's replays (all its traces share one): functions
    and constants under readable names."""

    def __init__(self, ns):
        self.ns = ns
        ns.setdefault("_miss", Miss)
        ns.setdefault("_NO", NO)
        ns.setdefault("_given", given)
        ns.setdefault("_ndarray", np.ndarray)
        ns.setdefault("_apart", apart)
        ns.setdefault(abs.__name__, abs)
        self.taken = ns.setdefault("_taken", {})

    def bind(self, obj, hint):
        key = (id(obj), type(obj))
        if key in self.taken:
            return self.taken[key]
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "k"
        if hint[0].isdigit():
            hint = "_" + hint
        name, k = hint, 1
        while name in self.ns:
            k += 1
            name = f"{hint}_{k}"
        self.ns[name] = obj
        self.taken[key] = name
        self.ns.setdefault("_keep", []).append(obj)
        return name

    def const(self, c):
        """A constant as source: a literal for a finite float, int or bool, else a name."""
        t = type(c)
        if t is bool or c is None or t is str:
            return repr(c)
        if t is int or (t is float and math.isfinite(c)):
            s = repr(c)
            return f"({s})" if s.startswith("-") else s
        return self.bind(c, "k")


def arg(a, names):
    return f"v{a.ref}" if isinstance(a, Traced) else names.const(a)


def expression(fn, name, args, names, ref):
    a = [ref(x, names) for x in args]
    if fn is operator.getitem and len(a) == 2:
        return f"{a[0]}[{a[1]}]"
    if fn in INFIX and len(a) == 2:
        return f"{a[0]} {INFIX[fn]} {a[1]}"
    if fn in PREFIX:
        return f"{PREFIX[fn]}{a[0]}"
    return f"{names.bind(fn, name)}({', '.join(a)})"


def guard_test(op, index, names, ref):
    """The condition under which guard ``op`` fails."""
    _, name, fn, args, expected, _where = op
    if fn in INFIX and len(args) == 2 and isinstance(expected, (bool, np.bool_)):
        symbol = INFIX[fn]
        if expected and symbol in ("==", "!="):
            symbol = NEGATED[symbol]
        test = f"{ref(args[0], names)} {symbol} {ref(args[1], names)}"
        # (not a < b, never a >= b: a nan answers no to both)
        return f"not {test}" if expected and symbol not in ("==", "!=") else test
    call = f"({expression(fn, name, args, names, ref)})"    # (never a chained comparison)
    if isinstance(expected, float) and expected != expected:     # nan, of its sign
        signed = names.bind(math.copysign, math.copysign.__name__)
        return f"({call} == {call} or {signed}(1.0, {call}) != " \
               f"{math.copysign(1.0, expected)})"
    if isinstance(expected, float) and expected == 0.0:    # −0.0 is not 0.0 (copysign, atan2)
        signed = names.bind(math.copysign, math.copysign.__name__)
        return f"({call} != 0.0 or {signed}(1.0, {call}) != {math.copysign(1.0, expected)})"
    return f"{call} != {names.const(expected)}"


def out_name(ref):
    return f"v{ref}"


def statements(ops, names, ref=arg, target=out_name, indent="    "):
    """Source lines for ``ops`` (op, guard and raises records, with their indices) at
    ``indent``; ``ref`` spells an argument, ``target`` the value an op makes."""
    out = []
    for index, op in ops:
        kind = op[0]
        if kind == "op":
            _, made, name, fn, args = op
            rhs = (target is out_name and pooled_call(fn, name, args, names, ref)  # (.buffers)
                   or expression(fn, name, args, names, ref))
            out.append(f"{indent}{target(made)} = {rhs}")
        elif kind == "guard":
            out.append(f"{indent}if {guard_test(op, index, names, ref)}:")
            out.append(f"{indent}    raise _miss({index})")
        else:
            _, name, fn, args, exc, _where = op
            out.append(f"{indent}try:")
            out.append(f"{indent}    {expression(fn, name, args, names, ref)}")
            out.append(f"{indent}except {names.bind(exc, exc.__name__)}:")
            out.append(f"{indent}    pass")
            out.append(f"{indent}else:")
            out.append(f"{indent}    raise _miss({index})")
    return out


def simplify(ops, fresh=(), dirty=(), writes=(), family=None):
    """([(index, op)], alias): each repeated computation (the same function of the same values)
    made once, x·1.0 taken as x for a float x, and the exact rewrites of :mod:`.peephole`
    (same bits, fewer numpy calls); ``alias`` maps a value left out to
    the value or constant that stands for it.  An array may be written in place, a number
    cannot: an array op (``fresh``) is made once only when no write (``writes``) went into what
    its arguments may share memory with (``family``) between the two, and neither result is
    ever written (``dirty``)."""
    alias, seen, kept, stand_ins, stamps, defs = {}, {}, [], {}, {}, {}
    times, floats = operator.mul, (float, np.floating)
    for index, op in enumerate(ops):
        if op[0] != "op":
            args = tuple([_valued(alias.get(a.ref, a), a) if isinstance(a, Traced) else a
                          for a in op[3]])
            key = _guard_key(op, args, fresh)
            if key is not None:
                if key in seen:         # the same test of the same numbers: already made
                    continue
                seen[key] = index
            kept.append((index, op[:3] + (args,) + op[4:]))
            continue
        _, out, name, fn, args = op
        args = tuple([_valued(alias.get(a.ref, a), a) if isinstance(a, Traced) else a
                      for a in args])
        zeros = zeros_of(op, kept[-1] if kept else None)
        if zeros is not None:
            kept[-1] = zeros
            continue
        better = rewrite(out, fn, args, defs, dirty)
        if isinstance(better, Traced):
            alias[out] = better
            continue
        if better is not None:
            fn, args = better
        if out in fresh or any(type(a) is not Traced and isinstance(a, (Traced, np.ndarray))
                               for a in args):
            # arrays: one value for two ops only between the same writes (any op may raise:
            # the first then does), neither result ever written (through a view or not)
            key = None
            if out in writes:
                for r in family.roots(writes[out]):
                    stamps[r] = stamps.get(r, 0) + 1
            elif out not in dirty:
                roots = set().union(*[family.roots(a.ref) for a in args if isinstance(a, Traced)])
                key = (fn, tuple(sorted((r, stamps.get(r, 0)) for r in roots))) + tuple(
                    [a.ref if isinstance(a, Traced) else (type(a), id(a))
                     if isinstance(a, np.ndarray) else _const_key(a) for a in args])
        else:
            if fn is times and len(args) == 2:
                one, other = args
                if type(other) is float and other == 1.0:
                    one, other = other, one
                if type(one) is float and one == 1.0 and type(other) is Traced and \
                        isinstance(other.value, floats):
                    alias[out] = other
                    continue
            key = (fn,) + tuple([a.ref if type(a) is Traced else _const_key(a) for a in args])
        try:
            same = seen.get(key) if key is not None else None
        except TypeError:               # an unhashable constant
            same, key = None, None
        if same is not None:
            made = stand_ins.get(same)
            if made is None:
                made = stand_ins[same] = Traced(None, None, same)
            alias[out] = made
            continue
        if key is not None:
            seen[key] = out
        defs[out] = (fn, args)
        kept.append((index, ("op", out, name, fn, args)))
    return kept, alias


def _const_key(a):
    """What makes two constants the same: a number's type and digits (−0.0 is not 0.0, in
    float32 or a complex number too), else the constant itself."""
    if isinstance(a, (int, float, complex, np.number, np.bool_)):
        return type(a), repr(a)
    return type(a), a


def _guard_key(op, args, fresh):
    """What makes guard ``op`` the same test as another (None: a test of arrays, or a
    recorded exception, is never taken as one made already: an array may be written between)."""
    if op[0] != "guard":
        return None
    key = ["guard", op[2], type(op[4]), repr(op[4])]
    for a in args:
        if isinstance(a, Traced):
            if a.ref in fresh or not isinstance(a.value, (int, float, np.number)):
                return None
            key.append(a.ref)
        elif a is None or type(a) in (int, float, bool, str):
            key.append((type(a), repr(a)))
        else:
            return None
    return tuple(key)


def _valued(b, a):
    """The value b that stands for a, with a's concrete value (a peephole's rewrites ask it)."""
    if not isinstance(b, Traced) or b is a or b.value is not None:
        return b
    return Traced(a.value, None, b.ref)


class Code:
    """A trace's code: ``lines`` (checks and body, at one indent), the names of its inputs in
    order, and the expression of its result; :meth:`function` makes it a function."""

    def __init__(self, lines, inputs, result, label, ops):
        self.lines, self.inputs, self.result, self.label = lines, inputs, result, label
        self.ops, self.size, self._source = ops, len(lines), None
        # (rolled loops and tables read F's floats from the replay's list ``values``: the
        # entry, which names them one by one, calls such a replay instead of inlining it)
        self.reads_values = any(_VALUES.search(line) for line in lines)

    def source(self):
        """The replay function's source (kept as one string: a long trace's lines are let go)."""
        if self._source is None:
            self._source = self._make_source()
            if self.size > INLINE:
                self.lines = None
        return self._source

    def _make_source(self):
        src = ["def replay(values):",
               f'    """The replay of {self.label}: {self.ops} operations recorded."""']
        if len(self.inputs) <= 16:
            if self.inputs:
                src.append(f"    {', '.join(self.inputs)}, = values")
        else:                   # many: those read one by one (rolled loops index ``values``)
            text = "\n".join(self.lines) + self.result
            used = sorted({int(m) for m in re.findall(r"\bv(\d+)\b", text)
                           if int(m) < len(self.inputs)})
            src += [f"    v{k} = values[{k}]" for k in used]
        src += self.lines
        src.append(f"    return {self.result}")
        return "\n".join(src) + "\n"

    def entry_source(self, replay, params=None, kinds=None):
        """The compiled function itself, this trace inlined for float arguments; any other call,
        a failed guard or an exception goes to the general path, ``_call``.  With ``params``
        (F's own parameter names, when F takes exactly this trace's floats by position and
        perhaps a ``*rest``) the entry has F's signature; else its own parameters (cheaper than
        unpacking ``*args``).  A long trace is called (``replay``: its function's name), not
        inlined: compiling it twice would cost twice."""
        n = len(self.inputs)
        if params is not None and len(params[0]) == n:
            names, rest = params
            head = f"def entry({', '.join(names + ([f'*{rest}'] if rest else []))}):"
            unpack = [f"        {', '.join(self.inputs)}, = {', '.join(names)}," if n else ""]
            given = f"({', '.join(names)},)" if n else "()"
            test = " and ".join([f"not {rest}"] * bool(rest) + kind_tests(names, kinds)) \
                or "True"
            call = f"_call({given} + {rest}, {{}})" if rest else f"_call({given}, {{}})"
            kwargs = "{}"
        else:
            head = f"def entry({''.join(f'{v}=_NO, ' for v in self.inputs)}*rest, **kwargs):"
            unpack = [""]
            given = f"({', '.join(self.inputs)},)" if n else "()"
            test = " and ".join(["not rest", "not kwargs"] + kind_tests(self.inputs, kinds))
            call = f"_call(_given({given}, rest), kwargs)"
            kwargs = "kwargs"
        src = [head, f"    if {test}:", "        try:"]
        src += ["    " + u for u in unpack if u]     # (at the try's indent)
        if self.size <= INLINE and not self.reads_values:
            src += ["        " + s for s in self.lines]
            src.append(f"            return {self.result}")
        else:
            src.append(f"            return {replay}({given})")
        src += ["        except _miss:",
                "            pass",
                "        except Exception:",
                f"            return _eager({given}, {kwargs})",
                f"    return {call}"]
        return "\n".join(src) + "\n"


def given(named, rest):
    """The positional arguments of a call of an entry: its parameters that were passed, then
    the rest."""
    named = tuple(v for v in named if v is not NO)
    return named + rest if rest else named


class _No:
    def __repr__(self):
        return "<no argument>"


NO = _No()


def define(source, name, ns, label):
    """exec ``source`` in ``ns`` under a linecache file name of its own; its function ``name``."""
    filename = f"<dvlad.compile {label} #{next(_serial)}>"
    code = compile(source, filename, "exec")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(code, ns)
    return ns.pop(name)


def generate(trace, inputs, out, entries, label, ns):
    """The :class:`Code` of a trace, its names bound in namespace ``ns``."""
    names = Names(ns)
    refs = set()
    family = Family(trace, len(inputs))
    arguments = {t.ref for t in inputs}
    ops, alias = simplify(trace.ops, trace.array_refs, written(trace) | arguments, trace.writes,
                          family)
    out = _own_constants(out)   # (F's first caller holds the arrays it returned: not these)
    output_source(out, names, refs, alias, inputs=arguments)
    ops, numpy_out = live(ops, refs, trace.pure, family)
    body, spell = roll(ops, names, statements, len(inputs), sorted(refs))
    result = output_source(out, names, set(), alias, spell, inputs=arguments)
    lines = check_source(entries, names) + body
    if numpy_out:               # (numpy's work left out: not where its errors would be heard)
        lines = [f"    if {names.bind(loud, 'loud')}():",
                 f"        raise {names.bind(Loud, 'Loud')}()"] + lines
    return Code(lines, [f"v{t.ref}" for t in inputs], result, label, len(trace.ops))


__all__ = ["generate", "define", "Code", "Miss", "_same_type", "_is_integer"]
