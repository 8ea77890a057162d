"""A Monte Carlo SerDes link: PAM-N symbols through a lossy channel, noise, jitter, equaliser.

The model, one unit interval (UI) at a time, ``samples_per_ui`` sub-steps per UI:

1. **Transmitter.** Random, equally likely levels of PAM-M (peak-normalised to +-1), Gray
   labelled. Optional random jitter moves each symbol edge by a Gaussian amount (rms
   ``jitter_ui`` of a UI, clipped to half a UI).
2. **Channel.** A first-order low-pass (an RC) with ``loss_db`` of attenuation at the
   Nyquist frequency (half the baud). DC passes unattenuated, so long runs still reach the
   levels, but a short run does not settle before the next symbol: inter-symbol
   interference (ISI). The RC is integrated exactly for piecewise-constant input.
3. **Receiver.** Gaussian noise with sigma = 1/sqrt(snr) (peak SNR, see
   :mod:`nvlearn.serdes.pam`) on every sample; a clock recovery that samples half a UI
   after the channel's mean transition (the 50 % point of its step response); an optional
   feed-forward equaliser (FFE: UI-spaced taps, MMSE design) and decision-feedback
   equaliser (DFE: subtracts the tail of already-decided symbols); a slicer with thresholds
   midway between levels.

Outputs: symbol and bit error counts (so rates with confidence intervals) and an eye
diagram (a 2-D histogram of the equalised waveform over two UIs around the sampling time).

References
----------
J. G. Proakis and M. Salehi, "Digital Communications", 5th ed., McGraw-Hill, 2008, ch. 9
(inter-symbol interference, MMSE linear equalisers, decision-feedback equalisers).

Examples
--------
>>> r = simulate_link(200_000, "PAM4", snr_db=22.0, seed=1)
>>> r.symbol_errors > 0, abs(r.ber / r.ber_theory - 1) < 0.1
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nvlearn._jit import njit
from nvlearn.serdes.pam import (
    bits_per_symbol,
    gray_code,
    modulation_name,
    modulation_order,
    pam_ber,
    pam_ser,
)
from nvlearn.serdes.stats import db_to_linear, wilson_interval

__all__ = ["time_constant_ui", "scale_loss_db", "Eye", "LinkResult", "simulate_link"]

#: Least half-height of the eye histogram (peak-normalised levels are +-1).
_EYE_MIN_SPAN = 1.25
_PULSE_MAX_UI = 512


def _check_number(name: str, value: float, low: float, high: float = math.inf) -> float:
    value = float(value)
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value!r}")
    return value


def time_constant_ui(loss_db: float) -> float:
    """RC time constant, in UI, of a first-order low-pass with ``loss_db`` at Nyquist.

    |H(f)|^2 = 1 / (1 + (f/fc)^2); at f = baud/2 the loss is L dB when
    fc = (baud/2) / sqrt(10^(L/10) - 1), so tau / T = sqrt(10^(L/10) - 1) / pi.

    Examples
    --------
    >>> round(time_constant_ui(10 * math.log10(2)), 4)   # 3 dB at Nyquist: fc = baud / 2
    0.3183
    """
    loss_db = _check_number("loss_db (channel loss at Nyquist, dB)", loss_db, 0.0, 60.0)
    return math.sqrt(10.0 ** (loss_db / 10.0) - 1.0) / math.pi


def scale_loss_db(loss_db: float, from_baud: float, to_baud: float, exponent: float = 1.0) -> float:
    """A channel's loss at another baud's Nyquist frequency, for loss in dB ~ f^exponent.

    Copper loss in dB grows with frequency: ~sqrt(f) from the skin effect, ~f from the
    dielectric; ``exponent`` between 0.5 and 1 spans the two. Sending the same bits as NRZ
    needs twice PAM4's baud, so the NRZ signal meets the loss at twice the frequency.

    Parameters
    ----------
    loss_db : float
        Channel loss at ``from_baud``'s Nyquist frequency (half the baud), dB; >= 0.
    from_baud, to_baud : float
        Symbol rates, symbols/s (baud); > 0.
    exponent : float
        How loss in dB grows with frequency: 0.5 skin effect, 1 dielectric (default).

    Returns
    -------
    float
        Loss at ``to_baud``'s Nyquist frequency, dB.

    Examples
    --------
    >>> scale_loss_db(12.0, 26.5625e9, 53.125e9)
    24.0
    """
    _check_number("loss_db", loss_db, 0.0)
    if from_baud <= 0 or to_baud <= 0:
        raise ValueError("baud rates must be > 0")
    return float(loss_db) * (to_baud / from_baud) ** float(exponent)


def _sampling_index(tau_ui: float, sps: int) -> int:
    """Sub-sample the clock recovery picks: half a UI after the step response's 50 % point."""
    target = 0.5 + tau_ui * math.log(2.0)
    return int(min(max(round(target * sps) - 1, 0), sps - 1))


@njit
def _pulse_response(alpha, sps, s_dec, n_ui):
    """Noise-free samples at the decision phase after one unit symbol at UI 0 (others 0)."""
    h = np.zeros(n_ui)
    y = 0.0
    for k in range(n_ui):
        x = 1.0 if k == 0 else 0.0
        for s in range(sps):
            y = x + (y - x) * alpha
            if s == s_dec:
                h[k] = y
    return h


def _equaliser(h: np.ndarray, order: int, sigma: float, ffe_taps: int, dfe_taps: int):
    """MMSE FFE (decision delay 0) designed jointly with a ``dfe_taps``-tap DFE.

    Minimises E|c . r_k - sum_j b_j a_{k-j} - a_k|^2 assuming correct past decisions: the
    post-cursors the DFE cancels are left out of the FFE's interference covariance.
    Returns (c, b, g) with g the cursor of the combined response (slicer gain).
    """
    n_ui = h.size
    var_a = (order + 1) / (3.0 * (order - 1))  # mean of a^2 over equally likely levels
    # column m of H: coefficients of a_{k-m} in [r_k, r_{k-1}, ..., r_{k-nf+1}]
    big_h = np.zeros((ffe_taps, n_ui + ffe_taps))
    for i in range(ffe_taps):
        big_h[i, i : i + n_ui] = h
    keep = np.ones(big_h.shape[1], dtype=bool)
    keep[1 : dfe_taps + 1] = False
    kept = big_h[:, keep]
    r = var_a * kept @ kept.T + sigma**2 * np.eye(ffe_taps)
    c = np.linalg.solve(r, var_a * big_h[:, 0])
    combined = c @ big_h
    return c, combined[1 : dfe_taps + 1].copy(), float(combined[0])


@njit
def _segment_bounds(edge_in, edge_out, sps):
    """Sub-samples of a UI still on the previous level, and the first one on the next level.

    Sub-sample s spans [s, s+1) / sps of the UI; its input is the previous symbol while its
    midpoint precedes this UI's (jittered) edge, and the next symbol once its midpoint passes
    the next UI's edge.
    """
    n_prev = min(max(math.ceil(edge_in * sps - 0.5), 0), sps)
    first_next = min(max(math.ceil((1.0 + edge_out) * sps - 0.5), n_prev), sps)
    return n_prev, first_next


@njit
def _settle(y, n_prev, first_next, steps, a_prev, a_cur, a_next, alpha_pow):
    """The RC state after the first ``steps`` sub-samples of a UI, in closed form.

    Over m sub-samples of constant input x the state moves to x + (y - x) alpha^m.
    """
    m = min(steps, n_prev)
    y = a_prev + (y - a_prev) * alpha_pow[m]
    m = min(steps, first_next) - n_prev
    if m > 0:
        y = a_cur + (y - a_cur) * alpha_pow[m]
    m = steps - first_next
    if m > 0:
        y = a_next + (y - a_next) * alpha_pow[m]
    return y


@njit
def _link_kernel(n, order, rng, sigma, jitter_ui, alpha, sps, s_dec, ffe, dfe, gain, n_eye):
    """Run n symbols; return sent and decided level indices and the first n_eye UIs' waveform.

    The first n_eye UIs are stepped sub-sample by sub-sample (noise on every sample, for
    the eye); after that only the decision sample is needed, and the channel state jumps
    from segment to segment in closed form.
    """
    levels = np.empty(order)
    for i in range(order):
        levels[i] = (2.0 * i - (order - 1)) / (order - 1)
    alpha_pow = np.empty(sps + 1)
    for m in range(sps + 1):
        alpha_pow[m] = alpha**m
    sent = np.empty(n, dtype=np.int64)
    for k in range(n):
        sent[k] = rng.integers(0, order)
    edge = np.zeros(n + 1)  # edge[k]: offset (UI) of the transition into symbol k
    if jitter_ui > 0.0:
        for k in range(n + 1):
            edge[k] = min(max(jitter_ui * rng.standard_normal(), -0.5), 0.5)
    nf = ffe.size
    nd = dfe.size
    rx = np.zeros((nf, sps))  # ring buffer of noisy received UIs
    past = np.zeros(max(nd, 1))  # ring buffer of decided levels
    decided = np.empty(n, dtype=np.int64)
    eye = np.empty(n_eye * sps)
    y = levels[sent[0]]
    for k in range(n):
        a_prev = levels[sent[k - 1]] if k > 0 else levels[sent[0]]
        a_cur = levels[sent[k]]
        a_next = levels[sent[k + 1]] if k + 1 < n else a_cur
        n_prev, first_next = _segment_bounds(edge[k], edge[k + 1], sps)
        row = k % nf
        if k < n_eye:
            for s in range(sps):
                x = a_prev if s < n_prev else (a_next if s >= first_next else a_cur)
                y = x + (y - x) * alpha
                rx[row, s] = y + sigma * rng.standard_normal()
        else:
            y_dec = _settle(y, n_prev, first_next, s_dec + 1, a_prev, a_cur, a_next, alpha_pow)
            rx[row, s_dec] = y_dec + sigma * rng.standard_normal()
            y = _settle(y, n_prev, first_next, sps, a_prev, a_cur, a_next, alpha_pow)
        feedback = 0.0
        for j in range(nd):
            if k - 1 - j >= 0:
                feedback += dfe[j] * past[(k - 1 - j) % nd]
        z = 0.0
        for j in range(nf):
            if k - j >= 0:
                z += ffe[j] * rx[(k - j) % nf, s_dec]
        u = (z - feedback) / gain
        idx = int(math.floor((u * (order - 1) + order) * 0.5))
        idx = min(max(idx, 0), order - 1)
        decided[k] = idx
        if nd > 0:
            past[k % nd] = levels[idx]
        if k < n_eye:
            for s in range(sps):
                w = 0.0
                for j in range(nf):
                    if k - j >= 0:
                        w += ffe[j] * rx[(k - j) % nf, s]
                eye[k * sps + s] = (w - feedback) / gain
    return sent, decided, eye


@dataclass(frozen=True)
class Eye:
    """An eye diagram as a 2-D histogram.

    ``counts[i, j]``: samples at time ``time[i]`` (UI, 0 = sampling instant) with amplitude in
    bin ``j`` (centres ``amplitude``, peak-normalised).
    """

    counts: np.ndarray
    time: np.ndarray
    amplitude: np.ndarray


@dataclass(frozen=True)
class LinkResult:
    """Outcome of :func:`simulate_link`: error counts and rates, the equaliser, the eye."""

    modulation: str
    n_symbols: int
    snr_db: float
    loss_db: float
    jitter_ui: float
    symbol_errors: int
    bit_errors: int
    ser_theory: float
    ber_theory: float
    sample_time_ui: float
    pulse: np.ndarray
    ffe: np.ndarray
    dfe: np.ndarray
    eye: Eye

    @property
    def n_bits(self) -> int:
        """Bits sent: symbols x bits per symbol."""
        return self.n_symbols * bits_per_symbol(self.modulation)

    @property
    def ser(self) -> float:
        """Measured symbol error rate."""
        return self.symbol_errors / self.n_symbols

    @property
    def ber(self) -> float:
        """Measured bit error rate."""
        return self.bit_errors / self.n_bits

    @property
    def ser_interval(self) -> tuple[float, float]:
        """95 % confidence interval of the symbol error rate (Wilson)."""
        return wilson_interval(self.symbol_errors, self.n_symbols)

    @property
    def ber_interval(self) -> tuple[float, float]:
        """95 % interval of the bit error rate, treating bits as independent trials.

        Bit errors in one symbol are correlated (rarely: Gray coding makes most symbol
        errors one bit), so the symbol-error interval is the stricter statement.
        """
        return wilson_interval(self.bit_errors, self.n_bits)

    @property
    def noise_gain(self) -> float:
        """Noise sigma at the slicer relative to a lossless, unequalised link: ||ffe|| / cursor.

        Above 1 when the channel shrinks the cursor or the FFE amplifies noise.
        """
        cursor = float(np.convolve(self.ffe, self.pulse)[0])
        return float(np.linalg.norm(self.ffe)) / abs(cursor)


def _eye_histogram(wave: np.ndarray, sps: int, s_dec: int, bins: int) -> Eye:
    n_ui = wave.size // sps
    offsets = np.arange(-sps + 1, sps + 1)  # two UIs, sampling instant at offset 0
    starts = np.arange(1, n_ui - 1) * sps + s_dec
    samples = wave[starts[:, None] + offsets[None, :]]
    t_index = np.broadcast_to(np.arange(offsets.size), samples.shape)
    span = max(_EYE_MIN_SPAN, 1.05 * float(np.quantile(np.abs(samples), 0.9999)))
    counts, _, v_edges = np.histogram2d(
        t_index.ravel(),
        samples.ravel(),
        bins=(offsets.size, bins),
        range=((-0.5, offsets.size - 0.5), (-span, span)),
    )
    return Eye(
        counts=counts,
        time=offsets / sps,
        amplitude=0.5 * (v_edges[:-1] + v_edges[1:]),
    )


def _check_link_args(n_symbols, jitter_ui, ffe_taps, dfe_taps, samples_per_ui
                     ) -> tuple[int, float, int]:
    """:func:`simulate_link`'s counts and jitter checked: ``(n_symbols, jitter_ui, sps)``."""
    if isinstance(n_symbols, bool) or int(n_symbols) != n_symbols or n_symbols < 16:
        raise ValueError(f"n_symbols must be a whole number >= 16, got {n_symbols!r}")
    jitter_ui = _check_number("jitter_ui (rms, UI)", jitter_ui, 0.0, 0.25)
    for name, value, low in (("ffe_taps", ffe_taps, 1), ("dfe_taps", dfe_taps, 0)):
        if isinstance(value, bool) or int(value) != value or not low <= value <= 64:
            raise ValueError(f"{name} must be a whole number in [{low}, 64], got {value!r}")
    sps = int(samples_per_ui)
    if not 4 <= sps <= 128:
        raise ValueError(f"samples_per_ui must be in [4, 128], got {samples_per_ui!r}")
    return int(n_symbols), jitter_ui, sps


def simulate_link(
    n_symbols: int,
    modulation: str | int = "PAM4",
    *,
    snr_db: float = 25.0,
    loss_db: float = 0.0,
    jitter_ui: float = 0.0,
    ffe_taps: int = 1,
    dfe_taps: int = 0,
    samples_per_ui: int = 32,
    eye_symbols: int = 3000,
    eye_bins: int = 160,
    seed: int | np.random.Generator = 0,
) -> LinkResult:
    """Send ``n_symbols`` random PAM-M symbols over the modelled link and count the errors.

    Parameters
    ----------
    n_symbols : int
        Symbols to simulate (>= 16).
    modulation : str or int
        "NRZ", "PAM4", "PAM8" or the order.
    snr_db : float
        Peak SNR at the receiver input in dB: 10 log10(1 / sigma^2), levels spanning +-1.
    loss_db : float
        Channel loss at the Nyquist frequency (baud / 2), dB, 0 .. 60.
    jitter_ui : float
        Rms random jitter of the transmitted edges, in UI (0 .. 0.25).
    ffe_taps : int
        Feed-forward equaliser taps (1 = no FFE, only a gain).
    dfe_taps : int
        Decision-feedback taps (0 = no DFE).
    samples_per_ui : int
        Time resolution of the waveform and the eye (4 .. 128).
    eye_symbols : int
        How many of the first symbols feed the eye histogram (>= 16, at most n_symbols).
    eye_bins : int
        Amplitude bins of the eye histogram.
    seed : int or numpy.random.Generator
        Seed (or generator) of the random stream of symbols, jitter and noise: same seed,
        same result.

    Returns
    -------
    LinkResult
        ``ser``, ``ber`` (measured), ``ser_theory``, ``ber_theory`` (Gaussian noise without
        ISI at the same SNR), intervals, the equaliser taps and the :class:`Eye`.

    Examples
    --------
    >>> r = simulate_link(50_000, "NRZ", snr_db=12.0, loss_db=10.0, ffe_taps=3, dfe_taps=2)
    >>> r.modulation, r.ffe.size, r.dfe.size
    ('NRZ', 3, 2)
    """
    order = modulation_order(modulation)
    n_symbols, jitter_ui, sps = _check_link_args(n_symbols, jitter_ui, ffe_taps, dfe_taps,
                                                 samples_per_ui)
    snr = db_to_linear(snr_db)
    sigma = 1.0 / math.sqrt(snr)
    tau = time_constant_ui(loss_db)
    alpha = math.exp(-1.0 / (sps * tau)) if tau > 0 else 0.0
    s_dec = _sampling_index(tau, sps)
    n_pulse = int(min(_PULSE_MAX_UI, max(8, math.ceil(tau * 40) + 2)))
    pulse = _pulse_response(alpha, sps, s_dec, n_pulse)
    ffe, dfe, gain = _equaliser(pulse, order, sigma, int(ffe_taps), int(dfe_taps))
    if int(eye_symbols) < 16:
        raise ValueError(f"eye_symbols must be >= 16 to draw an eye, got {eye_symbols!r}")
    n_eye = min(int(eye_symbols), n_symbols)
    rng = np.random.default_rng(seed)
    sent, decided, wave = _link_kernel(
        n_symbols, order, rng, sigma, jitter_ui, alpha, sps, s_dec, ffe, dfe, gain, n_eye
    )
    gray = gray_code(order)
    wrong = sent != decided
    diff = gray[sent[wrong]] ^ gray[decided[wrong]]
    bit_errors = int(np.unpackbits(diff.astype(np.uint8)[:, None], axis=1).sum())
    eye = _eye_histogram(wave, sps, s_dec, int(eye_bins))
    return LinkResult(
        modulation=modulation_name(order),
        n_symbols=n_symbols,
        snr_db=float(snr_db),
        loss_db=float(loss_db),
        jitter_ui=jitter_ui,
        symbol_errors=int(np.count_nonzero(wrong)),
        bit_errors=bit_errors,
        ser_theory=float(pam_ser(snr, order)),
        ber_theory=float(pam_ber(snr, order)),
        sample_time_ui=(s_dec + 1) / sps,
        pulse=pulse,
        ffe=ffe,
        dfe=dfe,
        eye=eye,
    )
