"""Drawings of fabrics: who is wired to whom, with how many links of what speed.

:func:`draw_topology` picks a layout from the topology's structure:

* GPUs only (ring, all-to-all): GPUs on a circle, every cable drawn.
* One box (DGX H100, PCIe box, single switch): GPUs in a row, switch tiers above, every
  cable drawn with its width growing with the number of bundled links and the count written
  at the GPU end.
* Many boxes (NVLink pod, InfiniBand cluster): a few boxes drawn in full and the rest
  elided; fabric switches above, grouped by plane / rail; cables from a box to the fabric
  are aggregated per plane into one line annotated with what it stands for
  ("10 x (2 x 25 GB/s)": ten second-level chips, two NVLinks of 25 GB/s to each).
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyBboxPatch

from ..topology import (
    LINK_KIND_KEYS,
    LINK_KIND_NAMES,
    NODE_CPU,
    NODE_GPU,
    NODE_IB_SWITCH,
    NODE_NIC,
    NODE_NVSWITCH,
    NODE_PCIE_SWITCH,
    Topology,
    injection_bw_per_dir,
)
from ..units import format_rate
from .style import FABRIC_COLOURS, NOTEBOOK_WIDTH, new_figure

__all__ = ["draw_topology"]

_NODE_COLOUR = {
    NODE_GPU: FABRIC_COLOURS["gpu"],
    NODE_NVSWITCH: FABRIC_COLOURS["nvswitch"],
    NODE_NIC: FABRIC_COLOURS["nic"],
    NODE_IB_SWITCH: FABRIC_COLOURS["ib_switch"],
    NODE_PCIE_SWITCH: FABRIC_COLOURS["pcie"],
    NODE_CPU: "#8c564b",
}
_SHORT = {NODE_GPU: "GPU", NODE_NVSWITCH: "NVSwitch", NODE_NIC: "NIC",
          NODE_IB_SWITCH: "IB sw", NODE_PCIE_SWITCH: "PCIe sw", NODE_CPU: "CPU"}


def _cables(topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per full-duplex cable: the direction with the smaller source id."""
    keep = topo.link_src < topo.link_dst
    idx = np.flatnonzero(keep)
    return idx, topo.link_src[idx], topo.link_dst[idx]


def _rate(bw: float) -> str:
    return format_rate(bw).replace(".0 ", " ")


def _bundle_text(topo: Topology, link: int) -> str:
    count = int(topo.link_count[link])
    per_link = topo.link_capacity[link] / count
    return f"{count} x {_rate(per_link)}" if count > 1 else _rate(per_link)


def _box(ax, x, y, w, h, colour, text="", text_colour="white", zorder=3,
         alpha=1.0):
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h,
                                boxstyle="round,pad=0,rounding_size=0.02", fc=colour,
                                ec="black", lw=0.5, zorder=zorder, alpha=alpha))
    if text:
        ax.text(x, y, text, ha="center", va="center", color=text_colour,
                zorder=zorder + 1)


def _finish(fig, ax, topo: Topology, title: str | None, kinds, counts_shown: bool) -> None:
    ax.set_axis_off()
    ax.set_aspect("auto")
    parts = []
    for kind in np.unique(topo.link_kind[np.isin(topo.link_src, topo.gpus)]):
        inj = injection_bw_per_dir(topo, [kind])
        lo, hi = _rate(inj.min()), _rate(inj.max())
        parts.append(f"{lo if lo == hi else f'{lo} .. {hi}'}"
                     + (f" {LINK_KIND_NAMES[kind]}" if len(set(topo.link_kind)) > 1 else ""))
    inj_text = " + ".join(parts)
    ax.set_title(title or "\n".join(textwrap.wrap(
        f"{topo.name}: {topo.n_gpus} GPUs, {inj_text} per GPU per direction", 72)))
    handles = []
    for kind in sorted(kinds):
        sel = topo.link_kind == kind
        per_link = np.unique(np.round(topo.link_capacity[sel] / topo.link_count[sel]))
        speeds = ", ".join(_rate(v) for v in per_link[per_link > 0])
        handles.append(Line2D([], [], color=FABRIC_COLOURS[LINK_KIND_KEYS[kind]], lw=2.5,
                              label=f"{LINK_KIND_NAMES[kind]} ({speeds} per link, per "
                              "direction)"))
    if counts_shown:
        handles.append(Line2D([], [], ls="", marker="o", ms=9, mfc="white", mec="#555555",
                              label="n: physical links bundled in the cable"))
    present = sorted(set(topo.node_kind.tolist()))
    for kind in present:
        handles.append(Line2D([], [], ls="", marker="s", ms=9, mfc=_NODE_COLOUR[kind],
                              mec="black", label=_SHORT[kind]))
    below = -0.07 if topo.node_box.max() > 0 else -0.01
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, below),
              ncol=min(2 if topo.node_box.max() > 0 else 3, len(handles)), fontsize=10)
    fig.tight_layout()


def _draw_circle(topo: Topology, ax) -> set[int]:
    n = topo.n_gpus
    angle = np.pi / 2 - 2 * np.pi * np.arange(n) / n
    pos = {int(g): (np.cos(a), np.sin(a)) for g, a in zip(topo.gpus, angle, strict=True)}
    idx, src, dst = _cables(topo)
    for link, a, b in zip(idx, src, dst, strict=True):
        (x0, y0), (x1, y1) = pos[int(a)], pos[int(b)]
        colour = FABRIC_COLOURS[LINK_KIND_KEYS[topo.link_kind[link]]]
        ax.plot([x0, x1], [y0, y1], color=colour, lw=1.0 + 0.5 * topo.link_count[link],
                zorder=1)
        if n <= 8:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, _bundle_text(topo, link),
                    ha="center", va="center", zorder=2,
                    bbox={"fc": "white", "ec": "none", "pad": 0.5})
    for rank, g in enumerate(topo.gpus):
        x, y = pos[int(g)]
        _box(ax, x, y, 0.28, 0.16, FABRIC_COLOURS["gpu"], f"GPU{rank}")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.25, 1.25)
    return set(topo.link_kind[idx].tolist())


def _draw_tiers(topo: Topology, ax) -> set[int]:
    """One box: GPUs in a row, higher tiers above; every cable, counts at the GPU end."""
    gpus = [int(g) for g in topo.gpus]
    pos = {g: (float(i), 0.0) for i, g in enumerate(gpus)}
    width = max(len(gpus) - 1, 1)
    others = [v for v in range(topo.n_nodes) if topo.node_kind[v] != NODE_GPU]
    idx, src, dst = _cables(topo)
    nbrs = defaultdict(set)
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        nbrs[a].add(b)
        nbrs[b].add(a)
    for tier in sorted({int(topo.node_tier[v]) for v in others}):
        row = sorted((v for v in others if topo.node_tier[v] == tier),
                     key=lambda v: (topo.node_plane[v], v))
        below = [np.mean([pos[u][0] for u in nbrs[v] if u in pos]) if any(
            u in pos for u in nbrs[v]) else np.nan for v in row]
        distinct = not np.isnan(below).any() and len(set(np.round(below, 6))) == len(row)
        xs = below if distinct else np.linspace(0, width, len(row) + 2)[1:-1]
        for v, x in zip(row, xs, strict=True):
            pos[v] = (float(x), 1.4 * tier)
    h = 0.32
    widths = {v: (0.72 if topo.node_kind[v] == NODE_GPU else 1.1) for v in pos}
    # spread each node's cables over its edge, ordered by where the other end is
    ends: dict[tuple[int, int], float] = {}
    for v in pos:
        peers = sorted(nbrs[v], key=lambda u: pos[u][0])
        for i, u in enumerate(peers):
            ends[(v, u)] = pos[v][0] + 0.9 * widths[v] * ((i + 0.5) / len(peers) - 0.5)
    for link, a, b in zip(idx.tolist(), src.tolist(), dst.tolist(), strict=True):
        lo, hi = (a, b) if pos[a][1] <= pos[b][1] else (b, a)
        x0, y0 = ends[(lo, hi)], pos[lo][1] + (h / 2 if pos[hi][1] > pos[lo][1] else 0)
        x1, y1 = ends[(hi, lo)], pos[hi][1] - (h / 2 if pos[hi][1] > pos[lo][1] else 0)
        colour = FABRIC_COLOURS[LINK_KIND_KEYS[topo.link_kind[link]]]
        count = int(topo.link_count[link])
        ax.plot([x0, x1], [y0, y1], color=colour, lw=0.6 + 0.5 * count, alpha=0.75, zorder=1)
        if count > 1 and y0 != y1:
            ax.text(x0, y0 + 0.09, str(count), ha="center",
                    va="center", zorder=2,
                    bbox={"boxstyle": "circle,pad=0.15", "fc": "white", "ec": colour,
                          "lw": 0.6})
    for v, (x, y) in pos.items():
        kind = int(topo.node_kind[v])
        label = f"GPU{gpus.index(v)}" if kind == NODE_GPU else _SHORT[kind]
        if kind == NODE_NVSWITCH and topo.node_plane[v] >= 0:
            label += f" {topo.node_plane[v]}"
        _box(ax, x, y, widths[v], h, _NODE_COLOUR[kind], label,
             text_colour="black" if kind == NODE_NVSWITCH else "white")
    top = max(y for _, y in pos.values())
    # what each switch gives one GPU (for a symmetric box this explains the counts)
    for v, (x, y) in pos.items():
        if y == top and y > 0:
            down = [k for k in range(topo.n_links)
                    if topo.link_dst[k] == v and topo.node_kind[topo.link_src[k]] == NODE_GPU]
            if down:
                k = down[0]
                # narrow enough for four switches side by side at body size; the title
                # and the legend say "per direction"
                ax.text(x, y + 0.22, f"{_bundle_text(topo, k)}\n= "
                        f"{_rate(topo.link_capacity[k])}\nper GPU", ha="center", va="bottom")
    ax.set_xlim(-0.6, width + 0.6)
    ax.set_ylim(-0.35, top + 0.75)
    return set(topo.link_kind[idx].tolist())


_BOX_W, _GAP = 1.0, 0.35   # a server's width and the gap between servers (data units)


@dataclass
class _Layout:
    """A many-box drawing's placement: which servers are drawn, where every node is, and
    the fabric switches grouped by (tier, plane)."""

    shown: list[int]
    n_boxes: int
    fabric: np.ndarray                      # per node: a fabric switch (in no server)
    total_w: float
    pos: dict[int, tuple[float, float]] = field(default_factory=dict)
    groups: dict[tuple[int, int], list[int]] = field(
        default_factory=lambda: defaultdict(list))

    def slot_x(self, bx: int) -> float:
        """Left edge of server ``bx`` (an elided run leaves one slot empty in the middle)."""
        slot = self.shown.index(bx)
        if len(self.shown) < self.n_boxes and bx >= self.n_boxes - len(self.shown) // 2:
            slot += 1
        return _GAP / 2 + slot * (_BOX_W + _GAP)


def _draw_boxes(topo: Topology, ax, max_boxes: int) -> set[int]:
    """Many boxes: a few drawn in full, fabric switches above, box-to-fabric aggregated."""
    n_boxes = int(topo.node_box.max()) + 1
    if n_boxes <= max_boxes:
        shown = list(range(n_boxes))
    else:
        half = max(max_boxes // 2, 1)
        shown = list(range(half)) + list(range(n_boxes - half, n_boxes))
    slots = len(shown) + (1 if len(shown) < n_boxes else 0)
    lay = _Layout(shown, n_boxes, topo.node_box < 0, slots * (_BOX_W + _GAP))
    cables = _cables(topo)
    _draw_fabric_switches(topo, ax, lay)
    bottom, ext_links, kinds = _draw_servers(topo, ax, lay, cables)
    _taper_note(topo, ax, lay.fabric)
    kinds |= _draw_uplinks(topo, ax, lay, ext_links)
    kinds |= _draw_fabric_cables(topo, ax, lay, cables)
    top = max(y for _, y in lay.pos.values())
    ax.set_xlim(-0.1, lay.total_w + 0.1)
    ax.set_ylim(bottom - 0.3, top + 0.75)
    return kinds


def _draw_fabric_switches(topo: Topology, ax, lay: _Layout) -> None:
    """Fabric switches on top, grouped by plane (and enclosure), tiers stacked."""
    fab_nodes = np.flatnonzero(lay.fabric)
    enclosure = {int(v): int(topo.node_enclosure[v]) for v in fab_nodes
                 if topo.node_enclosure[v] >= 0}
    for tier in sorted(set(topo.node_tier[fab_nodes].tolist())):
        row = [int(v) for v in fab_nodes if topo.node_tier[v] == tier]
        row.sort(key=lambda v: (topo.node_plane[v], v))
        steps = [0.0]
        for prev, v in zip(row, row[1:], strict=False):
            if topo.node_plane[v] != topo.node_plane[prev]:
                steps.append(steps[-1] + 2.0)
            elif enclosure.get(v) != enclosure.get(prev):
                steps.append(steps[-1] + 1.35)
            else:
                steps.append(steps[-1] + 1.0)
        spacing = lay.total_w / (steps[-1] + 1.0)
        for v, step in zip(row, steps, strict=True):
            lay.pos[v] = (spacing * (step + 0.5), 2.2 + 1.3 * (tier - 1))
            lay.groups[(tier, int(topo.node_plane[v]))].append(v)
        chip_w = min(0.85 * spacing, 0.5)
        for v in row:
            _box(ax, *lay.pos[v], chip_w, 0.2, _NODE_COLOUR[int(topo.node_kind[v])])
        members_of: dict[int, list[int]] = defaultdict(list)
        for v in row:
            if v in enclosure:
                members_of[enclosure[v]].append(v)
        for members in members_of.values():
            xs = [lay.pos[v][0] for v in members]
            y = lay.pos[members[0]][1]
            ax.add_patch(FancyBboxPatch((min(xs) - 0.6 * spacing, y - 0.17),
                                        max(xs) - min(xs) + 1.2 * spacing, 0.34,
                                        boxstyle="round,pad=0,rounding_size=0.04", fc="none",
                                        ec="#555555", lw=0.8, zorder=2))
    for (_, plane), members in lay.groups.items():
        n_enc = len({enclosure[v] for v in members if v in enclosure})
        ax.text(np.mean([lay.pos[v][0] for v in members]), lay.pos[members[0]][1] + 0.22,
                _group_label(topo, plane, members, n_enc), ha="center", va="bottom")


def _group_label(topo: Topology, plane: int, members: list[int], n_enclosures: int) -> str:
    """``"plane 0:\n4 NVSwitch chips\nin 2 switch boxes"``, ``"rail 3"``, ``"8 spines"``."""
    node_kind = int(topo.node_kind[members[0]])
    kind = _SHORT[node_kind]
    what = "plane" if node_kind == NODE_NVSWITCH else "rail"
    if node_kind == NODE_IB_SWITCH:
        kind = ("leaf" if plane >= 0 else "spine") if len(members) == 1 else (
            "leaves" if plane >= 0 else "spines")
    if plane < 0:
        label = f"{len(members)} {kind}"
    elif len(members) == 1:
        label = f"{what} {plane}"
    else:
        label = f"{what} {plane}:\n{len(members)} {kind}"
    label += " chips" if node_kind == NODE_NVSWITCH else ""
    if n_enclosures:
        label += f"\nin {n_enclosures} switch boxes"
    return label


def _draw_servers(topo: Topology, ax, lay: _Layout, cables
                  ) -> tuple[float, dict[tuple[int, tuple[int, int]], list[int]], set[int]]:
    """The shown servers at the bottom, their insides drawn; returns the frames' bottom edge,
    each inner node's links to each (tier, plane) of the fabric, and the link kinds drawn."""
    idx, src, dst = cables
    external = np.zeros(topo.n_nodes, bool)
    cross = lay.fabric[src] != lay.fabric[dst]
    external[src[cross]] = True
    external[dst[cross]] = True
    inner_rows = {NODE_GPU: 0.0}
    for kind in sorted(set(topo.node_kind[~lay.fabric].tolist()) - {NODE_GPU}):
        nodes_k = np.flatnonzero((topo.node_kind == kind) & ~lay.fabric)
        inner_rows[kind] = 1.2 if external[nodes_k].any() else (
            0.6 if kind != NODE_NVSWITCH else -0.6)
    bottom = min(inner_rows.values()) - 0.3
    ext_links: dict[tuple[int, tuple[int, int]], list[int]] = defaultdict(list)
    kinds_drawn: set[int] = set()
    for bx in lay.shown:
        x0 = lay.slot_x(bx)
        members = np.flatnonzero(topo.node_box == bx)
        ax.add_patch(FancyBboxPatch((x0 - 0.05, bottom), _BOX_W + 0.1, 1.6 - bottom,
                                    boxstyle="round,pad=0,rounding_size=0.05", fc="#f4f4f4",
                                    ec="#999999", lw=0.6, zorder=0))
        ax.text(x0 + _BOX_W / 2, bottom - 0.1, f"node {bx}", ha="center", va="top")
        for kind, y in inner_rows.items():
            row = [int(v) for v in members if topo.node_kind[v] == kind]
            for i, v in enumerate(row):
                lay.pos[v] = (x0 + _BOX_W * (i + 0.5) / len(row), y)
        for link, a, b in zip(idx.tolist(), src.tolist(), dst.tolist(), strict=True):
            inside_a, inside_b = topo.node_box[a] == bx, topo.node_box[b] == bx
            if inside_a and inside_b:
                (xa, ya), (xb, yb) = lay.pos[a], lay.pos[b]
                ax.plot([xa, xb], [ya, yb], lw=0.4, alpha=0.6, zorder=1,
                        color=FABRIC_COLOURS[LINK_KIND_KEYS[topo.link_kind[link]]])
                kinds_drawn.add(int(topo.link_kind[link]))
            elif inside_a or inside_b:
                inner, outer = (a, b) if inside_a else (b, a)
                key = (int(topo.node_tier[outer]), int(topo.node_plane[outer]))
                ext_links[(inner, key)].append(link)
        for v in members.tolist():
            if v in lay.pos:
                kind = int(topo.node_kind[v])
                plane = int(topo.node_plane[v])
                label = str(plane) if kind == NODE_NVSWITCH and plane >= 0 else ""
                _box(ax, *lay.pos[v], 0.1 if kind == NODE_GPU else 0.14, 0.16,
                     _NODE_COLOUR[kind], label, text_colour="black")
    if len(lay.shown) < lay.n_boxes:
        x_gap = _GAP / 2 + len(lay.shown) // 2 * (_BOX_W + _GAP) + _BOX_W / 2
        ax.text(x_gap, 0.4, f"...\n{lay.n_boxes - len(lay.shown)} more\nnodes,\nwired\n"
                "the same\nway", ha="center", va="center")
    return bottom, ext_links, kinds_drawn


def _taper_note(topo: Topology, ax, fabric: np.ndarray) -> None:
    """Under the drawing: what a server's GPUs inject vs what leaves it (the taper)."""
    box0 = topo.node_box == 0
    from_gpu = box0[topo.link_src] & (topo.node_kind[topo.link_src] == NODE_GPU)
    to_nvswitch = from_gpu & (topo.node_kind[topo.link_dst] == NODE_NVSWITCH)
    into = topo.link_capacity[to_nvswitch if to_nvswitch.any() else from_gpu]
    out = topo.link_capacity[box0[topo.link_src] & fabric[topo.link_dst]]
    where = "into the NVSwitches" if to_nvswitch.any() else ""
    ax.text(0.5, -0.005, f"per node: the GPUs inject {_rate(into.sum())} {where};\n"
            f"{_rate(out.sum())} leaves the node for the fabric (per direction; "
            f"{into.sum() / out.sum():.3g}:1 taper)", fontsize=10.5, ha="center", va="top",
            transform=ax.transAxes)


def _draw_uplinks(topo: Topology, ax, lay: _Layout,
                  ext_links: dict[tuple[int, tuple[int, int]], list[int]]) -> set[int]:
    """Server-to-fabric cables: a node wired to every switch of a plane group gets one line
    to a bar under that group (annotated with what it stands for); others are drawn as is."""
    by_key: dict[tuple[int, int], list[tuple[int, list[int]]]] = defaultdict(list)
    labelled: set[tuple[int, str]] = set()
    kinds_drawn: set[int] = set()
    for (inner, key), links in ext_links.items():
        by_key[key].append((inner, links))
    for key, items in by_key.items():
        members = lay.groups[key]
        xs = [lay.pos[v][0] for v in members]
        gy = lay.pos[members[0]][1] - 0.17
        kind = int(topo.link_kind[items[0][1][0]])
        colour = FABRIC_COLOURS[LINK_KIND_KEYS[kind]]
        kinds_drawn.add(kind)
        items.sort(key=lambda item: lay.pos[item[0]][0])
        whole = all(len({int(topo.link_src[k]) ^ int(topo.link_dst[k]) ^ inner
                         for k in links}) == len(members) > 1 for inner, links in items)
        if whole:
            ax.plot([min(xs), max(xs)], [gy, gy], color=colour, lw=2.0, zorder=2,
                    solid_capstyle="round")
        for inner, links in items:
            x, y = lay.pos[inner]
            if whole:
                ax.plot([x, np.mean(xs)], [y + 0.08, gy], color=colour, alpha=0.55, zorder=1,
                        lw=0.5 + 0.2 * len(links))
                continue
            for k in links:
                other = int(topo.link_src[k]) ^ int(topo.link_dst[k]) ^ inner
                ax.plot([x, lay.pos[other][0]], [y + 0.08, lay.pos[other][1] - 0.1],
                        color=colour, alpha=0.55, zorder=1, lw=0.5 + 0.2 * topo.link_count[k])
        text = _uplink_label(topo, items)
        same_tier = sum(1 for k in by_key if k[0] == key[0])
        if same_tier > 4 and (key[0], text) in labelled:
            continue  # many rails wired alike: say it once
        labelled.add((key[0], text))
        ax.text(np.mean(xs), gy - 0.14, text,
                ha="center", va="top", zorder=4, color=colour,
                bbox={"fc": "white", "ec": colour, "lw": 0.5, "pad": 1.5})
    return kinds_drawn


def _uplink_label(topo: Topology, items: list[tuple[int, list[int]]]) -> str:
    """``"from each node:\n10 x (2 x 25 GB/s)"``: what one server (or NIC) sends to a group."""
    inner, links = items[0]
    text = _bundle_text(topo, links[0])
    if len(links) > 1:
        text = f"{len(links)} x ({text})" if " x " in text else f"{len(links)} x {text}"
    per_box: dict[int, int] = defaultdict(int)
    for node, _ in items:
        per_box[int(topo.node_box[node])] += 1
    who = "node" if set(per_box.values()) == {1} else _SHORT[int(topo.node_kind[inner])]
    return f"from each {who}:\n{text}"


def _draw_fabric_cables(topo: Topology, ax, lay: _Layout, cables) -> set[int]:
    """Cables between the fabric's switch tiers (thin and faint when dense), and what one
    lower-tier switch sends up."""
    idx, src, dst = cables
    fab_cables = [(link, a, b) for link, a, b in zip(idx.tolist(), src.tolist(), dst.tolist(),
                                                     strict=True)
                  if lay.fabric[a] and lay.fabric[b]]
    if not fab_cables:
        return set()
    dense = len(fab_cables) > 48
    for link, a, b in fab_cables:
        (xa, ya), (xb, yb) = lay.pos[a], lay.pos[b]
        ax.plot([xa, xb], [ya, yb], lw=0.3 if dense else 0.8, alpha=0.25 if dense else 0.7,
                zorder=1, color=FABRIC_COLOURS[LINK_KIND_KEYS[topo.link_kind[link]]])
    link, a, b = fab_cables[0]
    lower = a if topo.node_tier[a] < topo.node_tier[b] else b
    up = [k for k in range(topo.n_links) if topo.link_src[k] == lower
          and lay.fabric[topo.link_dst[k]] and topo.node_tier[topo.link_dst[k]] >
          topo.node_tier[lower]]
    name = "leaf" if topo.node_kind[lower] == NODE_IB_SWITCH else _SHORT[
        int(topo.node_kind[lower])]
    colour = FABRIC_COLOURS[LINK_KIND_KEYS[topo.link_kind[link]]]
    ax.text(0.02, (lay.pos[a][1] + lay.pos[b][1]) / 2, f"each {name}:\n{len(up)} x "
            f"{_bundle_text(topo, up[0])} up", color=colour, ha="left",
            va="center", zorder=4, bbox={"fc": "white", "ec": colour, "lw": 0.5, "pad": 1.5})
    return {int(topo.link_kind[k]) for k, _, _ in fab_cables}


def draw_topology(topo: Topology, *, max_boxes: int = 4, title: str | None = None) -> Figure:
    """Draw a fabric: nodes by kind, cables coloured by link kind, bundles annotated.

    Parameters
    ----------
    topo : :class:`~nvlearn.topology.Topology`
        The fabric: its nodes (kind, tier, name) and cables (kind, rate, count).
    max_boxes : int
        In a multi-server fabric, draw at most this many servers in full (half from each
        end); the rest are elided (they are wired the same way).
    title : str, optional
        Default: the topology's name, GPU count and injection bandwidth per GPU.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> fig = draw_topology(single_switch(4, bw_per_dir=100e9))
    >>> fig.axes[0].get_title()
    'single_switch(4): 4 GPUs, 100 GB/s per GPU per direction'
    """
    if max_boxes < 2:
        raise ValueError(f"max_boxes must be >= 2 (one server from each end), got {max_boxes}")
    n_boxes = int(topo.node_box.max()) + 1
    if topo.n_nodes == topo.n_gpus:
        fig, ax = new_figure(width=6.5, height=6.0)
        kinds = _draw_circle(topo, ax)
    elif n_boxes <= 1:
        fig, ax = new_figure(width=min(NOTEBOOK_WIDTH, max(7.0, 1.0 * topo.n_gpus + 1)),
                             height=4.6)
        kinds = _draw_tiers(topo, ax)
    else:
        tiers = len(set(topo.node_tier[topo.node_box < 0].tolist()))
        fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=5.0 + 1.2 * tiers)
        kinds = _draw_boxes(topo, ax, max_boxes)
    _finish(fig, ax, topo, title, kinds, counts_shown=n_boxes <= 1 and topo.n_nodes > topo.n_gpus
            and bool((topo.link_count > 1).any()))
    return fig
