"""Self-checks for notebook 03 (switch topology, routing, memory semantics, "Why 256?").

Every reference is computed by the package (:mod:`nvlearn.fabric_math`,
:mod:`nvlearn.topology`, :mod:`nvlearn.traffic`) from the catalogue; hints never contain
the answer.
"""

from __future__ import annotations

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify, verify_choice
from nvlearn.fabric_math import nvlink_pod_plan
from nvlearn.topology import bisection_bw_bidir, expected_distinct_paths
from nvlearn.traffic import DEFAULT_FLOW_BYTES, build_fabric, hol_limit
from nvlearn.units import from_si


def incast_time_ms(answer) -> CheckResult:
    """Exercise 1: all 255 other GPUs of the pod send 64 MB each to GPU 0; best time, ms."""
    pod = nvlink_pod_plan()
    ref = from_si((pod.gpus - 1) * DEFAULT_FLOW_BYTES / pod.in_node_bw_per_gpu, "ms")
    return verify(
        answer, ref, unit="ms",
        hint="every byte has to enter GPU 0 through its own NVLinks, one direction; no "
             "routing can widen that last hop. Count the bytes, divide by that rate.",
    )


def static_pod_flow_gbs(answer) -> CheckResult:
    """Exercise 2: one cross-node flow, alone on the pod, pinned to one path: GB/s."""
    pod = nvlink_pod_plan()
    ports_per_chip = pod.uplinks_per_node / pod.l2_chips  # a node's bundle to one L2 chip
    ref = from_si(ports_per_chip * pod.link_bw_per_dir, "GB/s")
    return verify(
        answer, ref, unit="GB/s",
        hint="follow the one path: which of its four hops has the fewest NVLinks? A node's "
             "uplinks are spread evenly over all second-level chips.",
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
    """Exercise 5: second-level 1U switches for 32 nodes at a 1.5:1 taper."""
    ref = nvlink_pod_plan(32, taper=1.5).l2_switches
    dgx = specs.system("dgx_h100")
    return verify(
        answer, ref, unit="1", rtol=0.0, atol=0.0,
        hint=f"uplinks per node = GPU links / taper, in whole cables of "
             f"{dgx.nvlinks_per_osfp} NVLinks; each node runs one cable to every switch",
    )


def why_256(answer) -> CheckResult:
    """Exercise 6: what caps a two-tier NVLink Switch System at 32 nodes (256 GPUs)?"""
    return verify_choice(
        answer, "ports", choices=("reach", "address space", "ports", "power"),
        hint="count OSFP cages: how many does each node need, and how many does one "
             "second-level switch have?",
    )


def fifo_switch_throughput(answer) -> CheckResult:
    """Exercise 7: saturation throughput per port of a large FIFO input-queued switch."""
    return verify(
        answer, hol_limit(), unit="1", rtol=0.01,
        hint="read it off the head-of-line figure's large-N limit (a fraction of one cell "
             "per port per slot)",
    )
