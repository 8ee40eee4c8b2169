"""gradient_f and gradient_r at a plain list or tuple of scalars skip the structure walk: they
must agree exactly with the general path (taken here by a list subclass), keep the container
type, and raise the same named errors."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dvlad
from dvlad import NotDifferentiableError


class Vector(list):
    """A list subclass: same values, but the general (structure-walking) path."""


def f(p):
    return dvlad.exp(p[0] * p[1]) / (1.0 + p[1] * p[1]) - dvlad.sin(p[0])


GRADIENTS = {"f": dvlad.gradient_f, "r": dvlad.gradient_r}
finite = st.floats(-2.0, 2.0)


@pytest.mark.parametrize("mode", GRADIENTS)
@given(a=finite, b=finite)
def test_fast_path_equals_general_path(mode, a, b):
    grad = GRADIENTS[mode](f)
    fast, general = grad([a, b]), grad(Vector([a, b]))
    assert type(fast) is list and type(general) is Vector
    assert fast == list(general)
    assert grad((a, b)) == tuple(fast)


@pytest.mark.parametrize("outer", GRADIENTS)
@pytest.mark.parametrize("inner", GRADIENTS)
def test_nested_fast_paths_give_the_hessian(outer, inner):
    """Hessian of 2x² + 3xy + 4y² (README): [[4, 3], [3, 8]], in all four nestings."""
    g = lambda p: 2 * p[0] ** 2 + 3 * p[0] * p[1] + 4 * p[1] ** 2
    rows = [GRADIENTS[outer](lambda q, k=k: GRADIENTS[inner](g)(q)[k])([3.0, 4.0])
            for k in range(2)]
    assert rows == [[4.0, 3.0], [3.0, 8.0]]


@pytest.mark.parametrize("mode", GRADIENTS)
def test_constant_function_has_zero_gradient(mode):
    assert GRADIENTS[mode](lambda p: 7.0)([1.0, 2.0]) == [0.0, 0.0]


@pytest.mark.parametrize("mode", GRADIENTS)
@pytest.mark.parametrize("value", [lambda p: p[0] > p[1],
                                   lambda p: dvlad.arrays.stack([p[0], p[1]])],
                         ids=["bool", "array"])
def test_non_scalar_value_is_a_named_error(mode, value):
    with pytest.raises(NotDifferentiableError, match="must be"):
        GRADIENTS[mode](value)([1.0, 2.0])


def test_mixed_leaves_take_the_general_path():
    """An int or a numpy scalar among the leaves: same answer as all floats."""
    grad = dvlad.gradient_r(lambda p: p[0] * p[1])
    assert grad([2, 3.0]) == [3.0, 2.0]
    assert grad([np.float64(2.0), 3.0]) == [3.0, 2.0]
