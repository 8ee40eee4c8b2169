"""scipy.optimize's root finders on functions that return dvlad numbers.

``brentq(lambda x: x**3 - a, 0, 3)`` inside ``derivative(..., a)``: scipy's compiled solvers
convert what f returns to a C double, which for a dvlad number raises inside C code that does not
look, and Python reports a SystemError at some later line.  Installed over scipy.optimize's
``brentq brenth ridder bisect toms748`` (and so ``root_scalar``'s bracketing methods),
``fsolve`` and ``root``: f is called through a wrapper that stops at the first dvlad number it
returns; scipy then finds the root of f's primal (every perturbation stripped), and
:func:`dvlad.root` attaches the derivative from there by the implicit function theorem —
dx*/dθ = −(∂f/∂x)⁻¹·∂f/∂θ at the root, in every mode and order (Newton's map from the root
converges at once).  A function that returns plain numbers runs scipy's own code, unchanged.
"""
import numpy as np

from .fixed_point import root
from ..core.tags import NotDifferentiableError
from ..modes.api import gradient_r
from ..core.number import ADNumber, strip
from ..core.structures import flatten


class _Carried(Exception):
    """f returned a dvlad number: the plain call is abandoned."""


def _carries(r):
    if isinstance(r, ADNumber):
        return True
    if isinstance(r, np.ndarray):
        return r.dtype == object and any(isinstance(e, ADNumber) for e in r.flat)
    if isinstance(r, (list, tuple)):
        try:
            return any(isinstance(e, ADNumber) for e in flatten(r, "f's value")[0])
        except Exception:
            return False
    return False


def _watched(f):
    def plain(*xs):
        r = f(*xs)
        if _carries(r):
            raise _Carried
        return r
    return plain


def _primal_scalar(f, args):
    return lambda x: float(strip(f(x, *args)))


def _bracketing(original):
    def find(f, a, b, args=(), *rest, **kwargs):
        """scipy's root finder; f returning dvlad numbers: the primal root, then dvlad.root."""
        if not isinstance(args, tuple):
            args = (args,)
        if not any(isinstance(v, ADNumber) for v in (a, b)):
            try:
                return original(_watched(f), a, b, args, *rest, **kwargs)
            except _Carried:
                pass
        out = original(_primal_scalar(f, args), float(strip(a)), float(strip(b)), (), *rest,
                       **kwargs)
        x0, info = (out if isinstance(out, tuple) else (out, None))
        x = root(lambda x: f(x, *args), x0)
        if info is None:
            return x
        info.root = x               # (root_scalar answers with info.root)
        return x, info
    return find


def _plain(r):
    """f's value with every perturbation stripped, as floats (an object array or a list of
    dvlad numbers element by element)."""
    r = strip(r)
    if isinstance(r, (list, tuple)) or isinstance(r, np.ndarray) and r.dtype == object:
        r = np.asarray(r, dtype=object)
        return np.array([float(strip(e)) for e in r.flat]).reshape(r.shape)
    return np.asarray(r, dtype=float)


def _array_function(f, args):
    return lambda x: _plain(f(x, *args))


def _fsolve(original):
    def fsolve(func, x0, args=(), *rest, **kwargs):
        """scipy's fsolve; func returning dvlad numbers: the primal solution, then dvlad.root."""
        if not isinstance(args, tuple):
            args = (args,)
        try:
            return original(_watched(func), _start(x0), args, *rest, **kwargs)
        except _Carried:
            pass
        kwargs.pop("fprime", None)
        rest = rest[1:] if rest else rest       # (fprime, positional: not used for the primal)
        out = original(_array_function(func, args), _start(x0), (), None,
                       *rest, **kwargs)
        x0, info = (out[0], out[1:]) if isinstance(out, tuple) else (out, None)
        x = root(lambda x: func(x, *args), np.asarray(x0, dtype=float))
        return x if info is None else (x,) + tuple(info)
    return fsolve


def _root(original):
    def root_of(fun, x0, args=(), method="hybr", jac=None, *rest, **kwargs):
        """scipy's root; fun returning dvlad numbers: the primal solution, then dvlad.root (its
        ``x``; the rest of the result is the primal solver's)."""
        if not isinstance(args, tuple):
            args = (args,)
        try:
            return original(_watched(fun), _start(x0), args, method, jac, *rest, **kwargs)
        except _Carried:
            pass
        value = (lambda x, *a: fun(x, *a)[0]) if jac is True else fun    # (f, J) pairs: f
        res = original(_array_function(value, args), _start(x0), (), method,
                       None, *rest, **kwargs)
        res.x = root(lambda x: value(x, *args), np.asarray(res.x, dtype=float))
        return res
    return root_of


def _plain_callable(fn, args):
    """fn (jac, hess, hessp: x and hessp's p first, then args) on the primal: plain values."""
    if not callable(fn):
        return fn
    return lambda x, *rest: (lambda r: (float(strip(r[0])), _plain(r[1])) if isinstance(r, tuple)
                             else _plain(r))(fn(x, *rest, *args))


def _start(x0):
    """x0 for scipy: its primal as floats (an np.array([...]) of dvlad numbers too)."""
    return _plain(x0) if _carries(x0) or isinstance(x0, np.ndarray) and x0.dtype == object \
        else x0


def _scalar(v):
    """f's value as one number (scipy calls f on arrays of shape (1,) for a scalar x0)."""
    return np.reshape(v, ()) if np.ndim(strip(v)) and np.size(strip(v)) == 1 else v


def _minimize(original):
    def minimize(fun, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None,
                 constraints=(), *rest, **kwargs):
        """scipy's minimize; fun returning dvlad numbers: the primal minimizer, then x* as the
        root of ∇f (dvlad.root: d x*/dθ = −(∇²f)⁻¹·∂∇f/∂θ, every mode and order) and f(x*)."""
        if not isinstance(args, tuple):
            args = (args,)
        try:
            return original(_watched(fun), _start(x0), args, method, jac, hess, hessp, bounds,
                            constraints, *rest, **kwargs)
        except _Carried:
            pass
        if constraints:
            raise NotDifferentiableError(
                "scipy.optimize.minimize with constraints, of a function carrying dvlad "
                "numbers: the minimizer's derivative needs the active constraints "
                "(differentiate the KKT conditions with dvlad.root)")
        value = (lambda x, *a: fun(x, *a)[0]) if jac is True else fun
        res = original(_plain_callable(fun, args), _start(x0), (), method,
                       _plain_callable(jac, args) if callable(jac) else jac,
                       _plain_callable(hess, args), _plain_callable(hessp, args), bounds,
                       constraints, *rest, **kwargs)
        if bounds is not None and _on_a_bound(res.x, bounds):
            raise NotDifferentiableError(
                "scipy.optimize.minimize: the minimizer lies on a bound, where x* is not a root "
                "of ∇f; dvlad differentiates interior minimizers")
        shape = np.shape(res.x)
        res.x = root(lambda x: np.reshape(gradient_r(lambda z: _scalar(value(z, *args)))(x), shape),
                     np.asarray(res.x, dtype=float))
        res.fun = value(res.x, *args)
        return res
    return minimize


def _on_a_bound(x, bounds):
    lo, hi = (np.array([b[k] if b[k] is not None else np.nan for b in bounds], float)
              if not hasattr(bounds, "lb") else np.broadcast_to(getattr(bounds, n), np.shape(x))
              for k, n in ((0, "lb"), (1, "ub")))
    return bool(np.any((x == lo) | (x == hi)))        # (a bound holds a minimizer exactly)


def replace(owner, name, make, also=None):
    """owner.name ← make(original) (and also.name, where it is the same original), keeping its
    name, docstring and the original as ``__wrapped__``; once only."""
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_dvlad", False):
        return
    ours = make(original)
    ours.__name__ = ours.__qualname__ = name
    ours.__doc__, ours.__wrapped__, ours._dvlad = original.__doc__, original, True
    setattr(owner, name, ours)
    if also is not None and getattr(also, name, None) is original:
        setattr(also, name, ours)


def install(optimize):
    """Put the versions above in scipy.optimize (and its _zeros_py, where root_scalar looks)."""
    zeros = __import__("scipy.optimize._zeros_py", fromlist=["brentq"])
    for name in ("brentq", "brenth", "ridder", "bisect", "toms748"):
        replace(zeros, name, _bracketing, also=optimize)
    for name, make in (("fsolve", _fsolve), ("root", _root), ("minimize", _minimize)):
        replace(optimize, name, make)
