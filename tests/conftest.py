"""Shared test set-up: the repository root, a headless matplotlib, and CI's browser rule.

Notebooks run by nbval get their own kernels, which keep Jupyter's inline backend (as a
learner's would); only this pytest process is switched to Agg.

With ``NVLEARN_REQUIRE_BROWSER=1`` (set by .ci/run) a skipped ``browser`` test is reported
as a failure: in CI the real-browser checks must run.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The checkout's top folder (holds pyproject.toml, notebooks/, nvlearn/)."""
    return REPO_ROOT


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    required = os.environ.get("NVLEARN_REQUIRE_BROWSER", "") not in ("", "0")
    if required and report.skipped and item.get_closest_marker("browser"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"NVLEARN_REQUIRE_BROWSER=1 but the browser test skipped: {reason}"
    return report
