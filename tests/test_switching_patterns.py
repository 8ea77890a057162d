"""Traffic patterns, fabric variants, flow statistics, and the HOL-blocking Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.schedule import validate
from nvlearn.switching.patterns import (
    PATTERNS,
    FlowStats,
    all_to_all,
    build_fabric,
    default_taper,
    experiment,
    from_matrix,
    hol_limit,
    hol_saturation_throughput,
    incast,
    measure,
    neighbour_shift,
    pair_rate_rows,
    pattern,
    permutation,
    run_traffic,
    shift,
    traffic_matrix,
)
from nvlearn.topology import LINK_NVLINK_NETWORK, single_switch

NV4 = specs.nvlink(4)
NIC = specs.nic("connectx7")


# ------------------------------------------------------------------ patterns
@pytest.mark.parametrize("name", PATTERNS)
def test_every_pattern_is_a_valid_schedule_of_concurrent_flows(name):
    s = pattern(name, 16, 8e6, seed=3)
    validate(s)
    assert s.algorithm == name and s.dep_op.size == 0
    m = traffic_matrix(s)
    assert np.all(np.diag(m) == 0)
    senders = m.sum(axis=1) > 0
    assert m.sum(axis=1)[senders] == pytest.approx(8e6)  # every sender sends n_bytes


def test_pattern_shapes():
    p = 12
    perm = traffic_matrix(permutation(p, 1.0, seed=1))
    assert (np.count_nonzero(perm, axis=1) == 1).all()
    assert (np.count_nonzero(perm, axis=0) == 1).all()
    assert not np.array_equal(perm, traffic_matrix(permutation(p, 1.0, seed=2)))
    a2a = traffic_matrix(all_to_all(p, 11.0))
    assert np.count_nonzero(a2a) == p * (p - 1) and a2a[0, 1] == pytest.approx(1.0)
    inc = traffic_matrix(incast(p, 1.0, receiver=5))
    assert np.count_nonzero(inc) == p - 1 and inc[:, 5].sum() == p - 1
    rng_ = traffic_matrix(neighbour_shift(p, 1.0))
    assert all(rng_[r, (r + 1) % p] == 1.0 for r in range(p))
    assert traffic_matrix(shift(p, 1.0, 4))[0, 4] == 1.0
    assert permutation(2, 1.0).op_dst.tolist() == [1, 0]  # the only derangement of 2


@pytest.mark.parametrize(("call", "words"), [
    (lambda: permutation(1, 1e6), ">= 2"),
    (lambda: permutation(4, -1.0), "positive"),
    (lambda: permutation(4, 1e6, perm=[0, 0, 1, 2]), "exactly once"),
    (lambda: permutation(3, 1e6, perm=[0, 1, 2]), "nothing would move"),
    (lambda: shift(4, 1e6, 8), "multiple"),
    (lambda: incast(4, 1e6, receiver=4), "receiver"),
    (lambda: pattern("broadcast", 4, 1e6), "unknown traffic pattern"),
    (lambda: from_matrix(np.zeros((2, 3))), "square"),
    (lambda: all_to_all(4, "lots"), "number of bytes"),
])
def test_bad_pattern_arguments(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# ------------------------------------------------------------------ fabrics
def test_build_fabric_tapers():
    pod = build_fabric("nvlink_pod", 2)
    assert default_taper("nvlink_pod") == specs.system("nvlink_switch_system").taper
    up = pod.link_kind == LINK_NVLINK_NETWORK
    flat = build_fabric("nvlink_pod", 2, 1.0)
    assert flat.link_capacity[up] == pytest.approx(2 * pod.link_capacity[up])
    assert build_fabric("nvlink_pod", 2, 4.0).link_capacity[up] == pytest.approx(
        pod.link_capacity[up] / 2)
    assert build_fabric("nvlink_pod", 2) is pod  # cached
    assert "2:1" in build_fabric("ib_cluster", 2, 2.0).name
    with pytest.raises(ValueError, match=">= 1"):
        build_fabric("ib_cluster", 2, 0.5)
    with pytest.raises(ValueError, match="unknown fabric"):
        build_fabric("torus", 2)


# ------------------------------------------------------------------ measurements
def test_measure_on_a_single_switch_is_exact():
    topo = single_switch(4, bw_per_dir=100e9)
    st = measure(topo, incast(4, 1e9))
    # three senders share the receiver's 100 GB/s: all finish at 3 GB / 100 GB/s
    assert st.fct == pytest.approx([0.03] * 3) and st.makespan == pytest.approx(0.03)
    assert st.hottest_link == "switch -> gpu0" and st.hottest_utilisation == pytest.approx(1.0)
    assert st.flow_rate == pytest.approx([1e9 / 0.03] * 3)
    assert st.policy == "adaptive" and st.pattern == "incast"


def test_pod_and_ib_cluster_rates_match_the_catalogue():
    n = 1e9
    # every GPU of node 0 sends to its twin in node 1: the pod's 2:1 taper halves the rate
    pod = run_traffic("nvlink_pod", "permutation", nodes=2, n_bytes=n, seed=0)
    shift_pod = measure(build_fabric("nvlink_pod", 2), shift(16, n, 8))
    cross = NV4.gpu_bw_per_dir / specs.system("nvlink_switch_system").taper
    lat = shift_pod.fct.min() - n / cross
    assert shift_pod.fct - lat == pytest.approx(np.full(16, n / cross), rel=1e-9)
    assert 0 < lat < 1e-5 and pod.fct.size == 16
    ib = measure(build_fabric("ib_cluster", 2), shift(16, n, 8))
    assert ib.fct.max() == pytest.approx(n / NIC.port_bw_per_dir, rel=1e-3)


def test_static_never_beats_adaptive_on_a_permutation_and_hurts_its_tail():
    for kind in ("nvlink_pod", "ib_cluster"):
        a = experiment(kind, "permutation", "adaptive", runs=3, nodes=4, n_bytes=1e8)
        s = experiment(kind, "permutation", "static", runs=3, nodes=4, n_bytes=1e8)
        assert a.runs == s.runs == 3 and a.fct.size == 3 * 32
        assert s.p99 > 1.5 * a.p99 and s.makespan >= a.makespan * (1 - 1e-9)


def test_incast_is_set_by_the_receiver_whatever_the_routing():
    n = 1e8
    a = run_traffic("ib_cluster", "incast", "adaptive", nodes=2, n_bytes=n)
    s = run_traffic("ib_cluster", "incast", "static", nodes=2, n_bytes=n)
    # 8 cross-node senders squeeze through the receiver's one NIC
    assert a.makespan == pytest.approx(8 * n / NIC.port_bw_per_dir, rel=1e-3)
    assert s.makespan == pytest.approx(a.makespan, rel=1e-3)


def test_flowstats_pooling_and_repr():
    one = measure(single_switch(3, 1e9), neighbour_shift(3, 1e9))
    two = FlowStats.pooled([one, one])
    assert two.fct.size == 6 and two.runs == 2 and two.p99 == pytest.approx(one.p99)
    assert "ring on" in repr(one) and "p99" in repr(one)
    with pytest.raises(ValueError, match="nothing to pool"):
        FlowStats.pooled([])
    with pytest.raises(ValueError, match="runs"):
        experiment("nvlink_pod", "ring", "adaptive", runs=0, nodes=1)


# ------------------------------------------------------------------ HOL blocking
def test_fifo_switch_matches_the_known_saturation_throughputs():
    # N = 2 by hand: heads clash half the time, so 0.5 * 2 + 0.5 * 1 cells per 2 ports
    assert hol_saturation_throughput(2, slots=200_000, seed=1) == pytest.approx(0.75, abs=0.005)
    assert hol_saturation_throughput(1, slots=100) == 1.0
    # Karol et al. (1987): 0.6184 for N = 8, -> 2 - sqrt(2) for large N
    assert hol_saturation_throughput(8, slots=100_000) == pytest.approx(0.6184, abs=0.005)
    big = hol_saturation_throughput(64, slots=20_000)
    assert hol_limit() == pytest.approx(2 - math.sqrt(2))
    assert big == pytest.approx(hol_limit(), abs=0.01)
    with pytest.raises(ValueError, match="n_ports"):
        hol_saturation_throughput(0)


def test_pair_rates_show_why_nvlink_needs_every_path():
    rows = {r["case"]: r for r in pair_rate_rows()}
    link = NV4.link_bw_per_dir
    dgx = rows["DGX H100: GPU 0 -> GPU 1"]
    assert dgx["adaptive"] == pytest.approx(NV4.gpu_bw_per_dir, rel=1e-3)  # all 18 links
    assert dgx["static"] / link in (pytest.approx(4, rel=1e-3), pytest.approx(5, rel=1e-3))
    pod = rows["pod: GPU -> GPU in another node"]
    assert pod["adaptive"] == pytest.approx(NV4.gpu_bw_per_dir, rel=1e-3)
    assert pod["static"] == pytest.approx(2 * link, rel=1e-3)  # one 2-link L1-L2 bundle
    busy = rows["pod: all 8 GPUs -> another node"]
    assert busy["adaptive"] == pytest.approx(NV4.gpu_bw_per_dir / 2, rel=1e-3)  # the taper
    ib = rows["IB: GPU -> GPU in another node"]
    assert ib["adaptive"] == ib["static"] == pytest.approx(NIC.port_bw_per_dir, rel=1e-3)
