"""The loaded catalogue: :class:`Catalogue`, one accessor per category."""

from __future__ import annotations

import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .nccl import NCCLModel, _pick
from .provenance import (
    Source,
)
from .records import (
    GPU,
    NIC,
    FECCode,
    IBSwitch,
    Latency,
    LineCode,
    NetworkRate,
    NVLinkGen,
    NVSwitchGen,
    PCIeGen,
    Record,
    System,
    _LatencyEntry,
)

__all__ = ["Catalogue"]

# category -> record class (None: systems, one class per key). Order matters: line codes and
# FEC codes are built first because PCIe and network rates refer to them.
_CATEGORIES: dict[str, type[Record] | None] = {
    "line_codes": LineCode,
    "fec": FECCode,
    "nvlink": NVLinkGen,
    "nvswitch": NVSwitchGen,
    "systems": None,
    "pcie": PCIeGen,
    "infiniband": NetworkRate,
    "ethernet": NetworkRate,
    "ib_switches": IBSwitch,
    "nics": NIC,
    "gpus": GPU,
    "latencies": _LatencyEntry,
    "nccl": NCCLModel,
}


# --------------------------------------------------------------------------------------
# The catalogue
# --------------------------------------------------------------------------------------


class Catalogue:
    """All records of one ``hardware.json``, with the accessors of this module as methods.

    Obtain one with :func:`load`; the module-level accessors use the default file.

    Examples
    --------
    >>> from nvlearn import specs
    >>> cat = specs.load()
    >>> cat.nvlink(4).links_per_gpu
    18
    """

    def __init__(self, path: Path, sources: Mapping[str, Source],
                 entries: Mapping[str, Mapping[str, Any]]) -> None:
        """Hold already-loaded records (the loader builds them; use :func:`~nvlearn.specs.load`).

        Parameters
        ----------
        path : Path
            The ``hardware.json`` the records came from.
        sources : mapping of str to Source
            Every cited source, by key.
        entries : mapping of str to mapping of str to record
            Per category (``"nvlink"``, ``"gpus"`` ...), the typed records by key, values in SI
            units.
        """
        self.path = path
        self.sources = types.MappingProxyType(dict(sources))
        self._entries = {c: types.MappingProxyType(dict(e)) for c, e in entries.items()}

    def _get(self, category: str, key: str, what: str) -> Any:
        entries = self._entries[category]
        if key not in entries:
            valid = ", ".join(repr(k) for k in entries)
            raise ValueError(f"unknown {what} {key!r}; valid keys: {valid}")
        return entries[key]

    def keys(self, category: str) -> tuple[str, ...]:
        """The entry keys of ``category`` (e.g. ``keys("gpus")``).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.keys("gpus")[:3]
        ('v100', 'a100', 'h100')
        """
        return tuple(self._entries[_pick(category, tuple(self._entries))])

    def nvlink(self, gen: int) -> NVLinkGen:
        """NVLink generation ``gen`` (1..5).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nvlink(4).link_bw_per_dir / 1e9
        25.0
        """
        return self._get("nvlink", str(gen), "NVLink generation")

    def nvswitch(self, gen: int) -> NVSwitchGen:
        """NVSwitch generation ``gen`` (1..4).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nvswitch(3).throughput_direction
        'per_direction'
        """
        return self._get("nvswitch", str(gen), "NVSwitch generation")

    def system(self, key: str) -> System:
        """A system: ``"dgx_h100"``, ``"hgx_h800"``, ``"nvlink_switch_1u"``,
        ``"nvlink_switch_system"``, ``"gb200_nvl72"``, ``"dgx_a100_superpod_hdr"``,
        ``"dgx_gh200"``, ``"dgx_superpod_h100"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.system("dgx_h100").links_per_gpu_per_switch
        (5, 4, 4, 5)
        """
        return self._get("systems", key, "system")

    def pcie(self, gen: int) -> PCIeGen:
        """PCIe generation ``gen`` (3..6).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.pcie(5).transfer_rate
        32000000000.0
        """
        return self._get("pcie", str(gen), "PCIe generation")

    def infiniband(self, name: str) -> NetworkRate:
        """InfiniBand speed ``"edr"``, ``"hdr"``, ``"ndr"`` or ``"xdr"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.infiniband("ndr").port_bw_per_dir / 1e9
        50.0
        """
        return self._get("infiniband", name, "InfiniBand speed")

    def ethernet(self, name: str) -> NetworkRate:
        """Ethernet speed ``"400gbe"`` or ``"800gbe"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.ethernet("800gbe").lanes
        8
        """
        return self._get("ethernet", name, "Ethernet speed")

    def nic(self, name: str) -> NIC:
        """Network adapter, e.g. ``"connectx7"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nic("connectx7").pcie_generation
        5
        """
        return self._get("nics", name, "NIC")

    def ib_switch(self, name: str) -> IBSwitch:
        """InfiniBand switch ``"quantum"`` (HDR) or ``"quantum2"`` (NDR).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.ib_switch("quantum").speed
        'hdr'
        """
        return self._get("ib_switches", name, "InfiniBand switch")

    def ib_switch_for_speed(self, speed: str) -> IBSwitch:
        """The InfiniBand switch whose ports run at ``speed`` (an :meth:`infiniband` key).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.ib_switch_for_speed("ndr").ports
        64
        """
        for rec in self._entries["ib_switches"].values():
            if rec.speed == speed:
                return rec
        have = ", ".join(repr(r.speed) for r in self._entries["ib_switches"].values())
        raise ValueError(f"no InfiniBand switch in the catalogue for speed {speed!r}; "
                         f"switches exist for: {have}")

    def gpu(self, name: str) -> GPU:
        """GPU ``"v100"``, ``"a100"``, ``"h100"``, ``"h200"``, ``"b200"``, ``"h800"`` or
        ``"h20"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.gpu("a100").bf16_dense_flops / 1e12
        312.0
        """
        return self._get("gpus", name, "GPU")

    def latency(self, key: str) -> Latency:
        """Latency in seconds (a float with provenance), e.g. ``"nvlink_hop"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.latency("nic") * 1e9, 6)
        600.0
        """
        return self._get("latencies", key, "latency")

    def fec(self, name: str) -> FECCode:
        """FEC code ``"RS(544,514)"`` or ``"RS(528,514)"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.fec("RS(528,514)").t
        7
        """
        return self._get("fec", name, "FEC code")

    def line_code(self, name: str) -> LineCode:
        """Line code ``"64b/66b"``, ``"128b/130b"``, ``"256b/257b"`` or ``"1b/1b"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.line_code("64b/66b").total_bits
        66
        """
        return self._get("line_codes", name, "line code")

    def nccl(self, version: str | None = None) -> NCCLModel:
        """NCCL tuning constants; ``version=None`` gives the newest in the file.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().version
        '2.30.7'
        """
        if version is None:
            keys = self._entries["nccl"]
            if not keys:
                raise ValueError(f"{self.path}: the 'nccl' category is empty")
            version = max(keys, key=lambda v: tuple(int(p) for p in v.split(".")))
        return self._get("nccl", version, "NCCL version")

    def catalogue(self) -> list[dict[str, Any]]:
        """Every sourced number as a row (for a table in a notebook).

        Returns
        -------
        list of dict
            Keys: category, key, field, value, unit, direction, kind, value_si, source,
            source_title, where, note.

        Examples
        --------
        >>> from nvlearn import specs
        >>> rows = specs.catalogue()
        >>> {"category", "key", "field", "value", "unit", "source"} <= set(rows[0])
        True
        """
        rows = []
        for category, entries in self._entries.items():
            for key, rec in entries.items():
                for name, q in rec.provenance.items():
                    rows.append({
                        "category": category, "key": key, "field": name, "value": q.value,
                        "unit": q.unit, "direction": q.direction, "kind": q.kind,
                        "value_si": q.value_si, "source": q.source,
                        "source_title": self.sources[q.source].title,
                        "where": q.where, "note": q.note,
                    })
        return rows
