"""Benchmark: the notebook-01 explorer (SGDExplorer) update latency, 50 updates.

Each update sets one control (cycling through GPU counts, fabrics, overlap and model size,
as a learner clicking around would) and times the full re-render: step-time model, all-reduce
estimate (cached after the first visit of a configuration) and the matplotlib figure.
Prints the first (cold) update, median and p95 of the 50. Target: p95 < 0.5 s.
Run: ``python benchmarks/bench_sgd_widget.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from widget_timing import N_UPDATES, summary_ms, time_updates  # noqa: E402

TARGET_P95_S = 0.5


def _moves():
    """50 control changes that visit every fabric, overlap setting and several scales."""
    from nvlearn.sgd.steptime import SCALING_GPUS

    fabrics = ("nvlink_pod", "pcie_box", "ib_cluster")
    models = ("70B", "7B", "13B")
    moves = []
    for i in range(N_UPDATES):
        kind = i % 4
        if kind == 0:
            moves.append({"workers": SCALING_GPUS[(3 * i) % len(SCALING_GPUS)]})
        elif kind == 1:
            moves.append({"fabric": fabrics[i % 3]})
        elif kind == 2:
            moves.append({"overlap": bool(i % 8 == 2)})
        else:
            moves.append({"model": models[i % 3]})
    return moves


def main() -> None:
    t0 = time.perf_counter()
    from nvlearn.widgets.sgd import SGDExplorer

    ex = SGDExplorer()
    build_s = time.perf_counter() - t0
    times = time_updates(ex, _moves())
    print(
        f"bench_sgd_widget: {summary_ms(times, TARGET_P95_S)}; "
        f"import + first render {build_s:.2f} s"
    )


if __name__ == "__main__":
    main()
