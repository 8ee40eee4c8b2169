"""scipy.integrate.quad and solve_ivp of problems carrying dvlad numbers.

quad is QUADPACK in Fortran: it converts the integrand's value to a double, which for a dvlad
number raises.  Installed over scipy.integrate.quad: when the limits or ``args`` carry dvlad
numbers, or the integrand returns one, scipy integrates the primal (every perturbation
stripped) and reports its adaptive partition; on that partition, each subinterval's
21-point Gauss–Legendre rule is applied to the integrand itself, with the subintervals' ends
moving linearly with the limits a and b.  The result is scipy's value plus that sum's
perturbations: d/dθ ∫ f = ∫ ∂f/∂θ (the same rule on the partition that made f accurate), and
the limits' derivatives f(b)·db − f(a)·da come from the moving nodes, in every mode and order.
Finite limits only; weighted integrals (``weight=``) raise NotDifferentiableError.  The
derivative is as accurate as that rule on scipy's partition: for a ∂f/∂θ that is singular at an
end where f is not (∫₀¹ xᵃ dx in a, at a < 0: log x·xᵃ), it is off in the percents; split the
interval, or give ``points``, where it matters.

solve_ivp casts y0 to floats.  With dvlad numbers in y0, in ``args`` or in what fun returns,
scipy solves the primal problem on its own time grid, and :func:`dvlad.odeint` (tangent and
adjoint systems, every mode and order) solves it again at those times with the same rtol and
atol; the answer is scipy's solution plus odeint's perturbations.  A fun that closes over a
perturbed variable raises TagOrderError (pass it through ``args``); ``events`` and
``dense_output`` raise NotDifferentiableError.  Calls without dvlad numbers are scipy's own.
"""
import math

import numpy as np

from .scipy_optimize import _Carried, _carries, _plain, _watched, replace
from ..core.number import ADNumber, strip
from ..core.tags import NotDifferentiableError, TagOrderError

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(21)


def _quad(original):
    def quad(func, a, b, args=(), full_output=0, epsabs=1.49e-8, epsrel=1.49e-8, limit=50,
             points=None, weight=None, *rest, **kwargs):
        """scipy's quad; with dvlad numbers, the sum described in the module docstring."""
        if not isinstance(args, tuple):
            args = (args,)
        if points is not None and _carries(points):     # breakpoints: where quad looks harder,
            points = _plain(points)                     # with no derivative of their own
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
    last = int(info.get("last", 0)) if a0 != b0 else 0
    ends = sorted(set(info["alist"][:last]) | set(info["blist"][:last])) if last else [a0, b0]
    scale = (b - a) / (b0 - a0) if a0 != b0 else None
    total = 0.0
    for left, right in zip(ends[:-1], ends[1:]):
        # (equal limits: one interval of length 0, whose ends still move: f(b)·db − f(a)·da)
        lo, hi = (a, b) if scale is None else (a + (left - a0) * scale, a + (right - a0) * scale)
        mid, half = (lo + hi) * 0.5, (hi - lo) * 0.5
        part = 0.0
        for t, w in zip(_NODES, _WEIGHTS):
            part = part + w * func(mid + half * t, *args)
        total = total + half * part
    return total


def _solve_ivp(original):
    def solve_ivp(fun, t_span, y0, method="RK45", t_eval=None, dense_output=False,
                  events=None, vectorized=False, args=None, **options):
        """scipy's solve_ivp; with dvlad numbers in y0, args or what fun returns: scipy's
        solution on its own time grid, plus the perturbations of dvlad.odeint's at those times
        (same rtol and atol): derivatives in y0 and the parameters, every mode and order."""
        extra = tuple(args) if args is not None else ()
        call = (original, t_span, method, t_eval, dense_output, events, vectorized)
        if not _carries(y0) and not any(_carries(v) for v in extra):
            try:
                return original(_watched(fun), t_span, y0, method, t_eval, dense_output, events,
                                vectorized, args, **options)
            except _Carried:
                pass
        return _solve_ivp_perturbed(fun, y0, extra, call, options)
    return solve_ivp


def _solve_ivp_perturbed(fun, y0, extra, call, options):
    from .odeint import odeint
    original, t_span, method, t_eval, dense_output, events, vectorized = call
    if _carries(t_span) or _carries(t_eval):
        raise NotDifferentiableError("scipy.integrate.solve_ivp: times carrying dvlad numbers "
                                     "are not differentiated (a moving end: add dy/dt·dT)")
    if events is not None or dense_output:
        raise NotDifferentiableError("scipy.integrate.solve_ivp with events= or dense_output=, "
                                     "of a problem carrying dvlad numbers: use t_eval")
    jac = options.get("jac")
    if callable(jac):                       # (it takes args too; the primal solve, plain)
        options = dict(options, jac=lambda t, y: _plain(jac(t, y, *extra)))
    res = original(lambda t, y: _plain(fun(t, y, *extra)), t_span, _plain(y0), method, t_eval,
                   False, None, vectorized, None, **options)
    if res.status < 0:
        raise NotDifferentiableError(f"scipy.integrate.solve_ivp failed ({res.message}): its "
                                     f"solution has no derivative")
    t0 = float(t_span[0])                   # odeint's first time is y0's: t_eval may not be
    first = int(res.t.size == 0 or res.t[0] != t0)
    try:
        ys = odeint(lambda y, t, *a: fun(t, y, *a), y0, np.concatenate([[t0] * first, res.t]),
                    args=extra, rtol=options.get("rtol", 1e-3),     # (one atol: odeint's
                    atol=float(np.min(options.get("atol", 1e-6))))[first:]   # system is larger)
    except TagOrderError:
        raise TagOrderError("scipy.integrate.solve_ivp: fun closes over a variable that a "
                            "derivative is perturbing; pass it through args=(...) (fun(t, y, "
                            "*args)), so that its derivative is counted") from None
    res.y = res.y + np.transpose(ys - strip(ys))
    return res


def install(integrate):
    for name, make in (("quad", _quad), ("solve_ivp", _solve_ivp)):
        replace(integrate, name, make)
