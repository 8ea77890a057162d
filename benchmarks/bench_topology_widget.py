"""Benchmark: the traffic explorer of notebook 03, 50 control changes (report p50 / p95).

The explorer simulates each new setting once and caches it, so the benchmark reports both
all 50 updates (a learner's session: some settings revisited) and only the first visit of
each setting (a cold cache). Run: ``python benchmarks/bench_topology_widget.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import contextlib  # noqa: E402
import io  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

from widget_timing import N_UPDATES, percentile, time_updates  # noqa: E402

SEED = 0


def _moves(ex, choices: dict[str, list], first_visits: list[int]):
    """N_UPDATES seeded changes, each of one control to another of its ``choices``;
    appends to ``first_visits`` the index of each change that reached a new setting."""
    rng = random.Random(SEED)
    seen = {tuple(ex.values.values())}
    for i in range(N_UPDATES):
        name = rng.choice(list(choices))
        options = [v for v in choices[name] if v != ex.values[name]]
        yield {name: rng.choice(options)}
        key = tuple(ex.values.values())  # the setting change i reached
        if key not in seen:
            first_visits.append(i)
            seen.add(key)


def main() -> None:
    t0 = time.perf_counter()
    import matplotlib

    matplotlib.use("Agg")
    from nvlearn.switching.patterns import PATTERNS
    from nvlearn.widgets.switching import FABRIC_CHOICES, TAPERS, TrafficExplorer

    import_s = time.perf_counter() - t0
    quiet = contextlib.redirect_stdout(io.StringIO())  # outside Jupyter, display() prints
    t0 = time.perf_counter()
    with quiet:
        ex = TrafficExplorer()
    first_s = time.perf_counter() - t0
    choices = {
        "fabric": [kind for _, kind in FABRIC_CHOICES],
        "pattern": list(PATTERNS),
        "policy": ["adaptive", "static"],
        "taper": list(TAPERS),
    }
    first_visits: list[int] = []
    with contextlib.redirect_stdout(io.StringIO()):
        all_s = time_updates(ex, _moves(ex, choices, first_visits))
    cold_s = [all_s[i] for i in first_visits]
    print(
        f"bench_topology_widget: {N_UPDATES} updates of TrafficExplorer "
        f"({8 * ex.nodes} GPUs): p50 {statistics.median(all_s):.3f} s, "
        f"p95 {percentile(all_s, 95):.3f} s, max {max(all_s):.3f} s; "
        f"first visits only ({len(cold_s)}): p50 {statistics.median(cold_s):.3f} s, "
        f"p95 {percentile(cold_s, 95):.3f} s; import {import_s:.2f} s, "
        f"first render {first_s:.2f} s"
    )


if __name__ == "__main__":
    main()
