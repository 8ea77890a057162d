"""Max-min fairness: the defining properties, on random small fabrics and flow sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sim_standins import Explicit, Ops

from nvlearn.sim import max_min_rates, simulate

TOL = 1e-9


@st.composite
def fabrics(draw, max_links=6, max_flows=8):
    """Random capacities and flows; a flow crosses 1..n links with fractions in (0, 1]."""
    n_links = draw(st.integers(1, max_links))
    capacity = draw(st.lists(st.floats(1.0, 100.0), min_size=n_links, max_size=n_links))
    n_flows = draw(st.integers(1, max_flows))
    routes = []
    for _ in range(n_flows):
        links = draw(st.lists(st.integers(0, n_links - 1), min_size=1, max_size=n_links,
                              unique=True))
        fracs = draw(st.lists(st.floats(0.05, 1.0), min_size=len(links), max_size=len(links)))
        routes.append(list(zip(links, fracs, strict=True)))
    return np.array(capacity), routes


def csr(routes):
    indptr = np.zeros(len(routes) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in routes], out=indptr[1:])
    link = np.array([lk for r in routes for lk, _ in r])
    frac = np.array([f for r in routes for _, f in r])
    return indptr, link, frac


def loads(capacity, routes, rates):
    load = np.zeros(capacity.size)
    for route, rate in zip(routes, rates, strict=True):
        for lk, f in route:
            load[lk] += f * rate
    return load


@settings(max_examples=200, deadline=None)
@given(fabrics())
def test_max_min_rates_are_feasible_and_every_flow_has_a_bottleneck(fabric):
    capacity, routes = fabric
    rates = max_min_rates(capacity, *csr(routes))
    load = loads(capacity, routes, rates)
    assert np.all(rates > 0)
    assert np.all(load <= capacity * (1 + TOL))
    saturated = load >= capacity * (1 - TOL)
    for i, route in enumerate(routes):
        # a saturated link of its route on which no flow gets a higher rate
        bottlenecks = [
            lk for lk, _ in route
            if saturated[lk] and all(rates[j] <= rates[i] * (1 + TOL)
                                     for j, other in enumerate(routes)
                                     if any(lk == l2 for l2, _ in other))
        ]
        assert bottlenecks, f"flow {i} (rate {rates[i]}) has no bottleneck"


def test_max_min_worked_example():
    # link 0 (10 B/s) carries flows 0, 1, 2; link 1 (4 B/s) carries flows 1 and 2 with
    # weights 1 and 3: link 1 saturates first at rate 1 for both, flow 0 then takes the rest
    rates = max_min_rates([10.0, 4.0], [0, 1, 3, 5], [0, 0, 1, 0, 1], [1, 1, 1, 1, 3])
    np.testing.assert_allclose(rates, [8.0, 1.0, 1.0])


def test_max_min_rates_rejects_bad_input():
    with pytest.raises(ValueError, match="capacity"):
        max_min_rates([0.0], [0, 1], [0], [1.0])
    with pytest.raises(ValueError, match="frac"):
        max_min_rates([1.0], [0, 1], [0], [0.0])
    with pytest.raises(ValueError, match="link ids"):
        max_min_rates([1.0], [0, 1], [3], [1.0])


def flows_on(capacity, routes, sizes):
    topo = Explicit(len(routes) + 1, capacity,
                    {(i, len(routes)): r for i, r in enumerate(routes)})
    ops = Ops(n_ranks=len(routes) + 1)
    for i, size in enumerate(sizes):
        ops.add(i, len(routes), size)
    return simulate(topo, ops, model="wire")


@settings(max_examples=60, deadline=None)
@given(fabrics(), st.data())
def test_engine_first_finish_and_conservation(fabric, data):
    capacity, routes = fabric
    sizes = np.array(data.draw(st.lists(st.floats(1.0, 1e3), min_size=len(routes),
                                        max_size=len(routes))))
    res = flows_on(capacity, routes, sizes)
    # until the first transfer ends every flow runs at its max-min rate
    rates = max_min_rates(capacity, *csr(routes))
    assert res.op_sent.min() == pytest.approx(np.min(sizes / rates), rel=1e-9)
    # bytes are conserved: every link carried its share of every op
    expected = loads(capacity, routes, sizes)
    np.testing.assert_allclose(res.link_bytes, expected, rtol=1e-9, atol=1e-9)
    assert res.link_bytes.sum() == pytest.approx(expected.sum(), rel=1e-12)
    # and no link ever ran above capacity (checked bin by bin)
    assert res.timeline.link_utilisation().max() <= 1 + 1e-9


@settings(max_examples=60, deadline=None)
@given(fabrics(max_flows=4), st.lists(st.floats(1.0, 1e3), min_size=2, max_size=6))
def test_same_route_same_start_finish_in_order_of_size(fabric, sizes):
    capacity, routes = fabric
    shared = routes[0]
    all_routes = [shared] * len(sizes) + routes[1:]
    all_sizes = list(sizes) + [50.0] * (len(routes) - 1)
    res = flows_on(capacity, all_routes, all_sizes)
    order = np.argsort(sizes, kind="stable")
    ends = res.op_sent[: len(sizes)][order]
    assert np.all(np.diff(ends) >= -1e-12 * ends[1:])


def reference_finish_times(capacity, routes, sizes, starts):
    """Slow, obvious fluid simulation: recompute every rate globally at every event."""
    n = len(routes)
    rem = np.array(sizes, dtype=float)
    done = np.full(n, np.nan)
    t = 0.0
    while np.isnan(done).any():
        active = [i for i in range(n) if starts[i] <= t and np.isnan(done[i])]
        waiting = [starts[i] for i in range(n) if starts[i] > t]
        rates = np.zeros(n)
        if active:
            sub = [routes[i] for i in active]
            rates[active] = max_min_rates(capacity, *csr(sub))
        ends = [t + rem[i] / rates[i] for i in active]
        t_next = min(ends + waiting)
        for i in active:
            rem[i] -= rates[i] * (t_next - t)
        for i, end in zip(active, ends, strict=True):
            if end <= t_next * (1 + 1e-12):
                done[i] = end
        t = t_next
    return done


@settings(max_examples=80, deadline=None)
@given(fabrics(max_flows=6), st.data())
def test_engine_matches_a_global_recomputation_at_every_event(fabric, data):
    capacity, routes = fabric
    k = len(routes)
    sizes = data.draw(st.lists(st.floats(1.0, 1e3), min_size=k, max_size=k))
    starts = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, 10.0]),
                                min_size=k, max_size=k))
    topo = Explicit(k + 1, capacity, {(i, k): r for i, r in enumerate(routes)})
    ops = Ops(n_ranks=k + 1)
    for i in range(k):
        ops.add(i, k, sizes[i], delay=starts[i])
    res = simulate(topo, ops, model="wire")
    np.testing.assert_allclose(res.op_start, starts)
    np.testing.assert_allclose(res.op_sent, reference_finish_times(capacity, routes, sizes,
                                                                   starts), rtol=1e-9)
