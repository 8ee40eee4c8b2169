"""The tour's later sections: a picture of the tape, second and higher derivatives, fixed
points, numpy arrays, compiled code, and the errors that keep dvlad from being silently wrong."""
import time

import dvlad as ad
from .lesson import run, say, section, show, wrapped


def _sum_for_cell_0(pic):
    """The sweep's sum for cell #0, written out from the picture's own numbers."""
    cells = pic.cells
    terms = [(c.index, c.sensitivity, d) for c in cells for a, d in c.links if a == 0]
    total = sum(float(s) * float(d) for _, s, d in terms)
    parts = " + ".join(f"{s} × {d} (from #{k})" for k, s, d in terms)
    return (f"For #0 (x[0]) that is {parts} = {total!r}, its sensitivity "
            f"{cells[0].sensitivity}.")


@section("A picture of the tape")
def tape():
    """Reverse mode's tape is a graph of f's operations; drawing it shows where each partial
    derivative sits and how the sweep adds them up into the gradient."""
    env = {}
    run("import dvlad as ad\npic = ad.tape_graph(lambda p: ad.sin(p[0]) * p[1] + p[0], (0.5, 2.0))", env)
    pic = show("pic", env)
    say("Each cell has its tape index, primal and sensitivity (∂output/∂cell); a computed cell "
        "lists its inputs with the local partials, #input·partial.  The sweep sets the "
        "output's sensitivity to 1 and walks back, giving each cell the sum, over the cells "
        "that use it, of their sensitivity × the partial.  " + _sum_for_cell_0(pic) +
        "  The inputs' sensitivities are the gradient:")
    show("ad.gradient_r(lambda p: ad.sin(p[0]) * p[1] + p[0])((0.5, 2.0))", env)
    say("In Jupyter, pic displays as a drawing (boxes for cells, arrows labelled with partials, "
        "unreached cells grey).  pic.save('tape.svg') writes it with nothing installed: dvlad "
        "draws the SVG itself, and uses Graphviz's layout when Graphviz is there.  As a string, "
        "pic is Graphviz DOT text:")
    run("print(pic)", env)


@section("Second derivatives: Hessians and Hessian-vector products")
def second():
    """Newton's method and curvature need second derivatives; dvlad gets them by nesting its
    operators, and a Hessian-vector product H·v costs a few gradients without forming H."""
    env = {}
    run("import dvlad as ad\nf = lambda p: 2 * p[0] ** 2 + 3 * p[0] * p[1] + 4 * p[1] ** 2   # 2x² + 3xy + 4y²", env)
    show("ad.hessian(f)((3.0, 4.0))", env, "[[4, 3], [3, 8]] everywhere")
    say("hvp's mode names the outer and the inner derivative, f forward and r reverse: all four "
        "give H·v = (4·9 + 3·10, 3·9 + 8·10):")
    for mode in ("fr", "rf", "rr", "ff"):
        show(f"ad.hvp(f, (3.0, 4.0), (9.0, 10.0), mode={mode!r})", env)


@section("Higher orders at Taylor-mode cost: derivatives, nth_derivative, taylor")
def higher():
    """Nesting derivative n times costs 2ⁿ; a Taylor tower carries every order up to n through
    one pass at about n² per operation, so high orders stay cheap."""
    env = {}
    run("import dvlad as ad\nf = lambda x: ad.exp(ad.sin(x)) * x", env)
    show("ad.derivatives(f, 4)(0.7)", env, "[f, f′, f″, f‴, f⁗] at 0.7")
    show("ad.nth_derivative(f, 6)(0.7)", env)
    show("ad.taylor(lambda x: 1 / (1 - x), 0.0, 5)", env, "coefficients f⁽ᵏ⁾/k! of 1/(1-x): all 1")
    show("ad.directional_derivatives(lambda p: p[0] ** 2 * p[1], (1.0, 2.0), (1.0, 1.0), 3)",
         env, "d^k/dt^k of (1+t)²(2+t) at 0")
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
    say(f"6th derivative on this machine: the tower {times[0] * 1e6:.0f} µs, six nested "
        f"derivatives {times[1] * 1e6:.0f} µs (best of 5).  Towers nest with everything else: a "
        f"gradient of 3rd derivatives, by reverse mode:")
    show("ad.gradient_r(lambda p: ad.nth_derivative(lambda t: ad.sin(p[0] * t) * p[1], 3)(0.5))"
         "((1.2, 0.7))", env)


@section("Fixed points, differentiable in every mode and order")
def fixed_points():
    """An iteration run to convergence (a solver) has a derivative given by the implicit function
    theorem; fixed_point computes it without differentiating through every iteration."""
    env = {}
    say("heron(a) = the fixed point of y ↦ (y + a/y)/2, which is √a:")
    run("import dvlad as ad\nheron = lambda a: ad.fixed_point(lambda y: (y + a / y) / 2, 1.0)", env)
    show("heron(4.0), ad.derivative(heron)(4.0)", env, "√4 = 2 and 1/(2√4) = 0.25")
    show("ad.derivative(lambda a: ad.gradient_r(heron)(a))(4.0)", env, "-1/(4·a^1.5) = -1/32")
    run("x_star = lambda a: ad.fixed_point(lambda x: a * ad.cos(x), 0.0)   # x = a·cos x", env)
    show("x_star(0.5), ad.gradient_r(x_star)(0.5)", env)
    say("A primitive of your own, with its derivative, checked by check_grads (finite "
        "differences and the dot-product test):")
    run("cube = ad.primitive(lambda x: x ** 3, lambda x: (3 * x * x,), name='cube')", env)
    show("ad.derivative(ad.derivative(cube))(2.0)", env, "6x = 12")
    show("ad.check_grads(cube, 1.5, order=3) or 'passed'", env)


# numpy functions without a dvlad rule today, tried in turn: the first that is refused is shown
# (should all of them gain rules, the section shows another refusal instead of breaking)
NO_RULE = ["np.sum(np.fft.fft(x).real)", "np.sum(np.unique(x))",
           "np.sum(np.histogram(x)[0] * x[0])", "np.sum(np.roots(x).real)"]


def loud_array_error(x):
    """(code, error) for the first of NO_RULE that dvlad refuses under gradient_r, else for
    converting a tracked array into a float array; error is None if nothing was refused."""
    import numpy as np
    tried = NO_RULE + ["np.sum(np.asarray(x, dtype=float))"]
    for code in tried:
        try:
            ad.gradient_r(eval(f"lambda x: {code}", {"np": np}))(x)
        except ad.DvladError as e:
            return code, e
    return tried[-1], None


@section("numpy arrays: differentiate plain numpy code")
def arrays():
    """Real code is written with numpy: dvlad's bundles and tape cells carry whole arrays, so
    numpy functions differentiate as they are, and one without a rule is refused loudly."""
    env = {}
    run("import dvlad as ad\nimport numpy as np\nrosen = lambda x: np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)\n"
        "x = np.array([0.5, 0.9, 1.1, 0.7])\nv = np.array([1.0, 0.0, -1.0, 0.5])", env)
    show("ad.gradient_r(rosen)(x)", env)
    show("ad.hvp(rosen, x, v)", env, "forward over reverse, no Hessian formed")
    show("ad.hessian(rosen)(x).shape", env)
    run("A = np.array([[3.0, 1.0], [1.0, 2.0]])", env)
    show("ad.gradient_r(lambda M: np.linalg.det(M))(A)", env, "det(A)·A⁻ᵀ")
    code, e = loud_array_error(env["x"])
    print(f"  >>> ad.gradient_r(lambda x: {code})(x)")
    if e is None:
        say("(no error: every function tried has a rule now)")
    else:
        print(f"  {type(e).__name__}:")
        print(wrapped(e))
        say("Rather than return a derivative with a piece silently missing, dvlad names the "
            "function and what to do.")


@section("Compiled: the reverse sweep as plain code")
def compiled():
    """Once a derivative has been computed, its operations can be replayed without the AD
    machinery; compile records them as straight-line Python you can read."""
    env = {}
    run("import dvlad as ad\ng = ad.compile(ad.gradient_r(lambda p: p[0] * ad.sin(p[1])))", env)
    show("g([2.0, 0.5])", env, "(sin p[1], p[0]·cos p[1])")
    show("g([1.0, 0.0])", env)
    run("print(g.source())", env)
    say("No tags are left in it: they were right while it was recorded.  The `if` lines "
        "check that the lambda and the global `ad` it reads are still the ones recorded (a "
        "rebound name makes a new trace, never a stale answer); the rest is the forward pass "
        "and the reverse sweep, the products by the sweep's 1.0 and the unread values left "
        "out.  Branches become guards too (notes/compile.md).")


@section("Loud, never silently wrong")
def loud():
    """A derivative that is quietly wrong is worse than an error, so dvlad raises one, and the
    message says which perturbation was involved, which call made it, and what to do."""
    env = {}
    run("import math\nimport dvlad as ad", env)
    say("math.sin knows nothing of perturbations: given a bundle it would drop the derivative.")
    try:
        run("ad.derivative(lambda x: math.sin(x))(1.0)", env)
    except ad.PerturbedConversionError as e:
        print(f"  {type(e).__name__} (a TypeError):")
        print(wrapped(e))
    say("A primitive of your own must get the perturbed variable through its arguments; one "
        "that closes over it breaks the tag order, and the error states the rule:")
    try:
        run("def h(a):\n    return ad.primitive(lambda x: x * a, lambda x: (a,), name='times_a')(a)"
            "\nad.derivative(h)(3.0)", env)
    except ad.TagOrderError as e:
        print(f"  {type(e).__name__}:")
        print(wrapped(e))
