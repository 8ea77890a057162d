"""Recursive-doubling all-reduce: ``log2 p`` exchanges of the whole buffer.

In step ``k`` rank ``v`` and rank ``v XOR 2^k`` swap their partial sums and both add — after
``log2 p`` steps everyone holds the total. Latency ``log2 p alpha`` is the lowest of any
point-to-point all-reduce, but every step moves the whole buffer: ``n log2 p`` bytes per rank
against the ring's ``2 (p-1)/p n``. MPICH uses it for short messages. A non-power of two is
folded as MPICH does (:func:`~nvlearn.collectives._ops.fold_ranks`): the even rank of each of
the first ``rem`` pairs hands its buffer to the odd one first and gets the result last; the
power-of-two phase starts once the fold has arrived everywhere (a barrier).

Receive buffers. A swap reads each partner's buffer while the other's data comes in, which a
Schedule (one buffer per participant, ops applied one at a time) cannot express directly.
Each rank therefore has a receive buffer: an extra participant whose role is the name of the
rank's GPU node (``"gpu3"``, or the topology's name for it), so the simulator places it on
that GPU. A step is a copy into the partner's receive buffer (over the fabric) and a local
add from the receive buffer into the rank's own buffer (same node: instantaneous). Because
the role names a GPU, ``simulate(..., ranks=...)`` must not move ranks of this schedule to
other GPUs; build it for the placement you want instead.

Pipelining and time. The buffer goes as ``chunks`` pieces; a rank sends piece ``j`` of step
``k`` once piece ``j`` of step ``k-1`` has arrived and its previous piece has left — the ring's
pattern with ``K = log2 p'`` steps and a piece of ``s = n / (chunks B)``:

    T = (K - 1) max(alpha + s, chunks s) + chunks s + alpha      (:func:`recursive_doubling_time`)

exact on a single uncontended switch; a fold adds ``chunks s + alpha`` (the fold step) in
front and one more step (the unfold) to ``K``. With one chunk this *is* the textbook cost
``lg p (alpha + n beta)``, or ``(floor(lg p) + 2)(alpha + n beta)`` with the fold (Thakur,
Rabenseifner & Gropp 2005; the ``n lg p gamma`` term is zero here: additions cost no time
in the model).

References
----------
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005.
MPICH src/mpi/coll/allreduce/allreduce_intra_recursive_doubling.c.
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import (
    OpTable,
    check_link,
    check_ranks,
    check_size,
    fold_ranks,
    row_pipeline_time,
)
from nvlearn.schedule import DEP_ARRIVAL, DEP_SENT, OP_COPY, OP_REDUCE, Schedule

__all__ = [
    "recursive_doubling_allreduce", "recursive_doubling_time", "recursive_doubling_time_textbook",
]


def recursive_doubling_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1,
                                 gpu_names: tuple[str, ...] | None = None) -> Schedule:
    """Recursive-doubling all-reduce (any p >= 2).

    Parameters
    ----------
    n_ranks, n_bytes, chunks
        Ranks, per-rank buffer (bytes), pipeline pieces.
    gpu_names : tuple of str, optional
        Topology node name of each rank's GPU (roles of the receive buffers); default
        ``"gpu0", "gpu1", ...`` as :func:`~nvlearn.topology.single_switch` and
        :func:`~nvlearn.topology.dgx_h100` name them.

    Returns
    -------
    Schedule
        ``log2 p'`` exchange rounds (plus the fold for other p), each rank's full buffer per
        round.

    Examples
    --------
    >>> s = recursive_doubling_allreduce(8, 1e6)
    >>> s.n_participants, float(s.bytes_sent()[0])    # 8 receive buffers; n lg p per rank
    (16, 3000000.0)
    """
    p = check_ranks(n_ranks, 2, "recursive doubling")
    check_size(n_bytes, chunks)
    names = tuple(f"gpu{r}" for r in range(p)) if gpu_names is None else tuple(gpu_names)
    if len(names) != p:
        raise ValueError(f"gpu_names needs one name per rank ({p}), got {len(names)}")
    c = int(chunks)
    p2, rem, real = fold_ranks(p)
    L = p2.bit_length() - 1
    v = np.arange(p2)
    j = np.arange(c)
    buf = p + v  # receive buffer participant of virtual rank v
    ops = OpTable()

    pre = None
    last = np.full(p2, -1, dtype=np.int64)
    if rem:
        f = np.arange(rem)
        pre = ops.add((2 * f)[:, None], real[f][:, None], j[None, :], OP_REDUCE)
        ops.dep(pre[:, 1:], pre[:, :-1], DEP_SENT)
    local = None
    for k in range(L):
        w = v ^ (1 << k)
        send = ops.add(real[v][:, None], buf[w][:, None], j[None, :], OP_COPY)
        ops.dep(send[:, 1:], send[:, :-1], DEP_SENT)
        ops.dep(send[:, 0], last, DEP_SENT)
        if k == 0 and pre is not None:
            folded = v < rem
            safe = np.minimum(v, rem - 1)
            ops.dep(send, np.where(folded[:, None], pre[safe], -1), DEP_ARRIVAL)
            # the power-of-two phase starts once the fold is complete everywhere
            ops.dep(send[:, :1], pre[:, -1][None, :], DEP_ARRIVAL)
        if local is not None:
            ops.dep(send, local, DEP_ARRIVAL)        # my piece j holds step k-1's sum
            ops.dep(send, local[w], DEP_SENT)        # the partner's receive buffer is free
        add = ops.add(buf[v][:, None], real[v][:, None], j[None, :], OP_REDUCE)
        ops.dep(add, send[w], DEP_ARRIVAL)           # the partner's piece is here
        ops.dep(add, send, DEP_SENT)                 # and mine has been read
        last = send[:, -1].copy()
        local = add
    if rem:
        f = np.arange(rem)
        post = ops.add(real[f][:, None], (2 * f)[:, None], j[None, :], OP_COPY)
        ops.dep(post, local[f], DEP_ARRIVAL)
        ops.dep(post[:, 1:], post[:, :-1], DEP_SENT)
        ops.dep(post[:, 0], last[f], DEP_SENT)
    roles = tuple(names[r] for r in real)
    return ops.schedule("allreduce", "recursive_doubling", p, n_bytes,
                        np.linspace(0.0, 1.0, c + 1), np.full(c, -1), np.full(c, -1),
                        participant_role=roles, meta={"chunks": c, "folded_ranks": rem})


def recursive_doubling_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                            chunks: int = 1) -> float:
    """Exact time (s) of :func:`recursive_doubling_allreduce` on one uncontended switch.

    ``(K-1) max(alpha + s, chunks s) + chunks s + alpha`` with ``K = log2 p'`` and
    ``s = n / (chunks B)``; when ``p`` is not a power of two, ``K = log2 p' + 1`` and the fold
    adds ``chunks s + alpha``. Each rank has one link of
    ``bw_per_dir`` bytes/s per direction, a message arrives ``alpha`` s after its transfer.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2 (any; a non-power of two is folded onto p', the largest power of two
        below it).
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each rank's link, bytes/s per direction; > 0.
    alpha : float
        Latency of one message, seconds; >= 0.
    chunks : int
        Slots per exchange; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(recursive_doubling_time(8, 1e9, 100e9, 0.0) * 1e3, 3)    # 3 n / B
    30.0
    """
    p = check_ranks(n_ranks, 2, "recursive doubling")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    p2, rem, _ = fold_ranks(p)
    L = p2.bit_length() - 1
    s = n_bytes / (chunks * bw_per_dir)
    if not rem:
        return row_pipeline_time([int(chunks)] * L, s, alpha)
    return chunks * s + alpha + row_pipeline_time([int(chunks)] * (L + 1), s, alpha)


def recursive_doubling_time_textbook(n_ranks: int, n_bytes: float, bw_per_dir: float,
                                     alpha: float, gamma: float = 0.0) -> float:
    """Textbook cost ``lg p (alpha + n beta + n gamma)`` (p a power of two); MPICH's fold
    adds two steps for other p: ``(floor(lg p) + 2) (alpha + n beta) + (floor(lg p) + 1) n
    gamma``. Thakur, Rabenseifner & Gropp (2005).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Link bandwidth, bytes/s per direction (``beta = 1 / bw_per_dir`` s/byte); > 0.
    alpha : float
        Latency per message, seconds; >= 0.
    gamma : float
        Reduction cost, seconds per byte; 0 for the simulator's free reductions.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(recursive_doubling_time_textbook(8, 1e9, 100e9, 1e-6) * 1e3, 4)
    30.003
    """
    p = check_ranks(n_ranks, 2, "recursive doubling")
    check_size(n_bytes, 1)
    check_link(bw_per_dir, alpha)
    p2, rem, _ = fold_ranks(p)
    L = p2.bit_length() - 1
    steps = L + (2 if rem else 0)
    adds = L + (1 if rem else 0)
    return steps * (alpha + n_bytes / bw_per_dir) + adds * n_bytes * gamma
