"""What each parallelism strategy moves in one training step: collective, size, count, group.

Per step, with ``m = B / (b x DP)`` micro-batches per pipeline, ``L_s = ceil(L / PP)``
layers per stage and ``A = b s h x bytes`` (one micro-batch's hidden state):

* **TP** (Shoeybi et al. 2019; Narayanan et al. 2021, section 2.3): 2 all-reduces of ``A``
  per layer forward (after attention, after the MLP) and 2 backward — ``4 L_s m``
  all-reduces per GPU. With **sequence parallelism** (Korthikanti et al. 2022) each becomes a
  reduce-scatter + all-gather of the same ``A``: the same bytes on the wire, twice the calls.
* **PP** (Huang et al. 2019; Narayanan et al. 2019, 2021): per micro-batch one activation
  forward and one gradient backward across each stage boundary, ``A`` each; with Megatron's
  scatter/gather optimisation every TP rank sends ``A / TP`` (section 4.1).
* **DP**: one all-reduce of the stage's gradients, ``2 Psi`` bytes (bf16) per GPU. **ZeRO**
  1-2 replace it by reduce-scatter + all-gather of the same size (Rajbhandari et al. 2020,
  section 7: ``2 Psi`` in ring terms, as plain DP); **ZeRO-3 / FSDP** also all-gathers the
  parameters before each micro-batch's forward and backward: with ``m = 1`` that is ``3 Psi``,
  1.5 x DP's volume.
* **EP**: per MoE layer and micro-batch, a dispatch and a combine all-to-all forward and
  both again backward (4), each sending every GPU's ``b s / TP`` tokens x ``top_k`` rows of
  ``h x bytes`` (Lepikhin et al. 2020; Fedus et al. 2021).

Bytes each GPU *sends* per collective, in ring terms (:func:`ring_bytes_per_rank`):
all-reduce ``2 (n-1)/n x size``, reduce-scatter / all-gather ``(n-1)/n x size``, all-to-all
``(n-1)/n x size`` under uniform routing, send/recv ``size``.

References
----------
M. Shoeybi et al., "Megatron-LM: training multi-billion parameter language models using
model parallelism", arXiv:1909.08053, 2019.
D. Narayanan et al., "Efficient large-scale language model training on GPU clusters using
Megatron-LM", SC 2021 (sections 2.3 and 4.1).
V. Korthikanti et al., "Reducing activation recomputation in large transformer models",
arXiv:2205.05198, 2022 (sequence parallelism).
Y. Huang et al., "GPipe: efficient training of giant neural networks using pipeline
parallelism", NeurIPS 2019; D. Narayanan et al., "PipeDream: generalized pipeline
parallelism for DNN training", SOSP 2019.
S. Rajbhandari, J. Rasley, O. Ruwase and Y. He, "ZeRO: memory optimizations toward training
trillion parameter models", SC 2020 (section 7, communication volume).
D. Lepikhin et al., "GShard", arXiv:2006.16668, 2020; W. Fedus, B. Zoph and N. Shazeer,
"Switch Transformers", arXiv:2101.03961, 2021 (expert-parallel all-to-all).

Examples
--------
>>> from nvlearn.parallelism.model import preset
>>> from nvlearn.parallelism.layout import Layout
>>> comms = step_comms(preset("gpt_76b"), Layout(tp=8, pp=4, dp=8, sp=False))
>>> [(c.strategy, c.collective, c.count) for c in comms]
[('tp', 'allreduce', 13440), ('pp', 'sendrecv', 448), ('dp', 'allreduce', 1)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nvlearn.collectives.metrics import busbw_factor
from nvlearn.parallelism.layout import Layout
from nvlearn.parallelism.memory import params_per_gpu
from nvlearn.parallelism.model import Transformer

__all__ = [
    "COLLECTIVES", "ring_bytes_per_rank", "micro_batches", "bubble_fraction", "Comm", "step_comms",
    "bytes_by_strategy", "dp_volume_elements", "pair_traffic", "box_traffic",
]

#: Collectives a strategy uses.
COLLECTIVES = ("allreduce", "reduce_scatter", "allgather", "alltoall", "sendrecv")


def ring_bytes_per_rank(collective: str, n_ranks: int, size: float) -> float:
    """Bytes each rank sends for one collective of ``size`` bytes over ``n_ranks`` (ring
    algorithm; uniform all-to-all; ``size`` is the per-rank buffer for all-reduce, the whole
    array for reduce-scatter / all-gather, the send buffer for all-to-all).

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`, or "sendrecv".
    n_ranks : int
        Ranks n >= 1 in the group.
    size : float
        Bytes, as above; >= 0.

    Returns
    -------
    float
        Bytes each rank sends.

    Examples
    --------
    >>> ring_bytes_per_rank("allreduce", 8, 8e6)
    14000000.0
    """
    n = int(n_ranks)
    if n < 1 or size < 0:
        raise ValueError(f"need n_ranks >= 1 and size >= 0, got {n_ranks}, {size}")
    if collective == "sendrecv":
        return float(size)
    if collective in COLLECTIVES:  # a ring rank sends exactly nccl-tests' busbw factor x size
        return busbw_factor(collective, n) * size
    raise ValueError(f"unknown collective {collective!r}; choose one of {COLLECTIVES}")


def micro_batches(model: Transformer, layout: Layout) -> int:
    """Micro-batches each pipeline runs per step, ``m = B / (b x DP)``.

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> micro_batches(preset("gpt_76b"), Layout(tp=8, pp=4, dp=8))
    224
    """
    per = model.micro_batch * layout.dp
    if model.global_batch % per:
        raise ValueError(f"global batch {model.global_batch} is not a whole number of "
                         f"micro-batches of {model.micro_batch} on DP={layout.dp}")
    return model.global_batch // per


def bubble_fraction(pp: int, m: int) -> float:
    """GPipe / 1F1B pipeline bubble as a fraction of the step, ``(p-1) / (m+p-1)``.

    Examples
    --------
    >>> bubble_fraction(4, 8)
    0.2727272727272727
    """
    if pp < 1 or m < 1:
        raise ValueError(f"need pp >= 1 and m >= 1, got {pp}, {m}")
    return (pp - 1) / (m + pp - 1)


@dataclass(frozen=True)
class Comm:
    """One kind of collective a strategy issues, on every group of that strategy at once.

    Attributes
    ----------
    strategy : {"tp", "pp", "dp", "ep"}
    collective : str
        One of :data:`COLLECTIVES`.
    size : float
        Bytes per call (nccl-tests convention, see :func:`ring_bytes_per_rank`).
    count : int
        Calls per step per GPU.
    group_size : int
        Ranks in the group (2 for a send/recv).
    phase : str
        When: "per layer" (on the critical path of every micro-batch), "per micro-batch",
        or "per step".
    what : str
        One-line description.
    """

    strategy: str
    collective: str
    size: float
    count: int
    group_size: int
    phase: str
    what: str

    @property
    def bytes_per_call(self) -> float:
        """Bytes one GPU sends per call (ring terms)."""
        return ring_bytes_per_rank(self.collective, self.group_size, self.size)

    @property
    def bytes_per_step(self) -> float:
        """Bytes one GPU sends per step for this kind of call."""
        return self.count * self.bytes_per_call


def step_comms(model: Transformer, layout: Layout) -> list[Comm]:
    """The collectives of one training step, one :class:`Comm` per kind (see module doc).

    A strategy of degree 1 issues nothing. For a MoE model the MoE layers' all-to-alls go to
    EP (when ``ep > 1``) and the expert gradients are all-reduced over ``dp / ep`` ranks.
    """
    m = micro_batches(model, layout)
    L_s = -(-model.layers // layout.pp)
    A = float(model.activation_bytes)
    out: list[Comm] = []
    t, p, d, e = layout.tp, layout.pp, layout.dp, layout.ep
    if t > 1:
        if layout.sp:
            for coll in ("reduce_scatter", "allgather"):
                out.append(Comm("tp", coll, A, 4 * L_s * m, t, "per layer",
                                f"sequence-parallel {coll.replace('_', '-')} of b s h per "
                                "layer, 2 forward + 2 backward"))
        else:
            out.append(Comm("tp", "allreduce", A, 4 * L_s * m, t, "per layer",
                            "all-reduce of b s h: 2 per layer forward, 2 backward"))
    if p > 1:
        out.append(Comm("pp", "sendrecv", A / t, 2 * m, 2, "per micro-batch",
                        "activation forward, gradient backward, A / TP per TP rank"))
    if e > 1 and model.is_moe:
        tokens = model.micro_batch * model.seq / (t if layout.sp else 1)
        send = tokens * model.top_k * model.hidden * model.bytes_per_value
        out.append(Comm("ep", "alltoall", send, 4 * L_s * m, e, "per layer",
                        "MoE dispatch + combine, forward and backward"))
    dense, expert = params_per_gpu(model, layout)
    g_bytes = model.bytes_per_value
    for n, psi, what in ((d, dense, "gradients"), (d // e, expert, "expert gradients")):
        if n < 2 or psi == 0:
            continue
        size = g_bytes * psi
        if layout.zero == 0:
            out.append(Comm("dp", "allreduce", size, 1, n, "per step", f"all-reduce of the "
                            f"stage's {what}"))
        else:
            out.append(Comm("dp", "reduce_scatter", size, 1, n, "per step",
                            f"ZeRO: reduce-scatter of the {what}"))
            gathers = 1 if layout.zero < 3 else 2 * m
            out.append(Comm("dp", "allgather", size, gathers, n, "per step" if
                            layout.zero < 3 else "per micro-batch",
                            "ZeRO: all-gather of updated parameters" if layout.zero < 3
                            else "ZeRO-3: all-gather parameters before every forward and "
                                 "backward"))
    return out


def bytes_by_strategy(comms: list[Comm]) -> dict[str, float]:
    """Bytes one GPU sends per step, summed by strategy (ring terms).

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> b = bytes_by_strategy(step_comms(preset("gpt_39b"), Layout(tp=8, pp=2, dp=16)))
    >>> sorted(b)
    ['dp', 'pp', 'tp']
    """
    out: dict[str, float] = {}
    for c in comms:
        out[c.strategy] = out.get(c.strategy, 0.0) + c.bytes_per_step
    return out


def dp_volume_elements(psi: float, zero: int) -> float:
    """ZeRO paper's data-movement volume per GPU per step, in parameter elements (section 7):
    ``2 Psi`` for DP and ZeRO-1/2 (reduce-scatter + all-gather), ``3 Psi`` for ZeRO-3.

    Examples
    --------
    >>> dp_volume_elements(1.0, 3) / dp_volume_elements(1.0, 0)
    1.5
    """
    if zero not in (0, 1, 2, 3):
        raise ValueError(f"zero stage must be 0..3, got {zero!r}")
    return 3.0 * psi if zero == 3 else 2.0 * psi


def pair_traffic(model: Transformer, layout: Layout, strategy: str | None = None
                 ) -> np.ndarray:
    """Bytes per step from GPU ``i`` (row) to GPU ``j`` (column), shape (G, G).

    Collectives are laid out as rings in group order (each rank sends its ring bytes to the
    next rank of its group); all-to-alls send ``size / n`` to every other member; send/recv
    go from each stage to the next (forward) and back. ``strategy`` keeps one strategy.

    Parameters
    ----------
    model : Transformer
        The model (sizes set the bytes).
    layout : Layout
        Degrees and rank placement; G = ``layout.n_gpus``.
    strategy : {"tp", "pp", "dp", "ep"}, optional
        Keep only this strategy's traffic (default: all).

    Returns
    -------
    ndarray of float, shape (G, G)
        Bytes per step sent from GPU i to GPU j (zero diagonal).

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> M = pair_traffic(preset("gpt_39b"), Layout(tp=8, pp=2, dp=16), "tp")
    >>> bool(M[0, 1] > 0), float(M[0, 8])
    (True, 0.0)
    """
    G = layout.n_gpus
    M = np.zeros((G, G))
    for c in step_comms(model, layout):
        if strategy is not None and c.strategy != strategy:
            continue
        if c.strategy == "dp" and c.group_size != layout.dp:   # expert gradients
            groups = layout.groups("dp").reshape(-1, layout.dp // layout.ep, layout.ep)
            groups = groups.transpose(0, 2, 1).reshape(-1, layout.dp // layout.ep)
        else:
            groups = layout.groups(c.strategy)
        if c.collective == "sendrecv":
            a, b = groups[:, :-1].ravel(), groups[:, 1:].ravel()
            np.add.at(M, (a, b), c.count / 2 * c.size)
            np.add.at(M, (b, a), c.count / 2 * c.size)
        elif c.collective == "alltoall":
            n = c.group_size
            for g in groups:
                M[np.ix_(g, g)] += c.count * c.size / n
            M[np.diag_indices(G)] = 0.0
        else:
            nxt = np.roll(groups, -1, axis=1)
            np.add.at(M, (groups.ravel(), nxt.ravel()), c.bytes_per_step)
    return M


def box_traffic(matrix: np.ndarray, gpus_per_box: int = 8) -> np.ndarray:
    """Sum a GPU x GPU traffic matrix into box x box (the diagonal is traffic inside a box).

    Examples
    --------
    >>> box_traffic(np.ones((16, 16)), 8).tolist()
    [[64.0, 64.0], [64.0, 64.0]]
    """
    G = matrix.shape[0]
    if matrix.shape != (G, G) or G % gpus_per_box:
        raise ValueError(f"need a square matrix of whole boxes of {gpus_per_box} GPUs, got "
                         f"shape {matrix.shape}")
    n = G // gpus_per_box
    return matrix.reshape(n, gpus_per_box, n, gpus_per_box).sum(axis=(1, 3))
