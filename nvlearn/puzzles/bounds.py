"""A lower bound on any schedule's time: the bytes that must move, at wire rate.

Whatever the algorithm, some bytes cannot be avoided: in an all-reduce every rank's
contribution must leave it (``n`` bytes) and the sum must reach it (``n`` bytes); in a
reduce-scatter every rank must send out its share of the other ranks' blocks; and so on. A
rank (or a box of ranks, on a multi-box fabric) cannot move them faster than the wire rate
of its links (after any degraded link). :func:`traffic_bound` is the largest of these
times: no schedule, on either model of the simulator, can beat it — so a puzzle's target
below it would be impossible.

References
----------
P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009 (every rank must send and
receive at least its data's worth).
E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication: theory,
practice, and experience", Concurrency Computat.: Pract. Exper. 19(13):1749-1783, 2007
(lower bounds per collective).

Examples
--------
>>> from nvlearn.puzzles import get
>>> t = traffic_bound(get("ring_allreduce").instance())
>>> round(t * 1e6, 2)            # 16 MiB out of one GPU at 18 x 25 GB/s (wire)
37.28
"""

from __future__ import annotations

import numpy as np

from nvlearn.topology import with_link_factor

from .catalogue import Instance

__all__ = ["fabric_traffic_bound", "must_move", "traffic_bound"]


def must_move(collective: str, n_ranks: int, n_bytes: float, group: int = 1) -> tuple[float, float]:
    """Bytes a group of ``group`` ranks (not containing the root) must send out and receive,
    at least, for ``collective`` over ``n_ranks`` ranks (equal blocks).

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall"}
        The collective.
    n_ranks : int
        Ranks p.
    n_bytes : float
        nccl-tests' "size" in bytes (per-rank buffer for all-reduce / broadcast, total array
        for reduce-scatter / all-gather, send buffer for all-to-all).
    group : int
        Ranks q in the group, ``1 <= q < p`` (a box of GPUs, say); the root is outside it.

    Returns
    -------
    (float, float)
        Bytes the group must send out and must receive.

    Examples
    --------
    >>> must_move("allreduce", 8, 1e6), must_move("reduce_scatter", 8, 8e6)
    ((1000000.0, 1000000.0), (7000000.0, 1000000.0))
    """
    p, q, n = int(n_ranks), int(group), float(n_bytes)
    if not 1 <= q < p:
        raise ValueError(f"group must be 1 .. n_ranks - 1 ranks, got {group} of {n_ranks}")
    outside = (p - q) / p
    table = {
        "allreduce": (n, n),
        "reduce_scatter": (n * outside, n * q / p),
        "allgather": (n * q / p, n * outside),
        "broadcast": (0.0, n),
        "alltoall": (n * q * (p - q) / p**2, n * q * (p - q) / p**2),
    }
    if collective not in table:
        raise ValueError(f"no traffic bound for {collective!r}; known: {sorted(table)}")
    return table[collective]


def fabric_traffic_bound(topology, collective: str, n_ranks: int, n_bytes: float,
                         root: int = 0) -> float:
    """Seconds no schedule of ``collective`` on ``topology``'s first ``n_ranks`` GPUs can
    beat: the slowest rank or box moving the bytes it must (:func:`must_move`) at the wire
    rate of its links.

    Parameters
    ----------
    topology : Topology
        The fabric, rank r on GPU r; its link capacities as they are (apply
        :func:`~nvlearn.topology.with_link_factor` first for a degraded link).
    collective : {"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall"}
        The collective.
    n_ranks : int
        Ranks p, 2 .. ``topology.n_gpus``.
    n_bytes : float
        nccl-tests' "size" in bytes (as :func:`must_move`).
    root : int
        Broadcast root.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> t = fabric_traffic_bound(ib_cluster(2), "allreduce", 16, 2**30)
    >>> round(t * 1e3, 3)           # 1 GiB out of a box through its 8 NICs at 50 GB/s
    2.684
    """
    src, dst = np.asarray(topology.link_src), np.asarray(topology.link_dst)
    cap = np.asarray(topology.link_capacity)
    box = np.asarray(topology.node_box)
    gpus = np.asarray(topology.gpus)[:n_ranks]
    out_bw = np.bincount(src, weights=cap, minlength=topology.n_nodes)[gpus]
    in_bw = np.bincount(dst, weights=cap, minlength=topology.n_nodes)[gpus]
    send, recv = must_move(collective, n_ranks, n_bytes)
    sends = np.full(n_ranks, send)
    recvs = np.full(n_ranks, recv)
    if collective == "broadcast":
        sends[root], recvs[root] = n_bytes, 0.0
    best = float(np.max(np.maximum(sends / out_bw, recvs / in_bw)))
    boxes = box[gpus]
    for b in np.unique(boxes):
        members = np.flatnonzero(boxes == b)
        if members.size == n_ranks:
            continue
        exits = (box[src] == b) & (box[dst] != b)
        enters = (box[dst] == b) & (box[src] != b)
        s, r = must_move(collective, n_ranks, n_bytes, members.size)
        if collective == "broadcast" and root in members:
            s, r = n_bytes, 0.0
        best = max(best, float(s / cap[exits].sum()), float(r / cap[enters].sum()))
    return best


def traffic_bound(inst: Instance) -> float:
    """Seconds no schedule of ``inst`` can beat: :func:`fabric_traffic_bound` on the
    puzzle's fabric, degraded links included."""
    topo = inst.fabric
    if inst.link_factor:
        links = list(inst.link_factor)
        topo = with_link_factor(topo, links, [inst.link_factor[k] for k in links])
    return fabric_traffic_bound(topo, inst.collective, inst.n_ranks, inst.n_bytes, inst.root)
