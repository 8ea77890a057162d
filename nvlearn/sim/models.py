"""The simulator's two models of a fabric: what the wire allows, and what NCCL achieves.

The same Schedule, routes and max-min fair engine serve both; the models differ only in the
link rates, the latencies and the start delays they hand the engine.

``"wire"`` — the ideal fluid model
    Every link moves data at its wire rate (the catalogue's per-direction data rate, after
    line code and FEC), a transfer's data arrives the route's wire latency after it was sent,
    and software costs nothing. The closed forms of :mod:`nvlearn.collectives` hold exactly
    here; it is an upper bound no library reaches.

``"achievable"`` — what NCCL reaches on the hardware (the default)
    Every constant is NCCL's own tuning-model constant (``src/graph/tuning.cc``,
    ``src/graph/topo.h``, ``src/graph/topo.cc``; NCCL 2.30.7), read from the catalogue
    (:func:`nvlearn.specs.nccl`). Nothing is fitted to measurements: published nccl-tests
    figures stay an independent check.

    * **Protocol.** The run uses one of NCCL's protocols (LL, LL128, Simple): by default the
      one NCCL's tuner picks for this collective, algorithm and size on this fabric
      (:func:`nvlearn.tuner.choose` restricted to the schedule's algorithm), or the one passed.
    * **Link rates.** An NVLink moves ``nvlink_bw(sm)`` (20.6 GB/s per link on Hopper, the
      figure NCCL's topology gives an NVLink) instead of its 25 GB/s wire rate; a PCIe link
      NCCL's ``PCI_BW`` share of its wire rate (12 of 15.75 GB/s for Gen3 x16); a network
      link its port speed (``net.bw = mbps / 8000``). The protocol then keeps its payload
      share of that: LL 8 of every 16 bytes, LL128 120 of 128, Simple all; LL is further
      capped per GPU at NCCL's ``llMaxBws``. NVLS runs its NVLink links at
      ``nvlsEfficiency`` (0.85 on Hopper) of the achievable rate.
    * **Latency.** Every op pays NCCL's per-step latency ``hwLatencies[link][algorithm][protocol]``
      (``link`` = the slowest kind of link on its route: NVLink, PCIe or network) in place of
      the wire latency of its route — which includes the wire, so the wire latency stays
      only as a floor (a route longer than NCCL assumed, such as the pod's four NVLink hops,
      keeps its own) — and the first ops start after the algorithm's base latency
      ``baseLat``. NVLS's NVLink latency (25 us) is the end-to-end cost of its kernel, not a
      per-hop one: it is charged once, less the four wire hops (up to the switch and back,
      twice) that the routes already charge, so a one-slot NVLS all-reduce costs exactly
      NCCL's 25 us plus its data.

    Not modelled: NCCL's empirical bandwidth corrections (LL128 x 0.92, the tree's size
    table, the multi-node ring "plateau" x 1.4), its per-step network overhead of 1-2 us, CPU
    proxy jitter, and kernel launch. Algorithms NCCL does not have (recursive doubling,
    Rabenseifner, all-to-all) use the Ring row's constants: each of their steps is a
    point-to-point send like a ring step; collectives NCCL's tuner does not price (all-to-all,
    broadcast) run Simple, NCCL's bulk protocol.

On one uncontended NVSwitch box this reproduces NCCL's predicted time for the algorithm it
chose (``latency + n / algBw``) — exactly for the ring, and within the pipeline fill for the
tree and NVLS; a test holds it within 5 %. With several flows on a link (a taper, a degraded
link, an all-to-all) the simulator adds the contention NCCL's model leaves out.

References
----------
NVIDIA NCCL 2.30.7: src/graph/tuning.cc (baseLat, hwLat, llMaxBws, nvlsEfficiency),
src/graph/topo.h (SM90_NVLINK_BW, PCI_BW), src/graph/topo.cc (ncclTopoAddNet), src/device.h
(LL and LL128 line formats).
Z. Hu et al., "Demystifying NCCL: An In-depth Analysis of GPU Communication Protocols and
Algorithms", arXiv:2507.04786 (2025).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .. import specs
from ..topology import (
    LINK_ETH,
    LINK_IB,
    LINK_KIND_NAMES,
    LINK_NVLINK,
    LINK_NVLINK_NETWORK,
    LINK_PCIE,
    NODE_GPU,
)

__all__ = [
    "DEFAULT_MODEL", "MODELS", "NCCL_ROW", "PATH_TYPES", "Achievable", "achievable_capacity",
    "achievable_inputs", "check_model", "in_switch_round_trip", "injection_bw_per_dir",
    "kind_fractions", "nccl_protocol", "nccl_row", "path_types", "software_latency"
]

#: The simulator's models; the first is the default.
MODELS: tuple[str, ...] = ("achievable", "wire")
DEFAULT_MODEL = MODELS[0]

#: NCCL's link classes for latencies, slowest last (a route takes its slowest link's class).
PATH_TYPES: tuple[str, ...] = ("nvlink", "pci", "net")
_PATH_TYPE_OF_KIND = {LINK_NVLINK: 0, LINK_NVLINK_NETWORK: 0, LINK_PCIE: 1, LINK_IB: 2,
                      LINK_ETH: 2}

#: The NCCL algorithm whose constants time each schedule algorithm (module docstring).
NCCL_ROW: dict[str, str] = {
    "ring": "ring", "binary_tree": "tree", "double_binary_tree": "tree", "nccl_tree": "tree",
    "nvls": "nvls", "recursive_doubling": "ring", "rabenseifner": "ring",
    "recursive_halving": "ring", "direct": "ring", "hierarchical": "ring",
}
_IN_SWITCH = ("nvls", "nvls_tree")


def check_model(model: object) -> str:
    """``model`` if it is one of :data:`MODELS`, else a ValueError that lists them."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS} ('achievable': what NCCL reaches, the "
                         f"default; 'wire': the ideal at link rate), got {model!r}")
    return str(model)


def nccl_row(schedule) -> str:
    """The NCCL algorithm whose constants time ``schedule`` (see :data:`NCCL_ROW`).

    A hierarchical all-reduce with NVLS inside each node is NCCL's NVLSTree.

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> nccl_row(allreduce(8, 1e6, "double_binary_tree"))
    'tree'
    """
    algo = schedule.algorithm
    if algo == "hierarchical" and schedule.meta.get("intra") == "nvls":
        return "nvls_tree"
    return NCCL_ROW.get(algo, "ring")


@dataclass(frozen=True)
class Achievable:
    """What the achievable model used for one run (seconds, bytes/s).

    Attributes
    ----------
    protocol : {"ll", "ll128", "simple"}
    nccl_algorithm : str
        NCCL's algorithm whose latencies were charged ("ring", "tree", "nvls", "nvls_tree").
    base_latency : float
        Seconds before the first sends (``baseLat``; NVLS: its fixed latency).
    step_latency : dict
        Seconds per op by the route's link class ("nvlink", "pci", "net").
    rate_fraction : dict
        Achievable / wire rate per link kind present, after protocol and NVLS efficiency.
    ll_cap : float or None
        NCCL's per-GPU LL bandwidth cap (bytes/s) where it applied.
    chosen_by : str
        Why this protocol.
    """

    protocol: str
    nccl_algorithm: str
    base_latency: float
    step_latency: dict
    rate_fraction: dict
    ll_cap: float | None
    chosen_by: str

    def __str__(self) -> str:
        name = {"ll": "LL", "ll128": "LL128", "simple": "Simple"}[self.protocol]
        rates = ", ".join(f"{k} x{v:.3g}" for k, v in self.rate_fraction.items())
        lat = ", ".join(f"{k} {v * 1e6:.3g} us" for k, v in self.step_latency.items())
        cap = f"; LL capped at {self.ll_cap / 1e9:.4g} GB/s per GPU" if self.ll_cap else ""
        return (f"achievable model (NCCL constants): {self.nccl_algorithm}/{name} "
                f"({self.chosen_by}); link rate vs wire: {rates}{cap}; base latency "
                f"{self.base_latency * 1e6:.3g} us, per step: {lat}")


def _gpu_key(topology) -> str:
    return str(getattr(topology, "gpu", "h100"))


def _architecture(topology) -> str:
    return specs.gpu(_gpu_key(topology)).architecture.lower()


def kind_fractions(topology, protocol: str = "simple", nccl_algorithm: str = "ring",
                   model: specs.NCCLModel | None = None) -> dict[int, float]:
    """Achievable / wire rate per link kind (``LINK_*`` -> fraction) before the LL cap.

    Parameters
    ----------
    topology : Topology
        The fabric; its GPU (``topology.gpu``, default H100) sets the architecture's constants.
    protocol : {"ll", "ll128", "simple"}
        NCCL's protocol, whose payload share of the line (LL 8/16, LL128 120/128, Simple 1)
        multiplies every kind.
    nccl_algorithm : {"ring", "tree", "nvls", "nvls_tree"}
        NCCL's algorithm whose constants apply (:func:`nccl_row`); the in-switch ones (NVLS,
        NVLSTree) run NVLink at ``nvlsEfficiency``.
    model : NCCLModel, optional
        NCCL's constants; default :func:`nvlearn.specs.nccl`.

    Returns
    -------
    dict of int to float
        For every link kind (``LINK_NVLINK``, ``LINK_NVLINK_NETWORK``, ``LINK_PCIE``,
        ``LINK_IB``, ``LINK_ETH``): achievable bytes/s over wire bytes/s, in (0, 1].

    Raises
    ------
    ValueError
        NCCL has no constants for the GPU's architecture, or an unknown protocol.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100, LINK_NVLINK
    >>> round(kind_fractions(dgx_h100())[LINK_NVLINK], 4)         # 20.6 / 25 GB/s
    0.824
    >>> round(kind_fractions(dgx_h100(), "simple", "nvls")[LINK_NVLINK], 4)   # x 0.85
    0.7004
    """
    if model is None:  # the default catalogue's constants: computed once per combination
        return dict(_default_kind_fractions(_gpu_key(topology), protocol, nccl_algorithm))
    return _kind_fractions(_gpu_key(topology), protocol, nccl_algorithm, model)


@functools.lru_cache(maxsize=64)
def _default_kind_fractions(gpu_key: str, protocol: str, nccl_algorithm: str
                            ) -> dict[int, float]:
    return _kind_fractions(gpu_key, protocol, nccl_algorithm, specs.nccl())


def _kind_fractions(gpu_key: str, protocol: str, nccl_algorithm: str,
                    m: specs.NCCLModel) -> dict[int, float]:
    """:func:`kind_fractions` for the GPU of catalogue key ``gpu_key``."""
    from ..tuner.nccl import SM

    g = specs.gpu(gpu_key)
    arch = g.architecture.lower()
    if arch not in SM:
        raise ValueError(f"NCCL's model has no constants for {g.name} ({g.architecture})")
    payload = {"ll": m.ll_data_fraction, "ll128": m.ll128_data_fraction, "simple": 1.0}
    if protocol not in payload:
        raise ValueError(f"protocol must be one of {tuple(payload)}, got {protocol!r}")
    nvlink = m.nvlink_bw(SM[arch]) / specs.nvlink(g.nvlink_generation).link_bw_per_dir
    if nccl_algorithm in _IN_SWITCH:
        nvlink *= m.nvls_efficiency(arch)
    base = {LINK_NVLINK: nvlink, LINK_NVLINK_NETWORK: nvlink,
            LINK_PCIE: m.pci_bw / specs.pcie(3).x16_bw_per_dir,
            LINK_IB: m.net_port_fraction, LINK_ETH: m.net_port_fraction}
    return {k: f * payload[protocol] for k, f in base.items()}


def path_types(topology, indptr: np.ndarray, link: np.ndarray) -> np.ndarray:
    """Index into :data:`PATH_TYPES` of each route: its slowest link class (-1 for a route
    with no links: a GPU's copy into its own buffer).

    Parameters
    ----------
    topology : Topology
        The fabric whose ``link_kind`` classifies the links.
    indptr : ndarray of int, shape (n_routes + 1,)
        CSR index of the routes: route ``p`` is ``link[indptr[p]:indptr[p + 1]]``.
    link : ndarray of int
        Link ids of the routes' entries.

    Returns
    -------
    ndarray of int64, shape (n_routes,)
        0 (NVLink), 1 (PCIe) or 2 (network) per route, or -1 for a route of no link.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> t = ib_cluster(2)
    >>> ip, lk, _, _ = t.routes(t.gpus[[0, 0]], t.gpus[[1, 8]])
    >>> [PATH_TYPES[i] for i in path_types(t, ip, lk)]
    ['nvlink', 'net']
    """
    kind_type = np.array([_PATH_TYPE_OF_KIND[k] for k in range(5)], dtype=np.int64)
    per_entry = kind_type[np.asarray(topology.link_kind)[link]]
    out = np.full(indptr.size - 1, -1, dtype=np.int64)
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    if nonempty.size:
        out[nonempty] = np.maximum.reduceat(per_entry, indptr[nonempty])
    return out


def nccl_protocol(topology, collective: str, n_ranks: int, nccl_size: float,
                  nccl_algorithm: str) -> tuple[str, str]:
    """The protocol NCCL's tuner would run, and why (Simple where it prices nothing).

    Parameters
    ----------
    topology : Topology
        The fabric NCCL's tuner models (:func:`nvlearn.tuner.nccl.tune`).
    collective : str
        The collective, e.g. ``"allreduce"``; one NCCL's tuner does not price (all-to-all,
        broadcast) gets Simple.
    n_ranks : int
        GPUs taking part, >= 1.
    nccl_size : float
        The message size NCCL's tuner prices, bytes (``Schedule.nccl_size``).
    nccl_algorithm : {"ring", "tree", "nvls", "nvls_tree"}
        NCCL's algorithm whose constants apply (:func:`nccl_row`).

    Returns
    -------
    protocol : {"ll", "ll128", "simple"}
        The protocol to run.
    why : str
        Why it: the tuner's choice, or why the tuner could not choose.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> nccl_protocol(dgx_h100(), "allreduce", 8, 2**10, "ring")
    ('ll', "NCCL's tuner: Ring/LL for 1 KiB")
    """
    from ..tuner import nccl

    if collective not in nccl.ALGORITHMS or nccl_algorithm not in nccl.ALGORITHMS[collective]:
        return "simple", f"Simple: NCCL's tuner does not price {nccl_algorithm} {collective}"
    return _protocol_pick(topology, collective, int(n_ranks), float(nccl_size), nccl_algorithm)


@functools.lru_cache(maxsize=1024)
def _protocol_pick(topology, collective: str, n_ranks: int, nccl_size: float,
                   nccl_algorithm: str) -> tuple[str, str]:
    """:func:`nccl_protocol` for an algorithm NCCL's tuner prices (cached per topology,
    like :func:`_tuning`: a widget runs the same few sizes again and again)."""
    from ..tuner import nccl

    table = _tuning(topology, collective, n_ranks, nccl_algorithm)
    if isinstance(table, str):
        return "simple", f"Simple: NCCL's tuner cannot price this fabric ({table})"
    best = table.best(nccl_size)
    return best.protocol, f"NCCL's tuner: {best.label} for {nccl.format_size(nccl_size)}"


@functools.lru_cache(maxsize=256)
def _tuning(topology, collective: str, n_ranks: int, nccl_algorithm: str):
    """NCCL's table for one algorithm (cached per topology), or why there is none."""
    from ..tuner import nccl

    try:
        return nccl.tune(collective, topology, n_ranks=n_ranks, algorithms=[nccl_algorithm])
    except ValueError as err:
        return str(err)


@functools.lru_cache(maxsize=256)
def _ll_cap(topology, n_ranks: int) -> float:
    """NCCL's ``llMaxBws`` cap per GPU for ``n_ranks`` GPUs of ``topology`` (cached per
    topology, like :func:`_tuning`: reading the fabric NCCL would see takes ~0.2 ms)."""
    from ..tuner import nccl

    f = nccl.fabric_from_topology(topology, n_ranks)
    row = f.architecture if f.n_nodes == 1 else nccl.LL_CPU_ROW[f.cpu]
    return specs.nccl().bw_cap("ll_max_bws", row, f.n_nodes)


def achievable_capacity(topology, capacity: np.ndarray, protocol: str, nccl_algorithm: str,
                        n_ranks: int) -> tuple[np.ndarray, float | None]:
    """Achievable bytes/s per direction of every link, and the per-GPU LL cap if it applied.

    ``capacity`` is the wire rate per link (after any degradation): each link keeps
    :func:`kind_fractions` of it; under LL each GPU's outgoing links together, and its
    incoming links together, are held to NCCL's ``llMaxBws`` for ``n_ranks`` GPUs of this
    fabric.

    Parameters
    ----------
    topology : Topology
        The fabric; its GPU (``topology.gpu``, default H100) sets the architecture's constants.
    capacity : ndarray of float64, shape (n_links,)
        Wire capacity of each link, bytes/s per direction (>= 0).
    protocol : {"ll", "ll128", "simple"}
        NCCL's protocol.
    nccl_algorithm : {"ring", "tree", "nvls", "nvls_tree"}
        NCCL's algorithm whose constants apply (:func:`nccl_row`); the in-switch ones (NVLS,
        NVLSTree) run NVLink at ``nvlsEfficiency``.
    n_ranks : int
        GPUs taking part, >= 1 (sets NCCL's ``llMaxBws`` row: one node or several).

    Returns
    -------
    capacity : ndarray of float64, shape (n_links,)
        Achievable capacity of each link, bytes/s per direction.
    ll_cap : float or None
        NCCL's per-GPU LL cap, bytes/s, under LL; None otherwise.

    Raises
    ------
    ValueError
        An in-switch algorithm with a protocol other than Simple.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> t = dgx_h100()
    >>> cap, ll_cap = achievable_capacity(t, t.link_capacity, "ll", "ring", 8)
    >>> round(float(cap[t.link_src == t.gpus[0]].sum()) / 1e9, 1), ll_cap / 1e9
    (141.0, 141.0)
    """
    if nccl_algorithm in _IN_SWITCH and protocol != "simple":
        raise ValueError(f"NCCL runs {nccl_algorithm} only with the Simple protocol, "
                         f"not {protocol!r}")
    out = np.asarray(capacity, dtype=np.float64) * _link_fractions(topology, protocol,
                                                                   nccl_algorithm)
    if protocol != "ll":
        return out, None
    cap = _ll_cap(topology, int(n_ranks))
    node_kind = np.asarray(topology.node_kind)
    for end in (np.asarray(topology.link_src), np.asarray(topology.link_dst)):
        at_gpu = node_kind[end] == NODE_GPU
        total = np.bincount(end[at_gpu], weights=out[at_gpu], minlength=topology.n_nodes)
        scale = np.minimum(1.0, cap / np.where(total > 0, total, np.inf))
        out[at_gpu] *= scale[end[at_gpu]]
    return out, cap


@functools.lru_cache(maxsize=256)
def _link_fractions(topology, protocol: str, nccl_algorithm: str) -> np.ndarray:
    """:func:`kind_fractions` of each link of ``topology`` (read-only; cached per topology,
    like :func:`_tuning`)."""
    fractions = kind_fractions(topology, protocol, nccl_algorithm)
    out = np.array([fractions[k] for k in range(len(LINK_KIND_NAMES))])[
        np.asarray(topology.link_kind)]
    out.setflags(write=False)
    return out


def injection_bw_per_dir(topology, protocol: str = "simple",
                         link_kinds=None) -> np.ndarray:
    """Achievable bytes/s per direction each GPU can push into the fabric: the sum of its
    out-links at NCCL's rates (:func:`achievable_capacity`, as a point-to-point send with
    ``protocol``); the achievable twin of
    :func:`nvlearn.topology.metrics.injection_bw_per_dir`.

    Parameters
    ----------
    topology : Topology
        The fabric; its GPU (``topology.gpu``, default H100) sets the architecture's constants.
    protocol : {"ll", "ll128", "simple"}
        NCCL's protocol of the send (under LL, with its cap for ``topology.n_gpus`` GPUs).
    link_kinds : sequence of int, optional
        Count only out-links of these kinds (``LINK_*``); default: every link.

    Returns
    -------
    ndarray of float64, shape (n_gpus,)
        Each GPU's achievable injection bandwidth, bytes/s per direction.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> round(float(injection_bw_per_dir(dgx_h100())[0]) / 1e9, 1)     # 18 x 20.6 GB/s
    370.8
    """
    cap, _ = achievable_capacity(topology, topology.link_capacity, protocol, "ring",
                                 int(topology.n_gpus))
    keep = (np.ones(topology.n_links, bool) if link_kinds is None
            else np.isin(topology.link_kind, np.asarray(link_kinds)))
    per_node = np.bincount(np.asarray(topology.link_src)[keep], weights=cap[keep],
                           minlength=topology.n_nodes)
    return per_node[np.asarray(topology.gpus)]


def software_latency(protocol: str, nccl_algorithm: str) -> tuple[float, dict[str, float]]:
    """NCCL's base latency and per-step latency by link class (seconds) for one algorithm.

    NVLS's NVLink latency is a fixed cost of the kernel: it joins the base, and its NVLink
    steps cost only their wire latency.

    Examples
    --------
    >>> base, step = software_latency("ll", "ring")
    >>> round(base * 1e6, 3), round(step["nvlink"] * 1e6, 3), round(step["net"] * 1e6, 3)
    (6.6, 0.6, 2.7)
    >>> base, step = software_latency("simple", "nvls")
    >>> round(base * 1e6, 3), step["nvlink"]
    (25.0, 0.0)
    """
    base, step = _software_latency(protocol, nccl_algorithm)
    return base, dict(step)


@functools.lru_cache(maxsize=64)
def _software_latency(protocol: str, nccl_algorithm: str) -> tuple[float, dict[str, float]]:
    m = specs.nccl()
    step = {t: m.hw_latency(t, nccl_algorithm, protocol) for t in PATH_TYPES}
    base = m.base_latency(nccl_algorithm, protocol)
    if nccl_algorithm in _IN_SWITCH:
        base += step["nvlink"]
        step["nvlink"] = 0.0
    return base, step


def in_switch_round_trip(schedule, op_path: np.ndarray, wire_latency: np.ndarray) -> float:
    """Wire seconds on the critical path of a one-slot in-switch all-reduce: up to the
    switch and back, twice (reduce, then multicast) — the part of NCCL's end-to-end NVLS
    latency that the routes already charge.

    Parameters
    ----------
    schedule : Schedule
        The in-switch schedule: ops from ranks (participants ``< n_ranks``) up to the
        switch, and from the switch down.
    op_path : ndarray of int, shape (n_ops,)
        Each op's route index (:func:`nvlearn.sim.op_routes`).
    wire_latency : ndarray of float64, shape (n_routes,)
        Each route's wire latency, seconds.

    Returns
    -------
    float
        Twice the sum of the slowest up-route's and the slowest down-route's latency,
        seconds; 0.0 for a schedule without both up and down traffic through a switch.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> from nvlearn.collectives import allreduce
    >>> from nvlearn.sim import op_routes, participant_nodes
    >>> t, s = dgx_h100(), allreduce(dgx_h100(), 1e6, "nvls")
    >>> op_path, _, _, _, lat = op_routes(t, s, participant_nodes(t, s))
    >>> round(in_switch_round_trip(s, op_path, lat) * 1e6, 3)       # 4 NVLink hops
    1.2
    """
    src, dst = np.asarray(schedule.op_src), np.asarray(schedule.op_dst)
    p = int(schedule.n_ranks)
    lat = np.asarray(wire_latency)[np.asarray(op_path)]
    up, down = lat[(src < p) & (dst >= p)], lat[(src >= p) & (dst < p)]
    if not (up.size and down.size):
        return 0.0
    return 2.0 * (float(up.max()) + float(down.max()))


def achievable_inputs(topology, schedule, capacity: np.ndarray, path_indptr: np.ndarray,
                      path_link: np.ndarray, wire_latency: np.ndarray, op_path: np.ndarray,
                      protocol: str | None = None, *, path_type: np.ndarray | None = None):
    """Link capacities, route latencies and op delays of the achievable model.

    Parameters
    ----------
    topology, schedule
        What is run.
    capacity : ndarray
        Wire capacities (bytes/s per direction) after any ``link_factor``.
    path_indptr, path_link : ndarray
        The routes (CSR), as :func:`nvlearn.sim.op_routes` returns them.
    wire_latency : ndarray
        Seconds per route on the wire: the floor under the software latency.
    op_path : ndarray
        Route of each op.
    protocol : {"ll", "ll128", "simple"}, optional
        Default: NCCL's choice (:func:`nccl_protocol`).
    path_type : ndarray of int, optional
        :func:`path_types` of these routes, if the caller has it (computed here otherwise).

    Returns
    -------
    capacity : ndarray
        Achievable bytes/s per direction per link.
    path_latency : ndarray
        Seconds per route: NCCL's per-step latency for its link class, never below the
        route's wire latency.
    op_delay : ndarray
        The schedule's delays plus the base latency on ops without dependencies (for NVLS,
        its end-to-end latency less the wire round trip the routes already charge).
    detail : Achievable
    """
    row = nccl_row(schedule)
    if protocol is None:
        protocol, why = nccl_protocol(topology, schedule.collective, schedule.n_ranks,
                                      schedule.nccl_size, row)
    else:
        why = "chosen by the caller"
    out, ll_cap = achievable_capacity(topology, capacity, protocol, row, schedule.n_ranks)
    base, step = software_latency(protocol, row)
    if row in _IN_SWITCH:
        base = max(0.0, base - in_switch_round_trip(schedule, op_path, wire_latency))
    per_type = np.array([step[t] for t in PATH_TYPES] + [0.0])   # index -1: no links
    if path_type is None:
        path_type = path_types(topology, path_indptr, path_link)
    software = per_type[path_type]
    latency = np.maximum(software, wire_latency)
    delay = np.array(schedule.op_delay, dtype=np.float64)
    delay[np.diff(schedule.dep_indptr) == 0] += base
    fractions = kind_fractions(topology, protocol, row)
    present = sorted({int(k) for k in np.unique(np.asarray(topology.link_kind))})
    detail = Achievable(protocol, row, base, step,
                        {LINK_KIND_NAMES[k]: fractions[k] for k in present}, ll_cap, why)
    return out, latency, delay, detail
