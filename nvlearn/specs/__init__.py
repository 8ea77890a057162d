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

import inspect
from collections.abc import Callable
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
    DGXSuperPOD,
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
    "DGXSuperPOD",
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


def _on_default(name: str) -> Callable[..., Any]:
    """Catalogue method ``name`` as a function of this module, on the default catalogue
    (``data/hardware.json``, or ``$NVLEARN_DATA_DIR``; loaded once): same docstring and
    signature, so the accessors are never written twice."""
    method = getattr(Catalogue, name)

    def accessor(*args: Any, **kwargs: Any) -> Any:
        return getattr(_default(), name)(*args, **kwargs)

    signature = inspect.signature(method)
    accessor.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])
    accessor.__name__ = accessor.__qualname__ = name
    accessor.__doc__ = method.__doc__
    accessor.__annotations__ = {k: v for k, v in method.__annotations__.items() if k != "self"}
    return accessor


keys = _on_default("keys")
nvlink = _on_default("nvlink")
nvswitch = _on_default("nvswitch")
system = _on_default("system")
pcie = _on_default("pcie")
infiniband = _on_default("infiniband")
ethernet = _on_default("ethernet")
nic = _on_default("nic")
ib_switch = _on_default("ib_switch")
ib_switch_for_speed = _on_default("ib_switch_for_speed")
gpu = _on_default("gpu")
latency = _on_default("latency")
fec = _on_default("fec")
line_code = _on_default("line_code")
nccl = _on_default("nccl")
catalogue = _on_default("catalogue")
