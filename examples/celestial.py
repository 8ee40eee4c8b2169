"""The Sun and the four outer planets, with forces from the gradient of the potential.

    V(p)  = Σ_{i<j} −G·mᵢmⱼ / ‖pᵢ − pⱼ‖          p = all five positions, a list of 3-lists
    F(p)  = −∇V(p)                               by dvlad.gradient_f (15 forward passes)
    ṗᵢ = vᵢ,   v̇ᵢ = Fᵢ(p)/mᵢ                      integrated by classic RK4, 10-day steps
    E     = Σᵢ ½mᵢ‖vᵢ‖² + V(p)                    conserved: |E(t) − E(0)| / |E(0)| ≈ 1e-10

Units: AU, days, solar masses.  G = 0.0002959297058731066 is 6.673e-11 m³/(kg s²) converted
with 1 AU = 1.49598e11 m, 1 M☉ = 1.98892e30 kg, 1 day = 86 400 s.  Masses: the Sun
1 + 0.597682e-5 (the inner planets lumped in), Jupiter 1/1047.355, Saturn 1/3501.6, Uranus
1/22869, Neptune 1/19314.

Source: the initial conditions, masses and G are those of DVL's celestial example (Alexey
Radul, dysvunctional-language, dvl/examples/celestial/celestial.dvl), which gives them as
"heliocentric invariable-plane rectangular coordinates 1950.0, Cohen, Hubbard, and
Oesterwinter" (C. J. Cohen, E. C. Hubbard, C. Oesterwinter, "Planetary elements for
10 000 000 years", Celestial Mechanics 7, 438–448, 1973); the Sun starts at rest at the origin.
These are *not* the numbers of Hairer, Lubich & Wanner's "outer solar system" test problem
(Geometric Numerical Integration, §I.2.4), which uses other coordinates (Jupiter at
(−3.5023653, −3.8169847, −1.5507963), epoch 5 September 1994) and G = 2.95912208286e-4.

The program follows DVL's: the potential is a function of the positions alone, and the force
on every body is minus its gradient, taken by forward mode over the nested list of positions
(``--mode R`` takes it by one reverse sweep instead).

Run:  python examples/celestial.py [--mode F|R] [--steps N] [--days H]   (default F, 100, 10)
"""
import argparse
import sys
import time

import dvlad

G = 0.0002959297058731066
NAMES = ("Sun", "Jupiter", "Saturn", "Uranus", "Neptune")
MASSES = (1 + 0.597682e-5, 1 / 1047.355, 1 / 3501.6, 1 / 22869.0, 1 / 19314.0)
POSITIONS0 = [[0.0, 0.0, 0.0],
              [3.4095304279450, 3.6358700383230, 0.0342402877997],
              [6.6120798297050, 6.3869348834150, -0.1361443021015],
              [11.167697426230, 16.043436043290, 0.361784940993],
              [-30.173660054850, 1.917641287545, -0.153885933998]]
VELOCITIES0 = [[0.0, 0.0, 0.0],
               [-0.56046701820130e-2, 0.55244932195970e-2, -0.00026639819072e-2],
               [-4.1802306919770e-3, 4.0035767422770e-3, 1.67237640786e-5],
               [-3.2655385504170e-3, 2.0707233538550e-3, -2.17667721966e-5],
               [-2.241622739519e-4, -3.1072718854630e-3, 3.58376025706e-5]]
GRADIENTS = {"F": dvlad.gradient_f, "R": dvlad.gradient_r}
DRIFT_BOUND = 2e-10     # relative energy drift allowed after 100 RK4 steps of 10 days


def distance(u, v):
    """‖v − u‖ = sqrt(Σ (vₖ − uₖ)²), the sum a right fold."""
    total = 0.0
    for a, b in reversed(list(zip(u, v))):
        total = (b - a) * (b - a) + total
    return dvlad.sqrt(total)


def potential(masses):
    """positions ↦ V = Σ_{i<j} −G·mᵢmⱼ/‖pᵢ − pⱼ‖."""
    def V(positions):
        total = 0.0
        for i in range(len(positions)):
            for j in range(i + 1, len(positions)):
                total = total + (-1 * (G * (masses[i] * masses[j]))) \
                    / distance(positions[i], positions[j])
        return total
    return V


def forces(masses, positions, mode="F"):
    """F = −∇V at the positions, one 3-list per body, by gradient_f (F) or gradient_r (R)."""
    return [[-g for g in body] for body in GRADIENTS[mode](potential(masses))(positions)]


def newtonian_forces(masses, positions):
    """F_i = Σ_{j≠i} G·mᵢmⱼ (pⱼ − pᵢ)/‖pⱼ − pᵢ‖³, written out by hand, for comparison."""
    out = []
    for i, pi in enumerate(positions):
        f = [0.0, 0.0, 0.0]
        for j, pj in enumerate(positions):
            if j != i:
                r = distance(pi, pj)
                s = G * masses[i] * masses[j] / (r * r * r)
                f = [fk + s * (b - a) for fk, a, b in zip(f, pi, pj)]
        out.append(f)
    return out


def energy(masses, positions, velocities):
    """E = Σ ½mᵢ‖vᵢ‖² + V(p)."""
    kinetic = sum(0.5 * m * sum(c * c for c in v) for m, v in zip(masses, velocities))
    return kinetic + potential(masses)(positions)


def derivative(masses, mode):
    """The state derivative (p, v) ↦ (v, F(p)/m)."""
    def f(state):
        positions, velocities = state
        return (velocities,
                [[fk / m for fk in body] for body, m in zip(forces(masses, positions, mode),
                                                              masses)])
    return f


def axpy(a, x, y):
    """y + a·x on (positions, velocities) states."""
    return tuple([[yk + a * xk for xk, yk in zip(xb, yb)] for xb, yb in zip(xs, ys)]
                 for xs, ys in zip(x, y))


def rk4_step(f, state, h):
    """One classic Runge–Kutta step: y + h/6·(k1 + 2k2 + 2k3 + k4)."""
    k1 = f(state)
    k2 = f(axpy(h / 2, k1, state))
    k3 = f(axpy(h / 2, k2, state))
    k4 = f(axpy(h, k3, state))
    total = axpy(2.0, k2, k1)
    total = axpy(2.0, k3, total)
    total = axpy(1.0, k4, total)
    return axpy(h / 6, total, state)


def simulate(steps, h=10.0, mode="F", masses=MASSES, state=(POSITIONS0, VELOCITIES0)):
    """The (positions, velocities) after `steps` RK4 steps of h days."""
    f = derivative(masses, mode)
    for _ in range(steps):
        state = rk4_step(f, state, h)
    return state


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=sorted(GRADIENTS), default="F",
                        help="F: gradient_f (default), R: gradient_r")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--days", type=float, default=10.0, help="the RK4 step, in days")
    args = parser.parse_args(argv)

    by_ad = forces(MASSES, POSITIONS0, args.mode)
    by_hand = newtonian_forces(MASSES, POSITIONS0)
    force_error = max(abs(a - b) / abs(b) for fa, fb in zip(by_ad, by_hand)
                      for a, b in zip(fa, fb) if b)
    print(f"initial forces, −∇V ({args.mode} mode) against Newton's by hand: "
          f"max relative difference {force_error:.1e}")
    for name, force in zip(NAMES, by_ad):
        print(f"  {name:8s} " + "  ".join(f"{c: .6e}" for c in force))

    e0 = energy(MASSES, POSITIONS0, VELOCITIES0)
    start = time.perf_counter()
    positions, velocities = simulate(args.steps, args.days, args.mode)
    seconds = time.perf_counter() - start
    e1 = energy(MASSES, positions, velocities)
    drift = abs(e1 - e0) / abs(e0)
    print(f"{args.steps} RK4 steps of {args.days:g} days ({args.steps * args.days:g} days, "
          f"{args.mode} mode): {seconds:.2f} s, {1e3 * seconds / max(args.steps, 1):.1f} ms/step")
    for name, p in zip(NAMES, positions):
        print(f"  {name:8s} at " + "  ".join(f"{c: .9f}" for c in p))
    print(f"energy {e0!r} -> {e1!r}: relative drift {drift:.2e}")

    # 1.09e-10 in either mode; the bound applies to the default run (100 steps of 10 days).
    drift_ok = drift < DRIFT_BOUND or (args.steps, args.days) != (100, 10.0)
    if force_error >= 1e-12 or not drift_ok:
        print("WRONG: the forces disagree or the energy drifted", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
