"""Benchmark: the notebook-04 explorer (AllreduceExplorer) update latency, 50 updates.

Each update sets one control — size, algorithm, GPU count, fabric, chunks in turn, as a
learner clicking around would — and times ``set()`` until the chart (SVG), NCCL's table and
the text have been recomputed and assigned to the widgets. The constructor warms the
caches (every fabric's best-depth sweep and NCCL table); a fixed ``chunks`` value is
computed on its first visit, so those updates are included cold. The browser's paint of the
SVG is not included (it is not Python's work). Prints the warm-up, first, median, p95 and
max. Target: p95 < 50 ms. Run: ``python benchmarks/bench_allreduce_widget.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics  # noqa: E402
import time  # noqa: E402

N_UPDATES = 50
TARGET_P95_S = 0.05


def _moves():
    """50 control changes visiting every fabric, GPU count, algorithm and several chunks."""
    from nvlearn.tuner import SIZES, VARIANTS
    from nvlearn.widgets.allreduce import FABRICS

    algos = list(VARIANTS)
    fabrics = list(FABRICS)
    chunks = (None, 4, None, 16, 1, None)
    moves = []
    for i in range(N_UPDATES):
        kind = i % 5
        if kind == 0:
            moves.append({"size": float(SIZES[(7 * i) % len(SIZES)])})
        elif kind == 1:
            moves.append({"algorithm": algos[i % len(algos)]})
        elif kind == 2:
            fabric = fabrics[(i // 5) % len(fabrics)]
            moves.append({"fabric": fabric})
        elif kind == 3:
            moves.append({"gpus": "next"})
        else:
            moves.append({"chunks": chunks[(i // 5) % len(chunks)]})
    return moves


def main() -> None:
    t0 = time.perf_counter()
    from nvlearn.widgets.allreduce import FABRICS, AllreduceExplorer

    ex = AllreduceExplorer()
    build_s = time.perf_counter() - t0
    times = []
    for values in _moves():
        if values.get("gpus") == "next":
            counts = FABRICS[ex.values["fabric"]][1]
            values = {"gpus": counts[(counts.index(ex.values["gpus"]) + 1) % len(counts)]}
        t = time.perf_counter()
        ex.set(**values)
        times.append(time.perf_counter() - t)
    times_sorted = sorted(times)
    p95 = times_sorted[int(round(0.95 * (len(times) - 1)))]
    verdict = "ok" if p95 < TARGET_P95_S else "SLOW"
    print(
        f"bench_allreduce_widget: {len(times)} updates: first {times[0] * 1e3:.1f} ms, median "
        f"{statistics.median(times) * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms, max "
        f"{max(times) * 1e3:.1f} ms (target p95 < {TARGET_P95_S * 1e3:g} ms: {verdict}); "
        f"import + cache warm-up + first render {build_s:.2f} s"
    )


if __name__ == "__main__":
    main()
