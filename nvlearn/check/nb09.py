"""Self-checks for notebook 09 (schedule puzzles): two counting exercises.

The puzzles themselves are checked by :func:`nvlearn.puzzles.check`.
"""

from __future__ import annotations

import numpy as np

from nvlearn import collectives
from nvlearn.check.core import CheckResult, verify

__all__ = ["hierarchical_cross_mib", "ring_rs_sent_mib"]

MiB = 2.0**20


def ring_rs_sent_mib(answer) -> CheckResult:
    """Exercise 1: MiB each rank sends in a ring reduce-scatter of a 12 MiB array, 6 ranks."""
    s = collectives.reduce_scatter(6, 12 * MiB)
    ref = float(s.bytes_sent()[0]) / MiB
    return verify(answer, ref, unit="1", rtol=1e-3, hint=(
        "a block travels p-1 hops and each rank forwards every block but one; blocks are "
        "1/p of the array", "count the ops rank 0 sends in 'ring_reduce_scatter' and multiply "
        "by the chunk size"))


def hierarchical_cross_mib(answer) -> CheckResult:
    """Exercise 2: MiB each GPU sends to other nodes in a hierarchical all-reduce of
    64 MiB on 4 nodes x 8 GPUs (ring inside nodes, ring across each rail)."""
    s = collectives.allreduce(32, 64 * MiB, "hierarchical", ranks_per_node=8)
    node = np.arange(32) // 8
    cross = node[s.op_src] != node[s.op_dst]
    ref = float(np.bincount(s.op_src[cross], weights=s.op_bytes[cross], minlength=32)[0]) / MiB
    return verify(answer, ref, unit="1", rtol=1e-3, hint=(
        "only the inter-node phase leaves the node: an all-reduce of one GPU's shard "
        "(1/8 of the buffer) over a ring of 4 nodes",
        "a ring all-reduce sends 2 (m-1)/m of what it reduces"))
