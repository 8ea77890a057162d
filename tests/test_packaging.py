"""environment.yml (conda-forge) and pyproject.toml name the same runtime dependencies.

conda is not reachable where this project is built, so this test is the guard that keeps
the two files in step.
"""

from __future__ import annotations

import tomllib

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name


def _pyproject(repo_root):
    return tomllib.loads((repo_root / "pyproject.toml").read_text())


def _environment(repo_root):
    return yaml.safe_load((repo_root / "environment.yml").read_text())


def _conda_specs(env) -> dict[str, str]:
    """conda package name -> version specifier, for the plain (non-pip) entries."""
    out = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str):
            req = Requirement(dep)
            out[canonicalize_name(req.name)] = str(req.specifier)
    return out


def _pip_entries(env) -> list[str]:
    for dep in env["dependencies"]:
        if isinstance(dep, dict) and "pip" in dep:
            return list(dep["pip"])
    return []


def _runtime_requirements(pyproject) -> dict[str, str]:
    reqs = [Requirement(r) for r in pyproject["project"]["dependencies"]]
    return {canonicalize_name(r.name): str(r.specifier) for r in reqs}


def test_environment_yml_uses_conda_forge(repo_root):
    env = _environment(repo_root)
    assert env["name"] == "nvlearn"
    assert env["channels"] == ["conda-forge"], "environment.yml must use conda-forge only"


def test_environment_yml_has_same_runtime_dependencies(repo_root):
    runtime = _runtime_requirements(_pyproject(repo_root))
    conda = _conda_specs(_environment(repo_root))
    conda_runtime = {k: v for k, v in conda.items() if k not in {"python", "pip"}}
    assert set(conda_runtime) == set(runtime), (
        "environment.yml and pyproject.toml [project].dependencies differ: "
        f"only in environment.yml {sorted(set(conda_runtime) - set(runtime))}, "
        f"only in pyproject.toml {sorted(set(runtime) - set(conda_runtime))}"
    )
    for name, spec in runtime.items():
        assert SpecifierSet(conda_runtime[name]) == SpecifierSet(spec), (
            f"{name}: environment.yml says {conda_runtime[name]!r}, pyproject.toml {spec!r}"
        )


def test_environment_yml_installs_package_editable(repo_root):
    env = _environment(repo_root)
    conda = _conda_specs(env)
    assert "pip" in conda, "environment.yml must list pip to run its pip: section"
    assert "-e ." in _pip_entries(env), "environment.yml must pip-install the package: '-e .'"


def test_python_version_floor_matches(repo_root):
    requires = SpecifierSet(_pyproject(repo_root)["project"]["requires-python"])
    assert "3.10" not in requires and "3.11" in requires
    conda_python = SpecifierSet(_conda_specs(_environment(repo_root))["python"])
    assert "3.10" not in conda_python and "3.11" in conda_python


def _all_pyproject_requirements(pyproject) -> list[str]:
    reqs = list(pyproject["project"]["dependencies"])
    for extra in pyproject["project"].get("optional-dependencies", {}).values():
        reqs.extend(extra)
    return reqs


@pytest.mark.parametrize("source", ["pyproject.toml", "environment.yml"])
def test_no_exact_pins(repo_root, source):
    if source == "pyproject.toml":
        specs = _all_pyproject_requirements(_pyproject(repo_root))
    else:
        env = _environment(repo_root)
        specs = [d for d in env["dependencies"] if isinstance(d, str)]
    pinned = [s for s in specs if "==" in s]
    assert not pinned, f"{source} pins exact versions {pinned}; use lower bounds (>=)"
