"""The saddle and particle programs of Siskind & Pearlmutter's "examples2009", written once against
an AD system, and the same programs with their derivatives coded by hand.

Source: J. M. Siskind and B. A. Pearlmutter, "Efficient implementation of a higher-order language
with built-in AD", AD 2016 (arXiv:1611.03416), and the benchmark programs of
https://engineering.purdue.edu/~qobi/stalingrad-examples2009/ ; BENCHMARKS.md, section (d), fixes
every detail used here.

An AD system is a :class:`System`: ``gradient_F`` (forward mode, one pass per input) and
``gradient_R`` (one reverse pass), each taking a Python list of scalars and returning a list,
plus ``sqrt`` and ``exp``.  The programs use only these and Python's operators and comparisons
(which must compare primal values), so the same text runs on other AD libraries.  A mode "XY"
names the outer gradient's mode X and the inner one's Y.

multivariate_argmin(f, x): η = 1e-5, i = 0; loop: stop if ‖∇f(x)‖ ≤ 1e-5; if i = 10 then η ← 2η,
    i ← 0; else x' = x − η∇f(x), stop if ‖x − x'‖ ≤ 1e-5, and if f(x') < f(x) accept x' (i ← i+1)
    else η ← η/2, i ← 0.  argmax f = argmin (0 − f), max f = f(argmax f).

saddle: f(x1, y1, x2, y2) = (x1² + y1²) − (x2² + y2²), both players from (1, 1);
    (x1*, y1*) = argmin_{x1,y1} max_{x2,y2} f   (outer gradient X, inner Y),
    (x2*, y2*) = argmax_{x2,y2} f(x1*, y1*, ·)  (mode Y).  Every coordinate: 8.246324826140356e-06.

particle: charges at (10, 10 − w) and (10, 0), potential p(x) = Σ_c 1/‖x − c‖.  From x = (0, 8),
    ẋ = (0.75, 0), Δt = 0.1: ẍ = −∇p(x) (inner mode Y); x_new = x + Δt·ẋ; while x_new.y > 0,
    ẋ ← ẋ + Δt·ẍ, x ← x_new.  Then Δt_f = −x.y/ẋ.y and the objective is ((x + Δt_f·ẋ).x)²;
    w* = argmin over [w] from [0] (outer mode X) = 0.207191874648612.

The hand-coded versions (saddle_hand, particle_hand) run the same loops on plain floats with
derivatives written out: the baselines of BENCHMARKS.md's workload (d).

Run:  python examples/nested_optimization.py     (examples/saddle.py and examples/particle.py
      take --mode XY, --all and --hand)
"""
import math
import sys
import time
import typing

import dvlad


class System(typing.NamedTuple):
    """An AD system as the programs see it: two gradient operators and two functions."""
    name: str
    gradient_F: typing.Callable      # gradient_F(f)(x): list → list, forward mode, a pass per input
    gradient_R: typing.Callable      # gradient_R(f)(x): list → list, one reverse pass
    sqrt: typing.Callable
    exp: typing.Callable


DVLAD = System("dvlad", gradient_F=dvlad.gradient_f, gradient_R=dvlad.gradient_r,
               sqrt=dvlad.sqrt, exp=dvlad.exp)

MODES = ("FF", "FR", "RF", "RR")
SADDLE_EXPECTED = 8.246324826140356e-06      # every coordinate, every mode (BENCHMARKS.md)
PARTICLE_EXPECTED = 0.207191874648612        # ±1e-9, every mode


# ----- vectors: Python lists of scalars ------------------------------------------------------

def v_add(u, v):
    """u + v.

    >>> v_add([1.0, 2.0], [3.0, 4.0])
    [4.0, 6.0]
    """
    return [a + b for a, b in zip(u, v)]


def v_sub(u, v):
    """u − v.

    >>> v_sub([1.0, 2.0], [3.0, 5.0])
    [-2.0, -3.0]
    """
    return [a - b for a, b in zip(u, v)]


def k_times_v(k, v):
    """k·v.

    >>> k_times_v(2.0, [1.0, -3.0])
    [2.0, -6.0]
    """
    return [k * a for a in v]


def sum_right(values):
    """v₀ + (v₁ + (… + v_{n−1})): the right fold of the Scheme programs.

    Their fold ends in ``+ 0.0``; adding 0.0 is exact on these (positive) terms, so it is left out.

    >>> sum_right([1.0, 2.0, 3.0])
    6.0
    """
    total = values[-1]
    for a in reversed(values[:-1]):
        total = a + total
    return total


def magnitude(sqrt, v):
    """‖v‖ = sqrt(Σ v_i²), the sum a right fold.

    >>> magnitude(math.sqrt, [3.0, 4.0])
    5.0
    """
    return sqrt(sum_right([a * a for a in v]))


def distance(sqrt, u, v):
    """‖v − u‖.

    >>> distance(math.sqrt, [1.0, 1.0], [4.0, 5.0])
    5.0
    """
    return magnitude(sqrt, v_sub(v, u))


# ----- the optimizer -------------------------------------------------------------------------

def gradient(system, mode_letter):
    """The system's gradient operator named by "F" (forward) or "R" (reverse)."""
    if mode_letter == "F":
        return system.gradient_F
    if mode_letter == "R":
        return system.gradient_R
    raise ValueError(f"a gradient mode is 'F' or 'R', not {mode_letter!r}")


def argmin_loop(f, grad_f, sqrt, x):
    """argmin f from x by adaptive gradient descent, ∇f given: the loop of BENCHMARKS.md (d).

    Shared by the AD programs and the hand-coded ones, so their control flow is the same.

    >>> argmin_loop(lambda p: p[0] * p[0], lambda p: [2.0 * p[0]], math.sqrt, [1.0])[0] < 1e-5
    True
    """
    fx, gx, eta, i = f(x), grad_f(x), 1e-5, 0
    while True:
        if magnitude(sqrt, gx) <= 1e-5:
            return x
        if i == 10:
            eta, i = 2.0 * eta, 0
            continue
        x_prime = v_sub(x, k_times_v(eta, gx))
        if distance(sqrt, x, x_prime) <= 1e-5:
            return x
        fx_prime = f(x_prime)
        if fx_prime < fx:
            x, fx, gx, i = x_prime, fx_prime, grad_f(x_prime), i + 1
        else:
            eta, i = eta / 2.0, 0


def multivariate_argmin(system, mode_letter, f, x):
    """argmin f from x, ∇f by the system's gradient in mode "F" or "R"."""
    return argmin_loop(f, gradient(system, mode_letter)(f), system.sqrt, x)


def multivariate_argmax(system, mode_letter, f, x):
    """argmax f = argmin (0 − f)."""
    return multivariate_argmin(system, mode_letter, lambda x: 0.0 - f(x), x)


def multivariate_max(system, mode_letter, f, x):
    """max f = f(argmax f)."""
    return f(multivariate_argmax(system, mode_letter, f, x))


def _check_mode(mode):
    if mode not in MODES:
        raise ValueError(f"a mode is one of {', '.join(MODES)} (outer, inner); got {mode!r}")
    return mode[0], mode[1]


# ----- saddle --------------------------------------------------------------------------------

def saddle_f(x1, y1, x2, y2):
    """(x1² + y1²) − (x2² + y2²)."""
    return (x1 * x1 + y1 * y1) - (x2 * x2 + y2 * y2)


def saddle(system, mode, start=(1.0, 1.0)):
    """((x1*, y1*), (x2*, y2*)), the saddle point of saddle_f; mode = outer + inner gradient mode;
    both players start from ``start``.

    >>> saddle(DVLAD, "RR")[0][0]          # doctest: +SKIP
    8.246324826140356e-06
    """
    outer, inner = _check_mode(mode)
    start = list(start)

    def max_over_player_2(p1):
        return multivariate_max(system, inner, lambda p2: saddle_f(p1[0], p1[1], p2[0], p2[1]),
                                start)
    x1, y1 = multivariate_argmin(system, outer, max_over_player_2, start)
    x2, y2 = multivariate_argmax(system, inner, lambda p2: saddle_f(x1, y1, p2[0], p2[1]), start)
    return (float(x1), float(y1)), (float(x2), float(y2))


def saddle_hand():
    """saddle by hand: ∇_{x2,y2}(0 − f) = (2x2, 2y2); the inner optimum does not depend on (x1, y1),
    so the outer gradient is ∂f/∂(x1, y1) = (2x1, 2y1), taken after the same inner loop runs.

    >>> saddle_hand()[1][1]
    8.246324826140356e-06
    """
    start = [1.0, 1.0]
    sqrt = math.sqrt

    def argmax_player_2(x1, y1):
        return argmin_loop(lambda p2: 0.0 - saddle_f(x1, y1, p2[0], p2[1]),
                           lambda p2: [2.0 * p2[0], 2.0 * p2[1]], sqrt, start)

    def max_over_player_2(p1):
        x2, y2 = argmax_player_2(p1[0], p1[1])
        return saddle_f(p1[0], p1[1], x2, y2)

    def gradient_max_over_player_2(p1):
        argmax_player_2(p1[0], p1[1])         # the AD programs differentiate through this loop
        return [2.0 * p1[0], 2.0 * p1[1]]

    x1, y1 = argmin_loop(max_over_player_2, gradient_max_over_player_2, sqrt, start)
    x2, y2 = argmax_player_2(x1, y1)
    return (x1, y1), (x2, y2)


# ----- particle ------------------------------------------------------------------------------

def naive_euler(system, inner, w):
    """((x + Δt_f·ẋ).x)² where the particle, repelled by charges at (10, 10 − w) and (10, 0),
    crosses y = 0; ẍ = −∇p(x) by the gradient of mode ``inner``."""
    charges = [[10.0, 10.0 - w], [10.0, 0.0]]
    sqrt = system.sqrt

    def p(x):
        return sum_right([1.0 / distance(sqrt, x, c) for c in charges])

    grad_p = gradient(system, inner)(p)
    x, x_dot, delta_t = [0.0, 8.0], [0.75, 0.0], 0.1
    while True:
        x_ddot = k_times_v(-1.0, grad_p(x))
        x_new = v_add(x, k_times_v(delta_t, x_dot))
        if x_new[1] > 0.0:
            x, x_dot = x_new, v_add(x_dot, k_times_v(delta_t, x_ddot))
        else:
            delta_t_f = -x[1] / x_dot[1]
            x_t_f = v_add(x, k_times_v(delta_t_f, x_dot))
            return x_t_f[0] * x_t_f[0]


def particle(system, mode, w0=0.0):
    """w*, the charge offset that lands the particle at x = 0: outer gradient mode[0] over w
    (from w0), inner mode[1] for ∇p.

    >>> particle(DVLAD, "FF")              # doctest: +SKIP
    0.20719187464861175
    """
    outer, inner = _check_mode(mode)
    [w] = multivariate_argmin(system, outer, lambda ws: naive_euler(system, inner, ws[0]), [w0])
    return float(w)


def _acceleration(x, w):
    """ẍ = −∇p(x) = Σ_c (x − c)/‖x − c‖³, by hand."""
    a0 = a1 = 0.0
    for c0, c1 in ((10.0, 10.0 - w), (10.0, 0.0)):
        r0, r1 = x[0] - c0, x[1] - c1
        d = math.sqrt(r0 * r0 + r1 * r1)
        d3 = d * d * d
        a0, a1 = a0 + r0 / d3, a1 + r1 / d3
    return a0, a1


def _acceleration_and_tangent(x, dx, w):
    """ẍ and dẍ/dw, by hand: with r = x − c, d(r/‖r‖³) = dr/‖r‖³ − 3r(r·dr)/‖r‖⁵, where
    dr = dx/dw − dc/dw and dc/dw = (0, −1) for the first charge, 0 for the second."""
    a0 = a1 = da0 = da1 = 0.0
    for c0, c1, dc1 in ((10.0, 10.0 - w, -1.0), (10.0, 0.0, 0.0)):
        r0, r1 = x[0] - c0, x[1] - c1
        dr0, dr1 = dx[0], dx[1] - dc1
        d2 = r0 * r0 + r1 * r1
        d = math.sqrt(d2)
        d3 = d2 * d
        k = 3.0 * (r0 * dr0 + r1 * dr1) / (d3 * d2)
        a0, a1 = a0 + r0 / d3, a1 + r1 / d3
        da0, da1 = da0 + dr0 / d3 - k * r0, da1 + dr1 / d3 - k * r1
    return (a0, a1), (da0, da1)


def naive_euler_hand(w):
    """naive_euler on floats, ∇p by hand."""
    x0, x1, v0, v1, dt = 0.0, 8.0, 0.75, 0.0, 0.1
    while True:
        a0, a1 = _acceleration((x0, x1), w)
        n0, n1 = x0 + dt * v0, x1 + dt * v1
        if n1 > 0.0:
            x0, x1, v0, v1 = n0, n1, v0 + dt * a0, v1 + dt * a1
        else:
            t_f = -x1 / v1
            end = x0 + t_f * v0
            return end * end


def naive_euler_hand_derivative(w):
    """d/dw naive_euler by forward mode by hand: dx/dw and dẋ/dw carried through the loop, and
    dΔt_f/dw = (−(dx.y/dw)·ẋ.y + x.y·dẋ.y/dw)/ẋ.y² in the objective."""
    x0, x1, v0, v1, dt = 0.0, 8.0, 0.75, 0.0, 0.1
    dx0 = dx1 = dv0 = dv1 = 0.0
    while True:
        (a0, a1), (da0, da1) = _acceleration_and_tangent((x0, x1), (dx0, dx1), w)
        n0, n1 = x0 + dt * v0, x1 + dt * v1
        if n1 > 0.0:
            x0, x1, dx0, dx1 = n0, n1, dx0 + dt * dv0, dx1 + dt * dv1
            v0, v1, dv0, dv1 = v0 + dt * a0, v1 + dt * a1, dv0 + dt * da0, dv1 + dt * da1
        else:
            t_f = -x1 / v1
            dt_f = (-dx1 * v1 + x1 * dv1) / (v1 * v1)
            end = x0 + t_f * v0
            return 2.0 * end * (dx0 + dt_f * v0 + t_f * dv0)


def particle_hand():
    """particle with every derivative by hand (one forward pass, as mode F would).

    >>> abs(particle_hand() - PARTICLE_EXPECTED) < 1e-9
    True
    """
    [w] = argmin_loop(lambda ws: naive_euler_hand(ws[0]),
                      lambda ws: [naive_euler_hand_derivative(ws[0])], math.sqrt, [0.0])
    return w


# ----- running -------------------------------------------------------------------------------

def saddle_ok(result):
    """Every coordinate within 1e-9 relative of BENCHMARKS.md's value."""
    return all(abs(c - SADDLE_EXPECTED) <= 1e-9 * SADDLE_EXPECTED for pair in result for c in pair)


def particle_ok(w):
    """Within 1e-9 of BENCHMARKS.md's value."""
    return abs(w - PARTICLE_EXPECTED) <= 1e-9


def timed(thunk):
    """(thunk(), seconds)."""
    start = time.perf_counter()
    value = thunk()
    return value, time.perf_counter() - start


def run_command_line(program, argv=None):
    """The command line of examples/saddle.py and particle.py: ``--mode XY``, ``--all``, ``--hand``.

    ``program`` is "saddle" or "particle".  Prints each result and its time; returns the exit
    status, 1 if a value is off.
    """
    import argparse
    run, hand, ok, fastest = PROGRAMS[program]
    parser = argparse.ArgumentParser(prog=f"{program}.py", description=(
        f"{program} from examples2009 with dvlad: X = outer gradient mode, Y = inner."))
    parser.add_argument("--mode", choices=MODES, default=fastest,
                        help=f"XY gradient modes (default {fastest}, the fastest)")
    parser.add_argument("--all", action="store_true", help="every mode, and the hand-coded one")
    parser.add_argument("--hand", action="store_true", help="the hand-coded derivatives only")
    args = parser.parse_args(argv)
    runs = []
    if args.hand or args.all:
        runs.append(("hand", hand))
    if not args.hand:
        for mode in (MODES if args.all else (args.mode,)):
            runs.append((mode, lambda mode=mode: run(DVLAD, mode)))
    status, hand_seconds = 0, None
    for name, thunk in runs:
        value, seconds = timed(thunk)
        if name == "hand":
            hand_seconds = seconds
        ratio = f"  ({seconds / hand_seconds:.0f}x hand)" if hand_seconds and name != "hand" else ""
        verdict = "" if ok(value) else "   WRONG"
        print(f"{program} {name:>4}: {value}   {seconds:.3f} s{ratio}{verdict}")
        status = status or (0 if ok(value) else 1)
    return status


# program: (AD version, hand-coded version, value check, fastest mode for dvlad, by timing)
PROGRAMS = {
    "saddle": (saddle, saddle_hand, saddle_ok, "RR"),
    "particle": (particle, particle_hand, particle_ok, "FF"),
}


def main():
    """Each program once in its fastest dvlad mode, checked against BENCHMARKS.md."""
    status = 0
    for program, (run, _, ok, mode) in PROGRAMS.items():
        value, seconds = timed(lambda run=run, mode=mode: run(DVLAD, mode))
        verdict = "" if ok(value) else "   WRONG"
        print(f"{program} {mode} (dvlad): {value}   {seconds:.2f} s{verdict}")
        status = status or (0 if ok(value) else 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
