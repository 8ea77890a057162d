"""Multi-panel figures fit the notebook: no wider than NOTEBOOK_WIDTH, so JupyterLab shows
them unscaled at 1280 px with the file browser open and their text stays at body size."""

import numpy as np
import pytest

from nvlearn.plots import allreduce, serdes, sgd, switching
from nvlearn.plots.style import NOTEBOOK_WIDTH


def _figures():
    from nvlearn.numerics import reduction_order_errors
    from nvlearn.serdes.chain import nvlink_chain
    from nvlearn.sgd import History, scaling
    from nvlearn.switching.patterns import measure, neighbour_shift
    from nvlearn.switching.plans import growth_table
    from nvlearn.topology import single_switch

    h = History(1, 8, 0.1, "float64", step_loss=[2.0, 1.0])
    st = measure(single_switch(4, 1e11), neighbour_shift(4, 1e9))
    sizes = np.array([2.0**20, 2.0**30])
    yield "training curves", lambda: sgd.training_curves_figure({"one": h, "two": h})
    yield "scaling wall", lambda: sgd.wall_figure(
        {(m, "ib_cluster", False): scaling(7e9, "ib_cluster", (8, 64)) for m in ("7B", "70B")})
    yield "SerDes chain", lambda: serdes.chain_waterfall(nvlink_chain(4))
    yield "FCT CDFs", lambda: switching.fct_cdf_figure([st, st], ["ring", "ring"])
    yield "hash collisions", lambda: switching.collision_figure(
        np.array([2, 0, 1, 1]), np.array([3, 3, 2]), 2.7, 5e10)
    yield "switch growth", lambda: switching.growth_figure({"taper 1": growth_table()})
    yield "NVLS speed-up", lambda: allreduce.nvls_speedup_figure(
        sizes, {"sim": np.array([0.5, 1.4])}, 1.556, chunks=np.array([1, 2]),
        chunk_speedup=np.array([1.4, 1.3]))
    yield "link traffic", lambda: allreduce.link_traffic_figure(
        {"ring": (np.ones(8) * 1.75, np.ones(8) * 1.75)}, 1.0, {"2(p-1)/p": 1.75})
    yield "numerics", lambda: allreduce.numerics_figure(
        {4: reduction_order_errors(4, 64, algorithms=("ring", "binary_tree"))})


@pytest.mark.parametrize(("name", "make"), list(_figures()), ids=[n for n, _ in _figures()])
def test_two_panel_figures_are_no_wider_than_the_notebook(name, make):
    fig = make()
    assert fig.get_figwidth() <= NOTEBOOK_WIDTH + 1e-9, name
    assert len(fig.axes) >= 2
