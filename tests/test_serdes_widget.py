"""The eye explorer: renders on construction, follows its controls, reports the BER."""

from __future__ import annotations

import pytest

from nvlearn.serdes.channel import simulate_link
from nvlearn.widgets.serdes import EQUALISER_TAPS, EyeExplorer, link_summary


@pytest.fixture(scope="module")
def explorer():
    return EyeExplorer(n_symbols=30_000, seed=1)


def test_static_first_render(explorer):
    assert explorer.figure is not None and explorer.result is not None
    assert explorer.text.startswith("PAM4, 30000 symbols: measured BER")
    assert "time from sampling instant (UI)" in explorer.figure.axes[0].get_xlabel()


def test_controls_drive_the_simulation(explorer):
    explorer.set(modulation="NRZ", snr_db=10.0, loss_db=0.0, jitter_ui=0.0, equaliser=False)
    r = explorer.result
    assert (r.modulation, r.snr_db, r.loss_db) == ("NRZ", 10.0, 0.0)
    assert r.ffe.size == 1 and r.dfe.size == 0
    assert explorer.text == link_summary(r)
    assert f"BER {r.ber:.3g}" in explorer.text
    # the same settings outside the widget give the same numbers (fixed seed)
    assert r.bit_errors == simulate_link(30_000, "NRZ", snr_db=10.0, seed=1).bit_errors


def test_equaliser_checkbox_reopens_a_lossy_eye(explorer):
    explorer.set(modulation="PAM4", snr_db=28.0, loss_db=10.0, equaliser=False)
    closed = explorer.result.ber
    explorer.set(equaliser=True)
    assert explorer.result.ffe.size == EQUALISER_TAPS["ffe_taps"]
    assert explorer.result.dfe.size == EQUALISER_TAPS["dfe_taps"]
    assert explorer.result.ber < closed / 10
    assert "FFE 3 tap(s), DFE 3 tap(s)" in explorer.text


def test_more_snr_fewer_errors(explorer):
    explorer.set(modulation="PAM4", loss_db=0.0, equaliser=False, snr_db=14.0)
    noisy = explorer.result.bit_errors
    explorer.set(snr_db=20.0)
    assert explorer.result.bit_errors < noisy
