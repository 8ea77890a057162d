"""Small statistics for the link models: the Q-function, decibels, binomial confidence.

References
----------
E. B. Wilson, "Probable inference, the law of succession, and statistical inference", J.
Amer. Statist. Assoc. 22(158):209-212, 1927.
L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a binomial proportion",
Statistical Science 16(2):101-133, 2001 (why Wilson rather than the normal approximation).

Examples
--------
>>> round(float(q_function(0.0)), 3)
0.5
>>> db_to_linear(20.0)
100.0
>>> lo, hi = wilson_interval(0, 1_000_000)
>>> lo == 0.0 and hi < 4e-6
True
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["q_function", "db_to_linear", "linear_to_db", "wilson_interval"]

_ERFC = np.frompyfunc(math.erfc, 1, 1)


def q_function(x: float | np.ndarray) -> float | np.ndarray:
    """Tail probability of a standard normal, Q(x) = P(N(0, 1) > x) = erfc(x / sqrt(2)) / 2.

    Examples
    --------
    >>> f"{q_function(3.0):.3e}"
    '1.350e-03'
    """
    values = 0.5 * np.asarray(_ERFC(np.asarray(x, dtype=float) / math.sqrt(2.0)), dtype=float)
    return float(values) if np.ndim(values) == 0 else values


def db_to_linear(db: float | np.ndarray) -> float | np.ndarray:
    """Power ratio from decibels: 10 ** (db / 10).

    Examples
    --------
    >>> db_to_linear(3.0)  # doctest: +ELLIPSIS
    1.99...
    """
    values = np.asarray(db, dtype=float)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"a level in dB must be finite, got {db!r}")
    out = 10.0 ** (values / 10.0)
    return float(out) if out.ndim == 0 else out


def linear_to_db(ratio: float | np.ndarray) -> float | np.ndarray:
    """Decibels from a power ratio: 10 log10(ratio). The ratio must be positive.

    Examples
    --------
    >>> linear_to_db(1000.0)
    30.0
    """
    values = np.asarray(ratio, dtype=float)
    if not np.all(values > 0):
        raise ValueError(
            f"a power ratio must be > 0 to be expressed in dB, got {ratio!r}; "
            "negative or zero signal-to-noise ratios are not physical"
        )
    out = 10.0 * np.log10(values)
    return float(out) if out.ndim == 0 else out


def wilson_interval(errors: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for an error probability measured as ``errors`` in ``trials``.

    Unlike the normal approximation it stays inside [0, 1] and is honest when few (or no)
    errors were seen. ``z = 1.96`` gives 95 % confidence.

    Parameters
    ----------
    errors : int
        Errors seen, ``0 <= errors <= trials``.
    trials : int
        Bits or symbols observed; > 0.
    z : float
        Standard-normal quantile of the confidence level (1.96 for 95 %, 2.576 for 99 %).

    Returns
    -------
    (float, float)
        Lower and upper bound on the error probability, within [0, 1].

    Examples
    --------
    >>> lo, hi = wilson_interval(50, 1000)
    >>> round(lo, 4), round(hi, 4)
    (0.0381, 0.0653)
    """
    if trials <= 0:
        raise ValueError(f"trials must be a positive count, got {trials}")
    if not 0 <= errors <= trials:
        raise ValueError(f"errors must be between 0 and trials ({trials}), got {errors}")
    p = errors / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
