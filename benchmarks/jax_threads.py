"""How many cores jax.jit's compiled calls use: wall time and CPU time of two research
workloads (benchmarks/research.py's jax.jit peer), in this process as started.

    python benchmarks/jax_threads.py              # free to use every core
    taskset -c 0 python benchmarks/jax_threads.py # one core

CPU time above wall time means XLA ran the call on more than one core; numpy's BLAS, dvlad and
torch run one thread in these benchmarks, which is why research.py and compiled.py pin the
process to one CPU (benchmarks/run.py's ``one_core``).
"""
import os
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

import research as R  # noqa: E402


def main():
    make = R._peer_jax(True)
    params, X, Y = R.mlp_data(256)
    w, Xl, yl, v = R.lr_data(10_000, 100)
    for name, call in (("MLP gradient, tanh, batch 256", make(("mlp", "tanh"), params, X, Y)),
                       ("logistic HVP fr, 10000×100",
                        make(("lr", "lr_logaddexp", "fr"), w, Xl, yl, v))):
        walls, cpus = [], []
        for _ in range(9):
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(20):
                call()
            walls.append((time.perf_counter() - t0) / 20)
            cpus.append((time.process_time() - c0) / 20)
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"{name}: wall {wall * 1e3:.2f} ms, CPU {cpu * 1e3:.2f} ms ({cpu / wall:.2f}×)")


if __name__ == "__main__":
    main()
