"""The bandwidth ladder: every link in the course on one scale, computed from the catalogue.

Each rung is computed from its parts, not copied from a data sheet: NVLink per GPU is
links x per-link payload rate; PCIe x16 is lanes x transfer rate x encoding efficiency (and
the FLIT payload share for Gen6); InfiniBand and Ethernet are per port (all lanes, after
encoding and FEC).

Examples
--------
>>> rows = bandwidth_ladder()
>>> [r.label for r in rows if r.family == "nvlink"][-1]
'NVLink 5 (B200), per GPU'
"""

from __future__ import annotations

from dataclasses import dataclass

from nvlearn import specs
from nvlearn.units import DIRECTIONS

__all__ = ["FAMILIES", "Rung", "bandwidth_ladder"]

FAMILIES = ("pcie", "nvlink", "infiniband", "ethernet")


@dataclass(frozen=True)
class Rung:
    """One bar of the ladder."""

    label: str
    family: str
    bw: float  # bytes/s, in the direction convention the ladder was built with
    direction: str


def _pcie_payload_per_dir(gen: int) -> float:
    p = specs.pcie(gen)
    share = p.flit_payload_fraction if p.flit_payload_fraction is not None else 1.0
    return p.x16_bw_per_dir * share


def bandwidth_ladder(direction: str = "per_direction") -> list[Rung]:
    """Payload bandwidth of every link family in the catalogue.

    Parameters
    ----------
    direction : {"per_direction", "bidirectional"}
        Per-direction rates, or both directions added (how NVIDIA quotes NVLink).

    Returns
    -------
    list of Rung
        PCIe Gen3-6 (x16 slot), NVLink 1-5 (per GPU), InfiniBand EDR-XDR and Ethernet
        400/800G (per port), in that order; ``bw`` in bytes/s.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    k = 2.0 if direction == "bidirectional" else 1.0
    rows: list[Rung] = []
    for gen in (3, 4, 5, 6):
        rows.append(Rung(f"PCIe Gen{gen} x16", "pcie", k * _pcie_payload_per_dir(gen), direction))
    for gen in (1, 2, 3, 4, 5):
        nv = specs.nvlink(gen)
        rows.append(
            Rung(f"NVLink {gen} ({nv.gpu}), per GPU", "nvlink", k * nv.gpu_bw_per_dir, direction)
        )
    for key in ("edr", "hdr", "ndr", "xdr"):
        ib = specs.infiniband(key)
        rows.append(
            Rung(f"InfiniBand {ib.name} port", "infiniband", k * ib.port_bw_per_dir, direction)
        )
    for key in ("400gbe", "800gbe"):
        eth = specs.ethernet(key)
        rows.append(
            Rung(f"{eth.name.split(' (')[0]} port", "ethernet", k * eth.port_bw_per_dir, direction)
        )
    return rows
