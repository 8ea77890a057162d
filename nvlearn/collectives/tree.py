"""Binary-tree all-reduce (pipelined reduce, then pipelined broadcast) and tree broadcast.

The tree
--------
:func:`binary_tree` is the in-order binary tree NCCL builds (``ncclGetBtree``): number the
ranks ``x = rank + 1``; the node with lowest set bit ``b`` has children ``x - b/2`` and
``x + b/2`` (or the largest ``x + b'`` still in range); the root is the largest power of two
``<= p``. Odd ``x`` are leaves, even ``x`` interior; every interior node has two children
except, for even ``p``, node ``x = p``, which has one. Depth ``floor(log2 p)``.

The schedule
------------
The buffer is cut into ``chunks`` pieces that flow through the tree one after another.

* Reduce: a node sends chunk ``j`` to its parent (who adds it) once its own children's chunk
  ``j`` has arrived. The two children of a parent send chunk ``j`` *together* — each waits
  until its sibling is ready too — so they share the parent's incoming link, each at half
  rate, and both finish together (the parent accepts both inputs of one chunk at once).
  (NCCL's tree gives a node up to three children, :data:`MAX_TREE_ARITY`; they go together
  the same way.)
* Broadcast: the root starts once it holds the complete sum of the *last* chunk (the two
  phases do not overlap; NCCL overlaps them chunk by chunk, see below); a node sends chunk
  ``j`` to both children at once — sharing its outgoing link — as soon as chunk ``j`` has
  arrived and the previous chunk has left.

Every node thus has at most one transfer in flight per direction per link, and siblings'
transfers start and end together, so on a single switch each flow runs at ``B / k`` for a
node with ``k`` children and the timing is exact (:func:`tree_allreduce_time`). With
``s = n / (chunks B)`` the time of one phase is

    T_phase = max over leaves l of [ sum over ancestors a of l (k_a s + alpha)
                                     + (chunks - 1) s max_a k_a ],

which for a perfect tree of depth ``D`` is ``D (2 s + alpha) + 2 (chunks - 1) s``; the reduce
phase is the broadcast run backwards and takes the same time, so ``T = 2 T_phase``.

The textbook cost (:func:`tree_allreduce_time_textbook`) is the one-port synchronous model of
Sanders, Speck & Traeff (2009) and Thakur, Rabenseifner & Gropp (2005): a node sends a chunk
to its two children one after the other and each message costs ``alpha + s``, so a phase of
a depth-``D`` tree takes ``2 (D + chunks - 1) (alpha + s)``. The fluid model differs in two
ways: latency does not hold the sender (``alpha`` is paid once per level, not per message),
and the two children are served at once at half rate (``2 s`` per level for the later child
in both models, but also ``2 s`` for the earlier one). Either way a single tree moves each
byte over an interior node's link twice per phase — half the bandwidth of a ring for large
messages, which the double binary tree (:mod:`~nvlearn.collectives.double_binary_tree`)
recovers.

NCCL pipelines the broadcast behind the reduce (the root forwards chunk ``j`` as soon as it is
reduced). With both phases sharing links the fluid timing has no simple closed form; here the
phases run back to back — MPICH's "reduce then broadcast" with pipelined phases.

References
----------
P. Sanders, J. Speck and J. L. Traeff, "Two-tree algorithms for full bandwidth broadcast,
reduction and scan", Parallel Computing 35(12):581-594, 2009.
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005.
NVIDIA NCCL, src/graph/trees.cc (ncclGetBtree).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import OpTable, check_link, check_ranks, check_size
from nvlearn.schedule import DEP_ARRIVAL, DEP_SENT, OP_COPY, OP_REDUCE, Schedule

__all__ = [
    "binary_tree", "MAX_TREE_ARITY", "tree_children", "tree_depth", "tree_allreduce",
    "tree_broadcast", "tree_phase_time", "tree_allreduce_time", "tree_allreduce_time_textbook",
    "tree_broadcast_time",
]


def binary_tree(n_ranks: int) -> np.ndarray:
    """Parent of each rank in NCCL's in-order binary tree (-1 for the root).

    Examples
    --------
    >>> binary_tree(7).tolist()        # root 3; 1 -> {0, 2}; 5 -> {4, 6}
    [1, 3, 1, -1, 5, 3, 5]
    """
    p = check_ranks(n_ranks, 1, "a binary tree")
    x = np.arange(1, p + 1, dtype=np.int64)
    bit = x & -x
    up = (x ^ bit) | (bit << 1)
    up = np.where(up > p, x ^ bit, up)
    return np.where(up == 0, -1, up - 1)


#: Most children a tree node may have: NCCL's NCCL_MAX_TREE_ARITY (src/include/device.h) —
#: a node's next GPU in its chain plus two child nodes (:mod:`~nvlearn.collectives.nccl_tree`).
MAX_TREE_ARITY = 3


def tree_children(parent: np.ndarray, max_children: int = 2) -> np.ndarray:
    """Children of each node, shape (p, max_children), padded with -1 (smaller rank first).

    ValueError if a node has more than ``max_children`` (2: a binary tree).

    Examples
    --------
    >>> tree_children(binary_tree(4)).tolist()
    [[-1, -1], [0, 2], [-1, -1], [1, -1]]
    """
    parent = np.asarray(parent, dtype=np.int64)
    p = parent.size
    out = np.full((p, max_children), -1, dtype=np.int64)
    kids = np.flatnonzero(parent >= 0)
    count = np.zeros(p, dtype=np.int64)
    for v in kids:  # at most p - 1 entries
        u = parent[v]
        if count[u] >= max_children:
            raise ValueError(f"node {u} has more than {max_children} children"
                             + ("; not a binary tree" if max_children == 2 else ""))
        out[u, count[u]] = v
        count[u] += 1
    return out


def tree_depth(parent: np.ndarray) -> np.ndarray:
    """Depth of each node (root 0).

    Examples
    --------
    >>> tree_depth(binary_tree(5)).tolist()
    [2, 1, 2, 0, 1]
    """
    parent = np.asarray(parent, dtype=np.int64)
    depth = np.zeros(parent.size, dtype=np.int64)
    cur = parent.copy()
    while (cur >= 0).any():
        live = cur >= 0
        depth[live] += 1
        cur[live] = parent[cur[live]]
        if depth.max() > parent.size:
            raise ValueError("the parent array has a cycle; not a tree")
    return depth


def _root(parent: np.ndarray) -> int:
    roots = np.flatnonzero(parent < 0)
    if roots.size != 1:
        raise ValueError(f"a tree has exactly one root, found {roots.size}")
    return int(roots[0])


def _add_reduce(ops: OpTable, parent: np.ndarray, chunks: np.ndarray) -> np.ndarray:
    """Pipelined reduce towards the root; returns op ids U[j, v] (-1 for the root)."""
    p, c = parent.size, chunks.size
    kids = tree_children(parent, MAX_TREE_ARITY)
    nodes = np.flatnonzero(parent >= 0)
    nodes = nodes[np.argsort(-tree_depth(parent)[nodes], kind="stable")]  # deepest first
    U = np.full((c, p), -1, dtype=np.int64)
    U[:, nodes] = ops.add(nodes[None, :], parent[nodes][None, :], chunks[:, None], OP_REDUCE)
    sibs = kids[parent[nodes]]                       # (m, arity): v and its siblings
    grand = np.where(sibs[:, :, None] >= 0, kids[np.maximum(sibs, 0)], -1)
    grand = grand.reshape(nodes.size, -1)
    for j in range(c):
        # chunk j of both siblings' subtrees has arrived: the pair starts together
        ops.dep(U[j, nodes][:, None], np.where(grand >= 0, U[j, np.maximum(grand, 0)], -1),
                DEP_ARRIVAL)
        if j:
            ops.dep(U[j, nodes][:, None], np.where(sibs >= 0, U[j - 1, np.maximum(sibs, 0)], -1),
                    DEP_SENT)
    return U


def _add_broadcast(ops: OpTable, parent: np.ndarray, chunks: np.ndarray,
                   root_ready: np.ndarray | None = None,
                   start_after: np.ndarray | None = None) -> np.ndarray:
    """Pipelined broadcast from the root; returns op ids D[j, v] (-1 for the root).

    ``root_ready[j]``: ops whose arrival gives the root chunk ``j`` (shape (c, k));
    ``start_after``: ops the root's first send waits for (the phase barrier).
    """
    p, c = parent.size, chunks.size
    root = _root(parent)
    kids = tree_children(parent, MAX_TREE_ARITY)
    nodes = np.flatnonzero(parent >= 0)
    nodes = nodes[np.argsort(tree_depth(parent)[nodes], kind="stable")]  # shallowest first
    D = np.full((c, p), -1, dtype=np.int64)
    D[:, nodes] = ops.add(parent[nodes][None, :], nodes[None, :], chunks[:, None], OP_COPY)
    sibs = kids[parent[nodes]]
    below = parent[nodes] != root
    top = nodes[~below]
    for j in range(c):
        ops.dep(D[j, nodes[below]], D[j, parent[nodes[below]]], DEP_ARRIVAL)
        if root_ready is not None:
            ops.dep(D[j, top][:, None], root_ready[j][None, :], DEP_ARRIVAL)
        if j:
            ops.dep(D[j, nodes][:, None], np.where(sibs >= 0, D[j - 1, np.maximum(sibs, 0)], -1),
                    DEP_SENT)
    if start_after is not None:
        ops.dep(D[0, top][:, None], np.asarray(start_after)[None, :], DEP_ARRIVAL)
    return D


def _add_tree_allreduce(ops: OpTable, trees: list[np.ndarray],
                        chunk_sets: list[np.ndarray]) -> None:
    """Reduce every tree's chunks to its root, then (all trees done) broadcast them back."""
    ups = [_add_reduce(ops, t, ch) for t, ch in zip(trees, chunk_sets, strict=True)]
    finals = []
    for t, U in zip(trees, ups, strict=True):
        root = _root(t)
        finals.append(U[-1, np.flatnonzero(t == root)])
    barrier = np.concatenate(finals)
    for t, ch, U in zip(trees, chunk_sets, ups, strict=True):
        root = _root(t)
        ready = U[:, np.flatnonzero(t == root)]
        _add_broadcast(ops, t, ch, root_ready=ready, start_after=barrier)


def tree_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1) -> Schedule:
    """Binary-tree all-reduce: pipelined reduce to the root, then pipelined broadcast.

    Parameters
    ----------
    n_ranks : int
        p >= 2 (any p).
    n_bytes : float
        Per-rank buffer, bytes.
    chunks : int
        Pieces the buffer is pipelined in.

    Returns
    -------
    Schedule
        ``2 (p - 1) chunks`` ops: reduce towards the root, then broadcast back.

    Examples
    --------
    >>> s = tree_allreduce(7, 1e6, chunks=4)
    >>> s.n_ops                      # (p - 1) edges x 2 phases x 4 chunks
    48
    """
    p = check_ranks(n_ranks, 2, "a tree all-reduce")
    check_size(n_bytes, chunks)
    c = int(chunks)
    ops = OpTable()
    _add_tree_allreduce(ops, [binary_tree(p)], [np.arange(c)])
    return ops.schedule("allreduce", "binary_tree", p, n_bytes, np.linspace(0.0, 1.0, c + 1),
                        np.full(c, -1), np.full(c, -1), meta={"chunks": c})


def tree_broadcast(n_ranks: int, n_bytes: float, chunks: int = 1, root: int = 0) -> Schedule:
    """Pipelined binary-tree broadcast from ``root`` (the in-order tree, relabelled).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Buffer broadcast, bytes; > 0.
    chunks : int
        Pieces pipelined down the tree; >= 1.
    root : int
        Rank holding the data, ``0 <= root < p``; the tree is :func:`binary_tree` with its
        labels shifted so that its root is ``root``.

    Returns
    -------
    Schedule
        ``(p - 1) chunks`` copy ops.

    Examples
    --------
    >>> s = tree_broadcast(6, 1e6, chunks=2, root=4)
    >>> s.n_ops, float(s.bytes_received()[4])
    (10, 0.0)
    """
    p = check_ranks(n_ranks, 2, "a tree broadcast")
    check_size(n_bytes, chunks)
    if isinstance(root, bool) or int(root) != root or not 0 <= root < p:
        raise ValueError(f"root must be a rank in 0..{p - 1}, got {root}")
    c = int(chunks)
    t = binary_tree(p)
    shift = (int(root) - _root(t)) % p
    relabel = (np.arange(p) + shift) % p
    parent = np.full(p, -1, dtype=np.int64)
    parent[relabel] = np.where(t >= 0, relabel[np.maximum(t, 0)], -1)
    ops = OpTable()
    _add_broadcast(ops, parent, np.arange(c))
    return ops.schedule("broadcast", "binary_tree", p, n_bytes, np.linspace(0.0, 1.0, c + 1),
                        np.full(c, int(root)), np.full(c, -1),
                        meta={"chunks": c, "root": int(root)})


def tree_phase_time(parent: np.ndarray, slot_time: float, alpha: float, chunks: int) -> float:
    """Exact time (s) of one pipelined phase (reduce or broadcast) over the tree ``parent``.

    ``max_l [sum_a (k_a s + alpha) + (chunks - 1) s max_a k_a]`` over leaves ``l`` and their
    ancestors ``a`` with ``k_a`` children; ``s = slot_time``, the time one chunk takes on a
    link alone.

    Parameters
    ----------
    parent : (p,) array of int
        Parent of each rank, -1 for the root (:func:`binary_tree`, a chain ...).
    slot_time : float
        ``s``: seconds one chunk takes on a link alone.
    alpha : float
        Latency of one message, seconds; >= 0.
    chunks : int
        Pieces pipelined through the tree; >= 1.

    Returns
    -------
    float
        Seconds for the phase.

    Examples
    --------
    >>> tree_phase_time(binary_tree(3), 1.0, 0.5, chunks=1)    # one level, two children
    2.5
    """
    parent = np.asarray(parent, dtype=np.int64)
    nkids = np.bincount(parent[parent >= 0], minlength=parent.size)
    cur = np.flatnonzero(nkids == 0)
    acc = np.zeros(cur.size)
    kmax = np.zeros(cur.size)
    while True:
        up = parent[cur]
        live = up >= 0
        if not live.any():
            break
        k = nkids[up[live]]
        acc[live] += k * slot_time + alpha
        kmax[live] = np.maximum(kmax[live], k)
        cur = np.where(live, up, cur)
    return float(np.max(acc + (chunks - 1) * slot_time * kmax))


def tree_allreduce_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                        chunks: int = 1) -> float:
    """Exact time (s) of :func:`tree_allreduce` on one uncontended switch.

    Model: every rank has one link of ``bw_per_dir`` bytes/s each way to a non-blocking
    switch, a message's data arrives ``alpha`` s after its transfer ends, flows sharing a
    link share it equally (the simulator's fluid model). ``T = 2 T_phase`` with ``T_phase``
    from :func:`tree_phase_time` and ``s = n / (chunks B)``; for ``p = 2^(D+1) - 1`` (a perfect
    tree) ``T = 2 [D (2 s + alpha) + 2 (chunks - 1) s]``. Sanders, Speck & Traeff (2009);
    Thakur, Rabenseifner & Gropp (2005) — see the module docstring for the textbook form.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each rank's link, bytes/s per direction; > 0.
    alpha : float
        Latency of one message, seconds; >= 0.
    chunks : int
        Pieces pipelined up and down the tree; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> t = tree_allreduce_time(7, 1e9, 100e9, 1e-6, chunks=8)
    >>> round(t * 1e3, 3)                                  # ms
    45.004
    """
    p = check_ranks(n_ranks, 2, "a tree all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    s = n_bytes / (chunks * bw_per_dir)
    return 2.0 * tree_phase_time(binary_tree(p), s, alpha, int(chunks))


def tree_allreduce_time_textbook(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                                 chunks: int = 1, gamma: float = 0.0) -> float:
    """Textbook pipelined binary tree: reduce + broadcast in the one-port step model.

    ``T = 2 * 2 (D + chunks - 1) (alpha + s) + (D + chunks - 1) s_gamma`` with depth
    ``D = floor(log2 p)``, ``s = n / (chunks B)`` and ``gamma`` seconds per byte of
    reduction (``s_gamma = gamma n / chunks``). Sanders, Speck & Traeff (2009), Sec. 1;
    Thakur, Rabenseifner & Gropp (2005). Differs from :func:`tree_allreduce_time` as the
    module docstring explains.

    Parameters
    ----------
    n_ranks, n_bytes, bw_per_dir, alpha, chunks
        As :func:`tree_allreduce_time` (bytes, bytes/s per direction, seconds).
    gamma : float
        Reduction cost, seconds per byte; >= 0.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(tree_allreduce_time_textbook(7, 1e9, 100e9, 1e-6, chunks=8) * 1e3, 3)
    45.036
    """
    p = check_ranks(n_ranks, 2, "a tree all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    depth = p.bit_length() - 1
    steps = depth + chunks - 1
    s = n_bytes / (chunks * bw_per_dir)
    return 4.0 * steps * (alpha + s) + steps * gamma * n_bytes / chunks


def tree_broadcast_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                        chunks: int = 1) -> float:
    """Exact time (s) of :func:`tree_broadcast` on one uncontended switch (one phase).

    Parameters
    ----------
    n_ranks, n_bytes, bw_per_dir, alpha, chunks
        As :func:`tree_allreduce_time` (bytes, bytes/s per direction, seconds).

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(tree_broadcast_time(7, 1e9, 100e9, 0.0, chunks=1) * 1e3, 1)   # 2 levels x 2 s
    40.0
    """
    p = check_ranks(n_ranks, 2, "a tree broadcast")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    return tree_phase_time(binary_tree(p), n_bytes / (chunks * bw_per_dir), alpha, int(chunks))
