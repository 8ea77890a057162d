"""Self-checks for notebook 02 (SerDes: lanes, symbols, codes and FEC).

Every reference is computed by :mod:`nvlearn.serdes` from the catalogue; hints never
contain the answer.
"""

from __future__ import annotations

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify
from nvlearn.serdes.chain import nvlink_chain, pcie_chain
from nvlearn.serdes.fec import catalogue_code, codeword_error_rate, codeword_time, frame_error_rate
from nvlearn.serdes.pam import snr_for_ber
from nvlearn.units import from_si

_KP4 = "RS(544,514)"


def lane_payload(answer) -> CheckResult:
    """Exercise 1: payload of one NVLink 4 lane, Gb/s per direction."""
    ref = from_si(nvlink_chain(4).lane_payload_rate, "Gb/s")
    return verify(
        answer, ref, unit="Gb/s", rtol=0.001,   # below the 256b/257b step (0.39 %)
        hint="start from baud x bits per symbol, then keep only each code's payload share "
             "(k/n for the FEC, data/coded bits for the transcoder)",
    )


def pcie6_payload_per_dir(answer) -> CheckResult:
    """Exercise 2: TLP payload of a PCIe 6 x16 slot, GB/s per direction."""
    ref = from_si(pcie_chain(6).gpu_bw_per_dir, "GB/s")
    return verify(
        answer, ref, unit="GB/s",
        hint="PCIe 6 runs PAM4 (how many bits per symbol?) and has no 128b/130b; the flit "
             "decides how much of each 256 bytes is data. One direction, 16 lanes.",
    )


def pam4_penalty_db(answer) -> CheckResult:
    """Exercise 3: SNR penalty of PAM4 vs NRZ at BER 1e-12 (same swing), dB."""
    ref = snr_for_ber(1e-12, "PAM4") - snr_for_ber(1e-12, "NRZ")
    return verify(
        answer, ref, unit="dB", rtol=0.02,
        hint="compare the SNR each modulation needs for the same BER (snr_for_ber), or "
             "think of how much smaller PAM4's eye is, as a power ratio in dB",
    )


def fec_codeword_time_ns(answer) -> CheckResult:
    """Exercise 4: time to receive one RS(544,514) codeword over one NVLink 4 link, ns."""
    nv4 = specs.nvlink(4)
    ref = codeword_time(catalogue_code(_KP4), nv4.lane_rate_raw, nv4.lanes_per_direction)
    return verify(
        answer, from_si(ref, "ns"), unit="ns",
        hint="codeword bits divided by the link's raw bit rate (all its lanes, one "
             "direction); the decoder cannot finish before the last bit arrives",
    )


def cer_growth_when_ber_doubles(answer) -> CheckResult:
    """Exercise 5: factor by which the codeword error rate grows when the pre-FEC BER doubles
    from the operating point."""
    code = catalogue_code(_KP4)
    ber = specs.fec(_KP4).pre_fec_ber
    ref = codeword_error_rate(2 * ber, code) / codeword_error_rate(ber, code)
    return verify(
        answer, ref, unit="1", rtol=0.05,
        hint="2^(t+1) is only the small-BER limit; evaluate codeword_error_rate at both "
             "BERs and divide",
    )


def frames_hit_without_fec(answer) -> CheckResult:
    """Exercise 6: fraction of 5440-bit frames with at least one error at the operating
    pre-FEC BER if there were no FEC (only CRC and retry)."""
    code = catalogue_code(_KP4)
    ref = frame_error_rate(specs.fec(_KP4).pre_fec_ber, code.codeword_bits)
    return verify(
        answer, ref, unit="1", rtol=0.02,
        hint="a frame is clean only if every one of its bits is: (1 - BER) to the power "
             "of the frame's bits",
    )
