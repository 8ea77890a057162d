"""nccl-tests algbw / busbw, one test per collective against doc/PERFORMANCE.md."""

import pytest

from nvlearn.collectives import algbw, busbw, busbw_factor

N, T, S = 8, 0.002, 1e9  # 8 ranks, 2 ms, 1 GB "size"


@pytest.mark.parametrize(
    "collective, factor",
    [
        ("allreduce", 2 * 7 / 8),   # 2(n-1)/n
        ("reduce_scatter", 7 / 8),  # (n-1)/n, size = total array
        ("allgather", 7 / 8),       # (n-1)/n, size = total array
        ("alltoall", 7 / 8),        # (n-1)/n
        ("broadcast", 1.0),
        ("reduce", 1.0),
    ],
)
def test_busbw_per_collective(collective, factor):
    assert busbw_factor(collective, N) == pytest.approx(factor, rel=1e-15)
    assert busbw(collective, S, N, T) == pytest.approx(S / T * factor, rel=1e-15)


def test_algbw_is_size_over_time():
    assert algbw(S, T) == 5e11


def test_bad_input():
    with pytest.raises(ValueError, match="unknown collective"):
        busbw_factor("gossip", 4)
    with pytest.raises(ValueError, match="time must be > 0"):
        algbw(1.0, 0.0)
    with pytest.raises(ValueError, match="n_ranks"):
        busbw_factor("allreduce", 0)
