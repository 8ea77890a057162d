"""Op counts are known before a schedule is built, and over-budget requests are refused first."""

from __future__ import annotations

import pytest

from nvlearn import collectives
from nvlearn.collectives.budget import estimate_ops
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, ib_cluster, single_switch


@pytest.mark.parametrize("p", [2, 3, 4, 5, 8, 13, 16, 17])
@pytest.mark.parametrize("chunks", [1, 3])
def test_estimates_are_exact_on_one_node(p, chunks):
    for coll, algos in collectives.ALGORITHMS.items():
        for algo in algos:
            if not collectives.supports(coll, algo, p) or algo == "hierarchical":
                continue
            build = getattr(collectives, coll)
            s = build(p, 1e6, algo) if coll == "alltoall" else build(p, 1e6, algo, chunks=chunks)
            c = 1 if coll == "alltoall" else chunks
            est = estimate_ops(coll, algo, p, c)
            if algo == "recursive_doubling" or (coll == "allreduce" and algo == "rabenseifner"):
                assert s.n_ops <= est, (coll, algo)          # upper bound off powers of two
            else:
                assert s.n_ops == est, (coll, algo)


@pytest.mark.parametrize("nodes", [2, 4])
def test_estimates_bound_the_multi_node_and_multi_plane_schedules(nodes):
    t = ib_cluster(nodes)
    p = t.n_gpus
    for algo in ("ring", "nccl_tree"):
        s = collectives.allreduce(t, 1e6, algo, chunks=2)
        assert s.n_ops <= estimate_ops("allreduce", algo, p, 2, channels=8, nodes=nodes)
    assert collectives.allreduce(t, 1e6, "hierarchical", chunks=2).n_ops == \
        estimate_ops("allreduce", "hierarchical", p, 2)
    d = dgx_h100()
    assert collectives.allreduce(d, 1e6, "nvls").n_ops == estimate_ops(
        "allreduce", "nvls", 8, planes=4)


def test_an_oversized_build_is_refused_before_it_starts(monkeypatch):
    with pytest.raises(ValueError, match=r"134,201,344 ops .*fewer pipeline chunks"):
        collectives.allreduce(8192, 1e9)
    monkeypatch.setenv("NVLEARN_MAX_OPS", "100")
    with pytest.raises(ValueError, match="NVLEARN_MAX_OPS"):
        collectives.allreduce(8, 1e6, chunks=2)               # 224 ops > 100


def test_simulate_refuses_over_budget_and_huge_timelines(monkeypatch):
    s = collectives.allreduce(8, 1e6)
    with pytest.raises(ValueError, match="needs .* GB; pass timeline_bins=128"):
        simulate(single_switch(8, 1e9), s, timeline_bins=2**26)
    monkeypatch.setenv("NVLEARN_MAX_OPS", "50")
    with pytest.raises(ValueError, match="simulating this ring allreduce would have 112 ops"):
        simulate(single_switch(8, 1e9), s)
