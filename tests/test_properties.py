"""Property tests: the modes agree with each other on random expressions.

A hypothesis strategy builds expression trees over a few variables from smooth, everywhere-defined
compositions of dvlad's primitives (exp∘sin, log(1 + e²), √(1 + e²), tanh, atan, e/(1 + e²),
(1.5 + sin e)^(cos e), ...), with sums, differences and products, at depth ≤ 4 so that values stay
finite.  Then, at random points in [-2, 2]:

- forward (gradient_f) == reverse (gradient_r);
- the four HVP modes fr, rf, rr, ff agree, and equal the Hessian times v;
- the four nestings FF, FR, RF, RR of a second derivative agree;
- Hessians are symmetric, and equal to the reverse-over-reverse Jacobian of the gradient;
- jacobian_f == jacobian_r.

The agreement tolerance is 1e-12 relative to the size of the value compared against (with a
floor of 1, since an entry that cancels to ~0 carries the rounding error of its larger terms),
and both values must be finite: support.close(a, b, RTOL, floor=1).
"""
from hypothesis import given
from hypothesis import strategies as st

import dvlad as ad
from support import close

N_VARS = 3
MAX_DEPTH = 4
RTOL = 1e-12

UNARY = {
    "exp_sin": lambda e: ad.exp(ad.sin(e)),
    "log_1p_sq": lambda e: ad.log(1 + e * e),
    "log1p_sq": lambda e: ad.log1p(e * e),
    "sqrt_1p_sq": lambda e: ad.sqrt(1 + e * e),
    "tanh": ad.tanh,
    "atan": ad.atan,
    "sin": ad.sin,
    "cos": ad.cos,
    "neg": lambda e: -e,
    "square": lambda e: e ** 2,
    "cube_via_pow": lambda e: ad.pow(e, 3),
    "over_1p_sq": lambda e: e / (1 + e * e),
    "pow_pos": lambda e: ad.pow(1.5 + ad.sin(e), ad.cos(e)),
    "hypot_1": lambda e: ad.hypot(e, 1.0),
    "atan2_pos": lambda e: ad.atan2(e, 2 + ad.sin(e)),
    "sinh_tanh": lambda e: ad.sinh(ad.tanh(e)),
    "cosh_sin": lambda e: ad.cosh(ad.sin(e)),
    "expm1_cos": lambda e: ad.expm1(ad.cos(e)),
    "asin_half_tanh": lambda e: ad.asin(ad.tanh(e) / 2),
}

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div_1p_sq": lambda a, b: a / (1 + b * b),
    "add_prim": ad.add,
    "mul_prim": ad.mul,
}

coords = st.floats(min_value=-2.0, max_value=2.0, allow_nan=False, allow_infinity=False)


def expressions(n_vars, depth=MAX_DEPTH):
    """Expression trees over variables 0..n_vars-1: ("var", i), ("const", c), (op, child...)."""
    leaf = st.one_of(
        st.tuples(st.just("var"), st.integers(0, n_vars - 1)),
        st.tuples(st.just("var"), st.integers(0, n_vars - 1)),   # variables twice as likely
        st.tuples(st.just("const"), coords),
    )
    if depth == 0:
        return leaf
    sub = expressions(n_vars, depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(sorted(UNARY)), sub),
        st.tuples(st.sampled_from(sorted(BINARY)), sub, sub),
    )


def evaluate(tree, env):
    op = tree[0]
    if op == "var":
        return env[tree[1]]
    if op == "const":
        return tree[1]
    if op in UNARY:
        return UNARY[op](evaluate(tree[1], env))
    return BINARY[op](evaluate(tree[1], env), evaluate(tree[2], env))


def function_of(tree):
    return lambda p: evaluate(tree, p)


def scalar_function_of(tree):
    return lambda x: evaluate(tree, (x,))


def points(n):
    return st.tuples(*[coords] * n)


@given(expressions(N_VARS), points(N_VARS))
def test_forward_gradient_equals_reverse_gradient(tree, p):
    f = function_of(tree)
    gf = ad.gradient_f(f)(p)
    gr = ad.gradient_r(f)(p)
    assert type(gf) is tuple and type(gr) is tuple
    close(gf, gr, RTOL, floor=1, what="gradient")


@given(expressions(N_VARS), points(N_VARS), points(N_VARS))
def test_the_four_hvp_modes_agree(tree, p, v):
    f = function_of(tree)
    fr = ad.hvp(f, p, v, "fr")
    for mode in ("rf", "rr", "ff"):
        close(ad.hvp(f, p, v, mode), fr, RTOL, floor=1, what=f"hvp {mode} vs fr")
    h = ad.hessian(f)(p)
    hv = [sum(h[i][j] * v[j] for j in range(N_VARS)) for i in range(N_VARS)]
    close(hv, fr, RTOL, floor=1, what="H·v vs hvp")


@given(expressions(1), coords)
def test_the_four_nestings_of_a_second_derivative_agree(tree, x):
    f = scalar_function_of(tree)
    D, R = ad.derivative, ad.gradient_r
    ff = D(D(f))(x)
    for name, d2 in (("FR", D(R(f))), ("RF", R(D(f))), ("RR", R(R(f)))):
        close(d2(x), ff, RTOL, floor=1, what=f"{name} vs FF")


@given(expressions(1), coords)
def test_first_derivative_forward_equals_reverse_scalar(tree, x):
    f = scalar_function_of(tree)
    close(ad.derivative(f)(x), ad.gradient_r(f)(x), RTOL, floor=1, what="D vs R")


@given(expressions(N_VARS), points(N_VARS))
def test_hessian_is_symmetric_and_matches_reverse_over_reverse(tree, p):
    f = function_of(tree)
    h = ad.hessian(f)(p)
    assert len(h) == N_VARS and all(len(row) == N_VARS for row in h)
    for i in range(N_VARS):
        for j in range(i + 1, N_VARS):
            close(h[i][j], h[j][i], RTOL, floor=1, what=f"H[{i}][{j}] vs H[{j}][{i}]")
    h_rr = ad.jacobian_r(ad.gradient_r(f))(p)
    for i in range(N_VARS):
        close(h[i], h_rr[i], RTOL, floor=1, what=f"hessian row {i} vs jacobian_r(gradient_r)")


@given(st.lists(expressions(N_VARS), min_size=1, max_size=3), points(N_VARS))
def test_jacobian_f_equals_jacobian_r(trees, p):
    def f(q):
        return tuple(evaluate(t, q) for t in trees)

    jf = ad.jacobian_f(f)(p)
    jr = ad.jacobian_r(f)(p)
    assert len(jf) == len(trees) and len(jr) == len(trees)
    for i in range(len(trees)):
        assert len(jf[i]) == N_VARS
        close(jf[i], jr[i], RTOL, floor=1, what=f"jacobian row {i}")
