"""scipy's plain-Python functions on dvlad numbers (issue #17): scipy.special.logsumexp,
softmax, log_softmax, and scipy.stats densities and distribution functions (multivariate_normal,
dirichlet and multinomial too), called as users call them."""
import subprocess
import sys

import mpmath
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
    # t in its degrees of freedom (poch(ν/2, 1/2) in t's _logpdf), with x and loc tracked too
    "t.logpdf df": lambda x: np.sum(st.t.logpdf(0.7, x + 3.0)),
    "t.pdf df, x": lambda x: np.sum(st.t.pdf(x, x + 3.0, loc=0.2)),
    "t frozen df": lambda x: np.sum(st.t(x + 3.0, scale=1.5).logpdf(X)),
    # survival functions and the chi-square distribution (pdtrc, betaincc, chdtr, chdtrc)
    "poisson.sf": lambda x: np.sum(st.poisson.sf([0, 1, 3], x + 1.0)),
    "poisson.logsf": lambda x: np.sum(st.poisson.logsf([0, 1, 3], x + 1.0)),
    "beta.sf": lambda x: np.sum(st.beta.sf((x + 1.0) / 3.0, 2.5, 1.5)),
    "beta.logsf": lambda x: np.sum(st.beta.logsf((x + 1.0) / 3.0, 2.5, 1.5)),
    "chi2.cdf": lambda x: np.sum(st.chi2.cdf(x + 1.0, 3.0)),
    "chi2.sf scale": lambda x: np.sum(st.chi2.sf(x + 1.0, 2.5, scale=1.5)),
    "chi2.logcdf": lambda x: np.sum(st.chi2.logcdf(x + 1.0, 3.0)),
    "chi2.logsf": lambda x: np.sum(st.chi2.logsf(3.0 * x + 2.5, 3.0)),
    # dirichlet in α and in x (a point of the simplex), multinomial in p
    "dirichlet α": lambda x: st.dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), x + 1.5),
    "dirichlet x": lambda x: st.dirichlet.logpdf(sp.softmax(x), np.array([1.5, 0.8, 2.6])),
    "dirichlet.pdf both": lambda x: st.dirichlet.pdf(sp.softmax(x), x + 1.5),
    "dirichlet frozen": lambda x: st.dirichlet(x + 1.5).logpdf(np.array([0.2, 0.3, 0.5])),
    "multinomial p": lambda x: st.multinomial.logpmf([1, 2, 3], 6, sp.softmax(x)),
    "multinomial.pmf": lambda x: st.multinomial.pmf([0, 2, 1], 3, sp.softmax(x)),
    "multinomial frozen": lambda x: np.sum(st.multinomial(4, sp.softmax(x)).logpmf(
        [[1, 2, 1], [0, 0, 4]])),
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
    with pytest.raises(ad.NotDifferentiableError, match="scipy.special._ufuncs._binom_pmf"):
        ad.gradient_r(lambda p: np.sum(st.binom.pmf([0, 2], 5, p)))(0.3)


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


# ---- t in its degrees of freedom; dirichlet; multinomial -----------------------------------------

def _mp_t_logpdf(x, nu):
    """log of Student's t density, in mpmath's log Γ (an oracle independent of poch)."""
    return (mpmath.loggamma((nu + 1) / 2) - mpmath.loggamma(nu / 2) - mpmath.log(nu * mpmath.pi) / 2
            - (nu + 1) / 2 * mpmath.log1p(x * x / nu))


def test_t_logpdf_in_its_degrees_of_freedom_against_mpmath():
    """∂/∂ν and ∂²/∂ν² of t.logpdf(x, ν) (through poch(ν/2, 1/2)): forward (jvp), reverse
    (gradient), forward over reverse and reverse over reverse (hvp), against mpmath at 30
    digits; and pdf's, e^(log pdf) times those."""
    x = np.array([0.3, -1.2, 2.5, 0.0])
    nu = np.array([0.7, 3.0, 12.5, 150.0])
    with mpmath.workdps(30):
        d1 = [float(mpmath.diff(lambda n: _mp_t_logpdf(mpmath.mpf(a), n), mpmath.mpf(b)))
              for a, b in zip(x, nu)]
        d2 = [float(mpmath.diff(lambda n: _mp_t_logpdf(mpmath.mpf(a), n), mpmath.mpf(b), 2))
              for a, b in zip(x, nu)]
    f = lambda n: st.t.logpdf(x, n)                                          # noqa: E731
    value, slope = ad.jvp(f, nu, np.ones(4))
    np.testing.assert_allclose(value, st.t.logpdf(x, nu), rtol=1e-15)
    # (at ν = 150 the ν-derivative, 1e-5, is what is left of scipy's terms ½(ψ(ν/2 + ½) − ψ(ν/2))
    # and −1/(2ν), 3e-3 each, themselves differences of ψ's ~4: 3e-11 of it is rounding)
    np.testing.assert_allclose(slope, d1, rtol=1e-10)
    np.testing.assert_allclose(ad.gradient_r(lambda n: np.sum(f(n)))(nu), d1, rtol=1e-10)
    for mode in ("fr", "rr"):
        np.testing.assert_allclose(ad.hvp(lambda n: np.sum(f(n)), nu, np.ones(4), mode=mode), d2,
                                   rtol=1e-8)
    pdf = st.t.pdf(x, nu)
    np.testing.assert_allclose(ad.gradient_r(lambda n: np.sum(st.t.pdf(x, n)))(nu),
                               pdf * np.array(d1), rtol=1e-10)
    # a scalar ν shared by every x, forward and reverse, and check_grads to order 2
    g = ad.derivative(lambda n: np.sum(st.t.logpdf(x, n)))(3.0)
    assert g == pytest.approx(ad.gradient_r(lambda n: np.sum(st.t.logpdf(x, n)))(3.0), rel=1e-14)
    ad.check_grads(lambda n: np.sum(st.t.logpdf(x, n, scale=1.3)), nu, order=2)


A = np.array([1.5, 2.0, 3.0])
P3 = np.array([0.2, 0.3, 0.5])
PSI, TRIGAMMA = sp.psi, lambda t: sp.polygamma(1, t)


def test_dirichlet_closed_forms():
    """∂α log Dir(x; α) = log x + ψ(Σα) − ψ(α), ∂x = (α − 1)/x, ∂²α = ψ′(Σα) − diag ψ′(α); the
    pdf's gradient is pdf times that; forward and reverse, the generic and the frozen form."""
    want_a = np.log(P3) + PSI(A.sum()) - PSI(A)
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_allclose(grad(lambda a: st.dirichlet.logpdf(P3, a))(A), want_a,
                                   rtol=1e-14)
        np.testing.assert_allclose(grad(lambda a: st.dirichlet(a).logpdf(P3))(A), want_a,
                                   rtol=1e-14)
        np.testing.assert_allclose(grad(lambda x: st.dirichlet.logpdf(x, A))(P3), (A - 1) / P3,
                                   rtol=1e-15)
        np.testing.assert_allclose(grad(lambda a: st.dirichlet(a).pdf(P3))(A),
                                   st.dirichlet.pdf(P3, A) * want_a, rtol=1e-13)
    H = TRIGAMMA(A.sum()) - np.diag(TRIGAMMA(A))
    np.testing.assert_allclose(ad.hessian(lambda a: st.dirichlet.logpdf(P3, a))(A), H, rtol=1e-13)
    np.testing.assert_allclose(ad.jacobian_f(ad.gradient_r(lambda a: st.dirichlet.logpdf(P3, a)))(
        A), H, rtol=1e-13)
    # α as a list of numbers (each an AD number): packed into one
    np.testing.assert_allclose(ad.gradient_r(lambda a: st.dirichlet.logpdf(P3, [a[0], a[1], a[2]]))(
        A), want_a, rtol=1e-14)


def test_dirichlet_takes_the_components_along_the_first_axis_as_scipy():
    """x of shape (k, n): n points, one per column (scipy's own layout, whatever its docstring
    says); (k − 1,) or (k − 1, n): the last component is 1 − the others' sum.  Values are
    scipy's; the derivatives are mpmath's (the log density summed over the first axis)."""
    X = np.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]])

    def mp_logpdf(x, a):
        return (mpmath.fsum((ai - 1) * mpmath.log(xi) for xi, ai in zip(x, a))
                - mpmath.fsum(mpmath.loggamma(ai) for ai in a) + mpmath.loggamma(mpmath.fsum(a)))
    for x in (X, X[:2], X[:, 0], X[:2, 0]):
        seen = []
        g = ad.gradient_r(lambda t: (seen.append(ad.primal(st.dirichlet.logpdf(t, A))),
                                     np.sum(st.dirichlet.logpdf(t, A)))[1])(x)
        np.testing.assert_allclose(seen[0], st.dirichlet.logpdf(x, A), rtol=1e-15)
        columns = x.reshape(len(x), -1).T
        with mpmath.workdps(30):
            want = []
            for col in columns:
                full = list(col) if len(col) == 3 else list(col) + [1 - sum(col)]
                grad = [mpmath.diff(lambda t, i=i: mp_logpdf(
                    [t if j == i else mpmath.mpf(c) for j, c in enumerate(full[:len(col)])]
                    + ([] if len(col) == 3 else
                       [1 - t - mpmath.fsum(mpmath.mpf(c) for j, c in enumerate(col) if j != i)]),
                    [mpmath.mpf(a) for a in A]), mpmath.mpf(col[i])) for i in range(len(col))]
                want.append([float(w) for w in grad])
        np.testing.assert_allclose(g, np.array(want).T.reshape(x.shape), rtol=1e-13)
    # (finite differences leave the simplex, which scipy refuses, unless the last component is
    # left out or x is a softmax along the first axis)
    w = np.array([1.0, -2.0])
    for x in (X[:2], X[:2, 0]):
        ad.check_grads(lambda t: np.sum(st.dirichlet.logpdf(t, A) * w[:t.ndim]), x, order=2)
    ad.check_grads(lambda z: np.sum(st.dirichlet.logpdf(sp.softmax(z, axis=0), A) * w),
                   np.log(X), order=2)
    # both tracked, stacked points
    ad.check_grads(lambda p: np.sum(st.dirichlet.pdf(p[0], p[1])), (X[:2], A), order=2)


@pytest.mark.parametrize("x, alpha", [
    (P3, np.array([1.5, 0.0, 3.0])),                        # a parameter ≤ 0
    (P3, np.array([[1.5, 2.0, 3.0]])),                      # α not one-dimensional
    (np.array([0.2, 0.3, 0.6]), A),                         # off the simplex
    (np.array([0.2, 0.3, 0.5, 0.0]), A),                    # one entry too many
    (np.array([0.0, 0.5, 0.5]), np.array([0.5, 2.0, 3.0])),  # x = 0 where α < 1
    (np.array([1.2, -0.2, 0.0]), A),                        # an entry below 0
])
@pytest.mark.parametrize("tracked", ["x", "alpha"])
def test_dirichlet_checks_its_arguments_as_scipy(x, alpha, tracked):
    with pytest.raises(ValueError) as theirs:
        st.dirichlet.logpdf(x, alpha)
    f = ((lambda t: st.dirichlet.logpdf(t, alpha)) if tracked == "x"
         else (lambda t: st.dirichlet.logpdf(x, t)))
    for grad in (ad.gradient_r, ad.gradient_f):
        with pytest.raises(ValueError) as ours:
            grad(f)(x if tracked == "x" else alpha)
        assert str(ours.value) == str(theirs.value)


def test_dirichlet_and_multinomial_plain_calls_run_scipys_code():
    for method in (st.dirichlet.logpdf, st.dirichlet.pdf, st.multinomial.logpmf,
                   st.multinomial.pmf):
        assert method.__wrapped__ is not None
    np.testing.assert_array_equal(st.dirichlet.logpdf(P3, A),
                                  st.dirichlet.logpdf.__wrapped__(st.dirichlet, P3, A))
    np.testing.assert_array_equal(st.multinomial.logpmf([1, 2, 3], 6, P3),
                                  st.multinomial.logpmf.__wrapped__(st.multinomial, [1, 2, 3], 6,
                                                                    P3))
    assert st.multinomial(6, P3).logpmf([1, 2, 3]) == st.multinomial.logpmf([1, 2, 3], 6, P3)


def test_multinomial_closed_forms():
    """∂p log Mult(x; n, p) = x/p, ∂²p = −diag(x/p²), for a batch of counts; the pmf's gradient
    is pmf times that; generic and frozen, forward and reverse."""
    x = np.array([[1, 2, 3], [0, 6, 0], [2, 2, 2]])
    for grad in (ad.gradient_r, ad.gradient_f):
        np.testing.assert_allclose(grad(lambda p: np.sum(st.multinomial.logpmf(x, 6, p)))(P3),
                                   np.sum(x / P3, axis=0), rtol=1e-15)
        np.testing.assert_allclose(grad(lambda p: st.multinomial(6, p).logpmf(x[0]))(P3),
                                   x[0] / P3, rtol=1e-15)
        np.testing.assert_allclose(grad(lambda p: st.multinomial.pmf(x[0], 6, p))(P3),
                                   st.multinomial.pmf(x[0], 6, P3) * x[0] / P3, rtol=1e-14)
    np.testing.assert_allclose(ad.hessian(lambda p: st.multinomial.logpmf(x[0], 6, p))(P3),
                               -np.diag(x[0] / P3 ** 2), rtol=1e-15)
    # (finite differences in p leave the simplex, where scipy replaces p's last entry: through a
    # softmax they stay on it)
    ad.check_grads(lambda z: np.sum(st.multinomial.pmf(x, 6, sp.softmax(z))), np.log(P3),
                   order=2)


def test_multinomial_outside_its_domain_and_adjusted_p_as_scipy():
    """Counts that are not integers or do not sum to n: −inf (derivative 0); a negative p: nan;
    a p whose sum is not 1: scipy's FutureWarning, its last entry replaced by 1 − the others'
    sum, so its derivative goes to the others (∂pᵢ = xᵢ/pᵢ − x_k/p_k)."""
    x = np.array([[1, 2, 3], [1, 2, 2], [1.5, 2, 2.5]])
    seen = []
    g = ad.gradient_r(lambda p: (seen.append(ad.primal(st.multinomial.logpmf(x, 6, p))),
                                 np.sum(np.where(np.isfinite(ad.primal(
                                     st.multinomial.logpmf(x, 6, p))),
                                     st.multinomial.logpmf(x, 6, p), 0.0)))[1])(P3)
    np.testing.assert_array_equal(seen[0], st.multinomial.logpmf(x, 6, P3))
    assert np.isneginf(seen[0][1:]).all()
    np.testing.assert_allclose(g, x[0] / P3, rtol=1e-15)
    bad = np.array([-0.1, 0.6, 0.5])
    got = []
    ad.gradient_r(lambda p: (got.append(ad.primal(st.multinomial.logpmf(x[0], 6, p))), p[0])[1])(bad)
    assert np.isnan(got[0]) and np.isnan(st.multinomial.logpmf(x[0], 6, bad))
    off = np.array([0.2, 0.3, 0.4])
    with pytest.warns(FutureWarning, match="do not sum to 1.0"):
        g = ad.gradient_r(lambda p: st.multinomial.logpmf(x[0], 6, p))(off)
    np.testing.assert_allclose(g, [1 / 0.2 - 3 / 0.5, 2 / 0.3 - 3 / 0.5, 0.0], rtol=1e-14)
    with pytest.warns(FutureWarning):
        value = st.multinomial.logpmf(x[0], 6, off)
    with pytest.warns(FutureWarning):
        assert ad.primal(ad.jvp(lambda p: st.multinomial.logpmf(x[0], 6, p), off,
                                np.ones(3))[0]) == value


def test_multinomial_counts_are_not_variables():
    for f in (lambda t: st.multinomial.logpmf(np.array([1.0, 2.0, 3.0]) * t, 6, P3),
              lambda t: st.multinomial.logpmf([1, 2, 3], 6 * t, P3)):
        for op in (ad.derivative, ad.gradient_r):
            with pytest.raises(ad.NotDifferentiableError, match="x and n are counts"):
                op(f)(1.0)


def test_polygamma_multigammaln_and_a_frozen_multivariate_normal_as_users_call_them():
    import scipy.special as ss
    import scipy.stats as st
    x = np.array([1.0, 10.0])
    g = ad.gradient_r(lambda x: np.sum(ss.polygamma(1, x)))(x)
    np.testing.assert_allclose(g, [float(mpmath.polygamma(2, v)) for v in x], rtol=1e-13)
    g = ad.derivative(lambda a: ss.multigammaln(a, 3))(4.5)
    want = sum(float(mpmath.digamma(4.5 + (1 - j) / 2.0)) for j in (1, 2, 3))
    np.testing.assert_allclose(g, want, rtol=1e-13)
    value, _ = ad.value_and_gradient_r(lambda a: ss.multigammaln(a, 3))(4.5)
    np.testing.assert_allclose(value, ss.multigammaln(4.5, 3), rtol=1e-14)
    # ∇_μ log N(0; μ, I) = −μ; frozen with a dvlad number in mean, and in x
    g = ad.gradient_r(lambda m: st.multivariate_normal(mean=m, cov=np.eye(2)).logpdf(
        np.zeros(2)))(x)
    assert g.tolist() == [-1.0, -10.0]
    frozen = st.multivariate_normal(mean=np.ones(2), cov=np.eye(2))
    assert ad.gradient_r(frozen.logpdf)(x).tolist() == [0.0, -9.0]
    assert frozen.logpdf(x) == st.multivariate_normal.logpdf(x, np.ones(2), np.eye(2))
    # ∂/∂c log N(1; 0, cI) in 2-d = −1/c + 1/c²·|x|²/2 = −0.25 at c = 2
    assert np.isclose(ad.derivative(lambda c: st.multivariate_normal(
        np.zeros(2), c * np.eye(2)).logpdf(np.ones(2)))(2.0), -0.25, rtol=1e-14)


def test_logsumexp_of_an_object_array_of_dvlad_numbers():
    import scipy.special as ss
    x = np.array([1.0, 10.0])
    g = ad.gradient_r(lambda x: ss.logsumexp(np.array([x[0] * x[1], x[0]])))(x)
    s = np.exp([10.0, 1.0]) / np.sum(np.exp([10.0, 1.0]))
    np.testing.assert_allclose(g, [s[0] * 10.0 + s[1], s[0] * 1.0], rtol=1e-14)


def test_scipy_linalg_decompositions_and_solve_keywords_on_dvlad_numbers():
    import scipy.linalg as sl
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    b = np.array([1.0, 2.0])
    ai = np.linalg.inv(a)
    # d Σλ = tr(dA) read from one triangle; d Σσ = tr(Uᵀ dA V) = I for a s.p.d. a
    for fn in (lambda m: sl.eigh(m)[0].sum(), lambda m: sl.eigvalsh(m).sum(),
               lambda m: sl.eigh(m, eigvals_only=True).sum()):
        np.testing.assert_allclose(ad.gradient_r(fn)(a), np.eye(2), atol=1e-15)
    np.testing.assert_allclose(ad.gradient_r(lambda m: sl.svd(m)[1].sum())(a), np.eye(2),
                               atol=1e-15)
    np.testing.assert_allclose(ad.gradient_r(lambda m: sl.svdvals(m).sum())(a), np.eye(2),
                               atol=1e-15)
    # ∇ Σ A⁻¹ = −A⁻ᵀ 1 1ᵀ A⁻ᵀ (pinv of an invertible A is A⁻¹)
    ones = np.ones((2, 2))
    np.testing.assert_allclose(ad.gradient_r(lambda m: sl.pinv(m).sum())(a),
                               -ai.T @ ones @ ai.T, rtol=1e-12)
    # transposed: Aᵀx = b; assume_a='pos' reads the upper triangle (lower=False), as scipy
    x = np.linalg.solve(a.T, b)
    np.testing.assert_allclose(ad.gradient_r(lambda m: sl.solve(m, b, transposed=True).sum())(a),
                               -np.outer(x, ai @ np.ones(2)), rtol=1e-12)
    u = np.triu(a) + np.array([[0.0, 0.0], [5.0, 0.0]])
    value, g = ad.value_and_gradient_r(lambda m: sl.solve(m, b, assume_a="pos").sum())(u)
    assert np.isclose(value, sl.solve(u, b, assume_a="pos").sum(), rtol=1e-15)
    assert g[1, 0] == 0.0
    with pytest.raises(ad.NotDifferentiableError, match="scipy.linalg.schur"):
        ad.gradient_r(lambda m: sl.schur(m)[0].sum())(a)
    with pytest.raises(ad.NotDifferentiableError, match="subset_by_index"):
        ad.gradient_r(lambda m: sl.eigh(m, subset_by_index=[0, 0])[0].sum())(a)
    assert np.allclose(sl.sqrtm(a) @ sl.sqrtm(a), a)          # plain numbers: scipy's own


def test_scipy_linalg_without_rules_and_questions_and_multigammaln_domain():
    import scipy.linalg as sl
    import scipy.special as ss
    x = np.array([2.0, 3.0, 1.0])
    m = lambda a: np.outer(a, a) + np.diag(a) * 3                   # noqa: E731
    for name, call in (("polar", lambda a: sl.polar(m(a))[0]), ("expm_cond", lambda a: sl.expm_cond(
            m(a) / 10) * a), ("circulant", sl.circulant), ("pinvh", lambda a: sl.pinvh(m(a)))):
        with pytest.raises(ad.NotDifferentiableError, match=f"scipy.linalg.{name}"):
            ad.gradient_r(lambda a: np.sum(call(a)))(x)
    # toeplitz is Python over numpy and differentiates as it is; the questions answer for the
    # primal
    g = ad.gradient_r(lambda a: np.sum(sl.toeplitz(a)) * sl.issymmetric(np.outer(a, a)) +
                      sl.bandwidth(np.outer(a, a))[0])(x)
    assert g.tolist() == [3.0, 4.0, 2.0]
    with pytest.raises(ValueError, match="not met"):
        ad.derivative(lambda a: ss.multigammaln(a, 3))(0.4)


def test_scipy_linalg_checks_finite_values_as_scipy():
    """check_finite=True (scipy's default): ValueError for an inf or nan, as scipy's own;
    check_finite=False: nan goes through, as scipy's substitution takes it."""
    sl = pytest.importorskip("scipy.linalg")
    L = np.tril(np.ones((5, 5))) + np.eye(5)
    L[2, 1] = np.nan
    b = np.ones(5)
    for f in (lambda u: sl.solve_triangular(L, u, lower=True),
              lambda u: sl.cho_solve((L, True), u), lambda u: sl.cho_factor(L * u[0])[0]):
        with pytest.raises(ValueError, match="infs or NaNs"):
            f(b)
        with pytest.raises(ValueError, match="infs or NaNs"):
            ad.vjp(f, b)
    got = ad.vjp(lambda u: sl.solve_triangular(L, u, lower=True, check_finite=False), b)[0]
    want = sl.solve_triangular(L, b, lower=True, check_finite=False)
    assert np.array_equal(got, want, equal_nan=True)


def test_multivariate_normal_entropy_on_dvlad_numbers():
    """½(d(1 + log 2π) + log det Σ), generic and frozen: ∂/∂Σ = ½Σ⁻ᵀ, scipy's value; a
    singular Σ (scipy's log pseudo-determinant) is refused by name, scipy's errors stay its own."""
    A = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.1]])
    m = np.array([0.5, -1.0, 2.0])
    for f in (lambda c: st.multivariate_normal.entropy(m, c),
              lambda c: st.multivariate_normal(m, c).entropy()):
        value, g = ad.value_and_gradient_r(f)(A)
        assert value == pytest.approx(st.multivariate_normal.entropy(m, A), rel=1e-15)
        np.testing.assert_allclose(g, 0.5 * np.linalg.inv(A).T, rtol=1e-14)
        np.testing.assert_allclose(ad.gradient_f(f)(A), 0.5 * np.linalg.inv(A).T, rtol=1e-14)
        ad.check_grads(lambda B: f(B @ B.T + np.eye(3)), A, order=2)    # (Σ symmetric)
    # a number or a diagonal as cov: d/2c, and 1/(2cᵢ)
    assert ad.derivative(lambda c: st.multivariate_normal.entropy(np.zeros(3), c))(2.0) == 0.75
    assert ad.gradient_r(lambda c: st.multivariate_normal.entropy(np.zeros(3), c))(
        np.array([1.0, 2.0, 4.0])).tolist() == [0.5, 0.25, 0.125]
    S = np.outer([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert np.isfinite(st.multivariate_normal.entropy(m, S))       # plain numbers: scipy's own
    for f in (lambda c: st.multivariate_normal.entropy(m, c),
              lambda c: st.multivariate_normal(m, c, allow_singular=True).entropy()):
        with pytest.raises(ad.NotDifferentiableError, match="entropy: cov is singular"):
            ad.gradient_r(f)(S)
    with pytest.raises(np.linalg.LinAlgError, match="allow_singular"):
        ad.gradient_r(lambda c: st.multivariate_normal(m, c).entropy())(S)
    with pytest.raises(ValueError, match="positive semidefinite"):
        ad.gradient_r(lambda c: st.multivariate_normal.entropy(m, c))(-A)
