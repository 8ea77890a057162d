"""numba policy: cached kernels, a writable cache for read-only installs, a debug switch."""

import os
import subprocess
import sys

import nvlearn._jit as jit


def test_readonly_package_sends_the_cache_to_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")       # so that undo removes what the code sets
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(jit.os, "access", lambda path, mode: False)
    jit._choose_cache_dir()
    target = tmp_path / "nvlearn" / "numba"
    assert os.environ["NUMBA_CACHE_DIR"] == str(target) and target.is_dir()


def test_explicit_numba_cache_dir_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setattr(jit.os, "access", lambda path, mode: False)
    jit._choose_cache_dir()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_disable_jit_switch_runs_kernels_as_python():
    code = (
        "import nvlearn._jit as j\n"
        "@j.njit\n"
        "def f(x):\n"
        "    return x + 1\n"
        "print(j.JIT_DISABLED, type(f).__name__, f(1))\n"
    )
    env = dict(os.environ, NVLEARN_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "function", "2"]


def test_kernels_are_cached_by_default():
    @jit.njit
    def g(x):
        return x * 2

    assert g(3) == 6
    assert g._cache.__class__.__name__ != "NullCache"


def _import_in_subprocess(env) -> subprocess.CompletedProcess:
    code = ("import nvlearn._jit as j\n"
            "@j.njit\n"
            "def f(x):\n"
            "    return x + 1\n"
            "print(j.CACHE_ENABLED, f(1))\n")
    return subprocess.run([sys.executable, "-W", "always", "-c", code], env=env,
                          capture_output=True, text=True)


def test_nothing_writable_turns_caching_off_with_one_warning(tmp_path):
    """A read-only package folder and a user cache that cannot be created (its parent is a
    file, which stops even root): import still works, with one warning."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    code = ("import os, nvlearn._jit as j\n"
            "os.access = lambda path, mode: False\n"
            "import warnings\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    ok = j._choose_cache_dir()\n"
            "print(ok, len(w), 'NUMBA_CACHE_DIR' in str(w[0].message))\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(blocker)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["False", "1", "True"]


def test_disabled_jit_never_touches_the_cache(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(NVLEARN_DISABLE_JIT="1", XDG_CACHE_HOME=str(tmp_path / "cache"))
    res = _import_in_subprocess(env)
    assert res.returncode == 0 and res.stdout.split() == ["False", "2"]
    assert not (tmp_path / "cache").exists()


def test_the_simulator_in_plain_python_warns_of_nothing():
    """Its hashes wrap around on purpose; in plain Python that must not print warnings."""
    code = ("from nvlearn.collectives import alltoall\n"
            "from nvlearn.sim import simulate\n"
            "from nvlearn.topology import dgx_h100\n"
            "box = dgx_h100()\n"
            "print(simulate(box, alltoall(box, 8e6)).time > 0)\n")
    env = dict(os.environ, NVLEARN_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-W", "error", "-c", code], env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True"] and res.stderr == ""


# ---------------------------------------------------------------- stale kernels after an update

_CALLEE = "from nvlearn._jit import njit\n\n\n@njit\ndef callee():\n    return {value}\n"
_CALLER = ("from nvlearn._jit import njit\n\nfrom .a import callee\n\n\n"
           "@njit\ndef caller():\n    return callee()\n")


def _toy_package(root, value):
    pkg = root / "toy"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(_CALLEE.format(value=value))
    (pkg / "b.py").write_text(_CALLER)
    return pkg


def _call_caller(root, drop: bool) -> str:
    code = ("import pathlib, nvlearn._jit as j\n"
            f"if {drop}: j.drop_stale_kernels(pathlib.Path({str(root / 'toy')!r}))\n"
            "from toy.b import caller\n"
            "print(caller())\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_numba_alone_keeps_a_caller_whose_callee_changed(tmp_path):
    """The hazard drop_stale_kernels exists for: numba's cache of b.caller survives an edit
    of a.callee (b.py's time stamp did not change)."""
    _toy_package(tmp_path, 1)
    assert _call_caller(tmp_path, drop=False) == "1"
    _toy_package(tmp_path, 2)
    assert _call_caller(tmp_path, drop=False) == "1"          # stale machine code


def test_a_changed_callee_recompiles_its_callers(tmp_path):
    _toy_package(tmp_path, 1)
    assert _call_caller(tmp_path, drop=True) == "1"
    assert _call_caller(tmp_path, drop=True) == "1"           # loads from the cache
    _toy_package(tmp_path, 2)
    assert _call_caller(tmp_path, drop=True) == "2"


def test_drop_stale_kernels_deletes_only_when_a_source_changed(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    pkg = _toy_package(tmp_path, 1)
    assert [m.name for m in jit.kernel_modules(pkg)] == ["a.py", "b.py"]
    cache = pkg / "__pycache__"
    cache.mkdir()

    def fake_cache():
        for name in ("a.callee-5.py311.nbi", "a.callee-5.py311.1.nbc", "b.caller-7.py311.nbi",
                     "b.cpython-311.pyc"):
            (cache / name).write_text("")

    fake_cache()
    assert jit.drop_stale_kernels(pkg)                        # nothing stamped yet
    assert sorted(p.name for p in cache.iterdir()) == ["b.cpython-311.pyc",
                                                       "nvlearn-kernel-sources.sha256"]
    fake_cache()
    assert not jit.drop_stale_kernels(pkg)                    # same sources: keep
    assert len(list(cache.glob("*.nb?"))) == 3
    (pkg / "__init__.py").write_text("# not a kernel module\n")
    assert not jit.drop_stale_kernels(pkg)
    (pkg / "a.py").write_text(_CALLEE.format(value=2))
    assert jit.drop_stale_kernels(pkg)
    assert not list(cache.glob("*.nb?"))


def test_cache_folder_is_where_numba_puts_a_user_cache(monkeypatch, tmp_path):
    from numba.core.caching import UserProvidedCacheLocator

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    module = tmp_path / "pkg" / "mod.py"
    expected = tmp_path / UserProvidedCacheLocator.get_suitable_cache_subpath(str(module))
    assert jit.cache_folder(module) == expected


def _lend_kernels():
    from typing import NamedTuple

    import numpy as np

    class Pair(NamedTuple):
        a: np.ndarray
        b: np.ndarray
        n: int

    @jit.njit(cache=False)
    def bump(pair, x):  # a real call (not inlined by numba), on the lent views
        for i in range(pair.a.shape[0]):
            pair.a[i] += x[i, 0] * pair.n
        pair.b[1] = -1.0
        return pair.a.sum()

    @jit.njit(cache=False)
    def lent_bump(pair, x):
        p, v = jit.lend((pair, x))
        return bump(p, v), bump(jit.lend(pair), jit.lend(x))

    return Pair, lent_bump


def test_lent_views_share_the_owners_data_shape_and_strides():
    import numpy as np

    Pair, lent_bump = _lend_kernels()
    pair = Pair(np.zeros(3), np.zeros(2), 2)
    x = np.arange(12.0).reshape(3, 4)[:, 1::2]       # strided: layout "A" is kept
    first, second = lent_bump(pair, x)
    assert first == 2 * (1 + 5 + 9) and second == 2 * first
    assert pair.a.tolist() == [4.0, 20.0, 36.0] and pair.b.tolist() == [0.0, -1.0]


def test_lend_refuses_what_is_not_arrays_and_scalars():
    import numba
    import pytest

    @jit.njit(cache=False)
    def lend_a_list(xs):
        return jit.lend(xs)

    with pytest.raises(numba.core.errors.TypingError):
        lend_a_list([1.0, 2.0])


def test_lend_in_plain_python_is_the_identity():
    x = [1, 2]
    assert jit.lend(x) is x
