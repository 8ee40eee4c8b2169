"""``odeint``: the solution of y′ = f(y, t, *args) at given times, with scipy's signature,
differentiable in every mode and to every order with respect to y0, args and t.

It is a vector primitive (:func:`dvlad.vector_primitive`) of (y0, t, θ), θ the number leaves
of ``args``, whose three maps are ODE solutions themselves:

- the value: ``scipy.integrate.odeint`` (LSODA) on plain floats, or, without scipy, an adaptive
  Dormand–Prince 5(4) in numpy;
- J·(ẏ0, ṫ, θ̇): the tangent system s′ = ∂f/∂y·s + ∂f/∂θ·θ̇, s(t₀) = ẏ0 − f(y0, t₀)·ṫ₀,
  solved with y as one ``odeint`` of [y, s] (∂f/∂y·s + ∂f/∂θ·θ̇ by :func:`dvlad.jvp` of f);
  row k is s(t_k) + f(y_k, t_k)·ṫ_k;
- Jᵀ·Ȳ: the adjoint system a′ = −(∂f/∂y)ᵀa, a_θ′ = −(∂f/∂θ)ᵀa, solved backwards from t_K−1
  to t₀ with y (restarted from the stored y_k at each output time) as one ``odeint`` of
  [y, a, a_θ] per interval, a jumping by Ȳ_k at t_k (aᵀ·∂f/∂y, aᵀ·∂f/∂θ by :func:`dvlad.vjp`).

Since those solutions are ``odeint`` calls on whatever numbers the maps are given (carrying
older perturbations when derivatives nest), they are differentiated again the same way: a
Hessian is a tangent system of an adjoint system, and so on.  notes/odeint.md has the math.
"""
import threading

import numpy as np

from ..core.number import ADNumber, newest_tag, strip, strip_dead
from ..core.structures import flatten, pack, unflatten
from ..core.tags import ArgumentError, IntegrationError, NotDifferentiableError, TagOrderError
from ..modes.api import jvp, vjp
from .custom import vector_primitive

__all__ = ["odeint", "IntegrationError"]


def odeint(func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None,
           rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0,
           mxhnil=0, mxordn=12, mxords=5, printmessg=0, tfirst=False):
    """Y[k] = y(t_k) for y′ = func(y, t, *args), y(t₀) = y0: ``scipy.integrate.odeint``, differentiable.

    A drop-in for scipy's odeint (same arguments and result, shape (len(t), len(y0)); a scalar
    y0 gives (len(t), 1)), which, being compiled, cannot take dvlad numbers.  Derivatives with
    respect to y0, the numbers in ``args`` (any nesting of tuples/lists/dicts of numbers and
    arrays; integers and non-numbers are held constant) and t, in every mode and order:
    ∂Y[k]/∂y0 = Φ(t_k, t₀), ∂Y[k]/∂θ = ∫ Φ(t_k, s)·∂f/∂θ ds (forward: the tangent system;
    reverse: the adjoint system, with jumps Ȳ[k] at t_k), ∂Y[k]/∂t_k = f(Y[k], t_k),
    ∂Y[k]/∂t₀ = −Φ(t_k, t₀)·f(y0, t₀).  func is called with dvlad numbers when derivatives are
    computed, so write it with numpy or dvlad's functions; a perturbation it closes over instead
    of getting through args raises TagOrderError.  Values are float64 (as scipy's), whatever
    y0's dtype.  Dfun, ml, mu and printmessg serve the value's solution only; full_output gives
    scipy's info dict of the value's solution.  The derivatives' systems are solved with the
    same rtol/atol, so ask for tight ones (1e-10) when derivatives must be accurate.

    >>> import dvlad, numpy as np
    >>> decay = lambda k: odeint(lambda y, t, k: -k * y, 1.0, [0.0, 1.0], args=(k,),
    ...                          rtol=1e-12, atol=1e-12)[-1, 0]
    >>> bool(abs(dvlad.derivative(decay)(0.5) + np.exp(-0.5)) < 1e-9)  # d/dk e^(−k) = −e^(−k)
    True
    """
    if not isinstance(args, tuple):
        args = (args,)
    opts = {"rtol": 1.49012e-8 if rtol is None else rtol,
            "atol": 1.49012e-8 if atol is None else atol,
            "tcrit": tcrit, "h0": h0, "hmax": hmax, "hmin": hmin, "ixpr": ixpr,
            "mxstep": mxstep, "mxhnil": mxhnil, "mxordn": mxordn, "mxords": mxords}
    if not callable(func):
        raise ArgumentError(f"odeint: func must be a function f(y, t, *args); got {func!r}")
    theta, rebuild = _parameters(args)

    def rhs(y, s, th):
        a = rebuild(th)
        return _vector(func(s, y, *a) if tfirst else func(y, s, *a), "func's value")
    first = {}
    if Dfun is not None or printmessg or full_output:
        plain = rebuild([strip(v) for v in theta])
        dfun = Dfun
        if Dfun is not None and tfirst:
            dfun = (lambda y, s, *a: Dfun(s, y, *a))   # the value's solution is called y-first
        first.update(Dfun=dfun, col_deriv=col_deriv, ml=ml, mu=mu, printmessg=printmessg,
                     args=tuple(plain) if Dfun is not None else ())
    info = {}
    out = _solve(rhs, _vector(y0, "y0"), _vector(t, "t"), theta, opts, first, info)
    return (out, info.get("info")) if full_output else out


def _parameters(args):
    """(θ, rebuild): the number leaves of ``args`` that are differentiated (real, not integer),
    and the function that puts a list of such leaves back into args' structure."""
    parts = []
    theta = []
    for a in args:
        try:
            leaves, tree = flatten(a, "odeint's args")
        except NotDifferentiableError:
            parts.append((_CONSTANT, a, ()))   # a string, a function, None: held constant
            continue
        keep = [not _integral(v) for v in leaves]
        parts.append((tree, leaves, keep))
        theta += [v for v, k in zip(leaves, keep) if k]

    def rebuild(th):
        it = iter(th)
        out = []
        for tree, leaves, keep in parts:
            if tree is _CONSTANT:
                out.append(leaves)
            else:
                out.append(unflatten(tree, [next(it) if k else v for v, k in zip(leaves, keep)]))
        return out
    return theta, rebuild


_CONSTANT = object()
_LSODA = threading.local()      # .running: this thread is inside scipy's odeint


def _integral(v):
    """True for integer and bool leaves (counts, indices, flags): held constant."""
    v = strip(v)
    return isinstance(v, (bool, int, np.integer, np.bool_)) or (
        isinstance(v, np.ndarray) and v.dtype.kind in "biu")


def _vector(v, who):
    """v (a number, a sequence of numbers, an array, plain or carrying perturbations) as a 1-D
    array: a float64 ndarray, or an AD number whose primal is one."""
    if isinstance(v, (list, tuple)):
        v = np.array(v, dtype=object)
    if isinstance(v, np.ndarray) and v.dtype == object:
        v = pack(v)
    v = strip_dead(v)
    if isinstance(v, ADNumber):
        return np.reshape(v, (-1,))
    try:
        return np.asarray(v, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"odeint: {who} must be a real number or a sequence or 1-D array of "
                            f"them; got {type(v).__name__}") from e


def _live(v):
    """True unless v is a plain zero (a tangent or cotangent that changes nothing)."""
    return isinstance(strip_dead(v), ADNumber) or bool(np.any(np.asarray(v) != 0))


def _solve(rhs, y0, t, theta, opts, first=None, info=None):
    """odeint of rhs(y, s, θ) from the 1-D y0 at the times t, as a vector primitive of (y0, t, θ)."""
    memo = {}

    def value(x):
        memo["Y"] = _primal(rhs, x, opts, first, info)
        return memo["Y"]

    def pullback(x, ybar):
        leaves = flatten(x, "odeint")[0]
        Y = memo["Y"] if newest_tag(leaves) is None and "Y" in memo else None
        return _adjoint(rhs, x, ybar, opts, Y)
    prim = vector_primitive(value, lambda x, dx: _tangent(rhs, x, dx, opts), pullback,
                            name="odeint")
    return prim((y0, t, list(theta)))


def _primal(rhs, x, opts, first, info):
    """The solution on plain floats; func's values must be plain too (else it closes over a
    perturbation: TagOrderError)."""
    y0, t, theta = x

    def g(y, s):
        v = rhs(y, s, theta)
        tag = newest_tag([v])
        if tag is not None:
            raise TagOrderError(
                f"odeint: func returned a number carrying perturbation {tag!r} at plain y, t and "
                f"args: it closes over a variable that a derivative is perturbing (the rule: "
                f"odeint solves at the primals, where every perturbation is gone, and carries "
                f"the derivatives of y, t and args itself). Pass that "
                f"variable through args=(...) (func(y, t, *args)), so that its derivative is "
                f"counted")
        return np.asarray(v, dtype=np.float64)
    if len(t) == 0:
        return np.zeros((0, len(y0)))
    try:
        import scipy.integrate as si
    except ImportError:                                 # scipy is optional
        if info is not None:
            info["info"] = {"message": "solved by dvlad's Dormand–Prince 5(4) (no scipy)"}
        return _dopri(g, y0, t, opts["rtol"], opts["atol"], opts["mxstep"] or 100000)
    extra = dict(first or {})
    fargs = extra.pop("args", ())
    if "Dfun" in extra:
        d = extra.pop("Dfun")
        extra["Dfun"] = None if d is None else (lambda y, s, *a: d(y, s, *fargs))
    if getattr(_LSODA, "running", False):
        raise ArgumentError(
            "odeint inside the func of another odeint: scipy's LSODA keeps its state in one "
            "place and cannot solve two problems at once (it would silently return wrong "
            "values). Solve the inner problem outside func, or both as one system")
    _LSODA.running = True
    try:
        Y, out = si.odeint(g, y0, t, full_output=1, **opts, **extra)
    finally:
        _LSODA.running = False
    if info is not None:
        info["info"] = out
    elif out["message"] not in ("Integration successful.",
                                "Nothing was done; the integration time was 0."):
        raise IntegrationError(
            f"odeint: the system solved for a derivative did not integrate: scipy says "
            f"{out['message']!r}. Loosen rtol/atol (now {opts['rtol']:g}, {opts['atol']:g}) or "
            f"raise mxstep")
    return Y


def _tangent(rhs, x, dx, opts):
    """J·dx: the tangent system s′ = ∂f/∂y·s + ∂f/∂θ·θ̇ solved with y, plus f·ṫ at each t_k."""
    (y0, t, theta), (dy0, dt, dth) = x, dx
    n, K = len(strip(y0)), len(strip(t))
    act = [i for i, d in enumerate(dth) if _live(d)]   # the parameters that move
    moving_t = _live(dt)
    if not (act or moving_t or _live(dy0)):
        return np.zeros((K, n))
    s0 = dy0 + np.zeros(n)
    if moving_t:
        s0 = s0 - rhs(y0, t[0], theta) * dt[0]
    m = len(theta)

    def tangent_rhs(z, s, p):
        th = list(p[:m])

        def g(q):
            full = list(th)
            for i, v in zip(act, q[1]):
                full[i] = v
            return rhs(q[0], s, full)
        fy, jv = jvp(g, (z[:n], [th[i] for i in act]), (z[n:], list(p[m:])))
        return np.concatenate([fy, jv])
    Z = _solve(tangent_rhs, np.concatenate([y0, s0]), t, list(theta) + [dth[i] for i in act],
               opts)
    U = Z[:, n:]
    if moving_t:
        F = np.stack([rhs(Z[k, :n], t[k], theta) for k in range(K)])
        U = U + F * np.reshape(dt, (-1, 1))
    return U


def _adjoint(rhs, x, ybar, opts, Y):
    """Jᵀ·Ȳ: the adjoint system, backwards over each interval [t_k−1, t_k] with [y, a, a_θ],
    y restarted from Y[k], a jumping by Ȳ[k] at each output time."""
    y0, t, theta = x
    n, K = len(strip(y0)), len(strip(t))
    shapes = [np.shape(strip(v)) for v in theta]
    sizes = [int(np.prod(s)) for s in shapes]
    if not isinstance(strip_dead(ybar), ADNumber) and np.ndim(ybar) == 0:
        ybar = np.full((K, n), float(ybar))
    if Y is None:
        Y = _solve(rhs, y0, t, theta, opts)

    def adjoint_rhs(z, s, p):
        fy, pull = vjp(lambda q: rhs(q[0], s, q[1]), (z[:n], list(p)))
        gy, gth = pull(z[n:2 * n])
        flat = [np.reshape(g + np.zeros(shape), (-1,)) for g, shape in zip(gth, shapes)]
        return np.concatenate([fy, -gy] + [-g for g in flat])
    a, ath = ybar[K - 1], np.zeros(sum(sizes))
    tbar = [0.0] * K
    for k in range(K - 1, 0, -1):
        if _live(ybar[k]):
            tbar[k] = np.sum(ybar[k] * rhs(Y[k], t[k], theta))
        z = np.concatenate([Y[k], a, ath])
        zk = _solve(adjoint_rhs, z, np.stack([t[k], t[k - 1]]), theta, opts)[-1]
        a, ath = zk[n:2 * n], zk[2 * n:]
        if k == 1:
            tbar[0] = -np.sum(a * rhs(y0, t[0], theta))
        a = a + ybar[k - 1]
    thbar, at = [], 0
    for shape, size in zip(shapes, sizes):
        thbar.append(ath[at] if shape == () else np.reshape(ath[at:at + size], shape))
        at += size
    return (a, np.stack(tbar), thbar)


# Dormand–Prince 5(4): nodes, stages and the error weights (5th order minus embedded 4th).
_C = [0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0]
_A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
      [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
      [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
      [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
_E = [71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40]


def _dopri(g, y0, t, rtol, atol, max_steps):
    """The solution at the times t by Dormand–Prince 5(4) with step-size control (no scipy):
    each step's local error within atol + rtol·|y|, stepping exactly onto every output time."""
    y = np.array(y0, dtype=np.float64)
    out = [y.copy()]
    h = None
    steps = 0
    for t0, t1 in zip(t[:-1], t[1:]):
        s, span = float(t0), float(t1) - float(t0)
        if h is None:
            h = span * 1e-3 if span else 0.0
        while span and (t1 - s) * np.sign(span) > 0:
            h = np.sign(span) * min(abs(h), abs(t1 - s))
            k = [g(y, s)]
            for c, row in zip(_C[1:], _A[1:]):
                k.append(g(y + h * sum(w * kj for w, kj in zip(row, k)), s + c * h))
            y5 = y + h * sum(w * kj for w, kj in zip(_A[6], k))
            err = h * sum(w * kj for w, kj in zip(_E, k))
            scale = atol + rtol * np.maximum(np.abs(y), np.abs(y5))
            ratio = float(np.sqrt(np.mean((err / scale) ** 2))) if len(y) else 0.0
            if ratio <= 1.0:
                s, y = s + h, y5
            h *= min(5.0, max(0.2, 0.9 * (ratio or 1e-10) ** -0.2))
            steps += 1
            if steps > max_steps:
                raise IntegrationError(
                    f"odeint: more than {max_steps} steps (Dormand–Prince, no scipy) before "
                    f"t = {float(t1):g}: loosen rtol/atol or raise mxstep; installing scipy "
                    f"uses LSODA, which also handles stiff systems")
        out.append(y.copy())
    return np.array(out)
