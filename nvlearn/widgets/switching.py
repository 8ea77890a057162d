"""Explorer for notebook 03: a traffic pattern on a fabric, under a routing policy and a taper."""

from __future__ import annotations

import functools

import ipywidgets as W

from nvlearn.plots.switching import traffic_explorer_figure
from nvlearn.switching import patterns
from nvlearn.switching.patterns import PATTERNS, FlowStats, experiment
from nvlearn.topology import FABRICS
from nvlearn.units import format_time
from nvlearn.widgets.base import Explorer

__all__ = ["FABRIC_CHOICES", "TAPERS", "TrafficExplorer", "render_traffic", "traffic_summary"]

#: Fabric choices (label, key): the registry's fabrics that
#: :func:`nvlearn.switching.patterns.build_fabric` can taper.
FABRIC_CHOICES = tuple((FABRICS[k].label, k) for k in patterns.FABRICS)
#: Taper / oversubscription values offered (1 = non-blocking).
TAPERS = (1.0, 2.0, 4.0, 8.0)


def traffic_summary(stats: FlowStats, taper: float) -> str:
    """The numbers behind the explorer's figure.

    Examples
    --------
    >>> from nvlearn.switching.patterns import experiment
    >>> st = experiment("nvlink_pod", "ring", "adaptive", nodes=2, n_bytes=1e6)
    >>> traffic_summary(st, 2.0).splitlines()[0]
    'ring on NVLink pod (16 GPUs), taper 2:1, adaptive routing; 1 run, 16 flows'
    """
    spread = stats.fct.max() / stats.fct.min()
    return "\n".join([
        f"{stats.pattern} on {stats.fabric}, taper {taper:g}:1, {stats.policy} routing; "
        f"{stats.runs} run{'s' if stats.runs > 1 else ''}, {stats.fct.size} flows",
        f"flow completion: p50 {format_time(stats.p50)}, p99 {format_time(stats.p99)}, "
        f"slowest {format_time(stats.fct.max())} ({spread:.1f}x the fastest)",
        f"hottest link {stats.hottest_link}: {stats.hottest_utilisation:.0%} busy on average",
    ])


def render_traffic(fabric: str, pattern: str, policy: str, taper: float, *, nodes: int,
                   n_bytes: float, runs: int):
    """Figure, text and ``{"stats": FlowStats}`` of one setting of the explorer.

    Parameters
    ----------
    fabric, pattern, policy : str
        A key of :data:`FABRIC_CHOICES`, one of :data:`~nvlearn.switching.patterns.PATTERNS`,
        ``"adaptive"`` or ``"static"``.
    taper : float
        Node (pod) or leaf (cluster) down : up ratio, >= 1.
    nodes : int
        DGX H100 nodes of the fabric (8 GPUs each).
    n_bytes : float
        Bytes each sending GPU sends.
    runs : int
        Random permutations (and hash seeds) pooled, for the permutation pattern only.

    Returns
    -------
    figure : matplotlib.figure.Figure
    text : str
        The summary (:func:`traffic_summary`).
    attributes : dict
        ``{"stats": FlowStats}``, set on the explorer with the state.
    """
    stats = experiment(fabric, pattern, policy, runs=runs if pattern == "permutation" else 1,
                       nodes=nodes, taper=taper, n_bytes=n_bytes)
    return (traffic_explorer_figure(stats, taper), traffic_summary(stats, taper),
            {"stats": stats})


class TrafficExplorer(Explorer):
    """Run a traffic pattern on an NVLink pod or an IB cluster; pick routing and taper.

    Each setting is simulated once and cached (so going back is instant). Permutations are
    pooled over ``runs`` random permutations and hash seeds.

    Examples
    --------
    >>> ex = TrafficExplorer(nodes=2, n_bytes=1e6)   # doctest: +SKIP
    >>> ex.set(pattern="incast", policy="static")     # doctest: +SKIP
    >>> ex.text.splitlines()[0]                       # doctest: +SKIP
    'incast on NVLink pod (16 GPUs), taper 2:1, static routing; 1 run, 15 flows'
    """

    def __init__(self, nodes: int = 16, n_bytes: float = 64e6, runs: int = 3) -> None:
        """Fix the fabric's size and the traffic's volume; the controls choose the rest.

        Parameters
        ----------
        nodes : int
            DGX H100 nodes in the fabric (8 GPUs each); 16 keeps every update near a second.
        n_bytes : float
            Bytes each sending GPU sends.
        runs : int
            Random permutations (and static hash seeds) pooled for the permutation pattern.
        """
        self.nodes, self.n_bytes, self.runs = nodes, n_bytes, runs
        self.stats: FlowStats | None = None
        controls = {
            "fabric": W.Dropdown(options=FABRIC_CHOICES, value="nvlink_pod",
                                 description="fabric"),
            "pattern": W.Dropdown(options=PATTERNS, value="permutation", description="traffic"),
            "policy": W.ToggleButtons(options=["adaptive", "static"], value="adaptive",
                                      description="routing"),
            "taper": W.SelectionSlider(options=[(f"{t:g}:1", t) for t in TAPERS], value=2.0,
                                       description="taper", continuous_update=False),
        }
        render = functools.partial(render_traffic, nodes=nodes, n_bytes=n_bytes, runs=runs)
        super().__init__(controls, render,
                         title=f"Traffic on a {8 * nodes}-GPU fabric (taper = node/leaf "
                               "down : up; the pod's real one is 2:1)")
