"""Pipelined chain broadcast: the root's buffer flows rank to rank in chunks.

Ranks form a chain ``root -> root+1 -> ... -> root+p-1`` (mod p). The buffer is cut into
``chunks`` pieces; each rank forwards chunk ``j`` as soon as it has arrived, and sends its
chunks one at a time (a ``DEP_SENT`` dependency on its previous send). With per-message
latency ``alpha``, per-direction bandwidth ``B`` and ``s = n / (chunks * B)``:

    T = (p - 1) * (alpha + s) + (chunks - 1) * s

— the fill time of a ``p-1``-stage pipeline plus one chunk time per remaining chunk. More
chunks shrink the pipeline fill, more messages add latency: the best count balances the two.
This is NCCL's ring broadcast.

References
----------
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005 (pipelined broadcast).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives.ring import _check, _data_and_prev_deps
from nvlearn.schedule import OP_COPY, Schedule, mark_validated

__all__ = ["chain_broadcast", "chain_broadcast_time"]


def chain_broadcast(n_ranks: int, n_bytes: float, chunks: int = 1, root: int = 0) -> Schedule:
    """Pipelined chain broadcast of ``n_bytes`` from ``root`` as a Schedule.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2 on the chain ``root -> root+1 -> ... -> root-1`` (mod p).
    n_bytes : float
        Buffer broadcast, bytes; > 0.
    chunks : int
        Pieces; each rank forwards piece ``j`` as soon as it has arrived; >= 1.
    root : int
        Rank holding the data, ``0 <= root < p``.

    Returns
    -------
    Schedule
        ``(p - 1) chunks`` copy ops.

    Examples
    --------
    >>> s = chain_broadcast(4, 1e6, chunks=2)
    >>> s.n_ops, s.bytes_received().tolist()
    (6, [0.0, 1000000.0, 1000000.0, 1000000.0])
    """
    _check(n_ranks, n_bytes, chunks)
    p, c = int(n_ranks), int(chunks)
    if p < 2:
        raise ValueError("a broadcast needs at least 2 ranks")
    if int(root) != root or not 0 <= root < p:
        raise ValueError(f"root must be a rank in 0..{p - 1}, got {root}")
    h_idx, j_idx = np.meshgrid(np.arange(p - 1), np.arange(c), indexing="ij")
    h_idx, j_idx = h_idx.ravel(), j_idx.ravel()  # op index = h * c + j
    src = (root + h_idx) % p
    dst = (root + h_idx + 1) % p
    has_data = h_idx >= 1
    has_prev = j_idx >= 1
    indptr, dep_op, dep_kind = _data_and_prev_deps(
        has_data, (h_idx - 1) * c + j_idx, has_prev, h_idx * c + j_idx - 1)
    bounds = np.linspace(0.0, 1.0, c + 1)
    return mark_validated(Schedule(
        collective="broadcast",
        algorithm="ring",
        n_ranks=p,
        n_participants=p,
        participant_role=(),
        n_bytes=n_bytes,
        chunk_bounds=bounds,
        chunk_owner=np.full(c, root, dtype=np.int32),
        chunk_dest=np.full(c, -1, dtype=np.int32),
        op_src=src,
        op_dst=dst,
        op_chunk=j_idx,
        op_bytes=float(n_bytes) * np.diff(bounds)[j_idx],
        op_kind=np.full(h_idx.size, OP_COPY, dtype=np.int8),
        op_delay=np.zeros(h_idx.size),
        dep_indptr=indptr,
        dep_op=dep_op,
        dep_kind=dep_kind,
        meta={"chunks": c, "root": int(root)},
    ))


def chain_broadcast_time(
    n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float, chunks: int = 1
) -> float:
    """Closed form ``(p-1)(alpha + s) + (chunks-1) s``, ``s = n / (chunks B)`` (seconds).

    Parameters
    ----------
    n_ranks : int
        Ranks p on the chain.
    n_bytes : float
        Buffer broadcast, bytes; > 0.
    bw_per_dir : float
        Link bandwidth, bytes/s per direction; > 0.
    alpha : float
        Latency of one hop's message, seconds; >= 0.
    chunks : int
        Pipeline pieces; >= 1.

    Returns
    -------
    float
        Seconds until the last rank has the last piece.

    Examples
    --------
    >>> round(chain_broadcast_time(8, 1e9, 450e9, 0.0, chunks=1) * 1e3, 3)   # ms
    15.556
    """
    _check(n_ranks, n_bytes, chunks)
    if not bw_per_dir > 0 or alpha < 0:
        raise ValueError("bw_per_dir must be > 0 bytes/s and alpha >= 0 s")
    s = n_bytes / (chunks * bw_per_dir)
    return (n_ranks - 1) * (alpha + s) + (chunks - 1) * s
