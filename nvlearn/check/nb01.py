"""Self-checks for notebook 01 (SGD gradient summation and the distributed-training wall).

Every reference is computed by :mod:`nvlearn.sgd`; hints never contain the answer. The
exercises are re-parameterised so that none is printed above them: the notebook works a 7B
model on H100s at the 4M-token batch; the exercises ask about uneven shards, a 13B model on
a B200, other batches, 4,096 GPUs and a 70B gradient.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify
from nvlearn.sgd.comm import allreduce_time
from nvlearn.sgd.cost import JOULES_PER_KWH
from nvlearn.sgd.data import load_digits
from nvlearn.sgd.models import SoftmaxRegression
from nvlearn.sgd.parallel import worker_gradients
from nvlearn.sgd.steptime import DDP_BUCKET_BYTES, compute_time, grad_bytes, step_time

__all__ = [
    "BATCH_CHOICES", "BUCKET_CHOICES", "batch_for_efficiency", "best_bucket_efficiency",
    "compute_seconds", "dp_update_function", "idle_energy_mwh", "smallest_batch",
]

_TOKEN_BUDGET = 1e12
_BATCH = 2**22
#: Global batches (tokens) exercise 4 chooses from: 2**20 ... 2**26.
BATCH_CHOICES = tuple(2**k for k in range(20, 27))
#: The explorer's bucket sizes (bytes), as exercise 5 uses them.
BUCKET_CHOICES = (DDP_BUCKET_BYTES, 100 * 2**20, 2**30)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def dp_update_function(fn: Callable) -> CheckResult:
    """Exercise 1: ``fn(w, shard_grad_sums, lr, batch_size)`` takes one data-parallel SGD step.

    Checked on 61 digits over 8 workers: the shards differ by a sample, so averaging the
    workers' mean gradients is not the large-batch step."""
    if not callable(fn):
        return CheckResult(False, "not yet — pass the function itself (its name, no brackets)")
    digits = load_digits()
    X, y = digits.X[:61], digits.y[:61]
    model = SoftmaxRegression(64, 10)
    w, lr = model.init(1), 0.5
    _, shards = worker_gradients(model, w, X, y, 8)
    _, whole = worker_gradients(model, w, X, y, 1)
    ref = w - lr * whole[0] / len(y)
    try:
        got = fn(w.copy(), shards.copy(), lr, len(y))
    except Exception as err:  # the learner's code: report, never raise
        return CheckResult(False, f"not yet — your function raised {type(err).__name__}: {err}")
    if got is None:
        return CheckResult(False, "not yet — the function returns None: write its body")
    got = np.asarray(got, dtype=float)
    if got.shape != ref.shape:
        return CheckResult(False, f"not yet — the new weights have shape {got.shape}, the old "
                                  f"ones {ref.shape}: return the whole updated vector")
    if _rel(got, ref) < 1e-12:
        return CheckResult(True, "right")
    means = np.array([g / len(idx) for g, idx in
                      zip(shards, np.array_split(np.arange(len(y)), 8), strict=True)])
    if _rel(got, w - lr * means.mean(axis=0)) < 1e-12:
        return CheckResult(False, "not yet — that averages the workers' mean gradients; the "
                                  "shards here differ by a sample, so divide the summed "
                                  "gradient by the batch size B")
    if _rel(got, w - lr * shards.sum(axis=0) / 8) < 1e-12:
        return CheckResult(False, "not yet — divided by the number of workers; each worker "
                                  "sends its shard's summed gradient: divide by B")
    return CheckResult(False, "not yet — w minus the learning rate times (the sum of all "
                              "shard gradients, from an all-reduce) over the batch size")


def compute_seconds(answer) -> CheckResult:
    """Exercise 3: compute time of a 13B model on 8,192 tokens, B200 at 35 % MFU."""
    ref = compute_time(13e9, 8192, "b200", 0.35)
    return verify(answer, ref, unit="s", hint=(
        "6 x parameters x tokens FLOPs, over the dense (not sparse) bf16 peak "
        "(specs.gpu('b200').bf16_dense_flops) times the utilisation",
        "2P forward + 4P backward per token: 6 P T in all"))


def smallest_batch(threshold: float = 0.8, n_gpus: int = 8192,
                   fabric: str = "ib_cluster") -> float:
    """The smallest global batch of :data:`BATCH_CHOICES` at which a 7B step (no overlap)
    reaches ``threshold`` efficiency, or NaN.

    Parameters
    ----------
    threshold : float
        The efficiency to reach: compute time over step time, in (0, 1].
    n_gpus : int
        Data-parallel GPUs, >= 1.
    fabric : {"pcie_box", "ib_cluster", "nvlink_pod"}
        The fabric the gradients' all-reduce crosses (:func:`nvlearn.sgd.steptime.step_time`).

    Returns
    -------
    float
        The batch, tokens per step over all GPUs; NaN if no batch of :data:`BATCH_CHOICES`
        reaches ``threshold``.
    """
    for batch in BATCH_CHOICES:
        if step_time(7e9, n_gpus, fabric, global_batch_tokens=batch).efficiency >= threshold:
            return float(batch)
    return float("nan")


def batch_for_efficiency(answer) -> CheckResult:
    """Exercise 4: the smallest power-of-two global batch giving 80 % efficiency at 8,192
    InfiniBand GPUs (7B, no overlap)."""
    return verify(answer, smallest_batch(), unit="1", rtol=1e-9, hint=(
        "sgd.step_time(7e9, 8192, 'ib_cluster', global_batch_tokens=...) for 2**20 ... 2**26; "
        "read .efficiency",
        "the smallest batch whose efficiency is at or above 0.8, in tokens (e.g. 2**22)"))


def best_bucket_efficiency(answer) -> CheckResult:
    """Exercise 5: efficiency (%) of a 7B step at 4,096 InfiniBand GPUs with DDP overlap, at
    the best of the explorer's bucket sizes."""
    ref = max(step_time(7e9, 4096, "ib_cluster", overlap=True, bucket_bytes=b).efficiency
              for b in BUCKET_CHOICES)
    return verify(answer, 100 * ref, unit="%", rtol=0.005, hint=(
        "in the explorer: 4,096 GPUs, 4M tokens, InfiniBand, 7B, overlap on; try each bucket "
        "size and read the efficiency",
        "the best of the three bucket sizes, not the default one"))


def idle_energy_mwh(answer) -> CheckResult:
    """Exercise 7: MWh spent waiting for the 70B all-reduce on 4,096 IB GPUs over 1e12 tokens."""
    n = 4096
    t = allreduce_time("ib_cluster", n, grad_bytes(70e9)).time
    ref = t * n * specs.gpu("h100").board_power * (_TOKEN_BUDGET / _BATCH) / JOULES_PER_KWH / 1e3
    return verify(answer, ref, unit="MWh", rtol=0.02, hint=(
        "idle GPU-seconds per step = GPUs x all-reduce time; steps = tokens / batch",
        "joules = W x s; 1 MWh = 3.6e9 J"))
