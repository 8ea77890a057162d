"""Explorer for notebook 08: design your own NVLink domain and simulate a collective on it."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as W

from nvlearn import collectives, sim, tuner
from nvlearn.nextgen.compare import ALLREDUCE_BYTES, ALLTOALL_BYTES_PER_PAIR
from nvlearn.nextgen.domain import plan_domain
from nvlearn.plots.nextgen import draw_domain
from nvlearn.units import format_bytes, format_rate, format_time
from nvlearn.widgets.base import Explorer

__all__ = ["COLLECTIVES", "DomainExplorer", "GPU_COUNTS", "RADIXES", "TAPERS", "render_domain"]

#: GPU counts offered (the simulation stays well under a second up to 256 GPUs).
GPU_COUNTS = (16, 32, 64, 72, 96, 128, 144, 192, 256)
RADIXES = (32, 64, 72)
TAPERS = (1.0, 1.5, 2.0, 3.0, 4.0)
COLLECTIVES = {"all-to-all (direct)": "alltoall", "all-reduce (ring)": "allreduce"}


@lru_cache(maxsize=64)
def _simulate(n_gpus: int, radix: int, links: int, taper: float, generation: int,
              collective: str):
    plan = plan_domain(n_gpus, radix, links, taper, generation)
    t = plan.build()
    if collective == "alltoall":
        r = sim.simulate(t, collectives.alltoall(t, ALLTOALL_BYTES_PER_PAIR * n_gpus))
    else:
        r = tuner.simulate_allreduce(t, "ring", ALLREDUCE_BYTES)
    return plan, r


def _message_figure(message: str):
    from nvlearn.plots.style import NOTEBOOK_WIDTH, new_figure

    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=1.6)
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, color="#b35c00")
    return fig


def render_domain(gpus: int, radix: int, links: int, taper: float, generation: int,
                  collective: str):
    """The designed domain (one plane drawn, bandwidth bars) and a text report.

    Parameters
    ----------
    gpus : int
        GPUs in the domain.
    radix : int
        Ports per switch chip: 64 for NVSwitch 3, 72 for NVSwitch 4.
    links : int
        NVLinks per GPU (= planes).
    taper : float
        Leaf down:up ratio (1 = non-blocking); ignored when one tier suffices.
    generation : int
        NVLink generation, 4 (H100) or 5 (B200): the link rate and NCCL's constants.
    collective : {"alltoall", "allreduce"}
        Simulate a direct all-to-all or a ring all-reduce on the design (achievable model).

    Returns
    -------
    figure : matplotlib.figure.Figure
        :func:`~nvlearn.plots.nextgen.draw_domain`, or a message if the design is not valid.
    text : str
        Chips, cables, bisection (bytes/s) and the collective's time and busbw, one per
        line; or why the design is not valid.
    """
    try:
        plan, r = _simulate(int(gpus), int(radix), int(links), float(taper), int(generation),
                            collective)
    except ValueError as err:
        return _message_figure(f"not a valid design: {err}"), f"not a valid design: {err}"
    name = "all-to-all" if collective == "alltoall" else "ring all-reduce"
    size = (f"{format_bytes(ALLTOALL_BYTES_PER_PAIR, binary=True)} per pair"
            if collective == "alltoall"
            else f"{format_bytes(ALLREDUCE_BYTES, binary=True)} per GPU")
    bars = {"GPU injection, wire": plan.gpu_bw_per_dir,
            "bisection / GPU, wire": plan.bisection_bw_bidir / plan.n_gpus,
            f"{name} busbw, simulated": r.busbw}
    lines = [
        plan.label,
        f"switch chips: {plan.leaves} leaf + {plan.spines} spine = {plan.switch_chips}; "
        f"NVLinks (cables): {plan.gpu_cables:,} GPU-leaf + {plan.spine_cables:,} leaf-spine = "
        f"{plan.cables:,}",
        f"per leaf: {plan.gpus_per_leaf} GPUs down, {plan.up_per_leaf} links up"
        + (f" in bundles of {plan.bundle} to {plan.spines_per_plane} spines per plane"
           if plan.tiers == 2 else " (one tier: no spines)"),
        f"bisection {format_rate(plan.bisection_bw_bidir)} both directions (closed form, wire)",
        f"{name} of {size}: {format_time(r.time)}, busbw {format_rate(r.busbw)} per direction "
        "(simulated, achievable model: NCCL's rates)",
    ]
    caption = f"{name}, {size}; simulated = achievable model"
    return draw_domain(plan, bars, caption), "\n".join(lines)


class DomainExplorer(Explorer):
    """GPUs, switch radix, links per GPU, taper, NVLink generation and a collective.

    ``.set(...)``, ``.text`` and ``.figure`` work as in
    :class:`~nvlearn.widgets.base.Explorer`.

    Examples
    --------
    >>> ex = DomainExplorer()
    >>> ex.set(gpus=72, radix=72, generation=5)
    >>> "1 tier" in ex.text
    True
    """

    def __init__(self) -> None:
        style = {"description_width": "initial"}
        controls = {
            "gpus": W.Dropdown(options=GPU_COUNTS, value=256, description="GPUs", style=style),
            "radix": W.Dropdown(options=RADIXES, value=64, description="ports per chip",
                                style=style),
            "links": W.IntSlider(value=18, min=1, max=18, description="links per GPU",
                                 style=style),
            "taper": W.Dropdown(options=TAPERS, value=2.0, description="taper", style=style),
            "generation": W.Dropdown(options=[("NVLink 4", 4), ("NVLink 5", 5)], value=4,
                                     description="NVLink", style=style),
            "collective": W.Dropdown(options=list(COLLECTIVES.items()), value="alltoall",
                                     description="collective", style=style),
        }
        super().__init__(controls, render_domain, title="Design-your-own NVLink domain")
