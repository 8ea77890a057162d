"""Explorer for notebook 07: a model, a (TP, PP, DP, EP) layout and a fabric -> the step
split, the bytes between GPUs (or boxes) by strategy, and memory per GPU with the HBM rule."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as W
import matplotlib.pyplot as plt

from nvlearn.parallelism import (
    FABRICS,
    PRESETS,
    Layout,
    bytes_by_strategy,
    memory_per_gpu,
    pair_traffic,
    preset,
    step_comms,
    step_time,
)
from nvlearn.plots.parallelism import draw_memory, draw_pair_traffic, draw_step_split
from nvlearn.plots.style import NOTEBOOK_WIDTH, new_figure
from nvlearn.topology import FABRICS as REGISTRY
from nvlearn.widgets.base import Explorer

__all__ = ["DEGREES", "GLOBAL_BATCHES", "GPU_COUNTS", "HEATMAP", "PP_DEGREES",
           "ParallelismExplorer", "render_parallelism"]

GPU_COUNTS = (8, 16, 32, 64, 128, 256)
DEGREES = (1, 2, 4, 8, 16, 32, 64)
PP_DEGREES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20)
GLOBAL_BATCHES = (8, 16, 32, 64, 128, 256, 512, 1024, 1536, 1792, 2048)
HEATMAP = (("all strategies", "all"), ("TP", "tp"), ("PP", "pp"), ("DP / ZeRO", "dp"),
           ("EP", "ep"))


@lru_cache(maxsize=256)
def _traffic(key: str, batch: int, layout: Layout, strategy: str):
    model = preset(key).with_(global_batch=batch)
    return pair_traffic(model, layout, None if strategy == "all" else strategy)


def _refusal_figure(message: str) -> plt.Figure:
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=2.0)
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, fontsize=10,
            color="#b30000")
    return fig


def render_parallelism(model: str, batch: int, fabric: str, gpus: int, tp: int, pp: int,
                       ep: int, zero: int, heatmap: str):
    """Figure (step split | traffic heatmap | memory) and a text; a layout that is not
    whole, or does not fit in HBM, is refused with the reason.

    Parameters
    ----------
    model : str
        A preset name (:func:`~nvlearn.parallelism.preset`).
    batch : int
        Global batch, sequences per step.
    fabric : str
        A fabric registry key (:data:`nvlearn.topology.FABRICS`).
    gpus : int
        GPUs; TP x PP must divide it, the rest is data parallelism.
    tp, pp, ep : int
        Tensor-, pipeline- and expert-parallel degrees (EP > 1 needs a MoE model).
    zero : {0, 1, 2, 3}
        ZeRO stage.
    heatmap : str
        Which traffic to draw: ``"all"``, ``"tp"``, ``"pp"``, ``"dp"`` or ``"ep"``.

    Returns
    -------
    figure : matplotlib.figure.Figure
        Step split, pair traffic and memory; or the refusal.
    text : str
        The step's summary, bubble, bytes sent and exposed time per strategy, memory per
        GPU; or the refusal.
    """
    m = preset(model)
    try:
        m = m.with_(global_batch=batch)
        if ep > 1 and not m.is_moe:
            raise ValueError(f"{m.name} is dense: EP needs a MoE model")
        if gpus % (tp * pp):
            raise ValueError(f"TP x PP = {tp * pp} does not divide {gpus} GPUs")
        lay = Layout(tp, pp, gpus // (tp * pp), ep=ep, zero=zero)
        st = step_time(m, lay, fabric)
    except ValueError as err:
        msg = f"refused: {err}"
        return _refusal_figure(msg), msg
    mem = memory_per_gpu(m, lay)
    if not mem.fits:
        msg = f"refused: {lay.label} {mem.refusal()}"
        fig = _refusal_figure(msg)
        return fig, msg
    fig, axes = new_figure(2, 2, width=NOTEBOOK_WIDTH, height=6.2,
                           gridspec_kw={"height_ratios": [1, 3.2], "width_ratios": [1.2, 1]})
    grid = axes[0, 0].get_gridspec()
    for ax in axes[0]:
        ax.remove()
    top = fig.add_subplot(grid[0, :])
    top.spines[["top", "right"]].set_visible(False)
    draw_step_split(top, [st], [f"{lay.label}\n{REGISTRY[fabric].label}"])
    top.legend(loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=3)
    top.set_xlabel("s per step (NCCL model, achievable rates)")
    draw_pair_traffic(axes[1, 0], _traffic(model, batch, lay, heatmap), 8,
                      f"{dict((v, k) for k, v in HEATMAP)[heatmap]}: bytes per step")
    draw_memory(axes[1, 1], [mem], ["first pipeline stage"])
    axes[1, 1].legend(loc="upper center", ncol=2)
    axes[1, 1].set_title(lay.label)
    fig.tight_layout()
    sent = bytes_by_strategy(step_comms(m, lay))
    lines = [st.summary(),
             f"{st.micro_batches} micro-batches per pipeline; bubble (p-1)/(m+p-1) = "
             f"{st.bubble / (st.total - st.comm_by_strategy['dp']):.1%} of the pipeline",
             "bytes sent per GPU per step: " + ", ".join(
                 f"{k.upper()} {v / 1e9:,.1f} GB" for k, v in sent.items()),
             "exposed communication: " + ", ".join(
                 f"{k.upper()} {v:.3f} s" for k, v in st.comm_by_strategy.items() if v > 0),
             f"memory per GPU: {mem.total / 1e9:.1f} GB of {mem.capacity / 1e9:.0f} GB "
             f"(weights {mem.weights / 1e9:.1f}, gradients {mem.gradients / 1e9:.1f}, "
             f"optimizer {mem.optimizer / 1e9:.1f}, activations {mem.activations / 1e9:.1f})"]
    return fig, "\n".join(lines)


class ParallelismExplorer(Explorer):
    """Model, global batch, fabric, GPUs, TP, PP, EP, ZeRO stage and the heatmap's strategy
    (DP = GPUs / (TP x PP)).

    Examples
    --------
    >>> ex = ParallelismExplorer()
    >>> ex.set(tp=64)
    >>> ex.text.startswith("refused")
    True
    """

    def __init__(self) -> None:
        style = {"description_width": "initial"}
        lay = {"width": "170px"}
        controls = {
            "model": W.Dropdown(options=[(v.name, k) for k, v in PRESETS.items()],
                                value="gpt_76b", description="model", style=style,
                                layout={"width": "330px"}),
            "batch": W.Dropdown(options=GLOBAL_BATCHES, value=1792, description="global batch",
                                style=style, layout=lay),
            "fabric": W.Dropdown(options=[(REGISTRY[f].label, f) for f in FABRICS],
                                 value="nvlink_pod", description="fabric", style=style,
                                 layout={"width": "230px"}),
            "gpus": W.Dropdown(options=GPU_COUNTS, value=256, description="GPUs", style=style,
                               layout=lay),
            "tp": W.Dropdown(options=DEGREES, value=8, description="TP", style=style, layout=lay),
            "pp": W.Dropdown(options=PP_DEGREES, value=4, description="PP", style=style,
                             layout=lay),
            "ep": W.Dropdown(options=(1, 2, 4, 8), value=1, description="EP", style=style,
                             layout=lay),
            "zero": W.Dropdown(options=(0, 1, 2, 3), value=0, description="ZeRO stage",
                               style=style, layout=lay),
            "heatmap": W.Dropdown(options=HEATMAP, value="all", description="heatmap",
                                  style=style, layout={"width": "220px"}),
        }
        super().__init__(controls, render_parallelism, title="Parallelism layout explorer "
                         "(times: NCCL's model at achievable rates)")
        rows = list(self.controls.values())
        self.widget.children = (self.widget.children[0], W.HBox(rows[:4]), W.HBox(rows[4:]),
                                *self.widget.children[2:])
