"""The loops of a trace, found again: runs of a repeated block, and runs of those (see reroll).

A loop of F leaves its body in the trace once per iteration, and the reverse sweep its partials
once per iteration again, backwards.  Two copies of a block are the same computation when
their items agree (an op's function, constants and guards' answers; a loop's body, trip count
and steps) and each value they read or make is a fixed distance further on in the trace: value
``r₀ + d·t`` in iteration t.  A run of at least ``MIN_REPS`` such copies covering ``MIN_OPS``
operations becomes a :class:`Loop`.  Loops are found level by level: first in the ops, then in
the sequence of ops and loops found, so a loop around loops is a loop of loops.
"""

from .traced import Traced

MIN_REPS, MIN_OPS, MAX_PERIOD, TRIES, MULTIPLES, LEVELS, WINDOW = 4, 48, 600, 6, 16, 4, 8


class Loop:
    """``reps`` iterations of ``body`` (the items of the first: op positions, or loops), ops
    ``start`` to ``end`` of the trace, ``span`` ops each; ``steps[k]``: how far on each value of
    item k is one iteration later (in the order of ``refs[k]``, the values an item makes and
    reads in the first iteration)."""

    __slots__ = ("start", "end", "span", "body", "reps", "steps", "refs", "refs_flat", "weight",
                 "sig", "level", "reshaped")

    def __init__(self, body, reps, steps, refs, weight, sig, level, start, end):
        self.body, self.reps, self.steps, self.refs = body, reps, steps, refs
        self.weight, self.sig, self.level, self.start, self.end = weight, sig, level, start, end
        self.span = (end - start) // reps
        self.reshaped = False   # (its body is no longer one iteration's items of the level below)


def signature(op):
    kind = op[0]
    args = op[4] if kind == "op" else op[3]
    if kind == "op":            # an op's constants may change from one iteration to the next
        return (kind, op[3], tuple(None if isinstance(a, Traced) else type(a) for a in args))
    consts = tuple(None if isinstance(a, Traced) else (type(a), a) if hashable(a)
                   else (type(a), id(a)) for a in args)
    return (kind, op[2], consts, type(op[4]), op[4] if kind == "guard" else None)


def hashable(a):
    try:
        hash(a)
    except TypeError:
        return False
    return True


def op_refs(op):
    """The values an op makes and reads, in a fixed order (made first, for an op)."""
    kind = op[0]
    args = op[4] if kind == "op" else op[3]
    reads = [a.ref for a in args if isinstance(a, Traced)]
    return ([op[1]] if kind == "op" else []) + reads


class Levels:
    """The loops of ``ops`` (pairs (index, op)), level by level: ``levels[0]`` the op
    positions, ``levels[L]`` the items after rolling level L − 1's; ``refs[pos]`` each op's
    values."""

    def __init__(self, ops, nested=True):
        self.ops, self.nested = ops, nested
        self.refs = [op_refs(op) for _, op in ops]
        self.ids = {}
        self.sig_of = [self.ids.setdefault(signature(op), len(self.ids)) for _, op in ops]
        self.levels = [list(range(len(ops)))]
        self.where = [None]
        for level in range(1, LEVELS + 1 if nested else 2):
            items = self._roll(self.levels[-1], level)
            if items is None:
                break
            self.levels.append(items)
            self.where.append(None)

    def top(self):
        return list(self.levels[-1])

    def item_refs(self, item):
        return self.refs[item] if type(item) is int else item.refs_flat

    def sig(self, item):
        return self.sig_of[item] if type(item) is int else item.sig

    @staticmethod
    def weight(item):
        return 1 if type(item) is int else item.weight

    @staticmethod
    def start(item):
        return item if type(item) is int else item.start

    @staticmethod
    def end(item):
        return item + 1 if type(item) is int else item.end

    def below(self, level, start, end):
        """The items of ``level`` covering ops ``start`` to ``end``."""
        if level == 0:
            return list(range(start, end))
        where = self.where[level]
        if where is None:
            where = self.where[level] = {self.start(it): k for k, it in enumerate(
                self.levels[level])}
        k, out = where[start], []
        items = self.levels[level]
        while k < len(items) and self.start(items[k]) < end:
            out.append(items[k])
            k += 1
        return out

    def make(self, body, reps, steps, level):
        """A loop of ``reps`` iterations of ``body`` (the first's items)."""
        refs = [self.item_refs(it) for it in body]
        key = ("loop", reps, tuple(self.sig(it) for it in body), tuple(steps))
        start, span = self.start(body[0]), self.end(body[-1]) - self.start(body[0])
        loop = Loop(body, reps, steps, refs, reps * sum(map(self.weight, body)),
                    self.ids.setdefault(key, len(self.ids)), level, start, start + span * reps)
        loop.refs_flat = [r for rs in refs for r in rs]
        return loop

    def peel(self, loop, end):
        """``loop`` as pieces: loops, and lists of one iteration's items (all iterations, when
        one fewer would be too few)."""
        below, span, fewer = loop.level - 1, loop.span, loop.reps - 1
        if fewer < MIN_REPS or loop.weight // loop.reps * fewer < MIN_OPS:
            return [self.below(below, loop.start + t * span, loop.start + (t + 1) * span)
                    for t in range(loop.reps)]
        if end == "first":
            body = self.below(below, loop.start + span, loop.start + 2 * span)
            return [self.below(below, loop.start, loop.start + span),
                    self.make(body, fewer, loop.steps, loop.level)]
        return [self.make(loop.body, fewer, loop.steps, loop.level),
                self.below(below, loop.end - span, loop.end)]

    def inside(self, loop, pieces, anc, idx):
        """The root of ``loop`` (``anc``: the loops from the root down to it, ``idx``: the
        index of each in the body of the one before) with the loop replaced by ``pieces``.
        Every iteration of a loop is one step from the last, so each piece's values step, in
        the loops around, as the loop's first iteration's do: their steps are the loop's,
        repeated."""
        size = len(loop.refs_flat)
        parent, k = anc[-2], idx[-1]
        chunk = parent.steps[k]
        items, steps = [], []
        for piece in pieces:
            if type(piece) is list:
                at = 0
                for it in piece:
                    n = len(self.item_refs(it))
                    items.append(it)
                    steps.append(chunk[at:at + n])
                    at += n
            else:
                items.append(piece)
                steps.append(chunk)
        new = self.make(parent.body[:k] + items + parent.body[k + 1:], parent.reps,
                        parent.steps[:k] + steps + parent.steps[k + 1:], parent.level)
        off = sum(len(r) for r in parent.refs[:k])      # the loop's values within the parent's
        for level in range(len(anc) - 3, -1, -1):
            up, k = anc[level], idx[level]
            steps = [t[:off] + t[off:off + size] * len(pieces) + t[off + size:]
                     if j == k else t for j, t in enumerate(up.steps)]
            off += sum(len(r) for r in up.refs[:k])
            new.reshaped = True
            new = self.make(up.body[:k] + [new] + up.body[k + 1:], up.reps, steps, up.level)
        new.reshaped = True
        return new

    def _roll(self, items, level):
        """``items`` with their runs rolled into loops; None if there are none."""
        sigs = [self.sig(it) for it in items]
        refs = [self.item_refs(it) for it in items]
        weights = [self.weight(it) for it in items]
        runs = _runs(sigs, refs, weights, self.nested)
        if not runs:
            return None
        out, pos = [], 0
        for start, p, reps, steps in runs:
            out += items[pos:start]
            out.append(self.make(items[start:start + p], reps, steps, level))
            pos = start + p * reps
        return out + items[pos:]


def _steps(refs, a, b, p):
    """The distance of each value of block b's items from block a's (None: they differ in
    kind)."""
    out = []
    for j in range(p):
        ra, rb = refs[a + j], refs[b + j]
        if len(ra) != len(rb):
            return None
        out.append(tuple([y - x for x, y in zip(ra, rb)]))
    return out


def _runs(sigs, refs, weights, nested=True):
    """[(start, period, reps, steps)]: the runs of repeated blocks, left to right.

    Candidate periods come from the next few positions holding the same kind of item, or the
    same ``WINDOW`` items running, and their multiples (:func:`_periods`); for each period, how
    far the items keep matching that far back is remembered (``reach``), so a run is measured
    once, not again from each of its positions.
    At a position, the shortest period that rolls is taken, and a loop starting inside its
    first block before it: a loop inside a loop is found first, and the loop around it at the
    next level (``nested``; else the period covering most, at one level)."""
    n = len(sigs)
    # the next few positions with the same item, and those with the same WINDOW items: a
    # sweep's block holds many ops of one kind, so its length is seldom among the first few
    # distances to the same op
    nxt, last, runs_of = [[] for _ in range(n)], {}, {}
    for pos in range(n - 1, -1, -1):
        lst = last.setdefault(sigs[pos], [])
        got = lst[-1:-TRIES - 1:-1]
        if n - pos > WINDOW:
            more = runs_of.setdefault(tuple(sigs[pos:pos + WINDOW]), [])
            got = sorted(set(got).union(more[-1:-TRIES - 1:-1]))
            more.append(pos)
        nxt[pos] = [q for q in got if q - pos <= MAX_PERIOD]
        lst.append(pos)
    total = [0]
    for w in weights:
        total.append(total[-1] + w)
    reach, evens = {}, {}

    def step(j, p):
        a, b = refs[j], refs[j + p]
        return tuple([y - x for x, y in zip(a, b)]) if len(a) == len(b) else None

    def even(pos, p, need):
        """How far from ``pos`` (looking no further than ``need``) each item's values step as
        the item's a period before did: the blocks from pos on step alike until a period
        before that."""
        start, end, done = evens.get(p, (-1, -1, True))
        if not start <= pos <= end:
            start, end, done = pos, pos, False
        while not done and end < need:
            if end + 2 * p >= n:
                done = True
                break
            s = step(end, p)
            if s is None or s != step(end + p, p):
                done = True
                break
            end += 1
        evens[p] = (start, end, done)
        return end

    def best(pos, most, by=n):
        """The shortest period up to ``most`` that rolls at ``pos``, ending by ``by``
        (``nested``; else the one covering most): (period, reps, steps)."""
        nexts = nxt[pos] if total[n] - total[pos] >= MIN_OPS else ()
        found, most_covered = None, 0
        for p in sorted(_periods(pos, nexts, sigs, refs, reach)):
            if p > most:
                break
            reps = min((reach[p][1] - pos) // p + 1, (by - pos) // p)
            block = total[pos + p] - total[pos]
            if reps < MIN_REPS or block * reps < MIN_OPS:
                continue
            if block * reps <= most_covered:
                continue                            # (covers no more than one found)
            steps = _steps(refs, pos, pos + p, p)
            good = 1 if steps is None else min(
                reps, (even(pos, p, pos + (reps - 2) * p) - pos) // p + 2)
            if good >= MIN_REPS and block * good >= MIN_OPS and block * good > most_covered:
                found, most_covered = (p, good, steps), block * good
                if nested:
                    break
        return found

    out, pos = [], 0
    while pos < n:
        found = best(pos, MAX_PERIOD)
        if found is None:
            pos += 1
            continue
        p = found[0]
        for inner in range(pos + 1, pos + p) if nested else ():  # a loop inside its first
            got = best(inner, p // MIN_REPS, pos + p)   # block first (the loop around it:
            if got is not None:                         # at the next level)
                pos, found = inner, got
                break
        p, reps, steps = found
        out.append((pos, p, reps, steps))
        pos += p * reps
    return out


def _periods(pos, nexts, sigs, refs, reach):
    """The periods worth measuring at ``pos``: the distances to the next positions holding the
    same item, and their multiples up to ``MULTIPLES`` whose first item reads and makes values
    a fixed distance on in two blocks running (a reverse sweep repeats every iteration, but the
    lists it reads may repeat every few: a loop rolled with its body several iterations long)."""
    n, seen = len(sigs), set()
    for q in nexts:
        p = q - pos
        start, end = reach.get(p, (-1, -1))
        if not start <= pos < end:
            end = pos
            while end + p < n and sigs[end] == sigs[end + p]:
                end += 1
            reach[p] = (pos, end)
        if p not in seen:
            seen.add(p)
            yield p
        r0 = refs[pos]
        for k in range(2, MULTIPLES + 1):
            big = k * p
            if big > MAX_PERIOD or end - pos < big * (MIN_REPS - 1):
                break
            if big in seen:
                continue
            r1, r2 = refs[pos + big], refs[pos + 2 * big]
            if len(r0) == len(r1) == len(r2) and all(
                    b - a == c - b for a, b, c in zip(r0, r1, r2)):
                seen.add(big)
                start, known = reach.get(big, (-1, -1))
                if not start <= pos < known:        # (items repeat every p, so every k·p)
                    reach[big] = (pos, end + p - big)
                yield big
