"""Mixture-of-Experts traffic: token routing, all-to-all traffic, and tokens on the data plane.

* :mod:`~nvlearn.moe.router` — top-k gating with a Zipf skew, expert capacity, drops,
  expert placement, node-limited routing (:func:`route`, :func:`gate`, :class:`Routing`).
* :mod:`~nvlearn.moe.dispatch` — dispatch / combine traffic matrices (bytes per GPU pair),
  ragged all-to-all Schedules, de-duplicated traffic (per node in two stages, or per GPU),
  and simulated times with per-GPU bytes and rates each way (:func:`traffic_matrix`,
  :func:`simulate_moe`).
* :mod:`~nvlearn.moe.tokens` — token rows moved through :mod:`nvlearn.dataplane` to their
  experts and back (:func:`moe_round_trip`).

Examples
--------
>>> r = route(8, 256, 16, 2, seed=0)
>>> traffic_matrix(r, hidden=1024).shape
(8, 8)
"""

from .dispatch import (
    MODES,
    GPUTraffic,
    MoEComm,
    alltoall_time_formula,
    dedup_rows,
    dispatch_rows,
    gpu_boxes,
    gpu_dedup_rows,
    padded_rows,
    ragged_alltoall,
    relay_gpu,
    simulate_moe,
    stage_rows,
    traffic_matrix,
)
from .router import (
    Routing,
    default_gpus_per_node,
    expert_capacity,
    expert_popularity,
    gate,
    gate_scores,
    place_experts,
    route,
)
from .tokens import ExpertBatch, alltoall_rows, dispatch_tokens, moe_round_trip

__all__ = [
    "MODES",
    "ExpertBatch",
    "GPUTraffic",
    "MoEComm",
    "Routing",
    "alltoall_rows",
    "alltoall_time_formula",
    "dedup_rows",
    "default_gpus_per_node",
    "dispatch_rows",
    "dispatch_tokens",
    "expert_capacity",
    "expert_popularity",
    "gate",
    "gate_scores",
    "gpu_boxes",
    "gpu_dedup_rows",
    "moe_round_trip",
    "padded_rows",
    "place_experts",
    "ragged_alltoall",
    "relay_gpu",
    "route",
    "simulate_moe",
    "stage_rows",
    "traffic_matrix",
]
