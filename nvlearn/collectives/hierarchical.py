"""Hierarchical (two-level) all-reduce: inside each node over NVLink, across nodes by a ring.

The ``p = G q`` ranks sit in ``G`` nodes of ``q`` GPUs; local rank ``l`` of every node owns
segment ``l`` (``n/q`` bytes) of the buffer.

1. Inside each node, a reduce-scatter — a ring over the node's GPUs, or NVLS through its
   NVSwitch — leaves local rank ``l`` with its node's sum of segment ``l``.
2. Across nodes, the ``G`` GPUs with the same local rank ``l`` all-reduce segment ``l`` with a
   ring (reduce-scatter + all-gather over ``G`` blocks) — the "rail" rings of NCCL's
   multi-node algorithms, where GPU ``l`` of every node shares NIC rail ``l``. So on
   :func:`~nvlearn.topology.ib_cluster` the ``q`` rings already use every rail, each on its
   own (no spine, every NIC equally loaded): unlike a flat ring they need no channel layout
   (:mod:`~nvlearn.collectives.channels`).
3. Inside each node, an all-gather (ring or NVLS multicast) hands every GPU every segment.

Each GPU sends ``n (q-1)/q`` twice inside its node but only ``2 (G-1)/G n/q`` across nodes:
the slow network carries ``1/q`` of what a flat ring over all ``p`` GPUs would put on it.

Phases run one after another: a rank starts phase 2 once its phase-1 data has arrived
(and phase 3 after phase 2). That makes the time the sum of the phases — the textbook
two-level model — and exact on a single switch (:func:`hierarchical_time`):

    T = T_intra_RS(q, n, G c slots) + T_ring_AR(G, n/q, c) + T_intra_AG(q, n, G c slots)

with ring phases from :func:`~nvlearn.collectives.ring.ring_time` and NVLS phases from
:func:`~nvlearn.collectives.nvls.nvls_phase_time`. NCCL overlaps the phases chunk by chunk;
on a real cluster, where NVLink and the network are different links, that hides most of the
shorter phase, so the sum is an upper bound there.

References
----------
H. Mikami et al., "ImageNet/ResNet-50 training in 224 seconds", arXiv:1811.05233, 2018
(2D-torus all-reduce: reduce-scatter, all-reduce across, all-gather); X. Jia et al.,
"Highly scalable deep learning training system with mixed-precision", arXiv:1807.11205,
2018 (hierarchical all-reduce); NVIDIA NCCL src/graph/tuning.cc (NVLSTree, CollNetChain:
intra-node + inter-node phases); P. Patarasuk and X. Yuan, J. Parallel Distrib. Comput.
69(2), 2009 (ring phases).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import OpTable, check_link, check_ranks, check_size
from nvlearn.collectives.nvls import _add_nvls, _check_switches, nvls_phase_time
from nvlearn.collectives.ring import add_rings, ring_time
from nvlearn.schedule import Schedule

__all__ = ["INTRA", "rank_groups", "check_groups", "hierarchical_allreduce", "hierarchical_time"]

INTRA = ("ring", "nvls")


def rank_groups(n_ranks: int, ranks_per_node: int | None = None, topology=None) -> np.ndarray:
    """Ranks grouped by node, shape (G, q): row ``g`` lists node ``g``'s ranks.

    With ``ranks_per_node`` (q), ranks ``g q .. g q + q - 1`` form node ``g``. Otherwise the
    Topology's ``node_box`` of each rank's GPU decides (boxes in order of first rank).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 1.
    ranks_per_node : int, optional
        GPUs per node q, a positive divisor of p; ranks are then grouped in order.
    topology : Topology, optional
        Read the grouping from its ``node_box`` when ``ranks_per_node`` is not given; every node
        must hold the same number of the first p GPUs.

    Returns
    -------
    ndarray of int, shape (G, q)
        Row ``g``: the ranks of node ``g``, ascending.

    Examples
    --------
    >>> rank_groups(8, ranks_per_node=4).tolist()
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """
    p = check_ranks(n_ranks, 1, "grouping")
    if ranks_per_node is not None:
        q = ranks_per_node
        if isinstance(q, bool) or int(q) != q or q < 1 or p % q:
            raise ValueError(
                f"ranks_per_node must be a positive divisor of the rank count {p}, got {q}"
            )
        return np.arange(p).reshape(p // int(q), int(q))
    if topology is None:
        raise ValueError("give ranks_per_node (GPUs per node), or a Topology to read it from")
    box = np.asarray(topology.node_box)[np.asarray(topology.gpus)[:p]]
    if np.any(box < 0):
        raise ValueError(
            f"{topology.name!r} does not say which node its GPUs are in (node_box is -1); "
            "pass ranks_per_node"
        )
    _, first, inverse = np.unique(box, return_index=True, return_inverse=True)
    order = np.argsort(first)
    sizes = np.bincount(inverse)
    if np.any(sizes != sizes[0]):
        raise ValueError(
            f"the nodes hold different numbers of GPUs ({sorted(set(sizes.tolist()))}); a "
            "hierarchical all-reduce needs the same number in every node"
        )
    rank = np.arange(p)
    return np.stack([rank[inverse == b] for b in order])


def check_groups(groups, n_ranks: int) -> np.ndarray:
    """``groups`` as a (nodes, ranks per node) int array holding each rank once, or
    ValueError."""
    grp = np.asarray(groups, dtype=np.int64)
    p = int(n_ranks)
    if grp.ndim != 2 or grp.size != p or not np.array_equal(np.sort(grp.ravel()), np.arange(p)):
        raise ValueError(f"groups must be a (nodes, ranks per node) array of the ranks 0..{p - 1}")
    return grp


def _planes_per_group(switches, n_groups: int) -> list[tuple[tuple[str, float], ...]]:
    if switches is None:
        switches = (("switch", 1.0),)
    switches = list(switches)
    if switches and isinstance(switches[0][0], str):
        planes = [_check_switches(switches)] * n_groups
    else:
        planes = [_check_switches(s) for s in switches]
    if len(planes) != n_groups:
        raise ValueError(f"switches needs one list of planes per node ({n_groups})")
    shares = np.array([[w for _, w in pl] for pl in planes])
    if shares.ndim != 2 or not np.allclose(shares, shares[0]):
        raise ValueError("every node must split its NVLS traffic over its planes alike")
    return planes


def hierarchical_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1,
                           ranks_per_node: int | None = None, intra: str = "ring", *,
                           groups=None, switches=None) -> Schedule:
    """Two-level all-reduce (module docstring).

    Parameters
    ----------
    n_ranks, n_bytes, chunks
        Ranks, per-rank buffer (bytes), pipeline slots per ring block / NVLS round.
    ranks_per_node : int, optional
        GPUs per node: ranks ``g q .. g q + q - 1`` form node ``g``. Or give ``groups``.
    intra : {"ring", "nvls"}
        The algorithm inside a node.
    groups : array_like (G, q), optional
        The ranks of each node (see :func:`rank_groups`).
    switches : sequence of (role, share), or one such sequence per node
        NVSwitch planes for ``intra="nvls"`` (default: one ``"switch"`` per node, i.e. a
        single switch).

    Returns
    -------
    Schedule
        The three phases' ops, phase by phase.

    Examples
    --------
    >>> s = hierarchical_allreduce(8, 8e6, ranks_per_node=4)
    >>> float(s.bytes_sent()[0])      # 2 (q-1)/q n inside + 2 (G-1)/G n/q across
    14000000.0
    """
    p = check_ranks(n_ranks, 2, "a hierarchical all-reduce")
    check_size(n_bytes, chunks)
    if intra not in INTRA:
        raise ValueError(f"intra must be one of {INTRA}, got {intra!r}")
    grp = rank_groups(p, ranks_per_node) if groups is None else check_groups(groups, p)
    G, q = grp.shape
    c = int(chunks)
    planes = _planes_per_group(switches, G) if intra == "nvls" and q > 1 else [(("", 1.0),)] * G
    S = len(planes[0])
    C = np.arange(q * G * S * c).reshape(q, G, S, c)  # segment l, block g, plane k, slot j
    ops = OpTable()
    roles: list[str] = []
    exit_rank = None

    def intra_phase(part: str, entry_rank):
        nonlocal roles
        if intra == "ring":
            segs = np.broadcast_to(C.reshape(q, -1)[None], (G, q, G * S * c))
            entry = None if entry_rank is None else entry_rank[grp]
            out = add_rings(ops, grp, segs, part, entry)
            res = np.full((p, 1), -1, dtype=np.int64)
            res[grp.ravel(), 0] = out.ravel()
            return res
        chunk = C.transpose(0, 2, 1, 3).reshape(q, S, G * c)
        outs = []
        for g in range(G):
            if part == "reduce_scatter":  # the node's planes join as participants
                roles += [r for r, _ in planes[g]]
            entry = None if entry_rank is None else entry_rank[grp[g]]
            outs.append(_add_nvls(ops, grp[g], p + g * S + np.arange(S), chunk, part, entry))
        res = np.full((p, outs[0].shape[1]), -1, dtype=np.int64)
        for g in range(G):
            res[grp[g]] = outs[g]
        return res

    if q > 1:
        exit_rank = intra_phase("reduce_scatter", None)
    if G > 1:
        rings = grp.T  # (q, G): the GPUs with local rank l, node by node
        segs = C.reshape(q, G, S * c)
        entry = None if exit_rank is None else exit_rank[rings]
        out = add_rings(ops, rings, segs, "allreduce", entry)
        exit_rank = np.full((p, 1), -1, dtype=np.int64)
        exit_rank[rings.ravel(), 0] = out.ravel()
    if q > 1:
        intra_phase("allgather", exit_rank)
    shares = np.array([w for _, w in planes[0]])
    widths = (np.full((q, G), 1.0 / (q * G))[:, :, None, None] * shares[None, None, :, None]
              * np.full(c, 1.0 / c)[None, None, None, :]).ravel()
    bounds = np.concatenate([[0.0], np.cumsum(widths)])
    bounds[-1] = 1.0
    n_chunks = C.size
    return ops.schedule("allreduce", "hierarchical", p, n_bytes, bounds,
                        np.full(n_chunks, -1), np.full(n_chunks, -1),
                        participant_role=tuple(roles),
                        meta={"chunks": c, "nodes": G, "ranks_per_node": q, "intra": intra})


def hierarchical_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                      chunks: int = 1, ranks_per_node: int = 1, intra: str = "ring",
                      bw_inter: float | None = None, alpha_inter: float | None = None) -> float:
    """Time (s) of :func:`hierarchical_allreduce`: the sum of its three phases.

    Exact on one uncontended switch (``bw_inter``/``alpha_inter`` default to the intra-node
    values, one NVSwitch plane). ``alpha`` is a GPU-to-GPU message latency inside a node
    (an NVLS hop costs ``alpha / 2``), ``alpha_inter`` across nodes.

    Parameters
    ----------
    n_ranks : int
        Ranks p = G q >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each GPU's link inside a node, bytes/s per direction; > 0.
    alpha : float
        Latency of one GPU-to-GPU message inside a node, seconds; >= 0.
    chunks : int
        Pipeline slots per block of the inter-node ring (the intra-node phases use ``G chunks``
        slots); >= 1.
    ranks_per_node : int
        q, a divisor of p; 1 makes it a flat ring across nodes.
    intra : {"ring", "nvls"}
        The intra-node reduce-scatter and all-gather.
    bw_inter : float, optional
        Each GPU's share of the inter-node network, bytes/s per direction (default
        ``bw_per_dir``).
    alpha_inter : float, optional
        Latency of one inter-node message, seconds (default ``alpha``).

    Returns
    -------
    float
        Seconds: the three phases' times added.

    Examples
    --------
    >>> round(hierarchical_time(8, 1e9, 100e9, 0.0, ranks_per_node=4) * 1e3, 3)
    17.5
    """
    p = check_ranks(n_ranks, 2, "a hierarchical all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    if intra not in INTRA:
        raise ValueError(f"intra must be one of {INTRA}, got {intra!r}")
    q = int(ranks_per_node)
    if q < 1 or p % q:
        raise ValueError(f"ranks_per_node must divide the rank count {p}, got {ranks_per_node}")
    G = p // q
    bw_x = bw_per_dir if bw_inter is None else bw_inter
    a_x = alpha if alpha_inter is None else alpha_inter
    check_link(bw_x, a_x)
    t = 0.0
    if q > 1:
        if intra == "ring":
            t += ring_time("reduce_scatter", q, n_bytes, bw_per_dir, alpha, G * chunks)
            t += ring_time("allgather", q, n_bytes, bw_per_dir, alpha, G * chunks)
        else:
            t += 2 * nvls_phase_time(q, n_bytes, bw_per_dir, alpha, G * chunks)
    if G > 1:
        t += ring_time("allreduce", G, n_bytes / q, bw_x, a_x, chunks)
    return t
