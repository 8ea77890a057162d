"""Notebook-05 figures and the MoE explorer: drivable from Python, readable output."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from nvlearn.moe import route, simulate_moe, traffic_matrix  # noqa: E402
from nvlearn.plots import moe as pm  # noqa: E402
from nvlearn.topology import dgx_h100, nvlink_pod  # noqa: E402
from nvlearn.widgets.moe import MoEExplorer, render_moe  # noqa: E402


@pytest.fixture(scope="module")
def comm():
    return simulate_moe(nvlink_pod(2), route(16, 128, 32, 2, skew=1.0, seed=0), 512)


def test_explorer_renders_first_and_follows_controls():
    ex = MoEExplorer()
    assert ex.figure is not None and "experts on 16 GPUs" in ex.text
    before = ex.text
    ex.set(skew=1.5)
    assert ex.text != before and "busiest GPU receives" in ex.text
    ex.set(fabric="InfiniBand cluster, 2 nodes (16 GPUs)", routing="dedup")
    # the network path's narrowest hop, as NCCL counts it: PCIe Gen5 x16 to the NIC
    # (48 GB/s) just below the 400 Gb/s NIC (50 GB/s)
    assert "2 stages each way" in ex.text and "(pcie," in ex.text
    ex.set(capacity=0.0)
    assert "dropless" in ex.text and "0.0% of assignments dropped" in ex.text
    plt.close("all")


@pytest.mark.parametrize("values, message", [
    ({"experts": 8}, "do not divide across 16 GPUs"),
    ({"experts": 16, "top_k": 8, "fabric": "DGX H100 (8 GPUs)"}, None),
])
def test_explorer_explains_invalid_settings(values, message):
    ex = MoEExplorer()
    ex.set(**values)
    if message:
        assert ex.text.startswith("not a valid setting") and message in ex.text
    else:
        assert "top-8" in ex.text
    plt.close("all")


def test_render_is_a_pure_function_of_the_controls():
    args = dict(experts=16, top_k=2, skew=0.5, capacity=1.0, tokens=256, hidden=1024,
                fabric="DGX H100 (8 GPUs)", routing="flat")
    _, a = render_moe(**args)
    _, b = render_moe(**args)
    assert a == b
    plt.close("all")


def test_figures_have_labelled_axes(comm):
    r = comm.routing
    figs = [
        pm.expert_load_figure([r]),
        pm.traffic_heatmap(traffic_matrix(r, 512), np.arange(16) // 8),
        pm.traffic_figure(traffic_matrix(r, 512), np.arange(16) // 8),
        pm.imbalance_figure(comm),
        pm.overview_figure(comm),
        pm.fabric_times_figure({"pod": comm}),
        pm.capacity_tradeoff_figure([1.0, 2.0], [0.2, 0.1], {"flat": [1e-4, 2e-4]}, 3e-4),
        pm.dedup_figure({"pod": {"flat": comm, "dedup": comm}}),
        pm.skew_figure([0.0, 1.0], [comm, comm], 450e9),
    ]
    for fig in figs:
        main_axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
        assert all(ax.get_xlabel() and ax.get_ylabel() for ax in main_axes)
    plt.close("all")


def test_node_level_heatmap_sums_gpu_traffic():
    m = np.arange(16.0).reshape(4, 4)
    assert pm.node_traffic(m, np.array([0, 0, 1, 1])).tolist() == [[10.0, 18.0], [42.0, 50.0]]


def test_plot_bad_input(comm):
    with pytest.raises(ValueError, match="at least one Routing"):
        pm.expert_load_figure([])
    with pytest.raises(ValueError, match="at least one result"):
        pm.fabric_times_figure({})
    with pytest.raises(ValueError, match="level must be"):
        pm.traffic_heatmap(np.ones((2, 2)), np.array([0, 1]), level="rack")


def test_receive_panel_marks_the_hottest_gpu():
    c = simulate_moe(dgx_h100(), route(8, 256, 8, 1, skew=2.0, seed=0), 256)
    fig = pm.imbalance_figure(c)
    hot = int(np.argmax(c.recv_bytes))
    assert f"hottest: GPU {hot}" in " ".join(t.get_text() for t in fig.axes[0].texts)
    plt.close("all")
