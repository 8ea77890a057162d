"""Timelines of a simulated collective: Gantt charts (per rank or per link) and a link heatmap.

Both take a :class:`~nvlearn.sim.SimResult` and return a Figure; time axes are in µs or ms
(whichever keeps the numbers readable), with the unit on the axis.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch

from nvlearn.plots.style import NOTEBOOK_WIDTH, SERIES, new_figure

__all__ = ["MERGE_ABOVE", "gantt", "link_heatmap"]

#: Above this many bars in a chart, touching bars of one colour are merged into one.
MERGE_ABOVE = 4000

_KIND_LABELS = {0: "copy (receiver stores)", 1: "reduce (receiver adds)"}


def _time_scale(seconds: float) -> tuple[str, float]:
    """(unit, factor) that keeps ``seconds * factor`` between 1 and 1000 where possible."""
    if seconds >= 1.0:
        return "s", 1.0
    if seconds >= 1e-3:
        return "ms", 1e3
    return "µs", 1e6


def _colours(result, colour_by: str) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Colour index per op and the legend entries ``(label, colour)``."""
    s = result.schedule
    if colour_by == "kind":
        kind = np.asarray(getattr(s, "op_kind", np.zeros(result.n_ops)), dtype=np.int64)
        present = np.unique(kind)
        first = [result.op_start[kind == k].min() for k in present]  # legend in time order
        legend = [(_KIND_LABELS.get(int(k), f"kind {k}"), SERIES[int(k) % len(SERIES)])
                  for _, k in sorted(zip(first, present, strict=True))]
        return kind, legend
    if colour_by == "chunk":
        chunk = np.asarray(getattr(s, "op_chunk", np.zeros(result.n_ops)), dtype=np.int64)
        legend = [(f"chunk {c}", SERIES[c % len(SERIES)]) for c in np.unique(chunk)[:8]]
        return chunk, legend
    raise ValueError(f"colour_by must be 'kind' or 'chunk', got {colour_by!r}")


def _merge(starts: np.ndarray, ends: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Union of intervals (sorted by start), joining those closer than ``eps``."""
    order = np.argsort(starts, kind="stable")
    a, b = starts[order], ends[order]
    reach = np.maximum.accumulate(b)
    new = np.ones(a.size, dtype=bool)
    new[1:] = a[1:] > reach[:-1] + eps
    first = np.flatnonzero(new)
    last = np.append(first[1:], a.size) - 1
    return a[first], reach[last]


def _draw_rows(ax, rows_ops, colour_idx, legend, result, scale, merge, show_flight):
    """Draw each row's ops: transfer bars, plus a thin 'in flight' line up to arrival."""
    start, sent, end = result.op_start, result.op_sent, result.op_end
    drawn = np.unique(colour_idx[np.concatenate(rows_ops)]) if rows_ops else []
    shown = {SERIES[int(k) % len(SERIES)] for k in drawn}
    colours = {label: c for label, c in legend if c in shown}
    palette = {k: SERIES[int(k) % len(SERIES)] for k in np.unique(colour_idx)}
    eps = 1e-9 * max(result.time, 1e-30)
    for y, ops in enumerate(rows_ops):
        if ops.size == 0:
            continue
        for k in np.unique(colour_idx[ops]):
            sel = ops[colour_idx[ops] == k]
            a, b = start[sel], sent[sel]
            if merge:
                a, b = _merge(a, b, eps)
            widths = np.maximum(b - a, 0.0) * scale
            ax.broken_barh(np.column_stack([a * scale, widths]), (y - 0.38, 0.76),
                           facecolors=palette[k], edgecolors="white", linewidth=0.3)
        if show_flight and not merge:
            tail = ops[end[ops] > sent[ops]]
            ax.hlines(np.full(tail.size, y + 0.44), sent[tail] * scale, end[tail] * scale,
                      colors="#333333", linewidth=1.0)
    return [Patch(facecolor=c, label=lbl) for lbl, c in colours.items()]


def gantt(result, by: str = "rank", *, rows=None, max_rows: int = 32, colour_by: str = "kind",
          window: tuple[float, float] | None = None, show_flight: bool = True):
    """Gantt chart of a simulation: when each rank (or link) is transferring.

    Parameters
    ----------
    result : :class:`~nvlearn.sim.SimResult`
        A simulated schedule: its ops' start, send-end and arrival times (s), routes and
        link bytes.
    by : {"rank", "link"}
        One row per sending rank (its outgoing transfers), or per directed link (the
        transfers crossing it; overlapping bars mean the link is shared).
    rows : sequence of int, optional
        Which ranks / links to show. Default: ranks ``0 .. max_rows-1``, or the
        ``max_rows`` busiest links.
    max_rows : int
        Row limit when ``rows`` is not given.
    colour_by : {"kind", "chunk"}
        Colour bars by op kind (reduce vs copy: the two phases of a ring all-reduce) or by
        chunk.
    window : (t0, t1) in seconds, optional
        Time range to show (default: the whole run).
    show_flight : bool
        Draw a thin line from a transfer's end to its data's arrival (the route latency).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> from nvlearn.collectives import allreduce
    >>> from nvlearn.sim import simulate
    >>> res = simulate(single_switch(4, bw_per_dir=100e9, latency=1e-6), allreduce(4, 1e6))
    >>> gantt(res).axes[0].get_xlabel()
    'time (µs)'
    """
    if by not in ("rank", "link"):
        raise ValueError(f"by must be 'rank' or 'link', got {by!r}")
    colour_idx, legend = _colours(result, colour_by)
    s = result.schedule
    if by == "rank":
        rows_ops, labels, what = _rank_rows(result, rows, max_rows)
    else:
        rows_ops, labels, what = _link_rows(result, rows, max_rows)

    t0, t1 = (0.0, result.time) if window is None else window
    unit, scale = _time_scale(max(t1 - t0, t1, 1e-12))
    if window is not None:
        rows_ops = [ops[(result.op_end[ops] >= t0) & (result.op_start[ops] <= t1)]
                    for ops in rows_ops]
    merge = sum(o.size for o in rows_ops) > MERGE_ABOVE

    height = min(1.2 + 0.28 * len(rows_ops), 12.0)
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=max(height, 2.5))
    handles = _draw_rows(ax, rows_ops, colour_idx, legend, result, scale, merge, show_flight)
    ax.set_yticks(np.arange(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(t0 * scale, t1 * scale)
    ax.set_xlabel(f"time ({unit})")
    ax.grid(axis="y", visible=False)
    if show_flight and not merge:
        handles.append(ax.plot([], [], color="#333333", linewidth=1.0,
                               label="in flight (latency)")[0])
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    title = f"{s.algorithm} {s.collective} on {result.topology.name}\n" + (
        f"outgoing transfers per {what}" if by == "rank" else f"transfers crossing each {what}")
    if merge:
        title += "; back-to-back transfers drawn as one bar"
    ax.set_title(title)
    fig.tight_layout()
    return fig


def _rank_rows(result, rows, max_rows: int) -> tuple[list[np.ndarray], list[str], str]:
    """Gantt rows per sending participant: each row's op indices, its label, the y title."""
    s = result.schedule
    n_rows = int(s.n_participants)
    chosen = np.arange(min(n_rows, max_rows)) if rows is None else np.asarray(rows)
    if chosen.size and (chosen.min() < 0 or chosen.max() >= n_rows):
        raise ValueError(f"rows must be participants 0..{n_rows - 1}")
    src = np.asarray(s.op_src)
    order = np.argsort(src, kind="stable")
    bounds = np.searchsorted(src[order], np.arange(n_rows + 1))
    rows_ops = [order[bounds[r]:bounds[r + 1]] for r in chosen]
    labels = [f"rank {r}" if r < s.n_ranks else s.participant_role[r - s.n_ranks]
              for r in chosen]
    what = "rank" + (f" ({chosen.size} of {n_rows} shown)" if chosen.size < n_rows else "")
    return rows_ops, labels, what


def _link_rows(result, rows, max_rows: int) -> tuple[list[np.ndarray], list[str], str]:
    """Gantt rows per directed link (the ops whose route crosses it): op indices, labels,
    the y title. Default: the ``max_rows`` busiest links that carried bytes."""
    n_links = result.link_bytes.size
    if rows is None:
        busiest = np.argsort(-result.link_bytes, kind="stable")
        chosen = busiest[: max_rows][result.link_bytes[busiest[: max_rows]] > 0]
    else:
        chosen = np.asarray(rows)
    if chosen.size and (chosen.min() < 0 or chosen.max() >= n_links):
        raise ValueError(f"rows must be links 0..{n_links - 1}")
    by_path = np.argsort(result.op_path, kind="stable")
    path_start = np.searchsorted(result.op_path[by_path],
                                 np.arange(result.path_indptr.size))
    rows_ops = []
    for lk in chosen:
        on = np.flatnonzero(result.path_link == lk)
        paths = np.unique(np.searchsorted(result.path_indptr, on, side="right") - 1)
        rows_ops.append(np.concatenate(
            [by_path[path_start[p]:path_start[p + 1]] for p in paths]
        ) if paths.size else np.zeros(0, np.int64))
    labels = [result.link_label(int(lk)) for lk in chosen]
    what = "link" + (f" (busiest {chosen.size} of {n_links})" if rows is None else "")
    return rows_ops, labels, what


def _link_groups(result):
    """Group links by (tier, kind) of their two ends: labels and a group index per link."""
    topo = result.topology
    tier = np.asarray(topo.node_tier)
    kind = np.asarray(topo.node_kind)
    src, dst = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    key = np.stack([tier[src], kind[src], tier[dst], kind[dst]], axis=1)
    uniq, index = np.unique(key, axis=0, return_inverse=True)
    names = _node_kind_names()

    def end(t, k):
        return names[k] if t == 0 else f"{names[k]} (tier {t})"

    labels = [f"{end(a, b)} → {end(c, d)}" for a, b, c, d in uniq]
    return labels, index.reshape(-1)


def _node_kind_names() -> tuple[str, ...]:
    from nvlearn.topology import NODE_KIND_NAMES

    return NODE_KIND_NAMES


def link_heatmap(result, *, links=None, group: str = "auto", max_rows: int = 48,
                 order: str = "utilisation"):
    """Heatmap of link utilisation over time, 0 (idle) to 1 (full), links x time bins.

    Parameters
    ----------
    result : :class:`~nvlearn.sim.SimResult`
        A simulated schedule with its timeline: bytes per link per time bin, each link's
        capacity (bytes/s per direction).
    links : sequence of int, optional
        Links to show, one row each (implies ``group="link"``).
    group : {"auto", "link", "tier"}
        ``"link"``: one row per link (the ``max_rows`` busiest unless ``links`` is given).
        ``"tier"``: one row per class of link (e.g. GPU -> NVSwitch, NVSwitch -> second-tier
        switch), showing the class's bytes over its total capacity — where a big fabric's
        capacity sits idle. ``"auto"``: per link up to ``max_rows`` links, else per tier.
    max_rows : int
        Most rows drawn per link.
    order : {"utilisation", "index"}
        Per-link rows: busiest first, or by link id.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> from nvlearn.collectives import allreduce
    >>> from nvlearn.sim import simulate
    >>> res = simulate(single_switch(4, bw_per_dir=100e9), allreduce(4, 1e6))
    >>> fig = link_heatmap(res)
    >>> fig.axes[1].get_ylabel()
    'utilisation\\n(fraction of capacity per direction)'
    """
    if order not in ("utilisation", "index"):
        raise ValueError(f"order must be 'utilisation' or 'index', got {order!r}")
    if group not in ("auto", "link", "tier"):
        raise ValueError(f"group must be 'auto', 'link' or 'tier', got {group!r}")
    tl = result.timeline
    n_links = result.link_utilisation.size
    has_tiers = hasattr(result.topology, "node_tier")
    if links is not None or group == "link" or (group == "auto" and
                                                  (n_links <= max_rows or not has_tiers)):
        rows_bytes, rows_cap, labels, what = _heatmap_links(result, links, max_rows, order)
    else:
        rows_bytes, rows_cap, labels, what = _heatmap_tiers(result)
    edges, image = _utilisation_image(result, rows_bytes, rows_cap)
    unit, scale = _time_scale(edges[-1])

    n_rows = len(labels)
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=max(min(1.8 + 0.24 * n_rows, 12.0), 3.6))
    mesh = ax.pcolormesh(edges * scale, np.arange(n_rows + 1) - 0.5, image, cmap="viridis",
                         vmin=0.0, vmax=1.0, shading="flat")
    ax.set_ylim(n_rows - 0.5, -0.5)
    ax.grid(False)
    if n_rows <= 60:
        ax.set_yticks(np.arange(n_rows), labels)
    else:
        ax.set_ylabel(f"link ({n_rows} shown)")
    ax.set_xlabel(f"time ({unit}); bins of {tl.bin_width * scale:.3g} {unit}")
    cbar = fig.colorbar(mesh, ax=ax, pad=0.02)
    cbar.set_label("utilisation\n(fraction of capacity per direction)")
    s = result.schedule
    # right-aligned: a long title runs over the row labels, not off the figure
    ax.set_title(f"Link utilisation: {s.algorithm} {s.collective} on {result.topology.name}"
                 f"\none row per {what}", loc="right")
    fig.tight_layout()
    return fig


def _heatmap_links(result, links, max_rows: int, order: str):
    """Heatmap rows per link: bytes per bin (rows x bins), capacity per row (bytes/s per
    direction), labels, the title's row description."""
    tl = result.timeline
    util = result.link_utilisation
    n_links = util.size
    if links is None:
        chosen = np.argsort(-util, kind="stable")[: max(1, int(max_rows))]
    else:
        chosen = np.asarray(links, dtype=np.int64)
        if chosen.size == 0 or chosen.min() < 0 or chosen.max() >= n_links:
            raise ValueError(f"links must be link ids in 0..{n_links - 1}")
    if order == "index":
        chosen = np.sort(chosen)
    labels = [result.link_label(int(k)) for k in chosen]
    what = "link" if links is not None or chosen.size == n_links else (
        f"link (busiest {chosen.size} of {n_links})")
    return tl.link_bytes[chosen], tl.link_capacity[chosen], labels, what


def _heatmap_tiers(result):
    """Heatmap rows per class of link (:func:`_link_groups`): the class's bytes per bin and
    total capacity (bytes/s per direction), labels with the link count, the row
    description."""
    tl = result.timeline
    labels, index = _link_groups(result)
    rows_bytes = np.zeros((len(labels), tl.n_bins))
    np.add.at(rows_bytes, index, tl.link_bytes)
    rows_cap = np.bincount(index, weights=tl.link_capacity, minlength=len(labels))
    counts = np.bincount(index, minlength=len(labels))
    labels = [f"{lbl} ({c} links)" for lbl, c in zip(labels, counts, strict=True)]
    return rows_bytes, rows_cap, labels, "class of link (bytes / total capacity of the class)"


def _utilisation_image(result, rows_bytes, rows_cap) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges (s) up to the makespan and the utilisation of each row in each bin; the
    last bin only counts the time it covers."""
    tl = result.timeline
    n_used = max(1, min(tl.n_bins, int(np.ceil(result.time / tl.bin_width - 1e-9))))
    edges = np.arange(n_used + 1) * tl.bin_width
    edges[-1] = max(result.time, edges[-2] + 1e-300) if n_used > 0 else tl.bin_width
    image = rows_bytes[:, :n_used] / (rows_cap[:, None] * np.diff(edges)[None, :])
    return edges, image
