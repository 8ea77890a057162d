"""Parallelism strategies: byte counts, memory and step time against the literature."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import collectives, sim, specs, tuner
from nvlearn.parallelism import (
    Layout,
    Transformer,
    activation_terms,
    bubble_fraction,
    bytes_by_strategy,
    collective_time,
    dp_volume_elements,
    group_fabric,
    layer_activation_bytes,
    memory_per_gpu,
    micro_batches,
    pair_traffic,
    preset,
    step_comms,
    step_time,
    topology,
    zero_state_bytes,
)
from nvlearn.switching.patterns import from_matrix

# Narayanan et al. 2021, Table 1: (preset, published parameter count in billions)
PUBLISHED = [("gpt_18b", 18.4), ("gpt_39b", 39.1), ("gpt_76b", 76.1), ("gpt_146b", 145.6)]


@pytest.mark.parametrize(("key", "billions"), PUBLISHED)
def test_params_match_megatron_table1(key, billions):
    m = preset(key)
    assert round(m.n_params / 1e9, 1) == billions
    n_l, h, V, s = m.layers, m.hidden, m.vocab, m.seq
    closed = 12 * n_l * h**2 * (1 + 13 / (12 * h) + (V + s) / (12 * n_l * h))
    assert m.n_params == pytest.approx(closed, rel=1e-12)


def test_zero_figure1():
    # ZeRO paper Figure 1: Psi = 7.5 B, N_d = 64, K = 12
    got = [sum(zero_state_bytes(7.5e9, z, 64)) / 1e9 for z in (0, 1, 2, 3)]
    assert np.round(got, 1).tolist() == [120.0, 31.4, 16.6, 1.9]


@pytest.mark.parametrize("t", [1, 2, 8])
def test_activations_korthikanti_table2(t):
    m = preset("gpt_39b")
    s, b, h, a = m.seq, m.micro_batch, m.hidden, m.heads
    sbh = s * b * h
    assert layer_activation_bytes(m) == pytest.approx(sbh * (34 + 5 * a * s / h))
    assert layer_activation_bytes(m, t) == pytest.approx(
        sbh * (10 + 24 / t + 5 * a * s / (h * t)))
    assert layer_activation_bytes(m, t, sp=True) == pytest.approx(
        sbh / t * (34 + 5 * a * s / h))
    assert layer_activation_bytes(m, t, recompute="selective") == pytest.approx(
        sbh * (10 + 24 / t))
    assert layer_activation_bytes(m, t, sp=True, recompute="selective") == pytest.approx(
        sbh * 34 / t)
    assert layer_activation_bytes(m, t, recompute="full") == 2 * sbh


def test_activation_terms_sum_tensor_by_tensor():
    # brute force: Korthikanti et al. section 4.1, each stored tensor (bytes, 16-bit values)
    m = Transformer("x", 2, 512, 8, 256, 1536, 1000, 2, 8)
    s, b, h, a, f = m.seq, m.micro_batch, m.hidden, m.heads, m.ffn
    attention = [2 * s * b * h, 4 * s * b * h, 2 * a * s * s * b, a * s * s * b,
                 2 * a * s * s * b, 2 * s * b * h, 2 * s * b * h, s * b * h]
    mlp = [2 * s * b * h, 2 * s * b * f, 2 * s * b * f, s * b * h]
    norms = [2 * s * b * h, 2 * s * b * h]
    assert sum(activation_terms(m).values()) == sum(attention + mlp + norms)


def test_tp_two_allreduces_per_layer_each_way():
    m = preset("gpt_76b")
    lay = Layout(tp=8, pp=4, dp=8, sp=False)
    tp = [c for c in step_comms(m, lay) if c.strategy == "tp"]
    assert len(tp) == 1 and tp[0].collective == "allreduce"
    mb = micro_batches(m, lay)
    assert tp[0].count == 4 * (m.layers // 4) * mb
    assert tp[0].size == m.micro_batch * m.seq * m.hidden * 2


def test_sequence_parallel_same_bytes_as_allreduce():
    m = preset("gpt_39b")
    plain = bytes_by_strategy(step_comms(m, Layout(tp=8, pp=2, dp=16, sp=False)))["tp"]
    sp = step_comms(m, Layout(tp=8, pp=2, dp=16, sp=True))
    kinds = sorted(c.collective for c in sp if c.strategy == "tp")
    assert kinds == ["allgather", "reduce_scatter"]
    assert bytes_by_strategy(sp)["tp"] == pytest.approx(plain)


def test_zero3_moves_one_and_a_half_times_dp():
    # one micro-batch per step, as in the ZeRO paper's accounting
    m = preset("gpt_18b").with_(global_batch=16)
    dp = bytes_by_strategy(step_comms(m, Layout(tp=1, pp=1, dp=16, zero=0)))["dp"]
    z1 = bytes_by_strategy(step_comms(m, Layout(tp=1, pp=1, dp=16, zero=1)))["dp"]
    z3 = bytes_by_strategy(step_comms(m, Layout(tp=1, pp=1, dp=16, zero=3)))["dp"]
    assert z1 == pytest.approx(dp)
    assert z3 / dp == pytest.approx(1.5)
    assert dp_volume_elements(1.0, 3) / dp_volume_elements(1.0, 1) == 1.5
    # 2 Psi in ring terms: 2 (n-1)/n x 2 bytes x Psi
    psi = m.n_params
    assert dp == pytest.approx(2 * 15 / 16 * 2 * psi)


@pytest.mark.parametrize(("p", "m"), [(1, 4), (2, 1), (4, 8), (8, 3)])
def test_bubble_fraction_brute_force(p, m):
    # GPipe forward sweep on unit-time stages: stage i runs micro-batch j at slot i + j
    busy = np.zeros((p, m + p - 1), dtype=bool)
    for i in range(p):
        busy[i, i:i + m] = True
    assert bubble_fraction(p, m) == pytest.approx(1 - busy.mean())


def test_moe_alltoall_bytes_uniform_brute_force():
    m = preset("moe_8x39b")
    lay = Layout(tp=1, pp=1, dp=8, ep=8, sp=False)
    lay_m = m.with_(global_batch=8)
    ep = [c for c in step_comms(lay_m, lay) if c.strategy == "ep"][0]
    rng = np.random.default_rng(0)
    tokens = m.micro_batch * m.seq
    dest = rng.integers(0, 8, size=(tokens * m.top_k, 200))
    leaving = (dest != 0).sum(axis=0).mean() * m.hidden * m.bytes_per_value
    assert ep.bytes_per_call == pytest.approx(leaving, rel=0.01)


def test_pair_traffic_rows_sum_to_bytes_per_gpu():
    m = preset("gpt_39b")
    lay = Layout(tp=4, pp=2, dp=4)
    b = bytes_by_strategy(step_comms(m, lay))
    for s in ("tp", "dp"):
        M = pair_traffic(m, lay, s)
        assert np.allclose(M.sum(axis=1), b[s])
    M = pair_traffic(m, lay, "pp")
    pp = [c for c in step_comms(m, lay) if c.strategy == "pp"][0]
    assert M.sum() == pytest.approx(lay.tp * lay.dp * pp.count * pp.size)


@pytest.mark.parametrize("s", ["tp", "pp", "dp", "ep"])
def test_groups_partition_the_gpus(s):
    lay = Layout(tp=4, pp=2, dp=8, ep=2)
    g = lay.groups(s)
    assert sorted(g.ravel().tolist()) == list(range(lay.n_gpus))


def test_memory_rule_refuses_76b_on_one_box():
    mem = memory_per_gpu(preset("gpt_76b"), Layout(tp=8, pp=1, dp=1))
    assert not mem.fits and "does not fit" in mem.refusal()
    assert mem.capacity == specs.gpu("h100").hbm_capacity


def test_in_box_time_is_the_tuners():
    t = collective_time("allreduce", 42e6, "nvlink_pod", 256, 8, 8)
    ref = tuner.choose("allreduce", 42e6, tuner.fabric_from_topology(topology("nvlink_pod", 256),
                                                                     n_ranks=8)).time
    assert t == ref


def test_group_fabric_shares_the_box_ports():
    pod = group_fabric("nvlink_pod", 256, 32, 1)
    nccl_link = specs.nccl().nvlink_bw(90)
    assert pod.bw_inter == pytest.approx(72 * nccl_link / 8)
    ib = group_fabric("ib_cluster", 256, 32, 2)
    assert ib.bw_inter == pytest.approx(2 * specs.nic("connectx7").port_bw_per_dir)


@pytest.mark.parametrize(("build", "fabric"), [(lambda: topology("dgx_h100", 8), "dgx_h100"),
                                               (lambda: topology("nvlink_pod", 16), "nvlink_pod"),
                                               (lambda: topology("ib_cluster", 16), "ib_cluster")])
def test_alltoall_model_agrees_with_simulator(build, fabric):
    topo = build()
    p = topo.n_gpus
    t_sim = sim.simulate(topo, collectives.alltoall(p, 64e6)).time
    assert collective_time("alltoall", 64e6, fabric, p, p, 8) == pytest.approx(t_sim, rel=0.05)


@pytest.mark.parametrize("fabric", ["nvlink_pod", "ib_cluster"])
def test_sendrecv_model_agrees_with_simulator(fabric):
    # a whole stage (8 GPUs of box 0) sends to the next stage (box 1) at once
    topo, n, k = topology(fabric, 16), 64e6, 16
    blocks = np.zeros((k, k))
    blocks[np.arange(8), np.arange(8) + 8] = n          # GPU i of box 0 -> GPU i of box 1
    s = from_matrix(blocks, "stage to stage")
    t_sim = sim.simulate(topo, s).time
    assert collective_time("sendrecv", n, fabric, 16, 2, 1) == pytest.approx(t_sim, rel=0.05)


def test_step_split_and_bubble():
    m = preset("gpt_76b")
    st = step_time(m, Layout(tp=8, pp=4, dp=8), "nvlink_pod")
    assert st.total == pytest.approx(sum(st.split().values()))
    assert st.exposed_comm == pytest.approx(sum(st.comm_by_strategy.values()))
    pipeline = st.total - st.comm_by_strategy["dp"]
    assert st.bubble / pipeline == pytest.approx(bubble_fraction(4, st.micro_batches))


def test_step_compute_is_six_n_t():
    m = preset("gpt_39b")
    st = step_time(m, Layout(tp=8, pp=2, dp=16), "ib_cluster", mfu=0.4)
    flops = 6 * m.n_params * m.global_batch * m.seq
    assert st.compute == pytest.approx(flops / (256 * 0.4 * specs.gpu("h100").bf16_dense_flops))


def test_bad_inputs():
    with pytest.raises(ValueError, match="ep"):
        Layout(tp=1, pp=1, dp=6, ep=4)
    with pytest.raises(ValueError, match="DGX H100 has"):
        step_time(preset("gpt_18b"), Layout(tp=8, pp=1, dp=2), "dgx_h100")
    with pytest.raises(ValueError, match="unknown model"):
        preset("gpt_1t")
