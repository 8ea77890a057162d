"""Topology drawings render, carry units, and show what the course points at."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from nvlearn.plots.topology_drawing import draw_topology  # noqa: E402
from nvlearn.topology import (  # noqa: E402
    dgx_h100,
    fully_connected,
    ib_cluster,
    nvlink_pod,
    pcie_box,
    ring,
    single_switch,
)


def _texts(fig) -> list[str]:
    ax = fig.axes[0]
    legend = ax.get_legend()
    return [t.get_text() for t in ax.texts] + [t.get_text() for t in legend.get_texts()]


def test_dgx_drawing_shows_the_5_4_4_5_split():
    fig = draw_topology(dgx_h100())
    texts = _texts(fig)
    assert texts.count("5") == 16 and texts.count("4") == 16  # 8 GPUs x (5, 4, 4, 5)
    assert any("per direction" in t for t in texts)
    assert "450 GB/s" in fig.axes[0].get_title()
    plt.close(fig)


def test_pod_drawing_aggregates_per_plane():
    fig = draw_topology(nvlink_pod())
    texts = _texts(fig)
    assert any("10 x (2 x 25 GB/s)" in t for t in texts)
    assert any("8 x (2 x 25 GB/s)" in t for t in texts)
    assert any("plane 0:\n10 NVSwitch chips" in t and "5 switch boxes" in t for t in texts)
    assert any("28 more" in t for t in texts)  # 4 of the 32 nodes drawn (2 from each end)
    assert any("2:1 taper" in t for t in texts)
    assert len(fig.axes[0].lines) < 400  # aggregated, not one line per cable
    plt.close(fig)


@pytest.mark.parametrize(
    "topo",
    [pcie_box(), ring(5, 25e9), fully_connected(4, 25e9), single_switch(3, 1e9), ib_cluster(4),
     nvlink_pod(2)],
    ids=["pcie", "ring", "full", "switch", "ib", "pod2"],
)
def test_other_fabrics_render(topo):
    fig = draw_topology(topo, title="custom")
    assert fig.axes[0].get_title() == "custom"
    plt.close(fig)


def test_max_boxes_is_checked():
    with pytest.raises(ValueError, match="max_boxes"):
        draw_topology(nvlink_pod(2), max_boxes=1)
