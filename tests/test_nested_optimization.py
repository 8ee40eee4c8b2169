"""BENCHMARKS.md (d): the saddle and particle programs of Siskind & Pearlmutter's examples2009
(examples/nested_optimization.py) in every mode XY, and their hand-coded versions.

Both nest one gradient inside another, so perturbation confusion would show: in saddle FF an
untagged ε on (x1, y1) would leak into the inner gradient over (x2, y2) and move its optimum;
particle needs the inner gradient ∇p to carry the outer perturbation of w.

Every particle mode takes 3–5 s here, so those tests are marked slow (--runslow); the default
suite still checks particle in its fastest mode, through test_examples running particle.py and
nested_optimization.py, which exit non-zero on a wrong value.
"""
import doctest
import functools
import sys
from pathlib import Path

import pytest

import dvlad

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import nested_optimization as no

SADDLE = no.SADDLE_EXPECTED          # 8.246324826140356e-06, every coordinate
PARTICLE = no.PARTICLE_EXPECTED      # 0.207191874648612


@functools.cache
def saddle(mode):
    return no.saddle(no.DVLAD, mode)


@functools.cache
def particle(mode):
    return no.particle(no.DVLAD, mode)


def assert_saddle(result):
    assert type(result) is tuple and len(result) == 2
    for pair in result:
        assert type(pair) is tuple and len(pair) == 2
        for c in pair:
            assert type(c) is float
            assert c == pytest.approx(SADDLE, rel=1e-9, abs=0)


def test_dvlad_gradients_keep_lists():
    """The System contract: a list in, a list out, in both modes."""
    def f(p):
        return p[0] * p[1]
    assert dvlad.gradient_f(f)([2.0, 3.0]) == [3.0, 2.0]
    assert dvlad.gradient_r(f)([2.0, 3.0]) == [3.0, 2.0]
    assert type(dvlad.gradient_f(f)([2.0, 3.0])) is list
    assert type(dvlad.gradient_r(f)([2.0, 3.0])) is list


def test_module_doctests():
    failed, _ = doctest.testmod(no)
    assert failed == 0


@pytest.mark.parametrize("mode", no.MODES)
def test_saddle(mode):
    assert_saddle(saddle(mode))


def test_saddle_hand():
    assert_saddle(no.saddle_hand())


def test_saddle_modes_agree():
    """x2* never depends on (x1, y1) and the inner gradient (2x2, 2y2) is exact in every mode, so
    every mode walks the same path: the results agree to the last bit, with the hand-coded one."""
    results = {mode: saddle(mode) for mode in no.MODES}
    results["hand"] = no.saddle_hand()
    assert len(set(results.values())) == 1, results


@pytest.mark.slow
@pytest.mark.parametrize("mode", no.MODES)
def test_particle(mode):
    w = particle(mode)
    assert type(w) is float
    assert w == pytest.approx(PARTICLE, abs=1e-9)


def test_particle_hand():
    w = no.particle_hand()
    assert type(w) is float
    assert w == pytest.approx(PARTICLE, abs=1e-9)


def test_particle_hand_derivative_against_dvlad():
    """The hand-coded d/dw of the particle objective, against dvlad's in every mode, at two w."""
    for w in (0.0, 0.2):
        hand = no.naive_euler_hand_derivative(w)
        assert no.naive_euler_hand(w) == pytest.approx(no.naive_euler(no.DVLAD, "F", w), rel=1e-14)
        for outer, inner in ("FF", "FR", "RF", "RR"):
            def objective(ws, inner=inner):
                return no.naive_euler(no.DVLAD, inner, ws[0])
            grad = no.gradient(no.DVLAD, outer)(objective)
            assert grad([w])[0] == pytest.approx(hand, rel=1e-10), (outer, inner, w)


@pytest.mark.slow
def test_particle_modes_agree():
    results = [particle(mode) for mode in no.MODES] + [no.particle_hand()]
    assert max(results) - min(results) <= 1e-12, results


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="FF, FR, RF, RR"):
        no.saddle(no.DVLAD, "FX")
