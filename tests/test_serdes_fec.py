"""RS FEC: the code's parameters, the codeword-error formula, its Monte Carlo check, latency."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

from nvlearn.serdes import fec


def _exact_tail(n: int, t: int, p_bit: float, m: int) -> float:
    """P(Binomial(n, p_symbol) > t) summed in 60-digit decimals: an independent reference."""
    with localcontext() as ctx:
        ctx.prec = 60
        p = 1 - (1 - Decimal(p_bit)) ** m
        return float(sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(t + 1, n + 1)))


def test_kp4_parameters():
    code = fec.RSCode(544, 514)
    assert (code.parity, code.t, code.codeword_bits, code.symbol_bits) == (30, 15, 5440, 10)
    assert code.overhead.efficiency == pytest.approx(514 / 544)
    assert fec.RSCode(528, 514).t == 7


@pytest.mark.parametrize(
    ("n", "k", "m", "match"),
    [(544, 600, 10, "parity"), (544, 544, 10, "parity"), (544, 0, 10, "parity"),
     (544, -5, 10, "parity"), (1100, 1000, 10, "at most"), (15, 11, 0, "symbol_bits")],
)
def test_bad_codes_raise(n, k, m, match):
    with pytest.raises(ValueError, match=match):
        fec.RSCode(n, k, m)


@pytest.mark.parametrize("ber", [1e-4, 5e-4, 2e-3])
def test_codeword_error_rate_is_the_binomial_tail(ber):
    code = fec.RSCode(544, 514)
    expected = _exact_tail(544, 15, ber, 10)
    assert fec.codeword_error_rate(ber, code) == pytest.approx(expected, rel=1e-9)


def test_small_code_by_hand():
    code = fec.RSCode(15, 11, 4)  # t = 2
    assert fec.codeword_error_rate(0.01, code) == pytest.approx(_exact_tail(15, 2, 0.01, 4))
    assert fec.symbol_error_probability(0.01, 4) == pytest.approx(1 - 0.99**4)


def test_cliff_and_operating_point():
    code = fec.RSCode(544, 514)
    ber = np.logspace(-6, -2, 50)
    cer = fec.codeword_error_rate(ber, code)
    assert np.all(np.diff(cer) > 0)
    # halving a low pre-FEC BER cuts CER by about 2^(t+1)
    ratio = fec.codeword_error_rate(1e-5, code) / fec.codeword_error_rate(0.5e-5, code)
    assert 2**15 < ratio < 2**17
    target = 1e-12
    ber_needed = fec.required_pre_fec_ber(target, code)
    assert fec.codeword_error_rate(ber_needed, code) == pytest.approx(target, rel=1e-3)
    assert 2e-4 < ber_needed < 3e-4  # the ~2.4e-4 operating point of KP4 links
    with pytest.raises(ValueError):
        fec.required_pre_fec_ber(2.0, code)


@pytest.mark.parametrize(("ber", "burst"), [(1.5e-3, 1), (2e-3, 1), (3e-3, 1), (4e-3, 40)])
def test_monte_carlo_agrees_with_formula(ber, burst):
    code = fec.RSCode(544, 514)
    mc = fec.simulate_codewords(ber, code, 30_000, burst_bits=burst, seed=11)
    assert mc.measured_ber == pytest.approx(ber, rel=0.05)
    expected = fec.codeword_error_rate(mc.measured_ber, code, burst_bits=burst)
    lo, hi = mc.cer_interval
    sigma = math.sqrt(expected * (1 - expected) / mc.n_codewords)
    assert mc.uncorrectable > 20
    assert lo - 2 * sigma <= expected <= hi + 2 * sigma


def test_monte_carlo_symbol_counts_are_binomial():
    code = fec.RSCode(544, 514)
    mc = fec.simulate_codewords(1e-3, code, 20_000, seed=5)
    p_s = fec.symbol_error_probability(1e-3, 10)
    assert mc.symbol_errors.mean() == pytest.approx(544 * p_s, rel=0.02)
    assert mc.symbol_errors.var() == pytest.approx(544 * p_s * (1 - p_s), rel=0.05)


def test_bursts_spend_corrections_faster_at_low_ber():
    code = fec.RSCode(544, 514)
    independent = fec.codeword_error_rate(2.4e-4, code)
    assert fec.codeword_error_rate(2.4e-4, code, burst_bits=40) > 1e4 * independent
    # a burst of one bit is an independent error: the Poisson form approaches the binomial
    assert fec._compound_poisson_tail(2.4e-4 * 5440, np.array([0.0, 1.0]), 15) == pytest.approx(
        independent, rel=0.3
    )
    with pytest.raises(ValueError, match="burst_bits"):
        fec.codeword_error_rate(1e-3, code, burst_bits=0)
    with pytest.raises(ValueError, match="bit error rate"):
        fec.codeword_error_rate(1.5, code)


def test_latency_and_retry():
    code = fec.RSCode(544, 514)
    # 5440 bits over 2 lanes of 106.25 Gb/s
    assert fec.codeword_time(code, 106.25e9 / 8, lanes=2) == pytest.approx(5440 / 212.5e9)
    assert fec.frame_error_rate(1e-4, 1000) == pytest.approx(1 - (1 - 1e-4) ** 1000)
    cost = fec.retry_cost(0.5, round_trip=100e-9, frame_time=10e-9)
    assert cost.transmissions == pytest.approx(2.0)
    assert cost.extra_latency == pytest.approx(110e-9)
    assert cost.goodput == pytest.approx(10 / 120)
    clean = fec.retry_cost(0.0, round_trip=1e-6, frame_time=1e-8)
    assert clean.goodput == 1.0 and clean.extra_latency == 0.0
    with pytest.raises(ValueError):
        fec.retry_cost(1.0, round_trip=1e-7, frame_time=1e-8)
    with pytest.raises(ValueError):
        fec.codeword_time(code, -1.0)
    with pytest.raises(ValueError):
        fec.simulate_codewords(0.0, code, 10)
