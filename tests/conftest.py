"""Shared test settings: the opt-in slow and fuzz markers and hypothesis profiles."""
import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
