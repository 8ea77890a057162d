"""NCCL's tuning-model constants as a record (:class:`NCCLModel`) with lookups in NCCL's
own table order (src/graph/tuning.cc)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

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


@dataclass(frozen=True, kw_only=True)
class NCCLModel(Record):
    """NCCL's tuning-model constants (protocol framing, latencies, bandwidth caps).

    Latencies are seconds, bandwidths bytes/s per direction. Table rows are
    ``(LL, LL128, Simple)`` for latencies and ``(1 node, 2 nodes, >= 4 nodes)`` for the
    per-architecture bandwidth caps, as in NCCL's ``src/graph/tuning.cc``. Use the lookup
    methods rather than the raw fields.

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
    base_lat_tree: tuple[float, ...] = _num("s")
    base_lat_ring: tuple[float, ...] = _num("s")
    base_lat_collnet_direct: tuple[float, ...] = _num("s")
    base_lat_collnet_chain: tuple[float, ...] = _num("s")
    base_lat_nvls: tuple[float, ...] = _num("s")
    base_lat_nvls_tree: tuple[float, ...] = _num("s")
    base_lat_pat: tuple[float, ...] = _num("s")
    hw_lat_nvlink_tree: tuple[float, ...] = _num("s")
    hw_lat_nvlink_ring: tuple[float, ...] = _num("s")
    hw_lat_nvlink_collnet_direct: tuple[float, ...] = _num("s")
    hw_lat_nvlink_collnet_chain: tuple[float, ...] = _num("s")
    hw_lat_nvlink_nvls: tuple[float, ...] = _num("s")
    hw_lat_nvlink_nvls_tree: tuple[float, ...] = _num("s")
    hw_lat_nvlink_pat: tuple[float, ...] = _num("s")
    hw_lat_pci_tree: tuple[float, ...] = _num("s")
    hw_lat_pci_ring: tuple[float, ...] = _num("s")
    hw_lat_pci_collnet_direct: tuple[float, ...] = _num("s")
    hw_lat_pci_collnet_chain: tuple[float, ...] = _num("s")
    hw_lat_pci_nvls: tuple[float, ...] = _num("s")
    hw_lat_pci_nvls_tree: tuple[float, ...] = _num("s")
    hw_lat_pci_pat: tuple[float, ...] = _num("s")
    hw_lat_net_tree: tuple[float, ...] = _num("s")
    hw_lat_net_ring: tuple[float, ...] = _num("s")
    hw_lat_net_collnet_direct: tuple[float, ...] = _num("s")
    hw_lat_net_collnet_chain: tuple[float, ...] = _num("s")
    hw_lat_net_nvls: tuple[float, ...] = _num("s")
    hw_lat_net_nvls_tree: tuple[float, ...] = _num("s")
    hw_lat_net_pat: tuple[float, ...] = _num("s")
    nvls_efficiency_hopper: float = _num("dimensionless")
    nvls_efficiency_blackwell: float = _num("dimensionless")
    nvlink_bw_sm60: float = _num("bytes/s")
    nvlink_bw_sm70: float = _num("bytes/s")
    nvlink_bw_sm80: float = _num("bytes/s")
    nvlink_bw_sm86: float = _num("bytes/s")
    nvlink_bw_sm90: float = _num("bytes/s")
    nvlink_bw_sm100: float = _num("bytes/s")
    pci_bw: float = _num("bytes/s")
    net_bw: float = _num("bytes/s")
    net_port_fraction: float = _num("dimensionless")
    ll_max_bws_volta: tuple[float, ...] = _num("bytes/s")
    ll_max_bws_ampere: tuple[float, ...] = _num("bytes/s")
    ll_max_bws_hopper: tuple[float, ...] = _num("bytes/s")
    ll_max_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_ring_ll128_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_ll128_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_tree_bws_blackwell: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_volta: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_ampere: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_hopper: tuple[float, ...] = _num("bytes/s")
    per_ch_max_nvls_tree_bws_blackwell: tuple[float, ...] = _num("bytes/s")

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
        """NCCL ``baseLat[algorithm][protocol]`` in seconds.

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.nccl().base_latency("ring", "simple") * 1e6, 9)
        8.4
        """
        row: tuple[float, ...] = getattr(self, f"base_lat_{_pick(algorithm, ALGORITHMS)}")
        return row[PROTOCOLS.index(_pick(protocol, PROTOCOLS))]

    def hw_latency(self, link: str, algorithm: str, protocol: str) -> float:
        """NCCL ``hwLat[link][algorithm][protocol]`` in seconds (per step / per hop).

        Examples
        --------
        >>> from nvlearn import specs
        >>> round(specs.nccl().hw_latency("net", "ring", "simple") * 1e6, 9)
        14.0
        """
        name = f"hw_lat_{_pick(link, LINK_TYPES)}_{_pick(algorithm, ALGORITHMS)}"
        row: tuple[float, ...] = getattr(self, name)
        return row[PROTOCOLS.index(_pick(protocol, PROTOCOLS))]

    def nvls_efficiency(self, architecture: str) -> float:
        """NCCL ``nvlsEfficiency`` for ``"hopper"`` or ``"blackwell"`` (0 elsewhere)."""
        arch = _pick(architecture, ARCHITECTURES)
        return getattr(self, f"nvls_efficiency_{arch}", 0.0)

    def nvlink_bw(self, sm: int) -> float:
        """NCCL's achievable per-link NVLink bandwidth for compute capability ``sm`` (e.g. 90).

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
        """One of NCCL's per-architecture bandwidth caps, bytes/s.

        Parameters
        ----------
        table : {"ll_max_bws", "per_ch_max_ring_ll128_bws", "per_ch_max_tree_ll128_bws",
                 "per_ch_max_tree_bws", "per_ch_max_nvls_tree_bws"}
        architecture : {"volta", "ampere", "hopper", "blackwell"}
        nodes : int
            Number of nodes (1, 2, or more; >= 4 and 3 use the last column, as NCCL does).

        Examples
        --------
        >>> from nvlearn import specs
        >>> specs.nccl().bw_cap("per_ch_max_tree_bws", "hopper", 8) / 1e9
        36.0
        """
        tables = ("ll_max_bws", "per_ch_max_ring_ll128_bws", "per_ch_max_tree_ll128_bws",
                  "per_ch_max_tree_bws", "per_ch_max_nvls_tree_bws")
        if nodes < 1:
            raise ValueError(f"nodes must be >= 1, got {nodes}")
        row: tuple[float, ...] = getattr(
            self, f"{_pick(table, tables)}_{_pick(architecture, ARCHITECTURES)}"
        )
        return row[min(nodes, 3) - 1]


def _pick(name: str, valid: tuple[str, ...]) -> str:
    if name not in valid:
        raise ValueError(f"unknown name {name!r}; choose one of: {', '.join(valid)}")
    return name
