"""The Explorer pattern: a static first render, Python-drivable controls, clear errors."""

import ipywidgets as W
import pytest

from nvlearn.plots.style import new_figure
from nvlearn.widgets.base import Explorer


def render(scale):
    fig, ax = new_figure()
    ax.plot([0, 1], [0, scale])
    return fig, f"scale = {scale}"


def test_renders_before_any_interaction_and_follows_controls():
    ex = Explorer({"scale": W.IntSlider(value=2, min=1, max=5)}, render, title="demo")
    assert ex.text == "scale = 2" and ex.figure is not None
    ex.set(scale=4)
    assert ex.text == "scale = 4"
    assert ex.values == {"scale": 4}
    assert ex.last_update_s > 0


def test_unknown_control_is_an_error():
    ex = Explorer({"scale": W.IntSlider(value=2)}, render)
    with pytest.raises(ValueError, match="unknown control"):
        ex.set(size=3)
