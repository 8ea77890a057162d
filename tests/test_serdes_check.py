"""Notebook 02 self-checks: right answers pass (also with units), the slips each exercise is
about are "not yet" (the tolerances sit below those effects), and learners' code is run, not
trusted."""

from __future__ import annotations

import math

import pytest

from nvlearn.check import nb02
from nvlearn.check.core import verify_prediction
from nvlearn.serdes import fec, pam


@pytest.mark.parametrize(
    ("checker", "right", "wrong"),
    [
        # the eye-height estimate 20 log10(7/3) = 7.36 dB is the effect: 0.6 % above the exact
        (nb02.pam8_penalty_db, [7.316, "7.32 dB"], [20 * math.log10(7 / 3), 9.54, 3.0]),
        # NVLink 4's 25.6 ns is the slip (the notebook prints it); 12.8 ns is NVLink 5's
        (nb02.nvlink5_codeword_ns, [12.8, "1.28e-8 s", "0.0128 us"], [25.6, 6.4, 5440]),
        # the small-BER rule 1.5^(t+1) = 657 over-estimates the exact 360
        (nb02.cer_growth_at_one_and_a_half, [360, "359.9"], [1.5 ** 16, 1.5, 2 ** 16]),
        (nb02.largest_frame_without_fec, [41, "41"], [42, 40, 5440, 0.99]),
        (nb02.eye_closing_loss, [17, "16 dB", "18 dB"], [12, 15, 20]),
    ],
)
def test_checkers(checker, right, wrong):
    for answer in right:
        assert checker(answer).ok, (checker.__name__, answer)
    for answer in wrong:
        result = checker(answer)
        assert not result.ok, (checker.__name__, answer)
        assert result.message.startswith("not yet — ")


def _by_hand(symbol_rate, modulation, codes, lanes, links):
    rate = symbol_rate * pam.bits_per_symbol(modulation) / 8
    for data, coded in codes:
        rate *= data / coded
    return rate * lanes * links


def test_payload_function_runs_the_learners_code():
    assert nb02.payload_function(_by_hand).ok
    assert not nb02.payload_function(lambda *a: 2 * _by_hand(*a)).ok      # both directions
    assert "bits" in nb02.payload_function(lambda *a: 8 * _by_hand(*a)).message
    assert "None" in nb02.payload_function(lambda *a: None).message         # the blank stub
    assert "raised ZeroDivisionError" in nb02.payload_function(lambda *a: 1 / 0).message
    assert not nb02.payload_function(None).ok


def test_prediction_accepts_any_choice_and_nothing_else():
    choices = ("below 10", "10 to 15", "above 15")
    assert all(verify_prediction(c, choices).ok for c in choices)
    assert not verify_prediction(None, choices).ok and not verify_prediction("12", choices).ok


def test_closing_loss_is_where_the_measured_ber_crosses():
    task = dict(nb02.EYE_TASK)
    loss = nb02.closing_loss_db(task.pop("modulation"), task.pop("snr_db"),
                                task.pop("target_ber"), **task)
    assert loss is not None and 0 < loss <= 20


def test_wrong_dimension_is_not_yet():
    assert not nb02.nvlink5_codeword_ns("12.8 GB/s").ok
    assert not nb02.pam8_penalty_db("7.3 ns").ok


def test_frame_answer_is_the_package_edge():
    p = nb02.specs.fec("RS(544,514)").pre_fec_ber
    assert fec.frame_error_rate(p, 41) <= 0.01 < fec.frame_error_rate(p, 42)
