"""Stragglers and faults (nvlearn.straggle): closed forms against Monte Carlo and simulation."""

import math

import numpy as np
import pytest

from nvlearn.collectives import allreduce
from nvlearn.schedule import validate
from nvlearn.sgd import SoftmaxRegression, load_digits, train
from nvlearn.sim import simulate
from nvlearn.straggle import (
    Normal,
    ShiftedExponential,
    expected_max_normal,
    harmonic,
    idle_cost,
    link_ids,
    monte_carlo_max,
    plane_links,
    rail_links,
    run_fault,
    train_local_sgd,
    train_stale,
    with_rank_delay,
)
from nvlearn.topology import dgx_h100, ib_cluster, single_switch

# --- order statistics -------------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2, 8, 64, 1024])
def test_expected_max_exponential_is_harmonic_vs_monte_carlo(p):
    d = ShiftedExponential(1.0, 0.05)
    m = monte_carlo_max(d, p, 20000, seed=p)
    se = m.std() / math.sqrt(m.size)
    assert abs(m.mean() - d.expected_max(p)) < 4 * se


def test_harmonic_brute_force_and_log_growth():
    assert harmonic(0) == 0.0
    assert harmonic(3) == pytest.approx(1 + 1 / 2 + 1 / 3)
    assert harmonic(8192) - math.log(8192) == pytest.approx(0.5772156649, abs=1e-4)


@pytest.mark.parametrize("k,p", [(1, 5), (3, 8), (60, 64), (64, 64)])
def test_kth_order_statistic_vs_sorted_draws(k, p):
    d = ShiftedExponential(0.0, 1.0)
    rng = np.random.default_rng(k + p)
    x = np.sort(d.sample((40000, p), rng), axis=1)[:, k - 1]
    assert abs(x.mean() - d.expected_kth(k, p)) < 4 * x.std() / math.sqrt(x.size)


@pytest.mark.parametrize("p", [1, 16, 512])
def test_max_quantile_vs_monte_carlo(p):
    d = ShiftedExponential(0.5, 0.1)
    m = monte_carlo_max(d, p, 40000, seed=3)
    q = d.max_quantile(0.99, p)
    assert np.mean(m <= q) == pytest.approx(0.99, abs=0.003)


def test_normal_max_exact_small_p_and_asymptotic():
    n = Normal(0.0, 1.0)
    assert n.expected_max(1) == pytest.approx(0.0, abs=1e-9)
    assert n.expected_max(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-6)
    assert n.expected_max(3) == pytest.approx(1.5 / math.sqrt(math.pi), rel=1e-6)
    m = monte_carlo_max(n, 256, 20000, seed=1)
    assert abs(m.mean() - n.expected_max(256)) < 4 * m.std() / math.sqrt(m.size)
    # the leading-order form over-estimates, and less so (relatively) as p grows
    ratios = [expected_max_normal(p) / n.expected_max(p) for p in (16, 256, 8192, 2**20)]
    assert all(r > 1 for r in ratios) and np.all(np.diff(ratios) < 0)


def test_idle_cost_by_hand():
    d = ShiftedExponential(1.0, 0.02)
    c = idle_cost(d, 256, steps=1e5)
    per_step = 256 * 0.02 * (harmonic(256) - 1)
    assert c.idle_gpu_seconds_per_step == pytest.approx(per_step)
    assert c.idle_gpu_hours == pytest.approx(per_step * 1e5 / 3600)
    assert c.idle_energy_kwh == pytest.approx(per_step * 1e5 * 700 / 3.6e6)


def test_jitter_bad_input():
    with pytest.raises(ValueError):
        ShiftedExponential(1.0, 0.0)
    with pytest.raises(ValueError):
        ShiftedExponential(1.0, 1.0).expected_kth(5, 4)


# --- faults ------------------------------------------------------------------------------

def test_link_finders():
    t = dgx_h100()
    (lk,) = link_ids(t, "gpu3", "nvswitch0")
    assert (t.node_name[t.link_src[lk]], t.node_name[t.link_dst[lk]]) == ("gpu3", "nvswitch0")
    assert plane_links(t, 0).size == 2 * t.n_gpus
    assert rail_links(ib_cluster(2), 7).size == 8
    with pytest.raises(ValueError):
        link_ids(t, "gpu3", "gpu4")


@pytest.mark.parametrize("algorithm", ["ring", "double_binary_tree", "nccl_tree", "nvls"])
def test_rank_delay_is_valid_and_never_costs_more_than_the_delay(algorithm):
    topo = single_switch(4, bw_per_dir=100e9, latency=1e-6)
    s = allreduce(topo, 64e6, algorithm, chunks=2)   # chunks=1 rings keep no send order
    late = with_rank_delay(s, 1, 0.0)
    validate(late)
    base = simulate(topo, s, model="wire").time
    assert simulate(topo, late, model="wire").time == pytest.approx(base, rel=1e-9)
    t = simulate(topo, with_rank_delay(s, 1, 1e-3), model="wire").time
    assert base < t <= base + 1e-3 * (1 + 1e-9)
    if algorithm != "nccl_tree":
        # rank 1 is needed from the first step on: its delay adds in full. NCCL's tree on
        # one switch is the chain p-1 -> ... -> 0 (reduce towards rank 0): rank 1 is needed
        # only once the first pieces have come down the chain to it.
        assert t == pytest.approx(base + 1e-3, rel=1e-6)


def test_no_op_of_the_late_rank_starts_early():
    topo = dgx_h100()
    s = with_rank_delay(allreduce(topo, 2**24, "ring", chunks=4), 5, 3e-4)
    r = simulate(topo, s)
    touch = (s.op_src == 5) | (s.op_dst == 5)
    assert r.op_start[touch].min() >= 3e-4


def test_half_rate_link_doubles_the_ring_wire_and_achievable():
    for model in ("wire", "achievable"):
        run = run_fault(dgx_h100(), "ring", 2**28, "slow_link", factor=0.5, model=model)
        assert run.slowdown == pytest.approx(2.0, rel=0.01)


def test_adaptive_routing_bound():
    # GPU 3's 18 links at 450 GB/s lose half of plane 0's 125: 450 / 387.5
    run = run_fault(dgx_h100(), "ring", 2**28, "slow_link", routing="adaptive", model="wire")
    assert run.slowdown == pytest.approx(450 / 387.5, rel=0.01)


@pytest.mark.parametrize("plane,links", [(0, 13), (1, 14)])
@pytest.mark.parametrize("algorithm", ["ring", "nvls"])
def test_failed_plane_closed_form(plane, links, algorithm):
    run = run_fault(dgx_h100(), algorithm, 2**30, "failed_plane", plane=plane, model="wire")
    assert run.slowdown == pytest.approx(18 / links, rel=0.01)
    assert np.all(run.result.link_bytes[run.faulty_links] == 0)


@pytest.mark.parametrize("algorithm", ["ring", "nccl_tree"])
def test_lost_rail_rebuilt_on_seven_channels(algorithm):
    run = run_fault(ib_cluster(2), algorithm, 2**30, "lost_rail", model="wire")
    assert run.slowdown == pytest.approx(8 / 7, rel=0.02)
    assert np.all(run.result.link_bytes[run.faulty_links] == 0)


def test_lost_rail_stops_what_cannot_be_rebuilt():
    ib = ib_cluster(2)
    hier = run_fault(ib, "hierarchical", 2**26, "lost_rail")
    assert hier.result is None and math.isinf(hier.slowdown)


def test_run_fault_bad_input():
    with pytest.raises(ValueError):
        run_fault(dgx_h100(), "ring", 1e6, "meteor")
    with pytest.raises(ValueError):
        run_fault(dgx_h100(), "hierarchical", 1e6)
    with pytest.raises(ValueError):
        run_fault(dgx_h100(), "ring", 1e6, "slow_link", factor=0.0)


# --- local and stale SGD -----------------------------------------------------------------

@pytest.fixture(scope="module")
def digits():
    return load_digits().split(0.25, seed=0)


def test_local_sgd_h1_equals_synchronous(digits):
    tr, te = digits
    m = SoftmaxRegression(64, 10)
    a = train_local_sgd(m, tr, n_workers=8, batch_size=64, epochs=2, sync_every=1, test_set=te)
    b = train(m, tr, n_workers=8, batch_size=64, epochs=2, test_set=te)
    np.testing.assert_allclose(a.w, b.w, rtol=0, atol=1e-12)
    assert a.n_allreduce == a.n_steps


def test_local_sgd_h_syncs_h_times_less_and_stale_zero_is_sync(digits):
    tr, _ = digits
    m = SoftmaxRegression(64, 10)
    a = train_local_sgd(m, tr, n_workers=8, epochs=1, sync_every=8)
    assert a.n_allreduce == math.ceil(a.n_steps / 8)
    s = train_stale(m, tr, n_workers=8, epochs=2, staleness=0)
    b = train(m, tr, n_workers=8, epochs=2)
    assert np.array_equal(s.w, b.w)


def test_local_sgd_one_worker_is_plain_sgd(digits):
    tr, _ = digits
    m = SoftmaxRegression(64, 10)
    a = train_local_sgd(m, tr, n_workers=1, epochs=1, sync_every=5)
    b = train(m, tr, n_workers=1, epochs=1)
    np.testing.assert_allclose(a.w, b.w, rtol=0, atol=1e-12)
