"""The step time of data-parallel training: compute from FLOPs, communication from the fabric,
and how much of the communication DDP-style bucketing can hide.

Compute (the MFU convention of the PaLM paper, Chowdhery et al. 2022, appendix B): a dense
transformer with ``P`` parameters spends about ``6 P`` FLOPs per token in training — ``2 P``
forward, ``4 P`` backward (Kaplan et al. 2020) — so one GPU's step on ``T`` tokens takes::

    t_compute = 6 P T / (peak bf16 dense FLOP/s x MFU)

with the model FLOPs utilisation ``MFU`` a stated parameter (:data:`DEFAULT_MFU`), the peak
from the catalogue. Attention FLOPs and the optimizer step are left out.

Communication: one all-reduce of the gradient (``P x bytes per element``) per step — or
one per bucket, with overlap — timed by :func:`nvlearn.sgd.comm.allreduce_time` on the
chosen fabric. By default (``model="achievable"``) every all-reduce, every bucket's too, runs
the algorithm and protocol NCCL's tuner picks for its size, at NCCL's predicted time;
``model="wire"`` forces a ring at link rate instead, for contrast.

Overlap (PyTorch DDP, Li et al. 2020): gradients are grouped into buckets of
``bucket_bytes`` (:data:`DDP_BUCKET_BYTES`, DDP's ``bucket_cap_mb=25`` default) in reverse
layer order. The backward pass produces gradient bytes at a constant rate (its FLOPs are
spread evenly over the parameters, as in a stack of equal transformer blocks); a bucket's
all-reduce starts when the bucket is full *and* the previous bucket's all-reduce is done
(one communication stream). The step ends when the last all-reduce ends; what sticks out
past the end of the backward pass is the *exposed* communication. Without overlap, one
all-reduce of the whole gradient starts after the backward pass. Communication is assumed
not to slow the compute down (in reality it takes some SMs and memory bandwidth).

Scaling efficiency = compute time / step time: the fraction of linear speed-up that is
achieved, since the compute alone scales perfectly in this model.

References
----------
A. Chowdhery et al., "PaLM: scaling language modeling with Pathways", arXiv:2204.02311, 2022,
appendix B (model FLOPs utilisation).
J. Kaplan et al., "Scaling laws for neural language models", arXiv:2001.08361, 2020 (about
``6 P`` training FLOPs per token).
S. Li et al., "PyTorch Distributed: experiences on accelerating data parallel training",
PVLDB 13(12):3005-3018, 2020 (DDP's gradient buckets and their overlap with backward).

Examples
--------
>>> st = step_time(7e9, 256, "nvlink_pod", global_batch_tokens=2**22, mfu=0.4)
>>> round(st.compute, 3), round(st.efficiency, 3)        # seconds, fraction
(1.739, 0.975)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nvlearn import specs
from nvlearn.sgd.comm import (
    MODELS,
    CommEstimate,
    allreduce_time,
    check_fabric,
    check_gpu_count,
    check_model,
)

__all__ = [
    "DDP_BUCKET_BYTES", "FLOPS_PER_PARAM_TOKEN", "BACKWARD_FRACTION", "DEFAULT_MFU",
    "DEFAULT_GLOBAL_BATCH_TOKENS", "GRAD_BYTES", "MODEL_SIZES", "compute_time", "grad_bytes",
    "StepTimeline", "bucket_schedule", "StepTime", "step_time", "SCALING_GPUS", "scaling",
]

#: PyTorch DDP's default bucket: ``bucket_cap_mb=25`` (mebibytes in its implementation).
DDP_BUCKET_BYTES = 25 * 2**20
#: Training FLOPs per parameter per token: 2 forward + 4 backward.
FLOPS_PER_PARAM_TOKEN = 6.0
#: Backward share of the training FLOPs (4 of the 6).
BACKWARD_FRACTION = 4.0 / 6.0
#: Default model FLOPs utilisation (a stated assumption; PaLM 540B reported 46.2 %).
DEFAULT_MFU = 0.4
#: Default global batch: 4M tokens (2**22), Llama 2's global batch (Touvron et al. 2023).
DEFAULT_GLOBAL_BATCH_TOKENS = 2**22
#: Bytes per gradient element.
GRAD_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}
#: Nominal model sizes used in the notebook (parameters).
MODEL_SIZES = {"1B": 1e9, "7B": 7e9, "13B": 13e9, "70B": 70e9}


def _positive(value, what: str, unit: str) -> float:
    if isinstance(value, bool) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a positive number of {unit}, got {value!r}")
    return float(value)


def compute_time(n_params: float, tokens: float, gpu: str = "h100",
                 mfu: float = DEFAULT_MFU) -> float:
    """Seconds for one GPU to run forward + backward on ``tokens`` tokens.

    ``6 x n_params x tokens / (bf16 dense FLOP/s x mfu)``.

    Parameters
    ----------
    n_params : float
        Model parameters P; > 0.
    tokens : float
        Tokens this GPU processes in the step; > 0.
    gpu : str
        Catalogue GPU key; its peak bf16 dense FLOP/s is used.
    mfu : float
        Model FLOPs utilisation, 0 < mfu <= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(compute_time(7e9, 16384, mfu=0.4), 4)     # 6.9e14 FLOP / 395.8 TFLOP/s
    1.7386
    """
    _positive(n_params, "n_params", "parameters")
    _positive(tokens, "tokens", "tokens")
    if not 0 < mfu <= 1:
        raise ValueError(f"mfu is a fraction of peak, 0 < mfu <= 1; got {mfu!r}")
    peak = specs.gpu(gpu).bf16_dense_flops
    if peak is None:
        raise ValueError(f"the catalogue has no bf16 dense FLOP/s for {gpu!r}; use a GPU "
                         "with bf16 tensor cores (a100, h100, h200, b200)")
    return FLOPS_PER_PARAM_TOKEN * n_params * tokens / (peak * mfu)


def grad_bytes(n_params: float, grad_dtype: str = "bfloat16") -> float:
    """Bytes of one full gradient.

    Examples
    --------
    >>> grad_bytes(7e9) / 1e9
    14.0
    """
    if grad_dtype not in GRAD_BYTES:
        raise ValueError(f"grad_dtype must be one of {tuple(GRAD_BYTES)}, got {grad_dtype!r}")
    return _positive(n_params, "n_params", "parameters") * GRAD_BYTES[grad_dtype]


@dataclass(frozen=True)
class StepTimeline:
    """One step on one GPU: compute phases and the all-reduce of each bucket (seconds).

    Attributes
    ----------
    forward_end, backward_end : float
        Forward pass ``[0, forward_end]``, backward ``[forward_end, backward_end]``.
    bucket_bytes : ndarray
        Size of each bucket, in the order they are produced (reverse layer order).
    bucket_ready, comm_start, comm_end : ndarray
        When each bucket is full, when its all-reduce starts, when it ends.
    """

    forward_end: float
    backward_end: float
    bucket_bytes: np.ndarray
    bucket_ready: np.ndarray
    comm_start: np.ndarray
    comm_end: np.ndarray

    @property
    def end(self) -> float:
        """Step end, seconds."""
        return float(max(self.backward_end, self.comm_end.max(initial=0.0)))

    def comm_intervals(self) -> np.ndarray:
        """Busy intervals of the communication stream, touching buckets merged, shape (m, 2).

        Examples
        --------
        >>> tl = StepTimeline(1.0, 3.0, np.ones(3), np.array([1.5, 2, 3]),
        ...               np.array([1.5, 2, 3]), np.array([2.0, 2.5, 3.5]))
        >>> tl.comm_intervals().tolist()
        [[1.5, 2.5], [3.0, 3.5]]
        """
        if self.comm_start.size == 0:
            return np.zeros((0, 2))
        gap = self.comm_start[1:] > self.comm_end[:-1] * (1 + 1e-12)
        first = np.concatenate([[0], np.flatnonzero(gap) + 1])
        last = np.concatenate([first[1:] - 1, [self.comm_start.size - 1]])
        return np.stack([self.comm_start[first], self.comm_end[last]], axis=1)


def bucket_schedule(forward: float, backward: float, total_bytes: float, bucket_bytes: float,
                    comm_time) -> StepTimeline:
    """Place each bucket's all-reduce after the bucket fills and the previous one ends.

    Parameters
    ----------
    forward, backward : float
        Seconds.
    total_bytes, bucket_bytes : float
        Gradient size and bucket cap, bytes (the last bucket holds the remainder).
    comm_time : callable
        ``comm_time(n_bytes) -> seconds`` for one all-reduce.

    Returns
    -------
    StepTimeline
        Bucket sizes (bytes) and when each bucket is ready, starts and ends (seconds).

    Examples
    --------
    >>> tl = bucket_schedule(1.0, 2.0, 4.0, 1.0, lambda n: 0.25)
    >>> tl.bucket_ready.tolist(), tl.comm_end.tolist()
    ([1.5, 2.0, 2.5, 3.0], [1.75, 2.25, 2.75, 3.25])
    """
    n_full = int(total_bytes // bucket_bytes)
    rest = total_bytes - n_full * bucket_bytes
    sizes = np.full(n_full, float(bucket_bytes))
    if rest > 1e-9 * total_bytes or n_full == 0:
        sizes = np.append(sizes, rest if n_full else total_bytes)
    ready = forward + backward * np.cumsum(sizes) / total_bytes
    ready[-1] = forward + backward  # the last bucket fills exactly at the end of backward
    unique = {float(s): float(comm_time(float(s))) for s in np.unique(sizes)}
    dur = np.array([unique[float(s)] for s in sizes])
    # end_i = max(ready_i, end_{i-1}) + dur_i  ==  C_i + max_{j<=i}(ready_j - C_{j-1})
    c = np.cumsum(dur)
    c_prev = c - dur
    end = c + np.maximum.accumulate(ready - c_prev)
    return StepTimeline(forward, forward + backward, sizes, ready, end - dur, end)


@dataclass(frozen=True)
class StepTime:
    """The modelled step of one configuration (seconds unless stated).

    Attributes
    ----------
    n_params, n_gpus, fabric, global_batch_tokens, tokens_per_gpu, mfu, overlap, bucket_bytes,
    model
        The configuration (``model``: ``"achievable"`` or ``"wire"``, see
        :func:`nvlearn.sgd.comm.allreduce_time`).
    compute : float
        Forward + backward on one GPU's tokens.
    comm : float
        One all-reduce of the whole gradient (:attr:`allreduce`'s time).
    exposed_comm : float
        Communication not hidden behind compute: ``step - compute``.
    step : float
    allreduce : NCCLEstimate or WireEstimate
        The full-gradient all-reduce (NCCL's choice, or the wire model's stages).
    timeline : StepTimeline
    """

    n_params: float
    n_gpus: int
    fabric: str
    global_batch_tokens: float
    tokens_per_gpu: float
    mfu: float
    overlap: bool
    bucket_bytes: float
    model: str
    grad_bytes: float
    compute: float
    comm: float
    exposed_comm: float
    step: float
    allreduce: CommEstimate
    timeline: StepTimeline

    @property
    def efficiency(self) -> float:
        """Scaling efficiency, ``compute / step`` (1 = perfect linear scaling)."""
        return self.compute / self.step

    @property
    def comm_busy(self) -> float:
        """Seconds the communication stream is busy in a step (all buckets)."""
        tl = self.timeline
        return float(np.sum(tl.comm_end - tl.comm_start))


def step_time(
    n_params: float,
    n_gpus: int,
    fabric: str,
    *,
    global_batch_tokens: float = DEFAULT_GLOBAL_BATCH_TOKENS,
    mfu: float = DEFAULT_MFU,
    gpu: str = "h100",
    grad_dtype: str = "bfloat16",
    overlap: bool = False,
    bucket_bytes: float = DDP_BUCKET_BYTES,
    model: str = MODELS[0],
) -> StepTime:
    """Model one data-parallel training step (strong scaling: the global batch is fixed).

    Parameters
    ----------
    n_params : float
        Model parameters (7e9 for a 7B model).
    n_gpus : int
        Data-parallel GPUs (see :func:`nvlearn.sgd.comm.check_gpu_count`).
    fabric : {"pcie_box", "ib_cluster", "nvlink_pod"}
        A key of :data:`nvlearn.sgd.comm.FABRICS`.
    global_batch_tokens : float
        Tokens per step over all GPUs; each GPU gets ``global_batch_tokens / n_gpus``.
    mfu : float
        Model FLOPs utilisation, 0 < mfu <= 1.
    gpu : str
        Catalogue GPU key (peak bf16 dense FLOP/s).
    grad_dtype : {"bfloat16", "float16", "float32"}
        Gradient element type on the wire.
    overlap : bool
        DDP-style bucketing with all-reduce overlapped with the backward pass.
    bucket_bytes : float
        Bucket cap, bytes (used when ``overlap``).
    model : {"achievable", "wire"}
        How every all-reduce is timed: NCCL's choice per size (default), or a ring at link
        rate (:func:`nvlearn.sgd.comm.allreduce_time`).

    Returns
    -------
    StepTime
        Compute, communication, exposed communication and the step, in seconds; the
        all-reduce estimate and the bucket timeline.

    Examples
    --------
    >>> a = step_time(70e9, 1024, "ib_cluster")
    >>> b = step_time(70e9, 1024, "ib_cluster", overlap=True)
    >>> b.exposed_comm < a.exposed_comm
    True
    """
    check_fabric(fabric)
    check_model(model)
    n = check_gpu_count(fabric, n_gpus)
    batch = _positive(global_batch_tokens, "global_batch_tokens", "tokens")
    if batch < n:
        raise ValueError(
            f"global_batch_tokens ({batch:g}) is smaller than n_gpus ({n}); every GPU needs "
            "at least one token per step: raise the batch or use fewer GPUs"
        )
    bucket = _positive(bucket_bytes, "bucket_bytes", "bytes")
    tokens = batch / n
    compute = compute_time(n_params, tokens, gpu, mfu)
    total = grad_bytes(n_params, grad_dtype)
    full = allreduce_time(fabric, n, total, model)
    backward = BACKWARD_FRACTION * compute
    forward = compute - backward
    if n == 1:
        tl = StepTimeline(forward, compute, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))
    elif overlap:
        tl = bucket_schedule(forward, backward, total, bucket,
                             lambda b: allreduce_time(fabric, n, b, model).time)
    else:
        tl = StepTimeline(forward, compute, np.array([total]), np.array([compute]),
                      np.array([compute]), np.array([compute + full.time]))
    step = tl.end
    return StepTime(
        n_params=float(n_params), n_gpus=n, fabric=fabric, global_batch_tokens=batch,
        tokens_per_gpu=tokens, mfu=float(mfu), overlap=bool(overlap), bucket_bytes=bucket,
        model=model, grad_bytes=total, compute=compute, comm=full.time, exposed_comm=step - compute,
        step=step, allreduce=full, timeline=tl,
    )


#: GPU counts of the scaling study: one node, powers of two up to one pod, then to 8,192.
SCALING_GPUS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


def scaling(n_params: float, fabric: str, gpu_counts=SCALING_GPUS, **kwargs) -> list[StepTime]:
    """:func:`step_time` for each GPU count (keyword arguments passed on).

    Parameters
    ----------
    n_params : float
        Model parameters.
    fabric : {"pcie_box", "ib_cluster", "nvlink_pod"}
        The fabric.
    gpu_counts : sequence of int
        GPU counts to model (default :data:`SCALING_GPUS`).
    **kwargs
        Keyword arguments of :func:`step_time` (``global_batch_tokens``, ``mfu``, ``overlap``,
        ``model`` ...).

    Returns
    -------
    list of StepTime
        One per GPU count, times in seconds.

    Examples
    --------
    >>> effs = [s.efficiency for s in scaling(7e9, "ib_cluster", (8, 64, 512))]
    >>> effs == sorted(effs, reverse=True)
    True
    """
    return [step_time(n_params, n, fabric, **kwargs) for n in gpu_counts]
