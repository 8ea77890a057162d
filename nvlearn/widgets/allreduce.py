"""Explorer for notebook 04: which all-reduce, at which size, on which fabric — and why.

Controls: model of the fabric (achievable or wire), algorithm, message size, GPU count,
fabric, pipeline depth (chunks). Output: a chart of every algorithm's time over sizes (closed
forms on the fabric's parameters under that model, the chosen algorithm drawn thick, the size
marked, the changes of the fastest marked), NCCL's cost table at that size
(:func:`nvlearn.tuner.choose`), and a text with the numbers.

The chart is drawn as SVG, not matplotlib, and every sweep and table is cached per
(fabric, GPUs, chunks): an update costs milliseconds (``benchmarks/bench_allreduce_widget.py``).
:meth:`AllreduceExplorer.figure` draws the same state with matplotlib for a static page.
"""

from __future__ import annotations

import functools
import queue
import threading
import time

import ipywidgets as W
import numpy as np
from IPython.display import HTML

from nvlearn import tuner
from nvlearn.collectives.metrics import busbw_factor
from nvlearn.plots.allreduce import (
    ALGO_LABELS,
    size_label,
    sweep_line_figure,
    sweep_svg,
    time_label,
)
from nvlearn.sim.models import MODELS
from nvlearn.topology import FABRICS as REGISTRY
from nvlearn.topology import fabric as build_fabric
from nvlearn.units import format_rate
from nvlearn.widgets import worker
from nvlearn.widgets.base import Controls, _in_kernel, control_row

__all__ = ["CHUNKS", "FABRICS", "GPU_COUNTS", "AllreduceExplorer", "render_state", "warm_caches"]

#: GPU counts the explorer offers on each fabric of :data:`nvlearn.topology.FABRICS`.
GPU_COUNTS: dict[str, tuple[int, ...]] = {
    "dgx_h100": (2, 4, 8),
    "nvlink_pod": (16, 32, 64, 128, 256),
    "ib_cluster": (16, 32, 64, 128, 256),
}
#: Fabrics of the explorer: key -> (the registry's label, GPU counts offered).
FABRICS: dict[str, tuple[str, tuple[int, ...]]] = {
    key: (REGISTRY[key].label, counts) for key, counts in GPU_COUNTS.items()}
#: Boxes a fabric is built with for a GPU count; the others are built at the registry's
#: default size (the whole pod) and the collective runs on its first GPUs.
_NODES_FOR = {"ib_cluster": lambda gpus: max(2, gpus // 8)}
#: Pipeline depths offered; None = each algorithm at its best depth.
CHUNKS = (None, 1, 2, 4, 8, 16, 32, 64)
#: The "chunks" dropdown's value for None (a Dropdown whose value is None shows nothing).
_BEST_CHUNKS = 0


def _topology(fabric: str, gpus: int):
    nodes = _NODES_FOR.get(fabric)
    return build_fabric(fabric, None if nodes is None else nodes(gpus))


@functools.lru_cache(maxsize=64)
def _params(fabric: str, gpus: int) -> tuner.LinkParams:
    return tuner.link_params(_topology(fabric, gpus), gpus)


def _closed_forms(fabric: str, gpus: int, chunks: int | None, model: str) -> tuner.Sweep:
    return tuner.closed_form_sweep(_params(fabric, gpus), tuner.SIZES, chunks=chunks,
                                   model=model)


#: Sweeps built so far, by (fabric, GPUs, chunks, model): at most every option's, ~200.
_SWEEPS: dict[tuple, tuner.Sweep] = {}


def _sweep(fabric: str, gpus: int, chunks: int | None, model: str) -> tuner.Sweep:
    key = (fabric, gpus, chunks, model)
    if key not in _SWEEPS:
        _SWEEPS[key] = _closed_forms(*key)
    return _SWEEPS[key]


@functools.lru_cache(maxsize=64)
def _tuning(fabric: str, gpus: int) -> tuner.Tuning:
    return tuner.tune("allreduce", _topology(fabric, gpus), n_ranks=gpus)


def warm_caches() -> float:
    """Build every fabric's topology, best-depth sweep and NCCL table once (seconds taken),
    so that the explorer's updates only read caches. Fixed-``chunks`` sweeps (about 80 ms
    each) are built by the explorer in the background for the fabric and GPU count shown
    (:meth:`AllreduceExplorer.update`)."""
    t0 = time.perf_counter()
    for fabric, (_, counts) in FABRICS.items():
        for gpus in counts:
            for model in MODELS:
                _sweep(fabric, gpus, None, model)
            _tuning(fabric, gpus)
    return time.perf_counter() - t0


def _check(fabric: str, gpus: int, algorithm: str, size: float, chunks,
           model: str = MODELS[0]) -> None:
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if fabric not in FABRICS:
        raise ValueError(f"unknown fabric {fabric!r}; choose from {', '.join(FABRICS)}")
    if gpus not in FABRICS[fabric][1]:
        raise ValueError(f"{FABRICS[fabric][0]} offers {FABRICS[fabric][1]} GPUs, not {gpus}")
    if algorithm not in tuner.VARIANTS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from "
                         f"{', '.join(tuner.VARIANTS)}")
    if chunks not in CHUNKS:
        raise ValueError(f"chunks must be one of {CHUNKS}, got {chunks!r}")
    if not size > 0:
        raise ValueError(f"size must be > 0 bytes, got {size}")


def render_state(algorithm: str, size: float, gpus: int, fabric: str,
                 chunks: int | None, model: str = MODELS[0]) -> tuple[str, str, str]:
    """``(svg, table_html, text)`` for one state of the explorer (pure; cached inside).

    Parameters
    ----------
    algorithm : str
        One of :data:`nvlearn.tuner.VARIANTS`, drawn thick; one that cannot run on the
        fabric is said so in the text.
    size : float
        Message size per GPU, bytes (> 0), marked on the chart.
    gpus : int
        GPUs, one of the counts :data:`FABRICS` offers for ``fabric``.
    fabric : str
        A key of :data:`FABRICS`.
    chunks : int or None
        Pipeline depth, one of :data:`CHUNKS`; None: each algorithm at its best.
    model : str
        ``"achievable"`` (NCCL's rates, protocols, latencies) or ``"wire"``.

    Returns
    -------
    svg : str
        The time-vs-size chart of the closed forms (:func:`~nvlearn.plots.allreduce.sweep_svg`).
    table_html : str
        NCCL's cost table at ``size``, best rows first.
    text : str
        The chosen algorithm's time, algbw and busbw, the fastest, the link parameters of
        the model and NCCL's pick, one per line.

    Raises
    ------
    ValueError
        An unknown model, fabric or algorithm, a GPU count the fabric does not offer,
        chunks not in :data:`CHUNKS`, or ``size <= 0``.

    Examples
    --------
    >>> svg, table, text = render_state("ring", 2**30, 8, "dgx_h100", None)
    >>> svg.startswith("<svg") and "NVLS/Simple" in table and "achievable" in text
    True
    """
    _check(fabric, gpus, algorithm, size, chunks, model)
    sw = _sweep(fabric, gpus, chunks, model)
    tuning = _tuning(fabric, gpus)
    choice = tuning.at(size)
    params = _params(fabric, gpus)
    times = {a: sw.row(a) for a in sw.algorithms}
    label = FABRICS[fabric][0]
    title = (f"{label}, {gpus} GPUs — {model} model, closed forms, "
             + ("each at its best pipeline depth" if chunks is None
                else f"{chunks} chunk{'s' if chunks > 1 else ''}"))
    svg = sweep_svg(sw.sizes, times, highlight=algorithm if algorithm in times else None,
                    marker=size, crossovers=sw.crossovers(), title=title)
    t_at = {a: float(np.interp(size, sw.sizes, times[a])) for a in times}
    fastest = min(t_at, key=t_at.get)
    lines = []
    if algorithm in times:
        t = t_at[algorithm]
        i = sw.algorithms.index(algorithm)
        ch = int(sw.chunks[i, int(np.argmin(np.abs(np.log2(sw.sizes / size))))])
        alg = size / t
        lines.append(
            f"{ALGO_LABELS[algorithm]}, {size_label(size)} on {gpus} GPUs of {label}: "
            f"{time_label(t)} ({ch} chunk{'s' if ch > 1 else ''}); algbw "
            f"{format_rate(alg)}, busbw {format_rate(alg * busbw_factor('allreduce', gpus))}")
    else:
        why = ("NVLS needs all GPUs on one NVSwitch" if algorithm == "nvls"
               else "hierarchical needs more than one node")
        lines.append(f"{ALGO_LABELS[algorithm]} does not run here ({why}).")
    lines.append(f"fastest of these at {size_label(size)} ({model} model): "
                 f"{ALGO_LABELS[fastest]} ({time_label(t_at[fastest])})")
    if model == "wire":
        lines.append(f"wire: {format_rate(params.bw_per_dir)} per direction per GPU, "
                     f"{params.alpha * 1e6:.2g} µs per message, no software cost")
    elif algorithm in times:
        ap, base, proto = tuner.achievable_params(params, algorithm, size)
        lines.append(f"achievable ({proto.upper() if proto != 'simple' else 'Simple'}): "
                     f"{format_rate(ap.bw_per_dir)} per direction per GPU (wire "
                     f"{format_rate(params.bw_per_dir)}), {ap.alpha * 1e6:.2g} µs per step "
                     f"+ {base * 1e6:.3g} µs once")
    lines.append(f"NCCL's model picks {choice.best.label} ({time_label(choice.time)})")
    return svg, choice.to_html(formulas=False, max_rows=7), "\n".join(lines)


class AllreduceExplorer(Controls):
    """Algorithm, size, GPU count, fabric and chunks -> chart, NCCL's table and numbers.

    Works like :class:`~nvlearn.widgets.base.Explorer`: ``.set(**values)`` moves controls,
    ``.text`` / ``.svg`` / ``.table_html`` hold the output, ``.last_update_s`` the time the
    last update took; :meth:`figure` draws the current chart with matplotlib.

    Examples
    --------
    >>> ex = AllreduceExplorer()
    >>> ex.set(fabric="nvlink_pod", gpus=256, size=2**30)
    >>> "256 GPUs" in ex.text
    True
    """

    def __init__(self, algorithm: str = "ring", size: float = 2**20, fabric: str = "dgx_h100",
                 gpus: int = 8, chunks: int | None = None, model: str = MODELS[0],
                 warm: bool = True) -> None:
        """Build the controls at the given state and draw it.

        Parameters
        ----------
        algorithm, size, fabric, gpus, chunks, model
            The starting state, as in :func:`render_state` (checked the same way).
        warm : bool
            First compute the sweeps and NCCL tables of every fabric and GPU count
            (:func:`warm_caches`), so that no later move waits for one.
        """
        _check(fabric, gpus, algorithm, size, chunks, model)
        if warm:
            warm_caches()
        size_opts = [(size_label(s), float(s)) for s in tuner.SIZES]
        self.controls = {
            "algorithm": W.Dropdown(options=[(ALGO_LABELS[a], a) for a in tuner.VARIANTS],
                                    value=algorithm, description="algorithm"),
            "size": W.SelectionSlider(options=size_opts, value=float(size),
                                      description="size", continuous_update=False),
            "gpus": W.Dropdown(options=list(FABRICS[fabric][1]), value=gpus,
                               description="GPUs"),
            "fabric": W.ToggleButtons(options=[(v[0], k) for k, v in FABRICS.items()],
                                      value=fabric, description="fabric"),
            "chunks": W.Dropdown(options=[("best", _BEST_CHUNKS)]
                                 + [(str(c), c) for c in CHUNKS[1:]],
                                 value=_BEST_CHUNKS if chunks is None else chunks,
                                 description="chunks"),
            "model": W.ToggleButtons(options=[("achievable (NCCL)", "achievable"),
                                              ("wire (ideal)", "wire")],
                                     value=model, description="model"),
        }
        self._chart = W.HTML()
        self._table = W.HTML()
        self._text = W.HTML()
        self.svg = self.table_html = self.text = ""
        self.last_update_s = 0.0
        self._quiet = False
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._warmer: threading.Thread | None = None
        c = self.controls
        self.widget = W.VBox([
            W.HTML("<b>All-reduce explorer: which algorithm, and why</b>"),
            control_row([c[k] for k in ("fabric", "gpus", "model", "algorithm", "chunks",
                                        "size")]),
            self._chart, self._text, self._table])
        for name, control in self.controls.items():
            control.observe(self._on_fabric if name == "fabric" else self._on_change,
                            names="value")
        self.update()

    @property
    def values(self) -> dict:
        """Current control values by keyword (``chunks`` None = each at its best depth)."""
        values = super().values
        if values["chunks"] == _BEST_CHUNKS:
            values["chunks"] = None
        return values

    def set(self, **values) -> None:
        """Set controls from Python (as a learner moving them would); one update at the end.

        The fabric is set first: it decides which GPU counts are offered.
        """
        if "chunks" in values and values["chunks"] is None:
            values["chunks"] = _BEST_CHUNKS
        if "fabric" in values:
            values = {"fabric": values.pop("fabric"), **values}
        self._quiet = True
        try:
            super().set(**values)
        finally:
            self._quiet = False
        self.update()

    def _on_fabric(self, change) -> None:
        options = FABRICS[change["new"]][1]
        gpus = self.controls["gpus"]
        keep = gpus.value if gpus.value in options else options[-1]
        quiet, self._quiet = self._quiet, True
        try:
            with gpus.hold_sync():  # one message to the browser for options and value
                gpus.options = list(options)
                gpus.value = keep
        finally:
            self._quiet = quiet
        self._on_change(change)

    def _on_change(self, _change) -> None:
        if not self._quiet:
            self.update()

    def update(self) -> None:
        """Re-render from the current control values."""
        t0 = time.perf_counter()
        self.svg, self.table_html, self.text = render_state(**self.values)
        self._chart.value = self.svg
        self._table.value = self.table_html
        self._text.value = f"<pre style='white-space:pre-wrap'>{self.text}</pre>"
        self.last_update_s = time.perf_counter() - t0
        if _in_kernel():
            self._warm_depths()

    def _warm_depths(self) -> None:
        """Build the sweeps the "chunks" and "model" controls can reach from here (this
        fabric and GPU count: every depth, both models) in the worker process
        (:mod:`nvlearn.widgets.worker`), so the first visit of a depth reads a cache and
        the kernel's interpreter stays free meanwhile (a thread here would take turns with
        every update)."""
        if self._warmer is None:
            self._warmer = threading.Thread(target=self._warm_loop, daemon=True,
                                            name="nvlearn-allreduce-warm")
            self._warmer.start()
        self._jobs.put(self.depth_jobs())

    def depth_jobs(self) -> list[tuple]:
        """The sweeps one "chunks" or "model" move away, as ``_sweep`` arguments: every
        fixed depth under the current model, then under the other."""
        v = self.values
        models = (v["model"], *(m for m in MODELS if m != v["model"]))
        return [(v["fabric"], v["gpus"], c, m) for m in models for c in CHUNKS[1:]]

    def _warm_loop(self) -> None:
        in_process = True
        while True:
            jobs = self._jobs.get()
            for job in jobs:
                if not self._jobs.empty():
                    break  # the learner moved on: warm around the new state instead
                if job in _SWEEPS:
                    continue
                if in_process:
                    try:
                        _SWEEPS[job] = worker.call(_closed_forms, *job).result()
                        continue
                    except (OSError, RuntimeError):  # no worker: build them here
                        in_process = False
                _sweep(*job)

    def figure(self):
        """The current chart as a matplotlib Figure (for a static page)."""
        v = self.values
        sw = _sweep(v["fabric"], v["gpus"], v["chunks"], v["model"])
        return sweep_line_figure(sw, highlight=v["algorithm"], marker=v["size"],
                                 title=f"{FABRICS[v['fabric']][0]}, {v['gpus']} GPUs "
                                       f"({v['model']} model, closed forms)")

    def static(self):
        """The current output as HTML (chart, text, table) without widgets."""
        return HTML(self.svg + f"<pre style='white-space:pre-wrap'>{self.text}</pre>"
                    + self.table_html)
