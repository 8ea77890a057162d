"""``import nvlearn`` stays light: it must not drag in numba, matplotlib or ipywidgets.

Submodules load on first use (see nvlearn/__init__.py). Checked in a fresh interpreter by
which modules got imported, not by a wall-clock limit; benchmarks/ measures the time.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numba", "llvmlite", "matplotlib", "ipywidgets", "IPython", "scipy")


def test_import_nvlearn_loads_no_heavy_modules():
    code = (
        "import json, sys, nvlearn; "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == [], f"`import nvlearn` imported {loaded}; import them lazily"
