"""Token rows through the data plane: to their experts and back, with real numbers.

The same ragged all-to-all Schedules that :func:`nvlearn.moe.simulate_moe` times are run
here by :func:`nvlearn.dataplane.run` on actual token vectors. Each GPU lays out its send
buffer block by block — chunk ``(s, d)`` holds exactly the rows GPU s sends GPU d, one row
of ``hidden`` numbers after another — so a chunk copy moves whole tokens.

Which row is which is bookkeeping both sides can do (real dispatchers send token indices
alongside, as DeepEP does): a sender orders its rows by destination, then by (source GPU,
token, choice); a receiver reads blocks in source order. The *numbers* travel only through
the data plane, and, in the two-stage (``"dedup"``) path, the relay forwards the row it
received, not a copy of the original. In the per-GPU de-duplicated path (``"gpu_dedup"``) a
token crosses once to each GPU that hosts any of its experts, and that GPU copies the row it
received to each of its chosen experts there.

:func:`moe_round_trip` runs a whole MoE layer: dispatch, experts, combine (weighted sum of
the k expert outputs, dropped assignments contributing nothing — the residual carries them).
With ``"gpu_dedup"`` each GPU weights and sums its own experts' outputs for a token and
sends that one row back.

References
----------
DeepSeek-AI, "DeepSeek-V3 technical report", arXiv:2412.19437, 2024, and the DeepEP library
(github.com/deepseek-ai/DeepEP) (dispatch and combine of token rows, token indices sent
alongside, a token's expert outputs reduced on the expert's GPU).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nvlearn.dataplane import run
from nvlearn.moe.dispatch import MODES, ragged_alltoall, relay_gpu, stage_rows
from nvlearn.moe.router import Routing

__all__ = ["DATA_PLANE_MODES", "alltoall_rows", "ExpertBatch", "dispatch_tokens", "moe_round_trip"]

#: Modes the data plane runs (a padded buffer carries the same tokens as "flat").
DATA_PLANE_MODES = ("flat", "dedup", "gpu_dedup")


def alltoall_rows(rows, send: list[np.ndarray], bytes_per_elem: float = 2.0
                  ) -> list[np.ndarray]:
    """Move token rows with a ragged all-to-all on the data plane.

    Parameters
    ----------
    rows : array_like of int, shape (p, p)
        ``rows[s, d]``: rows GPU s sends GPU d (diagonal: rows it keeps).
    send : list of ndarray
        ``send[s]``, shape (rows[s].sum(), hidden): GPU s's rows, destination 0's first,
        then destination 1's ...
    bytes_per_elem : float
        Sets the Schedule's byte counts (the same Schedule the simulator times); the data
        plane itself moves float64.

    Returns
    -------
    list of ndarray
        ``recv[d]``, shape (rows[:, d].sum(), hidden): the rows GPU d holds, source 0's
        block first.

    Examples
    --------
    >>> rows = np.array([[1, 1], [0, 2]])
    >>> send = [np.array([[1.0], [2.0]]), np.array([[3.0], [4.0]])]
    >>> [r.ravel().tolist() for r in alltoall_rows(rows, send)]
    [[1.0], [2.0, 3.0, 4.0]]
    """
    rows = np.asarray(rows, dtype=np.int64)
    p = rows.shape[0]
    if rows.shape != (p, p) or (rows < 0).any():
        raise ValueError(f"rows must be a square array of counts >= 0, got shape {rows.shape}")
    if len(send) != p or any(np.ndim(a) != 2 for a in send):
        raise ValueError(f"send needs one 2-D array (rows, hidden) per GPU ({p})")
    hidden = send[0].shape[1]
    for s, a in enumerate(send):
        if a.shape != (rows[s].sum(), hidden):
            raise ValueError(f"send[{s}] must have shape ({rows[s].sum()}, {hidden}) to match "
                             f"rows[{s}], got {a.shape}")
    if rows.sum() == 0:
        return [np.zeros((0, hidden)) for _ in range(p)]
    sched = ragged_alltoall(rows * (hidden * bytes_per_elem))
    flat = rows.ravel()
    nonempty = np.flatnonzero(flat)
    start = np.concatenate([[0], np.cumsum(flat[nonempty])]) * hidden  # element offsets
    n_elems = int(start[-1])
    bounds = np.rint(sched.chunk_bounds * n_elems).astype(np.int64)
    if not np.array_equal(bounds, start):
        raise ValueError("chunk bounds do not fall on row boundaries; the block layout and "
                         "the Schedule disagree")
    where = dict(zip(nonempty.tolist(), range(nonempty.size), strict=True))
    buf = np.zeros((p, n_elems))
    for s in range(p):
        first = np.concatenate([[0], np.cumsum(rows[s])])
        for d in np.flatnonzero(rows[s]):
            c = where[s * p + d]
            buf[s, start[c]:start[c + 1]] = send[s][first[d]:first[d + 1]].ravel()
    out = run(sched, buf)
    recv = []
    for d in range(p):
        parts = [out[d, start[where[s * p + d]]:start[where[s * p + d] + 1]]
                 for s in np.flatnonzero(rows[:, d])]
        recv.append(np.concatenate(parts).reshape(-1, hidden) if parts
                    else np.zeros((0, hidden)))
    return recv


@dataclass(frozen=True)
class ExpertBatch:
    """The rows one GPU holds for its experts after dispatch, and what each row is.

    Attributes
    ----------
    rows : ndarray, shape (n, hidden)
        One row per kept (token, expert) assignment on this GPU.
    src_gpu, token, slot, expert : ndarray of int, shape (n,)
        Origin (GPU, token index), which of the token's k choices, and the expert.
    n_received : int
        Rows that reached this GPU through the last dispatch all-to-all (its own block
        included). Equal to ``n`` except with ``"gpu_dedup"``, where one received row per
        token is copied to each of the token's experts on the GPU.
    """

    rows: np.ndarray
    src_gpu: np.ndarray
    token: np.ndarray
    slot: np.ndarray
    expert: np.ndarray
    n_received: int


def _assignments(routing: Routing) -> dict[str, np.ndarray]:
    """Kept assignments as flat arrays, in (source GPU, token, slot) order."""
    g, t, k = routing.expert.shape
    s, tok, slot = (a.ravel() for a in np.meshgrid(np.arange(g), np.arange(t), np.arange(k),
                                                    indexing="ij"))
    keep = routing.kept.ravel()
    return {"src": s[keep], "token": tok[keep], "slot": slot[keep],
            "expert": routing.expert.ravel()[keep].astype(np.int64),
            "dest": routing.dest_gpu.ravel()[keep].astype(np.int64)}


def _order(holder: np.ndarray, dest: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """Sort items by (holder, dest, keys...): every holder's send list, destination-major."""
    return np.lexsort((*reversed(keys), dest, holder))


def _check(routing: Routing, x: np.ndarray, mode: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3 or x.shape[:2] != (routing.n_gpus, routing.tokens_per_gpu):
        raise ValueError(f"x must have shape ({routing.n_gpus}, {routing.tokens_per_gpu}, "
                         f"hidden), got {x.shape}")
    if mode not in DATA_PLANE_MODES:
        raise ValueError(f"the data plane runs mode 'flat', 'dedup' or 'gpu_dedup', got "
                         f"{mode!r} (of {MODES}; a padded buffer carries the same tokens as "
                         "'flat')")
    return x


def _split(holder: np.ndarray, values: np.ndarray, p: int) -> list[np.ndarray]:
    """Items sorted by holder -> one array per holder."""
    cut = np.searchsorted(holder, np.arange(p + 1))
    return [values[cut[i]:cut[i + 1]] for i in range(p)]


def dispatch_tokens(routing: Routing, x, mode: str = "flat") -> list[ExpertBatch]:
    """Send every kept (token, expert) row to its expert's GPU through the data plane.

    Parameters
    ----------
    routing : Routing
        The routed batch (:func:`~nvlearn.moe.router.route`): who goes where.
    x : array_like, shape (n_gpus, tokens_per_gpu, hidden)
        Token vectors, by GPU.
    mode : {"flat", "dedup", "gpu_dedup"}
        One all-to-all, de-duplicated inter-node stage + intra-node fan-out, or one
        all-to-all with one row per (token, destination GPU).

    Returns
    -------
    list of ExpertBatch
        One per GPU.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> r = route(2, 3, 2, 1, seed=0, gpus_per_node=1)
    >>> x = np.arange(6.0).reshape(2, 3, 1)
    >>> sum(b.rows.shape[0] for b in dispatch_tokens(r, x))
    6
    """
    return _dispatch(routing, _check(routing, x, mode), mode)[0]


def _dispatch(routing: Routing, x: np.ndarray, mode: str):
    """Dispatch; also returns the bookkeeping combine needs."""
    p, a = routing.n_gpus, _assignments(routing)
    stages = stage_rows(routing, mode)["dispatch"]
    if mode == "gpu_dedup":
        return _dispatch_per_gpu(routing, x, a, stages[0])
    if mode == "flat":
        o = _order(a["src"], a["dest"], a["token"], a["slot"])
        send = _split(a["src"][o], x[a["src"][o], a["token"][o]], p)
        recv = alltoall_rows(stages[0], send)
        return _batches(recv, a, o, a["src"], p), {"order": o, "hop": a["src"]}
    gpn = routing.gpus_per_node
    relay = relay_gpu(routing)
    hop = relay[a["src"], a["dest"] // gpn]
    # stage 1: each token once per remote node, to the relay on that node
    remote = hop != a["src"]
    key = np.unique(np.stack([a["src"][remote], hop[remote], a["token"][remote]]), axis=1)
    s1_src, s1_relay, s1_tok = key  # sorted by (src, relay, token): the send order
    send1 = _split(s1_src, x[s1_src, s1_tok], p)
    recv1 = alltoall_rows(stages[0], send1)
    # a relay reads its blocks in source order: re-sort the same items by (relay, src)
    o1 = np.lexsort((s1_tok, s1_src, s1_relay))
    held = np.concatenate(recv1)              # rows as they sit on the relays
    # stage 2: every assignment leaves from its hop GPU (its own GPU, or the relay)
    o = _order(hop, a["dest"], a["src"], a["token"], a["slot"])
    lookup = {(int(r), int(s), int(t)): i
              for i, (r, s, t) in enumerate(zip(s1_relay[o1], s1_src[o1], s1_tok[o1],
                                                strict=True))}
    rows2 = np.empty((o.size, x.shape[2]))
    for i, j in enumerate(o):
        s, h, t = int(a["src"][j]), int(hop[j]), int(a["token"][j])
        rows2[i] = x[s, t] if h == s else held[lookup[(h, s, t)]]
    recv2 = alltoall_rows(stages[1], _split(hop[o], rows2, p))
    book = {"order": o, "hop": hop, "s1": (s1_src, s1_relay, s1_tok), "o1": o1}
    return _batches(recv2, a, o, hop, p), book


def _dispatch_per_gpu(routing: Routing, x: np.ndarray, a: dict[str, np.ndarray],
                      rows: np.ndarray):
    """Per-GPU de-duplicated dispatch: one row per (token, destination GPU) crosses.

    Returns the batches (each received row copied to the token's experts on the GPU) and
    the bookkeeping combine needs.
    """
    p, t = routing.n_gpus, routing.tokens_per_gpu
    # the distinct (source, destination, token) rows, sorted: every source's send order
    u_src, u_dest, u_tok = np.unique(np.stack([a["src"], a["dest"], a["token"]]), axis=1)
    recv = alltoall_rows(rows, _split(u_src, x[u_src, u_tok], p))
    # GPU d holds its blocks in source order: the same rows sorted by (dest, source, token)
    held_key = np.sort((u_dest * p + u_src) * t + u_tok)
    held = np.concatenate(recv)
    start = np.concatenate([[0], np.cumsum([r.shape[0] for r in recv])])
    # every kept assignment, on its expert's GPU in (source, token, slot) order, takes the
    # row that arrived for its (source, token)
    o = np.lexsort((a["slot"], a["token"], a["src"], a["dest"]))
    row = np.searchsorted(held_key, (a["dest"][o] * p + a["src"][o]) * t + a["token"][o])
    cut = np.searchsorted(a["dest"][o], np.arange(p + 1))
    batches, local = [], []
    for d in range(p):
        j, r = o[cut[d]:cut[d + 1]], row[cut[d]:cut[d + 1]]
        batches.append(ExpertBatch(rows=held[r], src_gpu=a["src"][j], token=a["token"][j],
                                   slot=a["slot"][j], expert=a["expert"][j],
                                   n_received=int(recv[d].shape[0])))
        local.append(r - start[d])  # which received row of GPU d each expert row copies
    return batches, {"local": local, "sent": (u_src, u_tok)}


def _combine_per_gpu(routing: Routing, x: np.ndarray, batches: list[ExpertBatch],
                     outs: list[np.ndarray], book: dict) -> np.ndarray:
    """Each GPU sums its weighted expert outputs per token and returns one row per token."""
    p = routing.n_gpus
    w = routing.weight.astype(np.float64)
    reduced = []
    for b, y_rows, local in zip(batches, outs, book["local"], strict=True):
        acc = np.zeros((b.n_received, x.shape[2]))  # in received order = combine send order
        np.add.at(acc, local, y_rows * w[b.src_gpu, b.token, b.slot][:, None])
        reduced.append(acc)
    back = alltoall_rows(stage_rows(routing, "gpu_dedup")["combine"][0], reduced)
    u_src, u_tok = book["sent"]
    y = np.zeros_like(x)
    for s in range(p):  # back[s]: by destination GPU, then token — s's dispatch send order
        np.add.at(y, (s, u_tok[u_src == s]), back[s])
    return y


def _batches(recv, a, o, hop, p) -> list[ExpertBatch]:
    """Label received rows: GPU d reads blocks by sender (hop), each in the sender's order."""
    d_sorted = np.lexsort((np.arange(o.size), hop[o], a["dest"][o]))  # stable by (dest, hop)
    idx = o[d_sorted]
    cut = np.searchsorted(a["dest"][idx], np.arange(p + 1))
    out = []
    for d in range(p):
        j = idx[cut[d]:cut[d + 1]]
        out.append(ExpertBatch(rows=recv[d], src_gpu=a["src"][j], token=a["token"][j],
                               slot=a["slot"][j], expert=a["expert"][j],
                               n_received=int(recv[d].shape[0])))
    return out


def moe_round_trip(routing: Routing, x,
                   expert_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                   mode: str = "flat") -> tuple[np.ndarray, list[ExpertBatch]]:
    """One MoE layer on the data plane: dispatch, experts, weighted combine.

    Parameters
    ----------
    routing : Routing
        The routed batch (:func:`~nvlearn.moe.router.route`).
    x : array_like, shape (n_gpus, tokens_per_gpu, hidden)
        Token vectors, by GPU.
    expert_fn : callable
        ``expert_fn(expert_ids, rows) -> rows``: every expert's computation on its rows.
    mode : {"flat", "dedup", "gpu_dedup"}
        How rows travel, as in :func:`dispatch_tokens`.

    Returns
    -------
    y : ndarray, shape (n_gpus, tokens_per_gpu, hidden)
        ``sum over kept choices j of weight[j] x expert_fn(expert[j], x)`` per token (0 for
        a token whose choices were all dropped: the residual carries it).
    batches : list of ExpertBatch
        What each GPU received in dispatch.

    Examples
    --------
    >>> from nvlearn.moe import route
    >>> r = route(2, 3, 2, 2, seed=0, gpus_per_node=1)
    >>> x = np.ones((2, 3, 1))
    >>> y, _ = moe_round_trip(r, x, lambda e, rows: rows * 2.0)
    >>> np.allclose(y, 2.0)               # weights sum to 1 over a token's choices
    True
    """
    x = _check(routing, x, mode)
    p = routing.n_gpus
    batches, book = _dispatch(routing, x, mode)
    outs = [np.asarray(expert_fn(b.expert, b.rows), dtype=np.float64) for b in batches]
    for b, y_rows in zip(batches, outs, strict=True):
        if y_rows.shape != b.rows.shape:
            raise ValueError("expert_fn must return one row per input row, of the same width")
    if mode == "gpu_dedup":
        return _combine_per_gpu(routing, x, batches, outs, book), batches
    a = _assignments(routing)
    w_all = routing.weight.astype(np.float64)
    y = np.zeros_like(x)
    o, hop = book["order"], book["hop"]
    partial = {}
    stages = stage_rows(routing, mode)["combine"]
    # last dispatch stage backwards: each GPU returns outputs to the GPU that sent the row
    back = alltoall_rows(stages[0], outs)
    # `back[h]` holds, block by destination d, the outputs of h's sends in h's send order
    for h in range(p):
        mine = o[hop[o] == h]  # h's send order (already dest-major)
        weighted = back[h] * w_all[a["src"][mine], a["token"][mine], a["slot"][mine]][:, None]
        if mode == "flat":
            np.add.at(y, (a["src"][mine], a["token"][mine]), weighted)
            continue
        own = a["src"][mine] == h
        np.add.at(y, (a["src"][mine][own], a["token"][mine][own]), weighted[own])
        partial[h] = (mine[~own], weighted[~own])
    if mode == "flat":
        return y, batches
    # relays sum a token's outputs per source token, then send one row back per (token, node)
    s1_src, s1_relay, s1_tok = book["s1"]
    o1 = book["o1"]
    partial_rows = []
    for r in range(p):
        sel = o1[s1_relay[o1] == r]  # r's stage-1 items, in the order it received them
        items, weighted = partial[r]
        pos = {(int(s), int(t)): i for i, (s, t) in enumerate(zip(s1_src[sel], s1_tok[sel],
                                                                  strict=True))}
        acc = np.zeros((sel.size, x.shape[2]))
        for i, j in enumerate(items):
            acc[pos[(int(a["src"][j]), int(a["token"][j]))]] += weighted[i]
        partial_rows.append(acc)
    back1 = alltoall_rows(stages[1], partial_rows)
    for s in range(p):
        sel = np.flatnonzero(s1_src == s)  # s's stage-1 send order: (relay, token)
        np.add.at(y, (s, s1_tok[sel]), back1[s])
    return y, batches
