"""Memory per GPU: model states (ZeRO) and activations (Korthikanti et al.), and the 80 GB rule.

**Model states** (Rajbhandari et al. 2020, section 3.1 and Figure 1). Mixed-precision Adam
keeps per parameter 2 bytes of fp16/bf16 weights, 2 of gradients and ``K = 12`` of fp32
optimizer state (master weights, momentum, variance): 16 bytes. With ``Psi`` parameters on a
GPU and a DP group of ``N_d``::

    ZeRO 0 (plain DP):  (2 + 2 + K) Psi
    ZeRO 1 (P_os):       2 Psi + 2 Psi + K Psi / N_d
    ZeRO 2 (P_os+g):     2 Psi + (2 + K) Psi / N_d
    ZeRO 3 (P_os+g+p):   (2 + 2 + K) Psi / N_d

**Activations** of one layer for one micro-batch (Korthikanti et al. 2022, section 4, with
an MLP of width ``f``; ``f = 4h`` gives their ``s b h (34 + 5 a s / h)``)::

    attention  11 sbh + 5 a s^2 b      MLP  3 sbh + 4 sbf      layer norms  4 sbh

TP splits all but ``10 sbh`` of it (layer-norm inputs, dropout masks, the inputs of the first
linear layers); sequence parallelism splits that too (everything divided by ``t``); selective
recomputation drops the ``5 a s^2 b`` attention-score terms; full recomputation keeps only
each layer's input, ``2 sbh`` (``/ t`` with SP). With 1F1B pipelining the first stage holds
``min(p, m)`` micro-batches in flight.

References
----------
S. Rajbhandari, J. Rasley, O. Ruwase and Y. He, "ZeRO: memory optimizations toward training
trillion parameter models", SC 2020 (section 3.1, Figure 1: 16 bytes per parameter).
V. Korthikanti et al., "Reducing activation recomputation in large transformer models",
arXiv:2205.05198, 2022 (section 4: activation memory per layer, selective recomputation).

Examples
--------
>>> from nvlearn.parallelism.model import preset
>>> from nvlearn.parallelism.layout import Layout
>>> mem = memory_per_gpu(preset("gpt_76b"), Layout(tp=8, pp=4, dp=8))
>>> round(mem.total / 1e9, 1), mem.fits
(44.2, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from nvlearn import specs
from nvlearn.parallelism.layout import Layout
from nvlearn.parallelism.model import Transformer

__all__ = [
    "WEIGHT_BYTES", "GRAD_BYTES", "OPTIMIZER_BYTES", "zero_state_bytes", "activation_terms",
    "layer_activation_bytes", "Memory", "params_per_gpu", "memory_per_gpu",
]

#: Bytes per parameter of mixed-precision Adam (ZeRO paper): fp16 weights, fp16 gradients,
#: fp32 master weights + momentum + variance.
WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2, 2, 12


def zero_state_bytes(psi: float, zero: int, n_d: int, k: int = OPTIMIZER_BYTES
                     ) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per GPU for ``psi`` parameters under ZeRO.

    Parameters
    ----------
    psi : float
        Parameters on this GPU (after TP / PP splitting).
    zero : {0, 1, 2, 3}
        ZeRO stage: 1 shards the optimizer state, 2 also the gradients, 3 also the weights.
    n_d : int
        Data-parallel ranks N_d sharing the states; >= 1.
    k : float
        Optimizer bytes per parameter (12 for mixed-precision Adam).

    Returns
    -------
    (float, float, float)
        Weight, gradient and optimizer bytes per GPU (decimal: divide by 1e9 for GB).

    Examples
    --------
    >>> [round(sum(zero_state_bytes(7.5e9, z, 64)) / 1e9, 1) for z in (0, 1, 2, 3)]
    [120.0, 31.4, 16.6, 1.9]
    """
    if zero not in (0, 1, 2, 3):
        raise ValueError(f"zero stage must be 0, 1, 2 or 3, got {zero!r}")
    if n_d < 1:
        raise ValueError(f"n_d must be >= 1, got {n_d}")
    w, g, o = WEIGHT_BYTES * psi, GRAD_BYTES * psi, k * psi
    if zero >= 1:
        o /= n_d
    if zero >= 2:
        g /= n_d
    if zero >= 3:
        w /= n_d
    return w, g, o


def activation_terms(model: Transformer) -> dict[str, float]:
    """Korthikanti et al.'s per-layer activation bytes of one micro-batch, by tensor group.

    Keys: ``"unsplit"`` (what TP leaves whole: ``10 sbh``), ``"split"`` (what TP splits, bar
    the scores: ``8 sbh + 4 sbf``), ``"scores"`` (``5 a s^2 b``).

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> t = activation_terms(preset("gpt_39b"))
    >>> t["unsplit"] + t["split"] == 34 * 2048 * 8192      # s b h x 34, b = 1
    True
    """
    s, b, h, a, f = model.seq, model.micro_batch, model.hidden, model.heads, model.ffn
    return {"unsplit": 10.0 * s * b * h, "split": 8.0 * s * b * h + 4.0 * s * b * f,
            "scores": 5.0 * a * s * s * b}


def layer_activation_bytes(model: Transformer, tp: int = 1, sp: bool = False,
                           recompute: str = "none") -> float:
    """Activation bytes one layer keeps for one micro-batch on one GPU.

    Parameters
    ----------
    model : Transformer
        Supplies ``seq`` s, ``micro_batch`` b, ``hidden`` h, ``heads`` a and the FFN width.
    tp : int
        Tensor-parallel degree t; >= 1.
    sp : bool
        Sequence parallelism (splits the ``10 sbh`` that TP alone keeps whole).
    recompute : {"none", "selective", "full"}
        Activation recomputation, as in the module docstring.

    Returns
    -------
    float
        Bytes.

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> m = preset("gpt_39b")
    >>> s, b, h, a = m.seq, m.micro_batch, m.hidden, m.heads
    >>> layer_activation_bytes(m) == s * b * h * (34 + 5 * a * s / h)
    True
    """
    t = activation_terms(model)
    if recompute == "full":
        full = 2.0 * model.seq * model.micro_batch * model.hidden
        return full / tp if sp else full
    scores = 0.0 if recompute == "selective" else t["scores"]
    if recompute not in ("none", "selective"):
        raise ValueError(f"recompute must be 'none', 'selective' or 'full', got {recompute!r}")
    if sp:
        return (t["unsplit"] + t["split"] + scores) / tp
    return t["unsplit"] + (t["split"] + scores) / tp


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU on the busiest GPU (first pipeline stage) and whether they fit.

    Attributes
    ----------
    weights, gradients, optimizer, activations : float
        Bytes.
    params_per_gpu : float
        Parameters held (before ZeRO sharding), ``Psi``.
    capacity : float
        The GPU's HBM (``specs.gpu(...).hbm_capacity``).
    """

    weights: float
    gradients: float
    optimizer: float
    activations: float
    params_per_gpu: float
    capacity: float

    @property
    def total(self) -> float:
        """All four, bytes."""
        return self.weights + self.gradients + self.optimizer + self.activations

    @property
    def fits(self) -> bool:
        """True when the total is within the GPU's HBM."""
        return self.total <= self.capacity

    def parts(self) -> dict[str, float]:
        """The four parts by name (bytes)."""
        return {"weights": self.weights, "gradients": self.gradients,
                "optimizer": self.optimizer, "activations": self.activations}

    def refusal(self) -> str:
        """Why the layout does not fit ('' when it does)."""
        if self.fits:
            return ""
        big = max(self.parts().items(), key=lambda kv: kv[1])
        return (f"does not fit: {self.total / 1e9:.0f} GB per GPU > {self.capacity / 1e9:.0f} "
                f"GB of HBM (largest part: {big[0]}, {big[1] / 1e9:.0f} GB); raise TP or PP, "
                "use a higher ZeRO stage, or recompute activations")


def params_per_gpu(model: Transformer, layout: Layout) -> tuple[float, float]:
    """(dense, expert) parameters on a first-stage GPU (embeddings included).

    Layers are split evenly over the ``pp`` stages (``ceil``); TP splits every weight; EP
    splits the experts.

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> dense, expert = params_per_gpu(preset("gpt_76b"), Layout(tp=8, pp=4, dp=8))
    >>> round(dense / 1e9, 2), expert
    (2.43, 0.0)
    """
    layers = -(-model.layers // layout.pp)
    if model.is_moe:
        dense = layers * (model.attention_params + model.hidden * model.experts)
        expert = layers * model.experts * model.mlp_params / layout.ep
    else:
        dense, expert = layers * model.layer_params, 0.0
    dense += model.embedding_params
    return dense / layout.tp, expert / layout.tp


def memory_per_gpu(model: Transformer, layout: Layout, gpu: str = "h100") -> Memory:
    """Memory of the first pipeline stage's GPU (the fullest) for ``model`` on ``layout``.

    Expert parameters are sharded by ZeRO over the ``dp / ep`` ranks that hold the same
    experts; the rest over ``dp``.

    Parameters
    ----------
    model : Transformer
        The model.
    layout : Layout
        Degrees, ZeRO stage, SP and recomputation.
    gpu : str
        Catalogue GPU key; its HBM capacity (bytes) decides ``fits``.

    Returns
    -------
    Memory
        Weights, gradients, optimizer state and activations, bytes per GPU, and the capacity.
    """
    dense, expert = params_per_gpu(model, layout)
    w1, g1, o1 = zero_state_bytes(dense, layout.zero, layout.dp)
    w2, g2, o2 = zero_state_bytes(expert, layout.zero, layout.dp // layout.ep)
    m = model.global_batch // (model.micro_batch * layout.dp)
    in_flight = min(layout.pp, max(m, 1))
    layers = -(-model.layers // layout.pp)
    act = layers * in_flight * layer_activation_bytes(model, layout.tp, layout.sp,
                                                      layout.recompute)
    return Memory(w1 + w2, g1 + g2, o1 + o2, act, dense + expert,
                  float(specs.gpu(gpu).hbm_capacity))
