"""The course's coursework commands: make the student release, grade submissions.

    python tools/course.py release
    python tools/course.py grade SUBMISSIONS [--timeout SECONDS]

The single source of every graded notebook is ``instructor/source/<id>/<id>.ipynb`` (outside
the importable package; the wheel ships only ``nvlearn*``). It holds the solutions and the
hidden tests in nbgrader's markup. Grading is done by nbgrader (its ``generate_assignment``
and ``autograde``) in the course directory ``build/course/`` (generated, git-ignored).

``release`` writes

* ``notebooks/<id>.ipynb`` -- what learners open (``make lab``) and nbval runs: solutions
  replaced by stubs, hidden tests removed; the checked (``# NBVAL_CHECK_OUTPUT``) outputs
  already committed there are kept for every cell whose code did not change;
* ``build/course/release/<id>/`` -- the same notebook as nbgrader's release, to hand out;
* ``build/course/solutions/<id>.ipynb`` -- the worked solutions (hidden tests removed).

``grade`` takes a folder with one sub-folder per student holding that student's submitted
notebooks (``SUBMISSIONS/<student>/<id>.ipynb``), runs nbgrader's autograder on them -- every
notebook in its own kernel, every cell cut off after ``--timeout`` seconds -- and writes

* ``build/course/grades.csv`` -- one row per student, notebook and question;
* ``build/course/manual.csv`` and ``manual.md`` -- the free-text answers still to be marked,
  each beside its model answer and rubric.

A notebook whose kernel crashes scores zero on every question nbgrader could not grade, and
the batch goes on.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

__all__ = [
    "COURSE", "SOURCE", "GradeRow", "ManualItem", "assignments", "grade", "release",
    "solution_notebook", "student_notebook",
]

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "instructor" / "source"
CONFIG = ROOT / "instructor" / "nbgrader_config.py"
COURSE = ROOT / "build" / "course"
MARK = "NBVAL_CHECK_OUTPUT"
_SOLUTION = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")


def assignments(source: Path = SOURCE) -> list[str]:
    """The graded notebooks: one folder ``<id>/<id>.ipynb`` per notebook under ``source``."""
    return sorted(p.name for p in source.iterdir() if (p / f"{p.name}.ipynb").is_file())


def _nbgrader(args: list[str], course: Path, timeout: float | None = None) -> int:
    """Run one nbgrader command in its own process, in the course directory."""
    cmd = [sys.executable, "-m", "nbgrader", *args, "--force"]
    # nbgrader runs alembic (its database migrations) from PATH: the venv's bin first.
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                   os.environ.get("PATH", "")])}
    return subprocess.run(cmd, cwd=course, env=env, timeout=timeout, check=False).returncode


def _prepare_course(course: Path, source: Path) -> None:
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy(CONFIG, course / "nbgrader_config.py")
    shutil.rmtree(course / "source", ignore_errors=True)
    shutil.copytree(source, course / "source")


def _nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _strip_solution_markers(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not _SOLUTION.match(line))


def _hidden_tests_cleared(nb):
    from nbgrader.preprocessors import ClearHiddenTests

    nb, _ = ClearHiddenTests().preprocess(nb, {})
    return nb


def solution_notebook(path: Path):
    """The worked-solution notebook of a source notebook: hidden tests removed, solutions in
    place (their markers dropped), a free-text solution headed "Model answer"."""
    nb = _hidden_tests_cleared(nbformat.read(path, as_version=4))
    for cell in nb.cells:
        if _nbgrader_meta(cell).get("solution"):
            cell.source = _strip_solution_markers(cell.source)
            if cell.cell_type == "markdown" and not cell.source.startswith("**Model answer"):
                cell.source = "**Model answer.** " + cell.source.lstrip()
    return nb


def student_notebook(released: Path, previous: Path | None):
    """nbgrader's release of a notebook, with the committed checked outputs carried over.

    ``previous`` is the notebook now in ``notebooks/``: each ``# NBVAL_CHECK_OUTPUT`` cell
    whose code is unchanged keeps its stored output (run ``tools/commit_outputs.py`` after a
    release that changed such a cell).
    """
    nb = nbformat.read(released, as_version=4)
    kept: dict[str, tuple[list, int | None]] = {}
    if previous is not None and previous.exists():
        for cell in nbformat.read(previous, as_version=4).cells:
            if cell.cell_type == "code" and MARK in cell.source and cell.outputs:
                kept[cell.source] = (cell.outputs, cell.execution_count)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = kept.get(cell.source, ([], None))
    nb.metadata.pop("widgets", None)
    return nb


def release(source: Path = SOURCE, course: Path = COURSE,
            notebooks: Path | None = ROOT / "notebooks") -> list[str]:
    """Make the student release and the worked solutions of every source notebook.

    Parameters
    ----------
    source : Path
        The folder of source notebooks (``<id>/<id>.ipynb``).
    course : Path
        nbgrader's course directory (created; its release is rebuilt).
    notebooks : Path or None
        Where the learners' copies go; None leaves ``notebooks/`` alone.

    Returns
    -------
    list of str
        The assignment ids released.
    """
    _prepare_course(course, source)
    ids = assignments(source)
    (course / "solutions").mkdir(exist_ok=True)
    for aid in ids:
        if _nbgrader(["generate_assignment", aid], course) != 0:
            raise RuntimeError(f"nbgrader generate_assignment {aid} failed (see its log above)")
        released = course / "release" / aid / f"{aid}.ipynb"
        if notebooks is not None:
            target = notebooks / f"{aid}.ipynb"
            nbformat.write(student_notebook(released, target), target)
        nbformat.write(solution_notebook(source / aid / f"{aid}.ipynb"),
                       course / "solutions" / f"{aid}.ipynb")
    return ids


@dataclass(frozen=True)
class GradeRow:
    """One question of one student's notebook: points scored (None: awaits manual marking)."""

    student: str
    notebook: str
    question: str
    kind: str          # "auto" (hidden tests) or "manual" (free text, rubric)
    score: float | None
    max_score: float
    status: str        # "graded", "to mark by hand", "not graded: notebook failed", ...


@dataclass(frozen=True)
class ManualItem:
    """A free-text answer to mark, with the rubric beside it."""

    student: str
    notebook: str
    question: str
    points: float
    answer: str
    rubric: str


def _grade_cells(path: Path) -> list[tuple[str, str, float, str]]:
    """(grade_id, kind, points, rubric) of every graded cell of a source notebook."""
    out = []
    for cell in nbformat.read(path, as_version=4).cells:
        meta = _nbgrader_meta(cell)
        if meta.get("grade"):
            kind = "manual" if meta.get("solution") else "auto"
            rubric = _strip_solution_markers(cell.source).strip() if kind == "manual" else ""
            out.append((meta["grade_id"], kind, float(meta["points"]), rubric))
    return out


def _collect(course: Path, student: str, aid: str, cells) -> tuple[list[GradeRow],
                                                                     list[ManualItem]]:
    from nbgrader.api import Gradebook, MissingEntry

    rows, manual = [], []
    graded_nb = course / "autograded" / student / aid / f"{aid}.ipynb"
    answers = {}
    if graded_nb.exists():
        for cell in nbformat.read(graded_nb, as_version=4).cells:
            if _nbgrader_meta(cell).get("grade_id"):
                answers[_nbgrader_meta(cell)["grade_id"]] = cell.source
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            sub = gb.find_submission_notebook(aid, aid, student)
            grades = {g.name: g for g in sub.grades}
        except MissingEntry:
            grades = {}
        for qid, kind, points, rubric in cells:
            g = grades.get(qid)
            if not graded_nb.exists() or g is None:
                rows.append(GradeRow(student, aid, qid, kind, 0.0, points,
                                     "not graded: notebook failed"))
                continue
            # (Grade.score reads a missing score as 0: the two parts tell "blank" from
            # "not marked yet")
            score = g.manual_score if g.manual_score is not None else g.auto_score
            if score is None:
                rows.append(GradeRow(student, aid, qid, kind, None, points, "to mark by hand"))
                manual.append(ManualItem(student, aid, qid, points,
                                         answers.get(qid, "").strip(), rubric))
            else:
                status = "graded" if kind == "auto" or g.manual_score is not None else "blank"
                rows.append(GradeRow(student, aid, qid, kind, float(score), points, status))
    return rows, manual


def _write_reports(course: Path, rows: list[GradeRow], manual: list[ManualItem]) -> None:
    with open(course / "grades.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "notebook", "question", "kind", "score", "max_score", "status"])
        for r in rows:
            w.writerow([r.student, r.notebook, r.question, r.kind,
                        "" if r.score is None else f"{r.score:g}", f"{r.max_score:g}", r.status])
    with open(course / "manual.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "notebook", "question", "points", "answer", "model answer and "
                    "rubric", "score"])
        for m in manual:
            w.writerow([m.student, m.notebook, m.question, f"{m.points:g}", m.answer, m.rubric,
                        ""])
    lines = ["# Answers to mark by hand", ""]
    for m in manual:
        lines += [f"## {m.student} · {m.notebook} · {m.question} ({m.points:g} points)", "",
                  "**Answer**", "", m.answer, "", "**Model answer and rubric**", "", m.rubric,
                  "", "Score: ___", ""]
    (course / "manual.md").write_text("\n".join(lines), encoding="utf-8")


def grade(submissions: Path, course: Path = COURSE, timeout: int = 300) -> list[GradeRow]:
    """Grade every student's notebooks in ``submissions`` and write the score tables.

    Parameters
    ----------
    submissions : Path
        One folder per student, holding that student's notebooks under their course names
        (``alice/02_serdes_bandwidth.ipynb``).
    course : Path
        nbgrader's course directory; run :func:`release` first (it records the hidden tests).
    timeout : int
        Seconds a single cell of student code may run before it is interrupted.

    Returns
    -------
    list of GradeRow
        Also written to ``course/grades.csv``; free-text answers to ``course/manual.csv``
        and ``course/manual.md``.
    """
    if not (course / "gradebook.db").exists():
        raise RuntimeError(f"no gradebook in {course}: run `python tools/course.py release`")
    ids = assignments(course / "source")
    students = sorted(p.name for p in Path(submissions).iterdir() if p.is_dir())
    for sub in ("submitted", "autograded"):
        shutil.rmtree(course / sub, ignore_errors=True)
    for student in students:
        for aid in ids:
            nb = Path(submissions) / student / f"{aid}.ipynb"
            if nb.exists():
                dest = course / "submitted" / student / aid
                dest.mkdir(parents=True)
                shutil.copy(nb, dest / nb.name)
    rows: list[GradeRow] = []
    manual: list[ManualItem] = []
    for aid in ids:
        cells = _grade_cells(course / "source" / aid / f"{aid}.ipynb")
        who = [s for s in students if (course / "submitted" / s / aid).exists()]
        if not who:
            continue
        # One nbgrader process per assignment; it runs each student's notebook in a kernel of
        # its own and goes on to the next when one fails.
        _nbgrader(["autograde", aid, "--create", f"--Execute.timeout={int(timeout)}"], course)
        for student in who:
            r, m = _collect(course, student, aid, cells)
            rows += r
            manual += m
    _write_reports(course, rows, manual)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/course.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("release", help="student release (notebooks/, build/course/release/) and "
                   "worked solutions (build/course/solutions/)")
    g = sub.add_parser("grade", help="grade SUBMISSIONS/<student>/<notebook>.ipynb")
    g.add_argument("submissions", type=Path)
    g.add_argument("--timeout", type=int, default=300,
                   help="seconds one cell of student code may run (default 300)")
    args = parser.parse_args(argv)
    if args.command == "release":
        ids = release()
        print(f"released {len(ids)} notebooks: {', '.join(ids)}; worked solutions in "
              f"{COURSE / 'solutions'}")
    else:
        rows = grade(args.submissions, timeout=args.timeout)
        scored = {}
        for r in rows:
            got, out_of = scored.get((r.student, r.notebook), (0.0, 0.0))
            scored[r.student, r.notebook] = (got + (r.score or 0.0), out_of + r.max_score)
        for (student, nb), (got, out_of) in sorted(scored.items()):
            print(f"{student:>16} {nb}: {got:g} / {out_of:g} (before hand-marked answers)")
        print(f"per-question scores: {COURSE / 'grades.csv'}; to mark by hand: "
              f"{COURSE / 'manual.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
