"""Fabric automorphisms from GPU permutations, orbits, and routing by symmetry."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn.topology import (
    dgx_h100,
    ib_cluster,
    nvlink_pod,
    single_switch,
    with_link_factor,
    with_routing,
)
from nvlearn.topology.symmetry import (
    box_rotation,
    extend_gpu_permutation,
    orbits,
    permutation_order,
    routes_by_symmetry,
)


def _rotate(topo, rows, cols):
    q = 8
    grid = np.arange(topo.n_gpus).reshape(-1, q)
    perm = np.empty(topo.n_gpus, int)
    perm[grid] = grid[(np.arange(grid.shape[0])[:, None] + rows) % grid.shape[0],
                      (np.arange(q)[None, :] + cols) % q]
    return perm


@pytest.mark.parametrize("make, shifts", [
    (lambda: ib_cluster(4), {(1, 0): True, (0, 1): True}),
    (lambda: ib_cluster(96), {(1, 0): False, (32, 0): True, (0, 1): True}),
    (lambda: ib_cluster(64, tiers=3), {(1, 0): False, (32, 0): True, (0, 1): True}),
    (lambda: ib_cluster(4, rails=4), {(1, 0): True, (0, 1): True}),
    (lambda: nvlink_pod(4), {(1, 0): True, (0, 1): True}),
])
def test_node_shifts_and_rail_rotations(make, shifts):
    topo = make()
    for (rows, cols), expected in shifts.items():
        auto = extend_gpu_permutation(topo, _rotate(topo, rows, cols))
        assert (auto is not None) is expected, (rows, cols)
        if auto is not None:       # an automorphism: links onto links of the same kind
            assert np.array_equal(np.sort(auto.link), np.arange(topo.n_links))
            for attr in ("link_capacity", "link_latency", "link_kind", "link_count"):
                assert np.array_equal(getattr(topo, attr)[auto.link], getattr(topo, attr))
            assert np.array_equal(topo.link_src[auto.link], auto.node[topo.link_src])


def test_what_is_not_a_symmetry():
    t = ib_cluster(4)
    swap = np.arange(t.n_gpus)
    swap[[0, 1]] = [1, 0]                      # GPUs of one node on different rails
    assert extend_gpu_permutation(t, swap) is None
    slow = with_link_factor(t, [0], 0.5)
    assert extend_gpu_permutation(slow, _rotate(slow, 0, 1)) is None
    with pytest.raises(ValueError, match="permutation of the 32 GPU ranks"):
        extend_gpu_permutation(t, np.zeros(32, int))


def test_orbits_and_orders():
    assert permutation_order([1, 2, 0, 4, 3]) == 6
    o = orbits([[1, 2, 0, 3], [0, 1, 2, 3]], [3, 1])
    assert o.label.tolist() == [0, 0, 0, 1] and o.count.tolist() == [3, 1]
    t = ib_cluster(64)
    gens = [extend_gpu_permutation(t, _rotate(t, 0, 1)).link,
            extend_gpu_permutation(t, _rotate(t, 32, 0)).link]
    o = orbits(gens, [8, 2])
    assert o.count.sum() == t.n_links and set(o.count.tolist()) <= {1, 2, 8, 16}


@pytest.mark.parametrize("make", [lambda: ib_cluster(4), lambda: ib_cluster(64, tiers=3),
                                  lambda: nvlink_pod(2), dgx_h100])
def test_routes_by_symmetry_are_the_routes(make):
    topo = make()
    rng = np.random.default_rng(1)
    src = rng.choice(topo.gpus, 2000)
    dst = rng.choice(topo.gpus, 2000)
    a, b = routes_by_symmetry(topo, src, dst), topo.routes(src, dst)
    assert np.array_equal(a[0], b[0])
    assert np.allclose(a[3], b[3], rtol=1e-14, atol=0)
    path = np.repeat(np.arange(src.size), np.diff(a[0]))
    ia, ib = np.lexsort((a[1], path)), np.lexsort((b[1], path))
    assert np.array_equal(a[1][ia], b[1][ib])
    assert np.allclose(a[2][ia], b[2][ib], rtol=1e-12, atol=0)


def test_box_rotation_only_where_there_is_one():
    assert box_rotation(ib_cluster(2)).order == 8
    assert box_rotation(single_switch(4, 1e9)) is None          # no boxes
    static = with_routing(ib_cluster(2), "static")
    a = routes_by_symmetry(static, static.gpus[:4], static.gpus[8:12])
    b = static.routes(static.gpus[:4], static.gpus[8:12])
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))  # falls back
