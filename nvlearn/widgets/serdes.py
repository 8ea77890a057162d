"""Explorer for notebook 02: an eye diagram with its bit error rate, for any link settings."""

from __future__ import annotations

import functools

import ipywidgets as W

from nvlearn.plots.serdes import eye_diagram
from nvlearn.serdes.channel import LinkResult, simulate_link
from nvlearn.widgets.base import Explorer

__all__ = ["EQUALISER_TAPS", "EyeExplorer", "link_summary", "render_eye"]

#: Taps used when the explorer's equaliser is switched on.
EQUALISER_TAPS = {"ffe_taps": 3, "dfe_taps": 3}


def link_summary(result: LinkResult) -> str:
    """A few lines of numbers behind an eye: measured vs theoretical error rates, equaliser.

    Examples
    --------
    >>> print(link_summary(simulate_link(2_000, "NRZ", snr_db=30)).splitlines()[0])
    NRZ, 2000 symbols: measured BER 0 (0 bit errors), 95 % interval [0, 0.0019]
    """
    lo, hi = result.ber_interval
    lines = [
        f"{result.modulation}, {result.n_symbols} symbols: measured BER {result.ber:.3g} "
        f"({result.bit_errors} bit error{'' if result.bit_errors == 1 else 's'}), "
        f"95 % interval [{lo:.2g}, {hi:.2g}]",
        f"theory for Gaussian noise alone (no ISI) at {result.snr_db:g} dB: "
        f"BER {result.ber_theory:.3g}, SER {result.ser_theory:.3g}",
        f"sampling {result.sample_time_ui:.3g} UI into each symbol; "
        f"FFE {result.ffe.size} tap(s), DFE {result.dfe.size} tap(s); "
        f"noise at the slicer x{result.noise_gain:.2f} relative to a clean link",
    ]
    return "\n".join(lines)


def render_eye(modulation: str, snr_db: float, loss_db: float, jitter_ui: float,
               equaliser: bool, *, n_symbols: int, seed: int):
    """Figure, text and ``{"result": LinkResult}`` of one setting of the eye explorer.

    A module function (not a method), so that the worker process can render states ahead
    (:mod:`nvlearn.widgets.worker`): the Monte Carlo runs there, not in the kernel.

    Parameters
    ----------
    modulation : {"NRZ", "PAM4"}
        Two or four signal levels per symbol.
    snr_db, loss_db : float
        Peak SNR at the slicer and channel loss at Nyquist, dB.
    jitter_ui : float
        Random jitter, UI rms.
    equaliser : bool
        :data:`EQUALISER_TAPS` (FFE + DFE) on, or a bare slicer.
    n_symbols : int
        Symbols simulated.
    seed : int
        Seed of the noise and the data.

    Returns
    -------
    figure : matplotlib.figure.Figure
        The eye diagram.
    text : str
        :func:`link_summary`.
    attributes : dict
        ``{"result": LinkResult}``, set on the explorer with the state.
    """
    taps = EQUALISER_TAPS if equaliser else {"ffe_taps": 1, "dfe_taps": 0}
    result = simulate_link(n_symbols, modulation, snr_db=snr_db, loss_db=loss_db,
                           jitter_ui=jitter_ui, seed=seed, **taps)
    return eye_diagram(result), link_summary(result), {"result": result}


class EyeExplorer(Explorer):
    """Eye diagram explorer: SNR, channel loss, jitter, modulation and equaliser on/off.

    Every new setting runs the Monte Carlo link (``n_symbols`` symbols, fixed ``seed``) and
    redraws the eye (:func:`render_eye`); ``text`` holds the measured and theoretical BER,
    ``result`` the full :class:`~nvlearn.serdes.channel.LinkResult`.

    Examples
    --------
    In a notebook (outside one, the first render prints the figure's repr)::

        ex = EyeExplorer(n_symbols=20_000)
        ex                                  # shows the controls, the eye and the numbers
        ex.set(modulation="NRZ", snr_db=14.0)
        ex.result.ber, ex.text              # what the learner now sees
    """

    def __init__(self, n_symbols: int = 100_000, seed: int = 0) -> None:
        self.n_symbols = int(n_symbols)
        self.seed = seed
        self.result: LinkResult | None = None
        controls = {
            "modulation": W.ToggleButtons(options=["NRZ", "PAM4"], value="PAM4",
                                          description="modulation"),
            "snr_db": W.FloatSlider(value=24.0, min=6.0, max=36.0, step=1.0,
                                    description="SNR (dB)", continuous_update=False),
            "loss_db": W.FloatSlider(value=6.0, min=0.0, max=20.0, step=1.0,
                                     description="loss (dB)", continuous_update=False),
            "jitter_ui": W.FloatSlider(value=0.0, min=0.0, max=0.15, step=0.01,
                                       description="jitter (UI)", continuous_update=False),
            "equaliser": W.Checkbox(value=False, description="equaliser (FFE + DFE)"),
        }
        render = functools.partial(render_eye, n_symbols=self.n_symbols, seed=seed)
        super().__init__(controls, render, title="Eye diagram and bit error rate")
