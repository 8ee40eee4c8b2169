"""Traced arrays: numpy arrays that write down what is done to them.

A float array argument of a compiled function becomes a :class:`TracedArray` while F is
traced.  It is not an ndarray (numpy's C code cannot read its elements: asking it to, through
``np.asarray``, the buffer protocol or a plain array's ``__setitem__``, abandons the trace
and F goes on with the concrete array), but it says it is one to ``isinstance``, so dvlad
and numpy-minded code treat it as an array, and every numpy function and ufunc reaches it
through numpy's protocols (``__array_function__``, ``__array_ufunc__``).  Each operation is
computed on the concrete array and appended to the trace, with its keyword arguments and the
containers it was given (``np.stack([a, b])``); so are the array's methods and operators,
in-place ones included (``a += b``, ``a[i] = v``, ``out=``), in order, so the replay writes
where F wrote.

What the trace sees of an array without recording it is its kind: shape, dtype, strides and
flags, the same on every call of a trace (they are part of its key).  A result whose shape
depends on values (boolean indexing, ``nonzero``, ``unique``) gets a guard on its shape.  A
value made by a traced operation keeps its identity: an operation that returns its own
argument (``np.asanyarray``, ``out=``, ``a += b``) returns the same traced array, so ``is``
answers as it would eagerly.
"""
import operator

import numpy as np

from . import traced as _traced
from .record import _PURE_UFUNC_METHODS, apply
from .traced import Traced, Untraceable, where

class _Flags:
    """A traced array's flags (setting one changes the concrete array behind the trace's back:
    the trace is abandoned)."""

    def __init__(self, flags, trace):
        object.__setattr__(self, "_f", flags)
        object.__setattr__(self, "_trace", trace)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __getitem__(self, name):
        return self._f[name]

    def __setattr__(self, name, value):
        self._trace.abandon("F changes an array's flags")
        setattr(self._f, name, value)


class TracedArray(Traced):
    """A float (or integer, boolean) numpy array that records what is done to it; see the
    module docstring.  ``isinstance(a, np.ndarray)`` is true, ``type(a) is np.ndarray`` not."""

    __slots__ = ("__weakref__",)
    _dvlad_family = None

    @property
    def __class__(self):
        return np.ndarray

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        return apply(name, fn, inputs, kwargs, self.trace, method in _PURE_UFUNC_METHODS, True)

    def __array__(self, dtype=None, copy=None):
        self._check()
        self.trace.abandon("numpy was asked to make a plain array of a traced array (np.asarray,"
                           " np.array, an assignment into a plain array): the tracer cannot "
                           "follow its elements from there")
        if copy:
            return np.array(self.value, dtype=dtype, copy=True)
        return np.asarray(self.value, dtype=dtype)

    def __repr__(self):
        if self.trace.done:
            return f"TracedArray(v{self.ref}, shape={self.value.shape}, after its trace)"
        self.trace.abandon("F writes a traced array as text (repr, str, format): F runs eagerly")
        return repr(self.value)

    __str__ = __repr__

    def __format__(self, spec):
        self.__repr__()
        return format(self.value, spec)

    def __getattr__(self, name):
        if name in ("__array_interface__", "__array_struct__"):   # a reader of the memory
            self.trace.abandon(f"a traced array's {name} was read (its memory is not followed)")
            return getattr(self.value, name)
        if name.startswith("__") or not hasattr(np.ndarray, name):
            raise AttributeError(f"'numpy.ndarray' object has no attribute {name!r}")
        self._check()
        self.trace.abandon(f"a traced array's {name!r} (not followed by dvlad.compile)")
        return getattr(self.value, name)

    # ---- what every call of a trace has in common ------------------------------------------
    shape = property(lambda s: s.value.shape)
    dtype = property(lambda s: s.value.dtype)
    ndim = property(lambda s: s.value.ndim)
    size = property(lambda s: s.value.size)
    itemsize = property(lambda s: s.value.itemsize)
    nbytes = property(lambda s: s.value.nbytes)
    strides = property(lambda s: s.value.strides)
    flags = property(lambda s: _Flags(s.value.flags, s.trace))

    @property
    def base(self):
        """None, or (for a view) the traced array it views, or a stand-in that cannot be read
        (the concrete array must not escape)."""
        b = self.value.base
        if b is None or self.trace.abandoned is not None:
            return b
        return self.trace.known(b) or _ELSEWHERE

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return (self[k] for k in range(len(self.value)))


    __hash__ = None

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __getitem__(self, idx):
        return apply("getitem", operator.getitem, (self, idx), {}, self.trace, True)

    def _dvlad_index(self, x):
        """Plain array x indexed by this array (numpy would read this one's elements)."""
        return apply("getitem", operator.getitem, (x, self), {}, self.trace, True)

    def __setitem__(self, idx, v):
        apply("setitem", operator.setitem, (self, idx, v), {}, self.trace, False)

    def _dvlad_cast(self, kind):
        return self.astype(kind)


def _operator(fn, reflected=False):
    def method(self, other):
        return apply(fn.__name__, fn, (other, self) if reflected else (self, other), {},
                     self.trace, not fn.__name__.startswith("i"), not fn.__name__.startswith("i"))
    return method


def _unary(fn):
    return lambda self: apply(fn.__name__, fn, (self,), {}, self.trace, True)


def _method(name, pure=True):
    fn = getattr(np.ndarray, name)

    def method(self, *args, **kwargs):
        return apply(name, fn, (self,) + args, kwargs, self.trace, pure)
    method.__name__ = name
    return method


def _conversion(fn):
    """bool(a), float(a), int(a), ...: the concrete array's answer (numpy's error for several
    elements), kept as a guard."""
    def method(self):
        self._check()
        r = fn(self.value)
        if self.trace.abandoned is None:
            self.trace.ops.append(("guard", fn.__name__, fn, (self,), r, where()))
        return r
    return method


def _install():
    for fn in (bool, float, int, complex, operator.index):
        setattr(TracedArray, f"__{fn.__name__}__", _conversion(fn))
    for fn in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
               operator.mod, operator.pow, operator.matmul, operator.and_, operator.or_,
               operator.xor, operator.lshift, operator.rshift):
        name = fn.__name__.strip("_")
        setattr(TracedArray, f"__{name}__", _operator(fn))
        setattr(TracedArray, f"__r{name}__", _operator(fn, True))
        inplace = getattr(operator, f"i{name}")
        setattr(TracedArray, f"__i{name}__", _operator(inplace))
    for fn in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        setattr(TracedArray, f"__{fn.__name__}__", _operator(fn))
    for fn in (operator.neg, operator.pos, operator.abs, operator.invert):
        setattr(TracedArray, f"__{fn.__name__.strip('_')}__", _unary(fn))
    TracedArray.__divmod__ = _operator(divmod)
    for name in ("sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin",
                 "cumsum", "cumprod", "dot", "clip", "conj", "conjugate", "any", "all",
                 "reshape", "transpose", "ravel", "flatten", "squeeze", "swapaxes", "diagonal",
                 "astype", "copy", "view", "repeat", "take", "searchsorted",
                 "argsort", "nonzero", "compress", "item", "tolist", "ptp", "choose",
                 "argpartition"):
        if hasattr(np.ndarray, name):
            setattr(TracedArray, name, _method(name))
    for name in ("fill", "sort", "partition", "put", "resize"):
        setattr(TracedArray, name, _method(name, pure=False))
    for name in ("T", "mT", "real", "imag"):
        getter = getattr(np.ndarray, name, None)
        if getter is not None:
            fn = _attribute(name, getter)
            setattr(TracedArray, name, property(
                lambda s, fn=fn, name=name: apply(name, fn, (s,), {}, s.trace, True)))


def _attribute(name, getter):
    def read(a):
        return getter.__get__(a)
    read.__name__ = read.__qualname__ = f"attribute_{name}"
    return read


class _Elsewhere:
    """The base of a traced view whose base the trace does not know."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Untraceable("the base of a traced view was read")


_ELSEWHERE = _Elsewhere()
_install()
_traced.ARRAYS.update(TracedArray=TracedArray, apply=apply)
