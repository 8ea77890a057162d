"""Figures for the SerDes notebook: eye diagrams, BER curves, the bandwidth waterfall,
interface generations, and FEC codeword error rates. Each function returns a Figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from nvlearn.plots import live
from nvlearn.plots.live import LiveFigure
from nvlearn.plots.style import FABRIC_COLOURS, NOTEBOOK_WIDTH, SERIES, new_figure
from nvlearn.serdes.chain import BandwidthChain
from nvlearn.serdes.channel import LinkResult
from nvlearn.serdes.fec import FecMonteCarlo, RSCode, codeword_error_rate
from nvlearn.serdes.pam import pam_ber, pam_levels, snr_for_ber

__all__ = ["EyeChart", "EyePanel", "ber_curves", "chain_waterfall", "eye_diagram", "fec_curves",
           "generation_chart"]

_DIRECTION_WORDS = {"per_direction": "per direction", "bidirectional": "both directions"}


def _sci(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


class EyePanel:
    """An eye diagram on one axes (log-density 2-D histogram, slicer thresholds dashed, the
    sampling instant in cyan) with its BER beside it, updated in place per link result.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; its figure keeps room on the right for the BER text.
    modulation : str
        The modulation the results use (sets the thresholds drawn).

    Attributes
    ----------
    artists : list of matplotlib.artist.Artist
        What :meth:`update` changes (the eye, the lines over it, the amplitude axis, the
        title and the BER text) and the frame over the eye.
    """

    def __init__(self, ax, modulation: str) -> None:
        self.ax = ax
        self.image = ax.imshow(np.zeros((2, 2)), origin="lower", aspect="auto", cmap="magma",
                               interpolation="nearest")
        ax.grid(False)
        levels = pam_levels(modulation)
        self.thresholds = [ax.axhline(t, color="white", lw=0.8, ls="--", alpha=0.7)
                           for t in 0.5 * (levels[:-1] + levels[1:])]
        self.instant = ax.axvline(0.0, color="cyan", lw=0.8, alpha=0.7)
        ax.set_xlabel("time from sampling instant (UI)")
        ax.set_ylabel("received amplitude\n(relative to transmit peak)")
        self.ber = ax.text(1.03, 0.5, "", transform=ax.transAxes, va="center")
        ax.figure.subplots_adjust(right=0.76, top=0.86)
        self.artists = [self.image, *self.thresholds, self.instant, ax.yaxis, ax.title, self.ber,
                        *ax.spines.values()]

    def update(self, result: LinkResult) -> None:
        """Show ``result``'s eye and error rates."""
        eye = result.eye
        dt = eye.time[1] - eye.time[0]
        dv = eye.amplitude[1] - eye.amplitude[0]
        extent = (eye.time[0] - dt / 2, eye.time[-1] + dt / 2,
                  eye.amplitude[0] - dv / 2, eye.amplitude[-1] + dv / 2)
        counts = np.log1p(eye.counts.T)
        self.image.set_data(counts)
        self.image.set_extent(extent)
        self.image.set_clim(counts.min(), counts.max())
        self.ax.set_xlim(extent[:2])
        self.ax.set_ylim(extent[2:])
        eq = "no equaliser"
        if result.ffe.size > 1 or result.dfe.size > 0:
            eq = f"FFE {result.ffe.size} taps, DFE {result.dfe.size} taps"
        self.ax.set_title(
            f"{result.modulation}, SNR {result.snr_db:g} dB, loss {result.loss_db:g} dB at "
            f"Nyquist\njitter {result.jitter_ui:g} UI rms, {eq}")
        lo, hi = result.ber_interval
        self.ber.set_text(
            f"measured BER\n{_sci(result.ber)}\n95 % interval\n[{_sci(lo)},\n {_sci(hi)}]\n"
            f"{result.bit_errors} bit error{'' if result.bit_errors == 1 else 's'} in\n"
            f"{result.n_bits:.2g} bits\n\n"
            f"theory, noise\nonly (no ISI):\n{_sci(result.ber_theory)}")


class EyeChart(LiveFigure):
    """The eye explorer's figure for one modulation, updated in place per link result
    (:mod:`nvlearn.plots.live`); the time axis and the labels are the background.

    Parameters
    ----------
    modulation : str
        The modulation of the results shown.
    """

    def __init__(self, modulation: str) -> None:
        fig, ax = new_figure(width=7.0, height=4.2)
        super().__init__(fig)
        self.panel = EyePanel(ax, modulation)
        self.dynamic(*self.panel.artists)

    def update(self, result: LinkResult) -> Figure:
        """Show ``result`` (of this chart's modulation)."""
        self.panel.update(result)
        return self.fig


def eye_diagram(result: LinkResult, ax=None) -> Figure:
    """Eye diagram of a simulated link (log-density 2-D histogram) with the BER beside it.

    Time axis: UI relative to the sampling instant; amplitude: relative to the transmitter's
    peak. Dashed lines are the slicer thresholds. Without ``ax``, in an explorer's
    :func:`~nvlearn.plots.live.scope`, the figure is its live :class:`EyeChart`, updated.

    Parameters
    ----------
    result : :class:`~nvlearn.serdes.channel.LinkResult`
        The simulated link.
    ax : matplotlib.axes.Axes, optional
        Draw there (its figure's right margin is widened for the BER text).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.serdes.channel import simulate_link
    >>> fig = eye_diagram(simulate_link(5_000, "PAM4", snr_db=30))
    >>> fig.axes[0].get_xlabel()
    'time from sampling instant (UI)'
    """
    if ax is None:
        return live.chart(EyeChart, result.modulation).update(result)
    EyePanel(ax, result.modulation).update(result)
    return ax.figure


def ber_curves(
    results: Mapping[str, Sequence[LinkResult]],
    *,
    snr_db_range: tuple[float, float] = (4.0, 26.0),
    target_ber: float = 1e-5,
):
    """Bit error rate vs peak SNR: theory lines, Monte Carlo points with 95 % intervals.

    ``results`` maps a modulation name to simulated links over a range of SNRs. The gap
    between modulations at ``target_ber`` is measured on the theory curves and drawn.

    Parameters
    ----------
    results : mapping of str -> sequence of :class:`~nvlearn.serdes.channel.LinkResult`
        Modulation name (``"NRZ"``, ``"PAM4"``) -> simulated links; runs with no bit error
        are not drawn (their BER is not measurable).
    snr_db_range : (float, float)
        Range of the theory curves, peak SNR in dB.
    target_ber : float
        Bit error rate at which the SNR gap between the two best modulations is drawn.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from nvlearn.serdes.channel import simulate_link
    >>> runs = {"NRZ": [simulate_link(20_000, "NRZ", snr_db=s) for s in (6, 9)]}
    >>> fig = ber_curves(runs)
    >>> fig.axes[0].get_yscale()
    'log'
    """
    fig, ax = new_figure(width=7.5, height=4.5)
    grid = np.linspace(*snr_db_range, 300)
    targets = {}
    for colour, (name, runs) in zip(SERIES, results.items(), strict=False):
        ax.semilogy(grid, pam_ber(10 ** (grid / 10), name), color=colour, label=f"{name} theory")
        shown = [r for r in runs if r.bit_errors > 0]
        if shown:
            snr = np.array([r.snr_db for r in shown])
            ber = np.array([r.ber for r in shown])
            ci = np.array([r.ber_interval for r in shown])
            ax.errorbar(
                snr, ber, yerr=[ber - ci[:, 0], ci[:, 1] - ber], fmt="o", color=colour,
                ms=4, capsize=3, label=f"{name} Monte Carlo (95 % interval)",
            )
        targets[name] = snr_for_ber(target_ber, name)
    names = list(targets)
    if len(names) >= 2:
        a, b = sorted(names, key=targets.get)[:2]
        ax.annotate(
            "", xy=(targets[b], target_ber), xytext=(targets[a], target_ber),
            arrowprops={"arrowstyle": "<->", "color": "black"},
        )
        ax.text(
            0.5 * (targets[a] + targets[b]), target_ber * 2.2,
            f"{targets[b] - targets[a]:.1f} dB at BER {target_ber:g}", ha="center",
        )
    ax.set_ylim(1e-7, 0.5)
    ax.set_xlabel("peak SNR at the slicer (dB): peak amplitude² / noise variance")
    ax.set_ylabel("bit error rate")
    ax.set_title("Same transmitter swing, same noise: PAM4's eyes are a third as tall")
    ax.legend()
    return fig


def chain_waterfall(chain: BandwidthChain):
    """The bandwidth chain in two panels: codes eating into one lane, then lanes x links x 2.

    Top: per-lane rate (Gb/s, per direction) after each code, with the bits each code
    takes in red. Bottom: the multiplications up to the device's bidirectional total
    (GB/s, log scale), each bar saying per direction or both directions.

    Examples
    --------
    >>> from nvlearn.serdes.chain import bandwidth_chain, block_code
    >>> fig = chain_waterfall(bandwidth_chain(32e9, "NRZ", [block_code(128, 130)],
    ...                                        lanes_per_direction=16))
    >>> len(fig.axes)
    2
    """
    fig, (ax_lane, ax_up) = new_figure(2, 1, width=NOTEBOOK_WIDTH, height=8.6)
    colour = FABRIC_COLOURS["nvlink"] if "NVLink" in chain.name else FABRIC_COLOURS["pcie"]
    n_lane = len(chain.overheads) + 1
    lane_steps = chain.steps[:n_lane]
    gbps = [s.rate * 8 / 1e9 for s in lane_steps]
    labels = ["raw line rate"] + [f"after {c.name}" for c in chain.overheads]
    x = np.arange(n_lane)
    floor = min(gbps) * 0.9
    ax_lane.bar(x, gbps, color=colour, width=0.6)
    for i in range(1, n_lane):
        taken = gbps[i - 1] - gbps[i]
        ax_lane.bar(i, taken, bottom=gbps[i], color="#d62728", width=0.6,
                    label="taken by the code" if i == 1 else None)
        ax_lane.text(i + 0.32, gbps[i] + taken / 2, f"-{taken:.4g}", va="center",
                     color="#d62728")
    for i, value in enumerate(gbps):
        ax_lane.text(i, floor + 0.5 * (value - floor), f"{value:.6g}", ha="center",
                     va="center", fontsize=10, color="white", fontweight="bold")
    ax_lane.set_ylim(floor, max(gbps) * 1.02)
    ax_lane.set_xticks(x, labels)
    ax_lane.set_ylabel("rate per lane, per direction (Gb/s)\n(axis does not start at 0)")
    ax_lane.set_title(f"{chain.name}: one lane, {chain.modulation}")
    if n_lane > 1:
        ax_lane.legend(loc="upper right")

    up_steps = chain.steps[n_lane - 1 :]
    device = f"device\n({chain.links} links)" if chain.links > 1 else "device\n(one slot)"
    up_labels = ["lane payload", f"link\n({chain.lanes_per_direction} lanes)", device,
                 "device,\nboth directions"]
    values = [s.rate / 1e9 for s in up_steps]
    xs = np.arange(len(up_steps))
    hatches = ["" if s.direction == "per_direction" else "//" for s in up_steps]
    for xi, value, hatch in zip(xs, values, hatches, strict=True):
        ax_up.bar(xi, value, color=colour, hatch=hatch, edgecolor="black", width=0.6)
    for xi, step, value in zip(xs, up_steps, values, strict=True):
        ax_up.text(xi, value * 1.08, f"{value:.4g} GB/s\n{_DIRECTION_WORDS[step.direction]}",
                   ha="center", va="bottom")
    ax_up.set_yscale("log")
    ax_up.set_ylim(min(values) / 2, max(values) * 6)
    ax_up.set_xticks(xs, up_labels)
    ax_up.set_ylabel("rate (GB/s, log scale)\nper direction unless hatched (both directions)")
    ax_up.set_title("x lanes, x links, x 2 directions")
    fig.tight_layout()
    return fig


def generation_chart(
    rows: Sequence[tuple[str, str, float]], *, ratio: tuple[str, str] | None = None
):
    """Per-direction payload bandwidth per device across interface generations.

    ``rows`` are ``(label, kind, bw_per_dir)`` with kind "nvlink" or "pcie" and the rate in
    bytes/s per direction. ``ratio=(a, b)`` annotates bar a divided by bar b.

    Examples
    --------
    >>> fig = generation_chart([("PCIe 5 x16", "pcie", 63e9), ("NVLink 4", "nvlink", 450e9)],
    ...                        ratio=("NVLink 4", "PCIe 5 x16"))
    >>> "per direction" in fig.axes[0].get_xlabel()
    True
    """
    fig, ax = new_figure(width=8.0, height=0.45 * len(rows) + 1.5)
    labels = [r[0] for r in rows]
    values = np.array([r[2] for r in rows]) / 1e9
    colours = [FABRIC_COLOURS[r[1]] for r in rows]
    y = np.arange(len(rows))
    ax.barh(y, values, color=colours)
    notes = [""] * len(rows)
    if ratio is not None:
        a, b = (labels.index(name) for name in ratio)
        notes[a] = f"  = {values[a] / values[b]:.2f} x {labels[b]}"
    for yi, value, note in zip(y, values, notes, strict=True):
        ax.text(value, yi, f" {value:.4g}{note}", va="center")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(
        "payload bandwidth per device, per direction (GB/s); double it for both directions"
    )
    ax.set_xlim(0, values.max() * 1.45)
    ax.set_title("NVLink per GPU (all links) vs one PCIe x16 slot")
    fig.tight_layout()
    return fig


def fec_curves(
    code: RSCode,
    *,
    monte_carlo: Sequence[FecMonteCarlo] = (),
    burst_bits: Sequence[int] = (1,),
    operating_ber: float | None = None,
    ber_range: tuple[float, float] = (1e-5, 1e-2),
):
    """Post-FEC codeword error rate vs pre-FEC bit error rate (log-log).

    One formula line per burst length (1 = independent errors, the binomial formula);
    Monte Carlo runs as points with 95 % intervals in the colour of their burst length; the
    operating point as a vertical line.

    Parameters
    ----------
    code : :class:`~nvlearn.serdes.fec.RSCode`
        The Reed-Solomon code (e.g. RS(544, 514)).
    monte_carlo : sequence of :class:`~nvlearn.serdes.fec.FecMonteCarlo`
        Simulated runs; those without an uncorrectable codeword are not drawn.
    burst_bits : sequence of int
        Burst lengths, bits, to draw the formula for (with the runs' own lengths).
    operating_ber : float, optional
        A pre-FEC bit error rate marked with a line and its CER (independent errors).
    ber_range : (float, float)
        Range of pre-FEC bit error rates on the x axis.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = fec_curves(RSCode(544, 514), operating_ber=2.4e-4)
    >>> fig.axes[0].get_xscale()
    'log'
    """
    fig, ax = new_figure(width=7.5, height=4.8)
    ber = np.logspace(np.log10(ber_range[0]), np.log10(ber_range[1]), 200)
    bursts = sorted(set(burst_bits) | {mc.burst_bits for mc in monte_carlo})
    for colour, burst in zip(SERIES, bursts, strict=False):
        what = "independent bit errors" if burst == 1 else f"bursts of {burst} bits"
        ax.loglog(ber, codeword_error_rate(ber, code, burst_bits=burst), color=colour,
                  label=f"formula, {what}")
        runs = [mc for mc in monte_carlo if mc.burst_bits == burst and mc.uncorrectable > 0]
        if runs:
            x = np.array([mc.measured_ber for mc in runs])
            y = np.array([mc.cer for mc in runs])
            ci = np.array([mc.cer_interval for mc in runs])
            ax.errorbar(x, y, yerr=[y - ci[:, 0], ci[:, 1] - y], fmt="o", color=colour, ms=4,
                        capsize=3, label=f"Monte Carlo, {what}")
    if operating_ber is not None:
        ax.axvline(operating_ber, color="grey", ls="--")
        cer = codeword_error_rate(operating_ber, code)
        ax.text(operating_ber * 1.15, 1e-17,
                f"pre-FEC BER {operating_ber:g}\nCER {cer:.1e} (independent)")
    ax.set_ylim(1e-18, 3.0)
    ax.set_xlabel("pre-FEC bit error rate")
    ax.set_ylabel("post-FEC codeword error rate\n(uncorrectable codewords per codeword)")
    ax.set_title(f"{code.name}: {code.codeword_bits}-bit codewords, corrects {code.t} symbols")
    ax.legend(loc="upper left")
    return fig
