"""nvlearn.specs: loader validation, accessors, unknown keys, SI conversion, provenance."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.units import UNITS


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return json.loads(specs.default_path().read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "hardware.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- the shipped file -------------------------------------------------------------------------


def test_default_file_loads_and_every_category_has_entries() -> None:
    cat = specs.load()
    for category in ("nvlink", "nvswitch", "systems", "pcie", "infiniband", "ethernet",
                     "ib_switches", "nics", "gpus", "latencies", "fec", "line_codes", "nccl"):
        assert cat.keys(category), category


def test_default_path_is_repo_data_dir() -> None:
    expected = Path(specs.__file__).resolve().parents[2] / "data" / "hardware.json"  # package
    assert specs.default_path() == expected


def test_every_source_referenced_and_every_reference_resolves(doc: dict[str, Any]) -> None:
    used = {row["source"] for row in specs.catalogue()}
    assert used <= set(doc["sources"])
    assert set(doc["sources"]) <= used, "unused sources in hardware.json"


def test_module_accessors_are_cached() -> None:
    assert specs.nvlink(4) is specs.nvlink(4)
    assert specs.gpu("h100") is specs.gpu("h100")


def test_load_is_fresh_each_time() -> None:
    assert specs.load().nvlink(4) is not specs.load().nvlink(4)
    assert specs.load().nvlink(4) == specs.load().nvlink(4)


def test_records_are_frozen() -> None:
    rec = specs.nvlink(4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.links_per_gpu = 20  # type: ignore[misc]
    with pytest.raises(TypeError):
        rec.provenance["links_per_gpu"] = rec.provenance["year"]  # type: ignore[index]


def test_env_var_selects_another_data_dir(tmp_path: Path, doc: dict[str, Any],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    changed = copy.deepcopy(doc)
    changed["gpus"]["h100"]["name"] = "H100 from elsewhere"
    _write(tmp_path, changed)
    monkeypatch.setenv(specs.DATA_ENV_VAR, str(tmp_path))
    assert specs.default_path() == (tmp_path / "hardware.json").resolve()
    assert specs.gpu("h100").name == "H100 from elsewhere"
    monkeypatch.delenv(specs.DATA_ENV_VAR)
    assert specs.gpu("h100").name != "H100 from elsewhere"


def test_env_var_pointing_nowhere_says_what_to_do(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(specs.DATA_ENV_VAR, str(tmp_path / "missing"))
    with pytest.raises(ValueError, match=specs.DATA_ENV_VAR):
        specs.nvlink(4)


# --- accessors and unknown keys ---------------------------------------------------------------

ACCESSORS: list[tuple[Callable[[Any], Any], Any, Any, str]] = [
    (specs.nvlink, 4, 6, "'1', '2', '3', '4', '5'"),
    (specs.nvswitch, 3, 5, "'1', '2', '3', '4'"),
    (specs.system, "dgx_h100", "dgx_b300", "'nvlink_switch_system'"),
    (specs.pcie, 5, 7, "'3', '4', '5', '6'"),
    (specs.infiniband, "ndr", "qdr", "'edr', 'hdr', 'ndr', 'xdr'"),
    (specs.ethernet, "400gbe", "100gbe", "'400gbe', '800gbe'"),
    (specs.nic, "connectx7", "connectx8", "'connectx7'"),
    (specs.ib_switch, "quantum2", "quantum3", "'quantum', 'quantum2'"),
    (specs.gpu, "h100", "h300", "'v100', 'a100', 'h100', 'h200', 'b200'"),
    (specs.latency, "nvlink_hop", "warp_drive", "'ib_switch_hop'"),
    (specs.fec, "RS(544,514)", "RS(255,223)", "'RS(544,514)', 'RS(528,514)'"),
    (specs.line_code, "64b/66b", "8b/10b", "'128b/130b'"),
    (specs.nccl, "2.30.7", "1.0.0", "'2.30.7'"),
]


@pytest.mark.parametrize(("accessor", "good", "bad", "listed"), ACCESSORS,
                         ids=[a[0].__name__ for a in ACCESSORS])
def test_accessor_returns_record_and_unknown_key_lists_valid_keys(
        accessor: Callable[[Any], Any], good: Any, bad: Any, listed: str) -> None:
    rec = accessor(good)
    assert rec.key == str(good)
    with pytest.raises(ValueError, match="valid keys") as err:
        accessor(bad)
    assert repr(str(bad)) in str(err.value)
    assert listed in str(err.value)


def test_contract_field_names() -> None:
    link = specs.nvlink(4)
    for name in ("generation", "name", "gpu", "year", "links_per_gpu", "lanes_per_direction",
                 "symbol_rate", "modulation", "bits_per_symbol", "lane_rate_raw",
                 "link_bw_per_dir", "gpu_bw_bidir_published", "gpu_bw_per_dir", "gpu_bw_bidir"):
        assert hasattr(link, name), name
    sw = specs.nvswitch(3)
    for name in ("generation", "name", "nvlink_generation", "ports", "throughput_published",
                 "throughput_direction"):
        assert hasattr(sw, name), name
    dgx = specs.system("dgx_h100")
    for name in ("gpus", "nvswitch_chips", "links_per_gpu_per_switch", "network_ports_per_switch",
                 "external_nvlink_ports", "osfp_cages", "nvlinks_per_osfp", "nics", "gpu", "nic",
                 "bisection_bw_bidir"):
        assert hasattr(dgx, name), name
    assert isinstance(dgx.links_per_gpu_per_switch, tuple)
    one_u = specs.system("nvlink_switch_1u")
    for name in ("nvswitch_chips", "ports_per_chip", "osfp_cages", "nvlinks_per_osfp", "ports"):
        assert hasattr(one_u, name), name
    pod = specs.system("nvlink_switch_system")
    for name in ("nodes", "gpus", "l2_switches", "taper", "all_to_all_bw"):
        assert hasattr(pod, name), name
    p = specs.pcie(5)
    for name in ("transfer_rate", "modulation", "encoding", "encoding_efficiency",
                 "x16_bw_per_dir"):
        assert hasattr(p, name), name
    for name in ("lanes", "lane_rate_raw", "port_bw_per_dir"):
        assert hasattr(specs.infiniband("ndr"), name), name
        assert hasattr(specs.ethernet("400gbe"), name), name
    assert hasattr(specs.nic("connectx7"), "port_bw_per_dir")
    g = specs.gpu("h100")
    for name in ("bf16_dense_flops", "fp16_dense_flops", "hbm_capacity", "hbm_bw",
                 "nvlink_generation", "board_power"):
        assert hasattr(g, name), name


def test_system_types() -> None:
    assert isinstance(specs.system("dgx_h100"), specs.DGXH100)
    assert isinstance(specs.system("nvlink_switch_1u"), specs.NVLinkSwitch1U)
    assert isinstance(specs.system("nvlink_switch_system"), specs.NVLinkSwitchSystem)
    assert isinstance(specs.system("gb200_nvl72"), specs.GB200NVL72)
    assert isinstance(specs.system("dgx_a100_superpod_hdr"), specs.DGXA100SuperPODHDR)


def test_latency_keys_are_floats_in_seconds_with_provenance() -> None:
    for key in ("nvlink_hop", "nvswitch_traversal", "ib_switch_hop", "nic", "pcie_switch_hop"):
        lat = specs.latency(key)
        assert isinstance(lat, float) and isinstance(lat, specs.Latency)
        assert 0.0 <= lat < 1e-5  # seconds: all are sub-10-microsecond figures
        q = lat.provenance["latency"]
        assert q.kind in specs.KINDS
        if q.kind == "model":
            assert q.note, f"{key}: a model latency must say why in its note"
        assert lat.description
        assert "[" + q.kind + "]" in lat.source()
    lat = specs.latency("pcie_switch_hop")
    assert type(lat + 1.0) is float
    with pytest.raises(AttributeError):
        lat.key = "x"  # type: ignore[misc]


def test_ib_switch_for_speed() -> None:
    assert specs.ib_switch_for_speed("ndr") is specs.ib_switch("quantum2")
    with pytest.raises(ValueError, match="switches exist for: 'hdr', 'ndr'"):
        specs.ib_switch_for_speed("xdr")


def test_nccl_tables_read_like_tuning_cc() -> None:
    """The tables are NCCL's arrays in NCCL's enum order: a row read here is the row of
    ``ncclTunerConstantsDefaults`` (NCCL 2.30.7, src/graph/tuning.cc), in seconds / bytes/s."""
    m = specs.nccl()
    us, gbs = 1e-6, 1e9
    assert m.base_latencies[specs.ALGORITHMS.index("pat")] == pytest.approx((8e-6,) * 3)
    # hwLatencies[NET][NVLSTree] = { 0, 0, 20.9 }
    assert m.hw_latencies[2][5] == pytest.approx((0, 0, 20.9 * us), rel=1e-12)
    # llMaxBws[Blackwell] = { 2*141.0, 2*45.0, 2*35.0 }
    assert m.ll_max_bws[3] == pytest.approx((282 * gbs, 90 * gbs, 70 * gbs))
    assert m.nvls_efficiencies == (0.0, 0.0, 0.85, 0.74)
    for name, axes in specs.NCCLModel.TABLE_AXES.items():
        table = np.asarray(getattr(m, name))
        assert table.shape == tuple(len(a) for a in axes), name
        assert m.where(name).split()[-1] in m.source(name), name   # e.g. hwLatencies
    assert m.where("hw_latencies", "net", "nvls_tree") == \
        "src/graph/tuning.cc hwLatencies[NET][NVLSTree]"
    # every lookup is an index into its table
    for i, link in enumerate(specs.LINK_TYPES):
        for j, algo in enumerate(specs.ALGORITHMS):
            for k, proto in enumerate(specs.PROTOCOLS):
                assert m.hw_latency(link, algo, proto) == m.hw_latencies[i][j][k]


def test_nccl_lookups_and_bad_names() -> None:
    m = specs.nccl()
    assert m.version == "2.30.7"
    assert m.base_latency("tree", "ll") == pytest.approx(6.8e-6, rel=1e-12)
    assert m.hw_latency("nvlink", "nvls", "simple") == pytest.approx(25e-6, rel=1e-12)
    assert m.hw_latency("net", "nvls_tree", "simple") == pytest.approx(20.9e-6, rel=1e-12)
    assert m.nvls_efficiency("hopper") == 0.85
    assert m.nvls_efficiency("ampere") == 0.0
    assert m.bw_cap("ll_max_bws", "hopper", 1) == pytest.approx(141e9)
    assert m.bw_cap("per_ch_max_nvls_tree_bws", "blackwell", 2) == pytest.approx(96e9)
    with pytest.raises(ValueError, match="choose one of"):
        m.hw_latency("ethernet", "ring", "ll")
    with pytest.raises(ValueError, match="choose one of"):
        m.base_latency("ring", "LL")
    with pytest.raises(ValueError, match="known"):
        m.nvlink_bw(75)
    with pytest.raises(ValueError, match="nodes"):
        m.bw_cap("ll_max_bws", "hopper", 0)


# --- SI conversion and provenance -------------------------------------------------------------


def test_si_conversion_of_rates_sizes_and_times() -> None:
    link = specs.nvlink(4)
    assert link.link_bw_per_dir == 25e9                      # GB/s -> bytes/s
    assert link.lane_rate_raw == pytest.approx(106.25e9 / 8, rel=1e-15)  # Gb/s -> bytes/s
    assert link.symbol_rate == pytest.approx(53.125e9, rel=1e-15)        # GBd -> baud
    assert specs.pcie(5).transfer_rate == 32e9               # GT/s -> transfers/s
    assert specs.gpu("h100").hbm_capacity == 80e9            # GB (decimal) -> bytes
    assert specs.gpu("h200").hbm_bw == pytest.approx(4.8e12, rel=1e-15)  # TB/s
    assert specs.gpu("h100").bf16_dense_flops == pytest.approx(989.5e12, rel=1e-15)
    assert specs.gpu("b200").board_power == 1000.0
    assert specs.latency("ib_switch_hop") == pytest.approx(330e-9, rel=1e-12)
    ring_on_nvlink = specs.nccl().hw_latencies[0][1]         # hwLatencies[NVLINK][Ring]
    assert ring_on_nvlink == pytest.approx((0.6e-6, 1.9e-6, 3.4e-6), rel=1e-12)  # us -> s
    assert specs.nvswitch(3).throughput_published == pytest.approx(13.6e12 / 8, rel=1e-15)


def test_provenance_keeps_the_published_value_and_unit() -> None:
    q = specs.nvlink(4).provenance["link_bw_per_dir"]
    assert (q.value, q.unit, q.direction, q.kind, q.source) == (
        25, "GB/s", "per_direction", "spec", "wp_h100")
    assert q.value_si == 25e9
    assert "25 GB/sec" in q.where
    lanes = specs.system("dgx_h100").provenance["links_per_gpu_per_switch"]
    assert lanes.value == [5, 4, 4, 5] and lanes.value_si == (5.0, 4.0, 4.0, 5.0)


def test_v100_has_no_bf16_and_says_so() -> None:
    v100 = specs.gpu("v100")
    assert v100.bf16_dense_flops is None
    q = v100.provenance["bf16_dense_flops"]
    assert q.value is None and q.value_si is None
    assert "bf16" in (q.note or "")
    assert v100.fp16_dense_flops > 0


def test_every_record_field_cites_a_source() -> None:
    cat = specs.load()
    for category in cat._entries:
        for key in cat.keys(category):
            rec = cat._get(category, key, category)
            assert rec.provenance, (category, key)
            for name, q in rec.provenance.items():
                text = rec.source(name)
                assert cat.sources[q.source].title in text
                assert q.unit in UNITS
                assert q.kind in specs.KINDS


def test_source_of_unknown_field_lists_sourced_fields() -> None:
    with pytest.raises(ValueError, match="sourced fields: .*links_per_gpu"):
        specs.nvlink(4).source("gpu_bw_per_dir")


def test_catalogue_rows_cover_every_quantity() -> None:
    cat = specs.load()
    rows = cat.catalogue()
    expected = sum(len(cat._get(c, k, c).provenance) for c in cat._entries for k in cat.keys(c))
    assert len(rows) == expected
    row = next(r for r in rows if r["category"] == "gpus" and r["key"] == "h100"
               and r["field"] == "hbm_bw")
    assert row["value"] == 3350 and row["unit"] == "GB/s" and row["value_si"] == 3.35e12
    assert row["source_title"] == cat.sources[row["source"]].title


# --- validation: every broken copy names category, entry and field ----------------------------


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        for p in path[:-1]:
            d = d[p]
        d[path[-1]] = value
    return edit


def _del(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        for p in path[:-1]:
            d = d[p]
        del d[path[-1]]
    return edit


BROKEN: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("missing field", _del(["nvlink", "4", "links_per_gpu"]),
     "nvlink['4'].links_per_gpu", "missing field"),
    ("unknown unit", _set(["gpus", "h100", "hbm_bw", "unit"], "GB/sec"),
     "gpus['h100'].hbm_bw", "unknown unit 'GB/sec'"),
    ("missing source id", _del(["pcie", "5", "transfer_rate", "source"]),
     "pcie['5'].transfer_rate", "missing 'source'"),
    ("unknown source id", _set(["nics", "connectx7", "port_bw_per_dir", "source"], "nowhere"),
     "nics['connectx7'].port_bw_per_dir", "unknown source 'nowhere'"),
    ("missing direction on a rate", _del(["nvlink", "4", "link_bw_per_dir", "direction"]),
     "nvlink['4'].link_bw_per_dir", "needs 'direction'"),
    ("unknown direction", _set(["infiniband", "ndr", "port_bw_per_dir", "direction"], "both"),
     "infiniband['ndr'].port_bw_per_dir", "unknown direction 'both'"),
    ("direction on a non-rate",
     _set(["gpus", "h100", "hbm_capacity", "direction"], "per_direction"),
     "gpus['h100'].hbm_capacity", "only for data rates"),
    ("unknown kind", _set(["systems", "dgx_h100", "gpus", "kind"], "guess"),
     "systems['dgx_h100'].gpus", "unknown kind 'guess'"),
    ("wrong dimension", _set(["gpus", "a100", "hbm_capacity", "unit"], "GB/s"),
     "gpus['a100'].hbm_capacity", "dimension"),
    ("per_dir name with bidirectional", _set(["nvlink", "3", "link_bw_per_dir", "direction"],
                                             "bidirectional"),
     "nvlink['3'].link_bw_per_dir", "per direction"),
    ("bidir name with per_direction", _set(["nvlink", "3", "gpu_bw_bidir_published", "direction"],
                                           "per_direction"),
     "nvlink['3'].gpu_bw_bidir_published", "bidirectional"),
    ("fractional count", _set(["nvlink", "4", "links_per_gpu", "value"], 18.5),
     "nvlink['4'].links_per_gpu", "whole number"),
    ("null where a number is needed", _set(["gpus", "h100", "fp16_dense_flops", "value"], None),
     "gpus['h100'].fp16_dense_flops", "value is null"),
    ("string value", _set(["gpus", "h100", "board_power", "value"], "700"),
     "gpus['h100'].board_power", "not a finite number"),
    ("boolean value", _set(["gpus", "h100", "board_power", "value"], True),
     "gpus['h100'].board_power", "not a finite number"),
    ("list for a scalar", _set(["gpus", "h100", "board_power", "value"], [700]),
     "gpus['h100'].board_power", "single number"),
    ("scalar for a list", _set(["systems", "dgx_h100", "links_per_gpu_per_switch", "value"], 18),
     "systems['dgx_h100'].links_per_gpu_per_switch", "list of numbers"),
    ("missing where", _del(["fec", "RS(544,514)", "t", "where"]),
     "fec['RS(544,514)'].t", "missing 'where'"),
    ("unknown quantity key", _set(["fec", "RS(544,514)", "t", "confidence"], "H"),
     "fec['RS(544,514)'].t", "unknown key 'confidence'"),
    ("unknown field", _set(["gpus", "h100", "sparse_flops"], 1),
     "gpus['h100'].sparse_flops", "unknown field"),
    ("plain number instead of quantity", _set(["nvlink", "2", "year"], 2017),
     "nvlink['2'].year", "quantity object"),
    ("quantity instead of string", _set(["nvlink", "2", "modulation"], {"value": 1}),
     "nvlink['2'].modulation", "plain string"),
    ("unknown line code", _set(["pcie", "5", "encoding"], "8b/10b"),
     "pcie['5'].encoding", "unknown line code '8b/10b'"),
    ("unknown fec", _set(["infiniband", "hdr", "fec"], "RS(255,223)"),
     "infiniband['hdr'].fec", "unknown FEC code"),
    ("unknown gpu reference", _set(["systems", "dgx_h100", "gpu"], "h900"),
     "systems['dgx_h100'].gpu", "unknown gpus entry 'h900'"),
    ("unknown switch speed", _set(["ib_switches", "quantum2", "speed"], "fdr"),
     "ib_switches['quantum2'].speed", "unknown infiniband entry 'fdr'"),
    ("unknown system", _set(["systems", "dgx_b300"], {}),
     "systems['dgx_b300']", "unknown system"),
    ("unknown category", _set(["tpus"], {}), "category 'tpus'", "unknown category"),
    ("missing category", _del(["nics"]), "category 'nics'", "missing"),
    ("source without url", _del(["sources", "wp_h100", "url"]),
     "sources['wp_h100'].url", "missing"),
    ("NCCL table missing an algorithm row",
     _set(["nccl", "2.30.7", "base_latencies", "value"], [[6.8, 14.0, 8.4]] * 6),
     "nccl['2.30.7'].base_latencies", "shape (7, 3)"),
    ("ragged NCCL table",
     _set(["nccl", "2.30.7", "ll_max_bws", "value"], [[39.0, 39.0, 20.4], [87.7, 22.5]] * 2),
     "nccl['2.30.7'].ll_max_bws", "same shape"),
    ("flat list for an NCCL table",
     _set(["nccl", "2.30.7", "hw_latencies", "value"], [0.6, 1.9, 3.4]),
     "nccl['2.30.7'].hw_latencies", "nested 3 deep"),
]


@pytest.mark.parametrize(("edit", "place", "problem"), [b[1:] for b in BROKEN],
                         ids=[b[0] for b in BROKEN])
def test_broken_copy_is_rejected_naming_entry_and_field(
        tmp_path: Path, doc: dict[str, Any], edit: Callable[[dict[str, Any]], None],
        place: str, problem: str) -> None:
    broken = copy.deepcopy(doc)
    edit(broken)
    path = _write(tmp_path, broken)
    with pytest.raises(ValueError) as err:
        specs.load(path)
    message = str(err.value)
    assert place in message
    assert problem in message
    assert message.startswith("hardware.json: ")


def test_invalid_json_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "hardware.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        specs.load(path)
    with pytest.raises(ValueError, match="cannot read"):
        specs.load(tmp_path / "nope.json")


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="top level"):
        specs.load(_write(tmp_path, [1, 2, 3]))


def test_optional_fields_may_be_absent(tmp_path: Path, doc: dict[str, Any]) -> None:
    changed = copy.deepcopy(doc)
    del changed["fec"]["RS(544,514)"]["pre_fec_ber"]
    del changed["infiniband"]["hdr"]["fec"]
    cat = specs.load(_write(tmp_path, changed))
    assert cat.fec("RS(544,514)").pre_fec_ber is None
    assert cat.infiniband("hdr").fec is None and cat.infiniband("hdr").fec_code_rate == 1.0
