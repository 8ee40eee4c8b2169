"""numpy's functions that make, shape or assemble arrays, written with dvlad's array primitives:
copy, astype, linspace, logspace, geomspace, meshgrid, rollaxis, block, insert, delete, resize,
compress, partition, apply_along_axis...

Each takes numpy's signature.  A keyword that changes the value and that dvlad does not
differentiate raises NotDifferentiableError naming it.  Functions that pick elements
(insert, delete, resize, compress, extract, trim_zeros, partition) ask numpy itself where each
element lands, by running the function on an array of labels (y = x.flat[numpy_f(labels)]), so
their values are numpy's exactly; their derivative is that of indexing.  Arguments that only
pick (conditions, indices, kth) answer for their primals.
"""
import numpy as np

from . import primitives as A
from .composite import _as_array, _moveaxis, _ndim, _plain, _split, _take_along_axis
from .products import _cast
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["FUNCTIONS"]


def _dtype_of(a):
    return np.asarray(strip(a)).dtype


def _flat(a):
    return A.reshape(_as_array(a), (-1,))


def _labels(a):
    """0, 1, ... n−1 in a's shape: where numpy moves them is where it moves a's elements."""
    return np.arange(int(np.prod(A.shape(a))), dtype=np.intp).reshape(A.shape(a))


def _picked(a, numpy_f, *args, **kw):
    """numpy_f(a, ...) for a function that only moves a's elements: a.flat[numpy_f(labels)]."""
    if not isinstance(a, ADNumber):
        return numpy_f(np.asarray(a), *args, **kw)
    return A.getitem(_flat(a), numpy_f(_labels(a), *args, **kw))


# ---- copies and casts -----------------------------------------------------------------------

def _copy(a, order="K", subok=False):
    """A new array with a's values: a·1, exact for every number (−0, inf, nan too), whose
    primal is a fresh array that owns its memory, so that assigning into it leaves a as it was
    (a cast or a reshape could hand back a view)."""
    if not isinstance(a, ADNumber):
        return np.copy(a, order, subok)
    return a * 1.0


def _astype(x, dtype, /, *, copy=True, device=None):
    """x in another dtype.  A float dtype casts (dy = cast(dx), the sensitivity cast back); an
    integer or boolean one is piecewise constant in x, so it answers for the primal."""
    if device not in (None, "cpu"):
        raise NotDifferentiableError(f"numpy.astype with device={device!r}: dvlad computes on "
                                     f"the cpu; leave device= out")
    dt = np.dtype(dtype)
    if not isinstance(x, ADNumber):
        return np.astype(np.asarray(x), dt, copy=copy)
    have = _dtype_of(x)
    if dt == have:
        return _copy(x) if copy else x
    if dt.kind == "f":
        return _cast(x, dt)
    if dt.kind in "biu":
        return np.asarray(strip(x)).astype(dt)
    raise NotDifferentiableError(f"numpy.astype to {dt}: dvlad differentiates real numbers; "
                                 f"cast to a float dtype")


def _empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Uninitialized values: the prototype gives its shape and dtype only (plain, no derivative),
    as zeros_like."""
    return np.empty_like(strip(prototype), dtype, order, subok, shape, device=device)


# ---- ranges ----------------------------------------------------------------------------------

def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
              device=None):
    """y_k = start + k·(stop − start)/d, d = num − 1 (num without the endpoint), the last one
    stop itself: numpy's order of operations, so its values exactly; linear in start and
    stop.  An integer dtype floors (piecewise constant): it answers for the primals."""
    _plain("linspace", device=device)
    start, stop = _as_array(start), _as_array(stop)
    plain = np.linspace(strip(start), strip(stop), num, endpoint, True, None, 0)
    ref, numpy_step = plain
    if dtype is not None and np.dtype(dtype).kind in "biu":
        return np.linspace(strip(start), strip(stop), num, endpoint, retstep, dtype, axis)
    dt = ref.dtype
    divisor = (num - 1) if endpoint else num
    delta = stop - start
    if _dtype_of(delta) != dt:
        delta = _cast(delta, dt)
    y = np.arange(0, num, dtype=dt).reshape((-1,) + (1,) * _ndim(delta))
    step = numpy_step
    if divisor > 0:
        step = delta / divisor
        if np.any(np.asarray(strip(step)) == 0):      # numpy's way with subnormal steps
            y = (y / divisor) * delta
        else:
            y = y * step
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        last = np.zeros((num,) + (1,) * (_ndim(y) - 1), bool)
        last[-1] = True
        y = A.where(last, stop, y)
    if _dtype_of(y) != dt:
        y = _cast(y, dt)
    if axis != 0:
        y = _moveaxis(y, 0, axis)
    if dtype is not None and np.dtype(dtype) != dt:
        y = _astype(y, dtype)
    return (y, step) if retstep else y


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop): differentiable in start, stop and base."""
    if np.ndim(strip(base)):
        nd = np.broadcast(strip(start), strip(stop), strip(base)).ndim
        start, stop, base = (A.reshape(v, (1,) * (nd - _ndim(v)) + A.shape(v))
                             for v in map(_as_array, (start, stop, base)))
        base = A.expand_dims(base, axis)
    y = np.power(base, _linspace(start, stop, num, endpoint, axis=axis))
    return y if dtype is None else _astype(y, dtype)


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """A geometric sequence, s·10^linspace(log₁₀(start/s), log₁₀(stop/s)) with s = sign(start),
    its ends start and stop exactly (as numpy sets them)."""
    start, stop = _as_array(start), _as_array(stop)
    ps, pe = np.asarray(strip(start)), np.asarray(strip(stop))
    if np.any(ps == 0) or np.any(pe == 0):
        raise ValueError("Geometric sequence cannot include zero")
    if ps.dtype.kind == "c" or pe.dtype.kind == "c":
        raise NotDifferentiableError("numpy.geomspace of complex numbers: dvlad differentiates "
                                     "real ones")
    dt = np.result_type(ps, pe, float(num), np.zeros((), dtype))       # numpy's: float64
    start, stop = (v if _dtype_of(v) == dt else _cast(v, dt) for v in (start, stop))
    signs = np.sign(np.asarray(strip(start)))
    start, stop = start / signs, stop / signs
    r = _logspace(np.log10(start), np.log10(stop), num, endpoint, 10.0)
    if num > 0:
        ends = np.zeros((num,) + (1,) * (_ndim(r) - 1), bool)
        r = A.where(np.arange(num).reshape(ends.shape) == 0, start, r)
        if num > 1 and endpoint:
            ends[-1] = True
            r = A.where(ends, stop, r)
    r = r * signs
    if axis != 0:
        r = _moveaxis(r, 0, axis)
    return r if dtype is None or np.dtype(dtype) == dt else _astype(r, dtype)


def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays: x_i reshaped along axis i (axes 0 and 1 swapped for 'xy'), broadcast
    to the full grid unless sparse."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    nd = len(xi)
    out = []
    for i, x in enumerate(xi):
        shp = [1] * nd
        shp[1 if indexing == "xy" and nd > 1 and i == 0 else
            0 if indexing == "xy" and nd > 1 and i == 1 else i] = -1
        x = _as_array(x)
        out.append(A.reshape(x, tuple(shp)) if isinstance(x, ADNumber) else x.reshape(shp))
    if not sparse and out:
        shape = np.broadcast_shapes(*(A.shape(o) for o in out))
        out = [A.broadcast_to(o, shape) if isinstance(o, ADNumber) else
               np.broadcast_to(o, shape) for o in out]
        out = [_copy(o) if copy else o for o in out]
    return tuple(out)


def _ix(*args):
    """Open-mesh arrays: sequence k reshaped to (1, ..., n, ..., 1); booleans become indices."""
    out, nd = [], len(args)
    for k, a in enumerate(args):
        a = _as_array(a)
        if _ndim(a) != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if _dtype_of(a) == bool:
            a = np.nonzero(strip(a))[0]
        shp = (1,) * k + (-1,) + (1,) * (nd - k - 1)
        out.append(A.reshape(a, shp) if isinstance(a, ADNumber) else a.reshape(shp))
    return tuple(out)


# ---- axes --------------------------------------------------------------------------------------

def _rollaxis(a, axis, start=0):
    """numpy's rollaxis: ``axis`` moved to before position ``start``, a transpose."""
    n = _ndim(a)
    axis = axis % n if -n <= axis < n else _axis_error(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but "
                                      f"{start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return A.transpose(a, tuple(axes))


def _axis_error(axis, n):
    raise np.exceptions.AxisError(axis, n)


def _matrix_transpose(x, /):
    """The last two axes swapped: x[..., i, j] → x[..., j, i]."""
    if _ndim(x) < 2:
        raise ValueError("Input array must be at least 2-dimensional, but it is "
                         f"{_ndim(x)}")
    return A.swapaxes(x, -1, -2)


def _unstack(x, /, *, axis=0):
    """The slices of x along ``axis``, as a tuple."""
    x = _moveaxis(x, axis, 0)
    return tuple(A.getitem(x, k) for k in range(A.shape(x)[0]))


def _dsplit(ary, indices_or_sections):
    if _ndim(ary) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split(ary, indices_or_sections, 2)


# ---- assembling ---------------------------------------------------------------------------------

def _block(arrays):
    """numpy.block: the innermost lists concatenate along the last axis, the next ones along
    the one before, every piece first given the result's number of dimensions."""
    def depth(x, where):
        if type(x) is tuple:
            raise TypeError(f"{where} is a tuple. Only lists can be used to arrange blocks, "
                            f"and np.block does not allow implicit conversion from tuple to "
                            f"ndarray.")
        if type(x) is not list:
            return 0, _ndim(_as_array(x))
        if not x:
            raise ValueError(f"List at {where} cannot be empty")
        found = [depth(v, f"{where}[{k}]") for k, v in enumerate(x)]
        if len({d for d, _ in found}) != 1:
            raise ValueError(f"List depths are mismatched at {where}")
        return found[0][0] + 1, max(n for _, n in found)

    d, nd = depth(arrays, "arrays")
    nd = max(d, nd)

    def assemble(x, level):
        if type(x) is not list:
            x = _as_array(x)
            shp = (1,) * (nd - _ndim(x)) + A.shape(x)
            return A.reshape(x, shp) if isinstance(x, ADNumber) else x.reshape(shp)
        return A.concatenate([assemble(v, level + 1) for v in x], -(d - level))
    return assemble(arrays, 0) if d else _copy(_as_array(arrays))


def _insert(arr, obj, values, axis=None):
    """values inserted before the indices obj (numpy's placement and broadcasting, asked of
    numpy with labels): each element comes from arr or from values, linear in both."""
    arr, values = _as_array(arr), _as_array(values)
    if not isinstance(values, ADNumber) and not isinstance(arr, ADNumber):
        return np.insert(arr, strip(obj), values, axis)
    dt = _dtype_of(arr)
    if dt.kind != "f":
        return np.insert(np.asarray(strip(arr)), strip(obj), strip(values), axis)
    if _dtype_of(values) != dt:
        values = _cast(values, dt) if isinstance(values, ADNumber) else values.astype(dt)
    n = int(np.prod(A.shape(arr)))
    labels = np.insert(_labels(arr), strip(obj), _labels(values) + n, axis)
    return A.getitem(A.concatenate([_flat(arr), _flat(values)]), labels)


def _delete(arr, obj, axis=None):
    return _picked(_as_array(arr), np.delete, strip(obj), axis)


def _resize(a, new_shape):
    """a's elements repeated, in order, to fill new_shape (numpy's resize)."""
    return _picked(_as_array(a), np.resize, new_shape)


def _compress(condition, a, axis=None, out=None):
    _plain("compress", out=out)
    return _picked(_as_array(a), lambda lab: np.compress(strip(condition), lab, axis))


def _extract(condition, arr):
    return _picked(_as_array(arr), lambda lab: np.extract(strip(condition), lab))


def _trim_zeros(filt, trim="fb", axis=None):
    """filt without its leading and/or trailing zeros (the zeros of its primal; the remaining
    values are filt's, with their derivatives)."""
    p = np.asarray(strip(filt))
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = range(p.ndim) if axis is None else [ax % p.ndim for ax in np.atleast_1d(axis)]
    nonzero = np.argwhere(p)
    if nonzero.size == 0:
        lo = hi = np.zeros(p.ndim, int)
    else:
        lo, hi = nonzero.min(0), nonzero.max(0) + 1
        lo = lo if "f" in trim else [None] * p.ndim
        hi = hi if "b" in trim else [None] * p.ndim
    idx = tuple(slice(lo[k], hi[k]) if k in axes else slice(None) for k in range(p.ndim))
    return A.getitem(filt, idx)


def _partition(a, kth, axis=-1, kind="introselect", order=None):
    """The element that sorting would put at each kth, there; smaller ones before, larger after:
    a taken along numpy's argpartition (its derivative follows the elements)."""
    _plain("partition", order=order)
    a = _as_array(a)
    if axis is None:
        a, axis = _flat(a), 0
    idx = np.argpartition(strip(a), strip(kth), axis=axis, kind=kind)
    return _take_along_axis(a, idx, axis)


# ---- applying functions -------------------------------------------------------------------------

def _apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d on each 1-d slice along ``axis``; the results stacked, their own axes where
    ``axis`` was (numpy's layout).  Each call is dvlad's, so the derivative is func1d's."""
    arr = _as_array(arr)
    nd = _ndim(arr)
    axis = axis % nd if -nd <= axis < nd else _axis_error(axis, nd)
    moved = _moveaxis(arr, axis, -1)
    rest = A.shape(moved)[:-1]
    if 0 in rest:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    outs = [_as_array(func1d(A.getitem(moved, idx + (Ellipsis,)), *args, **kwargs))
            for idx in np.ndindex(*rest)]
    res = A.stack(outs, 0)
    res = A.reshape(res, rest + A.shape(outs[0]))
    k = _ndim(outs[0])
    order = list(range(axis)) + list(range(len(rest), len(rest) + k)) + \
        list(range(axis, len(rest)))
    return A.transpose(res, tuple(order)) if order != list(range(len(order))) else res


def _apply_over_axes(func, a, axes):
    """func(a, axis) for each axis in turn, a lost axis put back as length 1 (numpy's rule)."""
    val = _as_array(a)
    for axis in np.atleast_1d(axes):
        axis = int(axis) % _ndim(val)
        res = func(val, axis)
        if _ndim(res) != _ndim(val):
            res = A.expand_dims(res, axis) if isinstance(res, ADNumber) else \
                np.expand_dims(res, axis)
            if _ndim(res) != _ndim(val):
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


FUNCTIONS = {
    np.copy: _copy, np.astype: _astype, np.empty_like: _empty_like, np.linspace: _linspace,
    np.logspace: _logspace, np.geomspace: _geomspace, np.meshgrid: _meshgrid, np.ix_: _ix,
    np.rollaxis: _rollaxis, np.matrix_transpose: _matrix_transpose,
    np.linalg.matrix_transpose: _matrix_transpose, np.unstack: _unstack, np.dsplit: _dsplit,
    np.block: _block, np.insert: _insert, np.delete: _delete, np.resize: _resize,
    np.compress: _compress, np.extract: _extract, np.trim_zeros: _trim_zeros,
    np.partition: _partition, np.apply_along_axis: _apply_along_axis,
    np.apply_over_axes: _apply_over_axes,
}
