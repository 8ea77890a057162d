"""A parallel layout: how many ways each strategy splits the work, and which GPU is which.

Ranks are laid out as Megatron-LM lays them out by default (TP fastest, then DP, then PP)::

    gpu = t + TP x (d + DP x p)        t < TP, d < DP, p < PP

so a TP group is ``TP`` consecutive GPUs (inside one 8-GPU box when ``TP <= 8``: the
fastest domain), a DP group strides by ``TP``, and a PP stage is a block of ``TP x DP``
consecutive GPUs (the slowest dimension crosses the most boxes). Expert parallelism (EP)
splits each DP group into groups of ``EP`` consecutive DP ranks (EP divides DP, as in
Megatron-LM and DeepSpeed-MoE). Context parallelism is left out.

References
----------
M. Shoeybi et al., "Megatron-LM", arXiv:1909.08053, 2019, and NVIDIA Megatron-LM's default
rank order (``megatron/core/parallel_state.py``: TP fastest, then DP, then PP).
S. Rajbhandari et al., "DeepSpeed-MoE", ICML 2022 (expert parallelism inside DP groups).

Examples
--------
>>> lay = Layout(tp=8, pp=4, dp=8)
>>> lay.n_gpus, lay.groups("tp")[1].tolist()
(256, [8, 9, 10, 11, 12, 13, 14, 15])
>>> lay.groups("pp")[0].tolist()
[0, 64, 128, 192]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["STRATEGIES", "ZERO_STAGES", "RECOMPUTE", "Layout"]

#: The strategies whose groups a Layout knows.
STRATEGIES = ("tp", "pp", "dp", "ep")
#: ZeRO stages (0 = plain data parallelism; 3 = FSDP).
ZERO_STAGES = (0, 1, 2, 3)
#: Activation recomputation choices (Korthikanti et al. 2022).
RECOMPUTE = ("none", "selective", "full")


@dataclass(frozen=True)
class Layout:
    """Degrees of tensor, pipeline, data and expert parallelism, plus the memory options.

    Attributes
    ----------
    tp, pp, dp : int
        Tensor-, pipeline- and data-parallel degrees; ``tp x pp x dp`` GPUs.
    ep : int
        Expert-parallel degree (divides ``dp``; 1 for a dense model).
    zero : {0, 1, 2, 3}
        ZeRO stage over the DP group (3 = FSDP: parameters sharded too).
    sp : bool
        Sequence parallelism with TP (Korthikanti et al. 2022): each TP all-reduce becomes
        a reduce-scatter + all-gather, and the activations TP left whole are split too.
    recompute : {"none", "selective", "full"}
        Activation recomputation.

    Examples
    --------
    >>> Layout(tp=2, pp=1, dp=4).label
    'TP2 x PP1 x DP4'
    """

    tp: int
    pp: int
    dp: int
    ep: int = 1
    zero: int = 0
    sp: bool = True
    recompute: str = "selective"

    def __post_init__(self) -> None:
        for f in ("tp", "pp", "dp", "ep"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{f} must be a positive integer, got {v!r}")
        if self.dp % self.ep:
            raise ValueError(f"ep ({self.ep}) must divide dp ({self.dp}): expert-parallel "
                             "groups are made of data-parallel ranks")
        if self.zero not in ZERO_STAGES:
            raise ValueError(f"zero must be one of {ZERO_STAGES}, got {self.zero!r}")
        if self.recompute not in RECOMPUTE:
            raise ValueError(f"recompute must be one of {RECOMPUTE}, got {self.recompute!r}")

    @property
    def n_gpus(self) -> int:
        """GPUs the layout uses, ``tp x pp x dp``."""
        return self.tp * self.pp * self.dp

    @property
    def label(self) -> str:
        """Short name, e.g. ``'TP8 x PP4 x DP8'`` (``' x EP4'`` and ``', ZeRO-1'`` added when
        used)."""
        s = f"TP{self.tp} x PP{self.pp} x DP{self.dp}"
        s += f" x EP{self.ep}" if self.ep > 1 else ""
        return s + (f", ZeRO-{self.zero}" if self.zero else "")

    def gpu(self, t, d, p):
        """GPU index of TP rank ``t``, DP rank ``d``, stage ``p`` (arrays broadcast).

        Parameters
        ----------
        t : int or array_like of int
            Tensor-parallel rank, ``0 <= t < tp``.
        d : int or array_like of int
            Data-parallel rank, ``0 <= d < dp``.
        p : int or array_like of int
            Pipeline stage, ``0 <= p < pp``.

        Returns
        -------
        ndarray of int
            ``t + tp (d + dp p)``.

        Examples
        --------
        >>> int(Layout(tp=8, pp=4, dp=8).gpu(1, 2, 3))      # 1 + 8 (2 + 8 x 3)
        209
        """
        return np.asarray(t) + self.tp * (np.asarray(d) + self.dp * np.asarray(p))

    def groups(self, strategy: str) -> np.ndarray:
        """Every group of ``strategy`` as rows of GPU indices, shape (groups, group size).

        Examples
        --------
        >>> Layout(tp=2, pp=2, dp=2).groups("dp").tolist()
        [[0, 2], [1, 3], [4, 6], [5, 7]]
        """
        t, d, p = np.meshgrid(np.arange(self.tp), np.arange(self.dp), np.arange(self.pp),
                              indexing="ij")
        g = self.gpu(t, d, p)                       # axes (t, d, p)
        if strategy == "tp":
            return g.transpose(2, 1, 0).reshape(-1, self.tp)
        if strategy == "dp":
            return g.transpose(2, 0, 1).reshape(-1, self.dp)
        if strategy == "pp":
            return g.transpose(1, 0, 2).reshape(-1, self.pp)
        if strategy == "ep":
            e = g.reshape(self.tp, self.dp // self.ep, self.ep, self.pp)
            return e.transpose(3, 1, 0, 2).reshape(-1, self.ep)
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {STRATEGIES}")

    def per_box(self, strategy: str, gpus_per_box: int) -> int:
        """GPUs of one ``strategy`` group in each box it touches (the same for every box).

        Examples
        --------
        >>> Layout(tp=8, pp=4, dp=8).per_box("dp", 8)
        1
        """
        g = self.groups(strategy)[0]
        _, counts = np.unique(g // gpus_per_box, return_counts=True)
        if np.any(counts != counts[0]):
            raise ValueError(f"a {strategy} group puts {sorted(set(counts.tolist()))} GPUs "
                             "in different boxes; choose degrees that divide the box")
        return int(counts[0])
