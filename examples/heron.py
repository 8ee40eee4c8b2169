"""Heron's square root as a fixed point, differentiated in every mode, to 50 digits.

heron(a) is the fixed point of Heron's map y ↦ (y + a/y)/2 from y = 1, computed by
dvlad.fixed_point.  Its derivatives come from the implicit function theorem: the tangent (forward
mode) and the adjoint (reverse mode) are each iterated to convergence on their own, not read off
the last step of the loop.

1. heron(4), heron(9), heron(16) and their first derivatives 1/(2√a), forward and reverse.
2. Second derivatives −1/(4 a^{3/2}) in all four mode mixes (FF, FR, RF, RR), and third
   derivatives 3/(8 a^{5/2}) in all eight.
3. The same code on an mpmath number at 50 digits, against mpmath's own sqrt and mp.diff.
4. For contrast, the hand-written Newton loop from CASES.md (nr_sqrt): it stops when the primal
   converges, so its derivative is 0.2500002594080783, not 0.25.

Run:  python examples/heron.py      (notes/fixed-points.md explains the machinery)
"""
import itertools
import math

import mpmath

import dvlad

D, R = dvlad.derivative, dvlad.gradient_r
MODES = {"F": D, "R": R}


def heron(a):
    """√a as the fixed point of y ↦ (y + a/y)/2 from y = 1."""
    return dvlad.fixed_point(lambda y: (y + a / y) / 2, 1.0)


def compose(letters, f):
    """The derivative operators named by letters (outer first) applied to f: "FR" is D(R(f))."""
    for letter in reversed(letters):
        f = MODES[letter](f)
    return f


def nr_sqrt(x):
    """CASES.md §3: Newton from y = (x+1)−x, stop when |y − y'| ≤ 1e-5, return y."""
    y = (x + 1) - x
    while True:
        y2 = y - (y * y - x) / (y + y)
        if abs(y - y2) <= 1e-5:
            return y
        y = y2


def first_derivatives():
    print("1. heron(a) and d/da heron(a) = 1/(2√a)")
    for a, root in ((4.0, 2.0), (9.0, 3.0), (16.0, 4.0)):
        value, fwd, rev = heron(a), D(heron)(a), R(heron)(a)
        print(f"   a = {a:4}: heron = {value}, forward {fwd!r}, reverse {rev!r}")
        assert value == root
        assert abs(fwd - 1 / (2 * root)) < 1e-16 and abs(rev - 1 / (2 * root)) < 1e-16
    assert D(heron)(4.0) == R(heron)(4.0) == 0.25


def higher_derivatives():
    print("2. second and third derivatives at a = 4, every mode mix (outer operator first)")
    for order, exact in ((2, -0.03125), (3, 0.01171875)):     # −1/(4·4^1.5), 3/(8·4^2.5)
        for letters in itertools.product("FR", repeat=order):
            name = "".join(letters)
            value = compose(name, heron)(4.0)
            print(f"   {name:>3}: {value!r}")
            assert abs(value - exact) < 1e-15 * abs(exact) * 8, (name, value)
    assert all(compose(m, heron)(4.0) == -0.03125 for m in ("FF", "FR", "RF", "RR"))


def fifty_digits():
    print("3. at 50 digits: an mpf parameter makes fixed_point iterate to mpmath's precision")
    with mpmath.workdps(50):
        a = mpmath.mpf(2)
        f = heron
        checks = [
            ("heron(2)", f(a), mpmath.sqrt(a)),
            ("D(heron)(2)", D(f)(a), mpmath.diff(mpmath.sqrt, a, 1)),
            ("R(heron)(2)", R(f)(a), mpmath.diff(mpmath.sqrt, a, 1)),
            ("D(D(heron))(2)", D(D(f))(a), mpmath.diff(mpmath.sqrt, a, 2)),
            ("R(D(heron))(2)", R(D(f))(a), mpmath.diff(mpmath.sqrt, a, 2)),
            ("R(R(heron))(2)", R(lambda b: R(f)(b))(a), mpmath.diff(mpmath.sqrt, a, 2)),
        ]
        for name, got, want in checks:
            print(f"   {name:<15} {mpmath.nstr(got, 50)}   error {mpmath.nstr(abs(got - want), 3)}")
            assert type(got) is mpmath.mpf and abs(got - want) < mpmath.mpf(10) ** -45


def under_converged():
    print("4. the hand loop that stops when the primal converges (CASES.md nr_sqrt)")
    value, slope = nr_sqrt(4.0), D(nr_sqrt)(4.0)
    print(f"   nr_sqrt(4) = {value!r}  (relative error {abs(value - 2) / 2:.1e})")
    print(f"   D(nr_sqrt)(4) = {slope!r}  (relative error {abs(slope - 0.25) / 0.25:.1e})")
    assert value == 2.0000000929222947 and slope == 0.2500002594080783
    assert abs(slope - 0.25) / 0.25 > 10 * abs(value - 2) / 2     # the tangent lags the primal

    same_map = lambda x: dvlad.fixed_point(lambda y: y - (y * y - x) / (y + y), (x + 1) - x)
    print(f"   the same Newton map through fixed_point: {same_map(4.0)!r}, "
          f"D = {D(same_map)(4.0)!r}, R = {R(same_map)(4.0)!r}")
    assert same_map(4.0) == 2.0 and D(same_map)(4.0) == R(same_map)(4.0) == 0.25
    assert math.isclose(D(same_map)(9.0), 1 / 6, rel_tol=1e-15)


def main():
    first_derivatives()
    higher_derivatives()
    fifty_digits()
    under_converged()
    print("all checks passed")


if __name__ == "__main__":
    main()
