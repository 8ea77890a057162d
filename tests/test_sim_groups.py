"""The engine's bottleneck groups (nvlearn.sim.groups) give what a full re-solve gives.

The reference below is a plain event loop that recomputes every flow's rate from scratch
(:func:`nvlearn.sim.max_min_rates` over all flows in progress) after every batch and keeps
each flow's remaining bytes itself: no groups, no clocks, no components. The engine must
agree with it on every op time, per-link bytes, busy time and timeline bin.
"""

from __future__ import annotations

import heapq

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nvlearn.sim import bins, max_min_rates
from nvlearn.sim.engine import Fabric, Ops, run

FIELDS = ("start", "sent", "end", "ready", "link_bytes", "busy", "timeline")
RTOL = 1e-12       # batching, as nvlearn.sim.api.BATCH_RTOL
N_BINS, WIDTH = 16, 2.0**-4


@st.composite
def instances(draw):
    """Random fabric (capacities), flows (multipath routes with fractions, some sharing a
    route), sizes, start delays and dependencies (a flow starts when earlier ones end)."""
    n_links = draw(st.integers(1, 8))
    capacity = np.array(draw(st.lists(st.floats(1.0, 100.0), min_size=n_links,
                                      max_size=n_links)))
    n_paths = draw(st.integers(1, 6))
    routes = [draw(st.lists(st.tuples(st.integers(0, n_links - 1), st.floats(0.05, 1.0)),
                            min_size=1, max_size=n_links, unique_by=lambda x: x[0]))
              for _ in range(n_paths)]
    n_ops = draw(st.integers(1, 24))
    op_path = np.array(draw(st.lists(st.integers(0, n_paths - 1), min_size=n_ops,
                                     max_size=n_ops)), dtype=np.int32)
    sizes = np.array(draw(st.lists(st.floats(1.0, 1e3) | st.just(0.0), min_size=n_ops,
                                   max_size=n_ops)))
    delay = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5, 7.0]),
                                   min_size=n_ops, max_size=n_ops)))
    deps = [draw(st.lists(st.integers(0, i - 1), max_size=2, unique=True)) if i else []
            for i in range(n_ops)]
    return capacity, routes, op_path, sizes, delay, deps


def csr(instance):
    capacity, routes, op_path, sizes, delay, deps = instance
    indptr = np.zeros(len(routes) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in routes], out=indptr[1:])
    link = np.array([lk for r in routes for lk, _ in r], dtype=np.int32)
    frac = np.array([f for r in routes for _, f in r])
    dep_indptr = np.zeros(len(deps) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in deps], out=dep_indptr[1:])
    dep_op = np.array([j for d in deps for j in d], dtype=np.int32)
    return capacity, indptr, link, frac, op_path, sizes, delay, dep_indptr, dep_op


def engine(instance):
    capacity, indptr, link, frac, op_path, sizes, delay, dep_indptr, dep_op = csr(instance)
    src = np.arange(op_path.size, dtype=np.int32) % 3
    out = run(Fabric(capacity, indptr, link, frac, np.full(indptr.size - 1, 1e-3)),
              Ops(sizes, delay, op_path, src, src + 3, dep_indptr, dep_op,
                  np.zeros(dep_op.size, np.int8), 6),
              N_BINS, WIDTH, RTOL)
    return {name: getattr(out, name) for name in FIELDS[:4]} | {
        "timeline": out.bins, "link_bytes": out.link_bytes, "busy": out.busy}


def reference(instance, latency=1e-3):
    """The same model, re-solved from scratch for every flow after every batch."""
    capacity, indptr, link, frac, op_path, sizes, delay, dep_indptr, dep_op = csr(instance)
    n_ops, n_lk = op_path.size, capacity.size
    pending = np.diff(dep_indptr).astype(int)
    out = [[] for _ in range(n_ops)]
    for i in range(n_ops):
        for j in dep_op[dep_indptr[i]:dep_indptr[i + 1]]:
            out[j].append(i)
    ready = np.zeros(n_ops)
    start, sent, end = (np.full(n_ops, np.nan) for _ in range(3))
    starts = [(delay[i], i) for i in range(n_ops) if pending[i] == 0]
    heapq.heapify(starts)
    active = {}                       # op -> [bytes left at t, rate, t]
    timeline = np.zeros((n_lk + 2, N_BINS))
    width, t_agg, total = WIDTH, 0.0, 0.0
    lk_rate, lk_t, busy = np.zeros(n_lk), np.zeros(n_lk), np.zeros(n_lk)
    link_bytes = np.zeros(n_lk)

    def finish_time(i):
        rem, rate, t = active[i]
        return t + rem / rate

    while starts or active:
        t_end = min((finish_time(i) for i in active), default=np.inf)
        t0 = min(starts[0][0] if starts else np.inf, t_end)
        if t0 > t_agg:
            width = bins.fit(timeline, width, t0)
            bins.add(timeline, n_lk, t_agg, t0, total, width)
            bins.add(timeline, n_lk + 1, t_agg, t0, float(len(active)), width)
            t_agg = t0
        horizon = t0 + RTOL * abs(t0)
        fresh = set()
        while True:
            ends = [(finish_time(i), i) for i in active if i not in fresh]
            t_e, i_e = min(ends, default=(np.inf, -1))
            if starts and starts[0][0] <= horizon and starts[0][0] <= t_e:
                t, i = heapq.heappop(starts)
                start[i] = t
                if indptr[op_path[i]] < indptr[op_path[i] + 1]:
                    active[i] = [sizes[i], 0.0, t]
                    fresh.add(i)
                    continue
            elif t_e <= horizon:
                t, i = t_e, i_e
                del active[i]
                e0, e1 = indptr[op_path[i]], indptr[op_path[i] + 1]
                np.add.at(link_bytes, link[e0:e1], sizes[i] * frac[e0:e1])
            else:
                break
            sent[i], end[i] = t, t + latency
            for j in out[i]:
                ready[j] = max(ready[j], end[i])
                pending[j] -= 1
                if pending[j] == 0:
                    heapq.heappush(starts, (ready[j] + delay[j], j))
        # every rate from scratch; remaining bytes brought to t0 where a rate changes
        ops = sorted(active)
        ptr = np.zeros(len(ops) + 1, dtype=np.int64)
        np.cumsum([indptr[op_path[i] + 1] - indptr[op_path[i]] for i in ops], out=ptr[1:])
        entries = [np.arange(indptr[op_path[i]], indptr[op_path[i] + 1]) for i in ops]
        ent = np.concatenate(entries) if ops else np.zeros(0, dtype=np.int64)
        rates = max_min_rates(capacity, ptr, link[ent], frac[ent]) if ops else []
        load = np.zeros(n_lk)
        for i, r in zip(ops, rates, strict=True):
            state = active[i]
            if i not in fresh and state[1] != r:
                state[0] = max(state[0] - state[1] * (t0 - state[2]), 0.0)
                state[2] = t0
            state[1] = r
            e0, e1 = indptr[op_path[i]], indptr[op_path[i] + 1]
            np.add.at(load, link[e0:e1], r * frac[e0:e1])
        total = float(np.sum(rates))
        width = bins.fit(timeline, width, t0)
        for lk in range(n_lk):
            if not np.isclose(load[lk], lk_rate[lk], rtol=1e-13, atol=0.0):
                if t0 > lk_t[lk] and lk_rate[lk] > 0:
                    busy[lk] += t0 - lk_t[lk]
                    bins.add(timeline, lk, lk_t[lk], t0, lk_rate[lk], width)
                lk_t[lk], lk_rate[lk] = t0, load[lk]
    return {"start": start, "sent": sent, "end": end, "ready": ready, "timeline": timeline,
            "link_bytes": link_bytes, "busy": busy}


@settings(max_examples=300, deadline=None)
@given(instances())
def test_the_engine_equals_a_full_re_solve_after_every_batch(instance):
    got, want = engine(instance), reference(instance)
    for name in FIELDS:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-9, atol=1e-9, err_msg=name)


def test_flows_that_share_a_bottleneck_share_one_group_and_its_clock():
    # four flows into one link (capacity 4): one level, 1 each; the short ones end first
    # and the others speed up, yet only the link's group changes rate
    inst = (np.array([4.0]), [[(0, 1.0)]], np.zeros(4, np.int32),
            np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4), [[], [], [], []])
    got = engine(inst)
    # 4 at 1 B/s: the first ends at 1; then 3 at 4/3: the second at 1 + 3/4; ...
    np.testing.assert_allclose(got["sent"], [1.0, 1.75, 2.25, 2.5], rtol=1e-14)
    np.testing.assert_allclose(got["busy"], [2.5], rtol=1e-14)


def test_a_fill_that_rebuilds_its_heap_equals_a_full_re_solve():
    from nvlearn.sim.groups import REBUILD

    # 40 flows share link 0 (capacity 40: level 1), each also crossing its own link
    # (capacity 2: a fill level of 2 on the heap); one more flow crosses link 41 alone
    # (level 5, and long). Once link 0 saturates, the own links have no unfrozen flow but
    # sit on top of the heap: popping REBUILD of them rebuilds it, at every re-solve while
    # link 0 still saturates first (20 flows or more on it)
    n = 40
    assert n >= 2 * REBUILD
    capacity = np.array([float(n)] + [2.0] * n + [5.0])
    routes = [[(0, 1.0), (1 + i, 1.0)] for i in range(n)] + [[(n + 1, 1.0)]]
    sizes = np.append(1.0 + 0.1 * np.arange(n), 50.0)
    inst = (capacity, routes, np.arange(n + 1, dtype=np.int32), sizes, np.zeros(n + 1),
            [[] for _ in range(n + 1)])
    got, want = engine(inst), reference(inst)
    for name in FIELDS:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-9, atol=1e-9, err_msg=name)


def test_an_uneven_all_to_all_on_the_pod_equals_a_full_re_solve():
    from nvlearn.collectives import alltoall
    from nvlearn.sim import simulate
    from nvlearn.topology import nvlink_pod

    pod = nvlink_pod(2)
    rng = np.random.default_rng(1)
    blocks = 1e6 * rng.uniform(0.5, 1.5, (16, 16))
    np.fill_diagonal(blocks, 0.0)
    sched = alltoall(pod, 16e6, block_bytes=blocks)
    res = simulate(pod, sched, model="wire")
    # the same flows through the reference, on the pod's routes (one per op)
    indptr, link, frac = res.path_indptr, res.path_link, res.path_frac
    routes = [list(zip(link[indptr[q]:indptr[q + 1]].tolist(),
                       frac[indptr[q]:indptr[q + 1]].tolist(), strict=True))
              for q in range(indptr.size - 1)]
    deps = [[] for _ in range(sched.n_ops)]
    want = reference((res.link_capacity, routes, res.op_path.astype(np.int32),
                      np.asarray(sched.op_bytes, float), np.asarray(sched.op_delay, float),
                      deps), latency=0.0)
    np.testing.assert_allclose(res.op_sent, want["sent"], rtol=1e-10)
    np.testing.assert_allclose(res.link_busy_time, want["busy"], rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(res.link_bytes, want["link_bytes"], rtol=1e-10, atol=1e-3)


def test_heapify_builds_a_heap_that_pops_in_order():
    from nvlearn.sim import heap

    rng = np.random.default_rng(3)
    times = rng.uniform(0.0, 1.0, 50)
    ops = rng.permutation(50).astype(np.int32)
    pos = np.full(50, -1, np.int32)
    want = np.sort(times)
    n = heap.heapify(times, ops, pos, 50)
    assert all(ops[pos[op]] == op for op in range(50))
    got = []
    while n:
        t, _, n = heap.pop(times, ops, pos, n)
        got.append(t)
    np.testing.assert_array_equal(got, want)


def test_the_kernel_has_one_signature_whatever_the_inputs_flags():
    """run freezes its inputs, so read-only and writable arrays share one compile."""
    import pytest

    from nvlearn._jit import JIT_DISABLED
    from nvlearn.sim import engine as eng

    if JIT_DISABLED:
        pytest.skip("plain Python: nothing is compiled")
    cap = np.array([1e9])
    fabric = Fabric(cap, np.array([0, 1]), np.array([0], np.int32), np.ones(1), np.zeros(1))
    for writable in (True, False):
        arrays = [np.ones(1), np.zeros(1), np.zeros(1, np.int32), np.zeros(1, np.int32),
                  np.ones(1, np.int32), np.array([0, 0]), np.zeros(0, np.int32),
                  np.zeros(0, np.int8)]
        for a in arrays:
            a.flags.writeable = writable
        out = run(fabric, Ops(*arrays, 2), N_BINS, WIDTH, RTOL)
        assert out.end[0] == pytest.approx(1e-9)
    assert len(eng._run.signatures) == 1
