"""Shared data of the fastkkm tests, and the closing line "N passed, N failed" that
scripts/summarize-tests.py reads (printed after pytest's own summary)."""
import numpy as np
import pytest

_counts = {"passed": 0, "failed": 0}


def rings(per_ring=500, noise=0.1, seed=7, radii=(1.0, 3.0)):
    """Two concentric rings in 2-D (tests/unit_data.h): X float64 (2·per_ring, 2), y."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for label, radius in enumerate(radii):
        angle = rng.uniform(0, 2 * np.pi, per_ring)
        X.append(np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
                 + rng.normal(0, noise, (per_ring, 2)))
        y.append(np.full(per_ring, label))
    return np.vstack(X), np.concatenate(y)


@pytest.fixture(scope="session")
def ring_data():
    return rings()


def pytest_runtest_logreport(report):
    if report.when == "call":
        if report.passed:
            _counts["passed"] += 1
        elif report.failed:
            _counts["failed"] += 1
    elif report.failed:  # an error in setup or teardown
        _counts["failed"] += 1


def pytest_sessionfinish(session, exitstatus):
    if exitstatus not in (0, 1):  # collection errors, usage errors, interrupted
        _counts["failed"] += max(1, session.testsfailed)


def pytest_unconfigure(config):
    print(f"\n{_counts['passed']} passed, {_counts['failed']} failed", flush=True)
