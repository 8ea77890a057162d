"""SerDes: how bits become symbols on a wire, and how symbols become a GPU's GB/s.

Submodules (one idea each):

- :mod:`~nvlearn.serdes.pam` — PAM-N levels, Gray labels, error-rate theory (Q-function).
- :mod:`~nvlearn.serdes.chain` — the bandwidth chain: baud x bits -> codes -> lanes -> links.
- :mod:`~nvlearn.serdes.channel` — numba Monte Carlo link: ISI, noise, jitter, FFE/DFE, eyes.
- :mod:`~nvlearn.serdes.fec` — RS FEC: codeword error rates, bursts, latency vs retry.
- :mod:`~nvlearn.serdes.stats` — Q-function, dB, binomial confidence intervals.

The most used names are re-exported here.

References
----------
IEEE Std 802.3ck-2022 (100 Gb/s per lane electrical interfaces: PAM4 at 53.125 GBd) and
IEEE Std 802.3df-2024 (800 Gb/s Ethernet on 100 Gb/s lanes); IEEE Std 802.3 Clause 91
(RS(528,514) and RS(544,514) FEC); OIF Common Electrical I/O implementation agreement
OIF-CEI-05.0 (CEI-112G); J. G. Proakis and M. Salehi, "Digital Communications", 5th ed.,
McGraw-Hill, 2008. Each submodule cites what it uses.

Examples
--------
>>> from nvlearn import serdes
>>> serdes.raw_lane_rate(53.125e9, "PAM4") * 8 / 1e9   # Gb/s
106.25
"""

from nvlearn.serdes.chain import (
    BandwidthChain,
    ChainStep,
    Overhead,
    bandwidth_chain,
    block_code,
    flit,
    gpu_bw_per_dir,
    link_bw_per_dir,
    nvlink_chain,
    nvlink_vs_pcie,
    payload_rate,
    pcie_chain,
    raw_lane_rate,
    reed_solomon,
)
from nvlearn.serdes.channel import Eye, LinkResult, scale_loss_db, simulate_link
from nvlearn.serdes.fec import (
    RSCode,
    codeword_error_rate,
    codeword_time,
    frame_error_rate,
    required_pre_fec_ber,
    retry_cost,
    simulate_codewords,
)
from nvlearn.serdes.pam import (
    bits_per_symbol,
    modulation_order,
    pam_ber,
    pam_ser,
    snr_for_ber,
)
from nvlearn.serdes.stats import db_to_linear, linear_to_db

__all__ = [
    "BandwidthChain",
    "ChainStep",
    "Eye",
    "LinkResult",
    "Overhead",
    "RSCode",
    "bandwidth_chain",
    "bits_per_symbol",
    "block_code",
    "codeword_error_rate",
    "codeword_time",
    "db_to_linear",
    "flit",
    "frame_error_rate",
    "gpu_bw_per_dir",
    "linear_to_db",
    "link_bw_per_dir",
    "modulation_order",
    "nvlink_chain",
    "nvlink_vs_pcie",
    "pam_ber",
    "pam_ser",
    "payload_rate",
    "pcie_chain",
    "raw_lane_rate",
    "reed_solomon",
    "required_pre_fec_ber",
    "retry_cost",
    "scale_loss_db",
    "simulate_codewords",
    "simulate_link",
    "snr_for_ber",
]
