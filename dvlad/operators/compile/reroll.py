"""Long runs of a repeated block of a trace, rolled back into a Python loop (see codegen).

A loop of F leaves its body in the trace once per iteration, and the reverse sweep its partials
once per iteration again, backwards.  Two copies of a block are the same computation when
their operations agree (function, constants, guards' answers) and each value they read or make
is a fixed distance further on in the trace: value ``r₀ + d·t`` in iteration t.  A run of at
least ``MIN_REPS`` such copies covering ``MIN_OPS`` operations becomes ``for t in range(n):``.

Inside a rolled loop, a value made and read in the same iteration is a local (``w3``); a value
read from elsewhere (a later iteration, a later loop, the code after it) is kept in a list of
its own, one per slot of the block (``s12_3[t]``); an argument's float is read from
``values[r₀ + d·t]``.  A run whose values cannot be spelled so (it reads a varying value made
by straight-line code) stays straight.
"""

from .traced import Traced

MIN_REPS, MIN_OPS, MAX_PERIOD, TRIES, MULTIPLES = 4, 48, 600, 6, 16


def _signature(op):
    kind = op[0]
    args = op[4] if kind == "op" else op[3]
    if kind == "op":            # an op's constants may change from one iteration to the next
        return (kind, op[3], tuple(None if isinstance(a, Traced) else type(a) for a in args))
    consts = tuple(None if isinstance(a, Traced) else (type(a), a) if _hashable(a)
                   else (type(a), id(a)) for a in args)
    if kind == "op":
        return (kind, op[3], consts)
    return (kind, op[2], consts, type(op[4]), op[4] if kind == "guard" else None)


def _hashable(a):
    try:
        hash(a)
    except TypeError:
        return False
    return True


def _refs(op):
    """The values an op makes and reads, in a fixed order (made first, for an op)."""
    kind = op[0]
    args = op[4] if kind == "op" else op[3]
    reads = [a.ref for a in args if isinstance(a, Traced)]
    return ([op[1]] if kind == "op" else []) + reads


def _consts(op):
    return tuple(a for a in op[4] if not isinstance(a, Traced)) if op[0] == "op" else ()


def _steps(refs, a, b, p):
    """The distance of each value of block b's ops from block a's (None: they differ in kind)."""
    out = []
    for j in range(p):
        ra, rb = refs[a + j], refs[b + j]
        if len(ra) != len(rb):
            return None
        out.append(tuple([y - x for x, y in zip(ra, rb)]))
    return out


def _spelled_consts(ops, start, p, reps, j, names):
    """How a rolled op spells its m-th constant: the constant, where every iteration has the
    same; ``(i0 + d·t)`` for integers stepping evenly (``a[i]``); else the t-th of a list."""
    each = [_consts(ops[start + j + p * t][1]) for t in range(reps)]
    out = []
    for m, c0 in enumerate(each[0]):
        cs = [c[m] for c in each]
        if all(c is c0 for c in cs) or (_hashable(c0) and all(
                type(c) is type(c0) and _same_const(c, c0) for c in cs)):
            out.append(names.const(c0))
        elif type(c0) is int and all(type(c) is int for c in cs) and all(
                cs[t] - cs[t - 1] == cs[1] - cs[0] for t in range(2, reps)):
            out.append(f"({_affine(c0, cs[1] - c0)})")
        else:
            out.append(f"{names.bind(cs, 'each')}[t]")
    return out


def _same_const(a, b):
    try:
        return bool(a == b) and repr(a) == repr(b)      # (−0.0 is not 0.0; nan is nan)
    except Exception:
        return False


def _runs(ops):
    """Segments: ("line", position) or ("loop", start, period, reps, steps).

    Candidate periods come from the next few positions holding the same kind of op; for each
    period, how far the ops keep matching that far back is remembered (``reach``), so a run is
    measured once, not again from each of its positions."""
    ids = {}
    sigs = [ids.setdefault(_signature(op), len(ids)) for _, op in ops]
    refs = [_refs(op) for _, op in ops]
    n = len(ops)
    nxt, last = [[] for _ in range(n)], {}
    for pos in range(n - 1, -1, -1):               # the next few positions with the same op
        lst = last.setdefault(sigs[pos], [])
        nxt[pos] = [q for q in lst[-1:-TRIES - 1:-1] if q - pos <= MAX_PERIOD]
        lst.append(pos)
    reach = {}                                     # period -> (from, to): sigs match p back
    out, pos = [], 0
    while pos < n:
        best = None
        for p in _periods(pos, nxt[pos] if n - pos >= MIN_OPS else (), sigs, refs, reach):
            end = reach[p][1]
            reps = (end - pos) // p + 1
            if reps < MIN_REPS or p * reps < MIN_OPS or (best and p * reps <= best[0] * best[1]):
                continue
            steps = _steps(refs, pos, pos + p, p)
            good = 1 if steps is None else 2
            while steps is not None and good < reps and \
                    _steps(refs, pos + (good - 1) * p, pos + good * p, p) == steps:
                good += 1
            if good >= MIN_REPS and p * good >= MIN_OPS and (
                    best is None or p * good > best[0] * best[1]):
                best = (p, good, steps)
        if best is None:
            out.append(("line", pos))
            pos += 1
        else:
            p, reps, steps = best
            out.append(("loop", pos, p, reps, steps))
            pos += p * reps
    return out, refs


def _periods(pos, nexts, sigs, refs, reach):
    """The periods worth measuring at ``pos``: the distances to the next positions holding the
    same op, and their multiples up to ``MULTIPLES`` whose first op reads and makes values a
    fixed distance on in two blocks running (a reverse sweep repeats every iteration, but the
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
            if all(b - a == c - b for a, b, c in zip(r0, r1, r2)):
                seen.add(big)
                start, known = reach.get(big, (-1, -1))
                if not start <= pos < known:        # (sigs repeat every p, so every k·p)
                    reach[big] = (pos, end + p - big)
                yield big


def _plain(a, names):
    return f"v{a.ref}" if isinstance(a, Traced) else names.const(a)


def roll(ops, names, statements, n_inputs, outputs=()):
    """(lines, ref): source lines for ``ops`` (pairs (index, op)), long repeated runs rolled
    into loops; ``ref`` spells a value for code after them (F's result, reading ``outputs``)."""
    if len(ops) < MIN_OPS:
        return statements(ops, names), _plain
    ops, moved = _dense(ops, n_inputs)
    outputs = [moved(Traced(None, None, r)).ref for r in outputs]
    lines, spell = _roll(ops, names, statements, n_inputs, outputs)
    return lines, lambda a, names: spell(moved(a), names)


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


def _roll(ops, names, statements, n_inputs, outputs):
    segments, refs = _runs(ops)
    if not any(s[0] == "loop" for s in segments):
        return statements(ops, names), _plain
    shrunk = {}
    while True:
        made = _made(segments, ops)
        spell = {}                # (segment, slot, n-th value read) -> its source in the loop
        failed = {}
        for k, seg in enumerate(segments):
            if seg[0] == "loop":
                why = _plan(k, seg, segments, ops, refs, made, spell, n_inputs)
                if why is not True:
                    failed[k] = why
        if not failed:
            break
        new = []
        for k, seg in enumerate(segments):
            if k not in failed:
                new.append(seg)
                continue
            _, start, p, reps, steps = seg        # its first or last iterations straight (they
            end = start + p * reps                # read what straight code made)?
            key = ("first", end) if failed[k] == "first" else ("last", start)
            tries = shrunk[key] = shrunk.get(key, 0) + 1
            if tries > 2 or reps - 1 < MIN_REPS or p * (reps - 1) < MIN_OPS:
                new.append(("straight",) + seg[1:])
            elif key[0] == "first":
                new += [("straight", start, p, 1, steps), ("loop", start + p, p, reps - 1, steps)]
            else:
                new += [("loop", start, p, reps - 1, steps),
                        ("straight", start + p * (reps - 1), p, 1, steps)]
        segments = new
    kept = set()                  # (segment, slot) whose values are read outside their iteration
    for k, seg in enumerate(segments):
        if seg[0] == "loop":
            kept.update((src, slot) for src, slot in spell.pop(("kept", k), ()))
            continue
        positions = [seg[1]] if seg[0] == "line" else range(seg[1], seg[1] + seg[2] * seg[3])
        for pos in positions:                      # straight-line code reading rolled values
            for r in refs[pos][1 if ops[pos][1][0] == "op" else 0:]:
                m = made.get(r)
                if m is not None and m[0] == "loop" and segments[m[1]][0] == "loop":
                    kept.add((m[1], m[2]))
    for r in outputs:
        m = made.get(r)
        if m is not None and m[0] == "loop" and segments[m[1]][0] == "loop":
            kept.add((m[1], m[2]))
    outside = _outside(made, segments)
    lines = []
    for k, seg in enumerate(segments):
        if seg[0] == "line":
            lines += statements([ops[seg[1]]], names, ref=outside)
        elif seg[0] == "straight":
            _, start, p, reps, _ = seg
            lines += statements(ops[start:start + p * reps], names, ref=outside)
        else:
            lines += _loop(k, seg, ops, refs, names, statements, kept, spell, outside)
    return [f"    s{k}_{j} = [None] * {segments[k][3]}" for k, j in sorted(kept)] + lines, outside


def _made(segments, ops):
    """ref -> ("line",) | ("loop", segment number, slot, t): where each value is made."""
    made = {}
    for k, seg in enumerate(segments):
        if seg[0] == "line":
            op = ops[seg[1]][1]
            if op[0] == "op":
                made[op[1]] = ("line",)
        elif seg[0] == "loop":
            _, start, p, reps, steps = seg
            for j in range(p):
                op = ops[start + j][1]
                if op[0] == "op":
                    for t in range(reps):
                        made[op[1] + steps[j][0] * t] = ("loop", k, j, t)
    return made


def _outside(made, segments):
    """How straight-line code spells a value: a local, or a rolled loop's list item."""
    def ref(a, names):
        if not isinstance(a, Traced):
            return names.const(a)
        m = made.get(a.ref)
        if m is not None and m[0] == "loop" and segments[m[1]][0] == "loop":
            return f"s{m[1]}_{m[2]}[{m[3]}]"
        return f"v{a.ref}"
    return ref


def _plan(k, seg, segments, ops, refs, made, spell, n_inputs):
    """How loop k spells each value it reads: True, else why one cannot be spelled ("first":
    its first iteration reads what straight code made; False: something else)."""
    _, start, p, reps, steps = seg
    kept = spell.setdefault(("kept", k), [])
    for j in range(p):
        op = ops[start + j][1]
        first = 1 if op[0] == "op" else 0
        for i, (r0, d) in enumerate(zip(refs[start + j][first:], steps[j][first:])):
            m0 = made.get(r0)
            if d == 0:
                if m0 is not None and m0[0] == "loop":
                    if segments[m0[1]][0] != "loop" or m0[1] == k:
                        return False
                    spell[(k, j, i)] = f"s{m0[1]}_{m0[2]}[{m0[3]}]"
                    kept.append((m0[1], m0[2]))
                else:
                    spell[(k, j, i)] = f"v{r0}"
                continue
            if 0 <= r0 < n_inputs and 0 <= r0 + d * (reps - 1) < n_inputs:
                spell[(k, j, i)] = f"values[{_affine(r0, d)}]"
                continue
            m1 = made.get(r0 + d)
            if m1 is not None and m1[0] == "loop" and m1[1] == k and m1[3] == 0 and \
                    (m0 is None or m0[1:2] != (k,)) and made.get(r0 + 2 * d) == ("loop", k, m1[2], 1):
                # carried: the previous iteration's value, the first time a value from before
                name = f"c{j}_{i}"
                spell[(k, j, i)] = name
                spell.setdefault(("carry", k), []).append((name, r0, m1[2]))
                if m0 is not None and m0[0] == "loop":
                    if segments[m0[1]][0] != "loop":
                        return False
                    kept.append((m0[1], m0[2]))
                continue
            if m0 is None or m1 is None or m0[0] != "loop" or m1[0] != "loop" or \
                    m0[1] != m1[1] or m0[2] != m1[2] or segments[m0[1]][0] != "loop":
                m2 = made.get(r0 + 2 * d)
                if m1 is not None and m2 is not None and m1[0] == m2[0] == "loop" and \
                        m1[1:3] == m2[1:3] and segments[m1[1]][0] == "loop":
                    return "first"  # its first iteration reads what straight code made
                return False
            src, slot, dt = m0[1], m0[2], m1[3] - m0[3]
            if made.get(r0 + d * (reps - 1)) != ("loop", src, slot, m0[3] + dt * (reps - 1)):
                return False        # its last iteration reads a value from elsewhere
            if src == k and m0[3] == 0 and dt == 1 and slot < j:
                spell[(k, j, i)] = f"w{slot}"               # made earlier in this iteration
                continue
            spell[(k, j, i)] = f"s{src}_{slot}[{_affine(m0[3], dt)}]"
            kept.append((src, slot))
    return True


def _affine(a, b):
    if b == 0:
        return str(a)
    term = "t" if abs(b) == 1 else f"{abs(b)} * t"
    if a == 0:
        return term if b > 0 else f"-{term}"
    return f"{a} + {term}" if b > 0 else f"{a} - {term}"


def _loop(k, seg, ops, refs, names, statements, kept, spell, outside):
    _, start, p, reps, steps = seg
    lines = []
    carried = spell.get(("carry", k), [])
    for name, r0, _ in carried:
        lines.append(f"    {name} = {outside(Traced(None, None, r0), names)}")
    lines.append(f"    for t in range({reps}):")
    for j in range(p):
        index, op = ops[start + j]
        reads = len(refs[start + j]) - (1 if op[0] == "op" else 0)
        seen, counted = [], []
        consts = _spelled_consts(ops, start, p, reps, j, names) if op[0] == "op" else ()

        def ref(a, names, j=j, seen=seen, reads=reads, counted=counted, consts=consts):
            if not isinstance(a, Traced):
                if not consts:
                    return names.const(a)
                m = len(counted) % len(consts)
                counted.append(a)
                return consts[m]
            i = len(seen) % reads
            seen.append(a)
            return spell[(k, j, i)]
        lines += statements([(index, op)], names, ref=ref, target=lambda r, j=j: f"w{j}",
                            indent="        ")
        if (k, j) in kept:
            lines.append(f"        s{k}_{j}[t] = w{j}")
    lines += [f"        {name} = w{slot}" for name, _, slot in carried]
    return lines
