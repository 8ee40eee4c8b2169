"""Hessians and Hessian-vector products, four ways, in floats and in 50-digit mpmath.

    f(x, y) = exp(x)·sin(y) + x²·y³

    H = [[ eˣ sin y + 2y³,     eˣ cos y + 6xy² ],
         [ eˣ cos y + 6xy²,   −eˣ sin y + 6x²y ]]

`hessian` is forward over reverse.  `hvp(f, x, v, mode)` computes H·v without forming H, as
forward-over-reverse ("fr"), reverse-over-forward ("rf"), reverse-over-reverse ("rr") or
forward-over-forward ("ff"); all four agree.

Run:  python examples/hessian.py
"""
import math

import mpmath

import dvlad


def f(p):
    x, y = p
    return dvlad.exp(x) * dvlad.sin(y) + x * x * y ** 3


def exact_hessian(x, y, exp, sin, cos):
    return [[exp(x) * sin(y) + 2 * y ** 3, exp(x) * cos(y) + 6 * x * y ** 2],
            [exp(x) * cos(y) + 6 * x * y ** 2, -exp(x) * sin(y) + 6 * x * x * y]]


def close(a, b, rel):
    return abs(a - b) <= rel * max(1, abs(b))


def main():
    point, v = (0.5, 1.5), (1.0, -2.0)

    H = dvlad.hessian(f)(point)
    want = exact_hessian(*point, math.exp, math.sin, math.cos)
    print(f"H at {point}:")
    for row in H:
        print("   ", row)
    assert all(close(H[i][j], want[i][j], 1e-14) for i in range(2) for j in range(2))
    assert H[0][1] == H[1][0]

    Hv = [H[i][0] * v[0] + H[i][1] * v[1] for i in range(2)]
    for mode in ("fr", "rf", "rr", "ff"):
        got = dvlad.hvp(f, point, v, mode=mode)
        print(f"hvp mode={mode!r}: {got}")
        assert all(close(g, h, 1e-14) for g, h in zip(got, Hv))

    # A quadratic has a constant Hessian: exact integers in every mode.
    q = lambda p: 2 * p[0] ** 2 + 3 * p[0] * p[1] + 4 * p[1] ** 2
    assert dvlad.hessian(q)((3.0, 4.0)) == [[4.0, 3.0], [3.0, 8.0]]
    u, w = (7.0, 8.0), (9.0, 10.0)
    for mode in ("fr", "rf", "rr", "ff"):
        Hw = dvlad.hvp(q, (3.0, 4.0), w, mode=mode)
        assert u[0] * Hw[0] + u[1] * Hw[1] == 1318.0
    print("quadratic 2x² + 3xy + 4y²: H = [[4, 3], [3, 8]], uᵀHv = 1318 in all four modes")

    # The same Hessian at 50 digits: mpf in, mpf out, checked against mpmath's own
    # numerical differentiation (mp.diff) of the same function written with mpmath.
    with mpmath.workdps(50):
        mp_point = (mpmath.mpf("0.5"), mpmath.mpf("1.5"))
        H50 = dvlad.hessian(f)(mp_point)
        f_mp = lambda x, y: mpmath.exp(x) * mpmath.sin(y) + x * x * y ** 3
        print("H at 50 digits:")
        for i in range(2):
            print("   ", [mpmath.nstr(h, 50) for h in H50[i]])
            for j in range(2):
                order = [0, 0]
                order[i] += 1
                order[j] += 1
                reference = mpmath.diff(f_mp, mp_point, tuple(order))
                assert type(H50[i][j]) is mpmath.mpf
                assert abs(H50[i][j] - reference) < mpmath.mpf("1e-45")
        exact = exact_hessian(*mp_point, mpmath.exp, mpmath.sin, mpmath.cos)
        assert all(abs(H50[i][j] - exact[i][j]) < mpmath.mpf("1e-45")
                   for i in range(2) for j in range(2))
        mp_v = (mpmath.mpf(1), mpmath.mpf(-2))
        for mode in ("fr", "rf", "rr", "ff"):
            got = dvlad.hvp(f, mp_point, mp_v, mode=mode)
            assert all(abs(g - (H50[i][0] * mp_v[0] + H50[i][1] * mp_v[1])) < mpmath.mpf("1e-45")
                       for i, g in enumerate(got))
    print("50-digit Hessian and all four hvp modes agree with mpmath.diff to 1e-45")


if __name__ == "__main__":
    main()
