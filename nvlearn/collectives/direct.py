"""Direct all-to-all: every rank sends each peer its block at once.

Rank ``s`` holds ``p`` blocks of ``n/p`` bytes (``n`` its send buffer, nccl-tests' "size");
block ``d`` goes to rank ``d``. All ``p(p-1)`` transfers start together and share the fabric,
so the fabric — not the algorithm — decides the time. On a non-blocking single switch each
rank's link carries ``(p-1)/p * n`` each way:

    T = alpha + (p - 1)/p * n / B

(uniform blocks; ragged blocks, as in Mixture-of-Experts, are set by ``block_bytes``).

In the Schedule the modelled buffer holds all ``p * p`` blocks (``n_bytes = p * n``; chunk
``s * p + d`` is rank s's block for rank d) so that each rank's send and receive blocks are
distinct chunks; ``Schedule.nccl_size`` gives back ``n``.

References
----------
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005 (all-to-all algorithms and their costs).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives.ring import _check
from nvlearn.schedule import OP_COPY, Schedule, mark_validated

__all__ = ["direct_alltoall"]


def direct_alltoall(
    n_ranks: int, n_bytes: float, block_bytes=None, *, compact: bool = False
) -> Schedule:
    """All-to-all where every rank sends every peer its block directly, all at once.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank send buffer in bytes (nccl-tests' size) when blocks are uniform.
    block_bytes : array_like, shape (n_ranks, n_ranks), optional
        Ragged blocks: ``block_bytes[s, d]`` bytes from rank s to rank d (the diagonal stays
        local and moves nothing; a zero block is simply not sent). Overrides ``n_bytes``;
        ``nccl_size`` is then the mean per-rank send buffer.
    compact : bool
        Layout of the modelled buffer. False: one chunk per (s, d) pair, chunk ``s*p + d``
        (an empty block gets a sliver of buffer and promises nothing). True: one chunk per
        *non-empty* block, in s-major order, so a buffer laid out block by block maps each
        block to its own element range — what the data plane needs for sparse, ragged
        traffic such as Mixture-of-Experts token rows.

    Returns
    -------
    Schedule
        One copy op per non-empty off-diagonal block, none depending on another.

    Examples
    --------
    >>> s = direct_alltoall(4, 4e6)
    >>> s.n_ops, s.nccl_size, float(s.bytes_sent()[0])
    (12, 4000000.0, 3000000.0)
    >>> c = direct_alltoall(2, 0, [[1.0, 2.0], [0.0, 3.0]], compact=True)
    >>> c.n_chunks, c.n_ops, c.op_bytes.tolist()
    (3, 1, [2.0])
    """
    p = int(n_ranks)
    if block_bytes is None:
        _check(n_ranks, n_bytes, 1)
        blocks = np.full((p, p), float(n_bytes) / p)
    else:
        blocks = np.asarray(block_bytes, dtype=np.float64)
        if blocks.shape != (p, p):
            raise ValueError(f"block_bytes must have shape ({p}, {p}), got {blocks.shape}")
        if np.any(~np.isfinite(blocks)) or np.any(blocks < 0):
            raise ValueError("block_bytes must be finite and >= 0")
    if p < 2:
        raise ValueError("an all-to-all needs at least 2 ranks")
    sizes = blocks.ravel().copy()
    total = sizes.sum()
    if total <= 0:
        raise ValueError("an all-to-all with no bytes to move; give n_bytes > 0")
    if compact:
        pair = np.flatnonzero(sizes > 0)
        widths = sizes[pair]
        promised_to = pair % p
    else:
        # A zero block still needs a chunk (the layout is "chunk s*p+d" for every pair): it
        # gets a sliver of buffer, no op, and promises nothing to rank d.
        pair = np.arange(p * p)
        widths = np.where(sizes > 0, sizes, total * 1e-12)
        promised_to = np.where(sizes > 0, pair % p, pair // p)
    s_idx, d_idx = np.divmod(pair, p)
    bounds = np.concatenate([[0.0], np.cumsum(widths)]) / widths.sum()
    bounds[-1] = 1.0
    chunk = np.flatnonzero((s_idx != d_idx) & (sizes[pair] > 0))
    n_ops = chunk.size
    return mark_validated(Schedule(
        collective="alltoall",
        algorithm="direct",
        n_ranks=p,
        n_participants=p,
        participant_role=(),
        n_bytes=widths.sum(),
        chunk_bounds=bounds,
        chunk_owner=s_idx.astype(np.int32),
        chunk_dest=promised_to.astype(np.int32),
        op_src=s_idx[chunk],
        op_dst=d_idx[chunk],
        op_chunk=chunk,
        op_bytes=sizes[pair][chunk],
        op_kind=np.full(n_ops, OP_COPY, dtype=np.int8),
        op_delay=np.zeros(n_ops),
        dep_indptr=np.zeros(n_ops + 1, dtype=np.int64),
        dep_op=np.zeros(0, dtype=np.int64),
        dep_kind=np.zeros(0, dtype=np.int8),
        meta={"ragged": block_bytes is not None, "compact": compact},
    ))
