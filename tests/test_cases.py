"""CASES.md sections 1 and 4: the catalogue of nesting cases, each a named test after its source.

Every row of the nesting table runs in every mode mix: ``F`` is :func:`dvlad.derivative` and ``R``
is the scalar reverse derivative ``lambda f: lambda x: dvlad.gradient_r(f)(x)``; a mix such as
``"RF"`` names the operator used at each nesting level, outermost first.  Integer-valued answers
are compared exactly, other floats to 1e-15 relative.
"""
import collections
import itertools
import math

import pytest

import dvlad
from support import OPS, MODES1, MODES2, MODES3, assert_plain, exactly, nest  # noqa: E402


# The operators themselves, for the "built once" tests: gradient_r(f) on a scalar is a scalar.
BUILT = {"F": dvlad.derivative, "R": dvlad.gradient_r}
NUMS = [float, int]     # every integer-valued row also runs on int inputs, exactly


# ---- 1. Nesting and perturbation confusion: the table -------------------------------------

@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("m", MODES1)
def test_dvl_derivative_examples_identity_constant_sums(m, num):
    """D(x ↦ x)(7); D(x ↦ 3)(7); D(x ↦ x+1)(7); D(x ↦ x+x)(7) = 1; 0; 1; 2."""
    D = OPS[m]
    exactly(D(lambda x: x)(num(7)), 1)
    exactly(D(lambda x: 3)(num(7)), 0)
    exactly(D(lambda x: x + 1)(num(7)), 1)
    exactly(D(lambda x: x + x)(num(7)), 2)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_dvl_one_is_a_constant(mm, num):
    """one(x) = D(y ↦ x+y)(3); D(one)(7) = 0."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]

    def one(x):
        return inner(lambda y: x + y)(num(3))
    exactly(one(num(7)), 1)
    exactly(outer(one)(num(7)), 0)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_siskind_pearlmutter_x_times_one(mm, num):
    """D(x ↦ x·one(x))(7) = 1 and D(x ↦ x·one(2x))(7) = 1 (confused: 2 and 3)."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]

    def one(x):
        return inner(lambda y: x + y)(num(3))
    exactly(outer(lambda x: x * one(x))(num(7)), 1)
    exactly(outer(lambda x: x * one(2 * x))(num(7)), 1)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_siskind_pearlmutter_2008_nested_at_3y(mm, num):
    """D(y ↦ D(x ↦ x·(x·y))(3y))(5) = 60 (confused: 0)."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    exactly(outer(lambda y: inner(lambda x: x * (x * y))(3 * y))(num(5)), 60)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_siskind_pearlmutter_2005(mm, num):
    """The 2005 example: D(x ↦ x·D(y ↦ x+y)(1))(1) = 1 (confused: 2)."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    exactly(outer(lambda x: x * inner(lambda y: x + y)(num(1)))(num(1)), 1)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_siskind_pearlmutter_2008(mm, num):
    """The 2008 example: D(x ↦ x·D(y ↦ x·y)(2))(1) = 2 (confused: 3)."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    exactly(outer(lambda x: x * inner(lambda y: x * y)(num(2)))(num(1)), 2)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_dvl_derivative_examples_id(mm, num):
    """id(x) = D(y ↦ x·y)(3); D(x ↦ x·id(x))(7) = 14."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]

    def ident(x):
        return inner(lambda y: x * y)(num(3))
    exactly(ident(num(7)), 7)
    exactly(outer(lambda x: x * ident(x))(num(7)), 14)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_dvl_derivative_examples_nested_at_2y(mm, num):
    """D(y ↦ D(x ↦ x·(x·y))(2y))(2) = 16."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    exactly(outer(lambda y: inner(lambda x: x * (x * y))(2 * y))(num(2)), 16)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_reverse_examples_outer_tags_survive_inner_sweep(mm, num):
    """D(x ↦ R(y ↦ x·y·y)(x))(3) = 12 and its twin R(x ↦ D(y ↦ x·y·y)(x))(3) = 12 (stripped: 0)."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    exactly(outer(lambda x: inner(lambda y: x * y * y)(x))(num(3)), 12)


@pytest.mark.parametrize("num", NUMS)
def test_reverse_examples_forward_over_reverse_and_twin(num):
    """The two named programs of the table, written out literally."""
    D, G = dvlad.derivative, dvlad.gradient_r
    exactly(D(lambda x: G(lambda y: x * y * y)(x))(num(3)), 12)
    exactly(G(lambda x: D(lambda y: x * y * y)(x))(num(3)), 12)


# ---- reverse-mode rows --------------------------------------------------------------------

def test_reverse_examples_sin_sum_product():
    """R(sin)(0) = 1; R(p ↦ p₀+p₁)((4,7)) = (1,1); R(p ↦ p₀·p₁)((4,7)) = (7,4)."""
    G = dvlad.gradient_r
    exactly(G(dvlad.sin)(0.0), 1.0)
    for point in ((4.0, 7.0), (4, 7)):
        s = G(lambda p: p[0] + p[1])(point)
        p = G(lambda p: p[0] * p[1])(point)
        assert type(s) is tuple and type(p) is tuple
        exactly(s, (1, 1))
        exactly(p, (7, 4))


def _product(xs):
    """Right fold: x₁·(x₂·(x₃·(x₄·1)))."""
    acc = 1
    for x in reversed(xs):
        acc = x * acc
    return acc


@pytest.mark.parametrize("num", NUMS)
def test_reverse_examples_product_right_fold(num):
    """R(product)([1,2,3,4]) = [24,12,8,6], a list."""
    g = dvlad.gradient_r(_product)([num(1), num(2), num(3), num(4)])
    assert type(g) is list
    exactly(g, [24, 12, 8, 6])
    # its forward-mode sibling agrees
    exactly(dvlad.gradient_f(_product)([num(1), num(2), num(3), num(4)]), [24, 12, 8, 6])


def test_reverse_examples_norm_exact_digits():
    """R(p ↦ √(p₀²+p₁²))((3,4)) == (0.6000000000000001, 0.8) exactly."""
    g = dvlad.gradient_r(lambda p: dvlad.sqrt(p[0] * p[0] + p[1] * p[1]))((3.0, 4.0))
    assert type(g) is tuple
    assert g == (0.6000000000000001, 0.8)
    g2 = dvlad.gradient_r(lambda p: dvlad.sqrt(p[0] ** 2 + p[1] ** 2))((3.0, 4.0))
    assert g2 == (0.6000000000000001, 0.8)


# ---- towers of derivatives -----------------------------------------------------------------

TOWER = [("".join(m)) for n in range(8) for m in itertools.product("FR", repeat=n)]


@pytest.mark.parametrize("modes", TOWER, ids=lambda s: s or "none")
def test_stalingrad_exp_tower(modes):
    """Dⁿ exp at 4 = e⁴ = 54.598150033144236 for n = 0..7, in every one of the 2ⁿ mode mixes."""
    got = nest(dvlad.exp, modes)(4.0)
    assert_plain(got)
    assert type(got) is float
    assert got == pytest.approx(54.598150033144236, rel=1e-15, abs=0)


@pytest.mark.parametrize("modes", TOWER, ids=lambda s: s or "none")
def test_stalingrad_sin_tower(modes):
    """Dⁿ sin at 0 = 0, 1, 0, −1, 0, 1, 0, −1 for n = 0..7, in every mode mix."""
    expected = [0.0, 1.0, 0.0, -1.0][len(modes) % 4]
    got = nest(dvlad.sin, modes)(0.0)
    exactly(got, expected)


SQRT4 = {1: 0.25, 2: -0.03125, 3: 0.01171875}


@pytest.mark.parametrize("modes", MODES1 + MODES2 + MODES3)
def test_dvl_sqrt_compositions(modes):
    """Every composition of one, two, three D/R of sqrt at 4: 0.25, −0.03125, 0.01171875."""
    got = nest(dvlad.sqrt, modes)(4.0)
    assert_plain(got)
    assert got == pytest.approx(SQRT4[len(modes)], rel=1e-15, abs=0)


# ---- Hessians and Hessian-vector products --------------------------------------------------

def quad(p):
    """2x² + 3xy + 4y²: Hessian [[4, 3], [3, 8]] everywhere."""
    x, y = p
    return 2 * x * x + 3 * x * y + 4 * y * y


H_QUAD = [[4, 3], [3, 8]]


def _partial(op, f, i, p):
    """∂f/∂p_i at p with the scalar operator op."""
    def along(t):
        q = list(p)
        q[i] = t
        return f(tuple(q))
    return op(along)(p[i])


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mm", MODES2)
def test_hessian_by_scalar_compositions(mm, num):
    """H[i][j] = outer_i(inner_j(f)) for every FF/FR/RF/RR mix of scalar operators."""
    outer, inner = OPS[mm[0]], OPS[mm[1]]
    p = (num(3), num(4))
    h = [[_partial(outer, lambda q, j=j: _partial(inner, quad, j, q), i, p) for j in range(2)]
         for i in range(2)]
    exactly(h, H_QUAD)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("jac,grad", [(dvlad.jacobian_f, dvlad.gradient_f),
                                      (dvlad.jacobian_f, dvlad.gradient_r),
                                      (dvlad.jacobian_r, dvlad.gradient_f),
                                      (dvlad.jacobian_r, dvlad.gradient_r)],
                         ids=["FF", "FR", "RF", "RR"])
def test_hessian_by_jacobian_of_gradient(jac, grad, num):
    h = jac(grad(quad))((num(3), num(4)))
    assert type(h) is list and all(type(row) is list for row in h)
    exactly(h, H_QUAD)


@pytest.mark.parametrize("num", NUMS)
def test_hessian_operator(num):
    h = dvlad.hessian(quad)((num(3), num(4)))
    assert type(h) is list
    exactly(h, H_QUAD)


@pytest.mark.parametrize("num", NUMS)
@pytest.mark.parametrize("mode", ["fr", "rf", "rr", "ff"])
def test_hvp_u_h_v_is_1318(mode, num):
    """uᵀHv with u = (7, 8), v = (9, 10): Hv = (66, 107), uᵀHv = 1318."""
    hv = dvlad.hvp(quad, (num(3), num(4)), (num(9), num(10)), mode=mode)
    assert type(hv) is tuple
    exactly(hv, (66, 107))
    exactly(7 * hv[0] + 8 * hv[1], 1318)


def test_hvp_bad_mode_is_a_value_error():
    with pytest.raises(ValueError, match="mode"):
        dvlad.hvp(quad, (3.0, 4.0), (9.0, 10.0), mode="xy")


# ---- tags are made when an operator is applied, not when it is built ----------------------

@pytest.mark.parametrize("m", MODES1)
def test_tags_made_when_applied_reentered_from_inside_g(m):
    """d = D(g) built once; g calls d again (two levels deep): g₃ = x², g₂ = x·d(x), g₁ = x·d(x).

    d(g₃) = 2x, g₂ = 2x², d(g₂) = 4x, g₁ = 4x², d(g₁)(3) = 8·3 = 24.
    """
    calls = [0]

    def g(x):
        calls[0] += 1
        if calls[0] < 3:
            return x * d(x)
        return x * x
    d = BUILT[m](g)
    exactly(d(3.0), 24)
    assert calls[0] == 3
    calls[0] = 1                     # one level of re-entry: d(x·2x) at 3 = 12
    exactly(d(3.0), 12)


@pytest.mark.parametrize("mm", MODES2)
def test_tags_made_when_applied_inside_another_derivative(mm):
    """c = D(x ↦ x³) built once, then applied at two nesting levels at once."""
    c = BUILT[mm[1]](lambda x: x * x * x)      # c(y) = 3y², one operator object
    outer = OPS[mm[0]]
    exactly(outer(lambda y: y * c(y))(2.0), 36)          # d/dy 3y³ = 9y²
    exactly(outer(lambda y: c(y * c(y)))(1.0), 162)      # d/dy 27y⁶ = 162y⁵
    exactly(outer(lambda y: c(c(y)))(1.0), 108)          # d/dy 27y⁴ = 108y³
    # the same operator object as both levels
    exactly(c(2.0), 12)
    exactly(BUILT[mm[0]](c)(2.0), 12)                    # d/dy 3y² = 6y


@pytest.mark.parametrize("mm", MODES2)
def test_tags_made_when_applied_built_before_the_outer_call(mm):
    """c = D(x ↦ x·x·k) built before the outer derivative, k set to the outer variable.

    A tag made at build time is older than the outer call's: the nesting order inverts.
    k = y: c(y) = 2y·y = 2y², outer D at 3 = 12; k = y²: c(y) = 2y³, outer D at 3 = 54.
    """
    k = [None]
    c = BUILT[mm[1]](lambda x: x * x * k[0])
    outer = OPS[mm[0]]
    exactly(outer(lambda y: (k.__setitem__(0, y), c(y))[1])(3.0), 12)
    exactly(outer(lambda y: (k.__setitem__(0, y * y), c(y))[1])(3.0), 54)
    exactly(outer(lambda y: (k.__setitem__(0, y), c(2 * y))[1])(3.0), 24)    # 4y² → 8y


def test_tags_made_when_applied_same_object_as_both_levels():
    """The same operator (dvlad.derivative / dvlad.gradient_r) at both levels of one program."""
    for m in MODES1:
        D = BUILT[m]

        def f(x):
            return x * D(lambda y: x * y)(2.0)          # the 2008 example with one D
        exactly(D(f)(1.0), 2)


# ---- structures ----------------------------------------------------------------------------

Point = collections.namedtuple("Point", "a b")


def _nested_input():
    return {"u": [1.0, (2.0, Point(3.0, 4.0))],
            "v": Point(a=[5.0], b=collections.OrderedDict([("w", 6.0), ("z", 7.0)]))}


def _nested_f(s):
    u0, (u1, pt) = s["u"]
    v = s["v"]
    return u0 * u1 + pt.a * pt.b + v.a[0] * v.b["w"] + 2 * v.b["z"]


_NESTED_GRAD = {"u": [2.0, (1.0, Point(4.0, 3.0))],
                "v": Point(a=[6.0], b=collections.OrderedDict([("w", 5.0), ("z", 2.0)]))}


def _same_shape(got, expected):
    """Same container types at every level, same keys in the same order, equal leaves."""
    assert type(got) is type(expected), f"{type(got)} is not {type(expected)}"
    if isinstance(expected, dict):
        assert list(got.keys()) == list(expected.keys())
        for k in expected:
            _same_shape(got[k], expected[k])
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            _same_shape(a, b)
    else:
        assert got == expected


@pytest.mark.parametrize("grad", [dvlad.gradient_r, dvlad.gradient_f], ids=["r", "f"])
def test_structures_gradient_keeps_container_types(grad):
    g = grad(_nested_f)(_nested_input())
    _same_shape(g, _NESTED_GRAD)
    assert isinstance(g["u"][1][1], Point) and g["u"][1][1].a == 4.0


def test_structures_gradient_f_equals_gradient_r():
    def f(p):
        x, y, z = p
        return dvlad.sin(x) * dvlad.exp(y * z) + x * x * z / (1 + y * y)
    for point in [(0.3, -1.2, 0.7), (1.0, 2.0, 3.0), [2.5, 0.1, -0.4]]:
        gf = dvlad.gradient_f(f)(point)
        gr = dvlad.gradient_r(f)(point)
        assert type(gf) is type(point) and type(gr) is type(point)
        for a, b in zip(gf, gr):
            assert a == pytest.approx(b, rel=1e-15, abs=1e-300)
    # and both match the hand derivative at (1, 2, 3)
    x, y, z = 1.0, 2.0, 3.0
    hand = (math.cos(x) * math.exp(y * z) + 2 * x * z / (1 + y * y),
            math.sin(x) * z * math.exp(y * z) - x * x * z * 2 * y / (1 + y * y) ** 2,
            math.sin(x) * y * math.exp(y * z) + x * x / (1 + y * y))
    for a, b in zip(dvlad.gradient_r(f)((x, y, z)), hand):
        assert a == pytest.approx(b, rel=1e-14)


def _r2_to_r3(p):
    x, y = p
    return (x * y, x * x - y, dvlad.sin(x) + 5 * y)


def test_structures_jacobian_f_equals_jacobian_r():
    """R² → R³ at (2, 3): J = [[3, 2], [4, −1], [cos 2, 5]], by hand."""
    jf = dvlad.jacobian_f(_r2_to_r3)((2.0, 3.0))
    jr = dvlad.jacobian_r(_r2_to_r3)((2.0, 3.0))
    hand = [[3.0, 2.0], [4.0, -1.0], [math.cos(2.0), 5.0]]
    for j in (jf, jr):
        assert type(j) is list and len(j) == 3 and all(len(row) == 2 for row in j)
        assert_plain(j)
        assert j == hand
    assert jf == jr


def test_structures_vjp_pullback_called_twice():
    y, back = dvlad.vjp(_r2_to_r3, (2.0, 3.0))
    assert y == (6.0, 1.0, math.sin(2.0) + 15.0)
    first = back((1.0, 0.0, 0.0))
    second = back((0.0, 1.0, 0.0))
    again = back((1.0, 0.0, 0.0))
    mixed = back((1.0, 2.0, 3.0))
    assert type(first) is tuple
    assert first == (3.0, 2.0)
    assert second == (4.0, -1.0)
    assert again == first
    assert mixed == pytest.approx((3.0 + 8.0 + 3 * math.cos(2.0), 2.0 - 2.0 + 15.0), rel=1e-15)
    assert_plain((first, second, again, mixed))


def test_structures_jvp_returns_value_and_jv():
    value, jv = dvlad.jvp(_r2_to_r3, (2.0, 3.0), (1.0, 10.0))
    assert type(value) is tuple and type(jv) is tuple
    assert value == (6.0, 1.0, math.sin(2.0) + 15.0)
    assert jv == pytest.approx((3.0 + 20.0, 4.0 - 10.0, math.cos(2.0) + 50.0), rel=1e-15)
    assert_plain((value, jv))
    assert dvlad.directional_derivative(_r2_to_r3, (2.0, 3.0), (1.0, 10.0)) == jv


def test_structures_jvp_agrees_with_jacobian_times_v():
    v = (0.5, -2.0)
    j = dvlad.jacobian_r(_r2_to_r3)((2.0, 3.0))
    _, jv = dvlad.jvp(_r2_to_r3, (2.0, 3.0), v)
    for row, got in zip(j, jv):
        assert got == pytest.approx(row[0] * v[0] + row[1] * v[1], rel=1e-15)
