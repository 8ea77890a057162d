"""Real fabrics, every figure read from the hardware catalogue (:mod:`nvlearn.specs`).

* :func:`dgx_h100` — one DGX/HGX H100 box: 8 GPUs on 4 NVSwitch chips (planes); with
  ``gpu=`` the same board holding another NVLink 4 GPU (H200, the export H800 with 8 links,
  the H20).
* :func:`nvlink_pod` — the NVLink Switch System: up to 32 DGX H100 nodes, 256 GPUs, on a
  second level of 18 1U NVLink Switches.
* :func:`ib_cluster` — DGX H100 nodes on a rail-optimised InfiniBand NDR fat tree, two or
  three switch tiers (NVIDIA's DGX SuperPOD: scalable units of 32 nodes).
* :func:`pcie_box` — 8 GPUs that talk over PCIe switches and a CPU root complex.
* :func:`gb200_nvl72` — the GB200 NVL72 rack: 72 Blackwell GPUs on 18 NVLink 5 switch chips.

Per-link latencies come from ``specs.latency``: a link that leaves a switch carries that
switch's traversal time plus the hop itself, so a transfer's latency is the sum over the
links it crosses.

Node names (stable; SHARP / NVLS schedules name their switch participants with them):
``gpu{i}`` and ``nvswitch{p}`` in :func:`dgx_h100`; with a ``n{node}.`` prefix inside the
nodes of :func:`nvlink_pod` and :func:`ib_cluster` (``n3.gpu5``, ``n3.nvswitch0``,
``n3.pcie5``, ``n3.nic5``); ``nvls{box}.chip{c}`` for the pod's second level;
``leaf.r{rail}.{j}`` and ``spine{k}`` in the two-tier InfiniBand fabric, ``leaf.r{rail}.{j}``,
``spine.r{rail}.{pod}.{s}`` and ``core{s}.{i}`` in the three-tier one; ``gpu{i}``, ``pcie{k}``
and ``cpu`` in :func:`pcie_box`.

References
----------
NVIDIA, "NVIDIA H100 Tensor Core GPU Architecture" white paper, 2022 (18 NVLink 4 links per
GPU, the DGX H100's four NVSwitch chips, the NVLink Switch System of 256 GPUs).
A. Ishii and R. Wells, "The NVLink-Network Switch: NVIDIA's Switch Chip for High
Communication-Bandwidth SuperPODs", Hot Chips 34, 2022 (port counts, the 2:1 taper).
NVIDIA, "NVIDIA Blackwell Architecture Technical Brief", 2024 (GB200 NVL72).
NVIDIA, "DGX SuperPOD Reference Architecture featuring DGX H100 systems" (RA-11333-001,
2023: the rail-optimised InfiniBand compute fabric, scalable units of 32 nodes) and its DGX
B200 edition (the leaf / spine / core switch counts of larger fabrics, three tiers beyond 8
scalable units).
C. E. Leiserson, "Fat-trees: universal networks for hardware-efficient supercomputing",
IEEE Trans. Computers C-34(10):892-901, 1985; M. Al-Fares, A. Loukissas and A. Vahdat, "A
scalable, commodity data center network architecture", ACM SIGCOMM 2008 (the two- and
three-tier fat trees of :func:`ib_cluster`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import specs
from ..progress import progress
from .builders import FabricBuilder, check_count, check_rate
from .core import (
    LINK_IB,
    LINK_NVLINK,
    LINK_NVLINK_NETWORK,
    LINK_PCIE,
    NODE_CPU,
    NODE_IB_SWITCH,
    NODE_NIC,
    NODE_NVSWITCH,
    NODE_PCIE_SWITCH,
    Topology,
)

__all__ = ["PROGRESS_NODES", "dgx_h100", "nvlink_pod", "gb200_nvl72", "ib_cluster",
           "ib_cluster_max_nodes", "pcie_box"]

#: From this many nodes on, :func:`ib_cluster` shows a progress bar in a notebook (and stays
#: interruptible between nodes): 2,048 nodes build in about 1 s on two cores at load 2
#: (1,024 in 0.55 s, which the SGD notebook's 8,192-GPU cells build without a bar).
PROGRESS_NODES = 2048


def _require(ok: bool, what: str) -> None:
    """Guard the port arithmetic derived from the catalogue."""
    if not ok:
        raise RuntimeError(f"hardware catalogue inconsistent: {what}; check data/hardware.json")


def _nvlink_link_bw(system) -> float:
    """bytes/s per direction of one NVLink of the system's GPU."""
    return specs.nvlink(specs.gpu(system.gpu).nvlink_generation).link_bw_per_dir


def _box_gpus() -> dict[str, tuple[int, ...]]:
    """GPUs a DGX H100 baseboard can hold, each with its NVLinks to NVSwitch chip 0, 1 ...

    A GPU fits when it speaks the NVLink generation of the board's NVSwitch chips and the
    catalogue says how its links spread over the chips: the board's own split (5 / 4 / 4 / 5)
    for a GPU with as many links as the board's own GPU, else a board variant's
    (``specs.system("hgx_h800")``: 2 / 2 / 2 / 2, recorded as an assumption).
    """
    dgx = specs.system("dgx_h100")
    generation = specs.nvswitch(dgx.nvswitch_generation).nvlink_generation
    own = specs.gpu(dgx.gpu).nvlink_links
    variants = {}
    for key in specs.keys("systems"):
        rec = specs.system(key)
        if isinstance(rec, specs.BoardVariant) and rec.base == dgx.key:
            variants[rec.gpu] = rec.links_per_gpu_per_switch
    fits = {}
    for key in specs.keys("gpus"):
        g = specs.gpu(key)
        if g.nvlink_generation != generation:
            continue
        if key in variants:
            fits[key] = variants[key]
        elif g.nvlink_links == own:
            fits[key] = dgx.links_per_gpu_per_switch
    return fits


def _box_split(gpu: object, caller: str) -> tuple[int, ...]:
    """NVLinks per NVSwitch chip of ``gpu`` on a DGX H100 board, or a ValueError."""
    fits = _box_gpus()
    if not isinstance(gpu, str) or gpu not in fits:
        dgx = specs.system("dgx_h100")
        generation = specs.nvswitch(dgx.nvswitch_generation).nvlink_generation
        raise ValueError(
            f"{caller}(gpu={gpu!r}): a DGX H100 board takes a GPU with NVLink {generation} (the "
            f"links of its NVSwitch chips) whose links the catalogue knows how to split over "
            f"its {dgx.nvswitch_chips} chips; valid keys: {', '.join(fits)}"
        )
    return fits[gpu]


def _box_name(gpu: str) -> str:
    """``"DGX H100"``, ``"DGX H800"`` ...: the box named after its GPU."""
    return f"DGX {gpu.upper()}"


def _add_dgx_box(b: FabricBuilder, box: int, prefix: str, gpu: str, links: tuple[int, ...],
                 rails: int | None = None) -> tuple[list[int], list[int]]:
    """One DGX H100 baseboard of ``gpu`` GPUs: GPUs and their bundled links to the planes.

    ``links[p]``: NVLinks from every GPU to NVSwitch chip ``p`` (from :func:`_box_split`).
    With ``rails``, GPU ``i`` is labelled with network rail ``i % rails``."""
    dgx = specs.system("dgx_h100")
    _require(len(links) == dgx.nvswitch_chips, "links_per_gpu_per_switch needs one entry per "
             "NVSwitch chip")
    _require(sum(links) == specs.gpu(gpu).nvlink_links,
             "the GPU's NVLinks split over the planes must add up to its nvlink_links")
    link_bw = specs.nvlink(specs.gpu(gpu).nvlink_generation).link_bw_per_dir
    hop = specs.latency("nvlink_hop")
    down = hop + specs.latency("nvswitch_traversal")
    gpus = [b.gpu(f"{prefix}gpu{i}", box=box, plane=-1 if rails is None else i % rails)
            for i in range(dgx.gpus)]
    chips = [b.node(NODE_NVSWITCH, f"{prefix}nvswitch{p}", box=box, tier=1, plane=p)
             for p in range(dgx.nvswitch_chips)]
    for g in gpus:
        for p, chip in enumerate(chips):
            b.cable(g, chip, bw_per_dir=links[p] * link_bw, kind=LINK_NVLINK, count=links[p],
                    latency_ab=hop, latency_ba=down)
    return gpus, chips


def dgx_h100(gpu: str = "h100") -> Topology:
    """One DGX H100 (HGX H100 8-GPU) box: 8 GPUs fully connected through 4 NVSwitch chips.

    The box is built from the GPU's NVLink generation (the rate of a link) and its link
    count. An H100's 18 NVLink4 links are split 5 / 4 / 4 / 5 over the four NVSwitch chips
    (planes); each split is one bundled link of ``count x link_bw_per_dir`` per direction.
    Any GPU reaches any other in 2 links, over all four planes at once.

    Parameters
    ----------
    gpu : str
        Catalogue GPU key: ``"h100"`` (default), or another NVLink 4 GPU on the same board —
        ``"h200"`` and ``"h20"`` (18 links, the H100's fabric), ``"h800"`` (the export part:
        8 links, 200 GB/s per direction per GPU; NVIDIA does not publish how they spread
        over the chips, and the catalogue's ``hgx_h800`` assumes 2 / 2 / 2 / 2).

    Returns
    -------
    Topology
        8 GPUs, 4 NVSwitch nodes (tier 1, plane 0..3), 64 directed NVLink bundles; named
        ``"DGX H100"``, ``"DGX H800"`` ... and ``topology.gpu == gpu``.

    Raises
    ------
    ValueError
        A GPU the board cannot hold (another NVLink generation, or an unknown key); the
        message lists the valid keys.

    Examples
    --------
    >>> topo = dgx_h100()
    >>> topo.n_gpus, int(topo.link_count[topo.link_src == topo.gpus[0]].sum())
    (8, 18)
    >>> h800 = dgx_h100("h800")
    >>> h800.name, int(h800.link_count[h800.link_src == h800.gpus[0]].sum())
    ('DGX H800', 8)
    """
    links = _box_split(gpu, "dgx_h100")
    b = FabricBuilder()
    _add_dgx_box(b, 0, "", gpu, links)
    return b.build(_box_name(gpu), gpu=gpu)


def _pod_plan(links: tuple[int, ...]) -> tuple[list[int], list[int], int]:
    """Second-level chips per plane, ports per (first-level chip, second-level chip) bundle,
    and the largest node count, derived from the catalogue with the port arithmetic checked.

    ``links``: each GPU's NVLinks per first-level chip (their sum must meet the taper; the
    caller checks that first, it depends on the GPU).
    """
    nss = specs.system("nvlink_switch_system")
    dgx = specs.system(nss.node)
    box = specs.system(nss.switch)
    net = list(dgx.network_ports_per_switch)
    chip_ports = box.ports_per_chip
    _require(specs.nvswitch(box.nvswitch_generation).ports == chip_ports,
             "the 1U switch's chips must have the NVSwitch generation's port count")
    _require(sum(net) == dgx.external_nvlink_ports == dgx.osfp_cages * dgx.nvlinks_per_osfp,
             "a DGX H100's network ports per plane must add up to its OSFP cages x NVLinks")
    _require(box.ports == box.nvswitch_chips * chip_ports, "1U switch ports != chips x ports")
    _require(nss.nodes * sum(net) == nss.l2_switches * box.ports,
             "node uplink ports must fill the second-level switches exactly")
    _require(sum(links) * dgx.gpus == nss.taper * sum(net),
             "GPU links per node / network ports per node must equal the taper")
    for p, ports in enumerate(net):
        _require(links[p] * dgx.gpus + ports
                 <= specs.nvswitch(dgx.nvswitch_generation).ports,
                 f"plane {p} uses more ports than an NVSwitch chip has")
        _require(nss.nodes * ports % chip_ports == 0,
                 f"plane {p}'s uplinks do not fill whole second-level chips")
    chips = [nss.nodes * ports // chip_ports for ports in net]
    _require(sum(chips) == nss.l2_switches * box.nvswitch_chips,
             "second-level chips per plane must add up to the switches' chips")
    bundle = [ports // c for ports, c in zip(net, chips, strict=True)]
    _require(all(ports == k * c for ports, k, c in zip(net, bundle, chips, strict=True)),
             "a plane's uplinks must spread evenly over its second-level chips")
    _require(len(set(bundle)) == 1, "every plane must use the same ports per bundle")
    return chips, bundle, chip_ports // bundle[0]


def _pod_links(gpu: object) -> tuple[int, ...]:
    """``gpu``'s NVLinks per first-level chip, if the pod's taper arithmetic holds for it."""
    links = _box_split(gpu, "nvlink_pod")
    nss = specs.system("nvlink_switch_system")
    dgx = specs.system(nss.node)
    ports = sum(dgx.network_ports_per_switch)
    need = nss.taper * ports
    if sum(links) * dgx.gpus != need:
        fits = [k for k, split in _box_gpus().items() if sum(split) * dgx.gpus == need]
        raise ValueError(
            f"nvlink_pod(gpu={gpu!r}): the NVLink Switch System's port arithmetic needs "
            f"{need / dgx.gpus:g} NVLinks per GPU (a {nss.taper:g}:1 taper of the {dgx.gpus} "
            f"GPUs' links onto each node's {ports} network ports), but {gpu.upper()} GPUs have "
            f"{sum(links)}; use one of: {', '.join(fits)}"
        )
    return links


def nvlink_pod(nodes: int = 32, gpu: str = "h100") -> Topology:
    """The NVLink Switch System: ``nodes`` DGX H100 boxes on a second level of NVLink Switches.

    Inside each node, 8 GPUs sit on 4 first-level NVSwitch chips exactly as in
    :func:`dgx_h100`. The chips also expose NVLink network ports (20 / 16 / 16 / 20 per
    plane, 72 per node = half the GPUs' 144 links: the 2:1 taper). The second level is 18
    1U NVLink Switches = 36 NVSwitch chips of 64 ports.

    The nodes are the **NVLink-network variant** of the DGX H100, whose OSFP cages bring
    those ports out to the second-level switches; the standard DGX H100 that shipped has no
    external NVLink ports in use (it reaches other nodes through its NICs). NVIDIA announced
    this 256-GPU H100 system (GTC 2022) but did not ship it generally; the 256-GPU NVLink 4
    system that shipped is the DGX GH200 (``specs.system("dgx_gh200")``).

    Wiring (a modelling choice): NVIDIA does not publish the exact cabling of the NVLink
    Switch System. This builder uses the natural plane-aligned ("rail-plane") wiring that is
    consistent with the published port counts: the second-level chips are divided among the
    four planes in proportion to the planes' uplinks (32 x 20 / 64 = 10, 8, 8, 10 chips =
    36), and the plane-p chip of every node connects with 2 ports to each second-level chip
    of plane p. A second-level chip then uses 2 x ``nodes`` <= 64 ports, and the full pod
    uses 32 x 72 = 2304 = 18 x 128 ports. All these counts are derived from the catalogue
    and checked. Traffic between two nodes crosses 4 links (GPU, first level, second level,
    first level, GPU) and never leaves its plane.

    Parameters
    ----------
    nodes : int
        DGX H100 nodes, 1 .. 32 (64 ports per second-level chip / 2 ports per node).
    gpu : str
        Catalogue GPU of the nodes (default ``"h100"``). Only a GPU with the H100's link
        count fits the port arithmetic (``"h200"``, ``"h20"``); an H800's 8 links raise
        ValueError.

    Returns
    -------
    Topology
        ``8 * nodes`` GPUs; first-level chips tier 1, second-level chips tier 2 (ordered by
        1U switch: chips ``2k`` and ``2k + 1`` share switch box ``k``).

    Examples
    --------
    >>> pod = nvlink_pod(2)
    >>> pod.n_gpus
    16
    """
    links = _pod_links(gpu)
    chips, bundle, max_nodes = _pod_plan(links)
    whole = isinstance(nodes, (int, np.integer)) and not isinstance(nodes, bool)
    if not whole or not 1 <= nodes <= max_nodes:
        raise ValueError(
            f"nvlink_pod(nodes={nodes!r}): nodes must be a whole number from 1 to {max_nodes}; "
            f"each node's first-level chip uses {bundle[0]} ports on every second-level chip "
            f"of its plane, and a chip has {bundle[0] * max_nodes} ports, so at most "
            f"{max_nodes} nodes fit"
        )
    nodes = int(nodes)
    nss = specs.system("nvlink_switch_system")
    link_bw = _nvlink_link_bw(specs.system(nss.node))
    per_box = specs.system(nss.switch).nvswitch_chips
    up = specs.latency("nvlink_hop") + specs.latency("nvswitch_traversal")
    b = FabricBuilder()
    firsts = [_add_dgx_box(b, n, f"n{n}.", gpu, links)[1] for n in range(nodes)]
    chip = 0
    for p, n_chips in enumerate(chips):
        for _ in range(n_chips):
            name = f"nvls{chip // per_box}.chip{chip % per_box}"
            l2 = b.node(NODE_NVSWITCH, name, tier=2, plane=p, enclosure=chip // per_box)
            for first in firsts:
                b.cable(first[p], l2, bw_per_dir=bundle[p] * link_bw, kind=LINK_NVLINK_NETWORK,
                        count=bundle[p], latency_ab=up)
            chip += 1
    return b.build(f"NVLink Switch System ({nodes} x {_box_name(gpu)})", gpu=gpu)


def gb200_nvl72() -> Topology:
    """The GB200 NVL72 rack: 72 Blackwell GPUs, one link from each to each of 18 NVSwitch chips.

    18 compute trays hold 4 GPUs each; 9 NVLink Switch trays hold 2 fourth-generation
    NVSwitch chips each (72 NVLink 5 ports per chip). Every GPU's 18 NVLink 5 links go one to
    each of the 18 chips over the rack's copper NVLink spine (the cable cartridges behind the
    trays), so the rack is a single switch tier: any GPU reaches any other in 2 links, over
    all 18 chips at once, and no link is shared by two GPUs' traffic to different chips. Each
    chip's 72 ports are exactly one per GPU. Every count is read from the catalogue
    (``specs.system("gb200_nvl72")``, ``specs.nvswitch(4)``, ``specs.gpu("b200")``) and the
    port arithmetic is checked. Latencies are ``specs.latency``'s NVLink hop and NVSwitch
    traversal (the catalogue has no Blackwell-specific figure; the Hopper-era model
    latencies are used, a modelling assumption).

    Returns
    -------
    Topology
        72 GPUs and 18 NVSwitch chips (tier 1, ``plane`` = chip), all in ``box`` 0: the
        rack is one NVLink domain, as a DGX box is (the compute trays are not NVLink
        boundaries); 2 x 1296 directed NVLinks of 50 GB/s per direction; named
        ``"GB200 NVL72"``, ``topology.gpu == "b200"``. Node names ``gpu{i}`` (in compute tray
        ``i // 4``) and ``nvswitch{c}`` (in switch tray ``c // 2``).

    Examples
    --------
    >>> t = gb200_nvl72()
    >>> t.n_gpus, int(t.link_count[t.link_src == t.gpus[0]].sum())
    (72, 18)
    """
    nvl = specs.system("gb200_nvl72")
    chip = specs.nvswitch(nvl.nvswitch_generation)
    gpu = specs.gpu(nvl.gpu)
    chips = nvl.switch_trays * nvl.nvswitch_chips_per_tray
    _require(nvl.compute_trays * nvl.gpus_per_compute_tray == nvl.gpus,
             "NVL72 compute trays x GPUs per tray must equal its GPUs")
    _require(nvl.ports_per_switch_tray == nvl.nvswitch_chips_per_tray * chip.ports,
             "an NVLink Switch tray's ports must be its chips x ports per chip")
    _require(gpu.nvlink_generation == chip.nvlink_generation,
             "the NVL72's GPU and NVSwitch must speak the same NVLink generation")
    _require(gpu.nvlink_links == chips, "one NVLink from every GPU to every switch chip needs "
             "as many chips as links per GPU")
    _require(chip.ports == nvl.gpus, "one port per GPU on every switch chip needs as many "
             "ports per chip as GPUs")
    link_bw = specs.nvlink(gpu.nvlink_generation).link_bw_per_dir
    hop = specs.latency("nvlink_hop")
    down = hop + specs.latency("nvswitch_traversal")
    b = FabricBuilder()
    gpus = [b.gpu(f"gpu{i}", box=0) for i in range(nvl.gpus)]
    for c in range(chips):
        sw = b.node(NODE_NVSWITCH, f"nvswitch{c}", box=0, tier=1, plane=c)
        for g in gpus:
            b.cable(g, sw, bw_per_dir=link_bw, kind=LINK_NVLINK, latency_ab=hop,
                    latency_ba=down)
    return b.build(nvl.name, gpu=nvl.gpu)


class _TreePlan(NamedTuple):
    """A rail-optimised fat tree: per rail ``members[j]`` nodes on leaf ``j`` and that leaf's
    ``uplinks[j]``; with three tiers, the rail's leaves in ``pods_per_rail`` pods of
    ``leaves_per_pod`` leaves, each pod with ``spines_per_pod`` spines (``leaf_bundle`` links
    from every leaf to each), and ``core_group`` core switches per spine index
    (``core_bundle`` links from every spine to each)."""

    tiers: int
    members: list[int]
    uplinks: list[int]
    pods_per_rail: int = 0
    leaves_per_pod: int = 0
    spines_per_pod: int = 0
    leaf_bundle: int = 0
    core_group: int = 0
    core_bundle: int = 0


def _power_of_two_at_least(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(n, 1))))


def _fat_tree_plan(nodes: int, rails: int, oversubscription: float, nics_per_node: int,
                   radix: int, tiers: int | None) -> _TreePlan:
    """The leaves, spines and (with three tiers) cores of a rail-optimised fat tree.

    Two tiers (the default while they fit): every leaf connects once to each of its
    ``ceil(down / oversubscription)`` spines, a spine has a port per leaf, so at most
    ``radix`` leaves. Three tiers (NVIDIA's DGX SuperPOD beyond 8 scalable units): the
    leaves of each rail form pods of at most ``radix / 2`` leaves, every pod its own spines
    (a power of two, at least its leaves), every leaf ``radix / 2`` links up spread evenly
    over its pod's spines, every spine ``radix / 2`` links up to the ``core_group`` core
    switches of its index; a core switch has a port for each pod's share, so at most
    ``radix`` pods.
    """
    _check_rails(rails, nics_per_node)
    if tiers not in (None, 2, 3):
        raise ValueError(f"tiers must be 2, 3 or None (the fewest that fit), got {tiers!r}")
    down = radix // 2
    per_leaf = down // (nics_per_node // rails)
    leaves = math.ceil(nodes / per_leaf)
    members = [min(per_leaf, nodes - j * per_leaf) for j in range(leaves)]
    two_fit = rails * leaves <= radix
    if tiers == 2 or (tiers is None and two_fit):
        if not two_fit:
            raise ValueError(
                f"ib_cluster(nodes={nodes}, rails={rails}, tiers=2) needs {leaves} leaf switches "
                f"per rail ({per_leaf} nodes each, {down} of {radix} ports down), "
                f"{rails * leaves} leaves in all; a two-tier fat tree of {radix}-port switches "
                f"connects at most {radix} leaves (one port of every spine each), so use "
                f"nodes <= {radix // rails * per_leaf}, or tiers=3")
        uplinks = [math.ceil(m * (nics_per_node // rails) / oversubscription) for m in members]
        return _TreePlan(2, members, uplinks)
    if oversubscription != 1:
        raise ValueError("the three-tier fabric is non-blocking, as the DGX SuperPOD's: pass "
                         "oversubscription=1, or nodes that fit two tiers")
    pods_per_rail = math.ceil(leaves / down)
    pods = rails * pods_per_rail
    core_group = _power_of_two_at_least(math.ceil(pods / 2))
    if core_group > down:
        max_nodes = _three_tier_max_nodes(radix, rails, nics_per_node)
        raise ValueError(
            f"ib_cluster(nodes={nodes}, rails={rails}) needs {pods} pods of up to {down} leaf "
            f"switches; a three-tier fat tree of {radix}-port switches connects at most {radix} "
            f"pods (a core port for each), so use nodes <= {max_nodes} (a fourth tier is not "
            "modelled)")
    leaves_per_pod = math.ceil(leaves / pods_per_rail)
    spines = _power_of_two_at_least(leaves_per_pod)
    return _TreePlan(3, members, [down] * leaves, pods_per_rail, leaves_per_pod, spines,
                     down // spines, core_group, down // core_group)


def _check_rails(rails: int, nics_per_node: int) -> None:
    if nics_per_node % rails:
        divisors = [r for r in range(1, nics_per_node + 1) if nics_per_node % r == 0]
        raise ValueError(f"rails={rails}: the {nics_per_node} NICs of a node must spread evenly "
                         f"over the rails; use one of {divisors}")


def _three_tier_max_nodes(radix: int, rails: int, nics_per_node: int) -> int:
    """Nodes of the largest three-tier plan: ``radix`` pods (a core port each) of
    ``radix / 2`` leaves, spread over the rails, each leaf ``radix / 2`` NICs down."""
    down = radix // 2
    return radix // rails * down * (down // (nics_per_node // rails))


def ib_cluster_max_nodes(rails: int = 8, ib: str = "ndr") -> int:
    """The most DGX H100 nodes :func:`ib_cluster` builds (three switch tiers; a fourth is not
    modelled).

    Parameters
    ----------
    rails : int
        Network rails, as in :func:`ib_cluster` (a divisor of the node's 8 NICs).
    ib : str
        InfiniBand speed (catalogue key); its switch's port count sets the limit.

    Returns
    -------
    int

    Examples
    --------
    >>> ib_cluster_max_nodes()          # 8 rails of 64-port Quantum-2 switches
    8192
    """
    nics = specs.system("dgx_h100").nics
    rails = check_count(rails, "rails", 1)
    _check_rails(rails, nics)
    return _three_tier_max_nodes(specs.ib_switch_for_speed(ib).ports, rails, nics)


def _add_switches(b: FabricBuilder, plan: _TreePlan, rails: int, port_bw: float,
                  t_ib: float) -> list[list[int]]:
    """Leaves (one list per rail) and, above them, the plan's spines and cores."""
    leaves = [[b.node(NODE_IB_SWITCH, f"leaf.r{r}.{j}", tier=1, plane=r)
               for j in range(len(plan.members))] for r in range(rails)]
    if plan.tiers == 2:
        if rails * len(plan.members) > 1:
            spines = [b.node(NODE_IB_SWITCH, f"spine{k}", tier=2) for k in range(max(plan.uplinks))]
            for r in range(rails):
                for j, leaf in enumerate(leaves[r]):
                    for k in range(plan.uplinks[j]):
                        b.cable(leaf, spines[k], bw_per_dir=port_bw, kind=LINK_IB, latency_ab=t_ib)
        return leaves
    cores = [[b.node(NODE_IB_SWITCH, f"core{s}.{i}", tier=3) for i in range(plan.core_group)]
             for s in range(plan.spines_per_pod)]
    for r in range(rails):
        for pod in range(plan.pods_per_rail):
            spines = [b.node(NODE_IB_SWITCH, f"spine.r{r}.{pod}.{s}", tier=2, plane=r)
                      for s in range(plan.spines_per_pod)]
            for leaf in leaves[r][pod * plan.leaves_per_pod:(pod + 1) * plan.leaves_per_pod]:
                for spine in spines:
                    b.cable(leaf, spine, bw_per_dir=plan.leaf_bundle * port_bw, kind=LINK_IB,
                            count=plan.leaf_bundle, latency_ab=t_ib)
            for s, spine in enumerate(spines):
                for core in cores[s]:
                    b.cable(spine, core, bw_per_dir=plan.core_bundle * port_bw, kind=LINK_IB,
                            count=plan.core_bundle, latency_ab=t_ib)
    return leaves


def ib_cluster(nodes: int, rails: int = 8, oversubscription: float = 1.0, *,
               ib: str = "ndr", gpu: str = "h100", tiers: int | None = None) -> Topology:
    """DGX H100 nodes on a rail-optimised InfiniBand fat tree of two or three switch tiers.

    Inside each node the GPUs talk over NVLink exactly as in :func:`dgx_h100`. Each GPU also
    has its own ConnectX-7 NIC behind a PCIe switch (GPU -> PCIe switch -> NIC, x16 links of
    the NIC's PCIe generation); one PCIe switch per GPU-NIC pair, so GPUs never talk to each
    other over PCIe. NIC ``i`` of every node plugs into a leaf switch of rail ``i % rails``
    ("rail-optimised": GPU ``i`` of every node meets GPU ``i`` of every other node one switch
    away). A leaf uses half its ports (32 of 64 for NDR) for NICs and the other half up; a
    rail gets more leaves when its NICs outnumber 32 — with 8 rails, one leaf per rail for
    every 32 nodes, NVIDIA's *scalable unit* (``specs.system("dgx_superpod_h100")``).

    **Two tiers** (up to 256 nodes with 8 rails of 64-port switches): each leaf has
    ``ceil(32 / oversubscription)`` uplinks, one to each spine, and the spines connect every
    leaf of every rail once, so traffic between rails crosses a spine.

    **Three tiers** (257 to 8,192 nodes; NVIDIA's DGX SuperPOD beyond 8 scalable units,
    non-blocking): the leaves of each rail form *pods* of at most 32; each pod has its own
    spines (the smallest power of two at least its leaves; 32 for a full pod), every leaf
    spreads its 32 uplinks evenly over them (bundles of ``32 / spines`` links), and spine
    ``s`` of every pod spreads its 32 uplinks evenly over core group ``s`` (the smallest
    power of two at least half the pods, so a core switch's 64 ports take every pod's
    share). Same-rail traffic between leaves stays in its rail's pod (leaf -> spine ->
    leaf) while a rail has one pod (up to 1,024 nodes); traffic between rails, or between a
    rail's pods, goes leaf -> spine -> core -> spine -> leaf. The switch counts reproduce
    the reference architecture's table (``specs.system("dgx_superpod_h100").fabric_sizes``:
    128 / 128 / 64 leaf / spine / core switches at 512 nodes, 256 / 256 / 128 at 1,024,
    512 / 512 / 256 at 2,048); **the wiring is a modelling choice**: NVIDIA publishes the
    counts, not which spine a leaf's cables go to, and this builder keeps each rail's leaves
    together under their own spines (rail-aligned pods), so a rail stays three switch hops
    wide as in the two-tier design.

    Limits (stated, and the messages say them): two tiers hold at most 64 leaves (a spine
    port per leaf), 256 nodes with 8 rails; three tiers at most 64 pods (a core port per
    pod), 8,192 nodes (65,536 GPUs) with 8 rails, beyond the reference architecture's
    largest listed size of 64 scalable units (2,048 nodes); three tiers only non-blocking.
    The two-tier spine count is 32 whatever the size (one link per leaf), where the
    reference architecture uses half as many spines as leaves with parallel links: the same
    capacity in the fluid model. GPUs do not forward, so there is no PXN-style hop over
    NVLink in the routes; schedules model that explicitly.

    Parameters
    ----------
    nodes : int
        DGX H100 nodes, >= 1 (at most 8,192 with 8 rails of 64-port switches; the error
        message gives the limit for other choices).
    rails : int
        Network rails; must divide the 8 NICs per node (1, 2, 4 or 8).
    oversubscription : float
        Leaf down ports / up ports, >= 1 (1 = non-blocking), two tiers only. Uplinks are
        rounded up.
    ib : str
        InfiniBand speed of the cables (catalogue key), default ``"ndr"``; leaves, spines and
        cores are the catalogue's switch of that speed (Quantum-2, 64 ports, for NDR).
    gpu : str
        Catalogue GPU of the nodes, as in :func:`dgx_h100` (default ``"h100"``; ``"h800"``
        gives the nodes their 8 NVLinks; the network side is unchanged).
    tiers : {2, 3}, optional
        Switch tiers; default the fewest that fit. ``tiers=3`` builds the three-tier design
        for any node count (for comparisons and tests at small sizes).

    Returns
    -------
    Topology
        GPUs and NVSwitch chips as in :func:`dgx_h100`, plus per GPU a PCIe switch (tier 1)
        and a NIC (tier 0), leaf switches (tier 1, plane = rail), spines (tier 2; plane = rail
        with three tiers) and cores (tier 3).

    Notes
    -----
    With ``nodes <= 32`` each rail is one leaf, so traffic between GPUs of the same rail
    never reaches a spine: the bisection between two halves of the nodes is then set by the
    NICs (``nodes / 2 x 8 x 50 GB/s`` each way) whatever the oversubscription. The spine
    layer, and with it the oversubscription, limits the bisection once a rail has several
    leaves (``nodes > 32``), and always limits cross-rail traffic.

    Examples
    --------
    >>> topo = ib_cluster(4)
    >>> topo.n_gpus
    32
    >>> big = ib_cluster(1024)                       # 32 scalable units, three tiers
    >>> [int(((big.node_kind == NODE_IB_SWITCH) & (big.node_tier == t)).sum()) for t in (1, 2, 3)]
    [256, 256, 128]
    """
    nodes = check_count(nodes, "nodes", 1)
    rails = check_count(rails, "rails", 1)
    links = _box_split(gpu, "ib_cluster")
    o = check_rate(oversubscription, "oversubscription")
    if o < 1:
        raise ValueError(f"oversubscription must be >= 1 (down ports / up ports; 1 is "
                         f"non-blocking), got {o}")
    dgx = specs.system("dgx_h100")
    _require(dgx.nics == dgx.gpus, "ib_cluster gives every GPU its own NIC")
    nic = specs.nic(dgx.nic)
    fabric = specs.infiniband(ib)
    radix = specs.ib_switch_for_speed(ib).ports
    plan = _fat_tree_plan(nodes, rails, o, dgx.nics, radix, tiers)
    pcie_bw = specs.pcie(nic.pcie_generation).x16_bw_per_dir
    wire_bw = min(nic.port_bw_per_dir, fabric.port_bw_per_dir)
    t_pcie, t_nic, t_ib = (specs.latency(k) for k in ("pcie_switch_hop", "nic",
                                                       "ib_switch_hop"))
    b = FabricBuilder()
    leaves = _add_switches(b, plan, rails, fabric.port_bw_per_dir, t_ib)
    per_leaf = plan.members[0]
    boxes = range(nodes) if nodes < PROGRESS_NODES else progress(
        range(nodes), label=f"building {nodes:,} DGX nodes")
    for n in boxes:
        gpus, _ = _add_dgx_box(b, n, f"n{n}.", gpu, links, rails)
        for i, g in enumerate(gpus):
            rail = i % rails
            sw = b.node(NODE_PCIE_SWITCH, f"n{n}.pcie{i}", box=n, tier=1, plane=rail)
            card = b.node(NODE_NIC, f"n{n}.nic{i}", box=n, tier=0, plane=rail)
            b.cable(g, sw, bw_per_dir=pcie_bw, kind=LINK_PCIE, latency_ab=0.0,
                    latency_ba=t_pcie)
            b.cable(sw, card, bw_per_dir=pcie_bw, kind=LINK_PCIE, latency_ab=t_pcie,
                    latency_ba=t_nic)
            b.cable(card, leaves[rail][n // per_leaf], bw_per_dir=wire_bw, kind=LINK_IB,
                    latency_ab=t_nic, latency_ba=t_ib)
    shape = f"{o:g}:1" if plan.tiers == 2 else "3 tiers"
    return b.build(f"IB cluster ({nodes} x {_box_name(gpu)}, {rails} rails, {shape})", gpu=gpu)


def pcie_box(gpus: int = 8, gpus_per_switch: int = 2, pcie_gen: int = 5) -> Topology:
    """GPUs without NVLink: PCIe switches under one CPU root complex.

    The usual 8-GPU PCIe server: ``gpus_per_switch`` GPUs share a PCIe switch (x16 to each
    GPU), and each switch has one x16 uplink to the CPU. Two GPUs on the same switch talk
    peer-to-peer through it (2 links); GPUs on different switches go up through the CPU
    root complex and down again (4 links), sharing the switch's single x16 uplink with the
    switch's other GPUs -- the bottleneck this fabric teaches. One CPU socket is modelled
    (a dual-socket server adds a CPU-to-CPU hop, not modelled). The catalogue has no
    root-complex latency, so crossing the CPU costs one PCIe switch hop.

    Parameters
    ----------
    gpus : int
        GPUs (>= 1), a multiple of ``gpus_per_switch``.
    gpus_per_switch : int
        GPUs under each PCIe switch (>= 1).
    pcie_gen : int
        PCIe generation of every link (catalogue key, 3..6).

    Returns
    -------
    Topology
        GPUs (tier 0), PCIe switches (tier 1), the CPU (tier 2).

    Examples
    --------
    >>> topo = pcie_box()
    >>> topo.n_gpus
    8
    """
    gpus = check_count(gpus, "gpus", 1)
    per_switch = check_count(gpus_per_switch, "gpus_per_switch", 1)
    if gpus % per_switch:
        raise ValueError(f"gpus={gpus} is not a multiple of gpus_per_switch={per_switch}; "
                         "every PCIe switch carries the same number of GPUs")
    bw = specs.pcie(pcie_gen).x16_bw_per_dir
    hop = specs.latency("pcie_switch_hop")
    b = FabricBuilder()
    ranks = [b.gpu(f"gpu{i}", box=0) for i in range(gpus)]
    cpu = b.node(NODE_CPU, "cpu", box=0, tier=2)
    for k in range(gpus // per_switch):
        sw = b.node(NODE_PCIE_SWITCH, f"pcie{k}", box=0, tier=1)
        b.cable(sw, cpu, bw_per_dir=bw, kind=LINK_PCIE, latency_ab=hop, latency_ba=hop)
        for g in ranks[k * per_switch:(k + 1) * per_switch]:
            b.cable(g, sw, bw_per_dir=bw, kind=LINK_PCIE, latency_ab=0.0, latency_ba=hop)
    return b.build(f"PCIe Gen{pcie_gen} box ({gpus} GPUs, {per_switch} per switch)")
