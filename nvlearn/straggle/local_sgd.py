"""Synchronising less: local SGD and bounded-staleness SGD on the digits of notebook 01.

Both run the same batches as :func:`nvlearn.sgd.train` (same seed: same initial weights and
shuffles), with every sum over workers done by :func:`nvlearn.sgd.parallel.allreduce_sum`
(the data plane running a real all-reduce schedule).

* **Local SGD** (:func:`train_local_sgd`; Stich 2019, Lin et al. 2020): each of ``N`` workers
  keeps its own weights and takes steps on its own shard of every global batch,
  ``w_i <- w_i - eta g_i / |S_i|``; every ``H`` steps the workers average their weights
  (one all-reduce). ``H = 1`` is synchronous SGD exactly (equal shards); larger ``H`` means
  ``H`` times fewer all-reduces and a step that no longer waits for the slowest GPU every
  time — at some cost in how fast the loss falls, which is what the notebook measures.
* **Bounded staleness** (:func:`train_stale`; Ho et al. 2013, "stale synchronous parallel"):
  every step applies the summed gradient, but worker ``i``'s gradient was computed on the
  weights of ``d_i`` steps ago, ``d_i`` drawn uniformly from ``0..s`` per step and worker —
  a fast worker does not wait for a slow one's current gradient. ``s = 0`` is synchronous.

References
----------
S. U. Stich, "Local SGD converges fast and communicates little", ICLR 2019.
T. Lin, S. U. Stich, K. K. Patel and M. Jaggi, "Don't use large mini-batches, use local
SGD", ICLR 2020.
Q. Ho et al., "More effective distributed ML via a stale synchronous parallel parameter
server", NIPS 2013.

Examples
--------
>>> from nvlearn.sgd import SoftmaxRegression, load_digits
>>> d = load_digits()
>>> h = train_local_sgd(SoftmaxRegression(64, 10), d, n_workers=4, sync_every=4, epochs=1)
>>> h.n_allreduce * 4 >= h.n_steps
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nvlearn.sgd.models import accuracy
from nvlearn.sgd.parallel import _check_workers, allreduce_sum

__all__ = ["SyncHistory", "train_local_sgd", "train_stale"]


@dataclass
class SyncHistory:
    """What a local-SGD or stale-SGD run recorded.

    Attributes
    ----------
    method : str
        ``"local H=..."`` or ``"stale s=..."``.
    step_loss : list of float
        Mean loss of each step's global batch at the weights it was computed on.
    epoch_train_loss, epoch_test_accuracy : list of float
        After each epoch, at the averaged weights, on the training set / the test set.
    n_steps, n_allreduce : int
        Steps taken, all-reduces done (weights or gradients).
    w : ndarray
        Final (averaged) weights.
    """

    method: str
    step_loss: list[float] = field(default_factory=list)
    epoch_train_loss: list[float] = field(default_factory=list)
    epoch_test_accuracy: list[float] = field(default_factory=list)
    n_steps: int = 0
    n_allreduce: int = 0
    w: np.ndarray | None = None


def _check(lr, epochs, k, name) -> None:
    if not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"the learning rate must be a positive number, got {lr!r}")
    if int(epochs) != epochs or epochs < 1:
        raise ValueError(f"epochs must be a positive integer, got {epochs!r}")
    if isinstance(k, bool) or int(k) != k or k < 0:
        raise ValueError(f"{name} must be an integer >= {1 if name == 'sync_every' else 0}, "
                         f"got {k!r}")


def _epoch_end(h: SyncHistory, model, w, X, y, test_set) -> None:
    h.epoch_train_loss.append(model.loss_and_grad(w, X, y)[0])
    if test_set is not None:
        h.epoch_test_accuracy.append(accuracy(model, w, test_set.X, test_set.y))


def train_local_sgd(model, train_set, *, n_workers: int = 8, batch_size: int = 64,
                    lr: float = 0.5, epochs: int = 10, sync_every: int = 1, seed: int = 0,
                    test_set=None, algorithm: str = "ring") -> SyncHistory:
    """Local SGD: ``sync_every`` local steps per worker, then average the weights.

    Parameters are those of :func:`nvlearn.sgd.train` (float64), plus ``sync_every`` (H).
    The weights are averaged at the end of every epoch too, so the epoch metrics are of one
    model.

    Parameters
    ----------
    model : SoftmaxRegression or MLP
        The model.
    train_set, test_set : Dataset
        ``test_set`` is optional (then no accuracy is recorded).
    n_workers : int
        Workers N; each global batch is split over them.
    batch_size : int
        Global batch (all workers together), samples.
    lr : float
        Learning rate eta, > 0.
    epochs : int
        Passes over the training set.
    sync_every : int
        H, local steps between weight averages; >= 1 (1 = synchronous SGD).
    seed : int
        Seeds the initial weights and shuffles, as :func:`nvlearn.sgd.train`.
    algorithm : str
        All-reduce algorithm of the weight average.

    Returns
    -------
    SyncHistory
        Per-step loss, per-epoch metrics, step and all-reduce counts, final weights ``w``.

    Examples
    --------
    >>> from nvlearn.sgd import SoftmaxRegression, load_digits, train
    >>> d = load_digits()
    >>> m = SoftmaxRegression(64, 10)
    >>> a = train_local_sgd(m, d, n_workers=4, sync_every=1, epochs=1)
    >>> b = train(m, d, n_workers=4, epochs=1)
    >>> bool(np.allclose(a.w, b.w, rtol=0, atol=1e-12))     # H = 1 is synchronous SGD
    True
    """
    _check(lr, epochs, sync_every, "sync_every")
    if sync_every < 1:
        raise ValueError(f"sync_every must be an integer >= 1, got {sync_every!r}")
    X, y = train_set.X.astype(np.float64), train_set.y
    n = len(y)
    _check_workers(n_workers, batch_size, n)
    rng = np.random.default_rng(seed)
    w0 = model.init(seed).astype(np.float64)
    W = np.repeat(w0[None, :], n_workers, axis=0)
    h = SyncHistory(f"local H={int(sync_every)}")
    since = 0
    for _ in range(int(epochs)):
        order = rng.permutation(n)
        for start in range(0, n - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            loss = 0.0
            for i, shard in enumerate(np.array_split(idx, n_workers)):
                li, gi = model.loss_and_grad(W[i], X[shard], y[shard], reduction="sum")
                loss += li
                W[i] = W[i] - lr * (gi / len(shard))
            h.step_loss.append(loss / batch_size)
            h.n_steps += 1
            since += 1
            if since == sync_every:
                W = allreduce_sum(W, algorithm) / n_workers
                h.n_allreduce += 1
                since = 0
        if since:
            W = allreduce_sum(W, algorithm) / n_workers
            h.n_allreduce += 1
            since = 0
        _epoch_end(h, model, W[0], X, y, test_set)
    h.w = W[0].copy()
    return h


def train_stale(model, train_set, *, n_workers: int = 8, batch_size: int = 64,
                lr: float = 0.5, epochs: int = 10, staleness: int = 0, seed: int = 0,
                test_set=None, algorithm: str = "ring") -> SyncHistory:
    """SGD whose workers' gradients are up to ``staleness`` steps old (uniform 0..s each).

    The delays are drawn from their own generator (seed + 1), so the batches are those of
    :func:`nvlearn.sgd.train` with the same seed.

    Parameters
    ----------
    model : SoftmaxRegression or MLP
        The model.
    train_set, test_set : Dataset
        ``test_set`` is optional (then no accuracy is recorded).
    n_workers : int
        Workers N; each global batch is split over them.
    batch_size : int
        Global batch (all workers together), samples.
    lr : float
        Learning rate eta, > 0.
    epochs : int
        Passes over the training set.
    staleness : int
        s >= 0: each worker's gradient is on the weights of 0..s steps ago (0 = synchronous).
    seed : int
        Seeds the initial weights and shuffles (the delays use ``seed + 1``).
    algorithm : str
        All-reduce algorithm of the gradient sum.

    Returns
    -------
    SyncHistory
        Per-step loss, per-epoch metrics, step and all-reduce counts, final weights ``w``.

    Examples
    --------
    >>> from nvlearn.sgd import SoftmaxRegression, load_digits, train
    >>> d = load_digits()
    >>> m = SoftmaxRegression(64, 10)
    >>> a = train_stale(m, d, n_workers=4, staleness=0, epochs=1)
    >>> b = train(m, d, n_workers=4, epochs=1)
    >>> bool(np.array_equal(a.w, b.w))                       # s = 0 is synchronous SGD
    True
    """
    _check(lr, epochs, staleness, "staleness")
    X, y = train_set.X.astype(np.float64), train_set.y
    n = len(y)
    _check_workers(n_workers, batch_size, n)
    rng = np.random.default_rng(seed)
    delays = np.random.default_rng(seed + 1)
    s = int(staleness)
    w = model.init(seed).astype(np.float64)
    past = [w] * (s + 1)                       # past[d] = weights d steps ago
    h = SyncHistory(f"stale s={s}")
    eta = np.asarray(lr, dtype=np.float64)
    for _ in range(int(epochs)):
        order = rng.permutation(n)
        for start in range(0, n - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            d = delays.integers(0, s + 1, size=n_workers) if s else np.zeros(n_workers, int)
            grads = np.empty((n_workers, model.n_params))
            loss = 0.0
            for i, shard in enumerate(np.array_split(idx, n_workers)):
                li, grads[i] = model.loss_and_grad(past[d[i]], X[shard], y[shard],
                                                   reduction="sum")
                loss += li
            total = allreduce_sum(grads, algorithm)[0]
            w = w - eta * (total / np.asarray(batch_size, dtype=np.float64))
            past = [w, *past[:s]]
            h.step_loss.append(loss / batch_size)
            h.n_steps += 1
            h.n_allreduce += 1
        _epoch_end(h, model, w, X, y, test_set)
    h.w = w
    return h
