"""Render the course as a static site: one executed HTML page per notebook, and an index.

    python tools/site.py [--out build/site] [NOTEBOOK_ID ...]

Each notebook is executed top to bottom (nbclient, in this environment) and converted with
nbconvert's JupyterLab template (``tools/site_template/nvlearn.html.j2``). A notebook that has
a graded source in ``instructor/source/`` is rendered from its worked-solution version
(``python tools/course.py release`` makes it), with every solution cell folded in a
``<details>`` element: a self-learner sees the exercise and its self-check, and opens the
solution with a click. Figures are written as files next to the page (``<id>_files/``);
``index.html`` lists the pages. Publish ``build/site/`` as it is (any static host: GitHub
Pages, an ``nginx`` folder, ``python -m http.server``).
"""

from __future__ import annotations

import argparse
import html
import shutil
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from nbconvert.preprocessors import ExtractOutputPreprocessor
from traitlets.config import Config

__all__ = ["build", "render_notebook", "title_of"]

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "build" / "course" / "solutions"
SOURCE = ROOT / "instructor" / "source"
TEMPLATE = Path(__file__).resolve().parent / "site_template" / "nvlearn.html.j2"


def title_of(nb) -> str:
    """The notebook's first heading, without the leading '#'."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return "untitled"


def _page_source(nb_id: str, solutions: Path) -> Path:
    """The notebook a page is made from: the worked solutions if the notebook is graded."""
    if (SOURCE / nb_id / f"{nb_id}.ipynb").exists():
        solved = solutions / f"{nb_id}.ipynb"
        if not solved.exists():
            raise FileNotFoundError(f"{solved} is missing: run `python tools/course.py release`")
        return solved
    return NOTEBOOKS / f"{nb_id}.ipynb"


def render_notebook(path: Path, out: Path, nb_id: str, timeout: int = 600) -> tuple[str, float]:
    """Execute one notebook and write ``out/<nb_id>.html`` and its figures.

    Returns
    -------
    (title, seconds)
        The page title and the execution time.
    """
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    seconds = time.perf_counter() - t0
    nb.metadata.pop("widgets", None)   # live widgets need a kernel; the static figures stay
    config = Config()
    config.ExtractOutputPreprocessor.output_filename_template = (
        "{unique_key}_{cell_index}_{index}{extension}")
    exporter = HTMLExporter(config=config, template_file=str(TEMPLATE))
    exporter.register_preprocessor(ExtractOutputPreprocessor(config=config), enabled=True)
    body, resources = exporter.from_notebook_node(
        nb, resources={"unique_key": nb_id, "output_files_dir": f"{nb_id}_files"})
    for name, data in resources.get("outputs", {}).items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (out / f"{nb_id}.html").write_text(body, encoding="utf-8")
    return title_of(nb), seconds


def _index(pages: list[tuple[str, str]]) -> str:
    rows = "\n".join(f'<li><a href="{html.escape(i)}.html">{html.escape(t)}</a></li>'
                     for i, t in pages)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nvlearn — the wire is the computer</title>
<style>body {{ font-family: sans-serif; max-width: 50em; margin: 2em auto; line-height: 1.5; }}
</style></head>
<body><h1>nvlearn — the wire is the computer</h1>
<p>A course, in notebooks, on why the GPU interconnect limits distributed training. Every page
was executed when this site was built; in graded notebooks each worked solution is folded:
try the exercise, run its self-check, then open the solution.</p>
<ol>
{rows}
</ol>
<p>Run the notebooks yourself, with working widgets: clone the repository and
<code>make lab</code>.</p>
</body></html>
"""


def build(out: Path = ROOT / "build" / "site", ids: list[str] | None = None,
          solutions: Path = SOLUTIONS) -> dict[str, float]:
    """Build the site (all notebooks, or ``ids``) into ``out``; returns seconds per page."""
    ids = ids or sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    pages, timings = [], {}
    for nb_id in ids:
        title, seconds = render_notebook(_page_source(nb_id, solutions), out, nb_id)
        pages.append((nb_id, title))
        timings[nb_id] = seconds
    (out / "index.html").write_text(_index(pages), encoding="utf-8")
    return timings


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/site.py", description=__doc__.split("\n")[0])
    parser.add_argument("ids", nargs="*", help="notebook ids (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    timings = build(args.out, args.ids or None)
    for nb_id, seconds in timings.items():
        print(f"{nb_id}: executed in {seconds:.1f} s")
    print(f"site: {args.out / 'index.html'} ({len(timings)} pages, "
          f"{time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
