"""Every explorer of notebooks 00-05 in a real browser: input-to-redraw time and layout.

Run from the repository root, in the project's environment (``make bench-browser``)::

    python benchmarks/bench_browser_widgets.py                   # notebooks 00-05, 10 moves
    python benchmarks/bench_browser_widgets.py --moves 4 --notebooks 02 04

It starts JupyterLab on 127.0.0.1 (free port, random token) over a temporary copy of
notebooks/, opens each notebook in headless Debian ``chromium`` (driven by the Python
``playwright`` package, launched as in ``tests/test_browser.py``, whose helpers it imports;
no browser is downloaded), runs all cells, then moves every control of every explorer
``--moves`` times the way a person would (slider: focus + arrow key; toggle buttons: click
the next option; dropdown: choose the next option; checkbox: click).

Protocol: after run all, the first control of the first explorer is moved once at once and
timed on its own (the *cold move*: the explorer's background worker may still be starting,
and it shares the two cores with the browser); then the bench waits ``SETTLE_S`` (a learner
reading the output) before the timed moves of every control. The cold move is reported
beside the run-all time, not in the per-control percentiles.

Timing: a MutationObserver on the explorer's cell records the time of the last change of
its output (everything but the controls themselves), a capturing listener the time of the
input event (pointerdown / keydown / input); the latency of one move is the last output
change minus the input, read once the output has been quiet for ``QUIET_MS`` and the kernel
is idle. The table gives p50 / p95 / max per control, in ms.

Checks (a failure makes the exit status 1, the numbers are printed anyway):

* every move changes the output; when the explorer shows a figure (an image or an SVG),
  the figure itself must change: a stale figure fails;
* the layout at 1280 px with the file browser open: no control sticks out to the right of
  the output area, no label is cut, every slider track is at least ``MIN_TRACK_PX`` wide,
  and every figure is shown at least at ``MIN_FIGURE_SCALE`` of its natural size (below
  that its 10 pt text is smaller than the notebook's body text).

Host reference: before the browser starts, ``bench_first_visit.py --explorers traffic``
runs in a subprocess and its line (CPU ms of a traffic state drawn in a plain process) is
printed with the tables, so runs on two hosts can be told apart from two versions of the
code (the same code drew 2.5-2.8x faster on session 23's host than on session 22's).

Screenshots of every explorer go to ``artifacts/browser-bench/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import signal
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from test_browser import (  # noqa: E402  (the browser test's helpers, shared on purpose)
    CHROMIUM_ARGS,
    PAGE_LOAD_S,
    _accept_kernel_dialog,
    _kernel_idle,
    _run_all,
    _wait_until,
    jupyterlab,
)

NOTEBOOKS = ("00", "01", "02", "03", "04", "05")
VIEWPORT = {"width": 1280, "height": 900}
ARTIFACTS = REPO_ROOT / "artifacts" / "browser-bench"
#: The output must stay unchanged this long (and the kernel idle) before a move is over.
QUIET_MS = 400
#: Seconds between the cold move and the timed moves (a learner reading what run all drew).
SETTLE_S = 3.0
#: Longest wait for one move's output, seconds (a cold simulation can take several).
MOVE_TIMEOUT_S = 60
MIN_TRACK_PX = 150
MIN_FIGURE_SCALE = 0.95
TARGET_P50_MS, TARGET_P95_MS = 100, 200

CONTROL_SELECTOR = ".widget-slider, .widget-toggle-buttons, .widget-dropdown, .widget-checkbox"

# Installs (once per cell) the input listener and the output observer; returns nothing.
_INSTRUMENT_JS = """
(cell) => {
  const controls = '""" + CONTROL_SELECTOR + """, .widget-readout';
  const inControl = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    return !el || !!el.closest(controls);
  };
  window.__bench = {input: null, last: null};
  if (cell.__benchObserver) return;
  cell.__benchObserver = new MutationObserver((mutations) => {
    if (mutations.some(m => !inControl(m.target))) window.__bench.last = performance.now();
  });
  const area = cell.querySelector('.jp-Cell-outputArea') || cell;
  cell.__benchObserver.observe(area,
    {subtree: true, childList: true, attributes: true, characterData: true});
  for (const kind of ['pointerdown', 'keydown', 'input', 'change']) {
    cell.addEventListener(kind, () => {
      if (window.__bench.input === null) window.__bench.input = performance.now();
    }, {capture: true});
  }
}
"""

# The cell's output minus its controls: [text + figures, figures only].
_SIGNATURE_JS = """
(cell) => {
  const area = cell.querySelector('.jp-Cell-outputArea');
  if (!area) return ['', ''];
  const clone = area.cloneNode(true);
  clone.querySelectorAll('""" + CONTROL_SELECTOR + """, .widget-readout, select, input')
    .forEach(el => el.remove());
  const figs = [];
  for (const img of area.querySelectorAll('img')) figs.push(img.src);
  for (const svg of area.querySelectorAll('svg')) {
    if (!svg.closest('""" + CONTROL_SELECTOR + """')) figs.push(svg.outerHTML);
  }
  const f = figs.join('\\u0000');
  return [clone.textContent + '\\u0000' + f, f];
}
"""

_RESET_JS = "() => { window.__bench = {input: null, last: null}; }"
_TIMES_JS = "() => [window.__bench.input, window.__bench.last, performance.now()]"

# Layout of one explorer cell: control overflow, cut labels, slider tracks, figure scale.
_LAYOUT_JS = """
(cell) => {
  const area = cell.querySelector('.jp-Cell-outputArea');
  const right = area.getBoundingClientRect().right;
  const out = {overflow: [], cut: [], tracks: [], scales: []};
  for (const c of area.querySelectorAll('""" + CONTROL_SELECTOR + """')) {
    const label = c.querySelector('.widget-label');
    const name = label ? label.textContent.trim() : c.className;
    if (c.getBoundingClientRect().right > right + 1) out.overflow.push(name);
    if (label && label.scrollWidth > label.clientWidth + 1) out.cut.push(name);
    for (const b of c.querySelectorAll('.widget-toggle-button, button')) {
      if (b.scrollWidth > b.clientWidth + 1) out.cut.push(name + ': ' + b.textContent.trim());
    }
    const track = c.querySelector('.noUi-target');
    if (track) out.tracks.push([name, Math.round(track.getBoundingClientRect().width)]);
  }
  for (const img of area.querySelectorAll('img')) {
    if (img.naturalWidth) out.scales.push(img.getBoundingClientRect().width / img.naturalWidth);
  }
  return out;
}
"""


@dataclass
class ControlResult:
    notebook: str
    explorer: int
    name: str
    kind: str
    times_ms: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def pct(self, q: float) -> float:
        ordered = sorted(self.times_ms)
        return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _shutdown_kernels(url: str, token: str) -> None:
    """Shut every kernel down (one notebook's kernel must not slow the next one's)."""
    headers = {"Authorization": f"token {token}"}
    with urllib.request.urlopen(urllib.request.Request(f"{url}/api/kernels", headers=headers),
                                timeout=10) as response:
        kernels = json.load(response)
    for k in kernels:
        request = urllib.request.Request(f"{url}/api/kernels/{k['id']}", headers=headers,
                                         method="DELETE")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(request, timeout=30).close()


def _kind(control) -> str:
    return control.evaluate(
        "el => ['slider', 'toggle-buttons', 'dropdown', 'checkbox']"
        ".find(k => el.matches('.widget-' + k))"
    )


def _name(control) -> str:
    """The control's description (a checkbox keeps it beside the box, not in its label)."""
    return control.evaluate(
        "el => [...el.querySelectorAll('.widget-label, .widget-label-basic')]"
        ".map(l => l.textContent.replace(/\\u200b/g, '').trim()).find(t => t) || 'control'"
    )


def _move(control, kind: str, step: int) -> None:
    """One move of ``control``, as a person makes it (``step`` counts the moves)."""
    if kind == "slider":
        handle = control.locator(".noUi-handle").first
        now, top, bottom = (float(handle.get_attribute(a)) for a in
                            ("aria-valuenow", "aria-valuemax", "aria-valuemin"))
        key = "ArrowRight" if (step // 5) % 2 == 0 else "ArrowLeft"
        if now >= top:
            key = "ArrowLeft"
        elif now <= bottom:
            key = "ArrowRight"
        handle.focus()
        handle.press(key)
    elif kind == "toggle-buttons":
        buttons = control.locator("button")
        n = buttons.count()
        active = next(i for i in range(n)
                      if "mod-active" in (buttons.nth(i).get_attribute("class") or ""))
        buttons.nth((active + 1) % n).click()
    elif kind == "dropdown":
        select = control.locator("select").first
        values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        current = select.input_value()
        i = values.index(current) if current in values else -1
        select.select_option(values[(i + 1) % len(values)])
    else:
        control.locator("input").first.click()


def _measure_move(page, cell, control, kind: str, step: int) -> tuple[float | None, str]:
    """Latency of one move in ms (None if the output did not change), and a problem or ''."""
    before_all, before_fig = cell.evaluate(_SIGNATURE_JS)
    page.evaluate(_RESET_JS)
    _move(control, kind, step)
    deadline = time.monotonic() + MOVE_TIMEOUT_S
    while time.monotonic() < deadline:
        t_input, t_last, now = page.evaluate(_TIMES_JS)
        if (t_last is not None and t_input is not None and t_last > t_input
                and now - t_last >= QUIET_MS and _kernel_idle(page)):
            after_all, after_fig = cell.evaluate(_SIGNATURE_JS)
            if after_all == before_all:
                time.sleep(0.1)
                continue
            if before_fig and after_fig == before_fig:
                return t_last - t_input, "figure unchanged (only the text changed)"
            return t_last - t_input, ""
        time.sleep(0.05)
    return None, f"no change of the output within {MOVE_TIMEOUT_S} s"


@dataclass
class RunResult:
    """One notebook's run all: seconds, and the cold move (ms; None without an explorer)."""

    seconds: float
    cold_ms: float | None = None
    cold_control: str = ""


def bench_notebook(browser, url: str, token: str, path: Path, moves: int,
                   shots: Path | None) -> tuple[list[ControlResult], list[dict], RunResult]:
    """Run one notebook, time the cold move, then move every control of every explorer;
    results, layouts, the run."""
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(30_000)
    results: list[ControlResult] = []
    layouts: list[dict] = []
    try:
        # ?reset: a fresh workspace, so the previous notebook's tab is not restored beside it
        page.goto(f"{url}/lab/tree/{path.name}?reset&token={token}",
                  timeout=PAGE_LOAD_S * 1000)
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=PAGE_LOAD_S * 1000)

        def ready():
            _accept_kernel_dialog(page)
            return _kernel_idle(page)

        _wait_until(ready, PAGE_LOAD_S, "an idle kernel")
        t0 = time.monotonic()
        _run_all(page)
        run = RunResult(time.monotonic() - t0)
        outputs = page.locator(".jp-OutputArea-output").all_text_contents()
        tracebacks = [o for o in outputs if "Traceback (most recent call last)" in o]
        if tracebacks:
            raise RuntimeError(f"{path.name}: a cell raised:\n" + tracebacks[0][:2000])
        cells = page.locator(".jp-Notebook .jp-CodeCell").filter(
            has=page.locator(f".jp-Cell-outputArea :is({CONTROL_SELECTOR})"))
        stem = path.name[:2]
        if cells.count():
            cell = cells.first
            cell.scroll_into_view_if_needed()
            cell.evaluate(_INSTRUMENT_JS)
            control = cell.locator(f".jp-Cell-outputArea :is({CONTROL_SELECTOR})").first
            run.cold_control = _name(control)
            run.cold_ms, _ = _measure_move(page, cell, control, _kind(control), 0)
            time.sleep(SETTLE_S)
        for e in range(cells.count()):
            cell = cells.nth(e)
            cell.scroll_into_view_if_needed()
            cell.evaluate(_INSTRUMENT_JS)
            controls = cell.locator(f".jp-Cell-outputArea :is({CONTROL_SELECTOR})")
            layout = cell.evaluate(_LAYOUT_JS)
            layouts.append({"notebook": stem, "explorer": e, **layout})
            if shots is not None:
                cell.screenshot(path=shots / f"{stem}-explorer{e}.png")
            for c in range(controls.count()):
                control = controls.nth(c)
                kind = _kind(control)
                result = ControlResult(stem, e, _name(control), kind)
                results.append(result)
                for step in range(moves):
                    control.scroll_into_view_if_needed()
                    ms, problem = _measure_move(page, cell, control, kind, step)
                    if ms is not None:
                        result.times_ms.append(ms)
                    if problem:
                        result.problems.append(problem)
                    if ms is None:
                        break  # a control that does nothing once will not the next time
                moves_ms = " ".join(f"{t:.0f}" for t in result.times_ms)
                print(f"  {stem} explorer {e} {result.name:<16} {_row_numbers(result)}  "
                      f"(moves: {moves_ms})", flush=True)
    finally:
        page.close()
    return results, layouts, run


def _row_numbers(r: ControlResult) -> str:
    if not r.times_ms:
        return "no update measured"
    return (f"n {len(r.times_ms):>2}  p50 {r.pct(50):6.0f}  p95 {r.pct(95):6.0f}  "
            f"max {max(r.times_ms):6.0f} ms")


def layout_problems(layout: dict) -> list[str]:
    """What is wrong with one explorer's layout (empty when it fits)."""
    problems = []
    if layout["overflow"]:
        problems.append("off the right edge: " + ", ".join(layout["overflow"]))
    if layout["cut"]:
        problems.append("cut labels: " + ", ".join(layout["cut"]))
    narrow = [f"{n} {w} px" for n, w in layout["tracks"] if w < MIN_TRACK_PX]
    if narrow:
        problems.append(f"slider tracks under {MIN_TRACK_PX} px: " + ", ".join(narrow))
    small = [s for s in layout["scales"] if s < MIN_FIGURE_SCALE]
    if small:
        problems.append("figure shown at " + ", ".join(f"{s:.0%}" for s in small))
    return problems


def host_reference() -> str:
    """What one traffic-explorer state costs this host outside the browser
    (``bench_first_visit.py``'s traffic line: CPU ms, median / max), or why it is missing."""
    import subprocess

    cmd = [sys.executable, str(REPO_ROOT / "benchmarks" / "bench_first_visit.py"),
           "--explorers", "traffic"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True,
                             cwd=REPO_ROOT).stdout
    except (OSError, subprocess.SubprocessError) as err:
        return f"host reference: not measured ({err})"
    line = next((ln for ln in out.splitlines() if ln.startswith("traffic")), None)
    if line is None:
        return "host reference: not measured (no traffic line in bench_first_visit.py's output)"
    _, states, *ms = line.split()
    build, draw, render = (" ".join(ms[i:i + 3]) for i in (0, 3, 6))
    return (f"host reference (bench_first_visit.py, traffic explorer, {states} states, CPU ms "
            f"median / max): build {build}, draw + PNG {draw}, render {render}")


def report(results: list[ControlResult], layouts: list[dict], runs: dict[str, RunResult],
           host: str = "") -> str:
    """The markdown tables: per control, then per explorer's layout; ``host`` (the host
    reference) under the first line."""
    lines = [
        f"{datetime.date.today().isoformat()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}; viewport {VIEWPORT['width']}x"
        f"{VIEWPORT['height']}, file browser open; times in ms from the input event to the "
        "last change of the explorer's output",
        *([host] if host else []),
        "",
        "| nb | control | kind | n | p50 | p95 | max | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if r.times_ms:
            ok = r.pct(50) < TARGET_P50_MS and r.pct(95) < TARGET_P95_MS
            verdict = "ok" if ok else "SLOW"
        else:
            verdict = "FAIL"
        if r.problems:
            verdict = f"{verdict}; {len(r.problems)} stale: {r.problems[0]}"
        nums = ([f"{len(r.times_ms)}", f"{r.pct(50):.0f}", f"{r.pct(95):.0f}",
                 f"{max(r.times_ms):.0f}"] if r.times_ms else ["0", "-", "-", "-"])
        lines.append(f"| {r.notebook} | {r.name} | {r.kind} | " + " | ".join(nums)
                     + f" | {verdict} |")
    lines += ["", "| nb | run all (s) | cold move (ms), control | layout |", "|---|---|---|---|"]
    for lay in layouts:
        problems = layout_problems(lay)
        run = runs[lay["notebook"]]
        cold = "-" if run.cold_ms is None else f"{run.cold_ms:.0f}, {run.cold_control}"
        lines.append(f"| {lay['notebook']} | {run.seconds:.0f} | {cold} | "
                     f"{'; '.join(problems) or 'fits'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=10, help="moves per control (10)")
    parser.add_argument("--notebooks", nargs="*", default=list(NOTEBOOKS),
                        help="two-digit prefixes (default 00-05)")
    parser.add_argument("--no-screenshots", action="store_true")
    args = parser.parse_args(argv)
    # Ctrl-C or kill: still stop JupyterLab, its kernels and the browser (the finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    chromium = shutil.which("chromium")
    if chromium is None:
        print("Debian 'chromium' is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    shots = None if args.no_screenshots else ARTIFACTS
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    host = host_reference()
    print(host, flush=True)
    results: list[ControlResult] = []
    layouts: list[dict] = []
    runs: dict[str, RunResult] = {}
    with tempfile.TemporaryDirectory(prefix="nvlearn-bench-") as tmp:
        work = Path(tmp)
        served = work / "notebooks"
        shutil.copytree(REPO_ROOT / "notebooks", served,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.png"))
        paths = {p.name[:2]: p for p in sorted(served.glob("*.ipynb"))}
        with jupyterlab(served, work) as (url, token), sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                for nb in args.notebooks:
                    print(f"{paths[nb].name}", flush=True)
                    r, lay, runs[nb] = bench_notebook(browser, url, token, paths[nb],
                                                       args.moves, shots)
                    results += r
                    layouts += lay
                    _shutdown_kernels(url, token)
            finally:
                browser.close()
    table = report(results, layouts, runs, host)
    print()
    print(table)
    if shots is not None:
        print(f"\nscreenshots: {shots}")
    failed = [r for r in results if r.problems or not r.times_ms]
    misfit = [lay for lay in layouts if layout_problems(lay)]
    slow = [r for r in results if r.times_ms and not (
        r.pct(50) < TARGET_P50_MS and r.pct(95) < TARGET_P95_MS)]
    print(f"\n{len(results)} controls: {len(slow)} slower than p50 {TARGET_P50_MS} / p95 "
          f"{TARGET_P95_MS} ms, {len(failed)} with a stale or missing update; "
          f"{len(misfit)} of {len(layouts)} explorers do not fit {VIEWPORT['width']} px")
    return 1 if failed or misfit else 0


if __name__ == "__main__":
    sys.exit(main())
