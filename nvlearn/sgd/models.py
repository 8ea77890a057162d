"""Two small classifiers with analytic gradients: softmax regression and a one-hidden-layer MLP.

Parameters live in one flat float vector (the thing a data-parallel job all-reduces); each
model knows how to unpack it. The loss is the cross-entropy, summed or averaged over the
samples. Gradients are written out by hand (no autodiff) and tested against central finite
differences.

Numpy only: the work is a few matrix products per step, which numpy hands to BLAS; a numba
loop would be slower, not faster, at these sizes.

References
----------
D. E. Rumelhart, G. E. Hinton and R. J. Williams, "Learning representations by
back-propagating errors", Nature 323:533-536, 1986 (the hand-written gradients).

Examples
--------
>>> import numpy as np
>>> m = SoftmaxRegression(64, 10)
>>> w = m.init(seed=0)
>>> X, y = np.zeros((3, 64)), np.array([0, 1, 2])
>>> loss, g = m.loss_and_grad(w, X, y)
>>> round(loss, 4), g.shape           # uniform prediction: log(10)
(2.3026, (650,))
"""

from __future__ import annotations

import numpy as np

__all__ = ["REDUCTIONS", "SoftmaxRegression", "MLP", "accuracy"]

REDUCTIONS = ("mean", "sum")


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _check_batch(X: np.ndarray, y: np.ndarray, n_features: int, n_classes: int) -> None:
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"X must have shape (n, {n_features}), got {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {y.shape}")
    if X.shape[0] == 0:
        raise ValueError("the batch is empty; give at least one sample")
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels must be 0..{n_classes - 1}, got {y.min()}..{y.max()}")


def _scale(reduction: str, n: int) -> float:
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    return 1.0 / n if reduction == "mean" else 1.0


def _xent_and_delta(logits: np.ndarray, y: np.ndarray, scale: float) -> tuple[float, np.ndarray]:
    """Cross-entropy (scaled) and its gradient with respect to the logits."""
    logp = _log_softmax(logits)
    rows = np.arange(y.size)
    loss = -float(logp[rows, y].sum()) * scale
    delta = np.exp(logp)
    delta[rows, y] -= 1.0
    return loss, delta * scale


class SoftmaxRegression:
    """Multinomial logistic regression: ``logits = X W + b``.

    Parameters
    ----------
    n_features, n_classes : int

    Attributes
    ----------
    n_params : int
        ``(n_features + 1) * n_classes`` (weights, then biases).

    Examples
    --------
    >>> SoftmaxRegression(64, 10).n_params
    650
    """

    name = "softmax regression"

    def __init__(self, n_features: int, n_classes: int) -> None:
        if n_features < 1 or n_classes < 2:
            raise ValueError("need n_features >= 1 and n_classes >= 2")
        self.n_features, self.n_classes = int(n_features), int(n_classes)
        self.n_params = (self.n_features + 1) * self.n_classes

    def _unpack(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if w.shape != (self.n_params,):
            raise ValueError(f"parameters must be a flat vector of {self.n_params}, got {w.shape}")
        k = self.n_features * self.n_classes
        return w[:k].reshape(self.n_features, self.n_classes), w[k:]

    def init(self, seed: int = 0) -> np.ndarray:
        """Small random weights (std 0.01), zero biases.

        Examples
        --------
        >>> SoftmaxRegression(4, 3).init(0).shape
        (15,)
        """
        w = np.zeros(self.n_params)
        k = self.n_features * self.n_classes
        w[:k] = 0.01 * np.random.default_rng(seed).standard_normal(k)
        return w

    def logits(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Class scores, shape (n, n_classes)."""
        W, b = self._unpack(w)
        return X @ W + b

    def loss_and_grad(
        self, w: np.ndarray, X: np.ndarray, y: np.ndarray, reduction: str = "mean"
    ) -> tuple[float, np.ndarray]:
        """Cross-entropy over the batch and its gradient (a flat vector like ``w``).

        ``reduction="sum"`` adds the samples' losses (what a worker contributes to an
        all-reduce); ``"mean"`` divides by the batch size.

        Parameters
        ----------
        w : ndarray, shape (n_params,)
            Flat parameters (weights, then biases).
        X : ndarray, shape (n, n_features)
            The batch.
        y : ndarray of int, shape (n,)
            Labels, ``0 <= y < n_classes``.
        reduction : {"mean", "sum"}
            Average or add the samples' losses and gradients.

        Returns
        -------
        loss : float
            Cross-entropy, in nats (per sample for "mean", summed for "sum").
        grad : ndarray, shape (n_params,)
            Its gradient with respect to ``w``.
        """
        _check_batch(X, y, self.n_features, self.n_classes)
        W, b = self._unpack(w)
        loss, delta = _xent_and_delta(X @ W + b, y, _scale(reduction, y.size))
        return loss, np.concatenate([(X.T @ delta).ravel(), delta.sum(axis=0)])


class MLP:
    """One hidden layer: ``logits = tanh(X W1 + b1) W2 + b2``.

    Parameters
    ----------
    n_features, n_hidden, n_classes : int

    Examples
    --------
    >>> MLP(64, 32, 10).n_params       # 64*32 + 32 + 32*10 + 10
    2410
    """

    name = "MLP"

    def __init__(self, n_features: int, n_hidden: int, n_classes: int) -> None:
        """Build the MLP's shape; weights come from :meth:`init`.

        Parameters
        ----------
        n_features : int
            Inputs per sample; >= 1.
        n_hidden : int
            Width of the tanh hidden layer; >= 1.
        n_classes : int
            Output classes; >= 2.
        """
        if n_features < 1 or n_hidden < 1 or n_classes < 2:
            raise ValueError("need n_features >= 1, n_hidden >= 1 and n_classes >= 2")
        self.n_features, self.n_hidden, self.n_classes = int(n_features), int(n_hidden), int(
            n_classes
        )
        f, h, c = self.n_features, self.n_hidden, self.n_classes
        self._sizes = (f * h, h, h * c, c)
        self.n_params = sum(self._sizes)

    def _unpack(self, w: np.ndarray):
        if w.shape != (self.n_params,):
            raise ValueError(f"parameters must be a flat vector of {self.n_params}, got {w.shape}")
        f, h, c = self.n_features, self.n_hidden, self.n_classes
        a, b, d = np.cumsum(self._sizes)[:3]
        return w[:a].reshape(f, h), w[a:b], w[b:d].reshape(h, c), w[d:]

    def init(self, seed: int = 0) -> np.ndarray:
        """Glorot-style uniform weights, zero biases.

        Examples
        --------
        >>> MLP(4, 3, 2).init(0).shape
        (23,)
        """
        rng = np.random.default_rng(seed)
        f, h, c = self.n_features, self.n_hidden, self.n_classes
        w1 = rng.uniform(-1, 1, f * h) * np.sqrt(6.0 / (f + h))
        w2 = rng.uniform(-1, 1, h * c) * np.sqrt(6.0 / (h + c))
        return np.concatenate([w1, np.zeros(h), w2, np.zeros(c)])

    def logits(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Class scores, shape (n, n_classes)."""
        W1, b1, W2, b2 = self._unpack(w)
        return np.tanh(X @ W1 + b1) @ W2 + b2

    def loss_and_grad(
        self, w: np.ndarray, X: np.ndarray, y: np.ndarray, reduction: str = "mean"
    ) -> tuple[float, np.ndarray]:
        """Cross-entropy over the batch and its gradient (backpropagation by hand).

        Parameters
        ----------
        w : ndarray, shape (n_params,)
            Flat parameters (W1, b1, W2, b2).
        X : ndarray, shape (n, n_features)
            The batch.
        y : ndarray of int, shape (n,)
            Labels, ``0 <= y < n_classes``.
        reduction : {"mean", "sum"}
            Average or add the samples' losses and gradients.

        Returns
        -------
        loss : float
            Cross-entropy, in nats (per sample for "mean", summed for "sum").
        grad : ndarray, shape (n_params,)
            Its gradient with respect to ``w``.
        """
        _check_batch(X, y, self.n_features, self.n_classes)
        W1, b1, W2, b2 = self._unpack(w)
        hidden = np.tanh(X @ W1 + b1)
        loss, delta = _xent_and_delta(hidden @ W2 + b2, y, _scale(reduction, y.size))
        back = (delta @ W2.T) * (1.0 - hidden**2)
        return loss, np.concatenate(
            [(X.T @ back).ravel(), back.sum(axis=0), (hidden.T @ delta).ravel(), delta.sum(axis=0)]
        )


def accuracy(model, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> float:
    """Fraction of samples whose highest-scoring class is the label.

    Parameters
    ----------
    model : SoftmaxRegression or MLP
        Anything with ``logits(w, X)``.
    w : ndarray
        The model's flat parameters.
    X : ndarray, shape (n, n_features)
        Samples.
    y : ndarray of int, shape (n,)
        Labels.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> m = SoftmaxRegression(2, 2)
    >>> accuracy(m, np.array([1.0, 0, 0, 1, 0, 0]), np.eye(2), np.array([0, 1]))
    1.0
    """
    return float(np.mean(model.logits(w, X).argmax(axis=1) == y))
