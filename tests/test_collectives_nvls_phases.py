"""NVLS reduce-scatter and all-gather through the public entry points.

The closed form (:func:`nvls_phase_time`) against the simulator on one uncontended switch,
the data plane for p = 2..17, the per-rank traffic the switch's reduction and multicast
imply, and the four-plane DGX H100 domain.
"""

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.collectives import allgather, cost, nvls_phase_time, reduce_scatter
from nvlearn.dataplane import reference, run
from nvlearn.schedule import validate
from nvlearn.sim import simulate
from nvlearn.topology import dgx_h100, single_switch

B = 100e9  # bytes/s per direction
LAT = 0.7e-6  # seconds per GPU<->switch link
ALPHA = 2 * LAT
ENTRY = {"reduce_scatter": reduce_scatter, "allgather": allgather}


@pytest.mark.parametrize("collective", list(ENTRY))
@pytest.mark.parametrize("p", [2, 3, 5, 8, 16])
@pytest.mark.parametrize("chunks", [1, 4])
def test_simulator_reproduces_the_closed_form(collective, p, chunks):
    for n in (1e3, 1e6, 3e8):
        s = ENTRY[collective](p, n, "nvls", chunks=chunks)
        t = simulate(single_switch(p, B, LAT), s, model="wire").time
        want = nvls_phase_time(p, n, B, ALPHA, chunks)
        assert t == pytest.approx(want, rel=1e-9)
        assert cost(collective, "nvls", p, n, B, ALPHA, chunks) == want


@pytest.mark.parametrize("collective", list(ENTRY))
@pytest.mark.parametrize("p", range(2, 18))
def test_data_plane_is_exact(collective, p):
    s = ENTRY[collective](p, 1e6, "nvls", chunks=3)
    validate(s)
    x = np.random.default_rng(p).integers(-8, 9, size=(p, 2 * s.n_chunks + 5)).astype(float)
    want = reference(s, x)
    for dtype in ("float64", "float32", "bfloat16"):
        np.testing.assert_array_equal(run(s, x, dtype=dtype), want)


def test_reduce_scatter_leaves_rank_r_with_the_sum_of_its_contiguous_block():
    p, m = 4, 40
    x = np.arange(p * m, dtype=float).reshape(p, m)
    out = run(reduce_scatter(p, 1e6, "nvls", chunks=2), x)
    total = x.sum(axis=0)
    for r in range(p):
        block = slice(r * m // p, (r + 1) * m // p)
        np.testing.assert_array_equal(out[r, block], total[block])


@pytest.mark.parametrize("p", [2, 8, 13])
def test_per_rank_traffic(p):
    """Reduce-scatter: send n (a copy of every shard), receive n/p; all-gather the mirror."""
    n = 1e6 * p
    rs = reduce_scatter(p, n, "nvls", chunks=2)
    ag = allgather(p, n, "nvls", chunks=2)
    np.testing.assert_allclose(rs.bytes_sent()[:p], n)
    np.testing.assert_allclose(rs.bytes_received()[:p], n / p)
    np.testing.assert_allclose(ag.bytes_sent()[:p], n / p)
    np.testing.assert_allclose(ag.bytes_received()[:p], n)
    assert rs.participant_role == ag.participant_role == ("switch",)


def test_large_messages_approach_n_over_b():
    """Pipelined, both phases tend to n / B: each link direction carries n once."""
    n = 2.0**30
    for collective in ENTRY:
        t = cost(collective, "nvls", 8, n, B, ALPHA, chunks=256)
        assert n / B < t < 1.01 * n / B


def test_dgx_h100_planes_split_the_traffic_and_match_one_switch():
    """On the DGX H100 each NVSwitch plane carries its link share (5/4/4/5 of 18), all four
    finish together, so the box times as one switch of the GPU's total NVLink rate with
    alpha = GPU -> switch hop + switch -> GPU hop (traversal included)."""
    topo = dgx_h100()
    bw = specs.nvlink(4).gpu_bw_per_dir
    alpha = 2 * specs.latency("nvlink_hop") + specs.latency("nvswitch_traversal")
    for collective, entry in ENTRY.items():
        for n in (1e3, 2.0**28):
            s = entry(topo, n, "nvls", chunks=4)
            validate(s)
            assert s.participant_role == ("nvswitch0", "nvswitch1", "nvswitch2", "nvswitch3")
            plane = s.bytes_received() if collective == "reduce_scatter" else s.bytes_sent()
            np.testing.assert_allclose(plane[8:] / plane[8:].sum(), np.array([5, 4, 4, 5]) / 18)
            t = simulate(topo, s, model="wire").time
            assert t == pytest.approx(nvls_phase_time(8, n, bw, alpha, 4), rel=1e-9)
