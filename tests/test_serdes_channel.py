"""The Monte Carlo link: agreement with theory, determinism, ISI, equalisers, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nvlearn.serdes import channel, pam


def _within_binomial(count: int, trials: int, p: float, k: float = 5.0) -> bool:
    """count within k standard deviations of trials * p (+1 for tiny expectations)."""
    mean = trials * p
    return abs(count - mean) <= k * math.sqrt(trials * p * (1 - p)) + 1


@pytest.mark.parametrize(
    ("modulation", "snr_db"),
    [("NRZ", 6.0), ("NRZ", 10.0), ("PAM4", 14.0), ("PAM4", 18.0), ("PAM4", 21.0), ("PAM8", 24.0)],
)
def test_measured_error_rates_match_theory_without_isi(modulation, snr_db):
    n = 400_000
    r = channel.simulate_link(n, modulation, snr_db=snr_db, seed=3, eye_symbols=16)
    snr = 10 ** (snr_db / 10)
    ser = pam.pam_ser(snr, modulation)
    assert r.symbol_errors > 20  # the comparison means something
    assert _within_binomial(r.symbol_errors, n, ser)
    assert _within_binomial(r.bit_errors, r.n_bits, pam.pam_ber(snr, modulation))
    lo, hi = r.ser_interval
    assert lo <= r.ser <= hi
    assert r.ser_theory == pytest.approx(ser) and r.ber_theory == pytest.approx(
        pam.pam_ber(snr, modulation)
    )


def test_same_seed_same_result_other_seed_differs():
    a = channel.simulate_link(50_000, "PAM4", snr_db=16, loss_db=4, jitter_ui=0.03, seed=7)
    b = channel.simulate_link(50_000, "PAM4", snr_db=16, loss_db=4, jitter_ui=0.03, seed=7)
    c = channel.simulate_link(50_000, "PAM4", snr_db=16, loss_db=4, jitter_ui=0.03, seed=8)
    assert a.bit_errors == b.bit_errors and np.array_equal(a.eye.counts, b.eye.counts)
    assert a.bit_errors != c.bit_errors


def test_time_constant_from_loss_at_nyquist():
    assert channel.time_constant_ui(0.0) == 0.0
    # 3.01 dB at Nyquist puts the corner at Nyquist: tau = 1 / (2 pi fc) = T / pi
    assert channel.time_constant_ui(10 * math.log10(2)) == pytest.approx(1 / math.pi)
    # |H|^2 at Nyquist equals 10^(-L/10)
    tau = channel.time_constant_ui(12.0)
    assert 1 / (1 + (2 * math.pi * 0.5 * tau) ** 2) == pytest.approx(10 ** (-1.2))


def test_scale_loss_db_with_frequency():
    assert channel.scale_loss_db(10.0, 1e9, 2e9) == pytest.approx(20.0)
    assert channel.scale_loss_db(10.0, 1e9, 4e9, exponent=0.5) == pytest.approx(20.0)
    with pytest.raises(ValueError):
        channel.scale_loss_db(10.0, 0.0, 1e9)


def test_lossy_channel_pulse_keeps_dc_gain_and_loss_closes_the_eye():
    clean = channel.simulate_link(20_000, "PAM4", snr_db=40, seed=1)
    lossy = channel.simulate_link(20_000, "PAM4", snr_db=40, loss_db=10, seed=1)
    assert clean.pulse[0] == pytest.approx(1.0) and np.allclose(clean.pulse[1:], 0.0)
    assert lossy.pulse.sum() == pytest.approx(1.0, abs=1e-6)  # DC passes the RC unattenuated
    assert lossy.pulse[0] < 0.8 and lossy.pulse[1] > 0.1  # ISI: energy leaks into next UIs
    assert clean.bit_errors == 0 and lossy.ber > 0.01


def test_equalisers_reopen_a_lossy_channel():
    kw = dict(snr_db=26, loss_db=10, seed=2)
    none = channel.simulate_link(100_000, "PAM4", **kw)
    ffe = channel.simulate_link(100_000, "PAM4", ffe_taps=3, **kw)
    dfe = channel.simulate_link(100_000, "PAM4", dfe_taps=4, **kw)
    both = channel.simulate_link(100_000, "PAM4", ffe_taps=3, dfe_taps=3, **kw)
    assert none.ser > 0.1
    for eq in (ffe, dfe, both):
        assert eq.ser < none.ser / 50
    # an FFE boosts high frequencies, and with them the noise
    assert ffe.noise_gain > dfe.noise_gain > 1.0
    assert none.ffe.size == 1 and none.dfe.size == 0
    assert both.ffe.size == 3 and both.dfe.size == 3


def test_jitter_costs_errors_on_a_lossy_link():
    kw = dict(snr_db=24, loss_db=6, ffe_taps=2, dfe_taps=2, seed=4)
    calm = channel.simulate_link(100_000, "PAM4", **kw)
    shaky = channel.simulate_link(100_000, "PAM4", jitter_ui=0.15, **kw)
    assert shaky.symbol_errors > 3 * max(calm.symbol_errors, 1)


def test_eye_histogram_counts_and_levels():
    r = channel.simulate_link(5_000, "PAM4", snr_db=45, eye_symbols=1000, samples_per_ui=16)
    eye = r.eye
    assert eye.counts.shape == (32, eye.amplitude.size)
    assert eye.time[0] == pytest.approx(-15 / 16) and eye.time[-1] == pytest.approx(1.0)
    assert eye.counts.sum() == pytest.approx((1000 - 2) * 32)
    # at the sampling instant, a clean link sits on the four levels
    at_sample = eye.counts[list(eye.time).index(0.0)]
    peaks = eye.amplitude[at_sample > 0.05 * at_sample.max()]
    for level in pam.pam_levels(4):
        assert np.min(np.abs(peaks - level)) < 0.05
    assert r.sample_time_ui == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(modulation="PAM6"), "modulation"),
        (dict(modulation=16), "modulation order"),
        (dict(loss_db=-1.0), "loss_db"),
        (dict(jitter_ui=0.6), "jitter_ui"),
        (dict(snr_db=float("nan")), "dB must be finite"),
        (dict(ffe_taps=0), "ffe_taps"),
        (dict(dfe_taps=-1), "dfe_taps"),
        (dict(samples_per_ui=2), "samples_per_ui"),
        (dict(n_symbols=3), "n_symbols"),
        (dict(eye_symbols=2), "eye_symbols"),
    ],
)
def test_bad_input_raises_value_error(kwargs, match):
    args = dict(n_symbols=1000, modulation="PAM4")
    args.update(kwargs)
    n = args.pop("n_symbols")
    with pytest.raises(ValueError, match=match):
        channel.simulate_link(n, **args)


@pytest.mark.parametrize(
    "kwargs",
    [dict(loss_db=8), dict(loss_db=5, jitter_ui=0.1), dict(loss_db=12, jitter_ui=0.2, dfe_taps=3)],
)
def test_closed_form_channel_matches_stepped_channel(kwargs):
    """Outside the eye window the RC jumps segment to segment; inside it steps sub-samples.

    With negligible noise the decisions depend only on symbols and jitter (drawn first, the
    same in both runs), so the two ways of integrating the channel must decide alike.
    """
    stepped = channel.simulate_link(20_000, "PAM4", snr_db=150, seed=5, eye_symbols=20_000,
                                    **kwargs)
    jumped = channel.simulate_link(20_000, "PAM4", snr_db=150, seed=5, eye_symbols=16, **kwargs)
    assert stepped.symbol_errors > 100
    assert stepped.symbol_errors == jumped.symbol_errors
    assert stepped.bit_errors == jumped.bit_errors
