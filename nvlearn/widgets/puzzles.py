"""Explorer for notebook 09: the library schedules a puzzle is measured against, timed."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as W

from nvlearn.plots.timeline import gantt
from nvlearn.puzzles import PUZZLES, baseline, get, target_time, traffic_bound
from nvlearn.sim import simulate
from nvlearn.units import format_time
from nvlearn.widgets.base import Explorer

__all__ = ["PuzzleExplorer", "baseline_labels", "baseline_run", "render_puzzle"]


@lru_cache(maxsize=64)
def baseline_run(puzzle_id: str, label: str):
    """Simulate one library baseline of a puzzle's default instance (cached)."""
    inst = get(puzzle_id).instance()
    schedule = inst.puzzle.baselines(inst)[label]
    return simulate(inst.fabric, schedule, link_factor=inst.link_factor)


def baseline_labels(puzzle_id: str) -> list[str]:
    """Labels of the library schedules a puzzle's target is computed from."""
    inst = get(puzzle_id).instance()
    return list(inst.puzzle.baselines(inst))


def render_puzzle(puzzle_id: str, by: str):
    """Gantt chart of the puzzle's fastest library schedule, and the numbers of its target."""
    inst = get(puzzle_id).instance()
    label, t_best = baseline(inst)
    res = baseline_run(puzzle_id, label)
    fig = gantt(res, by=by, max_rows=16)
    fig.axes[0].set_title(f"{puzzle_id}: the library's {label} (achievable model)")
    lines = [repr(inst),
             f"library's best: {label}, {format_time(t_best)} (achievable model)",
             f"target: {inst.puzzle.factor:g} x that = {format_time(target_time(inst))}",
             f"wire-rate traffic bound (no schedule can beat it): "
             f"{format_time(traffic_bound(inst))}"]
    others = [k for k in baseline_labels(puzzle_id) if k != label]
    if others:
        lines.append("other baselines: " + ", ".join(
            f"{k} {format_time(baseline_run(puzzle_id, k).time)}" for k in others))
    return fig, "\n".join(lines)


class PuzzleExplorer(Explorer):
    """Pick a puzzle; see when each rank (or link) of the library's best schedule is busy.

    ``.set(...)``, ``.text`` and ``.figure`` work as in :class:`~nvlearn.widgets.base.Explorer`.

    Examples
    --------
    >>> ex = PuzzleExplorer()
    >>> ex.set(puzzle_id="degraded_allreduce")
    >>> "target: 0.25 x" in ex.text
    True
    """

    def __init__(self) -> None:
        style = {"description_width": "initial"}
        controls = {
            "puzzle_id": W.Dropdown(options=[p.id for p in PUZZLES], value=PUZZLES[0].id,
                                    description="puzzle", style=style),
            "by": W.ToggleButtons(options=[("per rank", "rank"), ("per link", "link")],
                                  value="rank", description="rows", style=style),
        }
        super().__init__(controls, render_puzzle, title="The schedules to beat")
