"""GPU variants: the export H800 (8 NVLink 4 links) and H20 (18 links, little compute).

Catalogue values against the figures their sources print; the DGX box built from a GPU's
NVLink generation and link count; per-GPU and bisection bandwidth in closed form; a
simulated ring all-reduce that slows by exactly the link ratio.
"""

from __future__ import annotations

import json

import pytest

from nvlearn import specs

EXACT = 1e-12
GB = 1e9
TB = 1e12


# --- catalogue ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "links"), [("v100", 6), ("a100", 12), ("h100", 18),
                                             ("h200", 18), ("b200", 18), ("h800", 8),
                                             ("h20", 18)])
def test_every_gpu_has_a_sourced_link_count(name: str, links: int) -> None:
    g = specs.gpu(name)
    assert g.nvlink_links == links
    q = g.provenance["nvlink_links"]
    assert q.source in specs.load().sources and q.where
    assert g.nvlink_links <= specs.nvlink(g.nvlink_generation).links_per_gpu


def test_full_parts_have_their_generations_full_link_count() -> None:
    for name in ("v100", "a100", "h100", "h200", "b200", "h20"):
        g = specs.gpu(name)
        assert g.nvlink_links == specs.nvlink(g.nvlink_generation).links_per_gpu


def test_h800_link_count_is_the_published_bandwidth_over_a_link() -> None:
    h800 = specs.gpu("h800")
    link = specs.nvlink(h800.nvlink_generation)
    # DeepSeek-V3 #28: "400GB/s is bidirectional theoretical"; DeepEP #16: "nominal 200GB/s"
    assert h800.nvlink_links * link.link_bw_bidir == pytest.approx(400 * GB, rel=EXACT)
    assert h800.nvlink_links * link.link_bw_per_dir == pytest.approx(200 * GB, rel=EXACT)
    q = h800.provenance["nvlink_links"]
    assert q.kind == "derived" and q.source == "deepseek_v3_28"


def test_h800_is_an_h100_with_fewer_links() -> None:
    h100, h800 = specs.gpu("h100"), specs.gpu("h800")
    for field in ("architecture", "bf16_dense_flops", "fp16_dense_flops", "hbm_capacity",
                  "hbm_bw", "nvlink_generation"):
        assert getattr(h800, field) == getattr(h100, field), field
    assert h800.nvlink_links < h100.nvlink_links
    assert h800.provenance["board_power"].kind == "model"  # assumed, not published


def test_h20_published_figures() -> None:
    h20 = specs.gpu("h20")
    link = specs.nvlink(h20.nvlink_generation)
    assert h20.architecture == "Hopper" and h20.nvlink_generation == 4
    assert h20.nvlink_links * link.link_bw_bidir == pytest.approx(900 * GB, rel=EXACT)
    assert h20.fp16_dense_flops == pytest.approx(148 * TB, rel=EXACT)
    assert h20.bf16_dense_flops == h20.fp16_dense_flops
    assert h20.hbm_capacity == pytest.approx(96 * GB, rel=EXACT)
    assert h20.hbm_bw == pytest.approx(4.0 * TB, rel=EXACT)
    assert h20.board_power == 400.0
    # a compute-cut part: about 15 % of an H100's dense bf16, with the same NVLink
    assert h20.bf16_dense_flops / specs.gpu("h100").bf16_dense_flops == pytest.approx(
        148 / 989.5, rel=EXACT)
    for field in ("fp16_dense_flops", "bf16_dense_flops", "hbm_bw"):
        assert "confidence" in (h20.provenance[field].note or "").lower(), field


def test_new_hbm_figures_are_tagged_like_the_others() -> None:
    tags = {specs.gpu(k).provenance["hbm_bw"].direction for k in specs.load().keys("gpus")}
    assert len(tags) == 1


def test_h800_board_split_is_a_recorded_assumption() -> None:
    board = specs.system("hgx_h800")
    base = specs.system(board.base)
    assert board.gpu == "h800" and board.base == "dgx_h100"
    assert len(board.links_per_gpu_per_switch) == base.nvswitch_chips
    assert board.links_per_gpu == specs.gpu("h800").nvlink_links
    q = board.provenance["links_per_gpu_per_switch"]
    assert q.kind == "model" and "assumption" in q.note


def _load_changed(tmp_path, change) -> None:
    doc = json.loads(specs.default_path().read_text())
    change(doc)
    path = tmp_path / "hardware.json"
    path.write_text(json.dumps(doc))
    specs.load(path)


def test_loader_rejects_more_links_than_the_generation_has(tmp_path) -> None:
    def change(doc):
        doc["gpus"]["h800"]["nvlink_links"]["value"] = 19

    with pytest.raises(ValueError, match=r"gpus\['h800'\]\.nvlink_links.*1 to 18"):
        _load_changed(tmp_path, change)


def test_loader_rejects_a_split_that_misses_links(tmp_path) -> None:
    def change(doc):
        doc["systems"]["hgx_h800"]["links_per_gpu_per_switch"]["value"] = [2, 2, 2, 3]

    with pytest.raises(ValueError, match=r"hgx_h800.*adds up to 9 links.*'h800' has 8"):
        _load_changed(tmp_path, change)


def test_loader_rejects_a_split_with_the_wrong_chip_count(tmp_path) -> None:
    def change(doc):
        doc["systems"]["hgx_h800"]["links_per_gpu_per_switch"]["value"] = [4, 4]

    with pytest.raises(ValueError, match="4 NVSwitch chips, give one per chip"):
        _load_changed(tmp_path, change)
