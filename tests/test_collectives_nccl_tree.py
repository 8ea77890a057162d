"""NCCL's Tree all-reduce ("nccl_tree"): chains inside nodes, a double binary tree across.

The structure against connect.cc's rules, the data plane for p = 2..17 and several node
counts, the closed form on one uncontended switch against the simulator, the 2n/B limit,
and the channels across the rails of ib_cluster.
"""

import numpy as np
import pytest

from nvlearn.collectives import (
    allreduce,
    cost,
    double_binary_trees,
    nccl_tree_parents,
    nccl_tree_time,
    supports,
)
from nvlearn.collectives.tree import tree_children, tree_depth
from nvlearn.dataplane import reference, run
from nvlearn.schedule import validate
from nvlearn.sim import simulate
from nvlearn.topology import ib_cluster, single_switch
from nvlearn.topology.core import NODE_IB_SWITCH, NODE_NIC

B = 100e9  # bytes/s per direction
LAT = 0.7e-6  # seconds per link: a GPU-to-GPU message costs 2 LAT
ALPHA = 2 * LAT


def _check_data(s, seed):
    validate(s)
    x = np.random.default_rng(seed).integers(-8, 9, size=(s.n_ranks, s.n_chunks + 5))
    x = x.astype(np.float64)
    want = reference(s, x)
    for dtype in ("float64", "float32", "bfloat16"):
        np.testing.assert_array_equal(run(s, x, dtype=dtype), want)


@pytest.mark.parametrize("p", range(2, 18))
def test_one_node_is_a_chain_and_computes_the_sum(p):
    s = allreduce(p, 1e6, "nccl_tree", chunks=3)
    assert supports("allreduce", "nccl_tree", p)
    for t in nccl_tree_parents(np.arange(p)[None, :]):
        assert t.tolist() == list(range(-1, p - 1))          # 0 -> 1 -> ... -> p-1
    _check_data(s, p)


@pytest.mark.parametrize("p, q, channels", [
    (4, 2, 1), (6, 2, 1), (6, 3, 2), (9, 3, 1), (10, 2, 3), (12, 4, 2), (15, 5, 1),
    (16, 2, 1), (16, 4, 4), (17, 1, 1), (12, 1, 2),
])
def test_several_nodes_compute_the_sum(p, q, channels):
    s = allreduce(p, 1e6, "nccl_tree", chunks=2, ranks_per_node=q, channels=channels)
    assert (s.meta["nodes"], s.meta["ranks_per_node"], s.meta["channels"]) == (p // q, q,
                                                                               channels)
    assert s.n_chunks == 2 * channels * 2
    _check_data(s, p + q)


@pytest.mark.parametrize("nodes", [2, 3])
def test_ib_cluster_default_channels_compute_the_sum(nodes):
    s = allreduce(ib_cluster(nodes), 1e6, "nccl_tree")
    assert s.meta["channels"] == 8
    _check_data(s, nodes)


@pytest.mark.parametrize("G, q, C", [(2, 8, 8), (3, 4, 2), (5, 3, 3), (7, 2, 1)])
def test_trees_follow_ncclTopoPreset_and_connectTrees(G, q, C):
    """Chains inside nodes starting at local GPU c; heads joined by the node-level double
    binary tree; at most 3 children (NCCL_MAX_TREE_ARITY); every edge between nodes joins
    two GPUs of the same local index (one rail)."""
    groups = np.arange(G * q).reshape(G, q)
    trees = nccl_tree_parents(groups, C)
    assert len(trees) == 2 * C
    node_trees = double_binary_trees(G)
    for k, parent in enumerate(trees):
        node_tree, c = node_trees[k // C], k % C
        tree_children(parent, 3)                              # raises beyond 3 children
        assert tree_depth(parent).max() < G * q
        heads = groups[:, c % q]
        for g in range(G):
            chain = groups[g, (c + np.arange(q)) % q]
            assert np.array_equal(parent[chain[1:]], chain[:-1])
            up = node_tree[g]
            assert parent[heads[g]] == (heads[up] if up >= 0 else -1)
        cross = np.flatnonzero((parent >= 0) & (parent // q != np.arange(G * q) // q))
        assert np.all(parent[cross] % q == cross % q)


CASES = [pytest.param(p, c, id=f"p{p}-c{c}") for p in (2, 3, 5, 8, 11, 16) for c in (1, 4)]


@pytest.mark.parametrize("p, chunks", CASES)
def test_simulator_reproduces_the_closed_form(p, chunks):
    for n in (1e3, 1e6, 3e8):
        s = allreduce(p, n, "nccl_tree", chunks=chunks)
        t = simulate(single_switch(p, B, LAT), s, model="wire").time
        want = nccl_tree_time(p, n, B, ALPHA, chunks)
        assert t == pytest.approx(want, rel=1e-9)
        assert cost("allreduce", "nccl_tree", p, n, B, ALPHA, chunks) == want


def test_closed_form_by_hand_and_its_2n_over_b_limit():
    p, n, c = 8, 1e9, 4
    s = n / (c * B)
    assert nccl_tree_time(p, n, B, ALPHA, c) == pytest.approx(
        2 * ((p - 1) * (s + ALPHA) + (c - 1) * s), rel=1e-12)
    n = 2.0**30
    t = nccl_tree_time(16, n, B, ALPHA, chunks=4096)
    assert 2 * n / B < t < 1.01 * 2 * n / B


def test_channels_use_every_rail_and_no_spine():
    topo = ib_cluster(2)
    one = simulate(topo, allreduce(topo, 2.0**30, "nccl_tree", chunks=8, channels=1),
                   model="wire")
    res = simulate(topo, allreduce(topo, 2.0**30, "nccl_tree", chunks=8), model="wire")
    assert res.time < one.time / 4
    tier, kind = np.asarray(topo.node_tier), np.asarray(topo.node_kind)
    src, dst = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    assert res.link_bytes[(tier[src] == 2) | (tier[dst] == 2)].sum() == 0     # no spine
    nic_out = (kind[src] == NODE_NIC) & (kind[dst] == NODE_IB_SWITCH)
    assert nic_out.sum() == 16 and np.all(res.link_bytes[nic_out] > 0)


def test_misuse():
    with pytest.raises(ValueError, match="divisor of the rank count 8"):
        allreduce(8, 1e6, "nccl_tree", ranks_per_node=3)
    with pytest.raises(ValueError, match="only to algorithm='hierarchical'"):
        allreduce(8, 1e6, "nccl_tree", intra="nvls")
    with pytest.raises(ValueError, match="channels"):
        allreduce(8, 1e6, "nccl_tree", channels=0)
