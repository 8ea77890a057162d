"""The coursework pipeline end to end, with nbgrader: release, then grade five submissions.

One notebook's source (02) is released into a temporary course directory; five students hand
in: the worked solutions (full marks on every auto-graded question), the blank release (zero),
the solutions with one slip (exactly that question's points lost), one whose answer cell loops
(cut off by the time limit: that question scores zero, the rest of the notebook is graded),
and one whose kernel dies (zero for the notebook, and the students after it are still graded).
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
TIMEOUT = 60        # seconds per cell: above the slowest honest cell on a loaded machine


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
    shutil.copytree(course.SOURCE / NB, source / NB)
    course_dir = tmp / "course"
    assert course.release(source=source, course=course_dir, notebooks=None) == [NB]
    solved = course.solution_notebook(source / NB / f"{NB}.ipynb")
    blank = nbformat.read(course_dir / "release" / NB / f"{NB}.ipynb", as_version=4)
    subs = {
        "correct": solved,
        "blank": blank,
        # NVLink 4's codeword time where NVLink 5's is asked: exercise 6's slip
        "wrong": _with_answer(solved, "ex6", 'answer = "25.6 ns"\n'
                              'check.nb02.nvlink5_codeword_ns(answer)'),
        "looping": _with_answer(solved, "ex4", "answer = None\nwhile True:\n    pass"),
        "crashing": _with_answer(solved, "ex4", "import os\nos._exit(1)"),
    }
    submissions = tmp / "submitted"
    for student, nb in subs.items():
        (submissions / student).mkdir(parents=True)
        nbformat.write(nb, submissions / student / f"{NB}.ipynb")
    rows = course.grade(submissions, course=course_dir, timeout=TIMEOUT)
    return course_dir, rows


def _scores(rows, student):
    return {r.question: r for r in rows if r.student == student}


def _auto_points(rows, student):
    return sum(r.score for r in _scores(rows, student).values() if r.kind == "auto")


def test_release_has_no_solutions_or_hidden_tests(graded):
    course_dir, _ = graded
    text = (course_dir / "release" / NB / f"{NB}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer", "Rubric"):
        assert marker not in text
    solutions = (course_dir / "solutions" / f"{NB}.ipynb").read_text(encoding="utf-8")
    assert "Model answer" in solutions and "BEGIN HIDDEN TESTS" not in solutions


def test_correct_solution_scores_full_marks(graded):
    _, rows = graded
    auto = [r for r in _scores(rows, "correct").values() if r.kind == "auto"]
    assert auto and all(r.score == r.max_score for r in auto), auto


def test_written_answers_go_to_the_manual_list_with_the_rubric(graded):
    course_dir, rows = graded
    manual = [r for r in _scores(rows, "correct").values() if r.kind == "manual"]
    assert manual and all(r.score is None and r.status == "to mark by hand" for r in manual)
    with open(course_dir / "manual.csv", encoding="utf-8") as f:
        items = [row for row in csv.DictReader(f) if row["student"] == "correct"]
    assert {i["question"] for i in items} == {r.question for r in manual}
    assert all("Rubric" in i["model answer and rubric"] and i["answer"] for i in items)
    assert "Rubric" in (course_dir / "manual.md").read_text(encoding="utf-8")


def test_blank_release_scores_zero(graded):
    _, rows = graded
    blank = _scores(rows, "blank").values()
    assert blank and all(r.score == 0 for r in blank), list(blank)


def test_wrong_answer_loses_exactly_that_question(graded):
    _, rows = graded
    right, wrong = _scores(rows, "correct"), _scores(rows, "wrong")
    lost = {q: right[q].score - wrong[q].score for q in right if right[q].kind == "auto"}
    assert lost == {q: (right[q].max_score if q == "ex6_tests" else 0.0) for q in lost}


def test_looping_answer_is_cut_off_and_the_rest_is_graded(graded):
    _, rows = graded
    loop, right = _scores(rows, "looping"), _scores(rows, "correct")
    assert loop["ex4_tests"].score == 0
    assert _auto_points(rows, "looping") == _auto_points(rows, "correct") - right[
        "ex4_tests"].max_score


def test_crashing_notebook_scores_zero_and_the_batch_goes_on(graded):
    _, rows = graded
    crash = _scores(rows, "crashing").values()
    assert crash and all(r.score == 0 for r in crash if r.kind == "auto")
    # graded after it (students run in name order): full marks
    assert _auto_points(rows, "looping") > 0 and _auto_points(rows, "wrong") > 0


def test_grade_table_has_a_row_per_student_and_question(graded):
    course_dir, rows = graded
    with open(course_dir / "grades.csv", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    questions = {r.question for r in rows}
    assert len(table) == 5 * len(questions)
    assert set(table[0]) == {"student", "notebook", "question", "kind", "score", "max_score",
                             "status"}
