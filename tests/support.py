"""Helpers shared by the test modules: the scalar operators of each mode, nesting, and checks."""
import itertools
import sys
import threading

import mpmath
import numpy as np

import dvlad
from dvlad import Bundle, TapeCell


def R(f):
    """The scalar reverse derivative: gradient_r of a function R -> R."""
    return lambda x: dvlad.gradient_r(f)(x)


OPS = {"F": dvlad.derivative, "R": R}
MODES1 = ["F", "R"]
MODES2 = ["".join(m) for m in itertools.product("FR", repeat=2)]
MODES3 = ["".join(m) for m in itertools.product("FR", repeat=3)]


def nest(f, modes):
    """modes[0](modes[1](...(f))): the operator of each level, outermost first."""
    for m in reversed(modes):
        f = OPS[m](f)
    return f


def assert_plain(value):
    """No Bundle or TapeCell anywhere inside value (containers are walked)."""
    if isinstance(value, (Bundle, TapeCell)):
        raise AssertionError(f"an AD number escaped into a result: {value!r}")
    if isinstance(value, dict):
        for v in value.values():
            assert_plain(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            assert_plain(v)


def exactly(got, expected):
    """Integer-valued answers are exact, and the result is a plain number."""
    assert_plain(got)
    assert got == expected, f"got {got!r}, expected {expected!r}"


PLAIN = (float, int, mpmath.mpf)        # numpy's float64 is a float


def close(got, want, rel=1e-15, abs_=0.0, *, floor=0.0, normwise=False, of=None,
          nonfinite=False, what=""):
    """got equals want up to rounding: each number within abs_ + rel·max(|want|, floor) of want.

    The test suite's one close helper.  got and want are numbers, numpy arrays, or
    tuples/lists/dicts of them laid out alike (a list matches a tuple of the same length, a dict
    the same keys); where either side is an array both are compared as arrays.  Also checked:

    - got is plain: each number is a float, int or mpf (with ``of``: exactly of that type or of
      one of that tuple of types), each array has a real dtype and want's shape;
    - no nan or infinity on either side; with ``nonfinite=True`` they are allowed, a nan
      matching only a nan and an infinity only itself;
    - a float against an mpf must be within tolerance both of the mpf and of its nearest float
      (so comparing with an exact oracle is never looser than comparing with it rounded).

    ``floor`` keeps the tolerance of values near zero from vanishing (``floor=1``: relative for
    large values, absolute for small ones); for an array it may be an array broadcasting
    against want, and for a list or tuple a sequence of the same length, one floor each.
    ``normwise=True`` compares each array as a whole, against its own size:
    max|got − want| ≤ abs_ + rel·max(max|want|, floor).
    """
    _compare(got, want, rel, abs_, floor, normwise, of, nonfinite, what)


def _compare(got, want, rel, abs_, floor, normwise, of, nonfinite, what):
    at = f"{what}: " if what else ""
    if isinstance(got, np.ndarray) or isinstance(want, np.ndarray):
        assert of is None, f"{at}of= names the type of numbers, and got {got!r} is an array"
        _compare_arrays(np.asarray(got), np.asarray(want), rel, abs_, floor, normwise, nonfinite,
                        what)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), (
            f"{at}got {got!r}, expected a dict with keys {list(want)}")
        for k in want:
            _compare(got[k], want[k], rel, abs_, floor, normwise, of, nonfinite, f"{what}[{k!r}]")
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (
            f"{at}got {got!r}, expected {len(want)} values {want!r}")
        floors = floor if np.ndim(floor) else [floor] * len(want)
        assert len(floors) == len(want), f"{at}{len(floors)} floors for {len(want)} values"
        for i, (g, w, f) in enumerate(zip(got, want, floors)):
            _compare(g, w, rel, abs_, f, normwise, of, nonfinite, f"{what}[{i}]")
    else:
        _compare_numbers(got, want, rel, abs_, floor, of, nonfinite, what)


def _compare_numbers(got, want, rel, abs_, floor, of, nonfinite, what):
    at = f"{what}: " if what else ""
    if of is None:
        assert isinstance(got, PLAIN), f"{at}not a plain number: {got!r}"
    else:
        types = of if isinstance(of, tuple) else (of,)
        assert type(got) in types, (f"{at}expected a {' or '.join(t.__name__ for t in types)}"
                                    f", got a {type(got).__name__}: {got!r}")
    g = got.item() if isinstance(got, np.generic) else got            # exact, float32 too
    w = want.item() if isinstance(want, np.generic) else want
    if not (mpmath.isfinite(g) and mpmath.isfinite(w)):
        assert nonfinite, f"{at}got {got!r}, expected {want!r}: not finite"
        assert g == w or (mpmath.isnan(g) and mpmath.isnan(w)), (
            f"{at}got {got!r}, expected {want!r}")
        return
    for w in ([w, float(w)] if isinstance(w, mpmath.mpf) and not isinstance(g, mpmath.mpf)
              else [w]):
        err, tol = abs(g - w), abs_ + rel * max(abs(w), floor)
        assert err <= tol, (f"{at}got {got!r}, expected {w!r} "
                            f"(error {float(err):.3g}, tolerance {float(tol):.3g})")


def _compare_arrays(got, want, rel, abs_, floor, normwise, nonfinite, what):
    at = f"{what}: " if what else ""
    assert got.dtype.kind in "fiu" and want.dtype.kind in "fiu", (
        f"{at}got {got.dtype} values, expected {want.dtype}: not real numbers")
    assert got.shape == want.shape, f"{at}shape {got.shape}, expected {want.shape}"
    g, w = got.astype(np.float64), want.astype(np.float64)                  # exact
    floor = np.broadcast_to(np.asarray(floor, dtype=np.float64), w.shape)
    finite = np.isfinite(w)
    if not (finite.all() and np.isfinite(g).all()):
        assert nonfinite, f"{at}got {got}, expected {want}: not finite"
        assert np.array_equal(g[~finite], w[~finite], equal_nan=True), (
            f"{at}got {got}, expected {want}: their nan and infinities differ")
        g, w, floor = g[finite], w[finite], floor[finite]
    err = np.abs(g - w)
    if normwise:
        err = np.max(err, initial=0.0)
        tol = float(abs_) + float(rel) * max(np.max(np.abs(w), initial=0.0),
                                             np.max(floor, initial=0.0))
    else:
        tol = float(abs_) + float(rel) * np.maximum(np.abs(w), floor)
    err, tol = np.broadcast_arrays(err, tol)
    bad = np.flatnonzero(~(err <= tol))
    if bad.size:
        k = bad[0]
        raise AssertionError(f"{at}got {got}, expected {want} (error {err.flat[k]:.3g}, "
                             f"tolerance {tol.flat[k]:.3g})")


# ---- Rosenbrock on arrays (workload (c)), with its gradient and HVP by hand -----------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_gradient(x):
    g = np.zeros_like(x)
    t = x[1:] - x[:-1] ** 2
    g[:-1] = -400.0 * x[:-1] * t - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * t
    return g


def rosenbrock_hvp(x, v):
    """H·v by hand: H is tridiagonal, H_ii = 1200x_i² − 400x_{i+1} + 2 (i < n−1) + 200 (i > 0),
    H_{i,i+1} = H_{i+1,i} = −400x_i."""
    diag = np.zeros_like(x)
    diag[:-1] = 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    diag[1:] += 200.0
    off = -400.0 * x[:-1]
    hv = diag * v
    hv[:-1] += off * v[1:]
    hv[1:] += off * v[:-1]
    return hv


# ---- a Gaussian process's negative log marginal likelihood (research workload r1) --------------

def gp_nlml_by_cholesky(D2, y):
    """θ ↦ ½ yᵀK⁻¹y + Σ log Lᵢᵢ, K = e^θ₁ exp(−½ D2 e^−2θ₀) + e^θ₂ I = LLᵀ, in plain numpy:
    cholesky, then two solves (constants dropped)."""
    n = y.shape[0]

    def nlml(theta):
        K = (np.exp(theta[1]) * np.exp(-0.5 * D2 * np.exp(-2.0 * theta[0]))
             + np.exp(theta[2]) * np.eye(n))
        L = np.linalg.cholesky(K)
        alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
        return 0.5 * (y @ alpha) + np.sum(np.log(np.diag(L)))
    return nlml


# ---- an independent oracle for Owen's T ------------------------------------------------------

def owens_t_series(h, a):
    """Owen's T(h, a) by mpmath in closed-form terms (no quadrature: fast under mpmath.diffs):
    e^(−q)/(2π)·Σₖ (−q)ᵏ/k!·Iₖ, q = h²/2, with Iₖ = ∫₀^a t^(2k)/(1 + t²) dt = a^(2k−1)/(2k − 1)
    − Iₖ₋₁, I₀ = atan a (the sum cancels by e^(qa²): as many guard digits, and 20 more)."""
    h, a = mpmath.mpf(h), mpmath.mpf(a)
    with mpmath.extradps(20 + int(h * h * a * a / 4.6)):
        q, integral = h * h / 2, mpmath.atan(a)
        total, coefficient, power, k = integral, mpmath.mpf(1), a, 0
        while True:
            k += 1
            coefficient *= -q / k
            integral = power / (2 * k - 1) - integral
            power *= a * a
            total += coefficient * integral
            if abs(coefficient * power) <= mpmath.eps * abs(total) or not coefficient:
                break
        r = mpmath.exp(-q) * total / (2 * mpmath.pi)
    return +r


def run_threads(worker, n_threads, interval=1e-5):
    """worker(0..n_threads-1) in threads at once, switching often, mid-computation."""
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old_interval)
