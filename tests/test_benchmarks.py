"""The benchmark suite's harness runs, checks results, and skips an absent peer cleanly.

Timing goals live in benchmarks/RESULTS.md, not here: these tests only run tiny parts of the
suite (workload (a) and (b) at n = 100, a few short samples) and read the table it prints.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "benchmarks" / "run.py"


def suite(*args, extra_path=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [extra_path, str(ROOT),
                                                      env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(RUN), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def rows(stdout):
    return {line.split(" | ")[0].lstrip("| "): [c.strip() for c in line.strip("|").split("|")]
            for line in stdout.splitlines() if line.startswith("| (")}


def test_dvlad_rows_are_checked_and_timed():
    done = suite("--systems", "dvlad", "--workloads", "a,b100", "--repeats", "3",
                 "--budget", "0.1")
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert set(table) == {"(a) derivative of exp(sin x)·x", "(b) gradient, Rosenbrock loop n=100"}
    for cells in table.values():
        ratio = cells[3]                     # workload, baseline, baseline per call, dvlad
        assert ratio.endswith("×") and float(ratio[:-1].replace(",", "")) > 1.0, cells
    assert "[  2/2]" in done.stderr                                 # the progress line


def test_an_absent_peer_is_skipped_with_a_message(tmp_path):
    fake = tmp_path / "autograd"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'autograd'\", name='autograd')\n")
    done = suite("--systems", "dvlad,autograd", "--workloads", "a", "--repeats", "3",
                 "--budget", "0.1", extra_path=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "autograd: not installed" in done.stdout
    assert 'pip install -e ".[bench]"' in done.stdout
    header = done.stdout.splitlines()[0]
    assert "dvlad" in header and "autograd" not in header


def test_unknown_system_is_an_error():
    done = suite("--systems", "tensorflow")
    assert done.returncode == 2 and "unknown system 'tensorflow'" in done.stderr
