"""Which all-reduce should run here, and why: NCCL's predicted choice, and measured curves.

* :mod:`~nvlearn.tuner.nccl` — an algorithm chooser in the spirit of NCCL's tuner: every
  (algorithm, protocol) pair priced with NCCL's latency + bandwidth model from
  :func:`nvlearn.specs.nccl`, the cheapest chosen, the whole table shown (:func:`choose`,
  :func:`tune`, :class:`Choice`; what is kept of NCCL's model and what is simplified is in
  that module's docstring).
* :mod:`~nvlearn.tuner.sweep` — the algorithms of :mod:`nvlearn.collectives` timed over
  message sizes on a Topology, by the simulator or by their closed forms, with the
  crossovers between them (:func:`simulated_sweep`, :func:`closed_form_sweep`).

Examples
--------
>>> from nvlearn.topology import dgx_h100
>>> choose("allreduce", 2**30, dgx_h100()).best.label
'NVLS/Simple'
"""

from nvlearn.tuner.nccl import (
    ALGORITHMS,
    BUILDERS,
    NCCL_NAMES,
    PROTOCOLS,
    Candidate,
    Choice,
    Crossover,
    Fabric,
    Tuning,
    choose,
    fabric_from_topology,
    format_size,
    nvls_traffic_bound,
    source_notes,
    tune,
)
from nvlearn.tuner.sweep import (
    MAX_CHUNKS,
    SIZES,
    VARIANTS,
    LinkParams,
    Sweep,
    achievable_params,
    best_chunks,
    build_allreduce,
    closed_form_sweep,
    closed_form_time,
    gpu_traffic,
    link_params,
    simulate_allreduce,
    simulated_sweep,
    speedup,
)

__all__ = [
    "ALGORITHMS",
    "BUILDERS",
    "MAX_CHUNKS",
    "NCCL_NAMES",
    "PROTOCOLS",
    "SIZES",
    "VARIANTS",
    "Candidate",
    "Choice",
    "Crossover",
    "Fabric",
    "LinkParams",
    "Sweep",
    "Tuning",
    "achievable_params",
    "best_chunks",
    "build_allreduce",
    "choose",
    "closed_form_sweep",
    "closed_form_time",
    "fabric_from_topology",
    "format_size",
    "gpu_traffic",
    "link_params",
    "nvls_traffic_bound",
    "simulate_allreduce",
    "simulated_sweep",
    "source_notes",
    "speedup",
    "tune",
]
