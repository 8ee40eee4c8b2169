"""benchmarks/research.py (issue #17's research workloads) runs, checks dvlad against the
hand-written derivatives, and prints its table.

No timing assertions: timing goals live in benchmarks/RESULTS.md.  This runs ``--quick`` (small
sizes, two repeats) in a subprocess and reads the table it prints.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "research.py"
ROWS = {
    "(r1) GP NLML gradient, cholesky, n=50",
    "(r1) GP NLML gradient, slogdet + solve, n=50",
    "(r2) logistic HVP fr, logaddexp, 200×20",
    "(r2) logistic HVP rr, logaddexp, 200×20",
    "(r2) logistic HVP fr, log1p(exp), 200×20",
    "(r2) logistic HVP rr, log1p(exp), 200×20",
    "(r2) logistic HVP fr, logaddexp, X read-only, 200×20",
    "(r2) logistic HVP rr, logaddexp, X read-only, 200×20",
    "(r3) MLP gradient, tanh, batch 16",
    "(r3) MLP gradient, relu, batch 16",
}
PEERS = ("autograd", "torch", "jax", "jax.jit")


def test_quick_run_checks_every_workload_and_prints_the_table():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    head = next(line for line in lines if line.startswith("| workload"))
    columns = [c.strip() for c in head.strip("|").split("|")]
    assert columns == ["workload", "baseline", "baseline ms", "dvlad ms", "dvlad", *PEERS]
    table = {cells[0]: cells for cells in
             ([c.strip() for c in line.strip("|").split("|")] for line in lines
              if line.startswith("| ("))}
    assert set(table) == ROWS
    for cells in table.values():
        assert len(cells) == len(columns), cells
        base_ms, dvlad_ms, ratio = cells[2:5]
        assert float(base_ms.replace(",", "")) > 0 and float(dvlad_ms.replace(",", "")) > 0, cells
        assert ratio.endswith("×") and float(ratio[:-1].replace(",", "")) > 0, cells
        for peer, cell in zip(PEERS, cells[5:]):
            assert cell == "not installed" or cell.endswith("×"), (peer, cells)
    assert any(line.startswith("checks: all passed") for line in lines), done.stdout
    assert "FAILED" not in done.stdout and "wrong" not in done.stdout
