"""The fast paths against the reference path (``DVLAD_REFERENCE=1``, dvlad/core/switch.py).

The same programs run in this process (whichever path it is on) and in a subprocess on the other
path; their results must agree bit for bit, except the Taylor towers' generated float kernels,
which order their sums differently from the loops of dvlad/core/series.py: those agree within
``KERNEL_ULPS`` units in the last place.  (Programs are chosen to exercise each fast path: the
generated float twins, nested forward mode over floats, the flat-list gradient shortcut, the
sweep's unrolled step, Taylor kernels, pooled arrays and partials multiplied in place, the
elements of ``np.asarray(x)`` built layer by layer, conditional partials over mixed lanes.)
"""
import json
import math
import os
import subprocess
import sys

import numpy as np

import dvlad

KERNEL_ULPS = 8

PROGRAMS = r'''
import json, math
import numpy as np
import mpmath
import dvlad as ad
from dvlad import pool

pool.configure(threshold=0)             # pool every array the fast path would pool
f = lambda x: ad.exp(ad.sin(x)) * x
rosen = lambda x: sum(100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
                      for i in range(len(x) - 1))
rosen_np = lambda x: np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
xs = np.array([0.5 + 0.4 * math.sin(i) for i in range(300)])
vs = np.cos(np.arange(300.0))
d6 = f
for _ in range(4):
    d6 = ad.derivative(d6)
every = [r.name for r in ad.core.rules.TABLE if r.partial_texts]
out = {
    "derivative": ad.derivative(f)(0.7),
    "nested4": d6(0.7),
    "confusion": ad.derivative(lambda x: x * ad.derivative(lambda y: x * y)(2.0))(1.0),
    "gradient_loop": list(ad.gradient_r(rosen)([-1.2, 1.0, -1.2, 1.0, 0.3])),
    "gradient_f": list(ad.gradient_f(rosen)((-1.2, 1.0, 0.7))),
    "hessian": ad.hessian(lambda p: 2 * p[0] ** 2 + 3 * p[0] * p[1] + ad.sin(p[1]))((3.0, 4.0)),
    "hvp_np": ad.hvp(rosen_np, xs, vs).tolist(),
    "grad_np": ad.gradient_r(rosen_np)(xs).tolist(),
    "jacobian": ad.jacobian_r(lambda x: np.tanh(x) * x[::-1])(xs[:6]).tolist(),
    "elements": [ad.hvp(lambda x: sum(e ** 3 * k for k, e in enumerate(
                    np.asarray(x).view(np.ndarray).flat)), xs[:6].reshape(2, 3),
                    vs[:6].reshape(2, 3), m).tolist() for m in ("fr", "rf", "rr", "ff")],
    "fixed_point": ad.derivative(lambda a: ad.fixed_point(lambda y: a * ad.cos(y), 0.0))(0.5),
    "mpf": str(ad.derivative(ad.derivative(ad.log2))(mpmath.mpf(3))),
    "towers": ad.derivatives(f, 8)(0.7),
    "towers_mul_div": ad.derivatives(lambda x: ad.sinh(x) * ad.cosh(x) / (2.0 + x), 7)(0.4),
    "rows_forward": [ad.derivative(getattr(ad, n) if ad.core.rules.RULES[n].arity == 1 else
                                   (lambda n: lambda x: getattr(ad, n)(x, 0.6))(n)
                                   if not ad.core.rules.RULES[n].fixed else
                                   (lambda n: lambda x: getattr(ad, n)(
                                       *(1,) * (ad.core.rules.RULES[n].arity - 1), x))(n))(0.45)
                     for n in every if n not in ("arccosh",)],
    "rows_reverse": [ad.gradient_r(lambda p, n=n: getattr(ad, n)(
                         1 if ad.core.rules.RULES[n].fixed else p[0], p[1]))((0.45, 0.8))
                     for n in every if ad.core.rules.RULES[n].arity == 2],
}

# Random programs (the same ones in both processes: a seeded generator), over scalars and over
# (3, 4) arrays, through every mode: the property tests' expressions, compared path to path.
import random
rng = random.Random(16)
UNARY = ["ad.exp(ad.sin({0}))", "ad.log(1 + ({0}) * ({0}))", "ad.sqrt(1 + ({0}) * ({0}))",
         "ad.tanh({0})",
         "ad.atan({0})", "ad.cos({0})", "-({0})", "({0}) ** 2", "ad.hypot({0}, 1.0)",
         "ad.pow(1.5 + ad.sin({0}), ad.cos({0}))", "ad.logaddexp({0}, 0.3)", "ad.arcsinh({0})",
         "ad.expm1(ad.cos({0}))", "({0}) / (1 + ({0}) ** 2)", "0.0 * ad.sqrt(({0}) ** 2)"]
BINARY = ["({0}) + ({1})", "({0}) - ({1})", "({0}) * ({1})", "({0}) / (2 + ad.sin({1}))",
          "ad.atan2({0}, 2 + ad.cos({1}))"]


def expr(depth):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["p[0]", "p[1]", "p[2]", "0.7"])
    if rng.random() < 0.5:
        return rng.choice(UNARY).format(expr(depth - 1))
    return rng.choice(BINARY).format(expr(depth - 1), expr(depth - 1))


point, direction = (0.3, -1.1, 0.8), (1.0, 0.5, -2.0)
grid = np.linspace(-1.5, 1.5, 12).reshape(3, 4)
randoms = []
for _ in range(40):
    text = expr(4)
    f = eval("lambda p: " + text)
    g = eval("lambda p: np.sum(" + text + ")")
    randoms.append([text, list(ad.gradient_r(f)(point)), list(ad.gradient_f(f)(point)),
                    [list(ad.hvp(f, point, direction, mode=m)) for m in ("fr", "rf", "rr", "ff")],
                    ad.gradient_r(g)(grid).tolist(), ad.hvp(g, grid, np.cos(grid)).tolist()])
out["random_programs"] = randoms
print(json.dumps({"reference": ad.REFERENCE, "out": out}))
'''


def _run(reference):
    env = dict(os.environ)
    env["DVLAD_REFERENCE"] = "1" if reference else "0"
    done = subprocess.run([sys.executable, "-c", PROGRAMS], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["reference"] is reference
    return result["out"]


def _ulps(a, b):
    if a == b or a != a and b != b:
        return 0
    return abs(a - b) / math.ulp(max(abs(a), abs(b)))


def _compare(fast, ref, path, ulps):
    if isinstance(fast, list):
        assert isinstance(ref, list) and len(fast) == len(ref), path
        for k, (a, b) in enumerate(zip(fast, ref)):
            _compare(a, b, f"{path}[{k}]", ulps)
    elif isinstance(fast, float):
        assert _ulps(fast, ref) <= ulps, f"{path}: {fast!r} against {ref!r} on the reference path"
    else:
        assert fast == ref, f"{path}: {fast!r} against {ref!r} on the reference path"


def test_the_switch_is_read_at_import():
    assert dvlad.REFERENCE is (os.environ.get("DVLAD_REFERENCE", "") not in ("", "0"))


def test_fast_and_reference_paths_agree():
    fast, ref = _run(False), _run(True)
    assert fast.keys() == ref.keys()
    for key in fast:
        _compare(fast[key], ref[key], key, KERNEL_ULPS if key.startswith("towers") else 0)


def test_the_comparison_would_see_a_difference():
    fast = {"x": [1.0, 2.0]}
    try:
        _compare(fast["x"], [1.0, 2.0 + 1e-12], "x", 0)
    except AssertionError as e:
        assert "x[1]" in str(e)
    else:
        raise AssertionError("a difference of 1e-12 went unseen")
    _compare([1.0], [1.0 + 2 * math.ulp(1.0)], "x", 2)
    assert np.isfinite(_ulps(1.0, 1.0 + math.ulp(1.0)))
