"""Partials that are linear maps (issue #5's array primitives) in the sweep and in forward mode.

No scalar rule makes a map yet, so these tests build a cell by hand, as an array rule will: the
sweep must apply Jᵀ instead of multiplying, and must do it with dvlad's operations so that an outer
perturbation flows through (forward over reverse).
"""
import numpy as np

import dvlad
from dvlad.numbers.bundle import make_bundle, tangent_of
from dvlad.core.tags import FORWARD, REVERSE, new_tag
from dvlad.modes.sweep import sweep
from dvlad.numbers.tape import LinearMap, make_cell


class Matrix(LinearMap):
    """J = a fixed matrix acting on arrays."""

    def __init__(self, a):
        self.a = np.asarray(a, dtype=float)

    def forward(self, t):
        return self.a @ t

    def backward(self, s):
        return self.a.T @ s


class Scale(LinearMap):
    """J = c·I, written with dvlad's operations so that c may carry a perturbation."""

    def __init__(self, c):
        self.c = c

    def forward(self, t):
        return self.c * t

    def backward(self, s):
        return s * self.c


def test_sweep_applies_the_transpose_of_a_map_partial():
    tag = new_tag(REVERSE, "test")
    tag.tape = tape = []
    x = make_cell(tag, np.array([1.0, 2.0]), ())
    a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    y = make_cell(tag, np.asarray(a) @ x.primal, (x, Matrix(a)))
    sens = sweep(tape, [(y, np.array([1.0, 0.0, -1.0]))])
    assert np.array_equal(sens[x.index], np.array([-4.0, -4.0]))    # Jᵀ ȳ


def test_sweep_mixes_map_and_number_partials_on_one_cell():
    tag = new_tag(REVERSE, "test")
    tag.tape = tape = []
    x = make_cell(tag, 2.0, ())
    u = make_cell(tag, 5.0, ())
    y = make_cell(tag, 13.0, (x, Scale(4.0), u, 1.0))             # y = 4x + u, 3 inputs-worth
    z = make_cell(tag, 26.0, (y, 2.0, x, Scale(-1.0), u, 0.5))    # a three-input cell
    sens = sweep(tape, [(z, 1.0)])
    assert sens[x.index] == 2.0 * 4.0 - 1.0
    assert sens[u.index] == 2.0 * 1.0 + 0.5


def test_map_partial_carrying_an_outer_perturbation_nests():
    """d/dc of the reverse sensitivity through J = c·I is the outer tangent: 3·(d c/dc) = 3."""
    def sensitivity(c):
        tag = new_tag(REVERSE, "test")
        tag.tape = tape = []
        x = make_cell(tag, 1.0, ())
        y = make_cell(tag, c * 1.0, (x, Scale(c)))
        return sweep(tape, [(y, 3.0)])[x.index]
    assert dvlad.derivative(sensitivity)(2.0) == 3.0
    assert dvlad.derivative(dvlad.derivative(lambda c: sensitivity(c * c)))(2.0) == 6.0


def test_forward_mode_applies_a_map_partial_to_the_tangent():
    tag = new_tag(FORWARD, "test")
    a = [[1.0, 2.0], [3.0, 4.0]]
    t = np.array([1.0, -1.0])
    b = make_bundle(tag, np.zeros(2), Matrix(a) * t)                # the lift's partial * tangent
    assert np.array_equal(tangent_of(b, tag, 0.0), np.array([-1.0, -1.0]))
