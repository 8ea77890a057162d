"""Explorer for notebook 05: route a batch of tokens, see the all-to-all it makes and its time."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as W
import matplotlib.pyplot as plt

from nvlearn.moe import MoEComm, route, simulate_moe
from nvlearn.plots.moe import overview_figure
from nvlearn.plots.style import NOTEBOOK_WIDTH, new_figure
from nvlearn.sim.models import injection_bw_per_dir
from nvlearn.units import format_bytes, format_time
from nvlearn.widgets.base import Explorer, fabric_label, fabric_options, labelled_fabric

__all__ = ["BYTES_PER_ELEM", "CAPACITY_CHOICES", "FABRIC_SIZES", "MoEExplorer",
           "ROUTING_CHOICES", "fabric_choices", "moe_run", "render_moe"]

#: The explorer's fabrics: (registry key, nodes). Small on purpose: a ragged all-to-all
#: among p GPUs is p(p-1) flows, and the explorer must answer in well under a second.
FABRIC_SIZES = (("dgx_h100", None), ("nvlink_pod", 2), ("ib_cluster", 2))
#: Capacity-factor choices; 0 stands for dropless routing (no capacity).
CAPACITY_CHOICES = (("dropless", 0.0), ("0.5", 0.5), ("0.75", 0.75), ("1.0", 1.0),
                    ("1.25", 1.25), ("1.5", 1.5), ("2.0", 2.0))
ROUTING_CHOICES = (("flat", "flat"), ("node-limited + dedup", "dedup"))
BYTES_PER_ELEM = 2  # bf16 token rows in both directions


def fabric_choices() -> dict[str, tuple[str, int | None]]:
    """The fabric dropdown's options: label -> (registry key, nodes) (see
    :func:`~nvlearn.widgets.base.fabric_options`)."""
    return fabric_options(FABRIC_SIZES)


def _topology(fabric: str):
    return labelled_fabric(FABRIC_SIZES, fabric)


@lru_cache(maxsize=64)
def moe_run(fabric: str, experts: int, top_k: int, skew: float, capacity: float, tokens: int,
            hidden: int, routing: str) -> MoEComm:
    """Route and simulate one configuration (cached: revisiting a setting is instant).

    Node-limited routing allows half of the fabric's nodes per token (at least one).

    Parameters
    ----------
    fabric : str
        A label of :func:`fabric_choices` (registry key and node count).
    experts : int
        Experts in the layer (spread evenly over the GPUs).
    top_k : int
        Experts each token is routed to.
    skew : float
        Zipf exponent of expert popularity (0 = uniform).
    capacity : float
        Capacity factor; 0 for dropless routing (no capacity).
    tokens : int
        Tokens per GPU.
    hidden : int
        Hidden size: a token row is ``hidden`` bf16 elements (:data:`BYTES_PER_ELEM`
        bytes each) in dispatch and in combine.
    routing : {"flat", "dedup"}
        Flat all-to-all, or node-limited routing (half the nodes per token, at least one)
        with one copy per node.

    Returns
    -------
    :class:`~nvlearn.moe.MoEComm`
        The simulated dispatch and combine (achievable model), with its routing.
    """
    topo = _topology(fabric)
    n_nodes = max(1, topo.n_gpus // 8)
    r = route(topo.n_gpus, tokens, experts, top_k, skew=skew,
              capacity_factor=capacity if capacity > 0 else None,
              max_nodes=max(1, n_nodes // 2) if routing == "dedup" else None, seed=0)
    return simulate_moe(topo, r, hidden, mode=routing, dispatch_bytes=BYTES_PER_ELEM,
                        combine_bytes=BYTES_PER_ELEM)


def _error_figure(message: str) -> plt.Figure:
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=2.0)
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, fontsize=10,
            color="#b35c00")
    return fig


def render_moe(experts: int, top_k: int, skew: float, capacity: float, tokens: int,
               hidden: int, fabric: str, routing: str):
    """Traffic heatmap + per-GPU receive bytes, and a text with drops, times and the limit.

    Parameters
    ----------
    experts : int
        Experts in the layer (spread evenly over the GPUs).
    top_k : int
        Experts each token is routed to.
    skew : float
        Zipf exponent of expert popularity (0 = uniform).
    capacity : float
        Capacity factor; 0 for dropless routing (no capacity).
    tokens : int
        Tokens per GPU.
    hidden : int
        Hidden size: a token row is ``hidden`` bf16 elements (:data:`BYTES_PER_ELEM`
        bytes each) in dispatch and in combine.
    fabric : str
        A label of :func:`fabric_choices` (registry key and node count).
    routing : {"flat", "dedup"}
        Flat all-to-all, or node-limited routing (half the nodes per token, at least one)
        with one copy per node.

    Returns
    -------
    figure : matplotlib.figure.Figure
        The overview figure, or a message if the setting is not valid.
    text : str
        Routing, drops, dispatch and combine times, the hottest GPU and the limiting link,
        one per line; or why the setting is not valid.
    """
    try:
        comm = moe_run(fabric, experts, top_k, round(skew, 3), capacity, tokens, hidden,
                       routing)
    except ValueError as err:  # e.g. top_k > experts, experts not divisible by GPUs
        return _error_figure(f"not a valid setting: {err}"), f"not a valid setting: {err}"
    r = comm.routing
    cap = ("dropless (no capacity)" if r.capacity is None
           else f"capacity {r.capacity} slots per (GPU, expert)")
    recv = comm.recv_bytes
    link = comm.limiting_link()
    bound = comm.endpoint_bound(injection_bw_per_dir(_topology(fabric)))   # NCCL's rates
    lines = [
        f"{r.n_experts} experts on {r.n_gpus} GPUs ({r.experts_per_gpu} per GPU), top-{r.top_k}, "
        f"{r.tokens_per_gpu:,} tokens per GPU, hidden {hidden:,} (bf16 rows of "
        f"{format_bytes(hidden * BYTES_PER_ELEM)})",
        f"{cap}: {r.drop_fraction:.1%} of assignments dropped, {r.tokens_fully_dropped:,} "
        "tokens lost every expert",
        f"dispatch {format_time(comm.dispatch_time)} + combine {format_time(comm.combine_time)}"
        f" = {format_time(comm.time)} on {fabric} (achievable model: NCCL's rates and "
        "latencies)"
        + (f" ({len(comm.dispatch)} stages each way)" if len(comm.dispatch) > 1 else ""),
        f"busiest GPU receives {recv.max() / recv.mean():.2f} x the mean; GPU-link bound "
        f"{format_time(bound)}; bytes leaving a node: "
        f"{format_bytes(comm.inter_node_bytes / r.n_gpus)} per GPU",
    ]
    if link is not None:
        lines.append(f"limiting link: {link.label} ({comm.limiting_link_kind()}, "
                     f"{link.utilisation:.0%} busy)")
    return overview_figure(comm), "\n".join(lines)


class MoEExplorer(Explorer):
    """Experts, top-k, skew, capacity factor, tokens, hidden size, fabric and routing.

    ``.set(...)``, ``.text`` and ``.figure`` work as in :class:`~nvlearn.widgets.base.Explorer`.

    Examples
    --------
    >>> ex = MoEExplorer()
    >>> ex.set(skew=1.5)
    >>> "busiest GPU receives" in ex.text
    True
    """

    def __init__(self) -> None:
        style = {"description_width": "initial"}
        controls = {
            "experts": W.Dropdown(options=[8, 16, 32, 64, 128, 256], value=64,
                                  description="experts", style=style),
            "top_k": W.IntSlider(value=2, min=1, max=8, description="top-k", style=style,
                                  continuous_update=False),
            "skew": W.FloatSlider(value=0.5, min=0.0, max=2.0, step=0.1, description="skew",
                                  style=style, continuous_update=False),
            "capacity": W.Dropdown(options=CAPACITY_CHOICES, value=1.25,
                                   description="capacity factor", style=style),
            "tokens": W.Dropdown(options=[256, 512, 1024, 2048], value=1024,
                                 description="tokens / GPU", style=style),
            "hidden": W.Dropdown(options=[1024, 2048, 4096, 7168], value=4096,
                                 description="hidden", style=style),
            "fabric": W.Dropdown(options=list(fabric_choices()),
                                 value=fabric_label("nvlink_pod", 2),
                                 description="fabric", style=style),
            "routing": W.ToggleButtons(options=ROUTING_CHOICES, value="flat",
                                       description="routing", style=style),
        }
        super().__init__(controls, render_moe, title="MoE all-to-all explorer")
