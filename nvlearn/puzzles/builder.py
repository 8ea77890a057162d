"""Write a Schedule by hand: :class:`ScheduleBuilder`, one ``send`` per op.

A collective is a list of ops "participant ``src`` sends chunk ``c`` to ``dst``, which
copies it (``reduce=False``) or adds it to its own copy (``reduce=True``)"
(:mod:`nvlearn.schedule`). :func:`nvlearn.schedule.make_schedule` takes those ops as
parallel arrays with a dependency list per op; the builder collects them one call at a
time and fills in what the collective promises per chunk (which rank's data it carries,
which rank must end holding it) from the collective's usual layout (:func:`promises`).

Dependencies
------------
By default an op waits for exactly the ops its data needs, in the order
the learner wrote them: a send of chunk ``c`` from ``src`` waits for the ops that last
wrote ``c`` at ``src``; a copy into ``dst`` also waits for the earlier ops that read or
wrote ``c`` at ``dst`` (so it cannot overwrite a value still to be sent on); a reduce into
``dst`` waits for the last copy into it and the earlier reads (reduces into one place
commute, so they may run at once). ``after=[op, ...]`` adds ops to wait for;
``auto=False`` keeps only those — which is how a race is written on purpose. Ops between
one pair of participants also go one at a time, in the order written (``fifo=True``), so
chunks pipeline over a link instead of sharing it all at once.

Examples
--------
>>> b = ScheduleBuilder(collective="allreduce", n_ranks=2, n_bytes=8.0)
>>> first = b.send(0, 1, 0, reduce=True)     # rank 1 now holds the sum
>>> b.send(1, 0, 0)                          # waits for ``first`` by itself
1
>>> s = b.build()
>>> s.n_ops, s.deps_of(1).tolist()
(2, [0])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from nvlearn.schedule import (
    COLLECTIVES,
    DEP_ARRIVAL,
    DEP_SENT,
    OP_COPY,
    OP_REDUCE,
    Schedule,
    make_schedule,
)

__all__ = ["n_blocks", "promises", "chunk_blocks", "ScheduleBuilder"]


def n_blocks(collective: str, n_ranks: int) -> int:
    """Blocks the buffer of ``collective`` is divided into: the units its promises name.

    One for all-reduce and broadcast, ``n_ranks`` for reduce-scatter and all-gather (block
    ``r`` belongs to rank ``r``), ``n_ranks**2`` for all-to-all (block ``s * n_ranks + d``
    goes from rank ``s`` to rank ``d``).

    Examples
    --------
    >>> n_blocks("allreduce", 8), n_blocks("allgather", 8), n_blocks("alltoall", 8)
    (1, 8, 64)
    """
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective!r}; expected one of {COLLECTIVES}")
    if collective in ("allreduce", "broadcast", "reduce"):
        return 1
    return n_ranks * n_ranks if collective == "alltoall" else n_ranks


def promises(collective: str, n_ranks: int, block: np.ndarray | int,
             root: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(chunk_owner, chunk_dest)`` of chunks lying in ``block`` (see :func:`n_blocks`).

    Owner -1 means every rank contributes (the result is the sum); dest -1 means every
    rank must end holding it (:mod:`nvlearn.schedule`).

    Parameters
    ----------
    collective : str
        One of the puzzles' collectives (allreduce, reduce_scatter, allgather, broadcast,
        reduce, alltoall).
    n_ranks : int
        Ranks p.
    block : int or array_like of int
        Block indices (``0 .. n_blocks - 1``; all-to-all block ``s p + d`` is rank s's data for
        rank d).
    root : int
        Root rank of a broadcast or reduce.

    Returns
    -------
    (ndarray, ndarray)
        ``chunk_owner`` and ``chunk_dest`` per block, -1 meaning every rank.

    Examples
    --------
    >>> promises("reduce_scatter", 4, [0, 3])
    (array([-1, -1]), array([0, 3]))
    >>> promises("alltoall", 4, [6])          # block 6 = rank 1's data for rank 2
    (array([1]), array([2]))
    """
    b = np.atleast_1d(np.asarray(block, dtype=np.int64))
    minus = np.full(b.shape, -1, dtype=np.int64)
    if collective == "allreduce":
        return minus, minus.copy()
    if collective == "reduce_scatter":
        return minus, b
    if collective == "allgather":
        return b, minus
    if collective == "broadcast":
        return np.full(b.shape, root, dtype=np.int64), minus
    if collective == "reduce":
        return minus, np.full(b.shape, root, dtype=np.int64)
    if collective == "alltoall":
        return b // n_ranks, b % n_ranks
    raise ValueError(f"unknown collective {collective!r}; expected one of {COLLECTIVES}")


def chunk_blocks(collective: str, n_ranks: int, chunk_bounds: Sequence[float]) -> np.ndarray:
    """The block each chunk lies in; ValueError if a chunk straddles two blocks.

    Parameters
    ----------
    collective : str
        The collective (sets the number of equal blocks, :func:`n_blocks`).
    n_ranks : int
        Ranks p.
    chunk_bounds : sequence of float
        Chunk edges as fractions of the buffer, 0 to 1.

    Returns
    -------
    ndarray of int
        The block of each chunk.

    Examples
    --------
    >>> chunk_blocks("allgather", 2, [0.0, 0.25, 0.5, 1.0]).tolist()
    [0, 0, 1]
    """
    bounds = np.asarray(chunk_bounds, dtype=np.float64)
    nb = n_blocks(collective, n_ranks)
    lo = np.floor(bounds[:-1] * nb + 1e-9).astype(np.int64)
    hi = np.ceil(bounds[1:] * nb - 1e-9).astype(np.int64) - 1
    bad = np.flatnonzero(lo != hi)
    if bad.size:
        c = int(bad[0])
        raise ValueError(
            f"chunk {c} ({bounds[c]:.4g} .. {bounds[c + 1]:.4g} of the buffer) straddles "
            f"blocks {lo[c]} and {hi[c]} of the {collective} ({nb} equal blocks); put a chunk "
            "boundary at every block boundary (multiples of 1/" f"{nb})"
        )
    return lo


class ScheduleBuilder:
    """Collect ops one ``send`` at a time and build a checked-shape :class:`Schedule`.

    Parameters
    ----------
    puzzle : Instance, optional
        A puzzle instance (:meth:`nvlearn.puzzles.Puzzle.instance`): its collective, rank
        count, bytes and root are used. Or give them by keyword.
    chunks : int, optional
        Split the buffer into this many equal chunks (default: one per block). For
        reduce-scatter and all-gather it must be a multiple of ``n_ranks``, for all-to-all
        of ``n_ranks**2``; chunk ``c`` then lies in block ``c // (chunks // n_blocks)``.
    chunk_bounds : sequence of float, optional
        Uneven chunks instead: boundaries from 0.0 to 1.0 (fractions of the buffer), with a
        boundary at every block boundary.
    collective, n_ranks, n_bytes, root : optional
        When no ``puzzle`` is given.
    algorithm : str
        A name for the schedule (shown in messages).
    switches : sequence of str
        Names of switch nodes that take part (SHARP / NVLS): participant ``n_ranks + k``
        is ``switches[k]``.
    fifo : bool
        Ops from one participant to another go one after the other, in the order they were
        sent (each starts when the previous one has left: ``DEP_SENT``), as on one NCCL
        connection — so chunks pipeline instead of sharing the link all at once. Default
        True.

    Examples
    --------
    All-gather on three ranks: each rank sends its block to the two others.

    >>> b = ScheduleBuilder(collective="allgather", n_ranks=3, n_bytes=3e6)
    >>> for r in range(3):
    ...     for d in range(3):
    ...         if d != r:
    ...             _ = b.send(r, d, b.chunks_of(r)[0])
    >>> s = b.build()
    >>> s.n_ops, s.chunk_owner.tolist(), float(s.op_bytes[0])
    (6, [0, 1, 2], 1000000.0)
    """

    def __init__(self, puzzle=None, *, chunks: int | None = None,
                 chunk_bounds: Sequence[float] | None = None, collective: str | None = None,
                 n_ranks: int | None = None, n_bytes: float | None = None, root: int = 0,
                 algorithm: str = "mine", switches: Sequence[str] = (),
                 fifo: bool = True) -> None:
        """Start an empty schedule for a puzzle instance, or for a collective given by hand.

        Parameters
        ----------
        puzzle : Instance, optional
            A puzzle instance; its collective, rank count, size and root are used.
        chunks : int, optional
            Equal chunks, a positive multiple of the collective's blocks (default one per block).
        chunk_bounds : sequence of float, optional
            Uneven chunk edges instead, fractions rising strictly from 0 to 1, with an edge at
            every block boundary.
        collective : str, optional
            Without ``puzzle``: the collective.
        n_ranks : int, optional
            Without ``puzzle``: ranks p >= 1.
        n_bytes : float, optional
            Without ``puzzle``: nccl-tests' "size" in bytes.
        root : int
            Root of a broadcast or reduce.
        algorithm : str
            Label recorded in the Schedule.
        switches : sequence of str
            Topology node names of switch participants (ids ``p, p+1, ...``), for in-network
            reduction.
        fifo : bool
            Ops between one pair of participants go one at a time, in the order written.
        """
        if puzzle is not None:
            collective, n_ranks, n_bytes = puzzle.collective, puzzle.n_ranks, puzzle.n_bytes
            root = puzzle.root
        if collective is None or n_ranks is None or n_bytes is None:
            raise ValueError("give a puzzle instance, or collective=, n_ranks= and n_bytes=")
        if isinstance(n_ranks, bool) or int(n_ranks) != n_ranks or n_ranks < 1:
            raise ValueError(f"n_ranks must be a positive int, got {n_ranks!r}")
        self.collective = str(collective)
        self.n_ranks = int(n_ranks)
        self.n_bytes = float(n_bytes)
        self.root = int(root)
        self.algorithm = str(algorithm)
        self.switches = tuple(switches)
        self.fifo = bool(fifo)
        nb = n_blocks(self.collective, self.n_ranks)
        if chunk_bounds is not None and chunks is not None:
            raise ValueError("give chunks (equal chunks) or chunk_bounds (uneven), not both")
        if chunk_bounds is None:
            k = nb if chunks is None else chunks
            if isinstance(k, bool) or int(k) != k or k < 1 or k % nb:
                raise ValueError(f"chunks must be a positive multiple of {nb} (the "
                                 f"{self.collective}'s blocks), got {chunks!r}")
            chunk_bounds = np.linspace(0.0, 1.0, int(k) + 1)
        self.chunk_bounds = np.asarray(chunk_bounds, dtype=np.float64)
        b = self.chunk_bounds
        if b.ndim != 1 or b.size < 2 or b[0] != 0.0 or b[-1] != 1.0 or np.any(np.diff(b) <= 0):
            raise ValueError("chunk_bounds must increase strictly from 0.0 to 1.0")
        self.chunk_block = chunk_blocks(self.collective, self.n_ranks, b)
        self._src: list[int] = []
        self._dst: list[int] = []
        self._chunk: list[int] = []
        self._kind: list[int] = []
        self._deps: list[list[tuple[int, int]]] = []
        # per (participant, chunk): last copy into it, reduces since, reads since the copy
        self._base: dict[tuple[int, int], int] = {}
        self._adds: dict[tuple[int, int], list[int]] = {}
        self._reads: dict[tuple[int, int], list[int]] = {}
        self._on_link: dict[tuple[int, int], int] = {}

    @property
    def n_chunks(self) -> int:
        """Chunks the buffer is split into."""
        return int(self.chunk_bounds.size - 1)

    @property
    def n_ops(self) -> int:
        """Ops sent so far."""
        return len(self._src)

    @property
    def n_participants(self) -> int:
        """Ranks plus switch participants."""
        return self.n_ranks + len(self.switches)

    def chunks_of(self, block: int) -> list[int]:
        """The chunks lying in ``block`` (a rank for reduce-scatter / all-gather,
        ``s * n_ranks + d`` for all-to-all, 0 for all-reduce and broadcast).

        Examples
        --------
        >>> ScheduleBuilder(collective="reduce_scatter", n_ranks=2, n_bytes=1.0,
        ...                 chunks=4).chunks_of(1)
        [2, 3]
        """
        return np.flatnonzero(self.chunk_block == int(block)).tolist()

    def _check_participant(self, x, what: str) -> int:
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
            raise ValueError(f"{what} must be an int (a rank), got {x!r}")
        if not 0 <= x < self.n_participants:
            sw = f" or a switch {self.n_ranks}..{self.n_participants - 1}" if self.switches \
                else ""
            raise ValueError(f"{what}={x} is not a rank of this schedule (0..{self.n_ranks - 1}"
                             f"{sw})")
        return int(x)

    def send(self, src: int, dst: int, chunk: int, reduce: bool = False,
             after: Iterable[int] = (), auto: bool = True) -> int:
        """Add the op "``src`` sends ``chunk`` to ``dst``"; returns its op id.

        ``reduce=True``: ``dst`` adds it to its own copy; else it replaces it.
        ``after``: op ids whose data must have arrived before this op starts, on top of
        the automatic ones; ``auto=False`` drops the automatic data dependencies (module
        docstring) and keeps only ``after`` (and the connection's order, see ``fifo``).

        Parameters
        ----------
        src, dst : int
            Participants (ranks, then switches); different.
        chunk : int
            Chunk id, ``0 <= chunk < n_chunks``.
        reduce : bool
            Add into ``dst``'s copy instead of replacing it.
        after : int or iterable of int
            Earlier op ids this op also waits for (their data arrived).
        auto : bool
            Keep the automatic data dependencies.

        Returns
        -------
        int
            The new op's id.

        Examples
        --------
        >>> b = ScheduleBuilder(collective="broadcast", n_ranks=3, n_bytes=1e6)
        >>> a = b.send(0, 1, 0)
        >>> b.send(1, 2, 0), b.build().deps_of(1).tolist()
        (1, [0])
        """
        src = self._check_participant(src, "src")
        dst = self._check_participant(dst, "dst")
        if src == dst:
            raise ValueError(f"src and dst are both {src}: an op moves a chunk between two "
                             "participants")
        if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or \
                not 0 <= chunk < self.n_chunks:
            raise ValueError(f"chunk must be an int in 0..{self.n_chunks - 1}, got {chunk!r}")
        chunk = int(chunk)
        op = self.n_ops
        s_key, d_key = (src, chunk), (dst, chunk)
        arrival: set[int] = set()
        if auto:
            arrival.update(self._adds.get(s_key, []))
            if s_key in self._base:
                arrival.add(self._base[s_key])
            arrival.update(self._reads.get(d_key, []))
            if d_key in self._base:
                arrival.add(self._base[d_key])
            if not reduce:
                arrival.update(self._adds.get(d_key, []))
        if isinstance(after, (int, np.integer)):
            after = [after]
        for a in after:
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < op:
                raise ValueError(f"after names op {a!r}, but only ops 0..{op - 1} exist yet "
                                 "(use the ids send() returned)")
            arrival.add(int(a))
        deps = [(d, DEP_ARRIVAL) for d in sorted(arrival)]
        prev = self._on_link.get((src, dst))
        if self.fifo and prev is not None and prev not in arrival:
            deps.append((prev, DEP_SENT))
        self._on_link[(src, dst)] = op
        self._reads.setdefault(s_key, []).append(op)
        if reduce:
            self._adds.setdefault(d_key, []).append(op)
        else:
            self._base[d_key] = op
            self._adds[d_key] = []
            self._reads[d_key] = []
        self._src.append(src)
        self._dst.append(dst)
        self._chunk.append(chunk)
        self._kind.append(OP_REDUCE if reduce else OP_COPY)
        self._deps.append(deps)
        return op

    def build(self) -> Schedule:
        """The Schedule (shape-checked; :func:`nvlearn.puzzles.check` checks what it
        computes). An empty builder gives an empty schedule, which computes nothing."""
        owner, dest = promises(self.collective, self.n_ranks, self.chunk_block, self.root)
        return make_schedule(
            self.collective, self.algorithm, self.n_ranks, self.n_bytes, self.chunk_bounds,
            owner, dest, op_src=np.asarray(self._src, dtype=np.int64),
            op_dst=np.asarray(self._dst, dtype=np.int64),
            op_chunk=np.asarray(self._chunk, dtype=np.int64),
            op_kind=np.asarray(self._kind, dtype=np.int8), deps=self._deps,
            participant_role=self.switches, meta={"builder": "ScheduleBuilder"})
