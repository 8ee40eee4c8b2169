"""numpy functions written with dvlad's array primitives: the functions that move, pick or
assemble elements (flip, roll, tril, diag, take, stack, split...); statistics are in
:mod:`dvlad.arrays.statistics`.

Each takes numpy's signature.  A keyword that changes the value and that dvlad does not
differentiate (``out=``, ``dtype=``, ``where=``) raises NotDifferentiableError naming it, never
ignored.  Everything here is made of :mod:`dvlad.arrays.primitives` (indexing, reshape,
transpose, concatenate, sum, where) and the rule table's rows, so forward and reverse mode, and
every nesting, come from those.
"""
import numpy as np

from . import primitives as A
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS"]


def _plain(fn, **given):
    """Refuse keywords that would change the value (given anything but numpy's default)."""
    for k, v in given.items():
        if v is not None and v is not np._NoValue and v is not False:
            raise NotDifferentiableError(f"numpy.{fn} with {k}={v!r}: dvlad does not "
                                         f"differentiate it; leave it out")


def _ndim(a):
    return len(A.shape(a))


def _as_array(a):
    """An argument as an array: AD numbers as they are, anything else through np.asarray."""
    return a if isinstance(a, ADNumber) else np.asarray(a)


def _axis_slices(ndim, axis, s):
    return (slice(None),) * (axis % ndim) + (s,)


# ---- moving elements: flips, rolls, axes ---------------------------------------------------------

def _flip(m, axis=None):
    nd = _ndim(m)
    axes = range(nd) if axis is None else [ax % nd for ax in np.atleast_1d(axis)]
    idx = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(nd))
    return A.getitem(m, idx)


def _roll(a, shift, axis=None):
    if axis is None:
        return A.reshape(_roll(A.reshape(a, (-1,)), shift, 0), A.shape(a))
    out = a
    for s, ax in np.broadcast(np.atleast_1d(shift), np.atleast_1d(axis)):
        n = A.shape(out)[ax]
        if n == 0:
            continue
        k = int(s) % n
        idx = np.concatenate([np.arange(n - k, n), np.arange(0, n - k)])
        out = A.getitem(out, _axis_slices(_ndim(out), ax, idx))
    return out


def _rot90(m, k=1, axes=(0, 1)):
    k %= 4
    a0, a1 = axes
    if k == 0:
        return m
    if k == 2:
        return _flip(_flip(m, a0), a1)
    perm = list(range(_ndim(m)))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return A.transpose(_flip(m, a1), tuple(perm))
    return _flip(A.transpose(m, tuple(perm)), a1)


def _moveaxis(a, source, destination):
    nd = _ndim(a)
    src = [s % nd for s in np.atleast_1d(source)]
    dst = [d % nd for d in np.atleast_1d(destination)]
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return A.transpose(a, tuple(order))


_ATLEAST = {    # numpy's shapes: a scalar, a vector (n,), a matrix (m, n)
    1: {0: lambda s: (1,)},
    2: {0: lambda s: (1, 1), 1: lambda s: (1,) + s},
    3: {0: lambda s: (1, 1, 1), 1: lambda s: (1,) + s + (1,), 2: lambda s: s + (1,)},
}


def _atleast(nd):
    def atleast(*arys):
        out = []
        for a in arys:
            a = _as_array(a)
            shp = A.shape(a)
            if len(shp) < nd:
                a = A.reshape(a, _ATLEAST[nd][len(shp)](shp)) if isinstance(a, ADNumber) \
                    else a.reshape(_ATLEAST[nd][len(shp)](shp))
            out.append(a)
        return out[0] if len(out) == 1 else out
    return atleast


_atleast_1d, _atleast_2d, _atleast_3d = _atleast(1), _atleast(2), _atleast(3)


# ---- triangles and diagonals ------------------------------------------------------------------

def _tri(lower):
    def tri(m, k=0):
        shp = A.shape(m)
        keep = np.tri(shp[-2], shp[-1], k, dtype=bool)
        return A.where(keep if lower else ~np.tri(shp[-2], shp[-1], k - 1, dtype=bool), m, 0.0)
    return tri


def _diagonal(a, offset=0, axis1=0, axis2=1):
    shp = A.shape(a)
    a = _moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = shp[axis1], shp[axis2]
    rows = np.arange(max(0, -offset), min(n, m - offset))
    return A.getitem(a, (Ellipsis, rows, rows + offset))


def _diag(v, k=0):
    if _ndim(v) == 2:
        return _diagonal(v, k)
    if _ndim(v) != 1:
        raise ValueError("diag: input must be 1-d or 2-d")
    n = A.shape(v)[0] + abs(k)
    rows = np.arange(A.shape(v)[0]) + max(0, -k)
    return A.scatter(v, (rows, rows + k), (n, n))


def _diagflat(v, k=0):
    return _diag(A.reshape(v, (-1,)), k)


# ---- picking elements ---------------------------------------------------------------------------

def _take(a, indices, axis=None, out=None, mode="raise"):
    _plain("take", out=out)
    indices = np.asarray(strip(indices))
    if mode in ("wrap", "clip"):        # the indices moved as numpy moves them, then taken
        n = int(np.prod(A.shape(a))) if axis is None else A.shape(a)[axis]
        indices = indices % n if mode == "wrap" else np.clip(indices, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"numpy.take: mode must be 'raise', 'wrap' or 'clip'; got {mode!r}")
    if axis is None:
        return A.getitem(A.reshape(a, (-1,)), indices)
    return A.getitem(a, _axis_slices(_ndim(a), axis, indices))


def _take_along_axis(arr, indices, axis):
    indices = np.asarray(strip(indices))
    if axis is None:
        return A.getitem(A.reshape(arr, (-1,)), indices)
    nd = _ndim(arr)
    axis %= nd
    grids = np.ogrid[tuple(slice(n) for n in indices.shape)]
    idx = tuple(indices if i == axis else grids[i] for i in range(nd))
    return A.getitem(arr, idx)


def _fftshift(x, axes=None, inverse=False):
    """np.fft.fftshift (ifftshift): a roll by n // 2 (−(n // 2)) along each axis."""
    nd = _ndim(x)
    axes = range(nd) if axes is None else [ax % nd for ax in np.atleast_1d(axes)]
    shifts = [(-1 if inverse else 1) * (A.shape(x)[ax] // 2) for ax in axes]
    return _roll(x, shifts, list(axes)) if shifts else x


def _repeat(a, repeats, axis=None):
    if axis is None:
        a, axis = A.reshape(a, (-1,)), 0
    n = A.shape(a)[axis]
    idx = np.repeat(np.arange(n), repeats)
    return A.getitem(a, _axis_slices(_ndim(a), axis, idx))


def _tile(A_, reps):
    reps = tuple(np.atleast_1d(reps))
    shp = A.shape(A_)
    nd = max(len(shp), len(reps))
    a = A.reshape(A_, (1,) * (nd - len(shp)) + shp)
    reps = (1,) * (nd - len(reps)) + reps
    idx = np.ix_(*[np.tile(np.arange(n), r) for n, r in zip(A.shape(a), reps)])
    return A.getitem(a, idx)


# ---- assembling ---------------------------------------------------------------------------------

def _stacker(name, prepare, axis):
    def stacker(tup, *, dtype=None, casting="same_kind"):
        _plain(name, dtype=dtype)
        return A.concatenate([prepare(_as_array(a)) for a in tup], axis)
    return stacker


def _hstack(tup, *, dtype=None, casting="same_kind"):
    _plain("hstack", dtype=dtype)
    arrs = [_atleast_1d(_as_array(a)) for a in tup]
    return A.concatenate(arrs, 0 if arrs and _ndim(arrs[0]) == 1 else 1)


def _column_stack(tup):
    arrs = []
    for a in tup:
        a = _as_array(a)
        arrs.append(A.reshape(a, (-1, 1)) if _ndim(a) < 2 else a)
    return A.concatenate(arrs, 1)


def _append(arr, values, axis=None):
    if axis is None:
        return A.concatenate([A.reshape(_as_array(arr), (-1,)),
                              A.reshape(_as_array(values), (-1,))], 0)
    return A.concatenate([_as_array(arr), _as_array(values)], axis)


def _split_at(a, indices_or_sections, axis, even):
    n = A.shape(a)[axis]
    if np.ndim(indices_or_sections) == 0:
        sections = int(indices_or_sections)
        if even and n % sections:
            raise ValueError("array split does not result in an equal division")
        size, extra = divmod(n, sections)
        bounds = np.cumsum([0] + [size + 1] * extra + [size] * (sections - extra))
    else:
        bounds = [0] + list(indices_or_sections) + [n]
    return [A.getitem(a, _axis_slices(_ndim(a), axis, slice(lo, hi)))
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def _split(ary, indices_or_sections, axis=0):
    return _split_at(ary, indices_or_sections, axis, True)


def _array_split(ary, indices_or_sections, axis=0):
    return _split_at(ary, indices_or_sections, axis, False)


def _broadcast_arrays(*args, subok=False):
    shp = np.broadcast_shapes(*(A.shape(a) for a in args))
    return tuple(A.broadcast_to(a, shp) if isinstance(a, ADNumber)
                 else np.broadcast_to(a, shp) for a in args)


FUNCTIONS = {
    np.flip: _flip, np.fliplr: lambda m: _flip(m, 1), np.flipud: lambda m: _flip(m, 0),
    np.roll: _roll, np.fft.fftshift: _fftshift,
    np.fft.ifftshift: lambda x, axes=None: _fftshift(x, axes, True),
    np.rot90: _rot90, np.moveaxis: _moveaxis, np.atleast_1d: _atleast_1d,
    np.atleast_2d: _atleast_2d, np.atleast_3d: _atleast_3d,
    np.tril: _tri(True), np.triu: _tri(False), np.diagonal: _diagonal, np.diag: _diag,
    np.diagflat: _diagflat, np.take: _take, np.take_along_axis: _take_along_axis,
    np.repeat: _repeat, np.tile: _tile,
    np.vstack: _stacker("vstack", _atleast_2d, 0), np.dstack: _stacker("dstack", _atleast_3d, 2),
    np.hstack: _hstack, np.column_stack: _column_stack, np.append: _append,
    np.split: _split, np.array_split: _array_split,
    np.hsplit: lambda a, s: _split(a, s, 1 if _ndim(a) > 1 else 0),
    np.vsplit: lambda a, s: _split(a, s, 0),
    np.broadcast_arrays: _broadcast_arrays,
}
