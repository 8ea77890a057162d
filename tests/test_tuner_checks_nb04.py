"""Notebook 04's self-checks accept the right answers (worked by hand) and reject others."""

from __future__ import annotations

import pytest

from nvlearn.check import nb04


@pytest.mark.parametrize("check, right, wrong", [
    (nb04.ring_gib_per_gpu, 2 * 7 / 8, 2.0),
    (nb04.lower_bound_ms, 2 * 7 / 8 * 2**30 / 450e9 * 1e3, 2 * 7 / 8 * 2**30 / 900e9 * 1e3),
    (nb04.ring_ll_latency_us, 6.6 + 6 * 0.6, 6.6 + 3 * 0.6),
    (nb04.nvl72_ideal_speedup, 2 * 71 / 73, 2.0),
    (nb04.nvls_busbw_gbs, 4 * 2**30 / 0.018 * 1.75 / 1e9, 4 * 2**30 / 0.018 / 1e9),
    (nb04.dgx_crossover_mib, 2.12, 1.08),
])
def test_numeric_checks(check, right, wrong):
    assert check(right).ok
    assert not check(wrong).ok
    assert not check(None).ok


def test_units_in_strings():
    assert nb04.lower_bound_ms("4175 us").ok
    assert nb04.dgx_crossover_mib("2170 KiB").ok


def test_choice_check():
    assert nb04.nccl_pick_ib_64k("tree/ll").ok
    assert not nb04.nccl_pick_ib_64k("Ring/LL").ok
    assert "choose one of" in nb04.nccl_pick_ib_64k("mesh").message


def test_exercise_5_premise_is_physically_possible():
    """The measured time must be at least NVLS's traffic bound at the wire rate: every GPU
    sends and receives n (1 + 1/p) bytes over its 450 GB/s (per direction) of NVLinks."""
    from nvlearn import specs
    from nvlearn.collectives.volume import nvls_allreduce_bytes_per_rank

    wire = specs.nvlink(4).gpu_bw_per_dir
    assert nb04.EX5_TIME >= nvls_allreduce_bytes_per_rank(8, 4 * 2**30) / wire
