"""LU factors kept between solves with one matrix (dvlad/arrays/solving.py): slogdet(K) then
solve(K, y), forward tangents solve(K, t), the reverse sweep's solve(Kᵀ, x̄) and inv(K).  The
values are numpy's to rounding; a matrix written into after it was factored is factored again,
never solved with stale factors; singular and non-finite matrices behave as numpy's."""
import gc

import numpy as np
import pytest

import dvlad
from dvlad.arrays import solving

pytest.importorskip("scipy.linalg")
N = 90                                   # above solving._FACTORABLE


def spd(n=N, seed=0):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def general(n=N, seed=1):
    return np.random.default_rng(seed).standard_normal((n, n)) + 3 * np.eye(n)


def close(got, want, rtol=1e-11):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.max(np.abs(want)))


@pytest.mark.parametrize("make", [spd, general])
def test_values_are_numpys(make):
    k, y = make(), np.linspace(-1, 1, N)
    sign, logabs = np.linalg.slogdet(k)
    s = dvlad.arrays.slogdet(k)
    assert s.sign == sign and type(s.sign) is type(sign)
    close(s.logabsdet, logabs, 1e-13)
    for a in (k, k.T, k[:, :], np.asarray(k.T)):
        close(dvlad.arrays.solve(a, y), np.linalg.solve(a, y))
        close(dvlad.arrays.solve(a, np.eye(N)[:, :3]), np.linalg.solve(a, np.eye(N)[:, :3]))
    for a in (k, k.T):                  # (getri on the kept factors, in numpy's C order)
        inv = dvlad.arrays.inv(a)
        close(inv, np.linalg.inv(a))
        assert inv.flags.c_contiguous and inv.dtype == np.float64


def test_a_matrix_written_into_is_factored_again():
    k, y = general(), np.ones(N)
    first = dvlad.arrays.solve(k, y)
    close(first, np.linalg.solve(k, y))
    k[0, 0] += 5.0                                   # the same array, new values
    close(dvlad.arrays.solve(k, y), np.linalg.solve(k, y))
    close(dvlad.arrays.solve(k.T, y), np.linalg.solve(k.T, y))
    close(dvlad.arrays.inv(k), np.linalg.inv(k))
    assert np.max(np.abs(dvlad.arrays.solve(k, y) - first)) > 1e-6


def test_a_captured_matrix_written_into_between_gradients():
    m, v = general(), np.linspace(0.5, 1.5, N)
    g = dvlad.gradient_r(lambda x: np.sum(np.linalg.solve(m, x) ** 2))
    for _ in range(3):
        want = 2 * np.linalg.solve(m.T, np.linalg.solve(m, v))
        close(g(v), want)
        m[3, :] *= 1.5                               # in place: the next gradient sees it


def test_singular_and_nonfinite_as_numpy():
    k = spd()
    k[:, 0] = 0.0                                    # a zero column: exactly singular
    s = dvlad.arrays.slogdet(k)
    assert (s.sign, s.logabsdet) == tuple(np.linalg.slogdet(k)) == (0.0, -np.inf)
    with pytest.raises(np.linalg.LinAlgError):
        dvlad.arrays.solve(np.zeros((N, N)), np.ones(N))
    with pytest.raises(np.linalg.LinAlgError):
        dvlad.arrays.inv(np.zeros((N, N)))
    bad = spd()
    bad[2, 2] = np.nan
    with np.errstate(all="ignore"):
        got, want = dvlad.arrays.solve(bad, np.ones(N)), np.linalg.solve(bad, np.ones(N))
    assert np.isnan(got).all() == np.isnan(want).all() and np.isnan(got).any()


def test_at_most_two_kept_and_dropped_with_their_array():
    mats = [general(seed=s) for s in range(4)]
    for m in mats:
        dvlad.arrays.solve(m, np.ones(N))
    assert len(solving._KEPT) <= 2
    del mats, m
    gc.collect()
    assert len(solving._KEPT) == 0


def nlml(theta, d2, y):
    k = np.exp(theta[0]) * np.exp(-0.5 * d2 / np.exp(2 * theta[1])) + np.exp(theta[2]) * np.eye(
        len(y))
    return 0.5 * (y @ np.linalg.solve(k, y)) + 0.5 * np.linalg.slogdet(k)[1]


def nlml_grad(theta, d2, y):
    """½ tr((K⁻¹ − ααᵀ) ∂K/∂θ), by hand."""
    e = np.exp(-0.5 * d2 / np.exp(2 * theta[1]))
    k = np.exp(theta[0]) * e + np.exp(theta[2]) * np.eye(len(y))
    ki = np.linalg.inv(k)
    alpha = ki @ y
    w = ki - np.outer(alpha, alpha)
    dks = (np.exp(theta[0]) * e, np.exp(theta[0]) * e * d2 / np.exp(2 * theta[1]),
           np.exp(theta[2]) * np.eye(len(y)))
    return np.array([0.5 * np.sum(w * dk) for dk in dks])


def test_gp_gradient_every_mode_and_nested():
    x = np.random.default_rng(3).standard_normal((N, 2))
    d2 = np.sum((x[:, None] - x[None]) ** 2, -1)
    y = np.sin(x[:, 0])
    theta = np.array([0.3, -0.2, -1.0])
    f = lambda t: nlml(t, d2, y)
    want = nlml_grad(theta, d2, y)
    close(dvlad.gradient_r(f)(theta), want, 1e-9)
    close(dvlad.gradient_f(f)(theta), want, 1e-9)
    h_fr = dvlad.jacobian_f(dvlad.gradient_r(f))(theta)
    h_rr = dvlad.jacobian_r(dvlad.gradient_r(f))(theta)
    close(h_fr, h_rr, 1e-8)
    close(h_fr, h_fr.T, 1e-8)
    fd = np.array([(nlml_grad(theta + 1e-5 * e, d2, y) - nlml_grad(theta - 1e-5 * e, d2, y)) / 2e-5
                   for e in np.eye(3)])
    close(h_fr, fd, 1e-5)


def test_compiled_gp_gradient_equals_eager_and_follows_a_written_matrix():
    x = np.random.default_rng(4).standard_normal((N, 2))
    d2 = np.sum((x[:, None] - x[None]) ** 2, -1)
    y = np.cos(x[:, 1])
    g = dvlad.gradient_r(lambda t: nlml(t, d2, y))
    c = dvlad.compile(g)
    for k in range(4):
        theta = np.array([0.3, -0.2, -1.0]) + 0.05 * k
        np.testing.assert_array_equal(c(theta), g(theta))
        close(c(theta), nlml_grad(theta, d2, y), 1e-9)
        d2 *= 1.01                                   # a captured array written into


def test_an_exactly_singular_transpose_raises_as_numpys():
    """K's pivoted LU may miss an exact zero that Kᵀ's own LU finds: near a zero pivot the
    kept factors do not serve Kᵀ (numpy's LinAlgError, not 1e16)."""
    k = np.tril(np.random.default_rng(1).normal(size=(70, 70)) + 3 * np.eye(70))
    k[10, 10] = 0.0
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(k.T)
    for f in (lambda a: np.linalg.slogdet(a)[1] + np.sum(np.linalg.inv(a.T)),
              lambda a: np.linalg.slogdet(a)[1] + np.sum(np.linalg.solve(a.T, np.ones(70)))):
        with pytest.raises(np.linalg.LinAlgError):
            dvlad.vjp(f, k)


def test_a_triangle_with_a_nan_solves_as_numpys_lu():
    a = np.random.default_rng(2).standard_normal((30, 30))
    t = np.linalg.cholesky(a @ a.T + 30 * np.eye(30))
    t[5, 2] = np.nan
    y = np.ones(30)
    for m in (t, t.T):
        assert np.array_equal(dvlad.arrays.solve(m, y), np.linalg.solve(m, y), equal_nan=True)
