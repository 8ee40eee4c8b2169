"""Straight-line float kernels for the hot recurrences of :mod:`dvlad.core.series`, per order n.

A row of the rule table names its kernel with :func:`kernel` (a source template and the float
functions it calls, by the template's own letters); the source is registered with ``linecache``,
so tracebacks and ``inspect`` show it.
"""
import linecache

# For a tower whose coefficients are all finite floats (so 0·c = 0 exactly: no structural zero
# needs skipping), the hot primitives run a function generated for their order n, value
# included, as dvlad.ops generates the primitives: for n = 6 it is ~4× faster than the loops.
# An argument that is affine (a₀ + a₁τ: the seed, and any linear function of it) takes a
# shorter branch.  The terms are those of the loops in dvlad.series; dvlad.tower puts back
# the structural zeros above a polynomial's degree and give a result that overflowed to the
# loops, so that a kernel never changes a value.

def _terms(pairs):
    return " + ".join(f"{p}*{q}" for p, q in pairs)


def _by(k):
    return "" if k == 1 else f"/{k}"


def _times(j):
    return "" if j == 1 else f"{j}*"


def _names(v, n):
    return ", ".join(f"{v}{k}" for k in range(n + 1))


def _kernel_source(args, head, n, affine_on, affine, dense):
    """def kernel(args): head; the affine lines if coefficients 2..n of ``affine_on`` are 0,
    else the dense lines (each a list of statements)."""
    lines = [f"def kernel({args}):"] + [f"    {h}" for h in head]
    if n >= 2:
        test = " or ".join(f"{affine_on}{k}" for k in range(2, n + 1))
        lines += [f"    if not ({test}):"] + [f"        {a}" for a in affine]
        lines += [f"    {d}" for d in dense]
    else:
        lines += [f"    {a}" for a in affine]
    return "\n".join(lines) + "\n"


def exp_source(n):
    affine = [f"z{k} = a1*z{k - 1}{_by(k)}" for k in range(1, n + 1)]
    affine += [f"return [{_names('z', n)}]"]
    dense = [f"w{j} = {_times(j)}a{j}" for j in range(1, n + 1)]
    dense += [f"z{k} = ({_terms((f'w{j}', f'z{k - j}') for j in range(1, k + 1))}){_by(k)}"
              for k in range(1, n + 1)]
    dense += [f"return [{_names('z', n)}]"]
    return _kernel_source("a", [f"{_names('a', n)}, = a", "z0 = F(a0)"], n, "a", affine, dense)


def sin_cos_source(first, hyperbolic):
    """The kernel of sin/cos (sinh/cosh with ``hyperbolic``): S and C are the pair's functions,
    ``first`` says the result is S's."""
    return lambda n: _sin_cos_source(first, hyperbolic, n)


def _sin_cos_source(first, hyperbolic, n):
    minus = "" if hyperbolic else "-"
    out = "s" if first else "c"
    # affine a: the k-th derivatives cycle (s, c, ∓s, ∓c), times pₖ = a₁ᵏ/k!
    affine = ["p1 = a1"] + [f"p{k} = p{k - 1}*a1/{k}" for k in range(2, n + 1)]
    affine += [f"n0 = {minus}{'c0' if out == 's' else 's0'}", f"m0 = {minus}{out}0"] if minus else []
    cycle = (["c0", "m0", "n0", f"{out}0"] if out == "s" else ["n0", "m0", "s0", f"{out}0"]) \
        if minus else (["c0", "s0"] if out == "s" else ["s0", "c0"])
    terms = [f"p{k}*{cycle[(k - 1) % len(cycle)]}" for k in range(1, n + 1)]
    affine += [f"return [{out}0, {', '.join(terms)}]"]
    dense = [f"w{j} = {_times(j)}a{j}" for j in range(1, n + 1)]
    for k in range(1, n + 1):
        dense += [f"s{k} = ({_terms((f'w{j}', f'c{k - j}') for j in range(1, k + 1))}){_by(k)}",
                  f"c{k} = {minus}({_terms((f'w{j}', f's{k - j}') for j in range(1, k + 1))})"
                  f"{_by(k)}"]
    dense += [f"return [{_names(out, n)}]"]
    return _kernel_source("a", [f"{_names('a', n)}, = a", "s0 = S(a0)", "c0 = C(a0)"],
                          n, "a", affine, dense)


def product_source(n):
    head = [f"{_names('a', n)}, = a", f"{_names('b', n)}, = b"]
    aff_b = ", ".join(f"a{k - 1}*b1 + a{k}*b0" for k in range(1, n + 1))
    aff_a = ", ".join(f"b{k - 1}*a1 + b{k}*a0" for k in range(1, n + 1))
    dense = ", ".join(_terms((f"a{j}", f"b{k - j}") for j in range(k + 1)) for k in range(1, n + 1))
    src = _kernel_source("a, b", head, n, "b", [f"return [a0*b0, {aff_b}]"],
                         [f"return [a0*b0, {dense}]"])
    if n >= 2:          # a affine (b not): the shorter products the other way round
        test = " or ".join(f"a{k}" for k in range(2, n + 1))
        src = src.replace(f"    return [a0*b0, {dense}]",
                          f"    if not ({test}):\n        return [a0*b0, {aff_a}]\n"
                          f"    return [a0*b0, {dense}]")
    return src


def quotient_source(n):
    lines = ["z0 = a0/b0"]
    lines += [f"z{k} = (a{k} - ({_terms((f'b{j}', f'z{k - j}') for j in range(1, k + 1))}))/b0"
              for k in range(1, n + 1)]
    lines += [f"return [{_names('z', n)}]"]
    return _kernel_source("a, b", [f"{_names('a', n)}, = a", f"{_names('b', n)}, = b"] + lines,
                          0, "", [], [])


_UNROLL = 40         # measured: unrolled stays ~3× faster than the loops to order 30; beyond
                     # 40 the source (O(n²) terms) takes longer to compile than it saves


class kernel:
    """A row's kernel: ``source(n)`` the text of ``def kernel(...)`` for order n, calling the
    float functions ``functions`` (name in the text -> a thunk giving the function, resolved at
    first use, when the rule table is complete).  ``self(n)`` is the kernel, made once, or None."""

    __slots__ = ("source", "functions", "made", "label")

    def __init__(self, source, **functions):
        self.source, self.functions, self.made, self.label = source, functions, {}, "?"

    def __call__(self, n):
        f = self.made.get(n)
        if f is None:
            if n > _UNROLL or n < 1:
                return None
            text = self.source(n)
            filename = f"<dvlad taylor kernel {self.label}, order {n}>"
            linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
            namespace = {k: thunk() for k, thunk in self.functions.items()}
            exec(compile(text, filename, "exec"), namespace)
            f = self.made[n] = namespace["kernel"]
        return f
