"""Self-checks for notebook 02 (SerDes: lanes, symbols, codes and FEC).

Every reference is computed by :mod:`nvlearn.serdes` from the catalogue; hints never
contain the answer. The exercises are re-parameterised so that no answer is printed above
them: notebook 02 works NVLink 4 through, the exercises ask about NVLink 5, PAM8, a 50 %
rise of the pre-FEC BER and a frame size the text never uses.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify
from nvlearn.serdes.chain import bandwidth_chain, block_code, reed_solomon
from nvlearn.serdes.channel import simulate_link
from nvlearn.serdes.fec import catalogue_code, codeword_error_rate, codeword_time, frame_error_rate
from nvlearn.serdes.pam import snr_for_ber
from nvlearn.units import from_si
from nvlearn.widgets.serdes import EQUALISER_TAPS

__all__ = [
    "EYE_TASK", "cer_growth_at_one_and_a_half", "closing_loss_db", "eye_closing_loss",
    "largest_frame_without_fec", "nvlink5_codeword_ns", "pam8_penalty_db", "payload_function",
]

_KP4 = "RS(544,514)"

#: The explorer task of exercise 2: modulation, peak SNR (dB), target BER, symbols, seed.
EYE_TASK = {"modulation": "PAM4", "snr_db": 28.0, "target_ber": 1e-3, "n_symbols": 100_000,
            "seed": 2}


def payload_function(fn: Callable) -> CheckResult:
    """Exercise 1: ``fn(symbol_rate, modulation, codes, lanes, links)`` gives a device's
    payload in bytes/s per direction; checked on NVLink 5 (not worked in the notebook)."""
    nv5 = specs.nvlink(5)
    codes = [(514, 544), (256, 257)]
    if not callable(fn):
        return CheckResult(False, "not yet — pass the function itself (its name, no brackets)")
    ref = bandwidth_chain(nv5.symbol_rate, nv5.modulation,
                          [reed_solomon(544, 514), block_code(256, 257)],
                          lanes_per_direction=nv5.lanes_per_direction,
                          links=nv5.links_per_gpu).gpu_bw_per_dir
    try:
        got = fn(nv5.symbol_rate, nv5.modulation, codes, nv5.lanes_per_direction,
                 nv5.links_per_gpu)
    except Exception as err:  # the learner's code: report, never raise
        return CheckResult(False, f"not yet — your function raised {type(err).__name__}: {err}")
    if got is None:
        return CheckResult(False, "not yet — the function returns None: write its body")
    return verify(got, ref, unit="B/s", rtol=1e-4, hint=(
        "raw lane rate = baud x bits per symbol (PAM4: 2) / 8 bytes; each code keeps "
        "data/coded of it; then x lanes x links",
        "returns bytes/s, one direction: no factor 2, and divide bits by 8 once"))


@functools.cache
def closing_loss_db(modulation: str, snr_db: float, target_ber: float, *,
                    n_symbols: int = 100_000, seed: int = 2,
                    losses: range = range(0, 21)) -> float | None:
    """The smallest channel loss (whole dB) at which the equalised link's measured BER
    reaches ``target_ber`` -- what the eye explorer shows, swept -- or None within ``losses``.

    Parameters
    ----------
    modulation : {"NRZ", "PAM4", "PAM8"}
        The line code (:func:`nvlearn.serdes.channel.simulate_link`).
    snr_db : float
        Peak SNR at the receiver input, dB.
    target_ber : float
        The bit error rate that counts as closed, in (0, 1).
    n_symbols : int
        Symbols simulated per loss (>= 16).
    seed : int
        Seed of the simulated noise and symbols (the same at every loss).
    losses : range of int
        Channel losses at Nyquist tried in order, dB (0 .. 60).

    Returns
    -------
    float or None
        The first loss in ``losses`` whose measured BER reaches ``target_ber``, dB; None if
        none does.
    """
    for loss in losses:
        r = simulate_link(n_symbols, modulation, snr_db=snr_db, loss_db=float(loss),
                          seed=seed, **EQUALISER_TAPS)
        if r.ber >= target_ber:
            return float(loss)
    return None


def eye_closing_loss(answer) -> CheckResult:
    """Exercise 2: the loss at which the explorer's equalised eye reaches the target BER."""
    task = dict(EYE_TASK)
    ref = closing_loss_db(task.pop("modulation"), task.pop("snr_db"), task.pop("target_ber"),
                          **task)
    return verify(answer, ref, unit="dB", atol=1.0, rtol=0.0, hint=(
        "set the explorer to the task's modulation and SNR, equaliser on, and raise the loss "
        "one dB at a time; read the BER under the eye",
        "the first loss whose BER is at or above the target, not the last one below it"))


def pam8_penalty_db(answer) -> CheckResult:
    """Exercise 4: extra peak SNR PAM8 needs over PAM4 at BER 1e-12 (same swing), dB."""
    ref = snr_for_ber(1e-12, "PAM8") - snr_for_ber(1e-12, "PAM4")
    return verify(answer, ref, unit="dB", rtol=0.002, hint=(
        "derive the level spacing of PAM-M for the same swing: (M - 1) gaps; the eye-height "
        "ratio as a power ratio is an estimate",
        "the estimate is the low-BER limit; the exact gap at 1e-12 comes from snr_for_ber, "
        "which also counts how many neighbours each level has"))


def nvlink5_codeword_ns(answer) -> CheckResult:
    """Exercise 5: time to receive one RS(544,514) codeword over one NVLink 5 link, ns."""
    nv5 = specs.nvlink(5)
    ref = codeword_time(catalogue_code(_KP4), nv5.lane_rate_raw, nv5.lanes_per_direction)
    return verify(answer, from_si(ref, "ns"), unit="ns", rtol=0.01, hint=(
        "codeword bits (n symbols x m bits) over the link's raw bit rate in one direction, "
        "all its lanes",
        "NVLink 5 keeps the lanes per link and doubles the baud of NVLink 4"))


def cer_growth_at_one_and_a_half(answer) -> CheckResult:
    """Exercise 6: factor by which the codeword error rate grows when the pre-FEC BER rises
    by 50 % from the catalogued operating point."""
    code = catalogue_code(_KP4)
    ber = specs.fec(_KP4).pre_fec_ber
    ref = codeword_error_rate(1.5 * ber, code) / codeword_error_rate(ber, code)
    return verify(answer, ref, unit="1", rtol=0.02, hint=(
        "1.5^(t+1) is only the small-BER limit of the binomial tail; evaluate "
        "codeword_error_rate at both BERs and divide",
        "at the operating point more than t+1 symbol errors per codeword are common enough "
        "to matter: the exact ratio is smaller than the limit"))


def largest_frame_without_fec(answer) -> CheckResult:
    """Exercise 7: the largest frame (bits) that a CRC-and-retry link without FEC delivers
    error-free 99 % of the time at the catalogued pre-FEC BER."""
    ber = specs.fec(_KP4).pre_fec_ber
    n = math.floor(math.log1p(-0.01) / math.log1p(-ber))
    while frame_error_rate(ber, n + 1) <= 0.01:     # the package's own rate decides the edge
        n += 1
    while n > 1 and frame_error_rate(ber, n) > 0.01:
        n -= 1
    return verify(answer, n, unit="1", rtol=0.0, atol=0.5, hint=(
        "a frame is clean only if all of its bits are: (1 - BER)^bits >= 0.99; solve for bits "
        "with logarithms",
        "a whole number of bits, the largest one that still meets the 1 % target"))
