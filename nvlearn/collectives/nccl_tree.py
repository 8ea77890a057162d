"""NCCL's "Tree" all-reduce: chains inside nodes, a double binary tree across nodes.

What NCCL builds (src/graph/connect.cc, ncclTopoPreset and connectTrees)
------------------------------------------------------------------------
* Inside a node every tree channel is a **chain** through the node's GPUs, ``treeIntra[0]
  -> treeIntra[1] -> ... -> treeIntra[q-1]`` (``tree.up`` = previous GPU, ``tree.down[0]`` =
  next GPU). The chain's first GPU, the head, also links to the other nodes (pattern
  ``NCCL_TOPO_PATTERN_TREE``: ``treeToParent = treeToChild0 = treeToChild1 =
  treeIntra[0]``), so a head has up to three children: the next GPU of its chain and the
  heads of two child nodes (``NCCL_MAX_TREE_ARITY = 3``).
* Across nodes, the nodes form NCCL's **double binary tree** (``ncclGetDtree``, 2.4): two
  binary trees over the nodes in which a node is interior in at most one. NCCL duplicates
  its ``C`` channels; channel ``c`` uses node tree 0, channel ``c + C`` node tree 1, and
  the buffer is split over all ``2 C``: each tree carries half.
* One node: the tree is just the chain ``0 -> 1 -> ... -> p-1`` (twice, half the buffer
  each).

Here (:func:`nccl_tree_parents`) the node-level trees are
:func:`~nvlearn.collectives.double_binary_tree.double_binary_trees` over the ``G`` nodes and
channel ``c``'s chains start at local GPU ``c mod q``
(:func:`~nvlearn.collectives.channels.tree_chains`), so on a rail-optimised cluster every
inter-node edge of channel ``c`` joins two GPUs ``c`` on rail ``c``. Each of the ``2 C``
trees is one parent array; :mod:`~nvlearn.collectives.tree` pipelines it (``chunks`` pieces
per tree), reduce then broadcast, the same machinery as the double binary tree.

Time on one uncontended switch (:func:`nccl_tree_time`, exact)
--------------------------------------------------------------
With one node both trees are the same chain, so the two halves share every link: a piece of
one tree (``n / (2 chunks)``) moves at ``B / 2``, i.e. in ``s = n / (chunks B)``. A chain's
pipelined phase takes ``(p-1)(s + alpha) + (chunks-1) s``
(:func:`~nvlearn.collectives.tree.tree_phase_time` with one child per node), and

    T = 2 [(p - 1)(s + alpha) + (chunks - 1) s]   ->   2 n / B  for many chunks,

the ring's bandwidth term ``2 (p-1)/p n / B`` but for the factor ``p / (p-1)`` (a chain's
inner ranks receive and send ``n`` per phase), with ``p - 1`` latencies per phase. Across
nodes the double binary tree adds only about ``log2`` of the node count to the depth; NCCL's
latency model charges ``2 ((ppn - 1) intraLat + log2(nodes) interLat)``
(src/graph/tuning.cc): the chain steps inside a node plus the tree levels across nodes.

References
----------
NVIDIA NCCL src/graph/connect.cc (ncclTopoPreset, connectTrees), src/graph/trees.cc
(ncclGetDtree), src/graph/tuning.cc (tree latency); S. Jeaugey, "Massively Scale Your Deep
Learning Training with NCCL 2.4", NVIDIA technical blog, 2019; P. Sanders, J. Speck and
J. L. Traeff, "Two-tree algorithms for full bandwidth broadcast, reduction and scan",
Parallel Computing 35(12):581-594, 2009.
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import OpTable, check_link, check_ranks, check_size
from nvlearn.collectives.channels import tree_chains
from nvlearn.collectives.double_binary_tree import double_binary_trees
from nvlearn.collectives.hierarchical import check_groups
from nvlearn.collectives.tree import _add_tree_allreduce, tree_phase_time
from nvlearn.schedule import Schedule

__all__ = ["nccl_tree_parents", "nccl_tree_allreduce", "nccl_tree_time"]


def _chained(chains: np.ndarray, node_parent: np.ndarray) -> np.ndarray:
    """Parent array over ranks: each node's chain, its head hung under the parent node's."""
    p = chains.size
    parent = np.full(p, -1, dtype=np.int64)
    parent[chains[:, 1:]] = chains[:, :-1]
    heads = chains[:, 0]
    parent[heads] = np.where(node_parent >= 0, heads[np.maximum(node_parent, 0)], -1)
    return parent


def nccl_tree_parents(groups, channels: int = 1) -> list[np.ndarray]:
    """Parent arrays (-1 at the root) of NCCL's ``2 C`` trees: node tree 0 for channels
    ``0 .. C-1``, node tree 1 for ``C .. 2C-1`` (the order NCCL splits the buffer in).

    Parameters
    ----------
    groups : (G, q) array of int
        Ranks by node.
    channels : int
        C; channel ``c``'s chains start at local GPU ``c mod q``.

    Examples
    --------
    >>> [t.tolist() for t in nccl_tree_parents([[0, 1], [2, 3]])]
    [[2, 0, -1, 2], [-1, 0, 0, 2]]
    """
    grp = np.asarray(groups, dtype=np.int64)
    chains = tree_chains(grp, channels)
    G = grp.shape[0]
    node_trees = (np.array([-1]),) * 2 if G == 1 else double_binary_trees(G)
    return [_chained(chains[c], t) for t in node_trees for c in range(chains.shape[0])]


def nccl_tree_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1, *, groups=None,
                        channels: int = 1) -> Schedule:
    """NCCL's Tree all-reduce (module docstring): ``2 channels`` trees, each reducing then
    broadcasting its ``1 / (2 channels)`` of the buffer in ``chunks`` pieces.

    Parameters
    ----------
    n_ranks : int
        p >= 2.
    n_bytes : float
        Per-rank buffer, bytes.
    chunks : int
        Pieces per tree.
    groups : (G, q) array_like, optional
        Ranks by node (default: one node, the chain ``0 -> 1 -> ... -> p-1``).
    channels : int
        Tree channels C (each run on both node trees).

    Returns
    -------
    Schedule
        ``2 channels chunks`` chunks, each reduced up and broadcast down its tree.

    Examples
    --------
    >>> s = nccl_tree_allreduce(8, 1e6, chunks=2, groups=[[0, 1, 2, 3], [4, 5, 6, 7]])
    >>> s.n_chunks, s.n_ops          # 2 trees x 7 edges x 2 phases x 2 chunks
    (4, 56)
    """
    p = check_ranks(n_ranks, 2, "an NCCL tree all-reduce")
    check_size(n_bytes, chunks)
    grp = np.arange(p)[None, :] if groups is None else check_groups(groups, p)
    trees = nccl_tree_parents(grp, channels)
    c, k = int(chunks), len(trees)
    ops = OpTable()
    _add_tree_allreduce(ops, trees, [np.arange(i * c, (i + 1) * c) for i in range(k)])
    return ops.schedule("allreduce", "nccl_tree", p, n_bytes, np.linspace(0.0, 1.0, k * c + 1),
                        np.full(k * c, -1), np.full(k * c, -1),
                        meta={"chunks": c, "channels": k // 2, "nodes": grp.shape[0],
                              "ranks_per_node": grp.shape[1]})


def nccl_tree_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                   chunks: int = 1) -> float:
    """Exact time (s) of :func:`nccl_tree_allreduce` on one node and one uncontended switch.

    ``T = 2 [(p-1)(s + alpha) + (chunks-1) s]``, ``s = n / (chunks B)``: the two half-buffer
    chains share every link (module docstring). Same fluid model as
    :func:`~nvlearn.collectives.tree.tree_allreduce_time`.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2, all in one node.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each rank's link to the switch, bytes/s per direction; > 0.
    alpha : float
        Latency of one GPU-to-GPU message, seconds; >= 0.
    chunks : int
        Pieces per half-buffer; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(nccl_tree_time(8, 1e9, 100e9, 0.0, chunks=1000) * 1e3, 2)    # -> 2 n / B
    20.12
    """
    p = check_ranks(n_ranks, 2, "an NCCL tree all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    chain = np.arange(p) - 1
    return 2.0 * tree_phase_time(chain, n_bytes / (chunks * bw_per_dir), alpha, int(chunks))
