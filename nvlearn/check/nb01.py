"""Self-checks for notebook 01 (SGD gradient summation and the distributed-training wall)."""

from __future__ import annotations

import math

from nvlearn import specs
from nvlearn.check.core import CheckResult, verify, verify_choice
from nvlearn.sgd.comm import allreduce_time, gpus_per_pod
from nvlearn.sgd.cost import JOULES_PER_KWH
from nvlearn.sgd.steptime import DDP_BUCKET_BYTES, compute_time, grad_bytes, step_time

_TOKEN_BUDGET = 1e12
_BATCH = 2**22


def ring_bytes_per_gpu(answer) -> CheckResult:
    """Exercise 1: GB each GPU sends in a ring all-reduce of a 70B bf16 gradient, one pod."""
    p = gpus_per_pod()
    ref = 2 * (p - 1) / p * grad_bytes(70e9) / 1e9
    return verify(answer, ref, unit="GB", hint="a ring all-reduce sends 2(p-1)/p of the "
                  "buffer per GPU; the buffer is parameters x 2 bytes")


def compute_seconds(answer) -> CheckResult:
    """Exercise 2: compute time of a 7B model on 16,384 tokens, H100 at 40 % MFU."""
    ref = compute_time(7e9, 16384, "h100", 0.4)
    return verify(answer, ref, unit="s", hint="6 x parameters x tokens FLOPs, over the dense "
                  "(not sparse) bf16 peak times the utilisation")


def dgx_allreduce_ms(answer) -> CheckResult:
    """Exercise 3: bandwidth-only ring all-reduce time of a 7B bf16 gradient in one DGX H100."""
    p = specs.system("dgx_h100").gpus
    ref = 2 * (p - 1) / p * grad_bytes(7e9) / specs.nvlink(4).gpu_bw_per_dir * 1e3
    return verify(answer, ref, unit="ms", rtol=0.02, hint="bytes each GPU sends, over its "
                  "NVLink bandwidth in ONE direction (not the 900 GB/s headline)")


def bucket_count(answer) -> CheckResult:
    """Exercise 4: DDP buckets (25 MiB cap) for a 7B bf16 gradient."""
    ref = math.ceil(grad_bytes(7e9) / DDP_BUCKET_BYTES)
    return verify(answer, ref, unit="1", rtol=0.0, atol=0.5, hint="25 MiB is 25 x 2**20 "
                  "bytes; the last bucket is partly empty but still counts")


def halved_batch_effect(answer) -> CheckResult:
    """Exercise 5: halving the global batch at 8,192 GPUs — efficiency up, down or same?"""
    a = step_time(7e9, 8192, "ib_cluster", global_batch_tokens=_BATCH).efficiency
    b = step_time(7e9, 8192, "ib_cluster", global_batch_tokens=_BATCH / 2).efficiency
    correct = "up" if b > a else ("down" if b < a else "same")
    return verify_choice(answer, correct, choices=("up", "down", "same"),
                         hint="which of compute and all-reduce depends on the tokens per GPU?")


def idle_energy_mwh(answer) -> CheckResult:
    """Exercise 6: MWh spent waiting for the 70B all-reduce on 4,096 IB GPUs over 1e12 tokens."""
    n = 4096
    t = allreduce_time("ib_cluster", n, grad_bytes(70e9)).time
    ref = t * n * specs.gpu("h100").board_power * (_TOKEN_BUDGET / _BATCH) / JOULES_PER_KWH / 1e3
    return verify(answer, ref, unit="MWh", rtol=0.02, hint="idle GPU-seconds per step = GPUs x "
                  "all-reduce time; steps = tokens / batch; joules = W x s; 1 MWh = 3.6e9 J")
