"""Compile (or load) every numba kernel once, so no notebook sits silent on a cold start.

The first call of a numba kernel in a fresh environment compiles it — about a minute
for all of nvlearn's kernels on two cores — and writes machine code to the cache; later
processes load it in well under a second. ``make lab`` and ``make test`` run
``python -m nvlearn.warmup`` once after installing, so a learner's first notebook finds the
cache ready. A notebook's set-up cell calls :func:`ensure_compiled`, which says what is
happening (and how long it takes) only when a compile is really needed.

Examples
--------
>>> seconds = warm(verbose=False)     # loads from the cache after the first time
>>> seconds >= 0
True
"""

from __future__ import annotations

import time

from nvlearn._jit import _PKG_DIR, cache_folder, kernel_modules

__all__ = ["KERNEL_MODULES", "ensure_compiled", "kernels_cached", "warm"]

_PKG = _PKG_DIR
#: Modules (relative to the package) that define numba kernels: every module with an
#: ``@njit`` line, found when this module is imported (so a new kernel module is never missed).
#: Importing :mod:`nvlearn._jit` here also drops kernels cached from older sources, so
#: :func:`kernels_cached` tells the truth after an update.
KERNEL_MODULES: tuple[str, ...] = tuple(p.relative_to(_PKG_DIR).as_posix()
                                        for p in kernel_modules())


def kernels_cached() -> bool:
    """Whether every kernel module has a numba cache index (``*.nbi``) for its source.

    Examples
    --------
    >>> isinstance(kernels_cached(), bool)
    True
    """
    for rel in KERNEL_MODULES:
        module = _PKG / rel
        if not any(cache_folder(module).glob(f"{module.stem}.*.nbi")):
            return False
    return True


def warm(verbose: bool = True) -> float:
    """Run every kernel once on a tiny input (compiling or loading it); seconds taken."""
    t0 = time.perf_counter()
    from nvlearn import collectives, moe, serdes
    from nvlearn.serdes.fec import catalogue_code
    from nvlearn.sim import max_min_rates, simulate
    from nvlearn.switching import patterns
    from nvlearn.topology import dgx_h100, single_switch, with_routing

    for model in ("wire", "achievable"):
        simulate(single_switch(4, 100e9, 1e-6), collectives.allreduce(4, 1e6, chunks=2),
                 model=model)
    max_min_rates([10.0, 2.0], [0, 1, 3], [0, 0, 1], [1.0, 1.0, 1.0])  # fairness on its own
    dgx = dgx_h100()
    simulate(with_routing(dgx, "static"), collectives.alltoall(dgx, 8e6), model="wire")
    moe.route(8, 64, 16, 2, capacity_factor=1.0, seed=0)
    serdes.simulate_link(64, "PAM4", loss_db=3.0, jitter_ui=0.01, ffe_taps=2, dfe_taps=1,
                         eye_symbols=32)
    serdes.simulate_codewords(1e-4, catalogue_code(), 8, burst_bits=2)
    patterns.hol_saturation_throughput(4, slots=200)
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"nvlearn kernels ready in {seconds:.1f} s")
    return seconds


def ensure_compiled() -> None:
    """For a notebook's set-up cell: compile the kernels now if the cache lacks them, and say
    so (a first run on a new machine takes about a minute); silent otherwise."""
    if kernels_cached():
        return
    print("First run on this machine: compiling nvlearn's numba kernels (about a minute on two "
          "cores; later runs load them from the cache) ...", flush=True)
    warm(verbose=True)


if __name__ == "__main__":
    warm()
