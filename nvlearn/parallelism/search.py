"""Search layouts: every (TP, PP, DP) of a GPU count that fits, ranked by step time.

Examples
--------
>>> from nvlearn.parallelism.model import preset
>>> best = search(preset("gpt_76b").with_(global_batch=64), "nvlink_pod", 256)[0]
>>> best.fits, best.layout.n_gpus
(True, 256)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nvlearn.parallelism.layout import Layout
from nvlearn.parallelism.model import DEFAULT_MFU, Transformer
from nvlearn.parallelism.steptime import StepTime, step_time

__all__ = ["layouts", "search", "TPSpan", "tp_span"]


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def layouts(model: Transformer, n_gpus: int, zero_stages=(0, 1), max_tp: int | None = None,
            min_tp: int = 1) -> list[Layout]:
    """Every layout of ``n_gpus`` GPUs whose degrees divide the work evenly.

    TP must divide the heads, PP the layers, DP the global batch (in micro-batches); TP is a
    power of two (it splits matrices); ``min_tp <= TP <= max_tp``.

    Parameters
    ----------
    model : Transformer
        Heads, layers and global batch decide which degrees divide evenly.
    n_gpus : int
        GPUs; TP x PP x DP = n_gpus.
    zero_stages : sequence of int
        ZeRO stages to try (only 0 when DP = 1).
    max_tp, min_tp : int
        Bounds on the TP degree (``max_tp=None``: no upper bound).

    Returns
    -------
    list of Layout

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> len(layouts(preset("gpt_18b"), 8, zero_stages=(0,)))
    10
    """
    out = []
    mbs = model.global_batch // model.micro_batch
    for tp in _divisors(n_gpus):
        if tp & (tp - 1) or model.heads % tp or tp < min_tp or (max_tp and tp > max_tp):
            continue
        for pp in _divisors(n_gpus // tp):
            dp = n_gpus // (tp * pp)
            if model.layers % pp or mbs % dp:
                continue
            out.extend(Layout(tp, pp, dp, zero=z) for z in zero_stages
                       if dp > 1 or z == 0)
    return out


def search(model: Transformer, fabric: str, n_gpus: int, zero_stages=(0, 1),
           max_tp: int | None = None, min_tp: int = 1, mfu: float = DEFAULT_MFU
           ) -> list[StepTime]:
    """Step times of every layout that fits in HBM, fastest first.

    Parameters
    ----------
    model : Transformer
        The model.
    fabric : str
        A key of :data:`~nvlearn.parallelism.steptime.FABRICS`.
    n_gpus : int
        GPUs the layouts use.
    zero_stages, max_tp, min_tp
        As :func:`layouts`.
    mfu : float
        Model FLOPs utilisation, in (0, 1].

    Returns
    -------
    list of StepTime
        Sorted by ``total`` (seconds); layouts that do not fit are left out.
    """
    steps = [step_time(model, lay, fabric, mfu)
             for lay in layouts(model, n_gpus, zero_stages, max_tp, min_tp)]
    return sorted((s for s in steps if s.fits), key=lambda s: s.total)


@dataclass(frozen=True)
class TPSpan:
    """Best step time with TP inside a box vs TP across boxes, by global batch and fabric.

    ``best[fabric]["inside" | "across"]`` is an array (one per global batch) of
    :class:`StepTime` (``None`` where nothing fits).
    """

    model: Transformer
    n_gpus: int
    global_batches: np.ndarray
    best: dict

    def times(self, fabric: str, where: str) -> np.ndarray:
        """Step times (s), NaN where no layout fits."""
        return np.array([np.nan if s is None else s.total for s in self.best[fabric][where]])

    def crossover(self, fabric: str) -> float:
        """Largest global batch at which TP across boxes is faster (NaN if never)."""
        win = self.times(fabric, "across") < self.times(fabric, "inside")
        return float(self.global_batches[win].max()) if win.any() else float("nan")


def tp_span(model: Transformer, n_gpus: int, global_batches, fabrics=("nvlink_pod",
            "ib_cluster"), box: int = 8) -> TPSpan:
    """For each global batch, the fastest fitting layout with ``TP <= box`` and with
    ``TP > box`` on each fabric (see :func:`search`).

    Parameters
    ----------
    model : Transformer
        The model (its global batch is replaced by each of ``global_batches``).
    n_gpus : int
        GPUs the layouts use.
    global_batches : array_like of int
        Global batch sizes, in sequences.
    fabrics : sequence of str
        Fabrics to compare.
    box : int
        GPUs of one NVLink box: "inside" is ``TP <= box``, "across" ``TP >= 2 box``.

    Returns
    -------
    TPSpan
        The best StepTime (or None) per fabric, side and batch.
    """
    gb = np.asarray(global_batches, dtype=np.int64)
    best: dict = {}
    for f in fabrics:
        best[f] = {"inside": [], "across": []}
        for B in gb:
            m = model.with_(global_batch=int(B))
            for where, kw in (("inside", {"max_tp": box}), ("across", {"min_tp": 2 * box})):
                found = search(m, f, n_gpus, **kw)
                best[f][where].append(found[0] if found else None)
    return TPSpan(model, n_gpus, gb, best)
