"""Four NVLink domains side by side: the DGX H100, the announced H100 NVLink Switch System, the
DGX GH200 and the GB200 NVL72 — built, measured (max-flow bisection) and simulated with the
same collectives under the course's default achievable model.

What is modelled for the DGX GH200: the catalogue records its 256 GPUs, its NVLink 4 and
NVIDIA's "57.6 TB/s of all-to-all bandwidth" — the same figure, worded the same way, as the
H100 NVLink Switch System's, whose two-tier 2:1 tapered design (:func:`nvlink_pod` with 32
nodes) reproduces it (its bisection, both directions summed, is 57.6 TB/s). It records no
other detail of the GH200's wiring, so the GH200 is modelled as that same fabric with an
H100-class GPU (the GH200's Hopper GPU; the superchip's Grace CPU and its NVLink-C2C are not
modelled). Its rows equal the pod's by construction; :func:`nvlearn.nextgen.plan_domain`
builds other readings (e.g. a non-blocking one) to compare.

References
----------
NVIDIA, "NVIDIA H100 Tensor Core GPU Architecture" white paper, 2022 (the NVLink Switch
System, 57.6 TB/s all-to-all); A. Ishii and R. Wells, Hot Chips 34, 2022 (the NVLink-Network
Switch); NVIDIA, "Announcing NVIDIA DGX GH200: the first 100 terabyte GPU memory system",
2023; NVIDIA, "NVIDIA Blackwell Architecture Technical Brief", 2024 (GB200 NVL72).

Examples
--------
>>> [f.key for f in FABRICS]
['dgx_h100', 'nvlink_pod', 'dgx_gh200', 'gb200_nvl72']
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nvlearn import collectives, sim, specs, tuner
from nvlearn import topology as topo
from nvlearn.collectives.metrics import busbw
from nvlearn.topology import Topology
from nvlearn.topology.core import NODE_NVSWITCH

__all__ = [
    "ALLREDUCE_BYTES", "ALLTOALL_BYTES_PER_PAIR", "FabricEntry", "FABRICS", "entry", "build",
    "switch_chips", "cables", "Row", "compare_row", "compare_fabrics", "StepRow",
    "step_comparison", "comparison_table", "busbw_curves",
]

#: Message sizes of the comparison: all-reduce per-rank buffer, all-to-all per-pair block.
ALLREDUCE_BYTES = 2**28
ALLTOALL_BYTES_PER_PAIR = 2**20


def _gh200() -> Topology:
    pod = specs.system("nvlink_switch_system")
    t = topo.nvlink_pod(pod.nodes)
    return dataclasses.replace(t, name=f"{specs.system(pod.shipped_as).name.split(' (')[0]} "
                                        "(as modelled: the NVLink Switch System)")


def _pod() -> Topology:
    return topo.nvlink_pod(specs.system("nvlink_switch_system").nodes)


@dataclass(frozen=True)
class FabricEntry:
    """One fabric of the comparison: key, label, status (shipped or not), builder, the
    notebook-07 fabric key its training step uses (None: not placeable), and the entry whose
    fabric it is modelled as (None: its own), whose figures it then shares."""

    key: str
    label: str
    status: str
    build: Callable[[], Topology]
    step_fabric: str | None
    modelled_as: str | None = None


def _status() -> dict[str, str]:
    pod = specs.system("nvlink_switch_system")
    gh = specs.system(pod.shipped_as)
    nvl = specs.system("gb200_nvl72")
    return {
        "dgx_h100": f"shipped {specs.gpu('h100').year}",
        "nvlink_pod": f"announced {pod.announced}, not generally shipped",
        "dgx_gh200": f"shipped {gh.announced}",
        "gb200_nvl72": f"shipped {specs.gpu(nvl.gpu).year}",
    }


FABRICS: tuple[FabricEntry, ...] = (
    FabricEntry("dgx_h100", "DGX H100", "", topo.dgx_h100, "dgx_h100"),
    FabricEntry("nvlink_pod", "H100 NVLink Switch System", "", _pod, "nvlink_pod"),
    FabricEntry("dgx_gh200", "DGX GH200 (modelled as the pod)", "", _gh200, "nvlink_pod",
                modelled_as="nvlink_pod"),
    FabricEntry("gb200_nvl72", "GB200 NVL72", "", topo.gb200_nvl72, "gb200_nvl72"),
)


def entry(key: str) -> FabricEntry:
    """The :data:`FABRICS` entry ``key`` (with its status filled from the catalogue)."""
    for f in FABRICS:
        if f.key == key:
            return dataclasses.replace(f, status=_status()[key])
    raise ValueError(f"unknown fabric {key!r}; choose one of {[f.key for f in FABRICS]}")


@functools.cache
def build(key: str) -> Topology:
    """The built (cached) Topology of fabric ``key``."""
    return entry(key).build()


def switch_chips(t: Topology) -> int:
    """NVSwitch chips in a Topology."""
    return int(np.sum(np.asarray(t.node_kind) == NODE_NVSWITCH))


def cables(t: Topology) -> int:
    """NVLinks (each full-duplex link counted once, a bundle of k as k)."""
    return int(np.asarray(t.link_count).sum()) // 2


@dataclass(frozen=True)
class Row:
    """One fabric's figures (SI units). Wire figures: ``gpu_bw_per_dir`` and
    ``bisection_bidir``; every time is the achievable model (NCCL's rates)."""

    key: str
    label: str
    status: str
    n_gpus: int
    gpu: str
    nvlink_generation: int
    switch_chips: int
    cables: int
    gpu_bw_per_dir: float
    bisection_bidir: float
    nccl_choice: str
    nccl_allreduce_busbw: float
    sim_ring_busbw: float
    sim_alltoall_time: float
    sim_alltoall_busbw: float

    @property
    def bisection_per_gpu_per_dir(self) -> float:
        """Bisection / GPUs: each GPU's share of the cut, per direction (bytes/s)."""
        return self.bisection_bidir / self.n_gpus


@functools.cache
def compare_row(key: str, allreduce_bytes: float = ALLREDUCE_BYTES,
                alltoall_bytes_per_pair: float = ALLTOALL_BYTES_PER_PAIR) -> Row:
    """Measure and simulate one fabric (cached).

    All-reduce: NCCL's tuner choice and its predicted busbw, and the ring Schedule simulated
    (best pipeline depth by its closed form). All-to-all: the direct Schedule, every GPU
    sending ``alltoall_bytes_per_pair`` to every other, simulated. Both under the default
    ``achievable`` model.

    Parameters
    ----------
    key : str
        A key of :data:`FABRICS`.
    allreduce_bytes : float
        All-reduce buffer per GPU, bytes (default :data:`ALLREDUCE_BYTES`).
    alltoall_bytes_per_pair : float
        Bytes every GPU sends to every other in the all-to-all.

    Returns
    -------
    Row
        Counts, the GPU's NVLink bandwidth (bytes/s per direction), the max-flow bisection
        (bytes/s, both directions), NCCL's pick, busbw (bytes/s) and the all-to-all time (s).

    Examples
    --------
    >>> r = compare_row("dgx_h100")
    >>> r.n_gpus, r.switch_chips, round(r.gpu_bw_per_dir / 1e9)
    (8, 4, 450)
    """
    f = entry(key)
    if f.modelled_as is not None:  # the same fabric: its figures, not a second simulation
        return dataclasses.replace(compare_row(f.modelled_as, allreduce_bytes,
                                               alltoall_bytes_per_pair),
                                   key=f.key, label=f.label, status=f.status)
    t = build(key)
    g = specs.gpu(t.gpu)
    gen = specs.nvlink(g.nvlink_generation)
    choice = tuner.choose("allreduce", allreduce_bytes, t)
    sweep = tuner.simulated_sweep(t, [allreduce_bytes], algorithms=["ring"])
    p = t.n_gpus
    a2a = sim.simulate(t, collectives.alltoall(t, alltoall_bytes_per_pair * p))
    return Row(f.key, f.label, f.status, p, t.gpu, gen.generation, switch_chips(t), cables(t),
               g.nvlink_links * gen.link_bw_per_dir, topo.bisection_bw_bidir(t),
               f"{tuner.NCCL_NAMES[choice.algorithm]}/{tuner.NCCL_NAMES[choice.protocol]}",
               busbw("allreduce", allreduce_bytes, p, choice.time),
               busbw("allreduce", allreduce_bytes, p, float(sweep.time[0, 0])), a2a.time,
               a2a.busbw)


def compare_fabrics(keys: tuple[str, ...] | None = None) -> list[Row]:
    """:func:`compare_row` for every fabric (default: all of :data:`FABRICS`)."""
    return [compare_row(k) for k in (keys or tuple(f.key for f in FABRICS))]


@dataclass(frozen=True)
class StepRow:
    """One training step (notebook 07's model) on a fabric: seconds, NCCL model."""

    key: str
    label: str
    layout: str
    gpu: str
    total: float
    compute: float
    exposed_comm: float
    bubble: float


def step_comparison(model: str = "gpt_39b", layouts: tuple[tuple[int, int, int], ...] = (
        (8, 2, 4), (16, 2, 2)), keys: tuple[str, ...] | None = None) -> list[StepRow]:
    """One step of ``model`` for each (TP, PP, DP) layout on each fabric that can hold it
    (:func:`nvlearn.parallelism.step_time`, each fabric's own GPU; the DGX H100's 8 GPUs hold
    no layout of more than 8 GPUs, so it has no row for them).

    Parameters
    ----------
    model : str
        A preset of :func:`nvlearn.parallelism.preset`.
    layouts : tuple of (int, int, int)
        (TP, PP, DP) degrees to time.
    keys : tuple of str, optional
        Keys of :data:`FABRICS` (default all).

    Returns
    -------
    list of StepRow
        Step, compute, exposed communication and bubble times in seconds.

    Examples
    --------
    >>> rows = step_comparison(layouts=((8, 2, 4),), keys=("gb200_nvl72",))
    >>> rows[0].gpu, rows[0].total > rows[0].compute
    ('b200', True)
    """
    from nvlearn.parallelism import Layout, preset, step_time
    from nvlearn.parallelism.steptime import check_fabric, fabric_gpu

    m = preset(model)
    out = []
    for key in keys or tuple(f.key for f in FABRICS):
        f = entry(key)
        for tp, pp, dp in layouts:
            lay = Layout(tp=tp, pp=pp, dp=dp)
            try:
                check_fabric(f.step_fabric, lay.n_gpus)
            except ValueError:
                continue
            st = step_time(m, lay, f.step_fabric)
            out.append(StepRow(key, f.label, lay.label, fabric_gpu(f.step_fabric), st.total,
                               st.compute, st.exposed_comm, st.bubble))
    return out


def comparison_table(rows: list[Row], steps: list[StepRow] | None = None) -> str:
    """A plain-text table of :func:`compare_fabrics` rows (and, if given, the step times):
    deterministic, rounded, units and directions in the headers."""
    head = (f"{'fabric':<34}{'GPUs':>5} {'GPU':<5}{'NVL':>4}{'chips':>6}{'cables':>7}"
            f"{'GPU GB/s/dir':>13}{'bisect TB/s bidir':>18}{'NCCL choice':>16}"
            f"{'NCCL busbw':>11}{'sim ring':>9}{'sim a2a us':>11}{'a2a busbw':>10}")
    lines = ["all-reduce of "
             f"{ALLREDUCE_BYTES / 2**20:g} MiB, all-to-all of {ALLTOALL_BYTES_PER_PAIR / 2**20:g}"
             " MiB per pair; GB/s per direction; wire: GPU GB/s/dir and bisection; all else "
             "achievable model (NCCL's rates)", head]
    for r in rows:
        lines.append(
            f"{r.label:<34}{r.n_gpus:>5} {r.gpu:<5}{r.nvlink_generation:>4}{r.switch_chips:>6}"
            f"{r.cables:>7}{r.gpu_bw_per_dir / 1e9:>13.0f}{r.bisection_bidir / 1e12:>18.1f}"
            f"{r.nccl_choice:>16}{r.nccl_allreduce_busbw / 1e9:>11.0f}"
            f"{r.sim_ring_busbw / 1e9:>9.0f}{r.sim_alltoall_time * 1e6:>11.0f}"
            f"{r.sim_alltoall_busbw / 1e9:>10.0f}")
    if steps:
        lines.append("")
        lines.append(f"{'one training step (NCCL model)':<34}{'layout':<18}{'GPU':<6}"
                     f"{'step s':>8}{'compute':>9}{'comm':>7}{'bubble':>8}")
        for s in steps:
            lines.append(f"{s.label:<34}{s.layout:<18}{s.gpu:<6}{s.total:>8.2f}"
                         f"{s.compute:>9.2f}{s.exposed_comm:>7.2f}{s.bubble:>8.2f}")
    return "\n".join(lines)


def busbw_curves(keys: tuple[str, ...] = ("dgx_h100", "nvlink_pod", "gb200_nvl72"),
                 sizes=(2**20, 2**22, 2**24, 2**26, 2**28)
                 ) -> dict[str, tuple[np.ndarray, ...]]:
    """All-reduce busbw vs size per fabric: ``{key: (sizes, simulated ring busbw, NCCL's
    choice busbw)}``, bytes/s per direction, achievable model (ring: its best pipeline depth
    by the closed form; NCCL: the tuner's prediction for its own choice).

    Examples
    --------
    >>> x, ring, nccl = busbw_curves(("dgx_h100",), (2**20,))["dgx_h100"]
    >>> bool(ring[0] > 0 and nccl[0] > 0)
    True
    """
    out = {}
    x = np.asarray(sizes, dtype=float)
    for key in keys:
        t = build(key)
        p = t.n_gpus
        sweep = tuner.simulated_sweep(t, x, algorithms=["ring"])
        ring = np.array([busbw("allreduce", n, p, s)
                         for n, s in zip(x, sweep.time[0], strict=True)])
        nccl = np.array([busbw("allreduce", n, p, tuner.choose("allreduce", n, t).time)
                         for n in x])
        out[key] = (x, ring, nccl)
    return out
