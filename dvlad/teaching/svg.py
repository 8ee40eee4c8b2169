"""A tape drawn as SVG by dvlad itself: no Graphviz, no other package.

The layout is layered, left to right as Graphviz's ``rankdir=LR``: an input sits in column 0 and
every other cell one column right of the rightmost cell it links to (its longest path from an
input), so every edge points right (see :func:`layout` for the order within a column and the
links that skip columns).  Each edge is a curve from the input's box to the user's, labelled with
the partial; two links between the same cells (x·x) are drawn apart.  Text is monospace, so a box's width follows from its longest line.
"""
from xml.sax.saxutils import escape

FONT = 12                 # px, monospace
CHAR = 0.6 * FONT         # the advance of one monospace character, in px (DejaVu Sans Mono)
LINE = 15                 # px between lines of a box
PAD = 8                   # px inside a box, around its text
GAP_X, GAP_Y = 120, 22    # px between columns (room for the partials) and between boxes
MARGIN = 14
MAX_CHARS, MAX_LINES = 38, 4     # a long primal (an array) is cut, with "…"
INK, FAINT = "#222222", "#a0a0a0"


def _clip(s, n):
    return s if len(s) <= n else s[:n - 1] + "…"


def _lines(tag, c):
    """The text lines of cell c's box: index and tag, name = primal, sensitivity."""
    value = f"{c.name} = {c.primal}" if c.name is not None else c.primal
    body = [ln.strip() for ln in value.splitlines()] or [""]
    if len(body) > MAX_LINES:
        body = body[:MAX_LINES - 1] + ["…"]
    return [_clip(ln, MAX_CHARS) for ln in [f"#{c.index} {tag}", *body,
                                            f"sensitivity {c.sensitivity}"]]


def layout(tape):
    """Where everything goes: ({cell index: (x, y, width, height)}, {(user index, k): the
    waypoints [(x, y), ...] of its k-th link}, (width, height) of the drawing).

    A link that skips columns passes through a slot of its own in each column between (a "dummy
    node", as in Sugiyama's layered drawings), so it never runs through a box.  Each column is
    ordered by where its items' predecessors sit in the column before (the barycentre), which
    keeps most links from crossing; ties keep tape order.
    """
    column = {}
    for c in tape.cells:
        column[c.index] = 1 + max((column[a] for a, _ in c.links), default=-1)
    size = {}
    for c in tape.cells:
        lines = _lines(tape.tag, c)
        size[("cell", c.index)] = (max(len(ln) for ln in lines) * CHAR + 2 * PAD,
                                   len(lines) * LINE + 2 * PAD - 4)
    items, preds, routes = {}, {}, {}
    for c in tape.cells:
        me = ("cell", c.index)
        items.setdefault(column[c.index], []).append(me)
        preds[me] = []
        for k, (a, _) in enumerate(c.links):
            prev = ("cell", a)
            routes[c.index, k] = [prev]
            for j in range(column[a] + 1, column[c.index]):      # one slot per skipped column
                slot = ("slot", c.index, k, j)
                items.setdefault(j, []).append(slot)
                size[slot], preds[slot] = (0.0, LINE / 2), [prev]
                routes[c.index, k].append(slot)
                prev = slot
            routes[c.index, k].append(me)
            preds[me].append(prev)
    order = {}
    for j in sorted(items):
        def key(item, j=j):
            ps = [order[p] for p in preds[item]]
            return (sum(ps) / len(ps) if ps else -1.0, item[1], item[2] if item[0] == "slot"
                    else -1)
        items[j].sort(key=key if j else (lambda item: item[1]))
        order.update((item, k) for k, item in enumerate(items[j]))
    width = {j: max(size[i][0] for i in col) for j, col in items.items()}
    height = {j: sum(size[i][1] for i in col) + GAP_Y * (len(col) - 1) for j, col in items.items()}
    total_h = max(height.values(), default=0) + 2 * MARGIN
    box, x = {}, MARGIN
    for j in sorted(items):
        y = MARGIN + (total_h - 2 * MARGIN - height[j]) / 2       # columns centred vertically
        for item in items[j]:
            w, h = size[item]
            box[item] = (x + (width[j] - w) / 2, y, w, h, x, x + width[j])
            y += h + GAP_Y
        x += width[j] + GAP_X
    total_w = x - GAP_X + MARGIN if items else 2 * MARGIN
    waypoints = {}
    for key_, route in routes.items():
        xa, ya, wa, ha, _, _ = box[route[0]]
        pts = [(xa + wa, ya + ha / 2)]
        for slot in route[1:-1]:                # through the column, at the slot's height
            _, ys, _, hs, left, right = box[slot]
            pts += [(left, ys + hs / 2), (right, ys + hs / 2)]
        xb, yb, _, hb, _, _ = box[route[-1]]
        waypoints[key_] = pts + [(xb, yb + hb / 2)]
    cells = {i: b[:4] for (kind, i, *_), b in box.items() if kind == "cell"}
    return cells, waypoints, (total_w, total_h)


def _num(v):
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _text(x, y, s, color, anchor="start", weight=None):
    bold = ' font-weight="bold"' if weight else ""
    return (f'<text x="{_num(x)}" y="{_num(y)}" fill="{color}" text-anchor="{anchor}"{bold}>'
            f'{escape(s)}</text>')


def draw(tape):
    """The SVG text of a tape (dvlad.teaching.graph.Tape): boxes for cells, curves for links."""
    place, waypoints, (width, height) = layout(tape)
    reached = {c.index: c.reached for c in tape.cells}
    title = f"tape of {tape.tag}: {len(tape.cells)} cells; edge labels are partials"
    note = f"output {tape.constant} does not depend on the input"
    if tape.constant is not None:
        title += f"; the {note}"
        height += LINE
        width = max(width, 2 * MARGIN + len(note) * CHAR)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" '
           f'height="{_num(height)}" viewBox="0 0 {_num(width)} {_num(height)}" '
           f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT}">',
           f"<title>{escape(title)}</title>",
           "<defs>" + "".join(
               f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="10" refY="5" '
               f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
               f'<path d="M 0 0 L 10 5 L 0 10 z" fill="{color}"/></marker>'
               for name, color in (("ink", INK), ("faint", FAINT))) + "</defs>",
           '<rect width="100%" height="100%" fill="white"/>']
    out += _edges(tape, waypoints, reached)
    for c in tape.cells:
        x, y, w, h = place[c.index]
        color = INK if c.reached else FAINT
        out.append(f'<g class="cell" id="c{c.index}">')
        out.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
                   f'rx="3" fill="white" stroke="{color}"/>')
        if c.is_output:                                  # a double border, as Graphviz draws it
            out.append(f'<rect x="{_num(x + 3)}" y="{_num(y + 3)}" width="{_num(w - 6)}" '
                       f'height="{_num(h - 6)}" rx="2" fill="none" stroke="{color}"/>')
        for k, line in enumerate(_lines(tape.tag, c)):
            out.append(_text(x + PAD, y + PAD + FONT - 2 + k * LINE, line, color,
                             weight=k == 0))
        out.append("</g>")
    if tape.constant is not None:
        out.append(_text(MARGIN, height - MARGIN / 2, note, INK))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _edges(tape, waypoints, reached):
    """One curve per link, from the right side of the input's box to the left side of the
    user's (through its slots in the columns between), with the partial on its last stretch;
    a link the sweep did not use (its user was not reached) is faint."""
    out, seen = [], {}
    for c in tape.cells:
        pairs = [a for a, _ in c.links]
        for k, (a, d) in enumerate(c.links):
            n = seen[a, c.index] = seen.get((a, c.index), -1) + 1
            shift = (n - (pairs.count(a) - 1) / 2) * 2 * LINE       # parallel links apart
            pts = waypoints[c.index, k]
            path = [f"M {_num(pts[0][0])} {_num(pts[0][1])}"]
            for (x0, y0), (x3, y3) in zip(pts, pts[1:]):
                if y0 == y3 and not shift:
                    path.append(f"L {_num(x3)} {_num(y3)}")
                    continue
                bend = max(30.0, (x3 - x0) / 2)      # leaves and enters horizontally
                path.append(f"C {_num(x0 + bend)} {_num(y0 + shift)} {_num(x3 - bend)} "
                            f"{_num(y3 + shift)} {_num(x3)} {_num(y3)}")
            color, marker = (INK, "ink") if reached[c.index] else (FAINT, "faint")
            out.append(f'<path class="link" d="{" ".join(path)}" fill="none" stroke="{color}" '
                       f'marker-end="url(#arrow-{marker})">'
                       f'<title>{escape(f"∂#{c.index}/∂#{a} = {d}")}</title></path>')
            # the label on the last stretch, a little nearer the user (where links into one
            # cell have not met yet), on a white ground so that crossing lines stay legible
            (x0, y0), (x3, y3) = pts[-2], pts[-1]
            mx, my = 0.55 * x0 + 0.45 * x3, 0.55 * y0 + 0.45 * y3 + 0.75 * shift + FONT / 3
            label = _clip(d, 13)          # fits the gap between columns
            lw = len(label) * CHAR + 6
            out.append(f'<rect x="{_num(mx - lw / 2)}" y="{_num(my - FONT + 1)}" '
                       f'width="{_num(lw)}" height="{FONT + 3}" fill="white" '
                       f'fill-opacity="0.85"/>')
            out.append(_text(mx, my, label, color, anchor="middle"))
    return out
