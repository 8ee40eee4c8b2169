"""The tour's first sections: forward mode, reverse mode, perturbation confusion step by step,
nesting, and functions as results (the amazing bug).  Every number printed is computed."""
import dvlad as ad
from ..numbers.tape import link_pairs
from .epsilon import epsilons
from .lesson import num, run, say, section, show


@section("Forward mode: D = ad.derivative runs f on a number with a perturbation")
def forward():
    """A derivative says how fast f(x) changes as x changes; forward mode computes it by running f
    on x + ε, where ε is a tiny 'perturbation' with ε² = 0, and reading off the coefficient of ε.
    """
    env = {}
    run("import dvlad as ad\nD = ad.derivative        # the short name the tour uses", env)
    run("seen = []\ndef f(x):\n    seen.append(x)       # keep what f is given, to look at\n"
        "    y = x * x\n    seen.append(y)\n    return y", env)
    d = show("D(f)(3.0)", env, "d/dx x² = 2x = 6 at x = 3")
    x, y = env["seen"]
    show("seen[0]", env, f"x = {epsilons(x)}: primal 3, tangent 1")
    show("seen[1]", env, f"x·x = {epsilons(y)}")
    e, p = x.tag, num(x.primal)
    say(f"A Bundle(tag, primal, tangent) is the number primal + tangent·ε.  Inside f, x·x = "
        f"({p} + {e!r})({p} + {e!r}) = {num(x.primal ** 2)} + {num(2 * x.primal)}{e!r} + "
        f"{e!r}² = {epsilons(y)} ({e!r}² = 0), and D returns the tangent, "
        f"{num(d)}.  The tag {x.tag!r} names the D call that made this ε: each call makes a new "
        f"one, which is what keeps nested derivatives apart (section 3).")
    show("D(lambda x: x * ad.sin(x))(1.0)", env, "sin x + x·cos x at 1")
    show("D(D(ad.exp))(0.0)", env, "a derivative of a derivative: exp″(0) = 1")


@section("Reverse mode: R = ad.gradient_r records a tape and sweeps it backwards")
def reverse():
    """For f of many inputs and one output (a loss), reverse mode gives every partial derivative
    from one backward sweep over a record of f's operations (the tape), however many inputs."""
    env = {}
    run("import dvlad as ad\nR = ad.gradient_r        # the short name the tour uses", env)
    show("R(lambda p: p[0] * ad.exp(p[1]))((2.0, 0.0))", env,
         "(∂/∂p[0], ∂/∂p[1]) = (e^p[1], p[0]·e^p[1]), a tuple as p was")
    show("R(lambda d: d['a'] * d['b'])({'a': 3.0, 'b': 4.0})", env, "a dict in, a dict out")
    run("cells = []\ndef g(p):\n    out = p[0] * p[1]\n    cells.append(out)\n    return out", env)
    show("R(g)((2.0, 3.0))", env)
    c = show("cells[0]", env, "a tape cell: its tag#index, primal, and partials")
    parts = ", ".join(f"∂out/∂#{a.index} = {num(d)}" for a, d in link_pairs(c.links))
    say(f"While f runs, each value is a TapeCell that remembers its inputs and its local partials "
        f"({parts}: p[1] and p[0]).  When f returns, the sweep walks the tape from the output "
        f"back to the inputs, multiplying and adding partials (the chain rule): the gradient "
        f"above.  Section 6 draws a whole tape.")


def _trace_2005(d):
    """Run d/dx [x · d/dy (x + y)|_{y=1}] at x = 1 with the derivative operator d, keeping every
    intermediate value: {step: value}."""
    log = {}

    def outer(x):
        log["x"] = x

        def inner(y):
            log["y"] = y
            log["x + y"] = x + y
            return log["x + y"]
        log["inner"] = d(inner)(1.0)
        log["x * inner"] = x * log["inner"]
        return log["x * inner"]
    log["answer"] = d(outer)(1.0)
    return log


def _steps(rows):
    """Print (who, value, remark) rows in aligned columns; a long remark wraps under itself."""
    import textwrap
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for who, value, remark in rows:
        lead = f"    {who:<{w0}}  {value:<{w1}}  "
        lines = textwrap.wrap(remark, max(30, 96 - len(lead))) or [""]
        print((lead + lines[0]).rstrip())
        for more in lines[1:]:
            print(" " * len(lead) + more)


@section("Perturbation confusion, step by step: two derivatives, one ε")
def confusion():
    """When one derivative is taken inside another, each needs its own ε: with one shared ε the
    inner derivative counts the outer perturbation as its own, and the answer is silently wrong.
    """
    env = {}
    say("The classic test (Siskind & Pearlmutter 2005): d/dx [x · d/dy (x + y) at y = 1] at "
        "x = 1.  The inner derivative d/dy (x + y) is 1 whatever x is, so the whole thing is "
        "d/dx [x · 1] = 1.  dvlad.naive is forward AD with ONE ε for every derivative call, "
        "wrong on purpose:")
    run("import dvlad as ad\nfrom dvlad import naive", env)
    show("naive.derivative(lambda x: x * naive.derivative(lambda y: x + y)(1.0))(1.0)", env,
         "wrong: should be 1")
    t = _trace_2005(ad.naive.derivative)
    e = epsilons
    say("Step by step: the tour ran the same example again keeping every intermediate value "
        "(_trace_2005 in dvlad/teaching/tour_basics.py); naive.Dual(a, b) is a + bε:")
    _steps([("outer call:", f"x = {e(t['x'])}", repr(t["x"])),
            ("inner call:", f"y = {e(t['y'])}", f"{t['y']!r}: the SAME ε, nobody's in particular"),
            ("", f"x + y = {e(t['x + y'])}", repr(t["x + y"])),
            ("inner returns", f"the coefficient of ε: {num(t['inner'])}",
             "<- the two ε's merged: it should be 1, but the ε inside x, the outer call's, "
             "was counted as the inner call's own"),
            ("outer call:", f"x · {num(t['inner'])} = {e(t['x * inner'])}", ""),
            ("outer returns", f"the coefficient of ε: {num(t['answer'])}", "(right: 1)")])
    say("dvlad makes a fresh tag each time a derivative operator is applied, so the two calls "
        "have different ε's and each reads back only its own:")
    show("ad.derivative(lambda x: x * ad.derivative(lambda y: x + y)(1.0))(1.0)", env, "right")
    t = _trace_2005(ad.derivative)
    a, b = t["x"].tag, t["y"].tag
    _steps([("outer call:", f"x = {e(t['x'])}", f"{t['x']!r}: the outer call's tag is {a!r}"),
            ("inner call:", f"y = {e(t['y'])}", f"{t['y']!r}: a new tag, {b!r}"),
            ("", f"x + y = {e(t['x + y'])}", repr(t["x + y"])),
            ("inner returns", f"the coefficient of {b!r}: {num(t['inner'])}",
             f"<- {a!r} belongs to another call: it stays in the value, apart"),
            ("outer call:", f"x · {num(t['inner'])} = {e(t['x * inner'])}", repr(t["x * inner"])),
            ("outer returns", f"the coefficient of {a!r}: {num(t['answer'])}", "(right)")])
    say(f"A number carrying both perturbations is a bundle whose primal and tangent are bundles, "
        f"the newest tag outside: Bundle({b!r}, Bundle({a!r}, ...), ...).  The 2008 variant, "
        f"d/dx [x · d/dy (x·y) at y = 2] at x = 1, is 2; naive duals give 3:")
    show("naive.derivative(lambda x: x * naive.derivative(lambda y: x * y)(2.0))(1.0)", env,
         "wrong")
    show("ad.derivative(lambda x: x * ad.derivative(lambda y: x * y)(2.0))(1.0)", env, "right")


@section("Nesting D and R in any order, to any depth")
def nesting():
    """Because every call has its own tag, forward (D) and reverse (R) derivatives nest inside
    each other freely, and the example that confuses untagged duals comes out right every way."""
    env = {}
    run("import dvlad as ad\nD, R = ad.derivative, ad.gradient_r   # forward mode, reverse mode",
        env)
    say("d/dx [x · d/dy (x + y) at y = 1] at x = 1 is 1 (section 3), with either mode outside "
        "and either inside:")
    for outer in "DR":
        for inner in "DR":
            show(f"{outer}(lambda x: x * {inner}(lambda y: x + y)(1.0))(1.0)", env)
    show("D(lambda x: R(lambda y: x * y * y)(x))(3.0)", env,
         "d/dx [∂/∂y (x·y²) at y = x] = d/dx 2x² = 4x = 12")
    show("D(D(D(lambda x: x ** 4)))(1.0)", env, "three forward levels: 24x")
    show("ad.hessian(lambda p: p[0] ** 2 * p[1])((1.0, 2.0))", env,
         "forward over reverse: [[2y, 2x], [2x, 0]]")


@section("Functions as results, and the amazing bug (Manzyuk et al. 2019)")
def functions():
    """When f(x) is itself a function, its derivative is a function too, and applying it twice
    needs two tags: reusing one tag for both applications is the 'amazing bug', which gives 0."""
    env = {}
    run("import math\nimport dvlad as ad\nD = ad.derivative\n"
        "adder = lambda n: (lambda x: x + n)", env)
    say("D(adder)(3) is a function: the derivative of x + n in n, which is 1 for every x.")
    show("D(adder)(3.0)(4.0)", env)
    run("f = lambda x: (lambda g: (lambda y: g(x + y)))\nfhat = D(f)(3.0)", env)
    say("fhat(g)(y) = g′(3 + y), so fhat(fhat(exp))(1) = exp″(7) = e⁷.  Each application of "
        "fhat runs a derivative of its own, with a fresh tag; an implementation that makes ONE "
        "tag when D(f)(3) is built and reads it at both applications returns 0 "
        "(notes/functions-as-results.md, examples/amazing_bug.py).")
    show("fhat(fhat(ad.exp))(1.0)", env)
    show("math.exp(7)", env)
