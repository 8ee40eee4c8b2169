"""Forward mode: the bundle (tag, primal, tangent), and taking tangents and primals out of values.

A bundle for tag ε is primal + tangent·ε with ε² = 0.  Its primal and tangent carry only tags
older than ε, so a value's layers are ordered newest outermost.
"""
import numpy as np

from ..core.number import ADNumber
from ..core.tags import TagOrderError, alive, newer
from .tower import Tower, make_tower


class Bundle(ADNumber):
    """primal + tangent·ε for the forward perturbation ``tag``."""

    # No __init__: Bundle() then three slot stores is the cheapest way CPython 3.11 builds one
    # (measured ~56 ns against ~120 ns through __init__); see make_bundle.
    __slots__ = ("tag", "primal", "tangent")

    def __repr__(self):
        return f"Bundle({self.tag!r}, {self.primal!r}, {self.tangent!r})"


def make_bundle(tag, primal, tangent):
    """Bundle(tag, primal, tangent): primal + tangent·ε."""
    b = Bundle()
    b.tag, b.primal, b.tangent = tag, primal, tangent
    return b


def tangent_of(v, tag, zero):
    """The coefficient of ε=tag in number v (``zero`` if v does not depend on it).

    Extraction descends: a newer live layer t is kept, tangent(Bundle(t, p, q)) =
    Bundle(t, tangent(p), tangent(q)), rather than read as 'no ε here'.
    """
    while isinstance(v, ADNumber):
        vt = v.tag
        if vt is tag:
            return v.tangent
        if not vt.live and not alive(vt):
            v = v.primal
            continue
        if newer(vt, tag) is tag:
            return zero
        if type(v) is not Bundle:
            return _through_tower(v, vt, tag, lambda c: tangent_of(c, tag, zero))
        p, q = tangent_of(v.primal, tag, zero), tangent_of(v.tangent, tag, zero)
        return p if q is zero else make_bundle(vt, p, q)
    return zero


def _through_tower(v, vt, tag, inner):
    """Extraction for ``tag`` through a newer live layer that is not a bundle: a Taylor tower
    (made of ``inner`` of each coefficient), else a TagOrderError."""
    if type(v) is not Tower:
        raise TagOrderError(f"a live tape cell of the newer {vt!r} reached the result of "
                            f"{tag!r}; please report this as a dvlad bug")
    return make_tower(vt, [inner(c) for c in v.coeffs])


def primal_of(v, tag):
    """Number v with the perturbation ``tag`` (and dead layers) removed."""
    while isinstance(v, ADNumber):
        vt = v.tag
        if vt is tag or (not vt.live and not alive(vt)):
            v = v.primal
            continue
        if newer(vt, tag) is tag:
            return v
        if type(v) is not Bundle:
            return _through_tower(v, vt, tag, lambda c: primal_of(c, tag))
        return make_bundle(vt, primal_of(v.primal, tag), primal_of(v.tangent, tag))
    return v


def plain_bundle(v):
    """A bundle one layer deep over plain arrays (the sensitivities of an HVP)."""
    return (type(v) is Bundle and type(v.primal) is np.ndarray
            and type(v.tangent) is np.ndarray)
