"""Perturbation confusion, and why dvlad does not suffer from it.

Siskind & Pearlmutter's two examples, each of which has an inner derivative inside an outer one:

    2005:  d/dx [ x · d/dy (x + y) |_{y=1} ] at x = 1   = 1   (the inner derivative is 1)
    2008:  d/dx [ x · d/dy (x · y) |_{y=2} ] at x = 1   = 2   (the inner derivative is x)

An implementation whose inner derivative cannot tell its own perturbation from the outer one gets
2 and 3: dvlad.naive, untagged dual numbers kept for teaching, shows that happening.  dvlad gets 1 and 2,
with every mix of forward (D = derivative) and reverse (R = gradient_r) mode.

Run:  python examples/nesting.py
"""
from dvlad import derivative, gradient_r, naive

MODES = {"D": derivative, "R": gradient_r}


def example_2005(outer, inner):
    return outer(lambda x: x * inner(lambda y: x + y)(1.0))(1.0)


def example_2008(outer, inner):
    return outer(lambda x: x * inner(lambda y: x * y)(2.0))(1.0)


def main():
    confused = (example_2005(naive.derivative, naive.derivative),
                example_2008(naive.derivative, naive.derivative))
    print(f"untagged dual numbers:  2005 example = {confused[0]}, 2008 example = {confused[1]}"
          "   (confused)")
    assert confused == (2.0, 3.0)

    for outer_name, outer in MODES.items():
        for inner_name, inner in MODES.items():
            a, b = example_2005(outer, inner), example_2008(outer, inner)
            print(f"dvlad, {outer_name} over {inner_name}:      "
                  f"2005 example = {a}, 2008 example = {b}")
            assert (a, b) == (1.0, 2.0)

    # The same operator applied at two nesting levels: D(y ↦ D(x ↦ x·(x·y))(3y))(5) = 60.
    for name, op in MODES.items():
        value = op(lambda y: op(lambda x: x * (x * y))(3 * y))(5.0)
        print(f"{name}(y ↦ {name}(x ↦ x·(x·y))(3y))(5) = {value}")
        assert value == 60.0

    # Tags are made when an operator is applied, not when it is built, so an operator object
    # built once can be reused inside other derivatives: d/dz [z · (x²)′(z)] = d/dz 2z² = 4z.
    d_square = derivative(lambda x: x * x)
    for name, op in MODES.items():
        value = op(lambda z: z * d_square(z))(3.0)
        print(f"d_square = derivative(x ↦ x²);  {name}(z ↦ z · d_square(z))(3) = {value}")
        assert value == 12.0

    # Mixed modes with a tape inside a forward derivative: D(x ↦ R(y ↦ x·y·y)(x))(3) = 12.
    fr = derivative(lambda x: gradient_r(lambda y: x * y * y)(x))(3.0)
    rf = gradient_r(lambda x: derivative(lambda y: x * y * y)(x))(3.0)
    print(f"D(x ↦ R(y ↦ x·y·y)(x))(3) = {fr},  R(x ↦ D(y ↦ x·y·y)(x))(3) = {rf}")
    assert fr == rf == 12.0


if __name__ == "__main__":
    main()
