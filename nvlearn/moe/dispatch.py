"""MoE traffic: who sends how many bytes to whom, as all-to-all Schedules, and how long it takes.

A routed batch (:class:`~nvlearn.moe.router.Routing`) becomes two all-to-alls per MoE layer
(forward; training repeats both backwards):

* **dispatch** — each kept (token, expert) assignment is one row of ``hidden`` numbers sent
  from the token's GPU to the expert's GPU: ``bytes[s, d] = rows[s, d] x hidden x bytes``;
* **combine** — the expert outputs come back the same way: the transpose.

Four ways to carry it (``mode`` in :func:`simulate_moe`):

* ``"flat"`` — one direct ragged all-to-all, one row per (token, expert) (Megatron's and
  DeepSpeed's all-to-all dispatchers). The diagonal (experts on the token's own GPU) stays
  local.
* ``"padded"`` — capacity-based implementations (GShard, DeepSpeed) send a fixed buffer of
  ``capacity`` rows per (GPU, expert), empty slots padded: a *uniform* all-to-all whose size
  is set by the capacity factor, not by the routing.
* ``"dedup"`` — node-limited routing with de-duplication (DeepSeek-V3, DeepEP): stage 1
  sends each token *once* to every remote node it needs, to the GPU there with the same
  local index (same rail); stage 2 fans the rows out inside each node over NVLink, one per
  (token, expert). Combine runs the stages backwards (the relay sums a token's expert
  outputs before sending one row back).
* ``"gpu_dedup"`` — per-GPU de-duplication, as expert-parallel libraries send it (DeepEP's
  dispatch, Megatron's token dispatcher): a token whose k experts include several on one
  GPU goes to that GPU *once*, and the GPU copies the row to each of its chosen local
  experts; combine returns one row per (token, GPU), the weighted sum of that GPU's expert
  outputs for the token, already reduced there. One all-to-all each way; with experts
  spread over many GPUs it equals ``"flat"``, with a token's experts on few GPUs it sends
  up to k times fewer rows.

Modelling choices: the stages of ``"dedup"`` run one after the other (stage 2 starts when
stage 1 has finished everywhere); DeepEP overlaps them, so the real time lies between the
slower stage and the sum. Expert computation, the router, and permutation copies inside a
GPU are not timed — only the fabric.

References
----------
D. Lepikhin et al., "GShard", arXiv:2006.16668, 2020 (capacity-padded all-to-all dispatch and
combine).
S. Rajbhandari et al., "DeepSpeed-MoE: advancing mixture-of-experts inference and training to
power next-generation AI scale", ICML 2022 (expert-parallel all-to-all).
DeepSeek-AI, "DeepSeek-V3 technical report", arXiv:2412.19437, 2024, and the DeepEP library
(github.com/deepseek-ai/DeepEP) (node-limited dispatch: one copy per node over the network,
then NVLink inside it).
R. Thakur, R. Rabenseifner and W. Gropp, IJHPCA 19(1):49-66, 2005 (the direct all-to-all's
cost, :func:`alltoall_time_formula`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from nvlearn.collectives.direct import direct_alltoall
from nvlearn.moe.router import Routing
from nvlearn.schedule import Schedule
from nvlearn.sim import HotLink, SimResult, simulate
from nvlearn.topology import LINK_KIND_KEYS

__all__ = [
    "MODES", "dispatch_rows", "gpu_dedup_rows", "padded_rows", "relay_gpu", "dedup_rows",
    "traffic_matrix", "ragged_alltoall", "stage_rows", "GPUTraffic", "MoEComm", "gpu_boxes",
    "simulate_moe", "alltoall_time_formula",
]

MODES = ("flat", "padded", "dedup", "gpu_dedup")


def _check_bytes(hidden, bytes_per_elem) -> tuple[int, float]:
    if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 1:
        raise ValueError(f"hidden must be a whole number of elements >= 1, got {hidden!r}")
    if not (np.isfinite(bytes_per_elem) and bytes_per_elem > 0):
        raise ValueError(
            f"bytes_per_elem must be > 0 (2 for bf16, 1 for fp8), got {bytes_per_elem!r}"
        )
    return int(hidden), float(bytes_per_elem)


def dispatch_rows(routing: Routing) -> np.ndarray:
    """Kept (token, expert) rows each GPU sends each GPU, shape (n_gpus, n_gpus), int64.

    ``rows[s, d]``: assignments of GPU s's tokens to experts on GPU d; the diagonal stays
    on the GPU. Combine rows are the transpose.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> r = route(4, 100, 8, 2, seed=0)
    >>> int(dispatch_rows(r).sum()) == 4 * 100 * 2
    True
    """
    g = routing.n_gpus
    src = np.broadcast_to(np.arange(g)[:, None, None], routing.expert.shape)
    key = (src * g + routing.dest_gpu)[routing.kept]
    return np.bincount(key, minlength=g * g).reshape(g, g).astype(np.int64)


def gpu_dedup_rows(routing: Routing) -> np.ndarray:
    """Rows of a per-GPU de-duplicated dispatch, shape (n_gpus, n_gpus), int64.

    ``rows[s, d]``: tokens of GPU s with at least one kept expert on GPU d — one row per
    (token, destination GPU), however many of the token's experts GPU d hosts. The diagonal
    stays on the GPU. Combine rows are the transpose (one reduced row per (token, GPU)).

    Examples
    --------
    >>> from nvlearn.moe import gate
    >>> s = np.array([[[4.0, 3.0, 2.0, 1.0]]])     # GPU 0's token picks experts 0 and 1
    >>> r = gate(np.concatenate([s, s]), 2, gpus_per_node=1)    # 2 experts per GPU
    >>> dispatch_rows(r).tolist(), gpu_dedup_rows(r).tolist()
    ([[2, 0], [2, 0]], [[1, 0], [1, 0]])
    """
    g, t = routing.n_gpus, routing.tokens_per_gpu
    src = np.broadcast_to(np.arange(g)[:, None, None], routing.expert.shape)
    tok = np.broadcast_to(np.arange(t)[None, :, None], routing.expert.shape)
    token_dest = np.unique(((src * t + tok) * g + routing.dest_gpu)[routing.kept])
    pair = token_dest // (t * g) * g + token_dest % g  # (source GPU, destination GPU)
    return np.bincount(pair, minlength=g * g).reshape(g, g).astype(np.int64)


def padded_rows(routing: Routing) -> np.ndarray:
    """Rows of a capacity-padded dispatch: ``capacity x experts_per_gpu`` to every GPU.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> padded_rows(route(4, 100, 8, 1, capacity_factor=1.0)).tolist()[0]
    [26, 26, 26, 26]
    """
    if routing.capacity is None:
        raise ValueError(
            "a padded all-to-all needs a capacity; route with a capacity_factor (dropless "
            "routing sends ragged blocks: use mode='flat')"
        )
    g = routing.n_gpus
    return np.full((g, g), routing.capacity * routing.experts_per_gpu, dtype=np.int64)


def relay_gpu(routing: Routing) -> np.ndarray:
    """``relay[s, n]``: the GPU of node n that receives GPU s's de-duplicated rows.

    The GPU with s's local index on node n (the same rail); s itself for s's own node.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> relay_gpu(route(16, 4, 16, 1, max_nodes=1))[3].tolist()
    [3, 11]
    """
    gpn = routing.gpus_per_node
    if routing.n_gpus % gpn:
        raise ValueError(
            f"de-duplication works on whole nodes: {routing.n_gpus} GPUs are not a multiple "
            f"of {gpn} GPUs per node"
        )
    s = np.arange(routing.n_gpus)[:, None]
    n = np.arange(routing.n_gpus // gpn)[None, :]
    relay = n * gpn + s % gpn
    own = (s // gpn) == n
    return np.where(own, s, relay)


def dedup_rows(routing: Routing) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the two de-duplicated stages, each shape (n_gpus, n_gpus), int64.

    Returns
    -------
    stage1 : ndarray
        ``stage1[s, r]``: tokens GPU s sends to relay r on another node — one row per
        (token, remote node) with at least one kept expert there.
    stage2 : ndarray
        ``stage2[r, d]``: rows relay r (or the token's own GPU, for its own node) forwards
        to GPU d inside the node — one per kept (token, expert); diagonal = already there.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> r = route(16, 64, 32, 4, max_nodes=1, seed=0)
    >>> s1, s2 = dedup_rows(r)
    >>> int(s1.sum()) <= 16 * 64, int(s2.sum()) == 16 * 64 * 4
    (True, True)
    """
    g, gpn = routing.n_gpus, routing.gpus_per_node
    relay = relay_gpu(routing)
    n_nodes = g // gpn
    src = np.broadcast_to(np.arange(g)[:, None, None], routing.expert.shape)
    dest = routing.dest_gpu
    hop = relay[src, dest // gpn]  # where each assignment's row enters its expert's node
    kept = routing.kept
    stage2 = np.bincount((hop * g + dest)[kept], minlength=g * g).reshape(g, g)
    remote = kept & (dest // gpn != src // gpn)
    need = np.zeros((g, routing.tokens_per_gpu, n_nodes), dtype=bool)
    tok = np.broadcast_to(np.arange(routing.tokens_per_gpu)[None, :, None], dest.shape)
    need[src[remote], tok[remote], dest[remote] // gpn] = True
    per_node = need.sum(axis=1)  # (g, n_nodes): tokens s sends to node n
    stage1 = np.zeros((g, g), dtype=np.int64)
    np.add.at(stage1, (np.repeat(np.arange(g), n_nodes), relay.ravel()), per_node.ravel())
    return stage1, stage2.astype(np.int64)


def traffic_matrix(routing: Routing, hidden: int, bytes_per_elem: float = 2.0, *,
                   mode: str = "flat") -> np.ndarray:
    """Dispatch bytes from each GPU to each GPU (combine: the transpose).

    Parameters
    ----------
    routing : Routing
        Which expert (and so which GPU) each token's kept choices go to (:func:`route`).
    hidden : int
        Elements per token row (the model's hidden size).
    bytes_per_elem : float
        2 for bf16, 1 for fp8.
    mode : {"flat", "padded", "dedup", "gpu_dedup"}
        For ``"dedup"``: the bytes each GPU sends each GPU over both stages together.

    Returns
    -------
    ndarray of float64, shape (n_gpus, n_gpus)
        ``[s, d]`` bytes; the diagonal is what stays on the GPU.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> m = traffic_matrix(route(2, 10, 2, 1, seed=0), hidden=4)
    >>> float(m.sum())      # 20 tokens x 4 elements x 2 bytes
    160.0
    """
    hidden, b = _check_bytes(hidden, bytes_per_elem)
    if mode == "flat":
        rows = dispatch_rows(routing)
    elif mode == "padded":
        rows = padded_rows(routing)
    elif mode == "dedup":
        s1, s2 = dedup_rows(routing)
        rows = s1 + s2
    elif mode == "gpu_dedup":
        rows = gpu_dedup_rows(routing)
    else:
        raise ValueError(f"unknown mode {mode!r}; use one of {MODES}")
    return rows * float(hidden * b)


def ragged_alltoall(block_bytes) -> Schedule:
    """A direct all-to-all of ragged blocks with one chunk per *non-empty* block.

    ``block_bytes[s, d]`` bytes go from rank s to rank d; the compact layout of
    :func:`nvlearn.collectives.direct.direct_alltoall` (``compact=True``) gives every
    non-empty block its own chunk, so token rows laid out block by block map onto element
    ranges (MoE traffic has many empty blocks, and the data plane needs every chunk to hold
    at least one element).

    Examples
    --------
    >>> s = ragged_alltoall([[1.0, 2.0], [0.0, 3.0]])
    >>> s.n_chunks, s.n_ops, s.op_bytes.tolist()
    (3, 1, [2.0])
    """
    blocks = np.asarray(block_bytes, dtype=np.float64)
    if blocks.ndim != 2 or blocks.shape[0] != blocks.shape[1] or blocks.shape[0] < 2:
        raise ValueError(f"block_bytes must be a square (p, p) array with p >= 2, got "
                         f"shape {blocks.shape}")
    if not (blocks > 0).any():
        raise ValueError("an all-to-all with no bytes to move; give some block > 0")
    return direct_alltoall(blocks.shape[0], 0.0, block_bytes=blocks, compact=True)


def stage_rows(routing: Routing, mode: str = "flat") -> dict[str, list[np.ndarray]]:
    """Row matrices of every all-to-all stage, in execution order, per phase.

    Returns ``{"dispatch": [rows, ...], "combine": [rows, ...]}``: one stage for ``"flat"``,
    ``"padded"`` and ``"gpu_dedup"``, two for ``"dedup"`` (combine runs the dispatch stages
    backwards, transposed).

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> [len(v) for v in stage_rows(route(16, 8, 16, 2, max_nodes=2), "dedup").values()]
    [2, 2]
    """
    if mode == "flat":
        stages = [dispatch_rows(routing)]
    elif mode == "padded":
        stages = [padded_rows(routing)]
    elif mode == "dedup":
        stages = list(dedup_rows(routing))
    elif mode == "gpu_dedup":
        stages = [gpu_dedup_rows(routing)]
    else:
        raise ValueError(f"unknown mode {mode!r}; use one of {MODES}")
    return {"dispatch": stages, "combine": [m.T for m in reversed(stages)]}


class GPUTraffic(NamedTuple):
    """What each GPU sent and received over the fabric in a phase, and in how long.

    ``sent`` and ``received`` are bytes per GPU, shape (n_gpus,), over all the phase's
    stages (a GPU's own block stays local and is not counted); ``time`` is the phase's
    seconds. A GPU link is full duplex, so sending and receiving are separate directions:
    compare each rate with the link's bandwidth per direction.
    """

    sent: np.ndarray
    received: np.ndarray
    time: float

    @property
    def send_bw_per_dir(self) -> np.ndarray:
        """Average rate each GPU sends at over the phase, bytes/s (outbound direction)."""
        return self.sent / self.time if self.time > 0 else np.zeros_like(self.sent)

    @property
    def recv_bw_per_dir(self) -> np.ndarray:
        """Average rate each GPU receives at over the phase, bytes/s (inbound direction)."""
        return self.received / self.time if self.time > 0 else np.zeros_like(self.received)


@dataclass(frozen=True, eq=False, repr=False)
class MoEComm:
    """Simulated dispatch and combine of one MoE layer (forward) on one fabric.

    Attributes
    ----------
    mode : str
        "flat", "padded", "dedup" or "gpu_dedup".
    dispatch, combine : tuple of SimResult
        One per stage that moves bytes, in execution order (stages run back to back).
    dispatch_bytes : ndarray, shape (n_gpus, n_gpus)
        Bytes each GPU sends each GPU in dispatch, all stages (diagonal: stays local).
    inter_node_bytes : float
        Dispatch bytes that cross a node boundary (combine moves the same amount).
    """

    topology_name: str
    routing: Routing
    hidden: int
    mode: str
    dispatch: tuple[SimResult, ...]
    combine: tuple[SimResult, ...]
    dispatch_bytes: np.ndarray
    inter_node_bytes: float

    @property
    def dispatch_time(self) -> float:
        """Seconds for the dispatch all-to-all(s)."""
        return float(sum(r.time for r in self.dispatch))

    @property
    def combine_time(self) -> float:
        """Seconds for the combine all-to-all(s)."""
        return float(sum(r.time for r in self.combine))

    @property
    def time(self) -> float:
        """Dispatch + combine, seconds (one MoE layer, forward)."""
        return self.dispatch_time + self.combine_time

    @property
    def recv_bytes(self) -> np.ndarray:
        """Bytes each GPU receives over the fabric in dispatch (all stages), shape (n_gpus,)."""
        return self.gpu_traffic("dispatch").received

    @property
    def send_bytes(self) -> np.ndarray:
        """Bytes each GPU sends over the fabric in dispatch (all stages), shape (n_gpus,)."""
        return self.gpu_traffic("dispatch").sent

    def gpu_traffic(self, phase: str = "dispatch") -> GPUTraffic:
        """Bytes each GPU sent and received over the fabric, and the per-direction rates.

        Parameters
        ----------
        phase : {"dispatch", "combine", "both"}
            ``"both"``: the layer's two phases together, over :attr:`time`.

        Returns
        -------
        GPUTraffic
            ``sent``, ``received`` (bytes per GPU), ``time`` (s), ``send_bw_per_dir`` and
            ``recv_bw_per_dir`` (bytes/s per GPU, each one direction of its links).

        Examples
        --------
        >>> from nvlearn.moe import route
        >>> from nvlearn.topology import dgx_h100
        >>> res = simulate_moe(dgx_h100(), route(8, 256, 16, 2, seed=0), 1024)
        >>> t = res.gpu_traffic("combine")
        >>> bool(np.all(t.recv_bw_per_dir <= 450e9))     # never above 18 x 25 GB/s
        True
        """
        runs = {"dispatch": self.dispatch, "combine": self.combine,
                "both": self.dispatch + self.combine}
        if phase not in runs:
            raise ValueError(f"phase must be one of {tuple(runs)}, got {phase!r}")
        g = self.routing.n_gpus
        sent, received = np.zeros(g), np.zeros(g)
        for r in runs[phase]:
            sent += r.rank_bytes_sent[:g]
            received += r.rank_bytes_received[:g]
        return GPUTraffic(sent, received, float(sum(r.time for r in runs[phase])))

    def slowest_stage(self) -> tuple[str, SimResult] | None:
        """``(phase, result)`` of the longest stage ("dispatch" or "combine"); None if idle."""
        stages = [("dispatch", r) for r in self.dispatch] + [("combine", r) for r in self.combine]
        if not stages:
            return None
        return max(stages, key=lambda s: s[1].time)

    def limiting_link(self) -> HotLink | None:
        """The busiest link of the slowest dispatch or combine stage (None if nothing moved)."""
        slowest = self.slowest_stage()
        return None if slowest is None else slowest[1].hottest_links(1)[0]

    def endpoint_bound(self, bw_per_dir) -> float:
        """Lower bound on :attr:`time` from the GPUs' own links, seconds.

        Per stage, the busiest GPU's bytes (sent or received over the fabric) divided by its
        bandwidth (``bw_per_dir``: bytes/s per direction, one number or one per GPU), summed
        over the stages. When it is close to the simulated time, the hottest GPU sets it.
        """
        g = self.routing.n_gpus
        bw = np.broadcast_to(np.asarray(bw_per_dir, dtype=float), (g,))
        return float(sum(max((r.rank_bytes_sent[:g] / bw).max(),
                             (r.rank_bytes_received[:g] / bw).max())
                         for r in self.dispatch + self.combine))

    def limiting_link_kind(self) -> str:
        """Kind of the limiting link ("nvlink", "infiniband" ...); "" if nothing moved."""
        link = self.limiting_link()
        if link is None:
            return ""
        return LINK_KIND_KEYS[int(self.dispatch[0].topology.link_kind[link.link])]

    def __repr__(self) -> str:
        return (
            f"MoEComm({self.mode} on {self.topology_name}: dispatch "
            f"{self.dispatch_time * 1e6:.1f} us + combine {self.combine_time * 1e6:.1f} us)"
        )


def gpu_boxes(topology) -> np.ndarray:
    """Node (box) of each GPU of ``topology``; GPUs outside any box get their own number."""
    box = np.asarray(topology.node_box)[np.asarray(topology.gpus)].astype(np.int64)
    loose = box < 0
    box[loose] = box.max(initial=-1) + 1 + np.arange(np.count_nonzero(loose))
    return box


def simulate_moe(topology, routing: Routing, hidden: int, *, mode: str = "flat",
                 dispatch_bytes: float = 2.0, combine_bytes: float = 2.0,
                 model: str | None = None) -> MoEComm:
    """Simulate one MoE layer's dispatch and combine all-to-alls on ``topology``.

    Parameters
    ----------
    topology : Topology
        One GPU per rank of the routing (``topology.n_gpus == routing.n_gpus``).
    routing : Routing
        The routed batch (:func:`~nvlearn.moe.router.route`).
    hidden : int
        Elements per token row.
    mode : {"flat", "padded", "dedup", "gpu_dedup"}
        See the module docstring.
    dispatch_bytes, combine_bytes : float
        Bytes per element in each phase (DeepEP: fp8 dispatch = 1, bf16 combine = 2).
    model : {"achievable", "wire"}, optional
        Model of the fabric for :func:`nvlearn.sim.simulate`; default: simulate's own.

    Returns
    -------
    MoEComm
        Dispatch and combine times (s), per-GPU bytes and rates (bytes/s) each way.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> from nvlearn.topology import dgx_h100
    >>> res = simulate_moe(dgx_h100(), route(8, 512, 16, 2, seed=0), hidden=4096)
    >>> 0 < res.dispatch_time < 1e-3
    True
    """
    hidden, db = _check_bytes(hidden, dispatch_bytes)
    _, cb = _check_bytes(hidden, combine_bytes)
    if topology.n_gpus != routing.n_gpus:
        raise ValueError(
            f"the routing spreads experts over {routing.n_gpus} GPUs but {topology.name!r} has "
            f"{topology.n_gpus}; route for {topology.n_gpus} GPUs"
        )
    box = gpu_boxes(topology)
    if mode == "dedup":
        expect = np.arange(routing.n_gpus) // routing.gpus_per_node
        if not np.array_equal(box, expect):
            raise ValueError(
                f"de-duplication assumes {routing.gpus_per_node} consecutive GPUs per node, but "
                f"{topology.name!r} groups its GPUs differently; route with the topology's "
                "gpus_per_node"
            )
    stages = stage_rows(routing, mode)
    row = {"dispatch": hidden * db, "combine": hidden * cb}
    run_kw = {} if model is None else {"model": model}
    runs: dict[str, tuple[SimResult, ...]] = {}
    for phase, mats in stages.items():
        done = []
        for rows in mats:
            if np.any(rows[~np.eye(rows.shape[0], dtype=bool)] > 0):
                done.append(simulate(topology, ragged_alltoall(rows * row[phase]), **run_kw))
        runs[phase] = tuple(done)
    sent = sum(stages["dispatch"]) * row["dispatch"]
    if mode == "dedup":
        inter = float(stages["dispatch"][0].sum() * row["dispatch"])
    else:
        inter = float(sent[box[:, None] != box[None, :]].sum())
    return MoEComm(
        topology_name=topology.name,
        routing=routing,
        hidden=hidden,
        mode=mode,
        dispatch=runs["dispatch"],
        combine=runs["combine"],
        dispatch_bytes=sent,
        inter_node_bytes=inter,
    )


def alltoall_time_formula(n_gpus: int, send_bytes: float, bw_per_dir: float,
                          alpha: float) -> float:
    """Closed-form direct all-to-all on a non-blocking switch: alpha + (p-1)/p x n / B.

    ``send_bytes`` is each GPU's whole send buffer (its own block included); the formula is
    :func:`nvlearn.collectives.direct_alltoall_time`'s, in MoE terms.

    Parameters
    ----------
    n_gpus : int
        GPUs p >= 2 in the all-to-all.
    send_bytes : float
        Each GPU's whole send buffer in bytes (p equal blocks, its own included); > 0.
    bw_per_dir : float
        Each GPU's link to the switch, bytes/s per direction; > 0.
    alpha : float
        Latency of one message, seconds; >= 0.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> alltoall_time_formula(8, 8e6, 1e11, 0.0)
    7e-05
    """
    from nvlearn.collectives import direct_alltoall_time

    return direct_alltoall_time(int(n_gpus), send_bytes, bw_per_dir, alpha)
