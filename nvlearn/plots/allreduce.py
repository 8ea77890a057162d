"""Figures for notebook 04: all-reduce algorithms over message sizes, NCCL's choice, NVLS.

Every function returns a matplotlib Figure (started with :func:`~nvlearn.plots.style.new_figure`).
:func:`sweep_svg` draws the explorer's chart as an SVG string instead — a few milliseconds,
where a matplotlib render takes a few hundred.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure

__all__ = ["ALGO_COLOURS", "ALGO_LABELS", "link_traffic_figure", "model_busbw_figure",
           "nccl_model_figure", "numerics_figure", "nvls_speedup_figure", "size_label",
           "sweep_figure", "sweep_line_figure", "sweep_svg", "time_label"]

#: One colour per algorithm, the same in every figure of the notebook.
ALGO_COLOURS: dict[str, str] = {
    "ring": SERIES[0],
    "binary_tree": SERIES[7],
    "double_binary_tree": SERIES[2],
    "nccl_tree": "#b15928",
    "recursive_doubling": SERIES[5],
    "rabenseifner": SERIES[3],
    "nvls": SERIES[1],
    "hierarchical": SERIES[6],
    "hierarchical_nvls": SERIES[4],
    "nvls_tree": SERIES[4],
}
#: Readable names of the algorithms.
ALGO_LABELS: dict[str, str] = {
    "ring": "ring",
    "binary_tree": "binary tree",
    "double_binary_tree": "double binary tree",
    "nccl_tree": "NCCL's tree",
    "recursive_doubling": "recursive doubling",
    "rabenseifner": "Rabenseifner",
    "nvls": "NVLS (in-switch)",
    "hierarchical": "hierarchical (ring in node)",
    "hierarchical_nvls": "hierarchical (NVLS in node)",
    "nvls_tree": "NVLSTree",
}
_PROTO_STYLE = {"ll": ":", "ll128": "--", "simple": "-"}


def size_label(n_bytes: float) -> str:
    """Sizes in binary units: ``"1 KiB"``, ``"64 MiB"``; others to 3 digits (``"0.99 MiB"``).

    Examples
    --------
    >>> size_label(2**10), size_label(3 * 2**20), size_label(1.5e6), size_label(1037866)
    ('1 KiB', '3 MiB', '1.43 MiB', '0.99 MiB')
    """
    v = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        exact = v == round(v) and v < 1024
        if exact or v < 1000 or unit == "TiB":
            return f"{v:.0f} {unit}" if exact else f"{v:.3g} {unit}"
        v /= 1024
    raise AssertionError("unreachable")


def _size_axis(ax, sizes) -> None:
    lo, hi = float(np.min(sizes)), float(np.max(sizes))
    ax.set_xscale("log", base=2)
    k0, k1 = int(np.ceil(np.log2(lo))), int(np.floor(np.log2(hi)))
    ticks = [2.0**k for k in range(k0, k1 + 1) if (k - k0) % 4 == 0]
    if ticks[-1] < hi:
        ticks.append(2.0**k1)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: size_label(x)))
    ax.set_xlim(lo, hi)
    ax.set_xlabel("message size per GPU")


def time_label(seconds: float) -> str:
    """Tick-style time: ``"10 µs"``, ``"100 µs"``, ``"1 ms"``, ``"2.5 s"``.

    Examples
    --------
    >>> time_label(1e-4), time_label(2.5e-3), time_label(1e-9)
    ('100 µs', '2.5 ms', '1 ns')
    """
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def _time_axis(ax) -> None:
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: time_label(y)))
    ax.set_ylabel("time (log scale)")


def _dense(sizes: np.ndarray, values: np.ndarray, per: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Points between the sweep's sizes, values linear in n between them (exact for the
    affine stretches of a collective's time)."""
    xs = np.concatenate([np.geomspace(a, b, per, endpoint=False)
                         for a, b in zip(sizes[:-1], sizes[1:], strict=True)] + [sizes[-1:]])
    return xs, np.interp(xs, sizes, values)


def sweep_figure(sweeps: Sequence, titles: Sequence[str] | None = None, *,
                 among: Sequence[Sequence[str] | None] | None = None,
                 bus_bw_ref: Mapping[str, float] | None = None):
    """Time and nccl-tests busbw (below it) vs size, one pair of panels per Sweep, all
    stacked at the notebook's width (side by side they would be shrunk).

    Simulated algorithms are drawn with dots at the simulated sizes, closed forms as dashed
    lines; the fastest algorithm's curve is underlaid in grey and every change of the
    fastest is marked (dotted line, "a → b" at its size).

    Parameters
    ----------
    sweeps : sequence of :class:`~nvlearn.tuner.Sweep`
        One pair of panels (time, busbw) per sweep, top to bottom.
    titles : sequence of str, optional
        One panel title per sweep; default ``"<fabric>, <p> GPUs"``. The sweep's model
        is always named on a second line.
    among : sequence (one per sweep) of algorithm lists or None, optional
        Which algorithms compete for "fastest" (shaded, crossovers marked); default all.
    bus_bw_ref : mapping of label -> bytes/s, optional
        Horizontal reference lines in the busbw panels (e.g. the NVLink rate), bytes/s
        per direction.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.tuner import closed_form_sweep, link_params
    >>> from nvlearn.topology import dgx_h100
    >>> fig = sweep_figure([closed_form_sweep(link_params(dgx_h100()))])
    >>> len(fig.axes)
    2
    """
    n = len(sweeps)
    fig, axes = new_figure(2 * n, 1, width=NOTEBOOK_WIDTH, height=6.4 * n + 1.2,
                           squeeze=False)
    seen: dict[str, object] = {}
    styles: set[bool] = set()
    for j, sw in enumerate(sweeps):
        ax_t, ax_b = axes[2 * j, 0], axes[2 * j + 1, 0]
        ax_b.sharex(ax_t)
        contest = among[j] if among else None
        _sweep_curves(ax_t, ax_b, sw, contest, seen, styles)
        _sweep_crossovers(ax_t, ax_b, sw.crossovers(contest))
        _time_axis(ax_t)
        _size_axis(ax_b, sw.sizes)
        _busbw_axis(ax_b, bus_bw_ref or {})
        title = titles[j] if titles else f"{sw.fabric}, {sw.n_ranks} GPUs"
        ax_t.set_title(f"{title}\n{_MODEL_LABELS[sw.model]}", fontsize=10)
        _size_axis(ax_t, sw.sizes)
    _sweep_legend(fig, seen, styles)
    return fig


def _sweep_curves(ax_t, ax_b, sw, contest, seen: dict, styles: set) -> None:
    """The fastest envelope (grey, under) and each algorithm's time and busbw; records
    each algorithm's legend handle in ``seen`` and whether it was simulated in ``styles``."""
    best = sw.best_index(contest)
    env = sw.time[best, np.arange(sw.sizes.size)]
    xs, ys = _dense(sw.sizes, env)
    ax_t.plot(xs, ys, color="#bbbbbb", lw=7, alpha=0.6, solid_capstyle="round",
              zorder=1, label="fastest")
    factor = 2.0 * (sw.n_ranks - 1) / sw.n_ranks          # nccl-tests' busbw factor
    for i, algo in enumerate(sw.algorithms):
        colour = ALGO_COLOURS.get(algo, SERIES[i % len(SERIES)])
        sim = sw.methods[i] == "simulated"
        label = ALGO_LABELS.get(algo, algo)
        xd, td = _dense(sw.sizes, sw.time[i])
        ax_t.plot(xd, td, "-" if sim else "--", color=colour, lw=1.6, zorder=3)
        ax_b.plot(xd, xd / td * factor / 1e9, "-" if sim else "--", color=colour, lw=1.6,
                  zorder=3)
        if sim and sw.sizes.size < 16:
            ax_t.plot(sw.sizes, sw.time[i], "o", color=colour, ms=3.5, zorder=4)
            ax_b.plot(sw.sizes, sw.busbw[i] / 1e9, "o", color=colour, ms=3.5, zorder=4)
        seen.setdefault(label, Line2D([], [], color=colour, lw=2.5))
        styles.add(sim)


def _sweep_crossovers(ax_t, ax_b, crossovers) -> None:
    """A dotted line through both panels at each change of the fastest, "a → b" on top."""
    for k, (x, a, b) in enumerate(crossovers):
        for ax in (ax_t, ax_b):
            ax.axvline(x, color="#444444", ls=":", lw=1.0, zorder=2)
        ax_t.annotate(f"{ALGO_LABELS.get(a, a)} → {ALGO_LABELS.get(b, b)}\n{size_label(x)}",
                      xy=(x, 0.98 - 0.13 * (k % 3)), xycoords=("data", "axes fraction"),
                      ha="left", va="top", color="#333333",
                      xytext=(3, 0), textcoords="offset points",
                      bbox={"fc": "white", "ec": "none", "alpha": 0.8, "pad": 1})


def _busbw_axis(ax_b, bus_bw_ref: Mapping[str, float]) -> None:
    """The busbw panel's label, its y range (room for the references) and the reference
    lines (label -> bytes/s)."""
    ax_b.set_ylabel("busbw (GB/s per GPU, per direction)")
    refs_top = max((v / 1e9 for v in bus_bw_ref.values()), default=0.0)
    ax_b.set_ylim(0, max(ax_b.get_ylim()[1], 1.08 * refs_top))
    for label, value in bus_bw_ref.items():
        ax_b.axhline(value / 1e9, color=FABRIC_COLOURS["nvlink"], lw=1.0, ls="-.")
        ax_b.annotate(label, xy=(0.01, value / 1e9), xycoords=("axes fraction", "data"),
                      va="bottom", color="#3f7f00")


def _sweep_legend(fig, seen: dict, styles: set) -> None:
    """One legend under all panels: the envelope, the algorithms, the two line styles."""
    handles = [Line2D([], [], color="#bbbbbb", lw=7, alpha=0.6), *seen.values()]
    labels = ["fastest at that size", *seen.keys()]
    if True in styles:
        handles.append(Line2D([], [], color="#333333", marker="o", ms=3.5, ls="-"))
        labels.append("simulated (dots: simulated sizes)")
    if False in styles:
        handles.append(Line2D([], [], color="#333333", ls="--"))
        labels.append("closed form")
    fig.legend(handles, labels, loc="lower center", ncol=3,
               bbox_to_anchor=(0.5, 0.0))
    legend_in = 0.22 * -(-len(labels) // 3) + 0.15
    fig.tight_layout(rect=(0, legend_in / fig.get_figheight(), 1, 1))


_MODEL_STYLE = {"wire": "--", "achievable": "-"}
_MODEL_LABELS = {"wire": "wire (ideal: link rate, no software)",
                 "achievable": "achievable (NCCL's rates, protocols, latencies)"}


def model_busbw_figure(sweeps: Sequence, *, refs: Mapping[str, float] | None = None,
                       switch: float | None = None, title: str = ""):
    """busbw vs size of the same algorithms under both models of the fabric.

    One panel: each algorithm in its colour, solid for the achievable model and dashed for
    the wire model; ``refs`` are horizontal lines (label -> bytes/s), ``switch`` the size at
    which NCCL's tuner changes algorithm (a dotted vertical line).

    Parameters
    ----------
    sweeps : sequence of :class:`~nvlearn.tuner.Sweep`
        Same fabric, ranks and sizes; one per model.
    refs : mapping of str -> float, optional
        Reference rates, bytes/s per direction.
    switch : float, optional
        Bytes per GPU at which NCCL's tuner switches.
    title : str
        Panel title; default ``"<fabric>, <p> GPUs"`` of the first sweep.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.tuner import closed_form_sweep, link_params
    >>> from nvlearn.topology import dgx_h100
    >>> lp = link_params(dgx_h100())
    >>> fig = model_busbw_figure([closed_form_sweep(lp, algorithms=["ring"], model=m)
    ...                           for m in ("wire", "achievable")])
    >>> fig.axes[0].get_ylabel()
    'busbw (GB/s per GPU, per direction)'
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=5.8)
    for sw in sweeps:
        for i, algo in enumerate(sw.algorithms):
            ax.plot(sw.sizes, sw.busbw[i] / 1e9, _MODEL_STYLE[sw.model], lw=2.0,
                    color=ALGO_COLOURS.get(algo, SERIES[i % len(SERIES)]))
    for label, value in (refs or {}).items():
        ax.axhline(value / 1e9, color=FABRIC_COLOURS["nvlink"], lw=1.0, ls="-.")
        ax.annotate(label, xy=(0.01, value / 1e9), xycoords=("axes fraction", "data"),
                    va="bottom", color="#3f7f00")
    if switch is not None:
        ax.axvline(switch, color="#444444", ls=":", lw=1.2)
        ax.annotate(f"NCCL's tuner switches\nat {size_label(switch)}", xy=(switch, 0.98),
                    xycoords=("data", "axes fraction"), ha="right", va="top",
                    xytext=(-4, 0), textcoords="offset points")
    _size_axis(ax, sweeps[0].sizes)
    ax.set_ylabel("busbw (GB/s per GPU, per direction)")
    ax.set_ylim(bottom=0)
    ax.set_title(title or f"{sweeps[0].fabric}, {sweeps[0].n_ranks} GPUs")
    algos = dict.fromkeys(a for sw in sweeps for a in sw.algorithms)
    handles = [Line2D([], [], color=ALGO_COLOURS.get(a, "k"), lw=2.5) for a in algos]
    labels = [ALGO_LABELS.get(a, a) for a in algos]
    for m in dict.fromkeys(sw.model for sw in sweeps):
        handles.append(Line2D([], [], color="#333333", ls=_MODEL_STYLE[m], lw=2.0))
        labels.append(_MODEL_LABELS[m])
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3)
    fig.tight_layout()
    return fig


def sweep_line_figure(sweep, *, highlight: str | None = None, marker: float | None = None,
                      title: str = ""):
    """One panel of time vs size for a Sweep, ``highlight`` thick, ``marker`` a size line.

    Parameters
    ----------
    sweep : :class:`~nvlearn.tuner.Sweep`
        The algorithms' times (s) over its sizes (bytes per GPU), one line each.
    highlight : str, optional
        Algorithm drawn thick (3 pt); the others 1.3 pt.
    marker : float, optional
        A size, bytes per GPU, marked with a vertical line.
    title : str
        Panel title; default ``"<fabric>, <p> GPUs"``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.tuner import closed_form_sweep, link_params
    >>> from nvlearn.topology import dgx_h100
    >>> fig = sweep_line_figure(closed_form_sweep(link_params(dgx_h100())), marker=2**20)
    >>> fig.axes[0].get_ylabel()
    'time (log scale)'
    """
    fig, ax = new_figure(width=7.5, height=4.0)
    for a in sweep.algorithms:
        ax.plot(sweep.sizes, sweep.row(a), color=ALGO_COLOURS.get(a, "k"),
                label=ALGO_LABELS.get(a, a), lw=3.0 if a == highlight else 1.3)
    if marker is not None:
        ax.axvline(marker, color="black", lw=1.0)
    _time_axis(ax)
    _size_axis(ax, sweep.sizes)
    ax.set_title(title or f"{sweep.fabric}, {sweep.n_ranks} GPUs")
    ax.legend()
    fig.tight_layout()
    return fig


def nccl_model_figure(tunings: Sequence, sizes, titles: Sequence[str] | None = None):
    """NCCL's predicted time of every enabled (algorithm, protocol) vs size, one panel per
    :class:`~nvlearn.tuner.Tuning`, its choice drawn thick and each switch labelled.

    Parameters
    ----------
    tunings : sequence of :class:`~nvlearn.tuner.Tuning`
        One panel per tuning (a fabric's NCCL cost table), stacked.
    sizes : array of float
        Message sizes, bytes per GPU; the curves span their minimum to their maximum.
    titles : sequence of str, optional
        One title per panel; default the fabric's name and its GPU count.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.tuner import tune, SIZES
    >>> from nvlearn.topology import dgx_h100
    >>> fig = nccl_model_figure([tune("allreduce", dgx_h100())], SIZES)
    >>> len(fig.axes)
    1
    """
    n = len(tunings)
    # One panel per row: three side by side would be shown at ~60 % in a notebook.
    fig, axes = new_figure(n, 1, width=NOTEBOOK_WIDTH, height=3.4 * n + 1.2, squeeze=False)
    x = np.asarray(sizes, dtype=np.float64)
    xs = np.geomspace(x.min(), x.max(), 400)
    handles = {}
    for j, t in enumerate(tunings):
        ax = axes[j, 0]
        times = t.times(xs)
        for c, row in zip(t.candidates, times, strict=True):
            if not c.enabled:
                continue
            (h,) = ax.plot(xs, row, _PROTO_STYLE[c.protocol], lw=1.2,
                           color=ALGO_COLOURS.get(c.algorithm, "k"), alpha=0.9)
            handles.setdefault(c.label, h)
        best = np.min(times, axis=0)
        (hb,) = ax.plot(xs, best, color="black", lw=3.0, alpha=0.35, zorder=1)
        handles.setdefault("NCCL's choice", hb)
        first = t.best(xs[0])
        ax.annotate(first.label, xy=(xs[0], first.time(xs[0])), xytext=(4, 6),
                    textcoords="offset points")
        for k, cx in enumerate(t.crossovers(x.min(), x.max())):
            ax.axvline(cx.n_bytes, color="#444444", ls=":", lw=1.0)
            ax.annotate(f"→ {cx.to.label}\n{size_label(cx.n_bytes)}",
                        xy=(cx.n_bytes, 0.97 - 0.14 * (k % 3)),
                        xycoords=("data", "axes fraction"), xytext=(3, 0),
                        textcoords="offset points", ha="left", va="top",
                        bbox={"fc": "white", "ec": "none", "alpha": 0.8, "pad": 1})
        _time_axis(ax)
        ax.set_ylabel("predicted time (log scale)")
        _size_axis(ax, x)
        f = t.fabric
        where = f"{f.n_nodes} x {f.ranks_per_node}" if f.n_nodes > 1 else "1 node"
        ax.set_title(titles[j] if titles else f"{f.name}\n{f.n_ranks} GPUs ({where})",
                     fontsize=10)
    ncol = min(3, len(handles))
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center",
               ncol=ncol, bbox_to_anchor=(0.5, 0.0))
    legend_in = 0.22 * -(-len(handles) // ncol) + 0.15
    fig.tight_layout(rect=(0, legend_in / fig.get_figheight(), 1, 1))
    return fig


def nvls_speedup_figure(sizes, measured: Mapping[str, np.ndarray], ideal: float,
                        nccl_model: np.ndarray | None = None, chunks=None,
                        chunk_speedup: np.ndarray | None = None, n_ranks: int = 8):
    """NVLS's speed-up over the ring vs size (top) and vs pipeline depth (below).

    Parameters
    ----------
    sizes : array of bytes
        Message sizes per GPU (the top panel's x axis).
    measured : mapping label -> array
        Speed-up (ring time / NVLS time) over ``sizes``, one line per label (e.g.
        simulated, closed form).
    ideal : float
        ``2(p-1)/(p+1)``, the traffic ratio.
    nccl_model : array, optional
        NCCL's predicted ratio (its best non-NVLS time / NVLS time) over ``sizes``.
    chunks, chunk_speedup : arrays, optional
        Speed-up at the largest size for each NVLS pipeline depth; given, they add the
        lower panel.
    n_ranks : int
        GPUs, named in the title.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = nvls_speedup_figure([2**20, 2**30], {"sim": np.array([0.5, 1.4])}, 1.556)
    >>> len(fig.axes)
    1
    """
    two = chunks is not None
    fig, axes = new_figure(2 if two else 1, 1, width=NOTEBOOK_WIDTH, height=8.0 if two else 4.4,
                           squeeze=False)
    ax = axes[0, 0]
    x = np.asarray(sizes, dtype=np.float64)
    for i, (label, y) in enumerate(measured.items()):
        ax.plot(x, y, "-o" if i == 0 else "--", ms=3, color=SERIES[(1, 2, 4, 5)[i % 4]],
                label=label)
    if nccl_model is not None:
        ax.plot(x, nccl_model, "-", color="black", alpha=0.5, lw=1.5,
                label="NCCL's table (NVLS at its traffic bound)")
    ax.axhline(ideal, color=FABRIC_COLOURS["nvlink"], lw=1.5, ls="-.",
               label=f"ideal 2(p−1)/(p+1) = {ideal:.2f}")
    ax.axhline(2.0, color="#999999", lw=1.0, ls=":", label="the '2x' claim")
    ax.axhline(1.0, color="#444444", lw=0.8)
    _size_axis(ax, x)
    ax.set_yscale("log")
    ax.set_ylim(0.4, 12)
    ax.yaxis.set_major_locator(FixedLocator([0.5, 1, 1.5, 2, 5, 10]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_ylabel("speed-up of NVLS over the ring (×, log scale)")
    ax.set_title(f"NVLS vs ring, {n_ranks} GPUs, each at its best pipeline depth")
    ax.legend(loc="upper right")
    if two:
        ax2 = axes[1, 0]
        ax2.plot(chunks, chunk_speedup, "-o", ms=4, color=SERIES[1])
        ax2.axhline(ideal, color=FABRIC_COLOURS["nvlink"], lw=1.5, ls="-.")
        ax2.axhline(1.0, color="#444444", lw=0.8)
        ax2.set_xscale("log", base=2)
        ax2.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax2.set_xlabel("NVLS pipeline depth (slots per shard)")
        ax2.set_ylabel("speed-up over the best ring (×)")
        ax2.set_title(f"at {size_label(x[-1])}, wire model: pipeline fill eats the gain")
        ax2.set_ylim(0, 2.3)
    fig.tight_layout()
    return fig


def link_traffic_figure(bytes_per_gpu: Mapping[str, tuple[np.ndarray, np.ndarray]],
                        n_bytes: float, refs: Mapping[str, float]):
    """Bytes each GPU sends up to / receives from the switches, in units of the buffer.

    Parameters
    ----------
    bytes_per_gpu : mapping label -> (sent, received) arrays
        Per algorithm, the bytes each GPU sent into the fabric and received from it, one
        entry per GPU.
    n_bytes : float
        The all-reduce's buffer (per GPU), bytes; the bars are in units of it.
    refs : mapping label -> float
        Horizontal reference lines, as multiples of ``n_bytes`` (e.g. ``2(p-1)/p``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = link_traffic_figure({"ring": (np.ones(8) * 1.75, np.ones(8) * 1.75)}, 1.0,
    ...                           {"2(p-1)/p": 1.75})
    >>> len(fig.axes)
    2
    """
    fig, axes = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=7.4)
    labels = list(bytes_per_gpu)
    width = 0.8 / len(labels)
    for k, (ax, what) in enumerate(zip(axes, ("sent into the fabric", "received from it"),
                                       strict=True)):
        for i, label in enumerate(labels):
            vals = np.asarray(bytes_per_gpu[label][k]) / n_bytes
            pos = np.arange(vals.size) + (i - (len(labels) - 1) / 2) * width
            ax.bar(pos, vals, width=width * 0.95, label=label,
                   color=ALGO_COLOURS.get(label.split()[0], SERIES[i % len(SERIES)]))
        for j, (rl, rv) in enumerate(refs.items()):
            ax.axhline(rv, color="#333333", ls=["--", ":", "-."][j % 3], lw=1.0)
            ax.annotate(rl, xy=(1.0, rv), xycoords=("axes fraction", "data"), ha="right",
                        va="bottom",
                        bbox={"fc": "white", "ec": "none", "alpha": 0.85, "pad": 1})
        ax.set_xticks(np.arange(vals.size), [f"GPU {g}" for g in range(vals.size)])
        ax.set_ylabel("bytes / buffer size")
        ax.set_title(f"per GPU: bytes {what}")
        ax.set_ylim(0, max(2.1, ax.get_ylim()[1]))
    axes[0].legend(loc="upper left")
    fig.tight_layout()
    return fig


def numerics_figure(tables: Mapping[int, object], dtypes: Sequence[str] = ("float32", "bfloat16")):
    """Relative RMS error of each algorithm's sum, per dtype (panels) and rank count (bars).

    Parameters
    ----------
    tables : mapping n_ranks -> :class:`~nvlearn.numerics.ErrorTable`

    Examples
    --------
    >>> from nvlearn.numerics import reduction_order_errors
    >>> t = reduction_order_errors(4, 64, algorithms=("ring", "binary_tree"))
    >>> len(numerics_figure({4: t}).axes)
    2
    """
    fig, axes = new_figure(len(dtypes), 1, width=NOTEBOOK_WIDTH, height=3.6 * len(dtypes),
                           squeeze=False)
    counts = list(tables)
    for ax, dtype in zip(axes[:, 0], dtypes, strict=True):
        algos = [r.algorithm for r in tables[counts[0]].rows if r.dtype == dtype]
        width = 0.8 / len(counts)
        for k, p in enumerate(counts):
            vals = [tables[p].get(a, dtype).rel_rms_error for a in algos]
            pos = np.arange(len(algos)) + (k - (len(counts) - 1) / 2) * width
            ax.bar(pos, vals, width=width * 0.95, color=SERIES[(2 * k) % len(SERIES)],
                   label=f"{p} GPUs")
        ax.set_xticks(np.arange(len(algos)),
                      [ALGO_LABELS.get(a, a).split(" (")[0] for a in algos], rotation=15,
                      ha="right")
        ax.set_ylabel("relative RMS error of the sum")
        ax.set_title(f"{dtype}: additions rounded to {dtype}")
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 2))
        ax.legend()
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------
# SVG for the explorer
# --------------------------------------------------------------------------------------

def _log_scale(lo: float, hi: float, a: float, b: float):
    llo, lhi = np.log10(lo), np.log10(hi)
    return lambda v: a + (np.log10(v) - llo) / (lhi - llo) * (b - a)


def sweep_svg(sizes, times: Mapping[str, np.ndarray], *, highlight: str | None = None,
              marker: float | None = None, crossovers: Sequence[tuple[float, str, str]] = (),
              title: str = "", width: int = 820, height: int = 380) -> str:
    """A log-log chart of time vs size as an SVG string (no matplotlib: a few ms).

    Text is 14 px (the notebook's body size) at the default 820 px width, which a 1280-px
    JupyterLab with the file browser open shows unscaled.

    Parameters
    ----------
    sizes : array of bytes
        Message sizes per GPU, the x axis (log 2, a grid line every 16x).
    times : mapping algorithm -> array of seconds
        Each algorithm's time over ``sizes``; nan and non-positive points are skipped,
        an algorithm with none is left out.
    highlight : str, optional
        Algorithm drawn thick; the others thin.
    marker : float, optional
        A size to mark with a vertical line and a dot on each curve.
    crossovers : sequence of (size, from, to)
        Changes of the fastest algorithm: a dotted line at ``size`` (bytes) labelled with
        ``to``.
    title : str
        Bold text above the chart; none if empty.
    width, height : int
        The SVG's size in px; the margins (legend on the right) are fixed.

    Returns
    -------
    str
        The ``<svg>`` element.

    Examples
    --------
    >>> svg = sweep_svg([2**10, 2**20], {"ring": np.array([1e-5, 1e-4])}, marker=2**15)
    >>> svg.startswith("<svg") and "ring" in svg
    True
    """
    x = np.asarray(sizes, dtype=np.float64)
    box = _SvgBox(width, height, left=72, right=240, top=30, bottom=46)
    vals = np.concatenate([np.asarray(v, dtype=np.float64) for v in times.values()])
    vals = vals[np.isfinite(vals) & (vals > 0)]
    t_lo = 10 ** np.floor(np.log10(vals.min()))
    t_hi = 10 ** np.ceil(np.log10(vals.max()))
    fx = _log_scale(x.min(), x.max(), box.left, width - box.right)
    fy = _log_scale(t_lo, t_hi, height - box.bottom, box.top)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="14">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        out.append(f'<text x="{box.left}" y="18" font-weight="bold">'
                   f'{html.escape(title)}</text>')
    out += _svg_grid(box, x, t_lo, t_hi, fx, fy)
    out += _svg_verticals(box, fx, crossovers, marker)
    for i, (algo, t) in enumerate(times.items()):
        out += _svg_curve(box, i, algo, x, np.asarray(t, dtype=np.float64), fx, fy,
                          highlight, marker)
    out.append(f'<rect x="{box.left}" y="{box.top}" width="{width - box.right - box.left}" '
               f'height="{height - box.bottom - box.top}" fill="none" stroke="#999"/>')
    out.append("</svg>")
    return "".join(out)


class _SvgBox(NamedTuple):
    """The chart's size and the margins (px) around its plotting area."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int


def _svg_grid(box: _SvgBox, x, t_lo: float, t_hi: float, fx, fy) -> list[str]:
    """Grid lines and tick labels: a line per decade of time, one per 16x of size."""
    width, height = box.width, box.height
    left, right, top, bottom = box.left, box.right, box.top, box.bottom
    out = []
    decade = t_lo
    while decade <= t_hi * 1.0001:
        y = fy(decade)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
                   'stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{time_label(decade)}</text>')
        decade *= 10
    k0, k1 = int(np.log2(x.min())), int(np.log2(x.max()))
    for k in range(k0, k1 + 1, 4):
        xx = fx(2.0**k)
        out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{top}" y2="{height - bottom}" '
                   'stroke="#e5e5e5"/>')
        out.append(f'<text x="{xx:.1f}" y="{height - bottom + 17}" text-anchor="middle">'
                   f'{size_label(2.0**k)}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 6}" '
               'text-anchor="middle">message size per GPU</text>')
    out.append(f'<text x="14" y="{(top + height - bottom) / 2:.0f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {(top + height - bottom) / 2:.0f})">time</text>')
    return out


def _svg_verticals(box: _SvgBox, fx, crossovers, marker) -> list[str]:
    """Dotted lines at the crossovers (labelled with the new fastest), a solid one at
    ``marker``."""
    top, bottom = box.top, box.height - box.bottom
    out = []
    for k, (size, _frm, to) in enumerate(crossovers):
        xx = fx(size)
        out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{top}" y2="{bottom}" '
                   'stroke="#666" stroke-dasharray="2,3"/>')
        out.append(f'<text x="{xx + 3:.1f}" y="{top + 15 + 18 * (k % 3)}" fill="#555">'
                   f'→ {html.escape(ALGO_LABELS.get(to, to).split(" (")[0])}</text>')
    if marker is not None:
        xx = fx(marker)
        out.append(f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{top}" y2="{bottom}" '
                   'stroke="black" stroke-width="1.2"/>')
    return out


def _svg_curve(box: _SvgBox, i: int, algo: str, x, t, fx, fy, highlight, marker) -> list[str]:
    """The ``i``-th algorithm's curve (finite points only), its dot at ``marker`` and its
    legend entry; nothing if it has no finite point."""
    ok = np.isfinite(t) & (t > 0)
    if not ok.any():
        return []
    colour = ALGO_COLOURS.get(algo, SERIES[i % len(SERIES)])
    pts = " ".join(f"{fx(a):.1f},{fy(b):.1f}" for a, b in zip(x[ok], t[ok], strict=True))
    w = 3.2 if algo == highlight else 1.4
    op = 1.0 if (highlight is None or algo == highlight) else 0.55
    out = [f'<polyline points="{pts}" fill="none" stroke="{colour}" '
           f'stroke-width="{w}" opacity="{op}"/>']
    if marker is not None:
        tm = np.interp(marker, x[ok], t[ok])
        r = 3.5 if w > 2 else 2.5
        out.append(f'<circle cx="{fx(marker):.1f}" cy="{fy(tm):.1f}" r="{r}" '
                   f'fill="{colour}"/>')
    legend_x = box.width - box.right
    ly = box.top + 10 + 20 * i
    out.append(f'<line x1="{legend_x + 10}" x2="{legend_x + 30}" y1="{ly}" '
               f'y2="{ly}" stroke="{colour}" stroke-width="{w}"/>')
    weight = ' font-weight="bold"' if algo == highlight else ""
    out.append(f'<text x="{legend_x + 34}" y="{ly + 4}"{weight}>'
               f'{html.escape(ALGO_LABELS.get(algo, algo))}</text>')
    return out
