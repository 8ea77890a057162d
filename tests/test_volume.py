"""Per-rank all-reduce traffic: closed forms vs the schedule, and the SHARP saving."""

import pytest

from nvlearn.collectives import allreduce
from nvlearn.collectives.volume import (
    ideal_in_network_speedup,
    in_network_traffic_saving,
    nvls_allreduce_bytes_per_rank,
    ring_allreduce_bytes_per_rank,
)


@pytest.mark.parametrize("p", [2, 3, 8, 17])
def test_ring_volume_matches_the_schedule(p):
    n = 12345678.0
    sent = allreduce(p, n).bytes_sent()
    assert sent == pytest.approx([ring_allreduce_bytes_per_rank(p, n)] * p, rel=1e-12)


def test_saving_and_speedup_by_hand():
    # p = 8: ring 14/8 n, NVLS 9/8 n -> saving 5/14, speed-up 14/9
    assert in_network_traffic_saving(8) == pytest.approx(5 / 14, rel=1e-15)
    assert ideal_in_network_speedup(8) == pytest.approx(14 / 9, rel=1e-15)
    assert nvls_allreduce_bytes_per_rank(4, 8.0) == 10.0


def test_saving_tends_to_half():
    assert in_network_traffic_saving(10**6) == pytest.approx(0.5, abs=1e-5)
    assert in_network_traffic_saving(2) < in_network_traffic_saving(8) < 0.5


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 ranks"):
        ring_allreduce_bytes_per_rank(1, 1.0)
    with pytest.raises(ValueError, match="n_bytes"):
        nvls_allreduce_bytes_per_rank(4, 0)
