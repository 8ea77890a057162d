"""What the widget benchmarks share: time an explorer's updates and summarise them.

Each ``bench_*_widget.py`` builds its explorer, lists its control changes and calls
:func:`time_updates`; :func:`percentile` and :func:`summary_ms` give the numbers and the
line it prints. The scripts import this module from their own folder (``python
benchmarks/bench_<name>_widget.py`` puts it on ``sys.path``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Control changes each widget benchmark makes.
N_UPDATES = 50


def time_updates(explorer: Any, moves: Iterable[Mapping[str, Any]]) -> list[float]:
    """Seconds each ``explorer.set(**move)`` took (wall clock), one per move, in order.

    ``moves`` may be a generator that reads the explorer's state (for instance the GPU
    counts the current fabric offers): its code runs between the timed calls.
    """
    times = []
    for values in moves:
        t = time.perf_counter()
        explorer.set(**values)
        times.append(time.perf_counter() - t)
    return times


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ``values``: the sorted value nearest to rank
    ``q / 100 * (len - 1)``."""
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary_ms(times: Sequence[float], target_p95_s: float, *, decimals: int = 0,
               target_in_ms: bool = False) -> str:
    """``"50 updates: first .. ms, median .. ms, p95 .. ms, max .. ms (target p95 < ..: ok)"``
    (``SLOW`` instead of ``ok`` when the p95 misses the target; the target printed in s, or
    in ms with ``target_in_ms``)."""
    p95 = percentile(times, 95)
    verdict = "ok" if p95 < target_p95_s else "SLOW"
    target = f"{target_p95_s * 1e3:g} ms" if target_in_ms else f"{target_p95_s:g} s"
    ms = [f"{s * 1e3:.{decimals}f} ms" for s in (times[0], statistics.median(times), p95,
                                                  max(times))]
    return (f"{len(times)} updates: first {ms[0]}, median {ms[1]}, p95 {ms[2]}, max {ms[3]} "
            f"(target p95 < {target}: {verdict})")
