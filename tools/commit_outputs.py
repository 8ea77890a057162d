"""Prepare notebooks for committing: execute, keep only NBVAL_CHECK_OUTPUT outputs.

    python tools/commit_outputs.py notebooks/00_start_here.ipynb [more.ipynb ...]

Each notebook is executed top to bottom in this environment (so the checked outputs are
what the code produces today), then every code cell that is not marked
``# NBVAL_CHECK_OUTPUT`` loses its outputs and execution count, the saved widget state is
dropped, and the file is rewritten.
nbval then compares the kept outputs on every test run, so a regression in a key number
fails the tests. Prints each notebook's execution time.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

MARK = "NBVAL_CHECK_OUTPUT"


def prepare(path: Path, timeout: int = 600) -> float:
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.perf_counter() - t0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if MARK in cell.source:
            continue
        cell.outputs = []
        cell.execution_count = None
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)  # saved widget state: generated, large, never reviewed
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in argv:
        seconds = prepare(Path(name))
        print(f"{name}: executed in {seconds:.1f} s; kept only {MARK} outputs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
