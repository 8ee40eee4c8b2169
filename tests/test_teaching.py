"""Issue #3, section 3: what dvlad shows people who are learning how it works.

The reprs of bundles, tape cells and tags; dvlad.naive, the untagged dual numbers that are wrong
on purpose; the pictures of a tape (tape_text, tape_graph); and the guided tour, python -m dvlad.
"""
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dvlad
from dvlad import naive
from dvlad.core.tags import FORWARD, REVERSE, new_tag

ROOT = Path(__file__).resolve().parent.parent
D = dvlad.derivative
R = dvlad.gradient_r


# ---- reprs ------------------------------------------------------------------------------------

def test_bundle_repr():
    kept = []
    assert D(lambda x: kept.append(x) or x * x)(3.0) == 6.0
    (x,) = kept
    m = re.fullmatch(r"Bundle\(ε(\d+), 3\.0, 1\.0\)", repr(x))
    assert m, repr(x)
    assert int(m.group(1)) == x.tag.n


def test_bundle_repr_shows_computed_primal_and_tangent():
    kept = []
    D(lambda x: kept.append(x * x + 1.0) or x)(3.0)          # (3 + ε)² + 1 = 10 + 6ε
    n = kept[0].tag.n
    assert repr(kept[0]) == f"Bundle(ε{n}, 10.0, 6.0)"


def test_nested_bundles_print_nested():
    """The 2008 example's inner product x·y, x = 1 + ε_a (outer), y = 2 + ε_b (inner):
    2 + 2ε_a + (1 + ε_a)ε_b, printed with the newer ε_b outside."""
    kept = []

    def outer(x):
        return x * D(lambda y: kept.append(x * y) or x * y)(2.0)

    assert D(outer)(1.0) == 2.0
    m = re.fullmatch(r"Bundle\(ε(\d+), Bundle\(ε(\d+), 2\.0, 2\.0\), Bundle\(ε(\d+), 1\.0, 1\.0\)\)",
                     repr(kept[0]))
    assert m, repr(kept[0])
    b, a, a2 = (int(g) for g in m.groups())
    assert a == a2 and b > a


def test_bundle_over_tape_cells_prints_nested():
    """Reverse over forward: the inner bundle's primal and tangent are cells of the outer tape."""
    kept = []
    assert R(lambda x: D(lambda y: kept.append(x * y) or x * y)(1.0))(3.0) == 1.0
    # x·(1 + ε_b) with x the outer cell #0: primal x·1 (cell #1, partial 1.0 to x) and tangent
    # x·1, which is x itself (a tangent times a partial of 1 is not multiplied).
    r = repr(kept[0])
    m = re.fullmatch(r"Bundle\(ε(\d+), TapeCell\(ε(\d+)#1, 3\.0, partials=\{#0: 1\.0\}\), "
                     r"TapeCell\(ε(\d+)#0, 3\.0, partials=\{\}\)\)", r)
    assert m, r
    assert int(m.group(1)) > int(m.group(2)) == int(m.group(3))


def test_tape_cell_repr():
    """TapeCell(ε<n>#<index>, primal, partials={#<input index>: partial, ...})."""
    cells = []

    def h(x):
        a = 3.0 * x                   # one link: x, partial 3.0
        b = a * x                     # two links: a (partial x = 2.0) and x (partial a = 6.0)
        cells.extend([x, a, b])
        return b

    assert R(h)(2.0) == 12.0
    x, a, b = cells
    n = x.tag.n
    assert repr(x) == f"TapeCell(ε{n}#0, 2.0, partials={{}})"
    assert repr(a) == f"TapeCell(ε{n}#1, 6.0, partials={{#0: 3.0}})"
    assert repr(b) == f"TapeCell(ε{n}#2, 12.0, partials={{#1: 2.0, #0: 6.0}})"
    shape = re.compile(r"TapeCell\(ε\d+#\d+, [^,]+, partials=\{(#\d+: [^,]+(, #\d+: [^,]+)*)?\}\)")
    assert all(shape.fullmatch(repr(c)) for c in cells)


def test_tape_cell_repr_over_bundles():
    """Forward over reverse: a cell's primal and partials are bundles of the outer tag."""
    kept = []
    assert D(lambda x: R(lambda y: kept.append(x * y) or x * y)(2.0))(3.0) == 1.0
    (c,) = kept
    o, i = c.primal.tag.n, c.tag.n
    assert repr(c) == (f"TapeCell(ε{i}#1, Bundle(ε{o}, 6.0, 2.0), "
                       f"partials={{#0: Bundle(ε{o}, 3.0, 1.0)}})")
    assert i > o


def test_tags_print_as_epsilon_n_in_creation_order():
    tags = []
    for x0 in (1.0, 2.0, 3.0):
        D(lambda x: tags.append(x.tag) or x)(x0)
        R(lambda x: tags.append(x.tag) or x)(x0)
    # nested: the outer call's tag is made first
    D(lambda x: tags.append(x.tag) or D(lambda y: tags.append(y.tag) or x * y)(1.0))(1.0)
    tags += [new_tag(FORWARD, "by hand"), new_tag(REVERSE, "by hand")]
    numbers = []
    for t in tags:
        m = re.fullmatch(r"ε(\d+)", repr(t))
        assert m, repr(t)
        assert int(m.group(1)) == t.n
        numbers.append(t.n)
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert str(tags[0]) == repr(tags[0])


# ---- dvlad.naive: untagged duals, wrong on purpose ------------------------------------------------

def test_naive_docstring_says_wrong_on_purpose():
    assert "wrong on purpose" in naive.__doc__.lower()
    assert "confus" in naive.__doc__.lower()


def test_2005_example_naive_is_wrong_dvlad_is_right():
    """d/dx [x · d/dy (x + y)|_{y=1}] at x = 1.  The inner derivative is 1, so the answer is 1.
    Untagged: x = 1+ε, y = 1+ε, x + y = 2 + 2ε, the inner call reads 2, and x·2 gives 2."""
    assert naive.derivative(lambda x: x * naive.derivative(lambda y: x + y)(1.0))(1.0) == 2.0
    assert D(lambda x: x * D(lambda y: x + y)(1.0))(1.0) == 1.0


def test_2008_example_naive_is_wrong_dvlad_is_right():
    """d/dx [x · d/dy (x · y)|_{y=2}] at x = 1.  The inner derivative is x, so d/dx x² = 2.
    Untagged: x = 1+ε, y = 2+ε, x·y = 2 + 3ε, the inner call reads 3, and x·3 gives 3."""
    assert naive.derivative(lambda x: x * naive.derivative(lambda y: x * y)(2.0))(1.0) == 3.0
    assert D(lambda x: x * D(lambda y: x * y)(2.0))(1.0) == 2.0


def test_naive_confuses_the_other_catalog_rows():
    """one(x) = d/dy (x + y) at 3 = 1.  D(x ↦ x·one(x))(7) = 1 and D(x ↦ x·one(2x))(7) = 1;
    untagged duals give 2 and 3 (x = 14 + 2ε adds 2 to the inner tangent)."""
    def one(d):
        return lambda x: d(lambda y: x + y)(3.0)
    assert naive.derivative(lambda x: x * one(naive.derivative)(x))(7.0) == 2.0
    assert naive.derivative(lambda x: x * one(naive.derivative)(2 * x))(7.0) == 3.0
    assert D(lambda x: x * one(D)(x))(7.0) == 1.0
    assert D(lambda x: x * one(D)(2 * x))(7.0) == 1.0


def test_naive_single_level_derivatives_are_right():
    x0 = 0.7
    assert naive.derivative(naive.sin)(x0) == math.cos(x0)
    assert naive.derivative(naive.cos)(x0) == -math.sin(x0)
    assert naive.derivative(naive.exp)(x0) == math.exp(x0)
    assert naive.derivative(lambda x: x * x * x - 2 * x + 1)(2.0) == 10.0      # 3x² - 2
    assert naive.derivative(lambda x: 5.0)(2.0) == 0.0
    assert naive.derivative(lambda x: 1.0 - x * naive.sin(x))(x0) == pytest.approx(
        -(math.sin(x0) + x0 * math.cos(x0)), rel=1e-15)
    # Nesting without a closure over the outer variable does not confuse: D(D(sin)) = -sin.
    assert naive.derivative(naive.derivative(naive.sin))(x0) == -math.sin(x0)
    assert naive.sin(x0) == math.sin(x0)                     # plain numbers pass through
    assert repr(naive.Dual(1.0, 2.0)) == "Dual(1.0, 2.0)"


# ---- tape_text and tape_graph --------------------------------------------------------------------

def _one_tag(text):
    """The tag number used throughout a tape picture (there is exactly one), and the text with
    it replaced by N."""
    numbers = set(re.findall(r"ε(\d+)", text))
    assert len(numbers) == 1, numbers
    (n,) = numbers
    return int(n), text.replace(f"ε{n}", "εN")


def f_small(p):
    """p₀·p₁ + p₀, plus a cell the output does not reach (sin p₁) and one made after it."""
    dvlad.sin(p[1])                  # a cell the output does not reach
    out = p[0] * p[1] + p[0]
    dvlad.exp(out)                   # on the tape after the output: never visited
    return out


def test_tape_graph_exact_dot():
    n, text = _one_tag(dvlad.tape_graph(f_small, (2.0, 3.0)))
    sin3, cos3, exp8 = (repr(v) for v in (math.sin(3.0), math.cos(3.0), math.exp(8.0)))
    expected = "\n".join([
        "digraph tape {",
        "  rankdir=LR;",
        '  node [shape=box, fontname="monospace"];',
        r'  c0 [label="#0 εN\nx[0] = 2.0\nsensitivity 4.0"];',
        r'  c1 [label="#1 εN\nx[1] = 3.0\nsensitivity 2.0"];',
        r'  c2 [label="#2 εN\n' + sin3 + r'\nsensitivity ·", color=grey, fontcolor=grey];',
        r'  c3 [label="#3 εN\n6.0\nsensitivity 1.0"];',
        r'  c4 [label="#4 εN\n8.0\nsensitivity 1.0", peripheries=2];',
        r'  c5 [label="#5 εN\n' + exp8 + r'\nsensitivity ·", color=grey, fontcolor=grey];',
        f'  c1 -> c2 [label="{cos3}"];',
        '  c0 -> c3 [label="3.0"];',
        '  c1 -> c3 [label="2.0"];',
        '  c3 -> c4 [label="1.0"];',
        '  c0 -> c4 [label="1.0"];',
        f'  c4 -> c5 [label="{exp8}"];',
        "}",
    ])
    assert text == expected


def test_tape_graph_structure_rules():
    """One node per cell; one edge per link, from input to user, labelled with the partial;
    exactly one node with peripheries=2 (the output); grey exactly where nothing was reached."""
    text = dvlad.tape_graph(f_small, (2.0, 3.0))
    nodes = re.findall(r'^  c(\d+) \[label="([^"]*)"(.*)\];$', text, re.MULTILINE)
    edges = re.findall(r'^  c(\d+) -> c(\d+) \[label="([^"]*)"\];$', text, re.MULTILINE)
    assert len(text.splitlines()) == 3 + len(nodes) + len(edges) + 1
    assert [int(k) for k, _, _ in nodes] == list(range(6))
    assert sum(1 for _, _, extra in nodes if "peripheries=2" in extra) == 1
    for k, label, extra in nodes:
        assert label.startswith(f"#{k} ε") and "sensitivity " in label
        assert ("color=grey" in extra) == label.endswith("sensitivity ·")
    assert all(int(a) < int(b) for a, b, _ in edges)          # inputs come first on the tape
    assert len(edges) == 6


def test_tape_graph_shared_input_gives_two_edges():
    """x·x links x twice (partials x and x): two edges, and sensitivity 3 + 3 = 6."""
    n, text = _one_tag(dvlad.tape_graph(lambda x: x * x, 3.0))
    assert text.count('  c0 -> c1 [label="3.0"];') == 2
    assert r'c0 [label="#0 εN\nx = 3.0\nsensitivity 6.0"];' in text
    assert r'c1 [label="#1 εN\n9.0\nsensitivity 1.0", peripheries=2];' in text


def test_tape_graph_names_structured_inputs():
    text = dvlad.tape_graph(lambda d: d["a"] * d["b"][0], {"a": 2.0, "b": [5.0]})
    assert r"\nx['a'] = 2.0\n" in text and r"\nx['b'][0] = 5.0\n" in text


def test_tape_graph_writes_dot_text(tmp_path):
    for name in ("t.dot", "t.gv"):
        path = tmp_path / name
        text = dvlad.tape_graph(lambda x: x * x, 3.0, path=path)
        assert path.read_text(encoding="utf-8") == text + "\n"
        assert text.startswith("digraph tape {")


def test_tape_graph_png_without_graphviz_says_what_works(tmp_path, monkeypatch):
    """PNG and PDF need Graphviz; the error says so and names .svg and .dot, which do not.
    (SVG without Graphviz: tests/test_teaching_pictures.py.)"""
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    path = tmp_path / "t.png"
    with pytest.raises(dvlad.GraphvizMissingError) as info:
        dvlad.tape_graph(lambda x: x * x, 3.0, path=path)
    assert isinstance(info.value, dvlad.DvladError)
    assert "'dot'" in str(info.value) and ".svg" in str(info.value) and ".dot" in str(info.value)
    assert not path.exists()


@pytest.mark.parametrize("name, fmt", [("t.svg", "svg"), ("t.png", "png"), ("T.PDF", "pdf")])
def test_tape_graph_renders_with_dot(tmp_path, monkeypatch, name, fmt):
    """With dot installed, the DOT text is piped to `dot -T<fmt> -o <path>` (subprocess faked)."""
    calls = []
    fake_dot = "/opt/graphviz/bin/dot"
    monkeypatch.setattr(shutil, "which", lambda prog, *a, **k: fake_dot if prog == "dot" else None)

    def fake_run(cmd, *args, **kwargs):
        calls.append((cmd, args, kwargs))
        return subprocess.CompletedProcess(cmd, 0, b"", b"")

    monkeypatch.setattr(subprocess, "run", fake_run)
    path = tmp_path / name
    text = dvlad.tape_graph(lambda x: x * x, 3.0, path=path)
    assert len(calls) == 1
    cmd, args, kwargs = calls[0]
    assert args == ()
    assert [str(c) for c in cmd] == [fake_dot, f"-T{fmt}", "-o", str(path)]
    assert kwargs.get("input") == text.encode("utf-8")
    assert kwargs.get("check") is True


def test_tape_text_sensitivities():
    """f(p) = p₀·p₁ + p₀ at (2, 3): ∂f/∂p₀ = p₁ + 1 = 4, ∂f/∂p₁ = p₀ = 2, and 1, 1 for the
    product and the sum (the output)."""
    n, text = _one_tag(dvlad.tape_text(lambda p: p[0] * p[1] + p[0], (2.0, 3.0)))
    lines = text.splitlines()
    assert lines == [
        "tape of εN (2 input, 2 computed cells); sensitivity = ∂output/∂cell",
        "  #0  x[0]                        primal 2.0  sensitivity 4.0",
        "  #1  x[1]                        primal 3.0  sensitivity 2.0",
        "  #2  #0·3.0 + #1·2.0             primal 6.0  sensitivity 1.0",
        "  #3  #2·1.0 + #0·1.0             primal 8.0  sensitivity 1.0  <- output",
    ]
    sens = [float(s) for s in re.findall(r"sensitivity (\S+)", "\n".join(lines[1:]))]
    assert sens == [4.0, 2.0, 1.0, 1.0]
    assert list(R(lambda p: p[0] * p[1] + p[0])([2.0, 3.0])) == sens[:2]


def test_tape_text_unreached_and_constant_output():
    _, text = _one_tag(dvlad.tape_text(lambda p: p[0] * p[0], (2.0, 3.0)))
    assert "  #1  x[1]                        primal 3.0  sensitivity ·" in text.splitlines()
    assert "#0·2.0 + #0·2.0" in text                         # the shared input, twice
    _, text = _one_tag(dvlad.tape_text(lambda p: 5.0, (2.0, 3.0)))
    assert text.splitlines()[-1] == "  output 5.0 does not depend on the input"


def test_tape_text_of_an_array_function_says_which_values_were_freed():
    """An array the sweep does not need is freed while f runs (dvlad.numbers.tape.Node); the picture
    says so and still shows the input, the kept value and every sensitivity.  f = Σ sin(x)·x:
    ∂f/∂x = cos(x)·x + sin(x); sin(x) is kept (it is the product's partial), sin(x)·x is not."""
    import numpy as np
    x = np.array([0.5, 1.0])
    _, text = _one_tag(dvlad.tape_text(lambda v: np.sum(np.sin(v) * v), x))
    lines = text.splitlines()
    assert lines[0] == "tape of εN (1 input, 3 computed cells); sensitivity = ∂output/∂cell"
    assert lines[1].startswith("  #0  x                           primal array([0.5, 1. ])")
    assert "primal array([0.47942554, 0.84147098])" in lines[2]          # sin x: kept
    assert "primal (freed when f dropped it)" in lines[3]                # sin(x)·x: freed
    assert lines[4].endswith("<- output")
    grad = np.array([float(u) for u in re.findall(r"[-\d.]+", lines[1].split("sensitivity")[1])])
    assert np.allclose(grad, np.cos(x) * x + np.sin(x), rtol=1e-8)
    dot = dvlad.tape_graph(lambda v: np.sum(np.sin(v) * v), x)
    assert dot.count("(freed when f dropped it)") == 1 and "peripheries=2" in dot


# ---- the guided tour ------------------------------------------------------------------------------

def _tour(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dvlad", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    return done, time.perf_counter() - start


def _sections():
    from dvlad.teaching.tour import SECTIONS
    return [(name, title) for name, title, _ in SECTIONS]


def test_tour_runs_every_section_quickly():
    done, elapsed = _tour()
    assert done.returncode == 0, done.stderr
    assert elapsed < 10.0
    sections = _sections()
    assert len(sections) >= 5
    out = done.stdout
    for k, (name, title) in enumerate(sections, 1):
        assert f"[{k}/{len(sections)}] {title}  ({name})" in out
    assert "Traceback" not in out + done.stderr
    # the teaching sections show what they promise
    assert "Bundle(ε" in out and "<- output" in out


def test_tour_help_lists_every_section():
    done, _ = _tour("--help")
    assert done.returncode == 0, done.stderr
    words = set(re.findall(r"[\w-]+", done.stdout))
    for name, _ in _sections():
        assert name in words, name


def test_tour_runs_only_the_named_section():
    sections = _sections()
    name, title = next(s for s in sections if s[0] == "confusion")
    done, _ = _tour(name)
    assert done.returncode == 0, done.stderr
    k = [s[0] for s in sections].index(name) + 1                # its number in the whole tour
    assert f"[{k}/{len(sections)}] {title}  ({name})" in done.stdout
    for other, other_title in sections:
        if other != name:
            assert f"] {other_title}  ({other})" not in done.stdout
    assert "2.0" in done.stdout and "1.0" in done.stdout        # naive wrong, dvlad right


def test_tour_runs_two_named_sections():
    sections = _sections()
    first, last = sections[0], sections[-1]
    done, _ = _tour(first[0], last[0])
    assert done.returncode == 0, done.stderr
    n = len(sections)
    assert f"[1/{n}] {first[1]}  ({first[0]})" in done.stdout
    assert f"[{n}/{n}] {last[1]}  ({last[0]})" in done.stdout
    assert sum(f"] {title}  ({name})" in done.stdout for name, title in sections) == 2


def test_tour_unknown_section_is_an_error():
    """A misspelt section must not silently run nothing and exit 0: argparse-style error."""
    done, _ = _tour("no-such-section")
    assert done.returncode != 0
    assert "no-such-section" in done.stderr
    assert all(name in done.stderr for name, _ in _sections())
