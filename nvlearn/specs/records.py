"""The record classes of the catalogue: one frozen dataclass per kind of hardware, every
numeric field in SI units with its provenance; derived figures are properties."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..units import bits_to_bytes
from .provenance import (
    Quantity,
    Source,
)

__all__ = [
    "Record", "NVLinkGen", "NVSwitchGen", "DGXH100", "BoardVariant", "NVLinkSwitch1U",
    "NVLinkSwitchSystem", "DGXGH200", "GB200NVL72", "DGXA100SuperPODHDR", "DGXSuperPOD", "System",
    "LineCode",
    "FECCode", "PCIeGen", "NetworkRate", "IBSwitch", "NIC", "GPU", "Latency",
]

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


@dataclass(frozen=True, kw_only=True)
class DGXSuperPOD(Record):
    """NVIDIA's DGX SuperPOD compute fabric: scalable units (SUs) of DGX nodes on a
    rail-optimised InfiniBand fat tree, two switch tiers up to 8 SUs and three beyond.

    Attributes
    ----------
    name : str
    node, ib_switch : str
        The node (a :func:`system` key) and the switch of every tier (an
        :func:`ib_switch` key).
    su_nodes, su_leaves : int
        Nodes per SU, and leaf switches per SU (one per rail).
    max_sus : int
        The largest SU count the reference architecture lists.
    fabric_sizes : tuple of tuple of int
        The reference architecture's component counts, one row per size:
        ``(SUs, nodes, GPUs, leaf, spine, core switches)`` (0 cores: two tiers).

    Examples
    --------
    >>> from nvlearn import specs
    >>> pod = specs.system("dgx_superpod_h100")
    >>> pod.su_nodes, pod.fabric_sizes[-1]
    (32, (64, 2048, 16384, 512, 512, 256))
    """

    name: str
    node: str
    ib_switch: str
    su_nodes: int = _num("dimensionless")
    su_leaves: int = _num("dimensionless")
    max_sus: int = _num("dimensionless")
    fabric_sizes: tuple[tuple[int, ...], ...] = _num("dimensionless")


System = (DGXH100 | BoardVariant | NVLinkSwitch1U | NVLinkSwitchSystem | GB200NVL72
          | DGXA100SuperPODHDR | DGXGH200 | DGXSuperPOD)

_SYSTEM_TYPES: dict[str, type[Record]] = {
    "dgx_h100": DGXH100,
    "hgx_h800": BoardVariant,
    "nvlink_switch_1u": NVLinkSwitch1U,
    "nvlink_switch_system": NVLinkSwitchSystem,
    "gb200_nvl72": GB200NVL72,
    "dgx_a100_superpod_hdr": DGXA100SuperPODHDR,
    "dgx_superpod_h100": DGXSuperPOD,
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
