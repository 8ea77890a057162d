"""nvlearn.sgd data and models: the shipped digits, analytic gradients vs finite differences."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from nvlearn.sgd.data import digits_path, load_digits
from nvlearn.sgd.models import MLP, SoftmaxRegression, accuracy

# independent expected value: sha256sum data/digits.csv.gz at the commit that shipped it
DIGITS_SHA256 = "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"


def test_digits_file_is_the_committed_one():
    assert hashlib.sha256(digits_path().read_bytes()).hexdigest() == DIGITS_SHA256


def test_digits_shape_and_ranges():
    d = load_digits()
    assert d.X.shape == (1797, 64) and d.y.shape == (1797,)
    assert d.X.min() == 0.0 and d.X.max() == 1.0
    assert sorted(np.unique(d.y).tolist()) == list(range(10))
    train, test = d.split(0.25, seed=1)
    assert len(train.y) + len(test.y) == 1797


def test_changed_file_is_refused(tmp_path):
    bad = tmp_path / "digits.csv.gz"
    raw = bytearray(digits_path().read_bytes())
    raw[100] ^= 0x01
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="SHA-256"):
        load_digits(bad)
    with pytest.raises(ValueError, match="not found"):
        load_digits(tmp_path / "missing.csv.gz")


def _finite_difference(model, w, X, y, h=1e-6):
    g = np.empty_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e[i] = h
        g[i] = (model.loss_and_grad(w + e, X, y)[0] - model.loss_and_grad(w - e, X, y)[0]) / (2 * h)
    return g


@pytest.mark.parametrize(
    "model", [SoftmaxRegression(64, 10), MLP(64, 16, 10)], ids=["softmax", "mlp"]
)
def test_analytic_gradient_matches_finite_differences(model):
    d = load_digits()
    rng = np.random.default_rng(3)
    idx = rng.choice(len(d.y), 40, replace=False)
    w = model.init(seed=2) + 0.1 * rng.standard_normal(model.n_params)
    _, g = model.loss_and_grad(w, d.X[idx], d.y[idx])
    fd = _finite_difference(model, w, d.X[idx], d.y[idx])
    assert np.max(np.abs(g - fd)) < 1e-7 * max(1.0, np.max(np.abs(g)))


@pytest.mark.parametrize("model", [SoftmaxRegression(64, 10), MLP(64, 8, 10)])
def test_sum_reduction_is_batch_times_mean(model):
    d = load_digits()
    w = model.init(0)
    lm, gm = model.loss_and_grad(w, d.X[:50], d.y[:50], reduction="mean")
    ls, gs = model.loss_and_grad(w, d.X[:50], d.y[:50], reduction="sum")
    assert ls == pytest.approx(50 * lm, rel=1e-12)
    np.testing.assert_allclose(gs, 50 * gm, rtol=1e-12, atol=1e-15)


def test_model_bad_input():
    m = SoftmaxRegression(64, 10)
    w = m.init(0)
    with pytest.raises(ValueError, match="shape"):
        m.loss_and_grad(w, np.zeros((3, 5)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="labels"):
        m.loss_and_grad(w, np.zeros((1, 64)), np.array([10]))
    with pytest.raises(ValueError, match="flat vector"):
        m.loss_and_grad(w[:-1], np.zeros((1, 64)), np.array([1]))
    with pytest.raises(ValueError, match="reduction"):
        m.loss_and_grad(w, np.zeros((1, 64)), np.array([1]), reduction="max")


def test_accuracy_of_a_perfect_classifier():
    m = SoftmaxRegression(3, 3)
    w = np.concatenate([np.eye(3).ravel() * 5, np.zeros(3)])
    assert accuracy(m, w, np.eye(3), np.arange(3)) == 1.0
