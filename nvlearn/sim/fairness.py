"""Weighted max-min fair rates by progressive filling (numba), flow by flow.

A *flow* crosses links ``l`` carrying a fraction ``frac_l`` of its bytes (a multipath route
is one fluid flow: its load on link ``l`` is ``frac_l * rate``). Progressive filling raises
the rate of every unfrozen flow together until some link's load ``sum(frac * rate)``
reaches its capacity, freezes every flow crossing that link, and repeats. The result is
the max-min fair allocation: no link is over capacity, and every flow crosses a saturated
link on which no other flow gets a higher rate (its *bottleneck*).

Flows that share no link, even indirectly, do not affect each other, so
:func:`fill_components` fills each connected component of the flow-link graph on its own,
and a component of one flow costs only that flow's route.

:func:`max_min_rates` runs the same kernel on a plain list of routes: the reference the
engine is tested against. The engine itself fills bottleneck groups of flows, not flows
(:mod:`nvlearn.sim.groups`), with the same result.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit

__all__ = ["fill_components", "max_min_rates", "solo_rates"]


@njit
def solo_rates(capacity, path_indptr, path_link, path_frac):
    """Rate (bytes/s) of each route's flow when it has the fabric to itself: the minimum
    over its links of capacity / (its fraction on the link).

    Parameters
    ----------
    capacity : ndarray of float64
        Each link's capacity, bytes/s per direction (> 0 on every link a route crosses).
    path_indptr : ndarray of int, shape (n_paths + 1,)
        CSR index: route ``p`` is entries ``path_indptr[p] : path_indptr[p + 1]``.
    path_link : ndarray of int
        Each entry's link id, ``0 <= id < len(capacity)``.
    path_frac : ndarray of float64
        Each entry's fraction of the flow's bytes on that link (> 0); a link listed twice in
        one route counts with the sum of its fractions.

    Returns
    -------
    ndarray of float64, shape (n_paths,)
        Each route's solo rate, bytes/s; ``inf`` for a route of no link.
    """
    n_paths = path_indptr.shape[0] - 1
    weight = np.zeros(capacity.shape[0])
    solo = np.full(n_paths, np.inf)
    for path in range(n_paths):
        e0 = path_indptr[path]
        e1 = path_indptr[path + 1]
        for e in range(e0, e1):
            weight[path_link[e]] += path_frac[e]
        for e in range(e0, e1):
            lk = path_link[e]
            s = (capacity[lk] - 0.0) / weight[lk]
            if s < solo[path]:
                solo[path] = s
        for e in range(e0, e1):
            weight[path_link[e]] = 0.0
    return solo


@njit
def fill_components(seeds, n_seeds, stamp, capacity, lk_base, lk_n, lk_ent, lk_vis,
                    op_slot, slot_path, sl_vis, path_indptr, path_link, path_frac, path_solo,
                    comp_links, comp_slots, rate_out, bottleneck, frozen, weight, load,
                    unfrozen):
    """Max-min fair rates of every flow connected to a seed link.

    Link ``lk``'s flows are ``lk_ent[lk_base[lk] : lk_base[lk] + lk_n[lk]]``, each
    ``op << 32 | e`` with ``e`` the index of the link in the op's route
    (``path_link``/``path_frac``); an op whose ``op_slot`` is -1 has finished and is
    dropped from the list here.
    A flow alone in its component gets ``path_solo[path]`` (:func:`solo_rates`).
    Links and slots seen are marked with ``stamp`` in ``lk_vis``/``sl_vis`` and listed in
    ``comp_links``/``comp_slots``; rates (bytes/s) go to ``rate_out[slot]`` and the link
    that froze each flow to ``bottleneck[slot]`` (-1 for a flow alone). ``frozen``,
    ``weight``, ``load`` and ``unfrozen`` are scratch. Returns ``(n_links, n_slots)``.

    Parameters
    ----------
    seeds : ndarray of int
        Link ids whose components are filled; only ``seeds[:n_seeds]`` are read.
    n_seeds : int
        How many seeds, ``0 <= n_seeds <= len(seeds)``.
    stamp : int
        This call's mark, different from every earlier call's on the same ``lk_vis``,
        ``sl_vis`` and ``frozen`` (the engine counts it up), so they need no clearing.
    capacity : ndarray of float64
        Each link's capacity, bytes/s per direction (> 0).
    lk_base : ndarray of int
        Start of each link's flow list in ``lk_ent``.
    lk_n : ndarray of int
        Length of each link's flow list; shortened in place as finished flows are dropped.
    lk_ent : ndarray of int64
        The per-link flow lists, each entry ``op << 32 | e``; compacted in place.
    lk_vis : ndarray of int64
        Per link: set to ``stamp`` when the search reaches it.
    op_slot : ndarray of int
        Each op's slot (its index into the per-flow arrays), -1 once it has finished.
    slot_path : ndarray of int
        Each slot's route index into ``path_indptr``.
    sl_vis : ndarray of int64
        Per slot: set to ``stamp`` when the search reaches it.
    path_indptr, path_link, path_frac : ndarray
        The routes in CSR form, as for :func:`solo_rates`.
    path_solo : ndarray of float64
        Each route's solo rate, bytes/s (:func:`solo_rates`).
    comp_links : ndarray of int32
        Out: the links reached, in ``comp_links[:n_links]`` (length >= the number of links).
    comp_slots : ndarray of int32
        Out: the slots reached, in ``comp_slots[:n_slots]`` (length >= the number of slots).
    rate_out : ndarray of float64
        Out: each reached slot's max-min fair rate, bytes/s.
    bottleneck : ndarray of int64
        Out: each reached slot's bottleneck link, -1 for a flow alone in its component.
    frozen : ndarray of int64
        Scratch, per slot: set to ``stamp`` when the slot's rate is fixed.
    weight, load : ndarray of float64
        Scratch, per link: the unfrozen flows' summed fractions, and the frozen flows' load
        (bytes/s).
    unfrozen : ndarray of int64
        Scratch, per link: how many of its flows are not yet frozen.

    Returns
    -------
    n_links : int
        The number of links reached, listed in ``comp_links[:n_links]``.
    n_slots : int
        The number of flows (slots) reached, listed in ``comp_slots[:n_slots]``.
    """
    n_links = 0
    n_slots = 0
    for j in range(n_seeds):
        seed = seeds[j]
        if lk_vis[seed] == stamp:
            continue
        # breadth-first search over links and the flows crossing them
        l0 = n_links
        s0 = n_slots
        lk_vis[seed] = stamp
        comp_links[n_links] = seed
        n_links += 1
        q = l0
        while q < n_links:
            lk = comp_links[q]
            q += 1
            off = lk_base[lk]
            w = off
            for p in range(off, off + lk_n[lk]):
                ent = lk_ent[p]
                sl = op_slot[ent >> 32]
                if sl < 0:
                    continue
                lk_ent[w] = ent
                w += 1
                if sl_vis[sl] != stamp:
                    sl_vis[sl] = stamp
                    comp_slots[n_slots] = sl
                    n_slots += 1
                    path = slot_path[sl]
                    for e in range(path_indptr[path], path_indptr[path + 1]):
                        lk2 = path_link[e]
                        if lk_vis[lk2] != stamp:
                            lk_vis[lk2] = stamp
                            comp_links[n_links] = lk2
                            n_links += 1
            lk_n[lk] = w - off
        if n_slots - s0 == 1:  # a flow alone
            sl = comp_slots[s0]
            rate_out[sl] = path_solo[slot_path[sl]]
            bottleneck[sl] = -1
            continue
        for k in range(l0, n_links):
            lk = comp_links[k]
            total = 0.0
            off = lk_base[lk]
            for p in range(off, off + lk_n[lk]):
                total += path_frac[lk_ent[p] & 0xFFFFFFFF]
            weight[lk] = total
            load[lk] = 0.0
            unfrozen[lk] = lk_n[lk]
        # progressive filling of this component; links with no unfrozen flow leave the
        # candidate range comp_links[l0:n_cand] (swapped to its end)
        n_cand = n_links
        left = n_slots - s0
        level = 0.0
        while left > 0:
            best = np.inf
            best_link = -1
            k = l0
            while k < n_cand:
                lk = comp_links[k]
                if unfrozen[lk] == 0:
                    n_cand -= 1
                    comp_links[k] = comp_links[n_cand]
                    comp_links[n_cand] = lk
                    continue
                s = (capacity[lk] - load[lk]) / weight[lk]
                if s < best:
                    best = s
                    best_link = lk
                k += 1
            if best_link < 0:
                break
            if best > level:
                level = best
            off = lk_base[best_link]
            for p in range(off, off + lk_n[best_link]):
                sl = op_slot[lk_ent[p] >> 32]
                if frozen[sl] == stamp:
                    continue
                frozen[sl] = stamp
                rate_out[sl] = level
                bottleneck[sl] = best_link
                left -= 1
                path = slot_path[sl]
                for e in range(path_indptr[path], path_indptr[path + 1]):
                    lk2 = path_link[e]
                    f = path_frac[e]
                    load[lk2] += f * level
                    weight[lk2] -= f
                    unfrozen[lk2] -= 1
    return n_links, n_slots


@njit
def _rates_kernel(capacity, indptr, link, frac):
    n_flows = indptr.shape[0] - 1
    n_cap = capacity.shape[0]
    lk_off = np.zeros(n_cap + 1, np.int64)
    for e in range(link.shape[0]):
        lk_off[link[e] + 1] += 1
    for lk in range(n_cap):
        lk_off[lk + 1] += lk_off[lk]
    lk_n = np.zeros(n_cap, np.int64)
    lk_ent = np.empty(link.shape[0], np.int64)
    for i in range(n_flows):
        for e in range(indptr[i], indptr[i + 1]):
            q = lk_off[link[e]] + lk_n[link[e]]
            lk_ent[q] = (np.int64(i) << 32) | e
            lk_n[link[e]] += 1
    seeds = np.arange(n_cap).astype(np.int32)
    ident = np.arange(n_flows).astype(np.int32)
    rates = np.full(n_flows, np.inf)
    stamp = np.int64(1)
    fill_components(seeds, np.int64(n_cap), stamp, capacity, lk_off, lk_n, lk_ent,
                    np.zeros(n_cap, np.int64), ident, ident, np.zeros(n_flows, np.int64),
                    indptr, link, frac, solo_rates(capacity, indptr, link, frac),
                    np.empty(n_cap, np.int32),
                    np.empty(n_flows, np.int32), rates, np.empty(n_flows, np.int64),
                    np.zeros(n_flows, np.int64),
                    np.zeros(n_cap), np.zeros(n_cap), np.zeros(n_cap, np.int64))
    return rates


def max_min_rates(capacity, indptr, link, frac) -> np.ndarray:
    """Weighted max-min fair rate of each flow, bytes/s.

    Parameters
    ----------
    capacity : array_like of float
        Each link's capacity, bytes/s per direction; finite and > 0 on every link a flow
        crosses.
    indptr : int array (n_flows + 1,)
        Flow ``i`` crosses ``link[indptr[i]:indptr[i + 1]]`` (CSR, like
        :meth:`Topology.routes`).
    link : int array
        Link ids.
    frac : float array
        Fraction of the flow's bytes on each of those links (> 0).

    Returns
    -------
    ndarray of float64, shape (n_flows,)
        Rates in bytes/s; ``inf`` for a flow that crosses no link.

    Examples
    --------
    Two flows share link 0 (10 B/s); the second also crosses link 1 (2 B/s):

    >>> max_min_rates([10.0, 2.0], [0, 1, 3], [0, 0, 1], [1.0, 1.0, 1.0]).tolist()
    [8.0, 2.0]
    """
    capacity = np.ascontiguousarray(capacity, dtype=np.float64)
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    link = np.ascontiguousarray(link, dtype=np.int32)
    frac = np.ascontiguousarray(frac, dtype=np.float64)
    if indptr.ndim != 1 or indptr.size < 1 or indptr[0] != 0 or indptr[-1] != link.size:
        raise ValueError("indptr must be a CSR index: starts at 0 and ends at len(link)")
    if np.any(np.diff(indptr) < 0):
        raise ValueError("indptr must be non-decreasing")
    if frac.shape != link.shape:
        raise ValueError(f"frac needs one entry per link entry ({link.size}), got {frac.size}")
    if link.size and (link.min() < 0 or link.max() >= capacity.size):
        raise ValueError(f"link ids must be in 0..{capacity.size - 1}")
    if not (np.isfinite(frac).all() and (frac > 0).all()):
        raise ValueError("every frac must be finite and > 0 (drop links a flow does not use)")
    used = np.unique(link)
    if not (np.isfinite(capacity[used]).all() and (capacity[used] > 0).all()):
        raise ValueError("every link a flow crosses needs a finite capacity > 0 bytes/s")
    return _rates_kernel(capacity, indptr, link, frac)
