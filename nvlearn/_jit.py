"""numba policy for nvlearn: cached kernels, a writable cache, and a debug switch.

* Every kernel is compiled with ``cache=True`` through :func:`njit` below, so a second
  Python process loads machine code from disk instead of recompiling.
* numba writes its cache beside the source file (``__pycache__``). When the package folder
  is read-only (a system-wide install, a read-only CI checkout) the cache goes to
  ``$XDG_CACHE_HOME/nvlearn/numba`` (default ``~/.cache/nvlearn/numba``) instead; an explicit
  ``NUMBA_CACHE_DIR`` always wins.
* If neither is writable (a read-only home, a locked-down container), caching turns off with
  one warning that names ``NUMBA_CACHE_DIR``: kernels then compile in every new process, but
  importing never fails over a cache.
* numba checks a cached kernel against its own file's time stamp only, so a kernel whose
  callee in another file changed (``sim/engine.py`` calling ``sim/groups.py``) would load
  stale machine code after a ``git pull``. At import, :func:`drop_stale_kernels` compares a
  hash of every kernel module's source (and of this one) with the one the cache was built
  from and, when they differ, deletes the cached kernels of all of them (they compile again
  on first use). Like numba's own cache, it does not see a changed global constant imported
  from a module without kernels.
* :func:`lend` gives a kernel views of arrays without their reference count, for the hot
  calls of an event loop (numba increfs and decrefs, atomically, every array a call takes).
* Set ``NVLEARN_DISABLE_JIT=1`` (or numba's own ``NUMBA_DISABLE_JIT=1``) to run every kernel as
  plain Python, for stepping through it in a debugger; no cache is touched then. It is slow; use
  small inputs.

numba itself is imported only when a module that has kernels is imported, so
``import nvlearn`` stays fast.
"""

from __future__ import annotations

import functools
import hashlib
import os
import warnings
from pathlib import Path

__all__ = ["JIT_DISABLED", "cache_folder", "drop_stale_kernels", "kernel_modules", "lend",
           "njit"]

# abspath, not resolve(): numba names a cache folder after the module's path as imported
_PKG_DIR = Path(os.path.abspath(os.path.dirname(__file__)))
_STAMP = "nvlearn-kernel-sources.sha256"


def _jit_disabled_by_env() -> bool:
    return any(os.environ.get(k, "") not in ("", "0")
               for k in ("NVLEARN_DISABLE_JIT", "NUMBA_DISABLE_JIT"))


def _choose_cache_dir() -> bool:
    """Point numba's cache at a writable folder; False (and one warning) if there is none."""
    if os.environ.get("NUMBA_CACHE_DIR") or os.access(_PKG_DIR, os.W_OK):
        return True
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    target = base / "nvlearn" / "numba"
    try:
        target.mkdir(parents=True, exist_ok=True)
        probe = target / f".probe-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError:
        warnings.warn(
            f"nvlearn: neither the package folder ({_PKG_DIR}) nor {target} is writable, so "
            "numba kernels are not cached and compile again in every new process; set "
            "NUMBA_CACHE_DIR to a writable folder to cache them", RuntimeWarning, stacklevel=2)
        return False
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    return True


def kernel_modules(package: Path = _PKG_DIR) -> tuple[Path, ...]:
    """Every module of ``package`` that defines a numba kernel (a line starting ``@njit``);
    found once per process."""
    return _scan(Path(package))


@functools.lru_cache(maxsize=8)
def _scan(package: Path) -> tuple[Path, ...]:
    found = []
    for p in package.rglob("*.py"):
        text = p.read_bytes()
        if text.startswith(b"@njit") or b"\n@njit" in text:
            found.append(p)
    return tuple(sorted(found))


def cache_folder(module: Path) -> Path:
    """Where numba caches ``module``'s kernels: ``<NUMBA_CACHE_DIR>/<folder>_<sha1 of the
    folder's path>`` when that is set (numba's ``UserProvidedCacheLocator``), else
    ``__pycache__`` beside the module."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    folder = os.path.abspath(os.path.dirname(module))
    if root:
        digest = hashlib.sha1(folder.encode()).hexdigest()
        return Path(root) / f"{os.path.basename(folder)}_{digest}"
    return Path(folder) / "__pycache__"


def drop_stale_kernels(package: Path = _PKG_DIR) -> bool:
    """Delete the cached kernels of every kernel module of ``package`` if any of their sources
    changed since the cache was stamped; True if it deleted (or found nothing stamped).

    The stamp (a SHA-256 of the kernel modules' paths and sources) lives in the package's own
    cache folder, so checkouts side by side never share one. Failing to read or write it is
    not an error: the cache then behaves as numba's own.
    """
    modules = kernel_modules(package)
    h = hashlib.sha256(Path(__file__).read_bytes())  # this policy (and :func:`lend`) too
    for m in modules:
        h.update(m.relative_to(package).as_posix().encode() + b"\0" + m.read_bytes())
    digest = h.hexdigest()
    stamp = cache_folder(package / "__init__.py") / _STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        for m in modules:
            for cached in cache_folder(m).glob(f"{m.stem}.*.nb[ci]"):
                cached.unlink(missing_ok=True)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return True


if _jit_disabled_by_env():
    os.environ["NUMBA_DISABLE_JIT"] = "1"
    CACHE_ENABLED = False          # plain Python: nothing to cache, no folder touched
else:
    CACHE_ENABLED = _choose_cache_dir()
    if CACHE_ENABLED:
        drop_stale_kernels()

import numba  # noqa: E402  (must follow the environment set-up above)
import numba.core.cgutils  # noqa: E402
import numba.extending  # noqa: E402

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` by default (the project's policy), or without a
    cache when no writable cache folder exists (:data:`CACHE_ENABLED`).

    Examples
    --------
    >>> @njit(cache=False)        # a function typed at a prompt has no file to cache in
    ... def add(a, b):
    ...     return a + b
    >>> add(1, 2)
    3
    """
    kwargs.setdefault("cache", CACHE_ENABLED)
    kwargs["cache"] = bool(kwargs["cache"]) and CACHE_ENABLED
    if args and callable(args[0]) and len(args) == 1 and not kwargs.keys() - {"cache"}:
        return numba.njit(cache=kwargs["cache"])(args[0])
    return numba.njit(*args, **kwargs)


def lend(a):
    """``a`` (an array, or a tuple or named tuple of arrays and scalars) as views that carry
    no reference count, for a kernel's hot calls.

    numba counts references to an array atomically: a jitted call increfs and decrefs every
    array it takes (each member of a named tuple), and again each one it reads out of a
    tuple, some 5-10 ns apiece. The simulator's event loop passes about a hundred arrays
    per batch of events, so on a schedule of small batches the counting outweighed the
    work (60 % of the wire-model ring at 2,048 GPUs). A lent view has the same data,
    shape and strides and no owner, so counting it costs a null test.

    The caller must keep the owner (``a`` itself) alive for as long as the views are used,
    and never return a view or store one where it could outlive its owner: in nvlearn they
    are made at the top of a kernel from its own arguments (its caller holds those until it
    returns) and used only inside it. In plain Python (``NVLEARN_DISABLE_JIT=1``) ``lend``
    returns ``a``.

    Parameters
    ----------
    a : ndarray or tuple
        An array, or a (named) tuple whose members are arrays or scalars.

    Returns
    -------
    ndarray or tuple
        The same, of the same numba type, each array as a view without a reference count.
    """
    return a


def _lent(context, builder, ty, value):
    if isinstance(ty, numba.types.Array):
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = numba.core.cgutils.get_null_value(ary.meminfo.type)
        ary.parent = numba.core.cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, numba.types.BaseTuple):
        for i, member in enumerate(ty):
            value = builder.insert_value(
                value, _lent(context, builder, member, builder.extract_value(value, i)), i)
    return value


def _lendable(ty) -> bool:
    if isinstance(ty, numba.types.BaseTuple):
        return all(_lendable(m) for m in ty)
    return isinstance(ty, (numba.types.Array, numba.types.Number, numba.types.Boolean))


@numba.extending.intrinsic
def _lend(typingctx, a):
    if not _lendable(a):
        return None

    def codegen(context, builder, sig, args):
        return _lent(context, builder, sig.args[0], args[0])

    return a(a), codegen


@numba.extending.overload(lend)
def _lend_overload(a):
    if _lendable(a):
        return lambda a: _lend(a)
    return None
