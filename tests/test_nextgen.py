"""Notebook 08's package: NVLink 5 chain, the NVL72 builder, the domain planner, the
comparison and the audit rows, each against an independent count or a published figure."""

import math

import numpy as np
import pytest

from nvlearn import specs, tuner
from nvlearn.nextgen import (
    cheapest_design,
    compare_generations,
    design_space,
    lane_provenance,
    nextgen_claims,
    plan_domain,
)
from nvlearn.nextgen.compare import cables, step_comparison, switch_chips
from nvlearn.parallelism import Layout, preset, step_time
from nvlearn.sim.models import kind_fractions
from nvlearn.topology import bisection_bw_bidir, gb200_nvl72, hops, nvlink_pod
from nvlearn.topology.core import NODE_NVSWITCH


def test_nvlink5_chain_lands_on_published_figures():
    # NVIDIA: 50 GB/s per link per direction, 18 links, 1.8 TB/s per GPU (both directions)
    steps = compare_generations((4, 5))
    assert steps[3].rates[1] == 50e9 and steps[3].direction == "per_direction"
    assert steps[4].rates[1] == 900e9
    assert steps[-1].rates[1] == 1.8e12 and steps[-1].direction == "bidirectional"
    assert all(math.isclose(s.ratio, 2.0) for s in steps)


def test_nvlink5_lane_rate_is_derived_not_published():
    rows = {r.quantity: r for r in lane_provenance(5)}
    assert rows["lane payload rate"].kind == "derived"
    assert rows["lane payload rate"].value * 8 == 200e9      # 50 GB/s / 2 lanes
    assert rows["symbol rate"].kind == "model" and rows["raw lane rate"].kind == "model"
    assert rows["link rate"].kind == "spec"


def test_nvl72_counts_match_nvidia():
    t = gb200_nvl72()
    nvl = specs.system("gb200_nvl72")
    assert t.n_gpus == 72 and t.gpu == "b200"
    assert switch_chips(t) == nvl.switch_trays * nvl.nvswitch_chips_per_tray == 18
    sw = np.flatnonzero(np.asarray(t.node_kind) == NODE_NVSWITCH)
    src, dst, cnt = (np.asarray(a) for a in (t.link_src, t.link_dst, t.link_count))
    # every GPU one link to every chip; every chip one port per GPU
    for g in t.gpus:
        assert sorted(dst[src == g]) == sorted(sw)
    assert all(int(cnt[src == s].sum()) == 72 for s in sw)
    # 72 x 1.8 TB/s = 129.6 TB/s, NVIDIA's rounded "130 TB/s"
    out = np.asarray(t.link_capacity)[np.isin(src, t.gpus)].sum()
    assert math.isclose(2 * out, 129.6e12) and round(2 * out / 1e12, -1) == 130
    # a tray's two chips: 144 ports, 14.4 TB/s bidirectional
    assert 2 * 72 == nvl.ports_per_switch_tray
    assert math.isclose(2 * 72 * 2 * 50e9, nvl.switch_tray_bw_bidir)
    assert hops(t, t.gpus[0], t.gpus[71]) == 2
    assert math.isclose(bisection_bw_bidir(t), 36 * 18 * 50e9 * 2)


def test_nvl72_in_nccl_model():
    t = gb200_nvl72()
    f = tuner.fabric_from_topology(t)
    assert f.architecture == "blackwell" and f.n_nodes == 1
    assert math.isclose(f.bw_intra, 18 * 40.1e9)          # NCCL SM100 per-link rate
    fr = kind_fractions(t)
    assert math.isclose(fr[0], 40.1 / 50)
    r = tuner.simulate_allreduce(t, "ring", 2**26, model="wire", chunks=1)
    p = 72
    # wire ring on a non-blocking switch: 2(p-1) steps of n/p at the link rate + hops
    t_closed = 2 * (p - 1) * (2**26 / p / 900e9)
    assert r.time >= t_closed and r.time < t_closed + 2 * (p - 1) * 2e-6


def test_plan_nonblocking_clos_closed_forms():
    for radix in (8, 16, 64, 72):
        n = radix * radix // 2                   # the largest non-blocking two-tier Clos
        d = plan_domain(n, radix, 1, taper=1.0)
        assert d.gpus_per_leaf == d.up_per_leaf == radix // 2
        assert d.leaves_per_plane == radix
        assert d.spines_per_plane == d.leaves_per_plane * d.up_per_leaf // radix == radix // 2
        assert d.bundle == 1
        with pytest.raises(ValueError, match="third tier"):
            plan_domain(n + radix, radix, 1, taper=1.0)


@pytest.mark.parametrize("n,radix,links,taper,gen", [
    (16, 8, 2, 1.0, 4), (24, 8, 3, 2.0, 5), (32, 16, 2, 3.0, 4), (72, 72, 18, 1.0, 5),
    (64, 16, 1, 1.0, 4)])
def test_plan_counts_match_the_built_fabric(n, radix, links, taper, gen):
    d = plan_domain(n, radix, links, taper, gen)
    t = d.build()
    assert t.n_gpus == n and switch_chips(t) == d.switch_chips and cables(t) == d.cables
    # no chip uses more ports than it has
    src, dst, cnt = (np.asarray(a) for a in (t.link_src, t.link_dst, t.link_count))
    for s in np.flatnonzero(np.asarray(t.node_kind) == NODE_NVSWITCH):
        assert cnt[src == s].sum() <= radix
    # closed-form bisection = max-flow bisection
    assert math.isclose(bisection_bw_bidir(t), d.bisection_bw_bidir, rel_tol=1e-9)


def test_plan_two_to_one_reproduces_nvidia_57_6():
    d = plan_domain(256, 64, 18, taper=2.0)
    assert math.isclose(d.bisection_bw_bidir,
                        specs.system("nvlink_switch_system").all_to_all_bw)
    assert math.isclose(bisection_bw_bidir(nvlink_pod(32)), d.bisection_bw_bidir)


def test_cheapest_design_by_brute_force():
    n, radix, links, target = 128, 16, 2, 2.0e12
    best = cheapest_design(n, radix, links, target)
    # brute force over every (g, u): g | n, g + u <= radix, spines with even bundles
    chips = []
    for g in range(2, radix):
        if n % g:
            continue
        lp = n // g
        for u in range(1, radix - g + 1):
            ks = [k for k in range(1, u + 1) if u % k == 0 and lp * k <= radix]
            if not ks:
                continue
            bis = n * links * 25e9 * min(1.0, u / g)
            if bis >= target:
                chips.append(links * (lp + u // max(ks)))
    assert best.switch_chips == min(chips)
    assert best.bisection_bw_bidir >= target
    assert all(p.switch_chips >= best.switch_chips for p in design_space(n, radix, links)
               if p.bisection_bw_bidir >= target)


def test_plan_rejects_bad_input():
    with pytest.raises(ValueError, match="taper"):
        plan_domain(64, 16, 2, taper=0.5)
    with pytest.raises(ValueError, match="n_gpus"):
        plan_domain(1, 16, 2)
    with pytest.raises(ValueError):
        plan_domain(8, 16, 2, nvlink_generation=9)


def test_step_on_nvl72_and_fabric_gpu():
    m = preset("gpt_39b")
    st = step_time(m, Layout(tp=8, pp=2, dp=4), "gb200_nvl72")
    b, h = specs.gpu("b200"), specs.gpu("h100")
    pod = step_time(m, Layout(tp=8, pp=2, dp=4), "nvlink_pod")
    assert math.isclose(st.compute * b.bf16_dense_flops, pod.compute * h.bf16_dense_flops)
    assert step_time(m, Layout(8, 2, 4), "gb200_nvl72", gpu="h100").compute == pod.compute
    with pytest.raises(ValueError, match="72 GPUs"):
        step_time(m, Layout(tp=8, pp=4, dp=4), "gb200_nvl72")
    rows = step_comparison(layouts=((8, 2, 4),))
    assert {r.key for r in rows} == {"nvlink_pod", "dgx_gh200", "gb200_nvl72"}


def test_claims_verdicts_and_no_exercise_answer():
    claims = nextgen_claims()
    assert [c.verdict for c in claims] == ["right", "right with caveat", "wrong",
                                          "right with caveat"]
    answer = plan_domain(576, 72, 18, 1.0, 5).switch_chips
    assert all(str(answer) not in c.computed + c.reason for c in claims)
