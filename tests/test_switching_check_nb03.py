"""Notebook 03's self-checks accept the computed answers and reject the classic slips."""

from nvlearn.check import nb03


def test_incast_time_ms():
    assert nb03.incast_time_ms(608.45).ok           # 255 x 1 GiB / 450 GB/s
    assert not nb03.incast_time_ms(304.2).ok        # 900 GB/s: both directions added
    assert not nb03.incast_time_ms(567).ok          # 1 GB, not 1 GiB


def test_colliding_pod_flows_gbs():
    assert nb03.colliding_pod_flows_gbs(6.25).ok    # 2 NVLinks to one L2 chip, 8 flows
    assert nb03.colliding_pod_flows_gbs("50 Gb/s").ok
    assert not nb03.colliding_pod_flows_gbs(50).ok  # one flow alone on the path
    assert not nb03.colliding_pod_flows_gbs(15.6).ok  # the first hop, not the narrowest


def test_expected_idle_uplinks():
    assert nb03.expected_idle_uplinks(6.97).ok      # 32 (31/32)^48
    assert not nb03.expected_idle_uplinks(11.6).ok  # 32 flows, the case section 3 prints
    assert not nb03.expected_idle_uplinks(0).ok     # "more flows than uplinks: none idle"


def test_tapered_bisection():
    assert nb03.tapered_bisection_tbs(14.4).ok      # 8 nodes x 20 uplinks... at 4:1, both ways
    assert nb03.tapered_bisection_tbs("14.4 TB/s").ok
    assert not nb03.tapered_bisection_tbs(28.8).ok  # the 2:1 pod of 16 nodes
    assert not nb03.tapered_bisection_tbs(7.2).ok   # one direction


def test_a2a_advantage_is_the_explorers_ratio():
    ratio = nb03.a2a_pod_vs_ib()
    assert 1 < ratio < 2                            # 450/8 GB/s per GPU vs a 50 GB/s NIC
    assert nb03.a2a_advantage(ratio).ok and not nb03.a2a_advantage(1 / ratio).ok


def test_l2_switches_at_taper():
    assert nb03.l2_switches_at_taper(14).ok         # 144 / 2.5 -> 14 whole cables of 4
    assert not nb03.l2_switches_at_taper(14.4).ok   # cables come whole
    assert not nb03.l2_switches_at_taper(18).ok


def test_max_gpus_with_more_cages():
    assert nb03.max_gpus_with_more_cages(384).ok    # 48 nodes x 8 GPUs
    assert not nb03.max_gpus_with_more_cages(48).ok  # nodes, not GPUs
    assert not nb03.max_gpus_with_more_cages(256).ok


def test_hints_do_not_give_the_answer():
    for check, wrong in [(nb03.incast_time_ms, 1), (nb03.colliding_pod_flows_gbs, 1),
                         (nb03.expected_idle_uplinks, 1), (nb03.tapered_bisection_tbs, 1),
                         (nb03.l2_switches_at_taper, 1), (nb03.max_gpus_with_more_cages, 1)]:
        message = check(wrong).message
        for answer in ("608", "6.25", "6.97", "14.4", "14", "384"):
            assert answer not in message
