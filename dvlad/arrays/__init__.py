"""Array primals: the primitives whose Jacobian is not diagonal, linear algebra, and numpy's
protocols on AD numbers.  ``dvlad.arrays`` is where users find every array primitive.

- :mod:`dvlad.arrays.primitives`: shapes, indexing, reductions, where (each with its linear map);
- :mod:`dvlad.arrays.linalg`: products, einsum, solve, inv, det, slogdet (their Taylor towers
  in :mod:`dvlad.arrays.linalg_taylor`);
- :mod:`dvlad.arrays.decompositions`: cholesky, qr, eigh, svd, pinv, lstsq, norm, matrix_power,
  multi_dot, and scipy.linalg's expm, solve_triangular, cho_factor, cho_solve;
- :mod:`dvlad.arrays.eigen`: eig and eigvals of a matrix with real eigenvalues;
- :mod:`dvlad.arrays.objects`: object arrays of AD numbers, np.asarray(x), assignment;
- :mod:`dvlad.arrays.methods`: ndarray's methods (copy, astype, std, item, fill, sort, ...);
- :mod:`dvlad.arrays.protocol`: ``__array_ufunc__``/``__array_function__``, so numpy code
  differentiates as it is (importing it installs them).
"""
from . import protocol  # noqa: F401  (installs numpy's protocols on bundles, tape cells, towers)
from . import linalg_taylor  # noqa: F401  (solve's, inv's and det's Taylor recurrences)
from . import vectorized
from .decompositions import (cho_factor, cho_solve, cholesky, eig, eigh, eigvals, eigvalsh, expm,
                             lstsq, matrix_power, multi_dot, norm, pinv, qr, solve_triangular,
                             svd)
from .linalg import det, dot, einsum, inner, inv, matmul, outer, slogdet, solve, tensordot, trace
from .primitives import (
    amax,
    amin,
    broadcast_to,
    clip,
    concatenate,
    expand_dims,
    getitem,
    mean,
    prod,
    reshape,
    shape,
    squeeze,
    stack,
    sum,
    sum_to,
    swapaxes,
    transpose,
    where,
)

vectorized.install()         # np.vectorize(f)(x) on dvlad numbers: f element by element

__all__ = ["where", "sum", "mean", "prod", "amax", "amin", "reshape", "transpose", "swapaxes",
           "squeeze", "expand_dims", "broadcast_to", "sum_to", "getitem", "concatenate", "stack",
           "clip", "matmul", "dot", "inner", "outer", "tensordot", "einsum", "trace", "solve",
           "inv", "det", "slogdet", "shape", "cholesky", "qr", "eigh", "eigvalsh", "eig", "eigvals",
           "svd", "pinv", "lstsq", "norm", "matrix_power", "multi_dot", "expm", "solve_triangular",
           "cho_factor", "cho_solve"]
