"""Cold start: the kernels are compiled once at set-up, and a notebook can tell if they are."""

from __future__ import annotations

from pathlib import Path

from nvlearn import warmup


def _fake_cache(root: Path, skip: str | None = None) -> None:
    """numba's NUMBA_CACHE_DIR layout: <root>/<folder>_<hash>/<module>.<func>-<line>.py311.nbi"""
    for rel in warmup.KERNEL_MODULES:
        if rel == skip:
            continue
        module = Path(rel)
        folder = root / f"{(module.parent.name or 'nvlearn')}_0123abcd"
        folder.mkdir(exist_ok=True)
        (folder / f"{module.stem}.kernel-1.py311.nbi").write_text("")


def test_an_empty_cache_is_not_ready_and_a_full_one_is(tmp_path, monkeypatch):
    from nvlearn._jit import numba

    monkeypatch.setattr(warmup, "_PKG", Path("/pkg/nvlearn"))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    assert not warmup.kernels_cached()
    _fake_cache(tmp_path, skip="moe/router.py")
    assert not warmup.kernels_cached()            # one module's kernels are missing
    _fake_cache(tmp_path)
    assert warmup.kernels_cached()


def test_warm_loads_every_kernel_and_leaves_the_cache_ready(capsys):
    assert warmup.warm(verbose=False) >= 0
    assert warmup.kernels_cached()
    warmup.ensure_compiled()                     # ready: says nothing
    assert capsys.readouterr().out == ""
