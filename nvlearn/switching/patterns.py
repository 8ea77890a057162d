"""Traffic patterns as Schedules, and what a fabric does to them.

A *traffic pattern* is a set of flows that all start at time 0 (one op per flow, no
dependencies): every sending rank sends ``n_bytes`` in total.

* :func:`permutation` — every rank sends to one other rank, a random derangement (or a given
  permutation, e.g. :func:`shift`): the classic test of a fabric's bisection and of path
  collisions under static routing.
* :func:`all_to_all` — every rank sends ``n_bytes / (p - 1)`` to each other rank (the MoE
  pattern).
* :func:`incast` — every other rank sends to one receiver: a hot spot at the edge that no
  routing can spread.
* :func:`ring` — rank ``r`` sends to ``r + 1``: the neighbour traffic of a ring collective.

:func:`run_traffic` runs a pattern on a fabric under a routing policy
(:func:`nvlearn.topology.with_routing`) in the flow-level simulator and returns
:class:`FlowStats`: every flow's completion time, p50 / p99, and the hottest link. Results
are cached, so a notebook and its widget share them.

:func:`hol_saturation_throughput` is a small packet-level (cell) simulation of an
input-queued switch, for the one effect the fluid simulator cannot show: head-of-line
blocking.

Examples
--------
>>> s = permutation(8, 1e6, seed=0)
>>> s.n_ops, float(s.bytes_sent()[0])
(8, 1000000.0)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from nvlearn import specs
from nvlearn._jit import njit
from nvlearn.collectives.direct import direct_alltoall
from nvlearn.schedule import Schedule
from nvlearn.topology import FABRICS as FABRICS_REGISTRY
from nvlearn.topology import (
    LINK_NVLINK_NETWORK,
    Topology,
    fabric,
    ib_cluster,
    with_link_factor,
    with_routing,
)

__all__ = ["DEFAULT_FLOW_BYTES", "FABRICS", "PATTERNS", "FlowStats", "all_to_all", "build_fabric",
           "default_taper", "experiment", "from_matrix", "hol_limit", "hol_saturation_throughput",
           "incast", "measure", "neighbour_shift", "pair_rate_rows", "pattern", "permutation",
           "run_traffic", "shift", "traffic_matrix"]

#: Pattern names understood by :func:`pattern` and :func:`run_traffic` ("ring" is the
#: traffic of one step of a ring collective: :func:`neighbour_shift`).
PATTERNS = ("permutation", "all-to-all", "incast", "ring")
#: The fabrics of :data:`nvlearn.topology.FABRICS` that have a taper to vary, for
#: :func:`build_fabric`.
FABRICS = ("nvlink_pod", "ib_cluster")
#: Bytes each sending rank sends in the notebook's experiments (64 MB: bandwidth-bound, so
#: the microsecond latencies do not blur the comparison).
DEFAULT_FLOW_BYTES = 64e6


# ------------------------------------------------------------------------- patterns
def _check_ranks(n_ranks: object) -> int:
    if isinstance(n_ranks, bool) or not isinstance(n_ranks, (int, np.integer)) or n_ranks < 2:
        raise ValueError(f"n_ranks must be an int >= 2 (a pattern needs a sender and a "
                         f"receiver), got {n_ranks!r}")
    return int(n_ranks)


def _check_bytes(n_bytes: object) -> float:
    try:
        value = float(n_bytes)
    except (TypeError, ValueError):
        raise ValueError(f"n_bytes must be a number of bytes, got {n_bytes!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"n_bytes must be a positive, finite number of bytes, got {n_bytes!r}")
    return value


def from_matrix(block_bytes: np.ndarray, name: str = "traffic") -> Schedule:
    """A Schedule of concurrent flows: ``block_bytes[s, d]`` bytes from rank s to rank d.

    Every non-zero off-diagonal entry is one op; all start at time 0, none waits for another.
    The Schedule is a ragged all-to-all (``collective == "alltoall"``) labelled ``name``.

    Examples
    --------
    >>> s = from_matrix(np.array([[0, 5e6], [0, 0]]), "one flow")
    >>> s.n_ops, s.algorithm
    (1, 'one flow')
    """
    blocks = np.asarray(block_bytes, dtype=np.float64)
    if blocks.ndim != 2 or blocks.shape[0] != blocks.shape[1]:
        raise ValueError(f"block_bytes must be a square (p, p) matrix, got shape {blocks.shape}")
    schedule = direct_alltoall(blocks.shape[0], 1.0, block_bytes=blocks)
    return schedule.relabel(str(name), {"pattern": str(name), "ragged": True})


def traffic_matrix(schedule: Schedule) -> np.ndarray:
    """Bytes from rank s to rank d, shape (n_ranks, n_ranks), summed over the ops.

    Examples
    --------
    >>> traffic_matrix(neighbour_shift(3, 1e6)).tolist()
    [[0.0, 1000000.0, 0.0], [0.0, 0.0, 1000000.0], [1000000.0, 0.0, 0.0]]
    """
    p = schedule.n_ranks
    m = np.zeros((p, p))
    keep = (schedule.op_src < p) & (schedule.op_dst < p)
    np.add.at(m, (schedule.op_src[keep], schedule.op_dst[keep]), schedule.op_bytes[keep])
    return m


def permutation(n_ranks: int, n_bytes: float, *, seed: int = 0,
                perm: np.ndarray | None = None) -> Schedule:
    """Every rank sends ``n_bytes`` to one other rank: a random derangement, or ``perm``.

    Parameters
    ----------
    n_ranks : int
        Ranks, >= 2.
    n_bytes : float
        Bytes each rank sends.
    seed : int
        Seed of the random derangement (a permutation with no rank sending to itself).
    perm : array of int, optional
        Rank ``r`` sends to ``perm[r]`` (must be a permutation; fixed points send nothing).

    Returns
    -------
    Schedule
        One op per sending rank, all starting at time 0.

    Examples
    --------
    >>> s = permutation(4, 1e6, perm=[1, 0, 3, 2])
    >>> s.op_src.tolist(), s.op_dst.tolist()
    ([0, 1, 2, 3], [1, 0, 3, 2])
    """
    p = _check_ranks(n_ranks)
    size = _check_bytes(n_bytes)
    if perm is None:
        rng = np.random.default_rng(seed)
        while True:  # rejection: about e tries on average
            dest = rng.permutation(p)
            if not np.any(dest == np.arange(p)):
                break
        name = "permutation"
    else:
        dest = np.asarray(perm)
        if dest.shape != (p,) or not np.issubdtype(dest.dtype, np.integer) or not np.array_equal(
                np.sort(dest), np.arange(p)):
            raise ValueError(f"perm must hold each rank 0..{p - 1} exactly once")
        if np.all(dest == np.arange(p)):
            raise ValueError("perm sends every rank to itself: nothing would move")
        name = "permutation"
    m = np.zeros((p, p))
    m[np.arange(p), dest] = size
    np.fill_diagonal(m, 0.0)
    return from_matrix(m, name)


def shift(n_ranks: int, n_bytes: float, offset: int) -> Schedule:
    """Rank ``r`` sends ``n_bytes`` to rank ``(r + offset) % n_ranks``.

    With ``offset`` a multiple of a server's GPU count every flow leaves its server, and
    with ``offset = n_ranks / 2`` every flow crosses the middle of the fabric.

    Parameters
    ----------
    n_ranks : int
        Ranks, >= 2.
    n_bytes : float
        Bytes each rank sends, > 0.
    offset : int
        Rank distance to the receiver; not a multiple of ``n_ranks``.

    Returns
    -------
    Schedule
        One op per rank, all starting at time 0.

    Examples
    --------
    >>> shift(4, 1e6, 2).op_dst.tolist()
    [2, 3, 0, 1]
    """
    p = _check_ranks(n_ranks)
    if offset % p == 0:
        raise ValueError(f"offset {offset} is a multiple of n_ranks={p}: every rank would send "
                         "to itself")
    return permutation(p, n_bytes, perm=(np.arange(p) + offset) % p).relabel(f"shift {offset}")


def all_to_all(n_ranks: int, n_bytes: float) -> Schedule:
    """Every rank sends ``n_bytes / (n_ranks - 1)`` to every other rank (``n_bytes`` in all).

    Examples
    --------
    >>> s = all_to_all(4, 3e6)
    >>> s.n_ops, float(s.op_bytes[0])
    (12, 1000000.0)
    """
    p = _check_ranks(n_ranks)
    m = np.full((p, p), _check_bytes(n_bytes) / (p - 1))
    np.fill_diagonal(m, 0.0)
    return from_matrix(m, "all-to-all")


def incast(n_ranks: int, n_bytes: float, *, receiver: int = 0) -> Schedule:
    """Every rank but ``receiver`` sends it ``n_bytes`` at once.

    Parameters
    ----------
    n_ranks : int
        Ranks, >= 2.
    n_bytes : float
        Bytes each sender sends, > 0.
    receiver : int
        The rank everyone sends to.

    Returns
    -------
    Schedule
        ``n_ranks - 1`` ops into one GPU: its link sets the time, whatever the routing.

    Examples
    --------
    >>> incast(4, 1e6, receiver=2).op_src.tolist()
    [0, 1, 3]
    """
    p = _check_ranks(n_ranks)
    if not 0 <= int(receiver) < p:
        raise ValueError(f"receiver must be a rank 0..{p - 1}, got {receiver}")
    m = np.zeros((p, p))
    m[:, int(receiver)] = _check_bytes(n_bytes)
    m[int(receiver), int(receiver)] = 0.0
    return from_matrix(m, "incast")


def neighbour_shift(n_ranks: int, n_bytes: float) -> Schedule:
    """Rank ``r`` sends ``n_bytes`` to rank ``(r + 1) % n_ranks``, all at once: the traffic
    of one step of a ring collective (the pattern named ``"ring"``).

    Examples
    --------
    >>> neighbour_shift(3, 1e6).op_dst.tolist()
    [1, 2, 0]
    """
    return shift(n_ranks, n_bytes, 1).relabel("ring")


def pattern(name: str, n_ranks: int, n_bytes: float, *, seed: int = 0) -> Schedule:
    """The pattern called ``name`` (one of :data:`PATTERNS`).

    Parameters
    ----------
    name : str
        One of :data:`PATTERNS`.
    n_ranks : int
        Ranks, >= 2.
    n_bytes : float
        Bytes each sending rank sends in all, > 0.
    seed : int
        Seed of the random derangement (``"permutation"`` only).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> pattern("incast", 4, 1e6).n_ops
    3
    """
    build = {
        "permutation": lambda: permutation(n_ranks, n_bytes, seed=seed),
        "all-to-all": lambda: all_to_all(n_ranks, n_bytes),
        "incast": lambda: incast(n_ranks, n_bytes),
        "ring": lambda: neighbour_shift(n_ranks, n_bytes),
    }
    if name not in build:
        raise ValueError(f"unknown traffic pattern {name!r}; choose one of {PATTERNS}")
    return build[name]()


# ------------------------------------------------------------------------- fabrics
def default_taper(kind: str) -> float:
    """The fabric's own taper: 2 for the NVLink pod (catalogue), 1 (non-blocking) for IB."""
    if kind not in FABRICS:
        raise ValueError(f"unknown fabric {kind!r}; choose one of {FABRICS}")
    return float(specs.system("nvlink_switch_system").taper) if kind == "nvlink_pod" else 1.0


@functools.lru_cache(maxsize=32)
def build_fabric(kind: str, nodes: int = 32, taper: float | None = None) -> Topology:
    """A 256-GPU-class fabric for experiments, cached: ``"nvlink_pod"`` or ``"ib_cluster"``.

    ``taper`` is the ratio of what a node's GPUs can inject to what can leave the node
    (pod) or of leaf down ports to up ports (InfiniBand ``oversubscription``). The pod's real
    taper is 2; another value scales its node-to-second-level links by ``2 / taper`` (a
    what-if: taper 1 needs twice the cables the DGX H100 has ports for). The IB cluster is
    built with ``oversubscription=taper`` (1 = non-blocking). At its own taper a fabric is
    the registry's (:func:`nvlearn.topology.fabric`), built once per process.

    Parameters
    ----------
    kind : {"nvlink_pod", "ib_cluster"}
        A key of :data:`nvlearn.topology.FABRICS` that has a taper (:data:`FABRICS`).
    nodes : int
        DGX H100 servers (8 GPUs each).
    taper : float, optional
        >= 1; default: the fabric's own (:func:`default_taper`).

    Returns
    -------
    Topology

    Examples
    --------
    >>> build_fabric("nvlink_pod", 2).n_gpus
    16
    """
    t = default_taper(kind) if taper is None else float(taper)
    if not (math.isfinite(t) and t >= 1):
        raise ValueError(f"taper must be >= 1 (1 = non-blocking), got {taper!r}")
    if t == default_taper(kind):
        return fabric(kind, nodes)
    if kind == "ib_cluster":
        return ib_cluster(nodes, oversubscription=t)
    topo = fabric(kind, nodes)
    uplinks = topo.link_kind == LINK_NVLINK_NETWORK
    return with_link_factor(topo, uplinks, default_taper(kind) / t)


# ------------------------------------------------------------------------- experiments
@dataclass(frozen=True, eq=False)
class FlowStats:
    """What one traffic pattern experienced on one fabric under one routing policy.

    Attributes
    ----------
    fabric, pattern, policy : str
    fct : ndarray
        Completion time of every flow (s): from time 0 to the arrival of its last byte.
        Pooled over runs by :meth:`pooled`.
    flow_bytes : ndarray
        Bytes of each flow (same order as ``fct``).
    makespan : float
        Time the last flow completed (s); the mean over runs when pooled.
    hottest_link : str
        The link with the highest mean utilisation (its ``"src -> dst"`` names).
    hottest_utilisation : float
        That link's bytes / (capacity x makespan), 0..1.
    runs : int
        Simulations pooled.
    hot_links : tuple of (str, float)
        The five most utilised links and their utilisation (of the hottest run when pooled).
    """

    fabric: str
    pattern: str
    policy: str
    fct: np.ndarray
    flow_bytes: np.ndarray
    makespan: float
    hottest_link: str
    hottest_utilisation: float
    runs: int = 1
    hot_links: tuple[tuple[str, float], ...] = ()

    @property
    def p50(self) -> float:
        """Median flow completion time (s)."""
        return float(np.percentile(self.fct, 50))

    @property
    def p99(self) -> float:
        """99th-percentile flow completion time (s)."""
        return float(np.percentile(self.fct, 99))

    @property
    def flow_rate(self) -> np.ndarray:
        """Each flow's average rate, bytes / completion time (bytes/s per direction)."""
        return self.flow_bytes / self.fct

    @staticmethod
    def pooled(stats: list[FlowStats]) -> FlowStats:
        """One FlowStats holding every flow of several runs of the same experiment."""
        if not stats:
            raise ValueError("nothing to pool: give at least one FlowStats")
        hot = max(stats, key=lambda s: s.hottest_utilisation)
        first = stats[0]
        return FlowStats(
            first.fabric, first.pattern, first.policy,
            np.concatenate([s.fct for s in stats]),
            np.concatenate([s.flow_bytes for s in stats]),
            float(np.mean([s.makespan for s in stats])),
            hot.hottest_link, hot.hottest_utilisation, sum(s.runs for s in stats),
            hot.hot_links,
        )

    def __repr__(self) -> str:
        from nvlearn.units import format_time

        return (f"FlowStats({self.pattern} on {self.fabric}, {self.policy}: "
                f"p50 {format_time(self.p50)}, p99 {format_time(self.p99)}, "
                f"hottest {self.hottest_link} at {self.hottest_utilisation:.0%})")


def measure(topology: Topology, schedule: Schedule, *, fabric: str | None = None,
            policy: str | None = None) -> FlowStats:
    """Simulate ``schedule`` on ``topology`` (its own routing policy) and collect FlowStats.

    The fabric alone, at wire rate (``model="wire"``, :mod:`nvlearn.sim.models`): these
    patterns are raw flows, a question of routing and link sharing, not of a library's
    software; NCCL's per-step latencies and rates would add the same costs to every policy.

    Parameters
    ----------
    topology : Topology
        The fabric, with the routing policy to measure (:func:`~nvlearn.topology.with_routing`).
    schedule : Schedule
        A traffic pattern (flows with no dependencies).
    fabric, policy : str, optional
        Labels for the result (default: the topology's name and policy).

    Returns
    -------
    FlowStats
        Every flow's completion time (seconds) and size (bytes), the makespan and the five
        hottest links with their utilisation.

    Examples
    --------
    >>> from nvlearn.topology import single_switch
    >>> st = measure(single_switch(4, bw_per_dir=100e9), neighbour_shift(4, 1e9))
    >>> round(st.p99 * 1e3, 3)                # 1 GB at 100 GB/s
    10.0
    """
    from nvlearn.sim import simulate

    res = simulate(topology, schedule, model="wire")
    top = res.hottest_links(5)
    hot = top[0]
    return FlowStats(
        fabric=fabric or topology.name,
        pattern=schedule.algorithm,
        policy=policy or topology.routing,
        fct=np.array(res.op_end, dtype=np.float64),
        flow_bytes=np.array(schedule.op_bytes, dtype=np.float64),
        makespan=float(res.time),
        hottest_link=hot.label,
        hottest_utilisation=float(hot.utilisation),
        hot_links=tuple((h.label, float(h.utilisation)) for h in top),
    )


@functools.lru_cache(maxsize=256)
def run_traffic(kind: str, pattern_name: str, policy: str = "adaptive", *, nodes: int = 32,
                taper: float | None = None, n_bytes: float = DEFAULT_FLOW_BYTES,
                seed: int = 0, hash_seed: int = 0) -> FlowStats:
    """Run a named pattern on a named fabric under a routing policy (cached).

    Parameters
    ----------
    kind : str
        ``"nvlink_pod"`` or ``"ib_cluster"`` (see :func:`build_fabric`).
    pattern_name : str
        One of :data:`PATTERNS`.
    policy : str
        ``"adaptive"`` or ``"static"``.
    nodes, taper
        Passed to :func:`build_fabric`.
    n_bytes : float
        Bytes each sending rank sends.
    seed : int
        Seed of the random permutation.
    hash_seed : int
        Seed of the static hash.

    Returns
    -------
    FlowStats
        Labelled with the fabric's registry label and GPU count.

    Examples
    --------
    >>> st = run_traffic("nvlink_pod", "ring", "adaptive", nodes=2, n_bytes=1e6)
    >>> st.fct.size
    16
    """
    topo = build_fabric(kind, nodes, taper)
    if policy != "adaptive":
        topo = with_routing(topo, policy, hash_seed)
    schedule = pattern(pattern_name, topo.n_gpus, n_bytes, seed=seed)
    label = f"{FABRICS_REGISTRY[kind].label} ({topo.n_gpus} GPUs)"
    return measure(topo, schedule, fabric=label, policy=policy)


def experiment(kind: str, pattern_name: str, policy: str, *, runs: int = 1, nodes: int = 32,
               taper: float | None = None, n_bytes: float = DEFAULT_FLOW_BYTES) -> FlowStats:
    """:func:`run_traffic` repeated ``runs`` times (permutation seed and hash seed = run
    index) and pooled: a distribution over random permutations and hash functions.

    Parameters
    ----------
    kind, pattern_name, policy
        As for :func:`run_traffic`.
    runs : int
        Repetitions, >= 1.
    nodes, taper, n_bytes
        As for :func:`run_traffic` (servers, taper, bytes per sending rank).

    Returns
    -------
    FlowStats
        All runs' flows pooled (``runs`` says how many).

    Examples
    --------
    >>> experiment("ib_cluster", "permutation", "static", runs=2, nodes=2, n_bytes=1e6).runs
    2
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an int >= 1, got {runs!r}")
    return FlowStats.pooled([
        run_traffic(kind, pattern_name, policy, nodes=nodes, taper=taper, n_bytes=n_bytes,
                    seed=r, hash_seed=r)
        for r in range(runs)
    ])


def pair_rate_rows(n_bytes: float = 1e9, hash_seed: int = 0) -> list[dict]:
    """What one flow gets under each routing policy, in five small situations (simulated).

    Each row: ``case``, and the median flow rate (bytes/s per direction, bytes / completion
    time) under ``adaptive`` and ``static`` routing: one GPU pair inside a DGX H100; one pair
    across two pod nodes; all 8 GPUs of a pod node sending to the next node; the same two on
    an InfiniBand cluster.

    Examples
    --------
    >>> rows = pair_rate_rows()
    >>> round(rows[0]["adaptive"] / 1e9)     # any GPU pair of a DGX H100
    450
    """
    from nvlearn.topology import dgx_h100

    size = _check_bytes(n_bytes)
    one = np.zeros((16, 16))
    one[0, 8] = size
    cases = [
        ("DGX H100: GPU 0 -> GPU 1", dgx_h100(), from_matrix(
            np.pad(np.array([[0.0, size]]), ((0, 7), (0, 6))), "pair")),
        ("pod: GPU -> GPU in another node", build_fabric("nvlink_pod", 2),
         from_matrix(one, "pair")),
        ("pod: all 8 GPUs -> another node", build_fabric("nvlink_pod", 2), shift(16, size, 8)),
        ("IB: GPU -> GPU in another node", build_fabric("ib_cluster", 2),
         from_matrix(one, "pair")),
        ("IB: all 8 GPUs -> another node", build_fabric("ib_cluster", 2), shift(16, size, 8)),
    ]
    rows = []
    for label, topo, schedule in cases:
        row = {"case": label}
        for policy in ("adaptive", "static"):
            routed = topo if policy == "adaptive" else with_routing(topo, policy, hash_seed)
            row[policy] = float(np.median(measure(routed, schedule).flow_rate))
        rows.append(row)
    return rows


# ------------------------------------------------------------------------- HOL blocking
@njit
def _fifo_switch(n, slots, warmup, rng):
    """Saturated N x N input-queued switch with FIFO inputs; cells delivered per slot."""
    head = np.empty(n, np.int64)
    for i in range(n):
        head[i] = rng.integers(0, n)
    contenders = np.zeros(n, np.int64)
    chosen = np.empty(n, np.int64)
    delivered = 0
    for t in range(slots):
        for j in range(n):
            contenders[j] = 0
        # each output picks one contending input uniformly (reservoir sampling)
        for i in range(n):
            j = head[i]
            contenders[j] += 1
            if rng.integers(0, contenders[j]) == 0:
                chosen[j] = i
        for j in range(n):
            if contenders[j] > 0:
                if t >= warmup:
                    delivered += 1
                head[chosen[j]] = rng.integers(0, n)
    return delivered


def hol_saturation_throughput(n_ports: int, *, slots: int = 20_000, seed: int = 0) -> float:
    """Throughput per port of a saturated input-queued switch with FIFO input buffers.

    A cell-level Monte Carlo of the classic head-of-line blocking experiment (Karol, Hluchyj
    & Morgan, 1987): every input always has cells queued, each for a uniformly random
    output; per time slot each output serves one of the inputs whose *head* cell wants it.
    A cell stuck behind a losing head waits even if its own output is idle. Output queueing
    (or virtual output queues with a perfect matching) would deliver 1 cell per port per
    slot; FIFO inputs deliver 0.75 for 2 ports and tend to ``2 - sqrt(2)`` = 0.586 for
    many ports.

    Parameters
    ----------
    n_ports : int
        Inputs = outputs, >= 1.
    slots : int
        Time slots simulated (the first 10 % are discarded as warm-up).
    seed : int
        Seed of the random arrivals (same seed, same throughput).

    Returns
    -------
    float
        Cells delivered per output per slot, 0..1.

    Examples
    --------
    >>> round(hol_saturation_throughput(2, slots=200_000), 2)
    0.75
    """
    n = _check_count(n_ports, "n_ports", 1)
    slots = _check_count(slots, "slots", 10)
    warmup = slots // 10
    rng = np.random.default_rng(seed)
    return _fifo_switch(n, slots, warmup, rng) / (n * (slots - warmup))


def hol_limit() -> float:
    """The large-switch limit of FIFO input-queued saturation throughput, ``2 - sqrt(2)``."""
    return 2.0 - math.sqrt(2.0)


def _check_count(value: object, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{what} must be an int >= {minimum}, got {value!r}")
    return int(value)
