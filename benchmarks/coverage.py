"""Which numpy functions dvlad differentiates: the table notes/coverage.md.

    python benchmarks/coverage.py          # rewrites notes/coverage.md

Every public callable of the ``numpy`` namespace that takes arrays (its ufuncs, the functions
numpy hands to ``__array_function__``, and the few that convert without dispatching), of
``numpy.linalg``, and, when scipy is installed, every ufunc of ``scipy.special``, is put in one
class:

* **differentiable**: dvlad has a handler for it (``dvlad.arrays.protocol``'s ``UFUNCS``,
  ``FUNCTIONS``, ``PREDICATES``, the scipy.special mapping; predicates and integer-valued
  functions answer for their primals), or numpy computes it through one that dvlad has;
* **by design**: it raises by design, for one of the reasons named in ``BY_DESIGN`` below (an
  integer or boolean value, bitwise, datetime, strings and I/O, queries, writes into plain arrays),
  or, for a ufunc, because it has no floating-point loop at all;
* **missing**: everything else — what dvlad could differentiate and does not yet.

The classes come from introspection (the handler tables, ufunc loops, numpy's dispatch) plus the
small explicit lists below.  tests/test_coverage.py regenerates the table and compares it with
the committed file, so the table never goes stale.  Without scipy the numpy part is the same.
"""
import pathlib
import sys
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dvlad.arrays import protocol  # noqa: E402
from dvlad.core.number import ADNumber  # noqa: E402
from dvlad.core.rules import OUTPUTS, TABLE  # noqa: E402

OUT = ROOT / "notes" / "coverage.md"
SCIPY_HEADING = "## scipy.special ufuncs"      # where the part that needs scipy begins

BY_DESIGN = {    # reason -> names (in numpy, numpy.linalg or scipy.special)
    "integer-valued (indices, counts, bins, rounding)": {
        "bincount", "digitize", "diag_indices_from", "tril_indices_from", "triu_indices_from",
        "ravel_multi_index", "unravel_index", "lexsort", "nanargmax", "nanargmin",
        "histogram2d", "histogramdd", "round", "around", "fix", "linalg.matrix_rank"},
    "comparisons and tests (boolean-valued)": {"array_equiv", "isin", "isneginf", "isposinf"},
    "bitwise": {"bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift",
                "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "invert",
                "left_shift", "right_shift", "packbits", "unpackbits"},
    "datetime": {"busday_count", "busday_offset", "is_busday", "datetime_as_string", "isnat",
                 "datetime_data"},
    "strings and I/O": {"array2string", "array_repr", "array_str", "save", "savetxt", "savez",
                        "savez_compressed", "base_repr", "binary_repr", "format_float_positional",
                        "format_float_scientific", "frombuffer", "fromfile", "fromstring",
                        "fromregex", "genfromtxt", "load", "loadtxt", "from_dlpack"},
    "queries (types, memory, plans)": {"can_cast", "common_type", "min_scalar_type",
                                       "result_type", "may_share_memory", "shares_memory",
                                       "einsum_path", "isfortran", "isscalar", "iterable",
                                       "nested_iters"},
    "writes into a plain array (would drop the derivative)": {
        "copyto", "place", "put", "put_along_axis", "putmask", "fill_diagonal"},
    "complex-valued": {"sort_complex"},
    # which elements are in the result jumps as values meet: no derivative to follow (pick
    # the elements yourself: the indices np.unique(..., return_index=True) gives, then index)
    "set operations (membership changes where values meet)": {
        "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
        "intersect1d", "union1d", "setdiff1d", "setxor1d"},
}
# Public callables of numpy that take no array: shapes, scalars, settings, information.
TAKES_NO_ARRAYS = {
    "arange", "empty", "zeros", "ones", "eye", "identity", "tri", "indices", "diag_indices",
    "tril_indices", "triu_indices", "mask_indices", "bartlett", "blackman", "hamming", "hanning",
    "kaiser", "fromfunction", "frompyfunc", "get_include", "get_printoptions",
    "set_printoptions", "printoptions", "getbufsize", "setbufsize", "geterr", "seterr",
    "geterrcall", "seterrcall", "show_config", "show_runtime", "info", "test", "promote_types",
    "broadcast_shapes", "isdtype", "issubdtype", "mintypecode", "typename"}
# numpy makes an array of the value without dispatching: numpy's __array__ on an AD number
CONVERSIONS = {"array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
               "asarray_chkfinite", "require", "asmatrix", "bmat", "fromiter", "full"}
THROUGH = {"row_stack": "vstack"}      # numpy computes it with that (dispatched) function


EXAMPLE = '''```python
import numpy as np
import dvlad
from dvlad.arrays.protocol import FUNCTIONS, UFUNCS

assert np.kron in FUNCTIONS and np.sin in UFUNCS          # differentiable: a handler
try:                                                      # by design (or missing): raises
    dvlad.gradient_r(lambda x: np.sum(np.bitwise_and(x, 1)))(np.ones(3))
    raise AssertionError("numpy.bitwise_and has no handler: it raises")
except dvlad.NotDifferentiableError as e:
    assert "numpy.bitwise_and" in str(e)
```
'''.splitlines()      # a runnable block (tests/test_notes.py runs every note's blocks)


def _ufunc_rows():
    """{ufunc: the rule-table row it answers to}, numpy's and scipy.special's (a ufunc of several
    outputs: its rows, one per output)."""
    rows = {getattr(np, n): rule.name for rule in TABLE for n in rule.ufuncs}
    sc = sys.modules.get("scipy.special")
    if sc is not None:
        rows.update({getattr(sc, n): rule.name for rule in TABLE for n in rule.special
                     if hasattr(sc, n)})
        rows.update({getattr(sc, n): "`, `".join(names) for n, names in OUTPUTS.items()
                     if hasattr(sc, n)})
    return rows


def _float_loops(ufunc):
    """Whether the ufunc has a loop from floating-point inputs to a floating-point output."""
    for t in ufunc.types:
        ins, outs = t.split("->")
        if all(c in "efdg" for c in ins) and any(c in "efdg" for c in outs):
            return True
    return False


def _reason(qualified):
    for why, names in BY_DESIGN.items():
        if qualified in names:
            return why
    return None


def classify(qualified, obj, rows):
    """(kind, class, handler or reason) of one callable."""
    handler = protocol.FUNCTIONS.get(obj)
    is_ufunc = isinstance(obj, np.ufunc)
    kind = "ufunc" if is_ufunc else ("function" if type(obj).__name__ ==
                                     "_ArrayFunctionDispatcher" else "not dispatched")
    if obj in protocol.PREDICATES:
        return kind, "differentiable", "predicate: primals only"
    if is_ufunc and obj in protocol.UFUNCS:
        label = rows.get(obj)
        return kind, "differentiable", ("protocol" if label is None else
                                        f"rule{'s' * ('`' in label)} `{label}`")
    if handler is not None:
        return kind, "differentiable", "`" + handler.__module__.removeprefix("dvlad.") + "`"
    name = qualified.rpartition(".")[2]
    if qualified in THROUGH and getattr(np, THROUGH[qualified]) in protocol.FUNCTIONS:
        return kind, "differentiable", f"through `{THROUGH[qualified]}`"
    if qualified in CONVERSIONS and hasattr(ADNumber, "__array__"):
        return kind, "differentiable", "through `__array__`"
    why = _reason(qualified) or _reason(name)
    if why:
        return kind, "by design", why
    if is_ufunc and not _float_loops(obj):
        complex_only = any(all(c in "FDG" for c in t.split("->")[0]) for t in obj.types)
        return kind, "by design", ("complex-valued" if complex_only else
                                   "integer- or boolean-valued (no floating-point loop)")
    return kind, "missing", ""


def _public(module, prefix, ufuncs_only=False):
    """[(qualified name, object)] of a module's public callables, sorted."""
    out = []
    for name in sorted(dir(module)):
        obj = getattr(module, name)
        if name.startswith("_") or not callable(obj) or isinstance(obj, (type, types.ModuleType)):
            continue
        if ufuncs_only and not isinstance(obj, np.ufunc):
            continue
        if not ufuncs_only and prefix + name in TAKES_NO_ARRAYS | {"linalg.test"}:
            continue
        out.append((prefix + name, obj))
    return out


def _section(title, entries, rows):
    classified = [(q,) + classify(q, obj, rows) for q, obj in entries]
    counts = {c: sum(1 for e in classified if e[2] == c)
              for c in ("differentiable", "by design", "missing")}
    lines = [f"## {title}", "",
             f"{len(classified)} callables: **{counts['differentiable']} differentiable**, "
             f"**{counts['by design']} by design**, **{counts['missing']} missing**.", ""]
    missing = [e[0] for e in classified if e[2] == "missing"]
    if missing:
        lines += ["Missing: " + ", ".join(f"`{m}`" for m in missing) + ".", ""]
    lines += ["| name | kind | class | handler or reason |", "|---|---|---|---|"]
    lines += [f"| `{q}` | {k} | {c} | {d} |" for q, k, c, d in classified]
    return lines + [""], counts, classified


def table(scipy=True):
    """The text of notes/coverage.md (the scipy.special section only when ``scipy`` is true
    and scipy is installed)."""
    sc = None
    if scipy:
        try:
            import scipy.special as sc
        except ImportError:
            sc = None
        else:
            protocol._add_scipy_ufuncs()    # the mapping dvlad makes at the first scipy ufunc
    rows = _ufunc_rows()
    head = ["# Coverage: which numpy functions dvlad differentiates", "",
            "Generated by `python benchmarks/coverage.py` from dvlad's handler tables "
            f"(numpy {np.__version__}); do not edit by hand: `tests/test_coverage.py` checks "
            "that it is current. **differentiable**: dvlad has a handler (predicates and "
            "integer-valued functions answer for their primals); **by design**: it raises on "
            "purpose, for the reason given; **missing**: not yet. The public callables of numpy "
            "that take no array (constructors from shapes, settings) are listed at the end; "
            "`numpy.random`, `numpy.fft` and `numpy.strings` are not in the table.", ""] + EXAMPLE + [""]
    body, summary, every = [], [], []
    for title, entries in [("numpy", _public(np, "")), ("numpy.linalg",
                                                         _public(np.linalg, "linalg."))]:
        lines, counts, classified = _section(title, entries, rows)
        body += lines
        every += classified
        summary.append(f"| {title} | {sum(counts.values())} | {counts['differentiable']} | "
                       f"{counts['by design']} | {counts['missing']} |")
    reasons = sorted({e[3] for e in every if e[2] == "by design"})
    head += ["| namespace | callables | differentiable | by design | missing |",
             "|---|---|---|---|---|"] + summary + ["",
             "Reasons by design: " + "; ".join(reasons) + ".", ""]
    tail = ["## Not in the table: numpy callables that take no array", "",
            ", ".join(f"`{n}`" for n in sorted(TAKES_NO_ARRAYS)
                      if callable(getattr(np, n, None))) + ".", ""]
    text = head + body + tail
    if sc is not None:
        import scipy
        lines, _, _ = _section(f"scipy.special ufuncs (scipy {scipy.__version__})",
                               _public(sc, "", ufuncs_only=True), rows)
        text += lines
    return "\n".join(text).rstrip("\n") + "\n"


def classes(text):
    """{qualified name: class} of the table rows of a coverage text."""
    out = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            out[cells[0].strip("`")] = cells[2]
    return out


if __name__ == "__main__":
    OUT.write_text(table(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
