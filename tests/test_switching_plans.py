"""Port/taper arithmetic and fabric metrics, checked against the catalogue and the topologies."""

from __future__ import annotations

import pytest

from nvlearn import specs
from nvlearn.switching.plans import (
    fabric_metrics,
    fat_tree_plan,
    growth_table,
    max_gpus,
    nvl72_plan,
    nvlink_pod_plan,
)
from nvlearn.topology import (
    LINK_NVLINK_NETWORK,
    NODE_NVSWITCH,
    bisection_bw_bidir,
    dgx_h100,
    ib_cluster,
    max_flow_bw_per_dir,
    nvlink_pod,
)

TB = 1e12
GB = 1e9
NSS = specs.system("nvlink_switch_system")
DGX = specs.system("dgx_h100")


# ------------------------------------------------------------------ catalogue claims
def test_node_and_pod_bisection_and_the_9x_claim_from_topology_objects():
    assert bisection_bw_bidir(dgx_h100()) == pytest.approx(3.6 * TB)
    pod = bisection_bw_bidir(nvlink_pod(32))
    assert pod == pytest.approx(57.6 * TB)
    assert pod == pytest.approx(NSS.all_to_all_bw)  # numerically equal, bidirectional
    hdr = specs.system("dgx_a100_superpod_hdr")
    assert pod / hdr.bisection_bw_bidir == pytest.approx(NSS.bisection_gain_vs_hdr_a100)
    # the same 256 GPUs on an HDR InfiniBand fat tree, one 200 Gb/s rail per GPU
    hdr_fabric = bisection_bw_bidir(ib_cluster(32, ib="hdr"))
    assert hdr_fabric == pytest.approx(hdr.bisection_bw_bidir)
    assert pod / hdr_fabric == pytest.approx(9.0)
    # and on today's NDR: 4.5x
    assert pod / bisection_bw_bidir(ib_cluster(32)) == pytest.approx(4.5)


def test_fabric_metrics_of_the_three_fabrics():
    node = fabric_metrics(dgx_h100())
    assert node["injection_per_gpu"] == pytest.approx(450 * GB)
    assert node["off_node_per_gpu"] is None and node["node_taper"] is None
    assert node["bisection_bw_bidir"] == pytest.approx(DGX.bisection_bw_bidir)
    assert (node["hops_across"], node["paths_across"]) == (2, 4)
    pod = fabric_metrics(nvlink_pod(32))
    assert pod["off_node_per_gpu"] == pytest.approx(225 * GB)
    assert pod["node_taper"] == pytest.approx(NSS.taper)
    assert pod["oversubscription"] == pytest.approx(2.0)  # 40 GPU links : 20 uplinks per chip
    assert pod["bisection_per_gpu"] == pytest.approx(225 * GB)
    assert (pod["hops_in_node"], pod["hops_across"], pod["paths_across"]) == (2, 4, 36)
    ib = fabric_metrics(ib_cluster(32))
    assert ib["injection_per_gpu"] == pytest.approx(450 * GB)  # NVLink, not the NIC's PCIe
    assert ib["off_node_per_gpu"] == pytest.approx(50 * GB)
    assert ib["node_taper"] == pytest.approx(9.0)
    assert ib["oversubscription"] == 1.0
    assert (ib["hops_across"], ib["paths_across"]) == (8, 32)
    assert fabric_metrics(ib_cluster(64, oversubscription=2.0))["oversubscription"] == 2.0


# ------------------------------------------------------------------ the pod plan
def test_pod_plan_reproduces_the_published_system_and_the_topology():
    plan = nvlink_pod_plan()
    assert plan.nodes == NSS.nodes and plan.gpus == NSS.gpus
    assert plan.l2_switches == NSS.l2_switches
    assert plan.uplinks_per_node == DGX.external_nvlink_ports
    assert plan.cables_per_node == DGX.osfp_cages
    assert plan.taper == NSS.taper
    assert plan.max_nodes * plan.gpus_per_node == NSS.gpus
    assert plan.uplink_bw_per_dir == pytest.approx(NSS.all_to_all_bw)
    assert plan.bisection_bw_bidir == pytest.approx(57.6 * TB)
    assert plan.cross_node_bw_per_gpu == pytest.approx(plan.in_node_bw_per_gpu / 2)
    topo = nvlink_pod(32)
    l2 = (topo.node_kind == NODE_NVSWITCH) & (topo.node_tier == 2)
    assert int(l2.sum()) == plan.l2_chips
    assert int(((topo.node_kind == NODE_NVSWITCH) & (topo.node_tier == 1)).sum()) == \
        plan.l1_chips
    up = topo.link_kind == LINK_NVLINK_NETWORK
    assert topo.link_capacity[up].sum() / 2 == pytest.approx(plan.uplink_bw_per_dir)
    # every GPU of node 0 to node 1: max-flow per GPU equals the plan's cross-node rate
    two = nvlink_pod(2)
    flow = max_flow_bw_per_dir(two, list(range(8)), list(range(8, 16)))
    assert flow / 8 == pytest.approx(nvlink_pod_plan(2).cross_node_bw_per_gpu)


def test_pod_plan_taper_arithmetic():
    assert nvlink_pod_plan(32).min_taper == pytest.approx(144 / 112)
    t15 = nvlink_pod_plan(32, taper=1.5)
    assert (t15.uplinks_per_node, t15.l2_switches, t15.max_nodes) == (96, 24, 32)
    t4 = nvlink_pod_plan(8, taper=4)
    assert (t4.uplinks_per_node, t4.l2_switches, t4.chips) == (36, 9, 8 * 4 + 18)
    assert nvlink_pod_plan(32, taper=3.1).uplinks_per_node == 44  # whole OSFP cables
    with pytest.raises(ValueError, match="only 112 left"):
        nvlink_pod_plan(32, taper=1.0)
    with pytest.raises(ValueError, match="at most 32 nodes"):
        nvlink_pod_plan(33)
    with pytest.raises(ValueError, match="whole number"):
        nvlink_pod_plan(0)
    with pytest.raises(ValueError, match=">= 1"):
        nvlink_pod_plan(4, taper=0.5)


# ------------------------------------------------------------------ generic fat trees
def test_fat_tree_plan_by_hand():
    one = fat_tree_plan(64, links_per_gpu=18, radix=64)
    assert (one.tiers, one.chips, one.max_hops, one.switch_links) == (1, 18, 2, 0)
    two = fat_tree_plan(65, links_per_gpu=18, radix=64)  # 3 leaves of 32, 2 spines
    assert two.chips_per_plane == (3, 2) and two.chips == 90 and two.max_hops == 4
    assert two.switch_links == 18 * 3 * 32
    tapered = fat_tree_plan(256, links_per_gpu=18, radix=64, taper=2)  # 42 down, 21 up
    assert tapered.chips_per_plane == (7, 3)
    three = fat_tree_plan(4096, links_per_gpu=18, radix=64)  # 128 leaves, 4 pods of 32
    assert three.chips_per_plane == (128, 128, 64) and three.max_hops == 6
    assert three.chips_per_tier == (18 * 128, 18 * 128, 18 * 64)
    assert max_gpus(1, 64) == 64 and max_gpus(2, 64) == 2048 and max_gpus(3, 64) == 65536
    assert max_gpus(2, 64, taper=2) == 64 * 42
    with pytest.raises(ValueError, match="more than three tiers"):
        fat_tree_plan(70000, links_per_gpu=18, radix=64)
    with pytest.raises(ValueError, match="tiers"):
        max_gpus(4, 64)


def test_nvl72_is_one_tier_of_18_chips():
    plan = nvl72_plan()
    nvl = specs.system("gb200_nvl72")
    assert plan.tiers == 1 and plan.max_hops == 2
    assert plan.chips == nvl.switch_trays * nvl.nvswitch_chips_per_tray == 18
    assert plan.n_gpus == specs.nvswitch(4).ports  # 72 GPUs = one 72-port chip per plane
    # the same 72 GPUs with the H100 generation's 64-port chips need a second tier
    assert fat_tree_plan(72, links_per_gpu=18, radix=specs.nvswitch(3).ports).tiers == 2


def test_growth_table_grows_tiers_hops_and_chips():
    rows = growth_table((64, 256, 4096))
    assert [r["tiers"] for r in rows] == [1, 2, 3]
    assert [r["max_hops"] for r in rows] == [2, 4, 6]
    assert rows[0]["chips_per_gpu"] < rows[2]["chips_per_gpu"]
    assert rows[0]["switch_links_per_gpu"] == 0 < rows[1]["switch_links_per_gpu"]
