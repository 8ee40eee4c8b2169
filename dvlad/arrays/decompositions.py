"""Matrix decompositions and the linear algebra built on them (cholesky, qr, eigh, svd, ...).

Each is an array primitive (see :mod:`dvlad.arrays.linalg`), its partials written with dvlad's
own operations so that they nest.
"""
__all__ = ["FUNCTIONS"]

# numpy function -> dvlad's handler (merged into dvlad.arrays.protocol.FUNCTIONS)
FUNCTIONS = {}
