"""Array products and linear algebra: matmul, einsum and its family, trace, solve, inv, det.

Each is an array primitive like those of :mod:`dvlad.arrays` (whose namespace re-exports them): a
base function plus a linear map per argument, written with dvlad's own operations so it nests.
Products are bilinear, so the map for one factor applies the product with the other.  The linear
algebra is for 2-d matrices: d(A⁻¹b) = A⁻¹(db − dA·x), dA⁻¹ = −A⁻¹·dA·A⁻¹,
d det A = det A·tr(A⁻¹dA).
"""
import builtins

import numpy as np

from .primitives import (
    _Apply,
    _primitive,
    broadcast_to,
    expand_dims,
    getitem,
    reshape,
    shape,
    stack as stack_,
    sum,
    sum_to,
    swapaxes,
    transpose,
)
from .solving import inverse_value, slogdet_value, solve_value
from ..core.number import strip
from ..core.tags import NotDifferentiableError


def _matmul_grad_a(s, b, a_shape):
    """Jᵀ·s for a in a @ b, with numpy's 1-d promotions and batch broadcasting."""
    nb, na = len(shape(b)), len(a_shape)
    if na == 1 and nb == 1:
        return s * b
    if nb == 1:
        g = expand_dims(s, -1) * b                   # (..., n, 1) * (k,) -> (..., n, k)
    elif na == 1:
        g = reshape(matmul(expand_dims(s, -2), swapaxes(b, -1, -2)), shape(s)[:-1] + (shape(b)[-2],))
    else:
        g = matmul(s, swapaxes(b, -1, -2))
    return sum_to(g, a_shape)


def _matmul_grad_b(s, a, b_shape):
    na, nb = len(shape(a)), len(b_shape)
    if na == 1 and nb == 1:
        return s * a
    if na == 1:
        g = expand_dims(a, -1) * expand_dims(s, -2)   # (k, 1) * (..., 1, m) -> (..., k, m)
    elif nb == 1:
        g = reshape(matmul(swapaxes(a, -1, -2), expand_dims(s, -1)), shape(s)[:-1] + (shape(a)[-1],))
    else:
        g = matmul(swapaxes(a, -1, -2), s)
    return sum_to(g, b_shape)


matmul = _primitive(
    "matmul", lambda a, b: np.matmul(a, b),
    lambda a, b: _matmul_partials(a, b, shape(a), shape(b)))


def _matmul_partials(a, b, a_shape, b_shape):
    # each map keeps the other operand only (a constant a is not kept for its shape)
    return (_Apply(lambda t: matmul(t, b), lambda s: _matmul_grad_a(s, b, a_shape)),
            _Apply(lambda t: matmul(a, t), lambda s: _matmul_grad_b(s, a, b_shape)))


def _parse(spec, n):
    if "->" not in spec or "." in spec:
        raise NotDifferentiableError(
            f"einsum: dvlad differentiates specs with an explicit '->' and no '...'; got {spec!r}")
    ins, out = spec.replace(" ", "").split("->")
    ins = ins.split(",")
    if len(ins) != n or builtins.any(len(set(s)) != len(s) for s in ins):
        raise NotDifferentiableError(
            f"einsum: {spec!r} repeats an index within one operand (a diagonal); use dvlad.trace"
            f" or indexing instead")
    return ins, out


def _einsum_partials(spec, *xs):
    ins, out = _parse(spec, len(xs))
    maps = [None]
    for k, x in enumerate(xs):
        others = [i for i in range(len(xs)) if i != k]

        def fwd(t, k=k):
            ops = list(xs)
            ops[k] = t
            return einsum(spec, *ops)

        def bwd(s, k=k, others=others):
            have = set(out).union(*(ins[i] for i in others))
            kept = "".join(c for c in ins[k] if c in have)
            transposed = ",".join([out] + [ins[i] for i in others]) + "->" + kept
            g = einsum(transposed, s, *(xs[i] for i in others))
            spread = tuple(a for a, c in enumerate(kept)      # x's length-1 axes that '...'
                           if shape(xs[k])[ins[k].index(c)] == 1 and shape(g)[a] != 1)
            if spread:                                        # broadcast: summed back
                g = sum(g, spread, True)
            full = tuple(shape(xs[k])[ins[k].index(c)] if c in kept else 1 for c in ins[k])
            return broadcast_to(reshape(g, full), shape(xs[k]))
        maps.append(_Apply(fwd, bwd))
    return tuple(maps)


_einsum = _primitive("einsum", lambda spec, *xs: np.einsum(spec, *xs), _einsum_partials)


# Linear in each array operand: Taylor towers convolve their coefficients (dvlad.tower.tower_n).
matmul.multilinear = _einsum.multilinear = True


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum(*operands):
    """np.einsum in every form numpy takes, differentiable: a spec string with or without '->'
    (implicit output: the indices used once, in alphabetical order), '...', an index repeated
    within one operand (a diagonal: 'ii->i', 'ii->'), or the sublist form
    einsum(A, [0, 1], B, [1, 2], [0, 2]).  Brought to one explicit spec over distinct indices,
    diagonals taken by indexing, then the einsum primitive."""
    if isinstance(operands[0], str):
        spec, xs = operands[0].replace(" ", ""), list(operands[1:])
    else:
        spec, xs = _from_sublists(operands)
    ins, arrow, out = spec.partition("->")
    ins = ins.split(",")
    if len(ins) != len(xs):
        raise ValueError(f"einsum: {spec!r} names {len(ins)} operands, got {len(xs)}")
    free = iter(c for c in _LETTERS if c not in spec)
    widest = builtins.max([len(shape(x)) - len(t.replace("...", "")) for t, x in zip(ins, xs)
                           if "..." in t] + [0])
    ell = "".join(next(free) for _ in range(widest))
    ins = [t.replace("...", ell[widest - (len(shape(x)) - len(t) + 3):]) if "..." in t else t
           for t, x in zip(ins, xs)]
    if arrow:
        out = out.replace("...", ell)
    else:                               # implicit: '...' first, then the indices used once
        counts = "".join(ins)
        out = ell + "".join(sorted(c for c in set(counts) if counts.count(c) == 1
                                   and c not in ell))
    for k, (t, x) in enumerate(zip(ins, xs)):
        while len(set(t)) != len(t):    # a repeated index: its diagonal, moved last
            c = next(c for c in t if t.count(c) > 1)
            i, j = t.index(c), t.index(c, t.index(c) + 1)
            n = len(t)
            rest = [a for a in range(n) if a not in (i, j)]
            x = transpose(x, tuple(rest) + (i, j))
            r = np.arange(shape(x)[-1])
            x = getitem(x, (Ellipsis, r, r))
            t = "".join(t[a] for a in rest) + c
        ins[k], xs[k] = t, x
    return _einsum(",".join(ins) + "->" + out, *xs)


def _from_sublists(operands):
    """einsum(A, [0, 1], B, [1, 2], [0, 2]) as ('ab,bc->ac', [A, B]) (Ellipsis kept as '...')."""
    def letters(part):
        return "".join("..." if a is Ellipsis else _LETTERS[a] for a in part)
    ops = list(operands)
    out = letters(ops.pop()) if len(ops) % 2 else None
    xs, terms = ops[0::2], [letters(part) for part in ops[1::2]]
    return ",".join(terms) + ("" if out is None else "->" + out), xs


def tensordot(a, b, axes=2):
    na, nb = len(shape(a)), len(shape(b))
    if isinstance(axes, builtins.int):
        axes = (list(range(na - axes, na)), list(range(axes)))
    aa = [i % na for i in np.atleast_1d(axes[0])]
    bb = [i % nb for i in np.atleast_1d(axes[1])]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(aa, bb):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in aa] + [c for j, c in enumerate(sb) if j not in bb]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def dot(a, b):
    na, nb = len(shape(a)), len(shape(b))
    if na == 0 or nb == 0:
        return a * b
    if nb == 1 or (na <= 2 and nb <= 2):
        return matmul(a, b)
    return tensordot(a, b, ([-1], [-2]))


def inner(a, b):
    if len(shape(a)) == 0 or len(shape(b)) == 0:
        return a * b
    return tensordot(a, b, ([-1], [-1]))


def outer(a, b):
    return reshape(a, (-1, 1)) * reshape(b, (1, -1))


def trace(x, offset=0, axis1=0, axis2=1):
    nd = len(shape(x))
    rest = [i for i in range(nd) if i not in (axis1 % nd, axis2 % nd)]
    y = transpose(x, (axis1 % nd, axis2 % nd) + tuple(rest))
    n0, n1 = shape(y)[:2]
    i = np.arange(max(0, min(n0, n1 - offset) if offset >= 0 else min(n0 + offset, n1)))
    idx = (i, i + offset) if offset >= 0 else (i - offset, i)
    return sum(getitem(y, idx), 0)


def _square(a, who):
    """a is a square matrix or a stack of them (..., n, n), as numpy's linalg takes."""
    shp = shape(a)
    if len(shp) < 2 or shp[-1] != shp[-2]:
        raise NotDifferentiableError(f"{who}: dvlad differentiates square matrices and stacks "
                                     f"of them (..., n, n); got shape {shp}")


def _mT(x):
    """The matrix transpose of x, or of each matrix of a stack."""
    return swapaxes(x, -1, -2)


def _traces(x):
    """The trace of x, or of each matrix of a stack."""
    return einsum("...ii->...", x)


def _vector_rhs(a, b):
    """numpy's rule: b is a vector (or a stack of them) when it is 1-d, or has one dimension
    fewer than a stack a (numpy 1) — numpy 2 takes only 1-d b as a vector."""
    return len(shape(b)) == 1


def _solve_vectors(a, r):
    """a⁻¹r for r a vector, or a stack of vectors (..., n) against a stack of matrices."""
    if len(shape(r)) == 1:
        return solve(a, r)
    return reshape(solve(a, expand_dims(r, -1)), np.broadcast_shapes(shape(a)[:-1], shape(r)))


def _handed_over(fn):
    """fn for each of two partials that a sweep pulls one cotangent s through in turn (solve's
    a⁻ᵀs̄): the second takes the first's fn(s), once, by the identity of s; a partial called
    again computes afresh.  (One tuple, read and written whole: two threads sweeping one tape
    at once never mix one's s with the other's result.)"""
    slot = [None]                       # (s, which partial computed, fn(s))

    def partial(which):
        def pulled(s):
            kept = slot[0]
            if kept is not None and kept[0] is s and kept[1] != which:
                slot[0] = None
                return kept[2]
            r = fn(s)
            slot[0] = (s, which, r)
            return r
        return pulled
    return partial(0), partial(1)


def _solve_partials(x, a, b):
    _square(a, "linalg.solve")
    at = _mT(a)
    if _vector_rhs(a, b):          # x = a⁻¹b, b and x vectors: ∂a·t = −a⁻¹ t x
        xc = expand_dims(x, -1)
        to_a, to_b = _handed_over(lambda s: _solve_vectors(at, s))
        return (_Apply(lambda t: -_solve_vectors(a, reshape(matmul(t, xc), shape(x))),
                       lambda s: sum_to(expand_dims(-to_a(s), -1) * _mT(xc), shape(a))),
                _Apply(lambda t: solve(a, t), lambda s: sum_to(to_b(s), shape(b))))
    to_a, to_b = _handed_over(lambda s: solve(at, s))
    return (_Apply(lambda t: -solve(a, matmul(t, x)),
                   lambda s: -sum_to(matmul(to_a(s), _mT(x)), shape(a))),
            _Apply(lambda t: solve(a, t), lambda s: sum_to(to_b(s), shape(b))))


solve = _primitive("solve", solve_value, _solve_partials, True)


def _inv_partials(x, a):
    _square(a, "linalg.inv")
    xt = _mT(x)
    return (_Apply(lambda t: -matmul(matmul(x, t), x), lambda s: -matmul(matmul(xt, s), xt)),)


inv = _primitive("inv", inverse_value, _inv_partials, True)


def _det_partials(d, a):
    _square(a, "linalg.det")
    if not np.all(strip(d)):        # a singular a has no inverse, but its adjugate is there
        c = _cofactors(a)
        return (_Apply(lambda t: sum(c * t, (-2, -1)),
                       lambda s: expand_dims(expand_dims(s, -1), -1) * c),)
    return (_Apply(lambda t: d * _traces(solve(a, t)),
                   lambda s: expand_dims(expand_dims(s * d, -1), -1) * _mT(inv(a))),)


def _cofactors(a):
    """C with d det a = Σ C ⊙ da: Cᵢⱼ = (−1)^(i+j) det(a without row i and column j), the
    adjugate's transpose (det·a⁻ᵀ where a has an inverse); n² determinants of n − 1."""
    n = shape(a)[-1]
    if n == 1:
        return np.ones(shape(a))
    rest = [np.array([k for k in range(n) if k != i]) for i in range(n)]
    return stack_([stack_([(-1.0) ** (i + j) * det(getitem(a, (Ellipsis, rest[i][:, None],
                                                                 rest[j][None, :])))
                           for j in range(n)], -1) for i in range(n)], -2)


det = _primitive("det", np.linalg.det, _det_partials, True)


def _logdet_partials(a):
    _square(a, "linalg.slogdet")
    return (_Apply(lambda t: _traces(solve(a, t)),
                   lambda s: expand_dims(expand_dims(s, -1), -1) * _mT(inv(a))),)


_SlogdetResult = (getattr(np.linalg, "_linalg", None) or np.linalg.linalg).SlogdetResult
_FACTORED = [None, None]     # (the array slogdet just factored, its log|det|): one LU, not two


def _logabs(b):
    return _FACTORED[1] if _FACTORED[0] is b else slogdet_value(b)[1]   # (a replay: kept LU)


_logabsdet = _primitive("logabsdet", _logabs, _logdet_partials)


def slogdet(a):
    """(sign, log|det a|): the sign is piecewise constant, the log differentiable."""
    base = strip(a)
    signum, logabs = slogdet_value(base)    # (its LU kept for solve(a, ·): arrays/solving.py)
    _FACTORED[:] = base, logabs
    try:
        return _SlogdetResult(signum, _logabsdet(a))       # (numpy's named tuple: .logabsdet)
    finally:
        _FACTORED[:] = None, None
