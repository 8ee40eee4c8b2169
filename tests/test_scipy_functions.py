"""scipy's plain-Python functions on dvlad numbers (issue #17): scipy.special.logsumexp,
softmax, log_softmax, and scipy.stats densities and distribution functions, called as users
call them."""
import subprocess
import sys

import numpy as np
import pytest

import dvlad as ad

sp = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")

X = np.array([0.3, -0.7, 1.1])


def softmax_np(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_logsumexp_gradient_is_the_softmax_and_its_hessian_the_softmax_jacobian():
    s = softmax_np(X)
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_allclose(grad(sp.logsumexp)(X), s, rtol=1e-15)
    np.testing.assert_allclose(ad.hessian(sp.logsumexp)(X), np.diag(s) - np.outer(s, s),
                               rtol=1e-14, atol=1e-16)
    # a huge shift stays finite (the maximum is taken out, as scipy does)
    np.testing.assert_allclose(ad.gradient_r(sp.logsumexp)(X + 1000.0), s, rtol=1e-12)
    assert sp.logsumexp(X) == pytest.approx(np.log(np.sum(np.exp(X))), rel=1e-15)


def test_logsumexp_keywords():
    M = np.outer(X, X) + np.eye(3)
    w = np.array([0.5, 2.0, 1.0])

    def f(m):
        return np.sum(sp.logsumexp(m, axis=1, b=w) * np.arange(1.0, 4.0))
    got = ad.gradient_r(f)(M)
    e = w * np.exp(M)
    np.testing.assert_allclose(got, np.arange(1.0, 4.0)[:, None] * e / e.sum(axis=1, keepdims=True),
                               rtol=1e-14)
    ad.check_grads(f, M, order=2)
    # with return_sign: (log|Σ b e^a|, sign); d/dt log|Σ b e^(t a)| = Σ b a e^(ta) / Σ b e^(ta)
    b = np.array([1.0, -5.0, 0.1])
    v, sign = sp.logsumexp(X, b=b, return_sign=True)
    assert sign == -1.0
    got = ad.derivative(lambda t: sp.logsumexp(t * X, b=b, return_sign=True)[0])(1.0)
    assert got == pytest.approx(np.sum(b * X * np.exp(X)) / np.sum(b * np.exp(X)), rel=1e-14)
    ad.check_grads(lambda x: sp.logsumexp(x, keepdims=True), X, order=2)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_and_log_softmax(fn):
    s = softmax_np(X)
    J = ad.jacobian_r(getattr(sp, fn))(X)
    want = np.diag(s) - np.outer(s, s) if fn == "softmax" else np.eye(3) - s[None, :]
    np.testing.assert_allclose(J, want, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(ad.jacobian_f(getattr(sp, fn))(X), want, rtol=1e-14, atol=1e-16)
    ad.check_grads(lambda m: np.sum(getattr(sp, fn)(m, axis=0) ** 2), np.outer(X, X), order=2)


def test_norm_logpdf_in_x_loc_and_scale():
    # log N(x; μ, σ) = −(x − μ)²/(2σ²) − log σ − ½ log 2π
    x, mu, sigma = 0.4, -0.3, 1.7
    g = ad.gradient_r(lambda p: st.norm.logpdf(p[0], loc=p[1], scale=p[2]))((x, mu, sigma))
    z = (x - mu) / sigma
    np.testing.assert_allclose(g, (-z / sigma, z / sigma, (z * z - 1) / sigma), rtol=1e-14)
    assert st.norm.logpdf(X, 0.5, 2.0) == pytest.approx(
        st.norm.logpdf.__wrapped__(st.norm, X, 0.5, 2.0), rel=1e-15)


CASES = {
    "norm.pdf": lambda x: np.sum(st.norm.pdf(x, 0.5, 2.0)),
    "norm.cdf": lambda x: np.sum(st.norm.cdf(x, 0.5, 2.0)),
    "norm.logcdf": lambda x: np.sum(st.norm.logcdf(x)),
    "norm.sf": lambda x: np.sum(st.norm.sf(x, scale=3.0)),
    "norm.logsf": lambda x: np.sum(st.norm.logsf(x)),
    "norm frozen": lambda x: np.sum(st.norm(0.5, 2.0).logpdf(x)),
    "t.logpdf": lambda x: np.sum(st.t.logpdf(x, 3.0, loc=0.2)),
    "gamma.logpdf": lambda x: np.sum(st.gamma.logpdf(x + 1.0, 2.0, scale=1.5)),
    "gamma shape": lambda x: np.sum(st.gamma.logpdf(1.3, x + 2.0)),
    "beta.logpdf": lambda x: np.sum(st.beta.logpdf((x + 1.0) / 3.0, 2.0, 3.0)),
    "beta shapes": lambda x: np.sum(st.beta.logpdf(0.3, x + 2.0, 2.0)),
    "expon.logpdf": lambda x: np.sum(st.expon.logpdf(x + 1.0, scale=2.0)),
    "lognorm.logpdf": lambda x: np.sum(st.lognorm.logpdf(x + 1.0, 0.5)),
    "cauchy.logpdf": lambda x: np.sum(st.cauchy.logpdf(x)),
    "logistic.logpdf": lambda x: np.sum(st.logistic.logpdf(x)),
    "poisson.logpmf": lambda x: np.sum(st.poisson.logpmf([1, 2, 3], x + 1.0)),
    "poisson.pmf": lambda x: np.sum(st.poisson.pmf(2, x + 1.0)),
    "mvn.logpdf x": lambda x: st.multivariate_normal.logpdf(x, np.zeros(3), 2.0 * np.eye(3)),
    "mvn.logpdf mean, cov": lambda x: st.multivariate_normal.logpdf(
        np.ones(3), x, np.diag(x + 2.0) + 0.1),
    "mvn batch": lambda x: np.sum(st.multivariate_normal.pdf(np.stack([x, 2 * x]),
                                                             np.zeros(3), np.eye(3))),
    "mvn frozen": lambda x: st.multivariate_normal(np.zeros(3), np.eye(3)).logpdf(x),
}


@pytest.mark.parametrize("name", list(CASES))
def test_scipy_stats_functions_differentiate_and_keep_scipys_values(name):
    f = CASES[name]
    ad.check_grads(f, X, order=2)
    # dvlad's version's value is scipy's own (its plain code path, at the same numbers)
    value = [None]

    def g(x):
        value[0] = ad.primal(f(x))
        return f(x)
    ad.gradient_r(g)(X)
    np.testing.assert_allclose(value[0], f(X), rtol=1e-13)


def test_closed_forms_of_gamma_poisson_and_mvn():
    a, scale = 2.5, 1.5
    x = np.array([0.5, 2.0])
    # ∂/∂x log Gamma(x; a, θ) = (a − 1)/x − 1/θ
    np.testing.assert_allclose(ad.gradient_r(lambda x: np.sum(st.gamma.logpdf(x, a, scale=scale)))(x),
                               (a - 1) / x - 1 / scale, rtol=1e-14)
    # ∂/∂μ log Poisson(k; μ) = k/μ − 1
    k = np.array([0, 1, 4])
    assert ad.derivative(lambda mu: np.sum(st.poisson.logpmf(k, mu)))(2.0) == \
        pytest.approx(np.sum(k / 2.0 - 1), rel=1e-15)
    # ∇ₓ log N(x; μ, Σ) = −Σ⁻¹(x − μ)
    S = np.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.5]])
    mu = np.array([0.1, 0.0, -0.2])
    np.testing.assert_allclose(ad.gradient_r(lambda x: st.multivariate_normal.logpdf(x, mu, S))(X),
                               -np.linalg.solve(S, X - mu), rtol=1e-14)
    seen = []
    ad.gradient_r(lambda x: (seen.append(ad.primal(st.multivariate_normal.logpdf(x, mu, S))),
                             np.sum(x))[1])(X)
    assert seen[0] == pytest.approx(st.multivariate_normal.logpdf(X, mu, S), rel=1e-14)


def test_outside_the_support_and_invalid_parameters_as_scipy():
    def f(x):
        return st.uniform.logpdf(x, 0.0, 1.0)
    x = np.array([-0.5, 0.5, 2.0])
    got = ad.gradient_r(lambda x: np.sum(np.where(np.isfinite(f(x)), f(x), 0.0)))(x)
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0])
    vals = []
    ad.gradient_r(lambda x: (vals.append(ad.primal(f(x))), np.sum(x))[1])(x)
    np.testing.assert_array_equal(vals[0], [-np.inf, 0.0, -np.inf])
    # a negative scale is invalid: nan, as scipy gives
    bad = []
    ad.gradient_r(lambda x: (bad.append(ad.primal(st.norm.logpdf(x, scale=-1.0))), np.sum(x))[1])(x)
    assert np.isnan(bad[0]).all()


def test_functions_without_a_rule_raise_naming_them():
    with pytest.raises(ad.NotDifferentiableError, match="scipy.special.chdtr"):
        ad.gradient_r(lambda x: np.sum(st.chi2.cdf(x + 1.0, 3.0)))(X)


def test_plain_calls_run_scipys_own_code():
    assert sp.logsumexp.__wrapped__ is not None
    assert sp.logsumexp(X) == sp.logsumexp.__wrapped__(X)
    np.testing.assert_array_equal(st.norm.logpdf(X), st.norm.logpdf.__wrapped__(st.norm, X))


@pytest.mark.parametrize("order", ["scipy first", "dvlad first"])
def test_installed_whichever_is_imported_first(order):
    imports = ("import scipy.special, scipy.stats, dvlad" if order == "scipy first"
               else "import dvlad, scipy.special, scipy.stats")
    code = (imports + "\nimport numpy as np\n"
            "g = dvlad.gradient_r(lambda x: scipy.special.logsumexp(x)"
            " + np.sum(scipy.stats.norm.logpdf(x)))(np.zeros(2))\n"
            "assert np.allclose(g, [0.5, 0.5]), g\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_scipy_linalg_on_dvlad_numbers():
    sl = pytest.importorskip("scipy.linalg")
    S = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])
    b = np.array([1.0, -2.0, 0.5])
    T = np.tril(S)
    # d/dA Σ A⁻¹b = −A⁻ᵀ 1 (A⁻¹b)ᵀ, on the triangle solve_triangular reads
    x = np.linalg.solve(T, b)
    want = np.tril(-np.outer(np.linalg.solve(T.T, np.ones(3)), x))
    np.testing.assert_allclose(ad.gradient_r(lambda a: np.sum(sl.solve_triangular(a, b, lower=True)))(T),
                               want, rtol=1e-13)
    x = np.linalg.solve(S, b)
    g = ad.gradient_r(lambda s: np.sum(sl.cho_solve(sl.cho_factor(s, lower=True), b)))(S)
    ad.check_grads(lambda s: np.sum(sl.cho_solve(sl.cho_factor(s, lower=True), b)), S, order=1)
    # cho_factor(lower=True) reads the lower triangle: with G = −S⁻ᵀ1 xᵀ the gradient of the
    # full matrix, the lower triangle's is G + Gᵀ off the diagonal, G on it
    G = -np.outer(np.linalg.solve(S.T, np.ones(3)), x)
    np.testing.assert_allclose(g, np.tril(G + G.T) - np.diag(np.diag(G)), rtol=1e-12)
    # scipy's cholesky reads the upper triangle (lower=False): its derivative lives there
    g = ad.gradient_r(lambda s: np.sum(sl.cholesky(s)))(S)
    assert np.all(np.tril(g, -1) == 0) and np.any(np.triu(g, 1) != 0)
    ad.check_grads(lambda s: np.sum(sl.expm(0.3 * s)), S, order=2)
    ad.check_grads(lambda s: sl.det(s) + np.sum(sl.inv(s)) + np.sum(sl.solve(s, b)), S, order=2)
    np.testing.assert_array_equal(sl.solve(S, b), sl.solve.__wrapped__(S, b))
