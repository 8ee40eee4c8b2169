"""numpy.linalg.eig and eigvals of nonsymmetric matrices with real, distinct eigenvalues
(dvlad/arrays/eigen.py): numpy's values and result type, ``check_grads`` to order 2 in both modes
(stacks too), mpmath at 30 digits as an independent oracle, closed forms (Σw = trace,
Πw = det), float32, and the named error for complex eigenvalues.

The eigenvalue order and eigenvector signs are LAPACK's, locally constant at these matrices, so
the eigenvectors themselves are checked (and v ∘ v, which does not see the signs).
"""
import mpmath
import numpy as np
import pytest

import dvlad
from dvlad.arrays import eigen as E

R, F = dvlad.gradient_r, dvlad.gradient_f


def nonsym(lam, batch=(), seed=0):
    """S·diag(λ)·S⁻¹ with a well-conditioned S (I + a small random part): real eigenvalues λ."""
    lam = np.asarray(lam, float)
    n = lam.shape[-1]
    s = np.eye(n) + 0.3 * np.random.default_rng(seed).standard_normal(batch + (n, n))
    return (s * lam[..., None, :]) @ np.linalg.inv(s)


A3 = nonsym([-1.0, 0.5, 2.0])
A4 = nonsym([-2.0, -0.7, 0.9, 3.0], seed=1)
STACK = nonsym([[-1.0, 0.5, 2.0], [0.3, 1.4, 4.0]], (2,), seed=2)
ROTATION = np.array([[0.0, -1.0], [1.0, 0.0]])
W3 = np.random.default_rng(7).standard_normal((3, 3))
C3 = np.random.default_rng(8).standard_normal(3)


def _vectors_times(w):
    return lambda a: np.linalg.eig(a)[1] * w


CASES = {
    "values": (lambda a: np.linalg.eig(a)[0], A3),
    "vectors": (lambda a: np.linalg.eig(a).eigenvectors, A3),
    "vectors_squared": (lambda a: np.linalg.eig(a)[1] ** 2, A4),
    "both_scalar": (lambda a: np.sum(np.linalg.eig(a)[0] * C3)
                    + np.sum(np.linalg.eig(a)[1] * W3), A3),
    "both_4x4": (lambda a: (lambda w, v: (w, v @ np.diag(w)))(*np.linalg.eig(a)), A4),
    "reconstruct": (lambda a: (lambda w, v: (v * w[..., None, :]) @ np.linalg.inv(v))(
        *np.linalg.eig(a)), A3),
    "stack": (lambda a: np.linalg.eig(a), STACK),
    "eigvals": (np.linalg.eigvals, A4),
    "eigvals_stack": (np.linalg.eigvals, STACK),
    "eigvals_2x2": (np.linalg.eigvals, np.array([[1.0, 2.0], [0.5, -1.0]])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_grads(name):
    f, x = CASES[name]
    dvlad.check_grads(f, x, order=2, modes=("fwd", "rev"))


def test_third_order_and_taylor_towers():
    a, e = A3, nonsym([0.2, -0.4, 1.0], seed=5)

    def f(t):
        w, v = np.linalg.eig(a + t * e)
        return np.sum(w * C3) + np.sum(v * W3)
    c, d = dvlad.taylor(f, 0.0, 3), dvlad.derivative
    np.testing.assert_allclose([c[1], 2 * c[2], 6 * c[3]],
                               [d(f)(0.0), d(d(f))(0.0), d(d(d(f)))(0.0)], rtol=1e-9)
    dvlad.check_grads(CASES["both_scalar"][0], A3, order=3)


# ---- values and types are numpy's -------------------------------------------------------------

def _values_under_ad(f, x):
    """f's value computed on tape cells (a reverse pass), and on bundles."""
    seen = []
    R(lambda a: (seen.append(f(a)), 0.0 * np.sum(a))[1])(x)
    return seen[0], dvlad.jvp(f, x, np.ones_like(x))[0]


@pytest.mark.parametrize("fn, x", [(np.linalg.eig, A3), (np.linalg.eig, STACK),
                                   (np.linalg.eigvals, A4), (np.linalg.eigvals, STACK)])
def test_values_and_types_are_numpys(fn, x):
    want = fn(x)
    for got in _values_under_ad(fn, x):
        assert type(got) is type(want) or not isinstance(want, tuple)
        for g, w in (zip(got, want) if isinstance(want, tuple) else [(got, want)]):
            np.testing.assert_array_equal(dvlad.primal(g), w)


def test_result_fields():
    def f(a):
        res = np.linalg.eig(a)
        w, v = res
        assert type(res).__name__ == "EigResult"
        assert res.eigenvalues is w and res.eigenvectors is v
        return np.sum(w) + np.sum(v ** 2)
    R(f)(A3)
    for fn in (dvlad.arrays.eigvals, lambda a: dvlad.arrays.eig(a)[0]):     # exported too
        np.testing.assert_allclose(R(lambda a: np.sum(fn(a)))(A3), np.eye(3), atol=1e-12)


def test_a_plain_array_goes_to_numpy():
    """Not tracked: numpy's own result, complex eigenvalues included."""
    for a in (A3, ROTATION):
        for fn, mine in ((np.linalg.eig, E.eig), (np.linalg.eigvals, E.eigvals)):
            want, got = fn(a), mine(a)
            for g, w in (zip(got, want) if isinstance(want, tuple) else [(got, want)]):
                np.testing.assert_array_equal(g, w)
    assert np.iscomplexobj(E.eigvals(ROTATION))


# ---- independent oracles ----------------------------------------------------------------------

def _mp_eig(a, e, t):
    """mpmath's eigenpairs of a + t·e (t an mpf), in numpy's order at a, columns of unit norm
    with numpy's signs."""
    w, vr = mpmath.eig(mpmath.matrix(a.tolist()) + t * mpmath.matrix(e.tolist()))
    w0, v0 = np.linalg.eig(a)
    out_w, out_v = [], []
    for i in range(len(w0)):
        k = min(range(len(w)), key=lambda j: abs(w[j] - w0[i]))
        col = [mpmath.re(vr[r, k]) for r in range(len(w0))]
        nrm = mpmath.sqrt(sum(c * c for c in col))
        sgn = 1 if sum(c * x for c, x in zip(col, v0[:, i])) > 0 else -1
        out_w.append(mpmath.re(w[k]))
        out_v.append([sgn * c / nrm for c in col])
    return out_w, out_v


def test_directional_derivative_against_mpmath():
    """dw and dV along e against mpmath's derivative of its own eig, at 30 digits."""
    a, e = A4, np.random.default_rng(3).standard_normal((4, 4))
    with mpmath.workdps(30):
        dw = [mpmath.diff(lambda t: _mp_eig(a, e, t)[0][i], 0) for i in range(4)]
        dv = [[mpmath.diff(lambda t: _mp_eig(a, e, t)[1][j][i], 0) for j in range(4)]
              for i in range(4)]                                   # dv[i][j] = dV_ij
    for mode in (dvlad.directional_derivative, lambda f, x, v: dvlad.jvp(f, x, v)[1]):
        np.testing.assert_allclose(mode(np.linalg.eigvals, a, e), np.array(dw, float),
                                   rtol=1e-12)
        got = mode(np.linalg.eig, a, e)
        np.testing.assert_allclose(got[0], np.array(dw, float), rtol=1e-12)
        np.testing.assert_allclose(got[1], np.array(dv, float), rtol=1e-10, atol=1e-12)
    # reverse mode: ⟨V̄, dV⟩ for a fixed V̄, the dot-product test against the oracle
    vbar = np.random.default_rng(4).standard_normal((4, 4))
    g = R(lambda a: np.sum(np.linalg.eig(a)[1] * vbar))(a)
    np.testing.assert_allclose(np.sum(g * e), np.sum(vbar * np.array(dv, float)), rtol=1e-10)


def test_eigvals_maps_follow_its_own_order():
    """eigvals' map pairs each eigenvalue with its eigenvector by value, should eigvals order
    them otherwise than eig (LAPACK has not been seen to)."""
    t = np.random.default_rng(5).standard_normal((2, 3, 3))
    w = np.linalg.eigvals(STACK)
    (same,) = E._eigvals_partials(w, STACK)
    (swapped,) = E._eigvals_partials(w[..., ::-1], STACK)
    np.testing.assert_allclose(swapped.forward(t), same.forward(t)[..., ::-1], rtol=1e-13)
    np.testing.assert_allclose(swapped.backward(w), same.backward(w[..., ::-1]), rtol=1e-13)


@pytest.mark.parametrize("grad", [R, F])
def test_closed_forms(grad):
    """Σw = trace: ∂ = I.  Πw = det: ∂ = det(A)·A⁻ᵀ.  A triangular matrix's wᵢ = aᵢᵢ."""
    for a in (A3, A4):
        n = a.shape[0]
        np.testing.assert_allclose(grad(lambda a: np.sum(np.linalg.eigvals(a)))(a), np.eye(n),
                                   atol=1e-12)
        np.testing.assert_allclose(grad(lambda a: np.prod(np.linalg.eig(a)[0]))(a),
                                   np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-10, atol=1e-12)
    t = np.triu(np.arange(1.0, 10.0).reshape(3, 3))               # eigenvalues 1, 5, 9
    g = grad(lambda a: np.linalg.eigvals(a) @ np.array([1.0, 10.0, 100.0]))(t)
    np.testing.assert_allclose(np.diag(g), [1.0, 10.0, 100.0], rtol=1e-12)


# ---- float32 --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["vectors", "both_4x4", "stack", "eigvals"])
def test_float32_stays_float32(name):
    f, x = CASES[name]
    ws = [np.random.default_rng(11 + k).standard_normal(np.shape(o))
          for k, o in enumerate(f(x) if isinstance(f(x), tuple) else [f(x)])]

    def g(a):
        out = f(a)
        return sum(np.sum(o * w.astype(np.float32))
                   for o, w in zip(out if isinstance(out, tuple) else [out], ws))
    x32 = x.astype(np.float32)
    g64, g32 = R(g)(x), R(g)(x32)
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, g64, rtol=0, atol=2e-3 * np.abs(g64).max() + 1e-5)
    t32 = dvlad.jvp(f, x32, x32)[1]
    for t in (t32 if isinstance(t32, tuple) else [t32]):
        assert np.asarray(t).dtype == np.float32


# ---- what raises --------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [lambda a: np.linalg.eig(a)[0], lambda a: np.linalg.eig(a)[1],
                                np.linalg.eigvals])
@pytest.mark.parametrize("x", [ROTATION, ROTATION + 1e-3 * np.arange(4.0).reshape(2, 2),
                               np.stack([np.diag([1.0, 2.0]), [[1.0, -2.0], [2.0, 1.0]]])])
def test_complex_eigenvalues_raise(fn, x):
    """numpy's result is complex: a named error, never a real part alone."""
    for mode in (R, F):
        with pytest.raises(dvlad.NotDifferentiableError, match="complex eigenvalues") as info:
            mode(lambda a: np.sum(fn(a)))(x)
        assert "real" in str(info.value) and "eigh" in str(info.value)
    with pytest.raises(dvlad.NotDifferentiableError, match="complex"):
        dvlad.jvp(fn, x, np.ones_like(x))


def test_a_non_square_matrix_raises():
    with pytest.raises(dvlad.NotDifferentiableError, match="square"):
        R(lambda a: np.sum(np.linalg.eigvals(a)))(np.ones((2, 3)))
