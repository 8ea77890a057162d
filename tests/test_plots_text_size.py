"""Every figure's text is at least the notebook's body size as shown (BODY_PT at the scale
JupyterLab shows the figure at in a 1280-px window with the file browser open).

Notebook figures: every example in the docstrings of :mod:`nvlearn.plots` (each figure
function has one) and the straggler figures that have none, as the inline backend shows
them (cropped to their content). Explorer figures: each explorer's first picture, at the
PNG's own size.
"""

from __future__ import annotations

import doctest
import importlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from nvlearn.plots.style import shown_scale, small_texts  # noqa: E402

#: The modules of nvlearn.plots with figure functions (style's examples show the checker
#: finding small text, on purpose).
PLOT_MODULES = ("allreduce", "ladder", "live", "moe", "nextgen", "parallelism", "puzzles",
                "serdes", "sgd", "stragglers", "switching", "timeline", "topology_drawing")


@pytest.fixture(autouse=True)
def _close_figures():
    plt.close("all")
    yield
    plt.close("all")


def _open_figures() -> list:
    return [plt.figure(n) for n in plt.get_fignums() if plt.figure(n).axes]


def _examples(module: str) -> list[doctest.DocTest]:
    mod = importlib.import_module(f"nvlearn.plots.{module}")
    return [t for t in doctest.DocTestFinder().find(mod) if t.examples]


@pytest.mark.parametrize("module", PLOT_MODULES)
def test_every_figure_of_the_docstring_examples_has_body_size_text(module):
    failures = []
    for test in _examples(module):
        plt.close("all")
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=lambda s: None)
        assert not result.failed, f"{test.name}: its example fails"
        for fig in _open_figures():
            small = small_texts(fig)
            if small or shown_scale(fig) < 0.99:
                failures.append(f"{test.name}: shown at {shown_scale(fig):.0%}, {small[:4]}")
    assert not failures, "\n".join(failures)


def _straggler_figures():
    from nvlearn.plots import stragglers as sp
    from nvlearn.straggle import Normal, ShiftedExponential, run_fault
    from nvlearn.topology import dgx_h100

    dist = ShiftedExponential(1.0, 0.1)
    yield "slowest of p", lambda: sp.slowest_of_p_figure(
        dist, [1, 8, 64], [1.0, 1.2, 1.4], [1.3, 1.5, 1.7], Normal(1.1, 0.1))
    yield "backup workers", lambda: sp.backup_workers_figure(dist, 64, [0, 1, 4])
    run = run_fault(dgx_h100(), "ring", 1e6, "slow_link", factor=0.5)
    yield "link bytes", lambda: sp.gpu_link_bytes_figure(run.healthy, run.result,
                                                         "ring, one link at half rate")
    steps = np.linspace(1e-3, 2e-3, 50)
    yield "explorer", lambda: sp.explorer_figure(
        run, steps, steps * 1.1, "50 Monte Carlo steps of the compute-jitter model, plus the "
        "simulated all-reduce")


@pytest.mark.parametrize(("name", "make"), list(_straggler_figures()),
                         ids=[n for n, _ in _straggler_figures()])
def test_figures_without_examples_have_body_size_text(name, make):
    fig = make()
    assert small_texts(fig) == [] and shown_scale(fig) >= 0.99, name


def _explorers():
    from nvlearn.widgets.ladder import LadderExplorer
    from nvlearn.widgets.moe import MoEExplorer
    from nvlearn.widgets.nextgen import DomainExplorer
    from nvlearn.widgets.parallelism import ParallelismExplorer
    from nvlearn.widgets.puzzles import PuzzleExplorer
    from nvlearn.widgets.serdes import EyeExplorer
    from nvlearn.widgets.sgd import SGDExplorer
    from nvlearn.widgets.stragglers import StragglerExplorer
    from nvlearn.widgets.switching import TrafficExplorer

    return {"00 ladder": LadderExplorer, "01 step": SGDExplorer,
            "02 eye": lambda: EyeExplorer(n_symbols=5_000),
            "03 traffic": lambda: TrafficExplorer(nodes=2, n_bytes=1e6),
            "05 MoE": MoEExplorer, "06 stragglers": StragglerExplorer,
            "07 parallelism": ParallelismExplorer, "08 domain": DomainExplorer,
            "09 puzzles": PuzzleExplorer}


@pytest.mark.parametrize("name", list(_explorers()))
def test_every_explorer_figure_has_body_size_text(name):
    fig = _explorers()[name]().figure
    assert small_texts(fig, tight=False) == [], name
    assert shown_scale(fig, tight=False) == 1.0, name


def test_refusals_have_body_size_text():
    from nvlearn.widgets.moe import MoEExplorer
    from nvlearn.widgets.parallelism import ParallelismExplorer

    moe = MoEExplorer()
    moe.set(experts=8)
    par = ParallelismExplorer()
    par.set(ep=2)  # a dense model: refused
    for ex in (moe, par):
        assert ex.text.startswith(("not a valid setting", "refused")), ex.text
        assert small_texts(ex.figure, tight=False) == []


def test_small_text_is_found_at_the_shown_scale():
    from nvlearn.plots.style import NOTEBOOK_WIDTH, new_figure

    fig, ax = new_figure(width=2 * NOTEBOOK_WIDTH, height=2.0)
    ax.text(0.5, 0.5, "11 pt, shown at half size", fontsize=11)
    small = dict(small_texts(fig, tight=False))
    assert small["11 pt, shown at half size"] == 5.5 and small["0.0"] == 5.0  # a tick label
