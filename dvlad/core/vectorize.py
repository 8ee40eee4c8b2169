"""The rule table's partials for array primals: the same text, conditionals made elementwise.

A row's partial such as ``0.5 / r if r else INF`` asks Python's ``if`` about one number.  For an
array primal :func:`vectorize` rewrites the text (with :mod:`ast`) so that

- ``A if C else B`` becomes ``select(C, lambda x, y, r: A, lambda x, y, r: B, x, y, r)``
  (``pick(...)`` when A and B are numbers whatever the lanes hold, maximum's ``1.0`` and ``0.0``:
  both run on every lane, and one ``where`` chooses, there being nothing to keep apart);
- ``C and D`` / ``C or D`` / ``not C`` become ``all_``/``any_``/``not_`` of thunks;
- a chained comparison ``a < b < c`` becomes ``all_`` of its links, and a bare value used as a
  condition ``x`` becomes ``x != 0``.

At run time ``select`` evaluates only the branch it needs when the condition is one boolean or
the same for every element (``x ** 2``: ``y < 1`` is False, so only ``y * x ** (y - 1)`` runs).
Otherwise each branch runs on just the elements it is chosen for (gathered from the arguments,
broadcast to the result's shape) and the two are scattered back.  So every element follows the
scalar rule exactly, to every order and in every mode: a branch never sees the singular point
the other branch is there for, and no 0·inf from a masked branch can reach a derivative (as it
would through ``where``, in reverse mode).  Gathering and scattering are dvlad's own differentiable
operations; the cost is paid only when a condition really is mixed.

Where no operation can mix lanes (plain arrays, and bundles over them: forward mode's elementwise
arithmetic) the fast path does less: the branch of most lanes runs on every lane, the other on
its own lanes only, and its values are written over theirs.  What the first branch computes on
the other lanes (a nan, an inf, numpy's warning, all silenced) is never read: forward mode keeps
each lane's value and tangent to itself.  Reverse mode could not promise that (a transpose
carries 0·inf back from a lane not taken), so tape cells, and the reference path
(``DVLAD_REFERENCE=1``), always gather.
"""
import ast

import numpy as np

from . import base, pool
from .number import ADNumber, strip
from .switch import REFERENCE
from .tags import FORWARD

__all__ = ["vectorize", "make_helpers", "numbers_only", "on_bases"]


class _Elementwise(ast.NodeTransformer):
    def __init__(self, params):
        self.params = params

    def visit_IfExp(self, node):
        plain = _constant_valued(node.body) and _constant_valued(node.orelse)
        self.generic_visit(node)
        return _call("pick" if plain else "select",
                     [_truth(node.test), _thunk(node.body, self.params),
                      _thunk(node.orelse, self.params)]
                     + [ast.Name(id=p, ctx=ast.Load()) for p in self.params])

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        name = "all_" if isinstance(node.op, ast.And) else "any_"
        return _call(name, [_thunk(_truth(v)) for v in node.values])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call("not_", [_truth(node.operand)])
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        left, links = node.left, []
        for op, right in zip(node.ops, node.comparators):
            links.append(_thunk(ast.Compare(left=left, ops=[op], comparators=[right])))
            left = right
        return _call("all_", links)


def _constant_valued(node):
    """A branch whose value is a number whatever the lanes hold (1.0, or a conditional of such):
    it computes nothing that could go wrong on a lane not taken."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _constant_valued(node.operand)
    if isinstance(node, ast.IfExp):
        return _constant_valued(node.body) and _constant_valued(node.orelse)
    return False


def numbers_only(text):
    """Whether a partial's whole text is a conditional whose every branch is a number
    (maximum's ``1.0 if x > y else (0.5 if x == y else 0.0)``): the same value for every tag."""
    node = ast.parse(text, mode="eval").body
    return isinstance(node, ast.IfExp) and _constant_valued(node)


def on_bases(fn, name):
    """A :func:`numbers_only` partial, ``fn`` of its arguments' base numbers (every perturbation
    stripped).  On numbers dvlad.compile traces it is one recorded operation, not a test, so a
    replay takes whichever branch its own numbers ask for (a loop of ``maximum`` rolls and
    replays through sign changes)."""
    families, traced = {base.MATH: fn, base.NUMPY: fn, base.MPMATH: fn}, base.TRACED

    def partial(*args):
        if not _TRACING[0]:                 # (comparisons of dvlad numbers are of their bases)
            return fn(*args)
        bases = [strip(a) for a in args]
        for b in bases:
            if getattr(type(b), "_dvlad_family", None) is traced:
                return b._dvlad_apply(name, families, bases)
        return fn(*bases)
    partial.__name__ = partial.__qualname__ = name
    return partial


def _call(name, args):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[])


def _thunk(expr, params=()):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=expr)


def _truth(expr):
    if isinstance(expr, ast.Compare):
        return expr
    if isinstance(expr, ast.Call) and getattr(expr.func, "id", "") in ("all_", "any_", "not_"):
        return expr
    return ast.Compare(left=expr, ops=[ast.NotEq()], comparators=[ast.Constant(0)])


def vectorize(text, params=("x", "y", "r")):
    """The rule text with its conditionals made elementwise (see the module docstring);
    ``params`` are the names of the partial's arguments (the primals and the result)."""
    tree = _Elementwise(tuple(params)).visit(ast.parse(text, mode="eval"))
    return ast.unparse(ast.fix_missing_locations(tree))


def _base(v):
    while hasattr(v, "tag"):
        v = v.primal
    return v


_WEAK = (int, float)


_TRACING = pool.TRACING      # [threads tracing for dvlad.compile]


def _lanes_dtype(args):
    """numpy's result dtype of a partial's arguments, as the dtype Python numbers take in it:
    that of the arrays if inexact, float64 otherwise."""
    bases = [b for b in map(_base, args) if isinstance(b, (np.ndarray, np.generic))]
    dt = np.result_type(*bases) if bases else np.dtype(np.float64)
    return dt if dt.kind in "fc" else np.dtype(np.float64)


def _typed(v, dt):
    """A Python number as a numpy scalar of dtype dt (the lanes' dtype)."""
    return dt.type(v)


def _ndim(v):
    """np.ndim(v) without its Python-level dispatch for the common kinds."""
    t = type(v)
    if t is bool or t is np.bool_:
        return 0
    if t is np.ndarray:
        return v.ndim
    return np.ndim(v)


def _lanes_apart(v):
    """True for an argument whose lanes no operation of a partial can mix: a plain number or
    array, or bundles (forward mode) over one.  (Reverse mode's transposes can carry a 0·inf from
    a lane not taken into a derivative; towers are not checked here.)"""
    while isinstance(v, ADNumber):
        if v.tag.kind is not FORWARD:
            return False
        v = v.primal
    return True


def _uniform(c):
    """True/False if condition c is one boolean or the same everywhere, else None."""
    if _ndim(c) == 0:
        return bool(c)
    if c.all():
        return True
    if not c.any():
        return False
    return None


_BITS = {np.dtype(np.float64): np.uint64, np.dtype(np.float32): np.uint32}
_ONE = {dt: np.asarray(1.0, dt).view(u) for dt, u in _BITS.items()}     # the bits of 1.0


def _blend(c, yes, no):
    """np.where(c, yes, no) for numbers yes and no, bit for bit (nan, −0.0), by the bits of
    each: no ^ (mask & (yes ^ no)), mask all ones where c.  numpy's where branches on every
    lane; where the lanes alternate at random (relu's partial) this takes a fifth of its time."""
    dtype = np.result_type(yes, no)
    u = _BITS.get(dtype)
    if u is None or type(yes) not in (float, np.float64, np.float32) or \
            type(no) not in (float, np.float64, np.float32):
        return np.where(c, yes, no)
    y, n = np.asarray(yes, dtype).view(u), np.asarray(no, dtype).view(u)
    if y == _ONE[dtype] and n == 0:     # 1.0 and +0.0 (relu's): the booleans as floats
        out = pool.empty(c.shape, dtype) if c.flags.c_contiguous else np.empty(c.shape, dtype)
        np.copyto(out, c, casting="unsafe")
        return out
    m = pool.empty(c.shape, u) if c.flags.c_contiguous else np.empty(c.shape, u)
    np.copyto(m, c, casting="unsafe")
    np.negative(m, out=m)               # 1 -> all ones (unsigned), 0 -> 0
    np.bitwise_and(m, y ^ n, out=m)
    np.bitwise_xor(m, n, out=m)
    return m.view(dtype)


def make_helpers(ops):
    """The run-time helpers, given dvlad's array operations ``ops`` (a dict, filled when
    dvlad.arrays is imported): broadcast_to, getitem and scatter."""
    def select(c, a, b, *args):
        if _TRACING[0] and pool.tracing() and _ndim(c) and all(map(_lanes_apart, args)):
            r = _recorded(c, a, b, args)
            return _both(c, a, b, args) if r is None else r
        u = _uniform(c)
        if u is not None:
            return a(*args) if u else b(*args)
        shape = np.broadcast_shapes(c.shape, *(np.shape(_base(v)) for v in args if v is not None))
        if shape != c.shape:        # (a test of one argument, x ** p's p == 0 with p a row)
            c = np.broadcast_to(c, shape)
        if not REFERENCE and all(_lanes_apart(v) for v in args):
            return _patched(c, a, b, args)
        shape, not_c = c.shape, ~c
        # (an argument the partial does not read may be None: see dvlad.numbers.partials)
        # Python numbers are weak (NEP 50): x32 op 0.5 is float32.  Broadcast, they would be
        # float64 arrays and widen the partial, so they (and a branch that is a plain constant)
        # take the lanes' dtype first.
        dt = _lanes_dtype(args)
        full = [_typed(v, dt) if type(v) in _WEAK else v for v in args]
        full = [ops["broadcast_to"](v, shape) if v is not None and np.shape(_base(v)) != shape
                else v for v in full]
        chosen = a(*(None if v is None else ops["getitem"](v, c) for v in full))
        others = b(*(None if v is None else ops["getitem"](v, not_c) for v in full))
        if type(chosen) in _WEAK:
            chosen = _typed(chosen, dt)
        if type(others) in _WEAK:
            others = _typed(others, dt)
        return ops["scatter"](chosen, c, shape) + ops["scatter"](others, not_c, shape)

    def _recorded(c, a, b, args, picked=False):
        """select (pick) while dvlad.compile traces base numbers, as one recorded call: a
        replay then takes eager dvlad's lanes on its own numbers (select: the branch of most
        lanes on every lane, the other on its own; pick: one branch where the lanes agree, else
        a blend by bits).  None where the branches are not functions of their arguments alone,
        or an argument is a dvlad number (bundles of a nested derivative)."""
        if REFERENCE or any(f.__closure__ or f.__defaults__ for f in (a, b)) \
                or any(isinstance(v, ADNumber) for v in args):
            return None

        def lanes(c, *args):
            with pool.making(None):             # (a replay run inside another trace)
                if picked:              # (lanes that agree: one number, as an array of them)
                    r = pick(c, a, b, *args)
                    if np.ndim(r) == 0:
                        out = pool.empty(c.shape, _lanes_dtype(args))
                        out.fill(r)
                        return out
                    return r
                shape = np.broadcast_shapes(c.shape,
                                            *(np.shape(v) for v in args if v is not None))
                return _patched(c if shape == c.shape else np.broadcast_to(c, shape), a, b,
                                args)
        for v in (c,) + args:
            if hasattr(type(v), "_dvlad_call"):
                return v._dvlad_call("pick" if picked else "select", lanes, (c,) + args)
        return None

    def _both(c, a, b, args):
        """select while dvlad.compile traces: both branches on every lane, then where (the
        lanes taken are those a replay must take on other numbers too: no decision on values
        is recorded).  Each lane's value is the one the branch gives it eagerly."""
        dt = _lanes_dtype(args)
        args = [_typed(v, dt) if type(v) in _WEAK else v for v in args]
        with np.errstate(all="ignore"):
            yes, no = a(*args), b(*args)
        yes = _typed(yes, dt) if type(yes) in _WEAK else yes
        no = _typed(no, dt) if type(no) in _WEAK else no
        return ops["where"](c, yes, no)

    def _patched(c, a, b, args):
        """select where no lane can reach another (plain arrays, bundles: elementwise forward
        arithmetic keeps lanes apart): the branch with more lanes runs on every lane, its values
        on the other lanes are never read (numpy's warnings there are silenced), and the other
        branch runs on its own lanes alone, written over them."""
        shape = c.shape
        dt = _lanes_dtype(args)
        args = [_typed(v, dt) if type(v) in _WEAK else v for v in args]
        if 2 * np.count_nonzero(c) >= c.size:
            major, minor, lanes = a, b, ~c
        else:
            major, minor, lanes = b, a, c
        with np.errstate(all="ignore"):
            most = major(*args)
        # the minor lanes by their flat positions: a gather and a scatter by integers take a
        # fifth of the time of numpy's by a boolean mask whose lanes alternate at random
        at = np.flatnonzero(lanes)
        some = minor(*(None if v is None else _flat_lanes(v, shape, at) for v in args))
        if type(some) in _WEAK:
            some = _typed(some, dt)
        if type(most) in _WEAK:         # (a constant branch, relu's 1.0: filled, not scattered)
            most = _typed(most, dt)
        if isinstance(most, (np.ndarray, np.generic)) and isinstance(some, (np.ndarray, np.generic)):
            out = pool.empty(shape, np.result_type(most, some))
            out[...] = most
            out.reshape(-1)[at] = some          # (out is C-contiguous: a view)
            return out
        return ops["where"](lanes, ops["scatter"](some, lanes, shape), most)

    def _flat_lanes(v, shape, at):
        """v (broadcast to the lanes' shape) at flat positions ``at``."""
        if np.shape(_base(v)) != shape:
            v = ops["broadcast_to"](v, shape)
        if type(v) is np.ndarray:
            return v.reshape(-1)[at] if v.ndim != 1 else v[at]
        return ops["getitem"](v if len(shape) == 1 else ops["reshape"](v, (-1,)), at)

    def pick(c, a, b, *args):
        """select of two branches that are numbers on every lane (maximum's 1.0 and 0.0): no
        lanes gathered or scattered, one where."""
        if REFERENCE or not _ndim(c):
            return select(c, a, b, *args)
        if not (_TRACING[0] and pool.tracing()):
            u = _uniform(c)
            if u is not None:
                return a(*args) if u else b(*args)
        else:
            r = _recorded(c, a, b, args, True)
            if r is not None:
                return r
        dt = _lanes_dtype(args)
        with np.errstate(all="ignore"):
            yes, no = a(*args), b(*args)
        yes = _typed(yes, dt) if type(yes) in _WEAK else yes
        no = _typed(no, dt) if type(no) in _WEAK else no
        if type(c) is np.ndarray and c.dtype == bool and np.ndim(yes) == 0 and np.ndim(no) == 0:
            return _blend(c, yes, no)
        return np.where(c, yes, no)

    def all_(*thunks):
        acc = True
        for t in thunks:
            v = t()
            if _ndim(v) == 0 and not v:
                return False
            acc = acc & v
        return acc

    def any_(*thunks):
        acc = False
        for t in thunks:
            v = t()
            if _ndim(v) == 0 and v:
                return True
            acc = acc | v
        return acc

    def not_(c):
        return ~c if _ndim(c) else not c

    return {"select": select, "pick": pick, "all_": all_, "any_": any_, "not_": not_}
