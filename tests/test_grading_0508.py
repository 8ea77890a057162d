"""Grading notebooks 08, 07 and 06 (and, when converted, 05) with nbgrader, end to end.

Modelled on ``tests/test_grading.py`` (which covers the pipeline's time limit and crash
handling on notebook 02): each notebook's source is released into a temporary course directory
and three students hand it in — the worked solutions (full marks on every auto-graded
question, every written answer on the manual list with its rubric), the blank release (zero)
and the solutions with one slip (exactly that question's points lost).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600       # seconds per cell: the worked solutions simulate 256-GPU domains

#: Per notebook: (grade id of the answer cell, its code with a typical slip, the hidden-test
#: cell that must lose its points).
SLIPS = {
    # the 576-GPU domain counted with 8 spines per plane: the uneven bundles forgotten
    "08_next_generations": ("ex8", "answer = 18 * (16 + 8)\ncheck.nb08.domain_576_chips(answer)",
                            "ex8_tests"),
    # the bubble bound rounded down instead of up
    "07_parallelism_strategies": ("ex6", "answer = 119\ncheck.nb07.min_micro_batches(answer)",
                                  "ex6_tests"),
    # the backup workers: one too few dropped
    "06_stragglers_tail_latency": ("ex5", "answer = next(k for k in range(4096) if JITTER."
                                   "expected_kth(4096 - k, 4096) <= 1.05 * JITTER.mean) - 1\n"
                                   "check.nb06.backup_workers_k(answer)", "ex5_tests"),
}


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


@pytest.fixture(scope="module", params=sorted(SLIPS))
def graded(request, tmp_path_factory):
    aid = request.param
    tmp = tmp_path_factory.mktemp(f"coursework_{aid[:2]}")
    source = tmp / "source"
    shutil.copytree(course.SOURCE / aid, source / aid)
    course_dir = tmp / "course"
    assert course.release(source=source, course=course_dir, notebooks=None) == [aid]
    solved = course.solution_notebook(source / aid / f"{aid}.ipynb")
    grade_id, slip, _ = SLIPS[aid]
    subs = {
        "correct": solved,
        "blank": nbformat.read(course_dir / "release" / aid / f"{aid}.ipynb", as_version=4),
        "wrong": _with_answer(solved, grade_id, slip),
    }
    submissions = tmp / "submitted"
    for student, nb in subs.items():
        (submissions / student).mkdir(parents=True)
        nbformat.write(nb, submissions / student / f"{aid}.ipynb")
    return aid, course_dir, course.grade(submissions, course=course_dir, timeout=TIMEOUT)


def _scores(rows, student):
    return {r.question: r for r in rows if r.student == student}


def test_release_has_no_solutions_or_hidden_tests(graded):
    aid, course_dir, _ = graded
    text = (course_dir / "release" / aid / f"{aid}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer", "Rubric"):
        assert marker not in text


def test_correct_solution_scores_full_marks(graded):
    _, _, rows = graded
    auto = [r for r in _scores(rows, "correct").values() if r.kind == "auto"]
    assert auto and all(r.score == r.max_score for r in auto), auto
    manual = [r for r in _scores(rows, "correct").values() if r.kind == "manual"]
    assert manual and all(r.status == "to mark by hand" for r in manual)


def test_blank_release_scores_zero(graded):
    _, _, rows = graded
    blank = _scores(rows, "blank").values()
    assert blank and all(r.score == 0 for r in blank), list(blank)


def test_wrong_answer_loses_exactly_that_question(graded):
    aid, _, rows = graded
    right, wrong = _scores(rows, "correct"), _scores(rows, "wrong")
    lost = {q: right[q].score - wrong[q].score for q in right if right[q].kind == "auto"}
    tests = SLIPS[aid][2]
    assert lost == {q: (right[q].max_score if q == tests else 0.0) for q in lost}
