"""Port and taper arithmetic: why the NVLink Switch System stops at 256 GPUs, and what grows
when a fabric gets bigger.

* :func:`nvlink_pod_plan` — the DGX H100 NVLink Switch System for ``nodes`` nodes at a given
  taper: ports, OSFP cables, second-level switches, bandwidth per GPU, bisection, and the
  largest pod the cabling allows. Every input comes from the catalogue.
* :func:`fat_tree_plan` — a generic folded-Clos (fat-tree) fabric of switch chips of a given
  radix, one *plane* per GPU link (as in GB200 NVL72, where each GPU has one link to each of
  18 switch chips): tiers, chips per tier, hops, cables. For "how many switches for N GPUs at
  this radix and taper" and for the contrast between NVL72's one tier and bigger domains.
* :func:`nvl72_plan` — GB200 NVL72 from the catalogue, checked against :func:`fat_tree_plan`.
* :func:`fabric_metrics` — the headline metrics of a built
  :class:`~nvlearn.topology.Topology`: injection, off-node bandwidth, bisection, hops, path
  diversity, node taper and first-tier oversubscription.

Examples
--------
>>> plan = nvlink_pod_plan(32)
>>> plan.l2_switches, plan.max_nodes * plan.gpus_per_node
(18, 256)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nvlearn import specs
from nvlearn.topology import (
    NODE_GPU,
    Topology,
    bisection_bw_bidir,
    hops,
    path_diversity,
)

__all__ = ["FabricPlan", "PodPlan", "fabric_metrics", "fat_tree_plan", "growth_table", "max_gpus",
           "nvl72_plan", "nvlink_pod_plan"]


def _whole(value: object, what: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{what} must be a whole number >= {minimum}, got {value!r}")
    return value


def _taper(value: object) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"taper must be a number >= 1, got {value!r}") from None
    if not (math.isfinite(t) and t >= 1):
        raise ValueError(f"taper must be >= 1 (1 = non-blocking), got {value!r}")
    return t


# ------------------------------------------------------------------ the H100 pod
@dataclass(frozen=True)
class PodPlan:
    """Port arithmetic of a DGX H100 NVLink Switch System (see :func:`nvlink_pod_plan`).

    Attributes
    ----------
    nodes, gpus_per_node : int
    gpu_links_per_node : int
        NVLinks from the node's GPUs into its NVSwitch chips (8 x 18).
    spare_ports_per_node : int
        NVSwitch ports in the node left over for the network (4 x 64 - 144).
    uplinks_per_node : int
        NVLink network ports used per node (a whole number of OSFP cages).
    taper : float
        ``gpu_links_per_node / uplinks_per_node`` (the requested taper, rounded to cages).
    cables_per_node : int
        OSFP cables leaving a node (4 NVLinks each).
    l2_switches, l2_chips : int
        1U NVLink Switches of the second level, and their NVSwitch chips.
    l1_chips : int
        NVSwitch chips inside the nodes.
    max_nodes : int
        The most nodes the second level can take when every node cables to every switch.
    link_bw_per_dir : float
        One NVLink, bytes/s per direction.
    """

    nodes: int
    gpus_per_node: int
    gpu_links_per_node: int
    spare_ports_per_node: int
    uplinks_per_node: int
    taper: float
    cables_per_node: int
    l2_switches: int
    l2_chips: int
    l1_chips: int
    max_nodes: int
    link_bw_per_dir: float

    @property
    def gpus(self) -> int:
        """GPUs in the pod."""
        return self.nodes * self.gpus_per_node

    @property
    def chips(self) -> int:
        """NVSwitch chips in the pod, both levels."""
        return self.l1_chips + self.l2_chips

    @property
    def cross_node_bw_per_gpu(self) -> float:
        """bytes/s per direction each GPU gets to other nodes when all its node's GPUs send."""
        return self.uplinks_per_node * self.link_bw_per_dir / self.gpus_per_node

    @property
    def in_node_bw_per_gpu(self) -> float:
        """bytes/s per direction each GPU injects into its node's NVSwitches."""
        return self.gpu_links_per_node * self.link_bw_per_dir / self.gpus_per_node

    @property
    def bisection_bw_bidir(self) -> float:
        """bytes/s across a cut between two halves of the nodes, both directions summed."""
        return 2 * (self.nodes // 2) * self.uplinks_per_node * self.link_bw_per_dir

    @property
    def uplink_bw_per_dir(self) -> float:
        """bytes/s per direction, all node uplinks of the pod summed (NVIDIA's 57.6 TB/s)."""
        return self.nodes * self.uplinks_per_node * self.link_bw_per_dir

    @property
    def min_taper(self) -> float:
        """The smallest taper the node's spare NVSwitch ports allow."""
        return self.gpu_links_per_node / self.spare_ports_per_node


def nvlink_pod_plan(nodes: int = 32, taper: float | None = None) -> PodPlan:
    """Port arithmetic of an NVLink Switch System of ``nodes`` DGX H100 nodes.

    The rules, all numbers from the catalogue:

    1. A node's GPUs bring ``8 x 18 = 144`` NVLinks into its four NVSwitch chips, which
       have ``4 x 64 = 256`` ports: at most 112 are left for the network, so a
       non-blocking node (144 uplinks) is impossible; the taper is at least 144 / 112.
    2. Uplinks leave in OSFP cables of 4 NVLinks: ``144 / taper`` rounded down to whole
       cables (72 = 18 cables at NVIDIA's 2:1).
    3. Every node runs one cable to every second-level 1U switch (so any two nodes meet on
       every switch): switches = cables per node (18).
    4. A 1U switch has 32 OSFP cages (128 ports on 2 chips), one per node: at most 32 nodes
       -- 256 GPUs -- whatever the taper. More needs a third tier or a bigger switch.

    Parameters
    ----------
    nodes : int
        DGX H100 nodes, 1 .. the maximum (32).
    taper : float, optional
        GPU links / network ports per node; default the catalogue's (2).

    Examples
    --------
    >>> p = nvlink_pod_plan(32)
    >>> p.uplinks_per_node, p.l2_chips, round(p.bisection_bw_bidir / 1e12, 1)
    (72, 36, 57.6)
    >>> nvlink_pod_plan(32, taper=1.5).l2_switches
    24
    """
    nss = specs.system("nvlink_switch_system")
    dgx = specs.system(nss.node)
    box = specs.system(nss.switch)
    chip_ports = specs.nvswitch(dgx.nvswitch_generation).ports
    link_bw = specs.nvlink(specs.gpu(dgx.gpu).nvlink_generation).link_bw_per_dir
    gpu_links = sum(dgx.links_per_gpu_per_switch) * dgx.gpus
    spare = dgx.nvswitch_chips * chip_ports - gpu_links
    t = _taper(nss.taper if taper is None else taper)
    wanted = gpu_links / t
    if wanted > spare:
        raise ValueError(
            f"taper {t:g} needs {wanted:g} network ports per node, but its NVSwitch chips have "
            f"only {spare} left after the GPUs' {gpu_links} links: use taper >= "
            f"{gpu_links / spare:.3g}"
        )
    cables = int(wanted // dgx.nvlinks_per_osfp)
    if cables < 1:
        raise ValueError(f"taper {t:g} leaves less than one OSFP cable per node; use a smaller "
                         "taper")
    max_nodes = box.osfp_cages
    n = _whole(nodes, "nodes")
    if n > max_nodes:
        raise ValueError(
            f"{n} nodes do not fit two tiers: each node runs one cable to every second-level "
            f"switch and a switch has {max_nodes} OSFP cages, so at most {max_nodes} nodes "
            f"({max_nodes * dgx.gpus} GPUs); use fat_tree_plan for a third tier"
        )
    uplinks = cables * dgx.nvlinks_per_osfp
    return PodPlan(
        nodes=n, gpus_per_node=dgx.gpus, gpu_links_per_node=gpu_links,
        spare_ports_per_node=spare, uplinks_per_node=uplinks, taper=gpu_links / uplinks,
        cables_per_node=cables, l2_switches=cables, l2_chips=cables * box.nvswitch_chips,
        l1_chips=n * dgx.nvswitch_chips, max_nodes=max_nodes, link_bw_per_dir=link_bw,
    )


# ------------------------------------------------------------------ generic fat tree
@dataclass(frozen=True)
class FabricPlan:
    """A plane-per-link folded-Clos fabric (see :func:`fat_tree_plan`).

    Attributes
    ----------
    n_gpus, links_per_gpu, radix : int
    taper : float
        First-tier down ports / up ports (1 with a single tier).
    tiers : int
        Switch tiers a plane needs (1, 2 or 3).
    chips_per_plane : tuple of int
        Chips in each tier of one plane (leaf first).
    """

    n_gpus: int
    links_per_gpu: int
    radix: int
    taper: float
    tiers: int
    chips_per_plane: tuple[int, ...]

    @property
    def planes(self) -> int:
        """One plane per GPU link."""
        return self.links_per_gpu

    @property
    def chips(self) -> int:
        """Switch chips in the whole fabric."""
        return self.planes * sum(self.chips_per_plane)

    @property
    def chips_per_tier(self) -> tuple[int, ...]:
        """Chips in each tier over all planes."""
        return tuple(self.planes * c for c in self.chips_per_plane)

    @property
    def max_hops(self) -> int:
        """Links on the longest shortest GPU-to-GPU path (up and down every tier)."""
        return 2 * self.tiers

    @property
    def switch_links(self) -> int:
        """Switch-to-switch links (cables between tiers), all planes."""
        leaves = self.chips_per_plane[0]
        if self.tiers == 1:
            return 0
        up = leaves * _leaf_ports(self.radix, self.taper)[1]
        if self.tiers == 3:
            up += self.chips_per_plane[1] * (self.radix // 2)
        return self.planes * up


def _leaf_ports(radix: int, taper: float) -> tuple[int, int]:
    """(down, up) ports of a tapered leaf chip."""
    down = int(radix * taper // (1 + taper))
    return down, math.ceil(down / taper)


def max_gpus(tiers: int, radix: int, taper: float = 1.0) -> int:
    """The most GPUs a plane-per-link fat tree of ``tiers`` tiers of radix-``radix`` chips holds.

    One tier: every GPU has a port on the plane's one chip, so ``radix``. Two tiers: a spine
    reaches at most ``radix`` leaves of ``down`` GPUs each. Three: ``radix`` pods of
    ``radix / 2`` leaves.

    Parameters
    ----------
    tiers : {1, 2, 3}
        Switch tiers of one plane.
    radix : int
        Ports per switch chip, >= 2.
    taper : float
        Leaf down ports per up port, >= 1 (1 = non-blocking): a leaf gives ``down`` of its
        ports to GPUs and the rest to the tier above.

    Returns
    -------
    int
        GPUs (each with one link into this plane).

    References
    ----------
    C. E. Leiserson, "Fat-trees: universal networks for hardware-efficient
    supercomputing", IEEE Trans. Computers C-34(10), 1985; M. Al-Fares, A. Loukissas,
    A. Vahdat, "A scalable, commodity data center network architecture", SIGCOMM 2008
    (``k^3 / 4`` hosts from ``k``-port switches in three tiers).

    Examples
    --------
    >>> max_gpus(1, 72), max_gpus(2, 64), max_gpus(3, 64)
    (72, 2048, 65536)
    """
    tiers = _whole(tiers, "tiers")
    radix = _whole(radix, "radix", 2)
    down, _ = _leaf_ports(radix, _taper(taper))
    if tiers == 1:
        return radix
    if tiers == 2:
        return radix * down
    if tiers == 3:
        return radix * (radix // 2) * down
    raise ValueError("tiers must be 1, 2 or 3")


def fat_tree_plan(n_gpus: int, *, links_per_gpu: int, radix: int,
                  taper: float = 1.0) -> FabricPlan:
    """Switch chips for ``n_gpus`` GPUs: one folded-Clos plane per GPU link.

    Each GPU link is its own plane (link ``j`` of every GPU goes to plane ``j``), and each
    plane is the smallest fat tree of ``radix``-port chips that connects ``n_gpus``
    endpoints: one chip when ``n_gpus <= radix``; else leaves with ``down`` ports to GPUs
    and ``up = down / taper`` to spines; above ``radix * down`` GPUs a third tier
    (non-blocking above the leaves). GB200 NVL72 is the one-tier case (72 GPUs, 18 planes,
    72-port chips). The H100 pod is a two-tier variant that bundles 4-5 links per GPU into
    4 in-node planes, so its chip count differs (see :func:`nvlink_pod_plan`).

    Parameters
    ----------
    n_gpus : int
        GPUs to connect, >= 1.
    links_per_gpu : int
        NVLinks per GPU (= planes).
    radix : int
        Ports per switch chip.
    taper : float
        Leaf down / up ports when more than one tier is needed (>= 1).

    Returns
    -------
    FabricPlan
        Tiers, chips per tier of one plane, and the counts derived from them.

    Examples
    --------
    >>> p = fat_tree_plan(72, links_per_gpu=18, radix=72)
    >>> p.tiers, p.chips, p.max_hops
    (1, 18, 2)
    >>> fat_tree_plan(1024, links_per_gpu=18, radix=64).chips_per_plane
    (32, 16)
    """
    n = _whole(n_gpus, "n_gpus")
    links = _whole(links_per_gpu, "links_per_gpu")
    k = _whole(radix, "radix", 2)
    t = _taper(taper)
    if n <= k:
        return FabricPlan(n, links, k, 1.0, 1, (1,))
    down, up = _leaf_ports(k, t)
    leaves = math.ceil(n / down)
    if leaves <= k:
        return FabricPlan(n, links, k, t, 2, (leaves, math.ceil(leaves * up / k)))
    per_pod = k // 2
    pods = math.ceil(leaves / per_pod)
    if pods > k:
        raise ValueError(f"{n} GPUs need more than three tiers of {k}-port chips (at most "
                         f"{max_gpus(3, k, t)} at taper {t:g})")
    agg = pods * up
    return FabricPlan(n, links, k, t, 3, (leaves, agg, math.ceil(agg * per_pod / k)))


def nvl72_plan() -> FabricPlan:
    """GB200 NVL72 from the catalogue: one tier, one link from every GPU to every chip.

    Raises if the catalogue's tray and chip counts disagree with the one-tier arithmetic.

    Examples
    --------
    >>> nvl72_plan().chips
    18
    """
    nvl = specs.system("gb200_nvl72")
    links = specs.nvlink(specs.gpu(nvl.gpu).nvlink_generation).links_per_gpu
    radix = specs.nvswitch(nvl.nvswitch_generation).ports
    plan = fat_tree_plan(nvl.gpus, links_per_gpu=links, radix=radix)
    chips = nvl.switch_trays * nvl.nvswitch_chips_per_tray
    if plan.tiers != 1 or plan.chips != chips:
        raise RuntimeError(f"catalogue inconsistent: NVL72 has {chips} switch chips but the "
                           f"one-tier arithmetic gives {plan.chips}; check data/hardware.json")
    return plan


def growth_table(sizes: tuple[int, ...] = (72, 256, 1024, 4096, 16384), *,
                 links_per_gpu: int | None = None, radix: int | None = None,
                 taper: float = 1.0) -> list[dict]:
    """What grows with the GPU count: tiers, chips, chips per GPU, hops, cables per GPU.

    Parameters
    ----------
    sizes : tuple of int
        GPU counts, one row each.
    links_per_gpu : int, optional
        NVLinks per GPU = planes (default: H100's, from the catalogue).
    radix : int, optional
        Ports per switch chip (default: the third-generation NVSwitch's).
    taper : float
        Leaf oversubscription, >= 1 (see :func:`max_gpus`).

    Returns
    -------
    list of dict
        Per size: ``gpus``, ``tiers``, ``chips``, ``chips_per_gpu``, ``max_hops`` (links on
        the longest shortest GPU-to-GPU path, ``2 x tiers``) and ``switch_links_per_gpu``
        (switch-to-switch links, all planes, per GPU).

    Examples
    --------
    >>> [row["tiers"] for row in growth_table((64, 65, 4096))]
    [1, 2, 3]
    """
    if links_per_gpu is None:
        links_per_gpu = specs.nvlink(4).links_per_gpu
    if radix is None:
        radix = specs.nvswitch(3).ports
    rows = []
    for n in sizes:
        plan = fat_tree_plan(n, links_per_gpu=links_per_gpu, radix=radix, taper=taper)
        rows.append({
            "gpus": n, "tiers": plan.tiers, "chips": plan.chips,
            "chips_per_gpu": plan.chips / n, "max_hops": plan.max_hops,
            "switch_links_per_gpu": plan.switch_links / n,
        })
    return rows


# ------------------------------------------------------------------ metrics of a built fabric
def _first_tier_oversubscription(topo: Topology) -> float:
    """max over first-tier switches with uplinks of capacity down / capacity up (1 if none)."""
    tier = topo.node_tier
    worst = 1.0
    for sw in np.flatnonzero((tier == 1) & (topo.node_kind != NODE_GPU)):
        out = topo.link_src == sw
        up = topo.link_capacity[out & (tier[topo.link_dst] > 1)].sum()
        down = topo.link_capacity[out & (tier[topo.link_dst] < 1)].sum()
        if up > 0 and down > 0:
            worst = max(worst, float(down / up))
    return worst


def fabric_metrics(topo: Topology) -> dict:
    """Headline metrics of a fabric, all computed from the topology's arrays.

    Keys: ``gpus``; ``injection_per_gpu`` (bytes/s per direction into the node's own
    switches over the GPU's widest link kind: NVLink, not the PCIe path to a NIC);
    ``off_node_per_gpu`` (a node's links leaving the node / its GPUs, bytes/s per direction;
    None for a single box); ``node_taper`` (what the node's GPUs inject / what can leave it);
    ``oversubscription`` (first switch tier, capacity down / capacity up);
    ``bisection_bw_bidir`` and ``bisection_per_gpu`` (bytes/s); ``hops_in_node`` /
    ``hops_across`` (links between the first GPU and its neighbour / the last GPU);
    ``paths_across`` (distinct shortest paths to the last GPU, bundles counted once).

    Examples
    --------
    >>> from nvlearn.topology import nvlink_pod
    >>> m = fabric_metrics(nvlink_pod(2))
    >>> m["node_taper"], m["hops_across"], m["paths_across"]
    (2.0, 4, 36)
    """
    g = topo.gpus
    box = topo.node_box
    gpu_box = box[g]
    first = gpu_box[0]
    members = g[gpu_box == first]
    internal = (box[topo.link_src] == first) & (box[topo.link_dst] == first)
    from_gpu = np.isin(topo.link_src, members) & internal
    per_kind = np.bincount(topo.link_kind[from_gpu], weights=topo.link_capacity[from_gpu])
    injection = per_kind.max() / members.size  # the scale-up kind (NVLink), not the NIC's PCIe
    leaving = (box[topo.link_src] == first) & (box[topo.link_dst] != first)
    egress = topo.link_capacity[leaving].sum()
    single = np.unique(gpu_box).size == 1
    bisection = bisection_bw_bidir(topo) if topo.n_gpus > 1 else 0.0
    last = g[-1]
    return {
        "gpus": topo.n_gpus,
        "injection_per_gpu": float(injection),
        "off_node_per_gpu": None if single else float(egress / members.size),
        "node_taper": None if single or egress == 0 else float(injection * members.size
                                                                / egress),
        "oversubscription": _first_tier_oversubscription(topo),
        "bisection_bw_bidir": float(bisection),
        "bisection_per_gpu": float(bisection / topo.n_gpus),
        "hops_in_node": int(hops(topo, g[0], members[1])) if members.size > 1 else 0,
        "hops_across": int(hops(topo, g[0], last)),
        "paths_across": int(path_diversity(topo, g[0], last)),
    }
