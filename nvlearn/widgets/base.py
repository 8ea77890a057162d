"""The pattern every explorer follows: controls -> a pure function -> a figure and a text.

An :class:`Explorer` owns a few ipywidgets controls and a *render* function of their values
that returns a matplotlib Figure and a short text (the numbers behind the picture). Moving a
control re-renders into an Output area. Everything is drivable from Python, which is how the
tests use it::

    ex = LadderExplorer()
    ex.set(direction="bidirectional")   # same as moving the control
    ex.text                              # what the learner now reads
    ex.figure                            # the current matplotlib Figure

The first render happens in the constructor, so a static figure is there before anyone
touches a control (and the notebook reads well on a page with no live kernel).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import ipywidgets as W
import matplotlib.pyplot as plt
from IPython.display import display


def _in_kernel() -> bool:
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


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

    Parameters
    ----------
    controls : mapping of str to ipywidgets.ValueWidget
        Keyword name -> control; the control's ``value`` is passed to ``render`` under it.
    render : callable
        Pure function of the control values returning ``(figure, text)``.
    title : str
        Shown above the controls.
    """

    def __init__(
        self,
        controls: Mapping[str, W.ValueWidget],
        render: Callable[..., tuple[plt.Figure, str]],
        title: str = "",
    ) -> None:
        self.controls = dict(controls)
        self._render = render
        self._out = W.Output()
        self._text = W.HTML()
        self.figure: plt.Figure | None = None
        self.text = ""
        self.last_update_s = 0.0
        header = [W.HTML(f"<b>{title}</b>")] if title else []
        self.widget = W.VBox([*header, W.HBox(list(self.controls.values())), self._out, self._text])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, _change) -> None:
        self.update()

    def update(self) -> None:
        """Re-render from the current control values."""
        t0 = time.perf_counter()
        fig, text = self._render(**self.values)
        if self.figure is not None and self.figure is not fig:
            plt.close(self.figure)
        self.figure, self.text = fig, text
        if _in_kernel():  # outside Jupyter (tests, scripts) there is nothing to draw into
            self._out.clear_output(wait=True)
            with self._out:
                display(fig)
        plt.close(fig)  # shown once in the Output; keep pyplot's list of open figures short
        self._text.value = f"<pre>{text}</pre>"
        self.last_update_s = time.perf_counter() - t0
