"""Matrix factorizations as array primitives: triangular solves, cholesky, qr, eigh, svd, pinv.

A factorization with several outputs is one primitive per output (eigh: the eigenvalues, the
eigenvectors), each with the maps of its own Jacobian, written with the other outputs, which are
computed one level down by the same primitives: so every map is made of dvlad's operations and
nests, and outputs used together differentiate as the sum of their parts.  Every map works on
stacks (..., m, n).  :mod:`dvlad.arrays.decompositions` gives them numpy's signatures.

cholesky and eigh take a symmetric matrix: their maps act on sym(T) = (T + Tᵀ)/2, so forward
and backward are transposes of each other on every matrix; the handlers build the symmetric
input from the one triangle numpy reads, which makes the derivative numpy's own, in every
direction.
"""
import functools

import numpy as np

from . import primitives as A
from .linalg import einsum, matmul
from .blas_paths import congruence, trsm
from .primitives import _Apply, _primitive
from ..core.number import strip
from ..core.tags import NotDifferentiableError

__all__ = ["tri_solve", "cholesky_factor", "qr_q", "qr_r", "eig_values", "eig_vectors",
           "singular_values", "svd_u", "svd_vt", "pinv_matrix"]


# ---- helpers: transposes and triangles, with dvlad's operations ---------------------------------

def mT(x):
    """The matrix transpose of x, or of each matrix of a stack."""
    return A.swapaxes(x, -1, -2)


def dtype_of(x):
    """The floating dtype derivatives of x carry (float32 stays float32)."""
    return np.result_type(strip(x), np.float32)


@functools.lru_cache(maxsize=16)
def tri_mask(n, lower, k=0):
    """(n, n) booleans: the lower triangle j − i ≤ k, or the upper one j − i ≥ k (read-only,
    kept for the next call with the same n)."""
    m = np.tri(n, n, k, dtype=bool) if lower else ~np.tri(n, n, k - 1, dtype=bool)
    m.flags.writeable = False
    return m


def tri(x, lower, k=0):
    """tril(x, k) or triu(x, k), of each matrix of a stack: a where, linear in x."""
    return A.where(tri_mask(A.shape(x)[-1], lower, k), x, 0.0)


def sym(x):
    """(x + xᵀ)/2."""
    return (x + mT(x)) * 0.5


def from_triangle(a, lower):
    """The symmetric matrix numpy's cholesky and eigh see: a's lower (or upper) triangle,
    mirrored.  where(mask, a, aᵀ): its derivative is that of a function of one triangle."""
    return A.where(tri_mask(A.shape(a)[-1], lower), a, mT(a))


def _eye(x, axis=-1):
    return np.eye(A.shape(x)[axis], dtype=dtype_of(x))


def _row(v):
    return A.expand_dims(v, -2)         # X * _row(v) scales X's columns by v


def _col(v):
    return A.expand_dims(v, -1)         # _col(v) * X scales X's rows by v


# ---- one numpy call for the outputs of one factorization ----------------------------------------

_LAST = {}


def factored(fn, a, *params):
    """fn(a, *params) (numpy's qr, eigh, svd: a tuple), computed once for the several output
    primitives of one factorization, each of whose partials asks for the others: the last call
    per function is kept with a copy of a, and a hit (an equal a) returns copies of its result.
    Checking a costs O(n²), the factorization O(n³); without it, svd's three outputs would
    make 9 calls (each partial asks for the two others)."""
    key = (fn,) + params
    hit = _LAST.get(key)
    if hit is not None and hit[0].shape == a.shape and hit[0].dtype == a.dtype \
            and np.array_equal(hit[0], a):
        return tuple(np.copy(o) for o in hit[1])
    out = tuple(fn(a, *params))
    _LAST[key] = (np.array(a, copy=True), tuple(np.copy(o) for o in out))
    return out


def _qr_value(a):
    return factored(np.linalg.qr, a)


def _eigh_value(a, uplo):
    return factored(np.linalg.eigh, a, uplo)


def _svd_value(a):
    return factored(np.linalg.svd, a, False)


# ---- triangular solve -------------------------------------------------------------------------

def _tri_value(a, b, lower):
    if a.ndim == 2 and b.ndim == 2:
        x = trsm(a, b, lower)
        if x is not None:
            return x
        try:
            from scipy.linalg import solve_triangular as scipy_solve
        except ImportError:
            pass
        else:
            return scipy_solve(a, b, lower=lower, check_finite=False)    # (nan: as numpy)
    return np.linalg.solve(np.tril(a) if lower else np.triu(a), b)


def _tri_partials(x, a, b, lower):
    """x = T⁻¹b, T the triangle of a: dx = T⁻¹(db − tri(da)·x); ā = −tri(T⁻ᵀ x̄ xᵀ)."""
    at = mT(a)
    return (_Apply(lambda t: -tri_solve(a, matmul(tri(t, lower), x), lower),
                   lambda s: -A.sum_to(tri(matmul(tri_solve(at, s, not lower), mT(x)), lower),
                                       A.shape(a))),
            _Apply(lambda t: tri_solve(a, t, lower),
                   lambda s: A.sum_to(tri_solve(at, s, not lower), A.shape(b))),
            None)


tri_solve = _primitive("tri_solve", _tri_value, _tri_partials, True)
tri_solve.__doc__ = """x = T⁻¹b for T the lower (or upper) triangle of a; b a matrix (..., n, k).
Only the triangle is read, so the derivative in a is the triangle's."""


# ---- cholesky -----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=16)
def _phi(n, dt):
    """Φ(X) = Φ * X: the lower triangle with its diagonal halved (Murray 2016); read-only, kept
    for the next call with the same n and dtype."""
    w = np.tril(np.ones((n, n), dt))
    np.fill_diagonal(w, 0.5)
    w.flags.writeable = False
    return w


def _chol_partials(l, a):
    """A = LLᵀ: dL = L·Φ(L⁻¹·sym(dA)·L⁻ᵀ), and Ā = sym(L⁻ᵀ·Φ(Lᵀ·L̄)·L⁻¹) (Murray 2016)."""
    phi, lt = _phi(A.shape(a)[-1], dtype_of(l)), mT(l)

    def fwd(t):
        x = tri_solve(l, sym(t), True)                             # L⁻¹S
        return matmul(l, phi * tri_solve(l, mT(x), True))         # L⁻¹ S L⁻ᵀ, S symmetric

    def bwd(s):
        w = congruence(l, s, phi)
        if w is not None:
            return w
        y = tri_solve(lt, phi * matmul(lt, s), False)             # L⁻ᵀ Φ(Lᵀ L̄)
        return sym(tri_solve(lt, mT(y), False))                    # its (… L⁻¹)ᵀ: sym is the same
    return (_Apply(fwd, bwd),)


cholesky_factor = _primitive("cholesky_factor", lambda a: np.linalg.cholesky(a), _chol_partials,
                             True)


# ---- qr (m ≥ n, reduced) ------------------------------------------------------------------------

def _qr_tangents(q, r, t):
    """dA = dQ·R + Q·dR (Walter & Lehmann; J. Townsend's note): with Z = dA·R⁻¹, K = QᵀZ and
    Ω = tril(K, −1) − tril(K, −1)ᵀ, dQ = Q(Ω − K) + Z and dR = (K − Ω)R."""
    z = mT(tri_solve(mT(r), mT(t), True))
    k = matmul(mT(q), z)
    low = tri(k, True, -1)
    om = low - mT(low)
    return matmul(q, om - k) + z, matmul(k - om, r)


def _qr_cotangent(q, r, q_bar, r_bar):
    """The transpose of _qr_tangents: M = R̄Rᵀ − QᵀQ̄, K̄ = M − tril(M − Mᵀ, −1),
    Ā = (Q̄ + QK̄)R⁻ᵀ (Q̄ or R̄ None: zero)."""
    m = matmul(r_bar, mT(r)) if q_bar is None else -matmul(mT(q), q_bar)
    if q_bar is not None and r_bar is not None:
        m = m + matmul(r_bar, mT(r))
    k_bar = m - tri(m - mT(m), True, -1)
    z_bar = matmul(q, k_bar) if q_bar is None else matmul(q, k_bar) + q_bar
    return mT(tri_solve(r, mT(z_bar), False))


def _qr_q_partials(q, a):
    r = qr_r(a)
    return (_Apply(lambda t: _qr_tangents(q, r, t)[0], lambda s: _qr_cotangent(q, r, s, None)),)


def _qr_r_partials(r, a):
    q = qr_q(a)
    return (_Apply(lambda t: _qr_tangents(q, r, t)[1], lambda s: _qr_cotangent(q, r, None, s)),)


qr_q = _primitive("qr_q", lambda a: _qr_value(a)[0], _qr_q_partials, True)
qr_r = _primitive("qr_r", lambda a: _qr_value(a)[1], _qr_r_partials, True)


# ---- eigh (symmetric) ---------------------------------------------------------------------------

def _gaps(w):
    """F with F_ij = 1/(w_j − w_i) off the diagonal and 0 on it (inf at a repeated w)."""
    eye = _eye(w)
    return 1.0 / (_row(w) - _col(w) + eye) - eye


def _eig_values_value(a, vectors, uplo):
    return _eigh_value(a, uplo)[0] if vectors else np.linalg.eigvalsh(a, uplo)


def _eig_values_partials(w, a, vectors, uplo):
    """dwᵢ = vᵢᵀ·dA·vᵢ, and Ā = V·diag(w̄)·Vᵀ."""
    v = eig_vectors(a, uplo)
    return (_Apply(lambda t: einsum("...ji,...jk,...ki->...i", v, t, v),
                   lambda s: matmul(v * _row(s), mT(v))), None, None)


def _eig_vectors_partials(v, a, uplo):
    """dV = V·(F ∘ (Vᵀ·sym(dA)·V)), and Ā = sym(V·(F ∘ VᵀV̄)·Vᵀ) (Giles 2008)."""
    f = _gaps(eig_values(a, True, uplo))
    return (_Apply(lambda t: matmul(v, f * matmul(mT(v), matmul(sym(t), v))),
                   lambda s: sym(matmul(matmul(v, f * matmul(mT(v), s)), mT(v)))), None)


eig_values = _primitive("eig_values", _eig_values_value, _eig_values_partials, True)
eig_vectors = _primitive("eig_vectors", lambda a, uplo: _eigh_value(a, uplo)[1],
                         _eig_vectors_partials, True)


# ---- svd (reduced: U (..., m, k), s (..., k), Vᵀ (..., k, n), k = min(m, n)) ---------------------

def _sv_gaps(s):
    """F with F_ij = 1/(s_j² − s_i²) off the diagonal, 0 on it."""
    s2, eye = s * s, _eye(s)
    return 1.0 / (_row(s2) - _col(s2) + eye) - eye


def _sv_value(a, vectors):
    return _svd_value(a)[1] if vectors else \
        np.linalg.svd(a, compute_uv=False)


def _sv_partials(s, a, vectors):
    """dsᵢ = uᵢᵀ·dA·vᵢ, and Ā = U·diag(s̄)·Vᵀ."""
    u, vt = svd_u(a), svd_vt(a)
    return (_Apply(lambda t: einsum("...ji,...jk,...ik->...i", u, t, vt),
                   lambda g: matmul(u * _row(g), vt)), None)


def _svd_u_partials(u, a):
    """dU = U·(F ∘ (dS·S + S·dSᵀ)) + (I − UUᵀ)·dA·V·S⁻¹ (the last term when m > n), with
    dS = Uᵀ·dA·V; Ā = U·((X + Xᵀ)·S)·Vᵀ + (I − UUᵀ)·Ū·S⁻¹·Vᵀ, X = F ∘ UᵀŪ."""
    s, vt = singular_values(a, True), svd_vt(a)
    f, v, (m, n) = _sv_gaps(s), mT(vt), A.shape(a)[-2:]

    def fwd(t):
        tv = matmul(t, v)
        ds = matmul(mT(u), tv)
        du = matmul(u, f * (ds * _row(s) + _col(s) * mT(ds)))
        return du + (tv - matmul(u, ds)) / _row(s) if m > n else du

    def bwd(g):
        x = f * matmul(mT(u), g)
        left = matmul(u, (x + mT(x)) * _row(s))
        if m > n:
            left = left + (g - matmul(u, matmul(mT(u), g))) / _row(s)
        return matmul(left, vt)
    return (_Apply(fwd, bwd),)


def _svd_vt_partials(vt, a):
    """dV = V·(F ∘ (S·dS + dSᵀ·S)) + (I − VVᵀ)·dAᵀ·U·S⁻¹ (the last term when n > m);
    Ā = U·(S·(Y + Yᵀ))·Vᵀ + U·S⁻¹·((I − VVᵀ)V̄)ᵀ, Y = F ∘ VᵀV̄."""
    u, s = svd_u(a), singular_values(a, True)
    f, v, (m, n) = _sv_gaps(s), mT(vt), A.shape(a)[-2:]

    def fwd(t):
        ds = matmul(mT(u), matmul(t, v))
        dv = matmul(v, f * (_col(s) * ds + mT(ds) * _row(s)))
        if n > m:
            tu = matmul(mT(t), u)
            dv = dv + (tu - matmul(v, matmul(vt, tu))) / _row(s)
        return mT(dv)

    def bwd(g):
        g = mT(g)                                                   # V̄
        y = f * matmul(vt, g)
        out = matmul(u, matmul(_col(s) * (y + mT(y)), vt))
        if n > m:
            out = out + matmul(u / _row(s), mT(g - matmul(v, matmul(vt, g))))
        return out
    return (_Apply(fwd, bwd),)


singular_values = _primitive("singular_values", _sv_value, _sv_partials, True)
svd_u = _primitive("svd_u", lambda a: _svd_value(a)[0],
                   _svd_u_partials, True)
svd_vt = _primitive("svd_vt", lambda a: _svd_value(a)[2],
                    _svd_vt_partials, True)


# ---- pseudo-inverse (full rank) -----------------------------------------------------------------

def rank_deficient(a, rcond, rtol=np._NoValue):
    """Whether numpy's pinv(a, rcond, rtol=rtol) drops a singular value of the plain a."""
    base = np.asarray(strip(a))
    if rcond is None:
        rcond = 1e-15 if rtol is np._NoValue else (
            max(base.shape[-2:]) * np.finfo(base.dtype).eps if rtol is None else rtol)
    s = np.linalg.svd(base, compute_uv=False)
    return bool(np.any(s <= np.asarray(rcond)[..., None] * np.max(s, -1, keepdims=True)))


def _pinv_partials(x, a, rcond, hermitian, rtol):
    """X = A⁺ at full rank (Golub & Pereyra 1973): dX = −X·dA·X + XXᵀ·dAᵀ·(I − AX)
    + (I − XA)·dAᵀ·XᵀX, and Ā = −XᵀX̄Xᵀ + (I − AX)·X̄ᵀ·XXᵀ + XᵀX·X̄ᵀ·(I − XA)."""
    if rank_deficient(a, rcond, rtol):
        raise NotDifferentiableError(
            "linalg.pinv: the matrix is rank-deficient (a singular value under the cutoff), "
            "where the pseudo-inverse jumps with the rank; regularize it (a + λI, or a "
            "full-rank factor) to differentiate")
    xt = mT(x)
    p_out = _eye(a, -2) - matmul(a, x)                   # I − AX  (m, m)
    p_in = _eye(a) - matmul(x, a)                        # I − XA  (n, n)
    xxt, xtx = matmul(x, xt), matmul(xt, x)
    return (_Apply(lambda t: -matmul(matmul(x, t), x) + matmul(matmul(xxt, mT(t)), p_out)
                   + matmul(matmul(p_in, mT(t)), xtx),
                   lambda s: -matmul(matmul(xt, s), xt) + matmul(matmul(p_out, mT(s)), xxt)
                   + matmul(matmul(xtx, mT(s)), p_in)), None, None, None)


pinv_matrix = _primitive(
    "pinv_matrix", lambda a, rcond, hermitian, rtol: np.linalg.pinv(a, rcond, hermitian,
                                                                    rtol=rtol),
    _pinv_partials, True)
