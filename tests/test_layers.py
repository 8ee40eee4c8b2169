"""The shape of the package (notes/how-it-works.md, "Layers"): layers that point one way, no
import cycles, modules of a readable size, each primitive named in its row of the rule table and
the export list only, and every public callable's source visible to ``inspect``."""
import ast
import inspect
import io
import pathlib
import tokenize

import pytest

import dvlad
from dvlad.core.rules import TABLE

ROOT = pathlib.Path(dvlad.__file__).parent
# Bottom to top: a module may import from its own layer and the layers below it, never above.
LAYERS = ["core", "numbers", "modes", "arrays", "operators", "teaching"]
MAX_LINES = 400


def _modules():
    """{dotted name: path} of every module of the package."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(("dvlad",) + parts)] = path
    return out


MODULES = _modules()


def _package_of(name, path):
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imports(name, path):
    """The dvlad modules that module ``name`` imports, anywhere in its body (inside functions
    too), as (line, imported module)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(name, path)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.module else base
            elif node.module and node.module.split(".")[0] == "dvlad":
                target = node.module
            else:
                continue
            for alias in node.names:      # `from . import x` names a module, or a name in one
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "dvlad":
                    found.append((node.lineno, alias.name))
    return found


def _layer(name):
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_every_module_sits_in_a_layer():
    loose = [n for n in MODULES if _layer(n) is None and n not in ("dvlad", "dvlad.__main__")]
    assert loose == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _layer(n)))
def test_layers_point_one_way(name):
    """A module imports only from its own layer or the layers below it."""
    mine = LAYERS.index(_layer(name))
    upward = [(line, target) for line, target in GRAPH[name]
              if _layer(target) is not None and LAYERS.index(_layer(target)) > mine]
    assert upward == [], f"{name} imports upward: {upward}"


def test_no_import_cycles():
    """The import graph (imports inside functions included) has no cycle."""
    edges = {n: {t for _, t in GRAPH[n] if t in MODULES and t != n} for n in MODULES}
    # the package __init__ files re-export their modules: an edge into a package is an edge into
    # its __init__, which is allowed to import its own modules
    state, stack_path = {}, []

    def visit(n):
        state[n] = "open"
        stack_path.append(n)
        for m in sorted(edges[n]):
            if m.startswith(n + ".") and MODULES[n].name == "__init__.py":
                continue                                   # a package importing its own modules
            if state.get(m) == "open":
                cycle = stack_path[stack_path.index(m):] + [m]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack_path.pop()
        state[n] = "done"

    for n in sorted(MODULES):
        if n not in state:
            visit(n)


def test_the_layer_check_catches_an_upward_import(tmp_path):
    """The checks above read real imports: an upward one in a core module is found."""
    fake = tmp_path / "tags.py"
    fake.write_text("from ..modes.api import derivative\n")
    found = _imports("dvlad.core.tags", fake)
    assert found == [(1, "dvlad.modes.api")] and _layer(found[0][1]) == "modes"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_stay_readable(name):
    """Under ~400 lines (the rule table may be longer): a longer module does two jobs."""
    if name == "dvlad.core.rules":
        return
    lines = MODULES[name].read_text().count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines"


# ---- each primitive is named once: in its row and in the export list ---------------------------

NAMES = {rule.name for rule in TABLE}
PYTHON_BUILTINS = {"abs", "int", "round", "pow"}        # Python's own, where a module means them
# names that mean something else in one module: scipy.integrate.odeint's parameter y0 (the
# initial state), which dvlad.odeint keeps, is not the Bessel function
OTHER_MEANINGS = {"dvlad.operators.odeint": {"y0"}, "dvlad.operators.scipy_integrate": {"y0"},
                  "dvlad.arrays.padding": {"maximum", "minimum"}}      # np.pad's mode names
OTHER_LIBRARIES = {"np", "numpy", "math", "mpmath", "builtins", "operator"}


def _named(path):
    """Where a module names a primitive outside docstrings and comments: a bare name, an
    attribute of one of dvlad's modules, or a string that is exactly the name."""
    source = path.read_text()
    dvlad_aliases = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                "dvlad")):
            dvlad_aliases.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            dvlad_aliases.update(a.asname or a.name for a in node.names
                                 if a.name.startswith("dvlad"))
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                tokenize.COMMENT)]
    hits = []
    for k, t in enumerate(tokens):
        if t.type == tokenize.NAME and t.string in NAMES:
            if k and tokens[k - 1].string == ".":
                owner = tokens[k - 2].string
                if owner in dvlad_aliases or owner == "dvlad":
                    hits.append((t.start[0], f"{owner}.{t.string}"))
            elif t.string not in PYTHON_BUILTINS:
                hits.append((t.start[0], t.string))
        elif t.type == tokenize.STRING and not (k and tokens[k - 1].type == tokenize.INDENT):
            value = t.string.lstrip("rbuRBUfF")
            for quote in ('"""', "'''", '"', "'"):
                if value.startswith(quote):
                    value = value[len(quote):-len(quote)]
                    break
            if value in NAMES:
                hits.append((t.start[0], repr(value)))
    return hits


LIBRARY = sorted(n for n in MODULES if n not in ("dvlad", "dvlad.core.rules")
                 and _layer(n) != "teaching")


@pytest.mark.parametrize("name", LIBRARY)
def test_primitives_are_named_only_in_their_rows(name):
    other = OTHER_MEANINGS.get(name, set())
    assert [(line, n) for line, n in _named(MODULES[name]) if n.strip("'") not in other] == []


def test_the_export_list_names_every_row():
    exported = set(dvlad.__all__)
    assert NAMES <= exported
    for rule in TABLE:
        assert getattr(dvlad, rule.name) is rule.op


def test_the_name_check_catches_a_named_primitive(tmp_path):
    fake = tmp_path / "m.py"
    fake.write_text('from ..numbers import primitives as L\n'
                    'def f(x):\n    """sin of x"""\n    return L.sin(x) + RULES["cos"].op(x)\n'
                    'def g(sin):  # sin\n    return abs(sin)\n')
    assert _named(fake) == [(4, "L.sin"), (4, "'cos'"), (5, "sin"), (6, "sin")]


# ---- generated code is readable code ------------------------------------------------------------

def _public_callables():
    out = []
    for name in dvlad.__all__:
        obj = getattr(dvlad, name)
        if callable(obj) and not isinstance(obj, type):
            out.append((f"dvlad.{name}", obj))
    for name in dvlad.arrays.__all__:
        obj = getattr(dvlad.arrays, name)
        if callable(obj):
            out.append((f"dvlad.arrays.{name}", obj))
    return out


@pytest.mark.parametrize("name, obj", _public_callables(), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_getsource_works_for_every_public_callable(name, obj):
    source = inspect.getsource(obj)
    assert source.strip(), name


def test_a_generated_primitive_shows_its_own_lines():
    source = inspect.getsource(dvlad.log2)
    assert source.startswith("def log2(")
    assert dvlad.REFERENCE or "math_log2(x)" in source      # the float twin, on the fast path
    try:
        dvlad.log2("a string")
    except TypeError as e:
        frames = [f for f in inspect.getinnerframes(e.__traceback__) if f.filename ==
                  "<dvlad rule log2>"]
        assert frames and frames[0].code_context, "the traceback shows the generated line"
    else:
        raise AssertionError("log2 of a string must raise")
