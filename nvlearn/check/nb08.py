"""Self-checks for notebook 08 (NVLink 5, the NVL72, design your own domain).

Every reference is computed by the package (:mod:`nvlearn.nextgen`, the domain planner, the
simulator) from the catalogue; hints never contain the answer. A check given ``None`` (the blank
release) says "not yet" without running a simulation, so the learners' copy runs quickly.
"""

from __future__ import annotations

from functools import cache

from nvlearn import specs
from nvlearn.check.core import CheckResult, _not_yet, _right, verify
from nvlearn.nextgen.domain import DomainPlan, cheapest_design, plan_domain
from nvlearn.units import from_si

__all__ = [
    "BIG_DOMAIN_TAPER", "DESIGN_TARGET_BIDIR", "HYPOTHETICAL_LINKS", "TAPERS_COMPARED",
    "TWO_RACK_GPUS", "alltoall_taper_gain", "cheapest_domain", "domain_576_chips",
    "hypothetical_gpu_bidir", "pod_ring_step_us", "two_rack_chips",
]

#: Exercise 1: a hypothetical GPU with this many links of NVLink 5's lanes.
HYPOTHETICAL_LINKS = 36
#: Exercise 3: GPUs of a domain built, non-blocking, from the NVL72's chips and GPUs.
TWO_RACK_GPUS = 144
#: Exercise 7: GPUs, chip radix, links per GPU, NVLink generation and the bisection target
#: (bytes/s, both directions summed).
DESIGN_GPUS, DESIGN_RADIX, DESIGN_LINKS, DESIGN_GENERATION = 128, 64, 18, 4
DESIGN_TARGET_BIDIR = 40e12
#: Exercise 8: NVIDIA's largest NVLink 5 domain, built non-blocking from NVSwitch 4 chips.
BIG_DOMAIN_TAPER = 1.0
#: Exercise 9: the 256-GPU NVLink 4 domain (GPUs, radix, links) and the tapers compared.
WHAT_IF_DOMAIN = (256, 64, 18)
TAPERS_COMPARED = (1.0, 2.0)


def _nvl72_parts() -> tuple[int, int, int]:
    """(chip radix, links per GPU, NVLink generation) of the GB200 NVL72's parts."""
    nvl = specs.system("gb200_nvl72")
    chip = specs.nvswitch(nvl.nvswitch_generation)
    return chip.ports, specs.gpu(nvl.gpu).nvlink_links, chip.nvlink_generation


def hypothetical_gpu_bidir(answer) -> CheckResult:
    """Exercise 1: TB/s, both directions, of a GPU with 36 links of NVLink 5's 2 lanes."""
    g = specs.nvlink(5)
    lane = g.link_bw_per_dir / g.lanes_per_direction
    ref = HYPOTHETICAL_LINKS * g.lanes_per_direction * lane * 2 / 1e12
    return verify(answer, ref, unit="TB/s", rtol=0.01, hint=(
        "lane payload (per direction) x lanes per direction = link; x links = GPU per "
        "direction; the question asks for the marketing kind of figure"))


def two_rack_chips(answer) -> CheckResult:
    """Exercise 3: switch chips of a non-blocking domain of 144 GPUs built from the NVL72's
    72-port chips and 18-link GPUs (one plane per GPU link)."""
    radix, links, generation = _nvl72_parts()
    ref = plan_domain(TWO_RACK_GPUS, radix, links, 1.0, generation).switch_chips
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint=(
        "one chip per plane no longer reaches every GPU: a non-blocking leaf gives half its "
        "ports to GPUs and half up to the plane's spines",
        "per plane: leaves = GPUs / GPUs per leaf, spines = leaves x up ports / radix; then "
        "multiply by the number of planes (one per GPU link)"))


def pod_ring_step_us(answer) -> CheckResult:
    """Exercise 5: time of one step of the simulated ring all-reduce on the 256-GPU pod, in
    µs, from section 3's table (its busbw and the all-reduce size)."""
    if answer is None:
        return _not_yet("set answer to the time of one ring step, in µs")
    from nvlearn.nextgen.compare import ALLREDUCE_BYTES, compare_row

    row = compare_row("nvlink_pod")
    p = row.n_gpus
    total = ALLREDUCE_BYTES * 2 * (p - 1) / p / row.sim_ring_busbw
    return verify(answer, from_si(total / (2 * (p - 1)), "us"), unit="us", rtol=0.02,
                  n_ranks=p, hint=(
                      "busbw = (bytes per GPU) x 2(p-1)/p / time: solve for the time, then "
                      "divide by the number of ring steps",
                      "a ring all-reduce on p ranks takes 2(p-1) steps (reduce-scatter, then "
                      "all-gather)"))


def cheapest_domain(plan) -> CheckResult:
    """Exercise 7: a DomainPlan with the fewest switch chips (ties: fewest cables) for 128
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
    """Exercise 8: switch chips of a non-blocking two-tier NVLink 5 domain of 576 GPUs."""
    radix, links, generation = _nvl72_parts()
    n = specs.system("gb200_nvl72").max_nvlink_domain_gpus
    ref = plan_domain(n, radix, links, BIG_DOMAIN_TAPER, generation).switch_chips
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint=(
        "a non-blocking leaf gives half its ports to GPUs and half up; leaves per plane = "
        "GPUs / GPUs per leaf; spines per plane = leaves x up ports / radix; then count every "
        "plane (one per GPU link)",
        "a leaf's up ports are spread over the plane's spines in equal whole bundles: does "
        "the spine count you found divide them evenly?"))


@cache
def _alltoall_gain() -> float:
    from nvlearn.widgets.nextgen import _simulate

    busbw = [_simulate(*WHAT_IF_DOMAIN, t, 4, "alltoall")[1].busbw for t in TAPERS_COMPARED]
    return busbw[0] / busbw[1]


def alltoall_taper_gain(answer) -> CheckResult:
    """Exercise 9: the simulated all-to-all's busbw on the 256-GPU NVLink 4 domain without a
    taper, divided by its busbw at 2:1 (a plain number)."""
    if answer is None:
        return _not_yet("set answer to busbw at taper 1 / busbw at taper 2, a plain number")
    return verify(answer, _alltoall_gain(), unit="1", rtol=0.02, hint=(
        "read the all-to-all busbw in the explorer's text at taper 2 and at taper 1 (256 GPUs, "
        "64 ports, 18 links, NVLink 4) and divide: untapered over tapered",
        "a ratio above 1 means removing the taper helps"))
