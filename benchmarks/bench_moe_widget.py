"""Benchmark: the notebook-05 explorer (MoEExplorer) update latency, 50 updates.

Each update sets one control to a value drawn (seeded) from that control's choices, as a
learner clicking around would; every update re-routes the tokens, simulates dispatch and
combine on the chosen fabric (cached only when a whole setting repeats) and redraws the
figure. Invalid settings (experts not divisible across the GPUs) answer with a message and
count too. Prints the first update, median, p95 and max. Target: p95 < 0.5 s.
Run: ``python benchmarks/bench_moe_widget.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")

N_UPDATES = 50
TARGET_P95_S = 0.5


def _moves(controls) -> list[dict]:
    """50 (control, value) changes cycling through every control, values seeded."""
    rng = random.Random(0)
    names = list(controls)
    moves = []
    for i in range(N_UPDATES):
        name = names[i % len(names)]
        c = controls[name]
        if hasattr(c, "options") and c.options:
            opts = [o[1] if isinstance(o, tuple) else o for o in c.options]
            choices = [o for o in opts if o != c.value] or opts
            value = rng.choice(choices)
        elif isinstance(c.value, float):
            value = round(rng.uniform(c.min, c.max) / c.step) * c.step
        else:
            value = rng.randint(c.min, c.max)
        moves.append({name: value})
    return moves


def main() -> None:
    t0 = time.perf_counter()
    from nvlearn.widgets.moe import MoEExplorer

    ex = MoEExplorer()
    build_s = time.perf_counter() - t0
    times = []
    for values in _moves(ex.controls):
        t = time.perf_counter()
        ex.set(**values)
        times.append(time.perf_counter() - t)
    times_sorted = sorted(times)
    p95 = times_sorted[int(round(0.95 * (len(times) - 1)))]
    verdict = "ok" if p95 < TARGET_P95_S else "SLOW"
    print(
        f"bench_moe_widget: {len(times)} updates: first {times[0] * 1e3:.0f} ms, median "
        f"{statistics.median(times) * 1e3:.0f} ms, p95 {p95 * 1e3:.0f} ms, max "
        f"{max(times) * 1e3:.0f} ms (target p95 < {TARGET_P95_S:g} s: {verdict}); "
        f"import + first render {build_s:.2f} s"
    )


if __name__ == "__main__":
    main()
