"""Self-checks for notebook 06 (stragglers, degraded links and tail latency).

Every reference is computed by the package (simulator, order statistics, SGD runs); hints never
contain the answer. A check given ``None`` (the blank release) says "not yet" without running a
simulation or a training run, so the learners' copy runs quickly.
"""

from __future__ import annotations

import functools

import numpy as np

from nvlearn.check.core import CheckResult, _not_yet, verify, verify_choice

__all__ = [
    "SCALE", "SHIFT", "TREE_SEVERITY", "backup_workers_k", "idle_gpu_hours",
    "local_sgd_once_per_epoch", "slow_link_slowdown", "tree_delay_share", "two_planes_slowdown"
]

#: Exercises 5 and 7: the jitter model they state (shift, scale in seconds).
SHIFT, SCALE = 1.0, 0.02
#: Exercise 4: the explorer's slow GPU at this severity (1 ms late), NCCL's tree in one DGX.
TREE_SEVERITY = 1.0


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

    if answer is None:
        return _not_yet("set answer to the predicted slowdown, a plain number")
    box = _dgx()
    dead = with_link_factor(box, np.r_[plane_links(box, 0), plane_links(box, 3)], 0.0)
    t = [simulate(b, allreduce(b, 2**30, "ring", chunks=4), model="wire").time
         for b in (box, dead)]
    return verify(answer, t[1] / t[0], unit="1", rtol=0.02, hint=(
        "count the NVLinks each GPU keeps: planes 0 and 3 each had 5 of its 18; the ring's "
        "bandwidth term scales with the links left"))


def slow_link_slowdown(answer) -> CheckResult:
    """Exercise 2: ring slowdown with gpu5 -> nvswitch1 at 80 %, routing that follows the
    capacity left (``routing="adaptive"``)."""
    if answer is None:
        return _not_yet("set answer to the slowdown, a plain number")
    from nvlearn.straggle import run_fault

    ref = run_fault(_dgx(), "ring", 2**28, "slow_link", gpu=5, plane=1, factor=0.8,
                    routing="adaptive").slowdown
    return verify(answer, ref, unit="1", rtol=0.01, hint=(
        "with adaptive routing GPU 5 is no longer held to plane 1's share: it loses only the "
        "missing part of that one bundle",
        "the bound: GPU 5's link capacity healthy / with the fault (count its NVLinks per plane)"))


def tree_delay_share(answer) -> CheckResult:
    """Exercise 4: the fraction of a 1 ms delay of GPU 3 that NCCL's tree all-reduce loses in
    one DGX H100 (the explorer's slow GPU at severity 1)."""
    if answer is None:
        return _not_yet("set answer to (time with the fault - healthy time) / delay, a plain "
                        "number")
    from nvlearn.widgets.stragglers import MAX_DELAY, fabric_choices, fault_run

    run = fault_run(next(iter(fabric_choices())), "slow_gpu", TREE_SEVERITY, "nccl_tree")
    ref = (run.time - run.healthy.time) / (TREE_SEVERITY * MAX_DELAY)
    return verify(answer, ref, unit="1", rtol=0.02, hint=(
        "read the healthy and faulty times in the explorer's text (one DGX H100, slow GPU, "
        "severity 1, NCCL tree); the delay is severity x 1 ms",
        "a fraction between 0 (all hidden) and 1 (all lost)"))


def backup_workers_k(answer) -> CheckResult:
    """Exercise 5: smallest k with E[(p-k)-th of p = 4096] <= 1.05 x the mean."""
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
    """Exercise 6: is local SGD that averages once per epoch within 1 point of synchronous?"""
    if answer is None:
        return _not_yet('set answer to "yes" or "no" after the run')
    return verify_choice(answer, _once_per_epoch(), choices=("yes", "no"), hint=(
        "run it: train_local_sgd(..., sync_every=10**6) averages only at the end of each "
        "epoch; compare the last test accuracy with train(...)'s"))


def idle_gpu_hours(answer) -> CheckResult:
    """Exercise 7: idle GPU-hours at 1,024 GPUs, jitter (1 s, 20 ms), 200,000 steps."""
    from nvlearn.straggle import ShiftedExponential, idle_cost

    ref = idle_cost(ShiftedExponential(SHIFT, SCALE), 1024, 200_000).idle_gpu_hours
    return verify(answer, ref, unit="1", rtol=0.01, hint=(
        "per step every GPU waits, on average, E[max] - mean = scale (H_p - 1); multiply "
        "by p and by the steps, and convert seconds to hours"))
