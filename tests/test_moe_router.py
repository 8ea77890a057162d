"""Router: top-k gating, Zipf skew, capacity (Switch / GShard definitions), drops, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nvlearn.moe import expert_capacity, expert_popularity, gate, gate_scores, place_experts, route


def test_capacity_is_switch_formula_for_top1_and_gshard_for_top2():
    assert expert_capacity(4096, 64, 1, 1.0) == 64
    assert expert_capacity(4096, 64, 1, 1.25) == 80
    assert expert_capacity(100, 8, 1, 1.0) == math.ceil(100 / 8)  # ceil, not floor
    assert expert_capacity(4096, 64, 2, 1.0) == 2 * 4096 // 64  # GShard: 2N/E


@pytest.mark.parametrize("cf", [0.0, -0.5, float("nan"), float("inf")])
def test_bad_capacity_factor_raises_with_advice(cf):
    with pytest.raises(ValueError, match="capacity_factor must be > 0"):
        route(8, 16, 8, 1, capacity_factor=cf)
    with pytest.raises(ValueError, match="capacity_factor"):
        expert_capacity(16, 8, 1, cf)


def test_top_k_larger_than_experts_raises():
    with pytest.raises(ValueError, match="top_k=9 is larger than the number of experts"):
        route(8, 16, 8, 9)
    with pytest.raises(ValueError, match="top_k=3 is larger"):
        gate(np.zeros((1, 4, 2)), 3, gpus_per_node=1)


def test_experts_not_divisible_across_gpus_raises():
    with pytest.raises(ValueError, match="12 experts do not divide across 8 GPUs"):
        route(8, 16, 12, 2)
    with pytest.raises(ValueError, match="multiple of 8"):
        place_experts(4, 8)


@pytest.mark.parametrize("kwargs, match", [
    ({"top_k": 0}, "top_k must be a whole number >= 1"),
    ({"tokens_per_gpu": 0}, "tokens_per_gpu"),
    ({"skew": -1.0}, "skew must be"),
    ({"max_nodes": 1, "top_k": 9}, "cannot fit on max_nodes=1"),
    ({"max_nodes": 0}, "max_nodes"),
])
def test_other_bad_input(kwargs, match):
    args = {"n_gpus": 16, "tokens_per_gpu": 8, "n_experts": 16, "top_k": 2} | kwargs
    with pytest.raises(ValueError, match=match):
        route(**args)


def test_node_limit_needs_whole_nodes():
    with pytest.raises(ValueError, match="whole nodes"):
        route(12, 8, 12, 2, max_nodes=1)


def test_placement_is_contiguous():
    assert place_experts(8, 4).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


def test_seeded_and_reproducible():
    a = route(8, 64, 16, 2, skew=0.7, seed=5)
    b = route(8, 64, 16, 2, skew=0.7, seed=5)
    c = route(8, 64, 16, 2, skew=0.7, seed=6)
    assert np.array_equal(a.expert, b.expert) and np.array_equal(a.weight, b.weight)
    assert not np.array_equal(a.expert, c.expert)


def test_top_k_distinct_best_first_weights_normalised():
    r = route(4, 200, 16, 4, skew=0.5, seed=1)
    srt = np.sort(r.expert, axis=-1)
    assert (np.diff(srt, axis=-1) > 0).all()  # k distinct experts
    assert np.allclose(r.weight.sum(-1), 1.0, atol=1e-6)
    assert (np.diff(r.weight, axis=-1) <= 1e-7).all()  # best first


def test_gate_takes_the_highest_scores():
    s = np.array([[[0.1, 2.0, -1.0, 1.5], [5.0, 0.0, 0.0, 0.0]]])
    r = gate(s, 2, gpus_per_node=1)
    assert r.expert.tolist() == [[[1, 3], [0, 1]]]
    w = np.exp([2.0, 1.5]) / np.exp([2.0, 1.5]).sum()
    assert np.allclose(r.weight[0, 0], w, rtol=1e-6)


def test_gate_on_drawn_scores_equals_route():
    r = route(4, 100, 16, 3, skew=1.0, capacity_factor=1.0, seed=2)
    g = gate(gate_scores(4, 100, 16, 1.0, seed=2), 3, capacity_factor=1.0)
    assert (g.expert == r.expert).mean() > 0.999  # float32 near-ties aside
    assert np.allclose(g.weight, r.weight, atol=1e-5)


def test_top1_frequencies_follow_zipf_popularity():
    p = expert_popularity(8, 1.2, seed=0)
    r = route(8, 4000, 8, 1, skew=1.2, seed=0)
    freq = r.expert_load() / r.n_assignments
    assert np.allclose(freq, p, atol=0.01)  # Gumbel-max samples exactly from p


def test_uniform_skew_balances_load():
    r = route(8, 2000, 32, 2, skew=0.0, seed=0)
    load = r.expert_load()
    assert load.max() / load.mean() < 1.15


def test_capacity_caps_each_group_and_counts_drops():
    r = route(8, 256, 16, 2, skew=1.0, capacity_factor=1.0, seed=4)
    assert r.capacity == expert_capacity(256, 16, 2, 1.0)
    for g in range(8):
        routed = np.bincount(r.expert[g].ravel(), minlength=16)
        kept = np.bincount(r.expert[g][r.kept[g]], minlength=16)
        assert np.array_equal(kept, np.minimum(routed, r.capacity))
    assert r.n_dropped == r.n_assignments - int(r.kept.sum()) > 0
    assert 0 < r.drop_fraction < 1
    assert r.tokens_fully_dropped == int((~r.kept.any(axis=2)).sum())


def test_first_choices_fill_slots_before_second_choices():
    r = route(4, 300, 8, 2, skew=1.5, capacity_factor=0.5, seed=0)
    for g in range(4):
        for e in range(8):
            second_kept = (r.expert[g, :, 1] == e) & r.kept[g, :, 1]
            if second_kept.any():  # then every first choice of e on g was kept
                first = r.expert[g, :, 0] == e
                assert r.kept[g, :, 0][first].all()


def test_dropless_drops_nothing_and_larger_factor_drops_less():
    assert route(8, 128, 16, 2, skew=1.0).n_dropped == 0
    drops = [route(8, 128, 16, 2, skew=1.0, capacity_factor=cf).drop_fraction
             for cf in (0.5, 1.0, 1.5, 2.0)]
    assert all(a >= b for a, b in zip(drops, drops[1:], strict=False))


@pytest.mark.parametrize("m", [1, 2, 3])
def test_node_limited_tokens_use_at_most_m_nodes(m):
    r = route(32, 64, 64, 8, skew=0.3, max_nodes=m, seed=1)
    nodes = r.dest_gpu // 8
    used = np.array([[len(set(t)) for t in g] for g in nodes])
    assert used.max() <= m and used.max() == m


def test_node_limit_covering_all_nodes_changes_nothing():
    a = route(16, 64, 32, 4, skew=0.5, seed=3)
    b = route(16, 64, 32, 4, skew=0.5, seed=3, max_nodes=2)
    assert np.array_equal(a.expert, b.expert)


def test_with_capacity_keeps_the_choices():
    r = route(8, 256, 16, 2, skew=1.0, seed=3)
    c = r.with_capacity(1.0)
    assert np.array_equal(c.expert, r.expert) and c.capacity == expert_capacity(256, 16, 2, 1.0)
    direct = route(8, 256, 16, 2, skew=1.0, capacity_factor=1.0, seed=3)
    assert np.array_equal(c.kept, direct.kept)
    assert c.with_capacity(None).n_dropped == 0
    with pytest.raises(ValueError, match="capacity_factor must be > 0"):
        r.with_capacity(0.0)
