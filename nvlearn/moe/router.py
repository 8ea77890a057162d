"""Token routing for a Mixture-of-Experts layer: top-k gating, expert capacity, drops.

Every GPU holds ``tokens_per_gpu`` tokens and ``n_experts / n_gpus`` experts (expert
parallelism over all the GPUs: expert ``e`` lives on GPU ``e // experts_per_gpu``). A
router scores each token against every expert and sends it to its ``top_k`` best.

Definitions (cited)
-------------------
* **Expert capacity** — Switch Transformer (Fedus, Zoph & Shazeer 2021/2022): "expert
  capacity = (tokens per batch / number of experts) x capacity factor"; GShard (Lepikhin et
  al. 2020) uses 2N/E for top-2; DeepSpeed (``sharded_moe._capacity``) and Megatron-core
  (``get_capacity``) compute ``ceil(tokens x top_k / experts x capacity_factor)`` on the
  tokens of one group (one GPU). Here::

      capacity = ceil(top_k x tokens_per_gpu / n_experts x capacity_factor)

  per (source GPU, expert) pair — GShard's groups, the way DeepSpeed and Megatron apply it.
  For top-1 it is the Switch formula.
* **Dropped** — an assignment beyond its expert's capacity is dropped: the expert skips the
  token, which passes on through the residual connection (Switch, GShard). Slots are filled
  first choices first, then second choices ..., each in token order (GShard's priority).
* ``capacity_factor=None`` is *dropless* routing (MegaBlocks, DeepEP, Megatron's default):
  nothing is dropped and the hottest expert receives whatever it is sent.

Skew (a modelling choice)
-------------------------
Real routers are trained to balance load, but never perfectly. The skew here is a Zipf
popularity ``p_i ~ 1 / i**skew`` over the experts in a random order (``skew = 0``:
uniform). Router scores are ``log p_e + Gumbel noise``, so the top-1 choice is drawn exactly
from ``p`` and top-k is ``k`` draws without replacement (the Gumbel-top-k trick, Kool et al.
2019). Gate weights are the softmax of the chosen scores (normalised over the k, as Mixtral
and DeepSeek-V3 do); they only matter when outputs are combined.

Node-limited routing (DeepSeek-V3, 2024)
----------------------------------------
With ``max_nodes = M`` a token may use experts on at most M nodes: nodes are ranked by the
sum of the token's ``ceil(top_k / M)`` highest affinities (softmax of the scores) among the
node's experts, and the top-k experts are then chosen inside the best M nodes.

References
----------
N. Shazeer et al., "Outrageously large neural networks: the sparsely-gated
mixture-of-experts layer", ICLR 2017 (top-k gating).
D. Lepikhin et al., "GShard: scaling giant models with conditional computation and automatic
sharding", arXiv:2006.16668, 2020 (top-2, capacity 2N/E, groups, priority of first choices).
W. Fedus, B. Zoph and N. Shazeer, "Switch Transformers: scaling to trillion parameter models
with simple and efficient sparsity", JMLR 23(120):1-39, 2022 (arXiv:2101.03961, 2021)
(expert capacity and the capacity factor, dropped tokens).
W. Kool, H. van Hoof and M. Welling, "Stochastic beams and where to find them: the
Gumbel-top-k trick for sampling sequences without replacement", ICML 2019.
T. Gale, D. Narayanan, C. Young and M. Zaharia, "MegaBlocks: efficient sparse training with
mixture-of-experts", MLSys 2023 (dropless routing).
DeepSeek-AI, "DeepSeek-V3 technical report", arXiv:2412.19437, 2024 (node-limited routing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nvlearn import specs
from nvlearn._jit import njit

__all__ = [
    "default_gpus_per_node", "place_experts", "expert_popularity", "expert_capacity", "Routing",
    "gate_scores", "gate", "route",
]


def _whole(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def default_gpus_per_node() -> int:
    """GPUs per node of the course's node, a DGX H100 (from the catalogue).

    Examples
    --------
    >>> default_gpus_per_node()
    8
    """
    return int(specs.system("dgx_h100").gpus)


def place_experts(n_experts: int, n_gpus: int) -> np.ndarray:
    """GPU of each expert: ``n_experts / n_gpus`` consecutive experts per GPU.

    Raises ``ValueError`` unless the experts divide evenly over the GPUs (every GPU of the
    expert-parallel group holds the same number of experts).

    Examples
    --------
    >>> place_experts(8, 4).tolist()
    [0, 0, 1, 1, 2, 2, 3, 3]
    """
    n_experts = _whole(n_experts, "n_experts", 1)
    n_gpus = _whole(n_gpus, "n_gpus", 1)
    if n_experts % n_gpus:
        fits = [e for e in range(n_gpus, 4 * n_gpus + 1, n_gpus)][:3]
        raise ValueError(
            f"{n_experts} experts do not divide across {n_gpus} GPUs; expert parallelism puts "
            f"the same number of experts on every GPU, so use a multiple of {n_gpus} "
            f"experts (e.g. {', '.join(map(str, fits))}) or a GPU count that divides "
            f"{n_experts}"
        )
    return (np.arange(n_experts) // (n_experts // n_gpus)).astype(np.int32)


def expert_popularity(n_experts: int, skew: float, seed: int = 0) -> np.ndarray:
    """Zipf popularity of each expert, ``p ~ 1 / rank**skew``, ranks in a random order.

    Parameters
    ----------
    n_experts : int
        Experts E >= 1.
    skew : float
        Zipf exponent, >= 0 (0: every expert equally popular).
    seed : int
        Seeds the order of the ranks (which experts are hot).

    Returns
    -------
    ndarray, shape (n_experts,)
        Probabilities summing to 1.

    Examples
    --------
    >>> p = expert_popularity(4, 1.0)
    >>> round(float(p.max() / p.min()), 3)     # the hottest vs the coldest expert
    4.0
    """
    n_experts = _whole(n_experts, "n_experts", 1)
    if not (np.isfinite(skew) and skew >= 0):
        raise ValueError(f"skew must be a finite number >= 0 (0 = uniform), got {skew!r}")
    ranks = np.random.default_rng(seed).permutation(n_experts) + 1.0
    p = ranks ** -float(skew)
    return p / p.sum()


def expert_capacity(tokens: int, n_experts: int, top_k: int, capacity_factor: float) -> int:
    """Slots per expert for one group of ``tokens``: ceil(top_k x tokens / experts x factor).

    Parameters
    ----------
    tokens : int
        Tokens in the group (one GPU's tokens here).
    n_experts : int
        Experts E the group routes over.
    top_k : int
        Experts chosen per token.
    capacity_factor : float
        Slack over the average load, > 0 (1.0 = exactly the average; Switch uses 1.0-1.25).

    Returns
    -------
    int
        Token slots per expert (rows an expert accepts from the group).

    Examples
    --------
    >>> expert_capacity(4096, 64, 1, 1.25)     # Switch: 4096 / 64 x 1.25
    80
    >>> expert_capacity(4096, 64, 2, 1.0)      # GShard top-2: 2N/E
    128
    """
    if not (np.isfinite(capacity_factor) and capacity_factor > 0):
        raise ValueError(
            f"capacity_factor must be > 0 (1.0 = exactly the average load, Switch uses "
            f"1.0-1.25), got {capacity_factor!r}; pass None for dropless routing"
        )
    return math.ceil(top_k * tokens / n_experts * capacity_factor)


@dataclass(frozen=True, eq=False)
class Routing:
    """Where every token of every GPU goes: experts, gate weights, kept or dropped.

    Attributes
    ----------
    expert : ndarray of int32, shape (n_gpus, tokens_per_gpu, top_k)
        Chosen experts, best first.
    weight : ndarray of float32, same shape
        Gate weights (sum to 1 over the k choices of a token).
    kept : ndarray of bool, same shape
        False where the assignment overflowed its expert's capacity (dropped).
    capacity : int or None
        Slots per (source GPU, expert); None for dropless routing.
    capacity_factor, skew : float or None
    max_nodes : int or None
        Node limit of node-limited routing (None: flat routing).
    gpus_per_node : int
    """

    expert: np.ndarray
    weight: np.ndarray
    kept: np.ndarray
    n_experts: int
    capacity: int | None
    capacity_factor: float | None
    skew: float | None
    max_nodes: int | None
    gpus_per_node: int

    def __post_init__(self) -> None:
        for name in ("expert", "weight", "kept"):
            getattr(self, name).flags.writeable = False

    @property
    def n_gpus(self) -> int:
        """GPUs in the expert-parallel group."""
        return int(self.expert.shape[0])

    @property
    def tokens_per_gpu(self) -> int:
        """Tokens each GPU routes."""
        return int(self.expert.shape[1])

    @property
    def top_k(self) -> int:
        """Experts per token."""
        return int(self.expert.shape[2])

    @property
    def experts_per_gpu(self) -> int:
        """Experts hosted by each GPU."""
        return self.n_experts // self.n_gpus

    @property
    def gpu_of_expert(self) -> np.ndarray:
        """GPU hosting each expert, shape (n_experts,)."""
        return place_experts(self.n_experts, self.n_gpus)

    @property
    def dest_gpu(self) -> np.ndarray:
        """GPU of each assignment's expert, shape (n_gpus, tokens_per_gpu, top_k)."""
        return self.expert // self.experts_per_gpu

    def expert_load(self, kept_only: bool = True) -> np.ndarray:
        """Assignments per expert (all GPUs together), shape (n_experts,).

        Examples
        --------
        >>> r = route(2, 100, 4, 1, seed=1)
        >>> int(r.expert_load().sum())
        200
        """
        chosen = self.expert[self.kept] if kept_only else self.expert.ravel()
        return np.bincount(chosen, minlength=self.n_experts)

    @property
    def n_assignments(self) -> int:
        """Token-expert assignments before capacity (tokens x top_k)."""
        return int(self.expert.size)

    @property
    def n_dropped(self) -> int:
        """Assignments dropped by the capacity limit."""
        return int(self.expert.size - np.count_nonzero(self.kept))

    @property
    def drop_fraction(self) -> float:
        """Fraction of assignments dropped (0 for dropless routing)."""
        return self.n_dropped / self.n_assignments

    @property
    def tokens_fully_dropped(self) -> int:
        """Tokens none of whose assignments were kept (only the residual carries them)."""
        return int(np.count_nonzero(~self.kept.any(axis=2)))

    def with_capacity(self, capacity_factor: float | None) -> Routing:
        """The same choices under another capacity factor (None: dropless).

        Examples
        --------
        >>> r = route(8, 512, 16, 2, skew=1.0, seed=0)
        >>> r.n_dropped, r.with_capacity(1.0).n_dropped > 0
        (0, True)
        """
        capacity = None if capacity_factor is None else expert_capacity(
            self.tokens_per_gpu, self.n_experts, self.top_k, capacity_factor)
        return Routing(
            expert=self.expert,
            weight=self.weight,
            kept=_apply_capacity(self.expert, self.n_experts, capacity),
            n_experts=self.n_experts,
            capacity=capacity,
            capacity_factor=None if capacity_factor is None else float(capacity_factor),
            skew=self.skew,
            max_nodes=self.max_nodes,
            gpus_per_node=self.gpus_per_node,
        )

    def __repr__(self) -> str:
        cap = "dropless" if self.capacity is None else (
            f"capacity {self.capacity} (factor {self.capacity_factor:g})")
        lim = "" if self.max_nodes is None else f", <= {self.max_nodes} nodes per token"
        return (
            f"Routing({self.n_gpus} GPUs x {self.tokens_per_gpu} tokens, {self.n_experts} "
            f"experts, top-{self.top_k}, {cap}{lim}: {self.drop_fraction:.1%} dropped)"
        )


def _exponentials(seed: int, gpu: int, tokens: int, n_experts: int) -> np.ndarray:
    """Standard exponentials for one GPU's tokens (stream ``(seed, gpu)``); -log E is Gumbel."""
    e = np.random.default_rng([seed, gpu]).standard_exponential((tokens, n_experts),
                                                                dtype=np.float32)
    return np.maximum(e, np.float32(1e-30))


def gate_scores(n_gpus: int, tokens_per_gpu: int, n_experts: int, skew: float = 0.0,
                seed: int = 0) -> np.ndarray:
    """The router scores :func:`route` draws: ``log p_e + Gumbel`` (float32).

    Shape (n_gpus, tokens_per_gpu, n_experts). ``gate(gate_scores(...), k)`` routes as
    ``route(...)`` does (up to float32 rounding of near-ties).

    Parameters
    ----------
    n_gpus : int
        GPUs holding tokens.
    tokens_per_gpu : int
        Tokens on each GPU.
    n_experts : int
        Experts scored per token.
    skew : float
        Zipf exponent of expert popularity, >= 0 (0 = uniform).
    seed : int
        Seed of the popularity order and the Gumbel noise (the same as :func:`route`'s).

    Returns
    -------
    ndarray of float32, shape (n_gpus, tokens_per_gpu, n_experts)

    Examples
    --------
    >>> gate_scores(2, 3, 4).shape
    (2, 3, 4)
    """
    log_p = np.log(expert_popularity(n_experts, skew, seed)).astype(np.float32)
    out = np.empty((n_gpus, tokens_per_gpu, n_experts), dtype=np.float32)
    for g in range(n_gpus):
        out[g] = log_p - np.log(_exponentials(seed, g, tokens_per_gpu, n_experts))
    return out


@njit
def _select(e, p, k, max_nodes, experts_per_node, take, expert, weight):  # pragma: no cover
    """Per token, with r_j = p_j / e_j (= exp(score)): optional node limit, then top-k.

    Writes the k best experts (best first; ties to the lower index) and their weights
    r / sum(r over the k) into ``expert`` and ``weight`` (shape (tokens, k)).
    """
    n_tok, n_exp = e.shape
    r = np.empty(n_exp, dtype=np.float64)
    allowed = np.ones(n_exp, dtype=np.bool_)
    n_nodes = n_exp // experts_per_node
    node_score = np.empty(n_nodes, dtype=np.float64)
    top = np.empty(max(take, 1), dtype=np.float64)
    best_v = np.empty(k, dtype=np.float64)
    best_i = np.empty(k, dtype=np.int64)
    for t in range(n_tok):
        for j in range(n_exp):
            r[j] = p[j] / e[t, j]
        if max_nodes > 0:
            for n in range(n_nodes):
                top[:] = -1.0
                for j in range(n * experts_per_node, (n + 1) * experts_per_node):
                    v = r[j]
                    if v > top[take - 1]:
                        q = take - 1
                        while q > 0 and v > top[q - 1]:
                            top[q] = top[q - 1]
                            q -= 1
                        top[q] = v
                node_score[n] = top[:take].sum()
            order = np.argsort(-node_score, kind="mergesort")
            allowed[:] = False
            for m in range(max_nodes):
                n = order[m]
                allowed[n * experts_per_node:(n + 1) * experts_per_node] = True
        best_v[:] = -1.0
        best_i[:] = -1
        for j in range(n_exp):
            v = r[j]
            if allowed[j] and v > best_v[k - 1]:
                q = k - 1
                while q > 0 and v > best_v[q - 1]:
                    best_v[q] = best_v[q - 1]
                    best_i[q] = best_i[q - 1]
                    q -= 1
                best_v[q] = v
                best_i[q] = j
        total = best_v.sum()
        for q in range(k):
            expert[t, q] = best_i[q]
            weight[t, q] = best_v[q] / total


@njit
def _capacity_mask(expert, n_experts, capacity, kept):  # pragma: no cover
    """Per source GPU, fill each expert's slots choice by choice, each in token order."""
    n_gpu, n_tok, k = expert.shape
    count = np.empty(n_experts, dtype=np.int64)
    for g in range(n_gpu):
        count[:] = 0
        for q in range(k):
            for t in range(n_tok):
                ex = expert[g, t, q]
                kept[g, t, q] = count[ex] < capacity
                count[ex] += 1


def _apply_capacity(expert: np.ndarray, n_experts: int, capacity: int | None) -> np.ndarray:
    """Kept mask (all True for dropless routing)."""
    kept = np.ones(expert.shape, dtype=bool)
    if capacity is not None:
        _capacity_mask(expert, n_experts, capacity, kept)
    return kept


def _check_setup(n_gpus: int, n_experts: int, top_k: int, capacity_factor, max_nodes,
                 gpus_per_node) -> tuple[int, int | None]:
    """Validate a routing setup; return (GPUs per node, experts per node or None)."""
    top_k = _whole(top_k, "top_k", 1)
    if top_k > n_experts:
        raise ValueError(
            f"top_k={top_k} is larger than the number of experts ({n_experts}); a token "
            f"cannot go to more distinct experts than exist — use top_k <= {n_experts}"
        )
    place_experts(n_experts, n_gpus)
    if capacity_factor is not None:
        expert_capacity(1, n_experts, top_k, capacity_factor)
    gpn = default_gpus_per_node() if gpus_per_node is None else _whole(
        gpus_per_node, "gpus_per_node", 1)
    if max_nodes is None:
        return gpn, None
    max_nodes = _whole(max_nodes, "max_nodes", 1)
    if n_gpus % gpn:
        raise ValueError(
            f"node-limited routing needs whole nodes: {n_gpus} GPUs are not a multiple of "
            f"{gpn} GPUs per node"
        )
    per_node = n_experts // (n_gpus // gpn)
    if top_k > max_nodes * per_node:
        raise ValueError(
            f"top_k={top_k} experts cannot fit on max_nodes={max_nodes} nodes of {per_node} "
            "experts each; raise max_nodes or lower top_k"
        )
    return gpn, per_node


def _choose(e: np.ndarray, p: np.ndarray, top_k: int, max_nodes: int | None,
            experts_per_node: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Top-k experts and gate weights of tokens scored ``log p - log e``."""
    expert = np.empty((e.shape[0], top_k), dtype=np.int32)
    weight = np.empty((e.shape[0], top_k), dtype=np.float32)
    n_exp = e.shape[1]
    if max_nodes is None:
        limit, per_node, take = 0, n_exp, 0
    else:
        limit, per_node = min(max_nodes, n_exp // experts_per_node), experts_per_node
        take = min(math.ceil(top_k / max_nodes), per_node)
    _select(np.ascontiguousarray(e, dtype=np.float32), np.asarray(p, dtype=np.float64),
            top_k, limit, per_node, take, expert, weight)
    return expert, weight


def _routing(expert, weight, n_experts, capacity_factor, skew, max_nodes,
             gpus_per_node) -> Routing:
    dropless = Routing(
        expert=expert,
        weight=weight,
        kept=np.ones(expert.shape, dtype=bool),
        n_experts=int(n_experts),
        capacity=None,
        capacity_factor=None,
        skew=None if skew is None else float(skew),
        max_nodes=None if max_nodes is None else int(max_nodes),
        gpus_per_node=gpus_per_node,
    )
    return dropless if capacity_factor is None else dropless.with_capacity(capacity_factor)


def gate(scores: np.ndarray, top_k: int, *, capacity_factor: float | None = None,
         max_nodes: int | None = None, gpus_per_node: int | None = None) -> Routing:
    """Route tokens given router scores: top-k, optional node limit, capacity and drops.

    Parameters
    ----------
    scores : array_like, shape (n_gpus, tokens_per_gpu, n_experts)
        Router scores (logits) of every token of every GPU for every expert.
    top_k : int
        Experts per token, 1 .. n_experts.
    capacity_factor : float, optional
        > 0; None for dropless routing.
    max_nodes : int, optional
        Node-limited routing: at most this many nodes per token.
    gpus_per_node : int, optional
        Default: a DGX H100's 8.

    Returns
    -------
    Routing

    Examples
    --------
    >>> s = np.array([[[3.0, 1.0, 0.0, 2.0]]])     # one GPU, one token, four experts
    >>> gate(s, 2, gpus_per_node=1).expert.tolist()
    [[[0, 3]]]
    """
    scores = np.asarray(scores, dtype=np.float32)
    if scores.ndim != 3 or scores.shape[1] < 1 or not np.isfinite(scores).all():
        raise ValueError(
            "scores must be finite, with shape (n_gpus, tokens_per_gpu, n_experts) and at "
            f"least one token; got shape {scores.shape}"
        )
    n_gpus, tokens, n_experts = scores.shape
    gpn, per_node = _check_setup(n_gpus, n_experts, top_k, capacity_factor, max_nodes,
                                 gpus_per_node)
    expert = np.empty((n_gpus, tokens, top_k), dtype=np.int32)
    weight = np.empty(expert.shape, dtype=np.float32)
    ones = np.ones(n_experts)
    for g in range(n_gpus):  # exp(score - max) = 1 / e with e = exp(max - score)
        e = np.exp(scores[g].max(axis=1, keepdims=True) - scores[g])
        expert[g], weight[g] = _choose(e, ones, top_k, max_nodes, per_node)
    return _routing(expert, weight, n_experts, capacity_factor, None, max_nodes, gpn)


def route(n_gpus: int, tokens_per_gpu: int, n_experts: int, top_k: int, *,
          skew: float = 0.0, capacity_factor: float | None = None,
          max_nodes: int | None = None, gpus_per_node: int | None = None,
          seed: int = 0) -> Routing:
    """Draw router scores with a Zipf skew and route every GPU's tokens (seeded).

    Parameters
    ----------
    n_gpus, tokens_per_gpu, n_experts, top_k : int
        GPUs (experts spread evenly over them: ``n_experts`` a multiple of ``n_gpus``),
        tokens on each GPU, experts, experts chosen per token (``1 <= top_k <= n_experts``).
    skew : float
        Zipf exponent of expert popularity (0 = uniform).
    capacity_factor : float, optional
        > 0; None for dropless routing.
    max_nodes : int, optional
        Node-limited routing (DeepSeek-V3's M).
    gpus_per_node : int, optional
        Default 8 (DGX H100).
    seed : int
        Same seed, same routing.

    Returns
    -------
    Routing
        Each token's chosen experts and gate weights, which choices were kept, the
        capacity and the drop count.

    Examples
    --------
    >>> r = route(8, 1024, 64, 2, skew=1.0, capacity_factor=1.0, seed=0)
    >>> r.capacity, r.n_dropped > 0
    (32, True)
    """
    n_gpus = _whole(n_gpus, "n_gpus", 1)
    tokens_per_gpu = _whole(tokens_per_gpu, "tokens_per_gpu", 1)
    n_experts = _whole(n_experts, "n_experts", 1)
    gpn, per_node = _check_setup(n_gpus, n_experts, top_k, capacity_factor, max_nodes,
                                 gpus_per_node)
    expert = np.empty((n_gpus, tokens_per_gpu, top_k), dtype=np.int32)
    weight = np.empty(expert.shape, dtype=np.float32)
    p = expert_popularity(n_experts, skew, seed)
    for g in range(n_gpus):
        e = _exponentials(seed, g, tokens_per_gpu, n_experts)
        expert[g], weight[g] = _choose(e, p, top_k, max_nodes, per_node)
    return _routing(expert, weight, n_experts, capacity_factor, skew, max_nodes, gpn)
