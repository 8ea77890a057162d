"""Self-checks for notebook 07 (parallelism strategies and their traffic).

Every reference is computed by the package (:mod:`nvlearn.parallelism`); hints never contain
the answer.
"""

from __future__ import annotations

import math
from fractions import Fraction

from nvlearn.check.core import CheckResult, _not_yet, _right, verify, verify_choice
from nvlearn.parallelism import (
    STRATEGIES,
    Layout,
    bytes_by_strategy,
    memory_per_gpu,
    preset,
    step_comms,
    step_time,
)
from nvlearn.parallelism.steptime import check_layout

__all__ = [
    "DESIGN_BASELINE", "DESIGN_FABRIC", "DESIGN_GPUS", "DESIGN_MODEL", "DESIGN_SPEEDUP",
    "SPAN_BATCH", "SPAN_LAYOUT", "SPAN_MODEL", "STATES_LAYOUT", "STATES_MODEL",
    "design_layout", "min_micro_batches", "pod_gain_strategy", "span_speedup",
    "states_gb_per_gpu", "tp_gb_per_gpu", "zero3_ratio"
]

#: Exercise 3: the model, fabric, GPUs, Megatron-LM's published layout for it and the margin.
DESIGN_MODEL, DESIGN_FABRIC, DESIGN_GPUS = "gpt_146b", "ib_cluster", 256
DESIGN_BASELINE = Layout(tp=8, pp=8, dp=4)
DESIGN_SPEEDUP = 0.9
#: Exercise 4: the layout whose model states (weights, gradients, Adam) per GPU are asked.
STATES_MODEL, STATES_LAYOUT = "gpt_146b", Layout(tp=8, pp=8, dp=4, zero=1)
#: Exercise 7: the explorer's setting (model, global batch, layout) compared on pod and IB.
SPAN_MODEL, SPAN_BATCH, SPAN_LAYOUT = "gpt_39b", 16, Layout(tp=16, pp=1, dp=16)


def tp_gb_per_gpu(answer) -> CheckResult:
    """Exercise 1: GB one GPU sends per step for TP, GPT 145.6B on TP8 x PP8 x DP4 (SP on)."""
    m = preset("gpt_146b")
    ref = bytes_by_strategy(step_comms(m, Layout(tp=8, pp=8, dp=4)))["tp"] / 1e9
    return verify(answer, ref, unit="GB", rtol=0.01, hint=(
        "calls = 4 per layer x layers per stage x micro-batches (B / DP); a reduce-scatter and "
        "an all-gather each send (t-1)/t of b s h x 2 bytes — sequence parallelism doubles the "
        "calls, not the bytes"))


def zero3_ratio(answer) -> CheckResult:
    """Exercise 2: ZeRO-3's DP bytes over plain DP's, GPT 76.1B on TP8 x PP4 x DP8, full batch."""
    m = preset("gpt_76b")
    dp0 = bytes_by_strategy(step_comms(m, Layout(8, 4, 8, zero=0)))["dp"]
    dp3 = bytes_by_strategy(step_comms(m, Layout(8, 4, 8, zero=3)))["dp"]
    return verify(answer, dp3 / dp0, unit="1", rtol=0.01, hint=(
        "the ZeRO paper's 1.5 assumes one forward and one backward per step; count the "
        "parameter all-gathers when every micro-batch needs the whole stage's weights"))


def states_gb_per_gpu(answer) -> CheckResult:
    """Exercise 4: GB of model states (bf16 weights and gradients, fp32 Adam) on one GPU of
    the first stage, GPT 145.6B on TP8 x PP8 x DP4 with ZeRO-1."""
    mem = memory_per_gpu(preset(STATES_MODEL), STATES_LAYOUT)
    ref = (mem.weights + mem.gradients + mem.optimizer) / 1e9
    return verify(answer, ref, unit="GB", rtol=0.01, hint=(
        "16 bytes per parameter unsharded: 2 weights + 2 gradients + 12 Adam (fp32 master, "
        "momentum, variance); which of them does ZeRO-1 shard over the DP ranks?",
        "take the parameters one GPU holds from memory_per_gpu(...).params_per_gpu: the first "
        "stage also holds the embedding"))


def span_speedup(answer) -> CheckResult:
    """Exercise 7: step time on the InfiniBand cluster over step time on the NVLink pod, GPT
    39.1B at global batch 16 on TP16 x PP1 x DP16 (NCCL model)."""
    if answer is None:
        return _not_yet("set answer to the InfiniBand step time / the pod's, a plain number")
    m = preset(SPAN_MODEL).with_(global_batch=SPAN_BATCH)
    ref = (step_time(m, SPAN_LAYOUT, "ib_cluster").total
           / step_time(m, SPAN_LAYOUT, "nvlink_pod").total)
    return verify(answer, ref, unit="1", rtol=0.02, hint=(
        "read the step time in the explorer's first line on each fabric (same model, batch "
        "and layout) and divide: InfiniBand over the pod",
        "a ratio above 1 means the pod is faster"))


def min_micro_batches(answer) -> CheckResult:
    """Exercise 4: fewest micro-batches for a bubble of at most 4 % with PP = 6."""
    p, limit = 6, Fraction(4, 100)
    ref = math.ceil((p - 1) * (1 - limit) / limit)
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint=(
        "solve (p-1)/(m+p-1) <= f for m, and take the smallest whole number that satisfies it"))


def pod_gain_strategy(answer) -> CheckResult:
    """Exercise 5: which strategy's exposed time differs most between pod and IB, for the MoE
    model on TP8 x PP4 x DP8 x EP4?"""
    m = preset("moe_8x39b")
    lay = Layout(tp=8, pp=4, dp=8, ep=4)
    pod = step_time(m, lay, "nvlink_pod").comm_by_strategy
    ib = step_time(m, lay, "ib_cluster").comm_by_strategy
    ref = max(STRATEGIES, key=lambda s: abs(ib[s] - pod[s]))
    return verify_choice(answer, ref, choices=STRATEGIES, hint=(
        "compare step_time(...).comm_by_strategy on both fabrics: which collective's group "
        "leaves the box, and how many GPUs of a box leave it at once?"))


def design_layout(layout) -> CheckResult:
    """Exercise 3: a Layout for GPT 145.6B on the 256-GPU InfiniBand cluster that fits in HBM
    and is at least 10 % faster than Megatron-LM's published TP8 x PP8 x DP4."""
    if not isinstance(layout, Layout):
        return _not_yet("give a Layout, e.g. Layout(tp=..., pp=..., dp=..., zero=...)")
    if layout.n_gpus != DESIGN_GPUS:
        return _not_yet(f"TP x PP x DP must use all {DESIGN_GPUS} GPUs; yours uses "
                        f"{layout.n_gpus}")
    m = preset(DESIGN_MODEL)
    try:
        check_layout(m, layout)
    except ValueError as err:
        return _not_yet(str(err))
    mem = memory_per_gpu(m, layout)
    if not mem.fits:
        return _not_yet(f"{layout.label} {mem.refusal()}")
    target = DESIGN_SPEEDUP * step_time(m, DESIGN_BASELINE, DESIGN_FABRIC).total
    t = step_time(m, layout, DESIGN_FABRIC).total
    if t > target:
        return _not_yet(f"it fits, but a step takes {t:.1f} s; look at which part of the step "
                        "is largest (step_time(...).comm_by_strategy) and trade it: TP's bytes "
                        "grow with TP, the bubble shrinks with more micro-batches, ZeRO frees "
                        "memory")
    return _right()
