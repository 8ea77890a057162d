"""Recompute every derived figure in data/hardware.json from its parts.

Each test rebuilds a published or stored figure from the catalogue's own parts and checks
it against the stored figure and, as an independent expectation, the number printed in the
source. Tolerances are tight (rel 1e-12) wherever the arithmetic is exact; where NVIDIA
rounds, the test says how much.
"""

from __future__ import annotations

import pytest

from nvlearn import specs
from nvlearn.units import bits_to_bytes

EXACT = 1e-12
GB = 1e9
TB = 1e12
Gb = 1e9 / 8  # one gigabit per second, in bytes/s
Tb = 1e12 / 8


# --- NVLink -----------------------------------------------------------------------------------


def test_h100_nvlink_per_gpu_totals() -> None:
    h100 = specs.nvlink(4)
    assert h100.links_per_gpu * h100.link_bw_per_dir == pytest.approx(450 * GB, rel=EXACT)
    assert h100.gpu_bw_per_dir == pytest.approx(450 * GB, rel=EXACT)
    assert h100.gpu_bw_bidir == pytest.approx(900 * GB, rel=EXACT)
    assert h100.gpu_bw_bidir == pytest.approx(h100.gpu_bw_bidir_published, rel=EXACT)


@pytest.mark.parametrize(("gen", "published_gb_s"), [(1, 160), (2, 300), (3, 600), (4, 900),
                                                      (5, 1800)])
def test_every_nvlink_generation_per_gpu_total(gen: int, published_gb_s: float) -> None:
    link = specs.nvlink(gen)
    assert link.generation == gen
    total = 2 * link.links_per_gpu * link.link_bw_per_dir
    assert total == pytest.approx(published_gb_s * GB, rel=EXACT)
    assert link.gpu_bw_bidir == pytest.approx(link.gpu_bw_bidir_published, rel=EXACT)


@pytest.mark.parametrize("gen", [1, 2, 3, 4, 5])
def test_nvlink_lane_rate_and_payload_fit(gen: int) -> None:
    link = specs.nvlink(gen)
    assert bits_to_bytes(link.symbol_rate * link.bits_per_symbol) == pytest.approx(
        link.lane_rate_raw, rel=EXACT)
    # payload never exceeds what the lanes signal
    assert link.link_bw_per_dir <= link.link_raw_per_dir * (1 + EXACT)


def test_nvlink4_lane_arithmetic_53_125_gbd_to_25_gb_s_per_link() -> None:
    link = specs.nvlink(4)
    kp4 = specs.fec("RS(544,514)")
    transcode = specs.line_code("256b/257b")
    raw_bits = link.symbol_rate * link.bits_per_symbol
    assert raw_bits == pytest.approx(106.25e9, rel=EXACT)          # 53.125 GBd x 2 bits
    payload_bits = raw_bits * kp4.code_rate * transcode.efficiency
    assert payload_bits == pytest.approx(100e9, rel=EXACT)          # x 514/544 x 256/257
    # and back: 100 x 257/256 x 544/514 = 106.25 exactly
    assert 100e9 / (kp4.code_rate * transcode.efficiency) == pytest.approx(106.25e9, rel=EXACT)
    assert link.lanes_per_direction * bits_to_bytes(payload_bits) == pytest.approx(
        link.link_bw_per_dir, rel=EXACT)                              # 2 x 100 Gb/s = 25 GB/s
    # SGXLS10: per-link raw 26.5625 GB/s
    assert link.link_raw_per_dir == pytest.approx(26.5625 * GB, rel=EXACT)


def test_nvlink_vs_pcie_gen5_ratios() -> None:
    gen5 = specs.pcie(5)
    ratio4 = specs.nvlink(4).gpu_bw_bidir_published / gen5.x16_bw_bidir_published
    assert ratio4 == pytest.approx(900 / 128, rel=EXACT)
    assert ratio4 == pytest.approx(7.03, abs=0.005)      # NVIDIA: "7x PCIe Gen 5" (rounded down)
    ratio5 = specs.nvlink(5).gpu_bw_bidir_published / gen5.x16_bw_bidir_published
    assert ratio5 == pytest.approx(14.06, abs=0.005)     # NVIDIA: "over 14X PCIe Gen5"
    assert specs.nvlink(4).gpu_bw_bidir_published / specs.nvlink(3).gpu_bw_bidir_published == \
        pytest.approx(1.5, rel=EXACT)                    # "1.5x the prior generation"


# --- NVSwitch ---------------------------------------------------------------------------------


def test_nvswitch3_13_6_tb_s_is_64_ports_x_2_lanes_x_106_25_gb_s() -> None:
    sw, link = specs.nvswitch(3), specs.nvlink(4)
    assert sw.nvlink_generation == link.generation
    raw = sw.ports * link.lanes_per_direction * link.lane_rate_raw
    assert raw == pytest.approx(13.6 * Tb, rel=EXACT)
    assert raw == pytest.approx(sw.throughput_published, rel=EXACT)
    assert sw.throughput_direction == "per_direction"
    # payload per direction: 64 x 25 GB/s = 1.6 TB/s = 12.8 Tb/s
    assert sw.ports * link.link_bw_per_dir == pytest.approx(12.8 * Tb, rel=EXACT)


def test_nvswitch2_7_2_tb_s_is_36_ports_x_4_lanes_x_50_gb_s() -> None:
    sw, link = specs.nvswitch(2), specs.nvlink(3)
    raw = sw.ports * link.lanes_per_direction * link.lane_rate_raw
    assert raw == pytest.approx(7.2 * Tb, rel=EXACT)
    assert raw == pytest.approx(sw.throughput_published, rel=EXACT)


@pytest.mark.parametrize(("gen", "published"), [(1, 900 * GB), (4, 7.2 * TB)])
def test_nvswitch_bidirectional_chip_totals(gen: int, published: float) -> None:
    sw = specs.nvswitch(gen)
    link = specs.nvlink(sw.nvlink_generation)
    assert sw.throughput_direction == "bidirectional"
    assert sw.ports * link.link_bw_bidir == pytest.approx(published, rel=EXACT)
    assert sw.ports * link.link_bw_bidir == pytest.approx(sw.throughput_published, rel=EXACT)


# --- DGX H100 ---------------------------------------------------------------------------------


def test_dgx_h100_link_and_port_counts() -> None:
    dgx = specs.system("dgx_h100")
    assert sum(dgx.links_per_gpu_per_switch) == 5 + 4 + 4 + 5 == 18
    assert dgx.links_per_gpu == specs.nvlink(4).links_per_gpu
    assert len(dgx.links_per_gpu_per_switch) == dgx.nvswitch_chips
    assert sum(dgx.network_ports_per_switch) == 20 + 16 + 16 + 20 == 72
    assert sum(dgx.network_ports_per_switch) == dgx.external_nvlink_ports
    assert dgx.osfp_cages * dgx.nvlinks_per_osfp == 18 * 4 == dgx.external_nvlink_ports
    # every switch chip has room for its GPU ports and its network ports
    ports = specs.nvswitch(dgx.nvswitch_generation).ports
    for gpu_ports, net_ports in zip(dgx.gpu_ports_per_switch, dgx.network_ports_per_switch,
                                    strict=True):
        assert gpu_ports + net_ports <= ports
    # network ports are half of the GPU ports on every chip: the 2:1 taper
    for gpu_ports, net_ports in zip(dgx.gpu_ports_per_switch, dgx.network_ports_per_switch,
                                    strict=True):
        assert gpu_ports == 2 * net_ports
    assert dgx.nics == dgx.gpus


def test_dgx_h100_bandwidths() -> None:
    dgx = specs.system("dgx_h100")
    link = specs.nvlink(specs.nvswitch(dgx.nvswitch_generation).nvlink_generation)
    gpu = specs.gpu(dgx.gpu)
    assert link.generation == gpu.nvlink_generation
    total = dgx.gpus * link.gpu_bw_bidir_published
    assert total == pytest.approx(7.2 * TB, rel=EXACT)                  # 8 x 900 GB/s
    assert total == pytest.approx(dgx.gpu_to_gpu_bw_bidir, rel=EXACT)
    uplinks = dgx.external_nvlink_ports * link.link_bw_bidir             # 72 x 50 GB/s
    assert uplinks == pytest.approx(3.6 * TB, rel=EXACT)
    assert uplinks == pytest.approx(dgx.bisection_bw_bidir, rel=EXACT)
    assert dgx.gpu_to_gpu_bw_bidir / dgx.bisection_bw_bidir == pytest.approx(2, rel=EXACT)


# --- the 1U NVLink Switch and the 256-GPU NVLink Switch System --------------------------------


def test_nvlink_switch_1u_ports_and_rate() -> None:
    sw = specs.system("nvlink_switch_1u")
    assert sw.osfp_cages * sw.nvlinks_per_osfp == 32 * 4 == sw.ports == 128
    assert sw.nvswitch_chips * sw.ports_per_chip == 2 * 64 == sw.ports
    assert sw.ports_per_chip == specs.nvswitch(sw.nvswitch_generation).ports
    assert sw.port_bw_per_dir == pytest.approx(specs.nvlink(4).link_bw_per_dir, rel=EXACT)
    # 25.6 Tb/s "full duplex" = 128 ports x 2 lanes x 100 Gb/s, in each direction
    assert sw.ports * 2 * 100 * Gb == pytest.approx(25.6 * Tb, rel=EXACT)
    assert sw.ports * sw.port_bw_per_dir == pytest.approx(sw.bw_per_dir, rel=EXACT)


def test_nvlink_switch_system_counts() -> None:
    pod = specs.system("nvlink_switch_system")
    node = specs.system(pod.node)
    switch = specs.system(pod.switch)
    assert pod.nodes * node.gpus == 32 * 8 == pod.gpus == 256
    assert pod.nodes * node.external_nvlink_ports / switch.ports == 32 * 72 / 128 == 18
    assert pod.nodes * node.external_nvlink_ports == pod.l2_switches * switch.ports
    taper = (node.gpus * specs.nvlink(4).links_per_gpu) / node.external_nvlink_ports
    assert taper == (8 * 18) / 72 == 2
    assert taper == pod.taper


def test_nvlink_switch_system_57_6_tb_s() -> None:
    pod = specs.system("nvlink_switch_system")
    node = specs.system(pod.node)
    switch = specs.system(pod.switch)
    link = specs.nvlink(4)
    uplinks_per_dir = pod.nodes * node.external_nvlink_ports * link.link_bw_per_dir
    assert uplinks_per_dir == pytest.approx(57.6 * TB, rel=EXACT)     # 32 x 72 x 25 GB/s
    assert uplinks_per_dir == pytest.approx(pod.all_to_all_bw, rel=EXACT)
    bisection_bidir = (pod.nodes // 2) * node.external_nvlink_ports * link.link_bw_bidir
    assert bisection_bidir == pytest.approx(pod.all_to_all_bw, rel=EXACT)  # 16 x 72 x 50 GB/s
    l2_total = pod.l2_switches * switch.ports * switch.port_bw_per_dir
    assert l2_total == pytest.approx(pod.all_to_all_bw, rel=EXACT)   # 18 x 128 x 25 GB/s
    non_blocking = pod.gpus * link.gpu_bw_per_dir                     # 256 x 450 GB/s
    assert non_blocking == pytest.approx(115.2 * TB, rel=EXACT)
    assert non_blocking / pod.all_to_all_bw == pytest.approx(pod.taper, rel=EXACT)


def test_nine_x_bisection_over_hdr_a100_superpod() -> None:
    pod = specs.system("nvlink_switch_system")
    hdr = specs.system("dgx_a100_superpod_hdr")
    assert hdr.nodes * hdr.gpus_per_node == pod.gpus
    assert hdr.hca_bw_per_dir == pytest.approx(specs.infiniband("hdr").port_bw_per_dir, rel=EXACT)
    bisection = (hdr.nodes // 2) * hdr.hcas_per_node * 2 * hdr.hca_bw_per_dir
    assert bisection == pytest.approx(6.4 * TB, rel=EXACT)          # 16 x 8 x 200 Gb/s x 2
    assert bisection == pytest.approx(hdr.bisection_bw_bidir, rel=EXACT)
    ratio = pod.all_to_all_bw / hdr.bisection_bw_bidir
    assert ratio == pytest.approx(9, rel=EXACT)
    assert ratio == pytest.approx(pod.bisection_gain_vs_hdr_a100, rel=EXACT)


# --- GB200 NVL72 ------------------------------------------------------------------------------


def test_gb200_nvl72_counts_and_bandwidth() -> None:
    rack = specs.system("gb200_nvl72")
    link = specs.nvlink(specs.gpu(rack.gpu).nvlink_generation)
    chip = specs.nvswitch(rack.nvswitch_generation)
    assert link.generation == chip.nvlink_generation == 5
    assert rack.compute_trays * rack.gpus_per_compute_tray == 18 * 4 == rack.gpus
    chips = rack.switch_trays * rack.nvswitch_chips_per_tray
    assert chips == 9 * 2 == 18 == link.links_per_gpu                 # one link per chip
    assert rack.nvswitch_chips_per_tray * chip.ports == rack.ports_per_switch_tray == 144
    assert rack.gpus * link.links_per_gpu == rack.switch_trays * rack.ports_per_switch_tray
    tray = rack.ports_per_switch_tray * link.link_bw_bidir
    assert tray == pytest.approx(14.4 * TB, rel=EXACT)                # 144 x 100 GB/s
    assert tray == pytest.approx(rack.switch_tray_bw_bidir, rel=EXACT)
    total = rack.gpus * link.gpu_bw_bidir_published
    assert total == pytest.approx(129.6 * TB, rel=EXACT)             # 72 x 1.8 TB/s
    assert total == pytest.approx(rack.switch_trays * rack.switch_tray_bw_bidir, rel=EXACT)
    # NVIDIA rounds 129.6 to "130 TB/s" (0.31 % off)
    assert total == pytest.approx(rack.aggregate_bw_bidir, rel=0.005)
    assert rack.max_nvlink_domain_gpus == 8 * rack.gpus


# --- PCIe -------------------------------------------------------------------------------------

PCIE_X16_PER_DIR = {  # rate x 16 x coding / 8, independent expectations (GB/s)
    3: 8 * 16 * 128 / 130 / 8,     # 15.75
    4: 16 * 16 * 128 / 130 / 8,    # 31.51
    5: 32 * 16 * 128 / 130 / 8,    # 63.02
    6: 64 * 16 / 8,                # 128 (FLIT mode, no line code)
}


@pytest.mark.parametrize("gen", [3, 4, 5, 6])
def test_pcie_x16_per_direction_from_rate_lanes_and_coding(gen: int) -> None:
    p = specs.pcie(gen)
    assert p.generation == gen
    assert p.symbol_rate * p.bits_per_symbol == pytest.approx(p.transfer_rate, rel=EXACT)
    assert p.encoding_efficiency == pytest.approx(specs.line_code(p.encoding).efficiency,
                                                  rel=EXACT)
    assert p.x16_bw_per_dir == pytest.approx(PCIE_X16_PER_DIR[gen] * GB, rel=EXACT)
    assert p.x16_bw_bidir == pytest.approx(2 * p.x16_bw_per_dir, rel=EXACT)
    # the published bidirectional figures round 15.75 / 31.5 / 63.0 up to 16 / 32 / 64 GB/s
    # per direction (at most 1.6 % high); Gen6's 256 GB/s is exact before FLIT overhead
    assert p.x16_bw_bidir == pytest.approx(p.x16_bw_bidir_published, rel=0.016)


def test_pcie_generations_double() -> None:
    for gen in (4, 5, 6):
        assert specs.pcie(gen).transfer_rate == 2 * specs.pcie(gen - 1).transfer_rate
        assert specs.pcie(gen).x16_bw_bidir_published == \
            2 * specs.pcie(gen - 1).x16_bw_bidir_published


def test_pcie6_flit_payload() -> None:
    p6 = specs.pcie(6)
    assert p6.flit_payload_fraction == pytest.approx(236 / 256, rel=EXACT)
    assert p6.x16_bw_per_dir * p6.flit_payload_fraction == pytest.approx(118 * GB, rel=EXACT)
    assert specs.pcie(5).flit_payload_fraction is None


# --- InfiniBand, Ethernet, NIC, FEC, line codes -----------------------------------------------

PORTS = [("infiniband", "edr", 100), ("infiniband", "hdr", 200), ("infiniband", "ndr", 400),
         ("infiniband", "xdr", 800), ("ethernet", "400gbe", 400), ("ethernet", "800gbe", 800)]


@pytest.mark.parametrize(("family", "name", "gbit"), PORTS, ids=[p[1] for p in PORTS])
def test_port_rate_is_lanes_times_lane_payload(family: str, name: str, gbit: float) -> None:
    rate = getattr(specs, family)(name)
    assert bits_to_bytes(rate.symbol_rate * rate.bits_per_symbol) == pytest.approx(
        rate.lane_rate_raw, rel=EXACT)
    assert rate.lanes * rate.lane_bw_per_dir == pytest.approx(gbit * Gb, rel=EXACT)
    assert rate.lanes * rate.lane_bw_per_dir == pytest.approx(rate.port_bw_per_dir, rel=EXACT)


def test_ib_lane_rates() -> None:
    # EDR 25.78125 = 25 x 66/64; HDR 53.125 = 50 x 66/64 x 34/33; NDR 106.25 = 100 x 17/16
    assert specs.infiniband("edr").lane_rate_raw == pytest.approx(25 * 66 / 64 * Gb, rel=EXACT)
    assert specs.infiniband("hdr").lane_rate_raw == pytest.approx(
        50 * 66 / 64 * 34 / 33 * Gb, rel=EXACT)
    assert specs.infiniband("ndr").lane_rate_raw == pytest.approx(
        specs.nvlink(4).lane_rate_raw, rel=EXACT)
    for name in ("hdr", "ndr", "xdr"):
        assert specs.infiniband(name).modulation == "PAM4"
    assert specs.infiniband("edr").modulation == "NRZ"


@pytest.mark.parametrize(("name", "radix", "tbit_bidir"), [("quantum", 40, 16),
                                                           ("quantum2", 64, 51.2)])
def test_ib_switch_capacity_is_ports_x_port_rate_x_2(name: str, radix: int,
                                                      tbit_bidir: float) -> None:
    sw = specs.ib_switch(name)
    assert sw.ports == radix
    total = sw.ports * specs.infiniband(sw.speed).port_bw_bidir
    assert total == pytest.approx(tbit_bidir * Tb, rel=EXACT)
    assert total == pytest.approx(sw.throughput_bidir, rel=EXACT)


def test_connectx7() -> None:
    cx7 = specs.nic("connectx7")
    assert cx7.port_bw_per_dir == pytest.approx(50 * GB, rel=EXACT)   # 400 Gb/s = 50 GB/s
    assert cx7.port_bw_per_dir == pytest.approx(specs.infiniband("ndr").port_bw_per_dir, rel=EXACT)
    assert cx7.port_bw_per_dir == pytest.approx(specs.ethernet("400gbe").port_bw_per_dir,
                                                rel=EXACT)
    host = specs.pcie(cx7.pcie_generation)
    assert cx7.pcie_lanes == host.lanes
    assert host.x16_bw_per_dir > cx7.port_bw_per_dir                  # 63 GB/s > 50 GB/s
    # one NIC per GPU: a DGX H100 node injects 8 x 50 GB/s into the network
    dgx = specs.system("dgx_h100")
    assert specs.nic(dgx.nic) is cx7
    assert dgx.nics * cx7.port_bw_per_dir == pytest.approx(400 * GB, rel=EXACT)


def test_fec_codes() -> None:
    kp4, kr4 = specs.fec("RS(544,514)"), specs.fec("RS(528,514)")
    assert (kp4.n, kp4.k, kp4.symbol_bits, kp4.t) == (544, 514, 10, 15)
    assert (kr4.n, kr4.k, kr4.symbol_bits, kr4.t) == (528, 514, 10, 7)
    for code in (kp4, kr4):
        assert code.t == code.parity_symbols // 2                     # RS corrects (n-k)/2
    assert kp4.codeword_bits == 5440 and kr4.codeword_bits == 5280
    assert kp4.pre_fec_ber == pytest.approx(2.4e-4, rel=EXACT)
    # Intel AN 846: 257/256 x 544/514 = 34/33 x 66/64 = 17/16
    transcode = specs.line_code("256b/257b").efficiency
    assert 1 / (transcode * kp4.code_rate) == pytest.approx(17 / 16, rel=EXACT)
    assert 1 / (transcode * kp4.code_rate) == pytest.approx(
        1 / specs.line_code("64b/66b").efficiency * 34 / 33, rel=EXACT)
    # KR4: 25 x 257/256 x 528/514 = 25.78125 Gb/s, the EDR/100GBASE-KR4 lane
    assert 25 * Gb / (transcode * kr4.code_rate) == pytest.approx(
        specs.infiniband("edr").lane_rate_raw, rel=EXACT)


@pytest.mark.parametrize(("name", "efficiency"), [("64b/66b", 64 / 66), ("128b/130b", 128 / 130),
                                                  ("256b/257b", 256 / 257), ("1b/1b", 1.0)])
def test_line_code_efficiency(name: str, efficiency: float) -> None:
    assert specs.line_code(name).efficiency == pytest.approx(efficiency, rel=EXACT)


# --- GPUs -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "sparse_tflops"), [("a100", 624), ("h100", 1979),
                                                     ("h200", 1979), ("b200", 4500)])
def test_gpu_flops_are_dense_half_of_sparse(name: str, sparse_tflops: float) -> None:
    g = specs.gpu(name)
    assert g.bf16_dense_flops == pytest.approx(sparse_tflops / 2 * TB, rel=EXACT)
    assert g.fp16_dense_flops == pytest.approx(g.bf16_dense_flops, rel=EXACT)
    assert "dense" in (g.provenance["bf16_dense_flops"].note or "")


def test_gpu_table_consistency() -> None:
    names = ("v100", "a100", "h100", "h200", "b200")
    for older, newer in zip(names, names[1:], strict=False):
        assert specs.gpu(newer).hbm_bw >= specs.gpu(older).hbm_bw
        assert specs.gpu(newer).nvlink_generation >= specs.gpu(older).nvlink_generation
    first_gpu_of_its_nvlink = {"v100": "V100", "a100": "A100", "h100": "H100", "h200": "H100",
                               "b200": "B200"}
    for name in names:
        g = specs.gpu(name)
        assert specs.nvlink(g.nvlink_generation).gpu == first_gpu_of_its_nvlink[name]
        assert g.board_power > 0 and g.hbm_capacity > 0
    v100 = specs.gpu("v100")
    assert v100.bf16_dense_flops is None
    assert v100.fp16_dense_flops == pytest.approx(125 * TB, rel=EXACT)
    assert specs.nvlink(v100.nvlink_generation).gpu == "V100"
    # H200 is an H100 with more and faster memory
    h100, h200 = specs.gpu("h100"), specs.gpu("h200")
    assert h200.bf16_dense_flops == h100.bf16_dense_flops
    assert h200.hbm_capacity > h100.hbm_capacity and h200.hbm_bw > h100.hbm_bw


# --- NCCL constants ---------------------------------------------------------------------------


def test_nccl_protocol_data_fractions() -> None:
    m = specs.nccl()
    assert m.ll_data_fraction == pytest.approx(0.5, rel=EXACT)
    assert m.ll128_data_fraction == pytest.approx(120 / 128, rel=EXACT)


def test_nccl_h100_nvlink_bandwidth() -> None:
    m = specs.nccl()
    h100 = specs.nvlink(4)
    assert h100.links_per_gpu * m.nvlink_bw(90) == pytest.approx(370.8 * GB, rel=EXACT)
    assert m.nvlink_bw(90) / h100.link_bw_per_dir == pytest.approx(0.824, rel=EXACT)
    assert m.nvlink_bw(100) / specs.nvlink(5).link_bw_per_dir == pytest.approx(0.802, rel=EXACT)


def test_nccl_worked_single_node_latencies() -> None:
    """hardware-facts.md §4c: 8 GPUs on NVLink, AllReduce (2(n-1) = 14 ring steps)."""
    m = specs.nccl()
    steps = 2 * (8 - 1)
    us = 1e-6
    ring = {p: m.base_latency("ring", p) + steps * m.hw_latency("nvlink", "ring", p)
            for p in specs.PROTOCOLS}
    assert ring["ll"] == pytest.approx(15.0 * us, rel=EXACT)
    assert ring["ll128"] == pytest.approx(40.6 * us, rel=EXACT)
    assert ring["simple"] == pytest.approx(56.0 * us, rel=EXACT)
    tree_ll = m.base_latency("tree", "ll") + 2 * 7 * m.hw_latency("nvlink", "tree", "ll")
    assert tree_ll == pytest.approx(15.2 * us, rel=EXACT)
    tree_simple = m.base_latency("tree", "simple") + 2 * 7 * m.hw_latency("nvlink", "tree",
                                                                          "simple")
    assert tree_simple == pytest.approx(64.4 * us, rel=EXACT)
    nvls = m.hw_latency("nvlink", "nvls", "simple")   # NVLS replaces the base latency
    assert nvls == pytest.approx(25.0 * us, rel=EXACT)


# --- latencies --------------------------------------------------------------------------------


def test_latency_ordering_is_plausible() -> None:
    """Pure switch hops are below 1 us; a GPU->NVSwitch->GPU path fits inside NCCL's own
    per-step latency for its fastest protocol (LL on NVLink, 0.6 us), which includes it."""
    hop = specs.latency("nvlink_hop")
    path = 2 * hop + specs.latency("nvswitch_traversal")
    assert path <= specs.nccl().hw_latency("nvlink", "ring", "ll") * (1 + EXACT)
    assert path == pytest.approx(0.6e-6, rel=EXACT)
    assert specs.latency("pcie_switch_hop") < specs.latency("ib_switch_hop") < 1e-6
    assert specs.latency("nic") < 1e-6
