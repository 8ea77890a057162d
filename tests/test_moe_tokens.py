"""Token rows on the data plane: every kept token reaches its expert's GPU and comes back."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn.moe import (
    Routing,
    alltoall_rows,
    dispatch_rows,
    dispatch_tokens,
    gate,
    gpu_dedup_rows,
    moe_round_trip,
    route,
    stage_rows,
)

G, T, H = 16, 32, 6


def tagged_tokens(seed: int = 1) -> np.ndarray:
    """Token vectors whose first two numbers say where they came from (GPU, token)."""
    x = np.random.default_rng(seed).normal(size=(G, T, H))
    x[:, :, 0] = np.arange(G)[:, None]
    x[:, :, 1] = np.arange(T)[None, :]
    return x


def expert_fn(expert, rows):
    """A different affine map per expert, so a row at the wrong expert gives a wrong sum."""
    e = expert[:, None].astype(float)
    return rows * (e + 1.0) + e


def reference(routing, x):
    y = np.zeros_like(x)
    for s, t, j in zip(*np.nonzero(routing.kept), strict=True):
        e = routing.expert[s, t, j]
        y[s, t] += routing.weight[s, t, j] * (x[s, t] * (e + 1.0) + e)
    return y


CASES = [
    ("flat", None, None),
    ("flat", 1.0, None),
    ("dedup", None, 1),
    ("dedup", 0.75, 2),
    ("gpu_dedup", None, None),
    ("gpu_dedup", 0.75, None),
    ("gpu_dedup", None, 1),
]


@pytest.mark.parametrize("mode, cf, m", CASES)
def test_every_kept_token_reaches_its_expert(mode, cf, m):
    r = route(G, T, 32, 4, skew=0.8, capacity_factor=cf, max_nodes=m, seed=3)
    x = tagged_tokens()
    batches = dispatch_tokens(r, x, mode)
    rows = dispatch_rows(r)
    moved = stage_rows(r, mode)["dispatch"][-1]  # the rows the last timed all-to-all moves
    seen = set()
    for d, b in enumerate(batches):
        assert b.rows.shape[0] == rows[:, d].sum()  # one row per kept (token, expert)
        assert b.n_received == moved[:, d].sum()  # what is timed is what moved
        assert np.all(b.expert // r.experts_per_gpu == d)  # on its expert's GPU
        # the numbers that arrived are the token's own (its tag, and all of its row)
        assert np.array_equal(b.rows[:, 0], b.src_gpu) and np.array_equal(b.rows[:, 1], b.token)
        assert np.array_equal(b.rows, x[b.src_gpu, b.token])
        assert np.all(r.expert[b.src_gpu, b.token, b.slot] == b.expert)
        seen |= set(zip(b.src_gpu.tolist(), b.token.tolist(), b.slot.tolist(), strict=True))
    kept = set(zip(*(a.tolist() for a in np.nonzero(r.kept)), strict=True))
    assert seen == kept  # every kept assignment exactly once, no dropped one


@pytest.mark.parametrize("mode, cf, m", CASES)
def test_outputs_return_to_their_place(mode, cf, m):
    r = route(G, T, 32, 4, skew=0.8, capacity_factor=cf, max_nodes=m, seed=3)
    x = tagged_tokens()
    y, _ = moe_round_trip(r, x, expert_fn, mode)
    assert np.allclose(y, reference(r, x), rtol=1e-12, atol=1e-12)
    if cf is not None:
        gone = ~r.kept.any(axis=2)
        assert np.all(y[gone] == 0.0)  # fully dropped tokens: only the residual carries them


def test_dedup_and_flat_agree():
    r = route(G, T, 32, 4, skew=0.3, max_nodes=2, seed=7)
    x = tagged_tokens(2)
    y_flat, _ = moe_round_trip(r, x, expert_fn, "flat")
    y_dedup, _ = moe_round_trip(r, x, expert_fn, "dedup")
    assert np.allclose(y_flat, y_dedup, rtol=1e-12)


def test_gpu_dedup_and_flat_agree():
    r = route(G, T, 32, 4, skew=0.3, seed=7)
    x = tagged_tokens(2)
    y_flat, _ = moe_round_trip(r, x, expert_fn, "flat")
    y_gpu, _ = moe_round_trip(r, x, expert_fn, "gpu_dedup")
    assert np.allclose(y_flat, y_gpu, rtol=1e-12, atol=1e-12)


def experts_on_one_gpu(p: int, tokens: int, k: int, experts_per_gpu: int) -> Routing:
    """Token t of every GPU picks k experts, all on GPU t mod p (crafted one-hot scores)."""
    scores = np.zeros((p, tokens, p * experts_per_gpu), dtype=np.float32)
    for t in range(tokens):
        first = (t % p) * experts_per_gpu
        scores[:, t, first:first + k] = 10.0 - np.arange(k)
    return gate(scores, k, gpus_per_node=p)


def test_gpu_dedup_sends_each_token_once_per_gpu_through_the_data_plane():
    k = 3
    r = experts_on_one_gpu(8, 24, k, 4)
    x = np.random.default_rng(5).normal(size=(8, 24, 5))
    batches = dispatch_tokens(r, x, "gpu_dedup")
    for d, b in enumerate(batches):
        assert b.rows.shape[0] == k * b.n_received  # each arrived row feeds k experts
        assert b.n_received == gpu_dedup_rows(r)[:, d].sum() == 8 * 24 // 8
        assert np.array_equal(b.rows, x[b.src_gpu, b.token])
        assert np.all(b.expert // r.experts_per_gpu == d)
    y, _ = moe_round_trip(r, x, expert_fn, "gpu_dedup")
    assert np.allclose(y, reference(r, x), rtol=1e-12, atol=1e-12)


def test_alltoall_rows_moves_blocks():
    rows = np.array([[0, 2, 1], [1, 0, 0], [0, 0, 1]])
    send = [np.array([[1.0], [2.0], [3.0]]), np.array([[4.0]]), np.array([[5.0]])]
    recv = alltoall_rows(rows, send)
    assert [a.ravel().tolist() for a in recv] == [[4.0], [1.0, 2.0], [3.0, 5.0]]


def test_bad_input():
    r = route(G, T, 32, 2)
    with pytest.raises(ValueError, match="x must have shape"):
        dispatch_tokens(r, np.zeros((G, T)))
    with pytest.raises(ValueError, match="'flat', 'dedup' or 'gpu_dedup'"):
        dispatch_tokens(r, tagged_tokens(), mode="padded")
    with pytest.raises(ValueError, match="one row per input row"):
        moe_round_trip(r, tagged_tokens(), lambda e, rows: rows[:1])
    with pytest.raises(ValueError, match=r"send\[0\] must have shape"):
        alltoall_rows([[1, 1], [0, 1]], [np.zeros((1, 2)), np.zeros((1, 2))])
