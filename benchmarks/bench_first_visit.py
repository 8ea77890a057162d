"""Benchmark: what a first visit of a state costs the explorers of notebooks 00-03 and 05,
figure only (CPU seconds in this process, the simulation left out).

For each explorer it lists the states one move away from its first state (every other
option of each dropdown and toggle, up to :data:`SLIDER_STEPS` values of each slider), renders
each once to warm the simulators' caches (into new figures), then renders them all again in
turn as the explorer does, timing the render call ("build": the figure made or updated, the
simulation a cache hit) and its PNG ("draw": the Agg draw and the encoding,
:func:`nvlearn.widgets.base.figure_png`). The eye explorer (notebook 02) re-runs its Monte
Carlo on every render; its simulation time is measured on its own and taken out of "build".

Run: ``python benchmarks/bench_first_visit.py [--explorers ladder moe]``; it prints one line
per explorer (median and max of build, draw and their sum, in ms) and the load average. The
timed renders run in the explorer's :func:`~nvlearn.plots.live.scope`, as in the explorer:
its figures stay alive from state to state, and a state that needs a new background (a new
layout: the ladder's unit, the MoE explorer's GPU count) draws it then. They are the second
render of each state, so matplotlib's text-metrics cache knows their strings: a real first
visit draws slightly slower.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import ipywidgets as W  # noqa: E402

#: Values of each slider visited (the first ones after and before its value).
SLIDER_STEPS = 4


def _explorers() -> dict[str, Callable]:
    from nvlearn.widgets.ladder import LadderExplorer
    from nvlearn.widgets.moe import MoEExplorer
    from nvlearn.widgets.serdes import EyeExplorer
    from nvlearn.widgets.sgd import SGDExplorer
    from nvlearn.widgets.switching import TrafficExplorer

    return {"ladder": LadderExplorer, "sgd": SGDExplorer,
            "eye": lambda: EyeExplorer(n_symbols=100_000, seed=0),
            "traffic": TrafficExplorer, "moe": MoEExplorer}


def _other_values(control: W.ValueWidget) -> list:
    """The values of ``control`` one move away from its current one (see module doc)."""
    if isinstance(control, W.Checkbox):
        return [not control.value]
    options = getattr(control, "_options_values", None)
    if options is not None and not isinstance(control, W.SelectionSlider):
        return [o for o in options if o != control.value]
    if options is not None:
        values = list(options)
    else:
        n = round((control.max - control.min) / control.step)
        values = [round(control.min + i * control.step, 9) for i in range(n + 1)]
    i = min(range(len(values)), key=lambda j: abs(values[j] - control.value))
    order = sorted((v for j, v in enumerate(values) if j != i),
                   key=lambda v: abs(values.index(v) - i))
    return order[:SLIDER_STEPS]


def _states(ex) -> list[dict]:
    """Every state one move away from ``ex``'s current values."""
    base = ex.values
    return [{**base, name: v} for name, c in ex.controls.items() for v in _other_values(c)]


def _time_states(ex, states: list[dict], sim: Callable[[dict], object] | None
                 ) -> tuple[list[float], list[float]]:
    """CPU seconds of (build, draw) per state; ``sim(values)`` is timed alone and taken out
    of build when the render re-runs a simulation that no cache keeps."""
    import matplotlib.pyplot as plt

    from nvlearn.widgets.base import figure_png

    build, draw = [], []
    for values in states:
        sim_s = 0.0
        if sim is not None:
            t = time.process_time()
            sim(values)
            sim_s = time.process_time() - t
        t0 = time.process_time()
        fig = ex._render(**values)[0]
        t1 = time.process_time()
        figure_png(fig)
        t2 = time.process_time()
        plt.close(fig)
        build.append(max(0.0, t1 - t0 - sim_s))
        draw.append(t2 - t1)
    return build, draw


def _eye_sim(ex) -> Callable[[dict], object]:
    from nvlearn.serdes.channel import simulate_link
    from nvlearn.widgets.serdes import EQUALISER_TAPS

    def sim(values: dict) -> object:
        taps = EQUALISER_TAPS if values["equaliser"] else {"ffe_taps": 1, "dfe_taps": 0}
        return simulate_link(ex.n_symbols, values["modulation"], snr_db=values["snr_db"],
                             loss_db=values["loss_db"], jitter_ui=values["jitter_ui"],
                             seed=ex.seed, **taps)
    return sim


def _scope(owner: object) -> contextlib.AbstractContextManager:
    """The explorer's :func:`nvlearn.plots.live.scope` (nothing in a tree from before live
    figures: the "before" of a comparison)."""
    try:
        from nvlearn.plots import live
    except ImportError:
        return contextlib.nullcontext()
    return live.scope(owner)


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:6.0f} / {max(values) * 1e3:5.0f}"


def main() -> None:
    makers = _explorers()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--explorers", nargs="+", choices=list(makers), default=list(makers))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at the start; CPU ms, median / max")
    print(f"{'explorer':9} {'states':>6}  {'build':>13}  {'draw + PNG':>13}  {'render':>13}")
    for name in args.explorers:
        ex = makers[name]()
        states = _states(ex)
        sim = _eye_sim(ex) if name == "eye" else None
        _time_states(ex, states, sim)  # warm the simulators' caches (new figures)
        with _scope(ex):  # as the explorer renders: its live figures
            build, draw = _time_states(ex, states, sim)
        total = [b + d for b, d in zip(build, draw, strict=True)]
        print(f"{name:9} {len(states):6}  {_ms(build)}  {_ms(draw)}  {_ms(total)}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
