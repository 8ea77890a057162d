"""The Schedule: structure checks, dependency ordering, cycles, and semantic validation."""

import numpy as np
import pytest

from nvlearn.collectives import allgather, allreduce, reduce_scatter
from nvlearn.schedule import DEP_ARRIVAL, OP_COPY, OP_REDUCE, Schedule, make_schedule, validate


def chain_broadcast(order=(0, 1)):
    """Rank 0 -> 1 -> 2 broadcast, ops listed in the given order."""
    ops = [dict(src=0, dst=1, deps=[]), dict(src=1, dst=2, deps=[(0, DEP_ARRIVAL)])]
    ops = [ops[i] for i in order]
    remap = {old: new for new, old in enumerate(order)}
    return make_schedule(
        "broadcast", "chain", 3, 1e6, [0.0, 1.0], [0], [-1],
        op_src=[o["src"] for o in ops], op_dst=[o["dst"] for o in ops],
        op_chunk=[0, 0], op_kind=[OP_COPY, OP_COPY],
        deps=[[(remap[d], k) for d, k in o["deps"]] for o in ops],
    )


def test_make_schedule_sorts_ops_into_dependency_order():
    s = chain_broadcast(order=(1, 0))  # the dependent op listed first
    assert s.op_src.tolist() == [0, 1]
    assert s.deps_of(1).tolist() == [0]
    validate(s)


def test_cycle_is_reported_with_an_op_in_it():
    with pytest.raises(ValueError, match="cyclic dependencies"):
        make_schedule(
            "broadcast", "bad", 3, 1e6, [0.0, 1.0], [0], [-1],
            op_src=[0, 1], op_dst=[1, 2], op_chunk=[0, 0], op_kind=[0, 0],
            deps=[[(1, DEP_ARRIVAL)], [(0, DEP_ARRIVAL)]],
        )


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(op_dst=[1, 5]), "participants are 0..2"),
        (dict(op_bytes=[1.0, 0.0]), "positive, finite number of bytes"),
        (dict(op_bytes=[1.0, -3.0]), "positive, finite number of bytes"),
        (dict(dep_op=[1], dep_indptr=[0, 1, 1]), "not earlier"),
        (dict(op_kind=[0, 7]), "OP_COPY"),
        (dict(n_bytes=0), "n_bytes must be a positive"),
        (dict(chunk_bounds=[0.0, 0.5]), "from 0.0 to 1.0"),
    ],
)
def test_bad_structure_raises_a_clear_error(change, message):
    s = chain_broadcast()
    fields = {name: getattr(s, name) for name in Schedule.__dataclass_fields__}
    fields.update({k: np.asarray(v) if isinstance(v, list) else v for k, v in change.items()})
    with pytest.raises(ValueError, match=message):
        Schedule(**fields)


def test_arrays_are_read_only():
    s = allreduce(4, 1e6)
    with pytest.raises(ValueError):
        s.op_bytes[0] = 1.0


@pytest.mark.parametrize("p", range(2, 18))
@pytest.mark.parametrize("chunks", [1, 2, 5])
@pytest.mark.parametrize("build", [allreduce, reduce_scatter, allgather])
def test_ring_schedules_validate(build, p, chunks):
    validate(build(p, 3e6, chunks=chunks))


def test_validate_catches_a_double_counted_contribution():
    s = allreduce(4, 1e6)
    kinds = s.op_kind.copy()
    kinds[kinds == OP_COPY] = OP_REDUCE  # all-gather adds instead of copying
    fields = {name: getattr(s, name) for name in Schedule.__dataclass_fields__}
    fields["op_kind"] = kinds
    with pytest.raises(ValueError, match="wrong contents"):
        validate(Schedule(**fields))


def test_validate_catches_a_missing_dependency_as_a_race():
    s = allreduce(3, 1e6)
    fields = {name: getattr(s, name) for name in Schedule.__dataclass_fields__}
    fields["dep_indptr"] = np.zeros(s.n_ops + 1, dtype=np.int64)  # drop every dependency
    fields["dep_op"] = np.zeros(0, dtype=np.int32)
    fields["dep_kind"] = np.zeros(0, dtype=np.int8)
    with pytest.raises(ValueError, match="wrong contents"):
        validate(Schedule(**fields))


def test_ring_moves_the_bandwidth_lower_bound_per_rank():
    p, n = 8, 8e6
    s = allreduce(p, n)
    np.testing.assert_allclose(s.bytes_sent(), 2 * (p - 1) / p * n)
    np.testing.assert_allclose(s.bytes_received(), 2 * (p - 1) / p * n)


def test_describe_is_readable():
    text = chain_broadcast().describe()
    assert "rank 0 -> rank 1" in text and "after [0]" in text


@pytest.mark.parametrize("p", [2, 3, 8, 13])
@pytest.mark.parametrize("chunks", [1, 4])
def test_broadcast_validates_from_every_root(p, chunks):
    from nvlearn.collectives import broadcast

    for root in range(p):
        validate(broadcast(p, 1e6, chunks=chunks, root=root))


@pytest.mark.parametrize("p", [2, 5, 8])
def test_alltoall_validates_uniform_and_ragged(p):
    from nvlearn.collectives import alltoall

    s = alltoall(p, 8e6)
    validate(s)
    assert s.nccl_size == pytest.approx(8e6)
    blocks = np.random.default_rng(p).integers(0, 4, size=(p, p)) * 1e5
    blocks[0, 1] = 0.0  # an empty block is simply not sent
    ragged = alltoall(p, 0, block_bytes=blocks)
    validate(ragged)
    off_diag = blocks.copy()
    np.fill_diagonal(off_diag, 0)
    assert ragged.bytes_sent() == pytest.approx(off_diag.sum(axis=1))


def test_collective_entry_points_reject_unknown_algorithms_and_bad_roots():
    from nvlearn.collectives import allreduce, broadcast

    with pytest.raises(ValueError, match="unknown allreduce algorithm 'bogus'; available: ring"):
        allreduce(4, 1e6, algorithm="bogus")
    with pytest.raises(ValueError, match="root must be a rank in 0..3"):
        broadcast(4, 1e6, root=4)
    with pytest.raises(ValueError, match="rank count"):
        allreduce("eight", 1e6)
