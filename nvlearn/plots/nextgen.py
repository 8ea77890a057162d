"""Figures for notebook 08: NVLink 4 vs 5 chains, the four domains compared, a designed domain."""

from __future__ import annotations

import textwrap

import numpy as np

from nvlearn.nextgen.compare import Row
from nvlearn.nextgen.domain import DomainPlan
from nvlearn.nextgen.nvlink5 import GenerationStep
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure

__all__ = ["FABRIC_SERIES", "draw_busbw_vs_size", "draw_domain", "draw_fabric_comparison",
           "draw_generation_chain"]

#: Colour of each compared fabric (GH200 as modelled shares the pod's fabric, not its colour).
FABRIC_SERIES = {"dgx_h100": SERIES[0], "nvlink_pod": SERIES[1], "dgx_gh200": SERIES[2],
                 "gb200_nvl72": FABRIC_COLOURS["nvlink"]}


def draw_generation_chain(steps: list[GenerationStep], names: tuple[str, ...] = ("NVLink 4",
                                                                               "NVLink 5")):
    """Grouped bars: each chain step's rate (Gb/s for a lane, GB/s above) per generation.

    Examples
    --------
    >>> from nvlearn.nextgen import compare_generations
    >>> fig = draw_generation_chain(compare_generations())
    >>> len(fig.axes)
    1
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=4.4)
    x = np.arange(len(steps))
    w = 0.8 / len(names)
    for i, name in enumerate(names):
        rates = np.array([s.rates[i] for s in steps]) / 1e9
        bars = ax.bar(x + (i - (len(names) - 1) / 2) * w, rates, w, label=name,
                      color=(FABRIC_COLOURS["nvlink_network"], FABRIC_COLOURS["nvlink"])[i % 2])
        for b, r, s in zip(bars, rates, steps, strict=True):
            txt = f"{r * 8:.0f} Gb/s" if s.scope == "lane" else f"{r:.0f} GB/s"
            ax.text(b.get_x() + b.get_width() / 2, b.get_height() * 1.08, txt, ha="center",
                    va="bottom", rotation=90)
    ax.set_yscale("log")
    ax.set_ylim(5, 2e4)
    # short lines: six steps fit the notebook's width at body size
    ax.set_xticks(x, [f"{textwrap.fill(s.label, 12)}\n({s.scope},\n"
                      f"{s.direction.replace('_', ' ')})" for s in steps])
    ax.set_ylabel("rate (GB/s, log scale)")
    ax.set_title("The bandwidth chain, NVLink 4 vs 5: every step doubles")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def draw_busbw_vs_size(curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
                       labels: dict[str, str]):
    """busbw vs message size per fabric: simulated ring (solid) and NCCL's tuner prediction
    for its own choice (dashed), both achievable model.

    ``curves[key] = (sizes bytes, simulated ring busbw, NCCL busbw)``, bytes/s per direction.
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=4.3)
    for key, (x, ring, nccl) in curves.items():
        c = FABRIC_SERIES.get(key, SERIES[3])
        ax.plot(x, ring / 1e9, "-o", color=c, ms=4, label=f"{labels[key]}: ring, simulated")
        ax.plot(x, nccl / 1e9, "--", color=c, label=f"{labels[key]}: NCCL's choice, tuner")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("all-reduce size per GPU (bytes)")
    ax.set_ylabel("busbw (GB/s per direction)")
    ax.set_title("All-reduce busbw vs size (achievable model: NCCL's rates)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def draw_fabric_comparison(rows: list[Row]):
    """Per fabric: bisection per GPU per direction (wire), simulated ring all-reduce busbw and
    simulated all-to-all busbw (achievable), GB/s per direction.

    Examples
    --------
    >>> from nvlearn.nextgen import compare_fabrics
    >>> fig = draw_fabric_comparison(compare_fabrics(("dgx_h100",)))
    >>> len(fig.axes)
    1
    """
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=4.0)
    series = [("bisection / GPU, wire", lambda r: r.bisection_per_gpu_per_dir),
              ("ring all-reduce busbw, simulated", lambda r: r.sim_ring_busbw),
              ("all-to-all busbw, simulated", lambda r: r.sim_alltoall_busbw)]
    x = np.arange(len(rows))
    w = 0.8 / len(series)
    for i, (name, get) in enumerate(series):
        vals = np.array([get(r) for r in rows]) / 1e9
        bars = ax.bar(x + (i - 1) * w, vals, w, label=name, color=SERIES[i])
        for b, v in zip(bars, vals, strict=True):
            ax.text(b.get_x() + b.get_width() / 2, v + 8, f"{v:.0f}", ha="center")
    ax.set_xticks(x, [f"{textwrap.fill(r.label, 20)}\n{r.n_gpus} x {r.gpu.upper()}"
                      for r in rows])
    ax.set_ylabel("GB/s per direction per GPU")
    ax.set_title("Four NVLink domains: bisection (wire) and simulated busbw (achievable model)",
                 fontsize=10)
    ax.legend(loc="upper left")
    ax.set_ylim(0, max(r.bisection_per_gpu_per_dir for r in rows) / 1e9 * 1.35)
    fig.tight_layout()
    return fig


def draw_domain(plan: DomainPlan, bars: dict[str, float], caption: str = ""):
    """A designed domain: one plane drawn (spines on top, leaves below, GPU groups) above bars
    of its bandwidths (GB/s per direction per GPU; labels say wire or simulated).

    Parameters
    ----------
    plan : :class:`~nvlearn.nextgen.DomainPlan`
        The designed domain: leaves and spines per plane, GPUs per leaf, planes, taper.
    bars : dict of str -> float
        Bandwidths to compare, label -> bytes/s per direction per GPU (drawn in GB/s).
    caption : str
        Title over the bars (none if empty).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.nextgen import plan_domain
    >>> fig = draw_domain(plan_domain(256, 64, 18, 2.0), {"injection, wire": 450e9})
    >>> len(fig.axes)
    2
    """
    # the plane above the bars: each panel the notebook's width, its labels at body size
    fig, (ax, bx) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=6.4,
                               gridspec_kw={"height_ratios": [1.2, 1]})
    ax.axis("off")
    ax.grid(False)
    nl, ns = plan.leaves_per_plane, plan.spines_per_plane
    show_l, show_s = min(nl, 12), min(ns, 12)
    lx = np.linspace(0.05, 0.95, show_l) if show_l > 1 else np.array([0.5])
    sx = np.linspace(0.1, 0.9, show_s) if show_s > 1 else np.array([0.5])
    for xs in sx:
        for xl in lx:
            ax.plot([xl, xs], [0.35, 0.8], color=FABRIC_COLOURS["nvlink_network"], lw=0.6,
                    alpha=0.6)
    for xl in lx:
        ax.plot([xl, xl], [0.1, 0.35], color=FABRIC_COLOURS["nvlink"], lw=2)
    ax.scatter(lx, np.full(show_l, 0.35), s=120, marker="s", color=FABRIC_COLOURS["nvswitch"],
               zorder=3, label="leaf chip")
    if ns:
        ax.scatter(sx, np.full(show_s, 0.8), s=120, marker="s",
                   color=FABRIC_COLOURS["ib_switch"], zorder=3, label="spine chip")
    ax.scatter(lx, np.full(show_l, 0.1), s=60, marker="o", color=FABRIC_COLOURS["gpu"],
               zorder=3, label=f"{plan.gpus_per_leaf} GPUs per leaf")
    more = f" (first {show_l} of {nl} leaves shown)" if nl > show_l else ""
    ax.set_title(f"one of {plan.links_per_gpu} planes{more}", pad=22)
    ax.text(0.5, -0.02, f"{plan.leaves} leaf + {plan.spines} spine = {plan.switch_chips} chips,"
            f" {plan.cables:,} NVLinks; taper {plan.taper:.3g}:1", ha="center",
            transform=ax.transAxes)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.98), ncol=3)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    names = list(bars)
    vals = np.array([bars[k] for k in names]) / 1e9
    bx.barh(np.arange(len(names)), vals, color=[SERIES[i % len(SERIES)]
                                                 for i in range(len(names))])
    for i, v in enumerate(vals):
        bx.text(v, i, f" {v:.0f}", va="center")
    bx.set_yticks(np.arange(len(names)), names)
    bx.invert_yaxis()
    bx.set_xlabel("GB/s per direction per GPU")
    bx.set_xlim(0, vals.max() * 1.3 if vals.size else 1)
    if caption:
        bx.set_title(caption)
    fig.tight_layout(h_pad=1.5)
    box = ax.get_position()  # the plane centred on the figure, not over the bars' axes
    ax.set_position((0.03, box.y0, 0.94, box.height))
    return fig
