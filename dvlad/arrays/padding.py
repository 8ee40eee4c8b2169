"""numpy.pad on dvlad numbers, in every mode numpy has but 'empty', written with dvlad's array
operations (indexing, concatenate, broadcast_to, mean, amax, amin, median, arithmetic), so that
forward and reverse mode and every nesting come from those: no derivative is written here.

Like numpy, it pads one axis after the other, each over the array already padded along the
axes before it (a corner takes the later axis' values: the statistic of a row of the earlier
axis' pad, say).  Per axis:

- ``constant``: ``constant_values`` (a number, or pairs per side and axis as numpy reads them;
  it may carry a derivative itself);
- ``edge``, ``wrap``, ``reflect``, ``symmetric``: elements picked, at the indices numpy pads
  ``np.arange(n)`` with; ``reflect_type='odd'`` reflects through the edge, 2·edge − mirror
  image, round after round as numpy does when the pad is longer than the axis;
- ``mean``, ``maximum``, ``minimum``, ``median``: the statistic of the whole axis, or of the
  first and last ``stat_length`` elements; a maximum's derivative goes to the largest element
  (ties share it evenly), a median's to the middle one or two, as np.max's and np.median's;
- ``linear_ramp``: ``end + k·(edge − end)/width``, k = 0 … width − 1, as numpy's
  ``np.linspace(end, edge, width, endpoint=False)``; ``end_values`` may carry a derivative.

'empty' leaves the pad undefined (whatever the memory held) and a function as the mode writes
into a plain array: both raise NotDifferentiableError.

>>> import numpy as np, dvlad
>>> dvlad.gradient_r(lambda x: np.sum(np.pad(x, 2, mode="maximum")))(np.array([1., 3., 2.]))
array([1., 5., 1.])
"""
import numpy as np

from . import primitives as A
from .composite import _as_array, _axis_slices
from .statistics import _median
from ..core.base import dtype_of
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

__all__ = ["pad", "FUNCTIONS"]

_KEYWORDS = {"constant": ("constant_values",), "edge": (), "wrap": (), "empty": (),
             "linear_ramp": ("end_values",), "reflect": ("reflect_type",),
             "symmetric": ("reflect_type",), "mean": ("stat_length",),
             "maximum": ("stat_length",), "minimum": ("stat_length",),
             "median": ("stat_length",)}


def _pairs(v, nd):
    """v as numpy's pad reads a per-axis, per-side argument: [[before, after]] * nd, each entry
    one element of v (an AD number's elements are AD numbers)."""
    shp = A.shape(v) if isinstance(v, ADNumber) else np.shape(v)
    grid = np.arange(int(np.prod(shp))).reshape(shp)
    if grid.ndim < 3 and grid.size == 1:
        pos = np.zeros((nd, 2), int)
    elif grid.ndim < 3 and grid.size == 2 and grid.shape != (2, 1):
        pos = np.broadcast_to(grid.ravel(), (nd, 2))
    else:
        pos = np.broadcast_to(grid, (nd, 2))
    flat = A.reshape(v, (-1,)) if isinstance(v, ADNumber) else np.ravel(np.asarray(v))
    return [[flat[int(p)] for p in row] for row in pos]


def _index_pairs(v, nd):
    """Widths and lengths: rounded to integers, never negative; None stays None."""
    if v is None:
        return [[None, None]] * nd
    v = np.round(np.asarray(strip(v))).astype(np.intp)
    if v.size and v.min() < 0:
        raise ValueError("index can't contain negative values")
    return [[int(k) for k in row] for row in _pairs(v, nd)]


def _widths(pad_width, nd):
    if isinstance(pad_width, dict):                  # numpy ≥ 2.3: {axis: width or pair}
        seq = [(0, 0)] * nd
        for ax, w in pad_width.items():
            seq[ax] = (w, w) if np.ndim(w) == 0 else tuple(w)
        pad_width = seq
    if np.asarray(pad_width).dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return _index_pairs(pad_width, nd)


def _along(a, ax, idx):
    return A.getitem(a, _axis_slices(len(A.shape(a)), ax, idx))


def _block(a, ax, width, value):
    """``value`` (a number, or a statistic with a length-1 axis ax) filling a pad of ``width``."""
    shp = list(A.shape(a))
    shp[ax] = width
    if isinstance(value, ADNumber):
        return A.broadcast_to(value, tuple(shp))
    return np.broadcast_to(np.asarray(value, dtype=_float(a)), tuple(shp))


def _float(a):
    dt = dtype_of(strip(a))
    return dt if np.dtype(dt).kind == "f" else np.float64


def _joined(a, ax, left, right):
    return A.concatenate([p for p in (left, a, right) if p is not None], ax)


def _constant(a, ax, lo, hi, kw, nd):
    c = _pairs(kw.get("constant_values", 0), nd)[ax]
    return _joined(a, ax, _block(a, ax, lo, c[0]) if lo else None,
                   _block(a, ax, hi, c[1]) if hi else None)


def _picked(mode):
    """edge, wrap and the even reflections: elements picked, at numpy's own indices."""
    def picked(a, ax, lo, hi, kw, nd):
        if mode in ("reflect", "symmetric") and kw.get("reflect_type") == "odd":
            return _odd(a, ax, lo, hi, mode == "symmetric")
        return _along(a, ax, np.pad(np.arange(A.shape(a)[ax]), (lo, hi), mode=mode))
    return picked


def _odd(a, ax, lo, hi, include_edge):
    """reflect_type='odd': 2·edge − the mirror image, round by round as numpy's
    ``_set_reflect_both`` (each round reflects what the rounds before it made)."""
    n = A.shape(a)[ax]
    if n == 1:                                       # numpy: the edge, repeated
        return _along(a, ax, np.zeros(lo + n + hi, int))
    while lo > 0 or hi > 0:
        length = A.shape(a)[ax]
        if include_edge:
            old, off = length // n * n, 1
        else:
            old, off = (length - 1) // (n - 1) * (n - 1), 0
        if lo > 0:
            k = min(old, lo)
            image = _along(a, ax, np.arange(k - off, -off, -1))
            a = _joined(a, ax, 2 * _along(a, ax, slice(0, 1)) - image, None)
            lo -= k
        if hi > 0:
            k = min(old, hi)
            length = A.shape(a)[ax]
            image = _along(a, ax, length + np.arange(off - 2, off - 2 - k, -1))
            a = _joined(a, ax, None, 2 * _along(a, ax, slice(length - 1, length)) - image)
            hi -= k
    return a


_STATISTICS = {"mean": lambda x, ax: A.mean(x, ax, True),
               "maximum": lambda x, ax: A.amax(x, ax, True),
               "minimum": lambda x, ax: A.amin(x, ax, True),
               "median": lambda x, ax: _median(x, ax, keepdims=True)}


def _statistic(mode):
    """mean, maximum, minimum, median of the first and last stat_length elements of the axis."""
    def statistic(a, ax, lo, hi, kw, nd):
        n = A.shape(a)[ax]
        first, last = (n if k is None or k > n else k
                       for k in _index_pairs(kw.get("stat_length"), nd)[ax])
        if 0 in (first, last) and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        if not (lo or hi):
            return a

        def of(part):
            if A.shape(part)[ax] == 0:               # numpy: the mean of nothing, nan
                return np.nan
            return _STATISTICS[mode](part, ax)
        left = of(_along(a, ax, slice(0, first)))
        right = left if first == last == n else of(_along(a, ax, slice(n - last, n)))
        return _joined(a, ax, _block(a, ax, lo, left) if lo else None,
                       _block(a, ax, hi, right) if hi else None)
    return statistic


def _linear_ramp(a, ax, lo, hi, kw, nd):
    """end + k·(edge − end)/width, k = 0, 1, …: numpy's linspace(end, edge, endpoint=False)."""
    ends = _pairs(kw.get("end_values", 0), nd)[ax]
    n, nd_a = A.shape(a)[ax], len(A.shape(a))

    def ramp(end, edge, width, reverse):
        k = np.arange(width, dtype=_float(a))
        k = (k[::-1] if reverse else k).reshape([width if i == ax else 1 for i in range(nd_a)])
        if not isinstance(end, ADNumber):           # (numpy casts it to the array's dtype)
            end = np.asarray(end, dtype=_float(a))
        return end + k * ((edge - end) / width)     # (edge spans the other axes: a full block)
    return _joined(a, ax, ramp(ends[0], _along(a, ax, slice(0, 1)), lo, False) if lo else None,
                   ramp(ends[1], _along(a, ax, slice(n - 1, n)), hi, True) if hi else None)


_MODES = {"constant": _constant, "linear_ramp": _linear_ramp,
          **{m: _picked(m) for m in ("edge", "wrap", "reflect", "symmetric")},
          **{m: _statistic(m) for m in _STATISTICS}}


def pad(array, pad_width, mode="constant", **kwargs):
    """np.pad(array, pad_width, mode, ...) with numpy's signature, modes and keywords."""
    if callable(mode):
        raise NotDifferentiableError(
            f"numpy.pad with a function as its mode ({getattr(mode, '__name__', mode)}): numpy "
            f"has it write into a plain array, which would drop the derivative. Use a named "
            f"mode, or build the pad with np.concatenate")
    if mode not in _KEYWORDS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - set(_KEYWORDS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if mode == "empty":
        raise NotDifferentiableError(
            "numpy.pad with mode='empty': the pad's values are undefined (whatever the memory "
            "held), so they have no derivative. Use mode='constant' (zeros) instead")
    array = _as_array(array)
    nd = len(A.shape(array))
    widths = _widths(pad_width, nd)
    if mode != "constant":
        for ax, (n, (lo, hi)) in enumerate(zip(A.shape(array), widths)):
            if n == 0 and (lo or hi):
                raise ValueError(f"can't extend empty axis {ax} using modes other than "
                                 f"'constant' or 'empty'")
    out = array
    for ax, (lo, hi) in enumerate(widths):
        if lo or hi or mode in _STATISTICS:
            out = _MODES[mode](out, ax, lo, hi, kwargs, nd)
    return out


FUNCTIONS = {np.pad: pad}
