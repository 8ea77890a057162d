"""Data-parallel SGD with the gradient sum done by a real all-reduce schedule.

Each step draws a global batch of ``B`` samples and splits it over ``N`` workers (shards
differ by at most one sample). Worker ``i`` computes the *summed* gradient of its shard;
the ``N`` vectors are added by :func:`nvlearn.dataplane.run` running the all-reduce
:class:`~nvlearn.schedule.Schedule` from :func:`nvlearn.collectives.allreduce` — the same
schedule the simulator times — so the additions happen in the ring's own order. Every worker
then divides by ``B`` and applies the same update::

    w <- w - eta * (1/B) * sum_i g_i        (g_i = summed gradient of shard i)

With equal shards ``|S_i| = B/N`` this is the textbook ``w - eta (1/N) sum_i grad L_i`` with
``L_i`` the mean loss of worker ``i``; summing first and dividing by ``B`` is also right for
unequal shards. Mathematically it equals single-worker SGD on the whole batch; in floating
point it agrees to rounding, because a sum of the same numbers in a different order rounds
differently (:func:`dp_equivalence` measures by how much).

References
----------
P. Goyal et al., "Accurate, large minibatch SGD: training ImageNet in 1 hour",
arXiv:1706.02677, 2017 (synchronous data-parallel SGD: the all-reduced gradient of N
workers is the large-batch gradient).
N. J. Higham, "The accuracy of floating point summation", SIAM J. Sci. Comput. 14(4):783-799,
1993 (why a different order of the same additions rounds differently).

Examples
--------
>>> from nvlearn.sgd.data import load_digits
>>> from nvlearn.sgd.models import SoftmaxRegression
>>> d = load_digits()
>>> m = SoftmaxRegression(64, 10)
>>> eq = dp_equivalence(m, m.init(0), d.X[:256], d.y[:256], n_workers=8)
>>> eq.ranks_agree, eq.rel_diff < 1e-14
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nvlearn import collectives, dataplane
from nvlearn.sgd.models import accuracy

__all__ = [
    "COMPUTE_DTYPES", "allreduce_sum", "worker_gradients", "Equivalence", "dp_equivalence",
    "History", "train",
]

#: Precisions a training step can run in (bf16 only for the all-reduce, see ``reduce_dtype``).
COMPUTE_DTYPES = ("float64", "float32")


def _check_workers(n_workers: int, batch_size: int, n_samples: int) -> None:
    if isinstance(n_workers, bool) or int(n_workers) != n_workers or n_workers < 1:
        raise ValueError(f"n_workers must be a positive integer, got {n_workers!r}")
    if n_workers > n_samples:
        raise ValueError(
            f"n_workers ({n_workers}) is larger than the number of samples ({n_samples}); "
            "every worker needs at least one sample: use fewer workers"
        )
    if int(batch_size) != batch_size or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if batch_size > n_samples:
        raise ValueError(
            f"batch_size ({batch_size}) is larger than the data set ({n_samples} samples); "
            "use a smaller batch"
        )
    if n_workers > batch_size:
        raise ValueError(
            f"n_workers ({n_workers}) is larger than the global batch ({batch_size}); every "
            "worker needs at least one sample per step: raise batch_size or use fewer workers"
        )


def _check_dtype(dtype: str, allowed: tuple[str, ...], what: str) -> None:
    if dtype not in allowed:
        raise ValueError(f"{what} must be one of {allowed}, got {dtype!r}")


def allreduce_sum(grads: np.ndarray, algorithm: str = "ring", dtype: str | None = None):
    """Sum per-worker vectors with the data plane; returns every worker's result.

    Parameters
    ----------
    grads : ndarray, shape (n_workers, n_params)
        Worker i's vector in row i.
    algorithm : str
        An all-reduce algorithm of :data:`nvlearn.collectives.ALGORITHMS`.
    dtype : {"float64", "float32", "float16", "bfloat16"}, optional
        Precision of the additions (default: that of ``grads``).

    Returns
    -------
    ndarray, shape (n_workers, n_params)
        What each worker holds after the all-reduce (one worker: its own vector).

    Examples
    --------
    >>> allreduce_sum(np.array([[1.0, 2.0], [3.0, 4.0]]))[1].tolist()
    [4.0, 6.0]
    """
    g = np.asarray(grads)
    if g.ndim != 2:
        raise ValueError(f"grads must have shape (n_workers, n_params), got {g.shape}")
    if g.shape[0] == 1:
        return g.copy()
    schedule = collectives.allreduce(g.shape[0], float(g[0].nbytes), algorithm=algorithm)
    return dataplane.run(schedule, g, dtype)


def worker_gradients(model, w: np.ndarray, X: np.ndarray, y: np.ndarray, n_workers: int):
    """Each worker's summed loss and gradient over its shard of ``(X, y)``.

    Parameters
    ----------
    model : SoftmaxRegression or MLP
        The model (``loss_and_grad`` with ``reduction="sum"``).
    w : ndarray, shape (n_params,)
        Parameters every worker holds; its dtype is the arithmetic's.
    X, y : ndarray
        The global batch, split over the workers into shards differing by at most one sample.
    n_workers : int
        Workers N, 1 <= N <= len(y).

    Returns
    -------
    losses : ndarray, shape (n_workers,)
    grads : ndarray, shape (n_workers, n_params), the dtype of ``w``

    Examples
    --------
    >>> from nvlearn.sgd.models import SoftmaxRegression
    >>> m = SoftmaxRegression(2, 2)
    >>> _, g = worker_gradients(m, m.init(0), np.eye(4, 2), np.array([0, 1, 0, 1]), 2)
    >>> g.shape
    (2, 6)
    """
    _check_workers(n_workers, len(y), len(y))
    shards = np.array_split(np.arange(len(y)), n_workers)
    losses = np.empty(n_workers)
    grads = np.empty((n_workers, model.n_params), dtype=w.dtype)
    for i, idx in enumerate(shards):
        losses[i], grads[i] = model.loss_and_grad(w, X[idx], y[idx], reduction="sum")
    return losses, grads


@dataclass(frozen=True)
class Equivalence:
    """Data-parallel gradient vs single-worker large-batch gradient, in one precision.

    Attributes
    ----------
    dtype : str
        Precision of the gradients and of the all-reduce.
    max_abs_diff : float
        Largest elementwise difference.
    rel_diff : float
        ``max |g_dp - g_1| / max |g_1|``.
    eps : float
        Machine epsilon of ``dtype`` (2**-52 for float64, 2**-23 for float32).
    ranks_agree : bool
        Every worker ends with the bit-identical vector (the ring's all-gather copies it).
    """

    dtype: str
    n_workers: int
    max_abs_diff: float
    rel_diff: float
    eps: float
    ranks_agree: bool

    @property
    def rel_diff_in_eps(self) -> float:
        """``rel_diff`` in units of the precision's machine epsilon."""
        return self.rel_diff / self.eps


def dp_equivalence(
    model,
    w: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    n_workers: int,
    dtype: str = "float64",
    algorithm: str = "ring",
) -> Equivalence:
    """Compare the all-reduced gradient of ``n_workers`` with one worker's large-batch one.

    Both are computed in ``dtype`` (the model's arithmetic and the additions). They agree to
    a few units of ``dtype``'s epsilon: the same per-sample terms are added in a different
    order (BLAS inside one matrix product vs shard sums added around the ring).

    Parameters
    ----------
    model : SoftmaxRegression or MLP
        The model.
    w : ndarray
        Parameters (cast to ``dtype``).
    X, y : ndarray
        The global batch.
    n_workers : int
        Workers N, 1 <= N <= len(y).
    dtype : {"float64", "float32"}
        Precision of the model and of the all-reduce's additions (:data:`COMPUTE_DTYPES`).
    algorithm : str
        The all-reduce algorithm whose order of additions is used.

    Returns
    -------
    Equivalence
        The largest absolute and relative difference, ``dtype``'s epsilon, and whether all
        ranks hold bit-identical sums.

    Examples
    --------
    >>> from nvlearn.sgd.models import SoftmaxRegression
    >>> from nvlearn.sgd.data import load_digits
    >>> d, m = load_digits(), SoftmaxRegression(64, 10)
    >>> eq = dp_equivalence(m, m.init(0), d.X[:512], d.y[:512], 8, dtype="float32")
    >>> eq.rel_diff < 100 * eq.eps
    True
    """
    _check_dtype(dtype, COMPUTE_DTYPES, "dtype")
    _check_workers(n_workers, len(y), len(y))
    wt, Xt = w.astype(dtype), X.astype(dtype)
    _, single = model.loss_and_grad(wt, Xt, y, reduction="mean")
    _, grads = worker_gradients(model, wt, Xt, y, n_workers)
    held = allreduce_sum(grads, algorithm, dtype)
    dp = held[0] / np.asarray(len(y), dtype=dtype)
    diff = float(np.max(np.abs(dp.astype(np.float64) - single.astype(np.float64))))
    return Equivalence(
        dtype=dtype,
        n_workers=int(n_workers),
        max_abs_diff=diff,
        rel_diff=diff / float(np.max(np.abs(single))),
        eps=float(np.finfo(dtype).eps),
        ranks_agree=bool(np.all(held == held[0])),
    )


@dataclass
class History:
    """What a training run recorded.

    Attributes
    ----------
    step_loss : list of float
        Mean loss of each step's global batch, before the update.
    epoch_train_loss, epoch_test_accuracy : list of float
        After each epoch, on the whole training set / the test set (if one was given).
    w : ndarray
        Final parameters.
    """

    n_workers: int
    batch_size: int
    lr: float
    dtype: str
    step_loss: list[float] = field(default_factory=list)
    epoch_train_loss: list[float] = field(default_factory=list)
    epoch_test_accuracy: list[float] = field(default_factory=list)
    w: np.ndarray | None = None


def train(
    model,
    train_set,
    *,
    n_workers: int = 1,
    batch_size: int = 64,
    lr: float = 0.5,
    epochs: int = 10,
    seed: int = 0,
    test_set=None,
    dtype: str = "float64",
    reduce_dtype: str | None = None,
    algorithm: str = "ring",
) -> History:
    """Data-parallel minibatch SGD; ``n_workers=1`` is plain single-worker SGD.

    Parameters
    ----------
    model : SoftmaxRegression or MLP
        The model; its ``init(seed)`` gives the starting weights.
    train_set, test_set : Dataset
        ``test_set`` is optional (then no accuracy is recorded).
    n_workers : int
        Simulated workers; each step's batch is split over them.
    batch_size : int
        Global batch (all workers together), samples.
    lr : float
        Learning rate eta, > 0.
    epochs : int
        Passes over the training set (each reshuffled; the last partial batch is dropped).
    seed : int
        Seeds the initial weights and the shuffles: the same seed gives the same batches
        whatever ``n_workers`` is, which is what makes runs comparable.
    dtype : {"float64", "float32"}
        Precision of the model arithmetic.
    reduce_dtype : {"float64", "float32", "float16", "bfloat16"}, optional
        Precision of the all-reduce additions (default ``dtype``).
    algorithm : str
        All-reduce algorithm.

    Returns
    -------
    History
        Per-step loss, per-epoch train loss (and test accuracy), the final weights.

    Examples
    --------
    >>> from nvlearn.sgd.data import load_digits
    >>> from nvlearn.sgd.models import SoftmaxRegression
    >>> d = load_digits()
    >>> h = train(SoftmaxRegression(64, 10), d, n_workers=4, epochs=2)
    >>> h.epoch_train_loss[-1] < h.step_loss[0]
    True
    """
    if not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"the learning rate must be a positive number, got {lr!r}")
    if int(epochs) != epochs or epochs < 1:
        raise ValueError(f"epochs must be a positive integer, got {epochs!r}")
    _check_dtype(dtype, COMPUTE_DTYPES, "dtype")
    reduce_dtype = dtype if reduce_dtype is None else reduce_dtype
    _check_dtype(reduce_dtype, dataplane.DTYPES, "reduce_dtype")
    X, y = train_set.X.astype(dtype), train_set.y
    n = len(y)
    _check_workers(n_workers, batch_size, n)
    rng = np.random.default_rng(seed)
    w = model.init(seed).astype(dtype)
    eta = np.asarray(lr, dtype=dtype)
    h = History(int(n_workers), int(batch_size), float(lr), dtype)
    for _ in range(int(epochs)):
        order = rng.permutation(n)
        for start in range(0, n - batch_size + 1, batch_size):
            idx = order[start : start + batch_size]
            losses, grads = worker_gradients(model, w, X[idx], y[idx], n_workers)
            total = allreduce_sum(grads, algorithm, reduce_dtype)[0].astype(dtype)
            w = w - eta * (total / np.asarray(batch_size, dtype=dtype))
            h.step_loss.append(float(losses.sum()) / batch_size)
        h.epoch_train_loss.append(model.loss_and_grad(w, X, y)[0])
        if test_set is not None:
            h.epoch_test_accuracy.append(accuracy(model, w, test_set.X.astype(dtype), test_set.y))
    h.w = w
    return h
