"""The pattern every explorer follows: controls -> a pure function -> a figure and a text.

An :class:`Explorer` owns a few ipywidgets controls and a *render* function of their values
that returns a matplotlib Figure and a short text (the numbers behind the picture). Moving a
control shows the figure for the new values. Everything is drivable from Python, which is
how the tests use it::

    ex = LadderExplorer()
    ex.set(direction="bidirectional")   # same as moving the control
    ex.text                              # what the learner now reads
    ex.figure                            # the current matplotlib Figure

The first render happens in the constructor, so a static figure is there before anyone
touches a control (and the notebook reads well on a page with no live kernel).

What keeps an update fast in the browser (``benchmarks/bench_browser_widgets.py``):

* the figure is sent as PNG bytes into one ``ipywidgets.Image`` whose value changes, not
  cleared and re-displayed in an Output area (no new output, no re-layout of the cell);
* an explorer's figure is built once and updated in place (:mod:`nvlearn.plots.live`: the
  render runs in the explorer's :func:`~nvlearn.plots.live.scope`), its unchanging part
  kept as pixels, so a new state draws only the artists that changed;
* every state's PNG and text are cached (:attr:`Explorer.cache_size` states), so going back
  costs nothing; when the cache is full, a state drawn ahead and never shown goes before
  one the learner has seen (ten moves draw about a hundred states ahead);
* in a kernel, after each update a background thread renders the states one move away
  (the moved control's next values in the direction it moved first, then the next value of
  each other control) while the learner looks, so the next move usually finds its picture
  ready; a cached picture is shown even while that thread is drawing another;
* those background renders run in one worker process (:mod:`nvlearn.widgets.worker`) when
  the render function can be sent there, so a long simulation (numba holds the interpreter
  while it runs) never delays a move; a move to the state being drawn there waits for it
  rather than drawing it twice.

And what makes it fit a laptop: the controls wrap (a flex row that wraps), labels take the
width they need, sliders get a fixed usable track.
"""

from __future__ import annotations

import functools
import pickle
import queue
import struct
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from nvlearn.plots import live
from nvlearn.widgets import worker

__all__ = ["PREFETCH_DELAY_S", "SLIDER_WIDTH", "Controls", "Explorer", "control_row",
           "fabric_label", "fabric_options", "figure_png", "fit_control", "labelled_fabric",
           "png_bytes"]

#: Width of a slider (label, track and readout) in the control row.
SLIDER_WIDTH = "440px"
#: Seconds the prefetch thread waits after an update before rendering its neighbours.
PREFETCH_DELAY_S = 0.05


def _in_kernel() -> bool:
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


if _in_kernel():  # a notebook imports an explorer in its setup cell: the worker gets ready
    worker.start()


def fit_control(control: W.Widget) -> W.Widget:
    """Give ``control`` a layout that fits a wrapping row: whole labels, usable tracks.

    Labels take the width they need (``description_width='initial'``), toggle buttons the
    width of their text, sliders :data:`SLIDER_WIDTH` (a track of about 300 px), dropdowns
    the width of their longest option. Widths an explorer has set itself are kept.

    Examples
    --------
    >>> s = fit_control(W.FloatSlider(description="SNR (dB)"))
    >>> s.style.description_width, s.layout.width
    ('initial', '440px')
    """
    style = getattr(control, "style", None)
    if style is not None and hasattr(style, "description_width"):
        style.description_width = "initial"
    if isinstance(control, W.ToggleButtons):
        control.style.button_width = "auto"
    if control.layout.width is None:
        if isinstance(control, (W.FloatSlider, W.IntSlider, W.SelectionSlider)):
            control.layout.width = SLIDER_WIDTH
        elif isinstance(control, (W.Dropdown, W.ToggleButtons, W.Checkbox)):
            control.layout.width = "auto"
    return control


def fabric_label(key: str, nodes: int | None = None) -> str:
    """The registry's label of fabric ``key`` (:data:`nvlearn.topology.FABRICS`) with its
    size, as an explorer offers it.

    Examples
    --------
    >>> fabric_label("dgx_h100"), fabric_label("nvlink_pod", 2)
    ('DGX H100 (8 GPUs)', 'NVLink pod, 2 nodes (16 GPUs)')
    """
    from nvlearn.topology import FABRICS, fabric

    kind, gpus = FABRICS[key], fabric(key, nodes).n_gpus
    return (f"{kind.label}, {nodes} nodes ({gpus} GPUs)" if kind.multi_node
            else f"{kind.label} ({gpus} GPUs)")


@functools.cache
def fabric_options(sizes: tuple[tuple[str, int | None], ...]) -> dict[str, tuple[str, int | None]]:
    """A fabric dropdown's options: :func:`fabric_label` -> ``(registry key, nodes)`` for
    each ``(key, nodes)`` of ``sizes`` (built once per ``sizes``; do not modify the dict).

    Examples
    --------
    >>> list(fabric_options((("dgx_h100", None), ("ib_cluster", 2))))
    ['DGX H100 (8 GPUs)', 'InfiniBand cluster, 2 nodes (16 GPUs)']
    """
    return {fabric_label(key, nodes): (key, nodes) for key, nodes in sizes}


def labelled_fabric(sizes: tuple[tuple[str, int | None], ...], label: str):
    """The Topology behind dropdown option ``label`` of :func:`fabric_options` ``(sizes)``,
    from the fabric registry (built once per process)."""
    from nvlearn.topology import fabric

    return fabric(*fabric_options(sizes)[label])


def control_row(controls) -> W.Box:
    """A row of controls that wraps onto more lines when the notebook is narrow.

    Examples
    --------
    >>> control_row([W.Checkbox(description="overlap")]).layout.flex_flow
    'row wrap'
    """
    return W.Box([fit_control(c) for c in controls],
                 layout=W.Layout(display="flex", flex_flow="row wrap", align_items="center",
                                 grid_gap="6px 18px", width="100%"))


def figure_png(fig: plt.Figure) -> bytes:
    """PNG bytes of ``fig`` at its own size and dpi (what the explorer's image shows).

    One Agg draw (of the changed artists only, for a :class:`~nvlearn.plots.live.LiveFigure`'s
    figure) and a fast PNG encoding (:func:`png_bytes`), not ``savefig``'s general path.

    Examples
    --------
    >>> from nvlearn.plots.style import new_figure
    >>> fig, _ = new_figure(width=2.0, height=1.0)
    >>> figure_png(fig)[:4]
    b'\\x89PNG'
    """
    return png_bytes(live.rgba(fig))


def png_bytes(rgba: np.ndarray) -> bytes:
    """A PNG of ``rgba`` (height x width x 4, uint8): rows unfiltered, one zlib level-1
    stream.

    About half the time of PIL's encoder at its fastest level (~12 ms for an 840 x 840
    explorer figure), for files about 10 % larger (~80 kB).

    Examples
    --------
    >>> import io
    >>> from PIL import Image
    >>> pixels = np.zeros((2, 3, 4), dtype=np.uint8)
    >>> pixels[0, 0] = (255, 0, 0, 255)
    >>> image = Image.open(io.BytesIO(png_bytes(pixels)))
    >>> image.size, image.getpixel((0, 0))
    ((3, 2), (255, 0, 0, 255))
    """
    height, width, _ = rgba.shape
    rows = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "none" on every row
    rows[:, 1:] = rgba.reshape(height, 4 * width)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + chunk(b"IEND", b""))


def _neighbours(control: W.ValueWidget, forward: bool = True, every: bool = False) -> list:
    """The values one move away from ``control``'s value: next first (previous first if
    not ``forward``). With ``every``, a dropdown's or toggle's other options all count as
    one move away (one click reaches any of them), in the order a learner stepping
    through them meets them.

    Examples
    --------
    >>> _neighbours(W.IntSlider(value=3, min=0, max=5), forward=False)
    [2, 4]
    >>> _neighbours(W.Dropdown(options=[1, 2, 3, 4], value=2), every=True)
    [3, 4, 1]
    """
    value = control.value
    if isinstance(control, W.Checkbox):
        return [not value]
    options = getattr(control, "_options_values", None)
    if options is not None:
        options = list(options)
        if value not in options:
            return []
        i = options.index(value)
        if every and not isinstance(control, W.SelectionSlider):
            ring = options[i + 1:] + options[:i]
            return ring if forward else ring[::-1]
        after = options[i + 1:i + 2]
        before = options[i - 1:i] if i > 0 else []
    elif isinstance(control, (W.FloatSlider, W.IntSlider)):
        after = [value + control.step] if value + control.step <= control.max else []
        before = [value - control.step] if value - control.step >= control.min else []
        if isinstance(control, W.FloatSlider):
            after, before = [round(v, 12) for v in after], [round(v, 12) for v in before]
    else:
        return []
    return after + before if forward else before + after


class Controls:
    """Named controls that Python can read (:attr:`values`) and move (:meth:`set`), and the
    ``widget`` that shows them.

    The part of an explorer that does not depend on what it draws: :class:`Explorer`
    (matplotlib figures) and :class:`~nvlearn.widgets.allreduce.AllreduceExplorer` (an SVG
    chart) share it. A subclass sets ``self.controls`` (keyword -> ipywidgets control) and
    ``self.widget`` and reacts to the controls' changes itself.
    """

    controls: dict[str, W.ValueWidget]
    widget: W.Widget

    @property
    def values(self) -> dict:
        """Current control values by keyword."""
        return {name: c.value for name, c in self.controls.items()}

    def set(self, **values) -> None:
        """Set controls from Python (exactly as a learner moving them would)."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise ValueError(f"unknown control(s) {sorted(unknown)}; have {sorted(self.controls)}")
        for name, value in values.items():
            self.controls[name].value = value

    def _ipython_display_(self) -> None:
        display(self.widget)


class Explorer(Controls):
    """Controls bound to a pure ``render(**values) -> (Figure, str)`` function.

    Attributes
    ----------
    cached_attrs : tuple of str
        Attributes that a subclass's render sets on ``self`` (for instance ``result``); they
        are cached with each state's picture and restored when the state is shown again. (A
        render that returns its attributes instead can run in the worker process.)
    """

    cached_attrs: tuple[str, ...] = ()
    #: States (PNG, text, cached attributes) kept: the least recently shown go last.
    cache_size = 96

    def __init__(
        self,
        controls: Mapping[str, W.ValueWidget],
        render: Callable[..., tuple[plt.Figure, str]],
        title: str = "",
        prefetch: bool = True,
    ) -> None:
        """Lay out the controls, the picture and the text, and draw the first state.

        Parameters
        ----------
        controls : mapping of str to ipywidgets.ValueWidget
            Keyword name -> control; the control's ``value`` is passed to ``render`` under it.
        render : callable
            Pure function of the control values returning ``(figure, text)``, or
            ``(figure, text, attributes)``: a dict of explorer attributes that belong to the
            state (cached with it, set on the explorer whenever it is shown).
        title : str
            Shown above the controls.
        prefetch : bool
            In a kernel, render the states one move away while the learner looks.
        """
        self.controls = dict(controls)
        self._render = render
        self._prefetch_enabled = prefetch
        self._image = W.Image(format="png", layout=W.Layout(max_width="100%", height="auto"))
        self._text = W.HTML()
        self._cache: OrderedDict[tuple, tuple[bytes, str, dict]] = OrderedDict()
        self._shown: set[tuple] = set()  # keys of cached states the learner has seen
        self._figure: plt.Figure | None = None
        self._figure_key: tuple | None = None
        self._generation = 0
        self._last_moved: tuple[str, bool] | None = None
        self._render_lock = threading.Lock()
        self._attrs_lock = threading.Lock()
        self._shown_attrs: dict = {}
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._in_process = worker.runs_in_worker(render)
        self._in_flight: dict[tuple, Future] = {}
        self.text = ""
        self.last_update_s = 0.0
        header = [W.HTML(f"<b>{title}</b>")] if title else []
        self.widget = W.VBox([*header, control_row(self.controls.values()), self._image,
                              self._text])
        for name, control in self.controls.items():
            control.observe(lambda change, name=name: self._on_change(name, change),
                            names="value")
        self.update()

    @property
    def figure(self) -> plt.Figure:
        """The current state's matplotlib Figure (rendered again if only its PNG was cached)."""
        key = self._key(self.values)
        if self._figure is None or self._figure_key != key:
            with self._render_lock, live.scope(self):
                self._keep_figure(key, self._render(**self.values)[0])
        return self._figure

    def _keep_figure(self, key: tuple, fig: plt.Figure) -> None:
        if self._figure is not None and self._figure is not fig:
            plt.close(self._figure)
        self._figure, self._figure_key = fig, key
        plt.close(fig)  # out of pyplot's list (the inline backend would show it again)

    @staticmethod
    def _key(values: Mapping) -> tuple:
        return tuple(sorted((k, round(v, 9) if isinstance(v, float) else v)
                            for k, v in values.items()))

    def _on_change(self, name: str, change) -> None:
        old, new = change.get("old"), change.get("new")
        forward = True
        control = self.controls[name]
        options = getattr(control, "_options_values", None)
        if options is not None and old in options and new in options:
            forward = list(options).index(new) >= list(options).index(old)
        elif isinstance(old, (int, float)) and isinstance(new, (int, float)):
            forward = new >= old
        self._last_moved = (name, forward)
        self.update()

    def _state(self, values: Mapping, keep: bool) -> tuple[bytes, str, dict]:
        """The cached (PNG, text, attributes) of ``values``, rendering it on a miss.

        A hit takes no lock, so it is served while the prefetch thread renders; a state the
        worker process is drawing is waited for; renders here take turns (pyplot's figure
        list and rcParams are global). (Until the worker has finished one render of this
        explorer, a state it was given is drawn here too: its start and its first figure
        take longer than a render with the kernel's live figure.)"""
        key = self._key(values)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        pending = self._in_flight.get(key)
        if pending is not None and worker.ready(self._render):
            try:
                state = pending.result()
            except Exception:  # noqa: BLE001 - rendered here instead, where the error shows
                pass
            else:
                self._store(key, state)  # here too: the prefetch thread may store it later
                return state
        with self._render_lock:
            hit = self._cache.get(key)  # the prefetch thread may have just made it
            if hit is not None:
                return hit
            with live.scope(self):  # the explorer's figures, updated in place
                out = self._render(**values)
                fig, text = out[0], out[1]
                png = figure_png(fig)
            attrs = {a: getattr(self, a, None) for a in self.cached_attrs}
            attrs.update(out[2] if len(out) > 2 else {})
            if keep:
                self._keep_figure(key, fig)
            else:
                if fig is self._figure:  # a live figure, now showing another state
                    self._figure_key = None
                plt.close(fig)
                with self._attrs_lock:  # a prefetch must not change what is shown
                    for a, v in self._shown_attrs.items():
                        setattr(self, a, v)
            self._store(key, (png, text, attrs))
        return png, text, attrs

    def _seen(self, key: tuple) -> None:
        """Mark the cached state ``key`` shown: it is now the last to be dropped."""
        with self._attrs_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                self._shown.add(key)

    def _store(self, key: tuple, state: tuple[bytes, str, dict]) -> None:
        """Cache ``state``; when full, drop the oldest state never shown (drawn ahead for
        a move that did not come), or the least recently shown if every one was."""
        with self._attrs_lock:
            self._cache[key] = state
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                drop = next((k for k in self._cache if k not in self._shown and k != key),
                            next(iter(self._cache)))
                del self._cache[drop]
                self._shown.discard(drop)

    def _prefetch_one(self, values: Mapping) -> None:
        """Render one state into the cache: in the worker process when the render can go
        there (this thread then only waits), else here."""
        key = self._key(values)
        if key in self._cache:
            return
        if not self._in_process:
            self._state(values, keep=False)
            return
        self._in_flight[key] = pending = worker.submit(self._render, values)
        try:
            state = pending.result()
        except (OSError, RuntimeError, pickle.PicklingError):  # no worker: render here
            self._in_process = False
            self._state(values, keep=False)
            return
        finally:
            self._in_flight.pop(key, None)
        self._store(key, state)

    def update(self) -> None:
        """Show the current control values' figure and text (rendering them if not cached)."""
        t0 = time.perf_counter()
        self._generation += 1
        png, text, attrs = self._state(self.values, keep=True)
        self._seen(self._key(self.values))
        with self._attrs_lock:
            self._shown_attrs = attrs
            for a, v in attrs.items():
                setattr(self, a, v)
        self.text = text
        self._image.value = png
        self._text.value = f"<pre style='white-space:pre-wrap'>{text}</pre>"
        self.last_update_s = time.perf_counter() - t0
        if self._prefetch_enabled and _in_kernel():
            self._schedule_prefetch()

    def _neighbour_states(self) -> list[dict]:
        """States one move away, likeliest first: the last-moved control's next value in
        the direction it moved, the next value of the control after it in the row (where a
        learner goes on to), the moved control's value after that, the next value of each
        other control (in row order after it), the others' previous values. Short on
        purpose: a render under way delays the learner's next move, so the list should be
        done within a breath."""
        current = self.values
        names = list(self.controls)
        moved_values: list = []
        if self._last_moved is not None:
            moved, fwd = self._last_moved
            i = names.index(moved)
            names = names[i + 1:] + names[:i]
            moved_values = _neighbours(self.controls[moved], fwd, every=True)
        others = {name: _neighbours(self.controls[name]) for name in names}
        firsts = [{**current, n: vs[0]} for n, vs in others.items() if vs]
        states = [{**current, moved: v} for v in moved_values[:1]] + firsts[:1]
        states += [{**current, moved: v} for v in moved_values[1:2]] + firsts[1:]
        states += [{**current, n: vs[1]} for n, vs in others.items() if len(vs) > 1]
        return states

    def _schedule_prefetch(self) -> None:
        """Hand the states one move away to the prefetch thread (started on first use)."""
        if self._worker is None:
            self._worker = threading.Thread(target=self._prefetch_loop, daemon=True,
                                            name="nvlearn-explorer-prefetch")
            self._worker.start()
        self._jobs.put((self._generation, self._neighbour_states()))

    def _prefetch_loop(self) -> None:
        """Render queued states into the cache until the learner moves on (a newer
        generation), one at a time, outside the kernel's event loop: a move whose picture
        is cached is shown at once even while a neighbour is being drawn."""
        while True:
            generation, states = self._jobs.get()
            time.sleep(PREFETCH_DELAY_S)
            for values in states:
                if generation != self._generation:
                    break
                try:
                    self._prefetch_one(values)
                except Exception:
                    # not a valid setting (or a bug): the same error shows, in the cell,
                    # when the learner reaches this state
                    continue
