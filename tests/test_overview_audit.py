"""The article audit: quotes are verbatim, verdicts are computed and stable."""

from pathlib import Path

import pytest

from nvlearn import specs
from nvlearn.overview.audit import (
    ARTICLE_LANE_RATE_BITS,
    VERDICTS,
    Claim,
    article_claims,
    verdict_counts,
)
from nvlearn.serdes.chain import nvlink_chain
from nvlearn.units import format_rate

ARTICLE = (Path(__file__).resolve().parents[1] / "data" / "article.txt").read_text()


def test_every_quote_is_in_the_article():
    for claim in article_claims():
        for piece in claim.quote.split("..."):
            assert piece.strip() in ARTICLE, piece


def test_every_verdict_is_known_and_each_kind_is_used():
    counts = verdict_counts(article_claims())
    assert set(counts) == set(VERDICTS) and all(v > 0 for v in counts.values())


def claim_with(text):
    return next(c for c in article_claims() if text in c.quote)


def test_key_verdicts_follow_from_the_catalogue():
    nv4 = specs.nvlink(4)
    pod = specs.system("nvlink_switch_system")
    assert claim_with("900 GB/s of bidirectional").verdict == "right"
    assert nv4.gpu_bw_bidir == pytest.approx(900e9)
    assert claim_with("non-blocking").verdict == "wrong"
    assert pod.taper == 2.0
    assert nv4.lane_rate_raw * 8 == pytest.approx(106.25e9)
    assert claim_with("by 50%").verdict == "right with caveat"
    assert "36%" in claim_with("by 50%").computed  # 1 - 9/14 at 8 GPUs


def test_112g_rows_say_what_notebook_02_says():
    """The class name is fair, the per-lane figure is wrong; numbers from the serdes chain."""
    lane = nvlink_chain(4)
    name, per_lane = claim_with("112G SerDes"), claim_with("112Gbps per lane")
    assert name is not per_lane
    assert name.verdict == "right with caveat" and "class" in name.reason
    assert per_lane.verdict == "wrong" and per_lane.reason.startswith("Only the per-lane figure")
    # NVLink 4's lane sits below the article's 112 Gb/s both raw and as payload ...
    assert lane.lane_payload_rate < lane.raw_lane_rate < ARTICLE_LANE_RATE_BITS / 8
    for rate in (lane.raw_lane_rate, lane.lane_payload_rate):
        assert format_rate(rate, bits=True, digits=5) in per_lane.computed
    # ... and 112 Gb/s is a 56 GBd PAM4 line rate (2 bits per symbol), not NVLink 4's baud
    assert f"{ARTICLE_LANE_RATE_BITS / 2 / 1e9:g} GBd PAM4" in name.computed
    assert f"{lane.symbol_rate / 1e9:g} GBd PAM4" in name.computed


def test_bad_verdict_rejected():
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("q", "c", "maybe", "r")
