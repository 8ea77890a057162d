"""How many bytes each GPU must send for an all-reduce, by algorithm.

These are the per-rank bandwidth terms of the cost models, in bytes:

* ring (or any point-to-point algorithm at its lower bound): each rank sends, and receives,
  ``2 (p-1)/p * n`` (Patarasuk & Yuan 2009);
* in-switch reduction as NCCL runs NVLink SHARP (NVLS) inside one NVSwitch domain: rank r
  owns a ``1/p`` shard. The switch pulls every rank's copy of each shard, adds them and
  returns the sum to the shard's owner (rank r sends all ``n`` of its bytes, receives
  ``n/p``); then each owner multicasts its reduced shard through the switch to everyone
  (sends ``n/p``, receives the ``n`` bytes of all shards). Each way: ``n (1 + 1/p)``.

The ratio of the two is the traffic an in-network reduction saves:
``1 - (1 + 1/p) / (2 (p-1)/p) = 1 - (p+1) / (2(p-1))`` — 36 % at p = 8, approaching 50 %
only as p grows. (The article's "cut the data by 50 %" is the large-p limit.)

References
----------
P. Patarasuk and X. Yuan, J. Parallel Distrib. Comput. 69(2), 2009 (ring lower bound).
NVIDIA NCCL 2.30 src/graph/tuning.cc (NVLS bandwidth model).
"""

from __future__ import annotations

__all__ = [
    "ring_allreduce_bytes_per_rank", "nvls_allreduce_bytes_per_rank", "in_network_traffic_saving",
    "ideal_in_network_speedup",
]


def _check(p: int, n_bytes: float) -> None:
    if int(p) != p or p < 2:
        raise ValueError(f"an all-reduce needs at least 2 ranks, got p={p}")
    if not n_bytes > 0:
        raise ValueError(f"n_bytes must be > 0, got {n_bytes}")


def ring_allreduce_bytes_per_rank(p: int, n_bytes: float) -> float:
    """Bytes each rank sends (and receives) in a ring all-reduce: ``2 (p-1)/p * n``.

    Examples
    --------
    >>> ring_allreduce_bytes_per_rank(8, 1e9) / 1e9
    1.75
    """
    _check(p, n_bytes)
    return 2.0 * (p - 1) / p * n_bytes


def nvls_allreduce_bytes_per_rank(p: int, n_bytes: float) -> float:
    """Bytes each rank sends in an in-switch (NVLS) all-reduce: ``n (1 + 1/p)``.

    Examples
    --------
    >>> nvls_allreduce_bytes_per_rank(8, 1e9) / 1e9
    1.125
    """
    _check(p, n_bytes)
    return n_bytes * (1.0 + 1.0 / p)


def in_network_traffic_saving(p: int) -> float:
    """Fraction of per-rank traffic an in-switch all-reduce saves over a ring.

    ``1 - (p + 1) / (2 (p - 1))``: 0.357 at p = 8, tending to 0.5 as p grows.

    Examples
    --------
    >>> round(in_network_traffic_saving(8), 3)
    0.357
    """
    return 1.0 - nvls_allreduce_bytes_per_rank(p, 1.0) / ring_allreduce_bytes_per_rank(p, 1.0)


def ideal_in_network_speedup(p: int) -> float:
    """Ideal all-reduce speed-up of in-switch reduction over a ring: ``2 (p-1) / (p+1)``.

    Both move data at the same per-rank link rate, so the time ratio is the traffic ratio.

    Examples
    --------
    >>> round(ideal_in_network_speedup(8), 3)
    1.556
    """
    return ring_allreduce_bytes_per_rank(p, 1.0) / nvls_allreduce_bytes_per_rank(p, 1.0)
