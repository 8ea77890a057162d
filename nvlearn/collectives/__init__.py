"""Collective algorithms as Schedules, their closed-form costs, and nccl-tests metrics.

Building a schedule
-------------------
The entry points take either a rank count or a :class:`~nvlearn.topology.Topology` (then one
rank per GPU, and switch / GPU names come from the topology) and return a
:class:`~nvlearn.schedule.Schedule`::

    allreduce(topology_or_ranks, n_bytes, algorithm="ring", chunks=1)
    reduce_scatter(...), allgather(...), broadcast(..., root=0), alltoall(...)

On a multi-node Topology the ring runs NCCL-like channels, one per rail NIC, laid out so
that every NIC works (``channels=``; :mod:`~nvlearn.collectives.channels`); on a rank
count or one node it is the single ring ``0 -> 1 -> ... -> p-1``.

Big symmetric collectives (rings, the hierarchical all-reduce at 8,192 GPUs and beyond)
have a compact form, one op per class of ops the fabric's symmetry maps onto each other:
``compact_allreduce(topology, n_bytes, algorithm="ring")`` (and ``compact_reduce_scatter``,
``compact_allgather``), run by the same :func:`nvlearn.sim.simulate`
(:mod:`~nvlearn.collectives.compact` says what it captures and what it does not).

:data:`ALGORITHMS` lists the algorithm names per collective; :func:`supports` /
:data:`RANK_RULES` say which rank counts each handles. An unknown name, or a rank count the
algorithm cannot do, raises ValueError saying what is available.

==================  ==========================================================  ===========
allreduce           ring, tree, double_binary_tree, recursive_doubling,          see
                    rabenseifner, nvls, hierarchical, nccl_tree                  RANK_RULES
reduce_scatter      ring, recursive_halving, nvls
allgather           ring, recursive_doubling, nvls
broadcast           ring (pipelined chain), tree
alltoall            direct, ring (shifted pairwise exchange)
==================  ==========================================================  ===========

Closed forms
------------
:func:`cost` gives the time of any (collective, algorithm) on one uncontended switch —
every rank one link of ``bw_per_dir`` bytes/s each way, a GPU-to-GPU message ``alpha`` s of
latency, the simulator's fluid model — exactly as :func:`nvlearn.sim.simulate` finds it on
``single_switch(p, bw_per_dir, alpha / 2)``. The per-algorithm functions (``ring_time``,
``tree_allreduce_time`` ...) carry the derivation and literature reference in their
modules; ``*_textbook`` / ``*_ideal`` functions give the classic formulas for comparison.

One file per algorithm (:mod:`~nvlearn.collectives.ring`, ``tree``, ``double_binary_tree``,
``recursive_doubling``, ``rabenseifner``, ``nvls``, ``hierarchical``, ``nccl_tree``,
``chain``, ``direct``, ``alltoall_ring``); :mod:`~nvlearn.collectives.channels` lays
channels out across rails; :mod:`~nvlearn.collectives.metrics` has algbw/busbw and
:mod:`~nvlearn.collectives.volume` per-rank traffic.
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives.alltoall_ring import (
    direct_alltoall_time,
    ring_alltoall,
    ring_alltoall_time,
)
from nvlearn.collectives.budget import check_ops, estimate_ops
from nvlearn.collectives.builders import BuildRequest
from nvlearn.collectives.chain import chain_broadcast, chain_broadcast_time
from nvlearn.collectives.channels import (
    channel_ring,
    default_channels,
    node_groups,
    rank_rails,
    ring_orders,
    tree_chains,
)
from nvlearn.collectives.compact import (
    COMPACT_ALGORITHMS,
    CompactSchedule,
    compact_allgather,
    compact_allreduce,
    compact_reduce_scatter,
)
from nvlearn.collectives.direct import direct_alltoall
from nvlearn.collectives.double_binary_tree import (
    double_binary_tree_allreduce,
    double_binary_tree_time,
    double_binary_tree_time_textbook,
    double_binary_trees,
)
from nvlearn.collectives.hierarchical import (
    hierarchical_allreduce,
    hierarchical_time,
    rank_groups,
)
from nvlearn.collectives.metrics import algbw, busbw, busbw_factor
from nvlearn.collectives.nccl_tree import (
    nccl_tree_allreduce,
    nccl_tree_parents,
    nccl_tree_time,
)
from nvlearn.collectives.nvls import (
    nvls_allgather,
    nvls_allreduce,
    nvls_phase_time,
    nvls_reduce_scatter,
    nvls_time,
    nvls_time_ideal,
    nvswitch_planes,
)
from nvlearn.collectives.rabenseifner import (
    rabenseifner_allreduce,
    rabenseifner_time,
    rabenseifner_time_textbook,
    recursive_doubling_allgather,
    recursive_doubling_allgather_time,
    recursive_halving_reduce_scatter,
    recursive_halving_time,
)
from nvlearn.collectives.recursive_doubling import (
    recursive_doubling_allreduce,
    recursive_doubling_time,
    recursive_doubling_time_textbook,
)
from nvlearn.collectives.registry import ALGORITHMS, RANK_RULES, REGISTRY, Algorithm
from nvlearn.collectives.ring import channel_ring_schedule, ring_schedule, ring_time
from nvlearn.collectives.tree import (
    binary_tree,
    tree_allreduce,
    tree_allreduce_time,
    tree_allreduce_time_textbook,
    tree_broadcast,
    tree_broadcast_time,
)
from nvlearn.schedule import Schedule

__all__ = [
    "REGISTRY",
    "Algorithm",
    "ALGORITHMS",
    "CompactSchedule",
    "RANK_RULES",
    "algbw",
    "allgather",
    "allreduce",
    "alltoall",
    "binary_tree",
    "broadcast",
    "busbw",
    "busbw_factor",
    "chain_broadcast",
    "chain_broadcast_time",
    "channel_ring",
    "channel_ring_schedule",
    "check_supported",
    "compact_allgather",
    "compact_allreduce",
    "compact_reduce_scatter",
    "cost",
    "default_channels",
    "direct_alltoall",
    "direct_alltoall_time",
    "double_binary_tree_allreduce",
    "double_binary_tree_time",
    "double_binary_tree_time_textbook",
    "double_binary_trees",
    "hierarchical_allreduce",
    "hierarchical_time",
    "nccl_tree_allreduce",
    "nccl_tree_parents",
    "nccl_tree_time",
    "node_groups",
    "nvls_allgather",
    "nvls_allreduce",
    "nvls_phase_time",
    "nvls_reduce_scatter",
    "nvls_time",
    "nvls_time_ideal",
    "nvswitch_planes",
    "rabenseifner_allreduce",
    "rabenseifner_time",
    "rabenseifner_time_textbook",
    "rank_groups",
    "rank_rails",
    "recursive_doubling_allgather",
    "recursive_doubling_allgather_time",
    "recursive_doubling_allreduce",
    "recursive_doubling_time",
    "recursive_doubling_time_textbook",
    "recursive_halving_reduce_scatter",
    "recursive_halving_time",
    "reduce_scatter",
    "ring_alltoall",
    "ring_alltoall_time",
    "ring_orders",
    "ring_schedule",
    "ring_time",
    "supports",
    "tree_allreduce",
    "tree_allreduce_time",
    "tree_allreduce_time_textbook",
    "tree_broadcast",
    "tree_broadcast_time",
    "tree_chains",
]



def _check_algorithm(collective: str, algorithm: str) -> None:
    if collective not in ALGORITHMS:
        raise ValueError(f"unknown collective {collective!r}; expected one of {tuple(ALGORITHMS)}")
    if algorithm == "tree":
        nccl = ("; NCCL's Tree (chains inside nodes, double binary trees across) is 'nccl_tree'"
                if "nccl_tree" in ALGORITHMS[collective] else "")
        raise ValueError(
            "'tree' is NCCL's name (nvlearn.tuner speaks NCCL's names); here one pipelined "
            f"binary tree is 'binary_tree'{nccl}. Available: "
            f"{', '.join(ALGORITHMS[collective])}")
    if algorithm not in ALGORITHMS[collective]:
        raise ValueError(
            f"unknown {collective} algorithm {algorithm!r}; available: "
            f"{', '.join(ALGORITHMS[collective])}"
        )


def supports(collective: str, algorithm: str, n_ranks: int) -> bool:
    """Whether ``algorithm`` can run ``collective`` on ``n_ranks`` ranks.

    Parameters
    ----------
    collective : str
        A key of :data:`ALGORITHMS`: "allreduce", "reduce_scatter", "allgather", "broadcast"
        or "alltoall".
    algorithm : str
        One of ``ALGORITHMS[collective]``; an unknown name raises ValueError.
    n_ranks : int
        Rank count to test; anything but an integer >= 2 is unsupported.

    Returns
    -------
    bool
        True if :data:`RANK_RULES` admits ``n_ranks`` for this (collective, algorithm).

    Examples
    --------
    >>> supports("reduce_scatter", "recursive_halving", 6), supports("allreduce", "rabenseifner", 6)
    (False, True)
    """
    _check_algorithm(collective, algorithm)
    if isinstance(n_ranks, bool) or int(n_ranks) != n_ranks or n_ranks < 2:
        return False
    return REGISTRY[(collective, algorithm)].supports(int(n_ranks))


def check_supported(collective: str, algorithm: str, n_ranks: int) -> None:
    """ValueError naming the rank counts that work if ``algorithm`` cannot do ``n_ranks``.

    Parameters
    ----------
    collective, algorithm : str
        As :func:`supports`.
    n_ranks : int
        Rank count the caller wants to run.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If :func:`supports` is False; the message quotes the algorithm's rank rule.

    Examples
    --------
    >>> check_supported("allgather", "recursive_doubling", 8)   # fine: silent
    """
    if not supports(collective, algorithm, n_ranks):
        raise ValueError(
            f"{algorithm} {collective} supports {RANK_RULES[(collective, algorithm)]}, not "
            f"p={n_ranks}; 'ring' handles any p >= 2"
        )


def _n_ranks(topology_or_ranks) -> int:
    if hasattr(topology_or_ranks, "n_gpus"):
        return int(topology_or_ranks.n_gpus)
    if isinstance(topology_or_ranks, (bool, np.bool_)) or not isinstance(
            topology_or_ranks, (int, np.integer)):
        raise ValueError(
            f"pass a rank count (int) or a Topology, got {type(topology_or_ranks).__name__}"
        )
    return int(topology_or_ranks)


def _checked_ranks(collective: str, algorithm: str, topology_or_ranks) -> int:
    """The rank count of ``topology_or_ranks``, once ``algorithm`` is known to handle it."""
    p = _n_ranks(topology_or_ranks)
    _check_algorithm(collective, algorithm)
    check_supported(collective, algorithm, p)
    return p


def _check_budget(collective: str, algorithm: str, topology_or_ranks, p: int, chunks,
                  channels: int | None = None) -> None:
    """Refuse, before building it, a schedule over the op budget (:mod:`.budget`)."""
    topo = _topology(topology_or_ranks)
    n_channels = 1
    if algorithm in ("ring", "nccl_tree") and collective != "broadcast":
        n_channels = int(channels) if channels else default_channels(topology_or_ranks)
    nodes = 1 if topo is None else int(np.unique(
        np.asarray(topo.node_box)[np.asarray(topo.gpus)[:p]]).size)
    planes = 1
    if algorithm == "nvls" and topo is not None:
        planes = len(nvswitch_planes(topo, range(p)))
    n_ops = estimate_ops(collective, algorithm, p, int(chunks), channels=n_channels,
                         nodes=nodes, planes=planes)
    compact = ""
    if (collective, algorithm) in COMPACT_ALGORITHMS and topo is not None:
        compact = (f", or its compact form (one op per class of symmetric ops, exact on a "
                   f"symmetric fabric): nvlearn.collectives.compact_{collective}(topology, ...)"
                   + (f" with algorithm={algorithm!r}" if collective == "allreduce" else ""))
    check_ops(n_ops, f"a {algorithm} {collective} over {p:,} ranks with {chunks} chunk(s)",
              "use fewer pipeline chunks or ranks, a hierarchical algorithm, the closed "
              "form nvlearn.collectives.cost(...), which needs no schedule" + compact)


def _topology(topology_or_ranks):
    return topology_or_ranks if hasattr(topology_or_ranks, "n_gpus") else None


def _build(collective: str, algorithm: str, request: BuildRequest) -> Schedule:
    """The registered builder of (collective, algorithm), on a checked request."""
    return REGISTRY[(collective, algorithm)].build(request)


def _only_ring_channels(algorithm: str, channels, with_channels=("ring",)) -> None:
    if channels is not None and algorithm not in with_channels:
        raise ValueError(f"channels applies only to algorithm in {with_channels}, "
                         f"not {algorithm!r}")


def allreduce(topology_or_ranks, n_bytes: float, algorithm: str = "ring", chunks: int = 1, *,
              ranks_per_node: int | None = None, intra: str = "ring",
              channels: int | None = None) -> Schedule:
    """All-reduce (sum) of an ``n_bytes`` buffer on every rank.

    Parameters
    ----------
    topology_or_ranks : int or Topology
        Number of ranks, or a Topology (one rank per GPU; NVLS takes its NVSwitch planes,
        recursive doubling its GPU names and hierarchical its nodes from it).
    n_bytes : float
        Per-rank buffer in bytes.
    algorithm : str
        One of ``ALGORITHMS["allreduce"]``: "ring", "binary_tree", "double_binary_tree",
        "nccl_tree" (NCCL's Tree: chains inside nodes, a double binary tree across them),
        "recursive_doubling", "rabenseifner", "nvls", "hierarchical".
    chunks : int
        Pipeline depth: slots per step (ring), pieces per tree, slots per block
        (Rabenseifner, hierarchical) or per shard (NVLS).
    ranks_per_node : int, optional
        Hierarchical and nccl_tree: GPUs per node (default: from the Topology's boxes; for
        nccl_tree on a rank count, one node).
    intra : {"ring", "nvls"}
        Hierarchical only: the algorithm inside a node.
    channels : int, optional
        Ring and nccl_tree: rings (tree pairs) run at once, each on its share of the
        buffer, laid out across the rails of a multi-node Topology
        (:mod:`~nvlearn.collectives.channels`). None: one per rail NIC of a node on a
        multi-node Topology with rails, else 1 (the ring ``0 -> 1 -> ... -> p-1``).

    Returns
    -------
    Schedule
        The all-reduce's ops and dependencies; every rank ends with the sum of all buffers.

    Examples
    --------
    >>> allreduce(8, 2**30)
    Schedule(allreduce, ring, 8 ranks, 1.07 GB per rank, 8 chunks, 112 ops, 104 deps)
    >>> allreduce(8, 2**30, "double_binary_tree", chunks=4).n_ops
    112
    """
    p = _checked_ranks("allreduce", algorithm, topology_or_ranks)
    _check_budget("allreduce", algorithm, topology_or_ranks, p, chunks, channels)
    if (intra != "ring" and algorithm != "hierarchical") or (
            ranks_per_node is not None and algorithm not in ("hierarchical", "nccl_tree")):
        raise ValueError("ranks_per_node and intra apply only to algorithm='hierarchical' "
                         "(ranks_per_node also to 'nccl_tree')")
    _only_ring_channels(algorithm, channels, ("ring", "nccl_tree"))
    return _build("allreduce", algorithm, BuildRequest(
        topology_or_ranks, p, n_bytes, chunks, channels,
        {"ranks_per_node": ranks_per_node, "intra": intra}))


def reduce_scatter(topology_or_ranks, n_bytes: float, algorithm: str = "ring",
                   chunks: int = 1, *, channels: int | None = None) -> Schedule:
    """Reduce-scatter: rank r ends with the sum of block r. ``n_bytes`` is the total array.

    Algorithms: "ring" (any p), "recursive_halving" (p a power of two), "nvls" (the
    NVSwitch adds; one NVSwitch domain, planes from a Topology). ``channels``: as in
    :func:`allreduce` (ring only).

    Parameters
    ----------
    topology_or_ranks : int or Topology
        Number of ranks p >= 2, or a Topology (one rank per GPU; NVLS takes its NVSwitch
        planes, the ring its rails).
    n_bytes : float
        Total array in bytes (p blocks of ``n_bytes / p``), nccl-tests' "size"; > 0.
    algorithm : {"ring", "recursive_halving", "nvls"}
        See above; rank rules in :data:`RANK_RULES`.
    chunks : int
        Pipeline slots per step (ring, recursive halving) or per shard (NVLS); >= 1.
    channels : int, optional
        Ring only: rings run at once, as in :func:`allreduce`.

    Returns
    -------
    Schedule
        The ops; ``chunk_dest`` says which rank ends with each reduced block.

    Examples
    --------
    >>> reduce_scatter(4, 4e6).n_ops
    12
    """
    p = _checked_ranks("reduce_scatter", algorithm, topology_or_ranks)
    _check_budget("reduce_scatter", algorithm, topology_or_ranks, p, chunks, channels)
    _only_ring_channels(algorithm, channels)
    return _build("reduce_scatter", algorithm,
                  BuildRequest(topology_or_ranks, p, n_bytes, chunks, channels))


def allgather(topology_or_ranks, n_bytes: float, algorithm: str = "ring",
              chunks: int = 1, *, channels: int | None = None) -> Schedule:
    """All-gather: every rank ends with every rank's block. ``n_bytes`` is the total array.

    Algorithms: "ring" (any p), "recursive_doubling" (p a power of two), "nvls" (NVSwitch
    multicast; one NVSwitch domain, planes from a Topology). ``channels``: as in
    :func:`allreduce` (ring only).

    Parameters
    ----------
    topology_or_ranks : int or Topology
        Number of ranks p >= 2, or a Topology (one rank per GPU).
    n_bytes : float
        Total gathered array in bytes (p blocks of ``n_bytes / p``), nccl-tests' "size"; > 0.
    algorithm : {"ring", "recursive_doubling", "nvls"}
        See above; rank rules in :data:`RANK_RULES`.
    chunks : int
        Pipeline slots per step (ring, recursive doubling) or per shard (NVLS); >= 1.
    channels : int, optional
        Ring only: rings run at once, as in :func:`allreduce`.

    Returns
    -------
    Schedule
        The ops; ``chunk_owner`` says which rank contributes each block.

    Examples
    --------
    >>> allgather(4, 4e6).n_ops
    12
    """
    p = _checked_ranks("allgather", algorithm, topology_or_ranks)
    _check_budget("allgather", algorithm, topology_or_ranks, p, chunks, channels)
    _only_ring_channels(algorithm, channels)
    return _build("allgather", algorithm,
                  BuildRequest(topology_or_ranks, p, n_bytes, chunks, channels))


def broadcast(topology_or_ranks, n_bytes: float, algorithm: str = "ring", chunks: int = 1,
              root: int = 0) -> Schedule:
    """Broadcast ``n_bytes`` from ``root`` to every rank.

    Algorithms: "ring" (a pipelined chain along the ring), "binary_tree" (a pipelined
    binary tree).

    Parameters
    ----------
    topology_or_ranks : int or Topology
        Number of ranks p >= 2, or a Topology (one rank per GPU).
    n_bytes : float
        Buffer broadcast, bytes; > 0.
    algorithm : {"ring", "binary_tree"}
        "ring": a chain ``root -> root+1 -> ...``; "binary_tree": a binary tree rooted at
        ``root``.
    chunks : int
        Pieces the buffer is pipelined in; >= 1.
    root : int
        Rank holding the data, ``0 <= root < p``.

    Returns
    -------
    Schedule
        ``p - 1`` transfers of every piece.

    Examples
    --------
    >>> broadcast(4, 1e6, chunks=4, root=2).n_ops
    12
    """
    p = _checked_ranks("broadcast", algorithm, topology_or_ranks)
    _check_budget("broadcast", algorithm, topology_or_ranks, p, chunks)
    return _build("broadcast", algorithm,
                  BuildRequest(topology_or_ranks, p, n_bytes, chunks, options={"root": root}))


def alltoall(topology_or_ranks, n_bytes: float, algorithm: str = "direct",
             block_bytes=None) -> Schedule:
    """All-to-all: rank s sends block d of its ``n_bytes`` send buffer to rank d.

    Algorithms: "direct" (everything at once), "ring" (``p - 1`` shifted steps).
    ``block_bytes`` (shape (p, p)) gives ragged blocks instead (Mixture-of-Experts traffic).

    Parameters
    ----------
    topology_or_ranks : int or Topology
        Number of ranks p >= 2, or a Topology (one rank per GPU).
    n_bytes : float
        Each rank's send buffer in bytes (p blocks of ``n_bytes / p``, one per destination,
        its own block staying put); ignored in favour of ``block_bytes`` when that is given.
    algorithm : {"direct", "ring"}
        "direct": all ``p (p - 1)`` transfers start at once; "ring": step ``k`` sends to
        rank ``r + k``, one step after the other.
    block_bytes : (p, p) array of float, optional
        Bytes rank s sends to rank d; zero blocks are skipped.

    Returns
    -------
    Schedule
        One copy op per non-empty off-diagonal block.

    Examples
    --------
    >>> alltoall(8, 8e6).n_ops       # p (p - 1) transfers
    56
    """
    p = _checked_ranks("alltoall", algorithm, topology_or_ranks)
    _check_budget("alltoall", algorithm, topology_or_ranks, p, 1)
    return _build("alltoall", algorithm, BuildRequest(topology_or_ranks, p, n_bytes, 1,
                                                      options={"block_bytes": block_bytes}))


def cost(collective: str, algorithm: str, n_ranks: int, n_bytes: float, bw_per_dir: float,
         alpha: float, chunks: int = 1, **options) -> float:
    """Closed-form time (s) of ``algorithm`` running ``collective`` on one uncontended switch.

    The model every closed form here is exact for: each rank has one link of ``bw_per_dir``
    bytes/s per direction to a non-blocking switch, a GPU-to-GPU message arrives ``alpha`` s
    after its transfer ends (a GPU<->switch hop, as NVLS uses, ``alpha / 2``), flows sharing
    a link share it equally, and reductions cost no time. ``simulate(single_switch(p, B,
    alpha / 2), schedule)`` gives the same time to rounding. ``n_bytes`` follows nccl-tests'
    "size": per-rank buffer for allreduce/broadcast, total array for reduce_scatter/allgather,
    per-rank send buffer for alltoall.

    ``options``: ``ranks_per_node``, ``intra``, ``bw_inter``, ``alpha_inter`` for
    "hierarchical" (see :func:`hierarchical_time`).

    Parameters
    ----------
    collective : str
        A key of :data:`ALGORITHMS`.
    algorithm : str
        One of ``ALGORITHMS[collective]``, supporting ``n_ranks`` (:func:`check_supported`).
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Message size in bytes, nccl-tests' "size" (see above); > 0.
    bw_per_dir : float
        Each rank's link to the switch, bytes/s per direction; > 0.
    alpha : float
        Latency of one GPU-to-GPU message, seconds; >= 0.
    chunks : int
        Pipeline depth, as the schedule builders take it; >= 1.
    **options
        "hierarchical" only: ``ranks_per_node``, ``intra``, ``bw_inter`` (bytes/s per
        direction), ``alpha_inter`` (s).

    Returns
    -------
    float
        Time in seconds from the first send to the last arrival.

    Examples
    --------
    >>> t_ring = cost("allreduce", "ring", 8, 1e9, 450e9, 2e-6, chunks=16)
    >>> t_nvls = cost("allreduce", "nvls", 8, 1e9, 450e9, 2e-6, chunks=16)
    >>> round(t_ring / t_nvls, 2)
    1.24
    """
    _check_algorithm(collective, algorithm)
    check_supported(collective, algorithm, n_ranks)
    if options and algorithm != "hierarchical":
        raise ValueError(f"unexpected options {sorted(options)} for {algorithm}")
    return REGISTRY[(collective, algorithm)].time(n_ranks, n_bytes, bw_per_dir, alpha,
                                                  chunks, **options)
