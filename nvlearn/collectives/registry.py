"""Every collective algorithm of the package in one table, as SimGrid keeps its in
``smpi_coll.hpp``: how its Schedule is built, its closed-form time, its op count, the rank
counts it handles and where it comes from.

:data:`REGISTRY` maps ``(collective, algorithm)`` to an :class:`Algorithm`; the package's
``ALGORITHMS``, ``RANK_RULES``, the entry points' dispatch (:func:`~nvlearn.collectives.allreduce`
...), :func:`nvlearn.collectives.cost` and :func:`nvlearn.collectives.budget.estimate_ops`
are all read off it, so an algorithm is registered once.

Examples
--------
>>> a = REGISTRY[("allreduce", "ring")]
>>> a.rank_rule, a.ops(8, 1)
('any p >= 2', 112)
>>> round(a.time(8, 1e9, 450e9, 1e-6, 1) * 1e3, 3)            # 2(p-1)(alpha + n/(pB))
3.903
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import nvlearn.collectives.builders as builders
from nvlearn.collectives.alltoall_ring import direct_alltoall_time, ring_alltoall_time
from nvlearn.collectives.builders import BuildRequest
from nvlearn.collectives.chain import chain_broadcast_time
from nvlearn.collectives.double_binary_tree import double_binary_tree_time
from nvlearn.collectives.hierarchical import hierarchical_time
from nvlearn.collectives.nccl_tree import nccl_tree_time
from nvlearn.collectives.nvls import nvls_phase_time, nvls_time
from nvlearn.collectives.rabenseifner import (
    rabenseifner_time,
    recursive_doubling_allgather_time,
    recursive_halving_time,
)
from nvlearn.collectives.recursive_doubling import recursive_doubling_time
from nvlearn.collectives.ring import ring_time
from nvlearn.collectives.tree import tree_allreduce_time, tree_broadcast_time
from nvlearn.schedule import Schedule

__all__ = ["ALGORITHMS", "RANK_RULES", "REGISTRY", "Algorithm"]

_ANY = "any p >= 2"
_POW2 = "p a power of two (2, 4, 8, 16, ...)"


@dataclass(frozen=True)
class Algorithm:
    """One (collective, algorithm).

    Attributes
    ----------
    collective, name : str
    build : callable
        ``build(request)`` -> the Schedule, from a checked
        :class:`~nvlearn.collectives.builders.BuildRequest` (the entry points call it).
    time : callable
        ``time(p, n_bytes, bw_per_dir, alpha, chunks, **options)`` -> seconds: the exact
        closed form on one uncontended switch (:func:`nvlearn.collectives.cost`).
    ops : callable
        ``ops(p, chunks, channels=1, nodes=1, planes=1)`` -> the Schedule's op count (exact
        on one node, an upper bound across nodes).
    rank_rule : str
        Which rank counts it handles, in words.
    reference : str
        Where the algorithm comes from.
    """

    collective: str
    name: str
    build: Callable[[BuildRequest], Schedule]
    time: Callable[..., float]
    ops: Callable[..., int]
    rank_rule: str
    reference: str

    def supports(self, n_ranks: int) -> bool:
        """Whether it runs on ``n_ranks`` ranks (the power-of-two rule)."""
        p = int(n_ranks)
        return p >= 2 and (self.rank_rule != _POW2 or p & (p - 1) == 0)


def _ring_ops(factor: int):
    def ops(p, c, channels=1, nodes=1, planes=1):
        relay = nodes if channels > 1 and nodes > 1 else 0      # PXN relays across nodes
        return factor * (p - 1) * c * channels * (p + relay)
    return ops


def _ring(collective: str):
    return lambda p, n, B, a, c: ring_time(collective, p, n, B, a, c)


_PATARASUK = "Patarasuk & Yuan, JPDC 69(2), 2009; NCCL's ring"
_THAKUR = "Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005"
_NVLS = "NVIDIA H100 white paper (NVLink SHARP); NCCL 2.30 src/device/all_reduce.h"

REGISTRY: dict[tuple[str, str], Algorithm] = {(a.collective, a.name): a for a in (
    Algorithm("allreduce", "ring", builders.allreduce_ring,
              _ring("allreduce"), _ring_ops(2), _ANY, _PATARASUK),
    Algorithm("allreduce", "binary_tree", builders.allreduce_binary_tree,
              tree_allreduce_time,
              lambda p, c, **_: 2 * (p - 1) * c, _ANY, "pipelined binary tree; " + _THAKUR),
    Algorithm("allreduce", "double_binary_tree", builders.allreduce_double_binary_tree,
              double_binary_tree_time,
              lambda p, c, **_: 4 * (p - 1) * c, _ANY,
              "Sanders, Speck & Traeff, Parallel Computing 35(12), 2009"),
    Algorithm("allreduce", "nccl_tree", builders.allreduce_nccl_tree,
              nccl_tree_time,
              lambda p, c, channels=1, **_: 4 * (p - 1) * c * channels,
              "any p >= 2 (one node, or equal nodes)",
              "NCCL 2.4+: chains in nodes, double binary trees across (src/graph/connect.cc)"),
    Algorithm("allreduce", "recursive_doubling", builders.allreduce_recursive_doubling,
              recursive_doubling_time,
              lambda p, c, **_: 2 * p * math.ceil(math.log2(max(p, 2))) * c, _ANY, _THAKUR),
    Algorithm("allreduce", "rabenseifner", builders.allreduce_rabenseifner,
              rabenseifner_time,
              lambda p, c, **_: 2 * p * (p - 1) * c, _ANY, _THAKUR),
    Algorithm("allreduce", "nvls", builders.allreduce_nvls,
              nvls_time,
              lambda p, c, planes=1, **_: 2 * p * (p + 1) * planes * c, _ANY, _NVLS),
    Algorithm("allreduce", "hierarchical", builders.allreduce_hierarchical,
              hierarchical_time,
              lambda p, c, **_: 2 * p * (p - 1) * c, "any p >= 2 split into equal nodes",
              "ring in each node, rings across nodes per rail (NCCL-style channels)"),
    Algorithm("reduce_scatter", "ring", builders.reduce_scatter_ring,
              _ring("reduce_scatter"), _ring_ops(1), _ANY,
              _PATARASUK),
    Algorithm("reduce_scatter", "recursive_halving", builders.reduce_scatter_recursive_halving,
              recursive_halving_time,
              lambda p, c, **_: p * (p - 1) * c, _POW2, _THAKUR),
    Algorithm("reduce_scatter", "nvls", builders.reduce_scatter_nvls,
              nvls_phase_time,
              lambda p, c, planes=1, **_: p * (p + 1) * planes * c, _ANY, _NVLS),
    Algorithm("allgather", "ring", builders.allgather_ring,
              _ring("allgather"), _ring_ops(1), _ANY, _PATARASUK),
    Algorithm("allgather", "recursive_doubling", builders.allgather_recursive_doubling,
              recursive_doubling_allgather_time,
              lambda p, c, **_: p * (p - 1) * c, _POW2, _THAKUR),
    Algorithm("allgather", "nvls", builders.allgather_nvls,
              nvls_phase_time,
              lambda p, c, planes=1, **_: p * (p + 1) * planes * c, _ANY, _NVLS),
    Algorithm("broadcast", "ring", builders.broadcast_ring,
              chain_broadcast_time, lambda p, c, **_: (p - 1) * c, _ANY,
              "pipelined chain; " + _THAKUR),
    Algorithm("broadcast", "binary_tree", builders.broadcast_binary_tree,
              tree_broadcast_time, lambda p, c, **_: (p - 1) * c, _ANY,
              "pipelined binary tree; " + _THAKUR),
    Algorithm("alltoall", "direct", builders.alltoall_direct,
              lambda p, n, B, a, c: direct_alltoall_time(p, n, B, a),
              lambda p, c, **_: p * (p - 1), _ANY, "all p - 1 flows at once (NCCL's send/recv)"),
    Algorithm("alltoall", "ring", builders.alltoall_ring,
              lambda p, n, B, a, c: ring_alltoall_time(p, n, B, a),
              lambda p, c, **_: p * (p - 1), _ANY, "shifted pairwise exchange; " + _THAKUR),
)}


class _AlgorithmNames(Mapping):
    """Collective -> its algorithm names in registry order, read off :data:`REGISTRY` on
    every access (so a registered algorithm is known everywhere at once)."""

    def __getitem__(self, collective: str) -> tuple[str, ...]:
        names = tuple(name for coll, name in REGISTRY if coll == collective)
        if not names:
            raise KeyError(collective)
        return names

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(coll for coll, _ in REGISTRY))

    def __len__(self) -> int:
        return len(dict.fromkeys(coll for coll, _ in REGISTRY))

    def __repr__(self) -> str:
        return repr(dict(self))


class _RankRules(Mapping):
    """(collective, algorithm) -> the rank counts it handles, in words (live, as above)."""

    def __getitem__(self, key: tuple[str, str]) -> str:
        return REGISTRY[key].rank_rule

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)

    def __repr__(self) -> str:
        return repr(dict(self))


#: Algorithms available per collective, in registry order.
ALGORITHMS: Mapping[str, tuple[str, ...]] = _AlgorithmNames()
#: Which rank counts each (collective, algorithm) handles, in words.
RANK_RULES: Mapping[tuple[str, str], str] = _RankRules()
