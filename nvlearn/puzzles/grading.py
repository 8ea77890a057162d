"""``check(puzzle_id, schedule_or_builder)``: is the schedule right, and is it fast enough?

Two checks, in order:

1. **Correct, bit for bit.** The schedule runs on integer data (whole numbers stored as
   float64, small enough that every sum is exact) in two different valid orders of its ops
   — index order and latest-ready-first — so a missing dependency (a race) shows up as a
   difference. Every rank must end holding exactly what the collective promises. If not,
   the result carries a map of which rank holds what (:attr:`PuzzleResult.status`, a text
   table in the message, :meth:`PuzzleResult.plot`) and, for the first wrong places, which
   ranks' contributions they hold.
2. **Fast enough.** A correct schedule is timed by :func:`nvlearn.sim.simulate` on the
   puzzle's fabric with the achievable model (NCCL's rates and latencies; or ``model="wire"``)
   and compared with the puzzle's target (:func:`nvlearn.puzzles.catalogue.target_time`).

Examples
--------
>>> from nvlearn.puzzles import ScheduleBuilder
>>> res = check("ring_reduce_scatter", lambda p: ScheduleBuilder(p).build())
>>> res.ok, res.correct
(False, False)
>>> print(res.message.splitlines()[0])
not yet — 8 of 8 (rank, chunk) places the reduce_scatter promises are wrong: ...
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from nvlearn.schedule import OP_REDUCE, Schedule, _toposort, promised_mask, validate

from .builder import chunk_blocks, promises
from .catalogue import Instance, baseline, get, target_time

__all__ = [
    "NOT_PROMISED", "RIGHT", "WRONG", "MISSING", "RACE", "STATUS_NAMES", "STATUS_SYMBOLS",
    "DATA_MAX", "RAGGED_ELEMS", "PuzzleResult", "execute", "expected", "contributions",
    "text_grid", "check", "check_every_instance",
]

#: Status codes of :attr:`PuzzleResult.status`, per (rank, chunk).
NOT_PROMISED, RIGHT, WRONG, MISSING, RACE = 0, 1, 2, 3, 4
STATUS_NAMES = ("not required", "right", "wrong", "missing", "race")
STATUS_SYMBOLS = (" ", "o", "X", ".", "~")

#: Largest |value| of the integer test data: sums of up to 2**32 ranks stay exact in float64.
DATA_MAX = 2**20

#: Elements per rank of :func:`check_every_instance`'s data on the first instance: no chunk
#: count a puzzle uses divides it, so chunks hold unequal numbers of elements.
RAGGED_ELEMS = 1001


@dataclass
class PuzzleResult:
    """What :func:`check` found.

    Attributes
    ----------
    ok : bool
        Correct and at or under the target time.
    correct : bool
        Every promised (rank, chunk) is right in both execution orders.
    message : str
        "right" / "not yet — ..." with the reason and, when wrong, the text diff.
    time, target : float or None
        Simulated seconds of the schedule (None if it is not correct) and the target.
    model : str
        The simulator's model that made the times.
    status : ndarray of int8, shape (n_ranks, n_chunks), or None
        Per (rank, chunk): one of :data:`STATUS_NAMES` (index).
    schedule : Schedule or None
    """

    ok: bool
    correct: bool
    message: str
    time: float | None = None
    target: float | None = None
    model: str = "achievable"
    status: np.ndarray | None = None
    schedule: Schedule | None = None
    puzzle_id: str = ""
    details: dict = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        import html

        colour = "#1b7f1b" if self.ok else "#b35c00"
        mark = "&#10004;" if self.ok else "&#10008;"
        head, _, rest = self.message.partition("\n")
        out = f'<span style="color:{colour};font-weight:bold">{mark} {html.escape(head)}</span>'
        if rest:
            out += f"<pre>{html.escape(rest)}</pre>"
        return out

    def plot(self, ax=None):
        """The (rank x chunk) map of right / wrong / missing / race; returns the Figure."""
        from nvlearn.plots.puzzles import status_grid

        if self.status is None:
            raise ValueError("no (rank, chunk) map: the schedule could not be run at all "
                             f"({self.message})")
        return status_grid(self.status, title=f"{self.puzzle_id}: who holds what", ax=ax)


def _element_bounds(schedule: Schedule, n_elems: int) -> np.ndarray:
    return np.rint(schedule.chunk_bounds * n_elems).astype(np.int64)


def execute(schedule: Schedule, data: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Every participant's buffer after running the ops in ``order`` on ``data``.

    No validation (unlike :func:`nvlearn.dataplane.run`): a wrong schedule runs, so its
    wrong result can be shown. ``data``: float64, shape (n_ranks, n_elems); ranks start with
    the chunks they own (zeros elsewhere), switch participants with zeros.

    Parameters
    ----------
    schedule : Schedule
        Any schedule, right or wrong.
    data : ndarray of float64, shape (n_ranks, n_elems)
        Each rank's input.
    order : array_like of int
        A permutation of the op ids: the order to apply them in.

    Returns
    -------
    ndarray of float64, shape (n_ranks, n_elems)
        The ranks' buffers afterwards (switch participants dropped).

    Examples
    --------
    >>> from nvlearn.collectives import allreduce
    >>> s = allreduce(2, 16)
    >>> execute(s, np.array([[1.0, 2.0], [3.0, 4.0]]), np.arange(s.n_ops))[:2].tolist()
    [[4.0, 6.0], [4.0, 6.0]]
    """
    bounds = _element_bounds(schedule, data.shape[1])
    buf = np.zeros((schedule.n_participants, data.shape[1]))
    for c in range(schedule.n_chunks):
        lo, hi = bounds[c], bounds[c + 1]
        o = schedule.chunk_owner[c]
        rows = slice(0, schedule.n_ranks) if o == -1 else slice(o, o + 1)
        buf[rows, lo:hi] = data[rows, lo:hi]
    src, dst, chunk, kind = schedule.op_src, schedule.op_dst, schedule.op_chunk, schedule.op_kind
    for i in order:
        lo, hi = bounds[chunk[i]], bounds[chunk[i] + 1]
        if kind[i] == OP_REDUCE:
            buf[dst[i], lo:hi] += buf[src[i], lo:hi]
        else:
            buf[dst[i], lo:hi] = buf[src[i], lo:hi]
    return buf[: schedule.n_ranks]


def expected(schedule: Schedule, data: np.ndarray) -> np.ndarray:
    """What every rank must hold (NaN where nothing is promised), from ``data`` directly."""
    from nvlearn.dataplane import reference

    return reference(schedule, data)


def contributions(schedule: Schedule, rank: int, chunk: int) -> np.ndarray:
    """How many times each rank's data of ``chunk`` is in what ``rank`` ends with (index
    order of the ops): 1 everywhere for a right all-reduce chunk.

    Parameters
    ----------
    schedule : Schedule
        The schedule.
    rank : int
        The rank whose final copy is inspected.
    chunk : int
        The chunk.

    Returns
    -------
    ndarray of int, shape (n_ranks,)
        How many times each rank's contribution is in it.

    Examples
    --------
    >>> from nvlearn.collectives import reduce_scatter
    >>> contributions(reduce_scatter(3, 3e6), 1, 1).tolist()
    [1, 1, 1]
    """
    p = schedule.n_ranks
    o = schedule.chunk_owner[chunk]
    state = np.zeros((schedule.n_participants, p), dtype=np.int64)
    owners = range(p) if o == -1 else [int(o)]
    for r in owners:
        state[r, r] = 1
    for i in np.flatnonzero(schedule.op_chunk == chunk):
        s, d = schedule.op_src[i], schedule.op_dst[i]
        if schedule.op_kind[i] == OP_REDUCE:
            state[d] += state[s]
        else:
            state[d] = state[s]
    return state[rank]


def _describe_counts(counts: np.ndarray, want: np.ndarray) -> str:
    def ranks(idx):
        idx = list(map(int, idx))
        return ", ".join(map(str, idx[:8])) + (" ..." if len(idx) > 8 else "")

    have = np.flatnonzero(counts > 0)
    if have.size == 0:
        return "holds nothing of it"
    parts = [f"holds rank(s) {ranks(have)}"]
    missing = np.flatnonzero((want > 0) & (counts == 0))
    extra = np.flatnonzero((want == 0) & (counts > 0))
    twice = np.flatnonzero(counts > 1)
    if missing.size:
        parts.append(f"missing {ranks(missing)}")
    if twice.size:
        parts.append(f"counted more than once: {ranks(twice)}")
    if extra.size:
        parts.append(f"should not hold {ranks(extra)}")
    return "; ".join(parts)


def text_grid(status: np.ndarray, max_ranks: int = 16, max_chunks: int = 48) -> str:
    """The (rank x chunk) status as a text table (legend below it).

    Parameters
    ----------
    status : ndarray of int8, shape (n_ranks, n_chunks)
        ``NOT_PROMISED``, ``RIGHT``, ``WRONG``, ``MISSING`` or ``RACE`` per place.
    max_ranks, max_chunks : int
        Rows and columns shown before eliding.

    Returns
    -------
    str

    Examples
    --------
    >>> print(text_grid(np.array([[1, 2], [3, 0]], dtype=np.int8)))
    rank \\ chunk  01
          rank 0  oX
          rank 1  .
    o right, X wrong, . missing, ~ race (right in one order only), blank: not required
    """
    r, c = status.shape
    rows = [f"rank \\ chunk  {''.join(str(k % 10) for k in range(min(c, max_chunks)))}"
            + (" ..." if c > max_chunks else "")]
    for i in range(min(r, max_ranks)):
        line = "".join(STATUS_SYMBOLS[s] for s in status[i, :max_chunks])
        rows.append(f"{f'rank {i}':>12}  {line}".rstrip())
    if r > max_ranks:
        rows.append(f"  ... {r - max_ranks} more ranks")
    rows.append("o right, X wrong, . missing, ~ race (right in one order only), "
                "blank: not required")
    return "\n".join(rows)


def _status(schedule: Schedule, data: np.ndarray) -> np.ndarray:
    bounds = _element_bounds(schedule, data.shape[1])
    want = expected(schedule, data)
    promised = promised_mask(schedule)
    orders = (np.arange(schedule.n_ops),
              _toposort(schedule.n_ops, schedule.dep_indptr, schedule.dep_op,
                        latest_first=True))
    good = []
    for order in orders:
        got = execute(schedule, data, order)
        eq = (got == want) | np.isnan(want)
        good.append(np.logical_and.reduceat(eq, bounds[:-1], axis=1))
    written = np.zeros((schedule.n_ranks, schedule.n_chunks), dtype=bool)
    to_rank = schedule.op_dst < schedule.n_ranks
    written[schedule.op_dst[to_rank], schedule.op_chunk[to_rank]] = True
    status = np.full(promised.shape, NOT_PROMISED, dtype=np.int8)
    both, one = good[0] & good[1], good[0] ^ good[1]
    status[promised & both] = RIGHT
    status[promised & one] = RACE
    bad = promised & ~both & ~one
    status[bad & written] = WRONG
    status[bad & ~written] = MISSING
    return status


def _fits_puzzle(schedule: Schedule, inst: Instance) -> str | None:
    """Why ``schedule`` is not an answer to ``inst`` (wrong collective, size ...), or None."""
    if not isinstance(schedule, Schedule):
        return (f"expected a Schedule (e.g. ScheduleBuilder(p).build()), got "
                f"{type(schedule).__name__}")
    if schedule.collective != inst.collective:
        return f"the puzzle asks for a {inst.collective}, this schedule is a {schedule.collective}"
    if schedule.n_ranks != inst.n_ranks:
        return f"the puzzle has {inst.n_ranks} ranks, this schedule {schedule.n_ranks}"
    if not np.isclose(schedule.n_bytes, inst.n_bytes, rtol=1e-12):
        return (f"the puzzle moves n_bytes={inst.n_bytes:g}, this schedule "
                f"{schedule.n_bytes:g}: build it from the puzzle (ScheduleBuilder(p))")
    try:
        blocks = chunk_blocks(inst.collective, inst.n_ranks, schedule.chunk_bounds)
    except ValueError as err:
        return str(err)
    owner, dest = promises(inst.collective, inst.n_ranks, blocks, inst.root)
    if not (np.array_equal(owner, schedule.chunk_owner)
            and np.array_equal(dest, schedule.chunk_dest)):
        return (f"the schedule's promises (chunk_owner / chunk_dest) are not those of the "
                f"puzzle's {inst.collective} (root {inst.root}); build it with "
                "ScheduleBuilder(p), which sets them")
    return None


def _diff_message(schedule: Schedule, status: np.ndarray, inst: Instance) -> str:
    promised = status != NOT_PROMISED
    n_bad = int(np.sum(promised & (status != RIGHT)))
    kinds = ", ".join(f"{int(np.sum(status == k))} {STATUS_NAMES[k]}"
                      for k in (WRONG, MISSING, RACE) if np.any(status == k))
    lines = [f"not yet — {n_bad} of {int(promised.sum())} (rank, chunk) places the "
             f"{inst.collective} promises are wrong: {kinds}.", text_grid(status)]
    owner = schedule.chunk_owner
    for r, c in np.argwhere(promised & (status != RIGHT))[:4]:
        want = np.zeros(inst.n_ranks, dtype=np.int64)
        if owner[c] == -1:
            want[:] = 1
        else:
            want[owner[c]] = 1
        what = ("right in index order only or in the other order only: a dependency is "
                "missing" if status[r, c] == RACE
                else _describe_counts(contributions(schedule, int(r), int(c)), want))
        lines.append(f"rank {r}, chunk {c}: {what}")
    if np.any(status == RACE):
        lines.append("A race: some op reads or overwrites a chunk before the op it needs has "
                     "arrived; add it to after=[...] (or keep ScheduleBuilder's automatic "
                     "dependencies, auto=True).")
    return "\n".join(lines)


def _instance(puzzle_id: str, n_ranks, n_bytes) -> Instance:
    return get(puzzle_id).instance(n_ranks, n_bytes)


def check(puzzle_id: str, schedule_or_builder: Schedule | Callable, *,
          n_ranks: int | None = None, n_bytes: float | None = None, seed: int = 0,
          n_elems: int | None = None, model: str = "achievable") -> PuzzleResult:
    """Check a learner's schedule for puzzle ``puzzle_id``: right, then fast enough.

    Parameters
    ----------
    puzzle_id : str
        One of :data:`nvlearn.puzzles.PUZZLES`' ids.
    schedule_or_builder : Schedule or callable
        A Schedule for the default instance, or ``builder(instance) -> Schedule`` (then any
        rank count and size of the puzzle can be checked).
    n_ranks, n_bytes : optional
        Another instance of the puzzle (a builder is needed).
    seed : int
        Seed of the integer test data.
    n_elems : int, optional
        Elements per rank of the test data (default: 4 per chunk, at least 64).
    model : {"achievable", "wire"}
        The simulator's model for the time; the target always uses the same model.

    Returns
    -------
    PuzzleResult
    """
    from nvlearn.sim import simulate
    from nvlearn.sim.models import check_model

    model = check_model(model)
    inst = _instance(puzzle_id, n_ranks, n_bytes)
    if callable(schedule_or_builder) and not isinstance(schedule_or_builder, Schedule):
        try:
            schedule = schedule_or_builder(inst)
        except ValueError as err:
            return PuzzleResult(False, False, f"not yet — the builder raised: {err}",
                                puzzle_id=puzzle_id)
    else:
        if n_ranks is not None or n_bytes is not None:
            raise ValueError("checking another n_ranks / n_bytes needs a builder function "
                             "(instance -> Schedule), not a ready-made Schedule")
        schedule = schedule_or_builder
    why = _fits_puzzle(schedule, inst)
    if why:
        return PuzzleResult(False, False, f"not yet — {why}", schedule=None, puzzle_id=puzzle_id)
    k = schedule.n_chunks
    m = max(64, 4 * k) if n_elems is None else int(n_elems)
    if np.any(np.diff(_element_bounds(schedule, m)) <= 0):
        m = int(np.ceil(1.0 / np.diff(schedule.chunk_bounds).min())) * 2
    rng = np.random.default_rng(seed)
    data = rng.integers(-DATA_MAX, DATA_MAX + 1, size=(inst.n_ranks, m)).astype(np.float64)
    status = _status(schedule, data)
    target = target_time(inst) if model == "achievable" else _wire_target(inst)
    if np.any((status != NOT_PROMISED) & (status != RIGHT)):
        return PuzzleResult(False, False, _diff_message(schedule, status, inst), None, target,
                            model, status, schedule, puzzle_id)
    try:   # random 64-bit keys: the symbolic twin of the test above
        validate(schedule, seed=seed)
    except ValueError as err:
        return PuzzleResult(False, False, f"not yet — {err}", None, target, model, status,
                            schedule, puzzle_id)
    res = simulate(inst.fabric, schedule, model=model, link_factor=inst.link_factor)
    label, t_base = baseline(inst) if model == "achievable" else (None, None)
    base = f"; the library's best ({label}) takes {t_base * 1e6:.1f} us" if label else ""
    timing = (f"{res.time * 1e6:.1f} us vs target {target * 1e6:.1f} us ({model} model, "
              f"{inst.fabric.name}{', degraded link' if inst.link_factor else ''}){base}")
    if res.time <= target * (1 + 1e-9):
        msg = f"right — correct on every rank, and {timing}"
        return PuzzleResult(True, True, msg, res.time, target, model, status, schedule,
                            puzzle_id, {"baseline": label})
    msg = (f"not yet — correct on every rank, but too slow: {timing}. Hint: "
           f"{inst.puzzle.hints[0] if inst.puzzle.hints else 'pipeline deeper'}")
    return PuzzleResult(False, True, msg, res.time, target, model, status, schedule,
                        puzzle_id, {"baseline": label})


def check_every_instance(puzzle_id: str, builder: Callable, *, seed: int = 1,
                         model: str = "achievable") -> PuzzleResult:
    """Check ``builder`` on every instance the puzzle offers, not only the notebook's.

    Every rank count x size of the puzzle (:attr:`~nvlearn.puzzles.Puzzle.rank_choices`,
    :attr:`~nvlearn.puzzles.Puzzle.size_choices`) is checked by :func:`check` — right on every
    rank, bit for bit, in two execution orders, then at or under its own target — each with
    its own data (seeds ``seed``, ``seed + 1``, ...); the first (the notebook's instance) with
    :data:`RAGGED_ELEMS` elements per rank, so that the chunks hold unequal numbers of them.
    This is what grading asks of a puzzle: a schedule written for one rank count only fails.

    Parameters
    ----------
    puzzle_id : str
        One of :data:`nvlearn.puzzles.PUZZLES`' ids.
    builder : callable
        ``builder(instance) -> Schedule``.
    seed : int
        Seed of the first instance's integer data.
    model : {"achievable", "wire"}
        The simulator's model for the times and targets.

    Returns
    -------
    PuzzleResult
        The first instance's result that is not ok (its message names the instance), or a
        right result whose message lists every instance's time and target; ``details``
        holds ``{"instances": [(repr, time, target), ...]}``.

    Examples
    --------
    >>> from nvlearn.collectives import reduce_scatter
    >>> res = check_every_instance("ring_reduce_scatter",
    ...                            lambda p: reduce_scatter(p.n_ranks, p.n_bytes))
    >>> res.ok, len(res.details["instances"])
    (True, 6)
    >>> eight_only = lambda p: reduce_scatter(8, p.n_bytes)
    >>> print(check_every_instance("ring_reduce_scatter", eight_only).message)
    not yet on ring_reduce_scatter: reduce_scatter of ... — the puzzle has 6 ranks, this schedule 8
    """
    if not callable(builder) or isinstance(builder, Schedule):
        raise ValueError("checking every instance needs a builder function "
                         "(instance -> Schedule), not a ready-made Schedule")
    puzzle = get(puzzle_id)
    done = []
    for k, (n, size) in enumerate(itertools.product(puzzle.rank_choices,
                                                      puzzle.size_choices)):
        inst = puzzle.instance(n, size)
        res = check(puzzle_id, builder, n_ranks=n, n_bytes=size, seed=seed + k,
                    n_elems=RAGGED_ELEMS if k == 0 else None, model=model)
        if not res.ok:
            return replace(
                res, message=res.message.replace("not yet", f"not yet on {inst!r}", 1))
        done.append((repr(inst), res.time, res.target))
    lines = [f"right on all {len(done)} instances of {puzzle_id} ({model} model):"]
    lines += [f"  {name}: {t * 1e6:.1f} us vs target {goal * 1e6:.1f} us"
              for name, t, goal in done]
    return PuzzleResult(True, True, "\n".join(lines), model=model, puzzle_id=puzzle_id,
                        details={"instances": done})


def _wire_target(inst: Instance) -> float:
    from nvlearn.sim import simulate

    best = min(simulate(inst.fabric, s, model="wire", link_factor=inst.link_factor).time
               for s in inst.puzzle.baselines(inst).values())
    return inst.puzzle.factor * best
