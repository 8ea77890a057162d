"""Explorer for notebook 02: an eye diagram with its bit error rate, for any link settings."""

from __future__ import annotations

import ipywidgets as W

from nvlearn.plots.serdes import eye_diagram
from nvlearn.serdes.channel import LinkResult, simulate_link
from nvlearn.widgets.base import Explorer

__all__ = ["EQUALISER_TAPS", "EyeExplorer", "link_summary"]

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


class EyeExplorer(Explorer):
    """Eye diagram explorer: SNR, channel loss, jitter, modulation and equaliser on/off.

    Every change re-runs the Monte Carlo link (``n_symbols`` symbols, fixed ``seed``) and
    redraws the eye; ``text`` holds the measured and theoretical BER, ``result`` the full
    :class:`~nvlearn.serdes.channel.LinkResult`.

    Examples
    --------
    In a notebook (outside one, the first render prints the figure's repr)::

        ex = EyeExplorer(n_symbols=20_000)
        ex                                  # shows the controls, the eye and the numbers
        ex.set(modulation="NRZ", snr_db=14.0)
        ex.result.ber, ex.text              # what the learner now sees
    """

    cached_attrs = ("result",)

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
        super().__init__(controls, self._render, title="Eye diagram and bit error rate")

    def _render(self, modulation: str, snr_db: float, loss_db: float, jitter_ui: float,
                equaliser: bool):
        taps = EQUALISER_TAPS if equaliser else {"ffe_taps": 1, "dfe_taps": 0}
        self.result = simulate_link(
            self.n_symbols, modulation, snr_db=snr_db, loss_db=loss_db, jitter_ui=jitter_ui,
            seed=self.seed, **taps,
        )
        return eye_diagram(self.result), link_summary(self.result)
