"""The hardware catalogue: typed, sourced records loaded from ``data/hardware.json``.

Every hardware number in nvlearn lives once, in ``data/hardware.json``, with a unit, a
direction (for data rates), a kind (``spec`` / ``derived`` / ``measured`` / ``model``) and a
source. This module loads that file, checks it, converts every value to SI (bytes, seconds,
bytes/s, baud, W) with :func:`nvlearn.units.to_si`, and hands out frozen dataclasses.

Each record keeps ``.provenance[field]`` (a :class:`Quantity`: the value as published, its
unit, direction, kind, source and where in the source) and ``.source(field)``, a readable
citation. Figures that follow from others (an H100's per-direction NVLink total, a PCIe x16
rate) are *properties* computed from their parts, never stored.

References
----------
The catalogue's own ``sources`` table (``data/hardware.json``) cites every figure; the main
documents are NVIDIA's "NVIDIA H100 Tensor Core GPU Architecture" white paper (2022) and
"NVIDIA Blackwell Architecture Technical Brief" (2024), A. Ishii and R. Wells, Hot Chips 34
(2022, the NVLink-Network Switch), the PCI-SIG PCI Express Base Specifications, IEEE Std
802.3 (line codes and RS FEC) and NVIDIA NCCL 2.30.7 (src/graph/tuning.cc, the NCCL model).

Examples
--------
>>> from nvlearn import specs
>>> h100 = specs.nvlink(4)
>>> h100.gpu_bw_per_dir / 1e9          # 18 links x 25 GB/s, per direction
450.0
>>> h100.gpu_bw_bidir == h100.gpu_bw_bidir_published
True
>>> specs.pcie(5).x16_bw_per_dir / 1e9  # 32 GT/s x 16 lanes x 128/130 / 8
63.01538461538462
>>> print(specs.gpu("h100").source("bf16_dense_flops"))  # doctest: +ELLIPSIS
NVIDIA H100 SXM/PCIe specification table ...
"""

from __future__ import annotations

from typing import Any

from .catalogue import Catalogue
from .loader import _default, default_path, load
from .nccl import NCCLModel
from .provenance import (
    ALGORITHMS,
    ARCHITECTURES,
    DATA_ENV_VAR,
    KINDS,
    LINK_TYPES,
    PROTOCOLS,
    RATE_DIRECTIONS,
    Quantity,
    Source,
)
from .records import (
    DGXGH200,
    DGXH100,
    GB200NVL72,
    GPU,
    NIC,
    BoardVariant,
    DGXA100SuperPODHDR,
    FECCode,
    IBSwitch,
    Latency,
    LineCode,
    NetworkRate,
    NVLinkGen,
    NVLinkSwitch1U,
    NVLinkSwitchSystem,
    NVSwitchGen,
    PCIeGen,
    Record,
    System,
)

__all__ = [
    "ALGORITHMS",
    "ARCHITECTURES",
    "DATA_ENV_VAR",
    "KINDS",
    "LINK_TYPES",
    "PROTOCOLS",
    "RATE_DIRECTIONS",
    "BoardVariant",
    "Catalogue",
    "DGXA100SuperPODHDR",
    "DGXGH200",
    "DGXH100",
    "FECCode",
    "GB200NVL72",
    "GPU",
    "IBSwitch",
    "Latency",
    "LineCode",
    "NCCLModel",
    "NIC",
    "NVLinkGen",
    "NVLinkSwitch1U",
    "NVLinkSwitchSystem",
    "NVSwitchGen",
    "NetworkRate",
    "PCIeGen",
    "Quantity",
    "Record",
    "Source",
    "catalogue",
    "default_path",
    "ethernet",
    "fec",
    "gpu",
    "ib_switch",
    "ib_switch_for_speed",
    "infiniband",
    "keys",
    "latency",
    "line_code",
    "load",
    "nccl",
    "nic",
    "nvlink",
    "nvswitch",
    "pcie",
    "system",
]

# --------------------------------------------------------------------------------------
# Module-level accessors on the default catalogue (cached after the first load)
# --------------------------------------------------------------------------------------


def keys(category: str) -> tuple[str, ...]:
    """Entry keys of a category of the default catalogue, in file order.

    Examples
    --------
    >>> keys("gpus")[:3]
    ('v100', 'a100', 'h100')
    """
    return _default().keys(category)


def nvlink(gen: int) -> NVLinkGen:
    """NVLink generation ``gen`` (1..5) from the default catalogue.

    Examples
    --------
    >>> nvlink(4).link_bw_per_dir / 1e9
    25.0
    """
    return _default().nvlink(gen)


def nvswitch(gen: int) -> NVSwitchGen:
    """NVSwitch generation ``gen`` (1..4).

    Examples
    --------
    >>> nvswitch(3).throughput_direction
    'per_direction'
    """
    return _default().nvswitch(gen)


def system(key: str) -> System:
    """A system record: ``"dgx_h100"``, ``"hgx_h800"``, ``"nvlink_switch_1u"``,
    ``"nvlink_switch_system"``, ``"gb200_nvl72"``, ``"dgx_a100_superpod_hdr"``, ``"dgx_gh200"``.

    Examples
    --------
    >>> system("dgx_h100").links_per_gpu_per_switch
    (5, 4, 4, 5)
    """
    return _default().system(key)


def pcie(gen: int) -> PCIeGen:
    """PCIe generation ``gen`` (3..6).

    Examples
    --------
    >>> pcie(5).transfer_rate
    32000000000.0
    """
    return _default().pcie(gen)


def infiniband(name: str) -> NetworkRate:
    """InfiniBand speed ``"edr"``, ``"hdr"``, ``"ndr"``, ``"xdr"``.

    Examples
    --------
    >>> infiniband("ndr").port_bw_per_dir / 1e9
    50.0
    """
    return _default().infiniband(name)


def ethernet(name: str) -> NetworkRate:
    """Ethernet speed ``"400gbe"`` or ``"800gbe"``.

    Examples
    --------
    >>> ethernet("800gbe").lanes
    8
    """
    return _default().ethernet(name)


def nic(name: str) -> NIC:
    """Network adapter (``"connectx7"``).

    Examples
    --------
    >>> nic("connectx7").pcie_generation
    5
    """
    return _default().nic(name)


def ib_switch(name: str) -> IBSwitch:
    """InfiniBand switch ``"quantum"`` (HDR, 40 ports) or ``"quantum2"`` (NDR, 64 ports).

    Examples
    --------
    >>> ib_switch("quantum").speed
    'hdr'
    """
    return _default().ib_switch(name)


def ib_switch_for_speed(speed: str) -> IBSwitch:
    """The InfiniBand switch whose ports run at ``speed`` (``"hdr"``, ``"ndr"``).

    Examples
    --------
    >>> ib_switch_for_speed("ndr").ports
    64
    """
    return _default().ib_switch_for_speed(speed)


def gpu(name: str) -> GPU:
    """GPU ``"v100"``, ``"a100"``, ``"h100"``, ``"h200"``, ``"b200"``, ``"h800"``, ``"h20"``
    (dense FLOP/s).

    Examples
    --------
    >>> gpu("a100").bf16_dense_flops / 1e12
    312.0
    """
    return _default().gpu(name)


def latency(key: str) -> Latency:
    """A latency in seconds with provenance: ``"nvlink_hop"``, ``"nvswitch_traversal"``,
    ``"ib_switch_hop"``, ``"nic"``, ``"pcie_switch_hop"``.

    Examples
    --------
    >>> round(latency("nic") * 1e9, 6)
    600.0
    """
    return _default().latency(key)


def fec(name: str) -> FECCode:
    """FEC code ``"RS(544,514)"`` or ``"RS(528,514)"``.

    Examples
    --------
    >>> fec("RS(528,514)").t
    7
    """
    return _default().fec(name)


def line_code(name: str) -> LineCode:
    """Line code ``"64b/66b"``, ``"128b/130b"``, ``"256b/257b"``, ``"1b/1b"``.

    Examples
    --------
    >>> line_code("64b/66b").total_bits
    66
    """
    return _default().line_code(name)


def nccl(version: str | None = None) -> NCCLModel:
    """NCCL tuning-model constants (newest version in the file by default).

    Examples
    --------
    >>> nccl().version
    '2.30.7'
    """
    return _default().nccl(version)


def catalogue() -> list[dict[str, Any]]:
    """Every sourced number of the default catalogue as table rows.

    Examples
    --------
    >>> rows = catalogue()
    >>> {"category", "key", "field", "value", "unit", "source"} <= set(rows[0])
    True
    """
    return _default().catalogue()
