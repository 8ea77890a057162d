"""Reduction-order numerics: the same all-reduce, a different sum per algorithm.

Floating-point addition is not associative: ``(a + b) + c`` and ``a + (b + c)`` can differ in
the last bits, and in bf16 (8 significant bits) by a lot. Every all-reduce algorithm adds the
``p`` contributions of an element in its own order:

* ring: around the ring, starting at a different rank for each segment —
  ``((x_{s+1} + x_{s+2}) + x_{s+3}) + ...``, a left-to-right chain;
* tree and double binary tree: up the tree, pairing subtrees (each tree in the double tree
  sums its half of the buffer in its own shape);
* recursive doubling and Rabenseifner: a butterfly — pairs, then pairs of pairs;
* NVLS: inside the switch, contributions added in rank order (the model's choice; the
  hardware's order is not documented);
* hierarchical: a ring inside each node, then a ring across nodes.

So on the same inputs the algorithms give different float32 / bf16 results. Chains (ring,
NVLS in this model) accumulate error roughly in proportion to ``p``, pairwise orders (trees,
butterflies) to ``log2 p`` (Higham 1993): at 64 ranks in bf16 the ring's error is about twice
Rabenseifner's. Within one
algorithm, though, every rank ends with the *same bits*: each element's final value is
computed once — at the rank that completes the sum (ring, Rabenseifner), at a tree's root, or
in the switch — and then only *copied* to the others. Recursive doubling computes the sum on
both partners of each exchange, but as ``a + b`` and ``b + a``, which IEEE addition makes
equal. (A rank that added the copies in its own order would break this, and data-parallel
replicas would drift apart.)

:func:`reduction_order_errors` runs each algorithm through the data plane
(:func:`nvlearn.dataplane.run`, which rounds every addition to the dtype) and reports the
error against the exact sum; :func:`mixed_magnitude_inputs` makes inputs where the order
matters visibly. Not modelled: accumulation in higher precision (NVSwitch can reduce bf16 in
fp32 — PTX ``multimem.ld_reduce .acc::f32`` — which would make NVLS more accurate than shown),
and the order of additions inside a GPU kernel.

References
----------
N. J. Higham, "The accuracy of floating point summation", SIAM J. Sci. Comput. 14(4),
783-799, 1993 (error of recursive vs pairwise summation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nvlearn.dataplane import DTYPES, round_to_bf16, run

#: The all-reduce algorithms compared by default.
ALLREDUCE_ALGORITHMS = ("ring", "binary_tree", "double_binary_tree", "recursive_doubling",
                        "rabenseifner", "nvls")


def mixed_magnitude_inputs(n_ranks: int, n_elems: int, seed: int = 0) -> np.ndarray:
    """Per-rank gradients whose magnitudes span six decades, with both signs.

    Element ``i`` of rank ``r`` is ``N(0, 1) * 10^u`` with ``u`` uniform in [-3, 3], so a
    few large contributions dominate each sum and the small ones are partly absorbed —
    how much depends on when they are added.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2 (rows).
    n_elems : int
        Elements per rank (columns); >= 1.
    seed : int
        Seed of the generator; the same seed gives the same inputs.

    Returns
    -------
    ndarray of float64, shape (n_ranks, n_elems)

    Examples
    --------
    >>> x = mixed_magnitude_inputs(4, 1000, seed=1)
    >>> x.shape, bool(np.abs(x).max() / np.abs(x).min() > 1e5)
    ((4, 1000), True)
    """
    if isinstance(n_ranks, bool) or int(n_ranks) != n_ranks or n_ranks < 2:
        raise ValueError(f"n_ranks must be an integer >= 2, got {n_ranks}")
    if isinstance(n_elems, bool) or int(n_elems) != n_elems or n_elems < 1:
        raise ValueError(f"n_elems must be a positive integer, got {n_elems}")
    rng = np.random.default_rng(seed)
    shape = (int(n_ranks), int(n_elems))
    return rng.standard_normal(shape) * 10.0 ** rng.uniform(-3.0, 3.0, shape)


def as_dtype(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` rounded to ``dtype`` (bf16 emulated in float32), as float64 values.

    Examples
    --------
    >>> as_dtype(np.array([1 + 2**-9]), "bfloat16").tolist()
    [1.0]
    """
    if dtype not in DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r}; use one of {DTYPES}")
    if dtype == "bfloat16":
        return round_to_bf16(np.asarray(x, dtype=np.float32)).astype(np.float64)
    return np.asarray(x).astype(dtype).astype(np.float64)


def allreduce_result(inputs: np.ndarray, algorithm: str, dtype: str, chunks: int = 1,
                     ranks_per_node: int | None = None) -> np.ndarray:
    """What every rank holds after ``algorithm``'s all-reduce of ``inputs`` in ``dtype``.

    ``inputs`` has shape (p, n); returns (p, n) in the storage dtype (float32 for bf16).
    ``ranks_per_node`` is used by "hierarchical" only.

    Parameters
    ----------
    inputs : array_like, shape (p, n)
        Rank r's values in row r; p >= 2.
    algorithm : str
        One of :data:`ALLREDUCE_ALGORITHMS` (the algorithm's own order of additions is used).
    dtype : {"float64", "float32", "float16", "bfloat16"}
        Precision of the inputs and of every addition.
    chunks : int
        Pipeline chunks of the schedule (they change which elements are added when, not the
        order for one element, except where the algorithm splits by chunk).
    ranks_per_node : int, optional
        GPUs per node, "hierarchical" only.

    Returns
    -------
    ndarray, shape (p, n)
        Each rank's result, in the storage dtype (float32 for bf16).

    Examples
    --------
    >>> x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> allreduce_result(x, "binary_tree", "float32")[2].tolist()
    [9.0, 12.0]
    """
    from nvlearn.collectives import allreduce

    data = np.asarray(inputs)
    if data.ndim != 2 or data.shape[0] < 2:
        raise ValueError(f"inputs must have shape (n_ranks >= 2, n_elems), got {data.shape}")
    kw = {"ranks_per_node": ranks_per_node} if algorithm == "hierarchical" else {}
    schedule = allreduce(data.shape[0], data.shape[1] * 8.0, algorithm, chunks=chunks, **kw)
    store = np.float32 if dtype == "bfloat16" else dtype
    return run(schedule, as_dtype(data, dtype).astype(store), dtype=dtype)


@dataclass(frozen=True)
class ErrorRow:
    """One algorithm in one dtype: error of the all-reduce against the exact sum."""

    algorithm: str
    dtype: str
    max_abs_error: float
    rms_error: float
    #: ``rms_error`` divided by the RMS of the exact sums.
    rel_rms_error: float
    #: Whether every rank ended with the same bits.
    ranks_agree: bool


@dataclass(frozen=True)
class ErrorTable:
    """Result of :func:`reduction_order_errors`: one :class:`ErrorRow` per (algorithm, dtype)."""

    n_ranks: int
    n_elems: int
    seed: int
    rows: tuple[ErrorRow, ...]

    def get(self, algorithm: str, dtype: str) -> ErrorRow:
        """The row of ``algorithm`` in ``dtype``."""
        for row in self.rows:
            if row.algorithm == algorithm and row.dtype == dtype:
                return row
        raise ValueError(f"no row for ({algorithm!r}, {dtype!r}) in this table")

    def to_text(self) -> str:
        """A plain-text table (errors in the units of the inputs)."""
        head = (f"all-reduce of {self.n_elems} elements on {self.n_ranks} ranks (seed "
                f"{self.seed}): error against the exact sum")
        lines = [head, f"{'algorithm':<20} {'dtype':<9} {'max |err|':>11} {'RMS err':>11} "
                       f"{'RMS rel.':>10}  ranks agree"]
        for r in self.rows:
            lines.append(f"{r.algorithm:<20} {r.dtype:<9} {r.max_abs_error:>11.3e} "
                         f"{r.rms_error:>11.3e} {r.rel_rms_error:>10.2e}  "
                         f"{'yes' if r.ranks_agree else 'NO'}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()


def reduction_order_errors(n_ranks: int = 8, n_elems: int = 4096,
                           dtypes=("float32", "bfloat16"),
                           algorithms=ALLREDUCE_ALGORITHMS, seed: int = 0,
                           inputs: str | np.ndarray = "mixed", chunks: int = 1,
                           ranks_per_node: int | None = None) -> ErrorTable:
    """Max and RMS error of each all-reduce algorithm in each dtype, on the same inputs.

    The reference is the exact sum (``math.fsum``, correctly rounded to float64) of the
    inputs *as the dtype holds them* — each input rounded to the dtype first — so the table
    shows the error of the additions alone, not of storing the inputs in a short format.

    Parameters
    ----------
    n_ranks, n_elems : int
        Ranks and elements per rank (ignored when ``inputs`` is an array).
    dtypes : sequence of {"float64", "float32", "float16", "bfloat16"}
        Precisions compared; each one's inputs and additions are in that precision.
    algorithms : sequence of str
        All-reduce algorithms (``nvlearn.collectives.ALGORITHMS["allreduce"]``);
        "hierarchical" needs ``ranks_per_node``.
    seed : int
        Seed of the generated inputs.
    inputs : "mixed", "normal" or array (p, n)
        :func:`mixed_magnitude_inputs`, standard normal values, or your own.
    chunks : int
        Pipeline chunks of each schedule (changes segment boundaries, not the sums).
    ranks_per_node : int, optional
        GPUs per node for "hierarchical" (must divide the rank count).

    Returns
    -------
    ErrorTable
        One row per (algorithm, dtype): max and RMS error against the exact sum, and
        whether all ranks agree bit for bit.

    Examples
    --------
    >>> table = reduction_order_errors(8, 512, dtypes=("float32",),
    ...                                algorithms=("ring", "binary_tree"))
    >>> table.get("ring", "float32").ranks_agree
    True
    """
    if isinstance(inputs, str):
        if inputs == "mixed":
            data = mixed_magnitude_inputs(n_ranks, n_elems, seed)
        elif inputs == "normal":
            data = np.random.default_rng(seed).standard_normal((int(n_ranks), int(n_elems)))
        else:
            raise ValueError(f"inputs must be 'mixed', 'normal' or an array, got {inputs!r}")
    else:
        data = np.asarray(inputs, dtype=np.float64)
        if data.ndim != 2 or data.shape[0] < 2:
            raise ValueError(f"inputs must have shape (n_ranks >= 2, n_elems), got {data.shape}")
    rows = []
    for dtype in dtypes:
        held = as_dtype(data, dtype)
        exact = np.array([math.fsum(column) for column in held.T])
        scale = float(np.sqrt(np.mean(exact**2))) or 1.0
        for algorithm in algorithms:
            out = allreduce_result(data, algorithm, dtype, chunks, ranks_per_node)
            err = out[0].astype(np.float64) - exact
            rows.append(ErrorRow(
                algorithm=algorithm,
                dtype=dtype,
                max_abs_error=float(np.max(np.abs(err))),
                rms_error=float(np.sqrt(np.mean(err**2))),
                rel_rms_error=float(np.sqrt(np.mean(err**2)) / scale),
                ranks_agree=bool(np.all(out == out[0])),
            ))
    return ErrorTable(n_ranks=int(data.shape[0]), n_elems=int(data.shape[1]), seed=int(seed),
                      rows=tuple(rows))


__all__ = [
    "ALLREDUCE_ALGORITHMS",
    "ErrorRow",
    "ErrorTable",
    "allreduce_result",
    "as_dtype",
    "mixed_magnitude_inputs",
    "reduction_order_errors",
]
