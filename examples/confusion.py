"""Perturbation confusion side by side: dvlad.naive (one untagged ε) against dvlad (a tag per call).

Each row is a nested derivative from Siskind & Pearlmutter (IFL 2005, HOSC 2008) or the cases
built from them.  dvlad.naive is forward AD with ONE shared ε, wrong on purpose: the inner
derivative cannot tell the outer perturbation from its own.  dvlad makes a fresh tag each time a
derivative operator is applied, and gets every row right.  notes/perturbation-confusion.md works
the first two rows by hand.

Run:  python examples/confusion.py
"""
import math

import dvlad
from dvlad import naive


def rows(d, sin):
    """(description, value, right answer) for derivative operator d and its sin."""
    def one(x):                                    # d/dy (x + y) at 3: 1 for every x
        return d(lambda y: x + y)(3.0)
    return [
        ("2005: d/dx [x · d/dy (x + y) at 1] at 1",
         d(lambda x: x * d(lambda y: x + y)(1.0))(1.0), 1.0),
        ("2008: d/dx [x · d/dy (x · y) at 2] at 1",
         d(lambda x: x * d(lambda y: x * y)(2.0))(1.0), 2.0),
        ("d/dx [x · one(x)] at 7",
         d(lambda x: x * one(x))(7.0), 1.0),
        ("d/dx [x · one(2x)] at 7",
         d(lambda x: x * one(2 * x))(7.0), 1.0),
        # inner: 2xy = 6y², outer: 12y.  (Untagged duals nested two deep also mix up which
        # layer is which; naive gives 120 here.)
        ("d/dy [d/dx (x · x · y) at 3y] at 5",
         d(lambda y: d(lambda x: x * (x * y))(3 * y))(5.0), 60.0),
        ("d/dx d/dx sin(x) at 0.5 (no closure: fine)",
         d(d(sin))(0.5), -math.sin(0.5)),
    ]


def main():
    confused = rows(naive.derivative, naive.sin)
    tagged = rows(dvlad.derivative, dvlad.sin)
    width = max(len(name) for name, _, _ in tagged)
    print(f"{'':{width}}  {'naive':>10}  {'dvlad':>10}  {'right':>10}")
    for (name, wrong, right), (_, got, _) in zip(confused, tagged):
        flag = "" if wrong == right else "   <- confused"
        print(f"{name:{width}}  {wrong:10.6g}  {got:10.6g}  {right:10.6g}{flag}")
        assert abs(got - right) <= 1e-15 * max(1.0, abs(right)), (name, got, right)

    # The confused values, worked by hand in notes/perturbation-confusion.md:
    # 2005: x = 1+ε, y = 1+ε, x + y = 2 + 2ε, so the inner call reads 2 and x·2 gives 2.
    # 2008: x = 1+ε, y = 2+ε, x·y = 2 + 3ε, so the inner call reads 3 and x·3 gives 3.
    assert [value for _, value, _ in confused[:4]] == [2.0, 3.0, 2.0, 3.0]
    assert confused[5][1] == -math.sin(0.5)      # nesting without a closure is not confused

    # dvlad gets the same values in every mix of forward (D) and reverse (R) mode.
    ops = {"D": dvlad.derivative, "R": dvlad.gradient_r}
    for outer_name, outer in ops.items():
        for inner_name, inner in ops.items():
            a = outer(lambda x: x * inner(lambda y: x + y)(1.0))(1.0)
            b = outer(lambda x: x * inner(lambda y: x * y)(2.0))(1.0)
            print(f"dvlad {outer_name} over {inner_name}: 2005 example = {a}, 2008 example = {b}")
            assert (a, b) == (1.0, 2.0)

    # What the tags look like: the 2008 example's inner product x·y, with x = 1 + ε_outer and
    # y = 2 + ε_inner, is (2 + 2ε_outer) + (1 + ε_outer)·ε_inner, the newer tag outside.
    seen = []
    dvlad.derivative(lambda x: x * dvlad.derivative(
        lambda y: seen.append(x * y) or x * y)(2.0))(1.0)
    print(f"inside the 2008 example, x·y = {seen[0]!r}")
    assert seen[0].tag.n > seen[0].primal.tag.n


if __name__ == "__main__":
    main()
