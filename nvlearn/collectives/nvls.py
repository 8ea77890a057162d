"""NVLS (NVLink SHARP): all-reduce with the addition done inside the NVSwitch.

How NCCL runs it in one NVSwitch domain (NCCL >= 2.17, Hopper + third-generation NVSwitch):
rank ``s`` owns shard ``s`` (``1/p`` of the buffer). It asks the switch for the sum of shard
``s`` (``multimem.ld_reduce``): the switch reads every GPU's copy of that shard, adds them and
returns the sum to ``s``; then ``s`` writes the sum to a multicast address
(``multimem.st``) and the switch copies it to every GPU. Per rank each way: ``n`` (its copy of
every shard) ``+ n/p`` (its reduced shard) — ``n (1 + 1/p)`` instead of the ring's
``2 (p-1)/p n`` (:func:`~nvlearn.collectives.volume.nvls_allreduce_bytes_per_rank`).

Model
-----
* The switch is a participant of the Schedule (role = its topology node name, ``"switch"``
  for :func:`~nvlearn.topology.single_switch`). Ops: ``A`` rank -> switch (add), ``B`` switch
  -> owner (copy), ``M`` owner -> switch (copy), ``D`` switch -> every rank (copy). A multicast
  is modelled as ``p`` ops ``D`` from the switch, each leaving on its own downlink — what
  the switch does in hardware; the switch's adder is not a bottleneck.
* A DGX H100 has four NVSwitch planes; every GPU reaches plane ``k`` over ``l_k`` of its 18
  links (5/4/4/5). Each plane is its own participant and handles the share ``l_k / 18`` of
  every shard, so all planes finish together (:func:`nvswitch_planes`).
* Pipelining: each shard is cut into ``chunks`` slots. Slot ``t`` goes up in *round* ``t``; a
  rank's uplink round ``t`` carries ``A`` of slot ``t`` for every shard together with ``M`` of
  slot ``t - L`` (``L`` = :data:`NVLS_LAG` = 4 slots in flight), as one batch of equal flows
  that share the link; its downlink round ``t`` carries ``B`` of slot ``t`` and the ``D`` of
  slot ``t - L``. Rounds on
  one link follow each other. So each link alternates between nothing and one batch, and
  ``A`` and ``M`` (``B`` and ``D``) overlap as in the real kernel.

Time on a single switch (:func:`nvls_time`, exact): with ``sigma = n / (chunks B)`` (one slot
of the whole buffer through one link), a hop latency ``h = alpha / 2`` (``alpha`` is a
GPU-to-GPU message, two hops), uplink round durations ``u_t = sigma [t < c] + sigma/p
[L <= t < c + L]``, downlink ``d_t = sigma/p [t < c] + sigma [t >= L]``
(``L = min(NVLS_LAG, c)``):

    U_t = max(U_{t-1} + u_{t-1},  D_{t-L} + d_{t-L} + h)      (M needs its B back)
    D_t = max(D_{t-1} + d_{t-1},  U_t + u_t + h)              (B, D need round t's A, M)
    T   = D_last + d_last + h,

a two-row max-plus recurrence evaluated in O(chunks). For large messages
``T -> n (1 + 1/p) / B``: the ideal (:func:`nvls_time_ideal`, ``n (1+1/p)/B + 2 alpha``)
that sets NVLS's speed-up over a ring to ``2 (p-1)/(p+1)`` — 1.56 at p = 8, not 2. What eats
the rest in practice: pipeline fill (``sigma`` terms above), NCCL's measured NVLS efficiency
(``nvlsEfficiency`` 0.85 on Hopper in tuning.cc) and its fixed ~25 us latency.

References
----------
NVIDIA NCCL 2.30 src/graph/tuning.cc (NVLS model), src/device/all_reduce.h (NVLS kernels);
NVIDIA H100 Tensor Core GPU Architecture white paper (2022), Sec. "NVLink SHARP";
PTX ISA, multimem.ld_reduce / multimem.st.
R. L. Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP): a hardware
architecture for efficient data reduction", COMHPC workshop, SC 2016 (reduction in the
switch, the idea NVLS brings to NVSwitch).
"""

from __future__ import annotations

import numpy as np

from nvlearn.collectives._ops import OpTable, check_link, check_ranks, check_size
from nvlearn.schedule import DEP_ARRIVAL, DEP_SENT, OP_COPY, OP_REDUCE, Schedule

__all__ = [
    "NVLS_LAG", "nvswitch_planes", "nvls_allreduce", "nvls_reduce_scatter", "nvls_allgather",
    "nvls_time", "nvls_time_ideal", "nvls_phase_time",
]

#: Slots in flight between a rank's reduced-shard request and its multicast. NCCL keeps
#: NCCL_STEPS = 8 slots per channel (src/include/device.h); the model lets half of them sit
#: between a slot's reduction and its multicast, so a slot's round trip to the switch
#: overlaps with the next slots' uploads.
NVLS_LAG = 4


def nvswitch_planes(topology, gpus) -> tuple[tuple[str, float], ...]:
    """The NVSwitch nodes that the given GPUs reach directly, with each one's share.

    Returns ``((node name, share), ...)``, shares proportional to the capacity of the links
    from a GPU to each switch (summing to 1). All GPUs must reach the same switches with the
    same capacities — one NVSwitch domain, the scope of NVLS.

    Examples
    --------
    >>> from nvlearn.topology import dgx_h100
    >>> [(name, round(w * 18)) for name, w in nvswitch_planes(dgx_h100(), range(8))]
    [('nvswitch0', 5), ('nvswitch1', 4), ('nvswitch2', 4), ('nvswitch3', 5)]
    """
    from nvlearn.topology import NODE_NVSWITCH

    nodes = np.asarray(topology.gpus)[np.asarray(list(gpus), dtype=np.int64)]
    kinds = np.asarray(topology.node_kind)
    first = None
    for g in nodes:
        out = np.flatnonzero((np.asarray(topology.link_src) == g)
                             & (kinds[np.asarray(topology.link_dst)] == NODE_NVSWITCH))
        sw = np.asarray(topology.link_dst)[out]
        order = np.argsort(sw)
        here = (sw[order], np.asarray(topology.link_capacity)[out][order])
        if first is None:
            first = here
        elif not (np.array_equal(first[0], here[0]) and np.allclose(first[1], here[1])):
            raise ValueError(
                f"NVLS reduces inside one NVSwitch domain, but {topology.node_name[g]} and "
                f"{topology.node_name[nodes[0]]} reach different NVSwitches; use "
                "algorithm='hierarchical' with intra='nvls' for GPUs in several boxes"
            )
    if first is None or first[0].size == 0:
        raise ValueError(f"the GPUs of {topology.name!r} reach no NVSwitch; NVLS needs one")
    share = first[1] / first[1].sum()
    return tuple((topology.node_name[int(n)], float(w))
                 for n, w in zip(first[0], share, strict=True))


def _check_switches(switches) -> tuple[tuple[str, float], ...]:
    """Normalise ``((role, share), ...)``; ValueError on empty, non-positive or duplicate."""
    out = tuple((str(r), float(w)) for r, w in switches)
    if not out or any(not w > 0 for _, w in out):
        raise ValueError("switches must be a non-empty sequence of (role, share > 0) pairs")
    if len({r for r, _ in out}) != len(out):
        raise ValueError("each switch plane must appear once in switches")
    total = sum(w for _, w in out)
    return tuple((r, w / total) for r, w in out)


def _add_nvls(ops: OpTable, ranks: np.ndarray, switch_ids: np.ndarray, chunk: np.ndarray,
              part: str, entry: np.ndarray | None = None) -> np.ndarray:
    """Add NVLS rounds for one NVSwitch domain; returns the ops each rank finishes on.

    Parameters
    ----------
    ranks : (q,) rank ids of the domain.
    switch_ids : (S,) participant ids of the planes.
    chunk : (q, S, R) chunk id of shard ``s`` on plane ``k`` in round ``r``.
    part : "allreduce" (A, B, M, D with :data:`NVLS_LAG`), "reduce_scatter" (A, B) or
        "allgather" (M, D).
    entry : (q, E) ops each rank waits for (arrival) before its first send, or None.

    Returns
    -------
    (q, X) op ids: every rank's last incoming batch, over all planes.
    """
    q, n_planes, R = chunk.shape
    lag = min(NVLS_LAG, R) if part == "allreduce" else 0
    with_a = part in ("allreduce", "reduce_scatter")
    with_m = part in ("allreduce", "allgather")
    exits = []
    for k in range(n_planes):
        sw = int(switch_ids[k])
        prev_up = np.full(q, -1, dtype=np.int64)
        prev_down = np.full(q, -1, dtype=np.int64)
        b_ops: list[np.ndarray] = []
        down = None
        for t in range(R + lag):
            m_slot = t - lag
            up_parts = []
            if with_a and t < R:
                a = ops.add(ranks[:, None], sw, chunk[None, :, k, t], OP_REDUCE)  # [x, shard]
                up_parts.append(a)
            if with_m and 0 <= m_slot < R:
                m = ops.add(ranks, sw, chunk[:, k, m_slot], OP_COPY)
                up_parts.append(m[:, None])
            up = np.concatenate(up_parts, axis=1)
            ops.dep(up, prev_up[:, None], DEP_SENT)
            if t == 0 and entry is not None:
                ops.dep(up[:, :, None], entry[:, None, :], DEP_ARRIVAL)
            if with_a and with_m and 0 <= m_slot < R:
                # the batch starts together once this rank has its reduced slot back
                ops.dep(up, b_ops[m_slot][:, None], DEP_ARRIVAL)
            prev_up = up[:, -1].copy()
            down_parts = []
            if with_a and t < R:
                b = ops.add(sw, ranks, chunk[:, k, t], OP_COPY)
                ops.dep(b[:, None], a.T, DEP_ARRIVAL)  # every rank's copy of shard x
                b_ops.append(b)
                down_parts.append(b[:, None])
            if with_m and 0 <= m_slot < R:
                d = ops.add(sw, ranks[:, None], chunk[None, :, k, m_slot], OP_COPY)  # [x, s]
                ops.dep(d, m[None, :], DEP_ARRIVAL)
                down_parts.append(d)
            down = np.concatenate(down_parts, axis=1)
            ops.dep(down, prev_down[:, None], DEP_SENT)
            prev_down = down[:, -1].copy()
        exits.append(down)
    return np.concatenate(exits, axis=1)


def _nvls_chunk_bounds(n_shards: int, shares, slots: int) -> np.ndarray:
    """Chunk boundaries for shard-major, then plane (by share), then slot order."""
    widths = (np.full(n_shards, 1.0 / n_shards)[:, None, None]
              * np.asarray(shares, dtype=np.float64)[None, :, None]
              * np.full(slots, 1.0 / slots)[None, None, :]).ravel()
    bounds = np.concatenate([[0.0], np.cumsum(widths)])
    bounds[-1] = 1.0
    return bounds


_NAMES = {"allreduce": "all-reduce", "reduce_scatter": "reduce-scatter",
          "allgather": "all-gather"}


def _nvls_schedule(collective: str, n_ranks: int, n_bytes: float, chunks: int,
                   switches) -> Schedule:
    """The NVLS Schedule of ``collective`` in one NVSwitch domain (shard-major chunks)."""
    p = check_ranks(n_ranks, 2, f"an NVLS {_NAMES[collective]}")
    check_size(n_bytes, chunks)
    planes = _check_switches(switches)
    c, S = int(chunks), len(planes)
    ops = OpTable()
    chunk = np.arange(p * S * c).reshape(p, S, c)
    _add_nvls(ops, np.arange(p), p + np.arange(S), chunk, collective)
    shard = np.repeat(np.arange(p), S * c)  # chunk -> the rank whose shard it is
    everyone = np.full(p * S * c, -1)
    owner = shard if collective == "allgather" else everyone
    dest = shard if collective == "reduce_scatter" else everyone
    return ops.schedule(collective, "nvls", p, n_bytes,
                        _nvls_chunk_bounds(p, [w for _, w in planes], c), owner, dest,
                        participant_role=tuple(r for r, _ in planes),
                        meta={"chunks": c, "planes": planes})


def nvls_allreduce(n_ranks: int, n_bytes: float, chunks: int = 1,
                   switches=(("switch", 1.0),)) -> Schedule:
    """NVLS all-reduce in one NVSwitch domain.

    Parameters
    ----------
    n_ranks : int
        GPUs in the domain (p >= 2).
    n_bytes : float
        Per-rank buffer, bytes.
    chunks : int
        Slots per shard (pipeline depth).
    switches : sequence of (role, share)
        One switch participant per NVSwitch plane: its topology node name and the share of
        the buffer it reduces (normalised). Default: one switch named ``"switch"``, as in
        :func:`~nvlearn.topology.single_switch`; see :func:`nvswitch_planes`.

    Returns
    -------
    Schedule
        Reduce ops into the switch participants (named in ``participant_role``), then the
        multicast copies down to every rank.

    Examples
    --------
    >>> s = nvls_allreduce(8, 8e6)
    >>> s.participant_role, float(s.bytes_sent()[0]), float(s.bytes_received()[0])
    (('switch',), 9000000.0, 9000000.0)
    """
    return _nvls_schedule("allreduce", n_ranks, n_bytes, chunks, switches)


def nvls_reduce_scatter(n_ranks: int, n_bytes: float, chunks: int = 1,
                        switches=(("switch", 1.0),)) -> Schedule:
    """NVLS reduce-scatter in one NVSwitch domain: rank ``s`` ends with the sum of shard ``s``.

    Every rank pushes its copy of every shard into the switch (``multimem.ld_reduce`` run by
    the shard's owner): it sends ``n`` and receives its reduced shard, ``n / p``. ``n_bytes``
    is the total array (nccl-tests' size); ``chunks`` slots per shard; ``switches`` as in
    :func:`nvls_allreduce`. Time on one switch: :func:`nvls_phase_time`.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2, all on one NVSwitch domain.
    n_bytes : float
        Total array in bytes (p shards of ``n_bytes / p``); > 0.
    chunks : int
        Slots per shard; >= 1.
    switches : sequence of (str, float)
        NVSwitch planes as (topology node name, share of each GPU's links), as
        :func:`nvls_allreduce` takes them.

    Returns
    -------
    Schedule
        Reduce ops into the switch participants, then one copy per rank and slot back down.

    Examples
    --------
    >>> s = nvls_reduce_scatter(8, 8e6)
    >>> float(s.bytes_sent()[0]), float(s.bytes_received()[0])
    (8000000.0, 1000000.0)
    """
    return _nvls_schedule("reduce_scatter", n_ranks, n_bytes, chunks, switches)


def nvls_allgather(n_ranks: int, n_bytes: float, chunks: int = 1,
                   switches=(("switch", 1.0),)) -> Schedule:
    """NVLS all-gather in one NVSwitch domain: rank ``s`` multicasts shard ``s`` to all.

    Rank ``s`` writes its shard once to a multicast address (``multimem.st``) and the switch
    copies it down every GPU's link: each rank sends ``n / p`` and receives ``n`` (its own
    shard included, as the multicast does). ``n_bytes`` is the total array; ``chunks`` slots
    per shard. Time on one switch: :func:`nvls_phase_time`.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2, all on one NVSwitch domain.
    n_bytes : float
        Total gathered array in bytes (p shards of ``n_bytes / p``); > 0.
    chunks : int
        Slots per shard; >= 1.
    switches : sequence of (str, float)
        NVSwitch planes, as :func:`nvls_allreduce` takes them.

    Returns
    -------
    Schedule
        One copy per rank and slot up to the switch, then the multicast copies down.

    Examples
    --------
    >>> s = nvls_allgather(8, 8e6)
    >>> float(s.bytes_sent()[0]), float(s.bytes_received()[0])
    (1000000.0, 8000000.0)
    """
    return _nvls_schedule("allgather", n_ranks, n_bytes, chunks, switches)


def nvls_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
              chunks: int = 1) -> float:
    """Exact time (s) of :func:`nvls_allreduce` on one uncontended NVSwitch domain.

    Model: each GPU has ``bw_per_dir`` bytes/s each way to the switch (over all planes,
    shared in proportion to the planes' links), each GPU<->switch hop takes ``alpha / 2``
    (``alpha`` = a GPU-to-GPU message through the switch), flows sharing a link share it
    equally. Evaluates the recurrence in the module docstring.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each GPU's bandwidth to the switch over all planes, bytes/s per direction; > 0.
    alpha : float
        Latency of one GPU-to-GPU message through the switch, seconds (a hop is half); >= 0.
    chunks : int
        Slots per shard; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(nvls_time(8, 1e9, 450e9, 0.0, chunks=64) / (1.125e9 / 450e9), 3)  # -> ideal
    1.064
    """
    p = check_ranks(n_ranks, 2, "an NVLS all-reduce")
    check_size(n_bytes, chunks)
    check_link(bw_per_dir, alpha)
    c = int(chunks)
    lag = min(NVLS_LAG, c)
    sigma = n_bytes / (c * bw_per_dir)
    h = alpha / 2.0
    t = np.arange(c + lag)
    u = np.where(t < c, sigma, 0.0) + np.where(t >= lag, sigma / p, 0.0)
    d = np.where(t < c, sigma / p, 0.0) + np.where(t >= lag, sigma, 0.0)
    U = np.zeros(c + lag)
    D = np.zeros(c + lag)
    for i in range(c + lag):
        U[i] = 0.0 if i == 0 else U[i - 1] + u[i - 1]
        if i >= lag:
            U[i] = max(U[i], D[i - lag] + d[i - lag] + h)
        D[i] = U[i] + u[i] + h
        if i:
            D[i] = max(D[i], D[i - 1] + d[i - 1])
    return float(D[-1] + d[-1] + h)


def nvls_time_ideal(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float) -> float:
    """The NVLS bound ``n (1 + 1/p) / B + 2 alpha``: every byte at line rate, both link
    directions busy at once, two round trips through the switch (NCCL's NVLS model without
    its efficiency factor).

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 2.
    n_bytes : float
        Per-rank buffer in bytes; > 0.
    bw_per_dir : float
        Each GPU's bandwidth to the switch, bytes/s per direction; > 0.
    alpha : float
        Latency of one GPU-to-GPU message through the switch, seconds; >= 0.

    Returns
    -------
    float
        Seconds; a lower bound on :func:`nvls_time`.

    Examples
    --------
    >>> round(nvls_time_ideal(8, 1e9, 450e9, 0.0) * 1e3, 3)     # 1.125 GB at 450 GB/s
    2.5
    """
    p = check_ranks(n_ranks, 2, "an NVLS all-reduce")
    check_size(n_bytes, 1)
    check_link(bw_per_dir, alpha)
    return n_bytes * (1.0 + 1.0 / p) / bw_per_dir + 2.0 * alpha


def nvls_phase_time(n_ranks: int, n_bytes: float, bw_per_dir: float, alpha: float,
                    rounds: int) -> float:
    """Exact time (s) of an NVLS reduce-scatter or all-gather (``rounds`` slots per shard)
    on one uncontended switch: ``rounds sigma + sigma/p + alpha``, ``sigma = n / (rounds B)``.

    :func:`nvls_reduce_scatter`: a rank's uplink rounds (its copy of slot ``t`` of every
    shard, ``sigma``) follow each other; round ``t``'s reduced slot (``sigma / p``) leaves the
    switch once every rank's round ``t`` has arrived (a hop, ``alpha / 2``) and is shorter
    than an uplink round, so only the last one shows. :func:`nvls_allgather` is the mirror
    image: short uplink rounds (``sigma / p``), then the multicast rounds (``sigma``) back to
    back on every downlink. Also the intra-node phases of the hierarchical all-reduce with
    ``intra="nvls"``. Same model as :func:`nvls_time`.

    Parameters
    ----------
    n_ranks : int
        Ranks p >= 1.
    n_bytes : float
        Total array in bytes; > 0.
    bw_per_dir : float
        Each GPU's bandwidth to the switch, bytes/s per direction; > 0.
    alpha : float
        Latency of one GPU-to-GPU message through the switch, seconds; >= 0.
    rounds : int
        Slots per shard; >= 1.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(nvls_phase_time(8, 1e9, 450e9, 0.0, rounds=1) * 1e3, 3)
    2.5
    """
    check_ranks(n_ranks, 1, "an NVLS phase")
    check_size(n_bytes, rounds)
    check_link(bw_per_dir, alpha)
    sigma = n_bytes / (rounds * bw_per_dir)
    return rounds * sigma + sigma / n_ranks + alpha
