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
