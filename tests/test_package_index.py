"""The curated package index: every listed submodule exists and loads on attribute access."""

import importlib
import pkgutil

import nvlearn


def test_every_listed_submodule_loads_lazily():
    for name in nvlearn._SUBMODULES:
        module = getattr(nvlearn, name)
        assert module.__name__ == f"nvlearn.{name}"


def test_every_public_submodule_is_listed():
    public = {m.name for m in pkgutil.iter_modules(nvlearn.__path__) if not m.name.startswith("_")}
    assert public == set(nvlearn._SUBMODULES)


def test_unknown_attribute_is_an_attribute_error():
    try:
        nvlearn.does_not_exist  # noqa: B018
    except AttributeError as err:
        assert "does_not_exist" in str(err)
    else:
        raise AssertionError("expected AttributeError")


def test_submodules_import_cleanly_by_name():
    for name in nvlearn._SUBMODULES:
        importlib.import_module(f"nvlearn.{name}")


def test_the_verbs_are_at_the_top_and_load_lazily():
    import subprocess
    import sys

    for verb, module in nvlearn._VERBS.items():
        assert getattr(nvlearn, verb) is getattr(importlib.import_module(f"nvlearn.{module}"),
                                                 verb)
    assert set(nvlearn._VERBS) <= set(dir(nvlearn))
    code = "import sys, nvlearn; print('nvlearn.sim' in sys.modules, 'numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_a_first_session_in_four_lines():
    box = nvlearn.dgx_h100()
    res = nvlearn.simulate(box, nvlearn.allreduce(box, 2**30))
    assert 360e9 < res.busbw < 371e9 and res.model == "achievable"
    assert nvlearn.choose("allreduce", 2**30, box).best.label == "NVLS/Simple"
