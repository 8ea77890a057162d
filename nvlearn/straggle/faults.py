"""Faults in a training step: a slow GPU, a slow link, a failed NVSwitch plane, a lost rail.

A synchronous all-reduce finishes when its slowest participant does. This module puts one
fault into a simulation and reports the result beside the healthy run:

* **slow GPU** — its backward pass ends late, so its first transfers start late:
  :func:`with_rank_delay` holds every op that touches the rank until ``seconds`` have passed;
* **slow link** — one direction of one GPU's NVLink bundle to one NVSwitch plane (or of
  one NIC cable) at a fraction of its rate. ``routing="static"`` keeps each flow's share on
  it (what a ring or an NVLS multicast object does: the split over planes is fixed when
  the communicator is built), ``"adaptive"`` re-weights routes by the remaining capacity
  (:func:`nvlearn.topology.with_link_factor`);
* **failed plane** — every link of one NVSwitch plane dead: routes move to the other planes,
  and NVLS is rebuilt on the planes that are left;
* **lost rail** — one InfiniBand rail (its leaf switch) gone. NCCL does not move a channel to
  another NIC by itself: the collective as built cannot finish (the simulator refuses a route
  over a dead link). Rebuilt without the rail, the ring and NCCL's tree run one channel fewer.

Times come from :func:`nvlearn.sim.simulate` under the model asked for (default
``"achievable"``: NCCL's per-link rates, protocol and per-step latencies).

References
----------
J. Dean and L. A. Barroso, "The tail at scale", Commun. ACM 56(2):74-80, 2013 (a
synchronous step waits for its slowest part).
NVIDIA NCCL, src/graph/connect.cc and src/transport/net.cc (channels fixed per NIC when the
communicator is built, so a lost rail is not routed around).

Examples
--------
>>> from nvlearn.topology import dgx_h100
>>> topo = dgx_h100()
>>> link_ids(topo, "gpu3", "nvswitch0").tolist()
[24]
>>> run = run_fault(topo, "ring", 2**28, "slow_link", factor=0.5, model="wire")
>>> round(run.slowdown, 2)                   # one link at half rate doubles an 8-GPU ring
2.0
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from nvlearn.schedule import Schedule
from nvlearn.sim import models as sim_models
from nvlearn.topology import NODE_IB_SWITCH, NODE_NIC, NODE_NVSWITCH, NODE_PCIE_SWITCH

__all__ = [
    "FAULTS", "ALGORITHMS", "ROUTINGS", "MAX_CHUNKS", "RING_SLOTS", "link_ids", "node_links",
    "plane_links", "rail_links", "with_rank_delay", "FaultRun", "default_chunks", "run_fault",
]

#: The faults :func:`run_fault` knows, in the order the notebook shows them.
FAULTS = ("none", "slow_gpu", "slow_link", "failed_plane", "lost_rail")
#: All-reduce variants :func:`run_fault` builds (names of :mod:`nvlearn.tuner.sweep`).
ALGORITHMS = ("ring", "nccl_tree", "double_binary_tree", "nvls", "hierarchical")
#: Algorithms whose channels are laid out one per rail (channel c on rail c).
_CHANNELLED = ("ring", "nccl_tree")
ROUTINGS = ("static", "adaptive")
#: Deepest pipeline :func:`run_fault` picks by itself (keeps the schedules small).
MAX_CHUNKS = 16
#: Slots per ring step in :func:`run_fault`: NCCL keeps several slots of a ring step in
#: flight (NCCL_STEPS = 8 per channel); with one slot per step, a rank whose in- and outgoing
#: links are both slow cannot overlap receiving one slot with forwarding the previous one.
RING_SLOTS = 4


def _node(topology, name: str) -> int:
    try:
        return topology.node_name.index(name)
    except ValueError:
        raise ValueError(f"{name!r} is not a node of {topology.name!r}; names look like "
                         f"{topology.node_name[:3]} (see topology.node_name)") from None


def link_ids(topology, src: str, dst: str, both: bool = False) -> np.ndarray:
    """Directed link ids from node ``src`` to node ``dst`` (and back, with ``both``).

    Parameters
    ----------
    topology : Topology
        The fabric.
    src, dst : str
        Topology node names (``"gpu3"``, ``"nvswitch0"``, ``"n1.nic5"`` ...).
    both : bool
        Also the links from ``dst`` back to ``src``.

    Returns
    -------
    ndarray of int
        Directed link ids; ValueError if none joins the two.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> link_ids(dgx_h100(), "gpu3", "nvswitch0", both=True).tolist()
    [24, 25]
    """
    s, d = _node(topology, src), _node(topology, dst)
    ls, ld = np.asarray(topology.link_src), np.asarray(topology.link_dst)
    sel = (ls == s) & (ld == d)
    if both:
        sel |= (ls == d) & (ld == s)
    out = np.flatnonzero(sel)
    if out.size == 0:
        raise ValueError(f"no link joins {src!r} and {dst!r} in {topology.name!r}")
    return out


def node_links(topology, names) -> np.ndarray:
    """Every directed link into or out of any node in ``names`` (node names).

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> node_links(dgx_h100(), ["nvswitch0"]).size        # 8 GPUs, both directions
    16
    """
    return _links_at(topology, np.array([_node(topology, n) for n in names], dtype=np.int64))


def plane_links(topology, plane: int) -> np.ndarray:
    """The links of NVSwitch plane ``plane`` in every box (``nvswitch{plane}``).

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100, ib_cluster
    >>> plane_links(dgx_h100(), 1).size, plane_links(ib_cluster(2), 1).size
    (16, 32)
    """
    nodes = _switches(topology, NODE_NVSWITCH, plane)
    if not nodes.size:
        raise ValueError(f"{topology.name!r} has no NVSwitch plane {plane}")
    return _links_at(topology, nodes)


def rail_links(topology, rail: int) -> np.ndarray:
    """The links of InfiniBand rail ``rail``: into and out of its leaf switches.

    Examples
    --------
    >>> from nvlearn.topology import ib_cluster
    >>> rail_links(ib_cluster(2), 7).size     # 2 NICs and 2 spine uplinks, both directions
    8
    """
    nodes = _switches(topology, NODE_IB_SWITCH, rail)
    if not nodes.size:
        raise ValueError(f"{topology.name!r} has no rail {rail} (a rail is the leaf switches "
                         "of one NIC index; rails exist on ib_cluster)")
    return _links_at(topology, nodes)


def _switches(topology, kind: int, plane: int) -> np.ndarray:
    """First-tier switches of ``kind`` that serve ``plane`` (NVSwitch plane or IB rail)."""
    return np.flatnonzero((np.asarray(topology.node_kind) == kind)
                          & (np.asarray(topology.node_tier) == 1)
                          & (np.asarray(topology.node_plane) == int(plane)))


def _links_at(topology, nodes: np.ndarray) -> np.ndarray:
    """Every directed link into or out of any of ``nodes`` (node ids)."""
    ls, ld = np.asarray(topology.link_src), np.asarray(topology.link_dst)
    return np.flatnonzero(np.isin(ls, nodes) | np.isin(ld, nodes))


def _n_rails(topology) -> int:
    """InfiniBand rails: the distinct planes of the leaf switches (0 without a network)."""
    leaves = (np.asarray(topology.node_kind) == NODE_IB_SWITCH) & (
        np.asarray(topology.node_tier) == 1)
    return len(set(np.asarray(topology.node_plane)[leaves].tolist()) - {-1})


def _nic_uplink(topology, gpu: int) -> np.ndarray:
    """The directed link from GPU ``gpu``'s NIC to its leaf switch: GPU -> PCIe switch ->
    NIC -> leaf, followed along the links."""
    src, dst = np.asarray(topology.link_src), np.asarray(topology.link_dst)
    kind = np.asarray(topology.node_kind)
    here = int(topology.gpus[gpu])
    for step in (NODE_PCIE_SWITCH, NODE_NIC, NODE_IB_SWITCH):
        out = np.flatnonzero((src == here) & (kind[dst] == step))
        if not out.size:
            raise ValueError(f"GPU {gpu} of {topology.name!r} has no path GPU -> PCIe switch "
                             "-> NIC -> leaf (an ib_cluster has one)")
        here = int(dst[out[0]])
    return out[:1]


def with_rank_delay(schedule: Schedule, rank: int, seconds: float) -> Schedule:
    """``schedule`` with rank ``rank`` arriving ``seconds`` late (a GPU whose compute ends late).

    Nothing that involves the late rank can happen before it is there. The new Schedule has
    one more op, a *gate*: a 1-byte copy from the rank to itself (an empty route: it takes no
    time and no link) that starts after ``seconds``. Every op the rank sends or receives that
    does not already wait (through its dependencies) for an earlier op of that rank now also
    waits for the gate, so it starts at ``max(its own ready time, seconds)`` — exactly "not
    before the rank is there", whatever else it waits for.

    The rest follows the Schedule's own dependencies. A ring built with ``chunks=1`` has no
    send-order dependencies (a rank's next send waits only for its data), so the ops that
    queue up behind the late rank then share its links in the fluid model instead of going
    one after another as NCCL's FIFO connections would: use ``chunks >= 2`` for a ring.

    Parameters
    ----------
    schedule : Schedule
        Any validated schedule.
    rank : int
        The late rank, ``0 <= rank < n_ranks``.
    seconds : float
        How late it arrives, seconds; finite and >= 0.

    Returns
    -------
    Schedule
        One op more (the gate, op 0); ``meta`` records the rank, the delay and how many ops
        were gated.

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> s = with_rank_delay(allreduce(4, 1e6), 2, 1e-3)
    >>> s.n_ops, float(s.op_delay.max()), s.meta["gated_ops"]
    (25, 0.001, 4)
    """
    from nvlearn.schedule import DEP_ARRIVAL, OP_COPY, make_schedule

    p = int(schedule.n_ranks)
    if isinstance(rank, bool) or int(rank) != rank or not 0 <= rank < p:
        raise ValueError(f"rank must be one of the schedule's ranks 0..{p - 1}, got {rank!r}")
    if not (np.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"seconds must be a finite delay >= 0, got {seconds!r}")
    rank = int(rank)
    touches = (schedule.op_src == rank) | (schedule.op_dst == rank)
    ip, dep = schedule.dep_indptr, schedule.dep_op
    after = np.zeros(schedule.n_ops, dtype=np.bool_)      # waits for an op of the rank
    for i in range(schedule.n_ops):                       # ops come in dependency order
        d = dep[ip[i]:ip[i + 1]]
        after[i] = bool(np.any(touches[d] | after[d]))
    gated = touches & ~after
    # the gate is op 0; every old op i becomes op i + 1
    deps = [[]] + [[(int(j) + 1, int(k)) for j, k in zip(dep[ip[i]:ip[i + 1]],
                                                          schedule.dep_kind[ip[i]:ip[i + 1]],
                                                          strict=True)]
                   + ([(0, DEP_ARRIVAL)] if gated[i] else [])
                   for i in range(schedule.n_ops)]
    n = schedule.n_bytes
    bounds = schedule.chunk_bounds
    gate_chunk = int(np.argmin(np.diff(bounds)))
    out = make_schedule(
        schedule.collective, schedule.algorithm, p, n, bounds, schedule.chunk_owner,
        schedule.chunk_dest,
        op_src=np.r_[rank, schedule.op_src], op_dst=np.r_[rank, schedule.op_dst],
        op_chunk=np.r_[gate_chunk, schedule.op_chunk],
        op_kind=np.r_[OP_COPY, schedule.op_kind], deps=deps,
        op_delay=np.r_[float(seconds), schedule.op_delay],
        participant_role=schedule.participant_role,
        meta=dict(schedule.meta, delayed_rank=rank, rank_delay=float(seconds),
                  gated_ops=int(gated.sum())))
    return dataclasses.replace(out, op_bytes=np.r_[1.0, schedule.op_bytes])


@dataclass(frozen=True)
class FaultRun:
    """One all-reduce under one fault, beside the same all-reduce on the healthy fabric.

    Attributes
    ----------
    fault, algorithm, routing : str
    result : SimResult or None
        The faulty run; None when the collective as built cannot finish (``note`` says why).
    healthy : SimResult
    faulty_links : ndarray of int
        Directed links the fault touches (empty for a slow GPU).
    note : str
        One sentence on what was simulated.
    """

    fault: str
    algorithm: str
    routing: str
    result: object
    healthy: object
    faulty_links: np.ndarray
    note: str

    @property
    def time(self) -> float:
        """Seconds under the fault (inf if it cannot finish)."""
        return float("inf") if self.result is None else float(self.result.time)

    @property
    def slowdown(self) -> float:
        """Time under the fault over the healthy time."""
        return self.time / float(self.healthy.time)


@lru_cache(maxsize=16)
def _params(topology):
    from nvlearn.tuner.sweep import link_params

    return link_params(topology)


def default_chunks(topology, algorithm: str, n_bytes: float,
                   model: str = sim_models.DEFAULT_MODEL) -> int:
    """Pipeline depth: :data:`RING_SLOTS` for the ring, else the depth
    :func:`nvlearn.tuner.sweep.best_chunks` picks, at most :data:`MAX_CHUNKS`.

    Parameters
    ----------
    topology : Topology
        The fabric the all-reduce runs on.
    algorithm : str
        A key of :data:`ALGORITHMS`.
    n_bytes : float
        Per-GPU all-reduce buffer in bytes.
    model : {"achievable", "wire"}
        The model the depth is chosen under.

    Returns
    -------
    int
        Pipeline chunks, 1 to :data:`MAX_CHUNKS`.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> default_chunks(dgx_h100(), "ring", 2**28), default_chunks(dgx_h100(), "nvls", 2**28)
    (4, 16)
    """
    from nvlearn.tuner.sweep import best_chunks

    if algorithm == "ring":
        return RING_SLOTS
    return best_chunks(algorithm, _params(topology), n_bytes, max_chunks=MAX_CHUNKS, model=model)


def _build(topology, algorithm: str, n_bytes: float, chunks: int, *, planes=None,
           channels=None):
    from nvlearn import collectives
    from nvlearn.tuner.sweep import build_allreduce

    if algorithm == "nvls" and planes is not None:
        return collectives.nvls_allreduce(topology.n_gpus, n_bytes, chunks, switches=planes)
    if algorithm in _CHANNELLED and channels is not None:
        return collectives.allreduce(topology, n_bytes, algorithm, chunks, channels=channels)
    return build_allreduce(topology, algorithm, n_bytes, chunks)


def run_fault(topology, algorithm: str, n_bytes: float, fault: str = "none", *,
              gpu: int = 3, plane: int = 0, rail: int | None = None, factor: float = 0.5,
              delay: float = 0.0, routing: str = "static", chunks: int | None = None,
              model: str = sim_models.DEFAULT_MODEL) -> FaultRun:
    """Simulate ``algorithm``'s all-reduce of ``n_bytes`` per GPU on ``topology`` under ``fault``.

    Parameters
    ----------
    topology : Topology
        ``dgx_h100()`` or ``ib_cluster(...)``.
    algorithm : {"ring", "nccl_tree", "double_binary_tree", "nvls", "hierarchical"}
        The all-reduce algorithm (:data:`ALGORITHMS`).
    n_bytes : float
        Per-GPU buffer, bytes.
    fault : one of :data:`FAULTS`
        ``"slow_gpu"`` delays GPU ``gpu`` by ``delay`` seconds; ``"slow_link"`` multiplies
        the capacity of the directed link from GPU ``gpu`` to NVSwitch plane ``plane`` (on
        a cluster: from that GPU's NIC to its rail's leaf) by ``factor``;
        ``"failed_plane"`` kills NVSwitch plane ``plane`` (every box); ``"lost_rail"``
        removes InfiniBand rail ``rail`` (default: the last; only the last can be rebuilt
        around, since ring and tree channel ``c`` use rail ``c``).
    gpu : int
        Rank of the slow GPU, or of the GPU whose link is slow.
    plane : int
        NVSwitch plane of the slow link or of the failed plane.
    rail : int, optional
        InfiniBand rail that is lost (default: the last).
    factor : float
        Capacity factor of the slow link, in (0, 1].
    delay : float
        Seconds the slow GPU arrives late; >= 0.
    routing : {"static", "adaptive"}
        Slow link only: keep the healthy routes (``link_factor`` of the simulator) or let
        them follow the remaining capacity (:func:`~nvlearn.topology.with_link_factor`).
    chunks : int, optional
        Pipeline depth; default :func:`default_chunks`.
    model : {"achievable", "wire"}
        The simulator's model of the fabric.

    Returns
    -------
    FaultRun
        The faulty and the healthy SimResult (times in seconds), the links the fault
        touches, and a note; ``.slowdown`` their ratio.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> r = run_fault(dgx_h100(), "nvls", 2**28, "failed_plane", plane=1, model="wire")
    >>> round(r.slowdown, 2)                  # 18 links -> 14: 18/14
    1.29
    """
    from nvlearn.sim import simulate

    multi = _check_fault(topology, algorithm, fault, routing, factor, gpu)
    c = default_chunks(topology, algorithm, n_bytes, model) if chunks is None else int(chunks)
    healthy_s = _build(topology, algorithm, n_bytes, c)
    healthy = simulate(topology, healthy_s, model=model)
    case = _Case(topology, algorithm, n_bytes, c, healthy_s, multi)
    plan = _PLANNERS[fault](case, gpu=gpu, plane=plane, rail=rail, factor=factor, delay=delay,
                            routing=routing)
    result = None if plan.schedule is None else simulate(
        plan.topology, plan.schedule, model=model, link_factor=plan.link_factor)
    return FaultRun(fault, algorithm, routing, result, healthy, plan.links, plan.note)


def _check_fault(topology, algorithm: str, fault: str, routing: str, factor: float,
                 gpu: int) -> bool:
    """Refuse bad arguments; returns whether ``topology`` is a multi-node IB cluster."""
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; expected one of {FAULTS}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {ALGORITHMS}")
    if routing not in ROUTINGS:
        raise ValueError(f"routing must be one of {ROUTINGS}, got {routing!r}")
    if not (np.isfinite(factor) and 0 < factor <= 1):
        raise ValueError(f"factor must be in (0, 1] (1 = healthy, 0.5 = half rate), got {factor}")
    multi = _n_rails(topology) > 0
    if algorithm == "nvls" and multi:
        raise ValueError("NVLS reduces inside one NVSwitch domain; on a cluster use "
                         "'hierarchical'")
    if algorithm == "hierarchical" and not multi:
        raise ValueError("the hierarchical all-reduce needs several nodes (ib_cluster)")
    if not 0 <= gpu < topology.n_gpus:
        raise ValueError(f"gpu must be 0..{topology.n_gpus - 1}, got {gpu}")
    return multi


class _Case(NamedTuple):
    """What every fault planner starts from: the healthy all-reduce on the healthy fabric."""

    topology: object
    algorithm: str
    n_bytes: float
    chunks: int
    schedule: Schedule
    multi: bool


class _Plan(NamedTuple):
    """What to simulate for one fault (``schedule`` None: the collective cannot finish)."""

    topology: object
    schedule: Schedule | None
    link_factor: dict | None
    links: np.ndarray
    note: str


def _no_fault(case: _Case, **_) -> _Plan:
    return _Plan(case.topology, case.schedule, None, np.zeros(0, np.int64), "healthy fabric")


def _slow_gpu(case: _Case, *, gpu: int, delay: float, **_) -> _Plan:
    return _Plan(case.topology, with_rank_delay(case.schedule, gpu, delay), None,
                 np.zeros(0, np.int64), f"GPU {gpu} starts {delay * 1e6:.0f} us late")


def _slow_link(case: _Case, *, gpu: int, plane: int, factor: float, routing: str,
               **_) -> _Plan:
    from nvlearn.topology import with_link_factor

    topo = case.topology
    if case.multi:
        links = _nic_uplink(topo, gpu)
    else:
        links = link_ids(topo, topo.node_name[int(topo.gpus[gpu])],
                         topo.node_name[int(_switches(topo, NODE_NVSWITCH, plane)[0])])
    note = (f"{topo.node_name[int(topo.link_src[links[0]])]} -> "
            f"{topo.node_name[int(topo.link_dst[links[0]])]} at {factor:.0%} of "
            f"its rate, {routing} routing")
    if routing == "static":
        return _Plan(topo, case.schedule, {int(k): factor for k in links}, links, note)
    return _Plan(with_link_factor(topo, links, factor), case.schedule, None, links, note)


def _failed_plane(case: _Case, *, plane: int, **_) -> _Plan:
    from nvlearn.collectives import nvswitch_planes
    from nvlearn.topology import with_link_factor

    topology = case.topology
    links = plane_links(topology, plane)
    topo = with_link_factor(topology, links, 0.0)
    if case.algorithm == "nvls":
        live = tuple((n, w) for n, w in nvswitch_planes(topology, range(topology.n_gpus))
                     if n != f"nvswitch{plane}")
        total = sum(w for _, w in live)
        schedule = _build(topology, "nvls", case.n_bytes, case.chunks,
                          planes=tuple((n, w / total) for n, w in live))
    else:
        schedule = _build(topo, case.algorithm, case.n_bytes, case.chunks)
    return _Plan(topo, schedule, None, links,
                 f"NVSwitch plane {plane} failed: routes and NVLS use the other planes")


def _lost_rail(case: _Case, *, rail: int | None, **_) -> _Plan:
    from nvlearn.topology import with_link_factor

    if not case.multi:
        raise ValueError("a lost rail needs an InfiniBand cluster (ib_cluster)")
    n_rails = _n_rails(case.topology)
    rail = n_rails - 1 if rail is None else int(rail)
    links = rail_links(case.topology, rail)
    topo = with_link_factor(case.topology, links, 0.0)
    if case.algorithm in _CHANNELLED and rail == n_rails - 1:
        schedule = _build(case.topology, case.algorithm, case.n_bytes, case.chunks,
                          channels=n_rails - 1)
        return _Plan(topo, schedule, None, links,
                     f"rail {rail} lost; communicator rebuilt with {n_rails - 1} channels")
    return _Plan(topo, None, None, links,
                 f"rail {rail} lost: {case.algorithm} as built needs it and cannot finish "
                 "(NCCL reports an error; the job restarts without it)")


#: One planner per fault of :data:`FAULTS`.
_PLANNERS = {"none": _no_fault, "slow_gpu": _slow_gpu, "slow_link": _slow_link,
             "failed_plane": _failed_plane, "lost_rail": _lost_rail}
