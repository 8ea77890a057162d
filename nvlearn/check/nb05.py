"""Self-checks for notebook 05 (Mixture-of-Experts all-to-all).

Every reference is computed by the package (the router, the traffic matrices, the simulator,
the explorer's own runs, the catalogue); hints never contain the answer. A check given
``None`` (the blank release) says "not yet" without routing or simulating anything, so the
learners' copy runs quickly.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from nvlearn import specs
from nvlearn.check.core import CheckResult, _not_yet, _right, verify, verify_choice
from nvlearn.topology import LINK_KIND_KEYS

__all__ = [
    "CAPACITY_CASE", "DEDUP_CASE", "EP_LAYOUT", "EXPLORER_CASE", "FFN", "HIDDEN", "HOT_CASE",
    "MIXTRAL_CASE", "ROWS_CASE", "SHARED", "TOKENS", "TOP_K", "UNIFORM_CASE", "WIRE_CASE",
    "busiest_gpu_bound_us", "capacity_slots", "dedup_rows_per_token", "expert_compute_seconds",
    "mixtral_dispatch_mib", "needed_node_bw_gbs", "pod_dedup_over_flat", "send_rows_function",
    "uniform_drop_fraction", "wire_limiting_link_kind",
]

#: The notebook's DeepSeek-V3-like layer (DeepEP's benchmark): tokens per GPU, top-k, hidden
#: size, expert FFN width and shared experts.
TOKENS, TOP_K, HIDDEN, FFN, SHARED = 4096, 8, 7168, 2048, 1
#: Exercise 1: one GPU's tokens, routed experts, top-k, capacity factor (DeepSeek-V2-like).
CAPACITY_CASE = (3000, 160, 6, 1.1)
#: Exercise 2: ``route(gpus, tokens, experts, top_k, skew=0, capacity_factor=1.0, seed=0)``.
UNIFORM_CASE = (16, 1024, 64, 2)
#: Exercise 4's self-check: a routing with drops, ``route(*ROWS_CASE[:4], skew=, capacity, seed)``.
ROWS_CASE = (8, 256, 32, 4, 1.0, 1.0, 1)
#: Exercise 5: tokens per GPU, experts, top-k, hidden, bytes per element, expert-parallel GPUs.
MIXTRAL_CASE = (8192, 8, 2, 4096, 2, 8)
#: Exercise 6: ``route(gpus, tokens, experts, top_k, skew=, seed=)`` on one DGX H100, hidden.
HOT_CASE = (8, 2048, 64, 4, 1.2, 1, 4096)
#: Exercise 7: ``route(gpus, tokens, experts, top_k, skew=, seed=)`` on ``ib_cluster(2)``,
#: hidden, and the model of the fabric asked about.
WIRE_CASE = (16, 1024, 64, 2, 1.0, 0, 4096, "wire")
#: Exercise 8: the explorer's setting (fabric key and nodes, experts, top-k, skew, capacity
#: (0 = dropless), tokens, hidden).
EXPLORER_CASE = (("nvlink_pod", 2), 64, 2, 0.5, 0.0, 1024, 4096)
#: Exercise 9: nodes, experts, top-k (uniform routing, experts spread evenly over the nodes).
DEDUP_CASE = (8, 256, 8)
#: Exercise 10: the DeepSeek-V3 training layout: expert-parallel GPUs, nodes, dispatch and
#: combine bytes per element.
EP_LAYOUT = (64, 8, 1, 2)


def capacity_slots(answer) -> CheckResult:
    """Exercise 1: slots per expert for one GPU's 3,000 tokens, top-6 of 160 experts, capacity
    factor 1.1."""
    from nvlearn.moe import expert_capacity

    tokens, experts, k, factor = CAPACITY_CASE
    ref = expert_capacity(tokens, experts, k, factor)
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, slips=(
        (math.floor(k * tokens / experts * factor), "rounded down: a fraction of a slot still "
         "needs a whole slot, so round up"),
        (math.ceil(tokens / experts * factor), "that is top-1's capacity: each token fills k "
         "slots, one per chosen expert"),
        (math.ceil(k * tokens / experts), "the capacity factor is missing"),
    ), hint=("tokens x top-k / experts is the average load of an expert; scale it by the "
             "capacity factor", "then round up to a whole number of slots"))


def uniform_drop_fraction(answer) -> CheckResult:
    """Exercise 2: the fraction of assignments a uniform router (skew 0) drops at capacity
    factor 1.0: ``route(16, 1024, 64, 2, skew=0.0, capacity_factor=1.0, seed=0)``."""
    if answer is None:
        return _not_yet("set answer to the routing's drop_fraction, a fraction such as 0.1")
    from nvlearn.moe import route

    r = route(*UNIFORM_CASE, skew=0.0, capacity_factor=1.0, seed=0)
    ref = r.drop_fraction
    return verify(answer, ref, unit="1", rtol=0.02, slips=(
        (1 - ref, "that is the share kept, not the share dropped"),
        (r.tokens_fully_dropped / (r.n_gpus * r.tokens_per_gpu), "that is the share of "
         "tokens that lost every expert; the question asks for assignments"),
    ), hint=("run the route(...) call of the exercise (seed=0) and read its drop_fraction",))


def _rows_case():
    from nvlearn.moe import route

    g, t, e, k, skew, cf, seed = ROWS_CASE
    return route(g, t, e, k, skew=skew, capacity_factor=cf, seed=seed)


def send_rows_function(fn) -> CheckResult:
    """Exercise 4: ``fn(dest_gpu, kept, n_gpus)`` returns the (n_gpus, n_gpus) matrix of kept
    rows each GPU sends each GPU, checked against :func:`nvlearn.moe.dispatch_rows` on a
    skewed routing with drops (the hidden tests use others)."""
    if not callable(fn):
        return _not_yet("pass the function itself (its name, no brackets)")
    from nvlearn.moe import dispatch_rows

    r = _rows_case()
    want = dispatch_rows(r)
    try:
        got = fn(r.dest_gpu, r.kept, r.n_gpus)
    except Exception as err:  # the learner's code: report, never raise
        return _not_yet(f"your function raised {type(err).__name__}: {err}")
    if got is None:
        return _not_yet("the function returns None: write its body")
    got = np.asarray(got)
    if got.shape != want.shape:
        return _not_yet(f"on {r.n_gpus} GPUs the matrix has shape {want.shape} (row: the "
                        f"sending GPU, column: the receiving GPU); yours is {got.shape}")
    if np.array_equal(got, want):
        return _right()
    if np.array_equal(got, want.T):
        return _not_yet("transposed: rows[s, d] is what GPU s sends GPU d, so the source is "
                        "the first index")
    if np.array_equal(got, dispatch_rows(r.with_capacity(None))):
        return _not_yet("dropped assignments never travel: count only where kept is True")
    off = ~np.eye(r.n_gpus, dtype=bool)
    if np.array_equal(got[off], want[off]):
        return _not_yet("right off the diagonal; the diagonal counts the rows for the GPU's "
                        "own experts too (they stay on the GPU)")
    return _not_yet("for each source GPU s, count its kept assignments per destination GPU "
                    "(np.bincount with minlength=n_gpus does it for one s)")


def mixtral_dispatch_mib(answer) -> CheckResult:
    """Exercise 5: MiB one GPU sends other GPUs in dispatch: 8,192 tokens, top-2 of 8
    experts, hidden 4,096, BF16, expert parallelism over 8 GPUs, uniform routing."""
    tokens, experts, k, hidden, b, ep = MIXTRAL_CASE
    ref = tokens * k * hidden * b * (ep - 1) / ep / 2**20
    return verify(answer, ref, unit="MiB", rtol=0.01, n_ranks=ep, slips=(
        (ref / 2, "half the answer: BF16 is 2 bytes per number, and top-2 sends each token "
         "as two rows, one per chosen expert; is one of them missing?"),
        (ref * 2**20 / 1e6, "that is in MB (10**6 bytes); the question asks for MiB (2**20 "
         "bytes)"),
    ), hint=("rows = tokens x top-k, each hidden numbers x bytes per number; with uniform "
             "routing 1/EP of them stay on the GPU", "MiB is 2**20 bytes"))


def expert_compute_seconds() -> float:
    """The notebook's expert compute of one MoE layer per GPU at the H100's dense BF16 peak
    (forward: 2 FLOPs per weight, three hidden x FFN matrices, top-k routed + shared experts),
    seconds."""
    return TOKENS * (TOP_K + SHARED) * 3 * 2 * HIDDEN * FFN / specs.gpu("h100").bf16_dense_flops


def _hot_case():
    from nvlearn.moe import route

    g, t, e, k, skew, seed, hidden = HOT_CASE
    return route(g, t, e, k, skew=skew, seed=seed), hidden


def busiest_gpu_bound_us(answer) -> CheckResult:
    """Exercise 6: the busiest-GPU lower bound (µs) on dispatch + combine (BF16 both ways) of
    ``route(8, 2048, 64, 4, skew=1.2, seed=1)`` on one DGX H100, at NCCL's rate per GPU."""
    if answer is None:
        return _not_yet("set answer to the bound in µs, e.g. \"500 us\"")
    from nvlearn.moe import traffic_matrix
    from nvlearn.sim.models import injection_bw_per_dir
    from nvlearn.topology import dgx_h100

    r, hidden = _hot_case()
    m = traffic_matrix(r, hidden, 2.0)
    off = m - np.diag(np.diag(m))
    bw = float(injection_bw_per_dir(dgx_h100())[0])
    busiest = max(off.sum(axis=1).max(), off.sum(axis=0).max())
    ref = 2 * busiest / bw * 1e6                # dispatch, then combine (the transpose)
    wire = specs.nvlink(4).gpu_bw_per_dir
    return verify(answer, ref, unit="us", rtol=0.01, slips=(
        (ref * bw / wire, f"that is at the wire's {wire / 1e9:.0f} GB/s; the simulator's "
         "achievable model moves what NCCL moves per link (injection_bw_per_dir)"),
        (ref * bw / (2 * wire), f"that divides by {2 * wire / 1e9:.0f} GB/s, both directions "
         "added; a GPU receives over one direction of its links"),
        (ref / 2, "that is dispatch alone; combine sends the same rows back"),
        (2 * off.sum(axis=1).mean() / bw * 1e6, "that is the average GPU; the all-to-all "
         "ends when the busiest one is done"),
        (2 * max(m.sum(axis=1).max(), m.sum(axis=0).max()) / bw * 1e6, "the diagonal stays on "
         "the GPU: it crosses no link"),
    ), hint=("per GPU, bytes sent to others = its row of the traffic matrix without the "
             "diagonal, bytes received = its column; the busiest GPU moves the most either way",
             "divide by the per-GPU rate of one direction at NCCL's rates, and count both "
             "dispatch and combine"))


@functools.lru_cache(maxsize=1)
def _wire_kind() -> str:
    from nvlearn.moe import route, simulate_moe
    from nvlearn.topology import ib_cluster

    g, t, e, k, skew, seed, hidden, model = WIRE_CASE
    r = route(g, t, e, k, skew=skew, seed=seed)
    return simulate_moe(ib_cluster(2), r, hidden, model=model).limiting_link_kind()


def wire_limiting_link_kind(answer) -> CheckResult:
    """Exercise 7: the kind of link that limits the skewed flat all-to-all on ``ib_cluster(2)``
    at wire rate (``model="wire"``)."""
    if answer is None:
        return _not_yet("set answer to one of: " + ", ".join(LINK_KIND_KEYS))
    return verify_choice(answer, _wire_kind(), choices=LINK_KIND_KEYS, hint=(
        "at wire rate every link runs at its own capacity: compare the capacities on the hot "
        "GPU's way in (topology.link_capacity, topology.link_label) and read "
        "simulate_moe(..., model=\"wire\").limiting_link()"))


@functools.lru_cache(maxsize=1)
def _explorer_ratio() -> float:
    from nvlearn.widgets.base import fabric_label
    from nvlearn.widgets.moe import moe_run

    (key, nodes), *setting = EXPLORER_CASE
    label = fabric_label(key, nodes)
    t = {m: moe_run(label, *setting, m).time for m in ("flat", "dedup")}
    return t["dedup"] / t["flat"]


def pod_dedup_over_flat(answer) -> CheckResult:
    """Exercise 8: in the explorer (NVLink pod, 2 nodes; 64 experts, top-2, skew 0.5,
    dropless, 1,024 tokens, hidden 4,096), the layer's time with node-limited routing + dedup
    divided by its flat time."""
    if answer is None:
        return _not_yet("set answer to (time with node-limited + dedup) / (flat time), a "
                        "plain number")
    ref = _explorer_ratio()
    return verify(answer, ref, unit="1", rtol=0.02, slips=(
        (1 / ref, "upside down: the question asks dedup time / flat time"),
    ), hint=("set the explorer as the exercise says and read the total time (dispatch + "
             "combine) in its text for routing \"flat\", then for \"node-limited + dedup\"",
             "above 1 means slower with node-limited routing + dedup"))


def dedup_rows_per_token(answer) -> CheckResult:
    """Exercise 9: expected inter-node rows per token when each token is sent once per remote
    node that holds one of its experts: 8 nodes, top-8 of 256 experts, uniform routing."""
    nodes, experts, k = DEDUP_CASE
    per_node = experts // nodes
    miss = math.comb(experts - per_node, k) / math.comb(experts, k)
    ref = (nodes - 1) * (1 - miss)
    return verify(answer, ref, unit="1", rtol=0.004, slips=(
        ((nodes - 1) * (1 - (1 - 1 / nodes) ** k), "close, but the k experts are distinct: "
         "they are drawn without replacement"),
        (nodes * (1 - miss), "the token's own node is not reached over the network: count "
         "the remote nodes only"),
        (k * (nodes - 1) / nodes, "that is the flat all-to-all's rows (one per remote expert), "
         "before de-duplication"),
    ), hint=("by linearity: sum over the remote nodes of P(at least one of the token's k "
             "experts is on that node)", "P(none of k distinct experts on a given node) = "
             "C(E - E/nodes, k) / C(E, k)"))


def needed_node_bw_gbs(answer) -> CheckResult:
    """Exercise 10: the rate per GPU (GB/s, per direction) across nodes at which the flat
    dispatch (FP8) + combine (BF16) of the EP-64 layout take as long as the expert compute at
    BF16 peak."""
    ep, nodes, db, cb = EP_LAYOUT
    row = TOKENS * TOP_K * HIDDEN
    remote = (nodes - 1) / nodes
    compute = expert_compute_seconds()
    ref = row * remote * (db + cb) / compute / 1e9
    return verify(answer, ref, unit="GB/s", rtol=0.01, n_ranks=nodes, slips=(
        (ref * (ep - 1) / ep / remote, "the rows for the GPU's own node go over NVLink: only "
         "those for the other nodes cross the node network"),
        (ref * db / (db + cb), "that is dispatch alone; combine sends the rows back in BF16"),
        (ref * 2 * db / (db + cb), "combine is BF16 (2 bytes per number), not FP8"),
    ), hint=("bytes leaving a GPU's node per layer: tokens x top-k rows x hidden x (bytes in "
             "dispatch + bytes in combine) x the share of experts on other nodes",
             "divide by the expert compute time of section 8 (`compute`)"))
