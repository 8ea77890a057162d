"""Notebook-05 self-checks: right for the package's own answer, "not yet" with a hint otherwise."""

from __future__ import annotations

import pytest

from nvlearn import specs
from nvlearn.check import nb05
from nvlearn.moe import expert_capacity, route, simulate_moe
from nvlearn.topology import ib_cluster


def _refs():
    nic = specs.nic(specs.system("dgx_h100").nic).port_bw_per_dir
    return {
        nb05.capacity_slots: expert_capacity(4096, 64, 2, 1.25),
        nb05.dispatch_mb_per_gpu: 4096 * 8 * 7168 * 63 / 64 / 1e6,
        nb05.ib_dispatch_ms: 4096 * 8 * 7168 * 7 / 8 / nic * 1e3,
        nb05.dedup_ratio: 8 * 7 / 8 / 4,
    }


@pytest.mark.parametrize("checker", list(_refs()), ids=lambda f: f.__name__)
def test_numeric_checkers(checker):
    ref = _refs()[checker]
    assert checker(ref).ok
    wrong = checker(ref * 2)
    assert not wrong.ok and str(wrong).startswith("not yet")
    assert f"{ref:g}" not in str(wrong)  # the hint never gives the answer away


def test_answers_with_units_are_converted():
    mb = _refs()[nb05.dispatch_mb_per_gpu]
    assert nb05.dispatch_mb_per_gpu(f"{mb / 1e3} GB").ok
    ms = _refs()[nb05.ib_dispatch_ms]
    assert nb05.ib_dispatch_ms(f"{ms * 1e3} us").ok
    assert not nb05.ib_dispatch_ms("4 GB").ok  # a size is not a time


def test_limiting_link_choice_follows_the_simulation():
    r = route(16, 1024, 64, 2, skew=1.0, seed=0)
    kind = simulate_moe(ib_cluster(2), r, 4096).limiting_link_kind()
    assert nb05.limiting_link_kind(kind.upper()).ok
    other = "nvlink" if kind != "nvlink" else "pcie"
    assert not nb05.limiting_link_kind(other).ok
    assert "choose one of" in str(nb05.limiting_link_kind("copper"))
