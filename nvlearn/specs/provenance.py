"""Provenance: where a number comes from (:class:`Source`, :class:`Quantity`) and the
catalogue's vocabulary (kinds, directions, NCCL's names)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..units import DIRECTIONS

__all__ = [
    "DATA_ENV_VAR", "DATA_FILE", "KINDS", "ALGORITHMS", "PROTOCOLS", "LINK_TYPES", "ARCHITECTURES",
    "RATE_DIRECTIONS", "Source", "Quantity",
]

#: Environment variable naming a directory that holds an alternative ``hardware.json``.
DATA_ENV_VAR = "NVLEARN_DATA_DIR"
DATA_FILE = "hardware.json"

#: What a number is: read off a data sheet, computed from other published numbers,
#: measured by someone, or an assumption / a library's internal model constant.
KINDS = ("spec", "derived", "measured", "model")

#: NCCL's names, in the order of its tuning tables (src/graph/tuning.cc).
ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
PROTOCOLS = ("ll", "ll128", "simple")
LINK_TYPES = ("nvlink", "pci", "net")
ARCHITECTURES = ("volta", "ampere", "hopper", "blackwell")
#: What a data rate's ``direction`` may say: one way of a full-duplex link, both ways
#: summed, or ``half_duplex`` — the total of a bus that reads and writes share (HBM), which
#: is neither a per-direction rate nor a sum of two directions.
RATE_DIRECTIONS = (*DIRECTIONS, "half_duplex")

_QUANTITY_KEYS = frozenset({"value", "unit", "direction", "kind", "source", "where", "note"})
_SOURCE_KEYS = frozenset({"title", "url", "publisher", "date"})


# --------------------------------------------------------------------------------------
# Provenance
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A document a number comes from.

    Attributes
    ----------
    id : str
        The key used in ``hardware.json`` (``"wp_h100"``).
    title, url : str
        What and where.
    publisher, date : str or None
        Optional.
    """

    id: str
    title: str
    url: str
    publisher: str | None = None
    date: str | None = None

    def citation(self) -> str:
        """One-line citation: ``title (publisher, date). url``.

        Examples
        --------
        >>> Source("x", "A paper", "https://example.org", "ACM", "2020").citation()
        'A paper (ACM, 2020). https://example.org'
        """
        extra = ", ".join(p for p in (self.publisher, self.date) if p)
        return f"{self.title}{f' ({extra})' if extra else ''}. {self.url}"


@dataclass(frozen=True)
class Quantity:
    """One published number and where it came from.

    Attributes
    ----------
    value_si : float, tuple of float, or None
        The value in SI (bytes, bytes/s, s, baud, transfers/s, flop/s, W, m; counts as is).
    value : float, list of float, or None
        The value as written in ``hardware.json``, in ``unit``.
    unit : str
        A key of :data:`nvlearn.units.UNITS`.
    direction : {"per_direction", "bidirectional", "half_duplex"} or None
        Set exactly when the unit is a data rate (:data:`RATE_DIRECTIONS`).
    kind : {"spec", "derived", "measured", "model"}
    source : str
        Source id (see :class:`Source`).
    where : str
        Section, table or quote in the source.
    note : str or None
        Caveats, confidence.
    """

    value_si: float | tuple[float, ...] | None
    value: Any
    unit: str
    direction: str | None
    kind: str
    source: str
    where: str
    note: str | None = None
