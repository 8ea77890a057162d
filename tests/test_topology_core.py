"""Topology arrays, validation, routing and metrics on generic fabrics (no catalogue needed)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nvlearn.topology import (
    LINK_NVLINK,
    NODE_GPU,
    NODE_NVSWITCH,
    Topology,
    bisection_bw_bidir,
    bisection_candidates,
    fully_connected,
    hops,
    injection_bw_per_dir,
    max_flow_bw_per_dir,
    path_diversity,
    ring,
    single_switch,
    with_link_factor,
)
from nvlearn.topology.builders import FabricBuilder
from nvlearn.topology.metrics import _dinic


def _two_switch_fabric(bw_a: float, bw_b: float) -> Topology:
    """Two GPUs joined through two parallel switches of different link bandwidth."""
    b = FabricBuilder()
    g0, g1 = b.gpu("g0"), b.gpu("g1")
    for name, bw in (("sa", bw_a), ("sb", bw_b)):
        s = b.node(NODE_NVSWITCH, name, tier=1)
        b.cable(g0, s, bw_per_dir=bw, kind=LINK_NVLINK, latency_ab=1.0)
        b.cable(g1, s, bw_per_dir=bw, kind=LINK_NVLINK, latency_ab=2.0 if name == "sb" else 1.0)
    return b.build("two switches")


# ---------------------------------------------------------------- construction
def test_arrays_are_read_only_and_typed():
    topo = single_switch(4, bw_per_dir=1e9)
    for name in ("node_kind", "node_box", "node_tier", "node_plane", "gpus", "link_src",
                 "link_dst", "link_capacity", "link_latency", "link_count", "link_kind"):
        arr = getattr(topo, name)
        assert not arr.flags.writeable, name
    assert topo.gpus.dtype == np.int32 and topo.link_capacity.dtype == np.float64
    assert topo.node_kind.dtype == np.int8 and topo.link_count.dtype == np.int16
    with pytest.raises(ValueError):
        topo.link_capacity[0] = 0.0


def test_repr_names_the_essentials():
    text = repr(single_switch(4, bw_per_dir=100e9))
    assert "single_switch(4)" in text and "GPUs: 4" in text
    assert "tier 1: 1 NVSwitch" in text and "8 directed" in text
    assert "100 GB/s NVLink per direction" in text


def _fields(topo: Topology, **changes) -> dict:
    names = ("name", "node_kind", "node_name", "node_box", "node_tier", "node_plane", "gpus",
             "link_src", "link_dst", "link_capacity", "link_latency", "link_count", "link_kind")
    kw = {n: getattr(topo, n) for n in names}
    kw.update(changes)
    return kw


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"link_dst": [1, 9, 2, 0, 3, 1, 4, 2]}, "not a node"),
        ({"link_capacity": [1e9] * 7 + [0.0]}, "with_link_factor"),
        ({"link_capacity": [1e9] * 7 + [np.inf]}, "finite and > 0"),
        ({"link_capacity": [1e9] * 7 + [-1.0]}, "finite and > 0"),
        ({"link_latency": [0.0] * 7 + [-1e-6]}, ">= 0"),
        ({"gpus": [0, 1, 2]}, "every GPU"),
        ({"gpus": [0, 1, 2, 4]}, "NODE_GPU"),
        ({"node_name": ["a", "a", "b", "c", "d"]}, "unique"),
        ({"link_count": [1] * 7}, "one per link"),
    ],
)
def test_constructor_rejects_bad_input(change, words):
    topo = single_switch(4, bw_per_dir=1e9)
    with pytest.raises(ValueError, match=words):
        Topology(**_fields(topo, **change))


def test_builders_reject_bad_arguments():
    with pytest.raises(ValueError, match=">= 1"):
        single_switch(0, bw_per_dir=1e9)
    with pytest.raises(ValueError, match="> 0"):
        ring(4, bw_per_dir=0.0)
    with pytest.raises(ValueError, match=">= 0"):
        fully_connected(3, bw_per_dir=1e9, latency=-1.0)
    with pytest.raises(ValueError, match="whole number"):
        ring(2.5, bw_per_dir=1e9)


# ---------------------------------------------------------------- routing
def test_routes_single_switch_and_self_pairs():
    topo = single_switch(4, bw_per_dir=1e9, latency=1e-6)
    g = topo.gpus
    indptr, link, frac, latency = topo.routes(g[[0, 2, 3]], g[[1, 2, 0]])
    assert indptr.tolist() == [0, 2, 2, 4]
    assert link.dtype == np.int32 and frac.dtype == np.float64 and indptr.dtype == np.int64
    assert [topo.link_label(k) for k in link] == [
        "gpu0 -> switch", "switch -> gpu1", "gpu3 -> switch", "switch -> gpu0"]
    np.testing.assert_allclose(frac, 1.0)
    np.testing.assert_allclose(latency, [2e-6, 0.0, 2e-6])


def test_routes_split_in_proportion_to_capacity_and_latency_is_max():
    topo = _two_switch_fabric(3e9, 1e9)
    indptr, link, frac, latency = topo.routes([0], [1])
    by_label = {topo.link_label(k): f for k, f in zip(link, frac, strict=True)}
    assert by_label == pytest.approx(
        {"g0 -> sa": 0.75, "sa -> g1": 0.75, "g0 -> sb": 0.25, "sb -> g1": 0.25})
    assert latency[0] == pytest.approx(3.0)  # the slower path via sb: 1 + 2
    paths = topo.paths(0, 1)
    assert sorted(p.weight for p in paths) == pytest.approx([0.25, 0.75])
    assert max(p.latency for p in paths) == pytest.approx(3.0)


def test_routes_expand_repeated_pairs_in_request_order():
    topo = fully_connected(5, bw_per_dir=1e9)
    rng = np.random.default_rng(1)
    src = rng.integers(0, 5, 200)
    dst = rng.integers(0, 5, 200)
    indptr, link, frac, _ = topo.routes(src, dst)
    for i in range(200):
        got = link[indptr[i]:indptr[i + 1]]
        if src[i] == dst[i]:
            assert got.size == 0
        else:
            assert got.size == 1
            assert (topo.link_src[got[0]], topo.link_dst[got[0]]) == (src[i], dst[i])


def test_routes_and_paths_agree_per_link():
    topo = _two_switch_fabric(5e9, 4e9)
    indptr, link, frac, _ = topo.routes([1], [0])
    from_paths: dict[int, float] = {}
    for p in topo.paths(1, 0):
        for k in p.links:
            from_paths[k] = from_paths.get(k, 0.0) + p.weight
    assert dict(zip(link.tolist(), frac.tolist(), strict=True)) == pytest.approx(from_paths)


def test_gpus_do_not_forward():
    topo = ring(6, bw_per_dir=1e9)
    with pytest.raises(ValueError, match="pass through a GPU"):
        topo.routes([0], [3])
    with pytest.raises(ValueError, match="pass through a GPU"):
        topo.paths(0, 2)
    indptr, link, _, _ = topo.routes([0, 0], [1, 5])
    assert np.diff(indptr).tolist() == [1, 1]


def test_unknown_node_is_rejected():
    topo = single_switch(4, bw_per_dir=1e9)
    with pytest.raises(ValueError, match="not a node.*topo.gpus"):
        topo.routes([0], [topo.n_nodes])
    with pytest.raises(ValueError, match="not a node"):
        topo.routes([-1], [0])
    with pytest.raises(ValueError, match="one destination per source"):
        topo.routes([0, 1], [2])


def test_dead_link_is_avoided_when_possible_and_named_when_not():
    topo = _two_switch_fabric(1e9, 1e9)
    to_sa = [k for k in range(topo.n_links) if topo.link_label(k) == "g0 -> sa"]
    dead = with_link_factor(topo, to_sa, 0.0)
    _, link, frac, _ = dead.routes([0], [1])
    assert sorted(dead.link_label(k) for k in link) == ["g0 -> sb", "sb -> g1"]
    np.testing.assert_allclose(frac, 1.0)
    star = single_switch(3, bw_per_dir=1e9)
    broken = with_link_factor(star, [0], 0.0)
    with pytest.raises(ValueError, match=r"link 0 \(gpu0 -> switch\).*zero capacity.*factor"):
        broken.routes([0], [1])
    with pytest.raises(ValueError, match="zero capacity"):
        broken.paths(0, 1)
    assert "1 degraded" in repr(broken)


def test_with_link_factor_compounds_and_validates():
    topo = ring(4, bw_per_dir=100e9)
    half = with_link_factor(with_link_factor(topo, [0], 0.5), [0, 1], 0.5)
    assert half.link_capacity[:3].tolist() == [25e9, 50e9, 100e9]
    assert half.link_factor[:3].tolist() == [0.25, 0.5, 1.0]
    assert topo.link_capacity[0] == 100e9  # the original is untouched
    with pytest.raises(ValueError, match="does not exist"):
        with_link_factor(topo, [99], 0.5)
    with pytest.raises(ValueError, match=">= 0"):
        with_link_factor(topo, [0], -0.5)


# ---------------------------------------------------------------- metrics
def test_injection_and_generic_bisections():
    assert injection_bw_per_dir(single_switch(3, bw_per_dir=7e9)).tolist() == [7e9] * 3
    assert injection_bw_per_dir(ring(5, bw_per_dir=1e9)).tolist() == [2e9] * 5
    assert injection_bw_per_dir(fully_connected(4, bw_per_dir=1e9)).tolist() == [3e9] * 4
    n = 8
    assert bisection_bw_bidir(single_switch(n, bw_per_dir=1e9)) == pytest.approx(n * 1e9)
    assert bisection_bw_bidir(ring(n, bw_per_dir=1e9)) == pytest.approx(4e9)
    assert bisection_bw_bidir(fully_connected(n, bw_per_dir=1e9)) == pytest.approx(
        2 * (n // 2) ** 2 * 1e9)


def test_bisection_candidates_are_balanced_and_distinct():
    topo = ring(10, bw_per_dir=1e9)
    halves = bisection_candidates(topo, n_random=6, seed=3)
    assert all(h.size == 5 for h in halves)
    masks = {tuple(np.isin(np.arange(10), h)) for h in halves}
    assert len(masks) == len(halves)
    with pytest.raises(ValueError, match="at least 2 GPUs"):
        bisection_bw_bidir(single_switch(1, bw_per_dir=1e9))


def _brute_force_min_cut(n, src, dst, cap, sources, sinks) -> float:
    free = [v for v in range(n) if v not in sources and v not in sinks]
    best = np.inf
    for bits in itertools.product((False, True), repeat=len(free)):
        side = np.zeros(n, bool)
        side[list(sources)] = True
        side[[v for v, b in zip(free, bits, strict=True) if b]] = True
        best = min(best, cap[side[src] & ~side[dst]].sum())
    return float(best)


@pytest.mark.parametrize("seed", range(12))
def test_max_flow_matches_brute_force_min_cut(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 9))
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    keep = rng.random(len(pairs)) < 0.45
    src = np.array([p[0] for p, k in zip(pairs, keep, strict=True) if k], dtype=np.int64)
    dst = np.array([p[1] for p, k in zip(pairs, keep, strict=True) if k], dtype=np.int64)
    cap = rng.integers(1, 10, src.size).astype(float) * 1e9
    sources, sinks = [0, 1], [n - 1]
    got = _dinic(n, src, dst, cap, np.array(sources), np.array(sinks))
    assert got == pytest.approx(_brute_force_min_cut(n, src, dst, cap, sources, sinks))


def test_max_flow_on_ring_closed_form():
    topo = ring(6, bw_per_dir=3e9)
    assert max_flow_bw_per_dir(topo, [0], [3]) == pytest.approx(6e9)  # two ways round
    assert max_flow_bw_per_dir(topo, [0, 1, 2], [3, 4, 5]) == pytest.approx(6e9)
    with pytest.raises(ValueError, match="overlap"):
        max_flow_bw_per_dir(topo, [0, 1], [1, 2])
    with pytest.raises(ValueError, match="ranks 0..5"):
        max_flow_bw_per_dir(topo, [0], [6])


def test_hops_and_path_diversity_generic():
    topo = _two_switch_fabric(1e9, 1e9)
    assert hops(topo, 0, 1) == 2
    assert hops(topo, 0, 0) == 0
    assert hops(topo, [0, 1], 1).tolist() == [2, 0]
    assert path_diversity(topo, 0, 1) == 2
    assert path_diversity(fully_connected(4, bw_per_dir=1e9), 0, [1, 2]).tolist() == [1, 1]
    with pytest.raises(ValueError, match="pass through a GPU"):
        hops(ring(6, bw_per_dir=1e9), 0, 3)


def test_kinds_are_recorded():
    topo = single_switch(2, bw_per_dir=1e9)
    assert topo.node_kind.tolist() == [NODE_GPU, NODE_GPU, NODE_NVSWITCH]
    assert set(topo.link_kind.tolist()) == {LINK_NVLINK}


def test_topology_modules_import_one_way():
    """Data (core) imports no behaviour; routing builds on core; policy and metrics on both."""
    import ast
    from pathlib import Path as FilePath

    import nvlearn.topology as T

    root = FilePath(T.__file__).parent

    def local_imports(name: str) -> set[str]:
        tree = ast.parse((root / f"{name}.py").read_text())
        return {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}

    assert local_imports("core") == set()
    assert local_imports("routing") == {"core"}
    assert local_imports("policy") <= {"core", "routing"}
    assert local_imports("metrics") <= {"core", "routing"}
    assert set(T.core.ROUTERS) == set(T.ROUTING_POLICIES)
