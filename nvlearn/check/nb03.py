"""Self-checks for notebook 03 (switch topology, routing, memory semantics, "Why 256?").

Every reference is computed by the package (:mod:`nvlearn.switching.plans`,
:mod:`nvlearn.topology`, :mod:`nvlearn.switching.patterns`) from the catalogue; hints never contain
the answer.
"""

from __future__ import annotations

import functools

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify
from nvlearn.switching.patterns import build_fabric, experiment
from nvlearn.switching.plans import nvlink_pod_plan
from nvlearn.topology import bisection_bw_bidir, expected_distinct_paths
from nvlearn.units import from_si

__all__ = [
    "A2A_TASK", "a2a_advantage", "a2a_pod_vs_ib", "colliding_pod_flows_gbs",
    "expected_idle_uplinks", "incast_time_ms", "l2_switches_at_taper", "max_gpus_with_more_cages",
    "tapered_bisection_tbs",
]

#: Exercise premises (stated in the notebook), chosen so that no answer is printed above.
INCAST_BYTES = 2**30          # exercise 1: 1 GiB from every sender
WHAT_IF_TAPER = 2.5           # exercise 5
WHAT_IF_CAGES = 48            # exercise 7: OSFP cages per second-level switch
IDLE_FLOWS, IDLE_UPLINKS = 48, 32   # exercise 3 (section 3 works 32 flows on 32 uplinks)
BISECTION_NODES, BISECTION_TAPER = 16, 4.0   # exercise 10 (the notebook prints 32 nodes, 2:1)
#: Exercise 4: the traffic explorer's all-to-all, adaptive, at the pod's steepest taper.
A2A_TASK = {"pattern": "all-to-all", "policy": "adaptive", "taper": 8.0, "nodes": 16,
            "n_bytes": 64e6}


def incast_time_ms(answer) -> CheckResult:
    """Exercise 1: all 255 other GPUs of the pod send 1 GiB each to GPU 0; best time, ms."""
    pod = nvlink_pod_plan()
    ref = from_si((pod.gpus - 1) * INCAST_BYTES / pod.in_node_bw_per_gpu, "ms")
    return verify(
        answer, ref, unit="ms",
        hint="every byte has to enter GPU 0 through its own NVLinks, one direction; no "
             "routing can widen that last hop. Count the bytes, divide by that rate.",
    )


def colliding_pod_flows_gbs(answer) -> CheckResult:
    """Exercise 2: all 8 GPUs of node 0 send to node 1, statically routed, and every flow
    hashes onto the same second-level chip: GB/s per flow."""
    pod = nvlink_pod_plan()
    ports_per_chip = pod.uplinks_per_node / pod.l2_chips  # a node's bundle to one L2 chip
    ref = from_si(ports_per_chip * pod.link_bw_per_dir / pod.gpus_per_node, "GB/s")
    return verify(
        answer, ref, unit="GB/s",
        hint="follow the shared path: which hop has the fewest NVLinks (a node's uplinks are "
             "spread evenly over all second-level chips), and how many flows share it?",
    )


def expected_idle_uplinks(answer) -> CheckResult:
    """Exercise 3: 48 flows hashed uniformly onto 32 uplinks; expected idle uplinks."""
    ref = IDLE_UPLINKS - expected_distinct_paths(IDLE_FLOWS, IDLE_UPLINKS)
    return verify(
        answer, ref, unit="1", rtol=0.02,
        hint="one uplink stays idle only if every one of the flows misses it; multiply "
             "that probability by the number of uplinks",
    )


def tapered_bisection_tbs(answer) -> CheckResult:
    """Exercise 10: bisection (bidirectional) of a 16-node pod tapered 4:1, TB/s."""
    ref = bisection_bw_bidir(build_fabric("nvlink_pod", BISECTION_NODES, taper=BISECTION_TAPER))
    return verify(answer, from_si(ref, "TB/s"), unit="TB/s", hint=(
        "cut the pod into two halves of nodes: only the nodes' uplinks to the second tier "
        "cross the cut; count them at this taper (whole cables of 4 NVLinks)",
        "bidirectional: both directions of every crossing link"))


@functools.cache
def a2a_pod_vs_ib(taper: float = A2A_TASK["taper"]) -> float:
    """p99 of the explorer's all-to-all on InfiniBand over that on the pod at ``taper``."""
    kw = {"runs": 1, "nodes": A2A_TASK["nodes"], "n_bytes": A2A_TASK["n_bytes"]}
    pod = experiment("nvlink_pod", A2A_TASK["pattern"], A2A_TASK["policy"], taper=taper, **kw)
    ib = experiment("ib_cluster", A2A_TASK["pattern"], A2A_TASK["policy"], **kw)
    return ib.p99 / pod.p99


def a2a_advantage(answer) -> CheckResult:
    """Exercise 4: how many times sooner the pod tapered 8:1 finishes the explorer's
    all-to-all (p99) than the InfiniBand cluster."""
    return verify(answer, a2a_pod_vs_ib(), unit="1", rtol=0.02, hint=(
        "in the explorer: all-to-all, adaptive, the pod at 8:1, then the IB cluster; divide "
        "the IB p99 by the pod's",
        "a ratio above 1 means the pod is sooner"))


def l2_switches_at_taper(answer) -> CheckResult:
    """Exercise 6: second-level 1U switches for 32 nodes at a 2.5:1 taper."""
    ref = nvlink_pod_plan(32, taper=WHAT_IF_TAPER).l2_switches
    dgx = specs.system("dgx_h100")
    return verify(
        answer, ref, unit="1", rtol=0.0, atol=0.0,
        hint=f"uplinks per node = GPU links / taper, in whole cables of "
             f"{dgx.nvlinks_per_osfp} NVLinks; each node runs one cable to every switch",
    )


def max_gpus_with_more_cages(answer) -> CheckResult:
    """Exercise 7: GPUs a two-tier pod could connect if each second-level switch had 48
    OSFP cages (and ports to match), same nodes and taper."""
    plan = nvlink_pod_plan()
    ref = WHAT_IF_CAGES * plan.gpus_per_node     # one cable from every node to every switch
    return verify(
        answer, ref, unit="1", rtol=0.0, atol=0.0,
        hint="every node runs one cable to every second-level switch, so a switch's cages "
             "count nodes, not GPUs",
    )
