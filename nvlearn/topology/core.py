"""The :class:`Topology`: a fabric as flat, read-only numpy arrays.

Nodes are GPUs, switch chips, NICs and CPUs; links are *directed* (a full-duplex cable is
two links, one per direction), each with a capacity in bytes/s per direction, a latency in
seconds, and the number of physical links bundled into it (five NVLink4 links from a GPU
to one NVSwitch chip are one directed link of 5 x 25 GB/s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .. import specs
from ..units import format_rate

__all__ = [
    "NODE_GPU", "NODE_NVSWITCH", "NODE_NIC", "NODE_IB_SWITCH", "NODE_PCIE_SWITCH", "NODE_CPU",
    "NODE_KIND_NAMES", "LINK_NVLINK", "LINK_NVLINK_NETWORK", "LINK_PCIE", "LINK_IB", "LINK_ETH",
    "LINK_KIND_NAMES", "LINK_KIND_KEYS", "DEFAULT_GPU", "Path", "ROUTING_POLICIES", "check_seed",
    "check_policy", "Router", "ROUTERS", "Topology",
]

NODE_GPU = 0
NODE_NVSWITCH = 1
NODE_NIC = 2
NODE_IB_SWITCH = 3
NODE_PCIE_SWITCH = 4
NODE_CPU = 5
#: Human names of the node kinds, indexed by ``node_kind``.
NODE_KIND_NAMES = ("GPU", "NVSwitch", "NIC", "IB switch", "PCIe switch", "CPU")

LINK_NVLINK = 0
LINK_NVLINK_NETWORK = 1
LINK_PCIE = 2
LINK_IB = 3
LINK_ETH = 4
#: Human names of the link kinds, indexed by ``link_kind``.
LINK_KIND_NAMES = ("NVLink", "NVLink network", "PCIe", "InfiniBand", "Ethernet")
#: Keys of :data:`nvlearn.plots.style.FABRIC_COLOURS`, indexed by ``link_kind``.
LINK_KIND_KEYS = ("nvlink", "nvlink_network", "pcie", "infiniband", "ethernet")
#: GPU (catalogue key) of a topology that does not say: the course's GPU.
DEFAULT_GPU = "h100"


class Path(NamedTuple):
    """One explicit path of a route (see :meth:`Topology.paths`).

    ``nodes`` and ``links`` are topology ids; ``weight`` is the fraction of the pair's bytes
    that takes this path; ``latency`` is the summed link latency in seconds.
    """

    nodes: tuple[int, ...]
    links: tuple[int, ...]
    weight: float
    latency: float


def _readonly(values, dtype, name: str, length: int | None = None) -> np.ndarray:
    arr = np.array(values, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(
            f"{name} has {arr.shape[0]} entries but there are {length}; give one per "
            f"{'node' if name.startswith('node') else 'link'}"
        )
    arr.flags.writeable = False
    return arr


def _csr(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Group link ids by ``keys`` (a node id per link): ``indptr`` (n+1) and link ids."""
    order = np.argsort(keys, kind="stable").astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=indptr[1:])
    order.flags.writeable = False
    indptr.flags.writeable = False
    return indptr, order


#: Routing policies a Topology can have (see :func:`~nvlearn.topology.with_routing`).
ROUTING_POLICIES = ("adaptive", "static")


def check_seed(seed: object) -> int:
    """A routing seed as an int >= 0; ValueError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"routing seed must be an int >= 0 (it picks the hash), got {seed!r}")
    return int(seed)


def check_policy(policy: object, seed: object) -> tuple[str, int]:
    """Validate a routing policy name and seed; returns them normalised."""
    if policy not in ROUTING_POLICIES:
        raise ValueError(f"routing policy must be one of {ROUTING_POLICIES}, got {policy!r}: "
                         "'adaptive' spreads each flow over all shortest paths, 'static' "
                         "pins it to one by a hash")
    return str(policy), check_seed(seed)


class Router(NamedTuple):
    """How one routing policy routes: ``route_pairs(topo, src, dst)`` -> (indptr, link,
    frac, latency, pair index) and ``paths(topo, src, dst)`` -> list of Path."""

    route_pairs: Callable
    paths: Callable


#: Routing policy -> Router. The routing modules register themselves here when imported
#: (:mod:`~nvlearn.topology.routing`: "adaptive", :mod:`~nvlearn.topology.policy`:
#: "static"), so this data module never imports them: the layers run one way.
ROUTERS: dict[str, Router] = {}


def _router(policy: str) -> Router:
    try:
        return ROUTERS[policy]
    except KeyError:
        raise RuntimeError(f"no router registered for {policy!r}: import nvlearn.topology "
                           "(its package imports every routing module)") from None


@dataclass(frozen=True, eq=False, repr=False)
class Topology:
    """A fabric: nodes, directed links with capacity (bytes/s per direction) and latency (s).

    Build one with a builder (:func:`~nvlearn.topology.dgx_h100`,
    :func:`~nvlearn.topology.nvlink_pod`, ...) rather than by hand. Every array is
    read-only; :func:`~nvlearn.topology.with_link_factor` returns a degraded copy.

    Parameters
    ----------
    name : str
        Shown in ``repr`` and figure titles.
    node_kind : array of int8
        ``NODE_GPU``, ``NODE_NVSWITCH``, ``NODE_NIC``, ``NODE_IB_SWITCH``,
        ``NODE_PCIE_SWITCH`` or ``NODE_CPU`` per node.
    node_name : sequence of str
        One unique name per node.
    node_box : array of int32
        Server (box) a node sits in, -1 for fabric switches outside any server.
    node_tier : array of int8
        0 for endpoints (GPUs, NICs, CPUs), 1 for the first switch tier, 2 for the second ...
    node_plane : array of int16
        NVSwitch plane or network rail, -1 if none.
    gpus : array of int32
        Node id of GPU rank ``r`` is ``gpus[r]``; every GPU node appears exactly once.
    link_src, link_dst : arrays of int32
        Directed links (every cable is two directed links).
    link_capacity : array of float64
        bytes/s per direction (bundled physical links summed). Must be > 0 and finite;
        0 is allowed only for a link whose ``link_factor`` is 0 (a dead, degraded link).
    link_latency : array of float64
        Seconds, >= 0.
    link_count : array of int16
        Physical links bundled in this directed link (>= 1).
    link_kind : array of int8
        ``LINK_NVLINK``, ``LINK_NVLINK_NETWORK``, ``LINK_PCIE``, ``LINK_IB`` or ``LINK_ETH``.
    link_factor : array of float64, optional
        Degradation applied to the nominal capacity (1 = healthy, the default); set by
        :func:`~nvlearn.topology.with_link_factor`.
    node_enclosure : array of int32, optional
        The physical enclosure a fabric switch chip sits in (the pod's 1U NVLink Switch
        boxes hold two chips each), numbered within the fabric; -1 (the default) for a node
        not grouped that way. Drawings group chips by it.
    routing : str, optional
        Routing policy of :meth:`routes`: ``"adaptive"`` (the default; spread over every
        shortest path) or ``"static"`` (hash-based ECMP, one path per flow); set by
        :func:`~nvlearn.topology.with_routing`.
    routing_seed : int, optional
        Seed of the static hash (ignored by ``"adaptive"``).
    gpu : str, optional
        Which GPU the fabric has: a :func:`nvlearn.specs.gpu` key (``"h100"``, ``"h800"``
        ...). The real-fabric builders set it; generic fabrics keep :data:`DEFAULT_GPU`.
        Models that need the GPU's architecture (NCCL's tuner) read it from here.

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> topo = single_switch(4, bw_per_dir=100e9)
    >>> topo.n_gpus, topo.n_nodes, topo.n_links
    (4, 5, 8)
    """

    name: str
    node_kind: np.ndarray
    node_name: tuple[str, ...]
    node_box: np.ndarray
    node_tier: np.ndarray
    node_plane: np.ndarray
    gpus: np.ndarray
    link_src: np.ndarray
    link_dst: np.ndarray
    link_capacity: np.ndarray
    link_latency: np.ndarray
    link_count: np.ndarray
    link_kind: np.ndarray
    link_factor: np.ndarray | None = None
    node_enclosure: np.ndarray | None = None
    routing: str = "adaptive"
    routing_seed: int = 0
    gpu: str = DEFAULT_GPU
    # derived adjacency (CSR), filled in __post_init__
    _out_indptr: np.ndarray = field(init=False)
    _out_link: np.ndarray = field(init=False)
    _in_indptr: np.ndarray = field(init=False)
    _in_link: np.ndarray = field(init=False)
    _transit: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self._check_nodes()
        self._check_links()
        self._check_gpus()
        put = object.__setattr__
        routing, seed = check_policy(self.routing, self.routing_seed)
        put(self, "routing", routing)
        put(self, "routing_seed", seed)
        out_indptr, out_link = _csr(self.link_src, len(self.node_kind))
        in_indptr, in_link = _csr(self.link_dst, len(self.node_kind))
        put(self, "_out_indptr", out_indptr)
        put(self, "_out_link", out_link)
        put(self, "_in_indptr", in_indptr)
        put(self, "_in_link", in_link)
        transit = self.node_kind != NODE_GPU
        transit.flags.writeable = False
        put(self, "_transit", transit)

    def _check_nodes(self) -> None:
        """Node arrays as read-only typed arrays of one length, names unique, kinds known."""
        put = object.__setattr__
        n = len(self.node_kind)
        put(self, "name", str(self.name))
        put(self, "node_kind", _readonly(self.node_kind, np.int8, "node_kind"))
        put(self, "node_name", tuple(str(s) for s in self.node_name))
        if len(self.node_name) != n:
            raise ValueError(
                f"node_name has {len(self.node_name)} entries but there are {n} nodes; "
                "give one name per node"
            )
        if len(set(self.node_name)) != n:
            raise ValueError("node names must be unique; rename the duplicated nodes")
        if self.node_enclosure is None:
            put(self, "node_enclosure", np.full(n, -1))
        for attr, dtype in (("node_box", np.int32), ("node_tier", np.int8),
                            ("node_plane", np.int16), ("node_enclosure", np.int32)):
            put(self, attr, _readonly(getattr(self, attr), dtype, attr, n))
        known_kinds = np.arange(len(NODE_KIND_NAMES))
        if not np.isin(self.node_kind, known_kinds).all():
            raise ValueError(f"node_kind values must be in 0..{len(NODE_KIND_NAMES) - 1}")

    def _check_links(self) -> None:
        """Link arrays typed and of one length; ends are nodes; capacities, latencies, counts
        and kinds in range."""
        put = object.__setattr__
        n, m = len(self.node_kind), len(self.link_src)
        put(self, "link_src", _readonly(self.link_src, np.int32, "link_src"))
        for attr, dtype in (("link_dst", np.int32), ("link_capacity", np.float64),
                            ("link_latency", np.float64), ("link_count", np.int16),
                            ("link_kind", np.int8)):
            put(self, attr, _readonly(getattr(self, attr), dtype, attr, m))
        factor = np.ones(m) if self.link_factor is None else self.link_factor
        put(self, "link_factor", _readonly(factor, np.float64, "link_factor", m))
        for attr in ("link_src", "link_dst"):
            ends = getattr(self, attr)
            bad = np.flatnonzero((ends < 0) | (ends >= n))
            if bad.size:
                raise ValueError(
                    f"{attr}[{bad[0]}] = {ends[bad[0]]} is not a node (there are {n} nodes, "
                    f"ids 0..{n - 1}); add the node before linking to it"
                )
        loops = np.flatnonzero(self.link_src == self.link_dst)
        if loops.size:
            raise ValueError(f"link {loops[0]} starts and ends at node {self.link_src[loops[0]]};"
                             " remove self-loops")
        self._check_link_values()

    def _check_link_values(self) -> None:
        cap, fac = self.link_capacity, self.link_factor
        if not (np.isfinite(fac).all() and (fac >= 0).all()):
            raise ValueError("link_factor must be finite and >= 0 (1 = healthy, 0 = dead)")
        bad = np.flatnonzero(~np.isfinite(cap) | (cap < 0) | ((cap == 0) & (fac != 0)))
        if bad.size:
            i = bad[0]
            raise ValueError(
                f"link {i} ({self._link_label(i)}) has capacity {cap[i]!r} bytes/s; capacities "
                "must be finite and > 0 (a dead link is made with with_link_factor(topo, "
                "links, 0.0))"
            )
        bad = np.flatnonzero(~np.isfinite(self.link_latency) | (self.link_latency < 0))
        if bad.size:
            i = bad[0]
            raise ValueError(f"link {i} ({self._link_label(i)}) has latency "
                             f"{self.link_latency[i]!r} s; latencies must be finite and >= 0")
        if (self.link_count < 1).any():
            raise ValueError("link_count must be >= 1 (physical links bundled per directed link)")
        if not np.isin(self.link_kind, np.arange(len(LINK_KIND_NAMES))).all():
            raise ValueError(f"link_kind values must be in 0..{len(LINK_KIND_NAMES) - 1}")

    def _check_gpus(self) -> None:
        """The GPU key is in the catalogue; ``gpus`` lists every GPU node once."""
        if not isinstance(self.gpu, str):
            raise ValueError(f"gpu must be a GPU key of the hardware catalogue (a str such as "
                             f"'h100'), got {self.gpu!r}")
        specs.gpu(self.gpu)  # an unknown key raises ValueError listing the valid ones
        n = len(self.node_kind)
        object.__setattr__(self, "gpus", _readonly(self.gpus, np.int32, "gpus"))
        gpu_nodes = np.flatnonzero(self.node_kind == NODE_GPU)
        if self.gpus.size == 0:
            raise ValueError("a topology needs at least one GPU; list GPU node ids in `gpus`")
        if (self.gpus < 0).any() or (self.gpus >= n).any() or (
            self.node_kind[self.gpus] != NODE_GPU
        ).any():
            raise ValueError("every entry of `gpus` must be the id of a node of kind NODE_GPU")
        if np.unique(self.gpus).size != self.gpus.size or self.gpus.size != gpu_nodes.size:
            raise ValueError("`gpus` must list every GPU node exactly once (rank -> node id)")

    # ------------------------------------------------------------------ sizes
    @property
    def n_gpus(self) -> int:
        """Number of GPUs (ranks)."""
        return int(self.gpus.size)

    @property
    def n_nodes(self) -> int:
        """Number of nodes (GPUs, switch chips, NICs, CPUs)."""
        return int(self.node_kind.size)

    @property
    def n_links(self) -> int:
        """Number of directed links (a cable counts twice)."""
        return int(self.link_src.size)

    # ------------------------------------------------------------------ labels
    def _link_label(self, link: int) -> str:
        return f"{self.node_name[self.link_src[link]]} -> {self.node_name[self.link_dst[link]]}"

    def link_label(self, link: int) -> str:
        """``"src -> dst"`` node names of a directed link, for messages and plots.

        Examples
        --------
        >>> from nvlearn.topology import ring
        >>> ring(4, bw_per_dir=1e9).link_label(0)
        'gpu0 -> gpu1'
        """
        link = int(link)
        if not 0 <= link < self.n_links:
            raise ValueError(f"link {link} does not exist; links are 0..{self.n_links - 1}")
        return self._link_label(link)

    def _injection_per_dir(self, kind: int) -> np.ndarray:
        """bytes/s per direction each GPU pushes into links of ``kind`` (the metric, inline:
        :func:`~nvlearn.topology.metrics.injection_bw_per_dir` is its public form)."""
        keep = self.link_kind == kind
        per_node = np.bincount(self.link_src[keep], weights=self.link_capacity[keep],
                               minlength=self.n_nodes)
        return per_node[self.gpus]

    def __repr__(self) -> str:
        switch = np.isin(self.node_kind, (NODE_NVSWITCH, NODE_IB_SWITCH, NODE_PCIE_SWITCH))
        tiers = []
        for tier in np.unique(self.node_tier[switch]):
            kinds = self.node_kind[switch & (self.node_tier == tier)]
            parts = ", ".join(
                f"{np.count_nonzero(kinds == k)} {NODE_KIND_NAMES[k]}" for k in np.unique(kinds)
            )
            tiers.append(f"tier {tier}: {parts}")
        parts = []
        for kind in np.unique(self.link_kind[np.isin(self.link_src, self.gpus)]):
            inj = self._injection_per_dir(kind)
            lo, hi = format_rate(inj.min()), format_rate(inj.max())
            parts.append(f"{lo if lo == hi else f'{lo} .. {hi}'} {LINK_KIND_NAMES[kind]}")
        injection = " + ".join(parts) if parts else "none"
        dead = int(np.count_nonzero(self.link_factor < 1))
        lines = [
            f"Topology {self.name!r}",
            f"  GPUs: {self.n_gpus}",
            f"  switches: {'; '.join(tiers) if tiers else 'none'}",
            *(
                f"  {NODE_KIND_NAMES[k]}s: {np.count_nonzero(self.node_kind == k)}"
                for k in (NODE_NIC, NODE_CPU)
                if (self.node_kind == k).any()
            ),
            f"  links: {self.n_links} directed, bundling {int(self.link_count.sum()) // 2} "
            "physical full-duplex links" + (f"; {dead} degraded" if dead else ""),
            f"  injection per GPU: {injection} per direction",
        ]
        if self.routing != "adaptive":
            lines.append(f"  routing: {self.routing} hash (seed {self.routing_seed}), one path "
                         "per flow")
        return "\n".join(lines)

    # ------------------------------------------------------------------ routing
    def routes(
        self, src_nodes: ArrayLike, dst_nodes: ArrayLike
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Links, traffic fractions and latency for each (src, dst) node pair.

        Routing policy (``routing="adaptive"``, the default): all shortest paths that do not
        pass *through* a GPU; at each hop the traffic splits in proportion to the capacity of
        the next-hop links (the fluid picture of adaptive routing / packet spraying over
        NVSwitch planes and ECMP). With ``routing="static"`` (see
        :func:`~nvlearn.topology.with_routing`) each pair takes one of those shortest paths,
        picked hop by hop by a seeded hash, with fraction 1 on each of its links.

        Parameters
        ----------
        src_nodes, dst_nodes : int arrays of equal length (or scalars)
            Topology node ids (``topo.gpus[rank]`` for a GPU rank).

        Returns
        -------
        indptr : int64 array (m + 1,)
            Pair ``i`` crosses ``link[indptr[i]:indptr[i + 1]]``.
        link : int32 array
            Directed link ids.
        frac : float64 array
            Fraction of pair ``i``'s bytes on each of its links (sums to 1 over the first
            hop; each path carries its weight).
        latency : float64 array (m,)
            Seconds: the maximum over the pair's paths of the summed link latencies
            (0 when src == dst).

        Examples
        --------
        >>> from nvlearn.topology import single_switch
        >>> topo = single_switch(4, bw_per_dir=100e9, latency=1e-6)
        >>> indptr, link, frac, latency = topo.routes([0], [1])
        >>> [topo.link_label(k) for k in link], frac.tolist(), latency.tolist()
        (['gpu0 -> switch', 'switch -> gpu1'], [1.0, 1.0], [2e-06])
        """
        indptr, link, frac, latency, _ = _router(self.routing).route_pairs(
            self, src_nodes, dst_nodes)
        return indptr, link, frac, latency

    def paths(self, src: int, dst: int) -> list[Path]:
        """Every path the routing policy uses from node ``src`` to node ``dst``, with weights.

        Small and explicit, for teaching and tests (:meth:`routes` is the fast form).

        Examples
        --------
        >>> from nvlearn.topology import single_switch
        >>> topo = single_switch(3, bw_per_dir=1e9)
        >>> [(p.nodes, p.weight) for p in topo.paths(0, 2)]
        [((0, 3, 2), 1.0)]
        """
        return _router(self.routing).paths(self, src, dst)
