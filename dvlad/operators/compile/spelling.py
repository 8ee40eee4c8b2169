"""How rolled loops spell their counters, list indices and per-iteration constants (see
:mod:`.reroll`)."""
import itertools
import re
from collections import Counter

from .loops import hashable
from .traced import Traced


def counter(depth):
    return "t" if depth == 1 else f"t{depth}"


def local(depth, k):
    return f"w{k}" if depth == 1 else f"w{depth}_{k}"


def flat(a, coefs, loops):
    """``a + Σ b_l·i_l`` (i_l: the l-th loop's iteration) as source, over the counters: a
    loop counts the iterations of its loop and those around it, ``t_l = n_l·t_(l−1) + i_l``,
    so a list item of the innermost loop is ``s[t2]``, and ``i_l = t_l − n_l·t_(l−1)``."""
    q = len(coefs)
    terms = [(coefs[l] - (coefs[l + 1] * loops[l + 1].reps if l + 1 < q else 0),
              counter(l + 1)) for l in range(q)]
    return _affine(a, terms)


def _affine(a, terms):
    """``a + Σ b·t`` as source (terms: pairs (b, counter name))."""
    out = [] if a == 0 else [str(a)]
    for b, name in terms:
        if b == 0:
            continue
        term = name if abs(b) == 1 else f"{abs(b)} * {name}"
        out.append(("- " if b < 0 else "+ ") + term if out else ("-" if b < 0 else "") + term)
    return " ".join(out) or "0"


def strides(loops):
    """How far apart consecutive iterations of each loop are in a list of the innermost's."""
    out, size = [], 1
    for L in reversed(loops):
        out.append(size)
        size *= L.reps
    return out[::-1]


_SUBSCRIPT = re.compile(r"([A-Za-z_]\w*)\[(.+)\]\Z")


def shared(reads, depth, pad):
    """What a loop body reads more than once, made once per iteration: ``reads`` holds each
    item's spelled reads (None: an inner loop).  An index two reads compute (``9997 - t``)
    becomes a local at the body's top (``j1_0``, its lines the first thing returned), and a read
    made twice a local where it is first made (``x1_0 = s0_2[j1_0]``: a list's item is written
    before any read of it, and never again; ``values`` never).  Returns (those lines, per item
    None or (lines before it, its reads))."""
    count = Counter(t for texts in reads if texts for t in texts)
    uses = Counter(m.group(2) for m in map(_SUBSCRIPT.match, count) if m)
    head, index = [], {}
    for ix, c in uses.items():
        if c >= 2 and not (ix.isidentifier() or ix.isdigit()):
            index[ix] = f"j{depth}_{len(index)}"
            head.append(f"{pad}{index[ix]} = {ix}")

    def moved(t):
        m = _SUBSCRIPT.match(t)
        return f"{m.group(1)}[{index[m.group(2)]}]" if m and m.group(2) in index else t
    made, out = {}, []
    for texts in reads:
        if texts is None:
            out.append(None)
            continue
        before, new = [], []
        for t in texts:
            if count[t] < 2 or not _SUBSCRIPT.match(t):
                new.append(moved(t))
                continue
            if t not in made:
                made[t] = f"x{depth}_{len(made)}"
                before.append(f"{pad}{made[t]} = {moved(t)}")
            new.append(made[t])
        out.append((before, new))
    return head, out


def reader(spelled, consts):
    """The ``ref`` of :func:`codegen.statements` for one op: its reads, then its constants,
    in order (again from the first when a test spells its call twice)."""
    seen, counted = [], []

    def ref(a, names):
        if not isinstance(a, Traced):
            if not consts:
                return names.const(a)
            counted.append(a)
            return consts[(len(counted) - 1) % len(consts)]
        seen.append(a)
        return spelled[(len(seen) - 1) % len(spelled)]
    return ref


def constants(ops, pos, path, names):
    """How a rolled op spells each constant: the constant, where every iteration has the
    same; ``i0 + d·t`` for integers stepping evenly (``a[i]``); else an item of a list
    (``path``: the op's place in its loops, as :class:`reroll._Roller` keeps it)."""
    op = ops[pos][1]
    if op[0] != "op":
        return None
    loops = [step[0] for step in path]
    boxes = list(itertools.product(*[range(L.reps) for L in loops]))
    each = [tuple(a for a in ops[pos + sum(L.span * x for L, x in zip(loops, t))][1][4]
                  if not isinstance(a, Traced)) for t in boxes]
    steps = strides(loops)
    out = []
    for m, c0 in enumerate(each[0]):
        cs = [c[m] for c in each]
        if all(c is c0 for c in cs) or (hashable(c0) and all(
                type(c) is type(c0) and _same_const(c, c0) for c in cs)):
            out.append(names.const(c0))
            continue
        if type(c0) is int and all(type(c) is int for c in cs):
            slopes = [cs[steps[l]] - c0 for l in range(len(loops))]
            if all(c == c0 + sum(s * x for s, x in zip(slopes, t)) for c, t in zip(cs, boxes)):
                out.append(f"({flat(c0, slopes, loops)})")
                continue
        out.append(f"{names.bind(cs, 'each')}[{counter(len(loops))}]")
    return out


def _same_const(a, b):
    try:
        return bool(a == b) and repr(a) == repr(b)      # (−0.0 is not 0.0; nan is nan)
    except Exception:
        return False
