"""Explorer for notebook 00: the bandwidth ladder in any unit convention."""

from __future__ import annotations

import ipywidgets as W

from nvlearn.overview.ladder import bandwidth_ladder
from nvlearn.plots.ladder import ladder_figure
from nvlearn.units import format_rate
from nvlearn.widgets.base import Explorer

__all__ = ["LadderExplorer", "render_ladder"]


def render_ladder(direction: str, unit: str, compare: str):
    """Figure and a one-line ratio for the ladder in the chosen convention; the chart
    highlights H100's NVLink and ``compare`` and draws their ratio.

    Parameters
    ----------
    direction : {"per_direction", "bidirectional"}
        Per-direction rates, or both directions added (how NVIDIA quotes NVLink); see
        :func:`~nvlearn.overview.ladder.bandwidth_ladder`.
    unit : str
        ``"bits/s"`` for Gb/s; anything else bytes/s (GB/s).
    compare : str
        Label of the rung compared with H100's NVLink 4.

    Returns
    -------
    figure : matplotlib.figure.Figure
    text : str
        Both rates in the chosen convention and unit, and their ratio.
    """
    bits = unit == "bits/s"
    rows = bandwidth_ladder(direction)
    h100 = next(r for r in rows if r.label.startswith("NVLink 4"))
    other = next(r for r in rows if r.label == compare)
    fig = ladder_figure(rows, bits=bits, compare=(h100.label, other.label))
    text = (
        f"H100 NVLink: {format_rate(h100.bw, bits=bits)} {direction.replace('_', ' ')}; "
        f"{compare}: {format_rate(other.bw, bits=bits)}; "
        f"ratio {h100.bw / other.bw:.2f}x (the same in every convention)"
    )
    return fig, text


class LadderExplorer(Explorer):
    """Toggle per-direction / bidirectional and bits / bytes; compare H100 NVLink with a rung
    (the chart draws how many times faster, or slower, it is).

    Examples
    --------
    >>> ex = LadderExplorer()
    >>> ex.set(direction="bidirectional")
    >>> ex.text.startswith("H100 NVLink: 900 GB/s")
    True
    """

    def __init__(self) -> None:
        labels = [r.label for r in bandwidth_ladder()]
        controls = {
            "direction": W.ToggleButtons(
                options=[("per direction", "per_direction"), ("bidirectional", "bidirectional")],
                value="per_direction",
                description="direction",
            ),
            "unit": W.ToggleButtons(
                options=["bytes/s", "bits/s"], value="bytes/s", description="unit"
            ),
            "compare": W.Dropdown(
                options=labels,
                value="PCIe Gen5 x16",
                description="compare with",
                style={"description_width": "initial"},
            ),
        }
        super().__init__(controls, render_ladder, title="Bandwidth ladder")
