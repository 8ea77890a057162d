"""NCCL's tuning-model constants as a record (:class:`NCCLModel`) with lookups in NCCL's
own table order (src/graph/tuning.cc)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from .provenance import (
    ALGORITHMS,
    ARCHITECTURES,
    LINK_TYPES,
    PROTOCOLS,
)
from .records import (
    Record,
    _num,
)

__all__ = ["BW_CAP_TABLES", "NCCL_ENUM_NAMES", "NCCL_TABLE_NAMES", "NODE_COLUMNS", "NCCLModel"]

#: The columns of NCCL's bandwidth-cap tables: 1 node, 2 nodes, >= 4 nodes (``N1, N2, N4``;
#: NCCL uses the last for 3 nodes too).
NODE_COLUMNS = ("1 node", "2 nodes", ">= 4 nodes")
#: NCCL's per-architecture bandwidth-cap tables, ``[architecture][nodes column]``.
BW_CAP_TABLES = ("ll_max_bws", "per_ch_max_ring_ll128_bws", "per_ch_max_tree_ll128_bws",
                 "per_ch_max_tree_bws", "per_ch_max_nvls_tree_bws")
#: Each table's name in ``src/graph/tuning.cc``.
NCCL_TABLE_NAMES = {
    "base_latencies": "baseLatencies", "hw_latencies": "hwLatencies",
    "nvls_efficiencies": "nvlsEfficiency", "ll_max_bws": "llMaxBws",
    "per_ch_max_ring_ll128_bws": "perChMaxRingLL128Bws",
    "per_ch_max_tree_ll128_bws": "perChMaxTreeLL128Bws",
    "per_ch_max_tree_bws": "perChMaxTreeBws", "per_ch_max_nvls_tree_bws": "perChMaxNVLSTreeBws",
}
#: NCCL's spelling of every axis entry (its enum and comment names).
NCCL_ENUM_NAMES = {
    **dict(zip(ALGORITHMS, ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                            "NVLSTree", "PAT"), strict=True)),
    **dict(zip(PROTOCOLS, ("LL", "LL128", "Simple"), strict=True)),
    **dict(zip(LINK_TYPES, ("NVLINK", "PCI", "NET"), strict=True)),
    **dict(zip(ARCHITECTURES, ("Volta", "Ampere", "Hopper", "Blackwell"), strict=True)),
    **dict(zip(NODE_COLUMNS, ("N1", "N2", "N4"), strict=True)),
}


@dataclass(frozen=True, kw_only=True)
class NCCLModel(Record):
    """NCCL's tuning-model constants (protocol framing, latencies, bandwidth caps).

    The tables are laid out as ``ncclTunerConstantsDefaults`` in NCCL's
    ``src/graph/tuning.cc``, in NCCL's enum order (:attr:`TABLE_AXES`), so the two can be read
    side by side: ``base_latencies[algorithm][protocol]`` is ``baseLatencies``,
    ``hw_latencies[link][algorithm][protocol]`` is ``hwLatencies``, ``nvls_efficiencies`` is
    ``nvlsEfficiency``, and the five bandwidth-cap tables (:data:`BW_CAP_TABLES`) are
    ``[architecture][1 node, 2 nodes, >= 4 nodes]``. The scalars are ``src/graph/topo.h``'s
    ``SM<sm>_NVLINK_BW``, ``PCI_BW``, ``NET_BW`` and ``src/device.h``'s line sizes.
    Latencies are seconds, bandwidths bytes/s per direction. Look values up by name with
    :meth:`base_latency`, :meth:`hw_latency`, :meth:`nvls_efficiency`, :meth:`nvlink_bw`,
    :meth:`bw_cap`; each table's provenance is under its field name (``m.source("hw_latencies")``).

    References
    ----------
    NVIDIA, NCCL 2.30.7, ``src/graph/tuning.cc`` (``ncclTunerConstantsDefaults``,
    ``nvlsEfficiency``) and ``src/graph/topo.h``.

    Examples
    --------
    >>> from nvlearn import specs
    >>> m = specs.nccl()
    >>> m.hw_latency("nvlink", "ring", "ll") * 1e6
    0.6
    >>> m.ll128_data_fraction
    0.9375
    """

    ll_line_bytes: int = _num("bytes")
    ll_data_bytes: int = _num("bytes")
    ll128_line_bytes: int = _num("bytes")
    ll128_data_bytes: int = _num("bytes")
    #: ``baseLatencies[algorithm][protocol]``, seconds.
    base_latencies: tuple[tuple[float, ...], ...] = _num("s")
    #: ``hwLatencies[link][algorithm][protocol]``, seconds per step (per hop for trees).
    hw_latencies: tuple[tuple[tuple[float, ...], ...], ...] = _num("s")
    #: ``nvlsEfficiency[architecture]`` (0 where NVLS does not exist).
    nvls_efficiencies: tuple[float, ...] = _num("dimensionless")
    nvlink_bw_sm60: float = _num("bytes/s")
    nvlink_bw_sm70: float = _num("bytes/s")
    nvlink_bw_sm80: float = _num("bytes/s")
    nvlink_bw_sm86: float = _num("bytes/s")
    nvlink_bw_sm90: float = _num("bytes/s")
    nvlink_bw_sm100: float = _num("bytes/s")
    pci_bw: float = _num("bytes/s")
    net_bw: float = _num("bytes/s")
    net_port_fraction: float = _num("dimensionless")
    #: ``llMaxBws[architecture][nodes column]``, bytes/s per direction (see :meth:`bw_cap`).
    ll_max_bws: tuple[tuple[float, ...], ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws: tuple[tuple[float, ...], ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws: tuple[tuple[float, ...], ...] = _num("bytes/s")
    per_ch_max_tree_bws: tuple[tuple[float, ...], ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws: tuple[tuple[float, ...], ...] = _num("bytes/s")

    #: The axes of each table, in NCCL's enum order: the loader checks every table's shape
    #: against them and the lookups index by them.
    TABLE_AXES: ClassVar[dict[str, tuple[tuple[str, ...], ...]]] = {
        "base_latencies": (ALGORITHMS, PROTOCOLS),
        "hw_latencies": (LINK_TYPES, ALGORITHMS, PROTOCOLS),
        "nvls_efficiencies": (ARCHITECTURES,),
        **{t: (ARCHITECTURES, NODE_COLUMNS) for t in BW_CAP_TABLES},
    }

    def where(self, table: str, *keys: str) -> str:
        """Where one entry of a table is in NCCL's source, in NCCL's own names.

        Parameters
        ----------
        table : str
            A key of :attr:`TABLE_AXES` (``"hw_latencies"``, ``"ll_max_bws"`` ...).
        *keys : str
            Leading indices in axis order, in this package's names (``"nvlink", "ring"``).

        Returns
        -------
        str
            For example ``"src/graph/tuning.cc hwLatencies[NVLINK][Ring]"``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().where("nvls_efficiencies", "hopper")
        'src/graph/tuning.cc nvlsEfficiency[Hopper]'
        """
        axes = self.TABLE_AXES[_pick(table, tuple(self.TABLE_AXES))]
        if len(keys) > len(axes):
            raise ValueError(f"{table} has {len(axes)} axes, got {len(keys)} keys")
        index = "".join(f"[{NCCL_ENUM_NAMES[_pick(k, axis)]}]"
                        for k, axis in zip(keys, axes, strict=False))
        return f"src/graph/tuning.cc {NCCL_TABLE_NAMES[table]}{index}"

    @property
    def version(self) -> str:
        """NCCL version the constants were read from."""
        return self.key

    @property
    def ll_data_fraction(self) -> float:
        """Fraction of an LL line that is data (the rest are flags): 0.5."""
        return self.ll_data_bytes / self.ll_line_bytes

    @property
    def ll128_data_fraction(self) -> float:
        """Fraction of an LL128 line that is data: 120/128."""
        return self.ll128_data_bytes / self.ll128_line_bytes

    def base_latency(self, algorithm: str, protocol: str) -> float:
        """NCCL ``baseLatencies[algorithm][protocol]`` in seconds.

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.nccl().base_latency("ring", "simple") * 1e6, 9)
        8.4
        """
        return self.base_latencies[_index(algorithm, ALGORITHMS)][_index(protocol, PROTOCOLS)]

    def hw_latency(self, link: str, algorithm: str, protocol: str) -> float:
        """NCCL ``hwLatencies[link][algorithm][protocol]`` in seconds (per step / per hop).

        Parameters
        ----------
        link : {"nvlink", "pci", "net"}
            NCCL's ``NCCL_HW_NVLINK``, ``NCCL_HW_PCI``, ``NCCL_HW_NET``.
        algorithm : {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", \
"pat"}
            NCCL's algorithm (``NCCL_ALGO_*``), in lower case.
        protocol : {"ll", "ll128", "simple"}
            NCCL's protocol (``NCCL_PROTO_*``), in lower case.

        Returns
        -------
        float
            Seconds.

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.nccl().hw_latency("net", "ring", "simple") * 1e6, 9)
        14.0
        """
        block = self.hw_latencies[_index(link, LINK_TYPES)]
        return block[_index(algorithm, ALGORITHMS)][_index(protocol, PROTOCOLS)]

    def nvls_efficiency(self, architecture: str) -> float:
        """NCCL ``nvlsEfficiency[architecture]`` (0 for Volta and Ampere, which have no NVLS).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().nvls_efficiency("hopper")
        0.85
        """
        return self.nvls_efficiencies[_index(architecture, ARCHITECTURES)]

    def nvlink_bw(self, sm: int) -> float:
        """NCCL's achievable per-link NVLink bandwidth for compute capability ``sm`` (e.g. 90),
        bytes/s per direction: ``topo.h``'s ``SM<sm>_NVLINK_BW``.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().nvlink_bw(90) / 1e9
        20.6
        """
        name = f"nvlink_bw_sm{sm}"
        if not hasattr(self, name):
            known = sorted(int(f.name[len("nvlink_bw_sm"):]) for f in dataclasses.fields(self)
                           if f.name.startswith("nvlink_bw_sm"))
            raise ValueError(f"NCCL has no NVLink bandwidth for SM{sm}; known: {known}")
        return getattr(self, name)

    def bw_cap(self, table: str, architecture: str, nodes: int) -> float:
        """One of NCCL's per-architecture bandwidth caps, bytes/s per direction.

        Parameters
        ----------
        table : {"ll_max_bws", "per_ch_max_ring_ll128_bws", "per_ch_max_tree_ll128_bws", \
"per_ch_max_tree_bws", "per_ch_max_nvls_tree_bws"}
            NCCL's ``llMaxBws``, ``perChMaxRingLL128Bws``, ``perChMaxTreeLL128Bws``,
            ``perChMaxTreeBws``, ``perChMaxNVLSTreeBws``.
        architecture : {"volta", "ampere", "hopper", "blackwell"}
            The row (for ``ll_max_bws`` across nodes NCCL reuses rows for the CPU: see the
            table's note in ``data/hardware.json``).
        nodes : int
            Number of nodes, >= 1: column 1 node, 2 nodes, or >= 3 (NCCL's ``N4`` column).

        Returns
        -------
        float
            bytes/s per direction.

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().bw_cap("per_ch_max_tree_bws", "hopper", 8) / 1e9
        36.0
        """
        if nodes < 1:
            raise ValueError(f"nodes must be >= 1, got {nodes}")
        rows: tuple[tuple[float, ...], ...] = getattr(self, BW_CAP_TABLES[_index(table,
                                                                                 BW_CAP_TABLES)])
        return rows[_index(architecture, ARCHITECTURES)][min(nodes, 3) - 1]


def _pick(name: str, valid: tuple[str, ...]) -> str:
    if name not in valid:
        raise ValueError(f"unknown name {name!r}; choose one of: {', '.join(valid)}")
    return name


def _index(name: str, axis: tuple[str, ...]) -> int:
    """Position of ``name`` on a table axis (NCCL's enum value), or a ValueError."""
    return axis.index(_pick(name, axis))
