"""Symmetries of a fabric: automorphisms that extend a permutation of its GPUs, and orbits.

An *automorphism* of a :class:`~nvlearn.topology.Topology` is a permutation ``pi`` of its
nodes that maps every directed link ``u -> v`` onto a link ``pi(u) -> pi(v)`` of the same
capacity, latency, kind, bundle count and degradation factor. The routing policy
``"adaptive"`` (every shortest path, split by capacity) depends on nothing but that
structure, so an automorphism also maps every route onto the route of the image pair.

:func:`extend_gpu_permutation` starts from a permutation of the GPUs (what a collective's
symmetry says: "rotate the GPUs of every node", "shift every node by 32") and extends it to
the switches, NICs and PCIe switches by neighbourhoods: a node whose neighbours are already
mapped goes to the node with the same neighbourhood of images and the same link attributes
(a 64-bit hash of them), fixed points first, then in id order among equal candidates. The
result is checked link by link; if the check fails the GPU permutation is not a symmetry
of this fabric (or not one that this matching finds) and the function returns ``None`` — a
caller must then not assume the symmetry. :func:`orbits` groups nodes or links into the
classes a group of such automorphisms moves onto each other.

The matching is colour refinement (one Weisfeiler-Leman round per layer of the fabric)
seeded with the GPU map; on the trees and Clos networks of :mod:`~nvlearn.topology.fabrics`
it finds the automorphism whenever one extends the GPU map, because each layer of switches
is determined by the layer below up to permutations of identical switches.

References
----------
B. Weisfeiler and A. Leman, "The reduction of a graph to canonical form and the algebra
which appears therein", Nauchno-Technicheskaya Informatsia 2(9), 1968 (colour refinement).
M. Grohe, K. Kersting, M. Mladenov and E. Selman, "Dimension reduction via colour
refinement", ESA 2014, LNCS 8737 (solving linear programs on the quotient by a symmetry).

Examples
--------
>>> from nvlearn.topology import ib_cluster
>>> t = ib_cluster(2)
>>> shift = (np.arange(16) + 8) % 16                       # node 0 <-> node 1
>>> a = extend_gpu_permutation(t, shift)
>>> t.node_name[a.node[t.node_name.index("n0.nic3")]]
'n1.nic3'
>>> classes = orbits(a.link[None, :], [2])
>>> int(classes.count.max())                                # every link has one twin
2
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .core import NODE_GPU, Topology

__all__ = ["Automorphism", "BoxRotation", "Orbits", "box_rotation", "extend_gpu_permutation",
           "orbits", "permutation_order", "routes_by_symmetry"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


class Automorphism(NamedTuple):
    """A fabric automorphism: node ``i`` goes to ``node[i]``, link ``l`` to ``link[l]``."""

    node: np.ndarray
    link: np.ndarray


class Orbits(NamedTuple):
    """Classes of a set under a group of permutations.

    ``label[i]`` is the class of element ``i`` (classes numbered 0.. in order of their
    lowest element), ``rep[c]`` that lowest element and ``count[c]`` the class size.
    """

    label: np.ndarray
    rep: np.ndarray
    count: np.ndarray


def _mix(x: np.ndarray) -> np.ndarray:
    """A 64-bit avalanche of ``x`` (uint64, element-wise; wraps)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(31))) * _MIX
        x = (x ^ (x >> np.uint64(29))) * _MIX
        return x ^ (x >> np.uint64(32))


def _link_hash(topo: Topology) -> np.ndarray:
    """A hash of each link's attributes (capacity, latency, kind, count, factor)."""
    with np.errstate(over="ignore"):
        h = _mix(np.asarray(topo.link_capacity, np.float64).view(np.uint64))
        h = _mix(h ^ np.asarray(topo.link_latency, np.float64).view(np.uint64))
        h = _mix(h ^ np.asarray(topo.link_factor, np.float64).view(np.uint64))
        return _mix(h ^ (topo.link_kind.astype(np.uint64) << np.uint64(16))
                    ^ topo.link_count.astype(np.uint64))


def _neighbour_keys(topo: Topology, lhash: np.ndarray, image: np.ndarray,
                    mapped: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node: hash of its links to mapped nodes, seen through ``image`` (as a source of
    the map) and as they are (as a target), each summed over the links (order-free)."""
    n = topo.n_nodes
    src, dst = topo.link_src.astype(np.int64), topo.link_dst.astype(np.int64)
    as_src = np.zeros(n, np.uint64)
    as_tgt = np.zeros(n, np.uint64)
    with np.errstate(over="ignore"):
        for near, far, salt in ((src, dst, np.uint64(1)), (dst, src, np.uint64(2))):
            keep = mapped[far] & ~mapped[near]
            u, v, h = near[keep], far[keep], lhash[keep] ^ salt
            np.add.at(as_src, u, _mix(h ^ (image[v].astype(np.uint64) * _MIX)))
            np.add.at(as_tgt, u, _mix(h ^ (v.astype(np.uint64) * _MIX)))
    kind = _mix(topo.node_kind.astype(np.uint64) + (topo.node_tier.astype(np.uint64)
                                                    << np.uint64(8)))
    return as_src ^ kind, as_tgt ^ kind


def _link_permutation(topo: Topology, node: np.ndarray, lhash: np.ndarray) -> np.ndarray | None:
    """Where each link goes under the node permutation ``node``, or None if some link's image
    is missing or differs in its attributes (or two links join the same pair of nodes)."""
    n = np.int64(topo.n_nodes)
    key = topo.link_src.astype(np.int64) * n + topo.link_dst.astype(np.int64)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    if np.any(sorted_key[1:] == sorted_key[:-1]):
        return None
    want = node[topo.link_src] * n + node[topo.link_dst]
    pos = np.searchsorted(sorted_key, want)
    pos = np.minimum(pos, sorted_key.size - 1)
    if not np.array_equal(sorted_key[pos], want):
        return None
    link = order[pos]
    if not np.array_equal(lhash[link], lhash):
        return None
    return link.astype(np.int64)


def extend_gpu_permutation(topology: Topology, gpu_perm: ArrayLike) -> Automorphism | None:
    """The automorphism of ``topology`` that maps GPU ``r`` to GPU ``gpu_perm[r]``, if any.

    Parameters
    ----------
    topology : Topology
        The fabric.
    gpu_perm : array_like of int, shape (topology.n_gpus,)
        A permutation of the GPU ranks ``0 .. n_gpus - 1``: rank ``r``'s GPU goes to rank
        ``gpu_perm[r]``'s GPU.

    Returns
    -------
    Automorphism or None
        The node and link permutations, checked on every link (module docstring); None when
        the GPU permutation does not extend to one (it is not a symmetry of this fabric).

    Raises
    ------
    ValueError
        ``gpu_perm`` is not a permutation of the ranks.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> t = ib_cluster(2)
    >>> rotate = np.arange(16).reshape(2, 8)[:, (np.arange(8) + 1) % 8].ravel()
    >>> extend_gpu_permutation(t, rotate) is not None     # rail i -> rail i + 1
    True
    >>> swap = np.arange(16); swap[[0, 1]] = [1, 0]       # two GPUs of one node only:
    >>> extend_gpu_permutation(t, swap) is None           # their NICs are on other rails
    True
    """
    perm = np.asarray(gpu_perm, dtype=np.int64)
    p = topology.n_gpus
    if perm.shape != (p,) or not np.array_equal(np.sort(perm), np.arange(p)):
        raise ValueError(f"gpu_perm must be a permutation of the {p} GPU ranks 0..{p - 1}")
    n = topology.n_nodes
    gpus = np.asarray(topology.gpus, dtype=np.int64)
    node = np.full(n, -1, dtype=np.int64)
    node[gpus] = gpus[perm]
    lhash = _link_hash(topology)
    while True:
        mapped = node >= 0
        if mapped.all():
            break
        as_src, as_tgt = _neighbour_keys(topology, lhash, node, mapped)
        touched = np.zeros(n, bool)
        for near, far in ((topology.link_src, topology.link_dst),
                          (topology.link_dst, topology.link_src)):
            touched[near[mapped[far]]] = True
        frontier = np.flatnonzero(touched & ~mapped)
        if frontier.size == 0:                      # unreachable from the GPUs: stay put
            rest = np.flatnonzero(~mapped)
            node[rest] = rest
            break
        fixed = frontier[as_src[frontier] == as_tgt[frontier]]
        node[fixed] = fixed
        moving = frontier[as_src[frontier] != as_tgt[frontier]]
        srcs = moving[np.lexsort((moving, as_src[moving]))]
        tgts = moving[np.lexsort((moving, as_tgt[moving]))]
        if not np.array_equal(as_src[srcs], as_tgt[tgts]):
            return None
        node[srcs] = tgts
    link = _link_permutation(topology, node, lhash)
    return None if link is None else Automorphism(node, link)


def permutation_order(perm: ArrayLike) -> int:
    """The order of a permutation: the smallest ``k >= 1`` with ``perm^k`` the identity.

    Parameters
    ----------
    perm : array_like of int
        A permutation of ``0 .. n-1``.

    Returns
    -------
    int
        The least common multiple of its cycle lengths.

    Examples
    --------
    >>> permutation_order([1, 2, 0, 4, 3])
    6
    """
    perm = np.asarray(perm, dtype=np.int64)
    seen = np.zeros(perm.size, bool)
    order = 1
    for start in range(perm.size):
        if seen[start]:
            continue
        length, i = 0, start
        while not seen[i]:
            seen[i] = True
            i = perm[i]
            length += 1
        order = int(np.lcm(order, length))
    return order


def orbits(generators: ArrayLike, orders: Sequence[int]) -> Orbits:
    """Classes of ``0 .. n-1`` under the group generated by commuting permutations.

    Parameters
    ----------
    generators : array_like of int, shape (g, n)
        One permutation per row (``generators[k][i]`` is where ``i`` goes). The generators
        must commute (a product of cyclic groups: rail rotations, node shifts).
    orders : sequence of int
        Each generator's order (:func:`permutation_order`).

    Returns
    -------
    Orbits
        Class labels, the lowest member and the size of every class.

    Examples
    --------
    >>> o = orbits([[1, 0, 3, 2, 4]], [2])
    >>> o.label.tolist(), o.rep.tolist(), o.count.tolist()
    ([0, 0, 1, 1, 2], [0, 2, 4], [2, 2, 1])
    """
    gens = np.atleast_2d(np.asarray(generators, dtype=np.int64))
    n = gens.shape[1]
    low = np.arange(n, dtype=np.int64)
    for g, k in zip(gens, orders, strict=True):
        # low[i] = min over j < k of low[g^j(i)]: one generator's cyclic group at a time
        best, cur = low.copy(), np.arange(n, dtype=np.int64)
        for _ in range(int(k) - 1):
            cur = g[cur]
            np.minimum(best, low[cur], out=best)
        low = best
    rep, label = np.unique(low, return_inverse=True)
    return Orbits(label.reshape(-1).astype(np.int64), rep.astype(np.int64),
                  np.bincount(label.reshape(-1)).astype(np.int64))


class BoxRotation(NamedTuple):
    """The automorphism that moves GPU ``i`` of every box to GPU ``i + 1`` of it.

    ``node_power[j]`` / ``link_power[j]`` are its ``j``-th powers (``j < order``, the GPUs per
    box) and ``index[v]`` is node ``v``'s place in its box's GPU list (0 for a node that is
    not a GPU in a box).
    """

    node_power: np.ndarray
    link_power: np.ndarray
    index: np.ndarray
    order: int


_ROTATIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def box_rotation(topology: Topology) -> BoxRotation | None:
    """The rotation of the GPUs inside every box, if it is a symmetry of ``topology``.

    The GPUs of each box (``node_box``), in rank order, are rotated by one place; on
    :func:`~nvlearn.topology.ib_cluster` with one rail per GPU this is the rail rotation.
    Cached per topology.

    Parameters
    ----------
    topology : Topology
        The fabric.

    Returns
    -------
    BoxRotation or None
        None when a GPU is in no box, the boxes hold different GPU counts, a box holds one
        GPU, or the rotation does not extend to an automorphism.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> box_rotation(ib_cluster(2)).order
    8
    """
    if topology in _ROTATIONS:
        return _ROTATIONS[topology]
    out = None
    gpus = np.asarray(topology.gpus, dtype=np.int64)
    box = np.asarray(topology.node_box)[gpus]
    ranks = np.lexsort((np.arange(gpus.size), box))
    sizes = np.bincount(box[box >= 0]) if (box >= 0).all() else np.zeros(0, np.int64)
    sizes = sizes[sizes > 0]
    if sizes.size and (sizes == sizes[0]).all() and sizes[0] > 1:
        q = int(sizes[0])
        grid = ranks.reshape(-1, q)
        perm = np.empty(gpus.size, dtype=np.int64)
        perm[grid] = grid[:, (np.arange(q) + 1) % q]
        auto = extend_gpu_permutation(topology, perm)
        if auto is not None:
            node_power = np.empty((q, topology.n_nodes), dtype=np.int64)
            link_power = np.empty((q, topology.n_links), dtype=np.int64)
            node_power[0], link_power[0] = np.arange(topology.n_nodes), np.arange(
                topology.n_links)
            for j in range(1, q):
                node_power[j] = auto.node[node_power[j - 1]]
                link_power[j] = auto.link[link_power[j - 1]]
            index = np.zeros(topology.n_nodes, dtype=np.int64)
            index[gpus[grid]] = np.arange(q)[None, :]
            out = BoxRotation(node_power, link_power, index, q)
    _ROTATIONS[topology] = out
    return out


def routes_by_symmetry(topology: Topology, src_nodes: ArrayLike, dst_nodes: ArrayLike
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`Topology.routes` of many pairs, routing one pair per class of the box rotation.

    A pair whose destination (or, if the destination is no GPU, whose source) is GPU ``j``
    of its box is rotated back by ``j`` places (the router searches once per destination,
    so this leaves one destination per box); those canonical pairs are routed, and each
    route is rotated forward onto its pair: an automorphism maps the adaptive policy's
    routes onto routes (module docstring), so the result is :meth:`Topology.routes`'s, entry
    for entry up to their order within a route. Falls back to :meth:`Topology.routes` when
    the topology has no box rotation or routes by static hash.

    Parameters
    ----------
    topology : Topology
        The fabric.
    src_nodes, dst_nodes : array_like of int
        Node ids, one destination per source.

    Returns
    -------
    indptr, link, frac, latency
        As :meth:`Topology.routes`.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> t = ib_cluster(2)
    >>> a = routes_by_symmetry(t, t.gpus[:8], t.gpus[8:])
    >>> b = t.routes(t.gpus[:8], t.gpus[8:])
    >>> np.array_equal(np.sort(a[1]), np.sort(b[1])), np.allclose(a[3], b[3])
    (True, True)
    """
    src = np.asarray(src_nodes, dtype=np.int64).reshape(-1)
    dst = np.asarray(dst_nodes, dtype=np.int64).reshape(-1)
    rot = box_rotation(topology) if topology.routing == "adaptive" else None
    if rot is None or src.shape != dst.shape:
        return topology.routes(src, dst)
    gpu = np.asarray(topology.node_kind) == NODE_GPU
    j = np.where(gpu[dst], rot.index[dst], np.where(gpu[src], rot.index[src], 0))
    back = (rot.order - j) % rot.order
    n = np.int64(topology.n_nodes)
    canon = rot.node_power[back, src] * n + rot.node_power[back, dst]
    uniq, inverse = np.unique(canon, return_inverse=True)
    inverse = inverse.reshape(-1)
    uptr, ulink, ufrac, ulat = topology.routes(uniq // n, uniq % n)
    counts = np.diff(uptr)[inverse]
    indptr = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    pair = np.repeat(np.arange(src.size), counts)
    entry = uptr[inverse][pair] + (np.arange(indptr[-1]) - indptr[pair])
    link = rot.link_power[j[pair], ulink[entry]].astype(np.int32)
    return indptr, link, ufrac[entry], ulat[inverse]
