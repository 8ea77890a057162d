"""The public face of the packages whose docs are done: ``__all__`` and numpydoc Parameters.

Every module under :data:`DONE` declares ``__all__``; every name in it exists; none is an
imported helper (``np``, ``njit``, ``dataclass``, a module from outside nvlearn); every
public function or class defined in the module is listed; and ``tools/code_audit.py
--check`` finds no public function of three or more arguments without a Parameters section.
Add a package (``"sgd"``) or a single module (``"specs/records"``) to :data:`DONE` when its
docs are complete; ``specs/nccl.py`` and ``specs/loader.py`` are listed once their
restructuring lands.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DONE = [
    "collectives", "topology", "schedule", "dataplane", "units", "numerics", "measurements",
    "progress", "_jit", "serdes", "tuner", "sgd", "moe", "parallelism", "straggle", "nextgen",
    "puzzles", "specs/__init__", "specs/catalogue", "specs/provenance", "specs/records",
]


def _modules() -> list[str]:
    names = []
    for package in DONE:
        base = ROOT / "nvlearn" / package
        files = sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
        for f in files:
            parts = f.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules()


def test_the_done_list_names_real_packages():
    assert len(MODULES) >= len(DONE)
    for package in DONE:
        assert (ROOT / "nvlearn" / package).is_dir() or \
            (ROOT / "nvlearn" / f"{package}.py").is_file(), package


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_real_public_names(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    listed = list(module.__all__)
    assert len(listed) == len(set(listed)), f"{name}.__all__ repeats a name"
    for attr in listed:
        assert hasattr(module, attr), f"{name}.__all__ lists {attr!r}, which does not exist"
        assert not attr.startswith("_"), f"{name}.__all__ lists the private {attr!r}"
        obj = getattr(module, attr)
        if isinstance(obj, types.ModuleType):
            assert obj.__name__.startswith("nvlearn."), f"{name}.__all__ lists module {attr!r}"
        elif inspect.isclass(obj) or inspect.isfunction(obj) or callable(obj):
            origin = getattr(obj, "__module__", None) or ""
            assert origin.startswith("nvlearn"), \
                f"{name}.__all__ lists {attr!r}, imported from {origin}"


@pytest.mark.parametrize("name", MODULES)
def test_every_public_definition_is_listed(name):
    module = importlib.import_module(name)
    for attr, obj in vars(module).items():
        if attr.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if obj.__module__ == name:
            assert attr in module.__all__, f"{name}.{attr} is public but not in __all__"


def test_star_import_does_not_leak_helpers():
    for name in MODULES:
        namespace: dict = {}
        exec(f"from {name} import *", namespace)  # noqa: S102
        for helper in ("np", "njit", "numba", "dataclass", "annotations", "Schedule"):
            if helper in namespace:       # only the module that defines it may export it
                assert getattr(namespace[helper], "__module__", None) == name, \
                    f"`from {name} import *` leaks {helper}"


def test_code_audit_check_passes_on_done_packages():
    paths = [str(Path("nvlearn") / p) if (ROOT / "nvlearn" / p).is_dir()
             else str(Path("nvlearn") / f"{p}.py") for p in DONE]
    run = subprocess.run([sys.executable, "tools/code_audit.py", "--check", *paths],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout


def test_code_audit_check_fails_on_a_bare_module(tmp_path):
    bare = tmp_path / "bare.py"
    bare.write_text("import numpy as np\n\n\ndef f(a, b, c):\n    return np.add(a, b) + c\n")
    run = subprocess.run([sys.executable, str(ROOT / "tools/code_audit.py"), "--check",
                          str(bare)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "modules without __all__: 1" in run.stdout
    assert "with Parameters: 0" in run.stdout
