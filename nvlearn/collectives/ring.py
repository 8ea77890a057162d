"""Ring collectives: reduce-scatter, all-gather, and all-reduce as the two in sequence.

Ranks sit on a ring ``0 -> 1 -> ... -> p-1 -> 0``. The buffer is cut into ``p`` segments,
and each segment into ``chunks`` pipeline slots (so the Schedule has ``p * chunks`` chunks).

* Reduce-scatter, step ``k = 0 .. p-2``: rank ``r`` sends segment ``(r-k-1) mod p`` to
  ``r+1``, which adds it to its own copy. After ``p-1`` steps rank ``r`` holds the full sum
  of segment ``r``.
* All-gather, step ``k = 0 .. p-2``: rank ``r`` sends segment ``(r-k) mod p`` (complete) to
  ``r+1``, which copies it.
* All-reduce = reduce-scatter then all-gather: ``K = 2(p-1)`` steps, each rank sending
  ``2(p-1)/p * n`` bytes in all — the lower bound for any all-reduce built from
  point-to-point messages (Patarasuk & Yuan 2009).

Pipelining. Within a step the segment goes out as ``chunks`` slots, and the next rank may
forward slot ``j`` of step ``k+1`` as soon as slot ``j`` of step ``k`` has arrived — the
slot-by-slot FIFO NCCL uses. Each rank sends its slots one at a time, in step-major order
(a ``DEP_SENT`` dependency on its previous send). With per-message latency ``alpha``, link
bandwidth ``B`` and slot size ``s = n / (p * chunks * B)`` seconds, on an uncontended
fabric this gives

    T = (K - 1) * max(alpha + s, chunks * s) + chunks * s + alpha,

which is ``K * (alpha + n / (p B))`` for one chunk (the textbook ring), and approaches
``K * n / (p B) + alpha`` — latency paid once, not per step — once ``chunks * s`` exceeds
``alpha + s``. :func:`ring_time` evaluates it; the simulator reproduces it.

References
----------
P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009.
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005.
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import OpTable
from nvlearn.schedule import DEP_ARRIVAL, DEP_SENT, OP_COPY, OP_REDUCE, Schedule, mark_validated

__all__ = ["ring_schedule", "ring_time", "add_rings", "channel_ring_schedule"]

_STEPS = {"reduce_scatter": "rs", "allgather": "ag", "allreduce": "rs+ag"}


def _check(n_ranks: int, n_bytes: float, chunks: int) -> None:
    if int(n_ranks) != n_ranks or n_ranks < 1:
        raise ValueError(f"n_ranks must be a positive integer, got {n_ranks}")
    if not np.isfinite(n_bytes) or n_bytes <= 0:
        raise ValueError(f"n_bytes must be a positive number of bytes, got {n_bytes}")
    if int(chunks) != chunks or chunks < 1:
        raise ValueError(f"chunks must be a positive integer, got {chunks}")


def _data_and_prev_deps(has_data: np.ndarray, data_dep: np.ndarray, has_prev: np.ndarray,
                        prev_dep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dependencies of a pipeline's ops as CSR ``(dep_indptr, dep_op, dep_kind)``.

    Op ``i`` waits for its data, op ``data_dep[i]``, to arrive (``DEP_ARRIVAL``) where
    ``has_data[i]``, then for its sender's previous send, op ``prev_dep[i]``, to end
    (``DEP_SENT``) where ``has_prev[i]``.
    """
    counts = has_data.astype(np.int64) + has_prev.astype(np.int64)
    indptr = np.zeros(has_data.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    dep_op = np.empty(indptr[-1], dtype=np.int64)
    dep_kind = np.empty(indptr[-1], dtype=np.int8)
    pos = indptr[:-1]
    dep_op[pos[has_data]] = data_dep[has_data]
    dep_kind[pos[has_data]] = DEP_ARRIVAL
    pos2 = pos + has_data
    dep_op[pos2[has_prev]] = prev_dep[has_prev]
    dep_kind[pos2[has_prev]] = DEP_SENT
    return indptr, dep_op, dep_kind


def _ring_chunks(collective: str, p: int, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The buffer in ``p x c`` chunks (index = slot * p + segment): bounds (fractions of the
    buffer), owner (the rank that starts with it, -1 = all) and destination (-1 = all)."""
    n_chunks = p * c
    bounds = np.linspace(0.0, 1.0, n_chunks + 1)
    owner = np.full(n_chunks, -1, dtype=np.int32)
    dest = np.full(n_chunks, -1, dtype=np.int32)
    seg_of_chunk = np.arange(n_chunks) % p
    if collective == "reduce_scatter":
        dest[:] = seg_of_chunk
    elif collective == "allgather":
        owner[:] = seg_of_chunk
    return bounds, owner, dest


def ring_schedule(collective: str, n_ranks: int, n_bytes: float, chunks: int = 1) -> Schedule:
    """Ring reduce-scatter, all-gather or all-reduce as a :class:`~nvlearn.schedule.Schedule`.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The ring collective (all-reduce is reduce-scatter then all-gather).
    n_ranks : int
        Ranks on the ring (p >= 2).
    n_bytes : float
        Bytes: the per-rank buffer for all-reduce; the total array (p x per-rank shard)
        for reduce-scatter and all-gather, as nccl-tests counts them.
    chunks : int
        Pipeline slots per step (see the module docstring); >= 1.

    Returns
    -------
    Schedule
        ``K p chunks`` ops, ``K = 2(p-1)`` steps for all-reduce and ``p-1`` otherwise.

    Examples
    --------
    >>> s = ring_schedule("allreduce", 4, 4e6)
    >>> s.n_ops, float(s.bytes_sent()[0])   # 2(p-1) steps x p ranks; 2(p-1)/p * n per rank
    (24, 6000000.0)
    """
    if collective not in _STEPS:
        raise ValueError(f"ring builds {tuple(_STEPS)}, not {collective!r}")
    _check(n_ranks, n_bytes, chunks)
    p, c = int(n_ranks), int(chunks)
    bounds, owner, dest = _ring_chunks(collective, p, c)
    phases = _ring_steps(collective, p)
    K = len(phases)
    if K == 0:  # a single rank: nothing to move
        raise ValueError("a ring collective needs at least 2 ranks")

    # op index = (k * c + j) * p + r : step-major, then slot, then rank
    k_idx, j_idx, r_idx = np.meshgrid(np.arange(K), np.arange(c), np.arange(p), indexing="ij")
    k_idx, j_idx, r_idx = k_idx.ravel(), j_idx.ravel(), r_idx.ravel()
    shift = np.array([ph[0] for ph in phases])[k_idx]
    kind = np.array([ph[1] for ph in phases], dtype=np.int8)[k_idx]
    seg = (r_idx + shift) % p
    src = r_idx
    dst = (r_idx + 1) % p
    chunk = j_idx * p + seg
    n_ops = src.size

    def op_index(k, j, r):
        return (k * c + j) * p + r

    # dependency 1: the data, slot j of step k-1 arriving from the left neighbour
    has_data = k_idx >= 1
    data_dep = np.where(has_data, op_index(k_idx - 1, j_idx, (r_idx - 1) % p), -1)
    # dependency 2: this rank's previous send finished (step-major order)
    prev_k = np.where(j_idx == 0, k_idx - 1, k_idx)
    prev_j = np.where(j_idx == 0, c - 1, j_idx - 1)
    has_prev = (prev_k >= 0) & (c > 1)
    prev_dep = np.where(has_prev, op_index(prev_k, prev_j, r_idx), -1)

    indptr, dep_op, dep_kind = _data_and_prev_deps(has_data, data_dep, has_prev, prev_dep)
    return mark_validated(Schedule(
        collective=collective,
        algorithm="ring",
        n_ranks=p,
        n_participants=p,
        participant_role=(),
        n_bytes=n_bytes,
        chunk_bounds=bounds,
        chunk_owner=owner,
        chunk_dest=dest,
        op_src=src,
        op_dst=dst,
        op_chunk=chunk,
        op_bytes=float(n_bytes) * np.diff(bounds)[chunk],
        op_kind=kind,
        op_delay=np.zeros(n_ops),
        dep_indptr=indptr,
        dep_op=dep_op,
        dep_kind=dep_kind,
        meta={"chunks": c},
    ))


def ring_time(
    collective: str, n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float, chunks: int = 1
) -> float:
    """Closed-form time (s) of the pipelined ring on an uncontended fabric.

    ``T = (K-1) max(alpha + s, chunks s) + chunks s + alpha`` with ``K`` the number of steps
    (``2(p-1)`` for all-reduce, ``p-1`` for reduce-scatter / all-gather) and
    ``s = n / (p chunks B)`` the time to send one slot.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The ring collective.
    n_ranks : int
        Ranks on the ring (p >= 2).
    n_bytes : float
        Bytes, as :func:`ring_schedule` counts them; > 0.
    bw_per_dir : float
        Each rank's link bandwidth, bytes/s per direction; > 0.
    alpha : float
        Latency per message, seconds; >= 0.
    chunks : int
        Pipeline slots per step; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> t = ring_time("allreduce", 8, 1e9, 450e9, 0.0)   # 2 * 7/8 * 1 GB / 450 GB/s
    >>> round(t * 1e3, 4)                                 # ms
    3.8889
    """
    if collective not in _STEPS:
        raise ValueError(f"ring builds {tuple(_STEPS)}, not {collective!r}")
    _check(n_ranks, n_bytes, chunks)
    if not bw_per_dir > 0:
        raise ValueError(f"bw_per_dir must be > 0 bytes/s, got {bw_per_dir}")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0 seconds, got {alpha}")
    p = int(n_ranks)
    K = 2 * (p - 1) if collective == "allreduce" else p - 1
    s = n_bytes / (p * chunks * bw_per_dir)
    return (K - 1) * max(alpha + s, chunks * s) + chunks * s + alpha


def _ring_steps(part: str, m: int) -> list[tuple[int, int]]:
    """(segment shift, op kind) of each step of a ring ``part`` on ``m`` positions."""
    if part not in _STEPS:
        raise ValueError(f"ring builds {tuple(_STEPS)}, not {part!r}")
    steps = []
    if part in ("reduce_scatter", "allreduce"):
        steps += [(-k - 1, OP_REDUCE) for k in range(m - 1)]
    if part in ("allgather", "allreduce"):
        steps += [(-k, OP_COPY) for k in range(m - 1)]
    return steps


def add_rings(ops: OpTable, rings: np.ndarray, segs: np.ndarray, part: str,
              entry: np.ndarray | None = None, relay: np.ndarray | None = None) -> np.ndarray:
    """Add pipelined ring phases on several rings at once (channels, or disjoint rings).

    Parameters
    ----------
    ops : OpTable
        The table the ops and dependencies are added to.
    rings : ndarray of int, shape (R, m)
        Ranks of each ring, in ring order (m >= 2).
    segs : ndarray of int, shape (R, m, S)
        Chunk ids of segment ``x`` of ring ``i``, slot by slot; after a reduce-scatter
        position ``x`` holds segment ``x`` (as :func:`ring_schedule`).
    part : {"reduce_scatter", "allgather", "allreduce"}
        Which ring phases to add.
    entry : ndarray of int, shape (R, m, E), optional
        Ops each position waits for (arrival) before its first send.
    relay : ndarray of int, shape (R, m), optional
        Participant that relays the hop ``x -> x+1`` (NCCL's PXN), or -1.
        A relayed hop is two ops: a copy into the relay, then the relay's send (same kind
        as a direct hop); the relay forwards its slots in order, like a rank.

    Returns
    -------
    ndarray of int, shape (R, m)
        The last op arriving at each position.
    """
    R, m = rings.shape
    i, x = np.arange(R)[None, :, None], np.arange(m)[None, None, :]
    j = np.arange(segs.shape[2])[:, None, None]
    nxt = rings[:, (np.arange(m) + 1) % m]
    relay = np.full((R, m), -1) if relay is None else np.asarray(relay, dtype=np.int64)
    hop = relay >= 0
    ri, rx = np.nonzero(hop)
    prev = None
    for shift, kind in _ring_steps(part, m):
        chunk = segs[i, (x + shift) % m, j]                                   # (S, R, m)
        first = ops.add(rings, np.where(hop, relay, nxt), chunk, np.where(hop, OP_COPY, kind))
        second = ops.add(relay[ri, rx][None], nxt[ri, rx][None], chunk[:, ri, rx], kind)
        final = first.copy()
        final[:, ri, rx] = second
        ops.dep(first[1:], first[:-1], DEP_SENT)
        ops.dep(second[1:], second[:-1], DEP_SENT)
        ops.dep(second, first[:, ri, rx], DEP_ARRIVAL)
        if prev is None:
            if entry is not None:
                ops.dep(first[0][:, :, None], entry, DEP_ARRIVAL)
        else:
            ops.dep(first, prev[2][:, :, (np.arange(m) - 1) % m], DEP_ARRIVAL)
            ops.dep(first[0], prev[0][-1], DEP_SENT)
            ops.dep(second[0], prev[1][-1], DEP_SENT)
        prev = (first, second, final)
    return prev[2][-1][:, (np.arange(m) - 1) % m]


def channel_ring_schedule(collective: str, orders, n_bytes: float, chunks: int = 1,
                          relay=None, relay_roles: tuple[str, ...] = ()) -> Schedule:
    """A ring collective on several channels: channel ``i`` runs its own ring ``orders[i]``
    over its own ``1/C`` of every rank's block (NCCL's channels; src/graph/connect.cc).

    Chunk ``(r C + i) chunks + j`` is slot ``j`` of channel ``i``'s part of block ``r``, so
    each rank's reduce-scatter result (all-gather input) is one contiguous block.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The ring collective.
    orders : (C, p) array of int
        Rank order of each channel's ring; each row a permutation of ``0 .. p-1``.
    n_bytes, chunks
        As :func:`ring_schedule` (``chunks`` slots per step and channel).
    relay : (C, p) array of int, optional
        Participant (>= p) relaying hop ``x -> x+1`` of channel ``i`` (PXN), or -1.
    relay_roles : tuple of str
        Topology node name of each relay participant ``p, p+1, ...``.

    Returns
    -------
    Schedule
        ``meta["channels"]`` is C, ``meta["orders"]`` the rings.

    Examples
    --------
    >>> s = channel_ring_schedule("allreduce", [[0, 1, 2, 3], [2, 3, 0, 1]], 4e6)
    >>> s.n_ops, float(s.bytes_sent()[0])          # 2 channels x 6 steps x 4 ranks
    (48, 6000000.0)
    """
    orders = np.asarray(orders, dtype=np.int64)
    if orders.ndim != 2 or orders.shape[1] < 2 or np.any(
            np.sort(orders, axis=1) != np.arange(orders.shape[1])):
        raise ValueError("orders must be a (channels, p) array, each row a permutation of "
                         "the ranks 0 .. p-1 (p >= 2)")
    C, p = orders.shape
    _check(p, n_bytes, chunks)
    c = int(chunks)
    block_chunks = (orders * C + np.arange(C)[:, None])[:, :, None] * c + np.arange(c)
    ops = OpTable()
    add_rings(ops, orders, block_chunks, collective, relay=relay)
    block = np.repeat(np.arange(p), C * c)
    everyone = np.full(p * C * c, -1)
    return ops.schedule(collective, "ring", p, n_bytes, np.linspace(0.0, 1.0, p * C * c + 1),
                        block if collective == "allgather" else everyone,
                        block if collective == "reduce_scatter" else everyone,
                        participant_role=tuple(relay_roles),
                        meta={"chunks": c, "channels": C, "orders": orders.tolist()})
