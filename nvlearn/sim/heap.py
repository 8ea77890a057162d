"""An indexed binary min-heap of op times on flat arrays (numba), for the event-driven engine.

Every op is in the heap at most once — waiting to start, or transferring and waiting to end
— so the arrays have one slot per op and never grow. ``pos[op]`` is the op's place in the
heap (-1 if absent), which lets the engine move an op's time when its rate changes
(:func:`update`) instead of leaving stale entries behind.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit

__all__ = ["heapify", "pop", "push", "update"]


# The sifts index with unsigned integers: numba checks a signed index for a negative
# (wraparound) value at every access, which costs a heap of a few hundred entries a third of
# its time.
_U0, _U1 = np.uint64(0), np.uint64(1)


@njit
def _sift_up(times, ops, pos, i, t, op):
    i = np.uint64(i)
    while i > _U0:
        parent = (i - _U1) >> _U1
        if times[parent] <= t:
            break
        o = ops[parent]
        times[i] = times[parent]
        ops[i] = o
        pos[np.uint64(o)] = i
        i = parent
    times[i] = t
    ops[i] = op
    pos[np.uint64(op)] = i


@njit
def _sift_down(times, ops, pos, n, i, t, op):
    i = np.uint64(i)
    n = np.uint64(n)
    while True:
        c = i + i + _U1
        if c >= n:
            break
        if c + _U1 < n and times[c + _U1] < times[c]:
            c += _U1
        if times[c] >= t:
            break
        o = ops[c]
        times[i] = times[c]
        ops[i] = o
        pos[np.uint64(o)] = i
        i = c
    times[i] = t
    ops[i] = op
    pos[np.uint64(op)] = i


@njit
def push(times, ops, pos, n, t, op):
    """Insert ``op`` at time ``t`` into a heap of ``n`` entries; returns ``n + 1``.

    Parameters
    ----------
    times : ndarray of float64
        Heap entries' times, seconds (one slot per op).
    ops : ndarray of int
        Heap entries' op indices.
    pos : ndarray of int
        Each op's place in the heap, -1 if absent; kept in step with ``ops``.
    n : int
        The number of entries in the heap, ``0 <= n <= len(times)``.
    t : float
        The op's time, seconds.
    op : int
        The op to insert; must not be in the heap already (``pos[op] == -1``).

    Returns
    -------
    int
        The new number of entries, ``n + 1``.
    """
    _sift_up(times, ops, pos, n, t, op)
    return n + 1


@njit
def pop(times, ops, pos, n):
    """Remove the earliest entry; returns ``(t, op, n - 1)``. ``n`` must be > 0.

    Parameters
    ----------
    times : ndarray of float64
        Heap entries' times, seconds (one slot per op).
    ops : ndarray of int
        Heap entries' op indices.
    pos : ndarray of int
        Each op's place in the heap, -1 if absent; kept in step with ``ops``.
    n : int
        The number of entries in the heap, ``0 < n <= len(times)``.

    Returns
    -------
    t : float
        The earliest time, seconds.
    op : int
        Its op, now out of the heap (``pos[op] == -1``).
    n : int
        The new number of entries, ``n - 1``.
    """
    t = times[0]
    op = ops[0]
    pos[op] = -1
    n -= 1
    if n > 0:
        _sift_down(times, ops, pos, n, 0, times[n], ops[n])
    return t, op, n


@njit
def update(times, ops, pos, n, op, t):
    """Move ``op`` (in the heap) to time ``t``.

    Parameters
    ----------
    times : ndarray of float64
        Heap entries' times, seconds (one slot per op).
    ops : ndarray of int
        Heap entries' op indices.
    pos : ndarray of int
        Each op's place in the heap, -1 if absent; kept in step with ``ops``.
    n : int
        The number of entries in the heap, ``0 <= n <= len(times)``.
    op : int
        The op to move; must be in the heap (``pos[op] >= 0``).
    t : float
        Its new time, seconds (earlier or later).

    Returns
    -------
    None
        The arrays are updated in place.
    """
    i = pos[op]
    if i > 0 and times[(i - 1) >> 1] > t:
        _sift_up(times, ops, pos, i, t, op)
    else:
        _sift_down(times, ops, pos, n, i, t, op)



@njit
def heapify(times, ops, pos, n):
    """Make the first ``n`` entries of ``times`` / ``ops`` a heap in place, in O(n) (instead
    of ``n`` pushes in O(n log n)); ``pos`` is set for every op among them.

    Parameters
    ----------
    times : ndarray of float64
        Entries' times, seconds, in any order.
    ops : ndarray of int
        Entries' op indices (each once).
    pos : ndarray of int
        Each op's place in the heap; set for the ``n`` ops.
    n : int
        The number of entries, ``0 <= n <= len(times)``.

    Returns
    -------
    int
        ``n``, the heap's size.
    """
    for i in range(n):
        pos[ops[i]] = i
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(times, ops, pos, n, i, times[i], ops[i])
    return n
