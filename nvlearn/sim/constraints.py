"""One capacity constraint per class of equivalent links: the fabric the fairness solver sees.

Two directed links are *equivalent* for a set of routes when the same routes cross them with
the same load per unit of capacity (``frac / capacity``). A multipath route that spreads in
proportion to capacity makes whole tiers equivalent: every cross-node route of the NVLink
pod crosses its source node's 36 uplinks with ``frac_l / c_l`` equal, so those 36 links
saturate together, at the same level, always. Their constraints
``sum_f frac_f,l * rate_f <= c_l`` are then one constraint (that of any member) scaled, and
the engine solves max-min fairness over one *representative* per class: on the pod an
80-link route becomes 10 constraints (4 when the GPU's links also merge), which is what
lets 65,280 flows re-solve in microseconds rather than milliseconds.

Everything per link is recovered exactly: a member ``l`` of the class of representative
``k`` carries ``c_l / c_k`` times the representative's load at every instant, and is busy
exactly when it is. Ratios equal to ``RATIO_BITS`` bits (about 1e-12 relative) count as
equal, since ``(5/18) / 5B`` and ``(4/18) / 4B`` differ in the last bit; the merge then moves
no rate by more than that.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit

__all__ = ["Constraints", "merge_equivalent_links"]

#: Mantissa bits of ``frac / capacity`` that must agree for two links to be equivalent.
RATIO_BITS = 40
_MIX = np.uint64(0x9E3779B97F4A7C15)


class Constraints(NamedTuple):
    """Routes over classes of equivalent links (CSR), and the map back to links.

    ``indptr``, ``link``, ``frac`` are the routes with one entry per class crossed (the
    representative's link id replaced by the class id, its fraction kept); ``capacity`` is
    each class's representative's (bytes/s); ``link_class`` is each link's class (-1 for a
    link no route crosses) and ``link_scale`` its capacity over its representative's.
    """

    indptr: np.ndarray
    link: np.ndarray
    frac: np.ndarray
    capacity: np.ndarray
    link_class: np.ndarray
    link_scale: np.ndarray


@njit
def _signatures(n_links, indptr, link, ratio_key):
    """Per link: an order-free 64-bit hash of the (route, ratio) pairs crossing it, and
    their count."""
    sig = np.zeros(n_links, np.uint64)
    count = np.zeros(n_links, np.int64)
    for path in range(indptr.shape[0] - 1):
        for e in range(indptr[path], indptr[path + 1]):
            # ufuncs, not operators: they wrap around silently in plain Python too
            x = np.multiply(np.uint64(path) + np.uint64(1), _MIX) ^ np.uint64(ratio_key[e])
            x ^= x >> np.uint64(31)
            x = np.multiply(x, _MIX)
            x ^= x >> np.uint64(29)
            sig[link[e]] = np.add(sig[link[e]], x)
            count[link[e]] += 1
    return sig, count


@njit
def _verified(indptr, link, ratio_key, link_class, class_size):
    """True if every route crosses all members of each class it enters, each with the
    representative's ratio (a hash collision would break this)."""
    n_classes = class_size.shape[0]
    seen = np.zeros(n_classes, np.int64)
    stamp = np.full(n_classes, -1, np.int64)
    key = np.zeros(n_classes, np.int64)
    touched = np.empty(n_classes, np.int64)
    for path in range(indptr.shape[0] - 1):
        n_touched = 0
        for e in range(indptr[path], indptr[path + 1]):
            c = link_class[link[e]]
            if stamp[c] != path:
                stamp[c] = path
                seen[c] = 0
                key[c] = ratio_key[e]
                touched[n_touched] = c
                n_touched += 1
            elif key[c] != ratio_key[e]:
                return False
            seen[c] += 1
        for j in range(n_touched):
            if seen[touched[j]] != class_size[touched[j]]:
                return False
    return True


@njit
def _compress(indptr, link, frac, link_class, class_rep):
    """Keep each route's entry on its classes' representatives, renamed to the class."""
    n_paths = indptr.shape[0] - 1
    out_ptr = np.zeros(n_paths + 1, np.int64)
    out_link = np.empty(link.shape[0], np.int32)
    out_frac = np.empty(link.shape[0])
    q = 0
    for path in range(n_paths):
        for e in range(indptr[path], indptr[path + 1]):
            c = link_class[link[e]]
            if class_rep[c] == link[e]:
                out_link[q] = c
                out_frac[q] = frac[e]
                q += 1
        out_ptr[path + 1] = q
    return out_ptr, out_link[:q].copy(), out_frac[:q].copy()


def merge_equivalent_links(capacity: np.ndarray, indptr: np.ndarray, link: np.ndarray,
                           frac: np.ndarray) -> Constraints:
    """Group the links that every route crosses alike (see the module docstring).

    Parameters
    ----------
    capacity : float array (n_links,)
        bytes/s per direction; every link a route crosses must have capacity > 0.
    indptr, link, frac : arrays
        Routes as CSR (:meth:`nvlearn.topology.Topology.routes`): route ``i`` puts fraction
        ``frac[e]`` of its bytes on link ``link[e]`` for ``e`` in ``indptr[i]:indptr[i+1]``.

    Returns
    -------
    Constraints

    Examples
    --------
    Two routes that both cross links 0 and 1 (equal capacity, equal fractions), one of them
    also link 2: links 0 and 1 are one constraint.

    >>> c = merge_equivalent_links(np.array([2.0, 2.0, 1.0]), np.array([0, 2, 5]),
    ...                            np.array([0, 1, 0, 1, 2]), np.ones(5))
    >>> c.link_class.tolist(), c.indptr.tolist(), c.link.tolist()
    ([0, 0, 1], [0, 1, 3], [0, 0, 1])
    """
    n_links = capacity.shape[0]
    ratio = frac / capacity[link]
    shift = np.int64(52 - RATIO_BITS)
    bits = ratio.view(np.int64)
    ratio_key = (bits + (np.int64(1) << (shift - 1))) >> shift  # rounded to RATIO_BITS bits
    sig, count = _signatures(n_links, indptr, link, ratio_key)
    used = np.flatnonzero(count > 0)
    order = used[np.lexsort((used, count[used], sig[used]))]
    new = np.ones(order.size, dtype=bool)
    new[1:] = (sig[order][1:] != sig[order][:-1]) | (count[order][1:] != count[order][:-1])
    link_class = np.full(n_links, -1, dtype=np.int64)
    link_class[order] = np.cumsum(new) - 1
    class_rep = order[new]  # the lowest link id of each class (lexsort's last key)
    class_size = np.diff(np.append(np.flatnonzero(new), order.size))
    if not _verified(indptr, link, ratio_key, link_class, class_size):
        # a 64-bit hash collision: keep every link on its own (always correct)
        link_class = np.full(n_links, -1, dtype=np.int64)
        link_class[used] = np.arange(used.size)
        class_rep = used
    out_ptr, out_link, out_frac = _compress(indptr, link, frac, link_class, class_rep)
    scale = np.zeros(n_links)
    scale[used] = capacity[used] / capacity[class_rep[link_class[used]]]
    return Constraints(out_ptr, out_link, out_frac, capacity[class_rep], link_class, scale)
