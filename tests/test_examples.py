"""Each examples/*.py runs to completion (its own asserts check its results)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_there_are_examples():
    assert EXAMPLES, f"no examples/*.py found in {ROOT}"


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script):
    env = dict(os.environ)
    # Import dvlad from this checkout even when it is not installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        f"{script.name} exited {done.returncode}\n--- stdout\n{done.stdout}\n"
        f"--- stderr\n{done.stderr}")
    assert done.stdout.strip(), f"{script.name} printed nothing"
