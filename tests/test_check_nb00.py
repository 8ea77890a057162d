"""Notebook 00's self-checks accept the computed answers and reject the classic slips."""

from nvlearn.check import nb00


def test_node_network_bw():
    assert nb00.node_network_bw(400).ok              # 8 x 50 GB/s
    assert nb00.node_network_bw("3.2 Tb/s").ok
    assert not nb00.node_network_bw(3200).ok         # forgot bits -> bytes


def test_gradient_size_gib():
    assert nb00.gradient_size_gib(13.04).ok
    assert not nb00.gradient_size_gib(14).ok         # GB, not GiB


def test_nvlink_vs_pcie_ratio():
    assert nb00.nvlink_vs_pcie_ratio(7.14).ok
    assert not nb00.nvlink_vs_pcie_ratio(7.03).ok    # the rounded 128 GB/s marketing figure


def test_pod_cross_node_bw_per_gpu():
    assert nb00.pod_cross_node_bw_per_gpu(225).ok
    assert not nb00.pod_cross_node_bw_per_gpu(450).ok
