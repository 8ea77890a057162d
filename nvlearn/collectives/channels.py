"""NCCL's channels: several rings (or trees) at once, laid out so that every rail works.

Why
---
A flat ring over the GPUs of :func:`~nvlearn.topology.ib_cluster` (ranks ``0 .. P-1`` in
order) crosses each node boundary once, on one NIC: GPU 7 of node 0 sends to GPU 0 of node
1, so the ring's inter-node hop is one 400 Gb/s link, and a 2-node all-reduce reaches ~50
GB/s busbw while the node has eight NICs. NCCL runs ``C`` *channels* (``nChannels``): the
buffer is cut into ``C`` parts, each moved by its own ring with its own rank order, and the
orders are chosen so that each channel enters and leaves a node through a different NIC.
Then the node's traffic spreads over all its NICs and the ring's busbw is bounded by
``8 x 50 GB/s``, the NICs of a node, not by one of them.

The layout (:func:`ring_orders`)
-------------------------------
Channel ``c`` visits the GPUs of every node starting at local GPU ``e = c mod q`` (``q`` GPUs
per node), NCCL's ``ringRecv`` of the channel, and goes round the node
``e, e+1, ..., e-1``; the last GPU of a node (``ringSend``) sends to GPU ``e`` of the next
node (connect.cc, ``connectRings``). On ``ib_cluster`` GPU ``i`` has the NIC of rail ``i``,
and routes go GPU -> PCIe switch -> its own NIC -> the leaf of its rail -> (spine, if the
rails differ) -> ...; GPUs do not forward. So the hop from the exit GPU ``e-1`` to the next
node's GPU ``e`` would leave on rail ``e-1`` and cross to rail ``e`` through a spine. NCCL
keeps a channel on one NIC per node (``NCCL_CROSS_NIC=0/2``) and, where the exit GPU is not
the one next to that NIC, uses **PXN** (NCCL >= 2.12): the exit GPU writes the data over
NVLink into GPU ``e``'s memory and GPU ``e``'s NIC sends it, on rail ``e``, to GPU ``e`` of
the next node. We model that explicitly: the hop becomes two ops, a copy ``exit -> relay``
over NVLink and the relay's send to the next node, the relay being an extra Schedule
participant whose role is GPU ``e``'s topology node name (its own staging buffer, so the
data plane stays exact). With ``rails < 8`` (GPUs ``i`` and ``i + rails`` share a rail) the
order ends the node's visit at a GPU on the entry's rail instead, and no relay is needed.

Why PXN rather than orders that avoid it (entering node ``m + 1`` at the GPU that node
``m`` left from, so the entry shifts from node to node): NCCL builds one intra-node order per
channel, the same in every node, so it cannot shift; the PXN copy is what it does instead.
The cost: with ``C = q`` channels every GPU sends ``q`` NVLink flows instead of ``q - 1``
(its ring hops plus one relay copy), each at the NIC's rate — 8/9 of its NVLink per
direction in the ``wire`` model, where the NICs stay the limit — and a relayed slot takes
one more pipeline stage, which chunking hides. In the ``achievable`` model NVLink runs at
NCCL's lower per-link rate and becomes the limit, a few per cent below the NICs' bound.

Each NIC then sends one channel and receives one, every channel's inter-node traffic stays
on its rail (leaf only, no spine for up to 32 nodes), and the ring's bound is
``busbw <= node NIC capacity per direction``.

The tree (:func:`tree_chains`) uses the same per-channel start: channel ``c``'s chain inside
a node starts at GPU ``e``, which also talks to the parent and child nodes (NCCL's
``NCCL_TOPO_PATTERN_TREE``: ``treeToParent = treeToChild0 = treeToChild1 = treeIntra[0]``),
so every inter-node tree edge joins two GPUs ``e`` on rail ``e``.

The hierarchical all-reduce (:mod:`~nvlearn.collectives.hierarchical`) needs nothing: its
inter-node rings join the GPUs of one local index, i.e. one rail each, and together they use
all rails.

References
----------
NVIDIA NCCL src/graph/connect.cc (ncclTopoPreset, connectRings, connectTrees: ringRecv /
ringSend per channel and node; tree channels duplicated, tree 0 and tree 1),
src/graph/search.cc (crossNic), src/transport/net.cc (PXN); NCCL environment variables
NCCL_CROSS_NIC, NCCL_PXN_DISABLE; S. Jeaugey et al., "Doubling all2all performance with
NCCL 2.12", NVIDIA technical blog, 2022 (PXN).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import check_ranks
from nvlearn.collectives.hierarchical import rank_groups
from nvlearn.collectives.ring import _check, channel_ring_schedule, ring_schedule
from nvlearn.schedule import Schedule

__all__ = [
    "node_groups", "rank_rails", "default_channels", "ring_orders", "check_channels",
    "channel_ring", "tree_chains",
]


def node_groups(topology, n_ranks: int) -> np.ndarray:
    """Ranks by node, shape (G, q), from the Topology's boxes; one row if it has none.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster, single_switch
    >>> node_groups(ib_cluster(2), 16).shape, node_groups(single_switch(4, 1e9), 4).shape
    ((2, 8), (1, 4))
    """
    p = check_ranks(n_ranks, 1, "grouping")
    box = np.asarray(topology.node_box)[np.asarray(topology.gpus)[:p]]
    if np.any(box < 0):
        return np.arange(p)[None, :]
    return rank_groups(p, None, topology)


def rank_rails(topology, n_ranks: int) -> np.ndarray | None:
    """Network rail of each rank's GPU (its ``node_plane``), or None if a GPU has none.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> rank_rails(ib_cluster(2, rails=4), 16)[:8].tolist()
    [0, 1, 2, 3, 0, 1, 2, 3]
    """
    rails = np.asarray(topology.node_plane)[np.asarray(topology.gpus)[:n_ranks]]
    return None if np.any(rails < 0) else rails.astype(np.int64)


def default_channels(topology_or_ranks) -> int:
    """NCCL-like channel count: one per GPU (and NIC) of a node on a multi-node Topology
    whose GPUs sit on network rails; 1 for a rank count or a single node.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100, ib_cluster
    >>> default_channels(16), default_channels(dgx_h100()), default_channels(ib_cluster(2))
    (1, 1, 8)
    """
    if not hasattr(topology_or_ranks, "n_gpus"):
        return 1
    p = int(topology_or_ranks.n_gpus)
    groups = node_groups(topology_or_ranks, p)
    if groups.shape[0] < 2 or rank_rails(topology_or_ranks, p) is None:
        return 1
    return int(groups.shape[1])


def _node_visit(entry: int, q: int, node_rails, want) -> tuple[np.ndarray, int]:
    """Local order through one node from ``entry``, and the local GPU relaying its exit.

    The exit should be on rail ``want`` (the next node's entry rail): end at another GPU of
    that rail if there is one, else go round and relay through a GPU of the rail (PXN).
    """
    ring = (entry + np.arange(q)) % q
    if want is None or q == 1:
        return ring, -1
    same = [int(v) for v in ring[1:] if node_rails[v] == want]
    if same:
        return np.concatenate([[v for v in ring if v != same[-1]], [same[-1]]]), -1
    on_rail = np.flatnonzero(np.asarray(node_rails) == want)
    return ring, int(on_rail[0]) if on_rail.size else -1


def ring_orders(groups, channels: int, rails=None) -> tuple[np.ndarray, np.ndarray]:
    """Ring order of every channel, and the rank relaying each hop (-1: direct).

    Parameters
    ----------
    groups : (G, q) array of int
        Ranks by node (:func:`node_groups`).
    channels : int
        Channels C; channel ``c`` enters every node at local GPU ``c mod q``.
    rails : (p,) array of int, optional
        Rail of each rank; None: no rails, every hop direct.

    Returns
    -------
    orders : (C, p) rank order of each channel's ring.
    relay : (C, p) the rank whose NIC sends hop ``x -> x+1`` for the exit GPU (PXN), or -1.

    Examples
    --------
    >>> g = np.arange(8).reshape(2, 4)
    >>> o, r = ring_orders(g, 2, rails=np.array([0, 1, 2, 3] * 2))
    >>> o[1].tolist()                  # channel 1 enters both nodes at local GPU 1
    [1, 2, 3, 0, 5, 6, 7, 4]
    >>> r[1].tolist()                  # GPU 0 -> 5 and 4 -> 1 relayed by GPUs 1 and 5
    [-1, -1, -1, 1, -1, -1, -1, 5]
    """
    groups = np.asarray(groups, dtype=np.int64)
    G, q = groups.shape
    C = check_ranks(channels, 1, "a channel layout")
    orders = np.empty((C, G * q), dtype=np.int64)
    relay = np.full((C, G * q), -1, dtype=np.int64)
    for c in range(C):
        e = c % q
        for g in range(G):
            node_rails = None if rails is None else np.asarray(rails)[groups[g]]
            want = None if rails is None or G == 1 else np.asarray(rails)[groups[(g + 1) % G, e]]
            local, via = _node_visit(e, q, node_rails, want)
            orders[c, g * q:(g + 1) * q] = groups[g, local]
            if via >= 0:
                relay[c, g * q + q - 1] = groups[g, via]
    return orders, relay


def check_channels(channels) -> int | None:
    """``channels`` as an int >= 1, or None; ValueError otherwise."""
    if channels is None:
        return None
    return check_ranks(channels, 1, "channels: a ring or tree")


def channel_ring(collective: str, topology_or_ranks, n_bytes: float, chunks: int = 1,
                 channels: int | None = None) -> Schedule:
    """NCCL-like ring ``collective`` with ``channels`` rings laid out by :func:`ring_orders`.

    ``channels=None``: :func:`default_channels`. One channel in rank order with no relay (a
    rank count, a single node, boxes without rails such as the NVLink pod) is exactly
    :func:`~nvlearn.collectives.ring.ring_schedule` (the ring ``0 -> 1 -> ...``), which is
    built directly rather than through the generic multi-ring builder.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The ring collective.
    topology_or_ranks : int or Topology
        A rank count p >= 2 (one channel, no relays), or a Topology whose nodes and NIC rails
        set the orders and PXN relays.
    n_bytes : float
        Bytes, as :func:`~nvlearn.collectives.ring.ring_schedule` counts them (per-rank buffer
        for all-reduce, total array otherwise); > 0.
    chunks : int
        Pipeline slots per step and channel; >= 1.
    channels : int, optional
        Rings run at once, each on ``1/channels`` of every block; >= 1.

    Returns
    -------
    Schedule
        The ring schedule; relays, if any, are extra participants named in
        ``participant_role``, and ``meta["channels"]`` records the channel count.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> s = channel_ring("allreduce", ib_cluster(2), 2**30)
    >>> s.meta["channels"], s.participant_role[:2]     # 8 channels, PXN relays
    (8, ('n0.gpu0', 'n0.gpu1'))
    """
    topo = topology_or_ranks if hasattr(topology_or_ranks, "n_gpus") else None
    p = int(topo.n_gpus) if topo is not None else check_ranks(topology_or_ranks, 2, "a ring")
    _check(p, n_bytes, chunks)
    C = check_channels(channels) or default_channels(topology_or_ranks)
    groups = np.arange(p)[None, :] if topo is None else node_groups(topo, p)
    if C == 1 and groups.shape[0] == 1:
        return ring_schedule(collective, p, n_bytes, chunks)
    rails = None if topo is None else rank_rails(topo, p)
    orders, relay_rank = ring_orders(groups, C, rails)
    if C == 1 and not (relay_rank >= 0).any() and np.array_equal(
            np.ravel(orders), np.arange(p)):
        return ring_schedule(collective, p, n_bytes, chunks)   # the plain ring, built fast
    used = np.unique(relay_rank[relay_rank >= 0])
    relay = np.where(relay_rank >= 0, p + np.searchsorted(used, relay_rank), -1)
    roles = tuple(topo.node_name[int(topo.gpus[r])] for r in used) if used.size else ()
    return channel_ring_schedule(collective, orders, n_bytes, chunks, relay, roles)


def tree_chains(groups, channels: int) -> np.ndarray:
    """Chain order inside every node for each tree channel, shape (C, G, q).

    Channel ``c``'s chain starts at local GPU ``c mod q`` (the head, which also carries the
    channel's inter-node tree edges) and goes round the node.

    Examples
    --------
    >>> tree_chains(np.arange(6).reshape(2, 3), 2).tolist()
    [[[0, 1, 2], [3, 4, 5]], [[1, 2, 0], [4, 5, 3]]]
    """
    groups = np.asarray(groups, dtype=np.int64)
    G, q = groups.shape
    C = check_ranks(channels, 1, "a channel layout")
    local = (np.arange(C)[:, None] + np.arange(q)[None, :]) % q          # (C, q)
    return groups[:, local].transpose(1, 0, 2)
