"""The flow-level, event-driven engine (numba): ops with dependencies on a fabric of links.

Model
-----
* An op becomes *ready* when all its dependencies are satisfied: ``DEP_ARRIVAL`` waits for
  the dependency's data to arrive (transfer end + route latency), ``DEP_SENT`` only for its
  transfer to end (the sender is free again). Its transfer starts ``delay`` seconds later.
* Between events every transferring op (a *flow*) has a constant rate, set by weighted
  max-min fairness over the links it crosses (:mod:`nvlearn.sim.fairness`). An op whose
  route is empty (src == dst) transfers instantly.
* Events closer than a relative ``rtol`` are one batch; rates are recomputed once per batch,
  and only for the connected components (flows linked by shared links) the batch touched.
  A flow's finish time is ``t_rate_change + remaining / rate``, so on an uncontended fabric
  (one rate per flow) times equal the closed forms to rounding.

Data structures (all flat arrays)
---------------------------------
* an indexed event heap (:mod:`nvlearn.sim.heap`): each op waits in it once, for its
  transfer to start, then for it to end (moved in place when the flow's rate changes);
* per link, a list of the flows crossing it (``lk_ent``): a few slots side by side with
  the other links' (so the lists of a fabric stay in cache), moved once to a segment with
  room for every op that ever crosses the link if they overflow; finished flows are
  dropped lazily;
* *slots*: state of the flows in progress (remaining bytes, rate, last update), reused.

No array is ever reallocated inside the event loop: arrays sized by the op count are
allocated uninitialised, so only the pages that concurrent flows use are touched.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from . import bins, heap
from .fairness import fill_components, solo_rates
from .repair import certify, new_alloc, new_work, repair

DEP_SENT = 1  # nvlearn.schedule.DEP_SENT; any other kind waits for the arrival
#: Entries each link's flow list has before it moves to its spill segment.
LIST_SLOTS = 8


@njit
def _list_loads(n_links, comp_links, lk_base, lk_n, lk_ent, path_frac, op_slot, slot_new,
                load):
    """``load[lk]``: the summed ``frac * rate`` of the flows on each listed link's list."""
    for j in range(n_links):
        lk = comp_links[j]
        new = 0.0
        off = lk_base[lk]
        for p in range(off, off + lk_n[lk]):
            ent = lk_ent[p]
            new += path_frac[ent & 0xFFFFFFFF] * slot_new[op_slot[ent >> 32]]
        load[lk] = new


@njit
def _apply_rates(tb, n_links, n_slots, comp_links, comp_slots, link_new, lk_rate, lk_t, busy,
                 timeline, width, slot_op, slot_rem, slot_rate, slot_new, slot_t, h_t, h_op,
                 h_pos, n_heap):
    """Close the constant-rate interval ending at ``tb`` on the links touched, install the
    new link loads ``link_new`` and flow rates, and (re)schedule the flows' end times.
    Returns ``(n_heap, width, change)`` with ``change`` the change of the summed flow rates
    (bytes/s)."""
    width = bins.fit(timeline, width, tb)
    n_bins = timeline.shape[1]
    for j in range(n_links):
        lk = comp_links[j]
        new = link_new[lk]
        r = lk_rate[lk]
        if new == r:
            continue  # the link's load goes on unchanged: its books stay open
        a = lk_t[lk]
        if tb > a and r > 0.0:
            busy[lk] += tb - a
            i = min(int(a / width), n_bins - 1)
            while a < tb:  # bins.add, written out
                edge = (i + 1) * width
                if edge >= tb or i >= n_bins - 1:
                    edge = tb
                timeline[lk, i] += r * (edge - a)
                a = edge
                i += 1
        lk_t[lk] = tb
        lk_rate[lk] = new
    change = 0.0
    for j in range(n_slots):
        sl = comp_slots[j]
        new = slot_new[sl]
        old = slot_rate[sl]
        if new == old:
            continue
        if old > 0.0:
            rem = slot_rem[sl] - old * (tb - slot_t[sl])
            slot_rem[sl] = rem if rem > 0.0 else 0.0
            slot_t[sl] = tb
        slot_rate[sl] = new
        change += new - old
        if new > 0.0:
            t_end = slot_t[sl] + slot_rem[sl] / new if new < np.inf else slot_t[sl]
            op = slot_op[sl]
            if h_pos[op] >= 0:
                heap.update(h_t, h_op, h_pos, n_heap, op, t_end)
            else:
                n_heap = heap.push(h_t, h_op, h_pos, n_heap, t_end, op)
    return n_heap, width, change


@njit
def _dependents(n_ops, dep_indptr, dep_op, dep_kind):
    """Reverse of the dependency CSR: ``(out_ptr, out_op, out_kind, pending)``."""
    n_deps = dep_op.shape[0]
    out_ptr = np.zeros(n_ops + 1, np.int64)
    for d in range(n_deps):
        out_ptr[dep_op[d] + 1] += 1
    for i in range(n_ops):
        out_ptr[i + 1] += out_ptr[i]
    cursor = out_ptr[:-1].copy()
    out_op = np.empty(n_deps, np.int32)
    out_kind = np.empty(n_deps, np.int8)
    pending = np.empty(n_ops, np.int32)
    for i in range(n_ops):
        pending[i] = dep_indptr[i + 1] - dep_indptr[i]
        for d in range(dep_indptr[i], dep_indptr[i + 1]):
            q = cursor[dep_op[d]]
            out_op[q] = i
            out_kind[q] = dep_kind[d]
            cursor[dep_op[d]] = q + 1
    return out_ptr, out_op, out_kind, pending


@njit
def _link_pool(n_links, op_path, path_indptr, path_link):
    """Layout of the per-link flow lists: ``(lk_base, lk_cap, lk_spill, size)``.

    List ``lk`` starts in ``LIST_SLOTS`` entries at ``lk_base = lk * LIST_SLOTS``; the
    spill segment at ``lk_spill[lk]`` has room for every op that ever crosses the link.
    """
    ops_on_path = np.zeros(path_indptr.shape[0] - 1, np.int64)
    for i in range(op_path.shape[0]):
        ops_on_path[op_path[i]] += 1
    crossing = np.zeros(n_links, np.int64)
    for path in range(ops_on_path.shape[0]):
        for e in range(path_indptr[path], path_indptr[path + 1]):
            crossing[path_link[e]] += ops_on_path[path]
    lk_base = np.arange(n_links) * LIST_SLOTS
    lk_cap = np.full(n_links, LIST_SLOTS, np.int64)
    lk_spill = np.empty(n_links, np.int64)
    size = n_links * LIST_SLOTS
    for lk in range(n_links):
        lk_spill[lk] = size
        size += crossing[lk]
    return lk_base, lk_cap, lk_spill, size


@njit
def run(link_cap, op_bytes, op_delay, op_path, op_src, op_dst, path_indptr, path_link,
        path_frac, path_latency, dep_indptr, dep_op, dep_kind, n_participants, n_bins,
        bin_width, rtol, repair_share):
    """Run the ops to completion. See the module docstring for the model.

    Returns
    -------
    tuple
        ``(ready, start, sent, end, pending, link_bytes, link_busy, timeline, bin_width,
        send_busy, recv_busy, n_events, n_batches)``. Times in seconds (NaN for ops that
        never started / finished); ``pending`` counts unmet dependencies per op;
        ``timeline`` has one row per link (bytes per bin) and two more: bytes moved by all
        ops, and op-seconds of transfers in progress, per bin.
    """
    n_ops = op_bytes.shape[0]
    n_lk = link_cap.shape[0]
    out_ptr, out_op, out_kind, pending = _dependents(n_ops, dep_indptr, dep_op, dep_kind)
    ready = np.zeros(n_ops)
    start = np.full(n_ops, np.nan)
    sent = np.full(n_ops, np.nan)
    end = np.full(n_ops, np.nan)

    lk_base, lk_cap, lk_spill, pool_size = _link_pool(n_lk, op_path, path_indptr, path_link)
    lk_ent = np.empty(pool_size, np.int64)
    lk_n = np.zeros(n_lk, np.int64)
    lk_rate = np.zeros(n_lk)
    lk_t = np.zeros(n_lk)
    lk_dirty = np.zeros(n_lk, np.int64)
    lk_vis = np.zeros(n_lk, np.int64)
    path_bytes = np.zeros(path_indptr.shape[0] - 1)
    path_solo = solo_rates(link_cap, path_indptr, path_link, path_frac)
    busy = np.zeros(n_lk)
    dirty = np.empty(n_lk, np.int32)
    comp_links = np.empty(n_lk, np.int32)
    weight = np.empty(n_lk)
    load = np.empty(n_lk)
    unfrozen = np.empty(n_lk, np.int64)

    # flow slots: state of the transfers in progress, reused
    slot_op = np.empty(n_ops, np.int32)
    slot_path = np.empty(n_ops, np.int32)
    slot_rem = np.empty(n_ops)
    slot_rate = np.empty(n_ops)
    slot_new = np.empty(n_ops)
    slot_t = np.empty(n_ops)
    sl_vis = np.zeros(n_ops, np.int64)
    sl_frozen = np.zeros(n_ops, np.int64)
    comp_slots = np.empty(n_ops, np.int32)
    free = np.empty(n_ops, np.int32)
    n_free = 0
    n_used = 0
    op_slot = np.full(n_ops, -1, np.int32)
    alloc = new_alloc(n_lk, n_ops)
    work = new_work(n_lk, n_ops)
    sub = np.empty(4 * n_lk + 64, np.int64)
    fresh = np.empty(n_ops, np.int32)

    send_n = np.zeros(n_participants, np.int64)
    recv_n = np.zeros(n_participants, np.int64)
    send_t0 = np.zeros(n_participants)
    recv_t0 = np.zeros(n_participants)
    send_busy = np.zeros(n_participants)
    recv_busy = np.zeros(n_participants)

    timeline = np.zeros((n_lk + 2, n_bins))
    width = bin_width
    t_agg = 0.0
    total_rate = 0.0
    n_active = 0

    h_t = np.empty(n_ops)
    h_op = np.empty(n_ops, np.int32)
    h_pos = np.full(n_ops, -1, np.int32)
    n_heap = np.int64(0)
    stack_op = np.empty(n_ops, np.int32)
    stack_t = np.empty(n_ops)
    for i in range(n_ops):
        if pending[i] == 0:
            n_heap = heap.push(h_t, h_op, h_pos, n_heap, op_delay[i], np.int32(i))

    stamp = np.int64(0)
    n_events = 0
    n_batches = 0
    while n_heap > 0:
        t0 = h_t[0]
        horizon = t0 + rtol * abs(t0)
        stamp += 1
        if t0 > t_agg:
            width = bins.fit(timeline, width, t0)
            bins.add(timeline, np.int64(n_lk), t_agg, t0, total_rate, width)
            bins.add(timeline, np.int64(n_lk + 1), t_agg, t0, float(n_active), width)
            t_agg = t0
        n_dirty = np.int64(0)
        n_fresh = 0
        n_stack = 0
        while True:
            # next event of this batch: an op to start now, or a heap entry in the horizon
            if n_stack > 0:
                n_stack -= 1
                i = stack_op[n_stack]
                t = stack_t[n_stack]
            elif n_heap > 0 and h_t[0] <= horizon:
                t, i, n_heap = heap.pop(h_t, h_op, h_pos, n_heap)
            else:
                break
            n_events += 1
            path = op_path[i]
            e0 = path_indptr[path]
            e1 = path_indptr[path + 1]
            sl = op_slot[i]
            if sl < 0:  # the op's transfer starts
                start[i] = t
                if e0 < e1:
                    if n_free > 0:
                        n_free -= 1
                        sl = free[n_free]
                    else:
                        sl = n_used
                        n_used += 1
                    op_slot[i] = sl
                    slot_op[sl] = i
                    slot_path[sl] = path
                    slot_rem[sl] = op_bytes[i]
                    slot_rate[sl] = 0.0
                    slot_t[sl] = t
                    alloc.bn[sl] = -1
                    fresh[n_fresh] = sl
                    n_fresh += 1
                    for e in range(e0, e1):
                        lk = path_link[e]
                        alloc.count[lk] += 1
                        if lk_n[lk] == lk_cap[lk]:  # outgrew its slots: move to the spill
                            lk_ent[lk_spill[lk]:lk_spill[lk] + lk_n[lk]] = lk_ent[
                                lk_base[lk]:lk_base[lk] + lk_n[lk]]
                            lk_base[lk] = lk_spill[lk]
                            lk_cap[lk] = pool_size
                        q = lk_base[lk] + lk_n[lk]
                        lk_ent[q] = (np.int64(i) << 32) | e
                        lk_n[lk] += 1
                        if lk_dirty[lk] != stamp:
                            lk_dirty[lk] = stamp
                            dirty[n_dirty] = lk
                            n_dirty += 1
                    n_active += 1
                    s = op_src[i]
                    if send_n[s] == 0:
                        send_t0[s] = t
                    send_n[s] += 1
                    d = op_dst[i]
                    if recv_n[d] == 0:
                        recv_t0[d] = t
                    recv_n[d] += 1
                    continue
                # an empty route (src == dst): the transfer ends as it starts
            else:  # the op's transfer ends
                total_rate -= slot_rate[sl]
                n_active -= 1
                if n_active == 0:
                    total_rate = 0.0
                path_bytes[path] += op_bytes[i]
                if alloc.bn[sl] >= 0:
                    alloc.n_bn[alloc.bn[sl]] -= 1
                for e in range(e0, e1):
                    lk = path_link[e]
                    alloc.count[lk] -= 1
                    alloc.load[lk] -= path_frac[e] * slot_rate[sl]
                    if lk_dirty[lk] != stamp:
                        lk_dirty[lk] = stamp
                        dirty[n_dirty] = lk
                        n_dirty += 1
                op_slot[i] = -1
                free[n_free] = sl
                n_free += 1
                s = op_src[i]
                send_n[s] -= 1
                if send_n[s] == 0:
                    send_busy[s] += t - send_t0[s]
                d = op_dst[i]
                recv_n[d] -= 1
                if recv_n[d] == 0:
                    recv_busy[d] += t - recv_t0[d]
            sent[i] = t
            end[i] = t + path_latency[path]
            # release the ops waiting for this one (sent: now; arrival: after the latency)
            for k in range(out_ptr[i], out_ptr[i + 1]):
                j = out_op[k]
                tj = t if out_kind[k] == DEP_SENT else end[i]
                if tj > ready[j]:
                    ready[j] = tj
                pending[j] -= 1
                if pending[j] == 0:
                    ts = ready[j] + op_delay[j]
                    if ts <= horizon:
                        stack_op[n_stack] = j
                        stack_t[n_stack] = ts
                        n_stack += 1
                    else:
                        n_heap = heap.push(h_t, h_op, h_pos, n_heap, ts, j)
        if n_dirty == 0:
            continue
        n_batches += 1
        ns = -1
        if repair_share > 0.0:
            nl, ns, sub = repair(dirty, n_dirty, fresh, n_fresh, stamp, link_cap, lk_base,
                                 lk_n, lk_ent, op_slot, slot_path, slot_rate, slot_new,
                                 path_indptr, path_link, path_frac, alloc, work, sub,
                                 comp_links, comp_slots, int(repair_share * n_active))
        if ns < 0:
            nl, ns = fill_components(dirty, n_dirty, stamp, link_cap, lk_base, lk_n, lk_ent,
                                     lk_vis, op_slot, slot_path, sl_vis, path_indptr,
                                     path_link, path_frac, path_solo, comp_links, comp_slots,
                                     slot_new, alloc.bn, sl_frozen, weight, load, unfrozen)
            _list_loads(nl, comp_links, lk_base, lk_n, lk_ent, path_frac, op_slot, slot_new,
                        alloc.load)
            certify(nl, comp_links, ns, comp_slots, slot_path, slot_new, path_indptr,
                    path_link, path_frac, link_cap, alloc)
        n_heap, width, change = _apply_rates(
            t0, nl, ns, comp_links, comp_slots, alloc.load, lk_rate, lk_t, busy, timeline,
            width, slot_op, slot_rem, slot_rate, slot_new, slot_t, h_t, h_op, h_pos, n_heap)
        total_rate += change
    link_bytes = np.zeros(n_lk)
    for path in range(path_bytes.shape[0]):
        for e in range(path_indptr[path], path_indptr[path + 1]):
            link_bytes[path_link[e]] += path_bytes[path] * path_frac[e]
    return (ready, start, sent, end, pending, link_bytes, busy, timeline, width, send_busy,
            recv_busy, n_events, n_batches)
