"""The quantile functions of scipy.special (gammaincinv gammainccinv chdtri stdtrit betaincinv
betainccinv: rows of the rule table) and scipy.stats' ppf/isf through them: the derivative in
the probability is ±1/density at the result, to every order and in both modes, on numbers,
arrays (float64 and float32) and mpf; the shape arguments are refused by name; at q = 0 and 1
the slope is 1/density at the support's end (inf, 0 or the finite limit)."""
import mpmath
import numpy as np
import pytest

import dvlad as ad
from support import close

sc = pytest.importorskip("scipy.special")
st = pytest.importorskip("scipy.stats")

# (scipy function, its shape arguments, its slope in q as 1/density at r = f(*shapes, q))
INVERSES = {
    "gammaincinv": (sc.gammaincinv, (2.5,), lambda r: 1 / st.gamma.pdf(r, 2.5)),
    "gammainccinv": (sc.gammainccinv, (0.7,), lambda r: -1 / st.gamma.pdf(r, 0.7)),
    "chdtri": (sc.chdtri, (3.0,), lambda r: -1 / st.chi2.pdf(r, 3.0)),
    "stdtrit": (sc.stdtrit, (2.5,), lambda r: 1 / st.t.pdf(r, 2.5)),
    "betaincinv": (sc.betaincinv, (2.5, 1.5), lambda r: 1 / st.beta.pdf(r, 2.5, 1.5)),
    "betainccinv": (sc.betainccinv, (0.7, 2.2), lambda r: -1 / st.beta.pdf(r, 0.7, 2.2)),
}
# the cdf (or survival function) each inverts, in mpmath: the second-derivative oracle
MP_CDFS = {
    "gammaincinv": lambda x: mpmath.gammainc(2.5, 0, x, regularized=True),
    "gammainccinv": lambda x: mpmath.gammainc(0.7, x, mpmath.inf, regularized=True),
    "chdtri": lambda x: mpmath.gammainc(1.5, x / 2, mpmath.inf, regularized=True),
    "stdtrit": lambda t: 0.5 + t * mpmath.gamma(1.75) * mpmath.hyp2f1(
        0.5, 1.75, 1.5, -t * t / 2.5) / (mpmath.sqrt(2.5 * mpmath.pi) * mpmath.gamma(1.25)),
    "betaincinv": lambda x: mpmath.betainc(2.5, 1.5, 0, x, regularized=True),
    "betainccinv": lambda x: mpmath.betainc(0.7, 2.2, x, 1, regularized=True),
}
Q = np.array([0.05, 0.3, 0.62, 0.97])


def _mp_inverse(name, q):
    """The root of MP_CDFS[name](x) = q by mpmath.findroot (Anderson–Björck's bracketing
    secant, never outside the support), in a bracket around scipy's float value."""
    f, shapes, _ = INVERSES[name]
    x0 = mpmath.mpf(float(f(*shapes, float(q))))
    bracket = (x0 - abs(x0) * 1e-9, x0 + abs(x0) * 1e-9)
    return mpmath.findroot(lambda x: MP_CDFS[name](x) - q, bracket, solver="anderson")


@pytest.mark.parametrize("name", list(INVERSES))
def test_slope_is_one_over_the_density_on_arrays(name):
    f, shapes, slope = INVERSES[name]
    g = lambda q: f(*shapes, q)                                             # noqa: E731
    value, tangent = ad.jvp(g, Q, np.ones(4))
    close(value, g(Q), rel=1e-15)
    close(tangent, slope(g(Q)), rel=1e-12)
    close(ad.gradient_r(lambda q: np.sum(g(q)))(Q), slope(g(Q)), rel=1e-12)
    ad.check_grads(lambda q: np.sum(g(q) * np.array([0.7, -1.1, 0.4, 1.3])), Q, order=2,
                   modes=("fwd", "rev"))


@pytest.mark.parametrize("name", list(INVERSES))
def test_second_and_third_derivatives_against_mpmath(name):
    f, shapes, _ = INVERSES[name]
    op = getattr(ad, name)
    for q in (0.2, 0.85):
        with mpmath.workdps(30):
            want = [float(w) for w in mpmath.diffs(lambda t: _mp_inverse(name, t),
                                                   mpmath.mpf(q), 3)]
        close(ad.derivatives(lambda t: op(*shapes, t), 3)(q), want, rel=1e-11)
        d1 = ad.derivative(lambda t: op(*shapes, t))
        close(ad.derivative(d1)(q), want[2], rel=1e-11)
        close(ad.gradient_r(lambda t: ad.gradient_r(lambda s: op(*shapes, s))(t))(q), want[2],
              rel=1e-11)
        close(ad.derivative(lambda t: ad.gradient_r(lambda s: op(*shapes, s))(t))(q), want[2],
              rel=1e-11)


@pytest.mark.parametrize("name", list(INVERSES))
def test_mpf_in_mpf_out_to_forty_five_digits(name):
    f, shapes, _ = INVERSES[name]
    op = getattr(ad, name)
    with mpmath.workdps(50):
        q = mpmath.mpf("0.3")
        got = ad.derivatives(lambda t: op(*shapes, t), 2)(q)
        assert all(type(g) is type(q) for g in got)
        want = list(mpmath.diffs(lambda t: _mp_inverse(name, t), q, 2))
        close(got, want, rel=mpmath.mpf(10) ** -45)


@pytest.mark.parametrize("name", list(INVERSES))
def test_float32_stays_float32(name):
    f, shapes, slope = INVERSES[name]
    q = Q.astype(np.float32)
    g = ad.gradient_r(lambda t: np.sum(f(*shapes, t)))(q)
    h = ad.hvp(lambda t: np.sum(f(*shapes, t)), q, np.ones(4, np.float32))
    assert g.dtype == np.float32 and h.dtype == np.float32
    close(g, slope(f(*shapes, Q)).astype(np.float32), rel=2e-5)


def test_broadcast_shapes_against_a_tracked_q():
    a = np.array([[0.6], [1.0], [4.0]])
    g = ad.gradient_r(lambda q: np.sum(sc.gammaincinv(a, q)))(Q)
    close(g, np.sum(1 / st.gamma.pdf(sc.gammaincinv(a, Q), a), axis=0), rel=1e-12)
    b = np.array([0.5, 3.0])[:, None]
    ad.check_grads(lambda q: np.sum(sc.betainccinv(2.0, b, q) ** 2), Q, order=2)


def test_the_ends_of_the_support():
    """At q = 0 and 1 the result is the support's end and the slope 1/density there: inf where
    the density is 0, 0 where it is infinite, the finite limit in between; −inf for the
    inverses of a survival function."""
    d = lambda f: ad.derivative(f)                                          # noqa: E731
    assert d(lambda q: ad.gammaincinv(2.5, q))(0.0) == np.inf
    assert d(lambda q: ad.gammaincinv(2.5, q))(1.0) == np.inf
    assert d(lambda q: ad.gammaincinv(0.6, q))(0.0) == 0.0
    assert d(lambda q: ad.gammaincinv(1.0, q))(0.0) == 1.0
    assert d(lambda q: ad.gammainccinv(2.5, q))(0.0) == -np.inf
    assert d(lambda q: ad.chdtri(3.0, q))(0.0) == -np.inf
    assert d(lambda q: ad.stdtrit(3.0, q))(1.0) == np.inf
    assert d(lambda q: ad.betaincinv(2.5, 1.5, q))(0.0) == np.inf
    assert d(lambda q: ad.betaincinv(0.5, 1.5, q))(0.0) == 0.0
    assert d(lambda q: ad.betainccinv(2.5, 1.5, q))(0.0) == -np.inf
    ends = np.array([0.0, 0.3, 1.0])
    with np.errstate(all="ignore"):
        J = ad.jacobian_r(lambda q: sc.betaincinv(2.5, 1.5, q))(ends)
    assert np.diag(J)[0] == np.inf and np.diag(J)[2] == np.inf and np.isfinite(np.diag(J)[1])
    assert ad.stdtrit(3.0, mpmath.mpf(0)) == -mpmath.inf           # (scipy's float says +inf)


@pytest.mark.parametrize("name, f, argument", [
    ("gammaincinv", lambda a: sc.gammaincinv(a, 0.3), "a"),
    ("chdtri", lambda v: sc.chdtri(v, 0.3), "v"),
    ("stdtrit", lambda df: sc.stdtrit(df, 0.3), "df"),
    ("betainccinv", lambda b: sc.betainccinv(2.5, b, 0.3), "b")])
def test_a_shape_argument_is_refused_by_name(name, f, argument):
    for op in (ad.derivative, ad.gradient_r):
        with pytest.raises(ad.NotDifferentiableError,
                           match=f"scipy.special.{name} .*shape argument {argument} "):
            op(f)(2.5)


# ---- scipy.stats ----------------------------------------------------------------------------

STATS = {
    "t.ppf": (lambda q: st.t.ppf(q, 3.0), lambda q: 1 / st.t.pdf(st.t.ppf(q, 3.0), 3.0)),
    "t.isf loc scale": (lambda q: st.t.isf(q, 2.5, loc=0.5, scale=2.0),
                        lambda q: -1 / st.t.pdf(st.t.isf(q, 2.5, 0.5, 2.0), 2.5, 0.5, 2.0)),
    "chi2.ppf": (lambda q: st.chi2.ppf(q, 3.0), lambda q: 1 / st.chi2.pdf(st.chi2.ppf(q, 3.0),
                                                                          3.0)),
    "chi2.isf": (lambda q: st.chi2.isf(q, 1.2), lambda q: -1 / st.chi2.pdf(st.chi2.isf(q, 1.2),
                                                                           1.2)),
    "gamma.ppf loc scale": (lambda q: st.gamma.ppf(q, 2.5, 0.3, 1.5),
                            lambda q: 1 / st.gamma.pdf(st.gamma.ppf(q, 2.5, 0.3, 1.5), 2.5, 0.3,
                                                       1.5)),
    "gamma.isf": (lambda q: st.gamma.isf(q, 0.7), lambda q: -1 / st.gamma.pdf(
        st.gamma.isf(q, 0.7), 0.7)),
    "beta.ppf": (lambda q: st.beta.ppf(q, 2.5, 1.5),
                 lambda q: 1 / st.beta.pdf(st.beta.ppf(q, 2.5, 1.5), 2.5, 1.5)),
    "beta.isf scale": (lambda q: st.beta.isf(q, 0.7, 2.2, scale=3.0),
                       lambda q: -1 / st.beta.pdf(st.beta.isf(q, 0.7, 2.2, scale=3.0), 0.7, 2.2,
                                                  scale=3.0)),
}


@pytest.mark.parametrize("name", list(STATS))
def test_scipy_stats_ppf_and_isf(name):
    f, slope = STATS[name]
    value, tangent = ad.jvp(f, Q, np.ones(4))
    close(value, f(Q), rel=1e-14)
    close(tangent, slope(Q), rel=1e-11)
    close(ad.gradient_r(lambda t: np.sum(f(t)))(Q), slope(Q), rel=1e-11)
    ad.check_grads(lambda t: np.sum(f(t)), Q, order=2, modes=("fwd", "rev"))
    close(ad.derivative(f)(0.3), float(slope(0.3)), rel=1e-11)


def test_scipy_stats_ppf_in_loc_and_scale_and_at_the_ends():
    q = np.array([0.1, 0.6])
    for dist, shapes in ((st.gamma, (2.5,)), (st.beta, (2.5, 1.5)), (st.t, (3.0,)),
                         (st.chi2, (3.0,))):
        for method in (dist.ppf, dist.isf):
            g = ad.gradient_r(lambda p: np.sum(method(q, *shapes, loc=p[0], scale=p[1])))(
                (0.4, 1.7))
            close(g, (2.0, np.sum(method(q, *shapes))), rel=1e-13)
            ad.check_grads(lambda p: method(0.3, *shapes, loc=p[0], scale=p[1]) ** 2,
                           (0.4, 1.7), order=2)
    edges = np.array([-0.1, 0.0, 0.3, 1.0, 1.2])
    for f in (lambda q: st.beta.ppf(q, 2.5, 1.5), lambda q: st.chi2.isf(q, 3.0)):
        seen = []
        with np.errstate(invalid="ignore"):
            J = ad.jacobian_f(lambda t: (seen.append(ad.primal(f(t))), f(t))[1])(edges)
        assert np.array_equal(seen[0], f(edges), equal_nan=True)
        assert np.diag(J)[2] != 0 and np.all(np.diag(J)[[0, 1, 3, 4]] == 0)


def test_scipy_stats_shape_in_a_ppf_is_refused_by_name():
    for f, name in ((lambda a: st.gamma.ppf(0.3, a), "scipy.special.gammaincinv .*shape "
                     "argument a"), (lambda df: st.t.ppf(0.3, df), "scipy.special.stdtrit"),
                    (lambda b: st.beta.ppf(0.3, 2.5, b), "scipy.special.betaincinv .*shape "
                     "argument b")):
        for op in (ad.derivative, ad.gradient_r):
            with pytest.raises(ad.NotDifferentiableError, match=name):
                op(f)(1.4)
