"""Hidden tests of the schedule puzzles (notebook 09). Instructor kit: not for students.

Grades a submission: a Python file defining one function per puzzle, named by the puzzle's
id (``def ring_reduce_scatter(p): ...`` returning a Schedule for the instance ``p``). Every
puzzle is checked on instances the notebook does not show — the other rank counts and sizes
the puzzle offers — with other random data (other seeds, and an element count that does
not divide evenly into the chunks), and each check must pass: right on every rank, bit for
bit, and at or under the target time (achievable model).

    NVLEARN_PUZZLE_SUBMISSION=path/to/submission.py \
        python -m pytest instructor/puzzles/test_hidden.py

Without the variable the reference solutions (``solutions.py`` beside this file) are graded,
which is how the course's own tests keep the hidden tests honest.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from pathlib import Path

import pytest

from nvlearn.puzzles import PUZZLES, check

HERE = Path(__file__).resolve().parent
ENV = "NVLEARN_PUZZLE_SUBMISSION"

#: Seeds of the hidden data (the notebook's check uses seed 0).
SEEDS = (20260, 7)


def load_submission(path: str | os.PathLike):
    """Import the submission file at ``path`` as a module."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{ENV}={path}: no such file")
    spec = importlib.util.spec_from_file_location("puzzle_submission", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def submission():
    """The module under test: ``$NVLEARN_PUZZLE_SUBMISSION`` or the reference solutions."""
    return load_submission(os.environ.get(ENV) or HERE / "solutions.py")


def hidden_cases():
    """(puzzle id, n_ranks, n_bytes, seed, n_elems): every instance but the notebook's,
    plus the notebook's own with other data."""
    for p in PUZZLES:
        combos = list(itertools.product(p.rank_choices, p.size_choices))
        for k, (n, size) in enumerate(combos):
            seed = SEEDS[k % len(SEEDS)]
            if k == 0:   # the notebook's instance: other seed, ragged element count
                yield pytest.param(p.id, n, size, seed, 1001, id=f"{p.id}-default-ragged")
            else:
                yield pytest.param(p.id, n, size, seed, None, id=f"{p.id}-{n}-{int(size)}")


@pytest.mark.parametrize(("puzzle_id", "n_ranks", "n_bytes", "seed", "n_elems"),
                         list(hidden_cases()))
def test_puzzle(submission, puzzle_id, n_ranks, n_bytes, seed, n_elems):
    builder = getattr(submission, puzzle_id, None)
    assert callable(builder), f"the submission defines no function {puzzle_id}(p)"
    res = check(puzzle_id, builder, n_ranks=n_ranks, n_bytes=n_bytes, seed=seed,
                n_elems=n_elems)
    assert res.ok, res.message
