"""Notebook 03's self-checks accept the computed answers and reject the classic slips."""

from nvlearn.check import nb03


def test_incast_time_ms():
    assert nb03.incast_time_ms(36.27).ok            # 255 x 64 MB / 450 GB/s
    assert not nb03.incast_time_ms(18.13).ok        # 900 GB/s: both directions added


def test_static_pod_flow_gbs():
    assert nb03.static_pod_flow_gbs(50).ok          # 2 NVLinks to one L2 chip
    assert nb03.static_pod_flow_gbs("400 Gb/s").ok
    assert not nb03.static_pod_flow_gbs(125).ok     # the first hop, not the narrowest


def test_expected_idle_uplinks():
    assert nb03.expected_idle_uplinks(11.6).ok      # 32 (31/32)^32
    assert not nb03.expected_idle_uplinks(0).ok     # "one flow per uplink"


def test_ndr_bisection_ratio():
    assert nb03.ndr_bisection_ratio(4.5).ok
    assert not nb03.ndr_bisection_ratio(9).ok       # that is the HDR comparison


def test_l2_switches_at_taper():
    assert nb03.l2_switches_at_taper(24).ok
    assert not nb03.l2_switches_at_taper(18).ok


def test_why_256():
    assert nb03.why_256("ports").ok
    assert not nb03.why_256("reach").ok
    assert "choose one of" in nb03.why_256("magic").message


def test_fifo_switch_throughput():
    assert nb03.fifo_switch_throughput(0.586).ok
    assert not nb03.fifo_switch_throughput(1.0).ok


def test_hints_do_not_give_the_answer():
    for check, wrong in [(nb03.incast_time_ms, 1), (nb03.static_pod_flow_gbs, 1),
                         (nb03.expected_idle_uplinks, 1), (nb03.ndr_bisection_ratio, 1),
                         (nb03.l2_switches_at_taper, 1), (nb03.fifo_switch_throughput, 0.1)]:
        message = check(wrong).message
        for answer in ("36.3", "36.27", "50 GB", "11.6", "4.5", "24", "0.586"):
            assert answer not in message
