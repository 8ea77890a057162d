"""Compute jitter: every GPU's step time is a random draw, and the step waits for the slowest.

A synchronous step of ``p`` GPUs ends at the **maximum** of their ``p`` compute times. Even if
no GPU is broken, the expected maximum grows with ``p``: that is tail latency at scale.

Model
-----
:class:`ShiftedExponential` — ``T = shift + X`` with ``X`` exponential of mean ``scale``: a
fixed amount of work plus a memoryless delay. It is the model of per-worker compute time in
the straggler literature (Lee et al. 2018, "Speeding up distributed machine learning using
codes"; Dutta et al. 2018, "Slow and stale gradients can win the race"), chosen there, as
here, because its order statistics have closed forms; its parameters in the notebook are
assumptions, not measurements. Its order statistics (Rényi's representation: the gaps
between sorted exponentials are independent exponentials of means ``scale/p``,
``scale/(p-1)``, ...):

* expected maximum of ``p`` draws: ``shift + scale * H_p`` (``H_p`` the p-th harmonic number,
  about ``ln p + 0.5772``);
* expected ``k``-th smallest: ``shift + scale * (H_p - H_{p-k})`` — what a step that waits for
  only the fastest ``k`` GPUs (backup workers) waits for;
* quantile ``q`` of the maximum: ``F^{-1}(q^{1/p})``, since ``P(max <= t) = F(t)^p``.

:class:`Normal` and :func:`expected_max_normal` — for a Gaussian the expected maximum grows
only like ``sigma sqrt(2 ln p)`` (the leading term of the extreme-value asymptotics); the
exact value is an integral (:meth:`Normal.expected_max`).

References
----------
J. Dean and L. A. Barroso, "The tail at scale", Commun. ACM 56(2):74-80, 2013.
J. Chen, X. Pan, R. Monga, S. Bengio and R. Jozefowicz, "Revisiting distributed synchronous
SGD", arXiv:1604.00981, 2016 (backup workers: wait for the fastest k of p).
K. Lee et al., "Speeding up distributed machine learning using codes", IEEE Trans. Inf.
Theory 64(3):1514-1529, 2018; S. Dutta et al., "Slow and stale gradients can win the race:
error-runtime trade-offs in distributed SGD", AISTATS 2018 (shifted-exponential compute
times).
H. A. David and H. N. Nagaraja, "Order Statistics", 3rd ed., Wiley, 2003 (Renyi's
representation, the expected maximum of normals).

Examples
--------
>>> d = ShiftedExponential(shift=1.0, scale=0.02)
>>> round(d.expected_max(8), 4)                   # 1 + 0.02 (1 + 1/2 + ... + 1/8)
1.0544
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nvlearn import specs

__all__ = [
    "SECONDS_PER_HOUR", "JOULES_PER_KWH", "harmonic", "ShiftedExponential", "Normal",
    "expected_max_normal", "monte_carlo_max", "JitterIdle", "idle_cost",
]

SECONDS_PER_HOUR = 3600.0
JOULES_PER_KWH = 3.6e6


def _check_p(p) -> int:
    if isinstance(p, bool) or int(p) != p or p < 1:
        raise ValueError(f"p must be a positive integer number of GPUs, got {p!r}")
    return int(p)


def harmonic(p: int) -> float:
    """The harmonic number ``H_p = 1 + 1/2 + ... + 1/p`` (``H_0 = 0``).

    Examples
    --------
    >>> round(harmonic(4), 12)
    2.083333333333
    """
    if isinstance(p, bool) or int(p) != p or p < 0:
        raise ValueError(f"p must be an integer >= 0, got {p!r}")
    return float(np.sum(1.0 / np.arange(1, int(p) + 1)))


@dataclass(frozen=True)
class ShiftedExponential:
    """Step time ``shift + Exponential(mean=scale)``, seconds (see the module docstring).

    Examples
    --------
    >>> d = ShiftedExponential(1.0, 0.02)
    >>> d.mean, round(float(d.quantile(0.5)), 5)
    (1.02, 1.01386)
    """

    shift: float
    scale: float

    def __post_init__(self) -> None:
        if not (np.isfinite(self.shift) and self.shift >= 0):
            raise ValueError(f"shift must be a finite time >= 0 s, got {self.shift}")
        if not (np.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"scale must be a finite time > 0 s, got {self.scale}")

    @property
    def mean(self) -> float:
        """Expected step time of one GPU, seconds."""
        return self.shift + self.scale

    def cdf(self, t):
        """P(T <= t)."""
        t = np.asarray(t, dtype=np.float64)
        return np.where(t > self.shift, -np.expm1(-(t - self.shift) / self.scale), 0.0)

    def quantile(self, q):
        """The time below which a fraction ``q`` of draws fall."""
        q = np.asarray(q, dtype=np.float64)
        if np.any((q < 0) | (q >= 1)):
            raise ValueError("q must be in [0, 1)")
        return self.shift - self.scale * np.log1p(-q)

    def sample(self, size, rng: np.random.Generator):
        """Draws of the step time (``rng``: a numpy Generator)."""
        return self.shift + rng.exponential(self.scale, size)

    def expected_max(self, p: int) -> float:
        """E[max of p draws] = shift + scale * H_p."""
        return self.shift + self.scale * harmonic(_check_p(p))

    def expected_kth(self, k: int, p: int) -> float:
        """E[k-th smallest of p draws] = shift + scale * (H_p - H_{p-k}).

        Examples
        --------
        >>> d = ShiftedExponential(0.0, 1.0)
        >>> d.expected_kth(4, 4) == d.expected_max(4), round(d.expected_kth(1, 4), 12)  # min: 1/p
        (True, 0.25)
        """
        p = _check_p(p)
        if isinstance(k, bool) or int(k) != k or not 1 <= k <= p:
            raise ValueError(f"k must be an integer from 1 to p = {p}, got {k!r}")
        return self.shift + self.scale * (harmonic(p) - harmonic(p - int(k)))

    def max_quantile(self, q: float, p: int) -> float:
        """Quantile ``q`` of the maximum of ``p`` draws: ``F^{-1}(q^{1/p})``.

        Examples
        --------
        >>> round(ShiftedExponential(0.0, 1.0).max_quantile(0.99, 1), 3)     # -ln 0.01
        4.605
        """
        p = _check_p(p)
        if not 0 < q < 1:
            raise ValueError(f"q must be in (0, 1), got {q}")
        # 1 - q^(1/p) without cancellation: -expm1(log(q) / p)
        return self.shift - self.scale * math.log(-math.expm1(math.log(q) / p))


_erf = np.frompyfunc(math.erf, 1, 1)


@dataclass(frozen=True)
class Normal:
    """Step time ``Normal(mean, sd)``, seconds (a symmetric, light-tailed comparison).

    Examples
    --------
    >>> round(Normal(0.0, 1.0).expected_max(2), 4)          # 1 / sqrt(pi)
    0.5642
    """

    mean: float
    sd: float

    def __post_init__(self) -> None:
        if not (np.isfinite(self.mean) and np.isfinite(self.sd) and self.sd > 0):
            raise ValueError(f"need a finite mean and sd > 0, got {self.mean}, {self.sd}")

    def cdf(self, t):
        """P(T <= t)."""
        z = (np.asarray(t, dtype=np.float64) - self.mean) / (self.sd * math.sqrt(2.0))
        return 0.5 * (1.0 + _erf(z).astype(np.float64))

    def sample(self, size, rng: np.random.Generator):
        """Draws of the step time."""
        return rng.normal(self.mean, self.sd, size)

    def expected_max(self, p: int) -> float:
        """E[max of p draws], by integrating ``1 - F^p`` and ``F^p`` on a fine grid."""
        p = _check_p(p)
        z = np.linspace(-12.0, 12.0, 48001)
        fp = Normal(0.0, 1.0).cdf(z) ** p
        pos, neg = z >= 0, z <= 0
        e = np.trapezoid(1.0 - fp[pos], z[pos]) - np.trapezoid(fp[neg], z[neg])
        return self.mean + self.sd * float(e)


def expected_max_normal(p: int, mean: float = 0.0, sd: float = 1.0) -> float:
    """Leading-order asymptotic of E[max of p normal draws]: ``mean + sd sqrt(2 ln p)``.

    It over-estimates at moderate ``p`` (the next term is negative) and its ratio to the
    exact value tends to 1 only slowly.

    Parameters
    ----------
    p : int
        GPUs (draws), >= 1.
    mean : float
        Mean step time, seconds.
    sd : float
        Standard deviation of the step time, seconds.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(expected_max_normal(8192), 3)
    4.245
    """
    p = _check_p(p)
    return mean + sd * math.sqrt(2.0 * math.log(p))


def monte_carlo_max(dist, p: int, trials: int, seed: int = 0, block: int = 1 << 22):
    """Maxima of ``p`` draws of ``dist``, ``trials`` times (numpy, seeded; in blocks).

    Parameters
    ----------
    dist : ShiftedExponential or Normal
        Anything with ``sample(size, rng)``.
    p : int
        GPUs (draws per trial), >= 1.
    trials : int
        Independent steps simulated, >= 1.
    seed : int
        Seed of the numpy Generator.
    block : int
        Draws generated at once (memory bound), about ``block`` floats.

    Returns
    -------
    ndarray of float, shape (trials,)
        The slowest GPU's time of each trial, seconds.

    Examples
    --------
    >>> m = monte_carlo_max(ShiftedExponential(0.0, 1.0), 8, 20000, seed=1)
    >>> bool(abs(m.mean() - harmonic(8)) < 0.05)
    True
    """
    p = _check_p(p)
    if isinstance(trials, bool) or int(trials) != trials or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    rng = np.random.default_rng(seed)
    per = max(1, int(block) // p)
    out = np.empty(int(trials))
    for a in range(0, int(trials), per):
        b = min(int(trials), a + per)
        out[a:b] = dist.sample((b - a, p), rng).max(axis=1)
    return out


@dataclass(frozen=True)
class JitterIdle:
    """GPU time lost to waiting for the slowest GPU, per step and over a run.

    Attributes
    ----------
    n_gpus : int
    step_time : float
        Expected step time (the expected maximum), seconds.
    idle_gpu_seconds_per_step : float
        ``p x (E[max] - mean)``: every GPU waits, on average, from its own end to the last.
    idle_gpu_hours, idle_energy_kwh : float
        Over ``steps`` steps; energy at the catalogue's board power (an upper bound: an
        idle GPU draws less).
    idle_fraction : float
        ``(E[max] - mean) / E[max]``.
    board_power : float
        Watts per GPU.
    """

    n_gpus: int
    step_time: float
    idle_gpu_seconds_per_step: float
    idle_gpu_hours: float
    idle_energy_kwh: float
    idle_fraction: float
    board_power: float


def idle_cost(dist, p: int, steps: float, gpu: str = "h100") -> JitterIdle:
    """What waiting for the slowest of ``p`` GPUs costs over ``steps`` synchronous steps.

    Parameters
    ----------
    dist : ShiftedExponential or Normal
        Per-GPU step time, seconds.
    p : int
        GPUs in the synchronous job, >= 1.
    steps : float
        Training steps; > 0.
    gpu : str
        Catalogue GPU key (its board power, W, prices the energy).

    Returns
    -------
    JitterIdle
        Idle GPU-seconds per step, GPU-hours and kWh over the run.

    Examples
    --------
    >>> c = idle_cost(ShiftedExponential(1.0, 0.02), 2, steps=3600)
    >>> round(c.idle_gpu_hours, 4)               # 2 GPUs x 0.02 x (H_2 - 1) s x 3600 / 3600
    0.02
    """
    p = _check_p(p)
    if not (np.isfinite(steps) and steps > 0):
        raise ValueError(f"steps must be a positive number, got {steps!r}")
    power = specs.gpu(gpu).board_power
    emax = dist.expected_max(p)
    per_step = p * (emax - dist.mean)
    return JitterIdle(p, emax, per_step, steps * per_step / SECONDS_PER_HOUR,
                      steps * per_step * power / JOULES_PER_KWH, (emax - dist.mean) / emax,
                      power)
