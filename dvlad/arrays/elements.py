"""The elements of an array-valued AD number, as ``np.asarray(x)`` holds them.

numpy's ``np.asarray(x)`` of an AD number is an object array of x's elements (see
:mod:`dvlad.arrays.objects`).  Building each element costs an object per element and layer (for
an HVP a tape cell over a bundle, the cell entered in the tape), and most code never reads
them: scipy converts its arguments with ``np.asanyarray`` and then computes with the array, which
dvlad routes to x itself.  So the elements start *pending*: an element of a live bundle or tape
cell is made as an object of its final class's layout that knows only (x's layers, its
position).  The first attribute it is asked for — its tag, primal, tangent, shape, anything —
settles it: its slots are filled with what :func:`unpack` would have made (the inner layers for
all elements at once), a cell is entered in its tape, and its class becomes :class:`Bundle` or
:class:`TapeCell`.  It is the same object before and after, so identity, ``type(e) is Bundle``
after the first read, and every use agree with an element built at once.

The layers are frozen when np.asarray is called (:func:`_frozen`, their arrays copied): neither a
later assignment into x nor a write into the caller's array it was made of reaches elements
taken before, as with elements built at once.  Measured: hvp(scipy.optimize.rosen) at
n = 1000, ``python benchmarks/rosen_asarray.py`` (figures in benchmarks/RESULTS.md).
"""
import itertools
import threading

import numpy as np

from . import primitives as A
from ..core.switch import REFERENCE
from ..numbers.bundle import Bundle
from ..numbers.tape import LinearMap, TapeCell

__all__ = ["unpack", "pending_elements", "whole"]


def unpack(x):
    """The elements of the array-valued number x as 0-d numbers, in C order: each is x[i, j...]
    (the fast path builds them layer by layer, as getitem would, without a lift per element)."""
    shp = A.shape(x)
    if not shp:
        return [x]
    if not REFERENCE:
        elements = _elements(x, shp)
        if elements is not None:
            return elements
    flat = A.reshape(x, (-1,))
    return [A.getitem(flat, k) for k in range(int(np.prod(shp)))]


class _Element(LinearMap):
    """The partial of x[idx] in x, for one element (what getitem's own map does, with no
    closure per element): J·t = t[idx], Jᵀ·s = s placed at idx."""

    __slots__ = ("idx", "shape")

    def forward(self, t):
        return A.getitem(t, self.idx)

    def backward(self, s):
        return A.place(s, self.idx, self.shape)


def _elements(x, shp, settling=False):
    """x's elements, one object per element and layer, or None where this path does not apply
    (a Taylor tower, a layer whose call has returned, a tangent of another shape).
    ``settling``: the inner layers of pending elements, made when the first is read, whatever
    their tags' state then (what unpack would have made when np.asarray was called)."""
    kind = type(x)
    if kind is np.ndarray:
        return list(x.reshape(-1)) if x.shape == shp else None
    if (kind is not Bundle and kind is not TapeCell) or not (settling or x.tag.live):
        return None
    primals = _elements(x.primal, shp, settling)
    if primals is None:
        return None
    tag = x.tag
    if kind is Bundle:
        tangents = _elements(x.tangent, shp, settling)
        return None if tangents is None else _bundles(tag, primals, tangents)
    tape = tag.tape
    if tape is None:            # (settling, after the call returned: cells of a dead tag)
        return _cells(tag, None, None, primals, _element_maps(shp))
    entry = tape[x.index]       # (links point at tape entries: see make_cell)
    out = _cells(tag, len(tape), entry, primals, _element_maps(shp))
    tape.extend(out)            # (a scalar cell is its own tape entry)
    return out


def _bundles(tag, primals, tangents):
    out = []
    append, new = out.append, Bundle
    for p, t in zip(primals, tangents):
        b = new()
        b.tag, b.primal, b.tangent = tag, p, t
        append(b)
    return out


def _cells(tag, index, entry, primals, maps):
    """Element cells entered at tape positions index, index + 1, ... (None: a dead tag's, at -1)."""
    new = TapeCell
    out = [new() for _ in primals]          # (a quarter faster than one loop doing both)
    indices = itertools.repeat(-1) if index is None else range(index, index + len(primals))
    for c, p, m, i in zip(out, primals, maps, indices):
        c.tag = tag
        c.primal = p
        c.index = i
        c.links = (entry, m)
    return out


_MAPS = {}          # shape -> its elements' maps (immutable, so shared by every call)


def _element_maps(shp):
    maps = _MAPS.get(shp)
    if maps is None:
        maps = []
        for idx in itertools.product(*map(range, shp)):
            m = _Element()
            m.idx, m.shape = idx, shp
            maps.append(m)
        if len(maps) <= 1 << 16:
            if len(_MAPS) >= 16:
                _MAPS.clear()
            _MAPS[shp] = maps
    return maps


# ---- pending elements -------------------------------------------------------------------------

class _Layers:
    """What the pending elements of np.asarray(x) share: x as it was then (``number``, a frozen
    copy: see _frozen), and, once one of them is read, the elements of the layers below."""

    __slots__ = ("number", "tag", "primal", "tangent", "entry", "shape", "primals", "tangents")


def _frozen(x):
    """x's layers as they are now, in objects of their own, their arrays copied: what neither an
    assignment into x (which replaces its slots) nor a write into the caller's array it was
    made of (x -= step, in place) can change.  Elements built at once read their values then;
    pending ones read these.  A cell's copy keeps its index, so it stands for x on the tape."""
    kind = type(x)
    if kind is np.ndarray:
        return x.copy()
    if kind is Bundle:
        b = Bundle()
        b.tag, b.primal, b.tangent = x.tag, _frozen(x.primal), _frozen(x.tangent)
        return b
    c = TapeCell()
    c.tag, c.primal, c.index, c.links = x.tag, _frozen(x.primal), x.index, x.links
    return c


_slot = object.__getattribute__     # a pending element's own slots: (its _Layers, its position)


class PendingBundle(Bundle):
    """An element of a bundle's np.asarray, not yet read: any attribute settles it."""

    __slots__ = ()

    def __getattribute__(self, name):
        _settle(self)
        return _slot(self, name)

    def __reduce_ex__(self, protocol):      # (copy and pickle look these up on the class)
        _settle(self)
        return self.__reduce_ex__(protocol)

    def __reduce__(self):
        _settle(self)
        return self.__reduce__()


class PendingCell(TapeCell):
    """An element of a tape cell's np.asarray, not yet read: any attribute settles it."""

    __slots__ = ()

    __getattribute__ = PendingBundle.__getattribute__
    __reduce_ex__ = PendingBundle.__reduce_ex__
    __reduce__ = PendingBundle.__reduce__


_SETTLING = threading.RLock()    # (two threads reading one element: one settles it)


def _settle(e):
    """Pending element e becomes what unpack would have made (the same object)."""
    if type(e) is not PendingBundle and type(e) is not PendingCell:
        return                  # (settled meanwhile)
    with _SETTLING:
        kind = type(e)
        if kind is PendingBundle or kind is PendingCell:
            _settle_now(e, kind)


def _settle_now(e, kind):
    layers, k = _slot(e, "tag"), _slot(e, "primal")
    primals = layers.primals
    if primals is None:
        primals = layers.primals = _elements(layers.primal, layers.shape, True)
    tag = layers.tag
    if kind is PendingBundle:
        tangents = layers.tangents
        if tangents is None:
            tangents = layers.tangents = _elements(layers.tangent, layers.shape, True)
        e.tag, e.primal, e.tangent = tag, primals[k], tangents[k]
        e.__class__ = Bundle
        return
    tape = tag.tape
    e.tag, e.primal = tag, primals[k]
    e.links = (layers.entry, _element_maps(layers.shape)[k])
    if tape is None:
        e.index = -1            # (its call has returned: a constant, never swept)
    else:
        e.index = len(tape)
        tape.append(e)
    e.__class__ = TapeCell


def _splittable(x, shp):
    """Whether _elements would take its fast path at x (every layer live, arrays of shape shp)."""
    kind = type(x)
    if kind is np.ndarray:
        return x.shape == shp
    if (kind is not Bundle and kind is not TapeCell) or not x.tag.live:
        return False
    return _splittable(x.primal, shp) and (kind is TapeCell or _splittable(x.tangent, shp))


def pending_elements(x, shp):
    """x's elements as pending ones, or None where unpack must build them now (see above)."""
    if REFERENCE or not shp or not _splittable(x, shp):
        return None
    layers = _Layers()
    x = layers.number = _frozen(x)
    layers.tag, layers.primal, layers.shape = x.tag, x.primal, shp
    layers.primals = layers.tangents = None
    if type(x) is Bundle:
        new, layers.tangent, layers.entry = PendingBundle, x.tangent, None
    else:
        new, layers.tangent, layers.entry = PendingCell, None, x.tag.tape[x.index]
    out = [new() for _ in range(int(np.prod(shp)))]
    for k, e in enumerate(out):
        e.tag = layers          # (read back only by _settle, through _slot)
        e.primal = k
    return out


def whole(a):
    """x as it was when np.asarray(x) was called (its frozen copy), if the object array ``a``
    holds those elements, all still pending, in order and shape; else None."""
    if a.size == 0:
        return None
    flat = a.reshape(-1)
    kind = type(flat[0])
    if kind is not PendingBundle and kind is not PendingCell:
        return None
    layers = _slot(flat[0], "tag")
    if a.shape != layers.shape:
        return None
    for k, e in enumerate(flat):
        if type(e) is not kind or _slot(e, "tag") is not layers or _slot(e, "primal") != k:
            return None
    return layers.number
