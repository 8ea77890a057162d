"""Figures for notebook 01: training curves, the scaling wall, the overlap timeline, idle cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from nvlearn.plots import live
from nvlearn.plots.live import LiveFigure
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure
from nvlearn.units import format_time

__all__ = ["FABRIC_STYLE", "TimelineChart", "idle_cost_figure", "timeline_figure",
           "training_curves_figure", "wall_figure"]

#: Colour and label of each fabric name of :data:`nvlearn.sgd.FABRICS`.
FABRIC_STYLE = {
    "pcie_box": (FABRIC_COLOURS["pcie"], "PCIe box (+ IB beyond 8 GPUs)"),
    "ib_cluster": (FABRIC_COLOURS["infiniband"], "DGX H100 + InfiniBand NDR"),
    "nvlink_pod": (FABRIC_COLOURS["nvlink"], "NVLink pod (+ IB beyond 256 GPUs)"),
}


def _time_unit(seconds: float) -> tuple[float, str]:
    if seconds >= 2.0:
        return 1.0, "s"
    if seconds >= 2e-3:
        return 1e3, "ms"
    return 1e6, "µs"


def training_curves_figure(histories: Mapping[str, object], reference: str | None = None):
    """Loss per step for several runs, and each run's difference from ``reference``.

    Parameters
    ----------
    histories : mapping of label -> History
    reference : str, optional
        Label of the run the others are compared with (default: the first).

    Examples
    --------
    >>> from nvlearn.sgd import History
    >>> h = History(1, 8, 0.1, "float64", step_loss=[2.0, 1.0])
    >>> fig = training_curves_figure({"one": h, "two": h})
    >>> len(fig.axes)
    2
    """
    fig, (ax, ax_d) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=7.6, sharex=True)
    labels = list(histories)
    ref = histories[reference or labels[0]]
    ref_loss = np.asarray(ref.step_loss)
    styles = ["-", "--", ":", "-."]
    for i, label in enumerate(labels):
        loss = np.asarray(histories[label].step_loss)
        ax.plot(np.arange(loss.size), loss, styles[i % 4], color=SERIES[i % len(SERIES)],
                lw=2.2 if i == 0 else 1.4, label=label)
        if histories[label] is ref:
            continue
        m = min(loss.size, ref_loss.size)
        diff = np.abs(loss[:m] - ref_loss[:m])
        ax_d.semilogy(np.arange(m), np.maximum(diff, 1e-18), styles[i % 4],
                      color=SERIES[i % len(SERIES)], lw=1.2, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("SGD step")
    ax.set_ylabel("training loss of the step's batch (cross-entropy, nats)")
    ax.set_title("Training curves: the runs lie on top of each other")
    ax.legend()
    ax_d.set_xlabel("SGD step")
    ax_d.set_ylabel(f"|loss − loss of '{reference or labels[0]}'| (nats)")
    ax_d.set_title("How far apart they are (10⁻¹⁸ = identical)")
    if ax_d.get_legend_handles_labels()[0]:
        ax_d.legend()
    fig.tight_layout()
    return fig


def wall_figure(curves: Mapping[tuple[str, str, bool], Sequence], title: str = ""):
    """Scaling efficiency vs GPU count: one panel per model, a line per fabric and overlap.

    Parameters
    ----------
    curves : mapping (model label, fabric, overlap) -> list of StepTime
        Each list over increasing GPU counts (from :func:`nvlearn.sgd.scaling`).

    Examples
    --------
    >>> from nvlearn.sgd import scaling
    >>> fig = wall_figure({("7B", "ib_cluster", False): scaling(7e9, "ib_cluster", (8, 64))})
    >>> fig.axes[0].get_ylabel()
    'scaling efficiency = compute / step time (%)'
    """
    models = list(dict.fromkeys(k[0] for k in curves))
    fig, axes = new_figure(len(models), 1, width=NOTEBOOK_WIDTH, height=3.4 * len(models) + 1.4,
                           sharex=True, squeeze=False)
    pod = 256
    for ax, model in zip(axes[:, 0], models, strict=True):
        for (m, fabric, overlap), steps in curves.items():
            if m != model:
                continue
            colour, label = FABRIC_STYLE[fabric]
            n = [s.n_gpus for s in steps]
            eff = [100 * s.efficiency for s in steps]
            ax.plot(n, eff, "--" if overlap else "-", marker="o" if not overlap else "s",
                    ms=3.5, color=colour, lw=1.8 if not overlap else 1.3,
                    label=f"{label}{', DDP overlap' if overlap else ''}")
        ax.set_xscale("log", base=2)
        ticks = [8, 32, 128, 512, 2048, 8192]
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
        ax.axvline(pod, color="0.5", ls=":", lw=1)
        ax.text(pod * 1.08, 3, "one NVLink pod\n(256 GPUs)", color="0.35")
        ax.set_ylim(0, 104)
        ax.set_ylabel("scaling efficiency = compute / step time (%)")
        ax.set_title(f"{model} parameters, bf16 gradients")
    axes[-1, 0].set_xlabel("data-parallel GPUs (H100)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2)
    if title:
        fig.suptitle(title, fontsize=11, wrap=True)
    legend_in = 0.25 * -(-len(labels) // 2) + 0.2
    fig.tight_layout(rect=(0, legend_in / fig.get_figheight(), 1, 1))
    return fig


def _bars(spans, y: float, h: float) -> list[np.ndarray]:
    """Rectangles (vertices) of ``spans`` ``(start, end)`` on a row centred at ``y``."""
    return [np.array([(a, y - h / 2), (a, y + h / 2), (b, y + h / 2), (b, y - h / 2)])
            for a, b in spans]


class TimelineChart(LiveFigure):
    """One training step on one GPU, updated in place per step (:mod:`nvlearn.plots.live`):
    forward, backward, the all-reduce stream, exposed communication shaded.

    The background is the two rows' labels and the legend; the bars, the time axis and the
    title (it gives the exposed time) are drawn per state.
    """

    #: Height of a row's bars, in row units.
    ROW = 0.6

    def __init__(self) -> None:
        fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=3.6)
        super().__init__(fig)
        self.ax = ax
        empty: list = []
        self.forward = ax.broken_barh(empty, (0, 1), color="#4c72b0", label="forward")
        self.backward = ax.broken_barh(empty, (0, 1), color="#8fb0d9",
                                       label="backward (makes gradient buckets)")
        self.comm = ax.broken_barh(empty, (0, 1), color="#c44e52", label="all-reduce busy")
        self.exposed = ax.axvspan(0, 1, color="#c44e52", alpha=0.12,
                                  label="exposed: GPUs idle")
        self.buckets = ax.vlines([], 0.45, 0.55, color="0.3", lw=0.8)
        ax.set_yticks([0, 1], ["all-reduce", "compute"])
        ax.set_ylim(-0.6, 2.3)
        ax.grid(axis="y", visible=False)
        ax.legend(loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.0))
        # fixed margins: no layout pass per state
        fig.subplots_adjust(left=0.12, right=0.97, top=0.84, bottom=0.15)
        self.dynamic(self.forward, self.backward, self.comm, self.exposed, self.buckets,
                     ax.xaxis, ax.title, *ax.spines.values())

    def update(self, step, title: str | None = None) -> Figure:
        """Show ``step`` (a :class:`~nvlearn.sgd.StepTime`); see :func:`timeline_figure`."""
        tl = step.timeline
        scale, unit = _time_unit(tl.end)
        h = self.ROW
        self.forward.set_verts(_bars([(0, tl.forward_end * scale)], 1, h))
        self.backward.set_verts(_bars([(tl.forward_end * scale, tl.backward_end * scale)], 1, h))
        self.comm.set_verts(_bars(tl.comm_intervals() * scale, 0, h))
        exposed = step.exposed_comm > 0
        self.exposed.set_visible(exposed)
        self.exposed.set_x(tl.backward_end * scale)
        self.exposed.set_width((tl.end - tl.backward_end) * scale)
        n_buckets = tl.bucket_bytes.size
        ticks = tl.bucket_ready * scale if step.overlap and 1 < n_buckets <= 60 else []
        self.buckets.set_segments([[(t, 0.45), (t, 0.55)] for t in ticks])
        self.ax.set_xlim(0, tl.end * scale * 1.02)
        self.ax.set_xlabel(f"time within one step ({unit})")
        how = (f"DDP overlap, {n_buckets:,} buckets of ≤ {step.bucket_bytes / 2**20:g} MiB"
               if step.overlap else "no overlap: one all-reduce after backward")
        self.ax.set_title(title or (
            f"{step.n_params / 1e9:g}B params on {step.n_gpus:,} GPUs, "
            f"{FABRIC_STYLE[step.fabric][1]}\n{how}; efficiency {100 * step.efficiency:.0f} %, "
            f"{format_time(step.exposed_comm)} exposed"))
        return self.fig


def timeline_figure(step, title: str | None = None) -> Figure:
    """One training step on one GPU: forward, backward, and the all-reduce stream.

    Exposed communication (after the backward pass ends) is shaded. In an explorer's
    :func:`~nvlearn.plots.live.scope` the figure is its live :class:`TimelineChart`.

    Examples
    --------
    >>> from nvlearn.sgd import step_time
    >>> fig = timeline_figure(step_time(7e9, 1024, "ib_cluster", overlap=True))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['all-reduce', 'compute']
    """
    return live.chart(TimelineChart).update(step, title)


def idle_cost_figure(costs: Mapping[tuple[str, bool], Sequence], token_budget: float,
                     model: str):
    """Idle GPU-hours (left axis) and energy at board power over a whole run, per fabric.

    Parameters
    ----------
    costs : mapping (fabric, overlap) -> list of :class:`~nvlearn.sgd.IdleCost`
        One line per fabric key and DDP overlap flag, over increasing GPU counts.
    token_budget : float
        Tokens the whole run trains on, named in the title.
    model : str
        The model's name (e.g. ``"7B"``), named in the title.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.sgd import idle_cost, scaling
    >>> c = [idle_cost(s) for s in scaling(7e9, "ib_cluster", (8, 64))]
    >>> fig = idle_cost_figure({("ib_cluster", False): c}, 1e12, "7B")
    >>> fig.axes[0].get_yscale()
    'log'
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=5.4)
    power = None
    for (fabric, overlap), rows in costs.items():
        colour, label = FABRIC_STYLE[fabric]
        n = [c.n_gpus for c in rows]
        ax.plot(n, [max(c.idle_gpu_hours, 1e-3) for c in rows], "--" if overlap else "-",
                marker="s" if overlap else "o", ms=3.5, color=colour,
                label=f"{label}{', DDP overlap' if overlap else ''}")
        power = rows[0].board_power
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = [8, 32, 128, 512, 2048, 8192]
    ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
    ax.set_xlabel("data-parallel GPUs (H100)")
    ax.set_ylabel("GPU-hours idle in communication, whole run")
    right = ax.secondary_yaxis("right", functions=(lambda h: h * power / 1e6,
                                                   lambda e: e * 1e6 / power))
    right.set_ylabel(f"energy at {power:.0f} W board power (MWh)")
    ax.set_title(f"The cost of waiting: {model} model trained on {token_budget:.3g} tokens "
                 "(GPU-hours floored at 10⁻³)", fontsize=10)
    fig.legend(loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))  # below: off the data
    fig.tight_layout(rect=(0, 0.85 / fig.get_figheight(), 1, 1))
    return fig
