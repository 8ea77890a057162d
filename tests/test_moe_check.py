"""Notebook-05 self-checks: right for the package's own answer, "not yet" with a hint aimed at
the slip otherwise, never the answer; every reference held to its physical bound; the written
questions' model answers quote numbers the package computes."""

from __future__ import annotations

import json
import re
from math import comb
from pathlib import Path

import numpy as np
import pytest

from nvlearn import specs
from nvlearn.check import nb05
from nvlearn.check.core import recording_references
from nvlearn.moe import dedup_rows, dispatch_rows, padded_rows, route, simulate_moe, traffic_matrix
from nvlearn.sim.models import injection_bw_per_dir
from nvlearn.topology import LINK_KIND_KEYS, dgx_h100, ib_cluster

ROOT = Path(__file__).resolve().parent.parent
AID = "05_moe_all_to_all"
NIC = specs.nic(specs.system("dgx_h100").nic).port_bw_per_dir        # bytes/s per direction
WIRE_GPU = specs.nvlink(4).gpu_bw_per_dir                             # 450 GB/s per direction


def _reference(check) -> float:
    """The reference the check compares with (in the check's own unit)."""
    with recording_references() as refs:
        check(None)
    (value, _), = refs
    return value


def _by_hand():
    """Each closed-form exercise worked by hand, in the unit its check asks for."""
    compute = 4096 * (8 + 1) * 3 * 2 * 7168 * 2048 / specs.gpu("h100").bf16_dense_flops
    return {
        nb05.capacity_slots: int(np.ceil(6 * 3000 / 160 * 1.1)),
        nb05.mixtral_dispatch_mib: 8192 * 2 * 4096 * 2 * 7 / 8 / 2**20,
        nb05.dedup_rows_per_token: 7 * (1 - comb(224, 8) / comb(256, 8)),
        nb05.needed_node_bw_gbs: 4096 * 8 * 7168 * 7 / 8 * 3 / compute / 1e9,
    }


@pytest.mark.parametrize("checker", list(_by_hand()), ids=lambda f: f.__name__)
def test_closed_form_checks_accept_the_hand_answer_only(checker):
    ref = _by_hand()[checker]
    assert _reference(checker) == pytest.approx(ref, rel=1e-12)
    assert checker(ref).ok
    wrong = checker(ref * 2)
    assert not wrong.ok and str(wrong).startswith("not yet")
    for shown in (f"{ref:g}", f"{ref:.1f}", f"{ref:.0f}"):
        assert shown not in str(wrong)                   # the hint never gives it away


def test_capacity_slips():
    assert "round up" in str(nb05.capacity_slots(123))             # floor instead of ceil
    assert "k slots" in str(nb05.capacity_slots(21))               # top-1's capacity
    assert "capacity factor" in str(nb05.capacity_slots(113))      # the factor forgotten
    assert nb05.capacity_slots("124").ok


def test_mixtral_slips_and_units():
    mib = _by_hand()[nb05.mixtral_dispatch_mib]
    assert nb05.mixtral_dispatch_mib(f"{mib * 2**20 / 1e6} MB").ok          # MB is converted
    assert "MiB" in str(nb05.mixtral_dispatch_mib(mib * 2**20 / 1e6))       # MB read as MiB
    assert "(p-1)/p" in str(nb05.mixtral_dispatch_mib(mib * 8 / 7))         # own GPU counted
    assert "BF16" in str(nb05.mixtral_dispatch_mib(mib / 2))
    assert "factor 8" in str(nb05.mixtral_dispatch_mib(mib * 8))            # bits
    assert not nb05.mixtral_dispatch_mib("1 ms").ok                         # not a size


def test_dedup_slips():
    ref = _by_hand()[nb05.dedup_rows_per_token]
    assert "without replacement" in str(nb05.dedup_rows_per_token(7 * (1 - (7 / 8) ** 8)))
    assert "own node" in str(nb05.dedup_rows_per_token(ref * 8 / 7))
    assert "flat" in str(nb05.dedup_rows_per_token(7.0))


def test_dedup_reference_is_what_the_router_sends():
    stage1, _ = dedup_rows(route(64, 4096, 256, 8, seed=0))
    ref = _by_hand()[nb05.dedup_rows_per_token]
    assert stage1.sum() / (64 * 4096) == pytest.approx(ref, rel=3e-3)
    assert ref < 7 * 8 / 8                          # fewer than the flat all-to-all's 7 rows


def test_needed_bandwidth_slips_and_bounds():
    ref = _by_hand()[nb05.needed_node_bw_gbs]
    assert NIC < ref * 1e9 < WIRE_GPU               # more than a NIC, less than NVLink
    assert "both directions" in str(nb05.needed_node_bw_gbs(2 * ref))
    assert "factor 8" in str(nb05.needed_node_bw_gbs(8 * ref))                 # Gb/s
    assert "GiB" in str(nb05.needed_node_bw_gbs(ref * 1e9 / 2**30))
    assert "own node" in str(nb05.needed_node_bw_gbs(ref * 63 / 64 * 8 / 7))   # in-node rows
    assert "dispatch alone" in str(nb05.needed_node_bw_gbs(ref / 3))
    assert nb05.needed_node_bw_gbs(f"{ref * 8} Gb/s").ok


def test_uniform_drops_match_the_binomial_overflow():
    """A uniform top-2 router: each (GPU, expert) pair's load is Binomial(1024, 2/64); the
    expected share dropped at capacity 32 is E[(X - 32)+] / 32."""
    n, p, cap = 1024, 2 / 64, 32
    pmf = [comb(n, x) * p**x * (1 - p) ** (n - x) for x in range(n + 1)]
    expected = sum((x - cap) * q for x, q in enumerate(pmf) if x > cap) / (n * p)
    ref = _reference_with_answer(nb05.uniform_drop_fraction)
    assert ref == pytest.approx(expected, rel=0.1)          # 1,024 pairs sampled
    section4 = route(256, 4096, 256, 8, capacity_factor=1.0, seed=0).drop_fraction
    assert ref > 1.5 * section4                    # the effect exercise 3 asks about
    assert nb05.uniform_drop_fraction(ref) and nb05.uniform_drop_fraction(f"{ref * 100} %")
    assert "kept" in str(nb05.uniform_drop_fraction(1 - ref))
    assert "percentage" in str(nb05.uniform_drop_fraction(ref * 100))


def _reference_with_answer(check) -> float:
    with recording_references() as refs:
        check(0.0)
    (value, _), = refs
    return value


def test_busiest_gpu_bound_is_a_lower_bound_of_the_simulation():
    r = route(8, 2048, 64, 4, skew=1.2, seed=1)
    c = simulate_moe(dgx_h100(), r, 4096)
    bound = c.endpoint_bound(injection_bw_per_dir(dgx_h100()))
    ref = _reference_with_answer(nb05.busiest_gpu_bound_us)
    assert ref == pytest.approx(bound * 1e6, rel=1e-9)
    assert bound <= c.time < 1.1 * bound          # the busiest GPU sets it, within 10 %
    m = traffic_matrix(r, 4096, 2.0)
    mean = 2 * (m.sum(axis=1) - np.diag(m)).mean() / injection_bw_per_dir(dgx_h100())[0]
    assert c.time > 1.5 * mean                    # the average GPU's bound is far below
    assert nb05.busiest_gpu_bound_us(f"{ref / 1e3} ms").ok
    nccl = injection_bw_per_dir(dgx_h100())[0]
    assert "wire" in str(nb05.busiest_gpu_bound_us(ref * nccl / WIRE_GPU))
    assert "both directions" in str(nb05.busiest_gpu_bound_us(ref * nccl / (2 * WIRE_GPU)))
    assert "dispatch alone" in str(nb05.busiest_gpu_bound_us(ref / 2))
    assert "average" in str(nb05.busiest_gpu_bound_us(mean * 1e6))


def test_wire_limiting_link_is_the_nic_and_at_nccls_rates_the_pcie_link():
    ib = ib_cluster(2)
    r = route(16, 1024, 64, 2, skew=1.0, seed=0)
    wire = simulate_moe(ib, r, 4096, model="wire")
    kind = wire.limiting_link_kind()
    assert kind == "infiniband" and simulate_moe(ib, r, 4096).limiting_link_kind() == "pcie"
    # the premise: at wire rate the PCIe Gen5 x16 link is faster than the NIC's port
    gpu8 = ib.gpus[8]
    pcie = ib.link_capacity[(ib.link_src == gpu8) & (ib.link_kind == LINK_KIND_KEYS.index("pcie"))]
    assert pcie.size and pcie.min() > NIC
    assert nb05.wire_limiting_link_kind(kind.upper()).ok
    assert not nb05.wire_limiting_link_kind("pcie").ok
    assert "choose one of" in str(nb05.wire_limiting_link_kind("copper"))


def test_explorer_ratio_is_the_explorers_own():
    from nvlearn.widgets.moe import MoEExplorer, moe_run

    label = "NVLink pod, 2 nodes (16 GPUs)"
    flat, dedup = (moe_run(label, 64, 2, 0.5, 0.0, 1024, 4096, m) for m in ("flat", "dedup"))
    ref = dedup.time / flat.time
    assert ref > 1.1 and dedup.inter_node_bytes < flat.inter_node_bytes   # saves bytes, costs time
    assert nb05.pod_dedup_over_flat(ref) and not nb05.pod_dedup_over_flat(1.0)
    assert "upside down" in str(nb05.pod_dedup_over_flat(1 / ref))
    ex = MoEExplorer()
    ex.set(fabric=label, experts=64, top_k=2, skew=0.5, capacity=0.0, tokens=1024,
           hidden=4096, routing="dedup")
    assert f"= {dedup.time * 1e6:.0f} us" in ex.text                        # readable there


def test_send_rows_check():
    def mine(dest, kept, g):
        return np.stack([np.bincount(dest[s][kept[s]], minlength=g) for s in range(g)])

    assert nb05.send_rows_function(mine).ok
    assert "transposed" in str(nb05.send_rows_function(lambda d, k, g: mine(d, k, g).T))
    assert "dropped" in str(nb05.send_rows_function(lambda d, k, g: mine(d, np.ones_like(k), g)))
    assert "diagonal" in str(nb05.send_rows_function(
        lambda d, k, g: mine(d, k, g) * (1 - np.eye(g, dtype=int))))
    assert "returns None" in str(nb05.send_rows_function(lambda d, k, g: None))
    assert "raised" in str(nb05.send_rows_function(lambda d, k, g: 1 / 0))
    assert "shape" in str(nb05.send_rows_function(lambda d, k, g: np.zeros((2, 2))))
    assert "function itself" in str(nb05.send_rows_function(None))
    r = route(4, 100, 8, 2, seed=0)
    assert np.array_equal(mine(r.dest_gpu, r.kept, 4), dispatch_rows(r))


def test_blank_answers_route_and_simulate_nothing(monkeypatch):
    import nvlearn.moe as moe
    import nvlearn.widgets.moe as widget

    def refuse(*args, **kwargs):
        raise AssertionError("a blank answer must not route or simulate")

    for module in (moe, widget):
        for name in ("route", "simulate_moe", "traffic_matrix", "moe_run"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, refuse)
    for check in (nb05.uniform_drop_fraction, nb05.busiest_gpu_bound_us,
                  nb05.wire_limiting_link_kind, nb05.pod_dedup_over_flat):
        assert not check(None) and "set answer" in check(None).message


def _source_cells():
    path = ROOT / "instructor" / "source" / AID / f"{AID}.ipynb"
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _written(grade_id: str) -> str:
    (cell,) = [c for c in _source_cells()
               if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    return " ".join("".join(cell["source"]).split())


def _checked_output(first_line: str) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{AID}.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in nb["cells"] if c["cell_type"] == "code"
               and "".join(c["source"]).startswith(first_line)]
    return "".join("".join(o.get("text", "")) for o in cell["outputs"])


def test_written_model_answers_quote_the_packages_numbers():
    ex3 = _written("ex3")
    drops = _reference_with_answer(nb05.uniform_drop_fraction)
    section4 = re.search(r"drops ([\d.]+)% of a balanced router",
                         _checked_output("# NBVAL_CHECK_OUTPUT\nfor label, c in fabric_runs"))
    assert f"({drops * 100:.1f} % of the assignments dropped against {section4.group(1)} %)" in ex3
    assert f"1/√32 ≈ {100 / 32**0.5:.0f} %" in ex3 and f"1/√128 ≈ {100 / 128**0.5:.0f} %" in ex3
    wider = route(16, 1024, 64, 2, skew=0.0, capacity_factor=1.25, seed=0)
    larger = route(16, 4096, 64, 2, skew=0.0, capacity_factor=1.0, seed=0)
    per_token = [padded_rows(r).sum() / (r.n_gpus * r.tokens_per_gpu) for r in (wider, larger)]
    assert per_token == [2.5, 2.0]
    assert f"drops only {wider.drop_fraction * 100:.1f} %" in ex3
    assert f"drop {larger.drop_fraction * 100:.1f} %" in ex3
    assert wider.drop_fraction < larger.drop_fraction < drops          # as the answer says

    ex11 = _written("ex11")
    need = _by_hand()[nb05.needed_node_bw_gbs] * 1e9
    assert f"about {need / 1e9:.0f} GB/s" in ex11
    assert f"{need / NIC:.1f} × one 400 Gb/s NIC ({NIC / 1e9:.0f} GB/s)" in ex11
    assert f"only {100 * need / WIRE_GPU:.0f} %" in ex11
    assert round(need / (2 * WIRE_GPU), 1) == 0.2                       # "a fifth"
    printed = _checked_output('# NBVAL_CHECK_OUTPUT\nprint(f"NVLink 4')
    ratios = dict(re.findall(r"InfiniBand, 64 GPUs \(EP 64\), (flat|M = 4, dedup)\s+all-to-all"
                             r"\s+\S+ \S+ =\s+([\d.]+) x", printed))
    flat, dedup = ratios["flat"], ratios["M = 4, dedup"]
    assert f"{flat} × the compute" in ex11 and f"{dedup} × the compute at peak" in ex11
    stage1, _ = dedup_rows(route(64, 4096, 256, 8, max_nodes=4, seed=0))
    assert f"about {stage1.sum() / (64 * 4096):.1f} instead of 7" in ex11


def test_rubric_md_carries_the_written_answers():
    rubric = " ".join((ROOT / "instructor" / "rubric.md").read_text(encoding="utf-8").split())
    for grade_id in ("ex3", "ex11"):
        text = _written(grade_id).replace("### BEGIN SOLUTION", "").replace(
            "### END SOLUTION", "").strip()
        assert text in rubric, grade_id
