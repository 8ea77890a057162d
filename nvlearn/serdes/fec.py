"""Forward error correction: what RS(544,514) buys, what it costs, and when it is not enough.

A Reed-Solomon code RS(n, k) over m-bit symbols appends n - k parity symbols to k data
symbols and corrects any t = (n - k) // 2 symbol errors in the n-symbol codeword. The
"KP4" code of 100G-per-lane Ethernet and InfiniBand PHYs (and, judging by its published
rates, of NVLink 4) is RS(544,514) with 10-bit symbols: 5440-bit codewords, t = 15.

With independent bit errors at rate p (the pre-FEC BER), a symbol is wrong with probability
p_s = 1 - (1 - p)^m, the number of wrong symbols in a codeword is Binomial(n, p_s), and the
codeword is uncorrectable when more than t are wrong::

    CER = P(X > t) = sum_{j=t+1}^{n} C(n, j) p_s^j (1 - p_s)^(n - j)

Because the first term dominates, CER ~ p^(t+1): halve the pre-FEC BER and the codeword
error rate falls by ~2^16. That cliff is why links are specified at a pre-FEC BER (around
2.4e-4 for KP4) rather than "error-free": below it, FEC makes the link effectively clean.

References
----------
I. S. Reed and G. Solomon, "Polynomial codes over certain finite fields", J. SIAM
8(2):300-304, 1960.
IEEE Std 802.3-2022, Clause 91 (RS-FEC: RS(528,514) "KR4" and RS(544,514) "KP4", 10-bit
symbols) and IEEE Std 802.3ck-2022 (RS(544,514) on 100 Gb/s lanes).
D. Bertsekas and R. Gallager, "Data Networks", 2nd ed., Prentice Hall, 1992, Sec. 2.4
(go-back-N retransmission, the replay model of :func:`retry_cost`).

Examples
--------
>>> code = RSCode(544, 514)
>>> code.t, code.codeword_bits
(15, 5440)
>>> f"{codeword_error_rate(2.4e-4, code):.1e}"
'8.2e-13'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nvlearn import specs
from nvlearn._jit import njit
from nvlearn.serdes.chain import Overhead, reed_solomon
from nvlearn.serdes.stats import wilson_interval

__all__ = [
    "RSCode", "catalogue_code", "symbol_error_probability", "codeword_error_rate",
    "required_pre_fec_ber", "FecMonteCarlo", "simulate_codewords", "codeword_time",
    "frame_error_rate", "RetryCost", "retry_cost",
]


@dataclass(frozen=True)
class RSCode:
    """A Reed-Solomon code RS(n, k) with ``symbol_bits``-bit symbols.

    Raises ValueError when the parity does not fit (k <= 0 or k >= n) or n exceeds the
    RS length limit 2^m - 1.

    Examples
    --------
    >>> RSCode(528, 514).t
    7
    """

    n: int
    k: int
    symbol_bits: int = 10

    def __post_init__(self):
        reed_solomon(self.n, self.k)  # validates 0 < k < n with a clear message
        if self.symbol_bits < 1:
            raise ValueError(f"symbol_bits must be >= 1, got {self.symbol_bits}")
        if self.n > 2**self.symbol_bits - 1:
            raise ValueError(
                f"RS({self.n},{self.k}) over {self.symbol_bits}-bit symbols is too long: a "
                f"Reed-Solomon codeword has at most 2^m - 1 = {2**self.symbol_bits - 1} symbols"
            )

    @property
    def parity(self) -> int:
        """n - k parity symbols."""
        return self.n - self.k

    @property
    def t(self) -> int:
        """Symbol errors the decoder corrects in one codeword: (n - k) // 2."""
        return self.parity // 2

    @property
    def codeword_bits(self) -> int:
        """n x m bits on the line per codeword."""
        return self.n * self.symbol_bits

    @property
    def name(self) -> str:
        """The code's usual name, ``"RS(n,k)"``."""
        return f"RS({self.n},{self.k})"

    @property
    def overhead(self) -> Overhead:
        """The code's rate cost as a bandwidth-chain step."""
        return reed_solomon(self.n, self.k)


def catalogue_code(name: str = "RS(544,514)") -> RSCode:
    """The catalogue's FEC ``name`` (``nvlearn.specs.fec``) as an :class:`RSCode`.

    Examples
    --------
    >>> catalogue_code("RS(544,514)").t
    15
    """
    spec = specs.fec(name)
    code = RSCode(spec.n, spec.k, spec.symbol_bits)
    if code.t != spec.t:
        raise ValueError(
            f"catalogue says {name} corrects {spec.t} symbols, but (n - k) // 2 = {code.t}"
        )
    return code


def _ber_array(ber: float | np.ndarray) -> np.ndarray:
    values = np.asarray(ber, dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        raise ValueError(f"a bit error rate must be between 0 and 1, got {ber!r}")
    return values


def symbol_error_probability(ber: float | np.ndarray, symbol_bits: int) -> float | np.ndarray:
    """P(an m-bit symbol has at least one wrong bit) = 1 - (1 - ber)^m, independent bit errors.

    Examples
    --------
    >>> round(symbol_error_probability(1e-4, 10), 8)
    0.00099955
    """
    p = _ber_array(ber)
    out = -np.expm1(symbol_bits * np.log1p(-np.minimum(p, 1 - 1e-16)))
    out = np.where(p >= 1, 1.0, out)
    return float(out) if out.ndim == 0 else out


def _binomial_tail(p: np.ndarray, n: int, t: int) -> np.ndarray:
    """P(Binomial(n, p) > t), summed term by term in log space (accurate for tiny tails)."""
    j = np.arange(t + 1, n + 1, dtype=float)
    log_choose = (
        np.array([math.lgamma(n + 1)]) - np.vectorize(math.lgamma)(j + 1)
        - np.vectorize(math.lgamma)(n - j + 1)
    )
    p = np.asarray(p, dtype=float)[..., None]
    with np.errstate(divide="ignore"):
        log_terms = log_choose + j * np.log(p) + (n - j) * np.log1p(-p)
    return np.exp(np.logaddexp.reduce(log_terms, axis=-1))


def _burst_symbol_spread(burst_bits: int, symbol_bits: int) -> np.ndarray:
    """P(one burst of ``burst_bits`` touches s symbols), s = 0 .., start uniform in a symbol."""
    touched = [math.ceil((offset + burst_bits) / symbol_bits) for offset in range(symbol_bits)]
    return np.bincount(touched, minlength=max(touched) + 1) / symbol_bits


def _compound_poisson_tail(rate: float, spread: np.ndarray, t: int) -> float:
    """P(sum of Poisson(rate) iid draws from ``spread`` > t), summed without cancellation."""
    tail = 0.0
    pmf = np.zeros(t + 1)
    pmf[0] = 1.0  # distribution of the running sum, truncated to 0..t
    log_poisson = -rate
    for events in range(t + 1):
        if events > 0:
            pmf = np.convolve(pmf, spread)[: t + 1]
            log_poisson += math.log(rate) - math.log(events)
        tail += math.exp(log_poisson) * max(0.0, 1.0 - pmf.sum())
    # more than t events always exceed t symbols: add the Poisson tail term by term
    term = log_poisson
    events = t
    while True:
        events += 1
        term += math.log(rate) - math.log(events)
        tail += math.exp(term)
        if events > rate and term < math.log(tail + 1e-300) - 40:
            return tail


def codeword_error_rate(
    ber: float | np.ndarray, code: RSCode, burst_bits: int = 1
) -> float | np.ndarray:
    """Post-FEC codeword error rate: P(more than t of the n symbols are wrong).

    ``burst_bits = 1``: independent bit errors at rate ``ber`` (pre-FEC), the binomial
    formula of the module docstring. ``burst_bits = b > 1``: errors come in bursts of b
    bits, error events at rate ber / b per bit (Poisson), each touching ceil(b / m) or one
    more symbols depending on where it starts; overlapping bursts are ignored. A burst
    spends several of the t corrections at once, so at low BER bursts hurt far more than
    their bit count suggests. :func:`simulate_codewords` checks both.

    Parameters
    ----------
    ber : float or ndarray
        Pre-FEC bit error rate, in [0, 1].
    code : RSCode
        The Reed-Solomon code (n, k, symbol bits m, corrects t symbols).
    burst_bits : int
        Length of each error event in bits; 1 for independent bit errors.

    Returns
    -------
    float or ndarray
        Probability that a codeword is uncorrectable (the shape of ``ber``).

    Examples
    --------
    >>> code = RSCode(544, 514)
    >>> f"{codeword_error_rate(1e-5, code):.1e}"
    '2.1e-34'
    >>> codeword_error_rate(2.4e-4, code, burst_bits=40) > 1e4 * codeword_error_rate(2.4e-4, code)
    True
    """
    if isinstance(burst_bits, bool) or int(burst_bits) != burst_bits or burst_bits < 1:
        raise ValueError(f"burst_bits must be a whole number >= 1, got {burst_bits!r}")
    if burst_bits == 1:
        p_s = np.asarray(symbol_error_probability(ber, code.symbol_bits))
        out = _binomial_tail(p_s, code.n, code.t)
    else:
        p = _ber_array(ber)
        spread = _burst_symbol_spread(int(burst_bits), code.symbol_bits)
        rates = p * code.codeword_bits / burst_bits
        tails = [_compound_poisson_tail(float(r), spread, code.t) if r > 0 else 0.0
                 for r in rates.ravel()]
        out = np.array(tails).reshape(p.shape)
    return float(out) if out.ndim == 0 else out


def required_pre_fec_ber(target_cer: float, code: RSCode) -> float:
    """The largest pre-FEC BER whose codeword error rate is at most ``target_cer`` (bisection).

    Examples
    --------
    >>> f"{required_pre_fec_ber(1e-12, RSCode(544, 514)):.2e}"
    '2.43e-04'
    """
    if not 0 < target_cer < 1:
        raise ValueError(f"target codeword error rate must be in (0, 1), got {target_cer!r}")
    lo, hi = -15.0, math.log10(0.5)  # log10 BER
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if codeword_error_rate(10.0**mid, code) > target_cer:
            hi = mid
        else:
            lo = mid
    return 10.0**lo


@njit
def _symbol_errors_per_codeword(n_codewords, n, m, event_rate, burst_bits, rng):
    """Errored symbols in each codeword of a bit stream with error events at ``event_rate``.

    Each event flips ``burst_bits`` consecutive bits; gaps between events are geometric, so
    the work is proportional to the number of errors, not of bits.
    """
    counts = np.zeros(n_codewords, dtype=np.int32)
    total_bits = n_codewords * n * m
    flipped = 0
    pos = rng.geometric(event_rate) - 1
    last_symbol = -1
    while pos < total_bits:
        end = min(pos + burst_bits, total_bits)
        for bit in range(pos, end):
            symbol = bit // m
            if symbol != last_symbol:
                counts[symbol // n] += 1
                last_symbol = symbol
        flipped += end - pos
        pos = end + rng.geometric(event_rate) - 1
    return counts, flipped


@dataclass(frozen=True)
class FecMonteCarlo:
    """Result of :func:`simulate_codewords`.

    ``symbol_errors`` holds the number of wrong symbols in each simulated codeword.
    """

    code: RSCode
    pre_fec_ber: float
    burst_bits: int
    symbol_errors: np.ndarray
    measured_ber: float

    @property
    def n_codewords(self) -> int:
        """Codewords simulated."""
        return int(self.symbol_errors.size)

    @property
    def uncorrectable(self) -> int:
        """Codewords with more than t wrong symbols."""
        return int(np.count_nonzero(self.symbol_errors > self.code.t))

    @property
    def cer(self) -> float:
        """Measured codeword error rate."""
        return self.uncorrectable / self.n_codewords

    @property
    def cer_interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the measured codeword error rate."""
        return wilson_interval(self.uncorrectable, self.n_codewords)


def simulate_codewords(
    pre_fec_ber: float,
    code: RSCode,
    n_codewords: int,
    *,
    burst_bits: int = 1,
    seed: int | np.random.Generator = 0,
) -> FecMonteCarlo:
    """Monte Carlo of the RS decoder's success: random bit errors, count symbols per codeword.

    Parameters
    ----------
    pre_fec_ber : float
        Mean bit error rate before the decoder, 0 < ber < 1.
    code : RSCode
        The code (only n, m and t matter: a bounded-distance decoder fixes any <= t symbols).
    n_codewords : int
        Codewords to simulate.
    burst_bits : int
        Bits flipped by each error event. 1 = independent errors (the formula's assumption);
        larger values model error propagation, at the same mean BER (events are rarer).
    seed : int or numpy.random.Generator
        Seed (or generator) of the random stream.

    Returns
    -------
    FecMonteCarlo
        Wrong symbols per simulated codeword, the measured BER and codeword error rate with
        its Wilson interval.

    Examples
    --------
    >>> mc = simulate_codewords(2e-3, RSCode(544, 514), 20_000, seed=1)
    >>> lo, hi = mc.cer_interval
    >>> bool(lo <= codeword_error_rate(2e-3, RSCode(544, 514)) <= hi)
    True
    """
    if not 0 < pre_fec_ber < 1:
        raise ValueError(f"pre_fec_ber must be in (0, 1), got {pre_fec_ber!r}")
    if int(n_codewords) < 1:
        raise ValueError(f"n_codewords must be >= 1, got {n_codewords!r}")
    if int(burst_bits) < 1:
        raise ValueError(f"burst_bits must be >= 1, got {burst_bits!r}")
    event_rate = pre_fec_ber / burst_bits
    counts, flipped = _symbol_errors_per_codeword(
        int(n_codewords), code.n, code.symbol_bits, event_rate, int(burst_bits),
        np.random.default_rng(seed),
    )
    return FecMonteCarlo(
        code=code,
        pre_fec_ber=float(pre_fec_ber),
        burst_bits=int(burst_bits),
        symbol_errors=counts,
        measured_ber=flipped / (int(n_codewords) * code.codeword_bits),
    )


def codeword_time(code: RSCode, lane_rate_raw: float, lanes: int = 1) -> float:
    """Seconds to receive one codeword striped over ``lanes`` lanes of ``lane_rate_raw`` bytes/s.

    A decoder cannot correct a codeword before all of it has arrived, so this is the least
    latency FEC adds per hop (the decoder's own pipeline comes on top).

    Parameters
    ----------
    code : RSCode
        The code; its codeword is ``n m`` bits on the line.
    lane_rate_raw : float
        Line rate of one lane before any code is removed, bytes/s per direction (106.25 Gb/s
        is ``106.25e9 / 8``); > 0.
    lanes : int
        Lanes the codeword is striped over; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> codeword_time(RSCode(544, 514), 106.25e9 / 8, lanes=2) * 1e9   # ns
    25.6
    """
    if not lane_rate_raw > 0:
        raise ValueError(f"lane_rate_raw must be > 0 bytes/s, got {lane_rate_raw!r}")
    if int(lanes) < 1:
        raise ValueError(f"lanes must be >= 1, got {lanes!r}")
    return code.codeword_bits / 8.0 / (lane_rate_raw * int(lanes))


def frame_error_rate(ber: float | np.ndarray, frame_bits: int) -> float | np.ndarray:
    """P(a frame of ``frame_bits`` has at least one wrong bit) = 1 - (1 - ber)^bits.

    What a CRC-only link (detect, then retry) sees without FEC.

    Examples
    --------
    >>> round(frame_error_rate(2.4e-4, 5440), 3)
    0.729
    """
    if int(frame_bits) < 1:
        raise ValueError(f"frame_bits must be >= 1, got {frame_bits!r}")
    return symbol_error_probability(ber, int(frame_bits))


@dataclass(frozen=True)
class RetryCost:
    """Expected cost of link-level retry (go-back-N replay) at a frame error rate.

    ``transmissions``: mean sends per frame; ``extra_latency``: mean added delay per frame
    (seconds); ``goodput``: fraction of line time carrying frames that arrive intact.
    """

    frame_error_rate: float
    transmissions: float
    extra_latency: float
    goodput: float


def retry_cost(frame_error_rate: float, round_trip: float, frame_time: float) -> RetryCost:
    """Mean cost of recovering errored frames by replay instead of correcting them.

    A failed frame is noticed one ``round_trip`` later (CRC fails, a NAK returns) and it and
    everything sent since is replayed (go-back-N), so each failure wastes
    ``round_trip + frame_time`` of line time and adds that much latency. With failure
    probability f per send, a frame needs 1 / (1 - f) sends on average.

    Parameters
    ----------
    frame_error_rate : float
        Probability that one transmission of a frame fails its CRC, in [0, 1).
    round_trip : float
        Seconds from sending a frame to learning it failed (link round trip plus the
        receiver's check); >= 0.
    frame_time : float
        Seconds one frame occupies the line; > 0.

    Returns
    -------
    RetryCost
        Mean sends per frame, mean extra latency per frame (s) and the goodput fraction.

    Examples
    --------
    >>> c = retry_cost(1e-12, round_trip=100e-9, frame_time=25.6e-9)
    >>> c.goodput > 0.999999
    True
    """
    f = float(frame_error_rate)
    if not 0 <= f < 1:
        raise ValueError(f"frame_error_rate must be in [0, 1), got {frame_error_rate!r}")
    if round_trip < 0 or frame_time <= 0:
        raise ValueError("round_trip must be >= 0 s and frame_time > 0 s")
    retries = f / (1.0 - f)
    wasted = retries * (round_trip + frame_time)
    return RetryCost(
        frame_error_rate=f,
        transmissions=1.0 + retries,
        extra_latency=wasted,
        goodput=frame_time / (frame_time + wasted),
    )
