"""How many ops a collective's Schedule will have, known before it is built, and the budget.

A Schedule costs memory twice: its own arrays, and the simulator's per-op state (about
400 bytes per op in all, measured on a 1 M-op ring of the 256-GPU pod). A 256-GPU ring with
32 pipeline slots is already 4 M ops; a flat ring over 8,192 GPUs would be 134 M ops per
slot — more than the course's machines (2 cores, 24 GiB) can hold. The entry points of
:mod:`nvlearn.collectives` and :func:`nvlearn.sim.simulate` call :func:`check_ops` first,
so such a request is refused *before* anything is allocated, with the estimate and what to
do instead.

The counts (per pipeline slot ``c``; ``C`` channels, ``G`` nodes, ``S`` NVSwitch planes):

=========================  ======================================================
ring all-reduce            ``2 (p-1) c C (p + G)``  (``p`` sends per step, plus one
                           PXN relay per node crossing when channels span nodes)
ring reduce-scatter / AG   ``(p-1) c C (p + G)``
binary tree                ``2 (p-1) c``
double binary tree         ``4 (p-1) c``
NCCL's tree                ``4 (p-1) c C``
recursive doubling         ``2 p ceil(log2 p) c``
Rabenseifner, hierarchical ``2 p (p-1) c``
halving / doubling RS, AG  ``p (p-1) c``
NVLS all-reduce            ``2 p (p+1) S c``; reduce-scatter / all-gather ``p (p+1) S c``
broadcast                  ``(p-1) c``
all-to-all                 ``p (p-1)`` (one op per block)
=========================  ======================================================

They are exact on one node for every algorithm and upper bounds across nodes (a test
builds each schedule and compares); each lives in its algorithm's entry of
:data:`nvlearn.collectives.registry.REGISTRY`.

Examples
--------
>>> estimate_ops("allreduce", "ring", 8, chunks=1)
112
>>> check_ops(estimate_ops("allreduce", "ring", 8192), "a ring all-reduce",
...           "use fewer GPUs")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: a ring all-reduce would have 134,201,344 ops (about 53.7 GB to build and ...
"""

from __future__ import annotations

import os

__all__ = ["BYTES_PER_OP", "estimate_ops", "check_ops", "max_ops"]

#: Bytes per op to build a Schedule and simulate it (measured: 1,044,480 ops, 349 MB peak in
#: the simulator plus the Schedule's own arrays).
BYTES_PER_OP = 400
_DEFAULT_MAX_OPS = 30_000_000           # ~12 GB: half of a 24 GiB machine


def max_ops() -> int:
    """The op budget: ``$NVLEARN_MAX_OPS`` if set, else 30 M (about 12 GB)."""
    raw = os.environ.get("NVLEARN_MAX_OPS", "")
    return int(raw) if raw.strip() else _DEFAULT_MAX_OPS


def estimate_ops(collective: str, algorithm: str, n_ranks: int, chunks: int = 1, *,
                 channels: int = 1, nodes: int = 1, planes: int = 1) -> int:
    """Ops of ``algorithm``'s ``collective`` Schedule (module table), before building it.

    Parameters
    ----------
    collective, algorithm : str
        As :data:`nvlearn.collectives.ALGORITHMS`.
    n_ranks, chunks : int
        Ranks and pipeline slots.
    channels, nodes, planes : int
        Ring / NCCL-tree channels, nodes the ranks span, NVSwitch planes (NVLS).

    Returns
    -------
    int

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> estimate_ops("allreduce", "ring", 8, 4) == allreduce(8, 1e6, chunks=4).n_ops
    True
    """
    from nvlearn.collectives.registry import REGISTRY

    if (collective, algorithm) not in REGISTRY:
        raise ValueError(f"no op estimate for {algorithm} {collective}")
    return int(REGISTRY[(collective, algorithm)].ops(
        int(n_ranks), int(chunks), channels=int(channels), nodes=int(nodes),
        planes=int(planes)))


def check_ops(n_ops: int, what: str, advice: str) -> None:
    """ValueError, with the estimate and ``advice``, if ``n_ops`` is over :func:`max_ops`.

    Parameters
    ----------
    n_ops : int
        Estimated ops of the schedule about to be built (:func:`estimate_ops`).
    what : str
        Describes that schedule in the message.
    advice : str
        What the caller can do instead (fewer chunks, a closed form ...).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``n_ops > max_ops()``.
    """
    limit = max_ops()
    if n_ops > limit:
        raise ValueError(
            f"{what} would have {n_ops:,} ops (about {n_ops * BYTES_PER_OP / 1e9:.1f} GB to "
            f"build and simulate at ~{BYTES_PER_OP} bytes per op), more than the {limit:,} "
            f"this machine allows (NVLEARN_MAX_OPS): {advice}")
