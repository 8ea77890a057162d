"""Cold start: the kernels are compiled once at set-up, and a notebook can tell if they are."""

from __future__ import annotations

from pathlib import Path

from nvlearn import warmup


def _fake_cache(skip: str | None = None) -> None:
    """numba's layout, <cache folder>/<module>.<func>-<line>.py311.nbi, where
    :func:`nvlearn._jit.cache_folder` says numba puts it."""
    from nvlearn._jit import cache_folder

    for rel in warmup.KERNEL_MODULES:
        if rel == skip:
            continue
        module = warmup._PKG / rel
        folder = cache_folder(module)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{module.stem}.kernel-1.py311.nbi").write_text("")


def test_an_empty_cache_is_not_ready_and_a_full_one_is(tmp_path, monkeypatch):
    monkeypatch.setattr(warmup, "_PKG", Path("/pkg/nvlearn"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not warmup.kernels_cached()
    _fake_cache(skip="moe/router.py")
    assert not warmup.kernels_cached()            # one module's kernels are missing
    _fake_cache()
    assert warmup.kernels_cached()


def test_warm_loads_every_kernel_and_leaves_the_cache_ready(capsys):
    assert warmup.warm(verbose=False) >= 0
    assert warmup.kernels_cached()
    warmup.ensure_compiled()                     # ready: says nothing
    assert capsys.readouterr().out == ""
