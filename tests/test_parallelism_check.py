"""Notebook 07's self-checks: the reference is right, the usual slips are not, no leak."""

from __future__ import annotations

from nvlearn.check import nb07
from nvlearn.parallelism import Layout, bytes_by_strategy, preset, step_comms, step_time


def test_tp_gb_per_gpu():
    m = preset("gpt_146b")
    mb = m.global_batch // 4
    calls = 4 * (m.layers // 8) * mb * 2                 # RS + AG with SP
    ref = calls * 7 / 8 * m.micro_batch * m.seq * m.hidden * 2 / 1e9
    assert nb07.tp_gb_per_gpu(ref)
    assert not nb07.tp_gb_per_gpu(ref / 2)               # forgot SP's second collective
    assert str(round(ref)) not in nb07.tp_gb_per_gpu(ref / 2).message


def test_zero3_ratio():
    m = preset("gpt_76b")
    mb = m.global_batch // 8
    assert nb07.zero3_ratio((1 + 2 * mb) / 2)
    assert not nb07.zero3_ratio(1.5)


def test_min_micro_batches_brute_force():
    best = next(m for m in range(1, 10_000) if 5 * 100 <= 4 * (m + 5))
    assert nb07.min_micro_batches(best)
    assert not nb07.min_micro_batches(best - 1)


def test_pod_gain_strategy():
    m, lay = preset("moe_8x39b"), Layout(8, 4, 8, ep=4)
    pod = step_time(m, lay, "nvlink_pod").comm_by_strategy
    ib = step_time(m, lay, "ib_cluster").comm_by_strategy
    ref = max(pod, key=lambda s: abs(ib[s] - pod[s]))
    assert nb07.pod_gain_strategy(ref)
    assert not nb07.pod_gain_strategy("tp")
    assert "choose one of" in nb07.pod_gain_strategy("zero").message


def test_design_layout():
    assert not nb07.design_layout(nb07.DESIGN_BASELINE)           # fits, not faster
    assert "does not fit" in nb07.design_layout(Layout(8, 1, 32)).message
    assert "256" in nb07.design_layout(Layout(8, 8, 2)).message
    assert not nb07.design_layout("TP2 x PP4")
    # some layout passes: the reference is reachable
    good = [lay for lay in (Layout(2, 4, 32, zero=1), Layout(2, 8, 16, zero=1))
            if nb07.design_layout(lay)]
    assert good
    bytes_by_strategy(step_comms(preset("gpt_146b"), good[0]))   # a real, whole layout


def test_states_gb_per_gpu_from_the_16_byte_rule():
    from nvlearn.parallelism import memory_per_gpu

    lay = Layout(8, 8, 4, zero=1)
    psi = memory_per_gpu(preset("gpt_146b"), lay).params_per_gpu
    ref = psi * (2 + 2 + 12 / 4) / 1e9                   # ZeRO-1 shards Adam's 12 bytes
    assert ref * 1e9 < memory_per_gpu(preset("gpt_146b"), lay).capacity
    assert nb07.states_gb_per_gpu(f"{ref:.4g} GB")
    assert not nb07.states_gb_per_gpu(psi * 16 / 1e9)    # ZeRO-1 forgotten
    assert "GiB" in nb07.states_gb_per_gpu(ref * 1e9 / 2**30).message   # GiB for GB


def test_span_speedup_and_its_bounds():
    m = preset("gpt_39b").with_(global_batch=16)
    pod, ib = (step_time(m, Layout(16, 1, 16), f) for f in ("nvlink_pod", "ib_cluster"))
    assert pod.total >= pod.compute and ib.total >= ib.compute
    ratio = ib.total / pod.total
    assert ratio > 1.1                                   # the effect is far above the tolerance
    assert nb07.span_speedup(ratio) and nb07.span_speedup(f"{ratio:.3g}")
    assert not nb07.span_speedup(1 / ratio)
    assert "set answer" in nb07.span_speedup(None).message
