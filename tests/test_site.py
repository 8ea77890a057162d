"""The static site: a page per notebook with its executed figures, solutions behind a click.

Built for three notebooks to keep the test short — 00 and 02 (explorers, figures, written
answers) and 09 (code puzzles) — by the same code as ``make site``, which builds all ten
(about 7.5 min on 2 cores; each page is executed from its worked solutions).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IDS = ["00_start_here", "02_serdes_bandwidth", "09_schedule_puzzles"]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_tool", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site():
    # Its own directory: another pytest session prunes old numbered basetemps.
    tmp = Path(tempfile.mkdtemp(prefix="nvlearn-site-"))
    yield _build(tmp)
    shutil.rmtree(tmp, ignore_errors=True)


def _build(tmp: Path) -> Path:
    course, site = _tool("course"), _tool("site")
    solutions = tmp / "solutions"
    solutions.mkdir()
    import nbformat

    for nb_id in IDS:
        source = course.SOURCE / nb_id / f"{nb_id}.ipynb"
        if source.exists():
            nbformat.write(course.solution_notebook(source), solutions / f"{nb_id}.ipynb")
    out = tmp / "site"
    site.build(out, IDS, solutions=solutions)
    return out


def test_index_links_every_page(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]+\.html)"', index)
    assert links == [f"{i}.html" for i in IDS]
    assert all((site / link).is_file() for link in links)


@pytest.mark.parametrize("nb_id", IDS)
def test_every_image_of_a_page_exists(site, nb_id):
    page = (site / f"{nb_id}.html").read_text(encoding="utf-8")
    images = re.findall(r'<img[^>]+src="([^"]+)"', page)
    assert images, f"{nb_id}: no figures on the page"
    missing = [src for src in images if not src.startswith("data:") and not (site / src).is_file()]
    assert not missing
    assert all((site / src).stat().st_size > 1000 for src in images if not src.startswith("data:"))


@pytest.mark.parametrize("nb_id, n_solutions", [("02_serdes_bandwidth", 9),
                                                 ("09_schedule_puzzles", 10)])
def test_solutions_are_folded_and_tests_hidden(site, nb_id, n_solutions):
    page = (site / f"{nb_id}.html").read_text(encoding="utf-8")
    folded = page.count('<details class="nvlearn-solution">')
    assert folded >= n_solutions
    assert page.count("</details>") >= folded
    assert "BEGIN HIDDEN TESTS" not in page and "BEGIN SOLUTION" not in page
    assert "Traceback" not in page     # every cell ran, solutions included
