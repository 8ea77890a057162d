"""Explorer for notebook 01: one data-parallel training step, its timeline and its cost."""

from __future__ import annotations

import ipywidgets as W

from nvlearn.plots.sgd import FABRIC_STYLE, timeline_figure
from nvlearn.sgd.comm import FABRICS, allreduce_time
from nvlearn.sgd.cost import DEFAULT_TOKEN_BUDGET, idle_cost
from nvlearn.sgd.steptime import (
    DDP_BUCKET_BYTES,
    DEFAULT_GLOBAL_BATCH_TOKENS,
    MODEL_SIZES,
    SCALING_GPUS,
    step_time,
)
from nvlearn.topology import FABRICS as REGISTRY
from nvlearn.units import format_time
from nvlearn.widgets.base import Explorer

__all__ = ["BATCHES", "BUCKETS", "SGDExplorer", "render_step"]

#: Global batch choices, tokens.
BATCHES = {"1M tokens": 2**20, "4M tokens": 2**22, "16M tokens": 2**24}
#: Bucket cap choices, bytes.
BUCKETS = {"25 MiB (DDP default)": DDP_BUCKET_BYTES, "100 MiB": 100 * 2**20,
           "1 GiB": 2**30}


def render_step(workers: int, batch: int, fabric: str, model: str, overlap: bool,
                bucket: int):
    """Timeline figure of one step and a text with its numbers and idle cost.

    Parameters
    ----------
    workers : int
        Data-parallel GPUs.
    batch : int
        Global batch, tokens per step.
    fabric : str
        A fabric key of :data:`~nvlearn.plots.sgd.FABRIC_STYLE`.
    model : str
        A key of :data:`nvlearn.sgd.MODEL_SIZES` (parameter count).
    overlap : bool
        Overlap the gradient all-reduce with the backward pass, bucket by bucket (DDP).
    bucket : int
        DDP bucket cap, bytes.

    Returns
    -------
    figure : matplotlib.figure.Figure
        The step's timeline.
    text : str
        Compute, all-reduce and exposed times, scaling efficiency and the idle GPU-hours
        and energy over the default token budget, one per line.
    """
    st = step_time(MODEL_SIZES[model], workers, fabric, global_batch_tokens=batch,
                   overlap=overlap, bucket_bytes=bucket)
    cost = idle_cost(st, DEFAULT_TOKEN_BUDGET)
    fig = timeline_figure(st)
    lines = [
        f"{model} on {workers:,} GPUs, {FABRIC_STYLE[fabric][1]}; "
        f"{st.tokens_per_gpu:,.0f} tokens per GPU per step",
        f"compute {format_time(st.compute)} | one all-reduce of the whole gradient "
        f"{format_time(st.comm)} ({st.allreduce.method}) | exposed {format_time(st.exposed_comm)}",
        f"step {format_time(st.step)} | scaling efficiency {100 * st.efficiency:.1f} %",
        f"over {DEFAULT_TOKEN_BUDGET:.3g} tokens: {cost.idle_gpu_hours:,.0f} GPU-hours idle, "
        f"<= {cost.idle_energy_kwh / 1e3:,.1f} MWh at {cost.board_power:.0f} W per GPU",
    ]
    if overlap and st.timeline.bucket_bytes.size > 1:
        one = allreduce_time(fabric, workers, bucket)
        lines.append(f"each full bucket is its own all-reduce: NCCL picks {one.label}, "
                     f"{format_time(one.time)} of which {format_time(one.latency_term)} latency")
    return fig, "\n".join(lines)


class SGDExplorer(Explorer):
    """Workers, global batch, fabric, model size, overlap and bucket size -> one step.

    ``.set(...)``, ``.text`` and ``.figure`` work as in :class:`~nvlearn.widgets.base.Explorer`.

    Examples
    --------
    >>> ex = SGDExplorer()
    >>> ex.set(workers=8192, fabric="ib_cluster")
    >>> "8,192 GPUs" in ex.text
    True
    """

    def __init__(self) -> None:
        controls = {
            "workers": W.Dropdown(options=[(f"{n:,}", n) for n in SCALING_GPUS], value=1024,
                                  description="GPUs"),
            "batch": W.Dropdown(options=list(BATCHES.items()),
                                value=DEFAULT_GLOBAL_BATCH_TOKENS, description="global batch"),
            "fabric": W.ToggleButtons(options=[(REGISTRY[f].label, f) for f in FABRICS],
                                      value="ib_cluster", description="fabric"),
            "model": W.Dropdown(options=list(MODEL_SIZES), value="7B", description="model"),
            "overlap": W.Checkbox(value=True, description="DDP overlap"),
            "bucket": W.Dropdown(options=list(BUCKETS.items()), value=DDP_BUCKET_BYTES,
                                 description="bucket"),
        }
        super().__init__(controls, render_step, title="One data-parallel training step")
