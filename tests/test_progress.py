"""Long loops show a bar in a notebook and nothing elsewhere."""

from __future__ import annotations

from nvlearn import progress as P


def test_outside_a_kernel_it_is_a_plain_iteration():
    assert list(P.progress(range(5), label="x")) == [0, 1, 2, 3, 4]
    assert list(P.progress(iter([1, 2]))) == [1, 2]


def test_in_a_kernel_the_bar_fills_and_closes(monkeypatch):
    shown = []
    monkeypatch.setattr(P, "_in_kernel", lambda: True)
    import IPython.display

    monkeypatch.setattr(IPython.display, "display", lambda w: shown.append(w))
    out = list(P.progress([10, 20, 30], label="simulating 3 schedules"))
    (bar,) = shown
    assert out == [10, 20, 30] and bar.value == 3 and bar.max == 3
    assert bar.description == "simulating 3 schedules"
