"""Unit conversions and formatting: the three classic confusions, each pinned down."""

import pytest

from nvlearn import units


def test_bits_vs_bytes():
    assert units.to_si(400, "Gb/s") == 50e9  # a 400G NIC moves 50 GB/s each way
    assert units.convert(50, "GB/s", "Gb/s") == 400
    assert units.bits_to_bytes(106.25) * 8 == 106.25
    assert units.bytes_to_bits(50) == 400  # 50 GB/s per direction is a 400 Gb/s port


def test_decimal_vs_binary_prefixes():
    assert units.to_si(1, "GiB") == 2**30
    assert units.convert(1, "GiB", "GB") == pytest.approx(1.073741824, rel=1e-15)
    assert units.format_bytes(2**30) == "1.07 GB"
    assert units.format_bytes(2**30, binary=True) == "1 GiB"


def test_per_direction_vs_bidirectional():
    assert units.per_dir_to_bidir(450e9) == 900e9
    assert units.bidir_to_per_dir(900e9) == 450e9
    assert units.format_rate(450e9, direction="per_direction") == "450 GB/s per direction"


def test_round_trip_every_unit():
    for unit in units.UNITS:
        assert units.from_si(units.to_si(3.5, unit), unit) == pytest.approx(3.5, rel=1e-15)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="unknown unit 'GBps'"):
        units.to_si(1, "GBps")
    with pytest.raises(ValueError, match="cannot convert 'GB' .* 'GB/s'"):
        units.convert(1, "GB", "GB/s")
    with pytest.raises(ValueError, match="direction must be"):
        units.format_rate(1e9, direction="both")


@pytest.mark.parametrize(
    "seconds, text", [(2.5e-6, "2.5 us"), (0.0123, "12.3 ms"), (3.0, "3 s"), (4e-9, "4 ns")]
)
def test_format_time(seconds, text):
    assert units.format_time(seconds) == text


def test_format_rate_in_bits():
    assert units.format_rate(12.5e9, bits=True) == "100 Gb/s"
