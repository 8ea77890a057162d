"""Figures for notebook 03 (switch topology): traffic on fabrics, routing policies, head-of-line
blocking, memory access paths and fabric growth. Each function returns a Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from nvlearn.plots import live
from nvlearn.plots.live import LiveFigure
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure
from nvlearn.units import format_bytes, format_rate, format_time

__all__ = ["POLICY_STYLE", "TrafficChart", "access_time_figure", "collision_figure",
           "fct_cdf_figure", "growth_figure", "hol_figure", "pair_rates_figure",
           "traffic_explorer_figure"]

#: Line style per routing policy in every figure of this module.
POLICY_STYLE = {"adaptive": "-", "static": "--"}


def _fabric_colour(fabric: str) -> str:
    return FABRIC_COLOURS["nvlink_network" if "NVLink" in fabric else "infiniband"]


def _time_unit(seconds: np.ndarray) -> tuple[str, float]:
    """("ms", 1e3) or ("us", 1e6): the unit that keeps the largest value >= 1."""
    return ("ms", 1e3) if np.nanmax(seconds) >= 1e-3 else ("us", 1e6)


def _log_ticks(ax, axis: str = "x") -> None:
    """Plain-number labels at 1-2-5 steps on a log axis (no 10^x, no minor-label clutter)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def pair_rates_figure(rows: Sequence[Mapping]):
    """Bars: the rate one flow (or each of several) gets, adaptive vs static routing.

    ``rows`` are dicts with ``case`` (label), ``adaptive`` and ``static`` (bytes/s per
    direction), as :func:`nvlearn.switching.patterns` measurements produce them.

    Examples
    --------
    >>> fig = pair_rates_figure([{"case": "a", "adaptive": 4.5e11, "static": 1.25e11}])
    >>> fig.axes[0].get_xlabel()
    'rate per flow (GB/s per direction)'
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=0.55 * len(rows) + 1.6)
    y = np.arange(len(rows))
    h = 0.38
    for k, (policy, colour) in enumerate((("adaptive", SERIES[0]), ("static", SERIES[1]))):
        vals = np.array([r[policy] for r in rows]) / 1e9
        bars = ax.barh(y + (k - 0.5) * h, vals, height=h, color=colour, label=policy)
        for bar, v in zip(bars, vals, strict=True):
            ax.text(bar.get_width(), bar.get_y() + h / 2, f" {v:.0f}", va="center")
    ax.set_yticks(y, [r["case"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("rate per flow (GB/s per direction)")
    ax.set_xlim(0, max(max(r["adaptive"], r["static"]) for r in rows) / 1e9 * 1.15)
    ax.legend(title="routing", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title("What one flow gets: spread over every path, or pinned to one")
    fig.tight_layout()
    return fig


def fct_cdf_figure(stats: Sequence, patterns: Sequence[str] | None = None):
    """Flow-completion-time distributions (CDFs), one panel per traffic pattern.

    Colour = fabric (NVLink pod green, InfiniBand blue), line = routing policy (solid
    adaptive, dashed static); a dot marks each curve's p99.

    Examples
    --------
    >>> from nvlearn.switching.patterns import measure, neighbour_shift
    >>> from nvlearn.topology import single_switch
    >>> st = measure(single_switch(4, 1e11), neighbour_shift(4, 1e9))
    >>> len(fct_cdf_figure([st]).axes)
    1
    """
    if patterns is None:
        patterns = list(dict.fromkeys(s.pattern for s in stats))
    n = len(patterns)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = new_figure(rows, cols, width=NOTEBOOK_WIDTH if cols == 2 else 6.5,
                           height=3.3 * rows + 0.9, squeeze=False)
    for ax, name in zip(axes.flat, patterns, strict=False):
        mine = [s for s in stats if s.pattern == name]
        unit, factor = _time_unit(np.concatenate([s.fct for s in mine]))
        for s in mine:
            x = np.sort(s.fct) * factor
            y = np.arange(1, x.size + 1) / x.size
            colour = _fabric_colour(s.fabric)
            ax.step(x, y, where="post", color=colour, ls=POLICY_STYLE.get(s.policy, ":"),
                    lw=1.8, label=f"{s.fabric.split(' (')[0]}, {s.policy}")
            ax.plot([s.p99 * factor], [0.99], "o", color=colour, ms=5)
        ax.set_xscale("log")
        _log_ticks(ax)
        ax.set_ylim(0, 1.04)
        ax.set_xlabel(f"flow completion time ({unit}, log)")
        ax.set_ylabel("fraction of flows done")
        sizes = {s.fabric[s.fabric.find("(") + 1:s.fabric.find(")")] for s in mine}
        ax.set_title(f"{name} ({', '.join(sorted(sizes))})")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.suptitle("Flow completion times; dots mark the 99th percentile")
    legend_in = 0.25 * -(-len(labels) // 2) + 0.15
    fig.tight_layout(rect=(0, legend_in / fig.get_figheight(), 1, 1))
    return fig


def collision_figure(loads: np.ndarray, used_per_seed: np.ndarray, expected_used: float,
                     link_bw: float):
    """Static hashing on a fat tree: flows per uplink for one hash, and used uplinks per hash.

    Parameters
    ----------
    loads : int array
        Flows hashed onto each uplink for one seed (length = number of uplinks).
    used_per_seed : int array
        Uplinks used (at least one flow) for many seeds.
    expected_used : float
        The balls-into-bins expectation.
    link_bw : float
        Uplink bytes/s per direction (to label the per-flow rate).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = collision_figure(np.array([2, 0, 1, 1]), np.array([3, 3, 2]), 2.7, 5e10)
    >>> len(fig.axes)
    2
    """
    fig, (left, right) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=7.6)
    k = np.arange(loads.size)
    colours = [SERIES[1] if c > 1 else SERIES[0] if c == 1 else "#cccccc" for c in loads]
    left.bar(k, loads, color=colours, width=0.8)
    left.set_xlabel("leaf-to-spine uplink (spine index)")
    left.set_ylabel("flows pinned to it")
    left.set_yticks(range(int(loads.max()) + 1))
    idle = int(np.sum(loads == 0))
    left.set_title(f"one hash: {idle} of {loads.size} uplinks idle, the busiest shared by "
                   f"{int(loads.max())}\n(each of those flows gets "
                   f"{format_rate(link_bw / loads.max())} instead of {format_rate(link_bw)})")
    lo, hi = int(used_per_seed.min()), int(used_per_seed.max())
    right.hist(used_per_seed, bins=np.arange(lo - 0.5, hi + 1.5), color=SERIES[2], alpha=0.8)
    right.axvline(expected_used, color="black", ls="--", lw=2, zorder=3,
                  label=f"closed form n(1-(1-1/n)^m), n = {loads.size}, m = {int(loads.sum())}: "
                        f"{expected_used:.1f}")
    right.axvline(used_per_seed.mean(), color=SERIES[1], ls=":", lw=3, zorder=2,
                  label=f"mean of {used_per_seed.size} hash seeds = {used_per_seed.mean():.1f}")
    right.set_xlabel(f"uplinks used by {int(loads.sum())} flows (of {loads.size})")
    right.set_ylabel("hash seeds")
    right.legend(loc="upper left")
    right.set_ylim(0, right.get_ylim()[1] * 1.45)
    right.set_title("balls into bins: about 1 - 1/e of the paths get used")
    fig.tight_layout()
    return fig


def hol_figure(ports: Sequence[int], throughput: Sequence[float], limit: float):
    """Saturation throughput of a FIFO input-queued switch vs its size, with the limits.

    Parameters
    ----------
    ports : sequence of int
        Switch sizes N simulated (inputs = outputs), the x axis (log 2).
    throughput : sequence of float
        Simulated saturation throughput per port, cells per slot, one per ``ports``.
    limit : float
        The large-N limit of FIFO input queueing (2 - sqrt(2) = 0.586), a dashed line.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = hol_figure([1, 2], [1.0, 0.75], 0.586)
    >>> fig.axes[0].get_ylabel()
    'throughput per port (cells / slot)'
    """
    fig, ax = new_figure(width=7.5, height=3.8)
    ax.axhline(1.0, color=SERIES[0], lw=2, label="output queueing / VOQ with a perfect matching")
    ax.plot(ports, throughput, "o-", color=SERIES[1], label="FIFO inputs (simulated cells)")
    ax.axhline(limit, color="black", ls="--", lw=1,
               label=f"2 - sqrt(2) = {limit:.3f} (large-switch limit)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(ports), [str(p) for p in ports])
    ax.set_ylim(0, 1.08)
    ax.set_xlabel("switch ports N (inputs = outputs)")
    ax.set_ylabel("throughput per port (cells / slot)")
    ax.set_title("Head-of-line blocking: uniform traffic, every input always busy")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


def access_time_figure(paths: Sequence, sizes: np.ndarray | None = None):
    """Time to deliver a message one way vs its size, for each memory-access path.

    Examples
    --------
    >>> from nvlearn.switching.memory_semantics import access_paths
    >>> fig = access_time_figure(access_paths())
    >>> fig.axes[0].get_xscale()
    'log'
    """
    if sizes is None:
        sizes = np.logspace(0, 10, 201)
    fig, ax = new_figure(width=8.0, height=4.2)
    colours = [FABRIC_COLOURS["nvlink"], FABRIC_COLOURS["nvlink_network"],
               FABRIC_COLOURS["infiniband"], FABRIC_COLOURS["ethernet"]]
    for p, colour in zip(paths, colours, strict=False):
        ax.plot(sizes, p.transfer_time(sizes), color=colour, lw=2,
                label=f"{p.label}: {format_time(p.one_way)} + n / {format_rate(p.bw_per_dir)}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_time(v)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(v)))
    ax.set_xlabel("message size n")
    ax.set_ylabel("time to deliver one way")
    for n in (64, 2**20, 2**30):
        ax.axvline(n, color="#999999", lw=0.6, ls=":")
        ax.text(n, ax.get_ylim()[0], f" {format_bytes(n, binary=True)}",
                va="bottom", color="#555555")
    ax.legend(loc="upper left")
    ax.set_title("Latency rules small messages, bandwidth rules large ones (model numbers)")
    fig.tight_layout()
    return fig


def growth_figure(series: Mapping[str, Sequence[Mapping]],
                  marks: Mapping[str, tuple[int, float]] | None = None, title: str = ""):
    """Switch chips per GPU and worst-case hops vs GPU count for plane-per-link fat trees.

    ``series`` maps a label to rows of :func:`nvlearn.switching.plans.growth_table`; ``marks``
    adds labelled points ``{label: (gpus, chips_per_gpu)}`` (real systems). Shading shows
    where one, two and three tiers are needed (from the first series).

    Parameters
    ----------
    series : mapping of str -> sequence of mapping
        Label -> rows of :func:`~nvlearn.switching.plans.growth_table` (``"gpus"``,
        ``"tiers"``, chips per GPU ...), one line each.
    marks : mapping of str -> (int, float), optional
        Real systems: label -> (GPUs, switch chips per GPU), drawn as labelled points.
    title : str
        The figure's title (none if empty).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.switching.plans import growth_table
    >>> len(growth_figure({"taper 1": growth_table()}).axes)
    2
    """
    from matplotlib.ticker import FuncFormatter

    fig, (left, right) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=8.4)
    first = next(iter(series.values()))
    gpus = np.array([r["gpus"] for r in first])
    tiers = np.array([r["tiers"] for r in first])
    for ax in (left, right):
        for t, shade in zip((1, 2, 3), ("#f4f4f4", "#e8e8e8", "#dcdcdc"), strict=True):
            sel = gpus[tiers == t]
            if sel.size:
                ax.axvspan(sel.min() / 1.15, sel.max() * 1.15, color=shade, zorder=0)
                ax.text(np.sqrt(sel.min() * sel.max()), 0.98, f"{t} tier{'s' if t > 1 else ''}",
                        transform=ax.get_xaxis_transform(), ha="center", va="top")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xticks(gpus, [str(g) for g in gpus])
        ax.set_xlabel("GPUs")
    for k, (label, rows) in enumerate(series.items()):
        left.plot([r["gpus"] for r in rows], [r["chips_per_gpu"] for r in rows], "o-",
                  color=SERIES[2 + k], label=label)
    for k, (label, (n, c)) in enumerate((marks or {}).items()):
        left.plot([n], [c], "s", color=SERIES[4 + k], ms=9, label=label)
    left.set_ylim(0, left.get_ylim()[1] * 1.3)
    left.set_ylabel("switch chips per GPU")
    left.legend(loc="upper left", bbox_to_anchor=(0.0, 0.92))
    left.set_title("switch silicon per GPU jumps with each tier")
    right.step(gpus, tiers * 2, where="mid", color=SERIES[1])
    right.plot(gpus, tiers * 2, "o", color=SERIES[1])
    right.set_yticks([2, 4, 6])
    right.set_ylim(1, 7)
    right.set_ylabel("links on the longest GPU-to-GPU path")
    right.set_title("every tier adds two hops (and their latency)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class TrafficChart(LiveFigure):
    """The traffic explorer's figure, updated in place per experiment
    (:mod:`nvlearn.plots.live`): a histogram of flow completion times with p50 and p99,
    above the utilisation of the busiest links.

    Parameters
    ----------
    bins : int
        Most histogram bins a state may use.
    links : int
        Most links the lower panel lists.
    """

    def __init__(self, bins: int = 29, links: int = 5) -> None:
        fig, (top, low) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=6.6,
                                     gridspec_kw={"height_ratios": [1.3, 1]})
        super().__init__(fig)
        self.top, self.low = top, low
        self.bins = top.bar(np.zeros(bins), np.zeros(bins), width=1.0, align="edge",
                            alpha=0.85)
        self.quantiles = [top.axvline(1.0, color="black", ls=ls, lw=1) for ls in (":", "--")]
        top.set_ylabel("flows")
        self.links = low.barh(np.arange(links), np.zeros(links))
        low.set_xlim(0, 1.05)
        low.set_xlabel("mean utilisation over the run (bytes / capacity x time)")
        low.set_title("the five busiest links")
        low.set_axisbelow(True)  # grid lines under the bars (drawn over the background)
        # fixed margins (room for the longest link name): no layout pass per state
        fig.subplots_adjust(left=0.25, right=0.97, top=0.95, bottom=0.08, hspace=0.42)
        # fixed axis-label places (matplotlib's own for the widest tick labels: counts of
        # five digits), so a state does not measure every tick label to place them (a
        # fifth of its draw)
        top.xaxis.set_label_coords(0.5, -0.109)
        top.yaxis.set_label_coords(-0.10, 0.5)
        low.xaxis.set_label_coords(0.5, -0.141)
        low.yaxis.set_label_coords(-0.35, 0.5)  # no label: only skips the measuring
        self.dynamic(*self.bins, *self.quantiles, top.xaxis, top.yaxis, top.title,
                     *self.links, low.yaxis, *top.spines.values(), *low.spines.values())

    def update(self, stats, taper: float | None = None) -> Figure:
        """Show ``stats`` (a :class:`~nvlearn.switching.patterns.FlowStats`); the title
        names ``taper`` (down : up) when given, so a taper that changes no flow's time is
        still seen to be the one asked for."""
        colour = _fabric_colour(stats.fabric)
        unit, factor = _time_unit(stats.fct)
        fct = stats.fct * factor
        lo, hi = fct.min(), fct.max()
        log = hi > lo * 1.05
        edges = (np.geomspace(lo * 0.98, hi * 1.02, len(self.bins) + 1) if log
                 else np.linspace(lo * 0.9, hi * 1.1, 11))
        counts, _ = np.histogram(fct, bins=edges)
        for i, bar in enumerate(self.bins):
            bar.set_visible(i < counts.size)
            if i < counts.size:
                bar.set_bounds(edges[i], 0, edges[i + 1] - edges[i], counts[i])
                bar.set_color(colour)
        for line, q in zip(self.quantiles, (stats.p50, stats.p99), strict=True):
            line.set_xdata([q * factor, q * factor])
        self.top.set_xscale("log" if log else "linear")
        if log:
            _log_ticks(self.top)
            pad = (edges[-1] / edges[0]) ** 0.05  # matplotlib's 5 % margins, on a log axis
            self.top.set_xlim(edges[0] / pad, edges[-1] * pad)
        else:
            pad = 0.05 * (edges[-1] - edges[0])
            self.top.set_xlim(edges[0] - pad, edges[-1] + pad)
        self.top.set_ylim(0, counts.max() * 1.05)
        self.top.set_xlabel(f"flow completion time ({unit}); dotted p50, dashed p99")
        tapered = "" if taper is None else f", taper {taper:g}:1"
        self.top.set_title(f"{stats.pattern} on {stats.fabric}{tapered}, {stats.policy} routing")
        self._links(stats.hot_links[::-1], colour)
        return self.fig

    def _links(self, hot: list, colour: str) -> None:
        """The busiest links' bars, the busiest on top."""
        for i, bar in enumerate(self.links):
            bar.set_visible(i < len(hot))
            if i < len(hot):
                bar.set_width(hot[i][1])
                bar.set_color(colour)
        self.low.set_yticks(range(len(hot)), [label for label, _ in hot])
        self.low.set_ylim(-0.6, len(self.links) - 0.4)


def traffic_explorer_figure(stats, taper: float | None = None):
    """The explorer's view of one experiment: FCT histogram and the five hottest links (in
    an explorer's :func:`~nvlearn.plots.live.scope`, its live :class:`TrafficChart`); the
    title names ``taper`` when given.

    Examples
    --------
    >>> from nvlearn.switching.patterns import measure, neighbour_shift
    >>> from nvlearn.topology import single_switch
    >>> st = measure(single_switch(4, 1e11), neighbour_shift(4, 1e9))
    >>> len(traffic_explorer_figure(st).axes)
    2
    """
    return live.chart(TrafficChart).update(stats, taper)
