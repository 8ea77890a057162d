"""The coursework pipeline end to end, with nbgrader: release, then grade five submissions.

Two notebooks' sources (02 and 09) are released into one temporary course directory and
graded in one batch. Five students hand in notebook 02: the worked solutions (full marks on
every auto-graded question), the blank release (zero), the solutions with one slip (exactly
that question's points lost), one whose answer cell loops (cut off by the time limit: that
question scores zero, the rest of the notebook is graded), and one whose kernel dies (zero for
the notebook, and the students after it are still graded). Three of them hand in notebook 09
too: the worked solutions, the blank release, and the solutions with one puzzle written for
the notebook's 8 ranks only (it passes the notebook's self-check, its hidden tests on other
rank counts fail) and another whose cell loops — exactly those two puzzles' points lost.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NB = "02_serdes_bandwidth"
PUZZLES = "09_schedule_puzzles"
TIMEOUT = 60        # seconds per cell: above the slowest honest cell on a loaded machine

#: Notebook 09's slip: the ring all-reduce hard-wired to the notebook's 8 ranks.
EIGHT_RANKS_ONLY = """def ring_allreduce(p):
    b = ScheduleBuilder(p, chunks=8)
    ar_ring(b, list(range(8)), list(range(8)))
    return b.build()

check_puzzle("ring_allreduce", ring_allreduce)"""


def _course_module():
    spec = importlib.util.spec_from_file_location("course_tool", ROOT / "tools" / "course.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["course_tool"] = module
    spec.loader.exec_module(module)
    return module


course = _course_module()


def _with_answer(nb, grade_id: str, code: str):
    nb = nbformat.from_dict(nb)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    cell.source = code
    return nb


@pytest.fixture(scope="module")
def graded():
    # A directory of its own, not under pytest's numbered basetemp: another pytest session
    # on the machine prunes old basetemps, and this fixture runs for minutes.
    tmp = Path(tempfile.mkdtemp(prefix="nvlearn-grading-"))
    yield _grade_all(tmp)
    if not os.environ.get("NVLEARN_KEEP_TEST_OUTPUT"):     # set it to read grades.csv after
        shutil.rmtree(tmp, ignore_errors=True)


def _grade_all(tmp: Path):
    source = tmp / "source"
    for aid in (NB, PUZZLES):
        shutil.copytree(course.SOURCE / aid, source / aid)
    course_dir = tmp / "course"
    assert course.release(source=source, course=course_dir, notebooks=None) == [NB, PUZZLES]
    solved, blank = {}, {}
    for aid in (NB, PUZZLES):
        solved[aid] = course.solution_notebook(source / aid / f"{aid}.ipynb")
        blank[aid] = nbformat.read(course_dir / "release" / aid / f"{aid}.ipynb", as_version=4)
    subs = {
        "correct": solved,
        "blank": blank,
        # NVLink 4's codeword time where NVLink 5's is asked: exercise 6's slip
        "wrong": {NB: _with_answer(solved[NB], "ex6", 'answer = "25.6 ns"\n'
                                   'check.nb02.nvlink5_codeword_ns(answer)'),
                  PUZZLES: _with_answer(_with_answer(solved[PUZZLES], "ring_allreduce",
                                                     EIGHT_RANKS_ONLY),
                                        "rail_alltoall", "while True:\n    pass")},
        "looping": {NB: _with_answer(solved[NB], "ex4", "answer = None\nwhile True:\n    pass")},
        "crashing": {NB: _with_answer(solved[NB], "ex4", "import os\nos._exit(1)")},
    }
    submissions = tmp / "submitted"
    for student, notebooks in subs.items():
        (submissions / student).mkdir(parents=True)
        for aid, nb in notebooks.items():
            nbformat.write(nb, submissions / student / f"{aid}.ipynb")
    rows = course.grade(submissions, course=course_dir, timeout=TIMEOUT)
    return course_dir, rows, {s: sorted(n) for s, n in subs.items()}


def _scores(rows, student, notebook=NB):
    return {r.question: r for r in rows if r.student == student and r.notebook == notebook}


def _auto_points(rows, student, notebook=NB):
    return sum(r.score for r in _scores(rows, student, notebook).values() if r.kind == "auto")


@pytest.mark.parametrize("aid", [NB, PUZZLES])
def test_release_has_no_solutions_or_hidden_tests(graded, aid):
    course_dir, _, _ = graded
    text = (course_dir / "release" / aid / f"{aid}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer", "Rubric"):
        assert marker not in text
    solutions = (course_dir / "solutions" / f"{aid}.ipynb").read_text(encoding="utf-8")
    assert "Model answer" in solutions and "BEGIN HIDDEN TESTS" not in solutions


@pytest.mark.parametrize("aid", [NB, PUZZLES])
def test_correct_solution_scores_full_marks(graded, aid):
    _, rows, _ = graded
    auto = [r for r in _scores(rows, "correct", aid).values() if r.kind == "auto"]
    assert auto and all(r.score == r.max_score for r in auto), auto


def test_written_answers_go_to_the_manual_list_with_the_rubric(graded):
    course_dir, rows, _ = graded
    manual = [r for r in rows if r.student == "correct" and r.kind == "manual"]
    assert {r.notebook for r in manual} == {NB, PUZZLES}
    assert all(r.score is None and r.status == "to mark by hand" for r in manual)
    with open(course_dir / "manual.csv", encoding="utf-8") as f:
        items = [row for row in csv.DictReader(f) if row["student"] == "correct"]
    assert {(i["notebook"], i["question"]) for i in items} == {(r.notebook, r.question)
                                                               for r in manual}
    assert all("Rubric" in i["model answer and rubric"] and i["answer"] for i in items)
    assert "Rubric" in (course_dir / "manual.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("aid", [NB, PUZZLES])
def test_blank_release_scores_zero(graded, aid):
    _, rows, _ = graded
    blank = _scores(rows, "blank", aid).values()
    assert blank and all(r.score == 0 for r in blank), list(blank)


def test_wrong_answer_loses_exactly_that_question(graded):
    _, rows, _ = graded
    right, wrong = _scores(rows, "correct"), _scores(rows, "wrong")
    lost = {q: right[q].score - wrong[q].score for q in right if right[q].kind == "auto"}
    assert lost == {q: (right[q].max_score if q == "ex6_tests" else 0.0) for q in lost}


def test_puzzles_lose_exactly_the_wrong_and_the_looping_puzzle(graded):
    course_dir, rows, _ = graded
    right, wrong = _scores(rows, "correct", PUZZLES), _scores(rows, "wrong", PUZZLES)
    lost = {q: right[q].score - wrong[q].score for q in right if right[q].kind == "auto"}
    bad = ("ring_allreduce_tests", "rail_alltoall_tests")
    assert lost == {q: (right[q].max_score if q in bad else 0.0) for q in lost}
    assert all(wrong[q].status == "graded" for q in bad)
    # the hard-wired ring passed the notebook's own check: only the hidden tests catch it
    nb = nbformat.read(course_dir / "autograded" / "wrong" / PUZZLES / f"{PUZZLES}.ipynb",
                       as_version=4)
    (cell,) = [c for c in nb.cells
               if c.metadata.get("nbgrader", {}).get("grade_id") == "ring_allreduce"]
    shown = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                    for o in cell.outputs)
    assert shown.startswith("right"), shown


def test_looping_answer_is_cut_off_and_the_rest_is_graded(graded):
    _, rows, _ = graded
    loop, right = _scores(rows, "looping"), _scores(rows, "correct")
    assert loop["ex4_tests"].score == 0
    assert _auto_points(rows, "looping") == _auto_points(rows, "correct") - right[
        "ex4_tests"].max_score


def test_crashing_notebook_scores_zero_and_the_batch_goes_on(graded):
    _, rows, _ = graded
    crash = _scores(rows, "crashing").values()
    assert crash and all(r.score == 0 for r in crash if r.kind == "auto")
    # graded after it (students run in name order): full marks
    assert _auto_points(rows, "looping") > 0 and _auto_points(rows, "wrong") > 0


def test_grade_table_has_a_row_per_student_notebook_and_question(graded):
    course_dir, rows, handed_in = graded
    with open(course_dir / "grades.csv", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    questions = {aid: {r.question for r in rows if r.notebook == aid} for aid in (NB, PUZZLES)}
    assert len(table) == sum(len(questions[aid]) for ids in handed_in.values() for aid in ids)
    assert set(table[0]) == {"student", "notebook", "question", "kind", "score", "max_score",
                             "status"}
