"""Metrics of a fabric: injection bandwidth, bisection (by max-flow), hops, path diversity.

Bandwidths are bytes/s: ``*_per_dir`` one direction, ``*_bidir`` both directions summed.

References
----------
E. A. Dinic, "Algorithm for solution of a problem of maximum flow in networks with power
estimation", Soviet Math. Doklady 11:1277-1280, 1970 (the max-flow algorithm used).
L. R. Ford and D. R. Fulkerson, "Maximal flow through a network", Canadian J. Math.
8:399-404, 1956 (max-flow = min-cut, so the max-flow is the bisection's cut capacity).
W. J. Dally and B. Towles, "Principles and Practices of Interconnection Networks", Morgan
Kaufmann, 2004 (bisection and injection bandwidth, hop count, path diversity).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .core import Topology
from .routing import NO_PATH, distances_to, node_ids, route_error

__all__ = [
    "injection_bw_per_dir", "max_flow_bw_per_dir", "bisection_candidates", "bisection_bw_bidir",
    "hops", "path_diversity",
]


def injection_bw_per_dir(topo: Topology, link_kinds: ArrayLike | None = None) -> np.ndarray:
    """Bytes/s per direction each GPU can push into the fabric (sum of its out-links).

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    link_kinds : sequence of int, optional
        Count only these link kinds (e.g. ``[LINK_NVLINK]`` to leave out a GPU's PCIe
        link to its NIC in :func:`~nvlearn.topology.ib_cluster`). Default: all.

    Returns
    -------
    numpy.ndarray of float64, one entry per GPU rank (bytes/s per direction)

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> injection_bw_per_dir(single_switch(2, bw_per_dir=1e9)).tolist()
    [1000000000.0, 1000000000.0]
    """
    keep = np.ones(topo.n_links, bool) if link_kinds is None else np.isin(
        topo.link_kind, np.asarray(link_kinds))
    per_node = np.bincount(topo.link_src[keep], weights=topo.link_capacity[keep],
                           minlength=topo.n_nodes)
    return per_node[topo.gpus]


def _ranks(topo: Topology, ranks: ArrayLike, what: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(ranks))
    if arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what} must be a non-empty array of integer GPU ranks")
    bad = arr[(arr < 0) | (arr >= topo.n_gpus)]
    if bad.size:
        raise ValueError(f"{what} contains rank {bad[0]}, but {topo.name!r} has GPU ranks "
                         f"0..{topo.n_gpus - 1}")
    return arr.astype(np.int64)


def max_flow_bw_per_dir(topo: Topology, from_ranks: ArrayLike, to_ranks: ArrayLike) -> float:
    """Maximum total bytes/s that GPUs ``from_ranks`` can send to GPUs ``to_ranks`` at once.

    Max-flow (Dinic's algorithm) over the directed links, with an unlimited super-source
    feeding every sender and an unlimited super-sink draining every receiver; by the
    max-flow/min-cut theorem it equals the capacity of the narrowest cut between the sets.

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    from_ranks, to_ranks : arrays of int
        Disjoint sets of GPU ranks.

    Returns
    -------
    float
        bytes/s, in the one direction from -> to.

    Examples
    --------
    >>> from nvlearn.topology import ring
    >>> max_flow_bw_per_dir(ring(4, bw_per_dir=1e9), [0, 1], [2, 3])  # two cables cut
    2000000000.0
    """
    a = _ranks(topo, from_ranks, "from_ranks")
    b = _ranks(topo, to_ranks, "to_ranks")
    if np.intersect1d(a, b).size:
        raise ValueError("from_ranks and to_ranks overlap; give two disjoint sets of GPUs")
    return _dinic(topo.n_nodes, topo.link_src, topo.link_dst, topo.link_capacity,
                  topo.gpus[a], topo.gpus[b])


def _dinic(n: int, link_src: np.ndarray, link_dst: np.ndarray, capacity: np.ndarray,
           sources: np.ndarray, sinks: np.ndarray) -> float:
    """Max-flow from node set ``sources`` to node set ``sinks`` (float capacities)."""
    s, t = n, n + 1
    tails = np.concatenate([link_src, np.full(len(sources), s), sinks]).astype(np.int64)
    heads = np.concatenate([link_dst, sources, np.full(len(sinks), t)]).astype(np.int64)
    caps = np.concatenate([capacity, np.full(len(sources) + len(sinks), np.inf)])
    m = tails.size
    # edge 2k is link k forward, 2k + 1 its residual twin (so e ^ 1 is the twin of e)
    head = np.empty(2 * m, np.int64)
    tail = np.empty(2 * m, np.int64)
    head[0::2], head[1::2] = heads, tails
    tail[0::2], tail[1::2] = tails, heads
    res = np.zeros(2 * m)
    res[0::2] = caps
    eps = 1e-12 * max(float(np.max(capacity, initial=0.0)), 1.0)
    order = np.argsort(tail, kind="stable")
    starts = np.searchsorted(tail[order], np.arange(n + 3))
    adj = [order[starts[u]:starts[u + 1]].tolist() for u in range(n + 2)]
    head_l = head.tolist()
    res_l = res.tolist()
    flow = 0.0
    while True:
        level = [-1] * (n + 2)
        level[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for e in adj[u]:
                v = head_l[e]
                if level[v] < 0 and res_l[e] > eps:
                    level[v] = level[u] + 1
                    queue.append(v)
        if level[t] < 0:
            return flow
        pointer = [0] * (n + 2)
        while True:
            pushed = _augment(s, t, adj, head_l, res_l, level, pointer, eps)
            if pushed <= 0.0:
                break
            flow += pushed


def _augment(s: int, t: int, adj: list[list[int]], head: list[int], res: list[float],
             level: list[int], pointer: list[int], eps: float) -> float:
    """Find one augmenting path in the level graph and push its bottleneck; 0 if none."""
    path: list[int] = []
    u = s
    while True:
        if u == t:
            pushed = min(res[e] for e in path)
            for e in path:
                res[e] -= pushed
                res[e ^ 1] += pushed
            return pushed
        edges = adj[u]
        while pointer[u] < len(edges):
            e = edges[pointer[u]]
            v = head[e]
            if res[e] > eps and level[v] == level[u] + 1:
                path.append(e)
                u = v
                break
            pointer[u] += 1
        else:
            if u == s:
                return 0.0
            level[u] = -1
            e = path.pop()
            u = head[e ^ 1]
            pointer[u] += 1


def bisection_candidates(topo: Topology, n_random: int = 4, seed: int = 0) -> list[np.ndarray]:
    """Balanced splits of the GPU ranks tried by :func:`bisection_bw_bidir` (one half each).

    The first half of the ranks; the box-aligned split (whole servers on each side); the
    plane/rail-aligned split (when GPUs carry a rail index); ``n_random`` seeded random
    halves. Duplicates (a split or its mirror image) are dropped.

    Parameters
    ----------
    topo : Topology
        A fabric with at least 2 GPUs.
    n_random : int
        Seeded random halves tried besides the structured ones; >= 0.
    seed : int
        Seed of those random halves.

    Returns
    -------
    list of ndarray of int
        Each entry the sorted GPU ranks of one half (``n_gpus // 2`` of them).

    Examples
    --------
    >>> from nvlearn.topology import ring
    >>> [half.tolist() for half in bisection_candidates(ring(4, bw_per_dir=1e9), n_random=0)]
    [[0, 1]]
    """
    n = topo.n_gpus
    if n < 2:
        raise ValueError(f"a bisection needs at least 2 GPUs; {topo.name!r} has {n}")
    if n_random < 0:
        raise ValueError(f"n_random must be >= 0, got {n_random}")
    half = n // 2
    ranks = np.arange(n)
    box = topo.node_box[topo.gpus]
    plane = topo.node_plane[topo.gpus]
    orders = [ranks, np.lexsort((ranks, box))]
    if (plane >= 0).all() and np.unique(plane).size > 1:
        orders.append(np.lexsort((ranks, box, plane)))
    rng = np.random.default_rng(seed)
    orders += [rng.permutation(n) for _ in range(n_random)]
    seen: set[bytes] = set()
    result = []
    for order in orders:
        a = np.sort(order[:half])
        mask = np.zeros(n, bool)
        mask[a] = True
        keys = (mask.tobytes(), (~mask).tobytes()) if n % 2 == 0 else (mask.tobytes(),)
        if not seen.intersection(keys):
            seen.add(keys[0])
            result.append(a)
    return result


def bisection_bw_bidir(topo: Topology, n_random: int = 4, seed: int = 0) -> float:
    """Bisection bandwidth, bytes/s summed over both directions, by max-flow.

    For each candidate split of the GPUs into halves A and B (see
    :func:`bisection_candidates`), the max-flow A -> B plus the max-flow B -> A; the result
    is the minimum over candidates. Finding the exact minimum bisection of a general graph
    is NP-hard, so this is the minimum over the candidates only. For the symmetric fabrics
    built here (DGX box, NVLink pod, rail-optimised fat tree, ring, all-to-all) the
    box/plane-aligned split is a minimum bisection, so the value is exact.

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    n_random : int
        Seeded random balanced splits to try besides the aligned ones.
    seed : int
        Seed of those random splits.

    Returns
    -------
    float
        bytes/s, bidirectional (A -> B plus B -> A).

    Examples
    --------
    >>> from nvlearn.topology import ring
    >>> bisection_bw_bidir(ring(8, bw_per_dir=1e9))  # 2 cables x 2 directions
    4000000000.0
    """
    everyone = np.arange(topo.n_gpus)
    best = np.inf
    for a in bisection_candidates(topo, n_random, seed):
        b = np.setdiff1d(everyone, a)
        value = max_flow_bw_per_dir(topo, a, b) + max_flow_bw_per_dir(topo, b, a)
        best = min(best, value)
    return float(best)


def _per_destination(topo: Topology, src: ArrayLike, dst: ArrayLike,
                     per_node: Callable[[int, np.ndarray], np.ndarray]) -> int | np.ndarray:
    """``per_node(dst, hops to dst)[src]`` for each (src, dst) pair (node ids, broadcast
    together; an int for scalar inputs); one distance search per distinct destination.
    Raises ValueError if a source cannot reach its destination."""
    scalar = np.ndim(src) == 0 and np.ndim(dst) == 0
    s = node_ids(topo, src, "src")
    d = node_ids(topo, dst, "dst")
    s, d = np.broadcast_arrays(s, d)
    out = np.empty(s.shape, np.int64)
    for node in np.unique(d):
        dist = distances_to(topo, int(node))
        sel = d == node
        missing = np.flatnonzero(sel & (dist[s] < 0))
        if missing.size:
            raise route_error(topo, NO_PATH, int(s[missing[0]]), int(node), -1)
        out[sel] = per_node(int(node), dist)[s[sel]]
    return int(out[0]) if scalar else out


def hops(topo: Topology, src: ArrayLike, dst: ArrayLike) -> int | np.ndarray:
    """Links on a shortest routed path from node ``src`` to node ``dst`` (0 if equal).

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    src, dst : int or arrays of int (broadcast together)
        Topology node ids (``topo.gpus[rank]`` for a GPU).

    Returns
    -------
    int, or int array matching the broadcast inputs

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> topo = single_switch(4, bw_per_dir=1e9)
    >>> hops(topo, topo.gpus[0], topo.gpus[3])
    2
    """
    return _per_destination(topo, src, dst, lambda node, dist: dist)


def path_diversity(topo: Topology, src: ArrayLike, dst: ArrayLike, *,
                   physical: bool = False) -> int | np.ndarray:
    """Number of distinct shortest routed paths from node ``src`` to node ``dst``.

    Paths through dead (zero-capacity) links are not counted. With ``physical=False``
    a bundle of parallel links counts once; with ``physical=True`` each physical link
    of a bundle is a separate path (5 NVLinks to one NVSwitch are 5 ways through it).

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    src, dst : int or arrays of int (broadcast together)
        Topology node ids.
    physical : bool
        Count physical links instead of bundles.

    Returns
    -------
    int, or int array matching the broadcast inputs

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> topo = single_switch(4, bw_per_dir=1e9)
    >>> path_diversity(topo, topo.gpus[0], topo.gpus[1])
    1
    """
    weight = np.where(topo.link_capacity > 0,
                      topo.link_count if physical else 1, 0).astype(np.float64)
    head = topo.link_dst

    def paths_to(node: int, dist: np.ndarray) -> np.ndarray:
        ok = (dist[topo.link_src] >= 1) & (dist[head] == dist[topo.link_src] - 1) & (
            (head == node) | topo._transit[head])
        count = np.zeros(topo.n_nodes)
        count[node] = 1.0
        for level in range(1, int(dist.max()) + 1):
            links = np.flatnonzero(ok & (dist[topo.link_src] == level))
            np.add.at(count, topo.link_src[links], count[head[links]] * weight[links])
        return np.rint(count).astype(np.int64)

    return _per_destination(topo, src, dst, paths_to)
