"""Grading notebooks 08, 07, 06 and 05 with nbgrader, end to end.

Modelled on ``tests/test_grading.py`` (which covers the pipeline's time limit and crash
handling on notebook 02): each notebook's source is released into a temporary course directory
and three students hand it in — the worked solutions (full marks on every auto-graded
question, every written answer on the manual list with its rubric), the blank release (zero)
and the solutions with one slip (exactly that question's points lost).

Notebook 05 is graded more cheaply, with one submission that does all three at once: the
worked solutions with one slip, one answer left blank and one written answer left blank —
every other question scores full marks, the slip and the blank answer lose exactly their
points, the blank written answer scores zero and the other waits for marking by hand (one
kernel run instead of three).
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


#: Notebook 05's one submission: the worked solutions with a slip in one answer (the average
#: GPU's bound where the busiest GPU's is asked), one answer and one written answer left as
#: released (blank).
MIXED_05 = ("05_moe_all_to_all",
            {"ex6": "_m = traffic_matrix(route(8, 2048, 64, 4, skew=1.2, seed=1), 4096, "
                    "bytes_per_elem=2)\n"
                    "_off = _m - np.diag(np.diag(_m))\n"
                    "answer = 2 * _off.sum(axis=1).mean() / injection_bw_per_dir(dgx_h100())[0]"
                    " * 1e6\n"
                    "check.nb05.busiest_gpu_bound_us(answer)"},
            ("ex9", "ex3"), ("ex6_tests", "ex9_tests"))


@pytest.fixture(scope="module")
def graded_05(tmp_path_factory):
    aid, slips, blanks, _ = MIXED_05
    tmp = tmp_path_factory.mktemp("coursework_05")
    source = tmp / "source"
    shutil.copytree(course.SOURCE / aid, source / aid)
    course_dir = tmp / "course"
    assert course.release(source=source, course=course_dir, notebooks=None) == [aid]
    nb = course.solution_notebook(source / aid / f"{aid}.ipynb")
    released = nbformat.read(course_dir / "release" / aid / f"{aid}.ipynb", as_version=4)
    stub = {c.metadata["nbgrader"]["grade_id"]: c.source for c in released.cells
            if c.metadata.get("nbgrader", {}).get("grade_id") in blanks}
    for grade_id, code in {**slips, **stub}.items():
        nb = _with_answer(nb, grade_id, code)
    (tmp / "submitted" / "mixed").mkdir(parents=True)
    nbformat.write(nb, tmp / "submitted" / "mixed" / f"{aid}.ipynb")
    return course_dir, course.grade(tmp / "submitted", course=course_dir, timeout=TIMEOUT)


def test_05_release_has_no_solutions_or_hidden_tests(graded_05):
    course_dir, _ = graded_05
    aid = MIXED_05[0]
    text = (course_dir / "release" / aid / f"{aid}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer", "Rubric"):
        assert marker not in text


def test_05_each_question_is_graded_on_its_own(graded_05):
    _, rows = graded_05
    lost = MIXED_05[3]
    got = _scores(rows, "mixed")
    auto = {q: r for q, r in got.items() if r.kind == "auto"}
    assert len(auto) == 9 and all(r.status == "graded" for r in auto.values())
    assert {q: r.score for q, r in auto.items()} == {
        q: (0.0 if q in lost else r.max_score) for q, r in auto.items()}
    manual = {q: r for q, r in got.items() if r.kind == "manual"}
    assert manual["ex3"].score == 0 and manual["ex3"].status == "blank"
    assert manual["ex11"].score is None and manual["ex11"].status == "to mark by hand"
    assert sum(r.max_score for r in got.values()) == 24
