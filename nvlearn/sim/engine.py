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
  Flows frozen at the same bottleneck share one rate, so they are kept in *groups*
  (:mod:`nvlearn.sim.groups`), one per constraint, each with a virtual clock (bytes served
  per flow): a flow ends when its group's clock reaches its tag (the clock when it joined
  plus its bytes left), so on an uncontended fabric times equal the closed forms to
  rounding, and a rate change costs one update per group, not per flow.

Data structures (all flat arrays)
---------------------------------
* an indexed event heap (:mod:`nvlearn.sim.heap`): each op waits in it once for its
  transfer to start; each group with flows waits in it for its next flow's end (moved in
  place when the group's rate or members change);
* the groups (:class:`nvlearn.sim.groups.Groups`): level, clock and a pairing heap of
  their flows' tags; per (group, constraint) the summed fractions, count and list of the
  group's flows (:class:`nvlearn.sim.groups.Entries`);
* *slots*: the flows in progress (op, route, bytes, start time), reused;
* per constraint, the summed fractions and the count of the flows in progress crossing it,
  and the list of the constraints some flow crosses: the solve's starting weights, and
  its constraints when its component is every flow in progress.

Arrays sized by the op count are allocated uninitialised, so only the pages that
concurrent flows use are touched; the groups' entries grow (doubling) in the solve.

Shape of the code
-----------------
:func:`run` takes the fabric and the ops as two named tuples of arrays (:class:`Fabric`,
:class:`Ops`) and returns an :class:`Output`. Its state is a handful of named tuples
(:class:`_Flows`, :class:`_Books`, :class:`_Queue`, and the groups') plus two small
arrays of counters (``_I_*``, ``_F_*`` index them), so a helper can change a count in
place. numba counts references to arrays atomically: every array a call takes (each member
of a named tuple) is incref'd and decref'd, and again each one read out of a tuple, which
per batch of one or two events once cost more than the events (a hundred arrays, 3-5 us).
So the event loop (:func:`_loop`, called once) works on lent views of the state
(:func:`nvlearn._jit.lend`: no reference count; :func:`run` holds the arrays), the
per-batch steps (:func:`_batch`, the solve, :func:`_apply`) are inlined into it
(``inline="always"``: no arguments to pass), and the solve's loops read arrays unpacked
once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import lend, njit
from . import bins, groups, heap

__all__ = ["Fabric", "Ops", "Output", "run"]

DEP_SENT = 1  # nvlearn.schedule.DEP_SENT; any other kind waits for the arrival
# counters kept in an int64 array (a helper changes them in place) ...
_I_HEAP, _I_FREE, _I_USED, _I_ACTIVE, _I_DIRTY, _I_FRESH, _I_STACK, _I_STAMP = range(8)
_I_EVENTS, _I_BATCHES, _I_ENTRIES, _I_CROSSED, _I_FRESH_ENTRIES = 8, 9, 10, 11, 12
_N_COUNTERS = 13
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


class _Flows(NamedTuple):
    """The transfers in progress, in reused slots; the constraints they cross; the
    constraints touched in a batch."""

    op_slot: np.ndarray       # per op: its slot, -1 if not transferring
    op: np.ndarray
    path: np.ndarray
    bytes: np.ndarray         # the op's bytes
    t: np.ndarray             # start time
    free: np.ndarray          # stack of free slots
    fresh: np.ndarray         # slots started in this batch
    dirty: np.ndarray         # per constraint: stamp of the batch that last touched it
    seeds: np.ndarray         # the constraints touched in this batch
    c_w: np.ndarray           # per constraint: summed fractions of the flows crossing it
    c_n: np.ndarray           # ... and their count (route entries)
    crossed: np.ndarray       # the constraints with c_n > 0 ...
    crossed_at: np.ndarray    # ... and each one's place in that list (-1: not in it)


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
    """Event heap (ops waiting to start, then groups waiting for their next end), the ops
    to start within this batch, dependencies and op times."""

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


@njit(inline="always")
def _apply(tb, n_c, n_g, width, n_ops, level, size, clock, clock_t, tag, root, c_list, g_list,
           before, filled, timeline, busy, lk_rate, lk_t, h_t, h_op, h_pos, n_heap):
    """After a solve at ``tb`` (which the timeline's bins of ``width`` already fit): close
    the constant-load interval of each constraint whose load changed (busy time, timeline),
    and reschedule the groups reached. Arrays, not the named tuples (each array an inlined
    call takes costs an incref). Returns ``(n_heap, change)`` with ``change`` the change
    of the summed flow rates (bytes/s)."""
    n_bins = timeline.shape[1]
    for j in range(n_c):
        lk = c_list[j]
        new = filled[lk]  # the solve froze every flow crossing it
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
    for j in range(n_g):
        g = g_list[j]
        change += level[g] * size[g] - before[g]
        key = np.int32(n_ops + g)
        if size[g] > 0:
            t_end = groups.next_end(g, clock_t, tag, root, clock, level)
            if h_pos[key] >= 0:
                heap.update(h_t, h_op, h_pos, n_heap, key, t_end)
            else:
                n_heap = heap.push(h_t, h_op, h_pos, n_heap, t_end, key)
        elif h_pos[key] >= 0:
            n_heap = _drop(h_t, h_op, h_pos, n_heap, key)
    return n_heap, change


@njit
def _drop(h_t, h_op, h_pos, n_heap, key):
    """Take ``key`` out of the event heap; returns the new size."""
    heap.update(h_t, h_op, h_pos, n_heap, key, -np.inf)
    return heap.pop(h_t, h_op, h_pos, n_heap)[2]


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
def _new_flows(n_ops, n_lk):
    return _Flows(np.full(n_ops, -1, np.int32), np.empty(n_ops, np.int32),
                  np.empty(n_ops, np.int32), np.empty(n_ops), np.empty(n_ops),
                  np.empty(n_ops, np.int32), np.empty(n_ops, np.int32),
                  np.zeros(n_lk, np.int64), np.empty(n_lk, np.int32), np.zeros(n_lk),
                  np.zeros(n_lk, np.int64), np.empty(n_lk, np.int32),
                  np.full(n_lk, -1, np.int32))


@njit
def _new_books(n_lk, n_paths, n_part, n_bins):
    return _Books(np.zeros(n_lk), np.zeros(n_lk), np.zeros(n_lk), np.zeros((n_lk + 2, n_bins)),
                  np.zeros(n_paths), np.zeros(n_part, np.int64), np.zeros(n_part, np.int64),
                  np.zeros(n_part), np.zeros(n_part), np.zeros(n_part), np.zeros(n_part))


@njit
def _new_queue(ops, n_groups):
    n_ops = ops.bytes.shape[0]
    out_ptr, out_op, out_kind, pending = _dependents(n_ops, ops.dep_indptr, ops.dep_op,
                                                     ops.dep_kind)
    n_keys = n_ops + n_groups
    return _Queue(np.empty(n_keys), np.empty(n_keys, np.int32), np.full(n_keys, -1, np.int32),
                  np.empty(n_ops, np.int32), np.empty(n_ops), out_ptr, out_op, out_kind,
                  pending, np.zeros(n_ops), np.full(n_ops, np.nan), np.full(n_ops, np.nan),
                  np.full(n_ops, np.nan))


@njit(inline="always")
def _batch(horizon, fabric, ops, flows, books, q, gr, en, cnt, rate):
    """Every event up to ``horizon``: ops released within the batch first, then the heap.
    Transfer starts join no group yet (the solve places them); a group's next flow ending
    leaves its group, frees its slot and releases the ops waiting for it. One function,
    reading every array out of its named tuple once: numba increfs an array each time one
    is read out of a tuple, which per event would cost more than the event."""
    indptr, link, frac, latency = (fabric.path_indptr, fabric.path_link, fabric.path_frac,
                                   fabric.path_latency)
    op_bytes, op_delay, op_path, op_src, op_dst = ops.bytes, ops.delay, ops.path, ops.src, \
        ops.dst
    (op_slot, slot_op, slot_path, slot_bytes, slot_t, free, fresh, dirty, seeds, c_w, c_n,
     crossed, crossed_at) = flows
    path_bytes, send_n, recv_n, send_t0, recv_t0, send_busy, recv_busy = (
        books.path_bytes, books.send_n, books.recv_n, books.send_t0, books.recv_t0,
        books.send_busy, books.recv_busy)
    (h_t, h_op, h_pos, stack_op, stack_t, out_ptr, out_op, out_kind, pending, ready, start,
     sent, end) = q
    level, clock, clock_t, size, root, grp, tag, ph, mnext, mprev, width = gr
    ids, head, pos, bucket, efree, ecnt, rseg, rw, rk, rmeta, cseg, cw, cmeta = en
    n_ops = op_bytes.shape[0]
    stamp = cnt[_I_STAMP]
    while True:
        if cnt[_I_STACK] > 0:
            cnt[_I_STACK] -= 1
            i = stack_op[cnt[_I_STACK]]
            t = stack_t[cnt[_I_STACK]]
        elif cnt[_I_HEAP] > 0 and h_t[0] <= horizon:
            i = h_op[0]
            t = h_t[0]
            if i < n_ops:
                cnt[_I_HEAP] = heap.pop(h_t, h_op, h_pos, cnt[_I_HEAP])[2]
        else:
            return
        cnt[_I_EVENTS] += 1
        if i >= n_ops:  # group g's next flow ends: the root of its heap
            g = i - n_ops
            sl = root[g]
            i = slot_op[sl]
            path = op_path[i]
            groups.leave(sl, g, path, indptr, link, frac, root, tag, ph, size, grp, mnext,
                         mprev, width, ids, head, pos, bucket, efree, ecnt, rseg, rw, rk, rmeta,
                         cseg, cw, cmeta)
            for e in range(indptr[path], indptr[path + 1]):
                c = link[e]
                if dirty[c] != stamp:
                    dirty[c] = stamp
                    seeds[cnt[_I_DIRTY]] = c
                    cnt[_I_DIRTY] += 1
                c_n[c] -= 1
                c_w[c] -= frac[e]
                if c_n[c] == 0:  # no flow crosses it now: out of the list (the last in)
                    c_w[c] = 0.0
                    cnt[_I_CROSSED] -= 1
                    last = crossed[cnt[_I_CROSSED]]
                    crossed[crossed_at[c]] = last
                    crossed_at[last] = crossed_at[c]
                    crossed_at[c] = -1
            key = np.int32(n_ops + g)
            if size[g] > 0:  # it stays in the heap for its next end
                heap.update(h_t, h_op, h_pos, cnt[_I_HEAP], key,
                            groups.next_end(g, clock_t, tag, root, clock, level))
            else:
                heap.update(h_t, h_op, h_pos, cnt[_I_HEAP], key, -np.inf)
                cnt[_I_HEAP] = heap.pop(h_t, h_op, h_pos, cnt[_I_HEAP])[2]
            rate[_F_RATE] -= level[g]
            cnt[_I_ACTIVE] -= 1
            cnt[_I_ENTRIES] -= indptr[path + 1] - indptr[path]
            if cnt[_I_ACTIVE] == 0:
                rate[_F_RATE] = 0.0
            path_bytes[path] += op_bytes[i]
            op_slot[i] = -1
            free[cnt[_I_FREE]] = sl
            cnt[_I_FREE] += 1
            s = op_src[i]
            send_n[s] -= 1
            if send_n[s] == 0:
                send_busy[s] += t - send_t0[s]
            d = op_dst[i]
            recv_n[d] -= 1
            if recv_n[d] == 0:
                recv_busy[d] += t - recv_t0[d]
        else:  # op i's transfer starts
            start[i] = t
            path = op_path[i]
            if indptr[path] < indptr[path + 1]:
                if cnt[_I_FREE] > 0:
                    cnt[_I_FREE] -= 1
                    sl = free[cnt[_I_FREE]]
                else:
                    sl = cnt[_I_USED]
                    cnt[_I_USED] += 1
                op_slot[i] = sl
                slot_op[sl] = i
                slot_path[sl] = path
                slot_bytes[sl] = op_bytes[i]
                slot_t[sl] = t
                grp[sl] = -1
                fresh[cnt[_I_FRESH]] = sl
                cnt[_I_FRESH] += 1
                for e in range(indptr[path], indptr[path + 1]):
                    c = link[e]
                    if dirty[c] != stamp:
                        dirty[c] = stamp
                        seeds[cnt[_I_DIRTY]] = c
                        cnt[_I_DIRTY] += 1
                    if c_n[c] == 0:
                        crossed_at[c] = cnt[_I_CROSSED]
                        crossed[cnt[_I_CROSSED]] = c
                        cnt[_I_CROSSED] += 1
                    c_n[c] += 1
                    c_w[c] += frac[e]
                cnt[_I_ACTIVE] += 1
                cnt[_I_ENTRIES] += indptr[path + 1] - indptr[path]
                cnt[_I_FRESH_ENTRIES] += indptr[path + 1] - indptr[path]
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
        # op i is sent at t: release the ops waiting for it (sent: now; arrival: after the
        # route latency); those that start within the batch go on its stack
        sent[i] = t
        end[i] = t + latency[op_path[i]]
        for k in range(out_ptr[i], out_ptr[i + 1]):
            j = out_op[k]
            tj = t if out_kind[k] == DEP_SENT else end[i]
            if tj > ready[j]:
                ready[j] = tj
            pending[j] -= 1
            if pending[j] == 0:
                ts = ready[j] + op_delay[j]
                if ts <= horizon:
                    stack_op[cnt[_I_STACK]] = j
                    stack_t[cnt[_I_STACK]] = ts
                    cnt[_I_STACK] += 1
                else:
                    cnt[_I_HEAP] = heap.push(h_t, h_op, h_pos, cnt[_I_HEAP], ts, j)


def run(fabric: Fabric, ops: Ops, n_bins: int, bin_width: float, rtol: float) -> Output:
    """Run the ops to completion on the fabric; see the module docstring for the model.

    ``n_bins`` and ``bin_width`` (s) start the timeline; events closer than ``rtol``
    (relative) are one batch. Returns an :class:`Output`.

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

    Returns
    -------
    Output
        Per-op ready, start, sent and end times (seconds; start, sent and end are NaN for
        ops that never got there), unmet dependencies, per-link bytes and busy seconds, the timeline
        (``n_links + 2`` rows of bytes per bin; the width in seconds), per-participant
        send and receive busy seconds, and the event and batch counts.

    Notes
    -----
    The kernel sees every input array read-only (views; nothing is copied), so it is
    compiled for one signature whatever the caller's arrays' flags: each signature is a
    compile of some 15-30 s on first use.
    """
    frozen = Fabric(*(_read_only(a) for a in fabric))
    frozen_ops = Ops(*(_read_only(a) for a in ops[:-1]), int(ops.n_participants))
    return _run(frozen, frozen_ops, int(n_bins), float(bin_width), float(rtol))


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


@njit
def _run(fabric, ops, n_bins, bin_width, rtol):
    """:func:`run`'s kernel."""
    n_ops, n_lk = ops.bytes.shape[0], fabric.capacity.shape[0]
    flows = _new_flows(n_ops, n_lk)
    books = _new_books(n_lk, fabric.path_indptr.shape[0] - 1, ops.n_participants, n_bins)
    q = _new_queue(ops, n_lk)
    width = 1
    for path in range(fabric.path_indptr.shape[0] - 1):
        width = max(width, fabric.path_indptr[path + 1] - fabric.path_indptr[path])
    gr = groups.new_groups(n_lk, n_ops, width)
    sc = groups.new_scratch(n_lk, n_ops)
    cnt = np.zeros(_N_COUNTERS, np.int64)
    rate = np.array([bin_width, 0.0, 0.0])
    _loop(fabric, ops, flows, books, q, gr, sc, cnt, rate, rtol)
    return _output(fabric, books, q, cnt, rate[_F_WIDTH])


@njit
def _loop(fabric, ops, flows, books, q, gr, sc, cnt, rate, rtol):
    """The event loop: batch after batch until no op is left waiting. Its hot calls take
    lent views of the state (:func:`nvlearn._jit.lend`: no reference counts; the caller
    holds the arrays until this returns, and the entries, which this grows, are held here)."""
    n_ops, n_lk = ops.bytes.shape[0], fabric.capacity.shape[0]
    en = groups.new_entries(64, n_lk, 0)
    fabric, ops, flows, books, q, gr, sc, cnt, rate = lend(
        (fabric, ops, flows, books, q, gr, sc, cnt, rate))
    en_view = lend(en)
    fr_ent = np.empty(64, np.int64)  # the new flows' route entries in a batch
    fr_view = lend(fr_ent)
    timeline, h_t = books.timeline, q.h_t
    for i in range(n_ops):
        if q.pending[i] == 0:
            cnt[_I_HEAP] = heap.push(h_t, q.h_op, q.h_pos, cnt[_I_HEAP], ops.delay[i],
                                     np.int32(i))
    while cnt[_I_HEAP] > 0:
        t0 = h_t[0]
        cnt[_I_STAMP] += 1
        if t0 > rate[_F_T_AGG]:  # close the interval of the summed rows
            rate[_F_WIDTH] = bins.fit(timeline, rate[_F_WIDTH], t0)
            bins.add(timeline, np.int64(n_lk), rate[_F_T_AGG], t0, rate[_F_RATE],
                     rate[_F_WIDTH])
            bins.add(timeline, np.int64(n_lk + 1), rate[_F_T_AGG], t0,
                     float(cnt[_I_ACTIVE]), rate[_F_WIDTH])
            rate[_F_T_AGG] = t0
        cnt[_I_DIRTY] = 0
        cnt[_I_FRESH] = 0
        cnt[_I_FRESH_ENTRIES] = 0
        _batch(t0 + rtol * abs(t0), fabric, ops, flows, books, q, gr, en_view, cnt, rate)
        if cnt[_I_DIRTY] > 0:
            cnt[_I_BATCHES] += 1
            if not groups.roomy(en_view, cnt[_I_ENTRIES]):
                en = groups.grown(en, cnt[_I_ENTRIES])
                en_view = lend(en)
            if cnt[_I_FRESH_ENTRIES] > fr_ent.shape[0]:
                fr_ent = np.empty(2 * cnt[_I_FRESH_ENTRIES], np.int64)
                fr_view = lend(fr_ent)
            # new rates (the solve), then the books
            n_c, n_g = groups.solve(flows.seeds, cnt[_I_DIRTY], flows.fresh, cnt[_I_FRESH], t0,
                                    fabric.capacity, fabric.path_indptr, fabric.path_link,
                                    fabric.path_frac, flows.path, flows.t, flows.bytes,
                                    flows.c_w, flows.c_n, flows.crossed, cnt[_I_CROSSED],
                                    fr_view, gr, en_view, sc)
            cnt[_I_HEAP], change = _apply(
                t0, n_c, n_g, rate[_F_WIDTH], n_ops, gr.level, gr.size, gr.clock, gr.clock_t,
                gr.tag, gr.root, sc.c_list, sc.g_list, sc.before, sc.filled, timeline,
                books.busy, books.lk_rate, books.lk_t, h_t, q.h_op, q.h_pos, cnt[_I_HEAP])
            rate[_F_RATE] += change


@njit
def _output(fabric, books, q, cnt, width):
    link_bytes = np.zeros(fabric.capacity.shape[0])
    for path in range(books.path_bytes.shape[0]):
        for e in range(fabric.path_indptr[path], fabric.path_indptr[path + 1]):
            link_bytes[fabric.path_link[e]] += books.path_bytes[path] * fabric.path_frac[e]
    return Output(q.ready, q.start, q.sent, q.end, q.pending, link_bytes, books.busy,
                  books.timeline, width, books.send_busy, books.recv_busy, cnt[_I_EVENTS],
                  cnt[_I_BATCHES])
