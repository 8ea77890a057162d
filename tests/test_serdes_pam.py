"""PAM-N signalling: names, levels, Gray labels and the Gaussian-noise error-rate formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nvlearn.serdes import pam
from nvlearn.serdes.stats import db_to_linear, linear_to_db, q_function, wilson_interval


def Q(x):  # independent of the package: the textbook definition
    return 0.5 * math.erfc(x / math.sqrt(2))


@pytest.mark.parametrize(
    ("name", "order", "bits"),
    [("NRZ", 2, 1), ("pam2", 2, 1), ("PAM4", 4, 2), ("pam-4", 4, 2), ("PAM8", 8, 3), (4, 4, 2)],
)
def test_modulation_names_and_bits(name, order, bits):
    assert pam.modulation_order(name) == order
    assert pam.bits_per_symbol(name) == bits


@pytest.mark.parametrize("bad", ["PAM6", "QAM16", 3, 16, 0, True, 4.0])
def test_unsupported_modulation_raises(bad):
    with pytest.raises(ValueError, match="modulation"):
        pam.modulation_order(bad)


@pytest.mark.parametrize("order", [2, 4, 8])
def test_levels_even_peak_normalised_and_gray_adjacent(order):
    levels = pam.pam_levels(order)
    assert levels[0] == -1.0 and levels[-1] == 1.0
    assert np.allclose(np.diff(levels), 2.0 / (order - 1))
    gray = pam.gray_code(order)
    assert sorted(gray.tolist()) == list(range(order))
    assert all(bin(int(a ^ b)).count("1") == 1 for a, b in zip(gray[:-1], gray[1:], strict=True))


@pytest.mark.parametrize("snr_db", [0.0, 6.0, 10.0, 14.0])
def test_nrz_ber_is_q_of_sqrt_snr(snr_db):
    snr = 10 ** (snr_db / 10)
    assert math.isclose(pam.pam_ber(snr, "NRZ"), Q(math.sqrt(snr)), rel_tol=1e-12)
    assert math.isclose(pam.pam_ser(snr, "NRZ"), Q(math.sqrt(snr)), rel_tol=1e-12)


@pytest.mark.parametrize("snr_db", [8.0, 14.0, 20.0, 26.0])
def test_pam4_gray_ber_closed_form(snr_db):
    # Exact Gray PAM4 BER: (3Q(x) + 2Q(3x) - Q(5x)) / 4, x = half level spacing / sigma
    x = math.sqrt(10 ** (snr_db / 10)) / 3
    expected = (3 * Q(x) + 2 * Q(3 * x) - Q(5 * x)) / 4
    assert math.isclose(pam.pam_ber(10 ** (snr_db / 10), "PAM4"), expected, rel_tol=1e-10)
    assert math.isclose(pam.pam_ser(10 ** (snr_db / 10), "PAM4"), 1.5 * Q(x), rel_tol=1e-12)


def test_ber_vectorised_and_monotone():
    snr = 10 ** (np.linspace(0, 30, 31) / 10)
    for order in pam.SUPPORTED_ORDERS:
        ber = pam.pam_ber(snr, order)
        assert ber.shape == snr.shape
        assert np.all(np.diff(ber) < 0)


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.nan, np.array([10.0, -2.0])])
def test_negative_or_zero_linear_snr_raises(bad):
    with pytest.raises(ValueError, match="SNR in linear units"):
        pam.pam_ber(bad, "PAM4")
    with pytest.raises(ValueError, match="SNR in linear units"):
        pam.pam_ser(bad, "NRZ")


def test_snr_for_ber_inverts_pam_ber_and_penalty_tends_to_a_third_of_the_eye():
    for order in (2, 4):
        snr_db = pam.snr_for_ber(1e-6, order)
        assert math.isclose(pam.pam_ber(10 ** (snr_db / 10), order), 1e-6, rel_tol=1e-6)
    # at very low BER the gap approaches 20 log10(3): the eye is a third as tall
    gap = pam.snr_for_ber(1e-15, "PAM4") - pam.snr_for_ber(1e-15, "NRZ")
    assert 9.3 < gap < 20 * math.log10(3)
    with pytest.raises(ValueError):
        pam.snr_for_ber(0.6, "NRZ")


def test_stats_helpers():
    assert math.isclose(q_function(1.0), Q(1.0))
    assert np.allclose(q_function(np.array([0.0, 2.0])), [0.5, Q(2.0)])
    assert db_to_linear(30.0) == pytest.approx(1000.0)
    assert linear_to_db(100.0) == pytest.approx(20.0)
    with pytest.raises(ValueError, match="> 0"):
        linear_to_db(-3.0)
    with pytest.raises(ValueError):
        db_to_linear(float("inf"))
    lo, hi = wilson_interval(10, 1000)
    assert lo < 0.01 < hi
    with pytest.raises(ValueError):
        wilson_interval(5, 0)
