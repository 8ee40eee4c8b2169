"""Taylor towers (dvlad.tower.tower_n) of solve, inv and det: each series by its recurrence,
O(n²) matrix products, instead of the derivation from the partials (:mod:`dvlad.arrays.linalg`).
The arguments are coefficient lists (a constant is [c, ZERO, …]; ZERO is a structural zero);
None (not a 2-d matrix) leaves the derivation from the partials to do it.
"""
from .linalg import det, einsum, inv, matmul, solve
from .primitives import shape
from ..numbers.tower import ZERO

__all__ = []


def _zero(c):
    return c is ZERO


def _products(a, x, k, first=1):
    """Σ_{j≥first} aⱼ @ xₖ₋ⱼ over the terms without a structural zero, or None."""
    acc = None
    for j in range(first, k + 1):
        if not (_zero(a[j]) or _zero(x[k - j])):
            t = matmul(a[j], x[k - j])
            acc = t if acc is None else acc + t
    return acc


def _solve_taylor(n, x0, a, b):
    """x = A⁻¹b: Σⱼ Aⱼxₖ₋ⱼ = bₖ, so xₖ = solve(A₀, bₖ − Σ_{j≥1} Aⱼxₖ₋ⱼ)."""
    if len(shape(a[0])) != 2:
        return None
    x = [x0]
    for k in range(1, n + 1):
        r, p = b[k], _products(a, x, k)
        r = p if _zero(r) and p is None else (r if p is None else (-p if _zero(r) else r - p))
        x.append(ZERO if r is None else solve(a[0], r))
    return x


def _inv_taylor(n, x0, a):
    """X = A⁻¹: Σⱼ AⱼXₖ₋ⱼ = 0 for k ≥ 1, so Xₖ = −X₀ Σ_{j≥1} AⱼXₖ₋ⱼ."""
    if len(shape(a[0])) != 2:
        return None
    x = [x0]
    for k in range(1, n + 1):
        p = _products(a, x, k)
        x.append(ZERO if p is None else -matmul(x0, p))
    return x


def _det_taylor(n, d0, a):
    """d = det A: d′ = d·q with q = tr(A⁻¹A′), so m·dₘ = Σ_{j<m} dⱼ qₘ₋₁₋ⱼ."""
    if len(shape(a[0])) != 2:
        return None
    x = _inv_taylor(n - 1, inv(a[0]), a)
    da = [c if _zero(c) else (j + 1) * c for j, c in enumerate(a[1:n + 1])]
    q = []
    for k in range(n):
        acc = None
        for j in range(k + 1):
            if not (_zero(x[j]) or _zero(da[k - j])):
                t = einsum("ij,ji->", x[j], da[k - j])
                acc = t if acc is None else acc + t
        q.append(ZERO if acc is None else acc)
    d = [d0]
    for m in range(1, n + 1):
        acc = None
        for j in range(m):
            if not _zero(q[m - 1 - j]):
                t = d[j] * q[m - 1 - j]
                acc = t if acc is None else acc + t
        d.append(ZERO if acc is None else acc / m)
    return d


solve.taylor, inv.taylor, det.taylor = _solve_taylor, _inv_taylor, _det_taylor
