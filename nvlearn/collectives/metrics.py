"""nccl-tests' bandwidth figures: algorithm bandwidth and bus bandwidth.

nccl-tests reports, for a collective that took ``t`` seconds on ``n`` ranks,

* ``algbw = S / t`` where ``S`` is its "size" (below), and
* ``busbw = algbw * factor``, a figure meant to be comparable with the per-rank hardware
  bandwidth whatever ``n`` is: it is the rate each rank's link must run at to finish the
  collective in ``t`` with an optimal point-to-point algorithm.

=================  ===========================================  ==============
collective         S (bytes)                                    factor
=================  ===========================================  ==============
allreduce          per-rank buffer (count x type size)           2(n-1)/n
reduce_scatter     total array = per-rank output x n             (n-1)/n
allgather          total array = per-rank input x n              (n-1)/n
alltoall           per-rank send buffer (all peers)              (n-1)/n
broadcast, reduce  buffer                                        1
=================  ===========================================  ==============

Because the factor is fixed by the *collective*, an in-network (SHARP/NVLS) all-reduce,
which moves less than 2(n-1)/n per rank, reports a busbw that can exceed the wire rate: it
is "the link bandwidth a ring would need to match this time".

References
----------
NVIDIA nccl-tests, doc/PERFORMANCE.md and src/{all_reduce,reduce_scatter,all_gather,
alltoall,broadcast,reduce}.cu (getBw functions).
"""

from __future__ import annotations

__all__ = ["busbw_factor", "algbw", "busbw"]

_FACTOR_KINDS = {
    "allreduce": "2(n-1)/n",
    "reduce_scatter": "(n-1)/n",
    "allgather": "(n-1)/n",
    "alltoall": "(n-1)/n",
    "broadcast": "1",
    "reduce": "1",
}


def busbw_factor(collective: str, n_ranks: int) -> float:
    """nccl-tests' busbw / algbw factor for ``collective`` on ``n_ranks`` ranks.

    Examples
    --------
    >>> busbw_factor("allreduce", 8)
    1.75
    >>> busbw_factor("allgather", 8)
    0.875
    """
    if collective not in _FACTOR_KINDS:
        known = tuple(_FACTOR_KINDS)
        raise ValueError(f"unknown collective {collective!r}; expected one of {known}")
    if n_ranks < 1:
        raise ValueError(f"n_ranks must be >= 1, got {n_ranks}")
    kind = _FACTOR_KINDS[collective]
    if kind == "2(n-1)/n":
        return 2.0 * (n_ranks - 1) / n_ranks
    if kind == "(n-1)/n":
        return (n_ranks - 1) / n_ranks
    return 1.0


def algbw(n_bytes: float, time: float) -> float:
    """Algorithm bandwidth ``S / t`` in bytes/s (``S`` as nccl-tests defines it).

    Examples
    --------
    >>> algbw(1e9, 0.01)
    100000000000.0
    """
    if not time > 0:
        raise ValueError(f"time must be > 0 seconds, got {time}")
    if not n_bytes > 0:
        raise ValueError(f"size must be > 0 bytes, got {n_bytes}")
    return float(n_bytes) / float(time)


def busbw(collective: str, n_bytes: float, n_ranks: int, time: float) -> float:
    """Bus bandwidth in bytes/s: ``algbw * busbw_factor(collective, n_ranks)``.

    Parameters
    ----------
    collective : str
        "allreduce", "reduce_scatter", "allgather", "alltoall", "broadcast" or "reduce".
    n_bytes : float
        nccl-tests' "size" in bytes (per-rank buffer for all-reduce, total array for
        reduce-scatter / all-gather); > 0.
    n_ranks : int
        Ranks p.
    time : float
        Measured or simulated time, seconds; > 0.

    Returns
    -------
    float
        Bus bandwidth, bytes/s per rank per direction (comparable to a link's rate).

    Examples
    --------
    >>> busbw("allreduce", 1e9, 8, 0.01) / 1e9   # GB/s
    175.0
    """
    return algbw(n_bytes, time) * busbw_factor(collective, n_ranks)
