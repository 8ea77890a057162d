"""The bandwidth-ladder chart (notebook 00)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter

from nvlearn.overview.ladder import Rung
from nvlearn.plots import live
from nvlearn.plots.live import LiveFigure
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, new_figure
from nvlearn.units import format_rate

__all__ = ["LadderChart", "ladder_figure"]

_FAMILY_COLOUR = {
    "pcie": FABRIC_COLOURS["pcie"],
    "nvlink": FABRIC_COLOURS["nvlink"],
    "infiniband": FABRIC_COLOURS["infiniband"],
    "ethernet": FABRIC_COLOURS["ethernet"],
}

_COMPARE_COLOUR = "#b35c00"


class LadderChart(LiveFigure):
    """The ladder's figure for a fixed list of rungs, redrawn for a convention, a unit and
    a comparison by updating its artists (:mod:`nvlearn.plots.live`).

    The background (rung labels, legend, axis, bar values, title) depends on the direction
    convention and the unit; the bars' highlighting and the ratio arrow are drawn per state.

    Parameters
    ----------
    labels : tuple of str
        The rungs' labels, top to bottom.
    families : tuple of str
        Each rung's link family (a key of the legend's colours: pcie, nvlink, infiniband,
        ethernet).
    """

    def __init__(self, labels: tuple[str, ...], families: tuple[str, ...]) -> None:
        fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=5.4)
        super().__init__(fig)
        self.ax, self.labels = ax, labels
        self.y = np.arange(len(labels))[::-1]
        self.bars = ax.barh(self.y, np.ones(len(labels)), height=0.7,
                            color=[_FAMILY_COLOUR[f] for f in families])
        self.values = [ax.text(1.0, yi, "", va="center") for yi in self.y]
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_yticks(self.y, labels)
        ax.grid(axis="y", visible=False)
        ax.set_axisbelow(True)  # grid lines under the bars (drawn over the background)
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in _FAMILY_COLOUR.values()]
        ax.legend(handles, ["PCIe (x16 slot)", "NVLink (all links of one GPU)",
                            "InfiniBand (one port)", "Ethernet (one port)"], loc="lower right")
        self.arrow = ax.annotate("", xy=(1, 0), xytext=(1, 0), arrowprops={
            "arrowstyle": "-|>", "color": _COMPARE_COLOUR, "lw": 2})
        (self.drop,) = ax.plot([1, 1], [0, 0], ls=":", color=_COMPARE_COLOUR, lw=1.2)
        self.ratio = ax.text(0.99, 0.99, "", transform=ax.transAxes, ha="right", va="top",
                             color=_COMPARE_COLOUR, fontweight="bold",
                             bbox={"facecolor": "white", "edgecolor": "none"})
        self.dynamic(*self.bars, self.arrow, self.drop, self.ratio, *ax.spines.values())
        # fixed margins (the rung labels never change): no layout pass per state
        fig.subplots_adjust(left=0.27, right=0.98, top=0.93, bottom=0.1)

    def update(self, rows: list[Rung], bits: bool = False,
               compare: tuple[str, str] | None = None) -> plt.Figure:
        """Show ``rows`` in bits or bytes per second, ``compare``'s two rungs highlighted.

        Parameters
        ----------
        rows : list of Rung
            The rungs of the constructor's labels, in one direction convention.
        bits : bool
            Bits per second (Gb/s) instead of bytes per second (GB/s).
        compare : (str, str), optional
            Labels of the two rungs compared (see :func:`ladder_figure`).

        Returns
        -------
        matplotlib.figure.Figure
            This chart's figure, now showing the state.
        """
        direction = rows[0].direction
        scale = 8.0 if bits else 1.0
        values = np.array([r.bw * scale / 1e9 for r in rows])
        for bar, text, v, r in zip(self.bars, self.values, values, rows, strict=True):
            bar.set_width(v)
            bar.set_alpha(1.0 if compare is None or r.label in compare else 0.3)
            text.set_x(v * 1.08)
            text.set_text(format_rate(r.bw, bits=bits))
        nice = direction.replace("_", " ")
        unit = "Gb/s" if bits else "GB/s"
        self.ax.set_xlabel(f"payload bandwidth ({unit}, {nice}), log scale")
        self.ax.set_xlim(values.min() / 1.5, values.max() * 4)
        self.ax.set_title(
            f"The bandwidth ladder — {nice}, in {'bits' if bits else 'bytes'} per second")
        self.static_key = (direction, bits)
        for artist in (self.arrow, self.drop, self.ratio):
            artist.set_visible(compare is not None)
        if compare is not None:
            self._compare(values, compare)
        return self.fig

    def _compare(self, values: np.ndarray, compare: tuple[str, str]) -> None:
        """The arrow from ``compare[1]``'s bar end to ``compare[0]``'s, and the ratio."""
        ia, ib = self.labels.index(compare[0]), self.labels.index(compare[1])
        va, vb = values[ia], values[ib]
        ya = self.y[ib] + 0.5  # in the gap above b's bar
        self.arrow.xy, self.arrow.xyann = (va, ya), (vb, ya)
        self.drop.set_data([va, va], [self.y[ia], ya])
        self.ratio.set_text(f"{compare[0]} = {va / vb:.3g} x {compare[1]}")


def ladder_figure(rows: list[Rung], bits: bool = False,
                  compare: tuple[str, str] | None = None) -> plt.Figure:
    """Horizontal log-scale bars of ``rows``, labelled with their values.

    In an explorer's :func:`~nvlearn.plots.live.scope` the figure is its live
    :class:`LadderChart`, updated; anywhere else a new figure.

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
    labels = tuple(r.label for r in rows)
    if compare is not None:
        missing = [c for c in compare if c not in labels]
        if missing:
            raise ValueError(f"no rung labelled {missing[0]!r}; have {list(labels)}")
    chart = live.chart(LadderChart, labels, tuple(r.family for r in rows))
    return chart.update(rows, bits=bits, compare=compare)
