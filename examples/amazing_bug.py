"""The amazing bug: derivatives of functions that return functions (Manzyuk et al., JFP 2019).

If f(x) is a function, D(f)(x)(a...) is the partial derivative of the uncurried f in x.  For

    f(x) = g ↦ y ↦ g(x + y),      f̂ = D(f)(3),

f̂(g)(y) = g′(3 + y), so f̂(f̂(exp))(1) = exp″(7) = e⁷ (DVL's dvl/examples/amazing-bug.dvl).  An
implementation that reads the returned function's tangent by post-composing it with "extract the
tangent of ε" gives 0: D(f)(3) made ONE tag, and both applications of f̂ extract it.  The first
section below shows that with a dozen lines of tagged dual numbers; the rest shows dvlad (which
eta-expands: every application of a returned function runs a fresh derivative) on the amazing-bug
examples of DVL, Emmy, scmutils and the paper, each with its right value and where that comes from.
See notes/functions-as-results.md.

Run:  python examples/amazing_bug.py
"""
import itertools
import math

from dvlad import derivative as D
from dvlad import exp, gradient_r, sin

# ---- a tagged forward AD whose function results are post-composed (wrong on purpose) ----------

_tags = itertools.count(1)


class Dual:
    """primal + tangent·ε_tag (ε² = 0); newer tags outermost."""

    def __init__(self, tag, primal, tangent):
        self.tag, self.primal, self.tangent = tag, primal, tangent


def _split(x, tag):
    return (x.primal, x.tangent) if isinstance(x, Dual) and x.tag == tag else (x, 0.0)


def toy_add(a, b):
    t = max((x.tag for x in (a, b) if isinstance(x, Dual)), default=0)
    if not t:
        return a + b
    (ap, at), (bp, bt) = _split(a, t), _split(b, t)
    return Dual(t, toy_add(ap, bp), toy_add(at, bt))


def toy_mul(a, b):
    t = max((x.tag for x in (a, b) if isinstance(x, Dual)), default=0)
    if not t:
        return a * b
    (ap, at), (bp, bt) = _split(a, t), _split(b, t)
    return Dual(t, toy_mul(ap, bp), toy_add(toy_mul(ap, bt), toy_mul(at, bp)))


def toy_exp(a):
    if not isinstance(a, Dual):
        return math.exp(a)
    e = toy_exp(a.primal)
    return Dual(a.tag, e, toy_mul(e, a.tangent))


def toy_tangent(tag, v):
    if callable(v):                                   # post-composition: the naive step
        return lambda *args: toy_tangent(tag, v(*args))
    if not isinstance(v, Dual) or v.tag < tag:
        return 0.0
    if v.tag == tag:
        return v.tangent
    return Dual(v.tag, toy_tangent(tag, v.primal), toy_tangent(tag, v.tangent))


def toy_derivative(f):
    def f_prime(x):
        tag = next(_tags)
        return toy_tangent(tag, f(Dual(tag, x, 1.0)))
    return f_prime


# ---- checking and printing ---------------------------------------------------------------------

def check(label, got, want, source):
    """Print one line and assert got is want to 1e-15 relative (exactly, for want == 0)."""
    ok = got == want if want == 0 else abs(got - want) <= 1e-15 * abs(want)
    print(f"{label:<46} = {got!r:<22} right: {want!r:<20} {source}")
    assert ok, (label, got, want)


def main():
    print("Post-composition with one tag per derivative call (the naive design):")
    f_toy = lambda x: lambda g: lambda y: g(toy_add(x, y))              # noqa: E731
    f_hat_toy = toy_derivative(f_toy)(3.0)
    naive = f_hat_toy(f_hat_toy(toy_exp))(1.0)
    print(f"{'  f̂(f̂(exp))(1)':<46} = {naive!r:<22} right: {math.exp(7)!r}   WRONG")
    assert naive == 0.0
    s_toy = lambda u: lambda g: lambda x: g(toy_add(x, u))              # noqa: E731
    s_hat_toy = toy_derivative(s_toy)(0.0)
    naive = s_hat_toy(s_hat_toy(toy_exp))(1.0)
    print(f"{'  ŝ(ŝ(exp))(1)':<46} = {naive!r:<22} right: {math.e!r}   WRONG")
    assert naive == 0.0

    print("\ndvlad (eta-expansion):")
    # DVL amazing-bug.dvl: f̂(g)(y) = g′(3 + y), twice: exp″(6 + y) = e⁷ at y = 1.
    def f(x):
        return lambda g: lambda y: g(x + y)
    f_hat = D(f)(3.0)
    check("  f̂(f̂(exp))(1)", f_hat(f_hat(exp))(1.0), 1096.6331584284585,
          "DVL amazing-bug.dvl (exp 7)")
    # scmutils diff.scm: ((f-hat exp) 5) = 2980.9579870417283 = e⁸; twice: e¹¹ (Emmy).
    check("  f̂(exp)(5)", f_hat(exp)(5.0), 2980.9579870417283, "scmutils diff.scm (e⁸)")
    check("  f̂(f̂(exp))(5)", f_hat(f_hat(exp))(5.0), math.exp(11), "Emmy amazing-bug (e¹¹)")

    # The paper: s(u) = f ↦ x ↦ f(x + u); ŝ = D(s)(0) is the derivative operator.
    def s(u):
        return lambda g: lambda x: g(x + u)
    s_hat = D(s)(0.0)
    check("  ŝ(ŝ(exp))(1)", s_hat(s_hat(exp))(1.0), math.e, "Manzyuk et al. 2019 (exp″(1) = e)")
    check("  ŝ(ŝ(ŝ(sin)))(1)", s_hat(s_hat(s_hat(sin)))(1.0), -math.cos(1.0), "sin‴ = −cos")

    # DVL amazing-bug-2.dvl: a pair of functions, each differentiated on its own.
    def pair(x):
        return (lambda y: sin(x * y), lambda g: lambda z: g(x + z))
    g_hat, f_hat2 = D(pair)(3.0)
    check("  bug 2: f̂(ĝ)(3.14159), a pair", f_hat2(g_hat)(3.14159), 8.504448924508122,
          "DVL amazing-bug-2.dvl")

    # DVL amazing-bug-3.dvl: a Church pair; the recipient runs inside the derivative.
    def church(x):
        return lambda r: r(lambda y: sin(x * y), lambda g: lambda z: g(x + z))
    check("  bug 3: the same through a Church pair",
          D(church)(3.0)(lambda g_hat, f_hat: f_hat(g_hat)(3.14159)), 8.32914929893078,
          "DVL amazing-bug-3.dvl")

    # DVL amazing-bug-5.dvl: (((derivative (church-output sin)) 1.) continue) = 2 sin 1 cos 1.
    church_output = lambda f: lambda x: lambda r: r(f(x))                   # noqa: E731
    check("  bug 5: D(church-output(sin))(1)(v ↦ v²)",
          D(church_output(sin))(1.0)(lambda v: v * v), 0.9092974268256818,
          "DVL amazing-bug-5.dvl")

    # Emmy "more subtle amazing bug!": v̂(v̂(identity))(exp)(1) = e.
    v = lambda u: lambda f1: lambda f2: lambda x: f1(f2)(x + u)             # noqa: E731
    v_hat = D(v)(0.0)
    check("  Emmy more subtle: v̂(v̂(id))(exp)(1)", v_hat(v_hat(lambda h: h))(exp)(1.0), math.e,
          "Emmy derivative_test.cljc")

    # The hard case: a returned function called later inside a newer gradient_r.
    h = D(lambda x: lambda y: x * x * y * y)(2.0)                           # h(y) = 4y²
    check("  gradient_r(D(x ↦ y ↦ x²y²)(2))(3)", gradient_r(h)(3.0), 24.0, "h′(y) = 8y")

    # scmutils diff.scm: (define ((f x) y z) (* x y z)); (((D f) 2) 3 4) should return 12.
    check("  D(x ↦ (y, z) ↦ x·y·z)(2)(3, 4)", D(lambda x: lambda y, z: x * y * z)(2.0)(3.0, 4.0),
          12.0, "scmutils diff.scm")


if __name__ == "__main__":
    main()
