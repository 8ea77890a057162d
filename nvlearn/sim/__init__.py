"""Run a Schedule on a Topology: a numba flow-level, event-driven simulator.

* :func:`simulate` — the entry point; returns a :class:`SimResult`.
* :mod:`~nvlearn.sim.models` — the two models of the fabric: ``"achievable"`` (what NCCL
  reaches: its per-link rates, protocols and software latencies; the default) and ``"wire"``
  (the ideal at link rate, where the closed forms hold exactly).
* :mod:`~nvlearn.sim.engine` — the event loop (dependencies, batching, the books).
* :mod:`~nvlearn.sim.groups` — flows in bottleneck groups, each with one rate and a
  virtual clock; the max-min re-solve works on groups.
* :mod:`~nvlearn.sim.fairness` — weighted max-min fair rates (:func:`max_min_rates`).
* :mod:`~nvlearn.sim.result` — :class:`SimResult` and its :class:`Timeline`.
* :mod:`~nvlearn.sim.quotient` — a compact schedule (one op per class of symmetric ops,
  :mod:`nvlearn.collectives.compact`) on the quotient of the fabric by its symmetry:
  :class:`CompactResult`, exact where every rank is alike.

References
----------
* D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992, sec. 6.5:
  max-min fairness, progressive filling and the bottleneck characterisation of a max-min
  fair allocation (:mod:`~nvlearn.sim.fairness`, :mod:`~nvlearn.sim.groups`). The
  simulator weights each flow's load on a link by the share of its bytes that crosses it.
* P. Velho, L. M. Schnorr, H. Casanova and A. Legrand, "On the validity of flow-level TCP
  network models for grid and cloud simulations", *ACM Transactions on Modeling and
  Computer Simulation* 23(4), 2013: what a flow-level model (each transfer a fluid flow at
  a rate that changes only when a transfer starts or ends) gets right and wrong. The
  simulator is such a model; it applies none of the corrections studied there (the
  ``"achievable"`` model takes its rates and latencies from NCCL instead).
* H. Casanova, A. Giersch, A. Legrand, M. Quinson and F. Suter, "Versatile, scalable, and
  accurate simulation of distributed applications and platforms", *Journal of Parallel
  and Distributed Computing* 74(10), 2014 (SimGrid): the flow-level, event-driven
  simulation the engine follows (:mod:`~nvlearn.sim.engine`), and SimGrid's lmm solver,
  whose selective update (re-solve only the constraints an event modified) the engine
  follows by re-solving only the components a batch touched.
* NVIDIA NCCL 2.30.7, ``src/graph/tuning.cc``: the tuning model whose constants
  (``baseLat``, ``hwLat``, ``llMaxBws``, ``nvlsEfficiency``) and protocol choice the
  ``"achievable"`` model uses; ``src/graph/topo.h`` and ``src/graph/topo.cc`` for its
  per-link rates (:mod:`~nvlearn.sim.models` lists them).

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
from .quotient import CompactResult, LinkClass, simulate_compact
from .result import HotLink, SimResult, Timeline

__all__ = [
    "CompactResult",
    "HotLink",
    "LinkClass",
    "SimResult",
    "Timeline",
    "effective_capacity",
    "max_min_rates",
    "op_routes",
    "participant_nodes",
    "simulate",
    "simulate_compact",
]
