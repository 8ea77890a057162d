"""docs/architecture.md's recipes, followed step by step, so the page cannot drift."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from nvlearn import collectives, dataplane, specs, tuner
from nvlearn.collectives.budget import estimate_ops
from nvlearn.sim import simulate
from nvlearn.topology import FABRICS, LINK_NVLINK, NODE_NVSWITCH, FabricKind, fabric
from nvlearn.topology.builders import FabricBuilder


def _four_gpu_box():
    """Step 1 of 'Add a fabric': 4 H100 on one NVSwitch plane, figures from the catalogue."""
    link = specs.nvlink(4)
    b = FabricBuilder()
    sw = b.node(NODE_NVSWITCH, "nvswitch0", tier=1)
    for i in range(4):
        g = b.gpu(f"gpu{i}")
        b.cable(g, sw, bw_per_dir=link.links_per_gpu * link.link_bw_per_dir, kind=LINK_NVLINK,
                count=link.links_per_gpu, latency_ab=specs.latency("nvlink_hop"))
    return b.build("toy 4-GPU box")


def test_add_a_fabric(monkeypatch):
    monkeypatch.setitem(FABRICS, "toy_box", FabricKind(                        # step 2
        "toy_box", "toy box", "4 H100 on one NVSwitch", lambda nodes: _four_gpu_box(), False))
    fabric.cache_clear()
    topo = fabric("toy_box")                                                    # step 3
    assert topo is fabric("toy_box") and topo.n_gpus == 4
    s = collectives.allreduce(topo, 2**30)
    wire, ach = simulate(topo, s, model="wire"), simulate(topo, s)
    assert wire.busbw == pytest.approx(450e9, rel=2e-3)                         # 18 x 25 GB/s
    assert ach.busbw == pytest.approx(18 * 20.6e9, rel=1e-2)                    # NCCL's rate
    assert tuner.choose("allreduce", 2**30, topo).best.label == "NVLS/Simple"
    fabric.cache_clear()


def test_add_an_algorithm_checks_the_recipe_asks_for():
    """Step 3 of 'Add a collective algorithm', on one registered algorithm (NCCL's tree)."""
    p, n, B, alpha = 6, 1e6, 100e9, 1e-6
    assert "nccl_tree" in collectives.ALGORITHMS["allreduce"]                   # step 2
    s = collectives.allreduce(p, n, "nccl_tree", chunks=3)
    x = np.random.default_rng(0).integers(-9, 9, size=(p, 12)).astype(float)
    assert np.array_equal(dataplane.run(s, x), np.tile(x.sum(axis=0), (p, 1)))
    from nvlearn.topology import single_switch

    t = simulate(single_switch(p, B, alpha / 2), s, model="wire").time
    assert t == pytest.approx(collectives.cost("allreduce", "nccl_tree", p, n, B, alpha, 3),
                              rel=1e-9)
    assert estimate_ops("allreduce", "nccl_tree", p, 3) == s.n_ops
    from nvlearn.sim.models import NCCL_ROW

    assert NCCL_ROW["nccl_tree"] == "tree"                                      # step 4


def test_one_registry_entry_makes_an_algorithm(monkeypatch):
    """Steps 1-2 of 'Add a collective algorithm': a toy all-reduce (reduce-scatter then
    all-gather as two rings: the ring's own schedule and closed form) is registered with one
    REGISTRY entry, and the entry point, ALGORITHMS, RANK_RULES, cost() and the op budget all
    know it."""
    from nvlearn.collectives import builders
    from nvlearn.collectives.registry import REGISTRY, Algorithm

    ring = REGISTRY[("allreduce", "ring")]
    toy = Algorithm("allreduce", "toy_ring", builders.allreduce_ring, ring.time, ring.ops,
                    "any p >= 2", "a copy of the ring, for the recipe's test")
    monkeypatch.setitem(REGISTRY, ("allreduce", "toy_ring"), toy)                # step 2
    assert "toy_ring" in collectives.ALGORITHMS["allreduce"]
    assert collectives.RANK_RULES[("allreduce", "toy_ring")] == "any p >= 2"
    s = collectives.allreduce(5, 1e6, "toy_ring", chunks=2)
    x = np.arange(5 * 10, dtype=float).reshape(5, 10)
    assert np.array_equal(dataplane.run(s, x), np.tile(x.sum(axis=0), (5, 1)))
    assert estimate_ops("allreduce", "toy_ring", 5, 2) == s.n_ops
    assert collectives.cost("allreduce", "toy_ring", 5, 1e6, 1e11, 1e-6, 2) == \
        collectives.cost("allreduce", "ring", 5, 1e6, 1e11, 1e-6, 2)


def test_add_a_gpu(tmp_path):
    """'Add a GPU': a catalogue entry (a copy of the H100's under a new key) loads, and the
    loader refuses it without a source."""
    src = specs.default_path()
    doc = json.loads(src.read_text())
    doc["gpus"]["h100_copy"] = json.loads(json.dumps(doc["gpus"]["h100"]))     # step 1
    doc["gpus"]["h100_copy"]["name"] = "H100 copy"
    path = tmp_path / "hardware.json"
    path.write_text(json.dumps(doc))
    shutil.copy(src.parent / "README.md", tmp_path / "README.md")
    cat = specs.load(path)
    assert cat.gpu("h100_copy").nvlink_links == 18                              # step 2
    del doc["gpus"]["h100_copy"]["hbm_bw"]["source"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"gpus\['h100_copy'\]\.hbm_bw"):
        specs.load(path)
