"""Self-checks for notebook 04 (all-reduce: ring, tree, SHARP / NVLS, and NCCL's choice).

Every reference is computed by the package (collectives, tuner, specs), never typed in. The
exercises are re-parameterised so that none is printed above them: the notebook works 8 GPUs
and 1 GiB through; the exercises ask about 6, 4 and 36 GPUs, 3 GiB and a 256-GPU cluster.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nvlearn import collectives, specs, tuner
from nvlearn.check.core import CheckResult, verify
from nvlearn.collectives.metrics import busbw_factor
from nvlearn.collectives.volume import (
    ideal_in_network_speedup,
    ring_allreduce_bytes_per_rank,
)

_GIB = 2**30


def _topology(kind: str):
    from nvlearn.topology import fabric

    return fabric("dgx_h100") if kind == "dgx" else fabric("ib_cluster", 4)


def _dgx_gpus() -> int:
    return specs.system("dgx_h100").gpus


__all__ = [
    "BUSBW_TIME", "dgx_crossover_mib", "explorer_times", "ib256_ring_over_fastest",
    "lower_bound_ms", "nvl36_ideal_speedup", "nvls_busbw_gbs", "ring_ll_latency_us",
    "segment_rule",
]


def segment_rule(fn: Callable, p: int = 6) -> CheckResult:
    """Exercise 1: ``fn(rank, step, p)`` is the segment a rank sends at reduce-scatter step
    ``step`` of the ring all-reduce, checked against the library's schedule on ``p`` GPUs
    (the notebook prints the table for 8)."""
    if not callable(fn):
        return CheckResult(False, "not yet — pass the function itself (its name, no brackets)")
    ring = collectives.allreduce(p, p * 8.0, "ring")
    for rank in range(p):
        sent = ring.op_chunk[ring.op_src == rank][: p - 1]
        for step in range(p - 1):
            try:
                got = fn(rank, step, p)
            except Exception as err:  # the learner's code: report, never raise
                return CheckResult(False, f"not yet — your function raised "
                                          f"{type(err).__name__}: {err}")
            if got is None:
                return CheckResult(False, "not yet — the function returns None: write its body")
            if got != int(sent[step]):
                return CheckResult(False, (
                    f"not yet — on {p} GPUs, rank {rank} at step {step} sends another segment. "
                    "At step 0 each rank sends the segment its left neighbour will finish; each "
                    "step moves one segment further back, modulo p"))
    return CheckResult(True, "right")


def lower_bound_ms(answer) -> CheckResult:
    """Exercise 2: bandwidth lower bound (ms) for a 3 GiB all-reduce on 4 GPUs of a DGX H100
    at the NVLink 4 rate."""
    ref = (ring_allreduce_bytes_per_rank(4, 3 * _GIB)
           / specs.nvlink(4).gpu_bw_per_dir * 1e3)
    return verify(answer, ref, unit="ms", rtol=0.01, n_ranks=4, hint=(
        "bytes each GPU must send, 2(p-1)/p of the buffer, over its NVLink bandwidth in ONE "
        "direction", "3 GiB = 3 x 2**30 bytes; p = 4"))


def ring_ll_latency_us(answer) -> CheckResult:
    """Exercise 3: NCCL's predicted Ring/LL latency (us) for an all-reduce on 4 GPUs of a DGX."""
    t = tuner.tune("allreduce", _topology("dgx"), n_ranks=4)
    ref = next(c for c in t.candidates if c.label == "Ring/LL").latency * 1e6
    return verify(answer, ref, unit="us", rtol=0.01, hint="baseLat[Ring][LL] + nsteps x "
                  "hwLat[NVLink][Ring][LL], with nsteps = 2(p-1) for an all-reduce")


def nvl36_ideal_speedup(answer) -> CheckResult:
    """Exercise 5: ideal in-switch speed-up over the ring with 36 GPUs on one NVLink domain."""
    ref = ideal_in_network_speedup(36)
    return verify(answer, ref, unit="1", rtol=0.002, hint=(
        "ring bytes 2(p-1)/p x n over in-switch bytes (1 + 1/p) x n, per GPU each way",
        "the limit 2 is for p -> infinity; at p = 36 it is a little less"))


#: Exercise 6's measured time (s) of a 4 GiB NVLS all-reduce on 8 GPUs: possible on an H100
#: (the wire bound is n (1 + 1/8) / 450 GB/s = 10.7 ms; the achievable model gives ~15.5 ms).
BUSBW_TIME = 18e-3


def nvls_busbw_gbs(answer) -> CheckResult:
    """Exercise 6: nccl-tests busbw (GB/s) of a 4 GiB NVLS all-reduce on 8 GPUs taking 18 ms."""
    algbw = 4 * _GIB / BUSBW_TIME
    ref = algbw * busbw_factor("allreduce", _dgx_gpus()) / 1e9
    return verify(answer, ref, unit="GB/s", rtol=0.01, hint="algbw = size / time (4 GiB = "
                  "4 x 2**30 bytes); busbw = algbw x 2(n-1)/n whatever the algorithm")


def explorer_times(fabric: str, gpus: int, size: float, model: str = "achievable"):
    """The all-reduce times the explorer draws (closed forms, each algorithm at its best
    pipeline depth), interpolated at ``size``: {algorithm: seconds}.

    Parameters
    ----------
    fabric : {"dgx_h100", "nvlink_pod", "ib_cluster"}
        The explorer's fabric (:data:`nvlearn.widgets.allreduce.FABRICS`).
    gpus : int
        GPUs taking part; one of the explorer's counts for ``fabric``
        (:data:`nvlearn.widgets.allreduce.GPU_COUNTS`).
    size : float
        The all-reduce's buffer, bytes; linear interpolation between the sweep's sizes,
        clamped to its ends.
    model : {"achievable", "wire"}
        The model of the fabric whose rates and latencies the closed forms use
        (:data:`nvlearn.sim.models.MODELS`).

    Returns
    -------
    dict of str to float
        Each algorithm the explorer draws, and its all-reduce time, seconds.
    """
    from nvlearn.widgets.allreduce import _sweep

    sw = _sweep(fabric, gpus, None, model)
    return {a: float(np.interp(size, sw.sizes, sw.row(a))) for a in sw.algorithms}


def ib256_ring_over_fastest(answer) -> CheckResult:
    """Exercise 8: in the explorer (InfiniBand, 256 GPUs, 1 MiB, achievable), how many times
    longer the ring takes than the fastest algorithm drawn."""
    t = explorer_times("ib_cluster", 256, 2**20)
    return verify(answer, t["ring"] / min(t.values()), unit="1", rtol=0.02, hint=(
        "set the explorer to InfiniBand, 256 GPUs, 1 MiB; read the ring's time and the "
        "fastest line's time at the marker", "ring time over the fastest time: above 1"))


def dgx_crossover_mib(answer) -> CheckResult:
    """Exercise 4: size (MiB) where NCCL's model moves from Ring/LL to NVLS on 4 GPUs of a
    DGX H100 (the notebook shows the 8-GPU crossover; the exercise asks for 4)."""
    (x,) = tuner.tune("allreduce", _topology("dgx"), n_ranks=4).crossovers()
    return verify(answer, x.n_bytes / 2**20, unit="MiB", rtol=0.03, hint="solve lat_LL + n / "
                  "algBw_LL = lat_NVLS + n / algBw_NVLS for n; 1 MiB = 2**20 bytes")
