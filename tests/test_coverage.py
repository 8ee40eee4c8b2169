"""notes/coverage.md is current (benchmarks/coverage.py regenerates it), and every numpy, linalg
and scipy.special function that autograd differentiates is differentiable in dvlad too, except
the ones listed in KNOWN_MISSING (which must really be missing: the list shrinks as work lands).

Without scipy, the numpy part of the table is compared and the scipy.special section skipped."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("coverage_table", ROOT / "benchmarks" /
                                               "coverage.py")
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)

try:
    import scipy.special  # noqa: F401
    HAVE_SCIPY = True
except ImportError:
    HAVE_SCIPY = False

# The names of the functions autograd registers derivatives for (defvjp in HIPS/autograd's
# autograd/numpy/numpy_vjps.py, autograd/numpy/linalg.py, autograd/scipy/special.py; its private
# helpers mapped to numpy's names: concatenate_args -> concatenate, array_from_args -> array,
# _primitive_mean/_var/_std -> mean/var/std, _primitive_norm -> linalg.norm).
AUTOGRAD_NUMPY = """abs absolute add amax amin angle arccos arccosh arcsin arcsinh arctan arctan2
    arctanh array array_split atleast_1d atleast_2d atleast_3d broadcast_to clip concatenate
    conj conjugate cos cosh cross cumsum deg2rad degrees diag diagonal diff divide dot dsplit
    einsum exp exp2 expand_dims expm1 fabs fliplr flipud fmax fmin full gradient hsplit hypot imag
    inner kron linspace log log10 log1p log2 logaddexp logaddexp2 matmul max maximum mean min
    minimum mod moveaxis msort multiply nan_to_num negative outer pad partition power prod
    rad2deg radians ravel real real_if_close reciprocal remainder repeat reshape roll rollaxis
    rot90 sin sinc sinh sort split sqrt square squeeze std subtract sum swapaxes tan tanh
    tensordot tile trace transpose tril triu true_divide var vsplit where""".split()
AUTOGRAD_LINALG = "cholesky det eig eigh inv pinv slogdet solve svd norm".split()
AUTOGRAD_SPECIAL = """beta betainc betaln digamma erf erfc erfcinv erfinv expit gamma gammainc
    gammaincc gammaln gammasgn i0 i1 iv ive j0 j1 jn logit logsumexp multigammaln polygamma psi
    rgamma y0 y1 yn""".split()
NOT_IN_NUMPY = {"msort"}                       # removed in numpy 2
SPECIAL_NOT_UFUNCS = {"logsumexp", "multigammaln", "polygamma"}   # Python functions, no table row

KNOWN_MISSING = set()


@pytest.fixture(scope="module")
def text():
    return coverage.table(scipy=HAVE_SCIPY)


def _numpy_part(t):
    return t.split(coverage.SCIPY_HEADING)[0]


def test_the_table_is_current(text):
    committed = coverage.OUT.read_text(encoding="utf-8")
    if not HAVE_SCIPY:            # compare the numpy part only: the scipy section needs scipy
        committed, text = _numpy_part(committed).rstrip("\n"), text.rstrip("\n")
    assert text == committed, ("notes/coverage.md is stale: run `python benchmarks/coverage.py` "
                               "and commit the result")


def _autograd_names():
    names = [n for n in AUTOGRAD_NUMPY if n not in NOT_IN_NUMPY]
    names += [f"linalg.{n}" for n in AUTOGRAD_LINALG]
    if HAVE_SCIPY:
        names += [f"scipy.special.{n}" for n in AUTOGRAD_SPECIAL if n not in SPECIAL_NOT_UFUNCS]
    return names


def _classes(text):
    """{name: class}, scipy's rows named scipy.special.<name>."""
    numpy_part, _, scipy_part = text.partition(coverage.SCIPY_HEADING)
    out = coverage.classes(numpy_part)
    out.update({f"scipy.special.{k}": v for k, v in coverage.classes(scipy_part).items()})
    return out


def test_the_lists_name_what_exists():
    assert not any(hasattr(np, n) for n in NOT_IN_NUMPY)
    assert all(hasattr(np, n) for n in AUTOGRAD_NUMPY if n not in NOT_IN_NUMPY)
    assert all(hasattr(np.linalg, n) for n in AUTOGRAD_LINALG)
    if HAVE_SCIPY:
        sc = scipy.special
        assert {n for n in AUTOGRAD_SPECIAL if not isinstance(getattr(sc, n), np.ufunc)} == \
            SPECIAL_NOT_UFUNCS


def test_what_autograd_differentiates_is_not_missing(text):
    classes = _classes(text)
    names = _autograd_names()
    absent = [n for n in names if n not in classes]
    assert absent == [], f"not in the coverage table: {absent}"
    missing = sorted(n for n in names if classes[n] == "missing" and n not in KNOWN_MISSING)
    assert missing == [], (f"autograd differentiates these and dvlad does not: {missing} "
                           f"(add a handler, or list them in KNOWN_MISSING)")


def test_known_missing_is_really_missing(text):
    classes = _classes(text)
    listed = {n for n in KNOWN_MISSING if HAVE_SCIPY or not n.startswith("scipy.")}
    landed = sorted(n for n in listed if classes.get(n) != "missing")
    assert landed == [], f"these are no longer missing: remove them from KNOWN_MISSING: {landed}"


def test_every_handler_is_counted_differentiable(text):
    """Whatever the protocol registers under a public numpy name shows as differentiable."""
    from dvlad.arrays.protocol import FUNCTIONS, PREDICATES, UFUNCS
    classes = _classes(text)
    for name, cls in classes.items():
        if name.startswith("scipy."):
            continue
        obj = getattr(np.linalg, name[7:]) if name.startswith("linalg.") else getattr(np, name)
        if obj in FUNCTIONS or obj in PREDICATES or (isinstance(obj, np.ufunc) and obj in UFUNCS):
            assert cls == "differentiable", name


def test_the_explicit_lists_name_numpy_callables():
    """The script's by-design lists do not rot: each name is a callable of numpy, numpy.linalg
    or scipy.special."""
    names = set().union(*coverage.BY_DESIGN.values(), coverage.TAKES_NO_ARRAYS,
                        coverage.CONVERSIONS, coverage.THROUGH)
    for n in sorted(names):
        mod, attr = (np.linalg, n[7:]) if n.startswith("linalg.") else (np, n)
        assert callable(getattr(mod, attr, None)), n
