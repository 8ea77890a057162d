"""Generic fabrics (one switch, a ring, all-to-all links) and the helpers every builder uses."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from numpy.typing import ArrayLike

from .core import (
    DEFAULT_GPU,
    LINK_IB,
    LINK_KIND_NAMES,
    LINK_NVLINK,
    LINK_PCIE,
    NODE_GPU,
    NODE_IB_SWITCH,
    NODE_NVSWITCH,
    NODE_PCIE_SWITCH,
    Topology,
)

__all__ = [
    "FabricBuilder", "check_count", "check_rate", "single_switch", "ring", "fully_connected",
    "with_link_factor",
]


class FabricBuilder:
    """Accumulate nodes and full-duplex cables, then freeze them into a :class:`Topology`.

    Examples
    --------
    >>> b = FabricBuilder()
    >>> g0, g1 = b.gpu("gpu0"), b.gpu("gpu1")
    >>> b.cable(g0, g1, bw_per_dir=50e9, kind=LINK_NVLINK)
    >>> b.build("pair").n_links
    2
    """

    def __init__(self) -> None:
        self._nodes: list[tuple[int, str, int, int, int, int]] = []
        self._links: list[tuple[int, int, float, float, int, int]] = []
        self._gpus: list[int] = []

    def node(self, kind: int, name: str, *, box: int = -1, tier: int = 0,
             plane: int = -1, enclosure: int = -1) -> int:
        """Add a node; returns its id.

        Parameters
        ----------
        kind : int
            ``NODE_GPU``, ``NODE_NVSWITCH``, ``NODE_NIC``, ``NODE_IB_SWITCH``, ``NODE_PCIE_SWITCH``
            or ``NODE_CPU``.
        name : str
            Unique node name (builders follow the naming scheme of :mod:`.fabrics`).
        box : int
            Server the node sits in, -1 for a fabric switch outside any server.
        tier : int
            0 for endpoints (GPUs, NICs, CPUs), 1 for the first switch tier, 2 for the second ...
        plane : int
            NVSwitch plane or network rail, -1 if none.
        enclosure : int
            The physical switch box a fabric chip sits in (two chips per 1U NVLink Switch),
            or -1.

        Returns
        -------
        int
            The new node's id.
        """
        self._nodes.append((kind, name, box, tier, plane, enclosure))
        return len(self._nodes) - 1

    def gpu(self, name: str, *, box: int = -1, plane: int = -1) -> int:
        """Add a GPU (the next rank); returns its node id.

        Parameters
        ----------
        name : str
            Unique node name.
        box : int
            Server the GPU sits in, -1 if none.
        plane : int
            Rail of the GPU (its NIC's rail), -1 if none.

        Returns
        -------
        int
            The GPU's node id; its rank is the number of GPUs added before it.
        """
        node = self.node(NODE_GPU, name, box=box, tier=0, plane=plane)
        self._gpus.append(node)
        return node

    def cable(self, a: int, b: int, *, bw_per_dir: float, kind: int, count: int = 1,
              latency_ab: float = 0.0, latency_ba: float | None = None) -> None:
        """Connect ``a`` and ``b`` with ``count`` bundled full-duplex links (two directed links).

        Parameters
        ----------
        a, b : int
            Node ids from :meth:`node` / :meth:`gpu`.
        bw_per_dir : float
            Capacity of the whole bundle, bytes/s per direction (not per physical link); > 0.
        kind : int
            ``LINK_NVLINK``, ``LINK_NVLINK_NETWORK``, ``LINK_PCIE``, ``LINK_IB`` or ``LINK_ETH``.
        count : int
            Physical links in the bundle (recorded, for path counts); >= 1.
        latency_ab : float
            Seconds the direction ``a -> b`` adds to a transfer; >= 0.
        latency_ba : float, optional
            Seconds the direction ``b -> a`` adds (default ``latency_ab``).

        Returns
        -------
        None
        """
        back = latency_ab if latency_ba is None else latency_ba
        self._links.append((a, b, float(bw_per_dir), float(latency_ab), count, kind))
        self._links.append((b, a, float(bw_per_dir), float(back), count, kind))

    def build(self, name: str, *, gpu: str = DEFAULT_GPU) -> Topology:
        """Freeze into a :class:`Topology` of ``gpu`` GPUs (which validates everything)."""
        kind, names, box, tier, plane, enclosure = zip(*self._nodes, strict=True)
        if self._links:
            src, dst, cap, lat, count, lkind = (np.array(c) for c in zip(*self._links,
                                                                           strict=True))
        else:
            src = dst = count = lkind = np.zeros(0, np.int64)
            cap = lat = np.zeros(0)
        return Topology(
            name=name, node_kind=kind, node_name=names, node_box=box, node_tier=tier,
            node_plane=plane, gpus=self._gpus, link_src=src, link_dst=dst,
            link_capacity=cap, link_latency=lat, link_count=count, link_kind=lkind, gpu=gpu,
            node_enclosure=enclosure,
        )


def check_count(n: object, what: str, minimum: int) -> int:
    """``n`` as an int >= ``minimum``, or a ValueError that says so.

    Parameters
    ----------
    n : object
        The value given by the caller; bools and non-integers are refused.
    what : str
        Names the argument in the error message.
    minimum : int
        Smallest allowed value.

    Returns
    -------
    int
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number >= {minimum}, got {n!r}")
    if n < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {n}")
    return int(n)


def check_rate(value: float, what: str, *, allow_zero: bool = False) -> float:
    """``value`` as a finite float > 0 (or >= 0), or a ValueError that says so.

    Parameters
    ----------
    value : float
        The value given (a rate in bytes/s, a latency in s, a factor ...).
    what : str
        Names the argument in the error message.
    allow_zero : bool
        Accept 0 as well.

    Returns
    -------
    float
    """
    value = float(value)
    ok = math.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{what} must be finite and {bound}, got {value!r}")
    return value


_SWITCH_FOR_LINK = {LINK_NVLINK: NODE_NVSWITCH, LINK_PCIE: NODE_PCIE_SWITCH,
                    LINK_IB: NODE_IB_SWITCH}


def _check_kind(link_kind: int) -> int:
    if link_kind not in range(len(LINK_KIND_NAMES)):
        raise ValueError(f"link_kind must be one of 0..{len(LINK_KIND_NAMES) - 1} "
                         f"({', '.join(LINK_KIND_NAMES)}), got {link_kind!r}")
    return int(link_kind)


def _gpu_fabric(n: object, minimum: int, bw_per_dir: float, latency: float,
                link_kind: int) -> tuple[int, float, float, int, FabricBuilder, list[int]]:
    """The checked arguments of a generic fabric and a builder holding its ``n`` GPUs:
    ``(n, bw, lat, kind, builder, gpu node ids)``."""
    n = check_count(n, "n (GPUs)", minimum)
    bw = check_rate(bw_per_dir, "bw_per_dir (bytes/s)")
    lat = check_rate(latency, "latency (s)", allow_zero=True)
    kind = _check_kind(link_kind)
    b = FabricBuilder()
    return n, bw, lat, kind, b, [b.gpu(f"gpu{i}") for i in range(n)]


def single_switch(n: int, bw_per_dir: float, latency: float = 0.0, *,
                  link_kind: int = LINK_NVLINK) -> Topology:
    """``n`` GPUs on one non-blocking switch, each with one link of ``bw_per_dir``.

    Parameters
    ----------
    n : int
        GPUs (>= 1).
    bw_per_dir : float
        bytes/s per direction of each GPU's link to the switch.
    latency : float
        Seconds per link; a GPU-to-GPU transfer crosses two links (2 x latency).
    link_kind : int
        ``LINK_NVLINK`` (default; the switch is an NVSwitch), ``LINK_PCIE`` or ``LINK_IB``...

    Returns
    -------
    Topology
        ``n`` GPUs and one switch node named ``"switch"``; ``2 n`` directed links.

    Examples
    --------
    >>> topo = single_switch(8, bw_per_dir=450e9)
    >>> topo.n_gpus, topo.n_links
    (8, 16)
    """
    n, bw, lat, kind, b, gpus = _gpu_fabric(n, 1, bw_per_dir, latency, link_kind)
    sw = b.node(_SWITCH_FOR_LINK.get(kind, NODE_IB_SWITCH), "switch", tier=1)
    for g in gpus:
        b.cable(g, sw, bw_per_dir=bw, kind=kind, latency_ab=lat)
    return b.build(f"single_switch({n})")


def ring(n: int, bw_per_dir: float, latency: float = 0.0, *,
         link_kind: int = LINK_NVLINK) -> Topology:
    """``n`` GPUs in a bidirectional ring of point-to-point links (GPU i <-> GPU i+1).

    GPUs do not forward traffic in this model, so only ring neighbours can exchange data;
    routing between non-neighbours raises ValueError (schedules forward explicitly).
    With ``n == 2`` the two GPUs share one cable.

    Parameters
    ----------
    n : int
        GPUs (>= 2).
    bw_per_dir : float
        bytes/s per direction of each cable.
    latency : float
        Seconds per link.
    link_kind : int
        Link kind, default ``LINK_NVLINK``.

    Returns
    -------
    Topology
        ``n`` GPUs, no switch.

    Examples
    --------
    >>> ring(4, bw_per_dir=25e9).n_links
    8
    """
    n, bw, lat, kind, b, gpus = _gpu_fabric(n, 2, bw_per_dir, latency, link_kind)
    for i in range(n if n > 2 else 1):
        b.cable(gpus[i], gpus[(i + 1) % n], bw_per_dir=bw, kind=kind, latency_ab=lat)
    return b.build(f"ring({n})")


def fully_connected(n: int, bw_per_dir: float, latency: float = 0.0, *,
                    link_kind: int = LINK_NVLINK) -> Topology:
    """``n`` GPUs with a direct cable between every pair (``bw_per_dir`` each).

    Parameters
    ----------
    n : int
        GPUs (>= 2).
    bw_per_dir : float
        bytes/s per direction of each pairwise cable.
    latency : float
        Seconds per link.
    link_kind : int
        Link kind, default ``LINK_NVLINK``.

    Returns
    -------
    Topology
        ``n`` GPUs, ``n (n - 1)`` directed links, no switch.

    Examples
    --------
    >>> fully_connected(4, bw_per_dir=25e9).n_links
    12
    """
    n, bw, lat, kind, b, gpus = _gpu_fabric(n, 2, bw_per_dir, latency, link_kind)
    for i in range(n):
        for j in range(i + 1, n):
            b.cable(gpus[i], gpus[j], bw_per_dir=bw, kind=kind, latency_ab=lat)
    return b.build(f"fully_connected({n})")


def with_link_factor(topo: Topology, links: ArrayLike, factor: ArrayLike) -> Topology:
    """A copy of ``topo`` with the capacity of ``links`` multiplied by ``factor``.

    Factors compound with earlier ones (``topo.link_factor`` records the total). A factor of
    0 makes a dead link: allowed in the topology, but routing traffic that has to cross it
    raises ValueError (use a small positive factor for a nearly dead link).

    Parameters
    ----------
    topo : Topology
        The fabric (not modified).
    links : int, array of int, or boolean mask of length ``topo.n_links``
        Directed link ids (a cable is two links: degrade both if the cable is bad).
    factor : float or array of float
        >= 0 and finite, one value or one per selected link.

    Returns
    -------
    Topology
        A new Topology, its routes following the new capacities; ``topo`` is unchanged.

    Examples
    --------
    >>> topo = ring(4, bw_per_dir=100e9)
    >>> slow = with_link_factor(topo, [0, 1], 0.5)
    >>> slow.link_capacity[:3].tolist()
    [50000000000.0, 50000000000.0, 100000000000.0]
    """
    sel = np.asarray(links)
    if sel.dtype == np.bool_:
        if sel.shape != (topo.n_links,):
            raise ValueError(f"a boolean link mask needs {topo.n_links} entries, got {sel.shape}")
        sel = np.flatnonzero(sel)
    sel = np.atleast_1d(sel)
    if sel.size and not np.issubdtype(sel.dtype, np.integer):
        raise ValueError(f"links must be integer link ids or a boolean mask, got {sel.dtype}")
    sel = sel.astype(np.int64)
    bad = sel[(sel < 0) | (sel >= topo.n_links)]
    if bad.size:
        raise ValueError(f"link {bad[0]} does not exist in {topo.name!r}; links are "
                         f"0..{topo.n_links - 1}")
    fac = np.broadcast_to(np.asarray(factor, dtype=np.float64), sel.shape)
    if not (np.isfinite(fac).all() and (fac >= 0).all()):
        raise ValueError("factor must be finite and >= 0 (1 = healthy, 0.5 = half speed, "
                         "0 = dead)")
    total = topo.link_factor.copy()
    capacity = topo.link_capacity.copy()
    np.multiply.at(total, sel, fac)
    np.multiply.at(capacity, sel, fac)
    return dataclasses.replace(topo, link_capacity=capacity, link_factor=total)
