"""Issue #17's research workloads, written in plain numpy: dvlad against hand-written derivatives.

    python benchmarks/research.py            # every workload at full size: a Markdown table
    python benchmarks/research.py --quick    # small sizes, 2 repeats (the test runs this)
    python benchmarks/research.py --record   # ... and append the table to benchmarks/RESULTS.md

Workloads (shared/BENCHMARKS.md, "Research workloads"); the baseline, in brackets, is a
hand-written numpy derivative of the same function:
  (r1) Gaussian-process negative log marginal likelihood
           NLML(θ) = ½ yᵀK⁻¹y + ½ log det K + (n/2) log 2π,
           K = σ_f² exp(−‖xᵢ − xⱼ‖² / 2ℓ²) + σ_n² I   (RBF kernel, n points in 3-d, fixed seed),
       its gradient in θ = (log ℓ, log σ_f², log σ_n²) by dvlad.gradient_r, n = 200 and 1000,
       two ways: np.linalg.cholesky, two np.linalg.solve (L, then Lᵀ: plain numpy has no
       triangular solver) and 2·Σ log diag L; and np.linalg.slogdet with np.linalg.solve.
       [½ tr((K⁻¹ − ααᵀ) ∂K/∂θₖ), α = K⁻¹y, with K⁻¹ from the Cholesky factor, resp. np.linalg.inv]
  (r2) logistic regression, loss(w) = Σ log(1 + exp(−yᵢ xᵢᵀw)), X 10⁴ × 100, y = ±1, written
       np.logaddexp(0, −y·(Xw)) and np.log1p(np.exp(−y·(Xw))); Hessian-vector product by
       dvlad.hvp, mode "fr" (the default) and "rr"; and with X read-only (reverse mode keeps
       a writeable captured X by a private copy, ~0.7 ms here: this row shows that cost).
                                                          [Xᵀ(σ(Xw)(1 − σ(Xw))·(Xv))]
  (r3) MLP 784→256→128→10 (tanh, and relu as np.maximum(0, ·)), softmax cross-entropy with the
       log-softmax z − scipy.special.logsumexp(z, axis=1, keepdims=True) (the max-shifted form in
       numpy when scipy is absent), batch 256, parameters a dict {"W1", "b1", ..., "b3"};
       gradient by dvlad.gradient_r in the dict.                  [backpropagation by hand]

Every result is checked before it is timed: each baseline against a central difference along a
random direction (rtol 1e-5), then dvlad's (and each peer's) result against the baseline
(rtol 1e-8); a wrong result is reported, not timed, and the run exits with status 1.  Timing as
in benchmarks/run.py (its ``measure``): in this one process the baseline and the system are timed
alternately, several repeats, and a cell is the median of the per-repeat ratios (system time ÷
baseline time); the table also gives the median absolute times of the baseline and dvlad.
numpy's BLAS runs one thread unless ``--blas-threads N`` (or OPENBLAS_NUM_THREADS, ...) says
otherwise: on a busy 2-core machine a second BLAS thread slows every matrix product many times
over, for the baseline and dvlad alike, and the ratios shrink towards 1.  The process is pinned
to one CPU (``--all-cores``: not), so jax.jit's XLA, which otherwise spreads a call over both
cores, runs on one as every other system does.

Peers, when importable (each skipped cleanly otherwise, its column "not installed"), on the same
functions written with their own array modules: autograd (autograd.numpy; HVP by
autograd.hessian_vector_product, reverse over reverse, in both HVP rows), torch eager (one thread,
float64; gradient by torch.autograd.grad; HVP "fr" by torch.func.jvp over torch.func.grad, "rr"
by double backward), jax eager (float64, no jit; jax.grad, HVP "fr" jax.jvp over jax.grad, "rr"
jax.grad of ⟨∇f, v⟩) and jax.jit of the same derivative function (timed after one warm-up call:
compilation excluded).
"""
import argparse
import datetime
import math
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _blas_threads(argv):
    """--blas-threads N (default 1) into the BLAS libraries' variables, before numpy loads; a
    variable already set in the environment wins.  On a loaded 2-core machine OpenBLAS's second
    thread made a 200×200 inverse 45× slower (71 ms against 1.5 ms): one thread by default."""
    n = "1"
    for i, a in enumerate(argv):
        if a == "--blas-threads" and i + 1 < len(argv):
            n = argv[i + 1]
        elif a.startswith("--blas-threads="):
            n = a.split("=", 1)[1]
    for var in BLAS_VARS:
        os.environ.setdefault(var, n)
    return os.environ[BLAS_VARS[0]]


BLAS_THREADS = _blas_threads(sys.argv) if __name__ == "__main__" else None

import numpy as np  # noqa: E402

try:
    import scipy.special  # noqa: F401  (called as scipy.special.logsumexp: dvlad installs its own)
    import scipy.linalg
    HAVE_SCIPY = True
except ImportError:
    HAVE_SCIPY = False

import dvlad as ad  # noqa: E402
from run import measure, one_core  # noqa: E402

RTOL = 1e-8
PINNED = []         # how the process was pinned (benchmarks/run.py's one_core), for the record
PEERS = ("autograd", "torch", "jax", "jax.jit")
LOG_2PI = math.log(2 * math.pi)


# ---------------------------------------------------------------- the functions, in plain numpy
# xp: numpy, or a peer's numpy-like module (autograd.numpy, jax.numpy); lse: its logsumexp.

def gp_nlml_cholesky(theta, D2, y, xp=np):
    """(r1) NLML by Cholesky: L = chol K, α = L⁻ᵀ(L⁻¹y), ½ yᵀα + Σ log Lᵢᵢ + (n/2) log 2π."""
    n = y.shape[0]
    K = (xp.exp(theta[1]) * xp.exp(-0.5 * D2 * xp.exp(-2.0 * theta[0]))
         + xp.exp(theta[2]) * xp.eye(n))
    L = xp.linalg.cholesky(K)
    alpha = xp.linalg.solve(L.T, xp.linalg.solve(L, y))
    return 0.5 * (y @ alpha) + xp.sum(xp.log(xp.diag(L))) + 0.5 * n * LOG_2PI


def gp_nlml_slogdet(theta, D2, y, xp=np):
    """(r1) NLML by slogdet and solve: ½ yᵀK⁻¹y + ½ log det K + (n/2) log 2π."""
    n = y.shape[0]
    K = (xp.exp(theta[1]) * xp.exp(-0.5 * D2 * xp.exp(-2.0 * theta[0]))
         + xp.exp(theta[2]) * xp.eye(n))
    _, logdet = xp.linalg.slogdet(K)
    return 0.5 * (y @ xp.linalg.solve(K, y)) + 0.5 * logdet + 0.5 * n * LOG_2PI


def lr_logaddexp(w, X, y, xp=np):
    """(r2) Σ log(1 + exp(−yᵢ xᵢᵀw)) with logaddexp."""
    return xp.sum(xp.logaddexp(0.0, -y * (X @ w)))


def lr_log1p(w, X, y, xp=np):
    """(r2) the same with log1p(exp(·)) (no overflow at these margins)."""
    return xp.sum(xp.log1p(xp.exp(-y * (X @ w))))


def _np_logsumexp(z, axis, keepdims):
    if HAVE_SCIPY:
        return scipy.special.logsumexp(z, axis=axis, keepdims=keepdims)
    m = np.max(ad.stop_gradient(z), axis=axis, keepdims=True)       # a constant shift
    out = m + np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis)


def mlp_loss(params, X, Y, activation="tanh", xp=np, lse=_np_logsumexp):
    """(r3) mean softmax cross-entropy of a 3-layer MLP; Y one-hot."""
    act = xp.tanh if activation == "tanh" else (lambda a: xp.maximum(0.0, a))
    h1 = act(X @ params["W1"] + params["b1"])
    h2 = act(h1 @ params["W2"] + params["b2"])
    z = h2 @ params["W3"] + params["b3"]
    logp = z - lse(z, axis=1, keepdims=True)
    return -xp.sum(Y * logp) / X.shape[0]


# ---------------------------------------------------------------- hand-written derivatives

def _sigmoid(z):
    return scipy.special.expit(z) if HAVE_SCIPY else 0.5 * (1.0 + np.tanh(0.5 * z))


def gp_grad(theta, D2, y, how):
    """∂NLML/∂θ = ½ tr((K⁻¹ − ααᵀ) ∂K/∂θₖ): ∂K/∂log ℓ = K_f·D²/ℓ², ∂K/∂log σ_f² = K_f,
    ∂K/∂log σ_n² = σ_n² I.  how: "cholesky" (K⁻¹ = L⁻ᵀL⁻¹) or "inv" (np.linalg.inv)."""
    n = y.shape[0]
    inv_l2, sf2, sn2 = math.exp(-2.0 * theta[0]), math.exp(theta[1]), math.exp(theta[2])
    Kf = sf2 * np.exp(-0.5 * inv_l2 * D2)
    K = Kf + sn2 * np.eye(n)
    if how == "cholesky":
        L = np.linalg.cholesky(K)
        Li = (scipy.linalg.solve_triangular(L, np.eye(n), lower=True) if HAVE_SCIPY
              else np.linalg.inv(L))
        Kinv = Li.T @ Li
    else:
        Kinv = np.linalg.inv(K)
    alpha = Kinv @ y
    W = Kinv - np.outer(alpha, alpha)
    WKf = W * Kf
    return 0.5 * np.array([inv_l2 * np.vdot(WKf, D2), WKf.sum(), sn2 * np.trace(W)])


def lr_hvp(w, X, y, v):
    """H v = Xᵀ(σ(z)(1 − σ(z))·(Xv)), z = Xw (y² = 1)."""
    s = _sigmoid(X @ w)
    return X.T @ (s * (1.0 - s) * (X @ v))


def lr_grad(w, X, y):
    """∇loss = −Xᵀ(y·σ(−y·Xw)) (for the baseline's own finite-difference check)."""
    return -X.T @ (y * _sigmoid(-y * (X @ w)))


def mlp_grad(params, X, Y, activation="tanh"):
    """Backpropagation by hand, forward pass included."""
    W1, b1, W2, b2, W3, b3 = (params[k] for k in ("W1", "b1", "W2", "b2", "W3", "b3"))
    a1 = X @ W1 + b1
    h1 = np.tanh(a1) if activation == "tanh" else np.maximum(0.0, a1)
    a2 = h1 @ W2 + b2
    h2 = np.tanh(a2) if activation == "tanh" else np.maximum(0.0, a2)
    z = h2 @ W3 + b3
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    dz = (p - Y) / X.shape[0]
    dh2 = dz @ W3.T
    da2 = dh2 * (1.0 - h2 * h2) if activation == "tanh" else dh2 * (a2 > 0)
    dh1 = da2 @ W2.T
    da1 = dh1 * (1.0 - h1 * h1) if activation == "tanh" else dh1 * (a1 > 0)
    return {"W1": X.T @ da1, "b1": da1.sum(axis=0), "W2": h1.T @ da2, "b2": da2.sum(axis=0),
            "W3": h2.T @ dz, "b3": dz.sum(axis=0)}


# ---------------------------------------------------------------- problems

def gp_data(n, seed=0):
    rng = np.random.default_rng(seed)
    pts = rng.standard_normal((n, 3))
    D2 = np.sum((pts[:, None, :] - pts[None, :, :]) ** 2, axis=-1)
    y = np.sin(pts @ np.array([1.0, -0.5, 0.25])) + 0.1 * rng.standard_normal(n)
    theta = np.array([math.log(0.8), math.log(1.3), math.log(0.1)])
    return theta, D2, y


def lr_data(m, d, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d)) / math.sqrt(d)
    y = np.where(rng.standard_normal(m) + X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    return 0.5 * rng.standard_normal(d), X, y, rng.standard_normal(d)


MLP_SIZES = (784, 256, 128, 10)


def mlp_data(batch, seed=2):
    rng = np.random.default_rng(seed)
    params = {}
    for i, (a, b) in enumerate(zip(MLP_SIZES, MLP_SIZES[1:]), 1):
        params[f"W{i}"] = rng.standard_normal((a, b)) / math.sqrt(a)
        params[f"b{i}"] = 0.1 * rng.standard_normal(b)
    X = rng.standard_normal((batch, MLP_SIZES[0]))
    Y = np.eye(MLP_SIZES[-1])[rng.integers(0, MLP_SIZES[-1], batch)]
    return params, X, Y


class Problem:
    """One row: label, baseline label, the baseline callable (its value is the reference), the
    dvlad callable, the baseline's finite-difference check, and one callable per peer (None:
    n/a; absent: the peer cannot be imported)."""

    def __init__(self, label, base_label, baseline, dvlad, fd_check, peers):
        self.label, self.base_label, self.baseline, self.dvlad = label, base_label, baseline, dvlad
        self.fd_check, self.peers = fd_check, peers


def _central(fn, x, dx, h):
    return (fn(x + h * dx) - fn(x - h * dx)) / (2 * h)


def problems(quick, peers):
    out = []
    for n in ((50,) if quick else (200, 1000)):
        theta, D2, y = gp_data(n)
        dtheta = np.array([0.3, -0.7, 0.5])
        for variant, f, how in (("cholesky", gp_nlml_cholesky, "cholesky"),
                                ("slogdet + solve", gp_nlml_slogdet, "inv")):
            def base(theta=theta, D2=D2, y=y, how=how):
                return gp_grad(theta, D2, y, how)

            def fd(f=f, theta=theta, D2=D2, y=y, base=base, dtheta=dtheta):
                want = _central(lambda t: f(t, D2, y), theta, dtheta, 1e-5)
                return want, base() @ dtheta
            g = ad.gradient_r(lambda t, f=f, D2=D2, y=y: f(t, D2, y))
            out.append(Problem(f"(r1) GP NLML gradient, {variant}, n={n}",
                               f"analytic ({'Cholesky' if how == 'cholesky' else 'inv'})",
                               base, lambda g=g, theta=theta: g(theta), fd,
                               {p: make(("gp", f.__name__), theta, D2, y)
                                for p, make in peers.items()}))
    m, d = (200, 20) if quick else (10_000, 100)
    w, X, y, v = lr_data(m, d)
    frozen = X.copy()          # the same data read-only: reverse mode keeps it without a copy
    frozen.flags.writeable = False
    for f, spelled, X in ((lr_logaddexp, "logaddexp", X), (lr_log1p, "log1p(exp)", X),
                          (lr_logaddexp, "logaddexp, X read-only", frozen)):
        for mode in ("fr", "rr"):
            def base(w=w, X=X, y=y, v=v):
                return lr_hvp(w, X, y, v)

            def fd(w=w, X=X, y=y, v=v, base=base):
                return _central(lambda u: lr_grad(u, X, y), w, v, 1e-5), base()

            def call(f=f, mode=mode, X=X):
                return ad.hvp(lambda u: f(u, X, y), w, v, mode)
            out.append(Problem(f"(r2) logistic HVP {mode}, {spelled}, {m}×{d}", "analytic HVP",
                               base, call, fd,
                               {p: make(("lr", f.__name__, mode), w, X, y, v)
                                for p, make in peers.items()}))
    batch = 16 if quick else 256
    params, Xb, Y = mlp_data(batch)
    rng = np.random.default_rng(3)
    dparams = {k: rng.standard_normal(a.shape) for k, a in params.items()}
    scale = 1.0 / math.sqrt(sum(np.vdot(a, a) for a in dparams.values()))   # a unit direction:
    dparams = {k: scale * a for k, a in dparams.items()}     # relu's kinks stay out of reach
    for act in ("tanh", "relu"):
        def base(act=act):
            return mlp_grad(params, Xb, Y, act)

        def fd(act=act, base=base):
            def along(t):
                return mlp_loss({k: params[k] + t * dparams[k] for k in params}, Xb, Y, act)
            g = base()
            return (along(1e-6) - along(-1e-6)) / 2e-6, sum(np.vdot(g[k], dparams[k]) for k in g)
        g = ad.gradient_r(lambda p, act=act: mlp_loss(p, Xb, Y, act))
        out.append(Problem(f"(r3) MLP gradient, {act}, batch {batch}", "backprop by hand", base,
                           lambda g=g: g(params), fd,
                           {p: make(("mlp", act), params, Xb, Y) for p, make in peers.items()}))
    return out


# ---------------------------------------------------------------- peers (each optional)

def _peer_autograd():
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp as alse

    def make(kind, *data):
        if kind[0] == "gp":
            f = globals()[kind[1]]
            _, D2, y = data
            g = autograd.grad(lambda t: f(t, D2, y, xp=anp))
            return lambda: g(data[0])
        if kind[0] == "lr":
            f = globals()[kind[1]]
            w, X, y, v = data
            hv = autograd.hessian_vector_product(lambda u: f(u, X, y, xp=anp))
            return lambda: hv(w, v)                       # reverse over reverse, in both rows
        params, X, Y = data
        g = autograd.grad(lambda p: mlp_loss(p, X, Y, kind[1], xp=anp, lse=alse))
        return lambda: g(params)
    return make


def _peer_torch():
    import torch
    torch.set_num_threads(1)
    f64 = torch.float64

    def T(a):
        return torch.as_tensor(np.asarray(a), dtype=f64)

    def gp(f_name, theta, D2, y):
        n = y.shape[0]
        eye = torch.eye(n, dtype=f64)
        K = torch.exp(theta[1]) * torch.exp(-0.5 * D2 * torch.exp(-2.0 * theta[0])) + \
            torch.exp(theta[2]) * eye
        if f_name == "gp_nlml_cholesky":
            L = torch.linalg.cholesky(K)
            alpha = torch.linalg.solve(L.T, torch.linalg.solve(L, y))
            return 0.5 * (y @ alpha) + torch.sum(torch.log(torch.diagonal(L))) + 0.5 * n * LOG_2PI
        _, logdet = torch.linalg.slogdet(K)
        return 0.5 * (y @ torch.linalg.solve(K, y)) + 0.5 * logdet + 0.5 * n * LOG_2PI

    def lr(f_name, w, X, y):
        t = -y * (X @ w)
        if f_name == "lr_logaddexp":
            return torch.sum(torch.logaddexp(torch.zeros_like(t), t))
        return torch.sum(torch.log1p(torch.exp(t)))

    def mlp(p, X, Y, act):
        a = torch.tanh if act == "tanh" else torch.relu
        h1 = a(X @ p["W1"] + p["b1"])
        h2 = a(h1 @ p["W2"] + p["b2"])
        z = h2 @ p["W3"] + p["b3"]
        return -torch.sum(Y * (z - torch.logsumexp(z, dim=1, keepdim=True))) / X.shape[0]

    def grad_of(loss, x):
        x = x.detach().requires_grad_(True)
        return torch.autograd.grad(loss(x), x)[0]

    def make(kind, *data):
        if kind[0] == "gp":
            theta, D2, y = (T(a) for a in data)
            return lambda: grad_of(lambda t: gp(kind[1], t, D2, y), theta)
        if kind[0] == "lr":
            w, X, y, v = (T(a) for a in data)

            def loss(u):
                return lr(kind[1], u, X, y)
            if kind[2] == "fr":
                return lambda: torch.func.jvp(torch.func.grad(loss), (w,), (v,))[1]

            def double_backward():
                u = w.detach().requires_grad_(True)
                g, = torch.autograd.grad(loss(u), u, create_graph=True)
                return torch.autograd.grad(g @ v, u)[0]
            return double_backward
        params, X, Y = {k: T(a) for k, a in data[0].items()}, T(data[1]), T(data[2])
        keys = list(params)

        def grads():
            leaves = [params[k].detach().requires_grad_(True) for k in keys]
            out = torch.autograd.grad(mlp(dict(zip(keys, leaves)), X, Y, kind[1]), leaves)
            return dict(zip(keys, out))
        return grads
    return make


def _peer_jax(jit):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp as jlse
    wrap = jax.jit if jit else (lambda fn: fn)

    def ready(fn):
        def call():
            return jax.block_until_ready(fn())
        if jit:
            call()                                        # compile once, outside the timing
        return call

    def make(kind, *data):
        if kind[0] == "gp":
            f = globals()[kind[1]]
            theta, D2, y = (jnp.asarray(a) for a in data)
            g = wrap(jax.grad(lambda t, D2, y: f(t, D2, y, xp=jnp)))
            return ready(lambda: g(theta, D2, y))
        if kind[0] == "lr":
            f = globals()[kind[1]]
            w, X, y, v = (jnp.asarray(a) for a in data)

            def loss(u, X, y):
                return f(u, X, y, xp=jnp)
            if kind[2] == "fr":
                def hv(u, v, X, y):
                    return jax.jvp(lambda q: jax.grad(loss)(q, X, y), (u,), (v,))[1]
            else:
                def hv(u, v, X, y):
                    return jax.grad(lambda q: jnp.vdot(jax.grad(loss)(q, X, y), v))(u)
            hv = wrap(hv)
            return ready(lambda: hv(w, v, X, y))
        params = {k: jnp.asarray(a) for k, a in data[0].items()}
        X, Y = jnp.asarray(data[1]), jnp.asarray(data[2])
        g = wrap(jax.grad(lambda p, X, Y: mlp_loss(p, X, Y, kind[1], xp=jnp, lse=jlse)))
        return ready(lambda: g(params, X, Y))
    return make


def load_peers():
    """{name: make} of the importable peers, and {name: why} of the others."""
    found, missing = {}, {}
    loaders = {"autograd": _peer_autograd, "torch": _peer_torch,
               "jax": lambda: _peer_jax(False), "jax.jit": lambda: _peer_jax(True)}
    for name, load in loaders.items():
        try:
            found[name] = load()
        except ImportError as e:
            missing[name] = str(e)
    return found, missing


# ---------------------------------------------------------------- checking and timing

def _leaves(r):
    if isinstance(r, dict):
        return [_leaves(r[k]) for k in sorted(r)]
    if hasattr(r, "detach"):                              # a torch tensor
        r = r.detach().numpy()
    return np.asarray(r, dtype=float)


def _error(got, want):
    """Largest |got − want| relative to max(|want|) per array, or None if shapes differ."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return None
        errs = [_error(got[k], want[k]) for k in want]
        return None if None in errs else max(errs)
    g, w = _leaves(got), _leaves(want)
    if g.shape != w.shape:
        return None
    return float(np.max(np.abs(g - w) / (np.abs(w) + 1e-3 * np.max(np.abs(w)) + 1e-300)))


def _checked(call, want):
    """call()'s relative error against want, or a message: "wrong: ...", "raised: ..."."""
    try:
        got = call()
    except Exception as e:                                # reported, not timed
        return f"raised: {type(e).__name__}: {e}"
    err = _error(got, want)
    if err is None:
        return "wrong: not the baseline's structure or shape"
    return err if err <= RTOL else f"wrong: relative error {err:.1e} > {RTOL:g}"


def _ratio(r):
    return f"{r:.2f}×" if r < 10 else (f"{r:.1f}×" if r < 100 else f"{r:,.0f}×")


def run(args, out=sys.stderr):
    peers, missing = load_peers()
    repeats = args.repeats or (2 if args.quick else 7)
    budget = 0.3 if args.quick else args.budget
    sample = 0.01 if args.quick else 0.05
    head = ["workload", "baseline", "baseline ms", "dvlad ms", "dvlad"] + list(PEERS)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    failures, start = [], time.perf_counter()
    rows = problems(args.quick, peers)
    for i, p in enumerate(rows, 1):
        fd, analytic = p.fd_check()
        fd_err = _error(analytic, fd)
        if fd_err is None or fd_err > 1e-5:
            failures.append(f"{p.label}: the baseline disagrees with a central difference "
                            f"(relative error {fd_err if fd_err is None else f'{fd_err:.1e}'})")
        want = p.baseline()
        err = _checked(p.dvlad, want)
        cells = [p.label, p.base_label]
        if isinstance(err, str):
            failures.append(f"{p.label}: dvlad {err}")
            cells += ["–", "–", err.split(":")[0]]
        else:
            ratio, tb, tf, _ = measure(p.dvlad, p.baseline, repeats, budget, sample)
            cells += [f"{tb * 1e3:,.3f}", f"{tf * 1e3:,.3f}", _ratio(ratio)]
        for name in PEERS:
            if name in missing:
                cells.append("not installed")
                continue
            call = p.peers.get(name)
            if call is None:
                cells.append("n/a")
                continue
            perr = _checked(call, want)
            if isinstance(perr, str):
                failures.append(f"{p.label}: {name} {perr}")
                cells.append(perr.split(":")[0])
            else:
                cells.append(_ratio(measure(call, p.baseline, repeats, budget, sample)[0]))
        lines.append("| " + " | ".join(cells) + " |")
        print(f"[{i:2}/{len(rows)}] {time.perf_counter() - start:6.1f} s  {p.label}: "
              f"{' | '.join(cells[2:5])}", file=out, flush=True)
    notes = [f"{name}: not installed ({why})" for name, why in missing.items()]
    return lines, notes, failures, len(rows), time.perf_counter() - start


# ---------------------------------------------------------------- recording

def _git_commit():
    def git(*a):
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True)
    head = git("rev-parse", "HEAD").stdout.strip() or "unknown"
    # (RESULTS.md itself, which an earlier --record changed, is not the code measured)
    dirty = git("diff", "--no-ext-diff", "--quiet", "HEAD", "--", ".",
                ":(exclude)benchmarks/RESULTS.md").returncode == 1
    return head + (" with uncommitted changes" if dirty else "")


def record(command, lines, notes, machine, wall, loads):
    from results import PATH
    text = [f"\n## {datetime.date.today().isoformat()} — #17 research workloads — `{command}`\n",
            f"Commit {_git_commit()}. Python {platform.python_version()}, numpy {np.__version__}"
            f"{', scipy ' + scipy.__version__ if HAVE_SCIPY else ''}, dvlad {ad.__version__}, "
            f"{os.cpu_count()} cores ({platform.machine()}), BLAS threads {BLAS_THREADS}, "
            f"torch one thread{', ' + PINNED[0] if PINNED else ''}; load average "
            f"{loads[0]:.2f} before, {loads[1]:.2f} after. Machine: {machine or 'no note'}. "
            f"Cells: median over repeats of system time ÷ baseline time (hand-written numpy "
            f"derivative), timed alternately in one process; baseline ms and dvlad ms are "
            f"median times per call. Wall time {wall:.0f} s."
            + "".join(f" {x}." for x in notes) + "\n"]
    with open(PATH, "a", encoding="utf-8") as fh:
        fh.write("\n".join(text + lines) + "\n")
    print(f"appended to {PATH}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes (GP n=50, logistic 200×20, MLP batch 16), 2 repeats")
    parser.add_argument("--repeats", type=int, default=0,
                        help="samples per workload (median); default 7, 2 with --quick")
    parser.add_argument("--budget", type=float, default=4.0,
                        help="seconds per workload and system after which sampling stops")
    parser.add_argument("--blas-threads", default="1",
                        help="threads of numpy's BLAS (default 1; OPENBLAS_NUM_THREADS etc. "
                             "already set in the environment win)")
    parser.add_argument("--record", action="store_true", help="append to benchmarks/RESULTS.md")
    parser.add_argument("--machine", default="",
                        help="a note on the machine's state for --record (e.g. 'otherwise idle')")
    parser.add_argument("--all-cores", action="store_true",
                        help="do not pin the process to one CPU (jax.jit then uses them all)")
    args = parser.parse_args()
    if not args.all_cores and one_core() is not None:
        PINNED.append("pinned to one CPU (every system, jax.jit's threads included)")
    load_before = os.getloadavg()[0]
    lines, notes, failures, count, wall = run(args)
    print("\n".join(lines))
    for note in notes:
        print(note)
    print(f"numpy BLAS threads: {BLAS_THREADS}; load average {os.getloadavg()[0]:.2f}")
    if failures:
        print(f"checks: {len(failures)} FAILED")
        for f in failures:
            print(f"  {f}")
    else:
        print(f"checks: all passed ({count} workloads; baselines agree with central differences, "
              f"dvlad with the baselines to rtol {RTOL:g})")
    if args.record:
        command = "python benchmarks/research.py" + "".join(
            f" {a}" for a in sys.argv[1:] if a != "--record") + " --record"
        record(command, lines, notes + [f"check failed: {f}" for f in failures], args.machine,
               wall, (load_before, os.getloadavg()[0]))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
