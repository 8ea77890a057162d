"""Reduction-order numerics: algorithms round differently, ranks of one algorithm agree."""

import numpy as np
import pytest

from nvlearn.numerics import (
    ALLREDUCE_ALGORITHMS,
    allreduce_result,
    as_dtype,
    mixed_magnitude_inputs,
    reduction_order_errors,
)


@pytest.fixture(scope="module")
def table():
    return reduction_order_errors(8, 2048, dtypes=("float64", "float32", "bfloat16"),
                                  algorithms=ALLREDUCE_ALGORITHMS + ("hierarchical",),
                                  seed=0, ranks_per_node=4)


def test_every_algorithm_leaves_identical_bits_on_every_rank(table):
    assert all(row.ranks_agree for row in table.rows)
    assert len(table.rows) == 3 * 7


def test_errors_scale_with_the_dtype(table):
    for algorithm in ALLREDUCE_ALGORITHMS:
        e64 = table.get(algorithm, "float64").rel_rms_error
        e32 = table.get(algorithm, "float32").rel_rms_error
        e16 = table.get(algorithm, "bfloat16").rel_rms_error
        assert e64 < 1e-15 < 1e-8 < e32 < 1e-6 < 1e-4 < e16 < 1e-1


def test_algorithms_give_different_float32_results_on_the_same_inputs():
    x = mixed_magnitude_inputs(8, 2048, seed=0)
    results = {a: allreduce_result(x, a, "float32")[0] for a in ALLREDUCE_ALGORITHMS}
    distinct = {r.tobytes() for r in results.values()}
    assert len(distinct) == len(ALLREDUCE_ALGORITHMS)
    # ... each differing from the ring in many elements, not in one freak
    for algorithm, r in results.items():
        if algorithm != "ring":
            assert np.count_nonzero(r != results["ring"]) > 100


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_chain_sum_errs_about_twice_a_pairwise_one_at_64_ranks(dtype):
    t = reduction_order_errors(64, 2048, dtypes=(dtype,), inputs="normal", seed=0,
                               algorithms=("ring", "nvls", "rabenseifner", "recursive_doubling"))
    pairwise = max(t.get(a, dtype).rel_rms_error for a in ("rabenseifner", "recursive_doubling"))
    for chain in ("ring", "nvls"):
        assert t.get(chain, dtype).rel_rms_error > 1.5 * pairwise


def test_inputs_and_rounding_helpers():
    x = mixed_magnitude_inputs(4, 5000, seed=3)
    np.testing.assert_array_equal(x, mixed_magnitude_inputs(4, 5000, seed=3))
    spread = np.log10(np.abs(x))
    assert spread.max() - spread.min() > 6
    assert as_dtype(np.array([1 + 2**-9, 1 + 2**-30]), "float32").tolist() == [1 + 2**-9, 1.0]
    own = reduction_order_errors(inputs=np.ones((3, 40)), dtypes=("bfloat16",))
    assert all(r.max_abs_error == 0 for r in own.rows)
    assert "ranks agree" in own.to_text() and repr(own) == own.to_text()


def test_bad_input():
    with pytest.raises(ValueError, match="n_ranks"):
        mixed_magnitude_inputs(1, 10)
    with pytest.raises(ValueError, match="unsupported dtype"):
        as_dtype(np.ones(3), "int8")
    with pytest.raises(ValueError, match="inputs must be"):
        reduction_order_errors(inputs="uniform")
    with pytest.raises(ValueError, match="shape"):
        allreduce_result(np.ones(5), "ring", "float32")
    with pytest.raises(ValueError, match="no row"):
        reduction_order_errors(4, 64, dtypes=("float32",), algorithms=("ring",)).get(
            "binary_tree", "float32")
