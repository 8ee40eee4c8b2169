"""The compiled function's face: its name, its signature, and the trace its entry inlines."""
import inspect

import numpy as np

from .codegen import Names


def _label(f):
    """F's name as a reader knows it: gradient_r(rosenbrock), derivative(<lambda>), ..."""
    name = getattr(f, "__qualname__", None)
    if name is None and hasattr(f, "func"):                   # functools.partial
        inner = [_label(a) for a in f.args if callable(a)]
        name = f"{_label(f.func).strip('_').removesuffix('_at')}({', '.join(inner)})"
    elif name is None and callable(getattr(f, "f", None)):    # an operator dvlad built
        op = type(f).__name__.strip("_")
        op = "".join("_" + c.lower() if c.isupper() and k else c.lower()
                     for k, c in enumerate(op))
        name = f"{op}({_label(f.f)})"
    return name or type(f).__name__


def code_of(replay, ns, params, kinds=None):
    """The entry's source for ``replay``, which it may call by a name bound in ``ns``."""
    return replay.code.entry_source(Names(ns).bind(replay.run, "replay"), params, kinds)


def _entry_kinds(key):
    """For a key of float and array arguments only (no keywords, no aliasing): per argument
    None (a float) or its array kind; else False (the entry inlines no trace for it)."""
    if key[1] or (len(key) > 2 and key[2]):
        return False
    kinds = []
    for k in key[0]:
        if k is float:
            kinds.append(None)
        elif type(k) is tuple and k[0] is np.ndarray:
            kinds.append(k[1:])
        else:
            return False
    return kinds


def _params(f):
    """([names], rest) when F's parameters are plain positional ones and perhaps ``*rest``
    (the compiled function then takes F's own signature), else None."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    names, rest = [], None
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty \
                and rest is None and p.name.isidentifier() and not p.name.startswith("_"):
            names.append(p.name)
        elif p.kind is p.VAR_POSITIONAL and not p.name.startswith("_"):
            rest = p.name
        else:
            return None
    return names, rest
