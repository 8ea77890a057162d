"""Committed notebooks carry no outputs except in cells marked ``# NBVAL_CHECK_OUTPUT``.

Those marked cells hold the key numbers that nbval (``--nbval-lax``) compares on every run,
so a regression in the package fails the tests. Everything else is stripped before commit
(clear outputs in JupyterLab: Edit > Clear Outputs of All Cells, then re-run the marked cells).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MARK = "NBVAL_CHECK_OUTPUT"
NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _checked(cell) -> bool:
    """Marked as nbval reads it: a comment line that is exactly the marker, or the cell tag."""
    lines = (line.strip() for line in _source(cell).splitlines())
    marked = any(line.startswith("#") and line.lstrip("#").strip() == MARK for line in lines)
    return marked or "nbval-check-output" in cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_committed_clean(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb.get("nbformat") == 4, f"{path.name}: not an nbformat 4 notebook"
    kernel = nb.get("metadata", {}).get("kernelspec", {}).get("name")
    assert kernel == "python3", f"{path.name}: kernelspec is {kernel!r}, expected 'python3'"
    dirty = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or _checked(cell):
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            first = _source(cell).strip().splitlines()[:1]
            dirty.append(f"cell {i} ({first[0][:50] if first else 'empty'!r})")
    assert not dirty, (
        f"{path.name}: outputs committed in cells not marked '# {MARK}': "
        + ", ".join(dirty)
        + ". Clear them (Edit > Clear Outputs of All Cells) and re-run only the marked cells."
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_checked_cells_have_outputs(path):
    """A marked cell with no stored output would compare against nothing and never fail."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    empty = [
        i
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code" and _checked(cell) and not cell.get("outputs")
    ]
    assert not empty, f"{path.name}: cells {empty} are marked '# {MARK}' but store no output"
