"""scipy.integrate.quad of an integrand (or limits) carrying dvlad numbers.

quad is QUADPACK in Fortran: it converts the integrand's value to a double, which for a dvlad
number raises.  Installed over scipy.integrate.quad: when the limits or ``args`` carry dvlad
numbers, or the integrand returns one, scipy integrates the primal (every perturbation
stripped) and reports its adaptive partition; on that partition, each subinterval's
21-point Gauss–Legendre rule is applied to the integrand itself, with the subintervals' ends
moving linearly with the limits a and b.  The result is scipy's value plus that sum's
perturbations: d/dθ ∫ f = ∫ ∂f/∂θ (the same rule on the partition that made f accurate), and
the limits' derivatives f(b)·db − f(a)·da come from the moving nodes, in every mode and order.
Finite limits only; weighted integrals (``weight=``) raise NotDifferentiableError.  Calls
without dvlad numbers are scipy's own.
"""
import math

import numpy as np

from .scipy_optimize import _Carried, _carries, _watched
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(21)


def _quad(original):
    def quad(func, a, b, args=(), full_output=0, epsabs=1.49e-8, epsrel=1.49e-8, limit=50,
             points=None, weight=None, *rest, **kwargs):
        """scipy's quad; with dvlad numbers, the sum described in the module docstring."""
        if not isinstance(args, tuple):
            args = (args,)
        if not any(_carries(v) for v in (a, b) + args):
            try:
                return original(_watched(func), a, b, args, full_output, epsabs, epsrel,
                                limit, points, weight, *rest, **kwargs)
            except _Carried:
                pass
        if weight is not None:
            raise NotDifferentiableError("scipy.integrate.quad with weight= of an integrand "
                                         "carrying dvlad numbers: write the weight into it")
        a0, b0 = float(strip(a)), float(strip(b))
        if a0 > b0:                                 # ∫_a^b = −∫_b^a
            r = quad(func, b, a, args, full_output, epsabs, epsrel, limit, points, weight,
                     *rest, **kwargs)
            return (-r[0],) + tuple(r[1:])
        if not (math.isfinite(a0) and math.isfinite(b0)):
            raise NotDifferentiableError("scipy.integrate.quad over an infinite interval, of an "
                                         "integrand carrying dvlad numbers: map it to a finite "
                                         "one (x = t/(1 − t²)) first")
        out = original(lambda x: float(strip(func(x, *args))), a0, b0, (), 1, epsabs, epsrel,
                       limit, points, None, *rest, **kwargs)
        value, error, info = out[0], out[1], out[2]
        total = _on_partition(func, args, a, b, a0, b0, info)
        result = value + (total - strip(total)) if isinstance(total, ADNumber) else value
        return (result, error) + tuple(out[2:]) if full_output else (result, error)
    return quad


def _on_partition(func, args, a, b, a0, b0, info):
    if a0 == b0:
        return 0.0
    last = int(info.get("last", 0))
    ends = sorted(set(info["alist"][:last]) | set(info["blist"][:last])) if last else [a0, b0]
    scale = (b - a) / (b0 - a0)
    total = 0.0
    for left, right in zip(ends[:-1], ends[1:]):
        lo, hi = a + (left - a0) * scale, a + (right - a0) * scale
        mid, half = (lo + hi) * 0.5, (hi - lo) * 0.5
        part = 0.0
        for t, w in zip(_NODES, _WEIGHTS):
            part = part + w * func(mid + half * t, *args)
        total = total + half * part
    return total


def install(integrate):
    original = getattr(integrate, "quad", None)
    if original is None or getattr(original, "_dvlad", False):
        return
    ours = _quad(original)
    ours.__name__ = ours.__qualname__ = "quad"
    ours.__doc__, ours.__wrapped__, ours._dvlad = original.__doc__, original, True
    integrate.quad = ours
