"""The data plane: collectives compute the right values, in their own order of additions."""

import numpy as np
import pytest

from nvlearn.collectives import allgather, allreduce, reduce_scatter
from nvlearn.dataplane import reference, round_to_bf16, run

TOL = {"float64": 1e-12, "float32": 1e-5, "float16": 2e-2, "bfloat16": 5e-2}


def inputs(p, n, seed=0):
    return np.random.default_rng(seed).standard_normal((p, n))


@pytest.mark.parametrize("p", [2, 3, 5, 8, 13, 17])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_ring_allreduce_equals_the_float64_sum_and_ranks_agree_bitwise(p, dtype):
    x = inputs(p, 257)
    out = run(allreduce(p, 1e6, chunks=2), x, dtype=dtype)
    want = reference(allreduce(p, 1e6, chunks=2), x)
    scale = np.abs(x).sum(axis=0)  # error bound scales with the sum of magnitudes
    assert np.all(np.abs(out - want) <= TOL[dtype] * scale * p)
    assert np.all(out == out[0])  # bit for bit across ranks


@pytest.mark.parametrize("build", [reduce_scatter, allgather])
@pytest.mark.parametrize("p", [2, 4, 7])
def test_reduce_scatter_and_allgather_deliver_their_promise(build, p):
    x = inputs(p, 64)
    s = build(p, 1e6)
    out, want = run(s, x), reference(s, x)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    np.testing.assert_allclose(out[~np.isnan(out)], want[~np.isnan(want)], rtol=1e-12)


def test_ring_adds_in_ring_order_so_float32_differs_from_a_plain_sum():
    p = 8
    x = np.zeros((p, 8), dtype=np.float32)
    x[:, :] = np.float32(1e-8)
    x[0, :] = np.float32(1.0)  # a large value first on rank 0
    out = run(allreduce(p, 32), x)
    # Each chunk's sum starts at a different rank, so where the 1.0 enters the chain differs
    # by chunk: chunk sums are not all equal although every column holds the same numbers.
    assert len(set(out[0].tolist())) > 1


def test_bf16_rounding_matches_hand_values():
    # 1 + 2^-8 is exactly halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even -> 1
    vals = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, -2.5, np.inf], dtype=np.float32)
    np.testing.assert_array_equal(
        round_to_bf16(vals), np.array([1.0, 1.0, 1 + 2**-6, -2.5, np.inf], dtype=np.float32)
    )


def test_bad_input_shapes_and_dtypes_raise():
    s = allreduce(4, 1e6)
    with pytest.raises(ValueError, match="shape"):
        run(s, np.zeros((3, 8)))
    with pytest.raises(ValueError, match="unsupported dtype"):
        run(s, np.zeros((4, 8)), dtype="int8")
    with pytest.raises(ValueError, match="too short"):
        run(s, np.zeros((4, 2)))


@pytest.mark.parametrize("p", [2, 5, 9])
def test_broadcast_and_alltoall_move_the_right_numbers(p):
    from nvlearn.collectives import alltoall, broadcast

    x = inputs(p, 3 * p * p)
    for s in (broadcast(p, 1e6, chunks=3, root=p - 1), alltoall(p, 1e6)):
        out, want = run(s, x), reference(s, x)
        np.testing.assert_array_equal(out[~np.isnan(want)], want[~np.isnan(want)])


@pytest.mark.parametrize("bad, match", [
    (None, "arrays is None"),
    (np.ones((3, 4), dtype=bool), "real numbers"),
    (np.ones((3, 4), dtype=complex), "real numbers"),
    (np.array([[1, "a", 2.0, 3]] * 3, dtype=object), "real numbers"),
])
def test_none_bool_complex_and_object_inputs_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        run(allreduce(3, 32), bad)


def test_integer_inputs_are_summed_exactly():
    x = np.arange(12).reshape(3, 4)
    assert run(allreduce(3, 32), x)[1].tolist() == [12.0, 15.0, 18.0, 21.0]
