"""Memory semantics: NVLink load/store vs RDMA vs TCP latencies from the catalogue."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.switching.memory_semantics import access_paths, crossover_bytes, latency_table


def test_paths_are_built_from_catalogue_latencies():
    node, pod, ib, tcp = access_paths()
    assert node.one_way == pytest.approx(2 * specs.latency("nvlink_hop")
                                         + specs.latency("nvswitch_traversal"))
    assert pod.one_way == pytest.approx(2 * node.one_way)  # 4 links across the second level
    nic, pcie, ibsw = (specs.latency(k) for k in ("nic", "pcie_switch_hop", "ib_switch_hop"))
    assert ib.one_way == pytest.approx(2 * nic + 2 * pcie + ibsw)
    assert tcp.round_trip == pytest.approx(specs.latency("datacenter_tcp_rtt"))
    for p in (node, pod, ib):
        assert p.round_trip == pytest.approx(2 * p.one_way)  # a read: request + response


def test_bandwidths_and_nccl_constants():
    node, pod, ib, tcp = access_paths()
    assert node.bw_per_dir == pytest.approx(specs.nvlink(4).gpu_bw_per_dir)
    assert ib.bw_per_dir == pytest.approx(specs.nic("connectx7").port_bw_per_dir)
    assert tcp.bw_per_dir == pytest.approx(specs.ethernet("400gbe").port_bw_per_dir)
    m = specs.nccl()
    assert node.nccl_step_latency == m.hw_latency("nvlink", "ring", "ll")
    assert ib.nccl_step_latency == m.hw_latency("net", "ring", "ll")
    assert tcp.nccl_step_latency is None
    assert all(p.sources for p in (node, pod, ib, tcp))


def test_ordering_and_transfer_times():
    node, pod, ib, tcp = access_paths()
    assert node.round_trip < pod.round_trip < tcp.round_trip
    assert tcp.round_trip / node.round_trip > 100
    sizes = np.array([0.0, 1e6])
    assert node.transfer_time(sizes) == pytest.approx(node.one_way + sizes / node.bw_per_dir)
    with pytest.raises(ValueError):
        node.transfer_time(-1.0)


def test_crossover_sizes():
    node, pod, ib, tcp = access_paths()
    assert crossover_bytes(node, ib) == float("inf")
    # four NVLink hops of at most 0.3 us each (bounded by NCCL's 0.6 us LL step) beat the
    # NIC-leaf-NIC path: the pod delivers sooner at every size
    assert pod.one_way < ib.one_way and pod.bw_per_dir > ib.bw_per_dir
    assert crossover_bytes(ib, pod) == 0.0
    # a path that starts later but is wider overtakes at the crossover size, exactly
    from dataclasses import replace

    wide = replace(ib, bw_per_dir=2 * pod.bw_per_dir)
    n = crossover_bytes(pod, wide)
    assert n > 0 and wide.transfer_time(n) == pytest.approx(pod.transfer_time(n))
    assert wide.transfer_time(2 * n) < pod.transfer_time(2 * n)
    assert crossover_bytes(tcp, node) == 0.0  # NVLink is sooner at every size
    assert crossover_bytes(ib, ib) == float("inf")


def test_latency_table_rows():
    rows = latency_table()
    assert len(rows) == 4 and rows[0]["round_trip"] < rows[-1]["round_trip"]
