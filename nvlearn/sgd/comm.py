"""How long the gradient all-reduce takes on a fabric, in two models.

Three fabrics, named as the notebook names them (:data:`FABRICS`):

* ``"pcie_box"`` — 8-GPU servers whose GPUs talk over PCIe switches (:func:`~nvlearn.
  topology.pcie_box`). Beyond one server (a modelling assumption): servers joined by the
  same InfiniBand rails as ``"ib_cluster"``, one ConnectX-7 per GPU.
* ``"ib_cluster"`` — DGX H100 nodes (NVLink inside) on a rail-optimised InfiniBand NDR fat
  tree (:func:`~nvlearn.topology.ib_cluster`).
* ``"nvlink_pod"`` — the NVLink Switch System, up to 256 GPUs on one NVLink fabric
  (:func:`~nvlearn.topology.nvlink_pod`); beyond 256, pods joined by InfiniBand.

Two models (:data:`MODELS`, as in :mod:`nvlearn.sim`), chosen by ``model=``:

``"achievable"`` (the default) — what NCCL would do. For every call (every DDP bucket)
:func:`nvlearn.tuner.choose` prices NCCL's candidates (Ring, Tree, NVLS, NVLSTree with the
LL / LL128 / Simple protocols) from NCCL's own constants and keeps the fastest, exactly as
NCCL's tuner picks an algorithm per collective; the time is that prediction
(:class:`NCCLEstimate`). NCCL's view of the fabric is read off the built topology
(:func:`nccl_fabric`): a GPU's NVLinks at NCCL's achievable per-link rate (18 x 20.6 GB/s on
an H100), a node's NICs at their port rate, an NVLink domain (the pod) as one node. Fabrics
larger than the builders make (more than 8,192 InfiniBand nodes, pods joined by InfiniBand,
PCIe servers on InfiniBand) keep the same per-node view with more nodes.

``"wire"`` — the ideal at link rate, kept to contrast with the achievable numbers
(:class:`WireEstimate`). The algorithm is the ring, one pipeline slot per step:

* **one island** (``n_gpus <= 8``; or ``<= 256`` on ``nvlink_pod``): one flat ring
  all-reduce over all the GPUs.
* **several islands** (nodes of 8 GPUs on ``ib_cluster`` / ``pcie_box``; pods of 256 on
  ``nvlink_pod``): hierarchical — ring reduce-scatter inside each island (every GPU ends with
  ``1/g`` of its island's sum), then ``g`` parallel ring all-reduces of ``n/g`` bytes across
  islands, one per GPU position, each over that GPU's own NIC (the rails), then ring
  all-gather inside each island.

How the wire stages add up (a modelling choice): the inside stages use the NVLink (or PCIe)
ports, the across stage the NICs, and NCCL pipelines chunks through them, so their
*bandwidth* parts overlap while every stage's latency is paid::

    time = sum of latency terms + max(bandwidth part of inside stages (added),
                                      bandwidth part of the across stage)

(:attr:`WireEstimate.time`). :attr:`WireEstimate.sequential_time` adds the stages one after
the other instead — an upper bound, for comparison. Where each wire stage's time comes from
(every :class:`Stage` says which, in ``method``):

* ``"simulated"`` — :func:`nvlearn.sim.simulate` (``model="wire"``) of the ring schedule on
  the built topology, for rings of at most :data:`SIM_MAX_RANKS` ranks. The cross-island
  ring is simulated on one rail of :func:`~nvlearn.topology.ib_cluster` (rails are disjoint
  up to 32 nodes; beyond, they meet only on non-blocking spines).
* ``"closed form (routes)"`` — longer rings on a topology that can still be built (the
  256-GPU pod, up to 8,192 IB nodes on two or three switch tiers): :func:`ring_closed_form`
  with the bandwidth and the per-edge latencies read from the topology's routes. Tests hold
  it equal to the simulator.
* ``"closed form (IB spine route)"`` — rings on fabrics the builders do not make (pods
  joined by InfiniBand; more than 8,192 IB nodes): the same closed form with the NIC rate
  and the latency of a rail route through an IB spine for every edge: an upper bound on
  the latency part, since in a built cluster ring neighbours on one leaf skip the spine
  (1,024 nodes: a latency part of 3.6 ms instead of 4.9 ms; ``tests/test_sgd_steptime.py``
  counts the edges).

References
----------
P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009 (the ring).
X. Jia et al., "Highly scalable deep learning training system with mixed-precision",
arXiv:1807.11205, 2018 (the hierarchical all-reduce across islands).
NVIDIA NCCL 2.30.7, src/graph/tuning.cc (the achievable model's choice and prediction).

Examples
--------
>>> est = allreduce_time("ib_cluster", 16, 14e9)       # 7B bf16 gradient, two DGX H100
>>> est.label                                           # NCCL's pick for 14 GB
'NVLSTree/Simple'
>>> wire = allreduce_time("nvlink_pod", 8, 14e9, model="wire")
>>> wire.method, round(wire.time * 1e3, 1)              # ms: 2 (p-1)/p * n / 450 GB/s
('simulated', 54.5)
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from nvlearn import collectives, specs, tuner

__all__ = [
    "FABRICS", "MODELS", "SIM_MAX_RANKS", "gpus_per_node", "gpus_per_pod", "Stage", "WireEstimate",
    "NCCLEstimate", "CommEstimate", "ring_steps", "ring_closed_form", "ib_rail_route",
    "check_fabric", "check_gpu_count", "check_model", "nccl_fabric", "allreduce_time",
    "wire_allreduce_time",
]

#: Fabric names accepted everywhere in :mod:`nvlearn.sgd`.
FABRICS = ("pcie_box", "ib_cluster", "nvlink_pod")
#: The two models, named as :data:`nvlearn.sim.models.MODELS` names them (not imported from
#: there: that would load the simulator, and numba, on ``import nvlearn.sgd``); the first is
#: the default.
MODELS = ("achievable", "wire")
#: Rings of at most this many ranks are simulated; longer ones use the closed form.
SIM_MAX_RANKS = 64


def gpus_per_node() -> int:
    """GPUs in one server (a DGX H100: 8)."""
    return int(specs.system("dgx_h100").gpus)


def gpus_per_pod() -> int:
    """GPUs in one NVLink Switch System (256)."""
    return int(specs.system("nvlink_switch_system").gpus)


def _max_ib_nodes() -> int:
    """Largest node count :func:`~nvlearn.topology.ib_cluster` builds (three switch tiers)."""
    from nvlearn.topology import ib_cluster_max_nodes

    return ib_cluster_max_nodes()


@dataclass(frozen=True)
class Stage:
    """One ring collective of a (possibly hierarchical) all-reduce.

    Attributes
    ----------
    name : str
        What it does, e.g. ``"reduce-scatter inside each node"``.
    collective : {"allreduce", "reduce_scatter", "allgather"}
    fabric : str
        The topology it runs on.
    n_ranks : int
        Ranks on the ring.
    n_bytes : float
        Bytes: the per-rank buffer for all-reduce, the whole array for reduce-scatter /
        all-gather (nccl-tests convention).
    time : float
        Seconds.
    method : str
        ``"simulated"``, ``"closed form (routes)"`` or ``"closed form (IB spine route)"``.
    bw_per_dir : float
        Ring edge bandwidth, bytes/s per direction (the bottleneck the closed form uses; for a
        simulated stage, the same figure read from the routes).
    latency_term : float
        Seconds of ``time`` that are latency (the closed form's alpha part).
    across : bool
        True for the stage between islands (on the NICs), False inside an island.
    """

    name: str
    collective: str
    fabric: str
    n_ranks: int
    n_bytes: float
    time: float
    method: str
    bw_per_dir: float
    latency_term: float
    across: bool = False

    @property
    def bandwidth_term(self) -> float:
        """Seconds of ``time`` spent moving bytes (``time - latency_term``)."""
        return self.time - self.latency_term


@dataclass(frozen=True)
class WireEstimate:
    """Wire-rate time of one ring all-reduce of ``n_bytes`` per GPU over ``n_gpus`` GPUs on
    ``fabric`` (flat in one island, hierarchical across islands; module docstring).

    Attributes
    ----------
    stages : tuple of Stage
        Run one after the other; empty for one GPU.
    """

    fabric: str
    n_gpus: int
    n_bytes: float
    stages: tuple[Stage, ...]
    model = "wire"

    @property
    def time(self) -> float:
        """Seconds: all latency terms + the larger of the inside and across bandwidth parts
        (stages pipelined, see the module docstring)."""
        inside = sum(s.bandwidth_term for s in self.stages if not s.across)
        across = sum(s.bandwidth_term for s in self.stages if s.across)
        return float(self.latency_term + max(inside, across))

    @property
    def sequential_time(self) -> float:
        """Seconds if the stages ran one after the other (no pipelining)."""
        return float(sum(s.time for s in self.stages))

    @property
    def latency_term(self) -> float:
        """Seconds of :attr:`time` that are per-message latency."""
        return float(sum(s.latency_term for s in self.stages))

    @property
    def method(self) -> str:
        """How the stages were timed, e.g. ``"simulated + closed form (IB spine route)"``."""
        seen = dict.fromkeys(s.method for s in self.stages)
        return " + ".join(seen) if seen else "none (one GPU)"

    @property
    def busbw(self) -> float:
        """nccl-tests bus bandwidth of the whole all-reduce, bytes/s."""
        if not self.stages:
            return float("nan")
        return collectives.busbw("allreduce", self.n_bytes, self.n_gpus, self.time)


@dataclass(frozen=True)
class NCCLEstimate:
    """What NCCL's tuning model predicts for one all-reduce of ``n_bytes`` per GPU over
    ``n_gpus`` GPUs on ``fabric``: the fastest (algorithm, protocol) and its time.

    Attributes
    ----------
    choice : nvlearn.tuner.Choice or None
        NCCL's table at this size, the winner and every candidate's time (None for one GPU).

    Examples
    --------
    >>> est = allreduce_time("nvlink_pod", 8, 2**30)
    >>> est.label, est.time == est.choice.time
    ('NVLS/Simple', True)
    """

    fabric: str
    n_gpus: int
    n_bytes: float
    choice: tuner.Choice | None
    model = "achievable"

    @property
    def time(self) -> float:
        """Seconds: NCCL's predicted time of its choice (0 for one GPU)."""
        return 0.0 if self.choice is None else float(self.choice.time)

    @property
    def latency_term(self) -> float:
        """Seconds of :attr:`time` that are latency (the choice's latency)."""
        return 0.0 if self.choice is None else float(self.choice.best.latency)

    @property
    def bandwidth_term(self) -> float:
        """Seconds of :attr:`time` spent moving bytes (``n_bytes / algBw``)."""
        return self.time - self.latency_term

    @property
    def label(self) -> str:
        """NCCL's name of the choice, e.g. ``"Ring/LL128"`` (``"none"`` for one GPU)."""
        return "none" if self.choice is None else self.choice.best.label

    @property
    def method(self) -> str:
        """How the time was obtained, e.g. ``"NCCL model: NVLSTree/Simple"``."""
        return "none (one GPU)" if self.choice is None else f"NCCL model: {self.label}"

    @property
    def busbw(self) -> float:
        """nccl-tests bus bandwidth of the all-reduce, bytes/s."""
        if self.choice is None:
            return float("nan")
        return collectives.busbw("allreduce", self.n_bytes, self.n_gpus, self.time)


#: Either model's estimate (both have ``time``, ``latency_term``, ``method``, ``busbw``).
CommEstimate = NCCLEstimate | WireEstimate


def ring_steps(collective: str, n_ranks: int) -> int:
    """Steps of the ring: ``2(p-1)`` for all-reduce, ``p-1`` for reduce-scatter / all-gather.

    Examples
    --------
    >>> ring_steps("allreduce", 8), ring_steps("allgather", 8)
    (14, 7)
    """
    if collective not in ("allreduce", "reduce_scatter", "allgather"):
        raise ValueError(f"unknown ring collective {collective!r}")
    return (2 if collective == "allreduce" else 1) * (int(n_ranks) - 1)


def ring_closed_form(
    collective: str, n_ranks: int, n_bytes: float, bw_per_dir: float, edge_latency
) -> tuple[float, float]:
    """Time of the one-slot ring when edge ``r -> r+1`` has its own latency.

    Each of the ``K`` steps sends a segment of ``s = n / (p B)`` seconds and op ``(k, r)``
    waits for ``(k-1, r-1)`` to arrive, so the makespan is ``K s`` plus the largest sum of
    latencies over ``K`` consecutive ring edges. With one latency ``alpha`` for all edges this
    is :func:`nvlearn.collectives.ring_time` with one chunk, ``K (alpha + s)``.

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather"}
        The ring collective (K = 2(p-1) steps for all-reduce, p-1 otherwise).
    n_ranks : int
        Ranks p >= 2 on the ring.
    n_bytes : float
        As in :class:`Stage`.
    bw_per_dir : float
        Bytes/s per direction of every edge.
    edge_latency : float or array of float, shape (n_ranks,)
        Seconds; a scalar applies to every edge.

    Returns
    -------
    (time, latency_term) : seconds

    Examples
    --------
    >>> t, lat = ring_closed_form("allreduce", 8, 1e9, 450e9, 1e-6)
    >>> round(t * 1e3, 4), round(lat * 1e6, 1)       # ms; 14 steps x 1 us
    (3.9029, 14.0)
    """
    p = int(n_ranks)
    if p < 2:
        raise ValueError(f"a ring needs at least 2 ranks, got {n_ranks}")
    if not bw_per_dir > 0:
        raise ValueError(f"bw_per_dir must be > 0 bytes/s, got {bw_per_dir}")
    k = ring_steps(collective, p)
    lat = np.broadcast_to(np.asarray(edge_latency, dtype=np.float64), (p,))
    csum = np.concatenate([[0.0], np.cumsum(np.tile(lat, 3))])
    latency_term = float(np.max(csum[np.arange(p) + k] - csum[np.arange(p)]))
    return k * n_bytes / (p * bw_per_dir) + latency_term, latency_term


# --------------------------------------------------------------------------------------
# Topologies and ring parameters (cached: building and routing cost tenths of a second)
# --------------------------------------------------------------------------------------


def _topology(key: str, count: int):
    """The registry's fabric ``key`` with ``count`` nodes (built once per process)."""
    from nvlearn.topology import FABRICS, fabric

    return fabric(key, count if FABRICS[key].multi_node else None)


def _label(key: str) -> str:
    """The fabric registry's label of ``key``."""
    from nvlearn.topology import FABRICS

    return FABRICS[key].label


def _ring_gpus(kind: str, count: int, n_ranks: int) -> np.ndarray:
    """GPU indices of the ring: consecutive GPUs, or GPU 0 of every node (one IB rail)."""
    if kind == "ib_cluster":
        return np.arange(n_ranks) * gpus_per_node()
    return np.arange(n_ranks)


@functools.lru_cache(maxsize=64)
def _ring_edges(kind: str, count: int, n_ranks: int) -> tuple[float, tuple[float, ...]]:
    """Bottleneck bandwidth (bytes/s per direction) and per-edge latencies of the ring.

    All ``p`` edges carry a segment at once; a link shared by several edges (or several
    paths of one edge) splits its capacity, so the ring rate is
    ``min over links of capacity / (sum of the edges' fractions on it)``.
    """
    topo = _topology(kind, count)
    gpu = np.asarray(topo.gpus)[_ring_gpus(kind, count, n_ranks)]
    indptr, link, frac, latency = topo.routes(gpu, np.roll(gpu, -1))
    load = np.bincount(link, weights=frac, minlength=topo.n_links)
    used = load > 0
    bw = float(np.min(np.asarray(topo.link_capacity)[used] / load[used]))
    return bw, tuple(float(x) for x in latency)


@functools.lru_cache(maxsize=8)
def ib_rail_route() -> tuple[float, float]:
    """NIC-limited bandwidth (bytes/s per direction) and latency (s) of one rail hop that
    crosses an IB spine: GPU 0 of node 0 to GPU 0 of the first node on another leaf.

    Examples
    --------
    >>> bw, lat = ib_rail_route()
    >>> bw / 1e9                       # one ConnectX-7 NDR port, GB/s per direction
    50.0
    """
    per_node = gpus_per_node()
    # ib_cluster's rail-optimised leaves take radix/2 NICs, one per node and rail, so node
    # radix/2 is the first on a second leaf of rail 0
    per_leaf = specs.ib_switch_for_speed("ndr").ports // 2
    topo = _topology("ib_cluster", per_leaf + 1)
    a, b = topo.gpus[0], topo.gpus[per_leaf * per_node]
    _, link, frac, latency = topo.routes([a], [b])
    load = np.bincount(link, weights=frac, minlength=topo.n_links)
    used = load > 0
    bw = float(np.min(np.asarray(topo.link_capacity)[used] / load[used]))
    return bw, float(latency[0])


# --------------------------------------------------------------------------------------
# Stages
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _stage(kind: str, count: int, collective: str, n_ranks: int, n_bytes: float):
    """(time, method, bw, latency_term) of one ring collective on a buildable topology."""
    bw, edge_lat = _ring_edges(kind, count, n_ranks)
    closed, lat_term = ring_closed_form(collective, n_ranks, n_bytes, bw, np.array(edge_lat))
    if n_ranks > SIM_MAX_RANKS:
        return closed, "closed form (routes)", bw, lat_term
    from nvlearn import sim

    topo = _topology(kind, count)
    builder = {
        "allreduce": collectives.allreduce,
        "reduce_scatter": collectives.reduce_scatter,
        "allgather": collectives.allgather,
    }[collective]
    ranks = _ring_gpus(kind, count, n_ranks)
    result = sim.simulate(topo, builder(n_ranks, n_bytes), ranks=ranks, model="wire")
    # the simulated time splits like the closed form: the bandwidth part is n-proportional
    return result.time, "simulated", bw, min(lat_term, result.time)


@functools.lru_cache(maxsize=4096)
def _ib_stage(collective: str, n_ranks: int, n_bytes: float):
    bw, lat = ib_rail_route()
    time, lat_term = ring_closed_form(collective, n_ranks, n_bytes, bw, lat)
    return time, "closed form (IB spine route)", bw, lat_term


def _make(name, collective, fabric, n_ranks, n_bytes, timed, across=False) -> Stage:
    time, method, bw, lat_term = timed
    return Stage(name, collective, fabric, int(n_ranks), float(n_bytes), float(time), method,
                 float(bw), float(lat_term), across)


def check_fabric(fabric: str) -> str:
    """Return ``fabric`` if it is one of :data:`FABRICS`, else raise ValueError.

    Examples
    --------
    >>> check_fabric("nvlink_pod")
    'nvlink_pod'
    """
    if fabric not in FABRICS:
        raise ValueError(f"unknown fabric {fabric!r}; choose one of {', '.join(FABRICS)}")
    return fabric


def check_gpu_count(fabric: str, n_gpus: int) -> int:
    """Validate a GPU count for ``fabric``: 1..8 in one server, else whole servers of 8
    (whole pods of 256 beyond one pod on ``nvlink_pod``).

    Examples
    --------
    >>> check_gpu_count("ib_cluster", 1024)
    1024
    """
    check_fabric(fabric)
    if isinstance(n_gpus, bool) or int(n_gpus) != n_gpus or n_gpus < 1:
        raise ValueError(f"n_gpus must be a positive integer, got {n_gpus!r}")
    n, node, pod = int(n_gpus), gpus_per_node(), gpus_per_pod()
    if n > node and n % node:
        raise ValueError(
            f"n_gpus={n}: beyond one server the GPUs come in whole servers of {node}; "
            f"use a multiple of {node}"
        )
    if fabric == "nvlink_pod" and n > pod and n % pod:
        raise ValueError(
            f"n_gpus={n}: beyond one NVLink pod ({pod} GPUs) the pods are joined by "
            f"InfiniBand; use a multiple of {pod}"
        )
    return n


def check_model(model: str) -> str:
    """Return ``model`` if it is one of :data:`MODELS`, else raise ValueError.

    Examples
    --------
    >>> check_model("wire")
    'wire'
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS} ('achievable': what NCCL's tuner "
                         f"predicts, the default; 'wire': a ring at link rate), got {model!r}")
    return model


def _check_bytes(n_bytes: float) -> float:
    if isinstance(n_bytes, bool) or not np.isfinite(n_bytes) or n_bytes <= 0:
        raise ValueError(f"n_bytes must be a positive number of bytes, got {n_bytes!r}")
    return float(n_bytes)


@functools.lru_cache(maxsize=128)
def nccl_fabric(fabric: str, n_gpus: int) -> tuner.Fabric:
    """NCCL's view of ``n_gpus`` GPUs of ``fabric`` (:class:`nvlearn.tuner.Fabric`).

    Read off the built topology with :func:`nvlearn.tuner.fabric_from_topology` — one DGX
    H100 or PCIe box, the NVLink pod of ``n_gpus / 8`` nodes (one NVLink domain = one NCCL
    node), the InfiniBand cluster of ``n_gpus / 8`` nodes. Beyond what the builders make,
    the per-node view stays and only the node count grows: more than 8,192 InfiniBand nodes;
    pods of 256 joined by InfiniBand (a pod's 256 NICs are its network); PCIe boxes joined by
    the InfiniBand cluster's NICs, one per GPU.

    Examples
    --------
    >>> f = nccl_fabric("ib_cluster", 8192)
    >>> f.n_nodes, f.inter_link, round(f.bw_inter / 1e9)      # GB/s per node per direction
    (1024, 'net', 400)
    """
    n = check_gpu_count(fabric, n_gpus)
    if n == 1:
        raise ValueError("a collective needs at least 2 GPUs; one GPU has nothing to sum")
    node, pod = gpus_per_node(), gpus_per_pod()
    if n <= node:
        box = "pcie_box" if fabric == "pcie_box" else "dgx_h100"
        return tuner.fabric_from_topology(_topology(box, 0), n_ranks=n)
    nodes = n // node
    if fabric == "ib_cluster" and nodes <= _max_ib_nodes():
        return tuner.fabric_from_topology(_topology("ib_cluster", nodes))
    if fabric == "nvlink_pod" and n <= pod:
        return tuner.fabric_from_topology(_topology("nvlink_pod", nodes))
    ib = nccl_fabric("ib_cluster", 2 * node)           # a DGX H100 node on InfiniBand
    if fabric == "ib_cluster":
        base, per_node, bw_inter = ib, node, ib.bw_inter
        what = f"{nodes} DGX H100 nodes on InfiniBand, past the three-tier builder"
    elif fabric == "nvlink_pod":
        base, per_node = nccl_fabric("nvlink_pod", pod), pod
        bw_inter = ib.bw_inter * pod / node
        what = f"{n // pod} NVLink pods joined by InfiniBand, {pod // node} nodes' NICs each"
    else:
        base, per_node, bw_inter = nccl_fabric("pcie_box", node), node, ib.bw_inter
        what = f"{nodes} PCIe boxes joined by InfiniBand, one NIC per GPU"
    line = (f"{what}: the per-node view of {base.name!r} with {n // per_node} nodes; "
            f"bw_inter = {bw_inter / 1e9:.0f} GB/s per node per direction (the node's NICs)")
    return dataclasses.replace(base, name=what, n_ranks=n, ranks_per_node=per_node,
                               inter_link="net", bw_inter=bw_inter,
                               derivation=(*base.derivation, line))


def allreduce_time(fabric: str, n_gpus: int, n_bytes: float,
                   model: str = MODELS[0]) -> CommEstimate:
    """Time to all-reduce ``n_bytes`` per GPU over ``n_gpus`` GPUs of ``fabric``.

    Parameters
    ----------
    fabric : {"pcie_box", "ib_cluster", "nvlink_pod"}
        A key of :data:`FABRICS`.
    n_gpus : int
        1..8, then multiples of 8 (of 256 beyond one pod on ``nvlink_pod``).
    n_bytes : float
        Bytes per GPU (parameters x bytes per gradient element; one bucket's share).
    model : {"achievable", "wire"}
        ``"achievable"``: NCCL's tuner picks the algorithm and protocol for this size and its
        predicted time is returned (:class:`NCCLEstimate`). ``"wire"``: a ring at link rate,
        flat or hierarchical (:class:`WireEstimate`). See the module docstring.

    Returns
    -------
    NCCLEstimate or WireEstimate
        ``.time`` in seconds, and how it was found.

    Examples
    --------
    >>> allreduce_time("ib_cluster", 8192, 25 * 2**20).label
    'Tree/LL128'
    >>> est = allreduce_time("ib_cluster", 16, 14e9, model="wire")
    >>> for s in est.stages:
    ...     print(s.name, "|", s.method)
    reduce-scatter inside each node | simulated
    all-reduce across nodes (8 rails) | simulated
    all-gather inside each node | simulated
    """
    if check_model(model) == "wire":
        return wire_allreduce_time(fabric, n_gpus, n_bytes)
    n, nb = check_gpu_count(fabric, n_gpus), _check_bytes(n_bytes)
    if n == 1:
        return NCCLEstimate(fabric, 1, nb, None)
    return NCCLEstimate(fabric, n, nb, _nccl_choice(fabric, n, nb))


@functools.lru_cache(maxsize=4096)
def _nccl_choice(fabric: str, n_gpus: int, n_bytes: float) -> tuner.Choice:
    return tuner.choose("allreduce", n_bytes, nccl_fabric(fabric, n_gpus))


def wire_allreduce_time(fabric: str, n_gpus: int, n_bytes: float) -> WireEstimate:
    """The ``"wire"`` model: a ring all-reduce at link rate, flat in one island and
    hierarchical across islands (see the module docstring).

    Parameters
    ----------
    fabric : {"pcie_box", "ib_cluster", "nvlink_pod"}
        A key of :data:`FABRICS`.
    n_gpus : int
        Data-parallel GPUs (:func:`check_gpu_count` says which counts the fabric takes).
    n_bytes : float
        Gradient bytes per GPU (the all-reduce buffer); > 0.

    Returns
    -------
    WireEstimate
        Its stages (each with its time in seconds and how it was found); ``.time`` the
        overlapped total, ``.sequential_time`` the stages added.

    Examples
    --------
    >>> est = wire_allreduce_time("nvlink_pod", 256, 14e9)
    >>> est.method
    'closed form (routes)'
    """
    n, nb = check_gpu_count(fabric, n_gpus), _check_bytes(n_bytes)
    node, pod = gpus_per_node(), gpus_per_pod()
    if n == 1:
        return WireEstimate(fabric, 1, nb, ())
    box = "pcie_box" if fabric == "pcie_box" else "dgx_h100"
    box_name = _label(box)
    if n <= node:
        stage = _make("ring all-reduce", "allreduce", box_name, n, nb,
                      _stage(box, 0, "allreduce", n, nb))
        return WireEstimate(fabric, n, nb, (stage,))
    if fabric == "nvlink_pod" and n <= pod:
        stage = _make("ring all-reduce over the NVLink pod", "allreduce",
                      f"{_label('nvlink_pod')} ({n // node} nodes)", n, nb,
                      _stage("nvlink_pod", n // node, "allreduce", n, nb))
        return WireEstimate(fabric, n, nb, (stage,))
    if fabric == "nvlink_pod":
        g, where = pod, ("nvlink_pod", pod // node)
        name = f"{_label('nvlink_pod')} ({pod // node} nodes)"
        island = "pod"
    else:
        g, where, name, island = node, (box, 0), box_name, "node"
    islands = n // g
    inner_rs = _make(f"reduce-scatter inside each {island}", "reduce_scatter", name, g, nb,
                     _stage(*where, "reduce_scatter", g, nb))
    inner_ag = _make(f"all-gather inside each {island}", "allgather", name, g, nb,
                     _stage(*where, "allgather", g, nb))
    shard = nb / g
    if fabric != "nvlink_pod" and islands <= _max_ib_nodes():
        timed = _stage("ib_cluster", islands, "allreduce", islands, shard)
        fab = f"IB cluster ({islands} nodes), one rail"
    else:
        timed = _ib_stage("allreduce", islands, shard)
        fab = "InfiniBand NDR rails (not built)"
    across = _make(f"all-reduce across {island}s ({g} rails)", "allreduce", fab, islands, shard,
                   timed, across=True)
    return WireEstimate(fabric, n, nb, (inner_rs, across, inner_ag))
