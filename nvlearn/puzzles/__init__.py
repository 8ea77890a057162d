"""Schedule puzzles: write a collective by hand, and the course checks it two ways.

In the style of S. Rush's GPU / LLM-training puzzles: each puzzle states a collective, a
fabric and a time to beat; the learner writes a :class:`~nvlearn.schedule.Schedule` (most
easily with :class:`ScheduleBuilder`), and :func:`check` runs it on integer data (right on
every rank, bit for bit, in two execution orders) and on the simulator (time vs target).

* :mod:`~nvlearn.puzzles.builder` — :class:`ScheduleBuilder` (``send(src, dst, chunk,
  reduce=False, after=None)``) and the collectives' promises per chunk.
* :mod:`~nvlearn.puzzles.catalogue` — the :class:`Puzzle` records (:data:`PUZZLES`), their
  fabrics, and target times computed from the library's own schedules.
* :mod:`~nvlearn.puzzles.grading` — :func:`check` and its :class:`PuzzleResult` (with a map
  of which rank holds what when the schedule is wrong); :func:`check_every_instance`, the
  same on every rank count and size the puzzle offers (what grading asks).
* :mod:`~nvlearn.puzzles.bounds` — :func:`traffic_bound`, the wire-rate time no schedule
  can beat (:func:`fabric_traffic_bound`: the same for any fabric and collective).

Reference solutions and hidden tests live outside the package, in notebook 09's graded source
(``instructor/source/09_schedule_puzzles/``).

References
----------
S. Rush, "GPU Puzzles" (github.com/srush/GPU-Puzzles) and "LLM Training Puzzles"
(github.com/srush/LLM-Training-Puzzles): the exercise format.

Examples
--------
>>> len(PUZZLES) >= 10
True
>>> b = ScheduleBuilder(get("ring_allreduce").instance())
>>> check("ring_allreduce", b.build()).correct        # an empty schedule computes nothing
False
"""

from .bounds import fabric_traffic_bound, must_move, traffic_bound
from .builder import ScheduleBuilder, chunk_blocks, n_blocks, promises
from .catalogue import (
    PUZZLES,
    Instance,
    Puzzle,
    baseline,
    get,
    statement_markdown,
    target_time,
)
from .grading import (
    STATUS_NAMES,
    PuzzleResult,
    check,
    check_every_instance,
    contributions,
    execute,
    text_grid,
)

__all__ = [
    "PUZZLES",
    "STATUS_NAMES",
    "Instance",
    "Puzzle",
    "PuzzleResult",
    "ScheduleBuilder",
    "baseline",
    "check",
    "check_every_instance",
    "chunk_blocks",
    "contributions",
    "execute",
    "fabric_traffic_bound",
    "get",
    "must_move",
    "n_blocks",
    "promises",
    "statement_markdown",
    "target_time",
    "text_grid",
    "traffic_bound",
]
