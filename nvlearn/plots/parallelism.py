"""Figures for notebook 07 (parallelism strategies): step split, GPU-pair traffic, memory."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm

from nvlearn.parallelism import (
    FABRIC_NAMES,
    Layout,
    Memory,
    StepTime,
    box_traffic,
    bubble_fraction,
)
from nvlearn.parallelism.search import TPSpan
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure

__all__ = ["FABRIC_LINE", "MAX_PAIR_GPUS", "MEMORY_COLOURS", "PART_COLOURS", "STRATEGY_NAMES",
           "bubble_figure", "draw_memory", "draw_pair_traffic", "draw_step_split",
           "memory_figure", "pair_traffic_figure", "step_split_figure", "tp_span_figure"]

#: Colours of the parts of a step and of each strategy's traffic.
PART_COLOURS = {"compute": "#9ecae1", "tp": SERIES[0], "pp": SERIES[2], "ep": SERIES[3],
                "dp": SERIES[1], "bubble": "#bdbdbd"}
STRATEGY_NAMES = {"tp": "tensor (TP)", "pp": "pipeline (PP)", "ep": "expert (EP)",
                  "dp": "data (DP / ZeRO)"}
MEMORY_COLOURS = {"weights": SERIES[0], "gradients": SERIES[2], "optimizer": SERIES[1],
                  "activations": "#9ecae1"}
FABRIC_LINE = {"nvlink_pod": FABRIC_COLOURS["nvlink"], "ib_cluster": FABRIC_COLOURS["infiniband"],
               "dgx_h100": FABRIC_COLOURS["nvswitch"]}


def draw_step_split(ax, steps: Sequence[StepTime], labels: Sequence[str] | None = None) -> None:
    """Horizontal stacked bars: compute, exposed comm by strategy, pipeline bubble (s).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    steps : sequence of :class:`~nvlearn.parallelism.StepTime`
        One bar each, top to bottom: its parts in seconds per training step, the total
        written at its end.
    labels : sequence of str, optional
        One y label per step; default the layout's label and the fabric's name.

    Returns
    -------
    None
        Draws on ``ax``.
    """
    labels = labels or [f"{s.layout.label}\n{FABRIC_NAMES[s.fabric]}" for s in steps]
    y = np.arange(len(steps))[::-1]
    used = set()
    for yi, s in zip(y, steps, strict=True):
        left = 0.0
        parts = [("compute", s.compute)]
        parts += [(k, s.comm_by_strategy[k]) for k in ("tp", "pp", "ep", "dp")]
        parts.append(("bubble", s.bubble))
        for key, w in parts:
            if w <= 0:
                continue
            name = ("compute" if key == "compute" else "pipeline bubble" if key == "bubble"
                    else f"exposed {STRATEGY_NAMES[key]}")
            ax.barh(yi, w, left=left, color=PART_COLOURS[key], edgecolor="white", lw=0.5,
                    label=None if name in used else name)
            used.add(name)
            left += w
        ax.text(left, yi, f" {s.total:.2f} s", va="center")
    ax.set_yticks(y, labels)
    ax.set_xlabel("seconds per training step (NCCL model, achievable rates)")
    ax.set_xlim(0, max(s.total for s in steps) * 1.18)
    ax.grid(axis="y", visible=False)


def step_split_figure(steps: Sequence[StepTime], labels: Sequence[str] | None = None,
                      title: str | None = None) -> plt.Figure:
    """One bar per step: compute, exposed communication by strategy, pipeline bubble.

    Parameters
    ----------
    steps : sequence of :class:`~nvlearn.parallelism.StepTime`
        At least one; see :func:`draw_step_split`.
    labels : sequence of str, optional
        One y label per step; default the layout's label and the fabric's name.
    title : str, optional
        Default the first step's model and its MFU while computing.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.parallelism import preset, step_time
    >>> fig = step_split_figure([step_time(preset("gpt_18b").with_(global_batch=64),
    ...                                    Layout(8, 1, 1), "dgx_h100")])
    >>> len(fig.axes)
    1
    """
    if not steps:
        raise ValueError("give at least one StepTime")
    height = 0.55 * len(steps) + 1.9
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=height)
    draw_step_split(ax, steps, labels)
    fig.legend(loc="lower center", ncol=3)
    ax.set_title(title or f"{steps[0].model.name}: one training step, "
                 f"{steps[0].mfu:.0%} of bf16 peak while computing", fontsize=10)
    fig.tight_layout(rect=(0, 0.5 / height, 1, 1))
    return fig


#: Above this many GPUs the heatmap sums GPUs into boxes (a 256 x 256 image is unreadable).
MAX_PAIR_GPUS = 64


def draw_pair_traffic(ax, matrix: np.ndarray, gpus_per_box: int = 8, title: str = "") -> None:
    """Heatmap of bytes per step (log colour): GPU x GPU with box boundaries marked, or box x
    box (diagonal = inside a box) above :data:`MAX_PAIR_GPUS` GPUs.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    matrix : array (GPUs x GPUs) of float
        Bytes per training step from each sending GPU (row) to each receiver (column).
    gpus_per_box : int
        GPUs per box (node): boundaries drawn every ``gpus_per_box`` GPUs, and the box
        size when summed to box x box.
    title : str
        Panel title.

    Returns
    -------
    None
        Draws on ``ax``.
    """
    unit = "GPU"
    if matrix.shape[0] > MAX_PAIR_GPUS:
        matrix, unit, gpus_per_box = box_traffic(matrix, gpus_per_box), "box", matrix.shape[0]
    G = matrix.shape[0]
    M = np.where(matrix > 0, matrix, np.nan)
    if np.all(np.isnan(M)):
        ax.imshow(np.zeros_like(matrix), cmap="Greys", vmin=0, vmax=1)
        ax.text(G / 2, G / 2, "no traffic", ha="center", va="center")
    else:
        lo, hi = np.nanmin(M), np.nanmax(M)
        im = ax.imshow(M, cmap="viridis", norm=LogNorm(vmin=min(lo, hi / 10), vmax=hi),
                       interpolation="nearest")
        cb = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
        cb.set_label("bytes per step")  # sender -> receiver: the axes say it
    if G > gpus_per_box:
        for b in range(gpus_per_box, G, gpus_per_box):
            ax.axhline(b - 0.5, color="w", lw=0.3, alpha=0.5)
            ax.axvline(b - 0.5, color="w", lw=0.3, alpha=0.5)
    ax.set_xlabel(f"receiving {unit}")
    ax.set_ylabel(f"sending {unit}")
    ax.grid(False)
    ax.set_title(title, fontsize=10)


def pair_traffic_figure(matrices: dict[str, np.ndarray], layout: Layout,
                        gpus_per_box: int = 8) -> plt.Figure:
    """One heatmap per strategy (bytes per step between GPU pairs, ring order).

    Parameters
    ----------
    matrices : dict of str -> array (GPUs x GPUs)
        Per strategy key (``"tp"``, ``"pp"``, ``"ep"``, ``"dp"``), bytes per step sender ->
        receiver; at least one. One panel each, side by side.
    layout : :class:`~nvlearn.parallelism.Layout`
        The layout the matrices belong to (named in the title).
    gpus_per_box : int
        GPUs per box (node); see :func:`draw_pair_traffic`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.parallelism import pair_traffic, preset
    >>> lay = Layout(2, 2, 2)
    >>> fig = pair_traffic_figure({"tp": pair_traffic(preset("gpt_18b").with_(global_batch=8),
    ...                                               lay, "tp")}, lay)
    >>> len(fig.axes)                # one heatmap and its colour bar
    2
    """
    n = len(matrices)
    if n == 0:
        raise ValueError("give at least one matrix")
    cols = min(n, 2)  # two panels a row: each wide enough for its body-size labels
    rows = -(-n // cols)
    # 0.2 in short of the notebook: the colour bars' labels stick out of tight_layout's box
    fig, axes = new_figure(rows, cols, width=min(4.1 * cols, NOTEBOOK_WIDTH - 0.2),
                           height=3.6 * rows, squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.remove()
    for ax, (k, M) in zip(axes.ravel(), matrices.items(), strict=False):
        name = STRATEGY_NAMES.get(k, k)
        draw_pair_traffic(ax, M, gpus_per_box, f"{name}: {M.sum(axis=1).max() / 1e9:,.1f} "
                          "GB sent per GPU")
    unit = "boxes" if layout.n_gpus > MAX_PAIR_GPUS else "GPUs"
    fig.suptitle(f"{layout.label}: bytes per step between {unit} (collectives as rings)",
                 fontsize=10)
    fig.tight_layout(w_pad=3.0)  # a colour bar's label clear of the next panel's axis
    return fig


def draw_memory(ax, memories: Sequence[Memory], labels: Sequence[str]) -> None:
    """Stacked bars of GB per GPU (weights, gradients, optimizer, activations), HBM line.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    memories : sequence of :class:`~nvlearn.parallelism.Memory`
        One bar each (bytes per GPU of the first pipeline stage, drawn in GB); the first's
        capacity is the HBM line.
    labels : sequence of str
        One x label per bar.

    Returns
    -------
    None
        Draws on ``ax``.
    """
    x = np.arange(len(memories))
    bottom = np.zeros(len(memories))
    for part, colour in MEMORY_COLOURS.items():
        v = np.array([m.parts()[part] for m in memories]) / 1e9
        ax.bar(x, v, bottom=bottom, color=colour, label=part, width=0.6)
        bottom += v
    cap = memories[0].capacity / 1e9
    ax.axhline(cap, color="k", ls="--", lw=1)
    ax.annotate(f"HBM {cap:.0f} GB", xy=(0.99, cap), xycoords=("axes fraction", "data"),
                va="bottom", ha="right")
    for xi, tot, m in zip(x, bottom, memories, strict=True):
        ax.text(xi, tot, f"{tot:.0f}" + ("" if m.fits else "\ndoes not fit"), ha="center",
                va="bottom", color="k" if m.fits else "#b30000")
    ax.set_xticks(x, labels)
    ax.set_ylabel("GB per GPU (first pipeline stage)")
    ax.set_ylim(0, max(bottom.max(), cap) * 1.3)
    ax.grid(axis="x", visible=False)


def memory_figure(memories: Sequence[Memory], labels: Sequence[str], title: str = ""
                  ) -> plt.Figure:
    """Memory per GPU of several layouts against the GPU's HBM.

    Parameters
    ----------
    memories : sequence of :class:`~nvlearn.parallelism.Memory`
        One bar each, at least one; see :func:`draw_memory`.
    labels : sequence of str
        One label per Memory.
    title : str
        Panel title; default describes the mixed-precision Adam accounting.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.parallelism import memory_per_gpu, preset
    >>> fig = memory_figure([memory_per_gpu(preset("gpt_76b"), Layout(8, 4, 8))], ["a"])
    >>> len(fig.axes)
    1
    """
    if len(memories) != len(labels) or not memories:
        raise ValueError("give one label per Memory (at least one)")
    fig, ax = new_figure(width=min(1.5 * len(memories) + 3.0, NOTEBOOK_WIDTH), height=4.0)
    draw_memory(ax, memories, labels)
    ax.legend(loc="upper left", ncol=4)
    ax.set_title(title or "memory per GPU: mixed-precision Adam (16 B per parameter) + "
                 "activations", fontsize=10)
    fig.tight_layout()
    return fig


def bubble_figure(pps: Sequence[int] = (2, 4, 8, 16), max_m: int = 256) -> plt.Figure:
    """Pipeline bubble ``(p-1)/(m+p-1)`` against micro-batches, one line per depth.

    Examples
    --------
    >>> len(bubble_figure().axes)
    1
    """
    fig, ax = new_figure(width=6.5, height=3.6)
    m = np.unique(np.geomspace(1, max_m, 60).astype(int))
    for i, p in enumerate(pps):
        ax.plot(m, [bubble_fraction(p, k) for k in m], color=SERIES[i], label=f"PP = {p}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("micro-batches per step, m")
    ax.set_ylabel("bubble fraction of the pipeline")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title("GPipe / 1F1B bubble (p - 1) / (m + p - 1)", fontsize=10)
    fig.tight_layout()
    return fig


def tp_span_figure(span: TPSpan) -> plt.Figure:
    """Best step time with TP inside a box vs across boxes, by global batch, per fabric.

    Examples
    --------
    >>> from nvlearn.parallelism import preset
    >>> from nvlearn.parallelism.search import tp_span
    >>> fig = tp_span_figure(tp_span(preset("gpt_39b"), 64, [64, 128]))
    >>> len(fig.axes)
    1
    """
    fig, ax = new_figure(width=8.0, height=4.2)
    x = span.global_batches
    tokens = x * span.model.seq
    for f in span.best:
        for where, ls, what in (("inside", "-", "TP <= 8 (in a box)"),
                                ("across", "--", "TP > 8 (across boxes)")):
            t = span.times(f, where)
            ax.plot(x, tokens / t / 1e6, ls=ls, marker="o", ms=3, color=FABRIC_LINE[f],
                    label=f"{FABRIC_NAMES[f]}, {what}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("global batch (sequences of "
                  f"{span.model.seq:,} tokens)")
    ax.set_ylabel("best throughput (M tokens/s)")
    ax.legend(loc="lower right")
    ax.set_title(f"{span.model.name} on {span.n_gpus} GPUs: best fitting layout "
                 "(NCCL model)", fontsize=10)
    fig.tight_layout()
    return fig
