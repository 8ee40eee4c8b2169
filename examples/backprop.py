"""Vanilla backpropagation: an XOR network trained by gradient descent on nested lists.

    σ(x)        = 1/(exp(0 − x) + 1)
    neuron(w, a) = σ(w₀·1 + (w₁a₁ + w₂a₂))          a neuron is its weights, bias first
    error(w)    = Σ_examples ‖net_w(in) − target‖²   (no ½), XOR: 00→0, 01→1, 10→1, 11→0
    w ← w − 0.3·∇error(w)                           over the whole list-of-lists-of-lists w

The network is 2–2–1, from the initial weights hidden [[0, −0.284227, 1.16054],
[0, 0.617194, 1.30467]], output [[0, −0.084395, 0.648461]].  Reference errors (BENCHMARKS.md
section (d), from an independent implementation): 1.0305292271375865 before training,
1.0129691898501352 after one step, 0.5012553500846674 after 10 000 steps.

Source: DVL's multilayer-perceptron example (Alexey Radul, dysvunctional-language,
dvl/examples/multilayer-perceptron.dvl), itself a rewrite of Barak Pearlmutter's
backprop-{F,R}.vlad from Siskind & Pearlmutter's STALINGRAD examples; the VLAD original
multiplies each example's error by ½, DVL's does not.  Sums are right folds, as in DVL.

The gradient is taken of the nested weight structure itself: ``gradient_r(error)(w)`` (one
reverse sweep) or, with ``--mode F``, ``gradient_f(error)(w)`` (one forward pass per weight,
nine here) returns a gradient shaped like w.

Run:  python examples/backprop.py [--mode R|F] [--steps N]     (default R, 100 steps;
      with --steps 10000 the result is checked against the reference, which takes a while)
"""
import argparse
import sys
import time

import dvlad

GRADIENTS = {"F": dvlad.gradient_f, "R": dvlad.gradient_r}
XOR = [((0, 0), (0,)), ((0, 1), (1,)), ((1, 0), (1,)), ((1, 1), (0,))]
WEIGHTS0 = [[[0.0, -0.284227, 1.16054], [0.0, 0.617194, 1.30467]],
            [[0.0, -0.084395, 0.648461]]]
RATE = 0.3
REFERENCE = {0: 1.0305292271375865, 1: 1.0129691898501352, 10000: 0.5012553500846674}


def sum_right(xs):
    """x₀ + (x₁ + (… + x_{n−1})): DVL's sum, a right fold."""
    total = xs[-1]
    for x in reversed(xs[:-1]):
        total = x + total
    return total


def sigmoid(x):
    return 1 / (dvlad.exp(0 - x) + 1)


def neuron(weights, inputs):
    """σ(weights · (1, inputs)): the bias weight comes first and meets a constant input 1."""
    return sigmoid(sum_right([w * a for w, a in zip(weights, (1, *inputs))]))


def network(layers, inputs):
    """Each layer reads the previous layer's outputs; the network's inputs feed the first."""
    for layer in layers:
        inputs = [neuron(weights, inputs) for weights in layer]
    return inputs


def error(layers, dataset=XOR):
    """Σ over the examples of ‖network(in) − target‖²."""
    return sum_right([sum_right([(o - t) * (o - t) for o, t in zip(network(layers, x), y)])
                      for x, y in dataset])


def scaled_subtract(w, k, g):
    """w − k·g on matching nested lists."""
    if isinstance(w, list):
        return [scaled_subtract(wi, k, gi) for wi, gi in zip(w, g)]
    return w - k * g


def train(steps, mode="R", weights=WEIGHTS0, rate=RATE):
    """The weights after `steps` steps of w ← w − rate·∇error(w)."""
    grad = GRADIENTS[mode](error)
    for _ in range(steps):
        weights = scaled_subtract(weights, rate, grad(weights))
    return weights


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=sorted(GRADIENTS), default="R",
                        help="R: gradient_r (default), F: gradient_f")
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args(argv)

    checks = []
    before = error(WEIGHTS0)
    checks.append((0, before))
    one = error(train(1, args.mode))
    checks.append((1, one))
    start = time.perf_counter()
    trained = train(args.steps, args.mode)
    seconds = time.perf_counter() - start
    after = error(trained)
    checks.append((args.steps, after))

    print(f"error before training: {before!r}")
    print(f"error after 1 step:    {one!r}")
    print(f"error after {args.steps} steps: {after!r}   ({args.mode} mode, {seconds:.2f} s, "
          f"{1e3 * seconds / max(args.steps, 1):.2f} ms/step)")
    if args.steps >= 1000:
        print("trained outputs:", [round(network(trained, x)[0], 4) for x, _ in XOR])

    failures = [(n, e, REFERENCE[n]) for n, e in checks
                if n in REFERENCE and abs(e - REFERENCE[n]) > 1e-12]
    for n, e, ref in failures:
        print(f"WRONG after {n} steps: {e!r}, expected {ref!r}", file=sys.stderr)
    if args.steps > 1 and not after < one:
        print("WRONG: training did not reduce the error", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
