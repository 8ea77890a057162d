"""Units: SI inside the code, human units only at the edges.

Everything in nvlearn is stored in SI base units: **bytes**, **seconds**, **bytes per
second**, **symbols per second** (baud), **FLOP per second**, **watts**. This module
converts published figures into those units and formats results back for people.

The three confusions this module exists to prevent
---------------------------------------------------
1. *Bits vs bytes.* ``Gb/s`` (gigabits per second, lane and NIC rates) vs ``GB/s``
   (gigabytes per second, memory and NVLink rates). 400 Gb/s = 50 GB/s.
2. *Decimal vs binary prefixes.* ``GB`` = 10**9 bytes (bandwidth, disk, HBM on data
   sheets); ``GiB`` = 2**30 bytes (what ``numpy`` arrays and memory allocators count).
   1 GiB = 1.0737 GB.
3. *Per direction vs bidirectional.* A full-duplex link moves data both ways at once.
   NVIDIA's 900 GB/s for an H100 is the *sum of both directions* (450 GB/s each way).
   Names in nvlearn say which: ``bw_per_dir`` or ``bw_bidir``.

Examples
--------
>>> to_si(400, "Gb/s")            # a ConnectX-7 port, in bytes/s per direction
50000000000.0
>>> format_bytes(2**30), format_bytes(2**30, binary=True)
('1.07 GB', '1 GiB')
>>> format_rate(bidir_to_per_dir(900e9), direction="per_direction")
'450 GB/s per direction'

References
----------
BIPM, "The International System of Units (SI)", 9th edition, 2019 (SI units and the
decimal prefixes k, M, G, T).
IEC 80000-13:2008, "Quantities and units -- Part 13: Information science and technology"
(the binary prefixes Ki, Mi, Gi, Ti = 2**10, 2**20, 2**30, 2**40).
"""

from __future__ import annotations

import math

__all__ = [
    "UNITS", "DIRECTIONAL_DIMENSIONS", "DIRECTIONS", "dimension", "to_si", "from_si", "convert",
    "bits_to_bytes", "bytes_to_bits", "per_dir_to_bidir", "bidir_to_per_dir", "format_bytes",
    "format_rate", "format_time",
]

# unit -> (SI factor, dimension). Dimensions name what the SI value means.
UNITS: dict[str, tuple[float, str]] = {
    "1": (1.0, "dimensionless"),
    "%": (0.01, "dimensionless"),
    "x": (1.0, "dimensionless"),
    "dB": (1.0, "dB"),
    "year": (1.0, "year"),
    # data sizes (bytes)
    "B": (1.0, "bytes"),
    "kB": (1e3, "bytes"),
    "MB": (1e6, "bytes"),
    "GB": (1e9, "bytes"),
    "TB": (1e12, "bytes"),
    "KiB": (2.0**10, "bytes"),
    "MiB": (2.0**20, "bytes"),
    "GiB": (2.0**30, "bytes"),
    "TiB": (2.0**40, "bytes"),
    "bit": (1 / 8, "bytes"),
    # data rates (bytes/s); bit rates are converted to bytes/s as well
    "B/s": (1.0, "bytes/s"),
    "MB/s": (1e6, "bytes/s"),
    "GB/s": (1e9, "bytes/s"),
    "TB/s": (1e12, "bytes/s"),
    "Mb/s": (1e6 / 8, "bytes/s"),
    "Gb/s": (1e9 / 8, "bytes/s"),
    "Tb/s": (1e12 / 8, "bytes/s"),
    # signalling
    "GBd": (1e9, "baud"),
    "GT/s": (1e9, "transfers/s"),
    # compute
    "TFLOP/s": (1e12, "flop/s"),
    "PFLOP/s": (1e15, "flop/s"),
    # time
    "s": (1.0, "s"),
    "ms": (1e-3, "s"),
    "us": (1e-6, "s"),
    "ns": (1e-9, "s"),
    # power, energy, length
    "W": (1.0, "W"),
    "kW": (1e3, "W"),
    "J": (1.0, "J"),
    "kWh": (3.6e6, "J"),
    "MWh": (3.6e9, "J"),
    "m": (1.0, "m"),
}

#: Dimensions for which a published figure must say per direction or bidirectional.
DIRECTIONAL_DIMENSIONS = frozenset({"bytes/s"})
DIRECTIONS = ("per_direction", "bidirectional")

_DECIMAL = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = ((2.0**40, "Ti"), (2.0**30, "Gi"), (2.0**20, "Mi"), (2.0**10, "Ki"), (1.0, ""))


def _check_unit(unit: str) -> tuple[float, str]:
    try:
        return UNITS[unit]
    except KeyError:
        known = ", ".join(sorted(UNITS))
        raise ValueError(f"unknown unit {unit!r}; known units are: {known}") from None


def dimension(unit: str) -> str:
    """Return the physical dimension of ``unit`` ("bytes", "bytes/s", "s", ...).

    Examples
    --------
    >>> dimension("Gb/s"), dimension("GiB")
    ('bytes/s', 'bytes')
    """
    return _check_unit(unit)[1]


def to_si(value: float, unit: str) -> float:
    """Convert ``value`` given in ``unit`` to SI (bytes, bytes/s, s, baud, W ...).

    Bit rates become bytes/s: ``to_si(100, "Gb/s") == 12.5e9``.

    Examples
    --------
    >>> to_si(25, "GB/s")
    25000000000.0
    >>> to_si(1, "GiB")
    1073741824.0
    """
    factor, _ = _check_unit(unit)
    return float(value) * factor


def from_si(value: float, unit: str) -> float:
    """Convert an SI value to ``unit`` (the inverse of :func:`to_si`).

    Examples
    --------
    >>> from_si(50e9, "Gb/s")
    400.0
    """
    factor, _ = _check_unit(unit)
    return float(value) / factor


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert between two units of the same dimension.

    Parameters
    ----------
    value : float
        The quantity in ``from_unit``.
    from_unit, to_unit : str
        Keys of :data:`UNITS` of one dimension ("GiB" and "GB", "GB/s" and "Tb/s" ...).

    Returns
    -------
    float
        ``value`` expressed in ``to_unit``.

    Examples
    --------
    >>> convert(1, "GiB", "GB")
    1.073741824
    >>> convert(900, "GB/s", "Tb/s")
    7.2
    """
    f1, d1 = _check_unit(from_unit)
    f2, d2 = _check_unit(to_unit)
    if d1 != d2:
        raise ValueError(f"cannot convert {from_unit!r} ({d1}) to {to_unit!r} ({d2})")
    return float(value) * f1 / f2


def bits_to_bytes(bits: float) -> float:
    """Bits -> bytes (divide by 8). Works for rates too: Gb/s -> GB/s.

    Examples
    --------
    >>> bits_to_bytes(400)
    50.0
    """
    return float(bits) / 8.0


def bytes_to_bits(n_bytes: float) -> float:
    """Bytes -> bits (multiply by 8).

    Examples
    --------
    >>> bytes_to_bits(50)
    400.0
    """
    return float(n_bytes) * 8.0


def per_dir_to_bidir(bw_per_dir: float) -> float:
    """A full-duplex link's bidirectional total: twice its per-direction rate.

    Examples
    --------
    >>> per_dir_to_bidir(450e9)
    900000000000.0
    """
    return 2.0 * float(bw_per_dir)


def bidir_to_per_dir(bw_bidir: float) -> float:
    """The per-direction rate of a symmetric full-duplex link: half the bidirectional sum.

    Examples
    --------
    >>> bidir_to_per_dir(900e9)
    450000000000.0
    """
    return float(bw_bidir) / 2.0


def _scaled(value: float, table: tuple[tuple[float, str], ...]) -> tuple[float, str]:
    mag = abs(value)
    for factor, prefix in table:
        if mag >= factor:
            return value / factor, prefix
    return value, ""


def _num(x: float, digits: int) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    return f"{x:.{digits}g}"


def format_bytes(n_bytes: float, binary: bool = False, digits: int = 3) -> str:
    """Format a byte count: decimal (GB) by default, binary (GiB) with ``binary=True``.

    Parameters
    ----------
    n_bytes : float
        A byte count (SI: bytes, not bits).
    binary : bool
        Use powers of 1024 (KiB, MiB, GiB) instead of 1000 (kB, MB, GB).
    digits : int
        Significant digits shown.

    Returns
    -------
    str
        E.g. ``"1.07 GB"``.

    Examples
    --------
    >>> format_bytes(1.5e9)
    '1.5 GB'
    >>> format_bytes(8 * 2**30, binary=True)
    '8 GiB'
    >>> format_bytes(1037866, binary=True), format_bytes(1023, binary=True)   # never '1.01e+03'
    ('0.99 MiB', '0.999 KiB')
    """
    table = _BINARY if binary else _DECIMAL
    value, prefix = _scaled(float(n_bytes), table)
    if binary and abs(value) >= 1000 and prefix != table[0][1]:
        # 1000-1023 of a binary unit: show it as a fraction of the next one
        factor = dict((p, f) for f, p in table)[prefix] * 1024
        value, prefix = float(n_bytes) / factor, next(p for f, p in table if f == factor)
    return f"{_num(value, digits)} {prefix}B"


def format_rate(
    bytes_per_s: float, direction: str | None = None, bits: bool = False, digits: int = 3
) -> str:
    """Format a data rate in B/s (or b/s with ``bits=True``), optionally saying the direction.

    Parameters
    ----------
    bytes_per_s : float
        Rate in bytes/s.
    direction : {"per_direction", "bidirectional", None}
        Appended as "per direction" / "bidirectional" when given.
    bits : bool
        Show bits per second (multiplies by 8) instead of bytes per second.
    digits : int
        Significant digits shown.

    Returns
    -------
    str
        E.g. ``"450 GB/s per direction"``.

    Examples
    --------
    >>> format_rate(50e9, bits=True)
    '400 Gb/s'
    >>> format_rate(900e9, direction="bidirectional")
    '900 GB/s bidirectional'
    """
    if direction is not None and direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS} or None, not {direction!r}")
    value = float(bytes_per_s) * (8.0 if bits else 1.0)
    scaled, prefix = _scaled(value, _DECIMAL)
    text = f"{_num(scaled, digits)} {prefix}{'b' if bits else 'B'}/s"
    if direction is not None:
        text += " " + direction.replace("_", " ")
    return text


def format_time(seconds: float, digits: int = 3) -> str:
    """Format a duration with ns / us / ms / s.

    Examples
    --------
    >>> format_time(2.5e-6)
    '2.5 us'
    """
    s = float(seconds)
    mag = abs(s)
    for factor, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if mag >= factor:
            return f"{_num(s / factor, digits)} {name}"
    return f"{_num(s / 1e-9, digits)} ns"
