"""Perturbation tags: the gensym counter, their order, their liveness, and dvlad's errors.

A tag is made each time a derivative operator is *applied* (never when it is built), from one
process-wide counter, so a newer tag always has a larger number.  :func:`newer` is the order;
the generated fast paths in dvlad.ops never compare two different tags (they test identity).

A tag is *live* while the call that made it is running.  When the call returns the tag dies: any
bundle or tape cell that escaped the call is, from then on, a constant equal to its primal.
"""
import itertools
import linecache
import os
import sys
import threading

class Kind:
    """A kind of AD number, the ``kind`` of each of its tags.  Its module in :mod:`dvlad.numbers`
    implements the lift interface for it, once (:mod:`dvlad.core.lift`): ``lift`` for a primitive
    with one output, ``lift_many`` for a vector primitive."""

    __slots__ = ("name", "lift", "lift_many")

    def __init__(self, name):
        self.name, self.lift, self.lift_many = name, None, None

    def __repr__(self):
        return self.name


FORWARD = Kind("forward")     # bundles (dvlad.numbers.bundle)
REVERSE = Kind("reverse")     # tape cells (dvlad.numbers.tape)
TAYLOR = Kind("taylor")       # Taylor towers (dvlad.numbers.tower)

# next() on itertools.count is atomic under the GIL: two threads never share a tag number.
_counter = itertools.count(1)


class Tag:
    """One perturbation ε<n>: made fresh by each call of a derivative operator."""

    # n: its place in creation order; kind: FORWARD (bundles), REVERSE (tape cells) or TAYLOR
    # (towers); live: False once the call that made it has returned (or while suspended);
    # tape: REVERSE only, the list of cells while the call is taping; origin: the operator's
    # name, for messages; owner: {thread: suspensions} while threads have suspended it.
    __slots__ = ("n", "kind", "live", "tape", "origin", "owner")

    def __repr__(self):
        return f"ε{self.n}"

    @property
    def made_by(self):
        """Which call made this tag, for error messages: "the derivative call started at
        app.py:12 (`D(f)(1.0)`), differentiating f (app.py:3)".  Found on the stack while the
        call runs (nothing is recorded when a tag is made: that is every derivative call's
        cost); else its name only."""
        return _maker(self)


def new_tag(kind, origin):
    """A fresh tag, newer than every tag made before it in this process."""
    tag = Tag()    # no __init__: cheaper, and tags are made on every derivative call
    tag.n, tag.kind, tag.live, tag.tape, tag.origin = next(_counter), kind, True, None, origin
    tag.owner = None
    return tag


def _maker(tag):
    """The call that made live ``tag``: the outermost frame of dvlad's engine holding it as its
    local ``tag`` is the operator's (its local ``f``, the function), and the first frame
    outside the engine above that is the caller's."""
    frame, maker = sys._getframe(1), None
    while frame is not None:
        if _in_engine(frame) and frame.f_locals.get("tag") is tag:
            maker = frame
        frame = frame.f_back
    what = f"the {tag.origin} call"
    if maker is None:
        return what
    f = maker.f_locals.get("f")
    frame = maker.f_back
    while frame is not None and _in_engine(frame):
        frame = frame.f_back
    if frame is not None:
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
        line = line.split("  #")[0].strip()            # (without an inline comment)
        what += f" started at {_short(frame.f_code.co_filename)}:{frame.f_lineno}"
        what += f" (`{line}`)" if line else ""
    code = getattr(f, "__code__", None)
    if code is not None and not code.co_filename.startswith(_ENGINE):
        what += f", differentiating {getattr(f, '__qualname__', code.co_name)} " \
                f"({_short(code.co_filename)}:{code.co_firstlineno})"
    return what


_ENGINE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep   # dvlad/


def _in_engine(frame):
    """Is frame dvlad's own machinery (not the tour, not generated or user code)?"""
    name = frame.f_globals.get("__name__", "")
    return name.startswith("dvlad.") and not name.startswith("dvlad.teaching")


def _short(path):
    """path relative to the working directory when it is below it, else its file name."""
    here = os.getcwd() + os.sep
    return path[len(here):] if path.startswith(here) else os.path.basename(path)


def alive(tag):
    """Is tag's perturbation on for the calling thread?  The hot paths read ``tag.live`` and
    come here only when it is False: a tag that other threads have suspended, but not this one,
    is still live here."""
    owners = tag.owner
    return tag.live or (owners is not None and threading.get_ident() not in owners)


def newer(a, b):
    """The newer of two tags (either may be None, meaning 'no perturbation'); a if they are one."""
    if a is None:
        return b
    if b is None or a.n >= b.n:
        return a
    return b


class suspended:
    """Within the block, tag's perturbation is switched off for this thread: its values act as
    their primals.  Other threads still see it live (see :func:`alive`), and several threads
    may suspend one tag at once (each fixed point inside one derivative, on threads of its
    own): ``tag.owner`` counts the suspensions of each thread, and the tag is live again when
    the last one ends.

    Used to compute the primal of something whose inputs carry ``tag`` without recording on its
    tape or building its bundles (fixed points iterate this way).  Restored even on exceptions.
    """

    __slots__ = ("tag",)

    def __init__(self, tag):
        self.tag = tag

    def __enter__(self):
        me = threading.get_ident()
        with _SUSPENSIONS:
            owners = self.tag.owner
            if owners is None:
                owners = self.tag.owner = {}
            owners[me] = owners.get(me, 0) + 1
            self.tag.live = False       # (after the owner: a thread that sees it off sees who)

    def __exit__(self, *exc):
        me = threading.get_ident()
        with _SUSPENSIONS:
            owners = self.tag.owner
            if owners[me] > 1:
                owners[me] -= 1
            else:
                del owners[me]
            if not owners:
                self.tag.live = True
                self.tag.owner = None


_SUSPENSIONS = threading.Lock()


class DvladError(Exception):
    """Base class of dvlad's own errors."""


class PerturbedConversionError(DvladError, TypeError):
    """A number carrying a live perturbation was converted to a plain number (``float(x)``,
    ``math.sin(x)``, a store into a float array), which would drop its derivative silently.

    The message names the perturbation (``ε<n>``), the derivative call that made it and is still
    running (:attr:`Tag.made_by`), and what to do: use dvlad's functions instead of ``math.*``,
    build arrays with ``np.array([...])``, or strip it on purpose with ``dvlad.primal(x)``.
    """


class NotDifferentiableError(DvladError, TypeError):
    """An operator got a value it cannot differentiate: the message names what it got."""


class AssignmentError(DvladError, TypeError):
    """An assignment dvlad cannot follow: a dvlad number into a float array (its derivative would
    be dropped), into a read-only ``np.asarray`` of one, or into an array that shares memory with
    another.  The message shows the way that works."""


class StructureMismatchError(DvladError, ValueError):
    """Two structures that must match (a point and its direction, a result and its cotangent)
    do not: a missing or extra dict key, another length.  Dicts are paired by key."""


class ArgumentError(DvladError, ValueError):
    """An operator's argument is outside what it takes (``max_iter=0``, an unknown mode): the
    message names the argument and what it takes."""


class TagOrderError(DvladError, RuntimeError):
    """A live perturbation turned up where the tag order says it cannot be.

    The rule: an operation is lifted on the *newest* live tag among its arguments, and its value
    and partials are computed one level down, at the arguments' primals, where that tag is gone;
    so a number's layers always have the newest tag outside.  A user primitive (or an ``odeint``
    right-hand side) that reaches the perturbed variable through a closure, not through its
    arguments, breaks it: pass the variable as an argument.  Anything else is a bug in dvlad.
    """


class IntegrationError(DvladError, ArithmeticError):
    """A tangent or adjoint system that ``odeint`` solves for a derivative did not integrate
    (the solver gave up: excess work, tolerances too small).  The message says what to change."""


class FixedPointError(DvladError, ArithmeticError):
    """An iteration did not converge within its cap: the primal, a tangent or an adjoint."""

    def __init__(self, message, iterations, step):
        super().__init__(message)
        self.iterations = iterations
        self.step = step
