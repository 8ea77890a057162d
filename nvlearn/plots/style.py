"""One look for every figure in the course: sizes, colours, and labelled units.

Every plotting function in :mod:`nvlearn.plots` starts with :func:`new_figure`, so figures
share a size, a font and a palette, and colours mean the same thing across notebooks
(NVLink green, InfiniBand blue, PCIe grey ...).
"""

from __future__ import annotations

import threading

import matplotlib

__all__ = ["FABRIC_COLOURS", "NOTEBOOK_WIDTH", "SERIES", "new_figure"]

matplotlib.use(matplotlib.get_backend())  # keep whatever backend the caller chose
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
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
