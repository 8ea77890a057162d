"""Stragglers, degraded links and tail latency: what one slow part does to a training step.

* :mod:`~nvlearn.straggle.faults` — find links by node names, delay one rank
  (:func:`with_rank_delay`), and run an all-reduce under a fault (:func:`run_fault`: a slow
  GPU, a link at reduced rate, a failed NVSwitch plane, a lost InfiniBand rail).
* :mod:`~nvlearn.straggle.jitter` — per-GPU step-time jitter as a stated distribution and the
  order statistics of the slowest GPU (:class:`ShiftedExponential`, :func:`expected_max_normal`,
  :func:`idle_cost`).
* :mod:`~nvlearn.straggle.local_sgd` — the SGD of notebook 01 with fewer synchronisations:
  local SGD (average every ``H`` steps) and bounded-staleness SGD (:func:`train_local_sgd`,
  :func:`train_stale`).
"""

from nvlearn.straggle.faults import (
    FAULTS,
    FaultRun,
    link_ids,
    node_links,
    plane_links,
    rail_links,
    run_fault,
    with_rank_delay,
)
from nvlearn.straggle.jitter import (
    JitterIdle,
    Normal,
    ShiftedExponential,
    expected_max_normal,
    harmonic,
    idle_cost,
    monte_carlo_max,
)
from nvlearn.straggle.local_sgd import SyncHistory, train_local_sgd, train_stale

__all__ = [
    "FAULTS",
    "FaultRun",
    "JitterIdle",
    "Normal",
    "ShiftedExponential",
    "SyncHistory",
    "expected_max_normal",
    "harmonic",
    "idle_cost",
    "link_ids",
    "monte_carlo_max",
    "node_links",
    "plane_links",
    "rail_links",
    "run_fault",
    "train_local_sgd",
    "train_stale",
    "with_rank_delay",
]
