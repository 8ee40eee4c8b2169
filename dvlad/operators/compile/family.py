"""Which values of a trace may share memory, and which a write may change (for the replay's
code: :mod:`.codegen` leaves out writes nothing reads, and never takes a written value as
known)."""


class Family:
    """Which values of a trace may share memory: each value's roots (the arrays it may be a view
    of, made by the trace or given to it), so that a write into arrays only the trace made,
    which nothing reads afterwards, can be left out of the replay (``first``: the number of
    the trace's inputs, values 0 .. first − 1)."""

    def __init__(self, trace, first):
        self.parents, self.writes, self.first = trace.parents, trace.writes, first
        self._roots = {}

    def roots(self, ref):
        got = self._roots.get(ref)
        if got is not None:
            return got
        stack, order = [ref], []
        while stack:                        # (iteratively: a view of a view of ... is long)
            r = stack.pop()
            if r in self._roots:
                continue
            order.append(r)
            stack.extend(p for p in self.parents.get(r, ()) if p not in self._roots)
        for r in reversed(order):           # parents before their views
            ps = self.parents.get(r)
            self._roots[r] = frozenset([r]) if not ps else frozenset().union(
                *(self._roots.get(p) or self.roots(p) for p in ps))
        return self._roots[ref]

    def unread(self, op, seen):
        """Whether op writes only into arrays the trace made whose roots nothing reads
        afterwards (``seen``: the roots of the values read after op)."""
        target = self.writes.get(op)
        if target is None:
            return False
        roots = self.roots(target)
        return all(r >= self.first for r in roots) and roots.isdisjoint(seen)


def written(trace):
    """The values a write may change: each array written into, and whatever it may be a view
    of or may have views in (they share memory)."""
    children = {}
    for r, ps in trace.parents.items():
        for p in ps:
            children.setdefault(p, []).append(r)
    dirty, stack = set(), list(trace.writes.values())
    while stack:
        r = stack.pop()
        if r not in dirty:
            dirty.add(r)
            stack.extend(trace.parents.get(r, ()))
            stack.extend(children.get(r, ()))
    return dirty
