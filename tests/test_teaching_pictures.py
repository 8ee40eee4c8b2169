"""Issue #19: pictures that need nothing installed.  tape_graph draws SVG itself when Graphviz is
absent (well-formed XML, one box per cell, one curve per link, every edge pointing right, no box
over another), returns a picture Jupyter displays, and still is the DOT text it was; bundles
written out as sums over their ε's (dvlad.teaching.epsilon) for the notebook."""
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import dvlad
from dvlad.teaching import svg as svg_module
from dvlad.teaching.epsilon import epsilons
from dvlad.teaching.graph import TapePicture

ROOT = Path(__file__).resolve().parent.parent
NS = {"svg": "http://www.w3.org/2000/svg"}


def f_small(p):
    """p₀·p₁ + p₀, with a cell the output does not reach (sin p₁) and one made after it."""
    dvlad.sin(p[1])
    out = p[0] * p[1] + p[0]
    dvlad.exp(out)
    return out


@pytest.fixture
def no_graphviz(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)


def parse(text):
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def boxes(root):
    """{cell index: (x, y, w, h, stroke, [text lines])} of the drawing."""
    out = {}
    for g in root.iterfind("svg:g[@class='cell']", NS):
        rect = g.find("svg:rect", NS)
        lines = [t.text for t in g.iterfind("svg:text", NS)]
        out[int(g.get("id")[1:])] = (*(float(rect.get(k)) for k in ("x", "y", "width", "height")),
                                     rect.get("stroke"), lines, len(g.findall("svg:rect", NS)))
    return out


def test_svg_file_without_graphviz_is_well_formed_and_shows_every_cell(tmp_path, no_graphviz):
    path = tmp_path / "tape.svg"
    pic = dvlad.tape_graph(f_small, (2.0, 3.0), path=path)
    root = parse(path.read_text(encoding="utf-8"))
    cells = boxes(root)
    assert sorted(cells) == list(range(6))
    n = pic.tape.tag
    assert cells[0][5] == [f"#0 {n}", "x[0] = 2.0", "sensitivity 4.0"]
    assert cells[1][5] == [f"#1 {n}", "x[1] = 3.0", "sensitivity 2.0"]
    assert cells[4][5] == [f"#4 {n}", "8.0", "sensitivity 1.0"]
    assert cells[2][5] == [f"#2 {n}", repr(math.sin(3.0)), "sensitivity ·"]
    grey = {k for k, c in cells.items() if c[4] == svg_module.FAINT}
    assert grey == {2, 5}                                   # the cells the sweep never reached
    assert [k for k, c in cells.items() if c[6] == 2] == [4]      # the output: a double border
    links = root.findall("svg:path[@class='link']", NS)
    assert len(links) == 6
    partials = sorted(ln.find("svg:title", NS).text for ln in links)
    assert "∂#3/∂#0 = 3.0" in partials and "∂#4/∂#3 = 1.0" in partials
    assert f"∂#5/∂#4 = {math.exp(8.0)!r}" in partials
    assert root.find("svg:title", NS).text.startswith(f"tape of {n}: 6 cells")


def test_svg_is_drawn_when_dot_is_not_on_the_path(tmp_path):
    """In a process whose PATH has no Graphviz at all (the real lookup, nothing patched)."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    code = ("import dvlad, shutil; assert shutil.which('dot') is None; "
            "dvlad.tape_graph(lambda p: p[0] * p[1], (2.0, 3.0), 'tape.svg')")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    root = parse((tmp_path / "tape.svg").read_text(encoding="utf-8"))
    assert len(boxes(root)) == 3


def test_layout_points_every_edge_right_and_overlaps_no_boxes(no_graphviz):
    f = lambda p: (p[0] * p[1] + dvlad.exp(p[2] * p[0])) * dvlad.cos(p[1]) + p[2] ** 3  # noqa
    pic = dvlad.tape_graph(f, (1.0, 2.0, 3.0))
    place, waypoints, (width, height) = svg_module.layout(pic.tape)
    for c in pic.cells:
        for k, (a, _) in enumerate(c.links):
            pts = waypoints[c.index, k]
            assert all(p[0] <= q[0] for p, q in zip(pts, pts[1:]))       # left to right
            xa, ya, wa, ha = place[a]
            assert pts[0] == (xa + wa, ya + ha / 2) and pts[-1][0] == place[c.index][0]
            for x, y in pts[1:-1]:                           # a slot is never inside a box
                assert not any(bx < x < bx + bw and by <= y <= by + bh
                               for bx, by, bw, bh in place.values())
    rects = list(place.values())
    for i, (x1, y1, w1, h1) in enumerate(rects):
        assert 0 <= x1 and x1 + w1 <= width and 0 <= y1 and y1 + h1 <= height
        for x2, y2, w2, h2 in rects[i + 1:]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    parse(pic.svg())


def test_the_picture_is_still_the_dot_text_and_shows_the_table_at_the_repl():
    pic = dvlad.tape_graph(lambda p: p[0] * p[1] + p[0], (2.0, 3.0))
    assert isinstance(pic, TapePicture) and isinstance(pic, str)
    assert str(pic) == pic.dot and pic.dot.startswith("digraph tape {")
    assert type(pic.dot) is str
    text = pic.text
    assert repr(pic) == text and text.splitlines()[-1].endswith("<- output")
    assert [c.sensitivity for c in pic.cells] == ["4.0", "2.0", "1.0", "1.0"]
    assert [c.reached for c in pic.cells] == [True] * 4


def test_jupyter_displays_the_picture(no_graphviz):
    pic = dvlad.tape_graph(lambda x: x * x, 3.0)
    assert pic._repr_svg_() == pic.svg() == pic.svg(layout="dvlad")
    parse(pic._repr_svg_())
    formatters = pytest.importorskip("IPython.core.formatters")
    shown = formatters.SVGFormatter()(pic)
    assert shown is not None and len(boxes(parse(shown))) == 2


def test_graphviz_is_used_for_the_layout_when_installed(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda prog, *a, **k: "/usr/bin/dot")
    calls = []

    def fake_run(cmd, *args, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, b"<svg xmlns='http://www.w3.org/2000/svg'/>",
                                           b"")
    monkeypatch.setattr(subprocess, "run", fake_run)
    pic = dvlad.tape_graph(lambda x: x * x, 3.0)
    assert pic.svg() == "<svg xmlns='http://www.w3.org/2000/svg'/>"
    assert calls == [["/usr/bin/dot", "-Tsvg"]]
    assert pic.svg(layout="dvlad").startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert len(calls) == 1


def test_layout_choices_are_checked(no_graphviz):
    pic = dvlad.tape_graph(lambda x: x * x, 3.0)
    with pytest.raises(dvlad.GraphvizMissingError, match=r"\.svg"):
        pic.svg(layout="graphviz")
    with pytest.raises(dvlad.ArgumentError, match="layout='neato'"):
        pic.svg(layout="neato")


def test_save_writes_dot_text_and_svg(tmp_path, no_graphviz):
    pic = dvlad.tape_graph(lambda x: x * x, 3.0)
    pic.save(tmp_path / "t.dot")
    assert (tmp_path / "t.dot").read_text(encoding="utf-8") == pic.dot + "\n"
    pic.save(str(tmp_path / "t.svg"))
    assert (tmp_path / "t.svg").read_text(encoding="utf-8") == pic.svg()


def test_svg_of_arrays_constants_and_awkward_names(no_graphviz):
    x = np.array([0.5, 1.0])
    pic = dvlad.tape_graph(lambda v: np.sum(np.sin(v) * v), x)
    root = parse(pic.svg())
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "(freed when f dropped it)" in texts
    assert all(len(t) <= svg_module.MAX_CHARS for t in texts if t)
    root = parse(dvlad.tape_graph(lambda p: 5.0, (1.0, 2.0)).svg())
    assert any("output 5.0 does not depend on the input" in (t.text or "")
               for t in root.iter("{http://www.w3.org/2000/svg}text"))
    root = parse(dvlad.tape_graph(lambda p: 1.0, ()).svg())                # an empty tape
    assert boxes(root) == {} and float(root.get("width")) > len("output 1.0 does not") * 7
    root = parse(dvlad.tape_graph(lambda d: d["<a & 'b'>"] * 2.0, {"<a & 'b'>": 1.0}).svg())
    assert boxes(root)[0][5][1] == "x[\"<a & 'b'>\"] = 1.0"


def test_two_links_between_the_same_cells_are_drawn_apart(no_graphviz):
    root = parse(dvlad.tape_graph(lambda x: x * x, 3.0).svg())
    paths = [p.get("d") for p in root.findall("svg:path[@class='link']", NS)]
    assert len(paths) == 2 and paths[0] != paths[1]


# ---- bundles written out over their ε's -----------------------------------------------------------

def test_epsilons_of_nested_bundles():
    kept = []
    assert dvlad.derivative(lambda x: x * dvlad.derivative(
        lambda y: kept.append(x * y) or x * y)(2.0))(1.0) == 2.0
    v = kept[0]                    # (1 + εa)(2 + εb) = 2 + 2εa + εb + εa·εb
    a, b = v.primal.tag, v.tag
    s = epsilons(v)
    assert str(s) == f"2 + 2{a!r} + {b!r} + {a!r}·{b!r}"
    assert s.coefficient() == 2.0 and s.coefficient(a) == 2.0 and s.coefficient(b, a) == 1.0
    assert s._repr_html_() == (f"2 + 2ε<sub>{a.n}</sub> + ε<sub>{b.n}</sub> + "
                               f"ε<sub>{a.n}</sub>·ε<sub>{b.n}</sub>")


def test_epsilons_of_naive_duals_and_plain_numbers():
    assert str(epsilons(dvlad.naive.Dual(2.0, 2.0))) == "2 + 2ε"
    assert str(epsilons(dvlad.naive.Dual(1.0, -1.0))) == "1 - ε"
    assert str(epsilons(dvlad.naive.Dual(0.5, 0.0))) == "0.5"
    assert str(epsilons(3.0)) == "3" and repr(epsilons(0.0)) == "EpsilonSum(0)"
