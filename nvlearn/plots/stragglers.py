"""Figures for notebook 06: faults per algorithm, per-link load, the slowest of p GPUs, SGD."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure
from nvlearn.plots.timeline import gantt

__all__ = ["ALGO_LABELS", "FAULT_LABELS", "backup_workers_figure", "explorer_figure",
           "fault_slowdown_figure", "gpu_link_bytes_figure", "slowest_of_p_figure",
           "sync_sgd_figure"]

#: Plot labels of the faults and algorithms of :mod:`nvlearn.straggle.faults`.
FAULT_LABELS = {"none": "healthy", "slow_gpu": "slow GPU", "slow_link": "half-rate link",
                "failed_plane": "failed plane", "lost_rail": "lost rail"}
ALGO_LABELS = {"ring": "ring", "nccl_tree": "NCCL tree", "double_binary_tree":
               "double binary tree", "nvls": "NVLS", "hierarchical": "hierarchical"}


def fault_slowdown_figure(table: Mapping[str, Mapping[str, Mapping[str, object]]]):
    """Time under each fault over the healthy time, per algorithm; one panel per fabric.

    ``table[fabric][fault][algorithm]`` is a :class:`~nvlearn.straggle.faults.FaultRun`; a
    run that cannot finish (``result`` None) is drawn as a hatched bar marked "stops".

    Examples
    --------
    >>> from nvlearn.straggle import run_fault
    >>> from nvlearn.topology import single_switch
    >>> r = run_fault(single_switch(4, 1e11), "ring", 1e6, "slow_gpu", gpu=1, delay=1e-5)
    >>> len(fault_slowdown_figure({"4 GPUs": {"slow_gpu": {"ring": r}}}).axes)
    1
    """
    cols = min(len(table), 2)  # two panels a row: each wide enough for its body-size labels
    rows = -(-len(table) // cols)
    fig, axes = new_figure(rows, cols, width=NOTEBOOK_WIDTH, height=4.0 * rows, squeeze=False)
    for ax in axes.ravel()[len(table):]:
        ax.remove()
    for ax, (fabric, faults) in zip(axes.ravel(), table.items(), strict=False):
        algos = list(dict.fromkeys(a for runs in faults.values() for a in runs))
        width = 0.8 / len(algos)
        top = max((r.slowdown for runs in faults.values() for r in runs.values()
                   if r.result is not None), default=1.0)
        for j, algo in enumerate(algos):
            for i, fault in enumerate(faults):
                run = faults[fault].get(algo)
                if run is None:
                    continue
                x = i + (j - (len(algos) - 1) / 2) * width
                if run.result is None:
                    ax.bar(x, top * 1.05, width, color="white", edgecolor=SERIES[j],
                           hatch="//", label=None)
                    ax.text(x, top * 1.07, "stops", ha="center", va="bottom",
                            rotation=90)
                else:
                    ax.bar(x, run.slowdown, width, color=SERIES[j],
                           label=ALGO_LABELS[algo] if i == 0 else None)
        ax.axhline(1.0, color="#333333", lw=0.8)
        ax.set_xticks(range(len(faults)), [FAULT_LABELS[f] for f in faults])
        ax.set_ylabel("time / healthy time")
        ax.set_ylim(0, top * 1.35)
        ax.set_title(fabric, fontsize=10)
        ax.legend(loc="upper left", ncols=2)
    fig.suptitle("one all-reduce under one fault (achievable model: NCCL's rates and latencies)",
                 fontsize=11)
    fig.tight_layout()
    return fig


def gpu_link_bytes_figure(healthy, faulty, title: str):
    """Each GPU -> NVSwitch link of a DGX, healthy and faulty run side by side: colour = the
    link's mean rate over the run as a fraction of its capacity in that run, text = MB sent.

    The per-link detail behind a slowdown: which links carried the traffic, which one was
    full while the others waited, and where the bytes went when routing could move them.

    Parameters
    ----------
    healthy, faulty : :class:`~nvlearn.sim.SimResult`
        The same collective on the same DGX without and with the fault.
    title : str
        The figure's title (" (achievable model)" is appended).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from nvlearn.topology import NODE_GPU, NODE_NVSWITCH

    topo = healthy.topology
    kind = np.asarray(topo.node_kind)
    ls, ld = np.asarray(topo.link_src), np.asarray(topo.link_dst)
    up = np.flatnonzero((kind[ls] == NODE_GPU) & (kind[ld] == NODE_NVSWITCH))
    gpus = np.unique(ls[up])
    planes = np.unique(ld[up])
    # one above the other: the same links in the same columns, each cell wide enough for
    # its label at body size
    fig, axes = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=6.8)
    for ax, name, res in zip(axes, ("healthy", "with the fault"), (healthy, faulty),
                             strict=True):
        mb = np.zeros((gpus.size, planes.size))
        use = np.zeros_like(mb)
        for lk in up:
            i, j = np.searchsorted(gpus, ls[lk]), np.searchsorted(planes, ld[lk])
            mb[i, j] = res.link_bytes[lk] / 1e6
            cap = res.link_capacity[lk]
            use[i, j] = res.link_bytes[lk] / (res.time * cap) if cap > 0 else 0.0
        im = ax.imshow(100 * use, cmap="Greens", vmin=0, vmax=100, aspect="auto")
        for (i, j), v in np.ndenumerate(mb):
            ax.text(j, i, f"{v:.0f} MB", ha="center", va="center",
                    color="white" if use[i, j] > 0.6 else "black")
        ax.set_xticks(range(planes.size), [topo.node_name[p] for p in planes])
        ax.set_yticks(range(gpus.size), [topo.node_name[g] for g in gpus])
        ax.set_xlabel("GPU -> NVSwitch plane link")
        ax.set_title(f"{name}: {res.time * 1e6:,.0f} µs", fontsize=10)
        ax.grid(False)
    fig.subplots_adjust(top=0.91, bottom=0.08, hspace=0.5)  # room for titles and labels
    fig.colorbar(im, ax=axes, label="mean rate / capacity (%)", shrink=0.9)
    fig.suptitle(title + " (achievable model)", fontsize=10)
    return fig


def slowest_of_p_figure(dist, ps: Sequence[int], mc_mean: Sequence[float],
                        mc_p99: Sequence[float], normal=None):
    """Expected and 99th-percentile step time of the slowest of ``p`` GPUs, closed form vs
    Monte Carlo, in units of one GPU's mean step time.

    Parameters
    ----------
    dist : :class:`~nvlearn.straggle.jitter.ShiftedExponential`
        One GPU's step time, seconds; its mean is the unit of the y axis.
    ps : sequence of int
        GPU counts at which the Monte Carlo points were taken.
    mc_mean, mc_p99 : sequence of float
        Monte Carlo mean and 99th percentile of the slowest of ``p``, seconds, one per
        ``ps``.
    normal : :class:`~nvlearn.straggle.jitter.Normal`, optional
        The same mean and standard deviation as ``dist``; adds its expected maximum and
        the normal asymptote.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from nvlearn.straggle.jitter import expected_max_normal

    ps = np.asarray(ps)
    grid = np.unique(np.geomspace(1, ps.max(), 200).astype(int))
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=4.8)
    m = dist.mean
    ax.plot(grid, [dist.expected_max(p) / m for p in grid], color=SERIES[0],
            label="E[max], shifted exponential: shift + scale·H_p")
    ax.plot(ps, np.asarray(mc_mean) / m, "o", color=SERIES[0], ms=5,
            label="Monte Carlo mean of the max")
    ax.plot(grid, [dist.max_quantile(0.99, p) / m for p in grid], "--", color=SERIES[1],
            label="p99 of the max: F⁻¹(0.99^(1/p))")
    ax.plot(ps, np.asarray(mc_p99) / m, "s", color=SERIES[1], ms=5,
            label="Monte Carlo p99 of the max")
    if normal is not None:
        ax.plot(grid, [normal.expected_max(p) / m for p in grid], color=SERIES[2], lw=1.2,
                label="E[max], normal, same mean and sd")
        ax.plot(grid[grid > 1], [expected_max_normal(p, normal.mean, normal.sd) / m
                                 for p in grid[grid > 1]], ":", color=SERIES[2],
                label="normal asymptotic: mean + sd·√(2 ln p)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPUs in the synchronous step, p")
    ax.set_ylabel("step time / one GPU's mean")
    ax.set_title("the step waits for the slowest GPU (model: compute jitter only, no comm)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def backup_workers_figure(dist, p: int, ks: Sequence[int]):
    """Step time when the step waits only for the fastest ``p - k`` GPUs, and the share of
    each global batch's gradient samples dropped with the ``k`` slowest.

    Parameters
    ----------
    dist : :class:`~nvlearn.straggle.jitter.ShiftedExponential`
        One GPU's step time, seconds; its mean is the unit of the left axis.
    p : int
        GPUs in the step.
    ks : sequence of int
        Numbers of slowest GPUs not waited for (the x axis).

    Returns
    -------
    matplotlib.figure.Figure
    """
    ks = np.asarray(ks)
    fig, ax = new_figure(width=NOTEBOOK_WIDTH, height=4.0)
    t = np.array([dist.expected_kth(p - k, p) for k in ks]) / dist.mean
    ax.plot(ks, t, "o-", color=SERIES[0], label=f"E[(p-k)-th fastest of p = {p:,}] / mean")
    ax.set_xlabel("k slowest GPUs dropped each step")
    ax.set_ylabel("step time / one GPU's mean")
    ax2 = ax.twinx()
    ax2.plot(ks, 100 * ks / p, "s--", color=SERIES[1], label="gradient samples dropped")
    ax2.set_ylabel("samples dropped per step (%)")
    ax2.spines["right"].set_visible(True)
    ax2.grid(False)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="center right")
    ax.set_title(f"backup workers: wait for p - k of p = {p:,} (shifted exponential model)")
    fig.tight_layout()
    return fig


def sync_sgd_figure(histories: Mapping[str, object], title: str):
    """Training loss and test accuracy per epoch, and loss against all-reduces done.

    ``histories`` maps a label to a :class:`~nvlearn.straggle.local_sgd.SyncHistory` or a
    :class:`nvlearn.sgd.History` (synchronous: one all-reduce per step); ``title`` says
    what was trained.

    Examples
    --------
    >>> from nvlearn.sgd import History
    >>> h = History(1, 8, 0.1, "float64", step_loss=[2.0, 1.0], epoch_train_loss=[1.0],
    ...             epoch_test_accuracy=[0.5])
    >>> len(sync_sgd_figure({"sync": h}, "demo").axes)
    3
    """
    # two panels a row (each wide enough for body-size labels), the legend in the fourth place
    fig, axes = new_figure(2, 2, width=NOTEBOOK_WIDTH, height=6.6)
    a1, a2, a3, spare = axes.ravel()
    for i, (label, h) in enumerate(histories.items()):
        c = SERIES[i % len(SERIES)]
        ep = np.arange(1, len(h.epoch_train_loss) + 1)
        a1.plot(ep, h.epoch_train_loss, "o-", ms=3, color=c, label=label)
        a2.plot(ep, 100 * np.asarray(h.epoch_test_accuracy), "o-", ms=3, color=c)
        n_red = getattr(h, "n_allreduce", len(h.step_loss))
        a3.plot(np.linspace(n_red / ep.size, n_red, ep.size), h.epoch_train_loss, "o-", ms=3,
                color=c)
    a1.set_yscale("log")
    a3.set_yscale("log")
    a3.set_xscale("log")
    a1.set(xlabel="epoch", ylabel="training loss (cross-entropy)")
    a2.set(xlabel="epoch", ylabel="test accuracy (%)")
    a3.set(xlabel="all-reduces so far", ylabel="training loss")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    box = spare.get_position()
    spare.remove()
    fig.legend(*a1.get_legend_handles_labels(), loc="center", bbox_to_anchor=box)
    return fig


def explorer_figure(run, healthy_steps: np.ndarray, fault_steps: np.ndarray, caption: str):
    """The faulty run's Gantt chart (:func:`nvlearn.plots.timeline.gantt`) above the step-time
    distribution, healthy and faulty (``*_steps`` in seconds).

    Parameters
    ----------
    run : :class:`~nvlearn.straggle.faults.FaultRun`
        The faulty run; its Gantt chart is drawn (the healthy run's if the faulty
        collective never finishes, ``run.result is None``, and then no faulty histogram).
    healthy_steps, fault_steps : array of float
        Step times (compute of the slowest GPU + the all-reduce), seconds.
    caption : str
        Title of the histogram.

    Returns
    -------
    matplotlib.figure.Figure
    """
    res = run.result if run.result is not None else run.healthy
    fig = gantt(res, max_rows=16)
    w, h = fig.get_size_inches()
    extra = 2.4
    fig.set_size_inches(w, h + extra)
    for ax in fig.axes:
        x0, y0, x1, y1 = ax.get_position().extents
        scale = h / (h + extra)
        ax.set_position([x0, extra / (h + extra) + y0 * scale, x1 - x0, (y1 - y0) * scale])
    left = fig.axes[0].get_position().x0
    width = fig.axes[0].get_position().width
    axh = fig.add_axes([left, 0.55 / (h + extra), width, (extra - 1.1) / (h + extra)])
    both = np.concatenate([healthy_steps, fault_steps]) * 1e3
    bins = np.linspace(both.min(), both.max() * 1.0001 + 1e-9, 60)
    axh.hist(healthy_steps * 1e3, bins=bins, color=FABRIC_COLOURS["nvlink"], alpha=0.6,
             label="healthy")
    if run.result is not None:
        axh.hist(fault_steps * 1e3, bins=bins, color=SERIES[1], alpha=0.6, label="with the fault")
    axh.set_xlabel("step time = slowest GPU's compute + all-reduce (ms)")
    axh.set_ylabel("steps")
    axh.legend(loc="upper right")
    axh.set_title(caption, loc="left")  # a long caption runs right, under the legend
    return fig
