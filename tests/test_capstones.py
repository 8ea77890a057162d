"""The capstones' worked reference solutions (``instructor/capstones/``) run top to bottom.

Each notebook checks its own numbers against physical bounds (traffic bounds, budgets,
Monte Carlo confidence intervals) with ``assert``; executing it is the test. They are
instructor material: committed without outputs, referenced from ``instructor/capstones.md``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
CAPSTONES = ROOT / "instructor" / "capstones"
NOTEBOOKS = sorted(CAPSTONES.glob("*.ipynb"))


def test_one_reference_per_brief_each_referenced():
    assert [p.name[0] for p in NOTEBOOKS] == ["1", "2", "3", "4"]
    brief = (ROOT / "instructor" / "capstones.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"capstones/{path.name}" in brief, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_reference_solution_runs(path):
    nb = nbformat.read(path, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        f"{path.name}: commit it without outputs")
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(CAPSTONES)}}).execute()
