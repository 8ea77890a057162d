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
