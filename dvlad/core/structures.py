"""Walking the structures users pass in and get back: nested tuples, lists and dicts of numbers.

``flatten`` turns a structure into its leaves (in a fixed order: positions, then dict insertion
order) and a tree that ``unflatten`` rebuilds with new leaves, keeping every container's type
(namedtuples and tuple/list/dict subclasses included).  User structures are shallow, so these
recurse; the tape sweep is the part that must never recurse.
"""
import numpy as np

from . import base
from .number import ARRAY_OPS, ADNumber, strip
from .tags import NotDifferentiableError, StructureMismatchError

_LEAF = None


def is_number(x):
    """A real number dvlad can differentiate: an AD number or a real base number."""
    return isinstance(x, ADNumber) or base.family(x) is not None


def as_real(x):
    """x, or x as float64 if it is a numpy integer or bool (array or scalar): derivatives of
    integer inputs are real numbers, as numpy promotes them (unsigned arithmetic would wrap).
    Python ints stay ints (an integer-valued derivative is exact)."""
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "biu":
        return x.astype(np.float64)
    return x


def direction_like(v, point):
    """A direction (or cotangent) leaf v in the precision of its point: a float32 direction of
    a float64 point is widened (it must not narrow the computation), a bool or numpy integer
    one made a float (sums of them would be logical or wrap around); anything else as it is."""
    p = point
    while isinstance(p, ADNumber):
        p = p.primal
    if type(v) is bool or isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "biu":
        v = np.asarray(v, np.result_type(p, np.float16) if isinstance(p, (np.ndarray, np.generic))
                       and np.asarray(p).dtype.kind == "f" else np.float64)
        v = v[()] if v.ndim == 0 and not isinstance(point, np.ndarray) else v
        v = float(v) if type(p) is float and np.ndim(v) == 0 else v
    if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "f":
        want = (np.result_type(np.float64 if type(p) is float else p, v)
                if isinstance(p, (np.ndarray, np.generic, float)) else None)
        if want is not None and want.kind == "f" and want != v.dtype:
            return v.astype(want)
    return v


def describe(x):
    """A short 'type: value' for error messages."""
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(x).__name__} {text}"


def flatten(x, who, functions=False, result=False):
    """(leaves, tree) of structure x; a leaf that is not a real number is a TypeError.

    With ``functions=True`` a function is a leaf too (derivatives of function-valued functions).
    With ``result=True`` (f's value) an object array of numbers, some of them AD numbers, is one
    array leaf: numpy made it of f's AD numbers (np.array([x0 * x1, x0])), and its Jacobian is an
    ndarray of shape out.shape + in.shape.  (A point's object array stays a container.)
    """
    leaves = []
    tree = _flatten(x, leaves, who, functions, result)
    return leaves, tree


def _flatten(x, leaves, who, functions, result=False):
    if is_number(x) or (functions and callable(x)):
        leaves.append(x)
        return _LEAF
    if isinstance(x, np.ndarray) and x.dtype == object:
        if result and any(isinstance(v, ADNumber) for v in x.flat) and \
                all(map(is_number, x.flat)):
            leaves.append(pack(x))
            return _LEAF
        return (_ObjectArray, x.shape,
                [_flatten(v, leaves, who, functions, result) for v in x.flat])
    if isinstance(x, (tuple, list)):
        return (type(x), [_flatten(v, leaves, who, functions, result) for v in x])
    if isinstance(x, dict):
        return (type(x), list(x.keys()),
                [_flatten(v, leaves, who, functions, result) for v in x.values()])
    what = "a function" if callable(x) else describe(x)
    raise NotDifferentiableError(
        f"{who} must be real numbers in nested tuples, lists and dicts; it contains {what}")


def flatten_like(x, tree, who, against="the point"):
    """The leaves of x in the order of ``tree`` (another structure's, from :func:`flatten`):
    dicts are paired by key, never by insertion order, so a direction ``{'b': 10, 'a': 1}``
    meets the point ``{'a': .., 'b': ..}`` key by key.  A structure that does not match (a
    missing or extra key, another length, a leaf where a container is) raises
    :class:`StructureMismatchError` naming where."""
    leaves = []
    _flatten_like(x, tree, leaves, who, against, "")
    return leaves


def pack(x):
    """An object array of numbers (plain or AD) as one array value, read as a whole: the stack
    of its elements, reshaped.  numpy makes such arrays when code builds an array from AD numbers
    (``np.full(shape, g)``, ``np.array([x0 * x1, x0])``); where one array is expected (a rule's
    jvp or vjp result) every element counts, not the first."""
    if "repack" in ARRAY_OPS:
        packed = ARRAY_OPS["repack"](x)
        if not (isinstance(packed, np.ndarray) and packed.dtype == object):
            return packed
    elements = list(x.flat)
    if not any(isinstance(e, ADNumber) for e in elements):
        return np.array(elements, dtype=float).reshape(x.shape)
    return ARRAY_OPS["reshape"](ARRAY_OPS["stack"](elements), x.shape)


def like_leaf(value, leaf):
    """A derivative with respect to ``leaf`` in leaf's form: a plain number where leaf is an
    array (a 0-d one included) becomes an array of leaf's shape (structures in, same structures
    out), and an integer or bool one a float (derivatives are real: ∂3/∂x is 0.0, not 0)."""
    t = type(value)
    if t is np.ndarray and value.dtype.kind == "f" or isinstance(value, ADNumber):
        return value
    t = type(value)
    if t is int or t is bool or isinstance(value, (np.integer, np.bool_)):
        value = float(value)
    elif isinstance(value, np.ndarray) and value.dtype.kind in "iub":
        value = value.astype(float)
    if isinstance(leaf, np.ndarray) and not isinstance(value, np.ndarray):
        return base.as_array(value)
    return value


def precision(leaf, values):
    """The dtype of a derivative with respect to ``leaf`` of a result made of ``values`` (f's
    value, a cotangent): numpy's result type of the leaf's and theirs, Python numbers weak.  One
    dtype for the derivative whichever mode computes it: a float32 point of a float64
    computation gets float64 derivatives, a float32 one float32, also where f (or one of its
    orders) does not depend on x.  None where the leaf is not a numpy float."""
    p = base.concrete(strip(leaf))
    if not isinstance(p, (np.ndarray, np.generic)) or p.dtype.kind != "f":
        return None
    want = p.dtype                      # (a Python float is weak: it never widens a float)
    for v in values:
        b = base.concrete(strip(v))
        if type(b) is not float:
            d = getattr(b, "dtype", None)
            if d is not None and d is not want and d.kind == "f" and d != want:
                want = np.result_type(want, d)
    return want


def in_precision(d, want):
    """Derivative d in dtype ``want`` (see precision): plain numbers cast, an AD number (a
    derivative taken inside another one) widened by an exact product with 1."""
    if want is None:
        return d
    b = strip(d)
    c = base.concrete(b)
    if not isinstance(c, (np.ndarray, np.generic)) or c.dtype == want or c.dtype.kind != "f":
        return d
    if c is not b and not isinstance(d, ADNumber):    # a traced number: the cast is recorded
        return b._dvlad_cast(want.type)
    if not isinstance(d, ADNumber):
        return b.astype(want) if isinstance(b, np.ndarray) else want.type(b)
    if np.result_type(b.dtype, want) == want:
        return d * np.ones((), want)
    return d


def _mismatch(message):
    return StructureMismatchError(message + "; give them the same structure (dicts are paired "
                                            "by key)")


def _flatten_like(x, tree, leaves, who, against, at):
    where = at or "the top"
    if tree is _LEAF:
        if isinstance(x, np.ndarray) and x.dtype == object and all(map(is_number, x.flat)):
            x = pack(x)
        if isinstance(x, (tuple, list, dict)) or (isinstance(x, np.ndarray) and x.dtype == object):
            raise _mismatch(f"{who} has a container at {where}, {against} a number")
        leaves.append(x)
        return
    if tree[0] is _ObjectArray:
        if not isinstance(x, np.ndarray) or x.shape != tree[1]:
            raise _mismatch(f"{who} at {where} must be an array of shape "
                                         f"{tree[1]}, as {against}'s is")
        for k, (v, c) in enumerate(zip(x.flat, tree[2])):
            _flatten_like(v, c, leaves, who, against, f"{at}[{k}]")
        return
    if len(tree) == 2:
        kind, children = tree
        if not isinstance(x, (tuple, list)) or len(x) != len(children):
            n = len(x) if isinstance(x, (tuple, list)) else "no"
            raise _mismatch(
                f"{who} at {where} has {n} entries where {against} has {len(children)} (their "
                f"leaves pair one to one): got {describe(x)}")
        for k, (v, c) in enumerate(zip(x, children)):
            _flatten_like(v, c, leaves, who, against, f"{at}[{k}]")
        return
    kind, keys, children = tree
    if not isinstance(x, dict):
        raise _mismatch(f"{who} at {where} must be a dict with keys {keys}, as "
                                     f"{against}'s is; got {describe(x)}")
    missing = [k for k in keys if k not in x]
    extra = [k for k in x if k not in set(keys)]
    if missing or extra:
        raise _mismatch(
            f"{who} at {where} must have the keys of {against}: "
            + ", ".join(filter(None, [f"missing {missing}" if missing else "",
                                      f"extra {extra}" if extra else ""])))
    for k, c in zip(keys, children):
        _flatten_like(x[k], c, leaves, who, against, f"{at}[{k!r}]")


def unflatten(tree, leaves):
    """Rebuild the structure described by ``tree`` with ``leaves`` in flatten order."""
    return _unflatten(tree, iter(leaves))


class _ObjectArray:
    """Tree marker for an object array of numbers."""


def _unflatten(tree, it):
    if tree is _LEAF:
        return next(it)
    if tree[0] is _ObjectArray:
        _, shape, children = tree
        out = np.empty(len(children), dtype=object)
        for k, c in enumerate(children):
            out[k] = _unflatten(c, it)
        return out.reshape(shape)
    if len(tree) == 2:
        kind, children = tree
        items = [_unflatten(c, it) for c in children]
        if kind is tuple or kind is list:
            return kind(items)
        if issubclass(kind, tuple) and hasattr(kind, "_fields"):   # namedtuple
            return kind(*items)
        return kind(items)
    kind, keys, children = tree
    out = kind() if kind is not dict else {}
    for k, c in zip(keys, children):
        out[k] = _unflatten(c, it)
    return out


def map_leaves(fn, x, who):
    """x with every number leaf replaced by fn(leaf); containers keep their types."""
    leaves, tree = flatten(x, who)
    return unflatten(tree, [fn(v) for v in leaves])


def leaf(x, k, who):
    """The k-th leaf (numbers and functions, in flatten order) of structure x."""
    return flatten(x, who, functions=True)[0][k]


def in_object_array(tree):
    """For each leaf, in flatten order: is it an element of an object array?  (numpy applies a
    ufunc to such an element through its method, which a plain float lacks.)"""
    out = []
    _mark(tree, False, out)
    return out


def _mark(tree, inside, out):
    if tree is _LEAF:
        out.append(inside)
    elif tree[0] is _ObjectArray:
        for c in tree[2]:
            _mark(c, True, out)
    else:
        for c in tree[-1]:
            _mark(c, inside, out)


def elementwise(op, *inputs):
    """``op`` applied element by element over object arrays, with numbers (plain or AD)
    broadcast against them: how numpy's object arrays of AD numbers are differentiated."""
    objs = []
    for v in inputs:
        if isinstance(v, np.ndarray):
            objs.append(v if v.dtype == object else v.astype(object))
        else:
            box = np.empty((), dtype=object)    # a 0-d box: never read as a sequence
            box[()] = v
            objs.append(box)
    b = np.broadcast(*objs)
    out = np.empty(b.shape, dtype=object)
    out.flat = [op(*vals) for vals in b]
    return out
