"""Notebook 08's self-checks, explorer and figures."""

import math

import pytest

from nvlearn import specs
from nvlearn.check import nb08
from nvlearn.nextgen import cheapest_design, compare_generations, plan_domain
from nvlearn.nextgen.compare import compare_row
from nvlearn.plots.nextgen import draw_domain, draw_fabric_comparison, draw_generation_chain
from nvlearn.widgets.nextgen import DomainExplorer, render_domain


def test_hypothetical_gpu_check_accepts_the_chain_and_catches_direction():
    # independent: 36 links x 50 GB/s per direction x 2 directions
    ref = 36 * 50e9 * 2 / 1e12
    assert nb08.hypothetical_gpu_bidir(ref)
    assert not nb08.hypothetical_gpu_bidir(ref / 2)
    assert "half" in nb08.hypothetical_gpu_bidir(ref / 2).message


def test_cheapest_domain_check():
    best = cheapest_design(128, 64, 18, 40e12)
    assert nb08.cheapest_domain(best)
    assert not nb08.cheapest_domain(plan_domain(128, 64, 18, 4.0))     # misses the target
    assert not nb08.cheapest_domain(plan_domain(128, 64, 18, 1.0))     # more cables
    assert not nb08.cheapest_domain(plan_domain(256, 64, 18, 1.0))     # wrong GPUs
    assert not nb08.cheapest_domain(108)


def test_576_domain_check_against_hand_count():
    # non-blocking two-tier of 72-port chips: 36 GPUs and 36 up per leaf; 576 / 36 = 16
    # leaves per plane; spines per plane = 16 x 36 / 72 = 8 if bundles are even; 18 planes
    d = plan_domain(576, 72, 18, 1.0, 5)
    assert (d.gpus_per_leaf, d.up_per_leaf, d.leaves_per_plane) == (36, 36, 16)
    assert d.leaves_per_plane * d.up_per_leaf <= d.spines_per_plane * 72
    assert nb08.domain_576_chips(d.switch_chips)
    assert not nb08.domain_576_chips(18 * 16)


def test_two_rack_check_against_hand_count():
    # 144 GPUs on 72-port chips, non-blocking: 36 down / 36 up per leaf, 4 leaves per plane,
    # 4 x 36 / 72 = 2 spines per plane (bundles of 18), 18 planes
    d = plan_domain(144, 72, 18, 1.0, 5)
    assert (d.leaves_per_plane, d.spines_per_plane, d.bundle) == (4, 2, 18)
    assert nb08.two_rack_chips(18 * (4 + 2))
    assert not nb08.two_rack_chips(2 * 18)                 # two NVL72s' chips: no spine tier
    assert "ports" in nb08.two_rack_chips(2 * 18).message


def test_blank_answers_run_no_simulation(monkeypatch):
    import nvlearn.nextgen.compare as compare
    import nvlearn.widgets.nextgen as widget

    def refuse(*args, **kwargs):
        raise AssertionError("a blank answer must not simulate")

    monkeypatch.setattr(compare, "compare_row", refuse)
    monkeypatch.setattr(widget, "_simulate", refuse)
    for check in (nb08.pod_ring_step_us, nb08.alltoall_taper_gain):
        assert not check(None) and "set answer" in check(None).message


def test_ring_step_check_and_its_bound():
    row = compare_row("nvlink_pod")
    p = row.n_gpus
    chunk = 2**28 / p                                      # the all-reduce's bytes per step
    step = 2**28 * 2 * (p - 1) / p / row.sim_ring_busbw / (2 * (p - 1))
    assert step >= chunk / specs.nvlink(4).gpu_bw_per_dir  # no faster than the wire
    assert nb08.pod_ring_step_us(f"{step * 1e6:.3g} us")
    assert nb08.pod_ring_step_us(step * 1e6)
    assert not nb08.pod_ring_step_us(step * 1e6 * 2 * (p - 1))   # the whole all-reduce


def test_alltoall_gain_check_and_its_bound():
    from nvlearn.widgets.nextgen import _simulate

    flat, tapered = (_simulate(256, 64, 18, t, 4, "alltoall")[1].busbw for t in (1.0, 2.0))
    assert flat <= specs.nvlink(4).gpu_bw_per_dir          # wire injection bounds busbw
    assert 1.0 < flat / tapered <= 2.0                     # at most the taper
    assert nb08.alltoall_taper_gain(flat / tapered)
    assert not nb08.alltoall_taper_gain(tapered / flat)
    assert not nb08.alltoall_taper_gain(1.0)               # the ring's (no) gain


def test_explorer_default_hides_exercise_answers_and_reports_design():
    ex = DomainExplorer()
    assert "256 GPUs" in ex.text and "taper 2:1" in ex.text and "simulated" in ex.text
    assert ex.figure is not None
    best = cheapest_design(128, 64, 18, 40e12)
    assert f"= {best.switch_chips};" not in ex.text
    ex.set(gpus=72, radix=72, generation=5)
    assert "1 tier" in ex.text and "= 18;" in ex.text


def test_explorer_refuses_a_third_tier():
    fig, text = render_domain(1024, 32, 2, 1.0, 4, "alltoall")
    assert text.startswith("not a valid design") and "third tier" in text


def test_figures_render():
    assert len(draw_generation_chain(compare_generations()).axes) == 1
    assert len(draw_fabric_comparison([compare_row("dgx_h100")]).axes) == 1
    d = plan_domain(64, 16, 2, 2.0)
    assert len(draw_domain(d, {"wire": d.gpu_bw_per_dir}).axes) == 2


def test_compare_row_dgx_matches_published():
    r = compare_row("dgx_h100")
    assert math.isclose(r.bisection_bidir, 4 * 8 * 450e9 / 4 * 2 / 2)   # 3.6 TB/s (HC34)
    assert math.isclose(r.bisection_bidir, 3.6e12)
    assert r.gpu_bw_per_dir == specs.nvlink(4).gpu_bw_per_dir


@pytest.mark.parametrize("key", ["nvlink_pod", "dgx_gh200"])
def test_pod_and_gh200_rows(key):
    r = compare_row(key)
    assert math.isclose(r.bisection_bidir, specs.system("dgx_gh200").all_to_all_bw)
    assert r.switch_chips == 32 * 4 + 36
