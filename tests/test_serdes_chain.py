"""The bandwidth chain: each formula, and the chain against the hardware catalogue."""

from __future__ import annotations

import pytest

from nvlearn import specs
from nvlearn.serdes import chain


def gbps(rate_bytes_per_s: float) -> float:
    return rate_bytes_per_s * 8 / 1e9


def test_raw_lane_rate_is_baud_times_bits():
    assert gbps(chain.raw_lane_rate(53.125e9, "PAM4")) == pytest.approx(106.25)
    assert gbps(chain.raw_lane_rate(25.78125e9, "NRZ")) == pytest.approx(25.78125)
    assert gbps(chain.raw_lane_rate(10e9, "PAM8")) == pytest.approx(30.0)
    with pytest.raises(ValueError, match="symbol_rate"):
        chain.raw_lane_rate(-1.0, "NRZ")
    with pytest.raises(ValueError, match="modulation"):
        chain.raw_lane_rate(1e9, "PAM5")


def test_codes_and_their_efficiencies():
    assert chain.block_code(64, 66).efficiency == pytest.approx(64 / 66)
    assert chain.block_code(128, 130).overhead == pytest.approx(2 / 128)
    assert chain.block_code(256, 257).name == "256b/257b"
    assert chain.reed_solomon(544, 514).efficiency == pytest.approx(514 / 544)
    assert chain.flit(236, 256).efficiency == pytest.approx(236 / 256)
    # RS(544,514) with 256b/257b transcoding: exactly 17/16 line bits per data bit
    both = chain.reed_solomon(544, 514).efficiency * chain.block_code(256, 257).efficiency
    assert 1 / both == pytest.approx(17 / 16, rel=1e-15)


@pytest.mark.parametrize(
    ("factory", "args", "match"),
    [
        (chain.reed_solomon, (544, 600), "parity"),   # more parity than the codeword holds
        (chain.reed_solomon, (544, 544), "parity"),
        (chain.reed_solomon, (0, 0), "n >= 1"),
        (chain.block_code, (66, 64), "data_bits < coded_bits"),
        (chain.flit, (300, 256), "payload < flit"),
    ],
)
def test_impossible_codes_raise(factory, args, match):
    with pytest.raises(ValueError, match=match):
        factory(*args)


def test_lane_chain_closes_exactly():
    """53.125 GBd PAM4 -> 106.25 Gb/s raw -> 100 Gb/s -> 25 GB/s -> 450 GB/s -> 900 GB/s."""
    raw = chain.raw_lane_rate(53.125e9, "PAM4")
    lane = chain.payload_rate(raw, [chain.reed_solomon(544, 514), chain.block_code(256, 257)])
    assert gbps(raw) == 106.25
    assert gbps(lane) == pytest.approx(100.0, rel=1e-15)
    link = chain.link_bw_per_dir(lane, 2)
    assert link == pytest.approx(25e9, rel=1e-15)
    gpu = chain.gpu_bw_per_dir(link, 18)
    assert gpu == pytest.approx(450e9, rel=1e-15)
    c = chain.bandwidth_chain(53.125e9, "PAM4",
                              [chain.reed_solomon(544, 514), chain.block_code(256, 257)],
                              lanes_per_direction=2, links=18)
    assert c.gpu_bw_bidir == pytest.approx(900e9, rel=1e-15)
    assert [s.scope for s in c.steps] == ["lane", "lane", "lane", "link", "gpu", "gpu"]
    assert [s.direction for s in c.steps][-2:] == ["per_direction", "bidirectional"]
    assert c.steps[-1].factor == 2.0 and c.efficiency == pytest.approx(16 / 17)


def test_chain_input_validation():
    with pytest.raises(ValueError, match="lanes_per_direction"):
        chain.link_bw_per_dir(1e9, 0)
    with pytest.raises(ValueError, match="links"):
        chain.gpu_bw_per_dir(1e9, 1.5)
    with pytest.raises(ValueError, match="Overhead"):
        chain.payload_rate(1e9, [0.97])


@pytest.mark.parametrize("gen", [1, 2, 3, 4, 5])
def test_nvlink_chain_equals_catalogue(gen):
    spec = specs.nvlink(gen)
    c = chain.nvlink_chain(gen)
    assert c.raw_lane_rate == pytest.approx(spec.lane_rate_raw, rel=1e-12)
    assert c.link_bw_per_dir == pytest.approx(spec.link_bw_per_dir, rel=1e-12)
    assert c.gpu_bw_per_dir == pytest.approx(spec.gpu_bw_per_dir, rel=1e-12)
    assert c.gpu_bw_bidir == pytest.approx(spec.gpu_bw_bidir_published, rel=1e-12)


@pytest.mark.parametrize("gen", [3, 4, 5, 6])
def test_pcie_chain_equals_catalogue(gen):
    spec = specs.pcie(gen)
    c = chain.pcie_chain(gen)
    # one line bit per transfer: baud x bits/symbol = GT/s (Gen6: 32 GBd PAM4 = 64 GT/s)
    assert c.raw_lane_rate * 8 == pytest.approx(spec.transfer_rate, rel=1e-12)
    fraction = spec.flit_payload_fraction or 1.0
    assert c.gpu_bw_per_dir == pytest.approx(spec.x16_bw_per_dir * fraction, rel=1e-12)


def test_pcie_values_independently():
    assert chain.pcie_chain(3).gpu_bw_per_dir == pytest.approx(8e9 * 16 * 128 / 130 / 8)
    assert chain.pcie_chain(5).gpu_bw_per_dir == pytest.approx(32e9 * 16 * 128 / 130 / 8)
    assert chain.pcie_chain(6).gpu_bw_per_dir == pytest.approx(128e9 * 236 / 256)
    assert chain.pcie_chain(4, lanes=4).gpu_bw_per_dir == pytest.approx(16e9 * 4 * 128 / 130 / 8)


def test_network_ports_use_the_same_chain():
    """NDR InfiniBand and 400GbE lanes are the NVLink 4 lane: same codes, same payload."""
    for port in (specs.infiniband("ndr"), specs.ethernet("400gbe")):
        codes = [chain.catalogue_overhead(port.fec), chain.catalogue_overhead(port.encoding)]
        c = chain.bandwidth_chain(port.symbol_rate, port.modulation, codes,
                                  lanes_per_direction=port.lanes)
        assert c.link_bw_per_dir == pytest.approx(port.port_bw_per_dir, rel=1e-12)
    assert chain.catalogue_overhead("1b/1b") is None


def test_seven_times_pcie_gen5_is_bidirectional_over_bidirectional():
    rows = chain.nvlink_vs_pcie(4, 5)
    published, payload, link, lane, slip = rows
    assert published.ratio == pytest.approx(900 / 128)
    assert payload.ratio == pytest.approx(450 / (32 * 16 * 128 / 130 / 8))
    assert link.ratio < 1  # one NVLink 4 link is slower than one x16 Gen5 slot
    assert lane.ratio == pytest.approx(100 / (32 * 128 / 130))
    assert slip.ratio > 14
