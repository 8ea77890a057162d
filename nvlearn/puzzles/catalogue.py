"""The puzzles: what to compute, on which fabric, and the time to beat.

Each :class:`Puzzle` names a collective, a fabric (a builder of :mod:`nvlearn.topology`), a
buffer size and the library schedules it is measured against. Its target time is never
typed in: it is ``factor`` x the fastest of those library schedules, simulated on the same
fabric with the same model (:func:`target_time`). ``factor`` 1.05 asks to match the library
algorithm the puzzle is about (with 5 % slack); a factor below 1 asks to beat the library.

A puzzle has a default instance (the notebook's) and other rank counts and sizes the hidden
tests use (:attr:`Puzzle.rank_choices`, :attr:`Puzzle.size_choices`).

Examples
--------
>>> [p.id for p in PUZZLES][:3]
['chain_broadcast', 'ring_reduce_scatter', 'rd_allgather']
>>> inst = get("ring_reduce_scatter").instance()
>>> inst.n_ranks, inst.fabric.name
(8, 'ring(8)')
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from nvlearn import collectives, specs
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, ib_cluster, nvlink_pod, ring

__all__ = [
    "MiB", "KiB", "nvlink_ring", "ALLTOALL_OVERSUBSCRIPTION", "DEGRADED_FACTOR", "degraded_cable",
    "Instance", "Puzzle", "target_time", "baseline", "PUZZLES", "statement_markdown", "get",
]

MiB = 2.0**20
KiB = 2.0**10


def nvlink_ring(n: int):
    """``n`` GPUs in a ring, each neighbour pair joined by one NVLink 4 link.

    Examples
    --------
    >>> round(nvlink_ring(4).link_capacity[0] / 1e9)      # GB/s per direction
    25
    """
    return ring(n, bw_per_dir=specs.nvlink(4).link_bw_per_dir)


def _pod(n: int):
    return nvlink_pod(n // 8)


def _ib(n: int):
    return ib_cluster(n // 8)


#: The taper of the all-to-all puzzle's fabric: leaf down ports per up port.
ALLTOALL_OVERSUBSCRIPTION = 4.0


def _ib_tapered(n: int):
    return ib_cluster(n // 8, oversubscription=ALLTOALL_OVERSUBSCRIPTION)


#: The degraded-link puzzle's cable (rank 0 <-> rank 1) runs at this fraction of its rate.
DEGRADED_FACTOR = 0.1


def _cable_links(topo, a: int, b: int) -> list[int]:
    ga, gb = int(topo.gpus[a]), int(topo.gpus[b])
    src, dst = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    return np.flatnonzero(((src == ga) & (dst == gb)) | ((src == gb) & (dst == ga))).tolist()


def degraded_cable(topo) -> dict[int, float]:
    """``link_factor`` of the degraded-link puzzle: the cable between ranks 0 and 1, both
    directions, at :data:`DEGRADED_FACTOR` of its rate.

    Examples
    --------
    >>> sorted(degraded_cable(nvlink_ring(4)).values())
    [0.1, 0.1]
    """
    return {k: DEGRADED_FACTOR for k in _cable_links(topo, 0, 1)}


@dataclass(frozen=True)
class Instance:
    """One concrete puzzle: its rank count, bytes, fabric and degraded links.

    ``n_bytes`` follows :class:`nvlearn.schedule.Schedule`: the per-rank buffer for
    all-reduce and broadcast, the whole array for reduce-scatter and all-gather, ``n_ranks``
    x the per-rank send buffer for all-to-all.
    """

    puzzle: Puzzle
    n_ranks: int
    n_bytes: float

    @property
    def collective(self) -> str:
        """What the schedule must compute."""
        return self.puzzle.collective

    @property
    def root(self) -> int:
        """Root rank (broadcast)."""
        return self.puzzle.root

    @property
    def ranks_per_node(self) -> int:
        """GPUs per box of the fabric (all ranks when the fabric is one box)."""
        return self.puzzle.ranks_per_node or self.n_ranks

    @property
    def n_nodes(self) -> int:
        """Boxes the ranks span."""
        return self.n_ranks // self.ranks_per_node

    @property
    def fabric(self):
        """The Topology the schedule runs on (rank r on GPU r)."""
        return _fabric(self.puzzle.fabric, self.n_ranks)

    @property
    def link_factor(self) -> dict[int, float] | None:
        """Per-link capacity factors of this run (``simulate(link_factor=...)``), or None."""
        return None if self.puzzle.degrade is None else self.puzzle.degrade(self.fabric)

    def __repr__(self) -> str:
        from nvlearn.units import format_bytes

        return (f"{self.puzzle.id}: {self.collective} of {format_bytes(self.n_bytes)} on "
                f"{self.n_ranks} ranks of {self.fabric.name!r}")


@functools.lru_cache(maxsize=32)
def _fabric(builder: Callable, n_ranks: int):
    return builder(n_ranks)


@dataclass(frozen=True)
class Puzzle:
    """A schedule puzzle (module docstring).

    Attributes
    ----------
    id, title : str
    statement : str
        What to write, in a few sentences.
    collective : str
    fabric : callable
        ``fabric(n_ranks) -> Topology``.
    rank_choices, size_choices : tuple
        Rank counts and ``n_bytes`` values; the first of each is the default instance.
    baselines : callable
        ``baselines(instance) -> {label: Schedule}``: the library schedules the target is
        measured against.
    factor : float
        Target = ``factor`` x the fastest baseline.
    hints : tuple of str
    root : int
        Broadcast root.
    ranks_per_node : int or None
        GPUs per box on a multi-box fabric.
    degrade : callable or None
        ``degrade(topology) -> {link: factor}`` for a fabric with a degraded link.
    """

    id: str
    title: str
    statement: str
    collective: str
    fabric: Callable
    rank_choices: tuple[int, ...]
    size_choices: tuple[float, ...]
    baselines: Callable
    factor: float
    hints: tuple[str, ...] = ()
    root: int = 0
    ranks_per_node: int | None = None
    degrade: Callable | None = field(default=None)

    def instance(self, n_ranks: int | None = None, n_bytes: float | None = None) -> Instance:
        """The puzzle for ``n_ranks`` ranks and ``n_bytes`` bytes (default: the first
        choices); ValueError for a rank count the puzzle does not offer."""
        p = self.rank_choices[0] if n_ranks is None else n_ranks
        if p not in self.rank_choices:
            raise ValueError(f"puzzle {self.id!r} runs on {self.rank_choices} ranks, not "
                             f"{n_ranks!r}")
        n = self.size_choices[0] if n_bytes is None else float(n_bytes)
        if not (np.isfinite(n) and n > 0):
            raise ValueError(f"n_bytes must be a positive number of bytes, got {n_bytes!r}")
        return Instance(self, int(p), float(n))


def _best_time(inst: Instance, schedules: dict) -> tuple[str, float]:
    times = {k: simulate(inst.fabric, s, link_factor=inst.link_factor).time
             for k, s in schedules.items()}
    best = min(times, key=times.get)
    return best, times[best]


@functools.lru_cache(maxsize=128)
def _target(pid: str, n_ranks: int, n_bytes: float) -> tuple[str, float, float]:
    inst = get(pid).instance(n_ranks, n_bytes)
    label, t = _best_time(inst, inst.puzzle.baselines(inst))
    return label, t, inst.puzzle.factor * t


def target_time(inst: Instance) -> float:
    """Seconds to beat: ``factor`` x the fastest baseline, simulated (achievable model).

    Examples
    --------
    >>> inst = get("ring_reduce_scatter").instance()
    >>> target_time(inst) > 0
    True
    """
    return _target(inst.puzzle.id, inst.n_ranks, inst.n_bytes)[2]


def baseline(inst: Instance) -> tuple[str, float]:
    """The fastest library schedule of the puzzle and its simulated time (s)."""
    label, t, _ = _target(inst.puzzle.id, inst.n_ranks, inst.n_bytes)
    return label, t


def _chunked(make: Callable, depths=(1, 4)) -> Callable:
    """Baselines of one library builder at a few pipeline depths."""
    return lambda inst: {f"{make.__name__ if hasattr(make, '__name__') else 'lib'} x{c}":
                         make(inst, c) for c in depths}


def _allreduce(algorithm: str, *, on_topology: bool = True, **kw) -> Callable:
    def make(inst: Instance, chunks: int):
        where = inst.fabric if on_topology else inst.n_ranks
        return collectives.allreduce(where, inst.n_bytes, algorithm, chunks=chunks, **kw)
    make.__name__ = f"{algorithm} all-reduce"
    return make


def _several(*parts: Callable) -> Callable:
    def baselines(inst: Instance) -> dict:
        out = {}
        for part in parts:
            out.update(part(inst))
        return out
    return baselines


def _bcast(algorithm: str, chunks=(1, 4)) -> Callable:
    return lambda inst: {f"{algorithm.replace('_', ' ')} broadcast x{c}": collectives.broadcast(
        inst.n_ranks, inst.n_bytes, algorithm, chunks=c, root=inst.root) for c in chunks}


PUZZLES: tuple[Puzzle, ...] = (
    Puzzle(
        id="chain_broadcast", title="Worked example: a pipelined chain broadcast",
        statement=("Rank 0 holds the buffer; every rank must end with it. The GPUs sit in a "
                   "ring of single NVLinks. Send the buffer down the chain 0 -> 1 -> ... in "
                   "pieces, so that every link is busy at once."),
        collective="broadcast", fabric=nvlink_ring, rank_choices=(8, 6),
        size_choices=(16 * MiB, 4 * MiB),
        baselines=lambda inst: {"chain broadcast x8": collectives.broadcast(
            inst.n_ranks, inst.n_bytes, "ring", chunks=8)},
        factor=1.05,
        hints=("Cut the buffer into 8 chunks and let rank r forward chunk c as soon as it has "
               "arrived.",)),
    Puzzle(
        id="ring_reduce_scatter", title="Reduce-scatter on a ring",
        statement=("Every rank holds a full array; rank r must end with the sum of block r. "
                   "The GPUs sit in a ring of single NVLinks: use only neighbour links."),
        collective="reduce_scatter", fabric=nvlink_ring, rank_choices=(8, 6, 4),
        size_choices=(16 * MiB, 1 * MiB),
        baselines=lambda inst: {"ring reduce-scatter": collectives.reduce_scatter(
            inst.n_ranks, inst.n_bytes)},
        factor=1.05,
        hints=("Block b starts at rank b+1 and travels p-1 hops around the ring, each rank "
               "adding its part, and ends at rank b.",
               "In step s, rank r sends block (r - s - 1) mod p to rank r+1.")),
    Puzzle(
        id="rd_allgather", title="All-gather by recursive doubling",
        statement=("A small all-gather on one DGX H100: every rank must end with every rank's "
                   "block. Latency dominates, so use log2(p) exchange steps instead of the "
                   "ring's p-1."),
        collective="allgather", fabric=lambda n: dgx_h100(), rank_choices=(8, 4),
        size_choices=(64 * KiB, 32 * KiB),
        baselines=lambda inst: {f"{a} all-gather": collectives.allgather(
            inst.n_ranks, inst.n_bytes, a) for a in ("ring", "recursive_doubling")},
        factor=1.05,
        hints=("In step k, rank r swaps everything it has with rank r XOR 2**k.",
               "Before step k a rank holds the 2**k blocks of its aligned group.")),
    Puzzle(
        id="binomial_broadcast", title="A broadcast tree",
        statement=("Broadcast a small message from rank 3 to all ranks of a DGX H100. A chain "
                   "takes p-1 steps; a tree in which every rank that has the data sends it on "
                   "takes only log2(p)."),
        collective="broadcast", fabric=lambda n: dgx_h100(), rank_choices=(8, 4),
        size_choices=(8 * KiB, 64 * KiB),
        baselines=_several(_bcast("ring"), _bcast("binary_tree")),
        factor=1.0, root=3,
        hints=("Binomial tree: in step k every rank that already has the data sends it to the "
               "rank 2**k further on (counting from the root, mod p).",)),
    Puzzle(
        id="ring_allreduce", title="Ring all-reduce",
        statement=("All-reduce 16 MiB on one DGX H100: every rank must end with the sum. "
                   "Write it as a ring reduce-scatter followed by a ring all-gather."),
        collective="allreduce", fabric=lambda n: dgx_h100(), rank_choices=(8, 4),
        size_choices=(16 * MiB, 4 * MiB),
        baselines=lambda inst: {"ring all-reduce": collectives.allreduce(
            inst.n_ranks, inst.n_bytes)},
        factor=1.05,
        hints=("Split the buffer into p chunks. After the reduce-scatter, rank r holds the "
               "complete sum of one chunk; pass the sums around once more, copying.",)),
    Puzzle(
        id="bidirectional_ring", title="Both directions of the ring",
        statement=("All-reduce on a ring of single NVLinks. The library's ring sends one way "
                   "round only, so half of every cable idles. Beat it clearly."),
        collective="allreduce", fabric=nvlink_ring, rank_choices=(8, 6),
        size_choices=(16 * MiB, 64 * MiB),
        baselines=_chunked(_allreduce("ring", on_topology=False), (1, 4)),
        factor=0.6,
        hints=("Run two rings at once, each on half the buffer: one clockwise, one "
               "counter-clockwise.",)),
    Puzzle(
        id="halving_doubling", title="Recursive halving, then doubling",
        statement=("A 256 KiB all-reduce on one DGX H100, where the ring's 2(p-1) steps of "
                   "latency hurt. Beat the ring with log2(p) steps of reduce-scatter "
                   "(halving the data each step) and log2(p) of all-gather."),
        collective="allreduce", fabric=lambda n: dgx_h100(), rank_choices=(8,),
        size_choices=(256 * KiB, 128 * KiB, 64 * KiB),
        baselines=_chunked(_allreduce("ring", on_topology=False), (1, 4)),
        factor=0.8,
        hints=("Step k of the reduce-scatter: rank r and rank r XOR (p / 2**(k+1)) each send "
               "the half of their current range the other keeps.",
               "The all-gather retraces the same partners in reverse order, copying.")),
    Puzzle(
        id="pod_allreduce", title="All-reduce on the tapered NVLink pod",
        statement=("A 64 MiB all-reduce on 4 nodes of the NVLink Switch System (each node's "
                   "uplinks carry half its GPUs' NVLink bandwidth: the 2:1 taper). Beat the "
                   "flat ring over all 32 GPUs by 10 %."),
        collective="allreduce", fabric=_pod, rank_choices=(32, 24),
        size_choices=(64 * MiB, 16 * MiB),
        baselines=_chunked(_allreduce("ring"), (1,)), factor=0.9, ranks_per_node=8,
        hints=("Reduce-scatter inside each node first: then only 1/8 of the buffer per GPU "
               "has to cross the taper.",
               "GPU i of every node all-reduces its shard with GPU i of the other nodes "
               "(a ring of nodes), then each node all-gathers.")),
    Puzzle(
        id="ib_2d_allreduce", title="A 2D (node x rail) all-reduce on InfiniBand",
        statement=("A 1 MiB all-reduce on 4 DGX H100 nodes joined by a rail-optimised "
                   "InfiniBand fabric (GPU i's NIC is on rail i). The flat ring pays the "
                   "network's latency at 2(p-1) steps. Halve its time."),
        collective="allreduce", fabric=_ib, rank_choices=(32, 24),
        size_choices=(1 * MiB, 2 * MiB),
        baselines=_chunked(_allreduce("ring"), (1,)), factor=0.5, ranks_per_node=8,
        hints=("Inside a node NVLink is cheap; across nodes use each GPU's own rail.",
               "Reduce-scatter in the node, all-reduce across the rail, all-gather in the "
               "node: 2(q-1) + 2(m-1) + ... steps instead of 2(p-1).")),
    Puzzle(
        id="rail_alltoall", title="An all-to-all that avoids the taper",
        statement=("All-to-all on 4 DGX H100 nodes whose InfiniBand leaves have 4 down ports "
                   "per up port. Traffic between different rails must cross the spines, "
                   "which carry a quarter of the NIC bandwidth; traffic on one rail does not. "
                   "Halve the library's time."),
        collective="alltoall", fabric=_ib_tapered, rank_choices=(32,),
        size_choices=(32 * 4 * MiB, 32 * 8 * MiB, 32 * 2 * MiB),
        baselines=lambda inst: {f"{a} all-to-all": collectives.alltoall(
            inst.n_ranks, inst.n_bytes / inst.n_ranks, a) for a in ("direct", "ring")},
        factor=0.5, ranks_per_node=8,
        hints=("Move each block over NVLink first, to the GPU of the sender's node that sits "
               "on the destination's rail (NCCL calls this PXN).",
               "A copy to yourself is not an op: a block whose rail GPU is the sender goes "
               "straight over the rail.")),
    Puzzle(
        id="degraded_allreduce", title="All-reduce with a degraded link",
        statement=("All-reduce on a ring of single NVLinks where the cable between ranks 0 "
                   "and 1 runs at a tenth of its rate. GPUs do not forward, so the library's "
                   "only algorithm for this fabric is the ring, and the ring crosses that "
                   "cable. Run in a quarter of the ring's time."),
        collective="allreduce", fabric=nvlink_ring, rank_choices=(8, 6),
        size_choices=(16 * MiB, 4 * MiB),
        baselines=_chunked(_allreduce("ring", on_topology=False), (1, 8)), factor=0.25,
        degrade=degraded_cable,
        hints=("Without the bad cable the ring is a line 1 - 2 - ... - 0.",
               "On a line, reduce each chunk from one end to the other and send the sum back; "
               "let half of the chunks go each way so both directions of every cable work.")),
)


def statement_markdown(puzzle_id: str) -> str:
    """The puzzle as a learner reads it: statement, instance, target (computed) and how to
    get hints.

    Examples
    --------
    >>> "Target" in statement_markdown("ring_allreduce")
    True
    """
    from nvlearn.units import format_time

    p = get(puzzle_id)
    inst = p.instance()
    label, t = baseline(inst)
    goal = ("match it" if p.factor == 1 else f"match it (within {p.factor - 1:.0%})"
            if p.factor > 1 else f"run in {p.factor:g} x its time")
    degraded = " (one degraded cable)" if inst.link_factor else ""
    return (f"**{p.title}** (`{p.id}`). {p.statement}\n\n"
            f"*Instance:* {inst!r}{degraded}. *Library's best:* {label}, {format_time(t)}; "
            f"*Target:* {goal} = **{format_time(target_time(inst))}** (achievable model). "
            f"{len(p.hints)} hint(s): `get({p.id!r}).hints`.")


def get(puzzle_id: str) -> Puzzle:
    """The puzzle called ``puzzle_id``; ValueError listing the ids otherwise.

    Examples
    --------
    >>> get("ring_allreduce").collective
    'allreduce'
    """
    for p in PUZZLES:
        if p.id == puzzle_id:
            return p
    raise ValueError(f"no puzzle {puzzle_id!r}; the puzzles are {[p.id for p in PUZZLES]}")
