"""Notebook 02 self-checks: right answers pass (also with units), usual slips get a hint."""

from __future__ import annotations

import pytest

from nvlearn.check import nb02


@pytest.mark.parametrize(
    ("checker", "right", "wrong"),
    [
        (nb02.lane_payload, ["100 Gb/s", 100, "12.5 GB/s"], [106.25, "112 Gb/s", 50]),
        (nb02.pcie6_payload_per_dir, [118, "944 Gb/s"], [128, 236, 256, 59]),
        (nb02.pam4_penalty_db, [9.5, 9.54], [6.0, 4.77, 3.0]),
        (nb02.fec_codeword_time_ns, [25.6, "2.56e-8 s"], [51.2, 5440]),
        (nb02.cer_growth_when_ber_doubles, [19700, 2.0e4], [65536, 2, 32768]),
        (nb02.frames_hit_without_fec, [0.729, 0.73], [2.4e-4, 1.3, 0.27]),
    ],
)
def test_checkers(checker, right, wrong):
    for answer in right:
        assert checker(answer).ok, (checker.__name__, answer)
    for answer in wrong:
        result = checker(answer)
        assert not result.ok, (checker.__name__, answer)
        assert result.message.startswith("not yet — ")


def test_wrong_dimension_is_not_yet():
    assert not nb02.lane_payload("100 GB").ok
    assert not nb02.fec_codeword_time_ns("25.6 GB/s").ok
