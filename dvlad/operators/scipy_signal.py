"""scipy.signal's convolve, correlate, fftconvolve, oaconvolve, convolve2d and correlate2d on
dvlad numbers.

scipy convolves in C (or by FFT, in complex numbers) on float arrays; a dvlad number reached it
as an object array ("Unsupported type").  Installed over scipy.signal: with a dvlad number in
either input, the full convolution of in1 (shape A) and in2 (shape B) is written with numpy's
operations, so it differentiates in every mode and nests:

    full[i] = Σₖ in1[i − k] · in2[k]  =  Σⱼ pad(in1)[i + j] · flip(in2)[j],

the sum over the windows of in1 padded by B − 1 zeros on each side (a tensordot), and the
modes crop it as scipy does ('same': centred on in1's shape; 'valid': the |A − B| + 1 points
where one input covers the other, in1 and in2 swapped when in2 is the larger).  correlate is
convolve with in2 flipped; fftconvolve and oaconvolve (their ``axes`` must be every axis)
give the same numbers up to rounding, computed directly.  convolve2d and correlate2d take
boundary='fill' with fillvalue 0 only.  Calls without dvlad numbers are scipy's own.
"""
import numpy as np

from ..core.tags import NotDifferentiableError
from .scipy_functions import _array


def _full(a, b):
    """The full convolution of a and b (same number of dimensions)."""
    shape_b = np.shape(b)
    padded = np.pad(a, [(n - 1, n - 1) for n in shape_b])
    windows = np.lib.stride_tricks.sliding_window_view(padded, shape_b)
    return np.tensordot(windows, np.flip(b), axes=len(shape_b))


def _convolve(in1, in2, mode, name, late=False):
    a, b = _array(in1), _array(in2)
    sa, sb = np.shape(a), np.shape(b)
    if len(sa) != len(sb):
        raise ValueError("in1 and in2 should have the same dimensionality")
    if 0 in sa or 0 in sb:
        return np.zeros(tuple(0 for _ in sa))
    if mode not in ("full", "same", "valid"):
        raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")
    if mode == "valid":
        if all(m >= n for m, n in zip(sb, sa)) and sa != sb:
            a, b, sa, sb = b, a, sb, sa         # scipy swaps: in2 covers in1 (convolution commutes)
        elif not all(m >= n for m, n in zip(sa, sb)):
            raise ValueError(f"For 'valid' mode, one must be at least as large as the other in "
                             f"every dimension ({name})")
    full = _full(a, b)
    if mode == "full":
        return full
    if mode == "same":
        start = [(f - n + late) // 2 for f, n in zip(np.shape(full), sa)]  # (see correlate2d)
        size = sa
    else:
        start = [n - 1 for n in sb]
        size = [m - n + 1 for m, n in zip(sa, sb)]
    return full[tuple(slice(s, s + n) for s, n in zip(start, size))]


def convolve(in1, in2, mode="full", method="auto"):
    """scipy.signal.convolve of dvlad numbers (see the module docstring); ``method`` only picks
    how scipy would compute the same numbers."""
    if method not in ("auto", "direct", "fft"):
        raise ValueError("acceptable method flags are 'auto', 'direct', or 'fft'")
    return _convolve(in1, in2, mode, "convolve")


def correlate(in1, in2, mode="full", method="auto", *, late=False):
    """scipy.signal.correlate of real dvlad numbers: convolve with in2 flipped on every axis
    (scipy's 'valid' swap flips the result back).  (late: correlate2d's 'same' window, which
    starts half a point later than correlate's when the crop is odd.)"""
    if method not in ("auto", "direct", "fft"):
        raise ValueError("acceptable method flags are 'auto', 'direct', or 'fft'")
    a, b = _array(in1), _array(in2)
    swapped = mode == "valid" and np.ndim(a) == np.ndim(b) and np.shape(a) != np.shape(b) and \
        all(m >= n for m, n in zip(np.shape(b), np.shape(a)))
    if swapped:                 # scipy: correlate(in2, in1) reversed, so the lags keep their sign
        return np.flip(_convolve(b, np.flip(a), mode, "correlate"))
    return _convolve(a, np.flip(b), mode, "correlate", late)


def _all_axes(axes, in1, name):
    if axes is not None and sorted(np.atleast_1d(axes) % max(np.ndim(in1), 1)) != \
            list(range(np.ndim(in1))):
        raise NotDifferentiableError(f"scipy.signal.{name} with axes={axes!r} of dvlad numbers: "
                                     "dvlad convolves over every axis; loop over the others")


def fftconvolve(in1, in2, mode="full", axes=None):
    """scipy.signal.fftconvolve of dvlad numbers: the direct convolution (the same numbers up
    to rounding), over every axis."""
    _all_axes(axes, in1, "fftconvolve")
    return _convolve(in1, in2, mode, "fftconvolve")


def oaconvolve(in1, in2, mode="full", axes=None):
    """scipy.signal.oaconvolve of dvlad numbers: as fftconvolve."""
    _all_axes(axes, in1, "oaconvolve")
    return _convolve(in1, in2, mode, "oaconvolve")


def _two_d(name, fn):
    def function(in1, in2, mode="full", boundary="fill", fillvalue=0):
        if np.ndim(in1) != 2 or np.ndim(in2) != 2:
            raise ValueError(f"{name} inputs must both be 2-D arrays")
        if boundary not in ("fill", "pad") or fillvalue != 0:
            raise NotDifferentiableError(
                f"scipy.signal.{name}(boundary={boundary!r}, fillvalue={fillvalue!r}) of dvlad "
                "numbers: dvlad takes boundary='fill' with fillvalue=0; pad the input yourself "
                "(np.pad with mode='wrap' or 'symmetric') and use mode='valid'")
        return fn(in1, in2, mode)
    function.__name__ = name
    function.__doc__ = f"scipy.signal.{name} of dvlad numbers (boundary 'fill', fillvalue 0)."
    return function


def install(signal):
    from .scipy_functions import _patch
    for name, ours in (("convolve", convolve), ("correlate", correlate),
                       ("fftconvolve", fftconvolve), ("oaconvolve", oaconvolve),
                       ("convolve2d", _two_d("convolve2d", convolve)),
                       ("correlate2d", _two_d("correlate2d",
                                              lambda a, b, mode: correlate(a, b, mode, late=True)))):
        _patch(signal, name, ours)
