"""Helpers shared by the schedule builders: an op table filled block by block, argument checks.

Builders add ops in blocks of numpy arrays (:meth:`OpTable.add` returns their ids) and
dependencies as arrays of ``(op, dependency)`` pairs (:meth:`OpTable.dep`). Ops are created
in an order where every dependency already exists, so the ids are a dependency order and
:meth:`OpTable.schedule` only has to pack the pairs into CSR.
"""

from __future__ import annotations

import numpy as np

from nvlearn.schedule import Schedule, mark_validated

__all__ = [
    "check_size", "check_ranks", "check_link", "is_power_of_two", "floor_power_of_two", "OpTable",
    "fold_ranks", "row_pipeline_time",
]


def check_size(n_bytes: float, chunks: int) -> None:
    """ValueError unless ``n_bytes`` > 0 is finite and ``chunks`` is a positive integer."""
    if isinstance(n_bytes, bool) or not np.isfinite(n_bytes) or n_bytes <= 0:
        raise ValueError(f"n_bytes must be a positive number of bytes, got {n_bytes}")
    if isinstance(chunks, bool) or int(chunks) != chunks or chunks < 1:
        raise ValueError(f"chunks must be a positive integer, got {chunks}")


def check_ranks(n_ranks: int, minimum: int = 2, what: str = "this collective") -> int:
    """The rank count as an int, or ValueError if it is not an integer >= ``minimum``.

    Parameters
    ----------
    n_ranks : int
        The rank count given by the caller (bools are refused).
    minimum : int
        Smallest rank count the algorithm handles.
    what : str
        Names the algorithm in the error message.

    Returns
    -------
    int
        ``n_ranks`` as a Python int.

    Examples
    --------
    >>> check_ranks(8.0)
    8
    """
    if isinstance(n_ranks, bool) or int(n_ranks) != n_ranks or n_ranks < minimum:
        raise ValueError(f"{what} needs an integer number of ranks >= {minimum}, got {n_ranks}")
    return int(n_ranks)


def check_link(bw_per_dir: float, alpha: float) -> None:
    """ValueError unless the bandwidth is > 0 bytes/s and the latency >= 0 s."""
    if not bw_per_dir > 0 or not np.isfinite(bw_per_dir):
        raise ValueError(f"bw_per_dir must be a positive number of bytes/s, got {bw_per_dir}")
    if not alpha >= 0 or not np.isfinite(alpha):
        raise ValueError(f"alpha must be a latency >= 0 seconds, got {alpha}")


def is_power_of_two(p: int) -> bool:
    """True for 1, 2, 4, 8, ..."""
    return p >= 1 and p & (p - 1) == 0


def floor_power_of_two(p: int) -> int:
    """The largest power of two <= p (p >= 1)."""
    return 1 << (int(p).bit_length() - 1)


class OpTable:
    """Ops and dependencies accumulated in numpy blocks, packed into a Schedule at the end."""

    def __init__(self) -> None:
        self.n = 0
        self._ops: list[tuple[np.ndarray, ...]] = []
        self._deps: list[tuple[np.ndarray, np.ndarray, int]] = []

    def add(self, src, dst, chunk, kind) -> np.ndarray:
        """Append ops (arrays, ``kind`` too, broadcast together); returns their ids in the
        same shape.

        Parameters
        ----------
        src, dst : array_like of int
            Sending and receiving participant of each op (ranks, then extra participants such as
            switches).
        chunk : array_like of int
            Chunk each op carries (an index into the Schedule's ``chunk_bounds``).
        kind : int or array_like of int
            ``OP_COPY`` or ``OP_REDUCE`` (the receiver adds the chunk into its copy).

        Returns
        -------
        ndarray of int64
            The new ops' ids, in the broadcast shape of the inputs.
        """
        src, dst, chunk, kind = np.broadcast_arrays(
            np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
            np.asarray(chunk, dtype=np.int64), np.asarray(kind, dtype=np.int8),
        )
        ids = np.arange(self.n, self.n + src.size, dtype=np.int64).reshape(src.shape)
        self._ops.append((src.ravel(), dst.ravel(), chunk.ravel(), kind.ravel()))
        self.n += src.size
        return ids

    def dep(self, ops, deps, kind: int) -> None:
        """Make each op in ``ops`` wait for the matching op in ``deps`` (-1 entries: none).

        Parameters
        ----------
        ops : array_like of int
            Ids of the waiting ops.
        deps : array_like of int
            Id of the op each one waits for (broadcast against ``ops``); -1 means no dependency.
        kind : int
            ``DEP_ARRIVAL`` (wait until that op's data has arrived) or ``DEP_SENT`` (until its
            transfer has ended at the sender).

        Returns
        -------
        None
        """
        ops, deps = np.broadcast_arrays(np.asarray(ops, dtype=np.int64),
                                        np.asarray(deps, dtype=np.int64))
        keep = deps >= 0
        if keep.any():
            self._deps.append((ops[keep].ravel(), deps[keep].ravel(), int(kind)))

    def pack(self) -> tuple[np.ndarray, ...]:
        """Everything added, as flat arrays (duplicate dependencies dropped).

        Returns
        -------
        src, dst, chunk, kind : ndarray, shape (n_ops,)
            The ops, in id order.
        dep_indptr : ndarray of int64, shape (n_ops + 1,)
            Op ``i`` waits for ``dep_op[dep_indptr[i]:dep_indptr[i + 1]]``.
        dep_op, dep_kind : ndarray of int64
            The dependencies (sorted per op) and their kinds.
        """
        src, dst, chunk, kind = (np.concatenate(a) for a in zip(*self._ops, strict=True))
        if self._deps:
            bits = max(self.n - 1, 1).bit_length()  # (owner, dep, kind) in one int64 key
            if 2 * bits + 1 > 63:
                raise ValueError(f"{self.n:,} ops: more than an op table can pack (2**31)")
            parts = []
            for o, d, k in self._deps:
                x = o << (bits + 1)
                x |= d << 1
                x |= k
                parts.append(x)
            key = np.concatenate(parts)
            key.sort()  # sort + mask: np.unique's hash is slower here
            key = key[np.concatenate(([True], key[1:] != key[:-1]))]
            dkind = key & 1
            dep = key >> 1
            dep &= (1 << bits) - 1
            owner = key
            owner >>= bits + 1
        else:
            owner = dep = dkind = np.zeros(0, dtype=np.int64)
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=self.n), out=indptr[1:])
        return src, dst, chunk, kind, indptr, dep, dkind

    def schedule(self, collective: str, algorithm: str, n_ranks: int, n_bytes: float,
                 chunk_bounds: np.ndarray, chunk_owner, chunk_dest,
                 participant_role: tuple[str, ...] = (), meta: dict | None = None,
                 op_bytes: np.ndarray | None = None) -> Schedule:
        """The Schedule of everything added (duplicate dependencies dropped).

        Op sizes are the chunk sizes unless ``op_bytes`` gives them (ragged blocks).

        Parameters
        ----------
        collective, algorithm : str
            Recorded in the Schedule.
        n_ranks : int
            Ranks p; participants ``p, p+1, ...`` are the ``participant_role`` nodes.
        n_bytes : float
            The collective's size in bytes (nccl-tests' "size").
        chunk_bounds : (n_chunks + 1,) array of float
            Chunk edges as fractions of ``n_bytes``, from 0 to 1.
        chunk_owner, chunk_dest : (n_chunks,) array of int
            Rank that starts with / must end with each chunk, or -1 for every rank.
        participant_role : tuple of str
            Topology node name of each extra participant (a switch for NVLS, a relay).
        meta : dict, optional
            Builder details kept in ``Schedule.meta`` (chunks, channels, ...).
        op_bytes : (n_ops,) array of float, optional
            Bytes of each op; default the size of its chunk.

        Returns
        -------
        Schedule
            Marked validated: builders' output is trusted.
        """
        src, dst, chunk, kind, indptr, dep, dkind = self.pack()
        bounds = np.asarray(chunk_bounds, dtype=np.float64)
        return mark_validated(Schedule(
            collective=collective,
            algorithm=algorithm,
            n_ranks=int(n_ranks),
            n_participants=int(n_ranks) + len(participant_role),
            participant_role=tuple(participant_role),
            n_bytes=n_bytes,
            chunk_bounds=bounds,
            chunk_owner=np.asarray(chunk_owner),
            chunk_dest=np.asarray(chunk_dest),
            op_src=src,
            op_dst=dst,
            op_chunk=chunk,
            op_bytes=float(n_bytes) * np.diff(bounds)[chunk] if op_bytes is None else op_bytes,
            op_kind=kind,
            op_delay=np.zeros(self.n),
            dep_indptr=indptr,
            dep_op=dep,
            dep_kind=dkind,
            meta=dict(meta or {}),
        ))


def fold_ranks(n_ranks: int) -> tuple[int, int, np.ndarray]:
    """MPICH's fold of a non-power-of-two rank count onto ``p' = 2^floor(log2 p)`` ranks.

    The first ``2 rem`` ranks (``rem = p - p'``) pair up: even rank ``2v`` hands its data to
    odd rank ``2v + 1``, which plays virtual rank ``v``; rank ``r >= 2 rem`` plays virtual
    rank ``r - rem``. Returns ``(p', rem, real)`` with ``real[v]`` the rank playing ``v``.
    """
    p2 = floor_power_of_two(n_ranks)
    rem = n_ranks - p2
    v = np.arange(p2, dtype=np.int64)
    return p2, rem, np.where(v < rem, 2 * v + 1, v + rem)


def row_pipeline_time(widths, slot_time: float, alpha: float) -> float:
    """Time of a "row pipeline": rows of ``widths[k]`` equal transfers sent back to back.

    Every rank sends row ``k`` (``widths[k]`` transfers of ``slot_time`` each, one at a time)
    after row ``k-1``; transfer ``i`` of row ``k`` also needs a piece that arrived (``alpha``
    after its transfer ended) in the partner's row ``k-1`` — at the same position while rows
    shrink, shifted by ``widths[k-1]`` while they grow. For width sequences that fall, then
    rise (ring: constant; recursive halving: falling; recursive doubling: rising;
    Rabenseifner: both) the longest path through these dependencies is

        T = sum_k max(max(m_{k-1}, m_k) s, s + alpha) + min_k(m_k) s + alpha,

    the ``k`` sum running over the ``K - 1`` row boundaries: each boundary costs the larger
    row's transfer time unless one transfer plus its latency is longer.

    Parameters
    ----------
    widths : sequence of int
        ``m_k``, the transfers per rank in row ``k`` (K rows, K >= 1).
    slot_time : float
        ``s``: seconds to send one transfer at link rate.
    alpha : float
        Latency of one message, seconds; >= 0.

    Returns
    -------
    float
        ``T`` in seconds.

    Examples
    --------
    >>> row_pipeline_time([1, 1, 1], 1.0, 0.5)      # 3 unpipelined steps: 3 (s + alpha)
    4.5
    """
    m = np.asarray(widths, dtype=np.float64)
    s = float(slot_time)
    steps = np.maximum(np.maximum(m[:-1], m[1:]) * s, s + alpha)
    return float(steps.sum() + m.min() * s + alpha)
