"""Double binary tree all-reduce: two trees, each carrying half the buffer (NCCL 2.4).

A single pipelined binary tree wastes half the bandwidth: leaves only send once, interior
nodes send (or receive) every chunk twice. Sanders, Speck & Traeff (2009) fix it with *two*
trees in which every rank is interior in at most one — a leaf in the other — so over both
trees every rank sends and receives about ``2 n`` per all-reduce (``n`` per phase), close to
the ring's ``2 (p-1)/p n``, while the depth stays ``log2 p``. NCCL 2.4 adopted it for its
"Tree" algorithm.

The trees (:func:`double_binary_trees`)
---------------------------------------
* odd ``p``: tree A is the in-order tree on all ranks (:func:`~nvlearn.collectives.tree.
  binary_tree`; interior = odd ranks, every interior node has two children); tree B is A
  shifted by one rank (interior = even ranks >= 2). Rank 0 is a leaf in both.
* even ``p``: a full in-order tree on ranks ``1 .. p-1`` (interior = even ranks, root ``R``,
  the largest power of two < p) with rank 0 hung under its last leaf ``p-1``; tree B is the
  same full tree relabelled onto the other ranks (``R -> 0``, interior ``x -> x-1``, leaves
  ``x -> x+1``) with ``R`` hung under ``R-1``. The one node with a single child in each tree
  has as its child the *other* tree's root, which sends and receives nothing in its own
  tree — so no link ever carries more than it can at the rates below.

(NCCL's ``ncclGetDtree`` mirrors the tree for even ``p`` and shifts it for odd ``p``, with
rank 0 as an extra root of the first tree; as we read it, for odd ``p`` rank 0 then has
children in both trees. The construction here keeps the property for every ``p``, which the
fluid timing below needs.)

The schedule and its time
-------------------------
Each tree runs :mod:`~nvlearn.collectives.tree`'s schedule on its half (``chunks`` pieces);
both reduces run first, then — once both roots hold their sums — both broadcasts. On a single
switch every flow then has a fixed rate: ``B/2`` for the two children of a parent, ``B`` for a
single child, and a rank's two trees never ask more than ``B`` of one link. So with
``s = n / (2 chunks B)``

    T = 2 max over trees [T_phase(tree, s)]      (:func:`double_binary_tree_time`)

with ``T_phase`` from :func:`~nvlearn.collectives.tree.tree_phase_time`; for large messages
``T -> 2 n / B``. The textbook two-tree estimate (:func:`double_binary_tree_time_textbook`)
counts one-port steps: at most ``2 ceil(log2 p) + 2 chunks`` steps of ``alpha + s`` per phase
(Sanders et al., Sec. 4), i.e. it charges latency per message where the fluid model overlaps
it, and serves the two children one after the other.

References
----------
P. Sanders, J. Speck and J. L. Traeff, "Two-tree algorithms for full bandwidth broadcast,
reduction and scan", Parallel Computing 35(12):581-594, 2009.
S. Jeaugey, "Massively Scale Your Deep Learning Training with NCCL 2.4", NVIDIA technical
blog, 2019; NVIDIA NCCL src/graph/trees.cc (ncclGetDtree).
"""

from __future__ import annotations

import math

import numpy as np

from nvlearn.collectives._ops import OpTable, check_link, check_ranks, check_size
from nvlearn.collectives.tree import _add_tree_allreduce, binary_tree, tree_phase_time
from nvlearn.schedule import Schedule

__all__ = [
    "double_binary_trees", "double_binary_tree_allreduce", "double_binary_tree_time",
    "double_binary_tree_time_textbook",
]


def double_binary_trees(n_ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """The two trees (parent arrays, -1 for the root); every rank interior in at most one.

    Examples
    --------
    >>> a, b = double_binary_trees(4)
    >>> a.tolist(), b.tolist()
    ([3, 2, -1, 2], [-1, 0, 1, 0])
    """
    p = check_ranks(n_ranks, 2, "a double binary tree")
    if p == 2:
        return np.array([1, -1]), np.array([-1, 0])
    if p % 2:
        a = binary_tree(p)
        shift = (np.arange(p) + 1) % p
        b = np.full(p, -1, dtype=np.int64)
        b[shift] = np.where(a >= 0, shift[np.maximum(a, 0)], -1)
        return a, b
    m = p - 1
    full = binary_tree(m)  # over positions 0..m-1, i.e. ranks x = position + 1
    x = np.arange(1, p)
    px = np.where(full >= 0, full + 1, -1)  # parent of rank x in the full tree, as a rank
    root = 1 << (m.bit_length() - 1)
    a = np.full(p, -1, dtype=np.int64)
    a[x] = px
    a[0] = p - 1
    # relabel: R -> 0, even (interior) x -> x - 1, odd (leaf) x -> x + 1, except R-1, p-1 fixed
    psi = np.where(x % 2 == 0, x - 1, x + 1)
    psi[x == root] = 0
    psi[(x == root - 1) | (x == p - 1)] = x[(x == root - 1) | (x == p - 1)]
    b = np.full(p, -1, dtype=np.int64)
    mapped = np.zeros(p + 1, dtype=np.int64)
    mapped[x] = psi
    b[psi] = np.where(px >= 0, mapped[np.maximum(px, 0)], -1)
    b[root] = root - 1
    return a, b


def double_binary_tree_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1) -> Schedule:
    """Double binary tree all-reduce: tree A reduces and broadcasts the first half of the
    buffer, tree B the second, each in ``chunks`` pieces.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    chunks : int
        Pieces of each half-buffer, pipelined down and up its tree; >= 1.

    Returns
    -------
    Schedule
        ``2 chunks`` chunks (tree A's first), two phases of ``p - 1`` edges per chunk.

    Examples
    --------
    >>> s = double_binary_tree_allreduce(8, 1e6, chunks=2)
    >>> s.n_chunks, s.n_ops          # 2 trees x 7 edges x 2 phases x 2 chunks
    (4, 56)
    """
    p = check_ranks(n_ranks, 2, "a double binary tree all-reduce")
    check_size(n_bytes, chunks)
    c = int(chunks)
    ops = OpTable()
    _add_tree_allreduce(ops, list(double_binary_trees(p)), [np.arange(c), np.arange(c, 2 * c)])
    return ops.schedule("allreduce", "double_binary_tree", p, n_bytes,
                        np.linspace(0.0, 1.0, 2 * c + 1), np.full(2 * c, -1),
                        np.full(2 * c, -1), meta={"chunks": c})


def double_binary_tree_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                            chunks: int = 1) -> float:
    """Exact time (s) of :func:`double_binary_tree_allreduce` on one uncontended switch.

    ``T = 2 max(T_phase(A), T_phase(B))`` with ``s = n / (2 chunks B)`` (module docstring);
    same fluid model as :func:`~nvlearn.collectives.tree.tree_allreduce_time`.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
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
    >>> round(double_binary_tree_time(8, 1e9, 100e9, 0.0, chunks=64) * 1e3, 2)   # ~ 2n/B
    20.47
    """
    p = check_ranks(n_ranks, 2, "a double binary tree all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    s = n_bytes / (2 * chunks * bw_per_dir)
    return 2.0 * max(tree_phase_time(t, s, alpha, int(chunks)) for t in double_binary_trees(p))


def double_binary_tree_time_textbook(n_ranks: int, n_bytes: float, bw_per_dir: float,
                                     alpha: float, chunks: int = 1) -> float:
    """Textbook two-tree estimate: reduce + broadcast, each at most
    ``2 ceil(log2 p) + 2 chunks`` one-port steps of ``alpha + n / (2 chunks B)``.

    Sanders, Speck & Traeff (2009). An upper-bound style count; compare
    :func:`double_binary_tree_time`.

    Parameters
    ----------
    n_ranks, n_bytes, bw_per_dir, alpha, chunks
        As :func:`double_binary_tree_time` (bytes, bytes/s per direction, seconds).

    Returns
    -------
    float
        Seconds; at or above the exact time of the same schedule.

    Examples
    --------
    >>> round(double_binary_tree_time_textbook(8, 1e9, 100e9, 0.0, chunks=64) * 1e3, 2)
    20.94
    """
    p = check_ranks(n_ranks, 2, "a double binary tree all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    steps = 2 * math.ceil(math.log2(p)) + 2 * chunks
    return 2.0 * steps * (alpha + n_bytes / (2 * chunks * bw_per_dir))
