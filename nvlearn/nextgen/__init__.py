"""The next generations: NVLink 5 from the SerDes up, the GB200 NVL72 next to the NVLink 4
systems, and a planner for your own NVLink domain (notebook 08).

* :mod:`~nvlearn.nextgen.nvlink5` — NVLink 4 vs 5 chains, which figures are published.
* :mod:`~nvlearn.nextgen.compare` — DGX H100, H100 NVLink Switch System, DGX GH200, NVL72:
  built, bisection, all-reduce, all-to-all and a training step.
* :mod:`~nvlearn.nextgen.domain` — one- or two-tier plane-aligned domains from GPUs, radix,
  links per GPU and a taper; the cheapest design that meets a bisection target.
* :mod:`~nvlearn.nextgen.claims` — the article's forward-looking claims audited.

Examples
--------
>>> from nvlearn.nextgen import plan_domain
>>> plan_domain(72, 72, 18, nvlink_generation=5).switch_chips
18
"""

from .claims import nextgen_claims
from .compare import (
    FABRICS,
    busbw_curves,
    compare_fabrics,
    compare_row,
    comparison_table,
    step_comparison,
)
from .domain import DomainPlan, cheapest_design, design_space, generation_gpu, plan_domain
from .nvlink5 import chain_matches_published, compare_generations, lane_provenance

__all__ = [
    "FABRICS",
    "DomainPlan",
    "busbw_curves",
    "chain_matches_published",
    "cheapest_design",
    "compare_fabrics",
    "compare_generations",
    "compare_row",
    "comparison_table",
    "design_space",
    "generation_gpu",
    "lane_provenance",
    "nextgen_claims",
    "plan_domain",
    "step_comparison",
]
