"""numba policy for nvlearn: cached kernels, a writable cache, and a debug switch.

* Every kernel is compiled with ``cache=True`` through :func:`njit` below, so a second
  Python process loads machine code from disk instead of recompiling.
* numba writes its cache beside the source file (``__pycache__``). When the package folder
  is read-only (a system-wide install, a read-only CI checkout) the cache goes to
  ``$XDG_CACHE_HOME/nvlearn/numba`` (default ``~/.cache/nvlearn/numba``) instead; an explicit
  ``NUMBA_CACHE_DIR`` always wins.
* Set ``NVLEARN_DISABLE_JIT=1`` (or numba's own ``NUMBA_DISABLE_JIT=1``) to run every kernel as
  plain Python, for stepping through it in a debugger. It is slow; use small inputs.

numba itself is imported only when a module that has kernels is imported, so
``import nvlearn`` stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path

_PKG_DIR = Path(__file__).resolve().parent


def _choose_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    if os.access(_PKG_DIR, os.W_OK):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    target = base / "nvlearn" / "numba"
    target.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(target)


_choose_cache_dir()
if os.environ.get("NVLEARN_DISABLE_JIT", "") not in ("", "0"):
    os.environ["NUMBA_DISABLE_JIT"] = "1"

import numba  # noqa: E402  (must follow the environment set-up above)

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` by default (the project's policy).

    Examples
    --------
    >>> @njit(cache=False)        # a function typed at a prompt has no file to cache in
    ... def add(a, b):
    ...     return a + b
    >>> add(1, 2)
    3
    """
    kwargs.setdefault("cache", True)
    if args and callable(args[0]) and len(args) == 1 and not kwargs.keys() - {"cache"}:
        return numba.njit(cache=kwargs["cache"])(args[0])
    return numba.njit(*args, **kwargs)
