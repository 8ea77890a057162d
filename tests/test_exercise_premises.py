"""Every exercise whose answer is a rate or a time is physically possible: its reference
answer is held to the traffic bound (or link rate) of the hardware it is about."""

from __future__ import annotations

import pytest

from nvlearn import specs, units
from nvlearn.check import nb00, nb01, nb02, nb03, nb04
from nvlearn.check.core import recording_references
from nvlearn.collectives.volume import nvls_allreduce_bytes_per_rank, ring_allreduce_bytes_per_rank
from nvlearn.sgd.steptime import grad_bytes

NV4 = specs.nvlink(4)
WIRE_GPU = NV4.gpu_bw_per_dir                 # 450 GB/s per direction per H100


def _reference(check) -> float:
    """The reference answer (SI) the check compares with."""
    with recording_references() as refs:
        check(None)
    (value, unit), = refs
    return units.to_si(value, unit)


def test_node_network_at_most_its_nics():
    """Both directions added: at most twice the NICs' per-direction rate."""
    dgx = specs.system("dgx_h100")
    assert _reference(nb00.node_network_bw) <= 2 * dgx.nics * specs.nic(dgx.nic).port_bw_per_dir


def test_pod_cross_node_share_at_most_a_gpus_links():
    assert 0 < _reference(nb00.pod_cross_node_bw_per_gpu) <= WIRE_GPU


def test_idle_energy_at_least_one_gradient_through_a_nodes_nics():
    """70B on 4,096 IB GPUs: for every element each node sends at least one value (its part or
    the sum), so a step's all-reduce takes at least the gradient over the node's NICs."""
    dgx = specs.system("dgx_h100")
    t_min = grad_bytes(70e9) / (dgx.nics * specs.nic(dgx.nic).port_bw_per_dir)
    joules = t_min * 4096 * specs.gpu("h100").board_power * (1e12 / 2**22)
    assert _reference(nb01.idle_energy_mwh) >= joules * (1 - 1e-9)


def test_compute_time_at_least_flops_over_peak():
    flops = 6 * 13e9 * 8192
    assert _reference(nb01.compute_seconds) >= flops / specs.gpu("b200").bf16_dense_flops


def test_nvlink5_payload_below_its_raw_rate():
    nv5 = specs.nvlink(5)
    raw = nv5.lane_rate_raw * nv5.lanes_per_direction * nv5.links_per_gpu
    with recording_references() as refs:
        nb02.payload_function(lambda *args: 0.0)
    (value, unit), = refs
    assert units.to_si(value, unit) < raw                                # both bytes/s


def test_codeword_time_at_least_its_bits_over_the_raw_rate():
    nv5 = specs.nvlink(5)
    assert _reference(nb02.nvlink5_codeword_ns) >= 5440 / 8 / (nv5.lane_rate_raw * 2) * (1 - 1e-9)


def test_incast_time_at_least_the_receivers_links():
    pod = specs.system("nvlink_switch_system")
    bound = (pod.gpus - 1) * 2**30 / WIRE_GPU
    assert _reference(nb03.incast_time_ms) >= bound * (1 - 1e-9)


def test_colliding_flows_below_a_gpus_links():
    assert 0 < _reference(nb03.colliding_pod_flows_gbs) <= WIRE_GPU


def test_lower_bound_is_the_ring_bound():
    bound = ring_allreduce_bytes_per_rank(4, 3 * 2**30) / WIRE_GPU
    assert _reference(nb04.lower_bound_ms) == pytest.approx(bound, rel=1e-9)


def test_nvls_busbw_below_the_in_switch_traffic_bound():
    """busbw of an NVLS all-reduce may pass the wire (450) but never 2(p-1)/(p+1) x it."""
    n = 4 * 2**30
    fastest = nvls_allreduce_bytes_per_rank(8, n) / WIRE_GPU        # n (1 + 1/p) each way
    assert _reference(nb04.nvls_busbw_gbs) <= 2 * 7 / 8 * n / fastest


def test_ring_ll_latency_at_least_the_wire_hops():
    steps, hops_per_step = 2 * (4 - 1), 2          # p = 4: GPU -> NVSwitch -> GPU per step
    wire = steps * hops_per_step * specs.latency("nvlink_hop")
    assert _reference(nb04.ring_ll_latency_us) >= wire
