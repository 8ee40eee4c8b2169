"""What every derivative operator shares: the applied-operator object (picklable), and the
checks of what users pass in (a real number, one real value, a direction shaped as its point)."""
import numpy as np

from ..core.number import ADNumber, strip
from ..core.structures import describe, is_number
from ..core.tags import NotDifferentiableError

__all__ = ["Applied", "_real", "_scalar", "_same_shapes", "_is_zero"]


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

    def __repr__(self):
        return f"{self.origin}({self.f!r})"

    def __reduce__(self):
        return type(self), (self.f,)


def _real(x, who):
    if not is_number(x):
        what = "a function" if callable(x) else describe(x)
        raise NotDifferentiableError(f"{who} must be a real number; got {what}")
    return x


def _scalar(y, who):
    """y, if it is one real number (a 0-d array counts); else a named TypeError."""
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
