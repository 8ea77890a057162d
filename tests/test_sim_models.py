"""The simulator's two models: the achievable one agrees with NCCL's tuner where NCCL's model
is exact, and both obey the physical bounds (traffic, latency floor, wire >= achievable)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nvlearn import collectives, specs, tuner
from nvlearn.schedule import DEP_ARRIVAL
from nvlearn.sim import models as sm
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, ib_cluster, nvlink_pod, single_switch

GB, US = 1e9, 1e-6
SIZES = 2.0 ** np.arange(2, 34, 3)          # 4 B .. 4 GiB


@pytest.fixture(scope="module")
def dgx():
    return dgx_h100()


# ------------------------------------------------------------------ the achievable model


def test_wire_and_achievable_are_the_only_models(dgx):
    with pytest.raises(ValueError, match="achievable.*wire"):
        simulate(dgx, collectives.allreduce(dgx, 1e6), model="ideal")
    with pytest.raises(ValueError, match="protocol applies to model='achievable'"):
        simulate(dgx, collectives.allreduce(dgx, 1e6), model="wire", protocol="ll")
    with pytest.raises(ValueError, match="only with the Simple protocol"):
        simulate(dgx, collectives.allreduce(dgx, 1e6, "nvls"), protocol="ll")


def test_default_is_achievable_and_results_say_which_model(dgx):
    s = collectives.allreduce(dgx, 2**30)
    ach, wire = simulate(dgx, s), simulate(dgx, s, model="wire")
    assert ach.model == "achievable" and wire.model == "wire"
    assert ach.model_label == "achievable (NCCL ring/Simple)" and wire.model_label == "wire"
    assert "achievable" in repr(ach) and "model: wire" in wire.summary()
    assert wire.model_detail is None and "NVLink x0.824" in str(ach.model_detail)


def test_nvlink_runs_at_nccls_per_link_rate(dgx):
    """18 NVLinks x 20.6 GB/s (SM90_NVLINK_BW) instead of 18 x 25 GB/s."""
    res = simulate(dgx, collectives.allreduce(dgx, 2**20), protocol="simple")
    gpu0_out = np.asarray(dgx.link_src) == dgx.gpus[0]
    assert res.link_capacity[gpu0_out].sum() == pytest.approx(18 * 20.6 * GB)
    ll = simulate(dgx, collectives.allreduce(dgx, 2**20), protocol="ll")
    assert ll.link_capacity[gpu0_out].sum() == pytest.approx(141 * GB)      # llMaxBws
    ll128 = simulate(dgx, collectives.allreduce(dgx, 2**20), protocol="ll128")
    assert ll128.link_capacity[gpu0_out].sum() == pytest.approx(18 * 20.6 * GB * 120 / 128)


def test_net_and_pcie_fractions_follow_nccl():
    m = specs.nccl()
    f = sm.kind_fractions(ib_cluster(2))
    from nvlearn.topology import LINK_IB, LINK_PCIE

    assert f[LINK_IB] == m.net_port_fraction == 1.0          # net.bw = port speed
    assert f[LINK_PCIE] == pytest.approx(12e9 / (8e9 * 16 * 128 / 130 / 8))   # PCI_BW/Gen3


def test_cached_model_constants_are_copies_and_a_link_factor_still_applies(dgx):
    """The achievable model's per-fabric constants are computed once (a small simulate()
    spent a third of its set-up on them): what a caller gets is its own copy, the same as
    the uncached computation, and a degraded link is still seen."""
    from nvlearn.topology import LINK_NVLINK

    f = sm.kind_fractions(dgx, "ll", "ring")
    assert f == sm.kind_fractions(dgx, "ll", "ring", specs.nccl())   # the uncached path
    f[LINK_NVLINK] = 0.0
    assert sm.kind_fractions(dgx, "ll", "ring")[LINK_NVLINK] > 0.4
    base, step = sm.software_latency("ll", "ring")
    step["nvlink"] = 1.0
    assert sm.software_latency("ll", "ring")[1]["nvlink"] < 1e-5
    healthy, _ = sm.achievable_capacity(dgx, dgx.link_capacity, "simple", "ring", 8)
    slow = np.array(dgx.link_capacity, dtype=float)
    slow[0] *= 0.25
    degraded, _ = sm.achievable_capacity(dgx, slow, "simple", "ring", 8)
    assert degraded[0] == pytest.approx(healthy[0] / 4) and np.array_equal(degraded[1:],
                                                                           healthy[1:])
    pick = sm.nccl_protocol(dgx, "allreduce", 8, 2**10, "ring")
    assert pick == sm.nccl_protocol(dgx, "allreduce", 8, 2**10, "ring") == (
        "ll", "NCCL's tuner: Ring/LL for 1 KiB")
    assert sm.nccl_protocol(dgx, "allreduce", 8, 2**30, "ring")[0] == "simple"


def test_four_byte_allreduce_costs_what_nccl_says(dgx):
    """8 GPUs, 4 bytes: Ring/LL 6.6 + 14 x 0.6 = 15 us (not the wire's few us)."""
    res = simulate(dgx, collectives.allreduce(dgx, 4))
    assert res.model_detail.protocol == "ll"
    assert res.time == pytest.approx(15.0 * US, rel=1e-4)          # + 4 B at 80.6 GB/s
    assert simulate(dgx, collectives.allreduce(dgx, 4), model="wire").time < 10 * US


def test_nvls_loses_small_messages_and_wins_large_ones(dgx):
    small, large = 4.0, 2.0**30
    ring = tuner.simulate_allreduce(dgx, "ring", small)
    nvls = tuner.simulate_allreduce(dgx, "nvls", small)
    assert nvls.time == pytest.approx(25 * US, rel=1e-5)          # NCCL's NVLS latency
    assert ring.time < nvls.time
    lp = tuner.link_params(dgx)
    c = tuner.best_chunks("nvls", lp, large, model="achievable")
    assert tuner.simulate_allreduce(dgx, "nvls", large, c).time < \
        tuner.simulate_allreduce(dgx, "ring", large).time


@pytest.mark.parametrize("n", SIZES)
def test_ring_equals_nccls_prediction_exactly(dgx, n):
    """NCCL: base + 2(p-1) hwLat + n / algBw; the simulator, one slot per step, the same."""
    t = tuner.tune("allreduce", dgx)
    res = tuner.simulate_allreduce(dgx, "ring", n)
    assert res.time == pytest.approx(float(t.algorithm_times("ring", [n])[0]), rel=1e-9)
    ring_rows = [c for c in t.enabled if c.algorithm == "ring"]
    best_ring = min(ring_rows, key=lambda c: float(c.time(n)))
    assert res.model_detail.protocol == best_ring.protocol


def test_uncontended_switch_agrees_with_the_tuner_within_5_percent(dgx):
    """Every NCCL algorithm the tuner prices on one node, 4 B .. 8 GiB, at the pipeline
    depth the achievable closed form picks (ring: one slot per step)."""
    t = tuner.tune("allreduce", dgx)
    sizes = 2.0 ** np.arange(2, 34)
    rows = {"ring": "ring", "nccl_tree": "tree", "nvls": "nvls"}     # schedule -> NCCL
    assert tuner.BUILDERS == {v: k for k, v in rows.items()} | {"nvls_tree": "hierarchical"}
    sw = tuner.simulated_sweep(dgx, sizes, list(rows))
    for algo, row in rows.items():
        ratio = sw.row(algo) / t.algorithm_times(row, sizes)
        assert np.all(np.abs(ratio - 1) < 0.05), (algo, ratio.round(3))


def test_simulated_crossover_is_where_the_tuner_switches(dgx):
    sizes = 2.0 ** np.arange(10, 34, 0.25)
    sw = tuner.simulated_sweep(dgx, sizes, ["ring", "nvls"])
    ((at, frm, to),) = sw.crossovers()
    (x,) = tuner.tune("allreduce", dgx).crossovers()
    assert (frm, to) == ("ring", "nvls")
    assert at == pytest.approx(x.n_bytes, rel=0.1)


def test_nvls_busbw_stays_below_its_traffic_bound(dgx):
    lp = tuner.link_params(dgx)
    n = 2.0**33
    c = tuner.best_chunks("nvls", lp, n, model="achievable")
    res = tuner.simulate_allreduce(dgx, "nvls", n, c)
    bound = tuner.nvls_traffic_bound(8, 8, 18 * 20.6 * GB * 0.85)
    assert 0.9 * bound < res.busbw <= bound * (1 + 1e-9)
    table = tuner.tune("allreduce", dgx)
    nvls = next(c for c in table.enabled if c.algorithm == "nvls")
    assert nvls.bus_bw == pytest.approx(bound)
    assert nvls.bus_bw < nvls.nccl_bus_bw


# ------------------------------------------------------------------ invariants, both models

FABRICS = {
    "dgx": dgx_h100,
    "switch": lambda: single_switch(6, 200e9, 0.3e-6),
    "ib": lambda: ib_cluster(2),
    "pod": lambda: nvlink_pod(2),
}
CASES = [("allreduce", a) for a in ("ring", "binary_tree", "double_binary_tree", "nccl_tree",
                                    "recursive_doubling", "rabenseifner", "nvls",
                                    "hierarchical")] + [
    ("allgather", "ring"), ("reduce_scatter", "ring"), ("allgather", "nvls"),
    ("reduce_scatter", "nvls"), ("alltoall", "direct"), ("broadcast", "ring")]


def _build(fabric, collective, algorithm, n, chunks):
    topo = FABRICS[fabric]()
    if algorithm == "nvls" and fabric in ("ib", "pod"):
        return topo, None
    if algorithm == "hierarchical" and fabric not in ("ib", "pod"):
        return topo, None
    build = getattr(collectives, collective)
    if collective == "alltoall":
        return topo, build(topo, n, algorithm)
    return topo, build(topo, n, algorithm, chunks=chunks)


def _latency_floor(res, delays) -> float:
    """Longest chain of latencies and delays with infinitely fast links."""
    s = res.schedule
    lat = res.path_latency[res.op_path]
    start = np.full(s.n_ops, np.nan)
    arrive = np.full(s.n_ops, np.nan)
    order = np.argsort(res.op_ready, kind="stable")     # a valid topological order
    for i in order:
        lo, hi = s.dep_indptr[i], s.dep_indptr[i + 1]
        deps, kinds = s.dep_op[lo:hi], s.dep_kind[lo:hi]
        ready = max([arrive[j] if k == DEP_ARRIVAL else start[j]
                     for j, k in zip(deps, kinds, strict=True)], default=0.0)
        start[i] = ready + delays[i]
        arrive[i] = start[i] + lat[i]
    return float(arrive.max())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabric=st.sampled_from(sorted(FABRICS)), case=st.sampled_from(CASES),
       log_n=st.floats(0, 31), chunks=st.integers(1, 6))
def test_physical_bounds_hold_in_both_models(fabric, case, log_n, chunks):
    topo, sched = _build(fabric, *case, 2.0**log_n, chunks)
    if sched is None:
        return
    runs = {m: simulate(topo, sched, model=m) for m in sm.MODELS}
    for model, res in runs.items():
        # traffic bound at the modelled link rates: no GPU sends or receives faster than
        # its links allow (busbw <= the algorithm's bound follows, per rank)
        gpus = res.participant_node[: sched.n_ranks]
        out_cap = np.bincount(res.topology.link_src, weights=res.link_capacity,
                              minlength=res.topology.n_nodes)[gpus]
        in_cap = np.bincount(res.topology.link_dst, weights=res.link_capacity,
                             minlength=res.topology.n_nodes)[gpus]
        r = slice(0, sched.n_ranks)
        assert res.time >= np.max(res.rank_bytes_sent[r] / out_cap) * (1 - 1e-9), model
        assert res.time >= np.max(res.rank_bytes_received[r] / in_cap) * (1 - 1e-9), model
        # latency floor: the longest chain of (software) latencies and start delays
        delays = np.array(sched.op_delay, dtype=float)
        if res.model_detail is not None:
            delays[np.diff(sched.dep_indptr) == 0] += res.model_detail.base_latency
        assert res.time >= _latency_floor(res, delays) * (1 - 1e-9), model
    assert runs["achievable"].time >= runs["wire"].time * (1 - 1e-9)
