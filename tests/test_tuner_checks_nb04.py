"""Notebook 04's self-checks accept the right answers (worked by hand) and reject others."""

from __future__ import annotations

import pytest

from nvlearn.check import nb04


@pytest.mark.parametrize("check, right, wrong", [
    (nb04.lower_bound_ms, 2 * 3 / 4 * 3 * 2**30 / 450e9 * 1e3, 2 * 3 / 4 * 3 * 2**30 / 900e9 * 1e3),
    (nb04.ring_ll_latency_us, 6.6 + 6 * 0.6, 6.6 + 3 * 0.6),
    (nb04.nvl36_ideal_speedup, 2 * 35 / 37, 2.0),
    (nb04.nvls_busbw_gbs, 4 * 2**30 / 0.018 * 1.75 / 1e9, 4 * 2**30 / 0.018 / 1e9),
    (nb04.dgx_crossover_mib, 2.12, 1.08),
])
def test_numeric_checks(check, right, wrong):
    assert check(right).ok
    assert not check(wrong).ok
    assert not check(None).ok


def test_units_in_strings():
    assert nb04.lower_bound_ms("10.74 ms").ok
    assert nb04.dgx_crossover_mib("2170 KiB").ok


def test_lower_bound_names_the_p_minus_one_slip():
    assert "(p-1)/p" in nb04.lower_bound_ms(2 * 3 * 2**30 / 450e9 * 1e3).message


def test_segment_rule_runs_the_learners_code():
    assert nb04.segment_rule(lambda r, s, p: (r - 1 - s) % p)
    assert not nb04.segment_rule(lambda r, s, p: (r + s) % p)
    assert "returns None" in nb04.segment_rule(lambda *a: None).message
    assert "raised" in nb04.segment_rule(lambda *a: 1 / 0).message


def test_explorer_ratio():
    t = nb04.explorer_times("ib_cluster", 256, 2**20)
    ratio = t["ring"] / min(t.values())
    assert ratio > 1 and nb04.ib256_ring_over_fastest(ratio)
    assert not nb04.ib256_ring_over_fastest(1.0)


def test_exercise_6_premise_is_physically_possible():
    """The measured time must be at least NVLS's traffic bound at the wire rate: every GPU
    sends and receives n (1 + 1/p) bytes over its 450 GB/s (per direction) of NVLinks."""
    from nvlearn import specs
    from nvlearn.collectives.volume import nvls_allreduce_bytes_per_rank

    wire = specs.nvlink(4).gpu_bw_per_dir
    assert nb04.BUSBW_TIME >= nvls_allreduce_bytes_per_rank(8, 4 * 2**30) / wire
