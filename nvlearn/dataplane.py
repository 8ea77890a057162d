"""Run a Schedule on real numbers: is the sum right, and how does its rounding differ?

:func:`run` gives every participant a buffer, applies the schedule's ops in dependency
order — each op copies or adds one chunk from its source's buffer into its destination's —
and returns what each rank holds at the end. Additions happen in *the algorithm's own
order*: a ring adds rank contributions one after another around the ring, a tree adds pairs,
so in float32 or bf16 their results differ in the last bits (and all ranks of one algorithm
agree bit for bit, because the final values are copies of one sum).

Supported dtypes: float64, float32, float16 and ``"bfloat16"`` — an emulation: values are
stored as float32 and every result is rounded to the nearest bf16 (8 significant bits,
round-half-to-even), as a bf16 adder with float32 inputs would.

What it does not model: the order *inside* one chunk's addition is elementwise (no
intra-vector reassociation), and a switch (SHARP) participant adds in the order its inputs
arrive in the schedule.

References
----------
IEEE Std 754-2019, "IEEE Standard for Floating-Point Arithmetic" (round to nearest, ties to
even; binary16 and binary32).
D. Kalamkar et al., "A study of BFLOAT16 for deep learning training", arXiv:1905.12322,
2019 (the bfloat16 format: float32's exponent, 8 significant bits).
"""

from __future__ import annotations

import numpy as np

from nvlearn.schedule import OP_REDUCE, Schedule, ensure_validated, promised_mask

__all__ = ["DTYPES", "round_to_bf16", "run", "reference"]

DTYPES = ("float64", "float32", "float16", "bfloat16")


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (round half to even), kept as float32.

    bfloat16 keeps float32's 8 exponent bits and the top 7 of its 23 mantissa bits.

    Examples
    --------
    >>> round_to_bf16(np.array([1.0, 1.00390625, 1.01171875], dtype=np.float32)).tolist()
    [1.0, 1.0, 1.015625]
    """
    a = np.ascontiguousarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    lsb = (bits >> 16) & 1
    rounded = ((bits + 0x7FFF + lsb) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    nan = np.isnan(a)
    if nan.any():
        out = np.where(nan, a, out)
    return out


def _storage_dtype(dtype: str) -> np.dtype:
    if dtype not in DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r}; use one of {DTYPES}")
    return np.dtype(np.float32 if dtype == "bfloat16" else dtype)


def _element_bounds(schedule: Schedule, n_elems: int) -> np.ndarray:
    bounds = np.rint(schedule.chunk_bounds * n_elems).astype(np.int64)
    if np.any(np.diff(bounds) <= 0):
        raise ValueError(
            f"a buffer of {n_elems} elements is too short for {schedule.n_chunks} chunks; "
            f"use at least {schedule.n_chunks} elements (more for uneven chunks)"
        )
    return bounds


def run(schedule: Schedule, arrays, dtype: str | None = None) -> np.ndarray:
    """Execute ``schedule`` on per-rank input buffers and return what each rank holds.

    Parameters
    ----------
    schedule : Schedule
        Any Schedule; one not built by the library is validated first (its collective
        must come out right).
    arrays : array_like, shape (n_ranks, n_elems)
        Rank r's input buffer. For all-gather and broadcast only the chunks the rank owns are
        read (``schedule.chunk_owner``); for all-to-all chunk ``s * n_ranks + d`` of rank s is
        its block for rank d.
    dtype : {"float64", "float32", "float16", "bfloat16"}, optional
        Arithmetic precision; default: the dtype of ``arrays`` (float64/32/16).

    Returns
    -------
    ndarray, shape (n_ranks, n_elems)
        Each rank's buffer after the collective, in the storage dtype (float32 for bf16).
        Elements the collective does not promise to a rank are NaN.

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> x = np.arange(12.0).reshape(3, 4)
    >>> run(allreduce(3, 32), x)[0].tolist()     # column sums, on every rank
    [12.0, 15.0, 18.0, 21.0]
    """
    ensure_validated(schedule)   # a hand-written schedule must compute its collective
    if arrays is None:
        raise ValueError("arrays is None; pass one input buffer per rank, shape "
                         f"({schedule.n_ranks}, n_elems)")
    data = np.asarray(arrays)
    if data.dtype.kind not in "fiu":
        raise ValueError(f"arrays must hold real numbers (float or int), got dtype "
                         f"{data.dtype}: a sum of booleans, complex or Python objects is not "
                         "what a GPU all-reduce computes; convert first (e.g. .astype(float))")
    if data.ndim != 2 or data.shape[0] != schedule.n_ranks:
        raise ValueError(
            f"arrays must have shape (n_ranks, n_elems) = ({schedule.n_ranks}, n); "
            f"got {data.shape}"
        )
    if dtype is None:
        dtype = str(data.dtype) if str(data.dtype) in DTYPES else "float64"
    store = _storage_dtype(dtype)
    bf16 = dtype == "bfloat16"
    n_elems = data.shape[1]
    bounds = _element_bounds(schedule, n_elems)

    buf = np.zeros((schedule.n_participants, n_elems), dtype=store)
    init = data.astype(store)
    if bf16:
        init = round_to_bf16(init)
    owner = schedule.chunk_owner
    for c in range(schedule.n_chunks):
        lo, hi = bounds[c], bounds[c + 1]
        if owner[c] == -1:
            buf[: schedule.n_ranks, lo:hi] = init[:, lo:hi]
        else:
            buf[owner[c], lo:hi] = init[owner[c], lo:hi]

    src, dst, chunk, kind = schedule.op_src, schedule.op_dst, schedule.op_chunk, schedule.op_kind
    for i in range(schedule.n_ops):  # ops are numbered in dependency order
        c = chunk[i]
        lo, hi = bounds[c], bounds[c + 1]
        incoming = buf[src[i], lo:hi]
        if kind[i] == OP_REDUCE:
            total = buf[dst[i], lo:hi] + incoming
            buf[dst[i], lo:hi] = round_to_bf16(total) if bf16 else total
        else:
            buf[dst[i], lo:hi] = incoming

    out = buf[: schedule.n_ranks].copy()
    promised = promised_mask(schedule)
    for c in np.flatnonzero(~promised.all(axis=0)):
        lo, hi = bounds[c], bounds[c + 1]
        out[~promised[:, c], lo:hi] = np.nan
    return out


def reference(schedule: Schedule, arrays) -> np.ndarray:
    """What the collective should produce, computed in float64 directly (no schedule).

    Returns the same layout as :func:`run`, with NaN where nothing is promised.

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> reference(allreduce(2, 16), [[1.0, 2.0], [3.0, 4.0]]).tolist()
    [[4.0, 6.0], [4.0, 6.0]]
    """
    data = np.asarray(arrays, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] != schedule.n_ranks:
        raise ValueError(f"arrays must have shape ({schedule.n_ranks}, n_elems)")
    bounds = _element_bounds(schedule, data.shape[1])
    out = np.full_like(data, np.nan)
    promised = promised_mask(schedule)
    for c in range(schedule.n_chunks):
        lo, hi = bounds[c], bounds[c + 1]
        o = schedule.chunk_owner[c]
        value = data[:, lo:hi].sum(axis=0) if o == -1 else data[o, lo:hi]
        out[promised[:, c], lo:hi] = value
    return out
