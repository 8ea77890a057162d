"""NCCL-like ring channels across rails (nvlearn.collectives.channels).

Correctness by symbolic validation and the data plane for several (nodes, channels); the
single-node and rank-count rings unchanged; on ib_cluster the simulated ring all-reduce at
the bound set by a node's NICs (wire model), with every channel on its own rail.
"""

import numpy as np
import pytest

from nvlearn.collectives import (
    allgather,
    allreduce,
    busbw,
    default_channels,
    reduce_scatter,
    ring_orders,
    ring_schedule,
)
from nvlearn.dataplane import reference, run
from nvlearn.schedule import validate
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, ib_cluster, single_switch
from nvlearn.topology.core import LINK_IB, LINK_NVLINK, NODE_IB_SWITCH, NODE_NIC

ENTRY = {"allreduce": allreduce, "reduce_scatter": reduce_scatter, "allgather": allgather}
GIB = 2.0**30


def _check_data(s, seed=0):
    validate(s)
    x = np.random.default_rng(seed).integers(-8, 9, size=(s.n_ranks, s.n_chunks + 7))
    x = x.astype(np.float64)
    np.testing.assert_array_equal(run(s, x), reference(s, x))


@pytest.mark.parametrize("collective", list(ENTRY))
@pytest.mark.parametrize("nodes, rails, channels, chunks", [
    (2, 8, 1, 2), (2, 8, 3, 1), (2, 8, None, 2), (2, 8, 16, 1), (3, 8, None, 1),
    (2, 4, None, 2), (3, 2, 5, 1), (4, 8, 8, 1),
])
def test_channel_rings_compute_their_collective(collective, nodes, rails, channels, chunks):
    topo = ib_cluster(nodes, rails=rails)
    s = ENTRY[collective](topo, 1e6, "ring", chunks=chunks, channels=channels)
    assert s.meta["channels"] == (channels or 8)
    _check_data(s, seed=nodes)


@pytest.mark.parametrize("p, channels", [(2, 2), (5, 3), (7, 7), (4, 9)])
def test_channels_on_a_rank_count(p, channels):
    for entry in ENTRY.values():
        _check_data(entry(p, 1e6, "ring", chunks=2, channels=channels))


@pytest.mark.parametrize("where", [8, 13, dgx_h100(), single_switch(6, 1e11)])
def test_one_node_and_rank_counts_keep_the_single_ring(where):
    p = where if isinstance(where, int) else where.n_gpus
    for collective, entry in ENTRY.items():
        s = entry(where, 1e6, "ring", chunks=3)
        want = ring_schedule(collective, p, 1e6, 3)
        for name in ("op_src", "op_dst", "op_chunk", "op_kind", "dep_indptr", "dep_op",
                     "chunk_bounds", "chunk_owner", "chunk_dest"):
            np.testing.assert_array_equal(getattr(s, name), getattr(want, name))


def test_default_channel_counts():
    assert default_channels(8) == default_channels(dgx_h100()) == 1
    assert default_channels(ib_cluster(1)) == 1
    assert default_channels(ib_cluster(3)) == default_channels(ib_cluster(2, rails=2)) == 8


def test_layout_enters_every_node_at_gpu_c_and_relays_through_its_nic():
    groups = np.arange(24).reshape(3, 8)
    orders, relay = ring_orders(groups, 8, rails=np.tile(np.arange(8), 3))
    for c in range(8):
        nodes = orders[c].reshape(3, 8)
        assert np.array_equal(nodes[:, 0] % 8, [c] * 3)           # ringRecv = local GPU c
        hops = np.flatnonzero(relay[c] >= 0)
        assert np.array_equal(hops, [7, 15, 23])                  # only the node exits
        assert np.array_equal(relay[c, hops], nodes[:, 0])        # relayed by GPU c (PXN)


def test_with_shared_rails_the_exit_gpu_is_on_the_entry_rail():
    """rails=4: GPUs c and c+4 share a rail, so channel c leaves from GPU c+4: no relay."""
    topo = ib_cluster(2, rails=4)
    s = allreduce(topo, 1e6, "ring")
    assert s.participant_role == ()
    local = np.asarray(s.meta["orders"]).reshape(8, 2, 8) % 8     # channel, node, position
    c = np.arange(8)[:, None]
    assert np.array_equal(local[:, :, 0], np.broadcast_to(c, (8, 2)))
    assert np.array_equal(local[:, :, -1], np.broadcast_to((c + 4) % 8, (8, 2)))


def _nic_bound(topo) -> float:
    """bytes/s per direction out of one node's NICs into the IB fabric: every channel's
    ring leaves each node once, carrying 2(p-1)/p n/C, so 2(p-1)/p n leaves each node in
    all and the ring's busbw = 2(p-1)/p n / t cannot exceed this."""
    kind = np.asarray(topo.node_kind)
    src, dst = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    out = ((kind[src] == NODE_NIC) & (kind[dst] == NODE_IB_SWITCH)
           & (np.asarray(topo.node_box)[src] == 0))
    return float(np.asarray(topo.link_capacity)[out].sum())


@pytest.mark.parametrize("nodes", [2, 4])
def test_eight_channels_reach_the_nic_bound(nodes):
    topo = ib_cluster(nodes)
    bound = _nic_bound(topo)
    assert bound == pytest.approx(8 * 50e9)                   # 8 NICs x 400 Gb/s
    one = simulate(topo, allreduce(topo, GIB, "ring", chunks=4, channels=1), model="wire")
    res = simulate(topo, allreduce(topo, GIB, "ring", chunks=4), model="wire")
    assert res.busbw == pytest.approx(busbw("allreduce", GIB, topo.n_gpus, res.time))
    assert 0.98 * bound < res.busbw <= bound
    assert one.busbw < 1.01 * bound / 8 < res.busbw / 7
    util = res.link_bytes / (res.link_capacity * res.time)
    kinds = np.asarray(topo.link_kind)
    assert util[kinds == LINK_IB].max() > 0.98
    assert util[kinds == LINK_NVLINK].max() < 0.9             # NVLink is not the limit


def _spine_and_nic_links(topo):
    """Masks of the links to or from a spine (tier-2 switch) and of NIC -> leaf links."""
    kind, tier = np.asarray(topo.node_kind), np.asarray(topo.node_tier)
    src, dst = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    spine = (tier[src] == 2) | (tier[dst] == 2)
    return spine, (kind[src] == NODE_NIC) & (kind[dst] == NODE_IB_SWITCH)


def test_every_channel_stays_on_its_rail_and_every_nic_works():
    topo = ib_cluster(2)
    res = simulate(topo, allreduce(topo, GIB, "ring", chunks=2), model="wire")
    spine, nic_out = _spine_and_nic_links(topo)
    assert res.link_bytes[spine].sum() == 0
    assert nic_out.sum() == 16
    flat = simulate(topo, ring_schedule("allreduce", 16, GIB, 2), model="wire")
    assert flat.link_bytes[spine].sum() > 0          # the flat ring crosses rails
    np.testing.assert_allclose(res.link_bytes[nic_out], res.link_bytes[nic_out][0])


def test_hierarchical_rail_rings_already_use_every_rail():
    """The hierarchical all-reduce's inter-node rings join GPU l of every node: rail l."""
    topo = ib_cluster(2)
    res = simulate(topo, allreduce(topo, GIB, "hierarchical", chunks=2), model="wire")
    spine, nic_out = _spine_and_nic_links(topo)
    np.testing.assert_allclose(res.link_bytes[nic_out], 2 * (2 - 1) / 2 * GIB / 8)  # 2(G-1)/G n/q
    assert res.link_bytes[spine].sum() == 0


def test_channels_misuse():
    with pytest.raises(ValueError, match="channels applies only"):
        allreduce(8, 1e6, "binary_tree", channels=2)
    with pytest.raises(ValueError, match="channels"):
        allreduce(8, 1e6, "ring", channels=0)
    with pytest.raises(ValueError, match="channels applies only"):
        reduce_scatter(8, 1e6, "nvls", channels=2)
