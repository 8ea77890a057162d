"""A progress bar for work that takes more than a couple of seconds, in a notebook only.

In a Jupyter kernel :func:`progress` shows an ipywidgets bar that fills as the loop runs and
removes it at the end; anywhere else (scripts, tests, doctests) it is a plain iteration.
Either way the loop stays interruptible between steps (Kernel > Interrupt, or Ctrl-C).

Examples
--------
>>> [x * x for x in progress(range(4), label="squares")]     # no kernel: no bar
[0, 1, 4, 9]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["progress"]

T = TypeVar("T")


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def progress(items: Iterable[T], total: int | None = None, *, label: str = "") -> Iterator[T]:
    """Yield ``items``, showing a progress bar labelled ``label`` when in a notebook.

    Parameters
    ----------
    items : iterable
        The work items, yielded unchanged and in order.
    total : int, optional
        Number of items (default ``len(items)``).
    label : str
        What is being done, e.g. "simulating 48 schedules".

    Yields
    ------
    object
        Each item of ``items``.
    """
    items = list(items) if total is None and not hasattr(items, "__len__") else items
    n = len(items) if total is None else int(total)
    if not _in_kernel() or n <= 1:
        yield from items
        return
    import ipywidgets as W
    from IPython.display import display

    bar = W.IntProgress(value=0, min=0, max=n, description=label,
                        style={"description_width": "initial"},
                        layout=W.Layout(width="60%"))
    display(bar)
    try:
        for item in items:
            yield item
            bar.value += 1
    finally:
        bar.close()
