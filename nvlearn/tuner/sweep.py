"""Measure instead of predict: every all-reduce algorithm across message sizes on one fabric.

NCCL *predicts* with a calibrated model (:mod:`nvlearn.tuner.nccl`). Here each algorithm of
:mod:`nvlearn.collectives` is timed as what it is — a Schedule — either by the simulator
(:func:`nvlearn.sim.simulate` on the Topology: routes, contention, the pod's 2:1 taper) or by
its closed form (:func:`nvlearn.collectives.cost`: one uncontended switch, exact there), and
the fastest at each size is read off the curves.

The closed forms need two numbers per level, read off the topology by :func:`link_params`:

* ``bw_per_dir``, ``alpha``: the bottleneck bandwidth and the latency of the route between
  GPU 0 and the farthest GPU of the communicator, one flow alone (a flat algorithm's best
  case: on the pod the taper only bites when many GPUs cross boxes at once — the simulator
  shows when);
* ``bw_inter``, ``alpha_inter``: for the hierarchical algorithm's rail rings, where every GPU
  of a node crosses at once: each GPU's share of the node's exit capacity (at most its own
  route's bottleneck), and the cross-node latency.

Pipelining matters as much as the algorithm (a one-chunk NVLS all-reduce of 1 GiB is slower
than a ring): :func:`best_chunks` gives each algorithm the pipeline depth (a power of two up to
``max_chunks``) at which its closed form is fastest, and the sweeps use it unless told a
``chunks``.

Every sweep says which model of the fabric made its times (:mod:`nvlearn.sim.models`):
``"achievable"`` (NCCL's rates, protocols and latencies; the default) or ``"wire"`` (the ideal
at link rate, no software).

References
----------
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1):49-66, 2005 (choosing the algorithm by message size
from alpha-beta costs, as the sweeps do).
NVIDIA NCCL 2.30.7, src/graph/tuning.cc (the achievable rates and latencies of
:mod:`nvlearn.sim.models`); nccl-tests, doc/PERFORMANCE.md (busbw).

Examples
--------
>>> from nvlearn.topology import dgx_h100
>>> sw = closed_form_sweep(link_params(dgx_h100()), [2**10, 2**30], ["ring", "nvls"])
>>> [sw.algorithms[i] for i in sw.best_index()]       # NVLS's 25 us loses small messages
['ring', 'nvls']
>>> wire = closed_form_sweep(link_params(dgx_h100()), [2**10, 2**30], ["ring", "nvls"],
...                          model="wire")
>>> [wire.algorithms[i] for i in wire.best_index()]   # at wire rate, no software: NVLS
['nvls', 'nvls']
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from nvlearn import collectives
from nvlearn.collectives.metrics import busbw_factor
from nvlearn.collectives.nvls import nvswitch_planes
from nvlearn.progress import progress
from nvlearn.sim import models

__all__ = [
    "SIZES", "VARIANTS", "LONG_SWEEP_OPS", "MAX_CHUNKS", "LinkParams", "achievable_params",
    "link_params", "closed_form_time", "best_chunks", "Sweep", "closed_form_sweep",
    "build_allreduce", "simulate_allreduce", "speedup", "gpu_traffic", "simulated_sweep",
]

#: Message sizes of the notebook's sweeps: 1 KiB to 8 GiB in powers of two, bytes.
SIZES = 2.0 ** np.arange(10, 34)

#: Options of the sweep variants that are not an algorithm's defaults: "hierarchical" runs
#: a ring inside each node, "hierarchical_nvls" NVLS inside each node; both ring across nodes.
_VARIANT_OPTIONS: dict[str, tuple[str, dict]] = {
    "hierarchical": ("hierarchical", {"intra": "ring"}),
    "hierarchical_nvls": ("hierarchical", {"intra": "nvls"}),
}
#: Sweep names -> (collectives algorithm, options): every all-reduce of the algorithm
#: registry (:data:`nvlearn.collectives.ALGORITHMS`) under its own name, plus the
#: hierarchical one with NVLS inside each node.
VARIANTS: dict[str, tuple[str, dict]] = {
    **{a: _VARIANT_OPTIONS.get(a, (a, {})) for a in collectives.ALGORITHMS["allreduce"]},
    **_VARIANT_OPTIONS,
}

#: Ops above which :func:`simulated_sweep` shows a progress bar (about 2 s on two cores).
LONG_SWEEP_OPS = 4_000_000

#: Deepest pipeline :func:`best_chunks` tries.
MAX_CHUNKS = 128


@dataclass(frozen=True)
class LinkParams:
    """A fabric as the closed forms see it (bytes/s per direction, seconds).

    ``bw_per_dir``/``alpha``: one flow from GPU 0 to the farthest rank (flat algorithms);
    ``bw_intra``/``alpha_intra``: inside a node; ``bw_inter``/``alpha_inter``: each GPU's
    share across nodes when all of a node's GPUs cross at once (hierarchical).

    Examples
    --------
    >>> from nvlearn.topology import nvlink_pod
    >>> lp = link_params(nvlink_pod())
    >>> round(lp.bw_per_dir / 1e9), round(lp.bw_inter / 1e9), round(lp.alpha_inter * 1e6, 2)
    (450, 225, 1.2)
    """

    name: str
    n_ranks: int
    ranks_per_node: int
    nvls_domain: bool
    bw_per_dir: float
    alpha: float
    bw_intra: float
    alpha_intra: float
    bw_inter: float
    alpha_inter: float
    topology: object = field(default=None, compare=False, repr=False)

    @property
    def n_nodes(self) -> int:
        """Nodes (boxes) the communicator spans."""
        return self.n_ranks // self.ranks_per_node

    def available(self, variant: str) -> bool:
        """Whether ``variant`` applies: NVLS needs one NVSwitch domain, hierarchical >1 node."""
        algo, opts = _variant(variant)
        if algo == "nvls":
            return self.nvls_domain
        if algo == "hierarchical":
            return self.n_nodes > 1 and (opts["intra"] != "nvls" or self.ranks_per_node > 1)
        return True

    def options(self, variant: str) -> dict:
        """Keyword options of :func:`nvlearn.collectives.cost` for ``variant``."""
        algo, opts = _variant(variant)
        if algo != "hierarchical":
            return {}
        return {"ranks_per_node": self.ranks_per_node, "intra": opts["intra"],
                "bw_inter": self.bw_inter, "alpha_inter": self.alpha_inter}


def _variant(name: str) -> tuple[str, dict]:
    if name not in VARIANTS:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(VARIANTS)}")
    return VARIANTS[name]


def _route(topology, a: int, b: int, capacity: np.ndarray, latency_of) -> tuple[float, float]:
    """Bottleneck bandwidth (bytes/s) and latency (s) of one flow from GPU a to GPU b, with
    ``capacity`` per link and ``latency_of(indptr, link, wire_latency)`` per route."""
    g = np.asarray(topology.gpus)
    indptr, link, frac, latency = topology.routes(g[[a]], g[[b]])
    load = np.bincount(link, weights=frac, minlength=topology.n_links)
    used = load > 0
    return float(np.min(capacity[used] / load[used])), float(latency_of(indptr, link,
                                                                          latency)[0])


def _wire_latency(indptr, link, latency):
    return latency


def _measure(topology, p: int, q: int, capacity: np.ndarray, latency_of) -> LinkParams:
    """LinkParams of ``p`` GPUs in nodes of ``q`` with the given link rates and latencies."""
    box = np.asarray(topology.node_box)[np.asarray(topology.gpus)[:p]]
    per_box = int(np.sum(box == box[0]))
    bw, alpha = _route(topology, 0, p - 1, capacity, latency_of)
    bw_intra, alpha_intra = (_route(topology, 0, q - 1, capacity, latency_of) if q > 1
                             else (bw, alpha))
    bw_inter, alpha_inter = bw, alpha
    if p > q:
        src, dst = np.asarray(topology.link_src), np.asarray(topology.link_dst)
        nb = np.asarray(topology.node_box)
        leave = (nb[src] == box[0]) & (nb[dst] != box[0])
        exit_bw = float(capacity[leave].sum())
        pair_bw, alpha_inter = _route(topology, 0, q, capacity, latency_of)
        bw_inter = min(pair_bw, exit_bw / per_box) if exit_bw > 0 else pair_bw
    try:
        nvswitch_planes(topology, range(p))
        nvls = True
    except ValueError:
        nvls = False
    return LinkParams(topology.name, p, q, nvls, bw, alpha, bw_intra, alpha_intra, bw_inter,
                      alpha_inter, topology)


@functools.lru_cache(maxsize=64)
def _link_params(topology, n_ranks: int, ranks_per_node: int | None) -> LinkParams:
    p = int(n_ranks)
    box = np.asarray(topology.node_box)[np.asarray(topology.gpus)[:p]]
    q = int(np.sum(box == box[0])) if ranks_per_node is None else int(ranks_per_node)
    if q < 1 or p % q:
        raise ValueError(f"ranks_per_node must divide n_ranks={p}, got {ranks_per_node}")
    return _measure(topology, p, q, np.asarray(topology.link_capacity, dtype=np.float64),
                    _wire_latency)


def _nccl_row(variant: str) -> str:
    algo, opts = _variant(variant)
    if algo == "hierarchical" and opts["intra"] == "nvls":
        return "nvls_tree"
    return models.NCCL_ROW[algo]


@functools.lru_cache(maxsize=512)
def _achievable_params(topology, p: int, q: int, row: str,
                       protocol: str) -> tuple[LinkParams, float]:
    capacity, _ = models.achievable_capacity(topology, topology.link_capacity, protocol, row, p)
    base, step = models.software_latency(protocol, row)
    per_type = np.array([step[t] for t in models.PATH_TYPES] + [0.0])    # -1: no links

    def latency_of(indptr, link, wire):
        return np.maximum(per_type[models.path_types(topology, indptr, link)], wire)

    params = _measure(topology, p, q, capacity, latency_of)
    if row in ("nvls", "nvls_tree"):    # as the simulator: less the wire round trip, twice
        base = max(0.0, base - 2.0 * (params.alpha if row == "nvls" else params.alpha_intra))
    return params, base


def achievable_params(params: LinkParams, variant: str,
                      n_bytes: float) -> tuple[LinkParams, float, str]:
    """``params`` under the achievable model for ``variant`` at ``n_bytes``.

    Returns the LinkParams with NCCL's achievable rates and per-step latencies
    (:mod:`nvlearn.sim.models`), the base latency (s) charged once, and the protocol NCCL's
    tuner picks.

    Parameters
    ----------
    params : LinkParams
        The fabric's wire parameters from :func:`link_params` (its Topology is needed).
    variant : str
        A key of :data:`VARIANTS`.
    n_bytes : float
        Per-rank all-reduce buffer in bytes (the protocol NCCL picks depends on it).

    Returns
    -------
    (LinkParams, float, str)
        The parameters at NCCL's achievable rates (bytes/s per direction) and per-step
        latencies (s); the base latency in seconds; the protocol ("ll", "ll128", "simple").

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> ap, base, proto = achievable_params(link_params(dgx_h100()), "ring", 2**30)
    >>> proto, round(ap.bw_per_dir / 1e9, 1), round(ap.alpha * 1e6, 2), round(base * 1e6, 2)
    ('simple', 370.8, 3.4, 8.4)
    """
    if params.topology is None:
        raise ValueError("the achievable model needs the Topology: build the parameters with "
                         "link_params(topology), or use model='wire'")
    row = _nccl_row(variant)
    protocol, _ = models.nccl_protocol(params.topology, "allreduce", params.n_ranks,
                                       float(n_bytes), row)
    ap, base = _achievable_params(params.topology, params.n_ranks, params.ranks_per_node,
                                  row, protocol)
    return ap, base, protocol


def link_params(topology, n_ranks: int | None = None,
                ranks_per_node: int | None = None) -> LinkParams:
    """Closed-form parameters of ``topology`` for ``n_ranks`` GPUs (default all).

    ``ranks_per_node`` defaults to the GPUs of one box.

    Parameters
    ----------
    topology : Topology
        The fabric.
    n_ranks : int, optional
        Its first ``n_ranks`` GPUs form the communicator, 2 to ``topology.n_gpus``.
    ranks_per_node : int, optional
        GPUs per node for the hierarchical algorithms.

    Returns
    -------
    LinkParams
        Bandwidths in bytes/s per direction and latencies in seconds, for flat and two-level
        algorithms.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> lp = link_params(dgx_h100())
    >>> round(lp.bw_per_dir / 1e9), round(lp.alpha * 1e6, 2), lp.nvls_domain
    (450, 0.6, True)
    """
    p = int(topology.n_gpus) if n_ranks is None else n_ranks
    if isinstance(p, bool) or int(p) != p or not 2 <= p <= topology.n_gpus:
        raise ValueError(f"n_ranks must be an integer from 2 to {topology.n_gpus}, got {n_ranks}")
    return _link_params(topology, int(p), ranks_per_node)


def closed_form_time(variant: str, params: LinkParams, n_bytes: float, chunks: int,
                     model: str = "wire") -> float:
    """Closed-form all-reduce time (s) of ``variant`` on ``params``' fabric.

    ``model="wire"``: the ideal (:func:`nvlearn.collectives.cost` on ``params``);
    ``"achievable"``: the same formula with NCCL's achievable rates and per-step latencies
    plus its base latency (:func:`achievable_params`).

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    params : LinkParams
        The fabric from :func:`link_params`.
    n_bytes : float
        Per-rank all-reduce buffer in bytes; > 0.
    chunks : int
        Pipeline depth passed to the closed form; >= 1.
    model : {"wire", "achievable"}
        Which model of the fabric.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> t = closed_form_time("ring", link_params(dgx_h100()), 2**30, 1, model="wire")
    >>> round(t * 1e3, 2)                       # ms: 2 (7/8) x 1 GiB / 450 GB/s + latency
    4.18
    """
    params, base = _model_params(params, variant, n_bytes, model)
    return base + _cost(variant, params, n_bytes, chunks)


def _model_params(params: LinkParams, variant: str, n_bytes: float,
                  model: str) -> tuple[LinkParams, float]:
    """``params`` and the base latency (s) under ``model``."""
    if models.check_model(model) == "wire":
        return params, 0.0
    ap, base, _ = achievable_params(params, variant, n_bytes)
    return ap, base


def _cost(variant: str, params: LinkParams, n_bytes: float, chunks: int) -> float:
    algo, _ = _variant(variant)
    bw, alpha = ((params.bw_intra, params.alpha_intra) if algo == "hierarchical"
                 else (params.bw_per_dir, params.alpha))
    return collectives.cost("allreduce", algo, params.n_ranks, float(n_bytes), bw, alpha,
                            chunks=int(chunks), **params.options(variant))


def best_chunks(variant: str, params: LinkParams, n_bytes: float,
                max_chunks: int = MAX_CHUNKS, rtol: float = 0.01, model: str = "wire") -> int:
    """The shallowest pipeline (power of two <= ``max_chunks``) whose closed form is within
    ``rtol`` of the fastest — deeper pipelines that gain less than 1 % are not worth their
    extra messages.

    Under the achievable model the ring runs one slot per step: NCCL's model charges each of
    its ``2 (p-1)`` steps the step latency (``nsteps x hwLat``), which a deeper pipeline in
    the simulator would hide; the tree's and NVLS's bandwidth terms in NCCL's model assume a
    full pipeline, so they get their best depth.

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    params : LinkParams
        The fabric from :func:`link_params`.
    n_bytes : float
        Per-rank all-reduce buffer in bytes.
    max_chunks : int
        Deepest pipeline tried (rounded down to a power of two).
    rtol : float
        Relative slack: the shallowest depth within ``(1 + rtol)`` of the fastest wins.
    model : {"wire", "achievable"}
        Which model of the fabric.

    Returns
    -------
    int
        A power of two, 1 to ``max_chunks``.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> lp = link_params(dgx_h100())
    >>> best_chunks("nvls", lp, 2**10), best_chunks("nvls", lp, 2**30)
    (1, 128)
    """
    if models.check_model(model) == "achievable" and _variant(variant)[0] == "ring":
        return 1
    cands = [2**k for k in range(int(math.log2(max_chunks)) + 1)]
    mp, _ = _model_params(params, variant, n_bytes, model)
    times = np.array([_cost(variant, mp, n_bytes, c) for c in cands])
    return cands[int(np.flatnonzero(times <= times.min() * (1.0 + rtol))[0])]


@dataclass(frozen=True)
class Sweep:
    """Times of several all-reduce algorithms over a range of sizes on one fabric.

    ``time[a, s]`` is seconds for ``algorithms[a]`` at ``sizes[s]``; ``chunks[a, s]`` the
    pipeline depth used; ``methods[a]`` "simulated" or "closed form"; ``model`` which model
    of the fabric made the times ("achievable" or "wire", :mod:`nvlearn.sim.models`).
    """

    fabric: str
    n_ranks: int
    sizes: np.ndarray
    algorithms: tuple[str, ...]
    time: np.ndarray
    chunks: np.ndarray
    methods: tuple[str, ...]
    model: str = "wire"

    def combine(self, *others: Sweep) -> Sweep:
        """One Sweep with the rows of ``self`` and ``others`` (same fabric, ranks, sizes)."""
        rows = [self, *others]
        for o in others:
            if (o.fabric, o.n_ranks, o.model) != (self.fabric, self.n_ranks, self.model) or \
                    not np.array_equal(o.sizes, self.sizes):
                raise ValueError("combine needs sweeps of the same fabric, ranks, sizes and "
                                 "model")
        names = sum((r.algorithms for r in rows), ())
        if len(set(names)) != len(names):
            raise ValueError(f"an algorithm appears twice: {names}")
        return Sweep(self.fabric, self.n_ranks, self.sizes, names,
                     np.vstack([r.time for r in rows]), np.vstack([r.chunks for r in rows]),
                     sum((r.methods for r in rows), ()), self.model)

    @property
    def algbw(self) -> np.ndarray:
        """nccl-tests algbw, bytes/s, same shape as ``time``."""
        return self.sizes[None, :] / self.time

    @property
    def busbw(self) -> np.ndarray:
        """nccl-tests busbw (algbw x 2(p-1)/p), bytes/s."""
        return self.algbw * busbw_factor("allreduce", self.n_ranks)

    def best_index(self, among: Sequence[str] | None = None, rtol: float = 0.01) -> np.ndarray:
        """Index (into ``algorithms``) of the fastest algorithm at each size.

        ``among`` limits the contest (default: all). The title is sticky: going up in size, a
        challenger must beat the holder by more than ``rtol`` to take it, so two curves
        that run together (ring and Rabenseifner at large sizes) do not flip back and forth.
        """
        rows = self._rows(among)
        t = np.where(np.isfinite(self.time), self.time, np.inf)
        best = np.empty(self.sizes.size, dtype=np.int64)
        cur = rows[int(np.argmin(t[rows, 0]))]
        for s in range(self.sizes.size):
            fastest = rows[int(np.argmin(t[rows, s]))]
            if t[cur, s] > t[fastest, s] * (1.0 + rtol):
                cur = fastest
            best[s] = cur
        return best

    def _rows(self, among) -> np.ndarray:
        if among is None:
            return np.arange(len(self.algorithms))
        missing = [a for a in among if a not in self.algorithms]
        if missing or not among:
            raise ValueError(f"among must name algorithms of this sweep {self.algorithms}, "
                             f"got {list(among)}")
        return np.array([self.algorithms.index(a) for a in among])

    def crossovers(self, among: Sequence[str] | None = None,
                   rtol: float = 0.01) -> list[tuple[float, str, str]]:
        """``(size, from, to)`` wherever the fastest algorithm changes, in increasing size.

        The size is where the two curves cross, each taken as linear in ``n`` between the
        neighbouring sizes of the sweep (exact for the affine one-chunk closed forms).
        ``among`` and ``rtol`` as in :meth:`best_index`.
        """
        best = self.best_index(among, rtol)
        out = []
        for i in np.flatnonzero(best[1:] != best[:-1]):
            a, b = int(best[i]), int(best[i + 1])
            n0, n1 = self.sizes[i], self.sizes[i + 1]
            da = self.time[a, i + 1] - self.time[a, i]
            db = self.time[b, i + 1] - self.time[b, i]
            u = (self.time[b, i] - self.time[a, i]) / (da - db) if da != db else 0.5
            out.append((float(n0 + min(max(u, 0.0), 1.0) * (n1 - n0)), self.algorithms[a],
                        self.algorithms[b]))
        return out

    def row(self, algorithm: str) -> np.ndarray:
        """Times of one algorithm over ``sizes``."""
        return self.time[self.algorithms.index(algorithm)]


def _check(sizes, algorithms, params: LinkParams) -> tuple[np.ndarray, tuple[str, ...]]:
    x = np.asarray(sizes, dtype=np.float64).reshape(-1)
    if x.size == 0 or not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ValueError("sizes must be positive, finite byte counts")
    names = tuple(VARIANTS) if algorithms is None else tuple(algorithms)
    for a in names:
        _variant(a)
    names = tuple(a for a in names if params.available(a))
    if not names:
        raise ValueError(f"none of {algorithms} runs on {params.name!r} with "
                         f"{params.n_ranks} ranks")
    return x, names


def _chunks_for(variant, params, n, chunks, model) -> int:
    if chunks is None:
        return best_chunks(variant, params, n, model=model)
    if isinstance(chunks, bool) or int(chunks) != chunks or chunks < 1:
        raise ValueError(f"chunks must be a positive integer or None (best), got {chunks!r}")
    return int(chunks)


def closed_form_sweep(params: LinkParams, sizes=SIZES, algorithms: Sequence[str] | None = None,
                      chunks: int | None = None, model: str = models.DEFAULT_MODEL) -> Sweep:
    """Closed-form times of ``algorithms`` (default all that apply) at ``sizes``.

    ``chunks=None`` gives each algorithm its :func:`best_chunks` at each size; ``model`` is
    "achievable" (NCCL's rates and latencies, the default) or "wire".

    Parameters
    ----------
    params : LinkParams
        The fabric from :func:`link_params`.
    sizes : array_like of float
        Per-rank all-reduce buffers in bytes (default :data:`SIZES`, 1 KiB to 8 GiB).
    algorithms : sequence of str, optional
        Keys of :data:`VARIANTS`; default every one the fabric supports.
    chunks : int, optional
        One pipeline depth for all; default each algorithm's :func:`best_chunks`.
    model : {"achievable", "wire"}
        Which model of the fabric.

    Returns
    -------
    Sweep
        Times in seconds, shape (algorithms, sizes), and the depths used.
    """
    model = models.check_model(model)
    x, names = _check(sizes, algorithms, params)
    ch = np.array([[_chunks_for(a, params, n, chunks, model) for n in x] for a in names],
                  dtype=np.int64)
    t = np.array([[closed_form_time(a, params, n, c, model) for n, c in zip(x, row, strict=True)]
                  for a, row in zip(names, ch, strict=True)])
    return Sweep(params.name, params.n_ranks, x, names, t, ch, ("closed form",) * len(names),
                 model)


def build_allreduce(topology, variant: str, n_bytes: float, chunks: int = 1,
                    n_ranks: int | None = None, ranks_per_node: int | None = None):
    """``variant``'s all-reduce Schedule for the first ``n_ranks`` GPUs of ``topology``
    (NVLS and hierarchical take their NVSwitch planes and nodes from it).

    Parameters
    ----------
    topology : Topology
        The fabric.
    variant : str
        A key of :data:`VARIANTS`.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    chunks : int
        Pipeline depth; >= 1.
    n_ranks : int, optional
        Use the first ``n_ranks`` GPUs (default all).
    ranks_per_node : int, optional
        GPUs per node for the hierarchical variants.

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> build_allreduce(dgx_h100(), "nvls", 2**20, chunks=2).participant_role
    ('nvswitch0', 'nvswitch1', 'nvswitch2', 'nvswitch3')
    """
    algo, opts = _variant(variant)
    p = int(topology.n_gpus) if n_ranks is None else int(n_ranks)
    if algo == "nvls":
        return collectives.nvls_allreduce(p, n_bytes, chunks,
                                          switches=nvswitch_planes(topology, range(p)))
    if algo == "hierarchical":
        q = link_params(topology, p, ranks_per_node).ranks_per_node
        groups = np.arange(p).reshape(p // q, q)
        switches = ([nvswitch_planes(topology, g) for g in groups] if opts["intra"] == "nvls"
                    else None)
        return collectives.hierarchical_allreduce(p, n_bytes, chunks, intra=opts["intra"],
                                                  groups=groups, switches=switches)
    return collectives.allreduce(topology if p == topology.n_gpus else p, n_bytes, algo,
                                 chunks=chunks)


def simulate_allreduce(topology, variant: str, n_bytes: float, chunks: int = 1,
                       n_ranks: int | None = None, ranks_per_node: int | None = None,
                       model: str = models.DEFAULT_MODEL):
    """Build ``variant``'s Schedule on ``topology`` and simulate it; returns the SimResult.

    Parameters
    ----------
    topology : Topology
        The fabric.
    variant : str
        A key of :data:`VARIANTS`.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    chunks : int
        Pipeline depth; >= 1.
    n_ranks : int, optional
        Use the first ``n_ranks`` GPUs (default all).
    ranks_per_node : int, optional
        GPUs per node for the hierarchical variants.
    model : {"achievable", "wire"}
        Which model of the fabric the simulator uses.

    Returns
    -------
    SimResult
        ``.time`` in seconds, ``.busbw`` in bytes/s.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> r = simulate_allreduce(dgx_h100(), "ring", 2**30, chunks=4, model="wire")
    >>> round(r.busbw / 1e9)                 # GB/s, the NVLink rate per direction
    450
    >>> round(simulate_allreduce(dgx_h100(), "ring", 2**30).busbw / 1e9)   # NCCL's 18 x 20.6
    367
    """
    from nvlearn.sim import simulate

    return simulate(topology, build_allreduce(topology, variant, n_bytes, chunks, n_ranks,
                                              ranks_per_node), model=model)


def speedup(params: LinkParams, sizes=SIZES, fast: str = "nvls", base: str = "ring",
            fast_bw_factor: float = 1.0) -> np.ndarray:
    """``base``'s time over ``fast``'s at each size, both at their best pipeline depth.

    ``fast_bw_factor`` scales ``fast``'s link bandwidth (e.g. NCCL's ``nvlsEfficiency``, to
    ask what an in-switch reduction at 85 % of the wire rate would gain).

    Parameters
    ----------
    params : LinkParams
        The fabric from :func:`link_params`.
    sizes : array_like of float
        Per-rank all-reduce buffers in bytes.
    fast, base : str
        Keys of :data:`VARIANTS`.
    fast_bw_factor : float
        Multiplies ``fast``'s bandwidths, in (0, 1].

    Returns
    -------
    ndarray of float
        ``t_base / t_fast`` per size, under the wire model.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> round(float(speedup(link_params(dgx_h100()), [2**33])[0]), 2)
    1.51
    """
    if not 0 < fast_bw_factor <= 1:
        raise ValueError(f"fast_bw_factor must be in (0, 1], got {fast_bw_factor}")
    x, _ = _check(sizes, [fast, base], params)
    slow = replace(params, bw_per_dir=params.bw_per_dir * fast_bw_factor,
                   bw_intra=params.bw_intra * fast_bw_factor,
                   bw_inter=params.bw_inter * fast_bw_factor)
    t_base = [closed_form_time(base, params, n, best_chunks(base, params, n)) for n in x]
    t_fast = [closed_form_time(fast, slow, n, best_chunks(fast, slow, n)) for n in x]
    # wire model: the question is what the in-switch traffic saving alone is worth
    return np.asarray(t_base) / np.asarray(t_fast)


def gpu_traffic(result) -> tuple[np.ndarray, np.ndarray]:
    """Bytes each GPU put on its links and took off them in a simulation (one entry per
    GPU of the topology, rank order): ``(sent, received)``.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> sent, received = gpu_traffic(simulate_allreduce(dgx_h100(), "ring", 8e6))
    >>> float(sent[0]) / 8e6                     # 2 (p-1)/p of the buffer
    1.75
    """
    topo = result.topology
    gpus = np.asarray(topo.gpus)
    node_to_gpu = np.full(topo.n_nodes, -1, dtype=np.int64)
    node_to_gpu[gpus] = np.arange(gpus.size)
    src = node_to_gpu[np.asarray(topo.link_src)]
    dst = node_to_gpu[np.asarray(topo.link_dst)]
    lb = np.asarray(result.link_bytes, dtype=np.float64)
    sent = np.bincount(src[src >= 0], weights=lb[src >= 0], minlength=gpus.size)
    received = np.bincount(dst[dst >= 0], weights=lb[dst >= 0], minlength=gpus.size)
    return sent, received


def simulated_sweep(topology, sizes=SIZES, algorithms: Sequence[str] | None = None,
                    chunks: int | None = None, n_ranks: int | None = None,
                    ranks_per_node: int | None = None, max_ops: int | None = None,
                    model: str = models.DEFAULT_MODEL) -> Sweep:
    """Simulated times (the Schedules on the Topology) of ``algorithms`` at ``sizes``.

    ``chunks=None`` uses each algorithm's :func:`best_chunks` (chosen by its closed form
    under the same ``model``); ``max_ops`` caps the pipeline depth (halving it) so that no
    simulated Schedule has more ops than that — a 256-rank ring has 130,560 ops per chunk.

    Parameters
    ----------
    topology : Topology
        The fabric.
    sizes : array_like of float
        Per-rank all-reduce buffers in bytes (default :data:`SIZES`).
    algorithms : sequence of str, optional
        Keys of :data:`VARIANTS`; default every one the fabric supports.
    chunks : int, optional
        One pipeline depth for all; default each algorithm's :func:`best_chunks`.
    n_ranks : int, optional
        Use the first ``n_ranks`` GPUs (default all).
    ranks_per_node : int, optional
        GPUs per node for the hierarchical variants.
    max_ops : int, optional
        Cap on the ops of any one simulated Schedule.
    model : {"achievable", "wire"}
        Which model of the fabric the simulator uses.

    Returns
    -------
    Sweep
        Times in seconds, shape (algorithms, sizes), and the depths used.
    """
    model = models.check_model(model)
    params = link_params(topology, n_ranks, ranks_per_node)
    x, names = _check(sizes, algorithms, params)
    ch = np.array([[_chunks_for(a, params, n, chunks, model) for n in x] for a in names],
                  dtype=np.int64)
    if max_ops is not None:
        for i, a in enumerate(names):
            ops1 = _ops_per_chunk(topology, a, params)
            cap = 2 ** int(math.floor(math.log2(max(1, max_ops // ops1))))
            ch[i] = np.minimum(ch[i], cap)
    runs = [(i, j) for i in range(len(names)) for j in range(x.size)]
    ops = {a: _ops_per_chunk(topology, a, params) for a in names}
    total_ops = sum(ops[names[i]] * int(ch[i, j]) for i, j in runs)
    t = np.empty((len(names), x.size))
    # about 2 s and more on two cores (~2 M ops/s): show a bar in a notebook
    todo = progress(runs, label=f"simulating {len(runs)} schedules ({total_ops:,} ops)") \
        if total_ops > LONG_SWEEP_OPS else runs
    for i, j in todo:
        t[i, j] = simulate_allreduce(topology, names[i], x[j], int(ch[i, j]), params.n_ranks,
                                     params.ranks_per_node, model).time
    return Sweep(params.name, params.n_ranks, x, names, t, ch, ("simulated",) * len(names),
                 model)


def _ops_per_chunk(topology, variant: str, params: LinkParams) -> int:
    """Ops of ``variant``'s one-chunk Schedule (its ops grow in proportion to chunks)."""
    return build_allreduce(topology, variant, 1.0, 1, params.n_ranks,
                           params.ranks_per_node).n_ops
