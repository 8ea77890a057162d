"""The bandwidth ladder: rungs recomputed from parts; the explorer follows its controls."""

import pytest

from nvlearn import specs
from nvlearn.overview.ladder import bandwidth_ladder
from nvlearn.widgets.ladder import LadderExplorer


def rung(rows, prefix):
    return next(r for r in rows if r.label.startswith(prefix))


def test_rungs_from_parts():
    rows = bandwidth_ladder()
    # PCIe Gen5 x16: 16 lanes x 32 GT/s x 128/130 / 8 bits
    assert rung(rows, "PCIe Gen5").bw == pytest.approx(16 * 32e9 * 128 / 130 / 8)
    # PCIe Gen6: 16 x 64 GT/s / 8 = 128 GB/s raw, 236 of every 256 flit bytes are payload
    assert rung(rows, "PCIe Gen6").bw == pytest.approx(128e9 * 236 / 256)
    assert rung(rows, "NVLink 4").bw == pytest.approx(18 * 25e9)
    assert rung(rows, "InfiniBand NDR").bw == pytest.approx(400e9 / 8)


def test_bidirectional_doubles_every_rung():
    one, two = bandwidth_ladder("per_direction"), bandwidth_ladder("bidirectional")
    assert [2 * a.bw for a in one] == pytest.approx([b.bw for b in two])
    with pytest.raises(ValueError, match="direction must be one of"):
        bandwidth_ladder("both")


def test_explorer_text_follows_controls_and_ratio_is_invariant():
    ex = LadderExplorer()
    first = ex.text
    assert "450 GB/s per direction" in first
    ex.set(direction="bidirectional", unit="bits/s")
    assert "7.2 Tb/s bidirectional" in ex.text
    ratio = specs.nvlink(4).gpu_bw_per_dir / specs.pcie(5).x16_bw_per_dir
    assert f"ratio {ratio:.2f}x" in first and f"ratio {ratio:.2f}x" in ex.text


def test_compare_with_draws_the_ratio_in_the_chart():
    ex = LadderExplorer()
    ex.set(compare="InfiniBand NDR port")
    rows = {r.label: r.bw for r in bandwidth_ladder()}
    ratio = rows["NVLink 4 (H100), per GPU"] / rows["InfiniBand NDR port"]
    ax = ex.figure.axes[0]
    assert ax.texts[-1].get_text() == (
        f"NVLink 4 (H100), per GPU = {ratio:.3g} x InfiniBand NDR port")
    alphas = [bar.get_alpha() for bar in ax.patches[: len(rows)]]
    assert alphas.count(1.0) == 2  # only the two compared rungs at full colour
