"""Self-checks for notebook 05 (Mixture-of-Experts all-to-all)."""

from __future__ import annotations

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify, verify_choice
from nvlearn.moe import expert_capacity, route, simulate_moe
from nvlearn.topology import LINK_KIND_KEYS, ib_cluster

__all__ = [
    "HIDDEN", "TOKENS", "TOP_K", "capacity_slots", "dedup_ratio", "dispatch_mb_per_gpu",
    "ib_dispatch_ms", "limiting_link_kind"
]

#: The DeepEP benchmark layer used in exercises 2-3: tokens per GPU, top-k, hidden size.
TOKENS, TOP_K, HIDDEN = 4096, 8, 7168


def capacity_slots(answer) -> CheckResult:
    """Exercise 1: slots per expert from one GPU: 4,096 tokens, top-2, 64 experts, cf 1.25."""
    ref = expert_capacity(4096, 64, 2, 1.25)
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint="top-k x tokens / experts "
                  "x capacity factor, rounded up; a top-2 token fills two slots")


def dispatch_mb_per_gpu(answer) -> CheckResult:
    """Exercise 2: MB one GPU sends to other GPUs in dispatch (uniform, EP 64, fp8)."""
    ep = 64
    ref = TOKENS * TOP_K * HIDDEN * 1 * (ep - 1) / ep / 1e6
    return verify(answer, ref, unit="MB", hint="rows = tokens x top-k, each hidden x 1 byte; "
                  "with uniform routing 1/EP of them stay on the GPU")


def ib_dispatch_ms(answer) -> CheckResult:
    """Exercise 3: bandwidth-only dispatch time of that layer over the GPU's own NIC, 8 nodes."""
    gpus_per_node = specs.system("dgx_h100").gpus
    nodes = 8
    remote = (nodes - 1) / nodes
    nic = specs.nic(specs.system("dgx_h100").nic).port_bw_per_dir
    ref = TOKENS * TOP_K * HIDDEN * 1 * remote / nic * 1e3
    return verify(answer, ref, unit="ms", rtol=0.02, hint=(
        f"only the rows for the other {nodes - 1} nodes leave through the NIC (the "
        f"{gpus_per_node} GPUs of a node share NVLink); the NIC's rate is quoted in bits/s"))


def dedup_ratio(answer) -> CheckResult:
    """Exercise 4: flat / node-limited (M = 4, worst case) inter-node rows per token."""
    nodes, m = 8, 4
    flat = TOP_K * (nodes - 1) / nodes
    ref = flat / m
    return verify(answer, ref, unit="1", rtol=0.01, hint="flat: every expert on another node "
                  "costs one row; de-duplicated: one row per remote node, at most M of them")


def limiting_link_kind(answer) -> CheckResult:
    """Exercise 5: which kind of link limits a skewed dropless dispatch on 2 IB nodes?"""
    r = route(16, 1024, 64, 2, skew=1.0, seed=0)
    ref = simulate_moe(ib_cluster(2), r, 4096).limiting_link_kind()
    return verify_choice(answer, ref, choices=LINK_KIND_KEYS, hint=(
        "look at result.limiting_link(): whose link is it, and what does it connect?"))
