"""The bandwidth chain: from symbols on a wire to the GB/s on a data sheet.

Each step is one multiplication, and every data-sheet figure is a product of them::

    raw lane rate   = symbol rate (baud) x bits per symbol (NRZ 1, PAM4 2)
    lane payload    = raw lane rate x efficiency of each code (line code, FEC, flit framing)
    link, per dir.  = lane payload x lanes per direction
    GPU, per dir.   = link x links per GPU
    GPU, both ways  = 2 x GPU per direction   (the "900 GB/s" kind of number)

All rates are SI bytes/s (bit rates divided by 8), per direction unless a name says
``bidir``. A code is an :class:`Overhead`: ``payload`` units of data ride in ``total``
units on the line (64b/66b: 64 of 66 bits; RS(544,514): 514 of 544 symbols; a PCIe 6 flit:
236 of 256 bytes carry TLP data).

References
----------
IEEE Std 802.3-2022, Clause 49 (64b/66b) and Clause 91 (256b/257b transcoding, RS(544,514)
"KP4" FEC); IEEE Std 802.3ck-2022 (53.125 GBd PAM4, 106.25 Gb/s per lane); OIF-CEI-05.0
(CEI-112G, the 112 Gb/s-class SerDes of NVLink 4 and NDR InfiniBand).
PCI-SIG, "PCI Express Base Specification", Revisions 3.0-6.0 (128b/130b from 3.0; PAM4 and
256-byte flits, 236 bytes of them TLP data, in 6.0).
Hardware figures (baud, lanes, links, codes) come from ``data/hardware.json``, each with
its source.

Examples
--------
>>> raw = raw_lane_rate(53.125e9, "PAM4")          # bytes/s
>>> raw * 8 / 1e9
106.25
>>> lane = payload_rate(raw, [reed_solomon(544, 514), block_code(256, 257)])
>>> lane * 8 / 1e9
100.0
>>> gpu_bw_per_dir(link_bw_per_dir(lane, 2), 18) / 1e9
450.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from nvlearn import specs
from nvlearn.serdes.pam import bits_per_symbol, modulation_name
from nvlearn.units import per_dir_to_bidir

__all__ = [
    "Overhead", "block_code", "reed_solomon", "flit", "raw_lane_rate", "payload_rate",
    "link_bw_per_dir", "gpu_bw_per_dir", "ChainStep", "BandwidthChain", "bandwidth_chain",
    "NVLINK_CODES", "catalogue_overhead", "nvlink_chain", "pcie_chain", "Comparison",
    "nvlink_vs_pcie",
]


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Overhead:
    """A code on the line: ``payload`` units of data are sent as ``total`` units.

    Build one with :func:`block_code`, :func:`reed_solomon` or :func:`flit`.

    Examples
    --------
    >>> block_code(128, 130).efficiency
    0.9846153846153847
    """

    name: str
    payload: int
    total: int

    def __post_init__(self):
        if self.payload < 1 or self.total < 1:
            raise ValueError(f"{self.name}: payload and total must be >= 1")
        if self.payload > self.total:
            raise ValueError(
                f"{self.name}: payload ({self.payload}) exceeds the total on the line "
                f"({self.total}); a code adds bits, it cannot remove them"
            )

    @property
    def efficiency(self) -> float:
        """payload / total: the fraction of line bits that carry data."""
        return self.payload / self.total

    @property
    def overhead(self) -> float:
        """total / payload - 1: how much more the line carries than the data (0.0303 = 3 %)."""
        return self.total / self.payload - 1.0


def block_code(data_bits: int, coded_bits: int) -> Overhead:
    """A block line code or transcoder: ``data_bits`` sent as ``coded_bits`` (64b/66b, 256b/257b).

    Examples
    --------
    >>> block_code(64, 66).name, round(block_code(64, 66).overhead, 5)
    ('64b/66b', 0.03125)
    """
    data_bits, coded_bits = int(data_bits), int(coded_bits)
    if data_bits < 1 or coded_bits <= data_bits:
        raise ValueError(
            f"a block code sends data_bits as more coded_bits: need 1 <= data_bits < coded_bits, "
            f"got {data_bits}b/{coded_bits}b"
        )
    return Overhead(f"{data_bits}b/{coded_bits}b", data_bits, coded_bits)


def reed_solomon(n: int, k: int) -> Overhead:
    """The rate cost of a Reed-Solomon code RS(n, k): k data symbols in every n.

    (:class:`nvlearn.serdes.fec.RSCode` models its error correction.)

    Examples
    --------
    >>> round(reed_solomon(544, 514).overhead, 4)
    0.0584
    """
    n, k = int(n), int(k)
    if n < 1:
        raise ValueError(f"a codeword needs n >= 1 symbols, got n = {n}")
    if not 0 < k < n:
        raise ValueError(
            f"RS({n},{k}) has {n - k} parity symbols in a {n}-symbol codeword; parity must be "
            f"at least 1 and fewer than n (0 < k < n)"
        )
    return Overhead(f"RS({n},{k})", k, n)


def flit(payload_bytes: int, flit_bytes: int) -> Overhead:
    """Flit framing: ``payload_bytes`` of data per ``flit_bytes`` flit (rest: headers, CRC, FEC).

    Examples
    --------
    >>> flit(236, 256).name
    'FLIT 236/256 B'
    """
    payload_bytes, flit_bytes = int(payload_bytes), int(flit_bytes)
    if payload_bytes < 1 or flit_bytes <= payload_bytes:
        raise ValueError(
            f"a flit carries fewer payload bytes than its size: need 1 <= payload < flit, "
            f"got {payload_bytes}/{flit_bytes}"
        )
    return Overhead(f"FLIT {payload_bytes}/{flit_bytes} B", payload_bytes, flit_bytes)


def raw_lane_rate(symbol_rate: float, modulation: str | int) -> float:
    """Raw (line) rate of one lane in bytes/s: symbol rate x bits per symbol / 8.

    Parameters
    ----------
    symbol_rate : float
        Symbols per second (baud), > 0.
    modulation : str or int
        "NRZ", "PAM4", "PAM8" or the order M.

    Examples
    --------
    >>> raw_lane_rate(25.78125e9, "NRZ") * 8 / 1e9
    25.78125
    """
    return _positive("symbol_rate (baud)", symbol_rate) * bits_per_symbol(modulation) / 8.0


def payload_rate(raw_rate: float, overheads: Sequence[Overhead] = ()) -> float:
    """Payload rate after the codes: raw rate x product of efficiencies (bytes/s).

    Examples
    --------
    >>> payload_rate(25.78125e9 / 8, [block_code(64, 66)]) * 8 / 1e9
    25.0
    """
    rate = _positive("raw_rate (bytes/s)", raw_rate)
    for code in overheads:
        if not isinstance(code, Overhead):
            raise ValueError(
                f"overheads must be Overhead objects (block_code(...) ...), got {code!r}"
            )
        rate *= code.efficiency
    return rate


def link_bw_per_dir(lane_rate: float, lanes_per_direction: int) -> float:
    """One link's rate in one direction: lanes per direction x per-lane rate (bytes/s).

    Examples
    --------
    >>> link_bw_per_dir(12.5e9, 2) / 1e9
    25.0
    """
    return _positive("lane_rate (bytes/s)", lane_rate) * _count(
        "lanes_per_direction", lanes_per_direction
    )


def gpu_bw_per_dir(link_rate: float, links: int) -> float:
    """A GPU's rate in one direction over all its links (bytes/s).

    Examples
    --------
    >>> gpu_bw_per_dir(25e9, 18) / 1e9
    450.0
    """
    return _positive("link_rate (bytes/s)", link_rate) * _count("links", links)


@dataclass(frozen=True)
class ChainStep:
    """One bar of the waterfall: a rate after a step, and what the step did.

    ``scope`` is "lane", "link" or "gpu"; ``direction`` is "per_direction" or "bidirectional";
    ``factor`` is the multiplier from the previous step (1 for the first).
    """

    label: str
    rate: float
    scope: str
    direction: str
    factor: float


@dataclass(frozen=True)
class BandwidthChain:
    """The whole chain for one interface, from symbol rate to the bidirectional total.

    Examples
    --------
    >>> c = bandwidth_chain(53.125e9, "PAM4", [reed_solomon(544, 514), block_code(256, 257)],
    ...                     lanes_per_direction=2, links=18, name="NVLink 4")
    >>> c.lane_payload_rate * 8 / 1e9, c.gpu_bw_bidir / 1e9
    (100.0, 900.0)
    """

    name: str
    symbol_rate: float
    modulation: str
    overheads: tuple[Overhead, ...]
    lanes_per_direction: int
    links: int
    steps: tuple[ChainStep, ...]

    @property
    def raw_lane_rate(self) -> float:
        """bytes/s per lane per direction, before any code."""
        return self.steps[0].rate

    @property
    def lane_payload_rate(self) -> float:
        """bytes/s per lane per direction, after every code."""
        return self.steps[len(self.overheads)].rate

    @property
    def efficiency(self) -> float:
        """lane payload / raw lane rate."""
        return self.lane_payload_rate / self.raw_lane_rate

    @property
    def link_bw_per_dir(self) -> float:
        """bytes/s per link per direction."""
        return self.lane_payload_rate * self.lanes_per_direction

    @property
    def gpu_bw_per_dir(self) -> float:
        """bytes/s per device (all links) per direction."""
        return self.link_bw_per_dir * self.links

    @property
    def gpu_bw_bidir(self) -> float:
        """bytes/s per device, both directions summed (the marketing figure)."""
        return per_dir_to_bidir(self.gpu_bw_per_dir)


def bandwidth_chain(
    symbol_rate: float,
    modulation: str | int,
    overheads: Sequence[Overhead] = (),
    *,
    lanes_per_direction: int = 1,
    links: int = 1,
    name: str = "",
) -> BandwidthChain:
    """Build the chain symbol rate -> raw lane -> each code -> link -> device -> both directions.

    Parameters
    ----------
    symbol_rate : float
        Baud per lane.
    modulation : str or int
        "NRZ", "PAM4" ...
    overheads : sequence of Overhead
        Codes applied in order from the line inwards (e.g. FEC, then transcoding).
    lanes_per_direction : int
        Lanes (differential pairs) per link in each direction.
    links : int
        Links per device (NVLinks per GPU; 1 for a PCIe slot).
    name : str
        A label for plots.

    Returns
    -------
    BandwidthChain
        ``steps`` hold every intermediate rate (bytes/s) with its scope and direction.

    Examples
    --------
    >>> c = bandwidth_chain(32e9, "NRZ", [block_code(128, 130)], lanes_per_direction=16)
    >>> round(c.link_bw_per_dir / 1e9, 2)
    63.02
    """
    modulation = modulation_name(modulation)
    lanes = _count("lanes_per_direction", lanes_per_direction)
    links = _count("links", links)
    raw = raw_lane_rate(symbol_rate, modulation)
    steps = [
        ChainStep(
            f"{symbol_rate / 1e9:g} GBd x {bits_per_symbol(modulation)} bit/symbol "
            f"({modulation}) = raw lane",
            raw,
            "lane",
            "per_direction",
            1.0,
        )
    ]
    rate = raw
    for code in overheads:
        rate = payload_rate(rate, [code])
        steps.append(
            ChainStep(f"after {code.name}", rate, "lane", "per_direction", code.efficiency)
        )
    rate = link_bw_per_dir(rate, lanes)
    steps.append(ChainStep(f"x {lanes} lanes = link", rate, "link", "per_direction", lanes))
    rate = gpu_bw_per_dir(rate, links)
    steps.append(ChainStep(f"x {links} links = device", rate, "gpu", "per_direction", links))
    steps.append(
        ChainStep("x 2 directions", per_dir_to_bidir(rate), "gpu", "bidirectional", 2.0)
    )
    return BandwidthChain(
        name=name,
        symbol_rate=float(symbol_rate),
        modulation=modulation,
        overheads=tuple(overheads),
        lanes_per_direction=lanes,
        links=links,
        steps=tuple(steps),
    )


# --------------------------------------------------------------------------------------
# The chain for catalogued interfaces (numbers from nvlearn.specs)
# --------------------------------------------------------------------------------------

#: Codes between an NVLink lane's raw rate and the published effective rate, by generation
#: (catalogue keys). NVIDIA does not publish NVLink's coding. NVLink 1-3's published rates
#: equal lanes x signalling rate, so no code is counted. NVLink 4 and 5 lanes are 100G- and
#: 200G-class PAM4 PHYs, electrically compatible with 400G Ethernet / InfiniBand (HC34);
#: their published raw/effective ratio, 17/16, is exactly that PHY's RS(544,514) FEC plus
#: 256b/257b transcoding, so the chain models them with those codes. The tests check the
#: chain lands on the published per-link figures.
NVLINK_CODES: dict[int, tuple[str, ...]] = {
    1: (),
    2: (),
    3: (),
    4: ("RS(544,514)", "256b/257b"),
    5: ("RS(544,514)", "256b/257b"),
}


def catalogue_overhead(name: str) -> Overhead | None:
    """The catalogue's line code or FEC ``name`` as a chain step (None for "1b/1b", no code).

    Examples
    --------
    >>> catalogue_overhead("RS(544,514)").name, catalogue_overhead("128b/130b").name
    ('RS(544,514)', '128b/130b')
    """
    if name.startswith("RS("):
        code = specs.fec(name)
        return reed_solomon(code.n, code.k)
    code = specs.line_code(name)
    if code.data_bits == code.total_bits:
        return None
    return block_code(code.data_bits, code.total_bits)


def nvlink_chain(generation: int) -> BandwidthChain:
    """The bandwidth chain of one NVLink generation's GPU, from the catalogue.

    Examples
    --------
    >>> c = nvlink_chain(4)
    >>> c.raw_lane_rate * 8 / 1e9, c.lane_payload_rate * 8 / 1e9, c.gpu_bw_bidir / 1e9
    (106.25, 100.0, 900.0)
    """
    gen = specs.nvlink(generation)
    codes = [catalogue_overhead(name) for name in NVLINK_CODES[gen.generation]]
    return bandwidth_chain(
        gen.symbol_rate,
        gen.modulation,
        [c for c in codes if c is not None],
        lanes_per_direction=gen.lanes_per_direction,
        links=gen.links_per_gpu,
        name=f"{gen.name} ({gen.gpu})",
    )


def pcie_chain(generation: int, lanes: int | None = None) -> BandwidthChain:
    """The chain of a PCIe slot (x16 by default): line code, then Gen6 FLIT framing.

    The last device-level step is one slot (``links = 1``).

    Examples
    --------
    >>> round(pcie_chain(5).gpu_bw_per_dir / 1e9, 2), round(pcie_chain(6).gpu_bw_per_dir / 1e9)
    (63.02, 118)
    """
    gen = specs.pcie(generation)
    codes = [catalogue_overhead(gen.encoding)]
    if gen.flit_bytes is not None and gen.flit_payload_bytes is not None:
        codes.append(flit(gen.flit_payload_bytes, gen.flit_bytes))
    width = gen.lanes if lanes is None else lanes
    return bandwidth_chain(
        gen.symbol_rate,
        gen.modulation,
        [c for c in codes if c is not None],
        lanes_per_direction=width,
        links=1,
        name=f"PCIe {gen.generation} x{width}",
    )


@dataclass(frozen=True)
class Comparison:
    """One way of putting an NVLink figure next to a PCIe figure, and their ratio.

    ``nvlink`` and ``pcie`` are bytes/s; ``unit`` is the unit to show them in.
    """

    label: str
    nvlink: float
    pcie: float
    unit: str

    @property
    def ratio(self) -> float:
        """How many times the PCIe figure the NVLink figure is (``nvlink / pcie``)."""
        return self.nvlink / self.pcie


def nvlink_vs_pcie(nvlink_generation: int = 4, pcie_generation: int = 5) -> list[Comparison]:
    """The ways an "NVLink is N x PCIe" ratio can be formed, all from the catalogue.

    Rows: the published totals (both directions, what NVIDIA's "7x PCIe Gen 5" divides);
    payload per direction after every code; one link vs one x16 slot; one lane vs one lane;
    and the classic slip of dividing a bidirectional total by a per-direction rate.

    Examples
    --------
    >>> rows = nvlink_vs_pcie(4, 5)
    >>> round(rows[0].ratio, 2)
    7.03
    """
    nv_gen, pc_gen = specs.nvlink(nvlink_generation), specs.pcie(pcie_generation)
    nv, pc = nvlink_chain(nvlink_generation), pcie_chain(pcie_generation)
    pc_slot = f"PCIe {pc_gen.generation} x{pc_gen.lanes}"
    return [
        Comparison(
            f"published totals, both directions: {nv_gen.gpu} (all {nv.links} links) vs {pc_slot}",
            nv_gen.gpu_bw_bidir_published, pc_gen.x16_bw_bidir_published, "GB/s",
        ),
        Comparison(
            f"payload after every code, per direction: {nv_gen.gpu} vs {pc_slot}",
            nv.gpu_bw_per_dir, pc.gpu_bw_per_dir, "GB/s",
        ),
        Comparison(
            f"one NVLink link vs one {pc_slot} slot, payload per direction",
            nv.link_bw_per_dir, pc.link_bw_per_dir, "GB/s",
        ),
        Comparison(
            "one lane vs one lane, payload per direction",
            nv.lane_payload_rate, pc.lane_payload_rate, "Gb/s",
        ),
        Comparison(
            "the slip: NVLink both directions / PCIe per direction",
            nv_gen.gpu_bw_bidir_published, pc.gpu_bw_per_dir, "GB/s",
        ),
    ]
