"""Untagged dual numbers: forward AD that is WRONG ON PURPOSE, to show perturbation confusion.

Every derivative here uses the same, untagged ε, so nested derivatives mix up their
perturbations.  Use it to demonstrate the bug; never to compute a derivative you need.

>>> from dvlad import naive
>>> naive.derivative(lambda x: x * naive.derivative(lambda y: x + y)(1.0))(1.0)   # wrong
2.0
>>> import dvlad
>>> dvlad.derivative(lambda x: x * dvlad.derivative(lambda y: x + y)(1.0))(1.0)   # right
1.0

The inner derivative should be d/dy (x + y) = 1 whatever x is, so the answer is d/dx (x·1) = 1.
Here the inner call's ε cannot tell x's perturbation from y's: the tangent of x + y is 1 + 1 = 2,
and the outer derivative of x·2 is 2 (Siskind & Pearlmutter, 2005).
"""
import math

__all__ = ["Dual", "derivative", "sin", "cos", "exp"]


class Dual:
    """primal + tangent·ε with ONE ε shared by every derivative: no tag, hence the confusion."""

    __slots__ = ("primal", "tangent")

    def __init__(self, primal, tangent):
        self.primal, self.tangent = primal, tangent

    def __repr__(self):
        return f"Dual({self.primal!r}, {self.tangent!r})"

    def __add__(self, other):
        p, t = _parts(other)
        return Dual(self.primal + p, self.tangent + t)

    __radd__ = __add__

    def __sub__(self, other):
        p, t = _parts(other)
        return Dual(self.primal - p, self.tangent - t)

    def __rsub__(self, other):
        p, t = _parts(other)
        return Dual(p - self.primal, t - self.tangent)

    def __mul__(self, other):
        p, t = _parts(other)
        return Dual(self.primal * p, self.primal * t + self.tangent * p)

    __rmul__ = __mul__


def _parts(x):
    return (x.primal, x.tangent) if isinstance(x, Dual) else (x, 0.0)


def derivative(f):
    """f′ with an untagged ε: right for one level, confused when nested."""
    def f_prime(x):
        y = f(Dual(x, 1.0))
        return y.tangent if isinstance(y, Dual) else 0.0
    return f_prime


def _unary(f, df):
    def g(x):
        if isinstance(x, Dual):
            return Dual(g(x.primal), df(x.primal) * x.tangent)
        return f(x)
    return g


sin = _unary(math.sin, lambda x: cos(x))
cos = _unary(math.cos, lambda x: -1.0 * sin(x))
exp = _unary(math.exp, lambda x: exp(x))
