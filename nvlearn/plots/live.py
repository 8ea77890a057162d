"""Figures kept alive between an explorer's states: built once, updated in place, drawn in
two layers.

Building a matplotlib figure (axes, ticks, texts) and drawing it with Agg cost a few hundred
ms, most of it rasterising the glyphs of every text, every time. An explorer's figure
changes in a few artists from one state to the next, so an explorer figure is a
:class:`LiveFigure`: its constructor builds the figure once, and ``update(...)`` sets the
new state's data on the artists that change (``set_data``, ``set_height``, ``set_text``,
limits). The figure is drawn in two layers (blitting): a *background* (everything but the
artists declared dynamic) drawn once per :attr:`LiveFigure.static_key` and kept as pixels,
and the dynamic artists drawn over it for each state. :func:`rgba` does that for a live
figure and a full draw for any other.

Who gets a live figure: :func:`chart` hands one out per owner (an explorer, or the worker
process) and thread, while :func:`scope` is active; outside a scope (a notebook cell
calling a figure function) every call builds a new figure, so two cells never share one.

Examples
--------
>>> from nvlearn.plots.style import new_figure
>>> class Bar(LiveFigure):
...     def __init__(self):
...         fig, ax = new_figure(width=3.0, height=2.0)
...         super().__init__(fig)
...         ax.set_ylim(0, 10)
...         (self.bar,) = ax.bar([0], [1])
...         self.dynamic(self.bar)
...     def update(self, height):
...         self.bar.set_height(height)
...         return self.fig
>>> owner = Bar   # any object that can be weakly referenced
>>> with scope(owner):
...     a = chart(Bar).update(3)
...     b = chart(Bar).update(7)
>>> a is b, rgba(b).shape
(True, (200, 300, 4))
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import TypeVar

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

__all__ = ["LiveFigure", "chart", "rgba", "scope"]

T = TypeVar("T", bound="LiveFigure")

#: The owner whose live figures :func:`chart` hands out (None: a new figure every call).
_owner: contextvars.ContextVar[object | None] = contextvars.ContextVar("nvlearn_live_owner",
                                                                       default=None)
#: owner -> {(thread, class, arguments): live figure}
_charts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_charts_lock = threading.Lock()
#: figure -> its LiveFigure (what :func:`rgba` looks up)
_live: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class LiveFigure:
    """A figure whose state-dependent artists are updated in place and drawn over a kept
    background.

    A subclass builds ``self.fig`` in its constructor (calling ``super().__init__(fig)``),
    declares the artists that change with the state (:meth:`dynamic`) and defines
    ``update(...)``, which sets the state on the artists, sets :attr:`static_key` and
    returns ``self.fig``.

    Attributes
    ----------
    fig : matplotlib.figure.Figure
        The figure, a complete one: saving or showing it draws every artist.
    static_key : hashable
        Names everything drawn in the background (all but the dynamic artists): two states
        with the same key must have the same background. ``update`` sets it when the
        background changes (a new axis range, a new title); a background is drawn once
        per key and kept (the last :attr:`backgrounds_kept` keys).
    """

    #: Backgrounds kept (one RGBA copy of the figure each).
    backgrounds_kept = 8

    def __init__(self, fig: Figure) -> None:
        """Take ``fig`` as this live figure's."""
        self.fig = fig
        self.static_key: Hashable = None
        self._dynamic: list[Artist] = []
        self._backgrounds: OrderedDict[Hashable, object] = OrderedDict()
        _live[fig] = self

    def dynamic(self, *artists: Artist) -> None:
        """Declare ``artists`` drawn for every state, over the background (in zorder)."""
        self._dynamic.extend(artists)
        self._dynamic.sort(key=lambda a: a.get_zorder())

    def rgba(self) -> np.ndarray:
        """The figure's pixels (height x width x 4, uint8; a view of the canvas): the
        background of :attr:`static_key` (drawn now if new) and the dynamic artists."""
        canvas = _agg_canvas(self.fig)
        background = self._backgrounds.get(self.static_key)
        if background is None:
            background = self._draw_background()
        else:
            self._backgrounds.move_to_end(self.static_key)
            canvas.restore_region(background)
        for artist in self._dynamic:
            if artist.get_visible():
                self.fig.draw_artist(artist)
        return np.asarray(canvas.buffer_rgba())

    def _draw_background(self):
        """Draw the figure without its dynamic artists and keep the pixels. (Texts keep
        their places: a draw moves an axes' title above its x axis, which is not drawn
        here when it is dynamic.)"""
        visible = [a for a in self._dynamic if a.get_visible()]
        places = [(a, a.get_position()) for a in self._dynamic if isinstance(a, Text)]
        for a in visible:
            a.set_visible(False)
        try:
            self.fig.canvas.draw()
        finally:
            for a in visible:
                a.set_visible(True)
            for a, xy in places:
                a.set_position(xy)
        background = self.fig.canvas.copy_from_bbox(self.fig.bbox)
        self._backgrounds[self.static_key] = background
        while len(self._backgrounds) > self.backgrounds_kept:
            self._backgrounds.popitem(last=False)
        return background


def rgba(fig: Figure) -> np.ndarray:
    """Pixels of ``fig`` (height x width x 4, uint8): layered for a :class:`LiveFigure`'s,
    one full Agg draw for any other."""
    live = _live.get(fig)
    if live is not None:
        return live.rgba()
    canvas = _agg_canvas(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())


def _agg_canvas(fig: Figure) -> FigureCanvasAgg:
    """``fig``'s Agg canvas (a new one if it has another: pyplot gives a closed figure a
    bare canvas)."""
    return fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)


@contextlib.contextmanager
def scope(owner: object) -> Iterator[None]:
    """Within the block (in this thread), :func:`chart` hands out ``owner``'s live figures.

    ``owner`` must be weakly referenceable; its figures go when it does.
    """
    token = _owner.set(owner)
    try:
        yield
    finally:
        _owner.reset(token)


def chart(cls: type[T], *args: Hashable) -> T:
    """The live ``cls(*args)`` of the current :func:`scope`'s owner in this thread (built on
    first use); a new one outside a scope.

    Each thread has its own (an explorer's prefetch thread never changes the figure the
    kernel shows), and so does each set of ``args`` (the figure's shape: a fabric's GPU
    count, say).
    """
    owner = _owner.get()
    if owner is None:
        return cls(*args)
    key = (threading.get_ident(), cls, args)
    with _charts_lock:
        charts = _charts.setdefault(owner, {})
        live = charts.get(key)
    if live is None:
        live = cls(*args)
        with _charts_lock:
            charts[key] = live
    return live
