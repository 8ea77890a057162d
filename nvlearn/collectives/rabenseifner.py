"""Rabenseifner's all-reduce: recursive-halving reduce-scatter + recursive-doubling all-gather.

For ``p = 2^L`` ranks and a buffer of ``p`` blocks (rank ``r`` ends owning block ``r``):

* reduce-scatter by recursive halving, step ``k = 0 .. L-1`` with ``d = p / 2^(k+1)``: rank
  ``v`` and partner ``v XOR d`` each hold ``2d`` blocks; each sends the ``d`` blocks of the
  half containing the partner's block (the partner adds them) and keeps the other half. Data
  sent: ``n/2, n/4, ..., n/p`` — ``(p-1)/p n`` in all.
* all-gather by recursive doubling, step ``k = 0 .. L-1`` with ``e = 2^k``: rank ``v`` sends
  the ``e`` finished blocks it holds to ``v XOR e``. Again ``(p-1)/p n``.

So each rank sends ``2 (p-1)/p n`` — the ring's optimal volume — in ``2 log2 p`` steps instead
of ``2 (p-1)``. Non-powers of two are folded as MPICH does (:func:`~nvlearn.collectives._ops.
fold_ranks`): the first ``2 rem`` ranks pair up, the even one sends its whole buffer to the odd
one first and gets the result back at the end (two extra steps of ``n`` bytes). The
power-of-two phase starts once the fold has arrived everywhere (a barrier; MPICH lets pairs
of unfolded ranks start early, which would make the time depend on which ranks fold).

Pipelining and order. Each block is cut into ``chunks`` slots and every slot is its own
transfer; a rank sends them one at a time, step after step, each as soon as the slot has
arrived. The blocks of a step go out in the order the partner will forward them next (the
slot for ``v XOR (2d - 1 - i)`` at position ``i``), so a rank can forward slot ``i`` of step
``k+1`` once slot ``i`` of step ``k`` has arrived — a "row pipeline" whose rows have
``d chunks`` transfers. Its exact time on a single switch, with ``s = n / (p' chunks B)``, is
:func:`~nvlearn.collectives._ops.row_pipeline_time` of the row widths
``[p'c/2, ..., 2c, c, c, 2c, ..., p'c/2]``:

    T = 2 sum_{j=1}^{L-1} max(2^j c s, s + alpha) + max(c s, s + alpha) + c s + alpha

(:func:`rabenseifner_time`). A fold adds the fold step in front, ``p' c s + alpha``, and
the unfold as one more row of width ``p' c``: ``+ max(p' c s, s + alpha)``.

The textbook cost (Thakur, Rabenseifner & Gropp 2005; MPICH's comments) sends each step as
one message: ``2 log2 p alpha + 2 (p-1)/p n beta`` (+ ``(p-1)/p n gamma``); non-powers of two
add ``2 alpha + 2 n beta``. Here a step's blocks are separate transfers, so later steps start
before earlier ones finish and latency is paid ``2 log2 p`` times only when ``alpha`` exceeds
a step's transfer time — the simulated time is never above the textbook one.

:func:`recursive_halving_reduce_scatter` and :func:`recursive_doubling_allgather` are the two
halves alone (``p`` a power of two), with ``n_bytes`` the total array as nccl-tests counts it.

References
----------
R. Rabenseifner, "Optimization of collective reduction operations", ICCS 2004, LNCS 3036.
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005.
MPICH src/mpi/coll/allreduce/allreduce_intra_reduce_scatter_allgather.c.
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import (
    OpTable,
    check_link,
    check_ranks,
    check_size,
    fold_ranks,
    is_power_of_two,
    row_pipeline_time,
)
from nvlearn.schedule import DEP_ARRIVAL, DEP_SENT, OP_COPY, OP_REDUCE, Schedule

__all__ = [
    "rabenseifner_allreduce", "recursive_halving_reduce_scatter", "recursive_doubling_allgather",
    "rabenseifner_time", "rabenseifner_time_textbook", "recursive_halving_time",
    "recursive_doubling_allgather_time",
]


def _require_power_of_two(p: int, name: str) -> None:
    if not is_power_of_two(p):
        raise ValueError(
            f"{name} needs a power-of-two rank count (2, 4, 8, 16, ...), got p={p}; use "
            "algorithm='ring' (any p) for this collective"
        )


class _Rows:
    """Recursive halving / doubling rows over ``p2`` virtual ranks, ops in an OpTable."""

    def __init__(self, ops: OpTable, p2: int, c: int, real: np.ndarray, rem: int) -> None:
        self.ops, self.p2, self.c, self.real, self.rem = ops, p2, c, real, rem
        self.v = np.arange(p2)
        self.rs: list[np.ndarray] = []   # ids (p2, d, c) per reduce-scatter row
        self.pre: np.ndarray | None = None
        self.last = np.full(p2, -1, dtype=np.int64)  # each virtual rank's latest send

    def _chain(self, ids: np.ndarray) -> None:
        flat = ids.reshape(self.p2, -1)
        self.ops.dep(flat[:, 1:], flat[:, :-1], DEP_SENT)
        self.ops.dep(flat[:, 0], self.last, DEP_SENT)
        self.last = flat[:, -1].copy()

    def fold(self) -> None:
        """Extra rank 2v sends its whole buffer to 2v + 1 (virtual v < rem), pre-ordered."""
        f = np.arange(self.rem)
        i = np.arange(self.p2)
        block = f[:, None] ^ (self.p2 - 1 - i)[None, :]
        chunk = block[:, :, None] * self.c + np.arange(self.c)
        self.pre = self.ops.add((2 * f)[:, None, None], self.real[f][:, None, None], chunk,
                                OP_REDUCE)
        flat = self.pre.reshape(self.rem, -1)
        self.ops.dep(flat[:, 1:], flat[:, :-1], DEP_SENT)

    def _receipts(self, v: np.ndarray, two_d: int, i: np.ndarray, j: np.ndarray) -> list:
        """Ops that delivered, to virtual rank v, its block at row position (i, j) for a row
        whose blocks are ``v XOR (two_d - 1 - i)``: one per earlier halving row (+ fold)."""
        out = []
        for r, ids in enumerate(self.rs):
            dr = self.p2 >> (r + 1)
            out.append(ids[v ^ dr, dr - two_d + i, j])
        if self.pre is not None:
            pos = self.p2 - two_d + i
            folded = v < self.rem
            out.append(np.where(folded, self.pre[np.minimum(v, self.rem - 1), pos, j], -1))
        return out

    def halving(self) -> None:
        """Reduce-scatter rows; afterwards virtual rank v holds the sum of block v."""
        L = self.p2.bit_length() - 1
        for k in range(L):
            d = self.p2 >> (k + 1)
            v, i, j = np.meshgrid(self.v, np.arange(d), np.arange(self.c), indexing="ij")
            block = v ^ (2 * d - 1 - i)
            ids = self.ops.add(self.real[v], self.real[v ^ d], block * self.c + j, OP_REDUCE)
            for dep in self._receipts(v, 2 * d, i, j):
                self.ops.dep(ids, dep, DEP_ARRIVAL)
            if k == 0 and self.pre is not None:
                # the power-of-two phase starts once the fold is complete everywhere
                self.ops.dep(ids[:, :1, 0], self.pre[:, -1, -1][None, :], DEP_ARRIVAL)
            self._chain(ids)
            self.rs.append(ids)

    def doubling(self, unfold: bool) -> None:
        """All-gather rows (then, with ``unfold``, the result back to the extra ranks)."""
        L = self.p2.bit_length() - 1
        prev = None
        for k in range(L + (1 if unfold else 0)):
            e = 1 << k
            last_row = k == L
            senders = np.arange(self.rem) if last_row else self.v
            v, i, j = np.meshgrid(senders, np.arange(e), np.arange(self.c), indexing="ij")
            chunk = (v ^ i) * self.c + j
            dst = 2 * v if last_row else self.real[v ^ e]
            ids = self.ops.add(self.real[v], dst, chunk, OP_COPY)
            if k == 0 and self.rs:
                for dep in self._receipts(v, 1, i, j):
                    self.ops.dep(ids, dep, DEP_ARRIVAL)
            if k >= 1:
                h = e // 2
                new = i >= h
                src_pos = np.where(new, i - h, 0)
                self.ops.dep(ids, np.where(new, prev[v ^ h, src_pos, j], -1), DEP_ARRIVAL)
            if last_row:
                flat = ids.reshape(self.rem, -1)
                self.ops.dep(flat[:, 1:], flat[:, :-1], DEP_SENT)
                self.ops.dep(flat[:, 0], self.last[: self.rem], DEP_SENT)
            else:
                self._chain(ids)
            prev = ids


def rabenseifner_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1) -> Schedule:
    """Rabenseifner all-reduce (any p >= 2; non-powers of two folded as MPICH does).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    chunks : int
        Slots per block (each of the p' blocks is sent in ``chunks`` pieces); >= 1.

    Returns
    -------
    Schedule
        Recursive-halving reduce-scatter then recursive-doubling all-gather over p' ranks, with
        the fold's extra exchanges first and last when p is not a power of two.

    Examples
    --------
    >>> s = rabenseifner_allreduce(8, 8e6)
    >>> s.n_ops, float(s.bytes_sent()[0])      # 2 (p-1)/p n per rank
    (112, 14000000.0)
    """
    p = check_ranks(n_ranks, 2, "Rabenseifner's all-reduce")
    check_size(n_bytes, chunks)
    c = int(chunks)
    p2, rem, real = fold_ranks(p)
    ops = OpTable()
    rows = _Rows(ops, p2, c, real, rem)
    if rem:
        rows.fold()
    rows.halving()
    rows.doubling(unfold=rem > 0)
    n_chunks = p2 * c
    return ops.schedule("allreduce", "rabenseifner", p, n_bytes,
                        np.linspace(0.0, 1.0, n_chunks + 1), np.full(n_chunks, -1),
                        np.full(n_chunks, -1), meta={"chunks": c, "folded_ranks": rem})


def recursive_halving_reduce_scatter(n_ranks: int, n_bytes: float, chunks: int = 1) -> Schedule:
    """Reduce-scatter by recursive halving (p a power of two); ``n_bytes`` = total array.

    Parameters
    ----------
    n_ranks : int
        Ranks p, a power of two >= 2.
    n_bytes : float
        Total array in bytes (p blocks of ``n_bytes / p``); > 0.
    chunks : int
        Slots per block; >= 1.

    Returns
    -------
    Schedule
        ``log2 p`` exchange rounds, halving the data each round.

    Examples
    --------
    >>> s = recursive_halving_reduce_scatter(4, 4e6)
    >>> s.n_ops, float(s.bytes_sent()[0])      # (p-1)/p n per rank
    (12, 3000000.0)
    """
    p = check_ranks(n_ranks, 2, "recursive halving")
    _require_power_of_two(p, "recursive_halving reduce-scatter")
    check_size(n_bytes, chunks)
    c = int(chunks)
    ops = OpTable()
    _Rows(ops, p, c, np.arange(p), 0).halving()
    block = np.repeat(np.arange(p), c)
    return ops.schedule("reduce_scatter", "recursive_halving", p, n_bytes,
                        np.linspace(0.0, 1.0, p * c + 1), np.full(p * c, -1), block,
                        meta={"chunks": c})


def recursive_doubling_allgather(n_ranks: int, n_bytes: float, chunks: int = 1) -> Schedule:
    """All-gather by recursive doubling (p a power of two); ``n_bytes`` = total array.

    Parameters
    ----------
    n_ranks : int
        Ranks p, a power of two >= 2.
    n_bytes : float
        Total gathered array in bytes (p blocks of ``n_bytes / p``); > 0.
    chunks : int
        Slots per block; >= 1.

    Returns
    -------
    Schedule
        ``log2 p`` exchange rounds, doubling the data each round.

    Examples
    --------
    >>> recursive_doubling_allgather(8, 8e6).n_ops     # p (p - 1) block transfers
    56
    """
    p = check_ranks(n_ranks, 2, "recursive doubling")
    _require_power_of_two(p, "recursive_doubling all-gather")
    check_size(n_bytes, chunks)
    c = int(chunks)
    ops = OpTable()
    _Rows(ops, p, c, np.arange(p), 0).doubling(unfold=False)
    block = np.repeat(np.arange(p), c)
    return ops.schedule("allgather", "recursive_doubling", p, n_bytes,
                        np.linspace(0.0, 1.0, p * c + 1), block, np.full(p * c, -1),
                        meta={"chunks": c})


def _widths(p2: int, c: int, halving: bool, doubling: bool) -> list[int]:
    L = p2.bit_length() - 1
    rows = [c * (p2 >> (k + 1)) for k in range(L)] if halving else []
    return rows + ([c << k for k in range(L)] if doubling else [])


def rabenseifner_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                      chunks: int = 1) -> float:
    """Exact time (s) of :func:`rabenseifner_allreduce` on one uncontended switch.

    Model: each rank has one link of ``bw_per_dir`` bytes/s per direction to a
    non-blocking switch; a message arrives ``alpha`` s after its transfer ends (the
    simulator's fluid model). The formula is in the module docstring
    (``s = n / (p' chunks B)``, ``p'`` the power of two ``<= p``).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each rank's link, bytes/s per direction; > 0.
    alpha : float
        Latency of one message, seconds; >= 0.
    chunks : int
        Slots per block; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(rabenseifner_time(8, 1e9, 100e9, 0.0) * 1e3, 3)   # 2 (p-1)/p n / B
    17.5
    """
    p = check_ranks(n_ranks, 2, "Rabenseifner's all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    p2, rem, _ = fold_ranks(p)
    c = int(chunks)
    s = n_bytes / (p2 * c * bw_per_dir)
    core = _widths(p2, c, True, True)
    if not rem:
        return row_pipeline_time(core, s, alpha)
    return p2 * c * s + alpha + row_pipeline_time(core + [p2 * c], s, alpha)


def rabenseifner_time_textbook(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                               gamma: float = 0.0) -> float:
    """Textbook (unpipelined) cost: ``2 lg p alpha + 2 (p-1)/p n beta + (p-1)/p n gamma``.

    For a non-power of two MPICH's fold adds ``2 alpha + 2 n beta + n gamma`` (with ``p'``,
    the power of two below ``p``, in place of ``p``). Thakur, Rabenseifner & Gropp (2005).

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
        Reduction cost, seconds per byte; >= 0.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(rabenseifner_time_textbook(8, 1e9, 100e9, 1e-6) * 1e3, 4)
    17.506
    """
    p = check_ranks(n_ranks, 2, "Rabenseifner's all-reduce")
    check_size(n_bytes, 1)
    check_link(bw_per_dir, alpha)
    p2, rem, _ = fold_ranks(p)
    L = p2.bit_length() - 1
    frac = (p2 - 1) / p2
    t = 2 * L * alpha + 2 * frac * n_bytes / bw_per_dir + frac * n_bytes * gamma
    if rem:
        t += 2 * alpha + 2 * n_bytes / bw_per_dir + n_bytes * gamma
    return t


def recursive_halving_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                           chunks: int = 1) -> float:
    """Exact time (s) of :func:`recursive_halving_reduce_scatter` on one uncontended switch:
    ``sum_{k<L-1} max(d_k c s, s + alpha) + c s + alpha``, ``s = n / (p chunks B)``.

    Textbook (Thakur et al. 2005): ``lg p alpha + (p-1)/p n beta``.

    Parameters
    ----------
    n_ranks : int
        Ranks p, a power of two >= 2.
    n_bytes : float
        Total array in bytes; > 0.
    bw_per_dir : float
        Each rank's link, bytes/s per direction; > 0.
    alpha : float
        Latency of one message, seconds; >= 0.
    chunks : int
        Slots per block (``c``); >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(recursive_halving_time(8, 1e9, 100e9, 0.0) * 1e3, 3)
    8.75
    """
    return _one_phase_time(n_ranks, n_bytes, bw_per_dir, alpha, chunks, halving=True)


def recursive_doubling_allgather_time(n_ranks: int, n_bytes: float, bw_per_dir: float,
                                      alpha: float, chunks: int = 1) -> float:
    """Exact time (s) of :func:`recursive_doubling_allgather` on one uncontended switch:
    ``c s + alpha + sum_{k=1}^{L-1} max(2^k c s, s + alpha)``, ``s = n / (p chunks B)``.

    Textbook (Thakur et al. 2005): ``lg p alpha + (p-1)/p n beta``.

    Parameters
    ----------
    n_ranks, n_bytes, bw_per_dir, alpha, chunks
        As :func:`recursive_halving_time` (p a power of two; ``n_bytes`` the total gathered
        array; bytes, bytes/s per direction, seconds).

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(recursive_doubling_allgather_time(8, 1e9, 100e9, 0.0) * 1e3, 3)
    8.75
    """
    return _one_phase_time(n_ranks, n_bytes, bw_per_dir, alpha, chunks, halving=False)


def _one_phase_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                    chunks: int, *, halving: bool) -> float:
    """Rabenseifner's reduce-scatter phase (``halving``) or its all-gather phase alone."""
    what = ("recursive halving", "recursive_halving reduce-scatter") if halving else (
        "recursive doubling", "recursive_doubling all-gather")
    p = check_ranks(n_ranks, 2, what[0])
    _require_power_of_two(p, what[1])
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    s = n_bytes / (p * chunks * bw_per_dir)
    return row_pipeline_time(_widths(p, int(chunks), halving, not halving), s, alpha)
