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

No array is ever reallocated inside the event loop (but the incremental solver's scratch
for a re-solved group, which doubles when it is outgrown): arrays sized by the op count
are allocated uninitialised, so only the pages that concurrent flows use are touched.

Shape of the code
-----------------
:func:`run` takes the fabric and the ops as two named tuples of arrays (:class:`Fabric`,
:class:`Ops`) and returns an :class:`Output`. Its state is a handful of named tuples
(:class:`_Lists`, :class:`_Flows`, :class:`_Books`, :class:`_Queue`) plus two small
arrays of counters (``_I_*``, ``_F_*`` index them), so a helper can change a count in
place. The per-event helpers are inlined into the batch loop (``inline="always"``):
numba increfs every array of a call's arguments, which per event would cost more than
the event.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit
from . import bins, heap
from .fairness import fill_components, solo_rates
from .repair import certify, new_alloc, new_work, repair

__all__ = ["Fabric", "Ops", "Output", "run"]

DEP_SENT = 1  # nvlearn.schedule.DEP_SENT; any other kind waits for the arrival
#: Entries each link's flow list has before it moves to its spill segment.
LIST_SLOTS = 8

# counters kept in an int64 array (a helper changes them in place) ...
_I_HEAP, _I_FREE, _I_USED, _I_ACTIVE, _I_DIRTY, _I_FRESH, _I_STACK, _I_STAMP = range(8)
_I_EVENTS, _I_BATCHES = 8, 9
# ... and the float ones: bin width (s), last timeline update (s), summed flow rates (B/s)
_F_WIDTH, _F_T_AGG, _F_RATE = range(3)


class Fabric(NamedTuple):
    """The fabric as the engine sees it: capacity constraints and routes over them."""

    capacity: np.ndarray      # bytes/s per link (or class of equivalent links)
    path_indptr: np.ndarray   # route p crosses path_link[path_indptr[p]:path_indptr[p + 1]]
    path_link: np.ndarray
    path_frac: np.ndarray     # share of the route's bytes on each of those links
    path_latency: np.ndarray  # seconds from a transfer's end to its data's arrival


class Ops(NamedTuple):
    """The ops: one transfer each, with dependencies (CSR)."""

    bytes: np.ndarray
    delay: np.ndarray         # seconds from ready to the transfer's start
    path: np.ndarray          # route index per op
    src: np.ndarray           # participant sending
    dst: np.ndarray           # participant receiving
    dep_indptr: np.ndarray    # op i waits for dep_op[dep_indptr[i]:dep_indptr[i + 1]]
    dep_op: np.ndarray
    dep_kind: np.ndarray      # DEP_SENT, or any other value: wait for the arrival
    n_participants: int


class Output(NamedTuple):
    """What :func:`run` returns. Times in seconds (NaN for ops that never started /
    finished); ``timeline`` has one row per link (bytes per bin) and two more: bytes moved
    by all ops, and op-seconds of transfers in progress, per bin."""

    ready: np.ndarray
    start: np.ndarray
    sent: np.ndarray
    end: np.ndarray
    pending: np.ndarray       # unmet dependencies per op
    link_bytes: np.ndarray
    busy: np.ndarray          # seconds each link carried traffic
    bins: np.ndarray
    width: float              # seconds per bin
    send_busy: np.ndarray     # seconds each participant was sending
    recv_busy: np.ndarray
    n_events: int
    n_batches: int


class _Lists(NamedTuple):
    """Per link: its list of flows (``op << 32 | route entry``) and the batch stamps."""

    base: np.ndarray
    cap: np.ndarray
    spill: np.ndarray
    ent: np.ndarray
    n: np.ndarray
    dirty: np.ndarray         # stamp of the batch that last touched the link
    seeds: np.ndarray         # the links touched in this batch
    vis: np.ndarray           # scratch of the full re-solve


class _Flows(NamedTuple):
    """The transfers in progress, in reused slots."""

    op_slot: np.ndarray       # per op: its slot, -1 if not transferring
    op: np.ndarray
    path: np.ndarray
    rem: np.ndarray           # bytes left at time t
    rate: np.ndarray          # bytes/s since t
    new: np.ndarray           # rate being computed
    t: np.ndarray
    vis: np.ndarray           # scratch of the full re-solve
    frozen: np.ndarray
    free: np.ndarray          # stack of free slots
    fresh: np.ndarray         # slots started in this batch


class _Books(NamedTuple):
    """Accounting: link rates and busy time, the timeline, per-participant activity."""

    lk_rate: np.ndarray
    lk_t: np.ndarray
    busy: np.ndarray
    timeline: np.ndarray
    path_bytes: np.ndarray
    send_n: np.ndarray
    recv_n: np.ndarray
    send_t0: np.ndarray
    recv_t0: np.ndarray
    send_busy: np.ndarray
    recv_busy: np.ndarray


class _Queue(NamedTuple):
    """Event heap, the ops to start within this batch, dependencies and op times."""

    h_t: np.ndarray
    h_op: np.ndarray
    h_pos: np.ndarray
    stack_op: np.ndarray
    stack_t: np.ndarray
    out_ptr: np.ndarray
    out_op: np.ndarray
    out_kind: np.ndarray
    pending: np.ndarray
    ready: np.ndarray
    start: np.ndarray
    sent: np.ndarray
    end: np.ndarray


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
def _new_lists(n_lk, ops, fabric):
    base, cap, spill, pool_size = _link_pool(n_lk, ops.path, fabric.path_indptr,
                                             fabric.path_link)
    return _Lists(base, cap, spill, np.empty(pool_size, np.int64), np.zeros(n_lk, np.int64),
                  np.zeros(n_lk, np.int64), np.empty(n_lk, np.int32), np.zeros(n_lk, np.int64))


@njit
def _new_flows(n_ops):
    return _Flows(np.full(n_ops, -1, np.int32), np.empty(n_ops, np.int32),
                  np.empty(n_ops, np.int32), np.empty(n_ops), np.empty(n_ops), np.empty(n_ops),
                  np.empty(n_ops), np.zeros(n_ops, np.int64), np.zeros(n_ops, np.int64),
                  np.empty(n_ops, np.int32), np.empty(n_ops, np.int32))


@njit
def _new_books(n_lk, n_paths, n_part, n_bins):
    return _Books(np.zeros(n_lk), np.zeros(n_lk), np.zeros(n_lk), np.zeros((n_lk + 2, n_bins)),
                  np.zeros(n_paths), np.zeros(n_part, np.int64), np.zeros(n_part, np.int64),
                  np.zeros(n_part), np.zeros(n_part), np.zeros(n_part), np.zeros(n_part))


@njit
def _new_queue(ops):
    n_ops = ops.bytes.shape[0]
    out_ptr, out_op, out_kind, pending = _dependents(n_ops, ops.dep_indptr, ops.dep_op,
                                                     ops.dep_kind)
    return _Queue(np.empty(n_ops), np.empty(n_ops, np.int32), np.full(n_ops, -1, np.int32),
                  np.empty(n_ops, np.int32), np.empty(n_ops), out_ptr, out_op, out_kind,
                  pending, np.zeros(n_ops), np.full(n_ops, np.nan), np.full(n_ops, np.nan),
                  np.full(n_ops, np.nan))


@njit(inline="always")
def _touch(lk, lists, cnt):
    """Mark link ``lk`` as touched in this batch (once)."""
    if lists.dirty[lk] != cnt[_I_STAMP]:
        lists.dirty[lk] = cnt[_I_STAMP]
        lists.seeds[cnt[_I_DIRTY]] = lk
        cnt[_I_DIRTY] += 1


@njit(inline="always")
def _start(i, t, fabric, ops, lists, flows, books, alloc, cnt):
    """Op ``i``'s transfer starts at ``t``: a slot, an entry in each link's list."""
    path = ops.path[i]
    if cnt[_I_FREE] > 0:
        cnt[_I_FREE] -= 1
        sl = flows.free[cnt[_I_FREE]]
    else:
        sl = cnt[_I_USED]
        cnt[_I_USED] += 1
    flows.op_slot[i] = sl
    flows.op[sl] = i
    flows.path[sl] = path
    flows.rem[sl] = ops.bytes[i]
    flows.rate[sl] = 0.0
    flows.t[sl] = t
    alloc.bn[sl] = -1
    flows.fresh[cnt[_I_FRESH]] = sl
    cnt[_I_FRESH] += 1
    for e in range(fabric.path_indptr[path], fabric.path_indptr[path + 1]):
        lk = fabric.path_link[e]
        alloc.count[lk] += 1
        n = lists.n[lk]
        if n == lists.cap[lk]:  # outgrew its slots: move to the spill
            lists.ent[lists.spill[lk]:lists.spill[lk] + n] = lists.ent[
                lists.base[lk]:lists.base[lk] + n]
            lists.base[lk] = lists.spill[lk]
            lists.cap[lk] = lists.ent.shape[0]
        lists.ent[lists.base[lk] + n] = (np.int64(i) << 32) | e
        lists.n[lk] = n + 1
        _touch(lk, lists, cnt)
    cnt[_I_ACTIVE] += 1
    s = ops.src[i]
    if books.send_n[s] == 0:
        books.send_t0[s] = t
    books.send_n[s] += 1
    d = ops.dst[i]
    if books.recv_n[d] == 0:
        books.recv_t0[d] = t
    books.recv_n[d] += 1


@njit(inline="always")
def _finish(i, t, fabric, ops, lists, flows, books, alloc, cnt, rate):
    """Op ``i``'s transfer ends at ``t``: its slot is freed, its links touched."""
    sl = flows.op_slot[i]
    path = ops.path[i]
    rate[_F_RATE] -= flows.rate[sl]
    cnt[_I_ACTIVE] -= 1
    if cnt[_I_ACTIVE] == 0:
        rate[_F_RATE] = 0.0
    books.path_bytes[path] += ops.bytes[i]
    if alloc.bn[sl] >= 0:
        alloc.n_bn[alloc.bn[sl]] -= 1
    for e in range(fabric.path_indptr[path], fabric.path_indptr[path + 1]):
        lk = fabric.path_link[e]
        alloc.count[lk] -= 1
        alloc.load[lk] -= fabric.path_frac[e] * flows.rate[sl]
        _touch(lk, lists, cnt)
    flows.op_slot[i] = -1
    flows.free[cnt[_I_FREE]] = sl
    cnt[_I_FREE] += 1
    s = ops.src[i]
    books.send_n[s] -= 1
    if books.send_n[s] == 0:
        books.send_busy[s] += t - books.send_t0[s]
    d = ops.dst[i]
    books.recv_n[d] -= 1
    if books.recv_n[d] == 0:
        books.recv_busy[d] += t - books.recv_t0[d]


@njit(inline="always")
def _release(i, t, horizon, fabric, ops, q, cnt):
    """Op ``i`` is sent at ``t``: release the ops waiting for it (sent: now; arrival: after
    the route latency); those that start within the batch go on its stack."""
    q.sent[i] = t
    q.end[i] = t + fabric.path_latency[ops.path[i]]
    for k in range(q.out_ptr[i], q.out_ptr[i + 1]):
        j = q.out_op[k]
        tj = t if q.out_kind[k] == DEP_SENT else q.end[i]
        if tj > q.ready[j]:
            q.ready[j] = tj
        q.pending[j] -= 1
        if q.pending[j] == 0:
            ts = q.ready[j] + ops.delay[j]
            if ts <= horizon:
                q.stack_op[cnt[_I_STACK]] = j
                q.stack_t[cnt[_I_STACK]] = ts
                cnt[_I_STACK] += 1
            else:
                cnt[_I_HEAP] = heap.push(q.h_t, q.h_op, q.h_pos, cnt[_I_HEAP], ts, j)


@njit
def _batch(horizon, fabric, ops, lists, flows, books, q, alloc, cnt, rate):
    """Every event up to ``horizon``: ops released within the batch first, then the heap.
    One function, not one per kind of event, so nothing is called per event."""
    while True:
        if cnt[_I_STACK] > 0:
            cnt[_I_STACK] -= 1
            i = q.stack_op[cnt[_I_STACK]]
            t = q.stack_t[cnt[_I_STACK]]
        elif cnt[_I_HEAP] > 0 and q.h_t[0] <= horizon:
            t, i, n_heap = heap.pop(q.h_t, q.h_op, q.h_pos, cnt[_I_HEAP])
            cnt[_I_HEAP] = n_heap
        else:
            return
        cnt[_I_EVENTS] += 1
        path = ops.path[i]
        routed = fabric.path_indptr[path] < fabric.path_indptr[path + 1]
        if flows.op_slot[i] < 0:  # the op's transfer starts
            q.start[i] = t
            if routed:
                _start(i, t, fabric, ops, lists, flows, books, alloc, cnt)
                continue
            # an empty route (src == dst): the transfer ends as it starts
        else:
            _finish(i, t, fabric, ops, lists, flows, books, alloc, cnt, rate)
        _release(i, t, horizon, fabric, ops, q, cnt)


@njit
def _resolve(t0, fabric, lists, flows, books, q, alloc, work, sub, scratch, cnt, rate,
             repair_share):
    """New rates after a batch: the incremental repair, or (if it gives up, or
    ``repair_share`` is 0) a full re-solve of the touched components; then the books.
    Returns the repair's scratch ``sub``."""
    comp_links, comp_slots, solo, weight, load, unfrozen = scratch
    n_dirty, stamp = cnt[_I_DIRTY], cnt[_I_STAMP]
    nl, ns = 0, -1
    if repair_share > 0.0:
        nl, ns, sub = repair(lists.seeds, n_dirty, flows.fresh, cnt[_I_FRESH], stamp,
                             fabric.capacity, lists.base, lists.n, lists.ent, flows.op_slot,
                             flows.path, flows.rate, flows.new, fabric.path_indptr,
                             fabric.path_link, fabric.path_frac, alloc, work, sub, comp_links,
                             comp_slots, int(repair_share * cnt[_I_ACTIVE]))
    if ns < 0:
        nl, ns = fill_components(lists.seeds, n_dirty, stamp, fabric.capacity, lists.base,
                                 lists.n, lists.ent, lists.vis, flows.op_slot, flows.path,
                                 flows.vis, fabric.path_indptr, fabric.path_link,
                                 fabric.path_frac, solo, comp_links, comp_slots, flows.new,
                                 alloc.bn, flows.frozen, weight, load, unfrozen)
        _list_loads(nl, comp_links, lists.base, lists.n, lists.ent, fabric.path_frac,
                    flows.op_slot, flows.new, alloc.load)
        certify(nl, comp_links, ns, comp_slots, flows.path, flows.new, fabric.path_indptr,
                fabric.path_link, fabric.path_frac, fabric.capacity, alloc)
    cnt[_I_HEAP], rate[_F_WIDTH], change = _apply_rates(
        t0, nl, ns, comp_links, comp_slots, alloc.load, books.lk_rate, books.lk_t, books.busy,
        books.timeline, rate[_F_WIDTH], flows.op, flows.rem, flows.rate, flows.new, flows.t,
        q.h_t, q.h_op, q.h_pos, cnt[_I_HEAP])
    rate[_F_RATE] += change
    return sub


@njit
def run(fabric, ops, n_bins, bin_width, rtol, repair_share):
    """Run the ops to completion on the fabric; see the module docstring for the model.

    ``n_bins`` and ``bin_width`` (s) start the timeline; events closer than ``rtol``
    (relative) are one batch; ``repair_share`` is the largest share of the flows in
    progress an incremental re-solve may touch (0: always re-solve components whole).
    Returns an :class:`Output`.

    Parameters
    ----------
    fabric : Fabric
        The links' capacities (bytes/s per direction, > 0 on every link a route crosses; a
        link may stand for a class of equivalent links,
        :func:`~nvlearn.sim.constraints.merge_equivalent_links`), the routes over them
        (CSR) and each route's latency (seconds, >= 0).
    ops : Ops
        The transfers: bytes (>= 0), delays (seconds, >= 0), route indices into ``fabric``,
        sending and receiving participants (``0 <= p < ops.n_participants``) and
        dependencies (CSR). An op on a dependency cycle never becomes ready.
    n_bins : int
        Bins of the timeline, even and >= 2; the width doubles as time passes the last
        bin (:mod:`nvlearn.sim.bins`), so the count stays fixed.
    bin_width : float
        The first bin width, seconds (> 0).
    rtol : float
        Events within ``rtol * |t|`` of the earliest pending time ``t`` are one batch
        (relative, >= 0; :data:`nvlearn.sim.api.BATCH_RTOL` by default in
        :func:`~nvlearn.sim.simulate`).
    repair_share : float
        Largest share of the flows in progress (0 to 1) the incremental re-solve
        (:func:`nvlearn.sim.repair.repair`) may grow to; 0 always re-solves the touched
        components whole.

    Returns
    -------
    Output
        Per-op ready, start, sent and end times (seconds; start, sent and end are NaN for
        ops that never got there), unmet dependencies, per-link bytes and busy seconds, the timeline
        (``n_links + 2`` rows of bytes per bin; the width in seconds), per-participant
        send and receive busy seconds, and the event and batch counts.
    """
    n_ops, n_lk = ops.bytes.shape[0], fabric.capacity.shape[0]
    lists = _new_lists(n_lk, ops, fabric)
    flows = _new_flows(n_ops)
    books = _new_books(n_lk, fabric.path_indptr.shape[0] - 1, ops.n_participants, n_bins)
    q = _new_queue(ops)
    alloc, work = new_alloc(n_lk, n_ops), new_work(n_lk, n_ops)
    sub = np.empty(4 * n_lk + 64, np.int64)
    scratch = (np.empty(n_lk, np.int32), np.empty(n_ops, np.int32),
               solo_rates(fabric.capacity, fabric.path_indptr, fabric.path_link,
                          fabric.path_frac), np.empty(n_lk), np.empty(n_lk),
               np.empty(n_lk, np.int64))
    cnt = np.zeros(10, np.int64)
    rate = np.array([bin_width, 0.0, 0.0])
    for i in range(n_ops):
        if q.pending[i] == 0:
            cnt[_I_HEAP] = heap.push(q.h_t, q.h_op, q.h_pos, cnt[_I_HEAP], ops.delay[i],
                                     np.int32(i))
    while cnt[_I_HEAP] > 0:
        t0 = q.h_t[0]
        cnt[_I_STAMP] += 1
        if t0 > rate[_F_T_AGG]:  # close the interval of the summed rows
            rate[_F_WIDTH] = bins.fit(books.timeline, rate[_F_WIDTH], t0)
            bins.add(books.timeline, np.int64(n_lk), rate[_F_T_AGG], t0, rate[_F_RATE],
                     rate[_F_WIDTH])
            bins.add(books.timeline, np.int64(n_lk + 1), rate[_F_T_AGG], t0,
                     float(cnt[_I_ACTIVE]), rate[_F_WIDTH])
            rate[_F_T_AGG] = t0
        cnt[_I_DIRTY] = 0
        cnt[_I_FRESH] = 0
        _batch(t0 + rtol * abs(t0), fabric, ops, lists, flows, books, q, alloc, cnt, rate)
        if cnt[_I_DIRTY] > 0:
            cnt[_I_BATCHES] += 1
            sub = _resolve(t0, fabric, lists, flows, books, q, alloc, work, sub, scratch, cnt,
                           rate, repair_share)
    return _output(fabric, books, q, cnt, rate[_F_WIDTH])


@njit
def _output(fabric, books, q, cnt, width):
    link_bytes = np.zeros(fabric.capacity.shape[0])
    for path in range(books.path_bytes.shape[0]):
        for e in range(fabric.path_indptr[path], fabric.path_indptr[path + 1]):
            link_bytes[fabric.path_link[e]] += books.path_bytes[path] * fabric.path_frac[e]
    return Output(q.ready, q.start, q.sent, q.end, q.pending, link_bytes, books.busy,
                  books.timeline, width, books.send_busy, books.recv_busy, cnt[_I_EVENTS],
                  cnt[_I_BATCHES])
