"""The benchmark suite's harness runs, checks results, and skips an absent peer cleanly.

Timing goals live in benchmarks/RESULTS.md, not here: these tests only run tiny parts of the
suite (workloads (a), (a') and (b) at n = 100, a few short samples) and read the table it prints.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "benchmarks" / "run.py"
ORDERS = ROOT / "benchmarks" / "orders.py"
A6 = ("(a') 6th derivative of exp(sin x)·x", "(a') 6th derivative, derivative nested 6×")


def suite(*args, extra_path=None, script=RUN):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [extra_path, str(ROOT),
                                                      env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def rows(stdout):
    return {line.split(" | ")[0].lstrip("| "): [c.strip() for c in line.strip("|").split("|")]
            for line in stdout.splitlines() if line.startswith("| (")}


def test_dvlad_rows_are_checked_and_timed():
    done = suite("--systems", "dvlad", "--workloads", "a,a6,b100", "--repeats", "3",
                 "--budget", "0.1")
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert set(table) == {"(a) derivative of exp(sin x)·x", *A6,
                          "(b) gradient, Rosenbrock loop n=100"}
    for cells in table.values():
        ratio = cells[3]                     # workload, baseline, baseline per call, dvlad
        assert ratio.endswith("×") and float(ratio[:-1].replace(",", "")) > 1.0, cells
    assert "[  4/4]" in done.stderr                                 # the progress line


def test_an_absent_peer_is_skipped_with_a_message(tmp_path):
    fake = tmp_path / "autograd"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'autograd'\", name='autograd')\n")
    done = suite("--systems", "dvlad,autograd", "--workloads", "a,a6", "--repeats", "3",
                 "--budget", "0.1", extra_path=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "autograd: not installed" in done.stdout
    assert 'pip install -e ".[bench]"' in done.stdout
    header = done.stdout.splitlines()[0]
    assert "dvlad" in header and "autograd" not in header
    assert set(A6) <= set(rows(done.stdout))


def test_the_sixth_derivative_reference_is_exact():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import mpmath
        import workloads as w
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert w.f_derivative(0) == w.f_math(0.7) and w.f_derivative(1) == w.df_math(0.7)
    with mpmath.workdps(30):          # numerical differentiation, independent of the closed form
        for n in (2, 6, 8):
            want = mpmath.diff(lambda t: mpmath.exp(mpmath.sin(t)) * t, mpmath.mpf(0.7), n)
            assert abs(w.f_derivative(n) - want) <= 1e-15 * abs(want), n


def test_orders_prints_growth_per_order():
    done = suite("--max-order", "2", "--max-nested", "2", "--repeats", "3", "--budget", "0.05",
                 script=ORDERS)
    assert done.returncode == 0, done.stderr
    table = [line.strip("|").split("|") for line in done.stdout.splitlines()
             if line.startswith("| ") and line[2].isdigit()]
    assert [int(r[0]) for r in table] == [1, 2]
    for r in table:                   # tower ×, nested × checked and timed; order 2 ÷ order 1
        assert r[1].strip().endswith("×") and r[4].strip().endswith("×"), r
    assert float(table[1][2]) > 0 and float(table[1][5]) > 1, table


def test_unknown_system_is_an_error():
    done = suite("--systems", "tensorflow")
    assert done.returncode == 2 and "unknown system 'tensorflow'" in done.stderr
