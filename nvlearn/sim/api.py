"""``simulate(topology, schedule)``: map participants to nodes, route, validate, run the engine."""

from __future__ import annotations

import math
import time as _time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..collectives.budget import check_ops
from ..schedule import ensure_validated
from ..topology import Topology
from ..topology.symmetry import routes_by_symmetry
from .constraints import Constraints, merge_equivalent_links
from .engine import Fabric, Ops, Output, run
from .models import DEFAULT_MODEL, achievable_inputs, check_model, path_types
from .result import SimResult, Timeline

try:
    import resource as _resource
    _RUSAGE_THREAD = getattr(_resource, "RUSAGE_THREAD", None)
except ImportError:  # not on Unix
    _resource, _RUSAGE_THREAD = None, None

__all__ = [
    "BATCH_RTOL", "ROUTE_SETS_KEPT", "SYMMETRIC_ROUTING_PAIRS", "effective_capacity",
    "op_routes", "participant_nodes", "simulate"
]

#: Events closer than this (relative to the current time) are processed as one batch.
BATCH_RTOL = 1e-12
#: Route sets kept per Topology (and merged constraints per route set), least recent dropped.
ROUTE_SETS_KEPT = 4
#: From this many distinct (src, dst) pairs on, routes are computed one per class of the
#: fabric's box rotation and rotated onto the rest
#: (:func:`nvlearn.topology.symmetry.routes_by_symmetry`): the same routes, up to 8x fewer
#: searches on a rail-optimised cluster.
SYMMETRIC_ROUTING_PAIRS = 4096
_CACHE: dict[int, tuple[weakref.ref, OrderedDict]] = {}


def participant_nodes(topology, schedule, ranks: Sequence[int] | None = None) -> np.ndarray:
    """Topology node id of each schedule participant.

    Rank ``r`` runs on GPU ``ranks[r]`` (node ``topology.gpus[ranks[r]]``); by default rank
    ``r`` on GPU ``r``. A switch participant (SHARP / NVLS) is the topology node whose name
    equals its role: its traffic is modelled as ordinary flows to and from that switch
    (in-switch reduction and multicast are not modelled yet).

    Parameters
    ----------
    topology : Topology
        The fabric; its GPUs are ``topology.gpus`` (``topology.n_gpus`` of them).
    schedule : Schedule
        The ops; ``schedule.n_ranks`` ranks (at most ``topology.n_gpus``) followed by its
        switch participants, whose roles name nodes of ``topology``.
    ranks : sequence of int, optional
        GPU index (``0 <= g < topology.n_gpus``, all different) of each rank, one per rank;
        default: rank ``r`` on GPU ``r``.

    Returns
    -------
    ndarray of int64, shape (schedule.n_participants,)
        The topology node of each participant: the ranks' GPUs, then the switches.

    Raises
    ------
    ValueError
        More ranks than GPUs, ``ranks`` of the wrong length, type or range or with a GPU
        twice, or a switch role that names no node.

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> from nvlearn.collectives import allreduce
    >>> participant_nodes(single_switch(4, 1e9), allreduce(2, 1e6), ranks=[3, 1]).tolist()
    [3, 1]
    """
    n_gpus = int(topology.n_gpus)
    n_ranks = int(schedule.n_ranks)
    if ranks is None:
        if n_ranks > n_gpus:
            raise ValueError(
                f"the schedule has {n_ranks} ranks but {topology.name!r} has only {n_gpus} "
                "GPUs; build the schedule for at most that many ranks"
            )
        gpu_of_rank = np.arange(n_ranks)
    else:
        gpu_of_rank = np.asarray(ranks)
        if gpu_of_rank.shape != (n_ranks,) or not np.issubdtype(gpu_of_rank.dtype, np.integer):
            raise ValueError(
                f"ranks must list one GPU index (an int) per rank of the schedule "
                f"({n_ranks}), got {np.shape(ranks)} entries"
            )
        bad = np.flatnonzero((gpu_of_rank < 0) | (gpu_of_rank >= n_gpus))
        if bad.size:
            raise ValueError(
                f"ranks[{bad[0]}] = {gpu_of_rank[bad[0]]} is not a GPU of {topology.name!r} "
                f"(GPUs 0..{n_gpus - 1})"
            )
        if np.unique(gpu_of_rank).size != n_ranks:
            raise ValueError("ranks must place every rank on a different GPU")
    nodes = np.empty(schedule.n_participants, dtype=np.int64)
    nodes[:n_ranks] = np.asarray(topology.gpus)[gpu_of_rank]
    for k, role in enumerate(schedule.participant_role):
        nodes[n_ranks + k] = _switch_node(topology, role)
    return nodes


def _switch_node(topology, role: str) -> int:
    """The node a switch participant's role names (hook for SHARP / NVLS)."""
    try:
        return topology.node_name.index(role)
    except ValueError:
        raise ValueError(
            f"switch participant {role!r} is not a node of {topology.name!r}; its role must "
            "be the name of a switch node (see topology.node_name)"
        ) from None


def effective_capacity(topology, link_factor=None) -> np.ndarray:
    """Link capacities (bytes/s per direction) after an optional per-link factor.

    ``link_factor`` is a mapping ``{link: factor}`` or an array with one factor per link
    (1 = healthy, 0.5 = half speed, 0 = dead).

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> effective_capacity(single_switch(2, 100e9), {0: 0.5}).tolist()
    [50000000000.0, 100000000000.0, 100000000000.0, 100000000000.0]
    """
    cap = np.array(topology.link_capacity, dtype=np.float64)
    if link_factor is None:
        return cap
    n = cap.size
    if isinstance(link_factor, Mapping):
        factor = np.ones(n)
        for link, f in link_factor.items():
            if not (isinstance(link, (int, np.integer)) and 0 <= link < n):
                raise ValueError(f"link_factor names link {link!r}; links are 0..{n - 1}")
            factor[int(link)] = f
    else:
        factor = np.asarray(link_factor, dtype=np.float64)
        if factor.shape != (n,):
            raise ValueError(
                f"link_factor needs one factor per link ({n}), got shape {factor.shape}; or "
                "pass a dict {link: factor}"
            )
    if not (np.isfinite(factor).all() and (factor >= 0).all()):
        raise ValueError("link factors must be finite and >= 0 (1 = healthy, 0 = dead)")
    return cap * factor


def op_routes(topology, schedule, nodes: np.ndarray):
    """Route every op: one route per distinct (src node, dst node) pair.

    The routes of a :class:`~nvlearn.topology.Topology` are computed once per set of pairs
    and reused by later calls (a Topology is frozen, and its routing policy is part of it);
    the arrays are read-only.

    Parameters
    ----------
    topology : Topology
        The fabric whose routing policy routes the ops.
    schedule : Schedule
        The ops; op ``i`` goes from participant ``schedule.op_src[i]`` to
        ``schedule.op_dst[i]``.
    nodes : ndarray of int
        The topology node of each participant (:func:`participant_nodes`).

    Returns
    -------
    op_path : ndarray of int32, shape (n_ops,)
        Index of each op's route.
    indptr, link, frac, latency : ndarray
        The routes, as :meth:`Topology.routes` returns them.
    """
    op_path, routes = _route_set(topology, schedule, nodes)
    return (op_path, *routes.arrays)


class _RouteSet:
    """Read-only routes of a set of (src, dst) pairs (``src``, ``dst``: the topology's
    nodes, one pair per route), and their merged constraints for the last few capacity
    vectors (:func:`nvlearn.sim.constraints.merge_equivalent_links`). ``checked`` is set
    once the routes themselves passed :func:`_check_routes` (only the capacities they cross
    are checked again), ``path_type`` holds their latency classes once computed."""

    def __init__(self, arrays: tuple[np.ndarray, ...], src: np.ndarray, dst: np.ndarray):
        for a in (*arrays, src, dst):
            a.flags.writeable = False
        self.arrays = arrays
        self.src, self.dst = src, dst
        self.checked = False
        self.path_type: np.ndarray | None = None
        self._merged: OrderedDict = OrderedDict()

    def merged(self, capacity: np.ndarray) -> Constraints:
        indptr, link, frac, _ = self.arrays
        return _lru(self._merged, capacity.tobytes(),
                    lambda: merge_equivalent_links(capacity, indptr, link, frac))


def _route_set(topology, schedule, nodes: np.ndarray) -> tuple[np.ndarray, _RouteSet]:
    src = nodes[schedule.op_src]
    dst = nodes[schedule.op_dst]
    n_nodes = int(topology.n_nodes)
    key = src * n_nodes + dst
    if n_nodes * n_nodes <= 1 << 24:
        present = np.zeros(n_nodes * n_nodes, dtype=np.bool_)
        present[key] = True
        pairs = np.flatnonzero(present)
        index = np.cumsum(present, dtype=np.int64) - 1
        op_path = index[key].astype(np.int32)
    else:
        pairs, op_path = np.unique(key, return_inverse=True)
        op_path = op_path.reshape(-1).astype(np.int32)

    def compute() -> _RouteSet:
        src, dst = pairs // n_nodes, pairs % n_nodes
        many = isinstance(topology, Topology) and pairs.size >= SYMMETRIC_ROUTING_PAIRS
        out = routes_by_symmetry(topology, src, dst) if many else topology.routes(src, dst)
        return _RouteSet(tuple(np.array(a, dtype=t) for a, t in zip(
            out, (np.int64, np.int32, np.float64, np.float64), strict=True)), src, dst)

    if not isinstance(topology, Topology):
        return op_path, compute()  # a stand-in may change: never cached
    ident = id(topology)
    entry = _CACHE.get(ident)
    if entry is None or entry[0]() is not topology:
        entry = (weakref.ref(topology, lambda _, i=ident: _CACHE.pop(i, None)), OrderedDict())
        _CACHE[ident] = entry
    return op_path, _lru(entry[1], pairs.tobytes(), compute)


def _lru(table: OrderedDict, key, make: Callable):
    """``table[key]``, made by ``make()`` if missing; keeps the ``ROUTE_SETS_KEPT`` most
    recently used keys."""
    if key in table:
        table.move_to_end(key)
        return table[key]
    table[key] = value = make()
    if len(table) > ROUTE_SETS_KEPT:
        table.popitem(last=False)
    return value


def _check_routes(topology, capacity, indptr, link, frac, latency, src, dst, *,
                  routes_checked: bool = False) -> None:
    """Refuse routes a run cannot use: a link id outside the topology, a fraction or a
    latency that is not finite and >= 0 (skipped when ``routes_checked``: these routes
    passed before), a link of zero or non-finite ``capacity`` on a route."""
    names = topology.node_name

    def pair(entry):  # the (src -> dst) pair whose route holds route entry ``entry``
        path = int(np.searchsorted(indptr, entry, side="right") - 1)
        return f"{names[src[path]]} -> {names[dst[path]]}"

    if not routes_checked:
        _check_route_values(topology, capacity, link, frac, latency, src, dst, pair)
    usable = (capacity > 0) & np.isfinite(capacity)
    if not usable.all():
        bad = np.flatnonzero(~usable[link])
        if bad.size:
            lk = int(link[bad[0]])
            label = f"{names[topology.link_src[lk]]} -> {names[topology.link_dst[lk]]}"
            raise ValueError(
                f"link {lk} ({label}) has capacity {capacity[lk]} bytes/s but traffic "
                f"{pair(bad[0])} must cross it, so it would never arrive; give the link a "
                "small positive factor (e.g. 0.01) to model a badly degraded link, or let "
                "routing avoid it with nvlearn.topology.with_link_factor"
            )


def _check_route_values(topology, capacity, link, frac, latency, src, dst, pair) -> None:
    names = topology.node_name
    if link.size and (link.min() < 0 or link.max() >= capacity.size):
        raise ValueError("topology.routes returned a link id outside the topology")
    bad = np.flatnonzero(~(frac > 0) | ~np.isfinite(frac))
    if bad.size:
        raise ValueError(f"route {pair(bad[0])} puts fraction {frac[bad[0]]} on a link; "
                         "fractions must be finite and > 0")
    bad = np.flatnonzero(~(latency >= 0) | ~np.isfinite(latency))
    if bad.size:
        path = int(bad[0])
        raise ValueError(f"route {names[src[path]]} -> {names[dst[path]]} has latency "
                         f"{latency[path]} s; latencies must be finite and >= 0")


def _check_size(topology, schedule, timeline_bins: int) -> None:
    """Refuse, before allocating, a run over the op budget or a timeline over 2 GB."""
    n_ops = int(np.size(schedule.op_src))
    check_ops(n_ops, f"simulating this {schedule.algorithm} {schedule.collective}",
              "build it with fewer pipeline chunks or ranks, or use the closed form "
              "nvlearn.collectives.cost(...)")
    bins_bytes = 8.0 * (int(topology.n_links) + 2) * timeline_bins
    if bins_bytes > 2e9:
        raise ValueError(f"timeline_bins={timeline_bins} on {topology.n_links:,} links needs "
                         f"{bins_bytes / 1e9:.1f} GB; pass timeline_bins=128 (the default)")


def _first_width(op_bytes: np.ndarray, capacity: np.ndarray, n_bins: int) -> float:
    """A power-of-two bin width no longer than (a lower bound on the makespan) / n_bins."""
    fastest = float(capacity[np.isfinite(capacity)].max(initial=0.0))
    bound = float(op_bytes.max(initial=0.0)) / fastest if fastest > 0 else 1.0
    bound = bound if bound > 0 else 1e-9
    return 2.0 ** math.floor(math.log2(bound / n_bins))


def simulate(topology, schedule, *, model: str = DEFAULT_MODEL, protocol: str | None = None,
             ranks: Sequence[int] | None = None, link_factor=None,
             timeline_bins: int = 128) -> SimResult:
    """Run ``schedule`` on ``topology`` with the flow-level engine; returns a SimResult.

    Every op is a fluid flow along its route (:meth:`Topology.routes`); flows sharing a
    link get weighted max-min fair rates, recomputed whenever a transfer starts or ends;
    an op starts when its dependencies are met (plus its delay), and its data arrives
    the route's latency after the transfer ends. See :mod:`nvlearn.sim.engine`.

    Two models of the fabric (:mod:`nvlearn.sim.models`): ``"achievable"`` (default) runs
    links at the rates NCCL reaches with its protocol and charges NCCL's per-step software
    latencies; ``"wire"`` is the ideal fluid model at wire rate, where the closed forms of
    :mod:`nvlearn.collectives` hold exactly.

    Parameters
    ----------
    topology : Topology
        The fabric: nodes, links (capacity in bytes/s per direction) and routing policy.
    schedule : Schedule or CompactSchedule
        The ops to run (:mod:`nvlearn.collectives` builds them); at most
        ``topology.n_gpus`` ranks. A :class:`~nvlearn.collectives.compact.CompactSchedule`
        (one op per class of symmetric ops) runs on the quotient of the fabric by its
        symmetry (:func:`nvlearn.sim.quotient.simulate_compact`) and gives a
        :class:`~nvlearn.sim.quotient.CompactResult`.
    model : {"achievable", "wire"}
        Which model of the fabric (module :mod:`nvlearn.sim.models`).
    protocol : {"ll", "ll128", "simple"}, optional
        Achievable model only: NCCL protocol to run (default: the one NCCL's tuner picks).
    ranks : sequence of int, optional
        GPU index for each rank (default: rank r on GPU r).
    link_factor : dict {link: factor} or array, optional
        Multiplies link capacities for this run only. Routes stay those of the healthy
        fabric (static routing: traffic keeps its share on a slow link); use
        :func:`nvlearn.topology.with_link_factor` for routing that adapts to the factor.
    timeline_bins : int
        Bins of the utilisation timeline (even, >= 2).

    Returns
    -------
    SimResult or CompactResult
        Per-op times (seconds), per-link bytes and utilisation, the timeline, and the
        collective's time, algbw and busbw (bytes/s); per class of ops, links and ranks
        for a compact schedule.

    Raises
    ------
    ValueError
        The schedule does not compute its collective (a schedule written by hand is checked
        once by :func:`nvlearn.schedule.validate`; the package's builders are trusted),
        schedule and topology do not fit, a route must cross a zero-capacity link, or some
        ops can never start (cyclic dependencies).

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> from nvlearn.collectives import allreduce
    >>> res = simulate(single_switch(4, bw_per_dir=100e9), allreduce(4, 1e9), model="wire")
    >>> print(f"{res.time * 1e3:.3f} ms")        # 2 (p-1)/p * n / B = 1.5 GB / 100 GB/s
    15.000 ms
    """
    if getattr(schedule, "op_count", None) is not None:      # a CompactSchedule
        if ranks is not None:
            raise ValueError("ranks cannot move the ranks of a compact schedule (its symmetry "
                             "is the fabric's order); simulate the full op list")
        from .quotient import simulate_compact

        return simulate_compact(topology, schedule, model=model, protocol=protocol,
                                link_factor=link_factor, timeline_bins=timeline_bins)
    model = _check_args(model, protocol, timeline_bins)
    _check_size(topology, schedule, int(timeline_bins))
    ensure_validated(schedule)
    t_start = _time.perf_counter()
    f = _fabric_inputs(topology, schedule, ranks, link_factor, model, protocol)
    c = f.routes.merged(f.capacity)
    t_routes, cpu_routes = _time.perf_counter(), _thread_cpu()
    op_bytes = np.ascontiguousarray(schedule.op_bytes, dtype=np.float64)
    engine_ops = Ops(op_bytes, np.ascontiguousarray(f.delay, dtype=np.float64), f.op_path,
                     np.ascontiguousarray(schedule.op_src, dtype=np.int32),
                     np.ascontiguousarray(schedule.op_dst, dtype=np.int32),
                     np.ascontiguousarray(schedule.dep_indptr, dtype=np.int64),
                     np.ascontiguousarray(schedule.dep_op, dtype=np.int32),
                     np.ascontiguousarray(schedule.dep_kind, dtype=np.int8),
                     int(schedule.n_participants))
    out = run(Fabric(c.capacity, c.indptr, c.link, c.frac, np.array(f.latency)), engine_ops,
              int(timeline_bins), _first_width(op_bytes, f.capacity, timeline_bins),
              BATCH_RTOL)
    timings = {"routes": t_routes - t_start, "engine": _time.perf_counter() - t_routes,
               "engine_cpu": _thread_cpu() - cpu_routes}
    _check_finished(out)
    return _result(topology, schedule, f, _per_link(out, c), op_bytes, timings, model)


def _thread_cpu() -> float:
    """CPU seconds of the calling thread: ``getrusage(RUSAGE_THREAD)`` (about 1 us, where
    ``time.thread_time`` takes 10-15 us on some virtual machines), else ``thread_time``."""
    if _RUSAGE_THREAD is None:
        return _time.thread_time()
    ru = _resource.getrusage(_RUSAGE_THREAD)
    return ru.ru_utime + ru.ru_stime


class _Fabric(NamedTuple):
    """What the engine is given about the fabric for one run (after the model)."""

    nodes: np.ndarray
    capacity: np.ndarray
    op_path: np.ndarray
    indptr: np.ndarray
    link: np.ndarray
    frac: np.ndarray
    latency: np.ndarray
    delay: np.ndarray
    detail: object
    routes: _RouteSet


def _check_args(model, protocol, timeline_bins) -> str:
    model = check_model(model)
    if model == "wire" and protocol is not None:
        raise ValueError("protocol applies to model='achievable' only; the wire model has "
                         "no software protocol")
    if isinstance(timeline_bins, bool) or not isinstance(timeline_bins, (int, np.integer)):
        raise ValueError(f"timeline_bins must be an even int >= 2, got {timeline_bins!r}")
    if timeline_bins < 2 or timeline_bins % 2:
        raise ValueError(f"timeline_bins must be an even int >= 2, got {timeline_bins}")
    return model


def _fabric_inputs(topology, schedule, ranks, link_factor, model, protocol) -> _Fabric:
    """Participants' nodes, checked routes, and the model's rates, latencies and delays."""
    nodes = participant_nodes(topology, schedule, ranks)
    capacity = effective_capacity(topology, link_factor)
    op_path, routes = _route_set(topology, schedule, nodes)
    indptr, link, frac, latency = routes.arrays
    _check_routes(topology, capacity, indptr, link, frac, latency, routes.src, routes.dst,
                  routes_checked=routes.checked)
    routes.checked = True
    detail, delay = None, schedule.op_delay
    if model == "achievable":
        if routes.path_type is None:
            routes.path_type = path_types(topology, indptr, link)
            routes.path_type.flags.writeable = False
        capacity, latency, delay, detail = achievable_inputs(
            topology, schedule, capacity, indptr, link, latency, op_path, protocol,
            path_type=routes.path_type)
    return _Fabric(nodes, capacity, op_path, indptr, link, frac, latency, delay, detail,
                   routes)


def _per_link(out: Output, c: Constraints) -> Output:
    """The engine's per-constraint figures as per-link ones: a link carries its scale times
    its class's load and is busy when its class is (:mod:`nvlearn.sim.constraints`)."""
    n_links, n_cls = c.link_class.size, c.capacity.size
    used = np.flatnonzero(c.link_class >= 0)
    cls = c.link_class[used]
    bins = np.zeros((n_links + 2, out.bins.shape[1]))  # rows of unused links stay untouched
    bins[used] = out.bins[cls] * c.link_scale[used, None]
    bins[n_links:] = out.bins[n_cls:]
    link_bytes = np.zeros(n_links)
    link_bytes[used] = out.link_bytes[cls] * c.link_scale[used]
    busy = np.zeros(n_links)
    busy[used] = out.busy[cls]
    return out._replace(link_bytes=link_bytes, busy=busy, bins=bins)


def _check_finished(out: Output) -> None:
    never = np.flatnonzero(np.isnan(out.start))
    if never.size:
        i = int(never[0])
        raise ValueError(
            f"{never.size} ops never started (for example op {i}, still waiting for "
            f"{int(out.pending[i])} of its dependencies): the dependencies are cyclic or wait "
            "for an op that never finishes; check the schedule with nvlearn.schedule.validate"
        )
    stuck = np.flatnonzero(np.isnan(out.end))
    if stuck.size:
        raise ValueError(f"{stuck.size} transfers never finished (for example op {stuck[0]})")


def _result(topology, schedule, f: _Fabric, out: Output, op_bytes, timings,
            model) -> SimResult:
    n_links, n_part = f.capacity.size, int(schedule.n_participants)
    timeline = Timeline(bin_width=float(out.width), link_bytes=out.bins[:n_links],
                        op_bytes=out.bins[n_links], active_ops=out.bins[n_links + 1] / out.width,
                        link_capacity=f.capacity)
    return SimResult(
        topology=topology, schedule=schedule, participant_node=f.nodes,
        time=float(out.end.max(initial=0.0)), op_ready=out.ready, op_start=out.start,
        op_sent=out.sent, op_end=out.end, op_path=f.op_path, path_indptr=f.indptr,
        path_link=f.link, path_frac=f.frac, path_latency=f.latency, link_capacity=f.capacity,
        link_bytes=out.link_bytes, link_busy_time=out.busy,
        rank_bytes_sent=np.bincount(schedule.op_src, weights=op_bytes, minlength=n_part),
        rank_bytes_received=np.bincount(schedule.op_dst, weights=op_bytes, minlength=n_part),
        rank_send_busy_time=out.send_busy, rank_recv_busy_time=out.recv_busy,
        timeline=timeline, n_events=int(out.n_events), n_batches=int(out.n_batches),
        timings=timings, model=model, model_detail=f.detail,
    )
