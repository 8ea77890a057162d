"""Design your own NVLink domain: GPUs, a switch chip's radix and links per GPU -> a fabric.

The design is plane-aligned, as in every NVIDIA NVLink system (the DGX H100's four planes,
the pod's second level, the NVL72's 18 chips): link ``p`` of every GPU belongs to plane
``p``, and planes never meet. In each plane:

* **one tier** when the chip has a port for every GPU (``n_gpus <= radix``): one leaf chip
  per plane, every GPU one link to it (the GB200 NVL72: 72 GPUs, 72-port chips, 18 planes);
* **two tiers** otherwise: GPUs in groups of ``g``; each group has one leaf chip per plane
  with ``g`` ports down and ``u = ceil(g / taper)`` ports up, spread in bundles of ``k``
  ports over the plane's ``s = u / k`` spine chips; a spine then uses ``k`` ports per leaf.
  ``g`` is the largest divisor of ``n_gpus`` with ``g + u <= radix``; ``k`` the largest
  divisor of ``u`` with ``leaves per plane x k <= radix`` (fewest spines). With ``taper=1``
  this is the non-blocking two-tier Clos: ``g = u = radix / 2`` and ``spines = leaves x u /
  radix``. More leaves per plane than a spine has ports would need a third tier (refused).

Counts: ``switch chips = links x (leaves per plane + spines per plane)``; ``cables`` =
GPU-leaf links (``n_gpus x links``) + leaf-spine links (``leaves x u``), counting each NVLink
once (a bundle of ``k`` is ``k`` cables). Bisection (both directions, closed form): cutting
the GPUs into two halves of whole groups, ``n_gpus x links x link rate x min(1, u / g)``;
:func:`nvlearn.topology.bisection_bw_bidir` (max-flow) on the built fabric agrees (tests).

References
----------
C. Clos, "A study of non-blocking switching networks", Bell System Tech. J. 32(2):406-424,
1953; C. E. Leiserson, "Fat-trees: universal networks for hardware-efficient
supercomputing", IEEE Trans. Computers C-34(10):892-901, 1985 (two-tier Clos / fat tree,
tapering).
NVIDIA, "NVIDIA H100 Tensor Core GPU Architecture" white paper, 2022, and "NVIDIA Blackwell
Architecture Technical Brief", 2024 (plane-aligned NVLink domains: DGX H100, the NVLink
Switch System, GB200 NVL72).

Examples
--------
>>> d = plan_domain(256, radix=64, links_per_gpu=18, taper=1.0)
>>> d.gpus_per_leaf, d.up_per_leaf, d.leaves, d.spines, d.switch_chips
(32, 32, 144, 72, 216)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nvlearn import specs
from nvlearn.topology.builders import FabricBuilder, check_count, check_rate
from nvlearn.topology.core import LINK_NVLINK, LINK_NVLINK_NETWORK, NODE_NVSWITCH, Topology

__all__ = ["generation_gpu", "DomainPlan", "plan_domain", "design_space", "cheapest_design"]


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def generation_gpu(nvlink_generation: int) -> str:
    """Catalogue GPU key of an NVLink generation (``4 -> "h100"``, ``5 -> "b200"``): it sets
    the link rate and NCCL's constants (architecture) of a designed domain.

    Examples
    --------
    >>> generation_gpu(5)
    'b200'
    """
    key = specs.nvlink(nvlink_generation).gpu.lower()
    if key not in specs.keys("gpus"):
        raise ValueError(f"NVLink {nvlink_generation}'s GPU {key!r} is not in the catalogue; "
                         "use NVLink 4 or 5")
    return key


@dataclass(frozen=True)
class DomainPlan:
    """A designed NVLink domain (counts only; :meth:`build` makes the Topology).

    Attributes
    ----------
    n_gpus, radix, links_per_gpu, nvlink_generation : int
        The inputs (radix = ports per switch chip).
    taper_requested : float
        Leaf down:up ratio asked for (1 = non-blocking).
    gpus_per_leaf, up_per_leaf : int
        ``g`` and ``u`` (``u = 0`` in a one-tier design).
    leaves_per_plane, spines_per_plane, bundle : int
        Leaf chips and spine chips per plane; ports per leaf-spine bundle ``k``.

    Examples
    --------
    >>> plan_domain(72, radix=72, links_per_gpu=18, nvlink_generation=5).switch_chips
    18
    """

    n_gpus: int
    radix: int
    links_per_gpu: int
    nvlink_generation: int
    taper_requested: float
    gpus_per_leaf: int
    up_per_leaf: int
    leaves_per_plane: int
    spines_per_plane: int
    bundle: int

    @property
    def tiers(self) -> int:
        """1 (leaves only) or 2 (leaves and spines)."""
        return 1 if self.spines_per_plane == 0 else 2

    @property
    def leaves(self) -> int:
        """Leaf chips in all planes."""
        return self.links_per_gpu * self.leaves_per_plane

    @property
    def spines(self) -> int:
        """Spine chips in all planes."""
        return self.links_per_gpu * self.spines_per_plane

    @property
    def switch_chips(self) -> int:
        """Leaf + spine chips."""
        return self.leaves + self.spines

    @property
    def gpu_cables(self) -> int:
        """GPU-leaf NVLinks (one per GPU link)."""
        return self.n_gpus * self.links_per_gpu

    @property
    def spine_cables(self) -> int:
        """Leaf-spine NVLinks."""
        return self.leaves * self.up_per_leaf

    @property
    def cables(self) -> int:
        """Every NVLink of the fabric, counted once."""
        return self.gpu_cables + self.spine_cables

    @property
    def taper(self) -> float:
        """The built leaf down:up ratio ``g / u`` (1 for a one-tier design: nothing is shared)."""
        return 1.0 if self.tiers == 1 else self.gpus_per_leaf / self.up_per_leaf

    @property
    def link_bw_per_dir(self) -> float:
        """bytes/s per direction of one NVLink of the chosen generation."""
        return specs.nvlink(self.nvlink_generation).link_bw_per_dir

    @property
    def gpu_bw_per_dir(self) -> float:
        """bytes/s per direction a GPU injects (links x link rate)."""
        return self.links_per_gpu * self.link_bw_per_dir

    @property
    def bisection_bw_bidir(self) -> float:
        """Closed-form bisection, bytes/s both directions summed (module docstring)."""
        return self.n_gpus * self.gpu_bw_per_dir * min(1.0, 1.0 / self.taper)

    @property
    def gpu(self) -> str:
        """Catalogue GPU of the generation."""
        return generation_gpu(self.nvlink_generation)

    @property
    def label(self) -> str:
        """One line: GPUs, generation, chips, radix, taper."""
        return (f"{self.n_gpus} GPUs x {self.links_per_gpu} NVLink {self.nvlink_generation} "
                f"links, {self.radix}-port chips, {self.tiers} tier"
                f"{'s' if self.tiers > 1 else ''}, taper {self.taper:.3g}:1")

    def build(self) -> Topology:
        """The fabric as a Topology (GPU ``i`` in box ``i // g``; ``leaf{p}.{j}`` tier 1,
        ``spine{p}.{s}`` tier 2, ``plane`` = ``p``). Latencies as in the catalogue's fabrics:
        an NVLink hop, plus the NVSwitch traversal on links leaving a switch."""
        bw = self.link_bw_per_dir
        hop = specs.latency("nvlink_hop")
        down = hop + specs.latency("nvswitch_traversal")
        b = FabricBuilder()
        g = self.gpus_per_leaf
        gpus = [b.gpu(f"gpu{i}", box=i // g) for i in range(self.n_gpus)]
        for p in range(self.links_per_gpu):
            leaves = []
            for j in range(self.leaves_per_plane):
                leaf = b.node(NODE_NVSWITCH, f"leaf{p}.{j}", box=j, tier=1, plane=p)
                leaves.append(leaf)
                for gid in gpus[j * g:(j + 1) * g]:
                    b.cable(gid, leaf, bw_per_dir=bw, kind=LINK_NVLINK, latency_ab=hop,
                            latency_ba=down)
            for s in range(self.spines_per_plane):
                spine = b.node(NODE_NVSWITCH, f"spine{p}.{s}", tier=2, plane=p)
                for leaf in leaves:
                    b.cable(leaf, spine, bw_per_dir=self.bundle * bw, kind=LINK_NVLINK_NETWORK,
                            count=self.bundle, latency_ab=down)
        return b.build(f"designed domain ({self.label})", gpu=self.gpu)


def plan_domain(n_gpus: int, radix: int, links_per_gpu: int, taper: float = 1.0,
                nvlink_generation: int = 4) -> DomainPlan:
    """Plan a plane-aligned one- or two-tier NVLink domain (module docstring).

    Parameters
    ----------
    n_gpus : int
        GPUs (>= 2).
    radix : int
        Ports per switch chip (>= 2): 64 for NVSwitch 3, 72 for NVSwitch 4.
    links_per_gpu : int
        NVLinks per GPU (= planes), >= 1.
    taper : float
        Leaf down:up ratio (>= 1; 1 = non-blocking). Ignored when one tier suffices.
    nvlink_generation : int
        Sets the link rate and the GPU (NCCL's constants): 4 (H100) or 5 (B200).

    Returns
    -------
    DomainPlan

    Raises
    ------
    ValueError
        Bad inputs, or a design that would need a third tier (the message says the largest
        GPU count two tiers reach with these chips).

    Examples
    --------
    >>> d = plan_domain(256, radix=64, links_per_gpu=18, taper=2.0)
    >>> d.gpus_per_leaf, d.up_per_leaf, d.taper, d.spines
    (32, 16, 2.0, 36)
    """
    n = check_count(n_gpus, "n_gpus", 2)
    r = check_count(radix, "radix", 2)
    links = check_count(links_per_gpu, "links_per_gpu", 1)
    t = check_rate(taper, "taper")
    if t < 1:
        raise ValueError(f"taper must be >= 1 (leaf down ports / up ports; 1 is non-blocking), "
                         f"got {t}")
    generation_gpu(nvlink_generation)
    gen = int(nvlink_generation)
    if n <= r:
        return DomainPlan(n, r, links, gen, t, n, 0, 1, 0, 0)
    g_max = max((g for g in range(1, r) if g + math.ceil(g / t) <= r), default=0)
    g = max((d for d in _divisors(n) if d <= g_max), default=0)
    if g < 2:
        raise ValueError(f"no leaf of {r} ports can take at least 2 of the {n} GPUs with a "
                         f"{t:g}:1 taper; use a GPU count with a divisor <= {g_max}")
    u = math.ceil(g / t)
    leaves_pp = n // g
    fits = [k for k in _divisors(u) if leaves_pp * k <= r]
    if not fits:
        largest = r * g_max
        raise ValueError(
            f"{n} GPUs need {leaves_pp} leaves per plane ({g} GPUs each), but a {r}-port spine "
            f"reaches at most {r} leaves: two tiers of {r}-port chips hold at most {largest} "
            f"GPUs at a {t:g}:1 taper; use fewer GPUs, a larger taper or a larger radix "
            "(a third tier is not modelled)")
    k = max(fits)
    return DomainPlan(n, r, links, gen, t, g, u, leaves_pp, u // k, k)


def design_space(n_gpus: int, radix: int, links_per_gpu: int,
                 nvlink_generation: int = 4) -> list[DomainPlan]:
    """Every distinct plan :func:`plan_domain` can make for these GPUs and chips, over all
    tapers (each achievable ``g / u``), sorted by switch chips then cables.

    Parameters
    ----------
    n_gpus : int
        GPUs in the domain; >= 2.
    radix : int
        Ports of one switch chip; >= 2.
    links_per_gpu : int
        NVLinks per GPU (= planes).
    nvlink_generation : int
        Catalogue NVLink generation (the link rate).

    Returns
    -------
    list of DomainPlan

    Examples
    --------
    >>> plans = design_space(128, 64, 18)
    >>> plans[0].switch_chips <= plans[-1].switch_chips
    True
    """
    n = check_count(n_gpus, "n_gpus", 2)
    r = check_count(radix, "radix", 2)
    seen: dict[tuple[int, int, int, int], DomainPlan] = {}
    tapers = {1.0} if n <= r else {g / u for g in _divisors(n) if g < r
                                   for u in range(1, min(g, r - g) + 1)}
    for t in sorted(tapers):
        try:
            d = plan_domain(n, r, links_per_gpu, t, nvlink_generation)
        except ValueError:
            continue
        seen.setdefault((d.gpus_per_leaf, d.up_per_leaf, d.spines_per_plane, d.bundle), d)
    return sorted(seen.values(), key=lambda d: (d.switch_chips, d.cables, d.taper))


def cheapest_design(n_gpus: int, radix: int, links_per_gpu: int, min_bisection_bidir: float,
                    nvlink_generation: int = 4) -> DomainPlan:
    """The plan with the fewest switch chips (then fewest cables) whose closed-form bisection
    (both directions) is at least ``min_bisection_bidir`` bytes/s.

    Parameters
    ----------
    n_gpus, radix, links_per_gpu, nvlink_generation
        As :func:`design_space`.
    min_bisection_bidir : float
        Required bisection bandwidth, bytes/s summed over both directions; > 0.

    Returns
    -------
    DomainPlan
        ValueError if no plan reaches the target.

    Examples
    --------
    >>> d = cheapest_design(256, 64, 18, 50e12)
    >>> d.bisection_bw_bidir >= 50e12
    True
    """
    target = check_rate(min_bisection_bidir, "min_bisection_bidir")
    ok = [d for d in design_space(n_gpus, radix, links_per_gpu, nvlink_generation)
          if d.bisection_bw_bidir >= target]
    if not ok:
        raise ValueError(f"no design of {n_gpus} GPUs on {radix}-port chips reaches "
                         f"{target / 1e12:g} TB/s of bisection (both directions)")
    return ok[0]
