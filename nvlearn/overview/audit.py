"""Audit the seed article's quantitative claims against the catalogue.

Each :class:`Claim` quotes the article (``shared/seed``), recomputes the figure from
:mod:`nvlearn.specs` and the package's formulas, and gives a verdict:

* ``right`` — the number stands as stated;
* ``right with caveat`` — the number exists but belongs to something else than the sentence
  suggests (a chip vs a box, both directions vs one, a large-p limit);
* ``wrong`` — the catalogue contradicts it;
* ``unsupported`` — no primary source backs it, and the catalogue cannot.

Nothing in the verdict text is typed in: every number is formatted from a computed value.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from html import escape

from nvlearn import specs
from nvlearn.collectives.volume import ideal_in_network_speedup, in_network_traffic_saving
from nvlearn.serdes.chain import nvlink_chain
from nvlearn.serdes.pam import bits_per_symbol
from nvlearn.units import bits_to_bytes, format_rate, format_time

__all__ = ["ARTICLE_LANE_RATE_BITS", "VERDICTS", "Claim", "article_claims", "claims_table",
           "verdict_counts"]

VERDICTS = ("right", "right with caveat", "wrong", "unsupported")
#: The article's per-lane figure ("112Gbps per lane"), bits/s: the quantity the audit tests,
#: and the top line rate of the SerDes class named after it.
ARTICLE_LANE_RATE_BITS = 112e9


@dataclass(frozen=True)
class Claim:
    """One quantitative claim of the article and its check."""

    quote: str
    computed: str
    verdict: str
    reason: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {self.verdict!r}")


def _gbs(x: float) -> str:
    return format_rate(x)


def _pod_numbers() -> dict:
    dgx = specs.system("dgx_h100")
    pod = specs.system("nvlink_switch_system")
    box = specs.system("nvlink_switch_1u")
    nv4 = specs.nvlink(4)
    # a node's traffic in and out of its GPUs vs what its NVLink-network ports carry
    injection = dgx.gpus * nv4.gpu_bw_per_dir
    uplinks = dgx.external_nvlink_ports * box.port_bw_per_dir
    return dict(dgx=dgx, pod=pod, box=box, nv4=nv4, injection=injection, uplinks=uplinks)


def article_claims() -> list[Claim]:
    """The article's quantitative claims, each recomputed and judged, in the article's order.

    Examples
    --------
    >>> claims = article_claims()
    >>> next(c for c in claims if "non-blocking" in c.quote).verdict
    'wrong'
    """
    return [*_bandwidth_claims(), *_switch_claims(), *_pod_claims(), *_scale_claims(),
            *_next_generation_claims()]


def _bandwidth_claims() -> list[Claim]:
    """NVLink 4 per GPU against PCIe, and the SerDes lane under it."""
    nv4, pcie5 = specs.nvlink(4), specs.pcie(5)
    lane = nvlink_chain(4)
    class_top = bits_to_bytes(ARTICLE_LANE_RATE_BITS)
    lane_bits = bits_per_symbol(lane.modulation)
    return [
        Claim(
            "NVLink 4.0 ... provides a massive 900 GB/s of bidirectional bandwidth per GPU",
            f"{nv4.links_per_gpu} links x {_gbs(nv4.link_bw_per_dir)} x 2 directions = "
            f"{_gbs(nv4.gpu_bw_bidir)}",
            "right",
            f"Bidirectional, as the article says: {_gbs(nv4.gpu_bw_per_dir)} each way.",
        ),
        Claim(
            "that’s about 7x the bandwidth of a PCIe Gen5 x16 slot",
            f"{_gbs(nv4.gpu_bw_bidir)} / {_gbs(pcie5.x16_bw_bidir_published)} = "
            f"{nv4.gpu_bw_bidir / pcie5.x16_bw_bidir_published:.2f}x",
            "right",
            "Both sides bidirectional (NVIDIA's own comparison); about 7x holds in any "
            "consistent convention (exercise 3 redoes it per direction, after line coding).",
        ),
        Claim(
            "The magic begins with the 112G SerDes",
            f"NVLink 4 lane: {lane.symbol_rate / 1e9:g} GBd {lane.modulation}, "
            f"{format_rate(lane.raw_lane_rate, bits=True, digits=5)} on the wire; the 112G class "
            f"tops out at {format_rate(class_top, bits=True)} = "
            f"{ARTICLE_LANE_RATE_BITS / lane_bits / 1e9:g} GBd {lane.modulation}",
            "right with caveat",
            '"112G" is the name of a SerDes class (OIF CEI-112G and its relatives), after the '
            "highest line rate it supports, used by some Ethernet/OIF links; an H100's NVLink 4 "
            "SerDes is of that class, but runs below its top rate.",
        ),
        Claim(
            "At 112Gbps per lane",
            f"NVLink 4 lane: {lane.symbol_rate / 1e9:g} GBd x {lane_bits} bits = "
            f"{format_rate(lane.raw_lane_rate, bits=True, digits=5)} raw, "
            f"{format_rate(lane.lane_payload_rate, bits=True)} payload "
            f"(after {' + '.join(c.name for c in lane.overheads)})",
            "wrong",
            "Only the per-lane figure is wrong: an NVLink 4 lane runs slower than 112 Gb/s on "
            "the wire and carries less still as payload; 112 Gb/s is the 112G class's top line "
            "rate, used by other standards' links.",
        ),
    ]


def _switch_claims() -> list[Claim]:
    """The third-generation NVSwitch and the 1U NVLink Switch; in-switch reduction."""
    n = _pod_numbers()
    dgx, pod, box = n["dgx"], n["pod"], n["box"]
    sw3 = specs.nvswitch(3)
    chip_payload_per_dir = sw3.ports * box.port_bw_per_dir
    p_node, p_pod = dgx.gpus, pod.gpus
    return [
        Claim(
            "a dedicated 12.8 Tb/s switching silicon",
            f"{sw3.ports} ports x {_gbs(box.port_bw_per_dir)} = "
            f"{format_rate(chip_payload_per_dir, bits=True)} per direction (payload); NVIDIA "
            f"quotes {format_rate(sw3.throughput_published, bits=True)} (raw line rate)",
            "right with caveat",
            "Per chip, per direction, payload; NVIDIA's own figure counts the raw line rate.",
        ),
        Claim(
            "Port Count: 128 ports of NVLink per switch.",
            f"chip: {sw3.ports} ports; 1U NVLink Switch: {box.nvswitch_chips} chips = "
            f"{box.ports} ports",
            "right with caveat",
            "True of the 1U switch box, not the chip; the sentence pairs it with the chip's "
            "bandwidth.",
        ),
        Claim(
            "It can move 3.2 Terabytes per second of data",
            f"chip: {_gbs(2 * chip_payload_per_dir)} bidirectional; 1U box: "
            f"{_gbs(box.bw_per_dir)} per direction",
            "right with caveat",
            "The same number fits a chip counted both ways or a box counted one way; say which.",
        ),
        Claim(
            "NVLink 4.0 utilizes SHARP v3",
            "NVLink SHARP (NVLS) in the third-generation NVSwitch",
            "wrong",
            "SHARPv3 is the InfiniBand Quantum-2 (NDR) feature; NVLink's in-switch reduction "
            "is NVLink SHARP, a different implementation in the NVSwitch.",
        ),
        Claim(
            "You effectively cut the amount of data traversing the fabric by 50%.",
            f"per-GPU all-reduce traffic saved: {in_network_traffic_saving(p_node):.0%} at "
            f"{p_node} GPUs, {in_network_traffic_saving(p_pod):.1%} at {p_pod}",
            "right with caveat",
            "Ring sends 2(p-1)/p of the buffer, in-switch reduction (1+1/p): 50 % is the "
            "large-p limit, not what an 8-GPU node sees.",
        ),
        Claim(
            "this is the difference between a training run taking three months or three weeks",
            f"ideal all-reduce speed-up from in-switch reduction at {p_node} GPUs: "
            f"{ideal_in_network_speedup(p_node):.2f}x (NVIDIA claims up to 2x)",
            "unsupported",
            "Even a 2x faster all-reduce speeds up a whole run far less, since compute is "
            "unchanged; no source gives a ~4x end-to-end gain.",
        ),
    ]


def _pod_claims() -> list[Claim]:
    """The 256-GPU pod: what it is called, its taper, whether it shipped, its reads."""
    n = _pod_numbers()
    nv4, dgx, pod = n["nv4"], n["dgx"], n["pod"]
    nvl72 = specs.system("gb200_nvl72")
    gh200 = specs.system(pod.shipped_as)
    return [
        Claim(
            "the NVLink Network (NVL72 or NVL256)",
            f"GB200 NVL72: {nvl72.gpus} Blackwell GPUs, NVLink 5; the {pod.gpus}-GPU NVLink 4 "
            f"systems are the H100 NVLink Switch System and the DGX GH200 ({gh200.gpus} GPUs)",
            "wrong",
            "NVL72 is a later, NVLink 5 product; there is no NVIDIA product called NVL256.",
        ),
        Claim(
            "256 GPUs are interconnected via a non-blocking NVLink fabric",
            f"taper {pod.taper:g}:1 — a node's {dgx.external_nvlink_ports} NVLink-network ports "
            f"carry {_gbs(n['uplinks'])} per direction; its {dgx.gpus} GPUs inject "
            f"{_gbs(n['injection'])}",
            "wrong",
            f"Each node (the NVLink-network variant of the DGX H100) exposes "
            f"{dgx.external_nvlink_ports} of its GPUs' {dgx.gpus * nv4.links_per_gpu} NVLinks "
            "to the second tier: 2:1 tapered by design.",
        ),
        Claim(
            "The Compute Plane: 32 nodes, each with 8 H100 GPUs.",
            f"{pod.nodes} x {dgx.gpus} = {pod.nodes * dgx.gpus} GPUs: the H100 NVLink Switch "
            f"System, announced {pod.announced}; shipped instead: {gh200.name}, announced "
            f"{gh200.announced}, {_gbs(gh200.all_to_all_bw)} all-to-all",
            "right with caveat",
            f"The design NVIDIA announced (GTC {pod.announced}), built from the NVLink-network "
            "variant of the DGX H100; but 'not available with H100 systems now, but systems "
            "and availability will be announced in the future' (H100 whitepaper), and it was "
            f"not generally shipped. The {gh200.gpus}-GPU NVLink {gh200.nvlink_generation} "
            f"system that shipped is the DGX GH200 (NVIDIA, COMPUTEX {gh200.announced}).",
        ),
        Claim(
            "any GPU can read from any other GPU's memory at 900 GB/s",
            f"one direction: at most {_gbs(nv4.gpu_bw_per_dir)} (wire rate); across nodes with "
            f"every GPU busy, 1/{pod.taper:g} of that (the taper)",
            "wrong",
            "900 GB/s adds both directions; a read moves data one way, and the taper halves "
            "it again between nodes under load.",
        ),
    ]


def _scale_claims() -> list[Claim]:
    """Compute, latency, power and the network a pod is compared with; why 256."""
    n = _pod_numbers()
    nv4, dgx, pod, box = n["nv4"], n["dgx"], n["pod"], n["box"]
    h100 = specs.gpu("h100")
    ndr = specs.infiniband("ndr")
    eth400 = specs.ethernet("400gbe")
    hop = float(specs.latency("nvlink_hop"))
    max_nodes = pod.l2_switches * box.ports // dgx.external_nvlink_ports
    return [
        Claim(
            "Building a chip that does 1000 TFLOPS is hard.",
            f"H100 SXM dense bf16: {h100.bf16_dense_flops / 1e12:.0f} TFLOP/s",
            "right",
            "Dense bf16 tensor throughput (sparse figures are twice that).",
        ),
        Claim(
            "coordinate 256 of those chips with sub-microsecond latency",
            f"model: GPU -> NVSwitch -> GPU = 2 hops x {format_time(hop)} = "
            f"{format_time(2 * hop)} one way, inside a node",
            "unsupported",
            "NVIDIA publishes no NVLink latency; the catalogue's figure is a modelling "
            "assumption, and NCCL's own per-step latencies are microseconds.",
        ),
        Claim(
            "100 kilowatts of power in a single rack",
            f"{pod.gpus} x {h100.board_power:.0f} W = "
            f"{pod.gpus * h100.board_power / 1e3:.0f} kW of GPU board power, over "
            f"{pod.nodes} nodes",
            "unsupported",
            "The 256-GPU system spans many racks; no source gives a per-rack figure for it.",
        ),
        Claim(
            "Standard Ethernet, even at 400Gbps",
            f"400 GbE = {_gbs(eth400.port_bw_per_dir)} per direction; H100 NVLink is "
            f"{nv4.gpu_bw_per_dir / eth400.port_bw_per_dir:.0f}x that",
            "right",
            f"The same as one NDR InfiniBand port ({_gbs(ndr.port_bw_per_dir)}).",
        ),
        Claim(
            "Why is 256 the magic number for NVLink 4.0? It’s a balance of electrical reach "
            "and address space.",
            f"{pod.l2_switches} switches x {box.ports} ports / "
            f"{dgx.external_nvlink_ports} ports per node = {max_nodes} nodes = "
            f"{max_nodes * dgx.gpus} GPUs",
            "unsupported",
            "The count follows from port arithmetic of a two-level tree; no source cites "
            "reach or address space as the limit.",
        ),
    ]


def _next_generation_claims() -> list[Claim]:
    """NVLink 5 and the largest NVLink 5 domain."""
    nv5 = specs.nvlink(5)
    nvl72 = specs.system("gb200_nvl72")
    return [
        Claim(
            "NVLink 5.0, promising a staggering 1.8 TB/s of bidirectional bandwidth",
            f"{nv5.links_per_gpu} links x {_gbs(nv5.link_bw_per_dir)} x 2 = "
            f"{_gbs(nv5.gpu_bw_bidir)}",
            "right",
            f"Bidirectional, as stated: {_gbs(nv5.gpu_bw_per_dir)} each way.",
        ),
        Claim(
            "clusters of 576 GPUs or more functioning as a single, coherent execution unit",
            f"largest NVLink 5 domain: {nvl72.max_nvlink_domain_gpus} GPUs",
            "right with caveat",
            "576 is NVIDIA's stated NVLink 5 domain maximum; 'or more' is not backed.",
        ),
    ]


def claims_table(claims: list[Claim]):
    """An HTML table of claims for notebook display (an ``IPython.display.HTML``)."""
    from IPython.display import HTML

    colour = {
        "right": "#1b7f1b",
        "right with caveat": "#8a6d00",
        "wrong": "#b00020",
        "unsupported": "#555555",
    }
    rows = "".join(
        f"<tr><td><i>“{escape(c.quote)}”</i></td><td>{escape(c.computed)}</td>"
        f'<td style="color:{colour[c.verdict]};font-weight:bold">{c.verdict}</td>'
        f"<td>{escape(c.reason)}</td></tr>"
        for c in claims
    )
    head = "<tr><th>the article says</th><th>computed</th><th>verdict</th><th>why</th></tr>"
    return HTML(f'<table style="text-align:left">{head}{rows}</table>')


def verdict_counts(claims: list[Claim]) -> dict[str, int]:
    """How many claims got each verdict, in the order of :data:`VERDICTS`.

    Examples
    --------
    >>> sum(verdict_counts(article_claims()).values()) == len(article_claims())
    True
    """
    counts = Counter(c.verdict for c in claims)
    return {v: counts.get(v, 0) for v in VERDICTS}
