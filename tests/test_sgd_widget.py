"""Notebook 01 figures, explorer and self-checks."""

from __future__ import annotations

import pytest

from nvlearn import specs
from nvlearn.check import nb01
from nvlearn.plots import sgd as plots
from nvlearn.sgd import History, allreduce_time, idle_cost, scaling, step_time
from nvlearn.sgd.steptime import DDP_BUCKET_BYTES
from nvlearn.widgets.sgd import SGDExplorer


def test_explorer_renders_a_default_and_follows_its_controls():
    ex = SGDExplorer()
    assert ex.figure is not None and "1,024 GPUs" in ex.text
    bucket = allreduce_time("ib_cluster", 1024, DDP_BUCKET_BYTES)     # the default step
    assert f"NCCL picks {bucket.label}" in ex.text                  # each bucket's own choice
    ex.set(workers=8192, fabric="pcie_box", overlap=False, model="70B")
    assert "70B on 8,192 GPUs" in ex.text and "PCIe box" in ex.text
    st = step_time(70e9, 8192, "pcie_box")
    assert f"scaling efficiency {100 * st.efficiency:.1f} %" in ex.text
    with pytest.raises(ValueError, match="unknown control"):
        ex.set(gpus=8)


def test_figures_have_labelled_axes():
    steps = scaling(7e9, "ib_cluster", (8, 64, 512))
    wall = plots.wall_figure({("7B", "ib_cluster", False): steps})
    assert "GPUs" in wall.axes[0].get_xlabel() and "%" in wall.axes[0].get_ylabel()
    tl = plots.timeline_figure(step_time(7e9, 512, "nvlink_pod", overlap=True))
    assert "time within one step" in tl.axes[0].get_xlabel()
    cost = plots.idle_cost_figure({("ib_cluster", True): [idle_cost(s) for s in steps]}, 1e12,
                                  "7B")
    assert "GPU-hours" in cost.axes[0].get_ylabel()
    h = History(1, 8, 0.1, "float64", step_loss=[2.0, 1.0, 0.5])
    h2 = History(2, 8, 0.1, "float64", step_loss=[2.0, 1.0, 0.5 + 1e-16])
    curves = plots.training_curves_figure({"a": h, "b": h2})
    assert "loss" in curves.axes[0].get_ylabel()


def test_self_checks_accept_the_reference_and_reject_a_slip():
    assert nb01.compute_seconds(6 * 13e9 * 8192 / (specs.gpu("b200").bf16_dense_flops * 0.35))
    assert not nb01.compute_seconds(6 * 13e9 * 8192 / (specs.gpu("b200").bf16_dense_flops * 0.7))
    assert "not yet" in repr(nb01.compute_seconds(None))
    assert nb01.batch_for_efficiency(2**25) and nb01.batch_for_efficiency("33554432")
    assert not nb01.batch_for_efficiency(2**24)          # the last batch below 80 %
    best = max(step_time(7e9, 4096, "ib_cluster", overlap=True, bucket_bytes=b).efficiency
               for b in nb01.BUCKET_CHOICES)
    assert nb01.best_bucket_efficiency(f"{100 * best:.2f} %")
    default = step_time(7e9, 4096, "ib_cluster", overlap=True).efficiency   # 25 MiB buckets
    assert not nb01.best_bucket_efficiency(100 * default)
    assert "off by 100" in nb01.best_bucket_efficiency(best).message    # a fraction for a %
    # exercise 7 names sgd.allreduce_time: the reference is NCCL's (achievable) time
    n_bytes, n, steps = 140e9, 4096, 1e12 / 2**22
    watts = specs.gpu("h100").board_power
    joules = allreduce_time("ib_cluster", n, n_bytes).time * n * watts * steps
    assert nb01.idle_energy_mwh(joules / 3.6e9)


def test_dp_update_check_runs_the_learners_code_and_names_the_slip():
    from nvlearn.sgd.parallel import allreduce_sum

    assert nb01.dp_update_function(lambda w, g, lr, b: w - lr * allreduce_sum(g)[0] / b)
    by_workers = nb01.dp_update_function(lambda w, g, lr, b: w - lr * g.sum(axis=0) / 8)
    assert not by_workers and "number of workers" in by_workers.message
    assert "returns None" in nb01.dp_update_function(lambda *a: None).message
    assert "raised" in nb01.dp_update_function(lambda *a: 1 / 0).message
    assert not nb01.dp_update_function(None)
