"""The ends of a replay: the checks of the places F reads, before its body, and F's result
rebuilt after it (its arrays as many objects as F returned, its constant arrays fresh)."""
import itertools
import re
import types

import numpy as np

from .places import _MISSING
from .traced import Traced, Untraceable

_MAPPINGS = (dict, types.MappingProxyType)


def output_source(out, names, refs, alias, spell=None, made=None, inputs=()):
    """F's result rebuilt from values and constants (tuples, lists, dicts, named tuples); the
    values it reads go to ``refs``, and ``spell(value, names)`` spells them.  Two arrays F
    returned as two objects stay two (``made``: value -> F's own value it was spelled for): an
    array that stands for another (made once, or an argument) is copied where it would
    otherwise come back twice, or come back as the argument."""
    t = type(out)
    if made is None:
        made = {}
    if isinstance(out, Traced):
        own, out = out, alias.get(out.ref, out)
        if not isinstance(out, Traced):
            return names.const(out)
        refs.add(out.ref)
        text = spell(out, names) if spell else f"v{out.ref}"
        twice = made.setdefault(out.ref, own.ref) != own.ref
        if (twice or out.ref != own.ref and out.ref in inputs) and (
                isinstance(out.value, np.ndarray) or isinstance(own.value, np.ndarray)):
            return f"{text}.copy()"
        return text
    if t in (int, float, bool, str, bytes, complex) or out is None or isinstance(out, np.generic):
        return names.const(out)
    if t is np.ndarray:         # a constant array: a fresh copy for every call, as F makes
        return f"{names.bind(out, 'k')}.copy()"

    def inner(x, into=refs):
        return output_source(x, names, into, alias, spell, made, inputs)

    if t is tuple:
        items = _joined(list(map(inner, out)), names)
        return f"({items},)" if len(out) == 1 else f"({items})"
    if t is list:
        return "[" + _joined(list(map(inner, out)), names) + "]"
    if t is dict:
        return "{" + ", ".join(f"{inner(k, set())}: {inner(v)}" for k, v in out.items()) + "}"
    if isinstance(out, tuple) and hasattr(t, "_fields"):
        items = ", ".join(map(inner, out))
        return f"{names.bind(t, t.__name__)}({items})"
    raise Untraceable(f"F returned a {t.__name__} (a replay rebuilds numbers, tuples, lists "
                      f"and dicts)")


_ELEMENT = re.compile(r"(s\d+_\d+)\[(\d+)\]\Z")     # an item of a rolled loop's list
_TABLED = re.compile(r"V_\[(\d+)\]\Z")                # a value a table stored
_NUMBER = re.compile(r"\(?-?\d+\.\d*(e[-+]?\d+)?\)?\Z")  # a float's literal, (-1.0) too
RUN = 8


def _joined(texts, names=None):
    """Items of a list or tuple display, a run of ``RUN`` or more consecutive items of one of
    a rolled loop's lists (a gradient's elements) as one starred slice: ``*s1_6[9996::-1]``,
    and of values tables stored as one starred map over their places:
    ``*map(V_.__getitem__, at)``."""
    out, k = [], 0
    while k < len(texts):
        end = k
        while names is not None and end < len(texts) and (
                _TABLED.match(texts[end]) or _NUMBER.match(texts[end])):
            end += 1
        while end > k and not _TABLED.match(texts[end - 1]):
            end -= 1
        if end - k >= RUN:
            at = tuple(int(m.group(1)) if m else (float(t.strip("()")),)
                       for t, m in zip(texts[k:end], map(_TABLED.match, texts[k:end])))
            if all(type(i) is int for i in at):
                out.append(f"*map(V_.__getitem__, {names.bind(at, 'at')})")
            else:       # (zeros among them: a gradient's elements no branch reached)
                out.append(f"*{names.bind(_picked, 'picked')}(V_, {names.bind(at, 'at')})")
            k = end
            continue
        woven = _woven(texts, k, names)
        if woven is not None:
            k, text = woven
            out.append(text)
            continue
        first, end, step = _ELEMENT.match(texts[k]), k + 1, 0
        if first and end < len(texts):
            name, i = first.group(1), int(first.group(2))
            m = _ELEMENT.match(texts[end])
            step = int(m.group(2)) - i if m and m.group(1) == name else 0
            while step in (1, -1) and end < len(texts):
                m = _ELEMENT.match(texts[end])
                if not m or m.group(1) != name or int(m.group(2)) != i + (end - k) * step:
                    break
                end += 1
        if end - k < RUN:
            out.append(texts[k])
            k += 1
            continue
        out.append("*" + _slice(name, i, end - k, step))
        k = end
    return ", ".join(out)


def _slice(name, i, count, step):
    stop = i + count * step
    return f"{name}[{i}:{stop}]" if step == 1 else \
        f"{name}[{i}::-1]" if stop < 0 else f"{name}[{i}:{stop}:-1]"


def _woven(texts, k, names):
    """(end, text) for a run from k of items of P lists taken in turn, each list's index
    stepping by ±1 (a loop of P branches: its gradient's elements), as one starred weave of P
    slices, ``*woven(s0_1[0:3333], s0_3[0:3333], s1_0[3332::-1])``; None if there is none."""
    if names is None:
        return None
    for p in range(2, 7):
        if k + 2 * p > len(texts):
            return None
        ms = [_ELEMENT.match(t) for t in texts[k:k + 2 * p]]
        if not all(ms) or any(ms[j].group(1) != ms[j + p].group(1) for j in range(p)):
            continue
        first = [(m.group(1), int(m.group(2))) for m in ms[:p]]
        steps = [int(ms[j + p].group(2)) - first[j][1] for j in range(p)]
        if any(st not in (1, -1) for st in steps):
            continue
        reps = 2
        while k + (reps + 1) * p <= len(texts) and all(
                (m := _ELEMENT.match(texts[k + reps * p + j])) and m.group(1) == first[j][0]
                and int(m.group(2)) == first[j][1] + reps * steps[j] for j in range(p)):
            reps += 1
        if reps * p < 2 * RUN:
            continue
        woven = names.bind(_weave, "woven")
        cols = ", ".join(_slice(name, i, reps, st) for (name, i), st in zip(first, steps))
        return k + reps * p, f"*{woven}({cols})"
    return None


def _picked(values, at):
    """values[i] for each int i of ``at``, c for each (c,)."""
    return [values[i] if type(i) is int else i[0] for i in at]


def _weave(*columns):
    """The items of the columns taken in turn: a₀, b₀, c₀, a₁, b₁, …"""
    return itertools.chain.from_iterable(zip(*columns))


def check_source(entries, names, indent="    "):
    """The checks of captured places: identity first, the full comparison when needed."""
    out = []
    for e in entries:
        ename = names.bind(e, "place")
        kind, where, key = e.place
        if kind == "cell" and e.copy is None:
            read = f"{names.bind(where, 'cell')}.cell_contents"
            out.append(f"{indent}if {read} is not {names.bind(e.value, 'was')} "
                       f"and not {ename}.holds():")
        elif kind == "key" and type(where) in _MAPPINGS and e.value is _MISSING:
            missing = names.bind(_MISSING, "missing")     # a name nothing held there
            read = f"{names.bind(where, 'namespace')}.get({names.const(key)}, {missing})"
            out.append(f"{indent}if {read} is not {missing}:")
        elif kind == "key" and type(where) in _MAPPINGS and isinstance(e.value,
                                                                        types.ModuleType):
            read = f"{names.bind(where, 'namespace')}.get({names.const(key)})"
            out.append(f"{indent}if {read} is not {names.bind(e.value, 'module')}:")
        elif kind == "key" and type(where) in _MAPPINGS and e.copy is None:
            read = f"{names.bind(where, 'namespace')}.get({names.const(key)})"
            out.append(f"{indent}if {read} is not {names.bind(e.value, 'was')} "
                       f"and not {ename}.holds():")
        elif kind == "attr" and key == "__code__":     # (a function's code: by identity)
            out.append(f"{indent}if {names.bind(where, 'fn')}.__code__ is not "
                       f"{names.bind(e.value, 'code')}:")
        else:
            out.append(f"{indent}if not {ename}.holds():")
        out.append(f"{indent}    raise _miss(-1)")
    return out


def _own_constants(out):
    """F's result with a copy of each constant array in it."""
    t = type(out)
    if t is np.ndarray:
        return out.copy()
    if t is tuple or t is list:
        return t(map(_own_constants, out))
    if t is dict:
        if any(isinstance(k, Traced) for k in out):
            raise Untraceable("F returned a dict keyed by a number it computed (a replay "
                              "rebuilds values, not keys)")
        return {k: _own_constants(v) for k, v in out.items()}
    if isinstance(out, tuple) and hasattr(t, "_fields"):
        return t(*map(_own_constants, out))
    return out
