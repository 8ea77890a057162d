"""Explorer for notebook 06: pick a fault, its severity and the algorithm; see what it costs."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as W
import numpy as np

from nvlearn.plots.stragglers import ALGO_LABELS, FAULT_LABELS, explorer_figure
from nvlearn.plots.style import NOTEBOOK_WIDTH, new_figure
from nvlearn.straggle import ShiftedExponential, monte_carlo_max, run_fault
from nvlearn.units import format_bytes, format_time
from nvlearn.widgets.base import Explorer, fabric_label, fabric_options, labelled_fabric

__all__ = ["ALGORITHMS", "FABRIC_SIZES", "JITTER", "MAX_DELAY", "N_BYTES", "STEPS",
           "StragglerExplorer", "fabric_choices", "fault_run", "render_stragglers"]

#: The explorer's fabrics: (registry key, nodes).
FABRIC_SIZES = (("dgx_h100", None), ("ib_cluster", 2))
#: The algorithms offered (NCCL's families as the course builds them).
ALGORITHMS = ("ring", "nccl_tree", "nvls", "hierarchical")
#: Per-GPU buffer of the explorer's all-reduce, bytes (a 128M-parameter bf16 gradient).
N_BYTES = 2**28
#: Longest delay of a slow GPU (severity 1), seconds.
MAX_DELAY = 1e-3
#: The compute-jitter model behind the step-time histogram (an assumption, as in the
#: notebook): 10 ms of compute plus an exponential delay of mean 0.5 ms per GPU and step.
JITTER = ShiftedExponential(10e-3, 0.5e-3)
STEPS = 4000


def fabric_choices() -> dict[str, tuple[str, int | None]]:
    """The fabric dropdown's options: label -> (registry key, nodes) (see
    :func:`~nvlearn.widgets.base.fabric_options`)."""
    return fabric_options(FABRIC_SIZES)


def _topology(fabric: str):
    return labelled_fabric(FABRIC_SIZES, fabric)


@lru_cache(maxsize=4)
def _compute_max(p: int) -> np.ndarray:
    return monte_carlo_max(JITTER, p, STEPS, seed=0)


@lru_cache(maxsize=128)
def fault_run(fabric: str, fault: str, severity: float, algorithm: str):
    """The cached :func:`~nvlearn.straggle.run_fault` behind one setting of the explorer.

    Parameters
    ----------
    fabric : str
        A label of :func:`fabric_choices` (registry key and node count).
    fault : {"none", "slow_gpu", "slow_link", "failed_plane", "lost_rail"}
        The fault (:data:`~nvlearn.plots.stragglers.FAULT_LABELS`).
    severity : float
        A slow GPU's delay as a fraction of :data:`MAX_DELAY` (s); a slow link's lost
        fraction of its rate (the link runs at ``max(0.05, 1 - severity)``); ignored for
        the other faults.
    algorithm : str
        A key of :data:`ALGORITHMS`.

    Returns
    -------
    :class:`~nvlearn.straggle.faults.FaultRun`
        The all-reduce of :data:`N_BYTES` per GPU, healthy and with the fault.
    """
    kw = {}
    if fault == "slow_gpu":
        kw["delay"] = severity * MAX_DELAY
    elif fault == "slow_link":
        kw["factor"] = max(0.05, 1.0 - severity)
    return run_fault(_topology(fabric), algorithm, N_BYTES, fault, **kw)


def _message_figure(message: str):
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=1.6)
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, color="#b35c00")
    return fig


def render_stragglers(fabric: str, fault: str, severity: float, algorithm: str):
    """Gantt chart of the faulty all-reduce over the step-time histogram, and a text.

    Parameters
    ----------
    fabric : str
        A label of :func:`fabric_choices` (registry key and node count).
    fault : {"none", "slow_gpu", "slow_link", "failed_plane", "lost_rail"}
        The fault (:data:`~nvlearn.plots.stragglers.FAULT_LABELS`).
    severity : float
        A slow GPU's delay as a fraction of :data:`MAX_DELAY` (s); a slow link's lost
        fraction of its rate (the link runs at ``max(0.05, 1 - severity)``); ignored for
        the other faults.
    algorithm : str
        A key of :data:`ALGORITHMS`.

    Returns
    -------
    figure : matplotlib.figure.Figure
        :func:`~nvlearn.plots.stragglers.explorer_figure`, or a message if the setting is
        not valid.
    text : str
        The healthy and faulty times and the step-time statistics, one per line.
    """
    try:
        run = fault_run(fabric, fault, round(float(severity), 3), algorithm)
    except ValueError as err:
        return _message_figure(f"not a valid setting: {err}"), f"not a valid setting: {err}"
    topo = _topology(fabric)
    compute = _compute_max(topo.n_gpus)
    healthy_steps = compute + run.healthy.time
    fault_steps = compute + run.time
    h, f = run.healthy.time, run.time
    lines = [
        f"{ALGO_LABELS[algorithm]} all-reduce of {format_bytes(N_BYTES)} per GPU on {fabric}, "
        "achievable model (NCCL's rates and latencies)",
        f"fault: {FAULT_LABELS[fault]} — {run.note}",
    ]
    if run.result is None:
        lines.append(f"healthy {format_time(h)}; with the fault the collective as built never "
                     "finishes")
        fault_steps = healthy_steps
    else:
        lines.append(f"healthy {format_time(h)} -> {format_time(f)} with the fault "
                     f"({f / h:.2f} x)")
        lines.append(f"step = slowest of {topo.n_gpus} GPUs' compute (model: "
                     f"{format_time(JITTER.shift)} + exponential of mean "
                     f"{format_time(JITTER.scale)}) + all-reduce: mean "
                     f"{format_time(healthy_steps.mean())} -> "
                     f"{format_time(fault_steps.mean())}, p99 "
                     f"{format_time(np.quantile(healthy_steps, 0.99))} -> "
                     f"{format_time(np.quantile(fault_steps, 0.99))}")
    caption = (f"{STEPS:,} Monte Carlo steps of the compute-jitter model, plus the simulated "
               "all-reduce")
    return explorer_figure(run, healthy_steps, fault_steps, caption), "\n".join(lines)


class StragglerExplorer(Explorer):
    """Fabric, fault, severity and algorithm.

    Severity: a slow GPU's delay as a fraction of 1 ms; a slow link's lost fraction of its
    rate (link at ``1 - severity``); ignored for a failed plane (plane 0) and a lost rail
    (the last). ``.set(...)``, ``.text`` and ``.figure`` work as in
    :class:`~nvlearn.widgets.base.Explorer`.

    Examples
    --------
    >>> ex = StragglerExplorer()
    >>> ex.set(fault="slow_gpu", severity=0.5)
    >>> "500 us late" in ex.text
    True
    """

    def __init__(self) -> None:
        style = {"description_width": "initial"}
        controls = {
            "fabric": W.Dropdown(options=list(fabric_choices()), value=fabric_label("dgx_h100"),
                                 description="fabric", style=style),
            "fault": W.Dropdown(options=[(v, k) for k, v in FAULT_LABELS.items()],
                                value="slow_link", description="fault", style=style),
            "severity": W.FloatSlider(value=0.3, min=0.0, max=0.95, step=0.05,
                                      description="severity", style=style),
            "algorithm": W.Dropdown(options=[(ALGO_LABELS[k], k) for k in ALGORITHMS],
                                    value="ring", description="algorithm", style=style),
        }
        super().__init__(controls, render_stragglers, title="Stragglers and faults explorer")
