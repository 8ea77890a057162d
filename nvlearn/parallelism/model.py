"""A GPT-style transformer as the parallelism formulas see it: sizes, parameters, FLOPs.

Parameter count (Narayanan et al. 2021, eq. in section 5.1, generalised to an FFN of width
``f``; with ``f = 4h`` it is their ``12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h))``)::

    per layer  = 4h^2 + 4h          (attention: QKV and output projections, with biases)
               + 2hf + f + h        (MLP: two linear layers, with biases)
               + 4h                 (two layer norms)
    total      = L x per layer + (V + s) h     (token and position embeddings, output tied)

A Mixture-of-Experts model (``experts > 1``) replaces every MLP with ``experts`` copies and
a router of ``h x experts`` weights; each token visits ``top_k`` of them.

Compute per step: ``6 x N x tokens`` FLOPs (forward 2, backward 4 per parameter and token;
attention's ``s^2`` terms are left out, as Kaplan et al. 2020 do), with ``N`` the parameters
a token touches (all of them for a dense model; top-k of the experts for a MoE).

References
----------
D. Narayanan et al., "Efficient large-scale language model training on GPU clusters using
Megatron-LM", SC 2021 (section 5.1 parameter count, Table 1 presets).
J. Kaplan et al., "Scaling laws for neural language models", arXiv:2001.08361, 2020
(``6 N`` training FLOPs per token).

Examples
--------
>>> m = preset("gpt_76b")
>>> round(m.n_params / 1e9, 1)          # Narayanan et al. 2021, Table 1: 76.1 B
76.1
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nvlearn import specs

__all__ = ["Transformer", "PRESETS", "preset", "DEFAULT_MFU", "compute_time"]


def _positive_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return value


@dataclass(frozen=True)
class Transformer:
    """A GPT-style decoder and its training batch.

    Attributes
    ----------
    name : str
    layers, hidden, heads : int
        ``L``, ``h``, ``a`` (``h`` must be a multiple of ``a``).
    seq : int
        Sequence length ``s`` (tokens).
    ffn : int
        MLP width ``f`` (``4h`` in GPT-3 and Megatron-LM).
    vocab : int
        Vocabulary ``V`` (Megatron-LM pads GPT-2's to 51,200).
    micro_batch, global_batch : int
        ``b`` and ``B``, in sequences.
    bytes_per_value : int
        Bytes of one activation / parameter / gradient value on the wire (2 for bf16).
    experts, top_k : int
        MoE experts per layer (1 = dense) and experts per token.

    Examples
    --------
    >>> Transformer("tiny", 2, 64, 4, 128, 256, 1000, 1, 8).n_params
    172160
    """

    name: str
    layers: int
    hidden: int
    heads: int
    seq: int
    ffn: int
    vocab: int
    micro_batch: int
    global_batch: int
    bytes_per_value: int = 2
    experts: int = 1
    top_k: int = 1

    def __post_init__(self) -> None:
        for f in ("layers", "hidden", "heads", "seq", "ffn", "vocab", "micro_batch",
                  "global_batch", "bytes_per_value", "experts", "top_k"):
            _positive_int(getattr(self, f), f)
        if self.hidden % self.heads:
            raise ValueError(f"hidden ({self.hidden}) must be a multiple of heads "
                             f"({self.heads})")
        if self.top_k > self.experts:
            raise ValueError(f"top_k ({self.top_k}) cannot exceed experts ({self.experts})")
        if self.global_batch % self.micro_batch:
            raise ValueError(f"global_batch ({self.global_batch}) must be a multiple of "
                             f"micro_batch ({self.micro_batch})")

    # ---- parameters
    @property
    def attention_params(self) -> int:
        """Attention and layer-norm parameters of one layer: ``4h^2 + 8h``."""
        h = self.hidden
        return 4 * h * h + 4 * h + 4 * h

    @property
    def mlp_params(self) -> int:
        """Parameters of one MLP (one expert): ``2hf + f + h``."""
        return 2 * self.hidden * self.ffn + self.ffn + self.hidden

    @property
    def layer_params(self) -> int:
        """All parameters of one layer (every expert and the router for a MoE)."""
        router = self.hidden * self.experts if self.experts > 1 else 0
        return self.attention_params + self.experts * self.mlp_params + router

    @property
    def embedding_params(self) -> int:
        """Token and position embeddings, ``(V + s) h`` (the output layer is tied)."""
        return (self.vocab + self.seq) * self.hidden

    @property
    def n_params(self) -> int:
        """Total parameters ``N``."""
        return self.layers * self.layer_params + self.embedding_params

    @property
    def active_params(self) -> int:
        """Parameters one token passes through (top-k experts of each MoE layer)."""
        router = self.hidden * self.experts if self.experts > 1 else 0
        return (self.layers * (self.attention_params + self.top_k * self.mlp_params + router)
                + self.embedding_params)

    @property
    def is_moe(self) -> bool:
        """True for a Mixture-of-Experts model."""
        return self.experts > 1

    # ---- work
    @property
    def tokens_per_step(self) -> int:
        """Tokens in one global batch, ``B x s``."""
        return self.global_batch * self.seq

    @property
    def step_flops(self) -> float:
        """Training FLOPs of one step, ``6 x active parameters x tokens``."""
        return 6.0 * self.active_params * self.tokens_per_step

    @property
    def activation_bytes(self) -> int:
        """One micro-batch's hidden state ``b x s x h x bytes`` — what TP all-reduces and
        PP sends."""
        return self.micro_batch * self.seq * self.hidden * self.bytes_per_value

    def with_(self, **changes) -> Transformer:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


#: Published configurations (Narayanan et al. 2021, Table 1: heads, hidden, layers, global
#: batch; s = 2,048, V = 51,200, f = 4h), plus one MoE built on the 39 B shape.
PRESETS: dict[str, Transformer] = {
    "gpt_18b": Transformer("GPT 18.4B (Megatron-LM 2021)", 40, 6144, 48, 2048, 4 * 6144,
                           51200, 1, 1024),
    "gpt_39b": Transformer("GPT 39.1B (Megatron-LM 2021)", 48, 8192, 64, 2048, 4 * 8192,
                           51200, 1, 1536),
    "gpt_76b": Transformer("GPT 76.1B (Megatron-LM 2021)", 60, 10240, 80, 2048, 4 * 10240,
                           51200, 1, 1792),
    "gpt_146b": Transformer("GPT 145.6B (Megatron-LM 2021)", 80, 12288, 96, 2048, 4 * 12288,
                            51200, 1, 2304),
    "moe_8x39b": Transformer("MoE 8 experts top-2 on the 39.1B shape", 48, 8192, 64, 2048,
                             4 * 8192, 51200, 1, 1536, experts=8, top_k=2),
}


def preset(key: str) -> Transformer:
    """A model from :data:`PRESETS`.

    Examples
    --------
    >>> preset("gpt_39b").hidden
    8192
    """
    if key not in PRESETS:
        raise ValueError(f"unknown model {key!r}; choose one of {sorted(PRESETS)}")
    return PRESETS[key]


#: Fraction of the GPU's dense bf16 peak that compute reaches (model FLOPs utilisation). A
#: stated assumption: Narayanan et al. 2021 report 44-52 % of A100 peak for these models.
DEFAULT_MFU = 0.5


def compute_time(model: Transformer, n_gpus: int, mfu: float = DEFAULT_MFU,
                 gpu: str = "h100") -> float:
    """Seconds of compute per step on each of ``n_gpus`` GPUs: ``6 N T / (G x mfu x peak)``.

    Parameters
    ----------
    model : Transformer
        The model; ``step_flops`` is ``6 N`` x the global batch's tokens.
    n_gpus : int
        GPUs G sharing the step's FLOPs evenly; >= 1.
    mfu : float
        Model FLOPs utilisation, in (0, 1].
    gpu : str
        Catalogue GPU key (peak bf16 dense FLOP/s).

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(compute_time(preset("gpt_76b"), 256), 2)
    13.22
    """
    _positive_int(n_gpus, "n_gpus")
    if not 0 < mfu <= 1:
        raise ValueError(f"mfu must be in (0, 1], got {mfu}")
    return model.step_flops / (n_gpus * mfu * specs.gpu(gpu).bf16_dense_flops)
