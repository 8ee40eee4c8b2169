"""What every derivative operator shares: the applied-operator object (picklable), and the
checks of what users pass in (a real number, one real value, a direction shaped as its point)."""
import functools

import numpy as np

from ..core.number import ARRAY_OPS, ADNumber, strip, strip_dead
from ..core.structures import describe, is_number
from ..core.tags import ArgumentError, NotDifferentiableError

__all__ = ["Applied", "Bound", "_real", "_scalar", "_same_shapes", "_is_zero"]


class Applied:
    """An operator applied to f (``derivative(f)``, ``gradient_r(f)``, ...): a callable object
    rather than a closure, so that it pickles whenever f does (process pools, Dask).  Each
    subclass's ``__call__`` is the operator at a point."""

    __slots__ = ("f",)
    origin = "an operator"

    def __init__(self, f):
        self.f = f

    @property
    def __name__(self):
        return f"{self.origin}({getattr(self.f, '__name__', 'f')})"

    @property
    def __wrapped__(self):
        """f: inspect.signature and inspect.getsource see f's (the operator takes f's
        arguments), also through dvlad.compile and functools.wraps."""
        return self.f

    def __repr__(self):
        return f"{self.origin}({self.f!r})"

    def __reduce__(self):
        return type(self), (self.f,)


class Bound(Applied):
    """``make(f)`` taken with respect to argument ``argnums`` of ``f(*args)`` (an int, or a
    tuple: then the result is a tuple, one per argument), the other arguments, positional or
    keyword, held constant and passed to f unchanged.  ``has_aux``: f returns ``(value, aux)``; the result is
    ``(result, aux)``, aux without this derivative's perturbation.  ``per_argument``: the
    operator takes one number (derivative), so a tuple of argnums is taken one at a time."""

    __slots__ = ("make", "argnums", "has_aux", "per_argument")

    def __init__(self, make, f, argnums=0, has_aux=False, per_argument=False):
        Applied.__init__(self, f)
        self.make, self.argnums, self.has_aux = make, argnums, has_aux
        self.per_argument = per_argument
        for n in (argnums if isinstance(argnums, tuple) else (argnums,)):
            if type(n) is not int:
                raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")

    @property
    def origin(self):
        return getattr(self.make, "__name__", "an operator")

    def __reduce__(self):
        return Bound, (self.make, self.f, self.argnums, self.has_aux, self.per_argument)

    def __call__(self, *args, **keywords):
        if keywords:                # f's keyword arguments: held constant, passed unchanged
            return Bound(self.make, functools.partial(self.f, **keywords), self.argnums,
                         self.has_aux, self.per_argument)(*args)
        argnums = self.argnums
        named = argnums if isinstance(argnums, tuple) else (argnums,)
        if len({n % max(len(args), 1) for n in named}) < len(named):
            raise ArgumentError(f"{self.origin}: argnums {argnums!r} names an argument twice; "
                                f"name each once (and repeat its result yourself)")
        for n in named:
            if not -len(args) <= n < len(args):
                raise ArgumentError(f"{self.origin}: argnums {argnums!r} names argument {n}, but "
                                 f"f got {len(args)} argument(s)")
        if isinstance(argnums, tuple) and self.per_argument:
            each = [Bound(self.make, self.f, n, self.has_aux)(*args) for n in argnums]
            if self.has_aux:                # ((d₀, d₁, ...), aux), JAX's convention
                return tuple(d for d, _ in each), (each[0][1] if each else None)
            return tuple(each)
        f, aux = self.f, []

        def value_of(r):
            if not self.has_aux:
                return r
            if not (isinstance(r, tuple) and len(r) == 2):
                raise ValueError(f"{self.origin} with has_aux=True: f must return a pair "
                                 f"(value, aux); got {type(r).__name__}")
            aux[:] = [r[1]]
            return r[0]

        if isinstance(argnums, tuple):
            def g(xs):
                full = list(args)
                for n, x in zip(argnums, xs):
                    full[n] = x
                return value_of(f(*full))
            result = _by_argument(self.make(g)(tuple(args[n] for n in argnums)),
                                  self.origin == "hessian")
        else:
            def g(x):
                return value_of(f(*args[:argnums % len(args)], x,
                                  *args[argnums % len(args) + 1:]))
            result = self.make(g)(args[argnums])
        if self.has_aux:
            return result, _without_dead_layers(aux[0])
        return result


def _by_argument(result, pairs):
    """A Jacobian's or Hessian's matrix of blocks (lists, by output and argument) as JAX gives
    it for a tuple of argnums: tuples, one entry per argument (a Hessian: per pair); a
    Jacobian of one output leaf is the tuple of its blocks."""
    if type(result) is not list or not result or not all(type(r) is list for r in result):
        return result
    rows = tuple(tuple(r) for r in result)
    return rows if pairs or len(rows) > 1 else rows[0]


def _without_dead_layers(v):
    """v (any structure) with the layers of finished derivative calls stripped: plain numbers,
    unless an outer derivative is still running (then its perturbation stays, so that aux
    differentiates in it)."""
    if isinstance(v, ADNumber):
        return strip_dead(v)
    if isinstance(v, (tuple, list)) and not hasattr(v, "_fields"):
        return type(v)(_without_dead_layers(u) for u in v)
    if isinstance(v, tuple):                          # a namedtuple
        return type(v)(*(_without_dead_layers(u) for u in v))
    if isinstance(v, dict):
        return type(v)((k, _without_dead_layers(u)) for k, u in v.items())
    if isinstance(v, np.ndarray) and v.dtype == object:
        out = np.array([_without_dead_layers(u) for u in v.flat], dtype=object).reshape(v.shape)
        return ARRAY_OPS["repack"](out) if out.size else out    # plain numbers: a float array
    return v


def _real(x, who):
    if not is_number(x):
        what = "a function" if callable(x) else describe(x)
        raise NotDifferentiableError(f"{who} must be a real number; got {what}")
    return x


def unboxed(y):
    """A 0-d object array's one element (np.array(loss) of a dvlad number), else y."""
    if type(y) is np.ndarray and y.dtype == object and y.ndim == 0:
        return y[()]
    return y


def _scalar(y, who):
    """y, if it is one real number (a 0-d array counts); else a named TypeError."""
    y = unboxed(y)
    _real(y, who)
    if isinstance(strip(y), (bool, np.bool_)):
        raise NotDifferentiableError(f"{who} must be a real number; got a bool ({y!r}): a "
                                     f"comparison has no derivative")
    if np.ndim(strip(y)):
        raise NotDifferentiableError(
            f"{who} must be one real number; got an array of shape {np.shape(strip(y))}. "
            f"For array-valued functions use jacobian_r, jacobian_f or vjp")
    return y


def _same_shapes(points, others, what, against):
    """``others`` (a direction, a cotangent) has the structure and every leaf's shape of
    ``points``; numpy would otherwise broadcast a wrong shape into a wrong answer."""
    if len(others) != len(points):
        raise ValueError(f"{what} has {len(others)} leaves, {against} {len(points)}; give them "
                         f"the same structure")
    for k, (p, o) in enumerate(zip(points, others)):
        if np.shape(strip(p)) != np.shape(strip(o)):
            raise ValueError(f"{what}'s leaf {k} has shape {np.shape(strip(o))}, {against}'s "
                             f"{np.shape(strip(p))}; give them the same shapes")


def _is_zero(b):
    """A direction that is exactly 0 (every element of it), with no perturbation of its own."""
    if isinstance(b, ADNumber):
        return False
    if isinstance(b, np.ndarray):
        return not b.any()
    return b == 0
