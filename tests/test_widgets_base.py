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


def test_a_state_is_rendered_once_and_its_attributes_come_back():
    calls = []

    class Counting(Explorer):
        cached_attrs = ("seen",)

        def __init__(self):
            super().__init__({"scale": W.IntSlider(value=2, min=1, max=5)}, self._draw)

        def _draw(self, scale):
            calls.append(scale)
            self.seen = scale
            return render(scale)

    ex = Counting()
    ex.set(scale=3)
    ex.set(scale=2)  # back to the first state: from the cache, no render
    assert calls == [2, 3] and ex.seen == 2 and ex.text == "scale = 2"
    assert ex.figure.axes[0].lines[0].get_ydata()[-1] == 2  # the figure is rebuilt on demand
    assert calls == [2, 3, 2]


def test_a_full_cache_drops_states_drawn_ahead_before_states_shown():
    """Ten moves draw about a hundred states ahead: the first state a learner saw must
    outlive them (a move back to it was a 120-150 ms render in the browser)."""
    calls = []

    def counting(scale):
        calls.append(scale)
        return render(scale)

    class Small(Explorer):
        cache_size = 3

    ex = Small({"scale": W.IntSlider(value=0, min=0, max=20)}, counting, prefetch=False)
    ex.set(scale=1)
    for ahead in (10, 11, 12, 13):  # what the prefetch thread stores, never shown
        ex._state({"scale": ahead}, keep=False)
    assert list(ex._cache) == [ex._key({"scale": s}) for s in (0, 1, 13)]
    ex.set(scale=0)  # seen, from the cache
    assert calls.count(0) == 1
    for shown in (2, 3):  # every entry shown: the least recently shown goes (1)
        ex.set(scale=shown)
    assert sorted(v for ((_, v),) in ex._cache) == [0, 2, 3]
    assert ex._shown == set(ex._cache)


def test_states_one_move_away_start_with_the_moved_control():
    ex = Explorer({"a": W.IntSlider(value=2, min=0, max=4),
                   "b": W.Dropdown(options=["w", "x", "y", "z"], value="w"),
                   "c": W.Checkbox(value=False)},
                  lambda a, b, c: render(a))
    ex.set(b="x")
    states = [(s["a"], s["b"], s["c"]) for s in ex._neighbour_states()]
    # the moved dropdown's next option, the next control's (c) next value, the dropdown's
    # option after that (wrapping round), a's next value, a's previous value
    assert states == [(2, "y", False), (2, "x", True), (2, "z", False), (3, "x", False),
                      (1, "x", False)]


def test_controls_wrap_and_labels_take_their_width():
    slider = W.FloatSlider(description="jitter (UI)")
    toggles = W.ToggleButtons(options=["node-limited + dedup", "flat"], description="routing")
    ex = Explorer({"s": slider, "t": toggles}, lambda s, t: render(s))
    row = ex.widget.children[0]
    assert row.layout.flex_flow == "row wrap"
    assert slider.style.description_width == "initial" and slider.layout.width == "440px"
    assert toggles.style.button_width == "auto"


def test_module_functions_render_in_the_worker_process_methods_here():
    import functools

    from nvlearn.widgets import worker

    assert worker.runs_in_worker(render) and worker.runs_in_worker(functools.partial(render))
    ex = Explorer({"scale": W.IntSlider(value=2, min=1, max=5)}, render)
    assert ex._in_process
    assert not worker.runs_in_worker(lambda scale: render(scale))
    assert not worker.runs_in_worker(ex.set)  # a bound method: rendered in the kernel


def test_a_state_drawn_in_the_worker_process_is_the_one_drawn_here():
    ex = Explorer({"scale": W.IntSlider(value=2, min=1, max=5)}, render)
    ex._prefetch_one({"scale": 3})  # what the prefetch thread does, in the worker process
    png, text, attrs = ex._cache[ex._key({"scale": 3})]
    assert png[:4] == b"\x89PNG" and text == "scale = 3" and attrs == {}
    ex.set(scale=3)
    assert ex.text == "scale = 3" and ex._image.value == png


def test_the_worker_is_waited_for_only_once_it_has_drawn_that_explorer():
    """Its first render of an explorer builds the live figure the kernel already has, so
    until then the kernel draws a move itself rather than wait."""
    import functools

    from nvlearn.widgets import worker

    def other(scale):  # never sent to the worker
        return render(scale)

    import time

    worker.submit(functools.partial(render), {"scale": 4}).result()
    for _ in range(500):  # the done callbacks run just after result() wakes this thread
        if worker.ready(render):
            break
        time.sleep(0.01)
    assert worker.ready() and worker.ready(render) and worker.ready(functools.partial(render))
    assert not worker.ready(other)
