"""``np.vectorize(f)(x)`` with dvlad numbers among its arguments.

numpy's vectorize turns f into an object ufunc (``np.frompyfunc``) and casts what it returns to
``otypes``; an array that is a dvlad number reaches that ufunc whole, which has no rule, and a
float ``otypes`` would convert dvlad numbers to floats.  Installed over
``np.vectorize._vectorize_call``: when an argument carries a dvlad number, f runs on each
element (a scalar dvlad number; broadcasting as numpy's), and each output's elements are packed
into one array-valued number (:func:`dvlad.arrays.objects.repack`), so f's derivative is that
of f element by element, in every mode and nested.  A dvlad number that reaches f another way (a
closure, an ``excluded`` argument) is found when f returns one: numpy's call stops there and
starts again this way.  An integer or boolean ``otypes`` truncates as numpy (derivative 0).
Calls without dvlad numbers, and those with a ``signature``, are numpy's own (a signature with
dvlad numbers raises by name).
"""
import numpy as np

from .objects import Tracked, repack
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError


def _carries(a):
    return isinstance(a, (ADNumber, Tracked)) or (
        isinstance(a, np.ndarray) and a.dtype == object
        and any(isinstance(e, ADNumber) for e in a.flat)) or (
        type(a) in (list, tuple) and any(_carries(e) for e in a))


def _elements(a):
    """a as an object array of its elements (scalar dvlad numbers, plain numbers)."""
    a = np.asanyarray(a)
    return a.view(np.ndarray) if isinstance(a, Tracked) else np.asarray(a, dtype=object)


def _output(out, otype):
    """An output of f, element by element: one array-valued number where it holds dvlad
    numbers (an integer or boolean otype: the truncated primal, derivative 0, as astype);
    else numpy's array of the otype."""
    packed = repack(out)
    if not isinstance(packed, ADNumber):
        return np.asanyarray(out, dtype=otype)
    kind = np.dtype(otype).kind
    if kind in "iub":
        return np.asanyarray(strip(packed)).astype(otype)
    return packed if kind == "O" else packed.astype(otype)


class _Carried(Exception):
    """f returned a dvlad number where no argument carried one (a closure, an excluded one)."""


def install():
    original = np.vectorize._vectorize_call
    if getattr(original, "_dvlad", False):
        return

    def _vectorize_call(self, func, args):
        if not any(_carries(a) for a in args):
            def watched(*xs):
                r = func(*xs)
                if _carries(r) or type(r) is tuple and any(_carries(e) for e in r):
                    raise _Carried
                return r
            try:
                return original(self, watched if args else func, args)
            except _Carried:
                pass
        if self.signature is not None:
            raise NotDifferentiableError(
                "np.vectorize with a signature has no dvlad rule for dvlad numbers: loop over "
                "the core dimensions yourself, or stack f's results with np.stack")
        ufunc, otypes = self._get_ufunc_and_otypes(func=func, args=args)
        outputs = ufunc(*[_elements(a) for a in args])
        if ufunc.nout == 1:
            return _output(outputs, otypes[0])
        return tuple(_output(o, t) for o, t in zip(outputs, otypes))
    _vectorize_call._dvlad = True
    _vectorize_call.__wrapped__ = original
    np.vectorize._vectorize_call = _vectorize_call
