"""The reverse sweep: iterative, linear in the tape, nesting through dvlad's own arithmetic.

A tape is its cells in creation order, already a topological order, so the sweep walks it
backwards once, with no recursion, accumulating sensitivities in a list indexed by cell: sharing
costs nothing extra (x = x + x, 200 times, is 200 steps) and cells the output does not reach are
skipped.  Sensitivities are combined with Python's operators, which are dvlad's overloaded ones
when a partial carries an older perturbation: that is how forward-over-reverse and
reverse-over-reverse nest.  A LinearMap partial is applied by its transpose; a MultiLink pulls all
its inputs back at once.  Array sensitivities get the array-specific care of ``_sweep_cell``.
"""

import numpy as np

from ..core import pool
from ..core.base import all_finite, dtype_of
from ..core.number import ARRAY_OPS, ADNumber
from ..core.switch import REFERENCE
from ..numbers.bundle import make_bundle, plain_bundle
from ..numbers.tape import Cotangent, LinearMap, Masked, Negated


def sweep(tape, seeds, consume=False, fast=not REFERENCE):
    """Sensitivities of every cell of ``tape``, given ``seeds`` = [(cell, sensitivity), ...].

    Returns a list indexed by ``cell.index``; ``None`` where the seeds do not reach.
    ``consume``: this is the tape's only sweep (gradient_r), so the general path may release
    each cell (from the tape), its partials and its sensitivity as soon as it is done with them;
    freed array memory is then reused by the rest of the sweep instead of fresh pages.  Hot path:
    a cell with a float sensitivity and one or two inputs (every scalar primitive) is unrolled,
    and a float partial is multiplied without asking whether it is a LinearMap (``fast``: off on
    the reference path, dvlad.core.switch).  Everything else
    (arrays, nested AD numbers, maps, multi-input links) goes through :func:`_sweep_cell`.
    """
    sens = [None] * len(tape)
    owned = set()          # slots holding an array this sweep allocated: safe to add into in place
    negs = []              # slots that were given a Negated sensitivity
    masks = []             # slots that were given a Masked one
    top = -1
    for cell, s in seeds:
        j = cell.index
        v = sens[j]
        if type(s) is Masked:
            if v is None:
                masks.append(j)
            else:
                s = s.s
        sens[j] = s if v is None else _value(v) + s
        if j > top:
            top = j
    for i in range(top, -1, -1):
        s = sens[i]
        if s is None:
            continue
        links = tape[i].links
        n = len(links) if fast else -1
        if n == 4:
            a, da, b, db = links
            if type(da) is float and type(db) is float and type(s) is float:
                ca = s * da
                cb = s * db
                j = a.index
                v = sens[j]
                sens[j] = ca if v is None else v + ca
                j = b.index
                v = sens[j]
                sens[j] = cb if v is None else v + cb
                continue
        elif n == 2:
            a, da = links
            if type(da) is float and type(s) is float:
                ca = s * da
                j = a.index
                v = sens[j]
                sens[j] = ca if v is None else v + ca
                continue
        elif not links:
            continue
        _sweep_cell(links, s, sens, owned, negs, masks)
        if consume and type(s) is not float:
            # Done with cell i: its consumers came before it.  Drop its partials, and drop it from
            # the tape, so that unless the caller kept it, it and its value are freed now and
            # the rest of the sweep reuses that memory (peak memory is the cost of array tapes).
            tape[i].links = ()
            tape[i] = None
            sens[i] = None
    for j in masks:
        if type(sens[j]) is Masked:
            sens[j] = sens[j].s
    for j in negs:
        if type(sens[j]) is Negated:
            sens[j] = _value(sens[j])
    return sens


_TRACING = pool.TRACING      # [threads tracing for dvlad.compile]


def left_out(b):
    """A cotangent of exactly 0 (a plain number, or an array of zeros) leaves its output out of
    the sum Σ ȳᵢ∇fᵢ: it is not swept, so 0·∞ (√′(0) in that output) is never met."""
    if isinstance(b, np.ndarray):
        return b.dtype != object and not b.any()
    return type(b) is float and b == 0.0 or type(b) is int and b == 0


def structural(b):
    """A cotangent array with zero lanes: they leave those outputs out (see Masked)."""
    if isinstance(b, np.ndarray) and b.dtype != object and b.ndim and not b.all():
        return Masked(b, b != 0)
    return b


def _sweep_cell(links, s, sens, owned, negs, masks):
    """One cell of the sweep, in general (arrays, nested AD numbers, maps, multi-input links).

    numpy passes over arrays dominate array programs, so: a sensitivity goes on without a copy
    where the partial is 1, and with its sign pending (Negated) where it is −1; the transpose of
    indexing stays lazy (Placed) and is added (or subtracted) into the accumulator; and a slot
    whose array (or bundle of arrays) this sweep allocated itself is added into in place.
    Ownership is by slot: an array that two slots share is never written.
    """
    mask = None
    if type(s) is Masked:             # lanes outside s.mask: 0 after each pull, whatever it is
        s, mask = s.s, s.mask
    negated = type(s) is Negated
    if negated:                       # every map is linear: pull s back, then negate what comes out
        s = s.s
    for a, c in _contributions(links, s):
        if mask is not None:
            c = _structural(c, mask)
        if negated:
            c = _negate(c)
        j = a.index
        v = sens[j]
        if type(v) is Masked:
            v = sens[j] = v.s
        if type(c) is Masked and v is not None:
            c = c.s
        if v is None:
            if type(c) is Placed:           # 0 outside its index, structurally (see Masked)
                sens[j] = Masked(c.dense(), (c.idx, c.shape))
                owned.add(j)
                masks.append(j)
            else:
                sens[j] = c
                if type(c) is Negated:
                    negs.append(j)
                elif type(c) is Masked:
                    masks.append(j)
        elif j in owned and _add_into(v, c):
            pass
        else:
            w = _fresh_sum(v, c)
            if w is None:
                sens[j] = _value(v) + _value(c)
            else:
                sens[j] = w
                owned.add(j)


def _structural(c, mask):
    """c with the lanes outside ``mask`` set to 0 where they are not finite (see Masked)."""
    b = c
    while isinstance(b, ADNumber):
        b = b.primal
    if not isinstance(b, np.ndarray) or all_finite(b):
        return c
    if type(mask) is tuple:           # (idx, shape) of a Placed: the lanes it was placed at
        idx, shape = mask
        mask = np.zeros(shape, bool)
        mask[idx] = True
    return ARRAY_OPS["where"](mask, c, 0.0) if b.shape == mask.shape else c


def _negate(c):
    """−c, lazily: a Negated, or a Placed with its sign flipped."""
    t = type(c)
    if t is Negated:
        return c.s
    if t is Masked:
        return Masked(_value(_negate(c.s)), c.mask)
    if t is Placed:
        return Placed(c.s, c.idx, c.shape, c.basic, not c.negated)
    if isinstance(c, np.ndarray) or plain_bundle(c):
        return Negated(c)
    if t is Cotangent:
        return Cotangent(-u for u in c)
    return -c


def _value(c):
    """c as a plain sensitivity: a Placed made dense, a Negated negated."""
    if type(c) is Placed:
        return c.dense()
    if type(c) is Masked:
        return c.s
    if type(c) is Negated:
        return pool.negative(_value(c.s))
    return c



def _add_into(v, c):
    """v += c in place, if v and c are of kinds that allow it; False if not (nothing done)."""
    subtract = type(c) is Negated
    if subtract:
        c = c.s
    if isinstance(v, np.ndarray):
        if _TRACING[0] and type(v) is np.ndarray and pool.tracing() and not _plain(c):
            return False            # (dvlad.compile: a traced value into a plain array)
        if type(c) is Placed:
            if isinstance(c.s, (np.ndarray, np.generic, float)):
                c.add_into(v, subtract)
                return True
            return False
        if type(c) is float or isinstance(c, np.ndarray) and c.shape == v.shape:
            (np.subtract if subtract else np.add)(v, c, out=v)
            return True
        return False
    if plain_bundle(v):
        if type(c) is Placed:
            if plain_bundle(c.s) and c.s.tag is v.tag:
                Placed(c.s.primal, c.idx, c.shape, c.basic, c.negated).add_into(v.primal, subtract)
                Placed(c.s.tangent, c.idx, c.shape, c.basic, c.negated).add_into(v.tangent, subtract)
                return True
            return False
        if plain_bundle(c) and c.tag is v.tag and c.primal.shape == v.primal.shape \
                and c.tangent.shape == v.tangent.shape:
            op = np.subtract if subtract else np.add
            op(v.primal, c.primal, out=v.primal)
            op(v.tangent, c.tangent, out=v.tangent)
            return True
    return False


def _plain(c):
    """c is a plain number or array (or a Placed one): not one of dvlad.compile's traced ones."""
    if type(c) is Placed:
        c = c.s
    return type(c) is np.ndarray or type(c) is float or isinstance(c, np.generic)


def _fresh_sum(v, c):
    """v + c in arrays allocated here (so the slot may own them), or None for other kinds."""
    negated = type(v) is Negated
    if negated:
        v = v.s
    copy = pool.negative if negated else pool.copy
    if isinstance(v, np.ndarray):
        w = copy(v)
    elif plain_bundle(v):
        w = make_bundle(v.tag, copy(v.primal), copy(v.tangent))
    else:
        return None
    return w if _add_into(w, c) else None


class Placed:
    """A sensitivity that is 0 but for ``s`` (or −s, if ``negated``) at ``idx`` in an array of
    ``shape``: the transpose of indexing, kept lazy so the sweep can add it into its accumulator
    in place.  ``s`` is a plain array, or a bundle one layer deep over plain arrays."""

    __slots__ = ("s", "idx", "shape", "basic", "negated")
    __array_ufunc__ = None

    def __init__(self, s, idx, shape, basic, negated=False):
        self.s, self.idx, self.shape, self.basic, self.negated = s, idx, shape, basic, negated

    def dense(self):
        s = self.s
        if plain_bundle(s):
            return make_bundle(s.tag, Placed(s.primal, self.idx, self.shape, self.basic,
                                             self.negated).dense(),
                               Placed(s.tangent, self.idx, self.shape, self.basic,
                                      self.negated).dense())
        # np.asarray: a Python float is "weak" in result_type and would make float32 here
        dtype = np.result_type(dtype_of(s), np.float32)
        span = self._leading_span()
        if span is None:
            z = pool.empty(self.shape, dtype)
            z.fill(0)
            self.add_into(z)
            return z
        # s fills a block of leading-axis rows (x[1:], x[:-1]): write it there and zero only
        # the rest, one pass over the array instead of two (zeros, then an add)
        start, stop = span
        z = pool.empty(self.shape, dtype)
        z[:start] = 0
        z[stop:] = 0
        (np.negative if self.negated else np.positive)(s, out=z[start:stop])
        return z

    def _leading_span(self):
        """(start, stop) if idx selects rows start:stop of the leading axis, step 1; else None."""
        idx = self.idx
        if type(idx) is tuple and len(idx) == 1:
            idx = idx[0]
        if type(idx) is not slice or self.basic != "view" or not self.shape \
                or idx.step not in (None, 1):
            return None
        start, stop, _ = idx.indices(self.shape[0])
        return (start, max(start, stop))

    def add_into(self, v, subtract=False):
        """v += this (or v -= this, with ``subtract``), in place."""
        subtract = subtract != self.negated
        view = v[self.idx] if self.basic == "view" else None
        if isinstance(view, np.ndarray):    # slices and integers: add into the view, one pass
            (np.subtract if subtract else np.add)(view, self.s, out=view)
        elif self.basic:            # a boolean mask: no repeated positions, += is exact
            if subtract:
                v[self.idx] -= self.s
            else:
                v[self.idx] += self.s
        else:
            (np.subtract if subtract else np.add).at(v, self.idx, self.s)

    def __add__(self, other):
        return self.dense() + _value(other)

    __radd__ = __add__


def sweep_segment(segment, start, seeds, inputs):
    """Sensitivities of ``inputs`` from ``seeds``, sweeping only the cells of ``segment``.

    ``segment`` is ``tape[start:end]`` for one recorded step (fixed points): cells before
    ``start`` are the step's constants and are not visited, so each call costs the segment's
    length, not the tape's.
    """
    sens = {}
    top = start - 1
    for cell, s in seeds:
        j = cell.index
        if j >= start:
            sens[j] = s + sens[j] if j in sens else s
            top = max(top, j)
    for i in range(top, start - 1, -1):
        s = sens.get(i)
        if s is None:
            continue
        for a, c in _contributions(segment[i - start].links, s):
            j = a.index
            c = _value(c)
            if j >= start:
                sens[j] = sens[j] + c if j in sens else c
    return [sens.get(c.index) for c in inputs]


def _contributions(links, s):
    """(input cell, s pulled back to it) for each link; a lone MultiLink pulls back at once."""
    if len(links) == 1:
        return links[0].pull(s)
    return [(links[k], _pull(s, links[k + 1])) for k in range(0, len(links), 2)]


def _pull(s, d):
    """Sensitivity s pulled back through partial d: s·d, or Jᵀ·s for a linear map."""
    if isinstance(d, LinearMap):
        return d.backward(s)
    if type(d) is float:
        if d == 1.0:
            return s
        if d == -1.0 and (type(s) is np.ndarray or plain_bundle(s)):
            return Negated(s)
        out = pool.out2(s, d)
        if out is not None:
            return np.multiply(s, d, out=out)
    return s * d
