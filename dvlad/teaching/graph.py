"""Pictures of a reverse tape: a table for the terminal, Graphviz DOT text, and SVG drawn by dvlad.

All of them record one call of f under a fresh reverse tag exactly as ``gradient_r`` does, sweep
it, and show every cell: its index, tag, primal and sensitivity, and one edge per link labelled
with the partial.  Cells the output does not reach are grey (the sweep skips them).

Nothing needs to be installed: dvlad writes the SVG itself (dvlad.teaching.svg).  Graphviz's
``dot`` is used for the layout only when it is on the PATH, and for PNG and PDF files.
"""
import os
import shutil
import subprocess

from ..modes.api import record, sensitivities
from ..core.base import one_like
from ..core.number import strip
from ..core.tags import ArgumentError, DvladError
from ..numbers.tape import FREED, TapeCell, entry_primal, link_pairs
from . import svg as _svg


class GraphvizMissingError(DvladError, RuntimeError):
    """Rendering to PNG or PDF needs Graphviz's ``dot`` program (SVG and DOT do not)."""


class Cell:
    """One tape cell as the pictures show it (strings, ready to print)."""

    __slots__ = ("index", "name", "primal", "sensitivity", "links", "is_output")

    def __init__(self, index, name, primal, sensitivity, links, is_output):
        self.index, self.name, self.primal = index, name, primal
        self.sensitivity, self.links, self.is_output = sensitivity, links, is_output

    @property
    def reached(self):
        """Did the sweep from the output reach this cell (is its sensitivity known)?"""
        return self.sensitivity != "·"


class Tape:
    """What one reverse pass of f at x left on its tape: ``tag`` (a string such as ``"ε7"``),
    ``cells`` (:class:`Cell`, in tape order), ``n_inputs``, and ``constant``: the output's repr
    when it does not depend on the input, else None."""

    __slots__ = ("tag", "cells", "n_inputs", "constant")


def _tape(f, x):
    """The :class:`Tape` of one reverse pass of real-valued f at x."""
    rec = record(f, x, "tape_graph", scalar=True)
    sens = sensitivities(rec, [one_like(strip(rec.outs[0]))])
    names = dict(zip((c.index for c in rec.cells), _leaf_names(x, "x")))
    y, tag = rec.outs[0], rec.tag
    out = Tape()
    out.tag, out.n_inputs = repr(tag), len(names)
    out.cells = [Cell(c.index, names.get(c.index), _primal(c), _fmt(sens[c.index]),
                      [(a.index, repr(d)) for a, d in link_pairs(c.links)],
                      type(y) is TapeCell and y.tag is tag and c.index == y.index)
                 for c in rec.tape]
    out.constant = None if type(y) is TapeCell and y.tag is tag else repr(y)
    return out


def _primal(e):
    """The value of tape entry e, or a note that f has already freed it (an array no partial
    needed: see dvlad.numbers.tape.Node)."""
    v = entry_primal(e)
    return "(freed when f dropped it)" if v is FREED else repr(v)


def _leaf_names(x, prefix):
    if isinstance(x, (tuple, list)):
        return [n for k, v in enumerate(x) for n in _leaf_names(v, f"{prefix}[{k}]")]
    if isinstance(x, dict):
        return [n for k, v in x.items() for n in _leaf_names(v, f"{prefix}[{k!r}]")]
    return [prefix]


def _fmt(v):
    return "·" if v is None else repr(v)


def _text(t):
    if t.cells:
        head = f"tape of {t.tag} ({t.n_inputs} input, {len(t.cells) - t.n_inputs} computed cells)"
    else:
        head = "empty tape: f has no inputs"
    lines = [head + "; sensitivity = ∂output/∂cell"]
    for c in t.cells:
        what = c.name if c.name is not None else " + ".join(f"#{a}·{d}" for a, d in c.links)
        mark = "  <- output" if c.is_output else ""
        lines.append(f"  #{c.index:<3}{what:<27} primal {c.primal}  "
                     f"sensitivity {c.sensitivity}{mark}")
    if t.constant is not None:
        lines.append(f"  output {t.constant} does not depend on the input")
    return "\n".join(lines)


def _dot(t):
    lines = ["digraph tape {", "  rankdir=LR;", '  node [shape=box, fontname="monospace"];']
    for c in t.cells:
        value = f"{c.name} = {c.primal}" if c.name is not None else c.primal
        label = f"#{c.index} {t.tag}\\n{value}\\nsensitivity {c.sensitivity}"
        extra = ", peripheries=2" if c.is_output else ""
        if not c.reached:
            extra += ", color=grey, fontcolor=grey"
        lines.append(f'  c{c.index} [label="{_escape(label)}"{extra}];')
    for c in t.cells:
        for a, d in c.links:
            lines.append(f'  c{a} -> c{c.index} [label="{_escape(d)}"];')
    lines.append("}")
    return "\n".join(lines)


def tape_text(f, x):
    """The tape of one reverse pass of f at x, as a table for the terminal.

    >>> print(tape_text(lambda p: p[0] * p[1] + p[0], (2.0, 3.0)))   # doctest: +ELLIPSIS
    tape of ε... (2 input, 2 computed cells); sensitivity = ∂output/∂cell
      #0  x[0]                        primal 2.0  sensitivity 4.0
      #1  x[1]                        primal 3.0  sensitivity 2.0
      #2  #0·3.0 + #1·2.0             primal 6.0  sensitivity 1.0
      #3  #2·1.0 + #0·1.0             primal 8.0  sensitivity 1.0  <- output
    """
    return _text(_tape(f, x))


class TapePicture(str):
    """A picture of one tape.  As a string it is the Graphviz DOT text (print it, or paste it
    into any Graphviz viewer); ``.svg()`` draws it as SVG without Graphviz; ``.text`` is the
    terminal table of :func:`tape_text`; ``.save(path)`` writes .dot, .svg (or, with Graphviz,
    .png and .pdf); Jupyter shows the SVG (``_repr_svg_``), and the REPL shows the table.

    >>> pic = tape_graph(lambda x: x * x, 3.0)
    >>> pic.cells[1].primal, pic.cells[0].sensitivity       # x·x = 9, d(x·x)/dx = 6
    ('9.0', '6.0')
    >>> pic.svg().startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True
    """

    tape = None       # the Tape it shows

    def __new__(cls, tape):
        self = super().__new__(cls, _dot(tape))
        self.tape = tape
        return self

    @property
    def dot(self):
        """The Graphviz DOT text (the string itself, as a plain str)."""
        return str.__str__(self)

    @property
    def text(self):
        """The table for the terminal, as :func:`tape_text` prints it."""
        return _text(self.tape)

    @property
    def cells(self):
        """The cells, in tape order: ``index name primal sensitivity links is_output reached``."""
        return self.tape.cells

    def svg(self, layout="auto"):
        """The picture as SVG text.  ``layout``: "dvlad" (dvlad's own layered layout, nothing
        installed), "graphviz" (``dot -Tsvg``; GraphvizMissingError without it), or "auto":
        Graphviz when it is installed, else dvlad's own."""
        if layout == "graphviz" or (layout == "auto" and shutil.which("dot")):
            return _graphviz(self.dot, "svg").decode("utf-8")
        if layout not in ("auto", "dvlad"):
            raise ArgumentError(f"layout={layout!r}: use 'auto', 'dvlad' or 'graphviz'")
        return _svg.draw(self.tape)

    def save(self, path):
        """Write the picture to path, by its extension: .dot or .gv (the text), .svg (Graphviz's
        layout when installed, else dvlad's), .png or .pdf (Graphviz needed)."""
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lstrip(".").lower()
        if ext in ("dot", "gv", ""):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(self.dot + "\n")
        elif ext == "svg" and not shutil.which("dot"):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(_svg.draw(self.tape))
        else:
            _graphviz(self.dot, ext, path)

    def _repr_svg_(self):
        return self.svg()

    def __repr__(self):
        return self.text


def tape_graph(f, x, path=None):
    """The tape of one reverse pass of f at x, as a picture; written to ``path`` if given.

    Nodes show index, tag, primal and sensitivity; edges go from input to user and are labelled
    with the partial; the output has a double border; cells the output does not reach are grey.
    The result is a :class:`TapePicture`: a str holding the Graphviz DOT text, that Jupyter
    displays as a picture and that draws itself as SVG with nothing installed (``.svg()``).
    ``path`` ending in .dot or .gv gets the text; .svg is drawn by Graphviz's ``dot`` if it is
    installed, else by dvlad; .png and .pdf need Graphviz (GraphvizMissingError without it).

    >>> print(tape_graph(lambda p: p[0] * p[1], (2.0, 3.0)))   # doctest: +ELLIPSIS
    digraph tape {
      rankdir=LR;
      node [shape=box, fontname="monospace"];
      c0 [label="#0 ε...\\nx[0] = 2.0\\nsensitivity 3.0"];
      c1 [label="#1 ε...\\nx[1] = 3.0\\nsensitivity 2.0"];
      c2 [label="#2 ε...\\n6.0\\nsensitivity 1.0", peripheries=2];
      c0 -> c2 [label="3.0"];
      c1 -> c2 [label="2.0"];
    }
    """
    picture = TapePicture(_tape(f, x))
    if path is not None:
        picture.save(path)
    return picture


def _escape(s):
    return s.replace('"', '\\"')


def _graphviz(text, fmt, path=None):
    """Run Graphviz's dot on the DOT text: into path, or return its output (bytes)."""
    dot = shutil.which("dot")
    if dot is None:
        where = f"writing {path!r}" if path is not None else f"a {fmt} picture by Graphviz"
        raise GraphvizMissingError(
            f"{where} needs Graphviz's 'dot' program, which is not installed. Save as .svg "
            f"(dvlad draws it itself) or as .dot (the text, for any Graphviz viewer), or "
            f"install Graphviz (apt-get install graphviz, brew install graphviz)")
    if path is not None:
        subprocess.run([dot, f"-T{fmt}", "-o", path], input=text.encode("utf-8"), check=True)
        return None
    return subprocess.run([dot, f"-T{fmt}"], input=text.encode("utf-8"), check=True,
                          capture_output=True).stdout
