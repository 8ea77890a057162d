"""The simulator reproduces every algorithm's closed form on an uncontended switch.

On ``single_switch(p, B, LAT)`` a GPU-to-GPU message crosses two links, so ``alpha = 2 LAT``,
and moves at ``B`` when it has the links alone; a GPU<->switch hop (NVLS) costs ``LAT``.
The closed forms: ``cost`` for the schedule each entry point builds, ``ring_time`` and
``chain_broadcast_time`` for the default ring and chain, the direct all-to-all's by hand;
``simulate`` times the schedule with the flow-level engine.
"""

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.collectives import (
    allgather,
    allreduce,
    alltoall,
    broadcast,
    chain_broadcast_time,
    cost,
    double_binary_tree_time,
    hierarchical_time,
    nvls_time,
    nvls_time_ideal,
    rabenseifner_time,
    rabenseifner_time_textbook,
    recursive_doubling_time,
    recursive_doubling_time_textbook,
    reduce_scatter,
    ring_time,
    supports,
    tree_allreduce_time,
    tree_allreduce_time_textbook,
)
from nvlearn.collectives._ops import row_pipeline_time
from nvlearn.collectives.volume import ideal_in_network_speedup, nvls_allreduce_bytes_per_rank
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, single_switch

B = 100e9  # bytes/s per direction
LAT = 0.7e-6  # seconds per link
ALPHA = 2 * LAT
REL = 1e-9
SIZES = (1e3, 1e6, 3e8)  # latency-bound, in between, bandwidth-bound

ENTRY = {"allreduce": allreduce, "reduce_scatter": reduce_scatter, "allgather": allgather,
         "broadcast": broadcast}


def _simulated(collective, algorithm, p, n, chunks, **kw):
    if collective == "alltoall":
        schedule = alltoall(p, n, algorithm)
    else:
        schedule = ENTRY[collective](p, n, algorithm, chunks=chunks, **kw)
    return simulate(single_switch(p, B, LAT), schedule, model="wire").time


CASES = [
    pytest.param(coll, algo, p, chunks, id=f"{coll}-{algo}-p{p}-c{chunks}")
    for coll, algo in [("allreduce", "binary_tree"), ("allreduce", "double_binary_tree"),
                       ("allreduce", "recursive_doubling"), ("allreduce", "rabenseifner"),
                       ("allreduce", "nvls"), ("reduce_scatter", "recursive_halving"),
                       ("allgather", "recursive_doubling"), ("broadcast", "binary_tree"),
                       ("alltoall", "ring")]
    for p in (2, 3, 5, 6, 8, 11, 16)
    for chunks in (1, 4)
    if supports(coll, algo, p) and not (coll == "alltoall" and chunks > 1)
]


@pytest.mark.parametrize("collective, algorithm, p, chunks", CASES)
def test_simulator_reproduces_the_closed_form(collective, algorithm, p, chunks):
    for n in SIZES:
        t = _simulated(collective, algorithm, p, n, chunks)
        assert t == pytest.approx(cost(collective, algorithm, p, n, B, ALPHA, chunks), rel=REL)


@pytest.mark.parametrize("p", [2, 3, 8, 16])
@pytest.mark.parametrize("n", [1e3, 1e6, 2**30])
@pytest.mark.parametrize("chunks", [1, 2, 8])
def test_ring_allreduce(p, n, chunks):
    t = simulate(single_switch(p, B, LAT), allreduce(p, n, chunks=chunks), model="wire").time
    assert t == pytest.approx(ring_time("allreduce", p, n, B, ALPHA, chunks), rel=REL)


@pytest.mark.parametrize("build, name", [(reduce_scatter, "reduce_scatter"),
                                         (allgather, "allgather")])
@pytest.mark.parametrize("p", [2, 5, 8])
@pytest.mark.parametrize("chunks", [1, 4])
def test_ring_reduce_scatter_and_allgather(build, name, p, chunks):
    n = 3e7
    t = simulate(single_switch(p, B, LAT), build(p, n, chunks=chunks), model="wire").time
    assert t == pytest.approx(ring_time(name, p, n, B, ALPHA, chunks), rel=REL)


@pytest.mark.parametrize("p", [2, 4, 9])
@pytest.mark.parametrize("chunks", [1, 3, 16])
def test_chain_broadcast(p, chunks):
    n = 5e7
    t = simulate(single_switch(p, B, LAT), broadcast(p, n, chunks=chunks), model="wire").time
    assert t == pytest.approx(chain_broadcast_time(p, n, B, ALPHA, chunks), rel=REL)


@pytest.mark.parametrize("p", [2, 4, 8])
def test_direct_alltoall(p):
    n = 8e7  # per-rank send buffer
    result = simulate(single_switch(p, B, LAT), alltoall(p, n), model="wire")
    # every uplink carries (p-1)/p * n, shared fairly by p-1 flows that all end together
    assert result.time == pytest.approx(ALPHA + (p - 1) / p * n / B, rel=REL)
    assert result.algbw == pytest.approx(n / result.time, rel=1e-12)


def test_pipelining_hides_latency_but_never_beats_the_bandwidth_bound():
    p, n = 8, 1e6
    bound = 2 * (p - 1) / p * n / B
    times = [ring_time("allreduce", p, n, B, ALPHA, c) for c in (1, 4, 64)]
    assert times[0] > times[1] > times[2] > bound


@pytest.mark.parametrize("p, q", [(4, 2), (6, 3), (8, 4), (9, 3), (12, 4), (7, 7), (5, 1)])
@pytest.mark.parametrize("intra", ["ring", "nvls"])
def test_hierarchical_is_the_sum_of_its_phases(p, q, intra):
    for n in (1e3, 3e8):
        t = _simulated("allreduce", "hierarchical", p, n, 2, ranks_per_node=q, intra=intra)
        want = cost("allreduce", "hierarchical", p, n, B, ALPHA, 2, ranks_per_node=q,
                    intra=intra)
        assert t == pytest.approx(want, rel=REL)


def test_nvls_on_a_dgx_h100_with_one_participant_per_plane():
    topo = dgx_h100()
    gpu0 = topo.gpus[0]
    bw = float(topo.link_capacity[topo.link_src == gpu0].sum())  # all planes
    hop = float(np.unique(topo.link_latency)[0])
    for n, chunks in [(1e4, 1), (1e6, 4), (1e9, 8)]:
        schedule = allreduce(topo, n, "nvls", chunks)
        assert len(schedule.participant_role) == specs.system("dgx_h100").nvswitch_chips
        result = simulate(topo, schedule, model="wire")
        assert result.time == pytest.approx(nvls_time(8, n, bw, 2 * hop, chunks), rel=REL)
        # every GPU moves n (1 + 1/p) each way, split over the planes by link count
        np.testing.assert_allclose(result.rank_bytes_sent[:8], nvls_allreduce_bytes_per_rank(8, n))
        np.testing.assert_allclose(result.rank_bytes_received[:8],
                                   nvls_allreduce_bytes_per_rank(8, n))


def test_nvls_approaches_its_ideal_and_its_ideal_speedup_over_a_ring():
    p, n = 8, 1e9
    t = nvls_time(p, n, B, ALPHA, chunks=256)
    # pipeline fill and half a hop of latency per slot keep it a few per cent above
    assert nvls_time_ideal(p, n, B, ALPHA) < t < 1.04 * nvls_time_ideal(p, n, B, ALPHA)
    speedup = ring_time("allreduce", p, n, B, ALPHA, 256) / t
    assert speedup == pytest.approx(ideal_in_network_speedup(p), rel=0.04)
    assert speedup < ideal_in_network_speedup(p) < 2


def test_textbook_forms_and_where_they_agree():
    # one chunk, a power of two: recursive doubling is exactly Thakur et al.'s lg p (a + n b)
    for p in (2, 4, 16):
        assert recursive_doubling_time(p, 1e7, B, ALPHA) == pytest.approx(
            recursive_doubling_time_textbook(p, 1e7, B, ALPHA), rel=1e-12)
    assert recursive_doubling_time(6, 1e7, B, ALPHA) == pytest.approx(
        recursive_doubling_time_textbook(6, 1e7, B, ALPHA), rel=1e-12)
    # Rabenseifner's per-block transfers overlap latency: never slower than the textbook
    for p in range(2, 18):
        for n in SIZES:
            assert rabenseifner_time(p, n, B, ALPHA) <= rabenseifner_time_textbook(
                p, n, B, ALPHA) * (1 + 1e-12)
    # a perfect tree (p = 2^(D+1) - 1): T = 2 [D (2 s + alpha) + 2 (chunks - 1) s]
    for p, depth in [(3, 1), (7, 2), (15, 3)]:
        n, c = 1e8, 6
        s = n / (c * B)
        want = 2 * (depth * (2 * s + ALPHA) + 2 * (c - 1) * s)
        assert tree_allreduce_time(p, n, B, ALPHA, c) == pytest.approx(want, rel=1e-12)
        assert tree_allreduce_time_textbook(p, n, B, ALPHA, c) > want


def test_two_trees_recover_the_bandwidth_one_tree_loses():
    p, n = 16, 1e9
    one = tree_allreduce_time(p, n, B, 0.0, chunks=512)
    two = double_binary_tree_time(p, n, B, 0.0, chunks=512)
    assert one / (4 * n / B) == pytest.approx(1, rel=0.03)   # a single tree: 4 n / B
    assert two / (2 * n / B) == pytest.approx(1, rel=0.03)   # two trees: 2 n / B


def test_row_pipeline_with_constant_rows_is_the_ring_and_hierarchical_sums_rings():
    for p, c in [(2, 1), (5, 3), (8, 8)]:
        s = 1e8 / (p * c * B)
        assert row_pipeline_time([c] * (2 * (p - 1)), s, ALPHA) == pytest.approx(
            ring_time("allreduce", p, 1e8, B, ALPHA, c), rel=1e-12)
    assert hierarchical_time(8, 1e8, B, ALPHA, 2, ranks_per_node=8) == pytest.approx(
        ring_time("reduce_scatter", 8, 1e8, B, ALPHA, 2)
        + ring_time("allgather", 8, 1e8, B, ALPHA, 2), rel=1e-12)
    assert hierarchical_time(8, 1e8, B, ALPHA, 2, ranks_per_node=1) == pytest.approx(
        ring_time("allreduce", 8, 1e8, B, ALPHA, 2), rel=1e-12)


def test_cost_rejects_what_it_cannot_price():
    with pytest.raises(ValueError, match="available: ring, binary_tree"):
        cost("allreduce", "butterfly", 8, 1e6, B, ALPHA)
    with pytest.raises(ValueError, match="power of two"):
        cost("reduce_scatter", "recursive_halving", 6, 1e6, B, ALPHA)
    with pytest.raises(ValueError, match="unexpected options"):
        cost("allreduce", "ring", 8, 1e6, B, ALPHA, ranks_per_node=4)
    with pytest.raises(ValueError, match="bw_per_dir"):
        cost("allreduce", "binary_tree", 8, 1e6, 0.0, ALPHA)
    with pytest.raises(ValueError, match="alpha"):
        cost("allreduce", "nvls", 8, 1e6, B, -1.0)
