"""The start-here notebook's widget in a real browser: it renders, and moving it changes output.

Starts JupyterLab on loopback (free port, random token) serving a temporary *copy* of
notebooks/ (JupyterLab autosaves what it runs), opens ``00_start_here.ipynb`` in headless
Debian ``chromium`` driven by the Python ``playwright`` package (no browser is downloaded),
runs all cells from the Run menu, finds the first ipywidgets control, records the rendered
output, moves the control (slider: focus + ArrowRight; toggle buttons: click another option;
dropdown: pick another option; checkbox: click), and checks that the output changed.
Screenshots before and after go to ``artifacts/browser/`` for a person to look at.

Without chromium or playwright the test skips with the reason; with
``NVLEARN_REQUIRE_BROWSER=1`` (set by .ci/run) conftest.py turns that skip into a failure.
``NVLEARN_BROWSER_NOTEBOOK=<path>`` opens another notebook (its folder is copied).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = Path(
    os.environ.get("NVLEARN_BROWSER_NOTEBOOK", REPO_ROOT / "notebooks" / "00_start_here.ipynb")
)
ARTIFACTS = REPO_ROOT / "artifacts" / "browser"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

SERVER_START_S = 90
PAGE_LOAD_S = 90
RUN_ALL_S = 300  # cold numba compiles on 2 cores
WIDGET_UPDATE_S = 60

# ipywidgets 8 controls, in the order they are tried; the first one whose change alters the
# rendered output passes the test.
CONTROLS = (
    ".widget-slider",
    ".widget-toggle-buttons",
    ".widget-dropdown",
    ".widget-radio",
    ".widget-checkbox",
    ".widget-toggle-button",
)
MAX_CONTROLS_TRIED = 8

# Text and images of every rendered output, minus what a control shows about itself
# (slider readouts, dropdown options), hashed to compare before/after.
_OUTPUT_SIGNATURE_JS = """
() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  if (!nb) return null;
  const parts = [];
  for (const area of nb.querySelectorAll('.jp-OutputArea-output')) {
    const clone = area.cloneNode(true);
    clone.querySelectorAll('.widget-readout, select, input, .widget-toggle-buttons')
      .forEach(el => el.remove());
    parts.push(clone.textContent);
    for (const img of area.querySelectorAll('img')) parts.push(img.src);
    for (const svg of area.querySelectorAll('svg')) parts.push(svg.outerHTML);
  }
  return parts.join('\\u0000');
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http_ok(url: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited early with code {proc.returncode}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        time.sleep(0.25)
    raise TimeoutError(f"JupyterLab did not answer {url.split('?')[0]} within {timeout:.0f} s")


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM (jupyter shuts its kernels down), then SIGKILL the whole process group."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=15)


@pytest.fixture
def chromium() -> str:
    """Path of Debian's chromium, once the notebook, the browser and playwright are all there."""
    if not NOTEBOOK.is_file():
        pytest.skip(f"{NOTEBOOK} does not exist (yet)")
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("Debian 'chromium' is not installed (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the 'playwright' package is missing (pip install -e '.[browser]')")
    return path


@contextlib.contextmanager
def jupyterlab(served: Path, workdir: Path):
    """JupyterLab on 127.0.0.1 over ``served``, its settings in ``workdir``: yields (url, token).

    Shared with ``benchmarks/bench_browser_widgets.py``; the server is stopped on exit.
    """
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(workdir / "config"),
        JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(workdir / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
    )
    env.pop("MPLBACKEND", None)  # the kernel uses Jupyter's inline backend, as for a learner
    # No "get notified about Jupyter news?" toast over the notebook (and no fetch from outside).
    notification = workdir / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={served}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    if os.getuid() == 0:
        cmd.append("--allow-root")
    log = (workdir / "jupyterlab.log").open("wb")
    proc = subprocess.Popen(
        cmd, cwd=served, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_http_ok(f"{url}/api/status?token={token}", proc, SERVER_START_S)
        yield url, token
    finally:
        _stop(proc)
        log.close()


@pytest.fixture
def lab(chromium, tmp_path):
    """A JupyterLab server on 127.0.0.1 over a copy of the notebook's folder: (url, token)."""
    served = tmp_path / "notebooks"
    shutil.copytree(
        NOTEBOOK.parent, served, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.png")
    )
    with jupyterlab(served, tmp_path) as (url, token):
        yield url, token


def _wait_until(predicate, timeout: float, what: str, poll: float = 0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def _signature(page) -> str:
    text = page.evaluate(_OUTPUT_SIGNATURE_JS) or ""
    return hashlib.sha256(text.encode()).hexdigest()


def _settled_signature(page, quiet: float = 1.0) -> str:
    """The output signature once it has stayed the same for ``quiet`` seconds."""
    state = {"sig": _signature(page), "since": time.monotonic()}

    def settled():
        sig = _signature(page)
        if sig != state["sig"]:
            state.update(sig=sig, since=time.monotonic())
        return time.monotonic() - state["since"] >= quiet and _kernel_idle(page)

    _wait_until(settled, WIDGET_UPDATE_S, "the rendered output to settle")
    return state["sig"]


def _kernel_idle(page) -> bool:
    """A kernel is connected and idle (the indicator alone says idle before any kernel)."""
    if not page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count():
        return False
    items = page.locator(".jp-StatusBar-TextItem").all_text_contents()
    return any(t.endswith("| Idle") and not t.startswith("No Kernel") for t in items)


def _accept_kernel_dialog(page) -> None:
    dialog = page.locator(".jp-Dialog")
    if dialog.count() and "Select Kernel" in dialog.first.inner_text():
        dialog.locator(".jp-mod-accept").first.click()


def _prompts(page) -> list[str]:
    return page.locator(".jp-CodeCell .jp-InputPrompt").all_text_contents()


def _all_cells_ran(page) -> bool:
    prompts = _prompts(page)
    return bool(prompts) and all(re.fullmatch(r"\s*\[\d+\]:\s*", p) for p in prompts)


def _run_all(page) -> None:
    """Run > Run All Cells (the command runmenu:run-all), then wait until it has finished."""
    for _attempt in range(3):
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item:visible", has_text=re.compile(r"^Run All Cells")).click()
        try:
            _wait_until(
                lambda: any(p.strip() != "[ ]:" for p in _prompts(page)), 15, "Run All to start"
            )
            break
        except TimeoutError:
            page.keyboard.press("Escape")
    _wait_until(
        lambda: _all_cells_ran(page) and _kernel_idle(page),
        RUN_ALL_S,
        "Run All Cells to finish (every code cell numbered, kernel idle)",
        poll=0.5,
    )


def _move(control, kind: str) -> str:
    """Change one control the way a person would; return what was done."""
    if kind == ".widget-slider":
        handle = control.locator(".noUi-handle").first
        handle.focus()
        handle.press("ArrowRight")
        return "slider: focus + ArrowRight"
    if kind == ".widget-toggle-buttons":
        buttons = control.locator("button:not(.mod-active)")
        if not buttons.count():
            return ""
        label = buttons.first.inner_text()
        buttons.first.click()
        return f"toggle buttons: clicked {label!r}"
    if kind in (".widget-dropdown", ".widget-radio"):
        if kind == ".widget-dropdown":
            select = control.locator("select").first
            values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
            current = select.input_value()
            others = [v for v in values if v != current]
            if not others:
                return ""
            select.select_option(others[0])
            return f"dropdown: chose option {others[0]!r}"
        radios = control.locator("input[type=radio]:not(:checked)")
        if not radios.count():
            return ""
        radios.first.check()
        return "radio: checked another option"
    control.locator("input, button").first.click()
    return f"{kind.lstrip('.')}: clicked"


def test_start_here_widget_renders_and_responds(chromium, lab, capsys):
    from playwright.sync_api import sync_playwright

    url, token = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stem = NOTEBOOK.stem
    shots = {name: ARTIFACTS / f"{stem}-{name}.png" for name in ("before", "after", "page")}
    for old in shots.values():
        old.unlink(missing_ok=True)
    report = {"notebook": NOTEBOOK.name}
    moved = []

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(30_000)
        try:
            page.goto(f"{url}/lab/tree/{NOTEBOOK.name}?token={token}", timeout=PAGE_LOAD_S * 1000)
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=PAGE_LOAD_S * 1000)

            def ready():
                _accept_kernel_dialog(page)
                return _kernel_idle(page)

            _wait_until(ready, PAGE_LOAD_S, "an idle kernel")
            _run_all(page)
            outputs = page.locator(".jp-OutputArea-output").all_text_contents()
            tracebacks = [o for o in outputs if "Traceback (most recent call last)" in o]
            assert not tracebacks, "a cell raised:\n" + "\n\n".join(tracebacks)[:3000]

            widgets = page.locator(".jp-OutputArea-output .jupyter-widgets")
            _wait_until(
                lambda: widgets.count() > 0,
                WIDGET_UPDATE_S,
                "an ipywidgets view (if the output shows text such as 'VBox(...)', the "
                "widget extension jupyterlab_widgets is missing from the server's environment)",
            )

            selector = ", ".join(f".jp-OutputArea-output {c}" for c in CONTROLS)
            controls = page.locator(selector)
            assert controls.count(), f"no ipywidgets control ({', '.join(CONTROLS)}) rendered"

            for i in range(min(controls.count(), MAX_CONTROLS_TRIED)):
                control = controls.nth(i)
                kind = next(c for c in CONTROLS if control.evaluate(
                    "(el, c) => el.matches(c)", c))  # fmt: skip
                control.scroll_into_view_if_needed()
                cell = page.locator(".jp-Cell").filter(has=control).first
                before = _settled_signature(page)
                cell.screenshot(path=shots["before"])
                action = _move(control, kind)
                if not action:
                    continue
                moved.append(action)
                try:
                    _wait_until(
                        lambda before=before: _signature(page) != before and _kernel_idle(page),
                        WIDGET_UPDATE_S,
                        f"the output to change after {action}",
                    )
                except TimeoutError:
                    continue
                page.wait_for_timeout(500)  # let the new figure finish painting
                cell.screenshot(path=shots["after"])
                report["changed_by"] = action
                break
        finally:
            page.screenshot(path=shots["page"])
            browser.close()

    with capsys.disabled():
        print(f"\n[browser] {json.dumps(report)}")
        for path in shots.values():
            if path.exists():
                print(f"[browser] screenshot: {path}")
    assert "changed_by" in report, (
        f"moving the controls ({'; '.join(moved) or 'none could be moved'}) did not change "
        "any rendered output"
    )
