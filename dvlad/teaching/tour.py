"""The guided tour behind ``python -m dvlad``: each section prints code and its result."""
import argparse

import dvlad as ad

SECTIONS = []


def section(title):
    def register(fn):
        SECTIONS.append((fn.__name__, title, fn))
        return fn
    return register


def show(code, env):
    value = eval(code, env)
    print(f"  >>> {code}\n  {value!r}")
    return value


@section("Forward mode: derivative")
def forward():
    env = {"ad": ad}
    show("ad.derivative(lambda x: x * ad.sin(x))(1.0)", env)
    show("ad.derivative(ad.derivative(ad.exp))(0.0)", env)


@section("Reverse mode: gradient_r keeps your structure")
def reverse():
    env = {"ad": ad}
    show("ad.gradient_r(lambda p: p[0] * ad.exp(p[1]))((2.0, 0.0))", env)
    show("ad.gradient_r(lambda d: d['a'] * d['b'])({'a': 3.0, 'b': 4.0})", env)


@section("Nesting without perturbation confusion (Siskind & Pearlmutter 2005)")
def nesting():
    env = {"ad": ad, "D": ad.derivative, "R": ad.gradient_r}
    print("  d/dx [x · d/dy (x + y)] at x = 1 is 1: the inner derivative is 1 for every x.")
    show("D(lambda x: x * D(lambda y: x + y)(1.0))(1.0)", env)
    show("R(lambda x: x * D(lambda y: x + y)(1.0))(1.0)", env)
    show("D(lambda x: R(lambda y: x * y * y)(x))(3.0)", env)


@section("Perturbation confusion you can see: untagged dual numbers get it wrong")
def confusion():
    env = {"ad": ad, "naive": ad.naive}
    print("  dvlad.naive is forward AD with ONE shared ε (wrong on purpose). d/dx [x · d/dy (x+y)]:")
    show("naive.derivative(lambda x: x * naive.derivative(lambda y: x + y)(1.0))(1.0)", env)
    show("ad.derivative(lambda x: x * ad.derivative(lambda y: x + y)(1.0))(1.0)", env)
    print("  Each dvlad derivative call makes a fresh tag; inside, the numbers show theirs:")
    seen = []
    ad.derivative(lambda x: seen.append(repr(x)) or ad.derivative(
        lambda y: seen.append(repr(x * y)) or x * y)(2.0))(1.0)
    print(f"  outer x      = {seen[0]}\n  inner x * y  = {seen[1]}")


@section("Functions as results, and the amazing bug (Manzyuk et al. 2019)")
def functions():
    env = {"ad": ad, "math": __import__("math"),
           "adder": lambda n: (lambda x: x + n),
           "f": lambda x: (lambda g: (lambda y: g(x + y)))}
    print("  adder(n) = x ↦ x + n;  D(adder)(3) is a function: the partial derivative in n")
    show("ad.derivative(adder)(3.0)(4.0)", env)
    print("  f(x) = g ↦ y ↦ g(x + y);  f̂ = D(f)(3);  f̂(f̂(exp))(1) must be e⁷ (naive: 0)")
    env["fhat"] = ad.derivative(env["f"])(3.0)
    show("fhat(fhat(ad.exp))(1.0)", env)
    show("math.exp(7)", env)


@section("Fixed points, differentiable in every mode and order")
def fixed_points():
    env = {"ad": ad}
    print("  heron(a) = the fixed point of y ↦ (y + a/y)/2: √a, with derivatives by the implicit")
    print("  function theorem (the tangent iterated to convergence on its own; in reverse mode the")
    print("  adjoint iterated over one recorded step, so the tape does not grow with iterations).")
    env["heron"] = lambda a: ad.fixed_point(lambda y: (y + a / y) / 2, 1.0)
    show("heron(4.0), ad.derivative(heron)(4.0)", env)
    show("ad.derivative(lambda a: ad.gradient_r(heron)(a))(4.0)", env)
    print("  x = a·cos x at a = 0.5, and dx*/da:")
    env["x_star"] = lambda a: ad.fixed_point(lambda x: a * ad.cos(x), 0.0)
    show("x_star(0.5), ad.gradient_r(x_star)(0.5)", env)
    print("  A primitive of your own, checked by check_grads (finite differences + dot-product test):")
    env["cube"] = ad.primitive(lambda x: x ** 3, lambda x: (3 * x * x,), name="cube")
    show("ad.derivative(ad.derivative(cube))(2.0)", env)
    show("ad.check_grads(cube, 1.5, order=3) or 'passed'", env)


@section("numpy arrays: differentiate plain numpy code")
def arrays():
    import numpy as np
    env = {"ad": ad, "np": np}
    print("  Write plain numpy; bundles and tape cells carry whole arrays (no per-element objects).")
    env["rosen"] = lambda x: np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    env["x"] = np.array([0.5, 0.9, 1.1, 0.7])
    env["v"] = np.array([1.0, 0.0, -1.0, 0.5])
    print("  rosen(x) = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)")
    show("ad.gradient_r(rosen)(x)", env)
    show("ad.hvp(rosen, x, v)          # forward over reverse, no Hessian formed", env)
    show("ad.hessian(rosen)(x).shape", env)
    env["A"] = np.array([[3.0, 1.0], [1.0, 2.0]])
    show("ad.gradient_r(lambda M: np.linalg.det(M))(A)   # det(A)·A⁻ᵀ", env)
    try:
        ad.gradient_r(lambda x: np.sum(np.cumsum(x)))(env["x"])
    except ad.NotDifferentiableError as e:
        print(f"  a numpy function with no rule is loud: {str(e)[:60]}...")


@section("A picture of the tape")
def tape():
    print("  ad.tape_text(f, x) lists each cell: inputs, partials (edges), primal, sensitivity;")
    print("  ad.tape_graph(f, x, 'tape.svg') gives Graphviz DOT text (and renders it if installed).")
    print(ad.tape_text(lambda p: ad.sin(p[0]) * p[1] + p[0], (0.5, 2.0)))


@section("Second derivatives: Hessians and Hessian-vector products")
def second():
    env = {"ad": ad, "f": lambda p: 2 * p[0] ** 2 + 3 * p[0] * p[1] + 4 * p[1] ** 2}
    print("  f(x, y) = 2x² + 3xy + 4y²")
    show("ad.hessian(f)((3.0, 4.0))", env)
    for mode in ("fr", "rf", "rr", "ff"):
        show(f"ad.hvp(f, (3.0, 4.0), (9.0, 10.0), mode={mode!r})", env)


@section("Higher orders at Taylor-mode cost: derivatives, nth_derivative, taylor")
def higher():
    import time
    env = {"ad": ad, "f": lambda x: ad.exp(ad.sin(x)) * x}
    print("  One pass of Taylor towers (tag, c₀…cₙ) gives every order up to n: O(n²) per primitive,")
    print("  where nesting derivative n times costs O(2ⁿ).  f(x) = exp(sin x)·x:")
    show("ad.derivatives(f, 4)(0.7)", env)
    show("ad.nth_derivative(f, 6)(0.7)", env)
    show("ad.taylor(lambda x: 1 / (1 - x), 0.0, 5)       # coefficients f⁽ᵏ⁾/k!", env)
    show("ad.directional_derivatives(lambda p: p[0] ** 2 * p[1], (1.0, 2.0), (1.0, 1.0), 3)", env)
    f, d6 = env["f"], ad.nth_derivative(env["f"], 6)
    nested = f
    for _ in range(6):
        nested = ad.derivative(nested)
    times = []
    for g in (d6, nested):
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            g(0.7)
            best = min(best, time.perf_counter() - t)
        times.append(best)
    print(f"  6th derivative on this machine: the tower {times[0] * 1e6:.0f} µs, six nested "
          f"derivatives {times[1] * 1e6:.0f} µs (best of 5).")
    print("  Towers nest with everything else: a gradient of 3rd derivatives, by reverse mode:")
    show("ad.gradient_r(lambda p: ad.nth_derivative(lambda t: ad.sin(p[0] * t) * p[1], 3)(0.5))"
         "((1.2, 0.7))", env)


@section("Compiled: the reverse sweep as plain code")
def compiled():
    print("  ad.compile(F) records F's first call (every operation on the numbers, the reverse")
    print("  sweep included) and replays it as Python while its guards hold:")
    env = {"ad": ad}
    code = "g = ad.compile(ad.gradient_r(lambda p: p[0] * ad.sin(p[1])))"
    exec(code, env)
    print(f"  >>> {code}")
    show("g([2.0, 0.5])", env)
    show("g([1.0, 0.0])", env)
    print("  >>> print(g.source())")
    print("\n".join("  " + line for line in env["g"].source().splitlines()))
    print("  No tags are left in it: they were right while it was recorded.  Branches become")
    print("  guards, and captured variables are checked on every call (notes/compile.md).")


@section("Loud, never silently wrong")
def loud():
    import math
    try:
        ad.derivative(lambda x: math.sin(x))(1.0)
    except TypeError as e:
        print(f"  math.sin on a perturbed number raises {type(e).__name__}:\n    {e}")


def run(argv):
    parser = argparse.ArgumentParser(prog="python -m dvlad",
                                     description="A guided tour of dvlad. Sections: " +
                                     ", ".join(name for name, _, _ in SECTIONS))
    parser.add_argument("sections", nargs="*", help="run only these sections")
    args = parser.parse_args(argv)
    names = [name for name, _, _ in SECTIONS]
    unknown = [a for a in args.sections if a not in names]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; the sections are {', '.join(names)}")
    chosen = [s for s in SECTIONS if not args.sections or s[0] in args.sections]
    for k, (name, title, fn) in enumerate(chosen, 1):
        print(f"\n[{k}/{len(chosen)}] {title}  ({name})")
        fn()
    print("\nMore: README.md, notes/how-it-works.md, examples/.")
    return 0
