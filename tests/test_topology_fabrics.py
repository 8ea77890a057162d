"""Real fabrics built from the catalogue: counts, injection, bisection, paths, routing splits."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.topology import (
    LINK_IB,
    LINK_NVLINK_NETWORK,
    NODE_IB_SWITCH,
    NODE_NVSWITCH,
    bisection_bw_bidir,
    dgx_h100,
    hops,
    ib_cluster,
    injection_bw_per_dir,
    nvlink_pod,
    path_diversity,
    pcie_box,
    with_link_factor,
)

TB = 1e12
GB = 1e9


@pytest.fixture(scope="module")
def dgx():
    return dgx_h100()


@pytest.fixture(scope="module")
def pod():
    return nvlink_pod()


def _first_hop_fracs(topo, src_rank, dst_rank):
    indptr, link, frac, _ = topo.routes(topo.gpus[[src_rank]], topo.gpus[[dst_rank]])
    first = topo.link_src[link] == topo.gpus[src_rank]
    return link[first], frac[first]


# ---------------------------------------------------------------- counts and injection
def test_gpu_counts():
    assert dgx_h100().n_gpus == 8
    assert nvlink_pod().n_gpus == 256
    assert nvlink_pod(3).n_gpus == 24
    assert ib_cluster(4).n_gpus == 32
    assert pcie_box().n_gpus == 8


def test_injection_per_gpu(dgx, pod):
    np.testing.assert_allclose(injection_bw_per_dir(dgx), 450 * GB)
    np.testing.assert_allclose(injection_bw_per_dir(pod), 450 * GB)
    assert dgx.link_count[np.isin(dgx.link_src, dgx.gpus)].sum() == 8 * 18


def test_dgx_structure(dgx):
    assert np.count_nonzero(dgx.node_kind == NODE_NVSWITCH) == 4
    g0 = dgx.link_src == dgx.gpus[0]
    assert sorted(dgx.link_count[g0].tolist()) == [4, 4, 5, 5]
    assert dgx.node_plane[dgx.link_dst[g0]].tolist() == [0, 1, 2, 3]
    assert dgx.link_count[g0].tolist() == list(specs.system("dgx_h100").links_per_gpu_per_switch)
    assert "DGX H100" in repr(dgx) and "GPUs: 8" in repr(dgx) and "4 NVSwitch" in repr(dgx)


def test_pod_port_arithmetic(pod):
    l2 = np.flatnonzero((pod.node_kind == NODE_NVSWITCH) & (pod.node_tier == 2))
    assert l2.size == 36
    ports = np.array([pod.link_count[pod.link_dst == v].sum() for v in l2])
    np.testing.assert_array_equal(ports, 2 * 32)  # 2 ports to each of 32 nodes = 64
    assert ports.sum() == 18 * 128
    assert np.bincount(pod.node_plane[l2]).tolist() == [10, 8, 8, 10]
    l1 = np.flatnonzero((pod.node_kind == NODE_NVSWITCH) & (pod.node_tier == 1))
    up = [pod.link_count[(pod.link_src == v) & (pod.link_kind == LINK_NVLINK_NETWORK)].sum()
          for v in l1[:4]]
    assert up == [20, 16, 16, 20]
    small = nvlink_pod(5)
    l2_small = np.flatnonzero(small.node_tier == 2)
    assert {int(small.link_count[small.link_dst == v].sum()) for v in l2_small} == {10}


# ---------------------------------------------------------------- bisection
def test_bisections():
    assert bisection_bw_bidir(dgx_h100()) == pytest.approx(3.6 * TB)
    assert bisection_bw_bidir(dgx_h100()) == pytest.approx(
        specs.system("dgx_h100").bisection_bw_bidir)
    assert bisection_bw_bidir(nvlink_pod()) == pytest.approx(57.6 * TB)
    assert bisection_bw_bidir(nvlink_pod(4)) == pytest.approx(2 * 72 * 50 * GB)
    assert bisection_bw_bidir(pcie_box()) == pytest.approx(2 * 2 * specs.pcie(5).x16_bw_per_dir)


def test_ib_cluster_bisection_and_oversubscription():
    full = 16 * 8 * 50 * GB * 2
    assert bisection_bw_bidir(ib_cluster(32)) == pytest.approx(full)
    # 32 nodes: one leaf per rail, so same-rail traffic never meets a spine and the
    # bisection between two halves of the nodes does not depend on the spine layer
    assert bisection_bw_bidir(ib_cluster(32, oversubscription=2.0)) == pytest.approx(full)
    # 64 nodes: two leaves per rail; the halves meet only through the spines
    assert bisection_bw_bidir(ib_cluster(64)) == pytest.approx(2 * full)
    assert bisection_bw_bidir(ib_cluster(64, oversubscription=2.0)) == pytest.approx(full)


def test_ib_cluster_structure():
    radix = specs.ib_switch_for_speed("ndr").ports
    for nodes, o, leaves, spines in ((32, 1.0, 8, 32), (64, 2.0, 16, 16), (200, 1.0, 56, 32)):
        topo = ib_cluster(nodes, oversubscription=o)
        ib = topo.node_kind == NODE_IB_SWITCH
        assert np.count_nonzero(ib & (topo.node_tier == 1)) == leaves
        assert np.count_nonzero(ib & (topo.node_tier == 2)) == spines
        degree = np.bincount(topo.link_src, weights=topo.link_count, minlength=topo.n_nodes)
        assert degree[ib].max() <= radix
    rails4 = ib_cluster(8, rails=4)
    assert np.count_nonzero((rails4.node_kind == NODE_IB_SWITCH) & (rails4.node_tier == 1)) == 4


def _switches(topo, tier):
    return int(np.count_nonzero((topo.node_kind == NODE_IB_SWITCH) & (topo.node_tier == tier)))


@pytest.mark.parametrize("row", [r for r in specs.system("dgx_superpod_h100").fabric_sizes
                                 if r[5] > 0], ids=lambda r: f"{r[0]}SU")
def test_ib_cluster_three_tiers_reproduce_the_superpod_table(row):
    sus, nodes, gpus, leaves, spines, cores = row
    pod = specs.system("dgx_superpod_h100")
    assert nodes == sus * pod.su_nodes and leaves == sus * pod.su_leaves
    topo = ib_cluster(nodes)
    assert topo.n_gpus == gpus
    assert [_switches(topo, t) for t in (1, 2, 3)] == [leaves, spines, cores]
    ib = topo.link_kind == LINK_IB
    tier = topo.node_tier[topo.link_src[ib]], topo.node_tier[topo.link_dst[ib]]
    count = topo.link_count[ib]
    # cables (both directions counted once): node-leaf = leaf-spine = spine-core = GPUs
    for lo, hi in ((0, 1), (1, 2), (2, 3)):
        up = (tier[0] == lo) & (tier[1] == hi) & (topo.node_kind[topo.link_dst[ib]]
                                                   == NODE_IB_SWITCH)
        assert int(count[up].sum()) == gpus, (lo, hi)
    degree = np.bincount(topo.link_src, weights=topo.link_count, minlength=topo.n_nodes)
    assert degree[topo.node_kind == NODE_IB_SWITCH].max() <= specs.ib_switch_for_speed(
        "ndr").ports


def test_ib_cluster_two_tier_rows_of_the_table_and_the_limits():
    pod = specs.system("dgx_superpod_h100")
    for _, nodes, _, leaves, _, cores in pod.fabric_sizes:
        if cores == 0:                 # two tiers: the leaves match; 32 spines, one link each
            topo = ib_cluster(nodes)
            assert (_switches(topo, 1), _switches(topo, 2), _switches(topo, 3)) == (
                leaves, 32, 0)
    assert pod.max_sus * pod.su_nodes == 2048
    assert ib_cluster(257).name.endswith("3 tiers)")       # past two tiers: three


def test_ib_cluster_three_tier_routes():
    big = ib_cluster(64, tiers=3)
    g = big.gpus
    assert hops(big, g[0], g[[8, 8 * 33, 8 * 33 + 1]]).tolist() == [6, 8, 10]
    _, link, frac, _ = big.routes(g[[0]], g[[8 * 33 + 1]])   # another rail: via the cores
    to_core = big.node_tier[big.link_dst[link]] == 3
    assert frac[to_core].sum() == pytest.approx(1.0)


# ---------------------------------------------------------------- paths and latency
def test_path_lengths(dgx, pod):
    g = dgx.gpus
    assert hops(dgx, g[0], g[1:]).tolist() == [2] * 7
    p = pod.gpus
    assert hops(pod, p[0], p[1]) == 2          # same node
    assert hops(pod, p[0], p[8]) == 4          # across the second level
    assert hops(pod, p[0], p[255]) == 4
    c = ib_cluster(4)
    assert hops(c, c.gpus[0], c.gpus[[1, 8, 9]]).tolist() == [2, 6, 8]
    box = pcie_box()
    assert hops(box, box.gpus[0], box.gpus[[1, 2]]).tolist() == [2, 4]


def test_path_diversity(dgx, pod):
    assert path_diversity(dgx, dgx.gpus[0], dgx.gpus[1]) == 4
    assert path_diversity(dgx, dgx.gpus[0], dgx.gpus[1], physical=True) == 2 * 25 + 2 * 16
    assert path_diversity(pod, pod.gpus[0], pod.gpus[8]) == 36


def test_latencies_come_from_the_catalogue(dgx, pod):
    hop, cross = specs.latency("nvlink_hop"), specs.latency("nvswitch_traversal")
    _, _, _, lat = dgx.routes(dgx.gpus[[0]], dgx.gpus[[5]])
    assert lat[0] == pytest.approx(2 * hop + cross)
    _, _, _, lat = pod.routes(pod.gpus[[0]], pod.gpus[[100]])
    assert lat[0] == pytest.approx(4 * hop + 3 * cross)
    c = ib_cluster(2)
    _, _, _, lat = c.routes(c.gpus[[0]], c.gpus[[8]])
    expected = 2 * specs.latency("pcie_switch_hop") + 2 * specs.latency("nic") + specs.latency(
        "ib_switch_hop")
    assert lat[0] == pytest.approx(expected)


# ---------------------------------------------------------------- routing splits
def test_dgx_plane_split(dgx):
    links, fracs = _first_hop_fracs(dgx, 0, 3)
    assert dgx.node_plane[dgx.link_dst[links]].tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(fracs, [5 / 18, 4 / 18, 4 / 18, 5 / 18])
    indptr, link, frac, _ = dgx.routes(dgx.gpus[[0]], dgx.gpus[[3]])
    into_dst = dgx.link_dst[link] == dgx.gpus[3]
    assert frac[into_dst].sum() == pytest.approx(1.0)
    assert frac.sum() == pytest.approx(2.0)  # every path has 2 links


def test_pod_routes_spread_over_all_second_level_chips(pod):
    links, fracs = _first_hop_fracs(pod, 0, 200)
    np.testing.assert_allclose(fracs, [5 / 18, 4 / 18, 4 / 18, 5 / 18])
    paths = pod.paths(pod.gpus[0], pod.gpus[200])
    assert len(paths) == 36
    np.testing.assert_allclose([p.weight for p in paths], 1 / 36)
    assert {len(p.links) for p in paths} == {4}
    indptr, link, frac, _ = pod.routes(pod.gpus[[0]], pod.gpus[[200]])
    per_link: dict[int, float] = {}
    for p in paths:
        for k in p.links:
            per_link[k] = per_link.get(k, 0.0) + p.weight
    assert dict(zip(link.tolist(), frac.tolist(), strict=True)) == pytest.approx(per_link)


def test_pod_all_pairs_fractions_sum_to_one(pod):
    g = pod.gpus
    src, dst = np.meshgrid(g[:16], g)
    src, dst = src.ravel(), dst.ravel()
    indptr, link, frac, latency = pod.routes(src, dst)
    pair = np.repeat(np.arange(src.size), np.diff(indptr))
    leaving = pod.link_src[link] == src[pair]
    sums = np.bincount(pair[leaving], weights=frac[leaving], minlength=src.size)
    np.testing.assert_allclose(sums[src != dst], 1.0)
    assert (np.diff(indptr)[src == dst] == 0).all() and (latency[src == dst] == 0).all()


def test_degraded_plane_link_shifts_traffic(dgx):
    g0_plane0 = np.flatnonzero((dgx.link_src == dgx.gpus[0]) & (dgx.node_plane[dgx.link_dst] == 0))
    dead = with_link_factor(dgx, g0_plane0, 0.0)
    links, fracs = _first_hop_fracs(dead, 0, 1)
    np.testing.assert_allclose(fracs, [4 / 13, 4 / 13, 5 / 13])
    assert bisection_bw_bidir(dead) < bisection_bw_bidir(dgx)


def test_zero_capacity_route_is_named():
    box = pcie_box()
    uplink = np.flatnonzero((box.node_name.index("pcie0") == box.link_src)
                            & (box.link_dst == box.node_name.index("cpu")))
    broken = with_link_factor(box, uplink, 0.0)
    with pytest.raises(ValueError, match=r"pcie0 -> cpu.*zero capacity.*with_link_factor"):
        broken.routes(broken.gpus[[0]], broken.gpus[[4]])
    broken.routes(broken.gpus[[0]], broken.gpus[[1]])  # same switch: unaffected


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("nodes", [0, -1, 33, 2.5, True])
def test_pod_rejects_bad_node_counts(nodes):
    with pytest.raises(ValueError, match=r"from 1 to 32.*ports"):
        nvlink_pod(nodes)


@pytest.mark.parametrize("rails", [1, 2, 8])
def test_ib_cluster_max_nodes_is_the_builders_limit(rails):
    from nvlearn.topology import ib_cluster_max_nodes

    limit = ib_cluster_max_nodes(rails)
    # 64-port switches: 64 pods (a core port each), 64 / rails of them per rail, of 32
    # leaves, a leaf's 32 ports down taking 32 / (8 / rails) nodes: 8,192 for any rails
    assert limit == 8192
    with pytest.raises(ValueError, match=rf"nodes <= {limit}"):
        ib_cluster(limit + 1, rails=rails)
    with pytest.raises(ValueError, match="spread evenly"):
        ib_cluster_max_nodes(3)


def test_ib_cluster_rejects_bad_input():
    with pytest.raises(ValueError, match=">= 1"):
        ib_cluster(0)
    with pytest.raises(ValueError, match=r"two-tier fat tree.*nodes <= 256, or tiers=3"):
        ib_cluster(257, tiers=2)
    with pytest.raises(ValueError, match=r"three-tier fat tree.*nodes <= 8192"):
        ib_cluster(8193)
    with pytest.raises(ValueError, match="non-blocking"):
        ib_cluster(300, oversubscription=2.0)
    with pytest.raises(ValueError, match="tiers must be 2, 3 or None"):
        ib_cluster(4, tiers=4)
    with pytest.raises(ValueError, match=r"1, 2, 4, 8"):
        ib_cluster(4, rails=3)
    with pytest.raises(ValueError, match="oversubscription must be >= 1"):
        ib_cluster(4, oversubscription=0.5)


def test_pcie_box_rejects_uneven_switches():
    with pytest.raises(ValueError, match="multiple of gpus_per_switch"):
        pcie_box(gpus=7)


def test_unknown_gpu_is_rejected(dgx):
    with pytest.raises(ValueError, match=r"not a node.*topo.gpus\[r\]"):
        dgx.routes([0], [dgx.n_nodes + 3])
