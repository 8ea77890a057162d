"""Benchmark: the SerDes Monte Carlo link, 10^6 symbols on one core (target < 1 s).

Prints one line per case: compile + first call, then the best and median of repeated runs.
Run: ``python benchmarks/bench_serdes.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: numpy/BLAS must not fan out
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import statistics  # noqa: E402
import time  # noqa: E402

N_SYMBOLS = 10**6
REPEATS = 5
TARGET_S = 1.0

CASES = {
    "PAM4, clean channel": dict(modulation="PAM4", snr_db=20.0),
    "PAM4, 10 dB loss, jitter 0.02 UI, FFE 3 + DFE 3": dict(
        modulation="PAM4", snr_db=26.0, loss_db=10.0, jitter_ui=0.02, ffe_taps=3, dfe_taps=3
    ),
}


def main() -> None:
    t0 = time.perf_counter()
    from nvlearn.serdes.channel import simulate_link

    import_s = time.perf_counter() - t0
    for name, kwargs in CASES.items():
        t0 = time.perf_counter()
        simulate_link(1_000, seed=0, **kwargs)  # compile or load from numba's cache
        first_s = time.perf_counter() - t0
        times = []
        for seed in range(REPEATS):
            t0 = time.perf_counter()
            simulate_link(N_SYMBOLS, seed=seed, **kwargs)
            times.append(time.perf_counter() - t0)
        best, median = min(times), statistics.median(times)
        verdict = "ok" if median < TARGET_S else "SLOW"
        print(
            f"bench_serdes: simulate_link {N_SYMBOLS:.0e} symbols [{name}], 32 samples/UI, "
            f"1 core: best {best:.3f} s, median {median:.3f} s of {REPEATS} "
            f"(target < {TARGET_S:g} s: {verdict}); import {import_s:.2f} s, "
            f"first call {first_s:.2f} s"
        )


if __name__ == "__main__":
    main()
