"""GPU variants: the export H800 (8 NVLink 4 links) and H20 (18 links, little compute).

Catalogue values against the figures their sources print; the DGX box built from a GPU's
NVLink generation and link count; per-GPU and bisection bandwidth in closed form; a
simulated ring all-reduce that slows by exactly the link ratio.
"""

from __future__ import annotations

import dataclasses
import inspect
import json

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.collectives import allreduce
from nvlearn.sim import simulate
from nvlearn.topology import (
    LINK_IB,
    LINK_NVLINK,
    bisection_bw_bidir,
    dgx_h100,
    fully_connected,
    ib_cluster,
    injection_bw_per_dir,
    nvlink_pod,
    pcie_box,
    ring,
    single_switch,
    with_link_factor,
    with_routing,
)
from nvlearn.topology.core import DEFAULT_GPU

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


# --- the DGX box with another GPU ---------------------------------------------------------------


def _per_gpu_links(topo) -> np.ndarray:
    out = np.isin(topo.link_src, topo.gpus) & (topo.link_kind == LINK_NVLINK)
    return np.bincount(topo.link_src[out], weights=topo.link_count[out],
                       minlength=topo.n_nodes)[topo.gpus]


def test_h800_box_has_8_links_and_200_gb_s_per_gpu_per_direction() -> None:
    topo = dgx_h100("h800")
    h800 = specs.gpu("h800")
    link = specs.nvlink(h800.nvlink_generation)
    assert topo.name == "DGX H800" and topo.gpu == "h800"
    assert h800.nvlink_links == 8 and np.all(_per_gpu_links(topo) == h800.nvlink_links)
    per_gpu = injection_bw_per_dir(topo, [LINK_NVLINK])
    assert np.allclose(per_gpu, h800.nvlink_links * link.link_bw_per_dir, rtol=EXACT)
    assert np.allclose(per_gpu, 8 * 25 * GB, rtol=EXACT)  # DeepEP #16: "nominal 200GB/s"
    # the assumed split: 2 links to each of the 4 NVSwitch chips
    split = specs.system("hgx_h800").links_per_gpu_per_switch
    g0 = topo.link_src == topo.gpus[0]
    chips = topo.node_plane[topo.link_dst[g0]]
    assert [int(topo.link_count[g0][chips == p].sum()) for p in range(4)] == list(split)


@pytest.mark.parametrize("gpu", ["h100", "h800", "h20"])
def test_box_bisection_is_the_closed_form(gpu: str) -> None:
    topo = dgx_h100(gpu)
    g = specs.gpu(gpu)
    per_gpu = g.nvlink_links * specs.nvlink(g.nvlink_generation).link_bw_per_dir
    # half the GPUs inject at full rate across the cut, in each direction
    expect = topo.n_gpus / 2 * per_gpu * 2
    assert bisection_bw_bidir(topo) == pytest.approx(expect, rel=EXACT)
    if gpu == "h100":  # Hot Chips 34: DGX H100 bisection 3.6 TB/s
        assert expect == pytest.approx(specs.system("dgx_h100").bisection_bw_bidir, rel=EXACT)


def _wire(topo, schedule):
    """Simulate on the ideal fluid model (``model="wire"``) where simulate offers models."""
    if "model" in inspect.signature(simulate).parameters:
        return simulate(topo, schedule, model="wire")
    return simulate(topo, schedule)


def test_ring_allreduce_on_h800_takes_18_over_8_as_long() -> None:
    """Same latency, 8/18 of the bandwidth: the bandwidth term scales by exactly 18/8."""
    h100, h800 = dgx_h100("h100"), dgx_h100("h800")
    n = 1 << 30
    t = {name: [_wire(topo, allreduce(topo, m)).time for m in (n, 2 * n)]
         for name, topo in (("h100", h100), ("h800", h800))}
    ratio = (t["h800"][1] - t["h800"][0]) / (t["h100"][1] - t["h100"][0])
    assert ratio == pytest.approx(18 / 8, rel=1e-9)
    # and the whole time, latency included, for a large message
    assert t["h800"][1] / t["h100"][1] == pytest.approx(18 / 8, rel=1e-3)
    # the ring's bandwidth term on its own: 2 (p-1)/p x n / (per-GPU rate per direction)
    per_gpu = injection_bw_per_dir(h800, [LINK_NVLINK])[0]
    p = h800.n_gpus
    assert t["h800"][1] - t["h800"][0] == pytest.approx(2 * (p - 1) / p * n / per_gpu,
                                                       rel=1e-9)


@pytest.mark.parametrize("gpu", ["h200", "h20"])
def test_full_link_parts_build_the_h100_fabric(gpu: str) -> None:
    ref, topo = dgx_h100(), dgx_h100(gpu)
    assert topo.gpu == gpu and topo.name == f"DGX {gpu.upper()}"
    assert topo.node_name == ref.node_name
    for attr in ("node_kind", "node_box", "node_tier", "node_plane", "gpus", "link_src",
                 "link_dst", "link_capacity", "link_latency", "link_count", "link_kind"):
        assert np.array_equal(getattr(topo, attr), getattr(ref, attr)), attr


def test_node_names_do_not_depend_on_the_gpu() -> None:
    assert dgx_h100("h800").node_name == dgx_h100().node_name
    assert ib_cluster(2, gpu="h800").node_name == ib_cluster(2).node_name


@pytest.mark.parametrize("bad", ["a100", "b200", "h900", "H800", 800, None])
def test_bad_gpu_names_list_the_valid_keys(bad) -> None:
    for build in (dgx_h100, lambda gpu: ib_cluster(2, gpu=gpu),
                  lambda gpu: nvlink_pod(2, gpu=gpu)):
        with pytest.raises(ValueError, match="valid keys: h100, h200, h800, h20"):
            build(bad)


def test_pod_refuses_a_gpu_that_breaks_its_port_arithmetic() -> None:
    with pytest.raises(ValueError, match=r"needs 18 NVLinks per GPU.*have 8.*h100, h200, h20"):
        nvlink_pod(2, gpu="h800")
    pod = nvlink_pod(2, gpu="h20")
    assert pod.gpu == "h20" and pod.name == "NVLink Switch System (2 x DGX H20)"
    assert np.array_equal(pod.link_capacity, nvlink_pod(2).link_capacity)


def test_ib_cluster_with_h800_nodes() -> None:
    topo = ib_cluster(2, gpu="h800")
    assert topo.gpu == "h800" and topo.name.startswith("IB cluster (2 x DGX H800")
    assert np.all(_per_gpu_links(topo) == 8)
    ref = ib_cluster(2)
    ib = topo.link_kind == LINK_IB
    assert np.array_equal(topo.link_capacity[ib], ref.link_capacity[ib])  # network unchanged


# --- the GPU travels with the topology ----------------------------------------------------------


def test_every_builder_records_its_gpu() -> None:
    assert dgx_h100().gpu == nvlink_pod(1).gpu == ib_cluster(1).gpu == DEFAULT_GPU == "h100"
    for generic in (single_switch(4, 1e9), ring(4, 1e9), fully_connected(4, 1e9), pcie_box()):
        assert generic.gpu == DEFAULT_GPU


def test_copies_keep_the_gpu() -> None:
    topo = dgx_h100("h800")
    assert with_link_factor(topo, [0], 0.5).gpu == "h800"
    assert with_routing(topo, "static").gpu == "h800"
    assert dataclasses.replace(topo, name="renamed").gpu == "h800"


def test_topology_rejects_an_unknown_gpu() -> None:
    with pytest.raises(ValueError, match="valid keys: 'v100'"):
        dataclasses.replace(dgx_h100(), gpu="h900")
    with pytest.raises(ValueError, match="gpu must be a GPU key"):
        dataclasses.replace(dgx_h100(), gpu=800)


def test_nccl_fabric_reads_the_topologys_gpu() -> None:
    from nvlearn.tuner.nccl import fabric_from_topology

    m = specs.nccl()
    h800 = fabric_from_topology(dgx_h100("h800"))
    assert h800.architecture == "hopper"
    assert h800.bw_intra == pytest.approx(8 * m.nvlink_bw(90), rel=EXACT)  # 8 x NCCL's 20.6
    assert fabric_from_topology(dgx_h100()).bw_intra == pytest.approx(18 * m.nvlink_bw(90),
                                                                      rel=EXACT)
    # an explicit gpu still wins over the topology's
    assert fabric_from_topology(dgx_h100(), gpu="a100").architecture == "ampere"
