"""Long runs of a repeated block of a trace, rolled back into Python loops (see codegen).

The loops are found by :mod:`.loops`, loops of loops included; this module spells them.
Inside a rolled loop, a value made and read in the same iteration is a local (``w3``, or
``w2_3`` two loops deep); a value read from elsewhere (a later iteration, a later loop, the
code after it) is kept in a list of its own, one per slot of the body, indexed by the loops'
counters (``s4_3[t * 9 + t2]``); a value the previous iteration made, and the code before the
loop the first time, is carried (``c4_0``); an argument's float is read from
``values[r₀ + d·t]``.  Each spelling is checked against where every iteration's value was
really made (the counters' corners suffice: both sides are affine in them), and made before it
is read.  A loop whose values cannot be spelled so loses its first or last iteration to
straight code, or is opened into the loops it was made of, or into straight code.
"""
import itertools

from .loops import Levels, Loop, MIN_OPS, MIN_REPS
from .spelling import constants, counter, flat, local, reader, shared, strides
from .tables import emit, open_small, stretches, tabulate, v_list
from .traced import Traced

PEELS = 3               # iterations a loop may lose to straight code at each end
FLAT_MOST = 8000        # lines of source rolled at one level above which loops in loops are
                        # rolled too (straight loop bodies replay faster: a loop costs) ...
ALIKE = MIN_REPS        # ... when as many loops rolled at one level are the same loop


def roll(ops, names, statements, n_inputs, outputs=()):
    """(lines, ref): source lines for ``ops`` (pairs (index, op)), long repeated runs rolled
    into loops; ``ref`` spells a value for code after them (F's result, reading ``outputs``)."""
    if len(ops) < MIN_OPS:
        return statements(ops, names), _plain
    ops, moved = _dense(ops, n_inputs)
    outputs = [moved(Traced(None, None, r)).ref for r in outputs]
    flat = _Roller(ops, names, statements, n_inputs, False)
    lines, spell = flat.run(outputs)
    top = open_small(list(flat.top), ops) if flat.top else None
    tabled = top and _Roller(ops, names, statements, n_inputs, False, flat.lv).run(outputs, top)
    if tabled and len(tabled[0]) < len(lines):      # short loops opened into a table, if shorter
        lines, spell = tabled
    if len(lines) > FLAT_MOST and flat.alike() >= ALIKE:
        # loops in loops (the same loop again and again): rolled at every level, if shorter
        nested = _Roller(ops, names, statements, n_inputs, True).run(outputs)
        if len(nested[0]) < len(lines):
            lines, spell = nested
    return lines, lambda a, names: spell(moved(a), names)


def _plain(a, names):
    return f"v{a.ref}" if isinstance(a, Traced) else names.const(a)


def _dense(ops, n_inputs):
    """The ops with their values numbered in order of making, after F's arguments (a loop's
    iterations are a fixed distance apart only when the values recorded but left out between
    them are not counted), and the map from a value to its renumbered stand-in."""
    number, clones = {}, {}

    def moved(a):
        if not isinstance(a, Traced) or a.ref < n_inputs:
            return a
        got = clones.get(a.ref)
        if got is None:
            r = number.get(a.ref)
            if r is None:                           # (not made here: a number of its own)
                r = number[a.ref] = n_inputs + len(ops) + a.ref
            got = clones[a.ref] = object.__new__(type(a))
            got.value, got.trace, got.ref = a.value, a.trace, r
        return got

    out = []
    for index, op in ops:
        if op[0] == "op":
            args = tuple(map(moved, op[4]))
            number[op[1]] = n_inputs + len(out)
            op = ("op", number[op[1]], op[2], op[3], args)
        else:
            op = op[:3] + (tuple(map(moved, op[3])),) + op[4:]
        out.append((index, op))
    return out, moved


class _Fail(Exception):
    """A value a loop reads that cannot be spelled; ``hint``: (end, loop) when what reads it
    is that loop's first or last iterations (end "first" or "last"), else None."""

    def __init__(self, hint=None):
        self.hint = hint


class _Roller:
    def __init__(self, ops, names, statements, n_inputs, nested, lv=None):
        self.ops, self.names, self.statements, self.n_inputs = ops, names, statements, n_inputs
        self.top, self.tabled, self.tables = (), set(), {}
        self.lv = Levels(ops, nested) if lv is None else lv
        self.refs = self.lv.refs

    def run(self, outputs, top=None):
        top = self.lv.top() if top is None else top
        if not any(type(it) is Loop for it in top) and not stretches(top, self.ops):
            return self.statements(self.ops, self.names), _plain
        tries = {}
        while True:
            self._index(top)
            failed = self._plan(top, outputs)
            if not failed:
                break
            top = self._demote(top, failed, tries)
        self.top = top
        self._tabulate(top, outputs)
        return self._emit(top), self._outside

    def _tabulate(self, top, outputs):
        """Tables for long straight stretches (:mod:`.tables`), what they store read from V_."""
        self.tables, self.tabled = tabulate(top, self.ops, self.refs, self.lv.sig_of,
                                            self._reads, outputs, self.n_inputs)
        assert not (self.tables and self._plan(top, outputs))

    def alike(self):
        """How many of the loops rolled are the same loop (body, trip count, steps), at most:
        fewer than ``MIN_REPS``, and no loop around them could be rolled."""
        counts = {}
        for it in self.top:
            if type(it) is Loop:
                counts[it.sig] = counts.get(it.sig, 0) + 1
        return max(counts.values(), default=0)

    # ---- where each value is made -----------------------------------------------------------

    def _index(self, top):
        """Each loop's place (``anc``: the loops from its root down to it; ``idx``: its item's
        index in each), each op's path in its loops, and ``made``: value -> (loop, slot,
        counters) for every value a loop makes."""
        self.anc, self.idx, self.ident, self.path, self.made = {}, {}, {}, {}, {}
        for it in top:
            if type(it) is Loop:
                self._place(it, [], [])
                for pos, path in self._ops_in(it):
                    self.path[pos] = path
                    if self.ops[pos][1][0] != "op":
                        continue
                    loops = [step[0] for step in path]
                    ds = [L.steps[k][o] for L, k, o in path]
                    r0, (last, slot, _) = self.refs[pos][0], path[-1]
                    for t in itertools.product(*[range(L.reps) for L in loops]):
                        self.made[r0 + sum(d * x for d, x in zip(ds, t))] = (last, slot, t)

    def _place(self, loop, anc, idx):
        self.anc[loop], self.idx[loop] = anc + [loop], idx
        self.ident[loop] = len(self.ident)
        for k, it in enumerate(loop.body):
            if type(it) is Loop:
                self._place(it, anc + [loop], idx + [k])

    def _ops_in(self, item):
        """(position, path) of each op in ``item``: path holds (loop, index of the item in its
        body holding the op, the op's values' offset in that item's values), root first."""
        if type(item) is int:
            yield item, []
            return
        for k, it in enumerate(item.body):
            for pos, path in self._ops_in(it):
                if type(it) is int:
                    off = 0
                else:
                    inner, k2, o2 = path[0]
                    off = sum(len(r) for r in inner.refs[:k2]) + o2
                yield pos, [(item, k, off)] + path

    # ---- spelling ---------------------------------------------------------------------------

    def _plan(self, top, outputs):
        """Spell every value each loop and the straight code read: {root: hint} of the loops
        that failed (none: the spellings are kept for :meth:`_emit`)."""
        self.kept, self.lasts, self.carries, self.spelled = set(), set(), {}, {}
        failed = {}
        for it in top:
            if type(it) is not Loop:
                for i, r in enumerate(self._reads(it)):
                    self.spelled[(it, i)] = self._spell([], 0, r, ())
                continue
            try:
                for pos, path in self._ops_in(it):
                    first = 1 if self.ops[pos][1][0] == "op" else 0
                    for i, r in enumerate(self.refs[pos][first:]):
                        ds = tuple(L.steps[k][o + first + i] for L, k, o in path)
                        self.spelled[(pos, i)] = self._spell(path, len(path), r, ds)
            except _Fail as e:
                failed[it] = e.hint
        for r in outputs:
            self._spell([], 0, r, ())
        return failed

    def _reads(self, pos):
        return self.refs[pos][1 if self.ops[pos][1][0] == "op" else 0:]

    def _spell(self, path, q, base, ds):
        """Source for the value ``base + Σ ds[l]·t_l`` read at depth q of ``path`` (in its
        loop's body, at the item holding the reader)."""
        while q and ds[q - 1] == 0:
            q -= 1
        made = self.made
        if q == 0:
            m = made.get(base)
            if m is None:
                return f"V_[{base}]" if base in self.tabled else f"v{base}"
            if path and self.anc[m[0]][0] is path[0][0]:
                raise _Fail()               # one iteration's value, read by every iteration
            return self._element(*m)
        loops = [step[0] for step in path[:q]]
        unit = [tuple(int(m == l) for m in range(q)) for l in range(q)]
        zero = (0,) * q

        def at(t):
            return made.get(base + sum(d * x for d, x in zip(ds, t)))
        here, k_here = path[q - 1][0], path[q - 1][1]
        m0 = at(zero)
        if m0 is not None and m0[0] is here and m0[2] == zero and m0[1] < k_here and all(
                at(e) == (here, m0[1], e) for e in unit):
            return local(q, m0[1])                   # made earlier in this iteration
        m1 = at(unit[-1])
        if m1 is not None and self._carried(m1, here, q, at, unit, m0):
            init = self._spell(path, q - 1, base, ds)     # carried: the previous iteration's
            maker, slot, u1 = m1                          # value, the first time one before
            if maker is here:
                update = local(q, slot)
            else:                                         # (made in a loop inside)
                apart = strides(self.anc[maker])
                self.kept.add((maker, slot))
                inner = sum(st * u for st, u in zip(apart[q:], u1[q:]))
                update = f"s{self.ident[maker]}_{slot}[{flat(inner, apart[:q], loops)}]"
            names = self.carries.setdefault(here, {})
            key = (update, init)
            if key not in names:
                names[key] = f"c{self.ident[here]}_{len(names)}"
            return names[key]
        corners = list(itertools.product(*[(0, L.reps - 1) for L in loops]))
        refs = [base + sum(d * x for d, x in zip(ds, c)) for c in corners]
        if all(0 <= r < self.n_inputs for r in refs):
            return f"values[{flat(base, ds[:q], loops)}]"
        return self._listed(path, q, loops, unit, corners, at, m0)

    def _carried(self, m1, here, q, at, unit, m0):
        """Whether the value read is one the previous iteration of loop ``here`` made (in its
        body, or in a loop inside it), from its second iteration on: ``m1`` made it for the
        second, in the first."""
        maker, slot, u1 = m1
        anc = self.anc[maker]
        if len(anc) < q or anc[q - 1] is not here or any(u1[:q]) or (
                m0 is not None and m0[:2] == m1[:2]):
            return False

        def moved(e):
            return u1[:q - 1] + (u1[q - 1] + 1,) + u1[q:] if e is None else \
                tuple(a + b for a, b in zip(e, u1[:q])) + u1[q:]
        twice = tuple(2 * x for x in unit[-1])
        return at(twice) == (maker, slot, moved(None)) and all(
            at(tuple(a + b for a, b in zip(e, unit[-1]))) == (maker, slot, moved(e))
            for e in unit[:-1])

    def _listed(self, path, q, loops, unit, corners, at, m0):
        """A value of another iteration or loop: an item of its slot's list."""
        first = _Fail()                     # (only some loop's first iterations?)
        for l in range(q - 1, -1, -1):
            n = loops[l].reps
            m1 = at(tuple((n - 2) * x for x in unit[l]))
            m2 = at(tuple((n - 1) * x for x in unit[l]))
            if m1 is not None and m2 is not None and m1[:2] == m2[:2] and (
                    m0 is None or m0[:2] != m1[:2]):
                first = _Fail(("first", loops[l]))
                break
        if m0 is None:
            raise first
        maker, slot, u0 = m0
        us = [at(e) for e in unit]
        if any(m is None or m[0] is not maker or m[1] != slot for m in us):
            raise first
        coef = [tuple(a - b for a, b in zip(m[2], u0)) for m in us]
        for c in corners:
            u = tuple(u0[j] + sum(c[l] * coef[l][j] for l in range(q)) for j in range(len(u0)))
            if at(c) != (maker, slot, u):     # (some loop's last iterations read elsewhere)
                last = [l for l in range(q) if c[l]]
                raise _Fail(("last", loops[last[-1]]) if last else None)
        anc, mine = self.anc[maker], loops
        a = 0
        while a < min(len(anc), len(mine)) and anc[a] is mine[a]:
            a += 1
        for j in range(a):                  # the loops both are in: the maker's iteration no
            if any(coef[l][j] != (l == j) for l in range(q)) or u0[j] > 0:     # later
                raise _Fail()
        if a and not any(u0[:a]):           # the same iterations: the maker's item first
            where = (self.idx[maker] + [slot])[a - 1]
            if not where < path[a - 1][1]:
                raise _Fail()
        apart = strides(self.anc[maker])
        flat0 = sum(s * u for s, u in zip(apart, u0))
        coefs = [sum(s * coef[l][j] for j, s in enumerate(apart)) for l in range(q)]
        self.kept.add((maker, slot))
        return f"s{self.ident[maker]}_{slot}[{flat(flat0, coefs, loops)}]"

    def _element(self, maker, slot, u):
        """The value of slot ``slot`` that loop ``maker`` made in iteration ``u``, read after
        its root loop: the last one is what its local holds when the loop ends, kept in a name
        of its own (``l…``) without a list."""
        if all(x == L.reps - 1 for x, L in zip(u, self.anc[maker])):
            self.lasts.add((maker, slot))
            return f"l{self.ident[maker]}_{slot}"
        self.kept.add((maker, slot))
        index = sum(s * x for s, x in zip(strides(self.anc[maker]), u))
        return f"s{self.ident[maker]}_{slot}[{index}]"

    def _outside(self, a, names):
        """How code after the loops spells a value (F's result; an argument from V_ if any)."""
        if not isinstance(a, Traced):
            return names.const(a)
        return f"V_[{a.ref}]" if self.tables and a.ref < self.n_inputs else \
            self._spell([], 0, a.ref, ())

    # ---- when a loop cannot be spelled ------------------------------------------------------

    def _demote(self, top, failed, tries):
        """``top`` with each failed loop, or a loop inside it, losing its first or last
        iteration to straight code (``PEELS`` at most at each end); else the loop opened into
        the items it was rolled from."""
        lv, out = self.lv, []
        for root in top:
            hint = failed.get(root, 0)
            if hint == 0:
                out.append(root)
                continue
            if hint is not None:
                end, loop = hint
                key = (end, loop.end if end == "first" else loop.start)
                tries[key] = tries.get(key, 0) + 1
                if tries[key] > PEELS or loop.reshaped:
                    hint = None
            if hint is None:
                out += lv.below(root.level - 1, root.start, root.end)
                continue
            pieces = lv.peel(loop, end)
            if loop is root:
                for piece in pieces:
                    out += piece if type(piece) is list else [piece]
            else:
                out.append(lv.inside(loop, pieces, self.anc[loop], self.idx[loop]))
        return out

    # ---- the source -------------------------------------------------------------------------

    def _emit(self, top):
        lines = []
        for loop, slot in sorted(self.kept, key=lambda k: (self.ident[k[0]], k[1])):
            size = 1
            for L in self.anc[loop]:
                size *= L.reps
            lines.append(f"    s{self.ident[loop]}_{slot} = [None] * {size}")
        lines += v_list(self.tables, self.n_inputs)
        skip = 0
        for k, it in enumerate(top):
            if k in self.tables:
                skip, table = self.tables[k]
                lines += emit(table, lambda r: self._spell([], 0, r, ()), self.names,
                              self.statements, "    ")
            if k < skip:
                continue
            if type(it) is Loop:
                lines += self._loop(it, 1)
                continue
            spelled = [self.spelled[(it, i)] for i in range(len(self._reads(it)))]
            lines += self.statements([self.ops[it]], self.names,
                                     ref=reader(spelled, None))
        return lines

    def _loop(self, loop, depth):
        pad = "    " * depth
        lines = [f"{pad}{name} = {init}" for (_, init), name in
                 self.carries.get(loop, {}).items()]
        n, outer = loop.reps, counter(depth - 1)
        lines.append(f"{pad}for {counter(depth)} in range({n}):" if depth == 1 else
                     f"{pad}for {counter(depth)} in range({n} * {outer}, {n} * {outer} + {n}):")
        head, reads = shared([None if type(it) is Loop else [
            self.spelled[(it, i)] for i in range(len(self._reads(it)))] for it in loop.body],
            depth, pad + "    ")
        lines += head
        for k, it in enumerate(loop.body):
            if type(it) is Loop:
                lines += self._loop(it, depth + 1)
                continue
            before, spelled = reads[k]
            lines += before
            lines += self.statements([self.ops[it]], self.names,
                                     ref=reader(spelled, constants(
                                         self.ops, it, self.path.get(it), self.names)),
                                     target=lambda r, k=k: local(depth, k), indent=pad + "    ")
            if (loop, k) in self.kept:
                lines.append(f"{pad}    s{self.ident[loop]}_{k}[{counter(depth)}] = "
                             f"{local(depth, k)}")
        lines += [f"{pad}    {name} = {update}"
                  for (update, _), name in self.carries.get(loop, {}).items()]
        return lines + [f"{pad}l{self.ident[loop]}_{k} = {local(depth, k)}"
                        for k in range(len(loop.body)) if (loop, k) in self.lasts]
