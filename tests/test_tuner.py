"""The NCCL-style chooser: hand-calculated table entries, choices, crossovers, bad input.

Expected values are worked out by hand from NCCL 2.30.7's tuning.cc constants (the numbers
in hardware-facts §4b-4d), independently of the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from nvlearn import collectives, tuner
from nvlearn.topology import dgx_h100, ib_cluster, nvlink_pod, pcie_box

US, GB = 1e-6, 1e9


@pytest.fixture(scope="module")
def dgx():
    return dgx_h100()


@pytest.fixture(scope="module")
def dgx_table(dgx):
    return {(c.algorithm, c.protocol): c for c in tuner.tune("allreduce", dgx).candidates}


# ---------------------------------------------------------------- hand calculations


@pytest.mark.parametrize("algo, proto, expected_us", [
    ("ring", "ll", 6.6 + 14 * 0.6),          # 15.0 us, the worked example
    ("ring", "ll128", 14 + 14 * 1.9),        # 40.6
    ("ring", "simple", 8.4 + 14 * 3.4),      # 56.0
    ("tree", "ll", 6.8 + 2 * 7 * 0.6),       # 15.2
    ("tree", "ll128", 14 + 2 * 7 * 1.25),    # 31.5
    ("tree", "simple", 8.4 + 2 * 7 * 4.0),   # 64.4
    ("nvls", "simple", 25.0),                # NVLS: hwLat replaces the base
])
def test_single_node_latencies_match_hand_calculation(dgx_table, algo, proto, expected_us):
    assert dgx_table[(algo, proto)].latency == pytest.approx(expected_us * US, rel=1e-12)


def test_single_node_bandwidths_match_hand_calculation(dgx_table):
    nvlink = 18 * 20.6 * GB                        # 18 links x SM90_NVLINK_BW
    ring = 8 / 14                                  # nRanks / nsteps
    assert dgx_table[("ring", "simple")].alg_bw == pytest.approx(nvlink * ring)
    assert dgx_table[("ring", "ll")].bus_bw == pytest.approx(141 * GB)   # min(185.4, llMaxBw)
    assert dgx_table[("ring", "ll")].alg_bw == pytest.approx(141 * GB * ring)
    assert dgx_table[("ring", "ll128")].alg_bw == pytest.approx(nvlink * 120 / 128 * ring)
    assert dgx_table[("tree", "simple")].alg_bw == pytest.approx(nvlink * 0.5)
    # NCCL's own figure, and the one the table uses: capped at NVLS's traffic bound
    assert dgx_table[("nvls", "simple")].nccl_bus_bw == pytest.approx(nvlink * 0.85 * 2)
    assert dgx_table[("nvls", "simple")].bus_bw == pytest.approx(2 * 7 / 9 * nvlink * 0.85)
    # busbw -> algbw: x p / (2 (p-1)), i.e. n (1 + 1/p) at 85 % of the NVLinks
    assert dgx_table[("nvls", "simple")].alg_bw == pytest.approx(nvlink * 0.85 * 8 / 9)


def test_predicted_time_is_latency_plus_bytes_over_algbw(dgx):
    n = 2**20
    choice = tuner.choose("allreduce", n, dgx)
    by_label = {c.label: t for c, t in choice.rows()}
    expected = 56e-6 + n / (18 * 20.6 * GB * 8 / 14)
    assert by_label["Ring/Simple"] == pytest.approx(expected, rel=1e-12)
    assert choice.time == min(by_label.values())


def test_multi_node_infiniband_hand_calculation():
    t = tuner.tune("allreduce", ib_cluster(nodes=4))
    c = {(x.algorithm, x.protocol): x for x in t.candidates}
    # 32 ranks, 4 nodes: nsteps 62, of which 2 (4 - 1) = 6 cross nodes over the network
    assert c[("ring", "ll")].latency == pytest.approx((6.6 + 56 * 0.6 + 6 * 2.7) * US)
    assert c[("ring", "simple")].latency == pytest.approx((8.4 + 56 * 3.4 + 6 * 14) * US)
    # tree: chain of 8 in the node, log2(4) = 2 network levels, both ways
    assert c[("tree", "simple")].latency == pytest.approx((8.4 + 2 * (7 * 4 + 2 * 14)) * US)
    assert c[("nvls_tree", "simple")].latency == pytest.approx((25 + 2 * 2 * 20.9) * US)
    # LL across nodes: capped by llMaxBws' Intel row at >= 4 nodes, 20.4 GB/s
    assert c[("ring", "ll")].bus_bw == pytest.approx(20.4 * GB)
    # NVLSTree: min(NVLink x 0.85 x 2, the node's 8 x 400 Gb/s NICs)
    assert c[("nvls_tree", "simple")].bus_bw == pytest.approx(8 * 50 * GB)
    assert not c[("nvls", "simple")].enabled            # needs CollNet across nodes


def test_fewer_ranks_fewer_steps(dgx):
    c = {x.label: x for x in tuner.tune("allreduce", dgx, n_ranks=4).candidates}
    assert c["Ring/LL"].latency == pytest.approx((6.6 + 6 * 0.6) * US)
    assert c["Ring/Simple"].alg_bw == pytest.approx(18 * 20.6 * GB * 4 / 6)


def test_allgather_nvls_is_not_converted_to_algbw(dgx):
    c = {x.label: x for x in tuner.tune("allgather", dgx).candidates}
    assert c["NVLS/Simple"].alg_bw == pytest.approx(18 * 20.6 * GB * 0.85 * 7 / 8)
    assert c["Ring/Simple"].alg_bw == pytest.approx(18 * 20.6 * GB * 8 / 7)
    assert c["Ring/LL"].latency == pytest.approx((6.6 + 7 * 0.6) * US)
    assert "Tree/Simple" not in c


def test_protocol_fractions_come_from_the_catalogue():
    from nvlearn import specs
    m = specs.nccl()
    assert m.ll_data_fraction == 0.5
    assert m.ll128_data_fraction == 120 / 128


def test_channels_apply_per_channel_caps(dgx):
    c = {x.label: x for x in tuner.tune("allreduce", dgx, channels=4).candidates}
    assert c["Ring/LL128"].bus_bw == pytest.approx(4 * 36.7 * GB)      # perChMaxRingLL128Bw
    assert c["Tree/Simple"].bus_bw == pytest.approx(4 * 38.7 * GB)     # perChMaxTreeBw
    assert c["NVLS/Simple"].bus_bw == pytest.approx(18 * 20.6 * GB * 0.85 * 3 / 4 * 2)
    one = {x.label: x for x in tuner.tune("allreduce", dgx, channels=1).candidates}
    assert not one["NVLS/Simple"].enabled


# ---------------------------------------------------------------- fabrics


def test_fabric_from_topologies():
    d = tuner.fabric_from_topology(dgx_h100())
    assert (d.intra_link, d.inter_link, d.n_nodes, d.nvswitch) == ("nvlink", None, 1, True)
    assert d.bw_intra == pytest.approx(18 * 20.6 * GB)
    ib = tuner.fabric_from_topology(ib_cluster(nodes=4))
    assert (ib.inter_link, ib.ranks_per_node, ib.n_nodes) == ("net", 8, 4)
    assert ib.bw_inter == pytest.approx(8 * 50 * GB)
    pod = nvlink_pod()
    whole = tuner.fabric_from_topology(pod)
    assert (whole.n_ranks, whole.ranks_per_node, whole.inter_link) == (256, 256, None)
    boxes = tuner.fabric_from_topology(pod, ranks_per_node=8)
    assert (boxes.n_nodes, boxes.inter_link) == (32, "nvlink")
    assert boxes.bw_inter == pytest.approx(72 * 20.6 * GB)          # 18 OSFP x 4 links
    pc = tuner.fabric_from_topology(pcie_box())
    assert (pc.intra_link, pc.nvswitch) == ("pci", False)
    assert all(line for line in d.derivation)


def test_pcie_has_no_ll128_and_no_nvls():
    t = tuner.tune("allreduce", pcie_box())
    off = {c.label: c.reason for c in t.candidates if not c.enabled}
    assert "NVLink" in off["Ring/LL128"] and "NVSwitch" in off["NVLS/Simple"]


def test_builders_exist_in_the_collectives_catalogue():
    for algo in tuner.ALGORITHMS["allreduce"]:
        assert tuner.BUILDERS[algo] in collectives.ALGORITHMS["allreduce"]


# ---------------------------------------------------------------- choices and crossovers


def test_choice_flips_from_ll_to_simple_as_size_grows(dgx):
    ring_only = tuner.tune("allreduce", dgx, algorithms=["ring"])
    protos = [ring_only.at(2.0**k).protocol for k in range(10, 34)]
    assert protos[0] == "ll" and protos[-1] == "simple"
    assert protos == sorted(protos, key=["ll", "ll128", "simple"].index)   # never goes back
    full = tuner.tune("allreduce", dgx)
    assert full.at(2**10).best.label == "Ring/LL"
    assert full.at(2**33).best.label == "NVLS/Simple"


@pytest.mark.parametrize("make, kw", [
    (dgx_h100, {}), (dgx_h100, {"algorithms": ["ring", "tree"]}), (pcie_box, {}),
    (lambda: ib_cluster(nodes=4), {}), (nvlink_pod, {"ranks_per_node": 8}), (nvlink_pod, {}),
])
def test_crossovers_are_monotone_and_match_brute_force(make, kw):
    t = tuner.tune("allreduce", make(), **kw)
    xs = t.crossovers(1.0, 2.0**40)
    sizes = [x.n_bytes for x in xs]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    for a, b in zip(xs, xs[1:], strict=False):
        assert a.to is b.frm
    for x in xs:
        assert x.to.alg_bw > x.frm.alg_bw and x.to.latency > x.frm.latency
        assert t.best(x.n_bytes * (1 - 1e-6)) is x.frm
        assert t.best(x.n_bytes * (1 + 1e-6)) is x.to
    grid = np.logspace(0, 40, 400, base=2.0)
    best = [t.best(n) for n in grid]
    bws = [c.alg_bw for c in best]
    assert all(b2 >= b1 for b1, b2 in zip(bws, bws[1:], strict=False))
    assert len({id(c) for c in best}) == len(xs) + 1


def test_dgx_crossover_position(dgx):
    (x,) = tuner.tune("allreduce", dgx).crossovers()
    # 15 us + n / 80.57 GB/s = 25 us + n / 280.2 GB/s (NVLS moves n (1 + 1/p) each way)
    expected = 10e-6 / (1 / (141 * GB * 8 / 14) - 1 / (18 * 20.6 * GB * 0.85 * 8 / 9))
    assert x.n_bytes == pytest.approx(expected, rel=1e-9)


def test_pod_as_one_nvlink_domain_always_picks_nvls():
    t = tuner.tune("allreduce", nvlink_pod())
    assert t.crossovers() == ()
    assert t.at(2**10).best.label == "NVLS/Simple"


# ---------------------------------------------------------------- rendering


def test_tables_render_with_the_winner_marked(dgx):
    c = tuner.choose("allreduce", 2**10, dgx)
    md = c.to_markdown()
    assert "**>** | Ring/LL" in md and "6.6 + 14 x 0.6 = 15 us" in md
    assert "NVLS runs only the Simple protocol" in md
    h = c.to_html()
    assert h.startswith("<div>") and "Ring/LL" in h and "e8f5d0" in h
    assert c._repr_html_() == h
    assert c.to_html(max_rows=3).count("<tr") == 4
    notes = tuner.source_notes(c)
    assert any("topo.h" in s for s in notes)
    assert any(s.startswith("base_latencies[ring]: src/graph/tuning.cc") and "baseLatencies" in s
               for s in notes)


def test_format_size():
    assert tuner.format_size(1) == "1 B"
    assert tuner.format_size(8 * 2**30) == "8 GiB"


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("size", [-1, 0, math.nan, math.inf])
def test_bad_sizes(dgx, size):
    with pytest.raises(ValueError, match="positive"):
        tuner.choose("allreduce", size, dgx)


def test_bad_collective_and_names(dgx):
    with pytest.raises(ValueError, match="unknown collective"):
        tuner.tune("alltoall", dgx)
    with pytest.raises(ValueError, match="algorithms"):
        tuner.tune("allreduce", dgx, algorithms=["rabenseifner"])
    with pytest.raises(ValueError, match="protocols"):
        tuner.tune("allreduce", dgx, protocols=[])
    with pytest.raises(ValueError, match="no candidate"):
        tuner.tune("allreduce", dgx, algorithms=["nvls"], protocols=["ll"])
    with pytest.raises(ValueError, match="channels"):
        tuner.tune("allreduce", dgx, channels=0)
    with pytest.raises(ValueError, match="Topology"):
        tuner.tune("allreduce", 8)


@pytest.mark.parametrize("n_ranks", [0, 1, 9, 2.5])
def test_bad_rank_counts(dgx, n_ranks):
    with pytest.raises(ValueError, match="n_ranks"):
        tuner.tune("allreduce", dgx, n_ranks=n_ranks)


def test_bad_fabric():
    with pytest.raises(ValueError, match="at least 2 ranks"):
        tuner.Fabric("x", 1, 1, "hopper", "nvlink", None, 1e9, 0.0, True)
    with pytest.raises(ValueError, match="multiple of ranks_per_node"):
        tuner.Fabric("x", 12, 8, "hopper", "nvlink", "net", 1e9, 1e9, True)
    with pytest.raises(ValueError, match="inter_link"):
        tuner.Fabric("x", 16, 8, "hopper", "nvlink", None, 1e9, 1e9, True)
    with pytest.raises(ValueError, match="architecture"):
        tuner.Fabric("x", 8, 8, "turing", "nvlink", None, 1e9, 0.0, True)
    f = tuner.Fabric("x", 8, 8, "hopper", "nvlink", None, 1e9, 0.0, True)
    with pytest.raises(ValueError, match="apply to a Topology"):
        tuner.tune("allreduce", f, n_ranks=4)
    with pytest.raises(ValueError, match="ranks_per_node"):
        tuner.tune("allreduce", pcie_box(), ranks_per_node=4)


def test_algorithm_times_take_the_best_protocol(dgx):
    t = tuner.tune("allreduce", dgx)
    sizes = [2.0**10, 2.0**30]
    ring = t.algorithm_times("ring", sizes)
    rows = [c for c in t.candidates if c.algorithm == "ring"]
    assert ring[0] == pytest.approx(min(c.time(sizes[0]) for c in rows))
    assert ring[1] == pytest.approx(min(c.time(sizes[1]) for c in rows))
    assert np.all(np.isinf(t.algorithm_times("nvls_tree", sizes)))
    with pytest.raises(ValueError, match="candidate"):
        t.algorithm_times("rabenseifner", sizes)
