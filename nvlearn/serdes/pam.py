"""PAM-N signalling: modulation names, levels, Gray coding and the textbook error rates.

A lane sends one *symbol* per unit interval (UI). NRZ (= PAM2) has two amplitude levels and
carries 1 bit per symbol; PAM4 has four levels and carries 2 bits. Levels here are
normalised to the transmitter's peak swing: they span -1 .. +1, evenly spaced, so PAM4's
levels are -1, -1/3, +1/3, +1.

Signal-to-noise ratio convention (used everywhere in :mod:`nvlearn.serdes`)
--------------------------------------------------------------------------
``snr`` is the *peak* SNR at the slicer: (peak amplitude)^2 / (noise variance), with the
peak amplitude 1. It compares modulations at the same transmitter swing, the constraint a
SerDes designer actually has. With Gaussian noise of standard deviation sigma = snr^-1/2,
the nearest decision threshold is d = 1/(M-1) away from each level, so

    SER = 2 (1 - 1/M) Q(d / sigma)

and with Gray coding (neighbouring levels differ in one bit) BER ~= SER / log2(M).
:func:`pam_ber` sums every level-to-level error with its exact bit distance instead of
using that approximation. (Average-power SNR = peak SNR x (M+1) / (3 (M-1)).)

References
----------
J. G. Proakis and M. Salehi, "Digital Communications", 5th ed., McGraw-Hill, 2008, ch. 4
(symbol error probability of M-ary PAM in Gaussian noise, Gray labelling).
IEEE Std 802.3bs-2017 and 802.3ck-2022 (PAM4 lanes of 200/400 GbE and 100 Gb/s electrical
lanes, Gray-coded levels).

Examples
--------
>>> modulation_order("PAM4"), bits_per_symbol("NRZ")
(4, 1)
>>> pam_levels(4).tolist()  # doctest: +ELLIPSIS
[-1.0, -0.333..., 0.333..., 1.0]
>>> gray_code(4).tolist()
[0, 1, 3, 2]
"""

from __future__ import annotations

import math

import numpy as np

from nvlearn.serdes.stats import q_function

__all__ = [
    "SUPPORTED_ORDERS", "modulation_order", "modulation_name", "bits_per_symbol", "pam_levels",
    "gray_code", "noise_sigma", "pam_ser", "pam_ber", "snr_for_ber",
]

#: Modulation orders the models support (powers of two, so every symbol carries whole bits).
SUPPORTED_ORDERS: tuple[int, ...] = (2, 4, 8)

_NAMES = {"NRZ": 2, "PAM2": 2, "PAM4": 4, "PAM8": 8}


def modulation_order(modulation: str | int) -> int:
    """Number of amplitude levels M of a modulation: "NRZ"/"PAM2" -> 2, "PAM4" -> 4, "PAM8" -> 8.

    Accepts the name (case and a hyphen ignored: "pam-4") or the order itself.

    Examples
    --------
    >>> modulation_order("pam-4"), modulation_order(8)
    (4, 8)
    """
    if isinstance(modulation, str):
        key = modulation.strip().upper().replace("-", "")
        if key in _NAMES:
            return _NAMES[key]
        raise ValueError(
            f"unsupported modulation {modulation!r}; use one of {sorted(_NAMES)} "
            f"or an order in {SUPPORTED_ORDERS}"
        )
    if isinstance(modulation, bool) or not isinstance(modulation, int | np.integer):
        raise ValueError(
            f"modulation must be a name like 'PAM4' or an int order, not {modulation!r}"
        )
    if int(modulation) not in SUPPORTED_ORDERS:
        raise ValueError(
            f"unsupported modulation order {modulation}; supported orders are {SUPPORTED_ORDERS} "
            "(a power of two, so each symbol carries a whole number of bits)"
        )
    return int(modulation)


def modulation_name(modulation: str | int) -> str:
    """Canonical name: "NRZ" for order 2, "PAM4", "PAM8".

    Examples
    --------
    >>> modulation_name(2), modulation_name("pam4")
    ('NRZ', 'PAM4')
    """
    order = modulation_order(modulation)
    return "NRZ" if order == 2 else f"PAM{order}"


def bits_per_symbol(modulation: str | int) -> int:
    """Bits carried by one symbol: log2(M).

    Examples
    --------
    >>> bits_per_symbol("PAM4")
    2
    """
    return int(math.log2(modulation_order(modulation)))


def pam_levels(modulation: str | int) -> np.ndarray:
    """The M amplitude levels, evenly spaced from -1 to +1 (peak-normalised), lowest first.

    Examples
    --------
    >>> pam_levels("NRZ").tolist()
    [-1.0, 1.0]
    """
    order = modulation_order(modulation)
    return (2.0 * np.arange(order) - (order - 1)) / (order - 1)


def gray_code(modulation: str | int) -> np.ndarray:
    """Bit label of each level (lowest level first): Gray code ``i ^ (i >> 1)``.

    Adjacent levels differ in exactly one bit, so the common error (to a neighbouring
    level) costs one bit, not up to log2(M).

    Examples
    --------
    >>> [format(int(g), "03b") for g in gray_code(8)]
    ['000', '001', '011', '010', '110', '111', '101', '100']
    """
    idx = np.arange(modulation_order(modulation))
    return idx ^ (idx >> 1)


def noise_sigma(snr: float | np.ndarray) -> float | np.ndarray:
    """Noise standard deviation for a peak SNR given as a linear power ratio (sigma = snr^-1/2).

    Examples
    --------
    >>> noise_sigma(100.0)
    0.1
    """
    values = np.asarray(snr, dtype=float)
    if not np.all(np.isfinite(values)) or not np.all(values > 0):
        raise ValueError(
            f"SNR in linear units must be a finite number > 0, got {snr!r}; "
            "for a level in dB use snr_db / db_to_linear"
        )
    out = 1.0 / np.sqrt(values)
    return float(out) if out.ndim == 0 else out


def _level_transition_probabilities(snr: np.ndarray, order: int) -> np.ndarray:
    """P(decide j | sent i) under Gaussian noise, shape snr.shape + (M, M)."""
    levels = pam_levels(order)
    sigma = np.asarray(noise_sigma(snr), dtype=float)[..., None, None]
    thresholds = 0.5 * (levels[:-1] + levels[1:])
    lower = np.concatenate(([-np.inf], thresholds))  # decide j if lower[j] < r < upper[j]
    upper = np.concatenate((thresholds, [np.inf]))
    sent = levels[:, None]
    with np.errstate(invalid="ignore"):
        z_lo = (lower[None, :] - sent) / sigma
        z_hi = (upper[None, :] - sent) / sigma
    # Q differences on the side of the distribution where they do not cancel
    above = np.asarray(q_function(z_lo)) - np.asarray(q_function(z_hi))
    below = np.asarray(q_function(-z_hi)) - np.asarray(q_function(-z_lo))
    around = 1.0 - np.asarray(q_function(z_hi)) - np.asarray(q_function(-z_lo))
    return np.where(z_lo >= 0, above, np.where(z_hi <= 0, below, around))


def pam_ser(snr: float | np.ndarray, modulation: str | int) -> float | np.ndarray:
    """Symbol error rate of PAM-M in Gaussian noise, no ISI: 2 (1 - 1/M) Q(sqrt(snr) / (M-1)).

    Parameters
    ----------
    snr : float or array
        Peak SNR as a linear power ratio (see the module docstring), > 0.
    modulation : str or int
        "NRZ", "PAM4", "PAM8" or the order.

    Examples
    --------
    >>> f"{pam_ser(100.0, 'NRZ'):.2e}"   # 20 dB, NRZ: Q(10)
    '7.62e-24'
    """
    order = modulation_order(modulation)
    sigma = noise_sigma(snr)
    x = 1.0 / ((order - 1) * np.asarray(sigma))  # half the level spacing over sigma
    out = 2.0 * (1.0 - 1.0 / order) * np.asarray(q_function(x))
    return float(out) if out.ndim == 0 else out


def pam_ber(snr: float | np.ndarray, modulation: str | int) -> float | np.ndarray:
    """Bit error rate of Gray-coded PAM-M in Gaussian noise, no ISI (exact, all level jumps).

    BER = (1 / (M log2 M)) * sum_i sum_j P(j | i) * hamming(gray(i), gray(j)), where
    P(j | i) is the probability that the noise carries level i into level j's decision region.
    For NRZ this is Q(sqrt(snr)); for PAM4 it is close to (3/4) Q(sqrt(snr)/3).

    Examples
    --------
    >>> import math
    >>> math.isclose(pam_ber(16.0, "NRZ"), q_function(4.0))
    True
    """
    order = modulation_order(modulation)
    snr_arr = np.asarray(snr, dtype=float)
    trans = _level_transition_probabilities(snr_arr, order)
    gray = gray_code(order)
    distance = np.array([[bin(int(a ^ b)).count("1") for b in gray] for a in gray], dtype=float)
    out = (trans * distance).sum(axis=(-2, -1)) / (order * math.log2(order))
    return float(out) if out.ndim == 0 else out


def snr_for_ber(target_ber: float, modulation: str | int) -> float:
    """Peak SNR in dB at which Gray-coded PAM-M reaches ``target_ber`` (no ISI), by bisection.

    The difference between two modulations' answers is the SNR penalty of the denser one
    at that error rate.

    Examples
    --------
    >>> round(snr_for_ber(1e-6, "PAM4") - snr_for_ber(1e-6, "NRZ"), 1)
    9.4
    """
    order = modulation_order(modulation)
    if not 0 < target_ber < 0.5 * (1 - 1 / order):
        limit = 0.5 * (1 - 1 / order)
        raise ValueError(f"target_ber must be in (0, {limit:g}), got {target_ber!r}")
    lo, hi = -20.0, 80.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if pam_ber(10.0 ** (mid / 10.0), order) > target_ber:
            lo = mid
        else:
            hi = mid
    return hi
