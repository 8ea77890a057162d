"""Bottleneck groups: max-min fair rates kept per group of flows, not per flow (numba).

In progressive filling every flow frozen at the same saturated constraint gets the same rate
(the level at which that constraint saturated), so a max-min fair allocation has at most one
distinct rate per constraint. The engine keeps the flows in progress in *groups*, one per
constraint: group ``c`` holds the flows whose bottleneck is ``c``, all at rate
``level[c]``. Each group has a *virtual clock* ``clock[c]``, the bytes each of its flows has
been served since the group's origin (``d clock / dt = level``); a flow joins with the tag
``clock + bytes left`` and ends when the clock reaches it. A group's flows sit in a pairing
heap on their tags, so

* a rate change of a group is O(1), whatever its size: its clock is brought up to date and
  its next end rescheduled;
* only flows that *change group* (their bottleneck moved) are touched one by one.

The solve works on groups. Per (group, constraint) the engine keeps the summed fractions,
the count and a list of the group's flows crossing the constraint (:class:`Entries`: each
group's row and each constraint's column a contiguous segment of a pool, a hash table to
find an entry; the lists are linked through each flow's places on its route, so a split
takes exactly the flows it moves, without scanning the group). :func:`solve` re-solves
the connected components (constraints linked by the groups and new flows crossing them)
that a batch of starts and ends touched, by progressive filling with groups as the units:
when constraint ``c`` saturates, its own group freezes whole, the other unfrozen groups
crossing it hand it the flows that cross it (all of them, or a split), and the new flows
crossing it join it. A group whose own constraint saturates at the same level (to
:data:`TIE`) keeps its flows rather than handing them over, so ties do not move flows back
and forth at every re-solve. The result is the progressive filling of the flows
themselves, so it equals a full re-solve to rounding (and to ``TIE`` where two constraints
tie; ``tests/test_sim_groups.py`` compares it with one after every batch, on random
instances). Its cost is the number of (group, constraint) pairs of the component, not the
number of flows: on the 256-GPU pod's uneven all-to-all about 10 k pairs for 65 k flows.
The search for the component stops as soon as it has reached every group with members (on
a multipath fabric, mostly within the seeds' columns): the component is then every flow in
progress, and its constraints every one a flow crosses, which the engine keeps listed with
their summed fractions and counts (the fill's starting weights).

References
----------
* D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992, sec. 6.5
  (progressive filling, max-min fairness).
* A. Demers, S. Keshav and S. Shenker, "Analysis and Simulation of a Fair Queueing
  Algorithm", SIGCOMM 1989, and L. Zhang, "VirtualClock", SIGCOMM 1990: virtual time that
  advances at the fair rate, and per-flow finish tags against it.
* M. L. Fredman, R. Sedgewick, D. D. Sleator and R. E. Tarjan, "The pairing heap: a new
  form of self-adjusting heap", *Algorithmica* 1, 1986.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit
from . import heap

__all__ = ["REBUILD", "TIE", "Entries", "Groups", "Scratch", "grown", "leave", "new_entries",
           "new_groups", "new_scratch", "next_end", "roomy", "solve"]

_MIX = np.uint64(0x9E3779B97F4A7C15)
_LOW = np.int64(0xFFFFFFFF)  # the other index in a segment's ``entry << 32 | index``
#: Fill levels this close (relative) saturate together: a group whose own constraint ties
#: with the one saturating keeps its flows (rates then differ from an exact fill by at most
#: this much).
TIE = 1e-12
#: A fill that pops this many constraints with no unfrozen flow left (their stale keys on
#: top of the heap) rebuilds the heap without any such constraint, every key up to date: on
#: the 256-GPU pod's all-to-all most of the ~570 constraints end the fill that way, and
#: popping them one by one from the top was a third of the solve.
REBUILD = 16


class Groups(NamedTuple):
    """Per group (one per constraint, its bottleneck), then per flow slot."""

    level: np.ndarray    # bytes/s of each member
    clock: np.ndarray    # bytes served per member at time clock_t
    clock_t: np.ndarray
    size: np.ndarray     # members
    root: np.ndarray     # root slot of the members' pairing heap on tags, -1 if empty
    grp: np.ndarray      # per slot: its group, -1 before its first solve
    tag: np.ndarray      # per slot: the group clock at which it ends
    ph: np.ndarray       # per slot: pairing heap links (first child, next sibling, previous:
    #                      the parent of a first child, else the left sibling)
    mnext: np.ndarray    # per (slot, place on its route): the next flow in the member list
    mprev: np.ndarray    # of its (group, constraint) entry, as ``slot * width + place``, and
    #                      the previous one (``-2 - entry`` for the first; -1: the end); flat
    width: int           # places per slot: the most constraints a route crosses


class Entries(NamedTuple):
    """Pool of (group, constraint) entries: summed fractions, count and list of the group's
    flows crossing the constraint. Each group's row and each constraint's column is a segment of
    a pool (``rmeta``, ``cmeta``: base, capacity and length per owner) holding, per entry,
    ``entry << 32 | the other index`` and the entry's values (row: fractions ``rw`` and
    count ``rk``; column: fractions ``cw``), so walking one reads memory in order; a hash
    table finds the entry of a (group, constraint)."""

    ids: np.ndarray      # (n, 2): group (-1 once freed), constraint
    head: np.ndarray     # (n,): first of its flows' member list (Groups.mnext), -1: none
    pos: np.ndarray      # (n, 3): place in the rows' pool, in the columns'; next on its chain
    bucket: np.ndarray   # hash table: first entry of each chain, -1
    free: np.ndarray     # stack of freed entries
    cnt: np.ndarray      # entries ever used, free, live; hash bits; row and column pools
    #                      used; rows in use (the groups with members)
    rseg: np.ndarray
    rw: np.ndarray
    rk: np.ndarray
    rmeta: np.ndarray
    cseg: np.ndarray
    cw: np.ndarray
    cmeta: np.ndarray


class Scratch(NamedTuple):
    """Per-solve scratch (allocated once per run)."""

    stamp: np.ndarray    # (1,) counter
    c_vis: np.ndarray    # per constraint: stamp once reached
    c_list: np.ndarray   # the constraints reached
    fr_ptr: np.ndarray   # per constraint: its new flows' entries in fr_ent (CSR by rank)
    fr_cur: np.ndarray   # ... and a cursor into them
    c_rank: np.ndarray   # per constraint: its rank among those crossed by new flows
    g_vis: np.ndarray    # per group: stamp once reached
    g_list: np.ndarray
    g_done: np.ndarray   # per group: stamp once frozen
    before: np.ndarray   # per group: level * size when reached
    weight: np.ndarray   # per constraint: summed fractions of unfrozen flows
    filled: np.ndarray   # load of frozen flows
    left: np.ndarray     # unfrozen flows crossing it
    h_t: np.ndarray      # indexed heap of fill levels
    h_c: np.ndarray
    h_pos: np.ndarray
    s_vis: np.ndarray    # per slot: stamp once reached (new flows)
    s_done: np.ndarray   # per slot: stamp once frozen (new flows, flows changing group)
    snap: np.ndarray     # the unfrozen groups of a column being frozen
    mv_slot: np.ndarray  # per slot: the flows joining the group being frozen ...
    mv_from: np.ndarray  # ... the group each leaves (-1: a new flow) ...
    mv_rem: np.ndarray   # ... and its bytes left


@njit
def new_groups(n_c, n_slots, width):
    """Empty groups for ``n_c`` constraints and ``n_slots`` flow slots.

    Parameters
    ----------
    n_c : int
        Constraints of the fabric (one group each).
    n_slots : int
        Flow slots (at most one per op).
    width : int
        The most constraints a route crosses (>= 1): each slot's places in the member
        lists.

    Returns
    -------
    Groups
        Every group empty (level 0, no members); the per-slot arrays uninitialised, so
        only the pages of slots in use are touched.
    """
    return Groups(np.zeros(n_c), np.zeros(n_c), np.zeros(n_c), np.zeros(n_c, np.int64),
                  np.full(n_c, -1, np.int32), np.empty(n_slots, np.int32), np.empty(n_slots),
                  np.empty((n_slots, 3), np.int32), np.empty(n_slots * width, np.int64),
                  np.empty(n_slots * width, np.int64), width)


@njit
def new_entries(size, n_c, pool):
    """An empty pool of (group, constraint) entries (:func:`grown` makes a larger copy).

    Parameters
    ----------
    size : int
        Entries it has room for (>= 1).
    n_c : int
        Constraints (and so groups) of the fabric.
    pool : int
        Places in each of the row and column segment pools (>= 0).

    Returns
    -------
    Entries
        No entry in use, every row and column empty.
    """
    bits = 4
    while (1 << bits) < size:
        bits += 1
    return Entries(np.empty((size, 2), np.int32), np.empty(size, np.int64),
                   np.empty((size, 3), np.int64),
                   np.full(1 << bits, -1, np.int64), np.empty(size, np.int64),
                   np.array([0, 0, 0, bits, 0, 0, 0], np.int64), np.empty(pool, np.int64),
                   np.empty(pool), np.empty(pool, np.int64), np.zeros((n_c, 3), np.int64),
                   np.empty(pool, np.int64), np.empty(pool), np.zeros((n_c, 3), np.int64))


@njit
def new_scratch(n_c, n_slots):
    """Scratch of :func:`solve` for ``n_c`` constraints and ``n_slots`` slots."""
    return Scratch(np.zeros(1, np.int64), np.zeros(n_c, np.int64), np.empty(n_c, np.int32),
                   np.zeros(n_c + 1, np.int64), np.empty(n_c, np.int64),
                   np.full(n_c, -1, np.int64),
                   np.zeros(n_c, np.int64), np.empty(n_c, np.int32), np.zeros(n_c, np.int64),
                   np.zeros(n_c), np.empty(n_c), np.empty(n_c), np.empty(n_c, np.int64),
                   np.empty(n_c), np.empty(n_c, np.int32), np.full(n_c, -1, np.int32),
                   np.zeros(n_slots, np.int64), np.zeros(n_slots, np.int64),
                   np.empty(n_c, np.int64), np.empty(n_slots, np.int32),
                   np.empty(n_slots, np.int32), np.empty(n_slots))


# Hot helpers take arrays, not the named tuples: numba increfs an array each time it is read
# out of a tuple, which inside a loop would cost more than the loop's work.

# ---------------------------------------------------------------- pairing heaps of slots


@njit(inline="always")
def _meld(a, b, tag, ph):
    """Meld two heap roots (either may be -1); returns the new root (sib = prev = -1)."""
    if a < 0:
        return b
    if b < 0:
        return a
    if tag[b] < tag[a]:
        a, b = b, a
    first = ph[a, 0]
    ph[b, 1] = first
    if first >= 0:
        ph[first, 2] = b
    ph[b, 2] = a
    ph[a, 0] = b
    ph[a, 1] = -1
    ph[a, 2] = -1
    return a


@njit
def _merge_pairs(first, tag, ph):
    """The two-pass pairing of a sibling list; returns its root. (The melds are written out:
    an inlined call still increfs its array arguments, once per pair; and this is one
    function, not inlined, so that it is compiled once.)"""
    acc = -1
    x = first
    while x >= 0:
        a = x
        b = ph[a, 1]
        ph[a, 1] = -1
        ph[a, 2] = -1
        if b >= 0:
            x = ph[b, 1]
            if tag[b] < tag[a]:
                a, b = b, a
            first_child = ph[a, 0]  # b becomes a's first child
            ph[b, 1] = first_child
            if first_child >= 0:
                ph[first_child, 2] = b
            ph[b, 2] = a
            ph[a, 0] = b
            ph[a, 2] = -1
        else:
            x = -1
        ph[a, 1] = acc  # the pairs, last first (sib as a temporary link)
        acc = a
    root = -1
    while acc >= 0:
        nxt = ph[acc, 1]
        ph[acc, 1] = -1
        if root < 0:
            root = acc
        else:
            a, b = root, acc
            if tag[b] < tag[a]:
                a, b = b, a
            first_child = ph[a, 0]
            ph[b, 1] = first_child
            if first_child >= 0:
                ph[first_child, 2] = b
            ph[b, 2] = a
            ph[a, 0] = b
            ph[a, 1] = -1
            ph[a, 2] = -1
            root = a
        acc = nxt
    return root


@njit(inline="always")
def _remove(s, g, root, tag, ph):
    """Take slot ``s`` out of group ``g``'s heap."""
    if root[g] == s:
        root[g] = _merge_pairs(ph[s, 0], tag, ph)
        return
    p = ph[s, 2]
    if ph[p, 0] == s:
        ph[p, 0] = ph[s, 1]
    else:
        ph[p, 1] = ph[s, 1]
    if ph[s, 1] >= 0:
        ph[ph[s, 1], 2] = p
    sub = _merge_pairs(ph[s, 0], tag, ph)
    root[g] = _meld(root[g], sub, tag, ph)


@njit(inline="always")
def _link(node, x, head, mnext, mprev):
    """Put ``node`` (a flow's place on its route) first in entry ``x``'s member list."""
    n = head[x]
    mnext[node] = n
    mprev[node] = -2 - x
    if n >= 0:
        mprev[n] = node
    head[x] = node


@njit(inline="always")
def _unlink(node, head, mnext, mprev):
    """Take ``node`` out of its entry's member list."""
    p = mprev[node]
    n = mnext[node]
    if p >= 0:
        mnext[p] = n
    else:
        head[-2 - p] = n
    if n >= 0:
        mprev[n] = p


# ---------------------------------------------------------------- (group, constraint) entries


@njit(inline="always")
def _hash(g, c, bits):
    key = np.uint64(g) * np.uint64(0x100000001) + np.uint64(c)
    return np.int64(np.multiply(key, _MIX) >> np.uint64(64 - bits))  # wraps, silently


@njit(inline="always")
def _room(owner, which, meta, ecnt):
    """Make room for one more in ``owner``'s segment: if it is full, a new segment with
    twice the room at the pool's end (the pool has room: :func:`roomy`). Returns
    ``(old base, new base, its length)`` (equal bases when it stayed)."""
    n = meta[owner, 2]
    old = meta[owner, 0]
    if n < meta[owner, 1]:
        return old, old, n
    cap = max(4, 2 * n)
    base = ecnt[4 + which]
    ecnt[4 + which] = base + cap
    meta[owner, 0] = base
    meta[owner, 1] = cap
    return old, base, n


@njit(inline="always")
def _row_push(g, e, c, rseg, rw, rk, rmeta, pos, ecnt):
    """Append entry ``e`` (constraint ``c``, no flow yet) to group ``g``'s row."""
    old, base, n = _room(g, 0, rmeta, ecnt)
    if base != old:
        for q in range(n):
            rseg[base + q] = rseg[old + q]
            rw[base + q] = rw[old + q]
            rk[base + q] = rk[old + q]
            pos[rseg[base + q] >> 32, 0] = base + q
    p = base + n
    if n == 0:
        ecnt[6] += 1  # the group's first entry: it has members now
    rseg[p] = (np.int64(e) << 32) | c
    rw[p] = 0.0
    rk[p] = 0
    pos[e, 0] = p
    rmeta[g, 2] = n + 1


@njit(inline="always")
def _col_push(c, e, g, cseg, cw, cmeta, pos, ecnt):
    """Append entry ``e`` (group ``g``) to constraint ``c``'s column."""
    old, base, n = _room(c, 1, cmeta, ecnt)
    if base != old:
        for q in range(n):
            cseg[base + q] = cseg[old + q]
            cw[base + q] = cw[old + q]
            pos[cseg[base + q] >> 32, 1] = base + q
    p = base + n
    cseg[p] = (np.int64(e) << 32) | g
    cw[p] = 0.0
    pos[e, 1] = p
    cmeta[c, 2] = n + 1


@njit
def _drop(e, g, c, h, ids, pos, bucket, free, ecnt, rseg, rw, rk, rmeta, cseg, cw, cmeta):
    """Free entry ``e`` of (group ``g``, constraint ``c``), on hash chain ``h``: its row's
    and column's last entries take its places."""
    if bucket[h] == e:
        bucket[h] = pos[e, 2]
    else:
        q = bucket[h]
        while pos[q, 2] != e:
            q = pos[q, 2]
        pos[q, 2] = pos[e, 2]
    p = pos[e, 0]
    last = rmeta[g, 0] + rmeta[g, 2] - 1
    rseg[p] = rseg[last]
    rw[p] = rw[last]
    rk[p] = rk[last]
    pos[rseg[p] >> 32, 0] = p
    rmeta[g, 2] -= 1
    if rmeta[g, 2] == 0:
        ecnt[6] -= 1  # the group's last entry: it has no members left
    p = pos[e, 1]
    last = cmeta[c, 0] + cmeta[c, 2] - 1
    cseg[p] = cseg[last]
    cw[p] = cw[last]
    pos[cseg[p] >> 32, 1] = p
    cmeta[c, 2] -= 1
    ids[e, 0] = -1
    free[ecnt[1]] = e
    ecnt[1] += 1
    ecnt[2] -= 1


@njit
def _new_entry(g, c, h, ids, head, pos, bucket, free, ecnt, rseg, rw, rk, rmeta, cseg, cw,
               cmeta):
    """A new entry for (group ``g``, constraint ``c``) on hash chain ``h``, with no flow
    yet, appended to the group's row and the constraint's column. Returns it."""
    if ecnt[1] > 0:
        ecnt[1] -= 1
        e = free[ecnt[1]]
    else:
        e = ecnt[0]
        ecnt[0] += 1
    ecnt[2] += 1
    ids[e, 0] = g
    ids[e, 1] = c
    head[e] = -1
    pos[e, 2] = bucket[h]
    bucket[h] = e
    _row_push(g, e, c, rseg, rw, rk, rmeta, pos, ecnt)
    _col_push(c, e, g, cseg, cw, cmeta, pos, ecnt)
    return e


@njit
def _compact(seg, val, cnt, meta, pos, which, size):
    """The segments (entries ``seg``, values ``val`` and, for rows, counts ``cnt``) copied
    tightly, with room for as many again, into new pools of ``size`` places; returns
    ``(seg, val, cnt, used)``."""
    new_seg = np.empty(size, np.int64)
    new_val = np.empty(size)
    new_cnt = np.empty(size if which == 0 else 0, np.int64)
    top = 0
    for owner in range(meta.shape[0]):
        n = meta[owner, 2]
        old = meta[owner, 0]
        for q in range(n):
            new_seg[top + q] = seg[old + q]
            new_val[top + q] = val[old + q]
            if which == 0:
                new_cnt[top + q] = cnt[old + q]
            pos[seg[old + q] >> 32, which] = top + q
        meta[owner, 0] = top
        meta[owner, 1] = max(4, 2 * n) if n else 0
        top += meta[owner, 1]
    return new_seg, new_val, new_cnt, top


@njit(inline="always")
def _pool_need(live, n_c):
    """Places the row or column pool must have free for ``live`` entries over ``n_c``
    constraints: what segments moved to twice their room can take."""
    return 4 * live + 4 * n_c + 16


@njit
def roomy(en, live):
    """Whether ``en`` has room for ``live`` entries and for its segments to grow while they
    are added (else :func:`grown`)."""
    need = _pool_need(live, en.rmeta.shape[0])
    return live <= en.ids.shape[0] and en.cnt[4] + need <= en.rseg.shape[0] and \
        en.cnt[5] + need <= en.cseg.shape[0]


@njit
def grown(en, live):
    """A copy of ``en`` with room for ``live`` entries and for the segments to grow while
    they are added (entries rehashed, segments compacted)."""
    n_c = en.rmeta.shape[0]
    need = _pool_need(live, n_c)
    size = en.ids.shape[0]
    if live > size:
        size = max(live, 2 * size)
    new = new_entries(size, n_c, 0)
    top = en.cnt[0]
    new.ids[:top] = en.ids[:top]
    new.head[:top] = en.head[:top]
    new.pos[:top, :2] = en.pos[:top, :2]
    new.free[:en.cnt[1]] = en.free[:en.cnt[1]]
    new.cnt[:3] = en.cnt[:3]
    new.cnt[6] = en.cnt[6]
    bits = new.cnt[3]
    for e in range(top):
        if en.ids[e, 0] >= 0:  # live
            h = _hash(en.ids[e, 0], en.ids[e, 1], bits)
            new.pos[e, 2] = new.bucket[h]
            new.bucket[h] = e
    new.rmeta[:] = en.rmeta
    new.cmeta[:] = en.cmeta
    pool = 2 * (2 * live + 4 * n_c + need)
    rseg, rw, rk, new.cnt[4] = _compact(en.rseg, en.rw, en.rk, new.rmeta, new.pos, 0, pool)
    cseg, cw, _, new.cnt[5] = _compact(en.cseg, en.cw, en.rk, new.cmeta, new.pos, 1, pool)
    return Entries(new.ids, new.head, new.pos, new.bucket, new.free, new.cnt, rseg, rw, rk,
                   new.rmeta, cseg, cw, new.cmeta)


# ---------------------------------------------------------------- flows leaving


@njit(inline="always")
def leave(sl, g, path, indptr, link, frac, root, tag, ph, size, grp, mnext, mprev, width, ids,
          head, pos, bucket, free, ecnt, rseg, rw, rk, rmeta, cseg, cw, cmeta):
    """Slot ``sl``, the root of group ``g``'s heap (its next flow to end), ends: it leaves
    the heap, and its route's fractions and places leave the group's entries (an entry
    whose count falls to 0 is freed). Arrays, not the named tuples, so the engine's event
    loop reads each once per batch.

    Parameters
    ----------
    sl, g, path : int
        The slot, its group and its route.
    indptr, link, frac : ndarray
        Routes over constraints (CSR, as :class:`~nvlearn.sim.engine.Fabric` holds them).
    root, tag, ph, size, grp : ndarray
        The fields of :class:`Groups` of those names, updated in place.
    mnext, mprev : ndarray
        Those fields of :class:`Groups`, flattened (``slot * width + place``).
    width : int
        Their second dimension: the most constraints a route crosses.
    ids, head, pos, bucket, free, ecnt, rseg, rw, rk, rmeta, cseg, cw, cmeta : ndarray
        The fields of :class:`Entries` (``w``, ``k``, ``cnt`` as ``ew``, ``ek``, ``ecnt``),
        updated in place.

    Returns
    -------
    None
    """
    root[g] = _merge_pairs(ph[sl, 0], tag, ph)
    size[g] -= 1
    grp[sl] = -1
    bits = ecnt[3]
    for e in range(indptr[path], indptr[path + 1]):
        c = link[e]
        w = frac[e]
        # _sub(g, c, w, ...), written out (see _merge_pairs)
        h = _hash(g, c, bits)
        x = bucket[h]
        while ids[x, 0] != g or ids[x, 1] != c:
            x = pos[x, 2]
        _unlink(sl * width + e - indptr[path], head, mnext, mprev)
        p = pos[x, 0]
        rk[p] -= 1
        if rk[p] > 0:
            rw[p] -= w
            cw[pos[x, 1]] -= w
        else:
            _drop(x, g, c, h, ids, pos, bucket, free, ecnt, rseg, rw, rk, rmeta, cseg, cw,
                  cmeta)


@njit(inline="always")
def next_end(g, clock_t, tag, root, clock, level):
    """Time group ``g``'s next member ends: its heap root's tag reached.

    Parameters
    ----------
    g : int
        The group (it has members, so a root and a level > 0).
    clock_t, tag, root, clock, level : ndarray
        The fields of :class:`Groups` of those names.

    Returns
    -------
    float
        Seconds.
    """
    return clock_t[g] + (tag[root[g]] - clock[g]) / level[g]


# ---------------------------------------------------------------- the solve


@njit(inline="always")
def _fresh_by_constraint(seeds, n_seeds, fresh, n_fresh, indptr, link, slot_path, fr_ptr,
                         c_rank, fr_cur, fr_ent):
    """The new flows' route entries (``slot << 32 | entry``) grouped by constraint into
    ``fr_ent`` (CSR over the seeds' ranks, ``fr_ptr``; every constraint a new flow crosses
    is a seed)."""
    for j in range(n_seeds):
        c_rank[seeds[j]] = j
        fr_ptr[j + 1] = 0
    for j in range(n_fresh):
        path = slot_path[fresh[j]]
        for e in range(indptr[path], indptr[path + 1]):
            fr_ptr[c_rank[link[e]] + 1] += 1
    for j in range(n_seeds):
        fr_cur[j] = fr_ptr[j]
        fr_ptr[j + 1] += fr_ptr[j]
    for j in range(n_fresh):
        s = fresh[j]
        path = slot_path[s]
        for e in range(indptr[path], indptr[path + 1]):
            k = c_rank[link[e]]
            fr_ent[fr_cur[k]] = (np.int64(s) << 32) | e
            fr_cur[k] += 1


@njit
def _rebuild(capacity, filled, weight, left, h_t, h_c, h_pos, n_heap):
    """The heap of fill levels without its constraints left with no unfrozen flow, every
    key brought up to date. Returns its size."""
    n = 0
    for j in range(n_heap):
        c = h_c[j]
        if left[c] > 0:
            h_t[n] = (capacity[c] - filled[c]) / weight[c]
            h_c[n] = c
            n += 1
        else:
            h_pos[c] = -1
    return heap.heapify(h_t, h_c, h_pos, n)


@njit(inline="always")
def _freeze_group(g, lam, filled, weight, left, rseg, rw, rk, rmeta):
    """Group ``g``'s members all freeze at ``lam``."""
    for p in range(rmeta[g, 0], rmeta[g, 0] + rmeta[g, 2]):
        c2 = rseg[p] & _LOW
        filled[c2] += rw[p] * lam
        weight[c2] -= rw[p]
        left[c2] -= rk[p]


@njit(inline="always")
def _reach(c, r, c_vis, c_list, n_c, weight, left, filled, c_w, c_n):
    """Constraint ``c`` joins the solve (if it has not yet): its unfrozen flows are all the
    flows crossing it. Returns the new count of constraints reached."""
    if c_vis[c] == r:
        return n_c
    c_vis[c] = r
    c_list[n_c] = c
    weight[c] = c_w[c]
    left[c] = c_n[c]
    filled[c] = 0.0
    return n_c + 1


@njit(inline="always")
def solve(seeds, n_seeds, fresh, n_fresh, t0, capacity, indptr, link, frac, slot_path,
          slot_t, slot_bytes, c_w, c_n, crossed, n_crossed, fr_ent, gr, en, sc):
    """Re-solve the components a batch touched (see the module docstring), in place.

    Parameters
    ----------
    seeds : ndarray of int
        The constraints whose flows started or ended in the batch, each once, in
        ``seeds[:n_seeds]``.
    n_seeds : int
        How many.
    fresh : ndarray of int
        The slots whose flows started in the batch (``gr.grp`` -1), in ``fresh[:n_fresh]``.
    n_fresh : int
        How many.
    t0 : float
        The batch's time, seconds: rates change from then on.
    capacity : ndarray of float64
        Each constraint's capacity, bytes/s (> 0 where a route crosses it).
    indptr, link, frac : ndarray
        Routes over constraints (CSR, as :class:`~nvlearn.sim.engine.Fabric` holds them).
    slot_path : ndarray of int
        Each slot's route.
    slot_t : ndarray of float64
        Each slot's start time, seconds (>= ``t0`` for the new flows).
    slot_bytes : ndarray of float64
        Each slot's size, bytes.
    c_w, c_n : ndarray
        Per constraint, the summed fractions (float64) and the count (int64) of the route
        entries of all flows in progress crossing it, the new ones included.
    crossed : ndarray of int
        The constraints some flow in progress crosses (``c_n > 0``), in
        ``crossed[:n_crossed]``.
    n_crossed : int
        How many.
    fr_ent : ndarray of int64
        Room for the new flows' route entries (at least as many places), overwritten.
    gr : Groups
        The groups: levels, clocks (brought to ``t0`` where reached) and members, in place.
    en : Entries
        The entries, in place; with room for one per route entry of the flows in progress
        (:func:`roomy`; else pass :func:`grown`'s copy).
    sc : Scratch
        Scratch; on return ``sc.c_list[:n_c]`` lists the constraints reached and
        ``sc.filled`` holds each one's new load (bytes/s), ``sc.g_list[:n_g]`` the groups
        reached, ``sc.before`` holding each one's summed rate before (bytes/s).

    Returns
    -------
    n_c : int
        Constraints reached.
    n_g : int
        Groups reached.
    """
    level, clock, clock_t, size, root, grp, tag, ph, mnext, mprev, width = gr
    ids, head, pos, bucket, free, ecnt, rseg, rw, rk, rmeta, cseg, cw, cmeta = en
    bits = ecnt[3]
    (stamp, c_vis, c_list, fr_ptr, fr_cur, c_rank, g_vis, g_list, g_done, before, weight,
     filled, left, h_t, h_c, h_pos, s_vis, s_done, snap, mv_slot, mv_from, mv_rem) = sc
    r = stamp[0] + 1
    stamp[0] = r
    _fresh_by_constraint(seeds, n_seeds, fresh, n_fresh, indptr, link, slot_path, fr_ptr,
                         c_rank, fr_cur, fr_ent)
    # the component: breadth-first from the seeds over constraints (their columns give
    # their groups, whose clocks are brought to t0) and groups (their rows give more
    # constraints), and the new flows. Every flow crossing a constraint reached is in the
    # component, so its unfrozen weight and count are c_w and c_n. Once every group with
    # members is reached (ecnt[6]: on a multipath fabric, mostly after the seeds' columns)
    # the component is every flow in progress, and its constraints every one crossed.
    n_c = 0
    for j in range(n_seeds):
        n_c = _reach(seeds[j], r, c_vis, c_list, n_c, weight, left, filled, c_w, c_n)
    n_g = 0
    every = ecnt[6] == 0
    q = 0
    q_g = 0
    while not every:
        if q < n_c:
            c = c_list[q]
            q += 1
            for p in range(cmeta[c, 0], cmeta[c, 0] + cmeta[c, 2]):
                g = cseg[p] & _LOW
                if g_vis[g] == r:
                    continue
                g_vis[g] = r
                g_list[n_g] = g
                n_g += 1
                if clock_t[g] != t0:
                    clock[g] += level[g] * (t0 - clock_t[g])
                    clock_t[g] = t0
                before[g] = level[g] * size[g]
            if n_g == ecnt[6]:
                every = True
                break
            k = c_rank[c]
            if 0 <= k < n_seeds and seeds[k] == c:
                for p in range(fr_ptr[k], fr_ptr[k + 1]):
                    s = fr_ent[p] >> 32
                    if s_vis[s] == r:
                        continue
                    s_vis[s] = r
                    path = slot_path[s]
                    for e3 in range(indptr[path], indptr[path + 1]):
                        n_c = _reach(link[e3], r, c_vis, c_list, n_c, weight, left, filled,
                                     c_w, c_n)
        elif q_g < n_g:
            g = g_list[q_g]
            q_g += 1
            for p in range(rmeta[g, 0], rmeta[g, 0] + rmeta[g, 2]):
                n_c = _reach(rseg[p] & _LOW, r, c_vis, c_list, n_c, weight, left, filled,
                             c_w, c_n)
        else:
            break
    # progressive filling; the next constraint to saturate comes off an indexed heap of fill
    # levels, refreshed lazily
    n_heap = 0
    if every:  # the constraints reached that no flow crosses now, then every one crossed
        kept = 0
        for j in range(n_c):
            c = c_list[j]
            if c_n[c] == 0:
                c_list[kept] = c
                kept += 1
        n_c = kept
        for j in range(n_crossed):
            c = crossed[j]
            c_list[n_c] = c
            n_c += 1
            weight[c] = c_w[c]
            left[c] = c_n[c]
            filled[c] = 0.0
            h_t[n_heap] = capacity[c] / c_w[c]
            h_c[n_heap] = c
            n_heap += 1
        for j in range(n_fresh):
            s_vis[fresh[j]] = r
    else:
        for j in range(n_c):
            c = c_list[j]
            if left[c] > 0:
                h_t[n_heap] = capacity[c] / weight[c]
                h_c[n_heap] = c
                n_heap += 1
    n_heap = heap.heapify(h_t, h_c, h_pos, n_heap)
    unfrozen = 0  # flows: once all are frozen, the constraints left in the heap are not
    for j in range(n_g):  # looked at (most of a fabric's never saturate)
        unfrozen += size[g_list[j]]
    for j in range(n_fresh):
        unfrozen += s_vis[fresh[j]] == r
    lam = 0.0
    dead = 0  # constraints with no unfrozen flow popped since the last rebuild
    while n_heap > 0 and unfrozen > 0:
        c = h_c[0]
        if left[c] == 0:
            dead += 1
            if dead >= REBUILD:
                n_heap = _rebuild(capacity, filled, weight, left, h_t, h_c, h_pos, n_heap)
                dead = 0
            else:
                n_heap = heap.pop(h_t, h_c, h_pos, n_heap)[2]
            continue
        # keys only grow as flows freeze, so a key is a lower bound: refresh a stale top
        key = (capacity[c] - filled[c]) / weight[c]
        if key > h_t[0]:
            heap.update(h_t, h_c, h_pos, n_heap, c, key)
            continue
        n_heap = heap.pop(h_t, h_c, h_pos, n_heap)[2]
        if key > lam:
            lam = key
        # c saturates at lam: every unfrozen flow crossing it freezes into group c. First
        # its own group, whole (all its members cross c) ...
        if g_vis[c] != r:  # an empty group, reached now
            g_vis[c] = r
            g_list[n_g] = c
            n_g += 1
            before[c] = 0.0
            clock_t[c] = t0
            clock[c] = 0.0
        if g_done[c] != r:
            _freeze_group(c, lam, filled, weight, left, rseg, rw, rk, rmeta)
            unfrozen -= size[c]
            g_done[c] = r
            level[c] = lam
        lam_c = level[c]  # lam, or the level of a tie that froze the group (below)
        # ... then the flows of the other unfrozen groups that cross it (a snapshot of the
        # column: moving flows changes it) ...
        n_snap = 0
        n_mv = 0
        for p in range(cmeta[c, 0], cmeta[c, 0] + cmeta[c, 2]):
            g = cseg[p] & _LOW
            if g_done[g] != r:
                snap[n_snap] = g
                n_snap += 1
        for j in range(n_snap):
            g = snap[j]
            # a tie: g's own constraint saturates at lam too (to TIE), so its flows keep
            # their group, frozen now, instead of changing group and back at every re-solve
            key_g = (capacity[g] - filled[g]) / weight[g]
            if key_g <= lam_c * (1.0 + TIE):
                lam_g = max(lam_c, key_g)
                _freeze_group(g, lam_g, filled, weight, left, rseg, rw, rk, rmeta)
                unfrozen -= size[g]
                g_done[g] = r
                level[g] = lam_g
                continue
            # g's members crossing c: the member list of entry (g, c) (a route crossing c
            # twice is in it twice)
            h = _hash(g, c, bits)
            x = bucket[h]
            while ids[x, 0] != g or ids[x, 1] != c:
                x = pos[x, 2]
            node = head[x]
            while node >= 0:
                sl = node // width
                if s_done[sl] != r:
                    s_done[sl] = r
                    mv_slot[n_mv] = sl
                    mv_from[n_mv] = g
                    mv_rem[n_mv] = tag[sl] - clock[g]
                    n_mv += 1
                    _remove(sl, g, root, tag, ph)
                    size[g] -= 1
                node = mnext[node]
        # ... and the new flows crossing it, which started at slot_t >= t0: by then the
        # group's clock had run lam * (slot_t - t0)
        k = c_rank[c]
        if 0 <= k < n_seeds and seeds[k] == c:
            for p in range(fr_ptr[k], fr_ptr[k + 1]):
                sl = fr_ent[p] >> 32
                if s_done[sl] == r:
                    continue
                s_done[sl] = r
                mv_slot[n_mv] = sl
                mv_from[n_mv] = -1
                mv_rem[n_mv] = lam_c * (slot_t[sl] - t0) + slot_bytes[sl]
                n_mv += 1
        # they freeze at lam_c and join group c: out of their old group's entries, into
        # c's (written out: an inlined call increfs its array arguments)
        unfrozen -= n_mv
        for m in range(n_mv):
            sl = mv_slot[m]
            g = mv_from[m]
            if size[c] == 0:
                clock[c] = 0.0
            tag[sl] = clock[c] + mv_rem[m]
            ph[sl, 0] = -1
            ph[sl, 1] = -1
            ph[sl, 2] = -1
            root[c] = _meld(root[c], sl, tag, ph)
            size[c] += 1
            grp[sl] = c
            path = slot_path[sl]
            for e in range(indptr[path], indptr[path + 1]):
                c2 = link[e]
                w = frac[e]
                filled[c2] += w * lam_c
                weight[c2] -= w
                left[c2] -= 1
                node = sl * width + e - indptr[path]
                if g >= 0:
                    h = _hash(g, c2, bits)
                    x = bucket[h]
                    while ids[x, 0] != g or ids[x, 1] != c2:
                        x = pos[x, 2]
                    _unlink(node, head, mnext, mprev)
                    p = pos[x, 0]
                    rk[p] -= 1
                    if rk[p] > 0:
                        rw[p] -= w
                        cw[pos[x, 1]] -= w
                    else:
                        _drop(x, g, c2, h, ids, pos, bucket, free, ecnt, rseg, rw, rk, rmeta,
                              cseg, cw, cmeta)
                h = _hash(c, c2, bits)
                x = bucket[h]
                while x >= 0 and (ids[x, 0] != c or ids[x, 1] != c2):
                    x = pos[x, 2]
                if x < 0:
                    x = _new_entry(c, c2, h, ids, head, pos, bucket, free, ecnt, rseg, rw, rk,
                                   rmeta, cseg, cw, cmeta)
                _link(node, x, head, mnext, mprev)
                p = pos[x, 0]
                rw[p] += w
                rk[p] += 1
                cw[pos[x, 1]] += w
    for j in range(n_heap):  # the heap's slots, free for the next solve
        h_pos[h_c[j]] = -1
    return n_c, n_g
