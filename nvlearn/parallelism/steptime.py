"""One training step on a fabric: compute, exposed communication and pipeline bubble.

Where each time comes from (all ``model="achievable"`` in the course's sense):

* **all-reduce, reduce-scatter, all-gather** — NCCL's tuner prediction
  (:func:`nvlearn.tuner.choose` ``(...).time``) for the group, on a
  :class:`~nvlearn.tuner.Fabric` read off the built topology (:func:`group_fabric`). A group
  inside one box is the box's GPUs. A group that spans boxes is described to NCCL's model
  box by box: ``q`` of its GPUs per box on the box's NVLinks, and between boxes the group's
  share ``q / 8`` of the box's external ports (every GPU of a box runs its own group's
  collective at the same moment). On the NVLink pod those ports are the 72 NVLink-network
  links of the box (the 2:1 taper is visible); on the InfiniBand cluster the 8 NICs. (NCCL
  itself fuses a multi-node NVLink domain into one "node" and would not see the taper.)
* **send/recv** (PP) — NCCL's model of one ring step: ``baseLat + hwLat + size / bw``, with
  ``bw`` the NVLink rate inside a box, or a GPU's share of the box's external ports.
* **all-to-all** (EP) — direct all-to-all at the same rates: ``baseLat + hwLat + max(bytes
  staying in the box / NVLink rate, bytes leaving it / a GPU's share of the ports)``.

The step (1F1B pipeline, Narayanan et al. 2021): per micro-batch a stage computes for
``t_c`` and waits for its TP / EP collectives and its PP transfers, ``t_x`` (Megatron-LM runs
them on the critical path); the pipeline takes ``(m + p - 1)(t_c + t_x)``, of which
``(p - 1)(t_c + t_x)`` is the bubble; the DP gradient collectives run after the last
backward and are counted whole (not overlapped: an upper bound on what is exposed)::

    step = m t_c  +  [m t_x + t_DP]  +  (p - 1)(t_c + t_x)
           compute   exposed comm       bubble

References
----------
D. Narayanan et al., "Efficient large-scale language model training on GPU clusters using
Megatron-LM", SC 2021 (1F1B schedule, bubble ``(p - 1)/m``).
NVIDIA NCCL 2.30.7, src/graph/tuning.cc (the predicted collective and send/recv times).

Examples
--------
>>> from nvlearn.parallelism.model import preset
>>> from nvlearn.parallelism.layout import Layout
>>> st = step_time(preset("gpt_76b"), Layout(tp=8, pp=4, dp=8), "nvlink_pod")
>>> round(st.compute, 2), st.fits
(13.22, True)
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from nvlearn import specs, tuner
from nvlearn.parallelism.comm_plan import Comm, micro_batches, step_comms
from nvlearn.parallelism.layout import Layout
from nvlearn.parallelism.memory import Memory, memory_per_gpu
from nvlearn.parallelism.model import DEFAULT_MFU, Transformer, compute_time
from nvlearn.topology import FABRICS as FABRIC_REGISTRY

__all__ = [
    "FABRICS", "FABRIC_NAMES", "SINGLE_DOMAIN", "gpus_per_box", "domain_gpus", "fabric_gpu",
    "check_fabric", "topology", "group_fabric", "collective_time", "TimedComm", "StepTime",
    "check_layout", "step_time",
]

#: Fabrics a layout can be placed on: the registry's (:data:`nvlearn.topology.FABRICS`)
#: but the PCIe box.
FABRICS = ("dgx_h100", "nvlink_pod", "ib_cluster", "gb200_nvl72")
#: Their labels, from the fabric registry.
FABRIC_NAMES = {key: FABRIC_REGISTRY[key].label for key in FABRICS}
#: Fabrics that are one NVLink domain with no box boundary inside (every group stays in it).
SINGLE_DOMAIN = {"gb200_nvl72": "gb200_nvl72"}


def gpus_per_box() -> int:
    """GPUs in one DGX H100 (8)."""
    return int(specs.system("dgx_h100").gpus)


def domain_gpus(fabric: str) -> int:
    """GPUs that share one box's NVLinks on ``fabric``: 8 (a DGX H100), or the whole rack of a
    single-domain fabric (72 on the GB200 NVL72).

    Examples
    --------
    >>> domain_gpus("nvlink_pod"), domain_gpus("gb200_nvl72")
    (8, 72)
    """
    if fabric in SINGLE_DOMAIN:
        return int(specs.system(SINGLE_DOMAIN[fabric]).gpus)
    return gpus_per_box()


def fabric_gpu(fabric: str) -> str:
    """Catalogue GPU of ``fabric`` (``"b200"`` on the GB200 NVL72, else ``"h100"``)."""
    return specs.system(SINGLE_DOMAIN[fabric]).gpu if fabric in SINGLE_DOMAIN else "h100"


def check_fabric(fabric: str, n_gpus: int) -> None:
    """Raise ValueError unless ``fabric`` can hold ``n_gpus`` GPUs."""
    box = gpus_per_box()
    if fabric not in FABRICS:
        raise ValueError(f"unknown fabric {fabric!r}; choose one of {FABRICS}")
    if fabric in SINGLE_DOMAIN:
        if not 2 <= n_gpus <= domain_gpus(fabric):
            raise ValueError(f"a {FABRIC_NAMES[fabric]} has {domain_gpus(fabric)} GPUs; the "
                             f"layout needs {n_gpus}")
        return
    if fabric == "dgx_h100" and n_gpus > box:
        raise ValueError(f"a DGX H100 has {box} GPUs; the layout needs {n_gpus}: use "
                         "'nvlink_pod' or 'ib_cluster'")
    pod = int(specs.system("nvlink_switch_system").gpus)
    if fabric != "dgx_h100" and (n_gpus % box or not box <= n_gpus <= pod):
        raise ValueError(f"{fabric} is built in whole boxes of {box} GPUs, up to {pod}; the "
                         f"layout needs {n_gpus}")


@functools.cache
def topology(fabric: str, n_gpus: int):
    """The built Topology holding ``n_gpus`` GPUs (cached).

    Examples
    --------
    >>> topology("ib_cluster", 32).n_gpus
    32
    """
    from nvlearn.topology import FABRICS
    from nvlearn.topology import fabric as build

    check_fabric(fabric, n_gpus)
    if not FABRICS[fabric].multi_node:
        return build(fabric)
    return build(fabric, max(n_gpus // gpus_per_box(), 2))


@functools.cache
def _box_fabric(fabric: str, n_gpus: int) -> tuner.Fabric:
    """NCCL's view of two whole boxes: a box's NVLink rate and all its external ports."""
    box = gpus_per_box()
    return tuner.fabric_from_topology(topology(fabric, n_gpus), n_ranks=2 * box,
                                      ranks_per_node=box)


@functools.cache
def group_fabric(fabric: str, n_gpus: int, n_ranks: int, per_box: int) -> tuner.Fabric:
    """NCCL's view of one group of ``n_ranks`` GPUs, ``per_box`` of them in each box.

    Parameters
    ----------
    fabric : str
        A key of :data:`FABRICS`.
    n_gpus : int
        GPUs of the whole job (sizes the built topology).
    n_ranks : int
        GPUs in the group; >= 2 and a multiple of ``per_box``.
    per_box : int
        The group's GPUs in each box.

    Returns
    -------
    nvlearn.tuner.Fabric
        Bandwidths in bytes/s per direction (``bw_inter`` per box), and the derivation.

    Examples
    --------
    >>> f = group_fabric("nvlink_pod", 256, 8, 1)        # a DP group, one GPU per box
    >>> f.inter_link, round(f.bw_inter / 1e9, 1)         # 72 links x 20.6 GB/s / 8
    ('nvlink', 185.4)
    >>> round(group_fabric("ib_cluster", 256, 8, 1).bw_inter / 1e9)   # one NIC
    50
    """
    topo = topology(fabric, n_gpus)
    if n_ranks < 2 or n_ranks % per_box:
        raise ValueError(f"a group of {n_ranks} ranks cannot have {per_box} per box")
    if per_box == n_ranks:
        return tuner.fabric_from_topology(topo, n_ranks=n_ranks)
    box = _box_fabric(fabric, n_gpus)
    share = per_box / gpus_per_box()
    line = (f"bw_inter = this group's {per_box}/{gpus_per_box()} share of the box's external "
            f"ports: {box.bw_inter / 1e9:.1f} x {share:g} = {box.bw_inter * share / 1e9:.1f} "
            "GB/s per box per direction (every GPU of the box runs its own group at once)")
    return dataclasses.replace(
        box, n_ranks=n_ranks, ranks_per_node=per_box, bw_inter=box.bw_inter * share,
        # NCCL turns NVLS off for one local rank per node
        nvswitch=box.nvswitch and per_box > 1,
        derivation=(*box.derivation, line))


@functools.cache
def _tuning(collective: str, fabric: str, n_gpus: int, n_ranks: int, per_box: int):
    return tuner.tune(collective, group_fabric(fabric, n_gpus, n_ranks, per_box))


def _p2p_params(fabric: str, n_gpus: int, cross: bool) -> tuple[float, float]:
    """(latency s, bandwidth bytes/s per direction) of one NCCL send/recv step."""
    m = specs.nccl()
    box = gpus_per_box()
    if not cross:
        f = (tuner.fabric_from_topology(topology(fabric, n_gpus), n_ranks=box)
             if n_gpus >= box else group_fabric(fabric, n_gpus, n_gpus, n_gpus))
        link, bw = "nvlink", f.bw_intra
    else:
        f = _box_fabric(fabric, n_gpus)
        link, bw = f.inter_link, f.bw_inter / box
    return m.base_latency("ring", "simple") + m.hw_latency(link, "ring", "simple"), bw


def collective_time(collective: str, size: float, fabric: str, n_gpus: int, n_ranks: int,
                    per_box: int) -> float:
    """Seconds for one collective of ``size`` bytes on a group (see the module docstring).

    Parameters
    ----------
    collective : {"allreduce", "reduce_scatter", "allgather", "alltoall", "sendrecv"}
        The collective.
    size : float
        Bytes (nccl-tests' size: per-rank buffer for all-reduce, total array for
        reduce-scatter / all-gather, send buffer for all-to-all, the message for send/recv);
        > 0.
    fabric : str
        A key of :data:`FABRICS`.
    n_gpus : int
        GPUs of the whole job.
    n_ranks : int
        GPUs in the group.
    per_box : int
        The group's GPUs in each box (``per_box < n_ranks``: the group crosses boxes).

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> t8 = collective_time("allreduce", 42e6, "nvlink_pod", 256, 8, 8)    # in one box
    >>> t32 = collective_time("allreduce", 42e6, "nvlink_pod", 256, 32, 8)  # 4 boxes
    >>> t8 < t32
    True
    """
    if size <= 0:
        raise ValueError(f"size must be > 0 bytes, got {size}")
    cross = per_box < n_ranks
    if collective == "sendrecv":
        lat, bw = _p2p_params(fabric, n_gpus, cross)
        return lat + size / bw
    if collective == "alltoall":
        lat_in, bw_in = _p2p_params(fabric, n_gpus, False)
        inside = (per_box - 1) / n_ranks * size / bw_in
        if not cross:
            return lat_in + inside
        lat_out, bw_out = _p2p_params(fabric, n_gpus, True)
        return lat_out + max(inside, (n_ranks - per_box) / n_ranks * size / bw_out)
    return _tuning(collective, fabric, n_gpus, n_ranks, per_box).at(size).time


@dataclass(frozen=True)
class TimedComm:
    """A :class:`Comm` with where its groups sit and how long one call takes."""

    comm: Comm
    per_box: int
    time_per_call: float
    how: str

    @property
    def time_per_step(self) -> float:
        """Seconds per step (calls x time per call)."""
        return self.comm.count * self.time_per_call


@dataclass(frozen=True)
class StepTime:
    """One training step of ``model`` on ``layout`` placed on ``fabric`` (seconds).

    Attributes
    ----------
    compute, exposed_comm, bubble : float
        The three parts of :attr:`total`.
    comm_by_strategy : dict
        Exposed seconds by strategy ("tp", "pp", "ep", "dp"), summing to ``exposed_comm``.
    comms : tuple of TimedComm
    memory : Memory
    micro_batches : int
    """

    model: Transformer
    layout: Layout
    fabric: str
    mfu: float
    compute: float
    exposed_comm: float
    bubble: float
    comm_by_strategy: dict
    comms: tuple
    memory: Memory
    micro_batches: int

    @property
    def total(self) -> float:
        """Step time, s."""
        return self.compute + self.exposed_comm + self.bubble

    @property
    def fits(self) -> bool:
        """Whether the layout fits in the GPU's HBM."""
        return self.memory.fits

    @property
    def tokens_per_s(self) -> float:
        """Training throughput, tokens per second."""
        return self.model.tokens_per_step / self.total

    def split(self) -> dict[str, float]:
        """``{"compute", "exposed communication", "pipeline bubble"}`` in seconds."""
        return {"compute": self.compute, "exposed communication": self.exposed_comm,
                "pipeline bubble": self.bubble}

    def summary(self) -> str:
        """One line: layout, fabric, step time and its split."""
        return (f"{self.layout.label} on {FABRIC_NAMES[self.fabric]}: step {self.total:.2f} s "
                f"= compute {self.compute:.2f} + exposed comm {self.exposed_comm:.2f} + "
                f"bubble {self.bubble:.2f} s (NCCL model, achievable rates)")


def check_layout(model: Transformer, layout: Layout) -> None:
    """Raise ValueError unless the degrees split ``model`` evenly: TP divides the heads (as
    Megatron-LM requires), PP the layers, DP x micro-batch the global batch.

    Examples
    --------
    >>> from nvlearn.parallelism.model import preset
    >>> check_layout(preset("gpt_76b"), Layout(tp=32, pp=1, dp=8))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: TP=32 does not divide the 80 attention heads of GPT 76.1B ...
    """
    if model.heads % layout.tp:
        ok = [d for d in range(1, model.heads + 1) if model.heads % d == 0]
        raise ValueError(f"TP={layout.tp} does not divide the {model.heads} attention heads of "
                         f"{model.name}; use a TP that does ({', '.join(map(str, ok))})")
    if model.layers % layout.pp:
        raise ValueError(f"PP={layout.pp} does not divide the {model.layers} layers of "
                         f"{model.name}; use a divisor of {model.layers}")
    micro_batches(model, layout)


def step_time(model: Transformer, layout: Layout, fabric: str, mfu: float = DEFAULT_MFU,
              gpu: str | None = None) -> StepTime:
    """Time one training step (module docstring).

    The layout must use every GPU it names on one fabric (``layout.n_gpus`` GPUs); memory is
    reported, not enforced (see :attr:`StepTime.fits`).

    Parameters
    ----------
    model : Transformer
        The model.
    layout : Layout
        TP / PP / DP / EP degrees, ZeRO stage, SP, recomputation.
    fabric : str
        A key of :data:`FABRICS`.
    mfu : float
        Model FLOPs utilisation, in (0, 1].
    gpu : str, optional
        Catalogue GPU for compute and HBM; default the fabric's own (:func:`fabric_gpu`).

    Returns
    -------
    StepTime
        Compute, exposed communication and bubble in seconds, per-strategy times, the timed
        collectives and the memory per GPU.
    """
    G = layout.n_gpus
    check_fabric(fabric, G)
    check_layout(model, layout)
    gpu = fabric_gpu(fabric) if gpu is None else gpu
    box = domain_gpus(fabric)
    m = micro_batches(model, layout)
    t_c = compute_time(model, G, mfu, gpu) / m
    timed = []
    per_mb = {"tp": 0.0, "pp": 0.0, "ep": 0.0}
    dp = 0.0
    for c in step_comms(model, layout):
        per_box = layout.per_box(c.strategy, box) if G > box else c.group_size
        if c.collective == "sendrecv":
            # neighbouring stages: in one box only if the whole pipeline is
            per_box = 2 if layout.per_box("pp", box) == layout.pp else 1
        if c.strategy == "dp" and c.group_size != layout.dp:
            per_box = max(1, per_box // layout.ep)
        t = collective_time(c.collective, c.size, fabric, G, c.group_size, per_box)
        how = ("NCCL model, one send/recv step" if c.collective == "sendrecv" else
               "NCCL model, direct all-to-all" if c.collective == "alltoall" else
               "NCCL tuner prediction")
        tc = TimedComm(c, per_box, t, how)
        timed.append(tc)
        if c.strategy == "dp":
            dp += tc.time_per_step
        else:
            per_mb[c.strategy] += tc.time_per_step / m
    t_x = sum(per_mb.values())
    by = {k: v * m for k, v in per_mb.items()}
    by["dp"] = dp
    return StepTime(model, layout, fabric, mfu, m * t_c, m * t_x + dp,
                    (layout.pp - 1) * (t_c + t_x), by, tuple(timed),
                    memory_per_gpu(model, layout, gpu), m)
