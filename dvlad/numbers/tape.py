"""Reverse mode: the tape cell (tag, primal, partials), and what a partial can be.

Each ``gradient_r``/``vjp`` call makes a tag and a tape: a list of its cells in creation order,
which is already a topological order (:mod:`dvlad.sweep` walks it backwards).  A cell's
``links`` alternate input cell and partial: ``(a, ∂r/∂a, b, ∂r/∂b)``; inputs are cells of the
same tag (constants are not linked at all).  A partial is a number, or a :class:`LinearMap` (a
Jacobian block that is not a number, for array primitives), or a cell has one
:class:`MultiLink` that pulls all its inputs back at once (fixed points, vector primitives).
"""
import gc
import os
import threading

import numpy as np

from ..core import pool
from ..core.lift import one_level_down
from ..core.number import ADNumber
from ..core.tags import REVERSE


class TapeCell(ADNumber):
    """A value recorded on the tape of the reverse perturbation ``tag``."""

    # No __init__, for speed (as Bundle): cells are made by make_cell or inline in dvlad.ops.
    __slots__ = ("tag", "primal", "links", "index")

    def __repr__(self):
        parts = ", ".join(f"#{a.index}: {d!r}" for a, d in link_pairs(self.links))
        return f"TapeCell({self.tag!r}#{self.index}, {self.primal!r}, partials={{{parts}}})"


def link_pairs(links):
    """(input cell, partial) for each link; a MultiLink stands as the partial of its inputs."""
    if len(links) == 1:
        return [(a, links[0]) for a in links[0].inputs()]
    return [(links[k], links[k + 1]) for k in range(0, len(links), 2)]


class Node:
    """What the tape keeps of a cell whose value is an array: its links and index, not its value.

    A tape that held its cells would hold every intermediate array of f until the sweep ends:
    ten arrays of n for Rosenbrock, each on fresh pages the kernel must zero.  The sweep needs
    only the links (whose partials keep the arrays they use), so the tape holds a Node, links
    point at Nodes, and an intermediate array is freed as soon as f drops it, as it would be
    without AD.  ``value`` refers to a plain array value without keeping it (None for others),
    for pictures of the tape: a weak reference, or for a pooled array its handle, which also
    notices when the pool has handed the memory out again (``dvlad.pool.handle``).  (Not to the
    cell: a weak-referenceable cell costs every scalar cell a few percent.)
    """

    __slots__ = ("links", "index", "value")

    def __repr__(self):
        v = entry_primal(self)
        return f"Node(#{self.index}, {'freed' if v is FREED else repr(v)})"


def make_cell(tag, primal, links):
    """A new cell of tag's tape: value ``primal``, ``links`` = (input, partial, ...).

    An array-valued cell is entered in the tape as a :class:`Node`, and links always point at
    tape entries (an array cell's Node, any other cell itself): see Node.
    """
    c = TapeCell()
    tape = tag.tape
    c.tag, c.primal, c.index = tag, primal, len(tape)
    n = len(links)
    if n == 2:
        a = links[0]
        e = tape[a.index]
        if e is not a:
            links = (e, links[1])
    elif n == 4:
        a, b = links[0], links[2]
        e, f = tape[a.index], tape[b.index]
        if e is not a or f is not b:
            links = (e, links[1], f, links[3])
    elif n > 4:
        links = tuple(tape[v.index] if k % 2 == 0 else v for k, v in enumerate(links))
    c.links = links
    p = primal
    while isinstance(p, ADNumber):
        p = p.primal
    t = type(p)
    if t is not np.ndarray and (t is float or not isinstance(p, np.ndarray)):
        tape.append(c)              # (a traced array, dvlad.compile's, is an ndarray here: its
        return c                    # cell may be assigned into, h[i] = v, as an array's is)
    e = Node()
    e.links, e.index = links, c.index
    e.value = pool.handle(primal) if p is primal and t is np.ndarray else None
    tape.append(e)
    return c


FREED = object()


def entry_primal(e):
    """The value of tape entry ``e``, or FREED if nothing keeps it any more (or it is not a
    plain array: a bundle of arrays under an HVP, say)."""
    if type(e) is not Node:
        return e.primal
    v = None if e.value is None else pool.value_of(e.value)
    return FREED if v is None else v


class LinearMap:
    """A partial that is a linear map J rather than a number.

    Subclasses implement ``forward(t)`` = J·t and ``backward(s)`` = Jᵀ·s with dvlad's operations,
    so that they nest.  Forward mode computes ``partial * tangent``, which for a map is J·t (the
    map is on the left, so its ``__mul__`` runs); the sweep calls ``backward``.
    """

    __slots__ = ()
    __array_ufunc__ = None

    def __mul__(self, t):
        return self.forward(t)

    def term(self, t):
        """J·t as the forward lift adds it up (ElementwiseMap may hand back a Negated)."""
        return self.forward(t)

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def forward(self, t):
        raise NotImplementedError

    def backward(self, s):
        raise NotImplementedError


class MultiLink:
    """A cell's only link when its inputs' sensitivities come from one joint computation.

    ``pull(s)`` returns [(input cell, contribution), ...]; fixed points use it to solve the
    adjoint equation once for all inputs.
    """

    __slots__ = ()

    def pull(self, s):
        raise NotImplementedError

    def inputs(self):
        """The cells ``pull`` sends sensitivity to (for pictures of the tape)."""
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__.lstrip('_')}>"


class Cotangent(tuple):
    """A sensitivity that is a tuple of numbers: adds elementwise (for joint cells)."""

    __slots__ = ()

    def __add__(self, other):
        return Cotangent(a + b for a, b in zip(self, other))

    __radd__ = __add__


class Negated:
    """−s, not computed yet: the sweep's sensitivity through a partial of −1 (sub, neg).

    The sweep is linear in the sensitivity, so the sign can ride along: through a map
    (−Jᵀs = Jᵀ(−s)), into an accumulator (subtract instead of add), into the transpose of a slice
    (subtract into place).  Most negations then cost no pass; one that reaches a result is
    computed at the end.  Only the sweep makes and reads these (maps never see one).
    """

    __slots__ = ("s",)
    __array_ufunc__ = None

    def __init__(self, s):
        self.s = s

    def __repr__(self):
        return f"Negated({self.s!r})"


class Masked:
    """A sensitivity ``s`` that is 0 outside ``mask`` *structurally*: the transpose of where's
    branch, where the lanes not taken do not depend on that branch at all.  The next pull keeps
    those lanes 0 even where its partial is infinite (√′(0) in a lane where(x > 0, √x, 0) does
    not take); a zero computed at the point gets no such pass (0·∞ is nan there:
    notes/conventions.md).  Only the sweep makes and reads these, as Negated."""

    __slots__ = ("s", "mask")
    __array_ufunc__ = None

    def __init__(self, s, mask):
        self.s, self.mask = s, mask

    def __repr__(self):
        return f"Masked({self.s!r}, {self.mask!r})"


class Embed(LinearMap):
    """s ↦ s·e_i: how component i of a joint cell (several outputs at once) is pulled back."""

    __slots__ = ("i", "n", "zero")

    def __init__(self, i, n, zero):
        self.i, self.n, self.zero = i, n, zero

    def __repr__(self):
        return f"<component {self.i} of {self.n}>"

    def forward(self, t):
        raise TypeError("a joint cell's component is only ever pulled back")

    def backward(self, s):
        return Cotangent(s if k == self.i else self.zero for k in range(self.n))


def joint_cells(tag, values, link):
    """Cells for several outputs computed at once; ``link`` (a MultiLink) pulls them back together.

    One output gets one cell linked by ``link`` (its sensitivity a number); several share a joint
    cell whose sensitivity is a Cotangent of theirs.
    """
    if len(values) == 1:
        return [make_cell(tag, values[0], (link,))]
    joint = make_cell(tag, tuple(values), (link,))
    zero = 0 * values[0] if values else 0
    return [make_cell(tag, v, (joint, Embed(i, len(values), zero))) for i, v in enumerate(values)]


# The cyclic collector scans every live cell on each of its passes: with 10^4+ cells alive that
# made taping 2-5x slower (shared/BENCHMARKS.md).  Tapes hold no reference cycles once their call
# ends, so reference counting frees them; pausing the collector while any tape is being built is
# safe.  A counter, under a lock, so that nested and concurrent calls restore it exactly once.
class _GCPause:
    """The context manager behind :func:`gc_paused` (a class with the lock at hand: the
    derivative operators enter it on every call, and the @contextmanager generator it replaced
    cost ~1.9 µs of a 10 µs two-input gradient; this costs ~0.8 µs).  The lock is taken by
    ``with``, so a KeyboardInterrupt inside never leaves it held; a forked child starts with no
    pause in force and the collector as the parent had it before any pause."""

    __slots__ = ()
    _lock = threading.Lock()
    _state = [0, False]             # [depth, was the collector enabled at depth 0]

    def __enter__(self):
        state = _GCPause._state
        with _GCPause._lock:
            if state[0] == 0:
                state[1] = gc.isenabled()
                gc.disable()
            state[0] += 1
        return self

    def __exit__(self, *exc):
        state = _GCPause._state
        with _GCPause._lock:
            state[0] -= 1
            if state[0] == 0 and state[1]:
                gc.enable()
        return False


def _after_fork_in_child():
    """The child has no tape of the parent's in progress: no pause, the collector as it was."""
    state = _GCPause._state
    _GCPause._lock = threading.Lock()
    if state[0] and state[1]:
        gc.enable()
    state[0] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_GC_PAUSE = _GCPause()


def gc_paused():
    """Pause the cyclic garbage collector for the block; restore it even on exceptions."""
    return _GC_PAUSE


# ---- the reverse lift (the interface of dvlad.core.lift, implemented once for tape cells) -------

def lift(prim, tag, args, ins):
    """TapeCell(ε, f(p), links): each in-argument's cell with its partial (a number or a map).
    Hot path: one and two arguments (every row of the rule table) are spelled out."""
    n = len(args)
    if n == 1:
        x = args[0]
        r, ds = prim.at((x.primal,), ins, REVERSE)
        if prim.closure_check:
            one_level_down(prim, tag, r, ds)
        return make_cell(tag, r, (x, ds[0]))
    if n == 2:
        x, y = args
        xin, yin = ins
        r, (dx, dy) = prim.at((x.primal if xin else x, y.primal if yin else y), ins, REVERSE)
        if prim.closure_check:
            one_level_down(prim, tag, r, (dx, dy))
        if dx is None and dy is None:           # structurally constant (0·x): partials.py
            return r
        return make_cell(tag, r, ((x, dx, y, dy) if yin else (x, dx)) if xin else (y, dy))
    r, ds = prim.at([a.primal if i else a for a, i in zip(args, ins)], ins, REVERSE)
    if prim.closure_check:
        one_level_down(prim, tag, r, ds)
    links = ()
    for a, i, d in zip(args, ins, ds):
        if i and d is not None:       # None: r does not depend on a (a structural zero)
            links += (a, d)
    return make_cell(tag, r, links) if links else r


def lift_many(prim, tag, leaves, ins):
    """The outputs of a vector primitive as cells that one MultiLink pulls back together."""
    points = [a.primal if i else a for a, i in zip(leaves, ins)]
    outs = prim.value(points)[0]
    cells = [a for a, i in zip(leaves, ins) if i]
    link = prim.pullback(points, cells, [k for k, i in enumerate(ins) if i])
    return joint_cells(tag, outs, link)


REVERSE.lift, REVERSE.lift_many = lift, lift_many
