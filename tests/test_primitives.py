"""User-defined primitives (:func:`dvlad.primitive`, :func:`dvlad.vector_primitive`) and the
derivative checker :func:`dvlad.check_grads`.

``F`` is :func:`dvlad.derivative` and ``R`` the scalar reverse derivative; a mix such as ``"RF"``
names the operator at each nesting level, outermost first.  Oracles are closed forms worked by hand
or mpmath.diff at 50 digits.
"""
import itertools
import math

import mpmath
import pytest

import dvlad
from dvlad import check_grads, primitive, vector_primitive
from dvlad.core.rules import RULES, TABLE
from support import OPS, MODES1, MODES2, MODES3, close, nest  # noqa: E402


HVP_MODES = ["ff", "fr", "rf", "rr"]


cube = primitive(lambda x: x ** 3, lambda x: (3 * x * x,), name="cube")


# ---- scalar primitives ------------------------------------------------------------------------

def test_cube_name_and_plain_value():
    assert cube.__name__ == "cube"
    assert cube(2.0) == 8.0 and type(cube(2.0)) is float
    assert cube(3) == 27


@pytest.mark.parametrize("m", MODES1)
@pytest.mark.parametrize("x", [2.0, -1.5, 0.0, 3])
def test_cube_first(m, x):
    assert nest(cube, m)(x) == 3 * x * x


@pytest.mark.parametrize("m", MODES2)
@pytest.mark.parametrize("x", [2.0, -1.5, 0.0, 3])
def test_cube_second(m, x):
    assert nest(cube, m)(x) == 6 * x


@pytest.mark.parametrize("m", MODES3)
@pytest.mark.parametrize("x", [2.0, -1.5])
def test_cube_third(m, x):
    assert nest(cube, m)(x) == 6


def test_cube_fourth():
    assert nest(cube, "FRFR")(2.0) == 0


def test_cube_inside_other_derivatives():
    """No perturbation confusion: D(x ↦ x · D(y ↦ cube(x + y))(1))(2) = 3·9 + 2·6·3 = 63."""
    for m1, m2 in itertools.product("FR", repeat=2):
        got = OPS[m1](lambda x: x * OPS[m2](lambda y: cube(x + y))(1.0))(2.0)
        assert got == 63.0, (m1, m2, got)


# a three-argument primitive: f(x, y, z) = x·y² + x·sin z
tri = primitive(lambda x, y, z: x * y * y + x * dvlad.sin(z),
                lambda x, y, z: (y * y + dvlad.sin(z), 2 * x * y, x * dvlad.cos(z)), name="tri")


def tri_grad(x, y, z):
    return [y * y + math.sin(z), 2 * x * y, x * math.cos(z)]


def tri_hess(x, y, z):
    return [[0.0, 2 * y, math.cos(z)], [2 * y, 2 * x, 0.0], [math.cos(z), 0.0, -x * math.sin(z)]]


P3 = (1.3, -0.7, 0.4)


@pytest.mark.parametrize("grad", [dvlad.gradient_r, dvlad.gradient_f], ids=["r", "f"])
def test_three_argument_gradient(grad):
    g = grad(lambda p: tri(*p))(P3)
    assert type(g) is tuple
    for gi, wi in zip(g, tri_grad(*P3)):
        close(gi, wi)


def test_three_argument_hessian():
    want = tri_hess(*P3)
    for H in (dvlad.hessian(lambda p: tri(*p))(list(P3)),
              dvlad.jacobian_r(dvlad.gradient_r(lambda p: tri(*p)))(list(P3)),
              dvlad.jacobian_f(dvlad.gradient_f(lambda p: tri(*p)))(list(P3))):
        for i in range(3):
            for j in range(3):
                close(H[i][j], want[i][j], abs_=1e-15)


@pytest.mark.parametrize("m", MODES1)
def test_three_argument_some_constant(m):
    """Only y perturbed, x and z constants: ∂/∂y = 2xy."""
    close(nest(lambda y: tri(1.3, y, 0.4), m)(-0.7), 2 * 1.3 * -0.7)
    close(nest(lambda z: tri(1.3, -0.7, z), m)(0.4), 1.3 * math.cos(0.4))
    close(nest(lambda t: tri(t, t, t), m)(0.4), sum(tri_grad(0.4, 0.4, 0.4)))


def test_three_argument_wrong_arity_of_partials():
    bad = primitive(lambda x, y, z: x, lambda x, y, z: (1.0, 0.0))
    with pytest.raises(ValueError, match="partials"):
        dvlad.derivative(lambda t: bad(t, 1.0, 2.0))(1.0)


# a primitive whose partial uses dvlad's operations: sin·exp
sinexp = primitive(lambda x: dvlad.sin(x) * dvlad.exp(x),
                   lambda x: (dvlad.exp(x) * (dvlad.sin(x) + dvlad.cos(x)),), name="sinexp")


def sinexp_mp(x, n):
    with mpmath.workdps(50):
        return mpmath.diff(lambda t: mpmath.sin(t) * mpmath.exp(t), mpmath.mpf(x), n)


@pytest.mark.parametrize("m", MODES1 + MODES2 + MODES3)
@pytest.mark.parametrize("x", [0.7, -1.2])
def test_sinexp_nests_to_order_three(m, x):
    close(nest(sinexp, m)(x), float(sinexp_mp(x, len(m))), rel=1e-14)


@pytest.mark.parametrize("m", ["", "F", "R", "FR", "RR", "RFF"])
def test_sinexp_mpf(m):
    with mpmath.workdps(50):
        x = mpmath.mpf("0.7")
        got = nest(sinexp, m)(x)
        assert type(got) is mpmath.mpf
        want = mpmath.diff(lambda t: mpmath.sin(t) * mpmath.exp(t), x, len(m))
        assert abs(got - want) < mpmath.mpf(10) ** -45, (m, got - want)


@pytest.mark.parametrize("m", ["", "F", "R", "FR", "RF", "FFF", "RRR"])
def test_cube_mpf(m):
    with mpmath.workdps(50):
        x = mpmath.mpf(1) / 3
        got = nest(cube, m)(x)
        assert type(got) is mpmath.mpf
        want = [x ** 3, 3 * x * x, 6 * x, mpmath.mpf(6)][len(m)]
        assert abs(got - want) < mpmath.mpf(10) ** -48


def test_three_argument_mpf():
    with mpmath.workdps(50):
        p = (mpmath.mpf("1.3"), mpmath.mpf("-0.7"), mpmath.mpf("0.4"))
        g = dvlad.gradient_r(lambda p: tri(*p))(p)
        want = [p[1] ** 2 + mpmath.sin(p[2]), 2 * p[0] * p[1], p[0] * mpmath.cos(p[2])]
        for gi, wi in zip(g, want):
            assert type(gi) is mpmath.mpf and abs(gi - wi) < mpmath.mpf(10) ** -45


# ---- primitives mixed with built-ins, hvp in every mode ---------------------------------------

def mixed(p):
    """cube(p0)·exp(p1) + p0·p1 + sinexp(p1)."""
    return cube(p[0]) * dvlad.exp(p[1]) + p[0] * p[1] + sinexp(p[1])


def mixed_hessian(p0, p1):
    e = math.exp(p1)
    h11 = p0 ** 3 * e + 2 * e * math.cos(p1)
    return [[6 * p0 * e, 3 * p0 * p0 * e + 1], [3 * p0 * p0 * e + 1, h11]]


@pytest.mark.parametrize("mode", HVP_MODES)
@pytest.mark.parametrize("v", [(1.0, 0.0), (0.0, 1.0), (0.3, -1.1)])
def test_mixed_hvp(mode, v):
    p = (0.8, -0.4)
    H = mixed_hessian(*p)
    got = dvlad.hvp(mixed, p, v, mode=mode)
    assert type(got) is tuple
    for i in range(2):
        close(got[i], H[i][0] * v[0] + H[i][1] * v[1], rel=1e-14, abs_=1e-15)


def test_mixed_hessian_and_gradient():
    p = [0.8, -0.4]
    H = dvlad.hessian(mixed)(p)
    want = mixed_hessian(*p)
    for i in range(2):
        for j in range(2):
            close(H[i][j], want[i][j], rel=1e-14)
    e = math.exp(p[1])
    g = dvlad.gradient_r(mixed)(p)
    assert type(g) is list
    close(g[0], 3 * p[0] ** 2 * e + p[1], rel=1e-15)
    close(g[1], p[0] ** 3 * e + p[0] + e * (math.sin(p[1]) + math.cos(p[1])), rel=1e-15)


# ---- check_grads on primitives ----------------------------------------------------------------

@pytest.mark.parametrize("f, x", [
    (cube, 1.7),
    (sinexp, 0.7),
    (lambda p: tri(*p), P3),
    (mixed, (0.8, -0.4)),
], ids=["cube", "sinexp", "tri", "mixed"])
def test_check_grads_passes_correct_primitives(f, x):
    check_grads(f, x, order=2)


def test_wrong_partial_caught_at_order_one():
    bad = primitive(lambda x: x ** 3, lambda x: (2 * x * x,), name="badcube")
    with pytest.raises(AssertionError, match="order 1"):
        check_grads(bad, 1.5, order=1)
    with pytest.raises(AssertionError, match="order 1"):
        check_grads(bad, 1.5, order=1, modes=("rev",))


def test_wrong_partial_message_names_the_numbers():
    bad = primitive(lambda x: x ** 3, lambda x: (2 * x * x,), name="badcube")
    with pytest.raises(AssertionError) as info:
        check_grads(bad, 1.5, order=1, modes=("fwd",))
    msg = str(info.value)
    assert "forward-mode" in msg and "got" in msg and "expected" in msg
    # J·u with the wrong partial is 2·1.5²·u, the differences give 3·1.5²·u: ratio 2/3
    nums = [float(s) for s in msg.replace("[", " ").replace("]", " ").replace(",", " ").split()
            if s.lstrip("-").replace(".", "", 1).replace("e-", "", 1).replace("e+", "", 1).isdigit()]
    assert len(nums) >= 2
    got, want = nums[-2], nums[-1]
    close(got / want, 2 / 3, rel=1e-5)


# partials right in value but that do not nest: they leave dvlad's operations
sin_stripped = primitive(lambda x: dvlad.sin(x), lambda x: (math.cos(dvlad.primal(x)),),
                         name="sin_stripped")
cube_half_stripped = primitive(lambda x: x ** 3, lambda x: (3 * dvlad.primal(x) * x,),
                               name="cube_half_stripped")


@pytest.mark.parametrize("f, x", [(sin_stripped, 0.6), (cube_half_stripped, 1.5)])
def test_partial_that_does_not_nest_caught_at_order_two(f, x):
    check_grads(f, x, order=1)
    for m in MODES1:
        close(nest(f, m)(x), dvlad.derivative({"sin_stripped": dvlad.sin,
                                               "cube_half_stripped": lambda t: t ** 3}
                                              [f.__name__])(x), rel=1e-15)
    with pytest.raises(AssertionError, match="order 2"):
        check_grads(f, x, order=2)
    for modes in (("fwd",), ("rev",)):
        with pytest.raises(AssertionError, match="order 2"):
            check_grads(f, x, order=2, modes=modes)


def test_stripped_partial_gives_wrong_second_derivative():
    """What check_grads catches: the second derivative misses the partial's own derivative."""
    for m in MODES2:
        assert nest(sin_stripped, m)(0.6) == 0.0            # should be -sin(0.6)
        assert nest(cube_half_stripped, m)(1.5) == 3 * 1.5  # should be 6·1.5


# ---- vector primitives ------------------------------------------------------------------------

def _vf(x):
    return (x[0] * x[1], dvlad.sin(x[0]) + x[1] * x[1])


def _vjvp(x, t):
    return (x[1] * t[0] + x[0] * t[1], dvlad.cos(x[0]) * t[0] + 2 * x[1] * t[1])


def _vvjp(x, s):
    return (x[1] * s[0] + dvlad.cos(x[0]) * s[1], x[0] * s[0] + 2 * x[1] * s[1])


vmap = vector_primitive(_vf, _vjvp, _vvjp, name="vmap")
# the Jacobian applied, not transposed, in the vjp: wrong, since J is not symmetric
vmap_bad_vjp = vector_primitive(_vf, _vjvp, _vjvp, name="vmap_bad_vjp")


def vmap_jacobian(x0, x1):
    return [[x1, x0], [math.cos(x0), 2 * x1]]


X2 = (0.9, -1.3)


def test_vector_primitive_value():
    assert vmap(X2) == _vf(X2) and vmap.__name__ == "vmap"


@pytest.mark.parametrize("jac", [dvlad.jacobian_f, dvlad.jacobian_r], ids=["f", "r"])
def test_vector_primitive_jacobian(jac):
    assert jac(vmap)(X2) == vmap_jacobian(*X2)


def test_vector_primitive_jacobians_agree_with_plain_code():
    assert dvlad.jacobian_f(vmap)(X2) == dvlad.jacobian_r(vmap)(X2) == dvlad.jacobian_r(_vf)(X2)


def _h(x):
    y = vmap(x)
    return y[0] * y[1]


def _h_hessian(x0, x1):
    """h = x0·x1·sin x0 + x0·x1³."""
    s, c = math.sin(x0), math.cos(x0)
    return [[x1 * (2 * c - x0 * s), s + x0 * c + 3 * x1 * x1],
            [s + x0 * c + 3 * x1 * x1, 6 * x0 * x1]]


@pytest.mark.parametrize("mode", HVP_MODES)
@pytest.mark.parametrize("v", [(1.0, 0.0), (0.0, 1.0), (0.5, 2.0)])
def test_vector_primitive_hvp(mode, v):
    H = _h_hessian(*X2)
    got = dvlad.hvp(_h, X2, v, mode=mode)
    for i in range(2):
        close(got[i], H[i][0] * v[0] + H[i][1] * v[1], rel=1e-14, abs_=1e-15)


@pytest.mark.parametrize("m", MODES1 + MODES2 + MODES3)
def test_vector_primitive_nested(m):
    """g(t) = vmap((t, t²))[1] = sin t + t⁴, to third order in every mix."""
    t = 0.6
    want = [math.sin(t) + t ** 4, math.cos(t) + 4 * t ** 3, -math.sin(t) + 12 * t * t,
            -math.cos(t) + 24 * t][len(m)]
    close(nest(lambda t: vmap((t, t * t))[1], m)(t), want, rel=1e-14)


@pytest.mark.parametrize("m", MODES2)
def test_vector_primitive_one_input_constant(m):
    """g(t) = vmap((1.5, t))[0]·vmap((t, 2.0))[1] = 1.5t·(sin t + 4)."""
    t = 0.6
    got = nest(lambda t: vmap((1.5, t))[0] * vmap((t, 2.0))[1], m)(t)
    close(got, 1.5 * (2 * math.cos(t) - t * math.sin(t)), rel=1e-14)


def test_vector_primitive_mpf():
    with mpmath.workdps(50):
        x = (mpmath.mpf("0.9"), mpmath.mpf("-1.3"))
        J = dvlad.jacobian_r(vmap)(x)
        want = [[x[1], x[0]], [mpmath.cos(x[0]), 2 * x[1]]]
        for i in range(2):
            for j in range(2):
                assert type(J[i][j]) is mpmath.mpf and abs(J[i][j] - want[i][j]) < mpmath.mpf(10) ** -48


def test_vector_primitive_scalar_output_under_mpf_reverse():
    """A vector primitive with one output, inside gradient_r, with an mpf on the left of / ."""
    sq = vector_primitive(lambda p: p[0] * p[0], lambda p, t: 2 * p[0] * t[0],
                          lambda p, s: (2 * p[0] * s,), name="sq")
    with mpmath.workdps(50):
        x = mpmath.mpf(3)
        got = dvlad.gradient_r(lambda a: mpmath.mpf(1) / sq((a,)))(x)
        assert abs(got - (-2 / x ** 3)) < mpmath.mpf(10) ** -45


def test_vector_primitive_dict_in():
    norm2 = vector_primitive(lambda d: d["a"] ** 2 + d["b"] ** 2,
                             lambda d, t: 2 * (d["a"] * t["a"] + d["b"] * t["b"]),
                             lambda d, s: {"a": 2 * d["a"] * s, "b": 2 * d["b"] * s}, name="norm2")
    x = {"a": 3.0, "b": 4.0}
    assert dvlad.gradient_r(norm2)(x) == {"a": 6.0, "b": 8.0}
    assert dvlad.gradient_f(norm2)(x) == {"a": 6.0, "b": 8.0}
    assert dvlad.hessian(norm2)(x) == {"a": {"a": 2.0, "b": 0.0}, "b": {"a": 0.0, "b": 2.0}}
    check_grads(norm2, x, order=2)


def test_check_grads_vector_primitive_correct():
    check_grads(vmap, X2, order=2)


def test_wrong_vjp_caught_by_dot_product_test():
    assert dvlad.jacobian_f(vmap_bad_vjp)(X2) == vmap_jacobian(*X2)   # forward is right
    assert dvlad.jacobian_r(vmap_bad_vjp)(X2) != vmap_jacobian(*X2)   # reverse is not
    check_grads(vmap_bad_vjp, X2, order=2, modes=("fwd",))
    with pytest.raises(AssertionError, match="dot-product"):
        check_grads(vmap_bad_vjp, X2, order=1, modes=("fwd", "rev"))
    with pytest.raises(AssertionError, match="dot-product"):
        check_grads(vmap_bad_vjp, X2, order=1, modes=("rev",))


# ---- check_grads on every built-in primitive --------------------------------------------------

# Every differentiable row of the rule table, at each of the points its row names.
ROW_POINTS = [(rule.name, tuple(float(v) for v in point))
              for rule in TABLE if rule.partial_texts for point in rule.points]


def test_every_differentiable_row_names_test_points():
    assert all(rule.points for rule in TABLE if rule.partial_texts)


@pytest.mark.parametrize("name, point", ROW_POINTS)
def test_check_grads_every_rule(name, point):
    op = getattr(dvlad, name)
    if len(point) == 1:
        check_grads(op, point[0], order=2)
        check_grads(op, point[0], order=2, seed=7)
    elif RULES[name].fixed:     # an integer order (polygamma's n), a shape (gammainc's a,
        # betainc's a and b) are not variables
        check_grads(lambda t: op(*point[:-1], t), point[-1], order=2)
        check_grads(lambda t: op(*point[:-1], t), point[-1], order=2, seed=7)
    else:
        check_grads(lambda p: op(p[0], p[1]), point, order=2)
        check_grads(lambda p: op(p[0], p[1]), point, order=2, seed=7)


# ---- check_grads itself -----------------------------------------------------------------------

@pytest.mark.parametrize("f, x", [
    (lambda x: x * dvlad.primal(x), 1.3),                      # drops half the derivative
    (lambda p: p[0] * dvlad.primal(p[1]), (1.3, 0.4)),
    (primitive(dvlad.exp, lambda x: (dvlad.exp(x) * 1.001,)), 0.5),   # 0.1% off
])
def test_check_grads_raises_on_wrong(f, x):
    with pytest.raises(AssertionError, match="check_grads"):
        check_grads(f, x, order=1)


@pytest.mark.parametrize("modes", [("fwd", "bwd"), (), ("forward",), ["rev", "reverse"]])
def test_check_grads_rejects_bad_modes(modes):
    with pytest.raises(ValueError, match="modes"):
        check_grads(dvlad.sin, 0.5, modes=modes)


def _directions(seed):
    """The direction check_grads' first forward pass pushes, seen from inside f."""
    seen = []

    def f(x):
        if not seen and isinstance(x, dvlad.Bundle):
            seen.append(x.tangent)
        return dvlad.sin(x) * x
    check_grads(f, 0.5, order=1, modes=("fwd",), seed=seed)
    return seen[0]


def test_check_grads_seed_changes_direction_not_verdict():
    dirs = [_directions(s) for s in range(4)]
    assert len(set(dirs)) == 4, dirs
    assert _directions(2) == dirs[2]
    bad = primitive(lambda x: x ** 3, lambda x: (2 * x * x,))
    for seed in range(6):
        check_grads(sinexp, 0.7, order=2, seed=seed)
        check_grads(mixed, (0.8, -0.4), order=2, seed=seed)
        with pytest.raises(AssertionError):
            check_grads(bad, 1.5, order=1, seed=seed)
        with pytest.raises(AssertionError):
            check_grads(vmap_bad_vjp, X2, order=1, seed=seed)
        with pytest.raises(AssertionError):
            check_grads(sin_stripped, 0.6, order=2, seed=seed)


def _dict_to_tuple(d):
    return (d["a"] * d["b"], dvlad.sin(d["a"]) + cube(d["b"]), dvlad.exp(d["c"]) * d["a"])


def test_check_grads_structures():
    x = {"a": 0.7, "b": -1.2, "c": 0.3}
    check_grads(_dict_to_tuple, x, order=2)
    check_grads(lambda d: (vmap((d["u"], d["v"])), [d["u"] * 2.0]), {"u": 0.9, "v": -1.3},
                order=2)
    bad = primitive(lambda x: x ** 3, lambda x: (2 * x * x,))
    with pytest.raises(AssertionError):
        check_grads(lambda d: (d["a"] * d["b"], bad(d["b"])), x, order=1)


def test_check_grads_mpf():
    with mpmath.workdps(50):
        check_grads(sinexp, mpmath.mpf("0.7"), order=2)
        check_grads(lambda p: tri(*p), tuple(mpmath.mpf(v) for v in ("1.3", "-0.7", "0.4")),
                    order=2)
        check_grads(dvlad.atan, mpmath.mpf("0.7"), order=2)
        bad = primitive(lambda x: x ** 3, lambda x: (2 * x * x,))
        with pytest.raises(AssertionError):
            check_grads(bad, mpmath.mpf("1.5"), order=1)


def test_check_grads_mpf_is_tighter():
    """A partial 1e-10 off passes the float check (rtol 1e-6), not the 50-digit one."""
    slightly = primitive(dvlad.exp, lambda x: (dvlad.exp(x) * (1 + 1e-10),))
    check_grads(slightly, 0.5, order=1)
    with mpmath.workdps(50):
        with pytest.raises(AssertionError):
            check_grads(slightly, mpmath.mpf("0.5"), order=1)


def test_check_grads_returns_none():
    assert check_grads(dvlad.sin, 0.5) is None
