"""Big symmetric collectives without big op lists: one op for each class of symmetric ops.

A ring all-reduce over 8,192 GPUs is 134 M ops per pipeline slot (1.2 G with NCCL's eight
rail channels): no laptop can hold it. But most of those ops are copies of each other: on
a rail-optimised fabric every rail is wired alike and every scalable unit of 32 nodes is
wired alike, and the ring treats every rail and every node alike. A **compact schedule**
keeps one *representative* op per class (orbit) of ops that such a symmetry maps onto each
other, says how many ops each stands for, and carries the symmetry itself;
:func:`nvlearn.sim.simulate` runs it on the quotient fabric (:mod:`nvlearn.sim.quotient`).

The symmetry
------------
A symmetry here is a group ``H`` of permutations of the participants that maps the
schedule onto itself (each op to an op with the same bytes, kind and dependencies, up to
the same map) *and* extends to an automorphism of the fabric
(:func:`nvlearn.topology.symmetry.extend_gpu_permutation`: links onto links of the same
capacity, latency and kind, so routes onto routes). The builders here look for the largest
one of two commuting shifts on the grid of ranks by node (``G`` nodes x ``q`` GPUs):

* a **rail rotation** — GPU ``i`` of every node to GPU ``i + d`` (``d`` the smallest divisor
  of ``q`` that is a fabric symmetry; ``d = 1`` on :func:`~nvlearn.topology.ib_cluster`,
  whose rails are wired alike), which maps ring channel ``c`` onto channel ``c + d`` and the
  hierarchical all-reduce's rail ring ``l`` onto ``l + d``;
* a **node shift** — node ``g`` to node ``g + k`` (``k`` the smallest divisor of ``G`` that
  is a fabric symmetry: ``k = 1`` when every node of a rail hangs off one leaf switch,
  ``k = 32``, a scalable unit, when the rails have several leaves).

Every op of the full schedule is then the image of exactly one representative under
exactly one element of ``H``: the representatives are the ops of channels ``0 .. d-1``
(or rails) and of nodes ``0 .. k-1``, and each stands for ``|H| = (q/d) (G/k)`` ops. A
dependency on an op outside that domain becomes a dependency on its class's
representative (same times, by the symmetry).

What it captures, and what it does not
--------------------------------------
The quotient is **exact** for the symmetric case it is built for: the times, rates and
per-link bytes equal those of the full op list on the same fabric and model (a test holds
them to 1e-9 where both fit; they differ only by floating-point summation order, and the
full list's chunk sizes, cut by ``linspace``, differ from the exact ``n / (p c)`` by
rounding). It captures everything the flow-level engine models (max-min sharing, latency,
pipelining, both models of :mod:`nvlearn.sim.models`) *as long as every rank is alike*. It
cannot express what breaks the symmetry: a straggler, a degraded link (unless every link
of its class is degraded alike), per-rank delays, a placement of ranks that is not the
fabric's order, static hash routing (which treats equivalent paths differently), uneven
buffers; :func:`nvlearn.sim.simulate` refuses those on a compact schedule. It knows no
chunk identities, so it cannot be run on data (:mod:`nvlearn.dataplane` needs the full
list). Flow-level modelling itself (no packets, no congestion control, no adaptive-routing
dynamics) limits it as it limits the full simulation.

Which algorithms
----------------
Rings — all-reduce, reduce-scatter, all-gather on NCCL-like channels with PXN relays
(:mod:`~nvlearn.collectives.channels`) — and the hierarchical all-reduce (rings inside
nodes, rail rings across). The trees need no compact form: their op lists grow as
``p``, not ``p^2`` (an 8,192-GPU NCCL tree is 262 k ops per slot with 8 channels); NVLS
inside nodes is not offered here (its switch participants need their own orbits).

References
----------
M. Grohe, K. Kersting, M. Mladenov and E. Selman, "Dimension reduction via colour
refinement", ESA 2014, LNCS 8737: a linear program (here each max-min fair round) solved
on the quotient by a symmetry of its constraints has the symmetric solution of the full
one. A. Legrand et al., SimGrid's documentation "Modeling: What it captures and what it
does not" for the style of the model statement above.

Examples
--------
>>> from nvlearn.topology import ib_cluster
>>> c = compact_allreduce(ib_cluster(4), 2**30, "hierarchical")
>>> c.n_ops, c.op_count, c.n_full_ops          # 1,984 ops in 62 classes of 32
(62, 32, 1984)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from nvlearn.collectives._ops import OpTable, check_size
from nvlearn.collectives.budget import check_ops
from nvlearn.collectives.channels import (
    check_channels,
    default_channels,
    node_groups,
    rank_rails,
    ring_orders,
)
from nvlearn.collectives.ring import _ring_steps
from nvlearn.schedule import COLLECTIVES, DEP_ARRIVAL, DEP_SENT, OP_COPY
from nvlearn.topology.symmetry import extend_gpu_permutation

__all__ = ["COMPACT_ALGORITHMS", "CompactSchedule", "compact_allgather", "compact_allreduce",
           "compact_reduce_scatter"]

#: (collective, algorithm) pairs that have a compact form.
COMPACT_ALGORITHMS: tuple[tuple[str, str], ...] = (
    ("allreduce", "ring"), ("allreduce", "hierarchical"), ("reduce_scatter", "ring"),
    ("allgather", "ring"))


def _ro(a, dtype) -> np.ndarray:
    out = np.array(a, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class CompactSchedule:
    """A symmetric collective as one representative op per class of symmetric ops.

    Built by :func:`compact_allreduce` and friends (module docstring); run by
    :func:`nvlearn.sim.simulate`, which returns a
    :class:`~nvlearn.sim.quotient.CompactResult`.

    Attributes
    ----------
    collective, algorithm : str
        As in :class:`~nvlearn.schedule.Schedule`.
    n_ranks, n_participants : int
        Ranks of the full collective, and ranks plus extra participants (PXN relays).
    participant_role : tuple of str
        Topology node name of each extra participant.
    n_bytes : float
        Bytes, as :class:`~nvlearn.schedule.Schedule` counts them.
    op_src, op_dst : ndarray of int32, shape (n_ops,)
        Participants of each representative op (its own ranks, not classes).
    op_bytes, op_delay : ndarray of float64
        Bytes and start delay (seconds) of each representative op.
    op_kind : ndarray of int8
        ``OP_COPY`` or ``OP_REDUCE``.
    dep_indptr, dep_op, dep_kind : ndarray
        Dependencies among the representatives (CSR), as in a Schedule.
    generators : ndarray of int64, shape (g, n_participants)
        The symmetry: commuting participant permutations (row ``k`` sends participant
        ``x`` to ``generators[k, x]``) that map the schedule onto itself.
    orders : tuple of int
        Order of each generator; ``op_count`` is their product.
    op_count : int
        Ops of the full schedule each representative stands for (``|H|``).
    meta : dict
        Builder details: chunks, channels, nodes, ranks_per_node, and ``symmetry`` (what
        each generator does, in words).
    """

    collective: str
    algorithm: str
    n_ranks: int
    n_participants: int
    participant_role: tuple[str, ...]
    n_bytes: float
    op_src: np.ndarray
    op_dst: np.ndarray
    op_bytes: np.ndarray
    op_kind: np.ndarray
    op_delay: np.ndarray
    dep_indptr: np.ndarray
    dep_op: np.ndarray
    dep_kind: np.ndarray
    generators: np.ndarray
    orders: tuple[int, ...]
    op_count: int
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, dtype in (("op_src", np.int32), ("op_dst", np.int32), ("op_bytes", np.float64),
                            ("op_kind", np.int8), ("op_delay", np.float64),
                            ("dep_indptr", np.int64), ("dep_op", np.int32),
                            ("dep_kind", np.int8), ("generators", np.int64)):
            object.__setattr__(self, name, _ro(getattr(self, name), dtype))
        if self.collective not in COLLECTIVES:
            raise ValueError(f"collective must be one of {COLLECTIVES}, got {self.collective!r}")
        if self.generators.ndim != 2 or self.generators.shape[1] != self.n_participants:
            raise ValueError("generators must have one row per generator and one column per "
                             "participant")
        if int(np.prod(self.orders, dtype=np.int64)) != self.op_count:
            raise ValueError("op_count must be the product of the generators' orders")

    @property
    def n_ops(self) -> int:
        """Representative ops (what the simulator runs)."""
        return int(self.op_src.size)

    @property
    def n_full_ops(self) -> int:
        """Ops of the full schedule the representatives stand for."""
        return self.n_ops * self.op_count

    @property
    def nccl_size(self) -> float:
        """nccl-tests' "size" of the collective, bytes (as :attr:`Schedule.nccl_size`)."""
        return self.n_bytes

    def __repr__(self) -> str:
        from nvlearn.units import format_bytes

        return (f"CompactSchedule({self.collective}, {self.algorithm}, {self.n_ranks:,} ranks, "
                f"{format_bytes(self.n_bytes)}, {self.n_ops:,} ops standing for "
                f"{self.n_full_ops:,}; symmetry {self.meta.get('symmetry', '')})")


# --------------------------------------------------------------------------- symmetry search
def _divisors(n: int) -> Iterator[int]:
    """Divisors of ``n`` in increasing order."""
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    yield from small
    yield from (n // d for d in reversed(small) if d * d != n)


def _grid_perm(grid: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Rank permutation ``grid[g, x] -> grid[g + rows, x + cols]`` (both cyclic)."""
    G, q = grid.shape
    perm = np.empty(grid.size, dtype=np.int64)
    perm[grid] = grid[(np.arange(G)[:, None] + rows) % G, (np.arange(q)[None, :] + cols) % q]
    return perm


def _fabric_shift(topology, grid: np.ndarray, axis: int) -> int:
    """Smallest divisor ``s`` of the grid's ``axis`` size whose shift along that axis is a
    symmetry of the fabric (the full size, the identity, always is)."""
    size = grid.shape[axis]
    for s in _divisors(size):
        if s == size:
            return s
        perm = _grid_perm(grid, s, 0) if axis == 0 else _grid_perm(grid, 0, s)
        if extend_gpu_permutation(topology, perm) is not None:
            return s
    return size


def _participant_perm(rank_perm: np.ndarray, relays: np.ndarray) -> np.ndarray | None:
    """A rank permutation on ranks then relay participants (relay ``j`` sits on GPU rank
    ``relays[j]``); None if the relays are not mapped onto relays."""
    p = rank_perm.size
    image = rank_perm[relays]
    pos = np.searchsorted(relays, image)
    pos = np.minimum(pos, max(relays.size - 1, 0))
    if relays.size and not np.array_equal(relays[pos], image):
        return None
    return np.concatenate([rank_perm, p + pos]).astype(np.int64)


def _generators(grid: np.ndarray, shifts) -> tuple[np.ndarray, tuple[int, ...], list[str]]:
    """Rank generators for ``shifts`` = [(rows, cols, order, words), ...], leaving out the
    trivial ones (order 1); returns (generators, orders, descriptions)."""
    kept = [s for s in shifts if s[2] > 1]
    gen = np.array([_grid_perm(grid, rows, cols) for rows, cols, _, _ in kept],
                   dtype=np.int64).reshape(len(kept), grid.size)
    return gen, tuple(s[2] for s in kept), [s[3] for s in kept]


# --------------------------------------------------------------------------- ring phases
def _ring_phase(t: OpTable, rings: np.ndarray, period: int, slots: int, part: str,
                entry: np.ndarray | None, relay: np.ndarray | None = None) -> np.ndarray:
    """The representatives of pipelined ring phases (the compact twin of
    :func:`nvlearn.collectives.ring.add_rings`), every step at once.

    ``rings`` (R, m) are the representative rings, whole; positions ``x`` and ``x + period``
    of a ring are one class, so only positions ``0 .. period-1`` get ops, and a dependency
    on position ``x - 1`` becomes one on ``(x - 1) mod period``. ``entry`` (R, period, E)
    and ``relay`` (R, m) as in ``add_rings``. Each step adds its direct sends (slot, ring,
    position) and then its relays' sends, so the ids stay in dependency order. Returns the
    op arriving last at each representative position, shape (R, period).
    """
    R, m = rings.shape
    steps = _ring_steps(part, m)
    K, S, d = len(steps), int(slots), int(period)
    kinds = np.array([kind for _, kind in steps], dtype=np.int8)[:, None, None, None]
    x = np.arange(d)
    nxt = rings[:, (x + 1) % m]
    relay = np.full((R, d), -1) if relay is None else np.asarray(relay)[:, :d]
    hop = relay >= 0
    ri, rx = np.nonzero(hop)
    n1, n2 = S * R * d, S * ri.size
    shape1, shape2 = (K, S, R, d), (K, S, ri.size)
    cat = np.concatenate
    src = cat([np.broadcast_to(rings[:, :d], shape1).reshape(K, n1),
               np.broadcast_to(relay[ri, rx], shape2).reshape(K, n2)], axis=1)
    dst = cat([np.broadcast_to(np.where(hop, relay, nxt), shape1).reshape(K, n1),
               np.broadcast_to(nxt[ri, rx], shape2).reshape(K, n2)], axis=1)
    kind = cat([np.broadcast_to(np.where(hop, OP_COPY, kinds), shape1).reshape(K, n1),
                np.broadcast_to(kinds[:, :, :, 0], shape2).reshape(K, n2)], axis=1)
    ids = t.add(src, dst, 0, kind)
    first = ids[:, :n1].reshape(shape1)
    second = ids[:, n1:].reshape(shape2)
    final = first.copy()
    final[:, :, ri, rx] = second
    back = (x - 1) % d
    t.dep(first[:, 1:], first[:, :-1], DEP_SENT)
    t.dep(second[:, 1:], second[:, :-1], DEP_SENT)
    t.dep(second, first[:, :, ri, rx], DEP_ARRIVAL)
    if entry is not None:
        t.dep(first[0, 0][:, :, None], entry, DEP_ARRIVAL)
    t.dep(first[1:], final[:-1][:, :, :, back], DEP_ARRIVAL)
    t.dep(first[1:, 0], first[:-1, -1], DEP_SENT)
    t.dep(second[1:, 0], second[:-1, -1], DEP_SENT)
    return final[-1, -1][:, back]


def _pack(t: OpTable, collective: str, algorithm: str, p: int, n_bytes: float, slot_bytes: float,
          roles, generators, orders, meta) -> CompactSchedule:
    src, dst, _, kind, indptr, dep, dkind = t.pack()
    return CompactSchedule(
        collective=collective, algorithm=algorithm, n_ranks=p,
        n_participants=p + len(roles), participant_role=tuple(roles), n_bytes=float(n_bytes),
        op_src=src, op_dst=dst, op_bytes=np.full(src.size, slot_bytes), op_kind=kind,
        op_delay=np.zeros(src.size), dep_indptr=indptr, dep_op=dep, dep_kind=dkind,
        generators=generators, orders=orders, op_count=int(np.prod(orders, dtype=np.int64)),
        meta=meta)


def _topology_grid(topology, what: str) -> np.ndarray:
    if not hasattr(topology, "n_gpus"):
        raise ValueError(f"{what} needs a Topology (its symmetry comes from the fabric), got "
                         f"{type(topology).__name__}; build the full schedule for a rank count")
    return node_groups(topology, int(topology.n_gpus))


# --------------------------------------------------------------------------- builders
def _hierarchical(topology, n_bytes: float, chunks: int) -> CompactSchedule:
    grid = _topology_grid(topology, "a compact hierarchical all-reduce")
    G, q = grid.shape
    p, c = grid.size, int(chunks)
    if p < 2:
        raise ValueError("a hierarchical all-reduce needs at least 2 ranks")
    k = _fabric_shift(topology, grid, 0)
    d = _fabric_shift(topology, grid, 1)
    n_rep = (2 * k * d * (q - 1) * G * c if q > 1 else 0) + (2 * d * k * (G - 1) * c)
    full = n_rep * (G // k) * (q // d)
    check_ops(n_rep, f"a compact hierarchical all-reduce over {p:,} ranks ({full:,} ops in "
              f"full) with {c} chunk(s)",
              f"the fabric's symmetry leaves {k:,} of its {G:,} nodes and {d} of the {q} GPUs of "
              "a node apart (only those shifts map it onto itself), so use fewer pipeline "
              "chunks, or fewer nodes (where a shift by fewer nodes is a symmetry: on "
              "ib_cluster, up to 1,024 nodes, one pod per rail), or raise NVLEARN_MAX_OPS "
              "if the memory is there")
    t = OpTable()
    exit_rs = exit_ar = None
    if q > 1:
        exit_rs = _ring_phase(t, grid[:k], d, G * c, "reduce_scatter", None)
    if G > 1:
        entry = None if exit_rs is None else exit_rs.T[:, :, None]
        exit_ar = _ring_phase(t, grid[:, :d].T, k, c, "allreduce", entry)
    if q > 1:
        entry = exit_rs[:, :, None] if exit_ar is None else exit_ar.T[:, :, None]
        _ring_phase(t, grid[:k], d, G * c, "allgather", entry)
    gens, orders, words = _generators(grid, [
        (0, d, q // d, f"{q // d} rails alike (GPU i -> i + {d} in every node)"),
        (k, 0, G // k, f"{G // k} groups of {k} node{'s' if k > 1 else ''} alike "
                       f"(node g -> g + {k})")])
    meta = {"chunks": c, "nodes": G, "ranks_per_node": q, "intra": "ring",
            "symmetry": "; ".join(words) or "none"}
    return _pack(t, "allreduce", "hierarchical", p, n_bytes, n_bytes / (q * G * c), (),
                 gens, orders, meta)


def _ring_consistent(perm: np.ndarray, orders: np.ndarray, relay: np.ndarray,
                     moved_orders: np.ndarray, moved_relay: np.ndarray) -> bool:
    """Whether participant permutation ``perm`` maps every channel's ring (ranks and relays)
    onto the shifted rings ``moved_*``."""
    image_relay = np.where(relay >= 0, perm[np.maximum(relay, 0)], -1)
    return bool(np.array_equal(perm[orders], moved_orders)
                and np.array_equal(image_relay, moved_relay))


def _ring_shift(topology, orders, relay, relays, channel_step: int, position_step: int):
    """The participant permutation of a (channel, position) shift of the channel rings, if
    it is one of the schedule and extends to the fabric; else None."""
    C, p = orders.shape
    moved_o = np.roll(np.roll(orders, -channel_step, axis=0), -position_step, axis=1)
    moved_r = np.roll(np.roll(relay, -channel_step, axis=0), -position_step, axis=1)
    rank_perm = np.empty(p, dtype=np.int64)
    rank_perm[orders[0]] = moved_o[0]
    perm = _participant_perm(rank_perm, relays)
    if perm is None or not _ring_consistent(perm, orders, relay, moved_o, moved_r):
        return None
    return perm if extend_gpu_permutation(topology, rank_perm) is not None else None


def _ring(collective: str, topology, n_bytes: float, chunks: int, channels) -> CompactSchedule:
    grid = _topology_grid(topology, f"a compact ring {collective}")
    p, c = grid.size, int(chunks)
    if p < 2:
        raise ValueError("a ring collective needs at least 2 ranks")
    C = check_channels(channels) or default_channels(topology)
    if C == 1 and grid.shape[0] == 1:
        orders, relay_rank = np.arange(p)[None, :], np.full((1, p), -1)
    else:
        orders, relay_rank = ring_orders(grid, C, rank_rails(topology, p))
    relays = np.unique(relay_rank[relay_rank >= 0])
    relay = np.where(relay_rank >= 0, p + np.searchsorted(relays, relay_rank), -1)
    found = [None, None]
    for axis, size in ((0, C), (1, p)):
        for s in _divisors(size):
            if s == size:
                break
            step = (s, 0) if axis == 0 else (0, s)
            perm = _ring_shift(topology, orders, relay, relays, *step)
            if perm is not None:
                found[axis] = (s, perm)
                break
    a, P = (found[0][0] if found[0] else C), (found[1][0] if found[1] else p)
    K = len(_ring_steps(collective, p))
    n_rep = K * c * (a * P + int(np.count_nonzero(relay[:a, :P] >= 0)))
    check_ops(n_rep, f"a compact ring {collective} over {p:,} ranks with {C} channel(s) and "
              f"{c} chunk(s)",
              f"the fabric's symmetry leaves {a} of the {C} channels and {P:,} of the {p:,} "
              "ring positions apart, so use fewer pipeline chunks or ranks, or raise "
              "NVLEARN_MAX_OPS if the memory is there")
    t = OpTable()
    _ring_phase(t, orders[:a], P, c, collective, None, relay[:a])
    gens = [f[1] for f in found if f is not None]
    orders_ = tuple(size // f[0] for f, size in zip(found, (C, p), strict=True) if f)
    words = []
    if found[0]:
        words.append(f"{C // a} channels alike (channel i -> i + {a})")
    if found[1]:
        words.append(f"{p // P} stretches of {P} ring positions alike (x -> x + {P})")
    roles = tuple(topology.node_name[int(topology.gpus[r])] for r in relays)
    meta = {"chunks": c, "channels": C, "nodes": grid.shape[0],
            "ranks_per_node": grid.shape[1], "symmetry": "; ".join(words) or "none"}
    gen = np.array(gens, dtype=np.int64).reshape(len(gens), p + relays.size)
    return _pack(t, collective, "ring", p, n_bytes, n_bytes / (p * C * c), roles, gen,
                 orders_, meta)


def _check_compact(collective: str, algorithm: str, n_bytes: float, chunks: int) -> None:
    check_size(n_bytes, chunks)
    if (collective, algorithm) not in COMPACT_ALGORITHMS:
        have = ", ".join(f"{a} {c}" for c, a in COMPACT_ALGORITHMS)
        raise ValueError(
            f"no compact form of the {algorithm} {collective} (compact forms: {have}); its "
            f"full op list is the way to simulate it: nvlearn.collectives.{collective}(...)")


def compact_allreduce(topology, n_bytes: float, algorithm: str = "ring", chunks: int = 1, *,
                      channels: int | None = None) -> CompactSchedule:
    """Compact all-reduce on ``topology`` (one rank per GPU): the ring on NCCL-like channels
    or the hierarchical all-reduce, one op per class of symmetric ops (module docstring).

    Parameters
    ----------
    topology : Topology
        The fabric; its symmetries (rail rotations, node shifts) are found and checked here.
    n_bytes : float
        Per-rank buffer, bytes (> 0).
    algorithm : {"ring", "hierarchical"}
        As :func:`nvlearn.collectives.allreduce` (hierarchical: rings inside nodes).
    chunks : int
        Pipeline slots, as :func:`nvlearn.collectives.allreduce`; >= 1.
    channels : int, optional
        Ring only: as :func:`nvlearn.collectives.allreduce` (default one per rail NIC).

    Returns
    -------
    CompactSchedule
        Representatives, their multiplicity and the symmetry; run it with
        :func:`nvlearn.sim.simulate`.

    Raises
    ------
    ValueError
        Another algorithm, a rank count instead of a Topology, bad sizes, or more
        representative ops than the op budget (:func:`nvlearn.collectives.budget.check_ops`),
        refused before anything is built.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> c = compact_allreduce(ib_cluster(8), 2**30)
    >>> c.meta["symmetry"].split("; ")
    ['8 channels alike (channel i -> i + 1)', '8 stretches of 8 ring positions alike (x -> x + 8)']
    >>> c.n_full_ops == 2 * 63 * (64 + 8) * 8            # 2(p-1) steps x (p + G) x 8 channels
    True
    """
    _check_compact("allreduce", algorithm, n_bytes, chunks)
    if algorithm == "hierarchical":
        if channels is not None:
            raise ValueError("channels applies only to algorithm='ring'")
        return _hierarchical(topology, n_bytes, chunks)
    return _ring("allreduce", topology, n_bytes, chunks, channels)


def compact_reduce_scatter(topology, n_bytes: float, chunks: int = 1, *,
                           channels: int | None = None) -> CompactSchedule:
    """Compact ring reduce-scatter on ``topology`` (``n_bytes``: the total array).

    Parameters
    ----------
    topology : Topology
        The fabric (one rank per GPU).
    n_bytes : float
        Total array, bytes, as :func:`nvlearn.collectives.reduce_scatter` counts it.
    chunks : int
        Pipeline slots per step; >= 1.
    channels : int, optional
        Rings at once (default one per rail NIC).

    Returns
    -------
    CompactSchedule

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> compact_reduce_scatter(dgx_h100(), 2**30).n_ops      # one op per step: 7
    7
    """
    _check_compact("reduce_scatter", "ring", n_bytes, chunks)
    return _ring("reduce_scatter", topology, n_bytes, chunks, channels)


def compact_allgather(topology, n_bytes: float, chunks: int = 1, *,
                      channels: int | None = None) -> CompactSchedule:
    """Compact ring all-gather on ``topology`` (``n_bytes``: the total array).

    Parameters
    ----------
    topology : Topology
        The fabric (one rank per GPU).
    n_bytes : float
        Total array, bytes, as :func:`nvlearn.collectives.allgather` counts it.
    chunks : int
        Pipeline slots per step; >= 1.
    channels : int, optional
        Rings at once (default one per rail NIC).

    Returns
    -------
    CompactSchedule

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> compact_allgather(dgx_h100(), 2**30, chunks=4).n_full_ops   # 7 steps x 4 x 8 ranks
    224
    """
    _check_compact("allgather", "ring", n_bytes, chunks)
    return _ring("allgather", topology, n_bytes, chunks, channels)
