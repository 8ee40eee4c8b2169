"""How a tour section prints: the code it runs, the result, and the sentences around them.

A section is a function registered with :func:`section`; its docstring is the one sentence of
*why* printed under its title.  :func:`show` evaluates an expression and prints it REPL-style,
:func:`run` executes statements (definitions) and prints them, :func:`say` prints wrapped prose.
The code is registered with ``linecache`` under the name ``<python -m dvlad>``, so that a
traceback, or an error message naming a call site, shows the line.
"""
import contextlib
import io
import itertools
import linecache
import textwrap
from collections import namedtuple

WIDTH = 96
INDENT = "  "

Section = namedtuple("Section", "name title run")
SECTIONS = []
_counter = itertools.count(1)


def section(title):
    """Register the decorated function as the next section of the tour, under its own name."""
    def register(fn):
        SECTIONS.append(Section(fn.__name__, title, fn))
        return fn
    return register


def why(fn):
    """The section's one sentence of why: its docstring, as one line of text."""
    return " ".join((fn.__doc__ or "").split())


def say(text, indent=INDENT):
    """Print prose wrapped to the tour's width."""
    print(textwrap.fill(" ".join(text.split()), WIDTH, initial_indent=indent,
                        subsequent_indent=indent))


def wrapped(text, indent=INDENT * 2):
    """A long message (an error's) wrapped whole, every word kept."""
    return textwrap.fill(" ".join(str(text).split()), WIDTH, initial_indent=indent,
                         subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def _source(code, mode):
    """code compiled under a linecache name of its own, so tracebacks show it."""
    name = f"<python -m dvlad #{next(_counter)}>"
    linecache.cache[name] = (len(code), None, [ln + "\n" for ln in code.splitlines()], name)
    return compile(code, name, mode)


def _prompted(code):
    lines = code.splitlines()
    return "\n".join(f"{INDENT}{'>>>' if k == 0 else '...'} {ln}" for k, ln in enumerate(lines))


def show(code, env, note=None):
    """Evaluate the expression ``code`` in env, print it and its value's repr (and a note after
    ``#``); return the value."""
    value = eval(_source(code, "eval"), env)
    print(_prompted(code))
    result = "\n".join(INDENT + ln for ln in repr(value).splitlines())
    print(result + (f"   # {note}" if note else ""))
    return value


def run(code, env):
    """Print the statements ``code``, execute them in env, and print what they print, indented
    (also when they raise)."""
    print(_prompted(code))
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(_source(code, "exec"), env)
    finally:
        if out.getvalue():
            print("\n".join(INDENT + ln for ln in out.getvalue().rstrip("\n").splitlines()))


def num(x):
    """A number for prose: 2.0 as 2, 0.5 as 0.5, else its repr."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)
