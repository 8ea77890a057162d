"""Self-checks for notebook 03 (switch topology, routing, memory semantics, "Why 256?").

Every reference is computed by the package (:mod:`nvlearn.switching.plans`,
:mod:`nvlearn.topology`, :mod:`nvlearn.switching.patterns`) from the catalogue; hints never contain
the answer.
"""

from __future__ import annotations

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify
from nvlearn.switching.patterns import build_fabric, hol_limit
from nvlearn.switching.plans import nvlink_pod_plan
from nvlearn.topology import bisection_bw_bidir, expected_distinct_paths
from nvlearn.units import from_si

#: Exercise premises (stated in the notebook), chosen so that no answer is printed above.
INCAST_BYTES = 2**30          # exercise 1: 1 GiB from every sender
WHAT_IF_TAPER = 2.5           # exercise 5
WHAT_IF_CAGES = 48            # exercise 6: OSFP cages per second-level switch


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
    """Exercise 3: 32 flows hashed uniformly onto 32 uplinks; expected idle uplinks."""
    ref = 32 - expected_distinct_paths(32, 32)
    return verify(
        answer, ref, unit="1", rtol=0.02,
        hint="one uplink stays idle only if every one of the flows misses it; multiply "
             "that probability by the number of uplinks",
    )


def ndr_bisection_ratio(answer) -> CheckResult:
    """Exercise 4: pod bisection / bisection of the same 256 GPUs on NDR InfiniBand."""
    ref = bisection_bw_bidir(build_fabric("nvlink_pod", 32)) / bisection_bw_bidir(
        build_fabric("ib_cluster", 32))
    return verify(
        answer, ref, unit="1",
        hint="NVIDIA's 9x compares with HDR (200 Gb/s per GPU); here every GPU has a "
             "400 Gb/s NIC. Half the nodes' off-node bandwidth crosses the cut either way.",
    )


def l2_switches_at_taper(answer) -> CheckResult:
    """Exercise 5: second-level 1U switches for 32 nodes at a 2.5:1 taper."""
    ref = nvlink_pod_plan(32, taper=WHAT_IF_TAPER).l2_switches
    dgx = specs.system("dgx_h100")
    return verify(
        answer, ref, unit="1", rtol=0.0, atol=0.0,
        hint=f"uplinks per node = GPU links / taper, in whole cables of "
             f"{dgx.nvlinks_per_osfp} NVLinks; each node runs one cable to every switch",
    )


def max_gpus_with_more_cages(answer) -> CheckResult:
    """Exercise 6: GPUs a two-tier pod could connect if each second-level switch had 48
    OSFP cages (and ports to match), same nodes and taper."""
    plan = nvlink_pod_plan()
    ref = WHAT_IF_CAGES * plan.gpus_per_node     # one cable from every node to every switch
    return verify(
        answer, ref, unit="1", rtol=0.0, atol=0.0,
        hint="every node runs one cable to every second-level switch, so a switch's cages "
             "count nodes, not GPUs",
    )


def fifo_switch_loss(answer) -> CheckResult:
    """Exercise 7: fraction of capacity a large FIFO input-queued switch loses at saturation."""
    return verify(
        answer, 1.0 - hol_limit(), unit="1", rtol=0.01,
        hint="start from the head-of-line figure's large-N limit, the fraction that is "
             "delivered (cells per port per slot)",
    )
