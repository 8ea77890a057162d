"""Data-parallel SGD: the all-reduced gradient equals the large-batch one; bad input."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn.sgd.data import load_digits
from nvlearn.sgd.models import MLP, SoftmaxRegression
from nvlearn.sgd.parallel import allreduce_sum, dp_equivalence, train, worker_gradients


@pytest.fixture(scope="module")
def digits():
    return load_digits()


@pytest.mark.parametrize("model", [SoftmaxRegression(64, 10), MLP(64, 16, 10)])
@pytest.mark.parametrize("n_workers", [2, 3, 8])
def test_dp_gradient_equals_large_batch_float64(digits, model, n_workers):
    eq = dp_equivalence(model, model.init(1), digits.X[:300], digits.y[:300], n_workers)
    assert eq.ranks_agree
    assert eq.rel_diff < 1e-14          # ~1e-15: float64 rounding only
    assert eq.rel_diff_in_eps < 100


@pytest.mark.parametrize("model", [SoftmaxRegression(64, 10), MLP(64, 16, 10)])
def test_dp_gradient_float32_differs_only_at_rounding_level(digits, model):
    eq = dp_equivalence(model, model.init(1), digits.X[:512], digits.y[:512], 8, "float32")
    assert eq.ranks_agree
    assert eq.rel_diff < 1e-5
    assert eq.rel_diff_in_eps < 100


def test_ring_sum_is_order_dependent_in_float32():
    # the same numbers, summed around the ring vs by numpy: equal in float64 up to rounding
    rng = np.random.default_rng(0)
    g = rng.standard_normal((8, 4096)).astype(np.float32) * 1e3
    ring = allreduce_sum(g)[0]
    np.testing.assert_allclose(ring, g.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-2)
    assert not np.array_equal(ring, g.sum(axis=0))   # but not bit-identical


def test_training_single_and_data_parallel_agree(digits):
    m = SoftmaxRegression(64, 10)
    one = train(m, digits, n_workers=1, batch_size=64, lr=0.5, epochs=2, seed=4)
    eight = train(m, digits, n_workers=8, batch_size=64, lr=0.5, epochs=2, seed=4)
    np.testing.assert_allclose(eight.step_loss, one.step_loss, rtol=1e-12)
    np.testing.assert_allclose(eight.w, one.w, rtol=1e-10, atol=1e-13)
    assert one.step_loss[-1] < 0.5 * one.step_loss[0]


def test_unequal_shards_still_equal_large_batch(digits):
    m = SoftmaxRegression(64, 10)
    losses, grads = worker_gradients(m, m.init(0), digits.X[:10], digits.y[:10], 3)  # 4, 3, 3
    _, single = m.loss_and_grad(m.init(0), digits.X[:10], digits.y[:10])
    np.testing.assert_allclose(grads.sum(axis=0) / 10, single, rtol=1e-12, atol=1e-16)


def test_bad_input_messages(digits):
    m = SoftmaxRegression(64, 10)
    small = type(digits)(digits.X[:5], digits.y[:5])
    with pytest.raises(ValueError, match="larger than the number of samples"):
        train(m, small, n_workers=6, batch_size=5)
    with pytest.raises(ValueError, match="larger than the number of samples"):
        dp_equivalence(m, m.init(0), digits.X[:4], digits.y[:4], n_workers=5)
    with pytest.raises(ValueError, match="learning rate must be a positive"):
        train(m, digits, lr=0.0)
    with pytest.raises(ValueError, match="learning rate must be a positive"):
        train(m, digits, lr=-0.1)
    with pytest.raises(ValueError, match="larger than the global batch"):
        train(m, digits, n_workers=16, batch_size=8)
    with pytest.raises(ValueError, match="dtype"):
        train(m, digits, dtype="float16")
    with pytest.raises(ValueError, match="n_workers must be a positive integer"):
        train(m, digits, n_workers=0)
