"""Incremental re-solving (nvlearn.sim.repair) gives the rates of a full re-solve."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nvlearn.sim.engine import Fabric, Ops, run

FIELDS = ("start", "sent", "end", "ready", "link_bytes", "busy", "timeline")


@st.composite
def instances(draw):
    """Random fabric (capacities), flows (routes with fractions, some sharing a route),
    sizes, start times and a few dependencies (a flow starts when an earlier one ends)."""
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
    sizes = np.array(draw(st.lists(st.floats(1.0, 1e3), min_size=n_ops, max_size=n_ops)))
    delay = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5, 7.0]),
                                   min_size=n_ops, max_size=n_ops)))
    deps = [draw(st.lists(st.integers(0, i - 1), max_size=2, unique=True)) if i else []
            for i in range(n_ops)]
    return capacity, routes, op_path, sizes, delay, deps


def engine(instance, repair_share):
    capacity, routes, op_path, sizes, delay, deps = instance
    indptr = np.zeros(len(routes) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in routes], out=indptr[1:])
    link = np.array([lk for r in routes for lk, _ in r], dtype=np.int32)
    frac = np.array([f for r in routes for _, f in r])
    dep_indptr = np.zeros(len(deps) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in deps], out=dep_indptr[1:])
    dep_op = np.array([j for d in deps for j in d], dtype=np.int32)
    n_ops = op_path.size
    src = np.arange(n_ops, dtype=np.int32) % 3
    out = run(Fabric(capacity, indptr, link, frac, np.full(len(routes), 1e-3)),
              Ops(sizes, delay, op_path, src, src + 3, dep_indptr, dep_op,
                  np.zeros(dep_op.size, np.int8), 6),
              16, 2.0**-4, 1e-12, repair_share)
    return {name: getattr(out, name) for name in FIELDS[:4]} | {
        "timeline": out.bins, "link_bytes": out.link_bytes, "busy": out.busy}


@settings(max_examples=300, deadline=None)
@given(instances())
def test_incremental_re_solving_equals_a_full_re_solve(instance):
    full = engine(instance, 0.0)           # every batch re-solves its components whole
    incremental = engine(instance, 1.0)    # every batch repairs, never gives up
    for name in FIELDS:
        np.testing.assert_allclose(incremental[name], full[name], rtol=1e-9, atol=1e-9,
                                   err_msg=name)


def test_an_uneven_all_to_all_on_the_pod_is_the_same_either_way(monkeypatch):
    from nvlearn.collectives import alltoall
    from nvlearn.sim import api, simulate
    from nvlearn.topology import nvlink_pod

    pod = nvlink_pod(2)
    rng = np.random.default_rng(1)
    blocks = 1e6 * rng.uniform(0.5, 1.5, (16, 16))
    np.fill_diagonal(blocks, 0.0)
    sched = alltoall(pod, 16e6, block_bytes=blocks)
    res = []
    for share in (0.0, 1.0):
        monkeypatch.setattr(api, "REPAIR_SHARE", share)
        res.append(simulate(pod, sched))
    np.testing.assert_allclose(res[1].op_end, res[0].op_end, rtol=1e-9)
    np.testing.assert_allclose(res[1].link_busy_time, res[0].link_busy_time, rtol=1e-9)
