"""Notebook 06's self-checks and explorer (nvlearn.check.nb06, nvlearn.widgets.stragglers)."""

import numpy as np

from nvlearn.check import nb06
from nvlearn.straggle import ShiftedExponential, harmonic
from nvlearn.topology import dgx_h100


def test_two_planes_closed_form_is_right():
    assert nb06.two_planes_slowdown(18 / 8)
    assert not nb06.two_planes_slowdown(18 / 13)


def test_slow_link_adaptive_against_the_wire_bound():
    box = dgx_h100()
    cap = box.link_capacity[box.link_src == box.gpus[5]]
    bound = cap.sum() / (cap.sum() - 0.2 * cap[1])          # GPU 5 loses 20 % of plane 1
    assert nb06.slow_link_slowdown(bound)
    assert not nb06.slow_link_slowdown(1 / 0.8)             # the static-routing answer
    assert "not yet" in nb06.slow_link_slowdown(None).message


def test_tree_delay_share_is_a_fraction_of_the_delay():
    from nvlearn.widgets.stragglers import MAX_DELAY, fabric_choices, fault_run

    fab = next(iter(fabric_choices()))
    ring = fault_run(fab, "slow_gpu", 1.0, "ring")
    tree = fault_run(fab, "slow_gpu", 1.0, "nccl_tree")
    share = (tree.time - tree.healthy.time) / MAX_DELAY
    assert 0 < share < 1 and ring.time - ring.healthy.time >= tree.time - tree.healthy.time
    assert nb06.tree_delay_share(share) and not nb06.tree_delay_share(1.0)


def test_backup_workers_brute_force():
    d = ShiftedExponential(nb06.SHIFT, nb06.SCALE)
    p = 4096
    ok = [k for k in range(p)
          if nb06.SHIFT + nb06.SCALE * (harmonic(p) - harmonic(k)) <= 1.05 * d.mean]
    assert nb06.backup_workers_k(ok[0])
    assert not nb06.backup_workers_k(ok[0] - 1)


def test_idle_hours_by_hand():
    hours = 1024 * nb06.SCALE * (harmonic(1024) - 1) * 200_000 / 3600
    assert nb06.idle_gpu_hours(hours)
    assert not nb06.idle_gpu_hours(hours * 2)


def test_choice():
    assert not nb06.local_sgd_once_per_epoch(None)
    res = [nb06.local_sgd_once_per_epoch(a).ok for a in ("yes", "no")]
    assert sorted(res) == [False, True]
    assert "choose one of" in nb06.local_sgd_once_per_epoch("maybe").message


def test_explorer_drives_every_control():
    from nvlearn.widgets.stragglers import StragglerExplorer

    ex = StragglerExplorer()
    ex.set(fault="failed_plane", algorithm="nvls")
    assert "plane 0 failed" in ex.text and ex.figure is not None
    ex.set(fault="slow_link", severity=0.5, algorithm="ring")
    assert "(1.99 x)" in ex.text or "(2.00 x)" in ex.text
    ex.set(fabric="InfiniBand cluster, 2 nodes (16 GPUs)", fault="lost_rail")
    assert "7 channels" in ex.text
    ex.set(algorithm="nvls")
    assert "not a valid setting" in ex.text
    ex.set(algorithm="ring", fault="slow_link", severity=0.5)
    half = ex.text
    ex.set(algorithm="ring", fault="slow_link", severity=0.3)
    assert ex.text != half
    ex.set(algorithm="ring", fault="slow_link", severity=0.5)     # back to a cached state
    assert ex.text == half
    assert np.isfinite(ex.figure.axes[-1].get_xlim()).all()
