"""Fabrics as arrays: nodes, directed links with capacity and latency, and routes.

* :mod:`~nvlearn.topology.core` — the :class:`Topology` and the node / link kind constants.
* :mod:`~nvlearn.topology.routing` — shortest paths with capacity-weighted splits (numba).
* :mod:`~nvlearn.topology.policy` — routing policies: that adaptive split, or static
  hash-based ECMP (one path per flow) via :func:`with_routing`.
* :mod:`~nvlearn.topology.builders` — generic fabrics and :func:`with_link_factor`.
* :mod:`~nvlearn.topology.fabrics` — real fabrics from the hardware catalogue: the DGX H100
  box, the 256-GPU NVLink Switch System pod, the GB200 NVL72 rack, an InfiniBand
  rail-optimised fat tree, a PCIe box.
* :mod:`~nvlearn.topology.registry` — the course's fabrics by key (:data:`FABRICS`) and
  :func:`fabric`, which builds each once.
* :mod:`~nvlearn.topology.metrics` — injection bandwidth, bisection by max-flow, hops,
  path diversity.

Examples
--------
>>> from nvlearn.topology import ring
>>> ring(4, bw_per_dir=25e9).n_gpus
4
"""

from .builders import fully_connected, ring, single_switch, with_link_factor
from .core import (
    LINK_ETH,
    LINK_IB,
    LINK_KIND_KEYS,
    LINK_KIND_NAMES,
    LINK_NVLINK,
    LINK_NVLINK_NETWORK,
    LINK_PCIE,
    NODE_CPU,
    NODE_GPU,
    NODE_IB_SWITCH,
    NODE_KIND_NAMES,
    NODE_NIC,
    NODE_NVSWITCH,
    NODE_PCIE_SWITCH,
    Path,
    Topology,
)
from .fabrics import dgx_h100, gb200_nvl72, ib_cluster, ib_cluster_max_nodes, nvlink_pod, pcie_box
from .metrics import (
    bisection_bw_bidir,
    bisection_candidates,
    hops,
    injection_bw_per_dir,
    max_flow_bw_per_dir,
    path_diversity,
)
from .policy import (
    ROUTING_POLICIES,
    expected_colliding_flows,
    expected_distinct_paths,
    with_routing,
)
from .registry import FABRICS, FabricKind, fabric

__all__ = [
    "FABRICS",
    "FabricKind",
    "fabric",
    "LINK_ETH",
    "LINK_IB",
    "LINK_KIND_KEYS",
    "LINK_KIND_NAMES",
    "LINK_NVLINK",
    "LINK_NVLINK_NETWORK",
    "LINK_PCIE",
    "NODE_CPU",
    "NODE_GPU",
    "NODE_IB_SWITCH",
    "NODE_KIND_NAMES",
    "NODE_NIC",
    "NODE_NVSWITCH",
    "NODE_PCIE_SWITCH",
    "Path",
    "ROUTING_POLICIES",
    "Topology",
    "bisection_bw_bidir",
    "bisection_candidates",
    "dgx_h100",
    "expected_colliding_flows",
    "gb200_nvl72",
    "expected_distinct_paths",
    "fully_connected",
    "hops",
    "ib_cluster",
    "ib_cluster_max_nodes",
    "injection_bw_per_dir",
    "max_flow_bw_per_dir",
    "nvlink_pod",
    "path_diversity",
    "pcie_box",
    "ring",
    "single_switch",
    "with_link_factor",
    "with_routing",
]
