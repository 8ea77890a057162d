"""What a simulation returns: :class:`SimResult` (and its :class:`Timeline`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..units import format_bytes, format_rate, format_time

__all__ = ["HotLink", "SimResult", "Timeline", "heat_order"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False, repr=False)
class Timeline:
    """Bytes delivered per time bin, per link, with a fixed number of bins.

    Bins cover ``[0, n_bins * bin_width)``; the width is a power of two picked while the
    simulation ran (it doubles whenever time passes the last bin), so the run fills
    between half and all of the bins.

    Attributes
    ----------
    bin_width : float
        Seconds per bin.
    link_bytes : ndarray, shape (n_links, n_bins)
        Bytes each directed link carried in each bin.
    op_bytes : ndarray, shape (n_bins,)
        Bytes moved by all transfers together in each bin.
    active_ops : ndarray, shape (n_bins,)
        Mean number of transfers in progress during each bin.
    link_capacity : ndarray, shape (n_links,)
        bytes/s per direction the links had in this run (after any degradation).
    """

    bin_width: float
    link_bytes: np.ndarray
    op_bytes: np.ndarray
    active_ops: np.ndarray
    link_capacity: np.ndarray

    @property
    def n_bins(self) -> int:
        """Number of bins."""
        return int(self.link_bytes.shape[1])

    @property
    def edges(self) -> np.ndarray:
        """Bin edges in seconds, shape (n_bins + 1,)."""
        return np.arange(self.n_bins + 1) * self.bin_width

    def link_utilisation(self) -> np.ndarray:
        """Fraction of each link's capacity used in each bin (0..1), shape (n_links, n_bins)."""
        return self.link_bytes / (self.link_capacity[:, None] * self.bin_width)


def heat_order(utilisation: np.ndarray, nbytes: np.ndarray) -> np.ndarray:
    """Indices from hottest to coolest: by utilisation, then bytes (both descending), then
    index (ascending).

    Utilisations within 1e-9 (relative) of the next hotter one count as a tie, so two links
    that carry the same share of their capacity rank by bytes and index on every machine,
    not by the last bit of a sum whose order the compiler chose.

    Examples
    --------
    >>> heat_order(np.array([0.5, 0.8, 0.8 * (1 + 1e-15), 0.8]), np.array([1.0, 2.0, 1.0, 3.0]))
    array([3, 1, 2, 0])
    """
    util = np.asarray(utilisation, dtype=float)
    first = np.argsort(-util, kind="stable")
    u = util[first]
    drop = u[:-1] - u[1:] > 1e-9 * np.abs(u[:-1])
    tier = np.cumsum(np.r_[False, drop])
    return first[np.lexsort((first, -np.asarray(nbytes, dtype=float)[first], tier))]


class HotLink(NamedTuple):
    """One row of :meth:`SimResult.hottest_links`."""

    link: int
    label: str
    bytes: float
    utilisation: float
    busy_time: float


class _Headline:
    """The headline figures of a simulated schedule, shared by :class:`SimResult` and the
    compact form's result: which model made them, and nccl-tests' algbw / busbw."""

    @property
    def model_label(self) -> str:
        """Which model made the numbers, for labels: ``"achievable (NCCL Ring/LL)"``, ``"wire"``."""
        if self.model_detail is None:
            return self.model
        d = self.model_detail
        proto = {"ll": "LL", "ll128": "LL128", "simple": "Simple"}[d.protocol]
        return f"{self.model} (NCCL {d.nccl_algorithm}/{proto})"

    @property
    def algbw(self) -> float:
        """nccl-tests algorithm bandwidth, bytes/s: the schedule's size / time."""
        from ..collectives.metrics import algbw

        return algbw(self.schedule.nccl_size, self.time)

    @property
    def busbw(self) -> float:
        """nccl-tests bus bandwidth, bytes/s: algbw x the collective's factor."""
        from ..collectives.metrics import busbw

        s = self.schedule
        return busbw(s.collective, s.nccl_size, s.n_ranks, self.time)


@dataclass(frozen=True, eq=False, repr=False)
class SimResult(_Headline):
    """A schedule's run on a fabric: times per op, traffic per link and rank, a timeline.

    Produced by :func:`nvlearn.sim.simulate`; every array is read-only. Times are seconds
    from the start of the collective, bytes are bytes, rates bytes/s per direction.

    Attributes
    ----------
    topology, schedule
        What was run, on what.
    participant_node : ndarray of int
        Topology node of each schedule participant.
    time : float
        Makespan: when the last op's data arrived (s).
    op_ready, op_start, op_sent, op_end : ndarray, shape (n_ops,)
        Per op: dependencies met, transfer start, transfer end, data arrival (s).
    op_path : ndarray of int
        Route of each op: index into the ``path_*`` arrays (CSR of links and fractions).
    path_indptr, path_link, path_frac, path_latency : ndarray
        Routes used (one per distinct (src, dst) node pair), as :meth:`Topology.routes`.
    link_capacity : ndarray
        bytes/s per direction of each link in this run (after ``link_factor``).
    link_bytes, link_busy_time : ndarray, shape (n_links,)
        Bytes each link carried; seconds it carried any traffic.
    rank_bytes_sent, rank_bytes_received : ndarray, shape (n_participants,)
    rank_send_busy_time, rank_recv_busy_time : ndarray, shape (n_participants,)
        Seconds a participant had at least one outgoing / incoming transfer in progress.
    timeline : Timeline
    n_events : int
        Transfer starts and ends the engine processed.
    n_batches : int
        Distinct event times at which it recomputed rates.
    timings : dict
        Seconds spent routing (``"routes"``) and in the engine (``"engine"``, wall clock;
        ``"engine_cpu"``, CPU time of this process), for benchmarks.
    model : {"achievable", "wire"}
        Which model of the fabric made this result (:mod:`nvlearn.sim.models`).
    model_detail : Achievable or None
        The achievable model's protocol, rates and latencies (None for ``"wire"``).
    """

    topology: Any
    schedule: Any
    participant_node: np.ndarray
    time: float
    op_ready: np.ndarray
    op_start: np.ndarray
    op_sent: np.ndarray
    op_end: np.ndarray
    op_path: np.ndarray
    path_indptr: np.ndarray
    path_link: np.ndarray
    path_frac: np.ndarray
    path_latency: np.ndarray
    link_capacity: np.ndarray
    link_bytes: np.ndarray
    link_busy_time: np.ndarray
    rank_bytes_sent: np.ndarray
    rank_bytes_received: np.ndarray
    rank_send_busy_time: np.ndarray
    rank_recv_busy_time: np.ndarray
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

    # ------------------------------------------------------------------ headline figures

    @property
    def n_ops(self) -> int:
        """Number of ops run."""
        return int(self.op_start.size)


    @property
    def link_utilisation(self) -> np.ndarray:
        """Mean fraction of capacity each link used over the run: bytes / (capacity x time)."""
        if not self.time > 0:
            return np.zeros_like(self.link_bytes)
        return self.link_bytes / (self.link_capacity * self.time)

    def link_label(self, link: int) -> str:
        """``"src -> dst"`` node names of a link."""
        topo = self.topology
        return f"{topo.node_name[topo.link_src[link]]} -> {topo.node_name[topo.link_dst[link]]}"

    def hottest_links(self, k: int = 5) -> list[HotLink]:
        """The ``k`` links with the highest mean utilisation (ties: more bytes first).

        Examples
        --------
        >>> from nvlearn.topology import single_switch
        >>> from nvlearn.collectives import allreduce
        >>> from nvlearn.sim import simulate
        >>> res = simulate(single_switch(4, bw_per_dir=100e9), allreduce(4, 1e6), model="wire")
        >>> round(res.hottest_links(1)[0].utilisation, 3)
        1.0
        """
        util = self.link_utilisation
        order = heat_order(util, self.link_bytes)[: max(0, int(k))]
        return [
            HotLink(int(i), self.link_label(int(i)), float(self.link_bytes[i]), float(util[i]),
                    float(self.link_busy_time[i]))
            for i in order
        ]

    def summary(self, k: int = 5) -> str:
        """A text table: time, algbw/busbw, traffic per rank, and the ``k`` busiest links."""
        s = self.schedule
        chunks = s.meta.get("chunks") if hasattr(s, "meta") else None
        head = (
            f"{s.algorithm} {s.collective}: {s.n_ranks} ranks, "
            f"size {format_bytes(s.nccl_size)}"
            + (f", {chunks} chunks" if chunks else "")
            + f", on {self.topology.name}; model: {self.model_label}"
        )
        ranks = slice(0, s.n_ranks)
        lines = [
            head,
            f"  time                    {format_time(self.time)}",
            f"  algbw                   {format_rate(self.algbw)}",
            f"  busbw                   {format_rate(self.busbw)} (per direction, per rank)",
            f"  bytes sent per rank     {format_bytes(self.rank_bytes_sent[ranks].max())} (max)",
            f"  send busy per rank      {format_time(self.rank_send_busy_time[ranks].max())}"
            " (max)",
            f"  ops / events / batches  {self.n_ops:,} / {self.n_events:,} / {self.n_batches:,}",
            "",
            f"  {'busiest links':<34} {'bytes':>10} {'utilisation':>12} {'busy':>10}",
        ]
        for h in self.hottest_links(k):
            lines.append(
                f"  {h.label:<34} {format_bytes(h.bytes):>10} {h.utilisation:>11.1%} "
                f"{format_time(h.busy_time):>10}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        s = self.schedule
        return (
            f"SimResult({s.algorithm} {s.collective}, {s.n_ranks} ranks on "
            f"{self.topology.name}, {self.model_label}: time {format_time(self.time)}, "
            f"busbw {format_rate(self.busbw)})"
        )
