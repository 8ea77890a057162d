"""The fabrics of the course, in one place: key -> builder, label, description.

Every module that offers a choice of fabric (a model's ``fabric=`` argument, a notebook's
table, an explorer's dropdown) reads :data:`FABRICS` and builds through :func:`fabric`, which
caches each (fabric, nodes) once per process. Adding a fabric to the course is one entry
here plus its builder in :mod:`~nvlearn.topology.fabrics`.

Examples
--------
>>> sorted(FABRICS)
['dgx_h100', 'gb200_nvl72', 'ib_cluster', 'nvlink_pod', 'pcie_box']
>>> fabric("ib_cluster", nodes=2).n_gpus, FABRICS["ib_cluster"].label
(16, 'InfiniBand cluster')
>>> fabric("dgx_h100") is fabric("dgx_h100")        # built once
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from .core import Topology
from .fabrics import dgx_h100, gb200_nvl72, ib_cluster, nvlink_pod, pcie_box

__all__ = ["FABRICS", "FabricKind", "fabric"]


@dataclass(frozen=True)
class FabricKind:
    """One fabric of the course.

    Attributes
    ----------
    key, label, description : str
    build : callable
        ``build(nodes)`` -> Topology; single-box fabrics ignore ``nodes``.
    multi_node : bool
        Whether ``nodes`` changes the fabric (pod, cluster) or it is one box.
    default_nodes : int
        Nodes when none are asked for.
    """

    key: str
    label: str
    description: str
    build: Callable[[int], Topology]
    multi_node: bool
    default_nodes: int = 1


FABRICS: dict[str, FabricKind] = {f.key: f for f in (
    FabricKind("dgx_h100", "DGX H100", "one box: 8 H100, each with 18 NVLink 4 links over "
               "four NVSwitch planes", lambda nodes: dgx_h100(), False),
    FabricKind("nvlink_pod", "NVLink pod", "the 256-GPU H100 NVLink Switch System (announced, "
               "not generally shipped): DGX H100 boxes on 18 second-level NVLink Switches, "
               "2:1 tapered", nvlink_pod, True, 32),
    FabricKind("ib_cluster", "InfiniBand cluster", "DGX H100 boxes on a rail-optimised NDR "
               "InfiniBand fat tree, one 400 Gb/s NIC per GPU", ib_cluster, True, 32),
    FabricKind("gb200_nvl72", "GB200 NVL72", "one rack: 72 B200 on 18 NVLink 5 switch chips",
               lambda nodes: gb200_nvl72(), False),
    FabricKind("pcie_box", "PCIe box", "8 GPUs that talk over PCIe switches and a CPU",
               lambda nodes: pcie_box(), False),
)}


@functools.lru_cache(maxsize=64)
def fabric(key: str, nodes: int | None = None) -> Topology:
    """The built Topology of fabric ``key`` with ``nodes`` boxes (cached per process).

    Parameters
    ----------
    key : str
        A key of :data:`FABRICS`.
    nodes : int, optional
        Boxes, for the multi-node fabrics (default: the kind's ``default_nodes``); must be
        1 or None for a single-box fabric.
    """
    if key not in FABRICS:
        raise ValueError(f"unknown fabric {key!r}; choose one of {sorted(FABRICS)}")
    kind = FABRICS[key]
    if not kind.multi_node and nodes not in (None, 1):
        raise ValueError(f"{kind.label} is one box; it has no {nodes} nodes")
    return kind.build(kind.default_nodes if nodes is None else int(nodes))
