"""Every schedule builder computes its collective, for p = 2..17 and several dtypes.

Integer-valued inputs make every order of additions exact (all partial sums are small
integers, representable even in bf16), so the data plane must reproduce the float64
reference bit for bit whatever the algorithm; random inputs then check that the ranks of an
all-reduce or broadcast agree bit for bit although the order of additions matters.
"""

import numpy as np
import pytest

from nvlearn.collectives import (
    allgather,
    allreduce,
    alltoall,
    broadcast,
    reduce_scatter,
    supports,
)
from nvlearn.dataplane import reference, run
from nvlearn.schedule import validate

P = range(2, 18)
DTYPES = ("float64", "float32", "bfloat16")


def _hier_q(p):
    """A ranks-per-node that gives two levels where p allows (p itself for a prime)."""
    return next((q for q in range(2, p) if p % q == 0), p)


BUILDERS = {
    "allreduce/ring": lambda p: allreduce(p, 1e6, "ring", chunks=2),
    "allreduce/binary_tree": lambda p: allreduce(p, 1e6, "binary_tree", chunks=3),
    "allreduce/double_binary_tree": lambda p: allreduce(p, 1e6, "double_binary_tree", chunks=2),
    "allreduce/recursive_doubling": lambda p: allreduce(p, 1e6, "recursive_doubling", chunks=2),
    "allreduce/rabenseifner": lambda p: allreduce(p, 1e6, "rabenseifner", chunks=2),
    "allreduce/nvls": lambda p: allreduce(p, 1e6, "nvls", chunks=3),
    "allreduce/hierarchical-ring": lambda p: allreduce(p, 1e6, "hierarchical", chunks=2,
                                                       ranks_per_node=_hier_q(p)),
    "allreduce/hierarchical-nvls": lambda p: allreduce(p, 1e6, "hierarchical", chunks=1,
                                                       ranks_per_node=p // _hier_q(p),
                                                       intra="nvls"),
    "reduce_scatter/ring": lambda p: reduce_scatter(p, 1e6, "ring", chunks=2),
    "reduce_scatter/recursive_halving": lambda p: reduce_scatter(p, 1e6, "recursive_halving",
                                                                 chunks=2),
    "allgather/ring": lambda p: allgather(p, 1e6, "ring", chunks=2),
    "allgather/recursive_doubling": lambda p: allgather(p, 1e6, "recursive_doubling", chunks=2),
    "broadcast/ring": lambda p: broadcast(p, 1e6, "ring", chunks=3, root=p // 2),
    "broadcast/binary_tree": lambda p: broadcast(p, 1e6, "binary_tree", chunks=3, root=p // 2),
    "alltoall/direct": lambda p: alltoall(p, 1e6, "direct"),
    "alltoall/ring": lambda p: alltoall(p, 1e6, "ring"),
}



def _supported(name, p):
    collective, algorithm = name.split("/")
    return supports(collective, algorithm.split("-")[0], p)


CASES = [pytest.param(name, p, id=f"{name}-p{p}") for name in BUILDERS for p in P
         if _supported(name, p)]
SUMS = [c for c in CASES if c.values[0].startswith(("allreduce", "broadcast"))]


def _elems(schedule):
    return max(300, 2 * schedule.n_chunks + 3)


@pytest.mark.parametrize("name, p", CASES)
def test_builder_is_valid_and_exact_on_integer_inputs(name, p):
    s = BUILDERS[name](p)
    validate(s)
    x = np.random.default_rng(p).integers(-8, 9, size=(p, _elems(s))).astype(np.float64)
    want = reference(s, x)
    for dtype in DTYPES:
        out = run(s, x, dtype=dtype)
        np.testing.assert_array_equal(out, want, err_msg=f"{name} p={p} {dtype}")


@pytest.mark.parametrize("name, p", SUMS)
def test_ranks_end_with_identical_bits(name, p):
    s = BUILDERS[name](p)
    magnitude = 10.0 ** np.linspace(-3, 3, p)[:, None]  # order of additions matters
    x = np.random.default_rng(100 + p).standard_normal((p, _elems(s))) * magnitude
    for dtype in ("float32", "bfloat16"):
        out = run(s, x, dtype=dtype)
        assert np.all(out == out[0]), f"{name} p={p} {dtype}: ranks disagree"
        want = reference(s, x)
        tol = {"float32": 1e-5, "bfloat16": 5e-2}[dtype]
        assert np.all(np.abs(out - want) <= tol * np.abs(x).sum(axis=0) * p)


@pytest.mark.parametrize("algorithm", ["direct", "ring"])
def test_ragged_alltoall_delivers_every_block(algorithm):
    p = 5
    blocks = np.random.default_rng(3).integers(1, 4, size=(p, p)) * 1e5  # ragged, none empty
    s = alltoall(p, 0, algorithm, block_bytes=blocks)
    validate(s)
    x = np.random.default_rng(4).integers(-8, 9, size=(p, 8 * p * p)).astype(np.float64)
    np.testing.assert_array_equal(run(s, x), reference(s, x))
    assert s.op_bytes.sum() == pytest.approx(blocks.sum() - np.trace(blocks))
