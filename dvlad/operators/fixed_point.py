"""Fixed points x* = f(x*) and roots g(x*) = 0, differentiable in every mode and to every order.

``_fix`` peels one perturbation at a time, newest first, off the values f produces:

- the primal: iterate with that perturbation switched off (:class:`dvlad.tags.suspended`), which
  records nothing on a tape and builds no bundles;
- forward tag ε: with x* fixed, iterate the tangent on its own, τ ← ∂f/∂x·τ + ∂f/∂ε, as
  τ ← tangent_ε(f(x* + τε)) (DVL's iterate-to-numeric-fix), until τ itself stops changing;
- Taylor tag τ: with x* fixed, iterate its coefficients c₁…cₙ together, c ← the coefficients of
  f(x* + c₁τ + … + cₙτⁿ): the same iteration, order by order;
- reverse tag ε: record ONE step y = f(u) on ε's tape from fresh cells u at x*, and return cells
  whose pull-back solves the adjoint equation w = x̄ + (∂f/∂x)ᵀw by iteration over that one step
  (Christianson 1994), then hands w to y; the sweep carries on to f's parameters (∂f/∂θ)ᵀw.

Each of those iterations is itself a ``_fix``, so perturbations older than ε, inside x*, τ or w,
are peeled the same way: every nesting of modes, and fixed points inside fixed points, work, and
the innermost loop only ever sees plain numbers.  notes/fixed-points.md tells the story.
"""
import math

import mpmath
import numpy as np

from ..modes.api import derivative
from ..core.base import MPF, concrete, dtype_of, zero_like
from ..numbers.bundle import make_bundle, tangent_of
from .matrices import jacobian_f
from ..core.number import ADNumber, newest_tag, strip, strip_dead
from ..core.structures import flatten, flatten_like, unflatten
from ..arrays.objects import repack
from ..modes.sweep import sweep_segment
from ..core.tags import ArgumentError, FORWARD, TAYLOR, FixedPointError, alive, newer, suspended
from ..modes.taylor import series_of, tower_order
from ..numbers.tower import ZERO, make_tower
from ..numbers.tape import Cotangent, MultiLink, TapeCell, joint_cells, make_cell

__all__ = ["fixed_point", "root"]


def fixed_point(f, x0, *, tol=None, max_iter=1000):
    """x* = f(x*) by iterating x ← f(x) from x0; derivatives by the implicit function theorem.

    dx*/dθ = (I − ∂f/∂x)⁻¹ ∂f/∂θ for every perturbation θ that f closes over, in every mode and
    order.  x* does not depend on x0, so perturbations carried by x0 are ignored.  x0 is a number
    or a structure of numbers; f maps that structure to one of the same shape.  Converged when a
    step is at most ``tol``·max(1, |x|) (default: 2 units in the last place of the type f
    computes in: mpf if x0 or f(x0) is, else x0's).

    >>> import dvlad
    >>> heron = lambda a: fixed_point(lambda y: (y + a / y) / 2, 1.0)
    >>> heron(4.0), dvlad.derivative(heron)(4.0), dvlad.derivative(dvlad.derivative(heron))(4.0)
    (2.0, 0.25, -0.03125)
    """
    leaves, tree = flatten(x0, "fixed_point's start")
    start = [strip(a) for a in leaves]

    def F(xs):
        ys = flatten_like(f(unflatten(tree, xs)), tree, "fixed_point's f(x)", "its start x0")
        if len(ys) != len(xs):
            raise ValueError(f"fixed_point: f maps {len(xs)} numbers to {len(ys)}; "
                             f"it must return the structure it is given")
        return ys
    _check_cap(max_iter, "fixed_point")
    return unflatten(tree, _solve(F, start, tol, max_iter, "the iteration x ← f(x)"))


def _check_cap(max_iter, who):
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ArgumentError(f"{who}: max_iter must be a whole number of iterations ≥ 1; got "
                            f"{max_iter!r}")


def root(g, x0, *, tol=None, max_iter=100):
    """x* with g(x*) = 0 by Newton's method from x0; derivatives by the implicit function theorem.

    dx*/dθ = −(∂g/∂x)⁻¹ ∂g/∂θ, in every mode and order: the Newton map's fixed point, whose
    Jacobian vanishes at the root.  x0 is a number, or a tuple/list of numbers for a system
    (Jacobian by forward mode, solved by Gaussian elimination), or an array for a system g
    maps to an array of the same shape (Jacobian by jacobian_f, solved by np.linalg.solve).

    >>> import dvlad
    >>> cbrt = lambda a: root(lambda x: x ** 3 - a, 1.0)
    >>> round(cbrt(8.0), 12), round(dvlad.derivative(cbrt)(8.0), 12)
    (2.0, 0.083333333333)
    """
    if isinstance(x0, (tuple, list)):
        kind = type(x0)

        def newton(x):
            step = _gauss_solve(jacobian_f(lambda v: tuple(g(kind(v))))(x), list(g(kind(x))))
            return kind(a - d for a, d in zip(x, step))
        return fixed_point(newton, x0, tol=tol, max_iter=max_iter)

    if np.ndim(strip(x0)):
        shape = np.shape(strip(x0))
        n = int(np.prod(shape))

        def newton_n(x):
            r = g(x)
            if isinstance(r, (list, tuple)) or isinstance(r, np.ndarray) and r.dtype == object:
                r = repack(np.array(r, dtype=object))      # np.array([...]) of dvlad numbers
            if np.shape(strip(r)) != shape:
                raise ArgumentError(f"root: g maps an array of shape {shape} to one of shape "
                                    f"{np.shape(strip(r))}; a root of a system needs g(x) of "
                                    f"x's shape")
            try:
                step = np.linalg.solve(np.reshape(jacobian_f(g)(x), (n, n)), np.reshape(r, n))
            except np.linalg.LinAlgError:
                raise _flat(None) from None
            return x - np.reshape(step, shape)
        return fixed_point(newton_n, x0, tol=tol, max_iter=max_iter)

    def newton_1(x):
        slope = derivative(g)(x)
        if not strip(slope):
            raise _flat(x)
        return x - g(x) / slope
    return fixed_point(newton_1, x0, tol=tol, max_iter=max_iter)


def _flat(x):
    where = "" if x is None else f" at x = {strip(x)!r}"
    return FixedPointError(
        f"root: Newton's method met a zero derivative (a singular Jacobian){where}: g has no "
        f"simple root reachable from x0 there. Start from another x0, or look for a minimum "
        f"of g instead (a double root)", None, None)


def _gauss_solve(a, b):
    """x with A x = b, by Gaussian elimination with partial pivoting, in dvlad's operations."""
    n = len(b)
    a = [list(row) + [b[i]] for i, row in enumerate(a)]
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(strip(a[i][k])))
        if not strip(a[p][k]):
            raise _flat(None)
        a[k], a[p] = a[p], a[k]
        for i in range(k + 1, n):
            m = a[i][k] / a[k][k]
            a[i] = [u - m * w for u, w in zip(a[i], a[k])]
    x = [0.0] * n
    for k in range(n - 1, -1, -1):
        x[k] = (a[k][n] - sum((a[k][j] * x[j] for j in range(k + 1, n)), 0.0)) / a[k][k]
    return x


def _default_tol(xs, ys):
    xs, ys = [concrete(v) for v in xs], [concrete(v) for v in ys]
    if any(type(v) is MPF for v in xs + ys):
        return 2 * mpmath.mp.eps
    # the iterates are f's values: the least precise float type among them sets the precision
    # (f computing in float32, in any component, from a Python-float x0 cannot reach float64's)
    eps = [float(np.finfo(dtype_of(v)).eps) for v in (ys or xs)
           if isinstance(v, (np.generic, np.ndarray)) and np.issubdtype(dtype_of(v),
                                                                       np.floating)]
    return 2 * max(eps, default=2.220446049250313e-16)


class _TagAppeared(Exception):
    """A live perturbation showed up after the first step (f branches on x): start again, now
    knowing it, so that perturbations are still peeled newest first."""

    def __init__(self, tag):
        super().__init__(tag)
        self.tag = tag


def _solve(F, x, tol, max_iter, what, at_least=1):
    """The fixed point of F, peeling every perturbation it meets, newest first.

    ``at_least``: a step is small when it is at most tol·max(at_least, |x|).  The user's iteration has
    at_least 1 (as documented: absolute near 0); tangents, Taylor coefficients and adjoints have
    at_least 0: their scale is their own (d³/da³ √a at a = 10⁶ is 3.75e-16), so only a relative
    test converges them."""
    known = []
    while True:
        try:
            return _fix(F, x, tol, max_iter, what, known, at_least)
        except _TagAppeared as e:
            known.append(e.tag)


def _fix(F, x, tol, max_iter, what, known, at_least):
    """The fixed point of F (lists of numbers to lists), peeling the newest perturbation among
    those F's values carry and those seen appear later (``known``)."""
    y = F(x)
    if tol is None:                 # the precision of what f computes: an mpf parameter wins
        tol = _default_tol([strip(a) for a in x], [strip(v) for v in y])
    tag = newest_tag(y)
    for t in known:
        if t.live or alive(t):
            tag = newer(tag, t)
    if tag is None:
        return _iterate(F, x, y, tol, max_iter, what, at_least)
    with suspended(tag):
        xp = _fix(F, x, tol, max_iter, what, known, at_least)
    if tag.kind is FORWARD:
        zeros = [zero_like(strip(a)) for a in xp]

        def tangent_step(tau):
            ys = F([make_bundle(tag, a, t) for a, t in zip(xp, tau)])
            _no_newer(ys, tag)
            return [tangent_of(v, tag, z) for v, z in zip(ys, zeros)]
        older = [t for t in known if t is not tag]     # the tangent carries no tag itself
        tau = _fix(tangent_step, zeros, tol, max_iter, f"the tangent for {tag!r}", older, 0)
        return [make_bundle(tag, a, t) for a, t in zip(xp, tau)]
    if tag.kind is TAYLOR:
        return _tower_fix(F, xp, y, tag, tol, max_iter, known)
    return _adjoint_cells(F, xp, tag, tol, max_iter)


def _no_newer(ys, tag):
    """A live tag newer than the one being peeled showed up in f's values only now (f's first
    value did not carry it: it branched, or a product with a constant 0 left it out): start
    again with it known, so that it is peeled first."""
    t = newest_tag(ys)
    if t is not None and t is not tag and t.live and newer(t, tag) is t:
        raise _TagAppeared(t)


def _tower_fix(F, xp, y, tag, tol, max_iter, known):
    """Taylor tag: with x* fixed, iterate the coefficients c₁…cₙ of every leaf together,
    c ← coefficients of f(x* + c₁τ + … + cₙτⁿ).  The map is block triangular (cₖ depends on
    c₁…cₖ only, through ∂f/∂x·cₖ), so it converges as the tangent iteration does, order by order."""
    # the order of the towers f closes over (y = f(x₀) may not show them: f branches on x)
    n = tower_order(y, tag) or tower_order(F(xp), tag)
    m = len(xp)
    if not n:
        return xp

    def towers(cs):
        return [make_tower(tag, [a] + cs[i * n:(i + 1) * n]) for i, a in enumerate(xp)]

    def series_step(cs):
        out = []
        ys = F(towers(cs))
        _no_newer(ys, tag)
        for v in ys:
            out += series_of(v, tag, n)[1:]
        return [z if c is ZERO else c for c, z in zip(out, zeros)]
    zeros = [zero_like(strip(a)) for a in xp for _ in range(n)]
    older = [t for t in known if t is not tag]
    cs = _fix(series_step, zeros, tol, max_iter, f"the Taylor coefficients for {tag!r}",
              older, 0)
    return towers(cs) if m else []


def _size(v):
    """max |v| over the elements of a number or an array."""
    return float(np.max(np.abs(v))) if isinstance(v, np.ndarray) else abs(v)


def _iterate(F, x, y, tol, max_iter, what, at_least):
    """Plain iteration on base numbers: x ← F(x) until a step is within tolerance."""
    x = [strip_dead(a) for a in x]
    step = best = math.inf
    stalled, rho, measured = 0, 1.0, False
    for k in range(1, max_iter + 1):
        y = [strip_dead(b) for b in y]
        if any(isinstance(b, ADNumber) for b in y):
            raise _TagAppeared(newest_tag(y))
        step = max((_size(b - a) for a, b in zip(x, y)), default=0)
        scale = max(at_least, max((_size(b) for b in y), default=0))
        if not step < math.inf:         # nan, or diverged to infinity: no fixed point to return
            break
        if step <= tol * scale:
            return y
        # at_least 0 (a relative test): rounding in f (a cancellation) can keep the steps at a few
        # ulps of f's intermediate values, above tol·|y|, and a tangent whose value is 0 is all
        # noise.  Steps that have stopped shrinking (while still shrinking, they are not noise)
        # and pass the absolute test are that noise: converged as far as the arithmetic allows,
        # and never sooner than the absolute test alone would have stopped.  The noise is a few
        # ulps of f's intermediate values, which for Taylor coefficients (products of lower
        # ones) exceed the result: a stalled step s is also accepted when the remaining error it
        # implies, s·ρ/(1 − ρ) for the contraction rate ρ seen while the steps still shrank, is
        # within 32 tol (the fuzzer found coefficients stalled at 8 tol, with ρ ≈ 0.4).  Steps
        # that were within 64 tol from the first (no rate seen: a Newton-fast iteration) and
        # stall there are that noise too (a root's tangent stalled at 2 tol, 4 ulps).
        if at_least == 0:
            if step < best:
                if best < math.inf and best > 64 * tol * max(1, scale):
                    rho = step / best
                    measured = True
                best, stalled = step, 0
            else:
                stalled += 1
                if stalled >= 3 and (step <= tol * max(1, scale)
                                     or step * rho <= 32 * tol * max(1, scale) * (1 - rho)
                                     or not measured and step <= 64 * tol * max(1, scale)):
                    return y
        x, y = y, F(y)
    advice = ("the iteration diverged: check that f is a contraction near the fixed point "
              "(|∂f/∂x| < 1 there)" if not step < math.inf else
              "raise max_iter, or check that f is a contraction near the fixed point "
              "(|∂f/∂x| < 1 there)")
    raise FixedPointError(
        f"fixed_point: {what} did not converge in {k} iterations (last step {float(step):.3g}, "
        f"tolerance {float(tol):.3g}); {advice}.", k, step)


def _adjoint_cells(F, xp, tag, tol, max_iter):
    """Cells on tag's tape for x*, whose pull-back is the adjoint fixed-point iteration."""
    u = [make_cell(tag, a, ()) for a in xp]
    start = u[0].index
    ys = F(u)                                       # the one recorded step
    tape = tag.tape
    return joint_cells(tag, xp, _Adjoint(tape[start:], start, u, ys, tag, tol, max_iter))


class _Adjoint(MultiLink):
    """Pull-back through x*: solve w = x̄ + (∂f/∂x)ᵀ w over the recorded step, give w to f(u)."""

    __slots__ = ("segment", "start", "u", "seeds", "tag", "tol", "max_iter")

    def __init__(self, segment, start, u, ys, tag, tol, max_iter):
        self.segment, self.start, self.u, self.tag = segment, start, u, tag
        self.seeds = [(j, y) for j, y in enumerate(ys) if isinstance(y, TapeCell) and y.tag is tag]
        self.tol, self.max_iter = tol, max_iter

    def pull(self, xbar):
        xbars = list(xbar) if isinstance(xbar, Cotangent) else [xbar]

        def adjoint_step(w):
            back = sweep_segment(self.segment, self.start,
                                 [(y, w[j]) for j, y in self.seeds], self.u)
            return [xb if b is None else xb + b for xb, b in zip(xbars, back)]
        w = _solve(adjoint_step, xbars, self.tol, self.max_iter,
                   f"the adjoint for {self.tag!r}", 0)
        return [(y, w[j]) for j, y in self.seeds]

    def inputs(self):
        return [y for _, y in self.seeds]
