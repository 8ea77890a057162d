"""Figures for notebook 05 (Mixture-of-Experts all-to-all): loads, traffic, times, trade-offs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from nvlearn.moe import MoEComm, Routing, gpu_boxes
from nvlearn.plots import live
from nvlearn.plots.live import LiveFigure
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure
from nvlearn.units import format_time

#: Colours of the three ways to carry the traffic.
MODE_COLOURS = {"flat": SERIES[1], "padded": SERIES[2], "dedup": SERIES[0]}
MODE_LABELS = {"flat": "flat (one all-to-all)", "padded": "padded to capacity",
               "dedup": "node-limited, de-duplicated"}


def draw_expert_load(ax, routing: Routing, title: str | None = None) -> None:
    """Routed vs kept assignments per expert, the mean load and the capacity, on ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    routing : :class:`~nvlearn.moe.Routing`
        Token assignments per expert (all GPUs), routed and kept; its capacity (per GPU)
        times the GPU count is drawn as a line when it has one.
    title : str, optional
        Panel title; default the expert count, top-k, skew and the dropped share.

    Returns
    -------
    None
        Draws on ``ax``.
    """
    routed = routing.expert_load(kept_only=False)
    kept = routing.expert_load()
    x = np.arange(routing.n_experts)
    width = 1.0 if routing.n_experts > 32 else 0.8
    ax.bar(x, routed, width=width, color="#f2b8a0", label="routed, dropped part")
    ax.bar(x, kept, width=width, color=SERIES[0], label="kept")
    mean = routing.n_assignments / routing.n_experts
    ax.axhline(mean, color="k", lw=1, ls=":", label=f"mean load ({mean:,.0f})")
    if routing.capacity is not None:
        cap = routing.capacity * routing.n_gpus
        ax.axhline(cap, color=SERIES[3], lw=1.2, ls="--",
                   label=f"capacity x {routing.n_gpus} GPUs ({cap:,})")
    ax.set_xlabel("expert")
    ax.set_ylabel("token assignments (all GPUs)")
    ax.set_xlim(-0.7, routing.n_experts - 0.3)
    ax.set_ylim(0, routed.max() * 1.45)  # room for the legend above the bars
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper right", ncol=2)
    if title is None:
        skew = "" if routing.skew is None else f", skew {routing.skew:g}"
        title = (f"{routing.n_experts} experts, top-{routing.top_k}{skew}: "
                 f"{routing.drop_fraction:.1%} of assignments dropped")
    ax.set_title(title)


def expert_load_figure(routings: Sequence[Routing], titles: Sequence[str] | None = None
                       ) -> plt.Figure:
    """One panel per routing: tokens per expert, kept and dropped, mean and capacity.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> fig = expert_load_figure([route(8, 64, 16, 2, capacity_factor=1.0)])
    >>> len(fig.axes)
    1
    """
    if not routings:
        raise ValueError("give at least one Routing")
    n = len(routings)
    fig, axes = new_figure(n, 1, width=NOTEBOOK_WIDTH, height=2.9 * n, squeeze=False)
    for i, r in enumerate(routings):
        draw_expert_load(axes[i, 0], r, None if titles is None else titles[i])
    fig.tight_layout()
    return fig


def node_traffic(matrix: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Sum a GPU x GPU matrix into node x node (boxes numbered 0 .. n_nodes-1)."""
    boxes = np.asarray(boxes)
    n = int(boxes.max()) + 1
    out = np.zeros((n, n))
    np.add.at(out, (boxes[:, None], boxes[None, :]), np.asarray(matrix, dtype=float))
    return out


class HeatmapPanel:
    """A traffic matrix as a heatmap on one axes, updated in place for each new matrix.

    ``level="gpu"``: GPU x GPU, node boundaries as white lines, the diagonal (bytes that
    stay on the GPU) in grey. ``level="node"``: summed to node x node; the diagonal is
    traffic inside a node (over NVLink), each cell labelled when there are at most 8 nodes.
    Bytes sent, sender rows x receiver columns, in MB (linear colour scale from 0).

    Attributes
    ----------
    image : matplotlib.image.AxesImage
        The heatmap (a colour bar can follow it).
    artists : list of matplotlib.artist.Artist
        What :meth:`update` changes, and what lies over it: the image, the cell labels, the
        node boundaries and the frame.
    """

    def __init__(self, ax, boxes: np.ndarray, title: str = "", level: str = "gpu") -> None:
        """Draw the panel's frame, ticks and labels on ``ax`` (an empty heatmap).

        Parameters
        ----------
        ax : matplotlib.axes.Axes
            Where to draw.
        boxes : array of int
            The node of each GPU (nodes numbered 0 .. n_nodes-1).
        title : str
            Panel title; default names the level.
        level : {"gpu", "node"}
            GPU x GPU, or summed to node x node (the GPU diagonal left out).
        """
        if level not in ("gpu", "node"):
            raise ValueError(f"level must be 'gpu' or 'node', got {level!r}")
        self.boxes, self.level = np.asarray(boxes), level
        n = self.boxes.size if level == "gpu" else int(self.boxes.max()) + 1
        cmap = plt.get_cmap("viridis").with_extremes(bad="#d9d9d9")
        self.image = ax.imshow(np.zeros((n, n)), cmap=cmap, vmin=0.0, vmax=1.0,
                               interpolation="nearest", aspect="equal")
        self.cells: list = []
        self.lines: list = []
        if level == "gpu":
            receiver = self._gpu_ticks(ax)
            ax.set_ylabel("sending GPU")
        else:
            ticks = np.arange(0, n, max(1, n // 8))
            ax.set_xticks(ticks, [f"n{t}" for t in ticks])
            ax.set_yticks(ticks, [f"n{t}" for t in ticks])
            if n <= 8:
                self.cells = [ax.text(j, i, "", ha="center", va="center")
                              for i in range(n) for j in range(n)]
            receiver = "receiving node"
            ax.set_ylabel("sending node")
        ax.set_xlabel(receiver)
        ax.grid(False)
        default = ("dispatch bytes, GPU to GPU (grey: stays on the GPU)" if level == "gpu"
                   else "dispatch bytes, node to node (diagonal: between GPUs of a node)")
        ax.set_title(title or default)
        self.artists = [self.image, *self.cells, *self.lines, *ax.spines.values()]

    def _gpu_ticks(self, ax) -> str:
        """Node boundaries and a tick at each node's first GPU; the receiver axis label."""
        boxes = self.boxes
        edges = np.flatnonzero(np.diff(boxes)) + 0.5
        for e in edges if len(edges) <= 16 else []:
            self.lines += [ax.axhline(e, color="white", lw=0.8), ax.axvline(e, color="white",
                                                                             lw=0.8)]
        starts = np.concatenate([[0], np.flatnonzero(np.diff(boxes)) + 1])
        if not 1 < starts.size <= 32:
            return "receiving GPU"
        ticks = starts[:: max(1, starts.size // 8)]
        ax.set_xticks(ticks, [f"n{boxes[t]}" for t in ticks])
        ax.set_yticks(ticks, [f"n{boxes[t]}" for t in ticks])
        return "receiving GPU (ticks: a node's first GPU)"

    def update(self, matrix: np.ndarray) -> None:
        """Show ``matrix`` (GPUs x GPUs, bytes each sending GPU, row, sends each receiving
        GPU, column)."""
        local = np.asarray(matrix, dtype=float)
        if self.level == "node":  # what stays on a GPU crosses nothing: leave it out
            shown = node_traffic(local - np.diag(np.diag(local)), self.boxes) / 1e6
        else:
            shown = np.where(np.eye(local.shape[0], dtype=bool), np.nan, local / 1e6)
        top = np.nanmax(shown) if np.isfinite(shown).any() else 1.0
        self.image.set_data(shown)
        self.image.set_clim(0.0, top if top > 0 else 1.0)
        for cell, v in zip(self.cells, shown.ravel(), strict=False):
            cell.set_text(f"{v:,.0f}")
            cell.set_color("white" if v < 0.6 * top else "black")


def draw_traffic_heatmap(ax, matrix: np.ndarray, boxes: np.ndarray, title: str = "",
                         level: str = "gpu", colorbar: bool = True) -> None:
    """Bytes sent, sender rows x receiver columns, in MB, on ``ax`` (see
    :class:`HeatmapPanel`).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    matrix : array (GPUs x GPUs) of float
        Bytes each sending GPU (row) sends each receiving GPU (column).
    boxes : array of int
        The node of each GPU.
    title : str
        Panel title; default names the level.
    level : {"gpu", "node"}
        GPU x GPU, or summed to node x node (the GPU diagonal left out).
    colorbar : bool
        Add a colour bar (MB) beside ``ax``.

    Returns
    -------
    None
        Draws on ``ax``.
    """
    panel = HeatmapPanel(ax, boxes, title, level)
    panel.update(matrix)
    if colorbar:
        cb = ax.figure.colorbar(panel.image, ax=ax, fraction=0.046, pad=0.03)
        cb.set_label("bytes sent (MB)")


def traffic_heatmap(matrix: np.ndarray, boxes: np.ndarray, title: str = "",
                    level: str = "gpu") -> plt.Figure:
    """Figure of one traffic matrix (bytes, sender rows x receiver columns).

    Parameters
    ----------
    matrix : array (GPUs x GPUs) of float
        Bytes each sending GPU (row) sends each receiving GPU (column).
    boxes : array of int
        The node of each GPU.
    title : str
        Panel title; default names the level.
    level : {"gpu", "node"}
        GPU x GPU, or summed to node x node; see :func:`draw_traffic_heatmap`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = traffic_heatmap(np.ones((4, 4)) * 1e6, np.array([0, 0, 1, 1]))
    >>> fig.axes[0].get_ylabel()
    'sending GPU'
    """
    fig, ax = new_figure(width=6.8, height=5.6)
    draw_traffic_heatmap(ax, matrix, np.asarray(boxes), title, level)
    fig.tight_layout()
    return fig


def traffic_figure(matrix: np.ndarray, boxes: np.ndarray, title: str = "") -> plt.Figure:
    """GPU x GPU and node x node views of one traffic matrix, one above the other.

    Parameters
    ----------
    matrix : array (GPUs x GPUs) of float
        Bytes each sending GPU (row) sends each receiving GPU (column).
    boxes : array of int
        The node of each GPU.
    title : str
        The figure's title (none if empty).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = traffic_figure(np.ones((4, 4)) * 1e6, np.array([0, 0, 1, 1]))
    >>> fig.axes[1].get_ylabel()
    'sending node'
    """
    fig, (a, b) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=10.5)
    draw_traffic_heatmap(a, matrix, boxes, level="gpu")
    draw_traffic_heatmap(b, matrix, boxes, level="node")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class ReceivePanel:
    """Bytes each GPU receives over the fabric in dispatch, on one axes, updated in place
    for each new :class:`~nvlearn.moe.MoEComm`: the mean and the hottest GPU marked, node
    boundaries as grey lines.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    boxes : array of int
        The node of each GPU (:func:`gpu_boxes_of`).

    Attributes
    ----------
    artists : list of matplotlib.artist.Artist
        What :meth:`update` changes (bars, mean, annotation, legend, y axis, title) and the
        frame over the bars.
    """

    def __init__(self, ax, boxes: np.ndarray) -> None:
        self.ax = ax
        n = len(boxes)
        self.bars = ax.bar(np.arange(n), np.ones(n), width=1.0 if n > 32 else 0.8,
                           color=FABRIC_COLOURS["infiniband"])
        self.mean = ax.axhline(0.0, color="k", ls=":", lw=1, label="mean")
        self.hot = ax.annotate("", xy=(0, 0), xytext=(0.02, 0.97), textcoords="axes fraction",
                               va="top", arrowprops={"arrowstyle": "->", "color": SERIES[3],
                                                     "lw": 0.8})
        for e in np.flatnonzero(np.diff(boxes)) + 0.5:
            ax.axvline(e, color="#bbbbbb", lw=0.6)
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_xlabel("GPU (grey lines: node boundaries)")
        ax.set_ylabel("received in dispatch (MB)")
        ax.grid(axis="x", visible=False)
        self.legend = ax.legend(loc="upper right")
        self.artists = [*self.bars, self.mean, self.hot, self.legend, ax.yaxis, ax.title,
                        *ax.spines.values()]

    def update(self, comm: MoEComm, label_link: bool = True) -> None:
        """Show ``comm``'s receive bytes; with ``label_link``, title the panel with the
        limiting link (of the slowest stage) and how busy it was."""
        recv = comm.recv_bytes / 1e6
        hot = int(np.argmax(recv))
        for i, (bar, v) in enumerate(zip(self.bars, recv, strict=True)):
            bar.set_height(v)
            bar.set_color(SERIES[3] if i == hot else FABRIC_COLOURS["infiniband"])
        mean = recv.mean()
        self.mean.set_ydata([mean, mean])
        self.legend.get_texts()[0].set_text(f"mean {mean:,.1f} MB")
        self.hot.xy = (hot, recv[hot])
        self.hot.set_text(f"hottest: GPU {hot}\n{recv[hot]:,.1f} MB = {recv[hot] / mean:.2f} "
                          "x mean")
        self.ax.set_ylim(0, recv.max() * 1.35)
        link = comm.limiting_link()
        title = ""
        if label_link and link is not None:
            title = (f"limiting link ({comm.slowest_stage()[0]}): {link.label}, "
                     f"{link.utilisation:.0%} busy")
        self.ax.set_title(title)


def draw_receive_bytes(ax, comm: MoEComm, label_link: bool = True) -> None:
    """Bytes each GPU receives over the fabric in dispatch; mean and hottest GPU marked
    (see :class:`ReceivePanel`).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    comm : :class:`~nvlearn.moe.MoEComm`
        A simulated dispatch + combine: bytes received per GPU, its fabric's nodes.
    label_link : bool
        Title the panel with the limiting link (of the slowest stage) and how busy it was.

    Returns
    -------
    None
        Draws on ``ax``.
    """
    ReceivePanel(ax, gpu_boxes_of(comm)).update(comm, label_link)


def gpu_boxes_of(comm: MoEComm) -> np.ndarray:
    """Node of each GPU in the fabric ``comm`` ran on."""
    return gpu_boxes(comm.dispatch[0].topology) if comm.dispatch else np.zeros(
        comm.routing.n_gpus, dtype=int)


def imbalance_figure(comm: MoEComm) -> plt.Figure:
    """Per-GPU receive bytes with the hottest GPU and the limiting link named.

    Examples
    --------
    >>> from nvlearn.moe import route, simulate_moe
    >>> from nvlearn.topology import dgx_h100
    >>> fig = imbalance_figure(simulate_moe(dgx_h100(), route(8, 64, 8, 1), 256))
    >>> fig.axes[0].get_ylabel()
    'received in dispatch (MB)'
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=3.6)
    draw_receive_bytes(ax, comm)
    fig.tight_layout()
    return fig


class OverviewChart(LiveFigure):
    """The MoE explorer's figure for one fabric layout: the dispatch heatmap above the
    bytes each GPU receives, updated in place per state (:mod:`nvlearn.plots.live`).

    Parameters
    ----------
    boxes : tuple of int
        The node of each GPU.
    """

    def __init__(self, boxes: tuple[int, ...]) -> None:
        fig, (a, b) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=8.4,
                                 gridspec_kw={"height_ratios": [1.25, 1.0]})
        super().__init__(fig)
        self.heat = HeatmapPanel(a, np.array(boxes), "dispatch bytes, GPU to GPU (grey: local)")
        self.receive = ReceivePanel(b, np.array(boxes))
        # fixed margins (no layout pass per state), the colour bar beside the centred
        # square heatmap
        fig.subplots_adjust(left=0.1, right=0.97, top=0.96, bottom=0.07, hspace=0.3)
        a.apply_aspect()
        box = a.get_position()
        cax = fig.add_axes((box.x1 + 0.015, box.y0, 0.022, box.height), label="<colorbar>")
        fig.colorbar(self.heat.image, cax=cax).set_label("bytes sent (MB)")
        # the bar's colours fill it at any scale: only its axis changes with the state
        self.dynamic(*self.heat.artists, cax.yaxis, *self.receive.artists)

    def update(self, comm: MoEComm) -> plt.Figure:
        """Show ``comm`` (simulated on this chart's fabric)."""
        self.heat.update(comm.dispatch_bytes)
        self.receive.update(comm)
        return self.fig


def overview_figure(comm: MoEComm) -> plt.Figure:
    """Traffic heatmap above per-GPU receive bytes (the explorer's figure; in an explorer's
    :func:`~nvlearn.plots.live.scope`, its live :class:`OverviewChart`, updated).

    Examples
    --------
    >>> from nvlearn.moe import route, simulate_moe
    >>> from nvlearn.topology import dgx_h100
    >>> fig = overview_figure(simulate_moe(dgx_h100(), route(8, 64, 8, 1), 256))
    >>> fig.axes[-1].get_ylabel()
    'bytes sent (MB)'
    """
    boxes = tuple(int(b) for b in gpu_boxes_of(comm))
    return live.chart(OverviewChart, boxes).update(comm)


def fabric_times_figure(results: Mapping[str, MoEComm], title: str = "") -> plt.Figure:
    """Horizontal bars: dispatch + combine time of one MoE layer per fabric (log scale).

    Parameters
    ----------
    results : mapping label -> MoEComm

    Examples
    --------
    >>> from nvlearn.moe import route, simulate_moe
    >>> from nvlearn.topology import dgx_h100
    >>> fig = fabric_times_figure({"DGX": simulate_moe(dgx_h100(), route(8, 64, 8, 1), 256)})
    >>> fig.axes[0].get_xlabel()
    'time per MoE layer, forward (ms)'
    """
    if not results:
        raise ValueError("give at least one result")
    labels = list(results)
    d = np.array([results[k].dispatch_time for k in labels]) * 1e3
    c = np.array([results[k].combine_time for k in labels]) * 1e3
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=0.75 * len(labels) + 1.8)
    y = np.arange(len(labels))[::-1]
    ax.barh(y, d, color=SERIES[0], height=0.6, label="dispatch")
    ax.barh(y, c, left=d, color=SERIES[2], height=0.6, label="combine")
    for yi, k, total in zip(y, labels, d + c, strict=True):
        link = results[k].limiting_link()
        kind = "" if link is None else f"  (limit: {link.label})"
        ax.text(total + 0.01 * (d + c).max(), yi, f"{format_time(total / 1e3)}{kind}",
                va="center")
    ax.set_xlim(0, (d + c).max() * 2.0)  # room for the label after the longest bar
    ax.set_yticks(y, labels)
    ax.set_xlabel("time per MoE layer, forward (ms)")
    ax.set_ylabel("fabric, expert-parallel degree")
    ax.grid(axis="y", visible=False)
    ax.set_title(title or "dispatch + combine all-to-all, simulated")
    fig.legend(loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.35 / fig.get_figheight(), 1, 1))  # the legend below
    return fig


def capacity_tradeoff_figure(factors: Sequence[float], drop_fraction: Sequence[float],
                             times: Mapping[str, Sequence[float]],
                             dropless_time: float | None = None) -> plt.Figure:
    """Drops and all-to-all time against the capacity factor.

    Parameters
    ----------
    factors : sequence of float
        Capacity factors.
    drop_fraction : sequence of float
        Fraction of assignments dropped at each factor.
    times : mapping mode -> sequence of float
        Dispatch + combine seconds at each factor, per mode ("flat", "padded").
    dropless_time : float, optional
        Time of the same routing without a capacity (drawn as a reference line), seconds.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = capacity_tradeoff_figure([1.0, 2.0], [0.1, 0.0], {"flat": [1e-3, 2e-3]})
    >>> len(fig.axes)
    2
    """
    f = np.asarray(factors, dtype=float)
    fig, (a, b) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=6.6, sharex=True)
    a.plot(f, 100 * np.asarray(drop_fraction), "o-", color=SERIES[3])
    a.tick_params(labelbottom=True)
    a.set_xlabel("capacity factor")
    a.set_ylabel("assignments dropped (%)")
    a.set_ylim(bottom=0)
    a.set_title("more capacity, fewer drops")
    for mode, t in times.items():
        b.plot(f, np.asarray(t) * 1e3, "o-", color=MODE_COLOURS.get(mode, SERIES[4]),
               label=MODE_LABELS.get(mode, mode))
    if dropless_time is not None:
        b.axhline(dropless_time * 1e3, color="k", ls=":", lw=1,
                  label=f"dropless ({format_time(dropless_time)})")
    b.set_xlabel("capacity factor")
    b.set_ylabel("dispatch + combine (ms)")
    b.set_ylim(bottom=0)
    b.legend()
    b.set_title("... but more bytes to move: a longer all-to-all")
    fig.tight_layout()
    return fig


def dedup_figure(results: Mapping[str, Mapping[str, MoEComm]]) -> plt.Figure:
    """Flat vs de-duplicated routing per fabric: inter-node bytes per GPU and time.

    Parameters
    ----------
    results : mapping fabric label -> {mode: MoEComm}

    Examples
    --------
    >>> from nvlearn.moe import route, simulate_moe
    >>> from nvlearn.topology import nvlink_pod
    >>> r = route(16, 64, 16, 2, max_nodes=1)
    >>> res = {m: simulate_moe(nvlink_pod(2), r, 256, mode=m) for m in ("flat", "dedup")}
    >>> len(dedup_figure({"pod": res}).axes)
    2
    """
    fabrics = list(results)
    modes = list(next(iter(results.values())))
    fig, (a, b) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=7.0)
    x = np.arange(len(fabrics))
    w = 0.8 / len(modes)
    for i, mode in enumerate(modes):
        inter = [results[f][mode].inter_node_bytes / results[f][mode].routing.n_gpus / 1e6
                 for f in fabrics]
        t = [results[f][mode].time * 1e3 for f in fabrics]
        kw = {"color": MODE_COLOURS.get(mode, SERIES[i]), "width": w,
              "label": MODE_LABELS.get(mode, mode)}
        off = x - 0.4 + w * (i + 0.5)
        a.bar(off, inter, **kw)
        b.bar(off, t, **kw)
        for xi, v in zip(off, t, strict=True):
            b.text(xi, v, format_time(v / 1e3), ha="center", va="bottom")
        for xi, v in zip(off, inter, strict=True):
            a.text(xi, v, f"{v:,.0f}", ha="center", va="bottom")
    for ax in (a, b):
        ax.set_xticks(x, fabrics)
        ax.set_xlabel("fabric")
        ax.grid(axis="x", visible=False)
    a.set_ylabel("inter-node bytes per GPU, dispatch (MB)")
    a.set_title("bytes that leave the node")
    b.set_ylabel("dispatch + combine (ms)")
    b.set_title("time (stages back to back)")
    a.legend(loc="upper right")
    a.set_ylim(top=a.get_ylim()[1] * 1.3)
    b.set_ylim(top=b.get_ylim()[1] * 1.12)
    fig.tight_layout()
    return fig


def skew_figure(skews: Sequence[float], results: Sequence[MoEComm], bw_per_dir: float,
                title: str = "") -> plt.Figure:
    """Simulated time against routing skew, with the busiest-GPU bound and the balanced ideal.

    Parameters
    ----------
    skews : sequence of float
        Zipf exponents of expert popularity, the x axis; the first is the balanced
        reference.
    results : sequence of MoEComm
        One per skew, same fabric.
    bw_per_dir : float
        A GPU's bandwidth into the fabric, bytes/s per direction (for the bound).
    title : str
        Panel title; default "the hottest GPU sets the time".

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.moe import route, simulate_moe
    >>> from nvlearn.topology import dgx_h100
    >>> res = [simulate_moe(dgx_h100(), route(8, 64, 8, 1, skew=s), 256) for s in (0, 1)]
    >>> fig = skew_figure([0, 1], res, 450e9)
    >>> fig.axes[0].get_xlabel()
    'skew (Zipf exponent of expert popularity)'
    """
    s = np.asarray(skews, dtype=float)
    t = np.array([r.time for r in results]) * 1e3
    bound = np.array([r.endpoint_bound(bw_per_dir) for r in results]) * 1e3
    fig, ax = new_figure(width=8.0, height=3.8)
    ax.plot(s, t, "o-", color=SERIES[1], lw=2, label="simulated dispatch + combine")
    ax.plot(s, bound, "--", color="k", lw=1, zorder=3,
            label="busiest GPU's bytes / its bandwidth (per stage)")
    ax.axhline(t[0], color=SERIES[0], ls=":", lw=1.2, label=f"skew {s[0]:g} (balanced)")
    for si, ti in zip(s[1:], t[1:], strict=True):
        ax.annotate(f"{ti / t[0]:.2f}x", (si, ti), textcoords="offset points", xytext=(0, 7),
                    ha="center")
    ax.set_xlabel("skew (Zipf exponent of expert popularity)")
    ax.set_ylabel("dispatch + combine (ms)")
    ax.set_ylim(0, t.max() * 1.2)
    ax.legend(loc="lower right")
    ax.set_title(title or "the hottest GPU sets the time")
    fig.tight_layout()
    return fig


__all__ = [
    "MODE_COLOURS",
    "HeatmapPanel",
    "OverviewChart",
    "ReceivePanel",
    "capacity_tradeoff_figure",
    "dedup_figure",
    "draw_expert_load",
    "draw_receive_bytes",
    "draw_traffic_heatmap",
    "expert_load_figure",
    "fabric_times_figure",
    "gpu_boxes_of",
    "imbalance_figure",
    "node_traffic",
    "overview_figure",
    "skew_figure",
    "traffic_figure",
    "traffic_heatmap",
]
