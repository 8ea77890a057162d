"""Notebook 03's models: what a switched fabric does to traffic, and what building one costs.

* :mod:`~nvlearn.switching.patterns` — traffic patterns as Schedules (permutation, shift,
  all-to-all, incast), run on a fabric under static or adaptive routing, with flow-completion
  statistics; the head-of-line blocking limit of a FIFO input-queued switch.
* :mod:`~nvlearn.switching.plans` — port and taper arithmetic: the NVLink Switch System's
  cabling and why it stops at 256 GPUs; folded-Clos plans by radix, tiers and taper; the
  headline metrics (bisection, taper, hops) of a built fabric.
* :mod:`~nvlearn.switching.memory_semantics` — three ways to reach another GPU's memory
  (NVLink load/store, RDMA over InfiniBand, TCP): who does the work, and the time of one
  access by size.
"""

from __future__ import annotations

from . import memory_semantics, patterns, plans

__all__ = ["memory_semantics", "patterns", "plans"]
