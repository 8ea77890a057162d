"""Live explorer figures: updated in place, drawn in layers, the same pixels as a new figure."""

from __future__ import annotations

import threading

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from nvlearn.plots import live  # noqa: E402
from nvlearn.plots.ladder import LadderChart, ladder_figure  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


class _Owner:
    """Stands for an explorer."""


def _ladder(direction: str, compare: str):
    from nvlearn.overview.ladder import bandwidth_ladder

    rows = bandwidth_ladder(direction)
    return ladder_figure(rows, compare=("NVLink 4 (H100), per GPU", compare))


def _moe(skew: float):
    from nvlearn.moe import route, simulate_moe
    from nvlearn.plots.moe import overview_figure
    from nvlearn.topology import nvlink_pod

    return overview_figure(simulate_moe(nvlink_pod(2), route(16, 64, 16, 2, skew=skew), 256))


def _timeline(gpus: int, overlap: bool):
    from nvlearn.plots.sgd import timeline_figure
    from nvlearn.sgd import step_time

    return timeline_figure(step_time(7e9, gpus, "ib_cluster", overlap=overlap))


def _traffic(pattern: str):
    from nvlearn.plots.switching import traffic_explorer_figure
    from nvlearn.switching.patterns import incast, measure, neighbour_shift
    from nvlearn.topology import single_switch

    traffic = neighbour_shift(4, 1e9) if pattern == "shift" else incast(4, 1e9)
    return traffic_explorer_figure(measure(single_switch(4, 1e11), traffic))


def _eye(snr_db: float):
    from nvlearn.plots.serdes import eye_diagram
    from nvlearn.serdes.channel import simulate_link

    return eye_diagram(simulate_link(5_000, "PAM4", snr_db=snr_db, seed=0))


CHARTS = {
    "ladder": (_ladder, ("per_direction", "PCIe Gen5 x16"), ("bidirectional", "400GbE port")),
    "moe": (_moe, (0.0,), (1.5,)),
    "timeline": (_timeline, (64, True), (1024, False)),
    "traffic": (_traffic, ("shift",), ("incast",)),
    "eye": (_eye, (24.0,), (14.0,)),
}


@pytest.mark.parametrize("name", list(CHARTS))
def test_a_live_figure_updated_in_place_draws_what_a_new_one_does(name):
    make, first, second = CHARTS[name]
    with live.scope(_Owner()):
        live.rgba(make(*first))
        fig = make(*second)
        assert make(*first) is fig  # one figure per owner, updated
        fig = make(*second)
        layered = live.rgba(fig).copy()
    new = make(*second)  # outside a scope: a new figure, drawn whole
    assert new is not fig
    new.canvas.draw()
    whole = np.asarray(new.canvas.buffer_rgba())
    assert layered.shape == whole.shape
    differ = np.abs(layered.astype(int) - whole.astype(int)).max(axis=2) > 32
    assert differ.mean() < 1e-3, f"{differ.sum()} pixels differ"


def test_a_live_figure_belongs_to_one_owner_and_thread():
    labels, families = ("a", "b"), ("pcie", "nvlink")
    outside = live.chart(LadderChart, labels, families)
    assert live.chart(LadderChart, labels, families) is not outside
    owner, other = _Owner(), _Owner()
    with live.scope(owner):
        mine = live.chart(LadderChart, labels, families)
        assert live.chart(LadderChart, labels, families) is mine
        assert live.chart(LadderChart, labels[:1], families[:1]) is not mine
        in_thread = []

        def elsewhere():
            with live.scope(owner):
                in_thread.append(live.chart(LadderChart, labels, families))

        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
        assert in_thread[0] is not mine
    with live.scope(other):
        assert live.chart(LadderChart, labels, families) is not mine


def test_the_explorer_figure_is_the_shown_state_after_a_render_ahead():
    from nvlearn.widgets.ladder import LadderExplorer

    ex = LadderExplorer()
    ex.set(compare="InfiniBand NDR port")
    assert ex.figure.axes[0].texts[-1].get_text().endswith("InfiniBand NDR port")
    ex._state({**ex.values, "compare": "400GbE port"}, keep=False)  # the live figure moves on
    assert ex.figure.axes[0].texts[-1].get_text().endswith("InfiniBand NDR port")


def test_the_worker_process_draws_a_live_figure_as_the_kernel_does():
    from nvlearn.widgets import worker
    from nvlearn.widgets.ladder import render_ladder

    ex_values = {"direction": "per_direction", "unit": "bytes/s"}
    worker.submit(render_ladder, {**ex_values, "compare": "PCIe Gen5 x16"}).result()
    png, text, _ = worker.submit(render_ladder, {**ex_values, "compare": "400GbE port"}).result()
    from nvlearn.widgets.ladder import LadderExplorer

    ex = LadderExplorer()
    ex.set(compare="400GbE port")
    assert ex.text == text and ex._image.value == png
