"""Routing on a :class:`~nvlearn.topology.Topology`: shortest paths with capacity-weighted splits.

Policy (the fluid picture of adaptive routing / packet spraying / ECMP): a pair's traffic
uses every shortest path that does not pass *through* a GPU; at each node it splits over
the next-hop links in proportion to their capacity. ``route_pairs`` computes this for many
pairs at once with a numba kernel (one breadth-first search per distinct destination);
``explicit_paths`` lists the same paths one by one for teaching and tests.

References
----------
C. Hopps, "Analysis of an Equal-Cost Multi-Path Algorithm", IETF RFC 2992, 2000 (ECMP
over shortest paths).
A. Dixit, P. Prakash, Y. C. Hu and R. R. Kompella, "On the impact of packet spraying in data
center networks", IEEE INFOCOM 2013 (a flow spread over all its paths, the fluid limit
modelled here).
M. Al-Fares, A. Loukissas and A. Vahdat, "A scalable, commodity data center network
architecture", ACM SIGCOMM 2008 (multi-path routing on fat trees).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._jit import njit
from .core import ROUTERS, Path, Router, Topology

__all__ = [
    "NO_PATH", "DEAD_LINK", "bfs_to", "dag_to", "node_ids", "route_error", "route_pairs",
    "route_unique", "distances_to", "next_hops", "explicit_paths",
]

_OK = 0
NO_PATH = 1
DEAD_LINK = 2


@njit
def bfs_to(dst, in_indptr, in_link, link_src, transit, dist, queue):
    """Hop distance of every node to ``dst`` (-1 if unreachable), never expanding through a
    non-transit node (a GPU) other than ``dst`` itself.

    A numba kernel over the topology's arrays; fills ``dist`` in place.

    Parameters
    ----------
    dst : int
        Destination node id.
    in_indptr, in_link : ndarray of int
        CSR of the links into each node (``Topology._in_indptr``, ``_in_link``).
    link_src : ndarray of int
        Source node of each directed link.
    transit : ndarray of bool
        Whether a node forwards traffic (switches, NICs: yes; GPUs: no).
    dist : ndarray of int32, shape (n_nodes,)
        Output: hops to ``dst``.
    queue : ndarray of int32, shape (n_nodes,)
        Scratch space for the breadth-first search.

    Returns
    -------
    None
    """
    for k in range(dist.size):
        dist[k] = -1
    dist[dst] = 0
    queue[0] = dst
    head = 0
    tail = 1
    while head < tail:
        v = queue[head]
        head += 1
        if v != dst and not transit[v]:
            continue
        for k in range(in_indptr[v], in_indptr[v + 1]):
            u = link_src[in_link[k]]
            if dist[u] < 0:
                dist[u] = dist[v] + 1
                queue[tail] = u
                tail += 1


@njit
def dag_to(dst, dist, out_indptr, out_link, link_dst, capacity, transit,
            dag_indptr, dag_link, dag_frac, node_total):
    """For destination ``dst``: each node's next-hop links on shortest GPU-free paths (CSR)
    and the fraction of the node's traffic each takes (proportional to capacity; all 0 if
    every next hop is dead).

    A numba kernel; fills the ``dag_*`` arrays and ``node_total`` in place.

    Parameters
    ----------
    dst : int
        Destination node id.
    dist : ndarray of int32
        Hops to ``dst`` per node, from :func:`bfs_to`.
    out_indptr, out_link : ndarray of int
        CSR of the links out of each node.
    link_dst : ndarray of int
        Destination node of each directed link.
    capacity : ndarray of float
        Capacity of each link, bytes/s per direction.
    transit : ndarray of bool
        Whether a node forwards traffic.
    dag_indptr, dag_link, dag_frac : ndarray
        Output CSR: node ``u``'s next-hop links ``dag_link[dag_indptr[u]:dag_indptr[u+1]]``
        and the share of its traffic each carries.
    node_total : ndarray of float
        Output: the summed capacity of each node's next hops, bytes/s.

    Returns
    -------
    None
    """
    pos = 0
    for u in range(transit.size):
        dag_indptr[u] = pos
        if dist[u] <= 0:
            continue
        total = 0.0
        for k in range(out_indptr[u], out_indptr[u + 1]):
            lk = out_link[k]
            v = link_dst[lk]
            if dist[v] == dist[u] - 1 and (v == dst or transit[v]):
                dag_link[pos] = lk
                total += capacity[lk]
                pos += 1
        node_total[u] = total
        for j in range(dag_indptr[u], pos):
            dag_frac[j] = capacity[dag_link[j]] / total if total > 0.0 else 0.0
    dag_indptr[transit.size] = pos


@njit
def _grow(links, fracs, used, need):
    """Copies of ``links`` / ``fracs`` with room for ``need`` entries (first ``used`` kept)."""
    grown_links = np.empty(need, np.int32)
    grown_fracs = np.empty(need)
    for k in range(used):  # a loop, not slice assignment: numba compiles it in a fraction
        grown_links[k] = links[k]
        grown_fracs[k] = fracs[k]
    return grown_links, grown_fracs


# One kernel on purpose (longer than the ~60-line rule): its scratch arrays (BFS
# distances and queue, the per-destination DAG) are allocated once and reused for every
# destination; the BFS and DAG steps are already their own kernels (bfs_to, dag_to).
@njit
def _route_kernel(pair_src, pair_dst, out_indptr, out_link, in_indptr, in_link,
                  link_src, link_dst, capacity, latency, transit, pair_lat, pair_hops, error):
    """Route unique pairs sorted by destination: CSR (indptr, link, frac); fills latency and
    hop count per pair, and ``error`` = (code, pair, link) when a pair cannot be routed."""
    n = transit.size
    m = pair_src.size
    indptr = np.zeros(m + 1, np.int64)
    size = max(1024, 8 * m)
    links = np.empty(size, np.int32)
    fracs = np.empty(size)
    dist = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    dag_indptr = np.empty(n + 1, np.int64)
    dag_link = np.empty(link_src.size, np.int32)
    dag_frac = np.empty(link_src.size)
    node_total = np.zeros(n)
    amount = np.zeros(n)
    arrive = np.zeros(n)
    seen = np.zeros(n, np.bool_)
    frontier = np.empty(n, np.int32)
    nxt = np.empty(n, np.int32)
    pos = 0
    cur = -1
    for i in range(m):
        s = pair_src[i]
        d = pair_dst[i]
        if d != cur:
            bfs_to(d, in_indptr, in_link, link_src, transit, dist, queue)
            dag_to(d, dist, out_indptr, out_link, link_dst, capacity, transit,
                    dag_indptr, dag_link, dag_frac, node_total)
            cur = d
        if s != d and dist[s] < 0:
            error[0], error[1] = NO_PATH, i
            break
        pair_hops[i] = max(dist[s], 0)
        nf = 1 if s != d else 0
        amount[s] = 1.0
        arrive[s] = 0.0
        frontier[0] = s
        while nf > 0 and error[0] == _OK:
            nn = 0
            for f in range(nf):
                u = frontier[f]
                lo = dag_indptr[u]
                hi = dag_indptr[u + 1]
                if u == d:
                    pair_lat[i] = arrive[u]
                elif node_total[u] <= 0.0:
                    error[0], error[1], error[2] = DEAD_LINK, i, dag_link[lo]
                    break
                if pos + hi - lo > size:
                    # extrapolate from the pairs done so far: one reallocation, not many
                    size = max(2 * (pos + hi - lo), int(1.1 * pos / (i + 1) * m) + hi - lo)
                    links, fracs = _grow(links, fracs, pos, size)
                for j in range(lo, hi):
                    share = amount[u] * dag_frac[j]
                    if u == d or share <= 0.0:
                        continue
                    lk = dag_link[j]
                    v = link_dst[lk]
                    links[pos] = lk
                    fracs[pos] = share
                    pos += 1
                    t = arrive[u] + latency[lk]
                    if not seen[v]:
                        seen[v] = True
                        amount[v] = share
                        arrive[v] = t
                        nxt[nn] = v
                        nn += 1
                    else:
                        amount[v] += share
                        arrive[v] = max(arrive[v], t)
            for f in range(nf):
                seen[frontier[f]] = False
            frontier, nxt = nxt, frontier
            nf = nn
        if error[0] != _OK:
            break
        indptr[i + 1] = pos
    return indptr, links[:pos], fracs[:pos]


@njit
def _expand(uindptr, ulink, ufrac, inverse, indptr):
    """Copy each unique pair's links and fractions to every request of that pair."""
    link = np.empty(indptr[-1], np.int32)
    frac = np.empty(indptr[-1])
    for i in range(inverse.size):
        lo = uindptr[inverse[i]]
        at = indptr[i]
        for k in range(uindptr[inverse[i] + 1] - lo):
            link[at + k] = ulink[lo + k]
            frac[at + k] = ufrac[lo + k]
    return link, frac


def node_ids(topo: Topology, nodes: ArrayLike, what: str) -> np.ndarray:
    """Node ids as an int64 array, or a ValueError that says what a valid id is.

    Parameters
    ----------
    topo : Topology
        The fabric the ids must belong to.
    nodes : array_like of int
        1-D node ids (integral floats are accepted).
    what : str
        Names the argument in the error message.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> node_ids(single_switch(3, bw_per_dir=1e9), [0, 2.0], "src").tolist()
    [0, 2]
    """
    arr = np.atleast_1d(np.asarray(nodes))
    if arr.ndim != 1:
        raise ValueError(f"{what} must be a 1-D array of node ids, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr))):
            raise ValueError(f"{what} must hold integer node ids, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero((arr < 0) | (arr >= topo.n_nodes))
    if bad.size:
        raise ValueError(
            f"{what}[{bad[0]}] = {arr[bad[0]]} is not a node of {topo.name!r} (node ids are "
            f"0..{topo.n_nodes - 1}); for GPU rank r use topo.gpus[r] "
            f"(ranks 0..{topo.n_gpus - 1})"
        )
    return arr


def route_error(topo: Topology, code: int, src: int, dst: int, link: int) -> ValueError:
    """The ValueError for a pair that cannot be routed, with what to do about it.

    Parameters
    ----------
    topo : Topology
        The fabric.
    code : int
        ``NO_PATH`` (every path would go through a GPU) or ``DEAD_LINK`` (a zero-capacity link
        on every path).
    src, dst : int
        Node ids of the pair.
    link : int
        The dead link (``DEAD_LINK`` only).

    Returns
    -------
    ValueError
        Not raised here: the caller raises it.
    """
    names = topo.node_name
    if code == NO_PATH:
        return ValueError(
            f"no route from {names[src]} to {names[dst]} in {topo.name!r}: every path would "
            "pass through a GPU, and GPUs do not forward traffic in this model; send to a "
            "neighbour instead (e.g. a ring schedule on a ring fabric) or add a switch"
        )
    return ValueError(
        f"traffic from {names[src]} to {names[dst]} must cross link {link} "
        f"({topo.link_label(link)}), which has zero capacity (a dead link, link_factor 0): "
        "it would never arrive. Give that link a small positive factor in with_link_factor "
        "(e.g. 0.01) to model a badly degraded link, or remove it from the fabric"
    )


def route_pairs(
    topo: Topology, src_nodes: ArrayLike, dst_nodes: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Route pairs of node ids (see :meth:`Topology.routes`); also returns hop counts.

    Each distinct (src, dst) pair is routed once and the result expanded back.

    Parameters
    ----------
    topo : Topology
        The fabric.
    src_nodes, dst_nodes : array_like of int
        Node ids (GPU rank ``r`` is ``topo.gpus[r]``), one destination per source.

    Returns
    -------
    indptr, link, frac, latency, hops
        As :meth:`Topology.routes` (CSR of links and the fraction of the pair's bytes on
        each; ``latency`` in seconds, the longest of the pair's paths), plus ``hops``
        (int32, links on each shortest path).

    Examples
    --------
    >>> from nvlearn.topology import ring
    >>> route_pairs(ring(4, bw_per_dir=1e9), [0, 0], [1, 0])[4].tolist()
    [1, 0]
    """
    return route_unique(topo, src_nodes, dst_nodes, _route_kernel)


def route_unique(
    topo: Topology, src_nodes: ArrayLike, dst_nodes: ArrayLike, kernel, *kernel_args
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate the pairs, route each distinct one once with ``kernel`` and expand back.

    ``kernel(pair_src, pair_dst, <topology arrays>, pair_lat, pair_hops, error,
    *kernel_args)`` routes unique pairs sorted by destination and returns their CSR
    ``(indptr, link, frac)`` (see :func:`_route_kernel`); the result is as
    :func:`route_pairs`'s.

    Parameters
    ----------
    topo : Topology
        The fabric.
    src_nodes, dst_nodes : array_like of int
        Node ids, one destination per source.
    kernel : callable
        A numba routing kernel with the signature above (adaptive or static policy).
    *kernel_args
        Passed on to ``kernel`` (the static policy's seed).

    Returns
    -------
    indptr, link, frac, latency, hops
        As :func:`route_pairs`.
    """
    src = node_ids(topo, src_nodes, "src_nodes")
    dst = node_ids(topo, dst_nodes, "dst_nodes")
    if src.shape != dst.shape:
        raise ValueError(f"src_nodes has {src.size} entries and dst_nodes {dst.size}; "
                         "give one destination per source")
    n = topo.n_nodes
    uniq, inverse = np.unique(dst * n + src, return_inverse=True)
    usrc = (uniq % n).astype(np.int32)
    udst = (uniq // n).astype(np.int32)
    ulat = np.zeros(usrc.size)
    uhops = np.zeros(usrc.size, np.int32)
    error = np.array([_OK, -1, -1], np.int64)
    uindptr, ulink, ufrac = kernel(
        usrc, udst, topo._out_indptr, topo._out_link, topo._in_indptr, topo._in_link,
        topo.link_src, topo.link_dst, topo.link_capacity, topo.link_latency, topo._transit,
        ulat, uhops, error, *kernel_args,
    )
    code, bad_pair, bad_link = (int(e) for e in error)
    if code != _OK:
        raise route_error(topo, code, int(usrc[bad_pair]), int(udst[bad_pair]), bad_link)
    inverse = inverse.reshape(-1)
    counts = np.diff(uindptr)[inverse]
    indptr = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    link, frac = _expand(uindptr, ulink, ufrac, inverse, indptr)
    return indptr, link, frac, ulat[inverse], uhops[inverse]


def distances_to(topo: Topology, dst: int) -> np.ndarray:
    """Hops from every node to node ``dst`` under the routing policy (-1: unreachable).

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> distances_to(single_switch(2, bw_per_dir=1e9), 0).tolist()
    [0, 2, 1]
    """
    dst = int(node_ids(topo, [dst], "dst")[0])
    dist = np.empty(topo.n_nodes, np.int32)
    queue = np.empty(topo.n_nodes, np.int32)
    bfs_to(dst, topo._in_indptr, topo._in_link, topo.link_src, topo._transit, dist, queue)
    return dist


def next_hops(topo: Topology, dist: np.ndarray, node: int, dst: int) -> np.ndarray:
    """Links out of ``node`` that lie on a policy shortest path towards ``dst``.

    Parameters
    ----------
    topo : Topology
        The fabric.
    dist : ndarray of int
        Hops to ``dst`` per node (:func:`distances_to`).
    node, dst : int
        Node ids.

    Returns
    -------
    ndarray of int
        Link ids (dead ones included; callers weight by capacity).
    """
    out = topo._out_link[topo._out_indptr[node]:topo._out_indptr[node + 1]]
    nbr = topo.link_dst[out]
    ok = (dist[nbr] == dist[node] - 1) & ((nbr == dst) | topo._transit[nbr])
    return out[ok]


def explicit_paths(topo: Topology, src: int, dst: int) -> list[Path]:
    """Enumerate the weighted paths of one pair (see :meth:`Topology.paths`).

    Parameters
    ----------
    topo : Topology
        The fabric.
    src, dst : int
        Node ids of the pair.

    Returns
    -------
    list of Path
        Every shortest GPU-free path, with the share of the pair's bytes it carries (the
        weights sum to 1) and its latency in seconds.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> paths = explicit_paths(dgx_h100(), 0, 1)       # GPU 0 -> GPU 1 over the 4 planes
    >>> len(paths), round(sum(p.weight for p in paths), 12)
    (4, 1.0)
    """
    src, dst = (int(x) for x in node_ids(topo, [src, dst], "src/dst"))
    if src == dst:
        return [Path((src,), (), 1.0, 0.0)]
    dist = distances_to(topo, dst)
    if dist[src] < 0:
        raise route_error(topo, NO_PATH, src, dst, -1)
    cap, lat = topo.link_capacity, topo.link_latency
    result: list[Path] = []
    stack = [((src,), (), 1.0, 0.0)]
    while stack:
        nodes, links, weight, delay = stack.pop()
        u = nodes[-1]
        if u == dst:
            result.append(Path(nodes, links, weight, delay))
            continue
        hops = next_hops(topo, dist, u, dst)
        total = cap[hops].sum()
        if total <= 0:
            raise route_error(topo, DEAD_LINK, src, dst, int(hops[0]))
        for lk in hops[::-1]:
            if cap[lk] > 0:
                stack.append((nodes + (int(topo.link_dst[lk]),), links + (int(lk),),
                              float(weight * cap[lk] / total), float(delay + lat[lk])))
    return result


ROUTERS["adaptive"] = Router(route_pairs, explicit_paths)
