"""Taylor towers: the third kind of AD number, for derivatives of every order at once.

A tower for tag τ is the truncated series c₀ + c₁τ + c₂τ² + … + cₙτⁿ with τⁿ⁺¹ = 0: c₀ is the
primal and cₖ = x⁽ᵏ⁾/k! are Taylor coefficients (not derivatives: the recurrences are simpler).
Like a bundle's primal and tangent, the coefficients carry only tags older than τ, so towers nest
with bundles, tape cells and each other under the one rule "newest tag outermost", and dispatch
through the same primitives (:mod:`dvlad.ops` sends them here, :mod:`dvlad.lift` does for mixed
arguments).

Each primitive of the rule table has a recurrence that gives all n coefficients in O(n²)
operations (Griewank & Walther, *Evaluating Derivatives*, ch. 13): products by convolution,
quotients and square roots by solving a convolution for its last term, and exp, log, sin/cos,
tan, atan... through the ODE each satisfies (exp: z′ = z·x′).  These recurrences are a speed
table only: the rule table stays the one statement of each primitive.  Every primitive without a
recurrence here (user primitives, array primitives), and every recurrence at a point where it
would divide by zero (sqrt at 0, log at 0, x**c at x = 0...), uses the derivation from the rule's
own partials, :func:`_from_partials`:

    z = f(x(t)),  z′ = Σᵢ ∂ᵢf(x(t))·xᵢ′(t),  so  zₘ = (Σᵢ ∂ᵢf(x(t))·xᵢ′(t))ₘ₋₁ / m,

with the partials evaluated, by dvlad's own operations, on the towers truncated to order n−1.
That is the definition the recurrences must agree with (tests/test_taylor.py checks each one
against it), and it follows the rule table's conventions at kinks exactly, as nested
``derivative`` does.

A coefficient that is :data:`ZERO` is a *structural zero*, "no term of this order" (the seed
x₀ + 1·τ has them from order 2, a constant from order 1): terms with it are skipped, which makes
the seed cheap and, as for a direction of exactly 0 in forward mode (or a constant, which nested
forward mode does not perturb), keeps an infinite partial from turning 0·inf into nan.  A
*computed* zero (a float 0.0 some arithmetic produced) is a number like any other: 0·inf is nan,
as it is in every other mode and for every base type.
"""
import numpy as np

from .base import FLOAT, MPF, promote
from .number import ADNumber, strip, strip_dead
from .rules import RULES
from .tags import alive


class Tower(ADNumber):
    """c₀ + c₁τ + … + cₙτⁿ for the Taylor perturbation ``tag``; ``primal`` is c₀."""

    __slots__ = ("tag", "primal", "coeffs")

    def __repr__(self):
        return f"Tower({self.tag!r}, {self.coeffs!r})"

    @property
    def order(self):
        """n: the highest power of τ kept."""
        return len(self.coeffs) - 1


def make_tower(tag, coeffs):
    """Tower(tag, [c₀, …, cₙ])."""
    t = Tower()
    t.tag, t.primal, t.coeffs = tag, coeffs[0], coeffs
    return t


class _NoTerm(float):
    """The type of :data:`ZERO`."""

    __slots__ = ()

    def __repr__(self):
        return "ZERO"


#: The structural zero: "no term of this order", as in a seed x₀ + 1·τ or a constant.  Terms
#: with it are skipped; arithmetic on it gives a plain 0.0 (a computed zero, never skipped).
ZERO = _NoTerm(0.0)


def _nz(a):
    """The indices j ≥ 1 of a's coefficients that are not structural zeros."""
    return [j for j in range(1, len(a)) if a[j] is not ZERO]


def _zero(c):
    return c is ZERO


def _sum0(p, q, sign):
    """p ± q, ZERO-aware (ZERO is a float to numpy, which would widen float32)."""
    if q is ZERO:
        return p
    if p is ZERO:
        return q if sign > 0 else -q
    return p + q if sign > 0 else p - q


def _times0(p, q):
    """p·q, ZERO if either is: ZERO is a float to numpy, which would widen float32."""
    return ZERO if p is ZERO or q is ZERO else p * q


def _support(a):
    """The indices of a's coefficients that are not structural zeros, 0 included (a derivative
    series, x′, may have none at order 0)."""
    return [j for j in range(len(a)) if a[j] is not ZERO]


def _degree(a):
    """The highest index of a coefficient of a that is not a structural zero (0 if none)."""
    k = len(a) - 1
    while k and a[k] is ZERO:
        k -= 1
    return k


def _keep_degree(z, d):
    """z (a kernel's result, every coefficient computed) with the structural zeros the loops
    would leave above degree d: ZERO·c = 0 as a number, but ZERO·inf must stay 'no term'."""
    n = len(z) - 1
    return z if d >= n else z[:d + 1] + [ZERO] * (n - d)


def _op(name):
    return RULES[name].op


# ---- the recurrences: lists of coefficients in, lists out -------------------------------------
# a, b are the arguments' coefficients (a constant is [c, 0.0, ..., 0.0]); z0 is the value,
# computed by the primitive itself one level down; n is the order.

def _add(a, b, n, sign):
    z = [_sum0(a[0], b[0], sign)]
    for k in range(1, n + 1):
        p, q = a[k], b[k]
        if _zero(q):
            z.append(p)
        elif _zero(p):
            z.append(q if sign > 0 else -q)
        else:
            z.append(p + q if sign > 0 else p - q)
    return z


def _mul(a, b, n, z0):
    """zₖ = Σⱼ aⱼ·bₖ₋ⱼ."""
    ia, ib = _support(a), _support(b)
    z = [None] * (n + 1)
    for i in ia:
        ai = a[i]
        for j in ib:
            k = i + j
            if k > n:
                break
            if k:
                t = ai * b[j]
                z[k] = t if z[k] is None else z[k] + t
    z[0] = z0
    return [ZERO if c is None else c for c in z]


def _scale(a, c, n, z0):
    """z = a·c for a constant c."""
    return [z0] + [p if _zero(p) else p * c for p in a[1:n + 1]]


def _square(a, n, z0):
    """zₖ = Σⱼ aⱼ·aₖ₋ⱼ, each off-diagonal pair once."""
    ia = _support(a)
    z = [None] * (n + 1)
    for x, i in enumerate(ia):
        ai = a[i]
        for j in ia[x:]:
            k = i + j
            if k > n:
                break
            if k:
                t = ai * a[j]
                if i != j:
                    t = t + t
                z[k] = t if z[k] is None else z[k] + t
    z[0] = z0
    return [ZERO if c is None else c for c in z]


def _div(a, b, n, z0):
    """z = a/b: b·z = a, so zₖ = (aₖ − Σ_{j≥1} bⱼ·zₖ₋ⱼ)/b₀."""
    ib, b0 = _nz(b), b[0]
    z = [z0]
    for k in range(1, n + 1):
        s = None if _zero(a[k]) else a[k]
        for j in ib:
            if j > k:
                break
            if not _zero(z[k - j]):
                t = b[j] * z[k - j]
                s = -t if s is None else s - t
        z.append(ZERO if s is None else s / b0)
    return z


def _weighted(a):
    """[(j, j·aⱼ)] over the terms of a (j ≥ 1): the coefficients of a′, for the ODE recurrences."""
    return [(j, j * a[j]) for j in _nz(a)]


def _dot(ja, z, k):
    """Σ_{j ≤ k} wⱼ·zₖ₋ⱼ over (j, wⱼ) in ja, or None if there is no term."""
    s = None
    for j, w in ja:
        if j > k:
            break
        if not _zero(z[k - j]):
            t = w * z[k - j]
            s = t if s is None else s + t
    return s


def _exp(a, n, z0):
    """z = exp a: z′ = z·a′, so zₖ = (1/k)·Σⱼ j·aⱼ·zₖ₋ⱼ."""
    ja = _weighted(a)
    z = [z0]
    for k in range(1, n + 1):
        s = _dot(ja, z, k)
        z.append(ZERO if s is None else s / k)
    return z


def _sin_cos(a, n, s0, c0, hyperbolic):
    """s = sin a, c = cos a (sinh, cosh): s′ = c·a′, c′ = ∓s·a′."""
    ja = _weighted(a)
    s, c = [s0], [c0]
    for k in range(1, n + 1):
        ss, cs = _dot(ja, c, k), _dot(ja, s, k)
        s.append(ZERO if ss is None else ss / k)
        c.append(ZERO if cs is None else (cs / k if hyperbolic else -cs / k))
    return s, c


def _log(a, n, z0, a0):
    """z = log a: a·z′ = a′, so zₖ = (aₖ − (1/k)·Σ_{1≤j<k} j·zⱼ·aₖ₋ⱼ)/a₀ (log1p: a₀ is 1 + a₀)."""
    ia = _nz(a)
    z = [z0]
    for k in range(1, n + 1):
        s = None
        for i in ia:
            if i >= k:
                break
            if not _zero(z[k - i]):
                t = (k - i) * z[k - i] * a[i]
                s = t if s is None else s + t
        if s is None:
            z.append(ZERO if _zero(a[k]) else a[k] / a0)
        else:
            s = s / k
            z.append((-s if _zero(a[k]) else a[k] - s) / a0)
    return z


def _sqrt(a, n, z0):
    """z = √a: z·z = a, so zₖ = (aₖ − Σ_{1≤j<k} zⱼ·zₖ₋ⱼ)/(2z₀)."""
    z = [z0]
    two_z0 = z0 + z0
    for k in range(1, n + 1):
        s = None
        for j in range(1, (k + 1) // 2):
            if not (_zero(z[j]) or _zero(z[k - j])):
                t = z[j] * z[k - j]
                s = t if s is None else s + t
        if s is not None:
            s = s + s
        if k % 2 == 0 and not _zero(z[k // 2]):
            t = z[k // 2] * z[k // 2]
            s = t if s is None else s + t
        if s is None:
            z.append(ZERO if _zero(a[k]) else a[k] / two_z0)
        else:
            z.append((-s if _zero(a[k]) else a[k] - s) / two_z0)
    return z


def _pow_const(a, c, n, z0, a0):
    """z = a**c for a constant c: a·z′ = c·z·a′, so
    k·a₀·zₖ = Σ_{j≥1} (c·j − (k − j))·aⱼ·zₖ₋ⱼ."""
    ia = _nz(a)
    z = [z0]
    for k in range(1, n + 1):
        s = None
        for j in ia:
            if j > k:
                break
            if not _zero(z[k - j]):
                t = (c * j - (k - j)) * a[j] * z[k - j]
                s = t if s is None else s + t
        z.append(ZERO if s is None else s / (k * a0))
    return z


def _tan(a, n, z0, sign):
    """z = tan a (tanh, sign −1): z′ = (1 ± z²)·a′, the square built alongside."""
    ja = _weighted(a)
    z = [z0]
    w = [1.0 + z0 * z0 if sign > 0 else 1.0 - z0 * z0]
    for k in range(1, n + 1):
        s = _dot(ja, w, k)
        z.append(ZERO if s is None else s / k)
        q = None                                   # (z²)ₖ
        for i in range(0, (k + 1) // 2):
            if not (_zero(z[i]) or _zero(z[k - i])):
                t = z[i] * z[k - i]
                q = t if q is None else q + t
        if q is not None:
            q = q + q
        if k % 2 == 0 and not _zero(z[k // 2]):
            t = z[k // 2] * z[k // 2]
            q = t if q is None else q + t
        w.append(ZERO if q is None else (q if sign > 0 else -q))
    return z


def _integrate_quotient(p, u, n, z0):
    """z with u·z′ = p, given z₀: m·u₀·zₘ = pₘ₋₁ − Σ_{1≤j<m} (m − j)·uⱼ·zₘ₋ⱼ."""
    iu = _nz(u)
    u0 = u[0]
    z = [z0]
    for m in range(1, n + 1):
        s = None if _zero(p[m - 1]) else p[m - 1]
        for j in iu:
            if j >= m:
                break
            if not _zero(z[m - j]):
                t = (m - j) * u[j] * z[m - j]
                s = -t if s is None else s - t
        z.append(ZERO if s is None else s / (m * u0))
    return z


def _derivative(a, n):
    """The coefficients of a′ up to order n − 1: (j + 1)·aⱼ₊₁."""
    return [p if _zero(p) else (j + 1) * p for j, p in enumerate(a[1:n + 1])]


def _is_array(v):
    while isinstance(v, ADNumber):
        v = v.primal
    return type(v) is np.ndarray


def _all(cond):
    """cond, a comparison of (possibly array) primals, holds everywhere."""
    return bool(np.all(cond)) if type(cond) is np.ndarray else bool(cond)


# ---- float kernels: the same recurrences, generated as straight-line code ----------------------
# For a tower whose coefficients are all finite floats (so 0·c = 0 exactly: no structural zero
# needs skipping), the hot primitives run a function generated for their order n, value
# included, as dvlad.ops generates the primitives: for n = 6 it is ~4× faster than the loops.
# An argument that is affine (a₀ + a₁τ: the seed, and any linear function of it) takes a
# shorter branch.  The terms are those of the general recurrences above; tower1/tower2 put back
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


def _exp_source(name, n):
    affine = [f"z{k} = a1*z{k - 1}{_by(k)}" for k in range(1, n + 1)]
    affine += [f"return [{_names('z', n)}]"]
    dense = [f"w{j} = {_times(j)}a{j}" for j in range(1, n + 1)]
    dense += [f"z{k} = ({_terms((f'w{j}', f'z{k - j}') for j in range(1, k + 1))}){_by(k)}"
              for k in range(1, n + 1)]
    dense += [f"return [{_names('z', n)}]"]
    return _kernel_source("a", [f"{_names('a', n)}, = a", "z0 = exp(a0)"], n, "a", affine, dense)


def _sin_cos_source(name, n):
    neg = "" if name in ("sinh", "cosh") else "-"
    s, c = ("sin", "cos") if neg else ("sinh", "cosh")
    out = "s" if name in ("sin", "sinh") else "c"
    # affine a: the k-th derivatives cycle (s, c, ∓s, ∓c), times pₖ = a₁ᵏ/k!
    affine = ["p1 = a1"] + [f"p{k} = p{k - 1}*a1/{k}" for k in range(2, n + 1)]
    affine += [f"n0 = {neg}{'c0' if out == 's' else 's0'}", f"m0 = {neg}{out}0"] if neg else []
    cycle = (["c0", "m0", "n0", f"{out}0"] if out == "s" else ["n0", "m0", "s0", f"{out}0"]) \
        if neg else (["c0", "s0"] if out == "s" else ["s0", "c0"])
    terms = [f"p{k}*{cycle[(k - 1) % len(cycle)]}" for k in range(1, n + 1)]
    affine += [f"return [{out}0, {', '.join(terms)}]"]
    dense = [f"w{j} = {_times(j)}a{j}" for j in range(1, n + 1)]
    for k in range(1, n + 1):
        dense += [f"s{k} = ({_terms((f'w{j}', f'c{k - j}') for j in range(1, k + 1))}){_by(k)}",
                  f"c{k} = {neg}({_terms((f'w{j}', f's{k - j}') for j in range(1, k + 1))})"
                  f"{_by(k)}"]
    dense += [f"return [{_names(out, n)}]"]
    return _kernel_source("a", [f"{_names('a', n)}, = a", f"s0 = {s}(a0)", f"c0 = {c}(a0)"],
                          n, "a", affine, dense)


def _mul_source(name, n):
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


def _div_source(name, n):
    lines = ["z0 = a0/b0"]
    lines += [f"z{k} = (a{k} - ({_terms((f'b{j}', f'z{k - j}') for j in range(1, k + 1))}))/b0"
              for k in range(1, n + 1)]
    lines += [f"return [{_names('z', n)}]"]
    return _kernel_source("a, b", [f"{_names('a', n)}, = a", f"{_names('b', n)}, = b"] + lines,
                          0, "", [], [])


_SOURCES = {"exp": _exp_source, "sin": _sin_cos_source, "cos": _sin_cos_source,
            "sinh": _sin_cos_source, "cosh": _sin_cos_source, "mul": _mul_source,
            "div": _div_source}
_KERNELS = {name: {} for name in _SOURCES}
_UNROLL = 40         # measured: unrolled stays ~3× faster than the loops to order 30; beyond
                     # 40 the source (O(n²) terms) takes longer to compile than it saves


def _float_kernel(name, n):
    """The generated kernel of primitive ``name`` for order n ≥ 1, or None (made once, kept)."""
    ks = _KERNELS.get(name)
    if ks is None:
        return None
    f = ks.get(n)
    if f is None:
        if n > _UNROLL or n < 1:
            return None
        namespace = dict(FLOAT)
        exec(compile(_SOURCES[name](name, n), f"<dvlad taylor kernel {name}, order {n}>", "exec"),
             namespace)
        f = ks[n] = namespace["kernel"]
    return f


# ---- which recurrence for which primitive --------------------------------------------------------

def _sin_cos_rec(name):
    """sin, cos, sinh or cosh: the pair's recurrence, returning this member."""
    first = name in ("sin", "sinh")
    other = {"sin": "cos", "cos": "sin", "sinh": "cosh", "cosh": "sinh"}[name]
    hyperbolic = name in ("sinh", "cosh")

    def rec(a, n, z0):
        w0 = _op(other)(a[0])
        s0, c0 = (z0, w0) if first else (w0, z0)
        s, c = _sin_cos(a, n, s0, c0, hyperbolic)
        return s if first else c
    return rec


def _abs(a, n, z0):                       # sign(a₀)·a: 0 at 0, as the rule says
    sg = _op("sign")(a[0])
    return [z0] + [p if _zero(p) else sg * p for p in a[1:]]


def _atan(a, n, z0):                      # z′ = a′/(1 + a²)
    u = _square(a, n - 1, a[0] * a[0])
    u[0] = 1.0 + u[0]
    return _integrate_quotient(_derivative(a, n), u, n, z0)


def _asin_acos(sign):
    def rec(a, n, z0):                    # z′ = ±a′/√(1 − a²)
        a0 = a[0]
        if not _all(a0 * a0 != 1):
            return None
        u = _square(a, n - 1, a0 * a0)
        u = [1.0 - u[0]] + [c if _zero(c) else -c for c in u[1:]]
        u = _sqrt(u, n - 1, _op("sqrt")(u[0]))
        p = _derivative(a, n)
        if sign < 0:
            p = [c if _zero(c) else -c for c in p]
        return _integrate_quotient(p, u, n, z0)
    return rec


def _log_rec(shift):
    def rec(a, n, z0):                    # log a, or log1p a = log(1 + a)
        u0 = a[0] + 1.0 if shift else a[0]
        return _log(a, n, z0, u0) if _all(u0 != 0) else None
    return rec


# Each returns the coefficients, or None where it would divide by zero (a kink or a domain
# edge): the rule's partials, with their conventions, take over there.
UNARY = {
    "neg": lambda a, n, z0: [z0] + [p if _zero(p) else -p for p in a[1:]],
    "square": lambda a, n, z0: _square(a, n, z0),
    "reciprocal": lambda a, n, z0: (_div([1.0] + [ZERO] * n, a, n, z0) if _all(a[0] != 0)
                                    else None),
    "abs": _abs,
    "sqrt": lambda a, n, z0: _sqrt(a, n, z0) if _all(z0 != 0) else None,
    "exp": _exp,
    "expm1": lambda a, n, z0: [z0] + _exp(a, n, z0 + 1.0)[1:],
    "log": _log_rec(False),
    "log1p": _log_rec(True),
    "sin": _sin_cos_rec("sin"),
    "cos": _sin_cos_rec("cos"),
    "sinh": _sin_cos_rec("sinh"),
    "cosh": _sin_cos_rec("cosh"),
    "tan": lambda a, n, z0: _tan(a, n, z0, 1),
    "tanh": lambda a, n, z0: _tan(a, n, z0, -1),
    "atan": _atan,
    "asin": _asin_acos(1),
    "acos": _asin_acos(-1),
}


def _mul_rec(a, b, n, z0, ain, bin_):
    if not bin_:
        return _scale(a, b[0], n, z0)
    if not ain:
        return _scale(b, a[0], n, z0)
    if a is b:
        return _square(a, n, z0)
    return _mul(a, b, n, z0)


def _div_rec(a, b, n, z0, ain, bin_):
    if not bin_:
        b0 = b[0]
        return [z0] + [p if _zero(p) else p / b0 for p in a[1:n + 1]]
    if not _all(b[0] != 0):
        return None
    return _div(a, b, n, z0)


def _pow_rec(a, b, n, z0, ain, bin_):
    a0, b0 = a[0], b[0]
    if not bin_:
        if not _all(a0 != 0):
            return None                        # x**c at x = 0: the rule's conventions
        if not isinstance(b0, ADNumber) and not _is_array(b0) and b0 == int(b0) and 0 < b0 <= 64:
            return _int_power(a, int(b0), n, z0)
        if not _normal(z0):
            return None                        # a₀ᶜ under- or overflows: the recurrence, which
        return _pow_const(a, b0, n, z0, a0)    # divides by it, would lose every order
    if not _all(a0 > 0):
        return None                            # a**y needs log a
    log_a = _log(a, n, _op("log")(a0), a0) if ain else [_op("log")(a0)] + [ZERO] * n
    e = _mul(b, log_a, n, b0 * log_a[0]) if ain else _scale(b, log_a[0], n, b0 * log_a[0])
    return _exp(e, n, z0)


def _int_power(a, c, n, z0):
    """a**c for an int c ≥ 1 by squaring and multiplying: no division by a₀ (whose power may
    underflow), and exact as nested derivatives are."""
    out = None
    while c:
        if c & 1:
            out = a if out is None else _mul(out, a, n, out[0] * a[0])
        c >>= 1
        if c:
            a = _square(a, n, a[0] * a[0])
    return [z0] + out[1:]


def _normal(z):
    """z's base value (every element) is a float far from under- and overflow (mpf: always)."""
    while isinstance(z, ADNumber):
        z = z.primal
    if type(z) is MPF:
        return True
    m = np.abs(z)
    info = np.finfo(m.dtype if isinstance(m, (np.ndarray, np.generic)) and m.dtype.kind == "f"
                    else np.float64)
    # far from both ends: a₀ᶜ's neighbours in the recurrence (a₀ᶜ⁻ᵏ) stay representable
    return bool(np.all((m > info.tiny / info.eps) & (m < info.max * info.eps)))


def _atan2_rec(a, b, n, z0, ain, bin_):        # z′ = (b·a′ − a·b′)/(a² + b²)
    a0, b0 = a[0], b[0]
    if not _all((a0 != 0) | (b0 != 0) if _is_array(a0) or _is_array(b0) else (a0 or b0)):
        return None
    u = _add(_square(a, n - 1, a0 * a0), _square(b, n - 1, b0 * b0), n - 1, 1)
    da, db = _derivative(a, n), _derivative(b, n)
    p = _add(_mul(b, da, n - 1, _times0(b0, da[0])), _mul(a, db, n - 1, _times0(a0, db[0])),
             n - 1, -1)
    return _integrate_quotient(p, u, n, z0)


def _hypot_rec(a, b, n, z0, ain, bin_):         # √(a² + b²)
    if not _all(z0 != 0):
        return None
    u = _add(_square(a, n, a[0] * a[0]), _square(b, n, b[0] * b[0]), n, 1)
    return _sqrt(u, n, z0)


def _add_rec(sign):
    def rec(a, b, n, z0, ain, bin_):
        if not bin_:
            return [z0] + a[1:n + 1]
        if not ain:
            return [z0] + (b[1:n + 1] if sign > 0 else [q if _zero(q) else -q for q in b[1:n + 1]])
        z = _add(a, b, n, sign)
        z[0] = z0
        return z
    return rec


# mod, maximum and minimum have piecewise-constant partials: the derivation from them
# (_from_partials) is already a few multiplications per coefficient.
BINARY = {
    "add": _add_rec(1),
    "sub": _add_rec(-1),
    "mul": _mul_rec,
    "div": _div_rec,
    "pow": _pow_rec,
    "atan2": _atan2_rec,
    "hypot": _hypot_rec,
}


# ---- the lifts ---------------------------------------------------------------------------------

# The recurrences that solve for a coefficient by a division the derivation from the partials
# does not make (log: a·z′ = a′, where the derivation multiplies by 1/a); the others compute
# the derivation's own products (exp: z′ = z·a′), so they agree with it even at an infinity.
_QUOTIENTS = frozenset(("log", "log1p", "sqrt", "reciprocal", "asin", "acos", "atan", "atan2",
                        "pow", "hypot"))


def _finite(cs, tower=True):
    """A constant, or a tower whose coefficients of order ≥ 1 have finite base values.  Where
    one is not, each recurrence's arithmetic (1 + a², b·a′ − a·b′ ...) would place its infs and
    nans its own way: the derivation from the rule's partials, which defines the result,
    computes it instead."""
    if not tower:
        return True
    acc = 0.0
    for c in cs[1:]:
        if c is not ZERO:
            while isinstance(c, ADNumber):
                c = c.primal
            acc = acc + c
    d = acc - acc
    return bool((d == 0).all()) if type(d) is np.ndarray else d == 0


def _zero_value(name, px, py):
    """The value of a primitive when an argument is a structural zero (a derivative series x′
    may start with one): no term times anything is no term, and no term added changes nothing."""
    if name == "mul":
        return ZERO
    if name == "add":
        return py if px is ZERO else px
    if name == "sub":
        return px if py is ZERO else (ZERO if px is ZERO and py is ZERO else -py)
    return _op(name)(px, py)


def _coeffs(v, tag, n):
    """v's coefficients 0..n at tag: a tower's own, or a constant's [v, ZERO, ...]."""
    if type(v) is Tower and v.tag is tag:
        c = v.coeffs
        if len(c) == n + 1:
            return c
        return c[:n + 1] if len(c) > n else c + [ZERO] * (n + 1 - len(c))
    return [v] + [ZERO] * n


def tower1(rule, x):
    """A unary primitive of the rule table at a tower."""
    tag = x.tag
    a = x.coeffs
    n = len(a) - 1
    if tag.live and type(a[0]) is float:
        s = sum(a)
        if type(s) is float and s - s == 0.0:
            kernel = _float_kernel(rule.name, n)
            if kernel is not None:
                z = kernel(a)
                s = sum(z)
                if s - s == 0.0:           # else an overflow: the loops (structural zeros
                    if a[1] is ZERO and not _degree(a):        # skipped) say what it is
                        z = _keep_degree(z, 0)                 # a constant in, a constant out
                    t = Tower()
                    t.tag, t.primal, t.coeffs = tag, z[0], z
                    return t
    if not tag.live and not alive(tag):
        return rule.op(x.primal)
    z0 = rule.op(x.primal)
    if not n:
        return make_tower(tag, [z0])
    rec = UNARY.get(rule.name)
    z = rec(a, n, z0) if rec is not None and (rule.name not in _QUOTIENTS or _finite(a)) else None
    if z is None:
        z = _from_partials(rule, tag, (x,), (True,), n, z0)
    return make_tower(tag, z)


def tower2(rule, tag, x, y, xin, yin):
    """A binary primitive of the rule table whose newest live tag, ``tag``, is a tower's."""
    if xin and yin:
        a, b = x.coeffs, y.coeffs
        if len(a) == len(b) and type(a[0]) is float and type(b[0]) is float:
            s = sum(a) + sum(b)
            if type(s) is float and s - s == 0.0:
                kernel = _float_kernel(rule.name, len(a) - 1)
                if kernel is not None:
                    z = kernel(a, b)
                    s = sum(z)
                    if s - s == 0.0:
                        if b[-1] is ZERO and (a[-1] is ZERO or b[1] is ZERO):
                            # polynomials (mul), or a quotient by a constant (div): the degree
                            da, db = _degree(a), _degree(b)
                            z = _keep_degree(z, da + db if rule.name == "mul" else
                                             (da if db == 0 else len(a)))
                        t = Tower()
                        t.tag, t.primal, t.coeffs = tag, z[0], z
                        return t
    if xin:
        n = len(x.coeffs) - 1
        if yin:
            n = min(n, len(y.coeffs) - 1)
    else:
        n = len(y.coeffs) - 1
    px = x.primal if xin else x
    py = y.primal if yin else y
    if xin is not yin:
        c = py if xin else px
        if (type(c) is float or type(c) is int) and type(strip(px if xin else py)) is MPF:
            # a float constant against mpf coefficients: mpf first, so that the recurrences'
            # arithmetic with it (c·j in x**c, b₀² in atan2) is at mpf precision too
            px, py = promote(px, py, strip)
            if not xin:
                x = px
            if not yin:
                y = py
    if px is ZERO or py is ZERO:
        z0 = _zero_value(rule.name, px, py)
    else:
        z0 = rule.op(px, py)
    if n == 0:
        return make_tower(tag, [z0])
    a = _coeffs(x, tag, n) if xin else [x] + [ZERO] * n
    b = a if (y is x) else (_coeffs(y, tag, n) if yin else [y] + [ZERO] * n)
    rec = BINARY.get(rule.name)
    z = (rec(a, b, n, z0, xin, yin) if rec is not None and (
        rule.name not in _QUOTIENTS or _finite(a, xin) and _finite(b, yin)) else None)
    if z is None:
        z = _from_partials(rule, tag, (x, y), (xin, yin), n, z0)
    return make_tower(tag, _fit(z))


def _truncate(v, tag, n):
    """Tower v cut to order n − 1."""
    return make_tower(tag, v.coeffs[:n])


def _series_of(v, tag, m):
    """The coefficients 0..m of v at tag (v a tower of that tag, or a constant)."""
    v = strip_dead(v)
    return _coeffs(v, tag, m)


def _from_partials(rule, tag, args, ins, n, z0):
    """The coefficients of f(args) from the rule's own partials: zₘ = (Σ ∂ᵢf·xᵢ′)ₘ₋₁/m."""
    low = [_truncate(a, tag, n) if i else a for a, i in zip(args, ins)]
    partials = rule.array_partials if any(_is_array(a) for a in args) else rule.partials
    uses_r = any(u[-1] for u, i in zip(rule.uses, ins) if i)
    r_low = rule.op(*low) if uses_r else None
    p = None
    for a, i, d in zip(args, ins, partials):
        if i:
            da = _derivative(a.coeffs, n)
            if _is_array(z0):
                with np.errstate(invalid="ignore"):        # inf·0: see _unreached
                    term = _dot_partial(d(*low, r_low), da, a.primal) * make_tower(tag, da)
                term = _unreached(term, da, tag)
            else:
                term = d(*low, r_low) * make_tower(tag, da)
            p = term if p is None else p + term
    q = _series_of(p, tag, n - 1)
    return _fit([z0] + [c if _zero(c) else c / m for m, c in enumerate(q, 1)])


def _dot_partial(d, da, like):
    """An array partial made of Python constants (np.where(c, 1.0, 0.5)) is float64: it takes
    the argument's floating type, so that it does not widen float32 (as lift._times does)."""
    b = like
    while isinstance(b, ADNumber):
        b = b.primal
    if type(d) is np.ndarray and type(b) is np.ndarray and d.dtype != b.dtype \
            and b.dtype.kind == "f" and d.dtype.itemsize > b.dtype.itemsize:
        return d.astype(b.dtype)
    return d


def _unreached(term, da, tag):
    """An element whose every coefficient of x′ is 0 contributes nothing, even where the partial
    is infinite (sqrt at 0 along a direction with a 0 there), as in forward mode."""
    cs = _series_of(term, tag, len(da) - 1)
    base = cs[0]
    while isinstance(base, ADNumber):
        base = base.primal
    if type(base) is not np.ndarray or np.isfinite(base).all():
        return term
    still = None                                   # the elements some coefficient of x′ moves
    for c in da:
        if not _zero(c):
            while isinstance(c, ADNumber):
                c = c.primal
            moved = c != 0
            still = moved if still is None else still | moved
    if still is None or still.all():
        return term
    where = ARRAYS()["where"]
    return make_tower(tag, [c if _zero(c) else where(still, c, 0.0) for c in cs])


def ARRAYS():
    """dvlad's array primitives (where, broadcast_to), bound once dvlad.arrays is imported."""
    from .lift import ARRAY_OPS
    return ARRAY_OPS


def _fit(z):
    """Coefficients broadcast to the shape of the value: a constant array operand (t + A) gives
    z₀ its shape, while z₁… came from the tower alone."""
    b = z[0]
    while isinstance(b, ADNumber):
        b = b.primal
    if type(b) is not np.ndarray:
        return z
    shape = b.shape
    out = [z[0]]
    for c in z[1:]:
        if not _zero(c):
            cb = c
            while isinstance(cb, ADNumber):
                cb = cb.primal
            if np.shape(cb) != shape:
                c = ARRAYS()["broadcast_to"](c, shape)
        out.append(c)
    return out


def tower_jvp(tag, leaves, ins, outs, jvp):
    """Towers of a vector primitive's outputs ``outs`` (its values at the primals) from its
    Jacobian-vector product, as :func:`_from_partials` does: zₘ = (J(x)·x′)ₘ₋₁/m.
    ``jvp(points, tangents)`` takes and returns flat lists."""
    n = min(len(a.coeffs) for a, i in zip(leaves, ins) if i) - 1
    if n == 0:
        return [make_tower(tag, [z0]) for z0 in outs]
    low = [make_tower(tag, a.coeffs[:n]) if i else a for a, i in zip(leaves, ins)]
    dx = [make_tower(tag, _dense(_derivative(a.coeffs, n))) if i else 0 * a
          for a, i in zip(leaves, ins)]
    return [make_tower(tag, _fit([z0] + [c if _zero(c) else c / m
                                         for m, c in enumerate(_series_of(t, tag, n - 1), 1)]))
            for z0, t in zip(outs, jvp(low, dx))]


def tower_n(op, partials, args, ins, tag, with_result):
    """An array or user-defined primitive (:func:`dvlad.lift.lift_n`) at towers: from its
    partials, as :func:`_from_partials` (each is a number or a LinearMap; J·t is ``d * t``).
    Such a primitive indexes and reshapes its arguments: their structural zeros are made into
    arrays of zeros first."""
    n = min(len(a.coeffs) for a, i in zip(args, ins) if i) - 1
    primals = [a.primal if i else a for a, i in zip(args, ins)]
    z0 = op(*primals)
    if n == 0:
        return make_tower(tag, [z0])
    if getattr(op, "multilinear", False):
        return make_tower(tag, [z0] + _multilinear(op, args, ins, n))
    series = getattr(op, "taylor", None)        # a primitive's own recurrence (solve, inv, det)
    if series is not None:
        z = series(n, z0, *[_coeffs(a, tag, n) if i else [a] + [ZERO] * n
                            for a, i in zip(args, ins)])
        if z is not None:
            return make_tower(tag, z)
    coeffs = [_dense(a.coeffs[:n + 1]) if i else None for a, i in zip(args, ins)]
    low = [make_tower(tag, c[:n]) if i else a for a, i, c in zip(args, ins, coeffs)]
    ds = partials(*low, r=op(*low)) if with_result else partials(*low)
    p = None
    for i, c, d in zip(ins, coeffs, ds):
        if i:
            t = make_tower(tag, [(j + 1) * cj for j, cj in enumerate(c[1:])])
            term = d * t                       # J·t for a LinearMap, as in forward mode
            p = term if p is None else p + term
    q = _series_of(p, tag, n - 1)
    return make_tower(tag, [z0] + [c if _zero(c) else c / m for m, c in enumerate(q, 1)])


def _multilinear(op, args, ins, n):
    """Coefficients 1..n of op, linear in each tower argument: zₖ = Σ_{j₁+…+jₘ=k} op(…, aᵢⱼᵢ, …)
    (a product's convolution; one argument: op on each coefficient).  Terms with a structural
    zero are skipped, so a seed costs one call per order."""
    where = [p for p, i in enumerate(ins) if i]
    cs = [args[p].coeffs for p in where]
    out = []
    for k in range(1, n + 1):
        acc = None
        for js in _compositions(k, len(where)):
            if any(_zero(c[j]) for c, j in zip(cs, js)):
                continue
            call = list(args)
            for p, c, j in zip(where, cs, js):
                call[p] = c[j]
            t = op(*call)
            acc = t if acc is None else acc + t
        out.append(ZERO if acc is None else acc)
    return out


def _compositions(k, m):
    """Every (j₁, …, jₘ) of non-negative ints with sum k."""
    if m == 1:
        yield (k,)
        return
    for j in range(k + 1):
        for rest in _compositions(k - j, m - 1):
            yield (j,) + rest


def _dense(cs):
    """cs with its structural zeros as zeros of c₀'s shape and type, if c₀ is an array."""
    b = cs[0]
    while isinstance(b, ADNumber):
        b = b.primal
    if type(b) is not np.ndarray:
        return cs
    return [np.zeros(b.shape, b.dtype) if _zero(c) else c for c in cs]
