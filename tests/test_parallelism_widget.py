"""Notebook 07's explorer and figures: drivable from Python, refusals, speed."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from nvlearn.parallelism import (  # noqa: E402
    Layout,
    box_traffic,
    memory_per_gpu,
    pair_traffic,
    preset,
    step_time,
)
from nvlearn.plots.parallelism import (  # noqa: E402
    memory_figure,
    pair_traffic_figure,
    step_split_figure,
)
from nvlearn.widgets.parallelism import ParallelismExplorer  # noqa: E402


def test_default_renders_and_matches_package():
    ex = ParallelismExplorer()
    st = step_time(preset("gpt_76b"), Layout(8, 4, 8), "nvlink_pod")
    assert ex.text.splitlines()[0] == st.summary()
    assert ex.figure is not None


def test_refuses_layouts_that_do_not_fit_or_do_not_divide():
    ex = ParallelismExplorer()
    ex.set(gpus=8, fabric="dgx_h100", pp=1)          # 76 B on one box
    assert ex.text.startswith("refused") and "does not fit" in ex.text
    ex.set(model="gpt_18b", tp=32)                   # 32 does not divide 8 GPUs
    assert ex.text.startswith("refused")
    ex.set(tp=8, gpus=256, fabric="nvlink_pod", ep=2)   # EP on a dense model
    assert "dense" in ex.text


def test_each_control_changes_the_output():
    ex = ParallelismExplorer()
    for kw in ({"fabric": "ib_cluster"}, {"tp": 4, "pp": 8}, {"heatmap": "dp"}):
        before = (ex.text, ex.figure)
        ex.set(**kw)
        assert (ex.text, ex.figure) != before


def test_box_traffic_keeps_the_total():
    m = preset("gpt_39b")
    M = pair_traffic(m, Layout(8, 2, 16))
    B = box_traffic(M)
    assert B.sum() == np.float64(M.sum()) or np.isclose(B.sum(), M.sum())
    # TP stays inside a box: the TP matrix summed into boxes is diagonal
    T = box_traffic(pair_traffic(m, Layout(8, 2, 16), "tp"))
    assert np.allclose(T, np.diag(np.diag(T)))


def test_figures_build():
    m = preset("gpt_76b")
    lay = Layout(8, 4, 8)
    assert len(step_split_figure([step_time(m, lay, "ib_cluster")]).axes) == 1
    assert len(pair_traffic_figure({"pp": pair_traffic(m, lay, "pp")}, lay).axes) == 2
    assert len(memory_figure([memory_per_gpu(m, lay)], ["x"]).axes) == 1
