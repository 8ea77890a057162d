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
import time  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from widget_timing import N_UPDATES, summary_ms, time_updates  # noqa: E402

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
    times = time_updates(ex, _moves(ex.controls))
    print(
        f"bench_moe_widget: {summary_ms(times, TARGET_P95_S)}; "
        f"import + first render {build_s:.2f} s"
    )


if __name__ == "__main__":
    main()
