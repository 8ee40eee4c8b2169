"""CASES.md section 2, functions as results (issue #3): derivatives of function-valued functions.

The reading every expected value below is worked out in: if f(x) is a function, D(f)(x) is the
partial derivative of the *uncurried* f with respect to its first argument,

    D(f)(x)(a, ...)  =  ∂/∂x f(x)(a, ...),

holding every later argument (numbers, and functions with whatever perturbations they carry)
fixed.  A function result inside a tuple/list/dict is read the same way, one component at a time.
Each test's comment derives its values by hand from this reading; where a source states a value,
the docstring cites it.  No implementation's output is used as the oracle.

Sources (repository + path):
  DVL       axch/dysvunctional-language  dvl/examples/amazing-bug.dvl, amazing-bug-2.dvl,
            amazing-bug-3.dvl, amazing-bug-4.dvl, amazing-bug-5.dvl, non-bug.dvl
  Emmy      mentat-collective/emmy  test/emmy/calculus/derivative_test.cljc (deftests
            amazing-bug, sams-amazing-bug, dvl-bug-examples, partial-diff-test, delta-eta-tests)
  scmutils  hnarayanan/sicm  scmutils/src/kernel/diff.scm (the comments on "Alexey's Amazing
            Bug", June 2011, and on the 2011 version's multiple-argument bug)
  paper     Manzyuk, Pearlmutter, Radul, Rush, Siskind, "Perturbation confusion in forward
            automatic differentiation of higher-order functions", JFP 29 (2019), arXiv:1211.4892
  R6RS      the paper's R6RS reference implementation (d, tg, subst; Eqs. 8, 18, 23, 24) with
            Sam Ritchie's added examples ("Sam's Second Example", arg-shift-cont, cont2); the
            search index holds this file without naming its repository.
  R6RS-AD   a should-be-7 test script for Siskind's R6RS-AD (diffUff, f-hat); also held by the
            index without a repository name.

Integer-valued answers are compared exactly; other answers must be Python floats within 1e-15
relative of math or mpmath (50 digits) closed forms (support.close with of=float).
"""
import collections
import functools
import math

import mpmath
import pytest

import dvlad
from dvlad import exp, log, sin
from dvlad import derivative as D
from dvlad import directional_derivative, gradient_r, jvp
from support import close, exactly  # noqa: E402

E = math.e


@pytest.fixture(autouse=True, scope="module")
def _fifty_digits():
    """mpmath's closed forms at 50 digits, for this module's tests only."""
    with mpmath.workdps(50):
        yield


# ---- the functions the cases are built from ---------------------------------------------------

def adder(n):
    """adder(n) = x ↦ x + n."""
    return lambda x: x + n


def shift(u):
    """s(u) = f ↦ x ↦ f(x + u): the paper's shift operator."""
    return lambda f: lambda x: f(x + u)


def amazing(x):
    """DVL's amazing-bug.dvl: (define (((f x) g) y) (g (+ x y)))."""
    return lambda g: lambda y: g(x + y)


# ---- adder --------------------------------------------------------------------------------------

@pytest.mark.parametrize("num", [int, float])
def test_adder_first_partial(num):
    # adder uncurried: A(n, x) = x + n.  ∂A/∂n = 1 at every (n, x).
    dadder = D(adder)(num(3))
    assert callable(dadder)
    exactly(dadder(num(4)), 1)
    exactly(dadder(num(-10)), 1)


@pytest.mark.parametrize("num", [int, float])
def test_adder_second_partial(num):
    # ∂²A/∂n² = ∂/∂n 1 = 0.
    exactly(D(D(adder))(num(3))(num(4)), 0)


# ---- the shift operator: ŝ = D(s)(0) is the derivative operator -------------------------------

def test_paper_shift_hat_is_the_derivative_operator():
    """Manzyuk et al. 2019: ŝ = D s 0 should behave as the derivative operator."""
    # S(u, f, x) = f(x + u); ∂S/∂u at u = 0 is f′(x).  So ŝ(f) = f′.
    s_hat = D(shift)(0.0)
    close(s_hat(exp)(1.0), E, of=float)                # exp′(1) = e
    close(s_hat(sin)(0.5), math.cos(0.5), of=float)    # sin′ = cos
    exactly(s_hat(lambda x: x ** 3)(2.0), 12)          # (x³)′ = 3x² = 12 at 2


def test_paper_shift_hat_twice_is_the_second_derivative():
    """CASES.md section 2 / Manzyuk et al. 2019: ŝ(ŝ(exp))(1) = e; the naive answer is 0."""
    # ŝ(ŝ(f)) = (f′)′ = f″, and exp″(1) = e.
    s_hat = D(shift)(0.0)
    close(s_hat(s_hat(exp))(1.0), E, of=float)
    exactly(s_hat(s_hat(lambda x: x ** 3))(2.0), 12)   # (x³)″ = 6x = 12 at 2


def test_paper_shift_hat_three_and_four_times():
    # ŝ³(sin) = sin‴ = −cos, ŝ⁴(sin) = sin; ŝ³(x⁵) = 60x² = 240 at 2, ŝ⁴(x⁵) = 120x = 240 at 2.
    s_hat = D(shift)(0.0)
    close(s_hat(s_hat(s_hat(sin)))(1.0), -math.cos(1.0), of=float)
    close(s_hat(s_hat(s_hat(s_hat(sin))))(1.0), math.sin(1.0), of=float)
    exactly(s_hat(s_hat(s_hat(lambda x: x ** 5)))(2.0), 240)
    exactly(s_hat(s_hat(s_hat(s_hat(lambda x: x ** 5))))(2.0), 240)


def test_shift_hat_at_a_nonzero_point():
    # ∂S/∂u at u = 2 is f′(x + 2): D(s)(2)(exp)(1) = e³.
    close(D(shift)(2.0)(exp)(1.0), math.exp(3.0), of=float)


# ---- DVL's amazing bug --------------------------------------------------------------------------

def test_dvl_amazing_bug():
    """axch/dysvunctional-language dvl/examples/amazing-bug.dvl:
    ((f-hat (f-hat exp)) 1.) ===> 1096.6331584284585 ; (exp 7)."""
    # F(x, g, y) = g(x + y), so f̂ = D(F)(3) maps g to y ↦ g′(3 + y).
    # f̂(exp) = y ↦ exp(3 + y);  f̂(f̂(exp)) = y ↦ d/dz exp(3 + z) at z = 3 + y = exp(6 + y).
    # At y = 1: e⁷.
    f_hat = D(amazing)(3.0)
    got = f_hat(f_hat(exp))(1.0)
    close(got, math.exp(7), of=float)
    close(got, 1096.6331584284585, of=float)


def test_scmutils_amazing_bug_values():
    """hnarayanan/sicm scmutils/src/kernel/diff.scm, "Alexey's Amazing Bug" comment:
    ((f-hat exp) 5) => 2980.9579870417283, and ((f-hat (f-hat exp)) 5) => 0 marked WRONG.
    Emmy's amazing-bug test gives the right value (exp 11)."""
    # f̂(exp)(5) = exp′(3 + 5) = e⁸;  f̂(f̂(exp))(5) = exp(6 + 5) = e¹¹ (see above).
    f_hat = D(amazing)(3.0)
    close(f_hat(exp)(5.0), math.exp(8), of=float)
    close(f_hat(exp)(5.0), 2980.9579870417283, of=float)
    close(f_hat(f_hat(exp))(5.0), math.exp(11), of=float)


def test_r6rs_ad_amazing_bug_should_be_7():
    """An R6RS-AD test script (should-be-7): (log ((f-hat (f-hat exp)) 1)) is 7."""
    # log(e⁷) = 7; the float e⁷ rounds so that log gives 7.0 exactly.
    f_hat = D(amazing)(3.0)
    close(log(f_hat(f_hat(exp))(1.0)), 7.0, of=float)


def test_amazing_bug_three_deep():
    # f̂(f̂(f̂(exp)))(y) = exp(9 + y): each f̂ differentiates once and shifts by 3.  At 1: e¹⁰.
    f_hat = D(amazing)(3.0)
    close(f_hat(f_hat(f_hat(exp)))(1.0), math.exp(10), of=float)


def test_amazing_bug_as_a_function_of_the_point():
    # H(u) = f̂_u(f̂_u(exp))(1) with f̂_u = D(F)(u): f̂_u(g)(y) = g′(u + y), so
    # H(u) = exp″(2u + 1) = e^(2u+1), and H′(u) = 2e^(2u+1) = 2e⁷ at u = 3.  Both modes.
    def H(u):
        return D(amazing)(u)(D(amazing)(u)(exp))(1.0)
    close(D(H)(3.0), 2 * math.exp(7), of=float)
    close(gradient_r(H)(3.0), 2 * math.exp(7), of=float)


def test_amazing_bug_inside_newer_operators():
    # y ↦ f̂(f̂(exp))(y) = exp(6 + y); its derivative at 1 is e⁷, in both modes.  The returned
    # functions were made before these operators' tags.
    f_hat = D(amazing)(3.0)
    close(D(lambda y: f_hat(f_hat(exp))(y))(1.0), math.exp(7), of=float)
    close(gradient_r(lambda y: f_hat(f_hat(exp))(y))(1.0), math.exp(7), of=float)


# ---- DVL amazing-bug-2 .. 5 and non-bug ---------------------------------------------------------

def dvl_pair(x):
    """amazing-bug-2.dvl: (cons (lambda (y) (sin (* x y))) (lambda (g) (lambda (z) (g (+ x z)))))."""
    return (lambda y: sin(x * y), lambda g: lambda z: g(x + z))


def test_dvl_amazing_bug_2_pair_of_functions():
    """dvl/examples/amazing-bug-2.dvl: ((f-hat g-hat) 3.14159) ===> 8.504448924508122,
    = ((lambda (y) (- (cos (* 3 y)) (* 3 y (sin (* 3 y))))) (+ 3.14159 3))."""
    # Each component is differentiated on its own:
    #   ĝ = y ↦ ∂x sin(xy) = y·cos(3y);   f̂ = g ↦ z ↦ ∂x g(x + z) = g′(3 + z).
    # f̂(ĝ)(z) = ĝ′(3 + z) = cos(3y) − 3y·sin(3y) at y = 3 + z.
    g_hat, f_hat = D(dvl_pair)(3.0)
    y = 3.0 + 3.14159
    close(f_hat(g_hat)(3.14159), math.cos(3 * y) - 3 * y * math.sin(3 * y), of=float)
    close(f_hat(g_hat)(3.14159), 8.504448924508122, of=float)
    m = mpmath.mpf(3) + mpmath.pi
    close(f_hat(g_hat)(math.pi), mpmath.cos(3 * m) - 3 * m * mpmath.sin(3 * m), of=float)  # Emmy's


def dvl_church(x):
    """amazing-bug-3.dvl: the same two functions, handed to a recipient (a Church pair)."""
    return lambda recipient: recipient(lambda y: sin(x * y), lambda g: lambda z: g(x + z))


def test_dvl_amazing_bug_3_church_pair():
    """dvl/examples/amazing-bug-3.dvl: ===> 8.32914929893078,
    = ((lambda (y) (* (cos (* 3 y)) (+ 3 y))) (+ 3 3.14159))."""
    # Uncurried: P(x, r) = r(g_x, f_x), and the recipient r = (ĝ, f̂) ↦ f̂(ĝ)(c) runs INSIDE
    # the derivative, so both functions share x's perturbation:
    #   P(x, r) = f_x(g_x)(c) = g_x(x + c) = sin(x(x + c)),
    #   ∂P/∂x = (2x + c)·cos(x(x + c)) = (3 + y)·cos(3y) at x = 3, y = 3 + c.
    c = 3.14159
    y = 3.0 + c
    got = D(dvl_church)(3.0)(lambda g_hat, f_hat: f_hat(g_hat)(c))
    close(got, (3 + y) * math.cos(3 * y), of=float)
    close(got, 8.32914929893078, of=float)
    m = mpmath.mpf(3) + mpmath.pi
    close(D(dvl_church)(3.0)(lambda g_hat, f_hat: f_hat(g_hat)(math.pi)),
          (3 + m) * mpmath.cos(3 * m), of=float)                                  # Emmy's


def test_dvl_amazing_bug_4_arguments_flipped():
    """dvl/examples/amazing-bug-4.dvl: ((derivative (f recip)) 3) ===> 8.32914929893078."""
    # The recipient comes first, so this is an ordinary derivative of x ↦ sin(x(x + c)):
    # the same (2x + c)·cos(x(x + c)) as amazing-bug-3.
    def f(recipient):
        return lambda x: recipient(lambda y: sin(x * y), lambda g: lambda z: g(x + z))

    def recip(g_hat, f_hat):
        return f_hat(g_hat)(3.14159)
    y = 3.0 + 3.14159
    close(D(f(recip))(3.0), (3 + y) * math.cos(3 * y), of=float)
    close(D(f(recip))(3.0), 8.32914929893078, of=float)


def test_dvl_amazing_bug_5_church_output():
    """dvl/examples/amazing-bug-5.dvl: (continue ((derivative sin) 1.)) ===> .2919265817264289;
    (((derivative (church-output sin)) 1.) continue) ===> .9092974268256818, and the flipped
    form and (derivative (lambda (x) (* (sin x) (sin x)))) give the same .9092974268256818."""
    def church_output(f):
        return lambda x: lambda recipient: recipient(f(x))

    def cont(v):
        return v * v

    def flip(f):
        return lambda x: lambda y: f(y)(x)
    # cont(sin′(1)) = cos²(1).
    close(cont(D(sin)(1.0)), math.cos(1.0) ** 2, of=float)
    close(cont(D(sin)(1.0)), 0.2919265817264289, of=float)
    # Uncurried: C(x, r) = r(sin x); with r = cont, ∂C/∂x = d/dx sin²x = 2 sin(1) cos(1).
    want = 2 * math.sin(1.0) * math.cos(1.0)
    close(D(church_output(sin))(1.0)(cont), want, of=float)
    close(D(church_output(sin))(1.0)(cont), 0.9092974268256818, of=float)
    # (((D f) x) y) = ((D ((flip f) y)) x): the same partial derivative.
    close(D(flip(church_output(sin))(cont))(1.0), want, of=float)
    close(D(lambda x: sin(x) * sin(x))(1.0), want, of=float)


def test_dvl_non_bug_church_pair_directional_derivative():
    """dvl/examples/non-bug.dvl: the directional derivative of f(x, y) = (x + y, x·y) at
    (7, 11) along (2, 3), on Church-encoded pairs ===> (5. . 43.)."""
    # J·v = (2 + 3, y·2 + x·3) = (5, 22 + 21) = (5, 43).
    def c_cons(a, d):
        return lambda recipient: recipient(a, d)

    def c_car(c):
        return c(lambda a, d: a)

    def c_cdr(c):
        return c(lambda a, d: d)

    def c_add(v1, v2):
        return c_cons(c_car(v1) + c_car(v2), c_cdr(v1) + c_cdr(v2))

    def c_scale(r, v):
        return c_cons(r * c_car(v), r * c_cdr(v))

    def c_directional_derivative(f, x, direction):
        return D(lambda dist: f(c_add(x, c_scale(dist, direction))))(0.0)

    def f(pt):
        return c_cons(c_car(pt) + c_cdr(pt), c_car(pt) * c_cdr(pt))
    result = c_directional_derivative(f, c_cons(7.0, 11.0), c_cons(2.0, 3.0))
    exactly(result(lambda a, d: (a, d)), (5, 43))
    exactly(c_car(result), 5)
    exactly(c_cdr(result), 43)


# ---- Emmy ---------------------------------------------------------------------------------------

def test_emmy_amazing_bug_shift_offset():
    """mentat-collective/emmy derivative_test.cljc, deftest amazing-bug, "alexey's amazing bug":
    (= (exp 8) ((f-hat exp) 5)) and (= (exp 11) ((f-hat (f-hat exp)) 5)); in the bug it was 0."""
    # shift(offset)(g)(a) = g(a + offset); f̂ = D(shift)(3): f̂(g)(a) = g′(a + 3).
    # f̂(exp)(5) = e⁸;  f̂(f̂(exp))(5) = exp″(5 + 3 + 3) = e¹¹.
    f_hat = D(shift)(3.0)
    close(f_hat(exp)(5.0), math.exp(8), of=float)
    close(f_hat(f_hat(exp))(5.0), math.exp(11), of=float)


def test_emmy_more_subtle_amazing_bug():
    """Emmy, deftest amazing-bug, "more subtle amazing bug!": v = u ↦ f1 ↦ f2 ↦ x ↦
    ((f1 f2) (+ x u)); v̂ = ((D v) 0); (= (exp 1) (((v-hat (v-hat identity)) exp) 1)).
    Plain conjugation (renaming the tag in the inputs and back in the outputs) gives 0."""
    # V(u, f1, f2, x) = f1(f2)(x + u); ∂V/∂u at 0 = d/dx [f1(f2)](x).
    # v̂(identity)(f2) = f2′, so v̂(identity) = the derivative operator, call it 𝒟.
    # v̂(𝒟)(f2)(x) = d/dx [𝒟(f2)](x) = f2″(x).  With f2 = exp at 1: e.
    v = lambda u: lambda f1: lambda f2: lambda x: f1(f2)(x + u)   # noqa: E731
    v_hat = D(v)(0.0)
    close(v_hat(lambda f: f)(exp)(1.0), E, of=float)
    close(v_hat(v_hat(lambda f: f))(exp)(1.0), E, of=float)
    close(v_hat(v_hat(lambda f: f))(sin)(1.0), -math.sin(1.0), of=float)


def test_emmy_church_box():
    """Emmy, deftest amazing-bug, "church box example" (the case that breaks treating functions
    as transparent to tag renaming): (= (exp 1) ((unwrap (wrapped-d-hat (wrapped-d-hat
    (wrap exp)))) 1))."""
    def box(x):
        return lambda m: m(x)

    def unbox(b):
        return b(lambda x: x)

    def wrap(f):
        return lambda b: box(f(unbox(b)))

    def unwrap(f):
        return lambda x: unbox(f(box(x)))

    def wrap2(f):
        return lambda g: lambda b: box(f(unwrap(g))(unbox(b)))

    def wrap2_result(f):
        return lambda x: wrap2(f(x))

    # wrap2_result(s)(x)(g)(b) = box(unwrap(g)(x + unbox b)); its ∂/∂x at 0, read through
    # unbox (the identity recipient, linear), is unwrap(g)′(unbox b): so the wrapped d̂ is the
    # boxed derivative operator, and two of them give exp″(1) = e.
    s = lambda x: lambda g: lambda y: g(x + y)                    # noqa: E731
    wrapped_d_hat = D(wrap2_result(s))(0.0)
    close(unwrap(wrapped_d_hat(wrap(exp)))(1.0), E, of=float)
    close(unwrap(wrapped_d_hat(wrapped_d_hat(wrap(exp))))(1.0), E, of=float)


def test_emmy_sams_amazing_bug():
    """Emmy, deftest sams-amazing-bug, with the literal function a(x, y) made concrete:
    a(x, y) = x³y² at t = 2.  Emmy states the symbolic forms: (((partial 0) a) t t),
    ((D g) t), the sum of both partials, and the mixed partial (* (partial 0) (partial 1))."""
    def a(x, y):
        return x ** 3 * y ** 2

    def f(x):
        return lambda cont: cont(lambda y: a(x, y), lambda g: g(x))
    # Uncurried: F(x, cont) = cont(y ↦ a(x, y), g ↦ g(x)).
    # cont = (f1, _) ↦ f1(t):        ∂x a(x, t) = 3x²t² = 48 at x = t = 2.
    exactly(D(f)(2.0)(lambda f1, _: f1(2.0)), 48)
    # cont = (_, f2) ↦ f2(sin):      ∂x sin(x) = cos(2).
    close(D(f)(2.0)(lambda _, f2: f2(sin)), math.cos(2.0), of=float)
    # cont = (f1, f2) ↦ f2(f1):      ∂x a(x, x) = 3x²x² + 2x³x = 5x⁴ = 80.
    exactly(D(f)(2.0)(lambda f1, f2: f2(f1)), 80)
    # Take f1, f2 out first (each differentiated on its own), then call f2(f1):
    #   f1′ = y ↦ ∂x a(x, y) = 3x²y²;  f2′ = g ↦ ∂x g(x) = g′(2);
    #   f2′(f1′) = ∂y (3·4·y²) at y = 2 = 24·2 = 48: the mixed partial ∂x∂y a = 6x²y = 48.
    f1, f2 = D(f)(2.0)(lambda *fs: fs)
    exactly(f2(f1), 48)


def test_emmy_partial_of_a_two_argument_function_valued_function():
    """Emmy, deftest partial-diff-test: F = (a, b) ↦ [x y] ↦ (up (* a x) (* b y));
    ((((partial 0) F) 1 1) (up 'x 'y)) = (up x 0), (((partial 1) F) 1 1) gives (up 0 y)."""
    # ∂/∂a (a·x, b·y) = (x, 0);  ∂/∂b = (0, y).  At (x, y) = (5, 7).
    def F(a, b):
        return lambda p: (a * p[0], b * p[1])
    exactly(D(lambda a: F(a, 1.0))(1.0)((5.0, 7.0)), (5, 0))
    exactly(D(lambda b: F(1.0, b))(1.0)((5.0, 7.0)), (0, 7))
    exactly(directional_derivative(lambda q: F(q[0], q[1]), (1.0, 1.0), (1.0, 0.0))((5.0, 7.0)),
            (5, 0))
    exactly(directional_derivative(lambda q: F(q[0], q[1]), (1.0, 1.0), (0.0, 1.0))((5.0, 7.0)),
            (0, 7))


def test_emmy_delta_eta_variations():
    """Emmy, deftest delta-eta-tests (SICM eq. 1.22: δ_η f[q] = Dg(0) with g(ε) = f(q + εη)):
    (((D g) 'dt) 'a) = (η a), ((δη I) q) t = (η t), ((δη F) q) t = (* (η t) ((D f) (q t))),
    and the chain rule (* (η t) ((D f) (q t)) ((D φ) (f (q t)))).  Here q(t) = t², η(t) = t³,
    f = sin, φ = exp, t = 2."""
    q = lambda t: t * t                                           # noqa: E731
    eta = lambda t: t * t * t                                     # noqa: E731

    def variation(eta):
        # δ_η F [q] = ∂/∂ε F(q + εη) at ε = 0: a function of t when F(q) is.
        return lambda F: lambda q: D(lambda e: F(lambda t: q(t) + e * eta(t)))(0.0)
    # g(ε) = q + εη (a path); ∂g/∂ε = η, whatever ε: η(1.5) = 3.375.
    g = lambda e: lambda t: q(t) + e * eta(t)                     # noqa: E731
    exactly(D(g)(0.25)(1.5), 3.375)
    exactly(variation(eta)(lambda q: q)(q)(2.0), 8)              # δη I = η: η(2) = 8
    F = lambda q: lambda t: sin(q(t))                             # noqa: E731
    # δη F q t = η(t)·cos(q(t)) = 8 cos 4.
    close(variation(eta)(F)(q)(2.0), 8 * math.cos(4.0), of=float)
    phi_F = lambda q: lambda t: exp(F(q)(t))                      # noqa: E731
    # δη (φ∘F) q t = η(t)·cos(q(t))·exp(sin(q(t))) = 8 cos 4 · e^(sin 4).
    close(variation(eta)(phi_F)(q)(2.0),
          8 * mpmath.cos(4) * mpmath.exp(mpmath.sin(4)), of=float)


# ---- Sam Ritchie's examples in the R6RS reference script ---------------------------------------

def test_r6rs_amazing_bug_through_a_continuation():
    """R6RS script: with arg-shift-cont, "If you use cont==identity, ((f-hat (f-hat dexp)) 5))
    returns (exp 11)"; "If you evaluate ((f-hat (f-hat dexp)) 5)) inside a continuation you get
    (* 2 (exp 11))"."""
    def arg_shift_cont(offset):
        return lambda cont: cont(lambda g: lambda a: g(a + offset))
    # cont = identity: the continuation returns the function itself, so f̂ is D(shift)(3) and
    # f̂(f̂(exp))(5) = e¹¹ as before.
    f_hat = D(arg_shift_cont)(3.0)(lambda h: h)
    close(f_hat(f_hat(exp))(5.0), math.exp(11), of=float)
    # Inside the continuation one offset u feeds both shifts: C(u) = exp(5 + u + u), and
    # ∂C/∂u = 2e¹¹ at u = 3.
    close(D(arg_shift_cont)(3.0)(lambda fh: fh(fh(exp))(5.0)), 2 * math.exp(11), of=float)


def test_r6rs_two_shifts_cont2():
    """R6RS script, cont2: f-hat1 = (d-shift 1), f-hat2 = (d-shift 2),
    ((f-hat1 (f-hat2 dexp)) 2); with separate tags per call the answer is (exp 5)."""
    # f̂_u(g)(a) = g′(a + u):  f̂₁(f̂₂(exp))(2) = exp″(2 + 1 + 2) = e⁵.
    d_shift = D(shift)
    close(d_shift(1.0)(d_shift(2.0)(exp))(2.0), math.exp(5), of=float)


def test_r6rs_sams_second_example():
    """R6RS script, "Sam's Second Example": f = x ↦ cont ↦ ((cont (y ↦ x·x·y)) (g ↦ g(x))),
    at x = 2: case 1 (f2 f1) inside the continuation, case 2 through a Church pair (kons)."""
    def f(x):
        return lambda cont: cont(lambda y: x * x * y)(lambda g: g(x))

    def kons(a):
        return lambda d: lambda m: m(a)(d)

    def kar(p):
        return p(lambda a: lambda d: a)

    def kdr(p):
        return p(lambda a: lambda d: d)
    # Case 1, inside: F(x) = f2(f1) = f1(x) = x³, F′(2) = 12.
    exactly(D(f)(2.0)(lambda f1: lambda f2: f2(f1)), 12)
    # No derivative at all: f1(2) = 2·2·2 = 8.
    pair = f(2.0)(lambda f1: lambda f2: kons(f1)(f2))
    exactly(kdr(pair)(kar(pair)), 8)
    # The pair leaves the derivative, so kar and kdr each take their own ∂/∂x:
    #   f1′ = y ↦ ∂x x²y = 2xy = 4y;  f2′ = g ↦ g′(2);  f2′(f1′) = 4: the mixed partial
    #   ∂x∂y (x²y) = 2x = 4.
    pair = D(f)(2.0)(lambda f1: lambda f2: kons(f1)(f2))
    exactly(kdr(pair)(kar(pair)), 4)


# ---- returned functions of several arguments ---------------------------------------------------

def test_scmutils_returned_function_of_two_arguments():
    """hnarayanan/sicm scmutils/src/kernel/diff.scm: "2011 buggy version: did not handle
    derivative functions with multiple args; (define ((f x) y z) (* x y z));
    (((D f) 2) 3 4) should return 12"."""
    # ∂/∂x (x·y·z) = y·z = 12.
    exactly(D(lambda x: lambda y, z: x * y * z)(2)(3, 4), 12)
    exactly(D(lambda x: lambda y, z: x * y * z)(2.0)(3.0, 4.0), 12)


def test_returned_function_positional_and_keyword_arguments():
    # G(x, y, scale, shift) = scale·x²·y + shift·x;  ∂G/∂x = 2·scale·x·y + shift.
    def f(x):
        return lambda y, *, scale=1.0, shift=0.0: scale * x * x * y + shift * x
    g = D(f)(3.0)
    exactly(g(2.0), 12)                          # 2·1·3·2 + 0
    exactly(g(2.0, scale=5.0), 60)               # 2·5·3·2
    exactly(g(2.0, shift=7.0), 19)               # 12 + 7
    exactly(g(y=2.0, scale=5.0, shift=7.0), 67)  # 60 + 7
    # A perturbed keyword argument: d/ds ∂G/∂x(3, 2, scale=s) = d/ds (12s) = 12, both modes.
    exactly(D(lambda s: g(2.0, scale=s))(5.0), 12)
    exactly(gradient_r(lambda s: g(2.0, scale=s))(5.0), 12)


def test_returned_function_varargs_and_thunk():
    # ∂/∂x (x · Σ ys) = Σ ys;  ∂/∂x x³ = 3x² = 27 at 3.
    exactly(D(lambda x: lambda *ys: x * sum(ys))(3.0)(1.0, 2.0, 4.0), 7)
    exactly(D(lambda x: lambda: x ** 3)(3.0)(), 27)


def test_returned_function_of_a_structure():
    # ∂/∂x of p ↦ (x·p0, x²·p1, {"s": x·p0·p1}) = (p0, 2x·p1, {"s": p0·p1}) at x = 3, p = (2, 5).
    g = D(lambda x: lambda p: (x * p[0], x * x * p[1], {"s": x * p[0] * p[1]}))(3.0)
    exactly(g((2.0, 5.0)), (2, 30, {"s": 10}))


# ---- functions inside tuples, lists and dicts --------------------------------------------------

def test_functions_inside_tuple_list_dict_alongside_numbers():
    # Each component on its own, at x = 2:
    #   x²           → 2x = 4
    #   y ↦ x·y      → y ↦ y
    #   [x, y ↦ x³y] → [1, y ↦ 3x²y = 12y]
    #   {"k": () ↦ x³, "n": 2x, "c": 5} → {"k": () ↦ 12, "n": 2, "c": 0}
    def f(x):
        return (x * x, lambda y: x * y, [x, lambda y: x ** 3 * y],
                {"k": lambda: x ** 3, "n": 2 * x, "c": 5.0})
    r = D(f)(2.0)
    assert isinstance(r, tuple) and isinstance(r[2], list) and isinstance(r[3], dict)
    exactly(r[0], 4)
    exactly(r[1](5.0), 5)
    exactly(r[2][0], 1)
    exactly(r[2][1](1.0), 12)
    exactly(r[2][1](2.0), 24)
    exactly(r[3]["k"](), 12)
    exactly(r[3]["n"], 2)
    exactly(r[3]["c"], 0)
    assert list(r[3]) == ["k", "n", "c"]


def test_function_in_a_namedtuple():
    # P(value = x², fn = y ↦ x²y) → P(2x = 6, y ↦ 2xy = 12 at y = 2), at x = 3.
    P = collections.namedtuple("P", "value fn")
    r = D(lambda x: P(x * x, lambda y: x * x * y))(3.0)
    assert type(r) is P
    exactly(r.value, 6)
    exactly(r.fn(2.0), 12)


def test_one_function_twice_in_a_structure():
    # The same closure in two places: each place is its own component, and calling one does not
    # disturb the other.  ∂/∂x (x²y) = 2xy = 12 at x = 3, y = 2.
    def f(x):
        h = lambda y: x * x * y                                    # noqa: E731
        return (h, h)
    a, b = D(f)(3.0)
    exactly(a(2.0), 12)
    exactly(b(2.0), 12)
    exactly(a(5.0), 30)


def test_returned_function_returning_structure_with_function():
    # F(x, y) = (z ↦ x·y·z, x·y): ∂x = (z ↦ y·z, y).  At x = 2, y = 3, z = 4: (12, 3).
    r = D(lambda x: lambda y: (lambda z: x * y * z, x * y))(2.0)(3.0)
    exactly(r[0](4.0), 12)
    exactly(r[1], 3)


def test_functions_in_a_pair_with_jvp_primal_and_tangent():
    # jvp of x ↦ (x², y ↦ x·y) at x = 3 along 2: primal (9, y ↦ 3y), tangent (12, y ↦ 2y).
    (value, fn), (dvalue, dfn) = jvp(lambda x: (x * x, lambda y: x * y), 3.0, 2.0)
    exactly(value, 9)
    exactly(fn(5.0), 15)
    exactly(dvalue, 12)
    exactly(dfn(5.0), 10)


# ---- Church-encoded pairs and continuation-passing style ---------------------------------------

def cons(a, d):
    return lambda m: m(a, d)


def car(p):
    return p(lambda a, d: a)


def cdr(p):
    return p(lambda a, d: d)


def test_church_pair_components():
    # P(x, m) = m(x², sin x).  car reads ∂x x² = 2x = 4; cdr reads ∂x sin x = cos 2.
    p = D(lambda x: cons(x * x, sin(x)))(2.0)
    exactly(car(p), 4)
    close(cdr(p), math.cos(2.0), of=float)


def test_church_pair_with_a_nonlinear_selector():
    # The selector runs inside the derivative: ∂x (x² · sin x) = 2x sin x + x² cos x.
    p = D(lambda x: cons(x * x, sin(x)))(2.0)
    close(p(lambda a, d: a * d), 4 * mpmath.sin(2) + 4 * mpmath.cos(2), of=float)
    # An ordinary tuple is differentiated first and then multiplied: 4 · cos 2, not the above.
    a, d = D(lambda x: (x * x, sin(x)))(2.0)
    close(a * d, 4 * math.cos(2.0), of=float)


def test_church_pair_nested_and_swapped():
    # swap(cons(a, d)) = cons(d, a); nesting a Church pair in a Church pair.
    # P(x) = cons(cons(x, x²), x³):  car(car) → 1, cdr(car) → 2x = 6, cdr → 3x² = 27 at 3.
    p = D(lambda x: cons(cons(x, x * x), x ** 3))(3.0)
    exactly(car(car(p)), 1)
    exactly(cdr(car(p)), 6)
    exactly(cdr(p), 27)
    swap = lambda p: cons(cdr(p), car(p))                          # noqa: E731
    q = D(lambda x: swap(cons(x, x * x)))(3.0)
    exactly(car(q), 6)
    exactly(cdr(q), 1)


def test_continuation_passing_style():
    # K(x, k) = k(x²).  k = identity: 2x = 6;  k = v ↦ v²: ∂x x⁴ = 4x³ = 108 at 3.
    g = D(lambda x: lambda k: k(x * x))(3.0)
    exactly(g(lambda v: v), 6)
    exactly(g(lambda v: v * v), 108)

    # A CPS power: pow_k(x, n, k) = k(xⁿ), built up one multiplication per continuation.
    def pow_k(x, n, k):
        return k(1.0) if n == 0 else pow_k(x, n - 1, lambda r: k(r * x))
    exactly(D(lambda x: pow_k(x, 5, lambda v: v))(2.0), 80)           # 5x⁴ = 80
    exactly(D(lambda x: lambda k: pow_k(x, 5, k))(2.0)(lambda v: v), 80)
    exactly(D(lambda x: lambda k: pow_k(x, 3, k))(2.0)(lambda v: v * v), 192)   # 6x⁵

    # A continuation that receives a function: K(x, k) = k(y ↦ x·y).
    exactly(D(lambda x: lambda k: k(lambda y: x * y))(3.0)(lambda h: h(h(2.0))), 12)
    # h = y ↦ x·y, so k(h) = h(h(2)) = 2x², and ∂x = 4x = 12 at 3.


# ---- returned functions that call derivative or gradient_r themselves --------------------------

def test_returned_function_calls_derivative():
    # F(x, y) = ∂z (x·z²·y) at z = y = 2x·y·y = 2xy²;  ∂x F = 2y² = 8 at y = 2.
    g = D(lambda x: lambda y: D(lambda z: x * z * z * y)(y))(3.0)
    exactly(g(2.0), 8)


def test_returned_function_calls_gradient_r():
    # F(x, y) = ∇_p (x·p0·p1) at p = (y, 2y) = (x·2y, x·y);  ∂x F = (2y, y) = (10, 5) at y = 5.
    g = D(lambda x: lambda y: gradient_r(lambda p: x * p[0] * p[1])((y, 2 * y)))(3.0)
    exactly(g(5.0), (10, 5))


def test_returned_function_returns_a_derivative_function():
    # F(x, y) = D(z ↦ x·z·y), a function of z with value x·y;  ∂x → (z ↦ y): 2 at y = 2.
    g = D(lambda x: lambda y: D(lambda z: x * z * y))(3.0)
    exactly(g(2.0)(5.0), 2)


# ---- a returned function called later inside a newer operator ----------------------------------

def test_returned_function_inside_newer_gradient_r():
    """/work/shared/DESIGN-NOTES.md ("Functions as results", the hard case):
    gradient_r(derivative(lambda x: lambda y: x*x*y*y)(2.0))(3.0) must be 24."""
    # h(y) = ∂x (x²y²) at x = 2 = 4y²;  h′(y) = 8y = 24 at 3.  The reverse tag is newer than the
    # derivative's tag, so the derivative's x would sit under a live newer tape.
    h = D(lambda x: lambda y: x * x * y * y)(2.0)
    exactly(gradient_r(h)(3.0), 24)


def test_returned_function_inside_newer_derivative():
    # h(y) = 4y² as above: h′(3) = 24, h″ = 8; d/dt [h(t)·t] = d/dt 4t³ = 12t² = 108 at 3.
    h = D(lambda x: lambda y: x * x * y * y)(2.0)
    exactly(D(h)(3.0), 24)
    exactly(D(D(h))(3.0), 8)
    exactly(D(lambda t: h(t) * t)(3.0), 108)
    exactly(gradient_r(lambda t: h(t) * t)(3.0), 108)


def test_returned_function_of_two_numbers_inside_gradient_r():
    # h(y, z) = ∂x (x²yz) at x = 3 = 6yz;  ∇h = (6z, 6y) = (30, 12) at (2, 5).
    h = D(lambda x: lambda y, z: x * x * y * z)(3.0)
    exactly(gradient_r(lambda p: h(p[0], p[1]))((2.0, 5.0)), (30, 12))
    exactly(dvlad.hessian(lambda p: h(p[0], p[1]))((2.0, 5.0)), [[0, 6], [6, 0]])


@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
def test_returned_function_inside_vjp_jacobian_r_and_hvp(mode):
    # h(y) = 4y² (as above).  vjp at 3: value 36, pullback ȳ ↦ 24ȳ.
    # (h(p0), h(p1)) has Jacobian diag(8p0, 8p1) = diag(8, 24) at (1, 3).
    # H of h(p0)·p1 = 4p0²p1 is [[8p1, 8p0], [8p0, 0]]; times (1, 0) at (3, 2): (16, 24).
    h = D(lambda x: lambda y: x * x * y * y)(2.0)
    value, back = dvlad.vjp(h, 3.0)
    exactly(value, 36)
    exactly(back(1.0), 24)
    exactly(back(2.0), 48)
    exactly(dvlad.jacobian_r(lambda p: (h(p[0]), h(p[1])))((1.0, 3.0)), [[8, 0], [0, 24]])
    exactly(dvlad.hvp(lambda p: h(p[0]) * p[1], (3.0, 2.0), (1.0, 0.0), mode=mode), (16, 24))


def test_returned_function_given_a_function_over_a_newer_tape():
    # f̂(g)(a) = g′(a + 3) with g = z ↦ exp(z·y): g′(z) = y·e^(zy), so at a = 1 (z = 4) the value
    # is y·e^(4y), and d/dy = e^(4y)(1 + 4y) = 9e⁸ at y = 2.
    f_hat = D(amazing)(3.0)
    close(gradient_r(lambda y: f_hat(lambda z: exp(z * y))(1.0))(2.0), 9 * mpmath.exp(8), of=float)
    close(D(lambda y: f_hat(lambda z: exp(z * y))(1.0))(2.0), 9 * mpmath.exp(8), of=float)


def test_returned_function_inside_nested_gradient_r():
    # Inside the outer gradient_r (over y): fn(z) = ∂x (x²zy) at x = y = 2yzy = 2y²z; the inner
    # gradient_r of w ↦ fn(w)·y is 2y³; d/dy 2y³ = 6y² = 24 at 2.
    def outer(y):
        fn = D(lambda x: lambda z: x * x * z * y)(y)
        return gradient_r(lambda w: fn(w) * y)(1.0)
    exactly(gradient_r(outer)(2.0), 24)
    exactly(D(outer)(2.0), 24)


def test_hessian_through_a_returned_function():
    # f̂(g)(a) = g′(a + 3) with g = z ↦ p0·z²: 2·p0·(p1 + 3).  Hessian in (p0, p1): [[0, 2], [2, 0]].
    f_hat = D(amazing)(3.0)
    exactly(dvlad.hessian(lambda p: f_hat(lambda z: p[0] * z * z)(p[1]))((2.0, 1.0)),
            [[0, 2], [2, 0]])


# ---- curried depth 3 ---------------------------------------------------------------------------

def test_curried_depth_three_every_level():
    # f(x)(y)(z) = x²·y·z³ at (x, y, z) = (3, 2, 5).
    def f(x):
        return lambda y: lambda z: x * x * y * z ** 3
    # The value and every returned level as a function:
    value, tangent = jvp(f, 3.0, 1.0)
    assert callable(value) and callable(value(2.0))
    exactly(value(2.0)(5.0), 2250)                        # 9·2·125
    assert callable(D(f)(3.0)) and callable(D(f)(3.0)(2.0))
    exactly(tangent(2.0)(5.0), 1500)                      # ∂x = 2xyz³ = 2·3·2·125
    exactly(D(f)(3.0)(2.0)(5.0), 1500)
    exactly(D(D(f))(3.0)(2.0)(5.0), 500)                  # ∂x² = 2yz³
    exactly(D(D(f)(3.0))(2.0)(5.0), 750)                  # ∂y∂x = 2xz³
    exactly(D(D(f)(3.0)(2.0))(5.0), 900)                  # ∂z∂x = 2xy·3z²
    exactly(D(lambda x: D(lambda y: D(lambda z: f(x)(y)(z))(5.0))(2.0))(3.0), 450)   # 2x·3z²
    exactly(D(lambda y: f(3.0)(y)(5.0))(2.0), 1125)       # ∂y = x²z³
    exactly(D(f(3.0)(2.0))(5.0), 1350)                    # ∂z = x²y·3z²
    exactly(gradient_r(lambda p: f(p[0])(p[1])(p[2]))((3.0, 2.0, 5.0)), (1500, 1125, 1350))


def test_nested_derivatives_of_a_function_valued_function():
    # Outer: a ↦ D(x ↦ (y ↦ a·x·y))(a) = y ↦ ∂x (a·x·y) = y ↦ a·y;  ∂a → y ↦ y: 5 at y = 5.
    exactly(D(lambda a: D(lambda x: lambda y: a * x * y)(a))(2.0)(5.0), 5)
    # The returned function called with the outer perturbation: ∂x' g(x') at x' = x for
    # g = z ↦ z·x is x, so the inner value is x and its derivative is 1.
    exactly(D(lambda x: D(lambda x2: lambda g: g(x2))(x)(lambda z: z * x))(2.0), 1)


# ---- derivative of a function-valued function inside the outer gradient_r of something else -----

def test_function_valued_derivative_inside_outer_gradient_r():
    # g(a, b) = D(x ↦ (y ↦ x²·y·b))(a)(a) = 2x·y·b at x = y = a = 2a²b.
    # ∇g = (4ab, 2a²) = (24, 18) at (3, 2).
    def g(p):
        a, b = p
        return D(lambda x: lambda y: x * x * y * b)(a)(a)
    exactly(gradient_r(g)((3.0, 2.0)), (24, 18))
    exactly(dvlad.gradient_f(g)((3.0, 2.0)), (24, 18))


def test_function_valued_derivative_inside_outer_gradient_r_transcendental():
    # g(a, b) = D(x ↦ (y ↦ a·sin(x·y)))(b)(a·b) = a·y·cos(b·y) at y = ab = a²b·cos(ab²).
    # ∂a = 2ab·cos(ab²) − a²b³·sin(ab²);  ∂b = a²·cos(ab²) − 2a³b²·sin(ab²).
    def g(p):
        a, b = p
        return D(lambda x: lambda y: a * sin(x * y))(b)(a * b)
    a, b = mpmath.mpf("0.5"), mpmath.mpf("1.5")
    ga, gb = gradient_r(g)((0.5, 1.5))
    close(ga, 2 * a * b * mpmath.cos(a * b * b) - a * a * b ** 3 * mpmath.sin(a * b * b), of=float)
    close(gb, a * a * mpmath.cos(a * b * b) - 2 * a ** 3 * b * b * mpmath.sin(a * b * b), of=float)


def test_derivative_over_gradient_r_over_a_returned_function():
    # Inner: ∂x (a·x·y²) = a·y²; its gradient in y at 3 is 2·a·3 = 6a; d/da = 6.
    exactly(D(lambda a: gradient_r(D(lambda x: lambda y: a * x * y * y)(a))(3.0))(2.0), 6)
    exactly(gradient_r(lambda a: gradient_r(D(lambda x: lambda y: a * x * y * y)(a))(3.0))(2.0),
            6)


# ---- jvp and directional_derivative with function-valued results -------------------------------

def test_jvp_of_a_function_valued_function():
    # F(q, y) = q0·q1·y at q = (2, 3):  value y ↦ 6y;  along (1, 0): ∂q0 = q1·y = 3y.
    value, tangent = jvp(lambda q: lambda y: q[0] * q[1] * y, (2.0, 3.0), (1.0, 0.0))
    exactly(value(5.0), 30)
    exactly(tangent(5.0), 15)


def test_directional_derivative_of_a_function_valued_function():
    # Along (1, 1): (q1 + q0)·y = 5y = 25 at y = 5.
    dd = directional_derivative(lambda q: lambda y: q[0] * q[1] * y, (2.0, 3.0), (1.0, 1.0))
    exactly(dd(5.0), 25)
    # Called inside a newer gradient_r: d/dy 5y = 5.
    exactly(gradient_r(dd)(4.0), 5)
    # A structure of functions and numbers: x ↦ {"v": x², "f": y ↦ x·y} at 3 along 2.
    dd = directional_derivative(lambda x: {"v": x * x, "f": lambda y: x * y}, 3.0, 2.0)
    exactly(dd["v"], 12)
    exactly(dd["f"](7.0), 14)


def test_directional_derivative_with_a_perturbed_direction():
    # DD(s) = (s·q1 + q0)·t = (3s + 2)·4 at t = 4; d/ds = 12.
    def dd_of(s):
        return directional_derivative(lambda q: lambda t: q[0] * q[1] * t,
                                      (2.0, 3.0), (s, 1.0))(4.0)
    exactly(D(dd_of)(1.0), 12)
    exactly(gradient_r(dd_of)(1.0), 12)


# ---- what is refused ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [(1.0, math.sin), [1.0, lambda y: y], {"a": 1.0, "f": print},
                                 (1.0, D(adder)(3.0))])
def test_gradient_r_with_a_function_inside_its_input(bad):
    with pytest.raises(dvlad.NotDifferentiableError) as info:
        gradient_r(lambda p: p[0] if not isinstance(p, dict) else p["a"])(bad)
    assert isinstance(info.value, TypeError)
    assert "function" in str(info.value)


@pytest.mark.parametrize("op", ["gradient_r", "gradient_f", "vjp", "jacobian_f", "jacobian_r",
                                "hessian"])
def test_function_valued_result_refused_where_one_number_or_numbers_are_needed(op):
    # gradient_r's value must be one real number; vjp/jacobians/hessian need numbers to pull back
    # or to tabulate.  A function there is a TypeError naming 'function'.
    f = lambda x: lambda y: x * y                                  # noqa: E731
    g = lambda x: (x, lambda y: x * y)                             # noqa: E731
    calls = {
        "gradient_r": lambda: gradient_r(f)(2.0),
        "gradient_f": lambda: dvlad.gradient_f(f)(2.0),
        "vjp": lambda: dvlad.vjp(g, 2.0),
        "jacobian_f": lambda: dvlad.jacobian_f(g)(2.0),
        "jacobian_r": lambda: dvlad.jacobian_r(g)(2.0),
        "hessian": lambda: dvlad.hessian(f)(2.0),
    }
    with pytest.raises(dvlad.NotDifferentiableError) as info:
        calls[op]()
    assert isinstance(info.value, TypeError)
    assert "function" in str(info.value)


def test_gradient_r_of_a_returned_function_value_is_refused():
    # The derivative's returned function is fine to call inside gradient_r, but gradient_r of a
    # function-valued function is refused.
    with pytest.raises(TypeError, match="function"):
        gradient_r(lambda x: D(amazing)(x))(3.0)


# ---- the cost of eta-expansion -----------------------------------------------------------------

def test_cost_the_body_runs_again_on_each_application():
    """The documented cost: every full application of a returned function runs f's body again
    (a fresh derivative each time), so side effects repeat and work done in f before it returns
    the function is not shared between applications."""
    runs = []

    def f(x):
        runs.append("f")                          # a side effect
        table = [x ** k for k in range(4)]        # work done once per run of f
        return lambda k, y: table[k] * y
    g = D(f)(2.0)
    created = len(runs)
    assert created in (1, 2)                      # today 2: the first run finds a function
    # ∂x (x^k·y) = k·x^(k−1)·y:  k = 3, y = 1 → 12;  k = 2, y = 5 → 20.
    for n, (k, y, want) in enumerate([(3, 1.0, 12), (2, 5.0, 20), (3, 1.0, 12)], 1):
        exactly(g(k, y), want)
        assert len(runs) == created + n           # one more run of f per application
    # jvp's primal function re-runs f at the point too, once per application.
    runs.clear()
    value, _ = jvp(f, 2.0, 1.0)
    before = len(runs)
    exactly(value(3, 1.0), 8)
    exactly(value(3, 1.0), 8)
    assert len(runs) == before + 2


def test_cost_state_is_read_when_the_function_is_applied():
    """A consequence of re-running f: what f reads from outside is read at application time."""
    state = {"k": 1.0}

    def f(x):
        k = state["k"]                            # read when f runs
        return lambda y: k * x * y
    g = D(f)(2.0)
    exactly(g(3.0), 3)                            # ∂x (k·x·y) = k·y with k = 1
    state["k"] = 10.0
    exactly(g(3.0), 30)                           # f ran again and read k = 10


def test_cost_amazing_bug_counts_runs_of_f():
    # Every call of a returned function runs f once, even a call that returns a function again:
    # f̂(exp) runs it once, f̂(inner) once, and outer(1) twice (outer's own run, then inner's run
    # when outer calls inner).  So f̂(f̂(exp))(1) runs `amazing` 4 times after f̂ is made.
    runs = []

    def counted(x):
        runs.append(x)
        return amazing(x)
    f_hat = D(counted)(3.0)
    runs.clear()
    inner = f_hat(exp)
    assert len(runs) == 1
    outer = f_hat(inner)
    assert len(runs) == 2
    close(outer(1.0), math.exp(7), of=float)
    assert len(runs) == 4
    close(inner(4.0), math.exp(7), of=float)
    assert len(runs) == 5


@pytest.mark.parametrize("make", [functools.partial, lambda g, *a: (lambda *b: g(*a, *b))])
def test_returned_callables_that_are_not_plain_functions(make):
    # A functools.partial (or any callable) in the result is a function too:
    # ∂x (x·a·b) with a = x: ∂x (x²·b) = 2xb = 12 at x = 3, b = 2.
    exactly(D(lambda x: make(lambda a, b: x * a * b, x))(3.0)(2.0), 12)
