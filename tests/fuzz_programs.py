"""The differential fuzzer's programs: random Python functions over the rule table, run in every
mode, and the checks that compare them (issue #16).  tests/test_fuzz.py holds the tests.

A program is Python text a human can paste: ``repr(program)`` prints it with its point (and
direction, cotangent) and the checks it gets, and hypothesis prints that for a falsifying
example.  It is written by hypothesis, statement by statement, from:

- the rows of :data:`dvlad.core.rules.TABLE`, each called as ``ad.<name>``, as ``np.<ufunc>`` for
  each ufunc the row answers to, or as its Python operator: a new row is fuzzed with no change
  here.  The generator knows every value at the point (it runs the program, in the oracle's
  vocabulary below, as it writes it) and calls a row directly where the row is finite, at most
  LIMIT, and its first three derivatives in each argument are at most LIMIT (mpmath, steps
  relative to the argument); elsewhere it wraps the arguments as ``P + R * ad.sin(e)`` around
  one of the row's own test points (``Rule.points``).  So programs stay in the domain, and their
  rounding errors stay far below the tolerances;
- branches on comparisons (``if a > b:``, conditional expressions, ``max(a, b)``), which compare
  primals; copies (``copy.copy``, ``copy.deepcopy``, of numbers and of structures); Python's
  ``int``/``round``/``math.floor`` (constants); user primitives (``ad.primitive``,
  ``ad.vector_primitive`` of tuples and of dicts, with correct partials, jvps and vjps); fixed
  points (``ad.fixed_point`` by contraction and by Heron's iteration, of numbers, pairs and dicts
  with the keys in another order, and ``ad.root``);
- inner derivative operators (``derivative``, ``gradient_r``, ``gradient_f``, ``jvp``, ``vjp``,
  ``directional_derivative``, ``jacobian_f``, ``jacobian_r``, ``derivatives``,
  ``nth_derivative``, ``taylor``, ``hvp`` in its four modes) of inner functions of y that close
  over the outer variables (the first statement mixes y with one: the perturbation-confusion
  shape); with the operators the checks apply outside, three derivative operators deep;
- for arrays: shapes (), (0,), (1,), (3,), (2, 2), (2, 3) of float64, float32, int64, int32,
  uint8 and bool; the rows elementwise, broadcasting against 0-d, size-1, row and full constants;
  sums, means, max, min and products, of all or along an axis, keepdims; indexing, slicing and
  fancy indexing; reshapes, transposes, ravel, squeeze, expand_dims, broadcast_to, swapaxes;
  concatenate, stack; dot, matmul, outer, inner, einsum, tensordot, trace; where and clip;
  linalg.solve, det, inv, norm.

Three kinds of program, and what each is checked against (:func:`check`):

- ``scalar``, f: R → R at a float (or a Python int, numpy float64 or float32, or mpmath mpf) x:
  f⁽ⁿ⁾ (n ≤ 3) by one to three nestings of forward (F), reverse (R), forward-gradient (G) and
  Taylor (T) operators, f′ by derivative and gradient_r, every order by ``derivatives(f, n)``
  and ``nth_derivative``: against each other, and against ``mpmath.diffs`` of the same program
  on mpf numbers at 30 digits (the *truth*);
- ``struct``, f of a tuple, list or dict (nested; dict keys in a drawn order) to a number or to
  a tuple, list or dict: gradient_r, gradient_f, jvp, vjp, jacobian_f, hessian,
  jacobian_r(gradient_r), hvp in all four modes, taylor along a direction, a third-order jvp of
  an hvp (directions and cotangents with their keys in another order, paired by key; or with a
  key missing, where every one must raise StructureMismatchError) — against each other, with
  the layouts (container types, key order) of the point, and against mpmath's partial
  derivatives in the leaves at 30 digits; a structure-valued f: jacobian_f, jacobian_r, jvp,
  vjp against each other and mpmath;
- ``array``, f of an ndarray to a number (or an array: jacobian_f, jacobian_r, jvp, vjp): the
  same operators and ``directional_derivatives``, with the shapes and dtypes of the results —
  against each other, and against mpmath at 30 digits on the program run on object arrays of
  mpf: the gradient partial by partial, the directional derivatives of orders 1..3.  int and
  bool inputs are differentiated as float64 (notes/conventions.md), so the truth is taken at
  ``x.astype(float64)``.

The truth is the program's text in the oracle's vocabulary (:data:`ORACLE`): every row called
on plain mpf numbers (or elementwise on object arrays), every inner derivative operator replaced
by ``mpmath.diff``, fixed points and roots found by the oracle's own secant method.  No dvlad
derivative code runs in it.  Tolerances (:func:`tolerance`, support.close with a floor of 1,
arrays normwise): between modes 1e-12 relative, against the truth 1e-9; float32 programs 1e-3;
mpf programs 1e-15 (floats leak into them: a zero derivative is a float 0.0).  A comparison, a
jump or a kink (rows whose partials branch: abs, maximum, mod, sign, ...) met within 1e-9 of a
tie at the point leaves the truth out (there the modes agree by convention, not with a finite
difference) but keeps the modes' agreement.

"A named error on both sides": if one evaluation raises a :class:`dvlad.DvladError`, every other
one must raise the same class; any other exception from a valid program fails.  Some programs
carry a construct that must raise (``float(v)`` of a perturbed v, ``np.fft.fft``, a direction
with a missing key): then every derivative must raise that error.
"""
import copy
import hashlib
import itertools
import linecache
import math
import types

import mpmath
import numpy as np
from hypothesis import strategies as st

import dvlad as ad
from dvlad.core.rules import TABLE
from support import assert_plain, close

LIMIT = 1e3          # |value| and |derivatives| (orders 1-3) of each row at its arguments
MARGIN = 1e-9        # a tie or a jump this close (relatively) leaves the truth out
TRUTH_DPS = 30
KINDS = ("scalar", "struct", "array")

# Constructs left out of the generated set because they hit a dvlad bug: each entry names the
# reproduction in the fuzzer's report (and its regression test, once fixed).  Remove an entry to
# fuzz the construct again.
KNOWN_BUGS = {
    # Found and fixed since ca4e6b6, fuzzed again since (their regression tests are dvlad's):
    # 1, fixed_point's tolerance from x0's type when f computes in float32 (4f047e2), and from
    # the first component only (a float32 pair: the least precise component now counts); 2,
    # fixed_point paired f's dict result with x0 by position (0e3f02a); 3, Taylor coefficients
    # through a fixed point stalled above the tolerance (c443d58); 4-6, derivative types by
    # mode: float32 against float64, a 0-d point, gradient_f of a constant (6101d18, 98629bf;
    # the rest: every derivative in numpy's result type of the point's and f's value, also where
    # an order does not depend on x, and hvp fr at a 0-d point a 0-d array); 7, reverse mode over an array divided by a Python 0.0
    # (0e3f02a); 8, np.prod's partials r / x_k (0e3f02a); 9, Taylor mode through a where with
    # one condition in every lane (9a7965c, a regression from 0767286); 13, Taylor over reverse
    # over a fixed point whose f's first value left out a newer tag (0·x): fixed_point now
    # restarts with it known (its test in tests/test_fuzz.py passes); 10, jacobian_f called f with
    # an empty bool array itself (every other pass: as float64); 11, atan2's partials
    # divided by an underflowed x² + y² (now y/h/h, h = hypot(x, y)); 12, partials that overflowed
    # inside: tanh′ = 1/cosh² x (nan tanh″ for |x| > 355) and logaddexp's 1/(1 + exp(y − x))
    # (OverflowError): both rewritten, their tests in tests/test_edges.py.
}


# ---- the rows --------------------------------------------------------------------------------

_DUNDER_TEXT = {"__add__": "({0} + {1})", "__sub__": "({0} - {1})", "__mul__": "({0} * {1})",
                "__truediv__": "({0} / {1})", "__pow__": "({0} ** {1})", "__mod__": "({0} % {1})",
                "__floordiv__": "({0} // {1})", "__neg__": "(-{0})", "__abs__": "abs({0})"}


class Row:
    """One row of the rule table as the generator uses it: the ways to call it, its test points,
    whether its partials branch (a kink or jump may be near), whether it takes arrays."""

    def __init__(self, rule):
        self.name, self.arity = rule.name, rule.arity
        args = ", ".join("{%d}" % i for i in range(self.arity))
        self.forms = [f"ad.{self.name}({args})"]
        self.forms += [f"np.{u}({args})" for u in rule.ufuncs]
        self.forms += [_DUNDER_TEXT[d] for d in rule.dunders if d in _DUNDER_TEXT]
        self.smooth = bool(rule.partial_texts)
        self.guarded = not self.smooth or any(
            " if " in p or "sign(" in p or "floor(" in p for p in rule.partial_texts)
        self.points = [tuple(float(c) for c in p) for p in rule.points] or \
            [(1.3, 0.7)[:self.arity]]         # (the piecewise-constant rows have none)
        self.arrays = bool(rule.ufuncs)      # numpy's protocol reaches it; ad.int does not
        self.call = getattr(ad, self.name)

    def __repr__(self):
        return f"Row({self.name})"


# (rows with an integer-order argument, polygamma, iv, jn, ..., or a shape argument, gammainc's
# a, betainc's a and b, are left out: the generator's operands are real expressions, which would
# perturb them; test_rules, test_taylor and check_grads cover them in their variable)
ROWS = [Row(rule) for rule in TABLE if not rule.fixed]
ROW = {row.name: row for row in ROWS}


def _tame(row, args):
    """Is the row finite with |f| ≤ LIMIT near args (floats), and (if smooth) are its first
    three derivatives in each argument at most LIMIT there?  Rounding errors grow with them:
    this keeps the programs' rounding far below the tolerances."""
    # steps relative to the arguments: a domain edge at any scale shows up (log near 0)
    steps = [1e-3 * max(1e-3, abs(a)) for a in args]
    try:
        for p in itertools.product(*[(a - d, a, a + d) for a, d in zip(args, steps)]):
            r = float(row.call(*p))
            if not (math.isfinite(r) and abs(r) <= LIMIT):
                return False
        if row.smooth:
            for i, a in enumerate(args):
                line = (lambda t: row.call(*args[:i], t, *args[i + 1:]))
                # two steps: one relative to a (atan2 and hypot near (0, 0), or a tiny
                # divisor of mod, whose sawtooth of period b has slope −⌊a/b⌋ ~ 1e198 at
                # b = 1e-197, must not hide inside the step), and one at the scale of the whole
                # point (hypot(t, 1e-17) at t = 2e-313 bends on the scale 1e-17, which a step of
                # 2^-40·2e-313 never sees)
                for scale in (abs(a), max(abs(b) for b in args)):
                    h = mpmath.mpf(2) ** -40 * (scale or 1)
                    if any(abs(d) > LIMIT for d in itertools.islice(
                            mpmath.diffs(line, mpmath.mpf(a), 3, h=h), 1, None)):
                        return False
    except (ArithmeticError, ValueError):
        return False
    return True


def tame(row, values):
    """_tame at every element of the arguments (numbers, or arrays broadcasting together).  An
    empty array has no elements, but its derivatives still meet the other arguments (a Python
    0.0 divisor of an empty array makes 1/0.0 in a partial): it stands as 1.0 there."""
    values = [np.ones(1) if np.size(v) == 0 else v for v in values]
    arrays = np.broadcast_arrays(*[np.asarray(v, dtype=object) for v in values])
    return all(_tame(row, [float(a) for a in p]) for p in zip(*[a.flat for a in arrays]))


# ---- the oracle's vocabulary: plain mpf numbers and object arrays of them ---------------------

class _State:
    """Set while the truth is computed: ``near`` becomes True when a comparison or a kink is met
    within MARGIN of a tie or a jump."""
    checking = False
    near = False


STATE = _State()


def _near(a, b):
    return abs(a - b) <= MARGIN * max(1, abs(a), abs(b))


def _smooth_here(row, args):
    """False if the row has a jump or a kink within MARGIN of args: a piecewise-constant row
    must not change there; another must change by at most its slope bound (LIMIT, as the
    generator keeps it: a jump, odd ones like sign's included) and bend by far less than a
    kink would (second differences)."""
    call = row.call
    r = call(*args)
    for i, a in enumerate(args):
        d = MARGIN * max(1, abs(a))
        lo, hi = list(args), list(args)
        lo[i], hi[i] = a - d, a + d
        try:
            down, up = call(*lo), call(*hi)
        except (ArithmeticError, ValueError):
            return False
        if not row.smooth:
            if down != r or up != r:
                return False
        elif abs(up - down) > 4 * d * LIMIT * max(1, abs(r)) or \
                abs(up - 2 * r + down) > 1e-2 * d * max(1, abs(r)) or \
                not _slope_smooth(row, args, i, d):
            return False
    return True


def _slope_smooth(row, args, i, d):
    """Whether the slope in argument i bends by far less than a kink would within d of args: a
    jump of f″ (i1e at 0, e^(−|x|)·I₁(x) = x/2 − x|x|/2 + ...) bends the slope, not the value."""
    slope = ad.derivative(lambda t: row.call(*args[:i], t, *args[i + 1:]))
    try:
        lo, mid, hi = slope(args[i] - d), slope(args[i]), slope(args[i] + d)
    except (ArithmeticError, ValueError):
        return False
    return abs(hi - 2 * mid + lo) <= 1e-2 * d * max(1, abs(mid))


def _elementwise(row):
    call, arity, guarded = row.call, row.arity, row.guarded
    vector = np.frompyfunc(call, arity, 1)

    def scalar(*args):
        if STATE.checking and guarded and not STATE.near and not _smooth_here(row, args):
            STATE.near = True
        return call(*args)
    vector_checked = np.frompyfunc(scalar, arity, 1)

    def apply(*args):
        if any(isinstance(a, np.ndarray) for a in args):
            return (vector_checked if guarded else vector)(*args)
        return scalar(*args)
    return apply


R_ = types.SimpleNamespace(**{row.name: _elementwise(row) for row in ROWS})


def _compare(op):
    def compare(a, b):
        if STATE.checking:
            pairs = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
            if any(_near(u, w) for u, w in zip(pairs[0].flat, pairs[1].flat)):
                STATE.near = True
        return op(a, b)
    return compare


def _extreme(pick):
    def extreme(a, axis=None, keepdims=False):
        if STATE.checking:
            lanes = np.asarray(a, dtype=object)
            lanes = lanes.reshape(1, -1) if axis is None else np.moveaxis(lanes, axis, -1)
            for lane in lanes.reshape(-1, lanes.shape[-1]) if lanes.size else []:
                top = sorted(lane, reverse=pick is np.max)[:2]
                if len(top) == 2 and _near(*top):
                    STATE.near = True
        return pick(a, axis=axis, keepdims=keepdims)
    return extreme


def _pair(pick):
    def both(a, b):
        if STATE.checking and _near(a, b):
            STATE.near = True
        return pick(a, b)
    return both


def _mp(x):
    """x as mpf (or an object array of mpf); ints and bools as numbers."""
    if isinstance(x, np.ndarray):
        return np.frompyfunc(_mp, 1, 1)(x.astype(np.float64)) if x.ndim else \
            np.array(_mp(x.item()), dtype=object)
    if isinstance(x, (tuple, list)):
        return type(x)(_mp(v) for v in x)
    if isinstance(x, dict):
        return {k: _mp(v) for k, v in x.items()}
    return mpmath.mpf(float(x)) if not isinstance(x, mpmath.mpf) else x


def _diff(g, p, k):
    """gᵏ(p) by mpmath's finite differences at the working precision."""
    return mpmath.diff(g, _mp(p), k)


def _hessian(h, point):
    """The Hessian of h at a tuple of numbers, by mpmath's partial differences."""
    q = [_mp(c) for c in point]
    n = len(q)
    g = (lambda *a: h(tuple(a)))
    H = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            orders = [0] * n
            orders[i] += 1
            orders[j] += 1
            H[i][j] = H[j][i] = mpmath.diff(g, q, orders)
    return H


def _hvp(h, point, v):
    H = _hessian(h, point)
    return tuple(sum(H[i][j] * v[j] for j in range(len(v))) for i in range(len(v)))


class OracleGaveUp(ArithmeticError):
    """The oracle could not compute the truth here (its own fixed point iteration did not
    converge: at a point mpmath's differences step to, say): while generating, the statement is
    left out, as one whose value overflows is."""


def _fix(fn, x0):
    """x = fn(x), the oracle's own way (dvlad's fixed_point is not used): a few plain steps,
    then the secant method on fn(x) − x (Newton's on a pair), to the working precision."""
    x = _mp(x0)
    for _ in range(30):
        x = fn(x)
    if isinstance(x, tuple):
        return tuple(mpmath.findroot(lambda *q: [a - b for a, b in zip(fn(tuple(q)), q)],
                                     x, tol=mpmath.mp.eps ** 2, verify=False))
    b = _secant(lambda y: fn(y) - y, x)
    if b is not None:
        return b
    b = x                               # (the secant method wandered: plain steps from x)
    for _ in range(100000):
        x, b = b, fn(b)
        if abs(b - x) <= 4 * mpmath.mp.eps * max(1, abs(b)):
            return b
    raise OracleGaveUp("the oracle's fixed point did not converge")


def _secant(g, x):
    """A zero of g near x by the secant method, to the working precision (None if it does
    not settle)."""
    eps = mpmath.mp.eps
    a, b = x, x + mpmath.mpf(2) ** -20 * max(1, abs(x))
    ga, gb = g(a), g(b)
    for _ in range(100):
        if gb == ga or abs(gb) <= 4 * eps * max(1, abs(b)):
            return b
        a, ga, b = b, gb, b - gb * (b - a) / (gb - ga)
        gb = g(b)
        if abs(b - a) <= 4 * eps * max(1, abs(b)):
            return b
    return None


def _root(g, x0):
    """The real root of y³ + 2y − a (increasing): bisection to a bracket, then the secant."""
    lo, hi = mpmath.mpf(-1), mpmath.mpf(1)
    while g(lo) > 0:
        lo *= 2
    while g(hi) < 0:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if g(mid) < 0 else (lo, mid)
    root = _secant(g, lo)
    assert root is not None, "the oracle's root did not settle"
    return root


def _solve(a, b):
    return _matrix_out(mpmath.lu_solve(mpmath.matrix(a.tolist()), mpmath.matrix(list(b))), b)


def _matrix_out(m, like):
    return np.array([m[i] for i in range(len(like))], dtype=object)


def _det(a):
    """The determinant of a 2×2 matrix (the only size the programs take it of)."""
    a = np.asarray(a, dtype=object)
    return a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]


def _inv(a):
    a = np.asarray(a, dtype=object)
    return np.array([[a[1, 1], -a[0, 1]], [-a[1, 0], a[0, 0]]], dtype=object) / _det(a)


def _norm(a):
    if STATE.checking and all(_near(v, 0) for v in np.asarray(a, dtype=object).flat):
        STATE.near = True
    return mpmath.sqrt(sum(v * v for v in np.asarray(a, dtype=object).flat))


def _stepped(fn):
    """Python's int, round, math.floor: piecewise constant, watched for a jump near the point."""
    def step(a):
        if STATE.checking:
            d = MARGIN * max(1, abs(a))
            if fn(a - d) != fn(a + d):
                STATE.near = True
        return fn(a)
    return step


# The oracle's names (each ends in _): the program's text in the oracle's vocabulary calls them
# where the program calls a row, compares, takes a max, an inner derivative, a fixed point...
ORACLE = {"R_": R_, "gt_": _compare(lambda a, b: a > b), "lt_": _compare(lambda a, b: a < b),
          "ge_": _compare(lambda a, b: a >= b), "le_": _compare(lambda a, b: a <= b),
          "amax_": _extreme(np.max), "amin_": _extreme(np.min), "max_": _pair(max),
          "min_": _pair(min), "mp_": _mp, "diff_": _diff, "hvp_": _hvp, "fix_": _fix,
          "root_": _root, "solve_": _solve, "det_": _det, "inv_": _inv, "norm_": _norm,
          "int_": _stepped(int), "round_": _stepped(round), "floor_": _stepped(math.floor)}


# ---- programs ----------------------------------------------------------------------------------

class Program:
    """One generated program: its text twice (as it reads, and in the oracle's vocabulary), its
    point, a direction, and the checks it gets."""

    def __init__(self, kind, prelude, body, signature, point, order, direction=None,
                 cotangent=None, modes=(), expect=None, output="number"):
        self.kind, self.prelude, self.body, self.signature = kind, prelude, body, signature
        self.point, self.order, self.direction, self.cotangent = point, order, direction, cotangent
        self.modes, self.expect, self.output = tuple(modes), expect, output
        self._compiled = {}

    @classmethod
    def written(cls, kind, body, point, order, oracle=None, prelude=(), **more):
        """A program written by hand: body is f's body as text (its first line's indentation
        is depth 0), oracle the same body in the oracle's vocabulary (default: the same text,
        right when it calls only ad.<row> on numbers).  For tests of the checks themselves."""
        def lines(text):
            rows = [line for line in text.splitlines() if line.strip()]
            base = len(rows[0]) - len(rows[0].lstrip())
            return [((len(r) - len(r.lstrip()) - base) // 4, r.strip()) for r in rows]
        ours, theirs = lines(body), lines(oracle or body)
        assert len(ours) == len(theirs)
        pairs = [(d, (a, o)) for (d, a), (_, o) in zip(ours, theirs)]
        signature = {"scalar": "x", "struct": "p", "array": "x"}[kind]
        return cls(kind, [(t, t) for t in prelude], pairs, signature, point, order, **more)

    def text(self, oracle=False):
        lines = [] if oracle else ["import copy, math", "import numpy as np", "import dvlad as ad",
                                   "import mpmath", ""]
        lines += [p[oracle] for p in self.prelude]
        lines.append(f"def f({self.signature}):")
        lines += ["    " * (depth + 1) + pair[oracle] for depth, pair in self.body]
        return "\n".join(lines) + "\n"

    def function(self, oracle=False):
        if oracle not in self._compiled:
            text = self.text(oracle)
            digest = hashlib.sha1(text.encode()).hexdigest()[:12]
            name = f"<dvlad fuzz program {digest}{' oracle' if oracle else ''}>"
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)
            namespace = {"ad": ad, "np": np, "copy": copy, "math": math, "mpmath": mpmath,
                         **(ORACLE if oracle else {})}
            exec(compile(text, name, "exec"), namespace)
            self._compiled[oracle] = namespace["f"]
        return self._compiled[oracle]

    def __repr__(self):
        lines = [self.text(), f"x = {show(self.point)}"]
        if self.direction is not None:
            lines.append(f"v = {show(self.direction)}")
        if self.cotangent is not None:
            lines.append(f"w = {show(self.cotangent)}        # a cotangent of f(x)")
        what = "nestings" if self.kind == "scalar" else "hvp mode"
        lines.append(f"# {self.kind} program: derivatives of order 1..{self.order}"
                     + (f", {what} {', '.join(self.modes)}" if self.modes else "")
                     + (f"; every derivative must raise {self.expect.__name__}"
                        if self.expect else ""))
        return "\n" + "\n".join(lines) + "\n"


def show(x):
    """x as Python text that rebuilds it."""
    if isinstance(x, np.ndarray):
        return f"np.array({x.tolist()!r}, dtype=np.{x.dtype.name})"
    if isinstance(x, np.generic):
        return f"np.{type(x).__name__}({x.item()!r})"
    if isinstance(x, mpmath.mpf):
        return f"mpmath.mpf({str(x)!r})"
    if isinstance(x, tuple):
        return "(" + ", ".join(show(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, list):
        return "[" + ", ".join(show(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in x.items()) + "}"
    return repr(x)


# ---- structures: leaves in dvlad's documented order (positions, then dict insertion order) ---

def leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in leaves(v)]
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in leaves(v)]
    return [x]


def rebuild(x, values):
    """x's structure with new leaves (an iterator)."""
    if isinstance(x, (tuple, list)):
        return type(x)(rebuild(v, values) for v in x)
    if isinstance(x, dict):
        return {k: rebuild(v, values) for k, v in x.items()}
    return next(values)


def reorder(x, order):
    """x with every dict's keys inserted in the order ``order`` gives (a permutation per dict,
    drawn), so that dvlad must pair by key."""
    if isinstance(x, (tuple, list)):
        return type(x)(reorder(v, order) for v in x)
    if isinstance(x, dict):
        keys = order(list(x))
        return {k: reorder(x[k], order) for k in keys}
    return x


# ---- writing a body ------------------------------------------------------------------------------

class Shared:
    """What the builders of one program share: variable numbering, the user primitives used,
    and the namespace the generator evaluates in (the oracle's, at the default precision)."""

    def __init__(self):
        self.count = itertools.count(1)
        self.prelude = {}
        self.namespace = {"ad": ad, "np": np, "copy": copy, "math": math, "mpmath": mpmath,
                          **ORACLE}
        self.expect = None
        self.float32 = False        # the program computes in float32
        self.mpf = False            # ... in mpf: numpy's ufuncs do not take mpf numbers
        self.int = False            # ... from a Python int
        self.fixed = False          # it contains a fixed point (or a root)

    def fresh(self, stem="v"):
        return f"{stem}{next(self.count)}"

    def define(self, name):
        if name not in self.prelude:
            text = PRIMITIVES[name]
            self.prelude[name] = (text, text)
            exec(text, self.namespace)


# User primitives, with correct partials (jvp and vjp for vector primitives) written with
# dvlad's operations so that they nest.
PRIMITIVES = {
    "cube": 'cube = ad.primitive(lambda x: x ** 3, lambda x: (3 * x * x,), name="cube")',
    "sinmul": ('sinmul = ad.primitive(lambda x, y: x * ad.sin(y), '
               'lambda x, y: (ad.sin(y), x * ad.cos(y)), name="sinmul")'),
    "softplus": ('softplus = ad.primitive(lambda x: ad.log1p(ad.exp(x)), '
                 'lambda x: (1.0 / (1.0 + ad.exp(-x)),), name="softplus")'),
    "norm2": ('norm2 = ad.vector_primitive(lambda p: p[0] * p[0] + p[1] * p[1] * p[0], '
              'lambda p, t: (2 * p[0] + p[1] * p[1]) * t[0] + 2 * p[0] * p[1] * t[1], '
              'lambda p, s: ((2 * p[0] + p[1] * p[1]) * s, 2 * p[0] * p[1] * s), name="norm2")'),
    "polar": ('polar = ad.vector_primitive('
              'lambda q: {"r": q["a"] * q["b"], "s": q["a"] + ad.sin(q["b"])}, '
              'lambda q, t: {"s": t["a"] + ad.cos(q["b"]) * t["b"], '
              '"r": q["b"] * t["a"] + q["a"] * t["b"]}, '
              'lambda q, w: {"b": q["a"] * w["r"] + ad.cos(q["b"]) * w["s"], '
              '"a": q["b"] * w["r"] + w["s"]}, name="polar")'),
    "sq": ('sq = ad.vector_primitive(lambda x: x * x, lambda x, t: 2 * x * t, '
           'lambda x, s: 2 * x * s, name="sq")'),
}

# Inner derivative operators of a scalar function g at p: (as it reads, in the oracle's
# vocabulary, how many derivative levels it adds).  {c}, {a}, {b}: constants; {m}: an hvp mode.
INNER = [
    ("ad.derivative({g})({p})", "diff_({g}, {p}, 1)", 1),
    ("ad.gradient_r({g})({p})", "diff_({g}, {p}, 1)", 1),
    ("ad.gradient_f({g})({p})", "diff_({g}, {p}, 1)", 1),
    ("ad.jvp({g}, {p}, {c})[1]", "{c} * diff_({g}, {p}, 1)", 1),
    ("ad.directional_derivative({g}, {p}, {c})", "{c} * diff_({g}, {p}, 1)", 1),
    ("ad.vjp({g}, {p})[1]({c})", "{c} * diff_({g}, {p}, 1)", 1),
    ("ad.jacobian_r(lambda q: ({g}(q[0]), q[0] * q[1]))(({p}, {c}))[0][0]",
     "diff_({g}, {p}, 1)", 1),
    ("ad.jacobian_f(lambda q: [q[1], {g}(q[0])])([{p}, {c}])[1][0]", "diff_({g}, {p}, 1)", 1),
    ("ad.derivatives({g}, 2)({p})[{k}]", "diff_({g}, {p}, {k})", 2),
    ("ad.nth_derivative({g}, 2)({p})", "diff_({g}, {p}, 2)", 2),
    ("ad.taylor({g}, {p}, 2)[2]", "diff_({g}, {p}, 2) / 2", 2),
    ("ad.derivative(ad.gradient_r({g}))({p})", "diff_({g}, {p}, 2)", 2),
    ("ad.gradient_r(ad.derivative({g}))({p})", "diff_({g}, {p}, 2)", 2),
    ("ad.hvp(lambda q: {g}(q[0] + {a} * q[1]), ({p}, {c}), (1.0, {b}), mode={m!r})[{i}]",
     "hvp_(lambda q: {g}(q[0] + {a} * q[1]), ({p}, {c}), (1.0, {b}))[{i}]", 2),
]

FIXED = [
    # x = c·F(x) + a is a contraction for |c| ≤ 1/2 (|F′| ≤ 1)
    ("ad.fixed_point(lambda y: {c} * ad.{F}(y) + {a}, 0.0)",
     "fix_(lambda y: {c} * ad.{F}(y) + {a}, 0.0)"),
    # Heron's iteration for √s, s > 0
    ("ad.fixed_point(lambda y: (y + {s} / y) / 2, 1.0)", "fix_(lambda y: (y + {s} / y) / 2, 1.0)"),
    ("ad.fixed_point(lambda q: (0.25 * ad.sin(q[1]) + {a}, {c} * ad.cos(q[0]) - {b}), "
     "(0.0, 0.0))[{i}]",
     "fix_(lambda q: (0.25 * ad.sin(q[1]) + {a}, {c} * ad.cos(q[0]) - {b}), (0.0, 0.0))[{i}]"),
    ("ad.fixed_point(lambda q: {{{result}}}, {{{start}}})[{key!r}]",
     "fix_(lambda q: (0.5 * ad.tanh(q[1]) + {a}, {c} * ad.sin(q[0]) + {b}), (0.0, 0.0))"
     "[{index}]"),
    # y³ + 2y − a: increasing, one real root
    ("ad.root(lambda y: y ** 3 + 2.0 * y - {a}, 0.0)",
     "root_(lambda y: y ** 3 + 2.0 * y - {a}, 0.0)"),
]

CONSTANTS = st.integers(-250, 250).map(lambda k: k / 100)


def recent(draw, n):
    """An index into n things, counted from the last: shrinks towards the newest."""
    return n - 1 - draw(st.integers(0, n - 1))


_COMPILED = {}


class Builder:
    """Writes one function body, statement by statement, knowing every value at the point.

    ``env`` maps each variable to its value at the point (mpf numbers, object arrays of them, or
    ints); ``live`` holds the variables that depend on the function's argument (they are AD
    numbers in every derivative); ``budget`` is how many derivative operators may still nest
    inside."""

    def __init__(self, draw, shared, env, live, budget, depth=0, arrays=False, errors=False):
        self.draw, self.shared, self.budget, self.depth = draw, shared, budget, depth
        self.env, self.live = dict(env), set(live)
        self.certain = set(live)    # surely AD numbers in every derivative (for error())
        self.names = list(env)
        self.arrays, self.errors = arrays, errors
        self.lines = []
        self.used = set()

    # -- values --------------------------------------------------------------------------------

    def eval(self, text):
        code = _COMPILED.get(text)
        if code is None:
            code = _COMPILED[text] = compile(text, "<fuzz generator>", "eval")
        with np.errstate(all="ignore"):
            return eval(code, {**self.shared.namespace, **self.env})

    def ok(self, value):
        """A value the next statements can build on: finite and at most LIMIT."""
        try:
            items = np.asarray(value, dtype=object).ravel()
            return all(isinstance(v, (int, mpmath.mpf, float, np.floating, np.integer, bool))
                       and mpmath.isfinite(v) and abs(v) <= LIMIT for v in items)
        except (TypeError, ValueError):
            return False

    def emit(self, ad_line, oracle_line=None):
        self.lines.append((self.depth, (ad_line, oracle_line if oracle_line is not None
                                        else ad_line)))

    def assign(self, ad_text, oracle_text, live, stem="v"):
        """name = the expression, if its value is ok (else None and nothing is written)."""
        try:
            value = self.eval(oracle_text)
        except (ArithmeticError, ValueError):
            return None
        if not self.ok(value):
            return None
        name = self.shared.fresh(stem)
        self.emit(f"{name} = {ad_text}", f"{name} = {oracle_text}")
        self.env[name] = value
        self.names.append(name)
        if live:
            self.live.add(name)
        return name

    def shape(self, name):
        return np.shape(self.env[name])

    def scalars(self):
        """The variables that are numbers (not arrays, not even 0-d ones)."""
        return [n for n in self.names if not isinstance(self.env[n], np.ndarray)]

    # -- operands --------------------------------------------------------------------------------

    def variable(self, among=None):
        names = among if among is not None else self.names
        name = names[recent(self.draw, len(names))]
        self.used.add(name)
        return name

    def constant(self, shape=()):
        """A constant: a number, or for arrays a 0-d, size-1 or full array of constants."""
        draw = self.draw
        if not self.arrays or draw(st.integers(0, 2)) == 0:
            c = draw(CONSTANTS)
            return repr(c), repr(c)
        forms = ["zero-d", "size-1"] + (["full"] if shape else [])
        form = draw(st.sampled_from(forms))
        if form == "zero-d":
            text = f"np.array({draw(CONSTANTS)!r})"
        elif form == "size-1":
            text = f"np.array([{draw(CONSTANTS)!r}])"
        else:
            last = shape[-1:] if draw(st.booleans()) else shape
            values = np.array(draw(st.lists(CONSTANTS, min_size=int(np.prod(last)),
                                            max_size=int(np.prod(last))))).reshape(last)
            text = f"np.array({values.tolist()!r})"
        return text, f"mp_({text})"

    def operands(self, arity):
        """arity operands (text, oracle text, value, live), at least one a variable, whose shapes
        broadcast together."""
        draw = self.draw
        first = self.variable()
        out = [(first, first)]
        for _ in range(arity - 1):
            shape = self.shape(first)
            fits = [n for n in self.names if _broadcasts(self.shape(n), shape)]
            if draw(st.integers(0, 2)) and fits:
                name = self.variable(fits)
                out.append((name, name))
            else:
                out.append(self.constant(shape))
        if arity == 2 and draw(st.booleans()):
            out.reverse()
        return out

    def is_live(self, texts):
        return any(t in self.live for t in texts)

    # -- statements ------------------------------------------------------------------------------

    def row_call(self, row=None):
        """name = a row, called one of its ways, its arguments probed (or wrapped) into its
        domain."""
        draw = self.draw
        rows = [r for r in ROWS if r.arrays or not self.arrays]
        row = row or draw(st.sampled_from(rows))
        args = self.operands(row.arity)
        # numpy's ufuncs do not take plain mpf numbers, and mpf has no //; numpy's ufuncs of
        # ints are integer functions (np.reciprocal(2) == 0, where dvlad's 1.0 / x is 0.5), and
        # a numpy int to a negative int power raises (np.add(1, 1) ** -2), as numpy does
        ints = self.shared.int or all(isinstance(self.eval(o), int) for _, o in args)
        forms = [f for f in row.forms if not (self.shared.mpf and (f.startswith("np.") or
                                                                     "//" in f))
                 and not (ints and f.startswith(("np.reciprocal", "np.power")))]
        if ints and row.name == "pow":
            return None
        form = draw(st.sampled_from(forms))
        live = self.is_live([a[0] for a in args])
        values = [self.eval(o) for _, o in args]
        wrapped = not tame(row, values)
        if wrapped:
            point = draw(st.sampled_from(row.points))
            squash = draw(st.sampled_from(["sin", "cos", "tanh"]))
            inside = []
            for (text, oracle), p in zip(args, point):
                r = round(0.2 * max(0.1, min(1.0, abs(p))), 3)
                inside.append((f"({p!r} + {r!r} * ad.{squash}({text}))",
                                f"({p!r} + {r!r} * R_.{squash}({oracle}))"))
            args = inside
            values = [self.eval(o) for _, o in args]
            if not tame(row, values):
                return None
        text = form.format(*[a for a, _ in args])
        oracle = f"R_.{row.name}({', '.join(o for _, o in args)})"
        name = self.assign(text, oracle, live and row.smooth)
        if name is not None and row.smooth and not wrapped and \
                all(a in self.certain for a, _ in args):
            self.certain.add(name)
        return name

    def branch(self):
        """if a > b: name = ... else: name = ...  (each arm a row call)."""
        draw = self.draw
        op, oracle_op = draw(st.sampled_from([(">", "gt_"), ("<", "lt_"), (">=", "ge_"),
                                              ("<=", "le_")]))
        scalars = self.scalars()
        if not scalars:
            return None
        a = self.variable(scalars)
        b = self.other(a, scalars)
        taken = bool(self.eval(f"{oracle_op}({a}, {b})"))
        target = self.shared.fresh()
        arms = []
        for _ in range(2):
            sub = self.fork(self.depth + 1)
            name = sub.row_call()
            if name is None:
                return None
            sub.emit(f"{target} = {name}")
            arms.append((sub, name))
        self.emit(f"if {a} {op} {b}:", f"if {oracle_op}({a}, {b}):")
        self.lines += arms[0][0].lines
        self.emit("else:")
        self.lines += arms[1][0].lines
        sub, name = arms[0] if taken else arms[1]
        self.env[target] = sub.env[name]
        self.names.append(target)
        if all(name in sub.live for sub, name in arms):
            self.live.add(target)
        self.used |= arms[0][0].used | arms[1][0].used
        return target

    def fork(self, depth, extra=None, budget=None):
        sub = Builder(self.draw, self.shared, self.env, self.live,
                      self.budget if budget is None else budget, depth, self.arrays, False)
        sub.certain = set(self.certain)
        sub.names = list(self.names)
        if extra:
            for name, value, live in extra:
                sub.env[name] = value
                sub.names.append(name)
                if live:
                    sub.live.add(name)
        return sub

    def choice(self):
        """name = a conditional expression, max(a, b) or min(a, b) on scalars."""
        draw = self.draw
        scalars = self.scalars()
        if len(scalars) < 1:
            return None
        a = self.variable(scalars)
        b = self.other(a, scalars)
        kind = draw(st.sampled_from(["ternary", "max", "min"]))
        if kind == "ternary":
            d = self.variable(scalars)
            c = self.other(a, [])
            return self.assign(f"{d} if {a} > {c} else {b}", f"{d} if gt_({a}, {c}) else {b}",
                               b in self.live and d in self.live)
        return self.assign(f"{kind}({a}, {b})", f"{kind}_({a}, {b})",
                           a in self.live and b in self.live)

    def other(self, a, names):
        """Something to compare a with: another variable or a constant, rarely tied with a (a
        tie leaves the truth out: the modes then agree by convention only)."""
        draw = self.draw
        tie = draw(st.integers(0, 19)) == 0
        others = [n for n in names if tie or not _near(self.env[n], self.env[a])]
        if others and draw(st.booleans()):
            return self.variable(others)
        c = draw(CONSTANTS)
        if not tie and _near(c, self.env[a]):
            c = float(round(self.env[a], 2)) + 0.125
        return repr(c)

    def copies(self):
        draw = self.draw
        how = draw(st.sampled_from(["copy.copy", "copy.deepcopy"]))
        a = self.variable()
        if draw(st.booleans()):
            return self.assign(f"{how}({a})", f"{how}({a})", a in self.live)
        b = self.variable()
        key = draw(st.sampled_from(["p", "q"]))
        structure = f"{{'q': [{a}], 'p': ({b}, {a})}}"
        pick = {"p": "[1]", "q": "[0]"}[key]
        text = f"{how}({structure})[{key!r}]{pick}"
        return self.assign(text, text,
                           a in self.live)

    def rounding(self):
        scalars = self.scalars()
        if not scalars:
            return None
        a = self.variable(scalars)
        how, oracle = self.draw(st.sampled_from([("int", "int_"), ("round", "round_"),
                                                 ("math.floor", "floor_")]))
        return self.assign(f"{how}({a})", f"{oracle}({a})", False)

    def primitive(self):
        draw = self.draw
        names = ["cube", "sq"] if self.arrays else ["cube", "sinmul", "softplus", "norm2", "polar"]
        name = draw(st.sampled_from(names))
        if name in KNOWN_BUGS:
            return None
        self.shared.define(name)
        if name in ("cube", "softplus", "sq"):
            (a, ao), = self.operands(1)
            return self.assign(f"{name}({a})", f"{name}({ao})", a in self.live)
        scalars = self.scalars()
        if not scalars:
            return None
        a, b = self.variable(scalars), self.variable(scalars)
        live = a in self.live or b in self.live
        if name == "sinmul":
            return self.assign(f"sinmul({a}, {b})", f"sinmul({a}, {b})", live)
        if name == "norm2":
            return self.assign(f"norm2(({a}, {b}))", f"norm2(({a}, {b}))", live)
        key = draw(st.sampled_from(["r", "s"]))
        arg = f"{{'b': {b}, 'a': {a}}}" if draw(st.booleans()) else f"{{'a': {a}, 'b': {b}}}"
        return self.assign(f"polar({arg})[{key!r}]", f"polar({arg})[{key!r}]", live)

    def fixed(self):
        draw = self.draw
        scalars = self.scalars()
        if not scalars:
            return None
        k = draw(st.integers(0, len(FIXED) - 1))
        if k in (2, 3) and self.shared.float32 and "fixed_point of a float32 pair" in KNOWN_BUGS:
            k = 0
        form, oracle = FIXED[k]
        a, b = self.variable(scalars), self.variable(scalars)
        fill = dict(a=a, b=b, c=draw(st.sampled_from([0.25, 0.5, -0.4])),
                    F=draw(st.sampled_from(["cos", "sin", "tanh"] if abs(self.env[a]) < 10
                                           else ["cos", "sin"])), i=draw(st.integers(0, 1)),
                    key=draw(st.sampled_from(["u", "w"])))
        fill["index"] = {"u": 0, "w": 1}[fill["key"]]
        parts = {"u": "'u': 0.5 * ad.tanh(q['w']) + {a}".format(**fill),
                 "w": "'w': {c} * ad.sin(q['u']) + {b}".format(**fill)}
        result = draw(st.permutations(["u", "w"]))
        start = draw(st.permutations(["u", "w"]))
        fill["result"] = ", ".join(parts[k] for k in result)
        fill["start"] = ", ".join(f"{k!r}: 0.0" for k in start)
        if k == 1:
            s = a
            value = self.env[a]
            if not (0.1 <= value <= 100):
                s = f"(1.5 + ad.sin({a}))"
            fill["s"] = s
        if k == 4 and abs(self.env[a]) > 100:
            return None
        live = a in self.live or (b in self.live and k in (2, 3))
        name = self.assign(form.format(**fill), oracle.format(**fill), live)
        self.shared.fixed |= name is not None
        return name

    def inner(self):
        """name = an inner derivative operator applied to an inner function of y that closes
        over the outer variables."""
        draw = self.draw
        choices = [entry for entry in INNER if entry[2] <= self.budget]
        if not choices:
            return None
        form, oracle, cost = draw(st.sampled_from(choices))
        scalars = self.scalars()
        if draw(st.booleans()) or not scalars:
            p = repr(draw(CONSTANTS))
            if self.shared.mpf:             # (an inner point is where the inner numbers live)
                p = f"mpmath.mpf({p})"
        else:
            p = self.variable(scalars)
        g = self.shared.fresh("g")
        y = self.shared.fresh("y")
        with np.errstate(all="ignore"):
            p_value = mpmath.mpf(float(self.eval(p))) if p not in self.env else self.env[p]
        sub = self.fork(self.depth + 1, [(y, p_value, True)], self.budget - cost)
        # the first statement mixes y with an outer variable (or a constant): the classic shape
        first = sub.mix(y)
        if first is None:
            return None
        for _ in range(draw(st.integers(1, 3))):
            sub.statement()
        last = sub.names[-1]
        if last != first:           # (so that the result depends on y)
            last = sub.assign(f"{last} + {first}", f"{last} + {first}", True) or first
        if sub.shape(last) != ():
            last = sub.assign(f"np.sum({last})", f"np.sum({last})", True) or y
        self.emit(f"def {g}({y}):")
        self.lines += sub.lines
        sub.emit(f"return {last}")
        self.lines.append(sub.lines[-1])
        self.used |= sub.used - {y}
        # the generator evaluates the oracle's form (mpmath.diff) to know the value
        namespace_g = {**self.shared.namespace, **self.env}
        exec(f"def {g}({y}):\n" + "".join("    " * (d - self.depth) + o + "\n"
                                          for d, (_, o) in sub.lines), namespace_g)
        self.env[g] = namespace_g[g]
        fill = dict(g=g, p=p, c=draw(CONSTANTS), a=draw(st.sampled_from([0.5, -1.0, 2.0])),
                    b=draw(st.sampled_from([0.5, -0.25])), k=draw(st.integers(0, 2)),
                    i=draw(st.integers(0, 1)), m=draw(st.sampled_from(["fr", "rf", "rr", "ff"])))
        live = bool(self.live & sub.used) or p in self.live
        return self.assign(form.format(**fill), oracle.format(**fill), live)

    def mix(self, y):
        """name = y times (plus, minus) an outer variable or a constant: the classic shape."""
        draw = self.draw
        outer = [n for n in self.names if n != y and (self.arrays or n in self.scalars())]
        other = self.variable(outer) if outer and draw(st.integers(0, 3)) else repr(draw(CONSTANTS))
        op = draw(st.sampled_from(["*", "+", "-"]))
        text = f"{y} {op} {other}" if draw(st.booleans()) else f"{other} {op} {y}"
        self.used.add(y)
        return self.assign(text, text, True)

    def error(self):
        """A construct every derivative must refuse with a named error: float() of a number
        certain to be perturbed in every mode (an argument, or a row of such numbers; an inner
        derivative, a fixed point or a branch may well come out as a plain number)."""
        live = [n for n in self.scalars() if n in self.certain]
        if not live or self.shared.expect:
            return None
        a = self.variable(live)
        self.shared.expect = ad.PerturbedConversionError
        return self.assign(f"float({a})", f"float({a})", False)

    # -- array statements ------------------------------------------------------------------------

    def arrays_of(self, test=lambda shape: True):
        return [n for n in self.names if self.shape(n) != () and test(self.shape(n))]

    def reduce(self):
        """name = a sum, mean, product, max or min, of all or along an axis."""
        draw = self.draw
        names = self.arrays_of()
        if not names:
            return None
        a = self.variable(names)
        shape = self.shape(a)
        how = draw(st.sampled_from(["sum", "mean", "prod", "max", "min", "method"]))
        axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
        empty = shape[axis] == 0 if axis is not None else not np.prod(shape)
        if how in ("mean", "max", "min") and empty:
            how = "sum"
        keep = ", keepdims=True" if axis is not None and draw(st.booleans()) else ""
        at = "" if axis is None else f", axis={axis}"
        if how == "method":
            return self.assign(f"{a}.sum({'' if axis is None else f'axis={axis}'})",
                               f"np.sum({a}{at})", a in self.live)
        oracle = {"max": "amax_", "min": "amin_"}.get(how, f"np.{how}")
        return self.assign(f"np.{how}({a}{at}{keep})", f"{oracle}({a}{at}{keep})",
                           a in self.live)

    def index(self):
        draw = self.draw
        names = self.arrays_of()
        if not names:
            return None
        a = self.variable(names)
        shape = self.shape(a)
        forms = ["[1:]", "[::-1]", "[:2]", "[...]"]
        if shape[0] >= 1:
            forms += ["[0]", "[-1]"]
            if len(shape) == 1:
                forms += ["[np.array([0, 0])]", "[[-1, 0]]"]
        if len(shape) == 2:
            forms += ["[:, ::-1]", "[1:, :]"] + (["[:, 0]", "[..., -1]"] if shape[1] else [])
            forms += ["[0, 1]"] if shape[0] >= 1 and shape[1] >= 2 else []
        index = draw(st.sampled_from(forms))
        return self.assign(f"{a}{index}", f"{a}{index}", a in self.live)

    def reshape(self):
        draw = self.draw
        names = self.arrays_of()
        if not names:
            return None
        a = self.variable(names)
        size = int(np.prod(self.shape(a)))
        forms = ["{a}.T", "np.transpose({a})", "{a}.reshape(-1)", "np.ravel({a})",
                 "np.expand_dims({a}, 0)", "np.squeeze({a})", f"np.reshape({{a}}, ({size}, 1))",
                 "np.broadcast_to({a}, (2,) + {a}.shape)",
                 "np.swapaxes(np.expand_dims({a}, -1), 0, -1)"]
        form = draw(st.sampled_from(forms))
        return self.assign(form.format(a=a), form.format(a=a), a in self.live)

    def combine(self):
        draw = self.draw
        names = self.arrays_of()
        if not names:
            return None
        a = self.variable(names)
        shape = self.shape(a)
        same = [n for n in names if self.shape(n) == shape]
        if draw(st.booleans()) and len(shape) == 1:
            others = [n for n in names if len(self.shape(n)) == 1]
            b, bo = (self.variable(others),) * 2 if draw(st.booleans()) else \
                (lambda t: (t, f"mp_({t})"))(f"np.array({draw(st.lists(CONSTANTS, max_size=3))!r})")
            return self.assign(f"np.concatenate([{a}, {b}])", f"np.concatenate([{a}, {bo}])",
                               a in self.live or b in self.live)
        b = self.variable(same)
        axis = draw(st.integers(-len(shape) - 1, len(shape)))
        return self.assign(f"np.stack([{a}, {b}], axis={axis})",
                           f"np.stack([{a}, {b}], axis={axis})", a in self.live or b in self.live)

    def product(self):
        """name = a dot, matmul, outer, einsum or tensordot with a constant or a variable."""
        draw = self.draw
        names = self.arrays_of(lambda shape: len(shape) <= 2)
        if not names:
            return None
        a = self.variable(names)
        shape = self.shape(a)
        n = shape[-1]
        c = np.array(draw(st.lists(CONSTANTS, min_size=n, max_size=n)))
        m = np.array(draw(st.lists(CONSTANTS, min_size=2 * n, max_size=2 * n))).reshape(n, 2)
        same = [b for b in names if self.shape(b) == shape]
        forms = [(f"np.dot({{a}}, {_text(c)})", f"np.dot({{a}}, mp_({_text(c)}))"),
                 (f"{{a}} @ {_text(m)}", f"{{a}} @ mp_({_text(m)})"),
                 (f"{_text(m.T)} @ {{a}}.T", f"mp_({_text(m.T)}) @ {{a}}.T"),
                 (f"np.tensordot({{a}}, {_text(c)}, axes=1)",
                  f"np.tensordot({{a}}, mp_({_text(c)}), axes=1)")]
        if len(shape) == 1:
            b = self.variable(same)
            forms += [(f"np.outer({{a}}, {_text(c[:2])})", f"np.outer({{a}}, mp_({_text(c[:2])}))"),
                      (f"np.einsum('i,i->', {{a}}, {b})", f"np.einsum('i,i->', {{a}}, {b})"),
                      (f"np.inner({{a}}, {b})", f"np.inner({{a}}, {b})")]
        elif shape[0] == shape[1]:
            forms += [("np.trace({a})", "np.trace({a})"),
                      ("np.einsum('ij,jk->ik', {a}, {a})", "np.einsum('ij,jk->ik', {a}, {a})")]
        form, oracle = draw(st.sampled_from(forms))
        return self.assign(form.format(a=a), oracle.format(a=a), a in self.live)

    def linalg(self):
        draw = self.draw
        vectors = self.arrays_of(lambda shape: shape in ((2,), (3,)))
        squares = self.arrays_of(lambda shape: shape == (2, 2))
        choices = (["solve"] if vectors else []) + (["det", "inv", "solve2"] if squares else []) \
            + (["norm"] if self.arrays_of() else [])
        if not choices:
            return None
        how = draw(st.sampled_from(choices))
        if how == "solve":
            b = self.variable(vectors)
            n = self.shape(b)[0]
            m = np.eye(n) * 2 + np.array(draw(st.lists(CONSTANTS, min_size=n * n,
                                                       max_size=n * n))).reshape(n, n) / 4
            return self.assign(f"np.linalg.solve({_text(m)}, {b})",
                               f"solve_(mp_({_text(m)}), {b})", b in self.live)
        if how == "norm":
            a = self.variable(self.arrays_of())
            if _norm(self.env[a]) < 0.1:         # (its derivatives grow as 1 / |a|)
                return None
            return self.assign(f"np.linalg.norm({a})", f"norm_({a})", a in self.live)
        a = self.variable(squares)
        if abs(_det(self.env[a])) < 0.1:
            return None
        if how == "det":
            return self.assign(f"np.linalg.det({a})", f"det_({a})", a in self.live)
        if how == "inv":
            return self.assign(f"np.linalg.inv({a})", f"inv_({a})", a in self.live)
        c = np.array(draw(st.lists(CONSTANTS, min_size=2, max_size=2)))
        return self.assign(f"np.linalg.solve({a}, {_text(c)})", f"solve_({a}, mp_({_text(c)}))",
                           a in self.live)

    def select(self):
        """name = np.where(a > c, b, d) or np.clip(a, lo, hi)."""
        draw = self.draw
        names = self.arrays_of()
        if not names:
            return None
        a = self.variable(names)
        shape = self.shape(a)
        c = draw(CONSTANTS)
        if draw(st.booleans()):
            lo = draw(CONSTANTS)
            hi = lo + abs(draw(CONSTANTS))
            return self.assign(f"np.clip({a}, {lo!r}, {hi!r})",
                               f"R_.minimum(R_.maximum({a}, {lo!r}), {hi!r})", a in self.live)
        fits = [n for n in self.names if _broadcasts(self.shape(n), shape)]
        b = self.variable(fits)
        d, do = self.constant(shape) if draw(st.booleans()) else (self.variable(fits),) * 2
        return self.assign(f"np.where({a} > {c!r}, {b}, {d})",
                           f"np.where(gt_({a}, {c!r}), {b}, {do})",
                           b in self.live and d in self.live)

    def array_error(self):
        """np.fft.fft of a perturbed array (no rule; np.cumprod was this construct until issue
        #17 gave it one): every derivative must raise NotDifferentiableError."""
        live = [n for n in self.arrays_of() if n in self.certain]
        if not live or self.shared.expect:
            return None
        a = self.variable(live)
        self.shared.expect = ad.NotDifferentiableError
        # (the oracle's mpf object arrays through floats: fft has no object loop; the program
        # raises, so its truth is never compared)
        return self.assign(f"np.fft.fft({a}).real",
                           f"np.fft.fft(np.asarray({a}, dtype=float)).real.astype(object)", False)

    def statement(self):
        draw = self.draw
        kinds = ["row"] * 8 + ["branch", "choice", "copy", "prim", "fixed", "rounding"]
        if self.arrays:
            kinds += ["reduce"] * 3 + ["index"] * 2 + ["product"] * 2 + [
                "reshape", "combine", "linalg", "select"]
        if self.budget > 0:
            kinds += ["inner"] * 3
        if self.errors:
            kinds.append("error")
        kind = draw(st.sampled_from(kinds))
        method = {"row": self.row_call, "branch": self.branch, "choice": self.choice,
                  "copy": self.copies, "prim": self.primitive, "fixed": self.fixed,
                  "rounding": self.rounding, "inner": self.inner,
                  "error": self.array_error if self.arrays else self.error,
                  "reduce": self.reduce, "index": self.index, "product": self.product,
                  "reshape": self.reshape, "combine": self.combine, "linalg": self.linalg,
                  "select": self.select}[kind]
        name = method()
        return name if name is not None else self.row_call(ROW["sin"])


def _text(a):
    return f"np.array({np.asarray(a).tolist()!r})"


def _broadcasts(a, b):
    try:
        return np.broadcast_shapes(a, b) == b
    except ValueError:
        return False


# ---- the scalar kind -------------------------------------------------------------------------

POINTS = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
INPUTS = ["float"] * 6 + ["int", "float64", "float32", "mpf"]


def _as_input(x, how):
    return {"float": float, "int": int, "float64": np.float64, "float32": np.float32,
            "mpf": lambda v: mpmath.mpf(float(v))}[how](x)


@st.composite
def scalar_programs(draw, errors=True):
    """f: R → R, a body of 1–6 statements, checked at order 1..3 (inner operators use the
    rest of the three levels)."""
    how = draw(st.sampled_from(INPUTS))
    x = draw(st.integers(-2, 2)) if how == "int" else draw(POINTS)
    x = _as_input(x, how)
    order = draw(st.integers(1, 3))
    shared = Shared()
    shared.float32, shared.mpf, shared.int = how == "float32", how == "mpf", how == "int"
    body = Builder(draw, shared, {"x": _mp(x)}, {"x"}, 3 - order,
                   errors=errors and draw(st.integers(0, 24)) == 0)
    for _ in range(draw(st.integers(1, 6))):
        body.statement()
    body.emit(f"return {body.names[-1]}")
    modes = draw(st.lists(st.text("FRGT", min_size=order, max_size=order), min_size=1,
                          max_size=3, unique=True))
    if shared.fixed and "Taylor over reverse over a fixed point" in KNOWN_BUGS:
        modes = [m for m in modes if not (order == 3 and m.startswith("TR"))] or ["F" * order]
    return Program("scalar", list(shared.prelude.values()), body.lines, "x", x, order,
                   modes=modes, expect=shared.expect)


OPERATORS = {"F": ad.derivative, "R": ad.gradient_r, "G": ad.gradient_f,
             "T": lambda f: ad.nth_derivative(f, 1)}


def nest(f, modes):
    """modes[0](modes[1](...(f))): F forward, R reverse, G gradient_f, T Taylor."""
    for m in reversed(modes):
        f = OPERATORS[m](f)
    return f


class Outcome:
    __slots__ = ("value", "error")

    def __init__(self, value=None, error=None):
        self.value, self.error = value, error


def attempt(fn):
    """fn()'s value, or the DvladError it raised; any other exception propagates (a bug)."""
    try:
        with np.errstate(all="ignore"):
            return Outcome(value=fn())
    except ad.DvladError as e:
        return Outcome(error=e)


def errors_agree(runs, expect):
    """True if every run raised (the same DvladError class, or the expected one); False if none
    did; fails when some raised and some did not."""
    raised = {label: o.error for label, o in runs.items() if o.error is not None}
    if expect is not None:
        for label, o in runs.items():
            assert o.error is not None and isinstance(o.error, expect), (
                f"{label}: expected {expect.__name__}, got "
                + (f"{type(o.error).__name__}: {o.error}" if o.error else f"{o.value!r}"))
        RAISED[KIND[0]] += 1
        return True
    if not raised:
        return False
    kinds = {type(e) for e in raised.values()}
    fine = [label for label in runs if label not in raised]
    assert not fine and len(kinds) == 1, (
        "a named error on one side only: "
        + "; ".join(f"{label} raised {type(e).__name__}: {e}" for label, e in raised.items())
        + (f"; {', '.join(fine)} returned values" if fine else ""))
    RAISED[KIND[0]] += 1
    UNEXPECTED.append(next(iter(raised.values())))
    return True


UNEXPECTED = []         # the errors every derivative raised where none was expected


class Tolerance:
    """How close: ``modes`` between two modes, ``truth`` against the 30-digit oracle."""

    def __init__(self, modes, truth):
        self.modes, self.truth = modes, truth


def tolerance(x):
    kinds = [np.asarray(v).dtype for v in leaves(x) if isinstance(v, (np.ndarray, np.generic))]
    if any(isinstance(v, mpmath.mpf) for v in leaves(x)):
        # (floats leak into an mpf program: a derivative that is exactly 0 comes back as 0.0,
        # maximum(1.76, x) is the float 1.76, and what is computed from them is a float: hence
        # 1e-15, not 1e-24)
        return Tolerance(1e-15, 1e-15)
    if any(k == np.float32 for k in kinds):
        return Tolerance(1e-3, 1e-3)
    return Tolerance(1e-12, 1e-9)


def agree(got, want, rel, what="", nonfinite=False):
    """support.close(got, want, rel, floor=1), numpy scalars and object arrays converted."""
    got = _python(got)            # numpy's own scalars (np.sign(0) is np.int64, float32)
    want = _python(want)
    if isinstance(got, np.ndarray) and isinstance(want, mpmath.mpf):
        want = float(want)        # (compared as arrays)
    # an array's entries carry the rounding of the array's largest terms: compared as a whole
    normwise = isinstance(got, np.ndarray) or isinstance(want, np.ndarray)
    close(got, want, rel, floor=1, what=what, nonfinite=nonfinite, normwise=normwise)


def _python(x):
    """numpy scalars as Python numbers, object arrays (of mpf) as float64 arrays, through
    containers; the layout and the dtypes are checked elsewhere."""
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    if isinstance(x, np.ndarray) and x.dtype == object:
        return np.array([float(v) for v in x.flat], dtype=np.float64).reshape(x.shape)
    if isinstance(x, (tuple, list)):
        return type(x)(_python(v) for v in x)
    if isinstance(x, dict):
        return {k: _python(v) for k, v in x.items()}
    return x


def truth_of(program, run, *at):
    """run(g) under the truth's conditions: g the program in the oracle's vocabulary, at 30
    digits.  g(*at) runs first, watching for ties and kinks (the finite differences' steps,
    10⁻³⁴, stay on the same side of any that g(*at) does not meet).  (value, near)."""
    g = program.function(oracle=True)
    STATE.checking, STATE.near = True, False
    try:
        with mpmath.workdps(TRUTH_DPS), np.errstate(all="ignore"):
            g(*at)
            STATE.checking = False
            value = None if STATE.near else run(g)
        return value, STATE.near
    except (ArithmeticError, ValueError):
        if STATE.near:          # a domain edge just past a jump
            return None, True
        raise
    finally:
        STATE.checking = False
        SKIPPED[program.kind] += STATE.near


def precision(x):
    """30 digits while an mpf program runs (its derivatives must be exact to 20)."""
    return mpmath.workdps(TRUTH_DPS) if any(isinstance(v, mpmath.mpf) for v in leaves(x)) \
        else _Nothing()


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def check_scalar(program):
    f, x, n = program.function(), program.point, program.order
    tol = tolerance(x)
    runs = {}
    with precision(x):
        for modes in program.modes:
            runs[f"nesting {modes}"] = attempt(lambda: nest(f, modes)(x))
        runs["derivative"] = attempt(lambda: ad.derivative(f)(x))
        runs["gradient_r"] = attempt(lambda: ad.gradient_r(f)(x))
        runs["derivatives(f, n)"] = attempt(lambda: ad.derivatives(f, n)(x))
        runs["nth_derivative(f, n)"] = attempt(lambda: ad.nth_derivative(f, n)(x))
        if errors_agree(runs, program.expect):
            return
        with np.errstate(all="ignore"):
            value = f(x)
    for o in runs.values():
        assert_plain(o.value)
    first = runs["derivative"].value
    reference = f"nesting {program.modes[0]}"
    nth = runs[reference].value
    for label, o in runs.items():
        if label.startswith("nesting") or label.startswith("nth"):
            agree(o.value, nth, tol.modes, what=f"{label} vs {reference}", nonfinite=True)
    agree(runs["gradient_r"].value, first, tol.modes, what="gradient_r vs derivative", nonfinite=True)
    taylor = runs["derivatives(f, n)"].value
    assert type(taylor) is list and len(taylor) == n + 1, taylor
    agree(taylor[0], value, tol.modes, what="derivatives(f, n)[0] vs f(x)", nonfinite=True)
    agree(taylor[1], first, tol.modes, what="derivatives(f, n)[1] vs derivative", nonfinite=True)
    agree(taylor[n], nth, tol.modes, what=f"derivatives(f, n)[{n}] vs {reference}", nonfinite=True)
    truth, near = truth_of(program, lambda g: list(mpmath.diffs(g, _mp(x), n)), _mp(x))
    if near:
        return
    agree(value, truth[0], tol.truth, what="f(x) vs the truth")
    agree(first, truth[1], tol.truth, what="derivative vs mpmath.diff")
    agree(nth, truth[n], tol.truth, what=f"{reference} vs mpmath.diff")
    for k in range(1, n + 1):
        agree(taylor[k], truth[k], tol.truth, what=f"derivatives(f, n)[{k}] vs mpmath.diff")


def check(program):
    """Run the program in every mode and compare (module docstring); count it."""
    KIND[0] = program.kind
    if _raises_plainly(program):        # (its value is not defined there: nothing to compare)
        SKIPPED[program.kind] += 1
        return
    {"scalar": check_scalar, "struct": check_struct, "array": check_array}[program.kind](program)
    COUNTS[program.kind] += 1


def _raises_plainly(program):
    """True if f at the point raises Python's own arithmetic error (0.0 % 0.0, where the divisor
    is a derivative the generator's oracle saw as ~1e-20) or math's domain error (a point
    hypothesis shrank to, where log1p meets −1.01): then every derivative may raise it too, and
    that is Python's arithmetic, not dvlad's."""
    try:
        with np.errstate(all="ignore"):
            program.function()(program.point)
    except (ArithmeticError, ValueError) as e:
        return not isinstance(e, ad.DvladError)
    except Exception:
        return False
    return False


KIND = ["scalar"]           # the kind being checked (for the tallies)


COUNTS = dict.fromkeys(KINDS, 0)         # programs checked, by kind
SKIPPED = dict.fromkeys(KINDS, 0)        # ... whose truth was left out (a tie or a kink near)
RAISED = dict.fromkeys(KINDS, 0)         # ... whose derivatives all raised one named error


# ---- the struct kind -------------------------------------------------------------------------

LAYOUTS = {
    "tuple": lambda v: (v[0], v[1]),
    "list": lambda v: [v[0], v[1], v[2]],
    "dict": lambda v: {"a": v[0], "b": v[1]},
    "dict3": lambda v: {"a": v[0], "b": v[1], "c": v[2]},
    "nested": lambda v: (v[0], {"u": v[1], "w": v[2]}),
}


def paths(x, prefix):
    """The Python text reaching each leaf of x, in leaves' order."""
    if isinstance(x, (tuple, list)):
        return [q for i, v in enumerate(x) for q in paths(v, f"{prefix}[{i}]")]
    if isinstance(x, dict):
        return [q for k, v in x.items() for q in paths(v, f"{prefix}[{k!r}]")]
    return [prefix]


def _matrix(J, point):
    """A Jacobian of numbers as its matrix: rows by f's value's leaves, columns by the point's
    (dvlad nests it by both structures when a dict is on either side, JAX's convention; else
    it is that matrix already)."""
    flat, n = leaves(J), len(leaves(point))
    return [flat[i:i + n] for i in range(0, len(flat), n)] if n else J


def like(x, point):
    """x (a direction or cotangent, paired by key) with point's dict key order."""
    if isinstance(point, (tuple, list)):
        return type(point)(like(a, b) for a, b in zip(x, point))
    if isinstance(point, dict):
        return {k: like(x[k], v) for k, v in point.items()}
    return x


def shuffled(draw):
    return lambda keys: draw(st.permutations(keys))


@st.composite
def struct_programs(draw, errors=True):
    """f of a tuple, list or dict (nested; keys in a drawn order) to a number or a structure."""
    layout = draw(st.sampled_from(sorted(LAYOUTS)))
    point = reorder(LAYOUTS[layout]([draw(POINTS) for _ in range(3)]), shuffled(draw))
    names = "abc"[:len(leaves(point))]
    output = draw(st.sampled_from(["number"] * 3 + ["tuple", "dict", "list"]))
    order = 1 if output != "number" else draw(st.integers(1, 3))
    shared = Shared()
    env = {name: _mp(v) for name, v in zip(names, leaves(point))}
    body = Builder(draw, shared, env, set(names), 3 - order,
                   errors=errors and draw(st.integers(0, 24)) == 0)
    for k in draw(st.permutations(range(len(names)))):
        body.emit(f"{names[k]} = {paths(point, 'p')[k]}")
    for _ in range(draw(st.integers(1, 5))):
        body.statement()
    last = body.names[-1]
    if output == "number":
        body.emit(f"return {last}")
    else:
        other = body.names[recent(draw, len(body.names))]
        pairs = draw(st.permutations([("u", last), ("t", other)]))
        body.emit({"tuple": f"return ({last}, {other})", "list": f"return [{last}, {other}]",
                   "dict": "return {" + ", ".join(f"{k!r}: {n}" for k, n in pairs) + "}"}[output])
    direction = reorder(rebuild(point, iter([draw(CONSTANTS) for _ in names])), shuffled(draw))
    expect = shared.expect
    if expect is not None:      # (a zero direction perturbs nothing, and nothing raises)
        direction = rebuild(direction, iter([c or 1.0 for c in leaves(direction)]))
    if expect is None and isinstance(direction, dict) and errors and \
            draw(st.integers(0, 24)) == 0:
        direction.popitem()                 # a missing key: a StructureMismatchError everywhere
        expect = ad.StructureMismatchError
    cotangent = None
    if output != "number":
        c = (draw(CONSTANTS), draw(CONSTANTS))
        cotangent = {"tuple": c, "list": list(c),
                     "dict": dict(draw(st.permutations([("u", c[0]), ("t", c[1])])))}[output]
    modes = [draw(st.sampled_from(["fr", "rf", "rr", "ff"]))] if order == 3 else []
    return Program("struct", list(shared.prelude.values()), body.lines, "p", point, order,
                   direction, cotangent, modes, expect, output)


def _dot(a, b):
    return sum((x * y for x, y in zip(leaves(a), leaves(b))), 0)


def _hv(h, v):
    return [sum(row[j] * v[j] for j in range(len(v))) for row in h]


def check_struct(program):
    if program.output != "number":
        return check_struct_jacobian(program)
    f, p, v, n = program.function(), program.point, program.direction, program.order
    tol = tolerance(p)
    runs = {}
    with precision(p):
        if program.expect is ad.StructureMismatchError:
            runs["jvp"] = attempt(lambda: ad.jvp(f, p, v))
            for m in ("fr", "rf", "rr", "ff"):
                runs[f"hvp {m}"] = attempt(lambda: ad.hvp(f, p, v, m))
            runs["taylor"] = attempt(lambda: ad.taylor(f, p, 2, v))
            errors_agree(runs, program.expect)
            return
        runs["gradient_r"] = attempt(lambda: ad.gradient_r(f)(p))
        runs["gradient_f"] = attempt(lambda: ad.gradient_f(f)(p))
        runs["jvp"] = attempt(lambda: ad.jvp(f, p, v))
        runs["vjp"] = attempt(lambda: ad.vjp(f, p)[1](1.0))
        runs["jacobian_f"] = attempt(lambda: ad.jacobian_f(f)(p))
        if n >= 2:
            runs["hessian"] = attempt(lambda: ad.hessian(f)(p))
            runs["jacobian_r(gradient_r)"] = attempt(lambda: ad.jacobian_r(ad.gradient_r(f))(p))
            for m in ("fr", "rf", "rr", "ff"):
                runs[f"hvp {m}"] = attempt(lambda: ad.hvp(f, p, v, m))
        m3 = program.modes[0] if n >= 3 else None
        if n >= 3:
            runs[f"jvp of hvp {m3}"] = attempt(
                lambda: ad.jvp(lambda q: _dot(ad.hvp(f, q, v, m3), like(v, q)), p, v)[1])
        runs["taylor"] = attempt(lambda: ad.taylor(f, p, n, v))
        if errors_agree(runs, program.expect):
            return
        with np.errstate(all="ignore"):
            value = f(p)
    for o in runs.values():
        assert_plain(o.value)
    g = runs["gradient_r"].value
    same_layout(g, p, "gradient_r")
    same_layout(runs["gradient_f"].value, p, "gradient_f")
    same_layout(runs["vjp"].value, p, "vjp's pullback")
    agree(runs["gradient_f"].value, g, tol.modes, what="gradient_f vs gradient_r", nonfinite=True)
    agree(runs["vjp"].value, g, tol.modes, what="vjp vs gradient_r", nonfinite=True)
    agree(_matrix(runs["jacobian_f"].value, p), [leaves(g)], tol.modes,
          what="jacobian_f vs gradient_r", nonfinite=True)
    slope = _dot(g, like(v, p))
    agree(runs["jvp"].value, (value, slope), tol.modes, what="jvp vs (f, ∇f·v)", nonfinite=True)
    vs = leaves(like(v, p))
    if n >= 2:
        h = _matrix(runs["hessian"].value, p)
        agree(_matrix(runs["jacobian_r(gradient_r)"].value, p), h, tol.modes,
              what="jacobian_r(gradient_r) vs hessian", nonfinite=True)
        hv = _hv(h, vs)
        for m in ("fr", "rf", "rr", "ff"):
            got = runs[f"hvp {m}"].value
            same_layout(got, p, f"hvp {m}")
            agree(leaves(got), hv, tol.modes, what=f"hvp {m} vs hessian·v", nonfinite=True)
    c = runs["taylor"].value
    assert len(c) == n + 1, c
    agree(c[0], value, tol.modes, what="taylor c0 vs f(x)", nonfinite=True)
    agree(c[1], slope, tol.modes, what="taylor c1 vs ∇f·v", nonfinite=True)
    if n >= 2:
        agree(2 * c[2], _dot(hv, vs), tol.modes, what="2 c2 vs vᵀHv", nonfinite=True)
    if n >= 3:
        agree(runs[f"jvp of hvp {m3}"].value, 6 * c[3], tol.modes,
              what=f"jvp of hvp {m3} vs 6 c3", nonfinite=True)
    # the truth: mpmath's partial derivatives in the leaves
    xs = [_mp(a) for a in leaves(p)]
    k = len(xs)

    def truth(g_):
        G = (lambda *q: g_(rebuild(p, iter(q))))
        unit = [[int(i == j) for j in range(k)] for i in range(k)]
        out = {"value": G(*xs), "gradient": [mpmath.diff(G, xs, e) for e in unit]}
        if n >= 2:
            out["hessian"] = [[mpmath.diff(G, xs, [a + b for a, b in zip(unit[i], unit[j])])
                               for j in range(k)] for i in range(k)]
        if n >= 3:
            out["third"] = mpmath.diff(lambda t: G(*[a + t * d for a, d in zip(xs, vs)]),
                                       0, 3)
        return out
    want, near = truth_of(program, truth, rebuild(p, iter(xs)))
    if near:
        return
    agree(value, want["value"], tol.truth, what="f(x) vs the truth")
    agree(leaves(g), want["gradient"], tol.truth, what="gradient_r vs mpmath.diff")
    if n >= 2:
        agree(h, want["hessian"], tol.truth, what="hessian vs mpmath.diff")
    if n >= 3:
        agree(runs[f"jvp of hvp {m3}"].value, want["third"], tol.truth,
              what="jvp of hvp vs mpmath.diff (third directional derivative)")


def same_layout(got, want, what):
    """got has want's containers: the same types, lengths and dict keys in the same order."""
    if isinstance(want, (tuple, list, dict)):
        assert type(got) is type(want) and len(got) == len(want), (
            f"{what}: got {got!r}, expected the layout of {want!r}")
        if isinstance(want, dict):
            assert list(got) == list(want), f"{what}: keys {list(got)}, expected {list(want)}"
            for k in want:
                same_layout(got[k], want[k], what)
        else:
            for a, b in zip(got, want):
                same_layout(a, b, what)


def check_struct_jacobian(program):
    f, p, v, w = program.function(), program.point, program.direction, program.cotangent
    tol = tolerance(p)
    runs = {}
    with precision(p):
        if program.expect is ad.StructureMismatchError:
            runs["jvp"] = attempt(lambda: ad.jvp(f, p, v))
            errors_agree(runs, program.expect)
            return
        runs["jacobian_f"] = attempt(lambda: ad.jacobian_f(f)(p))
        runs["jacobian_r"] = attempt(lambda: ad.jacobian_r(f)(p))
        runs["jvp"] = attempt(lambda: ad.jvp(f, p, v))
        runs["vjp"] = attempt(lambda: ad.vjp(f, p)[1](w))
        if errors_agree(runs, program.expect):
            return
        with np.errstate(all="ignore"):
            value = f(p)
    for o in runs.values():
        assert_plain(o.value)
    j = _matrix(runs["jacobian_f"].value, p)
    agree(_matrix(runs["jacobian_r"].value, p), j, tol.modes, what="jacobian_r vs jacobian_f",
          nonfinite=True)
    vs = leaves(like(v, p))
    y, slope = runs["jvp"].value
    same_layout(y, value, "jvp's value")
    same_layout(slope, value, "jvp's slope")
    agree(y, value, tol.modes, what="jvp's value vs f(x)", nonfinite=True)
    agree(leaves(slope), _hv(j, vs), tol.modes, what="jvp vs J·v", nonfinite=True)
    back = runs["vjp"].value
    same_layout(back, p, "vjp's pullback")
    ws = leaves(like(w, value))
    jt = [sum(j[i][c] * ws[i] for i in range(len(ws))) for c in range(len(vs))]
    agree(leaves(back), jt, tol.modes, what="vjp vs Jᵀw", nonfinite=True)
    xs = [_mp(a) for a in leaves(p)]
    k = len(xs)

    def truth(g_):
        unit = [[int(i == c) for c in range(k)] for i in range(k)]
        outs = len(leaves(value))
        return [[mpmath.diff(lambda *q: leaves(g_(rebuild(p, iter(q))))[i], xs, e)
                 for e in unit] for i in range(outs)]
    want, near = truth_of(program, truth, rebuild(p, iter(xs)))
    if not near:
        agree(j, want, tol.truth, what="jacobian_f vs mpmath.diff")





# ---- the array kind --------------------------------------------------------------------------

SHAPES = [(), (0,), (1,), (3,), (2, 2), (2, 3)]
DTYPES = ["float64"] * 5 + ["float32", "int64", "int32", "uint8", "bool"]


@st.composite
def arrays(draw, shape, dtype):
    n = int(np.prod(shape))
    if dtype == "bool":
        values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif dtype == "uint8":
        values = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    elif dtype.startswith("int"):
        values = draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
    else:
        values = draw(st.lists(POINTS, min_size=n, max_size=n))
    return np.array(values, dtype=dtype).reshape(shape)


@st.composite
def array_programs(draw, errors=True):
    """f of an ndarray to a number (orders 1..3) or an array (order 1)."""
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from(DTYPES))
    x = draw(arrays(shape, dtype))
    output = draw(st.sampled_from(["number"] * 3 + ["array"]))
    order = 1 if output == "array" else draw(st.integers(1, 3))
    shared = Shared()
    shared.float32 = dtype == "float32"
    # (with no number in x, nothing is perturbed, and nothing raises)
    body = Builder(draw, shared, {"x": _mp(x)}, {"x"}, 3 - order, arrays=True,
                   errors=errors and x.size and draw(st.integers(0, 24)) == 0)
    for _ in range(draw(st.integers(1, 6))):
        body.statement()
    last = body.names[-1]
    if output == "array" and (body.shape(last) == () or np.size(body.env[last]) > 6):
        output = "number"
    if output == "number" and body.shape(last) != ():
        live = last in body.live
        last = body.assign(f"np.sum({last})", f"np.sum({last})", live) or body.assign(
            f"np.sum(np.sin({last}))", f"np.sum(R_.sin({last}))", live)
    body.emit(f"return {last}")
    u = draw(arrays(shape, "float32" if dtype == "float32" else "float64"))
    if shared.expect is not None:
        u[u == 0] = 1.0         # (a zero direction perturbs nothing, and nothing raises)
    w = draw(arrays(np.shape(body.env[last]), "float64")) if output == "array" else None
    modes = [draw(st.sampled_from(["fr", "rf", "rr", "ff"]))] if order == 3 else []
    return Program("array", list(shared.prelude.values()), body.lines, "x", x, order, u, w,
                   modes, shared.expect, output)


def real(x):
    """x as dvlad differentiates it: int and bool arrays as float64."""
    return x.astype(np.float64) if x.dtype.kind in "biu" else x


def check_array(program):
    f, x, u, n = program.function(), program.point, program.direction, program.order
    tol = tolerance(x)
    kind = np.float32 if x.dtype == np.float32 else np.float64
    runs = {}
    array_out = program.output == "array"
    if array_out:
        runs["jacobian_r"] = attempt(lambda: ad.jacobian_r(f)(x))
        runs["jacobian_f"] = attempt(lambda: ad.jacobian_f(f)(x))
        runs["jvp"] = attempt(lambda: ad.jvp(f, x, u))
        runs["vjp"] = attempt(lambda: ad.vjp(f, x)[1](program.cotangent))
    else:
        runs["gradient_r"] = attempt(lambda: ad.gradient_r(f)(x))
        runs["gradient_f"] = attempt(lambda: ad.gradient_f(f)(x))
        runs["jvp"] = attempt(lambda: ad.jvp(f, x, u))
        runs["vjp"] = attempt(lambda: ad.vjp(f, x)[1](1.0))
        if n >= 2:
            runs["hessian"] = attempt(lambda: ad.hessian(f)(x))
            for m in ("fr", "rf", "rr", "ff"):
                runs[f"hvp {m}"] = attempt(lambda: ad.hvp(f, x, u, m))
        m3 = program.modes[0] if n >= 3 else None
        if n >= 3:
            runs[f"jvp of hvp {m3}"] = attempt(
                lambda: ad.jvp(lambda z: np.sum(ad.hvp(f, z, u, m3) * u), x, u)[1])
        runs["directional_derivatives"] = attempt(
            lambda: ad.directional_derivatives(f, x, u, n))
    if errors_agree(runs, program.expect):
        return
    with np.errstate(all="ignore"):
        value = f(real(x))
    for o in runs.values():
        assert_plain(o.value)
    xr, ur = real(x), u.astype(np.float64)
    if array_out:
        j = runs["jacobian_r"].value
        want_shape = np.shape(value) + x.shape
        assert np.shape(j) == want_shape, f"jacobian_r's shape {np.shape(j)}, not {want_shape}"
        if "jacobian_f" in runs:
            agree(runs["jacobian_f"].value, j, tol.modes, what="jacobian_f vs jacobian_r",
                  nonfinite=True)
            one_dtype({k: np.asarray(runs[k].value).dtype for k in ("jacobian_r", "jacobian_f")},
                      x)
        flat = np.asarray(j, dtype=np.float64).reshape(np.size(value), x.size)
        y, slope = runs["jvp"].value
        agree(y, value, tol.modes, what="jvp's value vs f(x)", nonfinite=True)
        agree(slope, (flat @ ur.ravel()).reshape(np.shape(value)), tol.modes,
              what="jvp vs J·u", nonfinite=True)
        back = runs["vjp"].value
        _array_like(back, x, kind, "vjp's pullback")
        agree(back, (np.ravel(program.cotangent) @ flat).reshape(x.shape), tol.modes,
              what="vjp vs Jᵀw", nonfinite=True)
    else:
        g = runs["gradient_r"].value
        dtypes = {label: _array_like(runs[label].value, x, kind, label)
                  for label in ("gradient_r", "gradient_f")}
        _array_like(runs["vjp"].value, x, kind, "vjp's pullback")   # (1.0 may widen it)
        agree(runs["gradient_f"].value, g, tol.modes, what="gradient_f vs gradient_r",
              nonfinite=True)
        agree(runs["vjp"].value, g, tol.modes, what="vjp vs gradient_r", nonfinite=True)
        slope = np.sum(np.asarray(g, dtype=np.float64) * ur)
        agree(runs["jvp"].value, (value, slope), tol.modes, what="jvp vs (f, ∇f·u)",
              nonfinite=True)
        if n >= 2:
            h = np.asarray(runs["hessian"].value, dtype=np.float64)
            assert h.shape == x.shape * 2, f"hessian's shape {h.shape}"
            hu = (h.reshape(x.size, x.size) @ ur.ravel()).reshape(x.shape)
            for m in ("fr", "rf", "rr", "ff"):
                got = runs[f"hvp {m}"].value
                dtypes[f"hvp {m}"] = _array_like(got, x, kind, f"hvp {m}")
                agree(got, hu, tol.modes, what=f"hvp {m} vs hessian·u", nonfinite=True)
        one_dtype(dtypes, x)
        d = runs["directional_derivatives"].value
        assert len(d) == n + 1, d
        agree(d[0], value, tol.modes, what="directional_derivatives[0] vs f(x)",
              nonfinite=True)
        agree(d[1], slope, tol.modes, what="directional_derivatives[1] vs ∇f·u",
              nonfinite=True)
        if n >= 2:
            agree(d[2], np.sum(hu * ur), tol.modes, what="directional_derivatives[2] vs uᵀHu",
                  nonfinite=True)
        if n >= 3:
            agree(runs[f"jvp of hvp {m3}"].value, d[3], tol.modes,
                  what=f"jvp of hvp {m3} vs directional_derivatives[3]", nonfinite=True)
    # the truth: mpmath on the program run on object arrays of mpf
    x0, u0 = _mp(xr), _mp(ur)

    def truth(g_):
        out = {}
        line = (lambda t: g_(x0 + t * u0))
        out["value"] = g_(x0)
        if array_out:
            out["ju"] = mpmath.diff(line, 0, 1) if x.size else np.zeros(np.shape(value))
            w0 = _mp(np.asarray(program.cotangent, dtype=np.float64))
            out["jtw"] = _partials(lambda z: np.sum(g_(z) * w0), x0)
        else:
            out["gradient"] = _partials(g_, x0)
            out["directional"] = list(mpmath.diffs(line, 0, n))
        return out
    want, near = truth_of(program, truth, x0)
    if near:
        return
    agree(value, want["value"], tol.truth, what="f(x) vs the truth")
    if array_out:
        agree(runs["jvp"].value[1], want["ju"], tol.truth, what="jvp vs mpmath.diff")
        agree(runs["vjp"].value, want["jtw"], tol.truth, what="vjp vs mpmath.diff")
    else:
        agree(g, want["gradient"], tol.truth, what="gradient_r vs mpmath.diff")
        d = want["directional"]
        if n >= 2:
            agree(np.sum(np.asarray(runs["hvp fr"].value, dtype=np.float64) * ur), d[2],
                  tol.truth, what="uᵀ·hvp fr vs mpmath.diff (second directional derivative)")
        if n >= 3:
            agree(runs[f"jvp of hvp {m3}"].value, d[3], tol.truth,
                  what="jvp of hvp vs mpmath.diff (third directional derivative)")
        for k in range(1, n + 1):
            agree(runs["directional_derivatives"].value[k], d[k],
                  tol.truth, what=f"directional_derivatives[{k}] vs mpmath.diff")


def _partials(g, x0):
    """∂g/∂x_i at the object array x0, for each i, as an object array of x0's shape."""
    out = np.empty(x0.shape, dtype=object)
    for i in np.ndindex(x0.shape):
        e = np.zeros(x0.shape, dtype=object)
        e[i] = 1
        out[i] = mpmath.diff(lambda t: g(x0 + t * e), 0, 1)
    return out


def _array_like(got, x, kind, what):
    """A derivative in x's layout: an array of x's shape, float64 for an int, bool or float64 x
    (float32 or float64 for a float32 x, as f computes).  Its dtype, for the modes' agreement."""
    assert np.shape(got) == x.shape, f"{what}: shape {np.shape(got)}, expected {x.shape}"
    assert isinstance(got, np.ndarray), f"{what}: a {type(got).__name__}, expected an array"
    assert got.dtype in ((np.float32, np.float64) if kind == np.float32 else (np.float64,)), (
        f"{what}: {got.dtype}, expected {kind.__name__}")
    return got.dtype


def one_dtype(dtypes, x):
    """Every mode gives its derivatives in one dtype."""
    assert len(set(dtypes.values())) == 1, f"the modes' dtypes differ: {dtypes}"



