"""Notebook 04's explorer and figures: driven from Python, output read back."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from nvlearn import numerics, tuner  # noqa: E402
from nvlearn.plots import allreduce as P  # noqa: E402
from nvlearn.sim.models import MODELS  # noqa: E402
from nvlearn.topology import dgx_h100  # noqa: E402
from nvlearn.widgets.allreduce import CHUNKS, FABRICS, AllreduceExplorer, render_state  # noqa: E402


@pytest.fixture(scope="module")
def explorer():
    return AllreduceExplorer(warm=False)


def test_default_state_renders(explorer):
    assert explorer.svg.startswith("<svg") and explorer.svg.endswith("</svg>")
    assert "ring, 1 MiB on 8 GPUs of DGX H100" in explorer.text
    assert "NCCL's model picks" in explorer.text
    assert "<table" in explorer.table_html


def test_controls_change_the_output(explorer):
    explorer.set(algorithm="nvls", size=float(2**30))
    assert explorer.text.startswith("NVLS (in-switch), 1 GiB on 8 GPUs")
    assert "NVLS/Simple" in explorer.text
    explorer.set(size=float(2**12))
    assert "NCCL's model picks Ring/LL" in explorer.text
    explorer.set(chunks=1)
    assert "closed forms, 1 chunk</text>" in explorer.svg and "(1 chunk)" in explorer.text
    explorer.set(chunks=None, algorithm="ring")


def test_fabric_change_resets_gpu_choices(explorer):
    explorer.set(fabric="nvlink_pod")
    assert explorer.controls["gpus"].options == FABRICS["nvlink_pod"][1]
    assert explorer.values["gpus"] == 256 and "256 GPUs" in explorer.text
    explorer.set(gpus=64, algorithm="nvls")
    assert "does not run here" in explorer.text            # NVLS needs one NVSwitch
    explorer.set(fabric="ib_cluster", gpus=32, algorithm="hierarchical_nvls")
    assert "32 GPUs of InfiniBand" in explorer.text
    explorer.set(fabric="dgx_h100")
    assert explorer.values["gpus"] == 8
    assert explorer.last_update_s > 0


def test_bad_values(explorer):
    with pytest.raises(ValueError, match="unknown control"):
        explorer.set(colour="red")
    with pytest.raises(ValueError, match="offers"):
        render_state("ring", 2**20, 3, "dgx_h100", None)
    with pytest.raises(ValueError, match="unknown algorithm"):
        render_state("mesh", 2**20, 8, "dgx_h100", None)
    with pytest.raises(ValueError, match="chunks"):
        render_state("ring", 2**20, 8, "dgx_h100", 3)


def test_static_figure_and_html(explorer):
    fig = explorer.figure()
    assert fig.axes[0].get_ylabel() == "time (log scale)"
    plt.close(fig)
    assert "<svg" in explorer.static().data


def test_svg_chart_marks_size_and_crossovers():
    svg = P.sweep_svg([2**10, 2**20, 2**30], {"ring": np.array([1e-5, 2e-5, 3e-3]),
                                               "nvls": np.array([2e-6, 1e-5, 2e-3])},
                      highlight="ring", marker=2**15, crossovers=[(2**18, "nvls", "ring")])
    assert svg.count("<polyline") == 2 and "stroke-width=\"3.2\"" in svg
    assert "→ ring" in svg and svg.count("<circle") == 2


def test_figures_have_labelled_axes():
    lp = tuner.link_params(dgx_h100())
    sw = tuner.closed_form_sweep(lp, tuner.SIZES[::4])
    fig = P.sweep_figure([sw], among=[["ring", "recursive_doubling"]],
                         bus_bw_ref={"wire": 450e9})
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert "time (log scale)" in labels and any("busbw" in s for s in labels)
    plt.close(fig)
    fig = P.nccl_model_figure([tuner.tune("allreduce", dgx_h100())], tuner.SIZES)
    assert fig.axes[0].get_xlabel() == "message size per GPU"
    plt.close(fig)
    fig = P.nvls_speedup_figure(tuner.SIZES[:3], {"sim": np.ones(3)}, 1.556, chunks=[1, 2],
                                chunk_speedup=np.array([0.8, 1.1]))
    assert len(fig.axes) == 2
    plt.close(fig)
    errors = numerics.reduction_order_errors(4, 64, algorithms=("ring", "binary_tree"))
    fig = P.numerics_figure({4: errors})
    assert "relative RMS" in fig.axes[0].get_ylabel()
    plt.close(fig)


def test_size_and_time_labels():
    assert P.size_label(8 * 2**30) == "8 GiB"
    assert P.time_label(2e-5) == "20 µs"


def test_chunks_dropdown_shows_best_at_start():
    ex = AllreduceExplorer(warm=False)
    assert ex.controls["chunks"].label == "best" and ex.values["chunks"] is None
    ex.set(chunks=4)
    assert ex.values["chunks"] == 4
    ex.set(chunks=None)
    assert ex.controls["chunks"].label == "best"


def test_the_background_warms_every_depth_of_the_fabric_shown(explorer):
    explorer.set(fabric="ib_cluster", gpus=32, model="wire")
    jobs = explorer.depth_jobs()
    assert {(f, g) for f, g, _, _ in jobs} == {("ib_cluster", 32)}
    assert [m for *_, m in jobs[:len(CHUNKS) - 1]] == ["wire"] * (len(CHUNKS) - 1)
    assert sorted({(c, m) for _, _, c, m in jobs}) == sorted(
        (c, m) for c in CHUNKS[1:] for m in MODELS)
