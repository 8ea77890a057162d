"""Reference solutions of the schedule puzzles (notebook 09). Instructor kit: not for students.

One function per puzzle, named by the puzzle's id: ``solution(p) -> Schedule`` for a puzzle
instance ``p`` (:meth:`nvlearn.puzzles.Puzzle.instance`), written with
:class:`nvlearn.puzzles.ScheduleBuilder` as a learner would. A student's submission module
has the same shape (see ``test_hidden.py``).

    >>> from nvlearn.puzzles import check
    >>> check("ring_allreduce", ring_allreduce).ok
    True
"""

from __future__ import annotations

from nvlearn.puzzles import ScheduleBuilder

# --- helpers: rings over any list of ranks and any grouping of chunks ---------------------


def rs_ring(b: ScheduleBuilder, ranks: list[int], blocks: list[list[int]]) -> None:
    """Ring reduce-scatter over ``ranks``: ``blocks[j]`` (a list of chunks) ends summed at
    ``ranks[j]``; in step s, ``ranks[i]`` sends block ``i - s - 1`` to ``ranks[i + 1]``."""
    m = len(ranks)
    for s in range(m - 1):
        for i in range(m):
            for c in blocks[(i - s - 1) % m]:
                b.send(ranks[i], ranks[(i + 1) % m], c, reduce=True)


def ag_ring(b: ScheduleBuilder, ranks: list[int], blocks: list[list[int]]) -> None:
    """Ring all-gather over ``ranks``: ``blocks[j]`` starts at ``ranks[j]``."""
    m = len(ranks)
    for s in range(m - 1):
        for i in range(m):
            for c in blocks[(i - s) % m]:
                b.send(ranks[i], ranks[(i + 1) % m], c)


def split(chunks: list[int], parts: int) -> list[list[int]]:
    """``chunks`` cut into ``parts`` consecutive groups of equal length."""
    k = len(chunks) // parts
    return [chunks[j * k:(j + 1) * k] for j in range(parts)]


def ar_ring(b: ScheduleBuilder, ranks: list[int], chunks: list[int]) -> None:
    """Ring all-reduce of ``chunks`` over ``ranks`` (reduce-scatter, then all-gather)."""
    blocks = split(chunks, len(ranks))
    rs_ring(b, ranks, blocks)
    ag_ring(b, ranks, blocks)


# --- the puzzles ----------------------------------------------------------------------


def chain_broadcast(p):
    b = ScheduleBuilder(p, chunks=8)
    for c in range(b.n_chunks):
        for r in range(p.n_ranks - 1):
            b.send(r, r + 1, c)
    return b.build()


def ring_reduce_scatter(p):
    b = ScheduleBuilder(p, chunks=2 * p.n_ranks)
    rs_ring(b, list(range(p.n_ranks)), [b.chunks_of(r) for r in range(p.n_ranks)])
    return b.build()


def rd_allgather(p):
    b = ScheduleBuilder(p)
    n, dist = p.n_ranks, 1
    while dist < n:
        for r in range(n):
            group = r // dist * dist           # the aligned group r holds so far
            for blk in sorted(range(group, group + dist), key=lambda x, r=r: x ^ r):
                b.send(r, r ^ dist, b.chunks_of(blk)[0])    # the longest-held first
        dist *= 2
    return b.build()


def binomial_broadcast(p):
    b = ScheduleBuilder(p)
    n, dist = p.n_ranks, 1
    while dist < n:
        for v in range(dist):
            if v + dist < n:
                b.send((p.root + v) % n, (p.root + v + dist) % n, 0)
        dist *= 2
    return b.build()


def ring_allreduce(p):
    b = ScheduleBuilder(p, chunks=p.n_ranks)
    ar_ring(b, list(range(p.n_ranks)), list(range(b.n_chunks)))
    return b.build()


def bidirectional_ring(p):
    n = p.n_ranks
    b = ScheduleBuilder(p, chunks=2 * n * 2)
    half = b.n_chunks // 2
    ar_ring(b, list(range(n)), list(range(half)))
    ar_ring(b, [(-r) % n for r in range(n)], list(range(half, b.n_chunks)))
    return b.build()


def halving_doubling(p):
    n = p.n_ranks
    b = ScheduleBuilder(p, chunks=n)
    rng = {r: (0, n) for r in range(n)}
    dist = n // 2
    while dist >= 1:                           # reduce-scatter by recursive halving
        new = {}
        for r in range(n):
            lo, hi = rng[r]
            mid = (lo + hi) // 2
            keep, give = ((lo, mid), (mid, hi)) if r & dist == 0 else ((mid, hi), (lo, mid))
            for c in sorted(range(*give), key=lambda x, y=r ^ dist: -(x ^ y)):
                b.send(r, r ^ dist, c, reduce=True)   # what the partner passes on next first
            new[r] = keep
        rng = new
        dist //= 2
    dist = 1
    while dist < n:                            # all-gather by recursive doubling
        for r in range(n):
            for c in sorted(range(*rng[r]), key=lambda x, r=r: x ^ r):
                b.send(r, r ^ dist, c)                # the longest-held first
        rng = {r: (min(rng[r][0], rng[r ^ dist][0]), max(rng[r][1], rng[r ^ dist][1]))
               for r in range(n)}
        dist *= 2
    return b.build()


def hierarchical(p, pieces: int = 1):
    """Node x rail all-reduce: ring reduce-scatter inside every node, ring all-reduce of each
    shard across the nodes (GPU i of every node: one NVLink plane / IB rail), ring
    all-gather inside every node."""
    q, m = p.ranks_per_node, p.n_nodes
    b = ScheduleBuilder(p, chunks=q * m * pieces)
    shards = split(list(range(b.n_chunks)), q)           # shard i ends at local GPU i
    nodes = [list(range(k * q, (k + 1) * q)) for k in range(m)]
    for ranks in nodes:
        rs_ring(b, ranks, shards)
    for i in range(q):
        ar_ring(b, [k * q + i for k in range(m)], shards[i])
    for ranks in nodes:
        ag_ring(b, ranks, shards)
    return b.build()


def pod_allreduce(p):
    return hierarchical(p, pieces=4)


def ib_2d_allreduce(p):
    return hierarchical(p, pieces=4)


def rail_alltoall(p):
    n, q = p.n_ranks, p.ranks_per_node
    b = ScheduleBuilder(p)
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            c = b.chunks_of(s * n + d)[0]
            relay = s // q * q + d % q                   # s's node, d's rail
            if relay in (s, d):
                b.send(s, d, c)
            else:
                b.send(s, relay, c)
                b.send(relay, d, c)
    return b.build()


def degraded_allreduce(p, pieces: int = 8):
    n = p.n_ranks
    line = [(1 + i) % n for i in range(n)]               # 1, 2, ..., n-1, 0: no 0 - 1 cable
    b = ScheduleBuilder(p, chunks=2 * pieces)
    for order, chunks in ((line, range(pieces)), (line[::-1], range(pieces, 2 * pieces))):
        for c in chunks:                                 # reduce along the line ...
            for a, z in zip(order[:-1], order[1:], strict=True):
                b.send(a, z, c, reduce=True)
        for c in chunks:                                 # ... and send the sum back
            for a, z in zip(order[::-1][:-1], order[::-1][1:], strict=True):
                b.send(a, z, c)
    return b.build()


#: puzzle id -> reference solution.
SOLUTIONS = {
    "chain_broadcast": chain_broadcast,
    "ring_reduce_scatter": ring_reduce_scatter,
    "rd_allgather": rd_allgather,
    "binomial_broadcast": binomial_broadcast,
    "ring_allreduce": ring_allreduce,
    "bidirectional_ring": bidirectional_ring,
    "halving_doubling": halving_doubling,
    "pod_allreduce": pod_allreduce,
    "ib_2d_allreduce": ib_2d_allreduce,
    "rail_alltoall": rail_alltoall,
    "degraded_allreduce": degraded_allreduce,
}
