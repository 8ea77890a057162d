"""Parallelism strategies and their traffic: what TP, PP, DP / ZeRO and EP move, where, how
long a step takes on a fabric, and whether a layout fits in a GPU's memory.

* :mod:`~nvlearn.parallelism.model` — a GPT-style transformer, its parameters and FLOPs
  (:class:`Transformer`, :data:`PRESETS` from Narayanan et al. 2021).
* :mod:`~nvlearn.parallelism.layout` — degrees and rank placement (:class:`Layout`).
* :mod:`~nvlearn.parallelism.memory` — ZeRO model states and Korthikanti et al.'s
  activations per GPU, the HBM rule (:func:`memory_per_gpu`).
* :mod:`~nvlearn.parallelism.comm_plan` — each strategy's collectives per step
  (:func:`step_comms`), bytes per GPU pair (:func:`pair_traffic`), the pipeline bubble.
* :mod:`~nvlearn.parallelism.steptime` — times on the DGX H100, the NVLink pod and the
  InfiniBand cluster from NCCL's model; the step split (:func:`step_time`).

Examples
--------
>>> st = step_time(preset("gpt_76b"), Layout(tp=8, pp=4, dp=8), "ib_cluster")
>>> sorted(st.split())
['compute', 'exposed communication', 'pipeline bubble']
"""

from .comm_plan import (
    COLLECTIVES,
    Comm,
    box_traffic,
    bubble_fraction,
    bytes_by_strategy,
    dp_volume_elements,
    micro_batches,
    pair_traffic,
    ring_bytes_per_rank,
    step_comms,
)
from .layout import RECOMPUTE, STRATEGIES, ZERO_STAGES, Layout
from .memory import (
    Memory,
    activation_terms,
    layer_activation_bytes,
    memory_per_gpu,
    params_per_gpu,
    zero_state_bytes,
)
from .model import DEFAULT_MFU, PRESETS, Transformer, compute_time, preset
from .steptime import (
    FABRIC_NAMES,
    FABRICS,
    StepTime,
    TimedComm,
    collective_time,
    group_fabric,
    step_time,
    topology,
)

__all__ = [
    "COLLECTIVES",
    "DEFAULT_MFU",
    "FABRICS",
    "FABRIC_NAMES",
    "PRESETS",
    "RECOMPUTE",
    "STRATEGIES",
    "ZERO_STAGES",
    "Comm",
    "Layout",
    "Memory",
    "StepTime",
    "TimedComm",
    "Transformer",
    "activation_terms",
    "box_traffic",
    "bubble_fraction",
    "bytes_by_strategy",
    "collective_time",
    "compute_time",
    "dp_volume_elements",
    "group_fabric",
    "layer_activation_bytes",
    "memory_per_gpu",
    "micro_batches",
    "pair_traffic",
    "params_per_gpu",
    "preset",
    "ring_bytes_per_rank",
    "step_comms",
    "step_time",
    "topology",
    "zero_state_bytes",
]
