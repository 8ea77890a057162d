"""Collective algorithms as Schedules, their closed-form costs, and nccl-tests metrics.

The entry points take either a rank count or a :class:`~nvlearn.topology.Topology` (then
one rank per GPU) and return a :class:`~nvlearn.schedule.Schedule`::

    allreduce(topology_or_ranks, n_bytes, algorithm="ring", chunks=1)

and likewise :func:`reduce_scatter`, :func:`allgather`, :func:`broadcast` and
:func:`alltoall`. One file per algorithm
(:mod:`nvlearn.collectives.ring` ...); :mod:`nvlearn.collectives.metrics` has algbw/busbw.
"""

from __future__ import annotations

from nvlearn.collectives.direct import direct_alltoall
from nvlearn.collectives.metrics import algbw, busbw, busbw_factor
from nvlearn.collectives.pipeline import chain_broadcast, chain_broadcast_time
from nvlearn.collectives.ring import ring_schedule, ring_time
from nvlearn.schedule import Schedule

__all__ = [
    "ALGORITHMS",
    "algbw",
    "allgather",
    "allreduce",
    "alltoall",
    "broadcast",
    "busbw",
    "busbw_factor",
    "chain_broadcast",
    "chain_broadcast_time",
    "direct_alltoall",
    "reduce_scatter",
    "ring_schedule",
    "ring_time",
]

#: Algorithms available per collective (more arrive with the collectives library).
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "allreduce": ("ring",),
    "reduce_scatter": ("ring",),
    "allgather": ("ring",),
    "broadcast": ("ring",),
    "alltoall": ("direct",),
}


def _n_ranks(topology_or_ranks) -> int:
    if hasattr(topology_or_ranks, "n_gpus"):
        return int(topology_or_ranks.n_gpus)
    if isinstance(topology_or_ranks, bool) or not isinstance(topology_or_ranks, int):
        raise ValueError(
            f"pass a rank count (int) or a Topology, got {type(topology_or_ranks).__name__}"
        )
    return topology_or_ranks


def _check_algorithm(collective: str, algorithm: str) -> None:
    if algorithm not in ALGORITHMS[collective]:
        raise ValueError(
            f"unknown {collective} algorithm {algorithm!r}; available: "
            f"{', '.join(ALGORITHMS[collective])}"
        )


def _build(collective: str, topology_or_ranks, n_bytes: float, algorithm: str, chunks: int):
    n = _n_ranks(topology_or_ranks)
    _check_algorithm(collective, algorithm)
    return ring_schedule(collective, n, n_bytes, chunks)


def allreduce(
    topology_or_ranks, n_bytes: float, algorithm: str = "ring", chunks: int = 1
) -> Schedule:
    """All-reduce (sum) of an ``n_bytes`` buffer on every rank.

    Parameters
    ----------
    topology_or_ranks : int or Topology
        Number of ranks, or a Topology (one rank per GPU).
    n_bytes : float
        Per-rank buffer in bytes.
    algorithm : str
        One of ``ALGORITHMS["allreduce"]``.
    chunks : int
        Pipeline slots per step.

    Examples
    --------
    >>> allreduce(8, 2**30)
    Schedule(allreduce, ring, 8 ranks, 1.07 GB per rank, 8 chunks, 112 ops, 104 deps)
    """
    return _build("allreduce", topology_or_ranks, n_bytes, algorithm, chunks)


def reduce_scatter(
    topology_or_ranks, n_bytes: float, algorithm: str = "ring", chunks: int = 1
) -> Schedule:
    """Reduce-scatter: rank r ends with the sum of block r. ``n_bytes`` is the total array.

    Examples
    --------
    >>> reduce_scatter(4, 4e6).n_ops
    12
    """
    return _build("reduce_scatter", topology_or_ranks, n_bytes, algorithm, chunks)


def allgather(
    topology_or_ranks, n_bytes: float, algorithm: str = "ring", chunks: int = 1
) -> Schedule:
    """All-gather: every rank ends with every rank's block. ``n_bytes`` is the total array.

    Examples
    --------
    >>> allgather(4, 4e6).n_ops
    12
    """
    return _build("allgather", topology_or_ranks, n_bytes, algorithm, chunks)


def broadcast(
    topology_or_ranks, n_bytes: float, algorithm: str = "ring", chunks: int = 1, root: int = 0
) -> Schedule:
    """Broadcast ``n_bytes`` from ``root`` to every rank (a pipelined chain along the ring).

    Examples
    --------
    >>> broadcast(4, 1e6, chunks=4, root=2).n_ops
    12
    """
    _check_algorithm("broadcast", algorithm)
    return chain_broadcast(_n_ranks(topology_or_ranks), n_bytes, chunks=chunks, root=root)


def alltoall(
    topology_or_ranks, n_bytes: float, algorithm: str = "direct", block_bytes=None
) -> Schedule:
    """All-to-all: rank s sends block d of its ``n_bytes`` send buffer to rank d.

    ``block_bytes`` (shape (p, p)) gives ragged blocks instead (Mixture-of-Experts traffic).

    Examples
    --------
    >>> alltoall(8, 8e6).n_ops       # p (p - 1) transfers
    56
    """
    _check_algorithm("alltoall", algorithm)
    return direct_alltoall(_n_ranks(topology_or_ranks), n_bytes, block_bytes=block_bytes)
