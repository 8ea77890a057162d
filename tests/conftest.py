"""Shared test set-up: the repository root, and a headless matplotlib in the test process.

Notebooks run by nbval get their own kernels, which keep Jupyter's inline backend (as a
learner's would); only this pytest process is switched to Agg.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The checkout's top folder (holds pyproject.toml, notebooks/, nvlearn/)."""
    return REPO_ROOT
