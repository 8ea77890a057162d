"""The traffic explorer: renders on construction, follows its controls, reports the numbers."""

from __future__ import annotations

import pytest

from nvlearn.switching.patterns import experiment
from nvlearn.widgets.switching import TAPERS, TrafficExplorer, traffic_summary


@pytest.fixture(scope="module")
def explorer():
    return TrafficExplorer(nodes=2, n_bytes=1e7, runs=2)


def test_static_first_render(explorer):
    assert explorer.figure is not None and len(explorer.figure.axes) == 2
    assert explorer.values == {"fabric": "nvlink_pod", "pattern": "permutation",
                               "policy": "adaptive", "taper": 2.0}
    assert explorer.text.startswith("permutation on NVLink pod (16 GPUs), taper 2:1")
    assert "2 runs, 32 flows" in explorer.text


def test_controls_drive_the_experiment(explorer):
    explorer.set(fabric="ib_cluster", pattern="incast", policy="static", taper=4.0)
    st = explorer.stats
    assert (st.pattern, st.policy) == ("incast", "static") and "InfiniBand cluster" in st.fabric
    ref = experiment("ib_cluster", "incast", "static", nodes=2, taper=4.0, n_bytes=1e7)
    assert st.p99 == pytest.approx(ref.p99)
    assert explorer.text == traffic_summary(ref, 4.0)
    assert "hottest link leaf.r0.0 -> n0.nic0" in explorer.text


def test_taper_slows_cross_node_traffic_on_the_pod(explorer):
    explorer.set(fabric="nvlink_pod", pattern="permutation", policy="adaptive", taper=1.0)
    flat = explorer.stats.p99
    explorer.set(taper=8.0)
    assert explorer.stats.p99 > 3 * flat
    assert TAPERS[0] == 1.0
