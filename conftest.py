"""Fixtures for every test here, the package's doctests included."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the figures a test (or a docstring example) drew, so they do not pile up."""
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
