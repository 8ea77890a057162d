"""Schedule puzzles (notebook 09): the reference solutions pass, wrong schedules get a
useful diff, and every target is physically possible.

The reference solutions and the hidden tests are read from notebook 09's graded source
(``instructor/source/09_schedule_puzzles/``), their only copy: the solutions are the functions
it defines, the hidden tests the code of its locked test cells.
"""

from __future__ import annotations

import ast
import re
from types import SimpleNamespace

import nbformat
import numpy as np
import pytest

from nvlearn import collectives
from nvlearn.dataplane import run
from nvlearn.puzzles import (
    PUZZLES,
    ScheduleBuilder,
    baseline,
    check,
    check_every_instance,
    contributions,
    execute,
    get,
    must_move,
    n_blocks,
    target_time,
    traffic_bound,
)
from nvlearn.puzzles.grading import MISSING, RACE, RIGHT, WRONG
from nvlearn.schedule import DEP_SENT, validate
from nvlearn.sim import simulate

NB = "09_schedule_puzzles"


@pytest.fixture(scope="module")
def source(repo_root):
    """Notebook 09's graded source (solutions and hidden tests in nbgrader's markup)."""
    return nbformat.read(repo_root / "instructor" / "source" / NB / f"{NB}.ipynb", as_version=4)


@pytest.fixture(scope="module")
def solutions(source):
    """Every function the source defines — each puzzle's reference solution (its solution
    markers are comments), the worked example, the shared helpers — in one namespace."""
    namespace = {"ScheduleBuilder": ScheduleBuilder}
    for cell in source.cells:
        if cell.cell_type == "code":
            code = "\n".join(x for x in cell.source.splitlines() if not x.startswith("%"))
            defs = [n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)]
            exec(compile(ast.Module(defs, type_ignores=[]), NB, "exec"), namespace)
    return SimpleNamespace(**namespace)


def test_at_least_ten_puzzles_with_solutions(solutions):
    assert len(PUZZLES) >= 10
    assert len({p.id for p in PUZZLES}) == len(PUZZLES)
    for p in PUZZLES:
        assert callable(getattr(solutions, p.id)), p.id


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.id)
def test_reference_solution_passes_and_target_is_possible(solutions, puzzle):
    inst = puzzle.instance()
    res = check(puzzle.id, getattr(solutions, puzzle.id))
    assert res.ok and res.correct, res.message
    assert res.message.startswith("right") and "achievable model" in res.message
    target = target_time(inst)
    assert res.time <= target == res.target
    # the target is computed from the library: factor x its best simulated time
    assert target == pytest.approx(puzzle.factor * baseline(inst)[1], rel=1e-12)
    # ... and no schedule could beat it: it is at least the wire-rate traffic bound, which
    # the reference itself respects on the ideal (wire) model
    bound = traffic_bound(inst)
    assert bound <= target
    wire = simulate(inst.fabric, res.schedule, model="wire", link_factor=inst.link_factor)
    assert wire.time >= bound * (1 - 1e-9)


def test_hidden_tests_pass_on_the_reference_solutions(source, solutions):
    hidden = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
              if c.metadata.get("nbgrader", {}).get("grade") and "BEGIN HIDDEN TESTS" in c.source}
    graded = [p.id for p in PUZZLES if f"{p.id}_tests" in hidden]
    assert graded == [p.id for p in PUZZLES[1:]]      # all but the worked example
    for pid in graded:
        code = hidden[f"{pid}_tests"]
        assert f'check_every_instance("{pid}", {pid},' in code
        exec(code, {**vars(solutions), "check_every_instance": check_every_instance})


def test_every_instance_is_checked():
    ring_rs = get("ring_reduce_scatter")
    right = check_every_instance(ring_rs.id, lambda p: collectives.reduce_scatter(
        p.n_ranks, p.n_bytes))
    assert right.ok and len(right.details["instances"]) == (
        len(ring_rs.rank_choices) * len(ring_rs.size_choices))
    assert right.message.count(" us vs target ") == len(right.details["instances"])
    only_default = check_every_instance(ring_rs.id, lambda p: collectives.reduce_scatter(
        8, ring_rs.size_choices[0]))
    assert not only_default.ok and only_default.message.startswith(
        "not yet on ring_reduce_scatter: reduce_scatter of 1.05 MB on 8 ranks")
    with pytest.raises(ValueError, match="builder function"):
        check_every_instance(ring_rs.id, collectives.reduce_scatter(8, 1.0))


def _ring_allreduce_2(after_second=True):
    b = ScheduleBuilder(collective="allreduce", n_ranks=2, n_bytes=1e6)
    first = b.send(0, 1, 0, reduce=True)
    b.send(1, 0, 0, auto=False, after=[first] if after_second else [])
    return b.build()


def test_race_is_reported_with_a_diff():
    ok = _ring_allreduce_2(True)
    validate(ok)
    with pytest.raises(ValueError, match="latest-ready-first"):
        validate(_ring_allreduce_2(False))
    inst = get("ring_allreduce").instance(4, 4096.0)
    b = ScheduleBuilder(inst, chunks=4)
    ring = list(range(4))
    ops = {}
    for s in range(3):                       # reduce-scatter, each op waiting properly
        for i in ring:
            c = (i - s - 1) % 4
            ops[(s, i)] = b.send(i, (i + 1) % 4, c, reduce=True)
    for s in range(3):                       # all-gather with no dependencies at all: a race
        for i in ring:
            b.send(i, (i + 1) % 4, (i - s) % 4, auto=False)
    res = check("ring_allreduce", lambda p: b.build(), n_ranks=4, n_bytes=4096.0)
    assert not res.ok and not res.correct and res.time is None
    assert np.any(res.status == RACE) or np.any(res.status == WRONG)
    assert "race" in res.message or "dependency" in res.message
    assert "rank \\ chunk" in res.message            # the text map
    fig = res.plot()
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "right" in labels


def test_missing_contribution_names_the_rank():
    inst = get("ring_reduce_scatter").instance(4, 4096.0)
    b = ScheduleBuilder(inst)
    for s in range(3):
        for i in range(4):
            if (s, i) == (0, 2):             # rank 2 never passes block 1 on: 2's share lost
                continue
            b.send(i, (i + 1) % 4, (i - s - 1) % 4, reduce=True)
    res = check("ring_reduce_scatter", lambda p: b.build(), n_ranks=4, n_bytes=4096.0)
    assert not res.correct
    assert res.status[1, 1] == WRONG and res.status[0, 0] == RIGHT
    assert res.status[0, 1] == 0               # not promised to rank 0
    line = next(x for x in res.message.splitlines() if x.startswith("rank 1, chunk 1"))
    assert re.search(r"missing 2\b", line)
    np.testing.assert_array_equal(contributions(b.build(), 1, 1), [1, 1, 0, 1])


def test_empty_schedule_is_all_missing_and_says_not_yet():
    res = check("rd_allgather", lambda p: ScheduleBuilder(p).build())
    assert np.all(res.status != 0)              # every rank must end with every block
    own = np.eye(8, dtype=bool)                 # which it holds from the start only for its own
    assert np.all(res.status[own] == RIGHT) and np.all(res.status[~own] == MISSING)
    assert "56 of 64" in res.message
    assert res.message.startswith("not yet")


def test_wrong_collective_or_size_is_refused():
    sched = collectives.allgather(8, get("ring_allreduce").instance().n_bytes)
    assert "asks for a allreduce" in check("ring_allreduce", sched).message
    b = ScheduleBuilder(collective="allreduce", n_ranks=8, n_bytes=123.0)
    assert "n_bytes" in check("ring_allreduce", b.build()).message
    with pytest.raises(ValueError, match="builder function"):
        check("ring_allreduce", b.build(), n_ranks=4)
    with pytest.raises(ValueError, match="the puzzles are"):
        check("no_such_puzzle", b.build())
    res = check("ring_allreduce", lambda p: ScheduleBuilder(p, chunks=3).send(0, 0, 0))
    assert "builder raised" in res.message and "src and dst" in res.message


def test_library_schedule_is_right_and_timed_like_the_baseline():
    inst = get("ring_allreduce").instance()
    res = check("ring_allreduce", collectives.allreduce(inst.n_ranks, inst.n_bytes))
    assert res.ok
    assert res.time == pytest.approx(baseline(inst)[1], rel=1e-12)


def test_execute_matches_the_dataplane():
    rng = np.random.default_rng(3)
    for s in (collectives.allreduce(6, 1e6, "double_binary_tree", chunks=3),
              collectives.alltoall(4, 1e6), collectives.broadcast(5, 1e6, "binary_tree", root=2)):
        data = rng.integers(-1000, 1000, size=(s.n_ranks, 48)).astype(float)
        got = execute(s, data, np.arange(s.n_ops))
        ref = run(s, data)
        keep = ~np.isnan(ref)
        np.testing.assert_array_equal(got[keep], ref[keep])


def test_builder_dependencies():
    b = ScheduleBuilder(collective="broadcast", n_ranks=3, n_bytes=3e6, chunks=3)
    for c in range(3):
        b.send(0, 1, c)
        b.send(1, 2, c)
    s = b.build()
    validate(s)
    # chunk 1 on 0 -> 1 waits for chunk 0 to have left (the connection is FIFO)
    op = [i for i in range(s.n_ops) if s.op_src[i] == 0 and s.op_chunk[i] == 1][0]
    kinds = s.dep_kind[s.dep_indptr[op]:s.dep_indptr[op + 1]].tolist()
    assert kinds == [DEP_SENT]
    nofifo = ScheduleBuilder(collective="broadcast", n_ranks=2, n_bytes=1.0, chunks=2,
                             fifo=False)
    nofifo.send(0, 1, 0)
    nofifo.send(0, 1, 1)
    assert nofifo.build().dep_op.size == 0
    # reduces into one place do not wait for each other; a copy into it waits for all
    r = ScheduleBuilder(collective="reduce_scatter", n_ranks=3, n_bytes=3.0)
    a = r.send(1, 0, 0, reduce=True)
    c = r.send(2, 0, 0, reduce=True)
    assert (a, c) == (0, 1)
    assert r.build().deps_of(1).size == 0


def test_builder_input_errors():
    b = ScheduleBuilder(collective="allgather", n_ranks=4, n_bytes=1.0)
    with pytest.raises(ValueError, match="not a rank"):
        b.send(0, 4, 0)
    with pytest.raises(ValueError, match="chunk must be"):
        b.send(0, 1, 4)
    with pytest.raises(ValueError, match="only ops"):
        b.send(0, 1, 0, after=[3])
    with pytest.raises(ValueError, match="multiple of 4"):
        ScheduleBuilder(collective="allgather", n_ranks=4, n_bytes=1.0, chunks=6)
    with pytest.raises(ValueError, match="straddles"):
        ScheduleBuilder(collective="allgather", n_ranks=2, n_bytes=1.0,
                        chunk_bounds=[0.0, 0.6, 1.0])
    assert n_blocks("alltoall", 3) == 9


def test_must_move_against_algorithms_that_meet_it():
    p, n = 8, 8e6
    # an in-switch all-reduce (every GPU adds its buffer into the switch, which sends the
    # sum back) moves exactly n out of and into each GPU: the all-reduce bound
    sw = ScheduleBuilder(collective="allreduce", n_ranks=p, n_bytes=n, switches=["sw"])
    for r in range(p):
        sw.send(r, p, 0, reduce=True)
    for r in range(p):
        sw.send(p, r, 0)
    s = sw.build()
    validate(s)
    np.testing.assert_allclose(s.bytes_sent()[:p], must_move("allreduce", p, n)[0])
    np.testing.assert_allclose(s.bytes_received()[:p], must_move("allreduce", p, n)[1])
    # direct reduce-scatter / all-gather / all-to-all meet their per-rank bounds exactly
    b = ScheduleBuilder(collective="reduce_scatter", n_ranks=p, n_bytes=n)
    for r in range(p):
        for d in range(p):
            if d != r:
                b.send(r, d, d, reduce=True)
    np.testing.assert_allclose(b.build().bytes_sent(), must_move("reduce_scatter", p, n)[0])
    a2a = collectives.alltoall(p, n / p)
    np.testing.assert_allclose(a2a.bytes_sent(), must_move("alltoall", p, a2a.n_bytes)[0])
    # a box of q ranks: the ring all-reduce crosses each box boundary with n
    assert must_move("allreduce", p, n, 4) == (n, n)
    with pytest.raises(ValueError):
        must_move("allreduce", p, n, p)


def test_targets_beat_or_match_the_library_as_stated():
    for p in PUZZLES:
        assert 0 < p.factor <= 1.05
        assert p.hints and p.statement
    beat = [p.id for p in PUZZLES if p.factor < 1]
    assert {"pod_allreduce", "ib_2d_allreduce", "rail_alltoall",
            "degraded_allreduce"} <= set(beat)


def test_nb09_checks_against_counted_bytes():
    from nvlearn.check import nb09

    # ring reduce-scatter: each rank forwards p-1 blocks of n/p; 6 ranks, 12 MiB -> 10 MiB
    assert nb09.ring_rs_sent_mib(10).ok and not nb09.ring_rs_sent_mib(12).ok
    # hierarchical: shard n/q all-reduced over m nodes sends 2 (m-1)/m n/q = 12 MiB
    assert nb09.hierarchical_cross_mib("12").ok and not nb09.hierarchical_cross_mib(16).ok


def test_puzzle_explorer_shows_target_and_bound():
    from nvlearn.widgets.puzzles import PuzzleExplorer

    ex = PuzzleExplorer()
    assert "chain broadcast" in ex.text and "traffic bound" in ex.text
    ex.set(puzzle_id="pod_allreduce", by="link")
    assert "target: 0.9 x" in ex.text
    assert ex.figure.axes[0].get_xlabel().startswith("time")
