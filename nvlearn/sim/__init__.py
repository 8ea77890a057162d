"""Run a Schedule on a Topology: a numba flow-level, event-driven simulator.

* :func:`simulate` — the entry point; returns a :class:`SimResult`.
* :mod:`~nvlearn.sim.models` — the two models of the fabric: ``"achievable"`` (what NCCL
  reaches: its per-link rates, protocols and software latencies; the default) and ``"wire"``
  (the ideal at link rate, where the closed forms hold exactly).
* :mod:`~nvlearn.sim.engine` — the event loop (dependencies, batching, per-link flow lists).
* :mod:`~nvlearn.sim.fairness` — weighted max-min fair rates (:func:`max_min_rates`).
* :mod:`~nvlearn.sim.result` — :class:`SimResult` and its :class:`Timeline`.

Examples
--------
>>> from nvlearn.topology import single_switch
>>> from nvlearn.collectives import allreduce
>>> res = simulate(single_switch(8, bw_per_dir=450e9), allreduce(8, 2**30), model="wire")
>>> round(res.busbw / 1e9)        # GB/s: at wire rate the ring reaches the link rate
450
>>> res = simulate(single_switch(8, bw_per_dir=450e9), allreduce(8, 2**30))
>>> round(res.busbw / 1e9)        # what NCCL achieves: 20.6 of every 25 GB/s of NVLink
367
"""

from .api import effective_capacity, op_routes, participant_nodes, simulate
from .fairness import max_min_rates
from .result import HotLink, SimResult, Timeline

__all__ = [
    "HotLink",
    "SimResult",
    "Timeline",
    "effective_capacity",
    "max_min_rates",
    "op_routes",
    "participant_nodes",
    "simulate",
]
