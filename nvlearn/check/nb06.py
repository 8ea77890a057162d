"""Self-checks for notebook 06 (stragglers, degraded links and tail latency).

Every reference is computed by the package (simulator, order statistics, SGD runs).
"""

from __future__ import annotations

import functools

import numpy as np

from nvlearn.check.core import CheckResult, verify, verify_choice

#: Exercise 4 and 6: the jitter model they state (shift, scale in seconds).
SHIFT, SCALE = 1.0, 0.02


@functools.lru_cache(maxsize=2)
def _dgx():
    from nvlearn.topology import dgx_h100

    return dgx_h100()


def two_planes_slowdown(answer) -> CheckResult:
    """Exercise 1: ring slowdown (1 GiB, wire model) with NVSwitch planes 0 and 3 dead."""
    from nvlearn.collectives import allreduce
    from nvlearn.sim import simulate
    from nvlearn.straggle import plane_links
    from nvlearn.topology import with_link_factor

    box = _dgx()
    dead = with_link_factor(box, np.r_[plane_links(box, 0), plane_links(box, 3)], 0.0)
    t = [simulate(b, allreduce(b, 2**30, "ring", chunks=4), model="wire").time
         for b in (box, dead)]
    return verify(answer, t[1] / t[0], unit="1", rtol=0.02, hint=(
        "count the NVLinks each GPU keeps: planes 0 and 3 each had 5 of its 18; the ring's "
        "bandwidth term scales with the links left"))


def slow_link_slowdown(answer) -> CheckResult:
    """Exercise 2: ring slowdown with gpu5 -> nvswitch1 at 80 %, static routing."""
    from nvlearn.straggle import run_fault

    ref = run_fault(_dgx(), "ring", 2**28, "slow_link", gpu=5, plane=1, factor=0.8).slowdown
    return verify(answer, ref, unit="1", rtol=0.02, hint=(
        "with static routing gpu5's flow keeps plane 1's share of its bytes; that share now "
        "moves at 80 % of the link's rate, and the whole flow (and the ring) waits for it"))


def explain_slack(answer) -> CheckResult:
    """Exercise 3 (free text): why a late GPU costs the ring its full delay and NCCL's tree in
    one DGX only a fraction of it. Acknowledged, not graded."""
    words = str(answer).split() if answer is not None else []
    if len(words) < 15:
        return CheckResult(False, "not yet — write two or three sentences (at least 15 words)")
    return CheckResult(True, (
        "noted. Compare with: the ring needs GPU 3 from its first step — each step waits for "
        "the previous GPU and every chunk passes GPU 3 — so the delay lands on the critical "
        "path in full. NCCL's tree in one box is a chain reduced from GPU 7 towards GPU 0: in "
        "the healthy run GPU 3 receives its first piece only after the pipeline has filled "
        "down the chain from GPU 7, so it was idle at the start anyway. Its delay only counts "
        "beyond that slack."))


def backup_workers_k(answer) -> CheckResult:
    """Exercise 4: smallest k with E[(p-k)-th of p = 4096] <= 1.05 x the mean."""
    from nvlearn.straggle import ShiftedExponential

    d, p = ShiftedExponential(SHIFT, SCALE), 4096
    ref = next(k for k in range(p) if d.expected_kth(p - k, p) <= 1.05 * d.mean)
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint=(
        "the (p-k)-th fastest of p exponentials is shift + scale (H_p - H_k); find the "
        "smallest k for which that is at most 1.05 x (shift + scale)"))


@functools.lru_cache(maxsize=1)
def _once_per_epoch() -> str:
    from nvlearn.sgd import MLP, load_digits, train
    from nvlearn.straggle import train_local_sgd

    tr, te = load_digits().split(0.25, seed=0)
    m = MLP(64, 32, 10)
    kw = dict(n_workers=8, batch_size=64, lr=0.5, epochs=10, test_set=te)
    sync = train(m, tr, **kw).epoch_test_accuracy[-1]
    local = train_local_sgd(m, tr, sync_every=10**6, **kw).epoch_test_accuracy[-1]
    return "yes" if abs(local - sync) <= 0.01 else "no"


def local_sgd_once_per_epoch(answer) -> CheckResult:
    """Exercise 5: is local SGD that averages once per epoch within 1 point of synchronous?"""
    return verify_choice(answer, _once_per_epoch(), choices=("yes", "no"), hint=(
        "run it: train_local_sgd(..., sync_every=10**6) averages only at the end of each "
        "epoch; compare the last test accuracy with train(...)'s"))


def idle_gpu_hours(answer) -> CheckResult:
    """Exercise 6: idle GPU-hours at 1,024 GPUs, jitter (1 s, 20 ms), 200,000 steps."""
    from nvlearn.straggle import ShiftedExponential, idle_cost

    ref = idle_cost(ShiftedExponential(SHIFT, SCALE), 1024, 200_000).idle_gpu_hours
    return verify(answer, ref, unit="1", rtol=0.01, hint=(
        "per step every GPU waits, on average, E[max] - mean = scale (H_p - 1); multiply "
        "by p and by the steps, and convert seconds to hours"))
