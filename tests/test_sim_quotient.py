"""Compact schedules on the quotient fabric give the full op list's times and traffic.

Where both fit (one DGX box to 64 nodes, two and three switch tiers, a partial leaf), the
compact form of a ring or hierarchical all-reduce is simulated side by side with the full
op list on the same fabric and model: makespan to 1e-9 relative, and every link's bytes and
busy time, every participant's bytes and busy time, to 1e-9 of the largest. Then what the
compact form refuses, and what it reports.
"""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import collectives
from nvlearn.collectives.compact import (
    CompactSchedule,
    compact_allgather,
    compact_allreduce,
    compact_reduce_scatter,
)
from nvlearn.sim import CompactResult, simulate
from nvlearn.topology import dgx_h100, ib_cluster, with_link_factor, with_routing
from nvlearn.topology.symmetry import extend_gpu_permutation, orbits, permutation_order

GIB = 2**30
_TOPOLOGIES = {}


def _topo(key):
    if key not in _TOPOLOGIES:
        name, nodes, tiers = key
        _TOPOLOGIES[key] = dgx_h100() if name == "dgx" else ib_cluster(nodes, tiers=tiers)
    return _TOPOLOGIES[key]


def _close(a, b, scale):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0.0)) <= 1e-9 * scale


def _assert_same(full, comp):
    assert isinstance(comp, CompactResult)
    assert comp.time == pytest.approx(full.time, rel=1e-9, abs=0)
    assert _close(full.link_bytes, comp.link_bytes, full.link_bytes.max())
    assert _close(full.link_busy_time, comp.link_busy_time, full.time)
    for name in ("rank_bytes_sent", "rank_bytes_received"):
        a, b = getattr(full, name), getattr(comp, name)
        assert _close(a, b, a.max()), name
    for name in ("rank_send_busy_time", "rank_recv_busy_time"):
        assert _close(getattr(full, name), getattr(comp, name), full.time), name
    # per link class: every link of a class carried what the class reports
    labels = comp.links.label
    for c in np.flatnonzero(comp.class_bytes > 0)[:50]:
        members = full.link_bytes[labels == c]
        assert _close(members, comp.class_bytes[c], full.link_bytes.max())
    assert comp.busbw == pytest.approx(full.busbw, rel=1e-9)


CASES = [
    # (fabric, algorithm, chunks, model)
    (("dgx", 1, None), "ring", 3, "wire"),
    (("dgx", 1, None), "ring", 1, "achievable"),
    (("ib", 4, None), "hierarchical", 2, "wire"),
    (("ib", 4, None), "ring", 2, "achievable"),
    (("ib", 16, None), "hierarchical", 1, "achievable"),
    (("ib", 16, None), "ring", 1, "wire"),
    (("ib", 40, None), "hierarchical", 1, "wire"),        # a partial leaf: rails only
    (("ib", 64, None), "hierarchical", 1, "wire"),        # two leaves per rail: SU shift
    (("ib", 64, 3), "hierarchical", 1, "achievable"),     # three tiers
    (("ib", 8, 3), "ring", 2, "wire"),
]


@pytest.mark.parametrize("key, algorithm, chunks, model", CASES,
                         ids=[f"{k[0]}{k[1]}-t{k[2]}-{a}-c{c}-{m}" for k, a, c, m in CASES])
def test_compact_equals_the_full_op_list(key, algorithm, chunks, model):
    topo = _topo(key)
    full = simulate(topo, collectives.allreduce(topo, GIB, algorithm, chunks=chunks),
                    model=model)
    comp = compact_allreduce(topo, GIB, algorithm, chunks=chunks)
    assert comp.n_full_ops == full.n_ops
    _assert_same(full, simulate(topo, comp, model=model))


@pytest.mark.parametrize("part", ["reduce_scatter", "allgather"])
def test_compact_ring_reduce_scatter_and_allgather(part):
    topo = _topo(("ib", 4, None))
    build = {"reduce_scatter": compact_reduce_scatter, "allgather": compact_allgather}[part]
    full = simulate(topo, getattr(collectives, part)(topo, GIB, chunks=2))
    comp = build(topo, GIB, chunks=2)
    assert comp.n_full_ops == full.n_ops
    _assert_same(full, simulate(topo, comp))


def test_one_channel_ring_with_pxn_relays():
    topo = _topo(("ib", 4, None))
    full = simulate(topo, collectives.allreduce(topo, GIB, channels=1), model="wire")
    comp = compact_allreduce(topo, GIB, channels=1)
    assert comp.participant_role and comp.op_count == 4           # node shift only
    _assert_same(full, simulate(topo, comp, model="wire"))


# ---------------------------------------------------------------- the symmetry itself
def test_the_fabric_symmetries_found():
    t = _topo(("ib", 64, None))
    grid = np.arange(t.n_gpus).reshape(64, 8)
    rotate = np.empty(t.n_gpus, int)
    rotate[grid] = grid[:, (np.arange(8) + 1) % 8]
    shift = np.empty(t.n_gpus, int)
    for k, expected in ((1, False), (32, True)):
        shift[grid] = grid[(np.arange(64) + k) % 64]
        assert (extend_gpu_permutation(t, shift) is not None) is expected, k
    auto = extend_gpu_permutation(t, rotate)
    assert auto is not None and permutation_order(auto.node) == 8
    # every link goes onto a link of its kind and capacity
    assert np.array_equal(t.link_capacity[auto.link], t.link_capacity)
    shift[grid] = grid[(np.arange(64) + 32) % 64]
    both = orbits([auto.link, extend_gpu_permutation(t, shift).link], [8, 2])
    assert both.count.sum() == t.n_links and both.count.max() == 16
    c = compact_allreduce(t, GIB, "hierarchical")
    assert c.op_count == 16 and c.orders == (8, 2)


def test_degraded_fabrics_keep_only_their_symmetry():
    t = _topo(("ib", 4, None))
    slow = with_link_factor(t, [0], 0.5)          # one NVLink bundle at half speed
    c = compact_allreduce(slow, GIB, "hierarchical")
    assert c.op_count < compact_allreduce(t, GIB, "hierarchical").op_count
    full = simulate(slow, collectives.allreduce(slow, GIB, "hierarchical"), model="wire")
    _assert_same(full, simulate(slow, c, model="wire"))


# ---------------------------------------------------------------- refusals
def test_asymmetric_inputs_are_refused():
    t = _topo(("ib", 4, None))
    c = compact_allreduce(t, GIB, "hierarchical")
    with pytest.raises(ValueError, match="differs between links of one class"):
        simulate(t, c, link_factor={0: 0.5})
    with pytest.raises(ValueError, match="static hash"):
        simulate(with_routing(t, "static"), c)
    with pytest.raises(ValueError, match="ranks cannot move"):
        simulate(t, c, ranks=list(range(t.n_gpus)))
    with pytest.raises(ValueError, match="not a symmetry"):
        simulate(with_link_factor(t, [0], 0.5), c)
    with pytest.raises(ValueError, match="has 32 ranks but .* has 128 GPUs"):
        simulate(_topo(("ib", 16, None)), c)


def test_unsupported_requests_say_what_to_do():
    t = _topo(("ib", 4, None))
    with pytest.raises(ValueError, match=r"no compact form.*nvlearn\.collectives\.allreduce"):
        compact_allreduce(t, GIB, "nccl_tree")
    with pytest.raises(ValueError, match="needs a Topology"):
        compact_allreduce(64, GIB)
    with pytest.raises(ValueError, match="channels applies only"):
        compact_allreduce(t, GIB, "hierarchical", channels=2)
    with pytest.raises(ValueError, match="n_bytes"):
        compact_allreduce(t, -1.0)


def test_budgets_refuse_before_building(monkeypatch):
    t = _topo(("ib", 16, None))
    monkeypatch.setenv("NVLEARN_MAX_OPS", "500")
    with pytest.raises(ValueError, match=r"compact ring allreduce .* would have 2,286 ops"):
        compact_allreduce(t, GIB)
    with pytest.raises(ValueError, match=r"\(65,024 ops in full\).* would have 508 ops"):
        compact_allreduce(t, GIB, "hierarchical", chunks=2)
    monkeypatch.delenv("NVLEARN_MAX_OPS")
    assert compact_allreduce(t, GIB).n_ops == 2286             # the estimates were exact
    assert compact_allreduce(t, GIB, "hierarchical", chunks=2).n_ops == 508
    c = compact_allreduce(t, GIB, "hierarchical")
    with pytest.raises(ValueError, match="link classes needs .* GB; pass timeline_bins=128"):
        simulate(t, c, timeline_bins=2**26)
    monkeypatch.setenv("NVLEARN_MAX_OPS", "100")
    with pytest.raises(ValueError, match="simulating this compact hierarchical allreduce"):
        simulate(t, c)


def test_the_full_builder_points_at_the_compact_form():
    with pytest.raises(ValueError, match=r"compact_allreduce\(topology, \.\.\.\) with "
                                         r"algorithm='ring'"):
        collectives.allreduce(ib_cluster(1024), GIB)


# ---------------------------------------------------------------- what it reports
def test_the_result_reports_classes_and_ranks():
    t = _topo(("ib", 16, None))
    c = compact_allreduce(t, GIB, "hierarchical")
    assert isinstance(c, CompactSchedule) and "rails alike" in c.meta["symmetry"]
    r = simulate(t, c, model="wire")
    rows = r.link_classes()
    assert rows and rows[0].utilisation == max(x.utilisation for x in rows)
    assert sum(r.links.count) == t.n_links and r.link_bytes.shape == (t.n_links,)
    assert r.rank_bytes_sent.shape == (t.n_gpus,)
    assert np.allclose(r.rank_bytes_sent, r.rank_bytes_sent[0])      # every rank alike
    assert r.timeline.link_bytes.shape[0] == r.n_classes
    text = r.summary()
    for word in ("symmetry", "representatives", "link classes", "busiest link classes"):
        assert word in text
    assert "(x" in r.hottest_links(1)[0].label
    assert f"{c.n_full_ops:,}" in repr(r)
