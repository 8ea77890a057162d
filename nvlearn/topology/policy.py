"""Routing policies: adaptive spreading (the default) and static hash-based ECMP.

* ``"adaptive"`` — :mod:`~nvlearn.topology.routing`: every shortest path is used, traffic
  split at each hop in proportion to next-hop capacity. The fluid picture of adaptive
  routing / packet spraying: a flow is spread over all its paths, so two flows never
  collide on one path by bad luck.
* ``"static"`` — this module: each switch hashes the flow (source node, destination node,
  the switch, a seed) and sends *all* of the flow's bytes to one next hop, picked with
  probability proportional to capacity (uniform over equal links, as ECMP; a bundle of
  ``k`` links counts ``k`` times, as LAG hashing would). A flow is pinned to one shortest
  path; flows whose hashes agree share it, however idle the other paths are.

:func:`with_routing` returns a copy of a :class:`~nvlearn.topology.Topology` whose
:meth:`~nvlearn.topology.Topology.routes` follows the chosen policy, so the simulator (which
calls ``topology.routes``) runs any schedule under it unchanged.

The routing granularity is the topology's: a bundle of parallel links between two nodes is
one directed link, so a pinned flow gets the whole bundle (five NVLinks from a GPU to one
NVSwitch), not one physical link of it.

References
----------
C. Hopps, "Analysis of an Equal-Cost Multi-Path Algorithm", IETF RFC 2992, 2000 (hash-based
next-hop selection).
M. Al-Fares, S. Radhakrishnan, B. Raghavan, N. Huang and A. Vahdat, "Hedera: dynamic flow
scheduling for data center networks", USENIX NSDI 2010 (flows colliding on hashed paths;
:func:`expected_colliding_flows` is the balls-into-bins count behind it).

Examples
--------
>>> from nvlearn.topology import dgx_h100
>>> pinned = with_routing(dgx_h100(), "static", seed=1)
>>> indptr, link, frac, latency = pinned.routes([pinned.gpus[0]], [pinned.gpus[1]])
>>> len(link), frac.tolist()                   # one path: GPU -> one NVSwitch -> GPU
(2, [1.0, 1.0])
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import ArrayLike

from .._jit import njit
from .core import (
    ROUTERS,
    ROUTING_POLICIES,
    Path,
    Router,
    Topology,
    check_policy,
    check_seed,
)
from .routing import DEAD_LINK, NO_PATH, bfs_to, dag_to, route_unique

__all__ = ["ROUTING_POLICIES", "check_policy", "expected_colliding_flows",
           "expected_distinct_paths", "static_path", "static_route_pairs", "with_routing"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit
def _mix(x):
    """splitmix64: a well-mixed uint64 from a uint64 (all arithmetic stays uint64)."""
    x = x + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit
def _uniform(seed, src, dst, node):
    """The hash of (seed, src, dst, switch) as a float in [0, 1)."""
    h = _mix(np.uint64(seed))
    h = _mix(h ^ np.uint64(src))
    h = _mix(h ^ np.uint64(dst))
    h = _mix(h ^ np.uint64(node))
    return float(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# One kernel on purpose (longer than the ~60-line rule): its scratch arrays (BFS
# distances and queue, the per-destination DAG) are allocated once and reused for every
# destination; the BFS and DAG steps are already their own kernels (bfs_to, dag_to).
@njit
def _static_kernel(pair_src, pair_dst, out_indptr, out_link, in_indptr, in_link,
                   link_src, link_dst, capacity, latency, transit, pair_lat, pair_hops, error,
                   seed):
    """One hashed shortest path per unique pair (pairs sorted by destination): CSR
    (indptr, link, frac), every fraction 1 (see :func:`~nvlearn.topology.routing._route_kernel`)."""
    n = transit.size
    m = pair_src.size
    dist = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    dag_indptr = np.empty(n + 1, np.int64)
    dag_link = np.empty(link_src.size, np.int32)
    dag_frac = np.empty(link_src.size)
    node_total = np.zeros(n)
    # first pass: hop counts (one BFS per destination) to size the output exactly
    cur = -1
    for i in range(m):
        d = pair_dst[i]
        if d != cur:
            bfs_to(d, in_indptr, in_link, link_src, transit, dist, queue)
            cur = d
        s = pair_src[i]
        if s != d and dist[s] < 0:
            error[0], error[1] = NO_PATH, i
            return np.zeros(m + 1, np.int64), np.empty(0, np.int32), np.empty(0)
        pair_hops[i] = max(dist[s], 0)
    indptr = np.zeros(m + 1, np.int64)
    for i in range(m):
        indptr[i + 1] = indptr[i] + pair_hops[i]
    links = np.empty(indptr[m], np.int32)
    cur = -1
    for i in range(m):
        s = pair_src[i]
        d = pair_dst[i]
        if d != cur:
            bfs_to(d, in_indptr, in_link, link_src, transit, dist, queue)
            dag_to(d, dist, out_indptr, out_link, link_dst, capacity, transit,
                    dag_indptr, dag_link, dag_frac, node_total)
            cur = d
        u = s
        t = 0.0
        pos = indptr[i]
        while u != d:
            lo = dag_indptr[u]
            hi = dag_indptr[u + 1]
            if node_total[u] <= 0.0:
                error[0], error[1], error[2] = DEAD_LINK, i, dag_link[lo]
                return indptr, links, np.ones(links.size)
            r = _uniform(seed, s, d, u)
            acc = 0.0
            pick = -1
            for j in range(lo, hi):
                if dag_frac[j] <= 0.0:
                    continue
                pick = j  # the last live link catches rounding at the top of [0, 1)
                acc += dag_frac[j]
                if r < acc:
                    break
            lk = dag_link[pick]
            links[pos] = lk
            pos += 1
            t += latency[lk]
            u = link_dst[lk]
        pair_lat[i] = t
    return indptr, links, np.ones(links.size)


def static_route_pairs(
    topo: Topology, src_nodes: ArrayLike, dst_nodes: ArrayLike, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Route pairs under static hash-based ECMP: one shortest path per (src, dst) pair.

    Same return values as :func:`~nvlearn.topology.routing.route_pairs`; every fraction is
    1 (a pair's bytes all take its one path). The path depends only on the two end nodes,
    the switches on the way and ``seed`` -- as a switch's hash of a flow's header would --
    so repeated pairs get the same path and different seeds give independent choices.

    Parameters
    ----------
    topo : Topology
        The fabric.
    src_nodes, dst_nodes : array_like of int
        Node ids (not ranks: GPU rank ``r`` is ``topo.gpus[r]``), one destination per source.
    seed : int
        Seed of the switches' hash; a different seed is an independent draw of paths.

    Returns
    -------
    indptr, link, frac, latency, hops : ndarray
        CSR over the pairs: pair ``i`` crosses ``link[indptr[i]:indptr[i+1]]`` with fraction
        ``frac`` (all 1); ``latency`` the path's seconds, ``hops`` its link count.

    Examples
    --------
    >>> from nvlearn.topology import nvlink_pod
    >>> pod = nvlink_pod(2)
    >>> indptr, link, frac, lat, hops = static_route_pairs(pod, [pod.gpus[0]], [pod.gpus[8]])
    >>> hops.tolist(), float(frac.sum())      # GPU -> L1 -> L2 -> L1 -> GPU, one path
    ([4], 4.0)
    """
    return route_unique(topo, src_nodes, dst_nodes, _static_kernel, check_seed(seed))


def static_path(topo: Topology, src: int, dst: int, seed: int = 0) -> Path:
    """The one path static hashing gives the pair ``src -> dst`` (node ids), weight 1.

    Parameters
    ----------
    topo : Topology
        The fabric.
    src, dst : int
        Node ids of the two ends.
    seed : int
        Seed of the switches' hash.

    Returns
    -------
    Path
        Its nodes, links, weight 1 and latency in seconds.

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> static_path(single_switch(3, bw_per_dir=1e9), 0, 2).nodes
    (0, 3, 2)
    """
    indptr, link, _, latency, _ = static_route_pairs(topo, [src], [dst], seed)
    links = tuple(int(k) for k in link)
    nodes = (int(src),) + tuple(int(topo.link_dst[k]) for k in links)
    return Path(nodes, links, 1.0, float(latency[0]))


def with_routing(topo: Topology, policy: str = "static", seed: int = 0) -> Topology:
    """A copy of ``topo`` whose routes follow ``policy`` (``"adaptive"`` or ``"static"``).

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    policy : str
        ``"static"``: hash-based ECMP, one path per flow; ``"adaptive"``: spread over all
        shortest paths in proportion to capacity (every builder's default).
    seed : int
        Seed of the static hash (>= 0); different seeds are independent hash functions.

    Returns
    -------
    Topology
        A new Topology whose ``routing`` is ``policy``; ``topo`` is unchanged.

    Examples
    --------
    >>> from nvlearn.topology import ring
    >>> with_routing(ring(4, bw_per_dir=1e9), "static", seed=3).routing
    'static'
    """
    policy, seed = check_policy(policy, seed)
    return dataclasses.replace(topo, routing=policy, routing_seed=seed)


def expected_distinct_paths(flows: int, paths: int) -> float:
    """Expected number of distinct paths ``flows`` uniformly hashed flows occupy.

    Balls into bins: each of ``paths`` equal paths stays empty with probability
    ``(1 - 1/paths) ** flows``, so ``paths * (1 - (1 - 1/paths) ** flows)`` are used. With
    one flow per path on average (``flows == paths``) only about ``1 - 1/e`` = 63 % are.

    Examples
    --------
    >>> round(expected_distinct_paths(32, 32), 2)
    20.41
    """
    flows, paths = int(flows), int(paths)
    if flows < 0 or paths < 1:
        raise ValueError(f"need flows >= 0 and paths >= 1, got flows={flows}, paths={paths}")
    return paths * (1.0 - (1.0 - 1.0 / paths) ** flows)


def expected_colliding_flows(flows: int, paths: int) -> float:
    """Expected number of flows that share their hashed path with at least one other flow.

    A given flow is alone with probability ``(1 - 1/paths) ** (flows - 1)``.

    Examples
    --------
    >>> round(expected_colliding_flows(2, 2), 2)       # two flows, two paths: half the time
    1.0
    """
    flows, paths = int(flows), int(paths)
    if flows < 1 or paths < 1:
        raise ValueError(f"need flows >= 1 and paths >= 1, got flows={flows}, paths={paths}")
    return flows * (1.0 - (1.0 - 1.0 / paths) ** (flows - 1))


ROUTERS["static"] = Router(
    lambda topo, src, dst: static_route_pairs(topo, src, dst, topo.routing_seed),
    lambda topo, src, dst: [static_path(topo, src, dst, topo.routing_seed)])
