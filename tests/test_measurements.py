"""The achievable model against published nccl-tests figures it was never fitted to."""

from __future__ import annotations

import pytest

from nvlearn import measurements


@pytest.mark.parametrize("m", measurements.load(), ids=lambda m: m.id)
def test_achievable_model_meets_published_measurements(m):
    """Within 10 % of what was measured; the wire model is an upper bound above it."""
    achievable = measurements.predict(m)
    wire = measurements.predict(m, "wire")
    assert achievable == pytest.approx(m.busbw, rel=0.10), (achievable / 1e9, m.busbw / 1e9)
    assert wire > m.busbw


def test_every_measurement_is_sourced_and_per_direction():
    for m in measurements.load():
        assert m.source["url"].startswith("https://") and m.source["where"]
        assert 1e9 < m.busbw < 1e12                          # bytes/s per direction
    assert any(not m.independent for m in measurements.load())   # said where it is not


def test_only_allreduce_is_predicted():
    m = measurements.load()[0]
    from dataclasses import replace

    with pytest.raises(ValueError, match="only all-reduce"):
        measurements.predict(replace(m, collective="alltoall"))
