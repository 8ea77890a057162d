"""The UCI 8x8 handwritten digits, shipped in ``data/digits.csv.gz`` (CC BY 4.0).

1,797 images of 8x8 integer pixel counts (0..16) with labels 0..9; source, licence and
attribution are in ``data/digits.md``. :func:`load_digits` checks the file's SHA-256 so a
changed or truncated copy fails loudly instead of training on something else.

References
----------
E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits", UCI Machine Learning
Repository, 1998, https://doi.org/10.24432/C50P49.

Examples
--------
>>> d = load_digits()
>>> d.X.shape, d.y.shape, d.n_classes
((1797, 64), (1797,), 10)
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["DIGITS_SHA256", "PIXEL_MAX", "digits_path", "Dataset", "load_digits"]

#: SHA-256 of the committed ``data/digits.csv.gz`` (see data/digits.md).
DIGITS_SHA256 = "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"
#: Largest pixel count in the data set (images are 0..16); features are scaled by it.
PIXEL_MAX = 16.0


def digits_path() -> Path:
    """Path of ``data/digits.csv.gz`` in the repository."""
    return Path(__file__).resolve().parents[2] / "data" / "digits.csv.gz"


@dataclass(frozen=True)
class Dataset:
    """Features and labels.

    Attributes
    ----------
    X : ndarray, shape (n, 64), float64
        Pixel counts scaled to 0..1.
    y : ndarray, shape (n,), int64
        Class labels 0..9.
    """

    X: np.ndarray
    y: np.ndarray

    @property
    def n_classes(self) -> int:
        """Number of classes (10 for the digits)."""
        return int(self.y.max()) + 1

    def split(self, test_fraction: float = 0.25, seed: int = 0) -> tuple[Dataset, Dataset]:
        """Shuffle with ``seed`` and split into (train, test).

        Examples
        --------
        >>> train, test = load_digits().split(0.25, seed=0)
        >>> len(train.y), len(test.y)
        (1348, 449)
        """
        if not 0.0 < test_fraction < 1.0:
            raise ValueError(f"test_fraction must be between 0 and 1, got {test_fraction}")
        order = np.random.default_rng(seed).permutation(len(self.y))
        n_test = int(round(test_fraction * len(self.y)))
        te, tr = order[:n_test], order[n_test:]
        return Dataset(self.X[tr], self.y[tr]), Dataset(self.X[te], self.y[te])


def load_digits(path: str | Path | None = None, verify: bool = True) -> Dataset:
    """Load the digits, pixel values scaled to 0..1.

    Parameters
    ----------
    path : str or Path, optional
        Default: the committed ``data/digits.csv.gz``.
    verify : bool
        Check the file's SHA-256 against :data:`DIGITS_SHA256` (only meaningful for the
        committed file).

    Examples
    --------
    >>> d = load_digits()
    >>> float(d.X.max()), int(d.y[0])
    (1.0, 0)
    """
    p = Path(path) if path is not None else digits_path()
    if not p.is_file():
        raise ValueError(f"digits file {p} not found; it ships in data/ (see data/digits.md)")
    raw = p.read_bytes()
    if verify:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != DIGITS_SHA256:
            raise ValueError(
                f"{p} has SHA-256 {digest}, expected {DIGITS_SHA256}; restore the committed "
                "file (git checkout data/digits.csv.gz) or pass verify=False for another copy"
            )
    table = np.loadtxt(gzip.decompress(raw).decode("ascii").splitlines(), delimiter=",")
    if table.ndim != 2 or table.shape[1] != 65:
        raise ValueError(f"{p}: expected 65 columns (64 pixels + label), got {table.shape}")
    return Dataset(X=table[:, :64] / PIXEL_MAX, y=table[:, 64].astype(np.int64))
