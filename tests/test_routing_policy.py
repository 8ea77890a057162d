"""Static hash-based ECMP vs adaptive spreading: known answers, statistics, plumbing."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest

from nvlearn.sim import simulate
from nvlearn.switching.patterns import from_matrix, shift
from nvlearn.topology import (
    LINK_IB,
    NODE_IB_SWITCH,
    ROUTING_POLICIES,
    dgx_h100,
    expected_colliding_flows,
    expected_distinct_paths,
    hops,
    ib_cluster,
    nvlink_pod,
    ring,
    single_switch,
    with_link_factor,
    with_routing,
)
from nvlearn.topology.builders import FabricBuilder
from nvlearn.topology.policy import static_route_pairs
from nvlearn.topology.routing import route_pairs

C = 100e9  # bytes/s per direction of every link in the hand-built leaf-spine fabric


def _leaf_spine(spines: int = 2, per_leaf: int = 2):
    """Two leaves of ``per_leaf`` GPUs each, joined by ``spines`` spines; all links C."""
    b = FabricBuilder()
    gpus = [b.gpu(f"g{i}") for i in range(2 * per_leaf)]
    leaves = [b.node(NODE_IB_SWITCH, f"leaf{j}", tier=1) for j in range(2)]
    tops = [b.node(NODE_IB_SWITCH, f"spine{k}", tier=2) for k in range(spines)]
    for i, g in enumerate(gpus):
        b.cable(g, leaves[i // per_leaf], bw_per_dir=C, kind=LINK_IB)
    for leaf in leaves:
        for top in tops:
            b.cable(leaf, top, bw_per_dir=C, kind=LINK_IB)
    return b.build("leaf-spine")


def _spine_of_route(topo, link_ids) -> str:
    names = [topo.node_name[topo.link_dst[k]] for k in link_ids]
    return next(n for n in names if n.startswith("spine"))


def _two_flows(topo, n_bytes):
    m = np.zeros((4, 4))
    m[0, 2] = m[1, 3] = n_bytes
    return from_matrix(m, "two flows")


# ------------------------------------------------------------------ known answers
def test_two_flows_hashed_onto_one_spine_get_half_the_bandwidth_each():
    fabric = _leaf_spine()
    n_bytes = 1e9
    collide = spread = None
    for seed in range(64):
        static = with_routing(fabric, "static", seed)
        indptr, link, _, _ = static.routes(fabric.gpus[[0, 1]], fabric.gpus[[2, 3]])
        a = _spine_of_route(static, link[indptr[0]:indptr[1]])
        b = _spine_of_route(static, link[indptr[1]:indptr[2]])
        if a == b and collide is None:
            collide = static
        if a != b and spread is None:
            spread = static
    assert collide is not None and spread is not None
    schedule = _two_flows(fabric, n_bytes)
    alone = n_bytes / C
    assert simulate(collide, schedule, model="wire").op_end == pytest.approx([2 * alone, 2 * alone])
    assert simulate(spread, schedule, model="wire").op_end == pytest.approx([alone, alone])
    # adaptive: each flow is split over both spines, so each gets the full rate
    assert simulate(fabric, schedule, model="wire").op_end == pytest.approx([alone, alone])


def test_static_collisions_on_a_fat_tree_follow_balls_into_bins():
    # rails=1: 8 NICs per node, 4 nodes per leaf, 2 leaves, 32 spines, 1 uplink per spine
    topo = ib_cluster(8, rails=1)
    spines = np.flatnonzero([name.startswith("spine") for name in topo.node_name])
    assert spines.size == 32
    n_bytes = 1e9
    schedule = shift(topo.n_gpus, n_bytes, 32)  # every GPU of leaf 0 -> a GPU of leaf 1
    src, dst = topo.gpus[schedule.op_src], topo.gpus[schedule.op_dst]
    from_leaf0 = schedule.op_src < 32
    used, colliding = [], []
    for seed in range(300):
        indptr, link, _, _, _ = static_route_pairs(topo, src, dst, seed)
        spine = np.array([topo.link_dst[link[indptr[i] + 3]] for i in range(src.size)])
        assert np.isin(spine, spines).all()  # GPU, PCIe switch, NIC, leaf, then the spine
        load = np.bincount(spine[from_leaf0], minlength=topo.n_nodes)
        used.append(np.count_nonzero(load))
        colliding.append(int(np.sum(load[spine[from_leaf0]] > 1)))
    # mean over 300 hash seeds vs the closed form; sd of one draw is about 2 spines
    assert np.mean(used) == pytest.approx(expected_distinct_paths(32, 32), abs=0.5)
    assert np.mean(colliding) == pytest.approx(expected_colliding_flows(32, 32), abs=0.8)


def test_simulated_completion_times_on_a_fat_tree_are_flows_per_spine_times_alone():
    topo = ib_cluster(8, rails=1)
    n_bytes = 1e9
    schedule = shift(topo.n_gpus, n_bytes, 32)
    nic = topo.link_capacity[topo.link_kind == LINK_IB].min()
    adaptive = simulate(topo, schedule, model="wire")
    latency = adaptive.path_latency[adaptive.op_path]
    assert adaptive.op_end - latency == pytest.approx(np.full(64, n_bytes / nic))
    static = with_routing(topo, "static", seed=5)
    res = simulate(static, schedule, model="wire")
    src, dst = topo.gpus[schedule.op_src], topo.gpus[schedule.op_dst]
    indptr, link, _, lat, _ = static_route_pairs(topo, src, dst, 5)
    first_spine_link = link[indptr[:-1] + 3]  # leaf -> spine: shared only by same-spine flows
    load = np.bincount(first_spine_link)[first_spine_link]
    assert load.max() > 1  # this seed collides somewhere
    assert res.op_end - lat == pytest.approx(load * n_bytes / nic)


def test_expected_counts_match_exhaustive_enumeration():
    for flows, paths in [(2, 2), (3, 3), (4, 2), (3, 5)]:
        outcomes = list(product(range(paths), repeat=flows))
        distinct = np.mean([len(set(o)) for o in outcomes])
        shared = np.mean([sum(o.count(x) > 1 for x in o) for o in outcomes])
        assert expected_distinct_paths(flows, paths) == pytest.approx(distinct)
        assert expected_colliding_flows(flows, paths) == pytest.approx(shared)
    assert expected_distinct_paths(1000, 1000) / 1000 == pytest.approx(1 - math.exp(-1),
                                                                       abs=1e-3)
    with pytest.raises(ValueError):
        expected_distinct_paths(3, 0)
    with pytest.raises(ValueError):
        expected_colliding_flows(0, 3)


# ------------------------------------------------------------------ properties of static paths
@pytest.mark.parametrize("topo", [dgx_h100(), nvlink_pod(3), ib_cluster(4), ring(6, 1e9)],
                         ids=lambda t: t.name)
def test_static_routes_are_single_shortest_paths(topo):
    g = topo.gpus
    src, dst = np.meshgrid(g, g)
    src, dst = src.ravel(), dst.ravel()
    if topo.name.startswith("ring"):  # GPUs do not forward: only neighbours are reachable
        keep = (np.abs(np.searchsorted(g, src) - np.searchsorted(g, dst)) % 5) <= 1
        src, dst = src[keep], dst[keep]
    indptr, link, frac, latency, nhops = static_route_pairs(topo, src, dst, seed=7)
    assert (frac == 1.0).all()
    assert np.array_equal(nhops, hops(topo, src, dst))
    assert np.array_equal(np.diff(indptr), nhops)
    for i in range(src.size):
        path = link[indptr[i]:indptr[i + 1]]
        if src[i] == dst[i]:
            assert path.size == 0 and latency[i] == 0
            continue
        assert topo.link_src[path[0]] == src[i] and topo.link_dst[path[-1]] == dst[i]
        assert np.array_equal(topo.link_dst[path[:-1]], topo.link_src[path[1:]])
        assert latency[i] == pytest.approx(topo.link_latency[path].sum())


def test_static_paths_are_deterministic_per_seed_and_differ_between_seeds():
    pod = nvlink_pod(4)
    g = pod.gpus
    src, dst = g[:8], g[24:32]
    a = static_route_pairs(pod, src, dst, 3)[1]
    b = static_route_pairs(pod, src, dst, 3)[1]
    c = static_route_pairs(pod, src, dst, 4)[1]
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # a repeated pair takes the same path wherever it appears in the request
    indptr, link, *_ = static_route_pairs(pod, [g[0], g[9], g[0]], [g[30], g[1], g[30]], 3)
    assert np.array_equal(link[indptr[0]:indptr[1]], link[indptr[2]:indptr[3]])


def test_static_choice_is_weighted_by_capacity_like_ecmp_over_physical_links():
    topo = dgx_h100()
    links = np.array([5, 4, 4, 5])
    plane_of = {int(k): int(topo.node_plane[topo.link_dst[k]]) for k in range(topo.n_links)}
    g = topo.gpus
    counts = np.zeros(4)
    for seed in range(100):
        src, dst = (a.ravel() for a in np.meshgrid(g, g))
        keep = src != dst
        indptr, link, *_ = static_route_pairs(topo, src[keep], dst[keep], seed)
        for k in link[indptr[:-1]]:
            counts[plane_of[int(k)]] += 1
    assert counts / counts.sum() == pytest.approx(links / links.sum(), abs=0.01)


def test_static_hashing_avoids_dead_links_and_reports_unroutable_pairs():
    fabric = _leaf_spine()
    to_spine0 = [k for k in range(fabric.n_links)
                 if fabric.node_name[fabric.link_dst[k]] == "spine0"
                 and fabric.node_name[fabric.link_src[k]] == "leaf0"]
    broken = with_routing(with_link_factor(fabric, to_spine0, 0.0), "static", 0)
    assert broken.routing == "static"  # with_link_factor keeps the policy
    for seed in range(20):
        indptr, link, *_ = static_route_pairs(broken, fabric.gpus[[0, 1]],
                                              fabric.gpus[[2, 3]], seed)
        assert not np.isin(link, to_spine0).any()
    up = [k for k in range(fabric.n_links)
          if fabric.node_name[fabric.link_src[k]] == "leaf0"
          and fabric.node_name[fabric.link_dst[k]].startswith("spine")]
    dead = with_routing(with_link_factor(fabric, up, 0.0), "static", 0)
    with pytest.raises(ValueError, match="zero capacity"):
        dead.routes(fabric.gpus[[0]], fabric.gpus[[2]])
    with pytest.raises(ValueError, match="no route"):
        with_routing(ring(4, 1e9), "static").routes([0], [2])


# ------------------------------------------------------------------ plumbing
def test_adaptive_default_is_unchanged():
    pod = nvlink_pod(2)
    assert pod.routing == "adaptive" and ROUTING_POLICIES == ("adaptive", "static")
    g = pod.gpus
    mine = pod.routes(g[:4], g[8:12])
    ref = route_pairs(pod, g[:4], g[8:12])[:4]
    for a, b in zip(mine, ref, strict=True):
        assert np.array_equal(a, b)
    back = with_routing(with_routing(pod, "static", 2), "adaptive")
    assert all(np.array_equal(a, b) for a, b in zip(back.routes(g[:4], g[8:12]), mine,
                                                      strict=True))


def test_paths_and_repr_follow_the_policy():
    topo = with_routing(single_switch(4, 1e9), "static", 1)
    (path,) = topo.paths(topo.gpus[0], topo.gpus[3])
    assert path.weight == 1.0 and path.nodes == (0, 4, 3)
    assert "static hash (seed 1)" in repr(topo)
    assert "routing" not in repr(single_switch(4, 1e9))
    pod = with_routing(nvlink_pod(2), "static", 0)
    assert len(pod.paths(pod.gpus[0], pod.gpus[8])) == 1
    assert len(nvlink_pod(2).paths(pod.gpus[0], pod.gpus[8])) == 36


@pytest.mark.parametrize(("policy", "seed", "words"), [
    ("ecmp", 0, "must be one of"), ("static", -1, ">= 0"), ("static", 1.5, ">= 0"),
    ("static", True, ">= 0"),
])
def test_bad_policy_arguments_are_rejected(policy, seed, words):
    with pytest.raises(ValueError, match=words):
        with_routing(ring(4, 1e9), policy, seed)
