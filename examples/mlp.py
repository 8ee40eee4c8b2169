"""A two-layer tanh network fitted to a toy regression, trained with dvlad.gradient_r.

    model(x) = tanh(x·W1 + b1)·W2 + b2          x: (batch, 1), hidden layer of 32 units
    loss     = mean((model(x) − y)²)            y = sin(3x) + x/2 on [−1, 1]

The weights are a dict of numpy arrays, and `dvlad.gradient_r(loss)(params)` returns a dict of
the same keys and shapes: one reverse pass gives every weight's gradient.  The model is plain
numpy (`@`, `np.tanh`, broadcasting a bias over the batch, `np.mean`).  The transpose of each
broadcast sums the bias's sensitivity back over the batch.  Training is full-batch Adam,
written in numpy on the plain gradient arrays.

Run:  python examples/mlp.py
"""
import time

import numpy as np

import dvlad


def model(params, x):
    hidden = np.tanh(x @ params["W1"] + params["b1"])
    return hidden @ params["W2"] + params["b2"]


def loss(params, x, y):
    return np.mean((model(params, x) - y) ** 2)


def init(rng, hidden=32):
    return {"W1": rng.normal(0.0, 1.0, (1, hidden)), "b1": np.zeros(hidden),
            "W2": rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 1)), "b2": np.zeros(1)}


def adam(grad, params, steps, rate=0.01, beta1=0.9, beta2=0.999, eps=1e-8, report=None):
    """Adam (Kingma & Ba 2015) on a dict of arrays; ``grad(params)`` → dict of arrays."""
    m = {k: np.zeros_like(w) for k, w in params.items()}
    v = {k: np.zeros_like(w) for k, w in params.items()}
    for t in range(1, steps + 1):
        g = grad(params)
        new = {}
        for k, w in params.items():
            m[k] = beta1 * m[k] + (1 - beta1) * g[k]
            v[k] = beta2 * v[k] + (1 - beta2) * g[k] ** 2
            new[k] = w - rate * (m[k] / (1 - beta1 ** t)) / (np.sqrt(v[k] / (1 - beta2 ** t)) + eps)
        params = new
        if report:
            report(t, params)
    return params


def main():
    rng = np.random.default_rng(0)
    x = np.linspace(-1.0, 1.0, 64).reshape(-1, 1)
    y = np.sin(3.0 * x) + 0.5 * x
    params = init(rng)

    grad = dvlad.gradient_r(lambda p: loss(p, x, y))
    g = grad(params)
    assert g.keys() == params.keys()
    assert all(g[k].shape == params[k].shape for k in params)

    # One directional derivative of the loss against a central difference.
    direction = {k: rng.normal(size=w.shape) for k, w in params.items()}
    slope = sum(np.sum(g[k] * direction[k]) for k in params)
    h = 1e-6
    shifted = [loss({k: w + s * h * direction[k] for k, w in params.items()}, x, y)
               for s in (1, -1)]
    assert abs(slope - (shifted[0] - shifted[1]) / (2 * h)) < 1e-6 * max(1.0, abs(slope))

    first = loss(params, x, y)
    print(f"step    0  loss {first:.6f}")

    def report(t, p):
        if t % 250 == 0:
            print(f"step {t:4d}  loss {loss(p, x, y):.6f}")

    start = time.perf_counter()
    params = adam(grad, params, steps=1500, report=report)
    seconds = time.perf_counter() - start
    last = loss(params, x, y)
    print(f"1500 Adam steps in {seconds:.1f} s: loss {first:.4f} -> {last:.6f} "
          f"({first / last:.0f}x smaller)")
    assert last < first / 1000 and last < 1e-3


if __name__ == "__main__":
    main()
