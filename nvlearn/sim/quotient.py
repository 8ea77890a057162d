"""Simulate a compact schedule on the quotient of the fabric by its symmetry.

A :class:`~nvlearn.collectives.compact.CompactSchedule` holds one representative op per
class (orbit) of ops that a symmetry group ``H`` maps onto each other, and ``H`` itself.
:func:`simulate_compact` (called by :func:`nvlearn.sim.simulate` for such a schedule):

1. extends every generator of ``H`` to an automorphism of the fabric
   (:func:`nvlearn.topology.symmetry.extend_gpu_permutation`) and refuses if one does
   not extend, if a ``link_factor`` differs inside a class of links, or if the routing
   policy is not ``"adaptive"`` (static hash routing treats symmetric paths apart);
2. groups the links into classes (orbits of ``H``) and the participants likewise;
3. routes each representative op on the real fabric, checks that the generators map those
   routes onto the routes of the image pairs, and rewrites each route over link classes:
   an op that stands for ``n_f`` ops and puts fraction ``a`` of its bytes on the links of a
   class of ``n_L`` links loads each of them by ``n_f a / n_L`` times its rate (the class's
   links are loaded alike, by the symmetry, and the ``n_f`` ops together put ``n_f a``);
4. runs the engine (:func:`nvlearn.sim.engine.run`) on one capacity constraint per class
   (merged further where classes always saturate together,
   :mod:`nvlearn.sim.constraints`), with the representatives as ops and the participant
   classes as participants.

Why it is exact: the max-min fair allocation of a set of flows is unique, so a symmetry of
the flows and the fabric maps it onto itself: every op of a class has the same rate at
every instant, hence the same start and end times, and every link of a class the same
load. The quotient constraint of a class is then the constraint of each of its links, and
the quotient's progressive filling freezes the same classes at the same levels as the full
one. Dependencies, latencies and delays are the same for every op of a class, so the event
times agree too (up to floating-point summation order).

The result (:class:`CompactResult`) reports per class of links (bytes per link, busy time,
utilisation, a timeline) and per class of participants (bytes and busy time per rank), and
expands both onto every link and rank of the fabric.

Examples
--------
>>> from nvlearn.topology import ib_cluster
>>> from nvlearn.collectives import allreduce
>>> from nvlearn.collectives.compact import compact_allreduce
>>> from nvlearn.sim import simulate
>>> t = ib_cluster(4)
>>> a = simulate(t, allreduce(t, 2**30, "hierarchical"), model="wire")
>>> b = simulate(t, compact_allreduce(t, 2**30, "hierarchical"), model="wire")
>>> abs(a.time - b.time) / a.time < 1e-12, b.n_ops, b.n_full_ops
(True, 62, 1984)
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..collectives.budget import check_ops
from ..collectives.compact import CompactSchedule
from ..progress import progress
from ..topology.symmetry import (
    Automorphism,
    Orbits,
    extend_gpu_permutation,
    orbits,
    routes_by_symmetry,
)
from ..units import format_bytes, format_rate, format_time
from .api import (
    BATCH_RTOL,
    _check_args,
    _check_finished,
    _check_routes,
    _first_width,
    _per_link,
    effective_capacity,
)
from .constraints import merge_equivalent_links
from .engine import Fabric, Ops, run
from .models import DEFAULT_MODEL, achievable_inputs
from .result import HotLink, Timeline, _Headline, heat_order

__all__ = ["EQUIVARIANCE_SAMPLE", "CompactResult", "LinkClass", "quotient_routes",
           "simulate_compact"]

#: Representative routes (evenly spread) whose images under every generator are checked
#: against the routes of the image pairs.
EQUIVARIANCE_SAMPLE = 1024


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class LinkClass:
    """One row of :meth:`CompactResult.link_classes`: a class of symmetric links.

    ``label`` names its lowest link; ``links`` is its size; ``bytes`` and ``busy_time``
    are per link (each link of the class carries the same).
    """

    index: int
    label: str
    kind: str
    links: int
    capacity: float
    bytes: float
    utilisation: float
    busy_time: float


@dataclass(frozen=True, eq=False, repr=False)
class CompactResult(_Headline):
    """A compact schedule's run: per class of links and of participants, and in total.

    Produced by :func:`simulate_compact`; arrays are read-only. Times in seconds, bytes in
    bytes, rates in bytes/s per direction. ``*_class`` arrays have one entry per class;
    the ``link_*`` and ``rank_*`` properties expand them onto every link / participant.

    Attributes
    ----------
    topology : Topology
    schedule : CompactSchedule
    time : float
        Makespan (s): when the last op's data arrived.
    op_ready, op_start, op_sent, op_end : ndarray, shape (n_ops,)
        Per representative op (every op of its class has the same times).
    links : Orbits
        The link classes: ``links.label[l]`` is link ``l``'s class.
    participants : Orbits
        The participant classes (ranks and PXN relays).
    class_capacity : ndarray
        bytes/s per direction of each link of a class, in this run (after the model).
    class_bytes, class_busy_time : ndarray, shape (n_classes,)
        Bytes each link of the class carried; seconds it carried traffic.
    participant_bytes_sent, participant_bytes_received : ndarray, shape (n_part_classes,)
        Bytes each participant of the class sent / received.
    participant_send_busy_time, participant_recv_busy_time : ndarray
        Seconds each participant of the class had a transfer out / in.
    timeline : Timeline
        Rows are link classes (bytes per bin on each link of the class).
    n_events, n_batches : int
        Engine events and rate recomputations of the quotient run.
    timings : dict
        Seconds: ``"symmetry"``, ``"routes"``, ``"engine"`` (wall clock), ``"engine_cpu"``.
    model : {"achievable", "wire"}
    model_detail : Achievable or None
    """

    topology: Any
    schedule: CompactSchedule
    time: float
    op_ready: np.ndarray
    op_start: np.ndarray
    op_sent: np.ndarray
    op_end: np.ndarray
    links: Orbits
    participants: Orbits
    class_capacity: np.ndarray
    class_bytes: np.ndarray
    class_busy_time: np.ndarray
    participant_bytes_sent: np.ndarray
    participant_bytes_received: np.ndarray
    participant_send_busy_time: np.ndarray
    participant_recv_busy_time: np.ndarray
    timeline: Timeline
    n_events: int
    n_batches: int
    timings: dict = field(default_factory=dict)
    model: str = "wire"
    model_detail: Any = None

    def __post_init__(self) -> None:
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                _frozen(value)

    # ------------------------------------------------------------------ sizes and totals
    @property
    def n_ops(self) -> int:
        """Representative ops run."""
        return int(self.op_start.size)

    @property
    def n_full_ops(self) -> int:
        """Ops of the full schedule they stand for."""
        return self.schedule.n_full_ops

    @property
    def n_classes(self) -> int:
        """Link classes crossed or not (one per orbit of links)."""
        return int(self.links.rep.size)

    # ------------------------------------------------------------------ per link, per rank
    @property
    def link_bytes(self) -> np.ndarray:
        """Bytes every directed link carried, shape (n_links,)."""
        return self.class_bytes[self.links.label]

    @property
    def link_busy_time(self) -> np.ndarray:
        """Seconds every link carried traffic, shape (n_links,)."""
        return self.class_busy_time[self.links.label]

    @property
    def link_capacity(self) -> np.ndarray:
        """bytes/s per direction of every link in this run, shape (n_links,)."""
        return self.class_capacity[self.links.label]

    @property
    def class_utilisation(self) -> np.ndarray:
        """Mean fraction of capacity each link of a class used: bytes / (capacity x time)."""
        if not self.time > 0:
            return np.zeros_like(self.class_bytes)
        return self.class_bytes / (self.class_capacity * self.time)

    @property
    def link_utilisation(self) -> np.ndarray:
        """Mean utilisation of every link, shape (n_links,)."""
        return self.class_utilisation[self.links.label]

    @property
    def rank_bytes_sent(self) -> np.ndarray:
        """Bytes each participant sent, shape (n_participants,)."""
        return self.participant_bytes_sent[self.participants.label]

    @property
    def rank_bytes_received(self) -> np.ndarray:
        """Bytes each participant received, shape (n_participants,)."""
        return self.participant_bytes_received[self.participants.label]

    @property
    def rank_send_busy_time(self) -> np.ndarray:
        """Seconds each participant was sending, shape (n_participants,)."""
        return self.participant_send_busy_time[self.participants.label]

    @property
    def rank_recv_busy_time(self) -> np.ndarray:
        """Seconds each participant was receiving, shape (n_participants,)."""
        return self.participant_recv_busy_time[self.participants.label]

    # ------------------------------------------------------------------ reports
    def link_classes(self, used_only: bool = True) -> list[LinkClass]:
        """Every class of links (those that carried traffic, by default), busiest first.

        Parameters
        ----------
        used_only : bool
            Leave out the classes no op crossed.

        Returns
        -------
        list of LinkClass
            Sorted by utilisation, then bytes (descending).
        """
        from ..topology import LINK_KIND_NAMES

        util = self.class_utilisation
        order = heat_order(util, self.class_bytes)
        topo = self.topology
        rows = []
        for c in order:
            if used_only and not self.class_bytes[c] > 0:
                continue
            rep = int(self.links.rep[c])
            rows.append(LinkClass(int(c), topo.link_label(rep),
                                  LINK_KIND_NAMES[int(topo.link_kind[rep])],
                                  int(self.links.count[c]), float(self.class_capacity[c]),
                                  float(self.class_bytes[c]), float(util[c]),
                                  float(self.class_busy_time[c])))
        return rows

    def hottest_links(self, k: int = 5) -> list[HotLink]:
        """The ``k`` link classes with the highest utilisation, as :class:`HotLink` rows
        naming each class's lowest link (every link of the class is as hot).

        Parameters
        ----------
        k : int
            Rows wanted.

        Returns
        -------
        list of HotLink
        """
        rows = self.link_classes()[: max(0, int(k))]
        return [HotLink(int(self.links.rep[r.index]), f"{r.label} (x{r.links:,})", r.bytes,
                        r.utilisation, r.busy_time) for r in rows]

    def summary(self, k: int = 5) -> str:
        """A text table: time, algbw/busbw, per-rank traffic, the ``k`` busiest link classes.

        Parameters
        ----------
        k : int
            Link classes listed.

        Returns
        -------
        str
        """
        s = self.schedule
        ranks = self.participants.label[: s.n_ranks]
        head = (f"{s.algorithm} {s.collective} (compact): {s.n_ranks:,} ranks, size "
                f"{format_bytes(s.nccl_size)}, {s.meta.get('chunks', 1)} chunk(s), on "
                f"{self.topology.name}; model: {self.model_label}")
        lines = [
            head,
            f"  symmetry                {s.meta.get('symmetry', 'none')}",
            f"  time                    {format_time(self.time)}",
            f"  algbw                   {format_rate(self.algbw)}",
            f"  busbw                   {format_rate(self.busbw)} (per direction, per rank)",
            f"  bytes sent per rank     "
            f"{format_bytes(self.participant_bytes_sent[ranks].max())} (max)",
            f"  send busy per rank      "
            f"{format_time(self.participant_send_busy_time[ranks].max())} (max)",
            f"  ops                     {self.n_ops:,} representatives for "
            f"{self.n_full_ops:,} ({s.op_count:,} each)",
            f"  link classes            {self.n_classes:,} for {self.topology.n_links:,} links",
            "",
            f"  {'busiest link classes':<40} {'links':>6} {'bytes/link':>10} "
            f"{'utilisation':>12} {'busy':>10}",
        ]
        for r in self.link_classes()[: max(0, int(k))]:
            lines.append(f"  {r.label:<40} {r.links:>6,} {format_bytes(r.bytes):>10} "
                         f"{r.utilisation:>11.1%} {format_time(r.busy_time):>10}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        s = self.schedule
        return (f"CompactResult({s.algorithm} {s.collective}, {s.n_ranks:,} ranks on "
                f"{self.topology.name}, {self.model_label}: time {format_time(self.time)}, "
                f"busbw {format_rate(self.busbw)}; {self.n_ops:,} ops for "
                f"{self.n_full_ops:,})")


# ------------------------------------------------------------------------------ the quotient
def quotient_routes(indptr: np.ndarray, link: np.ndarray, frac: np.ndarray, links: Orbits,
                    op_count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Routes over link classes: route ``i``'s entries on the links of class ``c`` become
    one entry of fraction ``op_count * (sum of their fractions) / links.count[c]``.

    Parameters
    ----------
    indptr, link, frac : ndarray
        Routes on the real fabric (CSR, as :meth:`Topology.routes`).
    links : Orbits
        The link classes (:func:`nvlearn.topology.symmetry.orbits`).
    op_count : int
        Ops each route's representative stands for (``n_f``).

    Returns
    -------
    indptr, cls, frac : ndarray
        The quotient routes (CSR over class ids), entries sorted by class within a route.

    Examples
    --------
    >>> o = Orbits(np.array([0, 0, 1]), np.array([0, 2]), np.array([2, 1]))
    >>> ptr, cls, f = quotient_routes(np.array([0, 2]), np.array([0, 2]), np.ones(2), o, 2)
    >>> ptr.tolist(), cls.tolist(), f.tolist()      # 2 flows on a class of 2 links: 1 each
    ([0, 2], [0, 1], [1.0, 2.0])
    """
    n_paths = indptr.size - 1
    n_cls = np.int64(links.rep.size)
    path = np.repeat(np.arange(n_paths, dtype=np.int64), np.diff(indptr))
    cls = links.label[link]
    key, inverse = np.unique(path * n_cls + cls, return_inverse=True)
    weight = float(op_count) * frac / links.count[cls]
    out_frac = np.bincount(inverse.reshape(-1), weights=weight, minlength=key.size)
    out_ptr = np.zeros(n_paths + 1, dtype=np.int64)
    np.cumsum(np.bincount(key // n_cls, minlength=n_paths), out=out_ptr[1:])
    return out_ptr, (key % n_cls).astype(np.int32), out_frac


def _automorphisms(topology, compact: CompactSchedule, nodes: np.ndarray) -> list[Automorphism]:
    """The fabric automorphism of every generator, checked against the participants."""
    p = compact.n_ranks
    autos = []
    for k, gen in enumerate(compact.generators):
        auto = extend_gpu_permutation(topology, gen[:p]) if topology.n_gpus == p else None
        if auto is None or not np.array_equal(auto.node[nodes], nodes[gen]):
            raise ValueError(
                f"the compact schedule's symmetry ({compact.meta.get('symmetry', k)}) is not a "
                f"symmetry of {topology.name!r}; build the compact schedule for this topology "
                "(nvlearn.collectives.compact) or simulate the full op list")
        autos.append(auto)
    return autos


def _check_equivariant(topology, autos, pairs_src, pairs_dst, indptr, link, frac,
                       latency) -> None:
    """Every generator maps the routes of (up to :data:`EQUIVARIANCE_SAMPLE` of) the
    representatives' pairs onto the routes of the image pairs, as the adaptive policy does
    on an automorphism: a check of that theorem on this fabric, not a proof."""
    if pairs_src.size > EQUIVARIANCE_SAMPLE:
        keep = np.linspace(0, pairs_src.size - 1, EQUIVARIANCE_SAMPLE).astype(np.int64)
        lo, hi = indptr[keep], indptr[keep + 1]
        entries = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
        indptr = np.concatenate([[0], np.cumsum(hi - lo)])
        pairs_src, pairs_dst = pairs_src[keep], pairs_dst[keep]
        link, frac, latency = link[entries], frac[entries], latency[keep]
    for auto in autos:
        i2, l2, f2, lat2 = topology.routes(auto.node[pairs_src], auto.node[pairs_dst])
        mapped = auto.link[link]
        same = np.array_equal(indptr, i2) and np.allclose(lat2, latency, rtol=1e-12, atol=0)
        if same:
            path = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
            a = np.lexsort((mapped, path))
            b = np.lexsort((l2, path))
            same = (np.array_equal(mapped[a], l2[b])
                    and np.allclose(frac[a], f2[b], rtol=1e-12, atol=0))
        if not same:
            raise ValueError(
                f"the routes of {topology.name!r} are not symmetric under the schedule's "
                "symmetry (its routing policy treats equivalent paths apart); simulate the "
                "full op list")


def _check_symmetric(capacity: np.ndarray, links: Orbits, what: str) -> None:
    same = capacity == capacity[links.rep][links.label]
    if not same.all():
        bad = int(np.flatnonzero(~same)[0])
        raise ValueError(
            f"{what} differs between links of one class (link {bad} has {capacity[bad]:.6g} "
            f"bytes/s, link {int(links.rep[links.label[bad]])} of its class "
            f"{capacity[links.rep[links.label[bad]]]:.6g}): the compact form needs every link "
            "of a class alike; degrade every link of the class, or simulate the full op list")


def _check_compact_size(compact: CompactSchedule, n_classes: int, timeline_bins: int) -> None:
    check_ops(compact.n_ops, f"simulating this compact {compact.algorithm} {compact.collective}",
              "build it with fewer pipeline chunks")
    need = 8.0 * (n_classes + 2) * timeline_bins
    if need > 2e9:
        raise ValueError(f"timeline_bins={timeline_bins} on {n_classes:,} link classes needs "
                         f"{need / 1e9:.1f} GB; pass timeline_bins=128 (the default)")


def simulate_compact(topology, compact: CompactSchedule, *, model: str = DEFAULT_MODEL,
                     protocol: str | None = None, link_factor=None,
                     timeline_bins: int = 128) -> CompactResult:
    """Run a compact schedule on the quotient of ``topology`` by its symmetry.

    :func:`nvlearn.sim.simulate` calls this for a
    :class:`~nvlearn.collectives.compact.CompactSchedule`; see the module docstring for the
    method and why it is exact.

    Parameters
    ----------
    topology : Topology
        The fabric the compact schedule was built for (one rank per GPU).
    compact : CompactSchedule
        Representatives, multiplicity and symmetry
        (:func:`nvlearn.collectives.compact.compact_allreduce` ...).
    model : {"achievable", "wire"}
        Which model of the fabric (:mod:`nvlearn.sim.models`).
    protocol : {"ll", "ll128", "simple"}, optional
        Achievable model only: NCCL protocol (default: the one NCCL's tuner picks).
    link_factor : dict {link: factor} or array, optional
        Per-link capacity factors; every link of a class must get the same factor.
    timeline_bins : int
        Bins of the per-class utilisation timeline (even, >= 2).

    Returns
    -------
    CompactResult
        Times per representative op, per-class link and participant figures, the total.

    Raises
    ------
    ValueError
        The symmetry is not one of this fabric, the routing policy or ``link_factor``
        breaks it, the compact schedule is over the op budget, the timeline would pass
        2 GB, or the model arguments are wrong (as :func:`nvlearn.sim.simulate`).
    """
    model = _check_args(model, protocol, timeline_bins)
    if not isinstance(compact, CompactSchedule):
        raise ValueError(f"simulate_compact runs a CompactSchedule, got "
                         f"{type(compact).__name__}; use nvlearn.sim.simulate for a Schedule")
    if topology.routing != "adaptive":
        raise ValueError(f"{topology.name!r} routes by static hash (one path per flow), which "
                         "breaks the symmetry the compact form relies on; simulate the full op "
                         "list, or use the adaptive routing of the fabric builders")
    timings: dict[str, float] = {}
    stages = progress(("symmetry", "routes", "engine"), label="compact simulation")
    try:
        next(stages)
        t_start = _time.perf_counter()
        nodes = _participant_nodes(topology, compact)
        autos = _automorphisms(topology, compact, nodes)
        links, parts = _classes(topology, compact, autos)
        _check_compact_size(compact, int(links.rep.size), int(timeline_bins))
        capacity = effective_capacity(topology, link_factor)
        _check_symmetric(capacity, links, "link capacity (after link_factor)")
        timings["symmetry"] = _time.perf_counter() - t_start
        next(stages)
        t_routes = _time.perf_counter()
        merged, latency, op_path, capacity, delay, detail = _quotient_fabric(
            topology, compact, nodes, autos, links, capacity, model, protocol)
        timings["routes"] = _time.perf_counter() - t_routes
        next(stages)
        t_engine, cpu_engine = _time.perf_counter(), _time.thread_time()
        op_bytes = np.ascontiguousarray(compact.op_bytes, dtype=np.float64)
        ops = Ops(op_bytes, np.ascontiguousarray(delay, dtype=np.float64), op_path,
                  np.ascontiguousarray(parts.label[compact.op_src], dtype=np.int32),
                  np.ascontiguousarray(parts.label[compact.op_dst], dtype=np.int32),
                  np.ascontiguousarray(compact.dep_indptr, dtype=np.int64),
                  np.ascontiguousarray(compact.dep_op, dtype=np.int32),
                  np.ascontiguousarray(compact.dep_kind, dtype=np.int8), int(parts.rep.size))
        cls_capacity = capacity[links.rep]
        out = run(Fabric(merged.capacity, merged.indptr, merged.link, merged.frac, latency),
                  ops, int(timeline_bins), _first_width(op_bytes, cls_capacity,
                                                        int(timeline_bins)),
                  BATCH_RTOL)
        timings["engine"] = _time.perf_counter() - t_engine
        timings["engine_cpu"] = _time.thread_time() - cpu_engine
    finally:
        stages.close()
    _check_finished(out)
    out = _per_link(out, merged)
    return _result(topology, compact, links, parts, cls_capacity, out, op_bytes, timings,
                   model, detail)


def _participant_nodes(topology, compact: CompactSchedule) -> np.ndarray:
    """Topology node of every participant: the ranks' GPUs, then the relays' GPUs."""
    if compact.n_ranks != topology.n_gpus:
        raise ValueError(f"the compact schedule has {compact.n_ranks:,} ranks but "
                         f"{topology.name!r} has {topology.n_gpus:,} GPUs; build it for this "
                         "topology (one rank per GPU)")
    index = {name: i for i, name in enumerate(topology.node_name)}
    try:
        extra = [index[role] for role in compact.participant_role]
    except KeyError as err:
        raise ValueError(f"participant {err.args[0]!r} is not a node of "
                         f"{topology.name!r}") from None
    return np.concatenate([np.asarray(topology.gpus, dtype=np.int64),
                           np.asarray(extra, dtype=np.int64)])


def _classes(topology, compact: CompactSchedule, autos: list[Automorphism]
             ) -> tuple[Orbits, Orbits]:
    """Orbits of the links and of the participants under the schedule's symmetry."""
    if not autos:                                       # no symmetry: every one its own
        return (orbits(np.arange(topology.n_links)[None, :], [1]),
                orbits(np.arange(compact.n_participants)[None, :], [1]))
    return (orbits([a.link for a in autos], compact.orders),
            orbits(compact.generators, compact.orders))


def _quotient_fabric(topology, compact, nodes, autos, links, capacity, model, protocol):
    """Route the representatives, apply the model, and rewrite the routes over link
    classes (merged into constraints). Returns ``(constraints, route latency, op_path,
    link capacity, op delay, model detail)``."""
    n_nodes = np.int64(topology.n_nodes)
    src, dst = nodes[compact.op_src], nodes[compact.op_dst]
    pairs, op_path = np.unique(src * n_nodes + dst, return_inverse=True)
    op_path = op_path.reshape(-1).astype(np.int32)
    p_src, p_dst = pairs // n_nodes, pairs % n_nodes
    indptr, link, frac, latency = (np.asarray(a) for a in
                                   routes_by_symmetry(topology, p_src, p_dst))
    _check_routes(topology, capacity, indptr, link, frac, latency, p_src, p_dst)
    _check_equivariant(topology, autos, p_src, p_dst, indptr, link, frac, latency)
    delay, detail = compact.op_delay, None
    if model == "achievable":
        capacity, latency, delay, detail = achievable_inputs(
            topology, compact, capacity, indptr, link, latency, op_path, protocol)
        _check_symmetric(capacity, links, "the achievable model's link rate")
    q_ptr, q_cls, q_frac = quotient_routes(indptr, link, frac, links, compact.op_count)
    merged = merge_equivalent_links(capacity[links.rep], q_ptr, q_cls, q_frac)
    return (merged, np.ascontiguousarray(latency, dtype=np.float64), op_path, capacity, delay,
            detail)


def _result(topology, compact, links, parts, cls_capacity, out, op_bytes, timings, model,
            detail) -> CompactResult:
    n_cls = cls_capacity.size
    per_member = op_bytes * compact.op_count
    sent = np.bincount(parts.label[compact.op_src], weights=per_member,
                       minlength=parts.rep.size) / parts.count
    received = np.bincount(parts.label[compact.op_dst], weights=per_member,
                           minlength=parts.rep.size) / parts.count
    timeline = Timeline(bin_width=float(out.width), link_bytes=out.bins[:n_cls],
                        op_bytes=out.bins[n_cls] * compact.op_count,
                        active_ops=out.bins[n_cls + 1] / out.width * compact.op_count,
                        link_capacity=cls_capacity)
    return CompactResult(
        topology=topology, schedule=compact, time=float(out.end.max(initial=0.0)),
        op_ready=out.ready, op_start=out.start, op_sent=out.sent, op_end=out.end,
        links=links, participants=parts, class_capacity=cls_capacity,
        class_bytes=out.link_bytes, class_busy_time=out.busy,
        participant_bytes_sent=sent, participant_bytes_received=received,
        participant_send_busy_time=out.send_busy, participant_recv_busy_time=out.recv_busy,
        timeline=timeline, n_events=int(out.n_events), n_batches=int(out.n_batches),
        timings=timings, model=model, model_detail=detail)
