"""SerDes figures: they draw, label their axes with units, and say the direction of rates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from nvlearn.plots import serdes as P
from nvlearn.serdes import chain
from nvlearn.serdes.channel import simulate_link
from nvlearn.serdes.fec import RSCode, simulate_codewords


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_eye_diagram_labels_and_ber_text():
    r = simulate_link(20_000, "PAM4", snr_db=18, seed=2)
    fig = P.eye_diagram(r)
    ax = fig.axes[0]
    assert "(UI)" in ax.get_xlabel() and "transmit peak" in ax.get_ylabel()
    assert any("measured BER" in t.get_text() for t in ax.texts)
    assert len([ln for ln in ax.lines if ln.get_linestyle() == "--"]) == 3  # PAM4 thresholds


def test_ber_curves_show_the_gap():
    runs = {m: [simulate_link(20_000, m, snr_db=s, eye_symbols=16) for s in grid]
            for m, grid in (("NRZ", (6, 8)), ("PAM4", (14, 16)))}
    ax = P.ber_curves(runs).axes[0]
    assert ax.get_yscale() == "log" and "(dB)" in ax.get_xlabel()
    assert any(t.get_text().endswith("dB at BER 1e-05") for t in ax.texts)


def test_waterfall_says_direction_on_every_rate_axis():
    fig = P.chain_waterfall(chain.nvlink_chain(4))
    lane, up = fig.axes
    assert "per direction" in lane.get_ylabel() and "(Gb/s)" in lane.get_ylabel()
    assert "per direction" in up.get_ylabel() and "both directions" in up.get_ylabel()
    labels = " ".join(t.get_text() for t in up.texts)
    assert "900 GB/s\nboth directions" in labels and "450 GB/s\nper direction" in labels


def test_generation_chart_annotates_ratio():
    rows = [(c.name, "nvlink", c.gpu_bw_per_dir) for c in map(chain.nvlink_chain, (3, 4))]
    rows += [(c.name, "pcie", c.gpu_bw_per_dir) for c in map(chain.pcie_chain, (5,))]
    ax = P.generation_chart(rows, ratio=(rows[1][0], rows[2][0])).axes[0]
    assert "per direction" in ax.get_xlabel() and "(GB/s)" in ax.get_xlabel()
    assert any("7.14 x PCIe 5 x16" in t.get_text() for t in ax.texts)


def test_fec_curves_with_monte_carlo():
    code = RSCode(544, 514)
    mcs = [simulate_codewords(b, code, 5_000, burst_bits=k, seed=1)
           for k, b in ((1, 2e-3), (40, 5e-3))]
    ax = P.fec_curves(code, monte_carlo=mcs, burst_bits=(1, 8), operating_ber=2.4e-4).axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = ax.get_legend_handles_labels()[1]
    assert "formula, bursts of 8 bits" in labels and "Monte Carlo, bursts of 40 bits" in labels
