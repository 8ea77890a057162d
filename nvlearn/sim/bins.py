"""Streaming time bins with bounded memory: a fixed number of bins whose width doubles.

A timeline is a 2-D array ``(rows, n_bins)``; row ``r`` accumulates the integral of a
piecewise-constant rate (bytes/s -> bytes per bin). When time passes the last bin,
neighbouring bins are merged pairwise and the width doubles, so memory never grows and the
final timeline spans between half and all of its bins.
"""

from __future__ import annotations

from .._jit import njit

__all__ = ["add", "fit"]


@njit
def fit(bins, width, t):
    """Double ``width`` (merging bin pairs) until time ``t`` fits; returns the width.

    Parameters
    ----------
    bins : ndarray of float64, shape (rows, n_bins)
        The timeline, bytes per bin; merged in place. ``n_bins`` should be even.
    width : float
        The current bin width, seconds (> 0).
    t : float
        The time that must fit, seconds (>= 0): on return ``t <= n_bins * width``.

    Returns
    -------
    float
        The new bin width, seconds: ``width`` times a power of two.
    """
    n_bins = bins.shape[1]
    half = n_bins // 2
    while t > n_bins * width:
        for r in range(bins.shape[0]):
            for j in range(half):
                bins[r, j] = bins[r, 2 * j] + bins[r, 2 * j + 1]
            for j in range(half, n_bins):
                bins[r, j] = 0.0
        width *= 2.0
    return width


@njit
def add(bins, row, a, b, rate, width):
    """Add ``rate * dt`` for the span ``[a, b)`` to row ``row`` (``b`` must already fit).

    Parameters
    ----------
    bins : ndarray of float64, shape (rows, n_bins)
        The timeline, bytes per bin; updated in place.
    row : int
        The row to add to, ``0 <= row < rows``.
    a, b : float
        The span's start and end, seconds, ``0 <= a <= b <= n_bins * width`` (call
        :func:`fit` for ``b`` first); the last bin takes anything past its edge.
    rate : float
        The constant rate over the span, bytes/s.
    width : float
        The bin width, seconds (> 0), as returned by :func:`fit`.

    Returns
    -------
    None
        ``bins[row]`` gains ``rate * (b - a)`` bytes, split over the bins the span covers.
    """
    n_bins = bins.shape[1]
    i = int(a / width)
    if i >= n_bins:
        i = n_bins - 1
    while a < b:
        edge = (i + 1) * width
        if edge >= b or i >= n_bins - 1:
            edge = b
        bins[row, i] += rate * (edge - a)
        a = edge
        i += 1
