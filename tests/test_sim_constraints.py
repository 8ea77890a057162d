"""Equivalent links merged into one constraint (nvlearn.sim.constraints): nothing changes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_fairness import csr, fabrics, reference_finish_times
from test_sim_standins import Explicit, Ops

from nvlearn.sim import max_min_rates, simulate
from nvlearn.sim.constraints import merge_equivalent_links


@st.composite
def fabrics_with_twins(draw):
    """A random fabric where some links get twins: another link of ``k`` times the capacity
    that every route crossing the original also crosses, with ``k`` times the fraction."""
    capacity, routes = draw(fabrics())
    twins = draw(st.lists(st.integers(0, capacity.size - 1), unique=True, max_size=3))
    scale = draw(st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=len(twins),
                          max_size=len(twins)))
    twin_of = {}
    for lk, k in zip(twins, scale, strict=True):
        twin_of[lk] = (capacity.size, k)
        capacity = np.append(capacity, capacity[lk] * k)
    routes = [r + [(twin_of[lk][0], f * twin_of[lk][1]) for lk, f in r if lk in twin_of]
              for r in routes]
    return capacity, routes, twin_of


@settings(max_examples=150, deadline=None)
@given(fabrics_with_twins())
def test_twins_share_a_class_and_the_merged_rates_are_the_rates(fabric):
    capacity, routes, twin_of = fabric
    indptr, link, frac = csr(routes)
    c = merge_equivalent_links(capacity, indptr, link.astype(np.int32), frac)
    used = set(link.tolist())
    for lk, (twin, k) in twin_of.items():
        if lk in used:
            assert c.link_class[twin] == c.link_class[lk]
            assert abs(c.link_scale[twin] / c.link_scale[lk] - k) <= 1e-12 * k
    assert c.link.size <= link.size
    np.testing.assert_allclose(max_min_rates(c.capacity, c.indptr, c.link, c.frac),
                               max_min_rates(capacity, indptr, link, frac), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(fabrics_with_twins(), st.data())
def test_simulated_times_and_per_link_figures_survive_the_merge(fabric, data):
    capacity, routes, twin_of = fabric
    k = len(routes)
    sizes = data.draw(st.lists(st.floats(1.0, 1e3), min_size=k, max_size=k))
    starts = data.draw(st.lists(st.sampled_from([0.0, 0.5, 3.0]), min_size=k, max_size=k))
    topo = Explicit(k + 1, capacity, {(i, k): r for i, r in enumerate(routes)})
    ops = Ops(n_ranks=k + 1)
    for i in range(k):
        ops.add(i, k, sizes[i], delay=starts[i])
    res = simulate(topo, ops, model="wire")
    np.testing.assert_allclose(res.op_sent, reference_finish_times(capacity, routes, sizes,
                                                                   starts), rtol=1e-9)
    expected = np.zeros(capacity.size)
    for route, size in zip(routes, sizes, strict=True):
        for lk, f in route:
            expected[lk] += f * size
    np.testing.assert_allclose(res.link_bytes, expected, rtol=1e-9)
    for lk, (twin, scale) in twin_of.items():
        assert res.link_busy_time[twin] == res.link_busy_time[lk]
        np.testing.assert_allclose(res.timeline.link_bytes[twin],
                                   scale * res.timeline.link_bytes[lk], rtol=1e-12)
    assert res.timeline.link_utilisation().max() <= 1 + 1e-9


def test_a_pod_route_crosses_a_few_constraints_not_eighty_links():
    from nvlearn.topology import nvlink_pod

    pod = nvlink_pod(3)
    src = np.repeat(pod.gpus, pod.n_gpus)
    dst = np.tile(pod.gpus, pod.n_gpus)
    indptr, link, frac, _ = pod.routes(src[src != dst], dst[src != dst])
    c = merge_equivalent_links(np.asarray(pod.link_capacity, dtype=float), indptr, link, frac)
    assert np.diff(indptr).max() == 80
    assert np.diff(c.indptr).max() == 4  # GPU out, node up, node down, GPU in
