"""The collectives API: registry, rank rules, trees, topology-derived layouts, bad input."""

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.collectives import (
    ALGORITHMS,
    RANK_RULES,
    allgather,
    allreduce,
    alltoall,
    binary_tree,
    broadcast,
    check_supported,
    cost,
    double_binary_trees,
    nvswitch_planes,
    rank_groups,
    reduce_scatter,
    supports,
)
from nvlearn.collectives.tree import tree_children, tree_depth
from nvlearn.schedule import validate
from nvlearn.topology import dgx_h100, ib_cluster, nvlink_pod, single_switch

ENTRY = {"allreduce": allreduce, "reduce_scatter": reduce_scatter, "allgather": allgather,
         "broadcast": broadcast, "alltoall": alltoall}


def _is_binary_tree(parent):
    p = parent.size
    kids = tree_children(parent)  # raises on a node with three children
    assert (parent < 0).sum() == 1
    depth = tree_depth(parent)  # raises on a cycle
    assert depth.max() < p
    return kids


@pytest.mark.parametrize("p", range(1, 70))
def test_in_order_binary_tree(p):
    parent = binary_tree(p)
    kids = _is_binary_tree(parent)
    assert tree_depth(parent).max() == p.bit_length() - 1
    x = np.arange(p) + 1  # odd positions are the leaves
    assert np.array_equal((kids[:, 0] < 0), x % 2 == 1)


@pytest.mark.parametrize("p", range(2, 70))
def test_double_binary_tree_every_rank_interior_in_at_most_one_tree(p):
    a, b = double_binary_trees(p)
    kids_a, kids_b = _is_binary_tree(a), _is_binary_tree(b)
    interior_a = kids_a[:, 0] >= 0
    interior_b = kids_b[:, 0] >= 0
    assert not np.any(interior_a & interior_b)
    # a node with a single child hands to the other tree's root, idle in its own tree
    for kids, other in ((kids_a, b), (kids_b, a)):
        single = np.flatnonzero((kids[:, 0] >= 0) & (kids[:, 1] < 0))
        assert all(other[kids[v, 0]] < 0 for v in single)
    assert tree_depth(a).max() <= p.bit_length() and tree_depth(b).max() <= p.bit_length()


def test_registry_every_algorithm_builds_validates_and_has_a_closed_form():
    for collective, algorithms in ALGORITHMS.items():
        for algorithm in algorithms:
            p = 8
            kw = {"ranks_per_node": 4} if algorithm == "hierarchical" else {}
            if collective == "alltoall":
                s = alltoall(p, 1e6, algorithm)
            else:
                s = ENTRY[collective](p, 1e6, algorithm, **kw)
            assert (s.collective, s.algorithm) == (collective, algorithm)
            validate(s)
            assert cost(collective, algorithm, p, 1e6, 1e11, 1e-6, **kw) > 0
            assert RANK_RULES[(collective, algorithm)]


def test_unknown_algorithm_lists_the_available_ones():
    with pytest.raises(ValueError, match="available: ring, binary_tree, double_binary_tree"):
        allreduce(8, 1e6, "binomial")
    with pytest.raises(ValueError, match="available: direct, ring"):
        alltoall(8, 1e6, "bruck")
    with pytest.raises(ValueError, match="unknown collective"):
        supports("scan", "ring", 8)


def test_rank_rules():
    assert supports("allgather", "recursive_doubling", 16)
    assert not supports("allgather", "recursive_doubling", 12)
    assert not supports("allreduce", "ring", 1)
    assert all(supports("allreduce", a, p) for a in ALGORITHMS["allreduce"] for p in (2, 7, 13))
    with pytest.raises(ValueError, match=r"power of two \(2, 4, 8, 16, \.\.\.\), not p=12"):
        reduce_scatter(12, 1e6, "recursive_halving")
    with pytest.raises(ValueError, match="not p=1"):
        check_supported("allreduce", "binary_tree", 1)


@pytest.mark.parametrize("bad, match", [
    (dict(n_bytes=-5.0), "n_bytes"),
    (dict(n_bytes=float("nan")), "n_bytes"),
    (dict(chunks=0), "chunks"),
    (dict(chunks=1.5), "chunks"),
])
@pytest.mark.parametrize("algorithm", ["binary_tree", "double_binary_tree", "recursive_doubling",
                                       "rabenseifner", "nvls"])
def test_bad_sizes_are_rejected(algorithm, bad, match):
    args = dict(n_bytes=1e6, chunks=2) | bad
    with pytest.raises(ValueError, match=match):
        allreduce(6, args["n_bytes"], algorithm, chunks=args["chunks"])


def test_hierarchical_options_and_their_misuse():
    with pytest.raises(ValueError, match="only to algorithm='hierarchical'"):
        allreduce(8, 1e6, "ring", ranks_per_node=4)
    with pytest.raises(ValueError, match="give ranks_per_node"):
        allreduce(8, 1e6, "hierarchical")
    with pytest.raises(ValueError, match="divisor of the rank count 8"):
        allreduce(8, 1e6, "hierarchical", ranks_per_node=3)
    with pytest.raises(ValueError, match="intra must be one of"):
        allreduce(8, 1e6, "hierarchical", ranks_per_node=4, intra="tree")
    with pytest.raises(ValueError, match="node_box is -1"):
        allreduce(single_switch(8, 1e11), 1e6, "hierarchical")
    s = allreduce(single_switch(8, 1e11), 1e6, "hierarchical", ranks_per_node=2)
    assert s.meta["nodes"] == 4


def test_topology_supplies_planes_nodes_and_gpu_names():
    planes = nvswitch_planes(dgx_h100(), range(8))
    links = np.array(specs.system("dgx_h100").links_per_gpu_per_switch)
    np.testing.assert_allclose([w for _, w in planes], links / links.sum())
    cluster = ib_cluster(2)
    assert rank_groups(16, topology=cluster).tolist() == [list(range(8)), list(range(8, 16))]
    s = allreduce(cluster, 1e6, "hierarchical", intra="nvls")
    assert s.participant_role[:4] == tuple(f"n0.nvswitch{k}" for k in range(4))
    assert s.participant_role[4:] == tuple(f"n1.nvswitch{k}" for k in range(4))
    rd = allreduce(cluster, 1e6, "recursive_doubling")
    assert rd.participant_role[0] == cluster.node_name[cluster.gpus[0]]
    with pytest.raises(ValueError, match="one NVSwitch domain"):
        allreduce(nvlink_pod(2), 1e6, "nvls")


def test_tree_broadcast_root_receives_nothing_and_everyone_else_everything():
    s = broadcast(9, 9e6, "binary_tree", chunks=3, root=5)
    received = s.bytes_received()
    assert received[5] == 0
    np.testing.assert_allclose(np.delete(received, 5), 9e6)
    with pytest.raises(ValueError, match="root must be a rank"):
        broadcast(9, 1e6, "binary_tree", root=9)


def test_volumes_per_rank():
    n, p = 1.6e7, 16
    ring_volume = 2 * (p - 1) / p * n
    for algorithm in ("rabenseifner", "ring"):
        np.testing.assert_allclose(allreduce(p, n, algorithm).bytes_sent(), ring_volume)
    rd = allreduce(p, n, "recursive_doubling")
    np.testing.assert_allclose(rd.bytes_sent()[:p], n * 4)  # n per step, lg p steps
    dbt = allreduce(p, n, "double_binary_tree").bytes_sent()
    assert dbt.max() <= 2 * n + 1e-6 and dbt.sum() == pytest.approx(2 * (p - 1) * n)


def test_one_registry_drives_names_rules_costs_and_op_counts():
    """ALGORITHMS, RANK_RULES, cost() and the op budget are all read off REGISTRY."""
    from nvlearn import collectives
    from nvlearn.collectives import REGISTRY
    from nvlearn.collectives.budget import estimate_ops

    assert {(c, a) for c, algos in collectives.ALGORITHMS.items() for a in algos} == \
        set(REGISTRY)
    for (coll, algo), entry in REGISTRY.items():
        assert collectives.RANK_RULES[(coll, algo)] == entry.rank_rule and entry.reference
        if algo == "hierarchical":
            continue
        assert collectives.cost(coll, algo, 8, 1e6, 1e11, 1e-6, 2) == \
            entry.time(8, 1e6, 1e11, 1e-6, 2)
        assert estimate_ops(coll, algo, 8, 2) == entry.ops(8, 2)


def test_tree_is_not_ambiguous():
    """'tree' means NCCL's Tree in the tuner; the collectives call one binary tree
    'binary_tree' and NCCL's 'nccl_tree', and say so to whoever asks for 'tree'."""
    with pytest.raises(ValueError, match="'binary_tree'.*'nccl_tree'"):
        allreduce(8, 1e6, "tree")
    with pytest.raises(ValueError, match="'binary_tree'") as err:
        broadcast(8, 1e6, "tree")
    assert "nccl_tree" not in str(err.value)
    assert "tree" not in ALGORITHMS["allreduce"] and "binary_tree" in ALGORITHMS["broadcast"]
