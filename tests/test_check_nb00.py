"""Notebook 00's self-checks accept the computed answers and reject the classic slips."""

from nvlearn import units
from nvlearn.check import nb00


def test_node_network_bw():
    assert nb00.node_network_bw(6400).ok             # 8 x 400 Gb/s x 2 directions
    assert nb00.node_network_bw("800 GB/s").ok
    assert "half the answer" in nb00.node_network_bw(3200).message   # one direction only
    assert "factor 8" in nb00.node_network_bw(800).message   # bytes where bits are asked


def test_gradient_size_gib():
    assert nb00.gradient_size_gib(24.21).ok
    assert not nb00.gradient_size_gib(26).ok         # GB, not GiB


def test_per_direction_function_runs_the_learners_code():
    def right(value, unit, bidirectional):
        si = units.to_si(value, unit)
        return units.from_si(si / 2 if bidirectional else si, "GB/s")

    assert nb00.per_direction_function(right).ok
    assert not nb00.per_direction_function(lambda v, u, b: units.from_si(units.to_si(v, u),
                                                                        "GB/s")).ok
    assert "returns None" in nb00.per_direction_function(lambda *a: None).message
    assert "raised" in nb00.per_direction_function(lambda *a: 1 / 0).message


def test_b200_vs_xdr():
    assert nb00.b200_vs_xdr(9.0).ok
    assert not nb00.b200_vs_xdr(4.5).ok              # H100 vs XDR, one ratio only


def test_pod_cross_node_bw_per_gpu():
    assert nb00.pod_cross_node_bw_per_gpu(225).ok
    assert not nb00.pod_cross_node_bw_per_gpu(450).ok
