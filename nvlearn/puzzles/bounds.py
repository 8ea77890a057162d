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

__all__ = ["must_move", "traffic_bound"]


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


def traffic_bound(inst: Instance) -> float:
    """Seconds no schedule of ``inst`` can beat: the slowest rank or box moving the bytes it
    must (:func:`must_move`) at wire rate through its links (degraded links included)."""
    topo = inst.fabric
    if inst.link_factor:
        links = list(inst.link_factor)
        topo = with_link_factor(topo, links, [inst.link_factor[k] for k in links])
    src, dst = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    cap = np.asarray(topo.link_capacity)
    box = np.asarray(topo.node_box)
    gpus = np.asarray(topo.gpus)[: inst.n_ranks]
    out_bw = np.bincount(src, weights=cap, minlength=topo.n_nodes)[gpus]
    in_bw = np.bincount(dst, weights=cap, minlength=topo.n_nodes)[gpus]
    send, recv = must_move(inst.collective, inst.n_ranks, inst.n_bytes)
    root_send = inst.n_bytes if inst.collective == "broadcast" else send
    sends = np.full(inst.n_ranks, send)
    sends[inst.root] = root_send
    recvs = np.full(inst.n_ranks, recv)
    if inst.collective == "broadcast":
        recvs[inst.root] = 0.0
    best = float(np.max(np.maximum(sends / out_bw, recvs / in_bw)))
    boxes = box[gpus]
    for b in np.unique(boxes):
        members = np.flatnonzero(boxes == b)
        if members.size in (0, inst.n_ranks):
            continue
        exits = (box[src] == b) & (box[dst] != b)
        enters = (box[dst] == b) & (box[src] != b)
        s, r = must_move(inst.collective, inst.n_ranks, inst.n_bytes, members.size)
        if inst.collective == "broadcast" and inst.root in members:
            s, r = inst.n_bytes, 0.0
        best = max(best, s / cap[exits].sum(), r / cap[enters].sum())
    return best
