"""scipy.linalg's LU, banded, QR, least-squares, Sylvester and matrix-function entries on dvlad
numbers (dvlad/arrays/scipy_solvers.py, matrix_functions.py): scipy's values, derivatives
checked at order 2 in both modes, exact gradients where a closed form is known."""
import warnings

import numpy as np
import pytest

import dvlad as ad

sl = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(7)
GEN = RNG.standard_normal((4, 4)) + 3.0 * np.eye(4)           # nonsingular, not symmetric
SPD = GEN @ GEN.T                                              # positive eigenvalues
TALL = RNG.standard_normal((5, 3))
B = RNG.standard_normal(4)
BB = RNG.standard_normal((4, 2))
AB = np.vstack([RNG.standard_normal(4), 4.0 + RNG.standard_normal(4), RNG.standard_normal(4),
                RNG.standard_normal(4)])                       # l = 2, u = 1


def quiet(f):
    def g(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return f(*args)
    return g


CASES = {
    "lu_factor": (lambda a: np.sum(np.sin(sl.lu_factor(a)[0])), GEN),
    "lu_factor_stack": (lambda a: np.sum(np.sin(sl.lu_factor(a)[0])), np.stack([GEN, SPD])),
    "lu_solve": (lambda p: np.sum(sl.lu_solve(sl.lu_factor(p[0]), p[1]) ** 2), (GEN, BB)),
    "lu_solve_trans": (lambda p: np.sum(sl.lu_solve(sl.lu_factor(p[0]), p[1], trans=1) ** 2),
                       (GEN, B)),
    "lu": (lambda a: np.sum(sl.lu(a)[1] ** 3) + np.sum(sl.lu(a)[2] ** 2), GEN),
    "lu_permute_l": (lambda a: np.sum(sl.lu(a, permute_l=True)[0] ** 3), GEN),
    "solve_banded": (lambda p: np.sum(np.sin(sl.solve_banded((2, 1), p[0], p[1]))), (AB, BB)),
    "solve_banded_vector": (lambda p: np.sum(sl.solve_banded((2, 1), p[0], p[1]) ** 2),
                            (AB, B)),
    "qr_economic": (lambda a: np.sum(sl.qr(a, mode="economic")[0] ** 3)
                    + np.sum(sl.qr(a, mode="economic")[1] ** 2), TALL),
    "qr_full_wide": (lambda a: np.sum(sl.qr(a)[0] ** 3) + np.sum(sl.qr(a)[1]), TALL.T),
    "qr_r": (lambda a: np.sum(sl.qr(a, mode="r")[0] ** 2), TALL),
    "qr_pivoting": (lambda a: np.sum(sl.qr(a, mode="economic", pivoting=True)[1] ** 3), TALL),
    "lstsq": (lambda a: np.sum(sl.lstsq(a, np.arange(5.0))[0] ** 2)
              + sl.lstsq(a, np.arange(5.0))[1], TALL),
    "solve_sylvester": (lambda p: np.sum(np.sin(sl.solve_sylvester(*p))),
                        (GEN, SPD[:3, :3] / 10.0, TALL[:4])),
    "sqrtm": (quiet(lambda a: np.sum(sl.sqrtm(a) ** 2)), SPD),
    "sqrtm_general": (quiet(lambda a: np.sum(sl.sqrtm(a))), GEN),
    "logm": (quiet(lambda a: np.sum(sl.logm(a) ** 2)), SPD),
    "sinm": (lambda a: np.sum(sl.sinm(a)), GEN / 4.0),
    "cosm": (lambda a: np.sum(sl.cosm(a)), GEN / 4.0),
    "tanm": (lambda a: np.sum(sl.tanm(a)), GEN / 8.0),
    "sinhm": (lambda a: np.sum(sl.sinhm(a)), GEN / 4.0),
    "coshm": (lambda a: np.sum(sl.coshm(a)), GEN / 4.0),
    "tanhm": (lambda a: np.sum(sl.tanhm(a)), GEN / 4.0),
    "fractional_matrix_power": (lambda a: np.sum(sl.fractional_matrix_power(a, 0.3)), SPD),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_to_order_two_in_both_modes(name):
    f, x = CASES[name]
    ad.check_grads(f, x, order=2)


@pytest.mark.parametrize("name", ["lu_factor", "solve_banded", "sqrtm", "logm", "sinm",
                                  "solve_sylvester", "qr_pivoting", "lstsq"])
def test_values_are_scipys(name):
    f, x = CASES[name]
    want = f(x)                                     # plain arrays: scipy's own code
    got = ad.jvp(f, x, x)[0]                        # a tracked x: dvlad's version
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_exact_gradients():
    # log|det A| from the LU's diagonal: A⁻ᵀ
    g = ad.gradient_r(lambda a: np.sum(np.log(np.abs(np.diag(sl.lu_factor(a)[0])))))(GEN)
    np.testing.assert_allclose(g, np.linalg.inv(GEN).T, rtol=1e-12, atol=1e-14)
    # Σ A⁻¹b in b: A⁻ᵀ·1; with trans=1: A⁻¹·1
    factors = sl.lu_factor(GEN)
    np.testing.assert_allclose(ad.gradient_r(lambda b: np.sum(sl.lu_solve(factors, b)))(B),
                               np.linalg.solve(GEN.T, np.ones(4)), rtol=1e-12)
    np.testing.assert_allclose(
        ad.gradient_r(lambda b: np.sum(sl.lu_solve(factors, b, trans=1)))(B),
        np.linalg.solve(GEN, np.ones(4)), rtol=1e-12)
    # tr sqrtm(A): ½ A^(−½)ᵀ; tr logm(A): A⁻ᵀ
    root = sl.sqrtm(SPD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        np.testing.assert_allclose(ad.gradient_r(lambda a: np.trace(sl.sqrtm(a)))(SPD),
                                   0.5 * np.linalg.inv(root).T, rtol=1e-10)
        np.testing.assert_allclose(ad.gradient_r(lambda a: np.trace(sl.logm(a)))(SPD),
                                   np.linalg.inv(SPD).T, rtol=1e-10)


def test_banded_solve_matches_the_dense_solve_on_the_band():
    l, u, n = 2, 1, 4

    def dense(ab):
        return np.array([[ab[u + i - j, j] if -l <= j - i <= u else 0.0 for j in range(n)]
                         for i in range(n)])
    g = ad.gradient_r(lambda ab: np.sum(np.sin(sl.solve_banded((l, u), ab, B))))(AB)
    gd = ad.gradient_r(lambda a: np.sum(np.sin(np.linalg.solve(a, B))))(dense(AB))
    want = np.zeros_like(AB)
    for i in range(n):
        for j in range(n):
            if -l <= j - i <= u:
                want[u + i - j, j] = gd[i, j]
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-15)   # the ignored corners: 0


def test_lu_outputs_are_scipys():
    for kw in ({}, {"permute_l": True}, {"p_indices": True}):
        got = ad.jvp(lambda a: sl.lu(a, **kw), GEN, GEN)[0]
        for g, w in zip(got, sl.lu(GEN, **kw)):
            np.testing.assert_allclose(ad.primal(g), w, rtol=1e-13)
    lu_, piv = ad.jvp(lambda a: sl.lu_factor(a), GEN, GEN)[0]
    np.testing.assert_array_equal(piv, sl.lu_factor(GEN)[1])


def test_what_is_not_a_function_of_the_matrix_raises():
    with pytest.raises(ad.NotDifferentiableError, match="economic"):
        ad.gradient_r(lambda a: np.sum(sl.qr(a)[0]))(TALL)
    with pytest.raises(ad.NotDifferentiableError, match="complex"):
        ad.gradient_r(lambda a: np.sum(sl.logm(a)))(np.diag([-1.0, 2.0]))
    with pytest.raises(ad.NotDifferentiableError, match="power t"):
        ad.derivative(lambda t: np.sum(sl.fractional_matrix_power(SPD, t)))(0.5)
    with pytest.raises(ValueError, match="infs or NaNs"):
        ad.gradient_r(lambda a: np.sum(sl.lu_factor(a)[0]))(np.full((2, 2), np.nan))
    with pytest.raises(ad.NotDifferentiableError, match="scipy.linalg.schur"):
        ad.gradient_r(lambda a: np.sum(sl.schur(a)[0]))(GEN)


@pytest.mark.parametrize("shape", [(2, 3, 3), (2, 4, 3), (4, 3)])
@pytest.mark.parametrize("kw", [{"mode": "r"}, {"mode": "r", "pivoting": True},
                                {"mode": "economic", "pivoting": True}])
def test_qr_of_stacks_with_pivoting_or_r_only_as_scipy(shape, kw):
    x = np.random.default_rng(1).standard_normal(shape)
    got, want = ad.jvp(lambda a: sl.qr(a, **kw), x, x)[0], sl.qr(x, **kw)
    want = (want,) if isinstance(want, np.ndarray) and len(shape) == 2 else want
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    ad.check_grads(lambda a: np.sum(np.asarray(sl.qr(a, **kw)[0 if kw["mode"] == "r" else 1])
                                    ** 3), x, order=2)
