"""The bandwidth-ladder chart (notebook 00)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter

from nvlearn.overview.ladder import Rung
from nvlearn.plots.style import FABRIC_COLOURS, new_figure
from nvlearn.units import format_rate

__all__ = ["ladder_figure"]

_FAMILY_COLOUR = {
    "pcie": FABRIC_COLOURS["pcie"],
    "nvlink": FABRIC_COLOURS["nvlink"],
    "infiniband": FABRIC_COLOURS["infiniband"],
    "ethernet": FABRIC_COLOURS["ethernet"],
}

_COMPARE_COLOUR = "#b35c00"


def ladder_figure(rows: list[Rung], bits: bool = False,
                  compare: tuple[str, str] | None = None) -> plt.Figure:
    """Horizontal log-scale bars of ``rows``, labelled with their values.

    Parameters
    ----------
    rows : list of Rung
        From :func:`nvlearn.overview.ladder.bandwidth_ladder`; all in one direction convention.
    bits : bool
        Show bits per second (Gb/s) instead of bytes per second (GB/s).
    compare : (str, str), optional
        Labels of two rungs ``(a, b)``: both are highlighted (the others faded) and an arrow
        from ``b``'s bar end to ``a``'s shows the ratio a / b, which on the log axis is a
        distance that no unit convention changes.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.overview.ladder import bandwidth_ladder
    >>> rows = bandwidth_ladder()
    >>> fig = ladder_figure(rows, compare=(rows[7].label, rows[2].label))
    >>> fig.axes[0].texts[-1].get_text()
    'NVLink 4 (H100), per GPU = 7.14 x PCIe Gen5 x16'
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
    labels = [r.label for r in rows]
    if compare is not None:
        missing = [c for c in compare if c not in labels]
        if missing:
            raise ValueError(f"no rung labelled {missing[0]!r}; have {labels}")
    alpha = [1.0 if compare is None or r.label in compare else 0.3 for r in rows]
    bars = ax.barh(y, values, color=colours, height=0.7)
    for bar, a in zip(bars, alpha, strict=True):
        bar.set_alpha(a)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_yticks(y, [r.label for r in rows])
    for yi, r in zip(y, rows, strict=True):
        ax.text(
            r.bw * scale / 1e9 * 1.08, yi, format_rate(r.bw, bits=bits), va="center", fontsize=9.5
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
        fontsize=9.5,
    )
    if compare is not None:
        ia, ib = labels.index(compare[0]), labels.index(compare[1])
        va, vb = values[ia], values[ib]
        ya = y[ib] + 0.5  # in the gap above b's bar
        ax.annotate("", xy=(va, ya), xytext=(vb, ya),
                    arrowprops={"arrowstyle": "-|>", "color": _COMPARE_COLOUR, "lw": 2})
        ax.plot([va, va], [y[ia], ya], ls=":", color=_COMPARE_COLOUR, lw=1.2)
        ax.text(0.99, 0.99, f"{compare[0]} = {va / vb:.3g} x {compare[1]}",
                transform=ax.transAxes, ha="right", va="top", color=_COMPARE_COLOUR,
                fontweight="bold", bbox={"facecolor": "white", "edgecolor": "none"})
    ax.set_title(f"The bandwidth ladder — {nice}, in {'bits' if bits else 'bytes'} per second")
    # fixed margins (the rung labels never change): an explorer redraw skips a layout pass
    fig.subplots_adjust(left=0.25, right=0.98, top=0.93, bottom=0.1)
    return fig
