"""Hessian-vector products of a model at many parameter points, in parallel under Dask.

Research code that outgrows one process evaluates many independent derivatives at once.  dvlad's
operators return objects that pickle whenever the function does (``gradient_r(f)``,
``functools.partial(dvlad.hvp, f)``, ...), so they travel to worker processes like any other
function.  This runs the HVPs of a regularized logistic-regression loss at several parameter
points on a Dask ``LocalCluster`` of worker *processes*, and checks them against the serial
result (they are the same numbers, bit for bit: the same code runs on the same inputs).

    pip install "dask[distributed]"
    python examples/parallel_hessians.py [--points 8] [--workers 2]

Every tag is made inside the worker that applies the operator; nothing perturbed crosses a
process boundary (pickling a live perturbation raises, notes/conventions.md).
"""
import argparse
import functools
import sys

import numpy as np

import dvlad

RNG = np.random.default_rng(0)
X = RNG.standard_normal((200, 5))
Y = (X @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) + 0.3 * RNG.standard_normal(200) > 0) * 1.0


def loss(w):
    """Mean logistic loss with a small L2 penalty: log(1 + e^z) − y·z, z = Xw."""
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - Y * z) + 0.01 * np.sum(w * w)


def hvp_at(w, v):
    """H(loss)(w)·v, forward over reverse."""
    return dvlad.hvp(loss, w, v)


def points(n):
    ws = [RNG.standard_normal(5) for _ in range(n)]
    vs = [RNG.standard_normal(5) for _ in range(n)]
    return ws, vs


def run(n_points=8, n_workers=2):
    """(parallel results, serial results) for n_points parameter points."""
    from dask.distributed import Client, LocalCluster

    ws, vs = points(n_points)
    serial = [hvp_at(w, v) for w, v in zip(ws, vs)]
    hvp = functools.partial(dvlad.hvp, loss)           # pickles: dvlad.hvp and loss are global
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        futures = client.map(hvp, ws, vs, pure=False)
        grads = client.map(dvlad.gradient_r(loss), ws, pure=False)
        parallel = client.gather(futures)
        gathered = client.gather(grads)
    assert all(np.array_equal(g, dvlad.gradient_r(loss)(w)) for g, w in zip(gathered, ws))
    return parallel, serial


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    parallel, serial = run(args.points, args.workers)
    same = all(np.array_equal(p, s) for p, s in zip(parallel, serial))
    print(f"{len(parallel)} Hessian-vector products on {args.workers} Dask worker processes; "
          f"equal to the serial ones: {same}")
    print("first:", np.array2string(parallel[0], precision=6))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
