"""numpy's statistics, cumulative sums and element-moving functions (issue #17), written with
dvlad's array primitives (dvlad/arrays/composite.py): values equal numpy's, derivatives checked
by check_grads to order 2 in forward and reverse mode, keywords that change the value refused."""
import numpy as np
import pytest

import dvlad as ad

RNG = np.random.default_rng(0)
M = RNG.normal(size=(3, 4))
SORTER = np.argsort(RNG.normal(size=(3, 4)), axis=1)
W = np.abs(RNG.normal(size=(3, 4))) + 0.1

CASES = {
    "var": lambda a: np.var(a, axis=0, ddof=1), "std": np.std,
    "std_keepdims": lambda a: np.std(a, axis=1, keepdims=True),
    "average_axis": lambda a: np.average(a, axis=1, weights=np.arange(1.0, 5.0)),
    "average": lambda a: np.average(a, weights=W), "ptp": lambda a: np.ptp(a, axis=0),
    "nansum": lambda a: np.nansum(a * np.where(M > 1, np.nan, 1.0), axis=1),
    "nanmean": lambda a: np.nanmean(a * np.where(M > 1, np.nan, 1.0)),
    "cumsum": lambda a: np.cumsum(a, axis=1), "cumsum_flat": np.cumsum,
    "flip": np.flip, "fliplr": np.fliplr, "flipud": np.flipud, "roll": lambda a: np.roll(a, 2),
    "roll_axes": lambda a: np.roll(a, (1, -1), axis=(0, 1)), "rot90": np.rot90,
    "rot90_3": lambda a: np.rot90(a, 3), "rot90_2": lambda a: np.rot90(a, 2),
    "moveaxis": lambda a: np.moveaxis(a, 0, -1), "atleast_3d": np.atleast_3d,
    "atleast_2d": lambda a: np.atleast_2d(a[0]), "tril": lambda a: np.tril(a, 1),
    "triu": lambda a: np.triu(a, -1), "diagonal": lambda a: np.diagonal(a, 1),
    "diag": lambda a: np.diag(a, -1), "diag_of_diag": lambda a: np.diag(np.diag(a), 1),
    "diagflat": lambda a: np.diagflat(a[0]),
    "take": lambda a: np.take(a, [0, 2, 2], axis=1), "take_flat": lambda a: np.take(a, [5, 1]),
    "take_along_axis": lambda a: np.take_along_axis(a, SORTER, axis=1),
    "repeat": lambda a: np.repeat(a, [1, 2, 0], axis=0), "repeat_flat": lambda a: np.repeat(a, 2),
    "tile": lambda a: np.tile(a, (2, 1, 2)), "vstack": lambda a: np.vstack([a, a[0]]),
    "hstack": lambda a: np.hstack([a, a[:, :1]]), "dstack": lambda a: np.dstack([a, a]),
    "column_stack": lambda a: np.column_stack([a[0], a[1], np.ones(4)]),
    "append": lambda a: np.append(a, a[0]), "append_axis": lambda a: np.append(a, a[:1], axis=0),
    "split": lambda a: np.split(a, 2, axis=1)[1],
    "array_split": lambda a: np.array_split(a, 3, axis=1)[2],
    "hsplit": lambda a: np.hsplit(a, [1, 3])[1], "vsplit": lambda a: np.vsplit(a, 3)[1],
    "broadcast_arrays": lambda a: np.broadcast_arrays(a, np.ones((2, 1, 4)))[0],
    "pad_constant": lambda a: np.pad(a, 1, constant_values=2.0),
    "pad_edge": lambda a: np.pad(a, ((1, 0), (2, 1)), mode="edge"),
    "pad_reflect": lambda a: np.pad(a, 2, mode="reflect"),
    "pad_wrap": lambda a: np.pad(a, (1, 2), mode="wrap"),
    "sort": np.sort, "sort_axis0": lambda a: np.sort(a, axis=0),
    "sort_flat": lambda a: np.sort(a, axis=None), "median": np.median,
    "median_axis": lambda a: np.median(a, axis=1),
    "median_keepdims": lambda a: np.median(a, axis=0, keepdims=True),
    "quantile": lambda a: np.quantile(a, [0.1, 0.5, 0.9], axis=1),
    "percentile": lambda a: np.percentile(a, 30),
    "percentile_keepdims": lambda a: np.percentile(a, [20, 70], axis=0, keepdims=True),
    # einsum in numpy's other forms (issue #17)
    "einsum_trace": lambda a: np.einsum("ii->", a[:, :3]),
    "einsum_diagonal": lambda a: np.einsum("ii->i", a[:, 1:]),
    "einsum_implicit": lambda a: np.einsum("ij,kj", a, a),
    "einsum_implicit_trace": lambda a: np.einsum("ii", a[:, :3]),
    "einsum_ellipsis": lambda a: np.einsum("...ij,jk->...ik", np.stack([a, 2 * a]), a.T),
    "einsum_ellipsis_implicit": lambda a: np.einsum("...ii", np.stack([a[:, :3], a[:, 1:]])),
    "einsum_sublist": lambda a: np.einsum(a, [0, 1], a.T, [1, 2], [0, 2]),
    "einsum_sublist_implicit": lambda a: np.einsum(a, [0, 1], a, [2, 1]),
    "einsum_optimize": lambda a: np.einsum("ij,kj->ik", a, a, optimize=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_derivatives(name):
    f = CASES[name]
    want = f(M)
    got = ad.vjp(f, M)[0]
    assert np.shape(got) == np.shape(want) and np.allclose(got, want, rtol=1e-15, atol=0,
                                                           equal_nan=True)
    w = np.cos(np.arange(np.size(want))).reshape(np.shape(want))   # a fixed cotangent
    # (a smooth scalar of the result, so that order 2 sees each function's own structure)
    ad.check_grads(lambda a: np.sum(np.sin(f(a)) * w), M, order=2)


def test_float32_stays_float32():
    a = M.astype(np.float32)
    for name in ("std", "var", "cumsum", "roll", "pad_reflect", "tril", "take_along_axis"):
        g = ad.gradient_r(lambda x: np.sum(CASES[name](x) ** 2))(a)
        assert g.dtype == np.float32, name


@pytest.mark.parametrize("call, named", [
    (lambda a: np.std(a, dtype=np.float64), "dtype"),
    (lambda a: np.nanvar(a, where=a > 0), "where"),     # (np.var takes where=: masked)
    (lambda a: np.cumsum(a, out=np.empty(12)), "out"),
    (lambda a: np.pad(a, 1, mode="empty"), "empty"),
    (lambda a: np.nansum(a, initial=1.0), "initial"),
    (lambda a: np.quantile(a, 0.3, method="nearest"), "nearest"),
])
def test_keywords_that_change_the_value_are_refused(call, named):
    with pytest.raises(ad.NotDifferentiableError, match=named):
        ad.gradient_r(lambda a: np.sum(call(a)))(M)


def test_std_in_a_nested_derivative():
    """The Hessian of std along a direction, against finite differences of its gradient."""
    u = np.cos(np.arange(12.0)).reshape(3, 4)
    h = 1e-5
    g = ad.gradient_r(np.std)
    fd = (g(M + h * u) - g(M - h * u)) / (2 * h)
    for mode in ("fr", "rf", "rr", "ff"):
        assert np.allclose(ad.hvp(np.std, M, u, mode), fd, rtol=1e-6, atol=1e-8), mode


# ---- linear algebra on stacks of matrices (issue #17) -------------------------------------------

A3 = RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
B3 = RNG.normal(size=(2, 3, 2))
V3 = RNG.normal(size=3)

STACKED = {
    "inv": lambda a: np.linalg.inv(a), "det": lambda a: np.linalg.det(a),
    "slogdet": lambda a: np.linalg.slogdet(a)[1],
    "solve_matrices": lambda a: np.linalg.solve(a, B3),
    "solve_rhs": lambda a: np.linalg.solve(A3, a[..., :2] * 1.0),
    "solve_one_vector": lambda a: np.linalg.solve(a, V3),
    "solve_vector_rhs": lambda a: np.linalg.solve(A3, a[0, 0]),
}


@pytest.mark.parametrize("name", sorted(STACKED))
def test_stacked_linear_algebra(name):
    f = STACKED[name]
    assert np.allclose(ad.vjp(f, A3)[0], f(A3), rtol=1e-14, atol=0)
    w = np.cos(np.arange(np.size(f(A3)))).reshape(np.shape(f(A3)))
    ad.check_grads(lambda a: np.sum(f(a) * w), A3, order=2)
    # each matrix of the stack on its own gives the same derivatives
    if name in ("inv", "det", "slogdet"):
        g = ad.gradient_r(lambda a: np.sum(f(a) * w))(A3)
        for k in range(2):
            gk = ad.gradient_r(lambda m: np.sum(f(m) * w[k]))(A3[k])
            assert np.allclose(g[k], gk, rtol=1e-13, atol=1e-15)
