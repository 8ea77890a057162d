"""The simulator against closed forms on one switch, and its event semantics."""

from __future__ import annotations

import numpy as np
import pytest
from test_sim_standins import DEP_ARRIVAL, DEP_SENT, Explicit, Ops, Star, ring_allreduce_ops

from nvlearn.sim import simulate

B = 100e9  # bytes/s per direction of every GPU link
RTOL = 1e-9


def close(value, reference, rtol=RTOL):
    return abs(value - reference) <= rtol * abs(reference)


# ---------------------------------------------------------------- closed forms


@pytest.mark.parametrize("n_bytes", [1.0, 1e6, 3e9])
@pytest.mark.parametrize("alpha", [0.0, 1.5e-6])
def test_one_flow_takes_bytes_over_bandwidth_plus_latency(n_bytes, alpha):
    ops = Ops(n_ranks=2)
    ops.add(0, 1, n_bytes)
    res = simulate(Star(2, B, alpha / 2), ops, model="wire")
    assert close(res.op_sent[0], n_bytes / B)
    assert close(res.time, n_bytes / B + alpha)


@pytest.mark.parametrize("k", [2, 3, 7])
def test_k_flows_into_one_gpu_share_its_link(k):
    ops = Ops(n_ranks=k + 1)
    for src in range(1, k + 1):
        ops.add(src, 0, 1e6)
    res = simulate(Star(k + 1, B), ops, model="wire")
    # each gets B/k, so all end together at k * bytes / B
    np.testing.assert_allclose(res.op_sent, k * 1e6 / B, rtol=RTOL)
    assert res.n_batches == 2  # one rate computation at the start, one at the end


@pytest.mark.parametrize("p", [2, 3, 5, 8])
@pytest.mark.parametrize("n", [1e3, 1e6, 2**30])
@pytest.mark.parametrize("alpha", [0.0, 3e-6])
def test_ring_allreduce_matches_the_textbook_cost(p, n, alpha):
    res = simulate(Star(p, B, alpha / 2), ring_allreduce_ops(p, n), model="wire")
    assert close(res.time, 2 * (p - 1) * (alpha + n / (p * B)))


@pytest.mark.parametrize("p", [2, 4, 7])
@pytest.mark.parametrize("chunks", [2, 3, 8])
@pytest.mark.parametrize("alpha", [0.0, 1e-6, 1e-4])
def test_pipelined_ring_matches_its_closed_form(p, chunks, alpha):
    n = 8e6
    K, s = 2 * (p - 1), n / (p * chunks * B)
    expected = (K - 1) * max(alpha + s, chunks * s) + chunks * s + alpha
    res = simulate(Star(p, B, alpha / 2), ring_allreduce_ops(p, n, chunks), model="wire")
    assert close(res.time, expected)


def test_lockstep_ring_is_processed_in_few_batches():
    p = 16
    res = simulate(Star(p, B, 1e-6), ring_allreduce_ops(p, 1e8), model="wire")
    # all ranks start and end each step together: one batch per step start / step end
    assert res.n_batches <= 2 * 2 * (p - 1)
    assert res.n_events == 2 * res.n_ops


# ---------------------------------------------------------------- event semantics


def test_dep_sent_waits_for_the_transfer_not_the_arrival():
    ops = Ops(n_ranks=3)
    first = ops.add(0, 1, 1e6)
    after_sent = ops.add(0, 2, 1e6, [(first, DEP_SENT)])
    after_arrival = ops.add(0, 2, 1e6, [(first, DEP_ARRIVAL)])
    res = simulate(Star(3, B, 5e-6), ops, model="wire")
    assert res.op_start[after_sent] == res.op_sent[first]
    assert res.op_start[after_arrival] == res.op_end[first]
    assert res.op_end[first] - res.op_sent[first] == pytest.approx(10e-6)


def test_delay_is_added_after_the_op_is_ready():
    ops = Ops(n_ranks=2)
    a = ops.add(0, 1, 1e6)
    b = ops.add(1, 0, 1e6, [(a, DEP_ARRIVAL)], delay=2e-6)
    res = simulate(Star(2, B), ops, model="wire")
    assert res.op_ready[b] == res.op_end[a]
    assert res.op_start[b] == pytest.approx(res.op_end[a] + 2e-6, rel=1e-12)


def test_an_op_to_itself_takes_no_time():
    ops = Ops(n_ranks=2)
    local = ops.add(1, 1, 5e9)
    ops.add(1, 0, 1e6, [(local, DEP_ARRIVAL)])
    res = simulate(Star(2, B, 1e-6), ops, model="wire")
    assert res.op_start[local] == res.op_end[local] == 0.0
    assert close(res.time, 1e6 / B + 2e-6)
    assert res.link_bytes.sum() == 2e6


def test_a_late_flow_slows_the_first_only_while_they_overlap():
    # flow a: 2 MB alone at B for 10 us, then shares with b (1 MB, starts at 10 us)
    ops = Ops(n_ranks=3)
    a = ops.add(1, 0, 2e6)
    b = ops.add(2, 0, 1e6, delay=10e-6)
    res = simulate(Star(3, B), ops, model="wire")
    # at 10 us a has 1 MB left; both then run at B/2 and end together at 30 us
    assert close(res.op_sent[a], 30e-6)
    assert close(res.op_sent[b], 30e-6)


def test_multipath_route_is_one_flow_limited_by_its_tightest_share():
    # one flow split 3:1 over two links of 30 and 20 B/s: the 1/4 share is not the limit,
    # the 3/4 share on 30 B/s is (rate 40 B/s); a later hop carries all of it (cap 100)
    topo = Explicit(2, [30.0, 20.0, 100.0], {(0, 1): [(0, 0.75), (1, 0.25), (2, 1.0)]})
    ops = Ops(n_ranks=2)
    ops.add(0, 1, 80.0)
    res = simulate(topo, ops, model="wire")
    assert close(res.time, 2.0)
    np.testing.assert_allclose(res.link_bytes, [60.0, 20.0, 80.0])


# ---------------------------------------------------------------- accounting


def test_link_and_rank_accounting_of_a_ring():
    p, n = 4, 4e6
    res = simulate(Star(p, B), ring_allreduce_ops(p, n), model="wire")
    per_rank = 2 * (p - 1) / p * n
    np.testing.assert_allclose(res.link_bytes, per_rank)
    np.testing.assert_allclose(res.rank_bytes_sent, per_rank)
    np.testing.assert_allclose(res.rank_bytes_received, per_rank)
    np.testing.assert_allclose(res.link_busy_time, res.time, rtol=RTOL)
    np.testing.assert_allclose(res.rank_send_busy_time, res.time, rtol=RTOL)
    np.testing.assert_allclose(res.link_utilisation, 1.0, rtol=RTOL)


def test_timeline_adds_up_to_the_link_bytes_and_stays_within_capacity():
    p = 6
    ops = ring_allreduce_ops(p, 3e7, chunks=3)
    topo = Star(p, B, 2e-6)
    for bins in (2, 16, 256):
        res = simulate(topo, ops, timeline_bins=bins, model="wire")
        tl = res.timeline
        assert tl.link_bytes.shape == (topo.n_links, bins)
        np.testing.assert_allclose(tl.link_bytes.sum(axis=1), res.link_bytes, rtol=1e-9)
        assert tl.link_utilisation().max() <= 1 + 1e-9
        # the run fills between half and all of the bins
        assert res.time <= bins * tl.bin_width < 2 * res.time + tl.bin_width
        assert tl.op_bytes.sum() == pytest.approx(ops.op_bytes.sum(), rel=1e-9)
        busy_op_seconds = np.sum(res.op_sent - res.op_start)
        assert tl.active_ops.sum() * tl.bin_width == pytest.approx(busy_op_seconds, rel=1e-9)


def test_no_ops_means_no_time():
    res = simulate(Star(2, B), Ops(n_ranks=2), model="wire")
    assert res.time == 0.0 and res.n_events == 0
