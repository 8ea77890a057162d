"""Notebook 00's models: the course's numbers on one scale, and the seed article checked.

* :mod:`~nvlearn.overview.ladder` — the bandwidth ladder: every link of the course (PCIe,
  NVLink 1-5, InfiniBand, Ethernet) per GPU or per port, each rung computed from the
  catalogue's parts (lanes x rate x encoding), never copied from a data sheet.
* :mod:`~nvlearn.overview.audit` — the seed article's quantitative claims, each recomputed
  from :mod:`nvlearn.specs` and given a verdict (right, right with caveat, wrong,
  unsupported); notebooks 03 and 08 show their own rows of it.

References
----------
The seed article (``shared/seed``); NVIDIA, "NVIDIA H100 Tensor Core GPU Architecture"
white paper (2022) and "NVIDIA Hopper Architecture In-Depth" (2022); A. Ishii and R. Wells,
"The NVLink-Network Switch", Hot Chips 34 (2022); PCI-SIG, PCI Express Base Specification
5.0 and 6.0; IEEE 802.3ck-2022 and IEEE 802.3df-2024 (100 and 200 Gb/s per lane); every
figure's own source is in ``data/hardware.json``.
"""

from __future__ import annotations

from .audit import Claim, article_claims, claims_table, verdict_counts
from .ladder import Rung, bandwidth_ladder

__all__ = ["Claim", "Rung", "article_claims", "bandwidth_ladder", "claims_table",
           "verdict_counts"]
