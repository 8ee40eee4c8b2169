"""Reads by a name F computes while it runs, found in F's bytecode before it is traced.

The walk (:mod:`.captures`) finds what F reads by the names its code spells: variables,
attributes, and strings that could be one (``getattr(config, "scale")``).  A name computed while
F runs (``getattr(config, name)``, ``globals()[key]``, ``vars(obj)[key]``,
``obj.__dict__[key]``, ``operator.attrgetter(name)``, ``"{0.scale}".format(cfg)``) reads a
place the walk never saw, so a trace would keep what it read as a constant and a later change
would go unseen.  Such an F runs
eagerly (correct, and ``explain()`` names the read).

The test is on the instructions: a call of ``getattr``/``hasattr`` whose name argument is one
string constant, or a namespace (``globals()``, ``vars(x)``, ``x.__dict__``) subscripted at once
by one, names its place; any other use of them (a name in a variable, ``getattr`` passed as a
value, a namespace iterated) is a computed read.
"""
import dis
import string
import types

# callables whose argument at the given position is an attribute name
_BY_NAME = {"getattr": 1, "hasattr": 1, "attrgetter": 0, "methodcaller": 0}
# callables and attributes that give a whole namespace
_NAMESPACE_CALLS = {"globals", "vars"}
_LOADS = {"LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD", "LOAD_DEREF",
          "LOAD_CLASSDEREF", "LOAD_FAST"}
_CALLS = {"CALL_FUNCTION", "CALL_METHOD", "PRECALL", "CALL"}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)


def computed_read(code):
    """A description ("getattr with a computed name at line 7") of the first read by a name
    computed while the code runs, in ``code`` or the code objects inside it; None if none.

    >>> computed_read((lambda c: getattr(c, "scale")).__code__) is None
    True
    >>> computed_read((lambda c, name: getattr(c, name)).__code__)[:31]
    'getattr with a computed name at'
    """
    ins = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG")]
    for k, i in enumerate(ins):
        name = i.argval if i.opname in _LOADS else None
        if name in _BY_NAME:
            call = _call(ins, k)
            if call is None or not _constant(call[0], _BY_NAME[name]):
                return f"{name} with a computed name{_line(ins, k)}"
        elif name in _NAMESPACE_CALLS and i.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            call = _call(ins, k)
            if call is None or not _read_by_constant(ins, call[1] + 1):
                return f"{name}() read by a computed name{_line(ins, k)}"
        elif name == "__dict__" and i.opname == "LOAD_ATTR":
            if not _read_by_constant(ins, k + 1):
                return f"__dict__ read by a computed name{_line(ins, k)}"
        elif name == "__getattribute__" and i.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            return f"__getattribute__ called{_line(ins, k)}"
        elif name in ("format", "format_map") and i.opname in ("LOAD_ATTR", "LOAD_METHOD") \
                and any(_reads_fields(c) for c in code.co_consts):
            return f"str.{name} of a field that reads an attribute or item{_line(ins, k)}"
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            why = computed_read(c)
            if why:
                return why
    return None


def _reads_fields(text):
    """Whether a format string reads attributes or items of its arguments ("{0.scale}")."""
    if not isinstance(text, str) or "{" not in text:
        return False
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return False
    return any("." in f or "[" in f for f in fields)


def _line(ins, k):
    for i in reversed(ins[:k + 1]):
        line = getattr(i, "line_number", None) if isinstance(i.starts_line, bool) \
            else i.starts_line
        if line is not None:
            return f" at line {line}"
    return ""


def _call(ins, k):
    """``(arguments, end)`` for the call of what instruction k loads: the instructions that
    push each argument, and the index of the call's last instruction; None when they are not
    straight-line code ending in that call (the loaded function is stored or passed on, an
    argument branches, keywords are given)."""
    depth, after = 0, []
    for j in range(k + 1, len(ins)):
        i = ins[j]
        precalled = i.opname == "CALL" and ins[j - 1].opname == "PRECALL"   # Python 3.11
        if i.opname in _CALLS and depth == (i.arg or 0) and not precalled:
            ends = [k] + [max(m for m, d in after if d == p + 1) for p in range(depth)]
            args = [ins[ends[p] + 1:ends[p + 1] + 1] for p in range(depth)]
            end = j + 1 if i.opname == "PRECALL" and j + 1 < len(ins) else j
            return args, end
        if i.opcode in _JUMPS or i.opname == "KW_NAMES" or (
                i.opname in _CALLS and depth < i.arg and not precalled):
            return None
        depth += dis.stack_effect(i.opcode, i.arg if i.opcode >= dis.HAVE_ARGUMENT else None,
                                  jump=False)
        if depth < 0:
            return None
        after.append((j, depth))
    return None


def _constant(args, position):
    return len(args) > position and len(args[position]) == 1 and \
        args[position][0].opname == "LOAD_CONST" and isinstance(args[position][0].argval, str)


def _read_by_constant(ins, j):
    """Whether the namespace pushed just before instruction j is read at once by a string
    constant: ``globals()["scale"]`` or ``vars(c).get("scale")``."""
    if j + 1 < len(ins) and ins[j].opname == "LOAD_CONST" and isinstance(ins[j].argval, str):
        nxt = ins[j + 1]
        return nxt.opname == "BINARY_SUBSCR" or nxt.opname == "BINARY_OP" and \
            nxt.argrepr == "[]"
    if j < len(ins) and ins[j].opname in ("LOAD_ATTR", "LOAD_METHOD") and ins[j].argval == "get":
        call = _call(ins, j)
        return call is not None and _constant(call[0], 0)
    return False
