"""BENCHMARKS.md §(d): the probabilistic interpreters, backprop and celestial examples, checked.

The examples are imported from examples/ (a path insert); their reference values come from
BENCHMARKS.md.  The 10 000-step backprop runs are marked slow (opt in with --runslow).
"""
import sys
from pathlib import Path

import pytest

import dvlad
from support import close

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import backprop
import celestial
import probabilistic_lambda_calculus as plc

MODES = ["F", "R"]


# ---- probabilistic-lambda-calculus and -prolog --------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("language", sorted(plc.LANGUAGES))
def test_probabilistic_maximum_likelihood(language, mode):
    """1000 steps of 0.1 from (0.5, 0.5) → (0.2500000000000016, 0.33333333349839966)."""
    p = plc.fit(language, mode)
    for got, want in zip(p, plc.EXPECTED):
        close(got, want, rel=0, abs_=1e-12)


@pytest.mark.parametrize("language", sorted(plc.LANGUAGES))
def test_interpreters_compute_the_likelihood_products_exactly(language):
    """l(0) = p0, l(1) = (1−p0)·p1, l(2) = (1−p0)(1−p1) to the bit, and L = l0·(l1·(l2·(l2·1)))."""
    p0, p1 = 0.3, 0.6
    assert plc.LANGUAGES[language]([p0, p1]) == [p0, (1.0 - p0) * p1, (1.0 - p0) * (1.0 - p1),
                                                 (1.0 - p0) * (1.0 - p1)]
    l2 = (1.0 - p0) * (1.0 - p1)
    assert plc.likelihood(plc.LANGUAGES[language])([p0, p1]) == \
        p0 * (((1.0 - p0) * p1) * (l2 * (l2 * 1.0)))


@pytest.mark.parametrize("language", sorted(plc.LANGUAGES))
def test_likelihood_gradient_through_the_interpreter(language):
    """∇L through the interpreter: forward = reverse = the closed form, and check_grads."""
    L = plc.likelihood(plc.LANGUAGES[language])
    p0, p1 = 0.3, 0.6
    # L = p0 (1−p0)³ p1 (1−p1)²
    want = [(1 - 4 * p0) * (1 - p0) ** 2 * p1 * (1 - p1) ** 2,
            p0 * (1 - p0) ** 3 * (1 - p1) * (1 - 3 * p1)]
    for g in (dvlad.gradient_f(L)([p0, p1]), dvlad.gradient_r(L)([p0, p1])):
        for got, w in zip(g, want):
            close(got, w, rel=0, abs_=1e-15)
    dvlad.check_grads(L, [p0, p1], order=2)


def test_lambda_calculus_distributions():
    """Branch products, merging of equal values, 0 kept apart from False, closures as values."""
    E = plc
    coin = E.apply(E.lam("x", ("if", E.var("x"), E.const(1), E.const(2))), ("flip", E.const(0.3)))
    assert E.evaluate(coin, {}) == [(1, 0.3), (2, 0.7)]
    same = ("if", ("flip", E.var("p")), E.const(1), E.const(1))
    assert E.evaluate(same, {"p": 0.25}) == [(1, 0.25 + 0.75)]
    mixed = ("if", ("flip", E.const(0.5)), E.const(0), E.const(False))
    assert E.evaluate(mixed, {}) == [(0, 0.5), (False, 0.5)]
    assert sum(q for _, q in E.evaluate(E.MODEL, {"p0": 0.2, "p1": 0.9})) == pytest.approx(1.0)
    [(f, q)] = E.evaluate(E.lam("y", E.var("y")), {})
    assert isinstance(f, E.Closure) and q == 1.0


def test_prolog_proofs_and_unification():
    """p(X) has three proofs: X = 0, 1, 2 with probabilities p0, (1−p0)p1, (1−p0)(1−p1)."""
    import itertools
    p0, p1 = 0.3, 0.6
    found = plc.proofs(("p", "X"), plc.program([p0, p1]), {}, itertools.count())
    assert [(q, plc.walk("X", s)) for q, s in found] == \
        [(p0, 0), ((1.0 - p0) * p1, 1), ((1.0 - p0) * (1.0 - p1), 2)]
    assert plc.unify(("f", "X", 2), ("f", 1, "Y"), {}) == {"X": 1, "Y": 2}
    assert plc.unify(("f", "X"), ("g", "X"), {}) is None
    assert plc.unify("X", ("f", "X"), {}) is None            # the occurs check


@pytest.mark.parametrize("mode", MODES)
def test_probabilistic_example_main(mode, capsys):
    assert plc.main(["--mode", mode, "--language", "lambda"]) == 0
    assert "ok" in capsys.readouterr().out


# ---- backprop ------------------------------------------------------------------------------

def test_backprop_error_before_training():
    close(backprop.error(backprop.WEIGHTS0), 1.0305292271375865, rel=0, abs_=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_backprop_one_step(mode):
    """One step of w ← w − 0.3·∇error(w): error 1.0129691898501352."""
    close(backprop.error(backprop.train(1, mode)), 1.0129691898501352, rel=0, abs_=1e-12)


def test_backprop_gradient_has_the_weights_structure_and_modes_agree():
    w = backprop.WEIGHTS0
    gr = dvlad.gradient_r(backprop.error)(w)
    gf = dvlad.gradient_f(backprop.error)(w)
    assert [[len(n) for n in layer] for layer in gr] == [[3, 3], [3]]
    for lr, lf in zip(gr, gf):
        for nr, nf in zip(lr, lf):
            for a, b in zip(nr, nf):
                close(a, b, rel=0, abs_=1e-15)
    dvlad.check_grads(backprop.error, w, order=1)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_backprop_ten_thousand_steps(mode):
    """10 000 steps: error 0.5012553500846674 (R ~1.5 s, F ~11 s)."""
    close(backprop.error(backprop.train(10000, mode)), 0.5012553500846674, rel=0,
          abs_=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_backprop_example_main(mode, capsys):
    assert backprop.main(["--mode", mode, "--steps", "3"]) == 0
    assert "error after 3 steps" in capsys.readouterr().out


# ---- celestial -----------------------------------------------------------------------------

def test_celestial_forces_forward_reverse_and_newton_agree():
    """−∇V by gradient_f and by gradient_r equal Newton's Σ G mᵢmⱼ (pⱼ−pᵢ)/‖pⱼ−pᵢ‖³."""
    m, p = celestial.MASSES, celestial.POSITIONS0
    by_f = celestial.forces(m, p, "F")
    by_r = celestial.forces(m, p, "R")
    by_hand = celestial.newtonian_forces(m, p)
    for ff, fr, fh in zip(by_f, by_r, by_hand):
        for a, b, c in zip(ff, fr, fh):
            close(a, c, rel=1e-14)
            close(b, c, rel=1e-14)
    # Newton's third law: the forces sum to zero.
    for k in range(3):
        assert abs(sum(f[k] for f in by_f)) <= 1e-15 * max(abs(f[k]) for f in by_f)


def test_celestial_energy_drift():
    """100 RK4 steps of 10 days (gradient_f forces): relative energy drift ≈ 1.09e-10."""
    m = celestial.MASSES
    e0 = celestial.energy(m, celestial.POSITIONS0, celestial.VELOCITIES0)
    e1 = celestial.energy(m, *celestial.simulate(100, 10.0, "F"))
    drift = abs(e1 - e0) / abs(e0)
    assert 1e-12 < drift < celestial.DRIFT_BOUND, drift


def test_celestial_reverse_mode_trajectory_matches_forward():
    f_state = celestial.simulate(10, 10.0, "F")
    r_state = celestial.simulate(10, 10.0, "R")
    for fs, rs in zip(f_state, r_state):
        for fb, rb in zip(fs, rs):
            for a, b in zip(fb, rb):
                close(b, a, rel=1e-13, floor=1.0)     # reverse against forward


def test_celestial_example_main(capsys):
    assert celestial.main(["--mode", "R", "--steps", "5"]) == 0
    assert "relative drift" in capsys.readouterr().out
