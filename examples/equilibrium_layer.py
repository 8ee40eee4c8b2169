"""An implicit (deep-equilibrium-style) layer in pure Python lists, trained through its fixed point.

The layer's output is not computed by a fixed number of steps. It is defined as the solution of

    z* = tanh(W z* + U x + b)            (3 units, 2 inputs; W is 3×3, U is 3×2, b has 3)

which dvlad.fixed_point finds by iterating z ← tanh(W z + U x + b).  W is small (each row's
absolute sum is below 1, and |tanh′| ≤ 1), so the map is a contraction and z* is unique.  The
loss is Σ_i (z*_i − target_i)² over a batch of two inputs.

gradient_r differentiates the loss with respect to the parameters {"W", "U", "b"} (nested lists,
so the gradient comes back as nested lists) without recording the iteration: Christianson's
adjoint iteration runs over one recorded step of the layer (notes/fixed-points.md, §4).

1. The gradient, checked against central finite differences for all 18 parameters.
2. The tape holds one recorded step of the layer per equilibrium, not one per iteration: far
   fewer cells than the same loop differentiated step by step (and the same gradient).
3. A few steps of gradient descent: the loss goes down.

Run:  python examples/equilibrium_layer.py
"""
import copy

import dvlad

PARAMS = {
    "W": [[0.20, -0.10, 0.15],
          [0.05, 0.25, -0.20],
          [-0.15, 0.10, 0.30]],
    "U": [[0.5, -0.3],
          [0.2, 0.4],
          [-0.6, 0.1]],
    "b": [0.1, -0.2, 0.05],
}
BATCH = [  # (input x, target for z*)
    ([1.0, -0.5], [0.5, -0.2, -0.4]),
    ([-0.3, 0.8], [-0.3, 0.4, 0.2]),
]


def layer_step(params, x):
    """z ↦ tanh(W z + U x + b), as a function of the list z."""
    W, U, b = params["W"], params["U"], params["b"]
    drive = [sum(U[i][k] * x[k] for k in range(len(x))) + b[i] for i in range(len(b))]
    return lambda z: [dvlad.tanh(sum(W[i][j] * z[j] for j in range(len(z))) + drive[i])
                      for i in range(len(b))]


def equilibrium(params, x):
    """z* with z* = tanh(W z* + U x + b), from z = 0."""
    return dvlad.fixed_point(layer_step(params, x), [0.0] * len(params["b"]))


def loss(params):
    """Σ over the batch of Σ_i (z*_i − target_i)²."""
    total = 0.0
    for x, target in BATCH:
        z = equilibrium(params, x)
        total = total + sum((zi - ti) ** 2 for zi, ti in zip(z, target))
    return total


def contraction_bound(params):
    """max_i Σ_j |W_ij|: a Lipschitz bound of the layer map in the max-norm (|tanh′| ≤ 1)."""
    return max(sum(abs(w) for w in row) for row in params["W"])


def leaves(params):
    """[(name, where)] for every parameter number; where = (key, i) or (key, i, j)."""
    out = []
    for key in ("W", "U", "b"):
        value = params[key]
        if isinstance(value[0], list):
            for i, row in enumerate(value):
                for j in range(len(row)):
                    out.append((f"{key}[{i}][{j}]", (key, i, j)))
        else:
            for i in range(len(value)):
                out.append((f"{key}[{i}]", (key, i)))
    return out


def get(params, where):
    value = params[where[0]]
    for index in where[1:]:
        value = value[index]
    return value


def shifted(params, where, h):
    p = copy.deepcopy(params)
    container = p[where[0]]
    for index in where[1:-1]:
        container = container[index]
    container[where[-1]] += h
    return p


def check_against_differences(params, grad, h=1e-6):
    print("1. gradient_r through fixed_point against central differences (h = 1e-6)")
    worst = 0.0
    for name, where in leaves(params):
        fd = (loss(shifted(params, where, h)) - loss(shifted(params, where, -h))) / (2 * h)
        g = get(grad, where)
        worst = max(worst, abs(g - fd))
        print(f"   ∂L/∂{name:<8} {g: .12f}   differences {fd: .12f}")
        assert abs(g - fd) <= 1e-8 + 1e-6 * abs(fd), (name, g, fd)
    print(f"   largest difference {worst:.1e}")


def tape_sizes(params):
    print("2. tape cells for one gradient: fixed_point against the loop unrolled on the tape")
    counts = {}

    def counted(p, unrolled):
        z_all = []
        for x, target in BATCH:
            step = layer_step(p, x)
            if unrolled:                      # iterate by hand; every step is recorded
                z, n = [0.0, 0.0, 0.0], 0
                while True:
                    z2, n = step(z), n + 1
                    step_size = max(abs(dvlad.primal(u) - dvlad.primal(v)) for u, v in zip(z, z2))
                    if step_size <= 4.4e-16:
                        break
                    z = z2
                counts.setdefault("iterations", []).append(n)
            else:
                z2 = dvlad.fixed_point(step, [0.0, 0.0, 0.0])
            z_all.append((z2, target))
        counts[unrolled] = len(p["b"][0].tag.tape)     # any parameter is a TapeCell here
        return sum(sum((zi - ti) ** 2 for zi, ti in zip(z, t)) for z, t in z_all)

    g_fixed = dvlad.gradient_r(lambda p: counted(p, False))(params)
    g_loop = dvlad.gradient_r(lambda p: counted(p, True))(params)
    print(f"   the layer needs {counts['iterations']} iterations for the two inputs")
    print(f"   fixed_point: {counts[False]} cells;  unrolled loop: {counts[True]} cells")
    assert counts[False] < counts[True] / 5
    flat = lambda g: [get(g, where) for _, where in leaves(params)]
    assert max(abs(u - v) for u, v in zip(flat(g_fixed), flat(g_loop))) < 1e-12


def descend_leaves(value, grad, rate):
    """value − rate·grad, for a number or a nested list of numbers."""
    if isinstance(value, list):
        return [descend_leaves(v, g, rate) for v, g in zip(value, grad)]
    return value - rate * grad


def descend(params, steps=10, rate=0.1):
    print(f"3. gradient descent, {steps} steps of size {rate}")
    grad = dvlad.gradient_r(loss)
    losses = [loss(params)]
    for step in range(1, steps + 1):
        g = grad(params)
        params = {key: descend_leaves(params[key], g[key], rate) for key in params}
        assert contraction_bound(params) < 1, "W left the contraction region"
        losses.append(loss(params))
        print(f"   step {step:2}: loss {losses[-1]:.3e}   (max_i Σ_j |W_ij| = "
              f"{contraction_bound(params):.3f} < 1: still a contraction)")
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < losses[0] / 100
    print(f"   loss {losses[0]:.3e} → {losses[-1]:.3e}")
    return params


def main():
    params = copy.deepcopy(PARAMS)
    assert contraction_bound(params) < 1
    z = equilibrium(params, BATCH[0][0])
    residual = max(abs(a - b) for a, b in zip(z, layer_step(params, BATCH[0][0])(z)))
    print(f"z* for x = {BATCH[0][0]}: {[round(v, 6) for v in z]} (residual {residual:.0e})")
    assert residual <= 1e-15
    print(f"loss {loss(params):.6f}")

    grad = dvlad.gradient_r(loss)(params)
    assert isinstance(grad["W"], list) and isinstance(grad["W"][0], list)   # same structure
    check_against_differences(params, grad)
    tape_sizes(params)
    descend(params)
    print("all checks passed")


if __name__ == "__main__":
    main()
