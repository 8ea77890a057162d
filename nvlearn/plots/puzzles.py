"""Figures for notebook 09 (schedule puzzles): who holds what, and time vs target."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from nvlearn.plots.style import NOTEBOOK_WIDTH, SERIES, new_figure

__all__ = ["STATUS_COLOURS", "status_grid", "times_vs_targets"]

#: Colours of the (rank, chunk) states of :data:`nvlearn.puzzles.STATUS_NAMES`.
STATUS_COLOURS = ("#f4f4f4", "#1b9e77", "#d7301f", "#fdd49e", "#7570b3")


def status_grid(status: np.ndarray, title: str = "who holds what", ax=None):
    """Ranks x chunks coloured right / wrong / missing / race / not required; the Figure.

    Parameters
    ----------
    status : array (ranks x chunks) of int
        Status codes, indices into :data:`STATUS_COLOURS` (names in
        ``nvlearn.puzzles.grading.STATUS_NAMES``).
    title : str
        Panel title.
    ax : matplotlib.axes.Axes, optional
        Draw on it (and return its Figure); default a new Figure sized to the grid.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = status_grid(np.array([[1, 2], [3, 0]], dtype=np.int8))
    >>> fig.axes[0].get_xlabel()
    'chunk'
    """
    from nvlearn.puzzles.grading import STATUS_NAMES

    s = np.asarray(status)
    if ax is None:
        width = min(NOTEBOOK_WIDTH, 2.5 + 0.22 * s.shape[1])
        height = min(6.0, 1.4 + 0.22 * s.shape[0])
        fig, ax = new_figure(width=width, height=height)
    else:
        fig = ax.figure
    ax.imshow(s, cmap=ListedColormap(STATUS_COLOURS), vmin=-0.5,
              vmax=len(STATUS_COLOURS) - 0.5, aspect="auto", interpolation="nearest")
    ax.grid(False)
    ax.set_xlabel("chunk")
    ax.set_ylabel("rank")
    step_r = max(1, s.shape[0] // 16)
    step_c = max(1, s.shape[1] // 24)
    ax.set_yticks(np.arange(0, s.shape[0], step_r))
    ax.set_xticks(np.arange(0, s.shape[1], step_c))
    ax.set_title(title)
    present = sorted(set(np.unique(s).tolist()))
    ax.legend(handles=[Patch(color=STATUS_COLOURS[k], label=STATUS_NAMES[k]) for k in present],
              loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def times_vs_targets(labels: Sequence[str], times: Sequence[float], targets: Sequence[float],
                     baselines: Sequence[float], model: str = "achievable",
                     times_label: str = "this schedule"):
    """Horizontal bars: a schedule's time (or another time, ``times_label``) and the
    library's best, each over the puzzle's target (dashed line at 1).

    Parameters
    ----------
    labels : sequence of str
        One row per puzzle.
    times : sequence of float
        The schedule's time per puzzle, seconds.
    targets : sequence of float
        Each puzzle's target time, seconds: every bar is divided by it.
    baselines : sequence of float
        The library's best time per puzzle, seconds.
    model : str
        The simulation model the times come from, named on the x axis.
    times_label : str
        Legend label of ``times``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = times_vs_targets(["a"], [1e-5], [1.1e-5], [1.0e-5])
    >>> fig.axes[0].get_xlabel()
    'time / target (achievable model)'
    """
    t = np.asarray(times, dtype=float) / np.asarray(targets, dtype=float)
    b = np.asarray(baselines, dtype=float) / np.asarray(targets, dtype=float)
    y = np.arange(len(labels))
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=1.2 + 0.35 * len(labels))
    ax.barh(y - 0.2, t, height=0.38, color=SERIES[0], label=times_label)
    ax.barh(y + 0.2, b, height=0.38, color=SERIES[7], label="library's best")
    ax.axvline(1.0, color="k", lw=1.2, ls="--", label="target")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"time / target ({model} model)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig
