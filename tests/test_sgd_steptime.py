"""Step-time model: compute, all-reduce stages (simulated / closed form), overlap, scaling,
idle cost — each against a hand calculation from the catalogue."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import collectives, sim, specs
from nvlearn import topology as T
from nvlearn.sgd import comm
from nvlearn.sgd.comm import allreduce_time, ring_closed_form
from nvlearn.sgd.cost import idle_cost
from nvlearn.sgd.steptime import (
    DDP_BUCKET_BYTES,
    SCALING_GPUS,
    bucket_schedule,
    compute_time,
    scaling,
    step_time,
)

N_BYTES = 14e9  # a 7B-parameter bf16 gradient


def _nvlink_alpha():
    """GPU -> NVSwitch -> GPU: one hop up, one traversal + hop down."""
    return 2 * specs.latency("nvlink_hop") + specs.latency("nvswitch_traversal")


def _ib_leaf_alpha():
    """GPU -> PCIe switch -> NIC -> leaf -> NIC -> PCIe switch -> GPU (same rail, same leaf)."""
    return (2 * specs.latency("pcie_switch_hop") + 2 * specs.latency("nic")
            + specs.latency("ib_switch_hop"))


def test_compute_time_hand_calculation():
    peak = specs.gpu("h100").bf16_dense_flops
    assert compute_time(7e9, 16384, mfu=0.4) == pytest.approx(6 * 7e9 * 16384 / (peak * 0.4))


def test_one_dgx_allreduce_hand_calculation():
    bw = specs.nvlink(4).gpu_bw_per_dir
    est = allreduce_time("nvlink_pod", 8, N_BYTES, model="wire")
    hand = 14 * (_nvlink_alpha() + N_BYTES / (8 * bw))
    assert est.method == "simulated"
    assert est.time == pytest.approx(hand, rel=1e-9)
    assert allreduce_time("ib_cluster", 8, N_BYTES, model="wire").time == pytest.approx(
        hand, rel=1e-9)


def test_two_node_ib_composition_hand_calculation():
    bw_nv = specs.nvlink(4).gpu_bw_per_dir
    bw_nic = specs.nic("connectx7").port_bw_per_dir
    est = allreduce_time("ib_cluster", 16, N_BYTES, model="wire")
    rs = 7 * (_nvlink_alpha() + N_BYTES / (8 * bw_nv))
    across = 2 * (_ib_leaf_alpha() + (N_BYTES / 8) / (2 * bw_nic))
    lat = 14 * _nvlink_alpha() + 2 * _ib_leaf_alpha()
    assert [s.time for s in est.stages] == pytest.approx([rs, across, rs], rel=1e-9)
    assert est.sequential_time == pytest.approx(2 * rs + across, rel=1e-9)
    # pipelined: latencies add, the NVLink part (RS + AG) and the NIC part overlap
    bw_part = max(2 * (rs - 7 * _nvlink_alpha()), across - 2 * _ib_leaf_alpha())
    assert est.time == pytest.approx(lat + bw_part, rel=1e-9)


def test_pods_of_pods_composition_hand_calculation():
    n, pods = 8192, 32
    bw_nv = specs.nvlink(4).gpu_bw_per_dir
    bw_nic = specs.nic("connectx7").port_bw_per_dir
    spine_alpha = _ib_leaf_alpha() + 2 * specs.latency("ib_switch_hop")
    assert comm.ib_rail_route() == pytest.approx((bw_nic, spine_alpha), rel=1e-12)
    est = allreduce_time("nvlink_pod", n, N_BYTES, model="wire")
    rs, across, ag = est.stages
    assert rs.method == "closed form (routes)" and across.method == "closed form (IB spine route)"
    assert across.n_ranks == pods and across.n_bytes == pytest.approx(N_BYTES / 256)
    hand_across = 2 * (pods - 1) * (spine_alpha + N_BYTES / 256 / (pods * bw_nic))
    assert across.time == pytest.approx(hand_across, rel=1e-9)
    # the 256-GPU ring inside a pod: bandwidth part 255 steps x n / (256 B)
    assert rs.bandwidth_term == pytest.approx(255 * N_BYTES / (256 * bw_nv), rel=1e-9)
    assert est.time == pytest.approx(
        rs.latency_term + ag.latency_term + across.latency_term
        + max(rs.bandwidth_term + ag.bandwidth_term, across.bandwidth_term), rel=1e-12)


def test_a_built_three_tier_rail_ring_counts_its_leaf_and_spine_edges():
    """8,192 GPUs on InfiniBand: the across-node ring runs on the built three-tier cluster
    (1,024 nodes; rail 0 puts 32 nodes on a leaf). A chunk's path of K = 2 x 1023 edges
    crosses a spine on every 32nd edge, at most 64 times; the rest stay on a leaf. The
    spine-route form (every edge through a spine, used where nothing is built) is the same
    bandwidth part and a larger latency part."""
    est = allreduce_time("ib_cluster", 8192, N_BYTES, model="wire")
    across = est.stages[1]
    assert across.method == "closed form (routes)" and across.n_ranks == 1024
    leaf = _ib_leaf_alpha()
    spine = leaf + 2 * specs.latency("ib_switch_hop")
    assert comm.ib_rail_route()[1] == pytest.approx(spine, rel=1e-12)
    assert across.latency_term == pytest.approx(64 * spine + (2046 - 64) * leaf, rel=1e-12)
    spine_time, _, _, spine_lat = comm._ib_stage("allreduce", 1024, N_BYTES / 8)
    assert across.bandwidth_term == pytest.approx(spine_time - spine_lat, rel=1e-12)
    assert spine_lat == pytest.approx(2046 * spine, rel=1e-12)


@pytest.mark.parametrize(
    "kind,count,n_ranks",
    [("nvlink_pod", 2, 16), ("nvlink_pod", 8, 64), ("ib_cluster", 4, 4), ("pcie_box", 0, 8),
     ("dgx_h100", 0, 5)],
)
@pytest.mark.parametrize("collective", ["allreduce", "reduce_scatter"])
def test_closed_form_reproduces_the_simulator(kind, count, n_ranks, collective):
    topo = comm._topology(kind, count)
    bw, lat = comm._ring_edges(kind, count, n_ranks)
    builder = getattr(collectives, collective)
    res = sim.simulate(topo, builder(n_ranks, 3e8), ranks=comm._ring_gpus(kind, count, n_ranks),
                       model="wire")
    closed, _ = ring_closed_form(collective, n_ranks, 3e8, bw, np.array(lat))
    assert closed == pytest.approx(res.time, rel=1e-9)


def test_ring_closed_form_matches_collectives_ring_time_for_one_latency():
    t, lat = ring_closed_form("allreduce", 12, 5e8, 200e9, 2e-6)
    assert t == pytest.approx(collectives.ring_time("allreduce", 12, 5e8, 200e9, 2e-6))
    assert lat == pytest.approx(22 * 2e-6)


def test_step_without_overlap_is_compute_plus_allreduce():
    st = step_time(7e9, 64, "ib_cluster", global_batch_tokens=2**22, mfu=0.5)
    assert st.compute == pytest.approx(compute_time(7e9, 2**22 / 64, mfu=0.5))
    assert st.step == pytest.approx(st.compute + allreduce_time("ib_cluster", 64, 14e9).time)
    assert st.efficiency == pytest.approx(st.compute / st.step)


def test_bucket_schedule_hand_example():
    # 3 s compute (1 forward, 2 backward), 5 bytes in buckets of 2 (2, 2, 1), 0.9 s per bucket
    tl = bucket_schedule(1.0, 2.0, 5.0, 2.0, lambda b: 0.9)
    assert tl.bucket_bytes.tolist() == [2.0, 2.0, 1.0]
    np.testing.assert_allclose(tl.bucket_ready, [1.8, 2.6, 3.0])
    np.testing.assert_allclose(tl.comm_start, [1.8, 2.7, 3.6])
    np.testing.assert_allclose(tl.comm_end, [2.7, 3.6, 4.5])
    assert tl.end == pytest.approx(4.5)
    np.testing.assert_allclose(tl.comm_intervals(), [[1.8, 4.5]])


def test_overlap_hides_communication_when_backward_is_long():
    st = step_time(7e9, 16, "nvlink_pod", overlap=True)
    last = allreduce_time("nvlink_pod", 16, st.timeline.bucket_bytes[-1]).time
    assert st.exposed_comm == pytest.approx(last, rel=1e-9)   # only the last bucket sticks out
    assert st.timeline.bucket_bytes.sum() == pytest.approx(14e9)
    assert st.timeline.bucket_bytes[0] == DDP_BUCKET_BYTES


@pytest.mark.parametrize("fabric", ["pcie_box", "ib_cluster", "nvlink_pod"])
@pytest.mark.parametrize("overlap", [False, True])
def test_scaling_efficiency_is_monotone(fabric, overlap):
    eff = [s.efficiency for s in scaling(7e9, fabric, SCALING_GPUS, overlap=overlap)]
    assert all(0 < e <= 1 for e in eff)
    assert all(b <= a * (1 + 1e-12) for a, b in zip(eff, eff[1:], strict=False))


def test_idle_cost_hand_calculation():
    st = step_time(70e9, 1024, "ib_cluster")
    c = idle_cost(st, token_budget=1e12)
    power = specs.gpu("h100").board_power
    steps = 1e12 / 2**22
    assert c.idle_gpu_hours == pytest.approx(steps * 1024 * st.exposed_comm / 3600)
    assert c.idle_energy_kwh == pytest.approx(c.idle_gpu_hours * power / 1000)
    assert c.idle_fraction == pytest.approx(st.exposed_comm / st.step)


def test_bad_input_messages():
    with pytest.raises(ValueError, match="unknown fabric 'ethernet'"):
        allreduce_time("ethernet", 8, 1e9)
    with pytest.raises(ValueError, match="unknown fabric"):
        step_time(7e9, 8, "nvlink")
    with pytest.raises(ValueError, match="multiple of 8"):
        allreduce_time("ib_cluster", 12, 1e9)
    with pytest.raises(ValueError, match="multiple of 256"):
        allreduce_time("nvlink_pod", 384, 1e9)
    with pytest.raises(ValueError, match="positive integer"):
        step_time(7e9, 0, "ib_cluster")
    with pytest.raises(ValueError, match="smaller than n_gpus"):
        step_time(7e9, 64, "ib_cluster", global_batch_tokens=32)
    with pytest.raises(ValueError, match="mfu"):
        compute_time(7e9, 1e4, mfu=1.5)
    with pytest.raises(ValueError, match="n_bytes"):
        allreduce_time("ib_cluster", 8, -1.0)
    with pytest.raises(ValueError, match="token_budget"):
        idle_cost(step_time(7e9, 8, "ib_cluster"), token_budget=0)


def test_topologies_are_the_builders():
    assert comm._topology("nvlink_pod", 2).n_gpus == T.nvlink_pod(2).n_gpus
    assert comm._topology("ib_cluster", 4).n_gpus == T.ib_cluster(4).n_gpus
