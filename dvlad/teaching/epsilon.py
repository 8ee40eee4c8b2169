"""Forward-mode numbers written out as sums over their perturbations: 2 + ε5 + ε6.

A bundle ``Bundle(ε6, p, t)`` stands for p + t·ε6, and p and t may be bundles of older tags, so
a number that several derivative calls perturb is a polynomial in their ε's in which each ε
appears at most once per term (ε² = 0).  ``epsilons(v)`` multiplies it out; the untagged duals of
:mod:`dvlad.naive` have one ε, printed without a number.  In Jupyter the result shows with
subscripts (``_repr_html_``): this is the notebook display of bundles (dvlad.numbers' classes
keep their plain reprs).

>>> import dvlad
>>> kept = []
>>> inner = lambda x: dvlad.derivative(lambda y: kept.append(x + y) or x + y)(1.0)
>>> dvlad.derivative(lambda x: x * inner(x))(1.0)       # the 2005 example: 1
1.0
>>> s = epsilons(kept[0])                                # (1 + ε_outer) + (1 + ε_inner)
>>> str(s).replace(repr(kept[0].tag), "εB").replace(repr(kept[0].primal.tag), "εA")
'2 + εA + εB'
>>> str(epsilons(dvlad.naive.Dual(2.0, 2.0)))
'2 + 2ε'
"""
from html import escape

from ..numbers.bundle import Bundle
from .naive import Dual

__all__ = ["epsilons", "EpsilonSum"]


def _terms(v, into, factor):
    """Add v·factor to ``into``: {(tag number, ...) newest first: coefficient}; the untagged ε
    of dvlad.naive is numbered 0."""
    if isinstance(v, Bundle):      # (np.asarray's pending elements too: reading one settles it)
        _terms(v.primal, into, factor)
        _terms(v.tangent, into, factor + (v.tag.n,))
    elif type(v) is Dual:
        _terms(v.primal, into, factor)
        _terms(v.tangent, into, factor + (0,))
    else:
        key = tuple(sorted(factor, reverse=True))
        into[key] = into[key] + v if key in into else v


def _number(c):
    """2.0 as 2, 0.5 as 0.5, anything else by its repr."""
    if isinstance(c, float) and c.is_integer() and abs(c) < 1e15:
        return str(int(c))
    return repr(c)


class EpsilonSum:
    """A number as a sum of terms coefficient·ε..., constant term first, then by tag.

    ``terms``: {tuple of tag numbers (0: naive's ε): coefficient}.  ``str()`` is plain text
    (``2 + ε5 + ε6``); Jupyter shows subscripts.
    """

    __slots__ = ("terms",)

    def __init__(self, terms):
        self.terms = terms

    def coefficient(self, *tags):
        """The coefficient of the product of these tags' ε's (a Tag, or 0 for naive's ε)."""
        key = tuple(sorted((t if isinstance(t, int) else t.n for t in tags), reverse=True))
        return self.terms.get(key, 0.0)

    def _parts(self, eps):
        keys = sorted(self.terms, key=lambda k: (len(k), sorted(k)))
        out = []
        for key in keys:
            c = self.terms[key]
            if key and _is_zero(c):
                continue
            unit = "·".join(eps(n) for n in reversed(key))
            text = _number(c)
            if key:
                text = unit if text == "1" else f"-{unit}" if text == "-1" else f"{text}{unit}"
            out.append(text)
        return out or ["0"]

    def _join(self, parts):
        text = parts[0]
        for p in parts[1:]:
            text += f" - {p[1:]}" if p.startswith("-") else f" + {p}"
        return text

    def __str__(self):
        return self._join(self._parts(lambda n: f"ε{n}" if n else "ε"))

    def __repr__(self):
        return f"EpsilonSum({self})"

    def _repr_html_(self):
        return self._join(self._parts(lambda n: f"ε<sub>{n}</sub>" if n else "ε")) \
            if all(_plain(c) for c in self.terms.values()) else escape(str(self))


def _is_zero(c):
    try:
        return bool(c == 0)
    except (TypeError, ValueError):         # an array: zero only if every entry is
        return False


def _plain(c):
    return isinstance(c, (int, float))


def epsilons(v):
    """v (a bundle, possibly nested, or a naive Dual, or a plain number) as an
    :class:`EpsilonSum`: its primal plus one term per product of perturbations.

    >>> import dvlad
    >>> str(epsilons(dvlad.naive.Dual(1.0, 1.0) * dvlad.naive.Dual(2.0, 1.0)))  # one ε: 2 + 3ε
    '2 + 3ε'
    """
    terms = {}
    _terms(v, terms, ())
    return EpsilonSum(terms)
