"""Stand-ins for a Topology and a Schedule, so the simulator's tests depend only on
the contract (arrays + ``routes``), not on the builders in nvlearn.topology / collectives."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

DEP_ARRIVAL = 0
DEP_SENT = 1


class Star:
    """``n`` GPUs on one switch: link ``2i`` is GPU i -> switch, ``2i + 1`` switch -> GPU i.

    ``latency`` is per link, so a GPU-to-GPU message takes ``2 * latency``.
    """

    def __init__(self, n: int, bw: float, latency: float = 0.0, name: str = "star"):
        self.name = name
        self.node_name = tuple(f"gpu{i}" for i in range(n)) + ("switch",)
        self.gpus = np.arange(n, dtype=np.int32)
        self.link_src = np.array([i if k == 0 else n for i in range(n) for k in (0, 1)])
        self.link_dst = np.array([n if k == 0 else i for i in range(n) for k in (0, 1)])
        self.link_capacity = np.full(2 * n, float(bw))
        self.link_latency = np.full(2 * n, float(latency))

    n_gpus = property(lambda self: self.gpus.size)
    n_nodes = property(lambda self: len(self.node_name))
    n_links = property(lambda self: self.link_src.size)

    def routes(self, src, dst):
        switch = self.n_gpus
        links = [
            [] if s == d else [2 * s] * (s != switch) + [2 * d + 1] * (d != switch)
            for s, d in zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), strict=True)
        ]
        indptr = np.zeros(len(links) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in links], out=indptr[1:])
        link = np.array([lk for x in links for lk in x], dtype=np.int32)
        latency = np.array([len(x) * self.link_latency[0] for x in links])
        return indptr, link, np.ones(link.size), latency


class Explicit:
    """``n_gpus`` GPUs and ``len(capacity)`` links; ``table[(src, dst)]`` is the route as a
    list of ``(link, frac)`` pairs (missing pairs: no links)."""

    def __init__(self, n_gpus: int, capacity, table: dict, latency: float = 0.0):
        self.name = "explicit"
        self.node_name = tuple(f"gpu{i}" for i in range(n_gpus))
        self.gpus = np.arange(n_gpus, dtype=np.int32)
        self.link_capacity = np.asarray(capacity, dtype=np.float64)
        self.link_src = np.zeros(self.link_capacity.size, dtype=np.int32)
        self.link_dst = np.zeros(self.link_capacity.size, dtype=np.int32)
        self.table = table
        self.latency = latency

    n_gpus = property(lambda self: self.gpus.size)
    n_nodes = property(lambda self: self.gpus.size)
    n_links = property(lambda self: self.link_capacity.size)

    def routes(self, src, dst):
        entries = [self.table.get((int(s), int(d)), []) for s, d in zip(src, dst, strict=True)]
        indptr = np.zeros(len(entries) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in entries], out=indptr[1:])
        link = np.array([lk for e in entries for lk, _ in e], dtype=np.int32)
        frac = np.array([f for e in entries for _, f in e], dtype=np.float64)
        latency = np.array([self.latency if e else 0.0 for e in entries])
        return indptr, link, frac, latency


@dataclass
class Ops:
    """A schedule stand-in: ops appended one by one with ``add``."""

    n_ranks: int
    collective: str = "allreduce"
    algorithm: str = "test"
    n_bytes: float = 1.0
    participant_role: tuple = ()
    meta: dict = field(default_factory=dict)
    src: list = field(default_factory=list)
    dst: list = field(default_factory=list)
    nbytes: list = field(default_factory=list)
    delay: list = field(default_factory=list)
    deps: list = field(default_factory=list)

    def add(self, src, dst, n_bytes, deps=(), delay=0.0) -> int:
        """Append an op; ``deps`` is a list of ``(op, kind)``. Returns its index."""
        self.src.append(src)
        self.dst.append(dst)
        self.nbytes.append(float(n_bytes))
        self.delay.append(float(delay))
        self.deps.append(list(deps))
        return len(self.src) - 1

    n_participants = property(lambda self: self.n_ranks + len(self.participant_role))
    nccl_size = property(lambda self: self.n_bytes)
    op_src = property(lambda self: np.array(self.src, dtype=np.int32))
    op_dst = property(lambda self: np.array(self.dst, dtype=np.int32))
    op_bytes = property(lambda self: np.array(self.nbytes, dtype=np.float64))
    op_delay = property(lambda self: np.array(self.delay, dtype=np.float64))
    dep_op = property(lambda self: np.array([d for ds in self.deps for d, _ in ds], np.int32))
    dep_kind = property(lambda self: np.array([k for ds in self.deps for _, k in ds], np.int8))

    @property
    def dep_indptr(self):
        out = np.zeros(len(self.deps) + 1, dtype=np.int64)
        np.cumsum([len(d) for d in self.deps], out=out[1:])
        return out

    @property
    def n_ops(self) -> int:
        return len(self.src)


def ring_allreduce_ops(p: int, n: float, chunks: int = 1) -> Ops:
    """Ring all-reduce built by hand: K = 2(p-1) steps, rank r sends to r+1, slot j of step
    k waits for slot j of step k-1 to arrive from the left (DEP_ARRIVAL) and, with chunks,
    for the sender's previous send to end (DEP_SENT, step-major order)."""
    ops = Ops(n_ranks=p, n_bytes=n)
    index = {}
    size = n / (p * chunks)
    for k in range(2 * (p - 1)):
        for j in range(chunks):
            for r in range(p):
                deps = []
                if k > 0:
                    deps.append((index[k - 1, j, (r - 1) % p], DEP_ARRIVAL))
                if chunks > 1 and (k, j) != (0, 0):
                    prev = (k, j - 1) if j > 0 else (k - 1, chunks - 1)
                    deps.append((index[prev[0], prev[1], r], DEP_SENT))
                index[k, j, r] = ops.add(r, (r + 1) % p, size, deps)
    return ops


# The stand-ins must keep to the contract the real classes follow.


def test_star_routes_match_the_real_single_switch():
    from nvlearn.topology import single_switch

    real = single_switch(4, bw_per_dir=100e9, latency=1e-6)
    star = Star(4, 100e9, 1e-6)
    assert star.node_name == real.node_name  # so node ids agree too (switch = node 4)
    src, dst = np.array([0, 1, 3, 2, 4, 1]), np.array([1, 0, 3, 0, 2, 4])
    got = star.routes(src, dst)
    want = real.routes(src, dst)
    assert np.array_equal(got[0], want[0])
    def labels(topo, links):
        return [(topo.node_name[topo.link_src[k]], topo.node_name[topo.link_dst[k]])
                for k in links]

    assert labels(star, got[1]) == labels(real, want[1])
    np.testing.assert_allclose(got[2], want[2])
    np.testing.assert_allclose(got[3], want[3])


def test_hand_built_ring_matches_the_ring_builder():
    from nvlearn.collectives import allreduce

    mine, theirs = ring_allreduce_ops(5, 1e6, chunks=3), allreduce(5, 1e6, chunks=3)
    assert mine.n_ops == theirs.n_ops
    assert sorted(zip(mine.src, mine.dst, strict=True)) == sorted(
        zip(theirs.op_src.tolist(), theirs.op_dst.tolist(), strict=True)
    )
    assert mine.dep_op.size == theirs.dep_op.size
    assert np.bincount(mine.dep_kind).tolist() == np.bincount(theirs.dep_kind).tolist()
