"""Self-checks for notebook 08 (NVLink 5, the NVL72, design your own domain)."""

from __future__ import annotations

from functools import cache

from nvlearn import specs
from nvlearn.check.core import CheckResult, _not_yet, _right, verify, verify_choice
from nvlearn.nextgen.domain import DomainPlan, cheapest_design, plan_domain

#: Exercise 1: a hypothetical GPU with this many links of NVLink 5's lanes.
HYPOTHETICAL_LINKS = 36
#: Exercise 2: GPUs, chip radix, links per GPU, NVLink generation and the bisection target
#: (bytes/s, both directions summed).
DESIGN_GPUS, DESIGN_RADIX, DESIGN_LINKS, DESIGN_GENERATION = 128, 64, 18, 4
DESIGN_TARGET_BIDIR = 40e12
#: Exercise 3: NVIDIA's largest NVLink 5 domain, built non-blocking from NVSwitch 4 chips.
BIG_DOMAIN_TAPER = 1.0
#: Exercise 4: the 256-GPU what-ifs compared (tapers of the designed domain).
TAPERS_COMPARED = (1.0, 2.0)


def hypothetical_gpu_bidir(answer) -> CheckResult:
    """Exercise 1: TB/s, both directions, of a GPU with 36 links of NVLink 5's 2 lanes."""
    g = specs.nvlink(5)
    lane = g.link_bw_per_dir / g.lanes_per_direction
    ref = HYPOTHETICAL_LINKS * g.lanes_per_direction * lane * 2 / 1e12
    return verify(answer, ref, unit="TB/s", rtol=0.01, hint=(
        "lane payload (per direction) x lanes per direction = link; x links = GPU per "
        "direction; the question asks for the marketing kind of figure"))


def cheapest_domain(plan) -> CheckResult:
    """Exercise 2: a DomainPlan with the fewest switch chips (ties: fewest cables) for 128
    NVLink 4 GPUs with 18 links on 64-port chips whose bisection is at least 40 TB/s."""
    if not isinstance(plan, DomainPlan):
        return _not_yet("pass the DomainPlan that plan_domain(...) returns, not a number")
    asked = (DESIGN_GPUS, DESIGN_RADIX, DESIGN_LINKS, DESIGN_GENERATION)
    if (plan.n_gpus, plan.radix, plan.links_per_gpu, plan.nvlink_generation) != asked:
        return _not_yet(f"the exercise fixes GPUs, radix, links per GPU and NVLink generation "
                        f"at {asked}; only the taper is yours to choose")
    if plan.bisection_bw_bidir < DESIGN_TARGET_BIDIR:
        return _not_yet("this design's bisection misses the target: the taper cuts it by "
                        "up / down ports; lower the taper")
    best = cheapest_design(*asked[:3], DESIGN_TARGET_BIDIR, DESIGN_GENERATION)
    if plan.switch_chips > best.switch_chips:
        return _not_yet("it meets the target, but a design with fewer switch chips also does: "
                        "count leaves and spines for other tapers")
    if plan.cables > best.cables:
        return _not_yet("fewest chips, but not the fewest cables among them: is every uplink "
                        "needed to meet the target?")
    return _right()


def domain_576_chips(answer) -> CheckResult:
    """Exercise 3: switch chips of a non-blocking two-tier NVLink 5 domain of 576 GPUs."""
    nvl = specs.system("gb200_nvl72")
    chip = specs.nvswitch(nvl.nvswitch_generation)
    ref = plan_domain(nvl.max_nvlink_domain_gpus, chip.ports, specs.gpu(nvl.gpu).nvlink_links,
                      BIG_DOMAIN_TAPER, chip.nvlink_generation).switch_chips
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint=(
        "a non-blocking leaf gives half its ports to GPUs and half up; leaves per plane = "
        "GPUs / GPUs per leaf; spines per plane = leaves x up ports / radix; then count every "
        "plane (one per GPU link)"))


@cache
def _taper_ratios() -> dict[str, float]:
    from nvlearn.widgets.nextgen import _simulate

    out = {}
    for collective in ("allreduce", "alltoall"):
        busbw = [_simulate(256, 64, 18, t, 4, collective)[1].busbw for t in TAPERS_COMPARED]
        out[collective] = busbw[0] / busbw[1]
    return out


def taper_sensitive_collective(answer) -> CheckResult:
    """Exercise 4: which collective gains more from removing the 2:1 taper of a 256-GPU
    NVLink 4 domain: "allreduce" (ring) or "alltoall"?"""
    ratios = _taper_ratios()
    correct = max(ratios, key=ratios.get)
    return verify_choice(answer, correct, choices=("allreduce", "alltoall"), hint=(
        "count, for each collective, how many bytes every GPU sends to GPUs under another "
        "leaf, and compare with what a leaf's uplinks carry"))
