"""simulate(): mapping ranks to GPUs, validation, degraded links, and the SimResult."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_sim_standins import DEP_ARRIVAL, Explicit, Ops, Star, ring_allreduce_ops

from nvlearn.sim import SimResult, simulate

B = 100e9


def two_flows():
    ops = Ops(n_ranks=4)
    ops.add(0, 1, 1e6)
    ops.add(2, 3, 1e6)
    return ops


# ---------------------------------------------------------------- degraded and dead links


def test_half_speed_link_slows_exactly_the_flows_crossing_it():
    topo = Star(4, B)
    healthy = simulate(topo, two_flows(), model="wire")
    slow = simulate(topo, two_flows(), link_factor={0: 0.5}, model="wire")  # link 0: gpu0 -> switch
    assert slow.op_sent[0] == pytest.approx(2 * healthy.op_sent[0], rel=1e-12)
    assert slow.op_sent[1] == healthy.op_sent[1]
    assert slow.link_capacity[0] == B / 2
    factors = np.ones(topo.n_links)
    factors[0] = 0.5
    again = simulate(topo, two_flows(), link_factor=factors, model="wire")
    np.testing.assert_array_equal(again.op_sent, slow.op_sent)


def test_zero_capacity_link_on_a_route_raises_and_names_it():
    with pytest.raises(ValueError, match=r"link 3 \(switch -> gpu1\)"):
        simulate(Star(4, B), two_flows(), link_factor={3: 0.0}, model="wire")


def test_cached_routes_are_checked_again_against_each_runs_capacity():
    """A real topology's routes are computed and checked once, then reused: a later run
    that zeroes a link they cross is still refused, and the achievable model's latency
    classes, kept with the routes, are those of the routes."""
    from nvlearn.collectives import allreduce
    from nvlearn.sim import models
    from nvlearn.topology import dgx_h100

    box, ring = dgx_h100(), allreduce(8, 1e6)
    first = simulate(box, ring)
    used = int(first.path_link[0])
    with pytest.raises(ValueError, match=rf"link {used} \(.*would never arrive"):
        simulate(box, ring, link_factor={used: 0.0})
    again = simulate(box, ring)
    assert again.path_indptr is first.path_indptr and again.time == first.time
    kinds = models.path_types(box, again.path_indptr, again.path_link)
    step = again.model_detail.step_latency
    wire = simulate(box, ring, model="wire")  # its routes' latencies: the wire's
    software = np.array([step[models.PATH_TYPES[k]] if k >= 0 else 0.0 for k in kinds])
    assert np.array_equal(again.path_latency, np.maximum(software, wire.path_latency))


def test_zero_capacity_link_nobody_uses_is_fine():
    # link 6, gpu3 -> switch, carries nothing
    res = simulate(Star(4, B), two_flows(), link_factor={6: 0.0}, model="wire")
    assert res.time > 0


def test_degraded_link_in_a_real_pod_with_static_and_adaptive_routing():
    from nvlearn.topology import dgx_h100, with_link_factor

    box = dgx_h100()
    ops = Ops(n_ranks=8)
    ops.add(0, 1, 1e8)
    healthy = simulate(box, ops, model="wire")
    # gpu0's first link to a switch chip at half speed: with static routing its share of
    # the traffic keeps its size and takes twice as long on that link
    link = int(healthy.path_link[0])
    share = healthy.path_frac[0]
    static = simulate(box, ops, link_factor={link: 0.5}, model="wire")
    assert static.time > healthy.time
    # routing that adapts to the slower link (with_link_factor) does at least as well
    adaptive = simulate(with_link_factor(box, [link], 0.5), ops, model="wire")
    assert adaptive.time <= static.time * (1 + 1e-12)
    assert 0 < share < 1


@pytest.mark.parametrize("factor", [{99: 0.5}, {0: -1.0}, np.ones(3), {0: np.nan}])
def test_bad_link_factors_raise(factor):
    with pytest.raises(ValueError, match="link"):
        simulate(Star(4, B), two_flows(), link_factor=factor, model="wire")


def test_malformed_routes_from_a_topology_raise():
    ops = Ops(n_ranks=2)
    ops.add(0, 1, 1e6)
    with pytest.raises(ValueError, match="gpu0 -> gpu1 puts fraction 0.0"):
        simulate(Explicit(2, [1e9, 1e9], {(0, 1): [(0, 1.0), (1, 0.0)]}), ops, model="wire")
    with pytest.raises(ValueError, match="gpu0 -> gpu1 has latency -1.0"):
        simulate(Explicit(2, [1e9], {(0, 1): [(0, 1.0)]}, latency=-1.0), ops, model="wire")
    with pytest.raises(ValueError, match="link id outside"):
        simulate(Explicit(2, [1e9], {(0, 1): [(5, 1.0)]}), ops, model="wire")


# ---------------------------------------------------------------- schedules that cannot run


def test_cyclic_dependencies_raise_instead_of_hanging():
    ops = Ops(n_ranks=2)
    ops.add(0, 1, 1e6, [(1, DEP_ARRIVAL)])
    ops.add(1, 0, 1e6, [(0, DEP_ARRIVAL)])
    ops.add(0, 1, 1e6)
    with pytest.raises(ValueError, match="2 ops never started.*cyclic"):
        simulate(Star(2, B), ops, model="wire")


def test_schedule_larger_than_the_fabric_raises():
    with pytest.raises(ValueError, match="has only 4 GPUs"):
        simulate(Star(4, B), ring_allreduce_ops(5, 1e6), model="wire")


@pytest.mark.parametrize(("ranks", "message"), [
    ([0, 1, 2], "one GPU index"),
    ([0, 1, 2, 9], "not a GPU"),
    ([0, 1, 1, 2], "different GPU"),
    ([0.0, 1.0, 2.0, 3.0], "one GPU index"),
])
def test_bad_rank_placement_raises(ranks, message):
    with pytest.raises(ValueError, match=message):
        simulate(Star(4, B), two_flows(), ranks=ranks, model="wire")


@pytest.mark.parametrize("bins", [0, 3, 2.0, True])
def test_bad_timeline_bins_raise(bins):
    with pytest.raises(ValueError, match="timeline_bins"):
        simulate(Star(4, B), two_flows(), timeline_bins=bins, model="wire")


def test_unknown_switch_participant_raises():
    ops = Ops(n_ranks=2, participant_role=("nvswitch:7",))
    ops.add(0, 2, 1e6)
    with pytest.raises(ValueError, match="'nvswitch:7' is not a node"):
        simulate(Star(2, B), ops, model="wire")


# ---------------------------------------------------------------- mapping


def test_ranks_place_the_schedule_on_chosen_gpus():
    res = simulate(Star(6, B), two_flows(), ranks=[5, 4, 3, 2], model="wire")
    assert res.participant_node.tolist() == [5, 4, 3, 2]
    # rank 0 -> rank 1 is gpu5 -> gpu4: links 10 (gpu5 -> switch) and 9 (switch -> gpu4)
    assert res.link_bytes[[10, 9, 6, 5]].tolist() == [1e6] * 4
    assert res.link_bytes.sum() == 4e6


def test_switch_participant_is_the_node_named_by_its_role():
    ops = Ops(n_ranks=2, participant_role=("switch",))
    ops.add(0, 2, 1e6)
    ops.add(2, 1, 1e6, [(0, DEP_ARRIVAL)])
    res = simulate(Star(2, B, 1e-6), ops, model="wire")
    assert res.participant_node.tolist() == [0, 1, 2]
    assert res.time == pytest.approx(2 * (1e6 / B + 1e-6), rel=1e-12)


def test_routes_are_computed_once_per_node_pair():
    res = simulate(Star(5, B), ring_allreduce_ops(5, 1e6, chunks=4), model="wire")
    assert res.path_indptr.size - 1 == 5
    assert res.op_path.size == res.n_ops


# ---------------------------------------------------------------- the result object


def test_result_is_frozen_and_read_only():
    res = simulate(Star(4, B), two_flows(), model="wire")
    assert isinstance(res, SimResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.time = 1.0
    with pytest.raises(ValueError):
        res.op_end[0] = 0.0


def test_nccl_metrics_with_real_collectives():
    from nvlearn.collectives import allgather, allreduce, alltoall
    from nvlearn.topology import single_switch

    p, n = 8, 1e8
    topo = single_switch(p, bw_per_dir=B)
    ar = simulate(topo, allreduce(p, n), model="wire")
    assert ar.algbw == pytest.approx(n / ar.time)
    assert ar.busbw == pytest.approx(B, rel=1e-9)  # a ring reaches the link rate
    ag = simulate(topo, allgather(p, n), model="wire")
    assert ag.busbw == pytest.approx(B, rel=1e-9)
    a2a = simulate(topo, alltoall(p, n), model="wire")
    assert a2a.busbw == pytest.approx(B, rel=1e-9)


def test_hottest_links_and_summary():
    ops = Ops(n_ranks=4, n_bytes=3e6)
    for src in (1, 2, 3):
        ops.add(src, 0, 1e6)
    res = simulate(Star(4, B, 1e-6), ops, model="wire")
    top = res.hottest_links(2)
    assert top[0].link == 1 and top[0].label == "switch -> gpu0"
    assert top[0].utilisation == pytest.approx(3e6 / (B * res.time))
    assert top[0].bytes == 3e6
    assert top[0].utilisation >= top[1].utilisation
    text = res.summary()
    for needle in ("time", "algbw", "busbw", "GB/s", "us", "switch -> gpu0", "utilisation"):
        assert needle in text
    assert "SimResult" in repr(res) and "busbw" in repr(res)


def test_heat_order_ignores_the_last_bits_of_a_tie():
    """Equal utilisations that differ by rounding rank by bytes, then index, on any machine."""
    from hypothesis import given
    from hypothesis import strategies as st

    from nvlearn.sim.result import heat_order

    @given(st.lists(st.sampled_from([0.25, 0.5, 0.865]), min_size=1, max_size=12),
           st.lists(st.integers(-4, 4), min_size=12, max_size=12), st.data())
    def check(levels, ulps, data):
        util = np.array(levels)
        nbytes = np.array(data.draw(st.lists(st.sampled_from([1e6, 2e6]), min_size=util.size,
                                             max_size=util.size)))
        noisy = util * (1 + np.array(ulps[: util.size]) * np.finfo(float).eps)
        expected = sorted(range(util.size), key=lambda i: (-util[i], -nbytes[i], i))
        assert heat_order(noisy, nbytes).tolist() == expected

    check()


def test_timings_are_reported():
    res = simulate(Star(4, B), two_flows(), model="wire")
    assert set(res.timings) == {"routes", "engine", "engine_cpu"}
    assert all(t >= 0 for t in res.timings.values())
