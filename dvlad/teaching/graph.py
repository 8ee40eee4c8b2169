"""Pictures of a reverse tape: Graphviz DOT text, and a plain-text table for the terminal.

Both record one call of f under a fresh reverse tag exactly as ``gradient_r`` does, sweep it, and
show every cell: its index, tag, primal and sensitivity, and one edge per link labelled with the
partial.  Cells the output does not reach are drawn grey (the sweep skips them).
"""
import os
import shutil
import subprocess

from ..modes.api import record, sensitivities
from ..core.base import one_like
from ..core.number import strip
from ..core.tags import DvladError
from ..numbers.tape import FREED, TapeCell, entry_primal, link_pairs


class GraphvizMissingError(DvladError, RuntimeError):
    """Rendering to SVG/PNG needs Graphviz's ``dot`` program."""


def _record(f, x):
    """(tape, input names, output, sensitivities) of one reverse pass of real-valued f at x."""
    rec = record(f, x, "tape_graph", scalar=True)
    sens = sensitivities(rec, [one_like(strip(rec.outs[0]))])
    names = dict(zip((c.index for c in rec.cells), _leaf_names(x, "x")))
    return rec.tape, rec.tag, names, rec.outs[0], sens, rec.cells   # (cells: inputs' values)


def _is_output(e, y, tag):
    return type(y) is TapeCell and y.tag is tag and e.index == y.index


def _primal(e):
    """The value of tape entry e, or a note that f has already freed it (an array no partial
    needed: see dvlad.tape.Node)."""
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


def tape_text(f, x):
    """The tape of one reverse pass of f at x, as a table for the terminal.

    >>> print(tape_text(lambda p: p[0] * p[1] + p[0], (2.0, 3.0)))   # doctest: +ELLIPSIS
    tape of ε... (2 input, 2 computed cells); sensitivity = ∂output/∂cell
      #0  x[0]                        primal 2.0  sensitivity 4.0
      #1  x[1]                        primal 3.0  sensitivity 2.0
      #2  #0·3.0 + #1·2.0             primal 6.0  sensitivity 1.0
      #3  #2·1.0 + #0·1.0             primal 8.0  sensitivity 1.0  <- output
    """
    tape, tag, names, y, sens, inputs = _record(f, x)
    n_in = len(names)
    if tape:
        head = f"tape of {tag!r} ({n_in} input, {len(tape) - n_in} computed cells)"
    else:
        head = "empty tape: f has no inputs"
    lines = [head + "; sensitivity = ∂output/∂cell"]
    for c in tape:
        if c.index in names:
            what = names[c.index]
        else:
            what = " + ".join(f"#{a.index}·{d!r}" for a, d in link_pairs(c.links))
        mark = "  <- output" if _is_output(c, y, tag) else ""
        lines.append(f"  #{c.index:<3}{what:<27} primal {_primal(c)}  "
                     f"sensitivity {_fmt(sens[c.index])}{mark}")
    if not (type(y) is TapeCell and y.tag is tag):
        lines.append(f"  output {y!r} does not depend on the input")
    return "\n".join(lines)


def tape_graph(f, x, path=None):
    """The tape of one reverse pass of f at x as Graphviz DOT text; optionally written to path.

    Nodes show index, tag, primal and sensitivity; edges go from input to user and are labelled
    with the partial.  ``path`` ending in .dot gets the text; .svg, .png or .pdf are rendered with
    Graphviz's ``dot`` (GraphvizMissingError if it is not installed).

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
    tape, tag, names, y, sens, inputs = _record(f, x)
    lines = ["digraph tape {", "  rankdir=LR;", '  node [shape=box, fontname="monospace"];']
    for c in tape:
        value = f"{names[c.index]} = {_primal(c)}" if c.index in names else _primal(c)
        label = f"#{c.index} {tag!r}\\n{value}\\nsensitivity {_fmt(sens[c.index])}"
        extra = ", peripheries=2" if _is_output(c, y, tag) else ""
        if sens[c.index] is None:
            extra += ", color=grey, fontcolor=grey"
        lines.append(f'  c{c.index} [label="{_escape(label)}"{extra}];')
    for c in tape:
        for a, d in link_pairs(c.links):
            lines.append(f'  c{a.index} -> c{c.index} [label="{_escape(repr(d))}"];')
    lines.append("}")
    text = "\n".join(lines)
    if path is not None:
        _write(text, path)
    return text


def _escape(s):
    return s.replace('"', '\\"')


def _write(text, path):
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext in ("dot", "gv", ""):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        return
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissingError(
            f"writing {path!r} needs Graphviz's 'dot' program, which is not installed "
            f"(apt-get install graphviz); or give a path ending in .dot to save the text")
    subprocess.run([dot, f"-T{ext}", "-o", path], input=text.encode("utf-8"), check=True)
