"""The article audit: quotes are verbatim, verdicts are computed and stable."""

from pathlib import Path

import pytest

from nvlearn import specs
from nvlearn.audit import VERDICTS, Claim, article_claims, verdict_counts

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
    assert claim_with("112G SerDes").verdict == "wrong"
    assert nv4.lane_rate_raw * 8 == pytest.approx(106.25e9)
    assert claim_with("by 50%").verdict == "right with caveat"
    assert "36%" in claim_with("by 50%").computed  # 1 - 9/14 at 8 GPUs


def test_bad_verdict_rejected():
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("q", "c", "maybe", "r")
