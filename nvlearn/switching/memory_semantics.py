"""Three ways to reach another GPU's memory: NVLink load/store, RDMA over InfiniBand, TCP.

The article's "Unified Address Space" section says that over the NVLink Switch System a
remote GPU's memory looks like a local address. What differs between the three paths is
*who does the work* and *how long one small access takes*:

* **NVLink load/store** — a kernel's threads issue ordinary loads and stores to a peer
  address; the GPU's NVLink ports and the NVSwitches carry them. No NIC, no driver call, no
  completion queue; a read is a request and a response over the fabric.
* **RDMA over InfiniBand** — a work request is posted to the NIC (by the CPU, or by the GPU
  with GPU-initiated networking); the NIC reads the source over PCIe, the switches forward
  packets, the remote NIC writes into the remote GPU's memory. One-sided: no remote CPU.
* **TCP over Ethernet** — ``send()`` / ``recv()`` through both hosts' kernel TCP/IP stacks,
  with copies and interrupts, then the same kind of NIC and switches.

Latencies here are built from the catalogue (:mod:`nvlearn.specs`): the fabric paths are the
summed link latencies of the same topologies the simulator uses (weakly sourced model values
for NVLink, vendor figures for NICs and switches), the TCP figure is a classic datacenter
rule of thumb, and NCCL's own per-step latency model is given beside them. All are
order-of-magnitude figures; :attr:`AccessPath.sources` says where each comes from.

Examples
--------
>>> paths = {p.key: p for p in access_paths()}
>>> paths["tcp_ethernet"].round_trip > 100 * paths["nvlink_node"].round_trip
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from nvlearn import specs
from nvlearn.topology import dgx_h100, ib_cluster, injection_bw_per_dir, nvlink_pod

__all__ = ["AccessPath", "access_paths", "crossover_bytes", "latency_table"]


@dataclass(frozen=True)
class AccessPath:
    """One way for a GPU to move data to or from another GPU's memory.

    Attributes
    ----------
    key, label : str
    mechanism : str
        What software and hardware do for one access.
    one_way : float
        Seconds for a write / put to arrive (first byte, no queueing).
    round_trip : float
        Seconds for a small read (request and response) or request/reply.
    bw_per_dir : float
        bytes/s per direction one transfer can reach on an idle fabric.
    nccl_step_latency : float or None
        NCCL 2.30's modelled latency per algorithm step over this kind of link (LL protocol,
        ring), seconds; None where NCCL has no such path.
    sources : str
        Where the numbers come from.
    """

    key: str
    label: str
    mechanism: str
    one_way: float
    round_trip: float
    bw_per_dir: float
    nccl_step_latency: float | None
    sources: str

    def transfer_time(self, n_bytes: ArrayLike) -> np.ndarray:
        """Seconds to deliver ``n_bytes`` one way: ``one_way + n_bytes / bw_per_dir``.

        Examples
        --------
        >>> p = access_paths()[0]
        >>> float(p.transfer_time(0.0)) == p.one_way
        True
        """
        n = np.asarray(n_bytes, dtype=np.float64)
        if np.any(~np.isfinite(n)) or np.any(n < 0):
            raise ValueError("n_bytes must be finite and >= 0")
        return self.one_way + n / self.bw_per_dir


def _route_latency(topo, src_rank: int, dst_rank: int) -> float:
    _, _, _, latency = topo.routes([topo.gpus[src_rank]], [topo.gpus[dst_rank]])
    return float(latency[0])


def access_paths() -> list[AccessPath]:
    """The four access paths compared in notebook 03, fastest first.

    Examples
    --------
    >>> [p.key for p in access_paths()]
    ['nvlink_node', 'nvlink_pod', 'rdma_ib', 'tcp_ethernet']
    """
    nccl = specs.nccl()
    hop = specs.latency("nvlink_hop")
    dgx = dgx_h100()
    pod = nvlink_pod(2)
    ib = ib_cluster(2)
    per_node = dgx.n_gpus
    nv_bw = float(injection_bw_per_dir(dgx).min())
    nic_bw = specs.nic(specs.system("dgx_h100").nic).port_bw_per_dir
    eth_bw = min(specs.ethernet("400gbe").port_bw_per_dir, nic_bw)
    nv_step = nccl.hw_latency("nvlink", "ring", "ll")
    net_step = nccl.hw_latency("net", "ring", "ll")
    node_lat = _route_latency(dgx, 0, 1)
    pod_lat = _route_latency(pod, 0, per_node)
    ib_lat = _route_latency(ib, 0, per_node)  # same rail: NIC, one leaf, NIC
    tcp_rtt = specs.latency("datacenter_tcp_rtt")
    nv_src = (f"NVLink hop {hop * 1e9:.0f} ns ({specs.latency('nvlink_hop').source()}); "
              f"NCCL: {nccl.source('hw_latencies')}")
    return [
        AccessPath(
            "nvlink_node", "NVLink load/store, same node",
            "SM load/store to a peer address; GPU -> NVSwitch -> GPU, no software in the path",
            node_lat, 2 * node_lat, nv_bw, nv_step, nv_src,
        ),
        AccessPath(
            "nvlink_pod", "NVLink load/store, other node in the pod",
            "the same instructions; GPU -> NVSwitch -> NVLink Switch -> NVSwitch -> GPU",
            pod_lat, 2 * pod_lat, nv_bw, nv_step, nv_src,
        ),
        AccessPath(
            "rdma_ib", "RDMA over InfiniBand (GPUDirect)",
            "post a work request to the NIC; NIC reads GPU memory over PCIe; IB switch; the "
            "remote NIC writes into GPU memory; a completion is polled",
            ib_lat, 2 * ib_lat, nic_bw, net_step,
            f"NIC {specs.latency('nic') * 1e9:.0f} ns per end ({specs.latency('nic').source()});"
            f" IB switch {specs.latency('ib_switch_hop') * 1e9:.0f} ns; PCIe switch "
            f"{specs.latency('pcie_switch_hop') * 1e9:.0f} ns; NCCL: "
            f"{nccl.source('hw_latencies')}",
        ),
        AccessPath(
            "tcp_ethernet", "TCP over Ethernet (kernel sockets)",
            "send()/recv() system calls; kernel TCP/IP on both hosts, copies, interrupts; "
            "NIC; Ethernet switches",
            float(tcp_rtt) / 2, float(tcp_rtt), eth_bw, None, tcp_rtt.source(),
        ),
    ]


def crossover_bytes(a: AccessPath, b: AccessPath) -> float:
    """Message size (bytes) above which path ``b`` delivers sooner than path ``a``.

    0 if ``b`` is always sooner, inf if it never is (for large messages).

    Examples
    --------
    >>> node, pod, ib, tcp = access_paths()
    >>> crossover_bytes(node, ib)        # NVLink starts sooner and is wider: never
    inf
    >>> crossover_bytes(ib, pod)         # the pod's four NVLink hops are still sooner than RDMA
    0.0
    """
    slope = 1.0 / a.bw_per_dir - 1.0 / b.bw_per_dir
    head_start = b.one_way - a.one_way
    if slope > 0:
        return max(head_start / slope, 0.0)
    if slope == 0 and head_start < 0:
        return 0.0
    return float("inf")


def latency_table() -> list[dict]:
    """Rows for display: label, one way (s), round trip (s), bandwidth, NCCL step latency.

    Examples
    --------
    >>> sorted(latency_table()[0])
    ['bw_per_dir', 'label', 'mechanism', 'nccl_step_latency', 'one_way', 'round_trip']
    """
    return [
        {"label": p.label, "mechanism": p.mechanism, "one_way": p.one_way,
         "round_trip": p.round_trip, "bw_per_dir": p.bw_per_dir,
         "nccl_step_latency": p.nccl_step_latency}
        for p in access_paths()
    ]
