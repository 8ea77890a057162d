"""Incremental max-min re-solving (numba): after an event, re-solve only the flows it affects.

The engine keeps the allocation between batches (:class:`Alloc`): each flow's rate and its
*bottleneck* (the link whose saturation froze it in progressive filling), and per link its
load, its number of active flows, and the number and rate (*level*) of the flows
bottlenecked on it. An allocation is max-min fair exactly when it is feasible and every
flow has a saturated bottleneck on which no flow has a higher rate (Bertsekas & Gallager,
Data Networks, sec. 6.5.2); the kept state states that certificate per link.

After a batch of transfer starts and ends, :func:`repair` re-solves a *group* of flows:
the new ones, and those bottlenecked on a link a finished flow crossed. The rest keep their
rates, so the group is filled progressively (:func:`_fill`) against the capacity the others
leave (the bottleneck found with an indexed heap of the links' fill levels, not a scan of
every link). Then every link the group crosses is checked against the certificate: a link
that bottlenecks flows outside the group must stay saturated and carry no group flow faster
than its level; a link that now bottlenecks group flows must carry no outside flow faster
than them. Each failed check moves the outside flows it names into the group, and the group
is re-solved; when every check passes the allocation is max-min fair, so it equals a full
re-solve (to rounding, ``TOL``). The group only grows, so this ends, at worst with the whole
connected component (what a full re-solve, :func:`nvlearn.sim.fairness.fill_components`,
does every time).

This is the selective-update idea of SimGrid's lmm solver (only the constraints an event
modified are re-solved) with a certificate check that also keeps the re-solved set small
inside one large connected component, as the flows of an all-to-all are.

References
----------
* D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992, sec. 6.5
  (max-min fairness, progressive filling, the bottleneck characterisation).
* H. Casanova, A. Legrand and M. Quinson, "SimGrid: a Generic Framework for Large-Scale
  Distributed Experiments", UKSim 2008; and P. Velho and A. Legrand, "Accuracy Study and
  Improvement of Network Simulation in the SimGrid Framework", SIMUTools 2009 (the flow
  model and its lazy, selective re-solving).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit
from . import heap

__all__ = ["Alloc", "Work", "certify", "new_alloc", "new_work", "repair"]

#: Relative slack of the certificate checks (rounding of sums of rates).
TOL = 1e-11


class Alloc(NamedTuple):
    """The allocation the engine keeps between batches (per link, then per flow slot)."""

    load: np.ndarray     # bytes/s crossing the link: sum of frac * rate of its active flows
    count: np.ndarray    # active flows crossing the link
    n_bn: np.ndarray     # active flows bottlenecked on the link
    level: np.ndarray    # their rate, bytes/s (meaningful where n_bn > 0)
    bounded: np.ndarray  # no flow on the link is faster than ``level`` (it had n_bn > 0
    #                      when its flows' rates last changed)
    bn: np.ndarray       # per slot: the flow's bottleneck link, -1 before its first solve


class Work(NamedTuple):
    """Scratch space of :func:`repair`, allocated once per run."""

    rounds: np.ndarray   # (1,) int64: counter stamping the links seen in one fill
    lk_seen: np.ndarray  # per link: round that last saw it
    lk_pos: np.ndarray   # per link: its index among the links of this round
    res: np.ndarray      # capacity left by the flows outside the group
    weight: np.ndarray   # summed fractions of the group's unfrozen flows
    filled: np.ndarray   # load of the group's frozen flows
    left: np.ndarray     # group flows not frozen yet
    old: np.ndarray      # load of the group at its old rates
    old_bn: np.ndarray   # group flows bottlenecked on the link before
    pop: np.ndarray      # fill level at which the link saturated (NaN: it did not)
    fastest: np.ndarray  # highest new rate of a group flow on the link
    links: np.ndarray    # the links of this round
    sub_ptr: np.ndarray  # the group's entries per link of this round (CSR over links)
    h_t: np.ndarray      # indexed heap of the links' fill levels
    h_lk: np.ndarray
    h_pos: np.ndarray
    sl_in: np.ndarray    # per slot: batch stamp if in the group
    sl_done: np.ndarray  # per slot: round stamp once frozen
    new_bn: np.ndarray   # per slot: bottleneck found by this fill


@njit
def new_alloc(n_links, n_slots):
    """An empty allocation for ``n_links`` links and ``n_slots`` flow slots."""
    return Alloc(np.zeros(n_links), np.zeros(n_links, np.int64), np.zeros(n_links, np.int64),
                 np.zeros(n_links), np.zeros(n_links, np.bool_), np.full(n_slots, -1, np.int64))


@njit
def new_work(n_links, n_slots):
    """Scratch for :func:`repair` on ``n_links`` links and ``n_slots`` slots."""
    return Work(np.zeros(1, np.int64), np.zeros(n_links, np.int64),
                np.zeros(n_links, np.int64), np.empty(n_links), np.empty(n_links),
                np.empty(n_links), np.empty(n_links, np.int64), np.empty(n_links),
                np.empty(n_links, np.int64), np.empty(n_links), np.empty(n_links),
                np.empty(n_links, np.int32), np.zeros(n_links + 1, np.int64),
                np.empty(n_links), np.empty(n_links, np.int32),
                np.full(n_links, -1, np.int32), np.zeros(n_slots, np.int64),
                np.zeros(n_slots, np.int64), np.empty(n_slots, np.int64))


@njit
def _gather(lk, by_bn, above, stamp, lk_base, lk_n, lk_ent, op_slot, rate, alloc, w,
            group, n_group):
    """Add to the group the active flows on ``lk`` outside it that are bottlenecked on it
    (``by_bn``) or faster than ``above``; drop finished flows from the link's list.
    Returns the new group size."""
    off = lk_base[lk]
    q = off
    for p in range(off, off + lk_n[lk]):
        ent = lk_ent[p]
        sl = op_slot[ent >> 32]
        if sl < 0:
            continue
        lk_ent[q] = ent
        q += 1
        if w.sl_in[sl] != stamp and ((by_bn and alloc.bn[sl] == lk) or rate[sl] > above):
            w.sl_in[sl] = stamp
            group[n_group] = sl
            n_group += 1
    lk_n[lk] = q - off
    return n_group


@njit
def _collect(group, n_group, slot_path, rate, indptr, link, frac, alloc, w, sub):
    """Start a round: the links the group crosses, their sums, and the per-link CSR of the
    group's route entries (``group index << 32 | route entry``) in ``sub``, grown (doubled)
    if it is too small. Returns ``(round, n_links, sub)``."""
    r = w.rounds[0] + 1
    w.rounds[0] = r
    n_t = 0
    for j in range(n_group):
        sl = group[j]
        path = slot_path[sl]
        for e in range(indptr[path], indptr[path + 1]):
            c = link[e]
            if w.lk_seen[c] != r:
                w.lk_seen[c] = r
                w.lk_pos[c] = n_t
                w.links[n_t] = c
                n_t += 1
                w.weight[c] = 0.0
                w.left[c] = 0
                w.old[c] = 0.0
                w.old_bn[c] = 0
                w.filled[c] = 0.0
                w.pop[c] = np.nan
            w.weight[c] += frac[e]
            w.left[c] += 1
            w.old[c] += frac[e] * rate[sl]
        if alloc.bn[sl] >= 0:
            w.old_bn[alloc.bn[sl]] += 1
    for k in range(n_t):
        w.sub_ptr[k + 1] = w.sub_ptr[k] + w.left[w.links[k]]
    if w.sub_ptr[n_t] > sub.shape[0]:
        sub = np.empty(2 * w.sub_ptr[n_t], np.int64)
    cursor = w.sub_ptr[:n_t].copy()
    for j in range(n_group):
        path = slot_path[group[j]]
        for e in range(indptr[path], indptr[path + 1]):
            k = w.lk_pos[link[e]]
            sub[cursor[k]] = (np.int64(j) << 32) | e
            cursor[k] += 1
    return r, n_t, sub


@njit
def _fixed_load(c, k, alloc, w):
    """Load (bytes/s) on link ``c`` of the active flows outside the group."""
    if w.sub_ptr[k + 1] - w.sub_ptr[k] == alloc.count[c]:
        return 0.0
    return alloc.load[c] - w.old[c]


@njit
def _fill(r, n_t, n_group, group, sub, slot_path, capacity, indptr, link, frac, rate_out,
          alloc, w):
    """Progressive filling of the group against the capacity the other flows leave; the
    next link to saturate comes off an indexed heap of fill levels, refreshed lazily."""
    n_heap = 0
    for k in range(n_t):
        c = w.links[k]
        w.res[c] = capacity[c] - _fixed_load(c, k, alloc, w)
        n_heap = heap.push(w.h_t, w.h_lk, w.h_pos, n_heap, w.res[c] / w.weight[c],
                           np.int32(c))
    level = 0.0
    left = n_group
    while left > 0:
        # keys only grow as flows freeze, so a key is a lower bound: refresh a stale top
        c = w.h_lk[0]
        key = (w.res[c] - w.filled[c]) / w.weight[c] if w.left[c] else np.inf
        if key > w.h_t[0]:
            heap.update(w.h_t, w.h_lk, w.h_pos, n_heap, c, key)
            continue
        n_heap = heap.pop(w.h_t, w.h_lk, w.h_pos, n_heap)[2]
        if key > level:
            level = key
        w.pop[c] = level
        k = w.lk_pos[c]
        for q in range(w.sub_ptr[k], w.sub_ptr[k + 1]):
            sl = group[sub[q] >> 32]
            if w.sl_done[sl] == r:
                continue
            w.sl_done[sl] = r
            rate_out[sl] = level
            w.new_bn[sl] = c
            left -= 1
            path = slot_path[sl]
            for e in range(indptr[path], indptr[path + 1]):
                c2 = link[e]
                w.filled[c2] += frac[e] * level
                w.weight[c2] -= frac[e]
                w.left[c2] -= 1
    for k in range(n_t):
        w.h_pos[w.links[k]] = -1


@njit
def _check(n_t, stamp, n_group, group, slot_path, rate, rate_new, indptr, link, capacity,
           lk_base, lk_n, lk_ent, op_slot, alloc, w):
    """The certificate on every link of the round; the outside flows a failed check names
    join the group. Returns the new group size (unchanged: the allocation is fair)."""
    for k in range(n_t):
        w.fastest[w.links[k]] = 0.0
    for j in range(n_group):
        sl = group[j]
        path = slot_path[sl]
        for e in range(indptr[path], indptr[path + 1]):
            if rate_new[sl] > w.fastest[link[e]]:
                w.fastest[link[e]] = rate_new[sl]
    grown = n_group
    for k in range(n_t):
        c = w.links[k]
        if w.sub_ptr[k + 1] - w.sub_ptr[k] == alloc.count[c]:
            continue  # every flow on the link is in the group
        outside_bn = alloc.n_bn[c] - w.old_bn[c]
        if outside_bn > 0 and (
                _fixed_load(c, k, alloc, w) + w.filled[c] < capacity[c] * (1.0 - TOL)
                or w.fastest[c] > alloc.level[c] * (1.0 + TOL)):
            grown = _gather(c, True, np.inf, stamp, lk_base, lk_n, lk_ent, op_slot, rate,
                            alloc, w, group, grown)
        p = w.pop[c]
        if p == p and not (alloc.bounded[c] and p >= alloc.level[c] * (1.0 - TOL)):
            grown = _gather(c, False, p * (1.0 + TOL), stamp, lk_base, lk_n, lk_ent,
                            op_slot, rate, alloc, w, group, grown)
    return grown


@njit
def _accept(n_t, n_group, group, alloc, w):
    """Make the round's fill the kept allocation (levels, bottleneck counts, loads)."""
    for k in range(n_t):
        c = w.links[k]
        p = w.pop[c]
        if p == p:
            outside_bn = alloc.n_bn[c] - w.old_bn[c]
            alloc.level[c] = max(alloc.level[c], p) if outside_bn > 0 else p
        alloc.load[c] = _fixed_load(c, k, alloc, w) + w.filled[c]
    for j in range(n_group):
        sl = group[j]
        if alloc.bn[sl] >= 0:
            alloc.n_bn[alloc.bn[sl]] -= 1
        alloc.bn[sl] = w.new_bn[sl]
        alloc.n_bn[w.new_bn[sl]] += 1
    for k in range(n_t):
        alloc.bounded[w.links[k]] = alloc.n_bn[w.links[k]] > 0


@njit
def certify(n_links, comp_links, n_slots, comp_slots, slot_path, rate_new, indptr, link, frac,
            capacity, alloc):
    """Keep a full re-solve of whole components (``alloc.bn`` holding the link that froze
    each flow, -1 for a flow alone) as the allocation :func:`repair` starts from.

    Parameters
    ----------
    n_links : int
        How many links the re-solve reached, listed in ``comp_links[:n_links]``.
    comp_links : ndarray of int32
        Those links (as :func:`~nvlearn.sim.fairness.fill_components` returns them).
    n_slots : int
        How many flows it reached, listed in ``comp_slots[:n_slots]``.
    comp_slots : ndarray of int32
        Those flows' slots.
    slot_path : ndarray of int
        Each slot's route index into ``indptr``.
    rate_new : ndarray of float64
        Each slot's new max-min fair rate, bytes/s.
    indptr, link, frac : ndarray
        The routes in CSR form: route ``p`` crosses ``link[indptr[p]:indptr[p + 1]]``
        carrying fraction ``frac`` (> 0) of its bytes on each.
    capacity : ndarray of float64
        Each link's capacity, bytes/s per direction (> 0).
    alloc : Alloc
        The kept allocation, updated in place: ``bn`` (a flow alone gets its tightest link),
        ``n_bn``, ``level`` (bytes/s) and ``bounded`` on the listed links. ``load`` and
        ``count`` are the engine's to keep.

    Returns
    -------
    None
        ``alloc`` is updated in place.
    """
    for j in range(n_links):
        alloc.n_bn[comp_links[j]] = 0
    for j in range(n_slots):
        sl = comp_slots[j]
        if alloc.bn[sl] < 0:  # alone: its tightest link
            path = slot_path[sl]
            best = np.inf
            for e in range(indptr[path], indptr[path + 1]):
                if capacity[link[e]] / frac[e] < best:
                    best = capacity[link[e]] / frac[e]
                    alloc.bn[sl] = link[e]
        alloc.n_bn[alloc.bn[sl]] += 1
        alloc.level[alloc.bn[sl]] = rate_new[sl]
    for j in range(n_links):
        alloc.bounded[comp_links[j]] = alloc.n_bn[comp_links[j]] > 0


@njit
def repair(seeds, n_seeds, fresh, n_fresh, stamp, capacity, lk_base, lk_n, lk_ent, op_slot,
           slot_path, rate, rate_new, indptr, link, frac, alloc, w, sub, comp_links,
           comp_slots, limit):
    """Re-solve the max-min rates after a batch; see the module docstring.

    ``seeds`` are the links whose flows started or ended (``lk_dirty`` marks them with
    ``stamp``), ``fresh`` the slots of the flows that started. New rates (bytes/s) go to
    ``rate_new[slot]`` for the slots listed in ``comp_slots``; ``comp_links`` lists every link
    whose load may have changed, and ``alloc.load`` holds their new loads.
    ``sub`` is scratch for the group's route entries (any size; it grows as needed).
    Returns ``(n_links, n_slots, sub)`` with ``sub`` the (possibly grown) scratch to keep;
    ``n_slots`` is -1 (and nothing changed) if the group outgrew ``limit`` flows: a full
    re-solve of the components is then the cheaper way.

    Parameters
    ----------
    seeds : ndarray of int
        Links whose flows started or ended in the batch; ``seeds[:n_seeds]`` are read.
    n_seeds : int
        How many seeds, ``>= 0``.
    fresh : ndarray of int
        Slots of the flows that started in the batch; ``fresh[:n_fresh]`` are read.
    n_fresh : int
        How many started, ``>= 0``.
    stamp : int
        The batch's mark, different from every earlier batch's (marks slots in the group in
        ``w.sl_in``).
    capacity : ndarray of float64
        Each link's capacity, bytes/s per direction (> 0).
    lk_base, lk_n, lk_ent : ndarray of int
        The per-link flow lists (start, length, entries ``op << 32 | e``), as for
        :func:`~nvlearn.sim.fairness.fill_components`; finished flows are dropped from the
        lists visited (in place).
    op_slot : ndarray of int
        Each op's slot, -1 once it has finished.
    slot_path : ndarray of int
        Each slot's route index into ``indptr``.
    rate : ndarray of float64
        Each slot's current rate, bytes/s (read only).
    rate_new : ndarray of float64
        Out: the group's new rates, bytes/s.
    indptr, link, frac : ndarray
        The routes in CSR form, as for :func:`certify`.
    alloc : Alloc
        The kept allocation (:func:`new_alloc`, :func:`certify`); updated in place when the
        repair succeeds, untouched when it gives up.
    w : Work
        Scratch (:func:`new_work`).
    sub : ndarray of int64
        Scratch for the group's route entries, any length; grown (doubled) when too small.
    comp_links : ndarray of int32
        Out: the links whose load may have changed, ``comp_links[:n_links]``.
    comp_slots : ndarray of int32
        Out: the re-solved flows' slots, ``comp_slots[:n_slots]``; also the group while
        it is solved, so it needs room for every active slot.
    limit : int
        Most flows the group may grow to (``> 0``); beyond it the repair gives up.

    Returns
    -------
    n_links : int
        How many links are listed in ``comp_links`` (0 when the repair gave up).
    n_slots : int
        How many flows were re-solved, listed in ``comp_slots``; -1 when it gave up.
    sub : ndarray of int64
        The scratch to pass next time (``sub`` itself or a larger copy).
    """
    n_group = 0
    for j in range(n_fresh):
        w.sl_in[fresh[j]] = stamp
        comp_slots[n_group] = fresh[j]
        n_group += 1
    for j in range(n_seeds):
        if alloc.n_bn[seeds[j]] > 0:
            n_group = _gather(seeds[j], True, np.inf, stamp, lk_base, lk_n, lk_ent, op_slot,
                              rate, alloc, w, comp_slots, n_group)
    n_t = 0
    while n_group > 0:
        r, n_t, sub = _collect(comp_slots, n_group, slot_path, rate, indptr, link, frac,
                               alloc, w, sub)
        _fill(r, n_t, n_group, comp_slots, sub, slot_path, capacity, indptr, link, frac,
              rate_new, alloc, w)
        grown = _check(n_t, stamp, n_group, comp_slots, slot_path, rate, rate_new, indptr,
                       link, capacity, lk_base, lk_n, lk_ent, op_slot, alloc, w)
        if grown == n_group:
            _accept(n_t, n_group, comp_slots, alloc, w)
            break
        if grown > limit:
            return 0, -1, sub
        n_group = grown
    n_links = n_t
    comp_links[:n_t] = w.links[:n_t]
    for j in range(n_seeds):  # links only finished flows crossed: their load fell
        c = seeds[j]
        if n_t == 0 or w.lk_seen[c] != w.rounds[0]:
            if alloc.count[c] == 0:
                alloc.load[c] = 0.0
            comp_links[n_links] = c
            n_links += 1
    return n_links, n_group, sub
