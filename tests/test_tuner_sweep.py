"""Size sweeps of the all-reduce algorithms: link parameters, closed form vs simulator,
crossovers, pipeline depth, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import collectives, tuner
from nvlearn.topology import dgx_h100, ib_cluster, nvlink_pod

GB, US = 1e9, 1e-6


@pytest.fixture(scope="module")
def dgx():
    return dgx_h100()


@pytest.fixture(scope="module")
def pod():
    return nvlink_pod()


def test_link_params_read_off_the_topologies(dgx, pod):
    d = tuner.link_params(dgx)
    assert (d.n_ranks, d.ranks_per_node, d.n_nodes, d.nvls_domain) == (8, 8, 1, True)
    # two NVLink hops of 0.3 us (the catalogue's bound from NCCL's 0.6 us LL ring step)
    assert d.bw_per_dir == pytest.approx(450 * GB) and d.alpha == pytest.approx(0.6 * US)
    p = tuner.link_params(pod)
    assert (p.n_nodes, p.nvls_domain) == (32, False)
    assert p.alpha == pytest.approx(1.2 * US) and p.alpha_intra == pytest.approx(0.6 * US)
    # 18 OSFP x 4 NVLinks x 25 GB/s leave a box of 8 GPUs: 225 GB/s each, the 2:1 taper
    assert p.bw_inter == pytest.approx(72 * 25 * GB / 8)
    ib = tuner.link_params(ib_cluster(nodes=2))
    assert ib.bw_inter == pytest.approx(50 * GB)         # one 400 Gb/s NIC per GPU
    sub = tuner.link_params(pod, 16)
    assert (sub.n_ranks, sub.n_nodes) == (16, 2)


def test_availability(dgx, pod):
    d, p = tuner.link_params(dgx), tuner.link_params(pod)
    assert d.available("nvls") and not d.available("hierarchical")
    assert not p.available("nvls") and p.available("hierarchical_nvls")
    assert tuner.closed_form_sweep(p, [2**20]).algorithms == (
        "ring", "binary_tree", "double_binary_tree", "nccl_tree", "recursive_doubling",
        "rabenseifner", "hierarchical", "hierarchical_nvls")


@pytest.mark.parametrize("model", ["wire", "achievable"])
def test_simulator_reproduces_closed_forms_on_the_dgx(dgx, model):
    lp = tuner.link_params(dgx)
    sizes = [2.0**10, 2.0**22, 2.0**31]
    cf = tuner.closed_form_sweep(lp, sizes, model=model)
    sim = tuner.simulated_sweep(dgx, sizes, model=model)
    assert sim.algorithms == cf.algorithms and np.array_equal(sim.chunks, cf.chunks)
    np.testing.assert_allclose(sim.time, cf.time, rtol=1e-9)
    assert sim.methods == ("simulated",) * len(sim.algorithms)
    assert sim.model == cf.model == model


def test_closed_form_matches_collectives_cost(dgx):
    lp = tuner.link_params(dgx)
    t = tuner.closed_form_time("rabenseifner", lp, 2**20, 4)
    assert t == collectives.cost("allreduce", "rabenseifner", 8, 2**20, lp.bw_per_dir,
                                 lp.alpha, chunks=4)


def test_taper_slows_far_partners_in_the_pod(pod):
    """Recursive doubling's far steps cross boxes all at once: the 2:1 taper halves them."""
    lp = tuner.link_params(pod)
    n = 2.0**28
    sim = tuner.simulate_allreduce(pod, "recursive_doubling", n, 1, model="wire").time
    assert sim > 1.4 * tuner.closed_form_time("recursive_doubling", lp, n, 1)
    ring = tuner.simulate_allreduce(pod, "hierarchical", n, 1, model="wire").time
    assert ring == pytest.approx(tuner.closed_form_time("hierarchical", lp, n, 1), rel=1e-9)


def test_best_chunks(dgx):
    lp = tuner.link_params(dgx)
    assert tuner.best_chunks("ring", lp, 2**10) == 1          # latency-bound: no pipeline
    deep = tuner.best_chunks("nvls", lp, 2**33)
    assert deep > 8
    t = [tuner.closed_form_time("nvls", lp, 2**33, c) for c in (1, deep)]
    assert t[1] < t[0]


def test_max_ops_caps_the_pipeline(pod):
    sw = tuner.simulated_sweep(pod, [2.0**30], ["ring", "recursive_doubling"],
                               max_ops=140_000)
    assert sw.chunks[0, 0] == 1                               # 130,560 ops per ring chunk
    assert sw.chunks[1, 0] >= 1


def test_crossovers_interpolate_linear_curves():
    sizes = np.array([1.0, 2.0, 4.0])
    # a: 1 + n, b: 2 + n/2 -> equal at n = 2 ... shifted so the crossing is inside (2, 4)
    a = 1.0 + sizes
    b = 2.5 + sizes / 2
    sw = tuner.Sweep("x", 2, sizes, ("a", "b"), np.vstack([a, b]),
                     np.ones((2, 3), dtype=np.int64), ("closed form",) * 2)
    ((x, frm, to),) = sw.crossovers()
    assert (frm, to) == ("a", "b") and x == pytest.approx(3.0)
    assert list(sw.best_index()) == [0, 0, 1]
    assert sw.crossovers(among=["a"]) == []
    ties = tuner.Sweep("x", 2, sizes, ("a", "b"), np.vstack([a, a * (1 - 1e-3)]),
                       np.ones((2, 3), dtype=np.int64), ("closed form",) * 2)
    assert ties.crossovers() == []                            # within rtol: no flip


def test_busbw_uses_the_nccl_tests_factor(dgx):
    sw = tuner.closed_form_sweep(tuner.link_params(dgx), [2.0**30], ["ring"])
    assert sw.busbw[0, 0] == pytest.approx(sw.algbw[0, 0] * 2 * 7 / 8)


def test_combine(dgx):
    lp = tuner.link_params(dgx)
    a = tuner.closed_form_sweep(lp, [2.0**20], ["ring"])
    b = tuner.simulated_sweep(dgx, [2.0**20], ["nvls"])
    c = a.combine(b)
    assert c.algorithms == ("ring", "nvls") and c.methods == ("closed form", "simulated")
    with pytest.raises(ValueError, match="twice"):
        a.combine(a)
    with pytest.raises(ValueError, match="same fabric"):
        a.combine(tuner.closed_form_sweep(lp, [2.0**21], ["nvls"]))


def test_bad_input(dgx):
    lp = tuner.link_params(dgx)
    with pytest.raises(ValueError, match="unknown algorithm"):
        tuner.closed_form_sweep(lp, [1e6], ["bogus"])
    with pytest.raises(ValueError, match="positive"):
        tuner.closed_form_sweep(lp, [-1.0])
    with pytest.raises(ValueError, match="chunks"):
        tuner.closed_form_sweep(lp, [1e6], ["ring"], chunks=0)
    with pytest.raises(ValueError, match="none of"):
        tuner.closed_form_sweep(lp, [1e6], ["hierarchical"])
    with pytest.raises(ValueError, match="n_ranks"):
        tuner.link_params(dgx, 9)
    with pytest.raises(ValueError, match="ranks_per_node"):
        tuner.link_params(dgx, 8, 3)
    with pytest.raises(ValueError, match="among"):
        tuner.closed_form_sweep(lp, [1e6], ["ring"]).best_index(among=["nvls"])


def test_speedup_stays_below_the_ideal(dgx):
    from nvlearn.collectives.volume import ideal_in_network_speedup

    lp = tuner.link_params(dgx)
    s = tuner.speedup(lp, [2.0**20, 2.0**33])
    assert 1.4 < s[1] < ideal_in_network_speedup(8)
    derated = tuner.speedup(lp, [2.0**33], fast_bw_factor=0.85)
    assert derated[0] < s[1]
    with pytest.raises(ValueError, match="fast_bw_factor"):
        tuner.speedup(lp, [1e6], fast_bw_factor=0.0)


def test_gpu_traffic_matches_the_volume_formulas(dgx):
    n = 2.0**26
    ring = tuner.gpu_traffic(tuner.simulate_allreduce(dgx, "ring", n, 2))
    nvls = tuner.gpu_traffic(tuner.simulate_allreduce(dgx, "nvls", n, 2))
    np.testing.assert_allclose(ring[0] / n, 2 * 7 / 8)
    np.testing.assert_allclose(ring[1] / n, 2 * 7 / 8)
    np.testing.assert_allclose(nvls[0] / n, 1 + 1 / 8)
    np.testing.assert_allclose(nvls[1] / n, 1 + 1 / 8)
