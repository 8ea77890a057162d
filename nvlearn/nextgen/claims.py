"""The seed article's forward-looking claims (NVLink 5, "NVL256", "576 GPUs"), audited.

Same pattern and verdicts as :func:`nvlearn.overview.audit.article_claims` (which already has
a short row for two of these); here each claim is recomputed from the NVLink 5 chain, the built
fabrics and the domain planner. No count that an exercise of notebook 08 asks for is
printed here.

Examples
--------
>>> [c.verdict for c in nextgen_claims()]
['right', 'right with caveat', 'wrong', 'right with caveat']
"""

from __future__ import annotations

from nvlearn import specs
from nvlearn.overview.audit import Claim
from nvlearn.serdes.chain import nvlink_chain
from nvlearn.units import format_rate

__all__ = ["QUOTES", "nextgen_claims"]

#: The article's sentences (data/article.txt, "Looking Ahead" and "Rack-Scale" sections).
QUOTES = {
    "nvlink5": "NVIDIA has recently teased the Blackwell architecture and NVLink 5.0, promising "
               "a staggering 1.8 TB/s of bidirectional bandwidth.",
    "lanes": "The Road to NVLink 5.0 and Blackwell",
    "nvl": "The real-world manifestation of this technology is the NVLink Network (NVL72 or "
           "NVL256).",
    "576": "In the next three years, we will see clusters of 576 GPUs or more functioning as "
           "a single, coherent execution unit.",
}


def nextgen_claims() -> list[Claim]:
    """The article's NVLink 5 / NVL72 / 576-GPU claims, each recomputed and judged."""
    c4, c5 = nvlink_chain(4), nvlink_chain(5)
    g5 = specs.nvlink(5)
    nvl = specs.system("gb200_nvl72")
    pod = specs.system("nvlink_switch_system")
    gh = specs.system(pod.shipped_as)
    chip5 = specs.nvswitch(nvl.nvswitch_generation)
    racks = nvl.max_nvlink_domain_gpus / nvl.gpus
    return [
        Claim(
            QUOTES["nvlink5"],
            f"{g5.links_per_gpu} links x {format_rate(g5.link_bw_per_dir)} x 2 directions = "
            f"{format_rate(c5.gpu_bw_bidir)} per GPU ({format_rate(c5.gpu_bw_per_dir)} each "
            f"way); {c5.gpu_bw_bidir / c4.gpu_bw_bidir:g}x NVLink 4",
            "right",
            f"Bidirectional per GPU, as stated; shipped with the B200 in {g5.year}.",
        ),
        Claim(
            QUOTES["lanes"],
            f"same {g5.links_per_gpu} links and {g5.lanes_per_direction} lanes per direction "
            f"as NVLink 4; lane payload {format_rate(c4.lane_payload_rate, bits=True)} -> "
            f"{format_rate(g5.link_bw_per_dir / g5.lanes_per_direction, bits=True)} per "
            "direction",
            "right with caveat",
            "The doubling is per lane (224G-class SerDes), not more links; NVIDIA publishes "
            "the link rate and lane count, the per-lane rate is derived and the raw baud is "
            "not published.",
        ),
        Claim(
            QUOTES["nvl"],
            f"NVL72: {nvl.gpus} GPUs on NVLink {chip5.nvlink_generation}, one tier of "
            f"{nvl.switch_trays * nvl.nvswitch_chips_per_tray} switch chips; the "
            f"{pod.gpus}-GPU NVLink 4 systems: the NVLink Switch System (announced "
            f"{pod.announced}) and the {gh.name.split(' (')[0]} ({gh.announced})",
            "wrong",
            "NVL72 is a later NVLink 5 rack, not a manifestation of NVLink 4; no NVIDIA product "
            "is called NVL256.",
        ),
        Claim(
            QUOTES["576"],
            f"NVIDIA's largest NVLink 5 domain: {nvl.max_nvlink_domain_gpus} GPUs = "
            f"{racks:g} NVL72 racks; a {chip5.ports}-port chip attaches at most {chip5.ports} "
            "GPUs per plane, so the domain needs a second switch tier",
            "right with caveat",
            "576 is NVIDIA's stated maximum (already announced with NVLink 5, not three years "
            "out); 'or more' has no source, and a single coherent unit of 576 GPUs needs "
            "switches between racks that one NVL72 does not have.",
        ),
    ]
