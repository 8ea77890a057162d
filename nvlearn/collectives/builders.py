"""How the registry builds each (collective, algorithm)'s Schedule from one request.

The entry points (:func:`nvlearn.collectives.allreduce` ...) check their arguments and the
op budget, then hand a :class:`BuildRequest` to the ``build`` of the algorithm's
:class:`~nvlearn.collectives.registry.Algorithm`. Each function here is that ``build``: it
reads what its algorithm needs off the request (a Topology's NVSwitch planes, nodes or GPU
names; the channel count; per-algorithm options) and calls the algorithm's own module.

Examples
--------
>>> s = allreduce_nvls(BuildRequest(4, 4, 1e6, 1))
>>> s.algorithm, s.participant_role
('nvls', ('switch',))
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from nvlearn.collectives.alltoall_ring import ring_alltoall
from nvlearn.collectives.chain import chain_broadcast
from nvlearn.collectives.channels import channel_ring, check_channels, default_channels, node_groups
from nvlearn.collectives.direct import direct_alltoall
from nvlearn.collectives.double_binary_tree import double_binary_tree_allreduce
from nvlearn.collectives.hierarchical import hierarchical_allreduce, rank_groups
from nvlearn.collectives.nccl_tree import nccl_tree_allreduce
from nvlearn.collectives.nvls import (
    nvls_allgather,
    nvls_allreduce,
    nvls_reduce_scatter,
    nvswitch_planes,
)
from nvlearn.collectives.rabenseifner import (
    rabenseifner_allreduce,
    recursive_doubling_allgather,
    recursive_halving_reduce_scatter,
)
from nvlearn.collectives.recursive_doubling import recursive_doubling_allreduce
from nvlearn.collectives.tree import tree_allreduce, tree_broadcast
from nvlearn.schedule import Schedule

__all__ = [
    "BuildRequest", "allgather_nvls", "allgather_recursive_doubling", "allgather_ring",
    "allreduce_double_binary_tree", "allreduce_hierarchical", "allreduce_nccl_tree",
    "allreduce_nvls", "allreduce_rabenseifner", "allreduce_recursive_doubling",
    "allreduce_ring", "allreduce_binary_tree", "alltoall_direct", "alltoall_ring", "broadcast_ring",
    "broadcast_binary_tree", "reduce_scatter_nvls", "reduce_scatter_recursive_halving",
    "reduce_scatter_ring",
]


class BuildRequest(NamedTuple):
    """What an entry point asks an algorithm to build (arguments already checked).

    Attributes
    ----------
    target : int or Topology
        What the caller passed: a rank count, or a Topology (one rank per GPU).
    p : int
        Ranks.
    n_bytes : float
        Bytes, as the collective counts them (nccl-tests' "size").
    chunks : int
        Pipeline depth.
    channels : int, optional
        Ring / NCCL-tree channels (None: the default for the target).
    options : mapping
        Per-collective options: ``ranks_per_node``, ``intra`` (all-reduce), ``root``
        (broadcast), ``block_bytes`` (all-to-all).
    """

    target: Any
    p: int
    n_bytes: float
    chunks: int
    channels: int | None = None
    options: Mapping[str, Any] = MappingProxyType({})

    @property
    def topology(self):
        """The Topology asked for, or None for a bare rank count."""
        return self.target if hasattr(self.target, "n_gpus") else None

    def nvls_switches(self) -> tuple[tuple[str, float], ...]:
        """NVSwitch planes of the Topology's first ``p`` GPUs, or one ``"switch"``."""
        topo = self.topology
        return (("switch", 1.0),) if topo is None else nvswitch_planes(topo, range(self.p))


# ---------------------------------------------------------------------------- all-reduce
def allreduce_ring(r: BuildRequest) -> Schedule:
    """Ring all-reduce: :func:`~nvlearn.collectives.channels.channel_ring` on its channels."""
    return channel_ring("allreduce", r.target, r.n_bytes, r.chunks, r.channels)


def allreduce_binary_tree(r: BuildRequest) -> Schedule:
    """Binary-tree all-reduce (:func:`~nvlearn.collectives.tree.tree_allreduce`)."""
    return tree_allreduce(r.p, r.n_bytes, r.chunks)


def allreduce_double_binary_tree(r: BuildRequest) -> Schedule:
    """Double binary tree all-reduce (:mod:`~nvlearn.collectives.double_binary_tree`)."""
    return double_binary_tree_allreduce(r.p, r.n_bytes, r.chunks)


def allreduce_nccl_tree(r: BuildRequest) -> Schedule:
    """NCCL's tree on the Topology's nodes (or ``ranks_per_node``; one node by default)."""
    ranks_per_node = r.options.get("ranks_per_node")
    if ranks_per_node is not None:
        groups = rank_groups(r.p, ranks_per_node)
    else:
        groups = np.arange(r.p)[None, :] if r.topology is None else node_groups(r.topology, r.p)
    c = check_channels(r.channels) or default_channels(r.target)
    return nccl_tree_allreduce(r.p, r.n_bytes, r.chunks, groups=groups, channels=c)


def allreduce_recursive_doubling(r: BuildRequest) -> Schedule:
    """Recursive doubling; a Topology's GPU names label the receive buffers."""
    topo = r.topology
    names = None if topo is None else tuple(topo.node_name[int(g)] for g in topo.gpus[:r.p])
    return recursive_doubling_allreduce(r.p, r.n_bytes, r.chunks, gpu_names=names)


def allreduce_rabenseifner(r: BuildRequest) -> Schedule:
    """Rabenseifner all-reduce (:mod:`~nvlearn.collectives.rabenseifner`)."""
    return rabenseifner_allreduce(r.p, r.n_bytes, r.chunks)


def allreduce_nvls(r: BuildRequest) -> Schedule:
    """NVLS all-reduce on the target's NVSwitch planes (one ``"switch"`` for a rank count)."""
    return nvls_allreduce(r.p, r.n_bytes, r.chunks, switches=r.nvls_switches())


def allreduce_hierarchical(r: BuildRequest) -> Schedule:
    """Rings (or NVLS) inside each node, rings across nodes per rail."""
    intra = r.options.get("intra", "ring")
    groups = rank_groups(r.p, r.options.get("ranks_per_node"), r.topology)
    switches = None
    if intra == "nvls" and r.topology is not None:
        switches = [nvswitch_planes(r.topology, g) for g in groups]
    return hierarchical_allreduce(r.p, r.n_bytes, r.chunks, intra=intra, groups=groups,
                                  switches=switches)


# ------------------------------------------------------------ reduce-scatter, all-gather
def reduce_scatter_ring(r: BuildRequest) -> Schedule:
    """Ring reduce-scatter on the target's channels."""
    return channel_ring("reduce_scatter", r.target, r.n_bytes, r.chunks, r.channels)


def reduce_scatter_recursive_halving(r: BuildRequest) -> Schedule:
    """Recursive-halving reduce-scatter (p a power of two)."""
    return recursive_halving_reduce_scatter(r.p, r.n_bytes, r.chunks)


def reduce_scatter_nvls(r: BuildRequest) -> Schedule:
    """NVLS reduce-scatter on the target's NVSwitch planes."""
    return nvls_reduce_scatter(r.p, r.n_bytes, r.chunks, switches=r.nvls_switches())


def allgather_ring(r: BuildRequest) -> Schedule:
    """Ring all-gather on the target's channels."""
    return channel_ring("allgather", r.target, r.n_bytes, r.chunks, r.channels)


def allgather_recursive_doubling(r: BuildRequest) -> Schedule:
    """Recursive-doubling all-gather (p a power of two)."""
    return recursive_doubling_allgather(r.p, r.n_bytes, r.chunks)


def allgather_nvls(r: BuildRequest) -> Schedule:
    """NVLS all-gather (multicast) on the target's NVSwitch planes."""
    return nvls_allgather(r.p, r.n_bytes, r.chunks, switches=r.nvls_switches())


# ------------------------------------------------------------- broadcast, all-to-all
def broadcast_ring(r: BuildRequest) -> Schedule:
    """Pipelined chain broadcast from ``options["root"]`` (default 0)."""
    return chain_broadcast(r.p, r.n_bytes, chunks=r.chunks, root=r.options.get("root", 0))


def broadcast_binary_tree(r: BuildRequest) -> Schedule:
    """Pipelined binary-tree broadcast from ``options["root"]`` (default 0)."""
    return tree_broadcast(r.p, r.n_bytes, chunks=r.chunks, root=r.options.get("root", 0))


def alltoall_direct(r: BuildRequest) -> Schedule:
    """Direct all-to-all; ``options["block_bytes"]`` gives ragged blocks."""
    return direct_alltoall(r.p, r.n_bytes, block_bytes=r.options.get("block_bytes"))


def alltoall_ring(r: BuildRequest) -> Schedule:
    """Shifted pairwise-exchange all-to-all; ``options["block_bytes"]`` gives ragged blocks."""
    return ring_alltoall(r.p, r.n_bytes, block_bytes=r.options.get("block_bytes"))
