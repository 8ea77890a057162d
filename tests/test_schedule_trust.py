"""Hand-written schedules are checked before they are run or timed; the builders' are trusted."""

from __future__ import annotations

import numpy as np
import pytest

from nvlearn import collectives, dataplane, schedule
from nvlearn.schedule import DEP_ARRIVAL, OP_COPY, OP_REDUCE, make_schedule
from nvlearn.sim import simulate
from nvlearn.topology import single_switch

OPS = dict(collective="allreduce", algorithm="by hand", n_ranks=2, n_bytes=8.0,
           chunk_bounds=[0.0, 1.0], chunk_owner=[-1], chunk_dest=[-1],
           op_src=[0, 1], op_dst=[1, 0], op_chunk=[0, 0], op_kind=[OP_REDUCE, OP_COPY])


def test_a_race_is_reported_not_timed_or_summed():
    racy = make_schedule(**OPS, deps=[[], []])        # rank 1 may send before it has the sum
    with pytest.raises(ValueError, match="wrong contents"):
        simulate(single_switch(2, 1e9), racy)
    with pytest.raises(ValueError, match="wrong contents"):
        dataplane.run(racy, np.ones((2, 4)))


def test_a_fake_collective_is_reported():
    fake = make_schedule(**{**OPS, "op_kind": [OP_COPY, OP_COPY]},
                         deps=[[], [(0, DEP_ARRIVAL)]])     # copies: nobody adds
    with pytest.raises(ValueError, match="by hand allreduce"):
        simulate(single_switch(2, 1e9), fake, model="wire")


def test_a_correct_hand_written_schedule_is_checked_once(monkeypatch):
    calls = []
    real = schedule.validate
    monkeypatch.setattr(schedule, "validate", lambda s, seed=0: (calls.append(s), real(s)))
    ok = make_schedule(**OPS, deps=[[], [(0, DEP_ARRIVAL)]])
    assert dataplane.run(ok, np.array([[1.0], [2.0]]))[0, 0] == 3.0
    simulate(single_switch(2, 1e9), ok, model="wire")
    assert calls == [ok]


def test_builders_are_trusted_and_relabelling_keeps_it(monkeypatch):
    monkeypatch.setattr(schedule, "validate", lambda s, seed=0: pytest.fail("re-validated"))
    s = collectives.allreduce(8, 1e6, "nccl_tree", chunks=4)
    simulate(single_switch(8, 1e9), s.relabel("renamed"), model="wire")
    dataplane.run(s, np.ones((8, 16)))


def test_numpy_integer_rank_counts_are_accepted():
    assert collectives.allreduce(np.int64(6), 1e6).n_ranks == 6
