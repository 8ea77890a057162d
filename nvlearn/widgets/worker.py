"""One background process that renders explorer states, so the kernel never waits for them.

An explorer renders the states one move away while the learner looks
(:class:`~nvlearn.widgets.base.Explorer`). In a thread of the kernel those renders share the
interpreter with the kernel: a numba simulation holds it for its whole run (a 128-GPU
all-to-all under static routing: seconds), and every move that arrives meanwhile waits,
even when its picture is ready. Here they run in one worker *process* instead (one: the
course's machines have two cores, the other is the kernel's); the kernel's thread only waits
on a pipe, which leaves the interpreter free.

A render goes to the worker when it can be sent there: a function defined in a module (or a
:func:`functools.partial` of one) whose arguments pickle. A bound method or a function
typed into a notebook cell renders in the kernel's thread as before.

The worker starts when :mod:`nvlearn.widgets.base` is imported in a kernel (a notebook's
setup cell), so its imports are done before the first explorer needs it. It runs at the
kernel's priority: a move to the state it is drawing waits for it, and a lower priority
starved it whenever the cores were busy (notebook 00's ladder: p50 0.9 s at load 6.5 with
``nice`` +5). It uses matplotlib's Agg backend, exits when the kernel does, and keeps its
own caches (a state simulated there is simulated again if the kernel itself needs its
data).
"""

from __future__ import annotations

import functools
import inspect
import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["call", "ready", "render_state", "runs_in_worker", "start", "submit"]

#: Seconds between the worker's checks that the kernel that started it is still there.
_PARENT_POLL_S = 1.0


class _Owner:
    """Owner of the live figures of the renders in this process (one per explorer kind)."""


_OWNER = _Owner()


def runs_in_worker(render: Callable) -> bool:
    """Whether ``render`` can be sent to the worker process (a module's function, or a
    partial of one, that pickles).

    Examples
    --------
    >>> runs_in_worker(render_state), runs_in_worker(lambda: None)
    (True, False)
    """
    func = render.func if isinstance(render, functools.partial) else render
    if inspect.ismethod(func) or getattr(func, "__module__", "__main__") == "__main__":
        return False
    try:
        pickle.dumps(render)
    except Exception:  # noqa: BLE001 - any reason it cannot travel: render it here
        return False
    return True


def render_state(render: Callable, values: Mapping) -> tuple[bytes, str, dict]:
    """``(png, text, attributes)`` of one state: ``render(**values)`` drawn to PNG.

    ``render`` returns ``(figure, text)`` or ``(figure, text, attributes)``; the figure is
    closed once drawn (taken out of pyplot's list). Explorer figures stay alive in this
    process between states (:func:`~nvlearn.plots.live.scope` of :data:`_OWNER`).
    """
    import matplotlib.pyplot as plt

    from nvlearn.plots import live
    from nvlearn.widgets.base import figure_png

    with live.scope(_OWNER):
        out = render(**values)
        fig, text = out[0], out[1]
        attrs = dict(out[2]) if len(out) > 2 else {}
        try:
            return figure_png(fig), text, attrs
        finally:
            plt.close(fig)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(0)


def _init_worker(parent: int) -> None:
    os.environ["MPLBACKEND"] = "Agg"
    import matplotlib

    matplotlib.use("Agg")
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _warm_up() -> None:
    """What every render needs: the imports, text drawn once (the font cache and Agg's text
    path), and the simulator's machine code loaded (from numba's cache) by one tiny run."""
    import matplotlib.pyplot as plt

    import nvlearn.widgets.base  # noqa: F401
    from nvlearn.collectives import allreduce
    from nvlearn.sim import simulate
    from nvlearn.topology import single_switch
    from nvlearn.widgets.base import figure_png

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.set_title("warm-up")
    figure_png(fig)
    plt.close(fig)
    simulate(single_switch(2, bw_per_dir=1e9), allreduce(2, 1e6))


_done = threading.Event()
_warm: set[tuple[str, str]] = set()


def _render_id(render: Callable) -> tuple[str, str]:
    func = render.func if isinstance(render, functools.partial) else render
    return getattr(func, "__module__", ""), getattr(func, "__qualname__", repr(func))


def ready(render: Callable | None = None) -> bool:
    """Whether waiting for a state the worker is drawing is quicker than drawing it here: the
    worker is up with its imports done and — when ``render`` is given — has finished a render
    of that function already (its first one also builds the live figure and its background,
    which the kernel's own copy has done).

    Examples
    --------
    >>> ready(render_state) in (True, False)
    True
    """
    if render is None:
        return _done.is_set()
    return _done.is_set() and _render_id(render) in _warm


@functools.lru_cache(maxsize=1)
def _pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker, initargs=(os.getpid(),))


def call(func: Callable, *args) -> Future:
    """Run ``func(*args)`` in the worker process (started on first use); its Future.

    ``func`` must be a module's function and ``args`` and the result must pickle.
    """
    future = _pool().submit(func, *args)
    future.add_done_callback(lambda f: f.exception() is None and _done.set())
    return future


def start() -> None:
    """Start the worker and its imports now (they take a few seconds), so that it is ready
    when the first explorer hands it a state."""
    call(_warm_up)


def submit(render: Callable, values: Mapping) -> Future:
    """Render one state in the worker process; a Future of :func:`render_state`'s result."""
    future = call(render_state, render, dict(values))
    future.add_done_callback(lambda f: f.exception() is None and _warm.add(_render_id(render)))
    return future
