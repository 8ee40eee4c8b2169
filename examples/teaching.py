# %% [markdown]
# # Perturbation confusion, at the keyboard
#
# A notebook in cell format: VS Code (with the Jupyter extension) shows the `# %%` cells as a
# notebook, and Jupytext opens it in Jupyter (`jupytext --to notebook examples/teaching.py`).
# It also runs as a plain script, `python examples/teaching.py`, and every cell asserts what it
# claims.  The long story is notes/perturbation-confusion.md; `python -m dvlad` is the same
# lesson in the terminal.
#
# `D` is forward mode (`dvlad.derivative`), `R` reverse mode (`dvlad.gradient_r`).

# %%
import math
import xml.etree.ElementTree as ET

import dvlad as ad
from dvlad import naive
from dvlad.teaching.epsilon import epsilons

D, R = ad.derivative, ad.gradient_r

# %% [markdown]
# ## One derivative by dual numbers
#
# Forward mode runs f on x + ε with ε² = 0 and reads off the coefficient of ε:
# (3 + ε)² = 9 + 6ε, and 6 is the derivative of x² at 3.  dvlad's numbers are bundles
# `Bundle(tag, primal, tangent)`; `epsilons(v)` writes one out as a sum (in a notebook, with
# subscripts).

# %%
seen = []
assert D(lambda x: seen.append(x * x) or x * x)(3.0) == 6.0
square = seen[0]
e = square.tag
assert str(epsilons(square)) == f"9 + 6{e!r}"
print(repr(square), "=", epsilons(square))
epsilons(square)

# %% [markdown]
# ## Two derivatives, one ε: the 2005 example
#
# d/dx [x · d/dy (x + y) at y = 1] at x = 1.  The inner derivative is 1 for every x, so the
# answer is 1.  Untagged dual numbers (`dvlad.naive`, wrong on purpose) give 2: the inner call
# sees x + y = (1 + ε) + (1 + ε) = 2 + 2ε and reads 2, counting the outer call's ε as its own.

# %%
def example_2005(d, log):
    def outer(x):
        def inner(y):
            log.append(x + y)
            return x + y
        return x * d(inner)(1.0)
    return d(outer)(1.0)


log = []
assert example_2005(naive.derivative, log) == 2.0              # wrong
assert str(epsilons(log[0])) == "2 + 2ε"                       # the two ε's merged
print("naive: x + y =", epsilons(log[0]), "-> the inner derivative reads 2")

log = []
assert example_2005(D, log) == 1.0                             # right
outer_tag, inner_tag = log[0].primal.tag, log[0].tag
assert inner_tag.n > outer_tag.n                                # the newest tag outside
assert str(epsilons(log[0])) == f"2 + {outer_tag!r} + {inner_tag!r}"
assert epsilons(log[0]).coefficient(inner_tag) == 1.0           # what the inner call reads
print("dvlad: x + y =", epsilons(log[0]), f"-> the inner derivative reads {inner_tag!r}'s 1")

# %% [markdown]
# ## Every nesting of forward and reverse mode

# %%
for outer in (D, R):
    for inner in (D, R):
        assert outer(lambda x: x * inner(lambda y: x + y)(1.0))(1.0) == 1.0
        assert outer(lambda x: x * inner(lambda y: x * y)(2.0))(1.0) == 2.0     # 2008
assert naive.derivative(lambda x: x * naive.derivative(lambda y: x * y)(2.0))(1.0) == 3.0
print("all four nestings: 1 and 2; naive duals: 2 and 3")

# %% [markdown]
# ## A picture of the reverse tape
#
# `tape_graph` returns a picture: a notebook shows it drawn (dvlad writes the SVG itself, no
# Graphviz needed), the terminal shows the table, and as a string it is Graphviz DOT text.
# `pic.save("tape.svg")` writes the drawing.

# %%
pic = ad.tape_graph(lambda p: ad.sin(p[0]) * p[1] + p[0], (0.5, 2.0))
drawing = ET.fromstring(pic.svg(layout="dvlad"))                # well-formed SVG
assert len(drawing.findall("{http://www.w3.org/2000/svg}g")) == len(pic.cells) == 5
grad = R(lambda p: ad.sin(p[0]) * p[1] + p[0])((0.5, 2.0))
assert [c.sensitivity for c in pic.cells[:2]] == [repr(g) for g in grad]
print(pic.text)
pic

# %% [markdown]
# ## The amazing bug: a derivative whose value is a function
#
# f(x) = g ↦ y ↦ g(x + y) and f̂ = D(f)(3), so f̂(g)(y) = g′(3 + y) and f̂(f̂(exp))(1) = e⁷.
# Reusing one tag at both applications of f̂ gives 0; dvlad runs a fresh derivative, with a
# fresh tag, at each application.

# %%
f = lambda x: lambda g: lambda y: g(x + y)                     # noqa: E731
f_hat = D(f)(3.0)
assert f_hat(f_hat(ad.exp))(1.0) == math.exp(7)
assert f_hat(f_hat(lambda u: u ** 3))(1.0) == 42.0              # (u³)″ at 7
print("f̂(f̂(exp))(1) =", f_hat(f_hat(ad.exp))(1.0), "= e⁷")

# %% [markdown]
# ## Errors that teach
#
# `math.sin` would drop a live perturbation, so dvlad refuses, and says which perturbation,
# which call made it, and what to use instead.

# %%
try:
    D(lambda x: math.sin(x))(1.0)
    raise AssertionError("math.sin of a bundle must raise")
except ad.PerturbedConversionError as error:
    message = str(error)
assert "was made by the derivative call started at" in message and "dvlad.sin" in message
print(message)
