"""The step-time model's all-reduce is NCCL's choice: per size, the tuner's best
(algorithm, protocol) and exactly its predicted time; and no bus bandwidth it reports on a
multi-node InfiniBand cluster exceeds what the nodes' NICs can carry.

NIC bound. A node of ``g`` GPUs has ``nics`` ports of rate ``B``: ``NB = nics x B`` per
direction. With no reduction inside the network (the tuner has no CollNet / IB SHARP), an
all-reduce among ``N`` nodes must move at least ``2 (N-1)/N x n`` bytes each way through every
node's NICs, even when each node first sums its own GPUs' gradients (the nodes then run an
all-reduce of their partial sums: Patarasuk & Yuan's bound, one rank per node). So
``t >= 2 (N-1)/N x n / NB`` and the nccl-tests bus bandwidth ``2 (p-1)/p x n / t`` is at most
``[2 (p-1)/p] / [2 (N-1)/N] x NB``. A ring (or NCCL's tree) that does not pre-reduce inside a
node sends ``2 (p-1)/p x n`` through each node's NICs: at most ``NB`` itself.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nvlearn import collectives, specs, tuner
from nvlearn import topology as T
from nvlearn.sgd import comm
from nvlearn.sgd.comm import allreduce_time, nccl_fabric
from nvlearn.sgd.steptime import DDP_BUCKET_BYTES, step_time

SIZES = [2.0**10, 2.0**16, 2.0**20, float(DDP_BUCKET_BYTES), 2.0**30, 14e9]
NODE_COUNTS = [2, 3, 4, 8, 16, 64, 256, 512, 1024]


def _node_nic_bw() -> float:
    """A DGX H100's NICs together, bytes/s per direction (from the catalogue)."""
    dgx = specs.system("dgx_h100")
    return dgx.nics * specs.nic(dgx.nic).port_bw_per_dir


def _nic_bound(p: int, nodes: int) -> float:
    """Largest busbw any all-reduce without in-network reduction can reach (docstring)."""
    node_share = collectives.busbw_factor("allreduce", nodes)     # 2 (N-1)/N
    return collectives.busbw_factor("allreduce", p) / node_share * _node_nic_bw()


@pytest.mark.parametrize(
    ("fabric", "n_gpus", "topology"),
    [
        ("ib_cluster", 4, lambda: T.dgx_h100()),
        ("nvlink_pod", 8, lambda: T.dgx_h100()),
        ("pcie_box", 8, lambda: T.pcie_box()),
        ("ib_cluster", 16, lambda: T.ib_cluster(2)),
        ("ib_cluster", 512, lambda: T.ib_cluster(64)),
        ("ib_cluster", 2048, lambda: T.ib_cluster(256)),
        ("nvlink_pod", 64, lambda: T.nvlink_pod(8)),
        ("nvlink_pod", 256, lambda: T.nvlink_pod(32)),
    ],
)
def test_time_is_the_tuners_choice_on_the_built_topology(fabric, n_gpus, topology):
    topo = topology()
    for n_bytes in SIZES:
        est = allreduce_time(fabric, n_gpus, n_bytes)
        ref = tuner.choose("allreduce", n_bytes, topo, n_ranks=n_gpus)
        assert est.time == ref.time                       # exactly NCCL's predicted time
        assert est.label == ref.best.label
        assert est.latency_term == ref.best.latency
        assert est.method == f"NCCL model: {ref.best.label}"


def test_beyond_the_builders_only_the_node_count_grows():
    node = tuner.fabric_from_topology(T.ib_cluster(2))
    for n_gpus in (4096, 8192):
        f = nccl_fabric("ib_cluster", n_gpus)
        assert dataclasses.replace(f, name=node.name, derivation=node.derivation) == \
            dataclasses.replace(node, n_ranks=n_gpus)
        for n_bytes in SIZES:
            ref = tuner.choose("allreduce", n_bytes, dataclasses.replace(node, n_ranks=n_gpus))
            assert allreduce_time("ib_cluster", n_gpus, n_bytes).time == ref.time
    pods = nccl_fabric("nvlink_pod", 1024)
    assert (pods.ranks_per_node, pods.n_nodes, pods.inter_link) == (256, 4, "net")
    assert pods.bw_inter == pytest.approx(256 / 8 * _node_nic_bw())     # a pod's 256 NICs
    boxes = nccl_fabric("pcie_box", 64)
    assert (boxes.intra_link, boxes.ranks_per_node, boxes.bw_inter) == ("pci", 8, node.bw_inter)


@pytest.mark.parametrize("nodes", NODE_COUNTS)
def test_busbw_never_exceeds_the_nic_bound_on_a_grid(nodes):
    p = 8 * nodes
    for n_bytes in [*SIZES, 2.0**34]:
        est = allreduce_time("ib_cluster", p, n_bytes)
        assert est.busbw <= _nic_bound(p, nodes) * (1 + 1e-12), (nodes, n_bytes, est.label)
        if est.choice.algorithm in ("ring", "tree"):      # no pre-reduction inside a node
            assert est.busbw <= _node_nic_bw() * (1 + 1e-12), (nodes, n_bytes, est.label)


@settings(max_examples=60, deadline=None)
@given(nodes=st.integers(2, 1024), log2_bytes=st.floats(0.0, 36.0))
def test_busbw_never_exceeds_the_nic_bound(nodes, log2_bytes):
    p, n_bytes = 8 * nodes, 2.0**log2_bytes
    est = allreduce_time("ib_cluster", p, n_bytes)
    assert est.busbw <= _nic_bound(p, nodes) * (1 + 1e-12)
    ring = tuner.choose("allreduce", n_bytes, nccl_fabric("ib_cluster", p), algorithms=["ring"])
    ring_busbw = collectives.busbw("allreduce", n_bytes, p, ring.time)
    assert ring_busbw <= _node_nic_bw() * (1 + 1e-12)     # a ring across nodes: the nodes' NICs


def test_the_old_ring_figure_stays_available_as_wire():
    """16 GPUs on InfiniBand: the wire ring is the old hierarchical composition; NCCL's pick
    is an in-node-reducing NVLSTree here, which the NIC bound allows above the NICs' rate."""
    wire = allreduce_time("ib_cluster", 16, 14e9, model="wire")
    nccl = allreduce_time("ib_cluster", 16, 14e9)
    assert wire.model == "wire" and len(wire.stages) == 3
    assert nccl.model == "achievable" and nccl.choice.algorithm == "nvls_tree"
    assert max(wire.busbw, nccl.busbw) <= _nic_bound(16, 2)


def test_in_node_ring_wire_rate_vs_nccl_rate():
    """~450 GB/s is the wire ring inside a DGX; NCCL's ring is 18 x 20.6 GB/s at most."""
    wire = allreduce_time("ib_cluster", 8, 14e9, model="wire")
    nv4 = specs.nvlink(4)
    assert wire.busbw == pytest.approx(nv4.gpu_bw_per_dir, rel=2e-3)
    ring = tuner.choose("allreduce", 14e9, T.dgx_h100(), algorithms=["ring"])
    assert ring.best.bus_bw == pytest.approx(nv4.links_per_gpu * specs.nccl().nvlink_bw(90))
    assert ring.best.bus_bw < wire.busbw


def test_each_bucket_gets_its_own_choice():
    st8k = step_time(7e9, 8192, "ib_cluster", overlap=True)
    sizes = np.unique(st8k.timeline.bucket_bytes)
    durations = np.unique(np.round(st8k.timeline.comm_end - st8k.timeline.comm_start, 15))
    want = {round(allreduce_time("ib_cluster", 8192, float(b)).time, 15) for b in sizes}
    assert set(durations.tolist()) == want
    # the full gradient and one DDP bucket are priced separately, and may differ in algorithm
    assert st8k.allreduce.choice.n_bytes == pytest.approx(14e9)


def test_one_gpu_has_nothing_to_sum():
    est = allreduce_time("ib_cluster", 1, 1e9)
    assert est.time == 0.0 and est.choice is None and np.isnan(est.busbw)
    with pytest.raises(ValueError, match="at least 2 GPUs"):
        nccl_fabric("ib_cluster", 1)


def test_bad_model_is_rejected():
    with pytest.raises(ValueError, match="model must be one of"):
        allreduce_time("ib_cluster", 16, 1e9, model="ideal")
    with pytest.raises(ValueError, match="model must be one of"):
        step_time(7e9, 16, "ib_cluster", model="nccl")


def test_models_name_the_simulators():
    from nvlearn.sim.models import MODELS

    assert comm.MODELS == MODELS


def test_notebook_01_computes_both_in_node_figures():
    """The wire ring (~450 GB/s) and NCCL's ring (18 x 20.6 GB/s) are computed, not typed."""
    from pathlib import Path

    import nbformat

    path = Path(__file__).resolve().parents[1] / "notebooks" / "01_sgd_gradient_summation.ipynb"
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert 'model="wire"' in code and "nccl.nvlink_bw(90)" in code and "SM90_NVLINK_BW" in code
    for typed in ("450 GB/s", "370.8", "371 GB/s"):
        assert typed not in prose and typed not in code
