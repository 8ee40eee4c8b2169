"""Issue #19: errors met while learning teach.  PerturbedConversionError names the perturbation
that would be dropped, the derivative call that made it (operator, call site, function), and what
to do; TagOrderError states the rule it enforces."""
import math
import pickle
import re

import numpy as np
import pytest

import dvlad
from dvlad.core.tags import FORWARD, new_tag

D = dvlad.derivative
R = dvlad.gradient_r


def _here():
    """This file's name as the messages print it (relative to the working directory)."""
    return re.escape(__file__.rpartition("/")[2])


def squash(text):
    return " ".join(text.split())


def test_conversion_error_names_the_tag_its_maker_and_the_fix():
    tags = []

    def f(x):
        tags.append(x.tag)
        return math.sin(x)

    with pytest.raises(dvlad.PerturbedConversionError) as info:
        D(f)(1.0)                                     # the call site the message points at
    message = str(info.value)
    (tag,) = tags
    assert f"perturbation {tag!r} would silently drop its derivative" in message
    assert re.search(rf"{tag!r} was made by the derivative call started at .*{_here()}:\d+ "
                     r"\(`D\(f\)\(1\.0\)`\), differentiating "
                     r"test_conversion_error_names_the_tag_its_maker_and_the_fix\.<locals>\.f ",
                     message), message
    assert "still running" in message
    assert "dvlad.sin" in message and "dvlad.primal(x)" in message


@pytest.mark.parametrize("op, name", [(D, "derivative"), (R, "gradient_r"),
                                      (dvlad.gradient_f, "gradient_f")])
def test_conversion_error_names_each_operator(op, name):
    tags = []

    def g(p):
        tags.append(p[0].tag if isinstance(p, list) else p.tag)
        return float(p[0] if isinstance(p, list) else p)

    with pytest.raises(dvlad.PerturbedConversionError) as info:
        op(g)([2.0] if op is not D else 2.0)
    assert f"{tags[0]!r} was made by the {name} call started at" in str(info.value)


def test_nested_conversion_names_the_inner_tag_not_the_outer():
    """Inside D(x ↦ R(y ↦ float(x·y))), x·y carries both tags; the newest, R's, is named."""
    seen = []

    def inner(y, x):
        seen.append(y.tag)
        return float(x * y)

    with pytest.raises(dvlad.PerturbedConversionError) as info:
        D(lambda x: R(lambda y: inner(y, x))(1.0))(2.0)
    assert f"{seen[0]!r} was made by the gradient_r call" in str(info.value)


def test_numpy_conversion_and_pickling_name_the_maker():
    with pytest.raises(dvlad.PerturbedConversionError) as info:
        R(lambda v: np.sum(np.asarray(v, dtype=float)))(np.ones(2))
    assert re.search(r"perturbation ε\d+ \(made by the gradient_r call started at .*"
                     + _here() + r":\d+", str(info.value)), str(info.value)
    with pytest.raises(dvlad.PerturbedConversionError) as info:
        D(lambda x: len(pickle.dumps(x)) * x)(1.0)
    assert re.search(r"pickling a number carrying perturbation ε\d+ \(made by the derivative "
                     r"call started at", str(info.value)), str(info.value)


def test_made_by_of_a_tag_whose_call_is_not_on_the_stack_is_its_operator():
    tag = new_tag(FORWARD, "derivative")
    assert tag.made_by == "the derivative call"
    kept = []
    D(lambda x: kept.append(x) or x)(1.0)
    assert kept[0].tag.made_by == "the derivative call"            # returned: not on the stack


def test_tag_order_error_states_the_rule():
    def closes(a):                    # the primitive closes over a, the variable being perturbed
        return dvlad.primitive(lambda x: x * a, lambda x: (a,))(a)

    with pytest.raises(dvlad.TagOrderError) as info:
        D(closes)(3.0)
    message = squash(str(info.value))
    assert "lifted on the newest tag among its arguments" in message
    assert "computed at their primals, one level down" in message
    assert re.search(r"uses the perturbation ε\d+ \(made by the derivative call started at",
                     message), message
    assert "pass that variable as an argument" in message
    doc = squash(dvlad.TagOrderError.__doc__)
    assert "lifted on the *newest* live tag" in doc and "newest tag outside" in doc
