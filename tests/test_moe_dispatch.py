"""Traffic matrices, ragged all-to-all Schedules, simulated times, the closed form, dedup."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn.moe import (
    alltoall_time_formula,
    dedup_rows,
    dispatch_rows,
    gate,
    gpu_dedup_rows,
    padded_rows,
    ragged_alltoall,
    relay_gpu,
    route,
    simulate_moe,
    stage_rows,
    traffic_matrix,
)
from nvlearn.schedule import validate
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, ib_cluster, nvlink_pod, single_switch

B = 100e9  # bytes/s per direction
LAT = 0.5e-6


def uniform_routing(p: int, experts_per_gpu: int, tokens: int, k: int, gpn: int = 8):
    """Every GPU sends exactly tokens*k/p rows to every GPU (crafted one-hot scores)."""
    e = p * experts_per_gpu
    scores = np.zeros((p, tokens, e), dtype=np.float32)
    t = np.arange(tokens)
    for j in range(k):  # choice j of token t: expert (t * k + j) mod e, strictly ordered
        scores[:, t, (t * k + j) % e] = 10.0 - j
    return gate(scores, k, gpus_per_node=gpn)


def test_dispatch_rows_count_kept_assignments():
    r = route(8, 100, 16, 2, skew=1.0, capacity_factor=1.0, seed=0)
    rows = dispatch_rows(r)
    assert rows.sum() == r.kept.sum()
    per_gpu = r.expert_load().reshape(8, 2).sum(axis=1)
    assert np.array_equal(rows.sum(axis=0), per_gpu)  # column = what a GPU's experts get


def test_traffic_matrix_bytes_and_modes():
    r = route(8, 64, 16, 2, capacity_factor=1.25, seed=0)
    m = traffic_matrix(r, hidden=1024, bytes_per_elem=1)
    assert np.array_equal(m, dispatch_rows(r) * 1024.0)
    pad = traffic_matrix(r, 1024, 2, mode="padded")
    assert np.all(pad == r.capacity * r.experts_per_gpu * 2048.0)
    with pytest.raises(ValueError, match="unknown mode"):
        traffic_matrix(r, 1024, mode="mesh")
    with pytest.raises(ValueError, match="hidden"):
        traffic_matrix(r, 0)
    with pytest.raises(ValueError, match="needs a capacity"):
        padded_rows(route(8, 64, 16, 2))


def test_ragged_schedule_has_chunks_only_for_nonempty_blocks():
    blocks = np.array([[5.0, 0.0, 2.0], [1.0, 0.0, 0.0], [0.0, 3.0, 4.0]])
    s = ragged_alltoall(blocks)
    assert s.n_chunks == 5 and s.n_ops == 3
    assert sorted(s.op_bytes.tolist()) == [1.0, 2.0, 3.0]
    assert s.n_bytes == blocks.sum()
    validate(s)
    with pytest.raises(ValueError, match="no bytes"):
        ragged_alltoall(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="square"):
        ragged_alltoall(np.ones((2, 3)))


@pytest.mark.parametrize("p, epg, k", [(4, 1, 1), (8, 2, 2), (16, 1, 4)])
def test_uniform_routing_matches_the_alltoall_formula(p, epg, k):
    tokens, hidden, b = 64 * p, 512, 2.0
    r = uniform_routing(p, epg, tokens, k, gpn=p)
    rows = dispatch_rows(r)
    assert np.all(rows == tokens * k // p)  # truly uniform
    res = simulate_moe(single_switch(p, B, LAT), r, hidden, model="wire")
    n = tokens * k * hidden * b  # a GPU's whole send buffer, own block included
    expect = alltoall_time_formula(p, n, B, 2 * LAT)
    assert res.dispatch_time == pytest.approx(expect, rel=1e-9)
    assert res.combine_time == pytest.approx(expect, rel=1e-9)


def test_hottest_gpu_sets_the_time():
    r = route(8, 512, 16, 2, skew=1.5, seed=0)
    res = simulate_moe(single_switch(8, B, LAT), r, 1024, model="wire")
    rows = dispatch_rows(r)
    off = rows - np.diag(np.diag(rows))
    hot_recv = off.sum(axis=0).max() * 2048
    hot_send = off.sum(axis=1).max() * 2048
    bound = max(hot_recv, hot_send) / B
    assert res.dispatch_time >= bound
    assert res.dispatch_time == pytest.approx(bound + 2 * LAT, rel=0.05)
    hot = int(np.argmax(off.sum(axis=0)))
    assert res.limiting_link().label.endswith(f"gpu{hot}")
    assert np.allclose(res.recv_bytes, off.sum(axis=0) * 2048)


def test_padded_time_does_not_depend_on_skew_but_drops_do():
    topo = single_switch(8, B, LAT)
    a = route(8, 256, 16, 2, skew=0.0, capacity_factor=1.0, seed=0)
    b = route(8, 256, 16, 2, skew=1.5, capacity_factor=1.0, seed=0)
    ta = simulate_moe(topo, a, 256, mode="padded").time
    tb = simulate_moe(topo, b, 256, mode="padded").time
    assert ta == pytest.approx(tb, rel=1e-12)
    assert b.drop_fraction > a.drop_fraction


def test_relay_is_same_local_index_on_the_remote_node():
    r = route(24, 4, 24, 1)
    relay = relay_gpu(r)
    assert relay.shape == (24, 3)
    assert relay[3].tolist() == [3, 11, 19] and relay[13].tolist() == [5, 13, 21]


def test_dedup_rows_match_brute_force():
    r = route(16, 40, 32, 4, skew=0.5, capacity_factor=1.0, max_nodes=2, seed=2)
    s1, s2 = dedup_rows(r)
    expect1 = np.zeros((16, 16), dtype=int)
    expect2 = np.zeros((16, 16), dtype=int)
    for s in range(16):
        for t in range(40):
            nodes = set()
            for j in range(4):
                if not r.kept[s, t, j]:
                    continue
                d = int(r.dest_gpu[s, t, j])
                hop = s if d // 8 == s // 8 else (d // 8) * 8 + s % 8
                expect2[hop, d] += 1
                if hop != s:
                    nodes.add(hop)
            for hop in nodes:
                expect1[s, hop] += 1
    assert np.array_equal(s1, expect1) and np.array_equal(s2, expect2)
    flat = dispatch_rows(r)
    box = np.arange(16) // 8
    assert s1.sum() < flat[box[:, None] != box[None, :]].sum()  # dedup saves inter-node rows


def test_combine_stages_run_dispatch_backwards():
    r = route(16, 20, 16, 2, max_nodes=1, seed=0)
    st = stage_rows(r, "dedup")
    s1, s2 = dedup_rows(r)
    assert np.array_equal(st["combine"][0], s2.T) and np.array_equal(st["combine"][1], s1.T)


def test_simulate_checks_the_fabric():
    r = route(8, 16, 8, 1)
    with pytest.raises(ValueError, match="route for 16 GPUs"):
        simulate_moe(nvlink_pod(2), r, 64)
    with pytest.raises(ValueError, match="consecutive GPUs per node"):
        simulate_moe(nvlink_pod(2), route(16, 16, 16, 1, gpus_per_node=4), 64, mode="dedup")


def test_dedup_cuts_inter_node_bytes_and_time_on_infiniband():
    topo = ib_cluster(2)
    r = route(16, 256, 32, 4, skew=0.3, max_nodes=1, seed=0)
    flat = simulate_moe(topo, r, 2048, mode="flat")
    dedup = simulate_moe(topo, r, 2048, mode="dedup")
    assert len(dedup.dispatch) == 2 and len(flat.dispatch) == 1
    assert dedup.inter_node_bytes < flat.inter_node_bytes
    assert dedup.time < flat.time
    # the same (token, expert) rows reach the same GPUs either way
    assert dedup.recv_bytes.sum() >= flat.recv_bytes.sum()


def test_nvlink_beats_infiniband_across_nodes_and_box_is_fastest():
    r16 = route(16, 256, 32, 2, seed=0)
    pod = simulate_moe(nvlink_pod(2), r16, 2048).time
    ib = simulate_moe(ib_cluster(2), r16, 2048).time
    box = simulate_moe(dgx_h100(), route(8, 256, 16, 2, seed=0), 2048).time
    assert box < pod < ib


def test_inter_node_bytes_flat_counts_only_cross_node_pairs():
    r = route(16, 64, 16, 2, seed=1)
    res = simulate_moe(nvlink_pod(2), r, 128)
    m = traffic_matrix(r, 128)
    assert res.inter_node_bytes == pytest.approx(m[:8, 8:].sum() + m[8:, :8].sum())
    single = simulate(nvlink_pod(2), ragged_alltoall(m))  # simulate's default, as simulate_moe
    assert res.dispatch_time == pytest.approx(single.time, rel=1e-12)


# --- per-GPU de-duplication ----------------------------------------------------------------


def experts_on_one_gpu(p: int, tokens: int, k: int, experts_per_gpu: int, gpn: int = 8):
    """Token t of every GPU picks k experts, all on GPU t mod p (crafted one-hot scores)."""
    scores = np.zeros((p, tokens, p * experts_per_gpu), dtype=np.float32)
    for t in range(tokens):
        first = (t % p) * experts_per_gpu
        scores[:, t, first:first + k] = 10.0 - np.arange(k)
    return gate(scores, k, gpus_per_node=gpn)


@pytest.mark.parametrize("k", [2, 4])
def test_gpu_dedup_bytes_fall_by_exactly_k_when_a_tokens_experts_share_a_gpu(k):
    r = experts_on_one_gpu(8, 64, k, 4)
    assert np.all(r.dest_gpu == r.dest_gpu[:, :, :1])  # every token: k experts, one GPU
    flat = traffic_matrix(r, 1024, mode="flat")
    dedup = traffic_matrix(r, 1024, mode="gpu_dedup")
    assert np.array_equal(flat, k * dedup)
    topo = dgx_h100()
    a = simulate_moe(topo, r, 1024, mode="flat")
    b = simulate_moe(topo, r, 1024, mode="gpu_dedup")
    for phase in ("dispatch", "combine", "both"):
        ta, tb = a.gpu_traffic(phase), b.gpu_traffic(phase)
        assert np.allclose(ta.sent, k * tb.sent, rtol=1e-12)
        assert np.allclose(ta.received, k * tb.received, rtol=1e-12)
    assert b.inter_node_bytes * k == pytest.approx(a.inter_node_bytes, rel=1e-12)
    assert b.time < a.time


def test_gpu_dedup_rows_match_brute_force():
    r = route(16, 40, 64, 6, skew=0.7, capacity_factor=1.0, seed=4)
    expect = np.zeros((16, 16), dtype=int)
    for s in range(16):
        for t in range(40):
            gpus = {int(r.dest_gpu[s, t, j]) for j in range(6) if r.kept[s, t, j]}
            for d in gpus:
                expect[s, d] += 1
    rows = gpu_dedup_rows(r)
    assert np.array_equal(rows, expect)
    flat = dispatch_rows(r)
    assert np.all(rows <= flat) and rows.sum() < flat.sum()  # 4 experts per GPU: repeats
    assert np.all((rows > 0) == (flat > 0))  # the same GPU pairs talk
    st = stage_rows(r, "gpu_dedup")
    assert len(st["dispatch"]) == 1 and np.array_equal(st["dispatch"][0], rows)
    assert np.array_equal(st["combine"][0], rows.T)  # one reduced row per (token, GPU) back
    assert np.array_equal(traffic_matrix(r, 64, 1, mode="gpu_dedup"), rows * 64.0)


def test_gpu_dedup_equals_flat_when_no_gpu_repeats():
    r = route(8, 64, 8, 2, seed=0)  # one expert per GPU: k experts = k different GPUs
    assert np.array_equal(gpu_dedup_rows(r), dispatch_rows(r))


def test_per_gpu_bytes_and_rates_both_ways():
    r = route(8, 256, 32, 4, skew=1.0, seed=2)
    hidden, db, cb = 512, 1.0, 2.0  # DeepEP: fp8 dispatch, bf16 combine
    res = simulate_moe(single_switch(8, B, LAT), r, hidden, mode="gpu_dedup",
                       dispatch_bytes=db, combine_bytes=cb, model="wire")
    rows = gpu_dedup_rows(r)
    off = rows - np.diag(np.diag(rows))  # the own block stays on the GPU
    d, c = res.gpu_traffic("dispatch"), res.gpu_traffic("combine")
    assert np.allclose(d.sent, off.sum(axis=1) * hidden * db, rtol=1e-12)
    assert np.allclose(d.received, off.sum(axis=0) * hidden * db, rtol=1e-12)
    assert np.allclose(c.sent, off.sum(axis=0) * hidden * cb, rtol=1e-12)  # the way back
    assert np.allclose(c.received, off.sum(axis=1) * hidden * cb, rtol=1e-12)
    assert np.array_equal(res.send_bytes, d.sent) and np.array_equal(res.recv_bytes, d.received)
    assert d.time == res.dispatch_time and c.time == res.combine_time
    assert np.allclose(d.send_bw_per_dir, d.sent / res.dispatch_time, rtol=1e-12)
    assert np.allclose(c.recv_bw_per_dir, c.received / res.combine_time, rtol=1e-12)
    for t in (d, c):  # a GPU never sends or receives faster than its link, per direction
        assert t.send_bw_per_dir.max() <= B * (1 + 1e-9)
        assert t.recv_bw_per_dir.max() <= B * (1 + 1e-9)
    both = res.gpu_traffic("both")
    assert np.allclose(both.sent, d.sent + c.sent) and both.time == res.time
    with pytest.raises(ValueError, match="phase must be one of"):
        res.gpu_traffic("forward")
