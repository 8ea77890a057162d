"""One look for every figure in the course: sizes, colours, and labelled units.

Every plotting function in :mod:`nvlearn.plots` starts with :func:`new_figure`, so figures
share a size, a font and a palette, and colours mean the same thing across notebooks
(NVLink green, InfiniBand blue, PCIe grey ...).
"""

from __future__ import annotations

import threading

import matplotlib

__all__ = ["BODY_PT", "FABRIC_COLOURS", "NOTEBOOK_WIDTH", "SERIES", "SIZE_TOLERANCE_PT",
           "new_figure", "shown_scale", "small_texts"]

matplotlib.use(matplotlib.get_backend())  # keep whatever backend the caller chose
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

#: Colours by fabric / link kind, used consistently in every notebook.
FABRIC_COLOURS: dict[str, str] = {
    "nvlink": "#76b900",          # NVIDIA green
    "nvlink_network": "#3f7f00",
    "pcie": "#7f7f7f",
    "infiniband": "#1f77b4",
    "ethernet": "#9467bd",
    "gpu": "#2b2b2b",
    "nvswitch": "#e6a100",
    "nic": "#17becf",
    "ib_switch": "#1f4e9c",
}

#: Widest figure (inches at the course's 100 dpi) that JupyterLab shows at full size in a
#: 1280-px window with the file browser open (an output area of about 850 px); wider ones
#: are scaled down, and their 10 pt text falls below the notebook's 14 px body text.
NOTEBOOK_WIDTH = 8.4

#: Smallest text, in points of a figure shown at full size, that the course allows: the
#: course's 10 pt at its 100 dpi is 13.9 px, JupyterLab's body text 14 px.
BODY_PT = 10.0
#: How far below :data:`BODY_PT` a text may fall (1 %: a figure a few pixels wider than
#: :data:`NOTEBOOK_WIDTH` still fits JupyterLab's output area of about 850 px).
SIZE_TOLERANCE_PT = 0.1

#: A qualitative palette for algorithms / series.
SERIES = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
}


def new_figure(nrows: int = 1, ncols: int = 1, width: float = 8.0, height: float = 4.5, **kw):
    """Create ``(fig, axes)`` in the course style.

    On the main thread the figure is a pyplot figure (a notebook cell shows it); on any
    other thread (an explorer rendering ahead) it is a bare Agg figure that pyplot never
    sees.

    Parameters
    ----------
    nrows, ncols : int
        The grid of axes.
    width, height : float
        Figure size, inches.
    **kw
        Passed to ``subplots`` (``squeeze``, ``sharex``, ``gridspec_kw`` ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : matplotlib.axes.Axes or array of Axes
        As ``subplots`` returns them.

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> ax.set_xlabel("message size (bytes)")  # doctest: +ELLIPSIS
    Text(...)
    """
    with plt.rc_context(_RC):
        if threading.current_thread() is threading.main_thread():
            fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), **kw)
        else:  # an explorer's prefetch: not in pyplot's list, so no cell ever shows it
            fig = Figure(figsize=(width, height))
            FigureCanvasAgg(fig)
            axes = fig.subplots(nrows, ncols, **kw)
    for ax in fig.axes:
        for key, value in _RC.items():
            if key == "axes.grid":
                ax.grid(value, alpha=_RC["grid.alpha"])
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    return fig, axes


def shown_scale(fig: Figure, tight: bool = True) -> float:
    """How much JupyterLab scales ``fig`` down in a 1280-px window with the file browser open:
    1 when its picture is at most :data:`NOTEBOOK_WIDTH` wide, else that width over its own.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    tight : bool
        The picture is the inline backend's (cropped to the drawn content, ``bbox_inches=
        "tight"``, plus ``savefig.pad_inches`` each side), not the whole figure (an
        explorer's PNG).

    Examples
    --------
    >>> fig, _ = new_figure(width=NOTEBOOK_WIDTH * 2, height=2.0)
    >>> round(shown_scale(fig, tight=False), 2)
    0.5
    """
    width = fig.get_figwidth()
    if tight:
        renderer = RendererAgg(*(fig.bbox.size.astype(int) + 1), fig.dpi)
        pad = plt.rcParams["savefig.pad_inches"]
        width = fig.get_tightbbox(renderer).width + 2 * pad
    return float(min(1.0, NOTEBOOK_WIDTH / width))


def small_texts(fig: Figure, tight: bool = True) -> list[tuple[str, float]]:
    """Texts that ``fig`` draws smaller than :data:`BODY_PT` as shown (:func:`shown_scale`;
    by more than :data:`SIZE_TOLERANCE_PT`): ``(text, points as shown)`` each, in drawing
    order.

    The figure is drawn once with a renderer that notes every string and its size.

    Examples
    --------
    >>> fig, ax = new_figure(width=4.0, height=2.0)
    >>> _ = ax.set_title("readable"), ax.text(0.5, 0.5, "fine print", fontsize=8)
    >>> small_texts(fig)
    [('fine print', 8.0)]
    """
    scale = shown_scale(fig, tight)
    renderer = RendererAgg(*(fig.bbox.size.astype(int) + 1), fig.dpi)
    drawn: list[tuple[str, float]] = []
    draw_text = renderer.draw_text

    def noting(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if s.strip():
            drawn.append((s, prop.get_size_in_points() * scale))
        return draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    renderer.draw_text = noting
    fig.draw(renderer)
    return [(s, round(pt, 2)) for s, pt in drawn if pt < BODY_PT - SIZE_TOLERANCE_PT]
