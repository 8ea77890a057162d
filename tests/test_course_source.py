"""The graded notebooks' single source (instructor/source/) and the learners' copies agree.

``notebooks/<id>.ipynb`` is what ``python tools/course.py release`` makes of
``instructor/source/<id>/<id>.ipynb``: every cell's code and text equal to the source with
its solutions replaced by nbgrader's stub and its hidden tests removed. Nothing a learner
opens holds a solution, a hidden test or a rubric, and every graded question is marked so
that nbgrader can grade it.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "instructor" / "source"
IDS = sorted(p.name for p in SOURCE.iterdir() if (p / f"{p.name}.ipynb").is_file())
LEAKS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "Model answer", "Rubric")


def _config() -> Config:
    """The course's nbgrader settings (instructor/nbgrader_config.py)."""
    config = Config()
    namespace = {"get_config": lambda: config}
    exec((ROOT / "instructor" / "nbgrader_config.py").read_text(), namespace)
    return config


def _only_definitions(src: str) -> bool:
    """The cell (solution markers and all) holds nothing but function definitions."""
    return all(isinstance(node, ast.FunctionDef) for node in ast.parse(src).body)


def _released(aid: str):
    nb = nbformat.read(SOURCE / aid / f"{aid}.ipynb", as_version=4)
    nb, _ = ClearSolutions(config=_config()).preprocess(nb, {})
    nb, _ = ClearHiddenTests().preprocess(nb, {})
    return nb


def test_there_is_a_source():
    assert IDS


@pytest.mark.parametrize("aid", IDS)
def test_learners_copy_is_the_release_of_the_source(aid):
    expected = [(c.cell_type, c.source) for c in _released(aid).cells]
    have = nbformat.read(ROOT / "notebooks" / f"{aid}.ipynb", as_version=4)
    assert [(c.cell_type, c.source) for c in have.cells] == expected, (
        f"notebooks/{aid}.ipynb differs from the release of instructor/source/{aid}/: edit the "
        "source, then run `make release` (and tools/commit_outputs.py on the notebook)")


@pytest.mark.parametrize("aid", IDS)
def test_learners_copy_shows_no_solution(aid):
    text = (ROOT / "notebooks" / f"{aid}.ipynb").read_text(encoding="utf-8")
    assert not [leak for leak in LEAKS if leak in text]


@pytest.mark.parametrize("aid", IDS)
def test_every_question_is_graded_and_every_answer_self_checked(aid):
    nb = json.loads((SOURCE / aid / f"{aid}.ipynb").read_text(encoding="utf-8"))
    ids, points = [], 0.0
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader")
        if not meta:
            continue
        ids.append(meta["grade_id"])
        src = "".join(cell["source"])
        if meta["grade"]:
            points += meta["points"]
            assert meta["points"] > 0
        if meta["solution"] and cell["cell_type"] == "code":
            assert "BEGIN SOLUTION" in src
            body = src.split("### END SOLUTION")[-1]
            # a blank answer still runs and says "not yet" (a self-check, or notebook 09's
            # puzzle check); prediction cells echo the guess; a cell of shared helpers only
            # defines functions
            assert (re.search(r"\bcheck(\.|_puzzle\()", body) or body.strip() == "prediction"
                    or _only_definitions(src)), meta["grade_id"]
        if meta["grade"] and not meta["solution"]:
            assert "BEGIN HIDDEN TESTS" in src, meta["grade_id"]
        if meta["grade"] and meta["solution"]:
            assert cell["cell_type"] == "markdown" and "Rubric" in src, meta["grade_id"]
    assert len(ids) == len(set(ids)), "grade ids must be unique"
    assert points > 0


@pytest.mark.parametrize("aid", IDS)
def test_summary_comes_after_the_exercises(aid):
    nb = nbformat.read(SOURCE / aid / f"{aid}.ipynb", as_version=4)
    heads = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"
             and c.source.startswith("## ")]
    assert heads.index("## Exercises") < heads.index("## Summary")


def _points(aid: str) -> tuple[int, int]:
    """(code-checked, written) points of one source notebook, from its nbgrader metadata."""
    nb = nbformat.read(SOURCE / aid / f"{aid}.ipynb", as_version=4)
    auto = written = 0
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not (meta.get("grade") or meta.get("task")):
            continue
        if cell.cell_type == "markdown" or meta.get("task"):
            written += meta.get("points", 0)
        else:
            auto += meta.get("points", 0)
    return auto, written


def _syllabus_points() -> dict[str, tuple[int, int, int]]:
    """The syllabus table's "Graded points" column: {notebook number: (total, auto, written)}."""
    rows = {}
    for line in (ROOT / "instructor" / "syllabus.md").read_text().splitlines():
        m = re.match(r"\|\s*(\d\d)\s*\|.*\|\s*(\d+) \((\d+) auto\b.*?(?<!\d)(\d+) written\)\s*\|$",
                     line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return rows


@pytest.mark.parametrize("aid", IDS)
def test_syllabus_states_each_notebooks_points(aid):
    auto, written = _points(aid)
    stated = _syllabus_points().get(aid[:2])
    assert stated == (auto + written, auto, written), (
        f"instructor/syllabus.md gives {aid} {stated} (total, auto, written); its source has "
        f"{auto + written} ({auto} auto, {written} written)")
