"""All-to-all in ``p - 1`` shifted steps (pairwise exchange).

In step ``k = 1 .. p-1`` every rank ``s`` sends its block for rank ``s + k`` (mod p) straight
to it, and receives rank ``s - k``'s block for it: each step is a permutation, so no link
carries two of its transfers at once. A rank sends its steps one after another (the next
leaves when the previous has left). This is the pattern MPICH uses for long all-to-all
messages; "ring" here names the ``s -> s + k`` shift, not store-and-forward (the data go
directly, as in :func:`~nvlearn.collectives.direct.direct_alltoall`).

On a single non-blocking switch with uniform blocks:

    T = (p - 1) n / (p B) + alpha                   (:func:`ring_alltoall_time`)

— the same as the direct algorithm's ``alpha + (p-1)/p n / B``: a switch lets all flows share
a link fairly or run them in turn at the same total rate. On a fabric with contention the two
differ: the direct algorithm offers every flow at once, the shifted one a permutation at a
time.

References
----------
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005 (pairwise-exchange all-to-all).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import OpTable, check_link, check_ranks, check_size
from nvlearn.collectives.direct import direct_alltoall
from nvlearn.schedule import DEP_SENT, OP_COPY, Schedule

__all__ = ["ring_alltoall", "ring_alltoall_time", "direct_alltoall_time"]


def ring_alltoall(n_ranks: int, n_bytes: float, block_bytes=None) -> Schedule:
    """All-to-all by shifted pairwise exchange; same buffer layout and ``block_bytes`` as
    :func:`~nvlearn.collectives.direct.direct_alltoall` (zero blocks are skipped).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Each rank's send buffer in bytes (p equal blocks); unused when ``block_bytes`` is given.
    block_bytes : (p, p) array of float, optional
        Bytes rank s sends to rank d (ragged, e.g. Mixture-of-Experts traffic).

    Returns
    -------
    Schedule
        Step ``k = 1 .. p-1``: rank s sends block ``(s + k) mod p``, each send after the
        rank's previous one.

    Examples
    --------
    >>> s = ring_alltoall(4, 4e6)
    >>> s.n_ops, s.op_dst[:4].tolist()      # step 1: every rank to its right-hand neighbour
    (12, [1, 2, 3, 0])
    """
    p = check_ranks(n_ranks, 2, "an all-to-all")
    layout = direct_alltoall(p, n_bytes, block_bytes=block_bytes)
    blocks = np.zeros(p * p)
    blocks[layout.op_chunk] = layout.op_bytes
    ops = OpTable()
    s = np.arange(p)
    last = np.full(p, -1, dtype=np.int64)
    sizes = []
    for k in range(1, p):
        d = (s + k) % p
        chunk = s * p + d
        send = s[blocks[chunk] > 0]
        if send.size == 0:
            continue
        ids = ops.add(send, d[send], chunk[send], OP_COPY)
        ops.dep(ids, last[send], DEP_SENT)
        last[send] = ids
        sizes.append(blocks[chunk[send]])
    return ops.schedule("alltoall", "ring", p, layout.n_bytes, layout.chunk_bounds,
                        layout.chunk_owner, layout.chunk_dest, meta=dict(layout.meta),
                        op_bytes=np.concatenate(sizes))


def ring_alltoall_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float) -> float:
    """Exact time (s) of :func:`ring_alltoall` with uniform blocks on a single switch:
    ``(p-1) n / (p B) + alpha`` (``n`` the per-rank send buffer).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Each rank's send buffer in bytes; > 0.
    bw_per_dir : float
        Each rank's link, bytes/s per direction; > 0.
    alpha : float
        Latency of one message, seconds; >= 0.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(ring_alltoall_time(8, 8e9, 100e9, 0.0) * 1e3, 1)
    70.0
    """
    p = check_ranks(n_ranks, 2, "an all-to-all")
    check_size(n_bytes, 1)
    check_link(bw_per_dir, alpha)
    return (p - 1) * n_bytes / (p * bw_per_dir) + alpha


def direct_alltoall_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float) -> float:
    """Exact time (s) of :func:`~nvlearn.collectives.direct.direct_alltoall` with uniform
    blocks on a single switch: ``alpha + (p-1)/p n / B`` (all ``p - 1`` flows of a rank share
    its link and end together).

    Parameters
    ----------
    n_ranks, n_bytes, bw_per_dir, alpha
        As :func:`ring_alltoall_time` (bytes, bytes/s per direction, seconds).

    Returns
    -------
    float
        Seconds; equal to the ring's, since each rank's link is the bottleneck either way.

    Examples
    --------
    >>> round(direct_alltoall_time(8, 8e9, 100e9, 0.0) * 1e3, 1)
    70.0
    """
    return ring_alltoall_time(n_ranks, n_bytes, bw_per_dir, alpha)
