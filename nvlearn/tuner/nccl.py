"""An algorithm chooser in the spirit of NCCL's tuner: price every candidate, take the cheapest.

NCCL does not try algorithms out. When a communicator is set up it fills a table with a
predicted latency and bandwidth for every (algorithm, protocol) pair (``ncclTopoTuneModel``,
``src/graph/tuning.cc``); for each call it predicts

    time = latency + n_bytes / algBw                      (ncclTopoGetAlgoTime)

for every enabled pair and runs the one with the smallest time (``src/enqueue.cc``). This
module rebuilds that table from the catalogue's NCCL constants (:func:`nvlearn.specs.nccl`,
each with its source), for a fabric read off a :class:`~nvlearn.topology.Topology`, and
shows it — so a learner sees *why* the choice flips as messages grow.

Kept from NCCL's model
----------------------
* **Candidates.** Ring; Tree (NCCL's double binary tree across nodes, a chain inside a node);
  NVLS (NVLink SHARP, in-switch reduction inside one NVLink domain); NVLSTree (NVLS inside
  each node, a tree across nodes). Protocols LL, LL128, Simple; NVLS and NVLSTree run only
  Simple, LL128 only where every path is NVLink-class (NCCL's default), NVLS only with an
  NVSwitch and an ``nvlsEfficiency`` > 0 (Hopper and later), NVLSTree only across nodes.
* **Latency** (``baseLat`` + per-step ``hwLat``; ``nsteps`` = 2(p-1) for all-reduce, p-1 for
  all-gather / reduce-scatter; ``nInter`` = the steps that cross a node boundary)::

      Ring      base + (nsteps - nInter) * intraLat + nInter * interLat
      Tree      base + 2 * ((ppn - 1) * intraLat + floor(log2 nodes) * interLat)
      NVLS      intraLat                                    (replaces the base)
      NVLSTree  base + intraLat + 2 * floor(log2 nodes) * interLat

  ``interLat`` comes from the Tree row when there is one GPU per node, as in NCCL.
* **Bandwidth.** A protocol costs the share of the wire that is not data: LL sends 8 data
  bytes in every 16-byte line (x 0.5, and at most ``llMaxBws``), LL128 120 in every 128,
  Simple all of it. NVLS: ``bwIntra x nvlsEfficiency x 2`` for all-reduce ("AllReduce
  pipelines two operations"), ``x (ppn-1)/ppn`` otherwise; NVLSTree: the smaller of that and
  the network (doubled on two nodes). Bus to algorithm bandwidth: Ring, NVLS, NVLSTree
  ``x nRanks / nsteps`` (nccl-tests' busbw factor, inverted), Tree ``x 0.5``; NVLS
  all-gather / reduce-scatter are not converted (NCCL's rule).
* **Choice.** The enabled pair with the smallest predicted time.

Simplified, and said so
-----------------------
* **Channels.** NCCL's topology search picks a channel count and a per-channel bandwidth;
  here the bus bandwidth is the aggregate: a GPU's NVLinks x NCCL's achievable per-link
  rate (``SM90_NVLINK_BW``, 20.6 GB/s on H100, the figure NCCL's topology gives an NVLink),
  the topology's capacity for PCIe, and for the network the node's total (each ring or tree
  channel crosses a node boundary once, so ``nChannels x bwInter`` is the node's network
  bandwidth). The per-channel caps (``perChMax*``) and NVLS's ``(nCh-1)/nCh`` are applied only
  if you pass ``channels``. With more than one node NCCL's search keeps a channel within
  both the intra- and inter-node rate; we take ``min(bw_intra, bw_inter)``.
* **NCCL's empirical corrections are left out**, because the catalogue holds sourced
  constants, not fits: LL128's 0.92 (its own comment says "120/128"; we use 120/128), Tree's
  0.92, Tree/LL's 1/3.8 (we use LL's 0.5), Tree/LL128's 7/9 on one node, x0.85 for a real
  tree, the size-dependent tree correction table (0.4-1.0 between 64 B and 256 MB), the
  ring-Simple "plateau" x1.4 across nodes, the per-step network overhead (1-2 us by CPU) and
  the graph's ``latencyInter``. CollNet (IB SHARP through a plugin) and PAT are not
  candidates. One call at a time (``latCount`` = 1); NCCL's reduction of channels and threads
  for small messages is not modelled.
* **A multi-node NVLink domain** (the 256-GPU pod) counts as one node by default: NCCL fuses
  the topology of a multi-node NVLink clique (MNNVL) into one system. Pass
  ``ranks_per_node=8`` to see the 32-node view, with NVLink per-step latencies across boxes.

So the table is NCCL's *model*, not a measurement: it exists to rank candidates. One of its
figures cannot be right: NCCL prices NVLS all-reduce at ``2 x bwIntra x nvlsEfficiency``
(630 GB/s busBw on 8 H100s), above what any schedule can reach when every GPU must send and
receive ``n (1 + 1/p)`` (at most ``2 (p-1)/(p+1)`` x, 490 GB/s). The table caps NVLS at that
traffic bound (:func:`nvls_traffic_bound`) and keeps NCCL's own figure in
``Candidate.nccl_bus_bw``, so the choice — and the crossover sizes — are consistent with the
simulator's achievable model (:mod:`nvlearn.sim.models`); see notebook 04.

References
----------
NVIDIA NCCL 2.30.7, src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime),
src/enqueue.cc (selection), src/device.h (LL / LL128 line formats), src/graph/topo.h.
nccl-tests, doc/PERFORMANCE.md (algbw, busbw).
Z. Hu et al., "Demystifying NCCL: An In-depth Analysis of GPU Communication Protocols and
Algorithms", arXiv:2507.04786 (2025).

Examples
--------
>>> from nvlearn.topology import dgx_h100
>>> c = choose("allreduce", 2**10, dgx_h100())
>>> c.algorithm, c.protocol, round(c.best.latency * 1e6, 1)
('ring', 'll', 15.0)
>>> choose("allreduce", 2**30, dgx_h100()).algorithm
'nvls'
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nvlearn import specs
from nvlearn.topology import (
    LINK_ETH,
    LINK_IB,
    LINK_NVLINK,
    LINK_NVLINK_NETWORK,
    LINK_PCIE,
    NODE_NVSWITCH,
)
from nvlearn.units import format_bytes, format_time

__all__ = [
    "ALGORITHMS", "PROTOCOLS", "NCCL_NAMES", "BUILDERS", "SM", "LL_CPU_ROW", "Fabric",
    "fabric_from_topology", "Candidate", "format_size", "nvls_traffic_bound", "Crossover",
    "Tuning", "Choice", "tune", "choose", "source_notes",
]

#: Collectives the chooser prices, and NCCL's candidate algorithms for each.
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "allreduce": ("ring", "tree", "nvls", "nvls_tree"),
    "reduce_scatter": ("ring", "nvls"),
    "allgather": ("ring", "nvls"),
}
#: NCCL's protocols, in its table order.
PROTOCOLS: tuple[str, ...] = specs.PROTOCOLS
#: NCCL's display names.
NCCL_NAMES = {"ring": "Ring", "tree": "Tree", "nvls": "NVLS", "nvls_tree": "NVLSTree",
              "ll": "LL", "ll128": "LL128", "simple": "Simple"}
#: The :mod:`nvlearn.collectives` builder that runs each NCCL algorithm as a Schedule.
BUILDERS = {"ring": "ring", "tree": "nccl_tree", "nvls": "nvls",
            "nvls_tree": "hierarchical"}

# CUDA compute capability (x10) of each architecture's data-centre GPU (V100, A100, H100,
# B200): the key of NCCL's per-link NVLink bandwidth (SM<cc>_NVLINK_BW in topo.h).
SM = {"volta": 70, "ampere": 80, "hopper": 90, "blackwell": 100}
# NCCL reuses the first two rows of llMaxBws for the CPU vendor when there are several
# nodes (row 0 Intel, row 1 AMD / mixed); the catalogue keys its rows by architecture.
LL_CPU_ROW = {"intel": "volta", "amd": "ampere"}
_LINK_TYPE = {LINK_NVLINK: "nvlink", LINK_NVLINK_NETWORK: "nvlink", LINK_PCIE: "pci",
              LINK_IB: "net", LINK_ETH: "net"}


# --------------------------------------------------------------------------------------
# The fabric as NCCL's model sees it
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fabric:
    """What NCCL's tuning model needs to know about a fabric (SI units).

    Build it with :func:`fabric_from_topology`, or directly for a what-if.

    Attributes
    ----------
    name : str
    n_ranks, ranks_per_node : int
        GPUs in the communicator, and per node (``n_ranks`` must be a multiple).
    architecture : {"volta", "ampere", "hopper", "blackwell"}
    intra_link : {"nvlink", "pci"}
        How GPUs of one node reach each other (NCCL's ``hwLat`` row for intra steps).
    inter_link : {"nvlink", "net"} or None
        How nodes reach each other (None for one node). NVLink-network steps use NCCL's
        NVLink latencies.
    bw_intra : float
        Bytes/s per direction per GPU inside a node (NCCL's nChannels x bwIntra).
    bw_inter : float
        Bytes/s per direction out of one node (NCCL's nChannels x bwInter); 0 for one node.
    nvswitch : bool
        The GPUs of a node share an NVSwitch (NVLS needs it).
    cpu : {"intel", "amd"}
        Selects NCCL's multi-node LL cap row.
    derivation : tuple of str
        How each figure was obtained, with its source.

    Examples
    --------
    >>> f = Fabric("what-if", 8, 8, "hopper", "nvlink", None, 370.8e9, 0.0, True)
    >>> f.n_nodes
    1
    """

    name: str
    n_ranks: int
    ranks_per_node: int
    architecture: str
    intra_link: str
    inter_link: str | None
    bw_intra: float
    bw_inter: float
    nvswitch: bool
    cpu: str = "intel"
    derivation: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        for name in ("n_ranks", "ranks_per_node"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.n_ranks < 2:
            raise ValueError(f"a collective needs at least 2 ranks, got n_ranks={self.n_ranks}")
        if self.n_ranks % self.ranks_per_node:
            raise ValueError(
                f"n_ranks={self.n_ranks} is not a whole number of nodes of "
                f"{self.ranks_per_node}; use a multiple of ranks_per_node"
            )
        if self.architecture not in SM:
            raise ValueError(f"architecture must be one of {tuple(SM)}, "
                             f"got {self.architecture!r}")
        if self.intra_link not in ("nvlink", "pci"):
            raise ValueError(f"intra_link must be 'nvlink' or 'pci', got {self.intra_link!r}")
        if self.n_nodes > 1 and self.inter_link not in ("nvlink", "net"):
            raise ValueError(f"{self.n_nodes} nodes need inter_link 'nvlink' or 'net', "
                             f"got {self.inter_link!r}")
        if not (np.isfinite(self.bw_intra) and self.bw_intra > 0):
            raise ValueError(f"bw_intra must be > 0 bytes/s, got {self.bw_intra}")
        if self.n_nodes > 1 and not (np.isfinite(self.bw_inter) and self.bw_inter > 0):
            raise ValueError(f"bw_inter must be > 0 bytes/s across {self.n_nodes} nodes, "
                             f"got {self.bw_inter}")
        if self.cpu not in LL_CPU_ROW:
            raise ValueError(f"cpu must be one of {tuple(LL_CPU_ROW)}, got {self.cpu!r}")

    @property
    def n_nodes(self) -> int:
        """Nodes in the communicator."""
        return self.n_ranks // self.ranks_per_node


def _physical_nvlinks(topology, link_ids) -> int:
    return int(np.asarray(topology.link_count)[link_ids].sum())


def fabric_from_topology(topology, n_ranks: int | None = None, *,
                         ranks_per_node: int | None = None, gpu: str | None = None,
                         cpu: str = "intel", model: specs.NCCLModel | None = None) -> Fabric:
    """Read NCCL's view of a fabric off a Topology: link types and bandwidths per GPU / node.

    Parameters
    ----------
    topology : Topology
        e.g. ``dgx_h100()``, ``nvlink_pod()``, ``ib_cluster(nodes=4)``, ``pcie_box()``.
    n_ranks : int, optional
        GPUs in the communicator (the first ``n_ranks`` GPUs); default all.
    ranks_per_node : int, optional
        Default: the GPUs of one box, or — when boxes are joined by NVLink network (the
        pod) — the whole NVLink domain, as NCCL fuses a multi-node NVLink clique.
    gpu : str, optional
        Catalogue GPU; sets the architecture. Default: the topology's own (``topology.gpu``).
    cpu : {"intel", "amd"}
        NCCL picks its multi-node LL cap by CPU vendor.
    model : NCCLModel, optional
        Default ``specs.nccl()``.

    Returns
    -------
    Fabric
        Link types, per-GPU bandwidths (bytes/s per direction) and node counts as NCCL's
        tuning model reads them, with the derivation of each figure.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100, ib_cluster
    >>> f = fabric_from_topology(dgx_h100())
    >>> f.intra_link, round(f.bw_intra / 1e9, 1), f.n_nodes
    ('nvlink', 370.8, 1)
    >>> g = fabric_from_topology(ib_cluster(nodes=4))
    >>> g.inter_link, g.n_nodes, round(g.bw_inter / 1e9)
    ('net', 4, 400)
    >>> round(fabric_from_topology(dgx_h100("h800")).bw_intra / 1e9, 1)    # 8 NVLinks
    164.8
    """
    gpu = topology.gpu if gpu is None else gpu
    m = model or specs.nccl()
    g = specs.gpu(gpu)
    arch = g.architecture.lower()
    if arch not in SM:
        raise ValueError(f"NCCL's model has no architecture {g.architecture!r} ({gpu})")
    n_gpus = int(topology.n_gpus)
    p = n_gpus if n_ranks is None else n_ranks
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 2 <= p <= n_gpus:
        raise ValueError(f"n_ranks must be an integer from 2 to the {n_gpus} GPUs of "
                         f"{topology.name!r}, got {n_ranks!r}")
    p = int(p)
    lines: list[str] = []
    intra, bw_intra, nvswitch = _intra_view(topology, m, SM[arch], lines)
    ranks_per_node, inter, bw_inter = _inter_view(topology, p, ranks_per_node,
                                                  m.nvlink_bw(SM[arch]), lines)
    lines.append(f"architecture = {arch} ({g.name}); nvlsEfficiency = "
                 f"{m.nvls_efficiency(arch):g} ({m.where('nvls_efficiencies', arch)})"
                 if m.nvls_efficiency(arch) > 0 else
                 f"architecture = {arch} ({g.name}); no NVLS")
    return Fabric(topology.name, p, int(ranks_per_node), arch, intra, inter, float(bw_intra),
                  float(bw_inter), nvswitch, cpu, tuple(lines))


def _intra_view(topology, m: specs.NCCLModel, sm: int, lines: list[str]
                ) -> tuple[str, float, bool]:
    """GPU 0's link inside its node as NCCL sees it: ``(link type, bytes/s per direction,
    whether it reaches an NVSwitch)``; NVLinks count at NCCL's per-link rate for SM ``sm``.
    The derivation is appended to ``lines``."""
    src, dst = np.asarray(topology.link_src), np.asarray(topology.link_dst)
    kind = np.asarray(topology.link_kind)
    out = np.flatnonzero(src == int(topology.gpus[0]))
    nvl = out[kind[out] == LINK_NVLINK]
    nvswitch = bool(np.any(np.asarray(topology.node_kind)[dst[nvl]] == NODE_NVSWITCH))
    if nvl.size:
        n_links = _physical_nvlinks(topology, nvl)
        per_link = m.nvlink_bw(sm)
        bw_intra = n_links * per_link
        lines.append(f"bw_intra = {n_links} NVLinks per GPU (topology) x {per_link / 1e9:g} GB/s "
                     f"= {bw_intra / 1e9:.1f} GB/s per direction — NCCL's achievable per-link "
                     f"rate, {m.provenance[f'nvlink_bw_sm{sm}'].where}")
        return "nvlink", bw_intra, nvswitch
    pci = out[kind[out] == LINK_PCIE]
    if not pci.size:
        raise ValueError(f"GPU 0 of {topology.name!r} has neither NVLink nor PCIe links")
    bw_intra = float(np.asarray(topology.link_capacity)[pci].sum())
    lines.append(f"bw_intra = the GPU's PCIe link, {bw_intra / 1e9:.1f} GB/s per direction "
                 "(topology capacity)")
    return "pci", bw_intra, nvswitch


def _inter_view(topology, p: int, ranks_per_node: int | None, nvlink_bw: float,
                lines: list[str]) -> tuple[int, str | None, float]:
    """NCCL's nodes and the link between them: ``(ranks per node, link type or None, bytes/s
    per node per direction)``. Boxes joined by NVLink network form one NCCL node (MNNVL);
    ``nvlink_bw`` is NCCL's per-link NVLink rate. The derivation is appended to ``lines``."""
    src, dst = np.asarray(topology.link_src), np.asarray(topology.link_dst)
    kind, cap = np.asarray(topology.link_kind), np.asarray(topology.link_capacity)
    box = np.asarray(topology.node_box)
    gpu_box = box[np.asarray(topology.gpus)[:p]]
    b0 = int(gpu_box[0])
    per_box = int(np.sum(gpu_box == b0))
    leave = np.flatnonzero((box[src] == b0) & (box[dst] != b0))
    leave_kinds = {_LINK_TYPE[int(k)] for k in kind[leave]}
    nvlink_domain = leave.size > 0 and leave_kinds == {"nvlink"}
    if ranks_per_node is None:
        ranks_per_node = p if (nvlink_domain or per_box >= p) else per_box
        why = ("one NVLink domain = one NCCL node (MNNVL)" if nvlink_domain and per_box < p
               else "GPUs per box")
        lines.append(f"ranks_per_node = {ranks_per_node} ({why})")
    if ranks_per_node >= p:
        return ranks_per_node, None, 0.0
    if not leave.size:
        raise ValueError(f"{topology.name!r} has no links out of a box; use "
                         f"ranks_per_node >= n_ranks ({p})")
    if nvlink_domain:
        n_links = _physical_nvlinks(topology, leave)
        bw_inter = n_links * nvlink_bw * ranks_per_node / per_box
        lines.append(f"bw_inter = {n_links} NVLink-network links out of a box x "
                     f"{nvlink_bw / 1e9:g} GB/s x {ranks_per_node}/{per_box} GPUs = "
                     f"{bw_inter / 1e9:.1f} GB/s per node per direction")
        return ranks_per_node, "nvlink", bw_inter
    net = leave[np.isin(kind[leave], (LINK_IB, LINK_ETH))]
    bw_inter = float(cap[net].sum()) * ranks_per_node / per_box
    lines.append(f"bw_inter = {net.size} network links out of a box, "
                 f"{float(cap[net].sum()) / 1e9:.0f} GB/s x {ranks_per_node}/{per_box} "
                 f"GPUs = {bw_inter / 1e9:.1f} GB/s per node per direction (topology)")
    return ranks_per_node, "net", bw_inter


# --------------------------------------------------------------------------------------
# Candidates
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """One (algorithm, protocol) row of the table (seconds, bytes/s).

    ``enabled`` False rows carry the ``reason`` and no numbers (``nan``). ``latency_formula``
    and ``bw_formula`` show the arithmetic in NCCL's units (us, GB/s); ``sources`` names the
    :class:`~nvlearn.specs.NCCLModel` fields used. ``nccl_bus_bw`` is the bus bandwidth
    NCCL's own formula gives; ``bus_bw`` is that, capped at the algorithm's traffic bound
    (they differ only for NVLS all-reduce: see :func:`nvls_traffic_bound`).
    """

    algorithm: str
    protocol: str
    enabled: bool
    latency: float
    bus_bw: float
    alg_bw: float
    latency_formula: str = ""
    bw_formula: str = ""
    reason: str = ""
    sources: tuple[str, ...] = ()
    nccl_bus_bw: float = math.nan

    @property
    def label(self) -> str:
        """NCCL's name, e.g. ``"Ring/LL"``."""
        return f"{NCCL_NAMES[self.algorithm]}/{NCCL_NAMES[self.protocol]}"

    @property
    def builder(self) -> str:
        """The :func:`nvlearn.collectives.allreduce` algorithm that runs this as a Schedule."""
        return BUILDERS[self.algorithm]

    def time(self, n_bytes):
        """Predicted time (s) for ``n_bytes`` (scalar or array): latency + bytes / algBw."""
        if not self.enabled:
            return np.full(np.shape(n_bytes), np.inf) if np.ndim(n_bytes) else math.inf
        return self.latency + np.asarray(n_bytes, dtype=np.float64) / self.alg_bw \
            if np.ndim(n_bytes) else self.latency + float(n_bytes) / self.alg_bw


def format_size(n_bytes: float) -> str:
    """Bytes in binary units with three significant digits: ``"855 KiB"``, ``"1.5 GiB"``
    (:func:`nvlearn.units.format_bytes` with ``binary=True``).

    Examples
    --------
    >>> format_size(2**20), format_size(1037866), format_size(3 * 2**29)
    ('1 MiB', '0.99 MiB', '1.5 GiB')
    """
    return format_bytes(n_bytes, binary=True)


def _us(x: float) -> str:
    return f"{x * 1e6:g}"


def _gbs(x: float) -> str:
    return f"{x / 1e9:.4g}"


def _disabled(algo: str, proto: str, reason: str) -> Candidate:
    nan = math.nan
    return Candidate(algo, proto, False, nan, nan, nan, reason=reason)


def _lat_field(link: str, algo: str) -> str:
    """The ``hw_latencies`` entry a latency reads (its protocol column aside)."""
    return f"hw_latencies[{link}][{algo}]"


@dataclass(frozen=True)
class _Term:
    """A number and the arithmetic that made it, built together so a formula is written once
    (``value`` in SI units; ``text`` in NCCL's units, us or GB/s)."""

    value: float
    text: str

    @classmethod
    def us(cls, seconds: float) -> _Term:
        return cls(seconds, _us(seconds))

    @classmethod
    def gbs(cls, rate: float) -> _Term:
        return cls(rate, _gbs(rate))

    @classmethod
    def n(cls, k: float, text: str | None = None) -> _Term:
        return cls(k, f"{k:g}" if text is None else text)

    def __add__(self, other: _Term) -> _Term:
        return _Term(self.value + other.value, f"{self.text} + {other.text}")

    def __mul__(self, other: _Term) -> _Term:
        return _Term(self.value * other.value, f"{self.text} x {other.text}")

    def paren(self) -> _Term:
        return _Term(self.value, f"({self.text})")

    def min(self, other: _Term) -> _Term:
        return _Term(min(self.value, other.value), f"min({self.text}, {other.text})")


def _why_disabled(algo: str, proto: str, f: Fabric, m: specs.NCCLModel,
                  channels: int | None) -> str | None:
    """Why NCCL would not run (algo, proto) on ``f`` (None: it would)."""
    if algo in ("nvls", "nvls_tree") and proto != "simple":
        return "NVLS runs only the Simple protocol"
    if proto == "ll128" and f.intra_link != "nvlink":
        return "LL128 is on by default only on NVLink paths (it needs 128-byte store ordering)"
    if algo in ("nvls", "nvls_tree"):
        if not f.nvswitch or m.nvls_efficiency(f.architecture) <= 0:
            return ("needs NVLink SHARP: an NVSwitch of the third generation or later "
                    "(Hopper+)")
        if channels is not None and channels < 2:
            return "NVLS needs at least 2 channels"
    if algo == "nvls" and f.n_nodes > 1:
        return "NVLS across nodes needs CollNet (IB SHARP), not modelled; NVLSTree covers it"
    if algo == "nvls_tree" and f.n_nodes == 1:
        return "NVLSTree is for several nodes (disabled on one)"
    return None


def _latency(coll: str, algo: str, proto: str, f: Fabric, m: specs.NCCLModel,
             used: list[str]) -> _Term:
    """NCCL's latency of (algo, proto) (tuning.cc), with its arithmetic."""
    p, ppn, nodes = f.n_ranks, f.ranks_per_node, f.n_nodes
    nsteps = 2 * (p - 1) if coll == "allreduce" else p - 1
    n_inter = 0 if nodes == 1 else (2 * (nodes - 1) if coll == "allreduce" else nodes - 1)
    base = _Term.us(m.base_latency(algo, proto))
    intra = _Term.us(m.hw_latency(f.intra_link, algo, proto))
    used += [f"base_latencies[{algo}]", _lat_field(f.intra_link, algo)]
    inter = _Term.us(0.0)
    if nodes > 1:
        row = "tree" if ppn == 1 else algo            # NCCL's rule for one GPU per node
        inter = _Term.us(m.hw_latency(f.inter_link, row, proto))
        used.append(_lat_field(f.inter_link, row))
    log_nodes = _Term.n(int(math.floor(math.log2(nodes))))
    if algo == "ring":
        lat = base + _Term.n(nsteps - n_inter) * intra
        if n_inter:
            lat = lat + _Term.n(n_inter) * inter
    elif algo == "tree":
        chain = _Term.n(ppn - 1) * intra
        if nodes > 1:
            chain = chain + log_nodes * inter
        lat = base + _Term.n(2) * chain.paren()
    elif algo == "nvls":
        used.remove(f"base_latencies[{algo}]")        # NVLS's latency replaces the base
        lat = intra
    else:  # nvls_tree
        lat = base + intra + _Term.n(2) * log_nodes * inter
    return _Term(lat.value, f"{lat.text} = {lat.value * 1e6:.4g} us")


def _bus_bw(coll: str, algo: str, proto: str, f: Fabric, m: specs.NCCLModel,
            channels: int | None, used: list[str]) -> _Term:
    """NCCL's bus bandwidth of (algo, proto) (ncclTopoTuneModel), with its arithmetic."""
    ppn, nodes, arch = f.ranks_per_node, f.n_nodes, f.architecture
    intra = _Term.gbs(f.bw_intra)
    bw = intra if nodes == 1 else intra.min(_Term.gbs(f.bw_inter))

    def per_channel_cap(table: str) -> _Term:
        cap = m.bw_cap(table, arch, nodes)
        used.append(f"{table}[{arch}]")
        return _Term.n(channels) * _Term.gbs(cap) if channels is not None else None

    if algo in ("nvls", "nvls_tree"):
        used.append(f"nvls_efficiencies[{arch}]")
        bw = intra * _Term.n(m.nvls_efficiency(arch))
        if channels is not None:
            bw = bw * _Term.n((channels - 1) / channels, f"{channels - 1}/{channels}")
        bw = bw * (_Term.n(2) if coll == "allreduce"
                   else _Term.n((ppn - 1) / ppn, f"{ppn - 1}/{ppn}"))
        if algo == "nvls_tree":
            inter = _Term.gbs(f.bw_inter)
            bw = bw.min(inter * _Term.n(2) if nodes <= 2 else inter)
            if channels is not None:
                bw = bw.min(per_channel_cap("per_ch_max_nvls_tree_bws"))
        return bw
    table = None
    if proto == "ll":
        used += ["ll_data_bytes", "ll_line_bytes"]
        row = arch if nodes == 1 else LL_CPU_ROW[f.cpu]
        used.append(f"ll_max_bws[{row}]")
        bw = (bw * _Term.n(m.ll_data_fraction)).min(
            _Term.gbs(m.bw_cap("ll_max_bws", row, nodes)))
    elif proto == "ll128":
        used += ["ll128_data_bytes", "ll128_line_bytes"]
        bw = bw * _Term.n(m.ll128_data_fraction,
                          f"{m.ll128_data_bytes}/{m.ll128_line_bytes}")
        table = "per_ch_max_ring_ll128_bws" if algo == "ring" else "per_ch_max_tree_ll128_bws"
    elif algo == "tree":
        table = "per_ch_max_tree_bws"
    if table is not None and channels is not None:
        bw = bw.min(per_channel_cap(table))
    return bw


def _candidate(coll: str, algo: str, proto: str, f: Fabric, m: specs.NCCLModel,
               channels: int | None) -> Candidate:
    reason = _why_disabled(algo, proto, f, m, channels)
    if reason is not None:
        return _disabled(algo, proto, reason)
    p, ppn = f.n_ranks, f.ranks_per_node
    used: list[str] = []
    lat = _latency(coll, algo, proto, f, m, used)
    bw = _bus_bw(coll, algo, proto, f, m, channels, used)
    nccl_bus_bw = bus_bw = bw.value
    bw_f = bw.text
    if algo in ("nvls", "nvls_tree") and coll == "allreduce":
        eff = m.nvls_efficiency(f.architecture)
        bound = nvls_traffic_bound(p, ppn, f.bw_intra * eff)
        if bound < bus_bw:
            bus_bw = bound
            bw_f += (f" = {_gbs(nccl_bus_bw)} (NCCL), capped at the traffic bound "
                     f"2 x {p - 1}/{p} x {ppn}/{ppn + 1} x {_gbs(f.bw_intra)} x {eff:g}")
    nsteps = 2 * (p - 1) if coll == "allreduce" else p - 1
    if algo == "tree":
        alg_bw, conv = bus_bw * 0.5, " x 0.5"
    elif algo == "nvls" and coll != "allreduce":
        alg_bw, conv = bus_bw, ""
    else:
        alg_bw, conv = bus_bw * p / nsteps, f" x {p}/{nsteps}"
    bw_f = f"busBw {bw_f} = {_gbs(bus_bw)}; algBw = {_gbs(bus_bw)}{conv} = {_gbs(alg_bw)} GB/s"
    return Candidate(algo, proto, True, lat.value, bus_bw, alg_bw, lat.text, bw_f, "",
                     tuple(dict.fromkeys(used)), nccl_bus_bw)


def nvls_traffic_bound(n_ranks: int, ranks_per_node: int, gpu_bw: float) -> float:
    """Highest busbw (bytes/s) an NVLS all-reduce can reach with ``gpu_bw`` per GPU.

    Inside an NVSwitch domain of ``q`` GPUs each GPU sends, and receives, ``n (1 + 1/q)``
    bytes (its copy of every shard up to the switch, its reduced shard, then the multicast
    result; :func:`nvlearn.collectives.volume.nvls_allreduce_bytes_per_rank`), so
    ``t >= n (1 + 1/q) / gpu_bw`` and busbw = ``2 (p-1)/p x n / t`` is at most
    ``2 (p-1)/p x q/(q+1) x gpu_bw`` — ``2 (p-1)/(p+1)`` x on one node (1.56 x at p = 8).
    NCCL's model prices NVLS at ``2 x gpu_bw`` ("AllReduce pipelines two operations"),
    which no schedule can reach; the table keeps NCCL's figure in ``nccl_bus_bw``.

    Parameters
    ----------
    n_ranks : int
        Ranks p of the all-reduce (sets the busbw factor ``2 (p-1)/p``).
    ranks_per_node : int
        GPUs q in one NVSwitch domain.
    gpu_bw : float
        Each GPU's NVLink bandwidth to the switch, bytes/s per direction (after any efficiency
        factor the caller applies, e.g. ``nvlsEfficiency``).

    Returns
    -------
    float
        The busbw bound, bytes/s.

    Examples
    --------
    >>> round(nvls_traffic_bound(8, 8, 370.8e9 * 0.85) / 1e9, 1)     # GB/s on a DGX H100
    490.3
    """
    from nvlearn.collectives.metrics import busbw_factor
    from nvlearn.collectives.volume import nvls_allreduce_bytes_per_rank

    q = int(ranks_per_node)
    return busbw_factor("allreduce", int(n_ranks)) * gpu_bw / nvls_allreduce_bytes_per_rank(q, 1.0)


# --------------------------------------------------------------------------------------
# The table, a choice, crossovers
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Crossover:
    """The size (bytes) above which ``to`` is predicted faster than ``frm``."""

    n_bytes: float
    frm: Candidate
    to: Candidate

    def __str__(self) -> str:
        return f"{self.frm.label} -> {self.to.label} at {format_size(self.n_bytes)}"


@dataclass(frozen=True)
class Tuning:
    """NCCL's size-independent table for one collective on one fabric.

    ``candidates`` in NCCL's order (algorithm-major). Evaluate at a size with :meth:`at`.
    """

    collective: str
    fabric: Fabric
    candidates: tuple[Candidate, ...]
    channels: int | None
    nccl_version: str

    @property
    def enabled(self) -> tuple[Candidate, ...]:
        """The candidates NCCL would consider."""
        return tuple(c for c in self.candidates if c.enabled)

    def times(self, n_bytes) -> np.ndarray:
        """Predicted times, shape ``(len(candidates),) + shape(n_bytes)`` (inf if disabled)."""
        x = _check_sizes(n_bytes)
        return np.stack([np.asarray(c.time(x), dtype=np.float64) for c in self.candidates])

    def algorithm_times(self, algorithm: str, n_bytes) -> np.ndarray:
        """Predicted time of ``algorithm`` at its best protocol, over ``n_bytes`` (inf if it
        has no enabled protocol).

        Examples
        --------
        >>> from nvlearn.topology import dgx_h100
        >>> t = tune("allreduce", dgx_h100())
        >>> round(float(t.algorithm_times("ring", [2**10])[0]) * 1e6, 1)    # Ring/LL, us
        15.0
        """
        if algorithm not in ALGORITHMS[self.collective]:
            raise ValueError(f"{algorithm!r} is not a {self.collective} candidate; choose "
                             f"from {ALGORITHMS[self.collective]}")
        rows = [i for i, c in enumerate(self.candidates) if c.algorithm == algorithm]
        return np.min(self.times(n_bytes)[rows], axis=0)

    def best(self, n_bytes) -> Candidate:
        """The cheapest enabled candidate at ``n_bytes`` (ties: NCCL's table order)."""
        t = self.times(float(_check_sizes(n_bytes)))
        return self.candidates[int(np.argmin(t))]

    def at(self, n_bytes: float) -> Choice:
        """The choice at one size, with every candidate's predicted time."""
        x = float(_check_sizes(n_bytes))
        t = self.times(x)
        return Choice(self, x, self.candidates[int(np.argmin(t))], tuple(float(v) for v in t))

    def crossovers(self, lo: float = 1.0, hi: float = float(2**40)) -> tuple[Crossover, ...]:
        """Where the choice changes between ``lo`` and ``hi`` bytes, in increasing size.

        Each candidate's time is a line in ``n`` (``latency + n / algBw``), so the choice is
        the lower envelope of lines: as ``n`` grows it can only move to candidates with a
        higher ``algBw`` (and a higher latency). Exact, no sampling.

        Examples
        --------
        >>> from nvlearn.topology import dgx_h100
        >>> [str(x) for x in tune("allreduce", dgx_h100()).crossovers()]
        ['Ring/LL -> NVLS/Simple at 1.08 MiB']
        """
        lo, hi = float(_check_sizes(lo)), float(_check_sizes(hi))
        if not hi > lo:
            raise ValueError(f"hi ({hi}) must exceed lo ({lo}) bytes")
        out: list[Crossover] = []
        cur = self.best(lo)
        x = lo
        while True:
            nxt, at = None, math.inf
            for c in self.enabled:
                if c.alg_bw <= cur.alg_bw:
                    continue
                # lat_c + n/bw_c = lat_cur + n/bw_cur
                n = (c.latency - cur.latency) / (1.0 / cur.alg_bw - 1.0 / c.alg_bw)
                if n > x and (n < at or (n == at and c.alg_bw > nxt.alg_bw)):
                    nxt, at = c, n
            if nxt is None or at >= hi:
                return tuple(out)
            out.append(Crossover(at, cur, nxt))
            cur, x = nxt, at


def _check_sizes(n_bytes):
    x = np.asarray(n_bytes, dtype=np.float64)
    if not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ValueError(f"n_bytes must be a positive, finite number of bytes, got {n_bytes!r}")
    return x


@dataclass(frozen=True)
class Choice:
    """NCCL-style choice at one size: the winner and every candidate's predicted time."""

    tuning: Tuning
    n_bytes: float
    best: Candidate
    times: tuple[float, ...]

    @property
    def algorithm(self) -> str:
        """Winning algorithm (NCCL name in lower case: "ring", "tree", "nvls", "nvls_tree")."""
        return self.best.algorithm

    @property
    def protocol(self) -> str:
        """Winning protocol: "ll", "ll128" or "simple"."""
        return self.best.protocol

    @property
    def time(self) -> float:
        """Predicted time of the winner, s."""
        return min(self.times)

    def rows(self) -> list[tuple[Candidate, float]]:
        """``(candidate, time)`` sorted fastest first; disabled candidates last."""
        order = sorted(range(len(self.times)), key=lambda i: (self.times[i], i))
        return [(self.tuning.candidates[i], self.times[i]) for i in order]

    def _header(self) -> str:
        f = self.tuning.fabric
        nodes = (f"{f.n_nodes} nodes x {f.ranks_per_node}" if f.n_nodes > 1
                 else "one node")
        return (f"{self.tuning.collective} of {format_size(self.n_bytes)} on "
                f"{f.n_ranks} GPUs of {f.name} ({nodes}); NCCL {self.tuning.nccl_version} "
                f"model -> {self.best.label}, {format_time(self.time)}")

    def to_markdown(self, formulas: bool = True) -> str:
        """The table as Markdown (fastest first; ``formulas`` adds the arithmetic)."""
        head = "| | algorithm/protocol | predicted time | latency (us) | busBw (GB/s) | " \
               "algBw (GB/s) |" + (" how |" if formulas else "")
        rule = "|---|---|---:|---:|---:|---:|" + ("---|" if formulas else "")
        lines = [self._header(), "", head, rule]
        for c, t in self.rows():
            mark = "**>**" if c is self.best else ""
            if c.enabled:
                cells = [mark, c.label, format_time(t), f"{c.latency * 1e6:.1f}",
                         f"{c.bus_bw / 1e9:.1f}", f"{c.alg_bw / 1e9:.1f}"]
                how = f"lat {c.latency_formula}; {c.bw_formula}"
            else:
                cells = [mark, c.label, "—", "", "", ""]
                how = f"off: {c.reason}"
            lines.append("| " + " | ".join(cells) + " |" + (f" {how} |" if formulas else ""))
        return "\n".join(lines)

    def to_html(self, formulas: bool = True, max_rows: int | None = None) -> str:
        """The table as an HTML fragment (winner highlighted; ``max_rows`` trims it)."""
        rows = self.rows()
        if max_rows is not None:
            rows = rows[:max_rows]
        th = ("<tr><th></th><th>algorithm/protocol</th><th>predicted time</th>"
              "<th>latency (µs)</th><th>busBw (GB/s)</th><th>algBw (GB/s)</th>"
              + ("<th style='text-align:left'>how</th>" if formulas else "") + "</tr>")
        body = []
        for c, t in rows:
            win = c is self.best
            style = " style='background:#e8f5d0;font-weight:bold'" if win else (
                "" if c.enabled else " style='color:#999'")
            if c.enabled:
                cells = [format_time(t), f"{c.latency * 1e6:.1f}", f"{c.bus_bw / 1e9:.1f}",
                         f"{c.alg_bw / 1e9:.1f}"]
                how = f"latency {c.latency_formula}<br>{c.bw_formula}"
            else:
                cells = ["—", "", "", ""]
                how = f"off: {c.reason}"
            tds = "".join(f"<td style='text-align:right'>{v}</td>" for v in cells)
            how_td = (f"<td style='text-align:left;font-size:85%'>{html.escape(how)}</td>"
                      .replace("&lt;br&gt;", "<br>") if formulas else "")
            body.append(f"<tr{style}><td>{'&#9654;' if win else ''}</td>"
                        f"<td>{html.escape(c.label)}</td>{tds}{how_td}</tr>")
        return (f"<div><b>{html.escape(self._header())}</b>"
                f"<table style='border-collapse:collapse;font-size:90%'>{th}"
                f"{''.join(body)}</table></div>")

    def _repr_html_(self) -> str:
        return self.to_html()

    def __str__(self) -> str:
        return self.to_markdown(formulas=False)


# --------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------

def _fabric(fabric_or_topology, model: specs.NCCLModel, fabric_kw) -> Fabric:
    if isinstance(fabric_or_topology, Fabric):
        if fabric_kw:
            raise ValueError(f"options {sorted(fabric_kw)} apply to a Topology, not a Fabric")
        return fabric_or_topology
    if not hasattr(fabric_or_topology, "n_gpus"):
        raise ValueError("pass a Topology (e.g. dgx_h100()) or a tuner.Fabric, got "
                         f"{type(fabric_or_topology).__name__}")
    return fabric_from_topology(fabric_or_topology, model=model, **fabric_kw)


def tune(collective: str, fabric_or_topology, *, channels: int | None = None,
         algorithms: Sequence[str] | None = None, protocols: Sequence[str] | None = None,
         model: specs.NCCLModel | None = None, **fabric_kw) -> Tuning:
    """NCCL's cost table (latency, busBw, algBw per candidate) for ``collective``.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The collective NCCL would run.
    fabric_or_topology : Fabric or Topology
        The fabric; a Topology is read by :func:`fabric_from_topology`.
    channels : int, optional
        NCCL's channel count; applies the per-channel caps and NVLS's (nCh-1)/nCh.
    algorithms, protocols : sequence of str, optional
        Allow only these (what ``NCCL_ALGO`` / ``NCCL_PROTO`` do); the rest stay in the table,
        switched off.
    model : NCCLModel, optional
        Default ``specs.nccl()``.
    **fabric_kw
        ``n_ranks``, ``ranks_per_node``, ``gpu``, ``cpu`` for :func:`fabric_from_topology`.

    Returns
    -------
    Tuning
        Every (algorithm, protocol) candidate's latency (s) and bus / algorithm bandwidth
        (bytes/s); ``.at(n_bytes)`` prices them at a size.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> t = tune("allreduce", dgx_h100())
    >>> [c.label for c in t.enabled]
    ['Ring/LL', 'Ring/LL128', 'Ring/Simple', 'Tree/LL', 'Tree/LL128', 'Tree/Simple', 'NVLS/Simple']
    """
    if collective not in ALGORITHMS:
        raise ValueError(f"unknown collective {collective!r}; the chooser prices "
                         f"{', '.join(ALGORITHMS)}")
    if channels is not None and (isinstance(channels, bool) or int(channels) != channels
                                 or channels < 1):
        raise ValueError(f"channels must be a positive integer or None, got {channels!r}")
    allowed_a = _allowed("algorithms", algorithms, ALGORITHMS[collective], collective)
    allowed_p = _allowed("protocols", protocols, PROTOCOLS, collective)
    m = model or specs.nccl()
    f = _fabric(fabric_or_topology, m, fabric_kw)
    cands = []
    for a in ALGORITHMS[collective]:
        for pr in PROTOCOLS:
            c = _candidate(collective, a, pr, f, m, channels)
            if c.enabled and (a not in allowed_a or pr not in allowed_p):
                c = _disabled(a, pr, "excluded by the algorithms / protocols arguments "
                              "(NCCL_ALGO / NCCL_PROTO)")
            cands.append(c)
    if not any(c.enabled for c in cands):
        raise ValueError(f"no candidate is left for {collective} on {f.name!r} with "
                         f"algorithms={algorithms}, protocols={protocols}; allow more")
    return Tuning(collective, f, tuple(cands), channels, m.version)


def _allowed(what: str, names, valid: tuple[str, ...], collective: str) -> tuple[str, ...]:
    if names is None:
        return valid
    if isinstance(names, str):
        names = (names,)
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise ValueError(f"{what} for {collective} must be a non-empty selection of "
                         f"{', '.join(valid)}; got {list(names)}")
    return tuple(names)


def choose(collective: str, n_bytes: float, fabric_or_topology, *, channels: int | None = None,
           algorithms: Sequence[str] | None = None, protocols: Sequence[str] | None = None,
           model: specs.NCCLModel | None = None, **fabric_kw) -> Choice:
    """The (algorithm, protocol) NCCL's model predicts fastest for ``n_bytes``, with the table.

    ``n_bytes`` is nccl-tests' "size": the per-rank buffer for all-reduce, the total array for
    all-gather / reduce-scatter. Other arguments as :func:`tune`.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The collective NCCL would run.
    n_bytes : float
        nccl-tests' "size" in bytes (see above); > 0.
    fabric_or_topology : Fabric or Topology
        The fabric NCCL's model prices (a Topology is read by :func:`fabric_from_topology`).
    channels : int, optional
        NCCL's channel count, as :func:`tune`.
    algorithms, protocols : sequence of str, optional
        Allow only these (``NCCL_ALGO`` / ``NCCL_PROTO``).
    model : NCCLModel, optional
        NCCL's constants; default ``specs.nccl()``.
    **fabric_kw
        ``n_ranks``, ``ranks_per_node``, ``gpu``, ``cpu`` for :func:`fabric_from_topology`.

    Returns
    -------
    Choice
        ``best`` the fastest enabled Candidate (its ``alg_bw`` / ``bus_bw`` in bytes/s),
        ``times`` every candidate's predicted time in seconds.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> c = choose("allreduce", 64 * 2**20, dgx_h100())
    >>> c.best.label, round(c.best.alg_bw / 1e9, 1), round(c.best.nccl_bus_bw / 1e9, 1)
    ('NVLS/Simple', 280.2, 630.4)
    """
    _check_sizes(n_bytes)
    return tune(collective, fabric_or_topology, channels=channels, algorithms=algorithms,
                protocols=protocols, model=model, **fabric_kw).at(n_bytes)


def source_notes(choice_or_tuning, model: specs.NCCLModel | None = None) -> list[str]:
    """Where every constant in a table comes from: the fabric's derivation, then each
    :class:`~nvlearn.specs.NCCLModel` field used (location in NCCL's source).

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> any(s.startswith("base_latencies[ring]: src/graph/tuning.cc")
    ...     for s in source_notes(tune("allreduce", dgx_h100())))
    True
    """
    t = choice_or_tuning.tuning if isinstance(choice_or_tuning, Choice) else choice_or_tuning
    m = model or specs.nccl()
    fields = dict.fromkeys(s for c in t.candidates for s in c.sources)
    notes = list(t.fabric.derivation)
    for name in fields:
        table, _, index = name.partition("[")
        keys = index.rstrip("]").split("][") if index else ()
        notes.append(f"{name}: {m.where(table, *keys) if keys else m.provenance[name].where}")
    return notes
