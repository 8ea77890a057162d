"""HBM bandwidth is a half-duplex bus total, tagged as such — not "bidirectional".

A full-duplex link's rate is quoted per direction or as the sum of both directions; HBM has
one bus that reads and writes share, so its published figure is their total and the catalogue
tags it ``half_duplex``. The loader accepts that tag only where a field's name does not claim
a direction.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from nvlearn import specs
from nvlearn.units import DIRECTIONS


@pytest.fixture()
def doc() -> dict:
    return json.loads(specs.default_path().read_text(encoding="utf-8"))


def _load(tmp_path: Path, data: dict):
    path = tmp_path / "hardware.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return specs.load(path)


def test_every_gpu_hbm_bandwidth_is_a_half_duplex_total() -> None:
    rows = [r for r in specs.catalogue() if r["field"] == "hbm_bw"]
    assert {r["key"] for r in rows} == set(specs.load().keys("gpus"))
    for r in rows:
        assert r["direction"] == "half_duplex", r["key"]
        assert "half-duplex" in r["note"] and "reads and writes" in r["note"]
    # and the citation a notebook prints says so
    assert "half duplex" in specs.gpu("h100").source("hbm_bw")


def test_half_duplex_is_only_used_for_memory_buses() -> None:
    tagged = {(r["category"], r["field"]) for r in specs.catalogue()
              if r["direction"] == "half_duplex"}
    assert tagged == {("gpus", "hbm_bw")}


def test_rate_directions_extend_the_link_directions() -> None:
    assert specs.RATE_DIRECTIONS[: len(DIRECTIONS)] == DIRECTIONS
    assert set(specs.RATE_DIRECTIONS) - set(DIRECTIONS) == {"half_duplex"}


def test_loader_rejects_half_duplex_on_a_field_named_per_direction(tmp_path, doc) -> None:
    broken = copy.deepcopy(doc)
    broken["nvlink"]["4"]["link_bw_per_dir"]["direction"] = "half_duplex"
    with pytest.raises(ValueError, match=r"nvlink\['4'\].link_bw_per_dir.*per direction"):
        _load(tmp_path, broken)


def test_loader_names_every_allowed_direction(tmp_path, doc) -> None:
    broken = copy.deepcopy(doc)
    broken["gpus"]["h100"]["hbm_bw"]["direction"] = "total"
    with pytest.raises(ValueError, match="unknown direction 'total'.*half_duplex"):
        _load(tmp_path, broken)
