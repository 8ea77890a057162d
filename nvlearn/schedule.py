"""The Schedule: a collective written down as ops between participants.

A collective algorithm (ring, tree, SHARP ...) is, for nvlearn, nothing but a list of *ops*:
"participant ``src`` sends chunk ``c`` of its buffer to participant ``dst``, which either
copies it or adds it to its own copy", each op waiting for some earlier ops. The same
Schedule is run twice: by :mod:`nvlearn.dataplane` on real numbers, and by :mod:`nvlearn.sim`
on a timed model of the fabric.

Participants ``0 .. n_ranks-1`` are GPU ranks. Extra participants (``n_ranks ..``) are
switches that take part in a reduction (SHARP / NVLS); their role string names the switch.

The buffer is split into chunks by ``chunk_bounds`` (fractions of the buffer, 0 to 1), so one
Schedule serves arrays of any length and dtype. What the collective *promises* is recorded
per chunk: ``chunk_owner[c]`` is the rank whose input the chunk carries (-1: every rank
contributes, and the chunk's result is the sum of all contributions) and ``chunk_dest[c]`` is
the rank that must end holding the result (-1: every rank must). So all-reduce is
(-1, -1), reduce-scatter (-1, r), all-gather (r, -1), broadcast from root (root, -1),
all-to-all (source, destination).

:func:`validate` checks a Schedule end to end: structure, acyclic dependencies, and — by
symbolic execution with random 64-bit keys standing for each rank's data — that every rank
ends holding exactly what the collective promises (no missing contribution, none counted
twice), in two different valid execution orders, so a missing dependency (a race) shows up.

References
----------
Z. Cai et al., "Synthesizing optimal collective algorithms", ACM PPoPP 2021 (SCCL: a
collective as chunk sends between ranks, step by step).
M. Cowan et al., "MSCCLang: Microsoft Collective Communication Language", ACM ASPLOS 2023
(a collective program as chunk copies and reductions with dependencies, compiled to run
on GPUs).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "OP_COPY", "OP_REDUCE", "DEP_ARRIVAL", "DEP_SENT", "OP_KIND_NAMES", "COLLECTIVES", "Schedule",
    "make_schedule", "expected_keys", "promised_mask", "validate", "mark_validated",
    "ensure_validated",
]

OP_COPY = 0
OP_REDUCE = 1
DEP_ARRIVAL = 0
DEP_SENT = 1

OP_KIND_NAMES = {OP_COPY: "copy", OP_REDUCE: "reduce"}
COLLECTIVES = ("allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall")


def _ro(a: np.ndarray, dtype) -> np.ndarray:
    out = np.ascontiguousarray(a, dtype=dtype)
    if out is a:
        out = out.copy()
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class Schedule:
    """A collective as ops over chunks, with dependencies (see the module docstring).

    Build one with a collective builder (:func:`nvlearn.collectives.allreduce`) or
    :func:`make_schedule`; the constructor checks array shapes, ranges and ordering.

    Attributes
    ----------
    collective, algorithm : str
        What it computes and how ("allreduce", "ring").
    n_ranks : int
        GPU ranks, participants ``0 .. n_ranks-1``.
    n_participants : int
        ``n_ranks`` plus switch participants.
    participant_role : tuple of str
        Role of each switch participant (length ``n_participants - n_ranks``).
    n_bytes : float
        Size in bytes of the buffer every participant has in the model: the per-rank buffer
        for all-reduce and broadcast, the total array for reduce-scatter and all-gather, and
        ``n_ranks`` x the per-rank send buffer for all-to-all (whose chunk ``s * n_ranks + d``
        is rank s's block for rank d). :attr:`nccl_size` converts to nccl-tests' "size".
    chunk_bounds : ndarray of float64, shape (n_chunks + 1,)
        Chunk boundaries as fractions of the buffer.
    chunk_owner, chunk_dest : ndarray of int32, shape (n_chunks,)
        What the collective promises per chunk (module docstring).
    op_src, op_dst, op_chunk : ndarray of int32, shape (n_ops,)
    op_bytes : ndarray of float64, bytes moved by each op (> 0)
    op_kind : ndarray of int8, ``OP_COPY`` or ``OP_REDUCE``
    op_delay : ndarray of float64, seconds between an op being ready and its transfer start
    dep_indptr : ndarray of int64, shape (n_ops + 1,)
    dep_op : ndarray of int32, the ops each op waits for (CSR with ``dep_indptr``)
    dep_kind : ndarray of int8, ``DEP_ARRIVAL`` or ``DEP_SENT`` per dependency
    meta : dict
        Builder parameters (chunks, root ...), for display.
    """

    collective: str
    algorithm: str
    n_ranks: int
    n_participants: int
    participant_role: tuple[str, ...]
    n_bytes: float
    chunk_bounds: np.ndarray
    chunk_owner: np.ndarray
    chunk_dest: np.ndarray
    op_src: np.ndarray
    op_dst: np.ndarray
    op_chunk: np.ndarray
    op_bytes: np.ndarray
    op_kind: np.ndarray
    op_delay: np.ndarray
    dep_indptr: np.ndarray
    dep_op: np.ndarray
    dep_kind: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        conv = {
            "chunk_bounds": np.float64,
            "chunk_owner": np.int32,
            "chunk_dest": np.int32,
            "op_src": np.int32,
            "op_dst": np.int32,
            "op_chunk": np.int32,
            "op_bytes": np.float64,
            "op_kind": np.int8,
            "op_delay": np.float64,
            "dep_indptr": np.int64,
            "dep_op": np.int32,
            "dep_kind": np.int8,
        }
        for name, dtype in conv.items():
            object.__setattr__(self, name, _ro(getattr(self, name), dtype))
        object.__setattr__(self, "participant_role", tuple(self.participant_role))
        object.__setattr__(self, "n_bytes", float(self.n_bytes))
        _check_structure(self)

    @property
    def n_ops(self) -> int:
        """Number of ops."""
        return int(self.op_src.size)

    @property
    def n_chunks(self) -> int:
        """Number of chunks the buffer is split into."""
        return int(self.chunk_bounds.size - 1)

    @property
    def nccl_size(self) -> float:
        """The "size" nccl-tests reports for this collective, in bytes.

        The per-rank buffer for all-reduce, broadcast and reduce; the total array for
        reduce-scatter and all-gather; the per-rank send buffer for all-to-all.
        """
        if self.collective == "alltoall":
            return self.n_bytes / self.n_ranks
        return self.n_bytes

    @property
    def chunk_bytes(self) -> np.ndarray:
        """Bytes in each chunk (float64, shape (n_chunks,))."""
        return np.diff(self.chunk_bounds) * self.n_bytes

    def bytes_sent(self) -> np.ndarray:
        """Bytes each participant sends over the whole schedule (shape (n_participants,))."""
        return np.bincount(self.op_src, weights=self.op_bytes, minlength=self.n_participants)

    def bytes_received(self) -> np.ndarray:
        """Bytes each participant receives over the whole schedule."""
        return np.bincount(self.op_dst, weights=self.op_bytes, minlength=self.n_participants)

    def relabel(self, algorithm: str | None = None, meta: dict | None = None) -> Schedule:
        """The same schedule under another name or ``meta`` (a checked schedule stays checked).

        Examples
        --------
        >>> from nvlearn.collectives import alltoall
        >>> alltoall(4, 1e6).relabel("shift by 1").algorithm
        'shift by 1'
        """
        import dataclasses

        out = dataclasses.replace(self, algorithm=self.algorithm if algorithm is None
                                  else str(algorithm), meta=self.meta if meta is None else meta)
        if self in _VALIDATED:
            _VALIDATED.add(out)
        return out

    def deps_of(self, op: int) -> np.ndarray:
        """The ops that op ``op`` waits for."""
        return self.dep_op[self.dep_indptr[op] : self.dep_indptr[op + 1]]

    def describe(self, max_ops: int = 12) -> str:
        """A readable listing of the first ``max_ops`` ops and their dependencies."""
        lines = [repr(self)]
        for i in range(min(self.n_ops, max_ops)):
            deps = ", ".join(
                f"{d}{'(sent)' if k == DEP_SENT else ''}"
                for d, k in zip(
                    self.deps_of(i),
                    self.dep_kind[self.dep_indptr[i] : self.dep_indptr[i + 1]],
                    strict=True,
                )
            )
            lines.append(
                f"  op {i:>5}: {self._pname(self.op_src[i])} -> {self._pname(self.op_dst[i])}"
                f"  chunk {self.op_chunk[i]:>3}  {self.op_bytes[i]:.4g} B"
                f"  {OP_KIND_NAMES[int(self.op_kind[i])]:<6} after [{deps}]"
            )
        if self.n_ops > max_ops:
            lines.append(f"  ... {self.n_ops - max_ops} more ops")
        return "\n".join(lines)

    def _pname(self, p: int) -> str:
        p = int(p)
        return f"rank {p}" if p < self.n_ranks else self.participant_role[p - self.n_ranks]

    def __repr__(self) -> str:
        from nvlearn.units import format_bytes

        extra = self.n_participants - self.n_ranks
        sw = f", {extra} switch participant(s)" if extra else ""
        return (
            f"Schedule({self.collective}, {self.algorithm}, {self.n_ranks} ranks{sw}, "
            f"{format_bytes(self.n_bytes)} per rank, {self.n_chunks} chunks, "
            f"{self.n_ops} ops, {self.dep_op.size} deps)"
        )


def _check_structure(s: Schedule) -> None:
    if s.collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {s.collective!r}; expected one of {COLLECTIVES}")
    if s.n_ranks < 1:
        raise ValueError(f"a schedule needs at least one rank, got n_ranks={s.n_ranks}")
    if s.n_participants < s.n_ranks:
        raise ValueError("n_participants must be >= n_ranks")
    if len(s.participant_role) != s.n_participants - s.n_ranks:
        raise ValueError("participant_role needs one role per switch participant")
    if not (s.n_bytes > 0):
        raise ValueError(f"n_bytes must be a positive number of bytes, got {s.n_bytes}")
    b = s.chunk_bounds
    if b.size < 2 or b[0] != 0.0 or b[-1] != 1.0 or np.any(np.diff(b) <= 0):
        raise ValueError("chunk_bounds must increase strictly from 0.0 to 1.0")
    n_chunks = b.size - 1
    for name in ("chunk_owner", "chunk_dest"):
        a = getattr(s, name)
        if a.shape != (n_chunks,) or np.any((a < -1) | (a >= s.n_ranks)):
            raise ValueError(f"{name} needs one entry per chunk, each -1 or a rank")
    n = s.op_src.size
    for name in ("op_dst", "op_chunk", "op_bytes", "op_kind", "op_delay"):
        if getattr(s, name).shape != (n,):
            raise ValueError(f"{name} must have one entry per op ({n})")
    for name in ("op_src", "op_dst"):
        a = getattr(s, name)
        bad = np.flatnonzero((a < 0) | (a >= s.n_participants))
        if bad.size:
            raise ValueError(
                f"op {bad[0]} has {name}={a[bad[0]]}, but participants are "
                f"0..{s.n_participants - 1}: use a rank of this schedule"
            )
    bad = np.flatnonzero((s.op_chunk < 0) | (s.op_chunk >= n_chunks))
    if bad.size:
        raise ValueError(f"op {bad[0]} names chunk {s.op_chunk[bad[0]]}, not in 0..{n_chunks - 1}")
    bad = np.flatnonzero(~np.isfinite(s.op_bytes) | (s.op_bytes <= 0))
    if bad.size:
        raise ValueError(
            f"op {bad[0]} moves {s.op_bytes[bad[0]]} bytes; every op must move a positive, "
            "finite number of bytes (drop empty ops from the schedule)"
        )
    if np.any(~np.isin(s.op_kind, (OP_COPY, OP_REDUCE))):
        raise ValueError("op_kind must be OP_COPY (0) or OP_REDUCE (1)")
    if np.any(~np.isfinite(s.op_delay) | (s.op_delay < 0)):
        raise ValueError("op_delay must be finite and >= 0 seconds")
    ip = s.dep_indptr
    if ip.shape != (n + 1,) or ip[0] != 0 or ip[-1] != s.dep_op.size or np.any(np.diff(ip) < 0):
        raise ValueError("dep_indptr must be a CSR index of length n_ops + 1")
    if s.dep_kind.shape != s.dep_op.shape or np.any(~np.isin(s.dep_kind, (DEP_ARRIVAL, DEP_SENT))):
        raise ValueError("dep_kind must give DEP_ARRIVAL (0) or DEP_SENT (1) per dependency")
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(ip))
    if np.any((s.dep_op < 0) | (s.dep_op >= n)):
        raise ValueError("a dependency names an op that does not exist")
    bad = np.flatnonzero(s.dep_op >= owner)
    if bad.size:
        raise ValueError(
            f"op {owner[bad[0]]} depends on op {s.dep_op[bad[0]]}, which is not earlier; "
            "ops must be numbered in dependency order — build with make_schedule(), which "
            "sorts them and reports cycles"
        )


def _toposort(
    n: int, indptr: np.ndarray, deps: np.ndarray, latest_first: bool = False
) -> np.ndarray:
    """Kahn's algorithm: a dependency order of the ops, or ValueError on a cycle.

    Among ready ops the smallest index runs first, or the largest with ``latest_first``.
    """
    import heapq

    sign = -1 if latest_first else 1
    owner = np.repeat(np.arange(n), np.diff(indptr))
    indeg = np.diff(indptr).astype(np.int64)
    succ_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(deps, minlength=n), out=succ_ptr[1:])
    succ = owner[np.argsort(deps, kind="stable")]
    ready = [sign * int(i) for i in np.flatnonzero(indeg == 0)]
    heapq.heapify(ready)
    out = []
    while ready:
        i = sign * heapq.heappop(ready)
        out.append(i)
        for j in succ[succ_ptr[i] : succ_ptr[i + 1]]:
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(ready, sign * int(j))
    if len(out) < n:
        stuck = np.flatnonzero(indeg > 0)
        waits = deps[indptr[stuck[0]] : indptr[stuck[0] + 1]].tolist()
        raise ValueError(
            f"cyclic dependencies: {stuck.size} ops can never start (for example op "
            f"{stuck[0]}, waiting for ops {waits}); remove the dependency that closes the cycle"
        )
    return np.asarray(out, dtype=np.int64)


def _csr_dependencies(n: int, deps, dep_indptr, dep_op, dep_kind
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dependencies of ``n`` ops as CSR arrays ``(indptr, op, kind)``, from per-op lists
    of ``(op, kind)`` pairs (``deps``) or from CSR arrays; every named op must exist."""
    if deps is not None:
        if len(deps) != n:
            raise ValueError(f"deps needs one list per op ({n}), got {len(deps)}")
        counts = np.fromiter((len(d) for d in deps), dtype=np.int64, count=n)
        dep_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=dep_indptr[1:])
        flat = [x for d in deps for x in d]
        dep_op = np.array([x[0] for x in flat], dtype=np.int64)
        dep_kind = np.array([x[1] for x in flat], dtype=np.int8)
    elif dep_indptr is None or dep_op is None:
        raise ValueError("give the dependencies, as deps= or as dep_indptr=/dep_op=")
    dep_indptr = np.asarray(dep_indptr, dtype=np.int64)
    dep_op = np.asarray(dep_op, dtype=np.int64)
    dep_kind = (
        np.zeros(dep_op.size, np.int8) if dep_kind is None else np.asarray(dep_kind, np.int8)
    )
    if dep_op.size and (dep_op.min() < 0 or dep_op.max() >= n):
        raise ValueError("a dependency names an op that does not exist")
    return dep_indptr, dep_op, dep_kind


def _in_dependency_order(arrays: dict[str, np.ndarray], dep_indptr: np.ndarray,
                         dep_op: np.ndarray, dep_kind: np.ndarray):
    """The per-op ``arrays`` and the CSR dependencies renumbered so that every op comes after
    the ops it waits for (unchanged when they already do)."""
    n = dep_indptr.size - 1
    owner = np.repeat(np.arange(n), np.diff(dep_indptr))
    if not np.any(dep_op >= owner):
        return arrays, dep_indptr, dep_op, dep_kind
    order = _toposort(n, dep_indptr, dep_op)
    new_index = np.empty(n, dtype=np.int64)
    new_index[order] = np.arange(n)
    arrays = {k: np.asarray(v)[order] for k, v in arrays.items()}
    counts = np.diff(dep_indptr)[order]
    starts = dep_indptr[:-1][order]
    take = np.concatenate([np.arange(a, a + c) for a, c in zip(starts, counts, strict=True)])
    take = take.astype(np.int64) if take.size else np.zeros(0, np.int64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return arrays, indptr, new_index[dep_op[take]], dep_kind[take]


def make_schedule(
    collective: str,
    algorithm: str,
    n_ranks: int,
    n_bytes: float,
    chunk_bounds: np.ndarray,
    chunk_owner: np.ndarray,
    chunk_dest: np.ndarray,
    op_src: np.ndarray,
    op_dst: np.ndarray,
    op_chunk: np.ndarray,
    op_kind: np.ndarray,
    deps: list[list[tuple[int, int]]] | None = None,
    *,
    dep_indptr: np.ndarray | None = None,
    dep_op: np.ndarray | None = None,
    dep_kind: np.ndarray | None = None,
    op_delay: np.ndarray | None = None,
    participant_role: tuple[str, ...] = (),
    meta: dict | None = None,
) -> Schedule:
    """Build a :class:`Schedule`, computing op bytes from chunks and sorting ops by dependency.

    Dependencies are given either as ``deps`` (per op, a list of ``(op, kind)`` pairs) or as
    CSR arrays. Ops in any order are renumbered into a dependency order; a cycle raises
    ``ValueError`` naming an op caught in it.

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    algorithm : str
        A label for the algorithm (kept in the Schedule, shown in its repr).
    n_ranks : int
        Ranks p; participants ``p, p+1, ...`` are the ``participant_role`` nodes.
    n_bytes : float
        The collective's size in bytes (nccl-tests' "size"); op sizes are fractions of it.
    chunk_bounds : array_like of float, shape (n_chunks + 1,)
        Chunk edges as fractions of ``n_bytes``, rising from 0 to 1.
    chunk_owner, chunk_dest : array_like of int, shape (n_chunks,)
        Rank that starts with / must end with each chunk, -1 for every rank.
    op_src, op_dst : array_like of int, shape (n_ops,)
        Sending and receiving participant of each op.
    op_chunk : array_like of int, shape (n_ops,)
        Chunk each op carries.
    op_kind : array_like of int, shape (n_ops,)
        ``OP_COPY`` or ``OP_REDUCE``.
    deps : list of list of (int, int), optional
        Per op, the ``(op, DEP_ARRIVAL or DEP_SENT)`` pairs it waits for.
    dep_indptr, dep_op, dep_kind : ndarray, optional
        The same dependencies as CSR arrays (instead of ``deps``); ``dep_kind`` defaults to
        ``DEP_ARRIVAL``.
    op_delay : array_like of float, optional
        Seconds each op waits after its dependencies before starting (default 0).
    participant_role : tuple of str
        Topology node name of each extra participant (a switch, a relay GPU).
    meta : dict, optional
        Builder details kept in ``Schedule.meta``.

    Returns
    -------
    Schedule
        Not yet validated: :func:`validate` (or the first run) checks it computes its collective.

    Examples
    --------
    >>> s = make_schedule("broadcast", "chain", 3, 1e6, [0.0, 1.0], [0], [-1],
    ...                   op_src=[0, 1], op_dst=[1, 2], op_chunk=[0, 0], op_kind=[0, 0],
    ...                   deps=[[], [(0, DEP_ARRIVAL)]])
    >>> s.n_ops, s.op_bytes.tolist()
    (2, [1000000.0, 1000000.0])
    """
    op_src = np.asarray(op_src, dtype=np.int64)
    n = op_src.size
    dep_indptr, dep_op, dep_kind = _csr_dependencies(n, deps, dep_indptr, dep_op, dep_kind)
    chunk_bounds = np.asarray(chunk_bounds, dtype=np.float64)
    op_chunk = np.asarray(op_chunk, dtype=np.int64)
    if op_chunk.size and (op_chunk.min() < 0 or op_chunk.max() >= chunk_bounds.size - 1):
        raise ValueError("op_chunk names a chunk that does not exist")
    op_bytes = float(n_bytes) * np.diff(chunk_bounds)[op_chunk]
    op_delay = np.zeros(n) if op_delay is None else np.asarray(op_delay, dtype=np.float64)
    arrays = {
        "op_src": op_src,
        "op_dst": np.asarray(op_dst),
        "op_chunk": op_chunk,
        "op_bytes": op_bytes,
        "op_kind": np.asarray(op_kind),
        "op_delay": op_delay,
    }
    arrays, dep_indptr, dep_op, dep_kind = _in_dependency_order(arrays, dep_indptr, dep_op,
                                                                dep_kind)
    n_participants = n_ranks + len(participant_role)
    return Schedule(
        collective=collective,
        algorithm=algorithm,
        n_ranks=int(n_ranks),
        n_participants=int(n_participants),
        participant_role=tuple(participant_role),
        n_bytes=n_bytes,
        chunk_bounds=chunk_bounds,
        chunk_owner=np.asarray(chunk_owner),
        chunk_dest=np.asarray(chunk_dest),
        dep_indptr=dep_indptr,
        dep_op=dep_op,
        dep_kind=dep_kind,
        meta=dict(meta or {}),
        **arrays,
    )


# ---------------------------------------------------------------------------------------
# Semantic validation by symbolic execution


def expected_keys(schedule: Schedule, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Initial and promised symbolic state per (rank, chunk) for random per-rank ``keys``.

    ``keys`` has shape (n_ranks, n_chunks), dtype uint64. Returns ``(initial, expected)``,
    both (n_ranks, n_chunks) uint64; ``expected`` has a mask of which entries are promised
    via :func:`promised_mask`.
    """
    owner = schedule.chunk_owner
    r = np.arange(schedule.n_ranks)[:, None]
    contributes = (owner[None, :] == -1) | (owner[None, :] == r)
    initial = np.where(contributes, keys, np.uint64(0))
    with np.errstate(over="ignore"):
        total = initial.sum(axis=0, dtype=np.uint64)
    expected = np.broadcast_to(total, initial.shape).copy()
    return initial, expected


def promised_mask(schedule: Schedule) -> np.ndarray:
    """Boolean (n_ranks, n_chunks): which rank must end holding which chunk's result."""
    dest = schedule.chunk_dest
    r = np.arange(schedule.n_ranks)[:, None]
    return (dest[None, :] == -1) | (dest[None, :] == r)


def _execute_symbolic(schedule: Schedule, order: np.ndarray, state: np.ndarray) -> np.ndarray:
    src, dst, chunk, kind = schedule.op_src, schedule.op_dst, schedule.op_chunk, schedule.op_kind
    with np.errstate(over="ignore"):
        for i in order:
            value = state[src[i], chunk[i]]
            if kind[i] == OP_REDUCE:
                state[dst[i], chunk[i]] = state[dst[i], chunk[i]] + value
            else:
                state[dst[i], chunk[i]] = value
    return state


def validate(schedule: Schedule, seed: int = 0) -> None:
    """Check that the schedule computes its collective, in two different valid orders.

    Each rank's data is stood for by random 64-bit keys; a copy moves a key, a reduce adds
    keys (mod 2**64). At the end every promised (rank, chunk) must hold exactly the sum of
    the keys of the contributions the collective promises — a missing contribution, one
    counted twice, or a stale copy all show as a wrong sum. Running again in a second valid
    order (latest-ready-first) exposes a missing dependency: the two results then differ.

    Raises
    ------
    ValueError
        Naming the first rank and chunk that end up wrong, and in which order.

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> validate(allreduce(5, 1e6))   # passes silently
    """
    rng = np.random.default_rng(seed)
    keys = rng.integers(1, 2**63, size=(schedule.n_ranks, schedule.n_chunks), dtype=np.uint64)
    initial, expected = expected_keys(schedule, keys)
    promised = promised_mask(schedule)
    n_extra = schedule.n_participants - schedule.n_ranks
    start = np.vstack([initial, np.zeros((n_extra, schedule.n_chunks), dtype=np.uint64)])
    orders = {
        "index order": np.arange(schedule.n_ops),
        "latest-ready-first order": _toposort(
            schedule.n_ops, schedule.dep_indptr, schedule.dep_op, latest_first=True
        ),
    }
    for label, order in orders.items():
        final = _execute_symbolic(schedule, order, start.copy())[: schedule.n_ranks]
        wrong = np.argwhere(promised & (final != expected))
        if wrong.size:
            r, c = (int(x) for x in wrong[0])
            raise ValueError(
                f"{schedule.algorithm} {schedule.collective}: executed in {label}, rank {r} "
                f"ends with the wrong contents in chunk {c} ({wrong.shape[0]} (rank, chunk) "
                "pairs wrong). A contribution is missing or counted twice, or — if only one "
                "order fails — a dependency is missing."
            )
    _VALIDATED.add(schedule)


#: Schedules known to compute their collective: validated here, or built by a package
#: builder whose every output the test-suite validates (:func:`mark_validated`).
_VALIDATED: weakref.WeakSet = weakref.WeakSet()


def mark_validated(schedule: Schedule) -> Schedule:
    """Record ``schedule`` as correct without re-checking it, and return it.

    For the builders of :mod:`nvlearn.collectives`, whose outputs the test-suite validates
    for every algorithm and many rank counts; a schedule written by hand is checked by
    :func:`ensure_validated` instead.
    """
    _VALIDATED.add(schedule)
    return schedule


def ensure_validated(schedule) -> None:
    """:func:`validate` ``schedule`` unless it already was (or a package builder made it).

    :func:`nvlearn.sim.simulate` and :func:`nvlearn.dataplane.run` call this first, so a
    hand-written schedule with a race or a wrong sum is reported, not timed or summed. Objects
    that are not :class:`Schedule` (the engine's test doubles) are taken as they are.

    Examples
    --------
    >>> ops = dict(collective="allreduce", algorithm="mine", n_ranks=2, n_bytes=8.0,
    ...            chunk_bounds=[0.0, 1.0], chunk_owner=[-1], chunk_dest=[-1])
    >>> ok = make_schedule(**ops, op_src=[0, 1], op_dst=[1, 0], op_chunk=[0, 0],
    ...                    op_kind=[OP_REDUCE, OP_COPY], deps=[[], [(0, DEP_ARRIVAL)]])
    >>> ensure_validated(ok)                 # checked once, then remembered
    >>> bad = make_schedule(**ops, op_src=[0, 1], op_dst=[1, 0], op_chunk=[0, 0],
    ...                     op_kind=[OP_REDUCE, OP_COPY], deps=[[], []])
    >>> ensure_validated(bad)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: mine allreduce: executed in latest-ready-first order, rank 0 ends with ...

    (``bad`` lets rank 1 send before it has the sum: a race.)
    """
    if isinstance(schedule, Schedule) and schedule not in _VALIDATED:
        validate(schedule)
