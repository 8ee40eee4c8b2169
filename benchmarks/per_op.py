"""Per-operation costs of dvlad's general paths (not the float twins), for one tree.

    python benchmarks/per_op.py TREE          # prints JSON: seconds per operation (timeit minima)

Run it for two trees alternately (a worktree of an older commit, and .) to compare: the
operations are those the refactor of issue #15 moved (bundles and tape cells over arrays and over
other bundles).  Works with the flat layout of before issue #15 (dvlad/tags.py ...) and the
layered one (dvlad/core/tags.py ...).
"""
import json
import os
import sys
import timeit

tree = sys.argv[1]
sys.path.insert(0, tree)
import numpy as np  # noqa: E402

import dvlad as ad  # noqa: E402

if os.path.isdir(os.path.join(tree, "dvlad", "core")):
    from dvlad.core.tags import FORWARD, REVERSE, new_tag  # noqa: E402
    from dvlad.numbers.bundle import make_bundle  # noqa: E402
    from dvlad.numbers.tape import make_cell  # noqa: E402
else:
    from dvlad.bundle import make_bundle  # noqa: E402
    from dvlad.tags import FORWARD, REVERSE, new_tag  # noqa: E402
    from dvlad.tape import make_cell  # noqa: E402


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=9)) / number


x = np.linspace(0.1, 1, 1000)
f = new_tag(FORWARD, "t")
bx, by = make_bundle(f, x, x.copy()), make_bundle(f, x + 1, x.copy())
r = new_tag(REVERSE, "t")
r.tape = []
cx, cy = make_cell(r, bx, ()), make_cell(r, by, ())
s2 = make_cell(r, make_bundle(f, 2.0, 1.0), ())
g, h = new_tag(FORWARD, "outer"), new_tag(FORWARD, "inner")
inner = make_bundle(h, make_bundle(g, 2.0, 1.0), make_bundle(g, 1.0, 0.0))
outer = make_bundle(g, 3.0, 1.0)
b2 = make_bundle(f, make_bundle(new_tag(FORWARD, "u"), 2.0, 1.0), 1.0)
print(json.dumps({
    "fwd arr mul": best(lambda: bx * by, 2000),
    "fwd arr sub": best(lambda: bx - by, 2000),
    "fwd arr sq": best(lambda: bx ** 2, 2000),
    "rev/fwd arr mul": best(lambda: cx * cy, 2000),
    "rev scalar mul (over bundle)": best(lambda: s2 * s2, 20000),
    "fwd nested sin": best(lambda: ad.sin(b2), 20000),
    "ff mixed mul": best(lambda: inner * outer, 20000),
    "ff mixed sub": best(lambda: inner - outer, 20000),
}))
