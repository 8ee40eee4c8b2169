"""Shared test settings: the opt-in slow and fuzz markers, hypothesis profiles, mpmath's precision
kept per test, and the fuzzer's closing line (added up over pytest-xdist's workers: the suite runs
in one process per core, ``-n auto`` in pyproject.toml; ``-n 0`` runs it in this one)."""
import os
import sys

import mpmath
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _mpmath_precision_restored():
    """mpmath's working precision as each test found it: a test that sets ``mp.dps`` (for
    its own oracle) must not change every later test's (a leaked 50 digits made the fuzzers
    several times slower, and the suite's results depend on its order)."""
    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec


def pytest_collection_finish(session):
    """Collection imported every module: none may leave mpmath's precision changed (a module
    that needs more digits says so in a module-scoped fixture)."""
    if mpmath.mp.prec != 53:
        raise pytest.UsageError(f"a test module left mpmath at {mpmath.mp.dps} digits when "
                                "it was imported: set them in a fixture (mpmath.workdps)")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run the long stress tests marked slow")


def pytest_collection_modifyitems(config, items):
    runslow = config.getoption("--runslow")
    runfuzz = "fuzz" in (config.getoption("markexpr") or "") or os.environ.get("DVLAD_FUZZ")
    skip = pytest.mark.skip(reason="long stress run: opt in with --runslow")
    skipfuzz = pytest.mark.skip(reason="the fuzzer's long profile: opt in with -m fuzz "
                                       "or DVLAD_FUZZ=N (N programs)")
    for item in items:
        if "slow" in item.keywords and not runslow:
            item.add_marker(skip)
        if "fuzz" in item.keywords and not runfuzz:
            item.add_marker(skipfuzz)


if os.environ.get("DVLAD_POOL_THRESHOLD"):          # run the suite with every array pooled
    from dvlad import pool
    pool.configure(threshold=int(os.environ["DVLAD_POOL_THRESHOLD"]))


# ---- the fuzzer's closing line (tests/test_fuzz.py), from this process or xdist's workers ------

_FROM_WORKERS = []      # (counts by kind, left out, raised, known bugs) of each worker that fuzzed


def _fuzz_counts():
    fp = sys.modules.get("fuzz_programs")
    if fp is None or not sum(fp.COUNTS.values()):
        return None
    return (dict(fp.COUNTS), sum(fp.SKIPPED.values()), sum(fp.RAISED.values()),
            len(fp.KNOWN_BUGS))


def pytest_sessionfinish(session):
    out = getattr(session.config, "workeroutput", None)         # an xdist worker: hand them on
    counts = _fuzz_counts()
    if out is not None and counts is not None:
        out["dvlad_fuzz"] = counts


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    counts = getattr(node, "workeroutput", {}).get("dvlad_fuzz")
    if counts is not None:
        _FROM_WORKERS.append(counts)


def pytest_terminal_summary(terminalreporter):
    runs = _FROM_WORKERS + [c for c in (_fuzz_counts(),) if c is not None]
    if not runs:
        return
    kinds = list(runs[0][0])
    counts = {k: sum(r[0][k] for r in runs) for k in kinds}
    terminalreporter.write_line(
        f"dvlad fuzz: {sum(counts.values())} programs checked ("
        + ", ".join(f"{k} {counts[k]}" for k in kinds) + "); the truth left out near a tie or "
        f"a kink: {sum(r[1] for r in runs)}; every derivative raised one named error: "
        f"{sum(r[2] for r in runs)}; known bugs kept out: {runs[0][3]} "
        "(fuzz_programs.KNOWN_BUGS)")
