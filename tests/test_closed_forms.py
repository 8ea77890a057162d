"""The simulator reproduces each collective's closed form on an uncontended fabric.

On ``single_switch(p, B, latency)`` a message crosses two links (GPU -> switch -> GPU), so
its latency is ``alpha = 2 * latency`` and its rate is ``B`` when it has the links alone.
"""

import pytest

from nvlearn.collectives import (
    allgather,
    allreduce,
    alltoall,
    broadcast,
    chain_broadcast_time,
    reduce_scatter,
    ring_time,
)
from nvlearn.sim import simulate
from nvlearn.topology import single_switch

B = 100e9  # bytes/s per direction
LAT = 0.7e-6  # seconds per link
REL = 1e-9


@pytest.mark.parametrize("p", [2, 3, 8, 16])
@pytest.mark.parametrize("n", [1e3, 1e6, 2**30])
@pytest.mark.parametrize("chunks", [1, 2, 8])
def test_ring_allreduce(p, n, chunks):
    t = simulate(single_switch(p, B, LAT), allreduce(p, n, chunks=chunks)).time
    assert t == pytest.approx(ring_time("allreduce", p, n, B, 2 * LAT, chunks), rel=REL)


@pytest.mark.parametrize("build, name", [(reduce_scatter, "reduce_scatter"),
                                         (allgather, "allgather")])
@pytest.mark.parametrize("p", [2, 5, 8])
@pytest.mark.parametrize("chunks", [1, 4])
def test_ring_reduce_scatter_and_allgather(build, name, p, chunks):
    n = 3e7
    t = simulate(single_switch(p, B, LAT), build(p, n, chunks=chunks)).time
    assert t == pytest.approx(ring_time(name, p, n, B, 2 * LAT, chunks), rel=REL)


@pytest.mark.parametrize("p", [2, 4, 9])
@pytest.mark.parametrize("chunks", [1, 3, 16])
def test_chain_broadcast(p, chunks):
    n = 5e7
    t = simulate(single_switch(p, B, LAT), broadcast(p, n, chunks=chunks)).time
    assert t == pytest.approx(chain_broadcast_time(p, n, B, 2 * LAT, chunks), rel=REL)


@pytest.mark.parametrize("p", [2, 4, 8])
def test_direct_alltoall(p):
    n = 8e7  # per-rank send buffer
    result = simulate(single_switch(p, B, LAT), alltoall(p, n))
    # every uplink carries (p-1)/p * n, shared fairly by p-1 flows that all end together
    assert result.time == pytest.approx(2 * LAT + (p - 1) / p * n / B, rel=REL)
    assert result.algbw == pytest.approx(n / result.time, rel=1e-12)


def test_pipelining_hides_latency_but_never_beats_the_bandwidth_bound():
    p, n, alpha = 8, 1e6, 2 * LAT
    bound = 2 * (p - 1) / p * n / B
    times = [ring_time("allreduce", p, n, B, alpha, c) for c in (1, 4, 64)]
    assert times[0] > times[1] > times[2] > bound
