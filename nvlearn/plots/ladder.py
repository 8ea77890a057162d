"""The bandwidth-ladder chart (notebook 00)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter

from nvlearn.ladder import Rung
from nvlearn.plots.style import FABRIC_COLOURS, new_figure
from nvlearn.units import format_rate

_FAMILY_COLOUR = {
    "pcie": FABRIC_COLOURS["pcie"],
    "nvlink": FABRIC_COLOURS["nvlink"],
    "infiniband": FABRIC_COLOURS["infiniband"],
    "ethernet": FABRIC_COLOURS["ethernet"],
}


def ladder_figure(rows: list[Rung], bits: bool = False) -> plt.Figure:
    """Horizontal log-scale bars of ``rows``, labelled with their values.

    Parameters
    ----------
    rows : list of Rung
        From :func:`nvlearn.ladder.bandwidth_ladder`; all in one direction convention.
    bits : bool
        Show bits per second (Gb/s) instead of bytes per second (GB/s).
    """
    if not rows:
        raise ValueError("no rows to draw")
    direction = rows[0].direction
    if any(r.direction != direction for r in rows):
        raise ValueError("all rows must use the same direction convention")
    scale = 8.0 if bits else 1.0
    values = np.array([r.bw * scale / 1e9 for r in rows])
    fig, ax = new_figure(width=8.5, height=5.2)
    y = np.arange(len(rows))[::-1]
    colours = [_FAMILY_COLOUR[r.family] for r in rows]
    ax.barh(y, values, color=colours, height=0.7)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_yticks(y, [r.label for r in rows])
    for yi, r in zip(y, rows, strict=True):
        ax.text(
            r.bw * scale / 1e9 * 1.08, yi, format_rate(r.bw, bits=bits), va="center", fontsize=8.5
        )
    unit = "Gb/s" if bits else "GB/s"
    nice = direction.replace("_", " ")
    ax.set_xlabel(f"payload bandwidth ({unit}, {nice}), log scale")
    ax.set_xlim(values.min() / 1.5, values.max() * 4)
    ax.grid(axis="y", visible=False)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in _FAMILY_COLOUR.values()]
    ax.legend(
        handles,
        [
            "PCIe (x16 slot)",
            "NVLink (all links of one GPU)",
            "InfiniBand (one port)",
            "Ethernet (one port)",
        ],
        loc="lower right",
        fontsize=8.5,
    )
    ax.set_title(f"The bandwidth ladder — {nice}, in {'bits' if bits else 'bytes'} per second")
    fig.tight_layout()
    return fig
