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

import time  # noqa: E402

from widget_timing import N_UPDATES, summary_ms, time_updates  # noqa: E402

TARGET_P95_S = 0.05


def _moves(ex):
    """50 control changes visiting every fabric, GPU count, algorithm and several chunks
    (a generator: the next GPU count is read off the explorer's current fabric)."""
    from nvlearn.tuner import SIZES, VARIANTS
    from nvlearn.widgets.allreduce import FABRICS

    algos = list(VARIANTS)
    fabrics = list(FABRICS)
    chunks = (None, 4, None, 16, 1, None)
    for i in range(N_UPDATES):
        kind = i % 5
        if kind == 0:
            yield {"size": float(SIZES[(7 * i) % len(SIZES)])}
        elif kind == 1:
            yield {"algorithm": algos[i % len(algos)]}
        elif kind == 2:
            yield {"fabric": fabrics[(i // 5) % len(fabrics)]}
        elif kind == 3:
            counts = FABRICS[ex.values["fabric"]][1]
            yield {"gpus": counts[(counts.index(ex.values["gpus"]) + 1) % len(counts)]}
        else:
            yield {"chunks": chunks[(i // 5) % len(chunks)]}


def main() -> None:
    t0 = time.perf_counter()
    from nvlearn.widgets.allreduce import AllreduceExplorer

    ex = AllreduceExplorer()
    build_s = time.perf_counter() - t0
    times = time_updates(ex, _moves(ex))
    summary = summary_ms(times, TARGET_P95_S, decimals=1, target_in_ms=True)
    print(f"bench_allreduce_widget: {summary}; "
          f"import + cache warm-up + first render {build_s:.2f} s")


if __name__ == "__main__":
    main()
