"""Matrix decompositions and the linear algebra on them (dvlad/arrays/decompositions.py):
cholesky, qr, eigh, eigvalsh, svd, pinv, lstsq, norm, matrix_power, multi_dot, and scipy.linalg's
expm, solve_triangular, cho_factor, cho_solve.

Every function: ``dvlad.check_grads`` to order 2 in both modes (forward and reverse against
central differences and each other, nested), stacked inputs where numpy takes them, float32
against float64, closed forms where one exists, and what raises.  Outputs with a sign ambiguity
(eigenvectors, singular vectors) are tested through functions that do not see the sign.
"""
import sys

import numpy as np
import pytest

import dvlad
from dvlad.arrays import decompositions as D
from dvlad.arrays.scipy_linalg import pade_expm
from dvlad.core.switch import REFERENCE
from support import gp_nlml_by_cholesky

R = dvlad.gradient_r


def _rng(seed):
    return np.random.default_rng(seed)


def spd(n, batch=(), seed=0):
    """A well-conditioned symmetric positive definite matrix (or stack), distinct eigenvalues."""
    m = _rng(seed).standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def sym(n, batch=(), seed=0):
    """A symmetric matrix with well separated eigenvalues of both signs."""
    q = np.linalg.qr(_rng(seed).standard_normal(batch + (n, n)))[0]
    w = np.linspace(-2.0, 3.0, n)
    return (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)


def spread(m, n, batch=(), seed=0):
    """An m×n matrix (or stack) with singular values 1, 1.6, 2.2, ... (distinct, nonzero)."""
    g = _rng(seed)
    k = min(m, n)
    u = np.linalg.qr(g.standard_normal(batch + (m, k)))[0]
    v = np.linalg.qr(g.standard_normal(batch + (n, k)))[0]
    s = 1.0 + 0.6 * np.arange(k)
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


def general(m, n, batch=(), seed=0):
    return _rng(seed).standard_normal(batch + (m, n))


W33 = _rng(7).standard_normal((3, 3))
W34 = _rng(8).standard_normal((3, 4))
W43 = _rng(9).standard_normal((4, 3))


def vec_sq(v, w):
    """A function of eigen- or singular vectors that does not see their signs."""
    return np.sum(v ** 2 * w)


CASES = {
    # cholesky: reads the lower triangle (upper=True: the upper one)
    "cholesky": (np.linalg.cholesky, spd(3)),
    "cholesky_upper": (lambda a: np.linalg.cholesky(a, upper=True), spd(3)),
    "cholesky_stack": (np.linalg.cholesky, spd(3, (2,))),
    # qr: tall, square, wide, modes, stacks
    "qr_tall": (np.linalg.qr, general(4, 3)),
    "qr_square": (np.linalg.qr, general(3, 3, seed=1)),
    "qr_wide": (np.linalg.qr, general(3, 5, seed=2)),
    "qr_r": (lambda a: np.linalg.qr(a, mode="r"), general(4, 3)),
    "qr_complete_wide": (lambda a: np.linalg.qr(a, mode="complete"), general(2, 4)),
    "qr_stack": (np.linalg.qr, general(4, 2, (2,))),
    # eigh, eigvalsh: both triangles, stacks
    "eigvalsh": (np.linalg.eigvalsh, sym(3)),
    "eigvalsh_upper": (lambda a: np.linalg.eigvalsh(a, UPLO="U"), sym(3, seed=1)),
    "eigh_values": (lambda a: np.linalg.eigh(a)[0], sym(4)),
    "eigh_vectors": (lambda a: vec_sq(np.linalg.eigh(a).eigenvectors, W33), sym(3)),
    "eigh_both_upper": (lambda a: vec_sq(np.linalg.eigh(a, "U")[1], W33)
                        * np.sum(np.linalg.eigh(a, "U")[0]), sym(3, seed=2)),
    "eigh_reconstruct": (lambda a: (lambda w, v: (v * w[..., None, :]) @ v.T)(*np.linalg.eigh(a)),
                         sym(3, seed=3)),
    "eigh_stack": (lambda a: (np.linalg.eigh(a)[0], np.linalg.eigh(a)[1] ** 2), sym(3, (2,))),
    # svd
    "svd_values_tall": (lambda a: np.linalg.svd(a, compute_uv=False), spread(4, 3)),
    "svd_values_wide": (lambda a: np.linalg.svd(a, compute_uv=False), spread(3, 4)),
    "svd_tall": (lambda a: (lambda u, s, vt: (u ** 2, s, vt ** 2))(
        *np.linalg.svd(a, full_matrices=False)), spread(4, 3)),
    "svd_wide": (lambda a: (lambda u, s, vt: (u ** 2, s, vt ** 2))(
        *np.linalg.svd(a, full_matrices=False)), spread(3, 4, seed=1)),
    "svd_square_full": (lambda a: (lambda r: (r.U ** 2, r.S, r.Vh ** 2))(np.linalg.svd(a)),
                        spread(3, 3, seed=2)),
    "svd_sum": (lambda a: (lambda u, s, vt: np.sum(u @ np.diag(s ** 2) @ vt * W43))(
        *np.linalg.svd(a, full_matrices=False)), spread(4, 3, seed=3)),
    "svd_stack": (lambda a: (lambda u, s, vt: (u ** 2, s, vt ** 2))(
        *np.linalg.svd(a, full_matrices=False)), spread(4, 3, (2,))),
    "svd_hermitian": (lambda a: (lambda u, s, vt: (u ** 2, s, vt ** 2, u @ vt))(
        *np.linalg.svd(a, hermitian=True)), sym(3, seed=4)),
    "svd_hermitian_values": (lambda a: np.linalg.svd(a, compute_uv=False, hermitian=True),
                             sym(3, seed=4)),
    # pinv, lstsq
    "pinv_tall": (np.linalg.pinv, spread(4, 3)),
    "pinv_wide": (np.linalg.pinv, spread(2, 4)),
    "pinv_stack": (np.linalg.pinv, spread(3, 2, (2,))),
    "pinv_hermitian": (lambda a: np.linalg.pinv(a, hermitian=True), sym(3, seed=5)),
    "lstsq_vector": (lambda p: np.linalg.lstsq(p[0], p[1])[0], (spread(5, 3), general(5, 1)[:, 0])),
    "lstsq_matrix": (lambda p: np.linalg.lstsq(p[0], p[1])[0], (spread(4, 2), general(4, 2))),
    "lstsq_wide": (lambda p: np.linalg.lstsq(p[0], p[1])[0], (spread(2, 4), general(2, 3))),
    "lstsq_outputs": (lambda p: (lambda x, res, rank, s: (x, res, s))(*np.linalg.lstsq(*p)),
                      (spread(5, 3, seed=2), general(5, 2))),
    # matrix_power, multi_dot
    "matrix_power_3": (lambda a: np.linalg.matrix_power(a, 3), general(3, 3)),
    "matrix_power_5": (lambda a: np.linalg.matrix_power(a, 5), 0.5 * general(3, 3)),
    "matrix_power_-2": (lambda a: np.linalg.matrix_power(a, -2), spd(3)),
    "matrix_power_stack": (lambda a: np.linalg.matrix_power(a, 4), 0.5 * general(3, 3, (2,))),
    "multi_dot": (lambda p: np.linalg.multi_dot(p), (general(2, 5), general(5, 3),
                                                     general(3, 4), general(4, 1))),
    "multi_dot_vectors": (lambda p: np.linalg.multi_dot([p[0], p[1], p[2]]),
                          (general(3, 1)[:, 0], general(3, 4), general(4, 1)[:, 0])),
    "multi_dot_first_vector": (lambda p: np.linalg.multi_dot([p[0], p[1], p[2]]),
                               (general(3, 1)[:, 0], general(3, 4), general(4, 2))),
    # scipy.linalg's
    "expm": (D.expm, 0.7 * general(3, 3)),
    "expm_stack": (D.expm, 0.7 * general(3, 3, (2,))),
    "solve_triangular_lower": (lambda p: D.solve_triangular(p[0], p[1], lower=True),
                               (spd(3), general(3, 2))),
    "solve_triangular_upper_trans": (lambda p: D.solve_triangular(p[0], p[1], trans="T"),
                                     (spd(3), general(3, 1)[:, 0])),
    "solve_triangular_unit": (lambda p: D.solve_triangular(p[0], p[1], unit_diagonal=True,
                                                           trans=1, lower=True),
                              (0.3 * general(3, 3), general(3, 2))),
    "solve_triangular_stack": (lambda p: D.solve_triangular(p[0], p[1], lower=True),
                               (spd(3, (2,)), general(3, 2, (2,)))),
    "cho_lower": (lambda p: D.cho_solve(D.cho_factor(p[0], lower=True), p[1]),
                  (spd(3), general(3, 1)[:, 0])),
    "cho_upper": (lambda p: D.cho_solve(D.cho_factor(p[0]), p[1]), (spd(3), general(3, 2))),
    "cho_factor": (lambda a: D.cho_factor(a)[0], spd(3)),
}
# the matrix norms, every ord numpy takes, and vector norms along an axis
for _ord in (None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf):
    CASES[f"norm_matrix_{_ord}"] = ((lambda o: lambda a: np.linalg.norm(a, o))(_ord),
                                    spread(3, 4))
    CASES[f"norm_stack_{_ord}"] = ((lambda o: lambda a: np.linalg.norm(a, o, (2, 0), True))(_ord),
                                   general(3, 2, (4,), seed=3))
AWAY_FROM_0 = np.sign(general(3, 4, seed=4)) * (0.5 + np.abs(general(3, 4, seed=4)))
for _ord in (None, 1, -1, 2, 3, 0.5, np.inf, -np.inf):
    CASES[f"norm_vector_{_ord}"] = ((lambda o: lambda a: np.linalg.norm(a, o, axis=1))(_ord),
                                    AWAY_FROM_0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_grads(name):
    f, x = CASES[name]
    dvlad.check_grads(f, x, order=2, modes=("fwd", "rev"))


FLOAT32 = ["cholesky", "cholesky_stack", "qr_tall", "qr_wide", "eigvalsh", "eigh_stack",
           "svd_tall", "svd_wide", "svd_hermitian", "pinv_tall", "lstsq_vector",
           "matrix_power_-2", "multi_dot", "expm", "solve_triangular_stack", "cho_upper",
           "norm_matrix_nuc", "norm_matrix_2", "norm_stack_-2", "norm_vector_3"]


def _scalarized(f, x):
    """x ↦ Σ w·f(x) over f's output leaves, w fixed."""
    out = f(x)
    leaves = list(out) if isinstance(out, tuple) else [out]
    ws = [_rng(11 + k).standard_normal(np.shape(v)) for k, v in enumerate(leaves)]

    def g(x):
        out = f(x)
        leaves = list(out) if isinstance(out, tuple) else [out]
        return sum(np.sum(v * w.astype(np.float32)) for v, w in zip(leaves, ws))
    return g


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_stays_float32(name):
    f, x = CASES[name]
    g = _scalarized(f, x)
    x32 = tuple(a.astype(np.float32) for a in x) if isinstance(x, tuple) else x.astype(np.float32)
    g64, g32 = R(g)(x), R(g)(x32)
    for a64, a32 in (zip(g64, g32) if isinstance(x, tuple) else [(g64, g32)]):
        assert a32.dtype == np.float32
        np.testing.assert_allclose(a32, a64, rtol=0, atol=2e-3 * np.abs(a64).max() + 1e-5)
    t32 = dvlad.jvp(f, x32, x32)[1]
    for t in (t32 if isinstance(t32, tuple) else [t32]):
        assert np.asarray(t).dtype == np.float32


# ---- values and result types are numpy's ------------------------------------------------------

def _values_under_ad(f, x):
    """f's value computed on tape cells (a reverse pass), and on bundles."""
    seen = []
    R(lambda a: (seen.append(f(a)), 0.0 * np.sum(a))[1])(x)
    return seen[0], dvlad.jvp(f, x, np.ones_like(x))[0]


@pytest.mark.parametrize("fn, x", [
    (np.linalg.cholesky, spd(3, (2,))), (np.linalg.eigh, sym(3, (2,))),
    (np.linalg.qr, general(4, 3)), (np.linalg.svd, spread(3, 3)),
    (lambda a: np.linalg.svd(a, full_matrices=False), spread(4, 3)),
    (np.linalg.eigvalsh, sym(3)), (np.linalg.pinv, spread(3, 4)),
    (lambda a: np.linalg.norm(a, 2), spread(3, 4)), (lambda a: np.linalg.qr(a, "r"), general(3, 3)),
    (lambda a: np.linalg.eigh(a, "U"), sym(3))])
def test_values_and_types_are_numpys(fn, x):
    want = fn(x)
    for got in _values_under_ad(fn, x):
        assert type(got) is type(want) or not isinstance(want, tuple)
        for g, w in (zip(got, want) if isinstance(want, tuple) else [(got, want)]):
            np.testing.assert_array_equal(dvlad.primal(g), w)


def test_result_fields():
    def f(a):
        res = np.linalg.eigh(a)
        w, v = res
        assert type(res).__name__ == "EighResult" and res.eigenvalues is w
        u, s, vh = r = np.linalg.svd(a)
        assert type(r).__name__ == "SVDResult" and r.S is s and r.Vh is vh
        q = np.linalg.qr(a)
        assert type(q).__name__ == "QRResult" and q.R is q[1]
        return np.sum(w) + np.sum(s) + np.sum(q.Q ** 2)
    R(f)(sym(3))


# ---- closed forms ------------------------------------------------------------------------------

def test_cholesky_closed_form():
    """d/dt cholesky([[t, 0], [0, 1]]) = [[1/(2√t), 0], [0, 0]]."""
    for t in (4.0, 0.25):
        got = dvlad.derivative(lambda s: np.linalg.cholesky(s * np.array([[1.0, 0], [0, 0]])
                                                            + np.array([[0, 0], [0, 1.0]])))(t)
        np.testing.assert_allclose(got, [[1 / (2 * np.sqrt(t)), 0], [0, 0]], rtol=1e-15)


def test_cholesky_reads_one_triangle():
    """numpy reads the lower triangle (upper=True: the upper one): the other has no
    derivative, and the triangle read counts once, off the diagonal, for both mirrors."""
    a = spd(3)
    g = R(lambda a: np.sum(np.linalg.cholesky(a) * W33))(a)
    assert np.all(np.triu(g, 1) == 0)
    gu = R(lambda a: np.sum(np.linalg.cholesky(a, upper=True) * W33.T))(a)
    assert np.all(np.tril(gu, -1) == 0)
    np.testing.assert_allclose(gu, g.T, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigenvalue_gradient(uplo):
    """∂wᵢ = vᵢvᵢᵀ on the symmetric matrix, so on the triangle read: 2·(off-diagonal), diagonal."""
    a = sym(4, seed=6)
    w, v = np.linalg.eigh(a)
    for i in range(4):
        g = R(lambda a: np.linalg.eigvalsh(a, uplo)[i])(a)
        G = np.outer(v[:, i], v[:, i])
        tri = np.tril if uplo == "L" else np.triu
        want = 2 * tri(G, -1 if uplo == "L" else 1) + np.diag(np.diag(G))
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-14)


def test_norm_closed_forms():
    """∂‖A‖_* = UVᵀ, ∂‖A‖₂ = u₁v₁ᵀ, ∂‖A‖₋₂ = uₖvₖᵀ."""
    a = spread(4, 3, seed=5)
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    for mode in (R, dvlad.gradient_f):
        np.testing.assert_allclose(mode(lambda a: np.linalg.norm(a, "nuc"))(a), u @ vt,
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(mode(lambda a: np.linalg.norm(a, 2))(a),
                                   np.outer(u[:, 0], vt[0]), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(mode(lambda a: np.linalg.norm(a, -2))(a),
                                   np.outer(u[:, -1], vt[-1]), rtol=1e-12, atol=1e-14)
    assert dvlad.derivative(lambda t: np.linalg.norm(t * np.diag([3.0, 4.0]), 2))(1.0) == 4.0
    y = np.array([3.0, -4.0, 12.0])
    np.testing.assert_allclose(R(np.linalg.norm)(y), y / 13.0, rtol=1e-15)
    np.testing.assert_array_equal(R(lambda x: np.linalg.norm(x, 1))(y), np.sign(y))
    np.testing.assert_array_equal(R(lambda x: np.linalg.norm(x, np.inf))(y), [0, 0, 1])


def test_norm_zero_and_errors():
    x = np.array([[0.0, 2.0], [3.0, 0.0]])
    assert R(lambda x: np.linalg.norm(x, 0, axis=1).sum() + np.sum(x))(x).tolist() == [[1, 1],
                                                                                       [1, 1]]
    for kw, words in [(dict(ord="nuc", axis=0), "for vectors"),
                      (dict(ord=3, axis=(0, 1)), "for matrices"), (dict(axis=(0, 0)), "Duplicate"),
                      (dict(axis=(0, 1, 2)), "dimensions"), (dict(ord=2), "dimensions")]:
        with pytest.raises(ValueError, match=words):
            np.linalg.norm(x[None], **kw)
        with pytest.raises(ValueError, match=words):
            R(lambda a: np.sum(np.linalg.norm(a, **kw)))(x[None])


def test_matrix_power_closed_form():
    """d A³ [E] = E·A² + A·E·A + A²·E; A⁰ = I is a constant; A⁻¹ is inv."""
    a, e = general(3, 3, seed=8), general(3, 3, seed=9)
    _, d = dvlad.jvp(lambda a: np.linalg.matrix_power(a, 3), a, e)
    np.testing.assert_allclose(d, e @ a @ a + a @ e @ a + a @ a @ e, rtol=1e-13)
    assert np.all(R(lambda a: np.sum(np.linalg.matrix_power(a, 0) * a))(a) == np.eye(3))
    ai = np.linalg.inv(a)
    _, d = dvlad.jvp(lambda a: np.linalg.matrix_power(a, -1), a, e)
    np.testing.assert_allclose(d, -ai @ e @ ai, rtol=1e-12)
    for n in range(-3, 9):
        np.testing.assert_allclose(dvlad.jvp(lambda a: np.linalg.matrix_power(a, n), a, e)[0],
                                   np.linalg.matrix_power(a, n), rtol=1e-12)
    with pytest.raises(TypeError):
        R(lambda a: np.sum(np.linalg.matrix_power(a, 1.5)))(a)


def test_qr_structure():
    """dA = dQ·R + Q·dR, QᵀdQ antisymmetric, dR upper triangular."""
    for shape in ((5, 3), (3, 3), (3, 5)):
        a, e = general(*shape, seed=1), general(*shape, seed=2)
        (q, r), (dq, dr) = dvlad.jvp(np.linalg.qr, a, e)
        np.testing.assert_allclose(dq @ r + q @ dr, e, atol=1e-12)
        k = q.T @ dq
        np.testing.assert_allclose(k, -k.T, atol=1e-12)
        assert np.all(np.tril(dr[:, :min(shape)], -1) == 0)


def test_svd_reconstructs_the_direction():
    """dU·S·Vᵀ + U·dS·Vᵀ + U·S·dVᵀ = dA, and UᵀdU, dVᵀV antisymmetric."""
    for shape in ((5, 3), (3, 3), (3, 5)):
        a, e = spread(*shape, seed=3), general(*shape, seed=4)
        (u, s, vt), (du, ds, dvt) = dvlad.jvp(lambda a: np.linalg.svd(a, full_matrices=False), a, e)
        np.testing.assert_allclose(du * s @ vt + (u * ds) @ vt + (u * s) @ dvt, e, atol=1e-12)
        np.testing.assert_allclose(u.T @ du, -(u.T @ du).T, atol=1e-12)
        np.testing.assert_allclose(dvt @ vt.T, -(dvt @ vt.T).T, atol=1e-12)


def test_pinv_at_an_invertible_matrix_is_inv():
    a, e = spread(3, 3, seed=6), general(3, 3, seed=7)
    ai = np.linalg.inv(a)
    _, d = dvlad.jvp(np.linalg.pinv, a, e)
    np.testing.assert_allclose(d, -ai @ e @ ai, rtol=1e-10, atol=1e-12)


def test_lstsq_gradient_in_b_and_outputs():
    a, b = spread(5, 3), general(5, 2)
    x, res, rank, s = np.linalg.lstsq(a, b)
    w = general(3, 2, seed=5)
    gb = R(lambda b: np.sum(np.linalg.lstsq(a, b)[0] * w))(b)
    np.testing.assert_allclose(gb, np.linalg.pinv(a).T @ w, rtol=1e-12)
    got = dvlad.jvp(lambda p: np.linalg.lstsq(*p), (a, b), (a, b))[0]
    np.testing.assert_allclose(got[0], x, rtol=1e-13)
    np.testing.assert_allclose(got[1], res, rtol=1e-10)
    assert got[2] == rank and np.shape(got[1]) == np.shape(res)
    np.testing.assert_allclose(got[3], s, rtol=1e-13)


def test_lstsq_rank_deficient_is_linear_in_b():
    """A rank-deficient a: x = A⁺b (numpy's cutoff) still differentiates in b; in a it raises."""
    a, b = np.outer([1.0, 2.0, 3.0], [1.0, 1.0]), np.array([1.0, 0.0, 2.0])
    w = np.array([0.5, -1.0])
    for mode in (R, dvlad.gradient_f):
        np.testing.assert_allclose(mode(lambda b: np.linalg.lstsq(a, b)[0] @ w)(b),
                                   np.linalg.pinv(a).T @ w, rtol=1e-12)
        with pytest.raises(dvlad.NotDifferentiableError, match="rank-deficient"):
            mode(lambda p: np.linalg.lstsq(p[0], p[1])[0] @ w)((a, b))


def test_expm_closed_form():
    """At A = diag(λ): L(A, E)ᵢⱼ = Eᵢⱼ (e^λᵢ − e^λⱼ)/(λᵢ − λⱼ) (e^λᵢ on the diagonal)."""
    lam = np.array([0.3, -0.5, 1.2])
    e = general(3, 3, seed=3)
    _, d = dvlad.jvp(D.expm, np.diag(lam), e)
    dd = (np.exp(lam)[:, None] - np.exp(lam)[None]) / (lam[:, None] - lam[None] + np.eye(3))
    dd[np.diag_indices(3)] = np.exp(lam)
    np.testing.assert_allclose(d, e * dd, rtol=1e-12)
    g = R(lambda a: np.sum(D.expm(a) * W33))(np.diag(lam))        # L(Aᵀ, W)
    np.testing.assert_allclose(g, W33 * dd.T, rtol=1e-12)


def test_without_scipy(monkeypatch):
    """scipy is optional: expm by numpy's Padé, triangular solves by numpy's solve."""
    import scipy.linalg as sl
    a = 0.7 * general(3, 3)
    want_e, want_x = sl.expm(a), sl.solve_triangular(spd(3), general(3, 2), lower=True)
    np.testing.assert_allclose(pade_expm(a), want_e, rtol=1e-13)
    np.testing.assert_allclose(pade_expm(np.stack([a, 3 * a])), sl.expm(np.stack([a, 3 * a])),
                               rtol=1e-12)
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)
    np.testing.assert_allclose(D.expm(a), want_e, rtol=1e-13)
    np.testing.assert_allclose(D.solve_triangular(spd(3), general(3, 2), lower=True), want_x,
                               rtol=1e-13)
    dvlad.check_grads(D.expm, a, order=2)
    dvlad.check_grads(lambda p: D.cho_solve(D.cho_factor(p[0]), p[1]), (spd(3), general(3, 2)),
                      order=2)


def test_scipy_values():
    import scipy.linalg as sl
    a, b = spd(4, seed=2), general(4, 2)
    for lower in (False, True):
        c, low = D.cho_factor(a, lower=lower)
        wc, wl = sl.cho_factor(a, lower=lower)
        assert low == wl
        np.testing.assert_allclose(c, wc, rtol=1e-14)
        np.testing.assert_allclose(D.cho_solve((c, low), b), sl.cho_solve((wc, wl), b),
                                   rtol=1e-13)
        for trans in (0, 1, "T"):
            for unit in (False, True):
                np.testing.assert_allclose(
                    D.solve_triangular(a, b, trans, lower, unit),
                    sl.solve_triangular(a, b, trans, lower, unit), rtol=1e-12)
    np.testing.assert_allclose(D.expm(0.5 * a), sl.expm(0.5 * a), rtol=1e-14)


# ---- one GP marginal likelihood, every operator --------------------------------------------------

POINTS = np.linspace(0.0, 2.0, 5)
Y = np.sin(3 * POINTS) + 0.1 * np.cos(7 * POINTS)


def _kernel(theta):
    d2 = (POINTS[:, None] - POINTS[None]) ** 2
    return np.exp(theta[0]) * np.exp(-0.5 * d2 / np.exp(2 * theta[1])) \
        + np.exp(theta[2]) * np.eye(len(POINTS))


def gp_scipy(theta):
    """½ yᵀK⁻¹y + log det L through cho_factor / cho_solve."""
    c, lower = D.cho_factor(_kernel(theta), lower=True)
    return 0.5 * Y @ D.cho_solve((c, lower), Y) + np.sum(np.log(np.diagonal(c)))


def gp_numpy(theta):
    """The same through np.linalg.cholesky, solve and the log of L's diagonal."""
    l = np.linalg.cholesky(_kernel(theta))
    z = np.linalg.solve(l, Y)
    return 0.5 * np.sum(z * z) + np.sum(np.log(np.diag(l)))


def test_gp_every_operator():
    theta = np.array([0.2, -0.4, -1.5])
    k = _kernel(theta)
    want = 0.5 * Y @ np.linalg.solve(k, Y) + 0.5 * np.linalg.slogdet(k)[1]
    assert np.isclose(gp_scipy(theta), want) and np.isclose(gp_numpy(theta), want)
    h = 1e-6
    eye = np.eye(3)
    g = R(gp_numpy)(theta)
    fd = np.array([(gp_numpy(theta + h * e) - gp_numpy(theta - h * e)) / (2 * h) for e in eye])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    H = dvlad.hessian(gp_numpy)(theta)
    fdh = np.array([(R(gp_numpy)(theta + h * e) - R(gp_numpy)(theta - h * e)) / (2 * h)
                    for e in eye])
    np.testing.assert_allclose(H, fdh, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)
    for f in (gp_scipy, gp_numpy):
        np.testing.assert_allclose(R(f)(theta), g, rtol=1e-12)
        np.testing.assert_allclose(dvlad.jacobian_f(f)(theta), g, rtol=1e-12)
        np.testing.assert_allclose(dvlad.jacobian_f(R(f))(theta), H, rtol=1e-10, atol=1e-12)
        v = np.array([0.3, -1.0, 0.5])
        for mode in ("fr", "rf", "rr", "ff"):
            np.testing.assert_allclose(dvlad.hvp(f, theta, v, mode), H @ v, rtol=1e-10,
                                       atol=1e-12)
    dvlad.check_grads(gp_scipy, theta, order=2)


# ---- what raises ---------------------------------------------------------------------------------

@pytest.mark.parametrize("f, x, words", [
    (lambda a: np.linalg.qr(a, mode="raw")[0], general(3, 2), "mode='raw'"),
    (np.linalg.pinv, np.outer([1.0, 2.0, 3.0], [1.0, 1.0]), "rank-deficient"),
    (lambda a: np.linalg.lstsq(a, np.ones(3))[0], np.outer([1.0, 2.0, 3.0], [1.0, 1.0]),
     "rank-deficient"),
    (lambda a: np.linalg.cholesky(a), general(2, 3), "square"),
    (lambda a: np.linalg.multi_dot([a, a], out=np.empty((2, 2))), general(2, 2), "out="),
])
def test_what_raises(f, x, words):
    for mode in (R, dvlad.gradient_f):
        with pytest.raises(dvlad.NotDifferentiableError, match=words):
            mode(lambda a: np.sum(f(a)))(x)



def test_taylor_towers_and_third_order():
    """Taylor towers derive these primitives from their partials; the partials nest to order 3."""
    a, e = sym(3, seed=8) + 4 * np.eye(3), spd(3, seed=9)

    def f(t):
        m = a + t * e
        return (np.sum(np.linalg.cholesky(m) * W33) + np.sum(np.linalg.svd(m, compute_uv=False))
                + vec_sq(np.linalg.eigh(m)[1], W33) + np.sum(np.linalg.qr(m)[1] * W33))
    c = dvlad.taylor(f, 0.0, 3)
    d = dvlad.derivative
    np.testing.assert_allclose([c[1], 2 * c[2], 6 * c[3]],
                               [d(f)(0.0), d(d(f))(0.0), d(d(d(f)))(0.0)], rtol=1e-9)
    for name in ("cholesky", "qr_tall", "eigh_vectors", "svd_wide", "pinv_tall", "expm"):
        f, x = CASES[name]
        dvlad.check_grads(f, x, order=3)


def test_repeated_calls_do_not_share_arrays():
    """One numpy factorization serves the output primitives; each result is its own array."""
    a = spread(4, 3)
    u1 = dvlad.jvp(lambda a: np.linalg.svd(a, full_matrices=False)[0], a, a)[0]
    u1 *= 0.0
    u2 = dvlad.jvp(lambda a: np.linalg.svd(a, full_matrices=False)[0], a, a)[0]
    np.testing.assert_array_equal(u2, np.linalg.svd(a, full_matrices=False)[0])


def test_solve_with_a_triangle_substitutes_and_differentiates_as_solve():
    """np.linalg.solve(L, y) with L triangular (a Cholesky factor, its transpose) is solved by
    substitution (O(n²), not an LU's O(n³)): its value is scipy's solve_triangular's, and its
    derivatives are solve's, in both modes to order 2, also with a matrix right-hand side."""
    scipy_linalg = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(7)
    n = 30
    a = rng.standard_normal((n, n))
    L = np.linalg.cholesky(a @ a.T + n * np.eye(n))
    y, Y = rng.standard_normal(n), rng.standard_normal((n, 2))
    for T, lower in ((L, True), (L.T, False)):
        for b in (y, Y):
            want = scipy_linalg.solve_triangular(T, b, lower=lower)
            got = dvlad.arrays.solve(T, b)
            if REFERENCE:       # (the reference path solves by LU)
                np.testing.assert_allclose(got, want, rtol=1e-12)
            else:
                np.testing.assert_array_equal(got, want)
        g = dvlad.gradient_r(lambda t: np.sum(np.linalg.solve(t, y) ** 2))(T)
        x = np.linalg.solve(T, y)       # ∂/∂T Σx² = −2 T⁻ᵀ x xᵀ
        np.testing.assert_allclose(g, -2.0 * np.outer(np.linalg.solve(T.T, x), x), rtol=1e-12)
    dvlad.check_grads(lambda t: np.linalg.solve(t, Y), L, order=2, modes=("fwd", "rev"))
    dvlad.check_grads(lambda b: np.linalg.solve(L.T, b), y, order=2, modes=("fwd", "rev"))
    almost = L.copy()
    almost[0, 5] = 1.0          # zero corners, one entry above the diagonal: not triangular
    for m in (almost, almost.T):
        np.testing.assert_allclose(dvlad.arrays.solve(m, y), np.linalg.solve(m, y), rtol=1e-12)
    singular = L.copy()
    singular[4, 4] = 0.0
    with pytest.raises(np.linalg.LinAlgError):
        dvlad.arrays.solve(singular, y)


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-13), (np.float32, 1e-5)])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("k", [1, 4, 9])
@pytest.mark.parametrize("orders", ["CC", "CF", "FC", "FF"])
def test_triangular_solves_by_trsm_equal_scipys(dtype, rtol, lower, k, orders):
    """The triangular solve behind cholesky's derivatives calls BLAS's trsm where each operand
    lies, row- or column-major (factorizations._trsm; cholesky's rules solve with Lᵀ, a view):
    the same solution as scipy's solve_triangular, reading one triangle (the other holds noise
    here), in the arrays' type; a zero on the diagonal raises as scipy."""
    sl = pytest.importorskip("scipy.linalg")
    from dvlad.arrays.blas_paths import trsm as _trsm
    from dvlad.arrays.factorizations import _tri_value
    rng = np.random.default_rng(k)
    a = np.asarray((rng.standard_normal((7, 7)) + 4 * np.eye(7)).astype(dtype), order=orders[0])
    b = np.asarray(rng.standard_normal((7, k)).astype(dtype), order=orders[1])
    got = _tri_value(a, b, lower)
    assert (_trsm(a, b, lower) is None) == REFERENCE      # the fast path is the one tested
    assert got.dtype == dtype and got.shape == (7, k)
    np.testing.assert_allclose(got, sl.solve_triangular(a, b, lower=lower), rtol=rtol,
                               atol=rtol)
    singular = a.copy()
    singular[3, 3] = 0
    with pytest.raises(np.linalg.LinAlgError):
        _tri_value(singular, b, lower)


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 2e-4)])
@pytest.mark.parametrize("n", [64, 131])
def test_cholesky_reverse_rule_by_sygst_equals_two_triangular_solves(dtype, rtol, n):
    """cholesky's reverse rule forms Ā = L⁻ᵀ·sym(Φ(Lᵀ·L̄))·L⁻¹ by BLAS's trmm and LAPACK's
    sygst at n ≥ 64 for plain arrays (factorizations._congruence): the matrix of the formula,
    in the arrays' type; smaller, mixed types, dvlad numbers and the reference path take the
    triangular solves."""
    pytest.importorskip("scipy.linalg")
    from dvlad.arrays.blas_paths import congruence as _congruence
    from dvlad.arrays.factorizations import _phi
    L = np.linalg.cholesky(spd(n, seed=n)).astype(dtype)
    S = general(n, n, seed=n + 1).astype(dtype)
    got = _congruence(L, S, _phi(n, dtype))
    assert (got is None) == REFERENCE
    assert _congruence(L[:63, :63], S[:63, :63], _phi(63, dtype)) is None
    assert _congruence(L, S.astype(np.float32 if dtype == np.float64 else np.float64),
                       _phi(n, dtype)) is None
    if got is None:
        return
    L64, Li = L.astype(np.float64), np.linalg.inv(L.astype(np.float64))
    M = np.tril(L64.T @ S) - 0.5 * np.diag(np.diag(L64.T @ S))
    want = Li.T @ (0.5 * (M + M.T)) @ Li
    assert got.dtype == dtype and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())


def test_cholesky_gradient_at_n_96_agrees_with_forward_mode_along_directions():
    """⟨∇f(A), E⟩ by reverse mode (sygst's path at this size) against forward mode's
    derivative along E, for f(A) = Σ W ⊙ chol(A) and symmetric E."""
    n = 96
    A, W = spd(n, seed=5), general(n, n, seed=6)
    f = lambda a: np.sum(W * np.linalg.cholesky(a))
    g = R(f)(A)
    for seed in (7, 8):
        E = general(n, n, seed=seed)
        E = E + E.T
        along = dvlad.derivative(lambda t: f(A + t * E))(0.0)
        np.testing.assert_allclose(np.vdot(g, E), along, rtol=1e-10)


def test_gaussian_process_likelihood_by_cholesky_at_n_70_in_every_mode_to_order_2():
    """At n ≥ 64 cholesky's first-order reverse rule takes LAPACK's path and every nested one
    the triangular solves: a GP's negative log marginal likelihood in its three kernel
    parameters, check_grads to order 2 in both modes (reverse over reverse, forward over
    reverse, ...), and its Hessian symmetric and equal by forward and reverse outer modes."""
    n = 70
    x = _rng(11).uniform(0.0, 5.0, (n, 1))
    D2, y = (x - x.T) ** 2, _rng(12).standard_normal(n)
    nlml = gp_nlml_by_cholesky(D2, y)
    theta = np.array([0.2, 0.1, -1.5])
    dvlad.check_grads(nlml, theta, order=2, modes=("fwd", "rev"))
    H = dvlad.hessian(nlml)(theta)
    np.testing.assert_allclose(H, H.T, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dvlad.jacobian_f(R(nlml))(theta), H, rtol=1e-9, atol=1e-9)
