"""Long straight stretches of a trace that roll into no loop, replayed from a table (see reroll).

A loop whose iterations branch on their data (``s += a * a if a > 0.1 else sin(a)``) leaves
blocks of two or more kinds in its trace, in the order the data chose, and its reverse sweep
the same backwards: no run of one repeated block, so :mod:`.loops` finds nothing, and the
stretch would be straight code, ~24 bytes per operation.  Cut instead before every operation of
one kind (the one that makes the fewest kinds of block), each block is one of a few
*templates*: the same operations, reading each other alike.  The stretch becomes one loop over a
table with a row per block: which template, and the places in a list ``V_`` of the values it
reads from other blocks and the values it makes that others read (``V_[r]`` holds value r:
F's arguments first, as ``values``; every value is written once, before any read).  The source
holds each template once; the table is a constant of the replay.  Guards stay guards: a row
answers its tests as the trace did, or the replay gives up as straight code would.
"""
import re

import numpy as np

from .traced import Traced

TABLE_MIN = 400     # straight operations a stretch needs to be made a table
CUTS = 8            # kinds of operation tried as the cut (the most frequent)
SMALLER = 4         # how many times shorter than straight code a table's templates must be
BLOCK_MOST = 32     # items of a block, at most (a longer one is cut before each of its ops)


def stretches(top, ops):
    """[(start, end)] of ``top``: runs of ``TABLE_MIN`` or more consecutive straight scalar
    items (ints), whose arguments and constants are numbers, not arrays."""
    out, start = [], None
    for k, it in enumerate(top + [None]):
        ok = type(it) is int and _scalar(ops[it][1])
        if ok and start is None:
            start = k
        elif not ok and start is not None:
            if k - start >= TABLE_MIN:
                out.append((start, k))
            start = None
    return out


def tabulate(top, ops, refs, sig_of, reads, outputs, n_inputs):
    """({index in top: (end, Table)}, the values the tables store) for the stretches of
    ``top`` a table shortens (``reads(pos)``: the values op pos reads)."""
    last = {}
    for pos in range(len(ops)):
        for r in reads(pos):
            last[r] = pos
    for r in outputs:
        last[r] = len(ops)
    tables, stored = {}, set()
    for start, end in stretches(top, ops):
        table = Table(top[start:end], ops, refs, sig_of, last)
        if table.choose():
            stored |= table.layout(n_inputs, stored)
            tables[start] = (end, table)
    return tables, stored


def v_list(tables, n_inputs):
    """The line making ``V_``: F's arguments, then room for every value a table stores."""
    if not tables:
        return []
    size = max([n_inputs] + [max(max(row[1:], default=0) for row in t.rows) + 1
                             for _, t in tables.values()] +
               [max(t.pre, default=0) + 1 for _, t in tables.values()])
    return [f"    V_ = [*values, *[None] * {size - n_inputs}]"]


def open_small(top, ops):
    """``top`` with its loops of fewer than ``TABLE_MIN`` scalar operations opened into them
    (a loop of a few iterations that took the same branch cuts a stretch in two); None if
    that makes no stretch, or if ``top`` is loops with little straight code between them (a
    table would not be shorter than the loops, and trying costs a first call more than the
    trace: Rosenbrock's gradient, two loops and eight operations, took 60 ms, not 32)."""
    if sum(type(it) is int for it in top) < TABLE_MIN // 4:
        return None
    out, opened = [], False
    for it in top:
        if type(it) is not int and it.end - it.start < TABLE_MIN and all(
                _scalar(ops[p][1]) for p in range(it.start, it.end)):
            out += range(it.start, it.end)
            opened = True
        else:
            out.append(it)
    return out if opened and stretches(out, ops) else None


def _scalar(op):
    args = op[4] if op[0] == "op" else op[3]
    for a in args:
        v = a.value if isinstance(a, Traced) else a
        if isinstance(v, (np.ndarray, list, dict, tuple)):
            return False
    return True


class Table:
    """The plan of one stretch: ``blocks`` [(template, first item, end)], ``templates``
    [items of a first block, per read: ('in', j) | ('same', ref) | ('row', m)], and which of
    each template's values are stored; ``stored``: the values written to ``V_``."""

    def __init__(self, items, ops, refs, sig_of, last_read):
        self.items, self.ops, self.refs = items, ops, refs
        self.sig_of, self.last_read = sig_of, last_read
        self.plan = None

    def choose(self):
        """Find the cut that makes the fewest template lines; False if no cut makes the
        stretch ``SMALLER`` times shorter."""
        counts = {}
        for it in self.items:
            counts[self.sig_of[it]] = counts.get(self.sig_of[it], 0) + 1
        best = None
        for sig in sorted(counts, key=counts.get, reverse=True)[:CUTS]:
            if counts[sig] < 16:
                break
            plan = self._cut(sig)
            if plan is not None and (best is None or plan[0] < best[0]):
                best = plan
        if best is None or best[0] * SMALLER > len(self.items):
            return False
        self.plan = best
        return True

    def _cut(self, sig):
        items, refs, sig_of = self.items, self.refs, self.sig_of
        starts = [k for k, it in enumerate(items) if k == 0 or sig_of[it] == sig]
        ends = starts[1:] + [len(items)]
        keys, blocks = {}, []
        cuts = []
        for s, e in zip(starts, ends):      # (a long block is irregular code: op by op)
            cuts += [(s, e)] if e - s <= BLOCK_MOST else [(k, k + 1) for k in range(s, e)]
        for s, e in cuts:
            block = items[s:e]
            made = {refs[b][0]: j for j, b in enumerate(block) if self.ops[b][1][0] == "op"}
            key = tuple(self._key(b, made) for b in block)
            t = keys.setdefault(key, len(keys))
            blocks.append((t, s, e))
            if len(keys) > 64:
                return None
        lines = sum(len(key) + 2 for key in keys) + 3 * len(keys)
        return lines, sig, blocks, list(keys)

    def _key(self, pos, made):
        """What makes an item the same in two blocks: its kind, its constants, and which of
        the block's items made each value it reads (``made``; None: made outside it)."""
        op = self.ops[pos][1]
        first = 1 if op[0] == "op" else 0
        reads = tuple(made.get(r) for r in self.refs[pos][first:])
        consts = ()
        if op[0] == "op":
            consts = tuple(_const_key(a) for a in op[4] if not isinstance(a, Traced))
        return self.sig_of[pos], reads, consts

    def layout(self, n_inputs, in_v):
        """Per template, each read spelled as the same value in every row ('same', ref) or
        read from ``V_`` at a place the row gives ('row', m), and the items whose values are
        stored (read after their block); the rows; ``pre``: values made before the stretch
        that rows read from ``V_`` and nothing stored there (written before the loop)."""
        _, _, blocks, keys = self.plan
        items, refs, ops, last = self.items, self.refs, self.ops, self.last_read
        rows_of = {}
        for t, s, e in blocks:
            rows_of.setdefault(t, []).append((s, e))
        self.forms, self.stores, self.pre = [], [], []
        made_here = set()
        for t, key in enumerate(keys):
            rows = rows_of[t]
            form, m = [], 0
            for j, (_, reads, _) in enumerate(key):
                pos0 = items[rows[0][0] + j]
                first = 1 if ops[pos0][1][0] == "op" else 0
                fj = []
                for i, inner in enumerate(reads):
                    if inner is not None:
                        fj.append(("in", inner))
                        continue
                    rs = {refs[items[s + j]][first + i] for s, _ in rows}
                    if len(rs) == 1:
                        fj.append(("same", refs[pos0][first + i]))
                    else:
                        fj.append(("row", m))
                        m += 1
                form.append(fj)
            store = [j for j in range(len(key))
                     if ops[items[rows[0][0] + j]][1][0] == "op" and any(
                         last.get(refs[items[s + j]][0], -1) >= items[e - 1] + 1
                         for s, e in rows)]
            self.forms.append(form)
            self.stores.append(store)
            for s, _ in rows:
                for j in store:
                    made_here.add(refs[items[s + j]][0])
        self.rows = []
        pre = set()
        for t, s, e in blocks:
            row = [t]
            for j, fj in enumerate(self.forms[t]):
                pos = items[s + j]
                first = 1 if ops[pos][1][0] == "op" else 0
                for i, (how, _) in enumerate(fj):
                    if how == "row":
                        r = refs[pos][first + i]
                        row.append(r)
                        if r >= n_inputs and r not in made_here and r not in in_v:
                            pre.add(r)
            row += [refs[items[s + j]][0] for j in self.stores[t]]
            self.rows.append(tuple(row))
        self.pre = sorted(pre)
        return made_here


def _const_key(a):
    t = type(a)
    if t in (int, float, bool, str, complex) or a is None or isinstance(a, np.generic):
        return t, repr(a)
    return t, id(a)


def emit(table, spelled_of, names, statements, pad):
    """The source of a planned table: the loop over its rows, a branch per template."""
    _, _, blocks, keys = table.plan
    items, ops = table.items, table.ops
    rows = names.bind(table.rows, "rows")
    order = sorted(range(len(keys)), key=lambda t: -sum(b[0] == t for b in blocks))
    lines = _pre(table.pre, spelled_of, pad)
    lines.append(f"{pad}for r_ in {rows}:")
    if len(order) > 1:
        lines.append(f"{pad}    k_ = r_[0]")
    first_row = {}
    for t, s, _ in blocks:
        first_row.setdefault(t, s)
    for n, t in enumerate(order):
        body = pad + "        "
        if len(order) == 1:
            body = pad + "    "
        else:
            lines.append(f"{pad}    {'if' if n == 0 else 'elif'} k_ == {t}:"
                         if n < len(order) - 1 else f"{pad}    else:")
        form, store = table.forms[t], table.stores[t]
        m = sum(how == "row" for fj in form for how, _ in fj)
        names_ = [f"a_{i}" for i in range(m)] + [f"o_{j}" for j in store]
        if names_:
            lines.append(f"{body}k_, {', '.join(names_)} = r_" if len(names_) > 1 else
                         f"{body}{names_[0]} = r_[1]")
        s = first_row[t]
        for j, fj in enumerate(form):
            spelled = []
            for how, x in fj:
                spelled.append(f"u_{x}" if how == "in" else f"V_[a_{x}]" if how == "row"
                               else spelled_of(x))
            lines += statements([ops[items[s + j]]], names, ref=_reader(spelled),
                                target=lambda r, j=j: f"u_{j}", indent=body)
        lines += [f"{body}V_[o_{j}] = u_{j}" for j in store]
    return lines


_ITEM = re.compile(r"([A-Za-z_]\w*)\[(\d+)\]\Z")


def _pre(refs, spelled_of, pad):
    """``V_[r] = …`` for the values made before a table that its rows read: consecutive items
    of one list (a rolled loop's) as one slice, ``V_[2000:2800:4] = s0_0[0:200]``."""
    lines, runs = [], {}
    for r in refs:
        text = spelled_of(r)
        m = _ITEM.match(text)
        if m is None:
            lines.append(f"{pad}V_[{r}] = {text}")
        else:
            runs.setdefault(m.group(1), []).append((int(m.group(2)), r))
    for name, items in runs.items():
        items.sort()
        k = 0
        while k < len(items):
            end, d = k + 1, None
            while end < len(items) and items[end][0] == items[end - 1][0] + 1 and (
                    d is None and items[end][1] > items[end - 1][1] or
                    items[end][1] - items[end - 1][1] == d):
                d = items[end][1] - items[end - 1][1]
                end += 1
            (lo, r0), (hi, r1) = items[k], items[end - 1]
            if end - k < 4:
                lines += [f"{pad}V_[{r}] = {name}[{i}]" for i, r in items[k:end]]
            else:
                lines.append(f"{pad}V_[{r0}:{r1 + 1}:{d}] = {name}[{lo}:{hi + 1}]")
            k = end
    return lines


def _reader(spelled):
    seen = []

    def ref(a, names):
        if not isinstance(a, Traced):
            return names.const(a)
        seen.append(a)
        return spelled[(len(seen) - 1) % len(spelled)]
    return ref
