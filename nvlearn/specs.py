"""The hardware catalogue: typed, sourced records loaded from ``data/hardware.json``.

Every hardware number in nvlearn lives once, in ``data/hardware.json``, with a unit, a
direction (for data rates), a kind (``spec`` / ``derived`` / ``measured`` / ``model``) and a
source. This module loads that file, checks it, converts every value to SI (bytes, seconds,
bytes/s, baud, W) with :func:`nvlearn.units.to_si`, and hands out frozen dataclasses.

Each record keeps ``.provenance[field]`` (a :class:`Quantity`: the value as published, its
unit, direction, kind, source and where in the source) and ``.source(field)``, a readable
citation. Figures that follow from others (an H100's per-direction NVLink total, a PCIe x16
rate) are *properties* computed from their parts, never stored.

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

import dataclasses
import functools
import json
import math
import os
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .units import DIRECTIONAL_DIMENSIONS, DIRECTIONS, UNITS, bits_to_bytes, dimension, to_si

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

#: Environment variable naming a directory that holds an alternative ``hardware.json``.
DATA_ENV_VAR = "NVLEARN_DATA_DIR"
DATA_FILE = "hardware.json"

#: What a number is: read off a data sheet, computed from other published numbers,
#: measured by someone, or an assumption / a library's internal model constant.
KINDS = ("spec", "derived", "measured", "model")

#: NCCL's names, in the order of its tuning tables (src/graph/tuning.cc).
ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
PROTOCOLS = ("ll", "ll128", "simple")
LINK_TYPES = ("nvlink", "pci", "net")
ARCHITECTURES = ("volta", "ampere", "hopper", "blackwell")
#: What a data rate's ``direction`` may say: one way of a full-duplex link, both ways
#: summed, or ``half_duplex`` — the total of a bus that reads and writes share (HBM), which
#: is neither a per-direction rate nor a sum of two directions.
RATE_DIRECTIONS = (*DIRECTIONS, "half_duplex")

_QUANTITY_KEYS = frozenset({"value", "unit", "direction", "kind", "source", "where", "note"})
_SOURCE_KEYS = frozenset({"title", "url", "publisher", "date"})


# --------------------------------------------------------------------------------------
# Provenance
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A document a number comes from.

    Attributes
    ----------
    id : str
        The key used in ``hardware.json`` (``"wp_h100"``).
    title, url : str
        What and where.
    publisher, date : str or None
        Optional.
    """

    id: str
    title: str
    url: str
    publisher: str | None = None
    date: str | None = None

    def citation(self) -> str:
        """One-line citation: ``title (publisher, date). url``.

        Examples
        --------
        >>> Source("x", "A paper", "https://example.org", "ACM", "2020").citation()
        'A paper (ACM, 2020). https://example.org'
        """
        extra = ", ".join(p for p in (self.publisher, self.date) if p)
        return f"{self.title}{f' ({extra})' if extra else ''}. {self.url}"


@dataclass(frozen=True)
class Quantity:
    """One published number and where it came from.

    Attributes
    ----------
    value_si : float, tuple of float, or None
        The value in SI (bytes, bytes/s, s, baud, transfers/s, flop/s, W, m; counts as is).
    value : float, list of float, or None
        The value as written in ``hardware.json``, in ``unit``.
    unit : str
        A key of :data:`nvlearn.units.UNITS`.
    direction : {"per_direction", "bidirectional", "half_duplex"} or None
        Set exactly when the unit is a data rate (:data:`RATE_DIRECTIONS`).
    kind : {"spec", "derived", "measured", "model"}
    source : str
        Source id (see :class:`Source`).
    where : str
        Section, table or quote in the source.
    note : str or None
        Caveats, confidence.
    """

    value_si: float | tuple[float, ...] | None
    value: Any
    unit: str
    direction: str | None
    kind: str
    source: str
    where: str
    note: str | None = None


# --------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------


def _num(dim: str, **kwargs: Any) -> Any:
    """Declare a numeric record field stored as a quantity whose unit has dimension ``dim``."""
    return field(metadata={"dim": dim}, **kwargs)


def _computed(**kwargs: Any) -> Any:
    """Declare a field the loader fills from another catalogue entry (not stored in JSON)."""
    return field(metadata={"computed": True}, **kwargs)


@dataclass(frozen=True, kw_only=True)
class Record:
    """Base of every catalogue record.

    Attributes
    ----------
    key : str
        The entry's key in its category (``"4"``, ``"h100"``, ``"dgx_h100"``).
    provenance : Mapping[str, Quantity]
        For every numeric field: the published value, unit, direction, kind and source.
    """

    key: str
    provenance: Mapping[str, Quantity] = field(repr=False, compare=False)
    source_table: Mapping[str, Source] = field(repr=False, compare=False)

    def source(self, field_name: str) -> str:
        """A readable citation for ``field_name``: source, where, kind, note.

        Examples
        --------
        >>> from nvlearn import specs
        >>> print(specs.nvlink(4).source("link_bw_per_dir"))  # doctest: +ELLIPSIS
        NVIDIA Hopper Architecture In-Depth ... per direction [spec]
        """
        return _citation(self.provenance, self.source_table, field_name, type(self).__name__)


def _citation(
    provenance: Mapping[str, Quantity], table: Mapping[str, Source], name: str, owner: str
) -> str:
    if name not in provenance:
        known = ", ".join(sorted(provenance))
        raise ValueError(f"{owner} has no sourced field {name!r}; sourced fields: {known}")
    q = provenance[name]
    shown = q.value if q.value is not None else "none"
    direction = f" {q.direction.replace('_', ' ')}" if q.direction else ""
    text = (
        f"{table[q.source].citation()} — {q.where} — value {shown} {q.unit}{direction} [{q.kind}]"
    )
    return f"{text}. Note: {q.note}" if q.note else text


@dataclass(frozen=True, kw_only=True)
class NVLinkGen(Record):
    """One NVLink generation, per link and per GPU.

    Attributes
    ----------
    name, gpu : str
        ``"NVLink 4"``, the first GPU to use it (``"H100"``).
    year : int
    links_per_gpu, lanes_per_direction, bits_per_symbol : int
    symbol_rate : float
        Baud per lane.
    modulation : {"NRZ", "PAM4"}
    lane_rate_raw : float
        Line rate of one lane, bytes/s per direction (includes FEC and coding overhead).
    link_bw_per_dir : float
        Effective payload rate of one link, bytes/s per direction.
    gpu_bw_bidir_published : float
        NVIDIA's per-GPU figure (900 GB/s for H100): the sum of both directions, bytes/s.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.nvlink(3).gpu_bw_per_dir / 1e9
    300.0
    """

    name: str
    gpu: str
    year: int = _num("year")
    links_per_gpu: int = _num("dimensionless")
    lanes_per_direction: int = _num("dimensionless")
    symbol_rate: float = _num("baud")
    modulation: str
    bits_per_symbol: int = _num("dimensionless")
    lane_rate_raw: float = _num("bytes/s")
    link_bw_per_dir: float = _num("bytes/s")
    gpu_bw_bidir_published: float = _num("bytes/s")

    @property
    def generation(self) -> int:
        """NVLink generation number (1..5)."""
        return int(self.key)

    @property
    def link_raw_per_dir(self) -> float:
        """Line rate of one link (all its lanes), bytes/s per direction."""
        return self.lanes_per_direction * self.lane_rate_raw

    @property
    def link_bw_bidir(self) -> float:
        """Payload rate of one link, both directions summed, bytes/s."""
        return 2.0 * self.link_bw_per_dir

    @property
    def gpu_bw_per_dir(self) -> float:
        """Per-GPU NVLink payload rate, bytes/s per direction: links x link_bw_per_dir."""
        return self.links_per_gpu * self.link_bw_per_dir

    @property
    def gpu_bw_bidir(self) -> float:
        """Per-GPU NVLink payload rate, both directions summed, bytes/s."""
        return 2.0 * self.gpu_bw_per_dir


@dataclass(frozen=True, kw_only=True)
class NVSwitchGen(Record):
    """One NVSwitch chip generation.

    Attributes
    ----------
    name : str
    nvlink_generation, ports : int
    throughput_published : float
        The chip throughput as NVIDIA publishes it, bytes/s.
    throughput_direction : str
        Which direction ``throughput_published`` counts (from its provenance).

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.nvswitch(3).ports
    64
    """

    name: str
    nvlink_generation: int = _num("dimensionless")
    ports: int = _num("dimensionless")
    throughput_published: float = _num("bytes/s")
    throughput_direction: str = _computed()

    @property
    def generation(self) -> int:
        """NVSwitch generation number (1..4)."""
        return int(self.key)


@dataclass(frozen=True, kw_only=True)
class DGXH100(Record):
    """DGX H100 / HGX H100 8-GPU baseboard (and its NVLink-network variant).

    ``network_ports_per_switch``, ``external_nvlink_ports``, ``osfp_cages`` and
    ``nvlinks_per_osfp`` describe the **NVLink-network variant** built for the NVLink Switch
    System (OSFP cages to second-level NVLink Switches). The standard DGX H100 that shipped
    has no external NVLink ports in use: it reaches other nodes through its ``nics``, whose
    ``nic_osfp_ports`` are the OSFP ports on its back.

    Attributes
    ----------
    name, gpu, nic : str
        ``gpu`` and ``nic`` are keys for :func:`gpu` and :func:`nic`.
    gpus, nvswitch_chips, nvswitch_generation, external_nvlink_ports, osfp_cages,
    nvlinks_per_osfp, nics, nic_osfp_ports : int
    links_per_gpu_per_switch : tuple of int
        NVLinks from every GPU to switch 0..3 (5, 4, 4, 5).
    network_ports_per_switch : tuple of int
        NVLink-network ports on switch 0..3 (20, 16, 16, 20).
    gpu_to_gpu_bw_bidir, bisection_bw_bidir : float
        bytes/s, both directions summed.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.system("dgx_h100").links_per_gpu
    18
    """

    name: str
    gpu: str
    nic: str
    gpus: int = _num("dimensionless")
    nvswitch_chips: int = _num("dimensionless")
    nvswitch_generation: int = _num("dimensionless")
    links_per_gpu_per_switch: tuple[int, ...] = _num("dimensionless")
    network_ports_per_switch: tuple[int, ...] = _num("dimensionless")
    external_nvlink_ports: int = _num("dimensionless")
    osfp_cages: int = _num("dimensionless")
    nvlinks_per_osfp: int = _num("dimensionless")
    nics: int = _num("dimensionless")
    nic_osfp_ports: int = _num("dimensionless")
    gpu_to_gpu_bw_bidir: float = _num("bytes/s")
    bisection_bw_bidir: float = _num("bytes/s")

    @property
    def links_per_gpu(self) -> int:
        """NVLinks per GPU, summed over the switches."""
        return sum(self.links_per_gpu_per_switch)

    @property
    def gpu_ports_per_switch(self) -> tuple[int, ...]:
        """GPU-facing ports used on each switch chip (gpus x links to that switch)."""
        return tuple(self.gpus * n for n in self.links_per_gpu_per_switch)


@dataclass(frozen=True, kw_only=True)
class BoardVariant(Record):
    """A baseboard like system ``base``, with another GPU whose NVLinks split differently.

    Only the GPU and how its links spread over the base's NVSwitch chips change; every
    other figure (GPUs, chips, NICs) is the base system's. A GPU with as many NVLinks as the
    base's own GPU needs no entry: it uses the base's split.

    Attributes
    ----------
    name, base, gpu : str
        ``base`` is a :func:`system` key (``"dgx_h100"``), ``gpu`` a :func:`gpu` key.
    links_per_gpu_per_switch : tuple of int
        NVLinks from every GPU to each of the base's NVSwitch chips.

    Examples
    --------
    >>> from nvlearn import specs
    >>> v = specs.system("hgx_h800")
    >>> v.base, v.gpu, v.links_per_gpu_per_switch
    ('dgx_h100', 'h800', (2, 2, 2, 2))
    >>> v.provenance["links_per_gpu_per_switch"].kind     # an assumption, not published
    'model'
    """

    name: str
    base: str
    gpu: str
    links_per_gpu_per_switch: tuple[int, ...] = _num("dimensionless")

    @property
    def links_per_gpu(self) -> int:
        """NVLinks per GPU, summed over the switches."""
        return sum(self.links_per_gpu_per_switch)


@dataclass(frozen=True, kw_only=True)
class NVLinkSwitch1U(Record):
    """The external 1U NVLink Switch (SGXLS10) of the H100 NVLink Switch System.

    Attributes
    ----------
    name : str
    nvswitch_chips, nvswitch_generation, ports_per_chip, osfp_cages, nvlinks_per_osfp, ports : int
    port_bw_per_dir, bw_per_dir : float
        bytes/s per direction, per port and for the whole box.
    max_cable_length : float
        metres.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.system("nvlink_switch_1u").ports
    128
    """

    name: str
    nvswitch_chips: int = _num("dimensionless")
    nvswitch_generation: int = _num("dimensionless")
    ports_per_chip: int = _num("dimensionless")
    osfp_cages: int = _num("dimensionless")
    nvlinks_per_osfp: int = _num("dimensionless")
    ports: int = _num("dimensionless")
    port_bw_per_dir: float = _num("bytes/s")
    bw_per_dir: float = _num("bytes/s")
    max_cable_length: float = _num("m")


@dataclass(frozen=True, kw_only=True)
class NVLinkSwitchSystem(Record):
    """The 256-GPU H100 NVLink Switch System (two-level NVLink fat tree, 2:1 taper).

    Announced (GTC 2022) for DGX H100 nodes of the NVLink-network variant, but not generally
    shipped; the 256-GPU NVLink 4 system that shipped is ``shipped_as`` (the DGX GH200).

    Attributes
    ----------
    name, shipped_as : str
        ``shipped_as``: key of the system that brought the design to market.
    node, switch : str
        Keys of the node (``"dgx_h100"``) and second-level switch (``"nvlink_switch_1u"``).
    announced : int
        Year announced; its provenance quotes NVIDIA on availability.
    nodes, gpus, l2_switches : int
    taper : float
        Node injection over node uplink bandwidth (2 for 2:1).
    all_to_all_bw : float
        NVIDIA's "57.6 TB/s of all-to-all bandwidth", bytes/s (see its provenance note).
    bisection_gain_vs_hdr_a100 : float
        NVIDIA's "9x bisection" claim over the HDR-IB DGX A100 SuperPOD.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.system("nvlink_switch_system").gpus
    256
    """

    name: str
    node: str
    switch: str
    nodes: int = _num("dimensionless")
    gpus: int = _num("dimensionless")
    l2_switches: int = _num("dimensionless")
    taper: float = _num("dimensionless")
    all_to_all_bw: float = _num("bytes/s")
    bisection_gain_vs_hdr_a100: float = _num("dimensionless")
    announced: int = _num("year")
    shipped_as: str


@dataclass(frozen=True, kw_only=True)
class DGXGH200(Record):
    """DGX GH200: 256 GH200 Grace Hopper Superchips on one NVLink 4 Switch System.

    The 256-GPU NVLink 4 system that shipped (the H100 NVLink Switch System of DGX H100
    nodes was announced but not generally shipped).

    Attributes
    ----------
    name : str
    superchips, gpus, nvlink_generation, announced : int
    gpu_addressable_memory : float
        bytes reachable by every GPU over NVLink (GPU HBM plus CPU memory).
    gpu_hbm_capacity : float
        bytes of HBM on each superchip's Hopper GPU.
    all_to_all_bw : float
        NVIDIA's "57.6 TB/s of all-to-all bandwidth", bytes/s (see its provenance note).

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.system("dgx_gh200").gpus, specs.system("dgx_gh200").announced
    (256, 2023)
    """

    name: str
    superchips: int = _num("dimensionless")
    gpus: int = _num("dimensionless")
    nvlink_generation: int = _num("dimensionless")
    gpu_addressable_memory: float = _num("bytes")
    gpu_hbm_capacity: float = _num("bytes")
    all_to_all_bw: float = _num("bytes/s")
    announced: int = _num("year")


@dataclass(frozen=True, kw_only=True)
class GB200NVL72(Record):
    """GB200 NVL72 rack: 72 Blackwell GPUs on one NVLink 5 domain.

    Attributes
    ----------
    name, gpu : str
    gpus, grace_cpus, compute_trays, gpus_per_compute_tray, switch_trays,
    nvswitch_chips_per_tray, nvswitch_generation, ports_per_switch_tray,
    max_nvlink_domain_gpus : int
    switch_tray_bw_bidir, aggregate_bw_bidir : float
        bytes/s, both directions summed.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.system("gb200_nvl72").switch_trays
    9
    """

    name: str
    gpu: str
    gpus: int = _num("dimensionless")
    grace_cpus: int = _num("dimensionless")
    compute_trays: int = _num("dimensionless")
    gpus_per_compute_tray: int = _num("dimensionless")
    switch_trays: int = _num("dimensionless")
    nvswitch_chips_per_tray: int = _num("dimensionless")
    nvswitch_generation: int = _num("dimensionless")
    ports_per_switch_tray: int = _num("dimensionless")
    switch_tray_bw_bidir: float = _num("bytes/s")
    aggregate_bw_bidir: float = _num("bytes/s")
    max_nvlink_domain_gpus: int = _num("dimensionless")


@dataclass(frozen=True, kw_only=True)
class DGXA100SuperPODHDR(Record):
    """The HDR-InfiniBand DGX A100 SuperPOD used as the baseline of NVIDIA's "9x bisection".

    Attributes
    ----------
    name : str
    nodes, gpus_per_node, hcas_per_node : int
    hca_bw_per_dir : float
        One HDR adapter, bytes/s per direction.
    bisection_bw_bidir : float
        bytes/s, both directions summed.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.system("dgx_a100_superpod_hdr").bisection_bw_bidir / 1e12
    6.4
    """

    name: str
    nodes: int = _num("dimensionless")
    gpus_per_node: int = _num("dimensionless")
    hcas_per_node: int = _num("dimensionless")
    hca_bw_per_dir: float = _num("bytes/s")
    bisection_bw_bidir: float = _num("bytes/s")


System = (DGXH100 | BoardVariant | NVLinkSwitch1U | NVLinkSwitchSystem | GB200NVL72
          | DGXA100SuperPODHDR | DGXGH200)

_SYSTEM_TYPES: dict[str, type[Record]] = {
    "dgx_h100": DGXH100,
    "hgx_h800": BoardVariant,
    "nvlink_switch_1u": NVLinkSwitch1U,
    "nvlink_switch_system": NVLinkSwitchSystem,
    "gb200_nvl72": GB200NVL72,
    "dgx_a100_superpod_hdr": DGXA100SuperPODHDR,
    "dgx_gh200": DGXGH200,
}


@dataclass(frozen=True, kw_only=True)
class LineCode(Record):
    """A block line code (``"64b/66b"``, ``"128b/130b"``, ``"256b/257b"``, ``"1b/1b"``).

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.line_code("128b/130b").efficiency
    0.9846153846153847
    """

    data_bits: int = _num("dimensionless")
    total_bits: int = _num("dimensionless")

    @property
    def efficiency(self) -> float:
        """Data bits per line bit."""
        return self.data_bits / self.total_bits


@dataclass(frozen=True, kw_only=True)
class FECCode(Record):
    """A Reed-Solomon forward error correction code RS(n, k) over ``symbol_bits``-bit symbols.

    Attributes
    ----------
    name : str
    n, k, symbol_bits, t : int
        Codeword and message length in symbols, bits per symbol, correctable symbols.
    pre_fec_ber : float or None
        The raw bit error rate the code is designed to operate at, if published.

    Examples
    --------
    >>> from nvlearn import specs
    >>> kp4 = specs.fec("RS(544,514)")
    >>> kp4.parity_symbols, kp4.codeword_bits
    (30, 5440)
    """

    name: str
    n: int = _num("dimensionless")
    k: int = _num("dimensionless")
    symbol_bits: int = _num("dimensionless")
    t: int = _num("dimensionless")
    pre_fec_ber: float | None = _num("dimensionless", default=None)

    @property
    def parity_symbols(self) -> int:
        """n - k."""
        return self.n - self.k

    @property
    def code_rate(self) -> float:
        """k / n: the fraction of line symbols that carry data."""
        return self.k / self.n

    @property
    def codeword_bits(self) -> int:
        """n x symbol_bits."""
        return self.n * self.symbol_bits


@dataclass(frozen=True, kw_only=True)
class PCIeGen(Record):
    """One PCI Express generation, per lane and for an x16 link.

    Attributes
    ----------
    transfer_rate : float
        Transfers per second per lane (one line bit per transfer).
    symbol_rate : float
        Baud per lane.
    modulation : {"NRZ", "PAM4"}
    bits_per_symbol, lanes : int
    encoding : str
        A :func:`line_code` key.
    encoding_efficiency : float
        That line code's data fraction (filled from the catalogue).
    x16_bw_bidir_published : float
        The usual marketing figure for x16, both directions summed, bytes/s.
    flit_bytes, flit_payload_bytes : int or None
        Gen6 FLIT mode framing (None before Gen6).

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.pcie(4).x16_bw_per_dir / 1e9
    31.50769230769231
    """

    transfer_rate: float = _num("transfers/s")
    symbol_rate: float = _num("baud")
    modulation: str
    bits_per_symbol: int = _num("dimensionless")
    encoding: str
    lanes: int = _num("dimensionless")
    x16_bw_bidir_published: float = _num("bytes/s")
    flit_bytes: int | None = _num("bytes", default=None)
    flit_payload_bytes: int | None = _num("bytes", default=None)
    encoding_efficiency: float = _computed()

    @property
    def generation(self) -> int:
        """PCIe generation number (3..6)."""
        return int(self.key)

    @property
    def x16_bw_per_dir(self) -> float:
        """x16 rate after the line code, bytes/s per direction: rate x lanes x efficiency / 8."""
        return bits_to_bytes(self.transfer_rate * self.lanes * self.encoding_efficiency)

    @property
    def x16_bw_bidir(self) -> float:
        """x16 rate after the line code, both directions summed, bytes/s."""
        return 2.0 * self.x16_bw_per_dir

    @property
    def flit_payload_fraction(self) -> float | None:
        """TLP bytes per flit byte in FLIT mode (Gen6), None before Gen6."""
        if self.flit_bytes is None or self.flit_payload_bytes is None:
            return None
        return self.flit_payload_bytes / self.flit_bytes


@dataclass(frozen=True, kw_only=True)
class NetworkRate(Record):
    """An InfiniBand or Ethernet port speed (EDR..XDR, 400GbE, 800GbE).

    Attributes
    ----------
    name : str
    lanes, bits_per_symbol : int
    symbol_rate : float
        Baud per lane.
    modulation : {"NRZ", "PAM4"}
    lane_rate_raw : float
        Line rate per lane, bytes/s per direction.
    encoding : str
        :func:`line_code` key; ``encoding_efficiency`` is filled from it.
    fec : str or None
        :func:`fec` key; ``fec_code_rate`` is filled from it (1.0 without FEC).
    port_bw_per_dir : float
        Published port data rate, bytes/s per direction.

    Examples
    --------
    >>> from nvlearn import specs
    >>> ndr = specs.infiniband("ndr")
    >>> ndr.lanes * ndr.lane_bw_per_dir == ndr.port_bw_per_dir
    True
    """

    name: str
    lanes: int = _num("dimensionless")
    symbol_rate: float = _num("baud")
    modulation: str
    bits_per_symbol: int = _num("dimensionless")
    lane_rate_raw: float = _num("bytes/s")
    encoding: str
    fec: str | None = None
    port_bw_per_dir: float = _num("bytes/s")
    encoding_efficiency: float = _computed()
    fec_code_rate: float = _computed()

    @property
    def lane_bw_per_dir(self) -> float:
        """Payload per lane, bytes/s per direction: raw x line-code efficiency x FEC rate."""
        return self.lane_rate_raw * self.encoding_efficiency * self.fec_code_rate

    @property
    def port_bw_bidir(self) -> float:
        """Published port rate, both directions summed, bytes/s."""
        return 2.0 * self.port_bw_per_dir


@dataclass(frozen=True, kw_only=True)
class IBSwitch(Record):
    """An InfiniBand switch ASIC / 1U box (its radix sets the size of a fat tree).

    Attributes
    ----------
    name : str
    speed : str
        :func:`infiniband` key of its ports (``"ndr"``).
    ports : int
        Radix at that speed.
    throughput_bidir : float
        Published switching capacity, both directions summed, bytes/s.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.ib_switch("quantum2").ports
    64
    """

    name: str
    speed: str
    ports: int = _num("dimensionless")
    throughput_bidir: float = _num("bytes/s")


@dataclass(frozen=True, kw_only=True)
class NIC(Record):
    """A network adapter.

    Attributes
    ----------
    name, protocols : str
    port_bw_per_dir : float
        bytes/s per direction.
    pcie_generation, pcie_lanes : int
        Host interface.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.nic("connectx7").port_bw_per_dir / 1e9
    50.0
    """

    name: str
    protocols: str
    port_bw_per_dir: float = _num("bytes/s")
    pcie_generation: int = _num("dimensionless")
    pcie_lanes: int = _num("dimensionless")


@dataclass(frozen=True, kw_only=True)
class GPU(Record):
    """A data-centre GPU (SXM part). FLOP/s figures are DENSE (no 2:4 sparsity).

    Attributes
    ----------
    name, architecture : str
    year, nvlink_generation : int
    bf16_dense_flops : float or None
        Dense bf16 tensor FLOP/s; None for V100 (no bf16).
    fp16_dense_flops : float
        Dense fp16 tensor FLOP/s.
    hbm_capacity : float
        bytes (decimal GB on data sheets).
    hbm_bw : float
        bytes/s, the half-duplex total: reads plus writes share it (``half_duplex``).
    nvlink_links : int
        NVLink links the part has enabled: at most its generation's ``links_per_gpu`` (the
        export H800 has 8 of NVLink 4's 18).
    board_power : float
        W (TDP / TGP).

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.gpu("v100").bf16_dense_flops is None
    True
    """

    name: str
    architecture: str
    year: int = _num("year")
    bf16_dense_flops: float | None = _num("flop/s")
    fp16_dense_flops: float = _num("flop/s")
    hbm_capacity: float = _num("bytes")
    hbm_bw: float = _num("bytes/s")
    nvlink_generation: int = _num("dimensionless")
    nvlink_links: int = _num("dimensionless")
    board_power: float = _num("W")


@dataclass(frozen=True, kw_only=True)
class _LatencyEntry(Record):
    description: str
    latency: float = _num("s")


class Latency(float):
    """A latency in seconds that also carries its provenance.

    Behaves as a plain ``float`` in arithmetic (the result is a plain float); adds
    ``key``, ``description``, ``provenance`` and :meth:`source`.

    Examples
    --------
    >>> from nvlearn import specs
    >>> lat = specs.latency("pcie_switch_hop")
    >>> round(lat * 1e9, 6)
    105.0
    >>> lat.provenance["latency"].kind
    'spec'
    """

    key: str
    description: str
    provenance: Mapping[str, Quantity]
    source_table: Mapping[str, Source]

    def __new__(cls, entry: _LatencyEntry) -> Latency:
        obj = super().__new__(cls, entry.latency)
        for name in ("key", "description", "provenance", "source_table"):
            object.__setattr__(obj, name, getattr(entry, name))
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Latency is read-only")

    def __repr__(self) -> str:
        return f"Latency({self.key!r}, {float(self)!r} s)"

    def source(self, field_name: str = "latency") -> str:
        """A readable citation (the only sourced field is ``"latency"``)."""
        return _citation(self.provenance, self.source_table, field_name, "Latency")


@dataclass(frozen=True, kw_only=True)
class NCCLModel(Record):
    """NCCL's tuning-model constants (protocol framing, latencies, bandwidth caps).

    Latencies are seconds, bandwidths bytes/s per direction. Table rows are
    ``(LL, LL128, Simple)`` for latencies and ``(1 node, 2 nodes, >= 4 nodes)`` for the
    per-architecture bandwidth caps, as in NCCL's ``src/graph/tuning.cc``. Use the lookup
    methods rather than the raw fields.

    Examples
    --------
    >>> from nvlearn import specs
    >>> m = specs.nccl()
    >>> m.hw_latency("nvlink", "ring", "ll") * 1e6
    0.6
    >>> m.ll128_data_fraction
    0.9375
    """

    ll_line_bytes: int = _num("bytes")
    ll_data_bytes: int = _num("bytes")
    ll128_line_bytes: int = _num("bytes")
    ll128_data_bytes: int = _num("bytes")
    base_lat_tree: tuple[float, ...] = _num("s")
    base_lat_ring: tuple[float, ...] = _num("s")
    base_lat_collnet_direct: tuple[float, ...] = _num("s")
    base_lat_collnet_chain: tuple[float, ...] = _num("s")
    base_lat_nvls: tuple[float, ...] = _num("s")
    base_lat_nvls_tree: tuple[float, ...] = _num("s")
    base_lat_pat: tuple[float, ...] = _num("s")
    hw_lat_nvlink_tree: tuple[float, ...] = _num("s")
    hw_lat_nvlink_ring: tuple[float, ...] = _num("s")
    hw_lat_nvlink_collnet_direct: tuple[float, ...] = _num("s")
    hw_lat_nvlink_collnet_chain: tuple[float, ...] = _num("s")
    hw_lat_nvlink_nvls: tuple[float, ...] = _num("s")
    hw_lat_nvlink_nvls_tree: tuple[float, ...] = _num("s")
    hw_lat_nvlink_pat: tuple[float, ...] = _num("s")
    hw_lat_pci_tree: tuple[float, ...] = _num("s")
    hw_lat_pci_ring: tuple[float, ...] = _num("s")
    hw_lat_pci_collnet_direct: tuple[float, ...] = _num("s")
    hw_lat_pci_collnet_chain: tuple[float, ...] = _num("s")
    hw_lat_pci_nvls: tuple[float, ...] = _num("s")
    hw_lat_pci_nvls_tree: tuple[float, ...] = _num("s")
    hw_lat_pci_pat: tuple[float, ...] = _num("s")
    hw_lat_net_tree: tuple[float, ...] = _num("s")
    hw_lat_net_ring: tuple[float, ...] = _num("s")
    hw_lat_net_collnet_direct: tuple[float, ...] = _num("s")
    hw_lat_net_collnet_chain: tuple[float, ...] = _num("s")
    hw_lat_net_nvls: tuple[float, ...] = _num("s")
    hw_lat_net_nvls_tree: tuple[float, ...] = _num("s")
    hw_lat_net_pat: tuple[float, ...] = _num("s")
    nvls_efficiency_hopper: float = _num("dimensionless")
    nvls_efficiency_blackwell: float = _num("dimensionless")
    nvlink_bw_sm60: float = _num("bytes/s")
    nvlink_bw_sm70: float = _num("bytes/s")
    nvlink_bw_sm80: float = _num("bytes/s")
    nvlink_bw_sm86: float = _num("bytes/s")
    nvlink_bw_sm90: float = _num("bytes/s")
    nvlink_bw_sm100: float = _num("bytes/s")
    pci_bw: float = _num("bytes/s")
    net_bw: float = _num("bytes/s")
    net_port_fraction: float = _num("dimensionless")
    ll_max_bws_volta: tuple[float, ...] = _num("bytes/s")
    ll_max_bws_ampere: tuple[float, ...] = _num("bytes/s")
    ll_max_bws_hopper: tuple[float, ...] = _num("bytes/s")
    ll_max_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_blackwell: tuple[float, ...] = _num("bytes/s")

    @property
    def version(self) -> str:
        """NCCL version the constants were read from."""
        return self.key

    @property
    def ll_data_fraction(self) -> float:
        """Fraction of an LL line that is data (the rest are flags): 0.5."""
        return self.ll_data_bytes / self.ll_line_bytes

    @property
    def ll128_data_fraction(self) -> float:
        """Fraction of an LL128 line that is data: 120/128."""
        return self.ll128_data_bytes / self.ll128_line_bytes

    def base_latency(self, algorithm: str, protocol: str) -> float:
        """NCCL ``baseLat[algorithm][protocol]`` in seconds.

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.nccl().base_latency("ring", "simple") * 1e6, 9)
        8.4
        """
        row: tuple[float, ...] = getattr(self, f"base_lat_{_pick(algorithm, ALGORITHMS)}")
        return row[PROTOCOLS.index(_pick(protocol, PROTOCOLS))]

    def hw_latency(self, link: str, algorithm: str, protocol: str) -> float:
        """NCCL ``hwLat[link][algorithm][protocol]`` in seconds (per step / per hop).

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.nccl().hw_latency("net", "ring", "simple") * 1e6, 9)
        14.0
        """
        name = f"hw_lat_{_pick(link, LINK_TYPES)}_{_pick(algorithm, ALGORITHMS)}"
        row: tuple[float, ...] = getattr(self, name)
        return row[PROTOCOLS.index(_pick(protocol, PROTOCOLS))]

    def nvls_efficiency(self, architecture: str) -> float:
        """NCCL ``nvlsEfficiency`` for ``"hopper"`` or ``"blackwell"`` (0 elsewhere)."""
        arch = _pick(architecture, ARCHITECTURES)
        return getattr(self, f"nvls_efficiency_{arch}", 0.0)

    def nvlink_bw(self, sm: int) -> float:
        """NCCL's achievable per-link NVLink bandwidth for compute capability ``sm`` (e.g. 90).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().nvlink_bw(90) / 1e9
        20.6
        """
        name = f"nvlink_bw_sm{sm}"
        if not hasattr(self, name):
            known = sorted(int(f.name[len("nvlink_bw_sm"):]) for f in dataclasses.fields(self)
                           if f.name.startswith("nvlink_bw_sm"))
            raise ValueError(f"NCCL has no NVLink bandwidth for SM{sm}; known: {known}")
        return getattr(self, name)

    def bw_cap(self, table: str, architecture: str, nodes: int) -> float:
        """One of NCCL's per-architecture bandwidth caps, bytes/s.

        Parameters
        ----------
        table : {"ll_max_bws", "per_ch_max_ring_ll128_bws", "per_ch_max_tree_ll128_bws",
                 "per_ch_max_tree_bws", "per_ch_max_nvls_tree_bws"}
        architecture : {"volta", "ampere", "hopper", "blackwell"}
        nodes : int
            Number of nodes (1, 2, or more; >= 4 and 3 use the last column, as NCCL does).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().bw_cap("per_ch_max_tree_bws", "hopper", 8) / 1e9
        36.0
        """
        tables = ("ll_max_bws", "per_ch_max_ring_ll128_bws", "per_ch_max_tree_ll128_bws",
                  "per_ch_max_tree_bws", "per_ch_max_nvls_tree_bws")
        if nodes < 1:
            raise ValueError(f"nodes must be >= 1, got {nodes}")
        row: tuple[float, ...] = getattr(
            self, f"{_pick(table, tables)}_{_pick(architecture, ARCHITECTURES)}"
        )
        return row[min(nodes, 3) - 1]


def _pick(name: str, valid: tuple[str, ...]) -> str:
    if name not in valid:
        raise ValueError(f"unknown name {name!r}; choose one of: {', '.join(valid)}")
    return name


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
        """The entry keys of ``category`` (e.g. ``keys("gpus")``)."""
        return tuple(self._entries[_pick(category, tuple(self._entries))])

    def nvlink(self, gen: int) -> NVLinkGen:
        """NVLink generation ``gen`` (1..5)."""
        return self._get("nvlink", str(gen), "NVLink generation")

    def nvswitch(self, gen: int) -> NVSwitchGen:
        """NVSwitch generation ``gen`` (1..4)."""
        return self._get("nvswitch", str(gen), "NVSwitch generation")

    def system(self, key: str) -> System:
        """A system: ``"dgx_h100"``, ``"hgx_h800"``, ``"nvlink_switch_1u"``,
        ``"nvlink_switch_system"``, ``"gb200_nvl72"``, ``"dgx_a100_superpod_hdr"``."""
        return self._get("systems", key, "system")

    def pcie(self, gen: int) -> PCIeGen:
        """PCIe generation ``gen`` (3..6)."""
        return self._get("pcie", str(gen), "PCIe generation")

    def infiniband(self, name: str) -> NetworkRate:
        """InfiniBand speed ``"edr"``, ``"hdr"``, ``"ndr"`` or ``"xdr"``."""
        return self._get("infiniband", name, "InfiniBand speed")

    def ethernet(self, name: str) -> NetworkRate:
        """Ethernet speed ``"400gbe"`` or ``"800gbe"``."""
        return self._get("ethernet", name, "Ethernet speed")

    def nic(self, name: str) -> NIC:
        """Network adapter, e.g. ``"connectx7"``."""
        return self._get("nics", name, "NIC")

    def ib_switch(self, name: str) -> IBSwitch:
        """InfiniBand switch ``"quantum"`` (HDR) or ``"quantum2"`` (NDR)."""
        return self._get("ib_switches", name, "InfiniBand switch")

    def ib_switch_for_speed(self, speed: str) -> IBSwitch:
        """The InfiniBand switch whose ports run at ``speed`` (an :meth:`infiniband` key)."""
        for rec in self._entries["ib_switches"].values():
            if rec.speed == speed:
                return rec
        have = ", ".join(repr(r.speed) for r in self._entries["ib_switches"].values())
        raise ValueError(f"no InfiniBand switch in the catalogue for speed {speed!r}; "
                         f"switches exist for: {have}")

    def gpu(self, name: str) -> GPU:
        """GPU ``"v100"``, ``"a100"``, ``"h100"``, ``"h200"``, ``"b200"``, ``"h800"`` or
        ``"h20"``."""
        return self._get("gpus", name, "GPU")

    def latency(self, key: str) -> Latency:
        """Latency in seconds (a float with provenance), e.g. ``"nvlink_hop"``."""
        return self._get("latencies", key, "latency")

    def fec(self, name: str) -> FECCode:
        """FEC code ``"RS(544,514)"`` or ``"RS(528,514)"``."""
        return self._get("fec", name, "FEC code")

    def line_code(self, name: str) -> LineCode:
        """Line code ``"64b/66b"``, ``"128b/130b"``, ``"256b/257b"`` or ``"1b/1b"``."""
        return self._get("line_codes", name, "line code")

    def nccl(self, version: str | None = None) -> NCCLModel:
        """NCCL tuning constants; ``version=None`` gives the newest in the file."""
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


# --------------------------------------------------------------------------------------
# Loading and validation
# --------------------------------------------------------------------------------------


def default_path() -> Path:
    """Path of the catalogue: ``$NVLEARN_DATA_DIR/hardware.json`` if set, else the repo's.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.default_path().name
    'hardware.json'
    """
    env = os.environ.get(DATA_ENV_VAR)
    base = Path(env) if env else Path(__file__).resolve().parents[1] / "data"
    return (base / DATA_FILE).resolve()


def load(path: str | os.PathLike[str] | None = None) -> Catalogue:
    """Read, validate and convert a catalogue file (fresh, not cached).

    Parameters
    ----------
    path : path-like, optional
        A ``hardware.json``; default :func:`default_path`.

    Returns
    -------
    Catalogue

    Raises
    ------
    ValueError
        On any schema problem; the message names the category, entry and field.

    Examples
    --------
    >>> from nvlearn import specs
    >>> specs.load().gpu("h100").hbm_capacity / 1e9
    80.0
    """
    file = Path(path) if path is not None else default_path()
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(
            f"cannot read the hardware catalogue {file}: {exc}. Set {DATA_ENV_VAR} to the "
            "directory holding hardware.json or pass its path."
        ) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{file}: not valid JSON ({exc}); fix the syntax") from None
    return _Loader(file, doc).build()


@functools.cache
def _cached(path: Path) -> Catalogue:
    return load(path)


def _default() -> Catalogue:
    return _cached(default_path())


class _Loader:
    def __init__(self, file: Path, doc: Any) -> None:
        self.file = file
        self.doc = doc
        self.sources: dict[str, Source] = {}
        self.built: dict[str, dict[str, Any]] = {}

    def fail(self, where: str, problem: str) -> typing.NoReturn:
        raise ValueError(f"{self.file.name}: {where}: {problem}")

    def build(self) -> Catalogue:
        if not isinstance(self.doc, dict):
            self.fail("top level", "must be a JSON object with 'sources' and categories")
        unknown = set(self.doc) - set(_CATEGORIES) - {"sources"}
        if unknown:
            self.fail(f"category {sorted(unknown)[0]!r}",
                      f"unknown category; known: sources, {', '.join(_CATEGORIES)}")
        self._sources()
        for category, cls in _CATEGORIES.items():
            if category not in self.doc:
                self.fail(f"category {category!r}", "missing; every category must be present")
            raw = self.doc[category]
            if not isinstance(raw, dict):
                self.fail(f"category {category!r}", "must be an object of entries")
            self.built[category] = {}
            for key, entry in raw.items():
                self.built[category][key] = self._entry(category, key, entry, cls)
        self._cross_check()
        return Catalogue(self.file, self.sources, self.built)

    def _sources(self) -> None:
        raw = self.doc.get("sources")
        if not isinstance(raw, dict):
            self.fail("sources", "missing or not an object of id -> {title, url}")
        for sid, src in raw.items():
            where = f"sources[{sid!r}]"
            if not isinstance(src, dict):
                self.fail(where, "must be an object with title and url")
            extra = set(src) - _SOURCE_KEYS
            if extra:
                self.fail(where, f"unknown field {sorted(extra)[0]!r}; allowed: "
                                 f"{', '.join(sorted(_SOURCE_KEYS))}")
            for req in ("title", "url"):
                if not isinstance(src.get(req), str) or not src[req]:
                    self.fail(f"{where}.{req}", "missing; give a non-empty string")
            for opt in ("publisher", "date"):
                if opt in src and not isinstance(src[opt], str):
                    self.fail(f"{where}.{opt}", "must be a string")
            self.sources[sid] = Source(sid, src["title"], src["url"], src.get("publisher"),
                                       src.get("date"))

    def _entry(self, category: str, key: str, entry: Any, cls: type[Record] | None) -> Any:
        where = f"{category}[{key!r}]"
        if cls is None:  # systems: one record type per key
            if key not in _SYSTEM_TYPES:
                self.fail(where, f"unknown system; known: {', '.join(_SYSTEM_TYPES)}")
            cls = _SYSTEM_TYPES[key]
        if not isinstance(entry, dict):
            self.fail(where, "must be an object of fields")
        hints = typing.get_type_hints(cls)
        stored = [f for f in dataclasses.fields(cls)
                  if f.name not in ("key", "provenance", "source_table")
                  and not f.metadata.get("computed")]
        extra = set(entry) - {f.name for f in stored}
        if extra:
            self.fail(f"{where}.{sorted(extra)[0]}",
                      f"unknown field for {cls.__name__}; known: "
                      f"{', '.join(f.name for f in stored)}")
        values: dict[str, Any] = {}
        prov: dict[str, Quantity] = {}
        for f in stored:
            fwhere = f"{where}.{f.name}"
            has_default = f.default is not dataclasses.MISSING
            if f.name not in entry:
                if has_default:
                    values[f.name] = f.default
                    continue
                self.fail(fwhere, "missing field; add it (see data/README.md)")
            hint = hints[f.name]
            if "dim" not in f.metadata:
                values[f.name] = self._string(fwhere, entry[f.name], _optional(hint))
                continue
            q = self._quantity(fwhere, f.name, entry[f.name], f.metadata["dim"])
            prov[f.name] = q
            values[f.name] = self._convert(fwhere, q, hint)
        values.update(self._derived(where, cls, values, prov))
        rec = cls(key=key, provenance=types.MappingProxyType(prov),
                  source_table=types.MappingProxyType(
                      {q.source: self.sources[q.source] for q in prov.values()}),
                  **values)
        return Latency(rec) if isinstance(rec, _LatencyEntry) else rec

    def _string(self, where: str, raw: Any, optional: bool) -> str | None:
        if raw is None and optional:
            return None
        if not isinstance(raw, str) or not raw:
            self.fail(where, "must be a non-empty plain string (not a quantity object)")
        return raw

    def _quantity(self, where: str, name: str, raw: Any, dim: str) -> Quantity:
        if not isinstance(raw, dict):
            self.fail(where, "must be a quantity object {value, unit, kind, source, where}")
        extra = set(raw) - _QUANTITY_KEYS
        if extra:
            self.fail(where, f"unknown key {sorted(extra)[0]!r} in quantity; allowed: "
                             f"{', '.join(sorted(_QUANTITY_KEYS))}")
        for req in ("value", "unit", "kind", "source", "where"):
            if req not in raw:
                self.fail(where, f"quantity is missing {req!r}")
        unit = raw["unit"]
        if unit not in UNITS:
            self.fail(where, f"unknown unit {unit!r}; use one of: {', '.join(UNITS)}")
        if dimension(unit) != dim:
            self.fail(where, f"unit {unit!r} has dimension {dimension(unit)!r} but this field "
                             f"needs {dim!r}")
        kind = raw["kind"]
        if kind not in KINDS:
            self.fail(where, f"unknown kind {kind!r}; use one of: {', '.join(KINDS)}")
        source = raw["source"]
        if source not in self.sources:
            self.fail(where, f"unknown source {source!r}; add it to 'sources' or use one of: "
                             f"{', '.join(sorted(self.sources))}")
        if not isinstance(raw["where"], str) or not raw["where"]:
            self.fail(where, "'where' must be a non-empty string (section, table or quote)")
        note = raw.get("note")
        if note is not None and not isinstance(note, str):
            self.fail(where, "'note' must be a string")
        direction = raw.get("direction")
        if dim in DIRECTIONAL_DIMENSIONS:
            if direction is None:
                self.fail(where, f"a {dim} quantity needs 'direction': one of "
                                 f"{RATE_DIRECTIONS}")
            if direction not in RATE_DIRECTIONS:
                self.fail(where, f"unknown direction {direction!r}; use one of "
                                 f"{RATE_DIRECTIONS}")
            if "per_dir" in name and direction != "per_direction":
                self.fail(where, f"field name says per direction but direction is {direction!r}")
            if "bidir" in name and direction != "bidirectional":
                self.fail(where, f"field name says bidirectional but direction is {direction!r}")
        elif direction is not None:
            self.fail(where, f"'direction' is only for data rates, not for unit {unit!r}; "
                             "remove it")
        value = raw["value"]
        value_si = self._value_si(where, value, unit)
        return Quantity(value_si, value, unit, direction, kind, source, raw["where"], note)

    def _value_si(self, where: str, value: Any, unit: str) -> float | tuple[float, ...] | None:
        def number(v: Any) -> float:
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                self.fail(where, f"value {v!r} is not a finite number")
            return to_si(v, unit)

        if value is None:
            return None
        if isinstance(value, list):
            if not value:
                self.fail(where, "value list is empty")
            return tuple(number(v) for v in value)
        return number(value)

    def _convert(self, where: str, q: Quantity, hint: Any) -> Any:
        optional = _optional(hint)
        base = _base(hint)
        if q.value_si is None:
            if not optional:
                self.fail(where, "value is null but this field needs a number; use null only "
                                 "for fields that may be absent (e.g. V100 bf16)")
            return None
        if typing.get_origin(base) is tuple:
            if not isinstance(q.value_si, tuple):
                self.fail(where, "needs a list of numbers")
            elem = typing.get_args(base)[0]
            return tuple(self._scalar(where, v, elem) for v in q.value_si)
        if isinstance(q.value_si, tuple):
            self.fail(where, "needs a single number, not a list")
        return self._scalar(where, q.value_si, base)

    def _scalar(self, where: str, v: float, typ: Any) -> Any:
        if typ is int:
            if not float(v).is_integer():
                self.fail(where, f"needs a whole number, got {v!r}")
            return int(v)
        return float(v)

    def _derived(self, where: str, cls: type[Record], values: dict[str, Any],
                 prov: dict[str, Quantity]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if cls is NVSwitchGen:
            out["throughput_direction"] = prov["throughput_published"].direction
        if cls in (PCIeGen, NetworkRate):
            codes = self.built["line_codes"]
            if values["encoding"] not in codes:
                self.fail(f"{where}.encoding", f"unknown line code {values['encoding']!r}; "
                                               f"use one of: {', '.join(codes)}")
            out["encoding_efficiency"] = codes[values["encoding"]].efficiency
        if cls is NetworkRate:
            fecs = self.built["fec"]
            name = values["fec"]
            if name is not None and name not in fecs:
                self.fail(f"{where}.fec", f"unknown FEC code {name!r}; use one of: "
                                          f"{', '.join(fecs)}")
            out["fec_code_rate"] = fecs[name].code_rate if name is not None else 1.0
        return out

    def _cross_check(self) -> None:
        refs = {
            ("systems", "gpu"): "gpus",
            ("systems", "nic"): "nics",
            ("systems", "node"): "systems",
            ("systems", "switch"): "systems",
            ("systems", "shipped_as"): "systems",
            ("systems", "base"): "systems",
            ("ib_switches", "speed"): "infiniband",
        }
        for (category, attr), target in refs.items():
            for key, rec in self.built[category].items():
                ref = getattr(rec, attr, None)
                if ref is not None and ref not in self.built[target]:
                    self.fail(f"{category}[{key!r}].{attr}",
                              f"refers to unknown {target} entry {ref!r}; use one of: "
                              f"{', '.join(self.built[target])}")
        self._check_nvlinks()

    def _check_nvlinks(self) -> None:
        """A GPU's NVLinks fit its generation; a board's split adds up to its GPU's links."""
        gens = self.built["nvlink"]
        for key, g in self.built["gpus"].items():
            gen = gens.get(str(g.nvlink_generation))
            if gen is None:
                self.fail(f"gpus[{key!r}].nvlink_generation",
                          f"no NVLink generation {g.nvlink_generation} in the catalogue; use "
                          f"one of: {', '.join(gens)}")
            if not 1 <= g.nvlink_links <= gen.links_per_gpu:
                self.fail(f"gpus[{key!r}].nvlink_links",
                          f"{g.nvlink_links} links; NVLink {gen.generation} has 1 to "
                          f"{gen.links_per_gpu} per GPU")
        for key, rec in self.built["systems"].items():
            split = getattr(rec, "links_per_gpu_per_switch", None)
            if split is None:
                continue
            where = f"systems[{key!r}].links_per_gpu_per_switch"
            if isinstance(rec, BoardVariant):
                base = self.built["systems"][rec.base]
                if not isinstance(base, DGXH100):
                    self.fail(f"systems[{key!r}].base", f"{rec.base!r} is not a baseboard "
                              "with NVSwitch chips (a DGXH100 record)")
                if len(split) != base.nvswitch_chips:
                    self.fail(where, f"{len(split)} entries; {rec.base!r} has "
                              f"{base.nvswitch_chips} NVSwitch chips, give one per chip")
            links = self.built["gpus"][rec.gpu].nvlink_links
            if sum(split) != links:
                self.fail(where, f"adds up to {sum(split)} links, but GPU {rec.gpu!r} has "
                          f"{links} (gpus[{rec.gpu!r}].nvlink_links)")


def _optional(hint: Any) -> bool:
    return type(None) in typing.get_args(hint)


def _base(hint: Any) -> Any:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return hint


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
