"""Figures of a simulation: Gantt charts and the link heatmap render, with units on the axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from test_sim_standins import Star, ring_allreduce_ops

from nvlearn.plots.timeline import MERGE_ABOVE, gantt, link_heatmap
from nvlearn.sim import simulate


@pytest.fixture(scope="module")
def ring_result():
    return simulate(Star(6, 100e9, 1e-6), ring_allreduce_ops(6, 6e6, chunks=2), model="wire")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("by", ["rank", "link"])
def test_gantt_has_one_row_per_rank_or_link_and_a_time_unit(ring_result, by):
    fig = gantt(ring_result, by=by)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time (µs)"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    if by == "rank":
        assert labels == [f"rank {r}" for r in range(6)]
    else:
        assert len(labels) == 12 and "gpu0 -> switch" in labels
    assert ax.get_xlim()[1] == pytest.approx(ring_result.time * 1e6)
    assert len(ax.collections) > 0


def test_gantt_rows_window_and_colours(ring_result):
    fig = gantt(ring_result, rows=[2, 0], window=(0.0, 20e-6), colour_by="chunk")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["rank 2", "rank 0"]
    assert ax.get_xlim() == pytest.approx((0.0, 20.0))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("chunk") for t in legend)


def test_gantt_merges_bars_of_large_schedules():
    p = 8
    res = simulate(Star(p, 100e9), ring_allreduce_ops(p, 1e8, chunks=80), model="wire")
    assert res.n_ops > MERGE_ABOVE
    fig = gantt(res)
    assert "drawn as one bar" in fig.axes[0].get_title()
    bars = sum(len(c.get_paths()) for c in fig.axes[0].collections)
    assert bars <= 2 * p  # one bar per phase per rank


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"by": "gpu"}, "by must be"),
    ({"colour_by": "size"}, "colour_by"),
    ({"rows": [99]}, "rows must be"),
])
def test_gantt_bad_arguments(ring_result, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gantt(ring_result, **kwargs)


def test_heatmap_shows_utilisation_zero_to_one_with_a_labelled_colourbar(ring_result):
    fig = link_heatmap(ring_result)
    ax, cbar = fig.axes
    assert cbar.get_ylabel().startswith("utilisation")
    assert ax.get_xlabel().startswith("time (µs)")
    mesh = ax.collections[0]
    values = np.asarray(mesh.get_array())
    assert values.min() >= 0 and values.max() <= 1 + 1e-9
    assert mesh.norm.vmin == 0 and mesh.norm.vmax == 1
    # the ring keeps every link busy but for the latency at the very end
    assert np.median(values) == pytest.approx(1.0)


def test_heatmap_chosen_links_in_index_order(ring_result):
    fig = link_heatmap(ring_result, links=[5, 1, 3], order="index")
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [ring_result.link_label(k) for k in (1, 3, 5)]


def test_heatmap_groups_a_big_fabric_by_tier():
    from nvlearn.collectives import alltoall
    from nvlearn.topology import nvlink_pod

    pod = nvlink_pod(2)
    res = simulate(pod, alltoall(pod, 1e7), model="wire")
    fig = link_heatmap(res, max_rows=8)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert any("GPU → NVSwitch (tier 1)" in lbl for lbl in labels)
    assert any("(tier 2)" in lbl for lbl in labels)
    assert "class of link" in fig.axes[0].get_title(loc="right")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"order": "name"}, "order"),
    ({"group": "plane"}, "group"),
    ({"links": [999]}, "link ids"),
])
def test_heatmap_bad_arguments(ring_result, kwargs, message):
    with pytest.raises(ValueError, match=message):
        link_heatmap(ring_result, **kwargs)
